// cubetoss.h — recorded real cube tosses (../shared/data/cubetoss, seed 003 Sec. III-A, V-A) and
// their replay in csim: the data reader, seed 003's configuration error e_q (eq. 3), the cube
// scenario made in memory, and a parallel runner that simulates many tosses in one process.
//
// Data layout (the data README): a group holds `states` (rows x 13: x y z, qw qx qy qz,
// vx vy vz in the table frame, wx wy wz in the body frame) and `offsets` (n+1); the root holds
// `dt` (s) and `cube` (JSON: side_m, mass_kg, inertia_kgm2). The quaternion is converted at the
// boundary to csim's [x y z w]; the table-frame linear velocity of the centre is csim's free-joint
// linear velocity (model.h: com velocity in world axes; the cube's com is its centre) and the
// body-frame angular velocity is csim's as is (ct_row_state).
//
// A toss of T rows is simulated from its row 0 for T - 1 data periods of `substeps` steps each
// (seed 003 used 10 substeps of 1/148 s); simulated row k is the state after k periods, so row 0
// is the initial state. Scores are means over all T rows (the data README's recipe; row 0
// contributes 0):
//   e_q = mean_k ( (2/l) |p*_k - p_k|^2 + theta_k^2 )          (003 eq. 3, l = side in m)
//   position error = mean_k |p*_k - p_k| / l * 100              (% of the side, 003 Tab. III)
//   rotation error = mean_k theta_k in degrees                  (003 Tab. III)
// theta_k is the angle of the relative rotation R*_k' R_k, on the shortest arc (in [0, pi]).
//
// Determinism: every toss gets a fresh sim (no warm-start memory, compliant state or energy
// audit crosses tosses), and results are stored by toss index, so they do not depend on the
// number of threads.
#ifndef CSIM_CUBETOSS_H
#define CSIM_CUBETOSS_H

#include "core/error.h"
#include "io/scenario.h"

#define CT_NCOL 13          // columns of a data row
#define CT_MAXP 16          // most contact parameters of one model
#define CT_FAIL_EQ 10.0     // e_q charged to a failed toss by ct_mean_eq (identification)

// tosses of one group of a data file
typedef struct {
  char* file;               // path as given
  char* group;              // group name
  int ntoss;
  long* offsets;            // toss i is rows offsets[i] .. offsets[i+1]-1       (ntoss+1)
  double* states;           // rows as stored (wxyz quaternion)                  (rows x 13)
  int* split_key;           // the physical toss (duplicate_of when the file has it) (ntoss)
  double dt;                // s, root attribute `dt`
  double side, mass;        // m, kg (root attribute `cube`)
  double inertia[3];        // kg m^2, principal moments
} ct_data;

// a contact model and its parameters (contact.<key> = val, applied over the scenario defaults)
// Keys are contact keys (friction, stiffness, damping, restitution...), list items `solref.I`,
// `solimp.I` (gathered into contact.solref / contact.solimp), and material properties
// `materials.LINK.PROP` (contact.materials.LINK.PROP; the cube's link is `cube`, the table
// `ground`); combine is contact.combine ("" = the default).
typedef struct {
  char name[32];            // contact.model (scenario.h names)
  int np;
  char key[CT_MAXP][64];
  double val[CT_MAXP];
  char combine[16];
} ct_model;

// how to run
typedef struct {
  int substeps;             // steps per data period (default 10)
  int jobs;                 // threads (>= 1)
  const char* const* sets;  // extra scenario overrides "key=value" (applied last)
  int nsets;
} ct_options;

// one toss's outcome
typedef struct {
  double eq, pos, rot;      // e_q, position error (% of side), rotation error (deg); NaN when failed
  int failed;               // the step failed (divergence, non-finite state) or could not start
  long steps;               // steps taken
  double t_steps;           // s, wall time inside sim_step
  double t_total;           // s, wall time of the toss including set-up
} ct_result;

// read group `group` of an HDF5 file; CSIM_ERR_INPUT with a clear message for a missing file or
// group, a wrong layout, a non-finite value or a non-unit quaternion (naming toss and row)
csim_status ct_load(const char* path, const char* group, ct_data** out, csim_error* err);
void ct_free(ct_data* d);

// rows of toss i and their number
const double* ct_toss(const ct_data* d, int i, int* nrows);

// a data row -> csim free-joint state q = [x y z qx qy qz qw], v = [v_world; w_body]
void ct_row_state(const double row[CT_NCOL], double q[7], double v[6]);

// rotation angle (rad, in [0, pi]) of qa' qb, quaternions [x y z w] of any sign
double ct_quat_angle(const double qa[4], const double qb[4]);

// scores of simulated configurations sim (T x 7, csim order) against data rows ref (T x 13)
void ct_score(const double* ref, const double* simq, int T, double side, ct_result* out);

// the cube's URDF (side, mass, inertia of the data), malloc'd
char* ct_cube_urdf(const ct_data* d);

// the scenario of one model: cube on a plane at z = 0, g = 9.81, dt = data dt / substeps,
// each model's solver (ncp: pgs, ccp: admm, lcp: lemke, raisim(_ds): bisection, compliant laws:
// tamsi), then the model's parameters, then opt->sets
csim_status ct_scenario(const ct_data* d, const ct_model* mdl, const ct_options* opt,
                        scn_config** out, csim_error* err);

// simulate tosses idx[0..n) with opt->jobs threads into res (n); traj (may be NULL) receives
// the simulated rows of toss idx[j] at row offset sum_{j'<j} T(idx[j']) (x 7). Fails only on an
// input error (the scenario or model cannot be built); a failing toss is a result, not an error.
csim_status ct_run(const ct_data* d, const ct_model* mdl, const ct_options* opt, const int* idx,
                   int n, ct_result* res, double* traj, csim_error* err);

// mean e_q of n results, failed tosses counted as CT_FAIL_EQ
double ct_mean_eq(const ct_result* res, int n);

//---------------------------------- parameter files -------------------------------------------
// A params file is YAML: model name -> map of contact keys -> number, e.g.
//   hunt_crossley: {friction: 0.1, stiffness: 15500, damping: 1.3}
// and the material and softness keys as in a scenario, e.g.
//   hunt_crossley: {combine: drake, materials: {ground: {friction: 0.1, stiffness: 15500}, cube: {...}}}
//   ccp: {friction: 0.23, solref: [-3850, -63], solimp: [0.9, 0.95, 0.001, 0.5, 2]}
// csim identify writes it; csim validate --params reads it.

// the parameters of `name` in a params text (file names the text in messages); *found = 0 (and
// mdl->np = 0) when the text has no entry for it (an entry `name: {}` means the scenario defaults)
csim_status ct_params_parse(const char* text, const char* file, const char* name, ct_model* mdl,
                            int* found, csim_error* err);

// read a whole params file (CSIM_ERR_INPUT when missing or malformed); free the text
csim_status ct_params_read(const char* path, char** text, csim_error* err);

// the parameters csim ships (identified by csim identify cubetoss, see cubetoss.c)
const char* ct_default_params(void);

#endif  // CSIM_CUBETOSS_H
