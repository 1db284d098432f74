// test_solver_relative.c — solver.criterion: relative (ContactBench's rule, solvers.hxx: stop when
// the absolute residual is below the tolerance OR ||lambda_k - lambda_k-1|| / ||lambda_k-1|| is).
//
// The problem: two frictionless-like contacts whose normals are coupled, G_NN = [[1, a], [a, 1]]
// (tangent rows identity, uncoupled), g_N = -S (1, 1), no tangential drive. Projected Gauss-Seidel
// from lambda = 0, by hand: sweep 1 gives lambda_N = S (1, 1 - a); sweep 2 gives
// lambda_1 = S (1 - a + a^2), lambda_2 = S - a lambda_1. With a = 0.999 the relative change of
// sweep 2 is about sqrt(2) (1 - a) = 1.4e-3 and the change shrinks by a^2 per sweep, while the
// velocity c_1 = lambda_1 + a lambda_2 - S stays about S (1 - a) — with S = 1000 about 1, far
// above any tolerance used here: the relative rule stops at sweep 2, the NCP one never.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/solvers/solver.h"
#include "dense_problem.h"
#include "support.h"

#define A 0.999
#define S 1000.0
#define CAP 50

static solver_problem coupled(double* G, double* g, double* mu) {
  memset(G, 0, 36 * sizeof(double));
  for (int k = 0; k < 6; k++) G[7 * k] = 1;
  G[2 * 6 + 5] = G[5 * 6 + 2] = A;
  for (int k = 0; k < 6; k++) g[k] = k % 3 == 2 ? -S : 0;
  mu[0] = mu[1] = 0.5;
  return tdense(2, G, g, mu, NULL);
}

static solver* make(csim_model model, csim_solver kind, solver_criterion crit, double tol) {
  solver_options o = {model, kind, tol, CAP, 1.0, 4, 1.0, 1, crit, 0, 0, 0, 0, 0, 0};
  if (crit == SOLVER_STOP_RELATIVE) o.rel_tolerance = tol;
  return tsolver_create(&o, 2);
}

static solver_result run(solver* s, double* lam) {
  double G[36], g[6], mu[2];
  solver_problem p = coupled(G, g, mu);
  for (int k = 0; k < 6; k++) lam[k] = 0;
  solver_result r;
  solver_solve(s, &p, lam, &r);
  return r;
}

// the coupled problem under crit at tol runs to the cap unconverged
static void expect_cap(csim_model model, csim_solver kind, solver_criterion crit, double tol) {
  double lam[6];
  solver* s = make(model, kind, crit, tol);
  solver_result r = run(s, lam);
  ck_assert_msg(r.iterations == CAP && !r.converged, "%d sweeps, converged %d", r.iterations,
                r.converged);
  solver_free(s);
}

// the iterates stop changing (1.4e-3 relative < 1e-2) while eps_abs is about 1: relative stops
// after sweep 2 with the hand-computed iterate, ncp runs to the cap
START_TEST(relative_stops_on_small_change) {
  double lam[6];
  solver* s = make(CSIM_MODEL_NCP, CSIM_SOLVER_PGS, SOLVER_STOP_RELATIVE, 1e-2);
  solver_result r = run(s, lam);
  double l1 = S * (1 - A + A * A), l2 = S - A * l1;
  ck_assert_int_eq(r.iterations, 2);
  ck_assert(r.converged);
  ck_assert_msg(fabs(lam[2] - l1) <= 1e-9 * S && fabs(lam[5] - l2) <= 1e-9 * S,
                "lambda_N = (%.12g, %.12g), by hand (%.12g, %.12g)", lam[2], lam[5], l1, l2);
  ck_assert_msg(r.eps_abs > 0.5, "eps_abs %.3g: the NCP residual is still large", r.eps_abs);
  solver_free(s);
  expect_cap(CSIM_MODEL_NCP, CSIM_SOLVER_PGS, SOLVER_STOP_NCP, 1e-2);
}
END_TEST

// a tolerance below the change (1e-4 < 1.3e-3 at sweep 50): relative does not stop either
START_TEST(relative_needs_change_below_tolerance) {
  expect_cap(CSIM_MODEL_NCP, CSIM_SOLVER_PGS, SOLVER_STOP_RELATIVE, 1e-4);
}
END_TEST

// the reverse: one contact solved exactly by its first sweep (lambda_N = S from 0: a relative
// change of infinity) stops on the absolute residual, eps_abs 0
START_TEST(relative_stops_on_absolute) {
  double G[9] = {1, 0, 0, 0, 1, 0, 0, 0, 2}, g[3] = {0, 0, -S}, x[3];
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_PGS, 1e-6, CAP, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_RELATIVE, 0, 0, 0, 1e-6, 0, 0};
  solver* s = tsolver_create(&o, 1);
  solver_result r = tsolve1(s, G, g, 0.5, x);
  ck_assert_int_eq(r.iterations, 1);
  ck_assert(r.converged);
  ck_assert_double_eq_tol(x[2], S / 2, 1e-9 * S);
  ck_assert(r.eps_abs <= 1e-6);
  solver_free(s);
}
END_TEST

// RaiSim (bisection) on the coupled problem: the relative rule stops it short of the cap with
// eps_abs still above the tolerance; the NCP rule does not
START_TEST(relative_raisim) {
  double lam[6];
  solver* s = make(CSIM_MODEL_RAISIM, CSIM_SOLVER_BISECTION, SOLVER_STOP_RELATIVE, 1e-2);
  solver_result r = run(s, lam);
  ck_assert_msg(r.converged && r.iterations < CAP, "%d sweeps", r.iterations);
  ck_assert_msg(r.eps_abs > 1e-2, "eps_abs %.3g", r.eps_abs);
  solver_free(s);
  expect_cap(CSIM_MODEL_RAISIM, CSIM_SOLVER_BISECTION, SOLVER_STOP_NCP, 1e-2);
}
END_TEST

