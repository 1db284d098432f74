// test_solver.c — cone geometry, the eps residuals and NCP/PGS against exact single-contact
// solutions (000 eqs. 12-14, Alg. 5).
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/solvers/cone.h"
#include "dense_problem.h"
#include "core/solvers/solver.h"
#include "two_islands.h"
#include "support.h"

static solver* make_pgs(int maxc, double tol, int iters) {
  return tsolver(CSIM_MODEL_NCP, CSIM_SOLVER_PGS, maxc, tol, iters, 1.0, 4);
}

// projection onto the cone: fixed points inside, zero in the polar cone, boundary otherwise,
// and the residual x - proj(x) is orthogonal to proj(x) (Moreau decomposition)
START_TEST(cone_projection_properties) {
  unsigned s = 5;
  double mu = 0.4;
  for (int k = 0; k < 1000; k++) {
    double x[3] = {urand_sym(&s), urand_sym(&s), urand_sym(&s)}, p[3];
    cone_project(p, x, mu);
    double tp = hypot(p[0], p[1]);
    ck_assert_double_le(tp, mu * p[2] + 1e-14);
    double r[3] = {x[0] - p[0], x[1] - p[1], x[2] - p[2]};
    ck_assert_double_le(fabs(r[0] * p[0] + r[1] * p[1] + r[2] * p[2]), 1e-14);
    // the residual lies in the polar cone: -r in K*
    double nr[3] = {-r[0], -r[1], -r[2]};
    ck_assert_double_le(cone_dist_dual(nr, mu), 1e-14);
    double pp[3];
    cone_project(pp, p, mu);
    ck_assert_double_le(fabs(pp[0] - p[0]) + fabs(pp[1] - p[1]) + fabs(pp[2] - p[2]), 1e-15);
  }
  double in[3] = {0.1, 0, 1}, out[3];
  cone_project(out, in, mu);
  ck_assert_double_eq(out[0], 0.1);
  double polar[3] = {0.1, 0, -1};
  cone_project(out, polar, mu);
  ck_assert_double_eq(out[2], 0);
  // distance to a point above the apex along the tangent: x = (1, 0, 0), mu = 1 -> 1/sqrt(2)
  ck_assert_double_le(fabs(cone_dist((double[]){1, 0, 0}, 1) - sqrt(0.5)), 1e-15);
}
END_TEST

// the residuals vanish exactly on the three cases of the disjunctive formulation (000 eq. 12)
START_TEST(residuals_zero_on_exact_solutions) {
  double ep, ed, ec, mu = 0.5;
  // sticking: lambda inside the cone, c = 0
  cone_residuals((double[]){0.1, -0.2, 1}, (double[]){0, 0, 0}, mu, &ep, &ed, &ec);
  ck_assert(ep == 0 && ed == 0 && ec == 0);
  // take-off: lambda = 0, c_N > 0
  cone_residuals((double[]){0, 0, 0}, (double[]){0.3, 0.1, 2}, mu, &ep, &ed, &ec);
  ck_assert(ep == 0 && ed == 0 && ec == 0);
  // sliding: lambda_T = -mu lambda_N c_T/|c_T|, c_N = 0
  cone_residuals((double[]){-0.5 * 0.6, -0.5 * 0.8, 1}, (double[]){3, 4, 0}, mu, &ep, &ed, &ec);
  ck_assert_double_le(ep, 1e-15);
  ck_assert_double_le(ed, 1e-15);
  ck_assert_double_le(ec, 1e-15);
  // sliding with the wrong direction (violates maximum dissipation): non-zero complementarity
  cone_residuals((double[]){0.5 * 0.6, 0.5 * 0.8, 1}, (double[]){3, 4, 0}, mu, &ep, &ed, &ec);
  ck_assert_double_gt(ec, 1);
  // CCP-like answer with a normal velocity while sliding violates Signorini: dual residual > 0
  cone_residuals((double[]){-0.5, 0, 1}, (double[]){1, 0, 0.5}, mu, &ep, &ed, &ec);
  ck_assert_double_gt(ec, 0.4);
}
END_TEST

