// quadruped.c — the built-in `quadruped_walk` controller (control.h): the structure of the
// reactive walking controller of Léziart et al. (ICRA 2021; seed 000 ref. [69], which drives
// Solo-12 in 000 Sec. IV-D and 002 Exp. 3) on any quadruped whose legs are three 1-dof joints:
//
//   gait        a trot: diagonal legs in phase, stance and swing halves of `gait_period`
//   footsteps   Raibert's heuristic with a velocity feedback term (Raibert 1986; Di Carlo et al.
//               IROS 2018 eq. 16): p = hip at touchdown + T_stance/2 v + k (v - v_cmd)
//   MPC         convex MPC on the single rigid body (Di Carlo et al. 2018, Sec. III): state
//               [roll pitch yaw, p, omega, v] linearised about the current yaw, Euler steps of
//               `mpc_dt` over `horizon` steps, condensed to a QP in the stance forces:
//                 min 1/2 U'HU + g'U  s.t. every force in its friction cone (mu)
//               which is the problem csim's CCP model solves (000 Sec. III: the CCP is the KKT
//               system of a QP over Coulomb cones), so it is solved by csim's own ccp/admm
//               solver (solvers/solver.h) — no second QP solver
//   legs        stance: tau = -J' f (the MPC's first force, Jacobian transpose); swing: a
//               Cartesian PD on the foot along a cubic path from lift-off to the foothold with a
//               raised apex, tau = J' (Kp (p_ref - p) + Kd (v_ref - v))
//
// Contact is scheduled (the gait's timing), not detected. The controller sees the robot only
// through its sensors (csim_sensors: base pose and twist, joint q and v) and its own copy of the
// kinematics (the model's tree on a private sim_data), as a real controller has its URDF.
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/control.h"
#include "core/kinematics.h"
#include "core/solvers/solver.h"
#include "core/spatial.h"

#define QW_LEGS 4
#define QW_NX 12  // [roll pitch yaw, p (3), omega world (3), v (3)]
#define QW_SCHED 32  // rows of a velocity schedule

static const char* const qw_logs[] = {
    "vx_cmd", "vy_cmd", "wz_cmd", "vx", "vy", "wz", "height", "mpc_iterations",
    "mpc_eps_abs", "foothold_0_x", "foothold_0_y", "foothold_1_x", "foothold_1_y",
    "foothold_2_x", "foothold_2_y", "foothold_3_x", "foothold_3_y"};
enum { QW_NLOG = sizeof qw_logs / sizeof qw_logs[0] };

typedef struct {
  const csim_plugin_info* cm_info;  // &ctl_model.info: a built-in reaches its ctl_model from it
  const sim_model* m;
  sim_data* d;                   // the controller's own kinematics at the sensed state
  int nj;                        // controlled joints
  int base;                      // base body
  double mass;
  double inertia[9];             // about the com, base axes, at the first instant
  int leg_jnt[QW_LEGS][3];       // controlled-joint indices of each leg, hip to knee
  int foot_body[QW_LEGS];
  int foot_link[QW_LEGS];        // the foot's link among the sensed links (contact flags)
  double foot_local[QW_LEGS][3]; // foot point in its body frame
  double hip[QW_LEGS][3];        // the foot under the hip: base frame, at the first instant
  double offset[QW_LEGS];        // gait phase offset (trot: diagonal pairs)
  // params
  double vcmd[3];                // vx, vy (base frame), yaw rate: the command now
  double vel0[3];                // param velocity: the command before the schedule's first row
  int nsched;                    // param schedule: rows [t, vx, vy, yaw rate], t increasing
  double sched[QW_SCHED][4];
  double gait_period, step_height, height, mpc_dt, mu, kp_swing, kd_swing, kd_stance, k_fb, alpha;
  double beta;                   // proximal weight toward the last solve's plan (qw_pull)
  double Qw[QW_NX];
  int horizon;
  int stand;                     // gait 'stand': every leg in stance throughout
  int rough;                     // terrain: 1 = rough ground (qw_rough below), 0 = flat
  int hold;                      // heading: 1 = hold the commanded heading (qw_heading), 0 = the
                                 // sensed yaw's; default 1 on rough ground, 0 on flat
  double descend;                // rough: m/s a late foot keeps descending at to find ground
  double foot_r;                 // the foot sphere's radius (the foot point is its centre)
  int hmap;                      // rough: the ground geom whose height map the robot reads
                                 // (height_map: 1 and a height-field ground), else -1
  double mpc_tol;                // the MPC solver's tolerance (model residual, scaled QP)
  int mpc_maxit;                 // and its iteration cap
  // MPC work, sized for every leg in stance over the horizon
  solver* slv;
  solver_blocks* blk;
  int maxvar;
  double *H, *g, *Rd, *scale, *lam, *mu_arr, *gam, *xfree, *xref, *col;
  int *var_leg, *var_step;
  // the last solve's forces and duals (unscaled) by step and leg, (4 j + l) 3, for the warm
  // start of the next: NaN where that step and leg had no variable
  double *prev_f, *prev_d, *dual;
  // run state
  int started, mpc_every, since_mpc;
  double t0;
  double t_start, t_now;         // the first instant's time, this instant's
  double f_des[QW_LEGS][3];      // world ground reaction forces of the stance legs
  double path[2];                // the commanded path's point now (xy): the commanded velocity
                                 // integrated, kept within path_lead of the com (the MPC's
                                 // position reference: it removes the steady velocity error)
  int stance[QW_LEGS];
  // rough ground: contact sensed, touched down in this stance (or early, late in the swing),
  // and the height where each foot last touched the ground
  int contact[QW_LEGS], landed[QW_LEGS];
  double touch[QW_LEGS][3];
  double plane[5];               // ground plane fitted to the touch points: z = plane[0] +
                                 // plane[1] (x - plane[3]) + plane[2] (y - plane[4]), world
  double hrel;                   // base height above that plane (rough), m
  double yaw_ref;                // heading hold: the commanded heading (yaw_rate integrated)
  double liftoff[QW_LEGS][3];    // swing start
  double foothold[QW_LEGS][3];   // swing target (world)
  double mpc_s, mpc_eps;
  int mpc_iters;
  // sensed, this instant
  double com[3], vcom[3], R[9], rpy[3], omega[3];
  double foot[QW_LEGS][3], vfoot[QW_LEGS][3];
  double J[QW_LEGS][9];          // d foot / d leg joints, world (3 x 3 row-major)
} qw;

// ---- params ------------------------------------------------------------------------------------

static const char* qw_param(const csim_plugin_info* in, const char* key) {
  for (int k = 0; k < in->nparam; k++)
    if (!strcmp(in->param_keys[k], key)) return in->param_values[k];
  return NULL;
}

