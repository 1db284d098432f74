// test_kinematics.c — forward kinematics, velocities, chain Jacobians and manifold integration
// against closed forms and finite differences, on hand-built chains and random trees.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/spatial.h"
#include "tree_fixture.h"
#include "io/model_build.h"
#include "io/urdf.h"
#include "support.h"

//---------------------------------- hand-built URDF descriptions ------------------------------



//---------------------------------- helpers ---------------------------------------------------




//---------------------------------- forward kinematics ------------------------------------------

// planar arm about z: tip at (l1 cos q1 + l2 cos(q1+q2), l1 sin q1 + l2 sin(q1+q2)), plus a
// prismatic slider along the rotated x axis and a fixed-base pose
START_TEST(planar_arm_closed_form) {
  hand_robot h;
  hand_init(&h);
  double l1 = 0.7, l2 = 0.4, zb = 0.3;
  int base = hand_link(&h, 0, NULL, NULL);
  int a1 = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int a2 = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int sl = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int tip = hand_link(&h, 0, NULL, NULL);
  hand_joint(&h, URDF_JOINT_REVOLUTE, base, a1, (double[]){0, 0, zb}, NULL, (double[]){0, 0, 1});
  hand_joint(&h, URDF_JOINT_REVOLUTE, a1, a2, (double[]){l1, 0, 0}, NULL, (double[]){0, 0, 1});
  hand_joint(&h, URDF_JOINT_PRISMATIC, a2, sl, NULL, NULL, (double[]){1, 0, 0});
  hand_joint(&h, URDF_JOINT_FIXED, sl, tip, (double[]){l2, 0, 0}, (double[]){0, 0, M_PI / 2}, NULL);
  (void)tip;
  sim_model* m;
  sim_data* d;
  csim_error err;
  model_world_spec world = {{0, 0, -9.81}, 1, -0.5, 0, 0, {0, 0}, NULL};
  // base turned 90 degrees about z and lifted: world = (x, y, z) -> (-y, x, z) + (1, 2, 3)
  double s2 = sqrt(0.5);
  model_robot_spec spec = {&h.r, "arm", MODEL_BASE_FIXED, {1, 2, 3}, {0, 0, s2, s2}, 0};
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_OK);
  ck_assert_int_eq(data_create(m, 0, &d, &err), CSIM_OK);
  ck_assert_int_eq(m->nv, 3);
  for (int k = 0; k < 10; k++) {
    double q1 = urand() * 3, q2 = urand() * 3, s = urand();
    d->q[0] = q1;
    d->q[1] = q2;
    d->q[2] = s;
    kin_forward(m, d);
    // tip in the robot base frame
    double x = l1 * cos(q1) + (l2 + s) * cos(q1 + q2), y = l1 * sin(q1) + (l2 + s) * sin(q1 + q2);
    double expect[3] = {-y + 1, x + 2, zb + 3};
    int tl = model_find_link(m, "link4");
    ck_assert_int_ge(tl, 0);
    int b = m->link_body[tl];
    ck_assert_int_eq(b, 3);
    double tp[3];
    sp_xform(tp, d->xmat + 9 * b, d->xpos + 3 * b, m->link_pos + 3 * tl);
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(tp[i], expect[i], 1e-14);
    // tip frame x axis points along world angle (q1 + q2 + pi/2) + pi/2 in the base-turned frame
    double R[9], Rt[9];
    sp_quat2mat(R, m->link_quat + 4 * tl);
    sp_mulmm3(Rt, d->xmat + 9 * b, R);
    double ang = q1 + q2 + M_PI;
    ck_assert_double_eq_tol(Rt[0], cos(ang), 1e-14);
    ck_assert_double_eq_tol(Rt[3], sin(ang), 1e-14);
    ck_assert_double_eq_tol(Rt[8], 1, 1e-14);
  }
  // ground plane geom at the given height
  ck_assert_int_eq(m->ngeom, 1);
  ck_assert_double_eq(d->geom_xpos[2], -0.5);
  data_free(d);
  model_free(m);
}
END_TEST

