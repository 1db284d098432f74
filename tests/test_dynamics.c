// test_dynamics.c — RNEA, CRBA, L'DL factorization and solves against closed-form and
// independent results (Lagrangian pendulum formulas, rigid-body kinetic energy, LAPACK, energy
// balance), on hand-built trees, random trees and the shared robot URDFs.
#include <check.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/spatial.h"
#include "core/state.h"
#include "scene_fixture.h"
#include "tree_fixture.h"
#include "io/urdf.h"
#include "support.h"


//---------------------------------- hand-built URDF descriptions ------------------------------



//---------------------------------- helpers ---------------------------------------------------


// kinematics, M, factor and bias at the state in d
static void full_update(const sim_model* m, sim_data* d) {
  kin_forward(m, d);
  kin_velocity(m, d);
  dyn_crba(m, d);
  dyn_factor(m, d);
  dyn_bias(m, d);
}

static double max_abs(const double* a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(a[i]));
  return s;
}

//---------------------------------- pendulums (closed form) -----------------------------------

// simple pendulum about y: M = Iyy + m l^2, b = m g l sin q
START_TEST(simple_pendulum_closed_form) {
  hand_robot h;
  hand_init(&h);
  double mass = 1.7, l = 0.45, Iyy = 0.013, g = 9.81;
  int base = hand_link(&h, 0, NULL, NULL);
  int arm = hand_link(&h, mass, (double[]){0, 0, -l}, (double[]){0.02, 0, 0, Iyy, 0, 0.009});
  hand_joint(&h, URDF_JOINT_REVOLUTE, base, arm, (double[]){0.1, -0.2, 1.0}, NULL,
             (double[]){0, 1, 0});
  sim_model* m;
  sim_data* d;
  build(&h.r, MODEL_BASE_FIXED, (double[]){0, 0, -g}, &m, &d);
  ck_assert_int_eq(m->nv, 1);
  for (int k = 0; k < 7; k++) {
    double q = -3 + k, qd = 0.7 * k - 2;
    d->q[0] = q;
    d->v[0] = qd;
    full_update(m, d);
    ck_assert_double_eq_tol(d->qM[0], Iyy + mass * l * l, 1e-12);
    ck_assert_double_eq_tol(d->qfrc_bias[0], mass * g * l * sin(q), 1e-12);
    // energies: KE = 1/2 M qd^2; PE = m g z_com = -m g l cos q (+ pivot height)
    ck_assert_double_eq_tol(dyn_kinetic(m, d), 0.5 * (Iyy + mass * l * l) * qd * qd, 1e-12);
    ck_assert_double_eq_tol(dyn_potential(m, d), mass * g * (1.0 - l * cos(q)), 1e-12);
  }
  data_free(d);
  model_free(m);
}
END_TEST

// Lagrangian double pendulum about parallel axes: links hang along -z at q = 0; link 1 (m1, com
// distance c1, inertia I1 about its com and the axis), joint 2 at distance l1, link 2 (m2, c2, I2)
typedef struct {
  double m1, c1, l1, I1, m2, c2, I2, g;
} dp_params;

// M (2x2 row-major) and b = C(q, v) v + g(q) in closed form
static void dp_closed_form(const dp_params* P, double q1, double q2, double v1, double v2,
                           double M[4], double b[2]) {
  double m1 = P->m1, c1 = P->c1, l1 = P->l1, I1 = P->I1, m2 = P->m2, c2 = P->c2, I2 = P->I2, g = P->g;
  M[0] = I1 + I2 + m1 * c1 * c1 + m2 * (l1 * l1 + c2 * c2 + 2 * l1 * c2 * cos(q2));
  M[1] = M[2] = I2 + m2 * (c2 * c2 + l1 * c2 * cos(q2));
  M[3] = I2 + m2 * c2 * c2;
  double hh = -m2 * l1 * c2 * sin(q2);
  b[0] = hh * (2 * v1 * v2 + v2 * v2) + m1 * g * c1 * sin(q1) +
         m2 * g * (l1 * sin(q1) + c2 * sin(q1 + q2));
  b[1] = -hh * v1 * v1 + m2 * g * c2 * sin(q1 + q2);
}

// a random state of the double pendulum set in d (q from 3 urand, v from 4 urand), its dynamics
// updated; q its angles, M and b the closed form's there
static void dp_random_state(const sim_model* m, sim_data* d, const dp_params* P, double q[2],
                            double M[4], double b[2]) {
  double q1 = urand() * 3, q2 = urand() * 3, v1 = urand() * 4, v2 = urand() * 4;
  d->q[0] = q1;
  d->q[1] = q2;
  d->v[0] = v1;
  d->v[1] = v2;
  full_update(m, d);
  dp_closed_form(P, q1, q2, v1, v2, M, b);
  q[0] = q1;
  q[1] = q2;
}

