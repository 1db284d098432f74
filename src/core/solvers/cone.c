// cone.c — second-order cone projections and NCP residuals (000 eqs. 10-14).
#include "core/solvers/cone.h"

#include <math.h>

#include "core/spatial.h"

// projection onto {(t, n) : |t| <= mu n}: inside -> x; inside the polar cone -> 0; else onto
// the boundary ray in the plane of x and the axis. n >= 0 is tested too: with mu = 0 (a
// frictionless contact, a joint limit) and t = 0, t <= mu n holds for n < 0 (0 <= -0)
void cone_project(double out[3], const double x[3], double mu) {
  double t = sqrt(x[0] * x[0] + x[1] * x[1]), n = x[2];
  if (t <= mu * n && n >= 0) {
    out[0] = x[0]; out[1] = x[1]; out[2] = x[2];
    return;
  }
  if (mu * t <= -n) {  // polar cone (includes n <= 0 with t = 0)
    out[0] = out[1] = out[2] = 0;
    return;
  }
  // boundary: n' = (n + mu t)/(1 + mu^2), |t'| = mu n'
  double np = (n + mu * t) / (1 + mu * mu);
  double s = t > 0 ? mu * np / t : 0;
  out[0] = s * x[0];
  out[1] = s * x[1];
  out[2] = np;
}

