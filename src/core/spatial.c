// spatial.c — 3-D math utilities (see spatial.h for conventions).
#include "core/spatial.h"

#include <math.h>
#include <string.h>

//---------------------------------- 3-vectors ------------------------------------------------

//---------------------------------- 3x3 matrices ----------------------------------------------

void sp_eye3(double R[9]) {
  memset(R, 0, 9 * sizeof(double));
  R[0] = R[4] = R[8] = 1;
}

void sp_transpose3(double At[9], const double A[9]) {
  double t[9] = {A[0], A[3], A[6], A[1], A[4], A[7], A[2], A[5], A[8]};
  memcpy(At, t, sizeof(t));
}

void sp_skew3(double S[9], const double a[3]) {
  S[0] = 0;     S[1] = -a[2]; S[2] = a[1];
  S[3] = a[2];  S[4] = 0;     S[5] = -a[0];
  S[6] = -a[1]; S[7] = a[0];  S[8] = 0;
}

// cyclic Jacobi sweeps on a symmetric 3x3 matrix; converges to machine precision in a few sweeps
void sp_eigsym3(double w[3], double V[9], const double A[9]) {
  double a[9];
  memcpy(a, A, sizeof(a));
  sp_eye3(V);
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
    double scale = a[0] * a[0] + a[4] * a[4] + a[8] * a[8];
    if (off <= 1e-30 * scale || off == 0) break;
    for (int p = 0; p < 2; p++) {
      for (int q = p + 1; q < 3; q++) {
        double apq = a[3 * p + q];
        if (apq == 0) continue;
        // rotation angle that zeroes a[p][q] (Golub & Van Loan, symmetric Schur)
        double tau = (a[3 * q + q] - a[3 * p + p]) / (2 * apq);
        double t = (tau >= 0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1 + tau * tau));
        double c = 1 / sqrt(1 + t * t), s = t * c;
        // a = J' a J with J the rotation in the (p, q) plane
        for (int k = 0; k < 3; k++) {
          double akp = a[3 * k + p], akq = a[3 * k + q];
          a[3 * k + p] = c * akp - s * akq;
          a[3 * k + q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) {
          double apk = a[3 * p + k], aqk = a[3 * q + k];
          a[3 * p + k] = c * apk - s * aqk;
          a[3 * q + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; k++) {
          double vkp = V[3 * k + p], vkq = V[3 * k + q];
          V[3 * k + p] = c * vkp - s * vkq;
          V[3 * k + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  w[0] = a[0]; w[1] = a[4]; w[2] = a[8];
  // sort ascending, permuting eigenvector columns alongside
  for (int i = 0; i < 2; i++) {
    for (int j = i + 1; j < 3; j++) {
      if (w[j] < w[i]) {
        double tw = w[i]; w[i] = w[j]; w[j] = tw;
        for (int k = 0; k < 3; k++) {
          double tv = V[3 * k + i]; V[3 * k + i] = V[3 * k + j]; V[3 * k + j] = tv;
        }
      }
    }
  }
}

//---------------------------------- rotations -------------------------------------------------

void sp_rpy2mat(double R[9], const double rpy[3]) {
  double cr = cos(rpy[0]), sr = sin(rpy[0]);
  double cp = cos(rpy[1]), sp = sin(rpy[1]);
  double cy = cos(rpy[2]), sy = sin(rpy[2]);
  // Rz(y) Ry(p) Rx(r)
  R[0] = cy * cp; R[1] = cy * sp * sr - sy * cr; R[2] = cy * sp * cr + sy * sr;
  R[3] = sy * cp; R[4] = sy * sp * sr + cy * cr; R[5] = sy * sp * cr - cy * sr;
  R[6] = -sp;     R[7] = cp * sr;                R[8] = cp * cr;
}

void sp_quat2mat(double R[9], const double q[4]) {
  double x = q[0], y = q[1], z = q[2], w = q[3];
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - z * w);     R[2] = 2 * (x * z + y * w);
  R[3] = 2 * (x * y + z * w);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - x * w);
  R[6] = 2 * (x * z - y * w);     R[7] = 2 * (y * z + x * w);     R[8] = 1 - 2 * (x * x + y * y);
}

// Shepperd's method: pick the largest of w, x, y, z to divide by
void sp_mat2quat(double q[4], const double R[9]) {
  double tr = R[0] + R[4] + R[8];
  double x, y, z, w;
  if (tr > 0) {
    double s = 2 * sqrt(1 + tr);
    w = 0.25 * s; x = (R[7] - R[5]) / s; y = (R[2] - R[6]) / s; z = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
    w = (R[7] - R[5]) / s; x = 0.25 * s; y = (R[1] + R[3]) / s; z = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
    w = (R[2] - R[6]) / s; x = (R[1] + R[3]) / s; y = 0.25 * s; z = (R[5] + R[7]) / s;
  } else {
    double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
    w = (R[3] - R[1]) / s; x = (R[2] + R[6]) / s; y = (R[5] + R[7]) / s; z = 0.25 * s;
  }
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  q[0] = x; q[1] = y; q[2] = z; q[3] = w;
  sp_normquat(q);
}

void sp_mulquat(double r[4], const double a[4], const double b[4]) {
  double t[4] = {
      a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
      a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
      a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
      a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  };
  r[0] = t[0]; r[1] = t[1]; r[2] = t[2]; r[3] = t[3];
}

void sp_normquat(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0) {
    q[0] /= n; q[1] /= n; q[2] /= n; q[3] /= n;
  } else {
    q[0] = q[1] = q[2] = 0; q[3] = 1;
  }
}

// v' = v + 2 w (u x v) + 2 u x (u x v), u the vector part
void sp_rotquat(double r[3], const double q[4], const double v[3]) {
  double t[3], u[3] = {q[0], q[1], q[2]}, out[3];
  sp_cross3(t, u, v);
  sp_scale3(t, t, 2);
  double ut[3];
  sp_cross3(ut, u, t);
  out[0] = v[0] + q[3] * t[0] + ut[0];
  out[1] = v[1] + q[3] * t[1] + ut[1];
  out[2] = v[2] + q[3] * t[2] + ut[2];
  sp_copy3(r, out);
}

// q = [sin(th/2) w/th, cos(th/2)], with a Taylor series near th = 0
void sp_expquat(double q[4], const double w[3]) {
  double th2 = sp_dot3(w, w), th = sqrt(th2);
  double s, c;
  if (th < 1e-6) {
    s = 0.5 - th2 / 48;  // sin(th/2)/th
    c = 1 - th2 / 8;
  } else {
    s = sin(0.5 * th) / th;
    c = cos(0.5 * th);
  }
  q[0] = s * w[0]; q[1] = s * w[1]; q[2] = s * w[2]; q[3] = c;
  sp_normquat(q);
}

void sp_logquat(double w[3], const double q[4]) {
  double x = q[0], y = q[1], z = q[2], c = q[3];
  if (c < 0) { x = -x; y = -y; z = -z; c = -c; }  // shortest rotation, |w| <= pi
  double s = sqrt(x * x + y * y + z * z);
  double f;
  if (s < 1e-9) {
    f = 2 / c;  // th/sin(th/2) -> 2 as th -> 0
  } else {
    f = 2 * atan2(s, c) / s;
  }
  w[0] = f * x; w[1] = f * y; w[2] = f * z;
}

// SE(3) exponential of the body twist [v; w]: dR = exp(w), dp = V(w) v with
// V = I + (1-cos th)/th^2 [w]x + (th - sin th)/th^3 [w]x^2 (Pinocchio exp6, 004)
void sp_expse3(double dp[3], double dq[4], const double v[3], const double w[3]) {
  double th2 = sp_dot3(w, w), th = sqrt(th2);
  double a, b;
  if (th < 1e-4) {
    a = 0.5 - th2 / 24;        // (1 - cos th)/th^2
    b = 1.0 / 6 - th2 / 120;   // (th - sin th)/th^3
  } else {
    a = (1 - cos(th)) / th2;
    b = (th - sin(th)) / (th2 * th);
  }
  double wxv[3], wxwxv[3];
  sp_cross3(wxv, w, v);
  sp_cross3(wxwxv, w, wxv);
  for (int i = 0; i < 3; i++) dp[i] = v[i] + a * wxv[i] + b * wxwxv[i];
  sp_expquat(dq, w);
}

//---------------------------------- rigid transforms ------------------------------------------

void sp_mulpose(double R[9], double p[3], const double R1[9], const double p1[3],
                const double R2[9], const double p2[3]) {
  double Rt[9], pt[3];
  sp_mulmm3(Rt, R1, R2);
  sp_mulmv3(pt, R1, p2);
  sp_add3(pt, pt, p1);
  memcpy(R, Rt, sizeof(Rt));
  sp_copy3(p, pt);
}

