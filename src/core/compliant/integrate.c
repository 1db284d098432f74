// integrate.c — the force law and its integrator: the compliant family's part of the step
// (seed 001; force laws in compliant.h; the outline is sim.c's).
//
// Outline (sim_step, for a compliant model):
//   kinematics -> collision -> dynamics (M, factor, actions, bias) -> free velocity v_f
//   -> contact frames, J, G = J M^-1 J', g = J v_f - c* at q0 (contact_build)
//   -> integrator: semi_implicit | tamsi (contact-space Newton + TALS at frozen q0)
//                  | implicit_euler (Newton on v + TALS, geometry re-evaluated)
//   -> lambda = h f, v+ = v_f + M^-1 J' lambda, q+ = q0 ⊕ h v+
//   -> eps_abs of lambda on (G, g) (000 eq. 14), penetration and stiction statistics.
//
// semi_implicit and tamsi (001 Sec. V): q, M, J frozen at the start of the step. With
// v = v_f + M^-1 J' (h f) the contact velocities vc = J v satisfy
//   R(vc) = vc - vc* - h G f(vc) = 0,      vc* = J v_f,                               (*)
// which is J M^-1 times the momentum residual of 001 eq. 12 (semi-implicit) / eq. 21 (TAMSI):
// (*) and eq. 21 have the same solutions (vc determines f, and v follows), so Newton runs on the
// 3 nc contact velocities instead of the nv generalized ones, with Jacobian I - h G df/dvc
// (001 eqs. 17, 20, 23 multiplied by J M^-1). semi_implicit freezes the normal forces at the
// start of the step (001 Sec. V-A, one-way coupling: explicit in the normal compliance);
// tamsi takes them at delta = delta0 - h vn (001 eq. 19, two-way coupling, W_nn and W_tn).
// The update is limited by TALS (001 Sec. III-A). The free velocity keeps gravity, Coriolis and
// actions explicit (p* of 001 eq. 11).
//
// implicit_euler (001 Sec. III, the comparison of Sec. VI): v+ solves
//   r(v) = v - v0 - h a(q0 ⊕ h v, v) = 0,   a = M^-1 (tau_actions - b + J' f_ext + J_c' f_c),
// everything (kinematics, collision, M, bias, actions, contact forces) evaluated at the end of
// the step; Newton with a forward-difference Jacobian (nv + 1 evaluations per iteration, as the
// Drake integrators of 001 Sec. IV) and TALS on the tangential velocities of the start-of-step
// contacts (J frozen at q0 for the line search only, 001 Sec. III-A). The recorded contacts,
// forces and eps_abs are those of the end-of-step configuration.
//
// Line search: TALS first; then, as a safeguard, backtracking on |R|^2 (Armijo; the Newton
// direction always descends it): from the first iteration for implicit_euler (whose Newton
// diverged from penetrating initial states without it), only after CMPL_BACKTRACK_AFTER
// iterations for semi_implicit/tamsi (where it would slow TALS's transitions, 001 Fig. 4).
// integrator.line_search = backtracking drops TALS, none drops both (plain Newton, 001's
// "without TALS"). With output.newton_history the residual of every iterate of the step's first
// solve is kept (cmpl_data.hist, 001 Fig. 4).
//
// Newton stops when the max-norm of the residual is <= integrator.newton_tolerance or after
// integrator.newton_max_iterations updates. A step whose Newton fails is retaken from the same
// state in 2, 4, ... 2^CMPL_MAX_HALVINGS equal substeps (convergence control, 001 Sec. III-B);
// if even those fail the last iterate is kept, the step is counted (SIM_WARN_NONCONVERGED) and
// reported through info->solve.converged, which solver.on_failure acts on (stop: exit 1).
// With integrator.accuracy the step is error-controlled instead (sim.c: variable substeps, step
// doubling, Drake's step-size rule); under integrator.error_estimate: trapezoid implicit_euler is
// Drake's ImplicitEulerIntegrator (newton_drake, trapezoid_estimate); integrator.jacobian:
// quasi_newton reuses implicit_euler's Jacobian (ie_newton_matrix). Work (dynamics evaluations, Jacobians, factorizations) is counted
// in cmpl_data.work.
#include <float.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "core/compliant/compliant.h"
#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/material.h"
#include "core/compliant/integrate.h"
#include "core/stage.h"


// LU factorization with partial pivoting of the n x n row-major matrix A, in place; 0 when
// singular
static int lu_factor(int n, double* A, int* piv) {
  for (int k = 0; k < n; k++) {
    int p = k;
    double best = fabs(A[(size_t)k * n + k]);
    for (int i = k + 1; i < n; i++) {
      double a = fabs(A[(size_t)i * n + k]);
      if (a > best) { best = a; p = i; }
    }
    piv[k] = p;
    if (!(best > 0) || !isfinite(best)) return 0;
    if (p != k)
      for (int j = 0; j < n; j++) {
        double t = A[(size_t)k * n + j];
        A[(size_t)k * n + j] = A[(size_t)p * n + j];
        A[(size_t)p * n + j] = t;
      }
    double inv = 1 / A[(size_t)k * n + k];
    for (int i = k + 1; i < n; i++) {
      double l = A[(size_t)i * n + k] * inv;
      A[(size_t)i * n + k] = l;
      if (l == 0) continue;
      for (int j = k + 1; j < n; j++) A[(size_t)i * n + j] -= l * A[(size_t)k * n + j];
    }
  }
  return 1;
}

