// options.h — the names of csim's choices, one enum each from the scenario (io/scenario.h reads
// them by the name tables there) down to the stage that acts on them: the contact model, the
// solver, the compliant integrator and its line search, how materials combine, the velocity
// products, the solver's stop criterion and tolerance units, and what to do on a failure or an
// energy gain.
#ifndef CSIM_OPTIONS_H
#define CSIM_OPTIONS_H

typedef enum {
  CSIM_MODEL_NCP, CSIM_MODEL_CCP, CSIM_MODEL_LCP, CSIM_MODEL_RAISIM, CSIM_MODEL_RAISIM_DS,
  CSIM_MODEL_HUNT_CROSSLEY, CSIM_MODEL_SPRING_DAMPER, CSIM_MODEL_BRISTLE, CSIM_MODEL_SQRT_SPRING,
  CSIM_NMODELS
} csim_model;
typedef enum {
  CSIM_SOLVER_PGS, CSIM_SOLVER_LEMKE, CSIM_SOLVER_ADMM, CSIM_SOLVER_STAGGERED, CSIM_SOLVER_BISECTION,
  CSIM_SOLVER_NONE, CSIM_NSOLVERS
} csim_solver;
typedef enum { CSIM_SCHEME_SEMI_IMPLICIT, CSIM_SCHEME_TAMSI, CSIM_SCHEME_IMPLICIT_EULER, CSIM_NSCHEMES } csim_scheme;
typedef enum { CSIM_FAIL_CONTINUE, CSIM_FAIL_STOP, CSIM_NFAIL } csim_on_failure;
typedef enum { CSIM_ENERGY_WARN, CSIM_ENERGY_STOP, CSIM_NENERGY } csim_on_energy;
typedef enum { CSIM_VP_MIDPOINT, CSIM_VP_EXPLICIT, CSIM_NVP } csim_vproducts;
typedef enum { CSIM_CRIT_NCP, CSIM_CRIT_MODEL, CSIM_NCRIT } csim_criterion;
// units of solver.tolerance: impulse (N s, csim's eps_abs as computed) or force (N: the tolerance
// applies to lambda / dt, as 002 Sec. II states the authors' code measures it)
typedef enum { CSIM_TOL_IMPULSE, CSIM_TOL_FORCE, CSIM_NTOLU } csim_tolerance_units;
typedef enum { CSIM_LS_TALS, CSIM_LS_BACKTRACKING, CSIM_LS_NONE, CSIM_NLS } csim_line_search;
typedef enum { CSIM_COMBINE_DRAKE, CSIM_COMBINE_MUJOCO, CSIM_COMBINE_MEAN, CSIM_NCOMBINE } csim_combine;

// 1 when m is one of the compliant force laws (no rigid solver)
static inline int csim_model_compliant(csim_model m) {
  return m >= CSIM_MODEL_HUNT_CROSSLEY && m <= CSIM_MODEL_SQRT_SPRING;
}

#endif  // CSIM_OPTIONS_H
