// run.h — one scenario run from its file to its output: load, compile, the step loop with its
// failure policy (divergence, solver.on_failure, signals, output errors), the HDF5 file
// (out/output.h) and the summary. `csim run` calls it for each scenario it is given.
#ifndef CSIM_RUN_H
#define CSIM_RUN_H

// what a run is asked to do beyond its scenario
typedef struct {
  const char* const* sets;  // --set overrides "key=value", applied before validation
  int nset;
  const char* out;          // output path (NULL: output.path)
  int quiet;                // no progress and no summary
  int skip_complete;        // do not rerun when the output exists with complete = 1
} run_request;

// load, simulate, record, summarise; returns the exit code (0 success, 1 the run failed,
// 2 bad input)
int run_scenario(const char* path, const run_request* req);

#endif  // CSIM_RUN_H
