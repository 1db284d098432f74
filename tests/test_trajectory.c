// test_trajectory.c — the joint_trajectory built-in (core/controllers/joint_trajectory.c): its
// spline against closed forms, a pendulum tracking a sine with and without the RNEA
// feed-forward against the linear error dynamics, the keyframe file's errors, and (long) the
// Kuka pick-and-place of scenarios/kuka_pick_place.yaml from 5 perturbed starts.
// Run from the repo root.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/control.h"
#include "support.h"

// ---- the spline -----------------------------------------------------------------------------

// a cubic c0 + c1 x + c2 x^2 + c3 x^3 and its derivatives
static void cubic(const double c[4], double x, double out[3]) {
  out[0] = c[0] + x * (c[1] + x * (c[2] + x * c[3]));
  out[1] = c[1] + x * (2 * c[2] + 3 * c[3] * x);
  out[2] = 2 * c[2] + 6 * c[3] * x;
}

// the not-a-knot spline through samples of a cubic at uneven knots is that cubic: values, first
// and second derivatives everywhere inside (the spline is unique and the cubic meets every
// condition); with 3 knots the parabola, with 2 the line
START_TEST(spline_reproduces_cubics) {
  const double t[7] = {-0.3, 0.0, 0.1, 0.45, 0.5, 1.2, 2.0};
  const double cs[3][4] = {{0.7, -1.3, 2.1, -0.9}, {-0.2, 0.5, -1.5, 0}, {1, 2, 0, 0}};
  const int ns[3] = {7, 3, 2};  // a cubic on 7 knots (and 4, 5 below), a parabola, a line
  for (int c = 0; c < 3; c++)
    for (int n = ns[c]; n >= (c == 0 ? 4 : ns[c]); n--) {
      double y[7], M[7], w[7], e[3], x[3];
      for (int i = 0; i < n; i++) {
        cubic(cs[c], t[i], e);
        y[i] = e[0];
      }
      ctl_spline(t, y, n, M, w);
      for (int k = 0; k <= 200; k++) {
        double s = k == 200 ? t[n - 1] : t[0] + (t[n - 1] - t[0]) * k / 200.0;
        ctl_spline_eval(t, y, M, n, s, x);
        cubic(cs[c], s, e);
        for (int d = 0; d < 3; d++)
          ck_assert_msg(fabs(x[d] - e[d]) <= 1e-11 * (1 + fabs(e[d])),
                        "cubic %d, %d knots, x %g, derivative %d: %.15g vs %.15g", c, n, s, d,
                        x[d], e[d]);
      }
      // outside the knots: the end values held, at rest
      cubic(cs[c], t[n - 1], e);
      ctl_spline_eval(t, y, M, n, t[n - 1] + 1, x);
      ck_assert(fabs(x[0] - e[0]) <= 1e-12 * (1 + fabs(e[0])) && x[1] == 0 && x[2] == 0);
    }
}
END_TEST

// ---- a pendulum tracking a sine --------------------------------------------------------------

// a 1 kg point-like mass (I = 0.01 about its centre) on a 0.5 m massless arm, hinge axis y
#define PEND_M 1.0
#define PEND_L 0.5
#define PEND_I (0.01 + PEND_M * PEND_L * PEND_L)
#define PEND_G 9.81
#define AMP 0.2
#define OMEGA (2 * M_PI)
#define KP 100.0
#define KD 20.0
#define DT 1e-3

static const char pend_urdf[] =
    "<?xml version=\"1.0\"?>\n<robot name=\"pend\">\n  <link name=\"base\"/>\n"
    "  <link name=\"arm\">\n    <inertial><origin xyz=\"0 0 -0.5\" rpy=\"0 0 0\"/><mass value=\"1\"/>\n"
    "      <inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/></inertial>\n"
    "  </link>\n  <joint name=\"hinge\" type=\"continuous\">\n    <parent link=\"base\"/>"
    "<child link=\"arm\"/>\n    <origin xyz=\"0 0 1\" rpy=\"0 0 0\"/><axis xyz=\"0 1 0\"/>\n"
    "  </joint>\n</robot>\n";

