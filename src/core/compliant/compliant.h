// compliant.h — compliant contact force laws with regularized friction (seeds 001, 004), the
// Transition-Aware Line Search (001 Sec. III-A), the per-contact state those laws carry between
// steps (bristle deflection, matched by contact id) (the /compliant datasets of the output are out/output.c's).
// The integrators that use them (semi_implicit, tamsi, implicit_euler) are in integrate.c.
//
// Conventions (contact.h): per contact, vectors are in the contact frame [t1 t2 n]; the contact
// velocity vc = [vt1 vt2 vn] is that of body2 relative to body1, vn > 0 separating; the force f is
// the force on body2 (its opposite acts on body1); the penetration delta > 0 when overlapping, so
// d(delta)/dt = -vn (001 Sec. II-B).
//
// Force laws (YAML contact.model) and their parameters (YAML key -> cmpl_params field, units):
//   k  = contact.stiffness, d = contact.damping, mu = contact.friction,
//   vs = contact.stiction_velocity, kt = contact.friction_stiffness, bt = contact.friction_damping
//
//   hunt_crossley  pi = k (1 + d ddelta)_+ delta_+ (Drake; 001 eq. 5);    k N/m, d s/m
//                  f_t = -mu~(|v_t| / vs) pi v_t/|v_t|, mu~(s) = mu min(s, 1)  (001 eqs. 6-7)
//   spring_damper  pi = tanh(2 delta / eps) (k delta - d vn)_+ for delta > 0 (jiminy, 004):
//                  linear spring-damper, blended in over the depth eps = CMPL_BLEND_DEPTH
//                  (jiminy's default transitionEps) so the force is continuous in delta;
//                  k N/m, d N s/m. Friction: jiminy's velocity ratio min(|v_t| / vs, 1), i.e.
//                  the same regularized Coulomb law as hunt_crossley, scaled by the same blend.
//   bristle        Hunt-Crossley normal force as above; viscoelastic bristle friction
//                  (RigidBodyDynamics.jl ViscoelasticCoulombModel, 004): a tangential
//                  displacement x (state) with f_stick = -kt x - bt dx/dt, clamped to the cone
//                  |f_t| <= mu pi; x follows dx/dt = v_t while sticking and
//                  dx/dt = -(kt x + f_t) / bt when clamped. kt N/m, bt N s/m (bt > 0).
//   sqrt_spring    MIT Cheetah ContactSpringDamper (004): zr = sqrt(delta_+),
//                  pi = (zr (k delta - d vn))_+; tangential deflection x (state) with
//                  f_stick = -zr (kt x + bt dx/dt), clamped to mu pi, and the same deflection
//                  rate rule as the bristle. Units: k N/m^1.5, d N s/m^1.5, kt N/m^1.5,
//                  bt N s/m^1.5 (the sqrt factor carries m^0.5); bt > 0.
//   Defaults (scenario schema): k 1e5, d 0, vs 1e-4 m/s, kt 1e4, bt 1e2.
//
// Discretisation of the state (every integrator): the deflection is advanced implicitly over the
// step h, x1 = x0 + h dx/dt(x1), so the sticking force is f_stick = -kt (x0 + h v_t) - bt v_t (an
// affine function of the step's tangential velocity, clamped to the cone) and after the step
// x1 = (bt x0 - h f_t) / (kt h + bt) (bristle; sqrt_spring with kt, bt scaled by zr), which equals
// x0 + h v_t while sticking. An unloaded contact (pi = 0) resets its deflection to zero
// (RigidBodyDynamics.jl resets the state out of contact). The state is stored in world
// coordinates per contact id (geom1, geom2, feature) and projected on the current tangent plane.
//
// Normal force and the step (cmpl_point): TAMSI approximates the penetration at the end of the
// step to first order, delta = delta0 - h vn (001 eq. 19), so pi is a function of vn; the
// semi-implicit scheme freezes pi at the start of the step (001 Sec. V-A); implicit Euler
// evaluates delta from the geometry of the end-of-step configuration (hpen = 0).
//
// Scenario keys of a compliant run (decisions):
//   integrator.line_search  tals (default): TALS, then residual backtracking as a safeguard;
//                           backtracking: no TALS; none: plain Newton with full steps (001's
//                           "without TALS" of Figs. 4, 5, 7), see integrate.c.
//   output.newton_history   K > 0 records /compliant/newton_history (cmpl_data.hist).
//   integrator.scheme       semi_implicit | tamsi | implicit_euler (integrate.c says how each
//                           works); integrator.newton_tolerance is on the max-norm of the Newton
//                           residual in m/s (contact velocities for semi_implicit/tamsi,
//                           generalized velocities for implicit_euler), newton_max_iterations caps
//                           the updates of one (sub)step.
//   integrator.accuracy     > 0: error control, variable substeps inside each dt by step
//                           doubling (sim.c step_error_controlled; any scheme); absent: fixed dt
//   integrator.jacobian     full | quasi_newton: implicit_euler's Jacobian reuse (integrate.c)
//   integrator.error_estimate  step_doubling | trapezoid: with accuracy, implicit_euler may take
//                           Drake's ImplicitEulerIntegrator instead (integrate.c
//                           trapezoid_estimate: the implicit trapezoid estimate, one pass per
//                           attempt in sim.c, Newton stopped on the accuracy)
//   solver.name             ignored: a compliant law needs no rigid solver, so any value is
//                           accepted ('none' is the natural spelling) and the HDF5 attribute
//                           'solver' says "none"; solver.tolerance/max_iterations/warm_start are
//                           ignored too. solver.on_failure applies to the Newton iteration (stop:
//                           exit 1 on the first step that fails even after convergence control;
//                           continue: the step is flagged in /compliant/newton_converged).
//   contact.baumgarte       ignored (a rigid drift correction; compliant laws have no drift);
//   contact.restitution,    rejected when > 0 (exit 2): the law's own damping sets the energy
//   contact.compliance      loss, and R = alpha diag(G) is the rigid models' compliance.
//   bristle, sqrt_spring    need friction_damping > 0 (exit 2 otherwise).
//   contact.margin          contacts within the margin are part of the step (TAMSI engages them
//                           through delta0 - h vn); the laws give them no force until delta > 0.
//
// TALS (001 Sec. III-A, Fig. 3): for each contact, with v the iterate's tangential velocity
// relative to the centre of the stiction region and dv the Newton update, alpha_i limits the
// update when the segment v -> v + dv crosses the stiction region (to the point of the segment
// closest to the centre) and limits direction changes to theta_max = pi/3 outside it; the step
// uses alpha = min_i alpha_i. The stiction region is the disc |v_t| <= vs (hunt_crossley,
// spring_damper) or the set of v_t whose sticking force lies inside the cone (bristle,
// sqrt_spring: a disc centred at -kt x0 / (kt h + bt)).
#ifndef CSIM_COMPLIANT_H
#define CSIM_COMPLIANT_H

