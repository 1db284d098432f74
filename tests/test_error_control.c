// test_error_control.c — error-controlled compliant integration (integrator.accuracy, sim.c) and
// quasi-Newton Jacobian reuse (integrator.jacobian, compliant/integrate.c) against a closed form.
//
// The problem: robots/ball.urdf (0.1 kg, radius 3 cm) resting on a Hunt-Crossley contact with
// d = 0, so the normal force is k delta (001 eq. 5) and the ball is a linear spring-mass about its
// equilibrium depth m g / k, frictionless in effect (no tangential velocity). Started at the
// height z_eq + A sin(phi) with vertical velocity A w cos(phi), it stays in contact (A = 5e-4 m < m g / k = 9.8e-4 m) and follows
//   z(t) = z_eq + A sin(w t + phi),  vz(t) = A w cos(w t + phi),  w = sqrt(k / m) = 100 rad/s.
// Expected values come from this closed form, never from csim's output.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/compliant/compliant.h"
#include "core/sim.h"
#include "io/compile.h"
#include "io/scenario.h"
#include "scene_fixture.h"
#include "support.h"

#define BALL_M 0.1
#define BALL_R 0.03
#define K_SPRING 1.0e3
#define G98 9.8
#define AMP 5.0e-4

static double omega(void) { return sqrt(K_SPRING / BALL_M); }
static double z_eq(void) { return BALL_R - BALL_M * G98 / K_SPRING; }

// the ball's scenario text, at phase phi of the oscillation, with the integrator mapping given
static void ball_yaml(char* y, size_t n, double phi, const char* integrator) {
  double w = omega();
  snprintf(y, n,
           "name: t\n"
           "world: {gravity: [0, 0, %g], ground: {type: plane, height: 0}}\n"
           "robots:\n"
           "  - urdf: robots/ball.urdf\n"
           "    base: free\n"
           "    q0: [0, 0, %.17g, 0, 0, 0, 1]\n"
           "    v0: [0, 0, %.17g, 0, 0, 0]\n"
           "contact: {model: hunt_crossley, stiffness: %g, damping: 0, friction: 0.5}\n"
           "solver: {name: none}\n"
           "integrator: {scheme: implicit_euler, newton_tolerance: 1.0e-12, %s}\n",
           -G98, z_eq() + AMP * sin(phi), AMP * w * cos(phi), K_SPRING, integrator);
}

// error of the state against the closed form at time t (phase phi at t = 0): max-norm over
// q and v as the estimate measures it (the other coordinates are exactly 0 or 1 both ways)
static double true_error(const sim* s, double phi, double t) {
  const double* q = s->data.d->q;
  const double* v = s->data.d->v;
  double w = omega(), e = 0;
  double zq = z_eq() + AMP * sin(w * t + phi), vz = AMP * w * cos(w * t + phi);
  e = fmax(e, fabs(q[2] - zq));
  e = fmax(e, fabs(v[2] - vz));
  for (int k = 0; k < 6; k++)
    if (k != 2) e = fmax(e, fabs(v[k]));
  e = fmax(e, fmax(fabs(q[0]), fabs(q[1])));
  return e;
}

static void step_ok(fixture* f) {
  sim_stepinfo info;
  csim_error err;
  err_clear(&err);
  memset(&info, 0, sizeof(info));
  ck_assert_msg(sim_step(f->s, &info, &err) == CSIM_OK, "step: %s", err.msg);
}

