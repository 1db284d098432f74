// admm.c — ADMM for the cone complementarity problem (000 Alg. 3) and, with de Saxce's fixed
// point inline, for the exact NCP (000 Sec. III, eq. 14): the proximal ADMM with spectral rho
// updates of Carpentier, Le Lidec, Montaut 2024 ("From Compliant to Rigid Contact Simulation: a
// Unified and Efficient Approach", arXiv 2405.17020; CLM24 below). Our own code; the paper's text
// was not at hand, so its equations are not numbered here, and the constants are the defaults of
// the authors' open-source solver (kRatio, kPowerStep, kPower0, kProx).
//
// Splitting of min 1/2 l'G~l + (g + s)'l + I_K(z) s.t. l = z (G~ = G + diag(R): 000 eq. 19 with
// MuJoCo-like compliance; rigid R = 0 and compliant R > 0 in the same loop, as CLM24), augmented
// Lagrangian with dual gamma, penalty rho and a proximal term prox/2 |l - l_prev|^2:
//   s     <- [0, 0, mu |gamma_T|]                         de Saxce shift from the dual (NCP)
//   l     <- (G~ + (rho + prox) I)^-1 (rho z + prox l_prev - gamma - g - s)   x-step (Cholesky)
//   lh    <- alpha l + (1 - alpha) z                       over-relaxation (000 eq. 22, Boyd 3.4.3)
//   z     <- proj_K(lh + gamma / rho)                      Alg. 3 line 4
//   gamma <- gamma + rho (lh - z)                          line 5
// At a fixed point l = l_prev = z and gamma = -(G~ z + g + s), so z ∈ K ⊥ c + s ∈ K* (Moreau):
// with s = 0 that is the CCP (eq. 15); with s = Gamma(c) = [0, 0, mu |c_T|] the NCP (eq. 14
// through de Saxce's bipotential, eq. 13); -gamma_T = c_T there, so CLM24's change of variable
// (the shift taken from the dual every iteration) costs no product with G.
// A condim 4/6 pair (solver.h link: contact i and its spin entry j) is one cone of the product
// K: K_a of cone.h over its six rows, projected together (cone_ell_project), its shift on i's
// normal ||(a_k gamma_k)|| over the five friction components (Gamma_n of cone.h; none on j's
// rows), its residual the pair's (cone_ell_residuals), its spin rows in a metric of their own
// (pair_scale: a per-row penalty, the projection in that metric). Only the projection, the
// shift, the residual, the penalty and the dual's start see the pair: the x-step's factor (dense,
// banded, sparse, dof space) sees G and a diagonal, whose spin rows are Jacobian rows like a
// contact's.
// Allocation: none in a solve, except the sparse factor's on an island pattern none of the last
// CHOL_CACHE patterns matches (chol_sparse.h): CHOLMOD then analyses the pattern (AMD, the
// symbolic factor) and allocates what the analysis and the pattern's first numeric factor need
// (the first analysis of a solver also makes the cache itself, ~3 KB).
// Acceptable: the fill, so the factor's size, is known only once the pattern is ordered (it
// cannot be sized at solver_create short of the dense n^2 per island); a new pattern means the
// contact set changed between bodies, which on a resting or slowly moving scene is a small
// fraction of steps, and the analysis then costs more than its allocations; every iteration and
// every rho refactorization on a kept pattern allocates nothing (tests/test_admm_sparse.c).
//
// A G that is not symmetric (FCLib's Capsules W: skew part 1e-3 of the largest entry) is split
// into its symmetric part, factored, and its skew part, applied at l_prev on the right-hand side,
// so the fixed point is the NCP of G itself (factoring G's upper triangle instead settled on the
// symmetric part's NCP: Capsules-i122-1617 stalled at eps 8.9e-7 on an exact ADMM fixed point).
//
// rho (CLM24's spectral rule): L is G~'s largest eigenvalue (power iteration; kept for the next
// solves of an island with the same contacts, dofs, trace and largest diagonal of G~ to 1e-6,
// since a resting scene's G barely changes between steps), m = kProx L + min R
// the lower end of the spectrum the rule assumes, cond = L/m; the first call starts at
// rho = sqrt(L m) cond^kPower0, later calls at the power p of the previous answer's rho
// (rho = sqrt(L m) cond^p, p kept in the solver, so it carries across islands and scales). When
// the primal residual |l - z| exceeds kRatio times the dual one |rho dz + prox dl|, rho is
// multiplied by cond^kPowerStep, the converse divides it, and G~ + (rho + prox) I is refactored
// only then (per island: dense, LAPACK dpotrf, in dof space banded, dpbtrf, or sparse, CHOLMOD:
// admm_sparse below; the sparse factor's symbolic analysis is made once per island pattern and
// kept, each refactorization is numeric only). Our departures,
// measured on FCLib (README): the primal residual is compared in velocity units, L |l - z|, when
// L < 1 (the paper's absolute comparison assumes a unit Delassus scale: on LMGC_PerioBox,
// L = 1e-4, it drove rho 1e3-fold up and never converged); the proximal weight of the x-step is
// kProxTerm L, far below kProx L.
//
// Warm start: z = proj_K(lambda), dropped for z = 0 when zero has the smaller residual of the
// model (a guess from another contact configuration can be far worse than nothing). The dual is
// initialized from the face of K that z lies on: gamma = -P_N(c + s) with N the normal cone of K
// at z (0 inside the cone, K* at the apex, the ray t (-z_T/|z_T|, mu) on the boundary), so that
// (z, gamma) is the exact ADMM fixed point when the warm start is the solution, or from the
// previous step's dual of the same contact (solver.warm_dual).
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
#include "core/interrupt.h"  // a signal ends the iteration (interrupt.h)
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/solvers/cone.h"
#include "core/solvers/admm_impl.h"
#include "core/solvers/newton.h"
#include "core/solvers/polish.h"

// One BLAS thread, set before any solve: OpenBLAS splits a large dense factorization (an
// MPC's 192 x 192 problem, controllers/quadruped.c) over threads whose partial sums it adds in
// an order that depends on the core count, so the same scenario gave different bits with 1 and
// 2 threads (csim must write the same numbers on the same build). csim parallelizes across
// runs (sweeps) instead.
void openblas_set_num_threads(int n);
__attribute__((constructor)) static void admm_one_blas_thread(void) { openblas_set_num_threads(1); }

// spectral rule (CLM24; the constants are the defaults of the authors' open-source solver): act
// when the primal and dual residuals differ by more than kRatio, by a factor cond^kPowerStep;
// the first call starts from the power kPower0
static const double kRatio = 10, kPowerStep = 0.05, kPower0 = 0.2;
// the lower bound m = kProx L + min R of the spectrum the rule sees (CLM24's m = mu_prox + min R,
// mu_prox = 1e-6 on a unit scale): sets the initial rho and the step cond^kPowerStep
static const double kProx = 1e-6;
// the proximal weight of the x-step itself, relative to L: kept far below kProx, since an
// interior (sticking) iterate converges as a proximal point method at the rate
// (rho + prox) / (lambda_min + rho + prox), and on the 1e6 mass ratio stack lambda_min is below
// 1e-6 L (prox = 1e-6 L: 359 iterations; 1e-10 L: under 200)
static const double kProxTerm = 1e-10;
// power iterations for the largest eigenvalue of G~
static const int kPowerIt = 20;
// an island's L is reused while the trace and the largest diagonal entry of G~ stay within this
// (relative) of those it was computed for (eig_cached)
static const double kEigReuse = 1e-6;
// the dof-space factor is banded when the island's bandwidth kd is at most nd / kBandRatio
// (O(nd kd^2) against O(nd^3 / 3); measured on a 4-cube stack, nd = 24, kd = 11: banded 3% fewer
// instructions per step than LAPACK's dense dpotrf; the inline loop beats both there: kBandMin)
static const int kBandRatio = 2;
// the island factor (admm_band, then admm_sparse): banded when the band is narrow, kd <= nd /
// kBandRatio, and, on an island of at least kSparseMin rows, also kd <= nd / kBandWide (a chain
// of trees: a stack's kd is two bodies' dofs whatever its height); else sparse (CHOLMOD) from
// kSparseMin rows (dofs in dof space, 3 per contact in contact space) on when CHOLMOD's flop
// count times kSparseFlops is below the dense n^3 / 3 and nnz(L) times kSparseNnz below n^2 / 2;
// else dense. Measured with callgrind (instructions in solver_solve). With the work fixed (10
// steps of 200 ADMM iterations, so each factor is refactored and solved as often): stack of 4
// (nd 24, kd 11) dense 50.5M, sparse 52.5M, banded 56.7M; stack of 8 (48, 11) sparse 108.6M,
// dense 113.8M, banded 115.0M; stack of 16 (96, 11) sparse 220.6M, banded 231.6M, dense 272.0M;
// pile of 16 boxes (96, kd 29) sparse 432.6M, dense 450.8M, banded 460.3M. On whole runs a
// resting stack converges in under one iteration per step on average, so the set-up and the
// factorization count, not the solves: stack of 8, 300 steps, banded 48.3M against sparse
// 88.8M (the sparse pattern, its entry map and CHOLMOD's numeric LDL' against dpbtrf). Hence the
// band stays on chains and the sparse factor takes the wide bands (the pile) and what has none
static const int kSparseMin = 32, kBandWide = 4;
static const double kSparseFlops = 4, kSparseNnz = 2;
// the dense dof-space factor of at most this many dofs is the inline loop's (newton_chol_small),
// above it LAPACK's dpotrf (blocked, its level-3 kernels: on chain_40's 45 dofs the loop saved
// nothing, 2.673e6 Ir/step with dpotrf)
static const int kCholSmall = 32;
// auto: an island of at most this many dofs is factored densely by that loop even when a band
// would do (dpbtrf and dpbtrs cost more in calls than the band saves: a 4-cube stack, nd 24,
// kd 11, ncp/auto, 168.7e3 -> 149.5e3 instructions per step)
static const int kBandMin = 24;
// bounds on rho relative to L (a safeguard on the rule):
// far below the spectrum the solve amplifies rounding, far above it the iterates barely move
static const double kRhoLo = 1e-8, kRhoHi = 1e3;

// G~ as the iteration sees it: the dense rows of an island (p->dense), or its factored form
// G = Y Y' + diag(ydiag) in the island's nd dofs (p->Y, solver.h), whose products cost O(nnz Y)
// and whose x-step is factored in dof space (Woodbury, below)
typedef struct {
  const solver_problem* p;
  int n;       // 3 nc
  int nd;      // dofs of the factored form, 0 when dense
  int kd;      // factored form: the lower bandwidth of I + Y' A^-1 Y when its factor is banded
               // (LAPACK band storage, nd x (kd + 1), dofs in the order perm), -1 when dense
  const int* perm;  // (nd) banded: each dof's position in the band (band_order)
  const int* cord;  // (nc x ystride) banded: each contact's entries by ascending position
  double* A;   // (n) factored form: sigma + R + ydiag of the current factor
  double* w;   // (nd) scratch
  double* t;   // (nd) scratch
  // sparse (admm_sparse): the CHOLMOD factor of I + Y' A^-1 Y (dof space) or of S~ + sigma I
  // (contact space), the entry of the island's pattern in the solver's cache; NULL otherwise
  chol_cache* cc;
  chol_entry* ce;
  const int* pos;  // dof space, sparse: the pattern entry of each (column, row) (sparse_pos)
  // contact space, sparse: G's values over the pattern (admm_sparse: one strided pass over the
  // dense rows a solve, then every product and factorization reads them in the pattern's
  // order): gl[k] = G(r, j) and gu[k] = G(j, r) for entry k at row r >= j of column j
  const double* gl;
  const double* gu;
  const double* sig;  // (n) the shift of each row when they differ (admm_refactor), else NULL
  // factored form: 1 for a contact whose dofs are consecutive and ascending (a chain's path
  // from its root), whose products then run over one stretch of a dof vector or of a factor's
  // column, loops the compiler vectorizes (each entry still takes its one term, so the sums
  // are the same bit for bit), | 2 for the first of four such contacts on the same stretch
  // (run4); NULL: none marked
  const unsigned char* run;
} admm_op;

// w[k] += y0[k] x0 + y1[k] x1 + y2[k] x2 over one stretch (admm_op.run): the rows and w do not
// overlap (restrict spares the vectorized loop its run-time overlap checks)
static inline void run_add(double* restrict w, const double* restrict y0, const double* restrict y1,
                    const double* restrict y2, double x0, double x1, double x2, int nz) {
  for (int k = 0; k < nz; k++) w[k] += y0[k] * x0 + y1[k] * x1 + y2[k] * x2;
}

// run_add of four contacts at once: yb holds their twelve rows at stride ws (contacts i..i+3 of
// the problem: consecutive, three rows each), c their twelve coefficients; each entry of w takes
// the four contacts' sums one after the other, in contact order, each sum as run_add's: the
// bits of four run_add passes, with one load and store of w instead of four
static inline __attribute__((always_inline)) void run_add4(double* restrict w,
                                                           const double* restrict yb, size_t ws,
                                                           const double c[12], int nz) {
  const double *a0 = yb, *a1 = yb + ws, *a2 = yb + 2 * ws, *b0 = yb + 3 * ws, *b1 = yb + 4 * ws,
               *b2 = yb + 5 * ws, *e0 = yb + 6 * ws, *e1 = yb + 7 * ws, *e2 = yb + 8 * ws,
               *f0 = yb + 9 * ws, *f1 = yb + 10 * ws, *f2 = yb + 11 * ws;
  for (int k = 0; k < nz; k++) {
    double v = w[k] + (a0[k] * c[0] + a1[k] * c[1] + a2[k] * c[2]);
    v = v + (b0[k] * c[3] + b1[k] * c[4] + b2[k] * c[5]);
    v = v + (e0[k] * c[6] + e1[k] * c[7] + e2[k] * c[8]);
    w[k] = v + (f0[k] * c[9] + f1[k] * c[10] + f2[k] * c[11]);
  }
}

// 1 when contacts i..i+3 each hold one stretch of dofs (o->run), the same one (a link of a
// chain on its four corners, two cubes of a stack): factor_dofs then adds them together, and
// the products take them in one pass. Marked by admm_runs (bit 2 of the first's run mark)
static inline int run4(const admm_op* o, int i) {
  return o->run && (o->run[i] & 2);
}

// w = Y' x (nd): a contact's three rows together (one pass over its dofs), four contacts on one
// stretch (run4) together too (run_add4: the bits of their four passes, but that a contact
// whose x is zero adds its +-0 terms, where alone it is skipped: at most a zero's sign)
static void yt_mul(const admm_op* o, const double* x, double* w) {
  const solver_problem* p = o->p;
  size_t ws = (size_t)p->ystride;
  memset(w, 0, sizeof(double) * (size_t)o->nd);
  for (int i = 0; i < p->nc; i++) {
    if (run4(o, i)) {
      run_add4(w + p->ydof[(size_t)i * ws], p->Y + 3 * (size_t)i * ws, ws, x + 3 * i, p->ynz[i]);
      i += 3;
      continue;
    }
    double x0 = x[3 * i], x1 = x[3 * i + 1], x2 = x[3 * i + 2];
    if (x0 == 0 && x1 == 0 && x2 == 0) continue;
    const int* d = p->ydof + (size_t)i * ws;
    const double* y0 = p->Y + 3 * (size_t)i * ws;
    const double* y1 = y0 + ws;
    const double* y2 = y1 + ws;
    int nz = p->ynz[i];
    if (o->run && o->run[i]) {  // consecutive dofs: one stretch of w (lengths as run_dot3)
      if (nz == 6) run_add(w + d[0], y0, y1, y2, x0, x1, x2, 6);
      else if (nz == 12) run_add(w + d[0], y0, y1, y2, x0, x1, x2, 12);
      else run_add(w + d[0], y0, y1, y2, x0, x1, x2, nz);
      continue;
    }
    for (int k = 0; k < nz; k++) w[d[k]] += y0[k] * x0 + y1[k] * x1 + y2[k] * x2;
  }
}

