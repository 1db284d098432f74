// solver_impl.h — what the solver families share inside src/core/solvers (not a public contract).
#ifndef CSIM_SOLVER_IMPL_H
#define CSIM_SOLVER_IMPL_H

#include <math.h>
#include <string.h>

#include "core/interrupt.h"  // a signal ends the sweeps (solver_sweep_run)
#include "core/solvers/solver.h"

// A solver family: solves p from the initial guess in lambda, sets res->iterations,
// res->converged and res->residual (its stopping residual: its model's own, and under
// solver.criterion: ncp the NCP one too, solver_stop_of); any choice between iterates (warm start
// or zero, best iterate) is made on its model's own residual (solver.h). The NCP metrics (eps_*)
// are filled afterwards by solver_solve. Must not allocate: scratch comes from s->work.
typedef void (*solver_fn)(solver* s, const solver_problem* p, double* lambda, solver_result* res);

struct solver {
  solver_options opt;
  int maxc;        // contacts the workspace is sized for
  double* c;       // (3 maxc) contact velocities
  double* tinv;    // (4 maxc) per-contact scalars or 2x2 blocks
  double* work;    // scratch for the families: SOLVER_WORK_OF(opt, maxc) doubles (or Lemke's)
  size_t nwork;
  solver_fn fn;    // the family implementing opt.model / opt.kind
  const double* dual_in;  // warm dual for the next solve (3nc, NaN = none), or NULL
  double* dual_out;       // dual of the last solve (3 maxc), NaN when the family has none
  double* isl;     // dense families: one island's dense sub-problem (solver.c), else NULL
  size_t nisl;
  size_t rows;     // dense families: rows of the largest island the work holds (solver_work_rows)
  int* map;        // (maxc) contact -> island position scratch
  unsigned char* box;  // (maxc) an island's box marks (solver_problem.box), dense families
  int* link;       // (maxc) an island's condim 4/6 links in island positions (solver_problem.link)
  double* mu_roll; // (maxc) and its spin entries' rolling coefficients
  int c_fresh;     // set by a family when s->c = (G + R) lambda + g exactly at the answer
  // set by a family (with c_fresh) when metric holds solver_residuals_on over every contact at
  // the answer: solver_solve's own pass on the same c, which it then skips
  int m_fresh;
  solver_result metric;
  const struct solver_family* fam;  // the family's hooks (below)
  void* priv;      // the family's private state (fam->create), NULL when it has none
  // set on the first solver of solver.name auto (auto.c) only: a per-contact family then stops
  // an island it stalls on (solver_stalled: stall sweeps a window, 0 never) and leaves each
  // island's stopping residual in island_res (islands of solver_sweep_islands; NULL: not kept)
  int stall;
  double* island_res;
  // set on auto's first solver too: a warm start that passes the test is still swept once
  // (pgs.c PGS_WARM_MARGIN)
  int warm_sweep;
};

// A solver family's hooks: what solver.c needs to size, create and run a family without knowing
// its fields (one table per family, next to its code; a NULL hook: nothing to do). solver.c
// pairs each (model, kind) with its solve function and its family (kPairs).
typedef struct solver_family {
  // raise *nwork to the scratch doubles the family needs beyond SOLVER_WORK_OF; an input error
  // on options it cannot hold (err may be NULL)
  csim_status (*work)(const solver_options* o, int maxc, size_t* nwork, csim_error* err);
  // doubles of an island of `rows` rows beyond the work's matrices and the island's G
  size_t (*island_doubles)(const solver_options* o, size_t rows);
  // bytes of the private state create allocates for maxc contacts
  size_t (*bytes)(const solver_options* o, int maxc);
  void* (*create)(const solver_options* o, int maxc);  // NULL when out of memory
  void (*destroy)(void* priv);
  // an island in the family's own form instead of dense rows (ADMM in dof space): sub gets it
  // and 1 is returned, else 0 and sub is untouched
  int (*island_form)(solver* s, const solver_problem* p, const int* cons, int n,
                     solver_problem* sub);
  // 1 when the family factors island sub (its blocks in island numbering: solver.c
  // island_blocks) sparse and so takes it as blocks, 0 when it wants the island's dense G
  int (*island_sparse)(solver* s, const solver_problem* sub);
  // the penalties the family keeps across solves (at most SOLVER_CARRY_MAX), their count in *n:
  // every island of a solve starts from the same values, the largest island's are kept
  double* (*carry)(solver* s, int* n);
  // back to the state create left (solver_reset: what the family keeps across solves)
  void (*reset)(void* priv);
} solver_family;
#define SOLVER_CARRY_MAX 2

