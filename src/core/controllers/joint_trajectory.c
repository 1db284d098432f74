// joint_trajectory.c — the built-in joint trajectory tracker (control.h
// ctl_builtin_joint_trajectory): a keyframe file (CSV of time and joint values) interpolated by a
// not-a-knot cubic spline per joint, tracked by PD plus an inverse-dynamics feed-forward from
// csim's own RNEA on the controller's copy of the model:
//
//   tau = RNEA(q, qd_des, qdd_des) + kp (q_des - q) + kd (qd_des - v)     (feedforward: rnea)
//   tau = g(q) + kp (q_des - q) + kd (qd_des - v)                        (feedforward: gravity)
//   tau = kp (q_des - q) + kd (qd_des - v)                               (feedforward: none)
//
// The file and the spline are keyframes.c's (shared with inverse_dynamics.c; why not-a-knot is
// said there). Before the first row the trajectory holds the first row, after the last it holds
// the last (qd_des = qdd_des = 0 there).
//
// Like quadruped.c, a built-in that reads its ctl_model (the const sim_model) through
// &ctl_model.info and keeps its own sim_data for the RNEA: the run's data is never touched. The
// file is read and the splines are prepared in init; the step allocates nothing.
//
// params: file (CSV; the scenario compiler resolves a relative path against the scenario's
// directory), kp (> 0), kd (>= 0): one value, or one per joint column of the file in its order;
// feedforward: rnea (default), gravity or none.
#include <math.h>
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
  int ff;               // JT_FF_*
  int* col_jnt;         // controlled-joint index of each column                     (ncol)
  ctl_keyframes kf;     // the file's knots and splines (keyframes.c)
  double* kp, *kd;      //                                                           (ncol)
  double* vfull, *afull, *taufull;  // nv each
  double* des;          // q_des, qd_des, qdd_des of each column this instant   (3 x ncol)
  char** log_names;     // "<joint>_des"                                             (ncol)
} jt_state;

// ---- the keyframe file (keyframes.c): its columns are joint names ----------------------------

static int jt_columns(void* ctx, int n, char* what, size_t nwhat) {
  jt_state* p = ctx;
  p->ncol = n;
  p->col_jnt = calloc((size_t)n, sizeof(int));
  if (!p->col_jnt) snprintf(what, nwhat, "out of memory");
  return p->col_jnt == NULL;
}

// column c names a 1-dof joint of the robot, at most once
static int jt_column(void* ctx, int c, const char* name, char* what, size_t nwhat) {
  jt_state* p = ctx;
  const csim_plugin_info* in = &p->cm->info;
  int j = 0;
  while (j < in->njoint && strcmp(in->joint_names[j], name)) j++;
  if (j == in->njoint) {
    snprintf(what, nwhat, "unknown joint '%s' (not a 1-dof joint of robot '%s')", name,
             in->robot);
    return 1;
  }
  for (int k = 0; k < c; k++)
    if (p->col_jnt[k] == j) {
      snprintf(what, nwhat, "joint '%s' named twice", name);
      return 1;
    }
  p->col_jnt[c] = j;
  return 0;
}

static int jt_read(jt_state* p, const char* path, char msg[CSIM_PLUGIN_MSG]) {
  const ctl_csv_spec spec = {"joint names", "joint", jt_columns, jt_column, p};
  return ctl_keyframes_read(path, &spec, &p->kf, msg);
}

// ---- params, init, step ----------------------------------------------------------------------

static int jt_feedforward(jt_state* p, const csim_plugin_info* in, char msg[CSIM_PLUGIN_MSG]) {
  static const char* const names[] = {"rnea", "gravity", "none"};
  const char* v = ctl_param(in, "feedforward");
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
  const char* file = ctl_param(in, "file");
  if (!file) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'file' is required (a CSV of time and joint values)");
    return CSIM_PLUGIN_ERROR;
  }
  if (jt_feedforward(p, in, msg) || jt_read(p, file, msg) || jt_alloc(p, in, msg) ||
      ctl_param_nums(in, "kp", 0, 1, NAN, p->kp, p->ncol, "joint column", msg) ||
      ctl_param_nums(in, "kd", 0, 0, 0, p->kd, p->ncol, "joint column", msg))
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
    ctl_keyframes_eval(&p->kf, c, s->time, e);
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
  ctl_keyframes_free(&p->kf);
  free(p->col_jnt); free(p->kp); free(p->vfull); free(p->des);
  free(p);
}

const csim_plugin_api* ctl_builtin_joint_trajectory(void) {
  static const csim_plugin_api api = {CSIM_PLUGIN_ABI, "joint_trajectory", jt_init, jt_step,
                                      jt_release};
  return &api;
}
