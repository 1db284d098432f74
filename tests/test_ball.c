// test_ball.c — ball joints (model.h MODEL_JOINT_BALL) against closed forms, and the MJCF rows
// that make them (test_mujoco_ball.c compares them with MuJoCo 2.2.2):
//  - a body turning about its centre of mass on a ball joint (gravity exerts no torque there) is
//    a free rigid body's rotation: Euler's equations, whose kinetic energy 1/2 w'Iw and |I w|
//    the implicit-midpoint velocity products keep to the iteration's tolerance (stage.h), for a
//    spin near the unstable intermediate axis; the explicit products drift (the check can fail);
//  - a spherical pendulum (a capsule on a ball joint off its com, released tilted with a spin
//    about the vertical) conserves the energy and the vertical angular momentum about the pivot
//    (gravity has no vertical torque): both errors stay small and shrink with dt at first order
//    or better (semi-implicit Euler positions);
//  - the cone limit holds the rotation angle at range[1] with every rigid model (a limit row,
//    contact.c) and near it under a compliant law (the limit spring, stage_limit_springs);
//  - MJCF: type="ball" in a default class, range in degrees, springref ignored as in MuJoCo,
//    a motor on a ball joint refused, q0 quaternion checks (bad ranges: test_mjcf.c's table).
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/sim.h"
#include "core/spatial.h"
#include "core/state.h"
#include "io/compile.h"
#include "io/mjcf.h"
#include "io/model_build.h"
#include "io/scenario.h"
#include "scene_fixture.h"
#include "support.h"

// a scenario for the MJCF text (written to a temporary file), with extra YAML lines
static fixture ball_fixture(const char* xml, const char* extra, const char* const* sets, int nset) {
  char yaml[2048], path[512], name[512];
  tmp_write_text("ball.xml", xml);
  tmp_path(path, sizeof(path), "ball.xml");
  snprintf(yaml, sizeof(yaml),
           "name: ball\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\n"
           "robots:\n  - mjcf: %s\ncontact: {model: ccp, friction: 1}\n"
           "output: {path: out.h5}\n%s",
           path, extra);
  return fixture_text(yaml, tmp_path(name, sizeof(name), "ball.yaml"), sets, nset);
}

// rotational inertia about the body origin (body axes, row-major) from the compact cinert
static void origin_inertia(const sim_model* m, int b, double I[9]) {
  const double* c = m->body_cinert + 10 * b;
  I[0] = c[4], I[4] = c[5], I[8] = c[6];
  I[1] = I[3] = c[7], I[2] = I[6] = c[8], I[5] = I[7] = c[9];
}

// a box of sides 0.2 x 0.4 x 0.6 turning about its centre: largest relative drift of 1/2 w'Iw
// and |I w| over 4 s at 1 ms (the spin starts near the intermediate axis y)
static void free_spin_drift(const char* vp, double* dT, double* dL) {
  static const char* const kBox =
      "<mujoco><option timestep='0.001'/><worldbody><body pos='0 0 1'><joint type='ball'/>"
      "<geom type='box' size='0.1 0.2 0.3' contype='0' conaffinity='0'/></body></worldbody>"
      "</mujoco>";
  char extra[200];
  snprintf(extra, sizeof(extra), "integrator: {duration: 4, velocity_products: %s}\n", vp);
  fixture f = ball_fixture(kBox, extra, NULL, 0);
  sim* s = f.s;
  const sim_model* m = s->model.m;
  double* v = s->data.d->v;
  v[0] = 0.01, v[1] = 3, v[2] = 0.02;
  double I[9], Iw[3];
  origin_inertia(m, 1, I);
  sp_mulmv3(Iw, I, v);
  double T0 = 0.5 * sp_dot3(v, Iw), L0 = sp_norm3(Iw);
  *dT = *dL = 0;
  sim_stepinfo info;
  csim_error e;
  for (int n = 0; n < 4000; n++) {
    ck_assert_int_eq(sim_step(s, &info, &e), CSIM_OK);
    sp_mulmv3(Iw, I, v);
    *dT = fmax(*dT, fabs(0.5 * sp_dot3(v, Iw) - T0) / T0);
    *dL = fmax(*dL, fabs(sp_norm3(Iw) - L0) / L0);
  }
  fixture_free(&f);
}

