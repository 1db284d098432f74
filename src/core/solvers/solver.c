// solver.c — solver dispatch, workspace and the common residual (see solver.h).
#include "core/solvers/solver.h"

#include <math.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/solvers/cone.h"
#include "core/solvers/solver_impl.h"


// the per-contact families keep nothing of their own (no hook)
const solver_family solver_family_plain = {0};

// the pairs of DESIGN.md's table that this build implements (solver_impl.h SOLVER_PAIRS), one
// row each: the solve and the family's hooks
static const struct {
  csim_model model;
  csim_solver kind;
  solver_fn fn;
  const solver_family* fam;
} kPairs[] = {
#define SOLVER_PAIR_ROW(model, kind, fn, fam, src) \
  {CSIM_MODEL_##model, CSIM_SOLVER_##kind, fn, &fam},
    SOLVER_PAIRS(SOLVER_PAIR_ROW)
#undef SOLVER_PAIR_ROW
};
#define NPAIRS ((int)(sizeof(kPairs) / sizeof(kPairs[0])))

// the row of a pair, -1 when the pair is not in the table
static int pair_row(csim_model model, csim_solver kind) {
  for (int k = 0; k < NPAIRS; k++)
    if (kPairs[k].model == model && kPairs[k].kind == kind) return k;
  return -1;
}

// the family of opt's pair (the plain one when the pair is not in the table)
static const solver_family* family_of(const solver_options* opt) {
  int k = pair_row(opt->model, opt->kind);
  return k >= 0 ? kPairs[k].fam : &solver_family_plain;
}

// the scratch doubles of a solver for opt and maxc contacts (the family's own need included),
// its family in *fam
static csim_status work_doubles(const solver_options* opt, int maxc, size_t* nwork,
                                const solver_family** fam, csim_error* err) {
  *fam = family_of(opt);
  *nwork = SOLVER_WORK_OF(opt, (size_t)(maxc > 0 ? maxc : 1));
  csim_status st = (*fam)->work ? (*fam)->work(opt, maxc, nwork, err) : CSIM_OK;
  // solver.criterion: relative keeps an island's impulses before a sweep at the work's end
  if (opt->criterion == SOLVER_STOP_RELATIVE) *nwork += 3 * (size_t)(maxc > 0 ? maxc : 1);
  return st;
}

csim_solver solver_model_kind(csim_model model, int dense) {
  for (int k = 0; k < NPAIRS; k++) {
    solver_options o = {.model = kPairs[k].model, .kind = kPairs[k].kind};
    if (kPairs[k].model == model && o.kind != CSIM_SOLVER_AUTO &&
        solver_is_dense_family(&o) == dense)
      return o.kind;
  }
  return CSIM_SOLVER_NONE;
}

// solver.name auto sizes its island work as its dense solver does (auto.c)
static solver_options island_opt(const solver_options* opt) {
  solver_options o = *opt;
  if (o.kind == CSIM_SOLVER_AUTO) o.kind = solver_model_kind(o.model, 1);
  return o;
}

int solver_pair_supported(csim_model model, csim_solver kind, char* msg, int n) {
  if ((int)model < 0 || model >= CSIM_NRIGID_MODELS || (int)kind < 0 || kind >= CSIM_NRIGID_SOLVERS)
    return 0;
  if (pair_row(model, kind) >= 0) return 1;
  if (msg && n > 0) {
    int k = snprintf(msg, (size_t)n,
                     "model '%s' with solver '%s' is not available; valid model/solver pairs: ",
                     csim_model_names[model], csim_solver_names[kind]);
    for (int p = 0; p < NPAIRS && k < n; p++)
      k += snprintf(msg + k, (size_t)(n - k), "%s%s/%s", p ? ", " : "",
                    csim_model_names[kPairs[p].model], csim_solver_names[kPairs[p].kind]);
  }
  return 0;
}

void solver_spin_setup(solver* s, const solver_problem* p, double* lambda, double cap,
                       int normal) {
  for (int i = 0; i < p->nc; i++) {
    int j = p->link[i];
    if (j < 0) continue;
    double a[5], sc[6];
    solver_ell_coef(p, i, j, a);
    int row[6] = {3 * i, 3 * i + 1, 3 * j, 3 * j + 1, 3 * j + 2, 3 * i + 2};
    for (int k = 0; k < 5; k++) sc[k] = a[k];
    sc[5] = 1;
    int nr = normal ? 6 : 5;
    double big = 0;  // Gershgorin: the largest absolute row sum bounds lambda_max
    for (int k = 0; k < nr; k++) {
      double sum = 0;
      for (int l = 0; l < nr; l++) {
        double g = solver_gentry(p, row[k], row[l]) + (k == l && p->R ? p->R[row[k]] : 0);
        sum += fabs(sc[k] * sc[l] * g);
      }
      if (sum > big) big = sum;
    }
    s->tinv[4 * j] = big > 0 ? cap / big : 0;
    cone_ell_project(lambda + 3 * i, lambda + 3 * j, a);
  }
}

int solver_spin_supported(csim_model model, csim_solver kind, char* msg, int n) {
  if ((model == CSIM_MODEL_NCP || model == CSIM_MODEL_CCP) &&
      (kind == CSIM_SOLVER_PGS || kind == CSIM_SOLVER_ADMM || kind == CSIM_SOLVER_AUTO))
    return 1;
  if (model == CSIM_MODEL_CCP && kind == CSIM_SOLVER_NEWTON) return 1;  // soft ccp (newton.c)
  if (msg && n > 0)
    snprintf(msg, (size_t)n, "model '%s' with solver '%s' has no generalized (elliptic) friction "
             "cone: condim 4 and 6 contacts are solved by pgs, admm and auto under ncp and ccp "
             "and by newton under ccp only",
             (int)model >= 0 && model < CSIM_NMODELS ? csim_model_names[model] : "?",
             (int)kind >= 0 && kind < CSIM_NSOLVERS ? csim_solver_names[kind] : "?");
  return 0;
}

int solver_relative_supported(const solver_options* o, char* msg, int n) {
  if (o->kind == CSIM_SOLVER_PGS || o->kind == CSIM_SOLVER_BISECTION) {
    if (o->rel_tolerance > 0) return 1;
    snprintf(msg, (size_t)n, "criterion 'relative' needs a relative tolerance > 0");
    return 0;
  }
  // the dense families iterate on the whole island at once with their own residuals (ADMM's
  // primal/dual, Lemke's pivots), auto hands islands between two of them: not modelled here
  snprintf(msg, (size_t)n,
           "criterion 'relative' (ContactBench's rule) is for the per-contact solvers pgs and "
           "bisection; solver '%s' takes ncp or model", csim_solver_names[o->kind]);
  return 0;
}

int solver_comp_scale_supported(const solver_options* o, char* msg, int n) {
  int pc = o->kind == CSIM_SOLVER_PGS || o->kind == CSIM_SOLVER_BISECTION;
  if (pc && o->model != CSIM_MODEL_LCP) return 1;
  snprintf(msg, (size_t)n,
           "tolerance_units 'contactbench' (the authors' code's units) is for the per-contact "
           "solvers pgs and bisection under ncp, ccp, raisim and raisim_ds; model '%s' with solver "
           "'%s' takes impulse or force",
           (int)o->model >= 0 && o->model < CSIM_NMODELS ? csim_model_names[o->model] : "?",
           (int)o->kind >= 0 && o->kind < CSIM_NSOLVERS ? csim_solver_names[o->kind] : "?");
  return 0;
}

csim_status solver_create(const solver_options* opt, int max_contacts, solver** out,
                          csim_error* err) {
  *out = NULL;
  char msg[512];
  if (!solver_pair_supported(opt->model, opt->kind, msg, sizeof(msg)))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "solver.name", "%s", msg);
  if (!(opt->tolerance > 0) || opt->max_iterations < 1 || !(opt->over_relaxation > 0) ||
      !(opt->over_relaxation < 2))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "solver",
                   "expected tolerance > 0, max_iterations >= 1, 0 < over_relaxation < 2");
  if (opt->criterion == SOLVER_STOP_RELATIVE && !solver_relative_supported(opt, msg, sizeof(msg)))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "solver.criterion", "%s", msg);
  if (max_contacts < 0) max_contacts = 0;
  solver* s = calloc(1, sizeof(*s));
  if (!s) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  s->opt = *opt;
  s->maxc = max_contacts;
  size_t n3 = 3 * (size_t)(max_contacts > 0 ? max_contacts : 1);
  s->fn = kPairs[pair_row(opt->model, opt->kind)].fn;
  csim_status st = work_doubles(opt, max_contacts, &s->nwork, &s->fam, err);
  if (st != CSIM_OK) {
    solver_free(s);
    return st;
  }
  s->c = calloc(n3, sizeof(double));
  s->tinv = calloc(n3 / 3 * 4, sizeof(double));
  s->work = calloc(s->nwork, sizeof(double));
  s->dual_out = calloc(n3, sizeof(double));
  s->nisl = solver_island_work(opt, max_contacts);
  s->rows = solver_work_rows(opt, n3 / 3);
  s->isl = s->nisl ? calloc(s->nisl, sizeof(double)) : NULL;
  s->map = calloc(n3 / 3, sizeof(int));
  s->box = calloc(n3 / 3, 1);
  s->link = calloc(n3 / 3, sizeof(int));
  s->mu_roll = calloc(n3 / 3, sizeof(double));
  if (s->fam->create) s->priv = s->fam->create(opt, max_contacts);
  if (!s->c || !s->tinv || !s->work || !s->dual_out || (s->nisl && !s->isl) || !s->map || !s->box ||
      !s->link || !s->mu_roll || (s->fam->create && !s->priv)) {
    solver_free(s);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  }
  *out = s;
  return CSIM_OK;
}

