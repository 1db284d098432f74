// test_joint_friction.c — dry joint friction (model.h dof_frictionloss, MJCF frictionloss) as a
// box row of the rigid contact problem (contact.h), for every rigid model/solver pair:
//  - a 2 kg body on a slide joint along a 30-degree slope (gravity's component along the joint,
//    m g sin 30 = 9.81 N, is constant): the step's map worked out by hand for one dof, v_f = v -
//    h g sin 30, then v+ = 0 when |v_f| <= h F / m (sticks), else v+ = v_f - sign(v_f) h F / m
//    (slides with the force reduced by F), x+ = x + h v+. Three cases: F = 12 N > 9.81 N (sticks
//    forever), F = 5 N < 9.81 N from rest (slides down at (9.81 - 5) / 2 m/s^2) and F = 5 N
//    launched up the slope at 0.5 m/s (decelerates at (9.81 + 5) / 2, stops, slides back: the
//    friction changes sign). Against the hand map to the solver's tolerance, and against the
//    continuous closed form x = -a t^2 / 2 to the scheme's O(h);
//  - a hinge pendulum (a 2 kg sphere 0.5 m from the axis) released horizontal: it stays put
//    while m g l = 9.81 N m < frictionloss, falls otherwise;
//  - the eps metrics on these rows are the box's complementarity (contact.h): converged steps
//    have eps_abs at the tolerance, and a hand-made impulse off the bound shows in eps_c;
//  - bad values: negative or non-finite frictionloss (the XML reader's own message for 'inf'), frictionloss on a free joint, a compliant
//    law with joint friction: each refused with a message naming it.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/contact.h"
#include "core/sim.h"
#include "core/state.h"
#include "io/compile.h"
#include "scene_fixture.h"
#include "support.h"

#define MASS 2.0
#define GSIN (9.81 * 0.5)  // gravity's acceleration along the slope's joint, downwards

// every rigid model/solver pair (solver_impl.h SOLVER_PAIRS)
static const char* const kPairs[][2] = {
    {"ncp", "pgs"},        {"ncp", "admm"},      {"ncp", "staggered"}, {"ncp", "auto"},
    {"ccp", "pgs"},        {"ccp", "admm"},      {"ccp", "auto"},      {"lcp", "pgs"},
    {"lcp", "lemke"},      {"lcp", "auto"},      {"raisim", "bisection"},
    {"raisim", "auto"},    {"raisim_ds", "bisection"}, {"raisim_ds", "auto"}};
#define NPAIRS ((int)(sizeof(kPairs) / sizeof(kPairs[0])))

// the slide joint on the slope (or, hinge = 1, the horizontal pendulum about y) with
// frictionloss F, under the pair's model and solver, v0 along the joint, extra joint attributes
static fixture limited_fixture(int hinge, double F, const char* model, const char* slv,
                               double v0, const char* extra) {
  char xml[1024], yaml[1024], path[512];
  snprintf(xml, sizeof(xml),
           "<mujoco><worldbody><body name='b' pos='0 0 1'>"
           "<joint name='j' type='%s' axis='%s' frictionloss='%.17g' %s/>"
           "<geom type='sphere' size='0.1' pos='%s' mass='2'/></body></worldbody></mujoco>",
           hinge ? "hinge" : "slide", hinge ? "0 1 0" : "0.86602540378443865 0 0.5", F, extra,
           hinge ? "0.5 0 0" : "0 0 0");
  tmp_write_text("jf.xml", xml);
  snprintf(yaml, sizeof(yaml),
           "name: joint_friction\nworld: {ground: {type: none}}\n"
           "robots:\n  - mjcf: jf.xml\n    v0: [%.17g]\n"
           "contact: {model: %s}\nsolver: {name: %s, tolerance: 1.0e-12, max_iterations: 5000}\n"
           "integrator: {dt: 1.0e-3, duration: 1}\noutput: {path: out.h5}\n",
           v0, model, slv);
  return fixture_text(yaml, tmp_path(path, sizeof(path), "jf.yaml"), NULL, 0);
}

static fixture friction_fixture(int hinge, double F, const char* model, const char* slv,
                                double v0) {
  return limited_fixture(hinge, F, model, slv, v0, "");
}