START_TEST(spin_about_com_is_euler_rigid_body) {
  double dT, dL, eT, eL;
  free_spin_drift("midpoint", &dT, &dL);
  free_spin_drift("explicit", &eT, &eL);
  fprintf(stderr, "ball joint at the com, intermediate-axis spin 4 s: kinetic energy drift %.3g, "
          "|L| drift %.3g (explicit velocity products: %.3g, %.3g)\n", dT, dL, eT, eL);
  ck_assert_msg(dT < 1e-8 && dL < 1e-8, "drift %g %g", dT, dL);
  ck_assert_msg(eT > 100 * dT, "the explicit products drift as little (%g): the check is blind", eT);
}
END_TEST

static const char* const kPendulum =
    "<mujoco><option timestep='0.002'/><worldbody><body pos='0 0 1'><joint name='b' type='ball'/>"
    "<geom type='capsule' fromto='0 0 0 0.05 0 -0.5' size='0.04' contype='0' conaffinity='0'/>"
    "</body></worldbody></mujoco>";

// spherical pendulum released at 0.6 rad from the vertical spinning about it at 2 rad/s, for
// 2 s at dt: largest energy error relative to the kinetic energy scale, and largest error of the
// vertical angular momentum about the pivot relative to its initial value
static void pendulum_errors(double dt, double* dE, double* dLz) {
  char extra[200];
  snprintf(extra, sizeof(extra), "integrator: {duration: 2, dt: %g}\n", dt);
  fixture f = ball_fixture(kPendulum, extra, NULL, 0);
  sim* s = f.s;
  const sim_model* m = s->model.m;
  sim_data* d = s->data.d;
  // q: 0.6 rad about x; v: 2 rad/s about world z, in body axes R' e_z
  double ax[3] = {0.6, 0, 0}, R[9], ez[3] = {0, 0, 2};
  sp_expquat(d->q, ax);
  sp_quat2mat(R, d->q);
  sp_mulmtv3(d->v, R, ez);
  double I[9];
  origin_inertia(m, 1, I);
  sim_stepinfo info;
  csim_error e;
  double E0 = 0, T0 = 0, Lz0 = 0;
  *dE = *dLz = 0;
  int nstep = (int)lround(2 / dt);
  for (int n = 0; n <= nstep; n++) {
    // world angular momentum about the fixed pivot: R (I_o w), before the step moves the state
    double Iw[3], L[3];
    sp_quat2mat(R, d->q);
    sp_mulmv3(Iw, I, d->v);
    sp_mulmv3(L, R, Iw);
    ck_assert_int_eq(sim_step(s, &info, &e), CSIM_OK);
    double E = info.kinetic + info.potential;
    if (n == 0) E0 = E, T0 = info.kinetic, Lz0 = L[2];
    *dE = fmax(*dE, fabs(E - E0) / T0);
    *dLz = fmax(*dLz, fabs(L[2] - Lz0) / fabs(Lz0));
  }
  fixture_free(&f);
}

START_TEST(spherical_pendulum_conserves_energy_and_vertical_momentum) {
  double e1, l1, e2, l2;
  pendulum_errors(0.002, &e1, &l1);
  pendulum_errors(0.001, &e2, &l2);
  fprintf(stderr, "spherical pendulum 2 s: energy error %.3g / %.3g, vertical angular momentum "
          "error %.3g / %.3g at dt 2 / 1 ms (relative)\n", e1, e2, l1, l2);
  ck_assert_msg(e1 < 0.05 && l1 < 0.01, "errors %g %g at 2 ms", e1, l1);
  ck_assert_msg(e2 < 0.6 * e1 && l2 < 0.6 * l1, "errors do not shrink with dt: %g -> %g, %g -> %g",
                e1, e2, l1, l2);
}
END_TEST

