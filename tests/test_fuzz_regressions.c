// test_fuzz_regressions.c — replays every input kept under tests/fuzz/regressions/<target>/
// (inputs that once crashed, hung or blew memory) and the small seed inputs of tests/data
// through the libFuzzer entry points of tests/fuzz/, without libFuzzer: `make test` runs this
// plain and under ASan+UBSan, so a fixed finding that comes back fails here.
#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// the targets, each entry point renamed
#define LLVMFuzzerTestOneInput fuzz_scenario_one
#include "fuzz/fuzz_scenario.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_urdf_one
#include "fuzz/fuzz_urdf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_mjcf_one
#include "fuzz/fuzz_mjcf.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_stl_one
#include "fuzz/fuzz_stl.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_fclib_one
#include "fuzz/fuzz_fclib.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_cubetoss_one
#include "fuzz/fuzz_cubetoss.c"
#include "support.h"
#undef LLVMFuzzerTestOneInput

typedef int (*fuzz_fn)(const uint8_t*, size_t);

// under ASan (make test-san) a huge malloc returns NULL as glibc's does: HDF5 asks for sizes
// read from corrupted files (tests/fuzz/regressions/fclib/hdf5-metadata-cache-malloc-130TB.hdf5)
// and reports the failure; ASan's default is to abort
const char* __asan_default_options(void);
const char* __asan_default_options(void) {
  return "allocator_may_return_null=1";
}

// feed every regular file of dir (not recursive) to fn; the count fed
static int replay_dir(const char* dir, fuzz_fn fn) {
  DIR* d = opendir(dir);
  if (!d) return 0;
  int count = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);  // not the README nor the scripts that made an input
    if (e->d_name[0] == '.' || !strcmp(e->d_name, "README") ||
        (len > 3 && !strcmp(e->d_name + len - 3, ".py")))
      continue;
    char p[1024];
    snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > (1 << 20)) continue;
    FILE* f = fopen(p, "rb");
    if (!f) continue;
    uint8_t* b = malloc((size_t)sb.st_size + 1);
    size_t n = b ? fread(b, 1, (size_t)sb.st_size, f) : 0;
    fclose(f);
    if (b) fn(b, n);
    free(b);
    count++;
  }
  closedir(d);
  return count;
}

// the kept regressions of a target (the directory holds at least its README)
static void replay_target(const char* name, fuzz_fn fn, const char* seeds) {
  char dir[256];
  snprintf(dir, sizeof(dir), "tests/fuzz/regressions/%s", name);
  struct stat sb;
  ck_assert_msg(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode), "%s is missing", dir);
  int n = replay_dir(dir, fn);
  int s = seeds ? replay_dir(seeds, fn) : 0;
  fprintf(stderr, "fuzz %s: %d regression inputs, %d seeds replayed\n", name, n, s);
}

START_TEST(scenario_regressions) {
  replay_target("scenario", fuzz_scenario_one, "tests/data/scenarios");
}
END_TEST

START_TEST(urdf_regressions) {
  replay_target("urdf", fuzz_urdf_one, "tests/data/urdf");
}
END_TEST

START_TEST(mjcf_regressions) {
  replay_target("mjcf", fuzz_mjcf_one, "tests/fuzz/seeds/mjcf");
}
END_TEST

START_TEST(stl_regressions) {
  replay_target("stl", fuzz_stl_one, "tests/data/urdf/meshes");
}
END_TEST

START_TEST(fclib_regressions) {
  replay_target("fclib", fuzz_fclib_one, NULL);
}
END_TEST

START_TEST(cubetoss_regressions) {
  replay_target("cubetoss", fuzz_cubetoss_one, NULL);
}
END_TEST

static Suite* fuzz_suite(void) {
  Suite* s = suite_create("fuzz_regressions");
  TCase* t = tcase_create("replay");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, scenario_regressions);
  tcase_add_test(t, urdf_regressions);
  tcase_add_test(t, mjcf_regressions);
  tcase_add_test(t, stl_regressions);
  tcase_add_test(t, fclib_regressions);
  tcase_add_test(t, cubetoss_regressions);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return run_suite(fuzz_suite());
}