double cone_dist(const double x[3], double mu) {
  double t = sqrt(x[0] * x[0] + x[1] * x[1]);
  if (t <= mu * x[2] && x[2] >= 0) return 0;  // inside: the projection is x itself
  double p[3];
  cone_project(p, x, mu);
  double d0 = x[0] - p[0], d1 = x[1] - p[1], d2 = x[2] - p[2];
  return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

double cone_dist_dual(const double x[3], double mu) {
  if (mu <= 0) return x[2] < 0 ? -x[2] : 0;  // K* of a frictionless contact: n >= 0
  if (isinf(mu)) return sqrt(x[0] * x[0] + x[1] * x[1] + (x[2] < 0 ? x[2] * x[2] : 0));
  return cone_dist(x, 1 / mu);
}

void cone_residuals(const double lambda[3], const double c[3], double mu, double* eps_p,
                    double* eps_d, double* eps_c) {
  double cg[3] = {c[0], c[1], c[2] + mu * sqrt(c[0] * c[0] + c[1] * c[1])};
  *eps_p = cone_dist(lambda, mu);
  *eps_d = cone_dist_dual(cg, mu);
  *eps_c = fabs(sp_dot3(lambda, cg));
}

void cone_residuals_ccp(const double lambda[3], const double c[3], double mu, double* eps_p,
                        double* eps_d, double* eps_c) {
  *eps_p = cone_dist(lambda, mu);
  *eps_d = cone_dist_dual(c, mu);
  *eps_c = fabs(sp_dot3(lambda, c));
}

//---------------------------------- the generalized (elliptic) cone ---------------------------
// Projection of (x, n) onto K_a: inside -> itself; in the polar cone (-n >= ||a x||) -> 0;
// else the boundary point (x_k a_k^2 / (a_k^2 + l), .) with the multiplier l > 0 solving
// |1 - l| ||(a_k x_k / (a_k^2 + l))|| = |n| (the KKT conditions with n' = n / (1 - l)): for n > 0
// the left side falls from ||x / a|| > n at l = 0 to 0 at l = 1, for n < 0 it rises from 0 at
// l = 1 towards ||a x|| > |n|: one root either way, found by bisection. Free components (a_k
// infinite) are untouched, forced ones (a_k = 0) zeroed.

#define ELL_BISECT 100

// ||(a_k x_k / (a_k^2 + l))|| over the finite a_k > 0
static double ell_norm(const double x[CONE_NELL], const double a[CONE_NELL], double l) {
  double s = 0;
  for (int k = 0; k < CONE_NELL; k++) {
    if (!(a[k] > 0) || isinf(a[k])) continue;
    double v = a[k] * x[k] / (a[k] * a[k] + l);
    s += v * v;
  }
  return sqrt(s);
}

// the multiplier of the boundary projection (see above)
static double ell_multiplier(const double x[CONE_NELL], const double a[CONE_NELL], double n) {
  if (n == 0) return 1;
  double lo = n > 0 ? 0 : 1, hi = 1;
  if (n < 0)  // grow the bracket until the left side passes |n|
    for (hi = 2; (hi - 1) * ell_norm(x, a, hi) < -n && hi < 1e300; hi *= 2) lo = hi;
  for (int it = 0; it < ELL_BISECT; it++) {
    double mid = 0.5 * (lo + hi), h = fabs(1 - mid) * ell_norm(x, a, mid);
    if ((n > 0) == (h > fabs(n))) lo = mid;  // n > 0: h falls with l; n < 0: h rises
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

// (x, n) onto K_a in place (x the CONE_NELL components)
static void ell_project(double x[CONE_NELL], double* n, const double a[CONE_NELL]) {
  double q = 0, w = 0;
  for (int k = 0; k < CONE_NELL; k++) {
    if (isinf(a[k])) continue;
    if (!(a[k] > 0)) {
      x[k] = 0;
      continue;
    }
    q += (x[k] / a[k]) * (x[k] / a[k]);
    w += (a[k] * x[k]) * (a[k] * x[k]);
  }
  if (sqrt(q) <= *n) return;
  if (sqrt(w) <= -*n) {  // polar cone
    for (int k = 0; k < CONE_NELL; k++)
      if (!isinf(a[k])) x[k] = 0;
    *n = 0;
    return;
  }
  double l = ell_multiplier(x, a, *n);
  for (int k = 0; k < CONE_NELL; k++)
    if (!isinf(a[k])) x[k] *= a[k] * a[k] / (a[k] * a[k] + l);
  q = 0;
  for (int k = 0; k < CONE_NELL; k++)
    if (a[k] > 0 && !isinf(a[k])) q += (x[k] / a[k]) * (x[k] / a[k]);
  *n = sqrt(q);
}

// the pair's five friction components and normal from the two entries
static void ell_gather(const double li[3], const double lj[3], double x[CONE_NELL], double* n) {
  x[0] = li[0], x[1] = li[1], x[2] = lj[0], x[3] = lj[1], x[4] = lj[2];
  *n = li[2];
}

void cone_ell_project(double li[3], double lj[3], const double a[CONE_NELL]) {
  double x[CONE_NELL], n;
  ell_gather(li, lj, x, &n);
  ell_project(x, &n, a);
  li[0] = x[0], li[1] = x[1], li[2] = n;
  lj[0] = x[2], lj[1] = x[3], lj[2] = x[4];
}

// distance of (x, n) to K_a
static double ell_dist(const double x[CONE_NELL], double n, const double a[CONE_NELL]) {
  double p[CONE_NELL], pn = n, s = 0;
  for (int k = 0; k < CONE_NELL; k++) p[k] = x[k];
  ell_project(p, &pn, a);
  for (int k = 0; k < CONE_NELL; k++) s += (x[k] - p[k]) * (x[k] - p[k]);
  return sqrt(s + (n - pn) * (n - pn));
}

void cone_ell_residuals(const double li[3], const double lj[3], const double ci[3],
                        const double cj[3], const double a[CONE_NELL], int ncp, double* eps_p,
                        double* eps_d, double* eps_c) {
  double x[CONE_NELL], n, y[CONE_NELL], cn, ainv[CONE_NELL], gam = 0;
  ell_gather(li, lj, x, &n);
  ell_gather(ci, cj, y, &cn);
  for (int k = 0; k < CONE_NELL; k++) {
    ainv[k] = a[k] > 0 ? 1 / a[k] : INFINITY;
    gam += (a[k] * y[k]) * (a[k] * y[k]);
  }
  if (ncp) cn += sqrt(gam);
  *eps_p = ell_dist(x, n, a);
  *eps_d = ell_dist(y, cn, ainv);
  double dot = n * cn;
  for (int k = 0; k < CONE_NELL; k++) dot += x[k] * y[k];
  *eps_c = fabs(dot);
}
