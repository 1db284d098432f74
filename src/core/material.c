// material.c — contact materials and MuJoCo-style softness (see material.h).
#include "core/material.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dynamics.h"
#include "core/kinematics.h"

const double mat_default_solimp[5] = {0.9, 0.95, 0.001, 0.5, 2};

// MuJoCo's bounds (mjmodel.h: mjMINIMP, mjMAXIMP; mjtnum.h: mjMINVAL)
#define MAT_MINVAL 1e-15
#define MAT_MINIMP 0.0001
#define MAT_MAXIMP 0.9999

mat_props mat_combine(csim_combine rule, mat_props a, mat_props b) {
  mat_props r;
  r.e = 0.5 * (a.e + b.e);
  switch (rule) {
    case CSIM_COMBINE_DRAKE: {
      // springs in series; each side's dissipation weighted by the other side's stiffness
      double ks = a.k + b.k, ms = a.mu + b.mu;
      r.k = a.k * b.k / ks;
      r.d = (b.k * a.d + a.k * b.d) / ks;
      r.mu = ms > 0 ? 2 * a.mu * b.mu / ms : 0;
      break;
    }
    case CSIM_COMBINE_MUJOCO:
      r.mu = a.mu > b.mu ? a.mu : b.mu;
      r.k = 0.5 * (a.k + b.k);
      r.d = 0.5 * (a.d + b.d);
      break;
    default:
      r.mu = 0.5 * (a.mu + b.mu);
      r.k = 0.5 * (a.k + b.k);
      r.d = 0.5 * (a.d + b.d);
      break;
  }
  return r;
}

// the explicit pair (model.h pair_*) of geoms g1 and g2, -1 when they are none
static int explicit_pair(const mat_table* t, int g1, int g2) {
  return t->pairs ? model_find_pair(t->pairs, g1, g2) : -1;
}

// MuJoCo's condim of a pair: an explicit pair's own, else the larger of the two (a geom that is
// not MJCF's counts as 3)
static int pair_condim(const mat_table* t, int g1, int g2) {
  int p = explicit_pair(t, g1, g2);
  if (p >= 0) return t->pair_condim[p];
  int a = t->geom_condim[g1] > 0 ? t->geom_condim[g1] : 3;
  int b = t->geom_condim[g2] > 0 ? t->geom_condim[g2] : 3;
  return a > b ? a : b;
}

int mat_pair_condim(const mat_table* t, int g1, int g2) {
  if (!t || !t->geom_condim || g1 < 0 || g2 < 0 || g1 >= t->ngeom || g2 >= t->ngeom) return 3;
  return pair_condim(t, g1, g2);
}

void mat_pair_spin(const mat_table* t, int g1, int g2, double spin[2]) {
  spin[0] = spin[1] = 0;
  if (!t || !t->geom_friction || g1 < 0 || g2 < 0 || g1 >= t->ngeom || g2 >= t->ngeom) return;
  int p = explicit_pair(t, g1, g2);
  if (p >= 0) {
    spin[0] = t->pair_friction[3 * p + 1], spin[1] = t->pair_friction[3 * p + 2];
    return;
  }
  for (int k = 0; k < 2; k++) {  // a side that is no MJCF geom has none (its zeros)
    double a = t->geom_friction[3 * g1 + 1 + k], b = t->geom_friction[3 * g2 + 1 + k];
    spin[k] = a > b ? a : b;
  }
}

// a side's sliding friction when the MJCF geoms bring theirs (geom_mu): the friction a material
// of the side's link gives, else the MJCF geom's friction[0], else (the scenario's ground, a URDF
// link) the global contact.friction; a material given for stiffness alone keeps the file's
// friction (its mu is only the global default)
static double side_mu(const mat_table* t, int g) {
  int i = t->geom_mat[g];
  if (i >= 0 && (t->mat_own_mu[i] || t->geom_condim[g] <= 0)) return t->mat[i].mu;
  return t->geom_condim[g] > 0 ? t->geom_friction[3 * g] : t->def.mu;
}

mat_props mat_pair(const mat_table* t, int g1, int g2) {
  if (!t || g1 < 0 || g2 < 0 || g1 >= t->ngeom || g2 >= t->ngeom) return t ? t->def : (mat_props){0, 0, 0, 0};
  int a = t->geom_mat[g1], b = t->geom_mat[g2];
  // two default sides: the global keys as they are
  mat_props r = a < 0 && b < 0 ? t->def
                               : mat_combine(t->combine, a < 0 ? t->def : t->mat[a],
                                             b < 0 ? t->def : t->mat[b]);
  // MJCF geoms' own sliding friction, mixed by MuJoCo's rule (mj_contactParam: the larger)
  if (t->geom_condim && t->geom_mu) {
    int p = explicit_pair(t, g1, g2);
    r.mu = p >= 0 ? t->pair_friction[3 * p] : fmax(side_mu(t, g1), side_mu(t, g2));
  }
  if (t->geom_condim && pair_condim(t, g1, g2) == 1) r.mu = 0;
  return r;
}

