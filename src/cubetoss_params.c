// cubetoss_params.c — the contact parameters csim ships for `csim validate cubetoss` (used when
// no --params is given), as written by `csim identify cubetoss` (the comment lines say when, on
// which data and split, and with which training and held-out e_q).
#include "cubetoss.h"

static const char kParams[] =
    "# starting guesses of csim identify (not identified yet)\n"
    "ncp: {friction: 0.5, restitution: 0}\n"
    "ccp: {friction: 0.5, compliance: 0.01}\n"
    "lcp: {friction: 0.5, restitution: 0}\n"
    "raisim: {friction: 0.5, restitution: 0}\n"
    "raisim_ds: {friction: 0.5, restitution: 0}\n"
    "hunt_crossley: {friction: 0.5, stiffness: 1.0e5, damping: 1.0}\n"
    "spring_damper: {friction: 0.5, stiffness: 1.0e5, damping: 50}\n"
    "bristle: {friction: 0.5, stiffness: 1.0e5, damping: 1.0}\n"
    "sqrt_spring: {friction: 0.5, stiffness: 1.0e5, damping: 50}\n";

const char* ct_default_params(void) {
  return kParams;
}
