// keyframes.c — the keyframe files and params of the trajectory built-ins (control.h): a CSV
// of time and one value per named column, a not-a-knot cubic spline per column. Shared by
// joint_trajectory.c (joint columns) and inverse_dynamics.c (Cartesian pose and gripper
// columns); each says through a ctl_csv_spec which column names it accepts.
//
// Why not-a-knot: it is C2 (the second derivative is continuous, so an acceleration
// feed-forward has no steps) and it reproduces any cubic exactly (the cubic meets every condition
// and the spline is unique), which test_trajectory checks in closed form. Before the first row
// the spline holds the first row, after the last it holds the last (zero derivatives there).
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/control.h"

// ---- the spline ------------------------------------------------------------------------------

// not-a-knot second derivatives M (n) of the knots (t, y): the interior equations
// h0 M0 + 2 (h0 + h1) M1 + h1 M2 = 6 (s1 - s0) with M0 and M(n-1) eliminated by the not-a-knot
// conditions (third derivative continuous at t1 and t(n-2)), then the tridiagonal solve (Thomas;
// diagonally dominant). n = 2: a line, n = 3: the parabola through the three knots. w: n doubles
void ctl_spline(const double* t, const double* y, int n, double* M, double* w) {
  if (n < 3) {
    M[0] = M[n - 1] = 0;
    return;
  }
  double h0 = t[1] - t[0], h1 = t[2] - t[1];
  if (n == 3) {
    M[0] = M[1] = M[2] = 2 * ((y[2] - y[1]) / h1 - (y[1] - y[0]) / h0) / (h0 + h1);
    return;
  }
  // row i (1..n-2): a M(i-1) + b M(i) + c M(i+1) = r; forward elimination keeps c' in w, r' in M
  double cprev = 0;
  for (int i = 1; i <= n - 2; i++) {
    double ha = t[i] - t[i - 1], hb = t[i + 1] - t[i];
    double a = ha, b = 2 * (ha + hb), c = hb;
    double r = 6 * ((y[i + 1] - y[i]) / hb - (y[i] - y[i - 1]) / ha);
    if (i == 1) {  // M0 = ((h0 + h1) M1 - h0 M2) / h1
      b = (ha + hb) * (ha + 2 * hb) / hb;
      c = (hb * hb - ha * ha) / hb;
      a = 0;
    }
    if (i == n - 2) {  // M(n-1) = ((ha + hb) M(n-2) - hb M(n-3)) / ha
      b = (ha + hb) * (hb + 2 * ha) / ha;
      a = (ha * ha - hb * hb) / ha;
      c = 0;
    }
    double den = b - a * cprev;
    w[i] = c / den;
    M[i] = (r - a * (i > 1 ? M[i - 1] : 0)) / den;
    cprev = w[i];
  }
  for (int i = n - 3; i >= 1; i--) M[i] -= w[i] * M[i + 1];
  double ha = t[n - 2] - t[n - 3], hb = t[n - 1] - t[n - 2];
  M[0] = ((h0 + h1) * M[1] - h0 * M[2]) / h1;
  M[n - 1] = ((ha + hb) * M[n - 2] - hb * M[n - 3]) / ha;
}

// value, first and second derivative at time x of the spline (t, y, M) of n knots
void ctl_spline_eval(const double* t, const double* y, const double* M, int n, double x,
                     double out[3]) {
  if (x < t[0] || x > t[n - 1]) {
    out[0] = x < t[0] ? y[0] : y[n - 1];
    out[1] = out[2] = 0;
    return;
  }
  int lo = 0, hi = n - 1;  // t[lo] <= x < t[hi]
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (t[mid] <= x) lo = mid;
    else hi = mid;
  }
  double h = t[hi] - t[lo], a = t[hi] - x, b = x - t[lo];
  double A = y[lo] / h - M[lo] * h / 6, B = y[hi] / h - M[hi] * h / 6;
  out[0] = (M[lo] * a * a * a + M[hi] * b * b * b) / (6 * h) + A * a + B * b;
  out[1] = (M[hi] * b * b - M[lo] * a * a) / (2 * h) - A + B;
  out[2] = (M[lo] * a + M[hi] * b) / h;
}

void ctl_keyframes_eval(const ctl_keyframes* k, int c, double x, double out[3]) {
  ctl_spline_eval(k->t, k->y + (size_t)c * k->nrow, k->M + (size_t)c * k->nrow, k->nrow, x, out);
}

