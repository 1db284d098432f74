// ncp_newton.c — the NCP (000 eq. 14) by a semismooth Newton method on Alart & Curnier's
// function (Alart & Curnier 1991, "A mixed formulation for frictional contact problems prone to
// Newton like solution methods"; the method of Siconos's NSN_AC, read for the method only: our
// own derivation and code). solver.name newton under contact.model ncp.
//
// Why Alart-Curnier and not Fischer-Burmeister for the cone: its zones are those of the
// projections csim's other NCP solvers already make (the half-line for the normal, the disc of
// radius mu lambda_N for the tangent, 000 Alg. 5), its generalized Jacobian is piecewise constant
// except on the sliding zone's rank-one term (so a Newton step on a sticking or separating
// contact is exact), and it is the function Siconos's NSN_AC and PROX use, which take 3-12
// iterations on the FCLib files where PGS takes thousands (issue 26). The cone's
// Fischer-Burmeister function (Hayashi, Yamashita & Fukushima 2005) needs spectral factors of
// 3-vectors and is smooth where AC is not, but its Jacobian is dense in every zone.
//
// Per contact ([t1 t2 n] rows, velocity u = (G + R) lambda + g, per-contact scales rho_N, rho_T
// > 0: 1 / the diagonal of G + R), with z_N = lambda_N - rho_N u_N and z_T = lambda_T - rho_T u_T:
//   phi_N = lambda_N - max(0, z_N)
//   phi_T = lambda_T - P_D(z_T),  D the disc of radius mu max(0, z_N) (Alart-Curnier's own
//           radius: the augmented normal impulse)
// phi = 0 exactly at an NCP solution (Signorini: lambda_N >= 0, u_N >= 0, lambda_N u_N = 0;
// Coulomb with maximum dissipation: lambda_T in the disc of mu lambda_N, opposite to u_T when
// sliding, u_T = 0 when sticking; the De Saxce form of 000 eq. 14 has the same solutions).
// Its generalized Jacobian is J = A + B (G + R) with 3x3 blocks per contact, three zones:
//   separating (z_N <= 0): phi = lambda, A = I, B = 0;
//   sticking (|z_T| <= mu z_N): phi = (rho_T u_T, rho_N u_N), A = 0, B = diag(rho_T, rho_T, rho_N);
//   sliding: phi_N as sticking; with w = z_T / |z_T| and Gam = (mu z_N / |z_T|)(I - w w'):
//     A_TT = I - Gam, A_TN = -mu w, B_TT = rho_T Gam, B_TN = mu rho_N w.
// The iteration (one island of the problem, its G dense: a dense family, solver.c solver_islands):
//   1. u = (G + R) lambda + g afresh; stop when the NCP stopping residual (solver_ncp_stop_on: the
//      one every ncp solver stops on, eps_abs or the natural residual) is below the tolerance;
//   2. d from (A + B (G + R + delta D)) d = -phi by LU with partial pivoting (dense_lu.h, LAPACK
//      dgetrf past DENSE_LU_MAX rows; the matrix is not symmetric), D = diag(G + R): the proximal term delta D keeps the system
//      solvable where contacts stick on a rank-deficient G (several contacts between two bodies,
//      a hyperstatic stack: there A + B G is singular, which is why Siconos's PROX wraps NSN_AC
//      in a proximal point loop); delta shrinks tenfold after a full step and grows tenfold after
//      a failed line search, within [kDeltaMin, kDeltaMax];
//   3. globalization: Armijo backtracking on the merit Psi = 1/2 |phi|^2 along d
//      (Psi(lambda + t d) <= (1 - 2 sigma t) Psi(lambda), t halved down to kStepMin; u moves
//      along (G + R) d, one product per iteration); when it fails the fallback is kFallbackSweeps
//      projected Gauss-Seidel sweeps on the island (000 Alg. 5, as pgs.c), which need no
//      descent property of d, so the method never stalls without progress nor diverges;
//   4. the answer is the iterate of the smallest stopping residual (warm start and zero
//      compared first, as every solver does: solver.h), converged only when it passes the
//      tolerance; the iteration cap and a signal end it like the other solvers.
// Limits: condim 4/6 pairs (solver_problem link) and box entries (a joint's dry friction) are
// not modelled: refused at load (io/compile.c, solver_spin_supported), and a solve given one
// reports an infinite residual and leaves lambda as given. The LU is dense: O((3n)^3) per
// iteration for an island of n contacts, its matrix in the work's first square (the island's
// rows bounded as every dense family's: solver_options island_rows). Over-relaxation does not
// apply. No dual variable (solver_dual NaN).
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/interrupt.h"
#include "core/solvers/cone.h"
#include "core/solvers/dense_lu.h"
#include "core/solvers/solver_impl.h"

