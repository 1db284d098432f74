// fclib.c — FCLib HDF5 problems: reader (local and condensed global), writer, Siconos error
// (see fclib.h for the layout and conventions).
#include "out/fclib.h"

#include <errno.h>
#include <float.h>
#include <hdf5.h>
#include <lapacke.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "out/h5err.h"
#include "out/h5guard.h"

#define MAX_ELEMENTS ((hssize_t)1 << 28)  // largest dataset read (2 GiB of doubles)
#define MAX_DOFS 10000000                 // largest global M
#define MAX_BLOCK 8000                    // largest connected block of M factored densely
#define M_SYM_TOL 1e-8                    // |M - M'| allowed, relative to max |M|

// per contact, FCLib component f ([n t1 t2]) goes to csim component kToCsim[f] ([t1 t2 n])
static const int kToCsim[3] = {2, 0, 1};

// csim index of FCLib index k (same contact, permuted component)
static int to_csim(int k) {
  return 3 * (k / 3) + kToCsim[k % 3];
}

// name of a storage flag (fclib.h)
const char* fclib_storage_name(fclib_storage s) {
  switch (s) {
    case FCLIB_CSC: return "CSC";
    case FCLIB_CSR: return "CSR";
    case FCLIB_TRIPLET:
    default: return "triplet";
  }
}

//---- reading context and HDF5 helpers ----

// what every reading helper needs: the open file, its name for messages, the error record
typedef struct {
  const char* path;
  hid_t fid;
  csim_error* err;
} rd;

// an input error on dataset key of the file being read, with HDF5's innermost message if any
static csim_status fail(const rd* c, const char* key, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static csim_status fail(const rd* c, const char* key, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  csim_status st = h5err_vfail(c->err, CSIM_ERR_INPUT, c->path, key, fmt, ap);
  va_end(ap);
  return st;
}

// close an HDF5 handle when valid
static void h5close(herr_t (*fn)(hid_t), hid_t id) {
  if (id >= 0) fn(id);
}

// 1 when every component of the absolute path exists as a link, else 0
static int exists(hid_t fid, const char* path) {
  char buf[512];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof(buf)) return 0;
  memcpy(buf, path, n + 1);
  for (size_t k = 1; k <= n; k++) {
    if (buf[k] != '/' && buf[k] != '\0') continue;
    char save = buf[k];
    buf[k] = '\0';
    htri_t e = H5Lexists(fid, buf, H5P_DEFAULT);
    buf[k] = save;
    if (e <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return 0;
    }
  }
  return 1;
}

// 1 when path exists and is a group
static int is_group(hid_t fid, const char* path) {
  if (!exists(fid, path)) return 0;
  hid_t g = H5Gopen2(fid, path, H5P_DEFAULT);
  if (g < 0) {
    H5Eclear2(H5E_DEFAULT);
    return 0;
  }
  H5Gclose(g);
  return 1;
}

// read a whole numeric dataset (any rank) as native int (is_int) or double; *out is malloc'd
// (at least one element) and *n receives the element count; doubles must be finite
static csim_status read_array(const rd* c, const char* key, int is_int, void** out, long* n) {
  *out = NULL;
  *n = 0;
  if (!exists(c->fid, key)) return fail(c, key, "missing dataset");
  hid_t d = H5Dopen2(c->fid, key, H5P_DEFAULT);
  if (d < 0) return fail(c, key, "cannot open as a dataset");
  hid_t t = H5Dget_type(d), s = H5Dget_space(d);
  csim_status st = CSIM_OK;
  char why[160];
  H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  hssize_t np = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
  if (t < 0 || s < 0 || np < 0) {
    st = fail(c, key, "cannot read the dataset's type or shape (file truncated or corrupted?)");
  } else if (is_int && cls != H5T_INTEGER) {
    st = fail(c, key, "expected integers, found a dataset of HDF5 class %d", (int)cls);
  } else if (!is_int && cls != H5T_FLOAT && cls != H5T_INTEGER) {
    st = fail(c, key, "expected numbers, found a dataset of HDF5 class %d%s", (int)cls,
              cls == H5T_STRING ? " (string)" : "");
  } else if (H5Tget_size(t) == 0 || H5Tget_size(t) > 8 ||
             (cls == H5T_FLOAT && H5Tget_size(t) != 4 && H5Tget_size(t) != 8)) {
    // a corrupted datatype can claim gigabytes per element: refused before any read
    st = fail(c, key, "element size %zu bytes: expected 1-8 byte integers or 4/8 byte floats",
              H5Tget_size(t));
  } else if (np > MAX_ELEMENTS) {
    st = fail(c, key, "%lld elements: more than csim reads (%lld)", (long long)np,
              (long long)MAX_ELEMENTS);
  } else if (!h5guard_dset_ok(d, why, sizeof(why))) {  // HDF5 1.10 would crash reading it
    st = fail(c, key, "corrupted: %s", why);
  }
  void* buf = NULL;
  if (st == CSIM_OK) {
    size_t es = is_int ? sizeof(int) : sizeof(double);
    buf = calloc((size_t)(np > 0 ? np : 1), es);
    if (!buf) {
      st = err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, key, "out of memory (%lld elements)",
                   (long long)np);
    } else if (np > 0 && H5Dread(d, is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, H5S_ALL,
                                 H5S_ALL, H5P_DEFAULT, buf) < 0) {
      st = fail(c, key, "cannot read %lld values (file truncated or corrupted?)", (long long)np);
    }
  }
  if (st == CSIM_OK && !is_int) {
    const double* x = buf;
    for (hssize_t k = 0; k < np; k++)
      if (!isfinite(x[k])) {
        st = fail(c, key, "value %lld is %g: expected a finite number", (long long)k, x[k]);
        break;
      }
  }
  h5close(H5Tclose, t);
  h5close(H5Sclose, s);
  H5Dclose(d);
  if (st != CSIM_OK) {
    free(buf);
    return st;
  }
  *out = buf;
  *n = (long)np;
  return CSIM_OK;
}

