// staggered.c — staggered projections for the NCP (000 Alg. 6; Kaufman et al. 2008 [34]).
//
// The NCP is split into two convex QPs that are solved in turn, each with the other's impulses
// frozen (G~ = G + diag(R), blocks N = normal rows, T = tangent rows):
//   normal:     lambda_N = argmin_{l >= 0} 1/2 l'G~_NN l + (g_N + G_NT lambda_T)'l      (lines 2-3)
//   tangential: lambda_T = argmin_{|l_i| <= mu_i lambda_N,i} 1/2 l'G~_TT l + (g_T + G_TN lambda_N)'l
//                                                                                    (lines 4-5)
// (the listing's line 2 reads g_T where g_N is meant). At a fixed point the normal QP's KKT
// conditions are Signorini's (c_N >= 0 ⊥ lambda_N >= 0) and the tangential QP's are Coulomb's law
// with maximum dissipation (lambda_T on the disc, opposite to c_T when sliding): the NCP, eq. 14.
// The outer loop stops on the NCP residual (solver_residuals, R included). It has no convergence
// guarantee (000 Sec. III) but typically needs few iterations. It is a block Gauss-Seidel between
// the normal and tangential blocks, so strong N/T coupling slows it like PGS: on cube_stack_ill
// (000 Fig. 12) about 10% of the steps stall near 1.2e-8 against a 1e-8 tolerance, where
// ncp/admm converges in ~2 iterations.
//
// Each QP is solved by ADMM with a Cholesky factor of (G~_NN + rho_N I) or (G~_TT + rho_T I),
// factored once per call (and again only when residual balancing changes rho, as in admm.c):
// robust to the ill-conditioning and rank deficiency (hyperstatic contacts) that defeat
// projected-gradient methods. Both are warm started across outer iterations (primal and dual)
// and their penalties are kept in the solver across calls. Inner tolerance: 0.1 x the outer
// residual, floored at 0.1 x the tolerance (loose while the outer loop is far, tight at the end).
// Inner residual, in the units of eps_abs: normal max(-lambda_N, -c_N, 0) and |lambda_N c_N|;
// tangential max(|lambda_T| - mu lambda_N, 0) and lambda_T . c_T + mu lambda_N |c_T| (>= 0 on
// the disc, zero iff maximum dissipation or c_T = 0).
#include <lapacke.h>
#include "core/interrupt.h"  // a signal ends the iteration (interrupt.h)
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/solvers/cone.h"
#include "core/solvers/solver_impl.h"

// residual balancing factor and cooldown, rho bounds relative to the block's largest diagonal
static const double kBalance = 5;
static const int kRhoCooldown = 4;
static const double kRhoLo = 1e-8, kRhoHi = 1e3;
// inner tolerance relative to the outer residual, and its floor relative to the tolerance
static const double kInnerRel = 0.1, kInnerFloor = 0.1;

// the family's private state: the inner ADMM penalties, normal / tangent, kept across solves
// (0 until the first)
typedef struct {
  double rho[2];
} stag_state;

static stag_state* stag_of(const solver* s) {
  return (stag_state*)s->priv;
}

// one convex QP min 1/2 y'Ay + b'y over y >= 0 (disc = 0) or over discs |y_i| <= rad_i of
// pairs (disc = 1), solved by ADMM; z and gam carry the warm start in and the solution out
typedef struct {
  int n;              // variables
  int disc;           // 0: nonnegative orthant; 1: pairs in discs
  const double* A;    // (n x n) symmetric
  const double* b;    // (n)
  const double* rad;  // (n/2) disc radii
  double* L;          // (n x n) factor of A + rho I
  double rho;         // penalty
  double rho_lo, rho_hi;
  double* z;          // (n) projected iterate
  double* gam;        // (n) dual, -(A z + b) at convergence
  double* x;          // (n) scratch: unprojected iterate
  double* zp;         // (n) scratch: previous z
  double* gr;         // (n) scratch: A z + b
} qp;

// L = chol(A + rho I) (column-major lower); 0 on success
static int qp_factor(qp* q) {
  int n = q->n;
  memcpy(q->L, q->A, sizeof(double) * (size_t)n * (size_t)n);
  for (int r = 0; r < n; r++) q->L[(size_t)r * n + r] += q->rho;
  if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, q->L, n) != 0) return 1;
  for (int r = 0; r < n; r++)
    if (!isfinite(q->L[(size_t)r * n + r])) return 1;
  return 0;
}

