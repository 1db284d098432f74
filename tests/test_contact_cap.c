// test_contact_cap.c — no contact cap (sim.h, "Contact capacity"): 256 free cubes dropped on
// the ground all land and rest on it with every contact kept, and a scene whose contacts do not
// fit in contact.memory_budget stops with an error naming the numbers instead of dropping any;
// ADMM's dense island work cut to the budget runs a grid of separate cubes, and stops a stack
// whose island outgrows it, naming the island, the reserve and the budget.
//
// Expected values come from the geometry, not from a previous run: a 10 cm cube resting flat
// on the plane touches it at its 4 bottom corners (coll_plane_box reports the corners within the
// margin), so 256 resting cubes 0.2 m apart (never touching each other) have 1024 contacts and
// their centres at z = 0.05 m. Scenarios are inline YAML named "test_contact_cap.yaml", so
// robots/cube.urdf resolves from the repo root, where the tests run.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contact.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "core/solvers/solver.h"
#include "support.h"

#define NCUBE 256
#define SIDE 16
#define HALF 0.05  // cube half size (m)

// n cubes, cube i at (spacing (i % side), spacing (i / side), z0 + dz i), then `tail` (the
// contact, solver and integrator lines)
static char* cubes_yaml(int n, int side, double spacing, double z0, double dz, const char* tail) {
  size_t cap = 256 + strlen(tail) + (size_t)n * 128;
  char* y = malloc(cap);
  ck_assert_ptr_nonnull(y);
  size_t k = (size_t)snprintf(y, cap,
                              "name: cubes\n"
                              "world: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
                              "robots:\n");
  for (int i = 0; i < n; i++)
    k += (size_t)snprintf(y + k, cap - k,
                          "  - {urdf: robots/cube.urdf, base: free, q0: [%.3f, %.3f, %.4f, 0, 0, 0, 1]}\n",
                          spacing * (i % side), spacing * (i / side), z0 + dz * i);
  snprintf(y + k, cap - k, "%s", tail);
  return y;
}

// NCUBE cubes in a SIDE x SIDE grid 0.2 m apart with their centres at height z; extra: more
// contact keys ("" for none); solver_name: solver.name
static char* grid_yaml_solver(double z, const char* extra, double duration, const char* solver_name) {
  char tail[512];
  snprintf(tail, sizeof(tail),
           "contact: {model: ncp, friction: 0.5%s}\n"
           "solver: {name: %s, tolerance: 1.0e-6, max_iterations: 200}\n"
           "integrator: {dt: 1.0e-3, duration: %g}\n",
           extra, solver_name, duration);
  return cubes_yaml(NCUBE, SIDE, 0.2, z, 0, tail);
}

static char* grid_yaml(double z, const char* extra, double duration) {
  return grid_yaml_solver(z, extra, duration, "pgs");
}

static scn_config* load_cfg(const char* yaml) {
  scn_config* cfg = NULL;
  csim_error err;
  err_clear(&err);
  csim_status st = scn_load_string(yaml, "test_contact_cap.yaml", NULL, 0, &cfg, &err);
  ck_assert_msg(st == CSIM_OK, "scenario: %s (key %s)", err.msg, err.key);
  return cfg;
}

// the scenario of yaml (freed here) and its sim, created successfully; err cleared for the steps
static sim* create_sim(char* yaml, scn_config** cfg, csim_error* err) {
  *cfg = load_cfg(yaml);
  free(yaml);
  sim* s = NULL;
  err_clear(err);
  ck_assert_msg(sim_create(*cfg, &s, err) == CSIM_OK, "sim_create: %s", err->msg);
  return s;
}

// create_sim of the cube grid (grid_yaml_solver)
static sim* grid_sim(double z, const char* extra, double duration, const char* solver_name,
                     scn_config** cfg, csim_error* err) {
  return create_sim(grid_yaml_solver(z, extra, duration, solver_name), cfg, err);
}

