// compare.c — golden-output comparison of two csim HDF5 files (see compare.h).
#include "out/compare.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "out/h5guard.h"

// HDF5 1.12 renamed the link-visit callback info; 1.10 (Debian 12) has the 1.8 form
#if H5_VERSION_GE(1, 12, 0)
typedef H5L_info2_t link_info;
#define LINK_VISIT H5Lvisit2
#define VLEN_RECLAIM H5Treclaim
#else
typedef H5L_info_t link_info;
#define LINK_VISIT H5Lvisit
#define VLEN_RECLAIM H5Dvlen_reclaim
#endif

#define BLOCK_ELEMS ((size_t)1 << 18)   // numeric datasets are read in blocks of about this many
#define MAX_RANK 32                      // H5S_MAX_RANK

// sorted list of dataset paths of one file
typedef struct {
  char** paths;
  size_t n, cap;
  int oom;          // allocation failed during the visit
} path_list;

// kind of a dataset's element type, for matching and reading
typedef enum {
  KIND_INT,         // integer of any size
  KIND_FLOAT,       // floating point of any size
  KIND_STR_FIXED,   // fixed-length string
  KIND_STR_VLEN,    // variable-length string
  KIND_OTHER,       // compound, enum, opaque, array, bitfield: compared byte for byte
  KIND_UNSUPPORTED, // vlen sequences, references, time
} type_kind;

// one open dataset with its shape and type
typedef struct {
  hid_t id, space, type;
  int rank;
  hsize_t dims[MAX_RANK];
  type_kind kind;
} dset;

// element-wise result of one dataset pair
typedef struct {
  size_t n;             // elements compared
  double max_abs;       // max |a - b| (inf when a NaN meets a number or infinities differ)
  double max_rel;       // max |a - b| / |b|
  size_t nbad;          // elements out of tolerance
  size_t first;         // flat index of the first one
  double fa, fb;        // numeric values there
  char sa[48], sb[48];  // string values there (string datasets)
  int strings;          // 1 when the pair was compared as strings
} pair_stats;

// comparison state shared by the helpers
typedef struct {
  const char* a;        // file names
  const char* b;
  const cmp_options* opt;
  FILE* report;
  csim_error* err;
  int have_err;         // err already holds the first bad-input problem
  int pathw;            // report column width of dataset paths
} ctx;

// default options: rtol 1e-9, atol 1e-12, every dataset
void cmp_options_default(cmp_options* opt) {
  if (!opt) return;
  opt->rtol = CMP_DEFAULT_RTOL;
  opt->atol = CMP_DEFAULT_ATOL;
  opt->only = NULL;
  opt->nonly = 0;
}

// dataset path equal to the selector or inside the selected group
int cmp_path_matches(const char* path, const char* sel) {
  if (!path || !sel) return 0;
  // normalize: no leading or trailing '/'
  while (*path == '/') path++;
  while (*sel == '/') sel++;
  size_t n = strlen(sel);
  while (n > 0 && sel[n - 1] == '/') n--;
  if (n == 0) return 1;  // "/" selects everything
  if (strncmp(path, sel, n) != 0) return 0;
  return path[n] == '\0' || path[n] == '/';
}

// is path /timing or below it (always ignored)?
static int is_timing(const char* path) {
  return cmp_path_matches(path, "/timing");
}

// start a report line: status tag and dataset path in aligned columns
static void line_start(const ctx* c, const char* tag, const char* path) {
  fprintf(c->report, "%-7s %-*s", tag, c->pathw, path);
}

// record the first bad-input problem in ctx->err
static void bad_input(ctx* c, const char* file, const char* key, const char* msg) {
  if (c->have_err) return;
  err_set(c->err, CSIM_ERR_INPUT, file, 0, 0, key, "%s", msg);
  c->have_err = 1;
}

//---- file listing ----

// add "/name" to a path list
static int list_add(path_list* l, const char* name) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char** p = realloc(l->paths, cap * sizeof(*p));
    if (!p) return -1;
    l->paths = p;
    l->cap = cap;
  }
  size_t len = strlen(name);
  char* s = malloc(len + 2);
  if (!s) return -1;
  s[0] = '/';
  memcpy(s + 1, name, len + 1);
  l->paths[l->n++] = s;
  return 0;
}

