// test_integrate.c — the integration scheme of stage.h against conservation laws and closed
// forms (issue "An exact, honest step"), joint limits on a real robot, and the energy audit.
//
// Expected values come from mechanics, not from csim's output: a torque-free body keeps its
// kinetic energy and world angular momentum L = R Ic w; without forces its com moves on a
// straight line at constant velocity; in uniform gravity the com follows
// c(t) = c0 + v0 t + g t^2 / 2 exactly. Bodies are URDFs written into a temporary directory.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/dynamics.h"
#include "core/kinematics.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "core/spatial.h"
#include "core/stage.h"
#include "scene_fixture.h"
#include "support.h"

static char g_dir[256];

// write an asymmetric box body (inertia diag(0.1, 0.2, 0.3) about its com at `com`)
static void write_body(const char* name, const double com[3]) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s.urdf", g_dir, name);
  FILE* f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f,
          "<robot name=\"%s\"><link name=\"body\"><inertial><origin xyz=\"%.17g %.17g %.17g\"/>"
          "<mass value=\"2\"/><inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.2\" iyz=\"0\" "
          "izz=\"0.3\"/></inertial><collision><geometry><box size=\"0.1 0.2 0.3\"/></geometry>"
          "</collision></link></robot>\n",
          name, com[0], com[1], com[2]);
  fclose(f);
}

static void setup(void) {
  snprintf(g_dir, sizeof(g_dir), "%s/csim_integrate_XXXXXX", P_tmpdir);
  ck_assert_ptr_nonnull(mkdtemp(g_dir));
  write_body("asym", (double[]){0, 0, 0});
  write_body("asym_offset", (double[]){0.1, 0.1, 0.1});
}

static void teardown(void) {
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
}

// a sim from YAML text (scenario directory: g_dir, so "asym.urdf" resolves there)
static sim* make(const char* yaml, scn_config** cfg) {
  char name[512];
  snprintf(name, sizeof(name), "%s/test.yaml", g_dir);
  csim_error err;
  err_clear(&err);
  if (scn_load_string(yaml, name, NULL, 0, cfg, &err) != CSIM_OK) err_print(&err, stderr);
  ck_assert_ptr_nonnull(*cfg);
  sim* s = NULL;
  if (sim_create(*cfg, &s, &err) != CSIM_OK) err_print(&err, stderr);
  ck_assert_ptr_nonnull(s);
  return s;
}

// make() of one robot of the shared data (urdf relative to its robots/ folder, by absolute path:
// the scenario directory is g_dir) with the given base, and the rest of the scenario after it
static sim* make_robot(const char* urdf, const char* base, const char* rest, scn_config** cfg) {
  char yaml[2048], cwd[1024];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
  int n = snprintf(yaml, sizeof(yaml), "robots: [{urdf: %s/../shared/data/robots/%s, base: %s}]\n%s",
                   cwd, urdf, base, rest);
  ck_assert_int_lt(n, (int)sizeof(yaml));
  return make(yaml, cfg);
}

// world angular momentum about the com of a single free body: R Ic w
static void world_L(const sim* s, double L[3]) {
  double R[9], Iw[3], Ic[9];
  memcpy(Ic, s->model.m->body_inertia + 9, sizeof(Ic));
  sp_quat2mat(R, s->data.d->q + 3);
  sp_mulmv3(Iw, Ic, s->data.d->v + 3);
  sp_mulmv3(L, R, Iw);
}

// total energy of the current state (kinematics and M refreshed)
static double energy(sim* s) {
  kin_forward(s->model.m, s->data.d);
  kin_velocity(s->model.m, s->data.d);
  dyn_crba(s->model.m, s->data.d);
  return dyn_kinetic(s->model.m, s->data.d) + dyn_potential(s->model.m, s->data.d);
}

