// merge.c — `csim merge`: a sweep's results as one table (see merge.h).
#include "out/merge.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "out/h5guard.h"

#define MAX_COLS 256          // index.csv columns accepted
#define INDEX_MAX (64 << 20)  // index.csv bytes accepted

//---------------------------------- index.csv -------------------------------------------------

// rows of a CSV file, every field a malloc'd string
typedef struct {
  char*** rows;   // rows[r][c]
  int* ncols;     // fields of row r
  int n, cap;
} csv_table;

static void csv_free(csv_table* t) {
  for (int r = 0; r < t->n; r++) {
    for (int c = 0; c < t->ncols[r]; c++) free(t->rows[r][c]);
    free(t->rows[r]);
  }
  free(t->rows);
  free(t->ncols);
  memset(t, 0, sizeof(*t));
}

// parse RFC 4180 text (quoted fields may hold commas, quotes "" and newlines); 0 or -1 (memory)
static int csv_parse(const char* s, size_t len, csv_table* t) {
  size_t i = 0;
  while (i < len) {
    char** fields = NULL;
    int nf = 0;
    for (;;) {  // one row
      size_t cap = 64, k = 0;
      char* f = malloc(cap);
      char** nfields = realloc(fields, sizeof(char*) * (size_t)(nf + 1));
      if (!f || !nfields) {
        free(f);
        free(nfields ? nfields : fields);
        return -1;
      }
      fields = nfields;
      int quoted = i < len && s[i] == '"';
      if (quoted) i++;
      while (i < len) {
        char ch = s[i];
        if (quoted && ch == '"') {
          if (i + 1 < len && s[i + 1] == '"') {
            i += 2;
          } else {
            i++;
            quoted = 0;
            continue;
          }
        } else if (!quoted && (ch == ',' || ch == '\n' || ch == '\r')) {
          break;
        } else {
          i++;
        }
        if (k + 2 > cap) {
          char* g = realloc(f, cap *= 2);
          if (!g) {
            free(f);
            fields[nf] = NULL;
            for (int c = 0; c < nf; c++) free(fields[c]);
            free(fields);
            return -1;
          }
          f = g;
        }
        f[k++] = ch;
      }
      f[k] = '\0';
      fields[nf++] = f;
      if (i < len && s[i] == ',') {
        i++;
        continue;
      }
      if (i < len && s[i] == '\r') i++;
      if (i < len && s[i] == '\n') i++;
      break;
    }
    if (t->n == t->cap) {
      int cap = t->cap ? 2 * t->cap : 64;
      char*** r = realloc(t->rows, sizeof(char**) * (size_t)cap);
      if (r) t->rows = r;
      int* c = realloc(t->ncols, sizeof(int) * (size_t)cap);
      if (c) t->ncols = c;
      if (!r || !c) {
        for (int q = 0; q < nf; q++) free(fields[q]);
        free(fields);
        return -1;
      }
      t->cap = cap;
    }
    t->rows[t->n] = fields;
    t->ncols[t->n++] = nf;
  }
  return 0;
}

// read a whole small text file; NULL with errno set on failure
static char* read_text(const char* path, size_t* len, size_t max) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char* b = malloc(cap + 1);
  while (b) {
    if (n == cap) {
      if (cap >= max) {
        free(b);
        b = NULL;
        errno = EFBIG;
        break;
      }
      char* g = realloc(b, 2 * cap + 1);
      if (!g) {
        free(b);
        b = NULL;
        break;
      }
      b = g;
      cap *= 2;
    }
    size_t got = fread(b + n, 1, cap - n, f);
    if (got == 0) break;
    n += got;
  }
  fclose(f);
  if (b) {
    b[n] = '\0';
    *len = n;
  }
  return b;
}

//---------------------------------- one point -------------------------------------------------

// what the merge knows of one point
typedef struct {
  const char* status;
  int complete, exit_status;
  char message[1024];
  double steps, eps_mean, eps_max, it_mean, it_max, nonconv, drift, injected, pen_max, wall, us;
} point_row;

