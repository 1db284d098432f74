// control.c — controllers in the step (control.h): sensing, the control instants, the delay line,
// zero-order hold and effort clamping around the ABI of plugin.h.
#include "core/control.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/spatial.h"

const char* const ctl_channel_names[CTL_NCHANNELS + 1] = {
#define CTL_NAME(name, desc) #name,
    CTL_CHANNELS(CTL_NAME)
#undef CTL_NAME
    NULL};

// ---- model side ------------------------------------------------------------------------------

// the 1-dof joints (free and ball joints are not controlled)
static int controlled_joint(const sim_model* m, int j, int robot) {
  return m->body_robot[m->jnt_body[j]] == robot && model_jnt_1dof(m, j) && m->jnt_mimic[j] < 0;
}

int ctl_model_init(const sim_model* m, int robot, double dt, int every, int delay_steps,
                   ctl_model* cm) {
  int nj = 0, nl = m->robot_nlink[robot];
  for (int j = 0; j < m->njnt; j++) nj += controlled_joint(m, j, robot);
  cm->m = m;
  cm->robot = robot;
  cm->every = every;
  cm->delay_steps = delay_steps;
  cm->jnt = calloc((size_t)nj + 1, sizeof(int));
  cm->link = calloc((size_t)nl + 1, sizeof(int));
  const char** jn = calloc((size_t)nj + 1, sizeof(char*));
  const char** ln = calloc((size_t)nl + 1, sizeof(char*));
  double* lim = calloc(3 * (size_t)nj + 1, sizeof(double));
  if (!cm->jnt || !cm->link || !jn || !ln || !lim) {
    free(jn); free(ln); free(lim);
    return -1;
  }
  nj = 0;
  for (int j = 0; j < m->njnt; j++) {
    if (!controlled_joint(m, j, robot)) continue;
    cm->jnt[nj] = j;
    jn[nj] = m->jnt_name[j];
    lim[nj] = m->jnt_effort[j];
    nj++;
  }
  for (int k = 0; k < nj; k++) {
    int j = cm->jnt[k];
    lim[nj + k] = m->jnt_limited[j] ? m->jnt_range[2 * j] : -INFINITY;
    lim[2 * nj + k] = m->jnt_limited[j] ? m->jnt_range[2 * j + 1] : INFINITY;
  }
  for (int k = 0; k < nl; k++) {
    cm->link[k] = m->robot_linkadr[robot] + k;
    ln[k] = m->link_name[cm->link[k]];
  }
  csim_plugin_info* in = &cm->info;
  in->abi = CSIM_PLUGIN_ABI;
  in->robot = m->robot_name[robot];
  in->floating = m->robot_base[robot] == MODEL_BASE_FREE;
  in->njoint = nj;
  in->joint_names = jn;
  in->effort = lim;
  in->lower = lim + nj;
  in->upper = lim + 2 * nj;
  in->nlink = nl;
  in->link_names = ln;
  in->mass = model_robot_mass(m, robot);
  memcpy(in->gravity, m->gravity, sizeof in->gravity);
  in->dt = dt;
  in->period = dt * every;
  return 0;
}

void ctl_model_free(ctl_model* cm) {
  if (cm->lib && cm->lib_close) cm->lib_close(cm->lib);
  free(cm->jnt);
  free(cm->link);
  free((void*)cm->info.joint_names);
  free((void*)cm->info.link_names);
  free((void*)cm->info.effort);
  free(cm->params);
  free(cm->name);
  memset(cm, 0, sizeof *cm);
}

// ---- data side -------------------------------------------------------------------------------

static csim_status ctl_fail(const ctl_model* cm, csim_status st, const char* what, const char* msg,
                            csim_error* err) {
  return err_set(err, st, NULL, 0, 0, cm->info.controller, "controller (%s): %s%s%s",
                 cm->api->name ? cm->api->name : "?", what, msg && msg[0] ? ": " : "",
                 msg ? msg : "");
}