// free a path list
static void list_free(path_list* l) {
  for (size_t i = 0; i < l->n; i++) free(l->paths[i]);
  free(l->paths);
  l->paths = NULL;
  l->n = l->cap = 0;
}

// H5Lvisit callback: keep hard links to datasets
static herr_t visit_link(hid_t g, const char* name, const link_info* info, void* data) {
  path_list* l = data;
  if (info->type != H5L_TYPE_HARD) return 0;
  hid_t o = H5Oopen(g, name, H5P_DEFAULT);
  if (o < 0) {
    H5Eclear2(H5E_DEFAULT);
    return 0;
  }
  H5I_type_t t = H5Iget_type(o);
  H5Oclose(o);
  if (t == H5I_DATASET && list_add(l, name) < 0) {
    l->oom = 1;
    return -1;
  }
  return 0;
}

// qsort comparator on path strings
static int path_cmp(const void* x, const void* y) {
  return strcmp(*(char* const*)x, *(char* const*)y);
}

// open a csim file read-only; -1 (err filled) when missing, not HDF5 or not csim
static hid_t open_csim(ctx* c, const char* path) {
  struct stat sb;
  char msg[512];
  // existence and readability before HDF5 sees it
  if (stat(path, &sb) != 0) {
    snprintf(msg, sizeof(msg), "cannot open file: %s", strerror(errno));
    bad_input(c, path, NULL, msg);
    return -1;
  }
  if (S_ISDIR(sb.st_mode)) {
    bad_input(c, path, NULL, "is a directory, expected an HDF5 file");
    return -1;
  }
  if (!S_ISREG(sb.st_mode)) {  // a FIFO would block, a device never end
    bad_input(c, path, NULL, "is not a regular file (a FIFO, socket or device), expected an HDF5 file");
    return -1;
  }
  FILE* fp = fopen(path, "rb");
  if (!fp) {
    snprintf(msg, sizeof(msg), "cannot read file: %s", strerror(errno));
    bad_input(c, path, NULL, msg);
    return -1;
  }
  fclose(fp);
  if (H5Fis_hdf5(path) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    bad_input(c, path, NULL, "not an HDF5 file");
    return -1;
  }
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    H5Eclear2(H5E_DEFAULT);
    bad_input(c, path, NULL, "cannot open HDF5 file (damaged, or open for writing elsewhere)");
    return -1;
  }
  // a csim file has the csim_version root attribute
  if (H5Aexists(f, "csim_version") <= 0) {
    H5Eclear2(H5E_DEFAULT);
    H5Fclose(f);
    bad_input(c, path, NULL, "not a csim output file (no 'csim_version' root attribute)");
    return -1;
  }
  return f;
}

// list and sort every dataset of an open file; -1 on failure (err filled)
static int list_datasets(ctx* c, hid_t f, const char* path, path_list* l) {
  herr_t rc = LINK_VISIT(f, H5_INDEX_NAME, H5_ITER_INC, visit_link, l);
  if (rc < 0 || l->oom) {
    H5Eclear2(H5E_DEFAULT);
    bad_input(c, path, NULL, l->oom ? "out of memory listing datasets" : "cannot list datasets");
    return -1;
  }
  qsort(l->paths, l->n, sizeof(*l->paths), path_cmp);
  return 0;
}

//---- one dataset ----

// classify an HDF5 type
static type_kind classify(hid_t t) {
  switch (H5Tget_class(t)) {
    case H5T_INTEGER: return KIND_INT;
    case H5T_FLOAT: return KIND_FLOAT;
    case H5T_STRING: return H5Tis_variable_str(t) > 0 ? KIND_STR_VLEN : KIND_STR_FIXED;
    case H5T_COMPOUND:
    case H5T_ENUM:
    case H5T_OPAQUE:
    case H5T_ARRAY:
    case H5T_BITFIELD:
      if (H5Tdetect_class(t, H5T_VLEN) > 0 || H5Tdetect_class(t, H5T_REFERENCE) > 0)
        return KIND_UNSUPPORTED;
      return KIND_OTHER;
    default: return KIND_UNSUPPORTED;
  }
}

