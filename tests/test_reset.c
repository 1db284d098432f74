// test_reset.c — sim_reset puts back everything a run writes (core/state.h step_data_reset): a
// scenario run N steps, reset, and run N steps again repeats the first pass bit for bit (==) in
// q, v, the contact count, the solver's or Newton's iterations, the energies and the energy
// audit, the counters and the warnings. The expected values are the first pass's own, from a
// freshly built sim: the second pass can only match them if nothing of the first pass survives
// the reset (a warm start, ADMM's rho or eigenvalue cache, a bristle deflection, the audit's
// E0 or cumulative work, collision's sweep order, a counter).
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim.h"
#include "dense_problem.h"
#include "scene_fixture.h"
#include "support.h"

#define NSTEP 150

// what one pass records, per step and at its end
typedef struct {
  double* q;                  // (NSTEP x nq) after each step
  double* v;                  // (NSTEP x nv)
  int ncon[NSTEP], nlimit[NSTEP], iterations[NSTEP];
  double residual[NSTEP], kinetic[NSTEP], potential[NSTEP], work[NSTEP], injected[NSTEP];
  long step, midpoint_its;
  int warnings[SIM_NWARN];
  sim_energy energy;          // after sim_finish
  int cmpl_nfail, cmpl_nsubstepped;
} trace;

static void pass(sim* s, trace* t) {
  int nq = s->model.m->nq, nv = s->model.m->nv;
  t->q = calloc((size_t)(NSTEP * nq), sizeof(double));
  t->v = calloc((size_t)(NSTEP * nv), sizeof(double));
  ck_assert(t->q && t->v);
  for (int k = 0; k < NSTEP; k++) {
    sim_stepinfo info;
    memset(&info, 0, sizeof(info));
    csim_error err;
    ck_assert_msg(sim_step(s, &info, &err) == CSIM_OK, "step %d: %s", k, err.msg);
    memcpy(t->q + (size_t)k * nq, s->data.d->q, sizeof(double) * (size_t)nq);
    memcpy(t->v + (size_t)k * nv, s->data.d->v, sizeof(double) * (size_t)nv);
    t->ncon[k] = info.ncon;
    t->nlimit[k] = info.nlimit;
    t->iterations[k] = info.solve.iterations;
    t->residual[k] = info.solve.residual;
    t->kinetic[k] = info.kinetic;
    t->potential[k] = info.potential;
    t->work[k] = info.work;
    t->injected[k] = info.injected;
  }
  csim_error err;
  ck_assert(sim_finish(s, &err) == CSIM_OK);
  t->step = s->data.step;
  t->midpoint_its = s->data.midpoint_its;
  memcpy(t->warnings, s->data.warnings, sizeof(t->warnings));
  t->energy = s->data.energy;
  t->cmpl_nfail = s->data.cmpl ? s->data.cmpl->nfail : 0;
  t->cmpl_nsubstepped = s->data.cmpl ? s->data.cmpl->nsubstepped : 0;
}

static void trace_free(trace* t) {
  free(t->q);
  free(t->v);
}

// the per-step arrays and the end values agree bit for bit (memcmp: == on every double, NaN
// included); *contacts receives the contacts summed over the first pass (the scene must have
// some for the warm start to matter)
static void same(const sim* s, const trace* a, const trace* b, long* contacts) {
  int nq = s->model.m->nq, nv = s->model.m->nv;
  for (int k = 0; k < NSTEP; k++) {
    ck_assert_msg(!memcmp(a->q + (size_t)k * nq, b->q + (size_t)k * nq, sizeof(double) * nq),
                  "q differs after step %d", k);
    ck_assert_msg(!memcmp(a->v + (size_t)k * nv, b->v + (size_t)k * nv, sizeof(double) * nv),
                  "v differs after step %d", k);
    ck_assert_msg(a->ncon[k] == b->ncon[k] && a->nlimit[k] == b->nlimit[k],
                  "step %d: %d contacts then %d", k, a->ncon[k], b->ncon[k]);
    ck_assert_msg(a->iterations[k] == b->iterations[k], "step %d: %d iterations then %d", k,
                  a->iterations[k], b->iterations[k]);
    ck_assert_msg(!memcmp(&a->residual[k], &b->residual[k], sizeof(double)),
                  "step %d: residual %.17g then %.17g", k, a->residual[k], b->residual[k]);
    ck_assert_msg(!memcmp(&a->kinetic[k], &b->kinetic[k], sizeof(double)) &&
                      !memcmp(&a->potential[k], &b->potential[k], sizeof(double)),
                  "step %d: energies differ", k);
    ck_assert_msg(!memcmp(&a->work[k], &b->work[k], sizeof(double)) &&
                      !memcmp(&a->injected[k], &b->injected[k], sizeof(double)),
                  "step %d: audit work %.17g / %.17g, injected %.17g / %.17g", k, a->work[k],
                  b->work[k], a->injected[k], b->injected[k]);
    *contacts += a->ncon[k];
  }
  ck_assert_int_eq(a->step, NSTEP);
  ck_assert_int_eq(a->step, b->step);
  ck_assert_int_eq(a->midpoint_its, b->midpoint_its);
  ck_assert(!memcmp(a->warnings, b->warnings, sizeof(a->warnings)));
  ck_assert_msg(!memcmp(&a->energy, &b->energy, sizeof(a->energy)),
                "energy audit: e0 %.17g / %.17g, work %.17g / %.17g", a->energy.e0,
                b->energy.e0, a->energy.work, b->energy.work);
  ck_assert_int_eq(a->cmpl_nfail, b->cmpl_nfail);
  ck_assert_int_eq(a->cmpl_nsubstepped, b->cmpl_nsubstepped);
}