// the step's map for the slide by hand (see the top)
static void slide_map(double F, double h, double* x, double* v) {
  double vf = *v - h * GSIN, b = h * F / MASS;
  *v = fabs(vf) <= b ? 0 : vf - copysign(b, vf);
  *x += h * *v;
}

// steps f n times against the hand map from its state; the largest |x - x_map| + h |v - v_map|,
// the worst eps_abs of a step in *eps
static double run_slide(fixture* f, double F, int n, double* eps) {
  sim* s = f->s;
  double h = s->opt.dt, x = s->data.d->q[0], v = s->data.d->v[0], worst = 0;
  *eps = 0;
  sim_stepinfo info;
  csim_error e;
  for (int k = 0; k < n; k++) {
    ck_assert_int_eq(sim_step(s, &info, &e), CSIM_OK);
    slide_map(F, h, &x, &v);
    worst = fmax(worst, fabs(s->data.d->q[0] - x) + h * fabs(s->data.d->v[0] - v));
    *eps = fmax(*eps, info.solve.eps_abs);
  }
  return worst;
}

START_TEST(slide_on_slope_every_pair) {
  const char* model = kPairs[_i][0];
  const char* slv = kPairs[_i][1];
  static const double kF[3] = {12, 5, 5}, kV0[3] = {0, 0, 0.5};
  for (int c = 0; c < 3; c++) {
    fixture f = friction_fixture(0, kF[c], model, slv, kV0[c]);
    ck_assert_double_eq(f.s->model.m->dof_frictionloss[0], kF[c]);
    double eps, worst = run_slide(&f, kF[c], 1000, &eps);
    double x = f.s->data.d->q[0];
    fprintf(stderr, "%s/%s F %g v0 %g: 1 s, x %.6f, |x - hand map| %.2g, worst eps_abs %.2g\n",
            model, slv, kF[c], kV0[c], x, worst, eps);
    // the per-contact families to round-off (measured <= 4e-16); the dense ones hold the pinned
    // normal only to the tolerance: lambda_N = b + d shows in eps_c as b G_NN d, so the bound is
    // off by up to 1e-12 / (b G_NN) = 4e-10 per step (measured 7e-8 for ADMM over the launch)
    double tol = !strcmp(slv, "admm") ? 2e-7 : 1e-9;
    ck_assert_msg(worst < tol, "%s/%s case %d: %g from the hand map", model, slv, c, worst);
    ck_assert_msg(eps < 1e-9, "%s/%s case %d: eps_abs %g", model, slv, c, eps);
    // stuck: exactly for the per-contact families, within 1000 steps of the tolerance for the
    // dense ones (measured 8e-11 for ADMM)
    if (c == 0) ck_assert_msg(fabs(x) < 1e-9, "stuck slide moved to %g", x);
    if (c == 1) {  // from rest: x = -a t^2 / 2, a = g sin 30 - F / m; the scheme's O(h a t)
      double a = GSIN - kF[c] / MASS, xe = -0.5 * a;
      ck_assert_msg(fabs(x - xe) < 1e-3 * a, "%s/%s: x %g vs closed form %g", model, slv, x,
                    xe);
    }
    fixture_free(&f);
  }
}
END_TEST

// the slide comes to rest against its lower limit (range -0.2 to 1 m): there the limit row and the
// friction row share gravity's 9.81 N on one dof (a non-unique split), which every pair must
// settle: x at the limit, v = 0, every step converged (but one of Lemke's, below)
START_TEST(slide_rests_on_limit_every_pair) {
  const char* model = kPairs[_i][0];
  const char* slv = kPairs[_i][1];
  fixture f = limited_fixture(0, 5, model, slv, 0, "limited='true' range='-0.2 1'");
  sim_stepinfo info;
  csim_error e;
  int unconverged = 0;
  for (int k = 0; k < 1000; k++) {
    ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
    unconverged += !info.solve.converged;
  }
  double x = f.s->data.d->q[0], v = f.s->data.d->v[0];
  fprintf(stderr, "%s/%s on the limit: x %.9f, v %.2g, %d steps not converged\n", model, slv, x,
          v, unconverged);
  // ccp: an MJCF limit is MuJoCo's soft limit under ccp (solreflimit), so the slide sinks into it
  // (2.1e-4 m without friction, 2.9e-4 m with: the friction holds the overshoot of the impact)
  int ccp = !strcmp(model, "ccp");
  ck_assert_msg(fabs(x + 0.2) < (ccp ? 5e-4 : 1e-6) && fabs(v) < 1e-6, "%s/%s: x %g v %g", model,
                slv, x, v);
  // Lemke pivots on a degenerate LCP here (the limit's and the friction's rows are the same row
  // of J): the impact step ends unconverged (its answer is still right: x and v above)
  ck_assert_int_le(unconverged, !strcmp(slv, "lemke") ? 1 : 0);
  fixture_free(&f);
}
END_TEST