void ctl_keyframes_free(ctl_keyframes* k) {
  free(k->t);
  free(k->y);
  free(k->M);
  k->t = k->y = k->M = NULL;
}

// ---- the file --------------------------------------------------------------------------------

typedef struct {
  const char* path;
  const ctl_csv_spec* spec;
  int line;
  char* msg;  // CSIM_PLUGIN_MSG bytes
} kf_csv;

static int kf_fail(const kf_csv* f, int col, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int kf_fail(const kf_csv* f, int col, const char* fmt, ...) {
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(f->msg, CSIM_PLUGIN_MSG, "%s:%d:%d: %s", f->path, f->line, col, what);
  return CSIM_PLUGIN_ERROR;
}

// the next comma-separated field of *s (spaces trimmed, *s NULL after the last); its column
// (1-based) in *col
static char* kf_field(char** s, const char* line, int* col) {
  char* p = *s;
  while (*p == ' ' || *p == '\t') p++;
  *col = (int)(p - line) + 1;
  char* e = strchr(p, ',');
  *s = e ? e + 1 : NULL;
  if (!e) e = p + strlen(p);
  while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) e--;
  *e = 0;
  return p;
}

// the header: "time" then the names the spec accepts
static int kf_header(ctl_keyframes* k, const kf_csv* f, char* line) {
  const ctl_csv_spec* sp = f->spec;
  int col, n = 0;
  char* s = line;
  char what[160];
  const char* name = kf_field(&s, line, &col);
  if (strcmp(name, "time") && strcmp(name, "t"))
    return kf_fail(f, col, "expected the header's first column 'time', found '%s'", name);
  for (const char* q = s; q; n++) q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL;
  if (n == 0) return kf_fail(f, col, "expected %s after 'time'", sp->names);
  k->ncol = n;
  if (sp->columns && sp->columns(sp->ctx, n, what, sizeof what))
    return kf_fail(f, col, "%s", what);
  for (int c = 0; c < n; c++) {
    name = kf_field(&s, line, &col);
    if (sp->column(sp->ctx, c, name, what, sizeof what)) return kf_fail(f, col, "%s", what);
  }
  return CSIM_PLUGIN_OK;
}

// one data row into row (1 + ncol numbers): time after the previous row's (prev, NULL: first)
static int kf_row(const ctl_keyframes* k, const kf_csv* f, char* line, double* row,
                  const double* prev) {
  char* s = line;
  int col = 1;
  for (int c = 0; c <= k->ncol; c++) {
    if (!s)
      return kf_fail(f, col, "expected %d values (time and one per %s of the header), found %d",
                     k->ncol + 1, f->spec->one, c);
    const char* tok = kf_field(&s, line, &col);
    char* end;
    row[c] = strtod(tok, &end);
    if (end == tok || *end || !isfinite(row[c]))
      return kf_fail(f, col, "expected a number, found '%s'", tok);
  }
  if (s) {
    kf_field(&s, line, &col);
    return kf_fail(f, col, "expected %d values (time and one per %s of the header), found more",
                   k->ncol + 1, f->spec->one);
  }
  if (prev && !(row[0] > prev[0]))
    return kf_fail(f, 1, "time %g is not after the previous row's %g (times must increase)",
                   row[0], prev[0]);
  return CSIM_PLUGIN_OK;
}

static int kf_blank(const char* s) {
  while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
  return *s == 0 || *s == '#';
}

// the knots from the rows read (row-major, 1 + ncol per row): t and column-major y, and the
// splines' M
static int kf_knots(ctl_keyframes* k, const double* raw, char msg[CSIM_PLUGIN_MSG]) {
  int n = k->nrow, w = k->ncol + 1;
  k->t = malloc(sizeof(double) * (size_t)n);
  k->y = malloc(sizeof(double) * (size_t)n * (size_t)k->ncol);
  k->M = malloc(sizeof(double) * (size_t)n * (size_t)k->ncol);
  double* work = malloc(sizeof(double) * (size_t)n);
  int ok = k->t && k->y && k->M && work;
  for (int r = 0; ok && r < n; r++) {
    k->t[r] = raw[(size_t)r * w];
    for (int c = 0; c < k->ncol; c++) k->y[(size_t)c * n + r] = raw[(size_t)r * w + 1 + c];
  }
  for (int c = 0; ok && c < k->ncol; c++)
    ctl_spline(k->t, k->y + (size_t)c * n, n, k->M + (size_t)c * n, work);
  free(work);
  if (!ok) snprintf(msg, CSIM_PLUGIN_MSG, "out of memory");
  return ok ? CSIM_PLUGIN_OK : CSIM_PLUGIN_ERROR;
}

