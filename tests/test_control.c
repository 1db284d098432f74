// test_control.c — controllers (core/control.h) around the ABI of core/plugin.h, before they are
// wired into the step: control instants, zero-order hold and delay, effort clamping, error
// paths, seeded noise, the IMU and the per-link contact forces.
//
// Oracles: arithmetic on the step numbers (which instant's torques are due at which step), the
// closed form of free fall (an IMU in free fall reads zero proper acceleration), a resting
// cube's weight (the contact forces carry m g), the normal distribution's variance.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/control.h"
#include "core/kinematics.h"
#include "core/sim.h"
#include "core/spatial.h"
#include "io/plugin_load.h"
#include "scene_fixture.h"
#include "support.h"

// ---- a test controller: torque = the instant's time, one log channel = its call count -------

typedef struct {
  int calls;
  double nan_at;  // return `bad` from this time on (inf: never)
  double bad;     // NaN (default), or param bad: inf or -inf
} probe_state;

static const char* const probe_logs[] = {"calls"};

static int probe_init(const csim_plugin_info* in, void** state, int* nlog,
                      const char* const** names, char msg[CSIM_PLUGIN_MSG]) {
  (void)msg;
  probe_state* p = calloc(1, sizeof *p);
  p->nan_at = INFINITY;
  p->bad = NAN;
  for (int k = 0; k < in->nparam; k++) {
    if (!strcmp(in->param_keys[k], "nan_at")) p->nan_at = atof(in->param_values[k]);
    if (!strcmp(in->param_keys[k], "bad")) p->bad = strtod(in->param_values[k], NULL);
  }
  *state = p;
  *nlog = 1;
  *names = probe_logs;
  return CSIM_PLUGIN_OK;
}

static int probe_step(void* state, const csim_sensors* s, double* tau, double* log,
                      char msg[CSIM_PLUGIN_MSG]) {
  (void)msg;
  probe_state* p = state;
  log[0] = ++p->calls;
  tau[0] = s->time >= p->nan_at ? p->bad : 1 + s->time;  // under every effort limit
  return CSIM_PLUGIN_OK;
}

static int failing_init(const csim_plugin_info* in, void** state, int* nlog,
                        const char* const** names, char msg[CSIM_PLUGIN_MSG]) {
  (void)in; (void)state; (void)nlog; (void)names;
  snprintf(msg, CSIM_PLUGIN_MSG, "no gains given");
  return CSIM_PLUGIN_ERROR;
}

static void probe_release(void* state) { free(state); }

static const csim_plugin_api probe_api = {CSIM_PLUGIN_ABI, "probe", probe_init, probe_step,
                                          probe_release};
static const csim_plugin_api failing_api = {CSIM_PLUGIN_ABI, "failing", failing_init, probe_step,
                                            probe_release};

// ---- helpers ---------------------------------------------------------------------------------

// a controller on robot 0 of the fixture's model; params as key/value pairs
static void ctl_setup(const sim* s, const csim_plugin_api* api, int every, int delay,
                      const char* const* kv, int nparam, ctl_model* cm, ctl_data* cd) {
  memset(cm, 0, sizeof *cm);
  ck_assert_int_eq(ctl_model_init(s->model.m, 0, s->opt.dt, every, delay, cm), 0);
  static const char* keys[8], *vals[8];
  for (int k = 0; k < nparam; k++) {
    keys[k] = kv[2 * k];
    vals[k] = kv[2 * k + 1];
  }
  cm->api = api;
  cm->info.controller = "c0";
  cm->info.nparam = nparam;
  cm->info.param_keys = keys;
  cm->info.param_values = vals;
  if (cd) {
    csim_error err;
    ck_assert_int_eq(ctl_data_init(cm, cd, &err), CSIM_OK);
  }
}

static csim_status step_ctl(fixture* f, const ctl_model* cm, ctl_data* cd, long k,
                            csim_error* err) {
  return ctl_update(f->s->model.m, f->s->data.d, cm, cd, k, NULL, NULL, err);
}

// control instants at t = k ms, k = 0, 1, ... until one fails (at most n); returns the status,
// *k the instants tried
static csim_status steps_until_fail(fixture* f, const ctl_model* cm, ctl_data* cd, long n,
                                    long* k, csim_error* err) {
  csim_status st = CSIM_OK;
  for (*k = 0; *k < n && st == CSIM_OK; (*k)++) {
    f->s->data.d->time = *k * 0.001;
    st = step_ctl(f, cm, cd, *k, err);
  }
  return st;
}

static void ctl_done(ctl_model* cm, ctl_data* cd) {
  ctl_data_free(cm, cd);
  ctl_model_free(cm);
}

// the Kuka scene most cases drive (its arm and gripper: 9 joints with effort limits)
static fixture kuka(void) { return fixture_file("scenarios/kuka_bottle.yaml", NULL, 0); }

static void ctl_close(ctl_model* cm, ctl_data* cd, fixture* f) {
  ctl_done(cm, cd);
  fixture_free(f);
}

// ---- tests -----------------------------------------------------------------------------------

// every = 4 steps, delay = 6 steps: the torques due at step k were computed at the last instant
// i (a multiple of 4) with i + 6 <= k, at time i dt; zero before step 6
START_TEST(hold_and_delay) {
  fixture f = kuka();
  ctl_model cm;
  ctl_data cd;
  ctl_setup(f.s, &probe_api, 4, 6, NULL, 0, &cm, &cd);
  ck_assert_int_gt(cm.info.njoint, 0);
  double dt = f.s->opt.dt;
  csim_error err;
  for (long k = 0; k < 40; k++) {
    f.s->data.d->time = k * dt;  // the controller sees time only: the state need not move
    ck_assert_int_eq(step_ctl(&f, &cm, &cd, k, &err), CSIM_OK);
    long i = k - 6 < 0 ? -1 : (k - 6) / 4 * 4;
    double want = i < 0 ? 0 : 1 + i * dt;
    ck_assert_msg(cd.tau[0] == want, "step %ld: tau %.17g, want %.17g", k, cd.tau[0], want);
    for (int j = 1; j < cm.info.njoint; j++) ck_assert(cd.tau[j] == 0);
    ck_assert_double_eq(cd.log[0], (double)(k / 4 + 1));  // calls so far
  }
  ck_assert_int_eq(cd.instant, 10);
  // the torques enter the controlled joint's dof only
  double* qfrc = calloc((size_t)f.s->model.m->nv, sizeof(double));
  ctl_apply(f.s->model.m, &cm, &cd, qfrc);
  ck_assert(qfrc[f.s->model.m->jnt_dofadr[cm.jnt[0]]] == cd.tau[0]);
  free(qfrc);
  ctl_close(&cm, &cd, &f);
}
END_TEST

