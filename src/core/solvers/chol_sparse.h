// chol_sparse.h — a sparse Cholesky factor of a symmetric positive definite matrix through
// SuiteSparse's CHOLMOD (Debian libsuitesparse-dev), with the symbolic analysis kept per
// sparsity pattern: ADMM's island factor (admm.c) for islands that are neither small nor a band.
//
// Ordering: CHOLMOD's AMD only (Common.nmethods = 1, no METIS, no trial of several orders),
// postordered, applied once per pattern (the matrix factored is P A P', upper triangle, natural
// order); the factorization is CHOLMOD's simplicial LDL' (no BLAS, no threads: the same bits
// for the same input, whether the analysis was kept or made anew), the triangular solves are
// written here (chol_solve).
//
// A cache holds the analyses of the last CHOL_CACHE patterns (a step's islands are solved one
// after the other, and a resting scene's islands keep their pattern over many steps): the
// caller writes a pattern (the lower triangle, CSC, rows ascending per column, the diagonal
// present) into the cache's scratch (chol_reserve), chol_lookup finds the entry analysed for
// that pattern or analyses it anew in place of the oldest entry; then per matrix, the values
// (chol_values, in the pattern's order), chol_factor (numeric refactorization on the kept
// analysis), chol_solve any number of times.
//
// Allocation: on a pattern not kept, the analysis allocates (the matrix, AMD's order, the
// symbolic factor, CHOLMOD's workspace in its Common) and so does the first numeric
// factorization of it (the factor's values); the pattern scratch grows when a larger pattern
// than any before arrives. On a kept pattern a refactorization and a solve allocate nothing
// (tests/test_admm_sparse.c counts CHOLMOD's allocations through SuiteSparse's hooks).
#ifndef CSIM_CHOL_SPARSE_H
#define CSIM_CHOL_SPARSE_H

#include <stddef.h>

#define CHOL_CACHE 4  // patterns kept

typedef struct chol_cache chol_cache;
typedef struct chol_entry chol_entry;

// NULL when out of memory
chol_cache* chol_create(void);
void chol_free(chol_cache* c);

// scratch for a pattern of n columns and at most nnz entries: *colp (n + 1), *rowi (nnz).
// 0 on success, 1 when out of memory
int chol_reserve(chol_cache* c, int n, size_t nnz, int** colp, int** rowi);

// the entry for the pattern in the scratch (n columns): the kept analysis when one matches,
// else a new AMD analysis replacing the oldest entry (*analysed = 1); NULL when CHOLMOD fails
chol_entry* chol_lookup(chol_cache* c, int n, int* analysed);

// the entry's pattern (the scratch's when looked up) and its values, to fill before chol_factor
const int* chol_colp(const chol_entry* e);
const int* chol_rowi(const chol_entry* e);
double* chol_values(chol_entry* e);
// CHOLMOD's estimates from the analysis: flops of the numeric factorization and nnz(L)
double chol_flops(const chol_entry* e);
double chol_lnz(const chol_entry* e);

// numeric factorization of the values; 0 on success, 1 when not positive definite or not finite
int chol_factor(chol_cache* c, chol_entry* e);
// x := A^-1 x with the last factor (n entries)
void chol_solve(chol_cache* c, chol_entry* e, double* x);

#endif  // CSIM_CHOL_SPARSE_H