// the scenario (its CSV named relative to the scenario's directory, the temporary one) and the
// largest |q - A sin(w t)| after the first second's transient
static double pend_error(const char* ff) {
  char csv[64 * 301], *p = csv, y[2048], path[512], out[512], buf[4096];
  p += sprintf(p, "time, hinge\n");
  for (int k = 0; k <= 300; k++)  // rows every 10 ms over 3 s
    p += sprintf(p, "%g, %.17g\n", 0.01 * k, AMP * sin(OMEGA * 0.01 * k));
  tmp_write_text("sine.csv", csv);
  tmp_write_text("pend.urdf", pend_urdf);
  snprintf(y, sizeof y,
           "name: pend\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\n"
           "robots:\n  - {urdf: pend.urdf, base: fixed, name: pend}\n"
           "contact: {model: ncp, friction: 0.5}\nsolver: {name: pgs}\n"
           "integrator: {dt: %g, duration: 3}\n"
           "controllers:\n  - {type: joint_trajectory, robot: pend, params: {file: sine.csv, "
           "kp: %g, kd: %g, feedforward: %s}}\noutput: {every: 1}\n", DT, KP, KD, ff);
  tmp_write_text("pend.yaml", y);
  tmp_path(path, sizeof path, "pend.yaml");
  tmp_path(out, sizeof out, "pend.h5");
  int rc = sh_fmt(buf, sizeof buf, "%s run %s --out %s --quiet", csim_bin(), path, out);
  ck_assert_msg(rc == 0, "%s", buf);
  size_t r, c, rt, ct;
  double* q = h5_read_file(out, "/state/q", &r, &c);
  double* t = h5_read_file(out, "/time", &rt, &ct);
  ck_assert(r == rt && r == 3000 && c == 1);
  double e = 0;
  for (size_t k = 0; k < r; k++)
    if (t[k] > 1) e = fmax(e, fabs(q[k] - AMP * sin(OMEGA * t[k])));
  free(q);
  free(t);
  return e;
}

// Without feed-forward the error follows the linearised error dynamics
//   I e'' + kd e' + (kp + m g l) e = (m g l - I w^2) A sin(w t)
// (amplitude A |m g l - I w^2| / |kp + m g l - I w^2 + i kd w|, 6.8 mrad here: the bound within
// 15 %, sin(0.2) vs 0.2 and the step's lag being the rest). With the RNEA feed-forward what is
// left is the one-step lag of the held torques (explicit PD and feed-forward over a 1 ms step):
// a residual torque of at most h (kd max|q''| + max|tau_ff'|), and the error dynamics being
// overdamped (zeta = kd / 2 sqrt(kp I) = 1.96 > 1/sqrt 2) its gain is at most 1/kp: the bound
// h (kd A w^2 + I A w^3 + m g l A w) / kp = 1.8 mrad.
START_TEST(pendulum_tracks_sine) {
  double none = pend_error("none"), rnea = pend_error("rnea");
  double mgl = PEND_M * PEND_G * PEND_L, w2 = OMEGA * OMEGA;
  double lin = AMP * fabs(mgl - PEND_I * w2) / hypot(KP + mgl - PEND_I * w2, KD * OMEGA);
  double bound = DT * (KD * AMP * w2 + PEND_I * AMP * w2 * OMEGA + mgl * AMP * OMEGA) / KP;
  ck_assert_msg(fabs(none - lin) <= 0.15 * lin, "feedforward none: %g rad, linear %g", none, lin);
  ck_assert_msg(rnea <= bound, "feedforward rnea: %g rad above the bound %g", rnea, bound);
  ck_assert_msg(rnea <= none / 5, "feedforward rnea %g rad vs none %g", rnea, none);
  printf("pendulum tracking a 0.2 rad 1 Hz sine, kp %g kd %g: max error none %.3g rad (linear "
         "%.3g), rnea %.3g rad (bound %.3g)\n", KP, KD, none, lin, rnea, bound);
}
END_TEST

// ---- bad keyframe files ----------------------------------------------------------------------

START_TEST(bad_files) {
#define P "file: traj.csv, kp: 10"
  const struct {
    const char* csv;
    const char* params;
    const char* msg;
  } rows[] = {
      {"time, hinge\n0, 0\n0.5, 1\n0.5, 2\n", P, "traj.csv:4:1: time 0.5 is not after the "
       "previous row's 0.5 (times must increase)"},
      {"time, hinge\n0, 0\n1, 2, 3\n", P, "traj.csv:3:7: expected 2 values (time and one per "
       "joint of the header), found more"},
      {"time, hinge\n0\n", P, "traj.csv:2:1: expected 2 values (time and one per joint of the "
       "header), found 1"},
      {"# keyframes\ntime, elbow\n0, 0\n", P, "traj.csv:2:7: unknown joint 'elbow' (not a 1-dof "
       "joint of robot 'pend')"},
      {"time, hinge\n0, 0\n1, 1x\n", P, "traj.csv:3:4: expected a number, found '1x'"},
      {"time, hinge, hinge\n0, 0, 0\n", P, "traj.csv:1:14: joint 'hinge' named twice"},
      {"when, hinge\n0, 0\n", P, "traj.csv:1:1: expected the header's first column 'time'"},
      {"time, hinge\n0, 0\n", P, "traj.csv: expected a header (time, joint names) and at least "
       "two rows, found 1 row(s)"},
      {"time, hinge\n0, 0\n1, 1\n", "file: traj.csv, kp: -1", "param 'kp': expected a number "
       "> 0, got '-1'"},
      {"time, hinge\n0, 0\n1, 1\n", "file: traj.csv, kp: 1, kd: [1, 2]", "param 'kd': expected "
       "a number >= 0, got '1 2'"},
      {"time, hinge\n0, 0\n1, 1\n", P ", feedforward: inverse", "param 'feedforward': expected "
       "one of rnea, gravity, none; got 'inverse'"},
      {"time, hinge\n0, 0\n1, 1\n", "file: missing.csv, kp: 1", "param 'file': cannot open"},
      {"time, hinge\n0, 0\n1, 1\n", "kp: 1", "param 'file' is required"},
  };
#undef P
  tmp_write_text("pend.urdf", pend_urdf);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char buf[4096];
    tmp_write_text("traj.csv", rows[i].csv);
    int rc = tmp_run_controller("pend.urdf", "pend", "joint_trajectory", rows[i].params, buf,
                                sizeof buf);
    ck_assert_msg(rc == 2 && strstr(buf, rows[i].msg), "row %zu: rc %d: %s", i, rc, buf);
  }
}
END_TEST