// double pendulum about y with a point-mass tip merged into link 2 by a fixed joint:
// Lagrangian M(q), b(q, v) with the hand-merged (m2, c2, I2)
START_TEST(double_pendulum_closed_form) {
  hand_robot h;
  hand_init(&h);
  double g = 9.81;
  double m1 = 1.3, c1 = 0.21, l1 = 0.5, I1 = 0.031;
  double ma = 0.8, la = 0.4, Ia = 0.017, mt = 0.25;
  int base = hand_link(&h, 0, NULL, NULL);
  int a1 = hand_link(&h, m1, (double[]){0, 0, -c1}, (double[]){0.04, 0, 0, I1, 0, 0.01});
  int a2 = hand_link(&h, ma, (double[]){0, 0, -la / 2}, (double[]){0.02, 0, 0, Ia, 0, 0.003});
  int tip = hand_link(&h, mt, NULL, (double[]){0, 0, 0, 0, 0, 0});   // point mass
  hand_joint(&h, URDF_JOINT_CONTINUOUS, base, a1, (double[]){0, 0, 2}, NULL, (double[]){0, 1, 0});
  hand_joint(&h, URDF_JOINT_REVOLUTE, a1, a2, (double[]){0, 0, -l1}, NULL, (double[]){0, 1, 0});
  hand_joint(&h, URDF_JOINT_FIXED, a2, tip, (double[]){0, 0, -la}, NULL, NULL);
  sim_model* m;
  sim_data* d;
  build(&h.r, MODEL_BASE_FIXED, (double[]){0, 0, -g}, &m, &d);
  ck_assert_int_eq(m->nv, 2);
  ck_assert_int_eq(m->nbody, 3);
  // link 2 merged by hand: mass, com distance, inertia about the com (tip: sphere 2/5 m r^2)
  double m2 = ma + mt, c2 = (ma * la / 2 + mt * la) / m2;
  double r = MODEL_POINT_RADIUS;
  double I2 = Ia + ma * pow(la / 2 - c2, 2) + 0.4 * mt * r * r + mt * pow(la - c2, 2);
  dp_params P = {m1, c1, l1, I1, m2, c2, I2, g};
  for (int k = 0; k < 9; k++) {
    double M[4], b[2], Md[4], Ld[4];
    double q[2];
    dp_random_state(m, d, &P, q, M, b);
    dyn_mass_dense(m, d, Md);
    dyn_factor_dense(m, d, Ld);
    for (int i = 0; i < 4; i++) ck_assert_double_eq_tol(Md[i], M[i], 1e-12);
    for (int i = 0; i < 2; i++) ck_assert_double_eq_tol(d->qfrc_bias[i], b[i], 1e-12);
    double M11 = M[0], M12 = M[1], M22 = M[3];
    // L'DL of a 2x2: D2 = M22, L21 = M12 / M22, D1 = M11 - M12^2 / M22 (the dense factor:
    // D on the diagonal, L below it)
    ck_assert_double_eq_tol(d->qLDiag[1], M22, 1e-12);
    ck_assert_double_eq_tol(Ld[2], M12 / M22, 1e-12);
    ck_assert_double_eq_tol(d->qLDiag[0], M11 - M12 * M12 / M22, 1e-12);
    ck_assert_double_eq(Ld[0], d->qLDiag[0]);
    ck_assert_double_eq(Ld[3], d->qLDiag[1]);
    ck_assert_double_eq(Ld[1], 0);
  }
  data_free(d);
  model_free(m);
}
END_TEST

//---------------------------------- free body ---------------------------------------------------

