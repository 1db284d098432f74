// two_islands.c — see two_islands.h.
#include "two_islands.h"

#include <check.h>
#include <math.h>
#include <string.h>

#include "dense_problem.h"

static const int kEasy[3] = {0, 2, 4}, kHard[2] = {1, 3};

void ti_problem(double G[225], double g[15], double mu[5]) {
  const double e = 1e-9, rho = 0.9;
  int n = 3 * TI_NC;
  memset(G, 0, sizeof(double) * (size_t)(n * n));
  for (int a = 0; a < n; a++) G[a * n + a] = 1;
  // easy island: normal/tangent couplings within 0 and 2, and between 0, 2 and 4 (symmetric)
  G[0 * n + 2] = G[2 * n + 0] = e;
  G[7 * n + 8] = G[8 * n + 7] = e;
  for (int r = 0; r < 3; r++) {
    G[(0 + r) * n + 6 + r] = G[(6 + r) * n + 0 + r] = e;
    G[(6 + r) * n + 12 + r] = G[(12 + r) * n + 6 + r] = e;
  }
  // hard island: contacts 1 and 3 strongly coupled
  for (int r = 0; r < 3; r++) G[(3 + r) * n + 9 + r] = G[(9 + r) * n + 3 + r] = rho;
  const double gg[15] = {0.1, -0.05, -1, 0.05, 0, -1, -0.05, 0.1, -1,
                         0.05, 0, -1, 0.1, 0, 0.5};
  memcpy(g, gg, sizeof(gg));
  for (int i = 0; i < TI_NC; i++) mu[i] = 0.5;
}

// the sub-problem of the contacts cons[0..n) of (G, g, mu) into Gs, gs, mus
static solver_problem sub(const double* G, const double* g, const double* mu, const int* cons,
                          int n, double* Gs, double* gs, double* mus) {
  int N = 3 * TI_NC, m = 3 * n;
  for (int q = 0; q < n; q++) {
    mus[q] = mu[cons[q]];
    for (int r = 0; r < 3; r++) {
      gs[3 * q + r] = g[3 * cons[q] + r];
      for (int u = 0; u < n; u++)
        for (int t = 0; t < 3; t++)
          Gs[(3 * q + r) * m + 3 * u + t] = G[(3 * cons[q] + r) * N + 3 * cons[u] + t];
    }
  }
  return tdense(n, Gs, gs, mus, NULL);
}

static solver* create(const solver_options* o) { return tsolver_create(o, TI_NC); }

// solve island cons alone from 0 into the impulses of a whole-problem vector x (3 TI_NC)
static solver_result alone(solver* s, const double* G, const double* g, const double* mu,
                           const int* cons, int n, double* x) {
  double Gs[81] = {0}, gs[9] = {0}, mus[3] = {0}, l[9] = {0};  // zeroed: -O1 cannot see n >= 1
  solver_problem p = sub(G, g, mu, cons, n, Gs, gs, mus);
  solver_result r;
  solver_solve(s, &p, l, &r);
  for (int q = 0; q < n; q++)
    for (int u = 0; u < 3; u++) x[3 * cons[q] + u] = l[3 * q + u];
  return r;
}

void ti_check(const solver_options* o, int easy_sweeps, const char* label) {
  double G[225], g[15], mu[5], x[15] = {0}, xa[15];
  ti_problem(G, g, mu);
  solver* s = create(o);
  solver_problem p = tdense(TI_NC, G, g, mu, NULL);
  ck_assert_int_eq(p.nisland, 2);
  solver_result r;
  solver_solve(s, &p, x, &r);
  // the contact velocity left with the answer: G lambda + g, computed here densely
  const double* c = solver_velocity(s);
  for (int a = 0; a < 3 * TI_NC; a++) {
    double ca = g[a];
    for (int b = 0; b < 3 * TI_NC; b++) ca += G[a * 3 * TI_NC + b] * x[b];
    ck_assert_msg(fabs(c[a] - ca) <= 1e-12, "%s: c[%d] %.17g, G lambda + g %.17g", label, a,
                  c[a], ca);
  }
  solver_result re = alone(s, G, g, mu, kEasy, 3, xa);
  solver_result rh = alone(s, G, g, mu, kHard, 2, xa);
  // (a) each island as alone, bit for bit
  for (int a = 0; a < 3 * TI_NC; a++)
    ck_assert_msg(x[a] == xa[a], "%s: lambda[%d] %.17g, alone %.17g", label, a, x[a], xa[a]);
  // (b) the easy island converged in easy_sweeps, and was not at a fixed point then
  ck_assert_msg(re.converged && re.iterations == easy_sweeps, "%s: easy island alone: %d sweeps",
                label, re.iterations);
  solver_options o2 = *o;
  o2.tolerance = 1e-14;
  solver* s2 = create(&o2);
  double xf[15];
  memcpy(xf, xa, sizeof(xf));
  solver_result rf = alone(s2, G, g, mu, kEasy, 3, xf);
  ck_assert_msg(rf.iterations > easy_sweeps, "%s: easy island to 1e-14: %d sweeps", label,
                rf.iterations);
  double moved = 0;
  for (int q = 0; q < 3; q++)
    for (int u = 0; u < 3; u++) moved = fmax(moved, fabs(xf[3 * kEasy[q] + u] - x[3 * kEasy[q] + u]));
  ck_assert_msg(moved > 0, "%s: further sweeps leave the easy island as it is", label);
  ck_assert_double_le(moved, 1e-6);  // and the answer was within the tolerance
  solver_free(s2);
  // (c) the counts
  ck_assert_msg(rh.converged && rh.iterations >= 20, "%s: hard island alone: %d sweeps", label,
                rh.iterations);
  ck_assert_int_eq(r.iterations, rh.iterations > re.iterations ? rh.iterations : re.iterations);
  ck_assert(r.residual == fmax(re.residual, rh.residual));
  ck_assert(r.converged);
  solver_free(s);
}

void ti_check_nan(const solver_options* o, const char* label) {
  double G[225], g[15], mu[5], x[15] = {0}, xa[15];
  ti_problem(G, g, mu);
  g[0] = NAN;
  solver* s = create(o);
  solver_problem p = tdense(TI_NC, G, g, mu, NULL);
  solver_result r;
  solver_solve(s, &p, x, &r);
  ck_assert_msg(!r.converged && isnan(r.residual), "%s: NaN island: converged %d residual %g",
                label, r.converged, r.residual);
  alone(s, G, g, mu, kHard, 2, xa);
  for (int q = 0; q < 2; q++)
    for (int u = 0; u < 3; u++) {
      int a = 3 * kHard[q] + u;
      ck_assert_msg(x[a] == xa[a], "%s: NaN next door: lambda[%d] %.17g, alone %.17g", label, a,
                    x[a], xa[a]);
    }
  solver_free(s);
}
