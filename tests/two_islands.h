// two_islands.h — test helper: a problem of two independent islands, one that a per-contact
// family solves in a sweep or two and one that needs many, and the checks that the family
// iterates island by island (solver_impl.h): the answer and the counts of solving each island
// alone.
//
// Contacts 0, 2, 4 form the easy island, 1 and 3 the hard one (interleaved, so the island's
// contact lists matter), mu = 0.5, G = I + couplings:
//   easy: 0 and 2 stick (lambda ~ (-g_T, 1)), 4 takes off (g_N = 0.5: lambda = 0, c = g != 0,
//         so a stale c is seen); every coupling (normal/tangent within a contact, and between
//         the contacts) is 1e-9: after one sweep the residual is ~1e-9, below the tolerance
//         1e-6, yet a further sweep still moves the impulses by ~1e-9 (so a sweep after the
//         island's convergence changes its bits);
//   hard: 1 and 3 stick, G_13 = 0.9 I: Gauss-Seidel contracts by 0.81 a sweep, tens of sweeps
//         to 1e-6 (RaiSim's damping, hundreds).
#ifndef CSIM_TEST_TWO_ISLANDS_H
#define CSIM_TEST_TWO_ISLANDS_H

#include "core/solvers/solver.h"

#define TI_NC 5
#define TI_TOL 1e-6

// the problem's G (15 x 15 row-major), g (15) and mu (5)
void ti_problem(double G[225], double g[15], double mu[5]);

// with o (tolerance TI_TOL expected, max_iterations enough for the hard island): solve the
// problem (island by island) and each island alone (its own sub-problem, 0 warm start) and check
//   (a) each island's impulses equal those of solving it alone, bit for bit: the same updates in
//       the same order, none after the island converged;
//   (b) the easy island took easy_sweeps sweeps alone, and a further sweep would have moved it
//       (solved alone to 1e-14 its impulses differ): so (a) fails if it were swept on while
//       the hard island iterates;
//   (c) iterations = the most either island took (the hard one's, >= 20), residual the larger,
//       converged;
//   and the contact velocity solver_solve leaves (solver_velocity) is G lambda + g (c_fresh
//   honest). label names the family in messages
void ti_check(const solver_options* o, int easy_sweeps, const char* label);

// a NaN in the easy island's g (island 0, solved first): never reported converged, the residual
// NaN, and the hard island still gets its own answer (bit for bit as alone)
void ti_check_nan(const solver_options* o, const char* label);

#endif
