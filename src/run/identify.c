// identify.c — contact parameter identification on cube tosses (see identify.h).
#include "run/identify.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/scenario.h"

#define NCAND 4   // candidates confirmed on the full training split: the grid's 3 best, the start

// a parameter to fit: contact key, bounds, log scale, starting guess
typedef struct {
  const char* key;
  double lo, hi;
  int log;
  double start;
  double sign;      // the key's value is sign * the fitted value (MuJoCo's direct solref is negative)
} fit_param;

// the parameters each model fits (rigid: friction and restitution, ccp: friction and MuJoCo's
// direct solref [-stiffness, -damping] with MuJoCo's default solimp, seed 003's MuJoCo parameters;
// compliant laws: friction, stiffness, damping) and the starting guess (the scenario defaults
// where they are usable, seed 003 Tab. II for ccp)
static int fit_params(int model, fit_param* p) {
  int k = 0;
  p[k++] = (fit_param){"friction", 0.02, 1.5, 1, 0.5, 1};
  switch (model) {
    case CSIM_MODEL_CCP:
      p[k++] = (fit_param){"solref.0", 300, 1e5, 1, 3850, -1};  // stiffness, N/(kg m)
      // damping, N s/(kg m): [5, 1000] reproduces the shipped fit (cubetoss_params.c); a wider
      // [5, 2e4] was tried and scored worse on the training split (0.2785 against 0.2715)
      p[k++] = (fit_param){"solref.1", 5, 1000, 1, 63, -1};
      break;
    case CSIM_MODEL_NCP:
    case CSIM_MODEL_LCP:
    case CSIM_MODEL_RAISIM:
    case CSIM_MODEL_RAISIM_DS:
      p[k++] = (fit_param){"restitution", 0.0, 0.9, 0, 0.0, 1};
      break;
    case CSIM_MODEL_HUNT_CROSSLEY:
    case CSIM_MODEL_BRISTLE:
      p[k++] = (fit_param){"stiffness", 1e3, 1e6, 1, 1e5, 1};
      p[k++] = (fit_param){"damping", 1e-2, 20, 1, 1.0, 1};  // d, s/m
      break;
    default:
      p[k++] = (fit_param){"stiffness", 1e3, 1e6, 1, 1e5, 1};
      p[k++] = (fit_param){"damping", 1e-1, 1e3, 1, 50, 1};  // c, N s/m
      break;
  }
  return k;
}

// u in [0, 1] -> parameter value
static double to_val(const fit_param* p, double u) {
  u = u < 0 ? 0 : u > 1 ? 1 : u;
  return p->log ? p->lo * pow(p->hi / p->lo, u) : p->lo + (p->hi - p->lo) * u;
}

static double to_u(const fit_param* p, double v) {
  return p->log ? log(v / p->lo) / log(p->hi / p->lo) : (v - p->lo) / (p->hi - p->lo);
}

// the fitted parameters at u as a params-file map body: "key: v, ...", solref.I gathered into
// "solref: [v0, v1]"
static void params_text(const fit_param* p, int np, const double* u, char* out, size_t n) {
  size_t len = 0;
  out[0] = 0;
  for (int k = 0; k < np && len < n; k++) {
    double v = p[k].sign * to_val(&p[k], u[k]);
    if (!strcmp(p[k].key, "solref.1")) continue;
    if (!strcmp(p[k].key, "solref.0")) {
      double v1 = NAN;
      for (int j = 0; j < np; j++)
        if (!strcmp(p[j].key, "solref.1")) v1 = p[j].sign * to_val(&p[j], u[j]);
      len += (size_t)snprintf(out + len, n - len, "%ssolref: [%.4g, %.4g]", len ? ", " : "", v, v1);
      continue;
    }
    len += (size_t)snprintf(out + len, n - len, "%s%s: %.4g", len ? ", " : "", p[k].key, v);
  }
}

// the objective of one model: mean e_q of its parameters at u over a set of tosses
typedef struct {
  const ct_data* d;
  ct_options o;
  const fit_param* p;
  int np;
  const char* name;
  ct_result* res;
  long evals;
  long steps;
  csim_error* err;
} objective;

