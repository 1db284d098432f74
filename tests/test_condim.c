// test_condim.c — MJCF condim 4 (torsional friction) and 6 (rolling friction): contact.h's spin
// entries in the generalized cone of cone.h, against closed forms.
//
// A cylinder (radius 0.1 m, 1 kg) resting on its flat face and spinning about its vertical axis
// at 10 rad/s, sliding friction 0 (contact.friction 0), so that nothing but the torsional rows
// resists the spin: each contact's torsion is at most mu_t N_i, together mu_t m g whatever the
// number of contacts, so the spin falls at the constant rate mu_t m g / I (I = m r^2 / 2) and
// stops at t* = w0 I / (mu_t m g) (hand computed: 0.5097 s for mu_t 0.01). With condim 3 nothing
// resists it. A sphere (r 0.1 m) rolling without slipping on condim 6 with rolling coefficient
// mu_r: the rolling torque mu_r m g opposes the roll, so m dv = F, I dw = -r F - mu_r m g and
// v = w r give dv/dt = -mu_r m g r / (I + m r^2) = -5 mu_r g / (7 r) (I = 2/5 m r^2).
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim.h"
#include "core/solvers/cone.h"
#include "core/state.h"
#include "io/compile.h"
#include "io/scenario.h"
#include "scene_fixture.h"
#include "support.h"

#define G 9.81

// a cylinder or a sphere on the file's floor plane (scene_fixture.h)
static void write_model(const char* geom, int cd, double mu_t, double mu_r) {
  fixture_condim_xml(geom, cd, mu_t, mu_r);
}

// two boxes stacked on the floor, the lower of half side 0.1 m, the upper of 0.05 m (1 kg each),
// every geom condim 4 with torsional coefficient mu_t
static void write_stack(double mu_t) {
  char xml[1024];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='0.001'/><worldbody>"
           "<geom name='floor' type='plane' size='5 5 0.1' condim='4' friction='1 %g 0'/>"
           "<body name='b1'><freejoint/>"
           "<geom type='box' size='0.1 0.1 0.1' mass='1' condim='4' friction='1 %g 0'/></body>"
           "<body name='b2'><freejoint/>"
           "<geom type='box' size='0.05 0.05 0.05' mass='1' condim='4' friction='1 %g 0'/></body>"
           "</worldbody></mujoco>",
           mu_t, mu_t, mu_t);
  tmp_write_text("m.xml", xml);
}

// the scenario of m.xml: model/solver, contact.friction mu, the robot's q0 and v0 (YAML lists),
// dt 1 ms
static char* scenario_text(char* buf, size_t n, const char* model, const char* slv, double mu,
                           const char* q0, const char* v0) {
  snprintf(buf, n,
           "name: condim\nworld: {gravity: [0, 0, -%g], ground: {type: none}}\nrobots:\n"
           "  - mjcf: m.xml\n    q0: %s\n    v0: %s\n"
           "contact: {model: %s, friction: %g}\n"
           "solver: {name: %s, tolerance: 1.0e-12, max_iterations: 20000}\n"
           "integrator: {dt: 1.0e-3, duration: 2}\n",
           G, q0, v0, model, mu, slv);
  return buf;
}

static fixture make_text(const char* model, const char* slv, double mu, const char* q0,
                         const char* v0) {
  char yaml[1024], path[512];
  scenario_text(yaml, sizeof(yaml), model, slv, mu, q0, v0);
  return fixture_text(yaml, tmp_path(path, sizeof(path), "c.yaml"), NULL, 0);
}

// m.xml's one body at height z0 with velocity v0 (6)
static fixture make(const char* model, const char* slv, double mu, const double v0[6], double z0) {
  char q0[128], v[256];
  snprintf(q0, sizeof(q0), "[0, 0, %.17g, 0, 0, 0, 1]", z0);
  snprintf(v, sizeof(v), "[%g, %g, %g, %g, %g, %g]", v0[0], v0[1], v0[2], v0[3], v0[4], v0[5]);
  return make_text(model, slv, mu, q0, v);
}