// Armijo's sufficient decrease, the smallest step of the backtracking
static const double kSigma = 1e-4, kStepMin = 1.0 / 1024;
// the proximal term's relative weight: start, bounds
static const double kDelta0 = 1e-6, kDeltaMin = 1e-12, kDeltaMax = 1;
// projected Gauss-Seidel sweeps of the fallback
enum { kFallbackSweeps = 3 };

// the family's private state, sized for maxc contacts at create
typedef struct {
  int maxc;
  lapack_int* ipiv;  // (3 maxc) the LU's pivots
  double* rho;       // (2 maxc) rho_T, rho_N per contact
  double* A;         // (9 maxc) dphi / dlambda per contact (row-major)
  double* B;         // (9 maxc) dphi / du per contact (row-major)
  double *phi, *d, *wd, *lt, *ut, *u, *best, *dg;  // (3 maxc) each
} ncpn_state;

static ncpn_state* ncpn_of(const solver* s) {
  return (ncpn_state*)s->priv;
}

static size_t ncpn_bytes(const solver_options* o, int maxc) {
  (void)o;
  size_t n3 = 3 * (size_t)(maxc > 0 ? maxc : 1);
  return sizeof(ncpn_state) + n3 * sizeof(lapack_int) + (2 * n3 / 3 + 6 * n3 + 8 * n3) * sizeof(double);
}

static void ncpn_destroy(void* priv) {
  ncpn_state* t = priv;
  if (!t) return;
  free(t->ipiv);
  free(t->rho);  // every double array is carved from this one
  free(t);
}

static void* ncpn_create(const solver_options* o, int maxc) {
  (void)o;
  ncpn_state* t = calloc(1, sizeof(*t));
  if (!t) return NULL;
  size_t n3 = 3 * (size_t)(maxc > 0 ? maxc : 1);
  t->maxc = maxc;
  t->ipiv = calloc(n3, sizeof(lapack_int));
  t->rho = calloc(2 * n3 / 3 + 6 * n3 + 8 * n3, sizeof(double));
  if (!t->ipiv || !t->rho) {
    ncpn_destroy(t);
    return NULL;
  }
  t->A = t->rho + 2 * n3 / 3;
  t->B = t->A + 3 * n3;
  double** v[8] = {&t->phi, &t->d, &t->wd, &t->lt, &t->ut, &t->u, &t->best, &t->dg};
  for (int k = 0; k < 8; k++) *v[k] = t->B + 3 * n3 + (size_t)k * n3;
  return t;
}

const solver_family solver_family_ncp_newton = {
    .bytes = ncpn_bytes,
    .create = ncpn_create,
    .destroy = ncpn_destroy,
};

// Alart-Curnier's function of one contact (header): phi (3) from lambda l and velocity u, and
// when A is not NULL the generalized Jacobian's blocks A, B (3x3 row-major, rows [t1 t2 n])
static void ac_contact(const double l[3], const double u[3], double mu, double rt, double rn,
                       double phi[3], double* A, double* B) {
  double zn = l[2] - rn * u[2], z0 = l[0] - rt * u[0], z1 = l[1] - rt * u[1];
  if (A) {
    memset(A, 0, 9 * sizeof(double));
    memset(B, 0, 9 * sizeof(double));
  }
  if (!(zn > 0)) {  // separating: the projections are 0
    phi[0] = l[0], phi[1] = l[1], phi[2] = l[2];
    if (A) A[0] = A[4] = A[8] = 1;
    return;
  }
  phi[2] = rn * u[2];
  if (A) B[8] = rn;
  double rad = mu * zn, nz = sqrt(z0 * z0 + z1 * z1);
  if (nz <= rad) {  // sticking: the disc's projection is the identity
    phi[0] = rt * u[0], phi[1] = rt * u[1];
    if (A) B[0] = B[4] = rt;
    return;
  }
  double w0 = z0 / nz, w1 = z1 / nz;  // sliding: radially onto the disc's edge
  phi[0] = l[0] - rad * w0, phi[1] = l[1] - rad * w1;
  if (!A) return;
  double q = rad / nz;  // Gam = q (I - w w')
  double g00 = q * (1 - w0 * w0), g01 = -q * w0 * w1, g11 = q * (1 - w1 * w1);
  A[0] = 1 - g00, A[1] = -g01, A[2] = -mu * w0;
  A[3] = -g01, A[4] = 1 - g11, A[5] = -mu * w1;
  B[0] = rt * g00, B[1] = rt * g01, B[2] = mu * rn * w0;
  B[3] = rt * g01, B[4] = rt * g11, B[5] = mu * rn * w1;
}

