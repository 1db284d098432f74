// newton.h — the soft CCP's primal Newton solver (newton.c): its per-contact cost, for tests.
#ifndef CSIM_NEWTON_H
#define CSIM_NEWTON_H

// contact cost s(a) of the primal problem (newton.c's header: a = Y_i x + g_i, the constraint
// velocity without the contact's own compliance; R (3) its compliance Re = R + ydiag, R_t1 = R_t2
// when mu > 0) in *cost, its impulse lambda(a) = -grad s in lam and, when H is not NULL, its
// Hessian (3x3 row-major); returns the zone: 0 separating, 1 inside the cone (or a frictionless
// contact's pushing normal), 2 on the cone's surface (sliding)
int newton_zone(const double a[3], const double R[3], double mu, double lam[3], double H[9],
                double* cost);

#endif  // CSIM_NEWTON_H
