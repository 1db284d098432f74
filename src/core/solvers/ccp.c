// ccp.c — projected Gauss-Seidel for the cone complementarity problem (000 Alg. 2, eq. 15).
//
// The CCP relaxes Signorini: K_mu ∋ lambda ⊥ c ∈ K_mu*, with c = (G + R) lambda + g. Per contact
// the whole 3-vector takes one scalar gradient step 3 / trace(G~_ii) (Alg. 2 line 3) and is
// projected onto the second-order cone K_mu (line 4). 3 / trace is the inverse of the block's mean
// eigenvalue; a projected gradient step on the block is stable only below 2 / lambda_max, which a
// strongly anisotropic block (lambda_max > 2 trace / 3) violates, so the step is capped at
// 1.5 / lambda_max (the cap never binds on near-isotropic blocks). A scalar step keeps the fixed point on the
// CCP solution whatever its value: lambda = proj_K(lambda - s c) <=> -c in the normal cone of K
// at lambda <=> K ∋ lambda ⊥ c ∈ K*. Over-relaxation omega scales the step (the same as blending
// the update with the previous value before the projection, as pgs.c does). The stopping residual
// is the CCP's own: cone_residuals_ccp (000 eq. 14 with Gamma = 0).
//
// Speed: c = G~ lambda + g is kept up to date in s->c: after contact i moves by d, c += G~(:, i) d
// (the three columns of G are its rows: G is symmetric), so a sweep costs one pass over G and the
// residual after it is O(nc). Island by island (solver_impl.h): each island sweeps until its own
// contacts meet the tolerance; its rows of c are recomputed from scratch before accepting its
// convergence and every REFRESH of its sweeps, so rounding never accumulates into the answer.
#include <math.h>
#include <string.h>

#include "core/solvers/cone.h"
#include "core/solvers/solver_impl.h"

// sweeps between exact recomputations of c
#define REFRESH 64
// largest step times lambda_max(G~_ii): the gradient step is stable below 2
#define STEP_CAP 1.5

// c += G~(:, 3i..3i+2) d (the blocks of row i of the symmetric G)
static void velocity_update(const solver_problem* p, int i, const double d[3], double* c) {
  solver_gcol_add(p, i, d, c);
  if (p->R)
    for (int r = 0; r < 3; r++) c[3 * i + r] += p->R[3 * i + r] * d[r];
}

// largest eigenvalue of a symmetric 3x3 matrix (closed form, Smith 1961)
static double sym3_max_eig(const double A[9]) {
  double p1 = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
  double q = (A[0] + A[4] + A[8]) / 3;
  if (p1 == 0) {
    double big = A[0] > A[4] ? A[0] : A[4];
    return big > A[8] ? big : A[8];
  }
  double d0 = A[0] - q, d1 = A[4] - q, d2 = A[8] - q;
  double pp = sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2 * p1) / 6);
  // r = det((A - q I) / p) / 2, clamped to [-1, 1]
  double det = d0 * (d1 * d2 - A[5] * A[5]) - A[1] * (A[1] * d2 - A[5] * A[2]) +
               A[2] * (A[1] * A[5] - d1 * A[2]);
  double r = det / (2 * pp * pp * pp);
  r = r < -1 ? -1 : (r > 1 ? 1 : r);
  return q + 2 * pp * cos(acos(r) / 3);
}

// the CCP residual (000 eq. 15), max over the contacts cons[0..n) (all when cons is NULL;
// solver_impl.h)
double solver_ccp_residual(const solver_problem* p, const double* lambda, const double* c,
                           const int* cons, int n) {
  return solver_ccp_residual_above(p, lambda, c, cons, n, INFINITY, NULL);
}

