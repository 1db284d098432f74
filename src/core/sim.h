// sim.h — the time step (000 eqs. 2-5, velocity-level time stepping), its one owner. sim_step
// is one outline of the stages of stage.h for every contact model:
//
//   positions -> collision -> mass -> audit -> actions -> [compliant: limit springs]
//   -> free velocity -> [rigid: joint limits as contacts] -> contact problem
//   -> solve (rigid: stage_solve)  |  force law + integrator (compliant: integrate.h)
//   -> integrate -> check
//
// The two families differ only at "solve or force law" (and at how a joint limit acts: a
// contact row or a spring). A compliant step whose Newton iteration fails is retaken from the
// same state in 2, 4, ... equal substeps (convergence control, 001 Sec. III-B); each substep is
// the same outline, and the audit runs once, on the state the step starts from.
// Everything is sized by sim_create (io/compile.h); sim_step allocates nothing.
#ifndef CSIM_SIM_H
#define CSIM_SIM_H

#include "core/state.h"

// one time step; returns CSIM_ERR_RUN (with err naming the step and time) on divergence, when
// a contact does not fit the buffers, or when the energy audit stops the run
// (integrator.on_energy_gain: stop)
csim_status sim_step(sim* s, sim_stepinfo* info, csim_error* err);

// after the last step: the energy audit of the final state (same failure rule as sim_step)
csim_status sim_finish(sim* s, csim_error* err);

#endif  // CSIM_SIM_H
