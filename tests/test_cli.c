// test_cli.c — the csim command line, run as a user would (through popen).
//
// `csim info` is checked on every shared URDF against figures computed independently by
// tools/check/urdf_stats.py (Python's xml.etree, no code shared with csim's parser).
// The binary under test is $CSIM (default ./csim); tests run from the repo root.
#include <check.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "support.h"

// the text following `key` on its line, or NULL
static const char* field(const char* text, const char* key) {
  const char* p = strstr(text, key);
  return p ? p + strlen(key) : NULL;
}

static int has_python(void) {
  return sh_run("python3 -c 'import xml.etree.ElementTree' 2>/dev/null", NULL, 0) == 0;
}

// every shared URDF: csim info agrees with the independent Python figures
START_TEST(info_matches_independent_figures) {
  ck_assert_msg(has_python(), "python3 is needed for the independent URDF figures");
  glob_t g;
  ck_assert_int_eq(glob("../shared/data/robots/*/*.urdf", 0, NULL, &g), 0);
  ck_assert_int_ge((int)g.gl_pathc, 17);
  static char ours[65536], theirs[8192];
  char cmd[2048];
  for (size_t i = 0; i < g.gl_pathc; i++) {
    const char* path = g.gl_pathv[i];
    snprintf(cmd, sizeof(cmd), "%s info '%s' 2>&1", csim_bin(), path);
    int rc = sh_run(cmd, ours, sizeof(ours));
    ck_assert_msg(rc == 0, "csim info %s exited %d:\n%s", path, rc, ours);
    snprintf(cmd, sizeof(cmd), "python3 tools/check/urdf_stats.py '%s'", path);
    ck_assert_int_eq(sh_run(cmd, theirs, sizeof(theirs)), 0);

    // links
    int l1 = -1, l2 = -2;
    ck_assert(sscanf(field(ours, "\nlinks: "), "%d", &l1) == 1);
    ck_assert(sscanf(field(theirs, "links: "), "%d", &l2) == 1);
    ck_assert_msg(l1 == l2, "%s: links %d vs %d", path, l1, l2);
    // joints by type: the Python line is "joints: revolute R, continuous C, ..."; ours has the
    // same list inside parentheses
    const char* jt = field(theirs, "joints: ");
    char want[256];
    sscanf(jt, "%255[^\n]", want);
    ck_assert_msg(strstr(ours, want) != NULL, "%s: joint counts '%s' not in:\n%s", path, want,
                  ours);
    // dofs for both bases
    const char* keys[2] = {"dofs (fixed base): ", "dofs (free base): "};
    for (int k = 0; k < 2; k++) {
      int q1 = -1, v1 = -1, q2 = -2, v2 = -2;
      const char* a = field(ours, keys[k]);
      const char* b = field(theirs, keys[k]);
      ck_assert_msg(a != NULL, "%s: no '%s' line:\n%s", path, keys[k], ours);
      ck_assert(sscanf(a, "nq %d, nv %d", &q1, &v1) == 2);
      ck_assert(sscanf(b, "nq %d, nv %d", &q2, &v2) == 2);
      ck_assert_msg(q1 == q2 && v1 == v2, "%s: %s nq %d nv %d vs nq %d nv %d", path, keys[k],
                    q1, v1, q2, v2);
    }
    // total mass
    double m1 = -1, m2 = -2;
    ck_assert(sscanf(field(ours, "\nmass: "), "%lf", &m1) == 1);
    ck_assert(sscanf(field(theirs, "mass: "), "%lf", &m2) == 1);
    ck_assert_msg(fabs(m1 - m2) <= 1e-6 * fmax(1, m2), "%s: mass %.9f vs %.9f", path, m1, m2);
  }
  globfree(&g);
}
END_TEST