size_t solver_bytes(const solver_options* opt, int max_contacts) {
  size_t mc = (size_t)(max_contacts > 0 ? max_contacts : 1), n3 = 3 * mc, nwork;
  const solver_family* fam;
  if (work_doubles(opt, (int)mc, &nwork, &fam, NULL) != CSIM_OK)
    return SIZE_MAX;  // past a family's own limit (Lemke's tableau)
  // the callocs of solver_create: c, tinv, work, dual_out, isl, map, box, link, mu_roll, the
  // family's state
  return sizeof(solver) + (n3 + 4 * mc + nwork + n3 + solver_island_work(opt, (int)mc) + mc) *
         sizeof(double) + 2 * mc * sizeof(int) + mc + (fam->bytes ? fam->bytes(opt, (int)mc) : 0);
}

int solver_island_rows(const solver_options* opt, int max_contacts) {
  solver_options o = island_opt(opt);
  return (int)solver_work_rows(&o, (size_t)(max_contacts > 0 ? max_contacts : 1));
}

size_t solver_island_bytes(const solver_options* opt_in, int rows) {
  solver_options o = island_opt(opt_in);
  const solver_options* opt = &o;
  if (!solver_is_dense_family(opt) || rows <= 0) return 0;
  size_t r = (size_t)rows, d = 3 * r * r;  // the work's two matrices and the island's G
  const solver_family* fam = family_of(opt);
  if (fam->island_doubles) d += fam->island_doubles(opt, r);  // Lemke's tableau (lcp.c)
  return d * sizeof(double);
}

void solver_free(solver* s) {
  if (!s) return;
  free(s->c);
  free(s->tinv);
  free(s->work);
  free(s->dual_out);
  free(s->isl);
  free(s->map);
  free(s->box);
  free(s->link);
  free(s->mu_roll);
  if (s->fam && s->fam->destroy) s->fam->destroy(s->priv);
  free(s);
}

void solver_reset(solver* s) {
  size_t n3 = 3 * (size_t)(s->maxc > 0 ? s->maxc : 1);
  s->dual_in = NULL;
  s->c_fresh = s->m_fresh = 0;
  memset(s->c, 0, sizeof(double) * n3);
  memset(s->dual_out, 0, sizeof(double) * n3);
  if (s->fam->reset) s->fam->reset(s->priv);
}

// out (3) += row i of the block-sparse G times x: the blocks of row i summed in storage order in
// three registers, then added (the one order every product with the blocks uses)
static inline void block_row_add(const solver_problem* p, int i, const double* x, double out[3]) {
  double a0 = 0, a1 = 0, a2 = 0;
  for (int k = p->rowptr[i]; k < p->rowptr[i + 1]; k++) {
    const double* B = p->blk + 9 * (size_t)k;
    const double* l = x + 3 * p->col[k];
    a0 += B[0] * l[0] + B[1] * l[1] + B[2] * l[2];
    a1 += B[3] * l[0] + B[4] * l[1] + B[5] * l[2];
    a2 += B[6] * l[0] + B[7] * l[1] + B[8] * l[2];
  }
  out[0] += a0;
  out[1] += a1;
  out[2] += a2;
}

void solver_residuals_of(const solver_problem* p, const double* lambda, const double* c,
                         solver_result* res) {
  solver_residuals_on(p, lambda, c, NULL, p->nc, res);
}

// res's eps_* from the maxima over the contacts; sum: the sum of every contact's three
// residuals, NaN only when one of them is (they are >= 0): eps_abs is then NaN (a branch-free
// NaN test; the maxima skip NaNs)
static void residuals_set(double ep, double ed, double ec, double sum, solver_result* res) {
  res->eps_p = ep;
  res->eps_d = ed;
  res->eps_c = ec;
  res->eps_abs = isnan(sum) ? NAN : ep > ed ? (ep > ec ? ep : ec) : (ed > ec ? ed : ec);
}

void solver_entry_residuals(const solver_problem* p, const double* lambda, const double* c,
                            int i, int ncp, double* a, double* b, double* d) {
  int j = p->link ? p->link[i] : -1;
  if (j >= 0) {
    double co[5];
    solver_ell_coef(p, i, j, co);
    cone_ell_residuals(lambda + 3 * i, lambda + 3 * j, c + 3 * i, c + 3 * j, co, ncp, a, b, d);
  } else if (j < -1) {
    *a = *b = *d = 0;
  } else if (ncp) {
    cone_residuals(lambda + 3 * i, c + 3 * i, p->mu[i], a, b, d);
  } else {
    cone_residuals_ccp(lambda + 3 * i, c + 3 * i, p->mu[i], a, b, d);
  }
}

int solver_pair_passes(const solver_problem* p, const double* lambda, const double* c, int i,
                       int ncp, double above, double* d) {
  int j = p->link ? p->link[i] : -1;
  if (!(above < INFINITY) || j < 0 || !solver_entry_finite(p, lambda, c, i)) return 0;
  double co[5];
  solver_ell_coef(p, i, j, co);
  int n = ncp || (p->box && p->box[i]);
  *d = cone_ell_comp(lambda + 3 * i, lambda + 3 * j, c + 3 * i, c + 3 * j, co, n);
  if (*d > above) return 1;
  // then the velocity's side (the sweeps leave lambda projected, so its own residual is ~0)
  *d = cone_ell_dual(c + 3 * i, c + 3 * j, co, n);
  return *d > above;
}

// plain contact i in a bounded pass (above finite): 1 when its complementarity residual, alone
// (no projection), or else its dual one (cone_residuals' values) passes above, that bound in *d,
// else 0. Its entries are not tested: the caller tests every entry's (plain_all_finite)
static inline int contact_above(const solver_problem* p, const double* lambda, const double* c,
                                int i, double above, double* d) {
  const double *l = lambda + 3 * i, *v = c + 3 * i;
  double mu = p->mu[i], a, b;
  *d = cone_comp(l, v, mu, 1);
  if (*d > above) return 1;
  cone_residuals(l, v, mu, &a, &b, d);
  *d = b;
  return b > above;
}

// 1 when every contact of cons[0..n) passes solver_entry_finite's tests on its impulse and
// velocity (p->link NULL; the friction coefficients are plain_coef_safe's): their magnitudes
// summed, two at a time, stay within SOLVER_SAFE_MAG (a sum of magnitudes is at least each of
// them, rounded too, and a NaN or an infinity carries to it; 0 may also mean a large sum, and
// the caller then tests entry by entry). A bounded pass past its bound asks it once instead of
// once per contact left (those tests were 40 % of Talos standing's stop)
static int plain_all_finite(const double* lambda, const double* c, const int* cons, int n) {
  typedef long long mask2 __attribute__((vector_size(16)));
  const mask2 abs = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
  solver_v2 sum = {0, 0};
  if (n > 0 && (!cons || cons[n - 1] - cons[0] == n - 1)) {  // contiguous (islands ascend)
    const double *l = lambda + 3 * (cons ? cons[0] : 0), *v = c + 3 * (cons ? cons[0] : 0);
    int m = 3 * n, k = 0;
    for (; k + 2 <= m; k += 2) {
      solver_v2 a, b;
      memcpy(&a, l + k, 16);
      memcpy(&b, v + k, 16);
      sum += (solver_v2)((mask2)a & abs) + (solver_v2)((mask2)b & abs);
    }
    if (k < m) sum += (solver_v2){fabs(l[k]), fabs(v[k])};
    return sum[0] <= SOLVER_SAFE_MAG && sum[1] <= SOLVER_SAFE_MAG;
  }
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    const double *l = lambda + 3 * i, *v = c + 3 * i;
    solver_v2 a, b, e = {l[2], v[2]};
    memcpy(&a, l, 16);
    memcpy(&b, v, 16);
    sum += (solver_v2)((mask2)a & abs) + (solver_v2)((mask2)b & abs) + (solver_v2)((mask2)e & abs);
  }
  return sum[0] <= SOLVER_SAFE_MAG && sum[1] <= SOLVER_SAFE_MAG;
}

