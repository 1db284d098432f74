// newton.c — the soft CCP by a primal Newton method in whitened velocity space (MuJoCo's "Newton"
// solver: Todorov 2014, "Convex and analytically-invertible dynamics with contacts and
// constraints", and MuJoCo's engine_solver.c / engine_core_constraint.c, read for the method
// only; our own derivation and code).
//
// The problem (solver.h, ccp.c): min over lambda in K of 1/2 lambda'(G + R) lambda + g'lambda,
// K the product of the Coulomb cones K_mu (frame [t1 t2 n]), R diagonal and positive (MuJoCo
// softness, material.h). G = Y Y' + diag(ydiag) (contact.h: Y's rows are D^-1/2 L^-T J' on each
// contact's chain), so G + R = Y Y' + diag(Re) with Re = R + ydiag. Its Fenchel dual, over the
// island's whitened velocity change x = Y' lambda (nd dofs, 1/2 |x|^2 the kinetic energy the
// impulse adds), is
//   P(x) = 1/2 |x|^2 + sum_i s_i(a_i),  a_i = Y_i x + g_i  (contact i's constraint velocity
//          without its own compliance, MuJoCo's jar),
//   s_i(a) = max over lambda in K_mu of (-lambda'a - 1/2 lambda'R lambda)
// (min_x max_lambda 1/2 |x|^2 - lambda'(Y x + g) - 1/2 lambda'Re lambda: stationary in x at
// x = Y' lambda, where it is minus the CCP's cost; both convex, R > 0 makes the saddle unique).
// With u = R^1/2 lambda the cone K_mu becomes the round cone C of mu' = mu sqrt(R_t / R_n)
// (R_t1 = R_t2 = R_t, as MuJoCo softness gives, material.h), and with u0 = -R^-1/2 a:
//   s(a) = 1/2 |P_C(u0)|^2,  grad s = -lambda,  lambda = R^-1/2 P_C(u0),
//   Hessian of s: H = R^-1/2 dP_C(u0) R^-1/2,
// three zones of u0 = (t, n), rho = |t|, w = t / rho:
//   separating (u0 in the polar cone, mu' rho <= -n): s = 0, lambda = 0, H = 0;
//   inside (u0 in C, rho <= mu' n): s = 1/2 a'R^-1 a, lambda = -R^-1 a (sticking), H = R^-1;
//   cone surface (between; sliding): alpha = (n + mu' rho) / (1 + mu'^2),
//     P_C(u0) = alpha (mu' w, 1), s = 1/2 (1 + mu'^2) alpha^2,
//     dP_C = v v' / (1 + mu'^2) + (mu' alpha / rho) (I - w w') on the tangent block,
//     v = (mu' w, 1): rank 2, positive semidefinite.
// A frictionless contact (mu = 0: condim 1, a joint limit with its inert tangent rows) is the
// 1-D Signorini zone of its normal row: lambda_N = max(0, -a_N / R_N), lambda_T = 0.
// A condim 4/6 pair (contact.h: contact i and its spin entry j, rows [t1 t2 n | s r1 r2]) is one
// unit of six rows in the generalized cone K_a = {||(f_k / a_k)|| <= f_N}, f the k friction rows
// (t1 t2 s, and r1 r2 for condim 6) with coefficients a = (mu, mu, mu_spin, mu_roll, mu_roll);
// rows of a_k = 0 are held at zero (condim 4's rolling rows) and drop out. With u = R^1/2 lambda,
// f_k / a_k = u_k / (a_k sqrt(R_k)), so K_a is {||u_f|| <= m u_N} with m = a_k sqrt(R_k / R_N)
// exactly when a_k^2 R_k is one value over the friction rows: MuJoCo softness makes it so
// (R_k = R_t mu^2 / a_k^2, contact.c rhs_spin; MuJoCo 2.2.2's mj_constraintUpdate scales its
// elliptic rows the same way), and island_re checks it (to 1e-12: the R_k carry rounding). Then
// s is the same 1/2 |P_C(u0)|^2 over a round cone with a tangent t of k components
// (rho = |t|, w = t / rho): the same three zones, P_C = alpha (m w, 1) on the surface and
//   dP_C = v v' / (1 + m^2) + (m alpha / rho) (I_k - w w'),  v = (m w, 1),
// of rank k (k - 1 from the projector onto the tangent's orthogonal complement, 1 from v v')
// (newton_zone_ell; newton_zone is its k = 2 case). A pair's Hessian block Y_u' H_u Y_u spans
// the contact's dofs, which its spin entry shares (same bodies, same chains).
// So grad P = x - Y' lambda(x) and the Hessian is I + sum_i Y_i' H_i Y_i (nd x nd, the island's
// dofs). The correspondence with the dual: lambda(x) is in K, and c~ = Y x + g + Re lambda(x) =
// R^1/2 (P_C(u0) - u0) lies in K* and is orthogonal to lambda(x) (Moreau), so the CCP residual of
// lambda(x) with its exact velocity c = Y Y' lambda + Re lambda + g = c~ - Y grad P comes from
// grad P alone: zero exactly at the minimum of P, where x = Y' lambda.
//
// The iteration (per island, in its dofs): d = -H^-1 grad P (the Cholesky factor of H assembled
// from the zones: banded, LAPACK dpbtrf, in ADMM's Cuthill-McKee order when the band is at most
// half the dofs, a chain of trees such as a stack; else dense, dpotrf; refactored only when a
// zone changed or a contact is on the cone surface, whose H moves with x; a dense factor whose
// pyramid edges changed few is updated by rank-1 terms instead, hessian_update), then the exact line search along d: phi(t) = P(x + t d) is
// convex and C^1, piecewise quadratic except on the cone surface, so phi'(t) = 0 is found by
// Newton's method on phi' safeguarded by a bracket (MuJoCo's 1-D Newton line search). It stops on
// the model's own residual (solver_ccp_residual, solver_stop_of) of lambda(x) like every ccp
// solver; the answer is lambda(x) of the iterate with the smallest stopping residual. Warm start:
// x = Y' lambda0, or x = 0 when that has the smaller cost P. Over-relaxation does not apply.
// MuJoCo's pyramidal cone (contact.cone pyramidal, solver.h rpy): the edges n +- co_k e_k are
// unilateral soft rows of one regularizer R_py each, so s(a) = sum_e 1/2 max(0, -a_e)^2 / R_py
// decouples over the edges (newton_zone_pyr): lambda = E f, f_e = max(0, -a_e) / R_py, and the
// Hessian is piecewise constant (a refactor only when the active edges change); the rows' own R is
// 0 there. The residual is the edges' LCP (ccp.c pyr_residuals).
// The problem must carry its factored form (a simulation's contact problem; solver_create needs
// solver_options nv > 0) and R > 0 on every active row; box entries are refused at load
// (io/compile.c, as is a condim 6 pair without sliding friction whose torsional and rolling
// coefficients differ: one R on its rows, not round), and a solve given one, a row without R or
// a pair whose cone is not round in u, reports an infinite residual and leaves lambda as given.
// Memory: the Hessian's buffer holds an island of NEWTON_DENSE_DOFS dofs densely (or its band),
// not nv x nv; an island past it takes the direction from conjugate gradients (hessian_cg).
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/interrupt.h"
#include "core/solvers/newton.h"
#include "core/solvers/admm_impl.h"

// the line search stops when |phi'(t)| <= kLineTol |phi'(0)|, or after kLineIt evaluations
static const double kLineTol = 1e-10;
static const int kLineIt = 50;

// the Hessian's buffer holds the dense factor of an island of this many dofs (or the model's nv
// when smaller; a band of as many doubles): humanoid100 (nv 627) has islands of at most 55 dofs.
// A larger island whose band does not fit takes its Newton direction from conjugate gradients
// instead (hessian_cg)
#define NEWTON_DENSE_DOFS 128
// islands of at most this many dofs are factored densely in place by chol_small, banded or not:
// LAPACK's dpotrf costs ~5500 instructions on a free body's 6 x 6 (its calls and blocking), the
// loop ~400; its dpbtrf ~21000 on humanoid100's stacks of two or three free bodies (12-18 dofs)
#define NEWTON_SMALL_DOFS 24
// conjugate gradients stop at this residual relative to the gradient's norm, or after the
// island's dofs iterations (twice, counting rounding)
static const double kCgTol = 1e-10;

// zone codes (newton_zone)
enum { ZONE_FREE = 0, ZONE_STICK = 1, ZONE_SLIDE = 2, ZONE_PYR = 16 };
// an island contact's case in the line search (island_kinds): a contact alone in the round cone
// (newton_zone), a pyramid's contact alone with friction (zone_pyr3), a pyramid's condim 4/6
// pair or frictionless contact (line_pyr), any other unit (unit_zone), a spin entry (its pair
// holds it)
enum { KIND_ROUND = 0, KIND_PYR3 = 1, KIND_PYR = 2, KIND_UNIT = 3, KIND_SPIN = 4 };

