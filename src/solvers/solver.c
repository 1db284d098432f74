// solver.c — solver dispatch, workspace and the common residual (see solver.h).
#include "solver.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cone.h"
#include "solvers/solver_impl.h"

const char* const solver_model_names[SOLVER_NMODELS] = {"ncp", "ccp", "lcp", "raisim",
                                                        "raisim_ds"};
const char* const solver_kind_names[SOLVER_NKINDS] = {"pgs", "lemke", "admm", "staggered",
                                                      "bisection"};

// the pairs of DESIGN.md's table that this build implements, one row each
static const struct {
  solver_model model;
  solver_kind kind;
  solver_fn fn;
} kPairs[] = {
    {SOLVER_MODEL_NCP, SOLVER_PGS, solver_pgs},  // 000 Alg. 5
    {SOLVER_MODEL_CCP, SOLVER_PGS, solver_ccp_pgs},      // 000 Alg. 2
    {SOLVER_MODEL_LCP, SOLVER_PGS, solver_lcp_pgs},      // 000 Alg. 1
    {SOLVER_MODEL_LCP, SOLVER_LEMKE, solver_lcp_lemke},  // 000 Sec. III, Lemke
    {SOLVER_MODEL_RAISIM, SOLVER_BISECTION, solver_raisim},        // 000 Alg. 4
    {SOLVER_MODEL_RAISIM_DS, SOLVER_BISECTION, solver_raisim_ds},  // 002 Alg. 1
    {SOLVER_MODEL_CCP, SOLVER_ADMM, solver_ccp_admm},  // 000 Alg. 3
    {SOLVER_MODEL_NCP, SOLVER_ADMM, solver_ncp_admm},  // 000 Sec. III, de Saxce fixed point
    {SOLVER_MODEL_NCP, SOLVER_STAGGERED, solver_ncp_staggered},  // 000 Alg. 6
};
#define NPAIRS ((int)(sizeof(kPairs) / sizeof(kPairs[0])))

// the family for a pair, NULL when the pair is not in the table
static solver_fn pair_fn(solver_model model, solver_kind kind) {
  for (int k = 0; k < NPAIRS; k++)
    if (kPairs[k].model == model && kPairs[k].kind == kind) return kPairs[k].fn;
  return NULL;
}

int solver_pair_supported(solver_model model, solver_kind kind, char* msg, int n) {
  if ((int)model < 0 || model >= SOLVER_NMODELS || (int)kind < 0 || kind >= SOLVER_NKINDS)
    return 0;
  if (pair_fn(model, kind)) return 1;
  if (msg && n > 0) {
    int k = snprintf(msg, (size_t)n,
                     "model '%s' with solver '%s' is not available; valid model/solver pairs: ",
                     solver_model_names[model], solver_kind_names[kind]);
    for (int p = 0; p < NPAIRS && k < n; p++)
      k += snprintf(msg + k, (size_t)(n - k), "%s%s/%s", p ? ", " : "",
                    solver_model_names[kPairs[p].model], solver_kind_names[kPairs[p].kind]);
  }
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
  if (max_contacts < 0) max_contacts = 0;
  solver* s = calloc(1, sizeof(*s));
  if (!s) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  s->opt = *opt;
  s->maxc = max_contacts;
  size_t n3 = 3 * (size_t)(max_contacts > 0 ? max_contacts : 1);
  s->fn = pair_fn(opt->model, opt->kind);
  s->c = calloc(n3, sizeof(double));
  s->tinv = calloc(n3 / 3 * 4, sizeof(double));
  s->nwork = SOLVER_WORK(max_contacts > 0 ? max_contacts : 1);
  if (opt->model == SOLVER_MODEL_LCP) {  // pyramid polygon and Lemke's tableau (lcp.c)
    csim_status st = solver_lcp_work(opt, max_contacts, &s->nwork, err);
    if (st != CSIM_OK) {
      solver_free(s);
      return st;
    }
  }
  s->work = calloc(s->nwork, sizeof(double));
  s->dual_out = calloc(n3, sizeof(double));
  if (!s->c || !s->tinv || !s->work || !s->dual_out) {
    solver_free(s);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  }
  *out = s;
  return CSIM_OK;
}