// free body (model.h: v = [com velocity, world axes; angular velocity, body axes]):
// M = blockdiag(m 1, Ic) for any com offset and orientation; b = [-m g; w x (Ic w)]
// (Newton for the com, Euler about it)
START_TEST(free_body_mass_matrix) {
  double g[3] = {0.3, -0.2, -9.81};
  const double I6[6] = {0.3, 0.02, -0.01, 0.4, 0.03, 0.5};
  double Ic[9] = {0.3, 0.02, -0.01, 0.02, 0.4, 0.03, -0.01, 0.03, 0.5};
  double coms[2][3] = {{0, 0, 0}, {0.1, -0.25, 0.07}};
  double mass = 2.5;
  for (int t = 0; t < 2; t++) {
    hand_robot h;
    hand_init(&h);
    hand_link(&h, mass, coms[t], I6);
    sim_model* m;
    sim_data* d;
    build(&h.r, MODEL_BASE_FREE, g, &m, &d);
    ck_assert_int_eq(m->nq, 7);
    ck_assert_int_eq(m->nv, 6);
    for (int k = 0; k < 5; k++) {
      random_state(m, d->q, d->v, 2, 3);
      full_update(m, d);
      double Mexp[36] = {0};
      for (int i = 0; i < 3; i++) {
        Mexp[6 * i + i] = mass;
        for (int j = 0; j < 3; j++) Mexp[6 * (3 + i) + 3 + j] = Ic[3 * i + j];
      }
      double Md[36];
      dyn_mass_dense(m, d, Md);
      for (int i = 0; i < 36; i++) ck_assert_double_eq_tol(Md[i], Mexp[i], 1e-12);
      const double* vc = d->v;
      const double* w = d->v + 3;
      double Icw[3], wxIcw[3];
      sp_mulmv3(Icw, Ic, w);
      sp_cross3(wxIcw, w, Icw);
      for (int i = 0; i < 3; i++) {
        ck_assert_double_eq_tol(d->qfrc_bias[i], -mass * g[i], 1e-12);
        ck_assert_double_eq_tol(d->qfrc_bias[3 + i], wxIcw[i], 1e-12);
      }
      // kinetic energy 1/2 m |v_com|^2 + 1/2 w' Ic w
      ck_assert_double_eq_tol(dyn_kinetic(m, d), 0.5 * mass * sp_dot3(vc, vc) + 0.5 * sp_dot3(w, Icw),
                              1e-12);
      // M^-1 through the free body's own factor and solves (dynamics.c factor_free_root,
      // lt_free_root, l_free_root): the closed-form M times the answer gives x back
      double x[6], y[6];
      for (int i = 0; i < 6; i++) x[i] = y[i] = 2 * urand() - 1;
      dyn_solve(m, d, y, 1);
      for (int i = 0; i < 6; i++) {
        double mx = 0;
        for (int j = 0; j < 6; j++) mx += Mexp[6 * i + j] * y[j];
        ck_assert_msg(fabs(mx - x[i]) <= 1e-12, "com %d: (M M^-1 x)[%d] %.17g, x %.17g", t, i, mx,
                      x[i]);
      }
    }
    data_free(d);
    model_free(m);
  }
}
END_TEST

//---------------------------------- random trees ----------------------------------------------


// M by columns from RNEA: M e_i = rnea(q, v, e_i) - b(q, v)
static void mass_by_rnea(const sim_model* m, sim_data* d, double* M) {
  int nv = m->nv;
  double* e = calloc((size_t)nv, sizeof(double));
  double* tau = calloc((size_t)nv, sizeof(double));
  double* b0 = calloc((size_t)nv, sizeof(double));
  dyn_rnea(m, d, NULL, NULL, b0);
  for (int i = 0; i < nv; i++) {
    e[i] = 1;
    dyn_rnea(m, d, e, NULL, tau);
    e[i] = 0;
    for (int j = 0; j < nv; j++) M[j * nv + i] = tau[j] - b0[j];
  }
  free(e); free(tau); free(b0);
}

