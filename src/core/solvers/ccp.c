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
// MuJoCo's pyramidal cone (contact.cone pyramidal, solver.h rpy): such a contact's variables are
// its edge impulses f >= 0 (lambda = E f; 4 edges, 6 or 10 with a condim 4/6 spin entry), and a
// visit solves its edges' QP exactly with the other contacts fixed (block Gauss-Seidel,
// pyr_local_qp), then updates c once. f is not stored between visits: it is the least-norm split
// of lambda (pyr_split), which is the optimal f for that lambda (the edges' cost depends on f
// beyond lambda only through R_py |f|^2 / 2), so the split never raises the cost and each visit
// is a descent step of the edges' QP. Its residual (000 eq. 14's triple on the edges' LCP, pyr_residuals) comes from
// lambda alone the same way.
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

// contact.cone pyramidal (solver.h rpy): contact i's friction dimensions k < nd (rows row[k],
// coefficients a[k] > 0: t1 and t2 with mu, and for a condim 4/6 pair its spin entry's torsion
// and rolling rows with theirs, solver_ell_coef) and its normal row row[nd]; the edges are
// n + a_k e_k (edge 2k) and n - a_k e_k (edge 2k + 1), MuJoCo's 2 (condim - 1)
typedef struct {
  int nd;
  int row[6];
  double a[5];
} pyr_rows;

static void pyr_layout(const solver_problem* p, int i, pyr_rows* L) {
  L->nd = 0;
  if (p->link && p->link[i] >= 0) {
    int j = p->link[i], rows[5] = {3 * i, 3 * i + 1, 3 * j, 3 * j + 1, 3 * j + 2};
    double a[5];
    solver_ell_coef(p, i, j, a);
    for (int k = 0; k < 5; k++)
      if (a[k] > 0) L->row[L->nd] = rows[k], L->a[L->nd++] = a[k];
  } else {
    for (int k = 0; k < 2; k++) L->row[L->nd] = 3 * i + k, L->a[L->nd++] = p->mu[i];
  }
  L->row[L->nd] = 3 * i + 2;
}

// fmax as glibc's (x86-64 s_fmax.S: maxsd, and the other operand when one is a quiet NaN), inline:
// the residual's ~6 calls per pyramid contact were a sixth of its instructions
static inline double max_q(double x, double y) {
  return x > y ? x : (y != y ? x : y);
}

// the least-norm edge impulses f >= 0 with E f = lambda (l: the nd friction components, then the
// normal): pair k carries a normal share s_k >= d_k = |l_k| / a_k, sum s_k = l_N, and
// |f|^2 = sum (s_k^2 + d_k^2) / 2, least for s_k = max(d_k, tau) (water filling). An l outside
// the pyramid (sum d_k > l_N: a warm start of another model) is first scaled into it; l updated
static inline void pyr_split_n(const pyr_rows* L, int nd, double* l, double* f) {
  double n = l[nd], d[5], sum = 0;
  if (!(n > 0)) {
    for (int k = 0; k <= nd; k++) l[k] = 0;
    for (int e = 0; e < 2 * nd; e++) f[e] = 0;
    return;
  }
  for (int k = 0; k < nd; k++) sum += d[k] = fabs(l[k]) / L->a[k];
  if (sum > n)
    for (int k = 0; k < nd; k++) l[k] *= n / sum, d[k] *= n / sum;
  // tau: the shares above their bounds split what the bounded ones leave, equally
  unsigned char fixed[5] = {0};
  double tau = n / nd;
  for (int pass = 0; pass < nd; pass++) {
    double rest = n;
    int free = 0, changed = 0;
    for (int k = 0; k < nd; k++) {
      if (!fixed[k] && d[k] > tau) fixed[k] = 1, changed = 1;
      if (fixed[k]) rest -= d[k];
      else free++;
    }
    if (free > 0) tau = rest / free;
    if (!changed) break;
  }
  for (int k = 0; k < nd; k++) {
    double sk = fixed[k] ? d[k] : tau, x = l[k] / L->a[k];
    f[2 * k] = max_q((sk + x) / 2, 0);  // rounding at a bound
    f[2 * k + 1] = max_q((sk - x) / 2, 0);
  }
}

static void pyr_split(const pyr_rows* L, double* l, double* f) {
  pyr_split_n(L, L->nd, l, f);
}