// n steps (adding up the islands auto handed to ADMM into *switched when not NULL); under ncp
// each answer an NCP solution of the generalized cone (eps_abs over the
// spin entries too). The CCP's answer to a torsional slip is not one (it lifts the normal by
// ||a c_f||, as for a sliding contact): its own residual converged is what it is held to
static void steps_counted(fixture* f, int n, long* switched) {
  sim_stepinfo info;
  csim_error e;
  int ncp = f->s->opt.solver.model == CSIM_MODEL_NCP;
  for (int k = 0; k < n; k++) {
    ck_assert_msg(sim_step(f->s, &info, &e) == CSIM_OK, "step %d: %s", k, e.msg);
    ck_assert_msg(ncp ? info.solve.eps_abs < 1e-9 : info.solve.residual < 1e-6,
                  "step %d: eps_abs %g, own residual %g", k, info.solve.eps_abs,
                  info.solve.residual);
    if (switched) *switched += info.solve.switched;
  }
}

static void steps(fixture* f, int n) {
  steps_counted(f, n, NULL);
}

// the cylinder's spin (body axes z = world z: it stays upright) after n steps
static double spin_after(fixture* f, int n) {
  steps(f, n);
  return f->s->data.d->v[5];
}

static const char* const kPairs[][2] = {
    {"ncp", "pgs"}, {"ccp", "pgs"}, {"ncp", "auto"}, {"ncp", "admm"}, {"ccp", "admm"}};

// ncp (pgs, admm, auto): the closed form. ccp (pgs, admm; rigid): the CCP's answer to a
// torsional slip lifts the normal velocity by mu_t |w| (K ∋ lambda ⊥ c ∈ K* without De Saxce's
// term, as for a sliding contact, 000 eq. 15), so the cylinder hops and slows less (measured
// w(0.25 s) 6.005 instead of 5.095): held only to stopping by 2 t* (its MuJoCo-soft form is
// compared with MuJoCo in test_mujoco_condim.c)
START_TEST(cylinder_spin_stops) {
  const double mu_t = 0.01, w0 = 10, r = 0.1, I = 0.5 * r * r, alpha = mu_t * G / I;
  const double tstop = w0 / alpha;  // 0.5097 s
  write_model("cylinder' size='0.1 0.05", 4, mu_t, 0);
  const double v0[6] = {0, 0, 0, 0, 0, w0};
  fixture f = make(kPairs[_i][0], kPairs[_i][1], 0, v0, 0.05);
  if (!strcmp(kPairs[_i][0], "ccp")) {
    double w1 = spin_after(&f, 250), w2 = spin_after(&f, (int)(2 * tstop / 1e-3) - 250);
    fprintf(stderr, "ccp/%s cylinder condim 4: w(0.25 s) %.4f, w(2 t*) %.3g rad/s\n",
            kPairs[_i][1], w1, w2);
    ck_assert_msg(w1 < w0 - 0.5 * alpha * 0.25 && fabs(w2) < 1e-6, "ccp: w %g %g", w1, w2);
    fixture_free(&f);
    return;
  }
  double w = spin_after(&f, 250);  // 0.25 s: w0 - alpha t
  double expect = w0 - alpha * 0.25;
  fprintf(stderr, "%s/%s cylinder condim 4: w(0.25 s) %.9f rad/s, closed form %.9f; ",
          kPairs[_i][0], kPairs[_i][1], w, expect);
  // the velocity-level step applies the bound mu_t m g h each step: exact up to the solver
  ck_assert_msg(fabs(w - expect) < 1e-6, "w(0.25) = %.12g, expected %.12g", w, expect);
  // stopped within a step of t* (510 steps) and stays stopped
  double wa = spin_after(&f, (int)ceil(tstop / 1e-3) - 250 + 1);
  double wb = spin_after(&f, 300);
  fprintf(stderr, "w(t* + 1 ms) %.3g, w(t* + 0.3 s) %.3g\n", wa, wb);
  ck_assert_msg(fabs(wa) < 1e-6 && fabs(wb) < 1e-6, "spin not stopped: %g %g", wa, wb);
  fixture_free(&f);
}
END_TEST

// write_stack's two boxes spinning as one at w0 on the floor, sliding friction 0: the floor
// slows the two at alpha = mu_t (m1 + m2) g / (I1 + I2) (a cube of half side h: I = 2 m h^2 / 3,
// 1/150 and 1/600 kg m^2), for which the upper box needs the torque I2 alpha = 0.4 mu_t m2 g from
// the lower, within its bound mu_t m2 g: the two stick and spin down together, w0 - alpha t
// (t* = 0.425 s). A contact between two free bodies couples the island: auto hands it to ADMM
// (contact.h auto_split) and must give the closed form as ncp/pgs and ncp/admm do
static const char* const kStack[] = {"pgs", "admm", "auto"};