// 1 when every friction coefficient of cons[0..n) is 0 or within the safe range
// (solver_safe_coef)
static int plain_coef_safe(const solver_problem* p, const int* cons, int n) {
  for (int q = 0; q < n; q++)
    if (!solver_safe_coef(p->mu[cons ? cons[q] : q])) return 0;
  return 1;
}

double solver_ncp_eps_above(const solver_problem* p, const double* lambda, const double* c,
                            const int* cons, int n, double above, solver_stop_hint* h) {
  // the contact where the last bound was found first: when it passes again and every entry is
  // finite, that bound is the answer (else the pass below finds one, or a NaN)
  if (h && above < INFINITY && !p->link && h->first >= 0 && h->first < n) {
    double d;
    if (contact_above(p, lambda, c, cons ? cons[h->first] : h->first, above, &d)) {
      if (h->coef_safe < 0) h->coef_safe = plain_coef_safe(p, cons, n);
      if (h->coef_safe && plain_all_finite(lambda, c, cons, n)) return d;
    }
  }
  double worst = 0;
  int found = 0;  // h->first set: the bound was passed at the entry before the first skip
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    double a, b, d;
    if (worst > above) {
      if (h && !found) h->first = q - 1, found = 1;
      if (solver_entry_finite(p, lambda, c, i)) continue;
    } else if (p->link && solver_pair_passes(p, lambda, c, i, 1, above, &d)) {
      // (condim 4/6 pairs only: without link the call returns 0, and costs a call per contact)
      worst = d;
      continue;
    }
    if (p->link)
      solver_entry_residuals(p, lambda, c, i, 1, &a, &b, &d);
    else
      cone_residuals(lambda + 3 * i, c + 3 * i, p->mu[i], &a, &b, &d);
    if (isnan(a) || isnan(b) || isnan(d)) return NAN;  // as residuals_set's eps_abs
    if (a > worst) worst = a;
    if (b > worst) worst = b;
    if (d > worst) worst = d;
  }
  if (h && !found && worst > above) h->first = n - 1;
  return worst;
}

void solver_residuals_on(const solver_problem* p, const double* lambda, const double* c,
                         const int* cons, int n, solver_result* res) {
  double ep = 0, ed = 0, ec = 0, sum = 0;
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    double a, b, d;
    if (p->link)
      solver_entry_residuals(p, lambda, c, i, 1, &a, &b, &d);
    else
      cone_residuals(lambda + 3 * i, c + 3 * i, p->mu[i], &a, &b, &d);
    if (a > ep) ep = a;
    if (b > ed) ed = b;
    if (d > ec) ec = d;
    sum += a + b + d;
  }
  residuals_set(ep, ed, ec, sum, res);
}

// solver_residuals of entry i (row ci of c given) when it is part of a condim 4/6 pair: the
// pair's NCP residuals at the contact (the spin entry's row computed here), zero at the spin entry
static void spin_residuals(const solver_problem* p, const double* lambda, int i, const double ci[3],
                           double* a, double* b, double* d) {
  int j = p->link[i];
  *a = *b = *d = 0;
  if (j < 0) return;
  double cj[3] = {p->g[3 * j], p->g[3 * j + 1], p->g[3 * j + 2]}, co[5];
  solver_grow_add(p, j, lambda, cj);
  if (p->R)
    for (int r = 0; r < 3; r++) cj[r] += p->R[3 * j + r] * lambda[3 * j + r];
  solver_ell_coef(p, i, j, co);
  cone_ell_residuals(lambda + 3 * i, lambda + 3 * j, ci, cj, co, 1, a, b, d);
}

void solver_residuals(const solver_problem* p, const double* lambda, double* c,
                      solver_result* res) {
  double ep = 0, ed = 0, ec = 0, sum = 0;
  for (int i = 0; i < p->nc; i++) {
    // row i of (G + R) lambda + g: the blocks of row i only
    double ci[3] = {p->g[3 * i], p->g[3 * i + 1], p->g[3 * i + 2]};
    solver_grow_add(p, i, lambda, ci);
    for (int r = 0; r < 3; r++) {
      if (p->R) ci[r] += p->R[3 * i + r] * lambda[3 * i + r];
      if (c) c[3 * i + r] = ci[r];
    }
    double a, b, d;
    if (p->link && p->link[i] != -1)
      spin_residuals(p, lambda, i, ci, &a, &b, &d);
    else
      cone_residuals(lambda + 3 * i, ci, p->mu[i], &a, &b, &d);
    if (a > ep) ep = a;
    if (b > ed) ed = b;
    if (d > ec) ec = d;
    sum += a + b + d;
  }
  residuals_set(ep, ed, ec, sum, res);
}

// an island's dense sub-problem in s->isl: g, R, lambda, dual in, dual out (3n each), then the
// family's c (3n), mu (n) and a contact-space island's G ((3n)^2)
typedef struct {
  double *g, *R, *l, *din, *dout, *c, *mu, *G;
} island_buf;

static island_buf island_buffers(const solver* s, int n) {
  size_t n3 = 3 * (size_t)n;
  island_buf b;
  b.g = s->isl;
  b.R = b.g + n3;
  b.l = b.R + n3;
  b.din = b.l + n3;
  b.dout = b.din + n3;
  b.c = b.dout + n3;  // the family's c = (G + R) lambda + g when it leaves it (c_fresh)
  b.mu = b.c + n3;
  b.G = b.mu + n;
  return b;
}

// island cons[0..n)'s g, mu, R, box marks (into box, n), warm start and warm dual gathered into
// b, and sub pointed at them
static void island_gather(const solver_problem* p, const int* cons, int n, const double* lambda,
                          const double* dual_in, const island_buf* b, unsigned char* box,
                          solver_problem* sub) {
  for (int q = 0; q < n; q++) {
    int i = cons[q];
    b->mu[q] = p->mu[i];
    box[q] = p->box ? p->box[i] : 0;
    for (int r = 0; r < 3; r++) {
      b->g[3 * q + r] = p->g[3 * i + r];
      b->R[3 * q + r] = p->R ? p->R[3 * i + r] : 0;
      b->l[3 * q + r] = lambda[3 * i + r];
      b->din[3 * q + r] = dual_in ? dual_in[3 * i + r] : NAN;
      b->dout[3 * q + r] = NAN;
    }
  }
  sub->g = b->g;
  sub->mu = b->mu;
  sub->R = p->R ? b->R : NULL;
  sub->box = p->box ? box : NULL;
}

// island cons[0..n)'s condim 4/6 links in island positions and its rolling coefficients (into
// s->link, s->mu_roll), sub pointed at them: a spin entry has its contact's chain, so the two
// share an island (an entry whose partner were elsewhere would be unlinked, never misread).
// s->map (scratch, free once solver_gdense is done) maps a contact to its position
static void island_links(solver* s, const solver_problem* p, const int* cons, int n,
                         solver_problem* sub) {
  if (!p->link) return;
  for (int q = 0; q < n; q++) s->map[cons[q]] = q;
  for (int q = 0; q < n; q++) {
    int l = p->link[cons[q]], other = l >= 0 ? l : l < -1 ? -2 - l : -1;
    int at = other >= 0 ? s->map[other] : -1;
    if (at < 0 || at >= n || cons[at] != other) s->link[q] = -1;
    else s->link[q] = l >= 0 ? at : -2 - at;
    s->mu_roll[q] = p->mu_roll[cons[q]];
  }
  sub->link = s->link;
  sub->mu_roll = s->mu_roll;
}

// the island's answer and dual scattered back (and its c when the family left it exact)
static void island_scatter(const int* cons, int n, const island_buf* b, int fresh,
                           double* lambda, double* dual_out, double* c_all) {
  if (fresh)
    for (int q = 0; q < n; q++)
      for (int c = 0; c < 3; c++) c_all[3 * cons[q] + c] = b->c[3 * q + c];
  for (int q = 0; q < n; q++) {
    int i = cons[q];
    for (int c = 0; c < 3; c++) {
      lambda[3 * i + c] = b->l[3 * q + c];
      dual_out[3 * i + c] = b->dout[3 * q + c];
    }
  }
}

// an island (or problem) of n contacts and `rows` rows past the rows the work holds
// (solver_options island_rows, or a problem without Y given to a solver sized for dof space):
// left unsolved at its initial guess and reported, never solved in part nor overflowed
static void island_unsolved(solver_result* out, int n, size_t rows) {
  out->converged = 0;
  out->residual = INFINITY;
  if (n > out->unsolved_island) {
    out->unsolved_island = n;
    out->unsolved_rows = (int)rows;
  }
}