// n numbers of param key into out (defaults kept when absent); a count or a value out of range
// is an error naming the key
static int qw_nums(const csim_plugin_info* in, const char* key, int n, double lo, double* out,
                   char msg[CSIM_PLUGIN_MSG]) {
  const char* v = qw_param(in, key);
  if (!v) return CSIM_PLUGIN_OK;
  int k = 0;
  for (const char* s = v; *s && k <= n;) {
    while (*s == ' ' || *s == ',') s++;
    if (!*s) break;
    char* end;
    double x = strtod(s, &end);
    if (end == s || !isfinite(x) || x < lo) k = n + 1;
    else if (k < n) out[k] = x;
    k++;
    s = end;
  }
  if (k != n) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param '%s': expected %d number%s%s, got '%s'", key, n,
             n > 1 ? "s" : "", lo > -INFINITY ? (lo > 0 ? " > 0" : " >= 0") : "", v);
    return CSIM_PLUGIN_ERROR;
  }
  return CSIM_PLUGIN_OK;
}

// param schedule: rows of 4 numbers (time, vx, vy, yaw rate), a piecewise-constant command
// from each row's run time on; times >= 0 and increasing, at most QW_SCHED rows
static int qw_schedule(qw* w, const csim_plugin_info* in, char msg[CSIM_PLUGIN_MSG]) {
  const char* v = qw_param(in, "schedule");
  if (!v) return CSIM_PLUGIN_OK;
  double* x = &w->sched[0][0];
  int k = 0, bad = 0;
  for (const char* s = v; *s && !bad;) {
    while (*s == ' ' || *s == ',') s++;
    if (!*s) break;
    char* end;
    double y = strtod(s, &end);
    bad = end == s || !isfinite(y) || k == 4 * QW_SCHED;
    if (!bad) x[k++] = y;
    s = end;
  }
  w->nsched = k / 4;
  for (int r = 0; r < w->nsched && !bad; r++)
    bad = w->sched[r][0] < 0 || (r > 0 && w->sched[r][0] <= w->sched[r - 1][0]);
  if (bad || k == 0 || k % 4) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'schedule': expected rows of 4 numbers (time, vx, vy, "
             "yaw_rate), times >= 0 and increasing, at most %d rows, got '%s'", QW_SCHED, v);
    return CSIM_PLUGIN_ERROR;
  }
  return CSIM_PLUGIN_OK;
}

// the command at run time t: the schedule's last row at or before t, `velocity` before its first
static void qw_command(qw* w, double t) {
  const double* c = w->vel0;
  for (int r = 0; r < w->nsched && w->sched[r][0] <= t; r++) c = w->sched[r] + 1;
  memcpy(w->vcmd, c, sizeof w->vcmd);
}

static int qw_params(qw* w, const csim_plugin_info* in, char msg[CSIM_PLUGIN_MSG]) {
  // Léziart et al.'s Solo-12 settings where they apply: 0.32 s trot, 20 ms MPC steps over one
  // gait period, weights on [rpy, p, omega, v] (Di Carlo et al. 2018, Table II shape). The
  // force weight alpha (toward each leg's share of the weight, qw_qp) is 1e-3: at 1e-5 the
  // condensed QP's condition number was 1.5e7 (a trot's two stance feet leave the force along
  // the line between them free at every step: 16 null directions, and forces of neighbouring
  // steps act almost alike) and ADMM needed 2900 iterations per solve (5000 at the cap on 40 %
  // of them; 43 s of wall time for 10 s of flat walking); at 1e-3, 30 iterations. The
  // horizontal velocity weight is 4 (not 1) so that the stronger force weight keeps the flat
  // walk's speed (0.300 m/s over the last 5 s, against 0.289 with 1)
  static const double Q0[QW_NX] = {10, 10, 10, 5, 5, 50, 0.2, 0.2, 0.5, 4, 4, 1};
  memcpy(w->Qw, Q0, sizeof Q0);
  w->gait_period = 0.32;
  w->step_height = 0.05;
  w->height = 0;  // 0: the base height at the first instant
  w->mpc_dt = 0.02;
  w->mu = 0.9;
  w->kp_swing = 200;
  w->kd_swing = 8;
  w->kd_stance = 0;
  w->k_fb = 0.03;
  w->alpha = 1e-3;
  w->beta = 0;
  w->descend = 0.3;
  w->mpc_tol = 1e-6;
  double hz = 16, maxit = 5000;
  if (qw_nums(in, "velocity", 3, -INFINITY, w->vcmd, msg) ||
      qw_nums(in, "gait_period", 1, 1e-3, &w->gait_period, msg) ||
      qw_nums(in, "step_height", 1, 0, &w->step_height, msg) ||
      qw_nums(in, "height", 1, 0, &w->height, msg) ||
      qw_nums(in, "mpc_dt", 1, 1e-4, &w->mpc_dt, msg) ||
      qw_nums(in, "horizon", 1, 1, &hz, msg) || qw_nums(in, "mu", 1, 1e-3, &w->mu, msg) ||
      qw_nums(in, "kp_swing", 1, 0, &w->kp_swing, msg) ||
      qw_nums(in, "kd_swing", 1, 0, &w->kd_swing, msg) ||
      qw_nums(in, "kd_stance", 1, 0, &w->kd_stance, msg) ||
      qw_nums(in, "k_feedback", 1, 0, &w->k_fb, msg) ||
      qw_nums(in, "weights", QW_NX, 0, w->Qw, msg) ||
      qw_nums(in, "force_weight", 1, 1e-12, &w->alpha, msg) ||
      qw_nums(in, "force_prox", 1, 0, &w->beta, msg) ||
      qw_nums(in, "descend", 1, 0, &w->descend, msg) ||
      qw_nums(in, "mpc_tolerance", 1, 1e-300, &w->mpc_tol, msg) ||
      qw_nums(in, "mpc_iterations", 1, 1, &maxit, msg) || qw_schedule(w, in, msg))
    return CSIM_PLUGIN_ERROR;
  memcpy(w->vel0, w->vcmd, sizeof w->vel0);
  w->horizon = (int)hz;
  w->mpc_maxit = (int)fmin(maxit, 1e6);
  const char* gait = qw_param(in, "gait");
  if (gait && strcmp(gait, "trot") && strcmp(gait, "stand")) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'gait': expected trot or stand, got '%s'", gait);
    return CSIM_PLUGIN_ERROR;
  }
  w->stand = gait && !strcmp(gait, "stand");
  const char* terrain = qw_param(in, "terrain");
  if (terrain && strcmp(terrain, "flat") && strcmp(terrain, "rough")) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'terrain': expected flat or rough, got '%s'", terrain);
    return CSIM_PLUGIN_ERROR;
  }
  w->rough = terrain && !strcmp(terrain, "rough");
  const char* heading = qw_param(in, "heading");
  if (heading && strcmp(heading, "sensed") && strcmp(heading, "hold")) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'heading': expected sensed or hold, got '%s'", heading);
    return CSIM_PLUGIN_ERROR;
  }
  w->hold = heading ? !strcmp(heading, "hold") : w->rough;
  double hmap = 0;
  if (qw_nums(in, "height_map", 1, 0, &hmap, msg)) return CSIM_PLUGIN_ERROR;
  w->hmap = -1;
  for (int g = 0; hmap > 0 && w->rough && g < w->m->ngeom; g++)
    if (w->m->geom_type[g] == MODEL_GEOM_HFIELD && w->m->hfield_nx >= 2 && w->m->hfield_ny >= 2)
      w->hmap = g;
  if (hmap > 0 && w->hmap < 0) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'height_map': needs terrain: rough and a heightfield "
             "ground (world.ground.type: heightfield)");
    return CSIM_PLUGIN_ERROR;
  }
  if (w->horizon != hz || w->horizon > 200) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'horizon': expected an integer in [1, 200], got %g", hz);
    return CSIM_PLUGIN_ERROR;
  }
  w->mpc_every = (int)lround(w->mpc_dt / in->period);
  if (w->mpc_every < 1 || fabs(w->mpc_every * in->period - w->mpc_dt) > 1e-9 * w->mpc_dt) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'mpc_dt' (%g s) must be a multiple of the control "
             "period (%g s)", w->mpc_dt, in->period);
    return CSIM_PLUGIN_ERROR;
  }
  return CSIM_PLUGIN_OK;
}