// solve A x = b in place with the factors of lu_factor
static void lu_solve(int n, const double* A, const int* piv, double* b) {
  // the row interchanges first (the factors' rows were swapped as a whole), then L y = P b
  for (int k = 0; k < n; k++)
    if (piv[k] != k) {
      double t = b[k];
      b[k] = b[piv[k]];
      b[piv[k]] = t;
    }
  for (int k = 0; k < n; k++)
    for (int i = k + 1; i < n; i++) b[i] -= A[(size_t)i * n + k] * b[k];
  for (int i = n - 1; i >= 0; i--) {
    double acc = b[i];
    for (int j = i + 1; j < n; j++) acc -= A[(size_t)i * n + j] * b[j];
    b[i] = acc / A[(size_t)i * n + i];
  }
}

// out (3) = rows t1 t2 n of contact i's Jacobian times v
static void contact_vel(const contact_data* con, int i, const double* v, double out[3]) {
  int mc = con->maxchain;
  const int* chain = con->chain + (size_t)i * mc;
  const double* J = con->J + (size_t)i * 3 * mc;
  for (int r = 0; r < 3; r++) {
    double acc = 0;
    for (int k = 0; k < con->nchain[i]; k++) acc += J[r * mc + k] * v[chain[k]];
    out[r] = acc;
  }
}

// what the law's evaluations read besides the data: the compliant options and the materials
typedef struct {
  const cmpl_options* o;
  const mat_table* mat;  // NULL: o->p for every contact
} law_ctx;

// the law's parameters at contact i of con: mu, k, d of the pair's materials (material.h), or
// the global ones
static const cmpl_params* law_at(const law_ctx* L, const contact_data* con, int i,
                                 cmpl_params* tmp) {
  return cmpl_law_at(L->o, L->mat, con, i, tmp);
}

// the contact options of a compliant run: no Baumgarte or restitution target in c*
static contact_options metric_options(const sim_options* o, double h) {
  contact_options co = o->contact;
  co.dt = h;
  co.baumgarte = 0;
  co.restitution = 0;
  co.warm_start = 0;
  return co;
}

// evaluate the law at every contact for the contact velocities c->vc: forces c->f, Jacobian
// blocks c->A
static void eval_all(cmpl_data* c, const law_ctx* L, const contact_data* con, int nc) {
  for (int i = 0; i < nc; i++) {
    cmpl_params tmp;
    cmpl_force(law_at(L, con, i, &tmp), &c->pt[i], c->vc + 3 * i, &c->ev[i]);
    memcpy(c->f + 3 * i, c->ev[i].f, 3 * sizeof(double));
    memcpy(c->A + 9 * i, c->ev[i].dfdv, 9 * sizeof(double));
  }
}

// keep the residual of iterate it in the history while the step's first solve runs (001 Fig. 4)
static void hist_put(cmpl_data* c, int it, double res) {
  if (c->hist_on && it < c->nhist) c->hist[it] = res;
}

// the stop test of both Newton loops at iterate `it` with residual max-norm res: converged
// (res <= integrator.newton_tolerance), or the iteration cap, or a non-finite residual
static int newton_done(cmpl_data* c, const cmpl_options* o, int it, double res) {
  c->residual = res;
  hist_put(c, it, res);
  if (res <= o->tolerance) {
    c->converged = 1;
    return 1;
  }
  return it >= o->max_iterations || !isfinite(res);
}

// TALS: the smallest alpha over contacts for the tangential parts of vc and its update dvc
static double tals(const cmpl_data* c, int nc, const double* vc, const double* dvc) {
  double alpha = 1;
  for (int i = 0; i < nc; i++) {
    const cmpl_eval* e = &c->ev[i];
    double v[2] = {vc[3 * i] - e->center[0], vc[3 * i + 1] - e->center[1]};
    double a = cmpl_tals_alpha(v, dvc + 3 * i, e->radius, CMPL_THETA_MAX);
    if (a < alpha) alpha = a;
  }
  return alpha;
}

// contact i's rows of R = vc - vc* - h G f (the frozen step's residual, (*) above), with
// (G f)_i over the blocks of row i
static void residual_rows(const solver_problem* gp, int i, const double* f, const double* vc,
                          const double* vstar, double h, double e[3]) {
  double gf[3] = {0, 0, 0};
  solver_grow_add(gp, i, f, gf);
  for (int r = 0; r < 3; r++) e[r] = vc[3 * i + r] - vstar[3 * i + r] - h * gf[r];
}

