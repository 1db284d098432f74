// pgs.c — projected Gauss-Seidel for the NCP (000 Alg. 5).
//
// Per contact, the normal impulse is updated with the diagonal normal entry and clamped at 0
// (lines 3-4); the tangent impulse takes a scalar step 1/max(G_t1t1, G_t2t2) (line 5: a scalar
// keeps maximum dissipation at the fixed point; the larger diagonal is the conservative choice)
// and is projected horizontally onto the disc of radius mu*lambda_N (line 6). Over-relaxation
// blends each update with the previous value.
#include "core/interrupt.h"  // a signal ends the iteration (interrupt.h)
#include <math.h>
#include <string.h>

#include "core/solvers/cone.h"
#include "core/solvers/solver_impl.h"

// An island whose every row holds a block for each of its contacts, numbered base..base+n-1 (a
// resting box's 4 corners; Talos's two feet, 6-8 corners all coupled through the base) is
// swept from its blocks laid out by column: w[9 n a + 3 n t + 3 q + r] = entry (t, r) of block
// (a, q) (row t of each block of row a, one after the other), so that a contact's update adds
// three columns of 3n entries to c[3 base ..], two at a time and without the blocks' index,
// each entry the sum solver_gcol_blocks forms (the same bits). (c = G lambda + g afresh stays
// solver_crows': from the panel it would be G' lambda + g, the same only where G is symmetric
// bit for bit, as contact.c's is and a problem read from a file need not be.) Talos standing:
// the column updates 39e3 -> 24e3 Ir a step. Laid out
// once an island has had PGS_PANEL_SWEEPS sweeps: a body at rest takes one or two, which do not
// pay the copy (a resting cube: +300 Ir a step with the panel from the start), Talos 30
#define PGS_PANEL_SWEEPS 2
typedef struct {
  const double* w;  // NULL: none (the blocks themselves)
  int base, m;      // the island's first contact, and 3n
} pgs_panel;

static const pgs_panel kNoPanel = {NULL, 0, 0};

// the island cons[0..n)'s panel into pn, in the work past the warm start's copy (island_copy)
// and before the kept impulses of criterion relative (solver_rel_keep), when it has one and it
// fits
static void panel_make(const solver* s, const solver_problem* p, const int* cons, int n,
                       pgs_panel* pn) {
  size_t mc3 = 3 * (size_t)(s->maxc > 0 ? s->maxc : 1);
  if (p->dense || p->diag_only || s->nwork < 2 * mc3 || 9 * (size_t)n * n > s->nwork - 2 * mc3)
    return;
  double* w = s->work + mc3;
  int base = cons ? cons[0] : 0, m = 3 * n;
  for (int a = 0; a < n; a++) {
    int i = base + a, k0 = p->rowptr[i];
    if ((cons && cons[a] != i) || p->rowptr[i + 1] - k0 != n) return;
    for (int q = 0; q < n; q++)
      if (p->col[k0 + q] != base + q) return;
  }
  for (int a = 0; a < n; a++) {
    const double* B = p->blk + 9 * (size_t)p->rowptr[base + a];
    double* wa = w + 9 * (size_t)n * a;
    for (int q = 0; q < n; q++, B += 9)
      for (int t = 0; t < 3; t++) memcpy(wa + t * m + 3 * q, B + 3 * t, 3 * sizeof(double));
  }
  pn->w = w;
  pn->base = base;
  pn->m = m;
}

// y[0 .. 3n) += the panel's columns of island contact a times d (solver_gcol_blocks' sums)
static inline void panel_add(const pgs_panel* pn, int a, const double d[3], double* y) {
  int m = pn->m;
  const double* w0 = pn->w + 3 * (size_t)m * a;
  const double *w1 = w0 + m, *w2 = w1 + m;
  solver_v2 e0 = {d[0], d[0]}, e1 = {d[1], d[1]}, e2 = {d[2], d[2]};
  int k = 0;
#pragma GCC unroll 4
  for (; k + 2 <= m; k += 2) {
    solver_v2 a0, a1, a2, yk;
    memcpy(&a0, w0 + k, 16);
    memcpy(&a1, w1 + k, 16);
    memcpy(&a2, w2 + k, 16);
    memcpy(&yk, y + k, 16);
    yk += a0 * e0 + a1 * e1 + a2 * e2;
    memcpy(y + k, &yk, 16);
  }
  if (k < m) y[k] += w0[k] * d[0] + w1[k] * d[1] + w2[k] * d[2];
}