typedef struct {
  int nv, maxc, mchain;
  int* dofmap;    // (nv) global dof -> island position, -1 outside (restored after each island)
  int* dofs;      // (nv) island position -> global dof
  int* yi;        // (maxc x max_chain) the island's Y entries' dofs in island positions
  int* ynz;       // (maxc) entries per island contact
  int* yord;      // (admm_y_ord_ints) the band order (admm_band_order): perm first, then scratch
  int* zone;      // (maxc) each contact's zone at the last factorization
  int* pq;        // (maxc) per island contact: -1 a contact alone, -2 a spin entry (its contact
                  // takes it), else its spin entry's island position (a condim 4/6 pair)
  int* conpos;    // (maxc) contact -> island position (valid for the island's contacts only)
  int* kind;      // (maxc) per island contact, the line search's case (island_kinds: KIND_*)
  int* asc;       // (maxc) per island contact, its dofs ascending in island positions
  int* zfac;      // (maxc) per island contact, its zone in the current factor (hessian_update)
  int nupd;       // rank-1 rounds applied to the factor since it was last formed whole
  int kd;         // the band of the island's factor (dofs in the order yord), -1: dense, -2: not
                  // chosen yet (the island has not been factored), -3: conjugate gradients (the
                  // factor does not fit in hcap)
  size_t hcap;    // doubles of H
  int nband;      // islands of the solve factored banded, and in dof space (solver_result)
  int ndof;
  const int* cord;  // banded: each contact's entries by ascending position (admm_band_order)
  // (hcap) the island's Hessian, then its Cholesky factor (column-major lower, nd x nd; banded:
  // LAPACK band storage, nd x (kd + 1))
  double* H;
  double *x, *d, *w;        // (nv) iterate, direction, Y' lambda then the gradient
  double *cr, *cp, *cq, *cz, *cx;  // (nv) conjugate gradients' residual, direction, H p, the
                                    // preconditioned residual and the solution
  double* cdi;                      // (nv) the inverse of H's diagonal
  double *a, *b, *lam, *re;  // (3 maxc) Y x + g, Y d, lambda(x), R + ydiag
  double *hz;     // (36 maxc) each contact's zone Hessian (3x3, a pair's 6x6)
  double *co;     // (6 maxc) a pair's cone coefficients per row (newton_zone_ell)
  double *bl, *bc;  // (3 maxc) the best iterate's lambda and velocity
  double* zt;     // (6 max_chain) H_i Y_i of one contact (or pair)
  double* ls;     // (10 maxc) a line search's constants of a pyramid's contact alone (line_prep)
  int fresh;      // st->hz and st->zone hold the zones of the current iterate (island_step's
                  // last pass), *changed of that pass in `pending`
  int pending;
  int pyr;        // the problem has pyramidal contacts (solver.h rpy): no contact takes the fast
                  // paths of newton_zone
} newton_state;

static inline newton_state* nstate(const solver* s) {
  return (newton_state*)s->priv;
}

// the cone-surface zone of a round cone mu' (m) at u0 = (t, n), rho = |t| > 0: alpha, and dP_C
// (3x3 row-major) when J is not NULL
static double surface(const double t[2], double n, double rho, double m, double* J) {
  double alpha = (n + m * rho) / (1 + m * m);
  if (!J) return alpha;
  double w[2] = {t[0] / rho, t[1] / rho}, v[3] = {m * w[0], m * w[1], 1};
  double k = m * alpha / rho;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) J[3 * r + c] = v[r] * v[c] / (1 + m * m);
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++) J[3 * r + c] += k * ((r == c) - w[r] * w[c]);
  return alpha;
}

int newton_zone(const double a[3], const double R[3], double mu, double lam[3], double H[9],
                double* cost) {
  if (H) memset(H, 0, 9 * sizeof(double));
  lam[0] = lam[1] = lam[2] = 0;
  *cost = 0;
  double sn = sqrt(R[2]), un = -a[2] / sn;
  if (!(mu > 0)) {  // Signorini on the normal row
    if (!(un > 0)) return ZONE_FREE;
    lam[2] = un / sn;
    *cost = 0.5 * un * un;
    if (H) H[8] = 1 / R[2];
    return ZONE_STICK;
  }
  double st = sqrt(R[0]), m = mu * st / sn;
  double t[2] = {-a[0] / st, -a[1] / st}, rho = hypot(t[0], t[1]);
  if (rho <= m * un) {  // inside the cone: every row quadratic
    for (int r = 0; r < 3; r++) {
      lam[r] = -a[r] / R[r];
      *cost += 0.5 * a[r] * a[r] / R[r];
      if (H) H[4 * r] = 1 / R[r];
    }
    return ZONE_STICK;
  }
  if (m * rho <= -un) return ZONE_FREE;  // in the polar cone: separating
  double J[9];
  double alpha = surface(t, un, rho, m, H ? J : NULL);
  lam[0] = alpha * m * t[0] / rho / st;
  lam[1] = alpha * m * t[1] / rho / st;
  lam[2] = alpha / sn;
  *cost = 0.5 * (1 + m * m) * alpha * alpha;
  if (H) {
    double sr[3] = {st, st, sn};
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) H[3 * r + c] = J[3 * r + c] / (sr[r] * sr[c]);
  }
  return ZONE_SLIDE;
}

int newton_zone_ell(const double a[6], const double R[6], const double co[6], double lam[6],
                    double H[36], double* cost) {
  if (H) memset(H, 0, 36 * sizeof(double));
  for (int r = 0; r < 6; r++) lam[r] = 0;
  *cost = 0;
  int act[5], na = 0;  // the friction rows with a coefficient (the others are held at zero)
  for (int r = 0; r < 6; r++)
    if (r != 2 && co[r] > 0) act[na++] = r;
  double sn = sqrt(R[2]), un = -a[2] / sn;
  if (na == 0) {  // Signorini on the normal row
    if (!(un > 0)) return ZONE_FREE;
    lam[2] = un / sn;
    *cost = 0.5 * un * un;
    if (H) H[14] = 1 / R[2];
    return ZONE_STICK;
  }
  // u = R^1/2 lambda: the cone is round of slope m = co_k sqrt(R_k / R_n), the same for every k
  // (island_re checks it), t = -R_f^-1/2 a_f
  double m = co[act[0]] * sqrt(R[act[0]]) / sn, t[5], sr[6], rho = 0;  // sr: the normal's last
  for (int k = 0; k < na; k++) {
    sr[k] = sqrt(R[act[k]]);
    t[k] = -a[act[k]] / sr[k];
    rho += t[k] * t[k];
  }
  rho = sqrt(rho);
  if (rho <= m * un) {  // inside the cone: every row quadratic
    for (int k = 0; k <= na; k++) {
      int r = k < na ? act[k] : 2;
      lam[r] = -a[r] / R[r];
      *cost += 0.5 * a[r] * a[r] / R[r];
      if (H) H[7 * r] = 1 / R[r];
    }
    return ZONE_STICK;
  }
  if (m * rho <= -un) return ZONE_FREE;  // in the polar cone: separating
  double alpha = (un + m * rho) / (1 + m * m), v[6];
  for (int k = 0; k < na; k++) {
    v[k] = m * t[k] / rho;
    lam[act[k]] = alpha * v[k] / sr[k];
  }
  v[na] = 1;
  sr[na] = sn;
  lam[2] = alpha / sn;
  *cost = 0.5 * (1 + m * m) * alpha * alpha;
  if (!H) return ZONE_SLIDE;
  // dP_C = v v' / (1 + m^2) + (m alpha / rho) (I - w w') on the friction block, w = v / m there
  double kk = m * alpha / rho;
  for (int p = 0; p <= na; p++)
    for (int q = 0; q <= na; q++) {
      double J = v[p] * v[q] / (1 + m * m);
      if (p < na && q < na) J += kk * ((p == q) - v[p] * v[q] / (m * m));
      int rp = p < na ? act[p] : 2, rq = q < na ? act[q] : 2;
      H[6 * rp + rq] = J / (sr[p] * sr[q]);
    }
  return ZONE_SLIDE;
}

static inline int zone_pyr_n(int n, const double* a, const double* co, double r, double* lam,
                             double* H, double* cost) {
  if (H)
    for (int k = 0; k < n * n; k++) H[k] = 0;
  for (int k = 0; k < n; k++) lam[k] = 0;
  *cost = 0;
  int mask = 0, bit = 0;
  for (int k = 0; k < n; k++) {
    if (k == 2 || !(co[k] > 0)) continue;
    for (int sg = 0; sg < 2; sg++, bit++) {
      double s = sg ? -co[k] : co[k], ae = a[2] + s * a[k];
      if (!(ae < 0)) continue;
      double f = -ae / r;
      mask |= 1 << bit;
      *cost += 0.5 * ae * ae / r;
      lam[2] += f;
      lam[k] += s * f;
      if (H) {
        H[n * 2 + 2] += 1 / r;
        H[n * 2 + k] += s / r;
        H[n * k + 2] += s / r;
        H[n * k + k] += s * s / r;
      }
    }
  }
  return mask ? ZONE_PYR + mask : ZONE_FREE;
}

// zone_pyr_n with n constant for a condim 4/6 pair (6 rows: the loops unrolled, the same
// operations in the same order)
int newton_zone_pyr(int n, const double* a, const double* co, double r, double* lam, double* H,
                    double* cost) {
  if (n == 6) return zone_pyr_n(6, a, co, r, lam, H, cost);
  return zone_pyr_n(n, a, co, r, lam, H, cost);
}

