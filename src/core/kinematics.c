// kinematics.c — forward kinematics, body velocities, chain Jacobians and configuration
// integration on the manifold (see kinematics.h).
//
// Spatial vectors are [linear; angular] (model.h). The motion transform from a parent frame to a
// child frame at pose (R, p) (x_parent = R x_child + p) maps (v, w) to (R'(v + w x p), R'w).
#include "core/kinematics.h"

#include <math.h>
#include <string.h>

#include "core/spatial.h"

//---------------------------------- forward kinematics ----------------------------------------

// rotation by angle a about the unit axis u (Rodrigues): R = I + sin a [u]x + (1 - cos a) [u]x^2
static void axis_angle_mat(double R[9], const double u[3], double a) {
  double s = sin(a), c = cos(a), t = 1 - c;
  double x = u[0], y = u[1], z = u[2];
  R[0] = c + t * x * x;     R[1] = t * x * y - s * z; R[2] = t * x * z + s * y;
  R[3] = t * x * y + s * z; R[4] = c + t * y * y;     R[5] = t * y * z - s * x;
  R[6] = t * x * z - s * y; R[7] = t * y * z + s * x; R[8] = c + t * z * z;
}

// Rot(qj) into Rq, qj a quaternion [x y z w] of q (normalized when read): a free or ball
// joint's rotation
static void quat_rot(const double* qj, double Rq[9]) {
  double qu[4] = {qj[0], qj[1], qj[2], qj[3]};
  sp_normquat(qu);
  sp_quat2mat(Rq, qu);
}

// a model quaternion q (a body's placement, a geom's) is the identity (+0 +0 +0 1, as the bits:
// a -0 can give sp_quat2mat a -0)
static int model_is_id(const double q[4]) {
  static const double id[4] = {0, 0, 0, 1};
  return memcmp(q, id, sizeof(id)) == 0;
}

// the rotation of a model quaternion q: the identity's is the identity, the same bits as
// sp_quat2mat's (1 - 2 (0 + 0) and 2 (0 - 0) are exactly 1 and +0), without its arithmetic
static void model_rot(double R[9], const double q[4]) {
  if (model_is_id(q)) sp_eye3(R);
  else sp_quat2mat(R, q);
}

// R = R0 Rq for the rotation R0 of model quaternion q0, Rq already in R: R is left as it is when
// R0 is the identity (the product's sums add only exact zeros to each entry, so the values are
// Rq's, up to the sign of an exact zero; URDF joints placed without rotation: most of a robot's).
// Returns 1 when R0 turned R
static int placed_rot(double R[9], const double q0[4]) {
  if (model_is_id(q0)) return 0;
  double R0[9], Rq[9];
  sp_quat2mat(R0, q0);
  memcpy(Rq, R, sizeof(Rq));
  sp_mulmm3(R, R0, Rq);
  return 1;
}

// the coordinate axis k a joint axis lies along (its other two components zero), else -1
static int coord_axis(const double ax[3]) {
  if (ax[1] == 0 && ax[2] == 0) return 0;
  if (ax[0] == 0 && ax[2] == 0) return 1;
  if (ax[0] == 0 && ax[1] == 0) return 2;
  return -1;
}

// world pose (R, p) = (Rp, pp) * (Rl, pl) for Rl a rotation about coordinate axis k (axis_angle_mat
// on such an axis: its entries (k, j) and (j, k), j != k, are zeros): sp_mulpose without the
// products by those zeros, each sum's other terms in its order, so the same values up to the sign
// of an exact zero in 15 products instead of 27 (Solo-12's and most legged robots' joints)
static void mulpose_axis(double R[9], double p[3], const double Rp[9], const double pp[3],
                         const double Rl[9], const double pl[3], int k) {
  int l0 = k == 0 ? 1 : 0, l1 = k == 2 ? 1 : 2;  // the two other rows of Rl, ascending
  const double *u0 = Rl + 3 * l0, *u1 = Rl + 3 * l1;
  double bkk = Rl[4 * k];
  sp_xform(p, Rp, pp, pl);
  for (int i = 0; i < 3; i++) {
    const double* a = Rp + 3 * i;
    double* r = R + 3 * i;
    double x0 = a[l0], x1 = a[l1];
    r[0] = x0 * u0[0] + x1 * u1[0];  // column k is written over next (no branch per entry)
    r[1] = x0 * u0[1] + x1 * u1[1];
    r[2] = x0 * u0[2] + x1 * u1[2];
    r[k] = a[k] * bkk;
  }
}

