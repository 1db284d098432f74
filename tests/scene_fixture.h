// scene_fixture.h — test helper: a scenario loaded (from YAML text or a file, with --set
// overrides) and its simulation built, both asserted; shared by the suites that step a sim.
#ifndef CSIM_TEST_SCENE_FIXTURE_H
#define CSIM_TEST_SCENE_FIXTURE_H

#include "core/sim.h"
#include "io/scenario.h"

typedef struct {
  scn_config* cfg;
  sim* s;
} fixture;

// YAML text; name is the file name relative paths resolve against
fixture fixture_text(const char* yaml, const char* name, const char* const* sets, int nset);
fixture fixture_file(const char* path, const char* const* sets, int nset);
void fixture_free(fixture* f);

#endif
