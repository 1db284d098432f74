// test_compliant.c — compliant contact (compliant.h, sim_compliant.c) against formulas, analytic
// solutions and the experiments of seed 001.
//
// Scenarios are inline YAML loaded with scn_load_string under the name "test_compliant.yaml", so
// relative paths resolve from the repository root (robots/...). The ball of the restitution test
// is written as a URDF into a mkdtemp directory under the system temporary directory (P_tmpdir), removed afterwards.
#include <check.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/compliant/compliant.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "support.h"

#define BOX_M 0.33           // robots/box_330g.urdf: 10 x 10 x 4 cm
#define G98 9.8

//---------------------------------- allocation counting ---------------------------------------
// The compliant step must not allocate: malloc, calloc and realloc are replaced by counting
// wrappers around glibc's own entry points (__libc_malloc...; free stays glibc's, which owns the
// blocks). Under AddressSanitizer the sanitizer owns malloc: the wrappers are left out and that
// one check is skipped.

#ifndef CSIM_TEST_ASAN
extern void* __libc_malloc(size_t n);
extern void* __libc_calloc(size_t a, size_t b);
extern void* __libc_realloc(void* p, size_t n);
static long g_nalloc;  // allocations so far (the test process is single-threaded per test)

void* malloc(size_t n) {
  g_nalloc++;
  return __libc_malloc(n);
}

void* calloc(size_t a, size_t b) {
  g_nalloc++;
  return __libc_calloc(a, b);
}

void* realloc(void* p, size_t n) {
  g_nalloc++;
  return __libc_realloc(p, n);
}
#endif

//---------------------------------- helpers ---------------------------------------------------

// scenario text -> sim (fails the test on any error)
static sim* make_sim(const char* yaml, scn_config** cfg_out) {
  csim_error err;
  err_clear(&err);
  scn_config* cfg = NULL;
  sim* s = NULL;
  csim_status st = scn_load_string(yaml, "test_compliant.yaml", NULL, 0, &cfg, &err);
  ck_assert_msg(st == CSIM_OK, "scenario: %s (%s)", err.msg, err.key);
  st = sim_create(cfg, &s, &err);
  ck_assert_msg(st == CSIM_OK, "sim_create: %s (%s)", err.msg, err.key);
  *cfg_out = cfg;
  return s;
}

static void free_sim(sim* s, scn_config* cfg) {
  sim_free(s);
  scn_free(cfg);
}

// one step that must succeed
static void step_ok(sim* s, sim_stepinfo* info) {
  csim_error err;
  err_clear(&err);
  memset(info, 0, sizeof(*info));
  csim_status st = sim_step(s, info, &err);
  ck_assert_msg(st == CSIM_OK, "step %ld: %s", s->data.step, err.msg);
}

// the box of the stick-slip experiment resting on the plane, law and integrator given
static void box_yaml(char* y, size_t n, const char* contact, const char* integrator, double z0,
                     const char* actions) {
  snprintf(y, n,
           "name: t\n"
           "world: {gravity: [0, 0, -9.8], ground: {type: plane, height: 0}}\n"
           "robots:\n"
           "  - urdf: robots/box_330g.urdf\n"
           "    base: free\n"
           "    q0: [0, 0, %.12g, 0, 0, 0, 1]\n"
           "contact: {%s}\n"
           "solver: {name: none}\n"
           "integrator: {%s}\n"
           "%s",
           z0, contact, integrator, actions ? actions : "");
}

//---------------------------------- force laws ------------------------------------------------

// Hunt-Crossley normal force k (1 + d ddelta)_+ delta_+ (001 eq. 5) and regularized Coulomb
// friction -mu~(|v_t|/v_s) pi v_t/|v_t| with mu~(s) = mu min(s, 1) (001 eqs. 6-7), by hand
START_TEST(hunt_crossley_matches_formula) {
  cmpl_params p = {.law = CSIM_MODEL_HUNT_CROSSLEY, .mu = 0.7, .k = 2e5, .d = 0.8, .vs = 1e-3};
  const double deltas[] = {-1e-4, 0, 3e-5, 1e-3};
  const double vns[] = {-2.0, -0.1, 0, 0.5, 1.25, 2.0};  // 1 - d vn <= 0 from vn = 1.25
  for (size_t a = 0; a < 4; a++)
    for (size_t b = 0; b < 6; b++) {
      double delta = deltas[a], vn = vns[b];
      double want = p.k * fmax(1 - p.d * vn, 0) * fmax(delta, 0);  // ddelta = -vn
      ck_assert_double_eq_tol(cmpl_normal(&p, delta, vn, NULL, NULL), want, 1e-12 * (1 + want));
    }
  // friction below, at and above the stiction velocity, in an oblique direction
  const double speeds[] = {0, 2e-4, 1e-3, 5e-3, 3.0};
  for (size_t a = 0; a < 5; a++) {
    double u[2] = {0.6, -0.8}, vc[3] = {speeds[a] * u[0], speeds[a] * u[1], -0.01};
    cmpl_point pt = {.delta0 = 2e-4, .hpen = 0, .h = 1e-3};
    cmpl_eval e;
    cmpl_force(&p, &pt, vc, &e);
    double pi = p.k * (1 + p.d * 0.01) * 2e-4;
    double mut = p.mu * fmin(speeds[a] / p.vs, 1);
    ck_assert_double_eq_tol(e.f[2], pi, 1e-12 * pi);
    ck_assert_double_eq_tol(e.f[0], -mut * pi * u[0], 1e-12 * pi);
    ck_assert_double_eq_tol(e.f[1], -mut * pi * u[1], 1e-12 * pi);
    ck_assert_int_eq(e.stick, speeds[a] <= p.vs);
  }
  // TAMSI's first-order penetration delta0 - h vn (001 eq. 19)
  cmpl_point pt = {.delta0 = -1e-4, .hpen = 1e-3, .h = 1e-3};
  cmpl_eval e;
  double vc[3] = {0, 0, -0.3};  // reaches 2e-4 m within the step
  cmpl_force(&p, &pt, vc, &e);
  ck_assert_double_eq_tol(e.f[2], p.k * (1 + p.d * 0.3) * 2e-4, 1e-9);
  ck_assert_double_eq_tol(cmpl_mu_reg(0.5, 0.25, NULL), 0.125, 1e-15);
  ck_assert_double_eq_tol(cmpl_mu_reg(0.5, 4, NULL), 0.5, 1e-15);
}
END_TEST

