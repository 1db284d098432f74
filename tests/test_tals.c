// test_tals.c — seed 001's TALS comparisons through `csim run` and its HDF5 output:
// integrator.line_search (tals | backtracking | none), the per-iteration Newton residual history
// /compliant/newton_history (output.newton_history) and the convergence order of 001 Fig. 8.
//
// Expected values come from the paper's claims and from theory, never from csim's output:
//   - 001 Fig. 4: at the box's first slide-to-stick transition with h = 10 ms, plain Newton
//     "misses stiction, oscillates, and does not converge"; TALS "guides Newton's method to
//     convergence": TALS needs no more iterations than plain Newton on the same step.
//   - a converged step's last recorded residual is below integrator.newton_tolerance (the
//     stopping rule), and the history holds exactly iterations + 1 finite entries.
//   - 001 Fig. 8: "TAMSI exhibits first order convergence with step size"; implicit Euler is a
//     first-order method too (001 Sec. III, Fig. 5's "expected theoretical first order slope").
// Output files go to P_tmpdir with the pid in their names and are removed.
#include <check.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/scenario.h"
#include "support.h"

#define NHIST 64     // output.newton_history of these runs (> newton_max_iterations + 1 = 51)
#define TOL 1e-10    // scenarios/stick_slip_box.yaml: integrator.newton_tolerance
#define MAXROWS 256

// a temporary output path unique to this process and tag
static void out_path(char* out, size_t n, const char* tag) {
  snprintf(out, n, P_tmpdir "/csim_test_tals_%d_%s.h5", (int)getpid(), tag);
}

// the datasets of one stick-slip run
typedef struct {
  long n;
  int it[MAXROWS], sub[MAXROWS], nstick[MAXROWS], conv[MAXROWS];
  double v[MAXROWS * 6], hist[MAXROWS * NHIST];
  long hcols;
} run_data;

// csim run scenarios/stick_slip_box.yaml for 0.6 s (the first slide-to-stick transition is near
// t = 0.46 s) with the given line search and the residual history on; reads its datasets
static void run_box(const char* line_search, run_data* r) {
  char out[160], ls[64], hist[64];
  out_path(out, sizeof(out), line_search);
  snprintf(ls, sizeof(ls), "integrator.line_search=%s", line_search);
  snprintf(hist, sizeof(hist), "output.newton_history=%d", NHIST);
  char* argv[] = {"scenarios/stick_slip_box.yaml", "--set", "integrator.duration=0.6", "--set",
                  ls, "--set", hist, "--out", out, "--quiet"};
  ck_assert_int_eq(cli_run(10, argv), 0);
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  r->n = h5_read(f, "/compliant/newton_iterations", NULL, r->it, MAXROWS, NULL);
  ck_assert_int_eq(r->n, 60);
  ck_assert_int_eq(h5_read(f, "/compliant/substeps", NULL, r->sub, MAXROWS, NULL), r->n);
  ck_assert_int_eq(h5_read(f, "/compliant/stiction_count", NULL, r->nstick, MAXROWS, NULL), r->n);
  ck_assert_int_eq(h5_read(f, "/compliant/newton_converged", NULL, r->conv, MAXROWS, NULL), r->n);
  long vc = 0;
  ck_assert_int_eq(h5_read(f, "/state/v", r->v, NULL, MAXROWS * 6, &vc), r->n);
  ck_assert_int_eq(vc, 6);
  ck_assert_int_eq(h5_read(f, "/compliant/newton_history", r->hist, NULL, MAXROWS * NHIST,
                           &r->hcols), r->n);
  ck_assert_int_eq(r->hcols, NHIST);
  H5Fclose(f);
  unlink(out);
}

// the first step that ends in stiction after a step that ended sliding (001 Fig. 4's step)
static int first_stick(const run_data* r) {
  for (int k = 1; k < r->n; k++)
    if (r->nstick[k - 1] == 0 && r->nstick[k] > 0) return k;
  return -1;
}