// |R(vc)|^2 for trial contact velocities vc (forces evaluated into c->ev, c->f, c->A)
static double residual_sq(cmpl_data* c, const law_ctx* L, const contact_data* con, int nc,
                          double h,
                          const double* vc) {
  for (int i = 0; i < nc; i++) {
    cmpl_params tmp;
    cmpl_force(law_at(L, con, i, &tmp), &c->pt[i], vc + 3 * i, &c->ev[i]);
    memcpy(c->f + 3 * i, c->ev[i].f, 3 * sizeof(double));
  }
  double phi = 0;
  solver_problem gp = contact_problem(con);
  for (int i = 0; i < nc; i++) {
    double e[3];
    residual_rows(&gp, i, c->f, vc, c->vstar, h, e);
    for (int r = 0; r < 3; r++) phi += e[r] * e[r];
  }
  return isfinite(phi) ? phi : INFINITY;
}

// semi_implicit / tamsi: Newton on (*) with TALS at frozen q0; fills con->lambda = h f
static void solve_frozen(const law_ctx* L, step_data* sd, double h) {
  cmpl_data* c = sd->cmpl;
  contact_data* con = sd->con;
  const sim_data* d = sd->d;
  int nc = con->ncon, n3 = 3 * nc;
  int semi = L->o->scheme == CSIM_SCHEME_SEMI_IMPLICIT;

  // the law's view of each contact; initial guess vc = J v0 (the velocity before the step)
  for (int i = 0; i < nc; i++) {
    cmpl_point* pt = &c->pt[i];
    double v0c[3];
    contact_vel(con, i, d->v, v0c);
    memset(pt, 0, sizeof(*pt));
    pt->delta0 = con->con[i].depth;
    pt->h = h;
    if (semi) {
      pt->frozen = 1;
      cmpl_params tmp;
      pt->pi0 = cmpl_normal(law_at(L, con, i, &tmp), pt->delta0, v0c[2], NULL, NULL);
    } else {
      pt->hpen = h;
    }
    cmpl_lookup_state(L->o, c, con, i, pt->x0);
    memcpy(c->x0 + 2 * i, pt->x0, 2 * sizeof(double));
    memcpy(c->vc + 3 * i, v0c, sizeof(v0c));
    // vc* = J v_f = g + c*
    c->vstar[3 * i] = con->g[3 * i];
    c->vstar[3 * i + 1] = con->g[3 * i + 1];
    c->vstar[3 * i + 2] = con->g[3 * i + 2] + con->cstar[i];
  }

  c->iterations = 0;
  c->converged = 0;
  c->residual = 0;
  for (int it = 0;; it++) {
    // forces and residual R = vc - vc* - h G f at the current iterate
    eval_all(c, L, con, nc);
    double res = 0;
    solver_problem gp = contact_problem(con);
    for (int i = 0; i < nc; i++) {
      residual_rows(&gp, i, c->f, c->vc, c->vstar, h, c->R + 3 * i);
      for (int r = 0; r < 3; r++) {
        int a = 3 * i + r;
        if (!isfinite(c->R[a])) res = INFINITY;
        else if (fabs(c->R[a]) > res) res = fabs(c->R[a]);
      }
    }
    if (newton_done(c, L->o, it, res)) break;
    // Newton matrix I - h G A (A block diagonal, 3x3 per contact)
    // (dense LU of its own; G's blocks give the nonzero 3x3 blocks of G A)
    memset(c->N, 0, sizeof(double) * (size_t)n3 * (size_t)n3);
    for (int i = 0; i < nc; i++)
      for (int k = gp.rowptr[i]; k < gp.rowptr[i + 1]; k++) {
        int j = gp.col[k];
        const double* B = gp.blk + 9 * (size_t)k;
        const double* Aj = c->A + 9 * j;
        for (int r = 0; r < 3; r++) {
          double* Na = c->N + (size_t)(3 * i + r) * n3;
          const double* g = B + 3 * r;
          for (int col = 0; col < 3; col++)
            Na[3 * j + col] = -h * (g[0] * Aj[col] + g[1] * Aj[3 + col] + g[2] * Aj[6 + col]);
        }
      }
    for (int a = 0; a < n3; a++) c->N[(size_t)a * n3 + a] += 1;
    c->work[1]++;  // an analytic Jacobian and its factorization per iteration
    c->work[2]++;
    if (!lu_factor(n3, c->N, c->piv)) break;
    for (int a = 0; a < n3; a++) c->dvc[a] = -c->R[a];
    lu_solve(n3, c->N, c->piv, c->dvc);
    double alpha = cmpl_tals_on(L->o) ? tals(c, nc, c->vc, c->dvc) : 1;
    // safeguard: backtrack from the TALS step until |R| decreases (Armijo on |R|^2; the Newton
    // direction always descends it), at most CMPL_BACKTRACK halvings
    if (cmpl_backtrack_on(L->o) && it >= CMPL_BACKTRACK_AFTER) {
      double phi0 = 0;
      for (int a = 0; a < n3; a++) phi0 += c->R[a] * c->R[a];
      for (int k = 0; k < CMPL_BACKTRACK; k++) {
        for (int a = 0; a < n3; a++) c->vtry[a] = c->vc[a] + alpha * c->dvc[a];
        if (residual_sq(c, L, con, nc, h, c->vtry) <= (1 - 1e-4 * alpha) * phi0) break;
        alpha *= 0.5;
      }
    }
    for (int a = 0; a < n3; a++) c->vc[a] += alpha * c->dvc[a];
    c->iterations++;
  }

  // impulses and per-contact results at the final iterate
  for (int i = 0; i < nc; i++) {
    const cmpl_eval* e = &c->ev[i];
    for (int r = 0; r < 3; r++) con->lambda[3 * i + r] = h * e->f[r];
    c->x1[3 * i] = e->x1[0];
    c->x1[3 * i + 1] = e->x1[1];
    c->x1[3 * i + 2] = 0;
    c->stick[i] = e->stick;
    c->slip[i] = hypot(c->vc[3 * i], c->vc[3 * i + 1]);
  }
}