// the checks every robot gets: CRBA vs RNEA columns, RNEA == M a + b, SPD (dpotrf), dyn_solve
// vs dposv, dyn_solve_half vs J M^-1 J', dyn_mulM; returns nothing, asserts
static void check_robot_dynamics(const sim_model* m, sim_data* d, int nstate, double tol) {
  int nv = m->nv;
  size_t nn = (size_t)nv * nv;
  double* M = calloc(nn, sizeof(double));
  double* Mr = calloc(nn, sizeof(double));
  double* A = calloc(nn, sizeof(double));
  double* a = calloc((size_t)nv, sizeof(double));
  double* tau = calloc((size_t)nv, sizeof(double));
  double* Ma = calloc((size_t)nv, sizeof(double));
  double* x = calloc((size_t)nv, sizeof(double));
  double* xl = calloc((size_t)nv, sizeof(double));
  int nc = 5;
  double* J = calloc((size_t)nc * nv, sizeof(double));
  double* Y = calloc((size_t)nc * nv, sizeof(double));
  double* Z = calloc((size_t)nc * nv, sizeof(double));
  for (int s = 0; s < nstate; s++) {
    random_state(m, d->q, d->v, 1.5, 2);
    full_update(m, d);
    dyn_mass_dense(m, d, M);
    double Mmax = max_abs(M, (int)nn);
    // only tree entries exist: pairs of dofs on different branches are 0
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < i; j++) {
        int anc = 0;
        for (int k = m->dof_parent[i]; k >= 0; k = m->dof_parent[k])
          if (k == j) anc = 1;
        if (!anc) ck_assert(M[i * nv + j] == 0 && M[j * nv + i] == 0);
      }
    // symmetric, and equal to the RNEA columns
    mass_by_rnea(m, d, Mr);
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) {
        ck_assert_double_eq(M[i * nv + j], M[j * nv + i]);
        ck_assert_msg(fabs(M[i * nv + j] - Mr[i * nv + j]) <= tol * Mmax,
                      "M[%d][%d] crba %.15g rnea %.15g", i, j, M[i * nv + j], Mr[i * nv + j]);
      }
    // RNEA(q, v, a) == M a + b
    for (int i = 0; i < nv; i++) a[i] = 3 * urand();
    dyn_rnea(m, d, a, NULL, tau);
    dyn_mulM(m, d, a, Ma);
    double scale = max_abs(tau, nv) + 1e-300;
    for (int i = 0; i < nv; i++)
      ck_assert_msg(fabs(tau[i] - Ma[i] - d->qfrc_bias[i]) <= tol * scale,
                    "rnea %.15g vs Ma+b %.15g", tau[i], Ma[i] + d->qfrc_bias[i]);
    // the factor reassembles M: M = L'DL, L unit lower (the dense factor: D on its diagonal)
    dyn_factor_dense(m, d, A);
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) {
        double s2 = 0;
        for (int k = i > j ? i : j; k < nv; k++) {
          double lki = k == i ? 1 : A[k * nv + i], lkj = k == j ? 1 : A[k * nv + j];
          s2 += lki * A[k * nv + k] * lkj;
        }
        ck_assert_msg(fabs(s2 - M[i * nv + j]) <= 1e-12 * Mmax, "L'DL[%d][%d] %.15g vs M %.15g",
                      i, j, s2, M[i * nv + j]);
      }
    for (int i = 0; i < nv; i++) ck_assert_double_eq(A[i * nv + i], d->qLDiag[i]);
    // symmetric positive definite: LAPACK Cholesky succeeds
    memcpy(A, M, nn * sizeof(double));
    ck_assert_int_eq(LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', nv, A, nv), 0);
    // dyn_solve vs dposv
    for (int i = 0; i < nv; i++) x[i] = xl[i] = urand();
    memcpy(A, M, nn * sizeof(double));
    ck_assert_int_eq(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', nv, 1, A, nv, xl, 1), 0);
    dyn_solve(m, d, x, 1);
    double xs = max_abs(xl, nv);
    for (int i = 0; i < nv; i++)
      ck_assert_msg(fabs(x[i] - xl[i]) <= 1e-12 * xs,
                    "solve %.15g vs dposv %.15g", x[i], xl[i]);
    // dyn_solve_half: Y'Y == J M^-1 J'
    for (int i = 0; i < nc * nv; i++) J[i] = Y[i] = Z[i] = urand();
    memcpy(Y, J, (size_t)nc * nv * sizeof(double));
    memcpy(Z, J, (size_t)nc * nv * sizeof(double));
    dyn_solve_half(m, d, Y, nc);
    dyn_solve(m, d, Z, nc);   // rows: M^-1 J'
    for (int r = 0; r < nc; r++)
      for (int c = 0; c < nc; c++) {
        double g1 = 0, g2 = 0;
        for (int k = 0; k < nv; k++) {
          g1 += Y[r * nv + k] * Y[c * nv + k];
          g2 += J[r * nv + k] * Z[c * nv + k];
        }
        ck_assert_msg(fabs(g1 - g2) <= 1e-10 * (fabs(g2) + 1), "G %.15g vs %.15g", g1, g2);
      }
  }
  free(M); free(Mr); free(A); free(a); free(tau); free(Ma); free(x); free(xl);
  free(J); free(Y); free(Z);
}

// random trees, fixed and free base
// check on 12 random trees of 3, 7, .. 47 bodies, fixed and free base in turn, gravity off the
// axes
static void on_random_trees(void (*check)(const sim_model*, sim_data*)) {
  for (int t = 0; t < 12; t++) {
    sim_model* m;
    sim_data* d;
    build_random_tree(3 + 4 * t, t % 2 ? MODEL_BASE_FREE : MODEL_BASE_FIXED,
                      (double[]){0.5, 1, -9.81}, &m, &d);
    check(m, d);
    data_free(d);
    model_free(m);
  }
}

