// fuzz_urdf.c — libFuzzer target: XML + URDF reader, then the model builder (fixed and free
// base, meshes optional as in `csim info`). Mesh URIs resolve against the current directory.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "io/model_build.h"
#include "io/urdf.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 18) return 0;
  char* text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  urdf_options opt = urdf_default_options();
  opt.use_env = 0;
  urdf_robot* r = NULL;
  csim_error err;
  if (urdf_load_string(text, "fuzz.urdf", NULL, &opt, &r, &err) == CSIM_OK) {
    for (int base = 0; base < 2; base++) {
      model_world_spec world = {{0, 0, -9.81}, 1, 0, 0, 0, {0, 0}, NULL};
      model_robot_spec spec;
      memset(&spec, 0, sizeof(spec));
      spec.urdf = r;
      spec.base = base ? MODEL_BASE_FREE : MODEL_BASE_FIXED;
      spec.base_quat[3] = 1;
      sim_model* m = NULL;
      if (model_create(&world, &spec, 1, &m, &err) == CSIM_OK) model_free(m);
    }
    urdf_free(r);
  }
  free(text);
  return 0;
}
