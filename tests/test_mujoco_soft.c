// test_mujoco_soft.c — csim's ccp model with MuJoCo's solref/solimp (material.h) against MuJoCo
// 2.2.2 itself on one cube (0.37 kg, side 0.1048 m, seed 003's cube) on a plane.
//
// Both simulators get the same cube, plane, dt, solref and solimp; MuJoCo runs with the elliptic
// cone (csim's ccp), the Euler integrator (csim's velocity-level step) and margin 0 (csim's
// contact.margin 0). Compared:
//   - at rest (started touching, 1 s): the penetration of the four corners, and R of the normal
//     rows (MuJoCo efc_R) against csim's R, and both against the closed form of the steady state:
//     every corner carries m g h / 4 per step and c_N = 0, so R lambda = c* = h K imp(r) r, i.e.
//     (1-imp)/imp (1/m) m g / 4 = K imp r  ->  r = (1-imp(r)) g / (4 K imp(r)^2) (fixed point);
//   - an impact at 1 m/s without gravity (csim moves a body in free flight along the exact
//     parabola, MuJoCo by symplectic Euler: with gravity the two differ by g h t / 2 before any
//     contact; without it both move with v+): the deepest penetration and the rebound velocity
//     after 0.1 s.
// Tolerances (measured: 2e-6, 4e-8, 1e-9 relative): the rest penetration within 1e-4 relative of
// MuJoCo's and of the closed form (four corners carry one cube: the solvers may split the load
// differently within their tolerances), R within 1e-6 relative (R depends on the depth only
// through imp, flat there); the impact's deepest penetration within 1e-6 relative and the rebound
// velocity within 1e-6 m/s.
#include <check.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/contact.h"
#include "core/material.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "support.h"

#define HALF 0.0524
#define MASS 0.37
#define INERTIA 0.00081

// one parameter set
typedef struct {
  double solref[2];
  double solimp[5];
  double dt;
} soft_case;

static const soft_case k_cases[] = {
    {{0.02, 1}, {0.9, 0.95, 0.001, 0.5, 2}, 1e-3},            // MuJoCo's defaults
    {{-3850, -63}, {0.9, 0.95, 0.001, 0.5, 2}, 1.0 / 1480},   // seed 003 Tab. II MuJoCo, direct
    {{0.01, 0.7}, {0.8, 0.99, 0.004, 0.3, 3}, 5e-4},           // a softer curve, underdamped
};

// MuJoCo's model of an XML text (written to a file under out/, loaded, removed)
static mjModel* mj_from_text(const char* xml) {
  char path[64];
  snprintf(path, sizeof path, "out/csim_test_mjsoft_%d.xml", (int)getpid());
  FILE* f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(xml, f);
  fclose(f);
  char err[1000] = "";
  mjModel* m = mj_loadXML(path, NULL, err, sizeof err);
  unlink(path);
  ck_assert_msg(m != NULL, "MuJoCo: %s", err);
  return m;
}

// the cube (MASS, INERTIA, side 2 HALF) as a URDF at path
static void write_cube_urdf(const char* path) {
  FILE* f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f,
          "<?xml version=\"1.0\"?><robot name=\"cube\"><link name=\"cube\"><inertial><mass value=\"%g\"/>"
          "<inertia ixx=\"%g\" ixy=\"0\" ixz=\"0\" iyy=\"%g\" iyz=\"0\" izz=\"%g\"/></inertial><collision>"
          "<geometry><box size=\"%g %g %g\"/></geometry></collision></link></robot>\n",
          MASS, INERTIA, INERTIA, INERTIA, 2 * HALF, 2 * HALF, 2 * HALF);
  fclose(f);
}

// MuJoCo model of the case, cube centre at height z0
static mjModel* mj_model(const soft_case* c, double z0, double gz, const char* cone) {
  char xml[2048];
  snprintf(xml, sizeof xml,
           "<mujoco><option gravity=\"0 0 %.17g\" timestep=\"%.17g\" cone=\"%s\" integrator=\"Euler\" impratio=\"1\" "
           "tolerance=\"1e-12\" iterations=\"200\"/>"
           "<default><geom solref=\"%.17g %.17g\" solimp=\"%.17g %.17g %.17g %.17g %.17g\" "
           "friction=\"0.5 0.005 0.0001\" margin=\"0\"/></default>"
           "<worldbody><geom name=\"floor\" type=\"plane\" size=\"2 2 0.1\"/>"
           "<body name=\"cube\" pos=\"0 0 %.17g\"><freejoint/>"
           "<inertial pos=\"0 0 0\" mass=\"%g\" diaginertia=\"%g %g %g\"/>"
           "<geom type=\"box\" size=\"%g %g %g\"/></body></worldbody></mujoco>",
           gz, c->dt, cone, c->solref[0], c->solref[1], c->solimp[0], c->solimp[1], c->solimp[2], c->solimp[3],
           c->solimp[4], z0, MASS, INERTIA, INERTIA, INERTIA, HALF, HALF, HALF);
  return mj_from_text(xml);
}