// ---- the Kuka pick and place (long) ----------------------------------------------------------

// scenarios/kuka_pick_place.yaml (issue 23: "the bottle ends within 2 cm of its target in every
// one of 5 perturbed starts"). Perturbed, from a fixed seed: each of the 7 arm joints' initial
// angle by up to +-0.05 rad (uniform; the controller pulls the arm back onto the trajectory) and
// the bottle's start by up to +-5 mm in x and y (the fingers centre it along their axis, not
// across it). The target is where tools/figures/kuka_pick_place.py places it, (0.45, 0.35); the
// bottle must also end upright (its centre within 5 mm of its standing height 0.1 m).
START_TEST(kuka_pick_place_perturbed) {
  static const double q0[7] = {-0.000000, 0.551216, 0.000000, -1.336863, -0.000000, 1.253513,
                               0.000000};  // the scenario's q0 (the "above" keyframe)
  unsigned long long seed = 23;
  double errs[5];
  for (int run = 0; run < 5; run++) {
    char arm[256], bottle[128], out[512], buf[8192], *p = arm;
    p += sprintf(p, "robots.0.q0=[");
    for (int j = 0; j < 7; j++) p += sprintf(p, "%.6f,", q0[j] + 0.05 * (2 * urand_splitmix(&seed) - 1));
    sprintf(p, "0.05,0.05]");
    double bx = 0.6 + 0.005 * (2 * urand_splitmix(&seed) - 1),
           by = 0.005 * (2 * urand_splitmix(&seed) - 1);
    snprintf(bottle, sizeof bottle, "robots.1.q0=[%.6f,%.6f,0.1,0,0,0,1]", bx, by);
    tmp_path(out, sizeof out, "kuka.h5");
    int rc = sh_fmt(buf, sizeof buf, "%s run scenarios/kuka_pick_place.yaml --set '%s' --set "
                    "'%s' --out %s --quiet", csim_bin(), arm, bottle, out);
    ck_assert_msg(rc == 0, "%s", buf);
    size_t r, c;
    double* q = h5_read_file(out, "/state/q", &r, &c);
    ck_assert(r == 750 && c == 16);
    const double* b = q + (r - 1) * c + 9;  // the bottle's free joint: position, then quaternion
    errs[run] = hypot(b[0] - 0.45, b[1] - 0.35);
    printf("kuka pick and place, start %d (bottle at %.4f, %.4f): ends %.2f mm from the target, "
           "centre at z %.4f m\n", run, bx, by, 1e3 * errs[run], b[2]);
    ck_assert_msg(errs[run] < 0.02, "start %d: %g m from the target", run, errs[run]);
    ck_assert_msg(fabs(b[2] - 0.1) < 0.005, "start %d: bottle centre at z %g m", run, b[2]);
    free(q);
  }
}
END_TEST

int main(void) {
  Suite* s = suite_create("trajectory");
  TCase* tc = tcase_create("trajectory");
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, spline_reproduces_cubics);
  tcase_add_test(tc, pendulum_tracks_sine);
  tcase_add_test(tc, bad_files);
  suite_add_tcase(s, tc);
  // 5 runs of 7.5 s of the Kuka: about 2 s plain, longer under the sanitizers (make test-long)
  TCase* tl = tcase_create("kuka");
  tcase_add_checked_fixture(tl, tmp_setup, tmp_teardown);
  tcase_set_timeout(tl, 1800);
  tcase_set_tags(tl, "long");
  tcase_add_test(tl, kuka_pick_place_perturbed);
  suite_add_tcase(s, tl);
  return run_suite(s);
}
