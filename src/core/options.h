// options.h — the names of csim's choices, one enum each from the scenario (io/scenario.h reads
// them by the name tables there) down to the stage that acts on them: the contact model, the
// solver, the compliant integrator and its line search, how materials combine, the velocity
// products, the solver's stop criterion and tolerance units, and what to do on a failure or an
// energy gain.
#ifndef CSIM_OPTIONS_H
#define CSIM_OPTIONS_H

// the contact models: X(ID, name as the scenario spells it). Rigid models first (a rigid
// solver solves them), then the compliant force laws (compliant/compliant.h)
#define CSIM_MODELS(X) \
  X(NCP, "ncp") X(CCP, "ccp") X(LCP, "lcp") X(RAISIM, "raisim") X(RAISIM_DS, "raisim_ds") \
  X(HUNT_CROSSLEY, "hunt_crossley") X(SPRING_DAMPER, "spring_damper") X(BRISTLE, "bristle") \
  X(SQRT_SPRING, "sqrt_spring")
typedef enum {
#define CSIM_MODEL_ENUM(id, name) CSIM_MODEL_##id,
  CSIM_MODELS(CSIM_MODEL_ENUM)
#undef CSIM_MODEL_ENUM
  CSIM_NMODELS
} csim_model;
// the rigid models are the first ones (a rigid solver's models, core/solvers/solver.h)
#define CSIM_NRIGID_MODELS CSIM_MODEL_HUNT_CROSSLEY
// the solvers: X(ID, name); "none" is a compliant law's (no rigid solver)
#define CSIM_SOLVERS(X) \
  X(PGS, "pgs") X(LEMKE, "lemke") X(ADMM, "admm") X(STAGGERED, "staggered") \
  X(BISECTION, "bisection") X(AUTO, "auto") X(NEWTON, "newton") X(NONE, "none")
typedef enum {
#define CSIM_SOLVER_ENUM(id, name) CSIM_SOLVER_##id,
  CSIM_SOLVERS(CSIM_SOLVER_ENUM)
#undef CSIM_SOLVER_ENUM
  CSIM_NSOLVERS
} csim_solver;
// the rigid solvers are all but the last ("none")
#define CSIM_NRIGID_SOLVERS CSIM_SOLVER_NONE
// controller types (controllers.N.type; core/control.h): built-in laws and plugins
#define CSIM_CONTROLLERS(X) \
  X(PD, "pd")               \
  X(QUADRUPED_WALK, "quadruped_walk") \
  X(PLUGIN, "plugin") \
  X(JOINT_TRAJECTORY, "joint_trajectory") \
  X(INVERSE_DYNAMICS, "inverse_dynamics")
typedef enum {
#define CSIM_CONTROLLER_ENUM(id, name) CSIM_CONTROLLER_##id,
  CSIM_CONTROLLERS(CSIM_CONTROLLER_ENUM)
#undef CSIM_CONTROLLER_ENUM
  CSIM_NCONTROLLERS
} csim_controller;

typedef enum { CSIM_SCHEME_SEMI_IMPLICIT, CSIM_SCHEME_TAMSI, CSIM_SCHEME_IMPLICIT_EULER, CSIM_NSCHEMES } csim_scheme;
typedef enum { CSIM_FAIL_CONTINUE, CSIM_FAIL_STOP, CSIM_NFAIL } csim_on_failure;
typedef enum { CSIM_ENERGY_WARN, CSIM_ENERGY_STOP, CSIM_NENERGY } csim_on_energy;
typedef enum { CSIM_VP_MIDPOINT, CSIM_VP_EXPLICIT, CSIM_NVP } csim_vproducts;
// solver.criterion; auto (the default): ncp for the ncp model, model for the relaxed ones, whose
// answers cannot meet the NCP residual where they slide (issue 26: ccp ran to the cap there)
typedef enum {
  CSIM_CRIT_NCP, CSIM_CRIT_MODEL, CSIM_CRIT_RELATIVE, CSIM_CRIT_AUTO, CSIM_CRIT_NATURAL, CSIM_NCRIT
} csim_criterion;
// units of solver.tolerance: impulse (N s, csim's eps_abs as computed), force (N: the tolerance
// applies to lambda / dt, as 002 Sec. II states the authors' measure) or contactbench (the units
// of the authors' code, ContactBench simulators.py: the problem (G, g / dt) on forces lambda / dt,
// so velocities are c / dt too and the complementarity term is eps_c / dt^2)
typedef enum { CSIM_TOL_IMPULSE, CSIM_TOL_FORCE, CSIM_TOL_CONTACTBENCH, CSIM_NTOLU } csim_tolerance_units;
typedef enum { CSIM_LS_TALS, CSIM_LS_BACKTRACKING, CSIM_LS_NONE, CSIM_NLS } csim_line_search;
// integrator.jacobian (implicit_euler): a fresh Jacobian every Newton iteration, or one reused
// across iterations and steps until convergence slows (compliant/integrate.c)
typedef enum { CSIM_JAC_FULL, CSIM_JAC_QUASI_NEWTON, CSIM_NJAC } csim_jacobian;
// integrator.error_estimate (integrator.accuracy): csim's step doubling, or Drake's
// ImplicitEulerIntegrator (implicit trapezoid estimate, Newton stopped on the accuracy)
typedef enum { CSIM_EST_STEP_DOUBLING, CSIM_EST_TRAPEZOID, CSIM_NEST } csim_error_estimate;
typedef enum { CSIM_COMBINE_DRAKE, CSIM_COMBINE_MUJOCO, CSIM_COMBINE_MEAN, CSIM_NCOMBINE } csim_combine;
// contact.cone (ccp with MuJoCo softness): the Lorentz cone, or MuJoCo's pyramid of edges n +- mu t_k
typedef enum { CSIM_CONE_ELLIPTIC, CSIM_CONE_PYRAMIDAL, CSIM_NCONE } csim_cone;

// each enum's names as the scenario spells them, indexed by value, NULL-terminated (options.c)
extern const char* const csim_controller_names[];    // pd plugin
extern const char* const csim_model_names[];          // ncp ccp lcp raisim raisim_ds
                                                      //   hunt_crossley spring_damper bristle
                                                      //   sqrt_spring
extern const char* const csim_solver_names[];         // pgs lemke admm staggered bisection auto newton none
extern const char* const csim_scheme_names[];         // semi_implicit tamsi implicit_euler
extern const char* const csim_on_failure_names[];     // continue stop
extern const char* const csim_on_energy_names[];      // warn stop
extern const char* const csim_vproduct_names[];       // midpoint explicit
extern const char* const csim_criterion_names[];      // ncp model relative auto natural
extern const char* const csim_tolerance_units_names[];  // impulse force contactbench
extern const char* const csim_line_search_names[];    // tals backtracking none
extern const char* const csim_jacobian_names[];       // full quasi_newton
extern const char* const csim_error_estimate_names[]; // step_doubling trapezoid
extern const char* const csim_combine_names[];        // drake mujoco mean
extern const char* const csim_cone_names[];           // elliptic pyramidal

// 1 when m is one of the compliant force laws (no rigid solver)
static inline int csim_model_compliant(csim_model m) {
  return m >= CSIM_MODEL_HUNT_CROSSLEY && m <= CSIM_MODEL_SQRT_SPRING;
}

#endif  // CSIM_OPTIONS_H
