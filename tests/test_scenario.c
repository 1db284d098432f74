// test_scenario.c — scenario module: full/minimal files, defaults, paths, overrides, the text as
// run, 40+ bad scenarios with exact positions and messages, truncation/mutation robustness, and
// docs/scenario_keys.md generated from the schema. Run from the repo root.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/scenario.h"
#include "support.h"

#define DATA "tests/data/scenarios/"
#define B "robots:\n  - urdf: a.urdf\n"   // smallest valid prefix of the inline cases

//---------------------------------- helpers ---------------------------------------------------

// load a string that must be valid; fail the test with the error otherwise
static scn_config* load_ok(const char* text, const char* name, const char* const* ov, int nov) {
  scn_config* cfg = NULL;
  csim_error err;
  csim_status st = scn_load_string(text, name, ov, nov, &cfg, &err);
  char buf[2048];
  err_format(&err, buf, sizeof(buf));
  ck_assert_msg(st == CSIM_OK, "unexpected error: %s", buf);
  ck_assert_ptr_nonnull(cfg);
  return cfg;
}

// load a file that must be valid
static scn_config* load_file_ok(const char* path, const char* const* ov, int nov) {
  scn_config* cfg = NULL;
  csim_error err;
  csim_status st = scn_load(path, ov, nov, &cfg, &err);
  char buf[2048];
  err_format(&err, buf, sizeof(buf));
  ck_assert_msg(st == CSIM_OK, "unexpected error: %s", buf);
  return cfg;
}

