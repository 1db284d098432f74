// dense_problem.h — test helper: a solver_problem over the block-sparse storage of a dense G
// (solver_blocks_from_dense: the nonzero 3x3 blocks, islands from the pattern), so the solver
// tests written with dense matrices run the block kernels.
#ifndef CSIM_TEST_DENSE_PROBLEM_H
#define CSIM_TEST_DENSE_PROBLEM_H

#include "core/solvers/solver.h"

// the problem of G (3nc x 3nc row-major, symmetric) with g, mu, R; storage from a ring of 32
// slots, each reused by the 32nd later call (a problem stays valid for 31 more calls)
solver_problem tdense(int nc, const double* G, const double* g, const double* mu,
                      const double* R);

// the same with every block stored (fully dense pattern, one island): the dense reference path
solver_problem tdense_full(int nc, const double* G, const double* g, const double* mu,
                           const double* R);

// a solver of options o for maxc contacts (asserted created, the message saying why not)
solver* tsolver_create(const solver_options* o, int maxc);
// a solver of (model, kind) for maxc contacts with tolerance tol, iteration cap iters,
// over-relaxation omega and facets pyramid facets; rho 1, adaptive, the model's own stop criterion
solver* tsolver(csim_model model, csim_solver kind, int maxc, double tol, int iters, double omega,
                int facets);

// solve one contact (G 3x3, g, mu) with sv from x = 0: x the answer, the result returned
solver_result tsolve1(solver* sv, const double* G, const double* g, double mu, double x[3]);

// tsolve1, asserting convergence and |x_i - lam_i| <= tol (1 + |lam_i|) for each component
// (lam the exact answer); `what` names the case in the failure messages
solver_result tsolve1_expect(solver* sv, const double* G, const double* g, double mu,
                             const double lam[3], double tol, double x[3], const char* what);

// the 300 single-contact NCP cases of ncp_contact_case (seed 17, sticking, sliding and take-off
// in turn) solved by sv: each tsolve1_expect'ed (converged, within tol (1 + |lambda|) of the exact
// answer), then handed to check when it is not NULL; `what` names the solver in the messages
typedef void ncp_case_check(int kind, const double G[9], const double g[3], double mu,
                            const double x[3]);
void ncp_cases_expect(solver* sv, double tol, const char* what, ncp_case_check* check);

// a block of mass m sliding at v along x on a plane, after a step of gravity (000 eqs. 16-18):
// isotropic G = I/m (3x3), g = [v, 0, -grav dt]
void sliding_block(double m, double v, double grav, double dt, double G[9], double g[3]);
// sv's answer to sliding_block (friction mu) from x = 0, asserted converged and within tol
// (absolute) of the NCP closed form lambda_N = m grav dt, lambda_T = [-mu lambda_N, 0]
void sliding_block_expect_ncp(solver* sv, double m, double mu, double v, double grav, double dt,
                              double tol);

#endif