// newton_zone_pyr for a contact alone (n 3, coefficients mu mu 0, mu > 0) without its loops,
// the memset and the copies of unit_zone: the same operations in the same order (edges t1+,
// t1-, t2+, t2-), so the same bits; H (3x3 row-major) written whole when not NULL
static int zone_pyr3(const double a[3], double mu, double r, double lam[3], double* H,
                     double* cost) {
  double l0 = 0, l1 = 0, l2 = 0, c = 0, h22 = 0, h2k[2] = {0, 0}, hkk[2] = {0, 0};
  int mask = 0;
  for (int e = 0; e < 4; e++) {
    int k = e >> 1;
    double s = (e & 1) ? -mu : mu, ae = a[2] + s * a[k];
    if (!(ae < 0)) continue;
    double f = -ae / r;
    mask |= 1 << e;
    c += 0.5 * ae * ae / r;
    l2 += f;
    if (k == 0) l0 += s * f;
    else l1 += s * f;
    h22 += 1 / r;
    h2k[k] += s / r;
    hkk[k] += s * s / r;
  }
  lam[0] = l0, lam[1] = l1, lam[2] = l2;
  *cost = c;
  if (H) {
    H[0] = hkk[0], H[1] = 0, H[2] = h2k[0];
    H[3] = 0, H[4] = hkk[1], H[5] = h2k[1];
    H[6] = h2k[0], H[7] = h2k[1], H[8] = h22;
  }
  return mask ? ZONE_PYR + mask : ZONE_FREE;
}

// one island's view: the problem, its contacts, its dofs
typedef struct {
  const solver_problem* p;
  const int* cons;
  int n, nd;
  newton_state* st;
} island;

static inline int con_of(const island* is, int q) {
  return is->cons ? is->cons[q] : q;
}

// the rows of island contact q's unit (a contact, or a condim 4/6 pair: the contact's three then
// its spin entry's) in island positions (3n arrays) and in the problem (Y, g); their count (0 for
// a spin entry: its contact's unit holds it)
static int unit_rows(const island* is, int q, int ir[6], int pr[6]) {
  int pq = is->st->pq[q], n = pq == -2 ? 0 : pq >= 0 ? 6 : 3;
  for (int r = 0; r < n; r++) {
    int qq = r < 3 ? q : pq;
    ir[r] = 3 * qq + r % 3;
    pr[r] = 3 * con_of(is, qq) + r % 3;
  }
  return n;
}

// the zone of island contact q's unit at a + t b (island rows; b NULL: a): its impulse into lam
// (its rows in unit_rows' order), its Hessian (3x3 or 6x6 row-major) into H when not NULL, its
// cost; returns the zone (ZONE_FREE for a spin entry)
static int unit_zone(const island* is, int q, const double* a, const double* b, double t,
                     double* lam, double* H, double* cost) {
  newton_state* st = is->st;
  int ir[6], pr[6], n = unit_rows(is, q, ir, pr);
  double at[6], re[6];
  *cost = 0;
  if (n == 0) return ZONE_FREE;
  for (int r = 0; r < n; r++) {
    at[r] = b ? a[ir[r]] + t * b[ir[r]] : a[ir[r]];
    re[r] = st->re[ir[r]];
  }
  int i = con_of(is, q);
  if (is->p->rpy && is->p->rpy[i] > 0) {  // contact.cone pyramidal: its edges
    double mu3[3] = {is->p->mu[i], is->p->mu[i], 0};
    return newton_zone_pyr(n, at, n == 3 ? mu3 : st->co + 6 * q, is->p->rpy[i], lam, H, cost);
  }
  if (n == 3) return newton_zone(at, re, is->p->mu[i], lam, H, cost);
  return newton_zone_ell(at, re, st->co + 6 * q, lam, H, cost);
}

// the island's dofs numbered in order of first appearance, its contacts' entries in those
// numbers (st->yi, st->ynz)
static void island_dofs(island* is) {
  const solver_problem* p = is->p;
  newton_state* st = is->st;
  size_t ws = (size_t)p->ystride;
  int nd = 0;
  for (int q = 0; q < is->n; q++) {  // and whether each contact's positions ascend
    int i = con_of(is, q), nz = p->ynz[i], asc = 1, prev = -1;
    const int* d = p->ydof + (size_t)i * ws;
    int* yq = st->yi + (size_t)q * ws;
    st->ynz[q] = nz;
    st->conpos[i] = q;
    for (int k = 0; k < nz; k++) {
      int pos = st->dofmap[d[k]];
      if (pos < 0) {
        pos = st->dofmap[d[k]] = nd;
        st->dofs[nd++] = d[k];
      }
      yq[k] = pos;
      asc &= prev < pos;
      prev = pos;
    }
    st->asc[q] = asc;
  }
  for (int k = 0; k < nd; k++) st->dofmap[st->dofs[k]] = -1;  // restored for the next island
  is->nd = nd;
  for (int q = 0; q < is->n; q++) {  // line_eval's branches, decided once per island
    int i = con_of(is, q), l = p->link ? p->link[i] : -1, pyr = st->pyr && p->rpy[i] > 0;
    int pq = st->pq[q] = l >= 0 ? st->conpos[l] : l < -1 ? -2 : -1;
    st->kind[q] = pq == -2                             ? KIND_SPIN
                  : pq == -1 && !st->pyr               ? KIND_ROUND
                  : pq == -1 && pyr && p->mu[i] > 0    ? KIND_PYR3
                  : pyr                                ? KIND_PYR
                                                       : KIND_UNIT;
  }
}

// the island's factor: banded when the band order (admm_band_order, ADMM's Cuthill-McKee) gives
// a band of at most half the dofs (a chain of trees: a stack), dense otherwise (ADMM's kBandRatio
// rule; a contact's entries span at least its nz - 1 positions, so the order is not computed when
// that already fails)
static void island_band(island* is) {
  const solver_problem* p = is->p;
  newton_state* st = is->st;
  int nzmax = 0;
  for (int q = 0; q < is->n; q++)
    if (st->ynz[q] > nzmax) nzmax = st->ynz[q];
  st->kd = -1;
  if (is->nd <= NEWTON_SMALL_DOFS || 2 * (nzmax - 1) > is->nd) return;
  solver_problem sub = {0};
  sub.nc = is->n;
  sub.nv = is->nd;
  sub.ystride = p->ystride;
  sub.ynz = st->ynz;
  sub.ydof = st->yi;
  const int* cord;
  int kd = admm_band_order(&sub, st->yord + st->nv, st->yord, &cord);
  if (2 * kd <= is->nd) {
    st->kd = kd;
    st->cord = cord;
  }
}

// o (3) += the contact's three rows (y0, y0 + ws, y0 + 2 ws) times x at its nz dofs d, in one
// pass (each row's sum in its own order); inlined with nz constant for one free body (6) and two
// (12), humanoid100's contacts with the floor and between two bodies
static inline void y_rows(const double* y0, size_t ws, const int* d, int nz, const double* x,
                          double* o) {
  const double *y1 = y0 + ws, *y2 = y1 + ws;
  double a0 = o[0], a1 = o[1], a2 = o[2];
  for (int k = 0; k < nz; k++) {
    double xk = x[d[k]];
    a0 += y0[k] * xk;
    a1 += y1[k] * xk;
    a2 += y2[k] * xk;
  }
  o[0] = a0, o[1] = a1, o[2] = a2;
}

// out (3n) = Y x over the island (plus g when add_g)
static void y_mul(const island* is, const double* x, int add_g, double* out) {
  const solver_problem* p = is->p;
  size_t ws = (size_t)p->ystride;
  for (int q = 0; q < is->n; q++) {
    int i = con_of(is, q), nz = p->ynz[i];
    const int* d = is->st->yi + (size_t)q * ws;
    const double* y0 = p->Y + 3 * (size_t)i * ws;
    double* o = out + 3 * q;
    o[0] = add_g ? p->g[3 * i] : 0, o[1] = add_g ? p->g[3 * i + 1] : 0;
    o[2] = add_g ? p->g[3 * i + 2] : 0;
    if (nz == 6) y_rows(y0, ws, d, 6, x, o);
    else if (nz == 12) y_rows(y0, ws, d, 12, x, o);
    else y_rows(y0, ws, d, nz, x, o);
  }
}

// out at the nz dofs d += the contact's three rows' terms of v3 (y_rows' inlining)
static inline void yt_rows(const double* y0, size_t ws, const int* d, int nz, const double* v3,
                           double* out) {
  const double *y1 = y0 + ws, *y2 = y1 + ws;
  for (int k = 0; k < nz; k++) {
    double o = out[d[k]];
    o += y0[k] * v3[0];
    o += y1[k] * v3[1];
    out[d[k]] = o + y2[k] * v3[2];
  }
}

// out (nd) = Y' v over the island (v in island positions, 3n)
static void yt_mul(const island* is, const double* v, double* out) {
  const solver_problem* p = is->p;
  size_t ws = (size_t)p->ystride;
  memset(out, 0, sizeof(double) * (size_t)is->nd);
  for (int q = 0; q < is->n; q++) {
    int i = con_of(is, q);
    const int* d = is->st->yi + (size_t)q * ws;
    const double* v3 = v + 3 * q;
    if (v3[0] != 0 && v3[1] != 0 && v3[2] != 0) {  // the three rows in one pass, in row order
      const double* y0 = p->Y + 3 * (size_t)i * ws;
      int nz = p->ynz[i];
      if (nz == 6) yt_rows(y0, ws, d, 6, v3, out);
      else if (nz == 12) yt_rows(y0, ws, d, 12, v3, out);
      else yt_rows(y0, ws, d, nz, v3, out);
      continue;
    }
    for (int r = 0; r < 3; r++) {
      double vr = v3[r];
      if (vr == 0) continue;
      const double* y = p->Y + (3 * (size_t)i + r) * ws;
      for (int k = 0; k < p->ynz[i]; k++) out[d[k]] += y[k] * vr;
    }
  }
}

