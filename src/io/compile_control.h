// compile_control.h — the scenario's controllers (controllers.N) compiled into the sim's
// controllers (core/control.h): robot and timing resolved, built-in laws chosen, plugins loaded
// (io/plugin_load.h), each controller's init called. A part of the scenario compiler
// (io/compile.c calls it once the model, its initial state and the contact buffers exist).
#ifndef CSIM_COMPILE_CONTROL_H
#define CSIM_COMPILE_CONTROL_H

#include "core/state.h"
#include "io/scenario.h"

// s->ctl, s->ctld, s->nctl and the per-link contact arrays; CSIM_ERR_INPUT naming the key for a
// robot that does not exist, a period or delay that is not a multiple of integrator.dt, a plugin
// that does not load, or a controller whose init fails (its message)
csim_status compile_controllers(const scn_config* cfg, sim* s, csim_error* err);

#endif  // CSIM_COMPILE_CONTROL_H
