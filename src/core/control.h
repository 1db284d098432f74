// control.h — closed-loop controllers in the step: a controller reads a sensor view of one robot
// and writes its joint torques through the ABI of core/plugin.h, whether it is built in (ctl_pd
// below) or loaded from a shared library (io/plugin_load.h). The model side (ctl_model: which
// robot, joints, links, period, delay, noise) is fixed for a run; the data side (ctl_data: the
// controller's state, the held torques, the delay line, the noise generator) is what a run
// writes, and ctl_reset returns it to its initial state.
//
// Timing. Control instants are every `every` steps (period = every dt; the compiler refuses a
// period that is not a multiple of the step); the torques computed at step k are applied from
// step k + delay_steps on and held (zero-order hold) until the next instant's torques take over.
// Before the first torques arrive (a delay) the controller applies zero torque.
//
// Sensors. Joint q and v, base pose and twist (world and base frame; the base is the robot's
// root body), an IMU (proper acceleration a - g of the base origin over the last step, by
// finite difference of its world velocity, and the angular velocity, both in the base frame),
// per-link contact flags and forces of the last step, time. Noise: Gaussian, per channel
// standard deviation, from a generator seeded per controller (splitmix64), so runs stay
// deterministic.
#ifndef CSIM_CONTROL_H
#define CSIM_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "core/collision/collision.h"
#include "core/data.h"
#include "core/error.h"
#include "core/model.h"
#include "core/plugin.h"

// sensor channels that may carry noise (controllers.N.noise.<name>)
#define CTL_CHANNELS(X) \
  X(q, "joint positions, rad or m") \
  X(v, "joint velocities") \
  X(base_pos, "base position, m") \
  X(base_linvel, "base linear velocity, m/s") \
  X(base_angvel, "base angular velocity, rad/s") \
  X(imu_acc, "IMU proper acceleration, m/s^2") \
  X(imu_gyro, "IMU angular velocity, rad/s") \
  X(link_force, "link contact force, N")

typedef enum {
#define CTL_ENUM(name, desc) CTL_NOISE_##name,
  CTL_CHANNELS(CTL_ENUM)
#undef CTL_ENUM
  CTL_NCHANNELS
} ctl_channel;

extern const char* const ctl_channel_names[CTL_NCHANNELS + 1];  // NULL-terminated

// one controller, fixed for the run
typedef struct {
  const sim_model* m;           // the model (built-in controllers read it; plugins cannot)
  const csim_plugin_api* api;   // built in or from a library (not owned)
  csim_plugin_info info;        // njoint, names, limits, params... (arrays below)
  int robot;                    // model robot index
  int every;                    // control period in steps (>= 1)
  int delay_steps;              // steps between sensing and applying (>= 0)
  int* jnt;                     // model joint index per controlled joint     (njoint)
  int* link;                    // model link index per robot link            (nlink)
  double noise[CTL_NCHANNELS];  // standard deviations (0: exact)
  uint64_t seed;                // noise generator seed
  char* name;                    // info.controller (owned)
  const char** params;          // info.param_keys then info.param_values (owned, 2 nparam)
  void* lib;                    // the plugin's library handle (NULL: built in), closed by
  void (*lib_close)(void* lib); //   lib_close in ctl_model_free (io/plugin_load.h sets both)
} ctl_model;

// what a run writes for one controller
typedef struct {
  void* state;                  // the controller's own (init/release)
  int nlog;                     // its log channels
  const char* const* log_names;
  long instant;                 // control instants done
  long nclamped;                // instants with a torque clamped to its effort limit
  double solve_time;            // s, wall time of the last instant's step call (the
                                // controller's own computation, not the sensing)
  double solve_time_sum;        // s, summed over the instants done
  int nring;                    // delay line: torques of the last nring instants
  int ring_head;                // slot of the newest entry
  int ring_count;               // entries filled
  long* ring_step;              // step each entry was computed at              (nring)
  double* ring_tau;             //                                   (nring x njoint)
  double* tau;                  // torques applied this step (held)            (njoint)
  double* log;                  // the last instant's log values               (nlog)
  double* q, *v;                // sensor buffers                              (njoint)
  int* link_contact;            //                                             (nlink)
  double* link_force;           //                                         (nlink x 3)
  double vel_prev[3];           // base origin world velocity at the previous step
  int has_prev;                 // vel_prev is set
  uint64_t rng;                 // noise generator state
  csim_sensors sensors;         // the last view given to the controller
  csim_status pending;          // a reset whose init failed: ctl_update returns it
  csim_error pending_err;
} ctl_data;

// fill cm's robot-dependent parts from the model (joints: the robot's 1-dof joints that mimic no
// other, in model order; links: the robot's links) and info's arrays; params and names are
// borrowed from the caller (they must outlive the run). 0, or -1 when out of memory
int ctl_model_init(const sim_model* m, int robot, double dt, int every, int delay_steps,
                   ctl_model* cm);
void ctl_model_free(ctl_model* cm);

// allocate cd for cm and call the controller's init; CSIM_ERR_INPUT naming the controller with
// the controller's message when init fails or returns a log table that is not usable
csim_status ctl_data_init(const ctl_model* cm, ctl_data* cd, csim_error* err);
// the controller's release, then cd's arrays
void ctl_data_free(const ctl_model* cm, ctl_data* cd);

