// inverse_dynamics.c — the built-in inverse-dynamics (computed-torque) controller (control.h
// ctl_builtin_inverse_dynamics): an end-effector frame E (a link of the robot, an offset and a
// rotation in the link's frame) tracks Cartesian keyframes, as seed 001 Sec. VI-C's Kuka does
// (grasp, shake, place).
//
// The keyframe file (keyframes.c) has the columns time, x, y, z (m, world), roll, pitch, yaw
// (rad, E's orientation R = Rz(yaw) Ry(pitch) Rx(roll), URDF's convention) and optionally
// gripper (m, the gripper joints' position); a not-a-knot cubic spline per column gives the
// desired position, velocity and acceleration. Angular velocity and acceleration of the desired
// frame follow from the rpy rates: w = yaw' a1 + pitch' a2 + roll' a3 with a1 = z,
// a2 = Rz y, a3 = Rz Ry x (world), and a = w' (the axes turning with the partial rotations).
//
// The law: resolved acceleration (computed torque in task space),
//   a_task = [p'' + kp (p* - p) + kd (p*' - p'); w*' + kp_rot log(R* R') + kd_rot (w* - w)]
//   qdd = J# (a_task - J' v) + (I - J# J) (kp_null (q_posture - q) - kd_null v)
//   tau = RNEA(q, v, qdd) = M(q) qdd + h(q, v)
// with J the 6 x n world Jacobian of E (kin_jac_point: E's linear and angular velocity) and
// J# = J' (J J' + damping^2 I)^-1 its damped right pseudo-inverse. Why this form and not the
// operational-space one (Lambda = (J M^-1 J')^-1): for a non-redundant or a full-rank task both
// give J qdd = a_task and so the same closed loop, e'' + kd e' + kp e = 0 per task coordinate
// (test_inverse_dynamics checks it in closed form); this one needs only csim's RNEA (no M^-1, no
// factorization) and its null-space term is a plain kinematic projection, which on the 7-dof
// iiwa keeps the elbow near its posture. The dynamic consistency the operational-space form
// adds matters only for null-space forces, not for the tracked frame. J' v (the Jacobian's
// rate times v) is a forward difference of J v along v (J at q + eps v), accurate to O(eps).
// Contact forces are not fed back: the fingers' squeeze and the payload are disturbances.
//
// Gripper: the `gripper` joints are position controlled to the gripper column (PD, kp_gripper,
// kd_gripper, on top of their RNEA share): commanding a position inside the object makes the
// fingers squeeze with kp_gripper times the penetration, as joint_trajectory's fingers do. The
// paper closes with a force; a position command with a known stiffness is that force where the
// fingers stop on the object. Other controlled joints off E's chain get RNEA with qdd = 0.
//
// Fixed-base robots only (the RNEA on the controller's own sim_data, as joint_trajectory's). The
// file is read and the work arrays allocated in init; the step allocates nothing.
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/control.h"
#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/spatial.h"

enum { ID_X, ID_Y, ID_Z, ID_ROLL, ID_PITCH, ID_YAW, ID_GRIP, ID_NCOL };
static const char* const id_cols[ID_NCOL] = {"x", "y", "z", "roll", "pitch", "yaw", "gripper"};
#define ID_MAXGRIP 4
#define ID_EPS 1e-6  // s: the forward difference of J v along v

static const char* const id_log_names[] = {"x_des", "y_des", "z_des", "x", "y", "z",
                                           "rot_err", "gripper_des"};
#define ID_NLOG 8

typedef struct {
  const ctl_model* cm;
  const sim_model* m;
  sim_data* d;            // the controller's own data: kinematics and RNEA at the sensed state
  int nj;                 // the robot's controlled joints
  int body;               // E's body
  double pl[3], Rl[9];    // E in the body frame
  int task;               // 6: pose, 3: position only
  ctl_keyframes kf;
  double kp, kd, kp_rot, kd_rot, kp_null, kd_null, damping;
  int ngrip, grip[ID_MAXGRIP];  // controlled-joint indices of the gripper joints
  double kp_grip, kd_grip;
  int n;                  // dofs of E's chain
  int* dofs;              // (n)
  int* chain_ctl;         // controlled-joint index of each chain dof (n)
  int has_posture;
  double* posture;        // chain joint positions the null-space term pulls to (n)
  double* J, *J2;         // 6 x n each: at q and at q + eps v
  double* qdd, *z, *vch;  // n: chain accelerations, the posture term, chain velocities
  double* vfull, *afull, *taufull;  // nv
} id_state;