// read a one-element integer dataset
static csim_status read_int(const rd* c, const char* key, int* v) {
  void* buf;
  long n;
  csim_status st = read_array(c, key, 1, &buf, &n);
  if (st != CSIM_OK) return st;
  if (n != 1) {
    free(buf);
    return fail(c, key, "expected one integer, found %ld values", n);
  }
  *v = *(int*)buf;
  free(buf);
  return CSIM_OK;
}

// read a vector of doubles of length want (want < 0: any length, returned in *n)
static csim_status read_vec(const rd* c, const char* key, long want, double** out, long* n) {
  void* buf;
  long got;
  *out = NULL;
  csim_status st = read_array(c, key, 0, &buf, &got);
  if (st != CSIM_OK) return st;
  if (want >= 0 && got != want) {
    free(buf);
    return fail(c, key, "expected %ld values, found %ld", want, got);
  }
  *out = buf;
  if (n) *n = got;
  return CSIM_OK;
}

//---- sparse matrices ----

// a sparse matrix as a list of (row, col, value) entries; duplicates are summed by the users
typedef struct {
  int m, n;               // rows, columns
  fclib_storage storage;  // how the file stored it
  long nnz;               // entries
  int* row;               // (nnz)
  int* col;               // (nnz)
  double* val;            // (nnz)
} coo;

// release a sparse matrix's arrays
static void coo_free(coo* a) {
  free(a->row);
  free(a->col);
  free(a->val);
  memset(a, 0, sizeof(*a));
}

// read the sparse matrix group grp ("/fclib_local/W", ...) with at most max_dim rows/columns
static csim_status read_sparse(const rd* c, const char* grp, int max_dim, coo* a) {
  memset(a, 0, sizeof(*a));
  char key[5][96];
  const char* names[5] = {"m", "n", "nz", "p", "i"};
  for (int k = 0; k < 5; k++) snprintf(key[k], sizeof(key[k]), "%s/%s", grp, names[k]);
  char xkey[96];
  snprintf(xkey, sizeof(xkey), "%s/x", grp);
  if (!is_group(c->fid, grp)) return fail(c, grp, "missing sparse-matrix group");
  int m, n, nz;
  csim_status st;
  if ((st = read_int(c, key[0], &m)) || (st = read_int(c, key[1], &n)) ||
      (st = read_int(c, key[2], &nz)))
    return st;
  if (m < 0 || m > max_dim) return fail(c, key[0], "%d rows: expected 0 to %d", m, max_dim);
  if (n < 0 || n > max_dim) return fail(c, key[1], "%d columns: expected 0 to %d", n, max_dim);
  if (nz < -2)
    return fail(c, key[2], "storage flag %d: expected -1 (CSC), -2 (CSR) or a triplet count >= 0",
                nz);
  int *p = NULL, *ix = NULL;
  double* x = NULL;
  long np, ni, nx;
  if ((st = read_array(c, key[3], 1, (void**)&p, &np)) ||
      (st = read_array(c, key[4], 1, (void**)&ix, &ni)) ||
      (st = read_array(c, xkey, 0, (void**)&x, &nx))) {
    free(p);
    free(ix);
    free(x);
    return st;
  }
  a->m = m;
  a->n = n;
  a->storage = nz >= 0 ? FCLIB_TRIPLET : (fclib_storage)nz;
  long nnz = 0;
  if (nz >= 0) {  // triplet: i = row, p = column
    nnz = nz;
    if (np < nnz || ni < nnz || nx < nnz)
      st = fail(c, grp, "triplet with nz = %d entries but p, i, x hold %ld, %ld, %ld", nz, np, ni,
                nx);
  } else {  // compressed: p has outer + 1 pointers
    int outer = nz == FCLIB_CSC ? n : m;
    if (np < (long)outer + 1) {
      st = fail(c, key[3], "%s with %d %s needs %d pointers, found %ld", fclib_storage_name(nz),
                outer, nz == FCLIB_CSC ? "columns" : "rows", outer + 1, np);
    } else if (p[0] != 0) {
      st = fail(c, key[3], "first pointer is %d, expected 0", p[0]);
    } else {
      for (int k = 0; k < outer && st == CSIM_OK; k++)
        if (p[k + 1] < p[k])
          st = fail(c, key[3], "pointers decrease at %d (%d then %d)", k, p[k], p[k + 1]);
      nnz = st == CSIM_OK ? p[outer] : 0;
      if (st == CSIM_OK && (ni < nnz || nx < nnz))
        st = fail(c, grp, "pointers announce %ld entries but i and x hold %ld and %ld", nnz, ni,
                  nx);
    }
  }
  if (st == CSIM_OK) {
    a->nnz = nnz;
    a->row = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    a->col = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    a->val = malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
    if (!a->row || !a->col || !a->val)
      st = err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, grp, "out of memory");
  }
  // entries, with every index checked against the shape
  if (st == CSIM_OK) {
    if (nz >= 0) {
      for (long k = 0; k < nnz && st == CSIM_OK; k++) {
        a->row[k] = ix[k];
        a->col[k] = p[k];
        a->val[k] = x[k];
        if (ix[k] < 0 || ix[k] >= m)
          st = fail(c, key[4], "entry %ld has row %d: expected 0 to %d", k, ix[k], m - 1);
        else if (p[k] < 0 || p[k] >= n)
          st = fail(c, key[3], "entry %ld has column %d: expected 0 to %d", k, p[k], n - 1);
      }
    } else {
      int outer = nz == FCLIB_CSC ? n : m, inner = nz == FCLIB_CSC ? m : n;
      for (int o = 0; o < outer && st == CSIM_OK; o++)
        for (int k = p[o]; k < p[o + 1] && st == CSIM_OK; k++) {
          if (ix[k] < 0 || ix[k] >= inner) {
            st = fail(c, key[4], "entry %d has %s index %d: expected 0 to %d", k,
                      nz == FCLIB_CSC ? "row" : "column", ix[k], inner - 1);
            break;
          }
          a->row[k] = nz == FCLIB_CSC ? ix[k] : o;
          a->col[k] = nz == FCLIB_CSC ? o : ix[k];
          a->val[k] = x[k];
        }
    }
  }
  free(p);
  free(ix);
  free(x);
  if (st != CSIM_OK) coo_free(a);
  return st;
}