// a 1-D dataset as doubles (HDF5 converts the integer types); NULL and n = 0 when absent
static double* read_doubles(hid_t f, const char* name, size_t* n) {
  *n = 0;
  if (H5Lexists(f, name, H5P_DEFAULT) <= 0) {  // parents exist: every path here is one level down
    H5Eclear2(H5E_DEFAULT);
    return NULL;
  }
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  if (d < 0) {
    H5Eclear2(H5E_DEFAULT);
    return NULL;
  }
  hid_t sp = H5Dget_space(d);
  hsize_t dims[2] = {0, 0};
  double* v = NULL;
  // (a compact dataset short of data, which crashes HDF5 1.10, is read as absent)
  if (sp >= 0 && h5guard_dset_ok(d, NULL, 0) && H5Sget_simple_extent_ndims(sp) == 1 &&
      H5Sget_simple_extent_dims(sp, dims, NULL) == 1) {
    v = malloc(sizeof(double) * ((size_t)dims[0] + 1));
    if (v && dims[0] > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
      free(v);
      v = NULL;
    }
    if (v) *n = (size_t)dims[0];
  }
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  H5Eclear2(H5E_DEFAULT);
  return v;
}

// a group-qualified path exists (H5Lexists needs every parent to exist)
static int path_exists(hid_t f, const char* group, const char* name) {
  htri_t g = H5Lexists(f, group, H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);
  if (g <= 0) return 0;
  htri_t e = H5Lexists(f, name, H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);
  return e > 0;
}

static double* read_in(hid_t f, const char* group, const char* name, size_t* n) {
  *n = 0;
  return path_exists(f, group, name) ? read_doubles(f, name, n) : NULL;
}

// an integer root attribute; 0 when present
static int attr_int(hid_t f, const char* name, int* v) {
  if (H5Aexists(f, name) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return -1;
  }
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  int32_t x = 0;
  int rc = a >= 0 && H5Aread(a, H5T_NATIVE_INT32, &x) >= 0 ? 0 : -1;
  if (a >= 0) H5Aclose(a);
  H5Eclear2(H5E_DEFAULT);
  if (!rc) *v = x;
  return rc;
}

static int attr_double(hid_t f, const char* name, double* v) {
  if (H5Aexists(f, name) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return -1;
  }
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  int rc = a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0 ? 0 : -1;
  if (a >= 0) H5Aclose(a);
  H5Eclear2(H5E_DEFAULT);
  return rc;
}

// a variable-length string root attribute (as record.c writes them) into buf; 0 when present,
// -2 when corrupt so that HDF5 would crash reading it (buf then says why, see h5guard.h)
static int attr_string(hid_t f, const char* name, char* buf, size_t n) {
  if (H5Aexists(f, name) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return -1;
  }
  int rc = -1;
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  hid_t t = a >= 0 ? H5Aget_type(a) : -1;
  if (t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5T_VARIABLE);
    H5Tset_cset(mt, H5T_CSET_UTF8);
    char* s = NULL;
    char why[160];
    int r = h5guard_aread(a, mt, &s, why, sizeof(why));
    if (r == H5GUARD_CRASHED) {
      snprintf(buf, n, "root attribute '%s' is corrupt (a variable-length string): %s", name, why);
      rc = -2;
    }
    if (r == H5GUARD_OK && s) {
      snprintf(buf, n, "%s", s);
      H5free_memory(s);
      rc = 0;
    }
    H5Tclose(mt);
  }
  if (t >= 0) H5Tclose(t);
  if (a >= 0) H5Aclose(a);
  H5Eclear2(H5E_DEFAULT);
  return rc;
}

int mrg_output_complete(const char* path) {
  struct stat sb;
  if (!path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    H5Eclear2(H5E_DEFAULT);
    return 0;
  }
  int c = 0;
  int ok = attr_int(f, "complete", &c) == 0 && c == 1;
  H5Fclose(f);
  return ok;
}

// mean and max (max from 0: the values are residuals, iterations, depths) of a dataset; NaN
// when it is absent (mean also when empty)
static void mean_max(hid_t f, const char* group, const char* name, double* mean, double* max) {
  size_t n = 0;
  double* v = read_in(f, group, name, &n);
  *mean = NAN;
  *max = v ? 0 : NAN;
  double s = 0;
  for (size_t i = 0; v && i < n; i++) {
    s += v[i];
    if (v[i] > *max) *max = v[i];
  }
  if (v && n) *mean = s / (double)n;
  free(v);
}

