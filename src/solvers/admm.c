// admm.c — ADMM for the cone complementarity problem (000 Alg. 3) and, with de Saxce's fixed
// point inline, for the exact NCP (000 Sec. III, eq. 14).
//
// Splitting of min 1/2 l'G~l + (g + s)'l + I_K(z) s.t. l = z (G~ = G + diag(R): 000 eq. 19 with
// MuJoCo-like compliance), augmented Lagrangian with dual gamma and penalty rho:
//   l     <- -(G~ + rho I)^-1 (g + s - rho z + gamma)      Alg. 3 line 3 (Cholesky, LAPACK)
//   lh    <- alpha l + (1 - alpha) z                       over-relaxation (000 eq. 22, Boyd 3.4.3)
//   z     <- proj_K(lh + gamma / rho)                      line 4
//   gamma <- gamma + rho (lh - z)                          line 5
// At a fixed point l = z and gamma = -(G~ z + g + s), so z ∈ K ⊥ c + s ∈ K* (Moreau): with s = 0
// that is the CCP (eq. 15); with s = Gamma(c) = [0, 0, mu |c_T|] it is the NCP (eq. 14 through de
// Saxce's bipotential, eq. 13). The NCP solves a sequence of shifted CCPs inside one ADMM loop:
// the shift is refreshed from the current velocity once the shifted CCP's residual is below
// kShiftEta times the NCP residual, or every kShiftEvery iterations. Refreshing every iteration
// makes the iteration cycle on sliding contacts with small rho (measured below).
//
// rho: residual balancing (000 Sec. III, [68]; Boyd et al. 2011 Sec. 3.4.1, scaled residuals as in
// OSQP): when the scaled primal residual |l - z| / max(|l|, |z|) and the scaled dual residual
// rho |z - z_prev| / max(|gamma|, |g + s|, |G~ z|) differ by more than kBalance, rho is multiplied
// by the square root of their ratio; the factor is redone only then, and not more often than every
// kRhoCooldown iterations. rho stays within [kRhoLo, kRhoHi] times the largest diagonal entry of
// G~ and is kept in the solver across calls.
//
// Warm start: z = proj_K(lambda), dropped for z = 0 when zero has the smaller residual of the
// model (a guess from another contact configuration can be far worse than nothing). The dual is
// initialized from the face of K that z lies on: gamma = -P_N(c + s) with N the normal cone of K
// at z (0 inside the cone, K* at the apex, the ray t (-z_T/|z_T|, mu) on the boundary), so that
// (z, gamma) is the exact ADMM fixed point when the warm start is the solution, and sticking
// contacts (interior) start with the zero dual they have at the solution.
// Mean iterations on problems replayed from cube_drop / cube_push_ramp / cube_slide /
// cube_stack_ill / panda_push_cube / solo12_stand / talos_stand runs (tolerance of each scenario):
//   ccp: gamma = -P_N(c)   3.8  6.4  6.4 1.1 35.5 2.6  6.9   (this file)
//        gamma = -P_K*(c)  5.6  9.3  6.8 3.9 28.6 2.4 10.4
//        gamma = -c        6.3  9.2  7.1 3.1 28.5 2.9 10.5
//        gamma = 0         6.1 31.8 28.5 1.1 66.5 19.3 6.7
//   ncp: gamma = -P_N(c+s) 7.2 10.3  3.9 2.1 55.8 6.2 40.0  (3 of 2000 panda steps at the cap)
//        gamma = 0         8.7 28.6 25.1 2.1 53.0 29.9 39.1
//        shift refreshed every iteration: talos 175 (127 steps at the cap); fixed rho = 1:
//        cube_stack_ill 345 (42 at the cap). Without the zero fallback, cube_stack_ill 5.3.
//
// The answer is the model's (issue 9): the zero-or-warm-start choice and the best iterate are
// ranked by the model's own residual q (000 eq. 14 for the NCP, eq. 15 for the CCP) whatever
// solver.criterion says, and under solver.criterion: ncp the CCP stops on max(q, NCP residual),
// so an NCP solution that is not the CCP's answer (lambda = 0 on a separating contact that
// slides, where the CCP pushes since c_N < mu |c_T|) does not stop it either. The CCP answer to a
// sliding contact never meets an NCP tolerance (complementarity residual mu lambda_N |c_T|), so
// it runs to the cap; ranking by the NCP residual returned lambda = 0 on most of cube_slide's
// sliding steps.
#include <lapacke.h>
#include "interrupt.h"  // a signal ends the iteration (interrupt.h)
#include <math.h>
#include <string.h>