// ---- the robot's legs --------------------------------------------------------------------------

// the leg a controlled joint belongs to: the base's child body above it
static int leg_root(const sim_model* m, int base, int body) {
  while (body >= 0 && m->body_parent[body] != base) body = m->body_parent[body];
  return body;
}

// four legs of three joints each (in model order: hip to knee), and each leg's foot: the link
// of the leg's last body farthest from that body's origin (a URDF's foot frame)
static int qw_legs(qw* w, const ctl_model* cm, char msg[CSIM_PLUGIN_MSG]) {
  const sim_model* m = w->m;
  int roots[QW_LEGS], nleg = 0, count[QW_LEGS] = {0};
  for (int k = 0; k < cm->info.njoint; k++) {
    int r = leg_root(m, w->base, m->jnt_body[cm->jnt[k]]), l = 0;
    while (l < nleg && roots[l] != r) l++;
    if (l == nleg && nleg < QW_LEGS) roots[nleg++] = r;
    if (l == QW_LEGS || count[l] == 3) {
      snprintf(msg, CSIM_PLUGIN_MSG, "robot '%s': expected 4 legs of 3 joints below the base",
               cm->info.robot);
      return CSIM_PLUGIN_ERROR;
    }
    w->leg_jnt[l][count[l]++] = k;
  }
  for (int l = 0; l < QW_LEGS; l++) {
    if (nleg != QW_LEGS || count[l] != 3) {
      snprintf(msg, CSIM_PLUGIN_MSG, "robot '%s': expected 4 legs of 3 joints below the base, "
               "found %d leg(s)", cm->info.robot, nleg);
      return CSIM_PLUGIN_ERROR;
    }
    int b = m->jnt_body[cm->jnt[w->leg_jnt[l][2]]];
    double best = -1;
    w->foot_body[l] = b;
    w->foot_link[l] = -1;
    for (int k = 0; k < cm->info.nlink; k++) {
      int ln = cm->link[k];
      double r = sp_norm3(m->link_pos + 3 * ln);
      if (m->link_body[ln] == b && r > best) {
        best = r;
        w->foot_link[l] = k;
        sp_copy3(w->foot_local[l], m->link_pos + 3 * ln);
      }
    }
  }
  return CSIM_PLUGIN_OK;
}

// ---- sensing: the controller's own kinematics at the sensed state -------------------------------

static void qw_state_in(qw* w, const ctl_model* cm, const csim_sensors* s) {
  const sim_model* m = w->m;
  sim_data* d = w->d;
  int jq = m->jnt_qadr[m->body_jnt[w->base]], jv = m->jnt_dofadr[m->body_jnt[w->base]];
  double R[9], wb[3], c[3];
  sp_quat2mat(R, s->base_quat);
  sp_copy3(d->q + jq, s->base_pos);
  memcpy(d->q + jq + 3, s->base_quat, 4 * sizeof(double));
  // free joint velocity: com velocity (world) = origin velocity + omega x (R c); omega body
  sp_mulmv3(c, R, m->body_com + 3 * w->base);
  sp_cross3(wb, s->base_angvel, c);
  sp_add3(d->v + jv, s->base_linvel, wb);
  sp_copy3(d->v + jv + 3, s->base_angvel_body);
  for (int k = 0; k < cm->info.njoint; k++) {
    d->q[m->jnt_qadr[cm->jnt[k]]] = s->q[k];
    d->v[m->jnt_dofadr[cm->jnt[k]]] = s->v[k];
  }
  kin_forward(m, d);
  kin_velocity(m, d);
  // the single rigid body is the base: its com and com velocity (the legs' swing would shake
  // a whole-robot com the model has no term for)
  sp_copy3(w->com, d->xcom + 3 * w->base);
  sp_copy3(w->vcom, d->v + jv);
  memcpy(w->R, R, sizeof R);
  w->rpy[0] = atan2(R[7], R[8]);
  w->rpy[1] = -asin(fmax(-1, fmin(1, R[6])));
  w->rpy[2] = atan2(R[3], R[0]);
  sp_copy3(w->omega, s->base_angvel);
}

// feet positions, velocities and leg Jacobians (world)
static void qw_feet(qw* w, const ctl_model* cm) {
  const sim_model* m = w->m;
  const sim_data* d = w->d;
  int dofs[64];
  double jacp[3 * 64];
  for (int l = 0; l < QW_LEGS; l++) {
    int b = w->foot_body[l];
    const double* cv = d->cvel + 6 * b;
    double t[3];
    sp_xform(w->foot[l], d->xmat + 9 * b, d->xpos + 3 * b, w->foot_local[l]);
    sp_cross3(t, cv + 3, w->foot_local[l]);
    sp_add3(t, t, cv);
    sp_mulmv3(w->vfoot[l], d->xmat + 9 * b, t);
    int n = kin_jac_point(m, d, b, w->foot[l], dofs, jacp, NULL);
    for (int c = 0; c < 3; c++) {
      int dof = m->jnt_dofadr[cm->jnt[w->leg_jnt[l][c]]], col = 0;
      while (col < n && dofs[col] != dof) col++;
      for (int i = 0; i < 3; i++) w->J[l][3 * i + c] = col < n ? jacp[i * n + col] : 0;
    }
  }
}

// ---- gait and footholds --------------------------------------------------------------------------

// gait phase of leg l at time t in [0, 1): stance in [0, 1/2), swing in [1/2, 1)
static double qw_phase(const qw* w, int l, double t) {
  if (w->stand || t < w->t0) return 0;
  double p = (t - w->t0) / w->gait_period + w->offset[l];
  return p - floor(p);
}

// the MPC's heading: the sensed yaw (`heading: sensed`, flat ground's default, as Léziart et
// al.); or the commanded heading, at most 0.3 rad from the yaw (`heading: hold`, rough ground's
// default: there slipping feet turn the robot and a heading that follows the yaw lets it wander
// off, a terrain seed turned it around in 10 s; a robot turned around by a fall turns back at the
// MPC's pace). ANYmal on flat ground turned 0.2 rad in 10 s with the sensed yaw
static double qw_heading(const qw* w) {
  if (!w->hold) return w->rpy[2];
  return w->rpy[2] + fmax(-0.3, fmin(0.3, remainder(w->yaw_ref - w->rpy[2], 2 * M_PI)));
}

