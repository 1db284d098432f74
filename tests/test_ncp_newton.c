// test_ncp_newton.c — solver.name newton under contact.model ncp (core/solvers/ncp_newton.c: a
// semismooth Newton method on Alart-Curnier's function), against independent answers:
//   - one contact: the 300 cases built backwards from their exact NCP solution (support.h
//     ncp_contact_case) and the sliding block's closed form (000 eqs. 16-18);
//   - a cube resting and sliding on a plane (4 corners, hyperstatic: G of rank 6 of 12): the
//     momentum balance fixes the total normal impulse (m g dt) and, sliding, the total friction
//     (mu m g dt against the motion), whatever the distribution;
//   - FCLib files (../shared/data/fclib): Siconos's relative error (fclib_siconos_error) below
//     1e-6, as ncp/admm's answer at a tight tolerance;
//   - scenarios stepped under ncp/newton against ncp/admm: cube_slide.yaml and a two-cube stack;
//   - what it refuses: condim 4/6 and dry joint friction at load, naming solver.name; a box entry
//     handed to the solver directly leaves lambda as given with an infinite residual.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/solvers/solver.h"
#include "dense_problem.h"
#include "out/fclib.h"
#include "scene_fixture.h"
#include "support.h"

#define GRAV 9.81
#define DT 1e-3
#define DATA "../shared/data/fclib/"

// ncp with this solver, tolerance and iteration cap, the other options at their defaults
static solver* make(csim_solver kind, int maxc, double tol, int iters) {
  return tsolver(CSIM_MODEL_NCP, kind, maxc, tol, iters, 1, 4);
}

START_TEST(single_contact_cases) {
  solver* sv = make(CSIM_SOLVER_NEWTON, 1, 1e-12, 100);
  // eps_c is quadratic in the friction direction's angle: 1e-12 pins it to ~1e-6 only
  ncp_cases_expect(sv, 2e-6, "ncp/newton", NULL);
  solver_free(sv);
}
END_TEST

START_TEST(sliding_block_closed_form) {
  solver* sv = make(CSIM_SOLVER_NEWTON, 1, 1e-14, 100);
  sliding_block_expect_ncp(sv, 2, 0.3, 1.0, GRAV, DT, 1e-13);
  sliding_block_expect_ncp(sv, 0.5, 0.8, 0.2, GRAV, DT, 1e-13);
  solver_free(sv);
}
END_TEST

// a 1 kg, 10 cm cube on its 4 bottom corners, translating at vx (0: at rest) after a step of
// gravity: newton's answer meets eps_abs 1e-10 with the totals of the momentum balance
START_TEST(cube_on_plane) {
  double I = 0.01 / 6, inertia[3] = {I, I, I}, G[144], g[12], mu[4] = {0.5, 0.5, 0.5, 0.5};
  box_G(1, inertia, 0.05, 0.05, G);
  solver* sv = make(CSIM_SOLVER_NEWTON, 4, 1e-10, 100);
  const double vx[3] = {0, 0.5, -2};
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 4; i++) {
      g[3 * i] = vx[k];
      g[3 * i + 1] = 0;
      g[3 * i + 2] = -GRAV * DT;
    }
    solver_problem p = tdense(4, G, g, mu, NULL);
    double x[12] = {0}, sn = 0, st[2] = {0, 0};
    solver_result r;
    solver_solve(sv, &p, x, &r);
    ck_assert_msg(r.converged, "vx %g: eps %.3g after %d", vx[k], r.eps_abs, r.iterations);
    ck_assert_double_le(r.eps_abs, 1e-10);
    ck_assert_int_le(r.iterations, 30);
    for (int i = 0; i < 4; i++) {
      sn += x[3 * i + 2];
      st[0] += x[3 * i];
      st[1] += x[3 * i + 1];
    }
    ck_assert_double_le(fabs(sn - GRAV * DT), 1e-9);
    double ft = vx[k] == 0 ? 0 : -copysign(0.5 * GRAV * DT, vx[k]);
    ck_assert_msg(fabs(st[0] - ft) <= 1e-9 && fabs(st[1]) <= 1e-9, "vx %g: friction %g %g",
                  vx[k], st[0], st[1]);
  }
  solver_free(sv);
}
END_TEST

