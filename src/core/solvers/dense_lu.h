// dense_lu.h — Gaussian elimination with partial pivoting for the small dense systems of the
// Newton finishes (ncp_newton.c, polish.c): an island of a few contacts gives 6-60 rows, where
// LAPACK's dgetrf (OpenBLAS: a dot-product kernel call per entry) costs some 70,000 instructions
// on 18 rows against about 4,000 here (talos_stand under ncp/newton, callgrind). Larger systems
// keep LAPACK's blocked factorization (DENSE_LU_MAX).
#ifndef CSIM_CORE_SOLVERS_DENSE_LU_H
#define CSIM_CORE_SOLVERS_DENSE_LU_H

#include <math.h>
#include <stddef.h>

// the largest n the elimination below takes; above it callers use LAPACK
#define DENSE_LU_MAX 96

// x := J^-1 x, J (n x n, row-major) destroyed; pivots: the row of largest |entry| in the column,
// the first of equals (LAPACK's idamax rule); returns 1 when a pivot is zero (singular)
static inline int dense_lu_solve(int n, double* J, double* x) {
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int r = k + 1; r < n; r++)
      if (fabs(J[(size_t)r * n + k]) > fabs(J[(size_t)p * n + k])) p = r;
    if (!(fabs(J[(size_t)p * n + k]) > 0)) return 1;
    if (p != k) {
      for (int q = k; q < n; q++) {
        double t = J[(size_t)k * n + q];
        J[(size_t)k * n + q] = J[(size_t)p * n + q];
        J[(size_t)p * n + q] = t;
      }
      double t = x[k];
      x[k] = x[p];
      x[p] = t;
    }
    const double* jk = J + (size_t)k * n;
    double piv = jk[k];
    for (int r = k + 1; r < n; r++) {
      double* jr = J + (size_t)r * n;
      double f = jr[k] / piv;
      if (f == 0) continue;
      for (int q = k + 1; q < n; q++) jr[q] -= f * jk[q];
      x[r] -= f * x[k];
    }
  }
  for (int k = n - 1; k >= 0; k--) {
    const double* jk = J + (size_t)k * n;
    double acc = x[k];
    for (int q = k + 1; q < n; q++) acc -= jk[q] * x[q];
    x[k] = acc / jk[k];
  }
  return 0;
}

#endif  // CSIM_CORE_SOLVERS_DENSE_LU_H
