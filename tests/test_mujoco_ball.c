// test_mujoco_ball.c — ball joints (model.h MODEL_JOINT_BALL) against MuJoCo 2.2.2 stepping the
// same MJCF file: a chain of three capsules on ball joints hanging from the world (the third
// joint off its body's origin, a spring on the second, damping and armature on all), released
// from a tilted pose with a spin, contacts off on both sides. csim's step with explicit velocity
// products is MuJoCo's Euler step with its implicit damping (test_mujoco_humanoid.c):
//  - M(q0) agrees entry by entry to 1e-9 relative to M's largest entry;
//  - over 200 steps every generalized position agrees to 1e-9, MuJoCo's [w x y z] quaternions
//    read in csim's [x y z w] order (a quaternion and its negative are the same rotation; both
//    sides keep the sign they integrate, so they are compared as they are).
// Also the cone limit (range "0 20" in degrees): MuJoCo's constraint row at a pose beyond it
// (distance and Jacobian) against csim's limit row (stage_limits, contact.c), and the soft
// limit under ccp with MuJoCo's softness stepped against MuJoCo's.
#include <check.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/sim.h"
#include "core/spatial.h"
#include "core/stage.h"
#include "core/state.h"
#include "scene_fixture.h"
#include "support.h"

static const char* const kChain =
    "<mujoco model='ball_chain'>\n"
    "  <option timestep='0.005'/>\n"
    "  <default>\n"
    "    <joint type='ball' damping='0.05' armature='0.01'/>\n"
    "    <geom type='capsule' size='0.04' contype='0' conaffinity='0'/>\n"
    "  </default>\n"
    "  <worldbody>\n"
    "    <body name='l1' pos='0 0 2'>\n"
    "      <joint name='b1'/>\n"
    "      <geom fromto='0 0 0 0.1 0 -0.4'/>\n"
    "      <body name='l2' pos='0.1 0 -0.4' euler='10 0 20'>\n"
    "        <joint name='b2' stiffness='5'/>\n"
    "        <geom fromto='0 0 0 0 0.1 -0.3' size='0.05'/>\n"
    "        <body name='l3' pos='0 0.1 -0.3'>\n"
    "          <joint name='b3' pos='0 0 0.03'/>\n"
    "          <geom fromto='0 0 0 0.05 0 -0.3' size='0.03'/>\n"
    "          <geom type='box' pos='0.05 0 -0.3' size='0.05 0.03 0.02'/>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

// replace the first occurrence of `what` in s (asserted present, room for the growth assumed)
static void replace_once(char* s, const char* what, const char* with) {
  char* at = strstr(s, what);
  ck_assert_msg(at != NULL, "'%s' not in the model text", what);
  memmove(at + strlen(with), at + strlen(what), strlen(at + strlen(what)) + 1);
  memcpy(at, with, strlen(with));
}

// the chain with a cone limit of 20 degrees on its first joint
static void limited_chain(char* text, size_t n) {
  snprintf(text, n, "%s", kChain);
  replace_once(text, "<joint name='b1'/>", "<joint name='b1' range='0 20' limited='true'/>");
}

// csim's fixture for the MJCF file at path (no ground of its own, the file's time step,
// MuJoCo's Euler velocity products)
static fixture chain_fixture(const char* path, const char* model, const char* limits) {
  char yaml[1024], name[512];
  snprintf(yaml, sizeof(yaml),
           "name: ball\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\n"
           "robots:\n  - mjcf: %s\ncontact: {model: %s, friction: 1}\n"
           "integrator: {duration: 1, velocity_products: explicit}\noutput: {path: out.h5}\n"
           "limits: {enabled: %s}\n",
           path, model, limits);
  return fixture_text(yaml, tmp_path(name, sizeof(name), "ball.yaml"), NULL, 0);
}

// the MuJoCo model of text (written to a temporary file; *path receives its name)
static mjModel* mujoco_model(const char* text, char* path, size_t n) {
  char msg[1000];
  tmp_write_text("chain.xml", text);
  tmp_path(path, n, "chain.xml");
  mjModel* mm = mj_loadXML(path, NULL, msg, sizeof(msg));
  ck_assert_msg(mm != NULL, "MuJoCo: %s", msg);
  return mm;
}

