// pd_plugin.c — an example csim controller plugin: a joint PD, tau = kp (target - q) - kd v.
// Copy this file to start your own controller. Build it outside the repository with
//
//   cc -O2 -fPIC -shared $(pkg-config --cflags csim-plugin) -o pd_plugin.so pd_plugin.c
//
// (after `make install PREFIX=...`), and name it in a scenario:
//
//   controllers:
//     - {name: arm_pd, type: plugin, robot: arm, library: ./pd_plugin.so,
//        params: {kp: 100, kd: 5, target: 0.3}}
//
// The law is the built-in `pd` controller's, written the same way, so the two give the same
// trajectory bit for bit (tests/test_control.c checks it).
#include <csim/plugin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int n;
  double kp, kd;
  int have_target;  // 0: hold the positions measured at the first instant
  double* target;
} pd;

static const char* param(const csim_plugin_info* in, const char* key) {
  for (int k = 0; k < in->nparam; k++)
    if (strcmp(in->param_keys[k], key) == 0) return in->param_values[k];
  return NULL;
}

static int init(const csim_plugin_info* in, void** state, int* nlog, const char* const** names,
                char msg[CSIM_PLUGIN_MSG]) {
  static const char* const logs[] = {"error_norm"};  // |target - q|, recorded per instant
  pd* p = calloc(1, sizeof *p);
  if (!p) return CSIM_PLUGIN_ERROR;
  *state = p;
  p->n = in->njoint;
  p->target = calloc((size_t)in->njoint + 1, sizeof(double));
  const char* kp = param(in, "kp"), *kd = param(in, "kd"), *target = param(in, "target");
  if (!p->target || !kp) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'kp' is required");
    return CSIM_PLUGIN_ERROR;
  }
  p->kp = atof(kp);
  p->kd = kd ? atof(kd) : 0;
  if (target) {  // one value for every joint (a per-joint list is left to the reader)
    for (int k = 0; k < p->n; k++) p->target[k] = atof(target);
    p->have_target = 1;
  }
  *nlog = 1;
  *names = logs;
  return CSIM_PLUGIN_OK;
}

static int step(void* state, const csim_sensors* s, double* tau, double* log,
                char msg[CSIM_PLUGIN_MSG]) {
  (void)msg;
  pd* p = state;
  if (!p->have_target) {
    memcpy(p->target, s->q, sizeof(double) * (size_t)p->n);
    p->have_target = 1;
  }
  double e2 = 0;
  for (int k = 0; k < p->n; k++) {
    tau[k] = p->kp * (p->target[k] - s->q[k]) - p->kd * s->v[k];
    e2 += (p->target[k] - s->q[k]) * (p->target[k] - s->q[k]);
  }
  log[0] = sqrt(e2);
  return CSIM_PLUGIN_OK;
}

static void release(void* state) {
  pd* p = state;
  free(p->target);
  free(p);
}

const csim_plugin_api* csim_plugin_entry(void);
const csim_plugin_api* csim_plugin_entry(void) {
  static const csim_plugin_api api = {CSIM_PLUGIN_ABI, "example_pd", init, step, release};
  return &api;
}