// pose of body b in its parent body frame at configuration q; a free joint's rotation Rot(q) in
// Rq (free_cdof's; the other joints' is not written). Returns k when R is a rotation about
// coordinate axis k (a revolute joint along x, y or z placed without rotation: mulpose_axis),
// else -1
static int local_pose(const sim_model* m, int b, const double* q, double R[9], double p[3],
                      double Rq[9]) {
  int j = m->body_jnt[b];
  const double* qj = q + m->jnt_qadr[j];
  const double* ax = m->jnt_axis + 3 * j;
  const double *p0 = m->body_pos + 3 * b, *q0 = m->body_quat + 4 * b;
  switch (m->jnt_type[j]) {
    case MODEL_JOINT_REVOLUTE: {
      // R = R0 Rot(axis, q), p = p0
      axis_angle_mat(R, ax, qj[0]);
      sp_copy3(p, p0);
      return placed_rot(R, q0) ? -1 : coord_axis(ax);
    }
    case MODEL_JOINT_PRISMATIC: {
      // R = R0, p = p0 + R0 axis q
      double t[3];
      sp_scale3(t, ax, qj[0]);
      model_rot(R, q0);
      sp_xform(p, R, p0, t);
      break;
    }
    case MODEL_JOINT_BALL:
      // R = R0 Rot(quat(q)), p = p0 (the joint turns the body about its origin)
      quat_rot(qj, R);
      placed_rot(R, q0);
      sp_copy3(p, p0);
      break;
    default: {
      // free: (R, p) = placement * (quat(q), pos(q))
      double R0[9];
      model_rot(R0, q0);
      quat_rot(qj + 3, Rq);
      sp_mulmm3(R, R0, Rq);
      sp_xform(p, R0, p0, qj);
      break;
    }
  }
  return -1;
}

// motion subspace of a free joint's dofs at its configuration qj (model.h): the linear dofs move
// the com along the axes of the joint's placement frame, S_lin,k = [Rq' e_k; 0] in body axes
// (Rq: body orientation in that frame, local_pose's); the angular dofs turn the body about its
// origin with the com's velocity unchanged, S_ang,k = [c x e_k; e_k] (c: com in the body frame)
static void free_cdof(const sim_model* m, int b, const double Rq[9], double* S) {
  const double* c = m->body_com + 3 * b;
  for (int k = 0; k < 3; k++) {
    double* Sl = S + 6 * k;
    double* Sa = S + 6 * (3 + k);
    double e[3] = {0, 0, 0};
    e[k] = 1;
    // Rq' e_k is row k of Rq
    Sl[0] = Rq[3 * k]; Sl[1] = Rq[3 * k + 1]; Sl[2] = Rq[3 * k + 2];
    Sl[3] = Sl[4] = Sl[5] = 0;
    sp_cross3(Sa, c, e);
    Sa[3] = e[0]; Sa[4] = e[1]; Sa[5] = e[2];
  }
}

