// newton.h — the soft CCP's primal Newton solver (newton.c): its per-contact cost, for tests.
#ifndef CSIM_NEWTON_H
#define CSIM_NEWTON_H

#include <stddef.h>

#include "core/solvers/solver.h"

// contact cost s(a) of the primal problem (newton.c's header: a = Y_i x + g_i, the constraint
// velocity without the contact's own compliance; R (3) its compliance Re = R + ydiag, R_t1 = R_t2
// when mu > 0) in *cost, its impulse lambda(a) = -grad s in lam and, when H is not NULL, its
// Hessian (3x3 row-major); returns the zone: 0 separating, 1 inside the cone (or a frictionless
// contact's pushing normal), 2 on the cone's surface (sliding)
int newton_zone(const double a[3], const double R[3], double mu, double lam[3], double H[9],
                double* cost);

// the same for a condim 4/6 pair (contact.h: a contact and its spin entry) in the generalized
// cone ||(f_k / co_k)|| <= f_N: rows [t1 t2 n s r1 r2] (a, R: Re, lam; H 6x6 row-major), co the
// coefficient of each friction row (co[2] unused; co_k = 0 holds row k at zero: condim 4's
// rolling rows). The cone is round in u = R^1/2 lambda when co_k^2 R_k is one value over the rows
// of co_k > 0 (MuJoCo softness: R_k = R_t mu^2 / co_k^2); the slope is taken from the first
// such row. Same zones and return value as newton_zone
int newton_zone_ell(const double a[6], const double R[6], const double co[6], double lam[6],
                    double H[36], double* cost);

// contact.cone pyramidal (solver.h rpy): a unit of n = 3 or 6 rows (t1 t2 n | s r1 r2) whose
// impulse is E f over the edges n +- co_k e_k (co_k > 0, k != 2), each edge a unilateral soft row
// of regularizer r: with a_e = a_N +- co_k a_k, s(a) = sum_e 1/2 max(0, -a_e)^2 / r,
// lambda = E f, f_e = max(0, -a_e) / r (MuJoCo's Newton on a pyramidal model: each edge its own
// half-quadratic cost), Hessian sum over the active edges of e e' / r (n x n row-major): piecewise
// constant, so the zone is ZONE_PYR (16) plus the bit mask of the active edges (0: separating)
int newton_zone_pyr(int n, const double* a, const double* co, double r, double* lam, double* H,
                    double* cost);

// L L' := L L' + sigma v v' (sigma +1 or -1) on a dense Cholesky factor L (column-major lower,
// n x n, positive diagonal), v (n, destroyed) zero before position k0; 1 when a diagonal would
// not stay positive (a downdate past rounding: newton refactors then). newton's incremental
// factor on an island whose pyramid edges change few (newton.c hessian_update)
int newton_chol_rank1(int n, double* L, double* v, int k0, double sigma);

// A = L L' in place (column-major lower, n x n) by an inline loop in dpotf2's order of
// operations, not bit for bit LAPACK's; 1 when A is not positive definite (dpotrf's info > 0).
// On the small islands of newton and ADMM, where LAPACK's calls and blocking cost ~10x the flops
int newton_chol_small(int n, double* A);

// tests: holds the Hessian's buffer of newton solver s to doubles (at most what it has), so that
// islands past it take the conjugate-gradient direction (newton.c hessian_cg)
void newton_set_capacity(solver* s, size_t doubles);

#endif  // CSIM_NEWTON_H
