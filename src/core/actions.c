// actions.c — the names of the action types and force profiles (actions.h), as the scenario
// spells them (indexed by the enum value, NULL-terminated).
#include "core/actions.h"

#include <stddef.h>

const char* const act_profile_names[] = {"constant", "ramp", "sine", NULL};
const char* const act_type_names[] = {"force", "pd", "trajectory", NULL};