// once the largest so far passes `above`, an entry whose residual is finite cannot change the
// answer to "above?" and is skipped (its projections are most of a sweep's cost on condim 4
// contacts: humanoid100, 38 % of the step); the others are still evaluated, so a NaN is found
// as by the full pass. The pass starts at *first (when given), where the bound was passed last
// time (the contact still moving, most often), and leaves there where it passed now; a largest
// value does not depend on the order
double solver_ccp_residual_above(const solver_problem* p, const double* lambda, const double* c,
                                 const int* cons, int n, double above, int* first) {
  double worst = 0;
  int q0 = first && *first < n ? *first : 0, passed = -1;
  for (int t = 0; t < n; t++) {
    int q = q0 + t < n ? q0 + t : q0 + t - n;
    int i = cons ? cons[q] : q;
    double a, b, d;
    if (worst > above) {
      if (solver_entry_finite(p, lambda, c, i)) continue;
    } else if (solver_pair_passes(p, lambda, c, i, 0, above, &d)) {
      worst = d;
      passed = q;
      continue;
    }
    if (p->link)  // condim 4/6 (solver.h): the pair in the generalized cone
      solver_entry_residuals(p, lambda, c, i, p->box && p->box[i], &a, &b, &d);
    else if (p->box && p->box[i])  // a box entry (solver.h): its own complementarity is the NCP's
      cone_residuals(lambda + 3 * i, c + 3 * i, p->mu[i], &a, &b, &d);
    else
      cone_residuals_ccp(lambda + 3 * i, c + 3 * i, p->mu[i], &a, &b, &d);
    if (isnan(a) || isnan(b) || isnan(d)) return NAN;  // never report NaN as converged
    if (a > worst) worst = a;
    if (b > worst) worst = b;
    if (d > worst) worst = d;
    if (passed < 0 && worst > above) passed = q;
  }
  if (first && passed >= 0) *first = passed;
  return worst;
}

// what the sweeps read: the solver (its per-contact steps in tinv) and the problem
typedef struct {
  const solver* s;
  const solver_problem* p;
  int* first;  // where the stop's pass starts (solver_ccp_residual_above), per island
} ccp_ctx;

// the stopping residual over the contacts cons[0..n): the CCP residual, and under
// solver.criterion: ncp also the NCP one (a guess that is an NCP solution but not the CCP's
// answer, e.g. lambda = 0 on a separating contact that slides, where the CCP still pushes since
// c_N < mu |c_T|, must not stop the sweeps)
static double stop_residual(const void* ctx, const int* cons, int n, const double* lambda,
                            const double* c, double above) {
  const ccp_ctx* x = ctx;
  // the NCP criterion adds a residual of its own (whose NaN must not be skipped): exact then
  if (solver_stop_ncp(x->s)) above = INFINITY;
  double q = solver_ccp_residual_above(x->p, lambda, c, cons, n, above, x->first);
  return solver_stop_of(x->s, x->p, lambda, c, cons, n, q);
}

// a box entry (solver.h): the tangent onto the disc of radius b (mu 1), the normal pinned at b
static void box_project(double y[3], double b) {
  double t = sqrt(y[0] * y[0] + y[1] * y[1]);
  if (t > b) {
    y[0] *= b / t;
    y[1] *= b / t;
  }
  y[2] = b;
}

// a condim 4/6 pair (contact i, spin entry j; solver.h): the projected gradient step of Alg. 2
// in the scaled variables z = (f_k / a_k, n), where K_a is the round cone |z_f| <= z_n:
// z <- proj(z - st (a_k c_k, c_n)), so f_k <- a_k proj(.)_k. Its fixed point is K_a ∋ lambda ⊥
// c ∈ K_a* (<z, (a c_f, c_n)> = <lambda, c>); st (tinv[4 j]) is below 2 / lambda_max of the
// scaled 6x6 block (spin_steps). Components with a_k = 0 stay 0
static void ccp_pair(const solver_problem* p, int i, int j, double st, double* lambda, double* c) {
  double* li = lambda + 3 * i;
  double* lj = lambda + 3 * j;
  double a[5], z[5], f[5] = {li[0], li[1], lj[0], lj[1], lj[2]};
  double cf[5] = {c[3 * i], c[3 * i + 1], c[3 * j], c[3 * j + 1], c[3 * j + 2]};
  solver_ell_coef(p, i, j, a);
  double zt = 0, zn = li[2] - st * c[3 * i + 2];
  for (int k = 0; k < 5; k++) {
    z[k] = a[k] > 0 ? f[k] / a[k] - st * a[k] * cf[k] : 0;
    zt += z[k] * z[k];
  }
  zt = sqrt(zt);
  double sc = 1;  // the round cone's projection (cone_project's three cases)
  if (zt <= zn) {
  } else if (zt <= -zn) {
    sc = 0, zn = 0;
  } else {
    zn = (zn + zt) / 2;
    sc = zn / zt;
  }
  double di[3], dj[3];
  for (int k = 0; k < 5; k++) f[k] = a[k] * z[k] * sc;
  di[0] = f[0] - li[0], di[1] = f[1] - li[1], di[2] = zn - li[2];
  dj[0] = f[2] - lj[0], dj[1] = f[3] - lj[1], dj[2] = f[4] - lj[2];
  li[0] = f[0], li[1] = f[1], li[2] = zn;
  lj[0] = f[2], lj[1] = f[3], lj[2] = f[4];
  velocity_update(p, i, di, c);
  velocity_update(p, j, dj, c);
}