// short human name of a type ("float64", "int32", "uint8", "string", "vlen string", ...)
static void type_name(hid_t t, type_kind k, char* buf, size_t n) {
  size_t sz = H5Tget_size(t);
  switch (k) {
    case KIND_INT:
      snprintf(buf, n, "%sint%zu", H5Tget_sign(t) == H5T_SGN_NONE ? "u" : "", 8 * sz);
      return;
    case KIND_FLOAT: snprintf(buf, n, "float%zu", 8 * sz); return;
    case KIND_STR_FIXED: snprintf(buf, n, "string[%zu]", sz); return;
    case KIND_STR_VLEN: snprintf(buf, n, "vlen string"); return;
    case KIND_OTHER: snprintf(buf, n, "opaque/compound (%zu bytes)", sz); return;
    case KIND_UNSUPPORTED: snprintf(buf, n, "unsupported type"); return;
  }
}

// do two types match (see compare.h)?
static int types_match(const dset* x, const dset* y) {
  if (x->kind != y->kind) return 0;
  switch (x->kind) {
    case KIND_INT:
      return H5Tget_size(x->type) == H5Tget_size(y->type) &&
             H5Tget_sign(x->type) == H5Tget_sign(y->type);
    case KIND_FLOAT:
    case KIND_STR_FIXED: return H5Tget_size(x->type) == H5Tget_size(y->type);
    case KIND_STR_VLEN: return 1;
    case KIND_OTHER: return H5Tequal(x->type, y->type) > 0;
    case KIND_UNSUPPORTED: return 0;
  }
  return 0;
}

// open a dataset with its shape and type; -1 on failure, -2 when corrupted so that HDF5 would
// crash reading it (h5guard_dset_ok)
static int dset_open(hid_t f, const char* path, dset* d) {
  memset(d, 0, sizeof(*d));
  d->id = d->space = d->type = -1;
  d->id = H5Dopen2(f, path, H5P_DEFAULT);
  if (d->id < 0) return -1;
  d->space = H5Dget_space(d->id);
  d->type = H5Dget_type(d->id);
  if (d->space < 0 || d->type < 0) return -1;
  d->rank = H5Sget_simple_extent_ndims(d->space);
  if (d->rank < 0 || d->rank > MAX_RANK) return -1;
  if (d->rank > 0 && H5Sget_simple_extent_dims(d->space, d->dims, NULL) < 0) return -1;
  // a null dataspace holds no element: rank 1 with 0 rows
  if (H5Sget_simple_extent_type(d->space) == H5S_NULL) {
    d->rank = 1;
    d->dims[0] = 0;
  }
  d->kind = classify(d->type);
  return h5guard_dset_ok(d->id, NULL, 0) ? 0 : -2;
}

// close a dataset opened by dset_open
static void dset_close(dset* d) {
  if (d->type >= 0) H5Tclose(d->type);
  if (d->space >= 0) H5Sclose(d->space);
  if (d->id >= 0) H5Dclose(d->id);
  d->id = d->space = d->type = -1;
}

// element count of a shape
static size_t shape_count(const dset* d) {
  size_t n = 1;
  for (int i = 0; i < d->rank; i++) n *= (size_t)d->dims[i];
  return n;
}

// "(1000, 19)" / "()" for a shape
static void shape_str(const dset* d, char* buf, size_t n) {
  size_t k = (size_t)snprintf(buf, n, "(");
  for (int i = 0; i < d->rank && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, i ? ", %llu" : "%llu", (unsigned long long)d->dims[i]);
  if (k < n) snprintf(buf + k, n - k, ")");
}

