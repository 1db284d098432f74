// fuzz_fclib.c — libFuzzer target: the FCLib (HDF5) problem reader, through a temporary file.
// Most mutations of an HDF5 image fail at the superblock; seeds are real FCLib files.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "out/fclib.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static char g_fclib_path[64];

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 20) return 0;
  if (!g_fclib_path[0]) snprintf(g_fclib_path, sizeof(g_fclib_path), "out/csim_fuzz_fclib_%d.hdf5", (int)getpid());
  FILE* f = fopen(g_fclib_path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  fclib_problem* p = NULL;
  csim_error err;
  if (fclib_read(g_fclib_path, &p, &err) == CSIM_OK) fclib_free(p);
  unlink(g_fclib_path);
  return 0;
}
