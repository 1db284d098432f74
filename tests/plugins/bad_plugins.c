// bad_plugins.c — broken controller plugins for tests/test_control.c, one per -D flag (bad_init
// and bad_step are exported so that every variant uses them):
//   BAD_ABI      the table says ABI version 999
//   BAD_NULL     csim_plugin_entry returns NULL
//   BAD_NOSTEP   the table has no step function
//   BAD_NOSYM    no csim_plugin_entry symbol at all
//   BAD_NAN      step writes NaN torques
//   BAD_FAIL     step reports an error with a message
//   BAD_CRASH    step aborts the process (SIGABRT) after 0.0995 s: a plugin that crashes
#include <csim/plugin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int bad_init(const csim_plugin_info* in, void** state, int* nlog, const char* const** names,
             char msg[CSIM_PLUGIN_MSG]);
int bad_init(const csim_plugin_info* in, void** state, int* nlog, const char* const** names,
                char msg[CSIM_PLUGIN_MSG]) {
  (void)in; (void)msg;
  *state = NULL;
  *nlog = 0;
  *names = NULL;
  return CSIM_PLUGIN_OK;
}

int bad_step(void* state, const csim_sensors* s, double* tau, double* log,
             char msg[CSIM_PLUGIN_MSG]);
int bad_step(void* state, const csim_sensors* s, double* tau, double* log,
                char msg[CSIM_PLUGIN_MSG]) {
  (void)state; (void)log; (void)msg; (void)tau;
#if defined(BAD_NAN)
  tau[0] = s->time > 0.0095 ? NAN : 0;
#elif defined(BAD_FAIL)
  if (s->time > 0.0095) {
    snprintf(msg, CSIM_PLUGIN_MSG, "lost track of the base");
    return CSIM_PLUGIN_ERROR;
  }
#elif defined(BAD_CRASH)
  if (s->time > 0.0995) abort();
#else
  (void)s;
#endif
  return CSIM_PLUGIN_OK;
}

#ifndef BAD_NOSYM
const csim_plugin_api* csim_plugin_entry(void);
const csim_plugin_api* csim_plugin_entry(void) {
#if defined(BAD_ABI)
  static const csim_plugin_api api = {999, "bad", bad_init, bad_step, NULL};
#elif defined(BAD_NOSTEP)
  static const csim_plugin_api api = {CSIM_PLUGIN_ABI, "bad", bad_init, NULL, NULL};
#else
  static const csim_plugin_api api = {CSIM_PLUGIN_ABI, "bad", bad_init, bad_step, NULL};
#endif
#if defined(BAD_NULL)
  (void)api;
  return NULL;
#else
  return &api;
#endif
}
#endif