static csim_status ctl_start(const ctl_model* cm, ctl_data* cd, csim_error* err) {
  char msg[CSIM_PLUGIN_MSG] = "";
  const char* const* names = NULL;
  int nlog = 0;
  cd->state = NULL;
  if (cm->api->init(&cm->info, &cd->state, &nlog, &names, msg) != CSIM_PLUGIN_OK)
    return ctl_fail(cm, CSIM_ERR_INPUT, "init failed", msg, err);
  if (nlog < 0 || (nlog > 0 && !names))
    return ctl_fail(cm, CSIM_ERR_INPUT, "init returned a log table without names", NULL, err);
  for (int k = 0; k < nlog; k++)
    if (!names[k] || !names[k][0])
      return ctl_fail(cm, CSIM_ERR_INPUT, "init returned an empty log channel name", NULL, err);
  if (cd->log && nlog != cd->nlog)
    return ctl_fail(cm, CSIM_ERR_RUN, "init after a reset changed the log channels", NULL, err);
  cd->nlog = nlog;
  cd->log_names = names;
  return CSIM_OK;
}

static void ctl_clear(const ctl_model* cm, ctl_data* cd) {
  int nj = cm->info.njoint;
  cd->instant = 0;
  cd->nclamped = 0;
  cd->solve_time = cd->solve_time_sum = 0;
  cd->ring_head = -1;
  cd->ring_count = 0;
  memset(cd->tau, 0, sizeof(double) * (size_t)nj);
  memset(cd->ring_tau, 0, sizeof(double) * (size_t)nj * (size_t)cd->nring);
  if (cd->log) memset(cd->log, 0, sizeof(double) * (size_t)cd->nlog);
  memset(cd->vel_prev, 0, sizeof cd->vel_prev);
  cd->has_prev = 0;
  cd->rng = cm->seed;
  memset(&cd->sensors, 0, sizeof cd->sensors);
}

csim_status ctl_data_init(const ctl_model* cm, ctl_data* cd, csim_error* err) {
  size_t nj = (size_t)cm->info.njoint, nl = (size_t)cm->info.nlink;
  memset(cd, 0, sizeof *cd);
  // entries the delay line must hold: the instants computed but not yet due, plus the one held
  cd->nring = cm->delay_steps / cm->every + 2;
  cd->ring_step = calloc((size_t)cd->nring, sizeof(long));
  cd->ring_tau = calloc((size_t)cd->nring * nj + 1, sizeof(double));
  cd->tau = calloc(nj + 1, sizeof(double));
  cd->q = calloc(2 * nj + 1, sizeof(double));
  cd->link_contact = calloc(nl + 1, sizeof(int));
  cd->link_force = calloc(3 * nl + 1, sizeof(double));
  if (!cd->ring_step || !cd->ring_tau || !cd->tau || !cd->q || !cd->link_contact ||
      !cd->link_force)
    return ctl_fail(cm, CSIM_ERR_RUN, "out of memory", NULL, err);
  cd->v = cd->q + nj;
  csim_status st = ctl_start(cm, cd, err);
  if (st != CSIM_OK) return st;
  cd->log = calloc((size_t)cd->nlog + 1, sizeof(double));
  if (!cd->log) return ctl_fail(cm, CSIM_ERR_RUN, "out of memory", NULL, err);
  ctl_clear(cm, cd);
  return CSIM_OK;
}

void ctl_data_free(const ctl_model* cm, ctl_data* cd) {
  if (cm->api && cm->api->release && cd->state) cm->api->release(cd->state);
  free(cd->ring_step); free(cd->ring_tau); free(cd->tau); free(cd->q);
  free(cd->link_contact); free(cd->link_force); free(cd->log);
  memset(cd, 0, sizeof *cd);
}

csim_status ctl_reset(const ctl_model* cm, ctl_data* cd) {
  if (cm->api->release && cd->state) cm->api->release(cd->state);
  cd->state = NULL;
  cd->pending = ctl_start(cm, cd, &cd->pending_err);
  if (cd->pending == CSIM_OK) ctl_clear(cm, cd);
  return cd->pending;
}

// ---- sensing ---------------------------------------------------------------------------------

