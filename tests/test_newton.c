// test_newton.c — solver.name newton (core/solvers/newton.c): the soft CCP by a primal Newton
// method. Its per-contact cost's gradient and Hessian against central finite differences of the
// cost in every zone; its answer against ccp/pgs and ccp/admm solved to 1e-12 on the contact
// problems of simulated scenes (a cube resting, a cube sliding, a two-box stack, a chain lying
// flat: the soft CCP is strictly convex, so its lambda is unique and every solver must reach it);
// condim 4/6 pairs in the generalized cone likewise (zones, cylinders spinning, a sphere rolling,
// humanoid100); the refusals at load.
#include <check.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contact.h"
#include "core/solvers/newton.h"
#include "core/solvers/solver.h"
#include "core/solvers/solver_impl.h"
#include "dense_problem.h"
#include "io/compile.h"
#include "scene_fixture.h"
#include "support.h"

// gradient and Hessian of the contact cost s(a) against central differences (step 1e-6 of the
// scale), on random a, R (R_t1 = R_t2, R_n apart) and mu, mu = 0 every fourth case; every zone is
// met. grad s = -lambda and H = -d lambda / d a (newton.h)
START_TEST(zone_derivatives) {
  unsigned seed = 41;
  int seen[3] = {0, 0, 0};
  for (int k = 0; k < 2000; k++) {
    double a[3], R[3], mu = k % 4 == 0 ? 0 : 0.1 + 1.4 * (urand_sym(&seed) + 1) / 2;
    for (int r = 0; r < 3; r++) a[r] = urand_sym(&seed);
    R[0] = R[1] = 0.05 + (urand_sym(&seed) + 1);
    R[2] = 0.05 + (urand_sym(&seed) + 1);
    double lam[3], H[9], cost;
    int z = newton_zone(a, R, mu, lam, H, &cost);
    seen[z]++;
    double h = 1e-6;
    for (int c = 0; c < 3; c++) {
      double ap[3] = {a[0], a[1], a[2]}, am[3] = {a[0], a[1], a[2]};
      ap[c] += h;
      am[c] -= h;
      double lp[3], lm[3], cp, cm;
      newton_zone(ap, R, mu, lp, NULL, &cp);
      newton_zone(am, R, mu, lm, NULL, &cm);
      double g = (cp - cm) / (2 * h);
      ck_assert_msg(fabs(g + lam[c]) <= 1e-6 * (1 + fabs(lam[c])),
                    "case %d zone %d: ds/da_%d = %.9g, -lambda = %.9g", k, z, c, g, -lam[c]);
      for (int r = 0; r < 3; r++) {
        double fd = -(lp[r] - lm[r]) / (2 * h);
        ck_assert_msg(fabs(fd - H[3 * r + c]) <= 1e-5 * (1 + fabs(H[3 * r + c])),
                      "case %d zone %d: H(%d,%d) = %.9g, finite difference %.9g", k, z, r, c,
                      H[3 * r + c], fd);
      }
    }
    // lambda lies in the cone, and c~ = a + R lambda in its dual, orthogonal to lambda
    double lt = hypot(lam[0], lam[1]), ct = hypot(a[0] + R[0] * lam[0], a[1] + R[1] * lam[1]);
    double cn = a[2] + R[2] * lam[2];
    ck_assert_double_le(lt, mu * lam[2] + 1e-12);
    if (mu > 0) ck_assert_double_ge(cn, mu * ct - 1e-12);  // K* = {c_N >= mu |c_T|}
    else ck_assert_double_ge(cn, -1e-12);
    double dotp = lam[0] * (a[0] + R[0] * lam[0]) + lam[1] * (a[1] + R[1] * lam[1]) + lam[2] * cn;
    ck_assert_double_le(fabs(dotp), 1e-12);
  }
  for (int z = 0; z < 3; z++) ck_assert_msg(seen[z] > 100, "zone %d met %d times", z, seen[z]);
}
END_TEST

// newton_zone_ell (a condim 4/6 pair) likewise: random u0 = -R^-1/2 a (so every zone is met),
// Rt, Rn, coefficients mu, mu_t, mu_r, the spin rows' R_k = Rt mu^2 / co_k^2 (MuJoCo softness,
// contact.c rhs_spin), condim 4 (rolling rows held: co 0) and 6, every tenth condim 6 case with
// no torsion; lambda in the generalized cone ||(f_k / co_k)|| <= f_N (rows of co 0 exactly zero),
// c~ = a + R lambda in its dual (c_N >= ||(co_k c_k)||) and orthogonal to lambda (Moreau)
START_TEST(zone_ell_derivatives) {
  unsigned seed = 43;
  int seen[3] = {0, 0, 0};
  for (int k = 0; k < 4000; k++) {
    int six = k % 2;
    double mu = 0.2 + (urand_sym(&seed) + 1) / 2, mt = 0.005 + 0.05 * (urand_sym(&seed) + 1) / 2;
    double mr = six ? 0.001 + 0.01 * (urand_sym(&seed) + 1) / 2 : 0;
    double co[6] = {mu, mu, 0, six && k % 10 == 1 ? 0 : mt, mr, mr}, R[6], a[6];
    double rt = 0.05 + (urand_sym(&seed) + 1), rn = 0.05 + (urand_sym(&seed) + 1);
    for (int r = 0; r < 6; r++) {
      R[r] = r == 2 ? rn : co[r] > 0 ? rt * mu * mu / (co[r] * co[r]) : rt;
      a[r] = -sqrt(R[r]) * urand_sym(&seed);
    }
    double lam[6], H[36], cost;
    int z = newton_zone_ell(a, R, co, lam, H, &cost);
    seen[z]++;
    for (int c = 0; c < 6; c++) {
      double h = 1e-6 * sqrt(R[c]), ap[6], am[6], lp[6], lm[6], cp, cm;
      for (int r = 0; r < 6; r++) ap[r] = am[r] = a[r];
      ap[c] += h;
      am[c] -= h;
      newton_zone_ell(ap, R, co, lp, NULL, &cp);
      newton_zone_ell(am, R, co, lm, NULL, &cm);
      double g = (cp - cm) / (2 * h);
      ck_assert_msg(fabs(g + lam[c]) <= 1e-6 * (1 + fabs(lam[c])),
                    "case %d zone %d: ds/da_%d = %.9g, -lambda = %.9g", k, z, c, g, -lam[c]);
      for (int r = 0; r < 6; r++) {
        double fd = -(lp[r] - lm[r]) / (2 * h), sc = 1 / sqrt(R[r] * R[c]);
        ck_assert_msg(fabs(fd - H[6 * r + c]) <= 1e-5 * (fabs(H[6 * r + c]) + sc),
                      "case %d zone %d: H(%d,%d) = %.9g, finite difference %.9g", k, z, r, c,
                      H[6 * r + c], fd);
        ck_assert_double_eq_tol(H[6 * r + c], H[6 * c + r], 1e-12 * sc);
      }
    }
    double qn = 0, qd = 0, dotp = 0;
    for (int r = 0; r < 6; r++) {
      double ct = a[r] + R[r] * lam[r];
      dotp += lam[r] * ct;
      if (r == 2) continue;
      if (co[r] > 0) qn += (lam[r] / co[r]) * (lam[r] / co[r]), qd += (co[r] * ct) * (co[r] * ct);
      else ck_assert_double_eq(lam[r], 0);
    }
    ck_assert_double_le(sqrt(qn), lam[2] * (1 + 1e-12) + 1e-14);
    ck_assert_double_ge(a[2] + R[2] * lam[2], sqrt(qd) - 1e-12);
    ck_assert_double_le(fabs(dotp), 1e-12);
  }
  for (int z = 0; z < 3; z++) ck_assert_msg(seen[z] > 100, "zone %d met %d times", z, seen[z]);
}
END_TEST