// the other laws against their source formulas (004): jiminy's blended spring-damper, the MIT
// Cheetah sqrt spring, and the viscoelastic bristle's stick / clamp cases and state update
START_TEST(other_laws_match_formulas) {
  // spring_damper: tanh(2 delta / eps) (k delta - c vn)_+, friction min(|v_t|/v_s, 1) mu pi
  cmpl_params sd = {.law = CSIM_MODEL_SPRING_DAMPER, .mu = 0.5, .k = 1e5, .d = 50, .vs = 1e-3,
                    .blend = CMPL_BLEND_DEPTH};
  double want = tanh(2 * 4e-4 / 1e-3) * (1e5 * 4e-4 - 50 * 0.3);
  ck_assert_double_eq_tol(cmpl_normal(&sd, 4e-4, 0.3, NULL, NULL), want, 1e-12 * want);
  ck_assert_double_eq(cmpl_normal(&sd, 4e-4, 1.0, NULL, NULL), 0);  // k delta < c vn
  ck_assert_double_eq(cmpl_normal(&sd, -1e-5, -1.0, NULL, NULL), 0);
  cmpl_point pt = {.delta0 = 4e-4, .h = 1e-3};
  cmpl_eval e;
  double vc[3] = {0, 4e-4, 0.3};
  cmpl_force(&sd, &pt, vc, &e);
  ck_assert_double_eq_tol(e.f[1], -0.5 * 0.4 * want, 1e-12 * want);

  // sqrt_spring: sqrt(delta) (k delta - d vn), positive part
  cmpl_params sq = {.law = CSIM_MODEL_SQRT_SPRING, .mu = 0.5, .k = 1e5, .d = 30, .kt = 2e4, .bt = 50};
  want = sqrt(4e-4) * (1e5 * 4e-4 + 30 * 0.2);
  ck_assert_double_eq_tol(cmpl_normal(&sq, 4e-4, -0.2, NULL, NULL), want, 1e-12 * want);
  ck_assert_double_eq(cmpl_normal(&sq, 4e-4, 2.0, NULL, NULL), 0);

  // bristle sticking: f = -kt (x0 + h v_t) - bt v_t, x1 = x0 + h v_t
  cmpl_params br = {.law = CSIM_MODEL_BRISTLE, .mu = 0.5, .k = 1e5, .d = 0, .kt = 1e4, .bt = 100};
  cmpl_point bp = {.delta0 = 1e-4, .h = 2e-3, .x0 = {1e-4, -2e-4}};
  double vs[3] = {0.01, 0.02, 0};
  cmpl_force(&br, &bp, vs, &e);
  double pi = 1e5 * 1e-4;  // 10 N, cone radius 5 N
  ck_assert_double_eq_tol(e.f[2], pi, 1e-12);
  ck_assert_int_eq(e.stick, 1);
  for (int r = 0; r < 2; r++) {
    ck_assert_double_eq_tol(e.f[r], -1e4 * (bp.x0[r] + 2e-3 * vs[r]) - 100 * vs[r], 1e-12);
    ck_assert_double_eq_tol(e.x1[r], bp.x0[r] + 2e-3 * vs[r], 1e-15);
  }
  // bristle clamped: |f_t| = mu pi along f_stick, x1 = (bt x0 - h f) / (kt h + bt)
  double vsl[3] = {0.3, -0.1, 0};
  cmpl_force(&br, &bp, vsl, &e);
  ck_assert_int_eq(e.stick, 0);
  double fs[2] = {-1e4 * (1e-4 + 2e-3 * 0.3) - 100 * 0.3, -1e4 * (-2e-4 - 2e-3 * 0.1) + 100 * 0.1};
  double nfs = hypot(fs[0], fs[1]);
  for (int r = 0; r < 2; r++) {
    ck_assert_double_eq_tol(e.f[r], 0.5 * pi * fs[r] / nfs, 1e-12);
    ck_assert_double_eq_tol(e.x1[r], (100 * bp.x0[r] - 2e-3 * e.f[r]) / (1e4 * 2e-3 + 100), 1e-15);
  }
  // the slipping deflection obeys the bristle ODE: dx/dt = -(kt x1 + f) / bt
  for (int r = 0; r < 2; r++)
    ck_assert_double_eq_tol((e.x1[r] - bp.x0[r]) / 2e-3, -(1e4 * e.x1[r] + e.f[r]) / 100, 1e-9);

  // sqrt_spring tangential: the bristle scaled by sqrt(delta)
  cmpl_point sp = {.delta0 = 4e-4, .h = 2e-3, .x0 = {1e-5, 0}};
  double vsq[3] = {1e-3, 0, 0};
  cmpl_force(&sq, &sp, vsq, &e);
  ck_assert_int_eq(e.stick, 1);
  ck_assert_double_eq_tol(e.f[0], -0.02 * (2e4 * (1e-5 + 2e-6) + 50 * 1e-3), 1e-12);
}
END_TEST