// what ie_residual evaluates (cmpl_data.res_mode): the implicit Euler residual, the implicit
// trapezoid's (integrator.error_estimate: trapezoid), or h a(q0, v0) for the trapezoid's start
enum { IE_STEP, TR_STEP, TR_START };

// implicit Euler: r(v) = v - v0 - h a(q0 ⊕ h v, v) at trial v (c->vk-sized); implicit trapezoid
// (res_mode TR_STEP): r(v) = v - v0 - h/2 (a(q0 ⊕ h (v0 + v)/2, v) + a0), a0h = h a0; TR_START:
// r = -h a(q0, v0) at v = v0, t_end = t0. Contacts, forces (lambda = h f) and per-contact
// results of the evaluated configuration land in c->con_eval
static void ie_residual(const step_model* sm, step_data* sd, const sim_options* o, double h,
                        const double* v, double t_end, double* r, int* dropped) {
  const law_ctx law = {&o->cmpl, sm->mat}, *L = &law;
  cmpl_data* c = sd->cmpl;
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  contact_data* ce = c->con_eval;
  int nv = m->nv;
  contact_options copt = metric_options(o, h);
  c->work[0]++;

  // the end-of-step configuration and velocity (the start's for TR_START)
  if (c->res_mode == TR_START) {
    memcpy(d->q, c->q0, sizeof(double) * (size_t)m->nq);
  } else if (c->res_mode == TR_STEP) {
    double* vq = c->a0h + nv;
    for (int k = 0; k < nv; k++) vq[k] = 0.5 * (c->v0[k] + v[k]);
    kin_integrate(m, c->q0, vq, h, d->q);
  } else {
    kin_integrate(m, c->q0, v, h, d->q);
  }
  memcpy(d->v, v, sizeof(double) * (size_t)nv);
  d->time = t_end;
  kin_forward(m, d);
  kin_velocity(m, d);
  int ncon = 0;
  int nd =
      coll_detect(sm->coll, sd->coll, m, d->geom_xpos, d->geom_xmat, ce->con, sm->maxgeom, &ncon);
  if (nd > 0) *dropped = ncon + nd;  // contacts found (sim_contact_overflow)
  ce->ncon = ncon;
  ce->nlimit = 0;
  ce->nreduced = coll_reduced(sd->coll, &ce->nreduced_touch);
  dyn_crba(m, d);
  dyn_factor(m, d);
  stage_actions(sm, sd, o);
  stage_limit_springs(sm, sd, o, 0);
  stage_passive(sm, sd, o, 0);
  dyn_rnea(m, d, NULL, NULL, sd->tau);
  // G past its block bound (never for a true bound, contact.h): stop the run as an overflow
  if (contact_build(m, d, ce, &copt, v) != 0) {
    *dropped = ncon + 1;
    ce->ncon = 0;
  }

  // contact forces at the evaluated configuration (delta from the geometry, hpen = 0)
  for (int i = 0; i < ncon; i++) {
    cmpl_point pt;
    cmpl_eval e;
    double vc[3];
    memset(&pt, 0, sizeof(pt));
    pt.delta0 = ce->con[i].depth;
    pt.h = h;
    cmpl_lookup_state(L->o, c, ce, i, pt.x0);
    contact_vel(ce, i, v, vc);
    cmpl_params tmp;
    cmpl_force(law_at(L, ce, i, &tmp), &pt, vc, &e);
    for (int k = 0; k < 3; k++) ce->lambda[3 * i + k] = h * e.f[k];
    c->x1[3 * i] = e.x1[0];
    c->x1[3 * i + 1] = e.x1[1];
    c->x1[3 * i + 2] = 0;
    c->stick[i] = e.stick;
    c->slip[i] = hypot(vc[0], vc[1]);
  }

  // r = v - v0 - h M^-1 (tau_applied + J'f_ext + tau_limit - b) - M^-1 J_c' (h f)
  for (int k = 0; k < nv; k++)
    r[k] = sd->qfrc_ext[k] + sd->qfrc_limit[k] + sd->qfrc_passive[k] - sd->tau[k];
  dyn_solve(m, d, r, 1);
  memset(c->tmp, 0, sizeof(double) * (size_t)nv);
  contact_apply(m, d, ce, c->tmp);
  if (c->res_mode == TR_STEP)
    for (int k = 0; k < nv; k++) r[k] = v[k] - c->v0[k] - 0.5 * (h * r[k] + c->tmp[k] + c->a0h[k]);
  else
    for (int k = 0; k < nv; k++) r[k] = v[k] - c->v0[k] - h * r[k] - c->tmp[k];
}