// c += (G + R)[:, 3i..3i+2] delta: the blocks of row i only (G symmetric), or the panel's
static inline void add_columns(const solver_problem* p, const pgs_panel* pn, int i,
                               const double delta[3], double* c) {
  if (pn->w) panel_add(pn, i - pn->base, delta, c + 3 * (size_t)pn->base);
  else if (p->dense || p->diag_only) solver_gcol_add(p, i, delta, c);
  else solver_gcol_blocks(p, i, delta, c);
  if (p->R)
    for (int r = 0; r < 3; r++) c[3 * i + r] += p->R[3 * i + r] * delta[r];
}

// a condim 4/6 pair (contact i, spin entry j; solver.h): the normal as for a contact, then the
// five friction components f take a gradient step in the metric diag(a^2), f - st a^2 c_f, and
// are scaled back into the ellipsoid ||f / a|| <= lambda_N: in z = f / a a step and a radial
// projection onto the ball, whose fixed point is maximum dissipation over the ellipsoid
// (f = -lambda_N a^2 c_f / ||a c_f||), as the disc's is for a contact. st: tinv[4 j]
static void sweep_pair(const solver* s, const solver_problem* p, const pgs_panel* pn, int i,
                       int j, double omega, double* lambda, double* c) {
  double* li = lambda + 3 * i;
  double* lj = lambda + 3 * j;
  double gnn = s->tinv[4 * i + 1], ln_old = li[2];
  double ln = gnn > 0 ? li[2] - c[3 * i + 2] / gnn : li[2];
  ln = omega * ln + (1 - omega) * ln_old;
  if (ln < 0) ln = 0;
  double dn[3] = {0, 0, ln - ln_old};
  li[2] = ln;
  add_columns(p, pn, i, dn, c);  // every row of c sees the normal's change first
  double a[5], f[5] = {li[0], li[1], lj[0], lj[1], lj[2]}, g[5], st = s->tinv[4 * j], q = 0;
  double cf[5] = {c[3 * i], c[3 * i + 1], c[3 * j], c[3 * j + 1], c[3 * j + 2]};
  solver_ell_coef(p, i, j, a);
  for (int k = 0; k < 5; k++) {
    g[k] = a[k] > 0 ? omega * (f[k] - st * a[k] * a[k] * cf[k]) + (1 - omega) * f[k] : 0;
    if (a[k] > 0) q += (g[k] / a[k]) * (g[k] / a[k]);
  }
  q = sqrt(q);
  double sc = q > ln ? (q > 0 ? ln / q : 0) : 1;
  for (int k = 0; k < 5; k++) g[k] *= sc;
  double di[3] = {g[0] - f[0], g[1] - f[1], 0}, dj[3] = {g[2] - f[2], g[3] - f[3], g[4] - f[4]};
  li[0] = g[0], li[1] = g[1];
  lj[0] = g[2], lj[1] = g[3], lj[2] = g[4];
  add_columns(p, pn, i, di, c);
  add_columns(p, pn, j, dj, c);
}

// one Gauss-Seidel update of contact i (000 Alg. 5 lines 3-6), c kept up to date
static void sweep_contact(const solver* s, const solver_problem* p, const pgs_panel* pn, int i,
                          double omega, double* lambda, double* c) {
  if (p->link && p->link[i] != -1) {  // a condim 4/6 pair, at its contact
    if (p->link[i] >= 0) sweep_pair(s, p, pn, i, p->link[i], omega, lambda, c);
    return;
  }
  double* li = lambda + 3 * i;
  const double* ci = c + 3 * i;
  // normal: lines 3-4
  double gnn = s->tinv[4 * i + 1];
  double ln_old = li[2];
  double ln = gnn > 0 ? li[2] - ci[2] / gnn : li[2];
  ln = omega * ln + (1 - omega) * ln_old;
  if (ln < 0) {
    ln = 0;
    // a contact held open (13 % of Talos standing's updates): its impulse stays 0, so the
    // update would add only exact zeros to c (and leave a zero tangent impulse, up to the
    // zero's sign)
    if (ln_old == 0 && li[0] == 0 && li[1] == 0) return;
  }
  double dn = ln - ln_old;
  // tangent velocity after the normal update
  double ct0 = ci[0] + s->tinv[4 * i + 2] * dn;
  double ct1 = ci[1] + s->tinv[4 * i + 3] * dn;
  // tangent: lines 5-6
  double step = s->tinv[4 * i];
  double t0 = li[0] - step * ct0;
  double t1 = li[1] - step * ct1;
  t0 = omega * t0 + (1 - omega) * li[0];
  t1 = omega * t1 + (1 - omega) * li[1];
  double r = p->mu[i] * ln, tn = sqrt(t0 * t0 + t1 * t1);
  if (tn > r) {
    double f = tn > 0 ? r / tn : 0;
    t0 *= f;
    t1 *= f;
  }
  double delta[3] = {t0 - li[0], t1 - li[1], dn};
  li[0] = t0;
  li[1] = t1;
  li[2] = ln;
  add_columns(p, pn, i, delta, c);
}