// the elastic energy of each law's normal spring (cmpl_elastic) is the integral of its
// undamped force: dU/ddelta = pi(delta, vn = 0) by central differences (cmpl_normal, checked
// against the formulas above, is the oracle), U(0) = 0, and spring_damper's two branches (the
// closed form past 5 eps, Simpson's rule below) meet at 5 eps
START_TEST(elastic_energy_integrates_the_spring) {
  const csim_model laws[] = {CSIM_MODEL_HUNT_CROSSLEY, CSIM_MODEL_BRISTLE,
                             CSIM_MODEL_SPRING_DAMPER, CSIM_MODEL_SQRT_SPRING};
  for (int l = 0; l < 4; l++) {
    cmpl_params p = {.law = laws[l], .mu = 0.5, .k = 1e5, .d = 40, .kt = 1e4, .bt = 50,
                     .blend = CMPL_BLEND_DEPTH};
    ck_assert_double_eq(cmpl_elastic(&p, 0), 0);
    ck_assert_double_eq(cmpl_elastic(&p, -1e-3), 0);
    const double deltas[] = {2e-4, 7e-4, 3e-3, 8e-3};
    for (int k = 0; k < 4; k++) {
      double x = deltas[k], h = 1e-7;
      double dU = (cmpl_elastic(&p, x + h) - cmpl_elastic(&p, x - h)) / (2 * h);
      double pi = cmpl_normal(&p, x, 0, NULL, NULL);
      ck_assert_msg(fabs(dU - pi) <= 1e-5 * pi, "law %d delta %g: dU/ddelta %.10g, pi %.10g",
                    l, x, dU, pi);
    }
  }
  cmpl_params sd = {.law = CSIM_MODEL_SPRING_DAMPER, .k = 1e5, .blend = CMPL_BLEND_DEPTH};
  double e5 = 5 * CMPL_BLEND_DEPTH;
  double lo = cmpl_elastic(&sd, e5 * (1 - 1e-12)), hi = cmpl_elastic(&sd, e5);
  ck_assert_msg(fabs(hi - lo) <= 1e-8 * hi, "spring_damper at 5 eps: %.12g vs %.12g", lo, hi);
}
END_TEST

// df/dvc of every law, in each integrator's mode (tamsi: delta = delta0 - h vn; implicit Euler:
// delta fixed; semi-implicit: frozen normal force), against central differences
START_TEST(jacobians_match_finite_differences) {
  const double vcs[][3] = {{0.01, -0.02, -0.05}, {2e-4, 1e-4, 0.01}, {-3e-5, 2e-5, -0.1},
                           {0.3, 0.1, 0.02},     {0, 0, -0.02},      {4e-4, -2e-4, 0.004}};
  int nchecked = 0;
  for (int law = CSIM_MODEL_HUNT_CROSSLEY; law <= CSIM_MODEL_SQRT_SPRING; law++)
    for (int mode = 0; mode < 3; mode++) {
      cmpl_params p = {.law = (csim_model)law, .mu = 0.5, .k = 1e5, .d = 0.3, .vs = 1e-3,
                       .kt = 1e4, .bt = 100, .blend = 1e-3};
      if (law == CSIM_MODEL_SPRING_DAMPER || law == CSIM_MODEL_SQRT_SPRING) p.d = 40;
      cmpl_point pt = {.delta0 = 2e-4, .h = 1e-3, .x0 = {1e-5, -2e-5}};
      if (mode == 0) pt.hpen = 1e-3;
      if (mode == 2) {
        pt.frozen = 1;
        pt.pi0 = 12.5;
      }
      for (size_t t = 0; t < sizeof(vcs) / sizeof(vcs[0]); t++) {
        cmpl_eval e, ep, em;
        cmpl_force(&p, &pt, vcs[t], &e);
        for (int j = 0; j < 3; j++) {
          double vp[3], vm[3], eps = 1e-8;
          memcpy(vp, vcs[t], sizeof(vp));
          memcpy(vm, vcs[t], sizeof(vm));
          vp[j] += eps;
          vm[j] -= eps;
          cmpl_force(&p, &pt, vp, &ep);
          cmpl_force(&p, &pt, vm, &em);
          for (int i = 0; i < 3; i++) {
            double fd = (ep.f[i] - em.f[i]) / (2 * eps);
            double scale = 1 + fabs(fd) + fabs(e.dfdv[3 * i + j]);
            ck_assert_msg(fabs(fd - e.dfdv[3 * i + j]) < 1e-5 * scale,
                          "law %d mode %d case %zu df%d/dv%d: analytic %g, differences %g", law,
                          mode, t, i, j, e.dfdv[3 * i + j], fd);
            nchecked++;
          }
        }
      }
    }
  ck_assert_int_eq(nchecked, 4 * 3 * 6 * 9);
}
END_TEST

// TALS (001 Sec. III-A, Fig. 3): an update crossing the stiction region stops at the point of the
// segment closest to its centre; outside it, direction changes are limited to theta_max
START_TEST(tals_limits_transitions) {
  double vs = 1e-4;
  // from sliding at +1e-2 to -1e-2 along x: crosses the region, stops at 0 (alpha = 1/2)
  double v[2] = {1e-2, 0}, dv[2] = {-2e-2, 5e-5};
  double a = cmpl_tals_alpha(v, dv, vs, CMPL_THETA_MAX);
  ck_assert_double_eq_tol(a, -(v[0] * dv[0] + v[1] * dv[1]) / (dv[0] * dv[0] + dv[1] * dv[1]),
                          1e-15);
  ck_assert_double_lt(hypot(v[0] + a * dv[0], v[1] + a * dv[1]), vs);
  // from inside, or landing inside: no limit
  double vin[2] = {5e-5, 0}, dvin[2] = {1.0, 0.5};
  ck_assert_double_eq(cmpl_tals_alpha(vin, dvin, vs, CMPL_THETA_MAX), 1);
  double dvland[2] = {-1e-2 + 3e-5, 0};
  ck_assert_double_eq(cmpl_tals_alpha(v, dvland, vs, CMPL_THETA_MAX), 1);
  // a 120-degree turn outside the region: limited to exactly theta_max
  double w[2] = {1e-2, 0}, dw[2] = {1e-2 * (cos(2.0944) - 1), 1e-2 * sin(2.0944)};
  a = cmpl_tals_alpha(w, dw, vs, CMPL_THETA_MAX);
  ck_assert_double_lt(a, 1);
  double w1[2] = {w[0] + a * dw[0], w[1] + a * dw[1]};
  ck_assert_double_eq_tol(atan2(w1[1], w1[0]), CMPL_THETA_MAX, 1e-12);
  // a small turn is not limited
  double ds[2] = {0, 1e-3};
  ck_assert_double_eq(cmpl_tals_alpha(w, ds, vs, CMPL_THETA_MAX), 1);
}
END_TEST