// a reset restarts the instants, the delay line and the controller's own state
START_TEST(reset_restarts) {
  fixture f = kuka();
  ctl_model cm;
  ctl_data cd;
  ctl_setup(f.s, &probe_api, 2, 3, NULL, 0, &cm, &cd);
  csim_error err;
  double first[20], again[20];
  for (int pass = 0; pass < 2; pass++) {
    for (long k = 0; k < 20; k++) {
      f.s->data.d->time = k * f.s->opt.dt;
      ck_assert_int_eq(step_ctl(&f, &cm, &cd, k, &err), CSIM_OK);
      (pass ? again : first)[k] = cd.tau[0] + 1e6 * cd.log[0];
    }
    ck_assert_int_eq(ctl_reset(&cm, &cd), CSIM_OK);
    ck_assert_int_eq(cd.instant, 0);
  }
  for (int k = 0; k < 20; k++) ck_assert(first[k] == again[k]);
  ctl_close(&cm, &cd, &f);
}
END_TEST

// NaN and infinite torques alike stop the run (an infinite one must not pass the effort clamp
// as the limit: the Kuka's joints have limits)
START_TEST(nonfinite_torque_stops) {
  static const char* const bad[] = {"nan", "inf", "-inf"};
  for (int b = 0; b < 3; b++) {
    fixture f = kuka();
    ctl_model cm;
    ctl_data cd;
    const char* const kv[] = {"nan_at", "0.0105", "bad", bad[b]};
    ctl_setup(f.s, &probe_api, 1, 0, kv, 2, &cm, &cd);
    ck_assert_double_gt(cm.info.effort[0], 0);
    csim_error err;
    long k;
    ck_assert_int_eq(steps_until_fail(&f, &cm, &cd, 100, &k, &err), CSIM_ERR_RUN);
    ck_assert_int_eq(k, 12);  // t = 0.011 is the first instant at or past 0.0105
    ck_assert_str_eq(err.key, "c0");
    ck_assert_msg(strstr(err.msg, "non-finite torque"), "%s: %s", bad[b], err.msg);
    ck_assert_ptr_nonnull(strstr(err.msg, cm.info.joint_names[0]));
    ctl_close(&cm, &cd, &f);
  }
}
END_TEST

// init failures name the controller and carry the controller's message; the PD's params checked
START_TEST(init_errors) {
  fixture f = kuka();
  static const struct {
    const csim_plugin_api* api;
    const char* kv[4];
    int n;
    const char* msg;
  } rows[] = {
      {&failing_api, {0}, 0, "no gains given"},
      {NULL, {0}, 0, "param 'kp' is required"},
      {NULL, {"kp", "-3"}, 1, "param 'kp': expected a number > 0, got '-3'"},
      {NULL, {"kp", "10", "kd", "x"}, 2, "param 'kd': expected a number >= 0, got 'x'"},
      {NULL, {"kp", "10", "target", "1 2"}, 2, "param 'target': expected 1 or 9 numbers"},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    ctl_model cm;
    ctl_data cd;
    ctl_setup(f.s, rows[r].api ? rows[r].api : ctl_builtin_pd(), 1, 0, rows[r].kv, rows[r].n,
              &cm, NULL);
    csim_error err;
    ck_assert_int_eq(ctl_data_init(&cm, &cd, &err), CSIM_ERR_INPUT);
    ck_assert_str_eq(err.key, "c0");
    ck_assert_msg(strstr(err.msg, rows[r].msg), "row %zu: %s", r, err.msg);
    ctl_done(&cm, &cd);
  }
  fixture_free(&f);
}
END_TEST

// the PD law against its closed form, with the torques clamped to the URDF's effort limits
START_TEST(pd_clamped) {
  fixture f = kuka();
  ctl_model cm;
  ctl_data cd;
  static const char* const kv[] = {"kp", "100", "kd", "3", "target", "0.5"};
  ctl_setup(f.s, ctl_builtin_pd(), 1, 0, kv, 3, &cm, &cd);
  const sim_model* m = f.s->model.m;
  csim_error err;
  for (int k = 0; k < cm.info.njoint; k++) {
    f.s->data.d->q[m->jnt_qadr[cm.jnt[k]]] = -20.0 * k;  // far from the target: some clamp
    f.s->data.d->v[m->jnt_dofadr[cm.jnt[k]]] = 0.25 * k;
  }
  ck_assert_int_eq(step_ctl(&f, &cm, &cd, 0, &err), CSIM_OK);
  int clamped = 0;
  for (int k = 0; k < cm.info.njoint; k++) {
    double want = 100 * (0.5 + 20.0 * k) - 3 * 0.25 * k, lim = cm.info.effort[k];
    if (lim > 0 && want > lim) {
      want = lim;
      clamped = 1;
    }
    ck_assert_double_eq_tol(cd.tau[k], want, 1e-12 * fabs(want));
  }
  ck_assert_int_eq(clamped, 1);  // the kuka's URDF has effort limits
  ck_assert_int_eq(cd.nclamped, 1);
  ctl_close(&cm, &cd, &f);
}
END_TEST

// noise: the same seed gives the same values; the sample standard deviation of 4000 draws is the
// one asked within 6 % (its relative standard error is 1/sqrt(2 n) = 1.1 %: 5 sigma)
START_TEST(noise_seeded) {
  fixture f = kuka();
  double sd = 0.02, sum[2] = {0, 0}, sq = 0;
  int n = 4000;
  for (int pass = 0; pass < 2; pass++) {
    ctl_model cm;
    ctl_data cd;
    static const char* const kv[] = {"kp", "1"};
    ctl_setup(f.s, ctl_builtin_pd(), 1, 0, kv, 1, &cm, NULL);
    cm.noise[CTL_NOISE_q] = sd;
    cm.seed = 42;
    csim_error err;
    ck_assert_int_eq(ctl_data_init(&cm, &cd, &err), CSIM_OK);
    double q0 = f.s->data.d->q[f.s->model.m->jnt_qadr[cm.jnt[0]]];
    for (long k = 0; k < n; k++) {
      ck_assert_int_eq(step_ctl(&f, &cm, &cd, k, &err), CSIM_OK);
      double e = cd.sensors.q[0] - q0;
      sum[pass] += e;
      if (pass == 0) sq += e * e;
    }
    ctl_done(&cm, &cd);
  }
  ck_assert(sum[0] == sum[1]);
  double mean = sum[0] / n, est = sqrt(sq / n - mean * mean);
  ck_assert_double_eq_tol(est, sd, 0.06 * sd);
  ck_assert_double_lt(fabs(mean), 5 * sd / sqrt(n));
  fixture_free(&f);
}
END_TEST