// the information a user needs about problems is printed
START_TEST(info_reports_problems) {
  static char out[65536];
  char cmd[512];
  // hyq: .dae collision meshes cannot be used, degenerate inertias are reported
  snprintf(cmd, sizeof(cmd), "%s info ../shared/data/robots/hyq/hyq_no_sensors.urdf 2>&1",
           csim_bin());
  ck_assert_int_eq(sh_run(cmd, out, sizeof(out)), 0);
  ck_assert_ptr_nonnull(strstr(out, "in an unsupported format"));
  int n = -1;
  ck_assert(sscanf(field(out, "inertia problems: "), "%d", &n) == 1);
  ck_assert_int_ge(n, 6);
  // solo12: every collision mesh resolves through the shared layout, hulls are built
  snprintf(cmd, sizeof(cmd), "%s info ../shared/data/robots/solo12/solo12.urdf --base free 2>&1",
           csim_bin());
  ck_assert_int_eq(sh_run(cmd, out, sizeof(out)), 0);
  ck_assert_ptr_nonnull(strstr(out, "collision meshes: 17 usable, 0 unresolved"));
  // 17 mesh geometries share 10 distinct STL files: one hull per file
  ck_assert_ptr_nonnull(strstr(out, "mesh 17)"));
  ck_assert_ptr_nonnull(strstr(out, "convex hulls: 10 "));
  ck_assert_ptr_nonnull(strstr(out, "inertia problems: 0"));
}
END_TEST

// bad command lines and bad files get exit 2 and a message, never a crash
START_TEST(bad_invocations_exit_2) {
  static char out[16384];
  char cmd[512];
  const char* cases[] = {
      "",                                           // no command
      "frobnicate",                                 // unknown command
      "info",                                       // missing file
      "info /nonexistent/robot.urdf",               // unreadable file
      "info tests/test_cli.c",                      // not XML
      "info ../shared/data/robots/solo12/solo12.urdf --base wobbly",
      "info ../shared/data/robots/solo12/solo12.urdf --bogus",
      "info a.urdf b.urdf",
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    snprintf(cmd, sizeof(cmd), "%s %s 2>&1", csim_bin(), cases[i]);
    int rc = sh_run(cmd, out, sizeof(out));
    ck_assert_msg(rc == 2, "'csim %s' exited %d (expected 2):\n%s", cases[i], rc, out);
    ck_assert_msg(strstr(out, "error") || strstr(out, "usage"), "'csim %s' said:\n%s", cases[i],
                  out);
  }
  snprintf(cmd, sizeof(cmd), "%s --help", csim_bin());
  ck_assert_int_eq(sh_run(cmd, out, sizeof(out)), 0);
  ck_assert_ptr_nonnull(strstr(out, "usage: csim"));
  snprintf(cmd, sizeof(cmd), "%s --version", csim_bin());
  ck_assert_int_eq(sh_run(cmd, out, sizeof(out)), 0);
  ck_assert_ptr_nonnull(strstr(out, "hdf5"));
}
END_TEST

// docs/scenarios.md carries the generated scenario-key table verbatim (tools/gen/sync_keys.sh)
START_TEST(readme_documents_every_key) {
  static char readme[1 << 20], keys[1 << 18];
  FILE* f = fopen("docs/scenarios.md", "r");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(readme, 1, sizeof(readme) - 1, f);
  readme[n] = '\0';
  fclose(f);
  f = fopen("docs/scenario_keys.md", "r");
  ck_assert_ptr_nonnull(f);
  n = fread(keys, 1, sizeof(keys) - 1, f);
  keys[n] = '\0';
  fclose(f);
  ck_assert_msg(strstr(readme, keys) != NULL,
                "docs/scenarios.md's key table differs from docs/scenario_keys.md: run "
                "tools/gen/sync_keys.sh");
}
END_TEST

static Suite* cli_suite(void) {
  Suite* s = suite_create("cli");
  TCase* tc = tcase_create("info");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, info_matches_independent_figures);
  tcase_add_test(tc, info_reports_problems);
  tcase_add_test(tc, bad_invocations_exit_2);
  tcase_add_test(tc, readme_documents_every_key);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(cli_suite());
}
