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
// YAML text loaded and built without asserting: CSIM_OK with *f ready, else the load's or the
// build's status with err set and nothing left to free
csim_status fixture_try(const char* yaml, const char* name, fixture* f, csim_error* err);
void fixture_free(fixture* f);

// YAML text of n free 10 cm cubes (robots/cube.urdf) centred at pos (x, y, z each) above a ground
// plane, ncp with friction 0.5, the given solver mapping (e.g. "{name: pgs, tolerance: 1.0e-10}"),
// dt 1 ms; malloc'd
char* fixture_cubes(int n, const double* pos, const char* solver_yaml);

// a chain of n links (0.1 kg, 0.1 m boxes 2 cm square, revolute about y, link 1 the free root) lying
// flat on a ground plane along +x, the bench's chain scene (tools/bench/bench_scenes.py chain_urdf,
// chain_yaml): chainN.urdf and chainN.yaml written to the tests' temporary directory with the
// given contact and solver mappings, dt 1 ms, 1 s; the YAML's path in path (n bytes)
void fixture_chain(int nlinks, const char* contact_yaml, const char* solver_yaml, char* path,
                   size_t n);

// m.xml in the tests' temporary directory: a body (MJCF geom attributes geom, e.g.
// "cylinder' size='0.1 0.05", 1 kg, a free joint) at 0.1 m over a floor plane, both geoms of
// condim cd with friction "1 mu_t mu_r" (test_condim, test_newton)
void fixture_condim_xml(const char* geom, int cd, double mu_t, double mu_r);

// the scenario of YAML text (or of the file path when text is NULL) stepped nstep times, each
// step asserted
fixture fixture_steps(const char* text, const char* path, int nstep);

#endif