// ---- the keyframe file: x, y, z, roll, pitch, yaw and optionally gripper ---------------------

static int id_columns(void* ctx, int n, char* what, size_t nwhat) {
  const id_state* p = ctx;
  int want = p->ngrip ? ID_NCOL : ID_NCOL - 1;
  if (n == want || (!p->ngrip && n == ID_NCOL)) return 0;
  snprintf(what, nwhat, "expected %d columns after 'time' (x, y, z, roll, pitch, yaw%s), found %d",
           want, p->ngrip ? ", gripper: param 'gripper' names the joints" : "", n);
  return 1;
}

static int id_column(void* ctx, int c, const char* name, char* what, size_t nwhat) {
  (void)ctx;
  if (!strcmp(name, id_cols[c])) return 0;
  snprintf(what, nwhat, "expected column '%s', found '%s'", id_cols[c], name);
  return 1;
}

// ---- params ----------------------------------------------------------------------------------

static int id_fail(char msg[CSIM_PLUGIN_MSG], const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int id_fail(char msg[CSIM_PLUGIN_MSG], const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, CSIM_PLUGIN_MSG, fmt, ap);
  va_end(ap);
  return CSIM_PLUGIN_ERROR;
}

// link, offset, rpy: E's body and its frame there
static int id_frame(id_state* p, const csim_plugin_info* in, char msg[CSIM_PLUGIN_MSG]) {
  const sim_model* m = p->m;
  const char* name = ctl_param(in, "link");
  if (!name) return id_fail(msg, "param 'link' is required (the end-effector's link)");
  int l = 0;
  while (l < in->nlink && strcmp(in->link_names[l], name)) l++;
  if (l == in->nlink)
    return id_fail(msg, "param 'link': no link '%s' in the robot", name);
  int ml = p->cm->link[l];
  p->body = m->link_body[ml];
  if (p->body <= 0) return id_fail(msg, "param 'link': link '%s' is welded to the world", name);
  double off[3], rpy[3], Rlk[9], Ro[9];
  if (ctl_param_nums(in, "offset", -INFINITY, 0, 0, off, 3, "axis", msg) ||
      ctl_param_nums(in, "rpy", -INFINITY, 0, 0, rpy, 3, "axis", msg))
    return CSIM_PLUGIN_ERROR;
  // E = link frame (in the body) * (offset, rpy)
  sp_quat2mat(Rlk, m->link_quat + 4 * ml);
  sp_rpy2mat(Ro, rpy);
  sp_mulpose(p->Rl, p->pl, Rlk, m->link_pos + 3 * ml, Ro, off);
  return CSIM_PLUGIN_OK;
}

// gripper: up to ID_MAXGRIP joint names of the robot
static int id_gripper(id_state* p, const csim_plugin_info* in, char msg[CSIM_PLUGIN_MSG]) {
  const char* v = ctl_param(in, "gripper");
  p->ngrip = 0;
  for (const char* s = v; s && *s;) {
    while (*s == ' ' || *s == ',') s++;
    size_t len = strcspn(s, " ,");
    if (!len) break;
    int j = 0;
    while (j < in->njoint && (strlen(in->joint_names[j]) != len ||
                              strncmp(in->joint_names[j], s, len)))
      j++;
    if (j == in->njoint || p->ngrip == ID_MAXGRIP)
      return id_fail(msg, "param 'gripper': expected at most 4 names of the robot's 1-dof joints,"
                     " got '%s'", v);
    p->grip[p->ngrip++] = j;
    s += len;
  }
  return ctl_param_nums(in, "kp_gripper", 0, 0, 2000, &p->kp_grip, 1, "", msg) ||
         ctl_param_nums(in, "kd_gripper", 0, 0, 20, &p->kd_grip, 1, "", msg);
}

