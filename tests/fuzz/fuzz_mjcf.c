// fuzz_mjcf.c — libFuzzer target: XML + MJCF reader (includes from a memory image: the input
// is split at the first "\n--\n" into the main file and "part.xml", which it may include, as
// may itself: the cycle check), then the model builder as in `csim info`. No file is read.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "io/mjcf.h"
#include "io/model_build.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 18) return 0;
  char* text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char* cut = strstr(text, "\n--\n");
  const char* part = "";
  if (cut) {
    *cut = '\0';
    part = cut + 4;
  }
  mjcf_file files[2] = {{"part.xml", part}, {"main.xml", text}};
  mjcf_options opt = {files, 2};
  urdf_robot* r = NULL;
  csim_error err;
  if (mjcf_load_string(text, "main.xml", NULL, &opt, &r, &err) == CSIM_OK) {
    model_world_spec world = {{0, 0, -9.81}, 0, 0, 0, 0, {0, 0}, NULL};
    model_robot_spec spec;
    memset(&spec, 0, sizeof(spec));
    spec.urdf = r;
    spec.base = MODEL_BASE_FIXED;
    spec.base_quat[3] = 1;
    sim_model* m = NULL;
    if (model_create(&world, &spec, 1, &m, &err) == CSIM_OK) model_free(m);
    urdf_free(r);
  }
  free(text);
  return 0;
}
