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
#include "support.h"

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
    ck_assert_msg(h5_root_int(out, "complete") == 1, "%s: output not complete", g.gl_pathv[i]);
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
  return run_suite(s);
}
