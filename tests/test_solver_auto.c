// test_solver_auto.c — solver.name auto (core/solvers/auto.c): per island, PGS first and the
// model's factoring solver where PGS stalls or an island is coupled. The expected values come
// from runs of the fixed solvers it chooses between (ncp/pgs, ncp/admm), never from auto's own:
// - a lone cube sliding (one island, one body: PGS converges) is PGS's, with no island handed
//   over: ncp/pgs's path within 1e-6 m (auto's PGS sweeps a passing warm start once, pgs.c
//   PGS_WARM_MARGIN, so the answers differ within the tolerance);
// - a cube at rest: ncp/pgs alone falls into the 3-step cycle of pgs.c PGS_WARM_MARGIN (more than
//   3 sweeps a step), auto's PGS sweeps about once a step, every step within the tolerance;
// - a stack of 6 cubes (contacts between two bodies: coupled) is ncp/admm bit for bit, and
//   ncp/pgs ends at the iteration cap on those steps while auto converges on every one;
// - Talos standing (one tree, 8 contacts: PGS) where ncp/pgs ends some steps at the cap 500:
//   auto ends none unconverged (one island may sweep to the cap before ADMM takes it), and
//   still solves most islands with PGS;
// - the choice is the same on a rerun (deterministic);
// - humanoid100.xml under ccp with MuJoCo's softness and pyramid: auto is newton bit for bit;
//   where newton cannot take the model, auto under the pyramid is refused naming why.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sim.h"
#include "io/compile.h"
#include "scene_fixture.h"
#include "support.h"

// what a run of nstep steps gave
typedef struct {
  int nq, steps, capped, nonconv;
  long islands, switched, rescued, iterations;
  double worst;  // the largest stopping residual over the steps with contacts
  double* q;  // (nstep x nq) after each step
} trace;

static trace run(fixture* f, int nstep) {
  trace t = {.nq = f->s->model.m->nq, .steps = nstep};
  t.q = calloc((size_t)nstep * (size_t)t.nq, sizeof(double));
  ck_assert(t.q);
  int cap = f->s->opt.solver.max_iterations;
  for (int k = 0; k < nstep; k++) {
    sim_stepinfo info;
    memset(&info, 0, sizeof(info));
    csim_error err;
    ck_assert_msg(sim_step(f->s, &info, &err) == CSIM_OK, "step %d: %s", k, err.msg);
    memcpy(t.q + (size_t)k * (size_t)t.nq, f->s->data.d->q, sizeof(double) * (size_t)t.nq);
    t.capped += info.ncon > 0 && info.solve.iterations >= cap;
    t.nonconv += info.ncon > 0 && !info.solve.converged;
    t.islands += info.solve.islands;
    t.switched += info.solve.switched;
    t.rescued += info.solve.rescued;
    t.iterations += info.solve.iterations;
    if (info.ncon > 0 && !(info.solve.residual <= t.worst)) t.worst = info.solve.residual;
  }
  return t;
}

// scenario `path` (with sets) under solver `name`, nstep steps
static trace run_file(const char* path, const char* name, const char* const* sets, int nset,
                      int nstep) {
  const char* all[8];
  char sv[64];
  snprintf(sv, sizeof(sv), "solver.name=%s", name);
  all[0] = sv;
  for (int i = 0; i < nset && i < 7; i++) all[i + 1] = sets[i];
  fixture f = fixture_file(path, all, nset + 1);
  trace t = run(&f, nstep);
  fixture_free(&f);
  return t;
}

static int same_q(const trace* a, const trace* b) {
  return a->nq == b->nq && a->steps == b->steps &&
         memcmp(a->q, b->q, sizeof(double) * (size_t)a->steps * (size_t)a->nq) == 0;
}

// the largest difference between two runs' configurations
static double max_dq(const trace* a, const trace* b) {
  ck_assert(a->nq == b->nq && a->steps == b->steps);
  double m = 0;
  for (size_t k = 0; k < (size_t)a->steps * (size_t)a->nq; k++) m = fmax(m, fabs(a->q[k] - b->q[k]));
  return m;
}

START_TEST(lone_cube_is_pgs) {
  trace p = run_file("scenarios/cube_slide.yaml", "pgs", NULL, 0, 400);
  trace a = run_file("scenarios/cube_slide.yaml", "auto", NULL, 0, 400);
  ck_assert_int_eq(a.switched, 0);
  ck_assert_msg(a.islands > 0, "the cube touches the ground");
  ck_assert_int_eq(a.nonconv, 0);
  // the slide stops after v0^2 / (2 mu g) = 0.1699 m: a difference within the tolerance's reach
  // (1e-8 impulse residuals) and far below that
  double d = max_dq(&a, &p);
  ck_assert_msg(d < 1e-6, "auto on one cube strays %.3g from ncp/pgs", d);
  free(p.q);
  free(a.q);
}
END_TEST