// mean e_q over tosses idx (failed tosses count CT_FAIL_EQ) at u; -1 on an input error
static double eval_u(objective* ob, const double* u, const int* idx, int n) {
  ct_model m;
  memset(&m, 0, sizeof(m));
  snprintf(m.name, sizeof(m.name), "%s", ob->name);
  m.np = ob->np;
  for (int k = 0; k < ob->np; k++) {
    snprintf(m.key[k], sizeof(m.key[k]), "%s", ob->p[k].key);
    m.val[k] = ob->p[k].sign * to_val(&ob->p[k], u[k]);
  }
  if (ct_run(ob->d, &m, &ob->o, idx, n, ob->res, NULL, ob->err) != CSIM_OK) return -1;
  ob->evals++;
  for (int j = 0; j < n; j++) ob->steps += ob->res[j].steps;
  return ct_mean_eq(ob->res, n);
}

void id_split(const ct_data* d, const int* idx, int n, int* tr, int* ntr, int* ho, int* nho) {
  *ntr = *nho = 0;
  for (int j = 0; j < n; j++) {
    if (d->split_key[idx[j]] % 2 == 0) tr[(*ntr)++] = idx[j];
    else ho[(*nho)++] = idx[j];
  }
}

// the start of the search: the coarse grid on the subset, its 3 best points and the start u0
// (score f0) confirmed on the full training split; the best into *ubest (score *fbest); -1 on
// an input error
static int grid_start(objective* ob, const id_problem* pb, const double* u0, double f0,
                      double* ubest, double* fbest) {
  int np = ob->np;
  double cu[NCAND][CT_MAXP], cf[NCAND];
  double gu[27][CT_MAXP], gf[27];
  int ngrid = 1;
  for (int k = 0; k < np; k++) ngrid *= 3;
  if (ngrid > 27) ngrid = 27;
  const double lv[3] = {0.15, 0.5, 0.85};
  for (int gi = 0; gi < ngrid; gi++) {
    int r = gi;
    for (int k = 0; k < np; k++, r /= 3) gu[gi][k] = lv[r % 3];
    gf[gi] = eval_u(ob, gu[gi], pb->sub, pb->nsub);
    if (gf[gi] < 0) return -1;
  }
  int nc = 0;
  for (; nc < NCAND - 1 && nc < ngrid; nc++) {
    int b = -1;
    for (int gi = 0; gi < ngrid; gi++)
      if (gf[gi] >= 0 && (b < 0 || gf[gi] < gf[b])) b = gi;
    memcpy(cu[nc], gu[b], sizeof(cu[0]));
    gf[b] = -1;  // taken
  }
  memcpy(cu[nc], u0, sizeof(cu[0]));
  nc++;
  int best = nc - 1;
  *fbest = f0;
  cf[nc - 1] = f0;
  for (int c = 0; c < nc - 1; c++) {
    cf[c] = eval_u(ob, cu[c], pb->train, pb->ntrain);
    if (cf[c] < 0) return -1;
    if (cf[c] < *fbest) { *fbest = cf[c]; best = c; }
  }
  memcpy(ubest, cu[best], sizeof(cu[0]));
  return 0;
}

// the Nelder-Mead simplex S (np + 1 vertices, scores F) on the training split
typedef struct {
  objective* ob;
  const id_problem* pb;
  int np;
  int budget;     // evaluations left
  double S[CT_MAXP + 1][CT_MAXP], F[CT_MAXP + 1];
} simplex;

// score of u on the training split, one evaluation of the budget; -1 on an input error
static double nm_eval(simplex* s, const double* u) {
  s->budget--;
  return eval_u(s->ob, u, s->pb->train, s->pb->ntrain);
}

// vertices sorted by score (insertion sort: stable, as the simplex is nearly sorted)
static void nm_order(simplex* s) {
  for (int i = 1; i <= s->np; i++)
    for (int j = i; j > 0 && s->F[j] < s->F[j - 1]; j--) {
      double t = s->F[j]; s->F[j] = s->F[j - 1]; s->F[j - 1] = t;
      double tu[CT_MAXP];
      memcpy(tu, s->S[j], sizeof(tu));
      memcpy(s->S[j], s->S[j - 1], sizeof(tu));
      memcpy(s->S[j - 1], tu, sizeof(tu));
    }
}

// x = c + t (c - worst), clamped to [0, 1]
static void nm_point(const simplex* s, const double* c, double t, double* x) {
  for (int k = 0; k < s->np; k++) {
    x[k] = c[k] + t * (c[k] - s->S[s->np][k]);
    x[k] = x[k] < 0 ? 0 : x[k] > 1 ? 1 : x[k];
  }
}