static void check_random_tree(const sim_model* m, sim_data* d) {
  check_robot_dynamics(m, d, 3, 1e-11);
}

START_TEST(random_trees_consistent) {
  on_random_trees(check_random_tree);
}
END_TEST

// RNEA at rest: gravity's generalized force is the gradient of the potential energy (central
// differences of dyn_potential along each dof, q moved by kin_integrate), and with applied
// wrenches the value equals dyn_rnea_full at v = 0 (it only leaves out exact zeros)
START_TEST(rnea_rest_is_potential_gradient) {
  for (int t = 0; t < 8; t++) {
    sim_model* m;
    sim_data* d;
    build_random_tree(3 + 3 * t, t % 2 ? MODEL_BASE_FREE : MODEL_BASE_FIXED,
                      (double[]){0.5, 1, -9.81}, &m, &d);
    int nv = m->nv, nq = m->nq;
    double* q0 = calloc((size_t)nq, sizeof(double));
    double* v0 = calloc((size_t)nv, sizeof(double));
    double* e = calloc((size_t)nv, sizeof(double));
    double* tau = calloc((size_t)nv, sizeof(double));
    double* ref = calloc((size_t)nv, sizeof(double));
    double* fext = calloc(6 * (size_t)m->nbody, sizeof(double));
    random_state(m, q0, v0, 1.2, 1.5);
    memcpy(d->q, q0, (size_t)nq * sizeof(double));
    kin_forward(m, d);
    dyn_rnea_rest(m, d, NULL, 1, tau);
    double hh = 1e-6;
    for (int k = 0; k < nv; k++) {
      double V[2];
      for (int sgn = 0; sgn < 2; sgn++) {
        memset(e, 0, (size_t)nv * sizeof(double));
        e[k] = 1;
        kin_integrate(m, q0, e, sgn ? -hh : hh, d->q);
        kin_forward(m, d);
        V[sgn] = dyn_potential(m, d);
      }
      double dV = (V[0] - V[1]) / (2 * hh);
      ck_assert_msg(fabs(tau[k] - dV) <= 1e-6 * (1 + fabs(dV)), "tree %d dof %d: %.12g vs dV/dq %.12g",
                    t, k, tau[k], dV);
    }
    // applied wrenches, gravity on and off: the same numbers as the full RNEA at rest
    memcpy(d->q, q0, (size_t)nq * sizeof(double));
    kin_forward(m, d);
    for (int i = 6; i < 6 * m->nbody; i++) fext[i] = urand();
    memset(v0, 0, (size_t)nv * sizeof(double));
    for (int g = 0; g < 2; g++) {
      dyn_rnea_rest(m, d, fext, g, tau);
      dyn_rnea_full(m, d, v0, NULL, fext, g, ref);
      for (int k = 0; k < nv; k++) ck_assert_msg(tau[k] == ref[k], "tree %d dof %d", t, k);
    }
    free(q0); free(v0); free(e); free(tau); free(ref); free(fext);
    data_free(d);
    model_free(m);
  }
}
END_TEST

// energy balance without gravity: d/dt (1/2 v'Mv) = v' tau along the motion M vdot + b = tau
// (central differences of KE along q(t +- h) = q ⊕ (+-h v), v(t +- h) = v +- h vdot)
static void check_power(const sim_model* m, sim_data* d) {
  int nv = m->nv, nq = m->nq;
  double* q0 = calloc((size_t)nq, sizeof(double));
  double* v0 = calloc((size_t)nv, sizeof(double));
  double* tau = calloc((size_t)nv, sizeof(double));
  double* acc = calloc((size_t)nv, sizeof(double));
  for (int s = 0; s < 4; s++) {
    random_state(m, q0, v0, 1.2, 1.5);
    for (int i = 0; i < nv; i++) tau[i] = urand();
    memcpy(d->q, q0, (size_t)nq * sizeof(double));
    memcpy(d->v, v0, (size_t)nv * sizeof(double));
    full_update(m, d);
    for (int i = 0; i < nv; i++) acc[i] = tau[i] - d->qfrc_bias[i];
    dyn_solve(m, d, acc, 1);
    double power = 0;
    for (int i = 0; i < nv; i++) power += tau[i] * v0[i];
    double h = 1e-5, ke[2];
    for (int sgn = 0; sgn < 2; sgn++) {
      double sg = sgn ? -1 : 1;
      kin_integrate(m, q0, v0, sg * h, d->q);
      for (int i = 0; i < nv; i++) d->v[i] = v0[i] + sg * h * acc[i];
      kin_forward(m, d);
      dyn_crba(m, d);
      ke[sgn] = dyn_kinetic(m, d);
    }
    double dke = (ke[0] - ke[1]) / (2 * h);
    ck_assert_msg(fabs(dke - power) <= 1e-6 * (fabs(power) + 1), "dKE/dt %.12g vs v'tau %.12g",
                  dke, power);
  }
  free(q0); free(v0); free(tau); free(acc);
}