size_t solver_bytes(const solver_options* opt, int max_contacts) {
  size_t mc = (size_t)(max_contacts > 0 ? max_contacts : 1), n3 = 3 * mc;
  size_t nwork = SOLVER_WORK(mc);
  if (opt->model == SOLVER_MODEL_LCP && solver_lcp_work(opt, (int)mc, &nwork, NULL) != CSIM_OK)
    return SIZE_MAX;  // Lemke's tableau past its own limit
  // the callocs of solver_create: c, tinv, work, dual_out
  return sizeof(solver) + (n3 + 4 * mc + nwork + n3) * sizeof(double);
}

void solver_free(solver* s) {
  if (!s) return;
  free(s->c);
  free(s->tinv);
  free(s->work);
  free(s->dual_out);
  free(s);
}

void solver_residuals_of(const solver_problem* p, const double* lambda, const double* c,
                         solver_result* res) {
  double ep = 0, ed = 0, ec = 0;
  for (int i = 0; i < p->nc; i++) {
    double a, b, d;
    cone_residuals(lambda + 3 * i, c + 3 * i, p->mu[i], &a, &b, &d);
    if (a > ep) ep = a;
    if (b > ed) ed = b;
    if (d > ec) ec = d;
  }
  res->eps_p = ep;
  res->eps_d = ed;
  res->eps_c = ec;
  res->eps_abs = ep > ed ? (ep > ec ? ep : ec) : (ed > ec ? ed : ec);
}

void solver_residuals(const solver_problem* p, const double* lambda, double* c,
                      solver_result* res) {
  int n = 3 * p->nc;
  double ep = 0, ed = 0, ec = 0;
  for (int i = 0; i < p->nc; i++) {
    double ci[3];
    for (int r = 0; r < 3; r++) {
      const double* Gr = p->G + (size_t)(3 * i + r) * n;
      double acc = p->g[3 * i + r];
      for (int k = 0; k < n; k++) acc += Gr[k] * lambda[k];
      if (p->R) acc += p->R[3 * i + r] * lambda[3 * i + r];
      ci[r] = acc;
      if (c) c[3 * i + r] = acc;
    }
    double a, b, d;
    cone_residuals(lambda + 3 * i, ci, p->mu[i], &a, &b, &d);
    if (a > ep) ep = a;
    if (b > ed) ed = b;
    if (d > ec) ec = d;
  }
  res->eps_p = ep;
  res->eps_d = ed;
  res->eps_c = ec;
  res->eps_abs = ep > ed ? (ep > ec ? ep : ec) : (ed > ec ? ed : ec);
}

void solver_solve(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  memset(res, 0, sizeof(*res));
  if (p->nc == 0) {
    res->converged = 1;
    return;
  }
  if (p->nc > s->maxc) {  // the caller sized the solver too small: report, never overflow
    res->eps_abs = res->eps_p = res->eps_d = res->eps_c = INFINITY;
    return;
  }
  for (int k = 0; k < 3 * p->nc; k++) s->dual_out[k] = NAN;  // families with a dual fill it
  s->fn(s, p, lambda, res);
  s->dual_in = NULL;  // a warm dual serves one solve
  // with the NCP criterion, convergence also needs the NCP residual of the problem solved
  // (G + R) at the answer handed back, for every model (the families stop on max(their model's
  // residual, NCP residual): solver_stop_of; this makes the contract independent of them)
  if (solver_stop_ncp(s)) {
    solver_result r;
    solver_residuals(p, lambda, NULL, &r);
    if (!isnan(res->residual) && !(r.eps_abs <= res->residual)) res->residual = r.eps_abs;
    res->converged = res->residual <= s->opt.tolerance;
  }
  // physical accuracy of the answer, the same for every model (000 eq. 14, R excluded)
  solver_problem phys = *p;
  phys.R = NULL;
  solver_residuals(&phys, lambda, s->c, res);
}

void solver_set_dual(solver* s, const double* dual0) {
  s->dual_in = dual0;
}

const double* solver_dual(const solver* s) {
  return s->dual_out;
}

int solver_stop_ncp(const solver* s) {
  return s->opt.criterion == SOLVER_STOP_NCP;
}

double solver_stop_of(const solver* s, const solver_problem* p, const double* lambda,
                      const double* c, double q) {
  if (!solver_stop_ncp(s) || isnan(q)) return q;
  solver_result r;
  solver_residuals_of(p, lambda, c, &r);
  return r.eps_abs > q ? r.eps_abs : q;
}

const double* solver_velocity(const solver* s) {
  return s->c;
}
