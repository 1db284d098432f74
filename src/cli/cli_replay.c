// cli_replay.c — `csim replay`: a self-contained 3-D HTML replay of a run (out/replay.h).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/error.h"
#include "out/replay.h"

static const char* const kReplayUsage =
    "usage: csim replay RUN.h5 [--out FILE.html] [--every K] [--scenario-dir DIR]\n"
    "\n"
    "Writes one self-contained HTML page (three.js inlined; no network needed to open it) that\n"
    "plays the run in 3-D: collision geometry, ground, contact forces (blue stick, red slip),\n"
    "time slider, play/pause, speed, orbit camera, eps_abs and energy of the step.\n"
    "Link poses are computed by csim's kinematics from /state/q and the model rebuilt from the\n"
    "scenario stored in the file, so the URDFs the run used must still be readable.\n"
    "  --out FILE.html     output page (default: the run with .html instead of .h5)\n"
    "  --every K           keep every K-th recorded row (default 1)\n"
    "  --scenario-dir DIR  resolve the scenario's relative paths against DIR (default: the\n"
    "                      scenario_dir attribute the run wrote)\n"
    "exit codes: 0 success, 2 bad input\n";

int cli_replay(int argc, char** argv) {
  const char* run = NULL;
  const char* outp = NULL;
  replay_options opt;
  memset(&opt, 0, sizeof(opt));
  opt.every = 1;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(kReplayUsage, stdout);
      return CSIM_OK;
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      outp = argv[++i];
    } else if (!strcmp(argv[i], "--scenario-dir") && i + 1 < argc) {
      opt.scenario_dir = argv[++i];
    } else if (!strcmp(argv[i], "--every") && i + 1 < argc) {
      char* end = NULL;
      long k = strtol(argv[++i], &end, 10);
      if (!end || *end || k < 1 || k > 1000000) {
        fprintf(stderr, "csim: error: replay: --every expects an integer >= 1, found '%s'\n",
                argv[i]);
        return CSIM_ERR_INPUT;
      }
      opt.every = (int)k;
    } else if (argv[i][0] == '-' || run) {
      fprintf(stderr, "csim: error: replay: unexpected argument '%s'\n%s", argv[i], kReplayUsage);
      return CSIM_ERR_INPUT;
    } else {
      run = argv[i];
    }
  }
  if (!run) {
    fprintf(stderr, "csim: error: replay: missing RUN.h5\n%s", kReplayUsage);
    return CSIM_ERR_INPUT;
  }
  char out[1100], tpl[1200], three[1200];
  cli_swap_ext(run, ".html", out, sizeof(out));
  if (outp) snprintf(out, sizeof(out), "%s", outp);
  if (!cli_tools_file("view/replay/replay.html", tpl, sizeof(tpl))) {
    fprintf(stderr, "csim: error: replay: tools/view/replay/replay.html not found beside the csim "
            "executable or in ./tools (set CSIM_TOOLS to the tools directory)\n");
    return CSIM_ERR_INPUT;
  }
  if (!cli_tools_file("view/replay/node_modules/three/build/three.module.min.js", three, sizeof(three))) {
    fprintf(stderr, "csim: error: replay: three.js is not installed (%s missing): run `make "
            "deps` (it runs npm ci in tools/view/replay)\n", three);
    return CSIM_ERR_INPUT;
  }
  opt.template_path = tpl;
  opt.three_path = three;
  csim_error err;
  err_clear(&err);
  replay_info info;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  csim_status st = replay_write(run, out, &opt, &info, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (st != CSIM_OK) {
    err_print(&err, stderr);
    return st;
  }
  double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (!info.complete)
    fprintf(stderr, "csim replay: warning: %s is an incomplete run (complete = 0%s%s): "
            "replaying the %ld rows present\n", run, info.failure[0] ? ", failure: " : "",
            info.failure, info.rows);
  if (info.contacts_dropped)
    fprintf(stderr, "csim replay: warning: %ld contacts past the end of /contacts left out "
            "(truncated file)\n", info.contacts_dropped);
  printf("csim replay: %s: %ld frames of %ld rows, %d bodies, %d geometries, %ld contacts, "
         "%.1f kB in %.2f s\n", out, info.frames, info.rows, info.bodies, info.geoms,
         info.contacts, (double)info.bytes / 1024.0, secs);
  if (info.ctl_footholds || info.ctl_commands)
    printf("  controllers: %d planned footholds, %d commanded velocities drawn\n",
           info.ctl_footholds, info.ctl_commands);
  if (info.bytes > 50L * 1024 * 1024)  // browsers slow down on pages this large
    printf("  the page is %.0f MB: --every K keeps every K-th row\n",
           (double)info.bytes / (1024.0 * 1024.0));
  char* abs = realpath(out, NULL);
  printf("  open it in a browser: xdg-open %s   (or file://%s)\n", out, abs ? abs : out);
  free(abs);
  return CSIM_OK;
}