extern const solver_family solver_family_plain;    // solver.c: no hook (per-contact families)
extern const solver_family solver_family_lcp;      // lcp.c: the pyramid polygon's scratch
extern const solver_family solver_family_lemke;    // lcp.c: the tableau
extern const solver_family solver_family_admm;     // admm.c
extern const solver_family solver_family_staggered;  // staggered.c
extern const solver_family solver_family_auto;     // auto.c: its two solvers
extern const solver_family solver_family_newton;   // newton.c: the island's dof-space work
extern const solver_family solver_family_ncp_newton;  // ncp_newton.c: pivots and zone blocks

// the families that factor or pivot on G (ADMM, staggered, Lemke, newton under ncp) get it
// densely per island (newton under ccp works on the factored form: newton.c)
static inline int solver_is_dense_family(const solver_options* o) {
  return o->kind == CSIM_SOLVER_ADMM || o->kind == CSIM_SOLVER_STAGGERED ||
         o->kind == CSIM_SOLVER_LEMKE ||
         (o->kind == CSIM_SOLVER_NEWTON && o->model == CSIM_MODEL_NCP);
}

// ADMM given factored problems (o->nv > 0) factors an island in whichever space is smaller, so
// its dense matrices have at most min(3n, nv) rows; every other dense family 3n (the largest
// island can hold every contact)
static inline size_t solver_dense_rows(const solver_options* o, size_t n) {
  size_t n3 = 3 * n;
  if (o->kind == CSIM_SOLVER_ADMM && o->nv > 0 && (size_t)o->nv < n3) return (size_t)o->nv;
  return n3;
}

// rows of the dense island work solver_create reserves for max_contacts n: solver_dense_rows(n)
// (the worst case, an island of every contact), or o->island_rows when set and smaller (solver.h:
// a larger island is left unsolved and reported); 0 for the per-contact families
static inline size_t solver_work_rows(const solver_options* o, size_t n) {
  if (!solver_is_dense_family(o)) return 0;
  size_t r = solver_dense_rows(o, n);
  if (o->island_rows > 0 && (size_t)o->island_rows < r) r = (size_t)o->island_rows;
  return r;
}

// scratch size: dense families two dense matrices (solver_work_rows square) and 32 vectors of
// length 3n; per-contact families the vectors only
#define SOLVER_WORK_OF(o, n)                                                                \
  (2 * solver_work_rows(o, n) * solver_work_rows(o, n) + 32 * (size_t)(3 * (n)) + 64)

// doubles of the island buffer of a dense family: G (rows^2), g, R, lambda, two duals, the
// contact velocity, mu
static inline size_t solver_island_work(const solver_options* o, int maxc) {
  size_t mc = (size_t)(maxc > 0 ? maxc : 1), n3 = 3 * mc, r = solver_work_rows(o, mc);
  return solver_is_dense_family(o) ? r * r + 6 * n3 + n3 / 3 : 0;
}

// the generalized cone's coefficients a (cone.h) of contact i and its spin entry j
static inline void solver_ell_coef(const solver_problem* p, int i, int j, double a[5]) {
  a[0] = a[1] = p->mu[i];
  a[2] = p->mu[j];
  a[3] = a[4] = p->mu_roll[j];
}

// the CCP residual (000 eq. 15) of lambda with velocity c over the contacts cons[0..n) (every
// contact when cons is NULL), the largest; NaN when one is (ccp.c)
double solver_ccp_residual(const solver_problem* p, const double* lambda, const double* c,
                           const int* cons, int n);

// the same, or once past `above` a lower bound of it above `above` (solver_stop_fn): the
// entries left then are those whose residual is finite whatever it is (ccp.c), so a NaN is never
// skipped. first (NULL: none): the position in cons to start from, set to where the bound was
// passed
double solver_ccp_residual_above(const solver_problem* p, const double* lambda, const double* c,
                                 const int* cons, int n, double above, int* first);