// out = the rows y0, y1, y2 times the stretch wr, nz entries (a contact on one run of dofs):
// three sums in order. Inline with nz constant (run_dot3) the loop unrolls
static inline void run_dot3_n(const double* y0, const double* y1, const double* y2,
                              const double* wr, int nz, double out[3]) {
  double a0 = 0, a1 = 0, a2 = 0;
  for (int k = 0; k < nz; k++) {
    double wk = wr[k];
    a0 += y0[k] * wk;
    a1 += y1[k] * wk;
    a2 += y2[k] * wk;
  }
  out[0] = a0;
  out[1] = a1;
  out[2] = a2;
}

// run_dot3_n with the common lengths constant (a free body's 6 dofs, two bodies' 12: a stack's
// contacts; the same operations in the same order)
static inline void run_dot3(const double* y0, const double* y1, const double* y2,
                            const double* wr, int nz, double out[3]) {
  switch (nz) {
    case 6: run_dot3_n(y0, y1, y2, wr, 6, out); return;
    case 12: run_dot3_n(y0, y1, y2, wr, 12, out); return;
    default: run_dot3_n(y0, y1, y2, wr, nz, out);
  }
}

// run_dot3 of four contacts on one stretch (run4): their twelve rows (stride ws from yb) times
// wr, each sum in order as run_dot3's (the same bits), wr read once for the twelve, two rows in
// the halves of a vector
static inline void run_dot12(const double* yb, size_t ws, const double* wr, int nz,
                             double out[12]) {
  solver_v2 a[6] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}};  // rows 2h, 2h + 1
  for (int k = 0; k < nz; k++) {
    double wk = wr[k];
    for (int h = 0; h < 6; h++) {
      const double* y = yb + (size_t)(2 * h) * ws + (size_t)k;
      a[h] += (solver_v2){y[0], y[ws]} * wk;
    }
  }
  for (int h = 0; h < 6; h++) out[2 * h] = a[h][0], out[2 * h + 1] = a[h][1];
}

// the rows of contact i of Y times w (nd) into out, those of contacts i..i+3 when they lie on
// one stretch (run4, run_dot12); the number of contacts done (1 or 4)
static inline int y_mul_run(const admm_op* o, int i, const double* w, double out[12]);

// out = the three rows of contact i of Y times w (nd)
static inline void y_mul3(const admm_op* o, int i, const double* w, double out[3]) {
  const solver_problem* p = o->p;
  size_t ws = (size_t)p->ystride;
  const int* d = p->ydof + (size_t)i * ws;
  const double* y0 = p->Y + 3 * (size_t)i * ws;
  const double* y1 = y0 + ws;
  const double* y2 = y1 + ws;
  double a0 = 0, a1 = 0, a2 = 0;
  int nz = p->ynz[i];
  if (o->run && o->run[i]) {  // consecutive dofs: w[d[k]] = wr[k], the same sums in order
    run_dot3(y0, y1, y2, w + d[0], nz, out);
    return;
  } else {
    for (int k = 0; k < nz; k++) {
      double wk = w[d[k]];
      a0 += y0[k] * wk;
      a1 += y1[k] * wk;
      a2 += y2[k] * wk;
    }
  }
  out[0] = a0;
  out[1] = a1;
  out[2] = a2;
}

static inline int y_mul_run(const admm_op* o, int i, const double* w, double out[12]) {
  const solver_problem* p = o->p;
  size_t ws = (size_t)p->ystride;
  if (!run4(o, i)) {
    y_mul3(o, i, w, out);
    return 1;
  }
  run_dot12(p->Y + 3 * (size_t)i * ws, ws, w + p->ydof[(size_t)i * ws], p->ynz[i], out);
  return 4;
}

// y += G~ x over the sparse factor's pattern (the lower triangle of the island's block pattern,
// which holds both (a, b) and (b, a): contacts that share no dofs have zero blocks), G row-major
// and not necessarily symmetric: O(nnz) instead of the dense rows' O(n^2)
static void velocity_pattern(const admm_op* o, const double* x, double* y) {
  const solver_problem* p = o->p;
  const int *cp = chol_colp(o->ce), *ri = chol_rowi(o->ce);
  const double *gl = o->gl, *gu = o->gu;
  for (int j = 0; j < o->n; j++) {
    double acc = (gl[cp[j]] + (p->R ? p->R[j] : 0)) * x[j], xj = x[j];
    for (int k = cp[j] + 1; k < cp[j + 1]; k++) {  // rows i below the diagonal (first)
      int i = ri[k];
      acc += gu[k] * x[i];  // G(j, i)
      y[i] += gl[k] * xj;   // G(i, j)
    }
    y[j] += acc;
  }
}

// kx = Ks x, Ks = (G - G')/2 the skew part, over the sparse factor's pattern (velocity_pattern)
static void skew_pattern(const admm_op* o, const double* x, double* kx) {
  const int *cp = chol_colp(o->ce), *ri = chol_rowi(o->ce);
  memset(kx, 0, sizeof(double) * (size_t)o->n);
  for (int j = 0; j < o->n; j++)
    for (int k = cp[j] + 1; k < cp[j + 1]; k++) {
      int i = ri[k];
      double sk = 0.5 * (o->gl[k] - o->gu[k]);  // Ks(i, j)
      kx[i] += sk * x[j];
      kx[j] -= sk * x[i];
    }
}

// y += G~ x (R on the diagonal when present)
static void velocity_h(const admm_op* o, const double* x, double* y) {
  const solver_problem* p = o->p;
  int n = o->n;
  if (o->nd > 0) {  // Y (Y' x) + (ydiag + R) x
    yt_mul(o, x, o->w);
    for (int i = 0, q; i < p->nc; i += q) {
      double yw[12];
      q = y_mul_run(o, i, o->w, yw);
      for (int r = 0, j = 3 * i; r < 3 * q; r++, j++)
        y[j] += yw[r] + ((p->ydiag ? p->ydiag[j] : 0) + (p->R ? p->R[j] : 0)) * x[j];
    }
    return;
  }
  if (o->ce) {
    velocity_pattern(o, x, y);
    return;
  }
  if (!p->dense) {  // an island given as its blocks (admm_island_sparse), before the pattern
    solver_gmul_add(p, x, y);
    for (int r = 0; r < n && p->R; r++) y[r] += p->R[r] * x[r];
    return;
  }
  for (int r = 0; r < n; r++) {
    const double* Gr = p->dense + (size_t)r * n;
    double acc = 0;
    for (int k = 0; k < n; k++) acc += Gr[k] * x[k];
    if (p->R) acc += p->R[r] * x[r];
    y[r] += acc;
  }
}

// c = G~ x + g (R on the diagonal when present)
static void velocity(const admm_op* o, const double* x, double* c) {
  memcpy(c, o->p->g, sizeof(double) * (size_t)o->n);
  velocity_h(o, x, c);
}

// diagonal entry k of G~ (solver_gtkk: an island's problem, dense or factored, never blocks),
// its dblk read here (the call was 1 % of chain_10's step)
static inline double gdiag(const admm_op* o, int k) {
  const solver_problem* p = o->p;
  if (p->dblk && !p->R) return p->dblk[9 * (size_t)(k / 3) + 4 * (size_t)(k % 3)];
  return solver_gtkk(p, k);
}

// the entry a condim 4/6 contact i links (solver.h: its spin entry j >= 0; -2 - i at a spin
// entry), -1 for every other entry
static inline int link_of(const solver_problem* p, int i) {
  return p->link ? p->link[i] : -1;
}

// the model's residual of z with velocity c: the NCP residual (000 eq. 14, with Gamma(c)) when
// ncp, the CCP residual (eq. 15, Gamma = 0) otherwise, a condim 4/6 pair's in its generalized
// cone (solver_entry_residuals); INFINITY when anything is not finite
// with met given, the NCP metric of z (solver_residuals_on's, the same values when ncp: ADMM's
// answer hands it to solver_solve, which then skips its own pass) into *met, left partial when
// the residual is infinite
// with a bound `upto` (not NaN): returns as soon as the running maximum reaches it, the metric
// then partial (admm_warm only needs to know that zero's residual is no smaller)
static double residual_upto(const solver_problem* p, int ncp, const double* z, const double* c,
                            solver_result* met, double upto) {
  double m = 0;
  if (met) memset(met, 0, sizeof(*met));
  for (int i = 0; i < p->nc; i++) {
    double a, b, d;  // a box entry is measured as the NCP (solver.h)
    if (ncp && !p->link)  // solver_entry_residuals' own choice, without its call
      cone_residuals(z + 3 * i, c + 3 * i, p->mu[i], &a, &b, &d);
    else
      solver_entry_residuals(p, z, c, i, ncp || (p->box && p->box[i]), &a, &b, &d);
    if (!isfinite(a) || !isfinite(b) || !isfinite(d) || !isfinite(z[3 * i]) ||
        !isfinite(z[3 * i + 1]) || !isfinite(z[3 * i + 2]))
      return INFINITY;
    m = solver_max(m, solver_max(a, solver_max(b, d)));
    if (met) solver_metric_add(met, a, b, d);
    if (m >= upto) return m;
  }
  return m;
}

static double residual_m(const solver_problem* p, int ncp, const double* z, const double* c,
                         solver_result* met) {
  return residual_upto(p, ncp, z, c, met, NAN);
}

static double residual(const solver_problem* p, int ncp, const double* z, const double* c) {
  return residual_m(p, ncp, z, c, NULL);
}

// de Saxce's shift on the normal of contact i with spin entry j from v (the velocity c, or the
// dual, -c at the fixed point): the generalized cone's Gamma_n = ||(a_k v_k)|| over the pair's
// five friction components (cone.h); the spin entry's rows get none
static double pair_shift(const solver_problem* p, int i, int j, const double* v) {
  double a[CONE_NELL], s = 0;
  solver_ell_coef(p, i, j, a);
  const double f[CONE_NELL] = {v[3 * i], v[3 * i + 1], v[3 * j], v[3 * j + 1], v[3 * j + 2]};
  for (int k = 0; k < CONE_NELL; k++) s += (a[k] * f[k]) * (a[k] * f[k]);
  return sqrt(s);
}

// de Saxce's shift s = Gamma(c) = [0, 0, mu |c_T|] per contact (000 eq. 13; a condim 4/6 pair's
// pair_shift): on every contact for the NCP, on the box entries only for the CCP (solver.h: a
// box is the NCP's on its pinned normal), zero elsewhere
static void desaxce_shift(const solver_problem* p, int ncp, const double* c, double* sh) {
  for (int i = 0; i < p->nc; i++) {
    const double* ci = c + 3 * i;
    int on = ncp || (p->box && p->box[i]), j = link_of(p, i);
    sh[3 * i] = sh[3 * i + 1] = 0;
    sh[3 * i + 2] = !on || j < -1 ? 0
                    : j >= 0      ? pair_shift(p, i, j, c)
                                  : p->mu[i] * sqrt(ci[0] * ci[0] + ci[1] * ci[1]);
  }
}

// ADMM's metric on a condim 4/6 pair: its spin components (torsion, roll1, roll2) in units of
// d_k = min(1, sqrt(a_k / mu)) (1 where a_k or mu is 0). MuJoCo's torsional and rolling
// coefficients are 1e-2 to 1e-4 of mu (metres), so that K_a is an ellipsoidal cone of axes 100:1
// and more, along whose boundary ADMM in the Euclidean metric crept (humanoid100, ccp/admm: 921
// of 3977 islands with pairs at the cap 500, 255 of 400 steps). d_k = a_k / mu makes the cone
// round but scales those rows of G by d_k^2 = 1e-4 (163.6 iterations per step, 23 steps at the
// cap); the geometric mean of the two metrics, d_k = sqrt(a_k / mu), leaves a 10:1 cone and a
// 1e-2 scale (161.4 iterations, 14 steps; ncp 224 steps against 265 and 294 for ncp/pgs). Never
// above 1: where a_k exceeds mu (a sliding coefficient of 1e-5, test_mujoco_condim.c's) the spin
// is not the cone's thin direction, and a_k / mu = 1e3 took the MuJoCo cylinder from 18 to 141
// iterations per step. The penalty on those rows is rho / d_k^2 (pair_weights: the x-step's
// shift, the dual ascent) and the projection the one in that metric (pair_project); the fixed
// point stays (the normal cone of K_a at z, where -(c + s) lies there, does not depend on it)
static void pair_scale(const double a[CONE_NELL], double d[3]) {
  for (int k = 0; k < 3; k++)
    d[k] = a[0] > 0 && a[2 + k] > 0 ? fmin(1, sqrt(a[2 + k] / a[0])) : 1;
}

// (zi, zj) onto K_a of the pair (contact i, spin entry j) in place, in pair_scale's metric:
// cone_ell_project of the spin components over d_k with the coefficients a_k / d_k, scaled back
static void pair_project(const solver_problem* p, int i, int j, double zi[3], double zj[3]) {
  double a[CONE_NELL], d[3];
  solver_ell_coef(p, i, j, a);
  pair_scale(a, d);
  for (int k = 0; k < 3; k++) {
    zj[k] /= d[k];
    a[2 + k] /= d[k];
  }
  cone_ell_project(zi, zj, a);
  for (int k = 0; k < 3; k++) zj[k] *= d[k];
}

// ADMM's penalty weight of each row (n): 1 / d_k^2 on the spin components of a condim 4/6 pair
// (pair_scale), 1 elsewhere
static void pair_weights(const solver_problem* p, double* wt) {
  for (int k = 0; k < 3 * p->nc; k++) wt[k] = 1;
  for (int i = 0; i < p->nc; i++) {
    int j = link_of(p, i);
    if (j < 0) continue;
    double a[CONE_NELL], d[3];
    solver_ell_coef(p, i, j, a);
    pair_scale(a, d);
    for (int k = 0; k < 3; k++) wt[3 * j + k] = 1 / (d[k] * d[k]);
  }
}

