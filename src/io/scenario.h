// scenario.h — YAML scenario file -> validated configuration (scn_config), with --set overrides.
//
// Pipeline of scn_load:
//   1. read the file (regular file, <= SCN_MAX_FILE_BYTES) and parse it with libyaml into a tree
//      that keeps file:line:column of every node and key (yamltree.h); anchors, aliases, tags,
//      duplicate keys and several documents are input errors;
//   2. apply the overrides "key.path=value" to the tree, in order, BEFORE validation: segments
//      are separated by '.', numeric segments index lists (robots.0.q0=[0,0,1,0,0,0,1]), the
//      value is parsed as YAML (scalar, [list], {map}); a missing map key is created (so an unknown
//      key is then reported by validation), an index past the end of a list is an error;
//   3. emit the tree as YAML text (scn_config.text, the "scenario as run" stored in HDF5);
//   4. validate the tree against one static schema table (scenario.c: keys[]) that also drives
//      defaults and the documentation (scn_print_schema_markdown -> docs/scenario_keys.md).
//
// Errors are CSIM_ERR_INPUT with file:line:column of the offending node, the full key path
// (e.g. "robots.0.q0.3"), what was expected and what was found (with a did-you-mean suggestion for
// misspelt keys and enum values). Errors caused by an override report file "--set", line = the
// 1-based index of the override among the overrides, column = column in the override text, and
// quote the override.
//
// Relative paths (robots.N.urdf, robots.N.package_paths, output.path) are resolved against the
// scenario file's directory; both the text as written and the resolved path are kept. The
// default output path "out/<name>.h5" is relative to the current directory.
//
// Checks that need the robot model (q0/v0 lengths, joint and body names, model/solver pairing)
// belong to later modules; this module only parses and range-checks.
#ifndef CSIM_SCENARIO_H
#define CSIM_SCENARIO_H

#include <stdio.h>

#include "core/actions.h"
#include "core/error.h"
#include "core/options.h"

#define SCN_MAX_FILE_BYTES (8 << 20)   // larger scenario files are rejected

//---------------------------------- enums and their name tables -------------------------------
// Each name table is indexed by the enum value and NULL-terminated; the parser, the docs and the
// HDF5 attributes all use these tables.

typedef enum { SCN_BASE_FIXED = 0, SCN_BASE_FREE = 1 } scn_base;   // values equal model_base_type
// robots.N.joint_dynamics: what a run takes of the file's joint damping and dry friction (URDF
// <dynamics damping friction>, MJCF joint damping and frictionloss)
typedef enum { SCN_JDYN_APPLY = 0, SCN_JDYN_DAMPING, SCN_JDYN_IGNORE } scn_joint_dynamics;
// robots.N.spin_friction: the file's torsional and rolling friction (MJCF condim 4/6) taken or
// dropped (condim 3) for the models and laws that have none
typedef enum { SCN_SPIN_APPLY = 0, SCN_SPIN_IGNORE } scn_spin_friction;
extern const char* const scn_base_names[];           // fixed free
extern const char* const scn_joint_dynamics_names[]; // apply damping ignore
extern const char* const scn_spin_friction_names[];  // apply ignore
extern const char* const scn_ground_names[];         // none plane heightfield (index = scn_config.ground)
extern const char* const scn_frame_names[];          // world local  (index = act_spec.local)

//---------------------------------- configuration ---------------------------------------------

// joint name -> value (robots.N.joints)
// most steps a run may take (integrator.duration / integrator.dt), checked at load
#define SCN_MAX_STEPS 1e9

typedef struct { char* name; double value; } scn_named_value;

// one controller (controllers.N; core/control.h)
typedef struct {
  int line;              // line of this controller's entry
  csim_controller type;  // 'type' (required)
  char* name;            // 'name', NULL = "<type><N>"
  char* robot;           // 'robot', NULL = the first robot
  double period;         // 'period' s, 0 = the step (a multiple of integrator.dt)
  double delay;          // 'delay' s, >= 0 (a multiple of integrator.dt)
  char* library;         // plugin: 'library' resolved against the scenario's directory
  char* library_text;    //   ... as written
  char** params; int nparams;  // 'params': flat name, value pairs (values as text; a list's
                               // items joined by spaces)
  scn_named_value* noise; int nnoise;  // 'noise': sensor channel -> standard deviation
  int seed;              // 'seed' of the noise generator
} scn_controller;