// the pendulum with a 25-degree cone limit, released at 20 degrees swinging outwards at 3 rad/s:
// the largest angle over 1 s; every rigid pair and the compliant law (its geoms collide with
// nothing, so ccp's limit is rigid here: no MJCF softness)
static const char* const kPairs[][3] = {
    {"contact.model=ncp", "solver.name=pgs", ""},
    {"contact.model=ncp", "solver.name=admm", ""},
    {"contact.model=ccp", "solver.name=pgs", "soft"},   // MJCF geoms: MuJoCo's softness
    {"contact.model=lcp", "solver.name=lemke", ""},
    {"contact.model=raisim", "solver.name=bisection", ""},
    {"contact.model=hunt_crossley", "integrator.scheme=tamsi", "compliant"}};

START_TEST(cone_limit_holds) {
  char xml[1024];
  snprintf(xml, sizeof(xml), "%s", kPendulum);
  char* at = strstr(xml, "type='ball'/>");
  const char* lim = "type='ball' range='0 25' limited='true'/>";
  memmove(at + strlen(lim), at + strlen("type='ball'/>"), strlen(at + strlen("type='ball'/>")) + 1);
  memcpy(at, lim, strlen(lim));
  const char* sets[2] = {kPairs[_i][0], kPairs[_i][1]};
  fixture f = ball_fixture(xml, "integrator: {duration: 1}\n", sets, 2);
  sim* s = f.s;
  sim_data* d = s->data.d;
  double ax[3] = {20 * M_PI / 180, 0, 0};
  sp_expquat(d->q, ax);
  d->v[0] = 3;
  sim_stepinfo info;
  csim_error e;
  double amax = 0, x[3];
  for (int n = 0; n < 500; n++) {
    ck_assert_msg(sim_step(s, &info, &e) == CSIM_OK, "%s %s: %s", sets[0], sets[1], e.msg);
    kin_ball_rotation(s->model.m, d->q, 0, x);
    amax = fmax(amax, sp_norm3(x));
  }
  double over = amax * 180 / M_PI - 25;
  fprintf(stderr, "cone limit 25 deg, %s %s: largest angle %.4f deg\n", sets[0], sets[1],
          amax * 180 / M_PI);
  // rigid rows: the cone's curvature lets each step along the boundary past it at second order
  // (h^2 |w|^2, closed the next step: contact.c; 0.08 degrees at the impact here, 1.2 when it
  // accumulated); the compliant spring lets it in by a fraction of a degree
  double tol = !strcmp(kPairs[_i][2], "compliant") ? 1.0 : 0.15;
  ck_assert_msg(over < tol, "%s %s: %g degrees past the limit", sets[0], sets[1], over);
  ck_assert_double_gt(amax * 180 / M_PI, 24);  // it did reach the limit
  fixture_free(&f);
}
END_TEST

// a ball pendulum too long for its pivot height swings into the ground plane and comes to rest
// on it (contact Jacobians through the ball's dofs): every rigid pair and the compliant law, the
// capsule's lowest point over 1 s (rigid: penetration within the solvers' slop; ccp with the
// MJCF geoms' MuJoCo softness and the compliant law: their static deflection)
START_TEST(ball_pendulum_rests_on_ground) {
  static const char* const kLong =
      "<mujoco><option timestep='0.002'/><worldbody><body pos='0 0 0.45'><joint type='ball'/>"
      "<geom type='capsule' fromto='0 0 0 0.05 0 -0.5' size='0.04'/></body></worldbody></mujoco>";
  char yaml[1024], path[512], name[512];
  tmp_write_text("long.xml", kLong);
  tmp_path(path, sizeof(path), "long.xml");
  snprintf(yaml, sizeof(yaml),
           "name: long\nworld: {gravity: [0, 0, -9.81]}\nrobots:\n  - mjcf: %s\n"
           "contact: {model: ccp, friction: 0.5}\nintegrator: {duration: 1}\n"
           "output: {path: out.h5}\n", path);
  const char* sets[2] = {kPairs[_i][0], kPairs[_i][1]};
  fixture f = fixture_text(yaml, tmp_path(name, sizeof(name), "long.yaml"), sets, 2);
  sim* s = f.s;
  sim_data* d = s->data.d;
  double ax[3] = {1.0, 0, 0}, R[9], tip[3], end[3] = {0.05, 0, -0.5};
  sp_expquat(d->q, ax);
  sim_stepinfo info;
  csim_error e;
  double zmin = INFINITY;
  int touched = 0;
  for (int n = 0; n < 500; n++) {
    ck_assert_msg(sim_step(s, &info, &e) == CSIM_OK, "%s %s: %s", sets[0], sets[1], e.msg);
    sp_quat2mat(R, d->q);
    sp_mulmv3(tip, R, end);
    zmin = fmin(zmin, 0.45 + tip[2] - 0.04);
    touched |= info.ncon > 0;
  }
  fprintf(stderr, "ball pendulum on the ground, %s %s: lowest point %.5f m\n", sets[0], sets[1],
          zmin);
  ck_assert(touched);
  ck_assert_msg(zmin > (kPairs[_i][2][0] ? -0.01 : -0.001), "%s %s: %g m into the ground",
                sets[0], sets[1], zmin);
  fixture_free(&f);
}
END_TEST

