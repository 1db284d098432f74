// cli_merge.c — `csim merge`: one table of a sweep's results (out/merge.h).
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/error.h"
#include "out/merge.h"

static const char* const kMergeUsage =
    "usage: csim merge DIR [--out FILE.csv|FILE.h5]\n"
    "\n"
    "One table of a sweep directory, one row per point of DIR/index.csv: its parameters,\n"
    "status (complete, failed, incomplete, missing), complete flag, exit status, message, steps,\n"
    "eps_abs mean/max, iterations mean/max, non-converged steps, energy drift, injected energy,\n"
    "max penetration, wall time and us/step. Default --out DIR/merged.csv; - writes CSV to\n"
    "stdout. exit codes: 0 every point complete, 1 some point failed or missing, 2 bad input\n";

int cli_merge(int argc, char** argv) {
  const char* dir = NULL;
  const char* out = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(kMergeUsage, stdout);
      return CSIM_OK;
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      out = argv[++i];
    } else if ((argv[i][0] == '-' && argv[i][1]) || dir) {
      fprintf(stderr, "csim: error: merge: unexpected argument '%s'\n%s", argv[i], kMergeUsage);
      return CSIM_ERR_INPUT;
    } else {
      dir = argv[i];
    }
  }
  if (!dir) {
    fprintf(stderr, "csim: error: merge: missing DIR\n%s", kMergeUsage);
    return CSIM_ERR_INPUT;
  }
  char def[PATH_MAX];
  if (!out) {
    snprintf(def, sizeof(def), "%s/merged.csv", dir);
    out = def;
  }
  csim_error err;
  int counts[2] = {0, 0};
  csim_status st = mrg_sweep(dir, out, counts, &err);
  if (st != CSIM_OK) {
    err_print(&err, stderr);
    return st;
  }
  if (strcmp(out, "-")) printf("csim merge: %d of %d points complete; table in %s\n", counts[0],
                               counts[1], out);
  return counts[0] == counts[1] ? CSIM_OK : CSIM_ERR_RUN;
}