// island cons[0..n)'s blocks in island numbering (contact cons[q] -> q), both triangles as p
// holds them, into the space of its dense G (b->G, 9 n^2 doubles): the values, then rowptr,
// col and diag as ints; sub pointed at them. 0 when p has no full blocks (dense,
// or diagonal blocks only) or they do not fit (an island whose blocks are nearly all present)
static int island_blocks(solver* s, const solver_problem* p, const int* cons, int n,
                         const island_buf* b, solver_problem* sub) {
  if (p->dense || p->diag_only || !p->blk) return 0;
  size_t nb = 0;
  for (int q = 0; q < n; q++) nb += (size_t)(p->rowptr[cons[q] + 1] - p->rowptr[cons[q]]);
  size_t ints = 2 * (size_t)n + 1 + nb, cap = 9 * (size_t)n * (size_t)n;
  if (9 * nb + (ints * sizeof(int) + sizeof(double) - 1) / sizeof(double) > cap) return 0;
  double* blk = b->G;
  int *rowptr = (int*)(void*)(blk + 9 * nb), *diag = rowptr + n + 1, *col = diag + n;
  for (int q = 0; q < n; q++) s->map[cons[q]] = q;
  size_t k = 0;
  for (int q = 0; q < n; q++) {
    int i = cons[q];
    rowptr[q] = (int)k;
    for (int e = p->rowptr[i]; e < p->rowptr[i + 1]; e++, k++) {
      col[k] = s->map[p->col[e]];  // an island's blocks stay in it (islands: solver.h)
      if (e == p->diag[i]) diag[q] = (int)k;
      memcpy(blk + 9 * k, p->blk + 9 * (size_t)e, 9 * sizeof(double));
    }
  }
  rowptr[n] = (int)k;
  sub->rowptr = rowptr;
  sub->col = col;
  sub->diag = diag;
  sub->blk = blk;  // no island lists: the family solves sub whole, never island by island
  return 1;
}

// a contact-space island the family factors sparse (ADMM, admm.c admm_island_sparse) goes to it
// as its blocks, so that its dense G (9 n^2 doubles: 23 MB written and read several times on
// FCLib's KaplasTower-i1061-4, 1710 rows) is never formed; 1 when sub holds the blocks
static int island_sparse(solver* s, const solver_problem* p, const int* cons, int n,
                         const island_buf* b, solver_problem* sub) {
  if (!s->fam->island_sparse || !island_blocks(s, p, cons, n, b, sub)) return 0;
  if (s->fam->island_sparse(s, sub)) return 1;
  sub->rowptr = sub->col = sub->diag = NULL;
  sub->blk = NULL;
  return 0;
}

static void island_result(const solver_result* r, solver_result* out);

// an island of consecutive contacts without condim 4/6 links (a single stack or chain) solved
// in place: its g, mu, R, box marks, warm start, duals and c are p's and the solver's own rows
// from its first contact on, so nothing is gathered nor scattered (the copies were a sixth of
// the solve's set-up on a 2-cube stack); the same values, so the same bits. 1 when solved
static int island_direct(solver* s, const solver_problem* p, const int* cons, int n,
                         solver_problem* sub, double* lambda, solver_result* out) {
  int i0 = cons[0];
  if (p->link) return 0;  // link holds contact numbers: island_links renumbers them
  for (int q = 1; q < n; q++)
    if (cons[q] != i0 + q) return 0;
  size_t o = 3 * (size_t)i0;
  const double* dual_in = s->dual_in;
  double *dual_out = s->dual_out, *c_all = s->c;
  for (size_t k = 0; k < 3 * (size_t)n; k++) dual_out[o + k] = NAN;  // as the gathered dout
  sub->g = p->g + o;
  sub->mu = p->mu + i0;
  sub->R = p->R ? p->R + o : NULL;
  sub->box = p->box ? p->box + i0 : NULL;
  s->dual_in = dual_in ? dual_in + o : NULL;
  s->dual_out = dual_out + o;
  s->c = c_all + o;
  s->c_fresh = s->m_fresh = 0;
  solver_result r = {0};
  s->fn(s, sub, lambda + o, &r);
  s->c = c_all;
  s->dual_in = dual_in;
  s->dual_out = dual_out;
  island_result(&r, out);
  return 1;
}

// island k solved as a problem of its own (its G dense, or in the family's own form) into out;
// 1 when the family left its c exact, 0 when not, -1 when the island was left unsolved
static int solve_island(solver* s, const solver_problem* p, int k, double* lambda,
                        solver_result* out) {
  int n0 = p->island_ptr[k], n = p->island_ptr[k + 1] - n0;
  const int* cons = p->island_con + n0;
  island_buf b = island_buffers(s, n);
  solver_problem sub = {0};
  sub.nc = n;
  int own = s->fam->island_form && s->fam->island_form(s, p, cons, n, &sub);
  out->dof_islands += own;
  size_t rows = own ? (size_t)sub.nv : 3 * (size_t)n;  // dofs in dof space, else 3 per contact
  if (rows > s->rows) {
    island_unsolved(out, n, rows);
    return -1;
  }
  if (!own && !island_sparse(s, p, cons, n, &b, &sub)) {
    solver_gdense(p, cons, n, s->map, b.G);
    sub.dense = b.G;
  }
  const double* dual_in = s->dual_in;
  double *dual_out = s->dual_out, *c_all = s->c;
  if (island_direct(s, p, cons, n, &sub, lambda, out)) return s->c_fresh;
  island_gather(p, cons, n, lambda, dual_in, &b, s->box, &sub);
  island_links(s, p, cons, n, &sub);
  s->dual_in = dual_in ? b.din : NULL;
  s->dual_out = b.dout;
  s->c = b.c;
  s->c_fresh = s->m_fresh = 0;
  solver_result r = {0};
  s->fn(s, &sub, b.l, &r);
  s->c = c_all;
  s->dual_in = dual_in;
  s->dual_out = dual_out;
  island_scatter(cons, n, &b, s->c_fresh, lambda, dual_out, c_all);
  island_result(&r, out);
  return s->c_fresh;
}

// the island's result r combined into out (solve_island)
static void island_result(const solver_result* r, solver_result* out) {
  out->band_islands += r->band_islands;
  out->sparse_islands += r->sparse_islands;
  if (r->iterations > out->iterations) out->iterations = r->iterations;
  if (!r->converged) out->converged = 0;
  if (isnan(r->residual) || r->residual > out->residual) out->residual = r->residual;
  if (isnan(out->residual)) out->residual = NAN;
}

// a dense family (ADMM, staggered, Lemke: they factor or pivot on G) island by island: each
// island's G exported densely (solver_gdense) or in the family's own form, with its g, mu, R,
// warm start and warm dual, solved as a problem of its own, its answer and dual scattered back.
// Islands are independent, so this is the whole problem's answer up to float order; iterations
// are the most any island took, converged only when every island did, the residual the largest
void solver_islands(solver* s, const solver_problem* p, const unsigned char* pick,
                    double* lambda, solver_result* res) {
  s->m_fresh = 0;
  if (p->dense || (p->Y && !p->rowptr)) {  // already one dense or factored (sub-)problem
    size_t need = p->dense ? 3 * (size_t)p->nc : (size_t)p->nv;
    memset(res, 0, sizeof(*res));
    res->converged = 1;
    if (pick && !pick[0]) return;
    if (need > s->rows) island_unsolved(res, p->nc, need);
    else s->fn(s, p, lambda, res);
    return;
  }
  solver_result out = {0};
  out.converged = 1;
  int fresh = 1;  // every island left its c: solver_solve need not recompute it
  int mfresh = 1;  // and its metric (the family's m_fresh): combined in met
  solver_result met = {0};
  // the penalties the family keeps across solves start every island from the same value, as
  // the whole problem would; the largest island's are kept for the next solve
  int nk = 0, nbig = -1;
  double* carry = s->fam->carry ? s->fam->carry(s, &nk) : NULL;
  double keep0[SOLVER_CARRY_MAX], keep1[SOLVER_CARRY_MAX];
  for (int j = 0; j < nk; j++) keep0[j] = keep1[j] = carry[j];
  for (int k = 0; k < p->nisland; k++) {
    int n = p->island_ptr[k + 1] - p->island_ptr[k];
    if (pick && !pick[k]) {  // left as it is: its rows of the family's c are not set
      fresh = 0;
      continue;
    }
    for (int j = 0; j < nk; j++) carry[j] = keep0[j];
    int st = solve_island(s, p, k, lambda, &out);
    if (st <= 0) fresh = 0;
    if (st > 0 && s->m_fresh) solver_metric_add(&met, s->metric.eps_p, s->metric.eps_d,
                                                s->metric.eps_c);
    else mfresh = 0;
    if (st >= 0 && n > nbig) {
      nbig = n;
      for (int j = 0; j < nk; j++) keep1[j] = carry[j];
    }
  }
  s->c_fresh = fresh;
  s->m_fresh = fresh && mfresh;
  s->metric = met;
  for (int j = 0; j < nk; j++) carry[j] = keep1[j];
  *res = out;
}