//---------------------------------- analytic solutions ----------------------------------------

// rebound speed of the Hunt-Crossley law f = k delta (1 + d ddelta) for an impact at speed v0:
// integrating m u du = -k delta (1 + d u) d(delta) from u = v0 to u = -v_out at delta = 0 gives
// d (u_out - v0) = ln((1 + d u_out) / (1 + d v0)), independent of k and m; bisection on
// u_out in (-1/d, 0), where the left side minus the right decreases monotonically
static double hc_rebound(double d, double v0) {
  double lo = -1 / d + 1e-15, hi = 0;
  for (int it = 0; it < 200; it++) {
    double u = 0.5 * (lo + hi);
    double F = d * (u - v0) - log((1 + d * u) / (1 + d * v0));
    if (F > 0) lo = u; else hi = u;
  }
  return -0.5 * (lo + hi);
}

// a 1 kg ball of radius 5 cm, written into a fresh temporary directory (g_tmp, support.h)
static void write_ball(char* path, size_t n) {
  tmp_setup();
  tmp_path(path, n, "ball.urdf");
  write_text(path,
             "<?xml version=\"1.0\"?>\n<robot name=\"ball\"><link name=\"ball\"><inertial>"
             "<mass value=\"1.0\"/><inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.001\" iyz=\"0\" "
             "izz=\"0.001\"/></inertial><collision><geometry><sphere radius=\"0.05\"/></geometry>"
             "</collision></link></robot>\n");
}

// a ball dropped on the plane with Hunt-Crossley damping d rebounds with the coefficient of
// restitution of the analytic solution (TAMSI, h = 1e-5 s, no gravity, frictionless)
START_TEST(ball_restitution_matches_hunt_crossley) {
  char urdf[256];
  write_ball(urdf, sizeof(urdf));
  const double ds[] = {0.0, 0.2, 0.5};
  for (int k = 0; k < 3; k++) {
    char y[2048];
    snprintf(y, sizeof(y),
             "name: t\nworld: {gravity: [0, 0, 0], ground: {type: plane}}\n"
             "robots:\n  - urdf: %s\n    base: free\n"
             "    q0: [0, 0, 0.0505, 0, 0, 0, 1]\n    v0: [0, 0, -1, 0, 0, 0]\n"
             "contact: {model: hunt_crossley, friction: 0, stiffness: 1.0e+4, damping: %g}\n"
             "integrator: {scheme: tamsi, dt: 1.0e-5, duration: 0.05}\n",
             urdf, ds[k]);
    scn_config* cfg;
    sim* s = make_sim(y, &cfg);
    sim_stepinfo info;
    long n = lround(cfg->duration / cfg->dt);
    int touched = 0;
    for (long i = 0; i < n; i++) {
      step_ok(s, &info);
      touched |= info.ncon > 0 && s->data.cmpl->pen_max > 0;
    }
    double e = s->data.d->v[2] / 1.0;  // rebound speed over impact speed 1 m/s
    double want = ds[k] > 0 ? hc_rebound(ds[k], 1.0) : 1.0;
    ck_assert_msg(touched, "the ball never touched");
    ck_assert_msg(fabs(e - want) < 2e-3, "d = %g: restitution %.5f, analytic %.5f", ds[k], e, want);
    free_sim(s, cfg);
  }
  tmp_teardown();
}
END_TEST

// the energy audit counts the contact spring's energy: a ball hitting the plane at 1 m/s with
// an undamped Hunt-Crossley spring (d = 0, no gravity, frictionless, TAMSI at 1e-5 s) keeps the
// total the step reports (kinetic + potential, which holds 1/2 k delta^2) at 1/2 m v0^2 = 0.5 J
// through the impact; at the deepest point the spring holds all of it (delta_max = v0
// sqrt(m / k), the closed form of an undamped spring), and the audit flags nothing
START_TEST(ball_energy_counts_the_spring) {
  char urdf[256];
  write_ball(urdf, sizeof(urdf));
  char y[2048];
  snprintf(y, sizeof(y),
           "name: t\nworld: {gravity: [0, 0, 0], ground: {type: plane}}\n"
           "robots:\n  - urdf: %s\n    base: free\n"
           "    q0: [0, 0, 0.0505, 0, 0, 0, 1]\n    v0: [0, 0, -1, 0, 0, 0]\n"
           "contact: {model: hunt_crossley, friction: 0, stiffness: 1.0e+4, damping: 0}\n"
           "integrator: {scheme: tamsi, dt: 1.0e-5, duration: 0.05}\n",
           urdf);
  scn_config* cfg;
  sim* s = make_sim(y, &cfg);
  sim_stepinfo info;
  long n = lround(cfg->duration / cfg->dt);
  double worst = 0, upeak = 0, kmin = INFINITY;
  for (long i = 0; i < n; i++) {
    step_ok(s, &info);
    worst = fmax(worst, fabs(info.kinetic + info.potential - 0.5));
    if (info.potential > upeak) upeak = info.potential;
    kmin = fmin(kmin, info.kinetic);
  }
  double dmax = 1.0 * sqrt(1.0 / 1e4);  // 1 cm
  ck_assert_msg(kmin < 1e-3, "the ball never stopped: kinetic energy at least %g J", kmin);
  ck_assert_msg(fabs(upeak - 0.5 * 1e4 * dmax * dmax) < 5e-3, "spring energy at the deepest "
                "point %.6g J, closed form %.6g J", upeak, 0.5 * 1e4 * dmax * dmax);
  ck_assert_msg(worst < 5e-3, "kinetic + potential strays %.3g J from 0.5 J", worst);
  ck_assert_int_eq(s->data.energy.flagged, 0);
  free_sim(s, cfg);
  tmp_teardown();
}
END_TEST

