// fuzz_cubetoss.c — libFuzzer target: the cube-toss readers of src/run/cubetoss.h. An input that
// starts with the HDF5 signature is a data file (through a temporary file) read by ct_load, the
// group chosen by its last byte among the three of the shared data; any other input is a params
// text for ct_params_parse (several model names in turn).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/cubetoss.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static char g_toss_path[64];

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (size_t)1 << 24) return 0;
  csim_error err;
  if (size < 8 || memcmp(data, "\x89HDF\r\n\x1a\n", 8) != 0) {
    // params text
    char* text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    const char* models[] = {"ncp", "ccp", "hunt_crossley", "spring_damper", "bristle", "nope"};
    for (size_t k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
      ct_model mdl;
      int found = 0;
      memset(&mdl, 0, sizeof(mdl));
      ct_params_parse(text, "fuzz.yaml", models[k], &mdl, &found, &err);
    }
    free(text);
    return 0;
  }
  // an HDF5 data file
  if (!g_toss_path[0])
    snprintf(g_toss_path, sizeof(g_toss_path), "out/csim_fuzz_toss_%d.h5", (int)getpid());
  FILE* f = fopen(g_toss_path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  const char* groups[] = {"contactnets570", "dairlib550", "dairlib550_eval"};
  ct_data* d = NULL;
  if (ct_load(g_toss_path, groups[data[size - 1] % 3], &d, &err) == CSIM_OK) ct_free(d);
  unlink(g_toss_path);
  return 0;
}
