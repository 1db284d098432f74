// spatial.h — small dense 3-D math that knows nothing of the model: 3-vectors, 3x3 rotations
// (row-major double[9]), unit quaternions and rigid transforms.
//
// Conventions (DESIGN.md): quaternions are stored [x y z w] (Pinocchio's order); rotations are
// row-major; a pose (R, p) maps child coordinates to parent ones, x_parent = R x_child + p.
// URDF rpy is fixed-axis roll about x, then pitch about y, then yaw about z: R = Rz Ry Rx.
// The 3-vector and 3x3 products are static inline here: one vocabulary for every hot path
// (collision, contact, sim), so no module keeps private copies.
#ifndef CSIM_SPATIAL_H
#define CSIM_SPATIAL_H

#include <math.h>

//---------------------------------- 3-vectors (inline: the hot paths' one vocabulary) ------
static inline void sp_copy3(double r[3], const double a[3]) {
  r[0] = a[0]; r[1] = a[1]; r[2] = a[2];
}
static inline void sp_add3(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2];
}
static inline void sp_sub3(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}
static inline void sp_scale3(double r[3], const double a[3], double s) {
  r[0] = a[0] * s; r[1] = a[1] * s; r[2] = a[2] * s;
}
// r += s*a
static inline void sp_addscl3(double r[3], const double a[3], double s) {
  r[0] += a[0] * s; r[1] += a[1] * s; r[2] += a[2] * s;
}
// r = a + s*b
static inline void sp_madd3(double r[3], const double a[3], const double b[3], double s) {
  r[0] = a[0] + s * b[0]; r[1] = a[1] + s * b[1]; r[2] = a[2] + s * b[2];
}
static inline double sp_dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
// r = a x b (r may alias a or b)
static inline void sp_cross3(double r[3], const double a[3], const double b[3]) {
  double t0 = a[1] * b[2] - a[2] * b[1], t1 = a[2] * b[0] - a[0] * b[2];
  double t2 = a[0] * b[1] - a[1] * b[0];
  r[0] = t0; r[1] = t1; r[2] = t2;
}
static inline double sp_norm3(const double a[3]) {
  return sqrt(sp_dot3(a, a));
}
// normalize in place; returns the norm before normalizing (0 leaves a unchanged)
static inline double sp_normalize3(double a[3]) {
  double n = sp_norm3(a);
  if (n > 0) sp_scale3(a, a, 1.0 / n);
  return n;
}
// a unit vector perpendicular to unit n (deterministic in n)
static inline void sp_perp3(double r[3], const double n[3]) {
  if (fabs(n[0]) < 0.57735) {
    r[0] = 0; r[1] = n[2]; r[2] = -n[1];  // e_x x n
  } else {
    r[0] = -n[2]; r[1] = 0; r[2] = n[0];  // e_y x n
  }
  sp_normalize3(r);
}

//---------------------------------- 3x3 matrices (row-major) ---------------------------------
// r = A b (r may alias b)
static inline void sp_mulmv3(double r[3], const double A[9], const double b[3]) {
  double t0 = A[0] * b[0] + A[1] * b[1] + A[2] * b[2], t1 = A[3] * b[0] + A[4] * b[1] + A[5] * b[2];
  double t2 = A[6] * b[0] + A[7] * b[1] + A[8] * b[2];
  r[0] = t0; r[1] = t1; r[2] = t2;
}
// r = A' b (r may alias b)
static inline void sp_mulmtv3(double r[3], const double A[9], const double b[3]) {
  double t0 = A[0] * b[0] + A[3] * b[1] + A[6] * b[2], t1 = A[1] * b[0] + A[4] * b[1] + A[7] * b[2];
  double t2 = A[2] * b[0] + A[5] * b[1] + A[8] * b[2];
  r[0] = t0; r[1] = t1; r[2] = t2;
}
// column k of A (local axis k in world for a rotation)
static inline void sp_axis3(double r[3], const double A[9], int k) {
  r[0] = A[k]; r[1] = A[3 + k]; r[2] = A[6 + k];
}
// C = A B   (C must not alias A or B)
static inline void sp_mulmm3(double C[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}
// C = A' B  (C must not alias A or B)
static inline void sp_mulmtm3(double C[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}
// C = A B'  (C must not alias A or B)
static inline void sp_mulmmt3(double C[9], const double A[9], const double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C[3 * i + j] = A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] + A[3 * i + 2] * B[3 * j + 2];
}
// transform a point from child to parent coordinates: r = R x + p (r may alias x)
static inline void sp_xform(double r[3], const double R[9], const double p[3], const double x[3]) {
  double t[3];
  sp_mulmv3(t, R, x);
  sp_add3(r, t, p);
}

//---------------------------------- other 3x3 helpers ---------------------------------------
void sp_eye3(double R[9]);
void sp_transpose3(double At[9], const double A[9]);
// skew-symmetric matrix of a: S b = a x b
void sp_skew3(double S[9], const double a[3]);
// symmetric eigen-decomposition (Jacobi): A = V diag(w) V', eigenvalues ascending,
// eigenvectors in the columns of V
void sp_eigsym3(double w[3], double V[9], const double A[9]);

//---------------------------------- rotations -------------------------------------------------
// URDF roll-pitch-yaw to rotation: R = Rz(yaw) Ry(pitch) Rx(roll)
void sp_rpy2mat(double R[9], const double rpy[3]);
// unit quaternion [x y z w] to rotation
void sp_quat2mat(double R[9], const double q[4]);
// rotation to unit quaternion [x y z w] with w >= 0
void sp_mat2quat(double q[4], const double R[9]);
// r = a * b (Hamilton product, [x y z w] storage; r may alias)
void sp_mulquat(double r[4], const double a[4], const double b[4]);
// normalize in place; a zero quaternion becomes identity
void sp_normquat(double q[4]);
// rotate a vector by a unit quaternion
void sp_rotquat(double r[3], const double q[4], const double v[3]);
// exponential map of so(3): quaternion of the rotation by angle |w| about w/|w|
void sp_expquat(double q[4], const double w[3]);
// logarithm map: rotation vector w with |w| <= pi such that exp(w) = q
void sp_logquat(double w[3], const double q[4]);
// exponential map of se(3), body-frame twist xi = [v; w] (linear; angular) held for unit time:
// returns the relative pose (dp, dq) such that the new pose is (R dR, p + R dp) (Pinocchio exp6)
void sp_expse3(double dp[3], double dq[4], const double v[3], const double w[3]);

//---------------------------------- rigid transforms ------------------------------------------
// compose poses: (R, p) = (R1, p1) * (R2, p2), i.e. R = R1 R2, p = R1 p2 + p1
void sp_mulpose(double R[9], double p[3], const double R1[9], const double p1[3],
                const double R2[9], const double p2[3]);

#endif  // CSIM_SPATIAL_H