START_TEST(stack_spin_stops) {
  const double mu_t = 0.01, w0 = 10, I1 = 2.0 * 0.01 / 3, I2 = 2.0 * 0.0025 / 3;
  const double alpha = mu_t * 2 * G / (I1 + I2), expect = w0 - alpha * 0.25;
  write_stack(mu_t);
  fixture f = make_text("ncp", kStack[_i], 0, "[0, 0, 0.1, 0, 0, 0, 1, 0, 0, 0.25, 0, 0, 0, 1]",
                        "[0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 10]");
  long switched = 0;
  steps_counted(&f, 250, &switched);
  const double* v = f.s->data.d->v;
  fprintf(stderr, "ncp/%s stack condim 4: w(0.25 s) %.9f, %.9f rad/s, closed form %.9f; %ld "
          "islands to ADMM\n", kStack[_i], v[5], v[11], expect, switched);
  ck_assert_msg(fabs(v[5] - expect) < 1e-6 && fabs(v[11] - expect) < 1e-6,
                "w(0.25) = %.12g, %.12g, expected %.12g", v[5], v[11], expect);
  ck_assert_msg(!strcmp(kStack[_i], "auto") ? switched == 250 : switched == 0,
                "%ld islands switched", switched);
  fixture_free(&f);
}
END_TEST

START_TEST(cylinder_condim3_spins_on) {
  write_model("cylinder' size='0.1 0.05", 3, 0.01, 0);
  const double v0[6] = {0, 0, 0, 0, 0, 10};
  fixture f = make("ncp", "pgs", 0, v0, 0.05);
  double w = spin_after(&f, 1000);
  fprintf(stderr, "cylinder condim 3: w(1 s) %.12f rad/s\n", w);
  ck_assert_msg(fabs(w - 10) < 1e-9, "w = %.15g", w);
  fixture_free(&f);
}
END_TEST

static const char* const kBall[] = {"pgs", "admm"};

START_TEST(ball_rolling_resistance) {
  const double mu_r = 0.002, r = 0.1, v0x = 1, a = 5 * mu_r * G / (7 * r);  // 0.1401 m/s^2
  write_model("sphere' size='0.1", 6, 0.01, mu_r);
  const double v0[6] = {v0x, 0, 0, 0, v0x / r, 0};
  fixture f = make("ncp", kBall[_i], 1, v0, r);
  steps(&f, 500);
  double v = f.s->data.d->v[0], expect = v0x - a * 0.5;
  fprintf(stderr, "ncp/%s sphere condim 6 (mu_r %g): v(0.5 s) %.6f m/s, closed form %.6f\n",
          kBall[_i], mu_r, v, expect);
  // the elliptic cone shares f_N between the friction force F = 5 T / (7 r) that keeps it
  // rolling and the torque T: maximum dissipation over (F / mu)^2 + (T / mu_r)^2 <= N^2 needs a
  // slip s with tan(theta) = mu s / (mu_r w) = F mu_r / (T mu) (1.4 %): s = 2.9e-4 m/s at
  // w = 10 rad/s, and v leads the no-slip solution by about 2/7 s = 8e-5 m/s (T itself is short
  // of mu_r N by only 1e-4 relative). Measured 1.0e-4 m/s of a 0.07 m/s decrement
  ck_assert_msg(fabs(v - expect) < 2e-4, "v(0.5) = %.9g, expected %.9g", v, expect);
  fixture_free(&f);
  if (_i > 0) return;
  // without the rolling rows (condim 3) it rolls on at v0 (measured 8e-7 m/s lost in 0.5 s: the
  // step's contact point lags the rolling sphere; no resistance of the order of the 0.07 above)
  write_model("sphere' size='0.1", 3, 0.01, mu_r);
  f = make("ncp", "pgs", 1, v0, r);
  steps(&f, 500);
  ck_assert_msg(fabs(f.s->data.d->v[0] - v0x) < 1e-5, "condim 3: v = %.12g", f.s->data.d->v[0]);
  fixture_free(&f);
}
END_TEST