// max-norm (infinity for a non-finite entry)
static double maxnorm(const double* x, int n) {
  double r = 0;
  for (int k = 0; k < n; k++) {
    if (!isfinite(x[k])) return INFINITY;
    if (fabs(x[k]) > r) r = fabs(x[k]);
  }
  return r;
}

// forward-difference Jacobian of r at c->vk (c->r = r(vk)) into Jr (row-major nv x nv), column
// by column: nv dynamics evaluations, which 001 Sec. IV-A counts as work
static void ie_fd_jacobian(const step_model* sm, step_data* sd, const sim_options* o, double h,
                           double t_end, int* dropped) {
  cmpl_data* c = sd->cmpl;
  int nv = sm->m->nv;
  for (int j = 0; j < nv; j++) {
    double vj = c->vk[j], eps = 1e-7 * (fabs(vj) > 1 ? fabs(vj) : 1);
    c->vk[j] = vj + eps;
    ie_residual(sm, sd, o, h, c->vk, t_end, c->r2, dropped);
    c->vk[j] = vj;
    for (int i = 0; i < nv; i++) c->Jr[(size_t)i * nv + j] = (c->r2[i] - c->r[i]) / eps;
  }
  c->work[1]++;
}

// the factors of the Newton matrix in Jr at iterate `it` of the step ending at t_end (res, res_prev: the residual max-norms
// of this iterate and the previous one). full: a fresh Jacobian every iteration. quasi_newton
// (001 Sec. III-B, Hairer-Wanner IV.8, as Drake's implicit integrators): the Jacobian of the
// acceleration Jd = (I - J_r) / h is kept across iterations and steps, the matrix I - h Jd is
// refactored only when h changes, and a fresh Jacobian is taken when there is none (first step,
// after a failed solve) or the last iteration shrank the residual by less than CMPL_QN_RATE.
// The h^2 term of J_r (through q0 + h v) then scales as h, not h^2: quasi-Newton tolerates it.
// 0: the matrix is singular
// The trapezoid's residual weighs a by h/2: its matrix is I - (h/2) Jd, refactored when the
// solves alternate. res_prev = INFINITY: no refresh on the rate (Drake's loop, which retries a
// failed solve instead)
static int ie_newton_matrix(const step_model* sm, step_data* sd, const sim_options* o, double h,
                            double t_end, int it, double res, double res_prev, int* dropped) {
  cmpl_data* c = sd->cmpl;
  int nv = sm->m->nv;
  double hw = c->res_mode == TR_STEP ? 0.5 * h : h;
  if (o->cmpl.jacobian == CSIM_JAC_FULL) {
    ie_fd_jacobian(sm, sd, o, h, t_end, dropped);
    c->work[2]++;
    return lu_factor(nv, c->Jr, c->piv);
  }
  if (!c->jac_ok || (it > 0 && res > CMPL_QN_RATE * res_prev)) {
    ie_fd_jacobian(sm, sd, o, h, t_end, dropped);
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++)
        c->Jd[(size_t)i * nv + j] = ((i == j) - c->Jr[(size_t)i * nv + j]) / hw;
    c->jac_ok = 1;
    c->fact_ok = 0;
    c->jac_fresh = 1;
  }
  if (!c->fact_ok || c->h_fact != hw) {
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++)
        c->Jr[(size_t)i * nv + j] = (i == j) - hw * c->Jd[(size_t)i * nv + j];
    c->work[2]++;
    c->h_fact = hw;
    c->fact_ok = lu_factor(nv, c->Jr, c->piv);
    if (!c->fact_ok) c->jac_ok = 0;
  }
  return c->fact_ok;
}