START_TEST(random_trees_power_balance) {
  for (int t = 0; t < 6; t++) {
    sim_model* m;
    sim_data* d;
    build_random_tree(4 + 5 * t, t % 2 ? MODEL_BASE_FIXED : MODEL_BASE_FREE,
                      (double[]){0, 0, 0}, &m, &d);
    check_power(m, d);
    data_free(d);
    model_free(m);
  }
}
END_TEST

//---------------------------------- shared robot files ------------------------------------------

// the power balance cases of k_robots
static const robot_file_case k_power[] = {
    {.file = "solo12/solo12.urdf", .base = MODEL_BASE_FREE},
    {.file = "talos/talos_reduced.urdf", .base = MODEL_BASE_FREE},
    {.file = "panda/panda.urdf", .base = MODEL_BASE_FIXED},
};

// every robot that loads: M symmetric positive definite (dpotrf) at 10 random states, equal to
// the RNEA columns, RNEA(q, v, a) == M a + b to 1e-10 relative, dyn_solve == dposv to 1e-12
// relative, Y'Y == J M^-1 J'
START_TEST(shared_robots_dynamics) {
  const robot_file_case* c = &k_robots[_i];
  urdf_robot* u = load_robot(c->file, 0);
  sim_model* m;
  sim_data* d;
  build(u, c->base, (double[]){0, 0, -9.81}, &m, &d);
  check_robot_dynamics(m, d, 10, 1e-10);
  data_free(d);
  model_free(m);
  urdf_free(u);
}
END_TEST

// energy balance d/dt KE = v'tau on solo12 (free), talos_reduced (free), panda (fixed)
START_TEST(shared_robots_power_balance) {
  const robot_file_case* c = &k_power[_i];
  urdf_robot* u = load_robot(c->file, 0);
  sim_model* m;
  sim_data* d;
  build(u, c->base, (double[]){0, 0, 0}, &m, &d);
  check_power(m, d);
  data_free(d);
  model_free(m);
  urdf_free(u);
}
END_TEST

// dyn_crba's frames (model.h body_rootid): a tree's root body in its body frame, the bodies
// below it in the tree's frame, an isolated body alone, several trees in one model; M against
// the columns of the body-frame RNEA, M e_i = RNEA(v = 0, qacc = e_i, no gravity), to 1e-12 of
// max |M| at 10 random states: talos and solo12 (free roots carrying legs and arms), panda with a
// free cube (a revolute root, an isolated free body), kuka with its gripper and a bottle
static const char* const k_crba_scenes[] = {
    "scenarios/talos_stand.yaml", "scenarios/solo12_stand.yaml", "scenarios/panda_push_cube.yaml",
    "scenarios/kuka_bottle.yaml"};

START_TEST(crba_tree_frames_vs_rnea) {
  fixture f = fixture_file(k_crba_scenes[_i], NULL, 0);
  const sim_model* m = f.s->model.m;
  sim_data* d = f.s->data.d;
  int nv = m->nv, roots = 0, below = 0;
  for (int b = 1; b < m->nbody; b++) m->body_rootid[b] == b ? roots++ : below++;
  ck_assert(below > 0);
  size_t nn = (size_t)nv * nv;
  double* M = calloc(nn, sizeof(double));
  double* e = calloc((size_t)nv, sizeof(double));
  double* z = calloc((size_t)nv, sizeof(double));
  double* tau = calloc((size_t)nv, sizeof(double));
  for (int s = 0; s < 10; s++) {
    random_state(m, d->q, d->v, 1.5, 2);
    kin_forward(m, d);
    dyn_crba(m, d);
    dyn_mass_dense(m, d, M);
    double Mmax = max_abs(M, (int)nn), err = 0;
    for (int i = 0; i < nv; i++) {
      e[i] = 1;
      dyn_rnea_full(m, d, z, e, NULL, 0, tau);
      e[i] = 0;
      for (int j = 0; j < nv; j++) err = fmax(err, fabs(M[j * nv + i] - tau[j]));
    }
    ck_assert_msg(err <= 1e-12 * Mmax, "%s: |M - RNEA columns| %.3g of max |M| %.3g (%d roots)",
                  k_crba_scenes[_i], err, Mmax, roots);
  }
  free(M); free(e); free(z); free(tau);
  fixture_free(&f);
}
END_TEST

