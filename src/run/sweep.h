// sweep.h — `csim sweep`: a sweep spec (base scenario + axes) -> a directory of runnable points.
//
// The spec (YAML, README "Sweeps"):
//   base: ../scenarios/cube_slide.yaml     # required; relative to the spec file
//   name: friction_model                   # default: the spec file's stem ([A-Za-z0-9._-])
//   combine: product                       # product (first axis varies slowest) | zip
//   axes:                                  # required, >= 1; scenario key -> values
//     contact.friction: [0.1, 0.3, 0.5]    # a list (scalars or flow lists such as q0)
//     solver.tolerance: {from: 1.0e-2, to: 1.0e-6, count: 3, scale: log}   # scale: linear|log
//   repeat: 1                              # every point this many times (column 'repeat')
//   set: {integrator.duration: 0.3}        # overrides of every point
//   chunk: 1                               # points per Make recipe / array task / parallel job
//   slurm: {partition: P, time: "01:00:00", max_parallel: 64, cpus_per_task: 1, mem: 1G,
//           extra: ["--account=A"]}
// Every point is the base scenario with the `set` and axis overrides applied through
// scenario.h's --set machinery, then validated twice before anything is written: as overrides
// (errors point at the spec's value: SPEC:line:column, point number and name, scenario key) and
// as the point file that will run (scenario, URDF and model checks of sim_create). A bad value
// is CSIM_ERR_INPUT and leaves no sweep directory behind.
//
// The directory (DIR):
//   index.csv          point,name,<one column per axis key>[,repeat],scenario,output
//   points/NAME.yaml   the resolved scenario of each point (paths rewritten relative to points/,
//                      name = NAME, output.path = ../out/NAME.h5)
//   chunks/cNNNN.txt   the point files of each chunk, for `csim run --batch`
//   Makefile           `make -C DIR -j N`: every chunk; `make -C DIR merge`: merged.csv
//   sweep.sbatch       SLURM job array (--array=0-K%M), one chunk per task
//   parallel.sh        the GNU parallel command line
//   out/, logs/        outputs and per-point logs (`csim run --log-dir logs`)
// Every runner calls `csim run --skip-complete`, so rerunning any of them runs exactly the
// points whose output is missing or not complete = 1 (resume after an interrupt or preemption).
// NAME = zero-padded point number, then _<key leaf>-<value> per axis and _r<k> for repeats,
// with characters other than [A-Za-z0-9.+-] dropped or replaced. Range values: endpoints as
// given, interior values rounded to 15 significant digits (log ranges interpolate log10, so
// {from: 1e-2, to: 1e-6, count: 5} gives 0.01, 0.001, 0.0001, 1e-05, 1e-06), written in the
// shortest form that reads back exactly.
// Regenerating into an existing DIR is allowed when its index.csv is identical (same points);
// a DIR holding another sweep, or any non-empty directory that is not a sweep, is refused.
#ifndef CSIM_SWEEP_H
#define CSIM_SWEEP_H

#include <stdio.h>

#include "core/error.h"

// options of one `csim sweep`
typedef struct {
  const char* spec;      // spec file
  const char* out;       // sweep directory; NULL = sweeps/<name> in the current directory
  const char* csim;      // csim executable written into the runners (absolute path)
  FILE* report;          // where to print the summary and the three commands (NULL = none)
} swp_options;

// read the spec, validate every point, write the sweep directory; CSIM_ERR_INPUT on bad input
csim_status swp_generate(const swp_options* opt, csim_error* err);

#endif  // CSIM_SWEEP_H