// the cube in free fall: the IMU reads no proper acceleration; resting on the ground it reads
// -g (up, in world axes) and the contact forces on its link carry its weight (to 1 %: the
// Baumgarte term of the scenario still pushes a resting cube by less than that)
START_TEST(imu_and_contact_forces) {
  fixture f = fixture_file("scenarios/cube_drop.yaml", NULL, 0);
  sim* s = f.s;
  ctl_model cm;
  ctl_data cd;
  ctl_setup(s, ctl_builtin_pd(), 1, 0, (const char* const[]){"kp", "1"}, 1, &cm, &cd);
  ck_assert_int_eq(cm.info.njoint, 0);
  ck_assert_int_eq(cm.info.floating, 1);
  int nl = s->model.m->nlink, link = cm.link[0];
  int* lc = calloc((size_t)nl, sizeof(int));
  double* lf = calloc(3 * (size_t)nl, sizeof(double));
  double w = model_robot_mass(s->model.m, 0) * fabs(s->model.m->gravity[2]);
  csim_error err;
  sim_stepinfo info;
  for (long k = 0; k < 1500; k++) {
    contact_data* c = s->data.con;
    ctl_link_forces(s->model.m, c->con, c->ncon - c->nlimit, c->frame, c->lambda, s->opt.dt, lc, lf);
    kin_forward(s->model.m, s->data.d);  // in the step the controller runs after stage_positions
    kin_velocity(s->model.m, s->data.d);
    ck_assert_int_eq(ctl_update(s->model.m, s->data.d, &cm, &cd, k, lc, lf, &err), CSIM_OK);
    const double* a = cd.sensors.imu_acc;
    if (k >= 1 && k < 100) {  // in the air (the cube falls 0.05 m before its corner touches)
      ck_assert_int_eq(cd.sensors.link_contact[0], 0);
      ck_assert_double_lt(fabs(a[0]) + fabs(a[1]) + fabs(a[2]), 1e-9);
    }
    ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
  }
  const double* R = s->data.d->xmat + 9 * s->model.m->robot_bodyadr[0];
  double aw[3];
  sp_mulmv3(aw, R, cd.sensors.imu_acc);
  ck_assert_int_eq(lc[link], 1);
  ck_assert_double_eq_tol(aw[2], -s->model.m->gravity[2], 1e-2 * w);
  ck_assert_double_eq_tol(lf[3 * link + 2], w, 1e-2 * w);
  ck_assert_double_lt(fabs(lf[3 * link]) + fabs(lf[3 * link + 1]), 1e-2 * w);
  free(lc);
  free(lf);
  ctl_close(&cm, &cd, &f);
}
END_TEST

// ---- plugins from shared libraries ---------------------------------------------------------

static void plugin_path(char* buf, size_t n, const char* name) {
  snprintf(buf, n, "%s/%s.so", PLUGIN_DIR, name);
}

// every broken library is refused at load with its reason, naming the library and the key
START_TEST(plugin_load_errors) {
  static const struct {
    const char* lib;
    const char* msg;
  } rows[] = {
      {"no_such_plugin", "controller plugin"},
      {"bad_abi", "ABI version 999, this csim needs 1"},
      {"bad_null", "csim_plugin_entry() returned NULL"},
      {"bad_nostep", "no init or no step"},
      {"bad_nosym", "no symbol csim_plugin_entry"},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    char path[512];
    plugin_path(path, sizeof path, rows[r].lib);
    plugin_lib lib;
    csim_error err;
    err_clear(&err);
    csim_status st = plugin_load(path, "s.yaml", 7, 5, "controllers.0.library", &lib, &err);
    ck_assert_int_eq(st, CSIM_ERR_INPUT);
    ck_assert_ptr_null(lib.handle);
    ck_assert_msg(strstr(err.msg, rows[r].msg), "%s: %s", rows[r].lib, err.msg);
    ck_assert_msg(strstr(err.msg, rows[r].lib), "%s: %s", rows[r].lib, err.msg);
    ck_assert_str_eq(err.key, "controllers.0.library");
    ck_assert_int_eq(err.line, 7);
  }
}
END_TEST

// a plugin's NaN torque or reported error stops the run naming the controller and the plugin
START_TEST(plugin_run_errors) {
  fixture f = kuka();
  const char* libs[] = {"bad_nan", "bad_fail"};
  const char* msgs[] = {"non-finite torque", "step failed: lost track of the base"};
  for (int r = 0; r < 2; r++) {
    char path[512];
    plugin_path(path, sizeof path, libs[r]);
    plugin_lib lib;
    csim_error err;
    ck_assert_int_eq(plugin_load(path, NULL, 0, 0, NULL, &lib, &err), CSIM_OK);
    ctl_model cm;
    ctl_data cd;
    ctl_setup(f.s, lib.api, 1, 0, NULL, 0, &cm, &cd);
    long k;
    ck_assert_int_eq(steps_until_fail(&f, &cm, &cd, 50, &k, &err), CSIM_ERR_RUN);
    ck_assert_int_eq(k, 11);  // t = 0.010 > 0.0095
    ck_assert_msg(strstr(err.msg, msgs[r]) && strstr(err.msg, "(bad)"), "%s", err.msg);
    ck_assert_str_eq(err.key, "c0");
    ctl_done(&cm, &cd);
    plugin_unload(&lib);
  }
  fixture_free(&f);
}
END_TEST

// the example plugin (tools/plugin_example) and the built-in pd give the same torques, bit for
// bit, on the same sensor readings (random states of the arm, the target held from the first)
START_TEST(plugin_equals_builtin) {
  fixture f = kuka();
  char path[512];
  plugin_path(path, sizeof path, "pd_plugin");
  plugin_lib lib;
  csim_error err;
  ck_assert_int_eq(plugin_load(path, NULL, 0, 0, NULL, &lib, &err), CSIM_OK);
  static const char* const kv[] = {"kp", "37.5", "kd", "1.25"};
  ctl_model cm[2];
  ctl_data cd[2];
  ctl_setup(f.s, ctl_builtin_pd(), 1, 0, kv, 2, &cm[0], &cd[0]);
  ctl_setup(f.s, lib.api, 1, 0, kv, 2, &cm[1], &cd[1]);
  ck_assert_int_eq(cd[1].nlog, 1);
  const sim_model* m = f.s->model.m;
  unsigned seed = 5;
  for (long k = 0; k < 100; k++) {
    for (int j = 0; j < cm[0].info.njoint; j++) {
      f.s->data.d->q[m->jnt_qadr[cm[0].jnt[j]]] = urand_sym(&seed);
      f.s->data.d->v[m->jnt_dofadr[cm[0].jnt[j]]] = urand_sym(&seed);
    }
    for (int i = 0; i < 2; i++) ck_assert_int_eq(step_ctl(&f, &cm[i], &cd[i], k, &err), CSIM_OK);
    for (int j = 0; j < cm[0].info.njoint; j++) ck_assert(cd[0].tau[j] == cd[1].tau[j]);
  }
  for (int i = 0; i < 2; i++) {
    ctl_data_free(&cm[i], &cd[i]);
    ctl_model_free(&cm[i]);
  }
  plugin_unload(&lib);
  fixture_free(&f);
}
END_TEST