void mat_pair_soft(const mat_table* t, int g1, int g2, double solref[2], double solimp[5]) {
  static const double kRef[2] = {0.02, 1};   // MuJoCo's default geom solref
  memcpy(solref, t->solref, sizeof(t->solref));
  memcpy(solimp, t->solimp, sizeof(t->solimp));
  if (t->soft_global || !t->geom_condim || g1 < 0 || g2 < 0 || g1 >= t->ngeom || g2 >= t->ngeom)
    return;
  int p = explicit_pair(t, g1, g2);
  if (p >= 0) {
    memcpy(solref, t->pair_solref + 2 * p, 2 * sizeof(double));
    memcpy(solimp, t->pair_solimp + 5 * p, 5 * sizeof(double));
    return;
  }
  const double* r1 = t->geom_condim[g1] > 0 ? t->geom_solref + 2 * g1 : kRef;
  const double* r2 = t->geom_condim[g2] > 0 ? t->geom_solref + 2 * g2 : kRef;
  const double* i1 = t->geom_condim[g1] > 0 ? t->geom_solimp + 5 * g1 : mat_default_solimp;
  const double* i2 = t->geom_condim[g2] > 0 ? t->geom_solimp + 5 * g2 : mat_default_solimp;
  for (int k = 0; k < 2; k++)
    solref[k] = r1[0] > 0 && r2[0] > 0 ? 0.5 * r1[k] + 0.5 * r2[k] : fmin(r1[k], r2[k]);
  for (int k = 0; k < 5; k++) solimp[k] = 0.5 * i1[k] + 0.5 * i2[k];
}

// MuJoCo clamps dmin and dmax into [mjMINIMP, mjMAXIMP] (getsolparam): an impedance of 0 (the
// humanoid's solimplimit "0 .99 .01") would make R infinite
static double clamp_imp(double x) {
  return x < MAT_MINIMP ? MAT_MINIMP : x > MAT_MAXIMP ? MAT_MAXIMP : x;
}

double mat_impedance(const double solimp[5], double r) {
  double dmin = clamp_imp(solimp[0]), dmax = clamp_imp(solimp[1]), width = solimp[2];
  double mid = solimp[3], p = solimp[4];
  // flat function
  if (dmin == dmax || width <= MAT_MINVAL) return 0.5 * (dmin + dmax);
  double x = fabs(r / width);
  if (x >= 1) return dmax;
  if (x <= 0) return dmin;
  // y(x) = a x^p up to the midpoint, 1 - b (1-x)^p beyond (MuJoCo getimpedance)
  double y;
  if (p == 1)
    y = x;
  else if (x <= mid)
    y = pow(x, p) / pow(mid, p - 1);
  else
    y = 1 - pow(1 - x, p) / pow(1 - mid, p - 1);
  return dmin + y * (dmax - dmin);
}

void mat_soft_kb(const double solref[2], const double solimp[5], double dt, double* K, double* B) {
  double dmax = clamp_imp(solimp[1]);
  if (solref[0] > 0) {
    // standard [timeconst, dampratio], timeconst at least 2 dt (MuJoCo's refsafe)
    double tc = solref[0] > 2 * dt ? solref[0] : 2 * dt, z = solref[1];
    double den = dmax * dmax * tc * tc * z * z;
    *K = 1 / (den > MAT_MINVAL ? den : MAT_MINVAL);
    den = dmax * tc;
    *B = 2 / (den > MAT_MINVAL ? den : MAT_MINVAL);
  } else {
    // direct [-stiffness, -damping]
    double den = dmax * dmax;
    *K = -solref[0] / (den > MAT_MINVAL ? den : MAT_MINVAL);
    *B = -solref[1] / (dmax > MAT_MINVAL ? dmax : MAT_MINVAL);
  }
}

// translational inverse weight of each body at the current configuration: the mean diagonal of
// J_c M^-1 J_c' with J_c the (3 x nv) Jacobian of the body's centre of mass (MuJoCo's
// body_invweight0[2 b], mj_setConst)
static void body_invweights(const sim_model* m, sim_data* d, double* w) {
  int nv = m->nv;
  w[0] = 0;
  if (nv == 0) {
    for (int b = 1; b < m->nbody; b++) w[b] = 0;
    return;
  }
  dyn_crba(m, d);
  dyn_factor(m, d);
  int* dofs = calloc((size_t)m->maxdepth + 1, sizeof(int));
  double* jac = calloc(3 * ((size_t)m->maxdepth + 1), sizeof(double));
  double* x = calloc((size_t)nv, sizeof(double));
  for (int b = 1; b < m->nbody && dofs && jac && x; b++) {
    int n = kin_jac_point(m, d, b, d->xcom + 3 * b, dofs, jac, NULL);
    double acc = 0;
    // row r: x = M^-1 J_r', then J_r x
    for (int r = 0; r < 3; r++) {
      memset(x, 0, sizeof(double) * (size_t)nv);
      for (int k = 0; k < n; k++) x[dofs[k]] = jac[r * n + k];
      dyn_solve(m, d, x, 1);
      for (int k = 0; k < n; k++) acc += jac[r * n + k] * x[dofs[k]];
    }
    w[b] = acc / 3;
  }
  free(dofs);
  free(jac);
  free(x);
}