// a fresh sim of the scenario run NSTEP steps, then on from a kicked state, reset, run NSTEP steps
// again; returns the contacts seen, the
// iterations and the warnings summed over the first pass
static void run_twice(const char* path, const char* const* sets, int nset, long* contacts,
                      long* iterations, int* warnings) {
  fixture f = fixture_file(path, sets, nset);
  trace a, b;
  memset(&a, 0, sizeof(a));
  memset(&b, 0, sizeof(b));
  pass(f.s, &a);
  // a history of its own before the reset: the state kicked (every velocity + 0.01) and run on,
  // so the warm starts, penalties and caches the reset must clear are not the first pass's end
  for (int k = 0; k < f.s->model.m->nv; k++) f.s->data.d->v[k] += 0.01;
  for (int k = 0; k < NSTEP; k++) {
    sim_stepinfo info;
    csim_error err;
    ck_assert(sim_step(f.s, &info, &err) == CSIM_OK);
  }
  sim_reset(f.s);
  ck_assert_int_eq(f.s->data.step, 0);
  ck_assert(f.s->data.d->time == 0);
  // the state is the scenario's q0, v0 again (unit quaternions: normalising changes no bit)
  const sim_model* m = f.s->model.m;
  for (int r = 0; r < f.cfg->nrobots; r++) {
    const scn_robot* R = &f.cfg->robots[r];
    if (R->q0)
      ck_assert(!memcmp(f.s->data.d->q + m->robot_qadr[r], R->q0, sizeof(double) * R->nq0));
    if (R->v0)
      ck_assert(!memcmp(f.s->data.d->v + m->robot_dofadr[r], R->v0, sizeof(double) * R->nv0));
  }
  pass(f.s, &b);
  *contacts = 0;
  same(f.s, &a, &b, contacts);
  *iterations = 0;
  for (int k = 0; k < NSTEP; k++) *iterations += a.iterations[k];
  *warnings = 0;
  for (int w = 0; w < SIM_NWARN; w++) *warnings += a.warnings[w];
  trace_free(&a);
  trace_free(&b);
  fixture_free(&f);
}

// a 1 g cube under a 1 t cube: contacts on every step, warm-started (lambda and ADMM's dual),
// ADMM's spectral rho and eigenvalue cache carried between steps
START_TEST(rigid_admm_warm_start) {
  const char* sets[] = {"solver.name=admm", "solver.warm_start=true", "solver.tolerance=1e-8"};
  long contacts, iterations;
  int warnings;
  run_twice("scenarios/cube_stack_ill.yaml", sets, 3, &contacts, &iterations, &warnings);
  ck_assert_int_ge(contacts, 4 * NSTEP);  // 4 under the small cube, more once the big one lands
  ck_assert_int_gt(iterations, 0);
}
END_TEST

// the same with PGS: the warm start is the previous step's impulses only
START_TEST(rigid_pgs_warm_start) {
  const char* sets[] = {"solver.warm_start=true"};
  long contacts, iterations;
  int warnings;
  run_twice("scenarios/cube_stack_ill.yaml", sets, 1, &contacts, &iterations, &warnings);
  ck_assert_int_ge(contacts, 4 * NSTEP);
  ck_assert_int_gt(iterations, NSTEP);
}
END_TEST

// solver.name auto: both of its solvers' state (PGS's warm start, ADMM's rho and caches) reset
// with it; Solo-12 trotting with a cap of 20 sweeps hands islands to ADMM from step 70 on
START_TEST(rigid_auto_warm_start) {
  const char* sets[] = {"solver.name=auto", "solver.max_iterations=20"};
  long contacts, iterations;
  int warnings;
  run_twice("scenarios/solo12_trot.yaml", sets, 2, &contacts, &iterations, &warnings);
  ck_assert_int_gt(contacts, NSTEP);
  ck_assert_int_gt(iterations, NSTEP);
}
END_TEST

