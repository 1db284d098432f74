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
