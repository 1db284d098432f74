// sim.c — the time step (000 eqs. 2-5) as one outline of the stages of stage.h (see sim.h).
#include "core/sim.h"

#include <math.h>
#include <string.h>

#include "core/clock.h"
#include "core/compliant/integrate.h"
#include "core/interrupt.h"
#include "core/stage.h"

// one pass of size h from the current state; `audit`: run the energy audit of the state it
// starts from (once per step). The contact model's own part is the one branch: a rigid model
// solves its contact problem (stage_solve), a compliant law integrates its force
// (cmpl_integrate). *dropped: the contacts found when a compliant evaluation overflowed the
// buffers (the step goes on and sim_step reports it)
static csim_status step_pass(const step_model* sm, step_data* sd, const sim_options* o, double h,
                             int audit, sim_stepinfo* info, int* dropped, csim_error* err) {
  sim_data* d = sd->d;
  int rigid = o->rigid;
  csim_status st;

  // positions and collision at the current state
  stage_positions(sm, sd, o);
  // controllers once per step (the first pass, which also audits), before collision replaces
  // the last step's contacts they sense
  if (audit && (st = stage_control(sm, sd, o, err)) != CSIM_OK) return st;
  double t1 = clock_now();
  int nd = stage_collision(sm, sd, o);
  if (nd) return sim_contact_overflow(sm, sd, o, sd->con->ncon + nd, CSIM_ERR_RUN, err);
  double t2 = clock_now();

  // mass matrix and factor, the energy audit of the state reached, forces, free velocity; a
  // joint limit acts as a spring on a compliant model (before v_f: it is part of the forces)
  stage_mass(sm, sd, o, info);
  if (audit && (st = stage_audit(sm, sd, o, info->kinetic, info->potential, info, err)) != CSIM_OK)
    return st;
  stage_actions(sm, sd, o);
  stage_passive(sm, sd, o, h);
  if (!rigid)
    info->nlimit = stage_limit_springs(sm, sd, o, cmpl_limit_springs_implicit(&o->cmpl) ? h : 0);
  stage_factor(sm, sd, o);
  stage_free_velocity(sm, sd, o, h);
  if (rigid) {
    stage_limits(sm, sd, o, h);
    stage_joint_friction(sm, sd, o);
    stage_spin(sm, sd, o);
  }
  double t3 = clock_now();

  // solve or force law: v+ into d->v, impulses and contact velocities into sd->con
  const double* q0 = d->q;
  if (rigid) {
    if ((st = stage_solve(sm, sd, o, h, info, err)) != CSIM_OK) return st;
    // limits (friction rows are always there, spin entries belong to their contacts)
    info->nlimit = sd->con->nlimit - sd->con->nfric - sd->con->nspin;
  } else {
    q0 = cmpl_integrate(sm, sd, o, h, info, dropped);
  }
  double t4 = clock_now();

  // q+ = q0 ⊕ w h
  stage_integrate(sm, sd, o, q0, h, d->q);
  d->time += h;
  info->ncon = sd->con->ncon - sd->con->nlimit;
  info->nreduced = sd->con->nreduced;
  info->nreduced_touch = sd->con->nreduced_touch;
  info->t_collision += t2 - t1;
  info->t_dynamics += t3 - t2;
  info->t_solve += t4 - t3;
  return CSIM_OK;
}

// the end of a compliant step: its totals into info, the energies of the state it started
// from (kin0, pot0), the last pass's impulses scaled to dt by `scale` (= dt / that pass's size:
// /contacts/force stays the force), a non-converged step counted
static csim_status step_close(const step_model* sm, step_data* sd, const sim_options* o,
                              sim_stepinfo* info, const double ekp[2], double scale, int dropped,
                              csim_error* err) {
  cmpl_data* c = sd->cmpl;
  info->kinetic = ekp[0];
  info->potential = ekp[1];
  if (scale != 1)
    for (int a = 0; a < 3 * sd->con->ncon; a++) sd->con->lambda[a] *= scale;
  info->solve.iterations = c->iterations;
  info->solve.converged = c->converged;
  info->solve.residual = c->residual;
  if (!c->converged) {
    c->nfail++;
    sd->warnings[SIM_WARN_NONCONVERGED]++;
  }
  if (dropped) return sim_contact_overflow(sm, sd, o, dropped, CSIM_ERR_RUN, err);
  return CSIM_OK;
}

