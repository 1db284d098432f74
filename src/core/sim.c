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
static csim_status step_pass(sim* s, double h, int audit, sim_stepinfo* info, int* dropped,
                             csim_error* err) {
  sim_data* d = s->d;
  int rigid = s->opt.rigid;
  csim_status st;

  // positions and collision at the current state
  stage_positions(s);
  double t1 = stage_clock();
  int nd = stage_collision(s);
  if (nd) return sim_contact_overflow(s, s->con->ncon + nd, CSIM_ERR_RUN, err);
  double t2 = stage_clock();

  // mass matrix and factor, the energy audit of the state reached, forces, free velocity; a
  // joint limit acts as a spring on a compliant model (before v_f: it is part of the forces)
  stage_mass(s, info);
  if (audit && (st = stage_audit(s, s->step, d->time, info->kinetic, info->potential, info,
                                 err)) != CSIM_OK)
    return st;
  stage_actions(s);
  if (!rigid)
    info->nlimit = stage_limit_springs(s, cmpl_limit_springs_implicit(s->cmpl) ? h : 0);
  stage_free_velocity(s, h);
  if (rigid) stage_limits(s, h);
  double t3 = stage_clock();

  // solve or force law: v+ into d->v, impulses and contact velocities into s->con
  const double* q0 = d->q;
  if (rigid) {
    if ((st = stage_solve(s, h, info, err)) != CSIM_OK) return st;
    info->nlimit = s->con->nlimit;
  } else {
    q0 = cmpl_integrate(s, h, info, dropped);
  }
  double t4 = stage_clock();

  // q+ = q0 ⊕ w h
  stage_integrate(s, q0, h, d->q);
  d->time += h;
  info->ncon = s->con->ncon - s->con->nlimit;
  info->nreduced = s->con->nreduced;
  info->nreduced_touch = s->con->nreduced_touch;
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
static csim_status step_controlled(sim* s, sim_stepinfo* info, csim_error* err) {
  sim_data* d = s->d;
  cmpl_data* c = s->cmpl;
  double dt = s->opt.dt, kin0 = 0, pot0 = 0;
  int dropped = 0, total_it = 0, n = 1;
  csim_status st;

  cmpl_save_state(c, s);
  for (int j = 0; j < c->nhist; j++) c->hist[j] = NAN;
  for (int level = 0;; level++, n *= 2) {
    if (level > 0) {
      cmpl_restore_state(c, s);
      s->energy.work_step = 0;  // the audit of the first pass cleared it
    }
    int ok = 1;
    double resmax = 0, t_end = c->tsave + dt;
    for (int k = 0; k < n; k++) {
      // equal substeps; the last one ends exactly at t0 + dt
      double h = k + 1 < n ? dt / n : t_end - d->time;
      c->hist_on = level == 0;  // the history is the whole step's solve (n = 1)
      st = step_pass(s, h, level == 0 && k == 0, info, &dropped, err);
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
    for (int a = 0; a < 3 * s->con->ncon; a++) s->con->lambda[a] *= (double)n;
  info->solve.iterations = total_it;
  info->solve.converged = c->converged;
  info->solve.residual = c->residual;
  if (!c->converged) {
    c->nfail++;
    s->warnings[SIM_WARN_NONCONVERGED]++;
  }
  if (dropped) return sim_contact_overflow(s, dropped, CSIM_ERR_RUN, err);
  return CSIM_OK;
}

csim_status sim_step(sim* s, sim_stepinfo* info, csim_error* err) {
  double t0 = stage_clock();
  int dropped = 0;
  info->t_collision = info->t_dynamics = info->t_solve = 0;
  csim_status st = s->opt.rigid ? step_pass(s, s->opt.dt, 1, info, &dropped, err)
                                : step_controlled(s, info, err);
  if (st != CSIM_OK) return st;
  s->step++;
  if ((st = stage_check(s, s->opt.dt, err)) != CSIM_OK) {
    csim_error e2;  // the audit records the gain of the diverged state too
    stage_audit_final(s, &e2);
    return st;
  }
  info->t_step = stage_clock() - t0;
  return CSIM_OK;
}

csim_status sim_finish(sim* s, csim_error* err) {
  return stage_audit_final(s, err);
}