// single contact, exact NCP solutions built backwards: choose (lambda*, c*) satisfying eq. 12,
// set g = c* - G lambda*, and PGS must recover lambda* to 1e-10
START_TEST(single_contact_exact_solutions) {
  // a unique solution exists for these well-conditioned blocks and small mu; a sliding case
  // can admit a second, sticking-like solution only for large mu, which is excluded here
  solver* pgs = make_pgs(1, 1e-13, 5000);
  ncp_cases_expect(pgs, 1e-10, "ncp/pgs", NULL);
  solver_free(pgs);
}
END_TEST

// a block on a plane pushed sideways: the isotropic diagonal problem has the closed form
// lambda_N = -g_N / G_N, lambda_T = -mu lambda_N g_T/|g_T| when |g_T| / G_T > mu lambda_N
START_TEST(sliding_block_closed_form) {
  // 2 kg sliding at 1 m/s, mu 0.3, dt 1e-3
  solver* pgs = make_pgs(1, 1e-14, 100);
  sliding_block_expect_ncp(pgs, 2, 0.3, 1.0, 9.81, 1e-3, 1e-15);
  solver_free(pgs);
}
END_TEST

// several coupled contacts: the solution satisfies eq. 14 to the tolerance; warm starting from
// the solution converges in zero sweeps; over-relaxation still converges
START_TEST(multi_contact_convergence_and_warm_start) {
  unsigned s = 99;
  int nc = 4;
  // G = J M^-1 J' for a free body (1 kg; 0.004, 0.004, 0.006 kg m^2) with 4 corner contacts of
  // a box (0.2 x 0.2, 0.05 below the centre)
  double G[144];
  box_G(1, (double[]){0.004, 0.004, 0.006}, 0.1, 0.05, G);
  double g[12], mu[4] = {0.5, 0.5, 0.5, 0.5};
  for (int i = 0; i < nc; i++) {
    g[3 * i] = 0.2 * urand_sym(&s);
    g[3 * i + 1] = 0.2 * urand_sym(&s);
    g[3 * i + 2] = -0.01;
  }
  solver_problem p = tdense(nc, G, g, mu, NULL);
  solver* pgs = make_pgs(nc, 1e-10, 100000);
  double x[12] = {0};
  solver_result res;
  solver_solve(pgs, &p, x, &res);
  ck_assert_msg(res.converged, "eps %.3g after %d sweeps", res.eps_abs, res.iterations);
  ck_assert_int_gt(res.iterations, 0);
  solver_result chk;
  solver_residuals(&p, x, NULL, &chk);
  ck_assert_double_le(chk.eps_abs, 1e-10);
  // warm start from the solution
  solver_solve(pgs, &p, x, &res);
  ck_assert_int_eq(res.iterations, 0);
  ck_assert(res.converged);
  solver_free(pgs);
  // over-relaxation 1.3
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_PGS, 1e-10, 100000, 1.3, 4, 1, 1, SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
  csim_error e;
  ck_assert_int_eq(solver_create(&o, nc, &pgs, &e), CSIM_OK);
  double y[12] = {0};
  solver_solve(pgs, &p, y, &res);
  ck_assert(res.converged);
  solver_free(pgs);
}
END_TEST

