// sim_compliant.h — the time step with a compliant contact law (seed 001; sim_compliant.c):
// the shared stages of stage.h, then the force law and its integrator (semi_implicit, tamsi,
// implicit_euler) instead of a rigid solver. sim_step (sim.c) calls it for compliant models.
#ifndef CSIM_SIM_COMPLIANT_H
#define CSIM_SIM_COMPLIANT_H

#include "core/sim.h"

// one step of a compliant run (convergence control by substeps, 001 Sec. III-B)
csim_status sim_compliant_step(sim* s, sim_stepinfo* info, csim_error* err);

#endif  // CSIM_SIM_COMPLIANT_H
