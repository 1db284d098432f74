// cubetoss_params.c — the contact parameters csim ships for `csim validate cubetoss` (used when
// no --params is given): the params files written by `csim identify cubetoss`, copied by
// tools/gen/cubetoss_params_c.py (their comment lines say when, on which data and split, and with
// which training and held-out e_q).
#include "run/cubetoss.h"

static const char kParams[] =
    "# contact parameters identified by csim identify cubetoss on 2026-11-23\n"
    "# data: ../shared/data/cubetoss/cube_tosses.h5 group dairlib550_eval, 430 tosses selected; training split: physical toss index even (216 tosses), held out: odd (214)\n"
    "# objective: mean e_q (seed 003 eq. 3), 10 substeps per data period, failed toss = 10\n"
    "# ccp: identified again on 2026-11-28 under MuJoCo's margin 0 (the default under MuJoCo softness since then): start 1.3655, training e_q 0.2312, held-out e_q 0.3194; 72 evaluations, 159.5 s (2 jobs); fit: friction and solref [-stiffness, -damping], damping in [5, 1000] N s/(kg m) (cli_validate.c). Under the 1 mm margin before it: training 0.2715, held-out 0.3180 at friction 0.1872, solref [-6635, -997] (the damping at its upper bound)\n"
    "ccp: {friction: 0.2029, solref: [-8944, -76.68]}\n"
    "# ncp: start 1.2085, training e_q 0.2293, held-out e_q 0.3085; 44 evaluations, 73.6 s\n"
    "ncp: {friction: 0.2026, restitution: 0.2776}\n"
    "# lcp: start 1.3258, training e_q 0.3440, held-out e_q 0.4053; 45 evaluations, 208.8 s\n"
    "lcp: {friction: 0.1684, restitution: 0.31}\n"
    "# raisim: start 1.1975, training e_q 0.2699, held-out e_q 0.3242; 45 evaluations, 168.5 s\n"
    "raisim: {friction: 0.2034, restitution: 0.1683}\n"
    "# raisim_ds: start 1.2071, training e_q 0.2293, held-out e_q 0.3080; 44 evaluations, 214.3 s\n"
    "raisim_ds: {friction: 0.2026, restitution: 0.2776}\n"
    "# hunt_crossley: start 1.6327, training e_q 0.2143, held-out e_q 0.2811; 62 evaluations, 80.5 s\n"
    "hunt_crossley: {friction: 0.1933, stiffness: 4.47e+05, damping: 0.03829}\n"
    "# spring_damper: start 1.6434, training e_q 0.2212, held-out e_q 0.2848; 63 evaluations, 97.9 s\n"
    "spring_damper: {friction: 0.1937, stiffness: 3.886e+05, damping: 10.6}\n"
    "# bristle: start 1.3733, training e_q 0.2221, held-out e_q 0.2945; 62 evaluations, 82.8 s\n"
    "bristle: {friction: 0.1948, stiffness: 3.571e+05, damping: 0.04029}\n"
    "# sqrt_spring: start 1.5058, training e_q 0.2723, held-out e_q 0.3259; 63 evaluations, 72.8 s\n"
    "sqrt_spring: {friction: 0.1773, stiffness: 2607, damping: 385.7}\n"
    ;

const char* ct_default_params(void) {
  return kParams;
}
