// polish.h — semismooth Newton on the natural map of one island's NCP (issue 26): the finish
// ADMM hands a stalled island to (admm.c admm_polish).
#ifndef CSIM_POLISH_H
#define CSIM_POLISH_H

#include <stddef.h>

// doubles of polish_ncp's work for n = 3 nc rows
size_t polish_doubles(int n);

// From lambda (3 nc, the contacts' (t1, t2, n) impulses), Newton steps on
// F_i(l) = l_i - P_K(l_i - (c_i + Gamma(c_i)) / G_NN(i)), c = G l + g, Gamma(c_i) = mu_i |c_iT| on
// the normal (the natural residual of solver.h SOLVER_STOP_NATURAL: zero exactly at an NCP
// solution). G is the island's dense G~ (row-major, n x n), work polish_doubles(n). Stops when
// max |F| <= tol, after maxit steps, or when no step along Newton's direction lowers |F|^2;
// lambda gets the last accepted iterate, whose max |F| is returned (INFINITY when a G_NN is not
// positive)
double polish_ncp(int nc, const double* G, const double* g, const double* mu, double* lambda,
                  double* work, int maxit, double tol);

#endif