#include "core/contact.h"
#include "core/error.h"
#include "core/material.h"
#include "core/options.h"

#define CMPL_BLEND_DEPTH 1e-3      // m: spring_damper tanh blending depth (jiminy transitionEps)
#define CMPL_MAX_HALVINGS 5       // convergence control: at most 2^5 substeps per step
#define CMPL_BACKTRACK 10         // most residual-backtracking halvings per Newton step
#define CMPL_BACKTRACK_AFTER 10   // tamsi, semi_implicit: backtrack only from this iteration on
// error control (integrator.accuracy; sim.c) and quasi-Newton (integrate.c)
#define CMPL_EC_SAFETY 0.9        // Drake's IntegratorBase step-size rule: safety factor,
#define CMPL_EC_MIN_SHRINK 0.1    //   largest shrink and growth per step,
#define CMPL_EC_MAX_GROW 5.0
#define CMPL_EC_HYST_HIGH 1.2     //   no growth below 1.2 h, shrink to at most 0.9 h
#define CMPL_EC_HYST_LOW 0.9
#define CMPL_EC_NEWTON_SHRINK 0.5 // a substep whose Newton failed is retried at half the size
#define CMPL_EC_MIN_STEP 1e-9     // s: smaller substeps stop the run (001 Sec. I saw 1e-7 s)
#define CMPL_QN_RATE 0.1          // quasi-Newton: a fresh Jacobian when an iteration shrinks
                                  // the residual by less than this factor