// torque-free asymmetric body spun about its intermediate axis (plus a small perturbation, so it
// tumbles): kinetic energy and world L conserved
// (explicit: integrator.velocity_products: explicit; returns the largest energy drift)
static double spin_run(double dt, int expl, double* lmax_out) {
  char yaml[1024];
  snprintf(yaml, sizeof(yaml),
           "world: {gravity: [0, 0, 0], ground: {type: none}}\n"
           "robots: [{urdf: asym.urdf, base: free, q0: [0, 0, 1, 0, 0, 0, 1], "
           "v0: [0, 0, 0, 0.01, 5, 0.01]}]\n"
           "integrator: {dt: %.17g, duration: 10, velocity_products: %s}\n", dt,
           expl ? "explicit" : "midpoint");
  scn_config* cfg;
  sim* s = make(yaml, &cfg);
  double e0 = energy(s), L0[3], L1[3];
  world_L(s, L0);
  long n = lround(10 / dt);
  double emax = 0, lmax = 0;
  csim_error err;
  for (long k = 0; k < n; k++) {
    sim_stepinfo info;
    memset(&info, 0, sizeof(info));
    ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
    if (k % 50 == 0 || k + 1 == n) {
      emax = fmax(emax, fabs(energy(s) - e0) / e0);
      world_L(s, L1);
      double dl[3];
      sp_sub3(dl, L1, L0);
      lmax = fmax(lmax, sp_norm3(dl) / sp_norm3(L0));
    }
  }
  printf("integrate: spin dt %g (%s, %.3f evaluations a step): max relative energy drift %.2e, "
         "|dL|/|L| %.2e\n", dt, expl ? "explicit" : "midpoint",
         (double)s->data.midpoint_its / (double)n, emax, lmax);
  fflush(stdout);
  sim_free(s);
  scn_free(cfg);
  *lmax_out = lmax;
  return emax;
}

static void spin_case(double dt, double tol_e, double tol_l) {
  double lmax, emax = spin_run(dt, 0, &lmax);
  ck_assert_msg(emax <= tol_e, "energy drift %.3g > %.3g at dt %g", emax, tol_e, dt);
  ck_assert_msg(lmax <= tol_l, "angular momentum drift %.3g > %.3g at dt %g", lmax, tol_l, dt);
}

// robots (YAML list items) stepped n times at dt 1 ms without gravity or ground: q after the
// last step into q (nq values), the implicit midpoint's iterations returned
static long free_run(const char* robots, int n, double* q, int nq) {
  char yaml[1024];
  snprintf(yaml, sizeof(yaml),
           "world: {gravity: [0, 0, 0], ground: {type: none}}\nrobots: [%s]\n"
           "integrator: {dt: 1.0e-3, duration: 1}\n", robots);
  scn_config* cfg;
  sim* s = make(yaml, &cfg);
  ck_assert_int_eq(s->model.m->nq, nq);
  csim_error err;
  for (int k = 0; k < n; k++) {
    sim_stepinfo info;
    ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
  }
  memcpy(q, s->data.d->q, sizeof(double) * (size_t)nq);
  long its = s->data.midpoint_its;
  sim_free(s);
  scn_free(cfg);
  return its;
}

// the implicit midpoint iterates each tree to its own tolerance (stage.c; M is block diagonal
// by tree): a body tumbling slowly beside one spinning fast, far apart, moves as it does alone,
// bit for bit (a common stop would iterate the slow one as often as the fast one)
START_TEST(trees_iterate_alone) {
  const char* slow = "{urdf: asym.urdf, base: free, q0: [0, 0, 1, 0, 0, 0, 1], "
                     "v0: [0, 0, 0, 0.01, 0.5, 0.01]}";
  const char* fast = "{urdf: asym.urdf, base: free, q0: [5, 0, 1, 0, 0, 0, 1], "
                     "v0: [0, 0, 0, 3, 2, 40]}";
  char both[512];
  snprintf(both, sizeof(both), "%s, %s", slow, fast);
  double qs[7], qf[7], qb[14];
  long its_s = free_run(slow, 300, qs, 7), its_f = free_run(fast, 300, qf, 7);
  long its_b = free_run(both, 300, qb, 14);
  ck_assert_msg(its_f > its_s, "precondition: the fast body iterates more (%ld, %ld)", its_f, its_s);
  ck_assert_int_eq(its_b, its_f);  // the loop runs until the last tree settles
  ck_assert_msg(!memcmp(qb, qs, sizeof(qs)), "the slow body differs beside the fast one");
  ck_assert_msg(!memcmp(qb + 7, qf, sizeof(qf)), "the fast body differs beside the slow one");
}
END_TEST