#include "cone.h"
#include "solvers/solver_impl.h"

// residual balancing: act when the scaled residuals differ by more than this factor
static const double kBalance = 5;
// iterations between two changes of rho (each costs a factorization)
static const int kRhoCooldown = 4;
// bounds on rho relative to the largest diagonal entry of G~: far below the spectrum the solve
// amplifies rounding, far above it the iterates barely move
static const double kRhoLo = 1e-8, kRhoHi = 1e3;
// NCP: refresh the de Saxce shift when the shifted CCP residual is below kShiftEta times the NCP
// residual, or after kShiftEvery iterations without a refresh
static const double kShiftEta = 0.3;
static const int kShiftEvery = 20;

// c = G~ x + g (R on the diagonal when present)
static void velocity(const solver_problem* p, const double* x, double* c) {
  int n = 3 * p->nc;
  for (int r = 0; r < n; r++) {
    const double* Gr = p->dense + (size_t)r * n;
    double acc = p->g[r];
    for (int k = 0; k < n; k++) acc += Gr[k] * x[k];
    if (p->R) acc += p->R[r] * x[r];
    c[r] = acc;
  }
}

// the model's residual of z with velocity c: the NCP residual (000 eq. 14, with Gamma(c)) when
// ncp, the CCP residual (eq. 15, Gamma = 0) otherwise; sh (or NULL) is added to c first (the
// shifted CCP); INFINITY when anything is not finite
static double residual(const solver_problem* p, int ncp, const double* z, const double* c,
                       const double* sh) {
  double m = 0;
  for (int i = 0; i < p->nc; i++) {
    double ci[3] = {c[3 * i], c[3 * i + 1], c[3 * i + 2] + (sh ? sh[3 * i + 2] : 0)};
    double a, b, d;
    if (ncp)
      cone_residuals(z + 3 * i, ci, p->mu[i], &a, &b, &d);
    else
      cone_residuals_ccp(z + 3 * i, ci, p->mu[i], &a, &b, &d);
    if (!isfinite(a) || !isfinite(b) || !isfinite(d) || !isfinite(z[3 * i]) ||
        !isfinite(z[3 * i + 1]) || !isfinite(z[3 * i + 2]))
      return INFINITY;
    m = fmax(m, fmax(a, fmax(b, d)));
  }
  return m;
}

// de Saxce's shift s = Gamma(c) = [0, 0, mu |c_T|] per contact (000 eq. 13)
static void desaxce_shift(const solver_problem* p, const double* c, double* sh) {
  for (int i = 0; i < p->nc; i++) {
    const double* ci = c + 3 * i;
    sh[3 * i] = sh[3 * i + 1] = 0;
    sh[3 * i + 2] = p->mu[i] * sqrt(ci[0] * ci[0] + ci[1] * ci[1]);
  }
}

// gamma = -P_N(w), w = c + s, N the normal cone of K_mu at z (the face of z): the dual a
// converged solve holds when z is the solution
static void dual_init(const double z[3], const double w[3], double mu, double gam[3]) {
  double zt = sqrt(z[0] * z[0] + z[1] * z[1]);
  if (z[2] <= 0) {  // apex: N = K* = K_{1/mu} (the half-space w_N >= 0 when mu = 0)
    double pd[3];
    if (mu > 0) {
      cone_project(pd, w, 1 / mu);
    } else {
      pd[0] = w[0];
      pd[1] = w[1];
      pd[2] = w[2] > 0 ? w[2] : 0;
    }
    for (int k = 0; k < 3; k++) gam[k] = -pd[k];
  } else if (zt < mu * z[2] * (1 - 1e-9)) {  // interior: N = {0}
    gam[0] = gam[1] = gam[2] = 0;
  } else if (mu <= 0 || zt <= 0) {  // frictionless ray: N = {(w_T, 0)}
    gam[0] = -w[0];
    gam[1] = -w[1];
    gam[2] = 0;
  } else {  // boundary: N = {t (-z_T/|z_T|, mu), t >= 0}
    double d0 = -z[0] / zt, d1 = -z[1] / zt;
    double t = (w[0] * d0 + w[1] * d1 + w[2] * mu) / (1 + mu * mu);
    if (t < 0) t = 0;
    gam[0] = -t * d0;
    gam[1] = -t * d1;
    gam[2] = -t * mu;
  }
}

