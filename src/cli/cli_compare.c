// cli_compare.c — `csim compare`: golden-output comparison of two run files (out/compare.h).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/error.h"
#include "out/compare.h"

static const char* const kCompareUsage =
    "usage: csim compare A.h5 B.h5 [--rtol R] [--atol A] [--only DATASET]...\n"
    "\n"
    "Compares every dataset of two csim output files (B is the reference), except /timing and\n"
    "the root attributes: |a - b| <= atol + rtol |b| elementwise.\n"
    "  --rtol R          relative tolerance (default 1e-9)\n"
    "  --atol A          absolute tolerance (default 1e-12)\n"
    "  --only DATASET    compare only this dataset or group (repeatable)\n"
    "exit codes: 0 within tolerance, 1 outside, 2 bad input\n";

int cli_compare(int argc, char** argv) {
  const char* files[2] = {NULL, NULL};
  int nf = 0;
  cmp_options opt;
  cmp_options_default(&opt);
  const char** only = calloc((size_t)argc + 1, sizeof(char*));
  if (!only) return CSIM_ERR_RUN;
  int nonly = 0;
  for (int i = 0; i < argc; i++) {
    char* end = NULL;
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(kCompareUsage, stdout);
      free(only);
      return 0;
    } else if ((!strcmp(argv[i], "--rtol") || !strcmp(argv[i], "--atol")) && i + 1 < argc) {
      double v = strtod(argv[i + 1], &end);
      if (!end || *end || !(v >= 0) || !isfinite(v)) {
        fprintf(stderr, "csim: error: compare: %s expects a number >= 0, found '%s'\n", argv[i],
                argv[i + 1]);
        free(only);
        return 2;
      }
      if (argv[i][2] == 'r') opt.rtol = v; else opt.atol = v;
      i++;
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only[nonly++] = argv[++i];
    } else if (argv[i][0] == '-' || nf == 2) {
      fprintf(stderr, "csim: error: compare: unexpected argument '%s'\n%s", argv[i], kCompareUsage);
      free(only);
      return 2;
    } else {
      files[nf++] = argv[i];
    }
  }
  if (nf != 2) {
    fprintf(stderr, "csim: error: compare: two files expected\n%s", kCompareUsage);
    free(only);
    return 2;
  }
  opt.only = nonly ? only : NULL;
  opt.nonly = nonly;
  csim_error err;
  err_clear(&err);
  int rc = cmp_files(files[0], files[1], &opt, stdout, &err);
  if (rc == 2) err_print(&err, stderr);
  free(only);
  return rc;
}
