// chol_sparse.c — CHOLMOD's sparse Cholesky with the analysis kept per pattern (chol_sparse.h).
#include "core/solvers/chol_sparse.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct chol_entry {
  cholmod_sparse* A;  // the analysed pattern (lower triangle, stype -1) and the current values
  cholmod_factor* L;  // its symbolic, then numeric, factor
  cholmod_dense *X, *Y, *E;  // cholmod_solve2's result and workspace, reused across solves
  double fl, lnz;     // the analysis's estimates
};

struct chol_cache {
  cholmod_common cm;
  chol_entry e[CHOL_CACHE];
  int next;           // the entry replaced next (round robin)
  int* colp;          // (ncap + 1) the pattern being looked up
  int* rowi;          // (nzcap)
  int ncap;
  size_t nzcap;
};

chol_cache* chol_create(void) {
  chol_cache* c = calloc(1, sizeof(*c));
  if (!c) return NULL;
  cholmod_start(&c->cm);
  c->cm.print = 0;          // a failure is reported by the status, never printed
  c->cm.nmethods = 1;       // AMD only: one deterministic order, no METIS, no trials
  c->cm.method[0].ordering = CHOLMOD_AMD;
  c->cm.postorder = 1;
  return c;
}

static void entry_clear(chol_cache* c, chol_entry* e) {
  cholmod_free_sparse(&e->A, &c->cm);
  cholmod_free_factor(&e->L, &c->cm);
  cholmod_free_dense(&e->X, &c->cm);
  cholmod_free_dense(&e->Y, &c->cm);
  cholmod_free_dense(&e->E, &c->cm);
  e->fl = e->lnz = 0;
}

void chol_free(chol_cache* c) {
  if (!c) return;
  for (int k = 0; k < CHOL_CACHE; k++) entry_clear(c, &c->e[k]);
  cholmod_finish(&c->cm);
  free(c->colp);
  free(c->rowi);
  free(c);
}

int chol_reserve(chol_cache* c, int n, size_t nnz, int** colp, int** rowi) {
  if (n > c->ncap) {
    int* p = realloc(c->colp, sizeof(int) * ((size_t)n + 1));
    if (!p) return 1;
    c->colp = p;
    c->ncap = n;
  }
  if (nnz > c->nzcap) {
    int* r = realloc(c->rowi, sizeof(int) * nnz);
    if (!r) return 1;
    c->rowi = r;
    c->nzcap = nnz;
  }
  *colp = c->colp;
  *rowi = c->rowi;
  return 0;
}

// 1 when entry e holds the pattern in the scratch (n columns)
static int entry_matches(const chol_cache* c, const chol_entry* e, int n) {
  if (!e->A || (int)e->A->ncol != n) return 0;
  const int* p = e->A->p;
  size_t nz = (size_t)c->colp[n];
  return memcmp(p, c->colp, sizeof(int) * ((size_t)n + 1)) == 0 &&
         memcmp(e->A->i, c->rowi, sizeof(int) * nz) == 0;
}

// a new entry for the scratch's pattern: the matrix, AMD, the symbolic factor. The one place
// that allocates on a pattern change (the analysis of a pattern not kept)
static chol_entry* entry_analyse(chol_cache* c, int n) {
  chol_entry* e = &c->e[c->next];
  entry_clear(c, e);
  size_t nz = (size_t)c->colp[n];
  e->A = cholmod_allocate_sparse((size_t)n, (size_t)n, nz, 1, 1, -1, CHOLMOD_REAL, &c->cm);
  if (!e->A) return NULL;
  memcpy(e->A->p, c->colp, sizeof(int) * ((size_t)n + 1));
  memcpy(e->A->i, c->rowi, sizeof(int) * nz);
  memset(e->A->x, 0, sizeof(double) * nz);
  e->L = cholmod_analyze(e->A, &c->cm);
  if (!e->L || c->cm.status != CHOLMOD_OK) {
    entry_clear(c, e);
    return NULL;
  }
  e->fl = c->cm.fl;
  e->lnz = c->cm.lnz;
  c->next = (c->next + 1) % CHOL_CACHE;
  return e;
}

chol_entry* chol_lookup(chol_cache* c, int n, int* analysed) {
  *analysed = 0;
  for (int k = 0; k < CHOL_CACHE; k++)
    if (entry_matches(c, &c->e[k], n)) return &c->e[k];
  *analysed = 1;
  return entry_analyse(c, n);
}

const int* chol_colp(const chol_entry* e) { return e->A->p; }
const int* chol_rowi(const chol_entry* e) { return e->A->i; }
double* chol_values(chol_entry* e) { return e->A->x; }
double chol_flops(const chol_entry* e) { return e->fl; }
double chol_lnz(const chol_entry* e) { return e->lnz; }

int chol_factor(chol_cache* c, chol_entry* e) {
  const double* x = e->A->x;
  for (size_t k = 0, nz = (size_t)((const int*)e->A->p)[e->A->ncol]; k < nz; k++)
    if (!isfinite(x[k])) return 1;
  if (!cholmod_factorize(e->A, e->L, &c->cm)) return 1;
  // not positive definite: CHOLMOD stops at column minor < n with a warning status
  return c->cm.status != CHOLMOD_OK || e->L->minor < e->L->n;
}

void chol_solve(chol_cache* c, chol_entry* e, double* x) {
  size_t n = e->A->nrow;
  cholmod_dense b = {0};  // a header over x: CHOLMOD reads it, writes its own X
  b.nrow = n;
  b.ncol = 1;
  b.nzmax = n;
  b.d = n;
  b.x = x;
  b.xtype = CHOLMOD_REAL;
  b.dtype = CHOLMOD_DOUBLE;
  if (!cholmod_solve2(CHOLMOD_A, e->L, &b, NULL, &e->X, NULL, &e->Y, &e->E, &c->cm)) {
    for (size_t k = 0; k < n; k++) x[k] = NAN;  // the caller's residual then reports it
    return;
  }
  memcpy(x, e->X->x, sizeof(double) * n);
}