// Bounds under which an entry's residual is finite (no overflow, so no inf - inf or 0 * inf):
// impulses and velocities at most SOLVER_SAFE_MAG, friction coefficients 0 or within
// [SOLVER_SAFE_COEF_LO, SOLVER_SAFE_COEF_HI]. Then every intermediate of cone_residuals(_ccp) and
// cone_ell_residuals stays below ~1e240 (the largest: a coefficient's square or inverse
// square, 1e20, times an impulse or velocity squared, 1e100, times the same again in ell_eq's
// t d), and the boundary multiplier stays in its finite bracket
#define SOLVER_SAFE_MAG 1e50
#define SOLVER_SAFE_COEF_LO 1e-10
#define SOLVER_SAFE_COEF_HI 1e10

// y += G[:, 3i..3i+2] d on block storage (neither dense nor diag_only): column block (j, i) =
// block (i, j)', so y_j += B_ij' d over row i's blocks. solver_gcol_add's block case, inline for
// the sweeps that call it once per contact update (PGS: the call was 10 % of a cube's step)
typedef double solver_v2 __attribute__((vector_size(16), aligned(8)));
static inline void solver_gcol_blocks(const solver_problem* p, int i, const double d[3], double* y) {
  solver_v2 e0 = {d[0], d[0]}, e1 = {d[1], d[1]}, e2 = {d[2], d[2]};
  for (int k = p->rowptr[i]; k < p->rowptr[i + 1]; k++) {
    const double* B = p->blk + 9 * (size_t)k;
    double* yj = y + 3 * p->col[k];
    solver_v2 b0, b3, b6, y01;
    memcpy(&b0, B, 16);
    memcpy(&b3, B + 3, 16);
    memcpy(&b6, B + 6, 16);
    memcpy(&y01, yj, 16);
    y01 += b0 * e0 + b3 * e1 + b6 * e2;
    memcpy(yj, &y01, 16);
    yj[2] += B[2] * d[0] + B[5] * d[1] + B[8] * d[2];
  }
}

static inline int solver_safe_vec(const double x[3]) {
  return fabs(x[0]) <= SOLVER_SAFE_MAG && fabs(x[1]) <= SOLVER_SAFE_MAG &&
         fabs(x[2]) <= SOLVER_SAFE_MAG;
}

static inline int solver_safe_coef(double a) {
  return a == 0 || (a >= SOLVER_SAFE_COEF_LO && a <= SOLVER_SAFE_COEF_HI);
}

// 1 when entry i's residual (NCP or CCP) is finite whatever lambda and c are within the bounds
// above; NaN and infinite values fail them. A bounded pass (solver_stop_fn) may skip such an
// entry once past its bound, never another one, so a NaN is always found
static inline int solver_entry_finite(const solver_problem* p, const double* lambda,
                                      const double* c, int i) {
  int j = p->link ? p->link[i] : -1;
  if (j < -1) return 1;  // a spin entry: zero (its pair's residual is at its contact)
  if (!solver_safe_vec(lambda + 3 * i) || !solver_safe_vec(c + 3 * i)) return 0;
  if (j < 0) return solver_safe_coef(p->mu[i]);
  double a[5];
  solver_ell_coef(p, i, j, a);
  for (int k = 0; k < 5; k++)
    if (!solver_safe_coef(a[k])) return 0;
  return solver_safe_vec(lambda + 3 * j) && solver_safe_vec(c + 3 * j);
}


// a bounded pass (above finite) at entry i, the contact of a condim 4/6 pair whose residual is
// finite (solver_entry_finite): 1 when the pair's complementarity residual (the eps_c of
// solver_entry_residuals(ncp)), or else its dual one (eps_d), passes above, into *d: its
// other projections can be left out
int solver_pair_passes(const solver_problem* p, const double* lambda, const double* c, int i,
                       int ncp, double above, double* d);