// cube_slide.yaml at rest (bench_scenes.py cube_rest: tolerance 1e-8): a warm start accepted
// near the tolerance grows about 3x a step, so ncp/pgs alone runs a full solve every third step
// or so (4.4 sweeps a step); auto's PGS sweeps a passing warm start once (pgs.c
// PGS_WARM_MARGIN): about one sweep a step (0.995 measured), every step within the tolerance
START_TEST(resting_cube_sweeps_once) {
  const char* rest[1] = {"robots.0.v0=[0, 0, 0, 0, 0, 0]"};
  trace p = run_file("scenarios/cube_slide.yaml", "pgs", rest, 1, 600);
  trace a = run_file("scenarios/cube_slide.yaml", "auto", rest, 1, 600);
  double sp = (double)p.iterations / p.steps, sa = (double)a.iterations / a.steps;
  ck_assert_msg(sp > 3, "precondition: ncp/pgs sweeps %.3g a step at rest", sp);
  ck_assert_msg(sa < 1.5, "auto sweeps %.3g a step on a resting cube (ncp/pgs %.3g)", sa, sp);
  ck_assert_int_eq(a.switched, 0);
  ck_assert_int_eq(a.nonconv, 0);
  ck_assert_msg(a.worst <= 1e-8, "a step ends at residual %.3g above the tolerance 1e-8", a.worst);
  // at rest: both leave the cube where it started (z 0.05 m) within the tolerance's reach
  double d = max_dq(&a, &p);
  ck_assert_msg(d < 1e-7, "auto's resting cube strays %.3g from ncp/pgs's", d);
  free(p.q);
  free(a.q);
}
END_TEST

// six 10 cm cubes stacked exactly touching (tools/bench/bench_scenes.py stack_yaml)
static const char* stack_path(char* buf, size_t n) {
  char yaml[4096], cube[4096];
  ck_assert(realpath("robots/cube.urdf", cube));
  int k = snprintf(yaml, sizeof(yaml),
                   "name: stack6\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
                   "robots:\n");
  for (int i = 0; i < 6; i++)
    k += snprintf(yaml + k, sizeof(yaml) - (size_t)k,
                  "  - {urdf: %s, base: free, q0: [0, 0, %.3f, 0, 0, 0, 1]}\n", cube,
                  0.05 + 0.1 * i);
  snprintf(yaml + k, sizeof(yaml) - (size_t)k,
           "contact: {model: ncp, friction: 0.5, baumgarte: 0}\n"
           "solver: {name: pgs, tolerance: 1.0e-6, max_iterations: 300, warm_start: true}\n"
           "integrator: {dt: 1.0e-3, duration: 1.0}\n");
  tmp_write_text("stack6.yaml", yaml);
  return tmp_path(buf, n, "stack6.yaml");
}

// a coupled step is ADMM's: under the default criterion (auto, ncp) held to the natural residual
// too (auto.c coupled_criterion), so ncp/admm under criterion natural bit for bit, and under an
// explicit criterion ncp, ncp/admm under it bit for bit
START_TEST(stack_is_admm_and_converges) {
  char path[512];
  stack_path(path, sizeof(path));
  const char* nat[1] = {"solver.criterion=natural"};
  const char* ncp[1] = {"solver.criterion=ncp"};
  trace p = run_file(path, "pgs", NULL, 0, 60);
  trace d = run_file(path, "admm", nat, 1, 60);
  trace a = run_file(path, "auto", NULL, 0, 60);
  trace dn = run_file(path, "admm", ncp, 1, 60);
  trace an = run_file(path, "auto", ncp, 1, 60);
  ck_assert_msg(p.capped > 30, "precondition: ncp/pgs ends %d of 60 steps at the cap", p.capped);
  ck_assert_int_eq(d.nonconv, 0);
  ck_assert_int_eq(a.nonconv, 0);
  ck_assert_int_eq(a.capped, 0);
  ck_assert_int_eq(a.switched, a.islands);  // every island of a coupled step: the second solver
  ck_assert_msg(same_q(&a, &d), "auto on the stack differs from ncp/admm under criterion natural");
  ck_assert_msg(same_q(&an, &dn), "auto on the stack differs from ncp/admm (criterion ncp)");
  ck_assert_msg(!same_q(&a, &an), "the criteria give the same stack: the test tells nothing");
  free(p.q);
  free(d.q);
  free(a.q);
  free(dn.q);
  free(an.q);
}
END_TEST

