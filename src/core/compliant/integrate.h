// integrate.h — the compliant family's part of the step (seed 001; integrate.c): the force law
// and its integrator (semi_implicit, tamsi, implicit_euler) where a rigid model solves its
// contact problem. The rest of the step is the one outline of sim.h.
#ifndef CSIM_COMPLIANT_INTEGRATE_H
#define CSIM_COMPLIANT_INTEGRATE_H

#include "core/state.h"

// after the shared stages up to the free velocity (sd->vfree) of a (sub)step of size h: the
// contact problem at q0, the scheme's Newton iteration, v+ into d->v, the impulses into
// con->lambda and the contact velocities into con->cvel, the metric (info->solve, info->ncon),
// penetration and stiction statistics and the law's state (deflections). Returns the
// configuration the positions integrate from (q0; implicit Euler's evaluations move d->q).
// *dropped is set to the contacts found when a contact did not fit the buffers.
const double* cmpl_integrate(const step_model* sm, step_data* sd, const sim_options* o, double h,
                             sim_stepinfo* info, int* dropped);

// 1 when the limit springs are made implicit in the step by the mass matrix (stage.h
// stage_limit_springs with h > 0): semi_implicit and tamsi; implicit Euler's Newton iterates on
// them instead
int cmpl_limit_springs_implicit(const cmpl_options* o);

// convergence control: the state a step starts from (q, v, time, the law's state), saved
// before its first attempt and restored for each retry in substeps
void cmpl_save_state(cmpl_data* c, const sim_model* m, const sim_data* d);
void cmpl_restore_state(cmpl_data* c, const sim_model* m, sim_data* d);

#endif  // CSIM_COMPLIANT_INTEGRATE_H
