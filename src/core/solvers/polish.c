// polish.c — semismooth Newton on the natural map of one island's NCP (issue 26).
//
// ADMM (admm.c) converges linearly: on humanoid100's piles of free objects (13-20 contacts on
// 18-42 dofs, G singular) its rate was 0.95-0.98 per iteration whatever rho, so from a warm
// start 1e-2 off it reached 1e-8 in 300-1000 iterations, and on a few sliding pairs its de
// Saxce fixed point cycled (a 2-contact island at 3e-4 after 500 iterations, with every rho
// from 1e-3 L to L, where the NCP has an exact solution). The natural map
// F_i(l) = l_i - P_K(l_i - (c_i + Gamma(c_i)) / G_NN(i)) is zero exactly at an NCP solution and
// piecewise smooth, so Newton's method on it (a generalized Jacobian: the projection's on each
// piece) converges quadratically once the pieces (stick, slide, separate) are the solution's,
// which ADMM's iterate gives. G is singular on redundant contacts (four corners of a box: 12 rows
// on 6 dofs), and so is J on sticking contacts (J = G / G_NN there): the step solves
// (J + kDamp I) d = -F (a damped Newton step: J alone can be singular), and a
// backtracking search on |F|^2 keeps every accepted step a descent.
#include "core/solvers/polish.h"

#include <math.h>
#include <string.h>

#include "core/solvers/cone.h"
#include "core/solvers/dense_lu.h"

// the damping of the Newton matrix (J is about unit scale: G / G_NN on sticking rows)
static const double kDamp = 1e-9;
// backtracking halvings before a step is given up, and Armijo's sufficient decrease
static const int kHalvings = 12;
static const double kArmijo = 1e-4;

size_t polish_doubles(int n) {
  return (size_t)n * (size_t)n + 8 * (size_t)n;
}

// y = G x + b (n rows; b NULL: none)
static void gmul(int n, const double* G, const double* x, const double* b, double* y) {
  for (int r = 0; r < n; r++) {
    const double* Gr = G + (size_t)r * (size_t)n;
    double acc = b ? b[r] : 0;
    for (int k = 0; k < n; k++) acc += Gr[k] * x[k];
    y[r] = acc;
  }
}

// F (the natural map) at l with velocity c; max |F|, NAN when not finite
static double nat_map(int nc, const double* G, const double* mu, const double* l, const double* c,
                      double* F) {
  int n = 3 * nc;
  double m = 0;
  for (int i = 0; i < nc; i++) {
    const double *li = l + 3 * i, *ci = c + 3 * i;
    double k = 1 / G[(size_t)(3 * i + 2) * (size_t)n + (size_t)(3 * i + 2)];
    double w[3] = {li[0] - k * ci[0], li[1] - k * ci[1],
                   li[2] - k * (ci[2] + mu[i] * hypot(ci[0], ci[1]))}, pw[3];
    cone_project(pw, w, mu[i]);
    for (int a = 0; a < 3; a++) {
      F[3 * i + a] = li[a] - pw[a];
      if (!isfinite(F[3 * i + a])) return NAN;
      m = fmax(m, fabs(F[3 * i + a]));
    }
  }
  return m;
}

// D = dP_K(w) / dw (K_mu, [t1 t2 n]): identity inside, zero in the polar cone, else the
// derivative of a (mu u, 1), a = (n + mu |t|) / (1 + mu^2), u = t / |t|
static void proj_jac(const double w[3], double mu, double D[3][3]) {
  double t = hypot(w[0], w[1]), n = w[2];
  memset(D, 0, 9 * sizeof(double));
  if (t <= mu * n && n >= 0) {
    D[0][0] = D[1][1] = D[2][2] = 1;
    return;
  }
  if (mu * t <= -n || !(t > 0)) return;
  double s = 1 / (1 + mu * mu), a = (n + mu * t) * s, u[2] = {w[0] / t, w[1] / t};
  for (int p = 0; p < 2; p++) {
    for (int q = 0; q < 2; q++)
      D[p][q] = mu * (mu * s * u[p] * u[q] + a * ((p == q) - u[p] * u[q]) / t);
    D[p][2] = mu * s * u[p];
    D[2][p] = mu * s * u[p];
  }
  D[2][2] = s;
}

