// auto.c — solver.name auto: per island and per step, the model's cheap solver first, its
// factoring solver where the cheap one stalls (issue 26).
//
// Per-contact Gauss-Seidel (PGS, 000 Alg. 5; RaiSim's bisection) is the cheapest solver on an
// island of one body or of loosely coupled contacts: a sweep costs the island's blocks and a few
// sweeps converge from a warm start. Where contacts couple through shared bodies, or mass ratios
// are large (a stack, a chain, a pile, a grasp), its linear rate falls towards 1 (000 Sec. IV-B,
// Fig. 12: a 1000 kg cube on a 1 g cube is "not solvable via per-contact algorithms") and it ends
// at the iteration cap; ADMM (000 Alg. 3; de Saxce for the NCP) factors the island and converges
// in tens of iterations whatever the conditioning. So auto sweeps every island with the first
// solver, which watches its own rate (solver_impl.h solver_stalled: every AUTO_WINDOW sweeps it
// projects the sweeps still needed; an island that would pass the cap, or stopped falling, is
// stalled) and stops a stalled island early; the second solver then takes those islands only,
// from the warm start the first was given. The pair is the model's own (solver_model_kind:
// its first per-contact and first factoring pair in SOLVER_PAIRS order): ncp and ccp PGS then
// ADMM, lcp PGS then Lemke, raisim and raisim_ds bisection alone (no second solver: auto is then
// bisection). The choice depends on the problem only, so reruns choose alike (deterministic), and
// it is recorded per step (solver_result islands, switched: /solver/switched).
// An island too large for the second solver's dense work (solver.h island_rows) keeps the first
// solver's iterate, reported not converged.
// Under ncp a third solver takes what both leave above the tolerance: the semismooth Newton
// method on Alart and Curnier's function (ncp_newton.c), island by island from the answer the
// two left, on islands of plain contacts up to AUTO_NEWTON_ROWS rows (its dense LU is O(n^3) an
// iteration); each island keeps whichever answer has the smaller stopping residual. ADMM's
// fixed point and its Newton finish (polish.c) can both stall where the NCP has a solution: on
// panda_push_cube 2 steps ended at the cap with eps_abs 2.3e-6 against the tolerance 1e-6, where
// this Newton method reaches 1.2e-8 from the same start.
// Under ccp with MuJoCo softness on every row (solver_options soft, set by io/compile.c under the
// conditions solver.name newton is held to: solver_auto_soft), every island goes to newton
// (newton.c: MuJoCo's primal Newton method, a few iterations where PGS takes hundreds, e.g. 4.9
// against 306 per step on humanoid100): the same answer as solver.name newton, bit for bit. A
// solve with an island newton does not take (an infinite residual) goes the usual way instead,
// from the same warm start; with soft the problems are diag_only, so that is ADMM's (under
// contact.cone pyramidal the ccp sweeps alone: ADMM has no pyramid).
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/interrupt.h"
#include "core/solvers/admm_impl.h"
#include "core/solvers/solver_impl.h"

// sweeps between two rate estimates of the first solver: long enough that one estimate is not
// a transient of the warm start, short against a cap of hundreds
#define AUTO_WINDOW 10
// the third solver's island work (rows, 3 per contact): as ADMM's Newton finish (polish.c)
#define AUTO_NEWTON_ROWS 192
// and its iterations on an island of n rows: a budget of AUTO_NEWTON_FLOPS in its LU factors
// (n^3 / 3 each), at least AUTO_NEWTON_IT_MIN and at most the run's cap. From a stalled answer
// its trust region can take hundreds of iterations where the NCP is degenerate (cube_drop: 4
// coplanar contacts landing, 1.46e-6 -> 1e-8 in about 500; 30 left 1.43e-6), which is cheap on
// a small island and not on humanoid100's piles of 40-60 rows
#define AUTO_NEWTON_FLOPS 5e6
#define AUTO_NEWTON_IT_MIN 30