// `make install PREFIX=P` installs csim, <csim/plugin.h> and csim-plugin.pc (issue 23): the
// example plugin then builds outside the repository's include paths with `pkg-config --cflags
// csim-plugin` (which must name P/include) and loads; the installed csim runs. The sub-make gets
// this build's csim (CSIM_BIN) so that it never rebuilds, and none of the calling make's flags
START_TEST(install_builds_plugin) {
  char pre[512], so[512], pc[600], buf[8192];
  tmp_path(pre, sizeof pre, "prefix");
  tmp_path(so, sizeof so, "my_pd.so");
  snprintf(pc, sizeof pc, "PKG_CONFIG_PATH=%s/lib/pkgconfig", pre);
  int rc = sh_fmt(buf, sizeof buf, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
                  "--no-print-directory install PREFIX=%s CSIM_BIN=%s 2>&1", pre, csim_bin());
  ck_assert_msg(rc == 0, "make install: %s", buf);
  rc = sh_fmt(buf, sizeof buf, "%s pkg-config --cflags csim-plugin 2>&1", pc);
  char want[600];
  snprintf(want, sizeof want, "-I%s/include", pre);
  ck_assert_msg(rc == 0 && strstr(buf, want), "pkg-config: rc %d: %s", rc, buf);
  rc = sh_fmt(buf, sizeof buf, "cc -std=c11 -O2 -fPIC -shared -Wall -Werror $(%s pkg-config "
              "--cflags csim-plugin) -o %s tools/plugin_example/pd_plugin.c -lm 2>&1", pc, so);
  ck_assert_msg(rc == 0, "building the example against the installed header: %s", buf);
  plugin_lib lib;
  csim_error err;
  ck_assert_int_eq(plugin_load(so, NULL, 0, 0, NULL, &lib, &err), CSIM_OK);
  ck_assert_int_eq(lib.api->abi, CSIM_PLUGIN_ABI);
  plugin_unload(&lib);
  rc = sh_fmt(buf, sizeof buf, "%s/bin/csim --version 2>&1", pre);
  ck_assert_msg(rc == 0 && strstr(buf, "csim"), "installed csim: rc %d: %s", rc, buf);
}
END_TEST

// ---- controllers in a scenario ---------------------------------------------------------------

// the Kuka arm alone, fixed base, ncp/pgs: dt and the controllers block given
static void arm_scenario(const char* name, double dt, const char* controllers) {
  char text[2048];
  snprintf(text, sizeof text,
           "name: arm\n"
           "world: {gravity: [0, 0, -9.81], ground: {type: plane}}\n"
           "robots:\n  - {urdf: %s/robots/iiwa_wsg.urdf, base: fixed, name: arm}\n"
           "contact: {model: ncp, friction: 0.5}\n"
           "solver: {name: pgs, tolerance: 1.0e-8, max_iterations: 200}\n"
           "integrator: {dt: %g, duration: 0.2}\n"
           "controllers:\n%s",
           getenv("PWD") ? getenv("PWD") : ".", dt, controllers);
  tmp_write_text(name, text);
}

static double* run_read(const char* yaml, const char* out, const char* ds, size_t* rows,
                        size_t* cols) {
  char y[512], o[512], buf[4096];
  tmp_path(y, sizeof y, yaml);
  tmp_path(o, sizeof o, out);
  int rc = sh_fmt(buf, sizeof buf, "%s run %s --out %s --quiet", csim_bin(), y, o);
  ck_assert_msg(rc == 0, "%s", buf);
  return h5_read_file(o, ds, rows, cols);
}

// the example plugin (a shared library through the ABI) and the built-in pd drive the arm along
// the same trajectory, bit for bit
START_TEST(plugin_trajectory_equals_builtin) {
  char ctl[512];
  arm_scenario("builtin.yaml", 1e-3,
               "  - {type: pd, robot: arm, params: {kp: 80, kd: 3, target: 0.4}}\n");
  snprintf(ctl, sizeof ctl, "  - {type: plugin, robot: arm, library: %s/%s/pd_plugin.so, "
           "params: {kp: 80, kd: 3, target: 0.4}}\n", getenv("PWD"), PLUGIN_DIR);
  arm_scenario("plugin.yaml", 1e-3, ctl);
  size_t r[2], c[2], rt, ct;
  double* q[2] = {run_read("builtin.yaml", "b.h5", "/state/q", &r[0], &c[0]),
                  run_read("plugin.yaml", "p.h5", "/state/q", &r[1], &c[1])};
  ck_assert(r[0] == 200 && r[0] == r[1] && c[0] == c[1]);
  ck_assert_int_eq(memcmp(q[0], q[1], sizeof(double) * r[0] * c[0]), 0);
  // and the arm moved: the joints went from their initial positions toward the target
  ck_assert_double_gt(fabs(q[0][(r[0] - 1) * c[0]] - q[0][0]), 0.05);
  double* tau = run_read("plugin.yaml", "p.h5", "/control/tau", &rt, &ct);
  ck_assert_int_eq(ct, 9);
  free(tau);
  free(q[0]);
  free(q[1]);
}
END_TEST

// a controller at 1 kHz on a 0.5 ms step holds its torques over the two steps of each period
START_TEST(zero_order_hold) {
  arm_scenario("zoh.yaml", 5e-4,
               "  - {type: pd, robot: arm, period: 0.001, params: {kp: 80, kd: 3, target: 0.4}}\n");
  size_t r, c;
  double* tau = run_read("zoh.yaml", "z.h5", "/control/tau", &r, &c);
  ck_assert_int_eq(r, 400);
  int changed = 0;
  for (size_t k = 0; k + 1 < r; k++)
    for (size_t j = 0; j < c; j++) {
      double a = tau[k * c + j], b = tau[(k + 1) * c + j];
      if (k % 2 == 0) ck_assert_msg(a == b, "step %zu joint %zu: %g then %g", k, j, a, b);
      else changed += a != b;
    }
  ck_assert_int_gt(changed, 100);  // and they do change at the instants
  free(tau);
}
END_TEST

// the summary names each controller with its instants and warns when the effort limits clamped
// its torques (kp 1e5 toward 2 rad on every joint, at least 0.7 rad from any of the arm's
// positions in 0.2 s: 7e4 N m against the Kuka's limits of at most 320 N m, every instant clamps)
START_TEST(summary_counts_clamps) {
  arm_scenario("clamp.yaml", 1e-3, "  - {type: pd, name: stiff, robot: arm, params: {kp: 1.0e5, target: 2}}\n");
  char y[512], o[512], buf[8192];
  tmp_path(y, sizeof y, "clamp.yaml");
  tmp_path(o, sizeof o, "clamp.h5");
  int rc = sh_fmt(buf, sizeof buf, "%s run %s --out %s", csim_bin(), y, o);
  ck_assert_msg(rc == 0, "%s", buf);
  ck_assert_msg(strstr(buf, "controller stiff (pd): 200 control instants, solve time mean "),
                "%s", buf);
  ck_assert_msg(strstr(buf, "warning: controller stiff: torques clamped to the effort limits at "
                            "200 instants"), "%s", buf);
}
END_TEST

// a controllers item of arm_scenario's: the broken plugin build/plugins/<lib>.so as 'wobbly'
static void bad_plugin_item(char* buf, size_t n, const char* lib) {
  snprintf(buf, n, "  - {type: plugin, name: wobbly, robot: arm, library: %s/%s/%s.so}\n",
           getenv("PWD"), PLUGIN_DIR, lib);
}