// island contact q's zone at a (3n): its lambda into lam (island rows), its Hessian into st->hz
// when hess, its cost
static inline int zone_q(const island* is, int q, const double* a, double* lam, int hess,
                         double* cost) {
  newton_state* st = is->st;
  double l6[6];
  int z;
  int i = con_of(is, q), kind = st->kind[q];
  if (kind == KIND_ROUND) {  // a contact alone (the common case, no copies)
    z = newton_zone(a + 3 * q, st->re + 3 * q, is->p->mu[i], lam + 3 * q,
                    hess ? st->hz + 36 * q : NULL, cost);
  } else if (kind == KIND_PYR3) {  // the pyramid's
    z = zone_pyr3(a + 3 * q, is->p->mu[i], is->p->rpy[i], lam + 3 * q,
                  hess ? st->hz + 36 * q : NULL, cost);
  } else if (kind == KIND_PYR && st->pq[q] >= 0) {  // a pyramid's condim 4/6 pair
    const double *a0 = a + 3 * q, *a1 = a + 3 * st->pq[q];  // (unit_zone without its copies)
    double at[6] = {a0[0], a0[1], a0[2], a1[0], a1[1], a1[2]};
    z = newton_zone_pyr(6, at, st->co + 6 * q, is->p->rpy[i], l6, hess ? st->hz + 36 * q : NULL,
                        cost);
    double *l0 = lam + 3 * q, *l1 = lam + 3 * st->pq[q];
    l0[0] = l6[0], l0[1] = l6[1], l0[2] = l6[2], l1[0] = l6[3], l1[1] = l6[4], l1[2] = l6[5];
  } else {
    int ir[6], pr[6], n = unit_rows(is, q, ir, pr);
    z = unit_zone(is, q, a, NULL, 0, l6, hess ? st->hz + 36 * q : NULL, cost);
    for (int r = 0; r < n; r++) lam[ir[r]] = l6[r];
  }
  return z;
}

// sum of the contacts' costs at a (3n); lambda(a) into lam, zone Hessians into st->hz when
// hess, the zones into st->zone when zones; returns 1 in *changed when a zone differs from the
// kept one or a contact slides (its Hessian moves with a)
static double zones(const island* is, const double* a, double* lam, int hess, int* changed) {
  newton_state* st = is->st;
  double sum = 0;
  for (int q = 0; q < is->n; q++) {
    double cost;
    int z, i = con_of(is, q), kind = st->kind[q];
    if (kind == KIND_PYR3)  // the common case here, inline
      z = zone_pyr3(a + 3 * q, is->p->mu[i], is->p->rpy[i], lam + 3 * q,
                    hess ? st->hz + 36 * q : NULL, &cost);
    else if (kind == KIND_SPIN)  // its pair holds it (unit_zone's answer without the calls)
      z = ZONE_FREE, cost = 0;
    else
      z = zone_q(is, q, a, lam, hess, &cost);
    if (changed) {
      if (z != st->zone[q] || z == ZONE_SLIDE) *changed = 1;
      st->zone[q] = z;
    }
    sum += cost;
  }
  return sum;
}

// zone_pyr3's cost alone (the same operations on it: the same bits)
static double cost_pyr3(const double a[3], double mu, double r) {
  double c = 0;
  for (int e = 0; e < 4; e++) {
    double s = (e & 1) ? -mu : mu, ae = a[2] + s * a[e >> 1];
    if (ae < 0) c += 0.5 * ae * ae / r;
  }
  return c;
}

// zones' sum alone (the same sums: the same bits; lam is scratch for the contacts other than a
// pyramid's alone, whose cost zones computes beside their lambda)
static double zones_cost(const island* is, const double* a, double* lam) {
  newton_state* st = is->st;
  double sum = 0;
  for (int q = 0; q < is->n; q++) {
    double cost;
    int i = con_of(is, q);
    if (st->kind[q] == KIND_PYR3) cost = cost_pyr3(a + 3 * q, is->p->mu[i], is->p->rpy[i]);
    else zone_q(is, q, a, lam, 0, &cost);
    sum += cost;
  }
  return sum;
}

static double dot(const double* u, const double* v, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) s += u[k] * v[k];
  return s;
}

// hessian_add for a contact alone (3 rows; ld, pm: the storage's as there), its nz entries
static inline void hessian_add3_n(const island* is, int q, int nz, size_t ld, const int* pm) {
  const solver_problem* p = is->p;
  newton_state* st = is->st;
  int i = con_of(is, q), band = st->kd >= 0;
  size_t ws = (size_t)p->ystride;
  const int* d = st->yi + (size_t)q * ws;
  const double* y = p->Y + 3 * (size_t)i * ws;  // rows r at y + r ws
  const double* hq = st->hz + 36 * q;
  int r0 = p->mu[i] > 0 ? 0 : 2;  // a frictionless contact's Hessian is its normal row's
  if (r0 == 0 && st->pyr && p->rpy[i] > 0) {  // zone_pyr3's H: no t1-t2 entry (edges n +- mu t_k)
    for (int k = 0; k < nz; k++) {  // zt_r = sum_s H_rs y_s without the products by that zero
      double a0 = y[k], a1 = y[ws + (size_t)k], a2 = y[2 * ws + (size_t)k];
      st->zt[k] = hq[0] * a0 + hq[2] * a2;
      st->zt[ws + (size_t)k] = hq[4] * a1 + hq[5] * a2;
      st->zt[2 * ws + (size_t)k] = hq[6] * a0 + hq[7] * a1 + hq[8] * a2;
    }
  } else {
    for (int r = r0; r < 3; r++)  // zt_r = sum_s H_rs y_s
      for (int k = 0; k < nz; k++)
        st->zt[(size_t)r * ws + (size_t)k] = hq[3 * r] * y[k] + hq[3 * r + 1] * y[ws + (size_t)k] +
                                             hq[3 * r + 2] * y[2 * ws + (size_t)k];
  }
  // dense storage and the dofs ascending: entry (u, v >= u) is row d[v] of column d[u], as below
  int asc = !band && st->asc[q];
  const double *y0 = y, *y1 = y + ws, *y2 = y + 2 * ws;
  const double *z0 = st->zt, *z1 = z0 + ws, *z2 = z1 + ws;
  if (asc && r0 == 0) {
    for (int u = 0; u < nz; u++) {
      double* hc = st->H + (size_t)d[u] * ld;
      for (int v = u; v < nz; v++) {
        double h = 0;
        h += y0[u] * z0[v];
        h += y1[u] * z1[v];
        h += y2[u] * z2[v];
        hc[d[v]] += h;
      }
    }
    return;
  }
  for (int u = 0; u < nz; u++) {  // each pair of entries once, into the lower triangle
    size_t pu = (size_t)(pm ? pm[d[u]] : d[u]);
    for (int v = u; v < nz; v++) {
      size_t pv = (size_t)(pm ? pm[d[v]] : d[v]), c = pu < pv ? pu : pv, e = pu < pv ? pv : pu;
      double h = 0;  // rows r0..2 in order, unrolled
      if (r0 == 0) h += y0[u] * z0[v], h += y1[u] * z1[v];
      h += y2[u] * z2[v];
      st->H[c * ld + e - (band ? c : 0)] += h;  // row e of column c
    }
  }
}

// hessian_add3_n with nz constant for a contact of one free body (6) and of two (12): the loops
// unrolled, the same operations in the same order
static void hessian_add3(const island* is, int q, size_t ld, const int* pm) {
  int nz = is->st->ynz[q];
  if (nz == 6) hessian_add3_n(is, q, 6, ld, pm);
  else if (nz == 12) hessian_add3_n(is, q, 12, ld, pm);
  else hessian_add3_n(is, q, nz, ld, pm);
}

// a unit's na rows (rows, y) of Y_q' H_q Y_q into st->H (hessian_add's storage)
static inline void unit_terms(const island* is, int q, int nz, const int* d, int na,
                              const int* rows, const double* const* y, int nr, size_t ld,
                              const int* pm) {
  newton_state* st = is->st;
  size_t ws = (size_t)is->p->ystride;
  int band = st->kd >= 0;
  const double* hq = st->hz + 36 * q;
  for (int r = 0; r < na; r++) {  // zt_r = sum_s H_rs y_s over the nonzero H_rs (a pyramid's
    const double* hr = hq + (size_t)nr * (size_t)rows[r];  // pair: an arrow, the normal's row
    const double* yc[6];                                    // and column): the same sums, as a
    double hc[6];  // zero term never changes a sum that starts at +0
    int nc = 0;
    for (int c = 0; c < na; c++)
      if (hr[rows[c]] != 0) hc[nc] = hr[rows[c]], yc[nc++] = y[c];
    for (int k = 0; k < nz; k++) {
      double acc = 0;
      for (int c = 0; c < nc; c++) acc += hc[c] * yc[c][k];
      st->zt[(size_t)r * ws + (size_t)k] = acc;
    }
  }
  int asc = !band && st->asc[q];  // dense storage and ascending dofs: hessian_add3's direct path
  if (asc) {
    for (int u = 0; u < nz; u++) {
      double* hcol = st->H + (size_t)d[u] * ld;
      for (int v = u; v < nz; v++) {
        double h = 0;
        for (int r = 0; r < na; r++) h += y[r][u] * st->zt[(size_t)r * ws + (size_t)v];
        hcol[d[v]] += h;
      }
    }
    return;
  }
  for (int u = 0; u < nz; u++) {  // each pair of entries once, into the lower triangle
    size_t pu = (size_t)(pm ? pm[d[u]] : d[u]);
    for (int v = u; v < nz; v++) {
      size_t pv = (size_t)(pm ? pm[d[v]] : d[v]), c = pu < pv ? pu : pv, e = pu < pv ? pv : pu;
      double h = 0;
      for (int r = 0; r < na; r++) h += y[r][u] * st->zt[(size_t)r * ws + (size_t)v];
      st->H[c * ld + e - (band ? c : 0)] += h;  // row e of column c
    }
  }
}