// the commanded velocity in world axes (zero while a rough-ground robot still stands up)
static void qw_cmd_world(const qw* w, double v[3]) {
  double h = w->hold ? w->yaw_ref : w->rpy[2];  // travel along the commanded heading
  double c = cos(h), s = sin(h), k = isinf(w->t0) ? 0 : 1;
  v[0] = k * (c * w->vcmd[0] - s * w->vcmd[1]);
  v[1] = k * (s * w->vcmd[0] + c * w->vcmd[1]);
  v[2] = 0;
}

// the fitted ground plane's height at p's xy (rough ground)
static double qw_plane_z(const qw* w, const double p[3]) {
  return w->plane[0] + w->plane[1] * (p[0] - w->plane[3]) + w->plane[2] * (p[1] - w->plane[4]);
}

// height_map: the ground's height at (x, y) as a robot's terrain map gives it (here the height
// field itself, read from the model: a perfect map; a real robot builds one from its depth
// sensors). The field's triangles (collision_hfield.c: cell split along its diagonal); outside
// the grid, the plane at the field's zero height
static double qw_map_z(const qw* w, double x, double y) {
  const sim_model* m = w->m;
  const double *pos = m->geom_pos + 3 * w->hmap, *half = m->geom_size + 3 * w->hmap;
  int nx = m->hfield_nx, ny = m->hfield_ny;
  double fx = (x - pos[0] + half[0]) / (m->hfield_size[0] / (nx - 1));
  double fy = (y - pos[1] + half[1]) / (m->hfield_size[1] / (ny - 1));
  int ix = (int)floor(fx), iy = (int)floor(fy);
  if (!(fx >= 0 && fy >= 0) || ix >= nx - 1 || iy >= ny - 1) return pos[2];
  const double* h = m->hfield_data + (long)iy * nx + ix;
  double u = fx - ix, v = fy - iy, h00 = h[0], h10 = h[1], h01 = h[nx], h11 = h[nx + 1];
  return pos[2] + (u >= v ? h00 + u * (h10 - h00) + v * (h11 - h10)
                          : h00 + v * (h01 - h00) + u * (h11 - h01));
}

// the highest ground under the straight path from a to b (height map, every 2 cm)
static double qw_map_max(const qw* w, const double a[3], const double b[3]) {
  int n = 1 + (int)(hypot(b[0] - a[0], b[1] - a[1]) / 0.02);
  double z = -INFINITY;
  for (int k = 0; k <= n; k++) {
    double s = (double)k / n;
    z = fmax(z, qw_map_z(w, a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1])));
  }
  return z;
}

// Raibert's foothold for leg l touching down `ttd` s from now: the hip carried there by the
// commanded velocity, plus half a stance of the current velocity and the feedback on its error
static void qw_foothold(const qw* w, int l, double ttd, double ground, double p[3]) {
  double vc[3], c = cos(w->rpy[2]), s = sin(w->rpy[2]);
  qw_cmd_world(w, vc);
  const double* h = w->hip[l];
  double tst = w->gait_period / 2;
  for (int i = 0; i < 2; i++) {
    double hw = i == 0 ? c * h[0] - s * h[1] : s * h[0] + c * h[1];
    p[i] = w->com[i] + hw + vc[i] * ttd + tst / 2 * w->vcom[i] + w->k_fb * (w->vcom[i] - vc[i]);
  }
  p[2] = !w->rough ? ground : w->hmap >= 0 ? qw_map_z(w, p[0], p[1]) + w->foot_r : qw_plane_z(w, p);
}

// the ground height the feet stand on: the mean of the stance feet (the first instant's when
// none is in stance)
static double qw_ground(const qw* w, double fallback) {
  double z = 0;
  int n = 0;
  for (int l = 0; l < QW_LEGS; l++)
    if (w->stance[l]) {
      z += w->foot[l][2];
      n++;
    }
  return n ? z / n : fallback;
}

// swing reference at progress u in [0, 1]: a cubic from lift-off to foothold, raised by
// step_height 64 u^3 (1 - u)^3 (apex at mid-swing); velocities per second of swing time tsw
static void qw_swing_ref(const qw* w, int l, double u, double tsw, double p[3], double v[3]) {
  double s = u * u * (3 - 2 * u), ds = 6 * u * (1 - u) / tsw;
  double b = 64 * pow(u * (1 - u), 3), db = 192 * u * u * (1 - u) * (1 - u) * (1 - 2 * u) / tsw;
  for (int i = 0; i < 3; i++) {
    p[i] = w->liftoff[l][i] + (w->foothold[l][i] - w->liftoff[l][i]) * s;
    v[i] = (w->foothold[l][i] - w->liftoff[l][i]) * ds;
  }
  if (!w->rough) {
    p[2] += w->step_height * b;
    v[2] += w->step_height * db;
    return;
  }
  // rough ground: up to step_height above the higher of lift-off and foothold by mid-swing,
  // then down, so the foot clears a bump between them as high as the step (the apex of
  // Léziart et al.'s swing is likewise a height above the ground, not above the chord)
  double z0 = w->liftoff[l][2], z1 = w->foothold[l][2];
  double top = fmax(z0, z1);
  if (w->hmap >= 0) top = fmax(top, qw_map_max(w, w->liftoff[l], w->foothold[l]) + w->foot_r);
  double apex = top + w->step_height, x = u < 0.5 ? 2 * u : 2 * u - 1;
  double a = u < 0.5 ? z0 : apex, e = u < 0.5 ? apex : z1;
  p[2] = a + (e - a) * x * x * (3 - 2 * x);
  v[2] = (e - a) * 6 * x * (1 - x) * 2 / tsw;
}

// rough ground: the plane z = z0 + a (x - xm) + b (y - ym) fitted to the feet's last touch
// points (least squares; a small ridge keeps it defined when the feet are nearly in line)
static void qw_plane(qw* w) {
  double xm = 0, ym = 0, zm = 0, sxx = 1e-4, sxy = 0, syy = 1e-4, sxz = 0, syz = 0;
  for (int l = 0; l < QW_LEGS; l++) {
    xm += w->touch[l][0] / QW_LEGS;
    ym += w->touch[l][1] / QW_LEGS;
    zm += w->touch[l][2] / QW_LEGS;
  }
  for (int l = 0; l < QW_LEGS; l++) {
    double x = w->touch[l][0] - xm, y = w->touch[l][1] - ym, z = w->touch[l][2] - zm;
    sxx += x * x; sxy += x * y; syy += y * y; sxz += x * z; syz += y * z;
  }
  double det = sxx * syy - sxy * sxy;
  double a = (syy * sxz - sxy * syz) / det, b = (sxx * syz - sxy * sxz) / det;
  double r[5] = {zm, fmax(-0.5, fmin(0.5, a)), fmax(-0.5, fmin(0.5, b)), xm, ym};
  memcpy(w->plane, r, sizeof r);
}

