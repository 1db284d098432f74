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

// Euclidean projection of x (3) onto the second-order cone K_mu (mu >= 0)
void cone_project(double out[3], const double x[3], double mu);

// distance of x to K_mu
double cone_dist(const double x[3], double mu);

// distance of x to the dual cone K_mu* (= K_{1/mu}; for mu = 0 the half-space x_n >= 0)
double cone_dist_dual(const double x[3], double mu);

// the three residuals of one contact given its impulse and velocity c (c excludes Gamma)
void cone_residuals(const double lambda[3], const double c[3], double mu, double* eps_p,
                    double* eps_d, double* eps_c);

// the three residuals of the cone complementarity problem K ∋ lambda ⊥ c ∈ K* (000 eq. 15, the
// CCP's own residual: Gamma = 0): dist_K(lambda), dist_K*(c), |<lambda, c>|
void cone_residuals_ccp(const double lambda[3], const double c[3], double mu, double* eps_p,
                        double* eps_d, double* eps_c);

#endif  // CSIM_CONE_H