// condim 4/6 under a pair without the generalized cone: refused at load (exit 2), naming the geom
// and the model and solver refused
START_TEST(refused_pairs) {
  static const char* const kBad[][2] = {
      {"lcp", "pgs"}, {"lcp", "lemke"}, {"lcp", "auto"}, {"raisim", "bisection"},
      {"raisim", "auto"}, {"ncp", "staggered"}, {"hunt_crossley", "none"}};
  const int nbad = (int)(sizeof(kBad) / sizeof(kBad[0]));
  write_model("cylinder' size='0.1 0.05", 4, 0.01, 0);
  for (int k = 0; k < nbad; k++) {
    char yaml[1024], path[512], who[64];
    scenario_text(yaml, sizeof(yaml), kBad[k][0], kBad[k][1], 0.5, "[0, 0, 0.05, 0, 0, 0, 1]",
                  "[0, 0, 0, 0, 0, 0]");
    // a rigid model's message names its solver; a compliant law has none
    snprintf(who, sizeof(who), strcmp(kBad[k][1], "none") ? "solver '%s'" : "%.0s", kBad[k][1]);
    scn_config* cfg = NULL;
    sim* s = NULL;
    csim_error e;
    err_clear(&e);
    ck_assert_int_eq(scn_load_string(yaml, tmp_path(path, sizeof(path), "c.yaml"), NULL, 0, &cfg,
                                     &e), CSIM_OK);
    ck_assert_int_eq(sim_create(cfg, &s, &e), CSIM_ERR_INPUT);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(e.msg, "geom 0 (body 'world') has condim 4") &&
                  strstr(e.msg, kBad[k][0]) && strstr(e.msg, who) &&
                  strstr(e.msg, "pgs, admm or auto under ncp or ccp"), "%s/%s: %s",
                  kBad[k][0], kBad[k][1], e.msg);
    scn_free(cfg);
  }
}
END_TEST

// solver.criterion natural holds a condim 4/6 pair to eps_abs only (solver_impl.h): the run
// says so on stderr, naming the key and the geom, and still runs (exit 0)
START_TEST(natural_criterion_warns) {
  write_model("cylinder' size='0.1 0.05", 4, 0.01, 0);
  char yaml[1024], path[512], out[512], log[4096];
  scenario_text(yaml, sizeof(yaml), "ncp", "auto", 0.5, "[0, 0, 0.05, 0, 0, 0, 1]",
                "[0, 0, 0, 0, 0, 0]");
  tmp_write_text("w.yaml", yaml);
  for (int natural = 0; natural < 2; natural++) {
    int rc = sh_fmt(log, sizeof(log), "%s run %s --set solver.criterion=%s "
                    "--set integrator.duration=0.002 --quiet --out %s", csim_bin(),
                    tmp_path(path, sizeof(path), "w.yaml"), natural ? "natural" : "ncp",
                    tmp_path(out, sizeof(out), "w.h5"));
    ck_assert_msg(rc == 0, "exit %d: %s", rc, log);
    int warned = strstr(log, "'solver.criterion': geom 0 (body 'world') has condim 4") &&
                 strstr(log, "held to eps_abs only");
    ck_assert_msg(warned == natural, "criterion %s: %s", natural ? "natural" : "ncp", log);
  }
}
END_TEST

