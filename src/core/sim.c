// sim.c — the time step (000 eqs. 2-5) as one outline of the stages of stage.h (see sim.h).
#include "core/sim.h"

#include <math.h>
#include <string.h>

#include "core/compliant/integrate.h"
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
  double t1 = stage_clock();
  int nd = stage_collision(sm, sd, o);
  if (nd) return sim_contact_overflow(sm, sd, o, sd->con->ncon + nd, CSIM_ERR_RUN, err);
  double t2 = stage_clock();

  // mass matrix and factor, the energy audit of the state reached, forces, free velocity; a
  // joint limit acts as a spring on a compliant model (before v_f: it is part of the forces)
  stage_mass(sm, sd, o, info);
  if (audit && (st = stage_audit(sm, sd, o, info->kinetic, info->potential, info, err)) != CSIM_OK)
    return st;
  stage_actions(sm, sd, o);
  stage_passive(sm, sd, o, h);
  if (!rigid)
    info->nlimit = stage_limit_springs(sm, sd, o, cmpl_limit_springs_implicit(&o->cmpl) ? h : 0);
  stage_free_velocity(sm, sd, o, h);
  if (rigid) {
    stage_limits(sm, sd, o, h);
    stage_joint_friction(sm, sd, o);
  }
  double t3 = stage_clock();

  // solve or force law: v+ into d->v, impulses and contact velocities into sd->con
  const double* q0 = d->q;
  if (rigid) {
    if ((st = stage_solve(sm, sd, o, h, info, err)) != CSIM_OK) return st;
    info->nlimit = sd->con->nlimit - sd->con->nfric;  // limits (friction rows are always there)
  } else {
    q0 = cmpl_integrate(sm, sd, o, h, info, dropped);
  }
  double t4 = stage_clock();

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
  double dt = o->dt, kin0 = 0, pot0 = 0;
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
        kin0 = info->kinetic;
        pot0 = info->potential;
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
  info->kinetic = kin0;
  info->potential = pot0;
  // impulses of a substep h -> impulses at the same force over dt
  if (n > 1)
    for (int a = 0; a < 3 * sd->con->ncon; a++) sd->con->lambda[a] *= (double)n;
  info->solve.iterations = total_it;
  info->solve.converged = c->converged;
  info->solve.residual = c->residual;
  if (!c->converged) {
    c->nfail++;
    sd->warnings[SIM_WARN_NONCONVERGED]++;
  }
  if (dropped) return sim_contact_overflow(sm, sd, o, dropped, CSIM_ERR_RUN, err);
  return CSIM_OK;
}

csim_status sim_step(sim* s, sim_stepinfo* info, csim_error* err) {
  const step_model* sm = &s->model;
  step_data* sd = &s->data;
  const sim_options* o = &s->opt;
  double t0 = stage_clock();
  int dropped = 0;
  info->t_collision = info->t_dynamics = info->t_solve = 0;
  csim_status st = o->rigid ? step_pass(sm, sd, o, o->dt, 1, info, &dropped, err)
                            : step_controlled(sm, sd, o, info, err);
  if (st != CSIM_OK) return st;
  sd->step++;
  if ((st = stage_check(sm, sd, o, o->dt, err)) != CSIM_OK) {
    csim_error e2;  // the audit records the gain of the diverged state too
    stage_audit_final(sm, sd, o, &e2);
    return st;
  }
  info->t_step = stage_clock() - t0;
  return CSIM_OK;
}

csim_status sim_finish(sim* s, csim_error* err) {
  return stage_audit_final(&s->model, &s->data, &s->opt, err);
}