//---- global -> local condensation ----

// union-find root with path halving
static int uf_find(int* parent, int k) {
  while (parent[k] != k) {
    parent[k] = parent[parent[k]];
    k = parent[k];
  }
  return k;
}

// W = H' M^-1 H and q = H' M^-1 f + w in FCLib order (Wf: m x m row-major, zeroed by the
// caller), factoring M per connected block of its sparsity graph (see fclib.h)
static csim_status condense(const rd* c, const coo* M, const coo* H, const double* f,
                            const double* w, double* Wf, double* qf) {
  int n = M->n, m = H->n;
  csim_status st = CSIM_OK;
  // a triangle stored alone is the half of a symmetric matrix
  long nlow = 0, nup = 0;
  double mmax = 0;
  for (long k = 0; k < M->nnz; k++) {
    if (M->row[k] > M->col[k]) nlow++;
    if (M->row[k] < M->col[k]) nup++;
    if (fabs(M->val[k]) > mmax) mmax = fabs(M->val[k]);
  }
  int mirror = (nlow == 0) != (nup == 0);

  int* parent = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  int* start = calloc((size_t)n + 2, sizeof(int));   // block b: dofs order[start[b]..start[b+1])
  int* order = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  int* block = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));   // dof -> block
  int* local = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));   // dof -> index in its block
  long* estart = calloc((size_t)n + 2, sizeof(long));           // M entries by block
  long* eorder = malloc(sizeof(long) * (size_t)(M->nnz > 0 ? M->nnz : 1));
  int* hptr = calloc((size_t)n + 2, sizeof(int));               // H entries by row (CSR)
  long* hord = malloc(sizeof(long) * (size_t)(H->nnz > 0 ? H->nnz : 1));
  int* colmark = malloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
  int* cols = malloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
  double* x = calloc((size_t)n + 1, sizeof(double));
  if (!parent || !start || !order || !block || !local || !estart || !eorder || !hptr || !hord ||
      !colmark || !cols || !x) {
    st = err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, "/fclib_global/M", "out of memory");
    goto done;
  }

  // blocks: connected components of the graph of M's non-zero off-diagonal entries
  for (int k = 0; k < n; k++) parent[k] = k;
  for (long k = 0; k < M->nnz; k++)
    if (M->row[k] != M->col[k] && M->val[k] != 0) {
      int a = uf_find(parent, M->row[k]), b = uf_find(parent, M->col[k]);
      if (a != b) parent[a < b ? b : a] = a < b ? a : b;
    }
  int nb = 0;
  for (int k = 0; k < n; k++) {  // roots are the smallest dof of their block: number in order
    int r = uf_find(parent, k);
    block[k] = r == k ? nb++ : block[r];
  }
  for (int k = 0; k < n; k++) start[block[k] + 1]++;
  for (int b = 0; b < nb; b++) start[b + 1] += start[b];
  for (int k = 0; k < n; k++) parent[k] = 0;  // parent reused as fill counts per block
  for (int k = 0; k < n; k++) {
    int b = block[k];
    local[k] = parent[b]++;
    order[start[b] + local[k]] = k;
  }
  int kmax = 0;
  for (int b = 0; b < nb; b++)
    if (start[b + 1] - start[b] > kmax) kmax = start[b + 1] - start[b];
  if (kmax > MAX_BLOCK) {
    st = fail(c, "/fclib_global/M", "a coupled block of M has %d dofs: more than csim factors "
              "densely (%d)", kmax, MAX_BLOCK);
    goto done;
  }
  // M entries grouped by block, H entries grouped by row
  for (long k = 0; k < M->nnz; k++) estart[block[M->row[k]] + 1]++;
  for (int b = 0; b < nb; b++) estart[b + 1] += estart[b];
  for (long k = 0; k < M->nnz; k++) eorder[estart[block[M->row[k]]]++] = k;
  for (int b = nb; b > 0; b--) estart[b] = estart[b - 1];  // undo the shift
  estart[0] = 0;
  for (long k = 0; k < H->nnz; k++) hptr[H->row[k] + 1]++;
  for (int r = 0; r < n; r++) hptr[r + 1] += hptr[r];
  for (long k = 0; k < H->nnz; k++) hord[hptr[H->row[k]]++] = k;
  for (int r = n; r > 0; r--) hptr[r] = hptr[r - 1];
  hptr[0] = 0;
  for (int j = 0; j < m; j++) colmark[j] = -1;

  double* Mb = malloc(sizeof(double) * (size_t)kmax * (size_t)kmax + sizeof(double));
  if (!Mb) {
    st = err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, "/fclib_global/M", "out of memory");
    goto done;
  }
  for (int b = 0; b < nb && st == CSIM_OK; b++) {
    int k0 = start[b], kb = start[b + 1] - k0;
    // dense block of M (mirrored when one triangle is stored)
    memset(Mb, 0, sizeof(double) * (size_t)kb * (size_t)kb);
    for (long e = estart[b]; e < estart[b + 1]; e++) {
      long k = eorder[e];
      int i = local[M->row[k]], j = local[M->col[k]];
      Mb[(size_t)i * kb + j] += M->val[k];
      if (mirror && i != j) Mb[(size_t)j * kb + i] += M->val[k];
    }
    if (!mirror) {  // both triangles stored: they must agree
      for (int i = 0; i < kb && st == CSIM_OK; i++)
        for (int j = 0; j < i; j++) {
          double d = fabs(Mb[(size_t)i * kb + j] - Mb[(size_t)j * kb + i]);
          if (d > M_SYM_TOL * mmax) {
            st = fail(c, "/fclib_global/M", "M is not symmetric: |M(%d,%d) - M(%d,%d)| = %g "
                      "(max |M| %g)", order[k0 + i], order[k0 + j], order[k0 + j],
                      order[k0 + i], d, mmax);
            break;
          }
        }
      if (st != CSIM_OK) break;
    }
    // Cholesky M_b = L L' (lower triangle, row-major)
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', kb, Mb, kb);
    if (info != 0) {
      st = fail(c, "/fclib_global/M", "M is not positive definite (Cholesky failed in the block "
                "of %d dofs containing dof %d)", kb, order[k0]);
      break;
    }
    // x_b = M_b^-1 f_b
    double* xb = malloc(sizeof(double) * (size_t)kb);
    if (!xb) {
      st = err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, "/fclib_global/M", "out of memory");
      break;
    }
    for (int i = 0; i < kb; i++) xb[i] = f[order[k0 + i]];
    LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', kb, 1, Mb, kb, xb, 1);
    for (int i = 0; i < kb; i++) x[order[k0 + i]] = xb[i];
    free(xb);
    // the columns of H this block touches
    int na = 0;
    for (int i = 0; i < kb; i++) {
      int r = order[k0 + i];
      for (int e = hptr[r]; e < hptr[r + 1]; e++) {
        int j = H->col[hord[e]];
        if (colmark[j] < 0) {
          colmark[j] = na;
          cols[na++] = j;
        }
      }
    }
    if (na > 0) {
      // Y = L^-1 H_b (kb x na), then W(cols, cols) += Y'Y
      double* Y = calloc((size_t)kb * (size_t)na, sizeof(double));
      if (!Y) {
        st = err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, "/fclib_global/H", "out of memory");
        break;
      }
      for (int i = 0; i < kb; i++) {
        int r = order[k0 + i];
        for (int e = hptr[r]; e < hptr[r + 1]; e++) {
          long k = hord[e];
          Y[(size_t)i * na + colmark[H->col[k]]] += H->val[k];
        }
      }
      LAPACKE_dtrtrs(LAPACK_ROW_MAJOR, 'L', 'N', 'N', kb, na, Mb, kb, Y, na);
      for (int a = 0; a < na; a++)
        for (int bb = 0; bb <= a; bb++) {
          double s = 0;
          for (int i = 0; i < kb; i++) s += Y[(size_t)i * na + a] * Y[(size_t)i * na + bb];
          Wf[(size_t)cols[a] * m + cols[bb]] += s;
          if (bb != a) Wf[(size_t)cols[bb] * m + cols[a]] += s;
        }
      free(Y);
    }
    for (int a = 0; a < na; a++) colmark[cols[a]] = -1;
  }
  free(Mb);
  // q = H' x + w
  if (st == CSIM_OK) {
    for (int j = 0; j < m; j++) qf[j] = w[j];
    for (long k = 0; k < H->nnz; k++) qf[H->col[k]] += H->val[k] * x[H->row[k]];
  }
