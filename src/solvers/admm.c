// admm.c — ADMM for the cone complementarity problem (000 Alg. 3) and, with de Saxce's fixed
// point inline, for the exact NCP (000 Sec. III, eq. 14).
//
// Splitting of min 1/2 l'G~l + (g + s)'l + I_K(z) s.t. l = z (G~ = G + diag(R), 000 eq. 19 with
// MuJoCo-like compliance), augmented Lagrangian with dual gamma and penalty rho:
//   l     <- -(G~ + rho I)^-1 (g + s - rho z + gamma)      Alg. 3 line 3 (Cholesky, LAPACK)
//   lh    <- alpha l + (1 - alpha) z                       over-relaxation (000 eq. 22, Boyd 3.4.3)
//   z     <- proj_K(lh + gamma / rho)                      line 4
//   gamma <- gamma + rho (lh - z)                          line 5
// At a fixed point l = z and gamma = -(G~ z + g + s), so z ∈ K ⊥ c + s ∈ K* (Moreau): with s = 0
// that is the CCP (eq. 15); with s = Gamma(c) = [0, 0, mu |c_T|] recomputed from the current
// iterate every iteration it is the NCP (eq. 14 through de Saxce's bipotential, eq. 13).
// rho is adapted by residual balancing (000 Sec. III, [68]; Boyd et al. 2011 Sec. 3.4.1): when the
// scaled primal residual |l - z| exceeds kBalance times the scaled dual residual rho |z - z_prev|
// rho grows by kRhoFactor, in the opposite case it shrinks; the factor is redone only then.
// Warm start: z from the lambda given, gamma = -proj_K*(c + s) at that z (the dual a converged
// solve would hold: see the header of the tests for the measured effect), rho kept in the
// solver across calls.
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "cone.h"
#include "solvers/solver_impl.h"

// residual balancing: act when one scaled residual exceeds the other by kBalance
static double kBalance = 10;
// multiplicative change of rho
static double kRhoFactor = 5;
// iterations between two changes of rho (each costs a factorization)
static int kRhoCooldown = 4;
// bounds on rho
static double kRhoLo = 1e-6, kRhoHi = 1e3;  // relative to the largest diagonal entry of G~
static int kGamInit = 0;  // TUNING
static int kNorm = 0;  // TUNING
static int kDbl = 0;  // TUNING
static int kSV = 0, kSK = 1;  // TUNING
static double kEta = 0.1;  // TUNING
#include <stdlib.h>
#include <stdio.h>
static void tune(void) {  // TUNING
  const char* e;
  if ((e = getenv("ADMM_BAL"))) kBalance = atof(e);
  if ((e = getenv("ADMM_FAC"))) kRhoFactor = atof(e);
  if ((e = getenv("ADMM_COOL"))) kRhoCooldown = atoi(e);
  if ((e = getenv("ADMM_GAM"))) kGamInit = atoi(e);
  if ((e = getenv("ADMM_NORM"))) kNorm = atoi(e);
  if ((e = getenv("ADMM_DBLC"))) kDbl = atoi(e);
  if ((e = getenv("ADMM_SV"))) kSV = atoi(e);
  if ((e = getenv("ADMM_SK"))) kSK = atoi(e);
  if ((e = getenv("ADMM_ETA"))) kEta = atof(e);
  if ((e = getenv("ADMM_RLO"))) kRhoLo = atof(e);
  if ((e = getenv("ADMM_RHI"))) kRhoHi = atof(e);
}

// c = G~ x + g (R on the diagonal when present)
static void velocity(const solver_problem* p, const double* x, double* c) {
  int n = 3 * p->nc;
  for (int r = 0; r < n; r++) {
    const double* Gr = p->G + (size_t)r * n;
    double acc = p->g[r];
    for (int k = 0; k < n; k++) acc += Gr[k] * x[k];
    if (p->R) acc += p->R[r] * x[r];
    c[r] = acc;
  }
}

// the CCP's own residual (000 eq. 15, Gamma = 0): max over contacts of dist_K(z), dist_K*(c),
// |<z, c>|
static double ccp_residual(const solver_problem* p, const double* z, const double* c) {
  double m = 0;
  for (int i = 0; i < p->nc; i++) {
    double a, b, d;
    cone_residuals_ccp(z + 3 * i, c + 3 * i, p->mu[i], &a, &b, &d);
    if (a > m) m = a;
    if (b > m) m = b;
    if (d > m) m = d;
    if (a != a || b != b || d != d) return NAN;
  }
  return m;
}

// the model's residual at z; fills c = G~ z + g
static double model_residual(const solver_problem* p, int ncp, const double* z, double* c) {
  if (ncp) {
    solver_result r;
    solver_residuals(p, z, c, &r);  // 000 eq. 14 on c = G~ z + g
    return r.eps_abs;
  }
  velocity(p, z, c);
  return ccp_residual(p, z, c);
}