// ContactBench's CCPPGSSolver stops on the CCP's own residual, not the NCP's: one sliding contact
// with G = I (step 3 / trace = 1) is solved exactly by one projected step, lambda = P_K(-g) =
// (-0.6, 0, 1.2) for g = (1, 0, -1), mu 0.5 (closed form); its velocity c = (0.4, 0, 0.2)
// separates while it pushes (the CCP's relaxation), so the NCP residual stays 0.2 * 1.2 = 0.24.
// The relative rule stops after that sweep on the CCP residual (0) with that answer
START_TEST(relative_ccp_own_residual) {
  double G[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, g[3] = {1, 0, -1}, x[3];
  solver_options o = {CSIM_MODEL_CCP, CSIM_SOLVER_PGS, 1e-6, CAP, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_RELATIVE, 0, 0, 0, 1e-6, 0, 0};
  solver* s = tsolver_create(&o, 1);
  solver_result r = tsolve1(s, G, g, 0.5, x);
  ck_assert_int_eq(r.iterations, 1);
  ck_assert(r.converged);
  ck_assert_double_eq_tol(x[0], -0.6, 1e-12);
  ck_assert_double_eq_tol(x[2], 1.2, 1e-12);
  ck_assert_msg(r.eps_abs > 0.2, "eps_abs %.3g: the NCP residual of the CCP answer", r.eps_abs);
  solver_free(s);
}
END_TEST

// comp_scale (solver.tolerance_units: contactbench) weights the complementarity in the stop: one
// frictionless contact G = 1 (normal), g_N = -1 from lambda_N = 1.5 (a warm start that pushes
// 0.5 too hard: c_N = 0.5, eps_c = 0.75, eps_d = 0). Weighted by 1e3 the stop needs
// 1e3 * lambda_N c_N <= tol; from 1.5 the normal step lands on lambda_N = 1 exactly (c_N = 0),
// so both settle at sweep 1, but a tolerance 1 at weight 1 accepts the warm start's
// complementarity where weight 1e3 does not: the weighted run reports eps_abs 0, the other 0.75
START_TEST(comp_scale_weights_complementarity) {
  double G[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, g[3] = {0, 0, -1};
  for (int w = 0; w < 2; w++) {
    solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_PGS, 0.8, CAP, 1.0, 4, 1.0, 1,
                        SOLVER_STOP_NCP, 0, 0, 0, 0, 0, w ? 1e3 : 0};
    solver* s = tsolver_create(&o, 1);
    double x[3] = {0, 0, 1.5};
    solver_problem p = tdense(1, G, g, (double[]){0.5}, NULL);
    solver_result r;
    solver_solve(s, &p, x, &r);
    ck_assert(r.converged);
    if (w) ck_assert_msg(r.iterations >= 1 && fabs(x[2] - 1) < 1e-12, "weighted: lambda_N %.17g after %d",
                         x[2], r.iterations);
    else ck_assert_msg(r.iterations == 0 && fabs(x[2] - 1.5) < 1e-12,
                       "unweighted: lambda_N %.17g after %d: the warm start (eps_abs 0.75 <= 0.8) stands",
                       x[2], r.iterations);
    solver_free(s);
  }
}
END_TEST

// bad values: a dense family, no relative tolerance; csim run with them and with an unknown
// criterion exits 2 naming solver.criterion
START_TEST(relative_refused) {
  solver* s = NULL;
  csim_error e;
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-6, CAP, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_RELATIVE, 0, 0, 0, 1e-6, 0, 0};
  ck_assert_int_eq(solver_create(&o, 2, &s, &e), CSIM_ERR_INPUT);
  ck_assert_str_eq(e.key, "solver.criterion");
  ck_assert_ptr_nonnull(strstr(e.msg, "pgs"));
  o.kind = CSIM_SOLVER_PGS;
  o.rel_tolerance = 0;
  ck_assert_int_eq(solver_create(&o, 2, &s, &e), CSIM_ERR_INPUT);
  ck_assert_str_eq(e.key, "solver.criterion");
  static char out[8192];
  const char* sets[] = {"--set solver.name=admm --set solver.criterion=relative",
                        "--set solver.criterion=bogus"};
  for (int i = 0; i < 2; i++) {
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "%s run scenarios/cube_slide.yaml --quiet --out /dev/null %s 2>&1",
             csim_bin(), sets[i]);
    int rc = sh_run(cmd, out, sizeof(out));
    ck_assert_msg(rc == 2, "'%s' exited %d:\n%s", cmd, rc, out);
    ck_assert_msg(strstr(out, "solver.criterion"), "'%s' said:\n%s", cmd, out);
  }
}
END_TEST

int main(void) {
  Suite* su = suite_create("solver_relative");
  TCase* tc = tcase_create("relative");
  tcase_add_test(tc, relative_stops_on_small_change);
  tcase_add_test(tc, relative_needs_change_below_tolerance);
  tcase_add_test(tc, relative_stops_on_absolute);
  tcase_add_test(tc, relative_raisim);
  tcase_add_test(tc, relative_ccp_own_residual);
  tcase_add_test(tc, comp_scale_weights_complementarity);
  tcase_add_test(tc, relative_refused);
  suite_add_tcase(su, tc);
  return run_suite(su);
}
