// stage.h — the stages of one time step, called by the one outline of sim.c for rigid and
// compliant models alike, as MuJoCo's mj_step calls fwdPosition -> fwdVelocity -> fwdActuation ->
// fwdConstraint and Box2D's solver runs an enum of stages (DESIGN.md "The step as stages").
//
//   positions   stage_positions      kinematics at q: poses, motion subspaces
//   collision   stage_collision      contacts (ids) into sd->con; which robots touch something
//   mass        stage_mass           M(q), energies
//   audit       stage_audit          energy audit of the state the step starts from
//   forces      stage_actions        actions -> qfrc_applied, xfrc_applied (effort limits)
//               stage_passive        joint springs and dampers (the damping implicit)
//               stage_free_velocity  v_f = v + h M^-1 (tau - b) with the velocity-product terms
//                                    at the midpoint velocity (implicit midpoint, see below)
//               stage_factor         the tree-sparse factor of M with the implicit terms the
//                                    force stages put on its diagonal (one factor per pass)
//   limits      stage_limits         active joint limits appended to the contact problem (rigid)
//                                    or a stiff spring-damper torque (compliant)
//               stage_joint_friction dry joint friction rows appended after them (rigid)
//   solve       stage_solve          rigid models: the contact problem (contact.h) solved
//                                    (solver.h); compliant laws: compliant/integrate.h instead
//   integrate   stage_integrate      q+ = q ⊕ w h, work done by actions
//   check       stage_check          divergence (non-finite, |v| > 1e6)
//
// Every stage takes (const step_model* sm, step_data* sd, const sim_options* o) (state.h), as
// MuJoCo's mj_fwdPosition(m, d): it reads the model and the compiled options, never the
// scenario, and writes only the data (the model's and options' pointers are to const). sim.c's
// outline calls the stages; no stage calls it.
//
// Integration (DESIGN.md "Integration and energy"; the README documents it with measurements).
// The velocity update is Moreau's velocity-level step (000 eqs. 2-5): v+ = v_f + M^-1 J' lambda.
// In v_f the velocity-product terms C(q, v) v (Coriolis, centrifugal, the gyroscopic w x I w of a
// free body) are evaluated at the midpoint velocity (v + v_f) / 2 by fixed-point iteration: the
// implicit midpoint rule, which keeps every quadratic invariant of Euler's equations (a free
// body's kinetic energy and |angular momentum|) to the iteration's tolerance; evaluated
// explicitly they inject energy (1.2 % in 10 s for an intermediate-axis spin at dt = 1 ms).
// Free joints are described at the centre of mass (model.h: com velocity in world axes), so a
// body's translation has no velocity-product term at all and its momentum is exact.
// Positions move by w: w = v+ for a robot in contact or at a joint limit (the velocity the
// contact problem constrained: non-penetration and sticking hold for the positions). A robot
// with a free base that touches nothing is in free flight, where uniform gravity only
// translates it: there w = v+ - h/2 a_p with a_p = -M^-1 (C v + g) the passive acceleration, so
// its com follows the exact parabola (the trapezoidal rule is exact for a constant force) and its
// orientation turns by the midpoint angular velocity through the Cayley map written as an
// exponential map (angle 2 atan(h |w| / 2)), which with the implicit-midpoint Euler equations
// conserves the world angular momentum exactly (Simo & Wong 1991; Marsden & West, "Discrete
// mechanics and variational integrators", 2001). Forces of actions stay explicit (symplectic).
#ifndef CSIM_STAGE_H
#define CSIM_STAGE_H

#include "core/state.h"


// kinematics at d->q: poses, d->cdof, d->cdofw (d->cvel is stage_control's)
void stage_positions(const step_model* sm, step_data* sd, const sim_options* o);

// collision into sd->con (ncon, nlimit = 0, nreduced and nreduced_touch: what the patch reduction
// removed, coll_reduced) and the per-robot "touches something" flags;
// returns the number of contacts that did not fit (0 unless the buffers are smaller than
// collision's worst case, contact.memory_budget; the caller stops the run: sim_contact_overflow)
int stage_collision(const step_model* sm, step_data* sd, const sim_options* o);

// M, g(q) (d->qfrc_grav: stage_free_velocity's) and the energies of the current state
// (info->kinetic, info->potential); its factor is stage_factor's, once the implicit dampers and
// limit springs are on M's diagonal
void stage_mass(const step_model* sm, step_data* sd, const sim_options* o, sim_stepinfo* info);

// the tree-sparse L'DL factor of d->qM (dyn_factor): after stage_passive and stage_limit_springs
// (each adds its implicit terms to M's diagonal; one factor of the final M, not one per stage),
// before stage_free_velocity
void stage_factor(const step_model* sm, step_data* sd, const sim_options* o);

// the energy audit of the state at the start of step sd->step (time sd->d->time) whose energies
// are given (once per step): the work of the step that led here, /energy/injected = E - E0 -
// work and the gain check (sd->energy, state.h); info->work and info->injected receive the values
// at this state (info may be NULL). CSIM_ERR_RUN (err set) when it finds a gain above
// integrator.energy_tolerance and integrator.on_energy_gain is stop.
csim_status stage_audit(const step_model* sm, step_data* sd, const sim_options* o, double kinetic,
                        double potential, sim_stepinfo* info, csim_error* err);

