// sim.h — a simulation built from a scenario, and its step (000 eqs. 2-5 velocity-level time
// stepping). sim_step reads as an outline of stage calls:
//   kinematics -> collision -> dynamics (M, b, factor) -> actions -> free velocity
//   -> contact problem (J, G, g, warm start) -> solver -> v+ = v_f + M^-1 J' lambda
//   -> q+ = q ⊕ v+ dt -> metrics
// Everything is sized in sim_create; sim_step allocates nothing.
#ifndef CSIM_SIM_H
#define CSIM_SIM_H

#include "collision.h"
#include "contact.h"
#include "data.h"
#include "model.h"
#include "scenario.h"
#include "solver.h"
#include "urdf.h"

// per-kind run-time warning counters (print first, count all)
typedef enum {
  SIM_WARN_CONTACTFULL = 0,  // collision found more contacts than the buffers hold
  SIM_WARN_NONCONVERGED,     // the contact solver stopped at its iteration cap
  SIM_NWARN
} sim_warning;

extern const char* const sim_warning_names[SIM_NWARN];

// what one step did (for recording and summaries)
typedef struct {
  int ncon;                 // contacts
  solver_result solve;      // iterations, eps_abs, residuals, converged
  double kinetic, potential;// J after the step
  double t_step, t_collision, t_dynamics, t_solve;  // wall time, s
} sim_stepinfo;

typedef struct {
  const scn_config* cfg;
  urdf_robot** urdf;        // (nrobot)
  sim_model* m;
  sim_data* d;
  coll_model* coll;
  contact_data* con;
  solver* slv;
  contact_options copt;
  int maxcon;
  // actions, resolved once
  int* act_link;            // force: link index                        (nactions)
  int* act_njnt;            // pd/trajectory: number of joints           (nactions)
  int** act_jnt;            // joint indices                             (nactions)
  double** act_ref;         // pd: targets per joint                     (nactions)
  double* vfree;            // (nv)
  double* tau;              // (nv)
  long step;                // steps done
  int warnings[SIM_NWARN];
  struct cmpl_data* cmpl;   // compliant contact state (compliant.h); NULL for rigid models
} sim;

// build model, data, collision, contact and solver from a validated scenario
csim_status sim_create(const scn_config* cfg, sim** out, csim_error* err);
void sim_free(sim* s);

// one time step; returns CSIM_ERR_RUN (with err naming the step and time) on divergence
csim_status sim_step(sim* s, sim_stepinfo* info, csim_error* err);

// the step of a compliant run (sim_compliant.c; sim_step calls it when s->cmpl is set)
csim_status sim_step_compliant(sim* s, sim_stepinfo* info, csim_error* err);

// actions at d->time and the current state -> d->qfrc_applied, d->xfrc_applied
void sim_apply_actions(sim* s);

#endif  // CSIM_SIM_H