// the same tilted pose and spin on both sides: joint k turned by 0.5 rad about a skew axis
// (csim q [x y z w], MuJoCo qpos [w x y z]), angular velocities about another
static void set_state(sim* s, mjModel* mm, mjData* md) {
  double* q = s->data.d->q;
  double* v = s->data.d->v;
  for (int k = 0; k < 3; k++) {
    double ax[3] = {0.3 + 0.2 * k, -0.5, 0.8 - 0.3 * k}, qu[4];
    sp_normalize3(ax);
    sp_scale3(ax, ax, 0.5 + 0.1 * k);
    sp_expquat(qu, ax);
    memcpy(q + 4 * k, qu, sizeof(qu));
    md->qpos[4 * k] = qu[3];
    for (int i = 0; i < 3; i++) md->qpos[4 * k + 1 + i] = qu[i];
    for (int i = 0; i < 3; i++) md->qvel[3 * k + i] = v[3 * k + i] = 0.7 * (i - 1) + 0.4 * k;
  }
  (void)mm;
}

START_TEST(ball_chain_matches_mujoco) {
  char path[512];
  mjModel* mm = mujoco_model(kChain, path, sizeof(path));
  mm->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT;
  mjData* md = mj_makeData(mm);
  fixture f = chain_fixture(path, "ccp", "false");
  sim* s = f.s;
  const sim_model* m = s->model.m;
  ck_assert_int_eq(m->nq, 12);
  ck_assert_int_eq(m->nv, 9);
  ck_assert_int_eq(mm->nq, 12);
  ck_assert_int_eq(mm->nv, 9);
  ck_assert_double_eq(s->opt.dt, mm->opt.timestep);
  set_state(s, mm, md);
  // M(q0): csim's CRBA with the armature, MuJoCo's mj_fullM after mj_forward
  sim_data* d = s->data.d;
  kin_forward(m, d);
  dyn_crba(m, d);
  double Mc[81], Mm[81], big = 0, dM = 0;
  dyn_mass_dense(m, d, Mc);
  mj_forward(mm, md);
  mj_fullM(mm, Mm, md->qM);
  for (int i = 0; i < 81; i++) big = fmax(big, fabs(Mm[i]));
  for (int i = 0; i < 81; i++) dM = fmax(dM, fabs(Mc[i] - Mm[i]));
  fprintf(stderr, "ball chain: M(q0) within %.3g of MuJoCo's (largest entry %.4g)\n", dM, big);
  ck_assert_msg(dM <= 1e-9 * big, "M(q0) differs from MuJoCo's by %g (largest entry %g)", dM, big);
  sim_stepinfo info;
  csim_error e;
  double worst = 0, turned = 0;
  for (int n = 0; n < 200; n++) {
    mj_step(mm, md);
    ck_assert_int_eq(sim_step(s, &info, &e), CSIM_OK);
    for (int k = 0; k < 3; k++) {
      const double* qc = d->q + 4 * k;
      const double* qm = md->qpos + 4 * k;
      double qr[4] = {qm[1], qm[2], qm[3], qm[0]};
      for (int i = 0; i < 4; i++) worst = fmax(worst, fabs(qc[i] - qr[i]));
      turned = fmax(turned, 2 * acos(fmin(1, fabs(qc[3]))));
    }
  }
  fprintf(stderr, "ball chain, 200 steps of 5 ms: max |q - q_MuJoCo| = %.3g (joint angles up to "
          "%.3g rad)\n", worst, turned);
  ck_assert_double_gt(turned, 0.5);
  ck_assert_msg(worst < 1e-9, "positions differ from MuJoCo's by %g", worst);
  fixture_free(&f);
  mj_deleteData(md);
  mj_deleteModel(mm);
}
END_TEST