// statistics of the datasets of an open output file
static void file_stats(hid_t f, point_row* p) {
  size_t n = 0;
  mean_max(f, "/solver", "/solver/eps_abs", &p->eps_mean, &p->eps_max);
  mean_max(f, "/solver", "/solver/iterations", &p->it_mean, &p->it_max);
  double* cv = read_in(f, "/solver", "/solver/converged", &n);
  p->nonconv = NAN;
  if (cv) {
    double k = 0;
    for (size_t i = 0; i < n; i++) k += cv[i] == 0;
    p->nonconv = k;
  }
  free(cv);
  double* et = read_in(f, "/energy", "/energy/total", &n);
  p->drift = et && n ? et[n - 1] - et[0] : NAN;
  free(et);
  // injected energy at the final state (root attribute), else the last recorded row; older
  // outputs have neither
  if (attr_double(f, "energy_injected", &p->injected) != 0) {
    double* inj = read_in(f, "/energy", "/energy/injected", &n);
    p->injected = inj && n ? inj[n - 1] : NAN;
    free(inj);
  }
  double unused;
  mean_max(f, "/contacts", "/contacts/depth", &unused, &p->pen_max);
  size_t nrows = 0;
  double* tm = read_in(f, "/", "/time", &nrows);
  int have_time = tm != NULL;
  free(tm);
  int every = 1, steps = 0;
  if (attr_int(f, "steps", &steps) == 0) p->steps = steps;
  else if (have_time) p->steps = (double)nrows * (attr_int(f, "every", &every) == 0 ? every : 1);
  double wall = NAN;
  if (attr_double(f, "wall_time", &wall) != 0) {  // files of runs before the attribute existed
    double* ts = read_in(f, "/timing", "/timing/step", &n);
    if (ts) {
      wall = 0;
      for (size_t i = 0; i < n; i++) wall += ts[i];
    }
    free(ts);
  }
  p->wall = wall;
  p->us = isfinite(wall) && p->steps > 0 ? 1e6 * wall / p->steps : NAN;
}

// the last "exit status N" and "csim: error:" lines of a per-point log
static void log_facts(const char* path, point_row* p) {
  size_t len = 0;
  char* t = read_text(path, &len, 16 << 20);
  if (!t) return;
  // the log holds every attempt, each ending with its exit status: keep the last attempt's
  char* save = NULL;
  char msg[sizeof(p->message)] = "";
  for (char* line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    int st;
    if (sscanf(line, "csim run: exit status %d", &st) == 1) {
      p->exit_status = st;
      snprintf(p->message, sizeof(p->message), "%s", msg);
      msg[0] = '\0';
    }
    if (!strncmp(line, "csim: error: ", 13) && !msg[0]) snprintf(msg, sizeof(msg), "%s", line + 13);
  }
  free(t);
}

// everything known of one point: output file first, log second
static void read_point_direct(const char* dir, const char* name, const char* output,
                              point_row* p) {
  memset(p, 0, sizeof(*p));
  p->exit_status = -1;
  p->steps = p->eps_mean = p->eps_max = p->it_mean = p->it_max = p->nonconv = p->drift =
      p->injected = p->pen_max = p->wall = p->us = NAN;
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, output);
  struct stat sb;
  int have = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
  hid_t f = -1;
  if (have) {
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
  }
  char logp[4096];
  snprintf(logp, sizeof(logp), "%s/logs/%s.log", dir, name);
  if (f < 0) {
    log_facts(logp, p);
    if (have) {
      p->status = "incomplete";
      char m[900];
      snprintf(m, sizeof(m), "%.899s", p->message);
      snprintf(p->message, sizeof(p->message), "%s exists but is not a readable HDF5 file%s%s",
               output, m[0] ? ": " : "", m);
    } else if (p->exit_status > 0) {
      p->status = "failed";
      if (!p->message[0]) snprintf(p->message, sizeof(p->message), "exit status %d", p->exit_status);
    } else {
      p->status = "missing";
      if (!p->message[0]) snprintf(p->message, sizeof(p->message), "no output: not run yet");
    }
    return;
  }
  attr_int(f, "complete", &p->complete);
  if (attr_int(f, "exit_status", &p->exit_status) != 0) p->exit_status = -1;
  if (attr_string(f, "failure", p->message, sizeof(p->message)) == -2) {
    H5Fclose(f);  // a damaged file: its numbers are not to be trusted either
    p->status = "incomplete";
    p->complete = 0;
    char m[900];
    snprintf(m, sizeof(m), "%.899s", p->message);
    snprintf(p->message, sizeof(p->message), "%s: %s", output, m);
    return;
  }
  file_stats(f, p);
  H5Fclose(f);
  if (p->complete == 1) {
    p->status = "complete";
  } else if (p->exit_status > 0) {
    p->status = "failed";
  } else {  // killed (SIGKILL, preemption, node failure) before csim could close the file
    p->status = "incomplete";
    if (!p->message[0])
      snprintf(p->message, sizeof(p->message), "output not closed: the run was killed or is running");
  }
}