typedef struct {
  solver* first;          // per-contact: PGS or bisection
  solver* second;         // factoring: ADMM or Lemke, NULL when the model has none
  solver* newton;         // ccp on factored problems: MuJoCo's primal Newton, else NULL
  solver* third;          // ncp: the semismooth Newton method (ncp_newton.c), else NULL
  double* island_stop;    // (maxc) each island's stopping residual before the third solver
  int soft;               // newton takes the islands (solver_auto_soft)
  int coupled_natural;    // a coupled step's islands to the natural residual (coupled_criterion)
  double* island_res;     // (maxc) the first solver's stopping residual per island
  unsigned char* pick;    // (2 maxc) islands the second (third) solver takes, then scratch
  double* lambda0;        // (3 maxc) the warm start the first solver was given
  double* lambda1;        // (3 maxc) the first solver's iterate where it stopped
  double* lambda2;        // (3 maxc) the second solver's answer, kept while the first goes on
} auto_state;

// the options of one of the two solvers (dense 0: the first)
static solver_options sub_options(const solver_options* o, int dense) {
  solver_options so = *o;
  so.kind = solver_model_kind(o->model, dense);
  return so;
}

// the third solver's options (ncp only, its island work bounded: AUTO_NEWTON_ROWS), else kind
// NONE
static solver_options third_options(const solver_options* o) {
  solver_options so = *o;
  so.kind = o->model == CSIM_MODEL_NCP ? CSIM_SOLVER_NEWTON : CSIM_SOLVER_NONE;
  so.island_rows = AUTO_NEWTON_ROWS;
  return so;
}

// newton's options when auto can hand it islands (ccp on factored problems), else kind NONE
static solver_options newton_options(const solver_options* o) {
  solver_options so = *o;
  so.kind = o->model == CSIM_MODEL_CCP && o->nv > 0 && o->max_chain > 0 ? CSIM_SOLVER_NEWTON
                                                                           : CSIM_SOLVER_NONE;
  return so;
}

static void auto_destroy(void* priv) {
  auto_state* a = priv;
  if (!a) return;
  solver_free(a->first);
  solver_free(a->second);
  solver_free(a->newton);
  solver_free(a->third);
  free(a->island_stop);
  free(a->island_res);
  free(a->pick);
  free(a->lambda0);
  free(a->lambda1);
  free(a->lambda2);
  free(a);
}

static void* auto_create(const solver_options* o, int maxc) {
  auto_state* a = calloc(1, sizeof(*a));
  if (!a) return NULL;
  size_t mc = (size_t)(maxc > 0 ? maxc : 1);
  solver_options f = sub_options(o, 0), d = sub_options(o, 1);
  csim_error err;
  int bad = solver_create(&f, maxc, &a->first, &err) != CSIM_OK;
  if (!bad && d.kind != CSIM_SOLVER_NONE) bad = solver_create(&d, maxc, &a->second, &err) != CSIM_OK;
  solver_options nw = newton_options(o);
  if (!bad && nw.kind == CSIM_SOLVER_NEWTON) bad = solver_create(&nw, maxc, &a->newton, &err) != CSIM_OK;
  solver_options th = third_options(o);
  if (!bad && th.kind == CSIM_SOLVER_NEWTON && a->second)
    bad = solver_create(&th, maxc, &a->third, &err) != CSIM_OK;
  a->island_stop = calloc(mc, sizeof(double));
  a->island_res = calloc(mc, sizeof(double));
  a->pick = calloc(2 * mc, 1);  // the second half: third_pass's one-island mask
  a->lambda0 = calloc(3 * mc, sizeof(double));
  a->lambda1 = calloc(3 * mc, sizeof(double));
  a->lambda2 = calloc(3 * mc, sizeof(double));
  if (bad || !a->island_stop || !a->island_res || !a->pick || !a->lambda0 || !a->lambda1 || !a->lambda2) {
    auto_destroy(a);
    return NULL;
  }
  a->first->island_res = a->island_res;
  a->first->stall = a->second ? AUTO_WINDOW : 0;  // no second solver: the first runs to the cap
  a->first->warm_sweep = 1;  // resting islands: one sweep a step, not a full solve every few
  return a;
}

static size_t auto_bytes(const solver_options* o, int maxc) {
  size_t mc = (size_t)(maxc > 0 ? maxc : 1);
  solver_options f = sub_options(o, 0), d = sub_options(o, 1);
  size_t b = sizeof(auto_state) + mc * (11 * sizeof(double) + 2), bf = solver_bytes(&f, maxc);
  size_t bd = d.kind != CSIM_SOLVER_NONE ? solver_bytes(&d, maxc) : 0;
  solver_options nw = newton_options(o);
  size_t bn = nw.kind == CSIM_SOLVER_NEWTON ? solver_bytes(&nw, maxc) : 0;
  solver_options th = third_options(o);
  size_t bt = th.kind == CSIM_SOLVER_NEWTON && bd ? solver_bytes(&th, maxc) : 0;
  return bf == SIZE_MAX || bd == SIZE_MAX || bn == SIZE_MAX || bt == SIZE_MAX
             ? SIZE_MAX
             : b + bf + bd + bn + bt;
}