// the files newton and admm solve: small, and one with 216 contacts in islands
static const char* const kFiles[] = {
    DATA "siconos_dat_converted/Rover4144.hdf5",
    DATA "siconos_dat_converted/OneObject-i100000-499.hdf5",
    DATA "siconos_local/Capsules-i97-269.hdf5",
};

// kind's answer to the file's problem in its own units (fclib_scaled_problem, as csim solve and
// the bench), back in the file's units in lam (3nc); Siconos's relative error returned
static double fclib_solve(const fclib_problem* p, csim_solver kind, double tol, int iters,
                          double* lam) {
  int N = 3 * p->nc;
  double* blk = malloc(sizeof(double) * (9 * (size_t)p->blocks->nblocks + 1));
  double* gr = malloc(sizeof(double) * (2 * (size_t)N + 2));
  ck_assert(blk && gr);
  double s_r, s_u;
  solver_problem sp = fclib_scaled_problem(p, blk, gr, gr + N + 1, &s_r, &s_u);
  sp.R = NULL;
  solver* sv = make(kind, p->nc, tol, iters);
  memset(lam, 0, sizeof(double) * (size_t)N);
  solver_result r;
  solver_solve(sv, &sp, lam, &r);
  ck_assert_msg(r.converged, "%s: eps %.3g after %d", csim_solver_names[kind], r.eps_abs,
                r.iterations);
  for (int k = 0; k < N; k++) lam[k] *= s_r;
  solver_free(sv);
  free(blk);
  free(gr);
  solver_problem up = fclib_solver_problem(p);
  up.R = NULL;
  return fclib_siconos_error(&up, lam, NULL);
}

START_TEST(fclib_files) {
  fclib_problem* p = NULL;
  csim_error e;
  ck_assert_int_eq(fclib_read(kFiles[_i], &p, &e), CSIM_OK);
  int N = 3 * p->nc;
  double* a = malloc(sizeof(double) * (size_t)N);
  double* b = malloc(sizeof(double) * (size_t)N);
  ck_assert(a && b);
  double en = fclib_solve(p, CSIM_SOLVER_NEWTON, 1e-10, 200, a);
  double ea = fclib_solve(p, CSIM_SOLVER_ADMM, 1e-10, 100000, b);
  ck_assert_msg(en <= 1e-6 && ea <= 1e-6, "%s: newton %.3g admm %.3g", kFiles[_i], en, ea);
  // both solve the problem: Siconos's error of each within 1e-6 of zero, so of each other's
  ck_assert_double_le(fabs(en - ea), 1e-6);
  free(a);
  free(b);
  fclib_free(p);
}
END_TEST

// a scenario (path, or YAML text with path as its name) under ncp with solver name at tolerance
// 1e-10, n steps: the final configuration in q (nq values), every step converged
static int run_steps(const char* text, const char* path, const char* name, int n, double* q) {
  char s1[64];
  snprintf(s1, sizeof(s1), "solver.name=%s", name);
  const char* sets[4] = {"contact.model=ncp", s1, "solver.tolerance=1e-10",
                         "solver.max_iterations=100000"};
  fixture f = text ? fixture_text(text, path, sets, 4) : fixture_file(path, sets, 4);
  csim_error err;
  for (int k = 0; k < n; k++) {
    sim_stepinfo info;
    ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
    ck_assert_msg(info.ncon == 0 || info.solve.converged, "%s %s step %d: eps %.3g", path, name,
                  k, info.solve.eps_abs);
  }
  int nq = f.s->model.m->nq;
  for (int k = 0; k < nq; k++) q[k] = f.s->data.d->q[k];
  fixture_free(&f);
  return nq;
}

// cube_slide (0.6 s: slides 0.1699 m, then rests) and two stacked cubes (0.3 s resting): the
// configurations of ncp/newton and ncp/admm within 1e-6 m (rad) of each other
START_TEST(scenarios_agree) {
  double qn[32], qa[32];
  int nq = run_steps(NULL, "scenarios/cube_slide.yaml", "newton", 600, qn);
  run_steps(NULL, "scenarios/cube_slide.yaml", "admm", 600, qa);
  ck_assert_double_le(fabs(qn[1] - 0.1699), 2e-3);
  for (int k = 0; k < nq; k++) ck_assert_double_le(fabs(qn[k] - qa[k]), 1e-6);
  const double pos[6] = {0, 0, 0.05, 0.01, 0, 0.15};
  char* text = fixture_cubes(2, pos, "{name: auto}");
  const char* path = "scene_fixture.yaml";  // its URDF path is relative to the repository
  nq = run_steps(text, path, "newton", 300, qn);
  run_steps(text, path, "admm", 300, qa);
  for (int k = 0; k < nq; k++)
    ck_assert_msg(fabs(qn[k] - qa[k]) <= 1e-6, "q[%d] %.9g vs %.9g", k, qn[k], qa[k]);
  ck_assert_double_le(fabs(qn[9] - 0.15), 1e-3);  // the top cube rests on the bottom one
  free(text);
}
END_TEST