// "[12, 3]" for a flat element index in a shape
static void index_str(const dset* d, size_t flat, char* buf, size_t n) {
  size_t idx[MAX_RANK];
  for (int i = d->rank - 1; i >= 0; i--) {
    size_t dim = (size_t)d->dims[i];
    idx[i] = dim ? flat % dim : 0;
    flat = dim ? flat / dim : 0;
  }
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int i = 0; i < d->rank && k < n; i++) k += (size_t)snprintf(buf + k, n - k, i ? ", %zu" : "%zu", idx[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

// element-wise test of one pair of values; updates the stats
static void check_value(const cmp_options* o, double a, double b, size_t flat, pair_stats* s) {
  int pass;
  double diff;
  // equal (including equal infinities) or both NaN
  if (a == b || (isnan(a) && isnan(b))) {
    pass = 1;
    diff = 0.0;
  } else if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) {
    pass = 0;
    diff = INFINITY;
  } else {
    diff = fabs(a - b);
    pass = diff <= o->atol + o->rtol * fabs(b);
  }
  // max abs and rel differences (rel against the reference b)
  double rel = diff == 0.0 ? 0.0 : (fabs(b) > 0.0 && isfinite(b) ? diff / fabs(b) : INFINITY);
  if (diff > s->max_abs) s->max_abs = diff;
  if (rel > s->max_rel) s->max_rel = rel;
  if (!pass) {
    if (s->nbad == 0) {
      s->first = flat;
      s->fa = a;
      s->fb = b;
    }
    s->nbad++;
  }
}

// compare two numeric datasets of equal shape, reading blocks of rows as double; -1 on read error
static int compare_numeric(const cmp_options* o, const dset* x, const dset* y, pair_stats* s) {
  size_t total = shape_count(x);
  s->n = total;
  if (total == 0) return 0;
  // scalar datasets: one read
  if (x->rank == 0) {
    double a, b;
    if (H5Dread(x->id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &a) < 0 ||
        H5Dread(y->id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &b) < 0)
      return -1;
    check_value(o, a, b, 0, s);
    return 0;
  }
  // blocks of whole rows (first dimension)
  size_t rowlen = total / (size_t)x->dims[0];
  size_t rows = (size_t)x->dims[0];
  size_t brows = BLOCK_ELEMS / rowlen;
  if (brows < 1) brows = 1;
  if (brows > rows) brows = rows;
  double* ba = malloc(brows * rowlen * sizeof(double));
  double* bb = malloc(brows * rowlen * sizeof(double));
  int rc = (ba && bb) ? 0 : -1;
  for (size_t r0 = 0; r0 < rows && rc == 0; r0 += brows) {
    size_t nr = rows - r0 < brows ? rows - r0 : brows;
    hsize_t start[MAX_RANK] = {0}, count[MAX_RANK];
    start[0] = (hsize_t)r0;
    count[0] = (hsize_t)nr;
    for (int i = 1; i < x->rank; i++) count[i] = x->dims[i];
    // same hyperslab in both files, contiguous block in memory
    hid_t ms = H5Screate_simple(x->rank, count, NULL);
    if (ms < 0 || H5Sselect_hyperslab(x->space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
        H5Sselect_hyperslab(y->space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
        H5Dread(x->id, H5T_NATIVE_DOUBLE, ms, x->space, H5P_DEFAULT, ba) < 0 ||
        H5Dread(y->id, H5T_NATIVE_DOUBLE, ms, y->space, H5P_DEFAULT, bb) < 0)
      rc = -1;
    if (ms >= 0) H5Sclose(ms);
    for (size_t i = 0; rc == 0 && i < nr * rowlen; i++) check_value(o, ba[i], bb[i], r0 * rowlen + i, s);
  }
  free(ba);
  free(bb);
  return rc;
}

// copy a string value for the report, cut to fit
static void clip_value(char* dst, size_t n, const char* src, size_t len) {
  if (!src) {
    snprintf(dst, n, "(null)");
    return;
  }
  if (len >= n - 4) {
    memcpy(dst, src, n - 4);
    memcpy(dst + n - 4, "...", 4);
  } else {
    memcpy(dst, src, len);
    dst[len] = '\0';
  }
}

// compare two string / opaque datasets exactly (whole reads); -1 on read error, -2 when HDF5
// would crash reading vlen strings of file *bad (0: x, 1: y; why says how, see h5guard.h)
static int compare_exact(const dset* x, const dset* y, pair_stats* s, int* bad, char* why,
                         size_t nwhy) {
  size_t total = shape_count(x);
  s->n = total;
  s->strings = x->kind == KIND_STR_FIXED || x->kind == KIND_STR_VLEN;
  if (total == 0) return 0;
  // memory type: the file type itself for strings, the native layout otherwise
  hid_t mt = s->strings ? H5Tcopy(x->type) : H5Tget_native_type(x->type, H5T_DIR_ASCEND);
  if (mt < 0) return -1;
  size_t esz = H5Tget_size(mt);
  unsigned char* ba = calloc(total, esz);
  unsigned char* bb = calloc(total, esz);
  int rc = (ba && bb) ? 0 : -1;
  int ra = -1, rb = -1;
  if (rc == 0) {
    ra = h5guard_dread(x->id, mt, ba, why, nwhy);
    if (ra == H5GUARD_CRASHED) *bad = 0;
    rb = ra == H5GUARD_CRASHED ? -1 : h5guard_dread(y->id, mt, bb, why, nwhy);
    if (rb == H5GUARD_CRASHED) *bad = 1;
    if (ra == H5GUARD_CRASHED || rb == H5GUARD_CRASHED) rc = -2;
    else if (ra < 0 || rb < 0) rc = -1;
  }
  // element by element
  for (size_t i = 0; rc == 0 && i < total; i++) {
    int same;
    const char *pa = NULL, *pb = NULL;
    size_t la = 0, lb = 0;
    if (x->kind == KIND_STR_VLEN) {
      pa = ((char**)(void*)ba)[i];
      pb = ((char**)(void*)bb)[i];
      same = (pa == NULL && pb == NULL) || (pa && pb && strcmp(pa, pb) == 0);
      la = pa ? strlen(pa) : 0;
      lb = pb ? strlen(pb) : 0;
    } else {
      same = memcmp(ba + i * esz, bb + i * esz, esz) == 0;
      pa = (const char*)ba + i * esz;
      pb = (const char*)bb + i * esz;
      la = strnlen(pa, esz);
      lb = strnlen(pb, esz);
    }
    if (!same) {
      if (s->nbad == 0) {
        s->first = i;
        if (s->strings) {
          clip_value(s->sa, sizeof(s->sa), pa, la);
          clip_value(s->sb, sizeof(s->sb), pb, lb);
        }
      }
      s->nbad++;
    }
  }
  // vlen strings: HDF5 allocated the characters
  if (x->kind == KIND_STR_VLEN) {
    if (ra == 0) VLEN_RECLAIM(mt, x->space, H5P_DEFAULT, ba);
    if (rb == 0) VLEN_RECLAIM(mt, y->space, H5P_DEFAULT, bb);
  }
  H5Tclose(mt);
  free(ba);
  free(bb);
  return rc;
}

// compare one dataset present in both files; returns 0 OK, 1 FAIL, 2 not comparable
static int compare_dataset(ctx* c, hid_t fa, hid_t fb, const char* path) {
  dset x, y;
  char sh[128], sh2[128], msg[512];
  int result = 0;
  int oa = dset_open(fa, path, &x), ob = dset_open(fb, path, &y);
  // unreadable
  if (oa < 0 || ob < 0) {
    H5Eclear2(H5E_DEFAULT);
    if (c->report) {
      line_start(c, "ERROR", path);
      fprintf(c->report, "  cannot open in %s\n", oa < 0 ? c->a : c->b);
    }
    int corrupt = (oa < 0 ? oa : ob) == -2;
    bad_input(c, oa < 0 ? c->a : c->b, path,
              corrupt ? "corrupted dataset: a compact layout storing less than its shape "
                        "(HDF5 1.10 would crash reading it)"
                      : "cannot open dataset");
    result = 2;
    goto done;
  }
  shape_str(&x, sh, sizeof(sh));
  shape_str(&y, sh2, sizeof(sh2));
  // types
  if (!types_match(&x, &y)) {
    char ta[64], tb[64];
    type_name(x.type, x.kind, ta, sizeof(ta));
    type_name(y.type, y.kind, tb, sizeof(tb));
    if (c->report) {
      line_start(c, "TYPE", path);
      fprintf(c->report, "  %s vs %s\n", ta, tb);
    }
    snprintf(msg, sizeof(msg), "dataset types differ: %s in %s, %s in %s", ta, c->a, tb, c->b);
    if (x.kind == KIND_UNSUPPORTED) snprintf(msg, sizeof(msg), "unsupported dataset type");
    bad_input(c, c->a, path, msg);
    result = 2;
    goto done;
  }
  // shapes
  int same_shape = x.rank == y.rank;
  for (int i = 0; same_shape && i < x.rank; i++) same_shape = x.dims[i] == y.dims[i];
  if (!same_shape) {
    if (c->report) {
      line_start(c, "SHAPE", path);
      fprintf(c->report, "  %s vs %s\n", sh, sh2);
    }
    snprintf(msg, sizeof(msg), "dataset shapes differ: %s in %s, %s in %s", sh, c->a, sh2, c->b);
    bad_input(c, c->a, path, msg);
    result = 2;
    goto done;
  }
  // values
  pair_stats s;
  memset(&s, 0, sizeof(s));
  int bad = 0;
  char why[160] = "";
  int rc = (x.kind == KIND_INT || x.kind == KIND_FLOAT)
               ? compare_numeric(c->opt, &x, &y, &s)
               : compare_exact(&x, &y, &s, &bad, why, sizeof(why));
  if (rc == -2) {  // a corrupted vlen string (global-heap index) that HDF5 would crash on
    H5Eclear2(H5E_DEFAULT);
    if (c->report) {
      line_start(c, "ERROR", path);
      fprintf(c->report, "  corrupt\n");
    }
    snprintf(msg, sizeof(msg), "dataset is corrupt (variable-length strings): %s", why);
    bad_input(c, bad ? c->b : c->a, path, msg);
    result = 2;
    goto done;
  }
  if (rc < 0) {
    H5Eclear2(H5E_DEFAULT);
    if (c->report) {
      line_start(c, "ERROR", path);
      fprintf(c->report, "  cannot read\n");
    }
    bad_input(c, c->a, path, "cannot read dataset");
    result = 2;
    goto done;
  }
  result = s.nbad ? 1 : 0;
  // one report line
  if (c->report) {
    char ix[160];
    if (x.kind == KIND_INT || x.kind == KIND_FLOAT) {
      line_start(c, result ? "FAIL" : "OK", path);
      fprintf(c->report, "  %-12s  max abs %-9.3g  max rel %.3g", sh, s.max_abs, s.max_rel);
      if (result) {
        index_str(&x, s.first, ix, sizeof(ix));
        fprintf(c->report, "  %zu of %zu differ, first at %s: %.17g vs %.17g", s.nbad, s.n, ix,
                s.fa, s.fb);
      }
    } else {
      line_start(c, result ? "FAIL" : "OK", path);
      fprintf(c->report, "  %-12s  exact", sh);
      if (result) {
        index_str(&x, s.first, ix, sizeof(ix));
        if (s.strings)
          fprintf(c->report, "  %zu of %zu differ, first at %s: \"%s\" vs \"%s\"", s.nbad, s.n, ix,
                  s.sa, s.sb);
        else
          fprintf(c->report, "  %zu of %zu differ, first at %s", s.nbad, s.n, ix);
      }
    }
    fputc('\n', c->report);
  }
done:
  dset_close(&x);
  dset_close(&y);
  return result;
}

//---- files ----

// is a dataset selected by the --only list (marking which entries matched)?
static int selected(const cmp_options* o, const char* path, int* hits) {
  if (o->nonly <= 0 || !o->only) return 1;
  int sel = 0;
  for (int i = 0; i < o->nonly; i++) {
    if (o->only[i] && cmp_path_matches(path, o->only[i])) {
      hits[i]++;
      sel = 1;
    }
  }
  return sel;
}

// compare every selected dataset of a against reference b; 0 / 1 / 2
// the comparison itself; cmp_files runs it first in a probe child (h5guard_probe)
static int compare_files(const char* a, const char* b, const cmp_options* opt, FILE* report,
                         csim_error* err) {
  cmp_options def;
  cmp_options_default(&def);
  if (!opt) opt = &def;
  err_clear(err);
  ctx c = {a, b, opt, report, err, 0, 0};
  // options
  if (!a || !b) {
    bad_input(&c, NULL, NULL, "compare needs two file names");
    return 2;
  }
  if (!(opt->rtol >= 0.0) || !(opt->atol >= 0.0) || !isfinite(opt->rtol) || !isfinite(opt->atol)) {
    char msg[160];
    snprintf(msg, sizeof(msg), "expected finite tolerances >= 0, got rtol %g, atol %g", opt->rtol,
             opt->atol);
    bad_input(&c, NULL, "--rtol/--atol", msg);
    return 2;
  }
  // silence HDF5's own printing; errors are reported here
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

  // open both files and list their datasets
  hid_t fa = open_csim(&c, a);
  hid_t fb = open_csim(&c, b);
  path_list la = {0}, lb = {0};
  int* hits = NULL;
  int result = 2;
  if (fa < 0 || fb < 0) goto done;
  if (list_datasets(&c, fa, a, &la) < 0 || list_datasets(&c, fb, b, &lb) < 0) goto done;
  hits = calloc(opt->nonly > 0 ? (size_t)opt->nonly : 1, sizeof(int));
  if (!hits) {
    bad_input(&c, NULL, NULL, "out of memory");
    goto done;
  }
  // path column width (capped)
  for (size_t k = 0; k < la.n + lb.n; k++) {
    size_t len = strlen(k < la.n ? la.paths[k] : lb.paths[k - la.n]);
    if ((int)len > c.pathw) c.pathw = len > 40 ? 40 : (int)len;
  }
  if (report)
    fprintf(report, "compare %s vs %s (reference), rtol %g, atol %g\n", a, b, opt->rtol, opt->atol);

  // merge the two sorted lists
  size_t i = 0, j = 0;
  int ncmp = 0, nok = 0, nfail = 0, nbad = 0, nign = 0;
  while (i < la.n || j < lb.n) {
    int order = i >= la.n ? 1 : j >= lb.n ? -1 : strcmp(la.paths[i], lb.paths[j]);
    const char* path = order <= 0 ? la.paths[i] : lb.paths[j];
    // ignored and unselected datasets
    if (is_timing(path)) {
      nign++;
    } else if (selected(opt, path, hits)) {
      if (order != 0) {
        // present in one file only
        const char* has = order < 0 ? a : b;
        const char* lacks = order < 0 ? b : a;
        char msg[600];
        if (report) {
          line_start(&c, "MISSING", path);
          fprintf(report, "  only in %s\n", has);
        }
        snprintf(msg, sizeof(msg), "dataset missing from %s (present in %s)", lacks, has);
        bad_input(&c, lacks, path, msg);
        nbad++;
      } else {
        int r = compare_dataset(&c, fa, fb, path);
        ncmp++;
        if (r == 0) nok++;
        if (r == 1) nfail++;
        if (r == 2) nbad++;
      }
    }
    if (order <= 0) i++;
    if (order >= 0) j++;
  }
  // every --only entry must select something
  for (int k = 0; k < opt->nonly; k++) {
    if (opt->only && hits[k] == 0) {
      char msg[600];
      snprintf(msg, sizeof(msg), "--only '%s' matches no compared dataset (/timing is always ignored)",
               opt->only[k] ? opt->only[k] : "");
      if (report) fprintf(report, "NOMATCH --only %s\n", opt->only[k] ? opt->only[k] : "");
      bad_input(&c, NULL, "--only", msg);
      nbad++;
    }
  }
  if (report)
    fprintf(report, "summary: %d compared, %d OK, %d FAIL, %d not comparable, %d ignored (/timing)\n",
            ncmp, nok, nfail, nbad, nign);
  result = nbad ? 2 : nfail ? 1 : 0;
done:
  free(hits);
  list_free(&la);
  list_free(&lb);
  if (fa >= 0) H5Fclose(fa);
  if (fb >= 0) H5Fclose(fb);
  H5Eclear2(H5E_DEFAULT);
  return result;
}

// the whole comparison probed in a child first (no report): corrupted metadata can crash HDF5
// 1.10.8 anywhere in the visit or the reads (h5guard.h)
typedef struct {
  const char *a, *b;
  const cmp_options* opt;
} probe_args;

static int probe_compare(void* arg) {
  const probe_args* p = arg;
  csim_error e;
  memset(&e, 0, sizeof(e));
  return compare_files(p->a, p->b, p->opt, NULL, &e) == 2;
}

int cmp_files(const char* a, const char* b, const cmp_options* opt, FILE* report,
              csim_error* err) {
  err_clear(err);
  probe_args p = {a, b, opt};
  char why[200];
  if (a && b && h5guard_probe(probe_compare, &p, why, sizeof(why)) == H5GUARD_CRASHED) {
    err_set(err, CSIM_ERR_INPUT, a, 0, 0, NULL,
            "this file or %s is a corrupted HDF5 file: %s (comparing them in a probe process)",
            b, why);
    return 2;
  }
  return compare_files(a, b, opt, report, err);
}
