// test_material.c — contact materials (material.h): the combination rules against their closed
// forms, a material on one link changing only that link's contacts (rigid and compliant), bad
// material keys as input errors with file:line:column and key, MuJoCo's impedance curve at
// hand-computed points.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/material.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "support.h"

// Drake: springs in series, dissipation weighted by the other stiffness, friction 2ab/(a+b)
START_TEST(combine_closed_forms) {
  mat_props a = {0.1, 15500, 1.3, 0.2}, b = {1.0, 7259.4, 10.096, 0.6};
  mat_props r = mat_combine(CSIM_COMBINE_DRAKE, a, b);
  ck_assert_double_eq_tol(r.k, 1.0 / (1.0 / 15500 + 1.0 / 7259.4), 1e-9);
  ck_assert_double_eq_tol(r.d, (7259.4 * 1.3 + 15500 * 10.096) / (15500 + 7259.4), 1e-12);
  ck_assert_double_eq_tol(r.mu, 0.2 / 1.1, 1e-15);
  ck_assert_double_eq_tol(r.e, 0.4, 1e-15);
  // symmetric in its arguments
  mat_props s = mat_combine(CSIM_COMBINE_DRAKE, b, a);
  ck_assert_double_eq_tol(s.k, r.k, 1e-9);
  ck_assert_double_eq_tol(s.d, r.d, 1e-12);
  ck_assert_double_eq_tol(s.mu, r.mu, 1e-15);
  // a frictionless side makes the pair frictionless; two frictionless sides too (no 0/0)
  mat_props z = a;
  z.mu = 0;
  ck_assert_double_eq(mat_combine(CSIM_COMBINE_DRAKE, z, b).mu, 0);
  ck_assert_double_eq(mat_combine(CSIM_COMBINE_DRAKE, z, z).mu, 0);
  // MuJoCo: the larger friction, the means of the rest
  r = mat_combine(CSIM_COMBINE_MUJOCO, a, b);
  ck_assert_double_eq(r.mu, 1.0);
  ck_assert_double_eq_tol(r.k, 0.5 * (15500 + 7259.4), 1e-9);
  ck_assert_double_eq_tol(r.d, 0.5 * (1.3 + 10.096), 1e-12);
  ck_assert_double_eq_tol(r.e, 0.4, 1e-15);
  // mean
  r = mat_combine(CSIM_COMBINE_MEAN, a, b);
  ck_assert_double_eq_tol(r.mu, 0.55, 1e-15);
  ck_assert_double_eq_tol(r.k, 0.5 * (15500 + 7259.4), 1e-9);
}
END_TEST

// MuJoCo getimpedance: solimp [0.9, 0.95, 0.001, 0.5, 2] at x = r/width
START_TEST(impedance_curve) {
  const double s[5] = {0.9, 0.95, 0.001, 0.5, 2};
  ck_assert_double_eq(mat_impedance(s, 0), 0.9);
  ck_assert_double_eq(mat_impedance(s, -0.002), 0.95);
  ck_assert_double_eq(mat_impedance(s, 0.002), 0.95);  // |r|, as MuJoCo
  // x = 0.25 <= midpoint: y = x^2 / 0.5 = 0.125
  ck_assert_double_eq_tol(mat_impedance(s, -0.00025), 0.9 + 0.125 * 0.05, 1e-15);
  // x = 0.75 > midpoint: y = 1 - (1-x)^2 / 0.5 = 0.875
  ck_assert_double_eq_tol(mat_impedance(s, -0.00075), 0.9 + 0.875 * 0.05, 1e-15);
  // power 1: linear
  const double l[5] = {0.5, 0.9, 0.01, 0.5, 1};
  ck_assert_double_eq_tol(mat_impedance(l, -0.003), 0.5 + 0.3 * 0.4, 1e-15);
  // K, B: standard [0.02, 1] and direct [-3850, -63] (mj_makeImpedance)
  double K, B;
  mat_soft_kb((double[]){0.02, 1}, s, 1e-3, &K, &B);
  ck_assert_double_eq_tol(K, 1 / (0.95 * 0.95 * 0.02 * 0.02), 1e-9);
  ck_assert_double_eq_tol(B, 2 / (0.95 * 0.02), 1e-12);
  mat_soft_kb((double[]){0.001, 1}, s, 1e-3, &K, &B);  // refsafe: timeconst >= 2 dt
  ck_assert_double_eq_tol(B, 2 / (0.95 * 0.002), 1e-9);
  mat_soft_kb((double[]){-3850, -63}, s, 1e-3, &K, &B);
  ck_assert_double_eq_tol(K, 3850 / (0.95 * 0.95), 1e-9);
  ck_assert_double_eq_tol(B, 63 / 0.95, 1e-12);
}
END_TEST