// the gains and the task
static int id_gains(id_state* p, const csim_plugin_info* in, char msg[CSIM_PLUGIN_MSG]) {
  const char* task = ctl_param(in, "task");
  p->task = 6;
  if (task && !strcmp(task, "position")) p->task = 3;
  else if (task && strcmp(task, "pose"))
    return id_fail(msg, "param 'task': expected pose or position, got '%s'", task);
  if (ctl_param_nums(in, "kp", 0, 1, 400, &p->kp, 1, "", msg) ||
      ctl_param_nums(in, "kd", 0, 0, 2 * sqrt(p->kp), &p->kd, 1, "", msg) ||
      ctl_param_nums(in, "kp_rot", 0, 1, p->kp, &p->kp_rot, 1, "", msg) ||
      ctl_param_nums(in, "kd_rot", 0, 0, 2 * sqrt(p->kp_rot), &p->kd_rot, 1, "", msg) ||
      ctl_param_nums(in, "kp_null", 0, 0, 100, &p->kp_null, 1, "", msg) ||
      ctl_param_nums(in, "kd_null", 0, 0, 2 * sqrt(p->kp_null), &p->kd_null, 1, "", msg) ||
      ctl_param_nums(in, "damping", 0, 0, 1e-3, &p->damping, 1, "", msg))
    return CSIM_PLUGIN_ERROR;
  return CSIM_PLUGIN_OK;
}

// E's chain: every dof a controlled joint's; work arrays; the posture param (n numbers)
static int id_chain(id_state* p, const csim_plugin_info* in, char msg[CSIM_PLUGIN_MSG]) {
  const sim_model* m = p->m;
  int nv = m->nv, md = m->maxdepth > 0 ? m->maxdepth : 1;
  csim_error err;
  p->dofs = calloc(2 * (size_t)md, sizeof(int));
  p->chain_ctl = p->dofs ? p->dofs + md : NULL;
  p->posture = calloc(16 * (size_t)md + 3 * (size_t)nv, sizeof(double));
  if (!p->dofs || !p->posture || data_create(m, 0, &p->d, &err) != CSIM_OK)
    return id_fail(msg, "out of memory");
  p->J = p->posture + md;
  p->J2 = p->J + 6 * md;
  p->qdd = p->J2 + 6 * md;
  p->z = p->qdd + md;
  p->vch = p->z + md;
  p->vfull = p->vch + md;
  p->afull = p->vfull + nv;
  p->taufull = p->afull + nv;
  p->n = kin_chain(m, p->body, p->dofs);
  for (int i = 0; i < p->n; i++) {
    int k = 0;
    while (k < p->nj && m->jnt_dofadr[p->cm->jnt[k]] != p->dofs[i]) k++;
    if (k == p->nj)
      return id_fail(msg, "param 'link': its chain has a joint the controller does not drive "
                     "(1-dof joints only)");
    p->chain_ctl[i] = k;
  }
  p->has_posture = ctl_param(in, "posture") != NULL;
  if (p->has_posture &&
      ctl_param_nums(in, "posture", -INFINITY, 0, 0, p->posture, p->n, "joint of the chain", msg))
    return CSIM_PLUGIN_ERROR;
  return CSIM_PLUGIN_OK;
}

static int id_init(const csim_plugin_info* in, void** state, int* nlog,
                   const char* const** log_names, char msg[CSIM_PLUGIN_MSG]) {
  const ctl_model* cm = (const ctl_model*)((const char*)in - offsetof(ctl_model, info));
  id_state* p = calloc(1, sizeof *p);
  *state = p;
  *nlog = 0;
  *log_names = NULL;
  if (!p) return id_fail(msg, "out of memory");
  p->cm = cm;
  p->m = cm->m;
  p->nj = in->njoint;
  if (in->floating)
    return id_fail(msg, "robot '%s': inverse_dynamics needs a fixed base", in->robot);
  const char* file = ctl_param(in, "file");
  if (!file)
    return id_fail(msg, "param 'file' is required (a CSV of time, x, y, z, roll, pitch, yaw and "
                   "optionally gripper)");
  if (id_frame(p, in, msg) || id_gripper(p, in, msg) || id_gains(p, in, msg) ||
      id_chain(p, in, msg))
    return CSIM_PLUGIN_ERROR;
  const ctl_csv_spec spec = {"x, y, z, roll, pitch, yaw[, gripper]", "column", id_columns,
                             id_column, p};
  if (ctl_keyframes_read(file, &spec, &p->kf, msg)) return CSIM_PLUGIN_ERROR;
  *nlog = ID_NLOG;
  *log_names = id_log_names;
  return CSIM_PLUGIN_OK;
}

// ---- the step --------------------------------------------------------------------------------