// the step length along the Newton update c->dv from c->vk (residual c->r): TALS on the
// start-of-step contacts' tangential velocities (sd->con, J frozen at q0), then the safeguard,
// backtracking until |r| decreases (Armijo on |r|^2, as in solve_frozen); the accepted trial is
// evaluated again by the caller
static double ie_alpha(const step_model* sm, step_data* sd, const sim_options* o, double h,
                       double t_end, int* dropped) {
  const law_ctx law = {&o->cmpl, sm->mat}, *L = &law;
  cmpl_data* c = sd->cmpl;
  const contact_data* con0 = sd->con;
  int nv = sm->m->nv;
  double alpha = 1;
  if (cmpl_tals_on(L->o)) {
    for (int i = 0; i < con0->ncon; i++) {
      double vc[3], dvc[3];
      cmpl_eval e;
      contact_vel(con0, i, c->vk, vc);
      contact_vel(con0, i, c->dv, dvc);
      cmpl_params tmp;
      cmpl_force(law_at(L, con0, i, &tmp), &c->pt[i], vc, &e);
      double v[2] = {vc[0] - e.center[0], vc[1] - e.center[1]};
      double a = cmpl_tals_alpha(v, dvc, e.radius, CMPL_THETA_MAX);
      if (a < alpha) alpha = a;
    }
  }
  if (cmpl_backtrack_on(L->o)) {
    double phi0 = 0, phi = 0;
    for (int k = 0; k < nv; k++) phi0 += c->r[k] * c->r[k];
    for (int b = 0; b < CMPL_BACKTRACK; b++) {
      for (int k = 0; k < nv; k++) c->r2[k] = c->vk[k] + alpha * c->dv[k];
      ie_residual(sm, sd, o, h, c->r2, t_end, c->tmp2, dropped);
      phi = 0;
      for (int k = 0; k < nv; k++) phi += c->tmp2[k] * c->tmp2[k];
      if (isfinite(phi) && phi <= (1 - 1e-4 * alpha) * phi0) break;
      alpha *= 0.5;
    }
  }
  return alpha;
}

// Drake's Newton loop (ImplicitEulerIntegrator::StepAbstract, Hairer-Wanner IV.8) on the residual
// of c->res_mode from c->vk: after each update dx = |alpha dv|, converged when dx < 10 eps or,
// from the second update, eta dx < CMPL_DRAKE_KAPPA accuracy (eta = theta / (1 - theta), theta =
// dx / the last dx; eq. 8.10), failed on divergence (theta > 1), a non-finite update or
// CMPL_DRAKE_MAX_IT updates. With final_eval the residual is evaluated once more at the converged
// iterate (d and con_eval then describe it). 1: converged
static int newton_drake(const step_model* sm, step_data* sd, const sim_options* o, double h,
                        double t_end, int final_eval, int* dropped) {
  cmpl_data* c = sd->cmpl;
  int nv = sm->m->nv, done = 0;
  double last = INFINITY;
  for (int it = 0;; it++) {
    if (!done || final_eval) {
      ie_residual(sm, sd, o, h, c->vk, t_end, c->r, dropped);
      c->residual = maxnorm(c->r, nv);
      hist_put(c, it, c->residual);
    }
    if (done) return 1;
    if (it >= CMPL_DRAKE_MAX_IT || !isfinite(c->residual)) return 0;
    if (!ie_newton_matrix(sm, sd, o, h, t_end, it, c->residual, INFINITY, dropped)) return 0;
    for (int k = 0; k < nv; k++) c->dv[k] = -c->r[k];
    lu_solve(nv, c->Jr, c->piv, c->dv);
    double alpha = ie_alpha(sm, sd, o, h, t_end, dropped), dx = 0;
    for (int k = 0; k < nv; k++) {
      c->vk[k] += alpha * c->dv[k];
      dx = fmax(dx, fabs(alpha * c->dv[k]));
    }
    c->iterations++;
    if (!isfinite(dx)) return 0;
    if (dx < 10 * DBL_EPSILON) {
      done = 1;
    } else if (it >= 1) {
      double theta = dx / last;
      if (theta > 1) return 0;
      done = theta / (1 - theta) * dx < CMPL_DRAKE_KAPPA * o->cmpl.accuracy;
    }
    last = dx;
  }
}

// newton_drake from the guess; quasi-Newton retries a failed solve once, from the guess, with a
// fresh Jacobian when the one it used was older than the solve (Drake's CalcMatrices trials)
static int newton_drake_retry(const step_model* sm, step_data* sd, const sim_options* o, double h,
                              double t_end, const double* guess, int final_eval, int* dropped) {
  cmpl_data* c = sd->cmpl;
  int nv = sm->m->nv;
  c->jac_fresh = 0;
  memcpy(c->vk, guess, sizeof(double) * (size_t)nv);
  if (newton_drake(sm, sd, o, h, t_end, final_eval, dropped)) return 1;
  if (o->cmpl.jacobian != CSIM_JAC_QUASI_NEWTON || c->jac_fresh) return 0;
  c->jac_ok = 0;
  memcpy(c->vk, guess, sizeof(double) * (size_t)nv);
  return newton_drake(sm, sd, o, h, t_end, final_eval, dropped);
}