// what the bounded passes over one island's contacts carry from one to the next: first, the
// position where the last bound was passed (the contact still settling, most often), where the
// next pass starts, -1 before any; coef_safe, whether every friction coefficient of the island
// is safe (solver_safe_coef: they do not change within a solve), -1 until asked
typedef struct {
  int first;
  int coef_safe;
} solver_stop_hint;
#define SOLVER_STOP_HINT {-1, -1}

// the eps_abs of solver_residuals_on, or once past `above` a lower bound of it above `above`
// (solver_stop_fn's contract; INFINITY: exact). With h (NULL: none), a bounded pass on plain
// contacts first tries the contact where the last bound was found, its complementarity residual
// first, and when it passes and every entry is finite returns that bound at once
double solver_ncp_eps_above(const solver_problem* p, const double* lambda, const double* c,
                            const int* cons, int n, double above, solver_stop_hint* h);

// the residuals of entry i (NCP with ncp, else the CCP's): a contact as cone_residuals(_ccp), a
// contact with a spin entry as its pair (cone_ell_residuals), a spin entry zero (its pair's
// contact measures it); c the problem's velocities (3nc)
void solver_entry_residuals(const solver_problem* p, const double* lambda, const double* c,
                            int i, int ncp, double* a, double* b, double* d);

// condim 4/6 pairs of p (p->link set): each pair's step in tinv[4 j] (j its spin entry), cap
// over a Gershgorin bound of the largest eigenvalue of its block of G + R scaled by the cone's
// coefficients (the five friction rows, and the normal row when normal), and its warm start
// projected onto its generalized cone (cone_ell_project)
void solver_spin_setup(solver* s, const solver_problem* p, double* lambda, double cap,
                       int normal);

// c = (G + R) lambda + g over every contact (R when p->R is set), from scratch
void solver_velocity_all(const solver_problem* p, const double* lambda, double* c);

// the same over the contacts cons[0..n) only (every contact, n = nc, when cons is NULL)
void solver_residuals_on(const solver_problem* p, const double* lambda, const double* c,
                         const int* cons, int n, solver_result* res);

// 1 when the tolerance applies to the NCP residual (solver.criterion: ncp, natural) for every model
int solver_stop_ncp(const solver* s);

// the natural residual of the NCP (solver.h SOLVER_STOP_NATURAL) over the contacts cons[0..n)
// (every contact when cons is NULL), the largest; NaN when one is. A condim 4/6 pair (linked
// entries) is left to eps_abs (its generalized cone has no natural residual here yet)
double solver_natural_on(const solver_problem* p, const double* lambda, const double* c,
                         const int* cons, int n);

// solver_natural_on over every contact of p with each contact's G~_NN given (gnn, nc): the same
// value, without the diagonal's products (ADMM tests it every iteration on the same G~)
double solver_natural_gnn(const solver_problem* p, const double* lambda, const double* c,
                          const double* gnn);

// residuals ep, ed, ec of part of the contacts (finite) into the metric over every contact m (as
// solver_residuals_on's: the largest of each; the metric's eps_abs the largest of the three)
static inline void solver_metric_add(solver_result* m, double ep, double ed, double ec) {
  if (ep > m->eps_p) m->eps_p = ep;
  if (ed > m->eps_d) m->eps_d = ed;
  if (ec > m->eps_c) m->eps_c = ec;
  m->eps_abs = m->eps_p > m->eps_d ? (m->eps_p > m->eps_c ? m->eps_p : m->eps_c)
                                   : (m->eps_d > m->eps_c ? m->eps_d : m->eps_c);
}

// fmax as glibc's (x86-64 s_fmax.S: maxsd, and the other operand when one is a quiet NaN),
// inline: the residuals' maxima called libm once per entry
static inline double solver_max(double x, double y) {
  return x > y ? x : (y != y ? x : y);
}

// NCP residuals over cons[0..n) as solver_residuals_on, with eps_abs raised to the natural
// residual under solver.criterion: natural: the stopping residual of an NCP iteration
void solver_ncp_stop_on(const solver* s, const solver_problem* p, const double* lambda,
                        const double* c, const int* cons, int n, solver_result* res);