// projection of w onto the feasible set (in place)
static void qp_project(const qp* q, double* w) {
  if (!q->disc) {
    for (int k = 0; k < q->n; k++) w[k] = w[k] > 0 ? w[k] : 0;
    return;
  }
  for (int i = 0; i < q->n / 2; i++) {
    double* wi = w + 2 * i;
    double r = q->rad[i] > 0 ? q->rad[i] : 0, t = sqrt(wi[0] * wi[0] + wi[1] * wi[1]);
    if (t > r) {
      double f = t > 0 ? r / t : 0;
      wi[0] *= f;
      wi[1] *= f;
    }
  }
}

// gr = A z + b and the QP's KKT residual at z (INFINITY when not finite)
static double qp_residual(qp* q) {
  int n = q->n;
  double m = 0;
  for (int r = 0; r < n; r++) {
    const double* Ar = q->A + (size_t)r * n;
    double acc = q->b[r];
    for (int k = 0; k < n; k++) acc += Ar[k] * q->z[k];
    q->gr[r] = acc;
  }
  if (!q->disc) {
    for (int k = 0; k < n; k++)
      m = fmax(m, fmax(fmax(-q->z[k], -q->gr[k]), fabs(q->z[k] * q->gr[k])));
  } else {
    for (int i = 0; i < n / 2; i++) {
      const double* y = q->z + 2 * i;
      const double* g = q->gr + 2 * i;
      double r = q->rad[i] > 0 ? q->rad[i] : 0;
      double t = sqrt(y[0] * y[0] + y[1] * y[1]);
      m = fmax(m, fmax(t - r, fabs(y[0] * g[0] + y[1] * g[1] + r * sqrt(g[0] * g[0] + g[1] * g[1]))));
    }
  }
  return isfinite(m) ? m : INFINITY;
}

// dual on the face of z: gam = P_N(-(A z + b)), N the normal cone of the set at z (gr current)
static void qp_dual_init(qp* q) {
  if (!q->disc) {
    for (int k = 0; k < q->n; k++) q->gam[k] = q->z[k] > 0 ? 0 : fmin(-q->gr[k], 0);
    return;
  }
  for (int i = 0; i < q->n / 2; i++) {
    const double* y = q->z + 2 * i;
    const double* g = q->gr + 2 * i;
    double* gm = q->gam + 2 * i;
    double r = q->rad[i] > 0 ? q->rad[i] : 0, t = sqrt(y[0] * y[0] + y[1] * y[1]);
    if (r <= 0) {  // the disc is a point: N is the plane
      gm[0] = -g[0];
      gm[1] = -g[1];
    } else if (t < r * (1 - 1e-9)) {  // interior
      gm[0] = gm[1] = 0;
    } else {  // boundary: N = {s y/|y|, s >= 0}
      double u0 = y[0] / t, u1 = y[1] / t, s = fmax(-(g[0] * u0 + g[1] * u1), 0);
      gm[0] = s * u0;
      gm[1] = s * u1;
    }
  }
}

// ADMM on the QP from the state in (z, gam), to tolerance tol or maxit iterations; returns the
// iterations done, sets *resid; *ok = 0 when a factorization failed
static int qp_solve(qp* q, double tol, int maxit, double alpha, int adaptive, double* resid,
                    int* ok) {
  int n = q->n, it = 0, last_change = 0;
  double r = qp_residual(q);
  while (r > tol && it < maxit && *ok && !intr_requested()) {
    it++;
    // x = (A + rho I)^-1 (rho z - gam - b)
    for (int k = 0; k < n; k++) q->x[k] = q->rho * q->z[k] - q->gam[k] - q->b[k];
    solver_chol_solve(n, q->L, q->x);
    // relaxation, projection, dual ascent
    memcpy(q->zp, q->z, sizeof(double) * (size_t)n);
    for (int k = 0; k < n; k++) {
      q->x[k] = alpha * q->x[k] + (1 - alpha) * q->zp[k];
      q->z[k] = q->x[k] + q->gam[k] / q->rho;
    }
    qp_project(q, q->z);
    for (int k = 0; k < n; k++) q->gam[k] += q->rho * (q->x[k] - q->z[k]);
    r = qp_residual(q);
    if (!isfinite(r)) break;
    // residual balancing (scaled residuals, as in admm.c)
    if (adaptive && it - last_change >= kRhoCooldown) {
      double dp = 0, dd = 0, sx = 0, sz = 0, sg = 0;
      for (int k = 0; k < n; k++) {
        dp = fmax(dp, fabs(q->x[k] - q->z[k]));
        dd = fmax(dd, fabs(q->z[k] - q->zp[k]));
        sx = fmax(sx, fabs(q->x[k]));
        sz = fmax(sz, fabs(q->z[k]));
        sg = fmax(sg, fmax(fabs(q->gam[k]), fmax(fabs(q->b[k]), fabs(q->gr[k] - q->b[k]))));
      }
      double prim = dp / fmax(fmax(sx, sz), 1e-300), dual = q->rho * dd / fmax(sg, 1e-300);
      if (prim > kBalance * dual || dual > kBalance * prim) {
        double f = fmin(fmax(sqrt(prim / fmax(dual, 1e-300)), 1e-3), 1e3);
        double nrho = fmin(fmax(q->rho * f, q->rho_lo), q->rho_hi);
        if (nrho != q->rho) {
          q->rho = nrho;
          last_change = it;
          *ok = !qp_factor(q);
        }
      }
    }
  }
  *resid = r;
  return it;
}

