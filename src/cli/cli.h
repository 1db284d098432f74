// cli.h — the command line: subcommands run, solve, info, compare, sweep, merge (DESIGN.md "Command line").
//
// Exit codes: 0 success, 1 run failed (or compare found differences), 2 bad input.
#ifndef CSIM_CLI_H
#define CSIM_CLI_H

#include <stdio.h>

#include "core/model.h"
#include "io/urdf.h"

#include "core/version.h"

// parse argv and run the subcommand; returns the process exit code
int cli_main(int argc, char** argv);

// `csim info ROBOT.urdf`: print what the parser understood (links, joints by type, dofs, mass,
// inertia problems and fixes, geometries by kind, unresolved meshes) to f; returns an exit code
int cli_info(int argc, char** argv, FILE* f);

// `csim run SCENARIO [--set k=v]... [--out FILE] [--quiet]`; returns an exit code
int cli_run(int argc, char** argv);

// `csim solve PROBLEM.hdf5|DIR --solver NAME [--model M] [--tolerance T] [--max-iterations N]
// [--csv FILE]`: solve FCLib problems and print a table; returns 0 or 2 (bad input)
int cli_solve(int argc, char** argv);

// `csim compare A.h5 B.h5 [--rtol R] [--atol A] [--only DATASET]...`; returns 0, 1 or 2
int cli_compare(int argc, char** argv);

// `csim sweep SPEC.yaml [--out DIR]` (sweep.h); argv0 locates this executable; returns 0 or 2
int cli_sweep(int argc, char** argv, const char* argv0);

// `csim merge DIR [--out FILE]` (merge.h); returns 0 all complete, 1 some not, 2 bad input
int cli_merge(int argc, char** argv);
// `csim plot RUN.h5... [--out FILE.png] [--panels LIST] [--json FILE]`: runs tools/view/plot_run.py
// with python3 (matplotlib, h5py); returns 2 when it cannot be started, else does not return
int cli_plot(int argc, char** argv);

// `csim replay RUN.h5 [--out FILE.html] [--every K] [--scenario-dir DIR]` (replay.h); returns 0 or 2
int cli_replay(int argc, char** argv);

// `csim validate cubetoss [options]`: every contact model against recorded cube tosses (seed 003
// eq. 3, Tab. III); returns 0, 1 (output error) or 2 (bad input)
int cli_validate(int argc, char** argv);

// `csim identify cubetoss [options]`: fit contact parameters to the tosses (mean e_q) and write
// a params file; returns 0, 1 or 2
int cli_identify(int argc, char** argv);

// print the versions of csim and of the libraries it was built with
void cli_print_versions(FILE* f);

#endif  // CSIM_CLI_H
