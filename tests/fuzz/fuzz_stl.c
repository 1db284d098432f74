// fuzz_stl.c — libFuzzer target: STL reader (binary and ASCII) and the convex hull, through a
// temporary file (the reader's interface is a path), with a scale taken from the first byte.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/mesh_io.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static char g_stl_path[64];

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 20) return 0;
  if (!g_stl_path[0]) snprintf(g_stl_path, sizeof(g_stl_path), "out/csim_fuzz_stl_%d.stl", (int)getpid());
  FILE* f = fopen(g_stl_path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  double s = size ? (double)(data[0] % 7) - 3 : 1;  // mirrored, zero and plain scales
  double scale[3] = {s ? s : 1e-3, 1, 1};
  mesh_hull h;
  csim_error err;
  if (mesh_load_hull(g_stl_path, scale, &h, &err) == CSIM_OK) mesh_hull_free(&h);
  unlink(g_stl_path);
  return 0;
}