// csim sim of the case, cube centre at height z0 (the URDF is written next to the scenario)
static sim* csim_sim(const soft_case* c, double z0, double gz, const double v0[3], const char* cone,
                     scn_config** cfgo) {
  char upath[64];
  snprintf(upath, sizeof upath, "out/csim_test_mjsoft_%d.urdf", (int)getpid());
  write_cube_urdf(upath);
  char yaml[2048];
  snprintf(yaml, sizeof yaml,
           "name: t\nworld: {gravity: [0, 0, %.17g], ground: {type: plane}}\n"
           "robots:\n  - {urdf: %s, base: free, q0: [0, 0, %.17g, 0, 0, 0, 1], v0: [%.17g, %.17g, %.17g, 0, 0, 0]}\n"
           "contact: {model: ccp, friction: 0.5, margin: 0, cone: %s, solref: [%.17g, %.17g], "
           "solimp: [%.17g, %.17g, %.17g, %.17g, %.17g]}\n"
           "solver: {name: %s, tolerance: 1.0e-12, max_iterations: 5000, criterion: model}\n"
           "integrator: {dt: %.17g, duration: 1, velocity_products: explicit}\n",
           gz, upath, z0, v0[0], v0[1], v0[2], cone, c->solref[0], c->solref[1], c->solimp[0], c->solimp[1], c->solimp[2], c->solimp[3],
           c->solimp[4], strcmp(cone, "pyramidal") ? "admm" : "pgs", c->dt);
  csim_error err;
  err_clear(&err);
  ck_assert_msg(scn_load_string(yaml, "mjsoft.yaml", NULL, 0, cfgo, &err) == CSIM_OK, "%s", err.msg);
  sim* s = NULL;
  ck_assert_msg(sim_create(*cfgo, &s, &err) == CSIM_OK, "%s", err.msg);
  unlink(upath);
  return s;
}

// the case in both simulators, started alike (cube centre at z0, gravity gz, vertical velocity
// vz), stepped in lockstep
typedef struct {
  mjModel* m;
  mjData* md;
  scn_config* cfg;
  sim* s;
} twin;

static twin twin_cone(const soft_case* c, double z0, double gz, const double v0[3],
                      const char* cone) {
  twin t;
  t.m = mj_model(c, z0, gz, cone);
  t.md = mj_makeData(t.m);
  for (int k = 0; k < 3; k++) t.md->qvel[k] = v0[k];
  t.cfg = NULL;
  t.s = csim_sim(c, z0, gz, v0, cone, &t.cfg);
  return t;
}

static twin twin_make(const soft_case* c, double z0, double gz, double vz) {
  double v0[3] = {0, 0, vz};
  return twin_cone(c, z0, gz, v0, "elliptic");
}

// one step of each (csim's asserted)
static void twin_step(twin* t) {
  csim_error err;
  err_clear(&err);
  mj_step(t->m, t->md);
  sim_stepinfo info;
  ck_assert_msg(sim_step(t->s, &info, &err) == CSIM_OK, "%s", err.msg);
}

static void twin_free(twin* t) {
  sim_free(t->s);
  scn_free(t->cfg);
  mj_deleteData(t->md);
  mj_deleteModel(t->m);
}

// deepest MuJoCo contact penetration (m, > 0 when overlapping)
static double mj_pen(const mjData* d) {
  double p = 0;
  for (int i = 0; i < d->ncon; i++)
    if (-d->contact[i].dist > p) p = -d->contact[i].dist;
  return p;
}

// deepest csim contact penetration
static double cs_pen(const sim* s) {
  double p = 0;
  for (int i = 0; i < s->data.con->ncon; i++)
    if (s->data.con->con[i].depth > p) p = s->data.con->con[i].depth;
  return p;
}

// the steady-state penetration of the closed form (fixed point on imp(r))
static double rest_closed_form(const soft_case* c) {
  double K, B, r = 1e-4;
  mat_soft_kb(c->solref, c->solimp, c->dt, &K, &B);
  for (int it = 0; it < 200; it++) {
    double imp = mat_impedance(c->solimp, -r);
    r = (1 - imp) * 9.81 / (4 * K * imp * imp);
  }
  return r;
}

