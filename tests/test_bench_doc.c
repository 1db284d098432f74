// test_bench_doc.c — generated blocks of the docs keep their generated form.
// docs/benchmarks.md's block has the form tools/bench/bench_table.py generates
// (headings, notes, table headers in order, with columns for csim ncp/pgs, ncp/admm and ncp/auto,
// the default's ratio, the horizons and the targets table; data rows with as many cells as their
// header). The numbers are not checked: they are one run's
// measurements and change per machine. Also checks that the check can fail: a copy of the page
// with a header changed, one with a solver's column dropped, one without the default's ratio, one
// without the targets table's cap column, and one with a short data row, are rejected.
// docs/validation.md's cube-toss tables carry docs/cubetoss/cubetoss_report.md's numbers
// (tools/gen/validation_tables.py --check), and a number changed or a model the report lacks is
// rejected. Runs from the repo root (python3 is a dependency: make deps).
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "support.h"

// exit status of `TOOL --check path` (TOOL a python script of the repo)
static int check_with(const char* tool, const char* path) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "python3 %s --check '%s' 2>/dev/null", tool, path);
  int rc = system(cmd);
  return rc == -1 ? -1 : WEXITSTATUS(rc);
}

static const char* g_tool = "tools/bench/bench_table.py";

static int check(const char* path) { return check_with(g_tool, path); }

// README with the first occurrence of `from` replaced by `to`, written to a temp file
static void mutate(const char* readme, const char* from, const char* to, char* path, size_t n) {
  const char* p = strstr(readme, from);
  ck_assert_ptr_nonnull(p);
  snprintf(path, n, P_tmpdir "/csim_bench_doc_XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE* f = fdopen(fd, "w");
  ck_assert_ptr_nonnull(f);
  fwrite(readme, 1, (size_t)(p - readme), f);
  fputs(to, f);
  fputs(p + strlen(from), f);
  fclose(f);
}

// the check (g_tool's) rejects the page with the first `from` replaced by `to`
static void rejects(const char* readme, const char* from, const char* to) {
  char path[256];
  mutate(readme, from, to, path, sizeof path);
  ck_assert_msg(check(path) == 1, "the check accepted the page with \"%s\" -> \"%s\"", from, to);
  unlink(path);
}

START_TEST(readme_block_has_generated_form) {
  ck_assert_int_eq(check("docs/benchmarks.md"), 0);
  char* readme = slurp("docs/benchmarks.md", NULL);
  ck_assert_ptr_nonnull(readme);
  // a renamed column
  rejects(readme, "| ratio Ir admm |", "| ratio Ir admm (quoted) |");
  // a csim solver's column dropped from the time table
  rejects(readme, "| µs/step csim admm |", "|");
  // the default solver's ratio column renamed (the column the targets are read from)
  rejects(readme, "| ratio Ir default |", "| ratio Ir best |");
  // the targets table without its iteration-cap column
  rejects(readme, "| no step at the cap |", "|");
  // a data row with a cell missing (the first data row of the instructions table: 21 columns,
  // scene, nv, then contacts, Ir/step and ε_abs of csim pgs, admm, auto and MuJoCo, the ratios
  // Ir of the three csim solvers, of the default, the best csim solver, the Ir horizon, the
  // settling ratio and the note)
  const char* sep21 = "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  const char* sep = strstr(readme, sep21);
  ck_assert_ptr_nonnull(sep);
  const char* row = sep + strlen(sep21);
  ck_assert_msg(row[0] == '|', "no data row after the MuJoCo table header");
  rejects(readme, row, "| short | row |\n");
  // no block at all
  rejects(readme, "<!-- bench:begin -->", "<!-- bench -->");
  free(readme);
}
END_TEST

// the copies of the cube-toss report in docs/validation.md: every number is the report's
START_TEST(validation_tables_from_report) {
  g_tool = "tools/gen/validation_tables.py";
  ck_assert_int_eq(check("docs/validation.md"), 0);
  char* page = slurp("docs/validation.md", NULL);
  ck_assert_ptr_nonnull(page);
  rejects(page, "| hunt_crossley | 0.248 ± 0.514 |", "| hunt_crossley | 0.247 ± 0.514 |");
  rejects(page, "| lcp | 0.374 ± 0.581 | 0.100 |", "| lcp | 0.374 ± 0.581 | 0.10 |");
  rejects(page, "0.38 ± 0.62 |", "0.39 ± 0.62 |");  // seed 003's MuJoCo row
  rejects(page, "| hunt_crossley | 0.572 ± 0.705 |", "| hunt_crossley | 0.570 ± 0.705 |");
  rejects(page, "| ncp |", "| ncp_typo |");  // a model the report has no row of
  free(page);
  g_tool = "tools/bench/bench_table.py";
}
END_TEST

int main(void) {
  Suite* s = suite_create("bench_doc");
  TCase* t = tcase_create("readme");
  tcase_set_timeout(t, 120);  // one python run: seconds on a loaded machine, not the 4 s default
  tcase_add_test(t, readme_block_has_generated_form);
  tcase_add_test(t, validation_tables_from_report);
  suite_add_tcase(s, t);
  return run_suite(s);
}
