// output.h — the run file: one table of output datasets (output.c: name, type, columns, units,
// description, which runs have it), the root attributes, one row per recorded step, the closing
// attributes (energy audit, exit status) and output.dump_steps' contact problems (FCLib).
// Adding a dataset is one line of the table and one append in out_row, both in output.c.
// DESIGN.md "Output file" and docs/ describe the layout; /timing is the only dataset that
// differs between two runs of the same scenario on the same build.
#ifndef CSIM_OUTPUT_H
#define CSIM_OUTPUT_H

#include "core/state.h"
#include "io/scenario.h"
#include "out/record.h"

// which runs have a dataset
typedef enum {
  OUT_ALL,         // every run
  OUT_COMPLIANT,   // compliant laws (/compliant)
  OUT_HISTORY,     // compliant laws with output.newton_history > 0
  OUT_WORK,        // compliant laws with integrator.accuracy or integrator.jacobian: quasi_newton
  OUT_CONTROL,     // runs with controllers (/control)
  OUT_SPIN,        // models with condim 4/6 geoms (/contacts/moment)
  OUT_CONTROL_LOG, // runs whose controllers log channels
  OUT_AUTO,        // rigid runs with solver.name auto
} out_when;

// columns that depend on the run
#define OUT_NQ (-1)     // the model's nq
#define OUT_NV (-2)     // the model's nv
#define OUT_NHIST (-3)  // output.newton_history
#define OUT_NCTLJ (-4)  // the controllers' joints, summed
#define OUT_NCTLLOG (-5)  // the controllers' log channels, summed
#define OUT_NCTL (-6)   // the controllers