// L = chol(G~ + rho I), column-major lower (G is symmetric so its row-major copy is its
// column-major copy); 0 on success
static int factor(const solver_problem* p, double rho, double* L) {
  int n = 3 * p->nc;
  memcpy(L, p->dense, sizeof(double) * (size_t)n * (size_t)n);
  for (int r = 0; r < n; r++) L[(size_t)r * n + r] += rho + (p->R ? p->R[r] : 0);
  lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, L, n);
  if (info != 0) return 1;
  for (int r = 0; r < n; r++)
    if (!isfinite(L[(size_t)r * n + r])) return 1;
  return 0;
}

// forward then back substitution, both down contiguous columns
void solver_chol_solve(int n, const double* L, double* x) {
  // L y = x
  for (int j = 0; j < n; j++) {
    const double* Lj = L + (size_t)j * n;
    double y = x[j] / Lj[j];
    x[j] = y;
    for (int i = j + 1; i < n; i++) x[i] -= Lj[i] * y;
  }
  // L' x = y
  for (int j = n - 1; j >= 0; j--) {
    const double* Lj = L + (size_t)j * n;
    double acc = x[j];
    for (int i = j + 1; i < n; i++) acc -= Lj[i] * x[i];
    x[j] = acc / Lj[j];
  }
}

// largest absolute entry
static double amax(const double* x, int n) {
  double m = 0;
  for (int k = 0; k < n; k++) m = fmax(m, fabs(x[k]));
  return m;
}

