// cli_run.c — `csim run`: its arguments, --batch lists and --log-dir; each scenario is run by
// run/run.h.
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/interrupt.h"
#include "out/compare.h"
#include "run/run.h"

static const char* const kRunUsage =
    "usage: csim run SCENARIO.yaml... [--batch LIST]... [--set key=value]... [--out FILE]\n"
    "                [--quiet] [--skip-complete] [--log-dir DIR]\n"
    "\n"
    "Simulates the scenario and writes one HDF5 file (output.path, or --out).\n"
    "Several scenarios run one after the other in this process, each with its own output and\n"
    "exit status; a failed one does not stop the others.\n"
    "  --batch LIST      also run the scenario files listed in LIST, one path per line\n"
    "                    (relative to the current directory; blank lines and # comments skipped)\n"
    "  --skip-complete   do not rerun a scenario whose output exists with complete = 1\n"
    "  --log-dir DIR     append each scenario's messages (stdout and stderr) to DIR/STEM.log,\n"
    "                    STEM = the scenario file name without .yaml; each attempt ends with\n"
    "                    \"csim run: exit status N\"\n"
    "  --set key=value   override any scenario key before validation (repeatable), e.g.\n"
    "                    --set solver.tolerance=1e-6 --set robots.0.q0=[0,0,1,0,0,0,1]\n"
    "  --out FILE        output file (overrides output.path)\n"
    "  --quiet           no progress and no summary\n"
    "exit codes: 0 success, 1 the run failed (divergence, solver failure with\n"
    "solver.on_failure: stop, interrupted, output error), 2 bad input; with several\n"
    "scenarios, the worst of their codes (an interrupt ends the batch)\n";

// scenario paths of one csim run invocation (argv entries are borrowed, --batch lines owned)
typedef struct {
  char** v;
  unsigned char* owned;
  int n, cap;
} run_list;

static int list_add(run_list* l, const char* p, int copy) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char** v = realloc(l->v, sizeof(char*) * (size_t)cap);
    if (!v) return 1;
    l->v = v;
    unsigned char* o = realloc(l->owned, (size_t)cap);
    if (!o) return 1;
    l->owned = o;
    l->cap = cap;
  }
  char* s = copy ? strdup(p) : (char*)p;
  if (!s) return 1;
  l->v[l->n] = s;
  l->owned[l->n++] = (unsigned char)copy;
  return 0;
}

static void list_free(run_list* l) {
  for (int i = 0; i < l->n; i++)
    if (l->owned[i]) free(l->v[i]);
  free(l->v);
  free(l->owned);
}

// --batch LIST: one scenario path per line; returns 0, or 1 after printing the problem
static int read_batch(const char* file, run_list* l) {
  FILE* f = fopen(file, "r");
  if (!f) {
    fprintf(stderr, "csim: error: run: --batch %s: cannot open: %s\n", file, strerror(errno));
    return 1;
  }
  char line[4096];
  int ln = 0, bad = 0;
  while (!bad && fgets(line, sizeof(line), f)) {
    ln++;
    size_t n = strlen(line);
    if (n == sizeof(line) - 1 && line[n - 1] != '\n') {
      fprintf(stderr, "csim: error: run: --batch %s:%d: line longer than %zu characters\n", file,
              ln, sizeof(line) - 2);
      bad = 1;
      break;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = 0;
    char* s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s && *s != '#') bad = list_add(l, s, 1);
  }
  if (!bad && ferror(f)) {
    fprintf(stderr, "csim: error: run: --batch %s: read error\n", file);
    bad = 1;
  }
  fclose(f);
  return bad;
}

// --log-dir: point stdout and stderr at DIR/STEM.log for one scenario; saved gets the old fds
static int log_begin(const char* dir, const char* scenario, int saved[2]) {
  const char* b = strrchr(scenario, '/');
  b = b ? b + 1 : scenario;
  size_t n = strlen(b);
  if (n > 5 && !strcmp(b + n - 5, ".yaml")) n -= 5;
  else if (n > 4 && !strcmp(b + n - 4, ".yml")) n -= 4;
  char path[4096];
  if (snprintf(path, sizeof(path), "%s/%.*s.log", dir, (int)n, b) >= (int)sizeof(path)) {
    fprintf(stderr, "csim: error: run: --log-dir: path too long for %s\n", scenario);
    return 1;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);  // a resumed point keeps its history
  if (fd < 0) {
    fprintf(stderr, "csim: error: run: --log-dir: cannot create %s: %s\n", path, strerror(errno));
    return 1;
  }
  fflush(stdout);
  fflush(stderr);
  saved[0] = dup(STDOUT_FILENO);
  saved[1] = dup(STDERR_FILENO);
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  close(fd);
  return 0;
}

// end of one scenario's attempt in its log: its exit status, then the old stdout and stderr back
static void log_end(int rc, const int saved[2]) {
  printf("csim run: exit status %d\n", rc);
  fflush(stdout);
  fflush(stderr);
  for (int k = 0; k < 2; k++) {
    if (saved[k] < 0) continue;
    dup2(saved[k], k == 0 ? STDOUT_FILENO : STDERR_FILENO);
    close(saved[k]);
  }
}

int cli_run(int argc, char** argv) {
  const char* outp = NULL;
  const char* logdir = NULL;
  int quiet = 0, nset = 0, skip_complete = 0;
  run_list paths = {NULL, 0, 0, 0};
  const char** sets = calloc((size_t)argc + 1, sizeof(char*));
  if (!sets) return CSIM_ERR_RUN;
  int bad = 0;
  for (int i = 0; i < argc && !bad; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(kRunUsage, stdout);
      free(sets);
      return CSIM_OK;
    } else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
      sets[nset++] = argv[++i];
    } else if (!strncmp(argv[i], "--set=", 6)) {
      sets[nset++] = argv[i] + 6;
    } else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
      bad = read_batch(argv[++i], &paths);
    } else if (!strcmp(argv[i], "--skip-complete")) {
      skip_complete = 1;
    } else if (!strcmp(argv[i], "--log-dir") && i + 1 < argc) {
      logdir = argv[++i];
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      outp = argv[++i];
    } else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
      quiet = 1;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "csim: error: run: unexpected argument '%s'\n%s", argv[i], kRunUsage);
      bad = 1;
    } else {
      bad = list_add(&paths, argv[i], 0);
    }
  }
  if (!bad && paths.n == 0) {
    fprintf(stderr, "csim: error: run: missing SCENARIO.yaml\n%s", kRunUsage);
    bad = 1;
  }
  if (!bad && outp && paths.n > 1) {
    fprintf(stderr, "csim: error: run: --out names one file but %d scenarios were given: set "
            "output.path in each scenario instead\n", paths.n);
    bad = 1;
  }
  int rc = bad ? CSIM_ERR_INPUT : CSIM_OK;
  run_request req = {sets, nset, outp, quiet, skip_complete};
  for (int k = 0; k < paths.n && !bad; k++) {
    int saved[2] = {-1, -1};
    if (logdir && log_begin(logdir, paths.v[k], saved) != 0) {
      rc = CSIM_ERR_INPUT;  // the log directory is unusable: every scenario would fail alike
      break;
    }
    int rk = run_scenario(paths.v[k], &req);
    if (logdir) log_end(rk, saved);
    if (rk > rc) rc = rk;   // 2 (bad input) > 1 (run failed) > 0
    if (intr_requested()) break;  // interrupted: the rest of the batch is not started
  }
  list_free(&paths);
  free(sets);
  return rc;
}
