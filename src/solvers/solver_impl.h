// solver_impl.h — what the solver families share inside src/solvers (not a public contract).
#ifndef CSIM_SOLVER_IMPL_H
#define CSIM_SOLVER_IMPL_H

#include "solver.h"

struct solver {
  solver_options opt;
  int maxc;        // contacts the workspace is sized for
  double* c;       // (3 maxc) contact velocities
  double* tinv;    // (4 maxc) inverse of each contact's 2x2 tangent block
};

// projected Gauss-Seidel (000 Alg. 5 for the NCP)
void solver_pgs(solver* s, const solver_problem* p, double* lambda, solver_result* res);

#endif  // CSIM_SOLVER_IMPL_H