// ---- the MPC -------------------------------------------------------------------------------------

// the stance forces of the horizon: one variable (3 force components) per leg and step in stance,
// with the position of its foot then (current foot in the current stance, else the foothold)
static int qw_vars(qw* w, double t, double ground, double* rpos) {
  int n = 0;
  for (int j = 0; j < w->horizon; j++)
    for (int l = 0; l < QW_LEGS; l++) {
      double tj = t + j * w->mpc_dt, ph = qw_phase(w, l, tj);
      if (ph >= 0.5) continue;
      if (w->rough && j == 0 && !w->landed[l]) continue;  // not touching yet: no force now
      // still in the stance it is in now: no touchdown between now and tj
      double since_td = ph * w->gait_period;
      if (w->stance[l] && since_td >= j * w->mpc_dt - 1e-12) sp_copy3(rpos + 3 * n, w->foot[l]);
      else qw_foothold(w, l, j * w->mpc_dt - since_td, ground, rpos + 3 * n);
      w->var_leg[n] = l;
      w->var_step[n] = j;
      n++;
    }
  return n;
}

// the reference state at step k (k = 1..horizon) and the current state x0
static void qw_xref(const qw* w, int k, double x[QW_NX]) {
  double vc[3];
  qw_cmd_world(w, vc);
  double t = k * w->mpc_dt;
  double r[QW_NX] = {0, 0, qw_heading(w) + w->vcmd[2] * t, w->path[0] + vc[0] * t,
                     w->path[1] + vc[1] * t, w->height, 0, 0, w->vcmd[2], vc[0], vc[1], 0};
  // rough ground: hrel above the feet's plane where the reference will be (the trunk is kept
  // level: on bumps the plane through four feet tilts with each step, not with the terrain)
  if (w->rough) r[5] = qw_plane_z(w, r + 3) + w->hrel;
  memcpy(x, r, sizeof r);
}

static void qw_x0(const qw* w, double x[QW_NX]) {
  double r[QW_NX] = {w->rpy[0], w->rpy[1], w->rpy[2], w->com[0], w->com[1], w->com[2],
                     w->omega[0], w->omega[1], w->omega[2], w->vcom[0], w->vcom[1], w->vcom[2]};
  memcpy(x, r, sizeof r);
}

// x <- Ad x for the discrete single-body dynamics (Euler step of mpc_dt): rpy += dt Rz' omega,
// p += dt v; omega and v are only changed by the inputs and gravity
static void qw_adx(const qw* w, const double* x, double* y, int stride) {
  double c = cos(w->rpy[2]), s = sin(w->rpy[2]), h = w->mpc_dt;
  double o[3] = {x[6 * stride], x[7 * stride], x[8 * stride]};
  for (int i = 0; i < QW_NX; i++) y[i * stride] = x[i * stride];
  y[0] += h * (c * o[0] + s * o[1]);
  y[stride] += h * (-s * o[0] + c * o[1]);
  y[2 * stride] += h * o[2];
  for (int i = 0; i < 3; i++) y[(3 + i) * stride] += h * x[(9 + i) * stride];
}

// column block of input variable `var` at the step after it acts: B = dt [0; 0; Iw^-1 [r]x; I/m]
static void qw_b(const qw* w, const double Iwinv[9], const double r[3], double* B, int stride) {
  for (int i = 0; i < QW_NX * 3; i++) B[(i / 3) * stride + i % 3] = 0;
  for (int c = 0; c < 3; c++) {
    double e[3] = {c == 0, c == 1, c == 2}, t[3], a[3];
    sp_cross3(t, r, e);
    sp_mulmv3(a, Iwinv, t);
    for (int i = 0; i < 3; i++) B[(6 + i) * stride + c] = w->mpc_dt * a[i];
    B[(9 + c) * stride + c] = w->mpc_dt / w->mass;
  }
}

static void inv3(double A[9], const double M[9]) {
  double c[9] = {M[4] * M[8] - M[5] * M[7], M[2] * M[7] - M[1] * M[8], M[1] * M[5] - M[2] * M[4],
                 M[5] * M[6] - M[3] * M[8], M[0] * M[8] - M[2] * M[6], M[2] * M[3] - M[0] * M[5],
                 M[3] * M[7] - M[4] * M[6], M[1] * M[6] - M[0] * M[7], M[0] * M[4] - M[1] * M[3]};
  double det = M[0] * c[0] + M[1] * c[3] + M[2] * c[6];
  for (int i = 0; i < 9; i++) A[i] = c[i] / det;
}

// Gamma (x_{k+1} = free_k + sum Gamma_k U over the variables acting before it) and the free
// trajectory; gam is (12 horizon) x (3 n) row-major, variables in step order
static void qw_gamma(qw* w, int n, const double* rpos) {
  int nc = 3 * n, N = w->horizon;
  double Rz[9] = {cos(w->rpy[2]), -sin(w->rpy[2]), 0, sin(w->rpy[2]), cos(w->rpy[2]), 0, 0, 0, 1};
  double T[9], Iw[9], Iwinv[9];
  sp_mulmm3(T, Rz, w->inertia);
  sp_mulmmt3(Iw, T, Rz);
  inv3(Iwinv, Iw);
  memset(w->gam, 0, sizeof(double) * (size_t)(QW_NX * N) * (size_t)nc);
  for (int v = 0; v < n; v++) {
    int j = w->var_step[v];
    double r[3], pr[QW_NX], vc[3];
    // the com where the force acts (its lever arm's origin): now, the current com; at step j,
    // the current com carried on by the command (its height the reference's). Not the
    // reference's position (the commanded path, up to 5 cm off the com): with the feet's lever
    // arms about that, a base off the path sideways is balanced in the model at every step but
    // the first, so the optimum put the correcting force at step 1 and later, which no solve
    // applies, and the base drifted sideways (0.24 m/s in a trot in place, docs/controllers.md)
    qw_xref(w, j, pr);
    qw_cmd_world(w, vc);
    if (j == 0) sp_copy3(pr + 3, w->com);
    for (int i = 0; i < 2 && j > 0; i++) pr[3 + i] = w->com[i] + vc[i] * j * w->mpc_dt;
    sp_sub3(r, rpos + 3 * v, pr + 3);
    qw_b(w, Iwinv, r, w->gam + (size_t)(QW_NX * j) * nc + 3 * v, nc);
    for (int k = j + 1; k < N; k++)
      for (int c = 0; c < 3; c++)
        qw_adx(w, w->gam + (size_t)(QW_NX * (k - 1)) * nc + 3 * v + c,
               w->gam + (size_t)(QW_NX * k) * nc + 3 * v + c, nc);
  }
  double x[QW_NX];
  qw_x0(w, x);
  for (int k = 0; k < N; k++) {
    qw_adx(w, x, w->xfree + QW_NX * k, 1);
    for (int i = 0; i < 3; i++) w->xfree[QW_NX * k + 9 + i] += w->mpc_dt * w->m->gravity[i];
    memcpy(x, w->xfree + QW_NX * k, sizeof x);
    qw_xref(w, k + 1, w->xref + QW_NX * k);
  }
}

