// cli_sweep.c — `csim sweep`: a spec expanded into a sweep directory (run/sweep.h).
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/error.h"
#include "run/sweep.h"

static const char* const kSweepUsage =
    "usage: csim sweep SPEC.yaml [--out DIR]\n"
    "\n"
    "Expands a sweep spec (a base scenario and axes of values) into DIR (default sweeps/NAME):\n"
    "one validated scenario per point (points/), index.csv, a Makefile (make -C DIR -j N),\n"
    "a SLURM job array (sbatch DIR/sweep.sbatch) and a GNU parallel script (DIR/parallel.sh).\n"
    "Every point is validated first: a bad value exits 2 naming the spec line, point and key,\n"
    "and writes nothing. Rerunning any runner runs only points not yet complete.\n"
    "The runners call this csim executable; another one: make -C DIR CSIM=PATH, or the\n"
    "environment variable CSIM_SWEEP_EXE for sweep.sbatch and parallel.sh.\n"
    "exit codes: 0 written, 2 bad input\n";

// absolute path of the running executable, for the runners the sweep writes
static void self_path(const char* argv0, char* buf, size_t n) {
  ssize_t k = readlink("/proc/self/exe", buf, n - 1);
  if (k > 0) {
    buf[k] = '\0';
    return;
  }
  char* r = realpath(argv0, NULL);  // no /proc: as invoked
  snprintf(buf, n, "%s", r ? r : "csim");
  free(r);
}

int cli_sweep(int argc, char** argv) {
  swp_options opt = {NULL, NULL, NULL, stdout};
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(kSweepUsage, stdout);
      return CSIM_OK;
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      opt.out = argv[++i];
    } else if (argv[i][0] == '-' || opt.spec) {
      fprintf(stderr, "csim: error: sweep: unexpected argument '%s'\n%s", argv[i], kSweepUsage);
      return CSIM_ERR_INPUT;
    } else {
      opt.spec = argv[i];
    }
  }
  if (!opt.spec) {
    fprintf(stderr, "csim: error: sweep: missing SPEC.yaml\n%s", kSweepUsage);
    return CSIM_ERR_INPUT;
  }
  char self[PATH_MAX];
  self_path(cli_argv0(), self, sizeof(self));
  opt.csim = self;
  csim_error err;
  csim_status st = swp_generate(&opt, &err);
  if (st != CSIM_OK) err_print(&err, stderr);
  return st;
}