// rho from the previous call (or the option) within the block's bounds
static void qp_rho(qp* q, double stored, double opt) {
  double dmax = 0;
  for (int k = 0; k < q->n; k++) dmax = fmax(dmax, q->A[(size_t)k * q->n + k]);
  if (!(dmax > 0) || !isfinite(dmax)) dmax = 1;
  q->rho_lo = kRhoLo * dmax;
  q->rho_hi = kRhoHi * dmax;
  double rho = stored > 0 ? stored : opt;
  q->rho = fmin(fmax(rho, q->rho_lo), q->rho_hi);
}

// the blocks of G~ (R on the diagonal): normal rows and columns into AN (nc x nc), tangent ones
// into AT (2nc x 2nc)
static void stag_blocks(const solver_problem* p, double* AN, double* AT) {
  int nc = p->nc, n = 3 * nc, nt = 2 * nc;
  for (int i = 0; i < nc; i++)
    for (int j = 0; j < nc; j++) {
      AN[(size_t)i * nc + j] = p->dense[(size_t)(3 * i + 2) * n + 3 * j + 2];
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
          AT[(size_t)(2 * i + a) * nt + 2 * j + b] = p->dense[(size_t)(3 * i + a) * n + 3 * j + b];
    }
  if (p->R)
    for (int i = 0; i < nc; i++) {
      AN[(size_t)i * nc + i] += p->R[3 * i + 2];
      for (int a = 0; a < 2; a++) AT[(size_t)(2 * i + a) * nt + 2 * i + a] += p->R[3 * i + a];
    }
}

// the NCP residual of lambda (R included) with its velocity into c; INFINITY when c (or, with
// check_lambda, lambda) holds a NaN or an infinity (the residual's max() would skip a NaN)
static double stag_residual(const solver_problem* p, const double* lambda, double* c,
                            int check_lambda) {
  solver_result out;
  solver_residuals(p, lambda, c, &out);
  double r = out.eps_abs;
  for (int k = 0; k < 3 * p->nc; k++)
    if ((check_lambda && !isfinite(lambda[k])) || !isfinite(c[k])) r = INFINITY;
  return r;
}

// the normal QP's linear term given lambda_T: b_N = g_N + G_NT lambda_T   (Alg. 6 lines 2-3)
static void normal_rhs(const solver_problem* p, const double* zt, double* bN) {
  int nc = p->nc, n = 3 * nc;
  for (int i = 0; i < nc; i++) {
    const double* Gr = p->dense + (size_t)(3 * i + 2) * n;
    double acc = p->g[3 * i + 2];
    for (int j = 0; j < nc; j++) acc += Gr[3 * j] * zt[2 * j] + Gr[3 * j + 1] * zt[2 * j + 1];
    bN[i] = acc;
  }
}

// the tangential QP's given lambda_N: b_T = g_T + G_TN lambda_N, radii mu lambda_N   (lines 4-5)
static void tangent_rhs(const solver_problem* p, const double* zn, double* bT, double* rad) {
  int nc = p->nc, n = 3 * nc;
  for (int i = 0; i < nc; i++) {
    rad[i] = p->mu[i] * zn[i];
    for (int a = 0; a < 2; a++) {
      const double* Gr = p->dense + (size_t)(3 * i + a) * n;
      double acc = p->g[3 * i + a];
      for (int j = 0; j < nc; j++) acc += Gr[3 * j + 2] * zn[j];
      bT[2 * i + a] = acc;
    }
  }
}

