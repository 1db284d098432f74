// cli_plot.c — `csim plot`: the panels of a run, drawn by tools/view/plot_run.py with
// matplotlib.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/error.h"

static const char* const kPlotUsage =
    "usage: csim plot RUN.h5 [more.h5...] [--out FILE.png] [--panels LIST] [--json FILE]\n"
    "\n"
    "Draws one PNG of the panels people look at first; several runs are overlaid, with a legend\n"
    "from their scenario names. Panels (--panels, comma-separated, default all): energy, eps,\n"
    "iterations, contacts, penetration, forces, slip, timing; runs with controllers add\n"
    "control_velocity (commanded vs measured base velocity), control_iterations and\n"
    "control_residual (a controller's own solver, e.g. quadruped_walk's MPC) and control_tau\n"
    "(the applied torques), each when a run has the data, labelled controller/channel.\n"
    "  --out FILE.png    output image (default: the first run with .png instead of .h5)\n"
    "  --json FILE       also write the panels' names, series and data ranges as JSON\n"
    "Needs python3 with matplotlib and h5py (Debian's python3-matplotlib, python3-h5py; make deps);\n"
    "the interpreter is $CSIM_PYTHON, else /usr/bin/python3, else python3 on PATH.\n"
    "exit codes: 0 success, 2 bad input or missing python packages\n";

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
  if (!cli_tools_file("view/plot_run.py", script, sizeof(script))) {
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