// u = (G + R) l + g on the island's dense G (3n x 3n row-major)
static void velocity(const solver_problem* p, const double* l, double* u) {
  int N = 3 * p->nc;
  for (int k = 0; k < N; k++) {
    const double* row = p->dense + (size_t)k * N;
    double sum = 0;
    for (int j = 0; j < N; j++) sum += row[j] * l[j];
    u[k] = p->g[k] + (p->R ? p->R[k] * l[k] : 0) + sum;
  }
}

// the merit Psi = 1/2 |phi|^2 at l with velocity u (phi into phi; Jacobian blocks when jac)
static double merit(const ncpn_state* t, const solver_problem* p, const double* l,
                    const double* u, double* phi, int jac) {
  double psi = 0;
  for (int i = 0; i < p->nc; i++) {
    ac_contact(l + 3 * i, u + 3 * i, p->mu[i], t->rho[2 * i], t->rho[2 * i + 1], phi + 3 * i,
               jac ? t->A + 9 * i : NULL, jac ? t->B + 9 * i : NULL);
    for (int r = 0; r < 3; r++) psi += phi[3 * i + r] * phi[3 * i + r];
  }
  return 0.5 * psi;
}

// M (3n x 3n row-major) = A + B (G + R + delta diag(G + R)): J's rows contiguous; LAPACK reads M
// column-major as J' (solved transposed, dgetrs 'T')
static void jacobian(const ncpn_state* t, const solver_problem* p, double delta, double* M) {
  int N = 3 * p->nc;
  for (int i = 0; i < p->nc; i++) {
    const double *A = t->A + 9 * i, *B = t->B + 9 * i;
    for (int a = 0; a < 3; a++) {
      double* m = M + (size_t)(3 * i + a) * N;
      memset(m, 0, sizeof(double) * (size_t)N);
      for (int b = 0; b < 3; b++) {
        double w = B[3 * a + b];
        if (w == 0) continue;
        int k = 3 * i + b;
        const double* row = p->dense + (size_t)k * N;  // row k of G (J = A + B G)
        for (int j = 0; j < N; j++) m[j] += w * row[j];
        m[k] += w * (1 + delta) * (p->R ? p->R[k] : 0) + w * delta * row[k];
      }
      for (int b = 0; b < 3; b++) m[3 * i + b] += A[3 * a + b];
    }
  }
}

// d := J^-1 d for J = M (row-major), destroyed: small systems by dense_lu.h, larger by LAPACK
// (M read column-major as J', solved transposed); nonzero when singular
static lapack_int lu_solve(int N, double* M, double* d, lapack_int* ipiv) {
  if (N <= DENSE_LU_MAX) return dense_lu_solve(N, M, d);
  lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, N, N, M, N, ipiv);
  return info ? info : LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', N, 1, M, N, ipiv, d, N);
}

// one projected Gauss-Seidel sweep on the island (000 Alg. 5 as pgs.c, no over-relaxation), u
// kept up to date from G's columns (an FCLib W need not be symmetric)
static void pgs_sweep(const solver_problem* p, double* l, double* u) {
  int N = 3 * p->nc;
  const double* G = p->dense;
  for (int i = 0; i < p->nc; i++) {
    double* li = l + 3 * i;
    double dkk[3];
    for (int r = 0; r < 3; r++)
      dkk[r] = G[(size_t)(3 * i + r) * N + 3 * i + r] + (p->R ? p->R[3 * i + r] : 0);
    double old[3] = {li[0], li[1], li[2]};
    double ln = dkk[2] > 0 ? li[2] - u[3 * i + 2] / dkk[2] : li[2];
    if (!(ln > 0)) ln = 0;
    double dn = ln - old[2];
    double big = dkk[0] > dkk[1] ? dkk[0] : dkk[1], st = big > 0 ? 1 / big : 0;
    double t0 = li[0] - st * (u[3 * i] + G[(size_t)(3 * i) * N + 3 * i + 2] * dn);
    double t1 = li[1] - st * (u[3 * i + 1] + G[(size_t)(3 * i + 1) * N + 3 * i + 2] * dn);
    double r = p->mu[i] * ln, tn = sqrt(t0 * t0 + t1 * t1);
    if (tn > r) {
      double f = tn > 0 ? r / tn : 0;
      t0 *= f, t1 *= f;
    }
    li[0] = t0, li[1] = t1, li[2] = ln;
    double dl[3] = {t0 - old[0], t1 - old[1], dn};
    for (int b = 0; b < 3; b++) {
      if (dl[b] == 0) continue;
      for (int j = 0; j < N; j++) u[j] += G[(size_t)j * N + 3 * i + b] * dl[b];
      if (p->R) u[3 * i + b] += p->R[3 * i + b] * dl[b];
    }
  }
}

// the island's stopping residual at l with its exact velocity u (solver_ncp_stop_on)
static double stop_residual(const solver* s, const solver_problem* p, const double* l,
                            const double* u) {
  solver_result r = {0};
  solver_ncp_stop_on(s, p, l, u, NULL, p->nc, &r);
  return r.eps_abs;
}