// contact q's term Y_q' H_q Y_q of the Hessian into the lower triangle of st->H: dense (column c
// at c nd) or banded (st->kd >= 0: dofs at their band positions, column c at c (kd + 1), row r at
// r - c). Y_q' H_q Y_q is symmetric (H_q is), so entry (u, v) is formed once for v >= u and
// added where the lower triangle holds it. A pair's six rows share the contact's dofs
// (island_re checks it); rows held at zero (a frictionless contact's tangents, a pair's rows of
// coefficient 0) have zero Hessian rows and are skipped
static void hessian_add(const island* is, int q) {
  const solver_problem* p = is->p;
  newton_state* st = is->st;
  int i = con_of(is, q), nz = st->ynz[q], band = st->kd >= 0;
  size_t ws = (size_t)p->ystride, ld = band ? (size_t)st->kd + 1 : (size_t)is->nd;
  const int* d = st->yi + (size_t)q * ws;
  const int* pm = band ? st->yord : NULL;
  int ir[6], pr[6], nr = unit_rows(is, q, ir, pr), rows[6], na = 0;
  if (nr == 3) {  // a contact alone (the common case): its three rows unrolled
    hessian_add3(is, q, ld, pm);
    return;
  }
  const double* y[6];  // the unit's Y rows
  for (int r = 0; r < nr; r++) {
    int on = nr == 3 ? (r == 2 || p->mu[i] > 0) : (r == 2 || st->co[6 * q + r] > 0);
    if (on) rows[na] = r, y[na++] = p->Y + (size_t)pr[r] * ws;
  }
  // condim 4 (t1 t2 n and the torsion row) with a constant count, which the compiler unrolls
  // (the same sums in the same order)
  if (na == 4 && nz == 6) unit_terms(is, q, 6, d, 4, rows, y, nr, ld, pm);
  else if (na == 4) unit_terms(is, q, nz, d, 4, rows, y, nr, ld, pm);
  else unit_terms(is, q, nz, d, na, rows, y, nr, ld, pm);
}

// A = L L' in place (lower triangle, column-major, n x n), dpotf2's order of operations
// (column j: its diagonal, then the column below scaled by 1 / L_jj); 1 when A is not positive
// definite (as dpotrf's info > 0). A column k with L_jk = 0 (bodies of the island that do not
// touch) is skipped: it would subtract exact zeros (the entries are finite: an infinite one
// fails a later diagonal, which subtracts its square; and no -0 arises, so the skip is bit for
// bit). Inlined with n constant by chol_small for the islands of 1-4 free bodies
// The diagonal's sum and the column's run in one pass over k (each in its own order as before:
// the column's terms do not depend on the diagonal, which scales them only at the end)
static inline int chol_n(int n, double* A) {
  for (int j = 0; j < n; j++) {
    double* cj = A + (size_t)j * (size_t)n;
    double ajj = cj[j];
    for (int k = 0; k < j; k++) {
      const double* ck = A + (size_t)k * n;
      double l = ck[j];
      ajj -= l * l;
      if (l == 0) continue;
      for (int i = j + 1; i < n; i++) cj[i] -= ck[i] * l;
    }
    if (!(ajj > 0)) return 1;
    ajj = sqrt(ajj);
    cj[j] = ajj;
    double inv = 1 / ajj;
    for (int i = j + 1; i < n; i++) cj[i] *= inv;
  }
  return 0;
}

// chol_n with the loop bounds known for the common sizes (humanoid100's small islands: 6, 12, 18
// and 24 dofs, 99 % of them; the same operations in the same order)
static int chol_small(int n, double* A) {
  switch (n) {
    case 6: return chol_n(6, A);
    case 12: return chol_n(12, A);
    case 18: return chol_n(18, A);
    case 24: return chol_n(24, A);
    default: return chol_n(n, A);
  }
}

int newton_chol_small(int n, double* A) {
  return chol_small(n, A);
}

// H = I + sum_i Y_i' H_i Y_i (lower triangle, column-major, dense or banded) factored (LAPACK
// dpotrf or dpbtrf; chol_small on a small island); 0 on success
static int hessian(const island* is) {
  newton_state* st = is->st;
  int nd = is->nd, kd = st->kd;
  size_t ld = kd >= 0 ? (size_t)kd + 1 : (size_t)nd, dg = kd >= 0 ? 0 : 1;
  if (kd >= 0) {
    memset(st->H, 0, sizeof(double) * ld * (size_t)nd);
  } else {  // dense: the lower triangle only (all that the factors and solves read)
    for (int k = 0; k < nd; k++)
      memset(st->H + (size_t)k * ld + (size_t)k, 0, sizeof(double) * (size_t)(nd - k));
  }
  for (int k = 0; k < nd; k++) st->H[(size_t)k * ld + dg * (size_t)k] = 1;
  for (int q = 0; q < is->n; q++) {
    if (st->zone[q] != ZONE_FREE) hessian_add(is, q);
    st->zfac[q] = st->zone[q];
  }
  st->nupd = 0;
  if (kd < 0 && nd <= NEWTON_SMALL_DOFS) return chol_small(nd, st->H) || !isfinite(st->H[0]);
  lapack_int info = kd >= 0 ? LAPACKE_dpbtrf_work(LAPACK_COL_MAJOR, 'L', nd, kd, st->H, kd + 1)
                            : LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', nd, st->H, nd);
  return info != 0 || !isfinite(st->H[0]);
}

// the rotations of the rank-1 update (Golub and Van Loan 6.5.4; MuJoCo's mju_cholUpdate does the
// same on its sparse factor); newton.h
int newton_chol_rank1(int n, double* L, double* v, int k0, double sigma) {
  for (int k = k0; k < n; k++) {
    double* ck = L + (size_t)k * (size_t)n;
    double lkk = ck[k], xk = v[k];
    if (xk == 0) continue;  // the rotation is the identity
    double r2 = lkk * lkk + sigma * xk * xk;
    if (!(r2 > 0)) return 1;
    double r = sqrt(r2), c = r / lkk, sn = xk / lkk;
    ck[k] = r;
    for (int i = k + 1; i < n; i++) {
      double l = (ck[i] + sigma * sn * v[i]) / c;
      v[i] = c * v[i] - sn * l;
      ck[i] = l;
    }
  }
  return 0;
}

// the edges of island contact q's pyramid (zone_pyr3, newton_zone_pyr: the bit order of their
// masks) whose bit differs between masks m0 and m1, each as v = Y_q' u_e / sqrt(r_py) (u_e =
// e_N +- co_k e_k, H_q = sum over the active edges of u_e u_e' / r_py) applied to the factor
// (added when in m1); 1 when a downdate fails
static int pyr_flips(const island* is, int q, int m0, int m1) {
  const solver_problem* p = is->p;
  newton_state* st = is->st;
  int i = con_of(is, q), pq = st->pq[q], n = pq >= 0 ? 6 : 3, nz = st->ynz[q], nd = is->nd;
  size_t ws = (size_t)p->ystride;
  const int* d = st->yi + (size_t)q * ws;
  double mu3[3] = {p->mu[i], p->mu[i], 0}, sr = sqrt(p->rpy[i]);
  const double* co = n == 3 ? mu3 : st->co + 6 * q;
  const double* yn = p->Y + (3 * (size_t)i + 2) * ws;
  double* v = st->cr;
  int bit = 0;
  for (int k = 0; k < n; k++) {
    if (k == 2 || !(co[k] > 0)) continue;
    const double* yk = p->Y + (3 * (size_t)(k < 3 ? i : con_of(is, pq)) + (size_t)(k % 3)) * ws;
    for (int sg = 0; sg < 2; sg++, bit++) {
      int on0 = (m0 >> bit) & 1, on1 = (m1 >> bit) & 1;
      if (on0 == on1) continue;
      double sk = sg ? -co[k] : co[k];
      int k0 = nd;
      memset(v, 0, sizeof(double) * (size_t)nd);
      for (int u = 0; u < nz; u++) {
        v[d[u]] = (yn[u] + sk * yk[u]) / sr;
        if (d[u] < k0) k0 = d[u];
      }
      if (newton_chol_rank1(nd, st->H, v, k0, on1 ? 1.0 : -1.0)) return 1;
    }
  }
  return 0;
}

