// cli_view.c — `csim plot` (panels of a run, drawn by tools/view/plot_run.py with matplotlib) and
// `csim replay` (a self-contained 3-D HTML replay, replay.h).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/error.h"
#include "out/replay.h"

static const char* const kPlotUsage =
    "usage: csim plot RUN.h5 [more.h5...] [--out FILE.png] [--panels LIST] [--json FILE]\n"
    "\n"
    "Draws one PNG of the panels people look at first; several runs are overlaid, with a legend\n"
    "from their scenario names. Panels (--panels, comma-separated, default all): energy, eps,\n"
    "iterations, contacts, penetration, forces, slip, timing.\n"
    "  --out FILE.png    output image (default: the first run with .png instead of .h5)\n"
    "  --json FILE       also write the panels' names, series and data ranges as JSON\n"
    "Needs python3 with matplotlib and h5py (Debian's python3-matplotlib, python3-h5py; make deps);\n"
    "the interpreter is $CSIM_PYTHON, else /usr/bin/python3, else python3 on PATH.\n"
    "exit codes: 0 success, 2 bad input or missing python packages\n";

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

// path of `rel` inside csim's tools directory (the run-time assets are in its view/): $CSIM_TOOLS,
// else tools/ beside the executable or one or two levels above it (build/san/csim), else
// ./tools; 0 when not found
static int tools_file(const char* rel, char* out, size_t n) {
  const char* env = getenv("CSIM_TOOLS");
  if (env && *env) {
    snprintf(out, n, "%s/%s", env, rel);
    return access(out, R_OK) == 0;
  }
  char exe[1024];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (k > 0) {
    exe[k] = '\0';
    char* s = strrchr(exe, '/');
    if (s) *s = '\0';
    static const char* const up[] = {"", "/..", "/../.."};
    for (int i = 0; i < 3; i++) {
      snprintf(out, n, "%s%s/tools/%s", exe, up[i], rel);
      if (access(out, R_OK) == 0) return 1;
    }
  }
  snprintf(out, n, "tools/%s", rel);
  return access(out, R_OK) == 0;
}

// `rel` with its .h5 extension replaced by ext
static void swap_ext(const char* path, const char* ext, char* out, size_t n) {
  size_t l = strlen(path);
  if (l > 3 && !strcmp(path + l - 3, ".h5")) l -= 3;
  snprintf(out, n, "%.*s%s", (int)(l < 900 ? l : 900), path, ext);
}

int cli_plot(int argc, char** argv) {
  for (int i = 0; i < argc; i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(kPlotUsage, stdout);
      return CSIM_OK;
    }
  if (argc < 1) {
    fprintf(stderr, "csim: error: plot: missing RUN.h5\n%s", kPlotUsage);
    return CSIM_ERR_INPUT;
  }
  char script[1200];
  if (!tools_file("view/plot_run.py", script, sizeof(script))) {
    fprintf(stderr, "csim: error: plot: tools/view/plot_run.py not found beside the csim "
            "executable or in ./tools (set CSIM_TOOLS to the tools directory)\n");
    return CSIM_ERR_INPUT;
  }
  // Debian's python3 carries python3-matplotlib and python3-h5py; a pyenv python3 earlier on
  // PATH often does not
  const char* py = getenv("CSIM_PYTHON");
  if (!py || !*py) py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  char** av = calloc((size_t)argc + 3, sizeof(char*));
  if (!av) return CSIM_ERR_RUN;
  av[0] = (char*)py;
  av[1] = script;
  for (int i = 0; i < argc; i++) av[i + 2] = argv[i];
  fflush(stdout);
  execvp(py, av);
  fprintf(stderr, "csim: error: plot: cannot run %s (%s): install python3 with matplotlib and "
          "h5py (Debian: python3-matplotlib python3-h5py; make deps) or set CSIM_PYTHON\n", py,
          strerror(errno));
  free(av);
  return CSIM_ERR_INPUT;
}

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
  swap_ext(run, ".html", out, sizeof(out));
  if (outp) snprintf(out, sizeof(out), "%s", outp);
  if (!tools_file("view/replay/replay.html", tpl, sizeof(tpl))) {
    fprintf(stderr, "csim: error: replay: tools/view/replay/replay.html not found beside the csim "
            "executable or in ./tools (set CSIM_TOOLS to the tools directory)\n");
    return CSIM_ERR_INPUT;
  }
  if (!tools_file("view/replay/node_modules/three/build/three.module.min.js", three, sizeof(three))) {
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
  if (info.bytes > 50L * 1024 * 1024)  // browsers slow down on pages this large
    printf("  the page is %.0f MB: --every K keeps every K-th row\n",
           (double)info.bytes / (1024.0 * 1024.0));
  char* abs = realpath(out, NULL);
  printf("  open it in a browser: xdg-open %s   (or file://%s)\n", out, abs ? abs : out);
  free(abs);
  return CSIM_OK;
}