// one robot (robots.N)
typedef struct {
  char* urdf;            // 'urdf' as written (NULL when the robot is an MJCF file)
  char* urdf_path;       // resolved relative to the scenario file's directory
  char* mjcf;            // 'mjcf' as written (NULL when the robot is a URDF file); exactly one
  char* mjcf_path;       //   of urdf and mjcf is given
  char* name;            // 'name', NULL = use the URDF's robot name
  scn_base base;         // 'base': free|fixed, default fixed
  scn_joint_dynamics joint_dynamics;  // 'joint_dynamics': apply|damping|ignore, default apply
  scn_spin_friction spin_friction;    // 'spin_friction': apply|ignore, default apply
  double pos[3];         // 'position': fixed base placement, default 0 0 0 (m)
  double rpy[3];         // 'rpy': fixed base orientation (roll, pitch, yaw about fixed x, y, z), rad
  char* keyframe;        // 'keyframe': an MJCF <key> by name or index (NULL = none)
  double* q0; int nq0;   // 'q0': full configuration (NULL = model default); length checked by caller
  double* v0; int nv0;   // 'v0': full velocity (NULL = zero)
  scn_named_value* joints; int njoints;  // 'joints': joint name -> initial position, after q0
  char** package_paths; int npackage_paths;  // 'package_paths': resolved directories
  char** package_paths_text;             // the same as written (npackage_paths)
  int line;              // line of this robot's entry, for later error messages
} scn_robot;

// one contact material (contact.materials.NAME): NAME is a URDF link, or `ground`; a field left
// out is NAN and means "the default material", i.e. the global contact key of the same name
typedef struct {
  char* name;            // link name, or "ground" for the ground plane
  double friction;       // mu >= 0, NAN = contact.friction
  double stiffness;      // > 0, NAN = contact.stiffness
  double damping;        // >= 0, NAN = contact.damping
  double restitution;    // in [0, 1], NAN = contact.restitution
} scn_material;

