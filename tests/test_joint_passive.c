// test_joint_passive.c — passive joint springs and dampers in the step (stage_passive, model.h
// jnt_stiffness, jnt_springref, dof_damping) on one-dof MJCF models without gravity and ground:
//  - a spring-mass slide joint and a damped hinge against the discrete map of the step worked out
//    by hand (symplectic Euler, damping implicit: (m + h c)(v+ - v) = h (-k (x - x_r) - c v),
//    x+ = x + h v+) to round-off, and against the continuous closed form (decay rate c / 2m,
//    frequency sqrt(k/m - (c/2m)^2)) to the scheme's O(h) accuracy;
//  - the energy audit: with an undamped spring the potential 1/2 k (x - x_r)^2 is counted, so the
//    energy not explained by work stays near zero while the kinetic energy swings through all of
//    it; with damping the audit records the loss as dissipated (injected < 0): the damper's
//    work sum h c v+^2, up to the scheme's O(h) energy error.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/sim.h"
#include "core/state.h"
#include "scene_fixture.h"
#include "support.h"

// a body of mass m on a slide joint along x (or a hinge about y, inertia I about it), spring k,
// rest position springref (degrees for the hinge), damping c; no gravity, no ground
static fixture passive_fixture(const char* joint, double k, double ref, double c, double dt,
                               double dur, double x0) {
  char xml[1024], yaml[1024], path[512];
  snprintf(xml, sizeof(xml),
           "<mujoco><option gravity='0 0 0'/><worldbody><body name='b' pos='0 0 1'>"
           "<joint name='j' type='%s' axis='%s' stiffness='%.17g' springref='%.17g' "
           "damping='%.17g'/>"
           "<geom type='sphere' size='0.1' pos='%s' mass='2'/></body></worldbody></mujoco>",
           joint, !strcmp(joint, "slide") ? "1 0 0" : "0 1 0", k, ref, c,
           !strcmp(joint, "slide") ? "0 0 0" : "0.5 0 0");
  tmp_write_text("m.xml", xml);
  snprintf(yaml, sizeof(yaml),
           "name: passive\nworld: {gravity: [0, 0, 0], ground: {type: none}}\n"
           "robots:\n  - mjcf: m.xml\n    joints: {j: %.17g}\n"
           "contact: {model: ncp}\nsolver: {name: pgs}\n"
           "integrator: {dt: %.17g, duration: %.17g}\noutput: {path: out.h5}\n",
           x0, dt, dur);
  return fixture_text(yaml, tmp_path(path, sizeof(path), "s.yaml"), NULL, 0);
}

// inertia about the joint axis of the fixtures' body: m (slide), or a 2 kg solid sphere of
// radius 0.1 at 0.5 m (hinge)
static double inertia_of(const char* joint) {
  return !strcmp(joint, "slide") ? 2.0 : 2.0 * (0.4 * 0.01 + 0.25);
}

// the step's map on (x, v), by hand
static void scheme_step(double m, double k, double xr, double c, double h, double* x, double* v) {
  *v += h * (-k * (*x - xr) - c * *v) / (m + h * c);
  *x += h * *v;
}

// steps the fixture nstep times, checking q, v against the hand-made map; largest difference
static double run_against_scheme(fixture* f, double m, double k, double xr, double c, int nstep) {
  sim* s = f->s;
  double h = s->opt.dt, x = s->data.d->q[0], v = s->data.d->v[0], worst = 0;
  sim_stepinfo info;
  csim_error e;
  for (int n = 0; n < nstep; n++) {
    ck_assert_int_eq(sim_step(s, &info, &e), CSIM_OK);
    scheme_step(m, k, xr, c, h, &x, &v);
    worst = fmax(worst, fabs(s->data.d->q[0] - x) + fabs(s->data.d->v[0] - v) * h);
  }
  return worst;
}

START_TEST(slide_spring_matches_scheme_and_closed_form) {
  double m = 2, k = 50, c = 0.8, h = 1e-4, x0 = 0.1;
  fixture f = passive_fixture("slide", k, 0, c, h, 2, x0);
  ck_assert_double_eq(f.s->model.m->jnt_stiffness[0], k);
  ck_assert_double_eq(f.s->model.m->dof_damping[0], c);
  // the discrete map: the step is exactly it (one dof, no velocity products)
  double worst = run_against_scheme(&f, m, k, 0, c, 2000);
  ck_assert_msg(worst < 1e-13, "slide: step differs from the hand-made map by %g", worst);
  fixture_free(&f);
  // the continuous solution: x(t) = e^{-zeta t} (x0 cos wd t + zeta x0 / wd sin wd t)
  f = passive_fixture("slide", k, 0, c, h, 2, x0);
  double zeta = c / (2 * m), wd = sqrt(k / m - zeta * zeta), err = 0;
  sim_stepinfo info;
  csim_error e;
  for (int n = 1; n <= 20000; n++) {
    ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
    double t = n * h;
    double xe = exp(-zeta * t) * (x0 * cos(wd * t) + zeta * x0 / wd * sin(wd * t));
    err = fmax(err, fabs(f.s->data.d->q[0] - xe));
  }
  // first-order scheme: |x - x_exact| = O(h wd x0) over the run (measured 2.2e-4 of x0)
  ck_assert_msg(err < 3e-3 * x0, "slide: |x - closed form| %g", err);
  fprintf(stderr, "slide spring-damper, 2 s at h = 1e-4: max |x - closed form| = %.3g (x0 = %g)\n",
          err, x0);
  fixture_free(&f);
}
END_TEST