// the midpoint's first iterate from the line through the last two steps' velocity products
// (stage.c): a body tumbling slowly about its intermediate axis settles at the first
// evaluation on almost every step under the change test (2.0 evaluations a step from the last
// step's alone) and keeps its kinetic energy and world angular momentum over 2 s
START_TEST(midpoint_line_guess) {
  scn_config* cfg;
  sim* s = make("world: {gravity: [0, 0, 0], ground: {type: none}}\n"
                "robots: [{urdf: asym.urdf, base: free, q0: [0, 0, 1, 0, 0, 0, 1], "
                "v0: [0, 0, 0, 0.01, 2, 0.01]}]\n"
                "integrator: {dt: 1.0e-3, duration: 10}\n", &cfg);
  double e0 = energy(s), L0[3], L1[3], dl[3];
  world_L(s, L0);
  int n = 2000;
  csim_error err;
  for (int k = 0; k < n; k++) {
    sim_stepinfo info;
    ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
  }
  double its = (double)s->data.midpoint_its / n, de = fabs(energy(s) - e0) / e0;
  world_L(s, L1);
  sp_sub3(dl, L1, L0);
  double dL = sp_norm3(dl) / sp_norm3(L0);
  printf("integrate: line guess: %.3f evaluations a step, energy drift %.2e, |dL|/|L| %.2e\n",
         its, de, dL);
  fflush(stdout);
  ck_assert_msg(its < 1.1, "%.3f evaluations a step", its);
  ck_assert_msg(de < 1e-11 && dL < 1e-10, "drift: energy %.3g, momentum %.3g", de, dL);
  sim_free(s);
  scn_free(cfg);
}
END_TEST

// stage_free_velocity on sim s's current data, from its carried state (restored after): v_f
// into vf, the evaluations returned; `forget`: with no contraction factor known (the change
// test alone)
static long free_velocity_at(sim* s, int forget, double* vf) {
  step_data* sd = &s->data;
  const step_model* sm = &s->model;
  int nv = sm->m->nv, nt = sm->ntree;
  double keep[4][64], rho[4 * 8];
  ck_assert_int_le(nv, 64);
  ck_assert_int_le(nt, 8);
  double* arr[4] = {sd->apas, sd->apas1, sd->vfree, sd->vprev};
  for (int i = 0; i < 4; i++) memcpy(keep[i], arr[i], sizeof(double) * (size_t)nv);
  memcpy(rho, sd->tree_rho, sizeof(double) * 4 * (size_t)nt);
  long its0 = sd->midpoint_its;
  if (forget)
    for (int t = 0; t < nt; t++) sd->tree_rho[4 * t + 2] = 0;
  stage_free_velocity(sm, sd, &s->opt, s->opt.dt);
  long its = sd->midpoint_its - its0;
  memcpy(vf, sd->vfree, sizeof(double) * (size_t)nv);
  sd->apas = arr[0];  // (the stage swaps the two)
  sd->apas1 = arr[1];
  for (int i = 0; i < 4; i++) memcpy(arr[i], keep[i], sizeof(double) * (size_t)nv);
  memcpy(sd->tree_rho, rho, sizeof(double) * 4 * (size_t)nt);
  sd->midpoint_its = its0;
  return its;
}

