// merge.h — `csim merge`: one table of a sweep's results, one row per point (README "Sweeps").
//
// A sweep directory (written by sweep.h) holds index.csv (point, name, one column per swept
// key, scenario, output), the outputs out/NAME.h5 and the per-point logs logs/NAME.log that
// `csim run --log-dir` appends (each attempt ends with "csim run: exit status N").
// mrg_sweep reads them and writes, for every row of index.csv in order:
//   point, name, the parameters as written in index.csv,
//   status      complete | failed | incomplete (file without an exit status: killed) | missing
//   complete    the output's root attribute complete (0 when there is no output)
//   exit_status the output's exit_status attribute, else the log's last "exit status N", else -1
//   message     the output's failure attribute, else the log's last "csim: error:" line, else ""
//   steps, eps_abs_mean, eps_abs_max, iterations_mean, iterations_max, nonconverged_steps,
//   energy_drift (last minus first recorded /energy/total), energy_injected (the root
//   attribute energy_injected, at the final state; else the last recorded /energy/injected;
//   empty when the file has neither), penetration_max (max of 0
//   and /contacts/depth: contacts within the margin have depth < 0), wall_time (s), us_per_step.
// Statistics are over the recorded rows (every output.every-th step); a failed or interrupted
// run's partial file gives the statistics of what it wrote. Numbers are printed with %.17g so
// two merges of identical runs are identical except wall_time and us_per_step.
// Output: CSV (empty cells for unknown numbers, RFC 4180 quoting) or HDF5 (.h5/.hdf5: one 1-D
// dataset per column at the root, numbers as float64 with NaN when unknown, point, complete,
// exit_status as int32, strings as variable-length UTF-8, a parameter column as float64 when
// every value is a number; root attribute "columns" lists the column names in order).
#ifndef CSIM_MERGE_H
#define CSIM_MERGE_H

#include <stdio.h>

#include "core/error.h"

// 1 when path is an HDF5 file whose root attribute complete equals 1, else 0 (never an error)
int mrg_output_complete(const char* path);

// merge the sweep directory dir into out (".csv", ".h5" or ".hdf5"; "-" = CSV on stdout).
//   counts: when not NULL, receives the number of points that are complete, and of all points
// returns CSIM_ERR_INPUT for a missing or malformed index.csv or an unwritable output
csim_status mrg_sweep(const char* dir, const char* out, int counts[2], csim_error* err);

#endif  // CSIM_MERGE_H
