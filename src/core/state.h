// state.h — the run state's one home: the compiled options, the compiled actions, the energy
// audit, what one step did, and the struct every stage of the step works on (the model parts
// constant during a run, beside the data a run writes). Built by io/compile.h (sim_create) from
// a scenario; stepped by sim.h.
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

typedef struct sim {
  sim_options opt;
  sim_model* m;
  sim_data* d;
  coll_model* coll;
  contact_data* con;
  solver* slv;
  contact_options copt;
  solver_options slv_opt;   // what slv was created with (rigid models)
  int maxcon;               // contact buffer size (geometric contacts + limits)
  int maxgeom;              // of which geometric contacts (see size_contacts in sim.c)
  int maxgeom_worst;        // every contact collision can produce (coll_max_contacts)
  size_t buffer_bytes;      // bytes of the contact buffers for maxcon
  size_t data_bytes;        // bytes of sim_data (data_bytes): contact.memory_budget holds them
                            // and the contact buffers
  int island_rows;          // dense families: rows of the largest island the solver's work
                            // holds (slv_opt.island_rows, or the worst case); 0 otherwise
  int island_rows_worst;    // the rows an island of every contact could need (> island_rows:
                            // the island work was cut to fit contact.memory_budget)
  sim_action* act;          // (nact)
  int nact;
  // per-step work arrays (sized once)
  double* vfree;            // free velocity                                     (nv)
  double* tau;              // RNEA output                                       (nv)
  double* qfrc_ext;         // qfrc_applied + J' f_ext                           (nv)
  double* qfrc_limit;       // compliant limit spring torques                    (nv)
  double* aact;             // M^-1 (qfrc_ext + qfrc_limit - g(q))               (nv)
  double* apas;             // velocity-product acceleration -M^-1 C(q, vm) vm   (nv)
  double* wpos;             // the velocity positions move with                  (nv)
  double* vprev;            // previous midpoint iterate                         (nv)
  int* robot_touch;         // robot touches something (contact or limit)        (nrobot)
  // run state
  long step;                // steps done
  long midpoint_its;        // implicit-midpoint iterations of v_f, summed over steps
  int warnings[SIM_NWARN];
  sim_energy energy;
  cmpl_data* cmpl;          // compliant contact state (compliant.h); NULL for rigid models
  struct mat_table* mat;    // contact materials and MuJoCo softness (material.h); NULL when the
                            // scenario has neither contact.materials nor contact.solref
} sim;

void sim_free(sim* s);

// the error for a step (status CSIM_ERR_RUN) or the initial state (CSIM_ERR_INPUT) where
// collision found `found` contacts, more than the buffers hold; returns status
csim_status sim_contact_overflow(const sim* s, int found, csim_status status, csim_error* err);

// the error for a step whose largest island needs more rows of dense solver work than the
// island work holds (the rows in r: solver_result unsolved_*); status CSIM_ERR_RUN
csim_status sim_island_overflow(const sim* s, const solver_result* r, csim_error* err);

// bytes of the contact buffers for n contacts (contact problem plus the rigid solver so, or the
// compliant state when so is NULL); SIZE_MAX when the solver cannot take n
size_t sim_buffer_bytes(const sim* s, const solver_options* so, int n);

#endif  // CSIM_STATE_H