// a second object with another link name
static const char* k_block_urdf =
    "<?xml version=\"1.0\"?>\n<robot name=\"block\">\n <link name=\"block\">\n  <inertial><mass value=\"1.0\"/>"
    "<inertia ixx=\"0.001666666667\" ixy=\"0\" ixz=\"0\" iyy=\"0.001666666667\" iyz=\"0\" izz=\"0.001666666667\"/>"
    "</inertial>\n  <collision><geometry><box size=\"0.1 0.1 0.1\"/></geometry></collision>\n </link>\n</robot>\n";

static char g_block_path[64];

static void write_block(void) {
  snprintf(g_block_path, sizeof g_block_path, "out/csim_test_block_%d.urdf", (int)getpid());
  FILE* f = fopen(g_block_path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(k_block_urdf, f);
  fclose(f);
}

// two objects sliding side by side at 1 m/s; returns the y travelled by each after `steps`,
// the friction of their contacts (all contacts of one object share it) and the mean depth of
// each object's contacts at the last step
static void slide_two_d(const char* model, const char* materials, int steps, double y[2], double mu[2],
                        double depth[2]);
static void slide_two(const char* model, const char* materials, int steps, double y[2], double mu[2]) {
  double dep[2];
  slide_two_d(model, materials, steps, y, mu, dep);
}

static void slide_two_d(const char* model, const char* materials, int steps, double y[2], double mu[2],
                        double depth[2]) {
  write_block();
  char yaml[2048];
  int compliant = strcmp(model, "ncp") != 0;
  snprintf(yaml, sizeof yaml,
           "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane}}\nrobots:\n"
           "  - {urdf: robots/cube.urdf, base: free, q0: [0, 0, 0.05, 0, 0, 0, 1], v0: [0, 1, 0, 0, 0, 0]}\n"
           "  - {urdf: %s, base: free, q0: [0.5, 0, 0.05, 0, 0, 0, 1], v0: [0, 1, 0, 0, 0, 0]}\n"
           "contact: {model: %s, friction: 0.3, stiffness: 1.0e6, damping: 1%s%s}\n"
           "solver: {name: %s, tolerance: 1.0e-10, max_iterations: 2000}\n"
           "integrator: {dt: 1.0e-3, duration: 1%s}\n",
           g_block_path, model, materials[0] ? ", materials: " : "", materials, compliant ? "none" : "pgs",
           compliant ? ", scheme: tamsi" : "");
  scn_config* cfg = NULL;
  sim* s = NULL;
  csim_error err;
  err_clear(&err);
  ck_assert_msg(scn_load_string(yaml, "test_material.yaml", NULL, 0, &cfg, &err) == CSIM_OK, "%s", err.msg);
  ck_assert_msg(sim_create(cfg, &s, &err) == CSIM_OK, "%s", err.msg);
  mu[0] = mu[1] = NAN;
  for (int k = 0; k < steps; k++) {
    sim_stepinfo info;
    ck_assert_msg(sim_step(s, &info, &err) == CSIM_OK, "%s", err.msg);
    // friction of each object's contacts: one value per object
    for (int i = 0; i < s->data.con->ncon; i++) {
      int obj = s->data.con->body2[i] == 1 ? 0 : 1;
      if (isnan(mu[obj])) mu[obj] = s->data.con->mu[i];
      ck_assert_double_eq(s->data.con->mu[i], mu[obj]);
    }
  }
  int nd[2] = {0, 0};
  depth[0] = depth[1] = 0;
  for (int i = 0; i < s->data.con->ncon; i++) {
    int obj = s->data.con->body2[i] == 1 ? 0 : 1;
    depth[obj] += s->data.con->con[i].depth;
    nd[obj]++;
  }
  for (int o = 0; o < 2; o++) depth[o] /= nd[o] ? nd[o] : 1;
  // robot r's base body is body r + 1; its y is q[7 r + 1]
  y[0] = s->data.d->q[1];
  y[1] = s->data.d->q[8];
  sim_free(s);
  scn_free(cfg);
  unlink(g_block_path);
}

// rigid ncp: mu = 0.6 on `block` only -> block/ground friction 2 (0.6)(0.3)/0.9 = 0.4 (Drake
// rule), the cube keeps 0.3; each stops after v^2/(2 mu g)
START_TEST(material_on_one_link_rigid) {
  double y0[2], m0[2], y1[2], m1[2];
  slide_two("ncp", "", 600, y0, m0);
  slide_two("ncp", "{block: {friction: 0.6}}", 600, y1, m1);
  ck_assert_double_eq(m0[0], 0.3);
  ck_assert_double_eq(m0[1], 0.3);
  ck_assert_double_eq(m1[0], 0.3);
  ck_assert_double_eq_tol(m1[1], 0.4, 1e-15);
  // the cube's run is the same (to the solver tolerance: both objects share one solve); the
  // block stops at 1/(2 0.4 g)
  ck_assert_double_eq_tol(y1[0], y0[0], 1e-9);
  ck_assert_double_eq_tol(y0[0], 1 / (2 * 0.3 * 9.81), 2e-3);
  ck_assert_double_eq_tol(y1[1], 1 / (2 * 0.4 * 9.81), 2e-3);
  // the mujoco rule takes the larger friction
  double y2[2], m2[2];
  char mat[] = "{block: {friction: 0.6}}, combine: mujoco";
  slide_two("ncp", mat, 600, y2, m2);
  ck_assert_double_eq(m2[1], 0.6);
  ck_assert_double_eq(m2[0], 0.3);
  ck_assert_double_eq_tol(y2[1], 1 / (2 * 0.6 * 9.81), 2e-3);
}
END_TEST

// compliant hunt_crossley: friction and stiffness on `block` only change the block's run
START_TEST(material_on_one_link_compliant) {
  double y0[2], m0[2], y1[2], m1[2], d0[2], d1[2];
  slide_two_d("hunt_crossley", "", 500, y0, m0, d0);
  slide_two_d("hunt_crossley", "{block: {friction: 0.6, stiffness: 3.0e5}}", 500, y1, m1, d1);
  // at rest each corner carries m g / 4: depth = m g / (4 k), k = 1e6 for the cube (the global
  // key, two default sides) and 1e6 3e5 / 1.3e6 for the block (Drake's springs in series)
  ck_assert_double_eq_tol(d1[0], 9.81 / 4e6, 0.02 * 9.81 / 4e6);
  ck_assert_double_eq_tol(d1[1], 9.81 / (4 * 3e5 / 1.3), 0.02 * 9.81 / (4 * 3e5 / 1.3));
  ck_assert_double_eq_tol(y1[0], y0[0], 1e-9);
  ck_assert_double_eq(m1[0], 0.3);
  ck_assert_double_eq_tol(m1[1], 0.4, 1e-15);
  // regularized friction (v_s = 1e-4 m/s): the block stops within 1 % of v^2/(2 mu g)
  ck_assert_double_eq_tol(y1[1], 1 / (2 * 0.4 * 9.81), 0.01 / (2 * 0.4 * 9.81));
  ck_assert(fabs(y1[1] - y0[1]) > 0.03);
}
END_TEST

// load a scenario with overrides and create its sim: the status and the error
static csim_status load_and_create(const char* const* sets, int nsets, csim_error* err) {
  const char* yaml =
      "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane}}\n"
      "robots:\n  - {urdf: robots/cube.urdf, base: free, q0: [0, 0, 0.05, 0, 0, 0, 1]}\n"
      "contact:\n  model: ncp\n  materials:\n    cube: {friction: 0.4}\n    wheel: {friction: 0.2}\n";
  scn_config* cfg = NULL;
  sim* s = NULL;
  err_clear(err);
  csim_status st = scn_load_string(yaml, "bad.yaml", sets, nsets, &cfg, err);
  if (st == CSIM_OK) st = sim_create(cfg, &s, err);
  sim_free(s);
  scn_free(cfg);
  return st;
}

// unknown link, negative stiffness, negative friction, misspelt key: exit 2 with file:line:column
START_TEST(bad_material_keys) {
  csim_error err;
  // 'wheel' is no link: reported at its value, line 9 column 12
  ck_assert_int_eq(load_and_create(NULL, 0, &err), CSIM_ERR_INPUT);
  ck_assert_str_eq(err.file, "bad.yaml");
  ck_assert_int_eq(err.line, 9);
  ck_assert_int_eq(err.column, 12);
  ck_assert_str_eq(err.key, "contact.materials.wheel");
  ck_assert_ptr_nonnull(strstr(err.msg, "no link named 'wheel'"));
  // the other errors, the materials map replaced by an override
  const char* cases[][2] = {
      {"contact.materials={cube: {stiffness: -5}, ground: {}}", "contact.materials.cube.stiffness"},
      {"contact.materials={cube: {friction: -0.1}}", "contact.materials.cube.friction"},
      {"contact.materials={cube: {fricton: 0.1}}", "contact.materials.cube.fricton"},
      {"contact.materials={cube: {restitution: 2}}", "contact.materials.cube.restitution"},
      {"contact.materials={cube: 0.3}", "contact.materials.cube"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char* sets[1] = {cases[i][0]};
    ck_assert_int_eq(load_and_create(sets, 1, &err), CSIM_ERR_INPUT);
    ck_assert_str_eq(err.key, cases[i][1]);
    ck_assert_str_eq(err.file, "--set");
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_gt(err.column, 1);
  }
  // in the file: negative stiffness at its line and column
  const char* yaml =
      "name: t\nrobots:\n  - {urdf: robots/cube.urdf, base: free}\n"
      "contact:\n  materials:\n    cube:\n      stiffness: -1\n";
  scn_config* cfg = NULL;
  err_clear(&err);
  ck_assert_int_eq(scn_load_string(yaml, "neg.yaml", NULL, 0, &cfg, &err), CSIM_ERR_INPUT);
  ck_assert_str_eq(err.file, "neg.yaml");
  ck_assert_int_eq(err.line, 7);
  ck_assert_int_eq(err.column, 18);
  ck_assert_str_eq(err.key, "contact.materials.cube.stiffness");
  // a restitution material under a compliant law is an error as the global key is
  const char* sets[2] = {"contact.model=hunt_crossley", "contact.materials={cube: {restitution: 0.5}}"};
  ck_assert_int_eq(load_and_create(sets, 2, &err), CSIM_ERR_INPUT);
  ck_assert_str_eq(err.key, "contact.materials.cube.restitution");
  // solref: ccp only, two numbers of one sign; solimp: ranges
  const char* soft[][3] = {
      {"contact.solref=[0.02, 1]", "contact.model=ncp", "contact.solref"},
      {"contact.solref=[0.02, -1]", "contact.model=ccp", "contact.solref"},
      {"contact.solref=[0.02]", "contact.model=ccp", "contact.solref"},
      {"contact.solimp=[0.9, 1.5, 0.001, 0.5, 2]", "contact.solref=[0.02, 1]", "contact.solimp.1"},
      {"contact.solref=[0.02, 1]", "contact.restitution=0.3", "contact.solref"},
      {"contact.solref=[0.02, 1]", "contact.materials={cube: {restitution: 0.3}}", "contact.materials.cube.restitution"},
  };
  for (size_t i = 0; i < sizeof soft / sizeof soft[0]; i++) {
    const char* s3[3] = {"contact.model=ccp", soft[i][0], soft[i][1]};
    ck_assert_int_eq(load_and_create(s3, 3, &err), CSIM_ERR_INPUT);
    ck_assert_str_eq(err.key, soft[i][2]);
  }
  // contact.cone pyramidal: ccp with MuJoCo softness, solver pgs, newton or auto (newton), not
  // admm, not the natural criterion (io/compile.c check_cone), refused naming the key
  const char* cone[][4] = {
      {"contact.cone=pyramidal", "contact.model=ncp", "solver.name=pgs", "contact.cone"},
      {"contact.cone=pyramidal", "contact.friction=0.5", "solver.name=pgs", "contact.cone"},
      {"contact.cone=pyramidal", "contact.compliance=0.01", "solver.name=pgs", "contact.cone"},
      {"contact.cone=pyramidal", "contact.solref=[0.02, 1]", "solver.name=admm", "solver.name"},
      {"contact.cone=pyramidal", "contact.solref=[0.02, 1]", "solver.criterion=natural",
       "solver.criterion"},
      {"contact.cone=pyramid", "contact.solref=[0.02, 1]", "solver.name=pgs", "contact.cone"},
      {"contact.cone=pyramidal", "contact.solref=[0.02, 1]", "output.dump_steps=[3]",
       "output.dump_steps"},
  };
  for (size_t i = 0; i < sizeof cone / sizeof cone[0]; i++) {
    const char* s6[6] = {"contact.model=ccp", "solver.name=pgs", "contact.materials={cube: {}}",
                         cone[i][0], cone[i][1], cone[i][2]};
    ck_assert_int_eq(load_and_create(s6, 6, &err), CSIM_ERR_INPUT);
    ck_assert_msg(!strcmp(err.key, cone[i][3]), "case %zu: key '%s' (%s)", i, err.key, err.msg);
  }
  const char* ok[5] = {"contact.model=ccp", "solver.name=pgs", "contact.materials={cube: {}}",
                       "contact.cone=pyramidal", "contact.solref=[0.02, 1]"};
  ck_assert_msg(load_and_create(ok, 5, &err) == CSIM_OK, "%s", err.msg);
  // auto under the pyramid: newton (its conditions hold here), so accepted and soft
  const char* ok_auto[5] = {"contact.model=ccp", "solver.name=auto", "contact.materials={cube: {}}",
                            "contact.cone=pyramidal", "contact.solref=[0.02, 1]"};
  ck_assert_msg(load_and_create(ok_auto, 5, &err) == CSIM_OK, "%s", err.msg);
  // humanoid100.xml's condim 4 cylinders: their torsion edges (accepted)
  const char* h100[2] = {"contact.cone=pyramidal", "solver.name=pgs"};
  scn_config* hc = NULL;
  sim* hs = NULL;
  ck_assert_msg(scn_load("scenarios/mujoco_humanoid100.yaml", h100, 2, &hc, &err) == CSIM_OK,
                "%s", err.msg);
  ck_assert_msg(sim_create(hc, &hs, &err) == CSIM_OK, "%s", err.msg);
  sim_free(hs);
  scn_free(hc);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("material");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, combine_closed_forms);
  tcase_add_test(tc, impedance_curve);
  tcase_add_test(tc, material_on_one_link_rigid);
  tcase_add_test(tc, material_on_one_link_compliant);
  tcase_add_test(tc, bad_material_keys);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(suite());
}