// ccp with MuJoCo softness (contact.solref, MuJoCo's default time constant and damping ratio)
// and csim's 1 mm collision margin (MuJoCo softness defaults to MuJoCo's margin 0: compile.c
// run_margin): contacts still apart within it enter the problems compared and exert nothing of
// their own (contact.c apart_target), a case the solvers must agree on too
#define SOFT "{model: ccp, friction: 0.5, solref: [0.02, 1], margin: 1.0e-3}"

// n 10 cm cubes at pos with initial velocities vel (6 each), stepped by ccp/pgs
static char* cubes_with(int n, const double* pos, const double* vel, const char* contact) {
  size_t cap = 1024 + 256 * (size_t)n, k = 0;
  char* t = malloc(cap);
  ck_assert(t != NULL);
  k += (size_t)snprintf(t + k, cap - k, "name: t\nworld: {gravity: [0, 0, -9.81], ground: "
                        "{type: plane, height: 0}}\nrobots:\n");
  for (int r = 0; r < n; r++)
    k += (size_t)snprintf(t + k, cap - k, "  - {urdf: robots/cube.urdf, base: free, q0: [%.3f, "
                          "%.3f, %.3f, 0, 0, 0, 1], v0: [%g, %g, %g, %g, %g, %g]}\n",
                          pos[3 * r], pos[3 * r + 1], pos[3 * r + 2], vel[6 * r], vel[6 * r + 1],
                          vel[6 * r + 2], vel[6 * r + 3], vel[6 * r + 4], vel[6 * r + 5]);
  snprintf(t + k, cap - k, "contact: %s\nsolver: {name: pgs, tolerance: 1.0e-10, "
           "max_iterations: 5000}\nintegrator: {dt: 1.0e-3, duration: 1}\n", contact);
  return t;
}

static char* cubes(int n, const double* pos, const double* vel) {
  return cubes_with(n, pos, vel, SOFT);
}

static double max_abs(const double* x, int n) {
  double m = 0;
  for (int k = 0; k < n; k++) m = fmax(m, fabs(x[k]));
  return m;
}

static double max_absdiff(const double* x, const double* y, int n) {
  double m = 0;
  for (int k = 0; k < n; k++) m = fmax(m, fabs(x[k] - y[k]));
  return m;
}

// newton's Hessian buffer in solve_with (newton_set_capacity), SIZE_MAX: as created
static size_t g_newton_cap = SIZE_MAX;

// the current contact problem of f solved by (kind, tol) from lambda = 0: lambda into out (3nc),
// the result returned
static solver_result solve_with(const fixture* f, csim_solver kind, double tol, double* out) {
  solver_problem p = contact_problem(f->s->data.con);
  solver_options o = {CSIM_MODEL_CCP, kind, tol, 100000, 1.0, 4, 1.0, 1, SOLVER_STOP_MODEL,
                      f->s->model.m->nv, contact_max_chain(f->s->model.m), 0, 0, 0, 0};
  solver* sv = tsolver_create(&o, p.nc);
  if (kind == CSIM_SOLVER_NEWTON && g_newton_cap != SIZE_MAX) newton_set_capacity(sv, g_newton_cap);
  solver_result r;
  memset(out, 0, sizeof(double) * 3 * (size_t)p.nc);
  solver_solve(sv, &p, out, &r);
  solver_free(sv);
  return r;
}

// newton's lambda against ccp/pgs and ccp/admm (both to 1e-12) on f's contact problem: within
// tol of the largest impulse (each stops at a CCP residual of 1e-12 N s, so the answers differ by
// up to ~1e-11: measured 7e-9 of the largest impulse on the chain, 2.5e-9 on the resting cube,
// 1e-11 on the humanoid); newton converges (to 1e-12) in at most maxit iterations. agree_to: the
// three solved to stol instead
static solver_result agree_to(const fixture* f, double stol, double tol, int maxit,
                              const char* what) {
  int nc = f->s->data.con->ncon, n3 = 3 * nc;
  ck_assert_msg(nc > 0, "%s: no contacts", what);
  double* l[3];
  solver_result r[3];
  csim_solver kinds[3] = {CSIM_SOLVER_NEWTON, CSIM_SOLVER_PGS, CSIM_SOLVER_ADMM};
  for (int k = 0; k < 3; k++) {
    l[k] = malloc(sizeof(double) * (size_t)n3);
    r[k] = solve_with(f, kinds[k], stol, l[k]);
    ck_assert_msg(r[k].converged, "%s: %s did not converge (residual %g)", what,
                  csim_solver_names[kinds[k]], r[k].residual);
  }
  ck_assert_msg(r[0].iterations <= maxit, "%s: newton took %d iterations", what,
                r[0].iterations);
  double big = max_abs(l[1], n3);
  for (int k = 1; k < 3; k++) {
    double d = max_absdiff(l[0], l[k], n3);
    ck_assert_msg(d <= tol * big, "%s: |lambda_newton - lambda_%s| = %g (largest %g)", what,
                  csim_solver_names[kinds[k]], d, big);
  }
  for (int k = 0; k < 3; k++) free(l[k]);
  return r[0];
}