done:
  free(parent);
  free(start);
  free(order);
  free(block);
  free(local);
  free(estart);
  free(eorder);
  free(hptr);
  free(hord);
  free(colmark);
  free(cols);
  free(x);
  return st;
}

//---- reader ----

void fclib_free(fclib_problem* p) {
  if (!p) return;
  solver_blocks_free(p->blocks);
  free(p->q);
  free(p->mu);
  free(p->R);
  free(p->r);
  free(p);
}

// read /<root>/vectors/mu and spacedim; sets p->nc and p->mu
static csim_status read_mu(const rd* c, const char* root, fclib_problem* p) {
  char key[96];
  int dim;
  snprintf(key, sizeof(key), "%s/spacedim", root);
  csim_status st = read_int(c, key, &dim);
  if (st != CSIM_OK) return st;
  if (dim != 3) return fail(c, key, "spacedim is %d: csim solves 3-D problems only", dim);
  snprintf(key, sizeof(key), "%s/vectors/mu", root);
  long n;
  if ((st = read_vec(c, key, -1, &p->mu, &n))) return st;
  if (3 * n > FCLIB_MAX_ROWS)
    return fail(c, key, "%ld contacts: more than csim reads (%d)", n, FCLIB_MAX_ROWS / 3);
  for (long k = 0; k < n; k++)
    if (p->mu[k] < 0) return fail(c, key, "mu[%ld] = %g: expected >= 0", k, p->mu[k]);
  p->nc = (int)n;
  return CSIM_OK;
}