// one sweep: per contact a gradient step and projection onto K_mu (Alg. 2 lines 3-4)
static void ccp_sweep(const void* ctx, const int* cons, int n, double* lambda, double* c) {
  const ccp_ctx* x = ctx;
  const solver_problem* p = x->p;
  const double* tinv = x->s->tinv;
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    if (p->link && p->link[i] != -1) {  // a condim 4/6 pair, at its contact
      if (p->link[i] >= 0) ccp_pair(p, i, p->link[i], tinv[4 * p->link[i]], lambda, c);
      continue;
    }
    double* li = lambda + 3 * i;
    double st = tinv[4 * i];
    double y[3] = {li[0] - st * c[3 * i], li[1] - st * c[3 * i + 1], li[2] - st * c[3 * i + 2]};
    if (p->box && p->box[i])
      box_project(y, tinv[4 * i + 1]);
    else
      cone_project(y, y, p->mu[i]);
    double d[3] = {y[0] - li[0], y[1] - li[1], y[2] - li[2]};
    if (d[0] == 0 && d[1] == 0 && d[2] == 0) continue;
    li[0] = y[0];
    li[1] = y[1];
    li[2] = y[2];
    velocity_update(p, i, d, c);
  }
}

void solver_ccp_pgs(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  int nc = p->nc;
  double omega = s->opt.over_relaxation;

  // per-contact step omega * 3 / trace(G~_ii) (Alg. 2 line 3), capped at 1.5 / lambda_max(G~_ii)
  // (see the top of the file)
  for (int i = 0; i < nc; i++) {
    double B[9];
    solver_gdiag(p, i, B);
    if (p->R)
      for (int r = 0; r < 3; r++) B[4 * r] += p->R[3 * i + r];
    double tr = B[0] + B[4] + B[8], big = sym3_max_eig(B);
    double st = tr > 0 ? 3 / tr : 0;
    if (big > 0 && st * big > STEP_CAP) st = STEP_CAP / big;
    s->tinv[4 * i] = omega * st;
    // a box entry's bound b, its pinned normal impulse: g_N = -G_NN b (contact.h)
    s->tinv[4 * i + 1] = p->box && p->box[i] && B[8] > 0 ? -p->g[3 * i + 2] / B[8] : 0;
  }

  if (p->link) solver_spin_setup(s, p, lambda, STEP_CAP * omega, 1);
  // start from the warm start projected onto the cones
  for (int i = 0; i < nc; i++)
    if (!p->link || p->link[i] == -1) cone_project(lambda + 3 * i, lambda + 3 * i, p->mu[i]);
  solver_crows(p, lambda, s->c, NULL, nc);

  // island by island (solver_impl.h): each island sweeps until its CCP residual, checked on an
  // exact c, is below the tolerance
  int first = 0;  // where the stops start: a hint (any start gives the same value)
  ccp_ctx x = {s, p, &first};
  solver_sweep_run(s, p, lambda, ccp_sweep, stop_residual, &x, REFRESH, res);
}
