// state.h — the run state's one home, in three parts with one owner each (MuJoCo's mjModel,
// mjData and mjOption): the options compiled from the scenario (sim_options), the model constant
// during a run (step_model), and everything a run writes (step_data). Built by io/compile.h
// (sim_create) from a scenario; stepped by sim.h; every stage of stage.h takes
// (const step_model*, step_data*, const sim_options*), so a stage cannot write the model or the
// options (their pointers are to const), and sim_reset puts back everything a run writes.
//
//   sim_options  the scenario's choices, compiled once: dt, the model family, limits, the energy
//                audit's rule, the contact options (contact.h), the rigid solver's options
//                (solver.h), the compliant law and integrator (compliant.h). The step never
//                reads the scenario.
//   step_model   constant during a run: the tree (sim_model), the collision model's constant
//                part (pairs, bounds, hulls, margin, patch settings), the contact materials, the
//                compiled actions, the initial state a run starts from (q_init, v_init) and the
//                capacities sized from contact.memory_budget (maxcon, maxgeom, island_rows,
//                buffer_bytes, data_bytes).
//   step_data    written by a run: the tree's state and arrays (sim_data: q, v, time, kinematics,
//                dynamics), collision's scratch (the sweep order), the contacts and their warm
//                start memory (contact_data), the rigid solver (its work, warm dual, ADMM's rho
//                and eigenvalue cache), the compliant state (deflections, Newton counters), the
//                step's work arrays, the step counter, midpoint iterations, warnings and the
//                energy audit. step_data_reset (sim_reset) returns all of it to what sim_create
//                left: a run after a reset repeats the first bit for bit.
//
// The names: sim_model and sim_data are the tree's (kinematics.h, dynamics.h take them, as
// MuJoCo's functions take mjModel and mjData); step_model and step_data are the whole step's,
// holding the tree's parts beside the contact, collision and solver parts. The one copy of an
// option outside sim_options is the rigid solver's (solver_create keeps its solver_options, a
// family's own configuration behind solver.h, equal to opt.solver).
//
// Contact capacity (no fixed cap): the contact buffers hold every contact collision can produce
// (coll_max_contacts: the sum over candidate pairs of each pair's most contacts), plus both
// limits of every limited joint, when those buffers and the simulation data (sim_data, linear in
// the dofs and bodies) fit in the memory budget
// contact.memory_budget (MiB, default 2048); otherwise they hold as many contacts as fit (the
// dense G and the solvers' work take about 216 bytes per contact pair, so 2 GiB hold about
// 3,100 contacts). A contact is never dropped: when collision finds more contacts than the
// buffers hold, sim_create fails with exit status 2 (the initial state) or sim_step with 1 (a
// later step), naming the count, the capacity and the budget. The dense solver families (ADMM,
// staggered, Lemke) keep work for their largest island, at worst an island of every contact;
// when that and the contacts do not both fit, the contacts are sized with the island work held
// to a quarter of the budget and the island work takes what they leave (island_rows < its worst
// case): a step with a larger island stops with status 1, naming the island, the reserve and the
// budget, never solving part of an island. (The patch reduction's deliberate
// removals are counted per step instead: sim_stepinfo nreduced, /contacts/reduced.)
#ifndef CSIM_STATE_H
#define CSIM_STATE_H

#include "core/actions.h"
#include "core/collision/collision.h"
#include "core/compliant/compliant.h"
#include "core/contact.h"
#include "core/control.h"
#include "core/data.h"
#include "core/model.h"
#include "core/options.h"
#include "core/solvers/solver.h"

#define SIM_MIB 1048576.0         // bytes per MiB (contact.memory_budget)

// per-kind run-time warning counters (print first, count all)
typedef enum {
  SIM_WARN_CONTACTFULL = 0,  // a joint-limit row found no room (cannot happen: sized for every
                             // limit); collision finding more is an error (sim_contact_overflow)
  SIM_WARN_NONCONVERGED,     // the compliant Newton solve stopped at its cap (a rigid solver's
                             // cap is reported per step: sim_stepinfo.solve.converged, counted
                             // in the run summary's non-converged steps)
  SIM_WARN_EFFORT,           // an action's joint torque was clamped to the URDF effort limit
  SIM_WARN_MIDPOINT,         // the implicit-midpoint iteration of v_f stopped at its cap
  SIM_WARN_ENERGY,           // the energy audit found a gain above integrator.energy_tolerance
  SIM_NWARN
} sim_warning;