// 256 cubes dropped from 1 cm: every cube ends on the floor (none below it) with its 4 corner
// contacts, 1024 in all, more than the 256 the old fixed cap held
START_TEST(drop_256_cubes) {
  scn_config* cfg = NULL;
  csim_error err;
  sim* s = grid_sim(HALF + 0.01, "", 0.09, "pgs", &cfg, &err);
  ck_assert_int_ge(s->model.maxcon, 4 * NCUBE);
  sim_stepinfo info;
  int nstep = (int)lround(cfg->duration / cfg->dt), maxseen = 0;
  for (int k = 0; k < nstep; k++) {
    memset(&info, 0, sizeof info);
    csim_status st = sim_step(s, &info, &err);
    ck_assert_msg(st == CSIM_OK, "step %d: %s", k, err.msg);
    if (info.ncon > maxseen) maxseen = info.ncon;
  }
  // at rest: 4 contacts per cube, every cube on the floor, upright, still
  ck_assert_int_eq(info.ncon, 4 * NCUBE);
  ck_assert_int_le(maxseen, 4 * NCUBE);
  ck_assert_int_eq(s->data.con->ncon, 4 * NCUBE);
  for (int i = 0; i < NCUBE; i++) {
    const double* q = s->data.d->q + 7 * i;
    const double* v = s->data.d->v + 6 * i;
    ck_assert_msg(fabs(q[2] - HALF) < 1e-4, "cube %d at z = %.9g (floor at %.2f)", i, q[2], HALF);
    ck_assert_msg(fabs(v[2]) < 1e-3, "cube %d still moving down at %g m/s", i, v[2]);
  }
  sim_free(s);
  scn_free(cfg);
}
END_TEST

// resting cubes whose 1024 contacts do not fit in a 4 MiB budget: exit 2 before the first step,
// naming the count
START_TEST(budget_too_small_at_start) {
  char* y = grid_yaml(HALF, ", memory_budget: 4", 0.01);
  scn_config* cfg = load_cfg(y);
  free(y);
  sim* s = NULL;
  csim_error err;
  err_clear(&err);
  csim_status st = sim_create(cfg, &s, &err);
  ck_assert_int_eq(st, CSIM_ERR_INPUT);
  ck_assert_ptr_null(s);
  ck_assert_msg(strstr(err.msg, "initial state collision found 1024 contacts"), "%s", err.msg);
  ck_assert_str_eq(err.key, "contact.memory_budget");
  scn_free(cfg);
}
END_TEST

// cubes in the air with a 4 MiB budget: the steps before landing run, the landing step stops
// the run (CSIM_ERR_RUN) naming the contacts found; no step ever solves a truncated problem
START_TEST(budget_too_small_on_landing) {
  scn_config* cfg = NULL;
  csim_error err;
  sim* s = grid_sim(HALF + 0.01, ", memory_budget: 4", 0.2, "pgs", &cfg, &err);
  ck_assert_int_lt(s->model.maxcon, 4 * NCUBE);
  csim_status st = CSIM_OK;
  sim_stepinfo info;
  int k = 0;
  for (; k < 200 && st == CSIM_OK; k++) {
    st = sim_step(s, &info, &err);
    if (st == CSIM_OK) ck_assert_int_le(info.ncon, s->model.maxcon);
  }
  ck_assert_int_eq(st, CSIM_ERR_RUN);
  // a free fall of 1 cm less the 1 mm margin takes sqrt(2 * 0.009 / 9.81) = 43 ms
  ck_assert_int_ge(k, 40);
  ck_assert_int_le(k, 50);
  ck_assert_msg(strstr(err.msg, "at step") && strstr(err.msg, "raise contact.memory_budget"), "%s",
                err.msg);
  sim_free(s);
  scn_free(cfg);
}
END_TEST

// ADMM keeps dense work for its largest island, at worst one island of every contact: the 256
// cubes' 1536 dofs (it factors an island in dof space when that is smaller), 3 x 1536^2 doubles
// (54 MiB). With the buffers of the 1024 resting contacts that is past a 128 MiB budget (checked
// below with the sizes solver_create and contact_create allocate), so the island work is cut to
// what the contact buffers leave; every island here is one cube (6 rows), so the run goes on:
// 1024 contacts, every step converged, every cube at rest on the floor
START_TEST(admm_island_work_cut_to_budget) {
  scn_config* cfg = NULL;
  csim_error err;
  sim* s = grid_sim(HALF, ", memory_budget: 128", 0.01, "admm", &cfg, &err);
  solver_options worst = s->opt.solver;
  worst.island_rows = 0;
  ck_assert_msg((double)(contact_bytes(s->model.m, 4 * NCUBE) + solver_bytes(&worst, 4 * NCUBE)) >
                    128 * SIM_MIB,
                "the worst-case island work fits: the test no longer cuts it");
  ck_assert_int_ge(s->model.maxgeom, 4 * NCUBE);
  ck_assert_int_eq(s->model.island_rows_worst, 6 * NCUBE);
  ck_assert_int_lt(s->model.island_rows, 6 * NCUBE);
  ck_assert_int_ge(s->model.island_rows, 6);
  ck_assert_int_eq(solver_island_rows(&s->opt.solver, s->model.maxcon), s->model.island_rows);
  // the budget holds the simulation data too (sim.h), counted as data_create allocates it
  ck_assert_uint_eq(s->model.data_bytes, data_bytes(s->model.m, 0));
  ck_assert_msg((double)(s->model.buffer_bytes + s->model.data_bytes) <= 128 * SIM_MIB,
                "contact buffers %zu + data %zu bytes past the budget", s->model.buffer_bytes,
                s->model.data_bytes);
  sim_stepinfo info;
  int nstep = (int)lround(cfg->duration / cfg->dt);
  for (int k = 0; k < nstep; k++) {
    memset(&info, 0, sizeof info);
    csim_status st = sim_step(s, &info, &err);
    ck_assert_msg(st == CSIM_OK, "step %d: %s", k, err.msg);
    ck_assert_int_eq(info.ncon, 4 * NCUBE);
    ck_assert_int_eq(info.solve.unsolved_island, 0);
    ck_assert_msg(info.solve.converged, "step %d: eps %g", k, info.solve.eps_abs);
  }
  for (int i = 0; i < NCUBE; i++) {
    const double* q = s->data.d->q + 7 * i;
    ck_assert_msg(fabs(q[2] - HALF) < 1e-4, "cube %d at z = %.9g (floor at %.2f)", i, q[2], HALF);
  }
  sim_free(s);
  scn_free(cfg);
}
END_TEST

