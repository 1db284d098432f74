// dynamics.c — RNEA, CRBA, tree-sparse L'DL factorization and solves (see dynamics.h).
//
// Featherstone, "Rigid Body Dynamics Algorithms" (RBDA), written in csim's [linear; angular]
// spatial-vector order (the book uses [angular; linear]). In [lin; ang] order, with body pose
// (R, p) in its parent (x_parent = R x_child + p):
//   motion parent -> child:   (v, w)  ->  (R'(v + w x p), R'w)
//   force  child -> parent:   (f, n)  ->  (R f, R n + p x (R f))
//   motion cross  (v, w) x  (u, z) = (w x u + v x z, w x z)
//   force cross   (v, w) x* (f, n) = (w x f, w x n + v x f)
// A rigid body is kept compact: mass m, first moment h = m c, second moment Io about the body
// origin; its spatial inertia acting on a motion (v, w) gives the force
//   f = m v + w x h,   n = Io w + h x v.
#include "core/dynamics.h"

#include <math.h>
#include <string.h>

#include "core/kinematics.h"
#include "core/spatial.h"

//---------------------------------- spatial helpers ------------------------------------------
// (3-vector and 3x3 basics are spatial.h's inline ones)

// symmetric 3x3 stored as xx yy zz xy xz yz: r = I w
static void sym_mulv(double r[3], const double I[6], const double w[3]) {
  r[0] = I[0] * w[0] + I[3] * w[1] + I[4] * w[2];
  r[1] = I[3] * w[0] + I[1] * w[1] + I[5] * w[2];
  r[2] = I[4] * w[0] + I[5] * w[1] + I[2] * w[2];
}

// force of a compact inertia acting on a motion: f = m v + w x h, n = Io w + h x v
static inline void inertia_mul(double f[6], const double I[10], const double s[6]) {
  const double* h = I + 1;
  double t[3];
  sp_cross3(t, s + 3, h);
  for (int i = 0; i < 3; i++) f[i] = I[0] * s[i] + t[i];
  sym_mulv(f + 3, I + 4, s + 3);
  sp_cross3(t, h, s);
  for (int i = 0; i < 3; i++) f[3 + i] += t[i];
}

// force child -> parent frame: (f, n) -> (R f, R n + p x R f)
static void force_to_parent(double out[6], const double R[9], const double p[3], const double f[6]) {
  double t[3];
  sp_mulmv3(out, R, f);
  sp_mulmv3(out + 3, R, f + 3);
  sp_cross3(t, p, out);
  sp_add3(out + 3, out + 3, t);
}

