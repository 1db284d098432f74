// state.c — the run state: freeing it, and the errors that name its buffers' sizes (state.h).
#include "core/state.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/compliant/compliant.h"
#include "core/material.h"

const char* const sim_warning_names[SIM_NWARN] = {
    "contact_buffer_full", "solver_not_converged", "effort_limit_clamped",
    "midpoint_iteration_cap", "energy_gain"};


// bytes of the contact buffers for n contacts: contact problem plus the rigid solver (so) or
// the compliant state (so NULL); SIZE_MAX when the solver cannot take n
size_t sim_buffer_bytes(const sim* s, const solver_options* so, int n) {
  size_t x = so ? solver_bytes(so, n) : cmpl_bytes(&s->opt.cmpl, s->m, n);
  return x == SIZE_MAX ? SIZE_MAX : contact_bytes(s->m, n) + x;
}

// the buffers with the dense island work sized for `rows` rows
static size_t island_bytes(const sim* s, int rows) {
  solver_options o = s->slv_opt;
  o.island_rows = rows;
  return sim_buffer_bytes(s, &o, s->maxcon);
}

// the error for a step whose largest island needs more rows of dense solver work than the
// island work holds (size_contacts); status CSIM_ERR_RUN
csim_status sim_island_overflow(const sim* s, const solver_result* r, csim_error* err) {
  double need = (double)(island_bytes(s, r->unsolved_rows) +
                         s->data_bytes) / SIM_MIB;
  return err_set(err, CSIM_ERR_RUN, s->opt.file, 0, 0, "contact.memory_budget",
                 "at step %ld (t = %.6g s) an island of %d contacts needs %d rows of dense %s "
                 "work (3 per contact, or the island's dofs when ADMM factors it in dof space); "
                 "the island work holds %d rows (an island of every contact could need %d): "
                 "contact.memory_budget %g MiB holds %d contacts' buffers and the island work "
                 "(%.1f MiB) and the simulation data (%.2g MiB), an island this large needs "
                 "about %.3g MiB: raise contact.memory_budget", s->step, s->d->time,
                 r->unsolved_island, r->unsolved_rows, csim_solver_names[s->slv_opt.kind],
                 s->island_rows, s->island_rows_worst, s->opt.memory_budget, s->maxgeom,
                 (double)s->buffer_bytes / SIM_MIB, (double)s->data_bytes / SIM_MIB, need);
}

csim_status sim_contact_overflow(const sim* s, int found, csim_status status, csim_error* err) {
  char when[96] = "at the initial state";
  if (status != CSIM_ERR_INPUT)
    snprintf(when, sizeof(when), "at step %ld (t = %.6g s)", s->step, s->d->time);
  int need = found + (s->maxcon - s->maxgeom);
  return err_set(err, status, s->opt.file, 0, 0, "contact.memory_budget",
                 "%s collision found %d contacts; the contact buffers hold %d (%.1f MiB of "
                 "%g MiB, which also holds the simulation data's %.2g MiB; G's blocks and dense "
                 "solver work grow as the square of the contacts; every contact this scene can "
                 "produce: %d); %d contacts need about %.3g MiB: raise contact.memory_budget",
                 when, found, s->maxgeom, (double)s->buffer_bytes / SIM_MIB,
                 s->opt.memory_budget, (double)s->data_bytes / SIM_MIB, s->maxgeom_worst, found,
                 (double)(contact_bytes(s->m, need) +
                          (s->opt.rigid ? solver_bytes(&s->slv_opt, need)
                                        : cmpl_bytes(&s->opt.cmpl, s->m, need)) +
                          s->data_bytes) /
                     SIM_MIB);
}

void sim_free(sim* s) {
  if (!s) return;
  if (s->act)
    for (int a = 0; a < s->nact; a++) {
      free(s->act[a].jnt);
      free(s->act[a].ref);
    }
  free(s->act);
  free(s->vfree); free(s->tau); free(s->qfrc_ext); free(s->qfrc_limit); free(s->aact);
  free(s->apas); free(s->wpos); free(s->vprev); free(s->robot_touch);
  solver_free(s->slv);
  cmpl_free(s->cmpl);
  mat_free(s->mat);
  contact_free(s->con);
  coll_free(s->coll);
  data_free(s->d);
  model_free(s->m);
  free(s->opt.file);
  free(s);
}