// root of f(delta) = target by bisection on [0, hi] (f increasing)
static double solve_incr(double (*f)(double), double target, double hi) {
  double lo = 0;
  for (int it = 0; it < 200; it++) {
    double m = 0.5 * (lo + hi);
    if (f(m) < target) lo = m; else hi = m;
  }
  return 0.5 * (lo + hi);
}

static double sd_static(double delta) {  // spring_damper at rest, k = 1e5
  return 1e5 * delta * tanh(2 * delta / CMPL_BLEND_DEPTH);
}

// a box resting on the plane settles to the static penetration of its law: m g / (4 k) per corner
// for the linear laws (hunt_crossley, bristle), k delta tanh(2 delta / eps) = m g / 4
// (spring_damper), k delta^1.5 = m g / 4 (sqrt_spring); the contact impulses carry the weight
// (lambda = f dt) and eps_abs of those impulses is small at rest
START_TEST(box_settles_to_static_penetration) {
  const char* laws[] = {"hunt_crossley", "spring_damper", "bristle", "sqrt_spring"};
  double W4 = BOX_M * G98 / 4;
  for (int law = 0; law < 4; law++) {
    char contact[256], y[2048];
    snprintf(contact, sizeof(contact),
             "model: %s, friction: 0.5, stiffness: 1.0e+5, damping: %s", laws[law],
             law == 1 || law == 3 ? "20" : "5");
    box_yaml(y, sizeof(y), contact, "scheme: tamsi, dt: 5.0e-3, duration: 2", 0.02, NULL);
    scn_config* cfg;
    sim* s = make_sim(y, &cfg);
    sim_stepinfo info;
    for (int i = 0; i < 400; i++) step_ok(s, &info);
    double want = law == 1 ? solve_incr(sd_static, W4, 1e-2)
                  : law == 3 ? pow(W4 / 1e5, 2.0 / 3.0)
                             : W4 / 1e5;
    ck_assert_int_eq(info.ncon, 4);
    double fn = 0;
    for (int i = 0; i < 4; i++) {
      double dep = s->data.con->con[i].depth;
      ck_assert_msg(fabs(dep - want) < 1e-6 * want + 1e-12, "%s: depth %.9g, static %.9g",
                    laws[law], dep, want);
      fn += s->data.con->lambda[3 * i + 2] / cfg->dt;
    }
    ck_assert_msg(fabs(fn - 4 * W4) < 1e-6 * W4, "%s: normal force %g, weight %g", laws[law], fn,
                  4 * W4);
    ck_assert_msg(info.solve.eps_abs < 1e-5, "%s: eps_abs %g at rest", laws[law],
                  info.solve.eps_abs);
    free_sim(s, cfg);
  }
}
END_TEST

// the bristle state is carried between steps by contact id: under a constant horizontal force
// F < mu m g the box sticks with a deflection x = F / (4 kt) per corner (bristle) or
// F / (4 kt sqrt(delta)) (sqrt_spring), and does not creep
START_TEST(bristle_state_holds_the_box) {
  double F = 1.0, W4 = BOX_M * G98 / 4;
  for (int law = 0; law < 2; law++) {
    char contact[256], y[2048];
    snprintf(contact, sizeof(contact),
             "model: %s, friction: 0.5, stiffness: 1.0e+5, damping: %s, "
             "friction_stiffness: 1.0e+4, friction_damping: 100",
             law == 0 ? "bristle" : "sqrt_spring", law == 0 ? "5" : "20");
    double delta = law == 0 ? W4 / 1e5 : pow(W4 / 1e5, 2.0 / 3.0);
    box_yaml(y, sizeof(y), contact, "scheme: tamsi, dt: 2.0e-3, duration: 2", 0.02 - delta,
             "actions:\n  - {type: force, body: box, direction: [1, 0, 0], "
             "point: [0, 0, -0.02], magnitude: 1.0}\n");
    scn_config* cfg;
    sim* s = make_sim(y, &cfg);
    sim_stepinfo info;
    for (int i = 0; i < 1500; i++) step_ok(s, &info);
    double x1 = s->data.d->q[0];
    for (int i = 0; i < 500; i++) step_ok(s, &info);
    double want = law == 0 ? F / (4 * 1e4) : F / (4 * 1e4 * sqrt(delta));
    const cmpl_data* c = s->data.cmpl;
    ck_assert_int_eq(c->nprev, 4);
    ck_assert_int_eq(c->nstick, 4);
    for (int j = 0; j < 4; j++) {
      const double* xw = c->prev_x + 3 * j;  // world deflection of each corner
      ck_assert_msg(fabs(xw[0] - want) < 1e-3 * want && fabs(xw[1]) < 1e-9,
                    "law %d corner %d: deflection %g %g, expected %g", law, j, xw[0], xw[1], want);
    }
    ck_assert_msg(fabs(s->data.d->q[0] - x1) < 1e-10, "law %d: box crept %g m in 1 s", law,
                  s->data.d->q[0] - x1);
    free_sim(s, cfg);
  }
}
END_TEST

//---------------------------------- 001 experiments -------------------------------------------

// reference velocity of the stick-slip box: m dv/dt = 4 sin(2 pi t) - mu~(|v|/vs) m g sgn(v),
// RK4 with h = 2e-6 s, sampled every 10 ms (201 values from t = 0)
static void stick_slip_reference(double* vref) {
  const double m = BOX_M, W = BOX_M * G98, vs = 1e-4, h = 2e-6;
  double v = 0, t = 0;
  vref[0] = 0;
  for (int k = 1; k <= 200; k++) {
    for (int i = 0; i < 5000; i++) {
      double kk[4], vv = v, tt = t;
      for (int st = 0; st < 4; st++) {
        double s = fabs(vv) / vs, mut = s < 1 ? s : 1;
        kk[st] = (4 * sin(2 * M_PI * tt) - mut * W * (vv > 0 ? 1 : vv < 0 ? -1 : 0)) / m;
        double c = st < 2 ? 0.5 : 1;
        if (st < 3) {
          vv = v + c * h * kk[st];
          tt = t + c * h;
        }
      }
      v += h / 6 * (kk[0] + 2 * kk[1] + 2 * kk[2] + kk[3]);
      t += h;
    }
    vref[k] = v;
  }
}