// J = I - D (I - k (G + dGamma)), rows of contact i at once; plus kDamp on the diagonal
static void build_jac(int nc, const double* G, const double* mu, const double* l, const double* c,
                      double* J) {
  int n = 3 * nc;
  for (int i = 0; i < nc; i++) {
    const double *li = l + 3 * i, *ci = c + 3 * i;
    size_t rn = (size_t)(3 * i + 2) * (size_t)n;
    double k = 1 / G[rn + (size_t)(3 * i + 2)], ct = hypot(ci[0], ci[1]);
    double w[3] = {li[0] - k * ci[0], li[1] - k * ci[1], li[2] - k * (ci[2] + mu[i] * ct)}, D[3][3];
    proj_jac(w, mu[i], D);
    double e0 = ct > 0 ? mu[i] * ci[0] / ct : 0, e1 = ct > 0 ? mu[i] * ci[1] / ct : 0;
    const double *G0 = G + (size_t)(3 * i) * (size_t)n, *G1 = G0 + n, *G2 = G1 + n;
    for (int col = 0; col < n; col++) {
      double M[3] = {-k * G0[col], -k * G1[col], -k * (G2[col] + e0 * G0[col] + e1 * G1[col])};
      if (col / 3 == i) M[col % 3] += 1;
      for (int a = 0; a < 3; a++) {
        double v = col == 3 * i + a ? 1 + kDamp : 0;
        J[(size_t)(3 * i + a) * (size_t)n + (size_t)col] = v - (D[a][0] * M[0] + D[a][1] * M[1] + D[a][2] * M[2]);
      }
    }
  }
}

static double sumsq(int n, const double* v) {
  double s = 0;
  for (int k = 0; k < n; k++) s += v[k] * v[k];
  return s;
}

double polish_ncp(int nc, const double* G, const double* g, const double* mu, double* lambda,
                  double* work, int maxit, double tol) {
  int n = 3 * nc;
  for (int i = 0; i < nc; i++)
    if (!(G[(size_t)(3 * i + 2) * (size_t)n + (size_t)(3 * i + 2)] > 0)) return INFINITY;
  double *J = work, *c = J + (size_t)n * n, *F = c + n, *d = F + n, *lt = d + n, *ct = lt + n,
         *Ft = ct + n, *gd = Ft + n;
  gmul(n, G, lambda, g, c);
  double m = nat_map(nc, G, mu, lambda, c, F);
  if (isnan(m)) return INFINITY;
  for (int it = 0; it < maxit && m > tol; it++) {
    build_jac(nc, G, mu, lambda, c, J);
    for (int k = 0; k < n; k++) d[k] = -F[k];
    if (dense_lu_solve(n, J, d)) break;
    gmul(n, G, d, NULL, gd);  // c moves along G d: a trial costs O(n), not a product
    double phi = sumsq(n, F), alpha = 1;
    int h = 0;
    for (; h <= kHalvings; h++, alpha *= 0.5) {
      for (int k = 0; k < n; k++) {
        lt[k] = lambda[k] + alpha * d[k];
        ct[k] = c[k] + alpha * gd[k];
      }
      double mt = nat_map(nc, G, mu, lt, ct, Ft);
      if (!isnan(mt) && sumsq(n, Ft) <= (1 - kArmijo * alpha) * phi) break;
    }
    if (h > kHalvings) break;
    memcpy(lambda, lt, sizeof(double) * (size_t)n);
    gmul(n, G, lambda, g, c);  // exact at the accepted iterate: no drift over the steps
    m = nat_map(nc, G, mu, lambda, c, F);
    if (isnan(m)) return INFINITY;
  }
  return m;
}