// (a) one accepted substep of h (accuracy loose enough to accept it; dt = h): the step-doubling
// estimate is within a factor 2 of the true local error of the kept result. For a first-order
// scheme the full step errs C h^2 and the two half steps C h^2 / 2, so the estimate (their
// difference) tends to the half steps' error as w h -> 0. Phases where the leading term of the
// velocity error vanishes (near a turning point, vz ~ 0) are left out: there the next order
// decides and the ratio is not bounded (2.05 at phi = 1.5, w h = 0.1).
// (a') Drake's estimate (integrator.error_estimate: trapezoid, _i = 1): the kept result is the
// implicit Euler step, the estimate its difference from an implicit trapezoid step (second
// order), so the estimate tends to the implicit Euler step's own local error C h^2 as w h -> 0:
// within a factor 2 of the true local error at the same phases. The problem is linear (d = 0):
// Newton's first update is exact and its second is below 10 eps, Drake's first stop
START_TEST(estimate_within_factor_two_of_true_local_error) {
  const double hs[] = {5e-4, 1e-3, 2e-3}, phis[] = {0.0, 0.7, 2.5, 3.6, 5.5};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 5; j++) {
      char integ[256], y[2048];
      snprintf(integ, sizeof(integ), "dt: %g, duration: %g, accuracy: 1.0e+3%s", hs[i], hs[i],
               _i ? ", error_estimate: trapezoid" : "");
      ball_yaml(y, sizeof(y), phis[j], integ);
      fixture f = fixture_text(y, "test_error_control.yaml", NULL, 0);
      step_ok(&f);
      const cmpl_data* c = f.s->data.cmpl;
      ck_assert_int_eq(c->substeps, 1);
      ck_assert_int_eq(c->rejected, 0);
      double est = c->est_max, tru = true_error(f.s, phis[j], hs[i]);
      double ratio = est / tru;
      fprintf(stderr, "%s h %g phi %g: estimate %.4g, true %.4g, ratio %.3f\n",
              _i ? "trapezoid" : "step doubling", hs[i], phis[j], est, tru, ratio);
      ck_assert_msg(ratio >= 0.5 && ratio <= 2, "h %g phi %g: estimate/true = %g", hs[i],
                    phis[j], ratio);
      fixture_free(&f);
    }
}
END_TEST

// run the ball for `duration` under the integrator mapping; the largest error against the
// closed form at the output times; *work the dynamics evaluations, *jac the Jacobians
static double run_ball(const char* integ, double duration, double dt, long* work, long* jac,
                       double* vz_end) {
  char y[2048];
  ball_yaml(y, sizeof(y), 0.0, integ);
  fixture f = fixture_text(y, "test_error_control.yaml", NULL, 0);
  double emax = 0;
  long n = lround(duration / dt);
  for (long k = 1; k <= n; k++) {
    step_ok(&f);
    ck_assert_double_eq_tol(f.s->data.d->time, k * dt, 1e-12);  // on the output grid
    emax = fmax(emax, true_error(f.s, 0.0, k * dt));
  }
  *work = f.s->data.cmpl->work[0];
  *jac = f.s->data.cmpl->work[1];
  *vz_end = f.s->data.d->v[2];
  fixture_free(&f);
  return emax;
}

// (b) the global error scales with integrator.accuracy. The control is per step (Drake's): each
// accepted substep has local error <= a, so h ~ (a / C)^(1/2) and over T / h substeps the global
// error is ~ T (C a)^(1/2): 10 times smaller accuracy, about sqrt(10) = 3.16 times smaller error
// (accepted: 2 to 5); the work grows as a^(-1/2) likewise. 3 periods of the oscillation
// (b') the same with Drake's estimate and Newton stop (integrator.error_estimate: trapezoid, _i = 1)
// a decade tighter: it keeps the implicit Euler step, not the two half steps, so at a = 1e-3 its
// error (0.049 m/s) is already the oscillation's own velocity amplitude (A w = 0.05 m/s), out of
// the asymptotic range
START_TEST(global_error_scales_with_accuracy) {
  const double acc2[2][4] = {{1e-3, 1e-4, 1e-5, 1e-6}, {1e-4, 1e-5, 1e-6, 1e-7}};
  const double* acc = acc2[_i];
  double e[4];
  long work[4], jac;
  for (int i = 0; i < 4; i++) {
    char integ[256];
    double vz;
    snprintf(integ, sizeof(integ), "dt: 0.01, duration: 0.2, accuracy: %g%s", acc[i],
             _i ? ", error_estimate: trapezoid" : "");
    e[i] = run_ball(integ, 0.2, 0.01, &work[i], &jac, &vz);
    fprintf(stderr, "%s accuracy %g: global error %.4g, dynamics evaluations %ld\n",
            _i ? "trapezoid" : "step doubling", acc[i], e[i], work[i]);
  }
  for (int i = 0; i + 1 < 4; i++) {
    double r = e[i] / e[i + 1];
    ck_assert_msg(r >= 2 && r <= 5, "accuracy %g -> %g: error ratio %g (expected ~3.16)",
                  acc[i], acc[i + 1], r);
    ck_assert_int_gt(work[i + 1], work[i]);
  }
}
END_TEST