// a free joint's quaternion is normalized when read: scaling it changes nothing
START_TEST(free_quaternion_normalized_on_read) {
  hand_robot h;
  hand_init(&h);
  hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  sim_model* m;
  sim_data* d;
  build(&h.r, MODEL_BASE_FREE, (double[]){0, 0, -9.81}, &m, &d);
  double q[7] = {0.1, 0.2, 0.3, 0.1, -0.5, 0.3, 0.8}, R1[9];
  memcpy(d->q, q, sizeof(q));
  sp_normquat(d->q + 3);
  kin_forward(m, d);
  memcpy(R1, d->xmat + 9, sizeof(R1));
  for (int i = 3; i < 7; i++) d->q[i] *= 3.7;
  kin_forward(m, d);
  for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(d->xmat[9 + i], R1[i], 1e-15);
  for (int i = 0; i < 3; i++) ck_assert_double_eq(d->xpos[3 + i], q[i]);
  data_free(d);
  model_free(m);
}
END_TEST

//---------------------------------- Jacobians and velocities -----------------------------------

// log of a rotation matrix through the quaternion log
static void rot_log(double w[3], const double R[9]) {
  double q[4];
  sp_mat2quat(q, R);
  sp_logquat(w, q);
}

// kin_jac_point against central differences of the point's world position and the body's
// orientation along each chain dof (q ⊕ +-eps e_k); dofs off the chain must not move the point
static void check_jacobians(const sim_model* m, sim_data* d) {
  int nv = m->nv, nq = m->nq;
  double* q0 = calloc((size_t)nq, sizeof(double));
  double* e = calloc((size_t)nv, sizeof(double));
  int* dofs = calloc((size_t)m->maxdepth + 1, sizeof(int));
  double* jp = calloc(3 * (size_t)m->maxdepth + 3, sizeof(double));
  double* jr = calloc(3 * (size_t)m->maxdepth + 3, sizeof(double));
  char* onchain = calloc((size_t)nv, 1);
  random_state(m, q0, NULL, 1.5, 0);
  for (int b = 1; b < m->nbody; b++) {
    memcpy(d->q, q0, (size_t)nq * sizeof(double));
    kin_forward(m, d);
    double pl[3] = {0.3 * urand(), 0.3 * urand(), 0.3 * urand()}, pw[3];
    sp_xform(pw, d->xmat + 9 * b, d->xpos + 3 * b, pl);
    int n = kin_jac_point(m, d, b, pw, dofs, jp, jr);
    ck_assert_int_le(n, m->maxdepth);
    memset(onchain, 0, (size_t)nv);
    for (int c = 0; c < n; c++) {
      if (c) ck_assert_int_lt(dofs[c - 1], dofs[c]);
      onchain[dofs[c]] = 1;
    }
    // the chain is exactly the set of dofs whose motion moves body b
    for (int k = 0; k < nv; k++) {
      int anc = 0;
      for (int bb = b; bb > 0; bb = m->body_parent[bb])
        if (bb == m->dof_body[k]) anc = 1;
      ck_assert_int_eq(anc, onchain[k]);
    }
    double eps = 1e-6;
    for (int c = 0; c < n; c++) {
      double P[2][3], R[2][9];
      for (int s = 0; s < 2; s++) {
        e[dofs[c]] = 1;
        kin_integrate(m, q0, e, s ? -eps : eps, d->q);
        e[dofs[c]] = 0;
        kin_forward(m, d);
        sp_xform(P[s], d->xmat + 9 * b, d->xpos + 3 * b, pl);
        memcpy(R[s], d->xmat + 9 * b, sizeof(R[s]));
      }
      double dR[9], w[3];
      sp_mulmmt3(dR, R[0], R[1]);
      rot_log(w, dR);
      for (int i = 0; i < 3; i++) {
        double fd = (P[0][i] - P[1][i]) / (2 * eps);
        ck_assert_msg(fabs(fd - jp[i * n + c]) < 1e-7, "jacp body %d dof %d: fd %.10g jac %.10g",
                      b, dofs[c], fd, jp[i * n + c]);
        ck_assert_msg(fabs(w[i] / (2 * eps) - jr[i * n + c]) < 1e-7, "jacr body %d dof %d", b, dofs[c]);
      }
    }
  }
  free(q0); free(e); free(dofs); free(jp); free(jr); free(onchain);
}

START_TEST(jacobians_match_finite_differences) {
  for (int t = 0; t < 10; t++) {
    sim_model* m;
    sim_data* d;
    build_random_tree(3 + 3 * t, t % 2 ? MODEL_BASE_FREE : MODEL_BASE_FIXED,
                      (double[]){0, 0, -9.81}, &m, &d);
    check_jacobians(m, d);
    data_free(d);
    model_free(m);
  }
}
END_TEST