void solver_solve(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  memset(res, 0, sizeof(*res));
  if (p->nc == 0) {
    res->converged = 1;
    return;
  }
  if (p->nc > s->maxc || (!p->dense && p->nisland < 1)) {
    // the caller sized the solver too small, or a block problem without islands: report, never
    // overflow
    res->eps_abs = res->eps_p = res->eps_d = res->eps_c = INFINITY;
    return;
  }
  for (int k = 0; k < 3 * p->nc; k++) s->dual_out[k] = NAN;  // families with a dual fill it
  s->c_fresh = s->m_fresh = 0;
  if (solver_is_dense_family(&s->opt)) solver_islands(s, p, NULL, lambda, res);
  else s->fn(s, p, lambda, res);
  s->dual_in = NULL;  // a warm dual serves one solve
  // c = (G + R) lambda + g at the answer, computed once and shared by the NCP criterion and the
  // eps metric: a family that leaves it exact in s->c (c_fresh) saves the product altogether
  int n = 3 * p->nc;
  if (!s->c_fresh) solver_velocity_all(p, lambda, s->c);
  // with the NCP criterion, convergence also needs the NCP residual of the problem solved
  // (G + R) at the answer handed back, for every model (the families stop on max(their model's
  // residual, NCP residual): solver_stop_of; this makes the contract independent of them)
  // Without R that residual's pass is also the metric's below (the same c): done once
  solver_result m;
  int have = 0;
  if (s->opt.criterion == SOLVER_STOP_NCP || s->opt.criterion == SOLVER_STOP_NATURAL) {
    if (s->c_fresh && s->m_fresh) m = s->metric;  // the family's last pass, on this c
    else solver_residuals_on(p, lambda, s->c, NULL, p->nc, &m);
    have = !p->R;
    double e = m.eps_abs;  // solver_ncp_stop_on's residual
    if (s->opt.criterion == SOLVER_STOP_NATURAL && !isnan(e)) {
      double r = solver_natural_on(p, lambda, s->c, NULL, p->nc);
      if (!(r <= e)) e = r;
    }
    if (!isnan(res->residual) && !(e <= res->residual)) res->residual = e;
    res->converged = res->residual <= s->opt.tolerance;
  }
  // physical accuracy of the answer, the same for every model (000 eq. 14, R excluded):
  // c - R lambda, O(nc)
  if (p->R)
    for (int k = 0; k < n; k++) s->c[k] -= p->R[k] * lambda[k];
  if (have) {
    res->eps_p = m.eps_p;
    res->eps_d = m.eps_d;
    res->eps_c = m.eps_c;
    res->eps_abs = m.eps_abs;
  } else {
    solver_residuals_of(p, lambda, s->c, res);
  }
}

void solver_set_dual(solver* s, const double* dual0) {
  s->dual_in = dual0;
}

const double* solver_dual(const solver* s) {
  return s->dual_out;
}

int solver_stop_ncp(const solver* s) {
  return s->opt.criterion != SOLVER_STOP_MODEL;
}

double solver_stop_of(const solver* s, const solver_problem* p, const double* lambda,
                      const double* c, const int* cons, int n, double q) {
  // ContactBench's rule (solver.criterion: relative) holds a relaxed model to its own residual:
  // CCPPGSSolver::stoppingCriteria is the CCP's (solvers.hxx), never the NCP's
  if (!solver_stop_ncp(s) || s->opt.criterion == SOLVER_STOP_RELATIVE || isnan(q)) return q;
  solver_result r;
  solver_ncp_stop_on(s, p, lambda, c, cons, n, &r);
  return r.eps_abs > q || isnan(r.eps_abs) ? r.eps_abs : q;
}

// contact i's natural residual (solver.h SOLVER_STOP_NATURAL) given gnn = G~_NN: the step
// 1 / G~_NN turns the velocity into the impulse that would cancel it on the contact alone
static inline double natural_at(const solver_problem* p, const double* lambda, const double* c,
                                int i, double gnn) {
  if (!(gnn > 0)) return 0;  // no dof moves the contact's normal: nothing to cancel
  const double *l = lambda + 3 * i, *ci = c + 3 * i;
  if (!isfinite(l[0] + l[1] + l[2] + ci[0] + ci[1] + ci[2])) return NAN;  // fmax drops NaNs
  double mu = p->mu[i], k = 1 / gnn;
  double w[3] = {l[0] - k * ci[0], l[1] - k * ci[1],
                 l[2] - k * (ci[2] + mu * sqrt(ci[0] * ci[0] + ci[1] * ci[1]))}, pw[3];
  cone_project(pw, w, mu);
  return solver_max(fabs(l[0] - pw[0]), solver_max(fabs(l[1] - pw[1]), fabs(l[2] - pw[2])));
}

double solver_natural_on(const solver_problem* p, const double* lambda, const double* c,
                         const int* cons, int n) {
  double m = 0;
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    if (p->link && p->link[i] != -1) continue;
    double r = natural_at(p, lambda, c, i, solver_gtkk(p, 3 * i + 2));
    if (isnan(r)) return NAN;
    if (r > m) m = r;
  }
  return m;
}

double solver_natural_gnn(const solver_problem* p, const double* lambda, const double* c,
                          const double* gnn) {
  double m = 0;
  for (int i = 0; i < p->nc; i++) {
    if (p->link && p->link[i] != -1) continue;
    double r = natural_at(p, lambda, c, i, gnn[i]);
    if (isnan(r)) return NAN;
    if (r > m) m = r;
  }
  return m;
}

void solver_ncp_stop_on(const solver* s, const solver_problem* p, const double* lambda,
                        const double* c, const int* cons, int n, solver_result* res) {
  solver_residuals_on(p, lambda, c, cons, n, res);
  // tolerance_units: contactbench: the complementarity weighted by 1 / dt (solver.h comp_scale)
  double w = s->opt.comp_scale;
  if (w > 0 && !isnan(res->eps_abs) && !(w * res->eps_c <= res->eps_abs))
    res->eps_abs = w * res->eps_c;
  if (s->opt.criterion != SOLVER_STOP_NATURAL || isnan(res->eps_abs)) return;
  double r = solver_natural_on(p, lambda, c, cons, n);
  if (!(r <= res->eps_abs)) res->eps_abs = r;
}

void solver_crows(const solver_problem* p, const double* lambda, double* c, const int* cons,
                  int n) {
  int blocks = !p->dense && !p->diag_only;
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    double ci[3] = {p->g[3 * i], p->g[3 * i + 1], p->g[3 * i + 2]};
    if (blocks) {  // solver_grow_add's block loop inline: the same sums in the same order
      block_row_add(p, i, lambda, ci);
    } else {
      solver_grow_add(p, i, lambda, ci);
    }
    double* co = c + 3 * i;
    if (p->R) {
      const double *Ri = p->R + 3 * i, *li = lambda + 3 * i;
      co[0] = ci[0] + Ri[0] * li[0];
      co[1] = ci[1] + Ri[1] * li[1];
      co[2] = ci[2] + Ri[2] * li[2];
    } else {  // + 0 as with R = 0: -0 becomes +0, the bits of the sum with R
      co[0] = ci[0] + 0.0;
      co[1] = ci[1] + 0.0;
      co[2] = ci[2] + 0.0;
    }
  }
}

const double* solver_velocity(const solver* s) {
  return s->c;
}

//---------------------------------- block-sparse G -------------------------------------------

csim_status solver_blocks_create(int maxc, long maxblocks, solver_blocks** out, csim_error* err) {
  *out = NULL;
  if (maxc < 1) maxc = 1;
  if (maxblocks < maxc) maxblocks = maxc;
  if (maxblocks > INT_MAX)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "contact.memory_budget",
                   "%ld blocks of G exceed the %d the block index holds", maxblocks, INT_MAX);
  solver_blocks* b = calloc(1, sizeof(*b));
  if (!b) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  size_t mc = (size_t)maxc, mb = (size_t)maxblocks;
  b->maxc = maxc;
  b->maxblocks = maxblocks;
  b->rowptr = calloc(mc + 1, sizeof(int));
  b->col = calloc(mb, sizeof(int));
  b->diag = calloc(mc, sizeof(int));
  b->blk = calloc(9 * mb, sizeof(double));
  b->island_ptr = calloc(mc + 1, sizeof(int));
  b->island_con = calloc(mc, sizeof(int));
  b->uf = calloc(mc, sizeof(int));
  if (!b->rowptr || !b->col || !b->diag || !b->blk || !b->island_ptr || !b->island_con || !b->uf) {
    solver_blocks_free(b);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL,
                   "out of memory for %ld blocks of G (%d contacts)", maxblocks, maxc);
  }
  *out = b;
  return CSIM_OK;
}