extern const char* const sim_warning_names[SIM_NWARN];

// what one step did (for recording and summaries)
typedef struct {
  int ncon;                 // contacts (geometric; joint limits not included)
  int nlimit;               // active joint limits
  int nreduced;             // contacts the patch reduction removed (not in ncon; collision.h)
  int nreduced_touch;       // of which touching (depth >= 0); the rest were near (in the margin)
  solver_result solve;      // iterations, eps_abs, residuals, converged (contacts and limits)
  double kinetic, potential;// J at the start of the step
  double work;              // J: work of actions and external forces from t = 0 to the start
  double injected;          // J: energy not explained by work from t = 0 to the start (> 0: gain)
  double t_step, t_collision, t_dynamics, t_solve;  // wall time, s
} sim_stepinfo;

// options compiled from the scenario once (the step never reads the scenario; io/compile.c)
typedef struct {
  char* file;               // the scenario's path, for messages (owned)
  double dt;                // s
  int rigid;                // 1: rigid model and solver; 0: compliant law
  int warm_dual;            // solver.warm_dual
  int explicit_vp;          // integrator.velocity_products: explicit
  int limits;               // limits.enabled
  int effort;               // limits.effort
  double limit_k, limit_d;  // compliant limit spring (limits.stiffness, limits.damping)
  double margin;            // contact.margin (limits activate within it)
  double energy_tol;        // integrator.energy_tolerance (relative)
  int energy_stop;          // integrator.on_energy_gain: stop
  double memory_budget;     // contact.memory_budget, MiB
  cmpl_options cmpl;        // compliant models: the law and its integrator
  contact_options contact;  // the contact problem (contact.h)
  solver_options solver;    // the rigid solver (rigid models; what data.slv was created with)
} sim_options;

// an action compiled once: the scenario's values and the names resolved to indices
typedef struct {
  act_spec a;             // values (a copy; its arrays belong to the scenario)
  int link;                 // force: link index
  int njnt;                 // pd / trajectory: joints
  int* jnt;                 // joint indices                                    (njnt)
  double* ref;              // pd targets or trajectory offsets per joint      (njnt)
} sim_action;

// the energy audit (stage_mass, stage_integrate)
typedef struct {
  int started;              // the initial energy is known
  double e0;                // J, total energy of the initial state
  double e_prev;            // J, total energy at the start of the previous step
  double work_step;         // J, work of actions over the previous step
  double work;              // J, cumulative work up to the current state
  double injected;          // J, E - E0 - work (negative: dissipated)
  double injected_min;      // lowest value of injected so far
  double rise_max;          // largest injected - injected_min seen (the audited gain)
  double scale;             // J, energy scale the tolerance is relative to
  int flagged;              // a gain above the tolerance was seen
  long flag_step;           // first such step (the state at its start)
  double flag_time;         // s
  double flag_gain;         // J, the gain then
} sim_energy;

// the model side: constant during a run (the pointers are to const: a stage cannot write it)
typedef struct {
  const sim_model* m;       // the tree: bodies, joints, geoms (model.h)
  const coll_model* coll;   // collision's constant part (collision.h)
  const struct mat_table* mat;  // contact materials and MuJoCo softness (material.h); NULL when
                            // the scenario has neither contact.materials nor contact.solref
  const sim_action* act;    // the compiled actions (nact)
  int nact;
  const ctl_model* ctl;     // the controllers (control.h)                               (nctl)
  int nctl;
  const double* q_init;     // the state a run starts from (the scenario's q0, v0, joints) (nq)
  const double* v_init;     //                                                           (nv)
  // the trees below the world (stage_free_velocity iterates each to its own midpoint): body b's
  // tree body_tree[b] (b >= 1), tree t's dofs tree_dof[t] .. tree_dof[t + 1] - 1; one tree of
  // every body when some tree's dofs are not contiguous
  int ntree;
  const int* body_tree;     //                                                        (nbody)
  const int* tree_dof;      //                                                    (ntree + 1)
  int maxcon;               // contact buffer size (geometric contacts + limits)
  int maxgeom;              // of which geometric contacts (see size_contacts in compile.c)
  int maxgeom_worst;        // every contact collision can produce (coll_max_contacts)
  size_t buffer_bytes;      // bytes of the contact buffers for maxcon
  size_t data_bytes;        // bytes of sim_data (data_bytes): contact.memory_budget holds them
                            // and the contact buffers
  int island_rows;          // dense families: rows of the largest island the solver's work
                            // holds (opt.solver.island_rows, or the worst case); 0 otherwise
  int island_rows_worst;    // the rows an island of every contact could need (> island_rows:
                            // the island work was cut to fit contact.memory_budget)
} step_model;