// run scenarios/stick_slip_box.yaml at step h; v sampled every 10 ms into v (201 values);
// returns the number of steps whose Newton iteration failed on the whole step (halved or not
// converged); *itmax the most iterations of a step
static int run_stick_slip(double h, int tals, double* v, int* itmax) {
  char set[64];
  snprintf(set, sizeof(set), "integrator.dt=%.17g", h);
  const char* sets[] = {set};
  csim_error err;
  scn_config* cfg = NULL;
  sim* s = NULL;
  ck_assert_int_eq(scn_load("scenarios/stick_slip_box.yaml", sets, 1, &cfg, &err), CSIM_OK);
  ck_assert_int_eq(sim_create(cfg, &s, &err), CSIM_OK);
  s->opt.cmpl.line_search = tals ? CSIM_LS_TALS : CSIM_LS_NONE;  // TALS and backtracking, or none
  long n = lround(2.0 / h), every = lround(0.01 / h);
  int bad = 0;
  *itmax = 0;
  v[0] = s->data.d->v[0];
  sim_stepinfo info;
  for (long k = 1; k <= n; k++) {
    step_ok(s, &info);
    if (s->data.cmpl->substeps > 1 || !s->data.cmpl->converged) bad++;
    if (info.solve.iterations > *itmax) *itmax = info.solve.iterations;
    if (k % every == 0) v[k / every] = s->data.d->v[0];
  }
  free_sim(s, cfg);
  return bad;
}

// 001 Sec. IV-A, Figs. 4-5, 8: at h = 10 ms TAMSI with TALS converges at every step (without TALS
// Newton misses stiction and fails); the velocity matches the regularized ODE with first-order
// convergence in h (fitted slope of the RMS error over h = 10, 5, 2.5 ms)
START_TEST(stick_slip_box_tamsi_converges_first_order) {
  static double vref[201], v[201];
  stick_slip_reference(vref);
  const double hs[] = {1e-2, 5e-3, 2.5e-3};
  double err[3], lh[3];
  for (int k = 0; k < 3; k++) {
    int itmax;
    int bad = run_stick_slip(hs[k], 1, v, &itmax);
    ck_assert_msg(bad == 0, "h = %g: %d steps did not converge on the whole step", hs[k], bad);
    ck_assert_msg(itmax <= 10, "h = %g: %d Newton iterations on a step", hs[k], itmax);
    double acc = 0;
    for (int i = 0; i <= 200; i++) acc += (v[i] - vref[i]) * (v[i] - vref[i]);
    err[k] = sqrt(acc / 201);
    lh[k] = log(hs[k]);
  }
  // least-squares slope of log(err) against log(h)
  double mx = (lh[0] + lh[1] + lh[2]) / 3, my = (log(err[0]) + log(err[1]) + log(err[2])) / 3;
  double sxy = 0, sxx = 0;
  for (int k = 0; k < 3; k++) {
    sxy += (lh[k] - mx) * (log(err[k]) - my);
    sxx += (lh[k] - mx) * (lh[k] - mx);
  }
  double slope = sxy / sxx;
  ck_assert_msg(slope > 0.9 && slope < 1.1, "slope %.3f (errors %.3g %.3g %.3g)", slope, err[0],
                err[1], err[2]);
  ck_assert_msg(err[0] < 2e-2 && err[2] < 5e-3, "errors %.3g %.3g %.3g m/s", err[0], err[1],
                err[2]);
  // plain Newton (no TALS, no backtracking) fails at slip-stick transitions (001 Fig. 4, top)
  int itmax;
  int bad = run_stick_slip(1e-2, 0, v, &itmax);
  ck_assert_msg(bad > 0, "plain Newton converged on every step (max %d iterations)", itmax);
}
END_TEST

// 001 Sec. VI-A: the gripper holds the 100 g mug while shaken at T = 0.5 s, A = 15 cm, for 5 s
// (TAMSI, h = 3 ms): every step converges on the whole step, the four finger contacts persist and
// the mug stays within 2 cm of its place between the fingers
START_TEST(gripper_holds_mug) {
  csim_error err;
  scn_config* cfg = NULL;
  sim* s = NULL;
  ck_assert_int_eq(scn_load("scenarios/gripper_mug.yaml", NULL, 0, &cfg, &err), CSIM_OK);
  ck_assert_int_eq(sim_create(cfg, &s, &err), CSIM_OK);
  long n = lround(cfg->duration / cfg->dt);
  ck_assert_int_eq(n, 1667);
  sim_stepinfo info;
  int jl = model_find_joint(s->model.m, "lift");
  ck_assert_int_ge(jl, 0);
  int qlift = s->model.m->jnt_qadr[jl], qmug = s->model.m->robot_qadr[1];
  double lo = 1, hi = -1, slipmax = 0;
  for (long k = 0; k < n; k++) {
    step_ok(s, &info);
    ck_assert_msg(s->data.cmpl->converged && s->data.cmpl->substeps == 1, "step %ld did not converge", k);
    ck_assert_int_eq(info.ncon, 4);
    double rel = s->data.d->q[qmug + 2] - s->data.d->q[qlift];
    if (rel < lo) lo = rel;
    if (rel > hi) hi = rel;
    if (s->data.cmpl->nstick > 0 && s->data.cmpl->stick_slip_max > slipmax) slipmax = s->data.cmpl->stick_slip_max;
    ck_assert_msg(fabs(s->data.d->q[qmug]) < 1e-3, "mug pushed sideways to x = %g", s->data.d->q[qmug]);
  }
  ck_assert_msg(lo > -0.02 && hi < 0.02, "mug slid %g .. %g m relative to the fingers", lo, hi);
  ck_assert_msg(hi - lo > 1e-3, "no slip at all (%g m): the test would not exercise transitions",
                hi - lo);
  ck_assert_double_le(slipmax, 1e-4);  // stiction creep below v_s
  free_sim(s, cfg);
}
END_TEST