size_t solver_blocks_bytes(int maxc, long maxblocks) {
  if (maxc < 1) maxc = 1;
  if (maxblocks < maxc) maxblocks = maxc;
  size_t mc = (size_t)maxc, mb = (size_t)maxblocks, I = sizeof(int);
  // the callocs of solver_blocks_create, in its order
  return sizeof(solver_blocks) + (mc + 1) * I + mb * I + mc * I + 9 * mb * sizeof(double) +
         (mc + 1) * I + mc * I + mc * I;
}

void solver_blocks_free(solver_blocks* b) {
  if (!b) return;
  free(b->rowptr); free(b->col); free(b->diag); free(b->blk);
  free(b->island_ptr); free(b->island_con); free(b->uf);
  free(b);
}

static int uf_find(int* uf, int i) {
  while (uf[i] != i) {
    uf[i] = uf[uf[i]];  // path halving
    i = uf[i];
  }
  return i;
}

// join the sets of contacts i and j; the root is the smallest contact
static void uf_union(int* uf, int i, int j) {
  int a = uf_find(uf, i), c = uf_find(uf, j);
  if (a == c) return;
  if (a < c) uf[c] = a; else uf[a] = c;
}

static void label_islands(solver_blocks* b);

void solver_blocks_islands(solver_blocks* b) {
  int nc = b->nc;
  int* uf = b->uf;
  for (int i = 0; i < nc; i++) uf[i] = i;
  for (int i = 0; i < nc; i++)
    for (int k = b->rowptr[i]; k < b->rowptr[i + 1]; k++)
      if (b->col[k] > i) uf_union(uf, i, b->col[k]);
  label_islands(b);
}

void solver_blocks_islands_grouped(solver_blocks* b, const int* gptr, const int* gcon,
                                   int ngroup) {
  int* uf = b->uf;
  for (int i = 0; i < b->nc; i++) uf[i] = i;
  for (int k = 0; k < ngroup; k++)
    for (int q = gptr[k] + 1; q < gptr[k + 1]; q++) uf_union(uf, gcon[gptr[k]], gcon[q]);
  label_islands(b);
}

// islands of the union-find forest in b->uf: labelled by their smallest contact (roots appear
// in ascending order), then a counting sort
static void label_islands(solver_blocks* b) {
  int nc = b->nc;
  int* uf = b->uf;
  int* cnt = b->island_ptr;
  int ni = 0;
  for (int i = 0; i < nc; i++) {
    int r = uf_find(uf, i);
    if (r == i) b->island_con[i] = ni++;  // island_con as root -> label scratch
    uf[i] = r;
  }
  for (int i = 0; i < nc; i++) uf[i] = b->island_con[uf[i]];
  memset(cnt, 0, sizeof(int) * (size_t)(ni + 1));
  for (int i = 0; i < nc; i++) cnt[uf[i] + 1]++;
  for (int k = 0; k < ni; k++) cnt[k + 1] += cnt[k];
  // fill with a moving cursor per island (cnt[k] advanced, then shifted back)
  for (int i = 0; i < nc; i++) b->island_con[cnt[uf[i]]++] = i;
  for (int k = ni; k > 0; k--) cnt[k] = cnt[k - 1];
  cnt[0] = 0;
  b->nisland = ni;
}

csim_status solver_blocks_from_dense(solver_blocks* b, int nc, const double* G, int full,
                                     csim_error* err) {
  if (nc > b->maxc)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "%d contacts, the blocks hold %d", nc,
                   b->maxc);
  size_t n = 3 * (size_t)nc;
  long k = 0;
  b->nc = nc;
  for (int i = 0; i < nc; i++) {
    b->rowptr[i] = (int)k;
    for (int j = 0; j < nc; j++) {
      int nz = full || i == j;
      for (int r = 0; r < 3 && !nz; r++)
        for (int t = 0; t < 3 && !nz; t++) nz = G[(3 * (size_t)i + r) * n + 3 * (size_t)j + t] != 0;
      if (!nz) continue;
      if (k >= b->maxblocks)
        return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "G has more than %ld blocks",
                       b->maxblocks);
      if (i == j) b->diag[i] = (int)k;
      b->col[k] = j;
      for (int r = 0; r < 3; r++)
        for (int t = 0; t < 3; t++)
          b->blk[9 * k + 3 * r + t] = G[(3 * (size_t)i + r) * n + 3 * (size_t)j + t];
      k++;
    }
  }
  b->rowptr[nc] = (int)k;
  b->nblocks = k;
  solver_blocks_islands(b);
  return CSIM_OK;
}

solver_problem solver_blocks_problem(const solver_blocks* b, const double* g, const double* mu,
                                     const double* R) {
  solver_problem p = {0};
  p.nc = b->nc;
  p.rowptr = b->rowptr;
  p.col = b->col;
  p.diag = b->diag;
  p.blk = b->blk;
  p.nisland = b->nisland;
  p.island_ptr = b->island_ptr;
  p.island_con = b->island_con;
  p.g = g;
  p.mu = mu;
  p.R = R;
  p.diag_only = b->diag_only;
  return p;
}

void solver_yblock(const solver_problem* p, int i, int j, double blk[9]) {
  int w = p->ystride, na = p->ynz[i], nb = p->ynz[j];
  const int* ci = p->ydof + (size_t)i * w;
  const int* cj = p->ydof + (size_t)j * w;
  solver_yblock_on(p, i, j, na == nb && (i == j || memcmp(ci, cj, sizeof(int) * (size_t)na) == 0),
                   blk);
}

static void ymerge(const int* ci, const int* cj, const double* Yi0, const double* Yi1,
                   const double* Yi2, const double* Yj0, const double* Yj1, const double* Yj2,
                   int na, int nb, double blk[9]);

// block (i, i) over the n dofs of i's rows Y0, Y1, Y2: six running sums, the lower triangle's
// the upper's (bit for bit). Inline: called with n = 6 (a free body's chain) the loop unrolls
static inline void ysym(const double* Y0, const double* Y1, const double* Y2, int n, double b[9]) {
  double b0 = 0, b1 = 0, b2 = 0, b4 = 0, b5 = 0, b8 = 0;
  for (int a = 0; a < n; a++) {
    double x0 = Y0[a], x1 = Y1[a], x2 = Y2[a];
    b0 += x0 * x0; b1 += x0 * x1; b2 += x0 * x2;
    b4 += x1 * x1; b5 += x1 * x2; b8 += x2 * x2;
  }
  b[0] = b0; b[1] = b1; b[2] = b2;
  b[3] = b1; b[4] = b4; b[5] = b5;
  b[6] = b2; b[7] = b5; b[8] = b8;
}

// block (i, j) of two contacts on the same n dofs (rows X of i, Y of j): nine running sums
static inline void ysame(const double* X0, const double* X1, const double* X2, const double* Y0,
                         const double* Y1, const double* Y2, int n, double b[9]) {
  double b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0, b8 = 0;
  for (int a = 0; a < n; a++) {
    double x0 = X0[a], x1 = X1[a], x2 = X2[a], y0 = Y0[a], y1 = Y1[a], y2 = Y2[a];
    b0 += x0 * y0; b1 += x0 * y1; b2 += x0 * y2;
    b3 += x1 * y0; b4 += x1 * y1; b5 += x1 * y2;
    b6 += x2 * y0; b7 += x2 * y1; b8 += x2 * y2;
  }
  b[0] = b0; b[1] = b1; b[2] = b2;
  b[3] = b3; b[4] = b4; b[5] = b5;
  b[6] = b6; b[7] = b7; b[8] = b8;
}

void solver_yblock_on(const solver_problem* p, int i, int j, int same, double blk[9]) {
  int w = p->ystride;
  const int* ci = p->ydof + (size_t)i * w;
  const int* cj = p->ydof + (size_t)j * w;
  const double *Yi0 = p->Y + 3 * (size_t)i * w, *Yi1 = Yi0 + w, *Yi2 = Yi1 + w;
  const double *Yj0 = p->Y + 3 * (size_t)j * w, *Yj1 = Yj0 + w, *Yj2 = Yj1 + w;
  int na = p->ynz[i], nb = p->ynz[j];
  // the same dofs (i == j, or two contacts on the same chain: the common case of several
  // contacts on one body): the same sums in the same order, without the merge's branches
  if (same && i == j) {
    if (na == 6) ysym(Yi0, Yi1, Yi2, 6, blk);
    else ysym(Yi0, Yi1, Yi2, na, blk);
  } else if (same) {
    if (na == 6) ysame(Yi0, Yi1, Yi2, Yj0, Yj1, Yj2, 6, blk);
    else ysame(Yi0, Yi1, Yi2, Yj0, Yj1, Yj2, na, blk);
  } else {
    // two chains of a tree sharing the dofs from the root down (Talos's two feet: the base's
    // six), then apart (each leg's dofs above the other's, or below): the shared dofs are a
    // common prefix, and ymerge's sums are ysame's over it (the same sums in the same order)
    int k = 0;
    while (k < na && k < nb && ci[k] == cj[k]) k++;
    if (k == na || k == nb || ci[na - 1] < cj[k] || cj[nb - 1] < ci[k]) {
      if (k == 6) ysame(Yi0, Yi1, Yi2, Yj0, Yj1, Yj2, 6, blk);
      else ysame(Yi0, Yi1, Yi2, Yj0, Yj1, Yj2, k, blk);
    } else {
      ymerge(ci, cj, Yi0, Yi1, Yi2, Yj0, Yj1, Yj2, na, nb, blk);
    }
  }
  if (i == j && p->ydiag) {
    blk[0] += p->ydiag[3 * i];
    blk[4] += p->ydiag[3 * i + 1];
    blk[8] += p->ydiag[3 * i + 2];
  }
}