// motion subspace of body b's dofs at q (d->cdof; Rq: its joint's rotation, local_pose's), and in
// the world frame (d->cdofw), once per step for every point Jacobian of the step and the CRBA: a
// revolute joint's zero linear part and a prismatic joint's zero angular part stay zeros (R 0 is
// a zero, up to its sign)
static void body_cdof(const sim_model* m, sim_data* d, int b, const double Rq[9]) {
  int j = m->body_jnt[b], da = m->body_dofadr[b];
  double* S = d->cdof + 6 * da;
  double* Sw = d->cdofw + 6 * da;
  const double* S0 = m->dof_motion + 6 * da;
  const double* R = d->xmat + 9 * b;
  if (m->jnt_type[j] == MODEL_JOINT_FREE) {
    free_cdof(m, b, Rq, S);
  } else if (m->body_dofnum[b] == 1) {  // (a memcpy call cost more than the six copies)
    S[0] = S0[0], S[1] = S0[1], S[2] = S0[2], S[3] = S0[3], S[4] = S0[4], S[5] = S0[5];
    if (m->jnt_type[j] == MODEL_JOINT_REVOLUTE) {
      Sw[0] = Sw[1] = Sw[2] = 0;
      sp_mulmv3(Sw + 3, R, S + 3);
    } else {
      sp_mulmv3(Sw, R, S);
      Sw[3] = Sw[4] = Sw[5] = 0;
    }
    return;
  } else {
    memcpy(S, S0, 6 * sizeof(double) * (size_t)m->body_dofnum[b]);
  }
  for (int k = 0; k < m->body_dofnum[b]; k++) {
    sp_mulmv3(Sw + 6 * k, R, S + 6 * k);
    sp_mulmv3(Sw + 6 * k + 3, R, S + 6 * k + 3);
  }
}

// world poses of bodies (and the parent-relative poses the dynamics reuses), coms and geoms
void kin_forward(const sim_model* m, sim_data* d) {
  // world body
  sp_eye3(d->xmat);
  memset(d->xpos, 0, 3 * sizeof(double));
  memset(d->xcom, 0, 3 * sizeof(double));
  sp_eye3(d->xloc_mat);
  memset(d->xloc_pos, 0, 3 * sizeof(double));
  // bodies in topological order: world pose = parent world pose * local pose
  for (int b = 1; b < m->nbody; b++) {
    int pb = m->body_parent[b];
    double* Rl = d->xloc_mat + 9 * b;
    double* pl = d->xloc_pos + 3 * b;
    double Rq[9];
    int k = local_pose(m, b, d->q, Rl, pl, Rq);
    if (k >= 0)
      mulpose_axis(d->xmat + 9 * b, d->xpos + 3 * b, d->xmat + 9 * pb, d->xpos + 3 * pb, Rl, pl, k);
    else
      sp_mulpose(d->xmat + 9 * b, d->xpos + 3 * b, d->xmat + 9 * pb, d->xpos + 3 * pb, Rl, pl);
    sp_xform(d->xcom + 3 * b, d->xmat + 9 * b, d->xpos + 3 * b, m->body_com + 3 * b);
    body_cdof(m, d, b, Rq);
  }
  // geoms: a geom without rotation in its body has the body's axes (as placed_rot)
  for (int g = 0; g < m->ngeom; g++) {
    int b = m->geom_body[g];
    const double* q = m->geom_quat + 4 * g;
    if (model_is_id(q)) {
      const double* gp = m->geom_pos + 3 * g;
      memcpy(d->geom_xmat + 9 * g, d->xmat + 9 * b, 9 * sizeof(double));
      if (gp[0] == 0 && gp[1] == 0 && gp[2] == 0)  // at the body origin: R 0 + p is p, up to the
        sp_copy3(d->geom_xpos + 3 * g, d->xpos + 3 * b);  // sign of an exact zero
      else
        sp_xform(d->geom_xpos + 3 * g, d->xmat + 9 * b, d->xpos + 3 * b, gp);
      continue;
    }
    sp_mulpose(d->geom_xmat + 9 * g, d->geom_xpos + 3 * g, d->xmat + 9 * b, d->xpos + 3 * b,
               m->geom_mat + 9 * g, m->geom_pos + 3 * g);
  }
}

