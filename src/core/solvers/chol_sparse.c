// chol_sparse.c — CHOLMOD's sparse Cholesky with the analysis kept per pattern (chol_sparse.h).
#include "core/solvers/chol_sparse.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct chol_entry {
  cholmod_sparse* A;  // the pattern as given (lower triangle) and its values, in that order
  cholmod_sparse* B;  // A permuted by AMD, P A P', stored as its upper triangle (stype 1)
  int* map;           // (nnz) A's entry k is B's entry map[k]
  int* perm;          // (n) AMD's order: B's row k is A's row perm[k]
  double* pb;         // (n) a right-hand side in B's order
  cholmod_factor* L;  // B's symbolic (natural order, simplicial), then numeric, factor
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

// Why B: cholmod_factorize copies a matrix it must permute or transpose on every call (a
// permuted transpose: allocations in the step, and 2 % of the pile's instructions); with the
// permutation applied once per pattern and B in the upper triangle with the natural order, the
// simplicial factorization reads B as it is. Simplicial always: the supernodal one allocates its
// update workspace on every call, and the islands are small (at most a few hundred rows)
chol_cache* chol_create(void) {
  chol_cache* c = calloc(1, sizeof(*c));
  if (!c) return NULL;
  cholmod_start(&c->cm);
  c->cm.print = 0;          // a failure is reported by the status, never printed
  c->cm.nmethods = 1;       // one method, no METIS, no trials: AMD (then natural, entry_analyse)
  c->cm.supernodal = CHOLMOD_SIMPLICIAL;
  return c;
}