// mu = 0 (a frictionless contact, a joint limit's inert tangent rows): lambda_T = 0 exactly,
// phi_T's root in every zone, which the LU's rounding would otherwise leave at 1e-16 (solver.h)
static void frictionless_exact(const solver_problem* p, double* l) {
  for (int i = 0; i < p->nc; i++)
    if (p->mu[i] == 0) l[3 * i] = l[3 * i + 1] = 0;
}

// a condim 4/6 pair or a box entry: not modelled (header)
static int unsupported(const solver_problem* p) {
  if (p->link || p->rpy) return 1;
  if (p->box)
    for (int i = 0; i < p->nc; i++)
      if (p->box[i]) return 1;
  return 0;
}

void solver_ncp_newton(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  ncpn_state* t = ncpn_of(s);
  int n = p->nc, N = 3 * n;
  res->iterations = 0;
  s->c_fresh = 0;
  if (unsupported(p) || !p->dense || n > t->maxc) {
    res->converged = 0;
    res->residual = INFINITY;
    return;
  }
  double tol = s->opt.tolerance, *u = t->u, *M = s->work;
  for (int i = 0; i < n; i++) {  // rho: 1 / the diagonal of G + R (the tangent's larger one)
    double d[3];
    for (int r = 0; r < 3; r++)
      d[r] = p->dense[(size_t)(3 * i + r) * N + 3 * i + r] + (p->R ? p->R[3 * i + r] : 0);
    double dt = d[0] > d[1] ? d[0] : d[1];
    t->rho[2 * i] = dt > 0 ? 1 / dt : 1;
    t->rho[2 * i + 1] = d[2] > 0 ? 1 / d[2] : 1;
  }
  // warm start or zero, whichever has the smaller stopping residual (solver.h)
  frictionless_exact(p, lambda);
  velocity(p, lambda, u);
  double rw = stop_residual(s, p, lambda, u);
  for (int k = 0; k < N; k++) t->lt[k] = 0;
  double r0 = stop_residual(s, p, t->lt, p->g);
  if (r0 < rw || isnan(rw)) {
    memset(lambda, 0, sizeof(double) * (size_t)N);
    memcpy(u, p->g, sizeof(double) * (size_t)N);
    rw = r0;
  }
  double best = rw, delta = kDelta0;
  memcpy(t->best, lambda, sizeof(double) * (size_t)N);
  int it = 0;
  double r = rw;
  // NaN data never converges: stop at once, the NaN reported (solver_result)
  while (r > tol && it < s->opt.max_iterations && !intr_requested()) {
    it++;
    double psi = merit(t, p, lambda, u, t->phi, 1);
    jacobian(t, p, delta, M);
    int stepped = 0;
    for (int k = 0; k < N; k++) t->d[k] = -t->phi[k];
    lapack_int info = lu_solve(N, M, t->d, t->ipiv);
    if (info == 0) {
      // u moves along (G + R) d: one product, then each trial costs O(n)
      for (int k = 0; k < N; k++) t->dg[k] = 0;
      velocity(p, t->d, t->wd);
      for (int k = 0; k < N; k++) t->wd[k] -= p->g[k];
      for (double st = 1; st >= kStepMin; st *= 0.5) {
        for (int k = 0; k < N; k++) {
          t->lt[k] = lambda[k] + st * t->d[k];
          t->ut[k] = u[k] + st * t->wd[k];
        }
        double pt = merit(t, p, t->lt, t->ut, t->dg, 0);
        if (pt <= (1 - 2 * kSigma * st) * psi) {
          memcpy(lambda, t->lt, sizeof(double) * (size_t)N);
          stepped = st == 1 ? 2 : 1;
          break;
        }
      }
    }
    if (stepped == 2 && delta > kDeltaMin) delta *= 0.1;
    if (!stepped) {  // the fallback (header, 3.): sweeps from an exact u
      if (delta < kDeltaMax) delta *= 10;
      velocity(p, lambda, u);
      for (int k = 0; k < kFallbackSweeps; k++) pgs_sweep(p, lambda, u);
    }
    frictionless_exact(p, lambda);
    velocity(p, lambda, u);
    r = stop_residual(s, p, lambda, u);
    if (r < best || (isnan(best) && !isnan(r))) {
      best = r;
      memcpy(t->best, lambda, sizeof(double) * (size_t)N);
    }
  }
  if (!(r == best)) {  // hand back the best iterate, its velocity exact
    memcpy(lambda, t->best, sizeof(double) * (size_t)N);
    velocity(p, lambda, u);
  }
  memcpy(s->c, u, sizeof(double) * (size_t)N);
  s->c_fresh = 1;
  res->iterations = it;
  res->residual = best;
  res->converged = best <= tol;
}