// humanoid100.xml under ccp with the file's softness and MuJoCo's pyramid (the scenario's cone):
// auto is newton, bit for bit with solver.name newton, no island handed on; admm is refused
START_TEST(pyramid_auto_is_newton) {
  trace n = run_file("scenarios/mujoco_humanoid100.yaml", "newton", NULL, 0, 60);
  trace a = run_file("scenarios/mujoco_humanoid100.yaml", "auto", NULL, 0, 60);
  ck_assert_msg(a.islands > 0, "the bodies touch");
  ck_assert_int_eq(a.switched, 0);
  ck_assert_int_eq(a.nonconv, 0);
  ck_assert_msg(same_q(&a, &n), "auto under the pyramid differs from newton");
  free(n.q);
  free(a.q);
  const char* sets[1] = {"solver.name=admm"};
  scn_config* cfg = NULL;
  sim* s = NULL;
  csim_error err;
  ck_assert_int_eq(scn_load("scenarios/mujoco_humanoid100.yaml", sets, 1, &cfg, &err), CSIM_OK);
  ck_assert_int_eq(sim_create(cfg, &s, &err), CSIM_ERR_INPUT);
  ck_assert_str_eq(err.key, "solver.name");
  ck_assert_msg(strstr(err.msg, "pyramidal"), "%s", err.msg);
  sim_free(s);
  scn_free(cfg);
  // where newton cannot take the model (Solo-12's rigid joint limits), auto under the pyramid is
  // refused with newton's reason, pointing to pgs (not admm: no pyramid there)
  const char* rigid[5] = {"contact.model=ccp", "contact.baumgarte=0", "contact.solref=[0.02, 1]",
                          "contact.cone=pyramidal", "solver.name=auto"};
  s = NULL;
  ck_assert_int_eq(scn_load("scenarios/solo12_stand.yaml", rigid, 5, &cfg, &err), CSIM_OK);
  ck_assert_int_eq(sim_create(cfg, &s, &err), CSIM_ERR_INPUT);
  ck_assert_str_eq(err.key, "solver.name");
  ck_assert_msg(strstr(err.msg, "rigid limit") && strstr(err.msg, "choose solver.name pgs") &&
                    !strstr(err.msg, "admm"), "%s", err.msg);
  sim_free(s);
  scn_free(cfg);
}
END_TEST

// auto on `path` again (nstep steps) against a's run: the same choices (handed-over and
// rescued islands) and the same trajectory, bit for bit; a's trajectory freed
static void check_rerun(const char* path, trace* a, int nstep) {
  trace b = run_file(path, "auto", NULL, 0, nstep);
  ck_assert_int_eq(b.switched, a->switched);
  ck_assert_int_eq(b.rescued, a->rescued);
  ck_assert_msg(same_q(a, &b), "auto is not deterministic on %s", path);
  free(a->q);
  free(b.q);
}

START_TEST(talos_never_at_cap) {
  trace p = run_file("scenarios/talos_stand.yaml", "pgs", NULL, 0, 2000);
  trace a = run_file("scenarios/talos_stand.yaml", "auto", NULL, 0, 2000);
  ck_assert_msg(p.capped > 0, "precondition: ncp/pgs ends some step at the cap (%d)", p.capped);
  ck_assert_int_eq(a.nonconv, 0);
  ck_assert_msg(a.capped < p.capped, "auto reaches the cap on %d steps, pgs on %d", a.capped,
                p.capped);
  ck_assert_msg(a.switched > 0 && 10 * a.switched < a.islands,
                "PGS should keep most islands: %ld of %ld handed over", a.switched, a.islands);
  check_rerun("scenarios/talos_stand.yaml", &a, 2000);
  free(p.q);
}
END_TEST