// /contacts/moment (output.h): the spin impulses / dt of a condim 4 contact, [about n, t1, t2].
// The cylinder spinning at 10 rad/s (cylinder_spin_stops) is braked by the whole torsional
// bound: the moments of a step's contacts sum to -mu_t m g (the spin is +z, n is +z), and the
// rolling components of condim 4 are 0. A condim 3 model has no such dataset
START_TEST(moment_output) {
  const double mu_t = 0.01;
  for (int cd = 3; cd <= 4; cd++) {
    write_model("cylinder' size='0.1 0.05", cd, mu_t, 0);
    char yaml[1024], path[512], out[512], log[4096];
    scenario_text(yaml, sizeof(yaml), "ncp", "pgs", 0, "[0, 0, 0.05, 0, 0, 0, 1]",
                  "[0, 0, 0, 0, 0, 10]");
    tmp_write_text("m.yaml", yaml);
    tmp_path(out, sizeof(out), "m.h5");
    int rc = sh_fmt(log, sizeof(log), "%s run %s --set integrator.duration=0.1 --quiet --out %s",
                    csim_bin(), tmp_path(path, sizeof(path), "m.yaml"), out);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, log);
    if (cd == 3) {
      hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
      ck_assert_msg(f >= 0 && H5Lexists(f, "/contacts/moment", H5P_DEFAULT) == 0,
                    "condim 3: /contacts/moment written");
      H5Fclose(f);
      continue;
    }
    size_t rows, cols, nr, nc1, no, nc2;
    double* mo = h5_read_file(out, "/contacts/moment", &rows, &cols);
    double* cnt = h5_read_file(out, "/contacts/count", &nr, &nc1);
    double* off = h5_read_file(out, "/contacts/offset", &no, &nc2);
    ck_assert_int_eq((int)cols, 3);
    int row = 50;  // 50 ms in: spinning, resting on its face
    double s = 0, roll = 0;
    for (int k = (int)off[row]; k < (int)(off[row] + cnt[row]); k++) {
      s += mo[3 * k];
      roll = fmax(roll, fmax(fabs(mo[3 * k + 1]), fabs(mo[3 * k + 2])));
    }
    printf("condim 4 cylinder: %g contacts, moments about n sum to %.9f N m (-mu_t m g = %.9f)\n",
           cnt[row], s, -mu_t * G);
    ck_assert_msg(cnt[row] >= 3 && fabs(s + mu_t * G) < 1e-9 && roll == 0,
                  "%g contacts, sum %.12g, rolling %g", cnt[row], s, roll);
    free(mo);
    free(cnt);
    free(off);
  }
}
END_TEST

// the generalized cone's exact projection (cone.c) against closed forms: with the spin
// coefficients 0 it is cone_project's (the 3-D cone), with five equal coefficients a the round
// cone's in 6-D, onto {|f| <= a n}: f' = f s, n' = (n + a |f|) / (1 + a^2), s = a n' / |f|
// (outside both the cone and its polar); and its residuals vanish at an NCP solution
START_TEST(elliptic_projection_closed_forms) {
  unsigned seed = 7;
  for (int t = 0; t < 2000; t++) {
    double x[6], a0[5] = {0.7, 0.7, 0, 0, 0}, a1[5] = {0.7, 0.7, 0.7, 0.7, 0.7};
    for (int k = 0; k < 6; k++) x[k] = 2.0 * rand_r(&seed) / RAND_MAX - 1;
    double li[3] = {x[0], x[1], x[2]}, lj[3] = {x[3], x[4], x[5]}, p3[3];
    cone_ell_project(li, lj, a0);
    cone_project(p3, x, 0.7);
    for (int k = 0; k < 3; k++)
      ck_assert_msg(fabs(li[k] - p3[k]) < 1e-12, "3-D case %d: x %g %g %g: %g %g %g vs %g %g %g", t,
                    x[0], x[1], x[2], li[0], li[1], li[2], p3[0], p3[1], p3[2]);
    ck_assert(lj[0] == 0 && lj[1] == 0 && lj[2] == 0);
    double f[5] = {x[0], x[1], x[3], x[4], x[5]}, n = x[2], fn = 0, e[6];
    for (int k = 0; k < 5; k++) fn += f[k] * f[k];
    fn = sqrt(fn);
    if (fn <= 0.7 * n) {
      for (int k = 0; k < 5; k++) e[k] = f[k];
      e[5] = n;
    } else if (0.7 * fn <= -n) {
      for (int k = 0; k < 6; k++) e[k] = 0;
    } else {
      double np = (n + 0.7 * fn) / (1 + 0.49), sc = 0.7 * np / fn;
      for (int k = 0; k < 5; k++) e[k] = f[k] * sc;
      e[5] = np;
    }
    double ri[3] = {x[0], x[1], x[2]}, rj[3] = {x[3], x[4], x[5]};
    cone_ell_project(ri, rj, a1);
    double got[6] = {ri[0], ri[1], rj[0], rj[1], rj[2], ri[2]};
    for (int k = 0; k < 6; k++)
      ck_assert_msg(fabs(got[k] - e[k]) < 1e-12, "6-D case %d comp %d: %g vs %g", t, k, got[k],
                    e[k]);
  }
  // an NCP solution of one pair: sliding in torsion at w = 2 with f_N = 3, a = (1, 1, 0.01, 0, 0):
  // the torsion -0.03 opposes the spin, the tangents stick (c_t = 0); c_N = 0. Residuals 0
  double a[5] = {1, 1, 0.01, 0, 0}, li[3] = {0, 0, 3}, lj[3] = {-0.03, 0, 0};
  double ci[3] = {0, 0, 0}, cj[3] = {2, 0, 0}, ep, ed, ec;
  cone_ell_residuals(li, lj, ci, cj, a, 1, &ep, &ed, &ec);
  ck_assert_msg(ep < 1e-15 && ed < 1e-15 && ec < 1e-15, "solution: %g %g %g", ep, ed, ec);
  // half the torsion: not maximum dissipation; eps_c = |<lambda, c + Gamma>| = |-0.03 + 0.06|
  lj[0] = -0.015;
  cone_ell_residuals(li, lj, ci, cj, a, 1, &ep, &ed, &ec);
  ck_assert_msg(ep == 0 && fabs(ec - 0.03) < 1e-15, "half torsion: %g %g %g", ep, ed, ec);
}
END_TEST