#define CMPL_DRAKE_KAPPA 0.05     // integrator.error_estimate trapezoid: Drake's Newton stop,
#define CMPL_DRAKE_MAX_IT 10      //   kappa accuracy (Hairer-Wanner IV.8: 0.01-0.1) in 10 updates
#define CMPL_THETA_MAX 1.0471975511965976  // pi/3: TALS largest direction change (001 Sec. III-A)

typedef struct {
  csim_model law;  // one of the compliant laws of options.h (csim_model_compliant)
  double mu;       // friction coefficient
  double k;        // normal stiffness (see the table above for units)
  double d;        // normal dissipation
  double vs;       // stiction velocity, m/s (hunt_crossley, spring_damper)
  double kt, bt;   // tangential bristle stiffness and damping (bristle, sqrt_spring)
  double blend;    // spring_damper blending depth, m
} cmpl_params;

// one contact as an integrator presents it to the law
typedef struct {
  double delta0;   // penetration at the start of the step (TAMSI) or at the evaluated
                   // configuration (implicit Euler), m
  double hpen;     // delta = delta0 - hpen vn (TAMSI: h; otherwise 0)
  int frozen;      // 1: the normal force is pi0 whatever vn (semi-implicit, 001 Sec. V-A)
  double pi0;      // frozen normal force, N
  double x0[2];    // deflection at the start of the step in [t1 t2] (bristle, sqrt_spring), m
  double h;        // step, s
} cmpl_point;

// the law evaluated at one contact velocity
typedef struct {
  double f[3];       // force on body2 in [t1 t2 n], N
  double dfdv[9];    // df/dvc, row-major 3x3 (N s/m)
  double pi;         // normal force, N
  int stick;         // 1: loaded and inside the stiction region
  double center[2];  // stiction region in v_t space: centre and radius (TALS)
  double radius;
  double x1[2];      // deflection after the step (bristle, sqrt_spring; else 0)
} cmpl_eval;

//---- force laws (pure functions) ----

// the options of a compliant run, compiled from the scenario (io/compile.c checks the law's
// parameters: cmpl_params from contact.*, restitution and compliance rejected)
typedef struct {
  cmpl_params p;           // the law and its parameters
  csim_scheme scheme;      // integrator.scheme
  double tolerance;        // integrator.newton_tolerance
  int max_iterations;      // integrator.newton_max_iterations
  csim_line_search line_search;  // integrator.line_search
  int newton_history;      // output.newton_history (0: not kept)
  double accuracy;         // integrator.accuracy (> 0: error control, sim.c; 0: fixed step)
  csim_jacobian jacobian;  // integrator.jacobian (implicit_euler)
  csim_error_estimate error_estimate;  // integrator.error_estimate (with accuracy)
} cmpl_options;

// normal force pi(delta, vn) >= 0 and its partial derivatives (either pointer may be NULL)
double cmpl_normal(const cmpl_params* p, double delta, double vn, double* dpi_ddelta,
                   double* dpi_dvn);

// the energy the law's normal spring stores at penetration delta, J (its dissipative part
// stores none): the integral of pi(delta, 0) over [0, delta]; 0 for delta <= 0. The energy
// audit counts it with the potential energy (integrate.h cmpl_energy)
double cmpl_elastic(const cmpl_params* p, double delta);

// regularized friction coefficient mu~(s) = mu min(s, 1) (001 eq. 7) and d mu~/ds (may be NULL)
double cmpl_mu_reg(double mu, double s, double* dmu_ds);