// edge e's velocity from the local velocities cl (the nd friction rows, then the normal)
static double pyr_edge_vel(const pyr_rows* L, int e, const double* cl) {
  int k = e / 2;
  return cl[L->nd] + ((e & 1) ? -L->a[k] : L->a[k]) * cl[k];
}

// the edges' LCP residual of contact i (c = G lambda + g on its rows, their R 0), 000 eq. 14's
// triple on 0 <= f ⊥ w = E'c + R_py f >= 0 with f the least-norm split of lambda: eps_p the
// distance of lambda past the pyramid's nearest facet (0 for every iterate of the sweeps),
// eps_d = |min(w, 0)|, eps_c = |f'w|
static inline void pyr_residuals_n(const pyr_rows* L, int nd, double rpy, const double* lambda,
                                   const double* c, double* ep, double* ed, double* ec) {
  double l[6], cl[6], f[10], v = 0, inv = 1, dd = 0, cc = 0;
  for (int k = 0; k <= nd; k++) l[k] = lambda[L->row[k]], cl[k] = c[L->row[k]];
  for (int k = 0; k < nd; k++) v += fabs(l[k]) / L->a[k], inv += 1 / (L->a[k] * L->a[k]);
  *ep = max_q(max_q(v - l[nd], 0) / sqrt(inv), -l[nd]);
  pyr_split_n(L, nd, l, f);
  for (int e = 0; e < 2 * nd; e++) {
    double w = cl[nd] + ((e & 1) ? -L->a[e / 2] : L->a[e / 2]) * cl[e / 2] + rpy * f[e];
    if (w < 0) dd += w * w;
    cc += f[e] * w;
  }
  *ed = sqrt(dd);
  *ec = fabs(cc);
}

// pyr_residuals_n with nd known for a contact alone (two friction rows: the common case) and a
// condim 4 pair (three); the same operations in the same order
// a contact alone: pyr_layout's rows written here (inlined in the stopping residual's pass)
static inline void pyr_residuals2(const solver_problem* p, int i, const double* lambda,
                                  const double* c, double* ep, double* ed, double* ec) {
  pyr_rows L;
  L.nd = 2;
  L.row[0] = 3 * i, L.row[1] = 3 * i + 1, L.row[2] = 3 * i + 2;
  L.a[0] = L.a[1] = p->mu[i];
  pyr_residuals_n(&L, 2, p->rpy[i], lambda, c, ep, ed, ec);
}