#define NSTACK 16

// a stack built by falling: a cube resting on the floor and NSTACK - 1 cubes above it, 1 cm
// apart; they land one by one, each joining the bottom cube's island. An island of c stacked
// cubes has 4 c contacts (4 corners on the floor and on each cube below) and 6 c dofs, fewer than
// its 12 c contact rows, so ADMM factors it in dof space: 6 c rows. With ADMM in 0.54 MiB the
// island work holds fewer rows than the whole stack needs: the first step whose island needs more
// (c = rows held / 6 + 1) stops the run (CSIM_ERR_RUN) naming 4 c contacts, 6 c rows, the rows
// held and the budget, before the state moves; every earlier step solved every island
START_TEST(admm_island_past_reserve_stops) {
  char* y = cubes_yaml(NSTACK, 1, 0, HALF, 0.11,
                       "contact: {model: ncp, friction: 0.5, memory_budget: 0.54}\n"
                       "solver: {name: admm, tolerance: 1.0e-6, max_iterations: 500}\n"
                       "integrator: {dt: 1.0e-3, duration: 0.6}\n");
  scn_config* cfg = NULL;
  csim_error err;
  sim* s = create_sim(y, &cfg, &err);
  int held = s->model.island_rows, c = held / 6 + 1;
  // the premise: the whole stack's island is past the reserve, and its contacts fit
  ck_assert_int_eq(s->model.island_rows_worst, 6 * NSTACK);
  ck_assert_msg(c <= NSTACK && s->model.maxgeom >= 4 * c + 4,
                "reserve %d rows, buffers %d contacts: the budget no longer sets up the test", held,
                s->model.maxgeom);
  sim_stepinfo info;
  csim_status st = CSIM_OK;
  int steps = 0;
  double t_before = 0;
  while (st == CSIM_OK && steps < 600) {
    memset(&info, 0, sizeof info);
    t_before = s->data.d->time;
    st = sim_step(s, &info, &err);
    if (st == CSIM_OK) {
      ck_assert_int_eq(info.solve.unsolved_island, 0);
      steps++;
    }
  }
  ck_assert_int_eq(st, CSIM_ERR_RUN);
  ck_assert_str_eq(err.key, "contact.memory_budget");
  char want[160];
  snprintf(want, sizeof want, "an island of %d contacts needs %d rows of dense admm work", 4 * c,
           6 * c);
  ck_assert_msg(strstr(err.msg, want), "expected '%s' in: %s", want, err.msg);
  snprintf(want, sizeof want, "the island work holds %d rows", held);
  ck_assert_msg(strstr(err.msg, want), "expected '%s' in: %s", want, err.msg);
  ck_assert_msg(strstr(err.msg, "contact.memory_budget 0.54 MiB") &&
                    strstr(err.msg, "raise contact.memory_budget"), "%s", err.msg);
  snprintf(want, sizeof want, "at step %d ", steps);
  ck_assert_msg(strstr(err.msg, want), "expected '%s' in: %s", want, err.msg);
  ck_assert(s->data.d->time == t_before);  // the failing step did not move the state
  // the first landing alone takes sqrt(2 * 0.01 / 9.81) = 45 ms
  ck_assert_int_ge(steps, 45);
  sim_free(s);
  scn_free(cfg);
}
END_TEST

static Suite* cap_suite(void) {
  Suite* s = suite_create("contact_cap");
  TCase* t = tcase_create("cap");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, drop_256_cubes);
  tcase_add_test(t, budget_too_small_at_start);
  tcase_add_test(t, budget_too_small_on_landing);
  tcase_add_test(t, admm_island_work_cut_to_budget);
  tcase_add_test(t, admm_island_past_reserve_stops);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return run_suite(cap_suite());
}