// the cone limit at a pose beyond it: MuJoCo's row (efc_pos = range - angle, efc_J = -axis on
// the joint's dofs) and csim's (depth = -gap, the axis in the entry, J = -axis: contact.c)
START_TEST(ball_cone_limit_row_matches_mujoco) {
  char path[512];
  char text[2048];
  limited_chain(text, sizeof(text));
  mjModel* mm = mujoco_model(text, path, sizeof(path));
  mm->opt.disableflags |= mjDSBL_CONTACT;
  mjData* md = mj_makeData(mm);
  fixture f = chain_fixture(path, "ccp", "true");
  sim* s = f.s;
  const sim_model* m = s->model.m;
  ck_assert_int_eq(m->jnt_limited[0], 1);
  ck_assert_double_eq_tol(m->jnt_range[1], 20 * M_PI / 180, 1e-15);
  set_state(s, mm, md);
  mj_forward(mm, md);
  ck_assert_int_eq(md->nefc, 1);  // joint 1 at 0.5 rad > 20 degrees; the others unlimited
  sim_stepinfo info;
  csim_error e;
  ck_assert_int_eq(sim_step(s, &info, &e), CSIM_OK);
  const contact_data* c = s->data.con;
  ck_assert_int_eq(c->nlimit, 1);
  int i = c->ncon - 1;
  ck_assert_int_eq(c->con[i].geom2, 0);
  double dpos = fabs(-c->con[i].depth - md->efc_pos[0]), dJ = 0;
  for (int k = 0; k < 3; k++) dJ = fmax(dJ, fabs(-c->con[i].normal[k] - md->efc_J[k]));
  fprintf(stderr, "ball cone limit: distance %.6g (MuJoCo %.6g), Jacobian within %.3g\n",
          -c->con[i].depth, md->efc_pos[0], dJ);
  ck_assert_msg(dpos < 1e-12 && dJ < 1e-12, "limit row: distance off by %g, Jacobian by %g", dpos,
                dJ);
  fixture_free(&f);
  mj_deleteData(md);
  mj_deleteModel(mm);
}
END_TEST

// the chain with a soft cone limit on its first joint (MuJoCo's solreflimit/solimplimit
// defaults) and no dampers, started beyond it: csim's ccp with MuJoCo's softness (material.h;
// the limit's R from the mean inverse weight of the ball's dofs) against MuJoCo, step by step
// while both have the same limit rows (csim brings a limit in when the step would cross it,
// MuJoCo once it is crossed: they part when the joint leaves the limit and comes back). With
// dampers they would part at once: csim solves the rows with M + h D (its implicit damper),
// MuJoCo's Euler step with M and applies the damper after
START_TEST(ball_soft_limit_matches_mujoco) {
  char path[512];
  char text[2048];
  limited_chain(text, sizeof(text));
  // collidable geoms make csim's ccp take MuJoCo's softness (their condim; no two links of one
  // robot collide in csim, MuJoCo's contacts are disabled)
  replace_once(text, " contype='0' conaffinity='0'", "");
  replace_once(text, "damping='0.05'", "damping='0'");
  mjModel* mm = mujoco_model(text, path, sizeof(path));
  mm->opt.disableflags |= mjDSBL_CONTACT;
  mm->opt.tolerance = 0;   // MuJoCo's Newton solver to convergence
  mjData* md = mj_makeData(mm);
  fixture f = chain_fixture(path, "ccp", "true");
  sim* s = f.s;
  set_state(s, mm, md);
  sim_stepinfo info;
  csim_error e;
  double worst = 0;
  int n = 0, engaged = 0;
  for (; n < 200; n++) {
    mj_step(mm, md);
    ck_assert_int_eq(sim_step(s, &info, &e), CSIM_OK);
    if (md->nefc != s->data.con->nlimit) break;
    engaged += md->nefc;
    for (int k = 0; k < 3; k++) {
      const double* qc = s->data.d->q + 4 * k;
      const double* qm = md->qpos + 4 * k;
      double qr[4] = {qm[1], qm[2], qm[3], qm[0]};
      for (int i = 0; i < 4; i++) worst = fmax(worst, fabs(qc[i] - qr[i]));
    }
  }
  fprintf(stderr, "ball soft cone limit under ccp: %d steps with the same limit rows (%d engaged), "
          "max |q - q_MuJoCo| = %.3g\n", n, engaged, worst);
  ck_assert_int_ge(engaged, 10);
  ck_assert_msg(worst < 1e-9, "positions differ from MuJoCo's by %g", worst);
  fixture_free(&f);
  mj_deleteData(md);
  mj_deleteModel(mm);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_ball");
  TCase* tc = tcase_create("core");
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, ball_chain_matches_mujoco);
  tcase_add_test(tc, ball_cone_limit_row_matches_mujoco);
  tcase_add_test(tc, ball_soft_limit_matches_mujoco);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