static void entry_clear(chol_cache* c, chol_entry* e) {
  cholmod_free_sparse(&e->A, &c->cm);
  cholmod_free_sparse(&e->B, &c->cm);
  cholmod_free_factor(&e->L, &c->cm);
  free(e->map);
  free(e->perm);
  free(e->pb);
  e->map = e->perm = NULL;
  e->pb = NULL;
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

// AMD's order of A's pattern (postordered) into e->perm: CHOLMOD's analysis with AMD alone
static int entry_amd(chol_cache* c, chol_entry* e, int n) {
  c->cm.method[0].ordering = CHOLMOD_AMD;
  c->cm.postorder = 1;
  cholmod_factor* L0 = cholmod_analyze(e->A, &c->cm);
  if (!L0 || c->cm.status != CHOLMOD_OK) {
    cholmod_free_factor(&L0, &c->cm);
    return 1;
  }
  memcpy(e->perm, L0->Perm, sizeof(int) * (size_t)n);
  cholmod_free_factor(&L0, &c->cm);
  return 0;
}

// the pattern of A's transpose: row r's entries are A's (r, ti[q]), A's entry tk[q], for q in
// tp[r]..tp[r + 1] - 1 (tp zeroed, n + 1)
static void transpose_pattern(const cholmod_sparse* A, int* tp, int* ti, int* tk) {
  int n = (int)A->ncol;
  const int *ap = A->p, *ai = A->i;
  for (int k = 0; k < ap[n]; k++) tp[ai[k] + 1]++;
  for (int r = 0; r < n; r++) tp[r + 1] += tp[r];
  for (int j = 0; j < n; j++)
    for (int k = ap[j]; k < ap[j + 1]; k++) {
      int q = tp[ai[k]]++;
      ti[q] = j;
      tk[q] = k;
    }
  for (int r = n; r > 0; r--) tp[r] = tp[r - 1];
  tp[0] = 0;
}

// B = P A P' in its upper triangle, rows ascending in each column, and the map of A's entries
// into B's. An entry (i, j) of A lands at row min and column max of its new indices; B's rows
// are filled in ascending order r = 0..n-1 (the entries of A's row and column perm[r] whose
// other new index is >= r), so each column's rows arrive sorted
static int entry_permute(chol_cache* c, chol_entry* e, int n) {
  size_t nz = (size_t)((const int*)e->A->p)[n];
  e->B = cholmod_allocate_sparse((size_t)n, (size_t)n, nz, 1, 1, 1, CHOLMOD_REAL, &c->cm);
  int* inv = malloc(sizeof(int) * (size_t)n);
  int* cnt = calloc((size_t)n + 1, sizeof(int));
  if (!e->B || !inv || !cnt) {
    free(inv);
    free(cnt);
    return 1;
  }
  for (int k = 0; k < n; k++) inv[e->perm[k]] = k;
  const int *ap = e->A->p, *ai = e->A->i;
  int *bp = e->B->p, *bi = e->B->i;
  for (int j = 0; j < n; j++)
    for (int k = ap[j]; k < ap[j + 1]; k++) {
      int a = inv[ai[k]], b = inv[j];
      cnt[(a > b ? a : b) + 1]++;
    }
  for (int j = 0; j < n; j++) cnt[j + 1] += cnt[j];
  memcpy(bp, cnt, sizeof(int) * ((size_t)n + 1));
  int* tp = calloc((size_t)n + 1, sizeof(int));  // A's transpose: the columns of each row
  int* ti = malloc(sizeof(int) * (nz ? nz : 1));
  int* tk = malloc(sizeof(int) * (nz ? nz : 1));
  if (!tp || !ti || !tk) {
    free(inv);
    free(cnt);
    free(tp);
    free(ti);
    free(tk);
    return 1;
  }
  transpose_pattern(e->A, tp, ti, tk);
  for (int r = 0; r < n; r++) {  // B's row r: A's entries with min(new index) = r
    int o = e->perm[r];          // A's index of row/column r
    for (int k = ap[o]; k < ap[o + 1]; k++)  // A's column o: entries (ai[k], o)
      if (inv[ai[k]] >= r) {
        int col = inv[ai[k]], q = cnt[col]++;
        bi[q] = r;
        e->map[k] = q;
      }
    for (int q2 = tp[o]; q2 < tp[o + 1]; q2++)  // A's row o: entries (o, ti[q2])
      if (inv[ti[q2]] > r) {
        int col = inv[ti[q2]], q = cnt[col]++;
        bi[q] = r;
        e->map[tk[q2]] = q;
      }
  }
  free(inv);
  free(cnt);
  free(tp);
  free(ti);
  free(tk);
  return 0;
}

// a new entry for the scratch's pattern: the matrix, AMD's order, B and its symbolic factor in
// the natural order. The one place that allocates on a pattern change (the analysis of a pattern
// not kept)
static chol_entry* entry_analyse(chol_cache* c, int n) {
  chol_entry* e = &c->e[c->next];
  entry_clear(c, e);
  size_t nz = (size_t)c->colp[n];
  e->A = cholmod_allocate_sparse((size_t)n, (size_t)n, nz, 1, 1, -1, CHOLMOD_REAL, &c->cm);
  e->map = malloc(sizeof(int) * (nz ? nz : 1));
  e->perm = malloc(sizeof(int) * (size_t)n);
  e->pb = malloc(sizeof(double) * (size_t)n);
  if (!e->A || !e->map || !e->perm || !e->pb) goto fail;
  memcpy(e->A->p, c->colp, sizeof(int) * ((size_t)n + 1));
  memcpy(e->A->i, c->rowi, sizeof(int) * nz);
  memset(e->A->x, 0, sizeof(double) * nz);
  if (entry_amd(c, e, n) || entry_permute(c, e, n)) goto fail;
  c->cm.method[0].ordering = CHOLMOD_NATURAL;
  c->cm.postorder = 0;
  e->L = cholmod_analyze(e->B, &c->cm);
  if (!e->L || c->cm.status != CHOLMOD_OK) goto fail;
  e->fl = c->cm.fl;
  e->lnz = c->cm.lnz;
  c->next = (c->next + 1) % CHOL_CACHE;
  return e;
fail:
  entry_clear(c, e);
  return NULL;
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
  double* bx = e->B->x;
  for (size_t k = 0, nz = (size_t)((const int*)e->A->p)[e->A->ncol]; k < nz; k++) {
    if (!isfinite(x[k])) return 1;
    bx[e->map[k]] = x[k];
  }
  if (!cholmod_factorize(e->B, e->L, &c->cm)) return 1;
  // not positive definite: CHOLMOD stops at column minor < n with a warning status
  return c->cm.status != CHOLMOD_OK || e->L->minor < e->L->n;
}

// x := A^-1 x with B's simplicial factor (LDL', or LL' had CHOLMOD chosen it), written here:
// CHOLMOD 3's cholmod_solve2 reallocates its simplicial workspace on every call, and B's
// natural order leaves only AMD's permutation, applied around the two triangular solves
void chol_solve(chol_cache* c, chol_entry* e, double* x) {
  (void)c;
  const cholmod_factor* L = e->L;
  int n = (int)L->n, ll = L->is_ll;
  const int *lp = L->p, *li = L->i, *lnz = L->nz;
  const double* lx = L->x;
  double* y = e->pb;
  for (int k = 0; k < n; k++) y[k] = x[e->perm[k]];
  for (int j = 0; j < n; j++) {  // L y = b (the diagonal leads each column)
    if (ll) y[j] /= lx[lp[j]];
    double yj = y[j];
    for (int q = lp[j] + 1; q < lp[j] + lnz[j]; q++) y[li[q]] -= lx[q] * yj;
  }
  for (int j = 0; j < n && !ll; j++) y[j] /= lx[lp[j]];  // D
  for (int j = n - 1; j >= 0; j--) {  // L' x = y
    double acc = y[j];
    for (int q = lp[j] + 1; q < lp[j] + lnz[j]; q++) acc -= lx[q] * y[li[q]];
    y[j] = ll ? acc / lx[lp[j]] : acc;
  }
  for (int k = 0; k < n; k++) x[e->perm[k]] = y[k];
}