// the stopping residual of a family whose model is not the NCP over the contacts cons[0..n)
// (every contact when cons is NULL), given its model's own residual q there at lambda (velocity
// c): q, or under solver.criterion: ncp max(q, NCP residual over those contacts), so that an
// iterate stops the family only when it is its model's answer (and, for ncp, an NCP solution);
// NaN when q or the NCP residual is
double solver_stop_of(const solver* s, const solver_problem* p, const double* lambda,
                      const double* c, const int* cons, int n, double q);

// solver.criterion: relative (solver.h): the island's impulses before a sweep, kept at the work's
// end (work_doubles reserves 3 maxc there); nothing under the other criteria
static inline void solver_rel_keep(const solver* s, const double* lambda, const int* cons, int n) {
  if (s->opt.criterion != SOLVER_STOP_RELATIVE) return;
  double* z = s->work + s->nwork - 3 * (size_t)(s->maxc > 0 ? s->maxc : 1);
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    for (int u = 0; u < 3; u++) z[3 * q + u] = lambda[3 * i + u];
  }
}

// the stopping residual r after a sweep under solver.criterion: relative: ContactBench stops when
// the absolute residual is below th_stop_ OR the relative change below rel_th_stop_ (solvers.hxx),
// so the change ||lambda - kept||_2 / ||kept||_2 over the island (infinite from a zero iterate,
// where ContactBench divides by 0) is scaled by tolerance / rel_tolerance and the smaller of the
// two returned: one number against the tolerance. r itself under the other criteria; NaN stays
static inline double solver_rel_stop(const solver* s, const double* lambda, const int* cons, int n,
                                     double r) {
  if (s->opt.criterion != SOLVER_STOP_RELATIVE || isnan(r)) return r;
  const double* z = s->work + s->nwork - 3 * (size_t)(s->maxc > 0 ? s->maxc : 1);
  double d2 = 0, p2 = 0;
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    for (int u = 0; u < 3; u++) {
      double d = lambda[3 * i + u] - z[3 * q + u];
      d2 += d * d;
      p2 += z[3 * q + u] * z[3 * q + u];
    }
  }
  double rel = p2 > 0 ? sqrt(d2 / p2) : INFINITY;
  if (isnan(rel)) return NAN;
  double scaled = rel * (s->opt.tolerance / s->opt.rel_tolerance);
  return scaled < r ? scaled : r;
}

// Per-contact families (PGS for ncp/ccp/lcp, RaiSim) sweep island by island (solver.h): each
// island iterates until its own contacts meet the tolerance, so a converged island costs nothing
// while another still iterates. Islands share no block, so this is the whole problem's
// Gauss-Seidel restricted to each island, and an island's answer is the one it gets solved alone.
// Without islands (a dense problem, or none computed) every contact forms one island.

// the islands a per-contact family sweeps: p's, or 1 when p has none
static inline int solver_sweep_islands(const solver_problem* p) {
  return p->dense || p->nisland < 1 ? 1 : p->nisland;
}

// the contacts of island k of solver_sweep_islands(p), their count in *n; NULL when the island is
// every contact 0..nc-1
static inline const int* solver_sweep_island(const solver_problem* p, int k, int* n) {
  if (p->dense || p->nisland < 1) {
    *n = p->nc;
    return NULL;
  }
  *n = p->island_ptr[k + 1] - p->island_ptr[k];
  return p->island_con + p->island_ptr[k];
}

// solver.name auto (auto.c): Gauss-Seidel converges linearly (000 Alg. 5), so every `stall`
// sweeps the rate over the last window, and the mean rate since the island's first sweep, each
// project the sweeps still needed to reach the tolerance; the island has stalled when the
// residual has not fallen since its first sweep (from the second window on), or when the mean rate's projection passes the
// iteration cap and the window did not fall (rate >= 1, or NaN) or projects past it too (one
// window alone misjudges a stretch of a solve that then speeds up: Gauss-Seidel's residual rises
// for a few sweeps while contacts settle, and Talos handed islands PGS converges to ADMM):
// the second solver then takes it, so no island ends at the cap while another solver of the
// model converges. ref[0]: the residual a window ago, ref[1] the island's first (the caller sets
// both to it); 0 always when s->stall is 0
static inline int solver_stalled(const solver* s, int it, double r, double ref[2]) {
  if (!s->stall || it % s->stall) return 0;
  double rate = r / ref[0], mean = pow(r / ref[1], 1.0 / it);
  ref[0] = r;
  // no progress since the island's first sweep: judged from the second window on (a warm start
  // from a step the second solver ended often rises for a window while the contacts settle)
  if (!(mean < 1)) return it >= 2 * s->stall;
  double left = log(s->opt.tolerance / r), cap = (double)(s->opt.max_iterations - it);
  int window = !(rate < 1) || (double)s->stall * left / log(rate) > cap;
  return window && left / log(mean) > cap;
}

