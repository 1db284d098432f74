// scene_fixture.c — see scene_fixture.h.
#include "scene_fixture.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/sim.h"
#include "io/compile.h"

// the sim of a loaded scenario (st: the load's status)
static fixture build(fixture f, csim_status st, csim_error* err) {
  ck_assert_msg(st == CSIM_OK, "scenario: %s (key %s, line %d)", err->msg, err->key, err->line);
  st = sim_create(f.cfg, &f.s, err);
  ck_assert_msg(st == CSIM_OK, "sim_create: %s (key %s)", err->msg, err->key);
  return f;
}

fixture fixture_text(const char* yaml, const char* name, const char* const* sets, int nset) {
  fixture f = {NULL, NULL};
  csim_error err;
  err_clear(&err);
  return build(f, scn_load_string(yaml, name, sets, nset, &f.cfg, &err), &err);
}

fixture fixture_file(const char* path, const char* const* sets, int nset) {
  fixture f = {NULL, NULL};
  csim_error err;
  err_clear(&err);
  return build(f, scn_load(path, sets, nset, &f.cfg, &err), &err);
}

csim_status fixture_try(const char* yaml, const char* name, fixture* f, csim_error* err) {
  f->cfg = NULL;
  f->s = NULL;
  err_clear(err);
  csim_status st = scn_load_string(yaml, name, NULL, 0, &f->cfg, err);
  if (st == CSIM_OK) st = sim_create(f->cfg, &f->s, err);
  if (st != CSIM_OK) fixture_free(f);
  return st;
}

void fixture_free(fixture* f) {
  sim_free(f->s);
  scn_free(f->cfg);
}

char* fixture_cubes(int n, const double* pos, const char* solver_yaml) {
  size_t cap = 512 + 160 * (size_t)n, k = 0;
  char* t = malloc(cap);
  ck_assert(t != NULL);
  k += (size_t)snprintf(t + k, cap - k,
                        "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: "
                        "0}}\nrobots:\n");
  for (int r = 0; r < n; r++)
    k += (size_t)snprintf(t + k, cap - k,
                          "  - {urdf: robots/cube.urdf, base: free, q0: [%.3f, %.3f, %.3f, 0, "
                          "0, 0, 1]}\n",
                          pos[3 * r], pos[3 * r + 1], pos[3 * r + 2]);
  snprintf(t + k, cap - k,
           "contact: {model: ncp, friction: 0.5}\nsolver: %s\n"
           "integrator: {dt: 1.0e-3, duration: 1}\n",
           solver_yaml);
  return t;
}

fixture fixture_steps(const char* text, const char* path, int nstep) {
  fixture f = text ? fixture_text(text, "scene_fixture.yaml", NULL, 0) : fixture_file(path, NULL, 0);
  csim_error err;
  err_clear(&err);
  sim_stepinfo info;
  for (int k = 0; k < nstep; k++)
    ck_assert_msg(sim_step(f.s, &info, &err) == CSIM_OK, "%s", err.msg);
  return f;
}