START_TEST(rest_penetration_and_R) {
  const soft_case* c = &k_cases[_i];
  twin t = twin_make(c, HALF, -9.81, 0);
  mjData* md = t.md;
  const sim* s = t.s;
  int n = (int)lround(1.0 / c->dt);
  for (int k = 0; k < n; k++) twin_step(&t);
  mj_forward(t.m, md);
  double pm = mj_pen(md), pc = cs_pen(s), pf = rest_closed_form(c);
  printf("case %d: rest penetration MuJoCo %.9g csim %.9g closed form %.9g m\n", _i, pm, pc, pf);
  ck_assert_int_eq(md->ncon, 4);
  ck_assert_int_eq(s->data.con->ncon, 4);
  ck_assert_double_eq_tol(pc, pm, 1e-4 * pm);
  ck_assert_double_eq_tol(pc, pf, 1e-4 * pf);
  ck_assert_double_eq_tol(pm, pf, 1e-6 * pf);
  // R of the normal rows (MuJoCo elliptic rows: normal, t1, t2) vs csim's at each corner
  ck_assert_int_eq(md->nefc, 12);
  double rm = 0, rc = 0;
  for (int i = 0; i < 4; i++) {
    rm += md->efc_R[3 * i] / 4;
    rc += s->data.con->R[3 * i + 2] / 4;
    // friction rows: R_T = R_N (impratio 1)
    ck_assert_double_eq_tol(s->data.con->R[3 * i], s->data.con->R[3 * i + 2], 1e-15 * s->data.con->R[3 * i + 2]);
    ck_assert_double_eq_tol(md->efc_R[3 * i + 1], md->efc_R[3 * i], 1e-12 * md->efc_R[3 * i]);
  }
  printf("case %d: R MuJoCo %.12g csim %.12g\n", _i, rm, rc);
  ck_assert_double_eq_tol(rc, rm, 1e-6 * rm);
  // and K, B, imp of MuJoCo's rows are csim's (efc_KBIP)
  double K, B;
  mat_soft_kb(c->solref, c->solimp, c->dt, &K, &B);
  ck_assert_double_eq_tol(md->efc_KBIP[0], K, 1e-9 * K);
  ck_assert_double_eq_tol(md->efc_KBIP[1], B, 1e-12 * B);
  ck_assert_double_eq_tol(md->efc_KBIP[2], mat_impedance(c->solimp, md->efc_pos[0]), 1e-12);
  twin_free(&t);
}
END_TEST

START_TEST(drop) {
  const soft_case* c = &k_cases[_i];
  double z0 = HALF + 0.0105;
  twin t = twin_make(c, z0, 0, -1);
  mjData* md = t.md;
  const sim* s = t.s;
  int n = (int)lround(0.1 / c->dt);
  double maxm = 0, maxc = 0;
  for (int k = 0; k < n; k++) {
    twin_step(&t);
    mj_forward(t.m, md);
    if (mj_pen(md) > maxm) maxm = mj_pen(md);
    if (cs_pen(s) > maxc) maxc = cs_pen(s);
  }
  printf("case %d: impact deepest penetration MuJoCo %.9g csim %.9g m; after 0.1 s vz MuJoCo %.9g csim %.9g m/s\n",
         _i, maxm, maxc, md->qvel[2], s->data.d->v[2]);
  ck_assert_double_eq_tol(maxc, maxm, 1e-6 * maxm);
  ck_assert_double_eq_tol(s->data.d->v[2], md->qvel[2], 1e-6);
  twin_free(&t);
}
END_TEST

// contact.cone pyramidal (contact.h rhs_pyramid) against MuJoCo 2.2.2's pyramidal cone (its
// default): the cube settled at its rest depth, pushed along the diagonal at 0.1 m/s in x and y,
// so that the pyramid's facet |t1| + |t2| = mu n (not the disc) sets the friction. The CCP's
// sliding contacts push (000 Sec. III: c_N = mu |c_T| on the Lorentz cone, the edges' n - mu t
// velocity here), so the cube hops after a few steps, and in free flight csim (exact parabola) and
// MuJoCo (symplectic Euler) part by g h t / 2, which changes where it lands; compared is every
// step before the first free flight (at least 5): the velocities within 1e-9 m/s (the same
// problem, strictly convex with R > 0, solved to 1e-12 by both: csim's ccp pgs on the edges,
// MuJoCo's Newton; measured 6e-11), the edge regularizer R_py of the four corners (MuJoCo's efc_R,
// each edge's) within 1e-9 relative (the same formula; measured 7e-13), and, the closed form of
// sliding on the pyramid, |lambda_t1| + |lambda_t2| = mu lambda_N at every corner within 1e-9
// relative (the Lorentz cone's would be mu sqrt(2) lambda_N for the same diagonal slip).
static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