// a'b for spatial 6-vectors
static double dot6(const double a[6], const double b[6]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

// a body on a free joint whose parent is the world (its joint's S is free_cdof's:
// the fast paths below apply)
static inline int free_root(const sim_model* m, int b) {
  return m->body_parent[b] == 0 && m->jnt_type[m->body_jnt[b]] == MODEL_JOINT_FREE &&
         m->body_dofnum[b] == 6;
}

// S'F for column k of a free joint's S (free_cdof): the linear columns [Rq' e_k; 0] need only
// the first three products (the others are products by exact zeros)
static inline double free_dot(int k, const double S[6], const double F[6]) {
  return k < 3 ? S[0] * F[0] + S[1] * F[1] + S[2] * F[2] : dot6(S, F);
}

//---------------------------------- RNEA ------------------------------------------------------

// a = X a_parent for body b (world: a_0 = (-g, 0) when `gravity`, else 0), in b's frame
static inline void accel_from_parent(const sim_model* m, const sim_data* d, int b, int gravity,
                                     double a[6]) {
  int pb = m->body_parent[b];
  const double* R = d->xloc_mat + 9 * b;
  if (pb == 0) {
    double ng[3] = {0, 0, 0};
    if (gravity) {
      ng[0] = -m->gravity[0];
      ng[1] = -m->gravity[1];
      ng[2] = -m->gravity[2];
    }
    sp_mulmtv3(a, R, ng);
    a[3] = a[4] = a[5] = 0;
  } else {
    kin_motion_to_body(d, b, d->cacc + 6 * pb, a);
  }
}

// f -= body b's external wrench fext (world axes at the body origin), turned to body axes
static void fext_subtract(const sim_data* d, const double* fext, int b, double f[6]) {
  const double* Rw = d->xmat + 9 * b;
  double fb[6];
  sp_mulmtv3(fb, Rw, fext + 6 * b);
  sp_mulmtv3(fb + 3, Rw, fext + 6 * b + 3);
  for (int i = 0; i < 6; i++) f[i] -= fb[i];
}

// tau = S'f for body b's dofs, S in its body frame (cdof): a free root's and a revolute joint's
// without the products by exact zeros (the same values up to the sign of an exact zero)
static inline void body_tau(const sim_model* m, const double* cdof, int b, const double f[6],
                            double* tau) {
  int k0 = m->body_dofadr[b];
  if (free_root(m, b)) {
    for (int r = 0; r < 6; r++) tau[k0 + r] = free_dot(r, cdof + 6 * (k0 + r), f);
  } else if (m->jnt_type[m->body_jnt[b]] == MODEL_JOINT_REVOLUTE) {  // S = [0; axis]
    const double* S = cdof + 6 * k0;
    tau[k0] = S[3] * f[3] + S[4] * f[4] + S[5] * f[5];
  } else {
    for (int k = k0; k < k0 + m->body_dofnum[b]; k++) tau[k] = dot6(cdof + 6 * k, f);
  }
}

// RNEA's backward pass on the body forces d->cfrc: joint forces, then forces handed to the
// parent (RBDA eq. 5.10-5.11)
static void rnea_backward(const sim_model* m, sim_data* d, double* tau) {
  double* cfrc = d->cfrc;
  const double* cdof = d->cdof;
  for (int b = m->nbody - 1; b > 0; b--) {
    const double* f = cfrc + 6 * b;
    int pb = m->body_parent[b];
    body_tau(m, cdof, b, f, tau);
    if (pb > 0) {
      double fp[6], *fpb = cfrc + 6 * pb;
      force_to_parent(fp, d->xloc_mat + 9 * b, d->xloc_pos + 3 * b, f);
      for (int i = 0; i < 6; i++) fpb[i] += fp[i];
    }
  }
}

// f = I a + v x* (I v) (RBDA eq. 5.9), any frame
static inline void spatial_force(double f[6], const double I[10], const double v[6],
                                 const double a[6]) {
  double Iv[6], t1[3], t2[3];
  inertia_mul(f, I, a);
  inertia_mul(Iv, I, v);
  sp_cross3(t1, v + 3, Iv);
  sp_add3(f, f, t1);
  sp_cross3(t1, v + 3, Iv + 3);
  sp_cross3(t2, v, Iv);
  for (int i = 0; i < 3; i++) f[3 + i] += t1[i] + t2[i];
}

// f = I a + v x* (I v) - f_ext for body b (RBDA eq. 5.9): rnea_forward_body's last part
static inline void rnea_body_force(const sim_model* m, sim_data* d, int b, const double v[6],
                                   const double a[6], const double* fext) {
  double* f = d->cfrc + 6 * b;
  spatial_force(f, m->body_cinert + 10 * b, v, a);
  if (fext) fext_subtract(d, fext, b, f);
}

// RBDA Table 5.1 (RNEA) in body frames, gravity as a fictitious base acceleration a_0 = -g
// (when `gravity`), body velocities from the given v (not d->cvel, so that the integrator can
// evaluate the velocity-product terms at a trial velocity)
// RNEA's forward pass at body b (dyn_rnea_full)
static inline void rnea_forward_body(const sim_model* m, sim_data* d, int b, const double* v_in,
                                     const double* qacc, const double* fext, int gravity) {
  {
    double* v = d->rvel + 6 * b;
    double* a = d->cacc + 6 * b;
    // v = X v_parent, a = X a_parent (world: v_0 = 0, a_0 = (-g, 0))
    kin_motion_to_body(d, b, d->rvel + 6 * m->body_parent[b], v);
    accel_from_parent(m, d, b, gravity, a);
    double t1[3], t2[3];
    if (m->jnt_type[m->body_jnt[b]] == MODEL_JOINT_REVOLUTE) {
      // S = [0; axis] (model.h dof_motion): v_J = (0, w_J), the operations on its zero linear
      // part (v += 0, w x 0 in v x v_J) left out; the same values up to the sign of exact zeros
      int k = m->body_dofadr[b];
      const double* S = d->cdof + 6 * k;
      double qd = v_in[k], wj[3] = {S[3] * qd, S[4] * qd, S[5] * qd};
      if (qacc)
        for (int i = 0; i < 6; i++) a[i] += S[i] * qacc[k];
      sp_add3(v + 3, v + 3, wj);
      sp_cross3(t2, v, wj);
      sp_add3(a, a, t2);
      sp_cross3(t1, v + 3, wj);
      sp_add3(a + 3, a + 3, t1);
      rnea_body_force(m, d, b, v, a, fext);
      return;
    }
    // joint velocity v_J = S qdot and S qacc (S at q: d->cdof)
    double vj[6] = {0, 0, 0, 0, 0, 0};
    for (int k = m->body_dofadr[b]; k < m->body_dofadr[b] + m->body_dofnum[b]; k++) {
      const double* S = d->cdof + 6 * k;
      double qd = v_in[k];
      for (int i = 0; i < 6; i++) vj[i] += S[i] * qd;
      if (qacc)  // (without: S 0 would add zeros)
        for (int i = 0; i < 6; i++) a[i] += S[i] * qacc[k];
    }
    for (int i = 0; i < 6; i++) v[i] += vj[i];
    // c_J = (d/dt S) qdot in body coordinates (RBDA eq. 4.37): zero for 1-dof and ball joints
    // (S constant in body axes); for a
    // free joint the linear columns Rq' e_k turn with the body: -w_J x (Rq' v_lin), where
    // Rq' v_lin = v_J,lin - c x w_J
    if (m->jnt_type[m->body_jnt[b]] == MODEL_JOINT_FREE) {
      const double* c = m->body_com + 3 * b;
      double u[3];
      sp_cross3(t1, c, vj + 3);
      for (int i = 0; i < 3; i++) u[i] = vj[i] - t1[i];
      sp_cross3(t2, vj + 3, u);
      for (int i = 0; i < 3; i++) a[i] -= t2[i];
    }
    // + v x v_J (RBDA eq. 5.8)
    sp_cross3(t1, v + 3, vj);
    sp_cross3(t2, v, vj + 3);
    for (int i = 0; i < 3; i++) a[i] += t1[i] + t2[i];
    sp_cross3(t1, v + 3, vj + 3);
    sp_add3(a + 3, a + 3, t1);
    rnea_body_force(m, d, b, v, a, fext);
  }
}

void dyn_rnea_full(const sim_model* m, sim_data* d, const double* v_in, const double* qacc,
                   const double* fext, int gravity, double* tau) {
  // forward pass: velocities, accelerations and body forces
  memset(d->rvel, 0, 6 * sizeof(double));
  for (int b = 1; b < m->nbody; b++) rnea_forward_body(m, d, b, v_in, qacc, fext, gravity);
  rnea_backward(m, d, tau);
}

// rnea_forward_body's velocity products (no gravity, qacc or f_ext) for a body on a free joint
// below the world (humanoid100's 100 loose geoms), with the operations on exact zeros left out,
// so the values are the general pass's: the parent's v and a are zero (v = v_J, a = c_J); the
// joint's S = [Rq' e_k; 0] and [c x e_k; e_k] (kinematics.c free_cdof) makes v_J's angular part
// w itself; v x v_J = 0 (w x u + u x w cancels exactly in floating point, w x w = 0), and
// I a = (m a, h x a) as a has no angular part. A third of the general pass's instructions
static void rnea_vp_free_root(const sim_model* m, sim_data* d, int b, const double* v_in) {
  const int da = m->body_dofadr[b];
  const double *S = d->cdof + 6 * da, *qd = v_in + da, *c = m->body_com + 3 * b;
  double* v = d->rvel + 6 * b;
  double* a = d->cacc + 6 * b;
  double* f = d->cfrc + 6 * b;
  const double* w = qd + 3;
  // v = S qdot, the dofs in the general pass's order
  for (int i = 0; i < 3; i++) {
    double s = S[i] * qd[0];
    for (int k = 1; k < 6; k++) s += S[6 * k + i] * qd[k];
    v[i] = s;
    v[3 + i] = w[i];
  }
  // a = c_J = -w x (v_lin - c x w)
  double t1[3], t2[3], u[3];
  sp_cross3(t1, c, w);
  for (int i = 0; i < 3; i++) u[i] = v[i] - t1[i];
  sp_cross3(t2, w, u);
  for (int i = 0; i < 3; i++) a[i] = -t2[i], a[3 + i] = 0;
  // f = I a + v x* (I v)
  const double* I = m->body_cinert + 10 * b;
  double Iv[6];
  for (int i = 0; i < 3; i++) f[i] = I[0] * a[i];
  sp_cross3(f + 3, I + 1, a);
  inertia_mul(Iv, I, v);
  sp_cross3(t1, w, Iv);
  sp_add3(f, f, t1);
  sp_cross3(t1, w, Iv + 3);
  sp_cross3(t2, v, Iv);
  for (int i = 0; i < 3; i++) f[3 + i] += t1[i] + t2[i];
}

// motion cross product r = v x s: (w x u + v x z, w x z) for v = (v, w), s = (u, z)
static inline void motion_cross(double r[6], const double v[6], const double s[6]) {
  double t[3];
  sp_cross3(r, v + 3, s);
  sp_cross3(t, v, s + 3);
  sp_add3(r, r, t);
  sp_cross3(r + 3, v + 3, s + 3);
}

// a root whose v, a and f dyn_rnea_vp turns to its tree's frame once, after its body-frame pass
// (its children then take them as they are): one with descendants of some mass. Any other root's
// children turn them themselves (the same values: only the cost differs)
static inline int vp_root_turned(const sim_model* m, int r) {
  return m->body_subtreemass[r] > m->body_mass[r];
}

// x = R x for the two halves of a spatial vector
static inline void turn6(const double R[9], double x[6]) {
  sp_mulmv3(x, R, x);
  sp_mulmv3(x + 3, R, x + 3);
}

// dyn_rnea_vp's forward pass at a body b below its tree's root, in the tree's frame (world axes
// at the root body's origin, a frame fixed in space at this instant: MuJoCo's mj_comVel and
// mj_rne), where nothing is transformed from parent to child: v = v_p + v_J (v_J = S qd),
// a = a_p + dS/dt qd with dS/dt = v x S for a column fixed in the body (1-dof and ball joints, a
// free joint's angular ones: a = a_p + v x v_J) and v_p x S for one fixed in the parent (a free
// joint's linear ones, model.h), f = I a + v x* (I v) with the body's own inertia d->cinertt.
// The root's v and a, body-frame ones, are turned to the tree's axes
static void rnea_vp_tree_body(const sim_model* m, sim_data* d, int b, const double* qd) {
  int pb = m->body_parent[b], r = m->body_rootid[b];
  const double *vp = d->rvel + 6 * pb, *ap = d->cacc + 6 * pb;
  double vr[6], ar[6];
  if (pb == r && !vp_root_turned(m, r)) {
    const double* R = d->xmat + 9 * r;
    sp_mulmv3(vr, R, vp);
    sp_mulmv3(vr + 3, R, vp + 3);
    sp_mulmv3(ar, R, ap);
    sp_mulmv3(ar + 3, R, ap + 3);
    vp = vr;
    ap = ar;
  }
  double *v = d->rvel + 6 * b, *a = d->cacc + 6 * b, vj[6], c[6];
  int k0 = m->body_dofadr[b], n = m->body_dofnum[b];
  const double* S = d->cdoft + 6 * k0;
  for (int i = 0; i < 6; i++) vj[i] = S[i] * qd[k0];
  for (int k = 1; k < n; k++)
    for (int i = 0; i < 6; i++) vj[i] += S[6 * k + i] * qd[k0 + k];
  for (int i = 0; i < 6; i++) v[i] = vp[i] + vj[i];
  motion_cross(c, v, vj);
  if (n == 6) {  // a free joint: its linear columns' v x S_lin qd less, (v - v_p) x = v_J x
    double l[3], t[3];
    for (int i = 0; i < 3; i++) l[i] = S[i] * qd[k0] + S[6 + i] * qd[k0 + 1] + S[12 + i] * qd[k0 + 2];
    sp_cross3(t, vj + 3, l);
    sp_sub3(c, c, t);
  }
  for (int i = 0; i < 6; i++) a[i] = ap[i] + c[i];
  spatial_force(d->cfrc + 6 * b, d->cinertt + 10 * b, v, a);
}

// dyn_rnea_vp's backward pass: a body below its root hands its force (tree frame) to its parent
// as it is, to the root turned to the root's body frame (R'f); S'f with the tree-frame S
static void rnea_vp_backward(const sim_model* m, sim_data* d, double* tau, const int* body_tree,
                             const int* tree_on) {
  double* cfrc = d->cfrc;
  for (int b = m->nbody - 1; b > 0; b--) {
    if (!tree_on[body_tree[b]]) continue;
    const double* f = cfrc + 6 * b;
    int pb = m->body_parent[b], r = m->body_rootid[b];
    if (r == b) {  // S in the frame of f: the tree's (world axes at the body origin: cdofw)
      body_tau(m, vp_root_turned(m, b) ? d->cdofw : d->cdof, b, f, tau);
      continue;
    }
    for (int k = m->body_dofadr[b]; k < m->body_dofadr[b] + m->body_dofnum[b]; k++)
      tau[k] = dot6(d->cdoft + 6 * k, f);
    double* fp = cfrc + 6 * pb;
    if (pb == r && !vp_root_turned(m, r)) {
      const double* R = d->xmat + 9 * r;
      double t[6];
      sp_mulmtv3(t, R, f);
      sp_mulmtv3(t + 3, R, f + 3);
      for (int i = 0; i < 6; i++) fp[i] += t[i];
    } else {
      for (int i = 0; i < 6; i++) fp[i] += f[i];
    }
  }
}

void dyn_rnea_vp(const sim_model* m, sim_data* d, const double* v, const int* body_tree,
                 const int* tree_on, double* tau) {
  memset(d->rvel, 0, 6 * sizeof(double));
  for (int b = 1; b < m->nbody; b++) {
    if (!tree_on[body_tree[b]]) continue;
    if (m->body_rootid[b] != b) {
      rnea_vp_tree_body(m, d, b, v);
      continue;
    }
    if (free_root(m, b)) rnea_vp_free_root(m, d, b, v);
    else rnea_forward_body(m, d, b, v, NULL, NULL, 0);
    if (vp_root_turned(m, b)) {
      const double* R = d->xmat + 9 * b;
      turn6(R, d->rvel + 6 * b);
      turn6(R, d->cacc + 6 * b);
      turn6(R, d->cfrc + 6 * b);
    }
  }
  rnea_vp_backward(m, d, tau, body_tree, tree_on);
}

void dyn_rnea(const sim_model* m, sim_data* d, const double* qacc, const double* fext,
              double* tau) {
  dyn_rnea_full(m, d, d->v, qacc, fext, 1, tau);
}

// RNEA at rest (RBDA Table 5.1 with v = 0, qacc = 0): a = X a_parent from a_0 = (-g, 0), f = I a
// - f_ext, then the backward pass of dyn_rnea_full. Every acceleration is a linear one (a_0 has
// no angular part and X carries (u, 0) to (R' u, 0)), so a = (R' a_parent, 0) and I a = (m a,
// h x a), as in rnea_vp_free_root. Every operation left out multiplies or adds an exact zero
// there, so the values are dyn_rnea_full's (up to the sign of exact zeros)
void dyn_rnea_rest(const sim_model* m, sim_data* d, const double* fext, int gravity, double* tau) {
  for (int b = 1; b < m->nbody; b++) {
    double* a = d->cacc + 6 * b;
    int pb = m->body_parent[b];
    const double* R = d->xloc_mat + 9 * b;
    if (pb == 0) {
      double ng[3] = {0, 0, 0};
      if (gravity) ng[0] = -m->gravity[0], ng[1] = -m->gravity[1], ng[2] = -m->gravity[2];
      sp_mulmtv3(a, R, ng);
    } else {
      sp_mulmtv3(a, R, d->cacc + 6 * pb);
    }
    a[3] = a[4] = a[5] = 0;
    const double* I = m->body_cinert + 10 * b;
    double* f = d->cfrc + 6 * b;
    for (int i = 0; i < 3; i++) f[i] = I[0] * a[i];
    sp_cross3(f + 3, I + 1, a);
    if (fext) fext_subtract(d, fext, b, f);
  }
  rnea_backward(m, d, tau);
}

// b(q, v) = RNEA with zero acceleration and no external force
void dyn_bias(const sim_model* m, sim_data* d) {
  dyn_rnea(m, d, NULL, NULL, d->qfrc_bias);
}

//---------------------------------- CRBA ------------------------------------------------------

// one past row i's last entry (its root's column) in the tree-sparse layout
static inline int row_end(const sim_model* m, int i) {
  return i + 1 < m->nv ? m->dof_Madr[i + 1] : m->nM;
}

// dyn_crba's rows of the six dofs of a free body below the world (free_root), with its values:
// every entry is within the body (no force carried to a parent), and a linear column's
// I S = (m s, h x s) as its angular part is zero
static void crba_free_root(const sim_model* m, sim_data* d, int b, const double ng[3]) {
  const double* I = d->crb + 10 * b;
  int da = m->body_dofadr[b];
  double a[3];
  sp_mulmtv3(a, d->xmat + 9 * b, ng);  // a_0 in the body frame
  // row da + r holds the r dofs below it, nearest first (factor_free_root's layout): indexed
  // directly and unrolled, the same operations in the same order
#pragma GCC unroll 6
  for (int r = 0; r < 6; r++) {
    int i = da + r;
    const double* S = d->cdof + 6 * i;
    double F[6];
    if (r < 3) {
      for (int k = 0; k < 3; k++) F[k] = I[0] * S[k];
      sp_cross3(F + 3, I + 1, S);
    } else {
      inertia_mul(F, I, S);
    }
    double* row = d->qM + m->dof_Madr[i];
    row[0] = free_dot(r, S, F) + m->dof_armature[i];
    d->qfrc_grav[i] = sp_dot3(F, a);
#pragma GCC unroll 5
    for (int s = 1; s <= r; s++) row[s] = free_dot(r - s, d->cdof + 6 * (i - s), F);
  }
}

// body b's compact inertia in its tree's frame (world axes at the root body's origin o): with
// rc = xcom - o and Ic the inertia about the com (body axes), h = m rc, Io = R Ic R' + m(|rc|^2 1
// - rc rc')
static void inertia_tree(const sim_model* m, const sim_data* d, int b, const double o[3],
                         double I[10]) {
  const double *R = d->xmat + 9 * b, *Ic = m->body_inertia + 9 * b;
  double mass = m->body_mass[b], rc[3], T[9];
  sp_sub3(rc, d->xcom + 3 * b, o);
  // T = R Ic, Ic symmetric: its upper triangle (body_cinert's)
  const double a = Ic[0], e = Ic[1], f = Ic[2], g = Ic[4], h = Ic[5], k = Ic[8];
  for (int i = 0; i < 3; i++) {
    const double* r = R + 3 * i;
    T[3 * i] = r[0] * a + r[1] * e + r[2] * f;
    T[3 * i + 1] = r[0] * e + r[1] * g + r[2] * h;
    T[3 * i + 2] = r[0] * f + r[1] * h + r[2] * k;
  }
  double r2 = sp_dot3(rc, rc);
  I[0] = mass;
  for (int i = 0; i < 3; i++) I[1 + i] = mass * rc[i];
  for (int i = 0; i < 3; i++)
    I[4 + i] = T[3 * i] * R[3 * i] + T[3 * i + 1] * R[3 * i + 1] + T[3 * i + 2] * R[3 * i + 2] +
               mass * (r2 - rc[i] * rc[i]);
  I[7] = T[0] * R[3] + T[1] * R[4] + T[2] * R[5] - mass * rc[0] * rc[1];
  I[8] = T[0] * R[6] + T[1] * R[7] + T[2] * R[8] - mass * rc[0] * rc[2];
  I[9] = T[3] * R[6] + T[4] * R[7] + T[5] * R[8] - mass * rc[1] * rc[2];
}

// a root body's composite inertia in its body frame: its own, plus its descendants' sum A in the
// tree frame (world axes at its origin: only turned, h' = R'h, Io' = R' Io R)
static void inertia_root(const double R[9], const double ci[10], double A[10]) {
  double S[9], T[9], h[3];
  S[0] = A[4]; S[1] = A[7]; S[2] = A[8];
  S[3] = A[7]; S[4] = A[5]; S[5] = A[9];
  S[6] = A[8]; S[7] = A[9]; S[8] = A[6];
  sp_mulmtm3(T, R, S);  // R' Io, then (R' Io) R
  sp_mulmtv3(h, R, A + 1);
  A[0] += ci[0];
  for (int i = 0; i < 3; i++) A[1 + i] = ci[1 + i] + h[i];
  for (int i = 0; i < 3; i++)
    A[4 + i] = ci[4 + i] + (T[3 * i] * R[i] + T[3 * i + 1] * R[3 + i] + T[3 * i + 2] * R[6 + i]);
  A[7] = ci[7] + (T[0] * R[1] + T[1] * R[4] + T[2] * R[7]);
  A[8] = ci[8] + (T[0] * R[2] + T[1] * R[5] + T[2] * R[8]);
  A[9] = ci[9] + (T[3] * R[2] + T[4] * R[5] + T[5] * R[8]);
}

// body b's dofs' S in its tree's frame (d->cdoft): the world-axes S at the body origin
// (d->cdofw) moved to o, lin += (x_b - o) x ang
static void cdof_tree(const sim_model* m, sim_data* d, int b, const double o[3]) {
  double p[3], t[3];
  sp_sub3(p, d->xpos + 3 * b, o);
  for (int k = m->body_dofadr[b]; k < m->body_dofadr[b] + m->body_dofnum[b]; k++) {
    const double* Sw = d->cdofw + 6 * k;
    double* S = d->cdoft + 6 * k;
    sp_cross3(t, p, Sw + 3);
    sp_add3(S, Sw, t);
    sp_copy3(S + 3, Sw + 3);
  }
}

// A += I for compact inertias of two bodies (restrict: no runtime overlap test)
static inline void add10(double* restrict A, const double* restrict I) {
  for (int k = 0; k < 10; k++) A[k] += I[k];
}

// RBDA Table 6.2 (CRBA), in two frames: every body below a root in its tree's frame (world axes
// at the root body's origin o), where composite inertias add without transforms and each
// ancestor entry is one product S_j'F (MuJoCo's mj_crb, whose frame is centred at the subtree
// com); a root body in its own frame (its rows then take d->cdof, crba_free_root's layout; an
// isolated body, a cube, needs no transform at all), its S in the tree frame being d->cdofw.
// Composite inertias leaves first, then for each dof i the force F = Ic S_i, M_ij = S_j' F for
// every ancestor dof j, stored along row i (dof_Madr: the diagonal, then the ancestors nearest
// first); each dof's armature adds to its diagonal entry (MuJoCo's mj_crb; 0 for URDF joints).
// Gravity's generalized force comes with it: RNEA at rest carries dof i's subtree up at a_0 =
// (-g, 0), S_i' Ic_i a_0 = F' a_0 (Ic symmetric), three products on F (d->qfrc_grav)
void dyn_crba(const sim_model* m, sim_data* d) {
  int nv = m->nv;
  const double ng[3] = {-m->gravity[0], -m->gravity[1], -m->gravity[2]};
  // each body's own inertia (a root's slot: the sum of its descendants' to come)
  for (int b = 1; b < m->nbody; b++) {
    double* I = d->crb + 10 * b;
    int r = m->body_rootid[b];
    if (r == b) {
      memset(I, 0, 10 * sizeof(double));
      continue;
    }
    inertia_tree(m, d, b, d->xpos + 3 * r, I);
    memcpy(d->cinertt + 10 * b, I, 10 * sizeof(double));
    cdof_tree(m, d, b, d->xpos + 3 * r);
  }
  // composite inertias, leaves first
  for (int b = m->nbody - 1; b > 0; b--) {
    double* I = d->crb + 10 * b;
    int pb = m->body_parent[b];
    if (pb > 0) {
      add10(d->crb + 10 * pb, I);
    } else if (I[0] > 0) {  // a root with descendants (each of a positive subtree mass)
      inertia_root(d->xmat + 9 * b, m->body_cinert + 10 * b, I);
      int da = m->body_dofadr[b];
      memcpy(d->cdoft + 6 * da, d->cdofw + 6 * da, 6 * sizeof(double) * (size_t)m->body_dofnum[b]);
    } else {
      memcpy(I, m->body_cinert + 10 * b, 10 * sizeof(double));
    }
  }
  // rows: a root's dofs in its body frame (no ancestors outside it), the others in the tree's
  for (int i = 0; i < nv; i++) {
    int b = m->dof_body[i], adr = m->dof_Madr[i];
    if (free_root(m, b)) {  // the free joint's 6 x 6 block, all of these rows
      crba_free_root(m, d, b, ng);
      i += 5;
      continue;
    }
    int root = m->body_parent[b] == 0;
    const double* S = root ? d->cdof : d->cdoft;
    double F[6], a[3];
    inertia_mul(F, d->crb + 10 * b, S + 6 * i);
    d->qM[adr++] = dot6(S + 6 * i, F) + m->dof_armature[i];
    if (root) sp_mulmtv3(a, d->xmat + 9 * b, ng);  // a_0 in the frame of F
    else sp_copy3(a, ng);
    d->qfrc_grav[i] = sp_dot3(F, a);
    // a free root's linear dofs da + 2, da + 1, da, the row's last three entries, move without
    // turning (d->cdofw's angular part of [R Rq' e_k; 0] is zero): their products by the exact
    // zeros left out
    int r = m->body_rootid[b], e = row_end(m, i);
    int e6 = r != b && free_root(m, r) ? e - 3 : e;
    for (; adr < e6; adr++) d->qM[adr] = dot6(S + 6 * m->dof_Mcol[adr], F);
    if (e6 < e) {
      const double* Sr = S + 6 * m->body_dofadr[r];
      d->qM[e6] = sp_dot3(Sr + 12, F);
      d->qM[e6 + 1] = sp_dot3(Sr + 6, F);
      d->qM[e6 + 2] = sp_dot3(Sr, F);
    }
  }
}

//---------------------------------- L'DL factorization and solves -----------------------------


// RBDA Table 6.3 (LTDL): M = L'DL in place on a copy of M's rows, O(nv depth^2). Row i's
// entries run from dof i to its root, so the entries (i, j) for j = i and its ancestors are
// consecutive from dof_Madr[i], and those of (k, j) for the same j are consecutive from the
// address of (k, i) when i is an ancestor of k (MuJoCo mj_factorM)
// dyn_factor's elimination of a free body's rows below the world (free_root): row r of its 6
// (dof da + r) holds (r, r), (r, r - 1) .. (r, 0), so the general loop's lookups become fixed
// offsets; the same operations in the same order
static void factor_free_root(double* H, const int* adr, int da) {
  // unrolled (the trip counts are constants then): the same operations in the same order
#pragma GCC unroll 6
  for (int r = 5; r >= 0; r--) {
    double* Hk = H + adr[da + r];
    double dk = Hk[0];
#pragma GCC unroll 5
    for (int s = 1; s <= r; s++) {  // (r, i), i = r - s up from the parent dof
      double* Hi = H + adr[da + r - s];
      double a = Hk[s] / dk;
#pragma GCC unroll 5
      for (int t = 0; t <= r - s; t++) Hi[t] -= Hk[s + t] * a;
      Hk[s] = a;
    }
  }
}

// y -= a x over n entries: rows i < k of dyn_factor, which never overlap (restrict: no runtime
// overlap test on these short rows)
static inline void row_sub_scaled(double* restrict y, const double* restrict x, double a, int n) {
  for (int t = 0; t < n; t++) y[t] -= x[t] * a;
}

// the loop of dyn_factor over a row's last six entries h, those of a free root's dofs da + 5 ..
// da (nearest first), whose rows hold 6 - r entries: unrolled on these fixed lengths, the same
// operations in the same order (most of a legged robot's entries are these short updates)
static inline void factor_free_tail(double* H, const int* adr, int da, double* h, double dk) {
#pragma GCC unroll 6
  for (int r = 0; r < 6; r++) {
    double* Hi = H + adr[da + 5 - r];
    double a = h[r] / dk;
#pragma GCC unroll 6
    for (int t = 0; t < 6 - r; t++) Hi[t] -= h[r + t] * a;
    h[r] = a;
  }
}

void dyn_factor(const sim_model* m, sim_data* d) {
  int nv = m->nv;
  const int *adr = m->dof_Madr, *col = m->dof_Mcol;
  double* H = d->qLD;
  memcpy(H, d->qM, sizeof(double) * (size_t)m->nM);
  // eliminate from the leaves up
  for (int k = nv - 1; k >= 0; k--) {
    int b = m->dof_body[k];
    if (free_root(m, b)) {  // its six rows, the last first
      factor_free_root(H, adr, m->body_dofadr[b]);
      k = m->body_dofadr[b];
      continue;
    }
    double* Hk = H + adr[k];
    const int* ck = col + adr[k];
    double dk = Hk[0];
    int n = row_end(m, k) - adr[k], r = m->body_rootid[b];
    int nf = r != b && free_root(m, r) ? n - 6 : n;  // the free root's six entries end the row
    for (int s = 1; s < nf; s++) {  // (k, i), i up from par[k]
      double a = Hk[s] / dk;
      // row i holds i to its root: the rest of row k from (k, i)
      row_sub_scaled(H + adr[ck[s]], Hk + s, a, n - s);
      Hk[s] = a;
    }
    if (nf < n) factor_free_tail(H, adr, m->body_dofadr[r], Hk + nf, dk);
  }
  // D in each row's first slot, kept also in qLDiag and as D^-1/2
  for (int i = 0; i < nv; i++) {
    d->qLDiag[i] = H[adr[i]];
    d->qLDiagSqrtInv[i] = 1 / sqrt(d->qLDiag[i]);
  }
}

// the first dof of the free root (free_root) that dof i belongs to, or -1
static inline int free_root_dof(const sim_model* m, int i) {
  int b = m->dof_body[i];
  return free_root(m, b) ? m->body_dofadr[b] : -1;
}

// solve_lt's rows of a free root's six dofs da..da+5: row da+r holds the r dofs below it, nearest
// first (factor_free_root's layout), so the walk indexes them directly: the same operations in
// the same order, without the column map
static void lt_free_root(const int* adr, const double* L, double* x, int da) {
#pragma GCC unroll 5
  for (int r = 5; r > 0; r--) {
    double xi = x[da + r];
    if (xi == 0) continue;
    const double* l = L + adr[da + r];
#pragma GCC unroll 5
    for (int s = 1; s <= r; s++) x[da + r - s] -= l[s] * xi;
  }
}

// solve_l's rows of a free root's six dofs (lt_free_root's layout)
static void l_free_root(const int* adr, const double* L, double* x, int da) {
#pragma GCC unroll 5
  for (int r = 1; r < 6; r++) {
    const double* l = L + adr[da + r];
    double s = x[da + r];
#pragma GCC unroll 5
    for (int t = 1; t <= r; t++) s -= l[t] * x[da + r - t];
    x[da + r] = s;
  }
}

// x <- L^-T x on dofs i0..i1-1 (whole trees): L'y = x, eliminating each dof's value from its
// ancestors, leaves first
static void solve_lt(const sim_model* m, const double* L, double* x, int i0, int i1) {
  const int* col = m->dof_Mcol;
  for (int i = i1 - 1; i >= i0; i--) {
    int da = free_root_dof(m, i);
    if (da >= 0) {  // its six rows, the last first (i is da + 5)
      lt_free_root(m->dof_Madr, L, x, da);
      i = da;
      continue;
    }
    double xi = x[i];
    if (xi == 0) continue;
#pragma GCC unroll 4
    for (int a = m->dof_Madr[i] + 1, e = row_end(m, i); a < e; a++) x[col[a]] -= L[a] * xi;
  }
}

// x <- L^-1 x on dofs i0..i1-1 (whole trees): root first
static void solve_l(const sim_model* m, const double* L, double* x, int i0, int i1) {
  const int* col = m->dof_Mcol;
  for (int i = i0; i < i1; i++) {
    int da = free_root_dof(m, i);
    if (da >= 0) {  // its six rows, the first first (i is da; row da is the root's: empty)
      l_free_root(m->dof_Madr, L, x, da);
      i = da + 5;
      continue;
    }
    double s = x[i];
#pragma GCC unroll 4
    for (int a = m->dof_Madr[i] + 1, e = row_end(m, i); a < e; a++) s -= L[a] * x[col[a]];
    x[i] = s;
  }
}

// dyn_solve on the dof ranges of the trees on (dyn_rnea_vp's mask); the others' x is not touched
void dyn_solve_trees(const sim_model* m, const sim_data* d, double* x, int ntree,
                     const int* tree_dof, const int* tree_on) {
  const double* L = d->qLD;
  for (int t = 0; t < ntree; t++) {
    if (!tree_on[t]) continue;
    int i0 = tree_dof[t], i1 = tree_dof[t + 1];
    solve_lt(m, L, x, i0, i1);
    for (int i = i0; i < i1; i++) x[i] /= d->qLDiag[i];
    solve_l(m, L, x, i0, i1);
  }
}

// M^-1 = L^-1 D^-1 L^-T, row by row
void dyn_solve(const sim_model* m, const sim_data* d, double* x, int n) {
  int nv = m->nv;
  for (int r = 0; r < n; r++) {
    double* xr = x + (size_t)r * nv;
    solve_lt(m, d->qLD, xr, 0, nv);
    for (int i = 0; i < nv; i++) xr[i] /= d->qLDiag[i];
    solve_l(m, d->qLD, xr, 0, nv);
  }
}

// y = D^-1/2 L^-T x, so that (J M^-1 J') = Y'Y; zeros off a chain are skipped
void dyn_solve_half(const sim_model* m, const sim_data* d, double* x, int n) {
  int nv = m->nv;
  for (int r = 0; r < n; r++) {
    double* xr = x + (size_t)r * nv;
    solve_lt(m, d->qLD, xr, 0, nv);
    for (int i = 0; i < nv; i++) xr[i] *= d->qLDiagSqrtInv[i];
  }
}

// diagonal, then each ancestor entry used for both triangles
void dyn_mulM(const sim_model* m, const sim_data* d, const double* x, double* y) {
  int nv = m->nv;
  const int* col = m->dof_Mcol;
  const double* M = d->qM;
  for (int i = 0; i < nv; i++) y[i] = M[m->dof_Madr[i]] * x[i];
  for (int i = 0; i < nv; i++) {
    for (int a = m->dof_Madr[i] + 1, e = row_end(m, i); a < e; a++) {
      int j = col[a];
      double mij = M[a];
      y[i] += mij * x[j];
      y[j] += mij * x[i];
    }
  }
}

// the tree entries spread over the dense matrix: (i, j) and (j, i) for each ancestor j of i
void dyn_mass_dense(const sim_model* m, const sim_data* d, double* M) {
  size_t nv = (size_t)m->nv;
  memset(M, 0, sizeof(double) * nv * nv);
  for (int i = 0; i < m->nv; i++) {
    int a = m->dof_Madr[i];
    for (int j = i; j >= 0; j = m->dof_parent[j], a++)
      M[(size_t)i * nv + (size_t)j] = M[(size_t)j * nv + (size_t)i] = d->qM[a];
  }
}

// L(i, j) below the diagonal for each ancestor j of i, D on it
void dyn_factor_dense(const sim_model* m, const sim_data* d, double* L) {
  size_t nv = (size_t)m->nv;
  memset(L, 0, sizeof(double) * nv * nv);
  for (int i = 0; i < m->nv; i++) {
    int a = m->dof_Madr[i];
    for (int j = i; j >= 0; j = m->dof_parent[j], a++) L[(size_t)i * nv + (size_t)j] = d->qLD[a];
  }
}

//---------------------------------- energies -------------------------------------------------

// 1/2 v'Mv over the ancestor entries
double dyn_kinetic(const sim_model* m, const sim_data* d) {
  int nv = m->nv;
  const int* col = m->dof_Mcol;
  const double* M = d->qM;
  const double* v = d->v;
  double s = 0;
  for (int i = 0; i < nv; i++) {
    int a = m->dof_Madr[i];
    if (m->dof_parent[i] < 0 && free_root(m, m->dof_body[i])) {
      // a free body's six rows (crba_free_root's layout: row r holds the r dofs below it,
      // nearest first), the same sums in the same order without the column indices
      const double* vb = v + i;
      const double* Mb = M + a;  // row r's diagonal at Mb[r (r + 1) / 2]
#pragma GCC unroll 6
      for (int r = 0; r < 6; r++) {
        const double* row = Mb + r * (r + 1) / 2;
        double t = 0.5 * row[0] * vb[r];
#pragma GCC unroll 5
        for (int k = 1; k <= r; k++) t += row[k] * vb[r - k];
        s += t * vb[r];
      }
      i += 5;
      continue;
    }
    double r = 0.5 * M[a++] * v[i];
    for (int e = row_end(m, i); a < e; a++) r += M[a] * v[col[a]];
    s += r * v[i];
  }
  return s;
}

// -sum m_b g.xcom_b over bodies b0..b1-1, plus the springs of their joints
double dyn_potential_bodies(const sim_model* m, const sim_data* d, int b0, int b1) {
  double s = 0;
  for (int b = b0; b < b1; b++) s -= m->body_mass[b] * sp_dot3(m->gravity, d->xcom + 3 * b);
  for (int b = b0; b < b1; b++) {
    int j = m->body_jnt[b];
    if (j < 0 || m->jnt_stiffness[j] == 0) continue;
    if (m->jnt_type[j] == MODEL_JOINT_BALL) {
      // the deflection x = log(q) from the identity (MuJoCo's mju_subQuat against qpos_spring,
      // the identity for ball joints); its gradient in the body-axes velocity is x itself
      double x[3];
      kin_ball_rotation(m, d->q, j, x);
      s += 0.5 * m->jnt_stiffness[j] * sp_dot3(x, x);
      continue;
    }
    double x = d->q[m->jnt_qadr[j]] - m->jnt_springref[j];
    s += 0.5 * m->jnt_stiffness[j] * x * x;
  }
  return s;
}

double dyn_potential(const sim_model* m, const sim_data* d) {
  return dyn_potential_bodies(m, d, 1, m->nbody);
}

int dyn_passive(const sim_model* m, const sim_data* d, double* qfrc) {
  int n = 0;
  for (int i = 0; i < m->nv; i++) {
    double f = 0;
    if (m->dof_damping[i] != 0) f -= m->dof_damping[i] * d->v[i], n++;
    qfrc[i] = f;
  }
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_stiffness[j] == 0) continue;  // 1-dof and ball joints (model_build refuses free)
    if (m->jnt_type[j] == MODEL_JOINT_BALL) {
      double x[3];
      kin_ball_rotation(m, d->q, j, x);
      for (int k = 0; k < 3; k++) qfrc[m->jnt_dofadr[j] + k] -= m->jnt_stiffness[j] * x[k];
      n++;
      continue;
    }
    qfrc[m->jnt_dofadr[j]] -= m->jnt_stiffness[j] * (d->q[m->jnt_qadr[j]] - m->jnt_springref[j]);
    n++;
  }
  return n;
}