// the desired pose at t: position, velocity, acceleration (pd[3][3] by derivative), rotation,
// angular velocity and acceleration (world), gripper position and rate
static void id_desired(const id_state* p, double t, double pd[3][3], double Rd[9], double wd[3],
                       double ad[3], double g[2]) {
  double c[ID_NCOL][3] = {{0}};
  for (int k = 0; k < p->kf.ncol; k++) ctl_keyframes_eval(&p->kf, k, t, c[k]);
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) pd[k][i] = c[ID_X + i][k];
  double rpy[3] = {c[ID_ROLL][0], c[ID_PITCH][0], c[ID_YAW][0]};
  sp_rpy2mat(Rd, rpy);
  double cy = cos(rpy[2]), sy = sin(rpy[2]), cp = cos(rpy[1]), sp = sin(rpy[1]);
  const double a1[3] = {0, 0, 1}, a2[3] = {-sy, cy, 0}, a3[3] = {cy * cp, sy * cp, -sp};
  double w1[3], w2[3], t2[3], t3[3];
  sp_scale3(w1, a1, c[ID_YAW][1]);             // angular velocity of Rz
  sp_madd3(w2, w1, a2, c[ID_PITCH][1]);        // of Rz Ry
  sp_madd3(wd, w2, a3, c[ID_ROLL][1]);         // of Rz Ry Rx
  sp_cross3(t2, w1, a2);                       // a2' = w1 x a2
  sp_cross3(t3, w2, a3);                       // a3' = w2 x a3
  for (int i = 0; i < 3; i++)
    ad[i] = c[ID_YAW][2] * a1[i] + c[ID_PITCH][2] * a2[i] + c[ID_ROLL][2] * a3[i] +
            c[ID_PITCH][1] * t2[i] + c[ID_ROLL][1] * t3[i];
  g[0] = c[ID_GRIP][0];
  g[1] = c[ID_GRIP][1];
}

// kinematics at the sensed q + eps v; E's pose (R, x) and its Jacobian J (6 x n)
static void id_kin(id_state* p, const csim_sensors* s, double eps, double R[9], double x[3],
                   double* J) {
  const sim_model* m = p->m;
  for (int k = 0; k < p->nj; k++) p->d->q[m->jnt_qadr[p->cm->jnt[k]]] = s->q[k] + eps * s->v[k];
  kin_forward(m, p->d);
  sp_mulpose(R, x, p->d->xmat + 9 * p->body, p->d->xpos + 3 * p->body, p->Rl, p->pl);
  kin_jac_point(m, p->d, p->body, x, p->dofs, J, J + 3 * p->n);
}

// y = J x for the first rows of J, chain vector x (n)
static void id_mul(const id_state* p, const double* J, int rows, const double* x, double* y) {
  for (int r = 0; r < rows; r++) {
    y[r] = 0;
    for (int i = 0; i < p->n; i++) y[r] += J[r * p->n + i] * x[i];
  }
}

// solve (J J' + damping^2 I) u = b in place (task x task, Cholesky); 0, or -1 when not positive
// definite (a singular Jacobian without damping)
static int id_solve(const id_state* p, double* b) {
  int t = p->task, n = p->n;
  double A[36];
  for (int r = 0; r < t; r++)
    for (int c = 0; c <= r; c++) {
      double sum = r == c ? p->damping * p->damping : 0;
      for (int i = 0; i < n; i++) sum += p->J[r * n + i] * p->J[c * n + i];
      for (int k = 0; k < c; k++) sum -= A[r * 6 + k] * A[c * 6 + k];
      if (r == c && !(sum > 1e-300)) return -1;
      A[r * 6 + c] = r == c ? sqrt(sum) : sum / A[c * 6 + c];
    }
  for (int r = 0; r < t; r++) {
    for (int k = 0; k < r; k++) b[r] -= A[r * 6 + k] * b[k];
    b[r] /= A[r * 6 + r];
  }
  for (int r = t - 1; r >= 0; r--) {
    for (int k = r + 1; k < t; k++) b[r] -= A[k * 6 + r] * b[k];
    b[r] /= A[r * 6 + r];
  }
  return 0;
}