// the data side: everything a run writes (step_data_reset returns it to the start)
typedef struct {
  sim_data* d;              // the tree's state and arrays (data.h)
  coll_scratch* coll;       // collision's scratch: the sweep order kept between steps
  contact_data* con;        // this step's contacts and the warm start memory (contact.h)
  solver* slv;              // rigid models: the solver's work, warm dual, penalties; else NULL
  cmpl_data* cmpl;          // compliant models: deflections, Newton state (compliant.h); else NULL
  // per-step work arrays (sized once)
  double* vfree;            // free velocity                                     (nv)
  double* tau;              // RNEA output                                       (nv)
  double* qfrc_ext;         // qfrc_applied + J' f_ext                           (nv)
  double* qfrc_limit;       // compliant limit spring torques                    (nv)
  double* qfrc_passive;     // joint springs and dampers (stage_passive)          (nv)
  double* aact;             // M^-1 (qfrc_ext + qfrc_limit + qfrc_passive - g(q)) (nv)
  double* apas;             // velocity-product acceleration -M^-1 C(q, vm) vm   (nv); carried:
                            // the next step's midpoint iteration starts from the
                            // line through it and apas1, the step before's     (nv)
  double* apas1;            //                                                   (nv)
  double* wpos;             // the velocity positions move with                  (nv)
  double* vprev;            // previous midpoint iterate                         (nv)
  int* tree_on;             // midpoint: trees still iterated (2: touching)      (ntree)
  double* tree_rho;         // midpoint, per tree: the contraction factor last   (4 ntree)
                            // measured, h s when measured (s: the velocity scale,
                            // stage.c mp_vscale), steps left to use it, last change
  int* robot_touch;         // robot touches something (contact or limit)        (nrobot)
  // controllers: what each writes (its state, held torques, delay line, noise generator), and
  // the per-link contact forces of the last step they sense (model-wide)
  ctl_data* ctl;            //                                                   (nctl)
  int* link_contact;        //                                                   (nlink)
  double* link_force;       //                                                   (nlink x 3)
  // counters
  long step;                // steps done
  long midpoint_its;        // implicit-midpoint iterations of v_f, summed over steps
  int warnings[SIM_NWARN];
  sim_energy energy;
} step_data;

// a simulation: options, model, data (sim_step(s) as MuJoCo's mj_step(m, d))
typedef struct sim {
  sim_options opt;
  step_model model;
  step_data data;
} sim;

void sim_free(sim* s);

// everything a run writes back to what sim_create left (step_data above): the state to q_init,
// v_init at time 0, inputs and work arrays zero, collision's sweep order, no contacts and no warm
// start memory, the solver's penalties and caches, the compliant deflections and counters, the
// step counter, midpoint iterations, warnings and the energy audit. Allocates nothing.
void step_data_reset(const step_model* m, step_data* d, const sim_options* o);
void sim_reset(sim* s);

// the error for a step (status CSIM_ERR_RUN) or the initial state (CSIM_ERR_INPUT) where
// collision found `found` contacts, more than the buffers hold; returns status
csim_status sim_contact_overflow(const step_model* m, const step_data* d, const sim_options* o,
                                 int found, csim_status status, csim_error* err);

// the error for a step whose largest island needs more rows of dense solver work than the
// island work holds (the rows in r: solver_result unsolved_*); status CSIM_ERR_RUN
csim_status sim_island_overflow(const step_model* m, const step_data* d, const sim_options* o,
                                const solver_result* r, csim_error* err);

// bytes of the contact buffers for n contacts (contact problem plus the rigid solver so, or the
// compliant state when so is NULL); SIZE_MAX when the solver cannot take n
size_t sim_buffer_bytes(const sim_model* m, const sim_options* o, const solver_options* so, int n);

#endif  // CSIM_STATE_H
