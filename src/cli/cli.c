// cli.c — subcommand dispatch, help and versions.
#include "cli/cli.h"

#include <hdf5.h>
#include <string.h>
#include <yaml.h>

#include "core/error.h"

// the subcommands csim knows, with a one-line description each
static const char* const kUsage =
    "usage: csim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO.yaml [--set key=value]... [--out FILE] [--quiet]\n"
    "                         simulate a scenario and write an HDF5 file\n"
    "  run A.yaml B.yaml... [--batch LIST] [--skip-complete] [--log-dir DIR]\n"
    "                         several scenarios in one process (exit status: the worst)\n"
    "  solve PROBLEM.hdf5|DIR --solver NAME [--model M] [--tolerance T] [--max-iterations N]\n"
    "        [--csv FILE]\n"
    "                         solve stored frictional contact problems (FCLib format)\n"
    "  info ROBOT.urdf [--base fixed|free] [--package-path DIR]...\n"
    "                         print what the URDF parser understood\n"
    "  compare A.h5 B.h5 [--rtol R] [--atol A] [--only DATASET]...\n"
    "                         golden-output check: exit 0 within tolerance, 1 not, 2 bad input\n"
    "  sweep SPEC.yaml [--out DIR]\n"
    "                         expand a parameter sweep into runnable points for make, SLURM\n"
    "                         or GNU parallel\n"
    "  merge DIR [--out FILE.csv|FILE.h5]\n"
    "                         one table of a sweep's results, one row per point\n"
    "  plot RUN.h5 [more.h5...] [--out FILE.png] [--panels LIST]\n"
    "                         PNG of energy, eps_abs, iterations, contacts, forces, slip, timing\n"
    "  replay RUN.h5 [--out FILE.html]\n"
    "                         self-contained 3-D replay page (open it in a browser)\n"
    "  validate cubetoss [--data FILE.h5] [--group G] [--model M]... [--params FILE] [--jobs N]\n"
    "        [--out DIR] [--tosses N|A-B]\n"
    "                         every contact model against recorded real cube tosses (seed 003)\n"
    "  identify cubetoss [--model M]... [--jobs N] [--tosses N|A-B] [--out FILE.yaml]\n"
    "                         fit contact parameters to the tosses (mean e_q)\n"
    "\n"
    "options:\n"
    "  -h, --help             this help (csim COMMAND --help for a command's own)\n"
    "  --version              versions of csim and its libraries\n"
    "\n"
    "exit codes: 0 success, 1 run failed or files differ, 2 bad input\n";

void cli_print_versions(FILE* f) {
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  fprintf(f, "csim %s\n", CSIM_VERSION);
  fprintf(f, "  libyaml %s\n", yaml_get_version_string());
  fprintf(f, "  hdf5 %u.%u.%u\n", maj, min, rel);
  fprintf(f, "  libccd (system), lapacke + openblas (system)\n");
}

int cli_main(int argc, char** argv) {
  if (argc < 2) {
    fputs(kUsage, stderr);
    return CSIM_ERR_INPUT;
  }
  const char* cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    fputs(kUsage, stdout);
    return CSIM_OK;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    cli_print_versions(stdout);
    return CSIM_OK;
  }
  if (!strcmp(cmd, "info")) return cli_info(argc - 2, argv + 2, stdout);
  if (!strcmp(cmd, "run")) return cli_run(argc - 2, argv + 2);
  if (!strcmp(cmd, "solve")) return cli_solve(argc - 2, argv + 2);
  if (!strcmp(cmd, "compare")) return cli_compare(argc - 2, argv + 2);
  if (!strcmp(cmd, "sweep")) return cli_sweep(argc - 2, argv + 2, argv[0]);
  if (!strcmp(cmd, "merge")) return cli_merge(argc - 2, argv + 2);
  if (!strcmp(cmd, "plot")) return cli_plot(argc - 2, argv + 2);
  if (!strcmp(cmd, "replay")) return cli_replay(argc - 2, argv + 2);
  if (!strcmp(cmd, "validate")) return cli_validate(argc - 2, argv + 2);
  if (!strcmp(cmd, "identify")) return cli_identify(argc - 2, argv + 2);
  fprintf(stderr, "csim: error: unknown command '%s'\n\n%s", cmd, kUsage);
  return CSIM_ERR_INPUT;
}