// contraction towards the centroid c, else shrink towards the best vertex; -1 on an input error
static int nm_contract(simplex* s, const double* c) {
  int np = s->np;
  double xc[CT_MAXP];
  for (int k = 0; k < np; k++) xc[k] = c[k] + 0.5 * (s->S[np][k] - c[k]);
  double fc = nm_eval(s, xc);
  if (fc < 0) return -1;
  if (fc < s->F[np]) {
    memcpy(s->S[np], xc, sizeof(xc));
    s->F[np] = fc;
    return 0;
  }
  for (int i = 1; i <= np && s->budget > 0; i++) {
    for (int k = 0; k < np; k++) s->S[i][k] = s->S[0][k] + 0.5 * (s->S[i][k] - s->S[0][k]);
    s->F[i] = nm_eval(s, s->S[i]);
    if (s->F[i] < 0) return -1;
  }
  return 0;
}

// one iteration on the ordered simplex: reflection, expansion, contraction or shrink; -1 on an
// input error
static int nm_iterate(simplex* s) {
  int np = s->np;
  double c[CT_MAXP] = {0}, xr[CT_MAXP], xe[CT_MAXP];
  for (int i = 0; i < np; i++)
    for (int k = 0; k < np; k++) c[k] += s->S[i][k] / np;
  nm_point(s, c, 1, xr);
  double fr = nm_eval(s, xr);
  if (fr < 0) return -1;
  if (fr < s->F[0] && s->budget > 0) {
    nm_point(s, c, 2, xe);
    double fe = nm_eval(s, xe);
    if (fe < 0) return -1;
    if (fe < fr) { memcpy(s->S[np], xe, sizeof(xe)); s->F[np] = fe; }
    else { memcpy(s->S[np], xr, sizeof(xr)); s->F[np] = fr; }
    return 0;
  }
  if (fr < s->F[np - 1]) {
    memcpy(s->S[np], xr, sizeof(xr));
    s->F[np] = fr;
    return 0;
  }
  return nm_contract(s, c);
}

// Nelder-Mead from u (score f) within pb->max_evals evaluations; the best vertex into u, its
// score into *f; -1 on an input error
static int nelder_mead(objective* ob, const id_problem* pb, double* u, double* f) {
  simplex s;
  s.ob = ob;
  s.pb = pb;
  s.np = ob->np;
  s.budget = pb->max_evals;
  memcpy(s.S[0], u, sizeof(s.S[0]));
  s.F[0] = *f;
  for (int k = 0; k < s.np; k++) {
    memcpy(s.S[k + 1], s.S[0], sizeof(s.S[0]));
    s.S[k + 1][k] += s.S[0][k] > 0.9 ? -0.1 : 0.1;
    s.F[k + 1] = nm_eval(&s, s.S[k + 1]);
    if (s.F[k + 1] < 0) return -1;
  }
  while (s.budget > 0) {
    nm_order(&s);
    if (s.F[s.np] - s.F[0] < 1e-4) break;
    if (nm_iterate(&s)) return -1;
  }
  int ib = 0;
  for (int i = 1; i <= s.np; i++) if (s.F[i] < s.F[ib]) ib = i;
  memcpy(u, s.S[ib], sizeof(s.S[0]));
  *f = s.F[ib];
  return 0;
}

csim_status id_fit_model(const id_problem* pb, const char* model, ct_result* res, id_fit* out,
                         csim_error* err) {
  memset(out, 0, sizeof(*out));
  fit_param p[CT_MAXP];
  int np = fit_params(scn_name_index(csim_model_names, model), p);
  objective ob = {pb->d, pb->o, p, np, model, res, 0, 0, err};
  double u0[CT_MAXP] = {0}, u[CT_MAXP] = {0};
  for (int k = 0; k < np; k++) u0[k] = to_u(&p[k], p[k].start);
  double f0 = eval_u(&ob, u0, pb->train, pb->ntrain), f = 0;
  int bad = f0 < 0 || grid_start(&ob, pb, u0, f0, u, &f) || nelder_mead(&ob, pb, u, &f);
  double fho = bad || !pb->nheld ? NAN : eval_u(&ob, u, pb->held, pb->nheld);
  if (bad || (pb->nheld && fho < 0)) return CSIM_ERR_INPUT;
  out->f0 = f0;
  out->ftrain = f;
  out->fheld = fho;
  out->evals = ob.evals;
  out->steps = ob.steps;
  params_text(p, np, u, out->fitted, sizeof(out->fitted));
  return CSIM_OK;
}