// body velocities: cvel = [R' xdot; R' omega] with xdot, omega from the Jacobians and from
// finite differences of the poses along q ⊕ +-eps v
START_TEST(body_velocities) {
  for (int t = 0; t < 8; t++) {
    sim_model* m;
    sim_data* d;
    build_random_tree(4 + 3 * t, t % 2 ? MODEL_BASE_FREE : MODEL_BASE_FIXED,
                      (double[]){0, 0, -9.81}, &m, &d);
    int nq = m->nq, nv = m->nv;
    double* q0 = calloc((size_t)nq, sizeof(double));
    double* pos = calloc(2 * 3 * (size_t)m->nbody, sizeof(double));
    double* rot = calloc(2 * 9 * (size_t)m->nbody, sizeof(double));
    random_state(m, q0, d->v, 1.5, 2);
    double eps = 1e-6;
    for (int s = 0; s < 2; s++) {
      kin_integrate(m, q0, d->v, s ? -eps : eps, d->q);
      kin_forward(m, d);
      memcpy(pos + 3 * s * m->nbody, d->xpos, 3 * sizeof(double) * (size_t)m->nbody);
      memcpy(rot + 9 * s * m->nbody, d->xmat, 9 * sizeof(double) * (size_t)m->nbody);
    }
    memcpy(d->q, q0, (size_t)nq * sizeof(double));
    kin_forward(m, d);
    kin_velocity(m, d);
    for (int b = 1; b < m->nbody; b++) {
      const double* R = d->xmat + 9 * b;
      double xd[3], dR[9], w[3], vb[3], wb[3];
      for (int i = 0; i < 3; i++) xd[i] = (pos[3 * b + i] - pos[3 * (m->nbody + b) + i]) / (2 * eps);
      sp_mulmmt3(dR, rot + 9 * b, rot + 9 * (m->nbody + b));
      rot_log(w, dR);
      sp_scale3(w, w, 1 / (2 * eps));
      sp_mulmtv3(vb, R, xd);
      sp_mulmtv3(wb, R, w);
      for (int i = 0; i < 3; i++) {
        ck_assert_double_eq_tol(d->cvel[6 * b + i], vb[i], 1e-7);
        ck_assert_double_eq_tol(d->cvel[6 * b + 3 + i], wb[i], 1e-7);
      }
    }
    (void)nv;
    free(q0); free(pos); free(rot);
    data_free(d);
    model_free(m);
  }
}
END_TEST

//---------------------------------- integration on the manifold ---------------------------------

// q1 = q0 ⊕ v dt, then q1 ⊖ q0 = v dt (also for large rotations, |w dt| < pi)
START_TEST(integrate_difference_round_trip) {
  for (int t = 0; t < 10; t++) {
    sim_model* m;
    sim_data* d;
    build_random_tree(2 + 3 * t, MODEL_BASE_FREE, (double[]){0, 0, -9.81}, &m, &d);
    int nq = m->nq, nv = m->nv;
    double* q0 = calloc((size_t)nq, sizeof(double));
    double* q1 = calloc((size_t)nq, sizeof(double));
    double* v = calloc((size_t)nv, sizeof(double));
    double* v2 = calloc((size_t)nv, sizeof(double));
    for (int k = 0; k < 5; k++) {
      random_state(m, q0, v, 2, 1);
      double dt = k == 0 ? 1e-7 : 0.4 * k;   // tiny and large steps (|w dt| up to ~2.8 < pi)
      kin_integrate(m, q0, v, dt, q1);
      kin_difference(m, q0, q1, v2);
      for (int i = 0; i < nv; i++) ck_assert_double_eq_tol(v2[i], v[i] * dt, 1e-12);
      // in-place integration gives the same result
      memcpy(d->q, q0, (size_t)nq * sizeof(double));
      kin_integrate(m, d->q, v, dt, d->q);
      for (int i = 0; i < nq; i++) ck_assert_double_eq(d->q[i], q1[i]);
    }
    free(q0); free(q1); free(v); free(v2);
    data_free(d);
    model_free(m);
  }
}
END_TEST

