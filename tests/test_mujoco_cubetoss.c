// test_mujoco_cubetoss.c — the real MuJoCo 2.2.2 on seed 003's cube tosses (tools/bench/
// cubetoss_mujoco.c, the paper's model file with Tab. II's values, scored by csim's ct_score)
// against seed 003 Tab. III's MuJoCo row, numbers that come from the paper, not from csim: e_q
// 0.38 +- 0.62, position error 27.0 +- 12.4 % of the side, rotation error 22.0 +- 21.3 deg over the
// paper's 550 tosses. The data holds 430 of them, so each mean is held to half the printed unit plus
// the 95 % interval of a 430-toss subset's mean, 1.96 sigma sqrt(1/430 - 1/550) (fig003_tab3.py's
// rule). A broken initial state (quaternion order, velocity frames), a changed metric or a wrong
// table would move the means out of these intervals (with a plane for the paper's box table the
// position mean is 26.0, outside).
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#ifndef CUBETOSS_MUJOCO
#define CUBETOSS_MUJOCO "build/cubetoss_mujoco"
#endif

// mean of columns e_q, pos, rot of the harness's CSV (toss,rows,e_q,pos,rot,failed,...); tosses
static int run(const char* args, double mean[3], int* failed) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s %s", CUBETOSS_MUJOCO, args);
  FILE* f = popen(cmd, "r");
  ck_assert_ptr_nonnull(f);
  char line[512];
  int n = 0;
  *failed = 0;
  mean[0] = mean[1] = mean[2] = 0;
  ck_assert_ptr_nonnull(fgets(line, sizeof line, f));  // header
  while (fgets(line, sizeof line, f)) {
    int toss, rows, fail;
    double e, p, r;
    ck_assert_int_eq(sscanf(line, "%d,%d,%lf,%lf,%lf,%d", &toss, &rows, &e, &p, &r, &fail), 6);
    *failed += fail;
    mean[0] += e, mean[1] += p, mean[2] += r;
    n++;
  }
  ck_assert_int_eq(pclose(f), 0);
  for (int k = 0; k < 3 && n; k++) mean[k] /= n;
  return n;
}

START_TEST(mujoco_row_of_tab3) {
  static const double paper[3] = {0.38, 27.0, 22.0}, sigma[3] = {0.62, 12.4, 21.3},
                      half_unit[3] = {0.005, 0.05, 0.05};
  double m[3];
  int failed, n = run("", m, &failed);
  ck_assert_int_eq(n, 430);
  ck_assert_int_eq(failed, 0);
  for (int k = 0; k < 3; k++) {
    double tol = half_unit[k] + 1.96 * sigma[k] * sqrt(1.0 / n - 1.0 / 550);
    ck_assert_msg(fabs(m[k] - paper[k]) <= tol, "column %d: MuJoCo 2.2.2 %.4f, Tab. III %.2f +- %.3f", k,
                  m[k], paper[k], tol);
  }
}
END_TEST

START_TEST(bad_arguments_exit_2) {
  char out[1024], cmd[512];
  snprintf(cmd, sizeof cmd, "%s --table floor 2>&1", CUBETOSS_MUJOCO);
  ck_assert_int_eq(sh_run(cmd, out, sizeof out), 2);
  ck_assert_ptr_nonnull(strstr(out, "usage"));
  snprintf(cmd, sizeof cmd, "%s --data /nonexistent.h5 2>&1", CUBETOSS_MUJOCO);
  ck_assert_int_eq(sh_run(cmd, out, sizeof out), 2);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_cubetoss");
  TCase* t = tcase_create("tab3");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, mujoco_row_of_tab3);
  tcase_add_test(t, bad_arguments_exit_2);
  suite_add_tcase(s, t);
  return run_suite(s);
}