// a plugin that crashes (abort() in its step at t = 0.1 s) takes the run down: csim gives no exit
// status of its own (the shell's 128 + the signal), and the output keeps every row up to the last
// flush (output.flush_every 0: after every row), as for SIGKILL: the file opens, marked
// incomplete, with the rows of steps 0..99 (t = k dt; the crash is in step 100's control instant)
// in /time and /control/tau
START_TEST(plugin_crash_keeps_rows) {
  char item[512], y[512], o[512], buf[8192];
  bad_plugin_item(item, sizeof item, "bad_crash");
  arm_scenario("crash.yaml", 1e-3, item);
  tmp_path(y, sizeof y, "crash.yaml");
  tmp_path(o, sizeof o, "crash.h5");
  // no core file in the working directory
  int rc = sh_fmt(buf, sizeof buf, "ulimit -c 0; %s run %s --out %s --quiet --set "
                  "output.flush_every=0", csim_bin(), y, o);
  ck_assert_msg(rc > 128, "exit %d, not killed by a signal: %s", rc, buf);
  ck_assert_int_eq(h5_root_int(o, "complete"), 0);
  int n = h5_root_int(o, "steps_written");
  ck_assert_int_eq(n, 100);
  size_t r, c, rt, ct;
  double* t = h5_read_file(o, "/time", &r, &c);
  double* tau = h5_read_file(o, "/control/tau", &rt, &ct);
  ck_assert(r >= (size_t)n && rt >= (size_t)n && ct == 9);
  for (int k = 0; k < n; k++) ck_assert_double_eq_tol(t[k], k * 1e-3, 1e-12);
  free(t);
  free(tau);
}
END_TEST