// finite entries of row k of the history, and whether they are a prefix (NaN padding after)
static int finite_prefix(const run_data* r, int k, int* prefix) {
  int nf = 0, last = -1;
  for (int j = 0; j < NHIST; j++)
    if (isfinite(r->hist[(long)k * NHIST + j])) {
      nf++;
      last = j;
    }
  *prefix = last + 1 == nf;
  return nf;
}

// 001 Fig. 4: at the first slide-to-stick transition, from the same state, TALS needs no more
// Newton iterations than plain Newton, which does not converge on the whole step
START_TEST(tals_needs_no_more_iterations_at_transition) {
  static run_data tals, none;
  run_box("tals", &tals);
  run_box("none", &none);
  int k = first_stick(&tals);
  ck_assert_msg(k > 10, "no slide-to-stick transition in the TALS run (k = %d)", k);
  // the same Newton problem: both runs start the step from the same state
  for (int j = 0; j <= 6 * k + 5; j++)
    ck_assert_msg(tals.v[j] == none.v[j], "states differ before the transition step %d", k);
  ck_assert_msg(tals.it[k] <= none.it[k], "step %d: TALS %d iterations, plain Newton %d", k,
                tals.it[k], none.it[k]);
  // TALS: converged on the whole step; plain Newton: not on the whole step (001 Fig. 4 top)
  ck_assert_int_eq(tals.sub[k], 1);
  ck_assert_int_eq(tals.conv[k], 1);
  ck_assert_msg(none.sub[k] > 1 || !none.conv[k], "plain Newton converged on the whole step %d",
                k);
  // and over the whole run TALS spends no more iterations either (001 Fig. 5: TALS extends the
  // range where the integrator is cheap)
  long st = 0, sn = 0;
  for (int j = 0; j < tals.n; j++) {
    st += tals.it[j];
    sn += none.it[j];
  }
  ck_assert_msg(st <= sn, "TALS %ld iterations in all, plain Newton %ld", st, sn);
}
END_TEST

// the history: NaN-padded rows; a step converged on the whole step within the recorded
// iterates ends below the tolerance with iterations + 1 entries; a failed first solve records
// newton_max_iterations + 1 = 51 residuals, all above the tolerance
START_TEST(newton_history_records_the_first_solve) {
  static run_data tals, none;
  run_box("tals", &tals);
  run_box("none", &none);
  int checked = 0;
  for (int k = 0; k < tals.n; k++) {
    int prefix, nf = finite_prefix(&tals, k, &prefix);
    ck_assert_msg(prefix, "step %d: NaN inside the history", k);
    if (tals.sub[k] != 1 || !tals.conv[k]) continue;
    ck_assert_int_eq(nf, tals.it[k] + 1);
    ck_assert_msg(tals.hist[(long)k * NHIST + nf - 1] <= TOL, "step %d: last residual %g", k,
                  tals.hist[(long)k * NHIST + nf - 1]);
    for (int j = 0; j + 1 < nf; j++)
      ck_assert_msg(tals.hist[(long)k * NHIST + j] > TOL, "step %d: iterate %d below tolerance",
                    k, j);
    checked++;
  }
  ck_assert_int_eq(checked, tals.n);
  int k = first_stick(&tals), prefix;
  ck_assert_int_eq(finite_prefix(&none, k, &prefix), 51);
  ck_assert(prefix);
  for (int j = 0; j < 51; j++) ck_assert_double_gt(none.hist[(long)k * NHIST + j], TOL);
  // iterate 0 is the same initial guess (the velocity before the step) in both runs
  ck_assert_double_eq(tals.hist[(long)k * NHIST], none.hist[(long)k * NHIST]);

  // without output.newton_history there is no dataset
  char out[160];
  out_path(out, sizeof(out), "nohist");
  char* argv[] = {"scenarios/stick_slip_box.yaml", "--set", "integrator.duration=0.05",
                  "--out", out, "--quiet"};
  ck_assert_int_eq(cli_run(6, argv), 0);
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  ck_assert_int_le(H5Lexists(f, "/compliant/newton_history", H5P_DEFAULT), 0);
  H5Fclose(f);
  unlink(out);
}
END_TEST

