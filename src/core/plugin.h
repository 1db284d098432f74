// plugin.h — csim's public controller ABI: the one header a controller plugin includes.
//
// A controller reads a sensor view of one robot and writes its joint torques, once per control
// period (zero-order hold between control instants). csim's built-in controllers implement the
// same table as plugins do, so a plugin and a built-in controller with the same law give the
// same trajectory bit for bit. The header is self-contained (C99/C11, no other csim header) and
// installed by `make install` as <csim/plugin.h>; `pkg-config --cflags csim-plugin` finds it.
//
// A plugin is a shared library exporting one symbol:
//
//   const csim_plugin_api* csim_plugin_entry(void);
//
// returning a static table whose `abi` is CSIM_PLUGIN_ABI of the header it was built with; csim
// refuses a library whose symbol is missing or whose ABI differs (exit 2, naming the library).
//
// What a plugin may do: keep its own state (allocated in init, released in free), read the
// sensor view, write the torques and its log channels, return an error with a message. What it
// may not: keep pointers into the sensor view past the call (the arrays are reused), call back
// into csim (it has no access to csim's internals), or draw randomness from outside its params
// (csim's runs are deterministic; a plugin that wants the same is deterministic too). A plugin
// runs in csim's process: a crash takes the run down, and the output file keeps every row up to
// the last flush, as for SIGKILL. NaN or infinite torques stop the run (exit 1) naming the
// controller; so does a step that returns non-zero, with the plugin's message.
#ifndef CSIM_PLUGIN_H
#define CSIM_PLUGIN_H

#include <stddef.h>

#define CSIM_PLUGIN_ABI 1        // bumped on any change of the structs or the table below
#define CSIM_PLUGIN_MSG 256      // bytes of the message buffer init/step may write

// the robot as the controller sees it, fixed for the run (given to init)
typedef struct {
  int abi;                       // CSIM_PLUGIN_ABI of the calling csim
  const char* controller;        // the controller's name (scenario controllers.N.name)
  const char* robot;             // robot name
  int floating;                  // 1: the robot has a free base (base_* fields are meaningful)
  int njoint;                    // actuated joints: the robot's 1-dof joints, in model order
  const char* const* joint_names;//                                                  (njoint)
  const double* effort;          // effort limits, N or N m (0: none)                (njoint)
  const double* lower;           // position limits (-inf/+inf when not limited)     (njoint)
  const double* upper;           //                                                  (njoint)
  int nlink;                     // links of the robot (contact flags and forces per link)
  const char* const* link_names; //                                                  (nlink)
  double mass;                   // kg, the robot's total mass
  double gravity[3];             // m/s^2, world
  double period;                 // s, control period
  double dt;                     // s, the simulation step
  // params: the scenario's controllers.N.params map as key/value text (a list's items joined
  // by spaces); valid during init only: copy what the controller needs
  int nparam;
  const char* const* param_keys;
  const char* const* param_values;
} csim_plugin_info;

// what the sensors report at a control instant (noise applied where the scenario asks)
typedef struct {
  double time;                   // s
  const double* q;               // joint positions, rad or m                        (njoint)
  const double* v;               // joint velocities                                 (njoint)
  // base (floating robots; zeros otherwise). Quaternions are [x y z w].
  double base_pos[3];            // m, world
  double base_quat[4];           // base orientation, world
  double base_linvel[3];         // m/s, base origin velocity, world axes
  double base_angvel[3];         // rad/s, world axes
  double base_linvel_body[3];    // the same in the base frame
  double base_angvel_body[3];    //
  double imu_acc[3];             // m/s^2, proper acceleration (a - g) in the base frame, as an IMU
  double imu_gyro[3];            // rad/s, base frame (= base_angvel_body, with its own noise)
  const int* link_contact;       // 1 when the link touched something this step       (nlink)
  const double* link_force;      // N, world: sum of contact forces on the link  (nlink x 3)
} csim_sensors;

// status codes of init and step
enum { CSIM_PLUGIN_OK = 0, CSIM_PLUGIN_ERROR = 1 };

typedef struct {
  int abi;                       // CSIM_PLUGIN_ABI
  const char* name;              // the plugin's name, for messages
  // called once before the first step; *state is the plugin's (NULL allowed). nlog/log_names:
  // the scalar channels the plugin writes every control instant (recorded under
  // /control/<controller>/<name>); the names must outlive the run (static or in *state).
  int (*init)(const csim_plugin_info* info, void** state, int* nlog, const char* const** log_names,
              char msg[CSIM_PLUGIN_MSG]);
  // one control instant: tau (njoint, zeroed by csim) receives the joint torques, log (nlog)
  // the channels' values. Torques beyond the effort limits are clamped by csim and counted.
  int (*step)(void* state, const csim_sensors* sensors, double* tau, double* log,
              char msg[CSIM_PLUGIN_MSG]);
  void (*release)(void* state);  // after the last step (also after a failed run); may be NULL
} csim_plugin_api;

typedef const csim_plugin_api* (*csim_plugin_entry_fn)(void);
#define CSIM_PLUGIN_ENTRY "csim_plugin_entry"

#endif  // CSIM_PLUGIN_H