START_TEST(pyramid_slide) {
  const soft_case* c = &k_cases[_i];
  double v0[3] = {0.1, 0.1, 0};
  twin t = twin_cone(c, HALF - rest_closed_form(c), -9.81, v0, "pyramidal");
  mjData* md = t.md;
  const sim* s = t.s;
  int n = (int)lround(0.1 / c->dt), win = -1;
  double dv = 0, dr = 0, facet = 0;
  for (int k = 0; k < n; k++) {
    twin_step(&t);
    if (win < 0 && (s->data.con->ncon == 0 || md->ncon == 0)) win = k;
    if (win >= 0) continue;
    for (int j = 0; j < 6; j++) dv = fmax(dv, fabs(s->data.d->v[j] - md->qvel[j]));
    for (int i = 0; i < s->data.con->ncon; i++) {  // sliding: on the pyramid's facet
      const double* l = s->data.con->lambda + 3 * i;
      facet = fmax(facet, fabs(fabs(l[0]) + fabs(l[1]) - 0.5 * l[2]) / l[2]);
    }
    const contact_data* cd = s->data.con;
    if (md->nefc == 4 * cd->ncon && cd->ncon <= 4) {  // the corners in order of R (imp(depth))
      double rc[4], rm[4];
      for (int i = 0; i < cd->ncon; i++) {
        ck_assert_double_eq(cd->R[3 * i + 2], 0);
        for (int e = 1; e < 4; e++) ck_assert_double_eq(md->efc_R[4 * i + e], md->efc_R[4 * i]);
        rc[i] = cd->rpy[i], rm[i] = md->efc_R[4 * i];
      }
      qsort(rc, (size_t)cd->ncon, sizeof(double), cmp_double);
      qsort(rm, (size_t)cd->ncon, sizeof(double), cmp_double);
      for (int i = 0; i < cd->ncon; i++) dr = fmax(dr, fabs(rc[i] - rm[i]) / rm[i]);
    }
  }
  printf("case %d: pyramid slide: over the first %d steps |v csim - v MuJoCo| <= %.3g, R_py rel. "
         "diff %.3g, (|lambda_t1| + |lambda_t2|) / (mu lambda_N) - 1 within %.3g\n", _i, win, dv,
         dr, facet / 0.5);
  ck_assert_int_ge(win, 5);
  ck_assert_double_le(dr, 1e-9);
  ck_assert_double_le(dv, 1e-9);
  ck_assert_double_le(facet, 1e-9);
  twin_free(&t);
}
END_TEST