// a tree touching something stops on the error bound of its contraction (stage.c mp_settled):
// Solo-12 standing settles at the first evaluation where the change test alone takes two, and
// the v_f it keeps is within the tolerance of the change test's (the old path's)
START_TEST(midpoint_error_stop) {
  fixture f = fixture_file("scenarios/solo12_stand.yaml", NULL, 0);
  int nv = f.s->model.m->nv, fewer = 0, n = 100;
  ck_assert_int_eq(f.s->model.ntree, 1);
  double worst = 0;
  for (int k = 0; k < 200 + n; k++) {
    csim_error err;
    sim_stepinfo info;
    ck_assert_int_eq(sim_step(f.s, &info, &err), CSIM_OK);
    if (k < 200) continue;
    double v1[64], v2[64], scale = 0, diff = 0;
    long its1 = free_velocity_at(f.s, 0, v1), its2 = free_velocity_at(f.s, 1, v2);
    for (int i = 0; i < nv; i++) {
      scale = fmax(scale, fabs(v2[i]));
      diff = fmax(diff, fabs(v1[i] - v2[i]));
    }
    fewer += its1 < its2;
    worst = fmax(worst, diff / (1e-10 * (1 + scale)));
  }
  printf("integrate: error stop: fewer evaluations on %d of %d steps, v_f within %.2g of the "
         "tolerance of the change test's\n", fewer, n, worst);
  fflush(stdout);
  ck_assert_msg(fewer >= n / 4, "the error stop engaged on %d of %d steps", fewer, n);
  ck_assert_msg(worst <= 1, "v_f off the change test's by %.3g of the tolerance", worst);
  fixture_free(&f);
}
END_TEST

START_TEST(intermediate_axis_spin_conserves) {
  spin_case(1e-3, 1e-6, 1e-6);
  spin_case(1e-2, 1e-4, 1e-6);
  // the same with the velocity products explicit (the previous scheme; kept as an option):
  // energy grows, so the check above can tell the two apart
  double lmax, emax = spin_run(1e-3, 1, &lmax);
  ck_assert_msg(emax > 1e-3, "explicit velocity products: drift %.3g, expected > 1e-3", emax);
}
END_TEST

// com 0.1 m off the link frame on each axis, spinning and translating without forces: the com
// moves on a straight line at its initial velocity (linear momentum conserved)
START_TEST(offset_com_momentum) {
  const char* yaml =
      "world: {gravity: [0, 0, 0], ground: {type: none}}\n"
      "robots: [{urdf: asym_offset.urdf, base: free, q0: [0, 0, 1, 0.1, 0.2, 0.3, 0.9], "
      "v0: [0.3, -0.2, 0.1, 1, 5, -2]}]\n"
      "integrator: {dt: 1e-3, duration: 10}\n";
  scn_config* cfg;
  sim* s = make(yaml, &cfg);
  kin_forward(s->model.m, s->data.d);
  double c0[3], v0[3] = {0.3, -0.2, 0.1};
  memcpy(c0, s->data.d->xcom + 3, sizeof(c0));
  csim_error err;
  for (int k = 0; k < 10000; k++) {
    sim_stepinfo info;
    ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
  }
  kin_forward(s->model.m, s->data.d);
  // momentum from the com's displacement over 10 s, and from the state
  for (int i = 0; i < 3; i++) {
    double vavg = (s->data.d->xcom[3 + i] - c0[i]) / 10;
    ck_assert_msg(fabs(vavg - v0[i]) <= 1e-9 * sp_norm3(v0), "com velocity %d: %.17g vs %.17g", i,
                  vavg, v0[i]);
  }
  sim_free(s);
  scn_free(cfg);
}
END_TEST