// Drake's error estimate (ImplicitEulerIntegrator::AttemptStepPaired) after the implicit Euler
// solve (c->vk = v_ie): the implicit trapezoid step v = v0 + h/2 (a(x0) + a(x)) started at v_ie,
// its result into c->qfull, c->vfull (sim.c's estimate is the max-norm of x_ie - x_tr = O(h^2),
// as for step doubling's full step). The implicit Euler result is kept: c->vk = v_ie and d,
// con_eval at its end state (one more evaluation; Drake's next step evaluates its derivative
// there too). 0: the trapezoid failed
static int trapezoid_estimate(const step_model* sm, step_data* sd, const sim_options* o, double h,
                              double t0, int* dropped) {
  cmpl_data* c = sd->cmpl;
  const sim_model* m = sm->m;
  int nv = m->nv, hist_on = c->hist_on;
  memcpy(c->vfull, c->vk, sizeof(double) * (size_t)nv);  // v_ie while the trapezoid runs
  c->hist_on = 0;  // the history is the implicit Euler solve's
  c->res_mode = TR_START;
  ie_residual(sm, sd, o, h, c->v0, t0, c->r, dropped);
  for (int k = 0; k < nv; k++) c->a0h[k] = -c->r[k];
  c->res_mode = TR_STEP;
  int ok = newton_drake_retry(sm, sd, o, h, t0 + h, c->vfull, 0, dropped);
  if (ok) {  // x_tr into qfull, vfull; v_ie back into vk
    double* vq = c->a0h + nv;
    for (int k = 0; k < nv; k++) vq[k] = 0.5 * (c->v0[k] + c->vk[k]);
    kin_integrate(m, c->q0, vq, h, c->qfull);
    for (int k = 0; k < nv; k++) {
      double t = c->vk[k];
      c->vk[k] = c->vfull[k];
      c->vfull[k] = t;
    }
  } else {
    memcpy(c->vk, c->vfull, sizeof(double) * (size_t)nv);
  }
  c->res_mode = IE_STEP;
  c->hist_on = hist_on;
  ie_residual(sm, sd, o, h, c->vk, t0 + h, c->r, dropped);
  c->residual = maxnorm(c->r, nv);
  return ok;
}

// csim's Newton loop on the implicit Euler residual from c->vk: stops on newton_done (the
// residual's max-norm against integrator.newton_tolerance, or the cap); quasi-Newton refreshes
// its Jacobian when an iteration shrinks the residual less than CMPL_QN_RATE
static void newton_ie(const step_model* sm, step_data* sd, const sim_options* o, double h,
                      double t_end, int* dropped) {
  cmpl_data* c = sd->cmpl;
  int nv = sm->m->nv;
  double res_prev = INFINITY;
  for (int it = 0;; it++) {
    ie_residual(sm, sd, o, h, c->vk, t_end, c->r, dropped);
    double res = maxnorm(c->r, nv);
    if (newton_done(c, &o->cmpl, it, res)) break;
    if (!ie_newton_matrix(sm, sd, o, h, t_end, it, res, res_prev, dropped)) break;
    res_prev = res;
    for (int k = 0; k < nv; k++) c->dv[k] = -c->r[k];
    lu_solve(nv, c->Jr, c->piv, c->dv);
    double alpha = ie_alpha(sm, sd, o, h, t_end, dropped);
    for (int k = 0; k < nv; k++) c->vk[k] += alpha * c->dv[k];
    c->iterations++;
  }
}

// implicit Euler step: Newton on r(v) with a forward-difference Jacobian and TALS; leaves d at
// (q0 ⊕ h v+, v+), the end-of-step contacts in sd->con (swapped with c->con_eval) with their
// impulses, and g rebuilt so that G lambda + g = J v+ - c* (the metric's velocity)
static void solve_implicit(const step_model* sm, step_data* sd, const sim_options* o, double h,
                           int* dropped) {
  const law_ctx law = {&o->cmpl, sm->mat}, *L = &law;
  cmpl_data* c = sd->cmpl;
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  contact_data* con0 = sd->con;
  int nv = m->nv, nc0 = con0->ncon;
  double t0 = d->time;

  memcpy(c->q0, d->q, sizeof(double) * (size_t)m->nq);
  memcpy(c->v0, d->v, sizeof(double) * (size_t)nv);
  memcpy(c->vk, d->v, sizeof(double) * (size_t)nv);
  // start-of-step contacts as TAMSI sees them, for the TALS stiction regions
  for (int i = 0; i < nc0; i++) {
    cmpl_point* pt = &c->pt[i];
    memset(pt, 0, sizeof(*pt));
    pt->delta0 = con0->con[i].depth;
    pt->hpen = h;
    pt->h = h;
    cmpl_lookup_state(L->o, c, con0, i, pt->x0);
  }

  c->iterations = 0;
  c->converged = 0;
  c->res_mode = IE_STEP;
  if (o->cmpl.accuracy > 0 && o->cmpl.error_estimate == CSIM_EST_TRAPEZOID)
    c->converged = newton_drake_retry(sm, sd, o, h, t0 + h, c->v0, 1, dropped) &&
                   trapezoid_estimate(sm, sd, o, h, t0, dropped);
  else
    newton_ie(sm, sd, o, h, t0 + h, dropped);
  if (!c->converged) c->jac_ok = 0;  // quasi-Newton: the retry starts from a fresh Jacobian
  // the last evaluation was at vk: d and con_eval describe the end of the step
  contact_data* ce = c->con_eval;
  // g = J (v+ - M^-1 J' lambda) - c*, so that G lambda + g = J v+ - c*
  memset(c->tmp, 0, sizeof(double) * (size_t)nv);
  contact_apply(m, d, ce, c->tmp);
  for (int k = 0; k < nv; k++) c->tmp[k] = c->vk[k] - c->tmp[k];
  for (int i = 0; i < ce->ncon; i++) {
    contact_vel(ce, i, c->tmp, ce->g + 3 * i);
    ce->g[3 * i + 2] -= ce->cstar[i];
  }
  sd->con = ce;
  c->con_eval = con0;
  memcpy(d->v, c->vk, sizeof(double) * (size_t)nv);
  d->time = t0;
}