// steps f on until its last contact problem carries a load, an impulse of 1e-4 N s (the bodies
// here weigh 3-40 N, 8-100e-4 N s per 1 ms step over 1-4 contacts: the soft contacts of a body set
// down at its surface sag into them and hop, and the problem compared must not be the trivial
// lambda = 0 of contacts still apart)
static void step_to_loaded(fixture* f, int maxsteps, const char* what) {
  const contact_data* c = f->s->data.con;
  for (int k = 0; max_abs(c->lambda, 3 * c->ncon) < 1e-4; k++) {
    sim_stepinfo info;
    csim_error err;
    ck_assert_msg(k < maxsteps, "%s: no load within %d steps", what, maxsteps);
    ck_assert_int_eq(sim_step(f->s, &info, &err), CSIM_OK);
  }
}

static solver_result agree(const fixture* f, double tol, int maxit, const char* what) {
  return agree_to(f, 1e-12, tol, maxit, what);
}

// a cube resting (after 300 steps: four sticking corners), a cube sliding at 1 m/s (sliding
// corners on the cone's surface), a two-cube stack resting (one island, 8 contacts)
START_TEST(agrees_on_cubes) {
  double rest[3] = {0, 0, 0.05}, v0[6] = {0}, vs[6] = {1, 0, 0, 0, 0, 0};
  double stack[6] = {0, 0, 0.05, 0, 0, 0.15}, v2[12] = {0};
  struct {
    char* text;
    int steps;
    const char* what;
  } sc[3] = {{cubes(1, rest, v0), 300, "cube resting"},
             {cubes(1, rest, vs), 20, "cube sliding"},
             {cubes(2, stack, v2), 300, "two-cube stack"}};
  for (int k = 0; k < 3; k++) {
    fixture f = fixture_steps(sc[k].text, NULL, sc[k].steps);
    free(sc[k].text);
    agree(&f, 1e-7, 20, sc[k].what);
    fixture_free(&f);
  }
}
END_TEST

// a chain of 10 links lying flat (40 contacts on 15 dofs: G of rank 15, the soft CCP's R makes
// it unique)
START_TEST(agrees_on_chain) {
  char path[512];
  fixture_chain(10, SOFT, "{name: pgs, tolerance: 1.0e-10, max_iterations: 5000}", path,
                sizeof(path));
  fixture f = fixture_file(path, NULL, 0);
  for (int k = 0; k < 200; k++) {
    sim_stepinfo info;
    csim_error err;
    ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
  }
  agree(&f, 1e-7, 30, "chain of 10");
  fixture_free(&f);
}
END_TEST

// a stack of n 10 cm cubes resting on each other, stepped 100 times (one island of 6n dofs)
static fixture stack_of(int n) {
  double pos[18] = {0}, vel[36] = {0};
  ck_assert_int_le(n, 6);
  for (int r = 0; r < n; r++) pos[3 * r + 2] = 0.05 + 0.1 * r;
  char* text = cubes(n, pos, vel);
  fixture f = fixture_steps(text, NULL, 100);
  free(text);
  return f;
}

// stacks whose island newton factors in two ways, the answer still pgs's and admm's: 6 cubes
// (36 dofs, each contact on at most two cubes' 12) banded in ADMM's Cuthill-McKee order (kd 11,
// LAPACK dpbtrf); 4 cubes (24 dofs, a band of 11) at most NEWTON_SMALL_DOFS (24) dofs, factored
// densely in place (chol_small) instead, as dpbtrf's calls cost more than the factor on so small
// a band
static const struct {
  int n, banded;
  const char* what;
} kStacks[] = {{6, 1, "stack of 6"}, {4, 0, "stack of 4"}};

START_TEST(agrees_on_stacks) {
  fixture f = stack_of(kStacks[_i].n);
  solver_result r = agree(&f, 1e-7, 20, kStacks[_i].what);
  ck_assert_int_eq(r.dof_islands, 1);
  ck_assert_int_eq(r.band_islands, kStacks[_i].banded);
  fixture_free(&f);
}
END_TEST

// islands whose factor does not fit newton's Hessian buffer (held to nothing here; at most 128
// dofs' dense factor otherwise, newton.c NEWTON_DENSE_DOFS) take the Newton direction from
// conjugate gradients: the answer is still pgs's and admm's, on the stack of 6 cubes (banded
// otherwise) and on humanoid100 (condim 4 pairs)
START_TEST(agrees_by_cg) {
  fixture f = stack_of(6);
  g_newton_cap = 0;
  solver_result r = agree(&f, 1e-7, 30, "stack of 6, conjugate gradients");
  ck_assert_int_eq(r.band_islands, 0);
  fixture_free(&f);
  const char* pgs[] = {"solver.name=pgs", "contact.cone=elliptic"};  // ADMM's cone
  f = fixture_file("scenarios/mujoco_humanoid100.yaml", pgs, 2);
  for (int k = 0; k < 150; k++) {
    sim_stepinfo info;
    csim_error err;
    ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
  }
  ck_assert_int_gt(f.s->data.con->nspin, 0);
  agree(&f, 1e-7, 40, "humanoid100 step 150, conjugate gradients");
  g_newton_cap = SIZE_MAX;
  fixture_free(&f);
}
END_TEST

// the same scenes stepped by newton itself: every step converges, in few iterations
START_TEST(steps_converge) {
  double rest[3] = {0, 0, 0.05}, vs[6] = {1, 0, 0, 0, 0, 0};
  char* text = cubes(1, rest, vs);
  const char* sets[] = {"solver.name=newton", "solver.tolerance=1e-10"};
  fixture f = fixture_text(text, "t.yaml", sets, 2);
  free(text);
  int worst = 0;
  for (int k = 0; k < 500; k++) {
    sim_stepinfo info;
    csim_error err;
    ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
    ck_assert_msg(info.ncon == 0 || info.solve.converged, "step %d not converged", k);
    if (info.solve.iterations > worst) worst = info.solve.iterations;
  }
  ck_assert_int_le(worst, 20);
  fixture_free(&f);
}
END_TEST