static void auto_reset(void* priv) {
  auto_state* a = priv;
  solver_reset(a->first);
  if (a->second) solver_reset(a->second);
  if (a->newton) solver_reset(a->newton);
  if (a->third) solver_reset(a->third);
}

const solver_family solver_family_auto = {
    .bytes = auto_bytes, .create = auto_create, .destroy = auto_destroy, .reset = auto_reset};

// the islands the first solver left above the tolerance, marked in a->pick and given back
// their warm start (measured on panda_push_cube: from PGS's stalled iterate ADMM ran 2 steps to
// the cap, from the warm start 1); their count
static int stalled_islands(const solver* s, auto_state* a, const solver_problem* p, int nis,
                           double* lambda) {
  int n = 0;
  for (int k = 0; k < nis; k++) {
    a->pick[k] = !(a->island_res[k] <= s->opt.tolerance);
    n += a->pick[k];
    if (!a->pick[k]) continue;
    int m;
    const int* cons = solver_sweep_island(p, k, &m);
    for (int q = 0; q < m; q++)
      for (int r = 0, i = cons ? cons[q] : q; r < 3; r++) lambda[3 * i + r] = a->lambda0[3 * i + r];
  }
  return n;
}

// the second solver on the picked islands, from their warm start; res combined: converged
// when every island is, the residual the largest island's (a picked island the second solver's
// work could not hold keeps the first's iterate and residual)
static void second_pass(solver* s, auto_state* a, const solver_problem* p, int nis,
                        double* lambda, solver_result* res) {
  solver* d = a->second;
  int n3 = 3 * p->nc;
  d->dual_in = s->dual_in;
  for (int k = 0; k < n3; k++) d->dual_out[k] = NAN;
  d->c_fresh = 0;
  solver_result rd;
  solver_islands(d, p, a->pick, lambda, &rd);
  d->dual_in = NULL;
  memcpy(s->dual_out, d->dual_out, sizeof(double) * (size_t)n3);
  double worst = rd.unsolved_island ? 0 : rd.residual;
  for (int k = 0; k < nis; k++)
    if (!a->pick[k] || rd.unsolved_island) {
      double r = a->island_res[k];
      if (isnan(r) || (!isnan(worst) && r > worst)) worst = r;
    }
  res->residual = worst;
  res->converged = worst <= s->opt.tolerance && !rd.unsolved_island;
  if (rd.iterations > res->iterations) res->iterations = rd.iterations;
  res->dof_islands = rd.dof_islands;
  res->band_islands = rd.band_islands;
  // every island the second solver's, its c exact (solver_islands): no product in solver_solve
  s->c_fresh = d->c_fresh;
  if (d->c_fresh) memcpy(s->c, d->c, sizeof(double) * (size_t)n3);
  s->m_fresh = d->c_fresh && d->m_fresh;  // its metric on that c (solver_islands)
  s->metric = d->metric;
}

// the second solver left an island above the tolerance (ADMM from a stalled Gauss-Seidel
// iterate can end at its cap where Gauss-Seidel converges given more sweeps: Go1's walk, 148 of
// 212 handed islands): the first solver goes on from where it stopped, without the stall test,
// and the answer is whichever of the two has the smaller residual (so auto is never worse than
// either solver's own attempt; deterministic: the same choices on a rerun)
static void first_again(solver* s, auto_state* a, const solver_problem* p, double* lambda,
                        solver_result* res) {
  solver* f = a->first;
  size_t n3 = 3 * (size_t)p->nc;
  memcpy(a->lambda2, lambda, sizeof(double) * n3);
  memcpy(lambda, a->lambda1, sizeof(double) * n3);
  solver_result r1;
  memset(&r1, 0, sizeof(r1));
  int stall = f->stall;
  f->stall = 0;
  f->c_fresh = 0;
  f->fn(f, p, lambda, &r1);
  f->stall = stall;
  if (r1.residual < res->residual) {
    res->residual = r1.residual;
    res->converged = r1.converged;
    if (r1.iterations > res->iterations) res->iterations = r1.iterations;
    s->c_fresh = f->c_fresh;
    s->m_fresh = 0;
    if (f->c_fresh) memcpy(s->c, f->c, sizeof(double) * n3);
    for (size_t k = 0; k < n3; k++) s->dual_out[k] = NAN;  // Gauss-Seidel's: no dual
  } else {
    memcpy(lambda, a->lambda2, sizeof(double) * n3);
  }
}