// the last solve's force of variable v's leg at v's instant (component c, unscaled): the MPC runs
// once per mpc_dt, so the last plan's step j + 1 is this one's step j; NaN where the last plan
// had no force there
static double qw_prev(const qw* w, int v, int c) {
  int k = 4 * (w->var_step[v] + 1) + w->var_leg[v];
  return w->var_step[v] + 1 < w->horizon ? w->prev_f[3 * k + c] : NAN;
}

// the linear terms of the two force weights (g -= alpha U_nom + beta U_prev; both are in the
// diagonal R). alpha pulls each force toward its share of the weight (U_nom vertical, m g over
// the legs in stance at its step) rather than toward zero. beta is a proximal term toward the
// last solve's plan (its share of the weight where that plan had none): the condensed QP's
// Hessian is ill-conditioned whatever alpha (eigenvalues from about alpha to 56 after the Jacobi
// scaling: internal forces between the two stance feet and forces of neighbouring steps that act
// almost alike), and ADMM's iterations grow as the square root of that condition number once
// cones are active, as at mu 0.3 on the bumps (a third of the forces on the cone's boundary:
// 1,600 iterations per solve at a condition number of 5e5). The proximal term lifts the
// spectrum's lower end 30-fold without biasing the plan: a plan that the next solve confirms
// costs nothing, and directions the tracking weights determine (eigenvalues far above beta)
// barely lag. A larger alpha would also condition the QP, but pulls every force toward the
// weight share (measured on the bumps with 1e-3: seed 1 tilted 42 degrees)
static void qw_pull(qw* w, int n) {
  for (int v = 0; v < n; v++) {
    int share = 0;
    for (int u = 0; u < n; u++) share += w->var_step[u] == w->var_step[v];
    double fz = w->mass * -w->m->gravity[2] / share;
    w->g[3 * v + 2] -= w->alpha * w->mass * -w->m->gravity[2] / share;
    for (int c = 0; c < 3; c++) {
      double f = qw_prev(w, v, c);
      w->g[3 * v + c] -= w->beta * (isnan(f) ? (c == 2 ? fz : 0) : f);
    }
  }
}

// H = Gamma' Q Gamma + (alpha + beta) I and g = Gamma' Q (free - ref) (qw_pull adds the force
// weights' linear terms); a row of Gamma at step k is zero past the variables of steps <= k (a
// prefix, since variables are in step order)
static void qw_qp(qw* w, int n) {
  int nc = 3 * n, N = w->horizon, nk = 0;
  memset(w->H, 0, sizeof(double) * (size_t)nc * nc);
  memset(w->g, 0, sizeof(double) * (size_t)nc);
  for (int k = 0; k < N; k++) {
    while (nk < n && w->var_step[nk] <= k) nk++;
    for (int r = 0; r < QW_NX; r++) {
      const double* row = w->gam + (size_t)(QW_NX * k + r) * nc;
      double q = w->Qw[r], e = w->xfree[QW_NX * k + r] - w->xref[QW_NX * k + r];
      if (r == 2) e = remainder(e, 2 * M_PI);  // yaw error on the circle
      for (int a = 0; a < 3 * nk; a++) {
        if (row[a] == 0) continue;
        double qa = q * row[a];
        w->g[a] += qa * e;
        for (int b = 0; b < 3 * nk; b++) w->H[(size_t)a * nc + b] += qa * row[b];
      }
    }
  }
  // Jacobi scaling per force variable (3 rows): U = S V with S = diag(s_v I3), s_v the inverse
  // square root of the variable's mean diagonal of H + (alpha + beta) I; a uniform scale of a force
  // keeps it in its cone, so V solves the same cone QP with a unit diagonal, which the
  // solver's penalty rule and tolerance are tuned for. alpha + beta go in as the problem's diagonal
  // compliance R (G~ = G + R: the same QP), so the rule knows the spectrum's lower end
  for (int v = 0; v < n; v++) {
    double dv = 0;
    for (int c = 0; c < 3; c++)
      dv += w->H[(size_t)(3 * v + c) * nc + 3 * v + c] + w->alpha + w->beta;
    for (int c = 0; c < 3; c++) w->scale[3 * v + c] = sqrt(3 / dv);
  }
  qw_pull(w, n);
  for (int a = 0; a < nc; a++) {
    for (int b = 0; b < nc; b++) w->H[(size_t)a * nc + b] *= w->scale[a] * w->scale[b];
    w->g[a] *= w->scale[a];
    w->Rd[a] = (w->alpha + w->beta) * w->scale[a] * w->scale[a];
  }
}

// warm start: the MPC runs once per mpc_dt, so the last solve's step j + 1 is this solve's step
// j (its plan shifted by one); a step or leg the last plan did not have starts at zero (and its
// dual from the warm force). Forces and duals are kept unscaled (U = S V, dual of V = S dual)
static void qw_warm(qw* w, int n) {
  for (int v = 0; v < n; v++) {
    int k = 4 * (w->var_step[v] + 1) + w->var_leg[v];
    for (int c = 0; c < 3; c++) {
      int i = 3 * v + c;
      double f = qw_prev(w, v, c);
      w->lam[i] = isnan(f) ? 0 : f / w->scale[i];
      w->dual[i] = isnan(f) ? NAN : w->prev_d[3 * k + c] * w->scale[i];
    }
  }
  solver_set_dual(w->slv, w->dual);
}

static void qw_keep(qw* w, int n) {
  const double* dual = solver_dual(w->slv);
  for (int i = 0; i < 3 * w->maxvar; i++) w->prev_f[i] = w->prev_d[i] = NAN;
  for (int v = 0; v < n; v++) {
    int k = 4 * w->var_step[v] + w->var_leg[v];
    for (int c = 0; c < 3; c++) {
      w->prev_f[3 * k + c] = w->lam[3 * v + c] * w->scale[3 * v + c];
      w->prev_d[3 * k + c] = dual[3 * v + c] / w->scale[3 * v + c];
    }
  }
}

// one MPC solve: the first step's forces into f_des
static int qw_mpc(qw* w, double t, double ground, char msg[CSIM_PLUGIN_MSG]) {
  double* rpos = w->col;  // 3 maxvar scratch
  int n = qw_vars(w, t, ground, rpos);
  memset(w->f_des, 0, sizeof w->f_des);
  w->mpc_iters = 0;
  w->mpc_eps = 0;
  if (n == 0) {
    qw_keep(w, 0);  // no plan to shift next time
    return CSIM_PLUGIN_OK;
  }
  qw_gamma(w, n, rpos);
  qw_qp(w, n);
  csim_error err;
  if (solver_blocks_from_dense(w->blk, n, w->H, 1, &err) != CSIM_OK) {
    snprintf(msg, CSIM_PLUGIN_MSG, "MPC problem: %.200s", err.msg);
    return CSIM_PLUGIN_ERROR;
  }
  for (int i = 0; i < n; i++) w->mu_arr[i] = w->mu;
  solver_problem p = solver_blocks_problem(w->blk, w->g, w->mu_arr, w->Rd);
  qw_warm(w, n);
  solver_result res;
  solver_solve(w->slv, &p, w->lam, &res);
  w->mpc_iters = res.iterations;
  w->mpc_eps = res.residual;
  qw_keep(w, n);
  for (int v = 0; v < n && w->var_step[v] == 0; v++)
    sp_scale3(w->f_des[w->var_leg[v]], w->lam + 3 * v, w->scale[3 * v]);
  return CSIM_PLUGIN_OK;
}

