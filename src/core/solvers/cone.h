// cone.h — friction cones and the NCP residuals of 000 eqs. 10-14.
//
// Per contact, vectors are [t1 t2 n] (two tangents then the normal). K_mu = {l : l_n >= 0,
// |l_t| <= mu l_n}; its dual K_mu* = K_{1/mu}. De Saxce's correction Gamma(c, mu) = [0, 0,
// mu |c_t|] (000 eq. 13). For one contact, with c = (G lambda + g)_i:
//   eps_p = dist_K(lambda), eps_d = dist_K*(c + Gamma(c)), eps_c = |<lambda, c + Gamma(c)>|
// and eps_abs = max over contacts of the three (000 Sec. II, after eq. 14). These are computed the
// same way whatever model or solver produced lambda, so every run is comparable.
#ifndef CSIM_CONE_H
#define CSIM_CONE_H

#include <math.h>

// Euclidean projection of x (3) onto the second-order cone K_mu (mu >= 0)
void cone_project(double out[3], const double x[3], double mu);

// distance of x to K_mu
double cone_dist(const double x[3], double mu);

// distance of x to the dual cone K_mu* (= K_{1/mu}; for mu = 0 the half-space x_n >= 0)
double cone_dist_dual(const double x[3], double mu);

// the three residuals of one contact given its impulse and velocity c (c excludes Gamma).
// Inline: the stopping tests call it for every contact on every sweep (a cube's step: 12 calls)
static inline void cone_residuals(const double lambda[3], const double c[3], double mu,
                                  double* eps_p, double* eps_d, double* eps_c) {
  // desaxce's and cone_dist_dual's tangent norms are one: computed once (the same bits)
  double tc = sqrt(c[0] * c[0] + c[1] * c[1]);
  double cg[3] = {c[0], c[1], c[2] + mu * tc};
  // cone_dist(lambda, mu), its inside test here
  double tl = sqrt(lambda[0] * lambda[0] + lambda[1] * lambda[1]);
  *eps_p = tl <= mu * lambda[2] && lambda[2] >= 0 ? 0 : cone_dist(lambda, mu);
  if (mu > 0 && !isinf(mu)) {  // cone_dist_dual: cone_dist(cg, 1 / mu), its inside test here
    double k = 1 / mu;
    *eps_d = tc <= k * cg[2] && cg[2] >= 0 ? 0 : cone_dist(cg, k);
  } else {
    *eps_d = cone_dist_dual(cg, mu);
  }
  // cone_comp(lambda, c, mu, 1) on the cg above (sp_dot3's order)
  *eps_c = fabs(lambda[0] * cg[0] + lambda[1] * cg[1] + lambda[2] * cg[2]);
}

// the complementarity residual alone, the eps_c of cone_residuals (ncp 1) or cone_residuals_ccp
// (ncp 0): no projection
double cone_comp(const double lambda[3], const double c[3], double mu, int ncp);

// the three residuals of the cone complementarity problem K ∋ lambda ⊥ c ∈ K* (000 eq. 15, the
// CCP's own residual: Gamma = 0): dist_K(lambda), dist_K*(c), |<lambda, c>|
void cone_residuals_ccp(const double lambda[3], const double c[3], double mu, double* eps_p,
                        double* eps_d, double* eps_c);

// The generalized cone of a condim 4/6 contact (contact.h: the contact [t1 t2 n] and its spin
// entry [s r1 r2]): K_a = {(f, n) : n >= ||(f_k / a_k)_k||}, f = (t1, t2, s, r1, r2) and
// a = (mu, mu, mu_spin, mu_roll, mu_roll) (MuJoCo's elliptic cone). a_k = 0 forces f_k = 0;
// a_k = inf leaves f_k free (the dual cone of a_k = 0). Its dual cone is K_{1/a}, De Saxce's
// correction Gamma_n = ||(a_k c_k)_k||. li, lj: the two entries' 3-vectors
#define CONE_NELL 5

// Euclidean projection of (li, lj) onto K_a in place (exact: the KKT multiplier by bisection)
void cone_ell_project(double li[3], double lj[3], const double a[CONE_NELL]);

// the pair's complementarity residual alone (cone_ell_residuals' eps_c, the same value): no
// projection
double cone_ell_comp(const double li[3], const double lj[3], const double ci[3],
                     const double cj[3], const double a[CONE_NELL], int ncp);

// the pair's dual residual alone (cone_ell_residuals' eps_d, the same value): one projection
double cone_ell_dual(const double ci[3], const double cj[3], const double a[CONE_NELL], int ncp);

// the residuals of the pair as cone_residuals (ncp 1: with De Saxce's Gamma) or
// cone_residuals_ccp (ncp 0) do for one contact
void cone_ell_residuals(const double li[3], const double lj[3], const double ci[3],
                        const double cj[3], const double a[CONE_NELL], int ncp, double* eps_p,
                        double* eps_d, double* eps_c);

#endif  // CSIM_CONE_H