// controllers (control.h) at the start of step sd->step, after stage_positions (kinematics at
// the current state; the body velocities d->cvel, computed here for them) and before collision (sd->con still holds the last
// step's contacts): the last step's contact forces per link, each controller's update (the
// torques due now held in sd->ctl, added to the actions' by stage_actions); CSIM_ERR_RUN when a
// controller fails. Once per step, on its first pass (a compliant step's retries reuse them)
csim_status stage_control(const step_model* sm, step_data* sd, const sim_options* o,
                          csim_error* err);

// actions at d->time and the current state -> d->qfrc_applied (clamped to the URDF effort
// limits when limits.effort), d->xfrc_applied; sd->qfrc_ext = qfrc_applied + J'f_ext
void stage_actions(const step_model* sm, step_data* sd, const sim_options* o);

// compliant models: the limit spring-damper torques at the current state into sd->qfrc_limit
// (zero elsewhere), for joints beyond a limit; with h > 0 the spring is made implicit in the
// step by adding h (damping + h stiffness) to M's diagonal at those dofs (call after stage_mass,
// before stage_factor); h = 0 only evaluates the torques (implicit_euler's Newton iterates on them).
// Returns the number of joints beyond a limit.
int stage_limit_springs(const step_model* sm, step_data* sd, const sim_options* o, double h);

// joint springs and dampers (dyn_passive) at the current state into sd->qfrc_passive; with
// h > 0 the damping is made implicit in the step by adding h D to M's diagonal (call after
// stage_mass, before stage_factor): (M + h D)(v+ - v) = h (f - D v) is M (v+ - v) = h (f - D v+), backward
// Euler in the damper, stable for any D (MuJoCo's Euler adds h D to M as well, mj_Euler). The
// springs stay explicit (symplectic Euler, as MuJoCo's). h = 0 only evaluates the forces
// (implicit_euler's Newton iterates on them). Returns the number of spring and damper terms
int stage_passive(const step_model* sm, step_data* sd, const sim_options* o, double h);

// sd->vfree = v + h M^-1 (qfrc_ext + qfrc_limit + qfrc_passive - C(q, vm) vm - g(q)), vm = (v + vfree) / 2 by
// fixed-point iteration on the velocity products only (gravity does not depend on v); sd->aact
// receives M^-1 (qfrc_ext + qfrc_limit - g), sd->apas the velocity-product part -M^-1 C vm.
// g(q) and the tree-frame terms of the velocity products are stage_mass's: call after it
void stage_free_velocity(const step_model* sm, step_data* sd, const sim_options* o, double h);

// rigid models: the joint limits that are active this step (at or within contact.margin of a
// limit, or reached within the step at the free velocity) appended to sd->con after the
// contacts as frictionless contacts with inert tangent rows (contact.h)
void stage_limits(const step_model* sm, step_data* sd, const sim_options* o, double h);

// rigid models, after stage_limits: a dry friction row for every dof with frictionloss
// (model.h dof_frictionloss; MuJoCo's mj_instantiateFriction, every step) appended after the
// limits (contact.h: |lambda| <= frictionloss h, a box written as a contact of mu 1 with a
// pinned normal)
void stage_joint_friction(const step_model* sm, step_data* sd, const sim_options* o);

// rigid models: a spin entry (contact.h) after the joint entries for each contact whose pair has
// condim 4 or 6 (MJCF torsional, rolling friction); none without MJCF geoms
void stage_spin(const step_model* sm, step_data* sd, const sim_options* o);

// rigid models, after a solve (d->v = v+): limits not yet in the problem that v+ would cross
// within the step are appended (as stage_limits does); returns how many
int stage_limits_crossed(const step_model* sm, step_data* sd, const sim_options* o, double h);

// rigid models, after stage_limits: the contact problem (000 eqs. 5-14) at the free velocity,
// solved; v+ = v_f + M^-1 J' lambda into d->v; a limit that the contact impulses drive a joint
// through within the step joins the problem, which is solved again (at most twice more); the
// contact velocities after the step (con->cvel) and the warm start kept. CSIM_ERR_RUN (the step
// not applied) for an island past the dense solver work (sim_island_overflow) or a contact
// problem past its bounds (a bug)
csim_status stage_solve(const step_model* sm, step_data* sd, const sim_options* o, double h,
                        sim_stepinfo* info, csim_error* err);

// positions: q_out = q ⊕ w h with w as in the file comment (d->v is v+); adds the work of the
// actions over the step to the energy audit
void stage_integrate(const step_model* sm, step_data* sd, const sim_options* o, const double* q,
                     double h, double* q_out);

// divergence check of the state after a step of size h ending at d->time
csim_status stage_check(const step_model* sm, const step_data* sd, const sim_options* o, double h,
                        csim_error* err);

// the energy audit once more for the final state (after the last step)
csim_status stage_audit_final(const step_model* sm, step_data* sd, const sim_options* o,
                              csim_error* err);

#endif  // CSIM_STAGE_H
