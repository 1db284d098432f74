// replay.h — `csim replay`: a csim output file -> one self-contained HTML page playing the run in 3-D.
//
// Link poses come from csim itself, not from the browser: the model is rebuilt with csim's own
// loader (sim_create) from the scenario stored in the file (root attribute `scenario`, the YAML as
// run, its relative paths resolved against the root attribute `scenario_dir`, or the directory
// given in replay_options), and every kept row of /state/q goes through kin_forward. The run
// file therefore carries no pose or geometry data (0 extra bytes per step); the price is that the
// URDFs and meshes the run used must still be readable when `csim replay` runs, and that a URDF
// edited since the run changes the picture (a changed nq is refused).
//
// The page holds, as JSON in a <script type="application/json"> element:
//   - every collision geometry of the model (type, body, pose in the body frame, size; convex
//     hulls of meshes as vertices + faces, as csim built them), the ground plane;
//   - per kept row: time, eps_abs, energies, iterations, contact count; the world pose of every
//     moving body (position + quaternion [x y z w], float32);
//   - per contact: world point, world force on body2 (force = impulse/dt, from the contact frame
//     rows of /contacts/frame) and a slip flag: |tangential contact velocity| > the slip
//     threshold (rigid models: REPLAY_SLIP_VELOCITY; compliant laws: contact.stiction_velocity).
// Large arrays are base64 of little-endian float32 / int32 / uint8.
// three.js (tools/view/replay/node_modules/three/build/three.module.min.js, installed by `make deps`
// with npm ci) is inlined into the page as text and imported from a blob: URL, so opening the
// file needs no network.
//
// Bad input: a file that is not HDF5 or not a csim output is CSIM_ERR_INPUT naming the file and
// what is missing. A truncated run (complete = 0, datasets of unequal length, contacts past the
// end of the flat arrays) is replayed on the rows present; replay_info says so.
// The HTML is written to "<out>.tmp" and renamed, so a failure never leaves a partial page.
#ifndef CSIM_REPLAY_H
#define CSIM_REPLAY_H

#include "core/error.h"

#define REPLAY_SLIP_VELOCITY 1e-4   // m/s: rigid contacts slipping faster than this are "slip"

typedef struct {
  const char* scenario_dir;   // directory the scenario's relative paths resolve against
                              // (NULL: the file's scenario_dir attribute)
  const char* template_path;  // the page template (tools/view/replay/replay.html)
  const char* three_path;     // three.module.min.js
  int every;                  // keep every k-th row (>= 1)
} replay_options;

typedef struct {
  long rows;                  // rows present in the file (the shortest per-row dataset)
  long frames;                // rows kept in the page
  long contacts;              // contacts written
  long contacts_dropped;      // contacts of rows past the end of the flat arrays (truncated file)
  int bodies;                 // moving bodies (nbody - 1)
  int geoms;                  // geometries drawn (incl. the ground plane)
  int complete;               // the file's complete attribute
  char failure[512];          // the file's failure attribute ("" when none)
  long bytes;                 // size of the page written
  int ctl_footholds;          // planned footholds drawn (legs, over the controllers that log them)
  int ctl_commands;           // controllers whose commanded velocity is drawn as an arrow
} replay_info;

// write the replay page of the run file `run` to `out`
csim_status replay_write(const char* run, const char* out, const replay_options* opt,
                         replay_info* info, csim_error* err);

#endif  // CSIM_REPLAY_H