START_TEST(refusals) {
  // condim 4: no generalized cone (at load, naming solver.name)
  fixture_condim_xml("sphere' size='0.1", 4, 0.01, 0);
  char yaml[512], path[512];
  snprintf(yaml, sizeof(yaml), "name: s\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: m.xml\n"
           "contact: {model: ncp}\nsolver: {name: newton}\n"
           "integrator: {dt: 1.0e-3, duration: 0.1}\n");
  fixture f;
  csim_error err;
  ck_assert_int_ne(fixture_try(yaml, tmp_path(path, sizeof(path), "s.yaml"), &f, &err), CSIM_OK);
  ck_assert_str_eq(err.key, "solver.name");
  ck_assert_msg(strstr(err.msg, "condim 4") && strstr(err.msg, "'newton'"), "%s", err.msg);
  // dry joint friction (a box row)
  tmp_write_text("jf.xml", "<mujoco><worldbody><body name='b' pos='0 0 1'><joint name='j' "
                 "type='slide' axis='1 0 0' frictionloss='0.5'/><geom type='sphere' "
                 "size='0.1' mass='2'/></body></worldbody></mujoco>");
  snprintf(yaml, sizeof(yaml), "name: j\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: jf.xml\n"
           "contact: {model: ncp}\nsolver: {name: newton}\n"
           "integrator: {dt: 1.0e-3, duration: 0.1}\n");
  ck_assert_int_ne(fixture_try(yaml, tmp_path(path, sizeof(path), "j.yaml"), &f, &err), CSIM_OK);
  ck_assert_str_eq(err.key, "solver.name");
  ck_assert_msg(strstr(err.msg, "frictionloss") && strstr(err.msg, "'j'"), "%s", err.msg);
  // the same under admm loads (the refusal is newton's)
  const char* sa[] = {"solver.name=admm"};
  f = fixture_text(yaml, path, sa, 1);
  fixture_free(&f);
  // a box entry handed to the solver: no answer, never a wrong one
  double G[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, g[3] = {0.3, 0, -1}, mu = 1, x[3] = {0.1, 0.2, 0.3};
  unsigned char box = 1;
  solver_problem p = tdense(1, G, g, &mu, NULL);
  p.box = &box;
  solver* sv = make(CSIM_SOLVER_NEWTON, 1, 1e-10, 100);
  solver_result r;
  solver_solve(sv, &p, x, &r);
  ck_assert(!r.converged);
  ck_assert(x[0] == 0.1 && x[1] == 0.2 && x[2] == 0.3);
  solver_free(sv);
}
END_TEST

// NaN data: not converged, reported NaN, after no iteration (never spun to the cap)
START_TEST(nan_data) {
  double G[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, g[3] = {0.3, NAN, -1}, mu = 0.5, x[3] = {0, 0, 0};
  solver_problem p = tdense(1, G, g, &mu, NULL);
  solver* sv = make(CSIM_SOLVER_NEWTON, 1, 1e-10, 1000000);
  solver_result r;
  solver_solve(sv, &p, x, &r);
  ck_assert(!r.converged);
  ck_assert(isnan(r.eps_abs));
  ck_assert_int_eq(r.iterations, 0);
  solver_free(sv);
}
END_TEST

int main(void) {
  Suite* s = suite_create("ncp_newton");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_add_test(tc, single_contact_cases);
  tcase_add_test(tc, sliding_block_closed_form);
  tcase_add_test(tc, cube_on_plane);
  tcase_add_loop_test(tc, fclib_files, 0, (int)(sizeof(kFiles) / sizeof(kFiles[0])));
  tcase_add_test(tc, scenarios_agree);
  tcase_add_test(tc, refusals);
  tcase_add_test(tc, nan_data);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