// refused at load, naming the key: without softness, with contact.compliance, for another model
// (the pair table), a URDF robot's rigid limits, and csim solve's matrix problems (no Y)
START_TEST(refusals) {
  double rest[3] = {0, 0, 0.05}, v0[6] = {0};
  struct {
    const char* contact;
    const char* key;
  } cases[3] = {
      {"{model: ccp, friction: 0.5}", "solver.name"},
      {"{model: ccp, friction: 0.5, compliance: 0.01}", "contact.compliance"},
      {"{model: lcp, friction: 0.5}", "solver.name"},  // ncp has its own newton (ncp_newton.c)
  };
  const char* sets[] = {"solver.name=newton"};
  for (int k = 0; k < 3; k++) {
    char* text = cubes_with(1, rest, v0, cases[k].contact);
    scn_config* cfg = NULL;
    csim_error err;
    err_clear(&err);
    csim_status st = scn_load_string(text, "t.yaml", sets, 1, &cfg, &err);
    sim* s = NULL;
    if (st == CSIM_OK) st = sim_create(cfg, &s, &err);
    ck_assert_msg(st != CSIM_OK, "case %d accepted", k);
    ck_assert_msg(!strcmp(err.key, cases[k].key), "case %d: key '%s' (%s), expected %s", k,
                  err.key, err.msg, cases[k].key);
    ck_assert_msg(strstr(err.msg, "newton") != NULL, "case %d: '%s'", k, err.msg);
    sim_free(s);
    scn_free(cfg);
    free(text);
  }
  // a URDF robot's rigid joint limits (R = 0), named by joint (Solo-12's first)
  {
    const char* sets2[] = {"contact.model=ccp", "contact.compliance=0", "contact.baumgarte=0",
                           "contact.solref=[0.02, 1]", "solver.name=newton"};
    scn_config* cfg = NULL;
    csim_error err;
    err_clear(&err);
    csim_status st = scn_load("scenarios/solo12_stand.yaml", sets2, 5, &cfg, &err);
    ck_assert_msg(st == CSIM_OK, "%s", err.msg);
    sim* s = NULL;
    ck_assert_int_ne(sim_create(cfg, &s, &err), CSIM_OK);
    ck_assert_str_eq(err.key, "solver.name");
    ck_assert_msg(strstr(err.msg, "rigid limit") && strstr(err.msg, "'FL_HAA'"), "%s", err.msg);
    scn_free(cfg);
  }
  // no factored form: solver_create refuses
  solver_options o = {CSIM_MODEL_CCP, CSIM_SOLVER_NEWTON, 1e-8, 100, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
  solver* sv = NULL;
  csim_error err;
  ck_assert_int_ne(solver_create(&o, 4, &sv, &err), CSIM_OK);
  ck_assert_ptr_null(sv);
}
END_TEST

// MuJoCo's humanoid (humanoid.xml: soft joint limits, frictionless body-body pairs of condim 1,
// the floor's friction 1) stepped by ccp/pgs, at three steps (4 or more apart) with limits, frictionless
// and floor contacts at once: the limits' and frictionless contacts' 1-D Signorini zone beside
// the cone's zones
START_TEST(agrees_on_humanoid) {
  const char* xml = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  ck_assert_msg(file_exists(xml), "%s missing: make deps installs libmujoco-samples", xml);
  char yaml[1024];
  snprintf(yaml, sizeof(yaml),
           "name: h\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\nrobots:\n"
           "  - mjcf: %s\ncontact: {model: ccp, friction: 1, combine: mujoco, margin: 1.0e-3}\n"
           "solver: {name: pgs, tolerance: 1.0e-10, max_iterations: 5000}\n"
           "integrator: {duration: 2.0}\n", xml);
  fixture f = fixture_steps(yaml, NULL, 1);
  contact_data* c = f.s->data.con;
  int checked = 0, last = -100;
  for (int k = 1; k < 400 && checked < 3; k++) {
    sim_stepinfo info;
    csim_error err;
    ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
    int frictionless = 0, floor = 0;
    for (int i = 0; i < c->ncon - c->nlimit; i++) {
      frictionless += c->mu[i] == 0;
      floor += c->mu[i] > 0;
    }
    if (c->nlimit > 0 && frictionless > 0 && floor > 0 && k - last >= 4) {
      char what[64];
      snprintf(what, sizeof(what), "humanoid step %d", k);
      agree(&f, 1e-7, 30, what);
      checked++;
      last = k;
    }
  }
  ck_assert_int_eq(checked, 3);
  fixture_free(&f);
}
END_TEST

// newton_zone_pyr (contact.cone pyramidal) likewise: random a, r, mu (every fourth n = 6 with
// torsion and rolling coefficients, condim 4 every eighth: rolling rows held at co 0); grad s =
// -lambda and H = -d lambda / d a by central differences away from an edge's kink, lambda = E f
// with f >= 0 (in the pyramid: sum |lambda_k| / co_k <= lambda_N), and each edge's velocity
// a_e + r f_e >= 0 and orthogonal to f_e (the edges' LCP)
START_TEST(zone_pyr_derivatives) {
  unsigned seed = 7;
  int seen_free = 0, seen_active = 0;
  for (int k = 0; k < 4000; k++) {
    int n = k % 4 == 0 ? 6 : 3;
    double a[6], co[6] = {0}, lam[6], H[36], cost, r = 0.05 + (urand_sym(&seed) + 1);
    double mu = 0.1 + 1.4 * (urand_sym(&seed) + 1) / 2;
    for (int q = 0; q < n; q++) a[q] = urand_sym(&seed);
    co[0] = co[1] = mu;
    if (n == 6) {
      co[3] = 0.01 + 0.1 * (urand_sym(&seed) + 1);
      co[4] = co[5] = k % 8 == 0 ? 0 : 0.005 + 0.05 * (urand_sym(&seed) + 1);
    }
    int z = newton_zone_pyr(n, a, co, r, lam, H, &cost);
    seen_free += z == 0;
    seen_active += z > 16;
    double h = 1e-7, kink = INFINITY;  // the nearest edge kink a_e = 0
    for (int q = 0; q < n; q++)
      if (q != 2 && co[q] > 0)
        kink = fmin(kink, fmin(fabs(a[2] + co[q] * a[q]), fabs(a[2] - co[q] * a[q])));
    if (kink > 1e-4) {
      for (int c = 0; c < n; c++) {
        double ap[6], am[6], lp[6], lm[6], cp, cm;
        memcpy(ap, a, sizeof(a));
        memcpy(am, a, sizeof(a));
        ap[c] += h;
        am[c] -= h;
        newton_zone_pyr(n, ap, co, r, lp, NULL, &cp);
        newton_zone_pyr(n, am, co, r, lm, NULL, &cm);
        ck_assert_msg(fabs((cp - cm) / (2 * h) + lam[c]) <= 1e-6 * (1 + fabs(lam[c])),
                      "case %d: ds/da_%d", k, c);
        for (int q = 0; q < n; q++)
          ck_assert_msg(fabs(-(lp[q] - lm[q]) / (2 * h) - H[n * q + c]) <=
                            1e-5 * (1 + fabs(H[n * q + c])),
                        "case %d: H(%d,%d)", k, q, c);
      }
    }
    double sum = 0;
    for (int q = 0; q < n; q++)
      if (q != 2) {
        if (co[q] > 0) sum += fabs(lam[q]) / co[q];
        else ck_assert_double_eq(lam[q], 0);
      }
    ck_assert_double_le(sum, lam[2] * (1 + 1e-12) + 1e-15);
    for (int q = 0; q < n; q++)  // each edge: f = max(0, -a_e) / r, so a_e + r f >= 0, f (a_e + r f) = 0
      for (int sg = 0; sg < 2 && q != 2 && co[q] > 0; sg++) {
        double ae = a[2] + (sg ? -co[q] : co[q]) * a[q], f = fmax(0, -ae) / r;
        ck_assert_double_ge(ae + r * f, -1e-14);
        ck_assert_double_le(fabs(f * (ae + r * f)), 1e-14 * (1 + f * fabs(ae)));
      }
  }
  ck_assert_msg(seen_free > 100 && seen_active > 1000, "zones met: free %d, active %d", seen_free,
                seen_active);
}
END_TEST

// the pyramid (contact.cone pyramidal): newton's lambda against ccp/pgs's (ADMM has no pyramid),
// both to 1e-12, on humanoid.xml (its floor contacts and joint limits) and humanoid100.xml (its
// condim 4 pairs' torsion edges) at steps of a ccp/pgs run: within 1e-7 of the largest impulse
// (as agree's), newton in at most 30 iterations
static void agree_pyr(const fixture* f, const char* what) {
  int n3 = 3 * f->s->data.con->ncon;
  ck_assert_msg(n3 > 0 && f->s->data.con->has_rpy, "%s: no pyramidal contacts", what);
  double* ln = malloc(sizeof(double) * (size_t)n3);
  double* lp = malloc(sizeof(double) * (size_t)n3);
  solver_result rn = solve_with(f, CSIM_SOLVER_NEWTON, 1e-12, ln);
  solver_result rp = solve_with(f, CSIM_SOLVER_PGS, 1e-12, lp);
  ck_assert_msg(rn.converged && rp.converged, "%s: newton %g, pgs %g", what, rn.residual,
                rp.residual);
  ck_assert_msg(rn.iterations <= 30, "%s: newton took %d iterations", what, rn.iterations);
  double big = max_abs(lp, n3), d = max_absdiff(ln, lp, n3);
  printf("%s: |lambda_newton - lambda_pgs| = %.3g (largest %.3g), newton %d iterations\n", what,
         d, big, rn.iterations);
  ck_assert_msg(d <= 1e-7 * big, "%s: |lambda_newton - lambda_pgs| = %g (largest %g)", what, d,
                big);
  free(ln);
  free(lp);
}

START_TEST(agrees_pyramidal) {
  const char* sets[] = {"solver.name=pgs", "contact.cone=pyramidal"};
  const char* files[2] = {"scenarios/mujoco_humanoid.yaml", "scenarios/mujoco_humanoid100.yaml"};
  for (int fi = 0; fi < 2; fi++) {
    fixture f = fixture_file(files[fi], sets, 2);
    int checked = 0;
    for (int k = 1; k <= 300 && checked < 3; k++) {
      sim_stepinfo info;
      csim_error err;
      ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
      if (k % 60 == 0 && f.s->data.con->has_rpy && (fi == 0 || f.s->data.con->nspin > 0)) {
        char what[96];
        snprintf(what, sizeof(what), "%s pyramidal step %d", files[fi], k);
        agree_pyr(&f, what);
        checked++;
      }
    }
    ck_assert_int_eq(checked, 3);
    fixture_free(&f);
  }
}
END_TEST

// the residual newton reports is the CCP residual of the lambda it returns, recomputed here from
// c = G lambda + R lambda + g (solver_gmul_add, the blocks rather than newton's factored form)
// over all contacts: with the iterations capped at 1, 2 and 3 on humanoid100's pyramidal
// problems (islands left unconverged: the answer is the best iterate, and the intermediate
// iterates' residuals are taken to a bound only, newton.c island_residual), and uncapped
START_TEST(residual_is_exact) {
  const char* sets[] = {"solver.name=pgs", "contact.cone=pyramidal"};
  fixture f = fixture_file("scenarios/mujoco_humanoid100.yaml", sets, 2);
  int checked = 0, capped = 0;
  for (int k = 1; k <= 300 && checked < 3; k++) {
    sim_stepinfo info;
    csim_error err;
    ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
    if (k % 60 != 0 || f.s->data.con->ncon == 0) continue;
    solver_problem p = contact_problem(f.s->data.con);
    int n3 = 3 * p.nc;
    double* l = malloc(sizeof(double) * (size_t)n3);
    double* c = malloc(sizeof(double) * (size_t)n3);
    for (int cap = 1; cap <= 4; cap++) {
      solver_options o = {CSIM_MODEL_CCP, CSIM_SOLVER_NEWTON, 1e-12, cap < 4 ? cap : 100000,
                          1.0, 4, 1.0, 1, SOLVER_STOP_MODEL, f.s->model.m->nv,
                          contact_max_chain(f.s->model.m), 0, 0, 0, 0};
      solver* sv = tsolver_create(&o, p.nc);
      solver_result r;
      memset(l, 0, sizeof(double) * (size_t)n3);
      solver_solve(sv, &p, l, &r);
      solver_free(sv);
      for (int q = 0; q < n3; q++) c[q] = p.g[q] + (p.R ? p.R[q] * l[q] : 0);
      solver_gmul_add(&p, l, c);
      double want = solver_ccp_residual(&p, l, c, NULL, p.nc);
      // c's rounding (G's blocks against newton's Y Y'): 2.8e-14 against 2.4e-14 measured on a
      // converged answer, so a floor of 1e-13, a tenth of the tolerance
      ck_assert_msg(fabs(r.residual - want) <= 1e-6 * want + 1e-13,
                    "step %d cap %d: newton reports %.17g, its lambda has %.17g", k, cap,
                    r.residual, want);
      capped += cap < 4 && !r.converged;
    }
    free(l);
    free(c);
    checked++;
  }
  ck_assert_int_eq(checked, 3);
  ck_assert_int_gt(capped, 0);  // some capped solve stopped short of the tolerance
  fixture_free(&f);
}
END_TEST

// the lower triangle of I + sum of the terms t with on[t] of v_t v_t' (V: nt rows of n),
// column-major n x n, factored by LAPACK dpotrf into dst
static void form_factor(int n, int nt, const double* V, const int* on, double* dst) {
  for (int c = 0; c < n; c++)
    for (int r = 0; r < n; r++) {
      double h = r == c;
      for (int t = 0; t < nt; t++) h += on[t] ? V[t * n + r] * V[t * n + c] : 0;
      dst[c * n + r] = r >= c ? h : 0;
    }
  ck_assert_int_eq(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, dst, n), 0);
}