// force of the law at contact velocity vc (3) with its Jacobian df/dvc (001 eqs. 16, 20, 22)
void cmpl_force(const cmpl_params* p, const cmpl_point* c, const double vc[3], cmpl_eval* out);

// TALS step limit for one contact (001 Sec. III-A): v, dv are the tangential velocity relative to
// the stiction region's centre and its Newton update; radius the region's radius; returns alpha
// in (0, 1]
double cmpl_tals_alpha(const double v[2], const double dv[2], double radius, double theta_max);

//---- per-contact state and per-step results ----

// what a compliant run writes (the run's data, core/state.h; its options are cmpl_options, its
// materials the model's)
typedef struct cmpl_data {
  int maxcon, nv;          // sizes the buffers hold

  // deflection state carried by contact id: the previous step's contacts
  int nprev;
  int* prev_id;            // geom1, geom2, feature                           (maxcon x 3)
  double* prev_x;          // deflection in world coordinates                 (maxcon x 3)

  // this step, per contact of the recorded contact list
  double* x1;              // deflection after the step, contact frame [t1 t2 0] (maxcon x 3)
  double* x0;              // deflection at the start, contact frame [t1 t2]  (maxcon x 2)
  int* stick;              // 1: in stiction                                   (maxcon)
  double* slip;            // |v_t| after the step, m/s                        (maxcon)

  // results of the last step
  int iterations;          // Newton iterations (all attempts of the step)
  int substeps;            // substeps the step was taken in (convergence control; 1 normally)
  double residual;         // Newton residual at exit (m/s; implicit_euler: generalized velocity)
  int converged;
  int nfail;               // steps whose Newton iteration did not converge
  int nsubstepped;         // steps retaken in substeps by convergence control
  double pen_max, pen_mean;// penetration over the overlapping contacts of the step, m
  int nstick;              // contacts in stiction
  double stick_slip_max;   // largest |v_t| among them, m/s
  // work (001 Sec. IV-A: dynamics evaluations, counting those of the finite-difference
  // Jacobians): running totals over the run, and the last step's (sim.c)
  long work[3];            // dynamics evaluations, Jacobian evaluations, factorizations
  long work_step[3];
  int rejected;            // error control: substeps rejected in the last step
  double est_max;          // error control: largest local error estimate accepted in it
  long nrejected;          // ... in the run
  double h_next;           // error control: the substep to try next (0: integrator.dt)
  double h_min, h_max;     // error control: smallest and largest accepted substep of the run

  // workspace (sized once)
  double* vc;              // (3 maxcon) contact velocities
  double* vstar;           // (3 maxcon) free contact velocities
  double* R;               // (3 maxcon) residual
  double* dvc;             // (3 maxcon) Newton update
  double* vtry;            // (3 maxcon) line-search trial
  double* f;               // (3 maxcon) forces
  double* A;               // (maxcon x 9) df/dvc blocks
  double* N;               // (3 maxcon)^2 Newton matrix, then LU factors
  int* piv;                // (max(3 maxcon, nv)) pivots
  cmpl_point* pt;          // (maxcon) the law's view of each contact
  cmpl_eval* ev;           // (maxcon) its evaluation
  // implicit Euler
  contact_data* con_eval;  // contacts of the evaluated configurations (swapped with the sim's)
  double *q0, *v0, *vk, *r, *r2, *dv, *Jr, *tmp, *tmp2;  // (nq / nv / nv x nv)
  // quasi-Newton (integrator.jacobian: quasi_newton): Jd = da/dv (nv x nv, from the last fresh
  // finite-difference Jacobian J_r: (I - J_r) / h), Jr then holds the factors of I - h_fact Jd
  double* Jd;
  int jac_ok, fact_ok;     // Jd holds a Jacobian; Jr holds the factors of I - h_fact Jd
  double h_fact;
  // error control: the result the kept one is compared with (nq), (nv): step doubling's full
  // step, or under integrator.error_estimate: trapezoid the implicit trapezoid step
  double *qfull, *vfull;
  // integrator.error_estimate: trapezoid (integrate.c): the residual evaluated (IE_STEP, the
  // trapezoid's TR_STEP, or TR_START: h a(q0, v0)), h a(q0, v0), and whether the quasi-Newton
  // Jacobian was taken in the current solve
  int res_mode;
  double* a0h;             // (2 nv) h a(q0, v0), then (v0 + v) / 2
  int jac_fresh;
  // convergence control: the state the step started from
  double *qsave, *vsave, tsave;  // (nq), (nv)
  int nprev_save;
  int* prev_id_save;       // (maxcon x 3)
  double* prev_x_save;     // (maxcon x 3)

  // Newton residual history (output.newton_history = nhist > 0): hist[j] is the residual
  // max-norm at iterate j (j = 0: the initial guess) of the step's first solve, i.e. the whole
  // step before any convergence-control substep (001 Fig. 4 plots exactly this); NaN after the
  // last iterate; entries beyond nhist are not kept. hist_on is set by the step (sim.c) while
  // that solve runs.
  int nhist, hist_on;
  double* hist;            // (nhist)

} cmpl_data;