// quasi-Newton reuses the Jacobian: same answer as full Newton to the Newton tolerance, with
// fewer Jacobian evaluations; fixed step and under error control. (Not fewer dynamics
// evaluations here: the spring is linear, so full Newton converges in one iteration, while a
// reused Jacobian scaled to a new substep misses the h^2 term of q0 + h v and converges
// linearly: under error control quasi-Newton takes more evaluations on this problem, fewer on
// the stick-slip box, as 001 Sec. IV-A found)
START_TEST(quasi_newton_same_answer_fewer_jacobians) {
  const char* modes[] = {"dt: 1.0e-3", "dt: 0.01, accuracy: 1.0e-4"};
  for (int m = 0; m < 2; m++) {
    char fn[256], qn[256];
    long wf, wq, jf, jq;
    double vf, vq;
    snprintf(fn, sizeof(fn), "%s, duration: 0.1, jacobian: full", modes[m]);
    snprintf(qn, sizeof(qn), "%s, duration: 0.1, jacobian: quasi_newton", modes[m]);
    double dt = m ? 0.01 : 1e-3;
    double ef = run_ball(fn, 0.1, dt, &wf, &jf, &vf);
    double eq = run_ball(qn, 0.1, dt, &wq, &jq, &vq);
    fprintf(stderr, "%s: full %ld evaluations %ld Jacobians (error %.3g); quasi_newton %ld / %ld "
            "(error %.3g); vz differs by %.3g\n", modes[m], wf, jf, ef, wq, jq, eq,
            fabs(vf - vq));
    ck_assert_double_lt(fabs(vf - vq), 1e-8);
    ck_assert_double_eq_tol(ef, eq, 1e-8);
    ck_assert_int_lt(4 * jq, jf);
  }
}
END_TEST

// an accuracy no substep can meet stops the run with a message naming the key and the time
START_TEST(unreachable_accuracy_stops_with_message) {
  char y[2048];
  ball_yaml(y, sizeof(y), 0.0, "dt: 0.01, duration: 0.1, accuracy: 1.0e-300");
  fixture f = fixture_text(y, "test_error_control.yaml", NULL, 0);
  sim_stepinfo info;
  csim_error err;
  err_clear(&err);
  ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_ERR_RUN);
  fprintf(stderr, "%s\n", err.msg);
  ck_assert_ptr_nonnull(strstr(err.msg, "integrator.accuracy 1e-300 not reached at t = "));
  ck_assert_ptr_nonnull(strstr(err.msg, "below the smallest allowed"));
  fixture_free(&f);
}
END_TEST

// bad keys are input errors at the key's file:line:column
START_TEST(bad_keys_name_file_line_column) {
  const char* bad[][3] = {
      {"hunt_crossley", "implicit_euler, accuracy: 0", "integrator.accuracy"},
      {"hunt_crossley", "implicit_euler, accuracy: -1.0e-3", "integrator.accuracy"},
      {"hunt_crossley", "implicit_euler, jacobian: bfgs", "integrator.jacobian"},
      {"ncp", "semi_implicit, accuracy: 1.0e-3", "integrator.accuracy"},
      {"hunt_crossley", "tamsi, jacobian: quasi_newton", "integrator.jacobian"},
      {"hunt_crossley", "implicit_euler, error_estimate: trapezoid", "integrator.error_estimate"},
      {"hunt_crossley", "tamsi, accuracy: 1.0e-3, error_estimate: trapezoid",
       "integrator.error_estimate"},
      {"hunt_crossley", "implicit_euler, accuracy: 1.0e-3, error_estimate: embedded",
       "integrator.error_estimate"},
  };
  for (int k = 0; k < 8; k++) {
    char y[2048];
    snprintf(y, sizeof(y),
             "name: t\nworld: {ground: {type: plane}}\nrobots:\n  - urdf: robots/ball.urdf\n"
             "    base: free\ncontact: {model: %s}\nsolver: {name: %s}\n"
             "integrator: {dt: 1.0e-3,\n   scheme: %s}\n",
             bad[k][0], k == 3 ? "pgs" : "none", bad[k][1]);
    csim_error err;
    err_clear(&err);
    scn_config* cfg = NULL;
    sim* s = NULL;
    csim_status st = scn_load_string(y, "test_error_control.yaml", NULL, 0, &cfg, &err);
    if (st == CSIM_OK) st = sim_create(cfg, &s, &err);
    ck_assert_int_eq(st, CSIM_ERR_INPUT);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err.key, bad[k][2]);
    ck_assert_msg(strstr(err.file, "test_error_control.yaml") != NULL, "file '%s'", err.file);
    ck_assert_int_eq(err.line, 9);
    ck_assert_int_gt(err.column, 4);
    fprintf(stderr, "%s:%d:%d: %s: %s\n", err.file, err.line, err.column, err.key, err.msg);
    scn_free(cfg);
  }
}
END_TEST

