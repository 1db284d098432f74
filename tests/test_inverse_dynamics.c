// test_inverse_dynamics.c — the inverse_dynamics built-in (core/controllers/inverse_dynamics.c):
// on a 6-dof gantry (three slides, then hinges about z, y, x: its end frame's position is the
// slides and its orientation Rz(q4) Ry(q5) Rx(q6), roll-pitch-yaw (q6, q5, q4), so the expected
// motion is known in closed form) the error of a constant target decays as
// e'' + kd e' + kp e = 0, gravity compensation holds a pose, and a moving target is tracked with
// the feed-forward; the bad params and keyframe files; the Kuka grasp-shake-place of
// scenarios/kuka_grasp_shake.yaml from perturbed starts (one in make test, five in test-long).
// Run from the repo root.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define DT 1e-3
#define KP 100.0
#define KD 20.0  // critically damped, omega 10 rad/s

// links with their centres of mass off the joint axes, so gravity, the coupling and the Coriolis
// terms all act (the law must cancel them)
#define GLINK(name, m, com)                                                                    \
  "  <link name=\"" name "\"><inertial><origin xyz=\"" com "\" rpy=\"0 0 0\"/><mass value=\"" m \
  "\"/><inertia ixx=\"0.02\" ixy=\"0\" ixz=\"0\" iyy=\"0.03\" iyz=\"0\" izz=\"0.04\"/>"          \
  "</inertial></link>\n"
#define GJOINT(name, type, parent, child, xyz, axis)                                          \
  "  <joint name=\"" name "\" type=\"" type "\"><parent link=\"" parent "\"/><child link=\""     \
  child "\"/><origin xyz=\"" xyz "\" rpy=\"0 0 0\"/><axis xyz=\"" axis "\"/>"                    \
  "<limit lower=\"-10\" upper=\"10\" effort=\"1000\" velocity=\"100\"/></joint>\n"

static const char gantry_urdf[] =
    "<?xml version=\"1.0\"?>\n<robot name=\"gantry\">\n  <link name=\"base\"/>\n"
    GLINK("sx", "2", "0 0 0") GLINK("sy", "1.5", "0 0 0") GLINK("sz", "1", "0 0 0")
    GLINK("rz", "0.5", "0.02 0 0") GLINK("ry", "0.5", "0 0.03 0")
    GLINK("tool", "1.2", "0.1 0.05 -0.04")
    GJOINT("jx", "prismatic", "base", "sx", "0 0 1", "1 0 0")
    GJOINT("jy", "prismatic", "sx", "sy", "0 0 0", "0 1 0")
    GJOINT("jz", "prismatic", "sy", "sz", "0 0 0", "0 0 1")
    GJOINT("hz", "revolute", "sz", "rz", "0 0 0", "0 0 1")
    GJOINT("hy", "revolute", "rz", "ry", "0 0 0", "0 1 0")
    GJOINT("hx", "revolute", "ry", "tool", "0 0 0", "1 0 0")
    "</robot>\n";

// run the gantry from q0 (6 values) tracking traj.csv (written by the caller) for `duration`;
// returns /state/q (rows x 6) and /time, every step
static double* gantry_run(const char* q0, double duration, const char* extra, double** t,
                          size_t* rows) {
  char y[2048], path[512], out[512], buf[4096];
  tmp_write_text("gantry.urdf", gantry_urdf);
  snprintf(y, sizeof y,
           "name: gantry\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\n"
           "robots:\n  - {urdf: gantry.urdf, base: fixed, name: gantry, q0: [%s]}\n"
           "contact: {model: ncp, friction: 0.5}\nsolver: {name: pgs}\n"
           "integrator: {dt: %g, duration: %g}\n"
           "controllers:\n  - {type: inverse_dynamics, robot: gantry, params: {file: traj.csv, "
           "link: tool, kp: %g, kd: %g, damping: 1e-6%s}}\noutput: {every: 1}\n",
           q0, DT, duration, KP, KD, extra);
  tmp_write_text("gantry.yaml", y);
  tmp_path(path, sizeof path, "gantry.yaml");
  tmp_path(out, sizeof out, "gantry.h5");
  int rc = sh_fmt(buf, sizeof buf, "%s run %s --out %s --quiet", csim_bin(), path, out);
  ck_assert_msg(rc == 0, "%s", buf);
  size_t c, rt, ct;
  double* q = h5_read_file(out, "/state/q", rows, &c);
  *t = h5_read_file(out, "/time", &rt, &ct);
  ck_assert(c == 6 && rt == *rows);
  return q;
}