// v_b = X_b v_parent + S_b qdot (RBDA eq. 5.7), in body frames (S at q: d->cdof)
void kin_velocity(const sim_model* m, sim_data* d) {
  memset(d->cvel, 0, 6 * sizeof(double));
  for (int b = 1; b < m->nbody; b++) {
    double* vb = d->cvel + 6 * b;
    kin_motion_to_body(d, b, d->cvel + 6 * m->body_parent[b], vb);  // the parent's velocity
    // joint velocity
    for (int k = m->body_dofadr[b]; k < m->body_dofadr[b] + m->body_dofnum[b]; k++) {
      const double* S = d->cdof + 6 * k;
      double qd = d->v[k];
      for (int i = 0; i < 6; i++) vb[i] += S[i] * qd;
    }
  }
}

// ancestor dofs of the body's last dof through dof_parent, ascending
int kin_chain(const sim_model* m, int body, int* dofs) {
  if (body <= 0 || body >= m->nbody) return 0;
  // the last dof's row of M lists it and its ancestors (dof_Mcol, nearest first): written
  // from the back, ascending (every contact's Jacobian takes one or two chains)
  int last = m->body_dofadr[body] + m->body_dofnum[body] - 1;
  if (last < 0) return 0;
  int a = m->dof_Madr[last], n = (last + 1 < m->nv ? m->dof_Madr[last + 1] : m->nM) - a;
  for (int k = 0; k < n; k++) dofs[n - 1 - k] = m->dof_Mcol[a + k];
  return n;
}

// columns along the chain: a dof with world motion axis (a_lin, a_ang) at body origin x_b moves
// the point with a_lin + a_ang x (point - x_b) and turns the body with a_ang
int kin_jac_point(const sim_model* m, const sim_data* d, int body, const double point[3],
                  int* dofs, double* jacp, double* jacr) {
  int n = kin_chain(m, body, dofs);
  for (int c = 0; c < n; c++) {
    int k = dofs[c], b = m->dof_body[k];
    const double* al = d->cdofw + 6 * k;  // the dof's axis in the world (kin_forward)
    const double* aw = al + 3;
    double r[3], lin[3];
    sp_sub3(r, point, d->xpos + 3 * b);
    sp_cross3(lin, aw, r);
    sp_add3(lin, lin, al);
    for (int i = 0; i < 3; i++) {
      if (jacp) jacp[i * n + c] = lin[i];
      if (jacr) jacr[i * n + c] = aw[i];
    }
  }
  return n;
}

// qu <- qu exp(dt w) for a unit qu: the body-axes rotation update of free and ball joints (004
// "q(t) = q0 * exp(t v)"), normalized after (MuJoCo's mju_quatIntegrate)
static void quat_step(double qu[4], const double w[3], double dt) {
  double ang[3], dq[4];
  sp_scale3(ang, w, dt);
  sp_expquat(dq, ang);
  sp_mulquat(qu, qu, dq);
  sp_normquat(qu);
}

