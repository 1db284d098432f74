// compare.h — golden-output comparison of two csim HDF5 files (`csim compare A B`).
//
// Every dataset of both files is visited recursively (hard links, name order). Datasets are
// matched by path; a dataset present in one file only, a shape difference, or a type difference
// makes the files not comparable (bad input, result 2). Types differ when their class differs
// (integer / float / string / other) or, for numbers, their size or signedness differs; string
// datasets must also agree in fixed vs variable length (and size when fixed).
//
// Numeric datasets (integers and floats of any size) are read as double in row blocks and
// compared elementwise, numpy.allclose-style with B as the reference:
//     |a - b| <= atol + rtol * |b|
// Two NaNs are equal; a NaN against a number is a difference; equal infinities are equal.
// Defaults: rtol = 1e-9, atol = 1e-12 (a same-build rerun is bit-identical, so these only absorb
// last-digit noise from another compiler or libm, far below any physical signal).
// String datasets are compared exactly. Other types (compound, enum, opaque, array, bitfield) are
// compared byte for byte in their native memory layout; vlen sequences and references are bad
// input. Dataset attributes and all root attributes are ignored; /timing and everything under it
// is always ignored (wall-clock times differ between runs).
//
// A csim file is an HDF5 file whose root group has a `csim_version` attribute.
//
// Report (when report != NULL): a header line, one line per dataset
//     OK    /state/q  (1000, 19)  max abs 0  max rel 0
//     FAIL  /state/v  (1000, 18)  max abs 2.1e-06  max rel 3.4e-07  first at [12, 3]: A ... B ...
//     SHAPE /x  (10) vs (11)      MISSING /y  only in A      TYPE /z  float64 vs int32
// then "summary: N compared, N OK, N FAIL, N not comparable, N ignored (/timing)".
//
// cmp_files silences HDF5's automatic error printing for the process
// (H5Eset_auto(H5E_DEFAULT, NULL, NULL)), as rec_open does.
#ifndef CSIM_COMPARE_H
#define CSIM_COMPARE_H

#include <stdio.h>

#include "core/error.h"

#define CMP_DEFAULT_RTOL 1e-9
#define CMP_DEFAULT_ATOL 1e-12

typedef struct {
  double rtol;              // relative tolerance (>= 0)
  double atol;              // absolute tolerance (>= 0)
  const char* const* only;  // dataset paths or group prefixes to compare (nonly); NULL: all
  int nonly;                // entries in only (each must match at least one compared dataset)
} cmp_options;

// fill opt with the defaults: rtol 1e-9, atol 1e-12, all datasets
void cmp_options_default(cmp_options* opt);

// compare files a and b (b is the reference for rtol).
//   opt: NULL for the defaults
//   report: where to print the per-dataset report (NULL: no report)
//   err: the first bad-input problem when 2 is returned
// returns 0 when every compared dataset is within tolerance, 1 when some are not, 2 on bad input
// (missing/unreadable file, not HDF5, not a csim file, dataset in one file only, different shapes
// or types, invalid options, an --only entry that matches no compared dataset).
int cmp_files(const char* a, const char* b, const cmp_options* opt, FILE* report,
              csim_error* err);

// does dataset path `path` fall under selector `sel` (equal, or sel is a group prefix of it)?
// A selector without a leading '/' is taken as absolute; a trailing '/' is ignored.
int cmp_path_matches(const char* path, const char* sel);

#endif  // CSIM_COMPARE_H