// A constant target (0, 0, 1, roll 0, pitch 0, yaw 0) from q0 = (0.1, -0.05, 0.02, 0, 0, 0.3):
// every coordinate of the error (the slides; the roll, a rotation about a fixed axis, so
// log(R* R') is exactly its angle) obeys e'' + kd e' + kp e = 0, critically damped:
// e(t) = e0 (1 + w t) exp(-w t), w = sqrt(kp). The run integrates it by semi-implicit Euler with
// the torque held over each step, so the recorded error follows the discrete recursion
// v+ = v - h (kp e + kd v), e+ = e + h v+ to rounding (the law is exact at the step's start), and
// the continuous solution within O(h w) of e0. Not to rounding: 1e-5 (the velocity products
// the step treats differently from the law's RNEA at the step's start leave ~1e-6).
START_TEST(error_decays_in_closed_form) {
  tmp_write_text("traj.csv", "time, x, y, z, roll, pitch, yaw\n0, 0, 0, 1, 0, 0, 0\n"
                             "1, 0, 0, 1, 0, 0, 0\n");
  double *t, w = sqrt(KP);
  size_t r;
  double* q = gantry_run("0.1, -0.05, 0.02, 0, 0, 0.3", 1.0, "", &t, &r);
  const double e0[6] = {0.1, -0.05, 0.02, 0, 0, 0.3};
  double ed[6], vd[6] = {0}, worst_d = 0, worst_c = 0;
  memcpy(ed, e0, sizeof ed);
  for (size_t k = 0; k < r; k++) {
    for (int i = 0; i < 6; i++) {  // row k: after k steps; then the recursion's step k + 1
      double cont = e0[i] * (1 + w * t[k]) * exp(-w * t[k]);
      worst_d = fmax(worst_d, fabs(q[6 * k + i] - ed[i]));
      worst_c = fmax(worst_c, fabs(q[6 * k + i] - cont));
      vd[i] -= DT * (KP * ed[i] + KD * vd[i]);
      ed[i] += DT * vd[i];
    }
  }
  printf("gantry: error vs the discrete recursion %.3g, vs the continuous solution %.3g (e0 0.3)\n",
         worst_d, worst_c);
  ck_assert_msg(worst_d < 1e-5, "error off the discrete recursion by %g", worst_d);
  ck_assert_msg(worst_c < 0.005 * 0.3, "error off the continuous solution by %g", worst_c);
  double left = 0.3 * (1 + w * t[r - 1]) * exp(-w * t[r - 1]);  // 1.5e-4 rad at 1 s
  // the discrete decay is slower by about (1 + h w / 2)^(w t): 10 % after 10 time constants
  ck_assert_msg(fabs(q[6 * (r - 1) + 5]) < 1.2 * left, "roll left %g (closed form %g)",
                q[6 * (r - 1) + 5], left);
  free(q);
  free(t);
}
END_TEST

// Gravity compensation: started at a target pose that is not at rest by itself (tool mass off the
// axes, z slide under gravity), the arm stays there to rounding
START_TEST(gravity_compensation_holds) {
  tmp_write_text("traj.csv", "time, x, y, z, roll, pitch, yaw\n0, 0.2, -0.1, 1.3, 0.4, -0.3, 0.7\n"
                             "1, 0.2, -0.1, 1.3, 0.4, -0.3, 0.7\n");
  double* t;
  size_t r;
  double* q = gantry_run("0.2, -0.1, 0.3, 0.7, -0.3, 0.4", 1.0, "", &t, &r);
  const double want[6] = {0.2, -0.1, 0.3, 0.7, -0.3, 0.4};
  double worst = 0;
  for (size_t k = 0; k < r; k++)
    for (int i = 0; i < 6; i++) worst = fmax(worst, fabs(q[6 * k + i] - want[i]));
  ck_assert_msg(worst < 1e-9, "drifted %g from the held pose", worst);
  free(q);
  free(t);
}
END_TEST

// the gantry's end point o (tool frame) in the world at q:
// (q1, q2, 1 + q3) + Rz(q4) Ry(q5) Rx(q6) o
static void gantry_point(const double* q, const double o[3], double p[3]) {
  double cz = cos(q[3]), sz = sin(q[3]), cy = cos(q[4]), sy = sin(q[4]), cx = cos(q[5]),
         sx = sin(q[5]);
  double a[3] = {o[0], cx * o[1] - sx * o[2], sx * o[1] + cx * o[2]};  // Rx o
  double b[3] = {cy * a[0] + sy * a[2], a[1], -sy * a[0] + cy * a[2]};  // Ry Rx o
  p[0] = q[0] + cz * b[0] - sz * b[1];
  p[1] = q[1] + sz * b[0] + cz * b[1];
  p[2] = 1 + q[2] + b[2];
}