// a spinning cube in ballistic flight: the com on the exact parabola after 1 s
START_TEST(ballistic_parabola) {
  const double dts[2] = {1.0 / 148, 1.0 / 1480};
  for (int t = 0; t < 2; t++) {
    char yaml[1024];
    snprintf(yaml, sizeof(yaml),
             "world: {gravity: [0, 0, -9.81], ground: {type: none}}\n"
             "robots: [{urdf: asym_offset.urdf, base: free, q0: [0, 0, 1, 0.1, 0.2, 0.3, 0.9], "
             "v0: [1, 0.5, 3, 7, -4, 11]}]\n"
             "integrator: {dt: %.17g, duration: 1}\n", dts[t]);
    scn_config* cfg;
    sim* s = make(yaml, &cfg);
    kin_forward(s->model.m, s->data.d);
    double c0[3];
    memcpy(c0, s->data.d->xcom + 3, sizeof(c0));
    long n = lround(1 / dts[t]);
    csim_error err;
    for (long k = 0; k < n; k++) {
      sim_stepinfo info;
      ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
    }
    kin_forward(s->model.m, s->data.d);
    double T = (double)n * dts[t];
    double ex[3] = {c0[0] + T, c0[1] + 0.5 * T, c0[2] + 3 * T - 0.5 * 9.81 * T * T};
    double d2[3];
    sp_sub3(d2, s->data.d->xcom + 3, ex);
    printf("integrate: ballistic dt 1/%g: com off the parabola by %.2e m\n", 1 / dts[t],
           sp_norm3(d2));
    ck_assert_msg(sp_norm3(d2) <= 1e-9, "com off the parabola by %.3g m at dt %g", sp_norm3(d2),
                  dts[t]);
    sim_free(s);
    scn_free(cfg);
  }
}
END_TEST

// every floating robot of the shared data that loads: zero gravity, random joint velocities
// (limits off and the files' joint damping and friction left out: this checks the integrator of a
// conservative system), 2 s at dt = 1 ms: relative energy drift <= 1e-3
START_TEST(floating_robots_energy) {
  FILE* f = fopen("../shared/data/robots/MANIFEST.tsv", "r");
  ck_assert_msg(f != NULL, "../shared/data/robots/MANIFEST.tsv not found (shared/ beside the repo)");
  char line[4096];
  int nrobots = 0;
  unsigned seed = 12345;
  while (fgets(line, sizeof(line), f)) {
    char name[128], file[512];
    if (sscanf(line, "%127[^\t]\t%511[^\t]", name, file) != 2) continue;
    size_t n = strlen(file);
    if (n < 5 || strcmp(file + n - 5, ".urdf") != 0) continue;
    char yaml[2048];
    snprintf(yaml, sizeof(yaml),
             "world: {gravity: [0, 0, 0], ground: {type: none}}\n"
             "robots: [{urdf: %s/../shared/data/robots/%s, base: free, joint_dynamics: ignore}]\n"
             "limits: {enabled: false}\n"
             "integrator: {dt: 1e-3, duration: 2}\n", getcwd((char[1024]){0}, 1024), file);
    scn_config* cfg = NULL;
    csim_error err;
    err_clear(&err);
    char sname[512];
    snprintf(sname, sizeof(sname), "%s/test.yaml", g_dir);
    if (scn_load_string(yaml, sname, NULL, 0, &cfg, &err) != CSIM_OK) continue;
    sim* s = NULL;
    if (sim_create(cfg, &s, &err) != CSIM_OK) {  // meshes missing etc.: not this test's subject
      scn_free(cfg);
      continue;
    }
    for (int k = 0; k < s->model.m->nv; k++) {
      seed = seed * 1103515245u + 12345u;
      s->data.d->v[k] = ((double)(seed >> 8) / (double)(1u << 24) - 0.5) * 2;
    }
    double e0 = energy(s), emax = 0;
    for (int k = 0; k < 2000; k++) {
      sim_stepinfo info;
      ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
      if (k % 100 == 99) emax = fmax(emax, fabs(energy(s) - e0) / e0);
    }
    printf("integrate: %-48s nv %2d energy drift %.2e\n", file, s->model.m->nv, emax);
    ck_assert_msg(emax <= 1e-3, "%s: energy drift %.3g > 1e-3", file, emax);
    nrobots++;
    sim_free(s);
    scn_free(cfg);
  }
  fclose(f);
  ck_assert_int_ge(nrobots, 10);
}
END_TEST

