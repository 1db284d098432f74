// joint_trajectory.c — the built-in joint trajectory tracker (control.h
// ctl_builtin_joint_trajectory): a keyframe file (CSV of time and joint values) interpolated by a
// not-a-knot cubic spline per joint, tracked by PD plus an inverse-dynamics feed-forward from
// csim's own RNEA on the controller's copy of the model:
//
//   tau = RNEA(q, qd_des, qdd_des) + kp (q_des - q) + kd (qd_des - v)     (feedforward: rnea)
//   tau = g(q) + kp (q_des - q) + kd (qd_des - v)                        (feedforward: gravity)
//   tau = kp (q_des - q) + kd (qd_des - v)                               (feedforward: none)
//
// Why not-a-knot: it is C2 (qdd_des continuous, so the feed-forward has no steps) and it
// reproduces any cubic exactly (the cubic meets every condition and the spline is unique), which
// the tests check in closed form. Before the first row the trajectory holds the first row, after
// the last it holds the last (qd_des = qdd_des = 0 there).
//
// Like quadruped.c, a built-in that reads its ctl_model (the const sim_model) through
// &ctl_model.info and keeps its own sim_data for the RNEA: the run's data is never touched. The
// file is read and the splines are prepared in init; the step allocates nothing.
//
// params: file (CSV; the scenario compiler resolves a relative path against the scenario's
// directory), kp (> 0), kd (>= 0): one value, or one per joint column of the file in its order;
// feedforward: rnea (default), gravity or none.
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/control.h"
#include "core/dynamics.h"
#include "core/kinematics.h"

enum { JT_FF_RNEA, JT_FF_GRAVITY, JT_FF_NONE };

typedef struct {
  const ctl_model* cm;  // its model side (built-ins reach it through &ctl_model.info)
  const sim_model* m;
  sim_data* d;          // the controller's own data: kinematics and RNEA at the sensed state
  int nj;               // the robot's controlled joints
  int ncol;             // joint columns of the file
  int nrow;             // rows (knots)
  int ff;               // JT_FF_*
  int* col_jnt;         // controlled-joint index of each column                     (ncol)
  double* t;            // knot times                                                (nrow)
  double* y;            // knot values, column-major: column c at y + c nrow  (ncol x nrow)
  double* M;            // the spline's second derivatives at the knots        (ncol x nrow)
  double* kp, *kd;      //                                                           (ncol)
  double* vfull, *afull, *taufull;  // nv each
  double* des;          // q_des, qd_des, qdd_des of each column this instant   (3 x ncol)
  char** log_names;     // "<joint>_des"                                             (ncol)
} jt_state;

static const char* jt_param(const csim_plugin_info* in, const char* key) {
  for (int k = 0; k < in->nparam; k++)
    if (strcmp(in->param_keys[k], key) == 0) return in->param_values[k];
  return NULL;
}

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

// ---- the keyframe file -----------------------------------------------------------------------

typedef struct {
  const char* path;
  int line;
  char* msg;  // CSIM_PLUGIN_MSG bytes
} jt_csv;