// the solvers' blocks of W from its entries (FCLib order rows/cols, values summed over
// duplicates; csim order inside each block): every block with an entry, every diagonal block.
// Row i's blocks are found with a marker per block column (O(nnz + nc) besides the sort of each
// row's columns), never a dense W
static csim_status blocks_from_coo(const rd* c, const coo* W, int nc, solver_blocks** out) {
  *out = NULL;
  size_t nn = (size_t)(nc > 0 ? nc : 1);
  int* cnt = calloc(nn + 1, sizeof(int));    // entries per block row, then offsets
  int* ord = calloc((size_t)W->nnz + 1, sizeof(int));  // entries by block row
  int* mark = calloc(nn, sizeof(int));       // block column -> last row seen (+1), then slot
  int* slot = calloc(nn, sizeof(int));
  csim_status st = CSIM_OK;
  if (!cnt || !ord || !mark || !slot)
    st = err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, NULL, "out of memory");
  long nb = 0;
  if (st == CSIM_OK) {
    for (long k = 0; k < W->nnz; k++) cnt[W->row[k] / 3 + 1]++;
    for (int i = 0; i < nc; i++) cnt[i + 1] += cnt[i];
    for (long k = 0; k < W->nnz; k++) ord[cnt[W->row[k] / 3]++] = (int)k;
    for (int i = nc; i > 0; i--) cnt[i] = cnt[i - 1];
    cnt[0] = 0;
    // distinct block columns per row, the diagonal included
    for (int i = 0; i < nc; i++) {
      mark[i] = i + 1;  // rows are 1-based in mark so 0 means "never"
      nb++;
      for (int e = cnt[i]; e < cnt[i + 1]; e++) {
        int j = W->col[ord[e]] / 3;
        if (mark[j] != i + 1) {
          mark[j] = i + 1;
          nb++;
        }
      }
    }
    st = solver_blocks_create(nc, nb, out, c->err);
  }
  if (st == CSIM_OK) {
    solver_blocks* b = *out;
    b->nc = nc;
    memset(mark, 0, sizeof(int) * nn);
    int k = 0;
    for (int i = 0; i < nc; i++) {
      b->rowptr[i] = k;
      // the row's block columns, ascending (insertion into the sorted tail: rows are short)
      int n = 0;
      mark[i] = i + 1;
      b->col[k + n++] = i;
      for (int e = cnt[i]; e < cnt[i + 1]; e++) {
        int j = W->col[ord[e]] / 3;
        if (mark[j] == i + 1) continue;
        mark[j] = i + 1;
        int q = n++;
        while (q > 0 && b->col[k + q - 1] > j) {
          b->col[k + q] = b->col[k + q - 1];
          q--;
        }
        b->col[k + q] = j;
      }
      for (int q = 0; q < n; q++) {
        slot[b->col[k + q]] = k + q;
        if (b->col[k + q] == i) b->diag[i] = k + q;
        memset(b->blk + 9 * (size_t)(k + q), 0, 9 * sizeof(double));
      }
      for (int e = cnt[i]; e < cnt[i + 1]; e++) {
        long t = ord[e];
        int r = to_csim(W->row[t]) % 3, cc = to_csim(W->col[t]) % 3;
        b->blk[9 * (size_t)slot[W->col[t] / 3] + 3 * r + cc] += W->val[t];
      }
      k += n;
    }
    b->rowptr[nc] = k;
    b->nblocks = k;
    solver_blocks_islands(b);
  }
  free(cnt);
  free(ord);
  free(mark);
  free(slot);
  return st;
}

// the local problem at /fclib_local: W in csim order
static csim_status read_local(const rd* c, fclib_problem* p) {
  csim_status st = read_mu(c, "/fclib_local", p);
  if (st != CSIM_OK) return st;
  const char* unsupported[3] = {"/fclib_local/V", "/fclib_local/R", "/fclib_local/vectors/s"};
  for (int k = 0; k < 3; k++)
    if (exists(c->fid, unsupported[k]))
      return fail(c, unsupported[k], "mixed problems with equality constraints (V, R, s) are "
                  "not supported");
  coo W;
  if ((st = read_sparse(c, "/fclib_local/W", FCLIB_MAX_ROWS, &W))) return st;
  int N = 3 * p->nc;
  if (W.m != W.n) st = fail(c, "/fclib_local/W", "W is %d x %d: expected a square matrix", W.m, W.n);
  else if (W.m != N)
    st = fail(c, "/fclib_local/W", "W is %d x %d but vectors/mu has %d entries: expected "
              "%d = 3 x contacts rows", W.m, W.n, p->nc, N);
  double* qf = NULL;
  if (st == CSIM_OK) st = read_vec(c, "/fclib_local/vectors/q", N, &qf, NULL);
  if (st == CSIM_OK) {
    p->q = calloc((size_t)N + 1, sizeof(double));
    if (!p->q) st = err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, NULL, "out of memory");
  }
  if (st == CSIM_OK) st = blocks_from_coo(c, &W, p->nc, &p->blocks);
  if (st == CSIM_OK) {
    for (int k = 0; k < N; k++) p->q[to_csim(k)] = qf[k];
    p->storage = W.storage;
    p->nnz = W.nnz;
  }
  free(qf);
  coo_free(&W);
  return st;
}

// the global problem at /fclib_global, condensed to W = H' M^-1 H, q = H' M^-1 f + w
static csim_status read_global(const rd* c, fclib_problem* p) {
  csim_status st = read_mu(c, "/fclib_global", p);
  if (st != CSIM_OK) return st;
  if (exists(c->fid, "/fclib_global/G"))
    return fail(c, "/fclib_global/G", "global problems with equality constraints (G, b) are "
                "not supported");
  coo M, H;
  memset(&H, 0, sizeof(H));
  if ((st = read_sparse(c, "/fclib_global/M", MAX_DOFS, &M))) return st;
  int N = 3 * p->nc;
  if (M.m != M.n) st = fail(c, "/fclib_global/M", "M is %d x %d: expected a square matrix", M.m, M.n);
  if (st == CSIM_OK) st = read_sparse(c, "/fclib_global/H", MAX_DOFS, &H);
  if (st == CSIM_OK && (H.m != M.m || H.n != N))
    st = fail(c, "/fclib_global/H", "H is %d x %d: expected %d x %d (rows of M x 3 x contacts "
              "from vectors/mu)", H.m, H.n, M.m, N);
  double *f = NULL, *w = NULL, *Wf = NULL, *qf = NULL;
  if (st == CSIM_OK) st = read_vec(c, "/fclib_global/vectors/f", M.m, &f, NULL);
  if (st == CSIM_OK) st = read_vec(c, "/fclib_global/vectors/w", N, &w, NULL);
  if (st == CSIM_OK) {
    Wf = calloc((size_t)N * (size_t)N + 1, sizeof(double));
    qf = calloc((size_t)N + 1, sizeof(double));
    p->q = calloc((size_t)N + 1, sizeof(double));
    if (!Wf || !qf || !p->q)
      st = err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, NULL, "out of memory");
  }
  if (st == CSIM_OK) st = condense(c, &M, &H, f, w, Wf, qf);
  if (st == CSIM_OK) {
    for (int i = 0; i < N; i++) p->q[to_csim(i)] = qf[i];
    // the condensed W is dense here (H' M^-1 H by blocks of M); its nonzero entries become the
    // solvers' blocks through the triplet path of local problems
    coo T = {N, N, FCLIB_TRIPLET, 0, NULL, NULL, NULL};
    size_t nz = 0;
    for (size_t k = 0; k < (size_t)N * (size_t)N; k++) nz += Wf[k] != 0;
    T.row = malloc(sizeof(int) * (nz + 1));
    T.col = malloc(sizeof(int) * (nz + 1));
    T.val = malloc(sizeof(double) * (nz + 1));
    if (!T.row || !T.col || !T.val) {
      st = err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, NULL, "out of memory");
    } else {
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          if (Wf[(size_t)i * N + j] != 0) {
            T.row[T.nnz] = i;
            T.col[T.nnz] = j;
            T.val[T.nnz++] = Wf[(size_t)i * N + j];
          }
      st = blocks_from_coo(c, &T, p->nc, &p->blocks);
    }
    coo_free(&T);
  }
  if (st == CSIM_OK) {
    p->global = 1;
    p->ndof = M.m;
    p->storage = H.storage;
    p->nnz = H.nnz;
  }
  free(f);
  free(w);
  free(Wf);
  free(qf);
  coo_free(&M);
  coo_free(&H);
  return st;
}