// q_out = q ⊕ v dt. Free joints (model.h): the com moves along a straight line in the joint's
// placement frame, c+ = c + dt v_lin, and the orientation through the exponential map of SO(3),
// Rq+ = Rq exp(dt w) (body axes); the origin follows from the com: p+ = c+ - Rq+ c_body.
// Translating the com rather than the origin makes torque-free ballistic motion exact whatever
// the spin (an SE(3) screw through the origin would curve it). Ball joints turn by the same
// exponential map; 1-dof joints by addition.
void kin_integrate(const sim_model* m, const double* q, const double* v, double dt, double* q_out) {
  for (int j = 0; j < m->njnt; j++) {
    int qa = m->jnt_qadr[j], va = m->jnt_dofadr[j];
    if (m->jnt_type[j] == MODEL_JOINT_BALL) {
      double qu[4] = {q[qa], q[qa + 1], q[qa + 2], q[qa + 3]};
      sp_normquat(qu);
      quat_step(qu, v + va, dt);
      for (int i = 0; i < 4; i++) q_out[qa + i] = qu[i];
      continue;
    }
    if (m->jnt_type[j] != MODEL_JOINT_FREE) {
      q_out[qa] = q[qa] + v[va] * dt;
      continue;
    }
    const double* cb = m->body_com + 3 * m->jnt_body[j];
    double qu[4] = {q[qa + 3], q[qa + 4], q[qa + 5], q[qa + 6]};
    double R[9], com[3], rc[3];
    sp_normquat(qu);
    if (cb[0] == 0 && cb[1] == 0 && cb[2] == 0) {  // the com at the body origin (a cube): no
      // rotation of the offset, whose terms would add only zeros (values equal, up to the sign
      // of an exact zero)
      for (int i = 0; i < 3; i++) q_out[qa + i] = q[qa + i] + v[va + i] * dt;
      quat_step(qu, v + va + 3, dt);
      for (int i = 0; i < 4; i++) q_out[qa + 3 + i] = qu[i];
      continue;
    }
    sp_quat2mat(R, qu);
    sp_xform(com, R, q + qa, cb);
    sp_addscl3(com, v + va, dt);
    quat_step(qu, v + va + 3, dt);
    sp_quat2mat(R, qu);
    sp_mulmv3(rc, R, cb);
    for (int i = 0; i < 3; i++) q_out[qa + i] = com[i] - rc[i];
    for (int i = 0; i < 4; i++) q_out[qa + 3 + i] = qu[i];
  }
}

void kin_ball_rotation(const sim_model* m, const double* q, int j, double x[3]) {
  const double* qj = q + m->jnt_qadr[j];
  double qu[4] = {qj[0], qj[1], qj[2], qj[3]};
  sp_normquat(qu);
  sp_logquat(x, qu);
}

// w = log(a^-1 b) for unit quaternions a, b [x y z w]: the body-axes rotation from a to b
static void quat_diff(double w[3], const double a[4], const double b[4]) {
  double ac[4] = {-a[0], -a[1], -a[2], a[3]}, dq[4];
  sp_mulquat(dq, ac, b);
  sp_logquat(w, dq);
}

// v = q1 ⊖ q0 per unit time: free joints [com displacement; log(Rq0' Rq1)], ball joints
// log(Rq0' Rq1), q1 - q0 otherwise
void kin_difference(const sim_model* m, const double* q0, const double* q1, double* v) {
  for (int j = 0; j < m->njnt; j++) {
    int qa = m->jnt_qadr[j], va = m->jnt_dofadr[j];
    if (m->jnt_type[j] == MODEL_JOINT_BALL) {
      double a[4] = {q0[qa], q0[qa + 1], q0[qa + 2], q0[qa + 3]};
      double b[4] = {q1[qa], q1[qa + 1], q1[qa + 2], q1[qa + 3]};
      sp_normquat(a);
      sp_normquat(b);
      quat_diff(v + va, a, b);
      continue;
    }
    if (m->jnt_type[j] != MODEL_JOINT_FREE) {
      v[va] = q1[qa] - q0[qa];
      continue;
    }
    const double* cb = m->body_com + 3 * m->jnt_body[j];
    double a[4] = {q0[qa + 3], q0[qa + 4], q0[qa + 5], q0[qa + 6]};
    double b[4] = {q1[qa + 3], q1[qa + 4], q1[qa + 5], q1[qa + 6]};
    sp_normquat(a);
    sp_normquat(b);
    double Ra[9], Rb[9], ca[3], cbw[3];
    sp_quat2mat(Ra, a);
    sp_quat2mat(Rb, b);
    sp_xform(ca, Ra, q0 + qa, cb);
    sp_xform(cbw, Rb, q1 + qa, cb);
    sp_sub3(v + va, cbw, ca);
    quat_diff(v + va + 3, a, b);
  }
}