// at 10 random states of (m, d): dyn_crba's gravity torques d->qfrc_grav (from each row's force
// Ic S, no backward pass) against the body-frame RNEA at rest, dyn_rnea_rest, and dyn_rnea_vp
// (tree frames below each root, from the CRBA's d->cdoft and d->cinertt) against the body-frame
// RNEA's velocity products, dyn_rnea_full with qacc 0 and no gravity, each to 1e-12 of its max:
// fails on a wrong frame for a root's or a tree body's composite, a sign of a_0, a wrong dS/dt,
// a root's turn or a force handed on in the wrong frame
static void check_tree_frame_paths(const sim_model* m, sim_data* d, const char* name) {
  int nv = m->nv, on = 1;
  double* r0 = calloc((size_t)nv, sizeof(double));
  double* r1 = calloc((size_t)nv, sizeof(double));
  int* body_tree = calloc((size_t)m->nbody, sizeof(int));
  for (int s = 0; s < 10; s++) {
    random_state(m, d->q, d->v, 1.5, 2);
    kin_forward(m, d);
    dyn_crba(m, d);
    dyn_rnea_rest(m, d, NULL, 1, r0);
    double gmax = max_abs(r0, nv), err = 0;
    for (int i = 0; i < nv; i++) err = fmax(err, fabs(d->qfrc_grav[i] - r0[i]));
    ck_assert(gmax > 1e-3);
    ck_assert_msg(err <= 1e-12 * gmax, "%s: |g - RNEA at rest| %.3g of max |g| %.3g", name, err,
                  gmax);
    dyn_rnea_full(m, d, d->v, NULL, NULL, 0, r0);
    dyn_rnea_vp(m, d, d->v, body_tree, &on, r1);
    double cmax = max_abs(r0, nv);
    err = 0;
    for (int i = 0; i < nv; i++) err = fmax(err, fabs(r1[i] - r0[i]));
    ck_assert(cmax > 1e-3);
    ck_assert_msg(err <= 1e-12 * cmax, "%s: |C v (tree) - C v (body)| %.3g of max %.3g", name,
                  err, cmax);
  }
  free(r0); free(r1); free(body_tree);
}

START_TEST(tree_frame_gravity_and_vp) {
  fixture f = fixture_file(k_crba_scenes[_i], NULL, 0);
  check_tree_frame_paths(f.s->model.m, f.s->data.d, k_crba_scenes[_i]);
  fixture_free(&f);
}
END_TEST

// the same on random trees (prismatic, revolute and floating joints below the root), fixed and
// free base
static void check_random_tree_frames(const sim_model* m, sim_data* d) {
  check_tree_frame_paths(m, d, "random tree");
}

START_TEST(random_trees_tree_frame_paths) {
  on_random_trees(check_random_tree_frames);
}
END_TEST