// THE table of datasets: X(ID, path, type, columns (0: a scalar per row), units, when, description)
#define OUT_DATASETS(X) \
  X(TIME, "/time", REC_F64, 0, "s", OUT_ALL, \
    "time at the start of the step") \
  X(Q, "/state/q", REC_F64, OUT_NQ, "m, rad", OUT_ALL, \
    "configuration at /time; free joints [x y z qx qy qz qw]") \
  X(V, "/state/v", REC_F64, OUT_NV, "m/s, rad/s", OUT_ALL, \
    "velocity at /time; free joints [com velocity, world axes; angular velocity, body axes]") \
  X(EK, "/energy/kinetic", REC_F64, 0, "J", OUT_ALL, \
    "1/2 v'M(q)v at /time") \
  X(EP, "/energy/potential", REC_F64, 0, "J", OUT_ALL, \
    "potential energy at /time: gravity, joint springs, and a compliant law's contact and joint-limit springs") \
  X(ET, "/energy/total", REC_F64, 0, "J", OUT_ALL, \
    "kinetic + potential") \
  X(EWORK, "/energy/work", REC_F64, 0, "J", OUT_ALL, \
    "work of actions and external forces from t = 0 to /time (cumulative)") \
  X(EINJ, "/energy/injected", REC_F64, 0, "J", OUT_ALL, \
    "total - initial total - work: energy not explained by the work done (< 0 dissipated, " \
      "a rise above its lowest value is energy gained from nowhere)") \
  X(L_COUNT, "/limits/count", REC_I32, 0, "1", OUT_ALL, \
    "active joint limits at this step") \
  X(L_OFFSET, "/limits/offset", REC_I32, 0, "1", OUT_ALL, \
    "first row of this step in the flat /limits arrays") \
  X(L_JOINT, "/limits/joint", REC_I32, 0, "1", OUT_ALL, \
    "joint index (model order, csim info --joints)") \
  X(L_SIDE, "/limits/side", REC_I32, 0, "1", OUT_ALL, \
    "0 lower limit, 1 upper limit") \
  X(L_GAP, "/limits/gap", REC_F64, 0, "m or rad", OUT_ALL, \
    "distance to the limit at /time, < 0 beyond it") \
  X(L_FORCE, "/limits/force", REC_F64, 0, "N or N m", OUT_ALL, \
    "generalized limit force (impulse / dt) pushing the joint back inside its range") \
  X(EPS, "/solver/eps_abs", REC_F64, 0, "m/s or N s", OUT_ALL, \
    "max over contacts of primal, dual and complementarity residuals (000 eq. 14)") \
  X(PRIMAL, "/solver/primal", REC_F64, 0, "N s", OUT_ALL, \
    "max distance of an impulse to its cone") \
  X(DUAL, "/solver/dual", REC_F64, 0, "m/s", OUT_ALL, \
    "max distance of c + Gamma(c) to the dual cone") \
  X(COMPL, "/solver/complementarity", REC_F64, 0, "N m", OUT_ALL, \
    "max |<lambda, c + Gamma(c)>| (impulse times velocity)") \
  X(ITERS, "/solver/iterations", REC_I32, 0, "1", OUT_ALL, \
    "solver iterations (sweeps)") \
  X(CONV, "/solver/converged", REC_U8, 0, "1", OUT_ALL, \
    "1 when eps_abs <= tolerance") \
  X(ISLANDS, "/solver/islands", REC_I32, 0, "1", OUT_AUTO, \
    "islands of the contact problem at this step (contacts coupled through shared dofs)") \
  X(SWITCHED, "/solver/switched", REC_I32, 0, "1", OUT_AUTO, \
    "solver.name auto: islands solved by the model's second solver (ADMM; Lemke for lcp) at " \
      "this step: every island of a step with a coupled island, else those PGS stalled on; " \
      "the others by PGS (docs/models_and_solvers.md)") \
  X(RESCUED, "/solver/rescued", REC_I32, 0, "1", OUT_AUTO, \
    "solver.name auto under ncp: of the switched islands, those PGS and ADMM both left above " \
      "the tolerance whose answer came from the third solver (ncp's semismooth Newton method, " \
      "kept where its stopping residual is the smaller; docs/models_and_solvers.md); 0 under " \
      "the other models") \
  X(T_STEP, "/timing/step", REC_F64, 0, "s", OUT_ALL, \
    "wall time of the whole step") \
  X(T_COLL, "/timing/collision", REC_F64, 0, "s", OUT_ALL, \
    "wall time of collision detection") \
  X(T_DYN, "/timing/dynamics", REC_F64, 0, "s", OUT_ALL, \
    "wall time of M, its factor, bias, actions") \
  X(T_SOLVE, "/timing/solve", REC_F64, 0, "s", OUT_ALL, \
    "wall time of the contact problem build and solve") \
  X(T_CTL, "/timing/control", REC_F64, OUT_NCTL, "s", OUT_CONTROL, \
    "wall time of each controller's own computation (its step call) at its last control " \
      "instant, controllers in scenario order (attribute columns); under /timing, as it differs " \
      "between runs") \
  X(C_COUNT, "/contacts/count", REC_I32, 0, "1", OUT_ALL, \
    "contacts at this step") \
  X(C_REDUCED, "/contacts/reduced", REC_I32, 0, "1", OUT_ALL, \
    "contacts collision found that the patch reduction removed at this step (contact.patch_angle, " \
      "contact.patch_max; not in the flat /contacts arrays; 0 with the reduction off)") \
  X(C_REDUCED_TOUCH, "/contacts/reduced_touching", REC_I32, 0, "1", OUT_ALL, \
    "of /contacts/reduced, those touching (depth >= 0); the others were near contacts within " \
      "contact.margin") \
  X(C_OFFSET, "/contacts/offset", REC_I32, 0, "1", OUT_ALL, \
    "first row of this step in the flat /contacts arrays") \
  X(C_BODY, "/contacts/body", REC_I32, 2, "1", OUT_ALL, \
    "bodies of geom1 and geom2 (0 = world); the force acts on body2, its opposite on body1") \
  X(C_POINT, "/contacts/point", REC_F64, 3, "m", OUT_ALL, \
    "contact point in the world") \
  X(C_NORMAL, "/contacts/normal", REC_F64, 3, "1", OUT_ALL, \
    "unit normal from geom1 (environment) into geom2 (body), world") \
  X(C_DEPTH, "/contacts/depth", REC_F64, 0, "m", OUT_ALL, \
    "penetration depth, > 0 overlapping") \
  X(C_FORCE, "/contacts/force", REC_F64, 3, "N", OUT_ALL, \
    "contact force = impulse / dt, in the contact frame [t1 t2 n]") \
  X(C_MOMENT, "/contacts/moment", REC_F64, 3, "N m", OUT_SPIN, \
    "torsional and rolling friction moments = spin impulse / dt, [about n, about t1, about t2] " \
      "(MJCF condim 4: the first; condim 6: all three; 0 for the contacts of condim 1 and 3 " \
      "pairs); present when the model has condim 4/6 geoms") \
  X(C_VEL, "/contacts/velocity", REC_F64, 3, "m/s", OUT_ALL, \
    "contact velocity after the step in the contact frame [t1 t2 n]") \
  X(C_FRAME, "/contacts/frame", REC_F64, 9, "1", OUT_ALL, \
    "contact frame rows t1, t2, n in world coordinates") \
  X(C_ID, "/contacts/id", REC_I32, 3, "1", OUT_ALL, \
    "geom1, geom2, feature: matches across steps") \
  X(CTL_TAU, "/control/tau", REC_F64, OUT_NCTLJ, "N m or N", OUT_CONTROL, \
    "joint torques the controllers applied over the step (held between control instants, " \
      "after their effort clamp): each controller's joints in model order, controllers in " \
      "scenario order (attribute columns: controller/joint)") \
  X(CTL_LOG, "/control/log", REC_F64, OUT_NCTLLOG, "per channel", OUT_CONTROL_LOG, \
    "the controllers' log channels at their last control instant (attribute columns: " \
      "controller/channel; quadruped_walk: commanded and measured base velocity, height, " \
      "MPC iterations and residual, planned footholds)") \
  X(CMPL_DS_ITER, "/compliant/newton_iterations", REC_I32, 0, "1", OUT_COMPLIANT, \
    "Newton iterations of the compliant step (semi_implicit, tamsi: contact-space Newton with " \
      "TALS; implicit_euler: Newton on v with a finite-difference Jacobian and TALS)") \
  X(CMPL_DS_SUB, "/compliant/substeps", REC_I32, 0, "1", OUT_COMPLIANT, \
    "substeps the step was taken in: 1, or 2^k when Newton failed on the whole step and " \
      "convergence control retook it in smaller equal steps (001 Sec. III-B)") \
  X(CMPL_DS_RES, "/compliant/newton_residual", REC_F64, 0, "m/s", OUT_COMPLIANT, \
    "Newton residual at exit: max-norm of vc - vc* - h G f(vc) (semi_implicit, tamsi; contact " \
      "velocities) or of v - v0 - h a(q0 + h v, v) (implicit_euler; generalized velocities)") \
  X(CMPL_DS_CONV, "/compliant/newton_converged", REC_U8, 0, "1", OUT_COMPLIANT, \
    "1 when the residual reached integrator.newton_tolerance") \
  X(CMPL_DS_PMAX, "/compliant/penetration_max", REC_F64, 0, "m", OUT_COMPLIANT, \
    "largest penetration depth over the step's contacts (0 when none overlaps)") \
  X(CMPL_DS_PMEAN, "/compliant/penetration_mean", REC_F64, 0, "m", OUT_COMPLIANT, \
    "mean penetration depth over the step's overlapping contacts (0 when none)") \
  X(CMPL_DS_NSTICK, "/compliant/stiction_count", REC_I32, 0, "1", OUT_COMPLIANT, \
    "loaded contacts in stiction after the step (|v_t| <= stiction_velocity, or the bristle " \
      "force inside the friction cone)") \
  X(CMPL_DS_SLIP, "/compliant/stiction_slip_max", REC_F64, 0, "m/s", OUT_COMPLIANT, \
    "largest tangential (slip) velocity among the contacts in stiction: the creep that " \
      "regularized friction allows (0 when none)") \
  X(CMPL_DS_X, "/compliant/bristle", REC_F64, 3, "m", OUT_COMPLIANT, \
    "per contact (rows aligned with /contacts: /contacts/offset, /contacts/count): deflection " \
      "state after the step in the contact frame [t1 t2 n] (bristle, sqrt_spring; zeros for " \
      "stateless laws), carried between steps by contact id") \
  X(CMPL_DS_DYN, "/compliant/dynamics_evaluations", REC_I32, 0, "1", OUT_WORK, \
    "dynamics evaluations of the step, 001 Sec. IV-A's measure of work: one per pass (the " \
      "start-of-step kinematics, collision, mass matrix and forces; semi_implicit and tamsi " \
      "need no other) plus, for implicit_euler, one per residual evaluation, those of the " \
      "forward-difference Jacobians (nv each) included; every attempt of the step counts") \
  X(CMPL_DS_JAC, "/compliant/jacobian_evaluations", REC_I32, 0, "1", OUT_WORK, \
    "Newton Jacobians computed in the step (implicit_euler: finite-difference ones; " \
      "semi_implicit, tamsi: the analytic contact-space matrix, one per iteration)") \
  X(CMPL_DS_FACT, "/compliant/factorizations", REC_I32, 0, "1", OUT_WORK, \
    "LU factorizations of the Newton matrix in the step") \
  X(CMPL_DS_REJ, "/compliant/rejected_substeps", REC_I32, 0, "1", OUT_WORK, \
    "integrator.accuracy: substeps rejected in the step (local error estimate above the " \
      "accuracy, or Newton failed) and retaken smaller; /compliant/substeps counts the " \
      "accepted ones, each a step of h and two of h/2 (step doubling)") \
  X(CMPL_DS_EST, "/compliant/error_estimate", REC_F64, 0, "m/s, m", OUT_WORK, \
    "integrator.accuracy: the largest local error estimate among the step's accepted " \
      "substeps (max-norm of the difference in q and v between a step of h and two of h/2; " \
      "0 without error control)") \
  X(CMPL_DS_HIST, "/compliant/newton_history", REC_F64, OUT_NHIST, "m/s", OUT_HISTORY, \
    "Newton residual (max-norm, as /compliant/newton_residual) at iterate j = 0, " \
      "1, ... of the step's first solve (the whole step, before convergence-control " \
      "substeps; j = 0 is the initial guess), the first output.newton_history " \
      "iterates, NaN after the last one (001 Fig. 4)")