// the lines of fp after the header into *raw (rows of 1 + ncol), counted in k->nrow
static int kf_rows(ctl_keyframes* k, kf_csv* f, FILE* fp, double** raw) {
  char* line = NULL;
  size_t cap = 0, rcap = 0;
  int st = CSIM_PLUGIN_OK, header = 0;
  while (st == CSIM_PLUGIN_OK && getline(&line, &cap, fp) >= 0) {
    f->line++;
    if (kf_blank(line)) continue;
    if (!header) {
      st = kf_header(k, f, line);
      header = 1;
      continue;
    }
    size_t w = (size_t)k->ncol + 1;
    if ((size_t)k->nrow == rcap) {
      rcap = rcap ? 2 * rcap : 64;
      double* g = realloc(*raw, sizeof(double) * rcap * w);
      if (!g) st = kf_fail(f, 1, "out of memory");
      else *raw = g;
    }
    if (st == CSIM_PLUGIN_OK)
      st = kf_row(k, f, line, *raw + (size_t)k->nrow * w,
                  k->nrow ? *raw + (size_t)(k->nrow - 1) * w : NULL);
    k->nrow++;
  }
  free(line);
  return st;
}

int ctl_keyframes_read(const char* path, const ctl_csv_spec* spec, ctl_keyframes* k,
                       char msg[CSIM_PLUGIN_MSG]) {
  memset(k, 0, sizeof *k);
  FILE* fp = fopen(path, "r");
  if (!fp) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'file': cannot open '%s'", path);
    return CSIM_PLUGIN_ERROR;
  }
  kf_csv f = {path, spec, 0, msg};
  double* raw = NULL;
  int st = kf_rows(k, &f, fp, &raw);
  fclose(fp);
  if (st == CSIM_PLUGIN_OK && k->nrow < 2) {
    snprintf(msg, CSIM_PLUGIN_MSG, "%s: expected a header (time, %s) and at least two rows, "
             "found %d row(s)", path, spec->names, k->nrow);
    st = CSIM_PLUGIN_ERROR;
  }
  if (st == CSIM_PLUGIN_OK) st = kf_knots(k, raw, msg);
  free(raw);
  return st;
}

// ---- params ----------------------------------------------------------------------------------

const char* ctl_param(const csim_plugin_info* in, const char* key) {
  for (int k = 0; k < in->nparam; k++)
    if (strcmp(in->param_keys[k], key) == 0) return in->param_values[k];
  return NULL;
}

int ctl_param_nums(const csim_plugin_info* in, const char* key, double lo, int strict, double def,
                   double* out, int n, const char* per, char msg[CSIM_PLUGIN_MSG]) {
  const char* v = ctl_param(in, key);
  int k = 0, bad = 0;
  if (!v) {
    for (int c = 0; c < n; c++) out[c] = def;
    if (isnan(def)) snprintf(msg, CSIM_PLUGIN_MSG, "param '%s' is required", key);
    return isnan(def) ? CSIM_PLUGIN_ERROR : CSIM_PLUGIN_OK;
  }
  for (const char* s = v;; k++) {
    while (*s == ' ' || *s == ',' || *s == '[' || *s == ']') s++;
    if (!*s) break;
    char* end;
    double x = strtod(s, &end);
    bad |= end == s || !isfinite(x) || x < lo || (strict && x == lo);
    if (end == s) break;
    if (k < n) out[k] = x;
    s = end;
  }
  if (bad || (k != 1 && k != n)) {
    char count[64] = "a number", bound[32] = "";
    if (n > 1) snprintf(count, sizeof count, "1 or %d numbers (one per %s)", n, per);
    if (isfinite(lo)) snprintf(bound, sizeof bound, " %s %g", strict ? ">" : ">=", lo);
    snprintf(msg, CSIM_PLUGIN_MSG, "param '%s': expected %s%s, got '%s'", key, count, bound, v);
    return CSIM_PLUGIN_ERROR;
  }
  for (int c = k; c < n; c++) out[c] = out[0];
  return CSIM_PLUGIN_OK;
}