// optional vectors of length 3nc in FCLib order -> csim order (NULL when absent)
static csim_status read_optional(const rd* c, const char* key, int N, double** out) {
  *out = NULL;
  if (!exists(c->fid, key)) return CSIM_OK;
  double* v;
  csim_status st = read_vec(c, key, N, &v, NULL);
  if (st != CSIM_OK) return st;
  double* o = malloc(sizeof(double) * (size_t)(N > 0 ? N : 1));
  if (!o) {
    free(v);
    return err_set(c->err, CSIM_ERR_RUN, c->path, 0, 0, key, "out of memory");
  }
  for (int k = 0; k < N; k++) o[to_csim(k)] = v[k];
  free(v);
  *out = o;
  return CSIM_OK;
}

// HDF5's own error printing, off while csim reports the errors itself, then restored
typedef struct {
  H5E_auto2_t fn;
  void* data;
} h5_quiet;

static h5_quiet h5_quiet_begin(void) {
  h5_quiet q = {NULL, NULL};
  H5Eget_auto2(H5E_DEFAULT, &q.fn, &q.data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return q;
}

static void h5_quiet_end(const h5_quiet* q) { H5Eset_auto2(H5E_DEFAULT, q->fn, q->data); }

// open, dispatch on /fclib_local or /fclib_global, then the optional datasets and W's figures
// the reader itself; fclib_read runs it first in a probe child (h5guard_probe)
static csim_status read_file(const char* path, fclib_problem** out, csim_error* err) {
  *out = NULL;
  struct stat sb;
  if (stat(path, &sb) != 0)
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
  if (!S_ISREG(sb.st_mode))
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "not a regular file");
  FILE* fp = fopen(path, "rb");
  if (!fp) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
  fclose(fp);

  h5_quiet quiet = h5_quiet_begin();
  rd c = {path, -1, err};
  csim_status st = CSIM_OK;
  fclib_problem* p = NULL;
  htri_t is5 = H5Fis_hdf5(path);
  if (is5 <= 0) {
    H5Eclear2(H5E_DEFAULT);
    st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "not an HDF5 file");
    goto restore;
  }
  // strong close: closing the file closes whatever a failed read left open
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl >= 0) H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
  c.fid = H5Fopen(path, H5F_ACC_RDONLY, fapl >= 0 ? fapl : H5P_DEFAULT);
  h5close(H5Pclose, fapl);
  if (c.fid < 0) {
    st = fail(&c, NULL, "cannot open the HDF5 file (truncated or corrupted?)");
    goto restore;
  }
  p = calloc(1, sizeof(*p));
  if (!p) {
    st = err_set(err, CSIM_ERR_RUN, path, 0, 0, NULL, "out of memory");
    goto restore;
  }
  if (is_group(c.fid, "/fclib_local")) {
    st = read_local(&c, p);
  } else if (is_group(c.fid, "/fclib_global")) {
    st = read_global(&c, p);
  } else {
    st = fail(&c, "/fclib_local", "not an FCLib problem: no /fclib_local or /fclib_global group");
  }
  int N = 3 * p->nc;
  if (st == CSIM_OK) st = read_optional(&c, "/solution/r", N, &p->r);
  if (st == CSIM_OK) st = read_optional(&c, "/csim/R", N, &p->R);
  for (int k = 0; st == CSIM_OK && p->R && k < N; k++)
    if (p->R[k] < 0) st = fail(&c, "/csim/R", "R[%d] = %g: expected >= 0", k, p->R[k]);
  if (st == CSIM_OK) {
    // symmetry defect, scale and |q| over W's blocks (fclib.h: W is used as stored)
    double se = 0, am = 0, qq = 0;
    for (int i = 0; i < N; i++) qq += p->q[i] * p->q[i];
    const solver_blocks* b = p->blocks;
    solver_problem sp = fclib_solver_problem(p);
    for (int i = 0; i < p->nc; i++)
      for (int k = b->rowptr[i]; k < b->rowptr[i + 1]; k++) {
        int j = b->col[k];
        for (int r = 0; r < 3; r++)
          for (int t = 0; t < 3; t++) {
            double a = b->blk[9 * (size_t)k + 3 * r + t];
            if (fabs(a) > am) am = fabs(a);
            // against W(j, i) transposed (0 when that block is not stored)
            double d = fabs(a - solver_gentry(&sp, 3 * j + t, 3 * i + r));
            if (d > se) se = d;
          }
      }
    p->w_sym_err = se;
    p->w_absmax = am;
    p->q_norm = sqrt(qq);
  }
restore:
  if (c.fid >= 0) H5Fclose(c.fid);
  H5Eclear2(H5E_DEFAULT);
  h5_quiet_end(&quiet);
  if (st != CSIM_OK) {
    fclib_free(p);
    return st;
  }
  *out = p;
  return CSIM_OK;
}