// the dense factor of an island brought to the current zones by rank-1 updates and downdates of
// the edges that changed (MuJoCo's incremental Hessian), when every changed contact is a
// pyramid's (its Hessian a sum of rank-1 edge terms), they are few (at most nd / 3 edges, ~4 nd^2
// flops each against the Hessian's assembly over every contact and its nd^3 / 3 factor; measured
// on humanoid100: nd / 4 gave 1.5 % more instructions in newton, nd / 2 the same) and the factor
// has taken fewer than kUpdateRounds such rounds since it was formed (rounding); 1 when done, 0
// when hessian() must form it whole. Every iteration after an island's first changes some edge
// (the Newton step of an unchanged piece is exact), so this replaces most refactors
static const int kUpdateRounds = 8;
static int hessian_update(const island* is) {
  newton_state* st = is->st;
  int nd = is->nd, flips = 0;
  if (st->kd != -1 || st->nupd >= kUpdateRounds) return 0;
  for (int q = 0; q < is->n; q++) {
    int z0 = st->zfac[q], z1 = st->zone[q];
    if (z0 == z1) continue;
    if (z0 < 0 || (z0 != ZONE_FREE && z0 < ZONE_PYR) || (z1 != ZONE_FREE && z1 < ZONE_PYR))
      return 0;
    if (st->kind[q] != KIND_PYR3 && !(st->kind[q] == KIND_PYR && st->pq[q] >= 0)) return 0;
    int m = (z0 ? z0 - ZONE_PYR : 0) ^ (z1 ? z1 - ZONE_PYR : 0);
    for (; m; m &= m - 1) flips++;
  }
  if (3 * flips > nd) return 0;
  for (int q = 0; q < is->n; q++) {
    int z0 = st->zfac[q], z1 = st->zone[q];
    if (z0 == z1) continue;
    if (pyr_flips(is, q, z0 ? z0 - ZONE_PYR : 0, z1 ? z1 - ZONE_PYR : 0)) return 0;
    st->zfac[q] = z1;
  }
  st->nupd++;
  return 1;
}

static void hessian_cg(const island* is, double* v);

// v := H^-1 v with hessian()'s factor (banded: through the band order, st->w as scratch), or by
// conjugate gradients when there is none (st->kd -3)
static void hessian_solve(const island* is, double* v) {
  newton_state* st = is->st;
  int nd = is->nd, kd = st->kd;
  if (kd == -3) {
    hessian_cg(is, v);
    return;
  }
  if (kd < 0) {
    solver_chol_solve(nd, st->H, v);
    return;
  }
  for (int k = 0; k < nd; k++) st->w[st->yord[k]] = v[k];
  LAPACKE_dpbtrs_work(LAPACK_COL_MAJOR, 'L', nd, kd, 1, st->H, kd + 1, st->w, nd);
  for (int k = 0; k < nd; k++) v[k] = st->w[st->yord[k]];
}

// out (nd) = H v = v + sum_q Y_q' H_q Y_q v over the island's units off the separating zone
// (the zone Hessians of the last zones(hess)); diag (nd, NULL: none) = H's diagonal instead
static void hessian_mul(const island* is, const double* v, double* out, double* diag) {
  const solver_problem* p = is->p;
  newton_state* st = is->st;
  size_t ws = (size_t)p->ystride;
  for (int k = 0; k < is->nd; k++) {
    if (diag) diag[k] = 1;
    else out[k] = v[k];
  }
  for (int q = 0; q < is->n; q++) {
    if (st->zone[q] == ZONE_FREE) continue;
    int ir[6], pr[6], nr = unit_rows(is, q, ir, pr), nz = st->ynz[q];
    const int* d = st->yi + (size_t)q * ws;
    const double* hq = st->hz + 36 * q;
    const double* y[6];
    double yv[6], h[6];
    for (int r = 0; r < nr; r++) y[r] = p->Y + (size_t)pr[r] * ws;
    if (diag) {
      for (int k = 0; k < nz; k++)
        for (int r = 0; r < nr; r++)
          for (int c = 0; c < nr; c++) diag[d[k]] += y[r][k] * hq[nr * r + c] * y[c][k];
      continue;
    }
    for (int r = 0; r < nr; r++) {
      yv[r] = 0;
      for (int k = 0; k < nz; k++) yv[r] += y[r][k] * v[d[k]];
    }
    for (int r = 0; r < nr; r++) {
      h[r] = 0;
      for (int c = 0; c < nr; c++) h[r] += hq[nr * r + c] * yv[c];
    }
    for (int k = 0; k < nz; k++)
      for (int r = 0; r < nr; r++) out[d[k]] += y[r][k] * h[r];
  }
}

// v := H^-1 v by conjugate gradients preconditioned by H's diagonal (an island whose factor does
// not fit in st->H: st->kd -3), to kCgTol of |v| or 2 nd iterations: a descent direction
// whatever the iterations (the line search and the stopping residual decide the rest)
static void hessian_cg(const island* is, double* v) {
  newton_state* st = is->st;
  int nd = is->nd;
  double *r = st->cr, *pp = st->cp, *q = st->cq, *z = st->cz, *x = st->cx, *di = st->cdi;
  hessian_mul(is, NULL, NULL, di);
  double bn = 0, rz = 0;
  for (int k = 0; k < nd; k++) {
    di[k] = 1 / di[k];
    r[k] = v[k];
    x[k] = 0;
    pp[k] = z[k] = di[k] * r[k];
    bn += v[k] * v[k];
    rz += r[k] * z[k];
  }
  bn = sqrt(bn);
  for (int it = 0; it < 2 * nd && rz > 0; it++) {
    hessian_mul(is, pp, q, NULL);
    double pq = dot(pp, q, nd), al = rz / pq, rn = 0, rz1 = 0;
    if (!(pq > 0)) break;
    for (int k = 0; k < nd; k++) {
      x[k] += al * pp[k];
      r[k] -= al * q[k];
      rn += r[k] * r[k];
    }
    if (sqrt(rn) <= kCgTol * bn) break;
    for (int k = 0; k < nd; k++) {
      z[k] = di[k] * r[k];
      rz1 += r[k] * z[k];
    }
    for (int k = 0; k < nd; k++) pp[k] = z[k] + (rz1 / rz) * pp[k];
    rz = rz1;
  }
  memcpy(v, x, sizeof(double) * (size_t)nd);
}

// phi'(t) and phi''(t) of phi(t) = P(x + t d), given xd = x'd and dd = d'd (st->a, st->b: Y x + g
// and Y d)
// a pyramidal unit's part of phi' and phi'' at a + t b: each active edge e (its velocity
// a_e = a_n + s a_k < 0, newton_zone_pyr) adds f_e b_e to -phi' (f_e = -a_e / R_py, b_e = b_n +
// s b_k) and b_e^2 / R_py to phi'', the sums of lambda' b and b' H b edge by edge without
// forming the unit's H
static inline void line_pyr_n(const island* is, int q, int n, const int* ir, double t, double* f1,
                              double* f2) {
  newton_state* st = is->st;
  int i = con_of(is, q);
  double r = is->p->rpy[i], mu3[3] = {is->p->mu[i], is->p->mu[i], 0}, at[6], bt[6];
  const double* co = n == 3 ? mu3 : st->co + 6 * q;
  for (int k = 0; k < n; k++) {
    bt[k] = st->b[ir[k]];
    at[k] = st->a[ir[k]] + t * bt[k];
  }
  for (int k = 0; k < n; k++) {
    if (k == 2 || !(co[k] > 0)) continue;
    for (int sg = 0; sg < 2; sg++) {
      double s = sg ? -co[k] : co[k], ae = at[2] + s * at[k];
      if (!(ae < 0)) continue;
      double be = bt[2] + s * bt[k];
      *f1 -= (-ae / r) * be;
      *f2 += be * be / r;
    }
  }
}

// line_pyr_n with n constant for a condim 4/6 pair (6 rows)
static void line_pyr(const island* is, int q, int n, const int* ir, double t, double* f1,
                     double* f2) {
  if (n == 6) line_pyr_n(is, q, 6, ir, t, f1, f2);
  else line_pyr_n(is, q, n, ir, t, f1, f2);
}

// a pyramid's contact alone (zone_pyr3's edges t1+ t1- t2+ t2-): what line_eval computes
// whatever t is, per contact in st->ls (the
// slopes be of its edges t1+ t1- t2+ t2- and be^2 / r, then mu and r), once per line search
static void line_prep(const island* is) {
  newton_state* st = is->st;
  for (int q = 0; q < is->n; q++) {
    if (st->kind[q] != KIND_PYR3) continue;
    int i = con_of(is, q);
    double mu = is->p->mu[i], r = is->p->rpy[i], *e = st->ls + 10 * q;
    const double* bt = st->b + 3 * q;
    for (int k = 0; k < 4; k++) {
      double s = (k & 1) ? -mu : mu, be = bt[2] + s * bt[k >> 1];
      e[2 * k] = be;
      e[2 * k + 1] = be * be / r;
    }
    e[8] = mu, e[9] = r;
  }
}

// line_pyr for a pyramid's contact alone from line_prep's constants (the same operations on the
// same values: the same bits)
static inline void line_pyr3p(const double* a, const double* b, const double* e, double t,
                              double* f1, double* f2) {
  double mu = e[8], r = e[9], at[3];
  for (int k = 0; k < 3; k++) at[k] = a[k] + t * b[k];
  for (int k = 0; k < 4; k++) {
    double s = (k & 1) ? -mu : mu, ae = at[2] + s * at[k >> 1];
    if (!(ae < 0)) continue;
    *f1 -= (-ae / r) * e[2 * k];
    *f2 += e[2 * k + 1];
  }
}