//---------------------------------- the box sliding to a stop --------------------------------
// robots/box_slider.urdf: the 0.33 kg box of 001 Sec. IV-A on prismatic x and z joints (it cannot
// pitch; a 1 g carriage rides the x joint), resting at its equilibrium depth on four Hunt-Crossley
// corners (d = 0), launched at v0 = 0.5 m/s with mu = 0.5 and no force. Its normal force stays
// m g, so with csim's regularized friction mu~(s) = mu min(s, 1) (001 eq. 7) the closed form is
//   v = v0 - A t, x = v0 t - A t^2 / 2                  until v = vs (t1 = (v0 - vs) / A),
//   v = vs e^(-A (t - t1) / vs), x = x1 + vs^2 / A (1 - e^(-A (t - t1) / vs))    after,
// A = mu g m / (m + m_c): a constant deceleration, then the stiff stiction decay (time vs / A).
#define SL_M 0.33
#define SL_MX 0.331
#define SL_MU 0.5
#define SL_V0 0.5
#define SL_VS 1.0e-4

static void slider_exact(double t, double* x, double* v) {
  double A = SL_MU * G98 * SL_M / SL_MX, t1 = (SL_V0 - SL_VS) / A;
  if (t <= t1) {
    *v = SL_V0 - A * t;
    *x = SL_V0 * t - 0.5 * A * t * t;
    return;
  }
  double e = exp(-A * (t - t1) / SL_VS);
  *v = SL_VS * e;
  *x = SL_V0 * t1 - 0.5 * A * t1 * t1 + SL_VS * SL_VS / A * (1 - e);
}

static fixture slider(const char* integrator) {
  char y[2048];
  snprintf(y, sizeof(y),
           "name: t\n"
           "world: {gravity: [0, 0, %g], ground: {type: plane, height: 0}}\n"
           "robots:\n"
           "  - urdf: robots/box_slider.urdf\n"
           "    base: fixed\n"
           "    q0: [0, %.17g]\n"
           "    v0: [%g, 0]\n"
           "contact: {model: hunt_crossley, stiffness: 1.0e+5, damping: 0, friction: %g,\n"
           "          stiction_velocity: %g}\n"
           "solver: {name: none}\n"
           "integrator: {scheme: implicit_euler, newton_tolerance: 1.0e-12, %s}\n",
           -G98, 0.02 - SL_M * G98 / 4e5, SL_V0, SL_MU, SL_VS, integrator);
  return fixture_text(y, "test_error_control.yaml", NULL, 0);
}

// the slider's error against the closed form at time t (max-norm over q and v, z static)
static double slider_error(const sim* s, double t) {
  double x, v;
  slider_exact(t, &x, &v);
  const double* q = s->data.d->q;
  const double* w = s->data.d->v;
  double z = 0.02 - SL_M * G98 / 4e5;
  return fmax(fmax(fabs(q[0] - x), fabs(w[0] - v)), fmax(fabs(q[1] - z), fabs(w[1])));
}

// (a) while the box slides the velocity is exact under implicit Euler (a constant deceleration)
// and the position errs A h^2 / 2 per step; the halves err A h^2 / 4, which is also the
// difference between full and halves: the estimate equals the true error
START_TEST(sliding_box_estimate_matches_true_error) {
  const double hs[] = {1e-3, 4e-3, 1.6e-2};
  for (int i = 0; i < 3; i++) {
    char integ[256];
    snprintf(integ, sizeof(integ), "dt: %g, duration: %g, accuracy: 1.0", hs[i], hs[i]);
    fixture f = slider(integ);
    step_ok(&f);
    const cmpl_data* c = f.s->data.cmpl;
    ck_assert_int_eq(c->substeps, 1);
    double est = c->est_max, tru = slider_error(f.s, hs[i]);
    double A = SL_MU * G98 * SL_M / SL_MX;
    fprintf(stderr, "slider h %g: estimate %.4g, true %.4g (A h^2 / 4 = %.4g)\n", hs[i], est, tru,
            0.25 * A * hs[i] * hs[i]);
    ck_assert_msg(est / tru >= 0.5 && est / tru <= 2, "h %g: estimate/true = %g", hs[i],
                  est / tru);
    fixture_free(&f);
  }
}
END_TEST