// a line search that is not one of the three names is an input error (exit 2)
START_TEST(line_search_key_is_checked) {
  char out[160];
  out_path(out, sizeof(out), "badkey");
  char* argv[] = {"scenarios/stick_slip_box.yaml", "--set", "integrator.line_search=armijo",
                  "--out", out, "--quiet"};
  ck_assert_int_eq(cli_run(6, argv), 2);
  argv[2] = "output.newton_history=-1";
  ck_assert_int_eq(cli_run(6, argv), 2);
  unlink(out);
}
END_TEST

// RMS over rows of the norm of the generalized velocity difference of two runs' /state/v
static double rms_diff(const double* a, const double* b, long rows, long cols) {
  double acc = 0;
  for (long i = 0; i < rows * cols; i++) acc += (a[i] - b[i]) * (a[i] - b[i]);
  return sqrt(acc / (double)rows);
}

// /state/v of scenarios/gripper_mug.yaml over 0.3 s recorded every 30 ms (11 rows)
static long gripper_v(const char* scheme, double h, double* v, long* cols) {
  char out[160], sch[64], dt[64], ev[64];
  snprintf(sch, sizeof(sch), "integrator.scheme=%s", scheme);
  snprintf(dt, sizeof(dt), "integrator.dt=%.17g", h);
  snprintf(ev, sizeof(ev), "output.every=%ld", lround(0.03 / h));
  out_path(out, sizeof(out), "grip");
  char* argv[] = {"scenarios/gripper_mug.yaml", "--set", sch, "--set", dt, "--set", ev,
                  "--set", "integrator.duration=0.3", "--out", out, "--quiet"};
  ck_assert_int_eq(cli_run(12, argv), 0);
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  long n = h5_read(f, "/state/v", v, NULL, 64 * 16, cols);
  H5Fclose(f);
  unlink(out);
  return n;
}

// 001 Fig. 8 on a short run: the velocity error against a small-step run falls with the first
// power of h for TAMSI and implicit Euler (fitted slope over h = 6, 3, 1.5 ms within [0.8, 1.2])
START_TEST(gripper_converges_first_order) {
  static double vref[64 * 16], v[64 * 16];
  long cols = 0, c2 = 0;
  long n = gripper_v("tamsi", 1e-4, vref, &cols);
  ck_assert_int_eq(n, 10);
  const char* schemes[] = {"tamsi", "implicit_euler"};
  const double hs[] = {6e-3, 3e-3, 1.5e-3};
  for (int s = 0; s < 2; s++) {
    double lx[3], ly[3];
    for (int k = 0; k < 3; k++) {
      ck_assert_int_eq(gripper_v(schemes[s], hs[k], v, &c2), n);
      ck_assert_int_eq(c2, cols);
      double e = rms_diff(v, vref, n, cols);
      ck_assert_msg(e > 0 && isfinite(e), "%s h = %g: error %g", schemes[s], hs[k], e);
      lx[k] = log(hs[k]);
      ly[k] = log(e);
    }
    double mx = (lx[0] + lx[1] + lx[2]) / 3, my = (ly[0] + ly[1] + ly[2]) / 3, sxy = 0, sxx = 0;
    for (int k = 0; k < 3; k++) {
      sxy += (lx[k] - mx) * (ly[k] - my);
      sxx += (lx[k] - mx) * (lx[k] - mx);
    }
    double order = sxy / sxx;
    ck_assert_msg(order > 0.8 && order < 1.2, "%s: fitted order %.3f (errors %g %g %g)",
                  schemes[s], order, exp(ly[0]), exp(ly[1]), exp(ly[2]));
  }
}
END_TEST

static Suite* tals_suite(void) {
  Suite* s = suite_create("tals");
  TCase* t = tcase_create("runs");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, tals_needs_no_more_iterations_at_transition);
  tcase_add_test(t, newton_history_records_the_first_solve);
  tcase_add_test(t, line_search_key_is_checked);
  tcase_add_test(t, gripper_converges_first_order);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return run_suite(tals_suite());
}