static void line_eval(const island* is, double t, double xd, double dd, double* f1,
                      double* f2) {
  newton_state* st = is->st;
  *f1 = xd + t * dd;
  *f2 = dd;
  for (int q = 0; q < is->n; q++) {
    double lam[6], H[36], cost, b[6];
    int kind = st->kind[q];
    if (kind == KIND_PYR3) {  // a pyramid's contact alone
      line_pyr3p(st->a + 3 * q, st->b + 3 * q, st->ls + 10 * q, t, f1, f2);
      continue;
    }
    if (kind == KIND_SPIN) continue;
    if (kind == KIND_ROUND) {  // a contact alone (the common case)
      double at[3];
      const double* bq = st->b + 3 * q;
      for (int r = 0; r < 3; r++) at[r] = st->a[3 * q + r] + t * bq[r];
      if (newton_zone(at, st->re + 3 * q, is->p->mu[con_of(is, q)], lam, H, &cost) == ZONE_FREE)
        continue;
      for (int r = 0; r < 3; r++) {
        *f1 -= lam[r] * bq[r];
        *f2 += bq[r] * (H[3 * r] * bq[0] + H[3 * r + 1] * bq[1] + H[3 * r + 2] * bq[2]);
      }
      continue;
    }
    int ir[6], pr[6], n = unit_rows(is, q, ir, pr);
    if (kind == KIND_PYR) {  // MuJoCo's pyramid: edge by edge
      line_pyr(is, q, n, ir, t, f1, f2);
      continue;
    }
    if (unit_zone(is, q, st->a, st->b, t, lam, H, &cost) == ZONE_FREE) continue;
    for (int r = 0; r < n; r++) b[r] = st->b[ir[r]];
    for (int r = 0; r < n; r++) {
      double hb = 0;
      for (int c = 0; c < n; c++) hb += H[n * r + c] * b[c];
      *f1 -= lam[r] * b[r];
      *f2 += b[r] * hb;
    }
  }
}

// the exact line search: phi'(t) = 0 by Newton's method on phi', kept inside the bracket
// [lo, hi] of the sign changes seen (bisection, or doubling while hi is unknown, when a Newton
// step leaves it); f0 = phi'(0) < 0. Returns t (lo when the evaluations run out: a decrease)
static double line_search(const island* is, double xd, double dd, double f0) {
  double lo = 0, hi = INFINITY, t = 1;
  line_prep(is);
  for (int k = 0; k < kLineIt; k++) {
    double f1, f2;
    line_eval(is, t, xd, dd, &f1, &f2);
    if (fabs(f1) <= kLineTol * fabs(f0)) return t;
    if (f1 < 0) lo = t;
    else hi = t;
    double tn = t - f1 / f2;
    if (!(tn > lo && tn < hi)) tn = isinf(hi) ? 2 * t : 0.5 * (lo + hi);
    t = tn;
  }
  return lo > 0 ? lo : t;
}

// lambda(x) of st->lam into lambda (3nc, the island's rows) and c = Y Y' lambda + Re lambda + g
// into s->c, Y' lambda into st->w; the stopping residual (the CCP's, solver_stop_of), or once
// the CCP's passes `above` a finite lower bound of it past `above` (solver_ccp_residual_above:
// island_solve only asks whether it is below the tolerance and below the best so far, so its
// choices are those of the exact value; the NCP term of solver_stop_of is skipped then too, as
// it can only raise a value already past)
static double island_residual(solver* s, const island* is, double* lambda, double above) {
  newton_state* st = is->st;
  yt_mul(is, st->lam, st->w);
  y_mul(is, st->w, 1, st->b);
  for (int q = 0; q < is->n; q++) {
    int i = con_of(is, q);
    for (int r = 0; r < 3; r++) {
      lambda[3 * i + r] = st->lam[3 * q + r];
      s->c[3 * i + r] = st->b[3 * q + r] + st->re[3 * q + r] * st->lam[3 * q + r];
    }
  }
  double r = solver_ccp_residual_above(is->p, lambda, s->c, is->cons, is->n, above, NULL);
  if (r > above && isfinite(r)) return r;
  return solver_stop_of(s, is->p, lambda, s->c, is->cons, is->n, r);
}

// a pair's relative spread of co_k^2 R_k over its friction rows past which its cone is not round
// in u = R^1/2 lambda (MuJoCo softness gives R_k = R_t mu^2 / co_k^2: equal to rounding)
static const double kRoundTol = 1e-12;

// island contact q's pair (pq its spin entry's position): its coefficients into st->co, 0 when
// the pair does not fit newton_zone_ell (its spin entry outside the island or on other dofs, a
// friction row without Re > 0, co_k^2 Re_k not one value)
static int pair_setup(const island* is, int q, int pq, int round) {
  const solver_problem* p = is->p;
  newton_state* st = is->st;
  int i = con_of(is, q), j = p->link[i];
  size_t ws = (size_t)p->ystride;
  if (pq < 0 || pq >= is->n || con_of(is, pq) != j || st->ynz[q] != st->ynz[pq]) return 0;
  if (memcmp(st->yi + (size_t)q * ws, st->yi + (size_t)pq * ws, sizeof(int) * (size_t)st->ynz[q]))
    return 0;
  double a[5], *co = st->co + 6 * q, c0 = 0;
  solver_ell_coef(p, i, j, a);
  co[0] = a[0], co[1] = a[1], co[2] = 0, co[3] = a[2], co[4] = a[3], co[5] = a[4];
  for (int r = 0; r < 6 && round; r++) {
    if (r == 2 || !(co[r] > 0)) continue;
    double re = st->re[r < 3 ? 3 * q + r : 3 * pq + r - 3], c = co[r] * co[r] * re;
    if (!(re > 0) || !isfinite(c)) return 0;
    if (c0 == 0) c0 = c;
    if (fabs(c - c0) > kRoundTol * c0) return 0;
  }
  return 1;
}

// Re = R + ydiag on the island's rows; 0 when a row lacks R > 0 (a frictionless contact's
// tangent rows excepted: they carry no impulse), a contact's tangent rows differ or a condim 4/6
// pair does not fit (pair_setup)
static int island_re(const island* is) {
  const solver_problem* p = is->p;
  newton_state* st = is->st;
  for (int q = 0; q < is->n; q++) {
    int i = con_of(is, q);
    for (int r = 0; r < 3; r++)
      st->re[3 * q + r] = (p->R ? p->R[3 * i + r] : 0) + (p->ydiag ? p->ydiag[3 * i + r] : 0);
  }
  for (int q = 0; q < is->n; q++) {
    int i = con_of(is, q), pq = st->pq[q];
    const double* re = st->re + 3 * q;
    if (pq == -2) continue;  // a spin entry: its pair's rows are checked at its contact
    if (p->rpy && p->rpy[i] > 0) {  // pyramidal: its edges carry R_py, its rows' R is 0
      if (!isfinite(p->rpy[i]) || (pq >= 0 && !pair_setup(is, q, pq, 0))) return 0;
      continue;
    }
    if (!(re[2] > 0) || !isfinite(re[2])) return 0;
    if (pq >= 0) {
      if (!pair_setup(is, q, pq, 1)) return 0;
    } else if (p->mu[i] > 0 && (!(re[0] > 0) || re[0] != re[1] || !isfinite(re[0]))) {
      return 0;
    }
  }
  return 1;
}

// the warm start: x = Y' lambda0, or x = 0 when P is smaller there; st->a = Y x + g, st->lam
static void island_start(const island* is, const double* lambda) {
  newton_state* st = is->st;
  int nd = is->nd;
  for (int q = 0; q < is->n; q++)
    for (int r = 0; r < 3; r++) st->lam[3 * q + r] = lambda[3 * con_of(is, q) + r];
  yt_mul(is, st->lam, st->x);
  y_mul(is, st->x, 1, st->a);
  // the zone Hessians at x = Y' lambda0 beside its cost: the first step's when that x is kept
  for (int q = 0; q < is->n; q++) st->zone[q] = st->zfac[q] = -1;  // no factor yet
  st->pending = 0;
  double pw = 0.5 * dot(st->x, st->x, nd) + zones(is, st->a, st->lam, 1, &st->pending);
  memset(st->d, 0, sizeof(double) * (size_t)nd);
  for (int q = 0; q < is->n; q++)  // g: Y 0 + g
    for (int r = 0; r < 3; r++) st->b[3 * q + r] = is->p->g[3 * con_of(is, q) + r];
  // P(0) alone (st->bl is free until island_solve keeps the first iterate): lambda(g) only when
  // x = 0 is kept (rarely: 2 % of humanoid100's islands)
  double p0 = zones_cost(is, st->b, st->bl);
  if (p0 < pw || !isfinite(pw)) {
    memset(st->x, 0, sizeof(double) * (size_t)nd);
    memcpy(st->a, st->b, sizeof(double) * 3 * (size_t)is->n);
    zones(is, st->a, st->lam, 0, NULL);
    for (int q = 0; q < is->n; q++) st->zone[q] = -1;  // the first step computes x = 0's
    st->fresh = 0;
  } else {
    st->fresh = 1;
  }
}