// a compliant step with convergence control (001 Sec. III-B: fixed-step integrators retry
// smaller steps when Newton fails): the step is taken whole; if Newton did not converge it is
// retaken from the same state as 2, 4, ... up to 2^CMPL_MAX_HALVINGS equal substeps until every
// substep converges. The recorded contacts, impulses (scaled to dt: /contacts/force stays the
// force) and eps_abs are those of the last substep; iterations count every Newton update spent
// on the step; the energies and the audit are the state's the step started from.
static csim_status step_controlled(const step_model* sm, step_data* sd, const sim_options* o,
                                   sim_stepinfo* info, csim_error* err) {
  sim_data* d = sd->d;
  cmpl_data* c = sd->cmpl;
  double dt = o->dt, ekp[2] = {0, 0};
  int dropped = 0, total_it = 0, n = 1;
  csim_status st;

  cmpl_save_state(c, sm->m, sd->d);
  for (int j = 0; j < c->nhist; j++) c->hist[j] = NAN;
  for (int level = 0;; level++, n *= 2) {
    if (level > 0) {
      cmpl_restore_state(c, sm->m, sd->d);
      sd->energy.work_step = 0;  // the audit of the first pass cleared it
    }
    int ok = 1;
    double resmax = 0, t_end = c->tsave + dt;
    for (int k = 0; k < n; k++) {
      // equal substeps; the last one ends exactly at t0 + dt
      double h = k + 1 < n ? dt / n : t_end - d->time;
      c->hist_on = level == 0;  // the history is the whole step's solve (n = 1)
      st = step_pass(sm, sd, o, h, level == 0 && k == 0, info, &dropped, err);
      c->hist_on = 0;
      if (st != CSIM_OK) return st;
      if (level == 0 && k == 0) {
        ekp[0] = info->kinetic;
        ekp[1] = info->potential;
      }
      total_it += c->iterations;
      if (c->residual > resmax || !isfinite(c->residual)) resmax = c->residual;
      if (!c->converged) {
        ok = 0;
        if (level < CMPL_MAX_HALVINGS) break;
      }
    }
    if (ok || level >= CMPL_MAX_HALVINGS) {
      c->converged = ok;
      c->residual = resmax;
      break;
    }
  }
  c->substeps = n;
  if (n > 1) c->nsubstepped++;
  c->iterations = total_it;
  return step_close(sm, sd, o, info, ekp, (double)n, dropped, err);
}

// max-norm of a - b over n entries (infinity for a non-finite difference)
static double diff_norm(const double* a, const double* b, int n) {
  double e = 0;
  for (int k = 0; k < n; k++) {
    double x = fabs(a[k] - b[k]);
    if (!isfinite(x)) return INFINITY;
    if (x > e) e = x;
  }
  return e;
}