// a legged robot dropped 0.1 m with no control, limits on or off: the largest violation of a
// joint limit and the lowest base height over the run
static void drop_case(const char* urdf, const char* contact, int limits, double* worst,
                      double* zmin) {
  char rest[1024];
  snprintf(rest, sizeof(rest),
           "contact: %s\n"
           "solver: {name: pgs, tolerance: 1e-6, max_iterations: 500}\n"
           "limits: {enabled: %s}\n"
           "integrator: {dt: 1e-3, duration: 1.5%s}\n", contact,
           limits ? "true" : "false", strstr(contact, "hunt") ? ", scheme: tamsi" : "");
  scn_config* cfg;
  sim* s = make_robot(urdf, "free", rest, &cfg);
  const sim_model* m = s->model.m;
  // start within the limits (q = 0 clamped into each range), lowest point of the collision
  // geometries (bounding spheres) 0.1 m above the ground
  for (int j = 0; j < m->njnt; j++)
    if (m->jnt_type[j] != MODEL_JOINT_FREE && m->jnt_limited[j])
      s->data.d->q[m->jnt_qadr[j]] = fmin(fmax(0, m->jnt_range[2 * j]), m->jnt_range[2 * j + 1]);
  kin_forward(m, s->data.d);
  double low = INFINITY;
  for (int g = 0; g < m->ngeom; g++)
    if (m->geom_body[g] > 0) low = fmin(low, s->data.d->geom_xpos[3 * g + 2] - m->geom_rbound[g]);
  ck_assert(isfinite(low));
  s->data.d->q[2] += 0.1 - low;
  csim_error err;
  *worst = 0;
  *zmin = INFINITY;
  for (int k = 0; k < 1500; k++) {
    sim_stepinfo info;
    ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
    for (int j = 0; j < m->njnt; j++) {
      if (m->jnt_type[j] == MODEL_JOINT_FREE || !m->jnt_limited[j]) continue;
      double q = s->data.d->q[m->jnt_qadr[j]];
      *worst = fmax(*worst, fmax(m->jnt_range[2 * j] - q, q - m->jnt_range[2 * j + 1]));
    }
    *zmin = fmin(*zmin, s->data.d->q[2]);
  }
  printf("integrate: %s dropped, limits %s: worst limit violation %.2e, lowest base %.3f m\n",
         urdf, limits ? "on" : "off", *worst, *zmin);
  fflush(stdout);
  sim_free(s);
  scn_free(cfg);
}

// Unitree A1 (shared data; cassie_v2's URDF has every <limit> commented out, see the shared
// README, and cassie_v4's meshes are not provided) dropped 0.1 m with no control: with limits
// its joints stay within them (1e-3 rad) and its trunk above the ground; without, the legs fold
// past them (so the check can fail)
START_TEST(dropped_robot_limits) {
  double worst, zmin;
  const char* rigid = "{model: ncp, friction: 0.8}";
  drop_case("a1/a1.urdf", rigid, 1, &worst, &zmin);
  ck_assert_msg(worst <= 1e-3, "a joint beyond its limit by %.3g rad", worst);
  ck_assert_msg(zmin > 0, "trunk below the ground (%.3g m)", zmin);
  drop_case("a1/a1.urdf", rigid, 0, &worst, &zmin);
  ck_assert_msg(worst > 1e-2, "without limits the legs should fold past them (%.3g)", worst);
}
END_TEST

