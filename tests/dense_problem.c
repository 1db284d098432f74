// dense_problem.c — see dense_problem.h.
#include "dense_problem.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

#define NSLOT 32
static solver_blocks* slot[NSLOT];
static int next;

static solver_problem make(int nc, const double* G, const double* g, const double* mu,
                           const double* R, int full) {
  int k = next++ % NSLOT;
  solver_blocks_free(slot[k]);
  slot[k] = NULL;
  csim_error err;
  long n = nc > 0 ? nc : 1;
  if (solver_blocks_create((int)n, n * n, &slot[k], &err) != CSIM_OK ||
      solver_blocks_from_dense(slot[k], nc, G, full, &err) != CSIM_OK) {
    fprintf(stderr, "dense_problem: %s\n", err.msg);
    abort();
  }
  return solver_blocks_problem(slot[k], g, mu, R);
}

solver_problem tdense(int nc, const double* G, const double* g, const double* mu,
                      const double* R) {
  return make(nc, G, g, mu, R, 0);
}

solver_problem tdense_full(int nc, const double* G, const double* g, const double* mu,
                           const double* R) {
  return make(nc, G, g, mu, R, 1);
}

solver* tsolver_create(const solver_options* o, int maxc) {
  solver* s = NULL;
  csim_error e;
  ck_assert_msg(solver_create(o, maxc, &s, &e) == CSIM_OK, "%s", e.msg);
  return s;
}

solver* tsolver(csim_model model, csim_solver kind, int maxc, double tol, int iters, double omega,
                int facets) {
  solver_options o = {model, kind, tol, iters, omega, facets, 1.0, 1, SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
  return tsolver_create(&o, maxc);
}

solver_result tsolve1(solver* sv, const double* G, const double* g, double mu, double x[3]) {
  solver_problem p = tdense(1, G, g, &mu, NULL);
  x[0] = x[1] = x[2] = 0;
  solver_result res;
  solver_solve(sv, &p, x, &res);
  return res;
}

solver_result tsolve1_expect(solver* sv, const double* G, const double* g, double mu,
                             const double lam[3], double tol, double x[3], const char* what) {
  solver_result res = tsolve1(sv, G, g, mu, x);
  ck_assert_msg(res.converged, "%s: residual %.3g after %d", what, res.residual, res.iterations);
  for (int i = 0; i < 3; i++)
    ck_assert_msg(fabs(x[i] - lam[i]) <= tol * (1 + fabs(lam[i])),
                  "%s: lambda[%d] = %.15g, exact %.15g", what, i, x[i], lam[i]);
  return res;
}

void sliding_block(double m, double v, double grav, double dt, double G[9], double g[3]) {
  for (int k = 0; k < 9; k++) G[k] = k % 4 == 0 ? 1 / m : 0;
  g[0] = v;
  g[1] = 0;
  g[2] = -grav * dt;
}

void sliding_block_expect_ncp(solver* sv, double m, double mu, double v, double grav, double dt,
                              double tol) {
  double G[9], g[3], x[3];
  sliding_block(m, v, grav, dt, G, g);
  solver_result res = tsolve1(sv, G, g, mu, x);
  ck_assert(res.converged);
  ck_assert_double_le(fabs(x[2] - m * grav * dt), tol);
  ck_assert_double_le(fabs(x[0] + mu * m * grav * dt), tol);
  ck_assert_double_le(fabs(x[1]), tol);
}

void ncp_cases_expect(solver* sv, double tol, const char* what, ncp_case_check* check) {
  unsigned s = 17;
  for (int k = 0; k < 300; k++) {
    int kind = k % 3;
    double G[9], mu, lam[3], g[3], x[3];
    ncp_contact_case(kind, &s, G, &mu, lam, g);
    char name[128];
    snprintf(name, sizeof(name), "%s case %d kind %d", what, k, kind);
    tsolve1_expect(sv, G, g, mu, lam, tol, x, name);
    if (check) check(kind, G, g, mu, x);
  }
}