//---------------------------------- every law with every integrator ---------------------------

// cube_slide, cube_drop and solo12_stand run with every law and integrator (short durations):
// no divergence, every step converges; the sliding cube stops near v0^2 / (2 mu g) = 0.170 m, the
// dropped cube (given some contact damping: the scenario's laws would be elastic) comes to rest
// on a face, Solo-12 keeps its base up
START_TEST(every_law_with_every_integrator) {
  const char* laws[] = {"hunt_crossley", "spring_damper", "bristle", "sqrt_spring"};
  const char* schemes[] = {"semi_implicit", "tamsi", "implicit_euler"};
  const char* files[] = {"scenarios/cube_slide.yaml", "scenarios/cube_drop.yaml",
                         "scenarios/solo12_stand.yaml"};
  const char* durs[] = {"integrator.duration=0.6", "integrator.duration=1.0",
                        "integrator.duration=0.05"};
  const char* damping[] = {"contact.damping=2", "contact.damping=500", "contact.damping=2",
                           "contact.damping=5000"};
  for (int sc = 0; sc < 3; sc++)
    for (int law = 0; law < 4; law++)
      for (int k = 0; k < 3; k++) {
        char m[64], sch[64];
        snprintf(m, sizeof(m), "contact.model=%s", laws[law]);
        snprintf(sch, sizeof(sch), "integrator.scheme=%s", schemes[k]);
        const char* sets[] = {m, sch, durs[sc], damping[law]};
        csim_error err;
        scn_config* cfg = NULL;
        sim* s = NULL;
        ck_assert_int_eq(scn_load(files[sc], sets, sc == 1 ? 4 : 3, &cfg, &err), CSIM_OK);
        ck_assert_msg(sim_create(cfg, &s, &err) == CSIM_OK, "%s %s %s: %s", files[sc], laws[law],
                      schemes[k], err.msg);
        long n = lround(cfg->duration / cfg->dt);
        sim_stepinfo info;
        int nonconv = 0;
        for (long i = 0; i < n; i++) {
          memset(&info, 0, sizeof(info));
          csim_status st = sim_step(s, &info, &err);
          ck_assert_msg(st == CSIM_OK, "%s %s %s step %ld: %s", files[sc], laws[law], schemes[k],
                        i, err.msg);
          nonconv += !s->data.cmpl->converged;
        }
        ck_assert_msg(nonconv == 0, "%s %s %s: %d steps did not converge", files[sc], laws[law],
                      schemes[k], nonconv);
        const double* q = s->data.d->q;
        if (sc == 0)
          ck_assert_msg(fabs(q[1] - 0.170) < 0.008 && fabs(s->data.d->v[1]) < 0.03,
                        "%s %s: stopped at y = %g with v = %g", laws[law], schemes[k], q[1],
                        s->data.d->v[1]);
        if (sc == 1)
          ck_assert_msg(fabs(q[2] - 0.05) < 0.01 && fabs(s->data.d->v[2]) < 0.05,
                        "%s %s: cube at z = %g, vz = %g", laws[law], schemes[k], q[2],
                        s->data.d->v[2]);
        if (sc == 2)
          ck_assert_msg(q[2] > 0.15, "%s %s: Solo-12 base at z = %g", laws[law], schemes[k],
                        q[2]);
        free_sim(s, cfg);
      }
}
END_TEST

// sim_step allocates nothing with any integrator, with the stateful bristle law, once running
START_TEST(step_does_not_allocate) {
#ifdef CSIM_TEST_ASAN
  fprintf(stderr, "step_does_not_allocate: skipped under AddressSanitizer (it owns malloc)\n");
#else
  // and implicit Euler with quasi-Newton, and error control (tamsi: step doubling)
  const char* schemes[] = {"integrator.scheme=semi_implicit", "integrator.scheme=tamsi",
                           "integrator.scheme=implicit_euler", "integrator.scheme=implicit_euler",
                           "integrator.scheme=tamsi"};
  const char* extra[] = {"integrator.jacobian=full", "integrator.jacobian=full",
                         "integrator.jacobian=quasi_newton", "integrator.accuracy=1e-3",
                         "integrator.accuracy=1e-3"};
  for (int k = 0; k < 5; k++) {
    const char* sets[] = {"contact.model=bristle", schemes[k], "integrator.dt=1e-3", extra[k]};
    csim_error err;
    scn_config* cfg = NULL;
    sim* s = NULL;
    ck_assert_int_eq(scn_load("scenarios/gripper_mug.yaml", sets, 4, &cfg, &err), CSIM_OK);
    ck_assert_int_eq(sim_create(cfg, &s, &err), CSIM_OK);
    sim_stepinfo info;
    for (int i = 0; i < 10; i++) step_ok(s, &info);
    // no ck_assert inside the counted loop: Check's assertions themselves allocate (fork mode
    // reports every passed assertion to the parent)
    long before = g_nalloc;
    int bad = 0;
    for (int i = 0; i < 200; i++) bad |= sim_step(s, &info, &err) != CSIM_OK;
    long after = g_nalloc;
    ck_assert_int_eq(bad, 0);
    ck_assert_msg(after == before, "%s %s: %ld allocations in 200 steps", schemes[k], extra[k],
                  after - before);
    ck_assert_int_eq(info.ncon, 4);
    free_sim(s, cfg);
  }
#endif
}
END_TEST

//---------------------------------- input and output ------------------------------------------

