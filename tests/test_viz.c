// test_viz.c — `csim plot` and `csim replay` as a user runs them ($CSIM, default ./csim).
//
// What was drawn is checked against the HDF5 files read on their own: tests/check_plot.py
// (h5py + numpy, its own reductions) compares the plot's JSON sidecar and the PNG;
// tests/check_replay.py loads the replay page in headless Chromium (Debian's chromium, software
// WebGL) and compares screenshots, the page's status element and its poses with /state/q.
// Without chromium the browser tests fail, unless CSIM_NO_CHROMIUM=1 says this machine cannot
// install it: then they are skipped with a message. Tests run from the repo root.
#include <check.h>
#include <glob.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "support.h"

#define ALL_PANELS "energy,eps,iterations,contacts,penetration,forces,slip,timing"

// each test's directory g_tmp (support.h), made by a checked fixture
static void setup(void) {
  tmp_setup();
  ck_assert_msg(g_tmp[0], "no temporary directory");
}

// run a scenario for `duration` seconds into g_tmp/name.h5
static void run_scenario(const char* scen, const char* name, const char* extra) {
  static char log[16384];
  int rc = sh_fmt(log, sizeof(log), "%s run '%s' --quiet --out '%s/%s.h5' %s", csim_bin(), scen,
              g_tmp, name, extra);
  ck_assert_msg(rc == 0, "%s exited %d:\n%s", scen, rc, log);
}

// 1 when the browser checks may run; 0 (skipped, with a message) only under CSIM_NO_CHROMIUM=1
static int browser_available(void) {
  char out[256];
  if (sh_fmt(out, sizeof(out), "command -v chromium") == 0) return 1;
  const char* no = getenv("CSIM_NO_CHROMIUM");
  ck_assert_msg(no && !strcmp(no, "1"),
                "chromium is not installed: `make deps` installs it (Debian package chromium); "
                "set CSIM_NO_CHROMIUM=1 only on machines where it cannot be installed");
  printf("SKIPPED: browser replay checks (CSIM_NO_CHROMIUM=1, chromium not installed)\n");
  return 0;
}

// the scenarios plotted by make test: a rigid cube, the compliant gripper, a robot on mesh feet;
// make test-long plots the other shipped scenarios (each costs a csim run and two python starts,
// 3-5 s: all 18 were a minute and a half of make test's plain pass)
static const char* const kQuickPlots[] = {"scenarios/cube_drop.yaml", "scenarios/gripper_mug.yaml",
                                          "scenarios/solo12_stand.yaml"};
#define NQUICK ((int)(sizeof(kQuickPlots) / sizeof(kQuickPlots[0])))

static int is_quick_plot(const char* path) {
  for (int k = 0; k < NQUICK; k++)
    if (!strcmp(path, kQuickPlots[k])) return 1;
  return 0;
}

// the shipped scenarios' outputs (50 steps each) plot with the stated panels and data ranges:
// those of kQuickPlots (quick = 1) or all the others (quick = 0)
static void plot_scenarios(int quick) {
  glob_t g;
  ck_assert_int_eq(glob("scenarios/*.yaml", 0, NULL, &g), 0);
  ck_assert_int_ge((int)g.gl_pathc, 9);
  static char out[65536];
  int nplotted = 0;
  for (size_t i = 0; i < g.gl_pathc; i++) {
    if (is_quick_plot(g.gl_pathv[i]) != quick) continue;
    nplotted++;
    char name[32], extra[256];
    snprintf(name, sizeof(name), "s%zu", i);
    // 50 steps of the scenario's own dt
    snprintf(extra, sizeof(extra),
             "--set integrator.duration=$(awk -v d=$(sed -nE 's/.*dt: *([0-9.eE+-]+).*/\\1/p' "
             "'%s' | head -1) 'BEGIN{print 50*(d?d:0.001)}')", g.gl_pathv[i]);
    run_scenario(g.gl_pathv[i], name, extra);
    int rc = sh_fmt(out, sizeof(out), "%s plot %s/%s.h5 --out %s/%s.png --json %s/%s.json", csim_bin(),
                g_tmp, name, g_tmp, name, g_tmp, name);
    ck_assert_msg(rc == 0, "plot of %s exited %d:\n%s", g.gl_pathv[i], rc, out);
    rc = sh_fmt(out, sizeof(out), "%s tests/check_plot.py %s/%s.json %s %s/%s.h5", python3(), g_tmp, name,
            ALL_PANELS, g_tmp, name);
    ck_assert_msg(rc == 0, "%s:\n%s", g.gl_pathv[i], out);
  }
  // every quick scenario is shipped; the others are the rest of the 9 or more
  if (quick)
    ck_assert_int_eq(nplotted, NQUICK);
  else
    ck_assert_int_eq(nplotted, (int)g.gl_pathc - NQUICK);
  globfree(&g);
}