// a validated scenario
typedef struct {
  char* file;            // scenario path as given (or the name given to scn_load_string)
  char* dir;             // its directory ("." when none)
  char* text;            // YAML text as run (after overrides), for the HDF5 'scenario' attribute
  char** overrides; int noverrides;  // the overrides applied, in order
  char* name;            // 'name' (default: file stem)
  // world
  double gravity[3];     // 'world.gravity' default 0 0 -9.81 (m/s^2)
  int ground;            // 'world.ground.type': plane -> 1 (default), none -> 0, heightfield -> 2
  double ground_height;  // 'world.ground.height' default 0 (m)
  char* ground_file;     // 'world.ground.file' resolved (heightfield; NULL: a random field)
  char* ground_file_text;// the same as written
  double* ground_size; int nground_size;  // 'world.ground.size' [sx, sy] > 0 (m), default 4 4
  int ground_seed;       // 'world.ground.seed' >= 0, default 1
  double ground_amplitude;   // 'world.ground.amplitude' >= 0 (m), default 0.02
  double ground_resolution;  // 'world.ground.resolution' > 0 (m), default 0.1
  scn_robot* robots; int nrobots;   // 'robots' list, required, >= 1
  // contact
  csim_model model;  // 'contact.model' default ncp
  double friction;          // mu >= 0, default 0.5
  double restitution;       // e in [0, 1], default 0
  double baumgarte;         // K >= 0 (1/s), default 0
  double compliance;        // alpha >= 0, default 0 (R = alpha diag(G))
  int facets;               // lcp pyramid facets, >= 3, default 4
  double stiffness;         // compliant laws, N/m, > 0, default 1e5
  double damping;           // >= 0, default 0: d (s/m) hunt_crossley/bristle, c (N s/m) others
  double stiction_velocity; // v_s > 0 (m/s), default 1e-4
  double friction_stiffness, friction_damping; // tangential deflection, > 0 / >= 0, 1e4 / 1e2
  double margin;            // collision margin (m) >= 0, default 1e-3
  double patch_angle;       // 'contact.patch_angle' (rad) in [0, 1], 0 = no patch reduction
  int patch_max;            // 'contact.patch_max' 1..4, default 4
  int self_collision;       // 'contact.self_collision': bool, default false
  double memory_budget;     // 'contact.memory_budget' (MiB) > 0, default 2048 (sim.h)
  char** exclude; int nexclude; // 'contact.exclude': [linkA, linkB] pairs, flat (2*nexclude)
  csim_combine combine;      // 'contact.combine': rule for a pair of materials, default drake
  csim_cone cone;            // 'contact.cone': ccp's friction cone with MuJoCo softness, default elliptic
  scn_material* materials; int nmaterials; // 'contact.materials': per link (or ground), in file order
  double* solref; int nsolref; // 'contact.solref' (ccp): [timeconst, dampratio] or [-stiffness, -damping]; NULL = none
  double* solimp; int nsolimp; // 'contact.solimp' (ccp): [dmin, dmax, width, midpoint, power]; NULL = MuJoCo's default
  // solver
  csim_solver solver;        // 'solver.name' default pgs
  double tolerance;         // > 0, default 1e-8
  csim_criterion criterion;  // 'solver.criterion': ncp|model|relative, default ncp
  csim_tolerance_units tolerance_units;  // 'solver.tolerance_units': impulse|force|contactbench, default impulse
  double rel_tolerance;     // 'solver.rel_tolerance' (criterion relative), >= 0; 0 = the tolerance
  int max_iterations;       // >= 1, default 1000
  int warm_start;           // bool, default true
  double over_relaxation;   // (0, 2), default 1
  double rho;               // admm initial rho > 0, default 1
  int rho_adaptive;         // bool, default true
  int warm_dual;            // 'solver.warm_dual': bool, default false (ADMM's dual carried by contact id)
  csim_on_failure on_failure;// 'solver.on_failure' continue|stop, default continue
  // integrator
  csim_scheme scheme;    // 'integrator.scheme' default semi_implicit
  double dt;                // (0, 1], default 1e-3 (s)
  double duration;          // >= 0, default 1 (s)
  double newton_tolerance;  // > 0, default 1e-10
  int newton_max_iterations;// >= 1, default 50
  csim_line_search line_search; // 'integrator.line_search' tals|backtracking|none, default tals
  double accuracy;          // 'integrator.accuracy' > 0: error control (compliant laws); 0 = absent
  csim_jacobian jacobian;   // 'integrator.jacobian' full|quasi_newton, default full
  csim_error_estimate error_estimate; // 'integrator.error_estimate' step_doubling|trapezoid
  csim_vproducts velocity_products; // 'integrator.velocity_products' midpoint|explicit, default midpoint
  double energy_tolerance;  // 'integrator.energy_tolerance' > 0, default 0.05 (relative)
  csim_on_energy on_energy_gain; // 'integrator.on_energy_gain' warn|stop, default warn
  // joint limits
  int limits_enabled;       // 'limits.enabled' bool, default true
  int limits_effort;        // 'limits.effort' bool, default true
  double limits_stiffness;  // 'limits.stiffness' > 0, default 1e4 (compliant models)
  double limits_damping;    // 'limits.damping' >= 0, default 1e2 (compliant models)
  // actions
  act_spec* actions; int nactions;
  // controllers
  scn_controller* controllers; int ncontrollers;
  // output
  char* output_path;        // 'output.path' resolved; default "out/<name>.h5" (current directory)
  char* output_path_text;   // 'output.path' as written, NULL when absent
  int output_every;         // 'output.every' >= 1, default 1
  int newton_history;       // 'output.newton_history' in [0, 1000], default 0 (not recorded)
  double flush_every;       // 'output.flush_every' >= 0 s of wall time between flushes, default 1
  int* dump_steps; int ndump_steps; // 'output.dump_steps': step indices whose contact problem is dumped
  struct scn_pos* positions; int npositions;  // where each key given was written (scn_key_error)
} scn_config;

// where a key's value was written: file ("--set" for overrides), 1-based line and column
typedef struct scn_pos {
  char* key;             // full key path, "robots.0.q0"
  char* file;
  int line, column;
} scn_pos;

//---------------------------------- API -------------------------------------------------------

// load, override and validate a scenario file
//   overrides: noverrides strings "key.path=value" (may be NULL when noverrides == 0)
//   out: the new configuration (free with scn_free); NULL on error
csim_status scn_load(const char* path, const char* const* overrides, int noverrides, scn_config** out,
                     csim_error* err);

// same from a NUL-terminated text; name plays the file's role (errors, directory, default name)
//   name: NULL -> "<string>" (directory ".", default scenario name "scenario")
csim_status scn_load_string(const char* text, const char* name, const char* const* overrides,
                            int noverrides, scn_config** out, csim_error* err);

// fill err with an input error at the position of key (a full key path such as "robots.0.q0",
// "solver.name"; the scenario file with no line when the key was not written, i.e. a default)
// and return CSIM_ERR_INPUT; for checks made after loading (model sizes, names, pairs)
csim_status scn_key_error(const scn_config* cfg, const char* key, csim_error* err, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

// free a configuration (NULL is fine)
void scn_free(scn_config* cfg);

// index of name in a NULL-terminated name table, -1 when absent
int scn_name_index(const char* const* names, const char* name);

// print every key of the schema as a Markdown table (the content of docs/scenario_keys.md)
void scn_print_schema_markdown(FILE* f);

#endif  // CSIM_SCENARIO_H