// solver_yblocks_same's rows of n contacts on six dofs transposed: Z[a mp + q] = row q's value
// at dof a; column 3n (what the last pair of columns may read past the rows) zero
static void ygroup_transpose(const solver_problem* p, const int* cons, int n, int mp, double* Z) {
  int w = p->ystride;
  for (int b = 0; b < n; b++) {
    const double* Y = p->Y + 3 * (size_t)cons[b] * w;
    for (int a = 0; a < 6; a += 2) {  // rows 0 and 1 two dofs at a time (one shuffle per pair)
      solver_v2 y0, y1;
      memcpy(&y0, Y + a, 16);
      memcpy(&y1, Y + w + a, 16);
      solver_v2 lo = {y0[0], y1[0]}, hi = {y0[1], y1[1]};
      memcpy(Z + a * mp + 3 * b, &lo, 16);
      memcpy(Z + (a + 1) * mp + 3 * b, &hi, 16);
    }
    for (int a = 0; a < 6; a++) Z[a * mp + 3 * b + 2] = Y[2 * w + a];
  }
  for (int a = 0; a < 6; a++) Z[a * mp + 3 * n] = 0;
}

// row q of the group's upper triangle, from its diagonal entry on, into out[q .. 3n]: each
// entry summed from 0 over the six dofs in order (ysym's and ysame's sums, two columns at a
// time)
static inline void ygroup_row(const double* Z, int mp, int q, int m, double* out) {
  solver_v2 bx[6];
  for (int a = 0; a < 6; a++) bx[a] = (solver_v2){Z[a * mp + q], Z[a * mp + q]};
  for (int s = q; s < m; s += 2) {
    solver_v2 acc = {0, 0};
    for (int a = 0; a < 6; a++) {
      solver_v2 z;
      memcpy(&z, Z + a * mp + s, 16);
      acc += bx[a] * z;
    }
    memcpy(out + s, &acc, 16);
  }
}

// solver_yblocks_same on n contacts, Z their transposed rows (ygroup_transpose): inline, so that
// with n a constant (a box's 4 corners) every loop unrolls and the stores' places are constants.
// x y = y x exactly: the lower triangle's entries are the upper's, block (j, i) the transpose of
// (i, j)
static inline void ygroup_blocks(const double* Z, int n, double* const* rowblk) {
  int m = 3 * n, mp = m + 1;
  double out[3 * SOLVER_YGROUP_MAX + 1];
#pragma GCC unroll 24
  for (int q = 0; q < m; q++) {
    int i = q / 3, r = q % 3;
    ygroup_row(Z, mp, q, m, out);
    double* bi = rowblk[i];
    // the diagonal block's lower entries: its rows before r (stored already) give them
    for (int t = 0; t < 3; t++)
      bi[9 * i + 3 * r + t] = t < r ? bi[9 * i + 3 * t + r] : out[3 * i + t];
    for (int j = i + 1; j < n; j++) {
      double* bj = rowblk[j];
      for (int t = 0; t < 3; t++) {
        bi[9 * j + 3 * r + t] = out[3 * j + t];
        bj[9 * i + 3 * t + r] = out[3 * j + t];
      }
    }
  }
}

void solver_yblock_diag2(const solver_problem* p, int i, double blk[18]) {
  size_t w = (size_t)p->ystride;
  int n = p->ynz[i];
  const double *A0 = p->Y + 3 * (size_t)i * w, *A1 = A0 + w, *A2 = A1 + w;
  const double *B0 = A2 + w, *B1 = B0 + w, *B2 = B1 + w;
  solver_v2 b0 = {0, 0}, b1 = b0, b2 = b0, b4 = b0, b5 = b0, b8 = b0;
  for (int a = 0; a < n; a++) {  // ysym's sums in its order
    solver_v2 x0 = {A0[a], B0[a]}, x1 = {A1[a], B1[a]}, x2 = {A2[a], B2[a]};
    b0 += x0 * x0; b1 += x0 * x1; b2 += x0 * x2;
    b4 += x1 * x1; b5 += x1 * x2; b8 += x2 * x2;
  }
  for (int h = 0; h < 2; h++) {
    double* b = blk + 9 * h;
    b[0] = b0[h]; b[1] = b1[h]; b[2] = b2[h];
    b[3] = b1[h]; b[4] = b4[h]; b[5] = b5[h];
    b[6] = b2[h]; b[7] = b5[h]; b[8] = b8[h];
    if (p->ydiag) {
      b[0] += p->ydiag[3 * (i + h)];
      b[4] += p->ydiag[3 * (i + h) + 1];
      b[8] += p->ydiag[3 * (i + h) + 2];
    }
  }
}

int solver_yblocks_same(const solver_problem* p, const int* cons, int n, double* const* rowblk) {
  // a free body's six dofs (a body on the ground): other chains keep the block by block sums,
  // which this loop (its sums not unrolled) does not beat
  if (n > SOLVER_YGROUP_MAX || p->ynz[cons[0]] != 6) return 0;
  double Z[6 * (3 * SOLVER_YGROUP_MAX + 1)];
  ygroup_transpose(p, cons, n, 3 * n + 1, Z);
  if (n == 4) ygroup_blocks(Z, 4, rowblk);
  else ygroup_blocks(Z, n, rowblk);
  if (p->ydiag)
    for (int b = 0; b < n; b++)
      for (int r = 0; r < 3; r++) rowblk[b][9 * b + 4 * r] += p->ydiag[3 * cons[b] + r];
  return 1;
}

// block (i, j) over the dofs both chains ci[0..na), cj[0..nb) hold (ascending): nine running
// sums, each over the shared dofs in ascending order
static void ymerge(const int* ci, const int* cj, const double* Yi0, const double* Yi1,
                   const double* Yi2, const double* Yj0, const double* Yj1, const double* Yj2,
                   int na, int nb, double blk[9]) {
  double b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0, b8 = 0;
  for (int a = 0, c = 0; a < na && c < nb;) {
    if (ci[a] == cj[c]) {
      double x0 = Yi0[a], x1 = Yi1[a], x2 = Yi2[a], y0 = Yj0[c], y1 = Yj1[c], y2 = Yj2[c];
      b0 += x0 * y0; b1 += x0 * y1; b2 += x0 * y2;
      b3 += x1 * y0; b4 += x1 * y1; b5 += x1 * y2;
      b6 += x2 * y0; b7 += x2 * y1; b8 += x2 * y2;
      a++;
      c++;
    } else if (ci[a] < cj[c]) {
      a++;
    } else {
      c++;
    }
  }
  blk[0] = b0; blk[1] = b1; blk[2] = b2;
  blk[3] = b3; blk[4] = b4; blk[5] = b5;
  blk[6] = b6; blk[7] = b7; blk[8] = b8;
}

//------------------------- diag_only: G's products through Y ------------------------------
// (solver.h) w = Y' x over every contact (w: p->ywork, nv)
static void yt_all(const solver_problem* p, const double* x, double* w) {
  int s = p->ystride;
  memset(w, 0, sizeof(double) * (size_t)p->nv);
  for (int i = 0; i < p->nc; i++) {
    const int* d = p->ydof + (size_t)i * s;
    const double *y0 = p->Y + 3 * (size_t)i * s, *y1 = y0 + s, *y2 = y1 + s;
    double x0 = x[3 * i], x1 = x[3 * i + 1], x2 = x[3 * i + 2];
    if (x0 == 0 && x1 == 0 && x2 == 0) continue;
    for (int k = 0; k < p->ynz[i]; k++) w[d[k]] += y0[k] * x0 + y1[k] * x1 + y2[k] * x2;
  }
}