// read_point_direct probed in a child first: a point's file is whatever a killed run left, and
// corrupted metadata can crash HDF5 1.10.8 anywhere (h5guard.h)
typedef struct {
  const char *dir, *name, *output;
} point_args;

static int probe_point(void* arg) {
  const point_args* a = arg;
  point_row p;
  read_point_direct(a->dir, a->name, a->output, &p);
  return 0;
}

static void read_point(const char* dir, const char* name, const char* output, point_row* p) {
  point_args a = {dir, name, output};
  char why[200];
  if (h5guard_probe(probe_point, &a, why, sizeof(why)) == H5GUARD_CRASHED) {
    memset(p, 0, sizeof(*p));
    p->exit_status = -1;
    p->steps = p->eps_mean = p->eps_max = p->it_mean = p->it_max = p->nonconv = p->drift =
        p->injected = p->pen_max = p->wall = p->us = NAN;
    p->status = "incomplete";
    snprintf(p->message, sizeof(p->message), "%s: corrupted HDF5 file: %s", output, why);
    return;
  }
  read_point_direct(dir, name, output, p);
}

//---------------------------------- output ----------------------------------------------------

static const char* const kStats[] = {"steps", "eps_abs_mean", "eps_abs_max", "iterations_mean",
                                     "iterations_max", "nonconverged_steps", "energy_drift",
                                     "energy_injected", "penetration_max", "wall_time",
                                     "us_per_step"};
#define NSTATS ((int)(sizeof(kStats) / sizeof(kStats[0])))

static void stats_of(const point_row* p, double v[NSTATS]) {
  double s[NSTATS] = {p->steps, p->eps_mean, p->eps_max, p->it_mean, p->it_max, p->nonconv,
                      p->drift, p->injected, p->pen_max, p->wall, p->us};
  memcpy(v, s, sizeof(s));
}

static void csv_field(FILE* o, const char* s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, o);
    return;
  }
  fputc('"', o);
  for (; *s; s++) {
    if (*s == '"') fputc('"', o);
    fputc(*s, o);
  }
  fputc('"', o);
}

static void csv_number(FILE* o, double v) {
  if (isfinite(v)) fprintf(o, "%.17g", v);
}

// column indices of index.csv
typedef struct {
  int point, name, p0, p1, output;  // parameters are columns [p0, p1)
} index_cols;

static int write_csv(FILE* o, const csv_table* t, const index_cols* ic, const point_row* rows) {
  char** h = t->rows[0];
  fputs("point,name", o);
  for (int c = ic->p0; c < ic->p1; c++) {
    fputc(',', o);
    csv_field(o, h[c]);
  }
  fputs(",status,complete,exit_status,message", o);
  for (int k = 0; k < NSTATS; k++) fprintf(o, ",%s", kStats[k]);
  fputc('\n', o);
  for (int r = 1; r < t->n; r++) {
    const point_row* p = &rows[r - 1];
    char** v = t->rows[r];
    csv_field(o, v[ic->point]);
    fputc(',', o);
    csv_field(o, v[ic->name]);
    for (int c = ic->p0; c < ic->p1; c++) {
      fputc(',', o);
      csv_field(o, v[c]);
    }
    fprintf(o, ",%s,%d,%d,", p->status, p->complete, p->exit_status);
    csv_field(o, p->message);
    double s[NSTATS];
    stats_of(p, s);
    for (int k = 0; k < NSTATS; k++) {
      fputc(',', o);
      csv_number(o, s[k]);
    }
    fputc('\n', o);
  }
  return ferror(o) ? -1 : 0;
}

