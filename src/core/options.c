// options.c — the name of each value of the enums of options.h, as the scenario spells it
// (indexed by the enum value, NULL-terminated: io/scenario.c parses by them, the docs and the
// HDF5 attributes print them).
#include "core/options.h"

#include <stddef.h>

#define CSIM_NAME(id, name) name,
const char* const csim_model_names[] = {CSIM_MODELS(CSIM_NAME) NULL};
const char* const csim_solver_names[] = {CSIM_SOLVERS(CSIM_NAME) NULL};
const char* const csim_controller_names[] = {CSIM_CONTROLLERS(CSIM_NAME) NULL};
#undef CSIM_NAME
const char* const csim_scheme_names[] = {"semi_implicit", "tamsi", "implicit_euler", NULL};
const char* const csim_on_failure_names[] = {"continue", "stop", NULL};
const char* const csim_on_energy_names[] = {"warn", "stop", NULL};
const char* const csim_vproduct_names[] = {"midpoint", "explicit", NULL};
const char* const csim_criterion_names[] = {"ncp", "model", "relative", "auto", "natural", NULL};
const char* const csim_tolerance_units_names[] = {"impulse", "force", "contactbench", NULL};
const char* const csim_line_search_names[] = {"tals", "backtracking", "none", NULL};
const char* const csim_jacobian_names[] = {"full", "quasi_newton", NULL};
const char* const csim_error_estimate_names[] = {"step_doubling", "trapezoid", NULL};
const char* const csim_combine_names[] = {"drake", "mujoco", "mean", NULL};
const char* const csim_cone_names[] = {"elliptic", "pyramidal", NULL};