// the projection with unequal coefficients (the real case: sliding, torsion and rolling of
// MuJoCo's defaults) against Moreau's decomposition, which characterizes it without computing
// it: p in K_a, x - p in the polar cone {(y, m): ||a y|| <= -m}, and <p, x - p> = 0. Inputs
// span twelve decades of scale and put points inside, in the polar cone and between
START_TEST(elliptic_projection_moreau) {
  unsigned seed = 11;
  for (int t = 0; t < 20000; t++) {
    double a[5] = {0.9, 0.9, 0.02, 0.005, 0.005}, x[6];
    if (t % 3 == 0) a[3] = a[4] = 0;  // condim 4: no rolling
    double sc = pow(10, t % 13 - 6);
    for (int k = 0; k < 6; k++) x[k] = sc * (2.0 * rand_r(&seed) / RAND_MAX - 1);
    for (int k = 3; k < 6; k++) x[k] *= 0.05;  // spin entries: moments of a few cm
    double li[3] = {x[0], x[1], x[2]}, lj[3] = {x[3], x[4], x[5]};
    cone_ell_project(li, lj, a);
    double p[5] = {li[0], li[1], lj[0], lj[1], lj[2]}, pn = li[2];
    double f[5] = {x[0], x[1], x[3], x[4], x[5]}, n = x[2];
    double in = 0, pol = 0, dot = (n - pn) * pn, big = n * n;
    for (int k = 0; k < 5; k++) {
      if (a[k] > 0) in += (p[k] / a[k]) * (p[k] / a[k]);
      else ck_assert(p[k] == 0);
      pol += (a[k] * (f[k] - p[k])) * (a[k] * (f[k] - p[k]));
      dot += (f[k] - p[k]) * p[k];
      big += f[k] * f[k];
    }
    ck_assert_msg(sqrt(in) <= pn * (1 + 1e-12) + 1e-300, "case %d: p outside K_a: %g > %g", t,
                  sqrt(in), pn);
    ck_assert_msg(sqrt(pol) <= -(n - pn) + 1e-12 * sqrt(big), "case %d: x - p not polar: %g, %g",
                  t, sqrt(pol), n - pn);
    ck_assert_msg(fabs(dot) <= 1e-12 * big, "case %d: <p, x - p> = %g (|x|^2 %g)", t, dot, big);
  }
}
END_TEST

int main(void) {
  Suite* s = suite_create("condim");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_add_loop_test(tc, cylinder_spin_stops, 0, (int)(sizeof(kPairs) / sizeof(kPairs[0])));
  tcase_add_loop_test(tc, stack_spin_stops, 0, (int)(sizeof(kStack) / sizeof(kStack[0])));
  tcase_add_test(tc, cylinder_condim3_spins_on);
  tcase_add_loop_test(tc, ball_rolling_resistance, 0, (int)(sizeof(kBall) / sizeof(kBall[0])));
  tcase_add_test(tc, refused_pairs);
  tcase_add_test(tc, natural_criterion_warns);
  tcase_add_test(tc, moment_output);
  tcase_add_test(tc, elliptic_projection_closed_forms);
  tcase_add_test(tc, elliptic_projection_moreau);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