// newton_chol_rank1 (newton.c hessian_update's incremental factor): H = I + sum of 20 random
// rank-1 terms v v' (n 37, humanoid100's mean dense island past 24 dofs, each v on 12 of the
// positions as a contact's dofs), factored by LAPACK dpotrf; then 6 terms added and 6 of the
// first removed by rank-1 updates and downdates, the factor after each against dpotrf's of the
// matrix formed anew: within 1e-12 of the largest entry. A downdate past positive definiteness
// (removing a term H does not hold) is refused
START_TEST(chol_rank1_vs_lapack) {
  enum { N = 37, NT = 26, NZ = 12 };
  unsigned seed = 7;
  static double V[NT][N], H[N * N], L[N * N], F[N * N], v[N];
  for (int t = 0; t < NT; t++) {
    memset(V[t], 0, sizeof(V[t]));
    int k0 = (int)((urand_sym(&seed) + 1) / 2 * (N - NZ));
    for (int k = 0; k < NZ; k++) V[t][k0 + k] = urand_sym(&seed);
  }
  int on[NT];
  for (int t = 0; t < NT; t++) on[t] = t < 20;
  form_factor(N, NT, &V[0][0], on, L);
  for (int step = 0; step < 12; step++) {
    int t = step % 2 == 0 ? 20 + step / 2 : step / 2;  // add term 20.., remove term 0..
    on[t] = !on[t];
    int k0 = N;
    for (int k = 0; k < N; k++) {
      v[k] = V[t][k];
      if (v[k] != 0 && k < k0) k0 = k;
    }
    ck_assert_int_eq(newton_chol_rank1(N, L, v, k0, on[t] ? 1.0 : -1.0), 0);
    form_factor(N, NT, &V[0][0], on, F);
    double big = 0, d = 0;
    for (int c = 0; c < N; c++)
      for (int r = c; r < N; r++) {
        big = fmax(big, fabs(F[c * N + r]));
        d = fmax(d, fabs(F[c * N + r] - L[c * N + r]));
      }
    ck_assert_msg(d <= 1e-12 * big, "step %d: |L - dpotrf| = %g (largest %g)", step, d, big);
  }
  // H now holds terms 6..25 and I: removing 3 v v' with v = e_0 goes past I's 1 on the diagonal
  // only if H_00 < 3; a term scaled by 10 that H never held fails for certain
  for (int k = 0; k < N; k++) v[k] = 10 * V[0][k];
  int k0 = 0;
  while (v[k0] == 0) k0++;
  memcpy(H, L, sizeof(L));
  ck_assert_int_eq(newton_chol_rank1(N, H, v, k0, -1.0), 1);
}
END_TEST

