// cone.c — second-order cone projections and NCP residuals (000 eqs. 10-14).
#include "core/solvers/cone.h"

#include <float.h>
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

// c with De Saxce's Gamma on its normal
static void desaxce(const double c[3], double mu, double cg[3]) {
  cg[0] = c[0];
  cg[1] = c[1];
  cg[2] = c[2] + mu * sqrt(c[0] * c[0] + c[1] * c[1]);
}

double cone_comp(const double lambda[3], const double c[3], double mu, int ncp) {
  double cg[3];
  if (!ncp) return fabs(sp_dot3(lambda, c));
  desaxce(c, mu, cg);
  return fabs(sp_dot3(lambda, cg));
}

void cone_residuals_ccp(const double lambda[3], const double c[3], double mu, double* eps_p,
                        double* eps_d, double* eps_c) {
  *eps_p = cone_dist(lambda, mu);
  *eps_d = cone_dist_dual(c, mu);
  *eps_c = cone_comp(lambda, c, mu, 0);
}

//---------------------------------- the generalized (elliptic) cone ---------------------------
// Projection of (x, n) onto K_a: inside -> itself; in the polar cone (-n >= ||a x||) -> 0;
// else the boundary point (x_k a_k^2 / (a_k^2 + l), .) with the multiplier l > 0 solving
// |1 - l| ||(a_k x_k / (a_k^2 + l))|| = |n| (the KKT conditions with n' = n / (1 - l)): for n > 0
// the left side falls from ||x / a|| > n at l = 0 to 0 at l = 1, for n < 0 it rises from 0 at
// l = 1 towards ||a x|| > |n|: one root either way, found by Newton's method on that
// equation, safeguarded by the bracket (ell_multiplier): 4.6 evaluations per projection on
// humanoid100 against the 100 of the bisection it replaces, which was 57 % of that scene's
// step. Free
// components (a_k infinite) are untouched, forced ones (a_k = 0) zeroed.

#define ELL_MAXIT 100

// H(l) = |1 - l| ||(a_k x_k / (a_k^2 + l))|| - |n| over the finite a_k > 0, and dH/dl (the
// norm, not its square: near l = 1, where the root sits when n is small, H is linear and its
// square would have a double root that Newton approaches only linearly)
static double ell_eq(const double x[CONE_NELL], const double a[CONE_NELL], double n, double l,
                     double* dH) {
  double s2 = 0, s3 = 0;
  for (int k = 0; k < CONE_NELL; k++) {
    if (!(a[k] > 0) || isinf(a[k])) continue;
    double u = a[k] * x[k], d = 1 / (a[k] * a[k] + l), t = u * u * d * d;
    s2 += t;
    s3 += t * d;
  }
  double w = fabs(1 - l), r = sqrt(s2);
  *dH = r > 0 ? (n < 0 ? r : -r) - w * s3 / r : 0;  // n < 0: l >= 1, where |1 - l| rises
  return w * r - fabs(n);
}

// the multiplier of the boundary projection (see above): H falls on [0, 1] when n > 0 and rises
// on [1, inf) when n < 0, so the sign of H says on which side of the root l is. Newton starts
// at the bracket's left end: for n > 0 H is convex (a norm of convex non-negative functions),
// so the steps approach the root from the left without passing it; for n < 0 each component
// (l - 1) / (a_k^2 + l) is concave, and Newton from the right would pass the root and leave the
// bracket step after step (the tiny normal of a torsion-dominated contact took 30). A step that
// leaves the bracket takes the secant through its ends instead (the midpoint if that fails)
static double ell_multiplier(const double x[CONE_NELL], const double a[CONE_NELL], double n) {
  if (n == 0) return 1;
  double lo = n > 0 ? 0 : 1, hi = 1, dH, Hlo = NAN, Hhi = NAN;  // H at the bracket's ends
  if (n < 0)  // grow the bracket until H changes sign
    for (hi = 2; (Hhi = ell_eq(x, a, n, hi, &dH)) < 0 && hi < 1e300; hi *= 2) lo = hi;
  double l = lo;
  for (int it = 0; it < ELL_MAXIT; it++) {
    double H = ell_eq(x, a, n, l, &dH);
    if (H == 0) return l;
    if ((H > 0) == (n > 0)) lo = l, Hlo = H;  // n > 0: H falls with l; n < 0: H rises
    else hi = l, Hhi = H;
    double next = dH != 0 ? l - H / dH : NAN;
    if (fabs(next - l) <= 4 * DBL_EPSILON * fabs(l)) return next;  // converged (also onto lo)
    if (!(next > lo && next < hi)) next = lo - Hlo * (hi - lo) / (Hhi - Hlo);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (hi - lo <= 4 * DBL_EPSILON * hi) return next;
    l = next;
  }
  return l;
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
  for (int k = 0; k < CONE_NELL; k++)  // forced components (a_k = 0) are zero already
    if (a[k] > 0 && !isinf(a[k])) x[k] *= a[k] * a[k] / (a[k] * a[k] + l);
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

// the velocity (x, n) gathered, with De Saxce's Gamma on its normal when ncp
static void ell_velocity(const double ci[3], const double cj[3], const double a[CONE_NELL],
                         int ncp, double y[CONE_NELL], double* cn) {
  double gam = 0;
  ell_gather(ci, cj, y, cn);
  for (int k = 0; k < CONE_NELL; k++) gam += (a[k] * y[k]) * (a[k] * y[k]);
  if (ncp) *cn += sqrt(gam);
}

double cone_ell_comp(const double li[3], const double lj[3], const double ci[3],
                     const double cj[3], const double a[CONE_NELL], int ncp) {
  double x[CONE_NELL], n, y[CONE_NELL], cn;
  ell_gather(li, lj, x, &n);
  ell_velocity(ci, cj, a, ncp, y, &cn);
  double dot = n * cn;
  for (int k = 0; k < CONE_NELL; k++) dot += x[k] * y[k];
  return fabs(dot);
}

double cone_ell_dual(const double ci[3], const double cj[3], const double a[CONE_NELL], int ncp) {
  double y[CONE_NELL], cn, ainv[CONE_NELL];
  ell_velocity(ci, cj, a, ncp, y, &cn);
  for (int k = 0; k < CONE_NELL; k++) ainv[k] = a[k] > 0 ? 1 / a[k] : INFINITY;
  return ell_dist(y, cn, ainv);
}

void cone_ell_residuals(const double li[3], const double lj[3], const double ci[3],
                        const double cj[3], const double a[CONE_NELL], int ncp, double* eps_p,
                        double* eps_d, double* eps_c) {
  double x[CONE_NELL], n;
  ell_gather(li, lj, x, &n);
  *eps_p = ell_dist(x, n, a);
  *eps_d = cone_ell_dual(ci, cj, a, ncp);
  *eps_c = cone_ell_comp(li, lj, ci, cj, a, ncp);
}