// de Saxce's shift s = Gamma(c) = [0, 0, mu |c_T|] per contact (000 eq. 13)
static void desaxce_shift(const solver_problem* p, const double* c, double* sh) {
  for (int i = 0; i < p->nc; i++) {
    const double* ci = c + 3 * i;
    sh[3 * i] = sh[3 * i + 1] = 0;
    sh[3 * i + 2] = p->mu[i] * sqrt(ci[0] * ci[0] + ci[1] * ci[1]);
  }
}

// L = chol(G~ + rho I), column-major lower (G is symmetric so its row-major copy is its
// column-major copy); 0 on success
static int factor(const solver_problem* p, double rho, double* L) {
  int n = 3 * p->nc;
  memcpy(L, p->G, sizeof(double) * (size_t)n * (size_t)n);
  for (int r = 0; r < n; r++) L[(size_t)r * n + r] += rho + (p->R ? p->R[r] : 0);
  lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, L, n);
  if (info != 0) return 1;
  for (int r = 0; r < n; r++)
    if (!isfinite(L[(size_t)r * n + r])) return 1;
  return 0;
}

// forward then back substitution
void solver_chol_solve(int n, const double* L, double* x) {
  // L y = x, column oriented (contiguous columns)
  for (int j = 0; j < n; j++) {
    const double* Lj = L + (size_t)j * n;
    double y = x[j] / Lj[j];
    x[j] = y;
    for (int i = j + 1; i < n; i++) x[i] -= Lj[i] * y;
  }
  // L' x = y, dot products down the columns
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
  for (int k = 0; k < n; k++) {
    double a = fabs(x[k]);
    if (a > m) m = a;
  }
  return m;
}