// error control, one attempt at a substep of size h from the saved state (step doubling): a
// step of h, then two of h/2 from the same state. The estimate *est is the max-norm of the
// difference of q and v between the two results: a first-order scheme's full step errs about
// twice as much as the two half steps (local error C h^2 against 2 C (h/2)^2), so the difference
// estimates the half steps' local error, and the half steps are the result kept (the state is
// left there). *est is infinite when a Newton solve failed. Under integrator.error_estimate:
// trapezoid the attempt is one pass, implicit Euler, and the result compared is the implicit
// trapezoid step the pass leaves in qfull, vfull (Drake's estimate, compliant/integrate.c). *audit: the output step's first pass audits the energy (its energies into ekp)
// and runs the controllers (then cleared); *its, *resmax accumulate; *hpass: the last pass's size
static csim_status ec_attempt(const step_model* sm, step_data* sd, const sim_options* o,
                              double h, int* audit, double ekp[2], sim_stepinfo* info,
                              int* dropped, int* its, double* resmax, double* est, double* hpass,
                              csim_error* err) {
  sim_data* d = sd->d;
  cmpl_data* c = sd->cmpl;
  const sim_model* m = sm->m;
  // the work the halves restart from: the audit of the output step's first pass clears it
  double w0 = *audit ? 0 : sd->energy.work_step, ha[3] = {h, 0.5 * h, h - 0.5 * h};
  int conv = 1, trapezoid = o->cmpl.error_estimate == CSIM_EST_TRAPEZOID;
  *hpass = trapezoid ? h : ha[2];
  for (int k = 0; k < (trapezoid ? 1 : 3); k++) {
    if (k == 1) {  // the full step's result kept, back to the substep's start
      memcpy(c->qfull, d->q, sizeof(double) * (size_t)m->nq);
      memcpy(c->vfull, d->v, sizeof(double) * (size_t)m->nv);
      cmpl_restore_state(c, m, d);
      sd->energy.work_step = w0;
    }
    csim_status st = step_pass(sm, sd, o, ha[k], *audit, info, dropped, err);
    if (st != CSIM_OK) return st;
    if (*audit) {  // the energies of the state the output step starts from
      ekp[0] = info->kinetic;
      ekp[1] = info->potential;
    }
    *audit = 0;
    c->hist_on = 0;  // the history is the first solve's
    *its += c->iterations;
    conv = conv && c->converged;
    if (c->residual > *resmax || !isfinite(c->residual)) *resmax = c->residual;
  }
  double eq = diff_norm(d->q, c->qfull, m->nq), ev = diff_norm(d->v, c->vfull, m->nv);
  *est = conv ? fmax(eq, ev) : INFINITY;
  return CSIM_OK;
}
// the next substep after one of size h with error estimate est against accuracy a (Drake's
// IntegratorBase::CalcAdjustedStepSize, error order 2 for a first-order scheme): 0.9 h (a /
// est)^(1/2), no growth under 1.2 h, no shrink of an accepted step, a rejected one shrunk to at
// most 0.9 h, within [0.1 h, 5 h]. Returns 1 when the substep is accepted (est <= a)
static int ec_adjust(double a, double h, double est, double* h_new) {
  int ok = est <= a;
  double hn;
  if (est == 0) hn = CMPL_EC_MAX_GROW * h;
  else if (!isfinite(est)) hn = CMPL_EC_MIN_SHRINK * h;
  else hn = CMPL_EC_SAFETY * h * sqrt(a / est);
  if (hn > h && hn < CMPL_EC_HYST_HIGH * h) hn = h;
  if (hn < h) hn = ok ? h : fmin(hn, CMPL_EC_HYST_LOW * h);
  *h_new = fmax(fmin(hn, CMPL_EC_MAX_GROW * h), CMPL_EC_MIN_SHRINK * h);
  return ok;
}

// the run stops when error control needs a substep below CMPL_EC_MIN_STEP
static csim_status ec_too_small(const sim_options* o, const sim_data* d, double h, double est,
                                csim_error* err) {
  return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL,
                 "integrator.accuracy %g not reached at t = %.9g s: error control asked for a "
                 "substep of %.3g s, below the smallest allowed (%g s); the last local error "
                 "estimate was %.3g%s. Loosen integrator.accuracy, or check the model (a stiff "
                 "contact, a small contact.stiction_velocity)", o->cmpl.accuracy, d->time, h,
                 CMPL_EC_MIN_STEP, est, isfinite(est) ? "" : " (Newton did not converge)");
}

// the substep to take from time t toward t_end: the one error control asks for, stretched to
// t_end when it would leave less than 1 % of itself (*last set), so output times are hit exactly
static double ec_substep(const cmpl_data* c, double t, double t_end, int* last) {
  double rem = t_end - t;
  *last = c->h_next >= 0.99 * rem;
  return *last ? rem : c->h_next;
}