// m.xml's body (fixture_condim_xml) under ccp with its geoms' MuJoCo softness, stepped n times by
// ccp/pgs to 1e-12 from height z0 and velocity v0 (6), contact.friction mu
static fixture condim_scene(double mu, double z0, const double v0[6], int n) {
  char yaml[1024], path[512];
  snprintf(yaml, sizeof(yaml),
           "name: c\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\nrobots:\n"
           "  - mjcf: m.xml\n    q0: [0, 0, %.17g, 0, 0, 0, 1]\n    v0: [%g, %g, %g, %g, %g, %g]\n"
           "contact: {model: ccp, friction: %g, margin: 1.0e-3}\n"
           "solver: {name: pgs, tolerance: 1.0e-12, max_iterations: 20000}\n"
           "integrator: {dt: 1.0e-3, duration: 1}\n",
           z0, v0[0], v0[1], v0[2], v0[3], v0[4], v0[5], mu);
  fixture f = fixture_text(yaml, tmp_path(path, sizeof(path), "c.yaml"), NULL, 0);
  for (int k = 0; k < n; k++) {
    sim_stepinfo info;
    csim_error err;
    ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
  }
  return f;
}

// condim 4 and 6 pairs (contact.h's spin entries) on the generalized cone's zones: a cylinder
// on its face spinning at 10 rad/s without sliding friction (the torsion alone: its rows slip on
// the cone's surface), the same spinning while it slides at 0.5 m/s with friction 0.5 (three
// friction rows on the surface), a sphere rolling at 1 m/s with condim 6 (rolling resistance):
// newton's lambda is ccp/pgs's and ccp/admm's, all three solved to 1e-14: the rolling sphere
// slips by ~3e-4 m/s, and at so small a slip velocity a CCP residual of 1e-12 leaves the friction
// direction loose (measured at 1e-12: 2.2e-9 between newton and pgs on the tangent impulse of
// 1.4e-4; at 1e-14 all three within 1.2e-13, newton at 2e-18 in 3 iterations)
START_TEST(agrees_on_condim) {
  struct {
    const char* geom;
    int cd;
    double mu, mr, z0, v0[6];
    const char* what;
  } sc[3] = {
      {"cylinder' size='0.1 0.05", 4, 0, 0, 0.05, {0, 0, 0, 0, 0, 10}, "cylinder spinning, condim 4"},
      {"cylinder' size='0.1 0.05", 4, 0.5, 0, 0.05, {0.5, 0, 0, 0, 0, 10}, "cylinder sliding and spinning"},
      {"sphere' size='0.1", 6, 1, 0.002, 0.1, {1, 0, 0, 0, 10, 0}, "sphere rolling, condim 6"},
  };
  for (int k = 0; k < 3; k++) {
    fixture_condim_xml(sc[k].geom, sc[k].cd, 0.01, sc[k].mr);
    fixture f = condim_scene(sc[k].mu, sc[k].z0, sc[k].v0, 50);
    contact_data* c = f.s->data.con;
    step_to_loaded(&f, 200, sc[k].what);
    ck_assert_msg(c->nspin > 0, "%s: no spin entries", sc[k].what);
    agree_to(&f, 1e-14, 1e-9, 30, sc[k].what);
    fixture_free(&f);
  }
}
END_TEST