// bad controllers: exit 2 (input) or 1 (run) naming the key or the controller; every broken
// plugin of tests/plugins/bad_plugins.c through `csim run` (the library named at load, the
// controller and the plugin's name at run time)
START_TEST(scenario_errors) {
  char bad_nan[512], bad_abi[512], bad_nosym[512], bad_null[512], bad_nostep[512], bad_fail[512];
  bad_plugin_item(bad_nan, sizeof bad_nan, "bad_nan");
  bad_plugin_item(bad_abi, sizeof bad_abi, "bad_abi");
  bad_plugin_item(bad_nosym, sizeof bad_nosym, "bad_nosym");
  bad_plugin_item(bad_null, sizeof bad_null, "bad_null");
  bad_plugin_item(bad_nostep, sizeof bad_nostep, "bad_nostep");
  bad_plugin_item(bad_fail, sizeof bad_fail, "bad_fail");
  const struct {
    const char* ctl;
    int rc;
    const char* msg;
  } rows[] = {
      {"  - {type: pd, robot: leg, params: {kp: 1}}\n", 2, "'controllers.0.robot': no robot named 'leg'"},
      {"  - {type: pd, period: 0.0015, params: {kp: 1}}\n", 2,
       "'controllers.0.period': 0.0015 s is not a multiple of integrator.dt"},
      {"  - {type: pd, delay: 0.0001, params: {kp: 1}}\n", 2, "'controllers.0.delay'"},
      {"  - {type: plugin, library: nowhere.so}\n", 2, "cannot open controller plugin"},
      {"  - {type: pd}\n", 2, "param 'kp' is required"},
      {"  - {type: pd, params: {kp: 1}, noise: {q: -1}}\n", 2, "'controllers.0.noise.q'"},
      {"  - {type: pd, params: {kp: 1}}\n  - {type: pd, params: {kp: 1}, name: pd0}\n", 2,
       "duplicate controller name 'pd0'"},
      {"  - {type: quadruped_walk}\n", 2, "quadruped_walk needs a free base"},
      {bad_nan, 1, "'wobbly': controller (bad): non-finite torque"},
      {bad_abi, 2, "bad_abi.so': ABI version 999, this csim needs 1"},
      {bad_nosym, 2, "bad_nosym.so': no symbol csim_plugin_entry"},
      {bad_null, 2, "bad_null.so': csim_plugin_entry() returned NULL"},
      {bad_nostep, 2, "bad_nostep.so'"},
      {bad_fail, 1, "'wobbly': controller (bad): step failed: lost track of the base"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    arm_scenario("bad.yaml", 1e-3, rows[i].ctl);
    char y[512], o[512], buf[4096];
    tmp_path(y, sizeof y, "bad.yaml");
    tmp_path(o, sizeof o, "bad.h5");
    int rc = sh_fmt(buf, sizeof buf, "%s run %s --out %s --quiet", csim_bin(), y, o);
    ck_assert_msg(rc == rows[i].rc && strstr(buf, rows[i].msg), "row %zu: rc %d: %s", i, rc, buf);
  }
}
END_TEST

// `csim run scenarios/solo12_walk.yaml --quiet` with the --set options `sets`, into the test's
// temporary `out` (its path in o); the exit status, the output in buf
static int walk_run(char* buf, size_t n, char o[512], const char* out, const char* sets) {
  tmp_path(o, 512, out);
  return sh_fmt(buf, n, "%s run scenarios/solo12_walk.yaml --out %s --quiet %s", csim_bin(), o,
                sets);
}

// quadruped_walk's height_map reads the ground's height field: on flat ground (a plane) it is
// refused at load (exit 2, naming the param), not silently ignored
START_TEST(height_map_needs_field) {
  char o[512], buf[4096];
  int rc = walk_run(buf, sizeof buf, o, "hmap.h5", "--set controllers.0.params.height_map=1 "
                    "--set controllers.0.params.terrain=rough");
  ck_assert_msg(rc == 2 && strstr(buf, "param 'height_map': needs terrain: rough and a "
                                       "heightfield ground"), "rc %d: %s", rc, buf);
}
END_TEST

// scenarios/solo12_walk.yaml (issue 23's acceptance): over the last 5 s of 10 the base's mean
// forward velocity is within 10 % of the commanded 0.3 m/s, and the base stays above 0.15 m
// (a fall puts it on the ground, at about 0.05 m) and tilted less than 60 degrees (its up axis'
// world z component above cos 60 = 0.5: the figures' definition of a fall) throughout
START_TEST(solo12_walks) {
  char o[512], buf[4096];
  int rc = walk_run(buf, sizeof buf, o, "walk.h5", "");
  ck_assert_msg(rc == 0, "%s", buf);
  size_t r, c, rt, ct;
  double* q = h5_read_file(o, "/state/q", &r, &c);
  double* t = h5_read_file(o, "/time", &rt, &ct);
  ck_assert(r == rt && r > 10);
  size_t i5 = 0;
  while (i5 < r && t[i5] < 5.0) i5++;
  double v = (q[(r - 1) * c] - q[i5 * c]) / (t[r - 1] - t[i5]);
  ck_assert_msg(fabs(v - 0.3) <= 0.03, "mean forward velocity %g m/s over the last 5 s", v);
  for (size_t k = 0; k < r; k++) {
    const double* x = q + k * c;  // base quaternion [x y z w] at 3..6: R[2][2]
    double up = 1 - 2 * (x[3] * x[3] + x[4] * x[4]);
    ck_assert_msg(x[2] > 0.15, "base at %g m at t = %g s", x[2], t[k]);
    ck_assert_msg(up > 0.5, "base tilted: up axis z %g at t = %g s", up, t[k]);
  }
  free(q);
  free(t);
}
END_TEST

// the mean velocity of the base along its heading (the yaw of its recorded quaternion) turned
// by `turn` (0: forward, pi/2: to its left) over rows [a, b) of a run's /state/q (c columns),
// from the recorded positions alone
static double heading_velocity(const double* q, size_t c, const double* t, size_t a, size_t b,
                               double turn) {
  double s = 0;
  for (size_t k = a; k + 1 < b; k++) {
    const double* x = q + k * c;  // quaternion [x y z w] at 3..6
    double yaw = turn + atan2(2 * (x[6] * x[5] + x[3] * x[4]), 1 - 2 * (x[4] * x[4] + x[5] * x[5]));
    s += (q[(k + 1) * c] - x[0]) * cos(yaw) + (q[(k + 1) * c + 1] - x[1]) * sin(yaw);
  }
  return s / (t[b - 1] - t[a]);
}

static size_t row_at(const double* t, size_t r, double time) {
  size_t k = 0;
  while (k < r && t[k] < time - 1e-9) k++;
  return k;
}

// issue 23's sideways drift (docs/controllers.md): the flat walk trotting in place and at 0.3
// m/s forward, 10 s. Over the last 5 s the mean sideways velocity is below 0.03 m/s in magnitude,
// both as the controller measured it (/control/log's vy, yaw frame: column 4 of quadruped.c's
// qw_logs, vx_cmd vy_cmd wz_cmd vx vy ...) and from the recorded base positions across the
// heading; at 0.3 m/s the mean velocity along the heading (recorded positions) is within 10 % of
// it. The command asks for no sideways motion; a well-tuned convex MPC trot holds |vy| near 0.
// Before the MPC's lever arms were taken about the predicted com: vy -0.24 in place, +0.24 at
// 0.3 (0.270 along the heading). Measured after: 0.000 and 0.000, 0.300 along the heading
START_TEST(solo12_no_drift) {
  static const double cmd[2] = {0, 0.3};
  for (int i = 0; i < 2; i++) {
    char o[512], buf[4096], set[128];
    snprintf(set, sizeof set, "--set controllers.0.params.velocity=[%g,0,0]", cmd[i]);
    int rc = walk_run(buf, sizeof buf, o, "drift.h5", set);
    ck_assert_msg(rc == 0, "%s", buf);
    size_t r, c, rt, ct, rl, cl;
    double* q = h5_read_file(o, "/state/q", &r, &c);
    double* t = h5_read_file(o, "/time", &rt, &ct);
    double* log = h5_read_file(o, "/control/log", &rl, &cl);
    ck_assert(r == rt && r == rl && cl > 4 && r > 10);
    size_t a = row_at(t, r, t[r - 1] - 5);
    double vy = 0;
    for (size_t k = a; k < r; k++) vy += log[k * cl + 4] / (double)(r - a);
    double side = heading_velocity(q, c, t, a, r, M_PI / 2);
    double along = heading_velocity(q, c, t, a, r, 0);
    printf("solo12_walk at %g m/s: over the last 5 s vy %.4f m/s (log), %.4f across the heading, "
           "%.4f along it\n", cmd[i], vy, side, along);
    ck_assert_msg(fabs(vy) < 0.03 && fabs(side) < 0.03, "command %g m/s: sideways %g m/s "
                  "(log), %g (recorded positions)", cmd[i], vy, side);
    ck_assert_msg(fabs(along - cmd[i]) <= 0.03, "command %g m/s: %g along the heading", cmd[i],
                  along);
    free(q);
    free(t);
    free(log);
  }
}
END_TEST

// params.schedule (issue 23: the command constant or a piecewise schedule): 0.3 m/s forward
// from the start (`velocity`), 0.2 m/s backward from 4 s on (the schedule's row), on flat
// ground. The logged command switches at 4 s exactly; over the last 2 s of each phase the base's
// mean velocity along its heading, from the recorded base poses, is within 10 % of that phase's
// command (the flat test's share; 20 % while the walk drifted sideways and tracked 0.3 m/s at
// 0.25-0.275 along its heading, docs/controllers.md). Measured: 0.284 and -0.198 m/s (0.247 and
// -0.178 before the drift's fix). The base stays above 0.15 m
START_TEST(solo12_schedule) {
  char o[512], buf[4096];
  int rc = walk_run(buf, sizeof buf, o, "sched.h5", "--set integrator.duration=8 --set "
                    "controllers.0.params.schedule=[4,-0.2,0,0]");
  ck_assert_msg(rc == 0, "%s", buf);
  size_t r, c, rt, ct, rl, cl;
  double* q = h5_read_file(o, "/state/q", &r, &c);
  double* t = h5_read_file(o, "/time", &rt, &ct);
  double* log = h5_read_file(o, "/control/log", &rl, &cl);
  ck_assert(r == rt && r == rl && r > 10);
  size_t a = row_at(t, r, 2), b = row_at(t, r, 4), e = row_at(t, r, 6);
  double v1 = heading_velocity(q, c, t, a, b + 1, 0), v2 = heading_velocity(q, c, t, e, r, 0);
  ck_assert_msg(fabs(v1 - 0.3) <= 0.03 && fabs(v2 + 0.2) <= 0.02,
                "heading velocity %g m/s over 2-4 s, %g over 6-8 s", v1, v2);
  // /control/log's first column is vx_cmd (quadruped.c qw_logs)
  ck_assert(log[(b - 1) * cl] == 0.3 && log[(b + 1) * cl] == -0.2);
  for (size_t k = 0; k < r; k++) ck_assert_msg(q[k * c + 2] > 0.15, "base at %g m", q[k * c + 2]);
  printf("solo12_walk with a schedule: %.3f m/s over 2-4 s (command 0.3), %.3f over 6-8 s "
         "(command -0.2)\n", v1, v2);
  free(q);
  free(t);
  free(log);
}
END_TEST

// quadruped_walk's `heading`: Solo-12 trotting in place is kicked to a yaw rate of 8 rad/s at
// the start (robots.0.v0), which turns it about 0.3 rad before the stance feet stop it. With
// `heading: hold` the MPC's yaw reference is the commanded heading (0, the first instant's yaw:
// the command has no yaw rate), so after 3 s the yaw is back within 0.05 rad of 0 (a sixth of
// the kick's turn: the MPC's yaw weight must undo most of it); with `heading: sensed` (flat
// ground's default) the reference follows the sensed yaw, nothing turns it back, and it keeps
// more than 0.2 rad (two thirds of the turn). Measured: 0.006 and 0.316 rad. A heading that is
// neither is refused at load, naming the param (exit 2)
START_TEST(heading_hold) {
  static const char* const mode[2] = {"hold", "sensed"};
  double yaw[2];
  for (int i = 0; i < 2; i++) {
    char o[512], buf[4096], set[256];
    snprintf(set, sizeof set, "--set integrator.duration=3 --set controllers.0.params.velocity="
             "[0,0,0] --set controllers.0.params.heading=%s --set robots.0.v0=[0,0,0,0,0,8,0,0,"
             "0,0,0,0,0,0,0,0,0,0]", mode[i]);
    int rc = walk_run(buf, sizeof buf, o, "heading.h5", set);
    ck_assert_msg(rc == 0, "%s", buf);
    size_t r, c;
    double* q = h5_read_file(o, "/state/q", &r, &c);
    const double* x = q + (r - 1) * c;  // quaternion [x y z w] at 3..6
    yaw[i] = atan2(2 * (x[6] * x[5] + x[3] * x[4]), 1 - 2 * (x[4] * x[4] + x[5] * x[5]));
    free(q);
  }
  printf("heading after a yaw kick: %.3f rad (hold), %.3f (sensed)\n", yaw[0], yaw[1]);
  ck_assert_msg(fabs(yaw[0]) < 0.05 && fabs(yaw[1]) > 0.2, "yaw %g (hold), %g (sensed)", yaw[0],
                yaw[1]);
  char o[512], buf[4096];
  int rc = walk_run(buf, sizeof buf, o, "heading_bad.h5", "--set controllers.0.params.heading=yaw");
  ck_assert_msg(rc == 2 && strstr(buf, "param 'heading': expected sensed or hold, got 'yaw'"),
                "rc %d: %s", rc, buf);
}
END_TEST

// issue 23's other quadrupeds (scenarios/go1_walk.yaml, scenarios/anymal_walk.yaml: flat, mu
// 0.9, 0.3 m/s, 10 s, per-robot force weight, position weights and swing gains; docs/
// controllers.md). The tolerances are the goal set for them (issue 23's Solo test asks 10 %; a
// robot the controller's authors did not tune for gets twice that): over the last 5 s the base's
// mean velocity along its heading (recorded positions) within 20 % of 0.3 m/s, across it below
// 0.05 m/s (a sixth of the command: at most about 10 degrees of crab), and no fall at any instant
// (tilted past 60 degrees, the figures' definition, or the base below 0.6 of its starting height,
// as solo12_walks' 0.15 m of 0.235: a trunk that low has folded its legs). The heading at the end
// within 0.1 rad of the commanded one (0: `heading: hold`; 0.1 rad off at 0.3 m/s would be 0.03
// m/s sideways in the world). Measured: Go1 0.299, -0.001 m/s, yaw -0.005 rad, base 0.285-0.294
// m; ANYmal 0.302, 0.001 m/s, yaw -0.007, base 0.602-0.641 m (the same under ASan+UBSan). With
// Solo-12's parameters: Go1 0.110 and 0.104 m/s sideways, ANYmal fell
static void robot_walks(const char* scenario, const char* out) {
  char o[512], buf[4096];
  tmp_path(o, sizeof o, out);
  int rc = sh_fmt(buf, sizeof buf, "%s run %s --out %s --quiet", csim_bin(), scenario, o);
  ck_assert_msg(rc == 0, "%s: %s", scenario, buf);
  size_t r, c, rt, ct;
  double* q = h5_read_file(o, "/state/q", &r, &c);
  double* t = h5_read_file(o, "/time", &rt, &ct);
  ck_assert(r == rt && r > 10 && c == 19);
  size_t a = row_at(t, r, t[r - 1] - 5);
  double along = heading_velocity(q, c, t, a, r, 0), side = heading_velocity(q, c, t, a, r, M_PI / 2);
  double z0 = q[2], zmin = INFINITY, zmax = -INFINITY, upmin = INFINITY;
  for (size_t k = 0; k < r; k++) {
    const double* x = q + k * c;  // base quaternion [x y z w] at 3..6: R[2][2]
    zmin = fmin(zmin, x[2]);
    zmax = fmax(zmax, x[2]);
    upmin = fmin(upmin, 1 - 2 * (x[3] * x[3] + x[4] * x[4]));
  }
  const double* x = q + (r - 1) * c;
  double yaw = atan2(2 * (x[6] * x[5] + x[3] * x[4]), 1 - 2 * (x[4] * x[4] + x[5] * x[5]));
  printf("%s: over the last 5 s %.3f m/s along the heading, %.3f across; yaw at the end %.3f "
         "rad; base %.3f-%.3f m (start %.3f), up axis z at least %.3f\n", scenario, along, side,
         yaw, zmin, zmax, z0, upmin);
  ck_assert_msg(fabs(along - 0.3) <= 0.2 * 0.3, "%s: %g m/s along the heading", scenario, along);
  ck_assert_msg(fabs(side) < 0.05, "%s: %g m/s sideways", scenario, side);
  ck_assert_msg(zmin > 0.6 * z0 && upmin > 0.5, "%s fell: base down to %g m, up axis z %g",
                scenario, zmin, upmin);
  ck_assert_msg(fabs(yaw) < 0.1, "%s: heading %g rad at the end", scenario, yaw);
  // the default solver (auto) converges on every recorded step (Go1's 12 dry-friction joint rows
  // once sent every stance island to ADMM, which ended 26 % of the steps at its cap)
  size_t rc_, cc_;
  double* conv = h5_read_file(o, "/solver/converged", &rc_, &cc_);
  size_t bad = 0;
  for (size_t k = 0; k < rc_ * cc_; k++) bad += conv[k] != 1;
  ck_assert_msg(bad == 0, "%s: %zu of %zu recorded steps not converged", scenario, bad, rc_);
  free(conv);
  free(q);
  free(t);
}

START_TEST(go1_walks) { robot_walks("scenarios/go1_walk.yaml", "go1.h5"); }
END_TEST

START_TEST(anymal_walks) { robot_walks("scenarios/anymal_walk.yaml", "anymal.h5"); }
END_TEST

// a malformed schedule is refused at load naming the param (exit 2)
START_TEST(schedule_refused) {
  static const char* const bad[] = {"[0,0.3,0]", "[1,0.3,0,0,0.5,0,0,0]", "[-1,0,0,0]",
                                    "[0,0.3,0,x]"};
  for (int i = 0; i < 4; i++) {
    char o[512], buf[4096], set[128];
    snprintf(set, sizeof set, "--set controllers.0.params.schedule=%s", bad[i]);
    int rc = walk_run(buf, sizeof buf, o, "sched_bad.h5", set);
    ck_assert_msg(rc == 2 && strstr(buf, "param 'schedule': expected rows of 4 numbers"),
                  "%s: rc %d: %s", bad[i], rc, buf);
  }
}
END_TEST

// the base's path on scenarios/solo12_walk_bumpy.yaml with terrain seed `seed` for `dur` s: its
// forward distance (final x - initial x), lowest height and lowest and last up-axis z component
// (1: upright, < 0.5: tilted past 60 degrees, < 0: upside down). A fall puts the trunk on the
// bumps (base at most 0.15 m: 10 cm bumps plus the trunk's half height); walking keeps it near
// 0.25 m
typedef struct {
  double dist, zmin, upmin, upend;
} walk_path;

static walk_path bumpy_walk(int seed, double dur, const char* extra, char* summary, size_t n) {
  char o[512], name[64];
  snprintf(name, sizeof name, "bumpy%d.h5", seed);
  tmp_path(o, sizeof o, name);
  int rc = sh_fmt(summary, n, "%s run scenarios/solo12_walk_bumpy.yaml --out %s "
                  "--set world.ground.seed=%d --set integrator.duration=%g%s",
                  csim_bin(), o, seed, dur, extra);
  ck_assert_msg(rc == 0, "%s", summary);
  size_t r, c;
  double* q = h5_read_file(o, "/state/q", &r, &c);
  ck_assert(r > 10 && c == 19);
  walk_path p = {q[(r - 1) * c] - q[0], INFINITY, INFINITY, 0};
  for (size_t k = 0; k < r; k++) {
    const double* x = q + k * c;  // base quaternion [x y z w] at 3..6: R[2][2]
    double up = 1 - 2 * (x[3] * x[3] + x[4] * x[4]);
    p.zmin = fmin(p.zmin, x[2]);
    p.upmin = fmin(p.upmin, up);
    p.upend = up;
  }
  free(q);
  return p;
}

// 2.5 s on the 10 cm bumps (terrain seed 1): the controller stands up from its drop, then walks
// forward (at 0.3 m/s for the 1.9 s after the standing start, 0.57 m; at least half of that)
// without falling (the trunk stays above 0.18 m: measured 0.220 m). And the controller's own
// solve time (/timing/control): recorded at every row,
// positive and within the wall time of the step it ran in (the step calls the controller), its
// mean in the summary
START_TEST(solo12_bumpy_short) {
  char buf[8192];
  walk_path p = bumpy_walk(1, 2.5, "", buf, sizeof buf);
  ck_assert_msg(p.dist > 0.28, "walked %g m in 2.5 s", p.dist);
  ck_assert_msg(p.zmin > 0.18 && p.upmin > 0.5, "fell: base down to %g m, up axis z %g",
                p.zmin, p.upmin);
  ck_assert_msg(strstr(buf, "controller walk (quadruped_walk): 2500 control instants, solve "
                            "time mean "), "%s", buf);
  char o[512];
  tmp_path(o, sizeof o, "bumpy1.h5");
  size_t r, c, rs, cs;
  double* ts = h5_read_file(o, "/timing/control", &r, &c);
  double* st = h5_read_file(o, "/timing/step", &rs, &cs);
  ck_assert(r == 250 && c == 1 && rs == r);
  for (size_t k = 0; k < r; k++)
    ck_assert_msg(ts[k] > 0 && ts[k] <= st[k], "row %zu: solve %g s, step %g s", k, ts[k],
                  st[k]);
  free(ts);
  free(st);
}
END_TEST

// issue 23's acceptance on the bumps: with NCP, at least 1.5 m walked in 10 s, and standing
// upright at the end, on at least 8 of terrain seeds 1-10; and no fall (tilted past 60 degrees
// or base below 0.10 m at any instant, tools/figures/fig_walk.py's definition) on at least 8 of
// them, the same share as the requirement on distance (measured 2026-11-28: all 10 walk
// 1.5 m, seeds 1 and 6 fall and get up, docs/controllers.md)
// Plain build only: 100 s of walking under ASan+UBSan would take about an hour of CI (the
// sanitizers run the 2.5 s case, solo12_bumpy_short, in make test)
START_TEST(solo12_bumpy_seeds) {
#ifdef CSIM_TEST_ASAN
  printf("solo12_bumpy_seeds: skipped under the sanitizers (the plain pass checks the 10 seeds)\n");
  return;
#endif
  int ok = 0, falls = 0;
  char report[2048] = "", buf[8192];
  for (int seed = 1; seed <= 10; seed++) {
    walk_path p = bumpy_walk(seed, 10.0, " --quiet", buf, sizeof buf);
    int good = p.dist >= 1.5 && p.upend > 0.5, fell = p.upmin <= 0.5 || p.zmin < 0.10;
    ok += good;
    falls += fell;
    size_t k = strlen(report);
    snprintf(report + k, sizeof report - k, " seed %d: %.2f m, z min %.3f m, up min %.2f, end "
             "%.2f%s%s;", seed, p.dist, p.zmin, p.upmin, p.upend, fell ? " (fell)" : "",
             good ? "" : " (FAIL)");
  }
  ck_assert_msg(ok >= 8, "%d of 10 seeds walked 1.5 m:%s", ok, report);
  ck_assert_msg(falls <= 2, "%d of 10 seeds fell:%s", falls, report);
  printf("solo12_walk_bumpy, 10 terrain seeds:%s\n", report);
}
END_TEST

int main(void) {
  Suite* s = suite_create("control");
  TCase* tc = tcase_create("control");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, hold_and_delay);
  tcase_add_test(tc, reset_restarts);
  tcase_add_test(tc, nonfinite_torque_stops);
  tcase_add_test(tc, init_errors);
  tcase_add_test(tc, pd_clamped);
  tcase_add_test(tc, noise_seeded);
  tcase_add_test(tc, imu_and_contact_forces);
  tcase_add_test(tc, plugin_load_errors);
  tcase_add_test(tc, plugin_run_errors);
  tcase_add_test(tc, plugin_equals_builtin);
  TCase* tr = tcase_create("scenarios");
  tcase_add_checked_fixture(tr, tmp_setup, tmp_teardown);
  tcase_set_timeout(tr, 120);
  tcase_add_test(tr, plugin_trajectory_equals_builtin);
  tcase_add_test(tr, zero_order_hold);
  tcase_add_test(tr, scenario_errors);
  tcase_add_test(tr, summary_counts_clamps);
  tcase_add_test(tr, height_map_needs_field);
  tcase_add_test(tr, install_builds_plugin);
  tcase_add_test(tr, schedule_refused);
  tcase_add_test(tr, heading_hold);
  tcase_add_test(tr, plugin_crash_keeps_rows);
  suite_add_tcase(s, tr);
  // 10 s of walking: about 2 s plain (make test-long); the bumps' 10 seeds of 10 s: about 1
  // minute plain (the MPC needs about 220 ADMM iterations per solve there, 50 on flat ground)
  TCase* tl = tcase_create("walk");
  tcase_add_checked_fixture(tl, tmp_setup, tmp_teardown);
  tcase_set_timeout(tl, 7200);
  tcase_set_tags(tl, "long");
  tcase_add_test(tl, solo12_walks);
  tcase_add_test(tl, solo12_schedule);
  tcase_add_test(tl, solo12_no_drift);
  tcase_add_test(tl, solo12_bumpy_seeds);
  tcase_add_test(tl, go1_walks);
  tcase_add_test(tl, anymal_walks);
  suite_add_tcase(s, tl);
  // 2.5 s on the bumps: about 20 s plain
  TCase* tb = tcase_create("bumpy");
  tcase_add_checked_fixture(tb, tmp_setup, tmp_teardown);
  tcase_set_timeout(tb, 900);
  tcase_add_test(tb, solo12_bumpy_short);
  suite_add_tcase(s, tb);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