// a dense island (every block stored: a box's 4 corners) is swept from its blocks laid out by
// column once past its second sweep (pgs.c pgs_panel), and its stop's bounded passes start where
// the last bound was found: the answer is the one the dense matrix path gives (solver_gcol_add on
// G itself, no panel, every stop from the first contact), to round-off, in as many sweeps
START_TEST(dense_island_panel_matches_dense) {
  unsigned s = 5;
  double G[144];
  box_G(1, (double[]){0.004, 0.004, 0.006}, 0.1, 0.05, G);
  double g[12], mu[4] = {0.5, 0.3, 0.8, 0.5};
  for (int i = 0; i < 4; i++) {
    g[3 * i] = 0.2 * urand_sym(&s);
    g[3 * i + 1] = 0.2 * urand_sym(&s);
    g[3 * i + 2] = -0.01 * (1 + i);
  }
  solver_problem pb = tdense_full(4, G, g, mu, NULL), pd = {0};
  pd.nc = 4;
  pd.dense = G;
  pd.g = g;
  pd.mu = mu;
  double x[12] = {0}, y[12] = {0};
  solver_result rb, rd;
  solver* a = make_pgs(4, 1e-10, 100000);
  solver* b = make_pgs(4, 1e-10, 100000);
  solver_solve(a, &pb, x, &rb);
  solver_solve(b, &pd, y, &rd);
  ck_assert(rb.converged && rd.converged);
  ck_assert_int_gt(rb.iterations, 4);
  ck_assert_int_eq(rb.iterations, rd.iterations);
  for (int k = 0; k < 12; k++)
    ck_assert_msg(fabs(x[k] - y[k]) <= 1e-12 * (1 + fabs(y[k])), "x[%d] %.17g, dense %.17g", k,
                  x[k], y[k]);
  solver_free(a);
  solver_free(b);
}
END_TEST

// contacts held open (pgs.c: their update is skipped while the impulse stays 0) beside pressed
// ones coupled to them through one body: the answer meets eq. 14 by the residual code, an open
// contact far from closing keeps exactly zero, and one near closing is not held open by the skip
START_TEST(open_contacts_skipped) {
  unsigned s = 7;
  double G[144];
  box_G(1, (double[]){0.004, 0.004, 0.006}, 0.1, 0.05, G);
  double g[12], mu[4] = {0.5, 0.5, 0.5, 0.5}, gn[4] = {-0.01, -0.01, 0.02, 0.0005};
  for (int i = 0; i < 4; i++) {
    g[3 * i] = 0.05 * urand_sym(&s);
    g[3 * i + 1] = 0.05 * urand_sym(&s);
    g[3 * i + 2] = gn[i];
  }
  solver_problem p = tdense(4, G, g, mu, NULL);
  solver* pgs = make_pgs(4, 1e-12, 100000);
  double x[12] = {0};
  solver_result res, chk;
  solver_solve(pgs, &p, x, &res);
  ck_assert_msg(res.converged, "eps %.3g after %d sweeps", res.eps_abs, res.iterations);
  solver_residuals(&p, x, NULL, &chk);
  ck_assert_double_le(chk.eps_abs, 1e-12);
  for (int k = 6; k < 9; k++) ck_assert(x[k] == 0);
  ck_assert_double_gt(x[11], 0);  // contact 3 closes under its neighbours' impulses
  solver_free(pgs);
}
END_TEST