// one 1-D dataset of n elements at the root
static int h5_column(hid_t f, const char* name, hid_t type, size_t n, const void* data) {
  hsize_t dims[1] = {(hsize_t)n};
  hid_t sp = H5Screate_simple(1, dims, NULL);
  hid_t d = sp >= 0 ? H5Dcreate2(f, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int rc = d >= 0 && (n == 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0) ? 0 : -1;
  if (d >= 0) H5Dclose(d);
  if (sp >= 0) H5Sclose(sp);
  return rc;
}

static int write_h5(const char* path, const csv_table* t, const index_cols* ic,
                    const point_row* rows) {
  size_t n = (size_t)(t->n - 1);
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) return -1;
  hid_t str = H5Tcopy(H5T_C_S1);
  H5Tset_size(str, H5T_VARIABLE);
  H5Tset_cset(str, H5T_CSET_UTF8);
  int rc = 0;
  const char** s = calloc(n + 1, sizeof(char*));
  int32_t* iv = calloc(n + 1, sizeof(int32_t));
  double* dv = calloc(n + 1, sizeof(double));
  char** names = calloc((size_t)(ic->p1 - ic->p0 + 8 + NSTATS), sizeof(char*));
  int ncol = 0;
  if (!s || !iv || !dv || !names) rc = -1;
  // index columns: point as int32, the rest as strings (parameters keep their YAML text)
  for (size_t r = 0; r < n && !rc; r++) iv[r] = (int32_t)atoi(t->rows[r + 1][ic->point]);
  if (!rc) rc = h5_column(f, "point", H5T_NATIVE_INT32, n, iv);
  if (!rc) names[ncol++] = "point";
  int cols[MAX_COLS + 1], nc = 0;
  cols[nc++] = ic->name;
  for (int c = ic->p0; c < ic->p1; c++) cols[nc++] = c;
  for (int k = 0; k < nc && !rc; k++) {
    int numeric = k > 0;  // a parameter whose every value is a number is stored as float64
    for (size_t r = 0; r < n; r++) {
      s[r] = t->rows[r + 1][cols[k]];
      char* end = NULL;
      dv[r] = strtod(s[r], &end);
      numeric &= end != s[r] && !*end && isfinite(dv[r]);
    }
    const char* cname = t->rows[0][cols[k]];
    if (H5Lexists(f, cname, H5P_DEFAULT) > 0) continue;  // a parameter named like a column
    H5Eclear2(H5E_DEFAULT);
    rc = numeric ? h5_column(f, cname, H5T_NATIVE_DOUBLE, n, dv) : h5_column(f, cname, str, n, s);
    names[ncol++] = (char*)cname;
  }
  for (size_t r = 0; r < n && !rc; r++) s[r] = rows[r].status;
  if (!rc) rc = h5_column(f, "status", str, n, s);
  names[ncol++] = "status";
  for (size_t r = 0; r < n && !rc; r++) iv[r] = rows[r].complete;
  if (!rc) rc = h5_column(f, "complete", H5T_NATIVE_INT32, n, iv);
  names[ncol++] = "complete";
  for (size_t r = 0; r < n && !rc; r++) iv[r] = rows[r].exit_status;
  if (!rc) rc = h5_column(f, "exit_status", H5T_NATIVE_INT32, n, iv);
  names[ncol++] = "exit_status";
  for (size_t r = 0; r < n && !rc; r++) s[r] = rows[r].message;
  if (!rc) rc = h5_column(f, "message", str, n, s);
  names[ncol++] = "message";
  for (int k = 0; k < NSTATS && !rc; k++) {
    for (size_t r = 0; r < n; r++) {
      double v[NSTATS];
      stats_of(&rows[r], v);
      dv[r] = v[k];
    }
    rc = h5_column(f, kStats[k], H5T_NATIVE_DOUBLE, n, dv);
    names[ncol++] = (char*)kStats[k];
  }
  if (!rc) {  // the column order, for pandas: pd.DataFrame({c: f[c][()] for c in f.attrs["columns"]})
    hsize_t dims[1] = {(hsize_t)ncol};
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t a = H5Acreate2(f, "columns", str, sp, H5P_DEFAULT, H5P_DEFAULT);
    rc = a >= 0 && H5Awrite(a, str, names) >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
  }
  free(s);
  free(iv);
  free(dv);
  free(names);
  H5Tclose(str);
  if (H5Fclose(f) < 0) rc = -1;
  H5Eclear2(H5E_DEFAULT);
  return rc;
}