// the same drop with a compliant law: the limit spring (limits.stiffness 1e4 N m/rad, implicit
// in the step) keeps the joints within 0.02 rad of their limits; without it they fold past
START_TEST(compliant_limits) {
  double worst, zmin;
  const char* hc = "{model: hunt_crossley, stiffness: 1e5, damping: 10, friction: 0.8}";
  drop_case("a1/a1.urdf", hc, 1, &worst, &zmin);
  ck_assert_msg(worst <= 0.02, "a joint beyond its limit by %.3g rad", worst);
  drop_case("a1/a1.urdf", hc, 0, &worst, &zmin);
  ck_assert_msg(worst > 0.1, "without limits the legs should fold past them (%.3g)", worst);
}
END_TEST

// URDF effort limits clamp the torques of actions (counted); off, they do not
START_TEST(effort_limits_clamp) {
  for (int on = 1; on >= 0; on--) {
    char rest[512];
    snprintf(rest, sizeof(rest),
             "limits: {effort: %s}\n"
             "actions: [{type: pd, kp: 1e5, target: [0.5]}]\n"
             "integrator: {dt: 1e-3, duration: 0.01}\n", on ? "true" : "false");
    scn_config* cfg;
    sim* s = make_robot("a1/a1.urdf", "fixed", rest, &cfg);
    csim_error err;
    sim_stepinfo info;
    ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
    double over = 0;
    int nlim = 0;
    for (int j = 0; j < s->model.m->njnt; j++) {
      double e = s->model.m->jnt_effort[j];
      if (!(e > 0)) continue;
      nlim++;
      over = fmax(over, fabs(s->data.d->qfrc_applied[s->model.m->jnt_dofadr[j]]) - e);
    }
    ck_assert_int_ge(nlim, 12);
    if (on) {
      ck_assert_msg(over <= 0, "a torque above its effort limit by %g", over);
      ck_assert_int_eq(s->data.warnings[SIM_WARN_EFFORT], 1);
    } else {
      ck_assert_msg(over > 0, "the 1e5 gain should exceed the effort limits");
      ck_assert_int_eq(s->data.warnings[SIM_WARN_EFFORT], 0);
    }
    sim_free(s);
    scn_free(cfg);
  }
}
END_TEST

// step a scenario's sim to its duration or its first failing step; that step's status
static csim_status step_to_end(fixture* f, csim_error* err) {
  long n = lround(f->cfg->duration / f->cfg->dt);
  csim_status st = CSIM_OK;
  err_clear(err);
  for (long k = 0; k < n && st == CSIM_OK; k++) {
    sim_stepinfo info;
    st = sim_step(f->s, &info, err);
  }
  return st;
}

// run a scenario file with overrides; returns the step status and the audit's flag
static int run_file(const char* path, const char* const* sets, int nset, int* flagged) {
  fixture f = fixture_file(path, sets, nset);
  csim_error err;
  csim_status st = step_to_end(&f, &err);
  if (st == CSIM_OK) st = sim_finish(f.s, &err);
  *flagged = f.s->data.energy.flagged;
  if (*flagged) printf("integrate: %s: energy gain %.3g J flagged at step %ld\n", path,
                       f.s->data.energy.flag_gain, f.s->data.energy.flag_step);
  fixture_free(&f);
  return st;
}

// cube_drop under a Hunt-Crossley law integrated with too large a step (the audit stops the
// run; the first 6 alone: it warns)
static const char* const kHcStop[7] = {
    "contact.model=hunt_crossley", "contact.stiffness=4944", "contact.damping=7.29",
    "contact.friction=0.182", "contact.stiction_velocity=1e-3", "integrator.dt=0.0045",
    "integrator.on_energy_gain=stop"};