// MuJoCo's humanoid100 (humanoid100.xml: condim 4 cylinders among 100 free bodies, 627 dofs)
// stepped by ccp/pgs: newton's lambda is ccp/pgs's and ccp/admm's at three steps with spin
// entries; then its scenario (ccp, auto: newton) steps it 2 s (400 steps) finite, every step
// converged
START_TEST(humanoid100) {
  const char* xml = "/usr/share/mujoco/model/humanoid100/humanoid100.xml";
  ck_assert_msg(file_exists(xml), "%s missing: make deps installs libmujoco-samples", xml);
  const char* pgs[] = {"solver.name=pgs", "contact.cone=elliptic"};  // ADMM's cone
  fixture f = fixture_file("scenarios/mujoco_humanoid100.yaml", pgs, 2);
  int checked = 0;
  for (int k = 1; k <= 300 && checked < 3; k++) {
    sim_stepinfo info;
    csim_error err;
    ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
    if (k % 50 == 0 && f.s->data.con->nspin > 0) {
      char what[64];
      snprintf(what, sizeof(what), "humanoid100 step %d", k);
      agree(&f, 1e-7, 40, what);
      checked++;
    }
  }
  ck_assert_int_eq(checked, 3);
  fixture_free(&f);
  f = fixture_file("scenarios/mujoco_humanoid100.yaml", NULL, 0);
  ck_assert_int_eq(f.s->opt.solver.kind, CSIM_SOLVER_AUTO);  // auto: newton (MuJoCo softness)
  ck_assert(f.s->opt.solver.soft);
  int spins = 0;
  for (int k = 0; k < 400; k++) {
    sim_stepinfo info;
    csim_error err;
    ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
    ck_assert_msg(info.ncon == 0 || info.solve.converged, "step %d not converged", k);
    spins += f.s->data.con->nspin > 0;
  }
  const sim_data* d = f.s->data.d;
  for (int k = 0; k < f.s->model.m->nv; k++) ck_assert(isfinite(d->v[k]));
  for (int k = 0; k < f.s->model.m->nq; k++) ck_assert(isfinite(d->q[k]));
  ck_assert_int_gt(spins, 100);
  fixture_free(&f);
}
END_TEST

// fixtures a and b stepped n times side by side: q, v and the impulses bit for bit equal
static void same_steps(fixture* a, fixture* b, int n, const char* what) {
  for (int k = 0; k < n; k++) {
    sim_stepinfo ia, ib;
    csim_error err;
    ck_assert_int_eq(sim_step(a->s, &ia, &err), CSIM_OK);
    ck_assert_int_eq(sim_step(b->s, &ib, &err), CSIM_OK);
    const sim_data *da = a->s->data.d, *db = b->s->data.d;
    const contact_data *ca = a->s->data.con, *cb = b->s->data.con;
    ck_assert_int_eq(ca->ncon, cb->ncon);
    ck_assert_msg(!memcmp(da->q, db->q, sizeof(double) * (size_t)a->s->model.m->nq) &&
                      !memcmp(da->v, db->v, sizeof(double) * (size_t)a->s->model.m->nv) &&
                      !memcmp(ca->lambda, cb->lambda, sizeof(double) * 3 * (size_t)ca->ncon),
                  "%s: step %d differs", what, k);
  }
}