// the diagonal of M^-1 at d's configuration (after body_invweights: M factored there); a ball
// joint's three dofs share their mean (MuJoCo's dof_invweight0, which its cone limit uses)
static void dof_invweights(const sim_model* m, sim_data* d, double* w) {
  double* x = calloc((size_t)m->nv + 1, sizeof(double));
  for (int i = 0; i < m->nv && x; i++) {
    memset(x, 0, sizeof(double) * (size_t)m->nv);
    x[i] = 1;
    dyn_solve(m, d, x, 1);
    w[i] = x[i];
  }
  free(x);
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_type[j] != MODEL_JOINT_BALL) continue;
    double* wj = w + m->jnt_dofadr[j];
    wj[0] = wj[1] = wj[2] = (wj[0] + wj[1] + wj[2]) / 3;
  }
}

csim_status mat_alloc(const sim_model* m, int nmat, mat_props def, csim_combine rule,
                      mat_table** out, csim_error* err) {
  *out = NULL;
  mat_table* t = calloc(1, sizeof(*t));
  if (!t) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  t->combine = rule;
  t->def = def;
  t->ngeom = m->ngeom;
  t->nbody = m->nbody;
  t->geom_mat = malloc(sizeof(int) * (size_t)(m->ngeom > 0 ? m->ngeom : 1));
  t->mat = calloc((size_t)nmat + 1, sizeof(mat_props));
  t->mat_own_mu = calloc((size_t)nmat + 1, 1);
  t->body_invweight = calloc((size_t)m->nbody + 1, sizeof(double));
  if (!t->geom_mat || !t->mat || !t->mat_own_mu || !t->body_invweight) {
    mat_free(t);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  }
  for (int g = 0; g < m->ngeom; g++) t->geom_mat[g] = -1;
  t->nmat = nmat;
  *out = t;
  return CSIM_OK;
}

void mat_assign(mat_table* t, const sim_model* m, int i, mat_props p, int link) {
  t->mat[i] = p;
  for (int g = 0; g < m->ngeom; g++)
    if (link < 0 ? m->geom_type[g] == MODEL_GEOM_PLANE && m->geom_link[g] < 0
                 : m->geom_link[g] == link)
      t->geom_mat[g] = i;
}

void mat_set_soft(mat_table* t, const double solref[2], const double* solimp, const sim_model* m,
                  sim_data* d) {
  t->soft = 1;
  t->soft_global = 1;
  memcpy(t->solref, solref, sizeof(t->solref));
  memcpy(t->solimp, solimp ? solimp : mat_default_solimp, sizeof(t->solimp));
  body_invweights(m, d, t->body_invweight);
}

int mat_set_geoms(mat_table* t, const sim_model* m, int soft, sim_data* d) {
  int any = 0;
  for (int g = 0; g < m->ngeom; g++) any |= m->geom_condim[g] > 0;
  if (!any) return 0;
  t->geom_condim = m->geom_condim;
  t->geom_solref = m->geom_solref;
  t->geom_friction = m->geom_friction;
  t->geom_solimp = m->geom_solimp;
  if (m->npair > 0) {
    t->pairs = m;
    t->pair_condim = m->pair_condim;
    t->pair_friction = m->pair_friction;
    t->pair_solref = m->pair_solref;
    t->pair_solimp = m->pair_solimp;
  }
  if (soft && !t->soft) {
    t->soft = 1;
    t->solref[0] = 0.02, t->solref[1] = 1;
    memcpy(t->solimp, mat_default_solimp, sizeof(t->solimp));
    body_invweights(m, d, t->body_invweight);
    t->dof_invweight = calloc((size_t)m->nv + 1, sizeof(double));
    if (t->dof_invweight) {
      t->jnt_solref = m->jnt_solref;
      t->jnt_solimp = m->jnt_solimp;
      dof_invweights(m, d, t->dof_invweight);
    }
  }
  return 1;
}

int mat_limit_soft(const mat_table* t, const sim_model* m, int j, const double** solref,
                   const double** solimp, double* w) {
  if (!t || !t->jnt_solref || j < 0 || j >= m->njnt || t->jnt_solref[2 * j] == 0) return 0;
  *solref = t->jnt_solref + 2 * j;
  *solimp = t->jnt_solimp + 5 * j;
  *w = t->dof_invweight[m->jnt_dofadr[j]];
  return 1;
}

void mat_free(mat_table* t) {
  if (!t) return;
  free(t->geom_mat);
  free(t->mat);
  free(t->mat_own_mu);
  free(t->body_invweight);
  free(t->dof_invweight);
  free(t);
}