//---------------------------------- MJCF ------------------------------------------------------

// read text; fails the test on error
static urdf_robot* load(const char* text) {
  urdf_robot* r = NULL;
  csim_error e;
  err_clear(&e);
  csim_status st = mjcf_load_string(text, "t.xml", NULL, NULL, &r, &e);
  ck_assert_msg(st == CSIM_OK, "load failed: %s:%d:%d %s", e.file, e.line, e.column, e.msg);
  return r;
}

// a ball joint from a default class: the model's sizes, dofs, range (degrees), the spring at
// the identity (springref ignored, as MuJoCo's qpos_spring for a ball), damping and armature
// per dof
START_TEST(mjcf_ball_from_default) {
  urdf_robot* r = load(
      "<mujoco><default><default class='s'><joint type='ball' damping='0.3' armature='0.02' "
      "stiffness='4' springref='10' range='0 45' limited='true'/></default></default>"
      "<worldbody><body pos='0 0 1' childclass='s'><joint name='j'/><geom size='.1'/>"
      "<body pos='0 0 -.3'><joint name='h' type='hinge' axis='1 0 0' stiffness='0' "
      "limited='false'/><geom size='.1'/></body></body></worldbody></mujoco>");
  model_world_spec w = {{0, 0, -9.81}, 0, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec;
  memset(&spec, 0, sizeof(spec));
  spec.urdf = r;
  spec.base_quat[3] = 1;
  sim_model* m = NULL;
  csim_error e;
  ck_assert_int_eq(model_create(&w, &spec, 1, &m, &e), CSIM_OK);
  ck_assert_int_eq(m->nq, 5);
  ck_assert_int_eq(m->nv, 4);
  int j = model_find_joint(m, "j");
  ck_assert_int_eq(m->jnt_type[j], MODEL_JOINT_BALL);
  ck_assert_int_eq(m->jnt_qadr[j], 0);
  ck_assert_int_eq(m->jnt_qadr[model_find_joint(m, "h")], 4);
  ck_assert_int_eq(m->jnt_dofadr[model_find_joint(m, "h")], 3);
  ck_assert_double_eq(m->qpos0[3], 1);
  ck_assert_int_eq(m->jnt_limited[j], 1);
  ck_assert_double_eq_tol(m->jnt_range[2 * j + 1], M_PI / 4, 1e-15);
  ck_assert_double_eq(m->jnt_springref[j], 0);
  ck_assert_double_eq(m->jnt_stiffness[j], 4);
  for (int k = 0; k < 3; k++) {
    ck_assert_double_eq(m->dof_damping[k], 0.3);
    ck_assert_double_eq(m->dof_armature[k], 0.02);
    ck_assert_int_eq(m->dof_parent[k], k - 1);
  }
  ck_assert_int_eq(m->dof_parent[3], 2);
  // the spring: -k log(q) per dof, potential 1/2 k |log q|^2 (by hand at 0.5 rad about y)
  sim_data* d = NULL;
  ck_assert_int_eq(data_create(m, 0, &d, &e), CSIM_OK);
  double ax[3] = {0, 0.5, 0}, f[4];
  sp_expquat(d->q, ax);
  kin_forward(m, d);
  ck_assert_int_eq(dyn_passive(m, d, f), 5);  // 3 + 1 dampers (the hinge inherits .3), 1 spring
  ck_assert_double_eq_tol(f[1], -4 * 0.5, 1e-14);
  ck_assert_double_eq_tol(f[0], 0, 1e-14);
  double Vg = dyn_potential(m, d);
  double Vs = 0;
  for (int b = 1; b < m->nbody; b++) Vs -= m->body_mass[b] * sp_dot3(m->gravity, d->xcom + 3 * b);
  ck_assert_double_eq_tol(Vg - Vs, 0.5 * 4 * 0.25, 1e-12);
  data_free(d);
  model_free(m);
  urdf_free(r);
}
END_TEST

// a motor on a ball joint is refused by name at model_create (csim's motors drive 1-dof joints)
START_TEST(mjcf_motor_on_ball_refused) {
  urdf_robot* r = load("<mujoco><worldbody><body><joint name='j' type='ball'/><geom size='.1'/>"
                       "</body></worldbody><actuator>\n<motor joint='j'/></actuator></mujoco>");
  ck_assert_int_eq(r->nunsupported, 1);
  ck_assert_int_eq(r->unsupported[0].line, 2);
  ck_assert_ptr_nonnull(strstr(r->unsupported[0].msg, "not a hinge or slide"));
  urdf_free(r);
}
END_TEST

// scenario keys on a ball joint: q0 takes its quaternion [x y z w] (normalized, a zero one is an
// error naming the joint), `joints:` names 1-dof joints only
START_TEST(scenario_q0_and_joints) {
  static const char* const kOne =
      "<mujoco><worldbody><body pos='0 0 1'><joint name='b' type='ball'/>"
      "<geom size='.1' contype='0' conaffinity='0'/></body></worldbody></mujoco>";
  char yaml[1024], path[512], name[512];
  tmp_write_text("one.xml", kOne);
  tmp_path(path, sizeof(path), "one.xml");
  const char* robots[] = {"q0: [0, 0, 0.6, 0.8]", "q0: [0, 0, 0, 0]", "joints: {b: 0.3}"};
  for (int k = 0; k < 3; k++) {
    snprintf(yaml, sizeof(yaml),
             "name: one\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: %s\n    %s\n"
             "output: {path: out.h5}\n", path, robots[k]);
    tmp_write_text("one.yaml", yaml);
    scn_config* cfg = NULL;
    sim* s = NULL;
    csim_error e;
    err_clear(&e);
    csim_status st = scn_load(tmp_path(name, sizeof(name), "one.yaml"), NULL, 0, &cfg, &e);
    ck_assert_int_eq(st, CSIM_OK);
    st = sim_create(cfg, &s, &e);
    if (k == 0) {
      ck_assert_int_eq(st, CSIM_OK);
      ck_assert_double_eq_tol(s->data.d->q[2], 0.6, 1e-15);
      ck_assert_double_eq_tol(s->data.d->q[3], 0.8, 1e-15);
    } else {
      ck_assert_int_eq(st, CSIM_ERR_INPUT);
      ck_assert_msg(strstr(e.msg, k == 1 ? "ball joint 'b'" : "no 1-dof joint named 'b'") &&
                        e.line > 0,
                    "case %d: %d:%d %s", k, e.line, e.column, e.msg);
    }
    sim_free(s);
    scn_free(cfg);
  }
}
END_TEST

int main(void) {
  Suite* s = suite_create("ball");
  TCase* tc = tcase_create("core");
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, spin_about_com_is_euler_rigid_body);
  tcase_add_test(tc, spherical_pendulum_conserves_energy_and_vertical_momentum);
  tcase_add_loop_test(tc, cone_limit_holds, 0, (int)(sizeof(kPairs) / sizeof(kPairs[0])));
  tcase_add_loop_test(tc, ball_pendulum_rests_on_ground, 0, (int)(sizeof(kPairs) / sizeof(kPairs[0])));
  tcase_add_test(tc, mjcf_ball_from_default);
  tcase_add_test(tc, mjcf_motor_on_ball_refused);
  tcase_add_test(tc, scenario_q0_and_joints);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
