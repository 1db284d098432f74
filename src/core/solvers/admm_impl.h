// admm_impl.h — ADMM's private state (admm.c), for its tests; solver.c does not see it.
#ifndef CSIM_ADMM_IMPL_H
#define CSIM_ADMM_IMPL_H

#include <stdint.h>

#include "core/solvers/chol_sparse.h"
#include "core/solvers/solver_impl.h"

// the power iteration's estimate L of the largest eigenvalue of an island's G~, kept with what
// identifies the island: its contacts n (0: unused entry), dofs nd (0 in contact space), and the
// trace and largest diagonal entry of its G~
typedef struct {
  int n, nd;
  double tr, dmax, L;
} solver_eig;
#define SOLVER_EIG_CACHE 4  // islands kept (admm_state.eig)
#define ADMM_HIST 2         // the corrections kept (admm_state.hl)

typedef struct {
  double rho;  // exp of the spectral power p of the last rho (rho = sqrt(L m) (L/m)^p), kept
               // across calls, 0 until the first solve
  // L of the last islands' G~, reused by an island whose contacts, dofs, trace and largest
  // diagonal entry of G~ match (n = 0: none)
  solver_eig eig[SOLVER_EIG_CACHE];
  int eig_next;  // the entry replaced next (round robin)
  int band_off;  // 1 factors dof-space islands densely even when a band would do (the reference
                 // path tests compare the banded factor with), 0 by default
  int fact;      // the island factor: ADMM_FACT_AUTO (admm.c's rule) by default; the others
                 // force one for tests and measurements (a band only where one is found)
  chol_cache* chol;  // the sparse factors' analyses, per island pattern (NULL until the first)
  // with factored problems (solver_options nv > 0): one island's Y in local dofs
  double* yl;    // (3 maxc x max_chain) its rows
  int* yi;       // (maxc x max_chain) local dof of each entry
  int* ynz;      // (maxc) entries per contact
  double* ye;    // (3 maxc) ydiag of the island
  int* dofmap;   // (nv) global dof -> local, -1 outside the island (restored after use)
  int* yord;     // (admm_y_ord_ints) the band order of an island's dofs
  int maxc;      // contacts run holds
  unsigned char* run;  // (maxc) 1 when a contact's dofs are consecutive, ascending (admm_op)
  // the kept factor (admm.c admm_kept): the work's dense or banded dof-space factor stays valid
  // for the next solve of an island with the same pattern (contacts, their dofs) and shift
  int keep_off;         // 1 refactors every solve (the reference tests compare the kept factor
                        // with), 0 by default
  int fk_valid;         // 1: the work's factor is the one described below
  int fk_nc, fk_nd;     // its island's contacts and dofs
  int fk_kd;            // its band (-1: dense)
  double fk_sigma;      // its shift rho + prox
  uint64_t fk_hash;     // its contacts' dofs (admm.c pattern_hash)
  int natural_soft;    // solver.criterion natural held as auto's coupled islands hold it
                       // (auto.c coupled_criterion): dropped once it alone stalls (admm.c)
  // the corrections of the last solves of an island in dof space (admm.c admm_secant): up to
  // ADMM_HIST pairs of a solve's move dl = z - z0 from its warm start and its velocity's
  // dc = G~ dl (3 maxc each), for the island of hist_nc contacts and pattern hist_hash
  int hist_off;  // 1 never uses them (the reference the tests compare with), 0 by default
  int hist_n, hist_next, hist_nc;
  uint64_t hist_hash;
  double *hl, *hc;
  long factorizations;  // numeric factorizations of the x-step's matrix since creation (tests)
  long block_islands;   // islands solved from their blocks, no dense G formed (tests)
  // the analysis admm_island_sparse found for the island solver.c then hands over as blocks,
  // taken (and cleared) by that island's solve: its pattern is not built twice
  chol_entry* island_entry;
} admm_state;

enum { ADMM_FACT_AUTO = 0, ADMM_FACT_DENSE, ADMM_FACT_BAND, ADMM_FACT_SPARSE };

// the ADMM state of a solver created for an ADMM pair (solver_create)
static inline admm_state* solver_admm(const solver* s) {
  return (admm_state*)s->priv;
}

// the x-step's solve on one island problem p as ADMM receives it (dense G, or the factored form
// Y in the island's dofs): x := (G~ + sigma I)^-1 x (G~'s symmetric part) with the factor `fact`
// forced (ADMM_FACT_DENSE, _BAND, _SPARSE), for tests. 0 on success, 1 when the factor failed,
// -1 when that factor does not apply to p (no band, too large for the work)
int admm_island_solve(solver* s, const solver_problem* p, int fact, double sigma, double* x);

// the band order of the dofs of a problem in local dofs (p->nv of them, p->ydof local; Y's values
// unread): Cuthill-McKee from a far end of the island (admm.c band_order), each dof's position in
// perm (nv), each contact's entries by ascending position in *cord (inside iw); iw is scratch of
// admm_y_ord_ints ints minus nv. Returns the lower bandwidth of I + Y' W Y in that order, W any
// per-contact weight (newton.c factors its Hessian banded with it)
int admm_band_order(const solver_problem* p, int* iw, int* perm, const int** cord);

// ints of the band order's scratch (perm included) for islands of at most o->nv dofs, maxc
// contacts of at most o->max_chain entries
size_t admm_y_ord_ints(const solver_options* o, int maxc);

#endif  // CSIM_ADMM_IMPL_H
