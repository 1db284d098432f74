// cli.c — subcommand dispatch, help and versions.
#include "cli/cli.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "core/error.h"

// the usage of every command (cli.h CLI_COMMANDS), then the options
static const char* const kUsageHead = "usage: csim <command> [options]\n\ncommands:\n";
static const char* const kUsageTail =
    "\n"
    "options:\n"
    "  -h, --help             this help (csim COMMAND --help for a command's own)\n"
    "  --version              versions of csim and its libraries\n"
    "\n"
    "exit codes: 0 success, 1 run failed or files differ, 2 bad input\n";

static void usage(FILE* f) {
  fputs(kUsageHead, f);
#define CLI_USAGE(name, text) fputs(text, f);
  CLI_COMMANDS(CLI_USAGE)
#undef CLI_USAGE
  fputs(kUsageTail, f);
}

static const char* g_argv0 = "csim";

const char* cli_argv0(void) {
  return g_argv0;
}

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
    usage(stderr);
    return CSIM_ERR_INPUT;
  }
  g_argv0 = argv[0];
  const char* cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    usage(stdout);
    return CSIM_OK;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    cli_print_versions(stdout);
    return CSIM_OK;
  }
#define CLI_DISPATCH(name, text) \
  if (!strcmp(cmd, #name)) return cli_##name(argc - 2, argv + 2);
  CLI_COMMANDS(CLI_DISPATCH)
#undef CLI_DISPATCH
  fprintf(stderr, "csim: error: unknown command '%s'\n\n", cmd);
  usage(stderr);
  return CSIM_ERR_INPUT;
}

//---------------------------------- helpers of the commands -----------------------------------

// path of `rel` inside csim's tools directory (the run-time assets are in its view/): $CSIM_TOOLS,
// else tools/ beside the executable or one or two levels above it (build/san/csim), else
// ./tools; 0 when not found
int cli_tools_file(const char* rel, char* out, size_t n) {
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
void cli_swap_ext(const char* path, const char* ext, char* out, size_t n) {
  size_t l = strlen(path);
  if (l > 3 && !strcmp(path + l - 3, ".h5")) l -= 3;
  snprintf(out, n, "%.*s%s", (int)(l < 900 ? l : 900), path, ext);
}