// the law's parameters at contact i of con: mu, k, d of the pair's materials (material.h), or
// o->p when there are none (mat NULL, or a limit row); tmp holds them when they differ
const cmpl_params* cmpl_law_at(const cmpl_options* o, const mat_table* mat,
                               const contact_data* con, int i, cmpl_params* tmp);

// the elastic energy the law stores in the contacts of con (from the collision at the state
// audited), J: each normal spring's cmpl_elastic at its depth with the pair's materials (mat; NULL:
// o->p for every contact), and bristle's tangential springs 1/2 kt |x|^2 of the deflections c
// carries (NULL: none). sqrt_spring's tangential springs (stiffness sqrt(delta) kt, changing with
// the depth) are not counted. The energy audit adds it to the potential energy (stage.c)
double cmpl_energy(const cmpl_options* o, const mat_table* mat, const contact_data* con,
                   const cmpl_data* c);

// the law has a deflection state (bristle, sqrt_spring)
static inline int cmpl_stateful(const cmpl_options* o) {
  return o->p.law == CSIM_MODEL_BRISTLE || o->p.law == CSIM_MODEL_SQRT_SPRING;
}

// integrator.line_search: TALS on (tals, the default); residual backtracking after it (tals,
// backtracking); none: plain Newton (001's comparisons with and without TALS, Figs. 4, 5, 7)
static inline int cmpl_tals_on(const cmpl_options* o) {
  return o->line_search == CSIM_LS_TALS;
}
static inline int cmpl_backtrack_on(const cmpl_options* o) {
  return o->line_search != CSIM_LS_NONE;
}

// bytes cmpl_create allocates for maxcon contacts
size_t cmpl_bytes(const cmpl_options* o, const sim_model* m, int maxcon);

// create the state for a model with nv dofs, nq coordinates and buffers of maxcon contacts
csim_status cmpl_create(const cmpl_options* o, const sim_model* m, int maxcon, cmpl_data** out,
                        csim_error* err);
void cmpl_free(cmpl_data* c);

// back to what cmpl_create left: no deflections, the last step's results and the counters
// cleared, the Newton history NaN (a run's reset, state.h)
void cmpl_reset(cmpl_data* c);

// deflection at the start of the step for contact i of con (frame coordinates, from the previous
// step's contact with the same id, zero when new) into x0 (2)
void cmpl_lookup_state(const cmpl_options* o, const cmpl_data* c, const contact_data* con, int i,
                       double x0[2]);

// remember the deflections x1 of con's contacts (world coordinates) for the next step
void cmpl_store_state(const cmpl_options* o, cmpl_data* c, const contact_data* con);

#endif  // CSIM_COMPLIANT_H