// back to the state ctl_data_init left (the controller is released and initialised again, so
// its own state restarts too); a failed init is kept and returned by the next ctl_update
csim_status ctl_reset(const ctl_model* cm, ctl_data* cd);

// per-link contact flags and forces (world, N) from the last step's contact impulses over h:
// the force on geom2's link is +F, on geom1's -F (core/contact.h's sign), F = (lambda_t1 t1 +
// lambda_t2 t2 + lambda_n n) / h. link_force is (m->nlink x 3), link_contact (m->nlink)
void ctl_link_forces(const sim_model* m, const coll_contact* con, int ncon, const double* frame,
                     const double* lambda, double h, int* link_contact, double* link_force);

// one step at d->time (step number `step`, kinematics and velocities current): at a control
// instant sense and call the controller; then set cd->tau to the torques due now. link_* are the
// model-wide arrays of ctl_link_forces. CSIM_ERR_RUN naming the controller when the controller
// fails or returns a non-finite torque (its message in err)
csim_status ctl_update(const sim_model* m, const sim_data* d, const ctl_model* cm, ctl_data* cd,
                       long step, const int* link_contact, const double* link_force,
                       csim_error* err);

// add cd->tau to the controlled dofs of qfrc (nv)
void ctl_apply(const sim_model* m, const ctl_model* cm, const ctl_data* cd, double* qfrc);

// the built-in joint PD: tau = kp (target - q) - kd v (params kp, kd, target; target defaults to
// the joint positions at the first instant; one value broadcasts to every joint)
const csim_plugin_api* ctl_builtin_pd(void);

// the built-in quadruped walking controller (controllers/quadruped.c: gait, Raibert footholds,
// convex MPC solved by csim's ccp/admm, Jacobian-transpose legs); params velocity "vx vy wz"
// (base frame), gait_period, step_height, height, mpc_dt, horizon, mu, kp_swing, kd_swing,
// k_feedback, weights (12), force_weight, mpc_tolerance, mpc_iterations, terrain flat|rough,
// descend. A built-in may read its ctl_model (model, robot) from
// the info it is given: &ctl_model.info
const csim_plugin_api* ctl_builtin_quadruped_walk(void);

// the built-in joint trajectory tracker (controllers/joint_trajectory.c): a CSV of time and joint
// values (params file, resolved by the scenario compiler), a not-a-knot cubic spline per joint,
// tau = RNEA(q, qd_des, qdd_des) + kp e + kd e' (params kp, kd, feedforward rnea|gravity|none)
const csim_plugin_api* ctl_builtin_joint_trajectory(void);
// the built-in inverse-dynamics (computed-torque) controller (controllers/inverse_dynamics.c): an
// end-effector frame (params link, offset, rpy) tracks Cartesian keyframes (a CSV of time, x, y,
// z, roll, pitch, yaw and an optional gripper column) with the resolved-acceleration law and a
// null-space posture term through csim's own RNEA and Jacobians; gripper joints position
// controlled (params gripper, kp_gripper, kd_gripper)
const csim_plugin_api* ctl_builtin_inverse_dynamics(void);

// ---- keyframe files (controllers/keyframes.c), shared by the trajectory built-ins ------------

// the not-a-knot cubic spline: the second derivatives M (n) through (t, y) (n >= 2, t
// increasing; w: n doubles of scratch), and value, first and second derivative at x (the end
// knots held outside [t0, tn-1])
void ctl_spline(const double* t, const double* y, int n, double* M, double* w);
void ctl_spline_eval(const double* t, const double* y, const double* M, int n, double x,
                     double out[3]);

// a keyframe file read: knot times t (nrow), values y and the splines' M column-major (column c
// at y + c nrow; ncol x nrow)
typedef struct {
  int ncol, nrow;
  double* t, *y, *M;
} ctl_keyframes;

// which columns a keyframe file may have after 'time': names and one describe them in messages
// ("joint names", "joint"); columns (NULL: any count) checks their count n and column the c-th
// name (0-based), each returning 0 or nonzero with what is wrong in what (the reader adds
// file:line:column)
typedef struct {
  const char* names;
  const char* one;
  int (*columns)(void* ctx, int n, char* what, size_t nwhat);
  int (*column)(void* ctx, int c, const char* name, char* what, size_t nwhat);
  void* ctx;
} ctl_csv_spec;

// read path (blank lines and lines starting with '#' skipped, the header, then at least two rows
// with increasing times) and prepare the splines; CSIM_PLUGIN_ERROR with "path:line:column: ..."
// in msg. k is zeroed first, and ctl_keyframes_free releases it either way
int ctl_keyframes_read(const char* path, const ctl_csv_spec* spec, ctl_keyframes* k,
                       char msg[CSIM_PLUGIN_MSG]);
// value, first and second derivative of column c at time x
void ctl_keyframes_eval(const ctl_keyframes* k, int c, double x, double out[3]);
void ctl_keyframes_free(ctl_keyframes* k);

// the value of param key (NULL: absent)
const char* ctl_param(const csim_plugin_info* in, const char* key);
// param key as n numbers: one (broadcast) or n ("one per <per>" in the message), each >= lo (> lo
// when strict; lo -inf: any); absent: def everywhere (NAN: required). CSIM_PLUGIN_ERROR with msg
int ctl_param_nums(const csim_plugin_info* in, const char* key, double lo, int strict, double def,
                   double* out, int n, const char* per, char msg[CSIM_PLUGIN_MSG]);

#endif  // CSIM_CONTROL_H
