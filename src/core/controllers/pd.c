// pd.c — the built-in joint PD controller (control.h ctl_builtin_pd), written against the public
// ABI of core/plugin.h exactly as a plugin would be: tools/plugin_example/pd_plugin.c is the
// same law as a shared library, and the two give the same torques bit for bit.
//
// params: kp (N m/rad, > 0), kd (N m s/rad, >= 0), target (rad or m: one value for every joint
// or one per joint; default the joint positions at the first control instant).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/control.h"

typedef struct {
  int n;            // joints
  double kp, kd;
  int have_target;  // 0: hold the first measured positions
  double target[];  // (n)
} pd_state;

static const char* pd_param(const csim_plugin_info* in, const char* key) {
  for (int k = 0; k < in->nparam; k++)
    if (strcmp(in->param_keys[k], key) == 0) return in->param_values[k];
  return NULL;
}

// the numbers of a value "a b c" (spaces or commas); count, or -1 at a token that is no number
static int pd_numbers(const char* s, double* out, int max) {
  int n = 0;
  while (*s) {
    while (*s == ' ' || *s == ',' || *s == '[' || *s == ']') s++;
    if (!*s) break;
    char* end;
    double x = strtod(s, &end);
    if (end == s || !isfinite(x)) return -1;
    if (n < max) out[n] = x;
    n++;
    s = end;
  }
  return n;
}

static int pd_gain(const csim_plugin_info* in, const char* key, double lo, double* out,
                   char msg[CSIM_PLUGIN_MSG]) {
  const char* v = pd_param(in, key);
  if (!v) {
    if (lo > 0) snprintf(msg, CSIM_PLUGIN_MSG, "param '%s' is required", key);
    return lo > 0 ? CSIM_PLUGIN_ERROR : CSIM_PLUGIN_OK;
  }
  if (pd_numbers(v, out, 1) != 1 || *out < lo || (lo > 0 && *out == 0)) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param '%s': expected a number %s, got '%s'", key,
             lo > 0 ? "> 0" : ">= 0", v);
    return CSIM_PLUGIN_ERROR;
  }
  return CSIM_PLUGIN_OK;
}

static int pd_target(const csim_plugin_info* in, pd_state* p, char msg[CSIM_PLUGIN_MSG]) {
  const char* v = pd_param(in, "target");
  if (!v) return CSIM_PLUGIN_OK;
  int n = pd_numbers(v, p->target, p->n);
  if (n != 1 && n != p->n) {
    snprintf(msg, CSIM_PLUGIN_MSG, "param 'target': expected 1 or %d numbers, got '%s'", p->n, v);
    return CSIM_PLUGIN_ERROR;
  }
  for (int k = n; k < p->n; k++) p->target[k] = p->target[0];
  p->have_target = 1;
  return CSIM_PLUGIN_OK;
}

static int pd_init(const csim_plugin_info* in, void** state, int* nlog,
                   const char* const** log_names, char msg[CSIM_PLUGIN_MSG]) {
  pd_state* p = calloc(1, sizeof *p + sizeof(double) * ((size_t)in->njoint + 1));
  if (!p) {
    snprintf(msg, CSIM_PLUGIN_MSG, "out of memory");
    return CSIM_PLUGIN_ERROR;
  }
  *state = p;
  p->n = in->njoint;
  *nlog = 0;
  *log_names = NULL;
  if (pd_gain(in, "kp", 1, &p->kp, msg) || pd_gain(in, "kd", 0, &p->kd, msg) ||
      pd_target(in, p, msg))
    return CSIM_PLUGIN_ERROR;
  return CSIM_PLUGIN_OK;
}

static int pd_step(void* state, const csim_sensors* s, double* tau, double* log,
                   char msg[CSIM_PLUGIN_MSG]) {
  (void)log;
  (void)msg;
  pd_state* p = state;
  if (!p->have_target) {
    memcpy(p->target, s->q, sizeof(double) * (size_t)p->n);
    p->have_target = 1;
  }
  for (int k = 0; k < p->n; k++) tau[k] = p->kp * (p->target[k] - s->q[k]) - p->kd * s->v[k];
  return CSIM_PLUGIN_OK;
}

static void pd_release(void* state) { free(state); }

const csim_plugin_api* ctl_builtin_pd(void) {
  static const csim_plugin_api api = {CSIM_PLUGIN_ABI, "pd", pd_init, pd_step, pd_release};
  return &api;
}
