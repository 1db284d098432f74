// state.c — the run state: freeing it, and the errors that name its buffers' sizes (state.h).
#include "core/state.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/compliant/compliant.h"
#include "core/material.h"
#include "core/clock.h"

const char* const sim_warning_names[SIM_NWARN] = {
    "contact_buffer_full", "solver_not_converged", "effort_limit_clamped",
    "midpoint_iteration_cap", "energy_gain"};


// bytes of the contact buffers for n contacts: contact problem plus the rigid solver (so) or
// the compliant state (so NULL); SIZE_MAX when the solver cannot take n
size_t sim_buffer_bytes(const sim_model* m, const sim_options* o, const solver_options* so,
                        int n) {
  size_t x = so ? solver_bytes(so, n) : cmpl_bytes(&o->cmpl, m, n);
  return x == SIZE_MAX ? SIZE_MAX : contact_bytes(m, n) + x;
}

// the buffers with the dense island work sized for `rows` rows
static size_t island_bytes(const step_model* m, const sim_options* o, int rows) {
  solver_options so = o->solver;
  so.island_rows = rows;
  return sim_buffer_bytes(m->m, o, &so, m->maxcon);
}

// the error for a step whose largest island needs more rows of dense solver work than the
// island work holds (size_contacts); status CSIM_ERR_RUN
csim_status sim_island_overflow(const step_model* m, const step_data* d, const sim_options* o,
                                const solver_result* r, csim_error* err) {
  double need = (double)(island_bytes(m, o, r->unsolved_rows) + m->data_bytes) / SIM_MIB;
  return err_set(err, CSIM_ERR_RUN, o->file, 0, 0, "contact.memory_budget",
                 "at step %ld (t = %.6g s) an island of %d contacts needs %d rows of dense %s "
                 "work (3 per contact, or the island's dofs when ADMM factors it in dof space); "
                 "the island work holds %d rows (an island of every contact could need %d): "
                 "contact.memory_budget %g MiB holds %d contacts' buffers and the island work "
                 "(%.1f MiB) and the simulation data (%.2g MiB), an island this large needs "
                 "about %.3g MiB: raise contact.memory_budget", d->step, d->d->time,
                 r->unsolved_island, r->unsolved_rows, csim_solver_names[o->solver.kind],
                 m->island_rows, m->island_rows_worst, o->memory_budget, m->maxgeom,
                 (double)m->buffer_bytes / SIM_MIB, (double)m->data_bytes / SIM_MIB, need);
}

csim_status sim_contact_overflow(const step_model* m, const step_data* d, const sim_options* o,
                                 int found, csim_status status, csim_error* err) {
  char when[96] = "at the initial state";
  if (status != CSIM_ERR_INPUT)
    snprintf(when, sizeof(when), "at step %ld (t = %.6g s)", d->step, d->d->time);
  int need = found + (m->maxcon - m->maxgeom);
  return err_set(err, status, o->file, 0, 0, "contact.memory_budget",
                 "%s collision found %d contacts; the contact buffers hold %d (%.1f MiB of "
                 "%g MiB, which also holds the simulation data's %.2g MiB; G's blocks and dense "
                 "solver work grow as the square of the contacts; every contact this scene can "
                 "produce: %d); %d contacts need about %.3g MiB: raise contact.memory_budget",
                 when, found, m->maxgeom, (double)m->buffer_bytes / SIM_MIB,
                 o->memory_budget, (double)m->data_bytes / SIM_MIB, m->maxgeom_worst, found,
                 (double)(contact_bytes(m->m, need) +
                          (o->rigid ? solver_bytes(&o->solver, need)
                                    : cmpl_bytes(&o->cmpl, m->m, need)) +
                          m->data_bytes) /
                     SIM_MIB);
}

void step_data_reset(const step_model* m, step_data* d, const sim_options* o) {
  (void)o;
  (void)clock_now();  // the stage timers' one calibration per process (clock.c), not in a step
  const sim_model* t = m->m;
  size_t nv1 = (size_t)t->nv + 1;
  data_reset(t, d->d);
  memcpy(d->d->q, m->q_init, sizeof(double) * (size_t)t->nq);
  memcpy(d->d->v, m->v_init, sizeof(double) * (size_t)t->nv);
  coll_scratch_reset(m->coll, d->coll);
  contact_reset(d->con);
  if (d->slv) solver_reset(d->slv);
  if (d->cmpl) cmpl_reset(d->cmpl);
  double* work[] = {d->vfree, d->tau, d->qfrc_ext, d->qfrc_limit, d->aact, d->apas, d->wpos,
                    d->vprev, d->qfrc_passive, d->apas1};
  for (size_t k = 0; k < sizeof(work) / sizeof(work[0]); k++)
    memset(work[k], 0, sizeof(double) * nv1);
  memset(d->robot_touch, 0, sizeof(int) * ((size_t)t->nrobot + 1));
  memset(d->tree_rho, 0, sizeof(double) * 4 * ((size_t)t->nbody + 1));  // no factor measured
  for (int i = 0; i < m->nctl; i++) ctl_reset(&m->ctl[i], &d->ctl[i]);
  if (d->link_contact) memset(d->link_contact, 0, sizeof(int) * (size_t)t->nlink);
  if (d->link_force) memset(d->link_force, 0, sizeof(double) * 3 * (size_t)t->nlink);
  d->step = 0;
  d->midpoint_its = 0;
  memset(d->warnings, 0, sizeof(d->warnings));
  memset(&d->energy, 0, sizeof(d->energy));
}

void sim_reset(sim* s) {
  step_data_reset(&s->model, &s->data, &s->opt);
}

static void step_data_free(const step_model* m, step_data* d) {
  for (int i = 0; d->ctl && i < m->nctl; i++) ctl_data_free(&m->ctl[i], &d->ctl[i]);
  free(d->ctl); free(d->link_contact); free(d->link_force);
  free(d->vfree); free(d->tau); free(d->qfrc_ext); free(d->qfrc_limit); free(d->aact);
  free(d->apas); free(d->wpos); free(d->vprev); free(d->qfrc_passive); free(d->robot_touch);
  free(d->tree_on); free(d->tree_rho); free(d->apas1);
  solver_free(d->slv);
  cmpl_free(d->cmpl);
  contact_free(d->con);
  coll_scratch_free(d->coll);
  data_free(d->d);
}

// the model's parts are const to the step; their owner (sim_create's sim) frees them here
static void step_model_free(step_model* m) {
  for (int i = 0; m->ctl && i < m->nctl; i++) ctl_model_free((ctl_model*)&m->ctl[i]);
  free((void*)m->ctl);
  for (int a = 0; m->act && a < m->nact; a++) {
    free(m->act[a].jnt);
    free(m->act[a].ref);
  }
  free((void*)m->act);
  free((void*)m->q_init);
  free((void*)m->v_init);
  free((void*)m->body_tree);
  free((void*)m->tree_dof);
  mat_free((struct mat_table*)m->mat);
  coll_free((coll_model*)m->coll);
  model_free((sim_model*)m->m);
}

void sim_free(sim* s) {
  if (!s) return;
  step_data_free(&s->model, &s->data);
  step_model_free(&s->model);
  free(s->opt.file);
  free(s);
}