START_TEST(plot_quick_scenarios) { plot_scenarios(1); }
END_TEST

START_TEST(plot_other_scenarios) { plot_scenarios(0); }
END_TEST

// two runs overlaid: both runs' lines in every panel, labelled by scenario name and model
START_TEST(plot_overlay_and_panels) {
  static char out[65536];
  run_scenario("scenarios/cube_slide.yaml", "a", "--set integrator.duration=0.2");
  run_scenario("scenarios/cube_slide.yaml", "b",
               "--set integrator.duration=0.2 --set contact.model=ccp --set solver.name=admm");
  int rc = sh_fmt(out, sizeof(out), "%s plot %s/a.h5 %s/b.h5 --out %s/ab.png --json %s/ab.json",
              csim_bin(), g_tmp, g_tmp, g_tmp, g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
  rc = sh_fmt(out, sizeof(out), "%s tests/check_plot.py %s/ab.json %s %s/a.h5 %s/b.h5", python3(), g_tmp,
          ALL_PANELS, g_tmp, g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
  // same scenario name: the legend tells the runs apart by model/solver
  rc = sh_fmt(out, sizeof(out), "grep -c 'cube_slide (ccp/admm)' %s/ab.json", g_tmp);
  ck_assert_msg(rc == 0 && atoi(out) > 0, "no legend entry for the ccp run: %s", out);
  // a subset of panels
  rc = sh_fmt(out, sizeof(out), "%s plot %s/a.h5 --panels eps,contacts --out %s/p.png --json %s/p.json",
          csim_bin(), g_tmp, g_tmp, g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
  rc = sh_fmt(out, sizeof(out), "%s tests/check_plot.py %s/p.json eps,contacts %s/a.h5", python3(), g_tmp,
          g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
  // an unknown panel is bad input naming the valid ones
  rc = sh_fmt(out, sizeof(out), "%s plot %s/a.h5 --panels eps,energi --out %s/q.png", csim_bin(),
          g_tmp, g_tmp);
  ck_assert_msg(rc == 2 && strstr(out, "'energi'") && strstr(out, "penetration"), "%d: %s", rc,
                out);
}
END_TEST

// g_tmp/full.h5: cube_drop for 0.35 s; g_tmp/cut.h5: its first 300 rows, as a run killed there
// leaves them (tests/truncate_run.py)
static void cut_run(void) {
  static char out[16384];
  run_scenario("scenarios/cube_drop.yaml", "full", "--set integrator.duration=0.35");
  int rc = sh_fmt(out, sizeof(out), "%s tests/truncate_run.py %s/full.h5 %s/cut.h5 300", python3(),
                  g_tmp, g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
}

// cut.h5 replays on the rows present into cut.html, saying so on the terminal and in the page
static void replay_cut_run(void) {
  static char out[16384];
  int rc = sh_fmt(out, sizeof(out), "%s replay %s/cut.h5", csim_bin(), g_tmp);
  ck_assert_msg(rc == 0 && strstr(out, "incomplete run") && strstr(out, "300 frames of 300 rows") &&
                    strstr(out, "1 contacts past the end"), "%s", out);
  rc = sh_fmt(out, sizeof(out), "grep -c '\"complete\":0' %s/cut.html", g_tmp);
  ck_assert_msg(rc == 0, "the page does not say the run is incomplete");
}

// not a csim file, a truncated file, missing python packages
START_TEST(bad_input) {
  static char out[65536];
  char txt[300], h5[300];
  snprintf(txt, sizeof(txt), "%s/notes.h5", g_tmp);
  FILE* f = fopen(txt, "w");
  ck_assert_ptr_nonnull(f);
  fputs("not an HDF5 file\n", f);
  fclose(f);
  snprintf(h5, sizeof(h5), "%s/other.h5", g_tmp);
  hid_t h = H5Fcreate(h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(h, 0);
  H5Fclose(h);
  const char* cmds[2] = {"plot", "replay"};
  for (int c = 0; c < 2; c++) {
    int rc = sh_fmt(out, sizeof(out), "%s %s %s --out %s/x.out", csim_bin(), cmds[c], txt, g_tmp);
    ck_assert_msg(rc == 2 && strstr(out, "not an HDF5 file") && strstr(out, txt), "%s: %d: %s",
                  cmds[c], rc, out);
    rc = sh_fmt(out, sizeof(out), "%s %s %s --out %s/x.out", csim_bin(), cmds[c], h5, g_tmp);
    ck_assert_msg(rc == 2 && strstr(out, "not a csim output file"), "%s: %d: %s", cmds[c], rc,
                  out);
    char left[300];
    snprintf(left, sizeof(left), "%s/x.out", g_tmp);
    ck_assert_msg(access(left, F_OK) != 0, "%s: an output was left behind", cmds[c]);
  }
  // truncated: plotted and replayed on the rows present, saying so
  cut_run();
  int rc = sh_fmt(out, sizeof(out), "%s plot %s/cut.h5 --json %s/cut.json", csim_bin(), g_tmp, g_tmp);
  ck_assert_msg(rc == 0 && strstr(out, "incomplete run") && strstr(out, "300 rows"), "%s", out);
  rc = sh_fmt(out, sizeof(out), "%s tests/check_plot.py %s/cut.json %s %s/cut.h5", python3(), g_tmp,
          ALL_PANELS, g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
  // a file without the energy audit datasets (older csim): the energy panel has three lines
  rc = sh_fmt(out, sizeof(out), "%s tests/truncate_run.py %s/full.h5 %s/old.h5 300 --drop-audit && "
          "%s plot %s/old.h5 --panels energy --json %s/old.json && "
          "%s tests/check_plot.py %s/old.json energy %s/old.h5 && grep -c work %s/old.json",
          python3(), g_tmp, g_tmp, csim_bin(), g_tmp, g_tmp, python3(), g_tmp, g_tmp, g_tmp);
  ck_assert_msg(rc == 1 && strstr(out, "check_plot: ok") && strstr(out, "\n0\n"), "%s", out);
  replay_cut_run();
  // a run with no rows: the plot says there is no data, the replay refuses
  run_scenario("scenarios/cube_drop.yaml", "zero", "--set integrator.duration=0");
  rc = sh_fmt(out, sizeof(out), "%s plot %s/zero.h5 --json %s/zero.json && "
          "%s tests/check_plot.py %s/zero.json %s %s/zero.h5", csim_bin(), g_tmp, g_tmp, python3(),
          g_tmp, ALL_PANELS, g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
  rc = sh_fmt(out, sizeof(out), "%s replay %s/zero.h5", csim_bin(), g_tmp);
  ck_assert_msg(rc == 2 && strstr(out, "no rows to replay"), "%d: %s", rc, out);
  // python without matplotlib / no python at all: a message saying what to install
  char wrap[300];
  snprintf(wrap, sizeof(wrap), "%s/nosite.sh", g_tmp);
  f = fopen(wrap, "w");
  ck_assert_ptr_nonnull(f);
  fputs("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n", f);  // -S: no dist-packages
  fclose(f);
  chmod(wrap, 0755);
  rc = sh_fmt(out, sizeof(out), "CSIM_PYTHON=%s %s plot %s/full.h5", wrap, csim_bin(), g_tmp);
  ck_assert_msg(rc == 2 && strstr(out, "python3-matplotlib"), "%d: %s", rc, out);
  rc = sh_fmt(out, sizeof(out), "CSIM_PYTHON=/nonexistent/python3 %s plot %s/full.h5", csim_bin(),
          g_tmp);
  ck_assert_msg(rc == 2 && strstr(out, "cannot run /nonexistent/python3"), "%d: %s", rc, out);
}
END_TEST

// the truncated run's page draws its body in headless Chromium (the rest of bad_input without a
// browser is make test's)
START_TEST(replay_truncated_in_browser) {
  if (!browser_available()) return;
  cut_run();
  replay_cut_run();
  static char out[16384];
  int rc = sh_fmt(out, sizeof(out), "%s tests/check_replay.py bodies %s/cut.html 1", python3(), g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
}
END_TEST

// the cube falls on screen between two times; the page's poses are /state/q's
START_TEST(replay_cube_drop_in_browser) {
  static char out[16384];
  run_scenario("scenarios/cube_drop.yaml", "drop", "--set integrator.duration=0.3");
  int rc = sh_fmt(out, sizeof(out), "%s replay %s/drop.h5 --out %s/drop.html", csim_bin(), g_tmp,
              g_tmp);
  ck_assert_msg(rc == 0 && strstr(out, "300 frames of 300 rows, 1 bodies"), "%s", out);
  if (!browser_available()) return;
  // free fall until ~0.215 s: at 0.2 s the cube is 0.196 m lower
  rc = sh_fmt(out, sizeof(out), "%s tests/check_replay.py fall %s/drop.html %s/drop.h5 0 0.2", python3(),
          g_tmp, g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
  printf("%s", out);
}
END_TEST

// Solo-12: a free base and 12 leg links, 13 moving bodies drawn; --every thins the frames
START_TEST(replay_solo12_bodies) {
  static char out[16384];
  run_scenario("scenarios/solo12_stand.yaml", "solo", "--set integrator.duration=0.04");
  int rc = sh_fmt(out, sizeof(out), "%s replay %s/solo.h5 --every 3", csim_bin(), g_tmp);
  ck_assert_msg(rc == 0 && strstr(out, "14 frames of 40 rows, 13 bodies"), "%s", out);
  if (browser_available()) {
    rc = sh_fmt(out, sizeof(out), "%s tests/check_replay.py bodies %s/solo.html 13", python3(), g_tmp);
    ck_assert_msg(rc == 0, "%s", out);
  }
  // the model is rebuilt from the stored scenario: a wrong directory is a clear error
  rc = sh_fmt(out, sizeof(out), "%s replay %s/solo.h5 --scenario-dir /nonexistent --out %s/z.html",
          csim_bin(), g_tmp, g_tmp);
  ck_assert_msg(rc == 2 && strstr(out, "cannot rebuild the model") && strstr(out, "/nonexistent"),
                "%d: %s", rc, out);
  char z[300];
  snprintf(z, sizeof(z), "%s/z.html", g_tmp);
  ck_assert_msg(access(z, F_OK) != 0, "a page was written despite the error");
  rc = sh_fmt(out, sizeof(out), "%s replay %s/solo.h5 --every 0", csim_bin(), g_tmp);
  ck_assert_msg(rc == 2 && strstr(out, "--every"), "%d: %s", rc, out);
}
END_TEST

// solo12_walk (quadruped_walk) for 0.2 s into g_tmp/walk.h5, replayed into g_tmp/walk.html
static void walk_run_and_replay(void) {
  static char out[16384];
  run_scenario("scenarios/solo12_walk.yaml", "walk", "--set integrator.duration=0.2");
  int rc = sh_fmt(out, sizeof(out), "%s replay %s/walk.h5", csim_bin(), g_tmp);
  ck_assert_msg(rc == 0 && strstr(out, "controllers: 4 planned footholds, 1 commanded velocities"),
                "%d: %s", rc, out);
}

// a controlled run plots the control panels, their series being /control's (check_plot.py reads
// them by channel name); a run without /control keeps the eight panels
START_TEST(plot_controlled_run) {
  static char out[65536];
  run_scenario("scenarios/solo12_walk.yaml", "walk", "--set integrator.duration=0.2");
  int rc = sh_fmt(out, sizeof(out), "%s plot %s/walk.h5 --json %s/walk.json", csim_bin(), g_tmp,
                  g_tmp);
  ck_assert_msg(rc == 0 && strstr(out, "12 panels") &&
                    strstr(out, "control_velocity, control_iterations, control_residual, "
                                "control_tau"), "%d: %s", rc, out);
  rc = sh_fmt(out, sizeof(out), "%s tests/check_plot.py %s/walk.json %s %s/walk.h5", python3(),
              g_tmp, ALL_PANELS, g_tmp);
  ck_assert_msg(rc == 0 && strstr(out, "12 panels"), "%s", out);
  // labelled from the columns attribute: controller/channel, commanded and measured
  rc = sh_fmt(out, sizeof(out), "grep -c -e '\"walk/vx_cmd\"' -e '\"walk/vx\"' -e "
              "'\"walk/mpc_iterations\"' -e '\"walk/FL_KFE\"' %s/walk.json", g_tmp);
  ck_assert_msg(rc == 0 && atoi(out) == 4, "labels: %s", out);
  // only the panels asked for; a control panel asked of a run without /control says so
  run_scenario("scenarios/cube_drop.yaml", "cube", "--set integrator.duration=0.05");
  rc = sh_fmt(out, sizeof(out), "%s plot %s/cube.h5 --json %s/cube.json", csim_bin(), g_tmp, g_tmp);
  ck_assert_msg(rc == 0 && strstr(out, "8 panels") && !strstr(out, "control"), "%d: %s", rc, out);
  rc = sh_fmt(out, sizeof(out), "%s plot %s/cube.h5 --panels control_tau --json %s/ct.json && "
              "%s tests/check_plot.py %s/ct.json control_tau %s/cube.h5", csim_bin(), g_tmp, g_tmp,
              python3(), g_tmp, g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
}
END_TEST

// the replay of a controlled run carries its planned footholds and commanded velocity, equal to
// /control/log's; a run without /control writes no controller data
START_TEST(replay_controlled_run_data) {
  static char out[16384];
  walk_run_and_replay();
  int rc = sh_fmt(out, sizeof(out), "%s tests/check_replay.py control %s/walk.html %s/walk.h5",
                  python3(), g_tmp, g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
  run_scenario("scenarios/cube_drop.yaml", "cube", "--set integrator.duration=0.05");
  rc = sh_fmt(out, sizeof(out), "%s replay %s/cube.h5 && grep -c '\"control\":' %s/cube.html",
              csim_bin(), g_tmp, g_tmp);
  ck_assert_msg(rc == 1 && !strstr(out, "controllers:") && strstr(out, "\n0\n"), "%d: %s", rc,
                out);
}
END_TEST

// in headless Chromium the walking run's page draws the four footholds and the command arrow
// along the yaw-rotated command
START_TEST(replay_controlled_run_in_browser) {
  if (!browser_available()) return;
  walk_run_and_replay();
  static char out[16384];
  int rc = sh_fmt(out, sizeof(out), "%s tests/check_replay.py control %s/walk.html %s/walk.h5 0.15",
                  python3(), g_tmp, g_tmp);
  ck_assert_msg(rc == 0, "%s", out);
  printf("%s", out);
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("viz");
  TCase* t = tcase_create("plot");
  tcase_add_checked_fixture(t, setup, tmp_teardown);
  tcase_set_timeout(t, 600);
  tcase_add_test(t, plot_quick_scenarios);
  tcase_add_test(t, plot_overlay_and_panels);
  tcase_add_test(t, bad_input);
  tcase_add_test(t, plot_controlled_run);
  tcase_add_test(t, replay_controlled_run_data);
  suite_add_tcase(s, t);
  TCase* r = tcase_create("replay");
  tcase_add_checked_fixture(r, setup, tmp_teardown);
  tcase_set_timeout(r, 600);
  // headless Chromium takes a minute, the other scenarios' plots one more: make test-long
  tcase_set_tags(r, "long");
  tcase_add_test(r, replay_cube_drop_in_browser);
  tcase_add_test(r, replay_solo12_bodies);
  tcase_add_test(r, replay_truncated_in_browser);
  tcase_add_test(r, replay_controlled_run_in_browser);
  tcase_add_test(r, plot_other_scenarios);
  suite_add_tcase(s, r);
  return s;
}

int main(void) {
  return run_suite(suite());
}
