// solver_impl.h — what the solver families share inside src/solvers (not a public contract).
#ifndef CSIM_SOLVER_IMPL_H
#define CSIM_SOLVER_IMPL_H

#include "solver.h"

// A solver family: solves p from the initial guess in lambda, sets res->iterations,
// res->converged and res->residual (its model's own stopping residual); the NCP metrics
// (eps_*) are filled afterwards by solver_solve. Must not allocate: scratch comes from s->work.
typedef void (*solver_fn)(solver* s, const solver_problem* p, double* lambda, solver_result* res);

struct solver {
  solver_options opt;
  int maxc;        // contacts the workspace is sized for
  double* c;       // (3 maxc) contact velocities
  double* tinv;    // (4 maxc) per-contact scalars or 2x2 blocks
  double* work;    // scratch for the families: SOLVER_WORK(maxc) doubles
  size_t nwork;
  solver_fn fn;    // the family implementing opt.model / opt.kind
};

// scratch size: two dense (3n x 3n) matrices and 32 vectors of length 3n
#define SOLVER_WORK(n) (2 * (size_t)(3 * (n)) * (size_t)(3 * (n)) + 32 * (size_t)(3 * (n)) + 64)

// projected Gauss-Seidel (000 Alg. 5 for the NCP)
void solver_pgs(solver* s, const solver_problem* p, double* lambda, solver_result* res);

#endif  // CSIM_SOLVER_IMPL_H