// one Newton step from x: the direction d = -H^-1 grad P (grad P = x - Y' lambda, st->w holding
// Y' lambda from island_residual), the exact line search, x and a moved. 0 when the factor failed
static int island_step(island* is) {
  newton_state* st = is->st;
  int nd = is->nd, changed = 0;
  if (st->fresh) changed = st->pending;  // the last step's final pass saw this iterate
  else zones(is, st->a, st->lam, 1, &changed);
  st->fresh = 1;  // x stays put when the step returns early
  st->pending = 0;
  if (st->kd == -2) {  // the island's first factorization chooses its form
    island_band(is);
    size_t need = st->kd >= 0 ? (size_t)nd * (size_t)(st->kd + 1) : (size_t)nd * (size_t)nd;
    if (need > st->hcap) st->kd = -3;  // too large for st->H: conjugate gradients
    st->nband += st->kd >= 0;
    st->ndof++;
  }
  if (changed && st->kd != -3 && !hessian_update(is) && hessian(is)) return 0;
  for (int k = 0; k < nd; k++) st->d[k] = st->w[k] - st->x[k];  // -grad P
  hessian_solve(is, st->d);
  y_mul(is, st->d, 0, st->b);
  double xd = 0, dd = 0;  // x'd and d'd in one pass (each sum in order)
  for (int k = 0; k < nd; k++) xd += st->x[k] * st->d[k], dd += st->d[k] * st->d[k];
  double f0 = xd - dot(st->lam, st->b, 3 * is->n);  // phi'(0) = grad P' d
  if (!(f0 < 0)) return 1;  // no descent left (rounding): the residual decides
  double t = line_search(is, xd, dd, f0);
  for (int k = 0; k < nd; k++) st->x[k] += t * st->d[k];
  for (int k = 0; k < 3 * is->n; k++) st->a[k] += t * st->b[k];
  // lambda(x) for the residual, and the zone Hessians the next step factors (the same values
  // that step's own pass would compute at this x)
  zones(is, st->a, st->lam, 1, &st->pending);
  return 1;
}

// keep (1) or restore (0) the island's lambda and c as the best iterate
static void island_best(solver* s, const island* is, double* lambda, int keep) {
  newton_state* st = is->st;
  for (int q = 0; q < is->n; q++) {
    int i = con_of(is, q);
    for (int r = 0; r < 3; r++) {
      double *l = lambda + 3 * i + r, *c = s->c + 3 * i + r;
      double *bl = st->bl + 3 * q + r, *bc = st->bc + 3 * q + r;
      if (keep) *bl = *l, *bc = *c;
      else *l = *bl, *c = *bc;
    }
  }
}

// one island: Newton iterations until the stopping residual meets the tolerance; the answer
// (the best iterate by that residual) in lambda and s->c. Returns the iterations, the residual in
// *res
static int island_solve(solver* s, island* is, double* lambda, double* res) {
  island_dofs(is);
  is->st->kd = -2;
  int it = 0;
  double r = INFINITY, best = INFINITY;
  if (island_re(is)) {
    island_start(is, lambda);
    for (;;) {
      // exact at the start (best is infinite) and whenever r <= max(tolerance, best)
      r = island_residual(s, is, lambda, fmax(s->opt.tolerance, best));
      if (r < best || it == 0) {
        best = r;
        island_best(s, is, lambda, 1);
      }
      if (!(r > s->opt.tolerance) || it >= s->opt.max_iterations || intr_requested()) break;
      it++;
      if (!island_step(is)) break;
    }
    if (!(r <= best)) {
      island_best(s, is, lambda, 0);
      r = best;
    }
  }
  *res = r;
  return it;
}

void solver_ccp_newton(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  newton_state* st = nstate(s);
  solver_tally tally = solver_tally_start();
  st->nband = st->ndof = 0;
  st->pyr = p->rpy != NULL;
  int ok = p->Y && !p->box && p->nv <= st->nv && p->ystride <= st->mchain;
  int nis = solver_sweep_islands(p);
  for (int k = 0; k < nis; k++) {
    island is = {p, NULL, 0, 0, st};
    is.cons = solver_sweep_island(p, k, &is.n);
    double r = INFINITY;
    int it = ok ? island_solve(s, &is, lambda, &r) : 0;
    solver_tally_add(&tally, it, r, ok);
  }
  solver_tally_finish(&tally, s, res, s->opt.tolerance);
  res->dof_islands = st->ndof;
  res->band_islands = st->nband;
}

//------------------------------------ the family -------------------------------------------

// the factored form is required: a solver for matrix problems alone (nv = 0) is refused
static csim_status newton_work(const solver_options* o, int maxc, size_t* nwork,
                               csim_error* err) {
  (void)maxc;
  (void)nwork;
  if (o->nv > 0 && o->max_chain > 0) return CSIM_OK;
  return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "solver.name",
                 "solver 'newton' works on a simulation's contact problem in its factored form "
                 "(G = Y Y'); a problem given as a matrix alone (csim solve, FCLib) has none: "
                 "choose pgs or admm");
}

static size_t newton_bytes(const solver_options* o, int maxc) {
  size_t mc = (size_t)(maxc > 0 ? maxc : 1), nv = (size_t)(o->nv > 0 ? o->nv : 1);
  size_t w = (size_t)(o->max_chain > 0 ? o->max_chain : 1);
  size_t hd = nv < NEWTON_DENSE_DOFS ? nv : NEWTON_DENSE_DOFS;
  return sizeof(newton_state) + (2 * nv + 6 * mc + mc * w + mc + admm_y_ord_ints(o, maxc)) * sizeof(int) +
         (hd * hd + 9 * nv + 6 * 3 * mc + 36 * mc + 6 * mc + 10 * mc + 6 * w) * sizeof(double);
}

static void newton_destroy(void* priv) {
  newton_state* st = priv;
  if (!st) return;
  free(st->dofmap);
  free(st->dofs);
  free(st->zone);
  free(st->pq);
  free(st->conpos);
  free(st->kind);
  free(st->zfac);
  free(st->asc);
  free(st->ls);
  free(st->yi);
  free(st->ynz);
  free(st->yord);
  free(st->H);
  free(st->x);
  free(st->a);
  free(st->hz);
  free(st->co);
  free(st->zt);
  free(st);
}

static void* newton_create(const solver_options* o, int maxc) {
  newton_state* st = calloc(1, sizeof(*st));
  if (!st) return NULL;
  size_t mc = (size_t)(maxc > 0 ? maxc : 1), nv = (size_t)(o->nv > 0 ? o->nv : 1);
  size_t w = (size_t)(o->max_chain > 0 ? o->max_chain : 1);
  st->nv = o->nv;
  st->maxc = (int)mc;
  st->mchain = o->max_chain;
  st->dofmap = malloc(sizeof(int) * nv);
  st->dofs = malloc(sizeof(int) * nv);
  st->zone = malloc(sizeof(int) * mc);
  st->pq = malloc(sizeof(int) * mc);
  st->conpos = calloc(mc, sizeof(int));  // pair_setup may read an entry no island wrote
  st->kind = malloc(sizeof(int) * mc);
  st->zfac = malloc(sizeof(int) * mc);
  st->asc = malloc(sizeof(int) * mc);
  st->ls = malloc(sizeof(double) * 10 * mc);
  st->yi = malloc(sizeof(int) * mc * w);
  st->ynz = malloc(sizeof(int) * mc);
  st->yord = malloc(sizeof(int) * admm_y_ord_ints(o, maxc));
  size_t hd = nv < NEWTON_DENSE_DOFS ? nv : NEWTON_DENSE_DOFS;
  st->hcap = hd * hd;
  st->H = malloc(sizeof(double) * st->hcap);
  st->x = calloc(9 * nv, sizeof(double));  // x, d, w, then conjugate gradients' six
  st->a = calloc(6 * 3 * mc, sizeof(double));  // a, b, lam, re, bl, bc
  st->hz = calloc(36 * mc, sizeof(double));
  st->co = calloc(6 * mc, sizeof(double));
  st->zt = calloc(6 * w, sizeof(double));
  if (!st->dofmap || !st->dofs || !st->zone || !st->pq || !st->conpos || !st->kind || !st->zfac || !st->asc || !st->ls || !st->co || !st->yi || !st->ynz || !st->yord || !st->H || !st->x || !st->a || !st->hz || !st->zt) {
    newton_destroy(st);
    return NULL;
  }
  for (size_t k = 0; k < nv; k++) st->dofmap[k] = -1;
  st->d = st->x + nv;
  st->w = st->d + nv;
  st->cr = st->w + nv;
  st->cp = st->cr + nv;
  st->cq = st->cp + nv;
  st->cz = st->cq + nv;
  st->cx = st->cz + nv;
  st->cdi = st->cx + nv;
  st->b = st->a + 3 * mc;
  st->lam = st->b + 3 * mc;
  st->re = st->lam + 3 * mc;
  st->bl = st->re + 3 * mc;
  st->bc = st->bl + 3 * mc;
  return st;
}

const solver_family solver_family_newton = {
    .work = newton_work,
    .bytes = newton_bytes,
    .create = newton_create,
    .destroy = newton_destroy,
};

void newton_set_capacity(solver* s, size_t doubles) {
  newton_state* st = nstate(s);
  size_t nv = (size_t)(st->nv > 0 ? st->nv : 1), hd = nv < NEWTON_DENSE_DOFS ? nv : NEWTON_DENSE_DOFS;
  st->hcap = doubles < hd * hd ? doubles : hd * hd;
}