// the whole read probed in a child first: corrupted metadata can crash HDF5 1.10.8 anywhere
static int probe_read(void* path) {
  fclib_problem* p = NULL;
  csim_error e;
  memset(&e, 0, sizeof(e));
  return read_file(path, &p, &e) == CSIM_OK ? 0 : 1;  // (the child's memory goes with it)
}

csim_status fclib_read(const char* path, fclib_problem** out, csim_error* err) {
  *out = NULL;
  char why[200];
  if (h5guard_probe(probe_read, (void*)path, why, sizeof(why)) == H5GUARD_CRASHED)
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL,
                   "corrupted HDF5 file: %s (reading it in a probe process)", why);
  return read_file(path, out, err);
}

// pointers into p, in the solver's layout
double fclib_w(const fclib_problem* p, int a, int b) {
  solver_problem sp = fclib_solver_problem(p);
  return solver_gentry(&sp, a, b);
}

solver_problem fclib_solver_problem(const fclib_problem* p) {
  return solver_blocks_problem(p->blocks, p->q, p->mu, p->R);
}

void fclib_scales(const fclib_problem* p, double* s_r, double* s_u) {
  const solver_blocks* b = p->blocks;
  double tr = 0;
  for (int i = 0; i < p->nc; i++)
    for (int a = 0; a < 3; a++) tr += b->blk[9 * (long)b->diag[i] + 4 * a];
  double wbar = p->nc > 0 ? tr / (3.0 * p->nc) : 0;
  if (!(wbar > 0) || !isfinite(wbar)) wbar = p->w_absmax > 0 ? p->w_absmax : 1;
  *s_u = p->q_norm > 0 && isfinite(p->q_norm) ? p->q_norm : 1;
  *s_r = *s_u / wbar;
}

solver_problem fclib_scaled_problem(const fclib_problem* p, double* blk, double* g, double* R,
                                    double* s_r, double* s_u) {
  fclib_scales(p, s_r, s_u);
  double w = *s_r / *s_u, iu = 1 / *s_u;
  const solver_blocks* b = p->blocks;
  for (long k = 0; k < 9 * b->nblocks; k++) blk[k] = b->blk[k] * w;
  for (int k = 0; k < 3 * p->nc; k++) {
    g[k] = p->q[k] * iu;
    if (p->R) R[k] = p->R[k] * w;
  }
  solver_problem v = solver_blocks_problem(b, g, p->mu, p->R ? R : NULL);
  v.blk = blk;
  return v;
}

//---- writer ----

// write a 1-D dataset of n elements (n may be 0) of native type mtype stored as ftype
static herr_t write_data(hid_t loc, const char* name, hid_t ftype, hid_t mtype, size_t n,
                         const void* buf) {
  hsize_t dim = n;
  hid_t s = H5Screate_simple(1, &dim, NULL);
  if (s < 0) return -1;
  hid_t d = H5Dcreate2(loc, name, ftype, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = d < 0 ? -1 : n == 0 ? 0 : H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  h5close(H5Dclose, d);
  H5Sclose(s);
  return rc;
}

// 1-element int32 dataset (FCLib's scalars)
static herr_t write_int(hid_t loc, const char* name, int v) {
  return write_data(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT, 1, &v);
}

// scalar fixed-length string dataset (as FCLib's H5LTmake_dataset_string)
static herr_t write_string(hid_t loc, const char* name, const char* text) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0) return -1;
  herr_t rc = H5Tset_size(t, strlen(text) + 1);
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t d = rc < 0 || s < 0 ? -1 : H5Dcreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  rc = d < 0 ? -1 : H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, text);
  h5close(H5Dclose, d);
  h5close(H5Sclose, s);
  H5Tclose(t);
  return rc;
}