static int ends_with(const char* s, const char* suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

csim_status mrg_sweep(const char* dir, const char* out, int counts[2], csim_error* err) {
  err_clear(err);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  char ipath[4096];
  snprintf(ipath, sizeof(ipath), "%s/index.csv", dir);
  size_t len = 0;
  char* text = read_text(ipath, &len, INDEX_MAX);
  if (!text)
    return err_set(err, CSIM_ERR_INPUT, ipath, 0, 0, NULL,
                   "cannot read the sweep index (%s): expected a directory written by csim sweep",
                   strerror(errno));
  csv_table t;
  memset(&t, 0, sizeof(t));
  if (csv_parse(text, len, &t) != 0) {
    free(text);
    csv_free(&t);
    return err_set(err, CSIM_ERR_RUN, ipath, 0, 0, NULL, "out of memory");
  }
  free(text);
  // header: point,name,<parameters>...,scenario,output
  index_cols ic = {-1, -1, 2, -1, -1};
  csim_status st = CSIM_OK;
  if (t.n < 1 || t.ncols[0] < 4 || t.ncols[0] > MAX_COLS || strcmp(t.rows[0][0], "point") ||
      strcmp(t.rows[0][1], "name") || strcmp(t.rows[0][t.ncols[0] - 2], "scenario") ||
      strcmp(t.rows[0][t.ncols[0] - 1], "output")) {
    st = err_set(err, CSIM_ERR_INPUT, ipath, 1, 1, NULL,
                 "expected the header point,name,<parameters>...,scenario,output (at most %d "
                 "columns) as csim sweep writes it",
                 MAX_COLS);
  } else {
    ic.point = 0;
    ic.name = 1;
    ic.p1 = t.ncols[0] - 2;
    ic.output = t.ncols[0] - 1;
  }
  for (int r = 1; r < t.n && !st; r++) {
    if (t.ncols[r] != t.ncols[0])
      st = err_set(err, CSIM_ERR_INPUT, ipath, r + 1, 1, NULL, "row has %d fields, the header %d",
                   t.ncols[r], t.ncols[0]);
    else if (strchr(t.rows[r][ic.name], '/') || !t.rows[r][ic.name][0])
      st = err_set(err, CSIM_ERR_INPUT, ipath, r + 1, 1, "name",
                   "expected a point name without '/', found '%s'", t.rows[r][ic.name]);
  }
  point_row* rows = st ? NULL : calloc((size_t)t.n, sizeof(point_row));
  if (!st && !rows) st = err_set(err, CSIM_ERR_RUN, ipath, 0, 0, NULL, "out of memory");
  int ncomplete = 0;
  for (int r = 1; r < t.n && !st; r++) {
    read_point(dir, t.rows[r][ic.name], t.rows[r][ic.output], &rows[r - 1]);
    ncomplete += rows[r - 1].complete == 1;
  }
  if (!st) {
    int bad = 0;
    if (!strcmp(out, "-")) {
      bad = write_csv(stdout, &t, &ic, rows);
      fflush(stdout);
    } else if (ends_with(out, ".h5") || ends_with(out, ".hdf5")) {
      bad = write_h5(out, &t, &ic, rows);
    } else if (ends_with(out, ".csv")) {
      FILE* o = fopen(out, "w");
      bad = !o || write_csv(o, &t, &ic, rows);
      if (o && fclose(o) != 0) bad = 1;
    } else {
      st = err_set(err, CSIM_ERR_INPUT, out, 0, 0, "--out",
                   "expected a file name ending in .csv, .h5 or .hdf5, or - for CSV on stdout");
    }
    if (!st && bad) {
      remove(out);  // no half-written table left behind
      st = err_set(err, CSIM_ERR_INPUT, out, 0, 0, "--out", "cannot write the merged table: %s",
                   strerror(errno));
    }
  }
  if (counts) {
    counts[0] = ncomplete;
    counts[1] = t.n > 0 ? t.n - 1 : 0;
  }
  free(rows);
  csv_free(&t);
  return st;
}
