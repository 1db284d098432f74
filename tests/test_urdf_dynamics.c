// test_urdf_dynamics.c — a URDF's <dynamics damping friction> (urdf.h; the scenario's
// robots.N.joint_dynamics: apply, damping or ignore), against closed forms worked out by hand:
//  - damping D on a 2 kg slide joint, no gravity, launched at v0: the step's damping is implicit
//    (stage_passive adds h D to M's diagonal), so v_n = v0 (m / (m + h D))^n exactly;
//  - friction F on the same slide joint along a 30-degree slope (gravity's component along the
//    joint 9.81 N): the rigid step's map v_f = v - h g sin 30, v+ = v_f - sign(v_f) h F / m while
//    |v_f| > h F / m, else 0 (test_joint_friction's map, here from a URDF); F = 12 N > 9.81 N
//    sticks, F = 5 N slides down at (9.81 - 5) / 2 m/s^2;
//  - joint_dynamics: damping keeps the damping and drops the friction, ignore drops both (the
//    joint then moves as if the file had no <dynamics>);
//  - a compliant law with the file's friction applied is refused naming joint_dynamics; with
//    joint_dynamics: damping it runs; a negative value is refused at the file's line and column;
//  - the shared Talos URDF: the damping and friction the file states reach the model's dofs.
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/sim.h"
#include "core/state.h"
#include "io/compile.h"
#include "scene_fixture.h"
#include "support.h"

#define MASS 2.0
#define DT 1.0e-3
#define GSIN (9.81 * 0.5)

// a fixed base with one slide joint along axis, its 2 kg link, <dynamics> attributes dyn
static void write_slider(const char* axis, const char* dyn) {
  char urdf[1536];
  snprintf(urdf, sizeof(urdf),
           "<robot name='slider'>\n"
           "  <link name='base'/>\n"
           "  <link name='b'><inertial><mass value='2'/>"
           "<inertia ixx='0.01' ixy='0' ixz='0' iyy='0.01' iyz='0' izz='0.01'/></inertial></link>\n"
           "  <joint name='j' type='prismatic'><parent link='base'/><child link='b'/>\n"
           "    <axis xyz='%s'/><limit lower='-100' upper='100' effort='1' velocity='100'/>\n"
           "    <dynamics %s/>\n"
           "  </joint>\n"
           "</robot>\n",
           axis, dyn);
  tmp_write_text("slider.urdf", urdf);
}

// the slider's scenario: gravity g_z, joint_dynamics jd ("" = the default), contact model
static csim_status slider_fixture(double gz, const char* jd, const char* model, double v0,
                                  fixture* f, csim_error* e) {
  char yaml[1024], path[512];
  snprintf(yaml, sizeof(yaml),
           "name: slider\nworld: {gravity: [0, 0, %g], ground: {type: none}}\n"
           "robots:\n  - urdf: slider.urdf\n    v0: [%.17g]\n%s%s%s"
           "contact: {model: %s}\n%s"
           "integrator: {dt: 1.0e-3, duration: 1}\noutput: {path: out.h5}\n",
           gz, v0, jd[0] ? "    joint_dynamics: " : "", jd, jd[0] ? "\n" : "", model,
           strcmp(model, "ncp") == 0 ? "solver: {name: pgs, tolerance: 1.0e-12}\n" : "");
  return fixture_try(yaml, tmp_path(path, sizeof(path), "slider.yaml"), f, e);
}

static void step_n(fixture* f, int n) {
  sim_stepinfo info;
  csim_error e;
  for (int k = 0; k < n; k++) ck_assert_int_eq(sim_step(f->s, &info, &e), CSIM_OK);
}

// v_n = v0 (m / (m + h D))^n under apply and damping; v0 unchanged under ignore
START_TEST(damping_closed_form) {
  static const char* const kModes[] = {"", "damping", "ignore"};
  const double D = 3, v0 = 1.5;
  write_slider("1 0 0", "damping='3' friction='0'");
  for (int k = 0; k < 3; k++) {
    fixture f;
    csim_error e;
    ck_assert_int_eq(slider_fixture(0, kModes[k], "ncp", v0, &f, &e), CSIM_OK);
    ck_assert_double_eq(f.s->model.m->dof_damping[0], k == 2 ? 0 : D);
    step_n(&f, 500);
    double want = k == 2 ? v0 : v0 * pow(MASS / (MASS + DT * D), 500);
    double v = f.s->data.d->v[0];
    ck_assert_msg(fabs(v - want) < 1e-12, "%s: v %.15g, closed form %.15g",
                  kModes[k][0] ? kModes[k] : "apply", v, want);
    fixture_free(&f);
  }
}
END_TEST

// the hand map of the rigid step with friction F (sticks when F >= m g sin 30)
static double friction_map(double F, int n) {
  double v = 0, x = 0;
  for (int k = 0; k < n; k++) {
    double vf = v - DT * GSIN;
    v = fabs(vf) <= DT * F / MASS ? 0 : vf - copysign(DT * F / MASS, vf);
    x += DT * v;
  }
  return x;
}

