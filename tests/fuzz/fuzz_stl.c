// fuzz_stl.c — libFuzzer target: the mesh readers (STL binary and ASCII through a temporary file,
// the reader's interface being a path; OBJ from memory) and what follows them (the convex hull,
// MuJoCo's mesh mass properties), with a scale taken from the first byte.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/mesh_io.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static char g_stl_path[64];

// the same bytes as an OBJ file: parse, then the hull and the mass properties of its triangles
static void fuzz_obj(const uint8_t* data, size_t size, const double scale[3]) {
  double* tri = NULL;
  int ntri = 0;
  csim_error err;
  if (mesh_parse_obj("fuzz.obj", (const char*)data, size, &tri, &ntri, &err) != CSIM_OK) return;
  mesh_mass mm;
  (void)mesh_mass_props(tri, ntri, scale, &mm, &err);
  for (int i = 0; i < 9 * ntri; i++) tri[i] *= scale[i % 3];
  mesh_hull h;
  if (mesh_hull_points(tri, 3 * ntri, &h, &err) == CSIM_OK) mesh_hull_free(&h);
  free(tri);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 20) return 0;
  double s = size ? (double)(data[0] % 7) - 3 : 1;  // mirrored, zero and plain scales
  double scale[3] = {s ? s : 1e-3, 1, 1};
  fuzz_obj(data, size, scale);
  if (!g_stl_path[0]) snprintf(g_stl_path, sizeof(g_stl_path), "out/csim_fuzz_stl_%d.stl", (int)getpid());
  FILE* f = fopen(g_stl_path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  mesh_hull h;
  csim_error err;
  if (mesh_load_hull(g_stl_path, scale, &h, &err) == CSIM_OK) mesh_hull_free(&h);
  unlink(g_stl_path);
  return 0;
}