// solver.name auto under ccp with MuJoCo softness on every row gives the islands to newton: the
// same run bit for bit as solver.name newton (the two-cube stack, MuJoCo's humanoid with its
// soft limits, humanoid100 with its condim 4 pairs); under ccp without softness
// (contact.compliance), with a rigid limit (a URDF robot) or under ncp it keeps PGS then ADMM
START_TEST(auto_soft_is_newton) {
  double stack[6] = {0, 0, 0.05, 0, 0, 0.15}, v2[12] = {0};
  char* text = cubes(2, stack, v2);
  const char* sa[] = {"solver.name=auto"};
  const char* sn[] = {"solver.name=newton"};
  fixture a = fixture_text(text, "t.yaml", sa, 1), b = fixture_text(text, "t.yaml", sn, 1);
  free(text);
  ck_assert_int_eq(a.s->opt.solver.soft, 1);
  ck_assert_int_eq(a.s->opt.contact.diag_only, 1);
  same_steps(&a, &b, 300, "two-cube stack");
  fixture_free(&a);
  fixture_free(&b);
  const char* xml = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  char yaml[1024];
  snprintf(yaml, sizeof(yaml),
           "name: h\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\nrobots:\n"
           "  - mjcf: %s\ncontact: {model: ccp, friction: 1, combine: mujoco}\n"
           "solver: {name: auto, tolerance: 1.0e-8, max_iterations: 500}\n"
           "integrator: {duration: 2.0}\n", xml);
  a = fixture_text(yaml, "h.yaml", NULL, 0);
  b = fixture_text(yaml, "h.yaml", sn, 1);
  ck_assert_int_eq(a.s->opt.solver.soft, 1);
  same_steps(&a, &b, 300, "humanoid");
  fixture_free(&a);
  fixture_free(&b);
  // auto's newton pass is the Lorentz cone's (contact.cone pyramidal takes pgs or newton only)
  const char* sae[] = {"solver.name=auto", "contact.cone=elliptic"};
  const char* sne[] = {"contact.cone=elliptic"};
  a = fixture_file("scenarios/mujoco_humanoid100.yaml", sae, 2);
  b = fixture_file("scenarios/mujoco_humanoid100.yaml", sne, 1);
  ck_assert_int_eq(a.s->opt.solver.soft, 1);
  same_steps(&a, &b, 150, "humanoid100");
  fixture_free(&a);
  fixture_free(&b);
  // not soft: auto's own pair
  double rest[3] = {0, 0, 0.05}, v0[6] = {0};
  const char* contacts[2] = {"{model: ccp, friction: 0.5, compliance: 0.01}",
                             "{model: ncp, friction: 0.5}"};
  for (int k = 0; k < 2; k++) {
    text = cubes_with(1, rest, v0, contacts[k]);
    a = fixture_text(text, "t.yaml", sa, 1);
    free(text);
    ck_assert_int_eq(a.s->opt.solver.soft, 0);
    ck_assert_int_eq(a.s->opt.contact.diag_only, 0);
    fixture_free(&a);
  }
  const char* solo[] = {"contact.model=ccp", "contact.compliance=0", "contact.baumgarte=0",
                        "contact.solref=[0.02, 1]", "solver.name=auto"};
  a = fixture_file("scenarios/solo12_stand.yaml", solo, 5);
  ck_assert_int_eq(a.s->opt.solver.soft, 0);  // its URDF's rigid joint limits
  fixture_free(&a);
}
END_TEST

// an MJCF body on a slide joint with extra joint and geom attributes, as a scenario under
// ccp/newton (MJCF geoms bring MuJoCo softness): created, or the load's status with err
static csim_status mjcf_newton(const char* joint, const char* geom, csim_error* err) {
  char xml[1024], yaml[1024], path[512];
  snprintf(xml, sizeof(xml),
           "<mujoco><worldbody><geom type='plane' size='5 5 0.1'/><body name='b' pos='0 0 0.2'>"
           "<joint name='j' type='slide' axis='1 0 0' %s/><joint name='k' type='slide' "
           "axis='0 0 1'/><geom type='cylinder' size='0.1 0.05' %s/></body></worldbody>"
           "</mujoco>", joint, geom);
  tmp_write_text("nw.xml", xml);
  snprintf(yaml, sizeof(yaml),
           "name: nw\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: nw.xml\n"
           "contact: {model: ccp}\nsolver: {name: newton}\n"
           "integrator: {dt: 1.0e-3, duration: 0.1}\n");
  fixture f;
  csim_status st = fixture_try(yaml, tmp_path(path, sizeof(path), "nw.yaml"), &f, err);
  if (st == CSIM_OK) fixture_free(&f);
  return st;
}

// MJCF: accepted as such and with condim 4 and 6; refused with dry joint friction, naming
// solver.name
START_TEST(refusals_mjcf) {
  csim_error err;
  ck_assert_int_eq(mjcf_newton("", "", &err), CSIM_OK);
  ck_assert_int_eq(mjcf_newton("range='-1 1' limited='true'", "", &err), CSIM_OK);
  ck_assert_int_ne(mjcf_newton("frictionloss='0.5'", "", &err), CSIM_OK);
  ck_assert_str_eq(err.key, "solver.name");
  ck_assert_msg(strstr(err.msg, "frictionloss") && strstr(err.msg, "'j'"), "%s", err.msg);
  ck_assert_int_eq(mjcf_newton("", "condim='4'", &err), CSIM_OK);
  ck_assert_int_eq(mjcf_newton("", "condim='6'", &err), CSIM_OK);
  // condim 6 without sliding friction, torsion 0.01 and rolling 0.002: one R on the friction
  // rows (contact.c rhs_spin), so the cone is not round in R^1/2 lambda: refused; auto keeps
  // PGS then ADMM there
  fixture_condim_xml("sphere' size='0.1", 6, 0.01, 0.002);
  char yaml[512], path[512];
  snprintf(yaml, sizeof(yaml), "name: s\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: m.xml\n"
           "contact: {model: ccp, friction: 0}\nsolver: {name: newton}\n"
           "integrator: {dt: 1.0e-3, duration: 0.1}\n");
  fixture f;
  ck_assert_int_ne(fixture_try(yaml, tmp_path(path, sizeof(path), "s.yaml"), &f, &err), CSIM_OK);
  ck_assert_str_eq(err.key, "solver.name");
  ck_assert_msg(strstr(err.msg, "not round") != NULL, "%s", err.msg);
  const char* sa[] = {"solver.name=auto"};
  f = fixture_text(yaml, path, sa, 1);
  ck_assert_int_eq(f.s->opt.solver.soft, 0);
  fixture_free(&f);
}
END_TEST

int main(void) {
  Suite* s = suite_create("newton");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_add_test(tc, zone_derivatives);
  tcase_add_test(tc, agrees_on_cubes);
  tcase_add_test(tc, agrees_on_chain);
  tcase_add_loop_test(tc, agrees_on_stacks, 0, (int)(sizeof(kStacks) / sizeof(kStacks[0])));
  tcase_add_test(tc, steps_converge);
  tcase_add_test(tc, refusals);
  tcase_add_test(tc, agrees_on_humanoid);
  tcase_add_test(tc, refusals_mjcf);
  tcase_add_test(tc, zone_ell_derivatives);
  tcase_add_test(tc, agrees_on_condim);
  tcase_add_test(tc, humanoid100);
  tcase_add_test(tc, agrees_by_cg);
  tcase_add_test(tc, auto_soft_is_newton);
  tcase_add_test(tc, zone_pyr_derivatives);
  tcase_add_test(tc, agrees_pyramidal);
  tcase_add_test(tc, residual_is_exact);
  tcase_add_test(tc, chol_rank1_vs_lapack);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
