// scene_fixture.c — see scene_fixture.h.
#include "scene_fixture.h"

#include <check.h>

#include "core/error.h"
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

void fixture_free(fixture* f) {
  sim_free(f->s);
  scn_free(f->cfg);
}