// island k of a per-contact family done at stopping residual r: kept for solver.name auto
static inline void solver_island_done(const solver* s, int k, double r) {
  if (s->island_res) s->island_res[k] = r;
}

// what the islands' sweeps add up to: iterations the most any island took, residual the largest
// (a NaN island's NaN stays), c exact only when every island left its rows exact
typedef struct {
  int iterations;
  int fresh;
  double worst;
} solver_tally;

static inline solver_tally solver_tally_start(void) {
  solver_tally t = {0, 1, 0};
  return t;
}

// one island done after `it` sweeps at residual r; exact: its rows of c are exact
static inline void solver_tally_add(solver_tally* t, int it, double r, int exact) {
  if (!exact) t->fresh = 0;
  if (it > t->iterations) t->iterations = it;
  if (!isnan(t->worst) && !(r <= t->worst)) t->worst = r;
}

// the solve's result and s->c_fresh from the tally, converged against tol
static inline void solver_tally_finish(const solver_tally* t, solver* s, solver_result* res,
                                       double tol) {
  res->iterations = t->iterations;
  res->residual = t->worst;
  res->converged = t->worst <= tol;
  s->c_fresh = t->fresh;
}

// c = (G + R) lambda + g afresh on the rows of the contacts cons[0..n) (every contact when cons
// is NULL): the blocks of those rows only, so an island's c costs that island's blocks
void solver_crows(const solver_problem* p, const double* lambda, double* c, const int* cons,
                  int n);

// a per-contact family's sweeps (ccp and lcp PGS): one Gauss-Seidel sweep over the contacts
// cons[0..n) (every contact when cons is NULL), lambda and c updated contact by contact, and the
// stopping residual over them at lambda with velocity c; ctx is the family's
typedef void (*solver_sweep_fn)(const void* ctx, const int* cons, int n, double* lambda,
                                double* c);
// The stop may return early with a lower bound of the residual once it passes `above` (the loop
// then only asks whether it did): a value <= above, or NaN, is always the exact residual
// (INFINITY: always exact)
typedef double (*solver_stop_fn)(const void* ctx, const int* cons, int n, const double* lambda,
                                 const double* c, double above);

// island by island (solver_sweep_islands) from c = (G + R) lambda + g exact in s->c: each island
// sweeps until its stopping residual, checked on an exact c, is below the tolerance, its c
// recomputed every `refresh` sweeps so that rounding never accumulates into the answer; fills
// res (solver_tally). Inline: each family's copy calls its own sweep and stop directly
static inline void solver_sweep_run(solver* s, const solver_problem* p, double* lambda,
                                    solver_sweep_fn sweep, solver_stop_fn stop, const void* ctx,
                                    int refresh, solver_result* res) {
  double tol = s->opt.tolerance, *c = s->c;
  int nis = solver_sweep_islands(p);
  solver_tally tally = solver_tally_start();
  for (int k = 0; k < nis; k++) {
    int n;
    const int* cons = solver_sweep_island(p, k, &n);
    double r = stop(ctx, cons, n, lambda, c, INFINITY), ref[2] = {r, r};
    int it = 0, bounded = 0;
    while (r > tol && it < s->opt.max_iterations && !intr_requested()) {
      solver_rel_keep(s, lambda, cons, n);
      sweep(ctx, cons, n, lambda, c);
      it++;
      if (it % refresh == 0) solver_crows(p, lambda, c, cons, n);
      // between sweeps only "above tol?" matters (min(scaled, r) of solver_rel_stop passes tol
      // exactly when min(scaled, any bound of r above tol) does): the stop may bound r from
      // below once past tol, except on the sweeps solver_stalled reads r
      bounded = !(s->stall && it % s->stall == 0);
      double above = bounded ? tol : INFINITY;
      r = solver_rel_stop(s, lambda, cons, n, stop(ctx, cons, n, lambda, c, above));
      if (r <= tol) {  // confirm on an exact c
        solver_crows(p, lambda, c, cons, n);
        r = solver_rel_stop(s, lambda, cons, n, stop(ctx, cons, n, lambda, c, above));
      }
      if (r > tol && solver_stalled(s, it, r, ref)) break;
    }
    // the island's reported residual is exact (the last one may be a bound: cap or signal)
    if (bounded && r > tol)
      r = solver_rel_stop(s, lambda, cons, n, stop(ctx, cons, n, lambda, c, INFINITY));
    // the island's c is exact when no sweep ran or its last test recomputed it
    solver_island_done(s, k, r);
    solver_tally_add(&tally, it, r, it == 0 || r <= tol);
  }
  solver_tally_finish(&tally, s, res, tol);
}