// s->warm_sweep (solver.name auto's first solver): a warm start that meets the tolerance is
// still swept once unless its residual is below PGS_WARM_MARGIN times it. A resting body's
// warm start passes with the separating velocity its complementarity term admits (up to
// tolerance / lambda_N: 4e-6 m/s on cube_rest at 1e-8), and that residual grows about 3x a
// step (the velocity kept, the gap it opens, closed by the next step's target c*_N = depth / dt,
// and the impulse excess: 6.4e-9 -> 1.9e-8), so the step after is a full solve (7 sweeps at a
// rate near 0.35), which leaves the body moving again: a 3-step cycle that does not decay,
// 4.39 sweeps per step on cube_rest, 3.83 per island on grid_16. Swept once, the warm start
// stays near the answer: 1.0 and 0.96 (margin 0.1: 1.65 and 2.05; every warm start swept:
// 1.02 and 1.01). The answer still meets the same test: the sweep's is kept when it passes,
// else the warm start is (in s->work: a sweep can leave a passing warm start far behind, 8e-9
// -> 4.7e-6 on cube_push_ramp's cube as the push nears the friction limit, and Gauss-Seidel then
// took 12 sweeps back to where it started)
#define PGS_WARM_MARGIN 0.01

// an island's impulses into keep (back 0) or back from it (back 1), keep indexed by island
// position
static void island_copy(double* keep, double* lambda, const int* cons, int n, int back) {
  for (int q = 0; q < n; q++)
    for (int u = 0, i = cons ? cons[q] : q; u < 3; u++) {
      if (back) lambda[3 * i + u] = keep[3 * q + u];
      else keep[3 * q + u] = lambda[3 * i + u];
    }
}

// the stopping residual into r->eps_abs (solver_rel_stop applied): the NCP's (and the natural
// one's under solver.criterion: natural) exactly, or a bound of it once past `above`
// (solver_ncp_eps_above, with the island's hint h; the caller gives INFINITY under criterion
// natural)
static void stop_eps(const solver* s, const solver_problem* p, const double* lambda,
                     const double* c, const int* cons, int n, double above, solver_stop_hint* h,
                     solver_result* r) {
  if (above < INFINITY) r->eps_abs = solver_ncp_eps_above(p, lambda, c, cons, n, above, h);
  else solver_ncp_stop_on(s, p, lambda, c, cons, n, r);
  r->eps_abs = solver_rel_stop(s, lambda, cons, n, r->eps_abs);
}

// island residuals r (solver_ncp_stop_on's, exact) into the metric over every contact m
static void metric_add(solver_result* m, const solver_result* r) {
  solver_metric_add(m, r->eps_p, r->eps_d, r->eps_c);
}