// 1 when island cons[0..n) is the third solver's: plain contacts (no condim 4/6 entry, no dry
// friction box: ncp_newton.c refuses them) within its rows
static int third_takes(const solver_problem* p, const int* cons, int n) {
  if (3 * n > AUTO_NEWTON_ROWS) return 0;
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    if ((p->link && p->link[i] != -1) || (p->box && p->box[i])) return 0;
  }
  return 1;
}

// the run's stopping residual over island cons[0..n) at lambda (velocity c)
static double island_stop(const solver* s, const solver_problem* p, const int* cons, int n,
                          const double* lambda, const double* c) {
  solver_result r;
  memset(&r, 0, sizeof(r));
  solver_ncp_stop_on(s, p, lambda, c, cons, n, &r);
  return r.eps_abs;
}

// the third solver on the islands the first two left above the tolerance (that it takes), from
// their answer; each keeps whichever answer has the smaller stopping residual, and res gets the
// largest over every island. a->lambda1 (the first solver's iterate, used) holds c
static void third_pass(solver* s, auto_state* a, const solver_problem* p, int nis,
                       double* lambda, solver_result* res) {
  size_t n3 = 3 * (size_t)p->nc;
  double* c = a->lambda1;
  solver_velocity_all(p, lambda, c);
  int any = 0;
  for (int k = 0; k < nis; k++) {
    int m;
    const int* cons = solver_sweep_island(p, k, &m);
    a->island_stop[k] = island_stop(s, p, cons, m, lambda, c);
    a->pick[k] = !(a->island_stop[k] <= s->opt.tolerance) && third_takes(p, cons, m);
    any |= a->pick[k];
  }
  if (!any) return;
  memcpy(a->lambda2, lambda, sizeof(double) * n3);
  solver* t = a->third;
  int cap = t->opt.max_iterations;
  unsigned char* one = a->pick + nis;  // one island at a time, each with its iteration budget
  for (int k = 0; k < nis; k++) {
    if (!a->pick[k]) continue;
    int m;
    solver_sweep_island(p, k, &m);
    double rows = 3.0 * m, it = AUTO_NEWTON_FLOPS / (rows * rows * rows / 3);
    t->opt.max_iterations = it < AUTO_NEWTON_IT_MIN ? AUTO_NEWTON_IT_MIN : it > cap ? cap : (int)it;
    memset(one, 0, (size_t)nis);
    one[k] = 1;
    solver_result r3;
    t->c_fresh = 0;
    solver_islands(t, p, one, lambda, &r3);
  }
  t->opt.max_iterations = cap;
  solver_velocity_all(p, lambda, c);
  double worst = 0;
  for (int k = 0; k < nis; k++) {
    int m;
    const int* cons = solver_sweep_island(p, k, &m);
    double r = a->island_stop[k];
    if (a->pick[k]) {
      double r3k = island_stop(s, p, cons, m, lambda, c);
      int keep = r3k < r;
      if (keep) r = r3k;
      res->rescued += keep;
      for (int q = 0; q < m; q++)
        for (int u = 0, i = cons ? cons[q] : q; u < 3; u++) {
          if (keep) s->dual_out[3 * i + u] = NAN;  // the Newton method's: no dual
          else lambda[3 * i + u] = a->lambda2[3 * i + u];
        }
    }
    if (!isnan(worst) && (isnan(r) || r > worst)) worst = r;  // NaN sticks
  }
  res->residual = worst;
  res->converged = worst <= s->opt.tolerance;
  s->c_fresh = s->m_fresh = 0;  // solver_solve recomputes c from the answer kept
}

int solver_auto_splits(const solver_options* o) {
  return o->kind == CSIM_SOLVER_AUTO && !o->soft && solver_model_kind(o->model, 1) != CSIM_SOLVER_NONE;
}

void solver_auto_soft(solver* s, int on) {
  if (!s || s->opt.kind != CSIM_SOLVER_AUTO) return;
  auto_state* a = s->priv;
  a->soft = on && a->newton;
  s->opt.soft = a->soft;
}