// ---- torques -------------------------------------------------------------------------------------

// swing: a Cartesian PD on the swing path toward the foothold, updated as the leg swings
static void qw_swing_force(qw* w, int l, double ph, double ground, double F[3]) {
  double p[3], v[3];
  qw_foothold(w, l, (1 - ph) * w->gait_period, ground, w->foothold[l]);
  qw_swing_ref(w, l, (ph - 0.5) * 2, w->gait_period / 2, p, v);
  for (int i = 0; i < 3; i++)
    F[i] = w->kp_swing * (p[i] - w->foot[l][i]) + w->kd_swing * (v[i] - w->vfoot[l][i]);
}

// rough ground, leg l off its schedule: a foot that touched down early (in the last half of
// its swing) is held where it is with a light push down (a tenth of its share of the weight);
// a foot still in the air when its stance began (or while standing up) reaches down to
// the base's height above the ground below the base, and then on at `descend` (up to 8 cm
// more) until it touches: the step where the ground is lower than planned
static void qw_rough_force(qw* w, int l, double ph, double F[3]) {
  if (ph >= 0.5) {
    double push = 0.1 * w->mass * 9.81 / 2;
    for (int i = 0; i < 3; i++) F[i] = -w->kd_swing * w->vfoot[l][i];
    F[2] -= push;
    return;
  }
  // standing up (before the gait starts) every foot's stance began at the first instant
  double since = isinf(w->t0) ? w->t_now - w->t_start : ph * w->gait_period, z = w->com[2] - w->hrel - fmin(w->descend * since, 0.08);
  double p[3] = {w->foothold[l][0], w->foothold[l][1], z};
  double v[3] = {0, 0, w->vcom[2] - (w->descend * since < 0.08 ? w->descend : 0)};
  for (int i = 0; i < 3; i++)
    F[i] = w->kp_swing * (p[i] - w->foot[l][i]) + w->kd_swing * (v[i] - w->vfoot[l][i]);
}

// stance legs: tau = -J' f (the foot pushes the ground with -f); swing legs: a Cartesian PD on
// the swing path; lift-off and foothold are updated as legs change phase. On rough ground a
// leg's stance starts when its foot's contact flag says so (qw_rough_force until then)
static void qw_torques(qw* w, double t, double ground, double* tau) {
  for (int l = 0; l < QW_LEGS; l++) {
    double ph = qw_phase(w, l, t), F[3];
    int stance = ph < 0.5;
    if (!stance && w->stance[l]) {  // lifts off now
      sp_copy3(w->liftoff[l], w->foot[l]);
      w->landed[l] = 0;
    }
    w->stance[l] = stance;
    if (w->rough && w->contact[l] && (stance || ph >= 0.75)) {
      w->landed[l] = 1;
      sp_copy3(w->touch[l], w->foot[l]);
    }
    if (stance && (!w->rough || w->landed[l])) {
      // the MPC's force, and damping of the foot's velocity: a stance foot should not move,
      // and the single-body model has no term for the legs' own dynamics
      for (int i = 0; i < 3; i++) F[i] = -w->f_des[l][i] - w->kd_stance * w->vfoot[l][i];
    } else if (!w->rough || (!stance && !w->landed[l])) {
      qw_swing_force(w, l, ph, ground, F);
    } else {
      qw_rough_force(w, l, ph, F);
    }
    for (int c = 0; c < 3; c++)
      tau[w->leg_jnt[l][c]] =
          w->J[l][c] * F[0] + w->J[l][3 + c] * F[1] + w->J[l][6 + c] * F[2];
  }
}

static void qw_log(const qw* w, double* log) {
  double c = cos(w->rpy[2]), s = sin(w->rpy[2]);
  double out[QW_NLOG] = {w->vcmd[0], w->vcmd[1], w->vcmd[2],
                         c * w->vcom[0] + s * w->vcom[1], -s * w->vcom[0] + c * w->vcom[1],
                         w->omega[2], w->com[2], w->mpc_iters, w->mpc_eps};
  for (int l = 0; l < QW_LEGS; l++) {
    out[9 + 2 * l] = w->foothold[l][0];
    out[10 + 2 * l] = w->foothold[l][1];
  }
  memcpy(log, out, sizeof out);
}

// ---- the ABI -------------------------------------------------------------------------------------

// the first instant: nominal hips (feet relative to the com in yaw axes), inertia, height,
// the gait's start and each leg's phase offset (diagonal pairs: the front-left foot's pair in
// phase 0, the other pair in phase 1/2)
static void qw_start(qw* w, const ctl_model* cm, const csim_sensors* s) {
  qw_state_in(w, cm, s);
  qw_feet(w, cm);
  // the single body's inertia is the trunk's (Léziart et al.'s gI for Solo-12 is its URDF
  // base inertia): the legs' composite inertia about the com (5x the trunk's in roll for
  // Solo-12) made the standing MPC overshoot and oscillate, since stance legs do not turn with
  // the trunk
  memcpy(w->inertia, w->m->body_inertia + 9 * w->base, sizeof w->inertia);
  double c = cos(w->rpy[2]), sn = sin(w->rpy[2]);
  for (int l = 0; l < QW_LEGS; l++) {
    double r[3];
    sp_sub3(r, w->foot[l], w->com);
    w->hip[l][0] = c * r[0] + sn * r[1];
    w->hip[l][1] = -sn * r[0] + c * r[1];
    w->hip[l][2] = 0;
    w->stance[l] = 1;
    w->landed[l] = 0;
    sp_copy3(w->touch[l], w->foot[l]);
    sp_copy3(w->liftoff[l], w->foot[l]);
    sp_copy3(w->foothold[l], w->foot[l]);
  }
  for (int l = 0; l < QW_LEGS; l++)
    w->offset[l] = (w->hip[l][0] > 0) == (w->hip[l][1] > 0) ? 0 : 0.5;
  // rough ground: the base height is kept above the feet's plane (by `height` when given, else
  // by the first instant's height above the feet)
  qw_plane(w);
  w->hrel = w->height > 0 ? w->height : w->com[2] - w->plane[0];
  if (w->height == 0) w->height = w->com[2];
  // rough ground: every leg stands until all four feet have touched (a robot put down on
  // bumps lands unevenly), then the gait starts after a settling of one gait period
  w->t0 = w->rough ? INFINITY : s->time;
  w->t_start = s->time;
  w->path[0] = w->com[0];
  w->path[1] = w->com[1];
  w->yaw_ref = w->rpy[2];
  w->started = 1;
  w->since_mpc = 0;
}

