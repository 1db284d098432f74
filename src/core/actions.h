// actions.h — what drives a robot besides contact: external forces and torques on a link,
// joint-space PD to targets and sine trajectory tracking, clamped by the URDF effort limits
// (stage_actions in stage.h applies them each step). act_spec holds an action's values as the
// scenario gives them (actions.N, io/scenario.h); sim_action (state.h) resolves its names.
#ifndef CSIM_ACTIONS_H
#define CSIM_ACTIONS_H

typedef enum { ACT_PROFILE_CONSTANT, ACT_PROFILE_RAMP, ACT_PROFILE_SINE, ACT_NPROFILES } act_profile;
typedef enum { ACT_FORCE, ACT_PD, ACT_TRAJECTORY, ACT_NTYPES } act_type;

extern const char* const act_profile_names[];  // constant ramp sine (actions.c)
extern const char* const act_type_names[];     // force pd trajectory

// one action (actions.N): an external force, or joint-space PD / trajectory tracking
typedef struct {
  act_type type;  // 'type' (required)
  int line;              // line of this action's entry
  // force: external force or torque on a link
  char* body;            // 'body': link name (required for force)
  double direction[3];   // 'direction': unit vector (normalised here, must be non-zero), default 1 0 0
  int torque;            // 'torque': 1 = a torque about direction, default 0
  int local;             // 'frame': 0 world, 1 local (direction in the link frame), default world
  double point[3];       // 'point': application point in the link frame (m), default 0 0 0
  act_profile profile;   // 'profile': constant|ramp|sine, default constant
  double magnitude;      // 'magnitude': N (or N m); constant value, ramp start, sine offset
  double rate;           // 'rate': N/s (ramp): magnitude(t) = magnitude + rate (t - start)
  double amplitude, frequency, phase;  // sine: magnitude + amplitude sin(2 pi frequency (t-start) + phase)
  double start, stop;    // active window (s): 'start' default 0, 'stop' default +inf (all types)
  // pd and trajectory: joint-space control producing joint torques
  char* robot;           // 'robot': robot name, NULL = the first robot
  char** joint_names; int njoint_names;  // 'joints': names, or "all" -> NULL and -1
  double* target; int ntarget;           // 'target' (pd): NULL = hold the initial configuration; length 1 broadcasts
  double kp, kd;                         // 'kp' (N m/rad, > 0, required), 'kd' (N m s/rad, >= 0)
  // trajectory: q_ref = offset + amp sin(2 pi freq (t - start) + phase), per joint, length 1 broadcasts
  double* amp; int namp; double* freq; int nfreq; double* phase_j; int nphase;
  double* offset; int noffset;           // offset NULL = the initial joint positions
  double effort_limit;                   // 'effort_limit': N m, default +inf (torques clamped)
} act_spec;

#endif  // CSIM_ACTIONS_H
