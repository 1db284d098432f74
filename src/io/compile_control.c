// compile_control.c — controllers.N into the sim's controllers (compile_control.h).
#include "io/compile_control.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/plugin_load.h"

// steps in t (a multiple of dt within 1e-9 relative), or -1
static long steps_of(double t, double dt) {
  double n = round(t / dt);
  return fabs(n * dt - t) <= 1e-9 * fmax(t, dt) ? (long)n : -1;
}

static void close_lib(void* lib) {
  plugin_lib l = {lib, NULL};
  plugin_unload(&l);
}

// the controller's table: built in, or the plugin's library
static csim_status controller_api(const scn_config* cfg, const scn_controller* t, int i,
                                  ctl_model* cm, csim_error* err) {
  switch (t->type) {
    case CSIM_CONTROLLER_PD: cm->api = ctl_builtin_pd(); return CSIM_OK;
    case CSIM_CONTROLLER_QUADRUPED_WALK: cm->api = ctl_builtin_quadruped_walk(); return CSIM_OK;
    case CSIM_CONTROLLER_JOINT_TRAJECTORY: cm->api = ctl_builtin_joint_trajectory(); return CSIM_OK;
    case CSIM_CONTROLLER_INVERSE_DYNAMICS: cm->api = ctl_builtin_inverse_dynamics(); return CSIM_OK;
    case CSIM_CONTROLLER_PLUGIN: break;
    case CSIM_NCONTROLLERS: return err_set(err, CSIM_ERR_INPUT, cfg->file, t->line, 0, NULL,
                                           "internal error: controller type");
  }
  char key[64];
  snprintf(key, sizeof(key), "controllers.%d.library", i);
  plugin_lib lib;
  csim_status st = plugin_load(t->library, cfg->file, t->line, 0, key, &lib, err);
  if (st != CSIM_OK) return scn_key_error(cfg, key, err, "%s", err->msg);
  cm->api = lib.api;
  cm->lib = lib.handle;
  cm->lib_close = close_lib;
  return CSIM_OK;
}

// the scenario's flat name, value pairs as the ABI's two arrays (one block, cm->params). A
// built-in's file param (joint_trajectory's and inverse_dynamics' 'file') relative to the scenario's directory is
// resolved against it, as robots.N.urdf is; the resolved text lives at the block's end
static int controller_params(const scn_config* cfg, const scn_controller* t, ctl_model* cm) {
  int n = t->nparams, fk = -1;
  size_t ptrs = sizeof(char*) * (2 * (size_t)n + 1), extra = 0;
  int has_file = t->type == CSIM_CONTROLLER_JOINT_TRAJECTORY ||
                 t->type == CSIM_CONTROLLER_INVERSE_DYNAMICS;
  for (int k = 0; k < n && has_file; k++)
    if (!strcmp(t->params[2 * k], "file") && t->params[2 * k + 1][0] != '/' &&
        cfg->dir[0] && strcmp(cfg->dir, ".")) {
      fk = k;
      extra = strlen(cfg->dir) + strlen(t->params[2 * k + 1]) + 2;
    }
  cm->params = calloc(1, ptrs + extra);
  if (!cm->params) return -1;
  for (int k = 0; k < n; k++) {
    cm->params[k] = t->params[2 * k];
    cm->params[n + k] = t->params[2 * k + 1];
  }
  if (fk >= 0) {
    char* path = (char*)cm->params + ptrs;
    snprintf(path, extra, "%s/%s", cfg->dir, t->params[2 * fk + 1]);
    cm->params[n + fk] = path;
  }
  cm->info.nparam = n;
  cm->info.param_keys = cm->params;
  cm->info.param_values = cm->params + n;
  return 0;
}

// robot, timing, noise, params and the table of controller i
static csim_status compile_one(const scn_config* cfg, const sim* s, int i, ctl_model* cm,
                               csim_error* err) {
  const scn_controller* t = &cfg->controllers[i];
  const sim_model* m = s->model.m;
  char key[64];
  int r = 0;
  if (t->robot) {
    while (r < m->nrobot && strcmp(m->robot_name[r], t->robot)) r++;
    snprintf(key, sizeof(key), "controllers.%d.robot", i);
    if (r == m->nrobot) return scn_key_error(cfg, key, err, "no robot named '%s'", t->robot);
  }
  long every = t->period > 0 ? steps_of(t->period, s->opt.dt) : 1;
  long delay = steps_of(t->delay, s->opt.dt);
  const char* bad = every < 1 ? "period" : delay < 0 ? "delay" : NULL;
  if (bad) {
    snprintf(key, sizeof(key), "controllers.%d.%s", i, bad);
    return scn_key_error(cfg, key, err, "%g s is not a multiple of integrator.dt (%g s)",
                         every < 1 ? t->period : t->delay, s->opt.dt);
  }
  if (ctl_model_init(m, r, s->opt.dt, (int)every, (int)delay, cm) != 0)
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  for (int j = 0; j < t->nnoise; j++)
    for (int c = 0; c < CTL_NCHANNELS; c++)
      if (!strcmp(ctl_channel_names[c], t->noise[j].name)) cm->noise[c] = t->noise[j].value;
  cm->seed = (uint64_t)t->seed;
  cm->name = strdup(t->name);
  if (!cm->name) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  cm->info.controller = cm->name;
  if (controller_params(cfg, t, cm) != 0)
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  return controller_api(cfg, t, i, cm, err);
}

csim_status compile_controllers(const scn_config* cfg, sim* s, csim_error* err) {
  int n = cfg->ncontrollers;
  if (n == 0) return CSIM_OK;
  int nl = s->model.m->nlink;
  ctl_model* ctl = calloc((size_t)n, sizeof(ctl_model));
  s->model.ctl = ctl;  // owned by the sim from here on (sim_free)
  s->data.ctl = calloc((size_t)n, sizeof(ctl_data));
  s->data.link_contact = calloc((size_t)nl + 1, sizeof(int));
  s->data.link_force = calloc(3 * (size_t)nl + 1, sizeof(double));
  if (!ctl || !s->data.ctl || !s->data.link_contact || !s->data.link_force)
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  for (int i = 0; i < n; i++) {
    s->model.nctl = i + 1;  // what sim_free releases if this one fails
    csim_status st = compile_one(cfg, s, i, &ctl[i], err);
    if (st == CSIM_OK) st = ctl_data_init(&ctl[i], &s->data.ctl[i], err);
    if (st != CSIM_OK) {
      if (!err->file[0]) {  // the controller's own message: place it at its entry
        snprintf(err->file, sizeof(err->file), "%s", cfg->file);
        err->line = cfg->controllers[i].line;
      }
      return st;
    }
  }
  return CSIM_OK;
}