// on the 30-degree slope: F = 12 N sticks, 5 N slides, each as the hand map; damping mode and
// ignore drop the friction (a free slide: x = -g sin 30 t (t + h) / 2 under the step's map)
START_TEST(friction_closed_form) {
  static const double kF[2] = {12, 5};
  for (int c = 0; c < 2; c++) {
    char dyn[64];
    snprintf(dyn, sizeof(dyn), "friction='%g'", kF[c]);
    write_slider("0.86602540378443865 0 0.5", dyn);
    for (int k = 0; k < 2; k++) {
      fixture f;
    csim_error e;
      ck_assert_int_eq(slider_fixture(-9.81, k ? "damping" : "", "ncp", 0, &f, &e), CSIM_OK);
      step_n(&f, 1000);
      double t = 1.0, want = k ? -GSIN * t * (t + DT) / 2 : friction_map(kF[c], 1000);
      double x = f.s->data.d->q[0];
      ck_assert_msg(fabs(x - want) < 1e-9, "F %g %s: x %.12g, hand map %.12g", kF[c],
                    k ? "damping only" : "apply", x, want);
      fixture_free(&f);
    }
  }
}
END_TEST

// a compliant law takes no joint friction: refused naming the key that leaves it out
START_TEST(compliant_needs_choice) {
  write_slider("1 0 0", "damping='1' friction='2'");
  fixture f;
  csim_error e;
  ck_assert_int_eq(slider_fixture(0, "", "hunt_crossley", 0, &f, &e), CSIM_ERR_INPUT);
  ck_assert_msg(strstr(e.msg, "joint_dynamics: damping"), "%s", e.msg);
  ck_assert_str_eq(e.key, "contact.model");
  ck_assert_int_eq(slider_fixture(0, "damping", "hunt_crossley", 0, &f, &e), CSIM_OK);
  ck_assert_double_eq(f.s->model.m->dof_damping[0], 1);
  ck_assert_double_eq(f.s->model.m->dof_frictionloss[0], 0);
  fixture_free(&f);
}
END_TEST

// negative and non-numeric values are the reader's errors at the <dynamics> element
START_TEST(bad_values) {
  static const char* const kBad[][2] = {{"damping='-1'", "damping -1 (expected finite and >= 0)"},
                                        {"friction='-0.5'", "friction -0.5"},
                                        {"damping='x'", "'x' is not a number"}};
  for (int k = 0; k < 3; k++) {
    write_slider("1 0 0", kBad[k][0]);
    fixture f;
    csim_error e;
    ck_assert_int_eq(slider_fixture(0, "", "ncp", 0, &f, &e), CSIM_ERR_INPUT);
    ck_assert_int_eq(e.line, 6);
    ck_assert_str_eq(e.key, "dynamics");
    ck_assert_msg(strstr(e.msg, kBad[k][1]), "'%s' lacks '%s'", e.msg, kBad[k][1]);
  }
}
END_TEST

// Talos (talos_reduced.urdf states damping 1 and friction 1 on 18 joints, 0.5 and 1 on 2, zero
// on 14, counted by hand in the file): the model's dofs carry them
START_TEST(talos_values) {
  char urdf[PATH_MAX], yaml[1024 + PATH_MAX], path[512];
  ck_assert_ptr_nonnull(realpath("../shared/data/robots/talos/talos_reduced.urdf", urdf));
  snprintf(yaml, sizeof(yaml),
           "name: talos\nworld: {ground: {type: plane}}\nrobots:\n"
           "  - urdf: %s\n    base: free\n    position: [0, 0, 1.1]\n"
           "integrator: {dt: 1.0e-3, duration: 0.01}\n", urdf);
  fixture f;
  csim_error e;
  csim_status st = fixture_try(yaml, tmp_path(path, sizeof(path), "t.yaml"), &f, &e);
  ck_assert_msg(st == CSIM_OK, "%s (key %s)", e.msg, e.key);
  const sim_model* m = f.s->model.m;
  int n1 = 0, nhalf = 0, nfric = 0;
  for (int i = 0; i < m->nv; i++) {
    n1 += m->dof_damping[i] == 1;
    nhalf += m->dof_damping[i] == 0.5;
    nfric += m->dof_frictionloss[i] == 1;
  }
  ck_assert_int_eq(n1, 18);
  ck_assert_int_eq(nhalf, 2);
  ck_assert_int_eq(nfric, 20);
  fixture_free(&f);
}
END_TEST

int main(void) {
  Suite* s = suite_create("urdf_dynamics");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_add_test(tc, damping_closed_form);
  tcase_add_test(tc, friction_closed_form);
  tcase_add_test(tc, compliant_needs_choice);
  tcase_add_test(tc, bad_values);
  tcase_add_test(tc, talos_values);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