// a tossed cube's first impact (seed 003's toss 106 of dairlib550_eval: its first recorded state,
// corner first, 1.1 m/s down, spinning) under 003's own MuJoCo parameters (Tab. II: solref
// [-3850, -63], mu 0.23, dt 1/1480 s): csim's ccp with MuJoCo softness and its default margin
// under softness (MuJoCo's 0) against MuJoCo 2.2.2 on the same state. MuJoCo's soft reference
// aref = -B v - K r decelerates the cube at about 100 m/s^2: a long, low event (003 Fig. 5's "MuJoCo
// experiences a longer contact event"). The summed normal force of the first 10 contact steps
// within 5 % of MuJoCo's (measured: 32.1, 32.6, 32.4 N against 32.4, 32.7, 32.5). Loop 1 gives an
// explicit 1 mm margin: its contacts appear while still apart and must exert nothing of their own
// (contact.c apart_target); the rigid gap target c*_N = -gap/dt gave a 413 N spike in one step.
// Steps are compared by index from MuJoCo's first contact step
START_TEST(tossed_impact) {
  static const double q0[7] = {0.054941718402743471, -0.058655655211657574, 0.11502657468599273,
                               0.82476754327858226, -0.28759040261923297, 0.11604469648624093,
                               0.47284658007955993};  // csim's [x y z qx qy qz qw]
  static const double v0[6] = {-0.52111054180215033, 1.0833797184760099, -1.1129860789406887,
                               -1.5315185271422822, 3.6133748526348382, 1.6800919775257217};
  const double dt = 1.0 / 1480;
  char xml[2048];
  snprintf(xml, sizeof xml,
           "<mujoco><option gravity='0 0 -9.81' timestep='%.17g' cone='elliptic' integrator='Euler' "
           "impratio='1' tolerance='1e-12' iterations='200'/>"
           "<default><geom solref='-3850 -63' friction='0.23 0.005 0.0001' margin='0'/></default>"
           "<worldbody><geom type='plane' size='5 5 0.1'/><body><freejoint/>"
           "<inertial pos='0 0 0' mass='%g' diaginertia='%g %g %g'/>"
           "<geom type='box' size='%g %g %g'/></body></worldbody></mujoco>",
           dt, MASS, INERTIA, INERTIA, INERTIA, HALF, HALF, HALF);
  mjModel* m = mj_from_text(xml);
  mjData* md = mj_makeData(m);
  double qm[7] = {q0[0], q0[1], q0[2], q0[6], q0[3], q0[4], q0[5]};  // MuJoCo's [w x y z]
  for (int k = 0; k < 7; k++) md->qpos[k] = qm[k];
  for (int k = 0; k < 6; k++) md->qvel[k] = v0[k];  // com at the origin: the same velocity
  char upath[64];
  snprintf(upath, sizeof upath, "out/csim_test_mjtoss_%d.urdf", (int)getpid());
  write_cube_urdf(upath);
  char yaml[2048];
  snprintf(yaml, sizeof yaml,
           "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane}}\nrobots:\n"
           "  - {urdf: %s, base: free, q0: [%.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g], "
           "v0: [%.17g, %.17g, %.17g, %.17g, %.17g, %.17g]}\n"
           "contact: {model: ccp, friction: 0.23, solref: [-3850, -63]%s}\n"
           "solver: {name: admm, tolerance: 1.0e-12, max_iterations: 5000, criterion: model}\n"
           "integrator: {dt: %.17g, duration: 1, velocity_products: explicit}\n",
           upath, q0[0], q0[1], q0[2], q0[3], q0[4], q0[5], q0[6], v0[0], v0[1], v0[2], v0[3], v0[4],
           v0[5], _i ? ", margin: 1.0e-3" : "", dt);
  scn_config* cfg = NULL;
  csim_error e;
  err_clear(&e);
  ck_assert_msg(scn_load_string(yaml, "mjtoss.yaml", NULL, 0, &cfg, &e) == CSIM_OK, "%s", e.msg);
  sim* s = NULL;
  ck_assert_msg(sim_create(cfg, &s, &e) == CSIM_OK, "%s", e.msg);
  unlink(upath);
  double fm[10], fc[10];
  int nm = 0, nc = 0;
  for (int k = 0; k < 200 && nm < 10; k++) {
    sim_stepinfo info;
    mj_step(m, md);
    ck_assert_msg(sim_step(s, &info, &e) == CSIM_OK, "%s", e.msg);
    double zm = 0, zc = 0;
    for (int c = 0; c < md->ncon; c++) {
      double fr[6];
      mj_contactForce(m, md, c, fr);
      zm += fr[0] * md->contact[c].frame[2];  // the normal force's world z (the frame's first row)
    }
    const contact_data* con = s->data.con;
    for (int c = 0; c < con->ncon; c++) zc += con->lambda[3 * c + 2] / dt;  // normals: world z
    if (md->ncon || nm) fm[nm++] = zm, fc[nc++] = zc;  // the same steps from MuJoCo's first
  }
  ck_assert(nm == 10 && nc == 10);
  double worst = 0;
  for (int k = 0; k < 10; k++) worst = fmax(worst, fabs(fc[k] - fm[k]) / fm[k]);
  printf("tossed cube, first impact at 003's MuJoCo values, margin %s: normal force csim %.1f %.1f "
         "%.1f, MuJoCo %.1f %.1f %.1f N ...; largest relative difference over 10 steps %.3f\n",
         _i ? "1 mm" : "default", fc[0], fc[1], fc[2], fm[0], fm[1], fm[2], worst);
  ck_assert_msg(worst < 0.05, "normal force differs from MuJoCo's by %g relative", worst);
  sim_free(s);
  scn_free(cfg);
  mj_deleteData(md);
  mj_deleteModel(m);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("mujoco_soft");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  int nc = (int)(sizeof k_cases / sizeof k_cases[0]);
  tcase_add_loop_test(tc, rest_penetration_and_R, 0, nc);
  tcase_add_loop_test(tc, drop, 0, nc);
  tcase_add_loop_test(tc, pyramid_slide, 0, nc);
  tcase_add_loop_test(tc, tossed_impact, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(suite());
}