// unsupported pairs and bad options are input errors naming what is available
START_TEST(unsupported_pairs_are_errors) {
  char msg[512];
  ck_assert(solver_pair_supported(CSIM_MODEL_NCP, CSIM_SOLVER_PGS, msg, sizeof(msg)));
  ck_assert(!solver_pair_supported(CSIM_MODEL_LCP, CSIM_SOLVER_BISECTION, msg, sizeof(msg)));
  ck_assert_ptr_nonnull(strstr(msg, "ncp/pgs"));
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_PGS, -1, 10, 1, 4, 1, 1, SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
  solver* s = NULL;
  csim_error e;
  ck_assert_int_eq(solver_create(&o, 3, &s, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_null(s);
  o.tolerance = 1e-6;
  o.over_relaxation = 2.0;
  ck_assert_int_eq(solver_create(&o, 3, &s, &e), CSIM_ERR_INPUT);
  // a problem larger than the workspace is reported, not overflowed
  o.over_relaxation = 1;
  ck_assert_int_eq(solver_create(&o, 1, &s, &e), CSIM_OK);
  double G[36] = {0}, g[6] = {0}, mu[2] = {1, 1}, x[6] = {0};
  solver_problem p = tdense(2, G, g, mu, NULL);
  solver_result r;
  solver_solve(s, &p, x, &r);
  ck_assert(!r.converged);
  solver_free(s);
}
END_TEST

// the dual variable round trip (solver.warm_dual): ADMM exports a finite dual, PGS none (NaN);
// warm-starting ADMM from its own solution and dual converges without iterating, and a dual with
// NaN entries falls back to the reconstructed one
START_TEST(dual_variable_round_trip) {
  double G[9] = {2, 0.3, 0.1, 0.3, 1.5, -0.2, 0.1, -0.2, 1}, g[3] = {0.4, -0.2, -1}, mu = 0.3;
  solver_problem p = tdense(1, G, g, &mu, NULL);
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-12, 1000, 1, 4, 1, 1, SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
  solver* s = tsolver_create(&o, 1);
  double x[3] = {0, 0, 0}, dual[3];
  solver_result r;
  solver_solve(s, &p, x, &r);
  ck_assert(r.converged);
  ck_assert_int_gt(r.iterations, 0);
  memcpy(dual, solver_dual(s), sizeof(dual));
  for (int k = 0; k < 3; k++) ck_assert(isfinite(dual[k]));
  solver_set_dual(s, dual);
  solver_solve(s, &p, x, &r);
  ck_assert(r.converged);
  ck_assert_int_le(r.iterations, 1);
  double nan3[3] = {NAN, NAN, NAN}, y[3] = {0, 0, 0};
  solver_set_dual(s, nan3);
  solver_solve(s, &p, y, &r);
  ck_assert(r.converged);
  for (int k = 0; k < 3; k++) ck_assert_double_le(fabs(x[k] - y[k]), 1e-9);
  solver_free(s);
  solver* pg = make_pgs(1, 1e-12, 1000);
  solver_solve(pg, &p, y, &r);
  ck_assert(isnan(solver_dual(pg)[0]));
  solver_free(pg);
}
END_TEST

// dense families with a reserve smaller than an island (solver_options island_rows, as sim.c
// sets under contact.memory_budget): two islands, contact 0 alone (3 rows) and contacts 1-2
// coupled (6 rows). With room for 3 rows the pair is left exactly at its initial guess and
// reported (contacts, rows, not converged, infinite residual), never solved in part, while
// contact 0 gets its closed form: a resting block, G = I / m, g = (0, 0, -grav dt), so
// lambda = (0, 0, m grav dt) for NCP and LCP alike. With room for 6 rows everything is solved.
START_TEST(island_past_reserve_is_reported) {
  double m = 2, dt = 1e-3, grav = 9.81;
  double G[81] = {0};
  for (int k = 0; k < 9; k++) G[10 * k] = 1 / m;
  // contacts 1 and 2 share a body: coupling between their normal rows
  G[5 * 9 + 8] = G[8 * 9 + 5] = 0.2;
  double g[9] = {0, 0, -grav * dt, 0, 0, -grav * dt, 0, 0, -grav * dt};
  double mu[3] = {0.5, 0.5, 0.5};
  const struct { csim_model model; csim_solver kind; } fam[3] = {
      {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM}, {CSIM_MODEL_NCP, CSIM_SOLVER_STAGGERED},
      {CSIM_MODEL_LCP, CSIM_SOLVER_LEMKE}};
  for (int f = 0; f < 3; f++) {
    solver_options o = {fam[f].model, fam[f].kind, 1e-12, 2000, 1.0, 4, 1.0, 1,
                        SOLVER_STOP_MODEL, 0, 0, 3, 0, 0, 0};
    ck_assert_int_eq(solver_island_rows(&o, 3), 3);
    solver_options full = o;
    full.island_rows = 0;
    ck_assert_int_eq(solver_island_rows(&full, 3), 9);  // an island of all 3 contacts
    for (int pass = 0; pass < 2; pass++) {
      o.island_rows = pass == 0 ? 3 : 6;
      solver* s = tsolver_create(&o, 3);
      solver_problem p = tdense(3, G, g, mu, NULL);
      ck_assert_int_eq(p.nisland, 2);
      double x[9], x0[9];
      for (int k = 0; k < 9; k++) x[k] = x0[k] = 0.25 + 0.01 * k;  // an initial guess to keep
      solver_result res;
      solver_solve(s, &p, x, &res);
      ck_assert_double_le(fabs(x[0]), 1e-9);
      ck_assert_double_le(fabs(x[1]), 1e-9);
      ck_assert_msg(fabs(x[2] - m * grav * dt) <= 1e-9, "family %d: lambda_N %.12g", f, x[2]);
      if (pass == 0) {
        ck_assert_int_eq(res.unsolved_island, 2);
        ck_assert_int_eq(res.unsolved_rows, 6);
        ck_assert(!res.converged);
        ck_assert(isinf(res.residual));
        for (int k = 3; k < 9; k++) ck_assert(x[k] == x0[k]);
      } else {
        ck_assert_int_eq(res.unsolved_island, 0);
        ck_assert_msg(res.converged, "family %d: eps %g", f, res.eps_abs);
      }
      solver_free(s);
    }
  }
}
END_TEST

// two independent islands (tests/two_islands.h), one converged after a sweep, one after tens:
// ncp/pgs iterates each alone (solver_impl.h): its answer bit for bit, no sweep of the easy
// island after it converged, the hard island's sweep count reported; a NaN island (solved first)
// is never reported converged however well the next one does
START_TEST(islands_iterate_alone) {
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_PGS, TI_TOL, 1000, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
  ti_check(&o, 1, "ncp/pgs");
  ti_check_nan(&o, "ncp/pgs");
}
END_TEST

// under the plain NCP criterion ncp/pgs hands solver_solve the residuals of its last exact pass
// (pgs.c metric_add) instead of the final pass over every contact: the figures must be that
// pass's, bit for bit (solver_residuals_of on the same answer and velocity), whether every island
// converged (the metric handed over), one stopped at the cap (the final pass run) or the warm
// start already met the tolerance (no sweep)
START_TEST(pgs_metric_is_the_final_pass) {
  double G[225], g[15], mu[5];
  ti_problem(G, g, mu);
  for (int cap = 0; cap < 2; cap++) {
    solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_PGS, TI_TOL, cap ? 5 : 1000, 1.0, 4, 1.0, 1,
                        SOLVER_STOP_NCP, 0, 0, 0, 0, 0, 0};
    solver* s = tsolver_create(&o, TI_NC);
    solver_problem p = tdense(TI_NC, G, g, mu, NULL);
    double x[15] = {0};
    for (int again = 0; again < 2; again++) {  // the second from the answer: no sweep
      solver_result r, m;
      solver_solve(s, &p, x, &r);
      ck_assert_msg(r.converged == !cap, "cap %d: converged %d", cap, r.converged);
      ck_assert(again == 0 || cap || r.iterations == 0);
      solver_residuals_of(&p, x, solver_velocity(s), &m);
      ck_assert_msg(r.eps_abs == m.eps_abs && r.eps_p == m.eps_p && r.eps_d == m.eps_d &&
                        r.eps_c == m.eps_c,
                    "cap %d pass %d: eps %.17g %.17g %.17g %.17g, final pass %.17g %.17g %.17g "
                    "%.17g", cap, again, r.eps_abs, r.eps_p, r.eps_d, r.eps_c, m.eps_abs, m.eps_p,
                    m.eps_d, m.eps_c);
      ck_assert(r.eps_abs > 0);
    }
    solver_free(s);
  }
}
END_TEST

static Suite* solver_suite(void) {
  Suite* s = suite_create("solver");
  TCase* tc = tcase_create("ncp");
  tcase_add_test(tc, cone_projection_properties);
  tcase_add_test(tc, residuals_zero_on_exact_solutions);
  tcase_add_test(tc, single_contact_exact_solutions);
  tcase_add_test(tc, sliding_block_closed_form);
  tcase_add_test(tc, multi_contact_convergence_and_warm_start);
  tcase_add_test(tc, dense_island_panel_matches_dense);
  tcase_add_test(tc, open_contacts_skipped);
  tcase_add_test(tc, unsupported_pairs_are_errors);
  tcase_add_test(tc, dual_variable_round_trip);
  tcase_add_test(tc, island_past_reserve_is_reported);
  tcase_add_test(tc, islands_iterate_alone);
  tcase_add_test(tc, pgs_metric_is_the_final_pass);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(solver_suite());
}
