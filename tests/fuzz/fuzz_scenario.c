// fuzz_scenario.c — libFuzzer target: the scenario loader with --set overrides.
// The input is split at the first NUL byte: before it the YAML text, after it the overrides,
// one per line (so the fuzzer mutates both the file and the command line). Any status is fine;
// a crash, leak, hang or sanitizer report is a finding.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  char* text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  // overrides after the first NUL, split at newlines (at most 8)
  const char* ov[8];
  int nov = 0;
  size_t yl = strlen(text);
  if (yl < size) {
    char* p = text + yl + 1;
    while (nov < 8 && p < text + size) {
      char* nl = memchr(p, '\n', (size_t)(text + size - p));
      if (nl) *nl = '\0';
      if (*p) ov[nov++] = p;
      if (!nl) break;
      p = nl + 1;
    }
  }
  scn_config* cfg = NULL;
  csim_error err;
  if (scn_load_string(text, "fuzz.yaml", ov, nov, &cfg, &err) == CSIM_OK) scn_free(cfg);
  free(text);
  return 0;
}