// A moving target (the point o = (0.15, 0.1, -0.05) of the tool frame, off the hinges so the
// rotation moves it and J' v acts: x, z and roll, pitch, yaw as A (1 - cos 2 pi t), sampled every
// 10 ms) started on it at rest: the feed-forward (position, and angular velocity and acceleration
// from the rpy rates) leaves only the one-step lag of the held torques, as for joint_trajectory's
// pendulum: a residual acceleration of at most h (kd max|x''| + max|x'''|) with the error
// dynamics' static gain 1/kp (critically damped), h (kd A w^2 + A w^3) / kp = 3.1e-3 for the
// largest amplitude A = 0.3 rad; without the feed-forward or J' v the error would be about
// A w^2 / kp = 0.12.
START_TEST(tracks_moving_target) {
  static char csv[200 * 201];
  const double o[3] = {0.15, 0.1, -0.05};
  char* p = csv;
  p += sprintf(p, "time, x, y, z, roll, pitch, yaw\n");
  for (int k = 0; k <= 200; k++) {
    double s = 1 - cos(2 * M_PI * 0.01 * k);
    p += sprintf(p, "%g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g\n", 0.01 * k, o[0] + 0.1 * s,
                 o[1], 1 + o[2] + 0.05 * s, 0.3 * s, 0.2 * s, -0.3 * s);
  }
  tmp_write_text("traj.csv", csv);
  double* t;
  size_t r;
  double* q = gantry_run("0, 0, 0, 0, 0, 0", 2.0, ", offset: [0.15, 0.1, -0.05]", &t, &r);
  double worst = 0;
  for (size_t k = 0; k < r; k++) {
    double s = 1 - cos(2 * M_PI * t[k]), x[3];
    const double want[6] = {o[0] + 0.1 * s, o[1], 1 + o[2] + 0.05 * s, -0.3 * s, 0.2 * s, 0.3 * s};
    gantry_point(q + 6 * k, o, x);
    if (t[k] < 1.995)
      for (int i = 0; i < 6; i++)
        worst = fmax(worst, fabs((i < 3 ? x[i] : q[6 * k + i]) - want[i]));
  }
  printf("gantry tracking 1 Hz 1 - cos targets: largest error %.3g\n", worst);
  double w = 2 * M_PI, bound = DT * (KD * 0.3 * w * w + 0.3 * w * w * w) / KP;
  ck_assert_msg(worst < bound, "tracking error %g above the bound %g", worst, bound);
  free(q);
  free(t);
}
END_TEST

// ---- bad params and keyframe files -----------------------------------------------------------

START_TEST(bad_params) {
#define CSV "time, x, y, z, roll, pitch, yaw\n0, 0, 0, 1, 0, 0, 0\n1, 0, 0, 1, 0, 0, 0\n"
#define P "file: traj.csv, link: tool"
  const struct {
    const char* csv;
    const char* params;
    const char* msg;
  } rows[] = {
      {CSV, "file: traj.csv", "param 'link' is required"},
      {CSV, "file: traj.csv, link: hand", "param 'link': no link 'hand' in the robot"},
      {CSV, "link: tool", "param 'file' is required"},
      {CSV, "file: none.csv, link: tool", "param 'file': cannot open"},
      {"time, x, y, z, roll, pitch\n0, 0, 0, 1, 0, 0\n", P, "traj.csv:1:1: expected 6 columns "
       "after 'time' (x, y, z, roll, pitch, yaw), found 5"},
      {"time, x, y, z, roll, pitch, yaw\n0, 0, 0, 1, 0, 0, 0\n", P ", gripper: hx",
       "traj.csv:1:1: expected 7 columns after 'time' (x, y, z, roll, pitch, yaw, gripper"},
      {"time, x, y, z, yaw, pitch, roll\n0, 0, 0, 1, 0, 0, 0\n", P, "traj.csv:1:16: expected "
       "column 'roll', found 'yaw'"},
      {"time, x, y, z, roll, pitch, yaw\n0, 0, 0, 1, 0, 0\n", P, "traj.csv:2:16: expected 7 values "
       "(time and one per column of the header), found 6"},
      {"time, x, y, z, roll, pitch, yaw\n0, 0, 0, 1, 0, 0, 0\n1, 0, 0, 1, 0, 0, z\n", P,
       "traj.csv:3:19: expected a number, found 'z'"},
      {"time, x, y, z, roll, pitch, yaw\n0, 0, 0, 1, 0, 0, 0\n", P, "traj.csv: expected a header "
       "(time, x, y, z, roll, pitch, yaw[, gripper]) and at least two rows, found 1 row(s)"},
      {CSV, P ", kp: 0", "param 'kp': expected a number > 0, got '0'"},
      {CSV, P ", offset: [1, 2]", "param 'offset': expected 1 or 3 numbers (one per axis), got "
       "'1 2'"},
      {CSV, P ", task: orientation", "param 'task': expected pose or position, got 'orientation'"},
      {CSV, P ", gripper: [hx, thumb]", "param 'gripper': expected at most 4 names of the robot's "
       "1-dof joints, got 'hx thumb'"},
  };
#undef P
#undef CSV
  tmp_write_text("gantry.urdf", gantry_urdf);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char buf[4096];
    tmp_write_text("traj.csv", rows[i].csv);
    int rc = tmp_run_controller("gantry.urdf", "gantry", "inverse_dynamics", rows[i].params, buf,
                                sizeof buf);
    ck_assert_msg(rc == 2 && strstr(buf, rows[i].msg) && strstr(buf, "bad.yaml:9"),
                  "row %zu: rc %d: %s", i, rc, buf);
  }
}
END_TEST