// ADMM for the CCP (ncp = 0) or the NCP through the de Saxce fixed point (ncp = 1)
static void admm(solver* s, const solver_problem* p, double* lambda, solver_result* res,
                 int ncp) {
  tune();
  int nc = p->nc, n = 3 * nc;
  if (getenv("ADMM_DUMP")) {  // TUNING
    FILE* f = fopen(getenv("ADMM_DUMP"), "ab");
    int hdr[2] = {nc, p->R != NULL};
    fwrite(hdr, sizeof(int), 2, f);
    fwrite(p->G, sizeof(double), (size_t)n * n, f);
    fwrite(p->g, sizeof(double), (size_t)n, f);
    fwrite(p->mu, sizeof(double), (size_t)nc, f);
    if (p->R) fwrite(p->R, sizeof(double), (size_t)n, f);
    fwrite(lambda, sizeof(double), (size_t)n, f);
    fclose(f);
  }
  double alpha = s->opt.over_relaxation, tol = s->opt.tolerance;
  // scratch: the factor, then vectors of n
  double* L = s->work;
  double* v = s->work + (size_t)n * (size_t)n;
  double* z = v;            // projected iterate (the answer)
  double* zp = v + n;       // previous z
  double* gam = v + 2 * n;  // dual (-velocity at convergence)
  double* c = v + 3 * n;    // G~ z + g
  double* sh = v + 4 * n;   // de Saxce shift (zero for the CCP)
  double* x = v + 5 * n;    // unprojected iterate l
  double* best = v + 6 * n;  // iterate with the smallest residual so far
  // bounds on rho from the scale of G~: far below its spectrum the null-space components of the
  // right-hand side are amplified by 1/rho; far above it the iterates barely move
  double dmax = 0;
  for (int k = 0; k < n; k++) {
    double d = p->G[(size_t)k * n + k] + (p->R ? p->R[k] : 0);
    if (d > dmax) dmax = d;
  }
  if (!(dmax > 0) || !isfinite(dmax)) dmax = 1;
  double kRhoMin = kRhoLo * dmax, kRhoMax = kRhoHi * dmax;
  double rho = s->admm_rho > 0 ? s->admm_rho : s->opt.rho;
  rho = fmin(fmax(rho, kRhoMin), kRhoMax);

  // warm start: z = proj_K(lambda) and its residual; a converged guess costs no iteration
  for (int i = 0; i < nc; i++) cone_project(z + 3 * i, lambda + 3 * i, p->mu[i]);
  double r = model_residual(p, ncp, z, c);
  res->iterations = 0;
  if (r <= tol) {
    memcpy(lambda, z, sizeof(double) * (size_t)n);
    res->residual = r;
    res->converged = 1;
    return;
  }
  // shift and dual consistent with z: gamma = -proj_K*(c + s), the dual of a converged solve
  if (ncp)
    desaxce_shift(p, c, sh);
  else
    memset(sh, 0, sizeof(double) * (size_t)n);
  for (int i = 0; i < nc; i++) {
    double w[3] = {c[3 * i] + sh[3 * i], c[3 * i + 1] + sh[3 * i + 1], c[3 * i + 2] + sh[3 * i + 2]};
    double mu = p->mu[i];
    double pd[3];
    if (mu > 0) {
      cone_project(pd, w, 1 / mu);  // K* = K_{1/mu}
    } else {
      pd[0] = w[0];
      pd[1] = w[1];
      pd[2] = w[2] > 0 ? w[2] : 0;
    }
    for (int k = 0; k < 3; k++) gam[3 * i + k] = kGamInit == 0 ? -pd[k] : kGamInit == 1 ? -w[k] : 0;
  }

  if (factor(p, rho, L)) {  // non-finite or indefinite input: report, never iterate on NaN
    res->residual = INFINITY;
    res->converged = 0;
    memcpy(lambda, z, sizeof(double) * (size_t)n);
    return;
  }
  int it = 0, last_change = 0, cool = kRhoCooldown;
  double rbest = r;
  memcpy(best, z, sizeof(double) * (size_t)n);
  while (it < s->opt.max_iterations) {
    it++;
    // l = (G~ + rho I)^-1 (rho z - gamma - g - s)      (Alg. 3 line 3)
    for (int k = 0; k < n; k++) x[k] = rho * z[k] - gam[k] - p->g[k] - sh[k];
    solver_chol_solve(n, L, x);
    // relaxed l, projection, dual ascent (lines 4-5)
    memcpy(zp, z, sizeof(double) * (size_t)n);
    for (int i = 0; i < nc; i++) {
      double w[3];
      for (int k = 0; k < 3; k++) {
        int j = 3 * i + k;
        x[j] = alpha * x[j] + (1 - alpha) * zp[j];  // x now holds the relaxed iterate
        w[k] = x[j] + gam[j] / rho;
      }
      cone_project(z + 3 * i, w, p->mu[i]);
      for (int k = 0; k < 3; k++) gam[3 * i + k] += rho * (x[3 * i + k] - z[3 * i + k]);
    }
    // stopping test on the model's residual at z; the NCP's shift follows the new velocity
    r = model_residual(p, ncp, z, c);
    if (getenv("ADMM_DBG")) fprintf(stderr, "it %d r %.3e rho %.3e |z| %.3e\n", it, r, rho, amax(z, n));
    if (r <= tol) break;
    if (r != r) break;  // NaN: give up (the caller sees converged = 0)
    if (r < rbest) {
      rbest = r;
      memcpy(best, z, sizeof(double) * (size_t)n);
    }
    int upd = it % kSK == 0;
    if (ncp && kSV == 2) {  // inner CCP residual with the current shift
      double m = 0;
      for (int i = 0; i < nc; i++) {
        double cs[3] = {c[3 * i], c[3 * i + 1], c[3 * i + 2] + sh[3 * i + 2]}, a1, b1, d1;
        cone_residuals_ccp(z + 3 * i, cs, p->mu[i], &a1, &b1, &d1);
        m = fmax(m, fmax(a1, fmax(b1, d1)));
      }
      upd = m <= kEta * r;
    }
    if (ncp && upd) {
      if (kSV == 1) {  // keep gamma consistent with the moved shift
        double* so = v + 7 * n;
        memcpy(so, sh, sizeof(double) * (size_t)n);
        desaxce_shift(p, c, sh);
        for (int k = 0; k < n; k++) gam[k] -= sh[k] - so[k];
      } else {
        desaxce_shift(p, c, sh);
      }
    }
    // residual balancing: scaled primal |l - z| vs scaled dual rho |z - z_prev|
    if (s->opt.rho_adaptive && it - last_change >= cool) {
      double dp = 0, dd = 0;
      for (int k = 0; k < n; k++) {
        double a = fabs(x[k] - z[k]), b = fabs(z[k] - zp[k]);
        if (a > dp) dp = a;
        if (b > dd) dd = b;
      }
      double sz = amax(z, n), sx = amax(x, n), sg = amax(gam, n);
      double prim = dp / fmax(fmax(sz, sx), 1e-300);
      if (kNorm) {
        double sq = 0, sgz = 0;
        for (int k = 0; k < n; k++) {
          double a = fabs(p->g[k] + sh[k]), b = fabs(c[k] - p->g[k]);
          if (a > sq) sq = a;
          if (b > sgz) sgz = b;
        }
        sg = fmax(sg, fmax(sq, sgz));
      }
      double dual = rho * dd / fmax(sg, 1e-300);
      double nrho = rho;
      if (kRhoFactor > 0) {
      if (prim > kBalance * dual)
        nrho = fmin(rho * kRhoFactor, kRhoMax);
      else if (dual > kBalance * prim)
        nrho = fmax(rho / kRhoFactor, kRhoMin);
      } else if (prim > kBalance * dual || dual > kBalance * prim) {
        double f = sqrt(prim / fmax(dual, 1e-300));
        f = fmin(fmax(f, 1e-3), 1e3);
        nrho = fmin(fmax(rho * f, kRhoMin), kRhoMax);
      }
      if (nrho != rho) {
        rho = nrho;
        last_change = it;
        if (kDbl) cool *= 2;
        if (factor(p, rho, L)) break;
      }
    }
  }
  if (!(r <= tol) && !(r <= rbest)) {  // not converged: hand back the best iterate seen
    r = rbest;
    memcpy(z, best, sizeof(double) * (size_t)n);
  }
  memcpy(lambda, z, sizeof(double) * (size_t)n);
  if (getenv("ADMM_DBG2")) fprintf(stderr, "nc %d it %d rho %.3e dmax %.3e r %.2e\n", nc, it, rho, dmax, r);
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