// the energy audit: flags a compliant law integrated with too large a step, and a 1000 m/s
// impact at dt = 0.1 s; stops the run when asked (exit 1)
START_TEST(energy_audit_flags) {
  int flagged = 0;
  ck_assert_int_eq(run_file("scenarios/cube_drop.yaml", kHcStop, 7, &flagged), CSIM_ERR_RUN);
  ck_assert_int_eq(flagged, 1);
  ck_assert_int_eq(run_file("scenarios/cube_drop.yaml", kHcStop, 6, &flagged), CSIM_OK);  // warn
  ck_assert_int_eq(flagged, 1);
  // 1000 m/s into the ground with the same law at dt = 0.1 s: the run fails (divergence) and the
  // audit records the gain
  const char* fast[] = {"contact.model=hunt_crossley", "contact.stiffness=4944",
                        "contact.damping=7.29", "robots.0.v0=[0,0,-1000,0,0,0]",
                        "robots.0.q0=[0,0,1,0,0,0,1]", "integrator.dt=0.1",
                        "integrator.duration=1"};
  ck_assert_int_eq(run_file("scenarios/cube_drop.yaml", fast, 7, &flagged), CSIM_ERR_RUN);
  ck_assert_int_eq(flagged, 1);
}
END_TEST

// the audit runs at the same point of the one step outline for every model (core/sim.c): a run
// stopped by it (integrator.on_energy_gain: stop) ends before the step whose starting state
// gained, so the state is the flagged one. A compliant run used to take that step first.
START_TEST(energy_stop_before_the_step) {
  fixture f = fixture_file("scenarios/cube_drop.yaml", kHcStop, 7);
  csim_error err;
  ck_assert_int_eq(step_to_end(&f, &err), CSIM_ERR_RUN);
  const sim* s = f.s;
  ck_assert(s->data.energy.flagged);
  ck_assert_int_eq(s->data.step, s->data.energy.flag_step);
  ck_assert_double_eq(s->data.d->time, s->data.energy.flag_time);
  fixture_free(&f);
}
END_TEST

// silent on the shipped scenarios with their own settings, except cube_stack_ill, whose PGS
// (by design: 000 Fig. 12) does not converge and lets the 1 t cube sink into the 1 g one; with
// ADMM, which converges there, it is silent too
START_TEST(energy_audit_silent) {
  const char* names[] = {"cube_drop", "cube_push_ramp", "cube_slide", "gripper_mug",
                         "panda_push_cube", "solo12_stand", "stick_slip_box", "talos_stand"};
  int flagged = 0;
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
    char path[256];
    snprintf(path, sizeof(path), "scenarios/%s.yaml", names[k]);
    ck_assert_int_eq(run_file(path, NULL, 0, &flagged), CSIM_OK);
    ck_assert_msg(!flagged, "%s: energy audit flagged a gain", names[k]);
  }
  // with all the box-box clip points (patch reduction off): with the default reduction to 4
  // points per patch PGS fails there too, but the 1 t cube sinks through without a gain
  const char* full[] = {"contact.patch_angle=0"};
  ck_assert_int_eq(run_file("scenarios/cube_stack_ill.yaml", full, 1, &flagged), CSIM_OK);
  ck_assert_int_eq(flagged, 1);
  const char* admm[] = {"solver.name=admm"};
  ck_assert_int_eq(run_file("scenarios/cube_stack_ill.yaml", admm, 1, &flagged), CSIM_OK);
  ck_assert_int_eq(flagged, 0);
}
END_TEST

int main(void) {
  Suite* su = suite_create("integrate");
  TCase* t = tcase_create("integrate");
  tcase_set_timeout(t, 600);
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, intermediate_axis_spin_conserves);
  tcase_add_test(t, trees_iterate_alone);
  tcase_add_test(t, midpoint_line_guess);
  tcase_add_test(t, midpoint_error_stop);
  tcase_add_test(t, offset_com_momentum);
  tcase_add_test(t, ballistic_parabola);
  tcase_add_test(t, floating_robots_energy);
  tcase_add_test(t, dropped_robot_limits);
  tcase_add_test(t, compliant_limits);
  tcase_add_test(t, effort_limits_clamp);
  tcase_add_test(t, energy_audit_flags);
  tcase_add_test(t, energy_stop_before_the_step);
  tcase_add_test(t, energy_audit_silent);
  suite_add_tcase(su, t);
  return run_suite(su);
}