// one outer iteration: the normal QP given lambda_T, then the tangential one given lambda_N,
// each to the inner tolerance itol (first: their duals start on the faces of the warm start);
// bN, bT, rad: the QPs' linear terms and radii; *ok cleared when a factor fails
static void stag_outer(const solver* s, const solver_problem* p, qp* qn, qp* qt, double* bN,
                       double* bT, double* rad, double itol, int first, int* ok) {
  double rin, alpha = s->opt.over_relaxation;
  normal_rhs(p, qt->z, bN);
  if (first) {
    qp_residual(qn);
    qp_dual_init(qn);
  }
  qp_solve(qn, itol, s->opt.max_iterations, alpha, s->opt.rho_adaptive, &rin, ok);
  tangent_rhs(p, qn->z, bT, rad);
  qp_project(qt, qt->z);  // onto the new discs
  if (first) {
    qp_residual(qt);
    qp_dual_init(qt);
  }
  qp_solve(qt, itol, s->opt.max_iterations, alpha, s->opt.rho_adaptive, &rin, ok);
}

void solver_ncp_staggered(solver* s, const solver_problem* p, double* lambda,
                          solver_result* res) {
  int nc = p->nc, n = 3 * nc, nt = 2 * nc;
  double tol = s->opt.tolerance;
  // scratch: G~_NN, G~_TT and their factors (10 nc^2 <= two n x n blocks), then vectors
  double* AN = s->work;
  double* AT = AN + (size_t)nc * nc;
  double* LN = AT + (size_t)nt * nt;
  double* LT = LN + (size_t)nc * nc;
  double* v = LT + (size_t)nt * nt;
  double* bN = v;            // (nc) normal QP linear term
  double* rad = v + n;       // (nc) disc radii mu_i lambda_N,i
  double* bT = v + 2 * n;    // (2nc) tangential QP linear term
  double* c = v + 3 * n;     // (3nc) velocities
  qp qn = {nc, 0, AN, bN, NULL, LN, 0, 0, 0, v + 4 * n, v + 5 * n, v + 6 * n, v + 7 * n, v + 8 * n};
  qp qt = {nt, 1, AT, bT, rad, LT, 0, 0, 0, v + 9 * n, v + 10 * n, v + 11 * n, v + 12 * n, v + 13 * n};
  stag_blocks(p, AN, AT);

  // warm start projected onto the cones (zero when not finite); a converged guess costs no
  // iteration
  for (int k = 0; k < n; k++)
    if (!isfinite(lambda[k])) {
      memset(lambda, 0, sizeof(double) * (size_t)n);
      break;
    }
  for (int i = 0; i < nc; i++) cone_project(lambda + 3 * i, lambda + 3 * i, p->mu[i]);
  double r = stag_residual(p, lambda, c, 0);  // NaN in G or g
  res->iterations = 0;
  if (r <= tol) {
    res->residual = r;
    res->converged = 1;
    return;
  }
  for (int i = 0; i < nc; i++) {
    qn.z[i] = lambda[3 * i + 2];
    qt.z[2 * i] = lambda[3 * i];
    qt.z[2 * i + 1] = lambda[3 * i + 1];
  }
  qp_rho(&qn, stag_of(s)->rho[0], s->opt.rho);
  qp_rho(&qt, stag_of(s)->rho[1], s->opt.rho);
  int ok = !qp_factor(&qn) && !qp_factor(&qt);
  int it = 0;
  while (ok && it < s->opt.max_iterations && !intr_requested()) {
    double itol = fmax(kInnerFloor * tol, kInnerRel * r);
    stag_outer(s, p, &qn, &qt, bN, bT, rad, itol, it == 0, &ok);
    it++;
    for (int i = 0; i < nc; i++) {  // assemble and test the NCP residual (R included)
      lambda[3 * i] = qt.z[2 * i];
      lambda[3 * i + 1] = qt.z[2 * i + 1];
      lambda[3 * i + 2] = qn.z[i];
    }
    r = stag_residual(p, lambda, c, 1);
    if (r <= tol || !isfinite(r)) break;
  }
  stag_of(s)->rho[0] = qn.rho;
  stag_of(s)->rho[1] = qt.rho;
  res->iterations = it;
  res->residual = r;
  res->converged = r <= tol;
}

//------------------------------------ the family -------------------------------------------

static size_t stag_bytes(const solver_options* o, int maxc) {
  (void)o;
  (void)maxc;
  return sizeof(stag_state);
}

static void* stag_create(const solver_options* o, int maxc) {
  (void)o;
  (void)maxc;
  return calloc(1, sizeof(stag_state));
}

static double* stag_carry(solver* s, int* n) {
  *n = 2;
  return stag_of(s)->rho;
}

static void stag_reset(void* priv) {
  memset(priv, 0, sizeof(stag_state));
}

const solver_family solver_family_staggered = {
    .bytes = stag_bytes,
    .create = stag_create,
    .destroy = free,
    .carry = stag_carry,
    .reset = stag_reset,
};