// (b) through the stop (the stiff stiction decay included), the global error against the closed
// form scales with the accuracy as a^(1/2) (per-step control of a first-order scheme)
START_TEST(sliding_box_global_error_scales_with_accuracy) {
  const double acc[] = {1e-4, 1e-5, 1e-6};
  double e[3];
  for (int i = 0; i < 3; i++) {
    char integ[256];
    snprintf(integ, sizeof(integ), "dt: 0.01, duration: 0.2, accuracy: %g", acc[i]);
    fixture f = slider(integ);
    e[i] = 0;
    for (int k = 1; k <= 20; k++) {
      step_ok(&f);
      e[i] = fmax(e[i], slider_error(f.s, 0.01 * k));
    }
    fprintf(stderr, "slider accuracy %g: global error %.4g, %ld dynamics evaluations\n", acc[i],
            e[i], f.s->data.cmpl->work[0]);
    fixture_free(&f);
  }
  for (int i = 0; i + 1 < 3; i++)
    ck_assert_msg(e[i] / e[i + 1] >= 2 && e[i] / e[i + 1] <= 5,
                  "accuracy %g -> %g: error ratio %g (expected ~3.16)", acc[i], acc[i + 1],
                  e[i] / e[i + 1]);
}
END_TEST

// the energy audit under error control: the work of the actions over the run equals the
// quadrature of f(t) v(t) along the run's own velocities (trapezoid at every output step of
// 1 ms, good to well under 1 % here): the substeps rejected and the full steps of step doubling
// add no work (a full step's work left in the count doubled it)
START_TEST(error_control_counts_the_work_once) {
  char y[2048];  // the slider from rest, pushed by 4 sin(2 pi t) N as in 001 Sec. IV-A
  snprintf(y, sizeof(y),
           "name: t\nworld: {gravity: [0, 0, %g], ground: {type: plane, height: 0}}\n"
           "robots:\n  - urdf: robots/box_slider.urdf\n    base: fixed\n"
           "    q0: [0, %.17g]\n"
           "contact: {model: hunt_crossley, stiffness: 1.0e+5, damping: 0, friction: 1.0}\n"
           "solver: {name: none}\n"
           "integrator: {scheme: implicit_euler, dt: 1.0e-3, duration: 0.5, accuracy: 1.0e-6}\n"
           "actions:\n  - {type: force, body: box, direction: [1, 0, 0], point: [0, 0, -0.02],\n"
           "     profile: sine, amplitude: 4.0, frequency: 1.0}\n",
           -G98, 0.02 - SL_M * G98 / 4e5);
  fixture f = fixture_text(y, "test_error_control.yaml", NULL, 0);
  double quad = 0, p_prev = 0;
  for (int k = 1; k <= 500; k++) {
    step_ok(&f);
    double t = 1e-3 * k, p = 4 * sin(2 * M_PI * t) * f.s->data.d->v[0];
    quad += 0.5 * 1e-3 * (p + p_prev);
    p_prev = p;
  }
  const sim_energy* e = &f.s->data.energy;
  double work = e->work + e->work_step;
  fprintf(stderr, "work of the action: audit %.6g J, quadrature of f v %.6g J, %ld rejected\n",
          work, quad, f.s->data.cmpl->nrejected);
  ck_assert_double_gt(quad, 0.05);
  ck_assert_int_gt(f.s->data.cmpl->nrejected, 0);
  ck_assert_double_eq_tol(work, quad, 0.01 * quad);
  fixture_free(&f);
}
END_TEST

static Suite* error_control_suite(void) {
  Suite* s = suite_create("error_control");
  TCase* t = tcase_create("ball");
  tcase_set_timeout(t, 120);
  tcase_add_loop_test(t, estimate_within_factor_two_of_true_local_error, 0, 2);
  tcase_add_loop_test(t, global_error_scales_with_accuracy, 0, 2);
  tcase_add_test(t, quasi_newton_same_answer_fewer_jacobians);
  tcase_add_test(t, unreachable_accuracy_stops_with_message);
  tcase_add_test(t, bad_keys_name_file_line_column);
  TCase* b = tcase_create("sliding box");
  tcase_set_timeout(b, 120);
  tcase_add_test(b, sliding_box_estimate_matches_true_error);
  tcase_add_test(b, sliding_box_global_error_scales_with_accuracy);
  tcase_add_test(b, error_control_counts_the_work_once);
  suite_add_tcase(s, t);
  suite_add_tcase(s, b);
  return s;
}

int main(void) {
  return run_suite(error_control_suite());
}