// the launched slide's closed form: up at 0.5 m/s decelerating at g sin 30 + F/m, then down at
// g sin 30 - F/m; its position at 1 s within the scheme's O(h)
START_TEST(slide_reverses_closed_form) {
  double F = 5, v0 = 0.5, a1 = GSIN + F / MASS, a2 = GSIN - F / MASS, t1 = v0 / a1;
  double xe = v0 * t1 - 0.5 * a1 * t1 * t1 - 0.5 * a2 * (1 - t1) * (1 - t1);
  fixture f = friction_fixture(0, F, "ncp", "pgs", v0);
  double eps;
  run_slide(&f, F, 1000, &eps);
  double x = f.s->data.d->q[0];
  fprintf(stderr, "launched slide: x(1 s) %.6f vs closed form %.6f (%.2g)\n", x, xe, x - xe);
  ck_assert_msg(fabs(x - xe) < 2e-3, "x %g vs %g", x, xe);
  fixture_free(&f);
}
END_TEST

// the hinge pendulum released horizontal: gravity's torque m g l = 9.81 N m at q = 0
START_TEST(hinge_sticks_below_gravity_torque) {
  sim_stepinfo info;
  csim_error e;
  for (int c = 0; c < 2; c++) {
    double F = c ? 9.7 : 9.9;  // just below and just above m g l
    fixture f = friction_fixture(1, F, "ncp", "pgs", 0);
    for (int k = 0; k < 200; k++) ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
    double q = f.s->data.d->q[0];
    fprintf(stderr, "hinge, frictionloss %g N m: q after 0.2 s %.3g rad\n", F, q);
    if (c == 0) ck_assert_msg(fabs(q) < 1e-12, "stuck hinge moved to %g", q);
    // the first step: (9.81 - 9.7) / I h^2 with I = 2 (0.4 0.01 + 0.25): it moves at once
    else ck_assert_msg(fabs(q) > 1e-4, "sliding hinge stayed at %g", q);
    fixture_free(&f);
  }
}
END_TEST

// eps_abs on a friction row is the box's complementarity (contact.h): a sliding row's impulse
// at the bound and opposed to the slip measures 0; held at half the bound it measures
// |lambda c + b |c|| = b |c| / 2
START_TEST(eps_measures_the_box) {
  fixture f = friction_fixture(0, 5, "ncp", "pgs", 0);
  sim_stepinfo info;
  csim_error e;
  for (int k = 0; k < 10; k++) ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
  const contact_data* c = f.s->data.con;
  ck_assert_int_eq(c->ncon, 1);
  ck_assert_int_eq(c->nfric, 1);
  ck_assert_int_eq(c->con[0].geom1, CONTACT_JOINT_FRICTION);
  double b = 5 * 1e-3, lam[3] = {c->lambda[0], c->lambda[1], c->lambda[2]}, cv[3];
  ck_assert_double_eq_tol(lam[0], b, 1e-14);  // slides down: friction up the slope
  ck_assert_double_eq_tol(lam[2], b, 1e-14);  // the pinned normal
  solver_problem p = contact_problem(c);
  solver_result r = {0};
  solver_residuals(&p, lam, cv, &r);
  ck_assert_msg(r.eps_abs < 1e-13, "at the bound: eps_abs %g", r.eps_abs);
  lam[0] = 0.5 * b;
  solver_residuals(&p, lam, cv, &r);
  double slip = fabs(cv[0]);
  ck_assert(slip > 1e-3);
  ck_assert_double_eq_tol(r.eps_c, 0.5 * b * slip, 1e-15);
  ck_assert_double_eq_tol(r.eps_p, 0, 1e-15);
  lam[0] = 2 * b;  // beyond the bound: eps_p is the excess (distance to the cone of mu 1)
  solver_residuals(&p, lam, cv, &r);
  ck_assert_double_eq_tol(r.eps_p, b / sqrt(2), 1e-15);
  fixture_free(&f);
}
END_TEST