static int jt_fail(const jt_csv* f, int col, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int jt_fail(const jt_csv* f, int col, const char* fmt, ...) {
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
static char* jt_field(char** s, const char* line, int* col) {
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

// the header: "time" then joint names of the robot, each at most once
static int jt_header(jt_state* p, const csim_plugin_info* in, const jt_csv* f, char* line) {
  int col, n = 0;
  char* s = line;
  const char* name = jt_field(&s, line, &col);
  if (strcmp(name, "time") && strcmp(name, "t"))
    return jt_fail(f, col, "expected the header's first column 'time', found '%s'", name);
  for (const char* q = s; q; n++) q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL;
  if (n == 0) return jt_fail(f, col, "expected joint names after 'time'");
  p->ncol = n;
  p->col_jnt = calloc((size_t)n, sizeof(int));
  if (!p->col_jnt) return jt_fail(f, 1, "out of memory");
  for (int c = 0; c < n; c++) {
    name = jt_field(&s, line, &col);
    int j = 0;
    while (j < in->njoint && strcmp(in->joint_names[j], name)) j++;
    if (j == in->njoint)
      return jt_fail(f, col, "unknown joint '%s' (not a 1-dof joint of robot '%s')", name,
                     in->robot);
    for (int k = 0; k < c; k++)
      if (p->col_jnt[k] == j) return jt_fail(f, col, "joint '%s' named twice", name);
    p->col_jnt[c] = j;
  }
  return CSIM_PLUGIN_OK;
}

// one data row into row (1 + ncol numbers): time after the previous row's (prev, NULL: first)
static int jt_row(const jt_state* p, const jt_csv* f, char* line, double* row,
                  const double* prev) {
  char* s = line;
  int col = 1;
  for (int c = 0; c <= p->ncol; c++) {
    if (!s)
      return jt_fail(f, col, "expected %d values (time and one per joint of the header), "
                     "found %d", p->ncol + 1, c);
    const char* tok = jt_field(&s, line, &col);
    char* end;
    row[c] = strtod(tok, &end);
    if (end == tok || *end || !isfinite(row[c]))
      return jt_fail(f, col, "expected a number, found '%s'", tok);
  }
  if (s) {
    jt_field(&s, line, &col);
    return jt_fail(f, col, "expected %d values (time and one per joint of the header), found "
                   "more", p->ncol + 1);
  }
  if (prev && !(row[0] > prev[0]))
    return jt_fail(f, 1, "time %g is not after the previous row's %g (times must increase)",
                   row[0], prev[0]);
  return CSIM_PLUGIN_OK;
}

static int jt_blank(const char* s) {
  while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
  return *s == 0 || *s == '#';
}

// the knots from the rows read (row-major, 1 + ncol per row): t and column-major y, and the
// splines' M
static int jt_knots(jt_state* p, const double* raw, char msg[CSIM_PLUGIN_MSG]) {
  int n = p->nrow, w = p->ncol + 1;
  p->t = malloc(sizeof(double) * (size_t)n);
  p->y = malloc(sizeof(double) * (size_t)n * (size_t)p->ncol);
  p->M = malloc(sizeof(double) * (size_t)n * (size_t)p->ncol);
  double* work = malloc(sizeof(double) * (size_t)n);
  int ok = p->t && p->y && p->M && work;
  for (int r = 0; ok && r < n; r++) {
    p->t[r] = raw[(size_t)r * w];
    for (int c = 0; c < p->ncol; c++) p->y[(size_t)c * n + r] = raw[(size_t)r * w + 1 + c];
  }
  for (int c = 0; ok && c < p->ncol; c++)
    ctl_spline(p->t, p->y + (size_t)c * n, n, p->M + (size_t)c * n, work);
  free(work);
  if (!ok) snprintf(msg, CSIM_PLUGIN_MSG, "out of memory");
  return ok ? CSIM_PLUGIN_OK : CSIM_PLUGIN_ERROR;
}

// read the file: blank lines and lines starting with '#' skipped, a header, then at least two rows
static int jt_read(jt_state* p, const csim_plugin_info* in, const char* path,
                   char msg[CSIM_PLUGIN_MSG]) {
  FILE* fp = fopen(path, "r");
  if (!fp) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'file': cannot open '%s'", path);
    return CSIM_PLUGIN_ERROR;
  }
  jt_csv f = {path, 0, msg};
  char* line = NULL;
  size_t cap = 0, rcap = 0;
  double* raw = NULL;
  int st = CSIM_PLUGIN_OK, header = 0;
  p->nrow = 0;
  while (st == CSIM_PLUGIN_OK && getline(&line, &cap, fp) >= 0) {
    f.line++;
    if (jt_blank(line)) continue;
    if (!header) {
      st = jt_header(p, in, &f, line);
      header = 1;
      continue;
    }
    size_t w = (size_t)p->ncol + 1;
    if ((size_t)p->nrow == rcap) {
      rcap = rcap ? 2 * rcap : 64;
      double* g = realloc(raw, sizeof(double) * rcap * w);
      if (!g) st = jt_fail(&f, 1, "out of memory");
      else raw = g;
    }
    if (st == CSIM_PLUGIN_OK)
      st = jt_row(p, &f, line, raw + (size_t)p->nrow * w,
                  p->nrow ? raw + (size_t)(p->nrow - 1) * w : NULL);
    p->nrow++;
  }
  free(line);
  fclose(fp);
  if (st == CSIM_PLUGIN_OK && p->nrow < 2) {
    snprintf(msg, CSIM_PLUGIN_MSG, "%s: expected a header (time, joint names) and at least two "
             "rows, found %d row(s)", path, p->nrow);
    st = CSIM_PLUGIN_ERROR;
  }
  if (st == CSIM_PLUGIN_OK) st = jt_knots(p, raw, msg);
  free(raw);
  return st;
}

// ---- params, init, step ----------------------------------------------------------------------

// gain `key`: one number (every column) or one per column, each >= lo (> 0 when strict);
// absent: def (NAN: required)
static int jt_gain(const csim_plugin_info* in, const char* key, double lo, int strict, double def,
                   double* out, int n, char msg[CSIM_PLUGIN_MSG]) {
  const char* v = jt_param(in, key);
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
    char count[48] = "a number";
    if (n > 1) snprintf(count, sizeof count, "1 or %d numbers (one per joint column)", n);
    snprintf(msg, CSIM_PLUGIN_MSG, "param '%s': expected %s %s %g, got '%s'", key, count,
             strict ? ">" : ">=", lo, v);
    return CSIM_PLUGIN_ERROR;
  }
  for (int c = k; c < n; c++) out[c] = out[0];
  return CSIM_PLUGIN_OK;
}

static int jt_feedforward(jt_state* p, const csim_plugin_info* in, char msg[CSIM_PLUGIN_MSG]) {
  static const char* const names[] = {"rnea", "gravity", "none"};
  const char* v = jt_param(in, "feedforward");
  p->ff = JT_FF_RNEA;
  if (v) {
    p->ff = 0;
    while (p->ff < 3 && strcmp(names[p->ff], v)) p->ff++;
    if (p->ff == 3) {
      snprintf(msg, CSIM_PLUGIN_MSG, "param 'feedforward': expected one of rnea, gravity, none; "
               "got '%s'", v);
      return CSIM_PLUGIN_ERROR;
    }
  }
  if (p->ff != JT_FF_NONE && in->floating) {
    snprintf(msg, CSIM_PLUGIN_MSG, "robot '%s': feedforward %s needs a fixed base (use "
             "feedforward: none on a floating robot)", in->robot, names[p->ff]);
    return CSIM_PLUGIN_ERROR;
  }
  return CSIM_PLUGIN_OK;
}

// the gains, the model's work arrays and the log names ("<joint>_des")
static int jt_alloc(jt_state* p, const csim_plugin_info* in, char msg[CSIM_PLUGIN_MSG]) {
  int n = p->ncol, nv = p->m->nv;
  csim_error err;
  p->kp = calloc(2 * (size_t)n, sizeof(double));
  p->kd = p->kp ? p->kp + n : NULL;
  p->vfull = calloc(3 * (size_t)nv + 1, sizeof(double));
  p->afull = p->vfull ? p->vfull + nv : NULL;
  p->taufull = p->vfull ? p->vfull + 2 * nv : NULL;
  p->des = calloc(3 * (size_t)n, sizeof(double));
  p->log_names = calloc((size_t)n, sizeof(char*));
  int ok = p->kp && p->vfull && p->des && p->log_names &&
           data_create(p->m, 0, &p->d, &err) == CSIM_OK;
  for (int c = 0; ok && c < n; c++) {
    const char* jn = in->joint_names[p->col_jnt[c]];
    p->log_names[c] = malloc(strlen(jn) + 5);
    ok = p->log_names[c] != NULL;
    if (ok) snprintf(p->log_names[c], strlen(jn) + 5, "%s_des", jn);
  }
  if (!ok) snprintf(msg, CSIM_PLUGIN_MSG, "out of memory");
  return ok ? CSIM_PLUGIN_OK : CSIM_PLUGIN_ERROR;
}

static int jt_init(const csim_plugin_info* in, void** state, int* nlog,
                   const char* const** log_names, char msg[CSIM_PLUGIN_MSG]) {
  const ctl_model* cm = (const ctl_model*)((const char*)in - offsetof(ctl_model, info));
  jt_state* p = calloc(1, sizeof *p);
  *state = p;
  *nlog = 0;
  *log_names = NULL;
  if (!p) {
    snprintf(msg, CSIM_PLUGIN_MSG, "out of memory");
    return CSIM_PLUGIN_ERROR;
  }
  p->cm = cm;
  p->m = cm->m;
  p->nj = in->njoint;
  const char* file = jt_param(in, "file");
  if (!file) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'file' is required (a CSV of time and joint values)");
    return CSIM_PLUGIN_ERROR;
  }
  if (jt_feedforward(p, in, msg) || jt_read(p, in, file, msg) || jt_alloc(p, in, msg) ||
      jt_gain(in, "kp", 0, 1, NAN, p->kp, p->ncol, msg) ||
      jt_gain(in, "kd", 0, 0, 0, p->kd, p->ncol, msg))
    return CSIM_PLUGIN_ERROR;
  *nlog = p->ncol;
  *log_names = (const char* const*)p->log_names;
  return CSIM_PLUGIN_OK;
}

