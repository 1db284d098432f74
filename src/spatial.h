// spatial.h — small dense 3-D math that knows nothing of the model: 3-vectors, 3x3 rotations
// (row-major double[9]), unit quaternions and rigid transforms.
//
// Conventions (DESIGN.md): quaternions are stored [x y z w] (Pinocchio's order); rotations are
// row-major; a pose (R, p) maps child coordinates to parent ones, x_parent = R x_child + p.
// URDF rpy is fixed-axis roll about x, then pitch about y, then yaw about z: R = Rz Ry Rx.
#ifndef CSIM_SPATIAL_H
#define CSIM_SPATIAL_H

//---------------------------------- 3-vectors ------------------------------------------------
void sp_copy3(double r[3], const double a[3]);
void sp_add3(double r[3], const double a[3], const double b[3]);
void sp_sub3(double r[3], const double a[3], const double b[3]);
void sp_scale3(double r[3], const double a[3], double s);
// r += s*a
void sp_addscl3(double r[3], const double a[3], double s);
double sp_dot3(const double a[3], const double b[3]);
// r = a x b (r may alias a or b)
void sp_cross3(double r[3], const double a[3], const double b[3]);
double sp_norm3(const double a[3]);
// normalize in place; returns the norm before normalizing (0 leaves a unchanged)
double sp_normalize3(double a[3]);

//---------------------------------- 3x3 matrices (row-major) ---------------------------------
void sp_eye3(double R[9]);
// r = A b
void sp_mulmv3(double r[3], const double A[9], const double b[3]);
// r = A' b
void sp_mulmtv3(double r[3], const double A[9], const double b[3]);
// C = A B   (C must not alias A or B)
void sp_mulmm3(double C[9], const double A[9], const double B[9]);
// C = A' B  (C must not alias A or B)
void sp_mulmtm3(double C[9], const double A[9], const double B[9]);
// C = A B'  (C must not alias A or B)
void sp_mulmmt3(double C[9], const double A[9], const double B[9]);
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
// transform a point from child to parent coordinates: r = R x + p
void sp_xform(double r[3], const double R[9], const double p[3], const double x[3]);

#endif  // CSIM_SPATIAL_H