// ADMM for the CCP (ncp = 0) or the NCP through the de Saxce fixed point (ncp = 1)
static void admm(solver* s, const solver_problem* p, double* lambda, solver_result* res,
                 int ncp) {
  int nc = p->nc, n = 3 * nc;
  size_t vb = sizeof(double) * (size_t)n;
  double alpha = s->opt.over_relaxation, tol = s->opt.tolerance;
  // q: the model's residual, which chooses the answer; r: the stopping residual, q or under
  // solver.criterion: ncp for the CCP max(q, NCP residual) (see the top of the file)
  int twice = !ncp && solver_stop_ncp(s);
  // scratch: the factor (n x n), then vectors of n
  double* L = s->work;
  double* v = s->work + (size_t)n * (size_t)n;
  double* z = v;             // projected iterate (the answer)
  double* zp = v + n;        // previous z
  double* gam = v + 2 * n;   // dual: -(c + s) at convergence
  double* c = v + 3 * n;     // G~ z + g
  double* sh = v + 4 * n;    // de Saxce shift (zero for the CCP)
  double* x = v + 5 * n;     // unprojected (then relaxed) iterate l
  double* best = v + 6 * n;  // iterate with the smallest model residual so far
  double* c0 = v + 7 * n;    // velocity at z = 0 (= g)

  // rho from the previous call, within bounds set by the scale of G~
  double dmax = 0;
  for (int k = 0; k < n; k++) dmax = fmax(dmax, p->dense[(size_t)k * n + k] + (p->R ? p->R[k] : 0));
  if (!(dmax > 0) || !isfinite(dmax)) dmax = 1;
  double rho_lo = kRhoLo * dmax, rho_hi = kRhoHi * dmax;
  double rho = s->admm_rho > 0 ? s->admm_rho : s->opt.rho;
  rho = fmin(fmax(rho, rho_lo), rho_hi);

  // warm start z = proj_K(lambda), or zero when zero has the smaller q (c = g there: no product)
  for (int i = 0; i < nc; i++) cone_project(z + 3 * i, lambda + 3 * i, p->mu[i]);
  velocity(p, z, c);
  double q = residual(p, ncp, z, c, NULL);
  double r = twice ? fmax(q, residual(p, 1, z, c, NULL)) : q;
  if (!(r <= tol)) {
    memset(best, 0, vb);
    memcpy(c0, p->g, vb);
    double q0 = residual(p, ncp, best, c0, NULL);
    if (!(q <= q0)) {
      q = q0;
      r = twice ? fmax(q0, residual(p, 1, best, c0, NULL)) : q0;
      memset(z, 0, vb);
      memcpy(c, c0, vb);
    }
  }
  res->iterations = 0;
  if (r <= tol) {  // a converged guess costs no iteration
    memcpy(lambda, z, vb);
    res->residual = r;
    res->converged = 1;
    return;
  }
  // shift and dual on the face of z
  if (ncp)
    desaxce_shift(p, c, sh);
  else
    memset(sh, 0, vb);
  for (int i = 0; i < nc; i++) {
    double w[3] = {c[3 * i], c[3 * i + 1], c[3 * i + 2] + sh[3 * i + 2]};
    dual_init(z + 3 * i, w, p->mu[i], gam + 3 * i);
    // the previous step's dual of the same contact (matched by id by the caller), when given
    const double* dw = s->dual_in ? s->dual_in + 3 * i : NULL;
    if (dw && isfinite(dw[0]) && isfinite(dw[1]) && isfinite(dw[2]))
      memcpy(gam + 3 * i, dw, 3 * sizeof(double));
  }

  double qbest = q, rbest = r;  // the best iterate by q, and its stopping residual
  memcpy(best, z, vb);
  int it = 0, last_change = 0, last_shift = 0;
  int ok = !factor(p, rho, L);  // 0: non-finite or indefinite input, no iteration on it
  while (ok && it < s->opt.max_iterations && !intr_requested()) {
    it++;
    // l = (G~ + rho I)^-1 (rho z - gamma - g - s)      (Alg. 3 line 3)
    for (int k = 0; k < n; k++) x[k] = rho * z[k] - gam[k] - p->g[k] - sh[k];
    solver_chol_solve(n, L, x);
    // relaxed l, projection, dual ascent (lines 4-5)
    memcpy(zp, z, vb);
    for (int i = 0; i < nc; i++) {
      double w[3];
      for (int k = 0; k < 3; k++) {
        int j = 3 * i + k;
        x[j] = alpha * x[j] + (1 - alpha) * zp[j];
        w[k] = x[j] + gam[j] / rho;
      }
      cone_project(z + 3 * i, w, p->mu[i]);
      for (int k = 0; k < 3; k++) gam[3 * i + k] += rho * (x[3 * i + k] - z[3 * i + k]);
    }
    // the stopping and the model's residuals at z
    velocity(p, z, c);
    q = residual(p, ncp, z, c, NULL);
    r = twice ? fmax(q, residual(p, 1, z, c, NULL)) : q;
    if (r <= tol || !isfinite(r)) break;
    if (q < qbest) {
      qbest = q;
      rbest = r;
      memcpy(best, z, vb);
    }
    // NCP: refresh the shift once the shifted CCP is solved well enough (or periodically)
    if (ncp && (residual(p, 0, z, c, sh) <= kShiftEta * r || it - last_shift >= kShiftEvery)) {
      desaxce_shift(p, c, sh);
      last_shift = it;
    }
    // residual balancing on the scaled primal |l - z| and dual rho |z - z_prev| residuals
    if (s->opt.rho_adaptive && it - last_change >= kRhoCooldown) {
      double dp = 0, dd = 0, sq = 0, sgz = 0;
      for (int k = 0; k < n; k++) {
        dp = fmax(dp, fabs(x[k] - z[k]));
        dd = fmax(dd, fabs(z[k] - zp[k]));
        sq = fmax(sq, fabs(p->g[k] + sh[k]));
        sgz = fmax(sgz, fabs(c[k] - p->g[k]));
      }
      double prim = dp / fmax(fmax(amax(z, n), amax(x, n)), 1e-300);
      double dual = rho * dd / fmax(fmax(amax(gam, n), fmax(sq, sgz)), 1e-300);
      if (prim > kBalance * dual || dual > kBalance * prim) {
        double f = fmin(fmax(sqrt(prim / fmax(dual, 1e-300)), 1e-3), 1e3);
        double nrho = fmin(fmax(rho * f, rho_lo), rho_hi);
        if (nrho != rho) {
          rho = nrho;
          last_change = it;
          ok = !factor(p, rho, L);
        }
      }
    }
  }
  if (!(r <= tol) && !(q <= qbest)) {  // not converged: the best iterate seen by the model's q
    r = rbest;
    memcpy(z, best, vb);
  }
  memcpy(lambda, z, vb);
  memcpy(s->dual_out, gam, vb);  // carried to the next step by contact id
  s->admm_rho = rho;
  res->iterations = it;
  res->residual = r;
  res->converged = r <= tol;
}

void solver_ccp_admm(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  admm(s, p, lambda, res, 0);
}

void solver_ncp_admm(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  admm(s, p, lambda, res, 1);
}