void solver_pgs(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  int nc = p->nc, natural = s->opt.criterion == SOLVER_STOP_NATURAL;
  double omega = s->opt.over_relaxation;
  double* c = s->c;  // (G + R) lambda + g, kept up to date contact by contact

  // scalar tangent step per contact: a scalar (not the 2x2 block inverse) keeps the fixed point of
  // the horizontal projection on maximum dissipation (lambda_T anti-parallel to c_T)
  // tinv[4i]: that step; tinv[4i+1..3]: G~_NN, G_t1N, G_t2N (the diagonal block's entries the
  // sweep reads)
  for (int i = 0; i < nc; i++) {
    double Bd[9];
    const double* B = Bd;  // the stored block itself when there is one (no copy)
    if (p->dense) solver_gdiag(p, i, Bd);
    else B = p->blk + 9 * (size_t)p->diag[i];
    double a = B[0] + (p->R ? p->R[3 * i] : 0);
    double d = B[4] + (p->R ? p->R[3 * i + 1] : 0);
    double big = a > d ? a : d;
    s->tinv[4 * i] = big > 0 ? 1 / big : 0;
    s->tinv[4 * i + 1] = B[8] + (p->R ? p->R[3 * i + 2] : 0);
    s->tinv[4 * i + 2] = B[2];
    s->tinv[4 * i + 3] = B[5];
  }

  if (p->link) solver_spin_setup(s, p, lambda, 1, 0);
  // start from the warm start projected onto the cones
  for (int i = 0; i < nc; i++)
    if (!p->link || p->link[i] == -1) cone_project(lambda + 3 * i, lambda + 3 * i, p->mu[i]);

  // c = (G + R) lambda + g; the residuals come island by island below (the NCP metrics of the
  // answer are solver_solve's)
  solver_crows(p, lambda, c, NULL, nc);
  // island by island (solver_impl.h): each island sweeps until its own contacts meet the
  // tolerance
  int nis = solver_sweep_islands(p);
  solver_tally tally = solver_tally_start();
  solver_result r = *res, metric = {0};
  // under the plain NCP criterion an island's exact stopping residuals are solver_residuals_on's
  // (solver_ncp_stop_on adds nothing): an island that ends on an exact pass over an exact c
  // gives solver_solve its metric, so the confirming pass is the exact one (the same verdict
  // and, at or below the tolerance, the same value as the bound: every contact is then summed)
  int plain = s->opt.criterion == SOLVER_STOP_NCP && !(s->opt.comp_scale > 0) && !p->R;
  int covered = 0;
  for (int k = 0; k < nis; k++) {
    int n;
    const int* cons = solver_sweep_island(p, k, &n);
    pgs_panel pn = kNoPanel;
    solver_ncp_stop_on(s, p, lambda, c, cons, n, &r);
    double ref[2] = {r.eps_abs, r.eps_abs}, tol = s->opt.tolerance;
    int it = 0, bounded = 0;
    solver_stop_hint hint = SOLVER_STOP_HINT;
    int warm = s->warm_sweep && r.eps_abs <= tol && r.eps_abs > PGS_WARM_MARGIN * tol;
    if (warm) island_copy(s->work, lambda, cons, n, 0);
    while ((warm || r.eps_abs > tol) && it < s->opt.max_iterations && !intr_requested()) {
      solver_rel_keep(s, lambda, cons, n);
      if (it == PGS_PANEL_SWEEPS) panel_make(s, p, cons, n, &pn);
      if (pn.w)  // two loops: each sweep_contact inlined knows which columns it adds
        for (int q = 0; q < n; q++) sweep_contact(s, p, &pn, cons ? cons[q] : q, omega, lambda, c);
      else
        for (int q = 0; q < n; q++) sweep_contact(s, p, &kNoPanel, cons ? cons[q] : q, omega, lambda, c);
      it++;
      // between sweeps only "above tol?" matters: a bound of eps_abs once past it (as
      // solver_sweep_run), exact where solver_stalled reads it or the natural residual joins
      bounded = !natural && !(s->stall && it % s->stall == 0);
      stop_eps(s, p, lambda, c, cons, n, bounded ? tol : INFINITY, &hint, &r);
      // the running c collects round-off: confirm convergence on a fresh c = (G + R) lambda + g
      if (r.eps_abs <= tol) {
        solver_crows(p, lambda, c, cons, n);
        stop_eps(s, p, lambda, c, cons, n, bounded && !plain ? tol : INFINITY, &hint, &r);
        bounded = bounded && !plain;
      }
      if (warm && r.eps_abs > tol) {  // the sweep left the tolerance: back to the warm start
        island_copy(s->work, lambda, cons, n, 1);
        solver_crows(p, lambda, c, cons, n);
        solver_ncp_stop_on(s, p, lambda, c, cons, n, &r);  // its test again, the same bits
        bounded = 0;
        break;
      }
      warm = 0;
      if (r.eps_abs > tol && solver_stalled(s, it, r.eps_abs, ref)) break;
    }
    if (bounded && r.eps_abs > tol)  // the island's reported residual is exact
      stop_eps(s, p, lambda, c, cons, n, INFINITY, &hint, &r);
    solver_island_done(s, k, r.eps_abs);
    // c is exact when no sweep ran or the last test recomputed it
    int exact = it == 0 || r.eps_abs <= s->opt.tolerance;
    solver_tally_add(&tally, it, r.eps_abs, exact);
    if (plain && exact && !isnan(r.eps_abs)) metric_add(&metric, &r), covered += n;
  }
  solver_tally_finish(&tally, s, res, s->opt.tolerance);
  s->m_fresh = s->c_fresh && plain && covered == nc;
  s->metric = metric;
}