static void pyr_residuals(const solver_problem* p, int i, const double* lambda, const double* c,
                          double* ep, double* ed, double* ec) {
  pyr_rows L;
  if (!p->link || p->link[i] < 0) {
    pyr_residuals2(p, i, lambda, c, ep, ed, ec);
    return;
  }
  pyr_layout(p, i, &L);
  if (L.nd == 2) pyr_residuals_n(&L, 2, p->rpy[i], lambda, c, ep, ed, ec);
  else if (L.nd == 3) pyr_residuals_n(&L, 3, p->rpy[i], lambda, c, ep, ed, ec);
  else pyr_residuals_n(&L, L.nd, p->rpy[i], lambda, c, ep, ed, ec);
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
    int pyr = p->rpy && p->rpy[i] > 0;
    if (!pyr && p->link && p->link[i] < -1) continue;  // a spin entry: zeros (its pair holds it)
    if (worst > above) {
      if (solver_entry_finite(p, lambda, c, i)) continue;
    } else if (!pyr && solver_pair_passes(p, lambda, c, i, 0, above, &d)) {
      worst = d;
      passed = q;
      continue;
    }
    if (pyr && (!p->link || p->link[i] < 0))  // contact.cone pyramidal: its edges' LCP
      pyr_residuals2(p, i, lambda, c, &a, &b, &d);
    else if (pyr)
      pyr_residuals(p, i, lambda, c, &a, &b, &d);
    else if (p->link)  // condim 4/6 (solver.h): the pair in the generalized cone
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

// the CCP residual as solver_ccp_residual with each entry's complementarity term weighted by w
// (solver.tolerance_units: contactbench, solver.h comp_scale); every entry evaluated
static double ccp_residual_weighted(const solver_problem* p, const double* lambda, const double* c,
                                    const int* cons, int n, double w) {
  double worst = 0;
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    double a, b, d;
    if (p->rpy && p->rpy[i] > 0)
      pyr_residuals(p, i, lambda, c, &a, &b, &d);
    else if (p->link)
      solver_entry_residuals(p, lambda, c, i, p->box && p->box[i], &a, &b, &d);
    else if (p->box && p->box[i])
      cone_residuals(lambda + 3 * i, c + 3 * i, p->mu[i], &a, &b, &d);
    else
      cone_residuals_ccp(lambda + 3 * i, c + 3 * i, p->mu[i], &a, &b, &d);
    d *= w;
    if (isnan(a) || isnan(b) || isnan(d)) return NAN;
    worst = fmax(worst, fmax(a, fmax(b, d)));
  }
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
  double w = x->s->opt.comp_scale;
  double q = w > 0 ? ccp_residual_weighted(x->p, lambda, c, cons, n, w)
                   : solver_ccp_residual_above(x->p, lambda, c, cons, n, above, x->first);
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

// the strictly convex QP min 1/2 f'A f + b'f over f >= 0 (m <= 10 edges, A m x m row-major
// SPD), solved exactly by a primal active set from a feasible f (Lawson-Hanson's, for a QP): the
// free edges' Newton point z; if it is feasible it is taken and the bound edge of most negative
// gradient is freed, else the step stops at the first free edge reaching 0, which is bound. The
// cost falls at every pass, so no set repeats; at most 4m passes (rounding)
static void pyr_local_qp(int m, const double* A, const double* b, double* f) {
  unsigned char free_[10];
  for (int e = 0; e < m; e++) free_[e] = f[e] > 0;
  for (int pass = 0; pass < 4 * m; pass++) {
    int idx[10], nf = 0;
    for (int e = 0; e < m; e++)
      if (free_[e]) idx[nf++] = e;
    double L[100], z[10] = {0}, y[10];
    // Cholesky of A on the free edges, then z_F = -A_FF^-1 b_F
    int ok = 1;
    for (int x = 0; x < nf && ok; x++)
      for (int c = 0; c <= x; c++) {
        double v = A[m * idx[x] + idx[c]];
        for (int k = 0; k < c; k++) v -= L[nf * x + k] * L[nf * c + k];
        if (c == x) {
          if (!(v > 0)) ok = 0;
          else L[nf * x + x] = sqrt(v);
        } else {
          L[nf * x + c] = v / L[nf * c + c];
        }
      }
    if (!ok) return;  // not SPD (R_py 0): keep f
    for (int x = 0; x < nf; x++) {
      double v = -b[idx[x]];
      for (int k = 0; k < x; k++) v -= L[nf * x + k] * y[k];
      y[x] = v / L[nf * x + x];
    }
    for (int x = nf - 1; x >= 0; x--) {
      double v = y[x];
      for (int k = x + 1; k < nf; k++) v -= L[nf * k + x] * z[idx[k]];
      z[idx[x]] = v / L[nf * x + x];
    }
    double alpha = 1;
    int hit = -1;
    for (int x = 0; x < nf; x++) {
      int e = idx[x];
      if (z[e] < 0 && f[e] - z[e] > 0 && f[e] / (f[e] - z[e]) < alpha)
        alpha = f[e] / (f[e] - z[e]), hit = e;
    }
    if (hit >= 0) {  // to the first bound on the way
      for (int x = 0; x < nf; x++) {
        int e = idx[x];
        f[e] += alpha * (z[e] - f[e]);
        if (f[e] <= 0 || e == hit) f[e] = 0, free_[e] = 0;
      }
      continue;
    }
    for (int x = 0; x < nf; x++) f[idx[x]] = z[idx[x]];
    int add = -1;
    double worst = 0;
    for (int e = 0; e < m; e++) {
      if (free_[e]) continue;
      double w = b[e];
      for (int k = 0; k < m; k++) w += A[m * e + k] * f[k];
      if (w < worst) worst = w, add = e;
    }
    if (add < 0) return;
    free_[add] = 1;
  }
}

// a pyramidal contact (solver.h rpy), with its spin entry when it has one: its edges' QP solved
// exactly on its own velocity (its rows' block B of G, R rows 0) with the other contacts fixed,
// from the least-norm split of its impulse (block Gauss-Seidel on the edges, pyr_local_qp; a
// scalar pass over the edges stalls where edges are nearly parallel, a small mu: n +- 1e-5 t),
// then c updated once per entry
static void pyr_contact(const solver_problem* p, int i, double omega, double* lambda, double* c) {
  pyr_rows L;
  pyr_layout(p, i, &L);
  int nr = L.nd + 1, nd = L.nd, m = 2 * nd;
  double B[36], l[6] = {0}, l0[6], cl[6], f[10], f0[10], r = p->rpy[i];  // (l: for gcc's -Wmaybe-uninitialized)
  if (nr == 3) {
    solver_gdiag(p, i, B);  // rows t1 t2 n, as L's
  } else {
    for (int x = 0; x < nr; x++)
      for (int y = 0; y < nr; y++) B[nr * x + y] = solver_gentry(p, L.row[x], L.row[y]);
  }
  for (int k = 0; k < nr; k++) l0[k] = l[k] = lambda[L.row[k]], cl[k] = c[L.row[k]];
  pyr_split(&L, l, f);
  for (int x = 0; x < nr; x++)  // the split may have scaled lambda into the pyramid
    for (int y = 0; y < nr; y++) cl[x] += B[nr * x + y] * (l[y] - l0[y]);
  // A = E'B E + r I and b = E'cl - (E'B E) f, so that A f' + b = E'(cl + B E (f' - f)) + r f'
  double BE[60], A[100], b[10];
  for (int e = 0; e < m; e++) {
    int k = e / 2;
    double s = (e & 1) ? -L.a[k] : L.a[k];
    for (int x = 0; x < nr; x++) BE[m * x + e] = B[nr * x + nd] + s * B[nr * x + k];
  }
  for (int e = 0; e < m; e++) {
    int k = e / 2;
    double s = (e & 1) ? -L.a[k] : L.a[k];
    for (int q = 0; q < m; q++) A[m * e + q] = BE[m * nd + q] + s * BE[m * k + q];
    b[e] = pyr_edge_vel(&L, e, cl);
  }
  for (int e = 0; e < m; e++) {
    for (int q = 0; q < m; q++) b[e] -= A[m * e + q] * f[q];
    A[m * e + e] += r;
    f0[e] = f[e];
  }
  pyr_local_qp(m, A, b, f);
  for (int e = 0; e < m; e++) {
    double d = omega * (f[e] - f0[e]);  // over-relaxation: along the block step, kept >= 0
    if (f0[e] + d < 0) d = -f0[e];
    int k = e / 2;
    l[nd] += d, l[k] += ((e & 1) ? -L.a[k] : L.a[k]) * d;
  }
  // the changes per entry: contact i's rows 3i..3i+2, its spin entry's 3j..3j+2
  double di[3] = {0, 0, 0}, dj[3] = {0, 0, 0};
  int j = p->link && p->link[i] >= 0 ? p->link[i] : -1, any = 0;
  for (int k = 0; k < nr; k++) {
    double d = l[k] - l0[k];
    if (d == 0) continue;
    any = 1;
    lambda[L.row[k]] = l[k];
    if (L.row[k] / 3 == i) di[L.row[k] - 3 * i] = d;
    else dj[L.row[k] - 3 * j] = d;
  }
  if (!any) return;
  velocity_update(p, i, di, c);
  if (j >= 0) velocity_update(p, j, dj, c);
}

// one sweep: per contact a gradient step and projection onto K_mu (Alg. 2 lines 3-4)
static void ccp_sweep(const void* ctx, const int* cons, int n, double* lambda, double* c) {
  const ccp_ctx* x = ctx;
  const solver_problem* p = x->p;
  const double* tinv = x->s->tinv;
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    if (p->rpy && p->rpy[i] > 0) {  // a pyramidal contact (with its spin entry's edges)
      pyr_contact(p, i, x->s->opt.over_relaxation, lambda, c);
      continue;
    }
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
  for (int i = 0; i < nc; i++) {
    if (p->rpy && p->rpy[i] > 0) {  // scaled into the pyramid
      pyr_rows L;
      double l[6] = {0}, f[10];  // (l: for gcc's -Wmaybe-uninitialized)
      pyr_layout(p, i, &L);
      for (int k = 0; k <= L.nd; k++) l[k] = lambda[L.row[k]];
      pyr_split(&L, l, f);
      for (int k = 0; k <= L.nd; k++) lambda[L.row[k]] = l[k];
    } else if (!p->link || p->link[i] == -1)
      cone_project(lambda + 3 * i, lambda + 3 * i, p->mu[i]);
  }
  solver_crows(p, lambda, s->c, NULL, nc);

  // island by island (solver_impl.h): each island sweeps until its CCP residual, checked on an
  // exact c, is below the tolerance
  int first = 0;  // where the stops start: a hint (any start gives the same value)
  ccp_ctx x = {s, p, &first};
  solver_sweep_run(s, p, lambda, ccp_sweep, stop_residual, &x, REFRESH, res);
}