// the Panda pushing a cube (scenarios/panda_push_cube.yaml, ncp, tolerance 1e-6): on two
// steps the pushed cube's island stalls PGS and ADMM's fixed point (with its Newton finish)
// alike, both ending at the cap with eps_abs 2.3e-6 and 1.3e-6; ncp's semismooth Newton
// method (ncp_newton.c) solves it from their answer (1.2e-8), so auto hands it such islands
// (auto.c third_pass): no step left above the tolerance, and the choice the same on a rerun
START_TEST(panda_newton_takes_what_both_leave) {
  trace p = run_file("scenarios/panda_push_cube.yaml", "pgs", NULL, 0, 2000);
  trace a = run_file("scenarios/panda_push_cube.yaml", "auto", NULL, 0, 2000);
  ck_assert_msg(p.nonconv > 0, "precondition: ncp/pgs leaves some step unconverged (%d)",
                p.nonconv);
  ck_assert_int_eq(a.nonconv, 0);
  ck_assert_msg(a.rescued >= 1, "the third solver answered no island (%ld)", a.rescued);
  check_rerun("scenarios/panda_push_cube.yaml", &a, 2000);
  // csim run records them per step: /solver/rescued adds up to the count of the run above (the
  // scenario's 2000 steps), each step's no more than its switched islands
  char out[128];
  snprintf(out, sizeof(out), P_tmpdir "/csim_test_auto_rescued_%d.h5", (int)getpid());
  char* argv[] = {"scenarios/panda_push_cube.yaml", "--out", out, "--quiet"};
  hid_t f = cli_run_open(4, argv, out);
  static int resc[2001], sw[2001];
  ck_assert_int_eq(h5_read(f, "/solver/rescued", NULL, resc, 2001, NULL), 2000);
  ck_assert_int_eq(h5_read(f, "/solver/switched", NULL, sw, 2001, NULL), 2000);
  H5Fclose(f);
  remove(out);
  long sum = 0;
  for (int k = 0; k < 2000; k++) {
    sum += resc[k];
    ck_assert_int_le(resc[k], sw[k]);
  }
  ck_assert_int_eq(sum, a.rescued);
  free(p.q);
}
END_TEST

// Go1 standing (../shared's unedited URDF: all 12 joints with dry friction, so its island holds
// 12 box rows beside the feet's 4 contacts): joint rows do not make an island "coupled" (the
// rule counts contacts, contact.c any_coupled), so PGS keeps most islands: at most a quarter
// handed to ADMM (measured over 300 steps: 70; before the rule counted contacts only, 271).
// Unconverged steps are printed, not checked: the unactuated robot settling on 12 sticking dry
// frictions is degenerate for every solver (ncp/pgs 47 of 300, auto 63; the trajectories part
// from the first step the solvers differ, so the counts compare no one problem)
START_TEST(joint_friction_rows_are_not_contacts) {
  char path[512], urdf[4096], yaml[8192];
  if (!realpath("../shared/data/robots/go1/go1.urdf", urdf)) {
    fprintf(stderr, "skipped: ../shared/data/robots/go1/go1.urdf not found\n");
    return;
  }
  snprintf(yaml, sizeof(yaml),
           "name: go1_stand\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
           "robots:\n  - urdf: %s\n    base: free\n"
           "    q0: [0, 0, 0.29, 0, 0, 0, 1, 0, 0.9, -1.8, 0, 0.9, -1.8, 0, 0.9, -1.8, 0, 0.9, -1.8]\n"
           "contact: {model: ncp, friction: 0.9, baumgarte: 10}\n"
           "solver: {name: auto, tolerance: 1.0e-6, max_iterations: 500, warm_start: true}\n"
           "integrator: {dt: 1.0e-3, duration: 1.0}\n", urdf);
  tmp_write_text("go1.yaml", yaml);
  tmp_path(path, sizeof(path), "go1.yaml");
  trace p = run_file(path, "pgs", NULL, 0, 300);
  trace a = run_file(path, "auto", NULL, 0, 300);
  printf("go1 standing, 300 steps: ncp/pgs %d steps not converged; auto %ld of %ld islands to "
         "ADMM, %d not converged\n", p.nonconv, a.switched, a.islands, a.nonconv);
  ck_assert_msg(a.islands > 0, "the feet touch the ground");
  ck_assert_msg(4 * a.switched <= a.islands, "%ld of %ld islands handed to ADMM", a.switched,
                a.islands);
  free(p.q);
  free(a.q);
}
END_TEST

// raisim has one solver: auto is bisection
START_TEST(raisim_auto_is_bisection) {
  const char* sets[] = {"contact.model=raisim"};
  trace b = run_file("scenarios/cube_slide.yaml", "bisection", sets, 1, 200);
  trace a = run_file("scenarios/cube_slide.yaml", "auto", sets, 1, 200);
  ck_assert_int_eq(a.switched, 0);
  ck_assert_msg(same_q(&a, &b), "raisim auto differs from raisim/bisection");
  free(a.q);
  free(b.q);
}
END_TEST

int main(void) {
  Suite* s = suite_create("solver_auto");
  TCase* tc = tcase_create("auto");
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, talos_never_at_cap);
  tcase_add_test(tc, panda_newton_takes_what_both_leave);
  tcase_add_test(tc, pyramid_auto_is_newton);
  tcase_add_test(tc, stack_is_admm_and_converges);
  tcase_add_test(tc, lone_cube_is_pgs);
  tcase_add_test(tc, resting_cube_sweeps_once);
  tcase_add_test(tc, raisim_auto_is_bisection);
  tcase_add_test(tc, joint_friction_rows_are_not_contacts);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