// the feed-forward torques at the sensed q into p->taufull (nv): RNEA(q, v*, a*) where v* is
// qd_des on the tracked joints and the sensed v on the others, a* qdd_des and 0; or g(q)
static void jt_ff(jt_state* p, const ctl_model* cm, const csim_sensors* s) {
  const sim_model* m = p->m;
  sim_data* d = p->d;
  memset(p->afull, 0, sizeof(double) * (size_t)m->nv);
  for (int k = 0; k < p->nj; k++) {
    d->q[m->jnt_qadr[cm->jnt[k]]] = s->q[k];
    p->vfull[m->jnt_dofadr[cm->jnt[k]]] = s->v[k];
  }
  for (int c = 0; c < p->ncol; c++) {
    int dof = m->jnt_dofadr[cm->jnt[p->col_jnt[c]]];
    p->vfull[dof] = p->des[p->ncol + c];
    p->afull[dof] = p->des[2 * p->ncol + c];
  }
  kin_forward(m, d);
  if (p->ff == JT_FF_RNEA) dyn_rnea_full(m, d, p->vfull, p->afull, NULL, 1, p->taufull);
  else dyn_rnea_rest(m, d, NULL, 1, p->taufull);
}

static int jt_step(void* state, const csim_sensors* s, double* tau, double* log,
                   char msg[CSIM_PLUGIN_MSG]) {
  (void)msg;
  jt_state* p = state;
  int n = p->ncol;
  for (int c = 0; c < n; c++) {
    double e[3];
    ctl_spline_eval(p->t, p->y + (size_t)c * p->nrow, p->M + (size_t)c * p->nrow, p->nrow, s->time, e);
    for (int k = 0; k < 3; k++) p->des[k * n + c] = e[k];
    log[c] = e[0];
  }
  if (p->ff != JT_FF_NONE) jt_ff(p, p->cm, s);
  for (int c = 0; c < n; c++) {
    int k = p->col_jnt[c];
    double ff = p->ff == JT_FF_NONE ? 0 : p->taufull[p->m->jnt_dofadr[p->cm->jnt[k]]];
    tau[k] = ff + p->kp[c] * (p->des[c] - s->q[k]) + p->kd[c] * (p->des[n + c] - s->v[k]);
  }
  return CSIM_PLUGIN_OK;
}

static void jt_release(void* state) {
  jt_state* p = state;
  if (!p) return;
  if (p->d) data_free(p->d);
  for (int c = 0; p->log_names && c < p->ncol; c++) free(p->log_names[c]);
  free(p->log_names);
  free(p->col_jnt); free(p->t); free(p->y); free(p->M); free(p->kp); free(p->vfull); free(p->des);
  free(p);
}

const csim_plugin_api* ctl_builtin_joint_trajectory(void) {
  static const csim_plugin_api api = {CSIM_PLUGIN_ABI, "joint_trajectory", jt_init, jt_step,
                                      jt_release};
  return &api;
}