// constant free-joint velocity (model.h: com velocity in world axes, angular velocity in body
// axes): the com moves on a straight line, c(t) = c0 + t v, the orientation turns as
// R0 exp(t w) and the origin stays at c(t) - R(t) c_body, in any number of steps; after a full
// turn 2 pi / |w| the orientation is back and the origin is displaced by exactly T v
START_TEST(constant_twist_exp_map) {
  hand_robot h;
  hand_init(&h);
  const double cbody[3] = {0.1, -0.05, 0.2};
  hand_link(&h, 1, cbody, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  sim_model* m;
  sim_data* d;
  build(&h.r, MODEL_BASE_FREE, (double[]){0, 0, -9.81}, &m, &d);
  double w = 2.5;
  double q0[7] = {0.3, -0.4, 1.2, 0.2, -0.1, 0.4, 0.9};
  sp_normquat(q0 + 3);
  double v[6] = {0.8, -0.3, 0.5, 0, 0, w};
  int steps[3] = {1, 7, 1000};
  double T = 2 * M_PI / w;
  for (int s = 0; s < 3; s++) {
    double q[7];
    memcpy(q, q0, sizeof(q));
    double dt = T / steps[s];
    for (int k = 0; k < steps[s]; k++) kin_integrate(m, q, v, dt, q);
    double R0[9], R1[9];
    sp_quat2mat(R0, q0 + 3);
    sp_quat2mat(R1, q + 3);
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(q[i], q0[i] + T * v[i], 1e-12);
    for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(R1[i], R0[i], 1e-12);
  }
  // half turn in one step: com c0 + (T/2) v, rotation R0 Rz(pi), origin c - R c_body
  double q[7], R0[9], R1[9], c0[3], c1[3], rc[3];
  kin_integrate(m, q0, v, M_PI / w, q);
  sp_quat2mat(R0, q0 + 3);
  sp_xform(c0, R0, q0, cbody);
  sp_quat2mat(R1, q + 3);
  for (int i = 0; i < 3; i++) c1[i] = c0[i] + 0.5 * T * v[i];
  sp_mulmv3(rc, R1, cbody);
  for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(q[i], c1[i] - rc[i], 1e-12);
  double Rrel[9];
  sp_mulmtm3(Rrel, R0, R1);
  ck_assert_double_eq_tol(Rrel[0], -1, 1e-12);
  ck_assert_double_eq_tol(Rrel[4], -1, 1e-12);
  ck_assert_double_eq_tol(Rrel[8], 1, 1e-12);
  data_free(d);
  model_free(m);
}
END_TEST

// the chain of a body: ascending dofs, free dofs chained, maxdepth bound
START_TEST(chain_of_free_base_leg) {
  hand_robot h;
  hand_init(&h);
  int base = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int l1 = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int l2 = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int r1 = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  hand_joint(&h, URDF_JOINT_REVOLUTE, base, l1, NULL, NULL, (double[]){1, 0, 0});
  hand_joint(&h, URDF_JOINT_REVOLUTE, l1, l2, NULL, NULL, (double[]){1, 0, 0});
  hand_joint(&h, URDF_JOINT_REVOLUTE, base, r1, NULL, NULL, (double[]){1, 0, 0});
  sim_model* m;
  sim_data* d;
  build(&h.r, MODEL_BASE_FREE, (double[]){0, 0, -9.81}, &m, &d);
  int dofs[16];
  ck_assert_int_eq(kin_chain(m, 0, dofs), 0);
  ck_assert_int_eq(kin_chain(m, 1, dofs), 6);
  for (int i = 0; i < 6; i++) ck_assert_int_eq(dofs[i], i);
  ck_assert_int_eq(kin_chain(m, 3, dofs), 8);
  ck_assert_int_eq(dofs[6], 6);
  ck_assert_int_eq(dofs[7], 7);
  ck_assert_int_eq(kin_chain(m, 4, dofs), 7);
  ck_assert_int_eq(dofs[6], 8);
  ck_assert_int_eq(m->maxdepth, 8);
  data_free(d);
  model_free(m);
}
END_TEST

// kin_forward skips the products by an identity placement (a body's or a geom's model
// quaternion): every body's parent-relative rotation and every geom's world pose still equal
// the products (R0 Rot(q); body pose * geom pose, here through sp_mulpose), on the shared robots
// (many identity placements, the geom meshes) and on random trees (every joint type, rotated
// placements)
static void check_placed_frames(const sim_model* m, sim_data* d) {
  for (int k = 0; k < 5; k++) {
    random_state(m, d->q, d->v, 1.5, 0);
    kin_forward(m, d);
    for (int b = 1; b < m->nbody; b++) {
      int j = m->body_jnt[b], t = m->jnt_type[j];
      if (t != MODEL_JOINT_REVOLUTE && t != MODEL_JOINT_BALL) continue;
      double R0[9], Rq[9], R[9];
      sp_quat2mat(R0, m->body_quat + 4 * b);
      if (t == MODEL_JOINT_BALL) {
        double qu[4];
        memcpy(qu, d->q + m->jnt_qadr[j], sizeof(qu));
        sp_normquat(qu);
        sp_quat2mat(Rq, qu);
      } else {  // Rodrigues about the unit axis
        const double* u = m->jnt_axis + 3 * j;
        double a = d->q[m->jnt_qadr[j]], c = cos(a), sn = sin(a), K2[9];
        double K[9] = {0, -u[2], u[1], u[2], 0, -u[0], -u[1], u[0], 0};
        sp_mulmm3(K2, K, K);
        for (int e = 0; e < 9; e++) Rq[e] = (e % 4 == 0) + sn * K[e] + (1 - c) * K2[e];
      }
      sp_mulmm3(R, R0, Rq);
      for (int e = 0; e < 9; e++) ck_assert_double_eq_tol(d->xloc_mat[9 * b + e], R[e], 1e-14);
    }
    // world poses: the parent's times the local one (sp_mulpose; kin_forward's mulpose_axis on
    // joints along a coordinate axis skips the products by zeros)
    for (int b = 1; b < m->nbody; b++) {
      int pb = m->body_parent[b];
      double R[9], p[3];
      sp_mulpose(R, p, d->xmat + 9 * pb, d->xpos + 3 * pb, d->xloc_mat + 9 * b, d->xloc_pos + 3 * b);
      for (int e = 0; e < 9; e++) ck_assert(d->xmat[9 * b + e] == R[e]);  // +0 == -0
      for (int e = 0; e < 3; e++) ck_assert(d->xpos[3 * b + e] == p[e]);
    }
    for (int g = 0; g < m->ngeom; g++) {
      int b = m->geom_body[g];
      double Rg[9], R[9], p[3];
      sp_quat2mat(Rg, m->geom_quat + 4 * g);
      sp_mulpose(R, p, d->xmat + 9 * b, d->xpos + 3 * b, Rg, m->geom_pos + 3 * g);
      for (int e = 0; e < 9; e++) ck_assert(d->geom_xmat[9 * g + e] == R[e]);  // +0 == -0
      for (int e = 0; e < 3; e++) ck_assert(d->geom_xpos[3 * g + e] == p[e]);
    }
  }
}

START_TEST(placed_frames_match_products) {
  urdf_robot* u = load_robot("talos/talos_reduced.urdf", 1);
  sim_model* m;
  sim_data* d;
  build(u, MODEL_BASE_FREE, (double[]){0, 0, -9.81}, &m, &d);
  ck_assert_int_gt(m->ngeom, 20);
  check_placed_frames(m, d);
  data_free(d);
  model_free(m);
  urdf_free(u);
  u = load_robot("solo12/solo12.urdf", 1);  // every joint along x or y, placed without rotation
  build(u, MODEL_BASE_FREE, (double[]){0, 0, -9.81}, &m, &d);
  check_placed_frames(m, d);
  data_free(d);
  model_free(m);
  urdf_free(u);
  build_random_tree(12, MODEL_BASE_FREE, (double[]){0, 0, -9.81}, &m, &d);
  check_placed_frames(m, d);
  data_free(d);
  model_free(m);
}
END_TEST

//---------------------------------- suite -----------------------------------------------------

static Suite* kinematics_suite(void) {
  Suite* s = suite_create("kinematics");
  TCase* tc = tcase_create("kinematics");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, planar_arm_closed_form);
  tcase_add_test(tc, free_quaternion_normalized_on_read);
  tcase_add_test(tc, jacobians_match_finite_differences);
  tcase_add_test(tc, body_velocities);
  tcase_add_test(tc, integrate_difference_round_trip);
  tcase_add_test(tc, constant_twist_exp_map);
  tcase_add_test(tc, chain_of_free_base_leg);
  tcase_add_test(tc, placed_frames_match_products);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(kinematics_suite());
}
