// cli.h — the command line: one file per command (cli_<name>.c), listed once in CLI_COMMANDS.
//
// Exit codes: 0 success, 1 run failed (or compare found differences), 2 bad input.
#ifndef CSIM_CLI_H
#define CSIM_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "core/version.h"

// parse argv and run the subcommand; returns the process exit code
int cli_main(int argc, char** argv);

// Every command, declared once: X(name, usage lines for `csim --help`). Each is
// int cli_<name>(int argc, char** argv) in cli_<name>.c (identify beside validate in
// cli_validate.c: they share the tosses' options and loading; argv: the arguments after the command
// name), returning the process exit code; cli.c generates the dispatch and the help from this
// list. Adding a command: its file and its line here.
#define CLI_COMMANDS(X) \
  X(run, \
    "  run SCENARIO.yaml [--set key=value]... [--out FILE] [--quiet]\n" \
    "                         simulate a scenario and write an HDF5 file\n" \
    "  run A.yaml B.yaml... [--batch LIST] [--skip-complete] [--log-dir DIR]\n" \
    "                         several scenarios in one process (exit status: the worst)\n") \
  X(solve, \
    "  solve PROBLEM.hdf5|DIR --solver NAME [--model M] [--tolerance T] [--max-iterations N]\n" \
    "        [--csv FILE]\n" \
    "                         solve stored frictional contact problems (FCLib format)\n") \
  X(info, \
    "  info ROBOT.urdf|MODEL.xml [--base fixed|free] [--package-path DIR]...\n" \
    "                         print what the URDF or MJCF reader understood\n") \
  X(compare, \
    "  compare A.h5 B.h5 [--rtol R] [--atol A] [--only DATASET]...\n" \
    "                         golden-output check: exit 0 within tolerance, 1 not, 2 bad input\n") \
  X(sweep, \
    "  sweep SPEC.yaml [--out DIR]\n" \
    "                         expand a parameter sweep into runnable points for make, SLURM\n" \
    "                         or GNU parallel\n") \
  X(merge, \
    "  merge DIR [--out FILE.csv|FILE.h5]\n" \
    "                         one table of a sweep's results, one row per point\n") \
  X(plot, \
    "  plot RUN.h5 [more.h5...] [--out FILE.png] [--panels LIST]\n" \
    "                         PNG of energy, eps_abs, iterations, contacts, forces, slip, timing\n") \
  X(replay, \
    "  replay RUN.h5 [--out FILE.html]\n" \
    "                         self-contained 3-D replay page (open it in a browser)\n") \
  X(validate, \
    "  validate cubetoss [--data FILE.h5] [--group G] [--model M]... [--params FILE] [--jobs N]\n" \
    "        [--out DIR] [--tosses N|A-B]\n" \
    "                         every contact model against recorded real cube tosses (seed 003)\n") \
  X(identify, \
    "  identify cubetoss [--model M]... [--jobs N] [--tosses N|A-B] [--out FILE.yaml]\n" \
    "                         fit contact parameters to the tosses (mean e_q)\n")

#define CLI_DECLARE(name, text) int cli_##name(int argc, char** argv);
CLI_COMMANDS(CLI_DECLARE)
#undef CLI_DECLARE

// the path csim was started as (argv[0]), for the runners a sweep writes
const char* cli_argv0(void);

// path of `rel` inside csim's tools directory (the run-time assets are in its view/):
// $CSIM_TOOLS, else tools/ beside the executable or one or two levels above it (build/san/csim),
// else ./tools; 0 when not found
int cli_tools_file(const char* rel, char* out, size_t n);

// path with its extension replaced by ext (".png", ".html")
void cli_swap_ext(const char* path, const char* ext, char* out, size_t n);

// print the versions of csim and of the libraries it was built with
void cli_print_versions(FILE* f);

#endif  // CSIM_CLI_H