// qdd (n) += J' u for the task vector b (u = (J J' + damping^2)^-1 b) scaled by sign
static int id_resolve(id_state* p, double* b, double sign) {
  if (id_solve(p, b)) return -1;
  for (int i = 0; i < p->n; i++)
    for (int r = 0; r < p->task; r++) p->qdd[i] += sign * p->J[r * p->n + i] * b[r];
  return 0;
}

// the task acceleration a (task) from the desired and the sensed E
static void id_task_acc(id_state* p, const csim_sensors* s, double a[6], double log[ID_NLOG],
                        double g[2]) {
  double pd[3][3], Rd[9], wd[3], ad[3], R[9], x[3], R2[9], x2[3], v[6], v2[6], Rt[9], E[9], qe[4];
  double eo[3];
  double* vch = p->vch;
  id_desired(p, s->time, pd, Rd, wd, ad, g);
  for (int i = 0; i < p->n; i++) vch[i] = s->v[p->chain_ctl[i]];
  id_kin(p, s, ID_EPS, R2, x2, p->J2);  // first: J at q + eps v, then J at q stays for the solve
  id_kin(p, s, 0, R, x, p->J);
  id_mul(p, p->J, 6, vch, v);
  id_mul(p, p->J2, 6, vch, v2);
  sp_transpose3(Rt, R);
  sp_mulmm3(E, Rd, Rt);
  sp_mat2quat(qe, E);
  sp_logquat(eo, qe);  // world rotation vector from E to the desired frame
  for (int i = 0; i < 3; i++) {
    a[i] = pd[2][i] + p->kp * (pd[0][i] - x[i]) + p->kd * (pd[1][i] - v[i]) -
           (v2[i] - v[i]) / ID_EPS;
    a[3 + i] = ad[i] + p->kp_rot * eo[i] + p->kd_rot * (wd[i] - v[3 + i]) -
               (v2[3 + i] - v[3 + i]) / ID_EPS;
    log[i] = pd[0][i];
    log[3 + i] = x[i];
  }
  log[6] = sp_norm3(eo);
  log[7] = g[0];
}

static int id_step(void* state, const csim_sensors* s, double* tau, double* log,
                   char msg[CSIM_PLUGIN_MSG]) {
  id_state* p = state;
  const sim_model* m = p->m;
  double a[6], g[2], b[6];
  if (!p->has_posture) {
    for (int i = 0; i < p->n; i++) p->posture[i] = s->q[p->chain_ctl[i]];
    p->has_posture = 1;
  }
  id_task_acc(p, s, a, log, g);
  // null space: z - J# J z, z the posture PD
  for (int i = 0; i < p->n; i++) {
    int k = p->chain_ctl[i];
    p->z[i] = p->kp_null * (p->posture[i] - s->q[k]) - p->kd_null * s->v[k];
    p->qdd[i] = p->z[i];
  }
  id_mul(p, p->J, p->task, p->z, b);
  int st = id_resolve(p, b, -1) || id_resolve(p, a, 1);
  if (st) return id_fail(msg, "the end-effector's Jacobian is singular (set param damping > 0)");
  memset(p->afull, 0, sizeof(double) * (size_t)m->nv);
  memset(p->vfull, 0, sizeof(double) * (size_t)m->nv);
  for (int k = 0; k < p->nj; k++) p->vfull[m->jnt_dofadr[p->cm->jnt[k]]] = s->v[k];
  for (int i = 0; i < p->n; i++) p->afull[p->dofs[i]] = p->qdd[i];
  dyn_rnea_full(m, p->d, p->vfull, p->afull, NULL, 1, p->taufull);
  for (int k = 0; k < p->nj; k++) tau[k] = p->taufull[m->jnt_dofadr[p->cm->jnt[k]]];
  for (int j = 0; j < p->ngrip; j++) {
    int k = p->grip[j];
    tau[k] += p->kp_grip * (g[0] - s->q[k]) + p->kd_grip * (g[1] - s->v[k]);
  }
  return CSIM_PLUGIN_OK;
}

static void id_release(void* state) {
  id_state* p = state;
  if (!p) return;
  if (p->d) data_free(p->d);
  ctl_keyframes_free(&p->kf);
  free(p->dofs);
  free(p->posture);
  free(p);
}

const csim_plugin_api* ctl_builtin_inverse_dynamics(void) {
  static const csim_plugin_api api = {CSIM_PLUGIN_ABI, "inverse_dynamics", id_init, id_step,
                                      id_release};
  return &api;
}