// decay rate and frequency of a damped hinge measured from its successive maxima against the
// closed form c / 2I and sqrt(k/I - (c/2I)^2); springref (degrees) is the centre of oscillation
START_TEST(hinge_decay_rate_and_frequency) {
  double I = inertia_of("hinge"), k = 40, c = 0.1, h = 1e-4, ref_deg = 10;
  double xr = ref_deg * M_PI / 180, x0 = xr + 0.2;
  fixture f = passive_fixture("hinge", k, ref_deg, c, h, 6, x0);
  ck_assert_double_eq_tol(f.s->model.m->jnt_springref[0], xr, 1e-15);
  double tpk[8], apk[8], prev2 = x0 - xr, prev1 = x0 - xr;
  int npk = 0;
  sim_stepinfo info;
  csim_error e;
  for (int n = 1; n <= 60000 && npk < 8; n++) {
    ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
    double y = f.s->data.d->q[0] - xr;
    // a maximum at the previous step (parabola through three samples for its time and value)
    if (n >= 2 && prev1 > prev2 && prev1 >= y && prev1 > 0) {
      double den = prev2 - 2 * prev1 + y, off = den != 0 ? 0.5 * (prev2 - y) / den : 0;
      tpk[npk] = (n - 1 + off) * h;
      apk[npk++] = prev1 - 0.25 * (prev2 - y) * off;
    }
    prev2 = prev1;
    prev1 = y;
  }
  ck_assert_int_ge(npk, 6);
  double T = (tpk[npk - 1] - tpk[0]) / (npk - 1);
  double rate = log(apk[0] / apk[npk - 1]) / (tpk[npk - 1] - tpk[0]);
  double zeta = c / (2 * I), wd = sqrt(k / I - zeta * zeta);
  fprintf(stderr, "damped hinge: decay rate %.6f vs c/2I %.6f, frequency %.6f vs %.6f rad/s\n",
          rate, zeta, 2 * M_PI / T, wd);
  ck_assert_msg(fabs(rate - zeta) < 2e-3 * zeta, "decay rate %g vs %g", rate, zeta);
  ck_assert_msg(fabs(2 * M_PI / T - wd) < 1e-3 * wd, "frequency %g vs %g", 2 * M_PI / T, wd);
  fixture_free(&f);
  // and the step is the hand-made map on the hinge too
  f = passive_fixture("hinge", k, ref_deg, c, h, 1, x0);
  double worst = run_against_scheme(&f, I, k, xr, c, 2000);
  ck_assert_msg(worst < 1e-13, "hinge: step differs from the hand-made map by %g", worst);
  fixture_free(&f);
}
END_TEST

// the energy audit counts the spring: undamped, E - E0 stays within the scheme's O(h w) energy
// oscillation while the kinetic energy runs from 0 to all of the spring's 1/2 k x0^2
START_TEST(audit_counts_spring_potential) {
  double k = 50, h = 1e-4, x0 = 0.1, E0 = 0.5 * k * x0 * x0;
  fixture f = passive_fixture("slide", k, 0, 0, h, 1, x0);
  sim_stepinfo info;
  csim_error e;
  double kin_max = 0, inj_max = 0;
  for (int n = 0; n < 10000; n++) {
    ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
    kin_max = fmax(kin_max, info.kinetic);
    inj_max = fmax(inj_max, fabs(info.injected));
  }
  ck_assert_double_eq_tol(info.potential + info.kinetic, E0, 0.01 * E0);
  ck_assert_msg(kin_max > 0.99 * E0, "kinetic energy reached only %g of %g", kin_max, E0);
  ck_assert_msg(inj_max < 5e-3 * E0, "audit: |injected| up to %g J of %g J", inj_max, E0);
  ck_assert_int_eq(f.s->data.warnings[SIM_WARN_ENERGY], 0);
  fixture_free(&f);
  // damped: what the audit books as dissipated (injected < 0) is the damper's work
  // sum h c v+^2 (backward Euler's loss), up to the spring's O(h) energy oscillation
  double c = 0.8;
  f = passive_fixture("slide", k, 0, c, h, 1, x0);
  double diss = 0;
  for (int n = 0; n < 10000; n++) {
    ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
    diss += h * c * f.s->data.d->v[0] * f.s->data.d->v[0];
  }
  ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);  // the audit of the state reached
  fprintf(stderr, "damped slide, 1 s: audit dissipated %.6g J, damper's work %.6g J (E0 %.4g J)\n",
          -info.injected, diss, E0);
  ck_assert_msg(info.injected < 0, "injected %g", info.injected);
  ck_assert_msg(fabs(-info.injected - diss) < 5e-3 * E0, "dissipated %g vs %g", -info.injected,
                diss);
  fixture_free(&f);
}
END_TEST

int main(void) {
  Suite* s = suite_create("joint_passive");
  TCase* tc = tcase_create("core");
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, slide_spring_matches_scheme_and_closed_form);
  tcase_add_test(tc, hinge_decay_rate_and_frequency);
  tcase_add_test(tc, audit_counts_spring_potential);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
