// identify.h — contact parameters identified on recorded cube tosses (csim identify cubetoss):
// for one contact model, minimise the mean e_q (run/cubetoss.h, failed tosses counted as
// CT_FAIL_EQ) over a training split of the tosses.
//
// Each parameter is searched in u in [0, 1] over its bounds (log scale where it spans decades).
// The search: a coarse grid (3 levels per parameter, at most 27 points) on a subset of the
// training tosses; its 3 best points and the start are re-scored on the full training split; the
// best becomes the first vertex of a Nelder-Mead simplex (reflection 1, expansion 2, contraction
// 1/2, shrink 1/2, initial steps 0.1) run on the full training split for max_evals evaluations;
// the result is then scored on the held-out tosses.
#ifndef CSIM_IDENTIFY_H
#define CSIM_IDENTIFY_H

#include "core/error.h"
#include "run/cubetoss.h"

// the tosses and how to run them
typedef struct {
  const ct_data* d;
  ct_options o;
  const int* train;         // training split
  int ntrain;
  const int* sub;           // the grid's subset of the training split
  int nsub;
  const int* held;          // held-out tosses (may be empty)
  int nheld;
  int max_evals;            // Nelder-Mead evaluations
} id_problem;

// one model's fit
typedef struct {
  double f0;                // mean e_q of the starting guess on the training split
  double ftrain;            // ... of the fitted parameters
  double fheld;             // ... on the held-out tosses (NaN when there are none)
  long evals;               // simulations of the tosses run (objective evaluations)
  long steps;               // steps taken by all of them
  char fitted[512];         // the fitted parameters as a params-file map body: "key: v, ..."
} id_fit;

// the training / held-out split of tosses idx[0..n): the physical toss index (duplicates
// together) even -> training, odd -> held out; tr and ho have room for n each
void id_split(const ct_data* d, const int* idx, int n, int* tr, int* ntr, int* ho, int* nho);

// fit the parameters of contact model `model` (a scenario name); res is scratch for the largest
// of ntrain, nsub, nheld results. CSIM_ERR_INPUT (err set) when a scenario cannot be built.
csim_status id_fit_model(const id_problem* pb, const char* model, ct_result* res, id_fit* out,
                         csim_error* err);

#endif  // CSIM_IDENTIFY_H