// NULL-safe string equality
static int str_eq(const char* a, const char* b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

// equal arrays of n doubles (NULL-safe)
static int dbl_eq(const double* a, const double* b, int n) {
  if (!a || !b) return a == b;
  for (int i = 0; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

// equal arrays of n strings (NULL-safe)
static int strs_eq(char* const* a, char* const* b, int n) {
  if (!a || !b) return a == b;
  for (int i = 0; i < n; i++)
    if (!str_eq(a[i], b[i])) return 0;
  return 1;
}

// field-by-field equality of two configurations (except file/text/overrides)
static void assert_cfg_equal(const scn_config* a, const scn_config* b) {
  ck_assert(str_eq(a->name, b->name));
  ck_assert(dbl_eq(a->gravity, b->gravity, 3));
  ck_assert_int_eq(a->ground, b->ground);
  ck_assert(a->ground_height == b->ground_height);
  ck_assert_int_eq(a->nrobots, b->nrobots);
  for (int i = 0; i < a->nrobots; i++) {
    const scn_robot *r = &a->robots[i], *s = &b->robots[i];
    ck_assert(str_eq(r->urdf, s->urdf) && str_eq(r->urdf_path, s->urdf_path) && str_eq(r->name, s->name));
    ck_assert(r->base == s->base && dbl_eq(r->pos, s->pos, 3) && dbl_eq(r->rpy, s->rpy, 3));
    ck_assert(r->nq0 == s->nq0 && dbl_eq(r->q0, s->q0, r->nq0));
    ck_assert(r->nv0 == s->nv0 && dbl_eq(r->v0, s->v0, r->nv0));
    ck_assert_int_eq(r->njoints, s->njoints);
    for (int j = 0; j < r->njoints; j++)
      ck_assert(str_eq(r->joints[j].name, s->joints[j].name) && r->joints[j].value == s->joints[j].value);
    ck_assert(r->npackage_paths == s->npackage_paths &&
              strs_eq(r->package_paths, s->package_paths, r->npackage_paths) &&
              strs_eq(r->package_paths_text, s->package_paths_text, r->npackage_paths));
  }
  ck_assert(a->model == b->model && a->friction == b->friction && a->restitution == b->restitution);
  ck_assert(a->baumgarte == b->baumgarte && a->compliance == b->compliance && a->facets == b->facets);
  ck_assert(a->stiffness == b->stiffness && a->damping == b->damping && a->stiction_velocity == b->stiction_velocity);
  ck_assert(a->friction_stiffness == b->friction_stiffness && a->friction_damping == b->friction_damping);
  ck_assert(a->margin == b->margin && a->nexclude == b->nexclude && strs_eq(a->exclude, b->exclude, 2 * a->nexclude));
  ck_assert(a->solver == b->solver && a->tolerance == b->tolerance && a->max_iterations == b->max_iterations);
  ck_assert(a->warm_start == b->warm_start && a->over_relaxation == b->over_relaxation && a->rho == b->rho);
  ck_assert(a->rho_adaptive == b->rho_adaptive && a->on_failure == b->on_failure);
  ck_assert(a->scheme == b->scheme && a->dt == b->dt && a->duration == b->duration);
  ck_assert(a->newton_tolerance == b->newton_tolerance && a->newton_max_iterations == b->newton_max_iterations);
  ck_assert_int_eq(a->nactions, b->nactions);
  for (int i = 0; i < a->nactions; i++) {
    const act_spec *x = &a->actions[i], *y = &b->actions[i];
    ck_assert(x->type == y->type && str_eq(x->body, y->body) && dbl_eq(x->direction, y->direction, 3));
    ck_assert(x->torque == y->torque && x->local == y->local && dbl_eq(x->point, y->point, 3));
    ck_assert(x->profile == y->profile && x->magnitude == y->magnitude && x->rate == y->rate);
    ck_assert(x->amplitude == y->amplitude && x->frequency == y->frequency && x->phase == y->phase);
    ck_assert(x->start == y->start && x->stop == y->stop && str_eq(x->robot, y->robot));
    ck_assert(x->njoint_names == y->njoint_names &&
              strs_eq(x->joint_names, y->joint_names, x->njoint_names > 0 ? x->njoint_names : 0));
    ck_assert(x->ntarget == y->ntarget && dbl_eq(x->target, y->target, x->ntarget));
    ck_assert(x->kp == y->kp && x->kd == y->kd && x->effort_limit == y->effort_limit);
    ck_assert(x->namp == y->namp && dbl_eq(x->amp, y->amp, x->namp));
    ck_assert(x->nfreq == y->nfreq && dbl_eq(x->freq, y->freq, x->nfreq));
    ck_assert(x->nphase == y->nphase && dbl_eq(x->phase_j, y->phase_j, x->nphase));
    ck_assert(x->noffset == y->noffset && dbl_eq(x->offset, y->offset, x->noffset));
  }
  ck_assert(str_eq(a->output_path, b->output_path) && str_eq(a->output_path_text, b->output_path_text));
  ck_assert_int_eq(a->output_every, b->output_every);
  ck_assert_int_eq(a->ndump_steps, b->ndump_steps);
  for (int i = 0; i < a->ndump_steps; i++) ck_assert_int_eq(a->dump_steps[i], b->dump_steps[i]);
}

//---------------------------------- valid scenarios -------------------------------------------

// every key of full.yaml lands in the right field with the right value
START_TEST(test_full_file) {
  scn_config* c = load_file_ok(DATA "full.yaml", NULL, 0);
  ck_assert_str_eq(c->file, DATA "full.yaml");
  ck_assert_str_eq(c->dir, "tests/data/scenarios");
  ck_assert_str_eq(c->name, "full_run");
  ck_assert(c->gravity[0] == 0.5 && c->gravity[1] == -1 && c->gravity[2] == -9.5);
  ck_assert_int_eq(c->ground, 0);
  ck_assert(c->ground_height == -0.25);
  // robots
  ck_assert_int_eq(c->nrobots, 2);
  scn_robot* r = &c->robots[0];
  ck_assert_str_eq(r->urdf, "../../../../shared/data/robots/solo12/solo12.urdf");
  ck_assert_str_eq(r->name, "solo");
  ck_assert_int_eq(r->base, SCN_BASE_FREE);
  ck_assert(r->pos[0] == 1 && r->pos[1] == 2 && r->pos[2] == 3);
  ck_assert(r->rpy[0] == 0.1 && r->rpy[1] == 0.2 && r->rpy[2] == 0.3);
  ck_assert_int_eq(r->nq0, 7);
  ck_assert(r->q0[2] == 0.3 && r->q0[6] == 1 && r->q0[0] == 0);
  ck_assert_int_eq(r->nv0, 6);
  ck_assert(r->v0[0] == 0.1);
  ck_assert_int_eq(r->njoints, 2);
  ck_assert_str_eq(r->joints[0].name, "FL_KFE");
  ck_assert(r->joints[0].value == -1.2);
  ck_assert_str_eq(r->joints[1].name, "FR_KFE");
  ck_assert(r->joints[1].value == 0.15);
  ck_assert_int_eq(r->npackage_paths, 2);
  ck_assert_int_eq(r->line, 7);
  ck_assert_int_eq(c->robots[1].line, 16);
  ck_assert_str_eq(c->robots[1].name, "arm");
  ck_assert_int_eq(c->robots[1].base, SCN_BASE_FIXED);
  ck_assert_ptr_null(c->robots[1].q0);
  // contact
  ck_assert_int_eq(c->model, CSIM_MODEL_HUNT_CROSSLEY);
  ck_assert(c->friction == 0.8 && c->restitution == 0.25 && c->baumgarte == 10 && c->compliance == 0.01);
  ck_assert_int_eq(c->facets, 8);
  ck_assert(c->stiffness == 2e6 && c->damping == 0.5 && c->stiction_velocity == 1e-3);
  ck_assert(c->friction_stiffness == 5000 && c->friction_damping == 20 && c->margin == 0.002);
  ck_assert_int_eq(c->nexclude, 2);
  ck_assert_str_eq(c->exclude[0], "base_link");
  ck_assert_str_eq(c->exclude[1], "FL_UPPER_LEG");
  ck_assert_str_eq(c->exclude[3], "FR_UPPER_LEG");
  // solver
  ck_assert_int_eq(c->solver, CSIM_SOLVER_ADMM);
  ck_assert(c->tolerance == 1e-6 && c->over_relaxation == 1.5 && c->rho == 3.5);
  ck_assert_int_eq(c->max_iterations, 250);
  ck_assert_int_eq(c->warm_start, 0);
  ck_assert_int_eq(c->rho_adaptive, 0);
  ck_assert_int_eq(c->on_failure, CSIM_FAIL_STOP);
  // integrator
  ck_assert_int_eq(c->scheme, CSIM_SCHEME_IMPLICIT_EULER);
  ck_assert(c->dt == 5e-4 && c->duration == 2.5 && c->newton_tolerance == 1e-9);
  ck_assert_int_eq(c->newton_max_iterations, 20);
  // actions: force (direction [0, 3, 4] normalised to [0, 0.6, 0.8])
  ck_assert_int_eq(c->nactions, 3);
  act_spec* a = &c->actions[0];
  ck_assert_int_eq(a->type, ACT_FORCE);
  ck_assert_int_eq(a->line, 50);
  ck_assert_str_eq(a->body, "base_link");
  ck_assert_double_eq_tol(a->direction[0], 0.0, 1e-15);
  ck_assert_double_eq_tol(a->direction[1], 0.6, 1e-15);
  ck_assert_double_eq_tol(a->direction[2], 0.8, 1e-15);
  ck_assert_int_eq(a->torque, 1);
  ck_assert_int_eq(a->local, 1);
  ck_assert(a->point[0] == 0.1 && a->point[2] == -0.05);
  ck_assert_int_eq(a->profile, ACT_PROFILE_SINE);
  ck_assert(a->magnitude == 2 && a->rate == 0.5 && a->amplitude == 3 && a->frequency == 1.5 && a->phase == 0.7);
  ck_assert(a->start == 0.25 && a->stop == 1.75);
  ck_assert_int_eq(a->njoint_names, 0);
  // pd
  a = &c->actions[1];
  ck_assert_int_eq(a->type, ACT_PD);
  ck_assert_str_eq(a->robot, "solo");
  ck_assert_int_eq(a->njoint_names, 2);
  ck_assert_str_eq(a->joint_names[1], "FL_KFE");
  ck_assert_int_eq(a->ntarget, 2);
  ck_assert(a->target[0] == 0.8 && a->target[1] == -1.6);
  ck_assert(a->kp == 5 && a->kd == 0.2 && a->effort_limit == 2.5 && a->start == 0.1);
  ck_assert(isinf(a->stop) && a->stop > 0);
  ck_assert_ptr_null(a->body);
  // trajectory (scalar amp broadcasts as a list of 1)
  a = &c->actions[2];
  ck_assert_int_eq(a->type, ACT_TRAJECTORY);
  ck_assert_str_eq(a->robot, "arm");
  ck_assert_int_eq(a->njoint_names, -1);
  ck_assert_ptr_null(a->joint_names);
  ck_assert(a->kp == 100 && a->kd == 10);
  ck_assert(a->namp == 1 && a->amp[0] == 0.3 && a->nfreq == 1 && a->freq[0] == 0.5);
  ck_assert(a->nphase == 1 && a->phase_j[0] == 0 && a->noffset == 1 && a->offset[0] == 0.1);
  ck_assert(isinf(a->effort_limit));
  // output
  ck_assert_str_eq(c->output_path_text, "results/full.h5");
  ck_assert_int_eq(c->output_every, 10);
  ck_assert_int_eq(c->ndump_steps, 3);
  ck_assert(c->dump_steps[0] == 0 && c->dump_steps[1] == 5 && c->dump_steps[2] == 100);
  scn_free(c);
}
END_TEST

// absent keys take the documented defaults
START_TEST(test_defaults) {
  scn_config* c = load_file_ok(DATA "minimal.yaml", NULL, 0);
  ck_assert_str_eq(c->name, "minimal");
  ck_assert(c->gravity[0] == 0 && c->gravity[1] == 0 && c->gravity[2] == -9.81);
  ck_assert_int_eq(c->ground, 1);
  ck_assert(c->ground_height == 0);
  ck_assert_int_eq(c->nrobots, 1);
  scn_robot* r = &c->robots[0];
  ck_assert_ptr_null(r->name);
  ck_assert_int_eq(r->base, SCN_BASE_FIXED);
  ck_assert(r->pos[0] == 0 && r->pos[1] == 0 && r->pos[2] == 0 && r->rpy[0] == 0 && r->rpy[2] == 0);
  ck_assert(r->q0 == NULL && r->nq0 == 0 && r->v0 == NULL && r->nv0 == 0);
  ck_assert(r->joints == NULL && r->njoints == 0 && r->package_paths == NULL && r->npackage_paths == 0);
  ck_assert_int_eq(r->line, 3);
  ck_assert_int_eq(c->model, CSIM_MODEL_NCP);
  ck_assert(c->friction == 0.5 && c->restitution == 0 && c->baumgarte == 0 && c->compliance == 0);
  ck_assert_int_eq(c->facets, 4);
  ck_assert(c->stiffness == 1e5 && c->damping == 0 && c->stiction_velocity == 1e-4);
  ck_assert(c->friction_stiffness == 1e4 && c->friction_damping == 1e2 && c->margin == 1e-3);
  ck_assert(c->exclude == NULL && c->nexclude == 0);
  ck_assert_int_eq(c->solver, CSIM_SOLVER_AUTO);
  ck_assert(c->tolerance == 1e-8 && c->over_relaxation == 1 && c->rho == 1);
  ck_assert_int_eq(c->max_iterations, 1000);
  ck_assert(c->warm_start == 1 && c->rho_adaptive == 1);
  ck_assert_int_eq(c->on_failure, CSIM_FAIL_CONTINUE);
  ck_assert_int_eq(c->scheme, CSIM_SCHEME_SEMI_IMPLICIT);
  ck_assert(c->dt == 1e-3 && c->duration == 1 && c->newton_tolerance == 1e-10);
  ck_assert_int_eq(c->newton_max_iterations, 50);
  ck_assert(c->actions == NULL && c->nactions == 0);
  ck_assert_str_eq(c->output_path, "out/minimal.h5");
  ck_assert_ptr_null(c->output_path_text);
  ck_assert_int_eq(c->output_every, 1);
  ck_assert(c->dump_steps == NULL && c->ndump_steps == 0);
  scn_free(c);
}
END_TEST

// per-type action defaults
START_TEST(test_action_defaults) {
  scn_config* c = load_ok(B "actions:\n  - {type: force, body: b}\n  - {type: pd, kp: 2}\n"
                            "  - {type: trajectory, kp: 3, joints: [j1, j2], amp: [0.1, 0.2]}\n"
                            "  - {type: pd, kp: 1, joints: [a, b], target: 0.5}\n",
                          NULL, NULL, 0);
  ck_assert_int_eq(c->nactions, 4);
  ck_assert(c->actions[3].ntarget == 1 && c->actions[3].target[0] == 0.5);   // one target broadcasts
  act_spec* a = &c->actions[0];
  ck_assert(a->direction[0] == 1 && a->direction[1] == 0 && a->direction[2] == 0);
  ck_assert(a->torque == 0 && a->local == 0 && a->profile == ACT_PROFILE_CONSTANT && a->magnitude == 0);
  ck_assert(a->start == 0 && isinf(a->stop) && a->stop > 0);
  a = &c->actions[1];
  ck_assert(a->robot == NULL && a->joint_names == NULL && a->njoint_names == -1);
  ck_assert(a->target == NULL && a->ntarget == 0 && a->kp == 2 && a->kd == 0);
  ck_assert(isinf(a->effort_limit) && a->effort_limit > 0);
  a = &c->actions[2];
  ck_assert_int_eq(a->njoint_names, 2);
  ck_assert(a->namp == 2 && a->amp[1] == 0.2);
  ck_assert(a->nfreq == 1 && a->freq[0] == 0 && a->nphase == 1 && a->phase_j[0] == 0);
  ck_assert(a->offset == NULL && a->noffset == 0);
  // no name given: default name "scenario", directory "."
  ck_assert_str_eq(c->name, "scenario");
  ck_assert_str_eq(c->dir, ".");
  ck_assert_str_eq(c->output_path, "out/scenario.h5");
  scn_free(c);
}
END_TEST

// relative paths resolve against the scenario's directory; absolute ones stay
START_TEST(test_paths) {
  scn_config* c = load_file_ok(DATA "full.yaml", NULL, 0);
  ck_assert_str_eq(c->robots[0].urdf_path, DATA "../../../../shared/data/robots/solo12/solo12.urdf");
  ck_assert_int_eq(access(c->robots[0].urdf_path, R_OK), 0);   // the shared robot exists from the repo root
  ck_assert_str_eq(c->robots[1].urdf_path, "/abs/arm.urdf");
  ck_assert_str_eq(c->robots[0].package_paths[0], DATA "meshes");
  ck_assert_str_eq(c->robots[0].package_paths_text[0], "meshes");
  ck_assert_str_eq(c->robots[0].package_paths[1], "/opt/robots");
  ck_assert_str_eq(c->output_path, DATA "results/full.h5");
  scn_free(c);
  // in-memory text named like a file: the name's directory is used
  c = load_ok(B "output: {path: o.h5}\n", "some/dir/x.yml", NULL, 0);
  ck_assert_str_eq(c->robots[0].urdf, "a.urdf");
  ck_assert_str_eq(c->robots[0].urdf_path, "some/dir/a.urdf");
  ck_assert_str_eq(c->output_path, "some/dir/o.h5");
  ck_assert_str_eq(c->name, "x");
  scn_free(c);
  // no directory: paths unchanged
  c = load_ok(B, "x.yaml", NULL, 0);
  ck_assert_str_eq(c->robots[0].urdf_path, "a.urdf");
  ck_assert_str_eq(c->output_path, "out/x.h5");
  scn_free(c);
}
END_TEST

// enum name tables: sizes match the enums, lookups agree
START_TEST(test_name_tables) {
  int n = 0;
  while (csim_model_names[n]) n++;
  ck_assert_int_eq(n, CSIM_NMODELS);
  for (n = 0; csim_solver_names[n];) n++;
  ck_assert_int_eq(n, CSIM_NSOLVERS);
  for (n = 0; csim_scheme_names[n];) n++;
  ck_assert_int_eq(n, CSIM_NSCHEMES);
  ck_assert_int_eq(scn_name_index(csim_model_names, "raisim_ds"), CSIM_MODEL_RAISIM_DS);
  ck_assert_int_eq(scn_name_index(csim_model_names, "sqrt_spring"), CSIM_MODEL_SQRT_SPRING);
  ck_assert_int_eq(scn_name_index(csim_solver_names, "bisection"), CSIM_SOLVER_BISECTION);
  ck_assert_int_eq(scn_name_index(scn_base_names, "free"), SCN_BASE_FREE);
  ck_assert_int_eq(scn_name_index(act_type_names, "trajectory"), ACT_TRAJECTORY);
  ck_assert_int_eq(scn_name_index(csim_on_failure_names, "stop"), CSIM_FAIL_STOP);
  ck_assert_int_eq(scn_name_index(act_profile_names, "ramp"), ACT_PROFILE_RAMP);
  ck_assert_int_eq(scn_name_index(csim_solver_names, "nope"), -1);
  // every model name parses to its enum value
  for (int i = 0; i < CSIM_NMODELS; i++) {
    char text[128];
    snprintf(text, sizeof(text), B "contact: {model: %s}\n", csim_model_names[i]);
    scn_config* c = load_ok(text, NULL, NULL, 0);
    ck_assert_int_eq(c->model, i);
    scn_free(c);
  }
}
END_TEST

//---------------------------------- overrides -------------------------------------------------

// scalar, nested, list element, created keys; applied in order
START_TEST(test_overrides) {
  const char* ov[] = {"contact.friction=0.1",           "solver.name=lemke",
                      "robots.0.q0=[0, 0, 1, 0, 0, 0, 1]", "world.ground.height=0.5",
                      "robots.0.joints.knee=0.3",       "actions.1.kp=7",
                      "actions.1.joints.1=KNEE",        "name=swept",
                      "solver.tolerance=1e-3",          "solver.tolerance=1e-4"};
  scn_config* c = load_file_ok(DATA "full.yaml", ov, 10);
  ck_assert(c->friction == 0.1);
  ck_assert_int_eq(c->solver, CSIM_SOLVER_LEMKE);
  ck_assert_int_eq(c->robots[0].nq0, 7);
  ck_assert(c->robots[0].q0[2] == 1 && c->robots[0].q0[6] == 1);
  ck_assert(c->ground_height == 0.5);
  ck_assert_int_eq(c->robots[0].njoints, 3);
  ck_assert_str_eq(c->robots[0].joints[2].name, "knee");
  ck_assert(c->robots[0].joints[2].value == 0.3);
  ck_assert(c->actions[1].kp == 7);
  ck_assert_str_eq(c->actions[1].joint_names[1], "KNEE");
  ck_assert_str_eq(c->name, "swept");
  ck_assert(c->tolerance == 1e-4);   // the last override wins
  ck_assert_int_eq(c->noverrides, 10);
  ck_assert_str_eq(c->overrides[1], "solver.name=lemke");
  scn_free(c);
  // creating whole sections in a file that has none
  const char* ov2[] = {"world.gravity=[0, 0, -1.62]", "integrator={dt: 2e-3, scheme: tamsi}",
                       "actions=[{type: force, body: b, magnitude: 4}]"};
  c = load_file_ok(DATA "minimal.yaml", ov2, 3);
  ck_assert(c->gravity[2] == -1.62 && c->dt == 2e-3);
  ck_assert_int_eq(c->scheme, CSIM_SCHEME_TAMSI);
  ck_assert(c->nactions == 1 && c->actions[0].magnitude == 4);
  scn_free(c);
}
END_TEST

// the text as run shows the overrides and re-parses to the same configuration
START_TEST(test_text_as_run) {
  const char* ov[] = {"contact.friction=0.125", "robots.0.q0=[0, 0, 0.5, 0, 0, 0, 1]", "output.every=3",
                      "robots.1.name=\"true\""};
  scn_config* c = load_file_ok(DATA "full.yaml", ov, 4);
  ck_assert_ptr_nonnull(strstr(c->text, "friction: 0.125"));
  ck_assert_ptr_null(strstr(c->text, "friction: 0.8"));
  ck_assert_ptr_nonnull(strstr(c->text, "q0: [0, 0, 0.5, 0, 0, 0, 1]"));
  ck_assert_ptr_nonnull(strstr(c->text, "# --set contact.friction=0.125"));
  ck_assert_str_eq(c->robots[1].name, "true");   // a quoted "true" stays a string through the round trip
  scn_config* d = load_ok(c->text, c->file, NULL, 0);
  assert_cfg_equal(c, d);
  // and again: the emitted text is a fixed point after the header
  const char* body_c = strstr(c->text, "\nname:");
  const char* body_d = strstr(d->text, "\nname:");
  ck_assert_ptr_nonnull(body_c);
  ck_assert_ptr_nonnull(body_d);
  ck_assert_str_eq(body_c, body_d);
  scn_free(d);
  scn_free(c);
  // minimal file with defaults: round trip too
  c = load_file_ok(DATA "minimal.yaml", NULL, 0);
  d = load_ok(c->text, c->file, NULL, 0);
  assert_cfg_equal(c, d);
  scn_free(d);
  scn_free(c);
}
END_TEST

//---------------------------------- bad scenarios ---------------------------------------------

// one bad scenario: text (or file), optional override, expected file/line/column/key/message
typedef struct {
  const char* text;   // inline text (name "bad.yaml"), NULL when file is used
  const char* file;   // fixture file
  const char* ov;     // one override or NULL
  const char* efile;  // expected error file (NULL: "bad.yaml" or the fixture path)
  int line, col;      // expected position (col -1: not checked)
  const char* key;    // expected key path
  const char* frag;   // expected message fragment
} bad_case;

static const bad_case bad[] = {
    // unknown keys, with did-you-mean
    {B "robtos: 1\n", NULL, NULL, NULL, 3, 1, "robtos", "did you mean 'robots'?"},
    {B "contact:\n  fricton: 0.3\n", NULL, NULL, NULL, 4, 3, "contact.fricton", "did you mean 'friction'?"},
    {"robots:\n  - urdf: a.urdf\n    bse: free\n", NULL, NULL, NULL, 3, 5, "robots.0.bse", "did you mean 'base'?"},
    {B "world: {ground: {typ: none}}\n", NULL, NULL, NULL, 3, 18, "world.ground.typ", "did you mean 'type'?"},
    {B "solver: {name: pgs, tolerence: 1}\n", NULL, NULL, NULL, 3, 21, "solver.tolerence",
     "did you mean 'tolerance'?"},
    // wrong types
    {B "solver:\n  tolerance: abc\n", NULL, NULL, NULL, 4, 14, "solver.tolerance",
     "expected a number > 0, found 'abc'"},
    {B "contact: {friction: \"0.5\"}\n", NULL, NULL, NULL, 3, 21, "contact.friction", "found the quoted string '0.5'"},
    {B "contact: {friction: [0.5]}\n", NULL, NULL, NULL, 3, 21, "contact.friction", "found a list of 1 item"},
    {B "solver:\n  warm_start: ture\n", NULL, NULL, NULL, 4, 15, "solver.warm_start", "did you mean 'true'?"},
    {B "solver:\n  warm_start: yes\n", NULL, NULL, NULL, 4, 15, "solver.warm_start", "expected a bool (true or false)"},
    {B "solver: {max_iterations: 1.5}\n", NULL, NULL, NULL, 3, 26, "solver.max_iterations", "expected an integer"},
    {B "name: [a]\n", NULL, NULL, NULL, 3, 7, "name", "expected a non-empty string"},
    {B "contact: 3\n", NULL, NULL, NULL, 3, 10, "contact", "expected a map of keys"},
    {B "contact: {friction: }\n", NULL, NULL, NULL, 3, 21, "contact.friction", "found an empty value"},
    // out of range
    {B "integrator: {dt: -0.001}\n", NULL, NULL, NULL, 3, 18, "integrator.dt",
     "out of range: expected a number in (0, 1], found -0.001"},
    {B "integrator: {dt: 2}\n", NULL, NULL, NULL, 3, 18, "integrator.dt", "in (0, 1]"},
    {B "contact: {friction: -0.1}\n", NULL, NULL, NULL, 3, 21, "contact.friction", "expected a number >= 0, found -0.1"},
    {B "contact: {restitution: 1.5}\n", NULL, NULL, NULL, 3, 24, "contact.restitution", "in [0, 1], found 1.5"},
    {B "solver: {over_relaxation: 2}\n", NULL, NULL, NULL, 3, 27, "solver.over_relaxation", "in (0, 2), found 2"},
    {B "contact: {facets: 2}\n", NULL, NULL, NULL, 3, 19, "contact.facets", "expected an integer in [3, 256]"},
    {B "solver: {max_iterations: 1e10}\n", NULL, NULL, NULL, 3, 26, "solver.max_iterations", "out of range"},
    {B "output: {dump_steps: [1, -2]}\n", NULL, NULL, NULL, 3, 26, "output.dump_steps.1", "expected an integer >= 0"},
    // vectors and lists
    {B "world: {gravity: [0, -9.81]}\n", NULL, NULL, NULL, 3, 18, "world.gravity",
     "expected a list of 3 numbers [x, y, z], found a list of 2 items"},
    {B "world: {gravity: [0, x, 1]}\n", NULL, NULL, NULL, 3, 22, "world.gravity.1", "expected a number, found 'x'"},
    {"robots:\n  - urdf: a.urdf\n    q0: []\n", NULL, NULL, NULL, 3, 9, "robots.0.q0", "non-empty list"},
    {B "contact: {exclude: [[a, b], [c]]}\n", NULL, NULL, NULL, 3, 29, "contact.exclude.1", "a pair of link names"},
    // NaN and infinity
    {B "contact: {friction: .nan}\n", NULL, NULL, NULL, 3, 21, "contact.friction", "NaN"},
    {B "contact: {friction: .inf}\n", NULL, NULL, NULL, 3, 21, "contact.friction", "found infinity"},
    {B "contact: {stiffness: 1e999}\n", NULL, NULL, NULL, 3, 22, "contact.stiffness", "too large for a double"},
    // enums
    {B "contact: {model: ncpp}\n", NULL, NULL, NULL, 3, 18, "contact.model", "did you mean 'ncp'?"},
    {B "solver: {name: PGS}\n", NULL, NULL, NULL, 3, 16, "solver.name",
     "expected one of: pgs, lemke, admm, staggered, bisection, auto, newton, none; found 'PGS'; did you mean 'pgs'?"},
    {"robots:\n  - {urdf: a.urdf, base: floating}\n", NULL, NULL, NULL, 2, 26, "robots.0.base",
     "expected one of: fixed, free"},
    // required keys and structure
    {"name: x\n", NULL, NULL, NULL, 1, 1, "robots", "missing required key 'robots'"},
    {"robots:\n  - name: x\n", NULL, NULL, NULL, 2, 5, "robots.0", "exactly one of 'urdf' and 'mjcf' (the robot's file), found neither"},
    {"robots:\n  - {urdf: a.urdf, mjcf: a.xml}\n", NULL, NULL, NULL, 2, 5, "robots.0", "found both"},
    {"robots: {urdf: a}\n", NULL, NULL, NULL, 1, 9, "robots", "expected a list of robots"},
    {"robots: []\n", NULL, NULL, NULL, 1, 9, "robots", "expected at least one robot"},
    {"robots:\n  - a.urdf\n", NULL, NULL, NULL, 2, 5, "robots.0", "expected a map of robot keys, found 'a.urdf'"},
    {"", NULL, NULL, NULL, 0, 0, "", "the scenario is empty"},
    {"- a\n- b\n", NULL, NULL, NULL, 1, 1, "", "a map of keys at the top level"},
    {"just a string\n", NULL, NULL, NULL, 1, 1, "", "a map of keys at the top level"},
    // actions
    {B "actions:\n  - {body: x}\n", NULL, NULL, NULL, 4, 5, "actions.0.type", "missing required key 'type'"},
    {B "actions:\n  - {type: push}\n", NULL, NULL, NULL, 4, 12, "actions.0.type", "expected one of: force, pd, trajectory"},
    {B "actions:\n  - {type: force}\n", NULL, NULL, NULL, 4, 5, "actions.0.body", "missing required key 'body'"},
    {B "actions:\n  - {type: pd}\n", NULL, NULL, NULL, 4, 5, "actions.0.kp", "missing required key 'kp'"},
    {B "actions:\n  - {type: pd, kp: 0}\n", NULL, NULL, NULL, 4, 20, "actions.0.kp", "expected a number > 0"},
    {B "actions:\n  - {type: force, body: b, kp: 1}\n", NULL, NULL, NULL, 4, 28, "actions.0.kp",
     "does not apply to actions of type 'force' (it applies to: pd, trajectory)"},
    {B "actions:\n  - {type: force, body: b, direction: [0, 0, 0]}\n", NULL, NULL, NULL, 4, 39,
     "actions.0.direction", "non-zero vector"},
    {B "actions:\n  - {type: force, body: b, start: 2, stop: 1}\n", NULL, NULL, NULL, 4, 44, "actions.0.stop",
     "must be >= start"},
    {B "actions:\n  - {type: pd, kp: 1, joints: [a, b], target: [1, 2, 3]}\n", NULL, NULL, NULL, 4, 47,
     "actions.0.target", "expected 1 or 2 targets"},
    {B "actions:\n  - {type: trajectory, kp: 1, joints: [a, b, c], amp: [1, 2]}\n", NULL, NULL, NULL, 4, 55,
     "actions.0.amp", "expected 1 or 3 values"},
    {B "actions:\n  - {type: pd, kp: 1, joints: [a, a]}\n", NULL, NULL, NULL, 4, 35, "actions.0.joints.1",
     "listed twice"},
    {B "actions:\n  - {type: pd, kp: 1, joints: some}\n", NULL, NULL, NULL, 4, 31, "actions.0.joints",
     "'all' or a list of joint names"},
    // cross-key checks
    {"robots:\n  - {urdf: a, name: r}\n  - {urdf: b, name: r}\n", NULL, NULL, NULL, 3, 21, "robots.1.name",
     "duplicate robot name 'r'"},
    {B "name: a/b\n", NULL, NULL, NULL, 3, 7, "name", "must not contain '/'"},
    // YAML-level problems (inline)
    {B "contact: &c {friction: 0.1}\n", NULL, NULL, NULL, 3, 10, "contact", "anchors are not supported"},
    {B "contact: *c\n", NULL, NULL, NULL, 3, 10, "contact", "aliases are not supported"},
    {B "name: !!str x\n", NULL, NULL, NULL, 3, 7, "name", "tags are not supported"},
    {B "? [a, b]\n: 1\n", NULL, NULL, NULL, 3, 3, "", "map keys must be plain names"},
    {B "name: \"a\\0b\"\n", NULL, NULL, NULL, 3, 7, "name", "NUL character"},
    {"robots: [\n", NULL, NULL, NULL, 2, 1, "robots", "malformed YAML"},
    {B "name: x\n\x01\n", NULL, NULL, NULL, 4, 1, "", "control characters are not allowed (byte 0x01)"},
    // fixture files
    {NULL, DATA "bad_unclosed.yaml", NULL, NULL, 4, 7, "world.gravity",
     "malformed YAML: did not find expected ',' or ']' (while parsing a flow sequence at line 3, column 12)"},
    {NULL, DATA "bad_indent.yaml", NULL, NULL, 3, 2, "", "malformed YAML: did not find expected key"},
    {NULL, DATA "bad_tabs.yaml", NULL, NULL, 2, 1, "robots", "tabs are not allowed"},
    {NULL, DATA "bad_duplicate.yaml", NULL, NULL, 5, 3, "contact.friction",
     "duplicate key 'friction' (first defined at line 4, column 3)"},
    {NULL, DATA "bad_anchor.yaml", NULL, NULL, 2, 5, "robots.0", "anchors are not supported (found anchor '&r')"},
    {NULL, DATA "bad_two_documents.yaml", NULL, NULL, 3, 1, "", "several YAML documents"},
    {NULL, DATA "bad_empty.yaml", NULL, NULL, 0, 0, "", "the scenario is empty"},
    {NULL, DATA "bad_binary.yaml", NULL, NULL, 1, 1, "", "invalid leading UTF-8 octet (byte 0x89)"},
    {NULL, DATA "does_not_exist.yaml", NULL, NULL, 0, 0, "", "No such file or directory"},
    {NULL, DATA, NULL, NULL, 0, 0, "", "is a directory"},
    // overrides ("--set", line = override index + 1, column in the override text)
    {B, NULL, "solver.tolerance", "--set", 1, 1, "", "malformed override 'solver.tolerance': expected key.path=value"},
    {B, NULL, "=3", "--set", 1, 1, "", "malformed override '=3': empty key path"},
    {B, NULL, "solver..x=3", "--set", 1, 8, "solver..x", "empty segment"},
    {B, NULL, "robots.1.q0=[1]", "--set", 1, 8, "robots.1", "index 1 is past the end of the list 'robots' (1 item"},
    {B, NULL, "robots.first.q0=[1]", "--set", 1, 8, "robots.first", "expected an index, found 'first'"},
    {B, NULL, "robots.0.urdf.x=1", "--set", 1, 15, "robots.0.urdf.x", "is a single value (at bad.yaml:2:11)"},
    {B, NULL, "robots.0.q0=[1, 2", "--set", 1, 18, "", "malformed YAML: did not find expected ',' or ']'"},
    {B, NULL, "solver.tolerance=abc", "--set", 1, 18, "solver.tolerance",
     "found 'abc' (in --set 'solver.tolerance=abc')"},
    {B, NULL, "contact.fricton=0.3", "--set", 1, 9, "contact.fricton", "did you mean 'friction'?"},
    {B, NULL, "solver.name=", "--set", 1, 13, "solver.name", "found an empty value"},
    {B, NULL, "robots.0.q0=[0, .nan]", "--set", 1, 17, "robots.0.q0.1", "NaN"},
};
#define NBAD ((int)(sizeof(bad) / sizeof(bad[0])))

// each bad scenario: CSIM_ERR_INPUT with the expected file, line, column, key and message
START_TEST(test_bad_scenario) {
  const bad_case* b = &bad[_i];
  scn_config* cfg = (scn_config*)0x1;
  csim_error err;
  const char* ov[1] = {b->ov};
  csim_status st = b->text ? scn_load_string(b->text, "bad.yaml", ov, b->ov ? 1 : 0, &cfg, &err)
                           : scn_load(b->file, ov, b->ov ? 1 : 0, &cfg, &err);
  char buf[2048];
  err_format(&err, buf, sizeof(buf));
  ck_assert_msg(st == CSIM_ERR_INPUT, "case %d: expected CSIM_ERR_INPUT, got %d (%s)", _i, st, buf);
  ck_assert_ptr_null(cfg);
  const char* efile = b->efile ? b->efile : b->text ? "bad.yaml" : b->file;
  ck_assert_msg(!strcmp(err.file, efile), "case %d: file '%s', expected '%s' (%s)", _i, err.file, efile, buf);
  ck_assert_msg(err.line == b->line, "case %d: line %d, expected %d (%s)", _i, err.line, b->line, buf);
  ck_assert_msg(b->col < 0 || err.column == b->col, "case %d: column %d, expected %d (%s)", _i, err.column, b->col,
                buf);
  ck_assert_msg(!strcmp(err.key, b->key), "case %d: key '%s', expected '%s' (%s)", _i, err.key, b->key, buf);
  ck_assert_msg(strstr(err.msg, b->frag) != NULL, "case %d: message lacks \"%s\": %s", _i, b->frag, buf);
}
END_TEST

// an unreadable file is an input error (as root every file is readable: then it loads)
START_TEST(test_unreadable_file) {
  char path[] = P_tmpdir "/csim_scn_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, B, strlen(B)), (int)strlen(B));
  close(fd);
  chmod(path, 0);
  scn_config* cfg = NULL;
  csim_error err;
  csim_status st = scn_load(path, NULL, 0, &cfg, &err);
  if (access(path, R_OK) != 0) {
    ck_assert_int_eq(st, CSIM_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "Permission denied"));
    ck_assert_str_eq(err.file, path);
  } else {
    ck_assert_int_eq(st, CSIM_OK);
    ck_assert_int_eq(cfg->nrobots, 1);
  }
  scn_free(cfg);
  unlink(path);
}
END_TEST

// /dev/null is a character device: rejected without reading (FIFOs and devices could hang)
START_TEST(test_not_regular_file) {
  scn_config* cfg = NULL;
  csim_error err;
  ck_assert_int_eq(scn_load("/dev/null", NULL, 0, &cfg, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "not a regular file"));
  ck_assert_int_eq(scn_load("", NULL, 0, &cfg, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(scn_load_string(NULL, "x", NULL, 0, &cfg, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_null(cfg);
}
END_TEST

// deep nesting and long texts are bounded errors, not crashes
START_TEST(test_deep_nesting) {
  size_t n = 5000;
  char* s = malloc(2 * n + 16);
  strcpy(s, "robots: ");
  memset(s + 8, '[', n);
  s[8 + n] = '\0';
  scn_config* cfg = NULL;
  csim_error err;
  ck_assert_int_eq(scn_load_string(s, "deep.yaml", NULL, 0, &cfg, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "nesting is too deep"));
  ck_assert_int_eq(err.line, 1);
  free(s);
}
END_TEST

//---------------------------------- robustness ------------------------------------------------

// every prefix of a valid scenario loads or fails with CSIM_ERR_INPUT and a located message
START_TEST(test_truncation) {
  size_t len = 0;
  char* full = slurp(DATA "full.yaml", &len);
  int nok = 0, nbad = 0;
  for (size_t k = 0; k <= len; k++) {
    char* t = malloc(k + 1);
    memcpy(t, full, k);
    t[k] = '\0';
    scn_config* cfg = NULL;
    csim_error err;
    csim_status st = scn_load_string(t, DATA "full.yaml", NULL, 0, &cfg, &err);
    ck_assert_msg(st == CSIM_OK || st == CSIM_ERR_INPUT, "prefix %zu: status %d", k, st);
    if (st == CSIM_OK) {
      nok++;
      ck_assert_int_ge(cfg->nrobots, 1);
    } else {
      nbad++;
      ck_assert_ptr_null(cfg);
      ck_assert(err.msg[0] != '\0' && err.file[0] != '\0');
    }
    scn_free(cfg);
    free(t);
  }
  // both outcomes happen: the file only becomes valid once robots.0.urdf is complete
  ck_assert_int_gt(nok, 100);
  ck_assert_int_gt(nbad, 100);
  free(full);
}
END_TEST

// random byte mutations of a valid scenario never crash and always give a status
START_TEST(test_mutations) {
  size_t len = 0;
  char* full = slurp(DATA "full.yaml", &len);
  unsigned long long x = 0x9E3779B97F4A7C15ull;
  static const char alphabet[] = "[]{}:,-&*!?#|>'\"%@`\t\n .0123456789e~";
  int nbad = 0;
  for (int it = 0; it < 3000; it++) {
    char* t = malloc(len + 1);
    memcpy(t, full, len + 1);
    // 1 to 4 byte replacements from a YAML-hostile alphabet or any byte
    int nm = 1 + it % 4;
    for (int m = 0; m < nm; m++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      size_t pos = (size_t)(x >> 33) % len;
      unsigned char v = (unsigned char)(x >> 20);
      t[pos] = (it & 1) ? alphabet[v % (sizeof(alphabet) - 1)] : (char)(v ? v : 1);
    }
    scn_config* cfg = NULL;
    csim_error err;
    csim_status st = scn_load_string(t, "mut.yaml", NULL, 0, &cfg, &err);
    ck_assert(st == CSIM_OK || st == CSIM_ERR_INPUT);
    if (st != CSIM_OK) nbad++;
    scn_free(cfg);
    free(t);
  }
  ck_assert_int_gt(nbad, 1000);
  free(full);
}
END_TEST

//---------------------------------- documentation ---------------------------------------------

// docs/scenario_keys.md is exactly the schema's Markdown (CSIM_REGEN_DOCS=1 rewrites it)
START_TEST(test_docs_match_schema) {
  char* md = NULL;
  size_t mdlen = 0;
  FILE* f = open_memstream(&md, &mdlen);
  scn_print_schema_markdown(f);
  fclose(f);
  if (getenv("CSIM_REGEN_DOCS")) {
    mkdir("docs", 0755);
    FILE* o = fopen("docs/scenario_keys.md", "w");
    ck_assert_ptr_nonnull(o);
    fputs(md, o);
    fclose(o);
  }
  char* doc = slurp("docs/scenario_keys.md", NULL);
  ck_assert_msg(!strcmp(doc, md),
                "docs/scenario_keys.md is stale: regenerate with CSIM_REGEN_DOCS=1 ./build/tests/test_scenario");
  // every table row has 6 cells, and the keys used above are documented
  int rows = 0;
  for (char* line = md; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (strncmp(line, "| `", 3) != 0) continue;
    int bars = 0;
    for (char* p = line; *p && *p != '\n'; p++) bars += *p == '|';
    ck_assert_int_eq(bars, 7);
    rows++;
  }
  ck_assert_int_ge(rows, 70);
  const char* must[] = {"`contact.friction`", "`robots.N.urdf`", "`actions.N.effort_limit`", "`output.dump_steps`",
                        "`solver.over_relaxation` | number | `1` | in (0, 2)", "`integrator.dt` | number | `1e-3` | in (0, 1] | s"};
  for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++)
    ck_assert_msg(strstr(md, must[i]) != NULL, "docs lack %s", must[i]);
  free(doc);
  free(md);
}
END_TEST

//---------------------------------- main ------------------------------------------------------

// suite of all scenario tests
static Suite* scenario_suite(void) {
  Suite* s = suite_create("scenario");
  TCase* tc = tcase_create("valid");
  tcase_add_test(tc, test_full_file);
  tcase_add_test(tc, test_defaults);
  tcase_add_test(tc, test_action_defaults);
  tcase_add_test(tc, test_paths);
  tcase_add_test(tc, test_name_tables);
  suite_add_tcase(s, tc);
  tc = tcase_create("overrides");
  tcase_add_test(tc, test_overrides);
  tcase_add_test(tc, test_text_as_run);
  suite_add_tcase(s, tc);
  tc = tcase_create("errors");
  tcase_add_loop_test(tc, test_bad_scenario, 0, NBAD);
  tcase_add_test(tc, test_unreadable_file);
  tcase_add_test(tc, test_not_regular_file);
  tcase_add_test(tc, test_deep_nesting);
  suite_add_tcase(s, tc);
  tc = tcase_create("robustness");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_truncation);
  tcase_add_test(tc, test_mutations);
  suite_add_tcase(s, tc);
  tc = tcase_create("docs");
  tcase_add_test(tc, test_docs_match_schema);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(scenario_suite());
}