// the recorded /limits rows: a friction row has side 2 and its force along the dof
START_TEST(recorded_as_joint_row) {
  fixture f = friction_fixture(0, 12, "ncp", "pgs", 0);
  sim_stepinfo info;
  csim_error e;
  ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
  ck_assert_int_eq(info.nlimit, 0);  // limits only
  ck_assert_int_eq(info.ncon, 0);    // contacts only
  const contact_data* c = f.s->data.con;
  ck_assert_int_eq(c->con[0].feature, 2);
  // sticking: the friction holds gravity's m g sin 30 along the joint
  ck_assert_double_eq_tol(c->lambda[0] / 1e-3, MASS * GSIN, 1e-9);
  fixture_free(&f);
}
END_TEST

// frictionloss refused: negative or not finite (the MJCF reader, file:line:column), on a free
// joint (csim's free joint velocity is at the centre of mass), under a compliant law
START_TEST(bad_values_refused) {
  char xml[512], yaml[512], path[512];
  static const char* const kJoint[] = {"type='slide' frictionloss='-1'",
                                       "type='slide' frictionloss='inf'",
                                       "type='free' frictionloss='1'"};
  static const char* const kNeedle[] = {"frictionloss -1 (expected >= 0)",
                                        "'inf' is not a finite decimal number",
                                        "frictionloss on a floating joint"};
  for (int k = 0; k < 4; k++) {
    snprintf(xml, sizeof(xml),
             "<mujoco><worldbody><body name='b' pos='0 0 1'>\n<joint name='j' %s/>"
             "<geom type='sphere' size='0.1'/></body></worldbody></mujoco>",
             k < 3 ? kJoint[k] : "type='slide' frictionloss='1'");
    tmp_write_text("bad.xml", xml);
    snprintf(yaml, sizeof(yaml),
             "name: bad\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: bad.xml\n"
             "contact: {model: %s}\n%sintegrator: {dt: 1.0e-3, duration: 0.01}\n",
             k < 3 ? "ncp" : "hunt_crossley", k < 3 ? "solver: {name: pgs}\n" : "");
    tmp_write_text("bad.yaml", yaml);
    scn_config* cfg = NULL;
    sim* s = NULL;
    csim_error e;
    memset(&e, 0, sizeof(e));
    csim_status st = scn_load(tmp_path(path, sizeof(path), "bad.yaml"), NULL, 0, &cfg, &e);
    if (st == CSIM_OK) st = sim_create(cfg, &s, &e);
    ck_assert_int_eq(st, CSIM_ERR_INPUT);
    const char* needle = k < 3 ? kNeedle[k] : "dry joint friction (frictionloss on 1 dofs)";
    ck_assert_msg(strstr(e.msg, needle), "case %d: %s", k, e.msg);
    if (k < 3) ck_assert_msg(e.line == 2, "case %d: line %d (%s)", k, e.line, e.msg);
    fprintf(stderr, "refused: %s:%d:%d %s\n", e.file, e.line, e.column, e.msg);
    sim_free(s);
    scn_free(cfg);
  }
}
END_TEST

int main(void) {
  Suite* s = suite_create("joint_friction");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 600);
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_add_loop_test(tc, slide_on_slope_every_pair, 0, NPAIRS);
  tcase_add_loop_test(tc, slide_rests_on_limit_every_pair, 0, NPAIRS);
  tcase_add_test(tc, slide_reverses_closed_form);
  tcase_add_test(tc, hinge_sticks_below_gravity_torque);
  tcase_add_test(tc, eps_measures_the_box);
  tcase_add_test(tc, recorded_as_joint_row);
  tcase_add_test(tc, bad_values_refused);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