// soft (solver_auto_soft): every island to newton; 1 when it took them all (s->c and res as a
// family leaves them), 0 with lambda back at the warm start when an island was not its to take
static int newton_pass(solver* s, auto_state* a, const solver_problem* p, double* lambda,
                       solver_result* res) {
  solver* nw = a->newton;
  size_t n3 = 3 * (size_t)p->nc;
  memcpy(a->lambda0, lambda, sizeof(double) * n3);
  nw->c_fresh = 0;
  nw->fn(nw, p, lambda, res);
  if (isinf(res->residual)) {
    memcpy(lambda, a->lambda0, sizeof(double) * n3);
    return 0;
  }
  res->islands = solver_sweep_islands(p);
  res->switched = 0;
  if (nw->c_fresh) memcpy(s->c, nw->c, sizeof(double) * n3);
  s->c_fresh = nw->c_fresh;
  return 1;
}

// the criterion of a coupled step's islands: natural under solver.criterion auto with the ncp
// model (solver_auto_coupled_natural), else the run's. eps_abs's complementarity term lets a
// contact push while it separates at tolerance / lambda_N, 4 mm/s for a 0.1 kg link at 1e-6: a
// chain lying flat then rocks within the tolerance, and ADMM re-solves the lifted links every
// few steps (chain_40: 0, 17, 3 iterations in turn, 4.3 per step, the dual of the first step
// not kept); held to the natural residual too (c_N <= tolerance G~_NN) it stays at rest, 0.6
// iterations per step, eps_abs 1.4e-7 against 5.2e-7 (docs/models_and_solvers.md). PGS islands
// keep the run's criterion: on an ill-conditioned robot (Talos's feet) the natural residual's
// velocity bound costs PGS sweeps (29.7 -> 85.9 per step)
static solver_criterion coupled_criterion(const solver* s) {
  const auto_state* a = s->priv;
  return a->coupled_natural ? SOLVER_STOP_NATURAL : s->opt.criterion;
}

void solver_auto_coupled_natural(solver* s, int on) {
  if (!s || s->opt.kind != CSIM_SOLVER_AUTO) return;
  auto_state* a = s->priv;
  a->coupled_natural = on;
}

void solver_auto(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  auto_state* a = s->priv;
  solver* f = a->first;
  int nis = solver_sweep_islands(p);
  if (a->soft && newton_pass(s, a, p, lambda, res)) return;
  // the pyramid's edges (contact.cone pyramidal): the ccp sweeps hold them, ADMM does not
  solver* second = p->rpy ? NULL : a->second;
  if (p->diag_only && second) {  // a coupled step (contact.h auto_split): the second solver
    memset(res, 0, sizeof(*res));
    memset(a->pick, 1, (size_t)nis);
    solver_criterion crit = second->opt.criterion;
    second->opt.criterion = coupled_criterion(s);
    admm_state* as = second->opt.kind == CSIM_SOLVER_ADMM ? solver_admm(second) : NULL;
    if (as) as->natural_soft = a->coupled_natural;
    second_pass(s, a, p, nis, lambda, res);
    if (as) as->natural_soft = 0;
    second->opt.criterion = crit;
    res->islands = res->switched = nis;
    if (!res->converged && a->third && !intr_requested()) third_pass(s, a, p, nis, lambda, res);
    return;
  }
  f->c_fresh = f->m_fresh = 0;
  if (second) memcpy(a->lambda0, lambda, sizeof(double) * 3 * (size_t)p->nc);
  f->fn(f, p, lambda, res);
  res->islands = nis;
  // the first solver's iterate, kept for first_again only when an island is left to hand over
  if (second && !res->converged) memcpy(a->lambda1, lambda, sizeof(double) * 3 * (size_t)p->nc);
  res->switched = second ? stalled_islands(s, a, p, nis, lambda) : 0;
  if (res->switched) {
    second_pass(s, a, p, nis, lambda, res);
    if (!res->converged && !intr_requested()) first_again(s, a, p, lambda, res);
    if (!res->converged && a->third && !intr_requested()) third_pass(s, a, p, nis, lambda, res);
    return;
  }
  if (f->c_fresh) memcpy(s->c, f->c, sizeof(double) * 3 * (size_t)p->nc);
  s->c_fresh = f->c_fresh;
  s->m_fresh = f->m_fresh;  // its metric on that c (pgs.c)
  s->metric = f->metric;
}