typedef enum {
#define OUT_ENUM(id, path, type, ncols, units, when, desc) OUT_##id,
  OUT_DATASETS(OUT_ENUM)
#undef OUT_ENUM
  OUT_NDATASETS
} out_dataset;

// an open run file
typedef struct {
  rec_file* f;
  rec_dataset* ds[OUT_NDATASETS];  // NULL where the run does not have the dataset
  double dt;                       // s: impulses are recorded as forces (impulse / dt)
  double* ctl_row;                 // a /control row being assembled (controllers' joints and
                                   // log channels), sized at out_open; NULL without controllers
} out_run;

// create the file (only once the input is known to be good), its root attributes and every
// dataset the run has; chunked for rows_expected rows when that is small
csim_status out_open(const char* path, const scn_config* cfg, const sim* S, long rows_expected,
                     out_run* o, csim_error* err);

// one recorded row: the state the step started from (q0, v0 at time t) and the step's contact
// problem, solver results, energies, timings (info) and, for compliant laws, the law's results
csim_status out_row(out_run* o, const sim* S, const double* q0, const double* v0, double t,
                    const sim_stepinfo* info, csim_error* err);

// close: the energy audit's findings, exit status, steps and wall time as root attributes;
// complete = 1 only when rc == 0 (failure names why otherwise). Errors are printed; returns
// CSIM_ERR_RUN when the file could not be closed properly, else CSIM_OK
csim_status out_close(out_run* o, const sim* S, const scn_config* cfg, int rc, long steps,
                      double wall, const char* failure);

// output.dump_steps: write step k's contact problem (G, g, mu, R, and the impulses found as
// /solution/r) in FCLib local format to <output without .h5>_step<k>.hdf5, for `csim solve`
csim_status out_dump_problem(const sim* S, const scn_config* cfg, const char* out, long k,
                             int quiet, csim_error* err);

#endif  // CSIM_OUTPUT_H
