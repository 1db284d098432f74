// test_scenarios.c — every scenario in scenarios/ runs (shortened) and writes a complete file.
//
// Runs $CSIM (default ./csim) on each scenarios/*.yaml with a short duration, into a temporary
// directory, and checks exit 0 and the 'complete' attribute. The long, full-length behaviour of
// the scenarios is covered by test_sim, test_golden and the solver suites.
#include <check.h>
#include <glob.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char* csim_bin(void) {
  const char* c = getenv("CSIM");
  return c && *c ? c : "./csim";
}

// read an int attribute of the root group; -1 when absent
static int root_int_attr(const char* file, const char* name) {
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return -1;
  int v = -1;
  if (H5Aexists(f, name) > 0) {
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    if (H5Aread(a, H5T_NATIVE_INT, &v) < 0) v = -1;
    H5Aclose(a);
  }
  H5Fclose(f);
  return v;
}

START_TEST(every_scenario_runs) {
  H5Eset_auto(H5E_DEFAULT, NULL, NULL);
  glob_t g;
  ck_assert_int_eq(glob("scenarios/*.yaml", 0, NULL, &g), 0);
  ck_assert_int_ge((int)g.gl_pathc, 7);
  char dir[] = P_tmpdir "/csim_scen_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  for (size_t i = 0; i < g.gl_pathc; i++) {
    char out[512], cmd[2048], log[8192] = "";
    snprintf(out, sizeof(out), "%s/run%zu.h5", dir, i);
    // 50 steps of the scenario's own dt
    snprintf(cmd, sizeof(cmd),
             "d=$(sed -nE 's/.*dt: *([0-9.eE+-]+).*/\\1/p' '%s' | head -1); "
             "%s run '%s' --quiet --out '%s' --set integrator.duration=$(awk -v d=${d:-0.001} "
             "'BEGIN{print 50*d}') 2>&1",
             g.gl_pathv[i], csim_bin(), g.gl_pathv[i], out);
    FILE* p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(log, 1, sizeof(log) - 1, p);
    log[n] = '\0';
    int st = pclose(p);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    ck_assert_msg(rc == 0, "%s exited %d:\n%s", g.gl_pathv[i], rc, log);
    ck_assert_msg(root_int_attr(out, "complete") == 1, "%s: output not complete", g.gl_pathv[i]);
    unlink(out);
  }
  rmdir(dir);
  globfree(&g);
}
END_TEST

int main(void) {
  Suite* s = suite_create("scenarios");
  TCase* tc = tcase_create("run");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, every_scenario_runs);
  suite_add_tcase(s, tc);
  SRunner* sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