// law-specific nonsense is an input error (exit 2); solver.name is ignored by compliant laws
START_TEST(nonsense_is_input_error) {
  const char* bad[][2] = {
      {"model: bristle, friction_damping: 0", "contact.friction_damping"},
      {"model: sqrt_spring, friction_damping: 0", "contact.friction_damping"},
      {"model: hunt_crossley, restitution: 0.5", "contact.restitution"},
      {"model: spring_damper, compliance: 0.1", "contact.compliance"},
  };
  for (int k = 0; k < 4; k++) {
    char y[2048];
    box_yaml(y, sizeof(y), bad[k][0], "dt: 1.0e-3", 0.02, NULL);
    csim_error err;
    err_clear(&err);
    scn_config* cfg = NULL;
    sim* s = NULL;
    ck_assert_int_eq(scn_load_string(y, "test_compliant.yaml", NULL, 0, &cfg, &err), CSIM_OK);
    ck_assert_int_eq(sim_create(cfg, &s, &err), CSIM_ERR_INPUT);
    ck_assert_ptr_null(s);
    ck_assert_str_eq(err.key, bad[k][1]);
    scn_free(cfg);
  }
  // any solver name is accepted (and ignored) with a compliant law
  char y[2048];
  box_yaml(y, sizeof(y), "model: hunt_crossley", "dt: 1.0e-3", 0.02, NULL);
  strcat(y, "");
  scn_config* cfg;
  const char* sets[] = {"solver.name=pgs"};
  csim_error err;
  ck_assert_int_eq(scn_load_string(y, "test_compliant.yaml", sets, 1, &cfg, &err), CSIM_OK);
  sim* s = NULL;
  ck_assert_int_eq(sim_create(cfg, &s, &err), CSIM_OK);
  ck_assert_ptr_null(s->data.slv);
  ck_assert_ptr_nonnull(s->data.cmpl);
  free_sim(s, cfg);
}
END_TEST

// csim run writes the /compliant datasets, one row per step, /compliant/bristle aligned with the
// /contacts rows; non-convergence follows solver.on_failure (stop: exit 1, continue: flagged)
START_TEST(run_writes_compliant_output) {
  char out[128];
  snprintf(out, sizeof(out), P_tmpdir "/csim_test_compliant_%d.h5", (int)getpid());
  char* argv[] = {"scenarios/gripper_mug.yaml", "--set", "integrator.duration=0.3",
                  "--set", "contact.model=bristle", "--out", out, "--quiet"};
  hid_t f = cli_run_open(8, argv, out);
  static int it[200], count[200], sub[200];
  static double x[3 * 200 * 8], res[200], pmax[200];
  ck_assert_int_eq(h5_read(f, "/compliant/newton_iterations", NULL, it, 200, NULL), 100);
  ck_assert_int_eq(h5_read(f, "/compliant/substeps", NULL, sub, 200, NULL), 100);
  ck_assert_int_eq(h5_read(f, "/compliant/newton_residual", res, NULL, 200, NULL), 100);
  ck_assert_int_eq(h5_read(f, "/compliant/penetration_max", pmax, NULL, 200, NULL), 100);
  ck_assert_int_eq(h5_read(f, "/contacts/count", NULL, count, 200, NULL), 100);
  long rows = h5_read(f, "/compliant/bristle", x, NULL, 3 * 200 * 8, NULL);
  long total = 0;
  for (int k = 0; k < 100; k++) {
    total += count[k];
    ck_assert_int_eq(sub[k], 1);
    ck_assert_double_le(res[k], 1e-10);
    ck_assert_double_gt(pmax[k], 0);
  }
  ck_assert_int_eq(rows, total);
  int moved = 0;
  for (long r = 0; r < rows; r++) moved |= fabs(x[3 * r]) + fabs(x[3 * r + 1]) > 0;
  ck_assert_msg(moved, "the bristle state is zero throughout");
  H5Fclose(f);

  // an unreachable Newton tolerance: stop -> exit 1, continue -> exit 0 with the steps flagged
  char* stop[] = {"scenarios/stick_slip_box.yaml", "--set", "integrator.duration=0.05",
                  "--set", "integrator.newton_tolerance=1e-300", "--set",
                  "solver.on_failure=stop", "--out", out, "--quiet"};
  ck_assert_int_eq(cli_run(10, stop), 1);
  stop[6] = "solver.on_failure=continue";
  ck_assert_int_eq(cli_run(10, stop), 0);
  f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  static int conv[16];
  hid_t d = H5Dopen2(f, "/compliant/newton_converged", H5P_DEFAULT);
  ck_assert_int_ge(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, conv), 0);
  H5Dclose(d);
  for (int k = 0; k < 5; k++) ck_assert_int_eq(conv[k], 0);
  H5Fclose(f);
  unlink(out);
}
END_TEST

static Suite* compliant_suite(void) {
  Suite* s = suite_create("compliant");
  TCase* t = tcase_create("laws");
  tcase_add_test(t, hunt_crossley_matches_formula);
  tcase_add_test(t, other_laws_match_formulas);
  tcase_add_test(t, jacobians_match_finite_differences);
  tcase_add_test(t, tals_limits_transitions);
  tcase_add_test(t, elastic_energy_integrates_the_spring);
  suite_add_tcase(s, t);
  TCase* r = tcase_create("runs");
  tcase_set_timeout(r, 120);
  tcase_add_test(r, ball_restitution_matches_hunt_crossley);
  tcase_add_test(r, ball_energy_counts_the_spring);
  tcase_add_test(r, box_settles_to_static_penetration);
  tcase_add_test(r, bristle_state_holds_the_box);
  tcase_add_test(r, stick_slip_box_tamsi_converges_first_order);
  tcase_add_test(r, gripper_holds_mug);
  tcase_add_test(r, every_law_with_every_integrator);
  tcase_add_test(r, step_does_not_allocate);
  tcase_add_test(r, nonsense_is_input_error);
  tcase_add_test(r, run_writes_compliant_output);
  suite_add_tcase(s, r);
  return s;
}

int main(void) {
  return run_suite(compliant_suite());
}