// a compliant law with a state: the bristle deflection of the stick-slip box, carried between
// steps by contact id, and TAMSI's Newton iteration. The box starts sliding and turning about
// a tilted axis (v0): an initial state that is not the model's reference one, and gyroscopic
// terms, whose midpoint iteration starts from the last two steps' (step_data apas, apas1, tree_rho)
START_TEST(compliant_bristle_state) {
  const char* sets[] = {"contact.model=bristle", "contact.friction_stiffness=1e4",
                        "contact.friction_damping=100", "robots.0.v0=[0.05,0,0,0.3,0.2,1.0]"};
  long contacts, iterations;
  int warnings;
  run_twice("scenarios/stick_slip_box.yaml", sets, 4, &contacts, &iterations, &warnings);
  ck_assert_int_ge(contacts, 4 * NSTEP);
  ck_assert_int_gt(iterations, 0);
}
END_TEST

// Newton capped at 2 iterations: steps retaken in substeps (convergence control), steps that
// still fail counted (cmpl nfail, nsubstepped) and warned (SIM_WARN_NONCONVERGED)
START_TEST(compliant_counters_and_warnings) {
  const char* sets[] = {"integrator.newton_max_iterations=2"};
  long contacts, iterations;
  int warnings;
  run_twice("scenarios/stick_slip_box.yaml", sets, 1, &contacts, &iterations, &warnings);
  ck_assert_int_ge(contacts, 4 * NSTEP);
  ck_assert_int_gt(warnings, 0);
}
END_TEST

// solver_reset alone: a solver that solved another problem first, then reset, answers problem
// P bit for bit as a fresh one does. The other problem is P's G scaled by 1 + 1e-7: within the
// 1e-6 that lets ADMM reuse a cached largest eigenvalue, so a cache that survived the reset
// would give P a rho from the other G; the penalties carried across solves (ADMM's spectral
// power, staggered's two) would differ too
static void solver_case(csim_solver kind) {
  enum { NC = 3, N = 3 * NC };
  unsigned seed = 7;
  double G[N * N], G2[N * N], g[N], mu[NC] = {0.5, 0.8, 0.3};
  random_spd(N, G, &seed);
  for (int k = 0; k < N * N; k++) G2[k] = G[k] * (1 + 1e-7);
  for (int i = 0; i < NC; i++) {
    g[3 * i] = 0.3 * urand_sym(&seed);
    g[3 * i + 1] = 0.3 * urand_sym(&seed);
    g[3 * i + 2] = -1 - urand_sym(&seed) * 0.5;  // approaching: every contact pushes
  }
  solver_options o = {CSIM_MODEL_NCP, kind, 1e-10, 300, 1, 4, 1.0, 1, SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
  solver *fresh = NULL, *used = NULL;
  csim_error err;
  ck_assert_int_eq(solver_create(&o, NC, &fresh, &err), CSIM_OK);
  ck_assert_int_eq(solver_create(&o, NC, &used, &err), CSIM_OK);
  double la[N] = {0}, lb[N] = {0}, lo[N] = {0};
  solver_result ra, rb, ro;
  solver_problem p = tdense(NC, G, g, mu, NULL);
  solver_solve(fresh, &p, la, &ra);
  for (int rep = 0; rep < 3; rep++) {
    solver_problem p2 = tdense(NC, G2, g, mu, NULL);
    memset(lo, 0, sizeof(lo));
    solver_solve(used, &p2, lo, &ro);
  }
  solver_reset(used);
  p = tdense(NC, G, g, mu, NULL);
  solver_solve(used, &p, lb, &rb);
  ck_assert_int_gt(ra.iterations, 1);
  ck_assert_int_eq(ra.iterations, rb.iterations);
  ck_assert_msg(!memcmp(la, lb, sizeof(la)), "%s: lambda differs after a reset",
                csim_solver_names[kind]);
  solver_free(fresh);
  solver_free(used);
}

START_TEST(solver_reset_admm) {
  solver_case(CSIM_SOLVER_ADMM);
}
END_TEST

START_TEST(solver_reset_staggered) {
  solver_case(CSIM_SOLVER_STAGGERED);
}
END_TEST

static Suite* reset_suite(void) {
  Suite* s = suite_create("reset");
  TCase* tc = tcase_create("reset");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, rigid_admm_warm_start);
  tcase_add_test(tc, rigid_pgs_warm_start);
  tcase_add_test(tc, rigid_auto_warm_start);
  tcase_add_test(tc, compliant_bristle_state);
  tcase_add_test(tc, compliant_counters_and_warnings);
  tcase_add_test(tc, solver_reset_admm);
  tcase_add_test(tc, solver_reset_staggered);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(reset_suite());
}