// out (3) += Y_i w + ydiag_i x_i: contact i's rows of Y Y' x + diag(ydiag) x given w = Y' x
static void y_row(const solver_problem* p, int i, const double* w, const double* x,
                  double out[3]) {
  int s = p->ystride;
  const int* d = p->ydof + (size_t)i * s;
  for (int r = 0; r < 3; r++) {
    const double* y = p->Y + (3 * (size_t)i + r) * s;
    double acc = 0;
    for (int k = 0; k < p->ynz[i]; k++) acc += y[k] * w[d[k]];
    out[r] += acc + (p->ydiag ? p->ydiag[3 * i + r] * x[3 * i + r] : 0);
  }
}

void solver_velocity_all(const solver_problem* p, const double* lambda, double* c) {
  int n = 3 * p->nc;
  for (int k = 0; k < n; k++) c[k] = p->g[k] + (p->R ? p->R[k] * lambda[k] : 0);
  solver_gmul_add(p, lambda, c);
}

void solver_gmul_add(const solver_problem* p, const double* x, double* y) {
  int nc = p->nc;
  if (p->dense) {
    size_t n = 3 * (size_t)nc;
    for (size_t r = 0; r < n; r++) {
      const double* Gr = p->dense + r * n;
      double acc = 0;
      for (size_t k = 0; k < n; k++) acc += Gr[k] * x[k];
      y[r] += acc;
    }
    return;
  }
  if (p->diag_only) {
    yt_all(p, x, p->ywork);
    for (int i = 0; i < nc; i++) y_row(p, i, p->ywork, x, y + 3 * i);
    return;
  }
  for (int i = 0; i < nc; i++) block_row_add(p, i, x, y + 3 * i);
}

void solver_grow_add(const solver_problem* p, int i, const double* x, double out[3]) {
  if (p->dense) {
    size_t n = 3 * (size_t)p->nc;
    for (int r = 0; r < 3; r++) {
      const double* Gr = p->dense + (3 * (size_t)i + r) * n;
      double acc = 0;
      for (size_t k = 0; k < n; k++) acc += Gr[k] * x[k];
      out[r] += acc;
    }
    return;
  }
  if (p->diag_only) {
    yt_all(p, x, p->ywork);
    y_row(p, i, p->ywork, x, out);
    return;
  }
  block_row_add(p, i, x, out);
}

void solver_gdiag(const solver_problem* p, int i, double B[9]) {
  if (p->dense) {
    size_t n = 3 * (size_t)p->nc;
    for (int r = 0; r < 3; r++)
      for (int t = 0; t < 3; t++) B[3 * r + t] = p->dense[(3 * (size_t)i + r) * n + 3 * i + t];
    return;
  }
  memcpy(B, p->blk + 9 * (size_t)p->diag[i], 9 * sizeof(double));
}

// d plus the squares of yr[0..nz) in order; inline with nz constant (gtkk_y) the loop unrolls
static inline double sq_add(double d, const double* yr, int nz) {
  for (int j = 0; j < nz; j++) d += yr[j] * yr[j];
  return d;
}

// sq_add with a free body's 6 and two bodies' 12 entries constant (the same sums in order)
static double gtkk_y(double d, const double* yr, int nz) {
  switch (nz) {
    case 6: return sq_add(d, yr, 6);
    case 12: return sq_add(d, yr, 12);
    default: return sq_add(d, yr, nz);
  }
}

double solver_gtkk(const solver_problem* p, int k) {
  double d = p->R ? p->R[k] : 0;
  if (p->dense) return d + p->dense[(size_t)k * 3 * (size_t)p->nc + (size_t)k];
  if (p->blk) return d + p->blk[9 * (size_t)p->diag[k / 3] + 4 * (size_t)(k % 3)];
  // an island's factored form: its diagonal blocks hold 0 + Y's row k squared + ydiag, which is
  // this sum with R zero (R + the squares rounds otherwise)
  if (p->dblk && !p->R) return p->dblk[9 * (size_t)(k / 3) + 4 * (size_t)(k % 3)];
  d = gtkk_y(d, p->Y + (size_t)k * (size_t)p->ystride, p->ynz[k / 3]);
  return d + (p->ydiag ? p->ydiag[k] : 0);
}

double solver_gentry(const solver_problem* p, int a, int b) {
  if (p->dense) return p->dense[(size_t)a * 3 * (size_t)p->nc + b];
  if (p->diag_only && a / 3 != b / 3) {
    double B[9];
    solver_yblock(p, a / 3, b / 3, B);
    return B[3 * (a % 3) + b % 3];
  }
  int i = a / 3, j = b / 3, lo = p->rowptr[i], hi = p->rowptr[i + 1] - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (p->col[mid] == j) return p->blk[9 * (size_t)mid + 3 * (a % 3) + b % 3];
    if (p->col[mid] < j) lo = mid + 1; else hi = mid - 1;
  }
  return 0;
}

void solver_gcol_add(const solver_problem* p, int i, const double d[3], double* y) {
  if (p->dense) {
    size_t n = 3 * (size_t)p->nc;
    const double* G0 = p->dense + (3 * (size_t)i) * n;
    const double* G1 = G0 + n;
    const double* G2 = G1 + n;
    for (size_t k = 0; k < n; k++) y[k] += G0[k] * d[0] + G1[k] * d[1] + G2[k] * d[2];
    return;
  }
  if (p->diag_only) {
    // w = Y_i' d on i's chain, then y_j += Y_j w for every contact (ydiag on i's own rows)
    int s = p->ystride;
    double* w = p->ywork;
    const int* di = p->ydof + (size_t)i * s;
    const double *y0 = p->Y + 3 * (size_t)i * s, *y1 = y0 + s, *y2 = y1 + s;
    memset(w, 0, sizeof(double) * (size_t)p->nv);
    for (int k = 0; k < p->ynz[i]; k++) w[di[k]] = y0[k] * d[0] + y1[k] * d[1] + y2[k] * d[2];
    for (int j = 0; j < p->nc; j++) {
      const int* dj = p->ydof + (size_t)j * s;
      for (int r = 0; r < 3; r++) {
        const double* yr = p->Y + (3 * (size_t)j + r) * s;
        double acc = 0;
        for (int k = 0; k < p->ynz[j]; k++) acc += yr[k] * w[dj[k]];
        y[3 * j + r] += acc;
      }
    }
    if (p->ydiag)
      for (int r = 0; r < 3; r++) y[3 * i + r] += p->ydiag[3 * i + r] * d[r];
    return;
  }
  solver_gcol_blocks(p, i, d, y);
}

void solver_gdense(const solver_problem* p, const int* cons, int n, int* map, double* out) {
  size_t n3 = 3 * (size_t)n;
  memset(out, 0, sizeof(double) * n3 * n3);
  if (p->dense) {
    size_t N = 3 * (size_t)p->nc;
    for (int q = 0; q < n; q++)
      for (int u = 0; u < n; u++)
        for (int r = 0; r < 3; r++)
          for (int t = 0; t < 3; t++)
            out[(3 * (size_t)q + r) * n3 + 3 * (size_t)u + t] =
                p->dense[(3 * (size_t)cons[q] + r) * N + 3 * (size_t)cons[u] + t];
    return;
  }
  if (p->diag_only) {
    // block (q, u) for u >= q from Y (the diagonal from storage), mirrored below
    for (int q = 0; q < n; q++)
      for (int u = q; u < n; u++) {
        double B[9];
        if (u == q) memcpy(B, p->blk + 9 * (size_t)p->diag[cons[q]], sizeof(B));
        else solver_yblock(p, cons[q], cons[u], B);
        for (int r = 0; r < 3; r++)
          for (int t = 0; t < 3; t++) {
            out[(3 * (size_t)q + r) * n3 + 3 * (size_t)u + t] = B[3 * r + t];
            out[(3 * (size_t)u + t) * n3 + 3 * (size_t)q + r] = B[3 * r + t];
          }
      }
    return;
  }
  for (int i = 0; i < p->nc; i++) map[i] = -1;
  for (int q = 0; q < n; q++) map[cons[q]] = q;
  for (int q = 0; q < n; q++) {
    int i = cons[q];
    for (int k = p->rowptr[i]; k < p->rowptr[i + 1]; k++) {
      int u = map[p->col[k]];
      if (u < 0) continue;  // outside the set (not an island)
      const double* B = p->blk + 9 * (size_t)k;
      for (int r = 0; r < 3; r++)
        for (int t = 0; t < 3; t++) out[(3 * (size_t)q + r) * n3 + 3 * (size_t)u + t] = B[3 * r + t];
    }
  }
}

int solver_reads_offdiag(const solver_options* o) {
  if (o->kind == CSIM_SOLVER_AUTO && o->soft) return 0;  // newton first, ADMM its fallback
  return o->kind != CSIM_SOLVER_ADMM &&
         !(o->kind == CSIM_SOLVER_NEWTON && o->model == CSIM_MODEL_CCP);
}