// ---- the Kuka grasp, shake and place ---------------------------------------------------------

// scenarios/kuka_grasp_shake.yaml (issue 23: "the bottle ends within 2 cm of its target in every
// one of 5 perturbed starts"), perturbed from a fixed seed as tools/figures/fig001_kuka.py does:
// the bottle's start by up to +-5 mm in x and y and its yaw uniform in [-pi, pi] (the keyframes
// do not know where it is: the fingers centre it along their axis, not across it), and each arm
// joint's initial angle by up to +-0.02 rad (the controller pulls the finger centre back onto its
// keyframes before the grasp). The target is (0.45, 0.35) (tools/figures/kuka_grasp_shake.py);
// the bottle must also end upright (centre within 5 mm of its standing height 0.1 m).
static void kuka_starts(int nstart) {
  static const double q0[7] = {-0.000000, 0.551216, 0.000000, -1.336863, -0.000000, 1.253513,
                               0.000000};  // the scenario's q0 (finger centre above the bottle)
  unsigned long long seed = 2023;
  for (int run = 0; run < nstart; run++) {
    char arm[256], bottle[128], out[512], buf[8192], *p = arm;
    p += sprintf(p, "robots.0.q0=[");
    for (int j = 0; j < 7; j++)
      p += sprintf(p, "%.6f,", q0[j] + 0.02 * (2 * urand_splitmix(&seed) - 1));
    sprintf(p, "0.05,0.05]");
    double bx = 0.6 + 0.005 * (2 * urand_splitmix(&seed) - 1),
           by = 0.005 * (2 * urand_splitmix(&seed) - 1),
           yaw = M_PI * (2 * urand_splitmix(&seed) - 1);
    snprintf(bottle, sizeof bottle, "robots.1.q0=[%.6f,%.6f,0.1,0,0,%.9f,%.9f]", bx, by,
             sin(yaw / 2), cos(yaw / 2));
    tmp_path(out, sizeof out, "kuka.h5");
    int rc = sh_fmt(buf, sizeof buf, "%s run scenarios/kuka_grasp_shake.yaml --set '%s' --set "
                    "'%s' --out %s --quiet", csim_bin(), arm, bottle, out);
    ck_assert_msg(rc == 0, "%s", buf);
    size_t r, c;
    double* q = h5_read_file(out, "/state/q", &r, &c);
    ck_assert(r == 750 && c == 16);
    const double* b = q + (r - 1) * c + 9;  // the bottle's free joint: position, then quaternion
    double err = hypot(b[0] - 0.45, b[1] - 0.35);
    printf("kuka grasp-shake-place (inverse_dynamics), start %d (bottle at %.4f, %.4f, yaw %.2f):"
           " ends %.2f mm from the target, centre at z %.4f m\n", run, bx, by, yaw, 1e3 * err,
           b[2]);
    ck_assert_msg(err < 0.02, "start %d: %g m from the target", run, err);
    ck_assert_msg(fabs(b[2] - 0.1) < 0.005, "start %d: bottle centre at z %g m", run, b[2]);
    free(q);
  }
}

START_TEST(kuka_one_start) { kuka_starts(1); }
END_TEST

START_TEST(kuka_five_starts) { kuka_starts(5); }
END_TEST

int main(void) {
  Suite* s = suite_create("inverse_dynamics");
  TCase* tc = tcase_create("inverse_dynamics");
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, error_decays_in_closed_form);
  tcase_add_test(tc, gravity_compensation_holds);
  tcase_add_test(tc, tracks_moving_target);
  tcase_add_test(tc, bad_params);
  tcase_add_test(tc, kuka_one_start);
  suite_add_tcase(s, tc);
  // 5 runs of 7.5 s of the Kuka: about 3 s plain, longer under the sanitizers (make test-long)
  TCase* tl = tcase_create("kuka");
  tcase_add_checked_fixture(tl, tmp_setup, tmp_teardown);
  tcase_set_timeout(tl, 1800);
  tcase_set_tags(tl, "long");
  tcase_add_test(tl, kuka_five_starts);
  suite_add_tcase(s, tl);
  return run_suite(s);
}