// the commanded path advances by the commanded velocity over a control period, and is held
// within 5 cm of the com (a robot held back, pushed or fallen does not wind up the reference)
static void qw_path(qw* w) {
  double vc[3], lead = 0.05;
  qw_cmd_world(w, vc);
  double e[2];
  for (int i = 0; i < 2; i++) {
    w->path[i] += vc[i] * w->cm_info->period;
    e[i] = w->path[i] - w->com[i];
  }
  double n = hypot(e[0], e[1]);
  if (n > lead)
    for (int i = 0; i < 2; i++) w->path[i] = w->com[i] + e[i] * lead / n;
  if (w->hold) w->yaw_ref += w->vcmd[2] * w->cm_info->period;
}

static int qw_step(void* state, const csim_sensors* s, double* tau, double* log,
                   char msg[CSIM_PLUGIN_MSG]) {
  qw* w = state;
  const ctl_model* cm = (const ctl_model*)((const char*)w->cm_info - offsetof(ctl_model, info));
  if (!w->started) qw_start(w, cm, s);
  w->t_now = s->time;
  qw_state_in(w, cm, s);
  qw_feet(w, cm);
  if (w->rough) {
    for (int l = 0; l < QW_LEGS; l++)
      w->contact[l] = s->link_contact && w->foot_link[l] >= 0 && s->link_contact[w->foot_link[l]];
    qw_plane(w);
    int all = 1;
    for (int l = 0; l < QW_LEGS; l++) all &= w->landed[l];
    // (or after a second of standing, when a foot finds no ground within reach)
    if ((all || s->time >= w->t_start + 1) && isinf(w->t0)) w->t0 = s->time + w->gait_period;
  }
  double ground = w->rough ? w->plane[0] : qw_ground(w, w->foothold[0][2]);
  if (w->nsched) qw_command(w, s->time);
  qw_path(w);
  if (w->since_mpc == 0 && qw_mpc(w, s->time, ground, msg) != CSIM_PLUGIN_OK)
    return CSIM_PLUGIN_ERROR;
  w->since_mpc = (w->since_mpc + 1) % w->mpc_every;
  qw_torques(w, s->time, ground, tau);
  qw_log(w, log);
  return CSIM_PLUGIN_OK;
}

static void qw_release(void* state) {
  qw* w = state;
  if (!w) return;
  data_free(w->d);
  solver_free(w->slv);
  solver_blocks_free(w->blk);
  free(w->H); free(w->g); free(w->Rd); free(w->scale); free(w->lam); free(w->mu_arr); free(w->gam); free(w->xfree);
  free(w->xref); free(w->col); free(w->var_leg); free(w->var_step);
  free(w->prev_f); free(w->prev_d); free(w->dual);
  free(w);
}

// the MPC's work for every leg in stance at every step of the horizon
static int qw_alloc(qw* w, char msg[CSIM_PLUGIN_MSG]) {
  int mv = QW_LEGS * w->horizon, mc = 3 * mv;
  csim_error err;
  solver_options so = {.model = CSIM_MODEL_CCP, .kind = CSIM_SOLVER_ADMM, .tolerance = w->mpc_tol,
                       .max_iterations = w->mpc_maxit, .over_relaxation = 1, .facets = 4, .rho = 1,
                       .rho_adaptive = 1, .criterion = SOLVER_STOP_MODEL};
  w->maxvar = mv;
  w->H = calloc((size_t)mc * mc, sizeof(double));
  w->g = calloc((size_t)mc, sizeof(double));
  w->Rd = calloc((size_t)mc, sizeof(double));
  w->scale = calloc((size_t)mc, sizeof(double));
  w->lam = calloc((size_t)mc, sizeof(double));
  w->mu_arr = calloc((size_t)mv, sizeof(double));
  w->gam = calloc((size_t)(QW_NX * w->horizon) * mc, sizeof(double));
  w->xfree = calloc((size_t)(QW_NX * w->horizon), sizeof(double));
  w->xref = calloc((size_t)(QW_NX * w->horizon), sizeof(double));
  w->col = calloc((size_t)mc, sizeof(double));
  w->var_leg = calloc((size_t)mv, sizeof(int));
  w->var_step = calloc((size_t)mv, sizeof(int));
  w->prev_f = malloc(sizeof(double) * (size_t)mc);
  w->prev_d = malloc(sizeof(double) * (size_t)mc);
  w->dual = calloc((size_t)mc, sizeof(double));
  if (w->prev_f && w->prev_d)
    for (int i = 0; i < mc; i++) w->prev_f[i] = w->prev_d[i] = NAN;
  if (!w->prev_f || !w->prev_d || !w->dual || !w->H || !w->g || !w->Rd || !w->scale || !w->lam || !w->mu_arr || !w->gam || !w->xfree || !w->xref || !w->col ||
      !w->var_leg || !w->var_step || data_create(w->m, 0, &w->d, &err) != CSIM_OK ||
      solver_create(&so, mv, &w->slv, &err) != CSIM_OK ||
      solver_blocks_create(mv, (long)mv * mv, &w->blk, &err) != CSIM_OK) {
    snprintf(msg, CSIM_PLUGIN_MSG, "out of memory for the MPC (%d force variables)", mv);
    return CSIM_PLUGIN_ERROR;
  }
  return CSIM_PLUGIN_OK;
}

static int qw_init(const csim_plugin_info* in, void** state, int* nlog,
                   const char* const** log_names, char msg[CSIM_PLUGIN_MSG]) {
  const ctl_model* cm = (const ctl_model*)((const char*)in - offsetof(ctl_model, info));
  qw* w = calloc(1, sizeof *w);
  if (!w) return CSIM_PLUGIN_ERROR;
  *state = w;
  *nlog = QW_NLOG;
  *log_names = qw_logs;
  w->cm_info = in;
  w->m = cm->m;
  w->nj = in->njoint;
  w->base = w->m->robot_bodyadr[cm->robot];
  w->mass = in->mass;
  if (!in->floating || w->m->maxdepth > 64) {
    snprintf(msg, CSIM_PLUGIN_MSG, "robot '%s': quadruped_walk needs a free base%s", in->robot,
             in->floating ? " and legs of at most 58 joints" : "");
    return CSIM_PLUGIN_ERROR;
  }
  if (qw_params(w, in, msg) || qw_legs(w, cm, msg) || qw_alloc(w, msg)) return CSIM_PLUGIN_ERROR;
  for (int g = 0; g < w->m->ngeom; g++)
    if (w->m->geom_body[g] == w->foot_body[0] && w->m->geom_type[g] == MODEL_GEOM_SPHERE)
      w->foot_r = w->m->geom_size[3 * g];
  return CSIM_PLUGIN_OK;
}

const csim_plugin_api* ctl_builtin_quadruped_walk(void) {
  static const csim_plugin_api api = {CSIM_PLUGIN_ABI, "quadruped_walk", qw_init, qw_step,
                                      qw_release};
  return &api;
}