void ctl_link_forces(const sim_model* m, const coll_contact* con, int ncon, const double* frame,
                     const double* lambda, double h, int* link_contact, double* link_force) {
  memset(link_contact, 0, sizeof(int) * (size_t)m->nlink);
  memset(link_force, 0, sizeof(double) * 3 * (size_t)m->nlink);
  for (int i = 0; i < ncon; i++) {
    const double* fr = frame + 9 * i;
    const double* l = lambda + 3 * i;
    double f[3];
    for (int k = 0; k < 3; k++) f[k] = (l[0] * fr[k] + l[1] * fr[3 + k] + l[2] * fr[6 + k]) / h;
    int g[2] = {con[i].geom1, con[i].geom2};
    for (int side = 0; side < 2; side++) {
      int ln = g[side] >= 0 ? m->geom_link[g[side]] : -1;
      if (ln < 0) continue;
      link_contact[ln] = 1;
      sp_addscl3(link_force + 3 * ln, f, side == 0 ? -1.0 : 1.0);
    }
  }
}

// splitmix64 (Steele, Lea, Flood 2014): a full-period 64-bit generator, one state word
static uint64_t ctl_next(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// standard normal by Box-Muller (one of the pair; determinism matters here, not speed)
static double ctl_gauss(uint64_t* s) {
  double u1 = ((double)(ctl_next(s) >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  double u2 = (double)(ctl_next(s) >> 11) * 0x1.0p-53;          // [0, 1)
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void ctl_noise(const ctl_model* cm, ctl_data* cd, ctl_channel c, double* x, int n) {
  double sd = cm->noise[c];
  if (!(sd > 0)) return;
  for (int k = 0; k < n; k++) x[k] += sd * ctl_gauss(&cd->rng);
}

// base pose, twist and IMU of a floating robot's root body (body frame origin)
static void sense_base(const sim_model* m, const sim_data* d, const ctl_model* cm, ctl_data* cd,
                       csim_sensors* s) {
  int b = m->robot_bodyadr[cm->robot];
  const double* R = d->xmat + 9 * b;
  sp_copy3(s->base_pos, d->xpos + 3 * b);
  sp_mat2quat(s->base_quat, R);
  sp_copy3(s->base_linvel_body, d->cvel + 6 * b);
  sp_copy3(s->base_angvel_body, d->cvel + 6 * b + 3);
  sp_mulmv3(s->base_linvel, R, s->base_linvel_body);
  sp_mulmv3(s->base_angvel, R, s->base_angvel_body);
  // proper acceleration over the last step: (v - v_prev) / dt - g, into the base frame
  double a[3] = {0, 0, 0};
  if (cd->has_prev)
    for (int k = 0; k < 3; k++) a[k] = (s->base_linvel[k] - cd->vel_prev[k]) / cm->info.dt;
  sp_copy3(cd->vel_prev, s->base_linvel);
  cd->has_prev = 1;
  sp_sub3(a, a, m->gravity);
  sp_mulmtv3(s->imu_acc, R, a);
  sp_copy3(s->imu_gyro, s->base_angvel_body);
}

static void sense(const sim_model* m, const sim_data* d, const ctl_model* cm, ctl_data* cd,
                  const int* link_contact, const double* link_force) {
  csim_sensors* s = &cd->sensors;
  int nj = cm->info.njoint, nl = cm->info.nlink;
  s->time = d->time;
  for (int k = 0; k < nj; k++) {
    cd->q[k] = d->q[m->jnt_qadr[cm->jnt[k]]];
    cd->v[k] = d->v[m->jnt_dofadr[cm->jnt[k]]];
  }
  for (int k = 0; k < nl; k++) {
    cd->link_contact[k] = link_contact ? link_contact[cm->link[k]] : 0;
    for (int i = 0; i < 3; i++)
      cd->link_force[3 * k + i] = link_force ? link_force[3 * cm->link[k] + i] : 0;
  }
  if (cm->info.floating) sense_base(m, d, cm, cd, s);
  ctl_noise(cm, cd, CTL_NOISE_q, cd->q, nj);
  ctl_noise(cm, cd, CTL_NOISE_v, cd->v, nj);
  ctl_noise(cm, cd, CTL_NOISE_base_pos, s->base_pos, 3);
  ctl_noise(cm, cd, CTL_NOISE_base_linvel, s->base_linvel, 3);
  ctl_noise(cm, cd, CTL_NOISE_base_angvel, s->base_angvel, 3);
  ctl_noise(cm, cd, CTL_NOISE_imu_acc, s->imu_acc, 3);
  ctl_noise(cm, cd, CTL_NOISE_imu_gyro, s->imu_gyro, 3);
  ctl_noise(cm, cd, CTL_NOISE_link_force, cd->link_force, 3 * nl);
  s->q = cd->q;
  s->v = cd->v;
  s->link_contact = cd->link_contact;
  s->link_force = cd->link_force;
}

// ---- control instants ------------------------------------------------------------------------

// monotonic wall clock (s): the controller's solve time (core/stage.h has one too, but
// control.h is below it: stage.h includes state.h, which includes control.h)
static double ctl_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// call the controller (timed: its solve time); the torques checked, clamped and pushed into the
// delay line
static csim_status ctl_instant(const ctl_model* cm, ctl_data* cd, long step, csim_error* err) {
  int nj = cm->info.njoint;
  int slot = (cd->ring_head + 1) % cd->nring;
  double* tau = cd->ring_tau + (size_t)slot * (size_t)nj;
  char msg[CSIM_PLUGIN_MSG] = "";
  memset(tau, 0, sizeof(double) * (size_t)nj);
  double t0 = ctl_clock();
  int rc = cm->api->step(cd->state, &cd->sensors, tau, cd->log, msg);
  cd->solve_time = ctl_clock() - t0;
  cd->solve_time_sum += cd->solve_time;
  if (rc != CSIM_PLUGIN_OK) return ctl_fail(cm, CSIM_ERR_RUN, "step failed", msg, err);
  int clamped = 0;
  for (int k = 0; k < nj; k++) {
    if (!isfinite(tau[k]))
      return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, cm->info.controller,
                     "controller (%s): non-finite torque %g for joint '%s' at t = %.9g s",
                     cm->api->name ? cm->api->name : "?", tau[k], cm->info.joint_names[k],
                     cd->sensors.time);
    double lim = cm->info.effort[k];
    if (lim > 0 && fabs(tau[k]) > lim) {
      tau[k] = tau[k] > 0 ? lim : -lim;
      clamped = 1;
    }
  }
  cd->nclamped += clamped;
  cd->ring_head = slot;
  cd->ring_step[slot] = step;
  if (cd->ring_count < cd->nring) cd->ring_count++;
  cd->instant++;
  return CSIM_OK;
}

// the newest entry computed at least delay_steps ago (zero torque when none)
static void ctl_due(const ctl_model* cm, ctl_data* cd, long step) {
  int nj = cm->info.njoint;
  for (int i = 0; i < cd->ring_count; i++) {
    int slot = (cd->ring_head - i + cd->nring) % cd->nring;
    if (cd->ring_step[slot] + cm->delay_steps <= step) {
      memcpy(cd->tau, cd->ring_tau + (size_t)slot * (size_t)nj, sizeof(double) * (size_t)nj);
      return;
    }
  }
  memset(cd->tau, 0, sizeof(double) * (size_t)nj);
}

csim_status ctl_update(const sim_model* m, const sim_data* d, const ctl_model* cm, ctl_data* cd,
                       long step, const int* link_contact, const double* link_force,
                       csim_error* err) {
  if (cd->pending != CSIM_OK) {
    *err = cd->pending_err;
    return cd->pending;
  }
  if (step % cm->every == 0) {
    sense(m, d, cm, cd, link_contact, link_force);
    csim_status st = ctl_instant(cm, cd, step, err);
    if (st != CSIM_OK) return st;
  } else if (cm->info.floating) {
    // the IMU's finite difference needs the velocity of every step, not only at instants
    int b = m->robot_bodyadr[cm->robot];
    sp_mulmv3(cd->vel_prev, d->xmat + 9 * b, d->cvel + 6 * b);
    cd->has_prev = 1;
  }
  ctl_due(cm, cd, step);
  return CSIM_OK;
}

void ctl_apply(const sim_model* m, const ctl_model* cm, const ctl_data* cd, double* qfrc) {
  for (int k = 0; k < cm->info.njoint; k++) qfrc[m->jnt_dofadr[cm->jnt[k]]] += cd->tau[k];
}
