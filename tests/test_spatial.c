// test_spatial.c — 3-D math against closed-form results.
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "core/spatial.h"
#include "support.h"

static double maxdiff(const double* a, const double* b, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

// rpy follows URDF: fixed axes x, y, z, i.e. R = Rz Ry Rx
START_TEST(rpy_matches_axis_products) {
  double R[9];
  sp_rpy2mat(R, (double[]){M_PI / 2, 0, 0});
  const double Rx[9] = {1, 0, 0, 0, 0, -1, 0, 1, 0};
  ck_assert_double_le(maxdiff(R, Rx, 9), 1e-15);
  sp_rpy2mat(R, (double[]){0, 0, M_PI / 2});
  const double Rz[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};
  ck_assert_double_le(maxdiff(R, Rz, 9), 1e-15);
  // composition order: rotating x-axis by roll then yaw
  double r = 0.3, p = -0.7, y = 1.1, A[9], B[9], C[9], Ry[9], Rxm[9], Rzm[9];
  sp_rpy2mat(Rxm, (double[]){r, 0, 0});
  sp_rpy2mat(Ry, (double[]){0, p, 0});
  sp_rpy2mat(Rzm, (double[]){0, 0, y});
  sp_mulmm3(A, Ry, Rxm);
  sp_mulmm3(B, Rzm, A);
  sp_rpy2mat(C, (double[]){r, p, y});
  ck_assert_double_le(maxdiff(B, C, 9), 1e-15);
}
END_TEST

// quaternion <-> matrix round trips and products agree with matrix products
START_TEST(quaternion_round_trip) {
  unsigned s = 7;
  for (int k = 0; k < 200; k++) {
    double q[4] = {urand_sym(&s), urand_sym(&s), urand_sym(&s), urand_sym(&s)}, R[9], q2[4], R2[9];
    sp_normquat(q);
    sp_quat2mat(R, q);
    sp_mat2quat(q2, R);
    sp_quat2mat(R2, q2);
    ck_assert_double_le(maxdiff(R, R2, 9), 1e-14);
    double RtR[9], I[9];
    sp_mulmtm3(RtR, R, R);
    sp_eye3(I);
    ck_assert_double_le(maxdiff(RtR, I, 9), 1e-14);
    double p[4] = {urand_sym(&s), urand_sym(&s), urand_sym(&s), urand_sym(&s)}, Rp[9], qp[4], Rqp[9], RRp[9];
    sp_normquat(p);
    sp_quat2mat(Rp, p);
    sp_mulquat(qp, q, p);
    sp_quat2mat(Rqp, qp);
    sp_mulmm3(RRp, R, Rp);
    ck_assert_double_le(maxdiff(Rqp, RRp, 9), 1e-14);
    double v[3] = {urand_sym(&s), urand_sym(&s), urand_sym(&s)}, r1[3], r2[3];
    sp_rotquat(r1, q, v);
    sp_mulmv3(r2, R, v);
    ck_assert_double_le(maxdiff(r1, r2, 3), 1e-14);
  }
}
END_TEST

// exp/log of SO(3): rotation by angle about an axis, and log inverts exp
START_TEST(so3_exp_log) {
  double w[3] = {0, 0, M_PI / 3}, q[4], R[9];
  sp_expquat(q, w);
  sp_quat2mat(R, q);
  const double Rz[9] = {0.5, -sqrt(3) / 2, 0, sqrt(3) / 2, 0.5, 0, 0, 0, 1};
  ck_assert_double_le(maxdiff(R, Rz, 9), 1e-15);
  unsigned s = 3;
  for (int k = 0; k < 200; k++) {
    double a[3] = {3 * urand_sym(&s), 3 * urand_sym(&s), 3 * urand_sym(&s)}, b[3];
    if (sp_norm3(a) >= M_PI) continue;
    sp_expquat(q, a);
    sp_logquat(b, q);
    ck_assert_double_le(maxdiff(a, b, 3), 1e-12);
  }
  // tiny angles use the series without loss
  double t[3] = {1e-9, -2e-9, 3e-9}, t2[3];
  sp_expquat(q, t);
  sp_logquat(t2, q);
  ck_assert_double_le(maxdiff(t, t2, 3), 1e-20);
}
END_TEST

// se(3) exp: a screw about z at unit speed with forward velocity traces a circle
START_TEST(se3_exp_circle) {
  // body moving forward along its x at speed 1 while turning about z at rate 1: after time pi it is
  // at (0, 2) facing -x (a circle of radius 1 centred at (0, 1))
  double v[3] = {M_PI, 0, 0}, w[3] = {0, 0, M_PI}, dp[3], dq[4], R[9];
  sp_expse3(dp, dq, v, w);
  ck_assert_double_le(fabs(dp[0]), 1e-14);
  ck_assert_double_le(fabs(dp[1] - 2), 1e-14);
  ck_assert_double_le(fabs(dp[2]), 1e-14);
  sp_quat2mat(R, dq);
  ck_assert_double_le(fabs(R[0] + 1), 1e-14);
  // pure translation when w = 0
  double v2[3] = {0.1, -0.2, 0.3}, z[3] = {0, 0, 0};
  sp_expse3(dp, dq, v2, z);
  ck_assert_double_le(maxdiff(dp, v2, 3), 1e-17);
  // small w agrees with the closed form used above the series threshold
  double w3[3] = {1e-5, 2e-5, -1e-5}, w4[3] = {1.0001e-4, 0, 0}, dp3[3], dp4[3], dq3[4];
  sp_expse3(dp3, dq3, v2, w3);
  sp_expse3(dp4, dq3, v2, w4);
  ck_assert(isfinite(dp3[0]) && isfinite(dp4[0]));
}
END_TEST

// symmetric eigen-decomposition reconstructs the matrix; eigenvalues ascending
START_TEST(eigsym_reconstructs) {
  unsigned s = 11;
  for (int k = 0; k < 200; k++) {
    double B[9], A[9];
    for (int i = 0; i < 9; i++) B[i] = urand_sym(&s);
    sp_mulmtm3(A, B, B);  // symmetric PSD
    if (k % 3 == 0) A[0] -= 2;  // indefinite cases too
    double w[3], V[9], VD[9], R[9];
    sp_eigsym3(w, V, A);
    ck_assert(w[0] <= w[1] && w[1] <= w[2]);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) VD[3 * i + j] = V[3 * i + j] * w[j];
    sp_mulmmt3(R, VD, V);
    ck_assert_double_le(maxdiff(R, A, 9), 1e-12);
  }
  // rank-one matrix of all ones (go1's root inertia shape): eigenvalues 0, 0, 3
  double ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, w[3], V[9];
  sp_eigsym3(w, V, ones);
  ck_assert_double_le(fabs(w[0]), 1e-14);
  ck_assert_double_le(fabs(w[1]), 1e-14);
  ck_assert_double_le(fabs(w[2] - 3), 1e-14);
}
END_TEST

static Suite* spatial_suite(void) {
  Suite* s = suite_create("spatial");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, rpy_matches_axis_products);
  tcase_add_test(tc, quaternion_round_trip);
  tcase_add_test(tc, so3_exp_log);
  tcase_add_test(tc, se3_exp_circle);
  tcase_add_test(tc, eigsym_reconstructs);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(spatial_suite());
}