// a compliant step under error control (integrator.accuracy = a > 0; 001 Sec. III-B, Drake's
// error-controlled integrators): the output step dt is crossed in variable substeps, each
// step-doubled (ec_attempt) and accepted when the estimate is <= a; a rejected substep (or one
// whose Newton failed) is retaken from its start, smaller (ec_adjust). The substep size carries
// over to the next output step. The recorded contacts are the last half step's (impulses scaled
// to dt), iterations count every Newton update, /compliant/substeps the accepted substeps
static csim_status step_error_controlled(const step_model* sm, step_data* sd,
                                         const sim_options* o, sim_stepinfo* info,
                                         csim_error* err) {
  sim_data* d = sd->d;
  cmpl_data* c = sd->cmpl;
  double t_end = d->time + o->dt, ekp[2] = {0, 0}, resmax = 0, hlast = o->dt;
  int audit = 1, dropped = 0, its = 0, last = 0;
  c->substeps = c->rejected = 0;
  c->est_max = 0;
  if (!(c->h_next > 0)) c->h_next = o->dt;
  for (int j = 0; j < c->nhist; j++) c->hist[j] = NAN;
  while (!last) {
    // a signal: stop between substeps (an output step can take thousands of them); run.c drops
    // the cut step and ends the run as interrupted (interrupt.h)
    if (intr_requested()) return CSIM_OK;
    double h = ec_substep(c, d->time, t_end, &last), est, hn, hpass;
    double w0 = audit ? 0 : sd->energy.work_step;  // (the first pass's audit clears it)
    cmpl_save_state(c, sm->m, d);
    c->hist_on = audit;  // the history is the output step's first solve
    csim_status st =
        ec_attempt(sm, sd, o, h, &audit, ekp, info, &dropped, &its, &resmax, &est, &hpass, err);
    c->hist_on = 0;
    if (st != CSIM_OK) return st;
    int ok = ec_adjust(o->cmpl.accuracy, h, est, &hn);
    if (!isfinite(est)) hn = CMPL_EC_NEWTON_SHRINK * h;
    if (ok) {
      c->substeps++;
      c->est_max = fmax(c->est_max, est);
      hlast = hpass;
      c->h_min = c->h_min > 0 ? fmin(c->h_min, h) : h;
      c->h_max = fmax(c->h_max, h);
      c->h_next = last && h < c->h_next ? fmax(c->h_next, hn) : hn;  // a stretched or cut
      continue;                                                         // last substep
    }
    cmpl_restore_state(c, sm->m, d);
    sd->energy.work_step = w0;
    c->rejected++;
    c->nrejected++;
    last = 0;
    if (hn < CMPL_EC_MIN_STEP) return ec_too_small(o, d, hn, est, err);
    c->h_next = hn;
  }
  d->time = t_end;  // the last substep ends at t_end (rounding)
  c->iterations = its;
  c->converged = 1;  // accepted substeps converged
  c->residual = resmax;
  return step_close(sm, sd, o, info, ekp, o->dt / hlast, dropped, err);
}

csim_status sim_step(sim* s, sim_stepinfo* info, csim_error* err) {
  const step_model* sm = &s->model;
  step_data* sd = &s->data;
  const sim_options* o = &s->opt;
  double t0 = clock_now();
  int dropped = 0;
  info->t_collision = info->t_dynamics = info->t_solve = 0;
  cmpl_data* c = sd->cmpl;
  long w0[3] = {0, 0, 0};
  if (c) memcpy(w0, c->work, sizeof(w0));
  csim_status st = o->rigid ? step_pass(sm, sd, o, o->dt, 1, info, &dropped, err)
                   : o->cmpl.accuracy > 0 ? step_error_controlled(sm, sd, o, info, err)
                                          : step_controlled(sm, sd, o, info, err);
  if (c)
    for (int k = 0; k < 3; k++) c->work_step[k] = c->work[k] - w0[k];
  if (st != CSIM_OK) return st;
  sd->step++;
  if ((st = stage_check(sm, sd, o, o->dt, err)) != CSIM_OK) {
    csim_error e2;  // the audit records the gain of the diverged state too
    stage_audit_final(sm, sd, o, &e2);
    return st;
  }
  info->t_step = clock_now() - t0;
  return CSIM_OK;
}

csim_status sim_finish(sim* s, csim_error* err) {
  return stage_audit_final(&s->model, &s->data, &s->opt, err);
}