// z = the projection of x onto the problem's cones: each contact's K_mu, each condim 4/6 pair's
// K_a at its contact (pair_project: the pair together, never a spin entry's block alone)
static void cones_project(const solver_problem* p, const double* x, double* z) {
  for (int i = 0; i < p->nc; i++) {
    int j = link_of(p, i);
    if (j == -1) {
      cone_project(z + 3 * i, x + 3 * i, p->mu[i]);
    } else if (j >= 0) {
      memcpy(z + 3 * i, x + 3 * i, 3 * sizeof(double));
      memcpy(z + 3 * j, x + 3 * j, 3 * sizeof(double));
      pair_project(p, i, j, z + 3 * i, z + 3 * j);
    }
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

// one Cuthill-McKee pass over the dofs from `start`: breadth first, two dofs adjacent when a
// contact holds both, a dof's unnumbered neighbours numbered contact by contact in the contact's
// own dof order (ascending: a tree's dofs in tree order), then from any dof not reached (none
// in an island, which is connected); pos (nd) gets each dof's position, queue (nd) the order.
// Returns the last dof numbered from `start`, a far end of the island
static int cm_pass(const solver_problem* p, const int* dstart, const int* dcon, int start,
                   int* queue, int* pos, char* cdone) {
  int nd = p->nv, ws = p->ystride, tail = 0, head = 0, last = start;
  for (int t = 0; t < nd; t++) pos[t] = -1;
  memset(cdone, 0, (size_t)p->nc);
  for (int seed = start, t0 = 0; tail < nd; seed = -1) {
    if (seed < 0) {
      while (pos[t0] >= 0) t0++;
      seed = t0;
    }
    pos[seed] = tail;
    queue[tail++] = seed;
    while (head < tail) {
      int u = queue[head++];
      if (seed == start) last = u;
      for (int e = dstart[u]; e < dstart[u + 1]; e++) {
        int i = dcon[e];
        if (cdone[i]) continue;  // its dofs are numbered already
        cdone[i] = 1;
        const int* d = p->ydof + (size_t)i * ws;
        for (int k = 0; k < p->ynz[i]; k++)
          if (pos[d[k]] < 0) {
            pos[d[k]] = tail;
            queue[tail++] = d[k];
          }
      }
    }
  }
  return last;
}

// the band order of the island's nd dofs: Cuthill-McKee (cm_pass) from a far end of the island
// (George-Liu's pseudo-peripheral start: from the dof on the fewest contacts, then again from the
// last dof that pass reached), so a chain of trees (a stack of cubes) gives a band of two trees'
// dofs whatever the order of the robots or of the contacts. perm (nd) gets each dof's position,
// *cord (in iw, nc x ystride) each contact's entries sorted by position (factor() then visits
// the lower triangle only); iw is scratch (admm_y_ord_ints). Returns the lower bandwidth of
// I + Y' A^-1 Y in that order: entry (a, b) is nonzero only when one contact holds both dofs, so
// the widest spread of a contact's positions
static int band_order(const solver_problem* p, int* iw, int* perm, const int** cord) {
  int nd = p->nv, nc = p->nc, ws = p->ystride;
  int* dstart = iw;            // (nd + 1) the contacts of each dof (CSR) ...
  int* queue = dstart + nd + 1;  // (nd)
  int* dcon = queue + nd;        // (<= nc ws) ... their list
  memset(dstart, 0, sizeof(int) * (size_t)(nd + 1));
  for (int i = 0; i < nc; i++)
    for (int k = 0; k < p->ynz[i]; k++) dstart[p->ydof[(size_t)i * ws + k] + 1]++;
  for (int t = 0; t < nd; t++) dstart[t + 1] += dstart[t];
  char* cdone = (char*)(dcon + dstart[nd]);  // (nc)
  memcpy(queue, dstart, sizeof(int) * (size_t)nd);  // a fill cursor per dof here
  for (int i = 0; i < nc; i++)
    for (int k = 0; k < p->ynz[i]; k++) dcon[queue[p->ydof[(size_t)i * ws + k]]++] = i;
  int t0 = 0;
  for (int t = 1; t < nd; t++)
    if (dstart[t + 1] - dstart[t] < dstart[t0 + 1] - dstart[t0]) t0 = t;
  int far = cm_pass(p, dstart, dcon, t0, queue, perm, cdone);
  cm_pass(p, dstart, dcon, far, queue, perm, cdone);
  int kd = 0;
  int* co = dcon;  // the contacts of each dof are no longer needed
  for (int i = 0; i < nc; i++) {
    const int* d = p->ydof + (size_t)i * ws;
    int* o = co + (size_t)i * ws;
    for (int k = 0; k < p->ynz[i]; k++) {  // insertion sort by position (a few entries)
      int j = k;
      for (; j > 0 && perm[d[o[j - 1]]] > perm[d[k]]; j--) o[j] = o[j - 1];
      o[j] = k;
    }
    int nz = p->ynz[i];
    if (nz > 0 && perm[d[o[nz - 1]]] - perm[d[o[0]]] > kd) kd = perm[d[o[nz - 1]]] - perm[d[o[0]]];
  }
  *cord = co;
  return kd;
}

int admm_band_order(const solver_problem* p, int* iw, int* perm, const int** cord) {
  return band_order(p, iw, perm, cord);
}

// the sparse factor's values of I (nd columns): zeros, the diagonal (each column's first) 1
static void sparse_clear(chol_entry* e, int nd) {
  const int* cp = chol_colp(e);
  double* v = chol_values(e);
  memset(v, 0, sizeof(double) * (size_t)cp[nd]);
  for (int k = 0; k < nd; k++) v[cp[k]] = 1;
}

// the term of entries (lo, hi) of a contact's Y rows in I + Y' A^-1 Y, at the column of lo's
// dof (the smaller): (y_lo ia) . y_hi, the expression and order the column's own loop would use.
// The factor's loops visit each pair of a contact's entries once (hi from lo on) and take this
// form only where the entries' dofs do not ascend (an island's local numbering, first seen
// first numbered, need not keep a contact's order), so each entry of the matrix receives the
// same sum, bit for bit, as a visit of every ordered pair that kept the lower triangle
static inline double pair_term(const double* y0, const double* y1, const double* y2,
                               const double ia[3], int lo, int hi) {
  double l0 = y0[lo] * ia[0], l1 = y1[lo] * ia[1], l2 = y2[lo] * ia[2];
  return l0 * y0[hi] + l1 * y1[hi] + l2 * y2[hi];
}

// contact i's terms of I + Y' A^-1 Y (ia = 1 / its three A) into the sparse factor's values,
// the lower triangle of the island's local dofs, at the entries o->pos gives (sparse_pos)
static void sparse_add(const admm_op* o, int i, const double ia[3], double* v) {
  const solver_problem* p = o->p;
  int ws = p->ystride, nz = p->ynz[i];
  size_t nd = (size_t)o->nd;
  const int* d = p->ydof + (size_t)i * ws;
  const double* y0 = p->Y + 3 * (size_t)i * ws;
  const double* y1 = y0 + ws;
  const double* y2 = y1 + ws;
  for (int u = 0; u < nz; u++) {  // each pair of entries once (pair_term)
    double u0 = y0[u] * ia[0], u1 = y1[u] * ia[1], u2 = y2[u] * ia[2];
    for (int w = u; w < nz; w++) {
      int lo = d[w] >= d[u] ? u : w, hi = lo == u ? w : u;
      v[o->pos[(size_t)d[lo] * nd + (size_t)d[hi]]] +=
          lo == u ? u0 * y0[w] + u1 * y1[w] + u2 * y2[w] : pair_term(y0, y1, y2, ia, lo, hi);
    }
  }
}

// each sparse pattern entry's index at (column, row) of pos (nd x nd ints: the dense factor's
// work, which a sparse solve does not use), once per solve (O(nnz)), so that a factorization
// (one per rho change) searches nothing
static void sparse_pos(const admm_op* o, int* pos) {
  const int *cp = chol_colp(o->ce), *ri = chol_rowi(o->ce);
  size_t nd = (size_t)o->nd;
  for (int j = 0; j < o->nd; j++)
    for (int k = cp[j]; k < cp[j + 1]; k++) pos[(size_t)j * nd + (size_t)ri[k]] = k;
}

// contact i's three A = sigma (o->sig when set) + R + ydiag into o->A, their inverses into ia;
// 1 when one is not positive and finite
static int contact_ia(const admm_op* o, int i, double sigma, double ia[3]) {
  const solver_problem* p = o->p;
  for (int r = 0; r < 3; r++) {
    int j = 3 * i + r;
    double a = (o->sig ? o->sig[j] : sigma) + (p->R ? p->R[j] : 0) +
               (p->ydiag ? p->ydiag[j] : 0);
    if (!(a > 0) || !isfinite(a)) return 1;
    o->A[j] = a;
    ia[r] = 1 / a;
  }
  return 0;
}

// the dense factor's terms of contacts i..i+3 (run4) into the lower triangle of L (ld rows a
// column), the four contacts' rows of each column as one stretch (run_add4: the sums of four
// passes of factor_dofs's run, bit for bit). 1 when an A is not positive and finite
static int dense_add4(const admm_op* o, int i, double sigma, double* L, size_t ld) {
  const solver_problem* p = o->p;
  size_t ws = (size_t)p->ystride;
  const int* d = p->ydof + (size_t)i * ws;
  const double* yb = p->Y + 3 * (size_t)i * ws;  // the twelve rows, stride ws
  int nz = p->ynz[i];
  double ia[12];
  for (int q = 0; q < 4; q++)
    if (contact_ia(o, i + q, sigma, ia + 3 * q)) return 1;
  for (int u = 0; u < nz; u++) {
    double c[12];
    for (int t = 0; t < 12; t++) c[t] = yb[(size_t)t * ws + (size_t)u] * ia[t];
    int du = d[u];
    run_add4(L + (size_t)du * ld + du, yb + u, ws, c, nz - u);
  }
  return 0;
}

// the dof-space matrix in L factored in place (lower): banded (kd >= 0, dpbtrf), dense by the
// inline loop up to kCholSmall dofs, else dpotrf. 0 on success (a finite diagonal)
static int dof_factor(int nd, int kd, double* L) {
  size_t ld = kd >= 0 ? (size_t)kd + 1 : (size_t)nd, diag = kd >= 0 ? 0 : 1;
  if (kd < 0 && nd <= kCholSmall) {
    if (newton_chol_small(nd, L)) return 1;
  } else {
    lapack_int info = kd >= 0 ? LAPACKE_dpbtrf_work(LAPACK_COL_MAJOR, 'L', nd, kd, L, kd + 1)
                              : LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', nd, L, nd);
    if (info != 0) return 1;
  }
  for (int k = 0; k < nd; k++)
    if (!isfinite(L[(size_t)k * ld + diag * (size_t)k])) return 1;
  return 0;
}

// factored form: A = sigma (o->sig when set) + R + ydiag (diagonal) and the factor of
// I + Y' A^-1 Y (nd x nd), the matrix of the Woodbury identity
// (G~ + sigma I)^-1 = A^-1 - A^-1 Y (I + Y' A^-1 Y)^-1 Y' A^-1
// (built from the nonzeros of Y: O(sum over rows of nnz^2)): dense (LAPACK dpotrf, O(nd^3)),
// banded when o->kd >= 0 (dofs in band order, dpbtrf, O(nd kd^2)) or sparse when o->ce (CHOLMOD
// on the kept analysis of the island's pattern). 0 on success
static int factor_dofs(const admm_op* o, double sigma, double* L) {
  const solver_problem* p = o->p;
  int nd = o->nd, ws = p->ystride, kd = o->kd;
  // column d of the matrix starts at L + d ld and row e of it sits at e - d below (band,
  // ld = kd + 1) or at e (dense, ld = nd): the lower triangle only, the one dpbtrf / dpotrf
  // and solver_chol_solve read
  size_t ld = kd >= 0 ? (size_t)kd + 1 : (size_t)nd, diag = kd >= 0 ? 0 : 1;
  double* sv = o->ce ? chol_values(o->ce) : NULL;
  if (sv) sparse_clear(o->ce, nd);
  else memset(L, 0, sizeof(double) * (size_t)nd * ld);
  for (int k = 0; k < nd && !sv; k++) L[(size_t)k * ld + diag * (size_t)k] = 1;
  for (int i = 0; i < p->nc; i++) {  // a contact's three rows together
    const int* d = p->ydof + (size_t)i * ws;
    int nz = p->ynz[i];
    if (kd < 0 && !sv && run4(o, i)) {  // four contacts on one stretch: added together
      if (dense_add4(o, i, sigma, L, ld)) return 1;
      i += 3;
      continue;
    }
    double ia[3];
    if (contact_ia(o, i, sigma, ia)) return 1;
    if (sv) {
      sparse_add(o, i, ia, sv);
      continue;
    }
    const double* y0 = p->Y + 3 * (size_t)i * ws;
    const double* y1 = y0 + ws;
    const double* y2 = y1 + ws;
    // dense: the lower triangle (rows >= column); a contact whose dofs are consecutive
    // (o->run) fills each column's rows as one stretch
    int run = o->run && o->run[i];
    for (int u = 0; u < nz && kd < 0; u++) {
      double u0 = y0[u] * ia[0], u1 = y1[u] * ia[1], u2 = y2[u] * ia[2];
      int du = d[u];
      double* col = L + (size_t)du * ld;  // column d[u]
      if (run) {  // rows du.. of the column (row d[v] = du + v - u)
        run_add(col + du, y0 + u, y1 + u, y2 + u, u0, u1, u2, nz - u);
        continue;
      }
      for (int v = u; v < nz; v++) {  // each pair once (pair_term)
        if (d[v] >= du) col[d[v]] += u0 * y0[v] + u1 * y1[v] + u2 * y2[v];
        else L[(size_t)d[v] * ld + (size_t)du] += pair_term(y0, y1, y2, ia, v, u);
      }
    }
    if (kd >= 0) {  // in band order, the lower triangle: entries u <= v by position
      const int *pm = o->perm, *ck = o->cord + (size_t)i * ws;
      for (int a = 0; a < nz; a++) {
        int u = ck[a];
        double u0 = y0[u] * ia[0], u1 = y1[u] * ia[1], u2 = y2[u] * ia[2];
        double* col = L + (size_t)pm[d[u]] * (size_t)kd;  // column pm[d[u]], row e at col[e]
        for (int b = a; b < nz; b++) {
          int v = ck[b];
          col[pm[d[v]]] += u0 * y0[v] + u1 * y1[v] + u2 * y2[v];
        }
      }
    }
  }
  if (sv) return chol_factor(o->cc, o->ce);
  return dof_factor(nd, kd, L);
}

// the factor of G~ + sigma I (G~ + diag(o->sig) when set: admm_refactor). Dense:
// L = chol(S~ + sigma I) with S the symmetric part (G + G')/2 of G (G itself when symmetric, so
// its row-major copy is its column-major copy), column-major lower; sparse (o->ce): the same
// matrix over the island's block pattern, CHOLMOD. Factored form: factor_dofs. 0 on success
static int factor(const admm_op* o, double sigma, double* L) {
  const solver_problem* p = o->p;
  int n = o->n;
  if (o->nd > 0) return factor_dofs(o, sigma, L);
  const double* G = p->dense;
  if (o->ce) {
    const int* cp = chol_colp(o->ce);
    double* v = chol_values(o->ce);
    for (int k = 0; k < cp[n]; k++) v[k] = 0.5 * (o->gl[k] + o->gu[k]);
    for (int j = 0; j < n; j++) v[cp[j]] += (o->sig ? o->sig[j] : sigma) + (p->R ? p->R[j] : 0);
    return chol_factor(o->cc, o->ce);
  }
  for (int r = 0; r < n; r++)
    for (int k = 0; k < n; k++)
      L[(size_t)r * n + k] = 0.5 * (G[(size_t)r * n + k] + G[(size_t)k * n + r]);
  for (int r = 0; r < n; r++)
    L[(size_t)r * n + r] += (o->sig ? o->sig[r] : sigma) + (p->R ? p->R[r] : 0);
  lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, L, n);
  if (info != 0) return 1;
  for (int r = 0; r < n; r++)
    if (!isfinite(L[(size_t)r * n + r])) return 1;
  return 0;
}

// forward then back substitution, both down contiguous columns
static inline void chol_solve_n(int n, const double* L, double* x) {
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

// chol_solve_n with the loop bounds known for the common small sizes (newton's islands of 1-4
// free bodies; the same operations in the same order)
void solver_chol_solve(int n, const double* L, double* x) {
  switch (n) {
    case 6: chol_solve_n(6, L, x); return;
    case 12: chol_solve_n(12, L, x); return;
    case 18: chol_solve_n(18, L, x); return;
    case 24: chol_solve_n(24, L, x); return;
    default: chol_solve_n(n, L, x);
  }
}

// x := (G~ + sigma I)^-1 x with the factor of factor(): dense, the Cholesky solve; factored,
// Woodbury: u = A^-1 x, t = (I + Y' A^-1 Y)^-1 Y' u, x = u - A^-1 Y t
static void xsolve(const admm_op* o, const double* L, double* x) {
  if (o->nd == 0) {
    if (o->ce) chol_solve(o->cc, o->ce, x);
    else solver_chol_solve(o->n, L, x);
    return;
  }
  for (int k = 0; k < o->n; k++) x[k] /= o->A[k];
  yt_mul(o, x, o->t);
  if (o->ce) {
    chol_solve(o->cc, o->ce, o->t);
  } else if (o->kd >= 0) {  // in band order (o->w is free here), LAPACK dpbtrs on dpbtrf's factor
    for (int k = 0; k < o->nd; k++) o->w[o->perm[k]] = o->t[k];
    LAPACKE_dpbtrs_work(LAPACK_COL_MAJOR, 'L', o->nd, o->kd, 1, L, o->kd + 1, o->w, o->nd);
    for (int k = 0; k < o->nd; k++) o->t[k] = o->w[o->perm[k]];
  } else {
    solver_chol_solve(o->nd, L, o->t);
  }
  for (int i = 0, q; i < o->p->nc; i += q) {
    double yt[12];
    q = y_mul_run(o, i, o->t, yt);
    for (int r = 0, j = 3 * i; r < 3 * q; r++, j++) x[j] -= yt[r] / o->A[j];
  }
}

// largest eigenvalue of G~ by power iteration from the all-ones vector (deterministic), kPowerIt
// products; v and w are scratch (n)
static double largest_eig(const admm_op* o, double* v, double* w) {
  int n = o->n;
  for (int k = 0; k < n; k++) v[k] = 1 / sqrt((double)n);
  double L = 0;
  for (int it = 0; it < kPowerIt; it++) {
    for (int k = 0; k < n; k++) w[k] = 0;
    velocity_h(o, v, w);
    double nn = 0;
    for (int k = 0; k < n; k++) nn += w[k] * w[k];
    nn = sqrt(nn);
    if (!(nn > 0) || !isfinite(nn)) break;
    L = nn;
    for (int k = 0; k < n; k++) v[k] = w[k] / nn;
  }
  return L;
}

// the power iteration's L of an earlier island with the same contacts n and dofs nd whose G~ has
// the same trace and largest diagonal entry to kEigReuse, else NaN. A resting scene's G changes
// by ~1e-8 between steps, and L only sets the scale of rho (the answer is judged by its
// residual whatever rho is): 20 products with G saved per solve (on a 64-cube stack, 14% of the
// step)
static double eig_cached(const solver* s, int n, int nd, double tr, double dmax) {
  for (int k = 0; k < SOLVER_EIG_CACHE; k++) {
    const solver_eig* e = &solver_admm(s)->eig[k];
    if (e->n == n && e->nd == nd && fabs(tr - e->tr) <= kEigReuse * fabs(tr) &&
        fabs(dmax - e->dmax) <= kEigReuse * fabs(dmax))
      return e->L;
  }
  return NAN;
}

// keep an island's L for eig_cached (round robin over the entries)
static void eig_keep(solver* s, int n, int nd, double tr, double dmax, double L) {
  if (!isfinite(tr) || !isfinite(dmax) || !isfinite(L)) return;
  int k = solver_admm(s)->eig_next;
  solver_admm(s)->eig[k] = (solver_eig){n, nd, tr, dmax, L};
  solver_admm(s)->eig_next = (k + 1) % SOLVER_EIG_CACHE;
}

// the round-off jump's states (admm_rho_jump): none yet, its trial iteration next, kept (rho
// held at m), done (undone, or rho back: no other jump in this solve)
enum { ADMM_JUMP_NONE = 0, ADMM_JUMP_TRIAL, ADMM_JUMP_HELD, ADMM_JUMP_DONE };

// what the jump's trial is undone to (admm_undo): the iterate z, proximal centre xp, dual gam
// and velocity c (vectors of the work, admm_setup), residuals and the rule's state
typedef struct {
  double *z, *xp, *gam, *c;
  double q, r, rb, rho, incr, dprim, ddual;
  int held, dir;
} admm_keep;

// one ADMM solve: the operator, the scratch vectors, the penalty and the residuals of z
typedef struct {
  const solver_problem* p;
  const solver* s;
  admm_op op;
  int nc, n;
  int ncp;     // 1: the NCP through de Saxce's shift, 0: the CCP
  int dir;     // the last move of rho: +1 up, -1 down, 0 none yet (the CCP's damping)
  int twice;   // the stopping residual is max(q, NCP residual) (the CCP under criterion: ncp)
  int natural; // and the natural residual (solver.criterion: natural)
  int soft;    // the natural residual dropped once it alone stalls (admm_state natural_soft)
  int lazy;    // a->r of the start lacks the natural residual (admm_stop_warm)
  const double* gn;  // natural: each contact's G~_NN (admm_setup), NULL: not kept
  int held;    // iterations in a row the stopping residual met the tolerance but for it
  double rb;   // the stopping residual without the natural residual (admm_stop)
  int gready;  // admm_polish's dense G~ is built (once a solve: G~ does not change)
  size_t vb;   // bytes of a vector (n)
  double tol;
  double* L;   // the factor of G~ + (rho + prox) I
  double* Ks;  // skew part (G - G')/2 when G is not symmetric (dense only)
  int skew;
  double *z, *zp, *gam, *c, *sh, *x, *best, *c0, *xp, *w1, *kx, *wz;
  double *wt, *sig;  // condim 4/6 pairs: each row's penalty weight (pair_weights) and shift
                     // rho wt + prox; NULL without pairs (every weight 1)
  double q, r;  // the model's residual of z (chooses the answer) and the stopping residual
  int fresh;    // c = G~ z + g holds at the answer (not so when it is an earlier iterate)
  double Lmax, m, prox, cond, incr, rho_lo, rho_hi, rho;  // the spectral rule (admm_spectrum)
  int jump;     // the round-off jump (admm_rho_jump): ADMM_JUMP_*
  admm_keep kp;  // the state it was tried from
  int kept;     // the island's pattern is the kept factor's (admm_kept)
  uint64_t phash;  // the island's pattern_hash (islands the factor may be kept for)
  int factored;  // the iteration ended with the work's factor that of G~ + (rho + prox) I
  solver_result met;  // the NCP metric of z at c (residual_m), valid when met_ok
  int met_ok;
  int stale;    // the x-step uses the kept factor, refined (admm_xsolve)
  int cold;     // the start is zero (admm_warm), not the warm start
  int hist;     // the history's next slot holds the start's z and c (admm_hist_begin)
} admm_run;

// the penalty of row k: rho, times its weight with condim 4/6 pairs (pair_scale)
static inline double pen(const admm_run* a, int k) {
  return a->wt ? a->rho * a->wt[k] : a->rho;
}

// the factor of G~ + diag(rho wt + prox) (of G~ + (rho + prox) I without weights). 0 on success
static int admm_refactor(admm_run* a) {
  admm_state* st = solver_admm(a->s);
  if (st) st->factorizations++;
  a->stale = 0;
  if (a->wt)
    for (int k = 0; k < a->n; k++) a->sig[k] = a->rho * a->wt[k] + a->prox;
  a->op.sig = a->sig;
  return factor(&a->op, a->rho + a->prox, a->L);
}

// each contact's mark in run (admm_op.run: its dofs consecutive, ascending); run. ascending:
// p's ydof ascend as solver.h has them (every problem but island_in_dofs' renumbered copy)
static const unsigned char* admm_runs(const solver_problem* p, int ascending,
                                      unsigned char* run) {
  for (int i = 0; i < p->nc; i++) {  // d[k] = d[0] + k throughout: no branch, vectorized
    const int* d = p->ydof + (size_t)i * p->ystride;
    int off = 0, nz = p->ynz[i];
    if (ascending) off = nz > 0 && d[nz - 1] - d[0] != nz - 1;  // distinct, ascending: O(1)
    else
      for (int k = 1; k < nz; k++) off |= d[k] != d[0] + k;
    run[i] = (unsigned char)(nz > 0 && !off);
  }
  // run4's groups, as the loops over the contacts meet them (from the first on, the next after
  // a group): marked once a solve, not tested at every product (3 % of chain_10's solve)
  size_t ws = (size_t)p->ystride;
  for (int i = 0; i + 3 < p->nc;) {
    int nz = p->ynz[i], d0 = p->ydof[(size_t)i * ws], four = nz > 0;
    for (int q = 0; q < 4 && four; q++)
      four = run[i + q] && p->ynz[i + q] == nz && p->ydof[(size_t)(i + q) * ws] == d0;
    if (four) run[i] |= 2;
    i += four ? 4 : 1;
  }
  return run;
}

// the run's operator (factored in dof space when the island came with Y, solver.c, else dense)
// and its scratch: the factor (n x n dense, nd x nd factored, nd x (kd + 1) banded: within
// nd x nd), the skew part (dense), then vectors
static void admm_setup(solver* s, const solver_problem* p, int ncp, admm_run* a) {
  int n = 3 * p->nc;
  a->p = p;
  a->s = s;
  a->nc = p->nc;
  a->n = n;
  a->ncp = ncp;
  a->twice = !ncp && solver_stop_ncp(s);
  a->natural = s->opt.criterion == SOLVER_STOP_NATURAL;
  admm_state* as = solver_admm(s);
  a->soft = a->natural && as && as->natural_soft;
  a->held = a->gready = a->met_ok = a->cold = a->hist = 0;
  a->vb = sizeof(double) * (size_t)n;
  a->tol = s->opt.tolerance;
  a->op = (admm_op){.p = p, .n = n, .nd = p->Y && !p->dense ? p->nv : 0, .kd = -1};
  admm_state* st = solver_admm(s);
  // the problem's own rows ascend (solver.h), an island's renumbered copy (island_in_dofs) not
  if (a->op.nd > 0 && st && st->run && p->nc <= st->maxc)
    a->op.run = admm_runs(p, p->ydof != st->yi, st->run);
  size_t mat = a->op.nd > 0 ? (size_t)a->op.nd * (size_t)a->op.nd : (size_t)n * (size_t)n;
  double* v = s->work + 2 * mat;
  a->L = s->work;
  a->Ks = s->work + mat;
  a->z = v;             // projected iterate (the answer)
  a->zp = v + n;        // previous z
  a->gam = v + 2 * n;   // dual: -(c + s) at convergence
  a->c = v + 3 * n;     // G~ z + g
  a->sh = v + 4 * n;    // de Saxce shift (zero for the CCP)
  a->x = v + 5 * n;     // unprojected (then relaxed) iterate l
  a->best = v + 6 * n;  // iterate with the smallest model residual so far
  a->c0 = v + 7 * n;    // velocity at z = 0 (= g)
  a->xp = v + 8 * n;    // previous x: the proximal centre
  a->w1 = v + 9 * n;    // scratch of the power iteration
  a->kx = v + 10 * n;   // Ks l_prev
  a->op.A = v + 11 * n;  // factored form: the diagonal A of the Woodbury solve
  a->op.w = v + 12 * n;  // factored form: dof-space scratch (nd <= n)
  a->op.t = v + 13 * n;
  a->wz = v + 14 * n;    // the point the projection step projects
  // 15n, 16n: the condim 4/6 weights below (else 15n: the natural residual's G~_NN); 17n..20n: the round-off jump's kept state, needed
  // during its trial iteration only (admm_polish's G~ starts at 17n: not tried then)
  a->kp.z = v + 17 * n;
  a->kp.xp = v + 18 * n;
  a->kp.gam = v + 19 * n;
  a->kp.c = v + 20 * n;
  a->wt = a->sig = NULL;
  a->gn = NULL;
  if (p->link) {
    a->wt = v + 15 * n;
    a->sig = v + 16 * n;
    pair_weights(p, a->wt);
  } else if (a->natural) {  // 15n: each normal's G~_NN once a solve (nc of the n)
    double* gn = v + 15 * n;
    for (int i = 0; i < p->nc; i++) gn[i] = gdiag(&a->op, 3 * i + 2);
    a->gn = gn;
  }
}

// the stopping residual of z given its model residual q and velocity c: with the NCP residual
// when the CCP is held to it, with the natural residual under solver.criterion: natural
static double admm_natural(const admm_run* a, double r, const double* z, const double* c);
static double admm_stop(admm_run* a, double q, const double* z, const double* c) {
  double r = a->twice ? fmax(q, residual(a->p, 1, z, c)) : q;
  a->rb = r;
  return a->natural && !isnan(r) ? admm_natural(a, r, z, c) : r;
}

// the larger of r and z's natural residual (velocity c)
static double admm_natural(const admm_run* a, double r, const double* z, const double* c) {
  double nat = a->gn ? solver_natural_gnn(a->p, z, c, a->gn)
                     : solver_natural_on(a->p, z, c, NULL, a->nc);
  return nat <= r ? r : nat;
}

// admm_stop of the warm start (or zero): above the tolerance without the natural residual,
// the start fails whatever it adds, and its value is needed only when the start is the answer
// (admm_iterate): deferred (a->lazy), 0.8 % of a 2-cube stack's step
static double admm_stop_warm(admm_run* a, double q, const double* z, const double* c) {
  double r = a->twice ? fmax(q, residual(a->p, 1, z, c)) : q;
  a->rb = r;
  a->lazy = a->natural && r > a->tol;
  return a->natural && !isnan(r) && !a->lazy ? admm_natural(a, r, z, c) : r;
}

// warm start z = proj_K(lambda), or zero when zero has the smaller q (c = g there: no
// product); sets a->q, a->r. 1 when z already meets the tolerance
static int admm_warm(admm_run* a, const double* lambda) {
  const solver_problem* p = a->p;
  cones_project(p, lambda, a->z);
  // from zero (a cold start; KaplasTower-i1061-4's dense rows are 23 MB) c = g + G~ 0, whose
  // rows are +0 for a finite G~: g + 0.0 has the product's bits without reading G
  int zero = 1;
  for (int k = 0; k < a->n && zero; k++) zero = a->z[k] == 0;
  if (zero)
    for (int k = 0; k < a->n; k++) a->c[k] = p->g[k] + 0.0;
  else
    velocity(&a->op, a->z, a->c);
  a->q = residual_m(p, a->ncp, a->z, a->c, a->ncp ? &a->met : NULL);
  a->met_ok = a->ncp && isfinite(a->q);
  a->r = admm_stop_warm(a, a->q, a->z, a->c);
  if (!(a->r <= a->tol)) {
    memset(a->best, 0, a->vb);
    memcpy(a->c0, p->g, a->vb);
    solver_result m0;
    // zero's residual only matters when below q: its pass ends once it reaches q (on a
    // resting stack, at the first contact: its normal velocity g_n ~ -g dt)
    double q0 = residual_upto(p, a->ncp, a->best, a->c0, a->ncp ? &m0 : NULL, a->q);
    if (!(a->q <= q0)) {
      a->met = m0;
      a->met_ok = a->ncp && isfinite(q0);
      a->q = q0;
      a->r = admm_stop_warm(a, q0, a->best, a->c0);
      memset(a->z, 0, a->vb);
      memcpy(a->c, a->c0, a->vb);
      a->cold = 1;
    }
  }
  return a->r <= a->tol;
}

// a Delassus matrix is symmetric, but one read from a file need not be (FCLib's Capsules W
// have skew parts of 1e-3 of their largest entry): the x-step factors the symmetric part and
// moves the skew part to the right-hand side at the previous l, so the fixed point is still
// c = G z + g + s = -gamma (without this, ADMM settles on the symmetric part's NCP). The
// factored form Y Y' + diag is symmetric by construction
static void admm_skew(admm_run* a) {
  int n = a->n;
  const double* G = a->p->dense;
  a->skew = 0;  // an island given as its blocks: set from the pattern's values (admm_sparse)
  for (int r = 0; r < n && G && !a->skew && a->op.nd == 0; r++)
    for (int k = 0; k < r; k++)
      if (G[(size_t)r * n + k] != G[(size_t)k * n + r]) {
        a->skew = 1;
        break;
      }
}

// the dense skew part Ks for the dense x-step only (the sparse one reads G over its pattern,
// skew_pattern): filling it is O(n^2) strided reads and, on a 1710-row FCLib island, 23 MB of
// first-touched pages, more than CHOLMOD's factor (KaplasTower-i1061-4)
static void admm_skew_dense(admm_run* a) {
  int n = a->n;
  const double* G = a->p->dense;
  if (a->skew && !a->op.ce)
    for (int r = 0; r < n; r++)
      for (int k = 0; k < n; k++)
        a->Ks[(size_t)r * n + k] = 0.5 * (G[(size_t)r * n + k] - G[(size_t)k * n + r]);
}

// dof space: the dofs in band order and a banded factor when the band is narrow (a chain of
// trees), O(nd kd^2) against the dense O(nd^3 / 3); the order's scratch is the solver's
// (sized for nv dofs and max_chain entries per contact: solver_create). A contact's dofs span
// at least its nz - 1 positions in any order, so kd >= max nz - 1: when that already fails the
// ratio (one body, two touching cubes) the order is not computed. 1 when banded
static int admm_band(const solver* s, admm_run* a) {
  const solver_problem* p = a->p;
  admm_op* op = &a->op;
  int nzmax = 0;
  for (int i = 0; i < p->nc && op->nd > 0; i++)
    if (p->ynz[i] > nzmax) nzmax = p->ynz[i];
  const admm_state* st = solver_admm(s);
  int fact = st->fact;
  if (op->nd > 0 && !st->band_off && (fact == ADMM_FACT_AUTO || fact == ADMM_FACT_BAND) &&
      st->yord && p->nv <= s->opt.nv &&
      p->ystride <= s->opt.max_chain && kBandRatio * (nzmax - 1) <= op->nd &&
      (fact == ADMM_FACT_BAND || op->nd > kBandMin)) {
    const int* cord;
    int kd = band_order(p, st->yord + p->nv, st->yord, &cord);
    // auto: a band wider than nd / kBandWide on an island the sparse factor may take is left
    // to it (kBandWide above)
    int wide = fact == ADMM_FACT_AUTO && op->nd >= kSparseMin &&
               kBandWide * kd > op->nd;
    if (kBandRatio * kd <= op->nd && !wide) {
      op->kd = kd;
      op->perm = st->yord;
      op->cord = cord;
    }
  }
  return op->kd >= 0;
}

// the pattern of I + Y' A^-1 Y in the island's local dofs into the cache's scratch: entry (a, b)
// when one contact holds both dofs (zero or not: the pattern is structural, so it stays while
// the contacts hold the same dofs), the lower triangle by columns, rows ascending, the diagonal
// first. iw is scratch (admm_y_ord_ints: nd + 1 starts, nc ystride contacts, nd stamps).
// 0 on success
static int dof_pattern(const solver_problem* p, int* iw, chol_cache* cc) {
  int nd = p->nv, nc = p->nc, ws = p->ystride;
  int *dstart = iw, *stamp = iw + nd + 1, *dcon = stamp + nd;
  memset(dstart, 0, sizeof(int) * (size_t)(nd + 1));
  size_t bound = (size_t)nd;
  for (int i = 0; i < nc; i++) {
    bound += (size_t)p->ynz[i] * (size_t)(p->ynz[i] - 1) / 2;
    for (int k = 0; k < p->ynz[i]; k++) dstart[p->ydof[(size_t)i * ws + k] + 1]++;
  }
  if (bound > (size_t)nd * (size_t)(nd + 1) / 2) bound = (size_t)nd * (size_t)(nd + 1) / 2;
  for (int t = 0; t < nd; t++) dstart[t + 1] += dstart[t];
  memcpy(stamp, dstart, sizeof(int) * (size_t)nd);  // a fill cursor per dof first
  for (int i = 0; i < nc; i++)
    for (int k = 0; k < p->ynz[i]; k++) dcon[stamp[p->ydof[(size_t)i * ws + k]]++] = i;
  int *cp, *ri;
  if (chol_reserve(cc, nd, bound, &cp, &ri)) return 1;
  for (int t = 0; t < nd; t++) stamp[t] = -1;
  int cnt = 0;
  for (int j = 0; j < nd; j++) {
    cp[j] = cnt;
    ri[cnt++] = j;
    stamp[j] = j;
    for (int e = dstart[j]; e < dstart[j + 1]; e++) {
      const int* d = p->ydof + (size_t)dcon[e] * ws;
      for (int k = 0; k < p->ynz[dcon[e]]; k++)
        if (d[k] > j && stamp[d[k]] != j) {
          stamp[d[k]] = j;
          int q = cnt++;  // insertion by row
          for (; q > cp[j] + 1 && ri[q - 1] > d[k]; q--) ri[q] = ri[q - 1];
          ri[q] = d[k];
        }
    }
  }
  cp[nd] = cnt;
  return 0;
}

// the contact pairs with a nonzero 3x3 block of G (n x n row-major) into m (nc x nc bytes):
// m[a nc + b] = 1 when block (a, b) holds an entry != 0. One pass over G's rows in memory order
// (testing blocks (a, b) and (b, a) pair by pair read every other entry a row apart: on
// KaplasTower-i1061-4, 1710 rows, twice as long as CHOLMOD's numeric factor)
static void block_marks(const double* G, int nc, unsigned char* m) {
  size_t n = 3 * (size_t)nc;
  memset(m, 0, (size_t)nc * (size_t)nc);
  for (size_t r = 0; r < n; r++) {
    const double* row = G + r * n;
    unsigned char* mr = m + (r / 3) * (size_t)nc;
    for (int b = 0; b < nc; b++)
      if (row[3 * b] != 0 || row[3 * b + 1] != 0 || row[3 * b + 2] != 0) mr[b] = 1;
  }
}

// block_marks of an island given as its blocks (solver.h's CSR over block rows, both triangles):
// the same marks, from the stored blocks alone
static void block_marks_csr(const solver_problem* p, unsigned char* m) {
  size_t nc = (size_t)p->nc;
  memset(m, 0, nc * nc);
  for (int a = 0; a < p->nc; a++)
    for (int k = p->rowptr[a]; k < p->rowptr[a + 1]; k++) {
      const double* B = p->blk + 9 * (size_t)k;
      int nz = 0;
      for (int e = 0; e < 9; e++) nz |= B[e] != 0;
      if (nz) m[(size_t)a * nc + (size_t)p->col[k]] = 1;
    }
}

// 1 when contacts a and b share dofs: a nonzero entry in block (a, b) or (b, a) (block_marks)
static int block_nonzero(const unsigned char* m, size_t nc, int a, int b) {
  return m[(size_t)a * nc + (size_t)b] || m[(size_t)b * nc + (size_t)a];
}

// the pattern of G~'s lower triangle in contact space into the cache's scratch: whole 3x3 blocks
// of the contact pairs whose block is not zero (a block is zero exactly when the two contacts
// share no dofs, solver_gdense), the diagonal blocks always; by columns, rows ascending. One pass
// over G's rows (block_marks, into scratch: nc^2 bytes), two over the marks (count, then fill).
// 0 on success
static int contact_pattern(const solver_problem* p, chol_cache* cc, unsigned char* scratch) {
  int nc = p->nc, n = 3 * nc;
  size_t blocks = 0;
  if (p->dense) block_marks(p->dense, nc, scratch);
  else block_marks_csr(p, scratch);
  for (int b = 0; b < nc; b++)
    for (int a = b; a < nc; a++) blocks += a == b || block_nonzero(scratch, (size_t)nc, a, b);
  int *cp, *ri;
  if (chol_reserve(cc, n, 9 * blocks, &cp, &ri)) return 1;
  int cnt = 0;
  for (int b = 0; b < nc; b++) {
    int start = cnt;
    for (int a = b; a < nc; a++)
      if (a == b || block_nonzero(scratch, (size_t)nc, a, b))
        for (int r = 0; r < 3; r++) ri[cnt++] = 3 * a + r;
    int len = cnt - start;  // column 3b + t holds these rows from row 3b + t on
    for (int t = 0; t < 3; t++) {
      cp[3 * b + t] = t == 0 ? start : cp[3 * b + t - 1] + len - (t - 1);
      if (t > 0 && len > t)  // len >= 3 (the diagonal block): the test is for -O2's bound check
        memcpy(ri + cp[3 * b + t], ri + start + t, sizeof(int) * (size_t)(len - t));
    }
    cnt = cp[3 * b + 2] + len - 2;
  }
  cp[n] = cnt;
  return 0;
}

// block (a, b) of an island given as its blocks (rows' columns ascending), NULL when not
// stored (zero)
static const double* csr_block(const solver_problem* p, int a, int b) {
  int lo = p->rowptr[a], hi = p->rowptr[a + 1] - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (p->col[mid] == b) return p->blk + 9 * (size_t)mid;
    if (p->col[mid] < b) lo = mid + 1;
    else hi = mid - 1;
  }
  return NULL;
}

// contact space: G's values over the sparse factor's pattern into w (2 nnz doubles: the
// rule's nnz(L) < n^2 / 4 leaves them within the n^2 of the dense skew part's work), gl then
// gu (admm_op), from the dense rows or the island's blocks; the only pass over the dense rows after the pattern's (the reads of G(j, r) go
// down column j, a cache line per entry, once instead of at every product and factorization)
static void pattern_values(admm_op* op, double* w) {
  const int *cp = chol_colp(op->ce), *ri = chol_rowi(op->ce);
  const solver_problem* p = op->p;
  const double* G = p->dense;
  size_t n = (size_t)op->n, nz = (size_t)cp[op->n];
  double *gl = w, *gu = w + nz;
  int la = -1, lb = -1;
  const double *bab = NULL, *bba = NULL;  // an island given as its blocks: (a, b) and (b, a)
  for (int j = 0; j < op->n; j++)
    for (int k = cp[j]; k < cp[j + 1]; k++) {
      size_t r = (size_t)ri[k];
      if (G) {
        gl[k] = G[r * n + (size_t)j];
        gu[k] = G[(size_t)j * n + r];
        continue;
      }
      int a = (int)r / 3, b = j / 3;
      if (a != la || b != lb) {
        bab = csr_block(p, a, b);
        bba = csr_block(p, b, a);
        la = a;
        lb = b;
      }
      gl[k] = bab ? bab[3 * (r % 3) + (size_t)(j % 3)] : 0;
      gu[k] = bba ? bba[3 * (size_t)(j % 3) + r % 3] : 0;
    }
  op->gl = gl;
  op->gu = gu;
}

// the sparse factor (CHOLMOD, chol_sparse.h) for an island not factored banded: its pattern
// (dof_pattern or contact_pattern), the kept analysis of it or a new one (AMD), then the rule:
// sparse when the island has at least kSparseMin rows and the analysis's flop count and nnz(L)
// beat the dense factor's n^3 / 3 and n^2 / 2 by kSparseFlops and kSparseNnz (the iteration
// does one solve per step and a factorization per rho change). 1 when sparse
// the kept or new analysis of island p's pattern (nd > 0: dof space, else contact space, n
// rows) when the rule above takes the sparse factor, else NULL; scratch (n^2 doubles, the
// dense factor's work) holds contact space's marks
static chol_entry* sparse_entry(solver* s, const solver_problem* p, int nd, int n,
                                void* scratch) {
  admm_state* st = solver_admm(s);
  int dim = nd > 0 ? nd : n, fact = st->fact;
  if (fact == ADMM_FACT_DENSE || fact == ADMM_FACT_BAND || st->band_off ||
      (fact == ADMM_FACT_AUTO && dim < kSparseMin))
    return NULL;
  // dof space: a contact's nz dofs are a clique of the pattern, so nnz(L) >= nz (nz - 1) / 2
  // under any order; when that alone fails the rule below (a chain lying down: its farthest
  // link's contacts hold every dof), the island is dense whatever the analysis says, and the
  // pattern (O(sum nz^2), as much as a factorization) is not built for it every step
  if (fact == ADMM_FACT_AUTO && nd > 0) {
    double nzmax = 0;
    for (int i = 0; i < p->nc; i++) nzmax = fmax(nzmax, p->ynz[i]);
    if (kSparseNnz * nzmax * (nzmax - 1) / 2 >= (double)nd * nd / 2) return NULL;
  }
  // CHOLMOD's cache is made with the first analysis, which allocates anyway (chol_sparse.h), so
  // a solver that never factors sparse holds none of it
  if (!st->chol && !(st->chol = chol_create())) return NULL;
  if (nd > 0 && (!st->yord || p->nv > s->opt.nv || p->ystride > s->opt.max_chain)) return NULL;
  if (nd > 0 ? dof_pattern(p, st->yord, st->chol)
             : contact_pattern(p, st->chol, (unsigned char*)scratch))
    return NULL;
  int analysed;
  chol_entry* e = chol_lookup(st->chol, dim, &analysed);
  if (!e) return NULL;
  double dn = dim;
  if (fact == ADMM_FACT_AUTO && !(kSparseFlops * chol_flops(e) < dn * dn * dn / 3 &&
                                  kSparseNnz * chol_lnz(e) < dn * dn / 2))
    return NULL;
  return e;
}

static int admm_sparse(solver* s, admm_run* a, chol_entry* pre) {
  admm_op* op = &a->op;
  chol_entry* e = pre ? pre : sparse_entry(s, a->p, op->nd, a->n, a->L);
  if (!e) return 0;
  op->cc = solver_admm(s)->chol;
  op->ce = e;
  if (op->nd > 0) {
    sparse_pos(op, (int*)(void*)a->L);
    op->pos = (const int*)(void*)a->L;
    return 1;
  }
  pattern_values(op, a->Ks);  // the dense skew part's work, unused on this path
  if (!a->p->dense)  // an island given as its blocks: skew where the pattern's two halves differ
    for (int k = 0; k < chol_colp(e)[a->n] && !a->skew; k++) a->skew = op->gl[k] != op->gu[k];
  return 1;
}

// spectral penalty (CLM24): L the largest eigenvalue of G~, m = prox + min R its
// proximal lower bound, rho = sqrt(L m) (L/m)^p with the power p kept across calls
static void admm_spectrum(solver* s, admm_run* a) {
  const solver_problem* p = a->p;
  double dmax = 0, rmin = INFINITY, tr = 0;
  for (int k = 0; k < a->n; k++) {  // a normal's G~_NN is the natural residual's when kept
    double gk = a->gn && k % 3 == 2 ? a->gn[k / 3] : gdiag(&a->op, k);
    dmax = solver_max(dmax, gk);
    tr += gk;
    if (p->R) rmin = fmin(rmin, p->R[k]);
  }
  if (!p->R && a->n > 0) rmin = 0;  // fmin over zeros
  double Lmax = eig_cached(s, a->n, a->op.nd, tr, dmax);
  if (isnan(Lmax)) {
    Lmax = largest_eig(&a->op, a->w1, a->x);
    eig_keep(s, a->n, a->op.nd, tr, dmax, Lmax);
  }
  if (!(dmax > 0) || !isfinite(dmax)) dmax = 1;
  if (!(Lmax >= dmax) || !isfinite(Lmax)) Lmax = fmax(dmax, isfinite(Lmax) ? Lmax : 0);
  double m = kProx * Lmax + (rmin > 0 && isfinite(rmin) ? rmin : 0);
  a->Lmax = Lmax;
  a->m = m;
  a->prox = kProxTerm * Lmax;  // the proximal weight of the x-step
  a->cond = fmax(Lmax / m, 1 + 1e-12);
  a->incr = pow(a->cond, kPowerStep);  // the spectral step: rho *= or /= cond^kPowerStep
  a->dir = 0;
  a->jump = ADMM_JUMP_NONE;
  a->rho_lo = kRhoLo * Lmax;
  a->rho_hi = kRhoHi * Lmax;
  double rho;
  if (s->opt.rho_adaptive) {
    double pw = solver_admm(s)->rho > 0 ? log(solver_admm(s)->rho) : kPower0;
    rho = sqrt(Lmax * m) * pow(a->cond, pw);
  } else {
    rho = s->opt.rho;
  }
  a->rho = fmin(fmax(rho, a->rho_lo), a->rho_hi);
}

// the dual of a condim 4/6 pair (contact i, spin entry j) at z from w = c + s: the dual that
// one projection and ascent of ADMM (admm_project) give from l = z and gamma = -w, i.e.
// gamma = P (y - P_K(y)) with y = z - P^-1 w, P the rows' penalties (pen) and P_K the projection
// in their metric (pair_project; Moreau: P (y - P_K(y)) is in K_a's polar cone, so -gamma in
// K_a*). When z and w solve the pair (z in K_a, w in K_a*, <z, w> = 0), -w is in the normal
// cone of K_a at z, P_K(y) = z and gamma = -w: the fixed point is kept, as dual_init's face rule
// keeps it for a contact, without forming the normal cone of the ellipsoidal cone at z (the
// projection does that). Elsewhere it is a start like any other: ADMM's fixed point does not
// depend on it
static void pair_dual(admm_run* a, int i, int j) {
  int row[6] = {3 * i, 3 * i + 1, 3 * i + 2, 3 * j, 3 * j + 1, 3 * j + 2};
  double y[6], q[6];
  for (int k = 0; k < 6; k++)
    q[k] = y[k] = a->z[row[k]] - (a->c[row[k]] + a->sh[row[k]]) / pen(a, row[k]);
  pair_project(a->p, i, j, q, q + 3);
  for (int k = 0; k < 6; k++) a->gam[row[k]] = pen(a, row[k]) * (y[k] - q[k]);
}

// the shift at z and the dual on the face of z (dual_init; pair_dual for a condim 4/6 pair), or
// the previous step's dual of the same contact (matched by id by the caller) when given; the
// proximal centre at z
static void admm_dual_start(const solver* s, admm_run* a) {
  const solver_problem* p = a->p;
  desaxce_shift(p, a->ncp, a->c, a->sh);
  for (int i = 0; i < a->nc; i++) {
    const double *c = a->c, *sh = a->sh;
    double w[3] = {c[3 * i], c[3 * i + 1], c[3 * i + 2] + sh[3 * i + 2]};
    int j = link_of(p, i);  // a spin entry's dual is its pair's (j > i: the tail, contact.h)
    if (j == -1) dual_init(a->z + 3 * i, w, p->mu[i], a->gam + 3 * i);
    else if (j >= 0) pair_dual(a, i, j);
    const double* dw = s->dual_in ? s->dual_in + 3 * i : NULL;
    if (dw && isfinite(dw[0]) && isfinite(dw[1]) && isfinite(dw[2]))
      memcpy(a->gam + 3 * i, dw, 3 * sizeof(double));
  }
  memcpy(a->xp, a->z, a->vb);
}

// the x-step: NCP, the de Saxce shift from the dual's tangential part (-gamma_T = c_T at the
// fixed point; a condim 4/6 pair's five friction components, pair_shift), every iteration as in
// CLM24 Alg. 1 (no product with G); then the proximal solve
// (G~ + (rho + prox) I) l = rho z + prox l_prev - gamma - g - s (- Ks l_prev), rho per row with
// condim 4/6 pairs (pen)
static int admm_xsolve(admm_run* a, double* x);

static int admm_xstep(admm_run* a) {
  const solver_problem* p = a->p;
  int n = a->n;
  double prox = a->prox;
  double *x = a->x, *z = a->z, *xp = a->xp, *gam = a->gam, *sh = a->sh;
  for (int i = 0; i < a->nc; i++) {
    int j = link_of(p, i);
    if (j < -1 || !(a->ncp || (p->box && p->box[i]))) continue;  // a spin entry: no shift
    sh[3 * i + 2] =
        j >= 0 ? pair_shift(p, i, j, gam) : p->mu[i] * hypot(gam[3 * i], gam[3 * i + 1]);
  }
  for (int k = 0; k < n; k++) x[k] = pen(a, k) * z[k] + prox * xp[k] - gam[k] - p->g[k] - sh[k];
  if (a->skew && a->op.ce) {
    skew_pattern(&a->op, xp, a->kx);
    for (int k = 0; k < n; k++) x[k] -= a->kx[k];
  } else if (a->skew) {
    for (int r = 0; r < n; r++) {
      const double* Kr = a->Ks + (size_t)r * n;
      double acc = 0;
      for (int k = 0; k < n; k++) acc += Kr[k] * xp[k];
      a->kx[r] = acc;
    }
    for (int k = 0; k < n; k++) x[k] -= a->kx[k];
  }
  return admm_xsolve(a, x);
}

// relaxed l, projection (cones_project: a condim 4/6 pair together), dual ascent (000 Alg. 3
// lines 4-5); the primal residual |l - z| in *dprim, the dual one |rho dz + prox dl| in *ddual
// (maxima)
static void admm_project(admm_run* a, double alpha, double* dprim, double* ddual,
                         double* zmax) {
  double prox = a->prox;
  double *x = a->x, *z = a->z, *zp = a->zp, *xp = a->xp, *gam = a->gam, *w = a->wz;
  memcpy(zp, z, a->vb);
  double dp = 0, dd = 0, zm = 0;
  for (int j = 0; j < a->n; j++) {
    double xr = alpha * x[j] + (1 - alpha) * zp[j];
    dd = solver_max(dd, fabs(prox * (x[j] - xp[j])));  // completed below with rho dz
    xp[j] = x[j];
    x[j] = xr;
    w[j] = x[j] + gam[j] / pen(a, j);
  }
  cones_project(a->p, w, z);
  for (int j = 0; j < a->n; j++) {
    double r = pen(a, j);
    gam[j] += r * (x[j] - z[j]);
    dp = solver_max(dp, fabs(x[j] - z[j]));
    dd = solver_max(dd, fabs(r * (z[j] - zp[j])));
    zm = solver_max(zm, fabs(z[j]));
  }
  *dprim = dp;
  *ddual = dd;
  *zmax = zm;
}

// the state the round-off jump's trial starts from (admm_rho_jump, admm_undo)
static void admm_jump_keep(admm_run* a, double dprim, double ddual) {
  admm_keep* k = &a->kp;
  memcpy(k->z, a->z, a->vb);
  memcpy(k->xp, a->xp, a->vb);
  memcpy(k->gam, a->gam, a->vb);
  memcpy(k->c, a->c, a->vb);
  k->q = a->q;
  k->r = a->r;
  k->rb = a->rb;
  k->held = a->held;
  k->dir = a->dir;
  k->incr = a->incr;
  k->rho = a->rho;
  k->dprim = dprim;
  k->ddual = ddual;
}

// |l - z| <= kNegligible |z|: no projection moved its point beyond half the digits of z.
// Round-off alone (16 eps) left KaplasTower's first iteration out (|l - z| = 2e-11 of
// |z| = 0.07, from the dual's start on a few contacts): 4 iterations and 3 factorizations at
// eps 1e-6 against 3 and 2 (the trial keeps the jump safe either way; the FCLib files whose
// answers change are the same under both, docs/benchmarks.md)
static const double kNegligible = 1.4901161193847656e-08;  // sqrt(DBL_EPSILON)

// the round-off jump. A primal residual |l - z| negligible against z (kNegligible: every
// projection left its point where it was, each contact inside its cone or already on its face;
// |l - z| is 1e-17 there) carries no information, so the spectral rule below reads the dual
// residual alone and lowers rho by cond^kPowerStep on every iteration, each time refactoring: on
// KaplasTower-i1061-4 (one island of 570 contacts, every one sticking) 9 iterations, 9
// factorizations of 1710 rows for halving rho 0.21 -> 8.5e-4. There ADMM is the proximal point
// iteration on the linear system of the current faces, whose error shrinks by
// rho / (lambda + rho) on an eigenvalue lambda of G~, so the smallest rho the rule assumes, m
// (the spectrum's lower end, admm_spectrum), is the best, unless the faces are not the answer's
// or G~ has near-null directions (a statically indeterminate stack: internal forces) that the
// proximal term was holding: then the step at m leaves the cones (BoxesStack1-i100000-32:
// |z| 0.81 -> 2.03, q 8.7e-3 -> 0.21). Hence a trial: rho jumps to m once (one factorization)
// with the iterate kept (admm_jump_keep); the next iteration is kept when its model residual q
// is below the kept one, else undone (admm_undo: the kept iterate, rho, and the rule's own move
// from there, so the iteration goes on as it would have without the trial, bit for bit; the
// trial is not counted as an iteration, its factorization is). Kept, rho holds at m while the
// dual residual leads, and returns to where the rule left it (one more factorization) when the
// primal one leads by kRatio. One trial a solve, on islands factored sparse only (CHOLMOD,
// admm_sparse), where a factorization costs tens of solves (KaplasTower: 87e6 instructions
// against 1.3e6): on the banded and dense factors of the simulated stacks and chains, whose
// factorizations are cheap, the exact step at m picks other internal forces than the previous
// step's answer held, so the warm start stopped converging (stack_8 under ncp/admm 618 -> 1303
// iterations over 1000 steps, chain_40 4285 -> 9035). Returns 1 when rho moved (refactor), -1
// when it holds, 0 when the spectral rule decides
static int admm_rho_jump(admm_run* a, double dprim, double ddual, double rp, double rd,
                         double zmax) {
  double lo = fmax(a->m, a->rho_lo);
  if (a->op.ce && a->jump == ADMM_JUMP_NONE && dprim <= kNegligible * zmax &&
      rd > kRatio * rp && lo < a->rho) {
    admm_jump_keep(a, dprim, ddual);
    a->rho = lo;
    a->jump = ADMM_JUMP_TRIAL;
    return 1;
  }
  if (a->jump != ADMM_JUMP_HELD) return 0;
  if (!(rp > kRatio * rd)) return -1;
  a->rho = a->kp.rho;
  a->jump = ADMM_JUMP_DONE;
  return 1;
}

// spectral rule (CLM24): a primal residual |l - z| more than kRatio times the dual one
// |rho dz + prox dl| raises rho by cond^kPowerStep, the converse lowers it; the factor of
// G~ + (rho + prox) I is redone only then. The primal residual is an impulse, the dual one a
// velocity: the paper compares them as they are (unit Delassus scale); a Delassus matrix below
// unit scale (LMGC's, Confeti's: L ~ 1e-4) has impulses 1/L larger, so the primal residual is
// taken in velocity units there, L |l - z| (measured on FCLib: either rule alone fails on one
// of the two groups). 0 when the new factor fails
static int admm_rho_update(admm_run* a, double dprim, double ddual, double zmax) {
  double rp = dprim * fmin(a->Lmax, 1), rd = ddual;
  int moved = admm_rho_jump(a, dprim, ddual, rp, rd, zmax);
  if (moved) return moved < 0 || !admm_refactor(a);
  double rho = a->rho, nrho = rho;
  if (rp > kRatio * rd)
    nrho = rho * a->incr;
  else if (rd > kRatio * rp)
    nrho = rho / a->incr;
  nrho = fmin(fmax(nrho, a->rho_lo), a->rho_hi);
  if (nrho == rho) return 1;
  // the CCP: a move that reverses the last one halves the step (in log rho). On a chain lying
  // flat (40 contacts on 15 dofs, G of rank 15) the rule alternated between two rho a factor
  // cond^kPowerStep = 2 apart on every iteration and never converged (91 of 1000 steps at the
  // cap, issue 26); damped, none. The NCP is left as it is: the same damping raised its mean
  // iterations there from 1.3 to 3.0 and it converged without it
  int dir = nrho > rho ? 1 : -1;
  if (!a->ncp && dir == -a->dir) {
    a->incr = sqrt(a->incr);
    nrho = fmin(fmax(dir > 0 ? rho * a->incr : rho / a->incr, a->rho_lo), a->rho_hi);
  }
  a->dir = dir;
  a->rho = nrho;
  return !admm_refactor(a);
}

// the round-off jump's trial undone (admm_rho_jump): the kept iterate, dual, proximal centre,
// velocity, residuals and rule state, then the rule's own move from the kept residuals (its
// factorization). 0 when that factor fails
static int admm_undo(admm_run* a) {
  const admm_keep* k = &a->kp;
  memcpy(a->z, k->z, a->vb);
  memcpy(a->xp, k->xp, a->vb);
  memcpy(a->gam, k->gam, a->vb);
  memcpy(a->c, k->c, a->vb);
  a->q = k->q;
  a->r = k->r;
  a->rb = k->rb;
  a->held = k->held;
  a->dir = k->dir;
  a->incr = k->incr;
  a->rho = k->rho;
  a->jump = ADMM_JUMP_DONE;
  a->met_ok = 0;
  return admm_rho_update(a, k->dprim, k->ddual, 0);
}

// the Newton finish (polish.c, issue 26): tried every kPolishEvery iterations of an island that
// has not converged and once more at the cap, on islands up to kPolishRows rows (its LU is
// O(n^3) a step), at most kPolishIt steps, aiming at kPolishAim of the tolerance (it converges
// quadratically where it converges, and the NCP residual the answer is held to is not its
// natural residual). Measured on humanoid100 under ncp/auto (docs/models_and_solvers.md; with
// the natural test held to the cap): a first try at 50 iterations ended 255 steps unconverged,
// at 25 and at 100 280 and 271, only at the cap 280 (289 without it); with the grace below, 15
// Newton steps a try 206 (10: 244, 30: 207 at more instructions). G~ is built once a solve, a
// factor a Newton step
static const int kPolishRows = 192, kPolishIt = 15, kPolishEvery = 50;
static const double kPolishAim = 1e-2;
// auto's coupled islands under the natural residual (admm_state natural_soft): iterations in a
// row with every other residual met before the natural one is dropped. humanoid100 (ncp/auto):
// 20 ended 233 steps unconverged where holding it to the cap ended 255, 50 240, 5 230; chains
// meet it within a few iterations or not at all (docs/models_and_solvers.md)
static const int kNaturalGrace = 20;

// the Newton finish on the NCP's natural map (polish.c) from z: 1 when its answer's stopping
// residual meets the tolerance, or with improve set is below the run's (z, c, q, r then its
// answer), 0 with the run untouched. Plain contacts of the NCP only (no condim 4/6 pair, no box
// entry); the island's dense G~, built column by column, lies after ADMM's vectors in the work
// (not tried when the work cannot hold it and Newton's matrix)
static int admm_polish(solver* s, admm_run* a, int improve) {
  const solver_problem* p = a->p;
  int n = a->n;
  if (!a->ncp || n > kPolishRows) return 0;
  for (int i = 0; i < a->nc; i++)
    if ((p->link && p->link[i] != -1) || (p->box && p->box[i])) return 0;
  size_t nn = (size_t)n * (size_t)n;
  size_t mat = a->op.nd > 0 ? (size_t)a->op.nd * (size_t)a->op.nd : nn;
  size_t off = 2 * mat + 17 * (size_t)n;  // admm_setup's matrices and vectors
  if (off + nn + polish_doubles(n) > s->nwork) return 0;
  // scratch between iterations: w1 (power iteration), x (rewritten by the x-step), wz (by the
  // projection step)
  double *G = s->work + off, *e = a->w1, *col = a->x, *l = a->wz, *c = a->w1;
  memset(e, 0, a->vb);
  for (int k = 0; k < n && !a->gready; k++) {
    memset(col, 0, a->vb);
    e[k] = 1;
    velocity_h(&a->op, e, col);
    e[k] = 0;
    for (int r = 0; r < n; r++) G[(size_t)r * (size_t)n + (size_t)k] = col[r];
  }
  a->gready = 1;
  memcpy(col, a->z, a->vb);
  polish_ncp(a->nc, G, p->g, p->mu, col, G + nn, kPolishIt, kPolishAim * a->tol);
  cones_project(p, col, l);  // Newton's iterate need not lie in the cones until it converges
  velocity(&a->op, l, c);
  double q = residual(p, 1, l, c), r = admm_stop(a, q, l, c);
  if (improve ? !(r < a->r) : !(r <= a->tol)) return 0;
  memcpy(a->z, l, a->vb);
  memcpy(a->c, c, a->vb);
  a->q = q;
  a->r = r;
  a->fresh = 1;
  a->met_ok = 0;
  return 1;
}

// the kept factor (issue 26). A resting stack or chain solves one island a step, its contacts on
// the same dofs, its rho the last step's, and 62 % of its steps take an ADMM iteration, so a
// factorization, of a matrix whose Y moved ~1e-7 relative (chain_40's dense 45 dofs: 5.5e5
// instructions, 60 % of the solve). The work's dense or banded dof-space factor is then kept for
// the next solve of the same pattern and shift, whose x-step solves with it and refines once
// against the current G~ (admm_xsolve): the exact x-step to (|dx| / |x|)^2, the refinement's
// correction dx held below kKeptTol |x|, else the island is refactored there and then.
static const double kKeptTol = 1e-4;
// and a shift within this (relative) of the kept factor's is its (the refinement takes the rest)
static const double kKeptSigma = 1e-9;
// islands of fewer dofs refactor: there the refinement's product and second solve cost as much
// as the factorization (ncp/auto, instructions per step, kept against refactored: 2-cube stack,
// 12 dofs, 66.35e3 / 66.54e3, again 55.62e3 / 55.90e3 in session 22; chain_5, 10 dofs, 138.1e3 /
// 136.5e3; chain_20, 25 dofs, 810.0e3 / 839.5e3; chain_40, 45 dofs, 2.458e6 / 2.662e6). Since
// the products take a link's or a cube pair's four contacts in one pass (run4), the refinement
// is the cheaper from 10 dofs (session 23: 2-cube stack 52.08e3 / 53.17e3, chain_5 119.37e3 /
// 119.98e3, chain_10, 15 dofs, 267.5e3 / 274.0e3). The
// 2-cube stack's refactorizations (645 of 1000 steps) are its 1-iteration solves, rho and the
// shift the same each time: its warm start fails on those steps (its normal velocities swing
// -4e-7 -> -1.4e-6 -> +1.3e-6 m/s over a 3-step cycle with the impulses kept), G~ moved; the
// corrections' history (admm_secant) now answers those steps without a solve
static const int kKeptMin = 10;

// island p's pattern, its contacts' dofs in order (FNV-1a over them): the kept factor's
// identity with its contacts and dofs counts and band (a collision would hand the x-step a
// factor of another matrix, which the refinement's test then refactors: never a wrong step).
// A contact on one run of dofs (run, admm_op) is its count and first dof
static uint64_t pattern_hash(const solver_problem* p, const unsigned char* run) {
  uint64_t h = 1469598103934665603ull;
  size_t w = (size_t)p->ystride;
  for (int i = 0; i < p->nc; i++) {
    const int* d = p->ydof + (size_t)i * w;
    int nz = p->ynz[i], m = run && run[i] && nz > 0 ? 1 : nz;
    h = (h ^ (uint64_t)(unsigned)nz) * 1099511628211ull;
    for (int k = 0; k < m; k++) h = (h ^ (uint64_t)(unsigned)d[k]) * 1099511628211ull;
  }
  return h;
}

// at a solve's start, before anything writes the work: whether island p is the kept factor's
// (a->kept), the kept factor dropped otherwise (the work is about to be reused)
static void admm_kept(solver* s, admm_run* a) {
  admm_state* st = solver_admm(s);
  a->kept = a->stale = 0;
  a->phash = 0;
  if (!st) return;
  if ((a->op.nd >= kKeptMin || (!st->hist_off && a->op.nd > 0)) && !a->p->link)
    a->phash = pattern_hash(a->p, a->op.run);
  a->kept = st->fk_valid && a->op.nd >= kKeptMin && !a->p->link && st->fk_nc == a->nc &&
            st->fk_nd == a->op.nd && st->fk_hash == a->phash;
  if (!a->kept) st->fk_valid = 0;
}

// once the factor's form and rho are known: the x-step uses the kept factor when it is this
// island's, dense or banded as now, at this shift (a->stale), else it is dropped
static void admm_stale(solver* s, admm_run* a) {
  admm_state* st = solver_admm(s);
  double sig = a->rho + a->prox;  // the carried rho's power need not give back its bits
  a->stale = a->kept && !a->op.ce && !a->wt && a->op.kd == st->fk_kd &&
             fabs(sig - st->fk_sigma) <= kKeptSigma * sig;
  if (st && !a->stale) st->fk_valid = 0;
}

// the solve's start on the kept factor: A = sigma + R + ydiag of this step (factor_dofs's
// contact_ia). 1 when one is not positive and finite
static int admm_stale_start(admm_run* a) {
  double ia[3];
  for (int i = 0; i < a->nc; i++)
    if (contact_ia(&a->op, i, a->rho + a->prox, ia)) return 1;
  return 0;
}

// x := (G~ + sigma I)^-1 x: xsolve, on the kept factor (a->stale) refined once,
// x1 = P b, x = x1 + P (b - (G~ + sigma I) x1), P the kept factor's solve (kKeptTol). 1 when the
// refactorization that replaces a kept factor too far from G~ fails
static int admm_xsolve(admm_run* a, double* x) {
  if (!a->stale) {
    xsolve(&a->op, a->L, x);
    return 0;
  }
  double *b = a->kx, *r = a->w1, sig = a->rho + a->prox, xm = 0, dm = 0;
  memcpy(b, x, a->vb);
  xsolve(&a->op, a->L, x);
  memset(r, 0, a->vb);
  velocity_h(&a->op, x, r);
  for (int k = 0; k < a->n; k++) {
    r[k] = b[k] - r[k] - sig * x[k];
    xm = solver_max(xm, fabs(x[k]));
  }
  xsolve(&a->op, a->L, r);
  for (int k = 0; k < a->n; k++) dm = solver_max(dm, fabs(r[k]));
  if (dm <= kKeptTol * xm) {
    for (int k = 0; k < a->n; k++) x[k] += r[k];
    return 0;
  }
  memcpy(x, b, a->vb);  // the kept factor is too far from this G~: refactored
  if (admm_refactor(a)) return 1;
  xsolve(&a->op, a->L, x);
  return 0;
}

// at a solve's end: its factor kept for the next solve of the same pattern (dense or banded dof
// space, no condim 4/6 pair) when the work holds it, the factor of G~ + (rho + prox) I
static void admm_keep_factor(solver* s, const admm_run* a, int factored) {
  admm_state* st = solver_admm(s);
  if (!st) return;
  st->fk_valid = 0;
  if (st->keep_off || !factored || a->op.nd < kKeptMin || a->op.ce || a->wt || a->p->link)
    return;
  st->fk_hash = a->phash;
  st->fk_nc = a->nc;
  st->fk_nd = a->op.nd;
  st->fk_kd = a->op.kd;
  st->fk_sigma = a->rho + a->prox;
  st->fk_valid = 1;
}

// iterate from z until the stopping residual meets the tolerance, is not finite, the cap or a
// signal; the answer in z is the last iterate, or when not converged the best one by q.
// Returns the iterations
static int admm_iterate(solver* s, admm_run* a) {
  double qbest = a->q, rbest = a->r;  // the best iterate by q, and its stopping residual
  int lbest = a->lazy;                 // rbest lacks the natural residual (the start's)
  memcpy(a->best, a->z, a->vb);
  int it = 0;
  int ok = a->stale ? !admm_stale_start(a) : !admm_refactor(a);  // 0: non-finite or indefinite
  while (ok && it < s->opt.max_iterations && !intr_requested()) {
    it++;
    if (admm_xstep(a)) {  // the kept factor's replacement failed (admm_xsolve)
      it--;
      ok = 0;
      break;
    }
    double dprim, ddual, zmax;
    admm_project(a, s->opt.over_relaxation, &dprim, &ddual, &zmax);
    velocity(&a->op, a->z, a->c);
    a->q = residual_m(a->p, a->ncp, a->z, a->c, a->ncp ? &a->met : NULL);
    a->met_ok = a->ncp && isfinite(a->q);
    a->r = admm_stop(a, a->q, a->z, a->c);
    if (a->soft && a->rb <= a->tol && !(a->r <= a->tol)) {
      if (++a->held >= kNaturalGrace) a->r = a->rb;  // the natural residual alone stalls
    } else {
      a->held = 0;
    }
    if (a->r <= a->tol || !isfinite(a->r)) break;
    if (a->jump == ADMM_JUMP_TRIAL) {  // the round-off jump's trial (admm_rho_jump)
      if (!(a->q < a->kp.q)) {
        it--;
        ok = admm_undo(a);
        continue;
      }
      a->jump = ADMM_JUMP_HELD;
    }
    if (it % kPolishEvery == 0 && admm_polish(s, a, 0)) break;
    if (a->q < qbest) {
      qbest = a->q;
      rbest = a->r;
      lbest = 0;
      memcpy(a->best, a->z, a->vb);
    }
    if (s->opt.rho_adaptive) ok = admm_rho_update(a, dprim, ddual, zmax);
  }
  a->factored = ok;
  a->fresh = 1;
  int lazy = it == 0 && a->lazy;  // no iterate: a->z and a->c are still the start
  if (!(a->r <= a->tol) && !(a->q <= qbest)) {  // not converged: the best iterate seen by q
    a->r = rbest;
    memcpy(a->z, a->best, a->vb);
    a->fresh = 0;
    lazy = lbest;
    if (lazy) velocity(&a->op, a->z, a->c0);  // the start's velocity (c0: free after warm)
  }
  if (lazy) a->r = admm_natural(a, a->r, a->z, a->fresh ? a->c : a->c0);
  a->lazy = 0;
  return it;
}

// The corrections' history (admm_state hl, hc; measured on the bench's stacks and chains, issue
// 26). A resting island's solves are corrections of its warm start along the same few
// directions: contact.c's target c*_N = depth / dt closes a penetration within the step, so
// each warm start that passes at a velocity e (within the tolerance, the impulses kept) is
// followed by steps whose warm starts fail at 3e and -3e, the 2-cube stack's 3-step cycle
// (-4e-7 -> -1.4e-6 -> +1.3e-6 m/s); each failure was a solve, its factorization included
// (645 of 1000 steps, 24.6e3 instructions each). Those failing warm starts are the last
// solves' velocity changes again, scaled: the warm start z + sum_j t_j dl_j, with the t_j
// from the least squares of c + sum_j t_j dc_j (dl a past solve's move, dc = G~ dl its
// velocity's), meets the tolerance with one product (2-cube stack: 2 solves in 1000 steps,
// residuals 1e-17). It is taken only when its own residual, measured as any start's
// (admm_warm), meets the tolerance: otherwise ADMM solves from the warm start as before.
// Kept: the last ADMM_HIST solves of one island pattern (ncp/auto, instructions per step,
// ADMM_HIST 1 / 2 / 4: stack_2 47.6e3 / 46.4e3 / 46.4e3, stack_4 91.0e3 / 96.0e3 / 96.0e3).

// the island's history (admm_state hl, hc) is its own: 1 when it may hold corrections of this
// island's pattern (emptied when it held another's), 0 when the island keeps none (contact
// space, condim 4/6 pairs, hist_off)
static int admm_hist_mine(admm_state* st, const admm_run* a) {
  if (st->hist_off || a->op.nd == 0 || a->p->link) return 0;
  if (st->hist_nc == a->nc && st->hist_hash == a->phash) return 1;
  st->hist_n = st->hist_next = 0;
  st->hist_nc = a->nc;
  st->hist_hash = a->phash;
  return 1;
}

// a correction whose Gram pivot falls below this (relative) is dependent on those before it
static const double kHistDrop = 1e-12;

// t (hist_n) minimizing |c + sum_j t_j dc_j| over the rows of the contacts z holds strictly
// inside their cones (the sticking ones, whose answer is c = 0 there): the normal equations
// by Cholesky, a dependent correction's t_j 0; w (n) is scratch
static void hist_fit(const admm_state* st, const admm_run* a, double* w, double t[ADMM_HIST]) {
  int n = a->n, m = st->hist_n;
  size_t hs = 3 * (size_t)st->maxc;
  double H[ADMM_HIST][ADMM_HIST], b[ADMM_HIST];
  int use[ADMM_HIST];
  for (int i = 0; i < a->nc; i++) {
    const double* z = a->z + 3 * i;
    double in = z[2] > 0 && hypot(z[0], z[1]) < a->p->mu[i] * z[2];
    w[3 * i] = w[3 * i + 1] = w[3 * i + 2] = in;
  }
  for (int j = 0; j < m; j++) {
    const double* dj = st->hc + j * hs;
    b[j] = 0;
    for (int k = 0; k < n; k++) b[j] += w[k] * dj[k] * a->c[k];
    for (int l = 0; l <= j; l++) {
      const double* dl = st->hc + l * hs;
      H[j][l] = 0;
      for (int k = 0; k < n; k++) H[j][l] += w[k] * dj[k] * dl[k];
    }
  }
  for (int j = 0; j < m; j++) {  // H = R R' in place (lower)
    double d = H[j][j];
    for (int l = 0; l < j; l++) d -= use[l] ? H[j][l] * H[j][l] : 0;
    use[j] = H[j][j] > 0 && d > kHistDrop * H[j][j];
    H[j][j] = use[j] ? sqrt(d) : 0;
    for (int r = j + 1; r < m && use[j]; r++) {
      double e = H[r][j];
      for (int l = 0; l < j; l++) e -= use[l] ? H[r][l] * H[j][l] : 0;
      H[r][j] = e / H[j][j];
    }
  }
  for (int j = 0; j < m; j++) {  // R y = -b
    double e = -b[j];
    for (int l = 0; l < j; l++) e -= use[l] ? H[j][l] * t[l] : 0;
    t[j] = use[j] ? e / H[j][j] : 0;
  }
  for (int j = m - 1; j >= 0; j--) {  // R' t = y
    double e = t[j];
    for (int l = j + 1; l < m; l++) e -= use[l] ? H[l][j] * t[l] : 0;
    t[j] = use[j] ? e / H[j][j] : 0;
  }
}

// the warm start moved along the history (hist_fit), projected on K, its velocity and
// residuals measured as admm_warm measures a start's: taken (z, c, q, r, the metric) when it
// meets the tolerance, 1 then; else the run is left at the warm start. The round-off jump's
// kept vectors (kp) are its scratch: no jump is under way before the iteration
static int admm_secant(admm_state* st, admm_run* a) {
  if (a->cold || !admm_hist_mine(st, a) || st->hist_n == 0) return 0;
  size_t hs = 3 * (size_t)st->maxc;
  double t[ADMM_HIST], *x = a->kp.xp, *zc = a->kp.z, *cc = a->kp.c;
  hist_fit(st, a, a->w1, t);
  memcpy(x, a->z, a->vb);
  for (int j = 0; j < st->hist_n; j++) {
    const double* dl = st->hl + j * hs;
    for (int k = 0; k < a->n && t[j] != 0; k++) x[k] += t[j] * dl[k];
  }
  cones_project(a->p, x, zc);
  velocity(&a->op, zc, cc);
  solver_result met;
  double q = residual_m(a->p, a->ncp, zc, cc, a->ncp ? &met : NULL), rb = a->rb;
  int lazy = a->lazy;
  double r = admm_stop_warm(a, q, zc, cc);
  if (!(r <= a->tol)) {
    a->rb = rb;
    a->lazy = lazy;
    return 0;
  }
  memcpy(a->z, zc, a->vb);
  memcpy(a->c, cc, a->vb);
  a->q = q;
  a->r = r;
  a->met = met;
  a->met_ok = a->ncp && isfinite(q);
  return 1;
}

// before iterating from the warm start: its z and c into the history's next slot
static void admm_hist_begin(admm_state* st, admm_run* a) {
  if (a->cold || !admm_hist_mine(st, a)) return;
  size_t hs = 3 * (size_t)st->maxc;
  memcpy(st->hl + st->hist_next * hs, a->z, a->vb);
  memcpy(st->hc + st->hist_next * hs, a->c, a->vb);
  a->hist = 1;
}

// after: the solve's move and its velocity's change kept when it converged at a fresh c (an
// earlier iterate's c is not at hand)
static void admm_hist_end(admm_state* st, admm_run* a) {
  if (!a->hist || !a->fresh || !(a->r <= a->tol)) return;
  size_t hs = 3 * (size_t)st->maxc;
  double *dl = st->hl + st->hist_next * hs, *dc = st->hc + st->hist_next * hs;
  for (int k = 0; k < a->n; k++) {
    dl[k] = a->z[k] - dl[k];
    dc[k] = a->c[k] - dc[k];
  }
  st->hist_next = (st->hist_next + 1) % ADMM_HIST;
  if (st->hist_n < ADMM_HIST) st->hist_n++;
}

// ADMM for the CCP (ncp = 0) or the NCP through the de Saxce fixed point (ncp = 1)
static void admm(solver* s, const solver_problem* p, double* lambda, solver_result* res,
                 int ncp) {
  admm_run a;
  admm_setup(s, p, ncp, &a);
  res->iterations = 0;
  chol_entry* pre = NULL;  // an island given as its blocks: the analysis the hook found
  if (!p->dense && !a.op.nd) pre = solver_admm(s)->island_entry;
  solver_admm(s)->island_entry = NULL;
  admm_kept(s, &a);
  int pass = admm_warm(&a, lambda);
  if (!pass) pass = admm_secant(solver_admm(s), &a);
  if (pass) {  // a converged guess costs no iteration and no set-up
    memcpy(lambda, a.z, a.vb);
    memcpy(s->c, a.c, a.vb);  // c = G~ z + g at the answer: solver_solve need not redo it
    s->c_fresh = 1;
    s->m_fresh = a.met_ok;  // and its metric
    s->metric = a.met;
    res->residual = a.r;
    res->converged = 1;
    return;
  }
  admm_skew(&a);
  res->band_islands = admm_band(s, &a);
  if (!res->band_islands) res->sparse_islands = admm_sparse(s, &a, pre);
  if (!p->dense && !a.op.nd) {  // an island given as its blocks (admm_island_sparse)
    if (!a.op.ce) {  // whose analysis then failed (out of memory): left unsolved, reported
      res->residual = INFINITY;
      res->converged = 0;
      return;
    }
    solver_admm(s)->block_islands++;
  }
  admm_skew_dense(&a);
  admm_spectrum(s, &a);
  admm_stale(s, &a);
  admm_dual_start(s, &a);
  admm_hist_begin(solver_admm(s), &a);
  int it = admm_iterate(s, &a);
  admm_hist_end(solver_admm(s), &a);
  admm_keep_factor(s, &a, a.factored);
  if (!(a.r <= a.tol)) admm_polish(s, &a, 1);  // at the cap: the better of the two
  s->c_fresh = a.fresh;  // c = G~ z + g at the answer: solver_solve need not redo it
  if (a.fresh) memcpy(s->c, a.c, a.vb);
  s->m_fresh = a.fresh && a.met_ok;  // and its metric
  s->metric = a.met;
  memcpy(lambda, a.z, a.vb);
  memcpy(s->dual_out, a.gam, a.vb);  // carried to the next step by contact id
  // the spectral power of the final rho, for the next call (exp so that 0 still means none)
  // (the rule's own rho while the round-off jump's trial is pending; once kept, m)
  double rho_end = a.jump == ADMM_JUMP_TRIAL ? a.kp.rho : a.rho;
  if (s->opt.rho_adaptive)
    solver_admm(s)->rho = exp(log(rho_end / sqrt(a.Lmax * a.m)) / log(a.cond));
  res->iterations = it;
  res->residual = a.r;
  res->converged = a.r <= a.tol;
}

int admm_island_solve(solver* s, const solver_problem* p, int fact, double sigma, double* x) {
  admm_run a;
  admm_state* st = solver_admm(s);
  int keep = st->fact;
  st->fk_valid = 0;  // the work is written
  admm_setup(s, p, 1, &a);
  admm_skew(&a);
  st->fact = fact;
  int got = admm_band(s, &a) ? ADMM_FACT_BAND
            : admm_sparse(s, &a, NULL) ? ADMM_FACT_SPARSE : ADMM_FACT_DENSE;
  admm_skew_dense(&a);
  st->fact = keep;
  if (got != fact) return -1;
  if (factor(&a.op, sigma, a.L)) return 1;
  xsolve(&a.op, a.L, x);
  return 0;
}

void solver_ccp_admm(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  admm(s, p, lambda, res, 0);
}

void solver_ncp_admm(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  admm(s, p, lambda, res, 1);
}

//------------------------------------ the family -------------------------------------------

// ints of the scratch of the band order of an island's nd <= nv dofs (Cuthill-McKee,
// band_order): each dof's position and a queue (nd each), the contacts of each dof (nd + 1
// starts, at most maxc max_chain entries; then each contact's entries by position), a flag per
// contact
size_t admm_y_ord_ints(const solver_options* o, int maxc) {
  size_t mc = (size_t)(maxc > 0 ? maxc : 1), w = (size_t)(o->max_chain > 0 ? o->max_chain : 1);
  return 3 * (size_t)o->nv + 1 + mc * w + mc;
}

// the state's bytes: the struct, and in dof space (o->nv > 0) the island's Y and the band order
static size_t admm_bytes(const solver_options* o, int maxc) {
  size_t mc = (size_t)(maxc > 0 ? maxc : 1), w = (size_t)(o->max_chain > 0 ? o->max_chain : 1);
  size_t b = sizeof(admm_state) + 2 * ADMM_HIST * 3 * mc * sizeof(double);
  if (o->nv <= 0) return b;
  return b + 3 * mc * w * sizeof(double) + mc * w * sizeof(int) + mc * sizeof(int) +
         3 * mc * sizeof(double) + (size_t)o->nv * sizeof(int) +
         admm_y_ord_ints(o, maxc) * sizeof(int) + mc;
}

static void admm_destroy(void* priv) {
  admm_state* a = priv;
  if (!a) return;
  free(a->yl);
  free(a->yi);
  free(a->ynz);
  free(a->ye);
  free(a->dofmap);
  free(a->yord);
  free(a->run);
  free(a->hl);
  free(a->hc);
  chol_free(a->chol);
  free(a);
}

static void* admm_create(const solver_options* o, int maxc) {
  admm_state* a = calloc(1, sizeof(*a));
  if (!a) return NULL;
  size_t n = (size_t)(maxc > 0 ? maxc : 1), w = (size_t)(o->max_chain > 0 ? o->max_chain : 1);
  a->hl = malloc(sizeof(double) * ADMM_HIST * 3 * n);
  a->hc = malloc(sizeof(double) * ADMM_HIST * 3 * n);
  a->maxc = (int)n;
  if (!a->hl || !a->hc) {
    admm_destroy(a);
    return NULL;
  }
  if (o->nv <= 0) return a;
  a->yl = calloc(3 * n * w, sizeof(double));
  a->yi = calloc(n * w, sizeof(int));
  a->ynz = calloc(n, sizeof(int));
  a->ye = calloc(3 * n, sizeof(double));
  a->dofmap = malloc(sizeof(int) * (size_t)o->nv);
  a->yord = malloc(sizeof(int) * admm_y_ord_ints(o, maxc));
  a->run = calloc(n, 1);
  if (!a->yl || !a->yi || !a->ynz || !a->ye || !a->dofmap || !a->yord || !a->run) {
    admm_destroy(a);
    return NULL;
  }
  for (int k = 0; k < o->nv; k++) a->dofmap[k] = -1;
  return a;
}

// island_in_dofs without the copy: when the island's contacts are consecutive in p and their
// dofs, first seen first numbered, are numbered as p numbers them (a single stack or chain: its
// contacts in body order), the local form is p's own rows, so sub points into them (a copy
// of every row and two passes over the dof map were 4 % of a 2-cube stack's step). The same
// values, dofs and order as the copy: the same bits. 1 when sub is set
static int island_as_is(const solver_problem* p, const int* cons, int n, solver_problem* sub) {
  int w = p->ystride, nd = 0, i0 = cons[0];
  for (int q = 1; q < n; q++)
    if (cons[q] != i0 + q) return 0;
  for (int q = 0; q < n; q++) {  // dofs 0..nd-1 seen so far: a new one must be nd
    const int* d = p->ydof + (size_t)(i0 + q) * w;
    int nz = p->ynz[i0 + q];
    if (nz > 0 && d[nz - 1] - d[0] == nz - 1) {  // ydof ascends (solver.h): d[0] + k at k, so
      if (d[0] > nd) return 0;                    // the loop's answer in O(1) (a chain's path:
      if (d[0] + nz > nd) nd = d[0] + nz;         // 1.2 % of chain_10's step in the loop)
      continue;
    }
    for (int k = 0; k < nz; k++) {
      if (d[k] == nd) nd++;
      else if (d[k] > nd) return 0;
    }
  }
  if (!(nd < 3 * n)) return 0;  // as island_in_dofs: the contact space is then the smaller
  sub->nv = nd;
  sub->ystride = w;
  sub->ynz = p->ynz + i0;
  sub->ydof = p->ydof + (size_t)i0 * w;
  sub->Y = p->Y + 3 * (size_t)i0 * w;
  sub->ydiag = p->ydiag ? p->ydiag + 3 * (size_t)i0 : NULL;  // NULL reads as zeros (solver.h)
  // diag_only's blocks are the contacts' diagonal blocks, in contact order (solver_gtkk reads
  // them: 2.6 % of chain_10's step in Y's row sums)
  sub->dblk = p->diag_only && p->blk && !p->dense ? p->blk + 9 * (size_t)i0 : NULL;
  return 1;
}

// ADMM with the factored form: the island's Y rows with dofs renumbered locally (first seen,
// first numbered) into a->yl/yi/ynz, and what G's diagonal holds beyond Y Y' into a->ye; sub
// gets Y, nv = the island's dofs. Only when the island has fewer dofs than contact rows (the
// dof-space factor is then the smaller one); 0 (sub untouched) otherwise
static int island_in_dofs(solver* s, const solver_problem* p, const int* cons, int n,
                          solver_problem* sub) {
  admm_state* a = solver_admm(s);
  if (!p->Y || !a->dofmap || p->nv > s->opt.nv || p->ystride > s->opt.max_chain) return 0;
  if (island_as_is(p, cons, n, sub)) return 1;
  int w = p->ystride, nd = 0;
  for (int q = 0; q < n && nd < 3 * n; q++) {
    const int* d = p->ydof + (size_t)cons[q] * w;
    for (int k = 0; k < p->ynz[cons[q]]; k++)
      if (a->dofmap[d[k]] < 0) a->dofmap[d[k]] = nd++;
  }
  int use = nd < 3 * n;
  for (int q = 0; q < n; q++) {
    int i = cons[q], nz = p->ynz[i];
    const int* d = p->ydof + (size_t)i * w;
    if (use) {
      a->ynz[q] = nz;
      for (int k = 0; k < nz; k++) a->yi[(size_t)q * w + k] = a->dofmap[d[k]];
      for (int r = 0; r < 3; r++) {
        const double* y = p->Y + (3 * (size_t)i + r) * w;
        memcpy(a->yl + (3 * (size_t)q + r) * w, y, sizeof(double) * (size_t)nz);
        a->ye[3 * q + r] = p->ydiag ? p->ydiag[3 * i + r] : 0;
      }
    }
  }
  for (int q = 0; q < n; q++) {  // restored for the next island
    const int* d = p->ydof + (size_t)cons[q] * w;
    for (int k = 0; k < p->ynz[cons[q]]; k++) a->dofmap[d[k]] = -1;
  }
  if (!use) return 0;
  sub->nv = nd;
  sub->ystride = w;
  sub->ynz = a->ynz;
  sub->ydof = a->yi;
  sub->Y = a->yl;
  sub->ydiag = a->ye;
  return 1;
}

// solver.c's island_sparse: 1 when contact-space island sub, given as its blocks, is one the
// sparse factor takes (sparse_entry; its analysis handed to the solve: island_entry), so that solver.c
// never forms its dense G; the work's dense factor space holds the marks meanwhile
static int admm_island_sparse(solver* s, const solver_problem* sub) {
  admm_state* st = solver_admm(s);
  st->fk_valid = 0;  // the marks go in the work
  st->island_entry = sparse_entry(s, sub, 0, 3 * sub->nc, s->work);
  return st->island_entry != NULL;
}

// the spectral power of rho, kept across solves (solver.c starts every island from it)
static double* admm_carry(solver* s, int* n) {
  *n = 1;
  return &solver_admm(s)->rho;
}

// the penalty's power and the eigenvalue cache back to create's (band_off, a test's setting,
// stays)
static void admm_reset(void* priv) {
  admm_state* a = priv;
  a->rho = 0;
  a->fk_valid = 0;
  a->hist_n = 0;
  memset(a->eig, 0, sizeof(a->eig));
  a->eig_next = 0;
}

const solver_family solver_family_admm = {
    .bytes = admm_bytes,
    .create = admm_create,
    .destroy = admm_destroy,
    .island_form = island_in_dofs,
    .island_sparse = admm_island_sparse,
    .carry = admm_carry,
    .reset = admm_reset,
};