// penetration and stiction statistics of the step's contacts
static void statistics(cmpl_data* c, const contact_data* con) {
  int npen = 0;
  c->pen_max = 0;
  c->pen_mean = 0;
  c->nstick = 0;
  c->stick_slip_max = 0;
  for (int i = 0; i < con->ncon; i++) {
    double dep = con->con[i].depth;
    if (dep > 0) {
      npen++;
      c->pen_mean += dep;
      if (dep > c->pen_max) c->pen_max = dep;
    }
    if (c->stick[i]) {
      c->nstick++;
      if (c->slip[i] > c->stick_slip_max) c->stick_slip_max = c->slip[i];
    }
  }
  if (npen) c->pen_mean /= npen;
}

// the force law and its integrator for one (sub)step of size h (integrate.h)
const double* cmpl_integrate(const step_model* sm, step_data* sd, const sim_options* o, double h,
                             sim_stepinfo* info, int* dropped) {
  const law_ctx L = {&o->cmpl, sm->mat};
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  cmpl_data* c = sd->cmpl;

  // contact problem at q0 (frames, J, G, g) and the integrator; the pass's start-of-step
  // dynamics (sim.c: kinematics, collision, M, bias) are one evaluation of the work count
  c->work[0]++;
  contact_options copt = metric_options(o, h);
  if (contact_build(m, d, sd->con, &copt, sd->vfree) != 0) {  // see eval_end (never expected)
    *dropped = sd->con->ncon + 1;
    sd->con->ncon = 0;
  }
  if (o->cmpl.scheme == CSIM_SCHEME_IMPLICIT_EULER) {
    solve_implicit(sm, sd, o, h, dropped);
  } else {
    solve_frozen(&L, sd, h);
    // v+ = v_f + M^-1 J' lambda
    memcpy(d->v, sd->vfree, sizeof(double) * (size_t)m->nv);
    contact_apply(m, d, sd->con, d->v);
  }
  contact_data* con = sd->con;

  // the physical metric on the forces the law produced (000 eq. 14), as for rigid runs
  solver_problem p = contact_problem(con);
  memset(&info->solve, 0, sizeof(info->solve));
  solver_residuals(&p, con->lambda, con->cvel, &info->solve);
  if (con->ncon == 0) info->solve.eps_abs = 0;
  statistics(c, con);
  cmpl_store_state(&o->cmpl, c, con);
  info->ncon = con->ncon;
  // q+ = q0 ⊕ h w (implicit Euler: from the saved q0; its evaluations moved d->q)
  return o->cmpl.scheme == CSIM_SCHEME_IMPLICIT_EULER ? c->q0 : d->q;
}

int cmpl_limit_springs_implicit(const cmpl_options* o) {
  return o->scheme != CSIM_SCHEME_IMPLICIT_EULER;
}

void cmpl_save_state(cmpl_data* c, const sim_model* m, const sim_data* d) {
  memcpy(c->qsave, d->q, sizeof(double) * (size_t)m->nq);
  memcpy(c->vsave, d->v, sizeof(double) * (size_t)m->nv);
  c->tsave = d->time;
  c->nprev_save = c->nprev;
  memcpy(c->prev_id_save, c->prev_id, sizeof(int) * 3 * (size_t)c->nprev);
  memcpy(c->prev_x_save, c->prev_x, sizeof(double) * 3 * (size_t)c->nprev);
}

void cmpl_restore_state(cmpl_data* c, const sim_model* m, sim_data* d) {
  memcpy(d->q, c->qsave, sizeof(double) * (size_t)m->nq);
  memcpy(d->v, c->vsave, sizeof(double) * (size_t)m->nv);
  d->time = c->tsave;
  c->nprev = c->nprev_save;
  memcpy(c->prev_id, c->prev_id_save, sizeof(int) * 3 * (size_t)c->nprev);
  memcpy(c->prev_x, c->prev_x_save, sizeof(double) * 3 * (size_t)c->nprev);
}
