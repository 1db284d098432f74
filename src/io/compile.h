// compile.h — a validated scenario (scenario.h) compiled into a simulation (core/state.h): the
// one place where scenario keys become the model, the options the step reads and the compiled
// actions; everything the step needs is sized here (core/sim.h allocates nothing).
#ifndef CSIM_COMPILE_H
#define CSIM_COMPILE_H

#include "core/state.h"
#include "io/scenario.h"

// build model, data, collision, contact and solver from a validated scenario. The sim reads the
// scenario's action arrays: cfg outlives it
csim_status sim_create(const scn_config* cfg, sim** out, csim_error* err);
// the same with robot r's URDF read from urdf_text[r] instead of robots.r.urdf when that entry
// is not NULL (urdf_text may be NULL); robots.r.urdf then only names it in messages
csim_status sim_create_urdf(const scn_config* cfg, const char* const* urdf_text, sim** out,
                            csim_error* err);

// the model and a data for it at the scenario's initial state, nothing else (no collision,
// contact buffers or solver): what a reader of a run file needs to pose the bodies (csim replay)
csim_status compile_model_data(const scn_config* cfg, sim_model** m, sim_data** d,
                               csim_error* err);

// the compliant law's parameters from contact.*, with the checks beyond the schema's ranges:
// CSIM_ERR_INPUT (exit 2) for a rigid model or for values that make no sense for the law
csim_status compile_cmpl_params(const scn_config* cfg, cmpl_params* p, csim_error* err);

#endif  // CSIM_COMPILE_H