// Every (model, solver) pair csim solves, one line each: X(model, solver, its solve function,
// its family's hooks, the source). solver.c's pair table and the solve functions' prototypes
// are generated from it; a family without private state uses solver_family_plain.
#define SOLVER_PAIRS(X) \
  X(NCP, PGS, solver_pgs, solver_family_plain, "000 Alg. 5: projected Gauss-Seidel") \
  X(CCP, PGS, solver_ccp_pgs, solver_family_plain, "000 Alg. 2 (ccp.c)") \
  X(LCP, PGS, solver_lcp_pgs, solver_family_lcp, "000 Alg. 1: pyramid (lcp.c)") \
  X(LCP, LEMKE, solver_lcp_lemke, solver_family_lemke, "000 Sec. III: Lemke (lcp.c)") \
  X(RAISIM, BISECTION, solver_raisim, solver_family_plain, "000 Alg. 4 (raisim.c)") \
  X(RAISIM_DS, BISECTION, solver_raisim_ds, solver_family_plain, "002 Alg. 1 (raisim.c)") \
  X(CCP, ADMM, solver_ccp_admm, solver_family_admm, "000 Alg. 3 (admm.c)") \
  X(NCP, ADMM, solver_ncp_admm, solver_family_admm, "000 Sec. III, de Saxce (admm.c)") \
  X(NCP, STAGGERED, solver_ncp_staggered, solver_family_staggered, "000 Alg. 6 (staggered.c)") \
  X(NCP, AUTO, solver_auto, solver_family_auto, "PGS, ADMM where PGS stalls (auto.c)") \
  X(CCP, AUTO, solver_auto, solver_family_auto, "PGS, ADMM where PGS stalls (auto.c)") \
  X(LCP, AUTO, solver_auto, solver_family_auto, "PGS, Lemke where PGS stalls (auto.c)") \
  X(RAISIM, AUTO, solver_auto, solver_family_auto, "bisection (auto.c)") \
  X(RAISIM_DS, AUTO, solver_auto, solver_family_auto, "bisection (auto.c)") \
  X(CCP, NEWTON, solver_ccp_newton, solver_family_newton, "MuJoCo's primal Newton (newton.c)") \
  X(NCP, NEWTON, solver_ncp_newton, solver_family_ncp_newton, \
    "semismooth Newton on Alart-Curnier's function (ncp_newton.c)")

#define SOLVER_PAIR_PROTO(model, kind, fn, fam, src) \
  void fn(solver* s, const solver_problem* p, double* lambda, solver_result* res);
SOLVER_PAIRS(SOLVER_PAIR_PROTO)
#undef SOLVER_PAIR_PROTO

// LCP pyramid facets accepted (contact.facets)
#define SOLVER_MAX_FACETS 256

// a dense family's island loop (solver.c: each island's G exported densely or in the family's
// own form and solved as a problem of its own) over the islands k with pick[k] set only (every
// island when pick is NULL); the others' lambda is left as it is
void solver_islands(solver* s, const solver_problem* p, const unsigned char* pick,
                    double* lambda, solver_result* res);

// x <- (L L')^-1 x for a column-major lower Cholesky factor L (n x n) (admm.c)
void solver_chol_solve(int n, const double* L, double* x);

#endif  // CSIM_SOLVER_IMPL_H