csim_status fclib_write_local(const char* path, const solver_problem* p, const double* lambda,
                              fclib_storage storage, const char* title, const char* description,
                              csim_error* err) {
  int nc = p->nc, N = 3 * nc;
  // W in FCLib order, its non-zero count, and the vectors
  long nnz = 0;
  for (int a = 0; a < N; a++)
    for (int b = 0; b < N; b++) nnz += solver_gentry(p, a, b) != 0;
  int outer = storage == FCLIB_TRIPLET ? 0 : N;
  int* ptr = calloc((size_t)(storage == FCLIB_TRIPLET ? nnz : outer) + 1, sizeof(int));
  int* idx = calloc((size_t)nnz + 1, sizeof(int));
  double* val = calloc((size_t)nnz + 1, sizeof(double));
  double* vec = calloc(3 * (size_t)N + 1, sizeof(double));  // q, then r, then u
  if (!ptr || !idx || !val || !vec) {
    free(ptr);
    free(idx);
    free(val);
    free(vec);
    return err_set(err, CSIM_ERR_RUN, path, 0, 0, NULL, "out of memory");
  }
  // entries in the order of the storage: by rows (CSR, triplet) or by columns (CSC)
  long e = 0;
  for (int o = 0; o < N; o++) {
    for (int in = 0; in < N; in++) {
      int fr = storage == FCLIB_CSC ? in : o, fc = storage == FCLIB_CSC ? o : in;
      double v = solver_gentry(p, to_csim(fr), to_csim(fc));
      if (v == 0) continue;
      if (storage == FCLIB_TRIPLET) {
        idx[e] = fr;  // i = row, p = column (CSparse's convention)
        ptr[e] = fc;
      } else {
        idx[e] = in;
      }
      val[e++] = v;
    }
    if (storage != FCLIB_TRIPLET) ptr[o + 1] = (int)e;
  }
  double *q = vec, *r = vec + N, *u = vec + 2 * N;
  for (int k = 0; k < N; k++) q[k] = p->g[to_csim(k)];
  if (lambda) {
    for (int k = 0; k < N; k++) u[k] = p->g[k];  // csim order first, then permuted
    solver_gmul_add(p, lambda, u);
    for (int k = 0; k < N; k++) {
      r[k] = lambda[to_csim(k)];
      q[k] = u[k];  // q's slot as scratch: u in csim order
    }
    for (int k = 0; k < N; k++) u[k] = q[to_csim(k)];
    for (int k = 0; k < N; k++) q[k] = p->g[to_csim(k)];
  }

  h5_quiet quiet = h5_quiet_begin();
  rd c = {path, -1, err};
  csim_status st = CSIM_OK;
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t gl = -1, gw = -1, gv = -1, gi = -1, gs = -1, gc = -1;
  if (f < 0) {
    st = fail(&c, NULL, "cannot create the file");
  } else {
    herr_t rc = 0;
    gl = H5Gcreate2(f, "/fclib_local", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    gw = H5Gcreate2(f, "/fclib_local/W", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    gv = H5Gcreate2(f, "/fclib_local/vectors", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    gi = H5Gcreate2(f, "/fclib_local/info", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (gl < 0 || gw < 0 || gv < 0 || gi < 0) rc = -1;
    // exact lengths (0 for an empty problem); a triplet's p holds one column per entry
    size_t np = storage == FCLIB_TRIPLET ? (size_t)nnz : (size_t)outer + 1, nz = (size_t)nnz;
    size_t n3 = (size_t)N, n1 = (size_t)nc;
    if (rc >= 0) rc = write_int(gl, "spacedim", 3);
    if (rc >= 0) rc = write_int(gw, "m", N);
    if (rc >= 0) rc = write_int(gw, "n", N);
    if (rc >= 0) rc = write_int(gw, "nzmax", (int)nnz);
    if (rc >= 0) rc = write_int(gw, "nz", storage == FCLIB_TRIPLET ? (int)nnz : (int)storage);
    if (rc >= 0) rc = write_data(gw, "p", H5T_STD_I32LE, H5T_NATIVE_INT, np, ptr);
    if (rc >= 0) rc = write_data(gw, "i", H5T_STD_I32LE, H5T_NATIVE_INT, nz, idx);
    if (rc >= 0) rc = write_data(gw, "x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, nz, val);
    if (rc >= 0) rc = write_data(gv, "q", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n3, q);
    if (rc >= 0) rc = write_data(gv, "mu", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n1, p->mu);
    if (rc >= 0) rc = write_string(gi, "title", title ? title : "csim contact problem");
    if (rc >= 0)
      rc = write_string(gi, "description", description ? description : "written by csim");
    if (rc >= 0)
      rc = write_string(gi, "math_info", "u = W r + q, per contact [n t1 t2], r in the Coulomb "
                        "cone, De Saxce's u~ in its dual");
    if (rc >= 0 && lambda) {
      gs = H5Gcreate2(f, "/solution", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      if (gs < 0) rc = -1;
      if (rc >= 0) rc = write_data(gs, "r", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n3, r);
      if (rc >= 0) rc = write_data(gs, "u", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n3, u);
    }
    if (rc >= 0 && p->R) {  // csim's extension: diagonal compliance, FCLib order
      gc = H5Gcreate2(f, "/csim", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      if (gc < 0) rc = -1;
      for (int k = 0; k < N; k++) r[k] = p->R[to_csim(k)];
      if (rc >= 0) rc = write_data(gc, "R", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n3, r);
    }
    if (rc < 0) st = fail(&c, NULL, "cannot write the FCLib problem");
  }
  h5close(H5Gclose, gc);
  h5close(H5Gclose, gs);
  h5close(H5Gclose, gi);
  h5close(H5Gclose, gv);
  h5close(H5Gclose, gw);
  h5close(H5Gclose, gl);
  if (f >= 0 && H5Fclose(f) < 0 && st == CSIM_OK) st = fail(&c, NULL, "cannot close the file");
  H5Eclear2(H5E_DEFAULT);
  h5_quiet_end(&quiet);
  free(ptr);
  free(idx);
  free(val);
  free(vec);
  return st;
}

//---- Siconos's error ----

// Euclidean projection onto K_mu = {|x_T| <= mu x_N}, csim order [t1 t2 n] (README of
// ../shared/data/fclib: 0 in the polar cone, x inside, else the boundary ray)
static void project_cone(double out[3], const double x[3], double mu) {
  double t = sqrt(x[0] * x[0] + x[1] * x[1]), n = x[2];
  if (mu * t <= -n) {
    out[0] = out[1] = out[2] = 0;
  } else if (t <= mu * n) {
    out[0] = x[0];
    out[1] = x[1];
    out[2] = x[2];
  } else {
    double np = (mu * t + n) / (1 + mu * mu);
    out[0] = mu * np * x[0] / t;
    out[1] = mu * np * x[1] / t;
    out[2] = np;
  }
}

// fc3d_compute_error (README of ../shared/data/fclib), in csim's contact order
double fclib_siconos_error(const solver_problem* p, const double* lambda, double* abs_err) {
  double e2 = 0, qq = 0, rr = 0, uu = 0;
  for (int i = 0; i < p->nc; i++) {
    double u[3] = {p->g[3 * i], p->g[3 * i + 1], p->g[3 * i + 2]};
    solver_grow_add(p, i, lambda, u);
    for (int a = 0; a < 3; a++) {
      double acc = u[a];
      uu += acc * acc;
      qq += p->g[3 * i + a] * p->g[3 * i + a];
      rr += lambda[3 * i + a] * lambda[3 * i + a];
    }
    // natural map of De Saxce's SOCCP: e = r - P_K(r - u~), u~ = u + mu |u_T| e_N
    const double* r = lambda + 3 * i;
    double mu = p->mu[i];
    double x[3] = {r[0] - u[0], r[1] - u[1], r[2] - (u[2] + mu * sqrt(u[0] * u[0] + u[1] * u[1]))};
    double pk[3];
    project_cone(pk, x, mu);
    for (int a = 0; a < 3; a++) e2 += (r[a] - pk[a]) * (r[a] - pk[a]);
  }
  double abs = sqrt(e2);
  if (abs_err) *abs_err = abs;
  double scale = fmax(sqrt(qq), fmax(sqrt(rr), sqrt(uu)));
  return scale > DBL_EPSILON ? abs / scale : abs;
}