// the double pendulum written as URDF text, through the parser: joint 1's frame is turned by
// Rx(90) (its -z axis is the world y axis, its -y axis points down), link 1's inertia frame is
// turned by Rx(90) too (its iyy lands on the link z axis, i.e. the joint axis), link 2 inherits
// joint 1's axes, and a point-mass tip is merged by a fixed joint: same closed form as above
START_TEST(double_pendulum_from_urdf_text) {
  const char* text =
      "<?xml version=\"1.0\"?>\n"
      "<robot name=\"dp\">\n"
      "  <link name=\"base\"/>\n"
      "  <link name=\"a1\"><inertial><origin xyz=\"0 -0.21 0\" rpy=\"1.5707963267948966 0 0\"/>\n"
      "    <mass value=\"1.3\"/>\n"
      "    <inertia ixx=\"0.02\" ixy=\"0\" ixz=\"0\" iyy=\"0.031\" iyz=\"0\" izz=\"0.025\"/>\n"
      "  </inertial></link>\n"
      "  <link name=\"a2\"><inertial><origin xyz=\"0 -0.2 0\"/><mass value=\"0.8\"/>\n"
      "    <inertia ixx=\"0.012\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.017\"/>\n"
      "  </inertial></link>\n"
      "  <link name=\"tip\"><inertial><mass value=\"0.25\"/>\n"
      "    <inertia ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"/></inertial></link>\n"
      "  <joint name=\"j1\" type=\"continuous\"><parent link=\"base\"/><child link=\"a1\"/>\n"
      "    <origin xyz=\"0 0 2\" rpy=\"1.5707963267948966 0 0\"/><axis xyz=\"0 0 -1\"/></joint>\n"
      "  <joint name=\"j2\" type=\"revolute\"><parent link=\"a1\"/><child link=\"a2\"/>\n"
      "    <origin xyz=\"0 -0.5 0\"/><axis xyz=\"0 0 -1\"/>\n"
      "    <limit lower=\"-3\" upper=\"3\" effort=\"10\" velocity=\"5\"/></joint>\n"
      "  <joint name=\"j3\" type=\"fixed\"><parent link=\"a2\"/><child link=\"tip\"/>\n"
      "    <origin xyz=\"0 -0.4 0\"/></joint>\n"
      "</robot>\n";
  urdf_options opt = urdf_default_options();
  opt.use_env = 0;
  urdf_robot* u = NULL;
  csim_error err;
  ck_assert_int_eq(urdf_load_string(text, "dp.urdf", NULL, &opt, &u, &err), CSIM_OK);
  sim_model* m;
  sim_data* d;
  double g = 9.81;
  build(u, MODEL_BASE_FIXED, (double[]){0, 0, -g}, &m, &d);
  ck_assert_int_eq(m->nv, 2);
  ck_assert_int_eq(m->nbody, 3);
  ck_assert_int_eq(m->jnt_limited[0], 0);
  ck_assert_int_eq(m->jnt_limited[1], 1);
  double ma = 0.8, la = 0.4, mt = 0.25, m2 = ma + mt, c2 = (ma * 0.2 + mt * la) / m2;
  double r = MODEL_POINT_RADIUS;
  double I2 = 0.017 + ma * pow(0.2 - c2, 2) + 0.4 * mt * r * r + mt * pow(la - c2, 2);
  dp_params P = {1.3, 0.21, 0.5, 0.031, m2, c2, I2, g};
  for (int k = 0; k < 9; k++) {
    double M[4], b[2], Md[4];
    double q[2];
    dp_random_state(m, d, &P, q, M, b);
    dyn_mass_dense(m, d, Md);
    for (int i = 0; i < 4; i++) ck_assert_double_eq_tol(Md[i], M[i], 1e-12);
    for (int i = 0; i < 2; i++) ck_assert_double_eq_tol(d->qfrc_bias[i], b[i], 1e-12);
    // potential energy: m1 g (2 - c1 cos q1) + m2 g (2 - l1 cos q1 - c2 cos(q1 + q2))
    double pe =
        1.3 * g * (2 - 0.21 * cos(q[0])) + m2 * g * (2 - 0.5 * cos(q[0]) - c2 * cos(q[0] + q[1]));
    ck_assert_double_eq_tol(dyn_potential(m, d), pe, 1e-12);
  }
  data_free(d);
  model_free(m);
  urdf_free(u);
}
END_TEST

//---------------------------------- suite -----------------------------------------------------

static Suite* dynamics_suite(void) {
  Suite* s = suite_create("dynamics");
  TCase* tc = tcase_create("analytic");
  tcase_add_test(tc, simple_pendulum_closed_form);
  tcase_add_test(tc, double_pendulum_closed_form);
  tcase_add_test(tc, free_body_mass_matrix);
  suite_add_tcase(s, tc);
  TCase* tr = tcase_create("random");
  tcase_set_timeout(tr, 60);
  tcase_add_test(tr, random_trees_consistent);
  tcase_add_test(tr, random_trees_power_balance);
  tcase_add_test(tr, rnea_rest_is_potential_gradient);
  suite_add_tcase(s, tr);
  TCase* tf = tcase_create("files");
  tcase_set_timeout(tf, 120);
  tcase_add_loop_test(tf, shared_robots_dynamics, 0, k_nrobots);
  tcase_add_loop_test(tf, shared_robots_power_balance, 0,
                      (int)(sizeof(k_power) / sizeof(k_power[0])));
  tcase_add_test(tf, double_pendulum_from_urdf_text);
  tcase_add_loop_test(tf, crba_tree_frames_vs_rnea, 0,
                      (int)(sizeof(k_crba_scenes) / sizeof(k_crba_scenes[0])));
  tcase_add_loop_test(tf, tree_frame_gravity_and_vp, 0,
                      (int)(sizeof(k_crba_scenes) / sizeof(k_crba_scenes[0])));
  tcase_add_test(tf, random_trees_tree_frame_paths);
  suite_add_tcase(s, tf);
  return s;
}

int main(void) {
  return run_suite(dynamics_suite());
}
