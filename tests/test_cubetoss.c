// test_cubetoss.c — recorded cube tosses (cubetoss.h) and `csim validate/identify cubetoss`.
//
// Expected values come from closed forms (e_q of a known offset and rotation, the ballistic
// parabola from a toss's first row) and from the recorded data itself (the pre-impact rows);
// the CLI tests run the binary ($CSIM, default ./csim) from the repo root on a handful of tosses.
#include <check.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/cubetoss.h"
#include "core/error.h"
#include "support.h"

#define DATA "../shared/data/cubetoss/cube_tosses.h5"

static ct_data* load(const char* group) {
  ct_data* d = NULL;
  csim_error err;
  err_clear(&err);
  csim_status st = ct_load(DATA, group, &d, &err);
  ck_assert_msg(st == CSIM_OK, "%s", err.msg);
  return d;
}

// q = a b for quaternions [x y z w]
static void qmul(const double a[4], const double b[4], double q[4]) {
  q[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
  q[0] = a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1];
  q[1] = a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2];
  q[2] = a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0];
}

// the file's cube and layout as the data README states them
START_TEST(load_reads_the_shared_file) {
  ct_data* d = load("dairlib550_eval");
  ck_assert_int_eq(d->ntoss, 430);
  ck_assert_int_eq((int)d->offsets[d->ntoss], 40559);
  ck_assert_double_eq_tol(d->dt, 1.0 / 148, 1e-15);
  ck_assert_double_eq_tol(d->side, 0.1048, 1e-15);
  ck_assert_double_eq_tol(d->mass, 0.37, 1e-15);
  ck_assert_double_eq_tol(d->inertia[2], 0.00081, 1e-15);
  ct_free(d);
}
END_TEST

// e_q of a toss against itself is 0 (the recorded rows converted to csim's order)
START_TEST(eq_of_a_toss_against_itself_is_zero) {
  ct_data* d = load("dairlib550_eval");
  for (int i = 0; i < 5; i++) {
    int T;
    const double* r = ct_toss(d, i, &T);
    double* q = malloc(sizeof(double) * 7 * (size_t)T);
    for (int k = 0; k < T; k++) {
      double v[6];
      ct_row_state(r + (size_t)k * CT_NCOL, q + 7 * k, v);
    }
    ct_result res;
    ct_score(r, q, T, d->side, &res);
    ck_assert_double_eq(res.eq, 0);
    ck_assert_double_eq(res.pos, 0);
    ck_assert_double_eq(res.rot, 0);
    free(q);
  }
  ct_free(d);
}
END_TEST

// e_q of a known rotation is the angle squared; of a known offset (2/l) d^2 (003 eq. 3)
START_TEST(eq_of_a_known_rotation_is_the_angle_squared) {
  ct_data* d = load("dairlib550_eval");
  int T;
  const double* r = ct_toss(d, 3, &T);
  double* q = malloc(sizeof(double) * 7 * (size_t)T);
  const double angles[4] = {0.3, 1.0, 3.0, 1.5 * M_PI};  // 1.5 pi is 0.5 pi the short way
  const double expect[4] = {0.3, 1.0, 3.0, 0.5 * M_PI};
  double ax[3] = {1, -2, 2};
  for (int a = 0; a < 4; a++) {
    double h = angles[a] / 2;
    double rot[4] = {sin(h) * ax[0] / 3, sin(h) * ax[1] / 3, sin(h) * ax[2] / 3, cos(h)};
    for (int k = 0; k < T; k++) {
      double v[6], q0[7];
      ct_row_state(r + (size_t)k * CT_NCOL, q0, v);
      memcpy(q + 7 * k, q0, 3 * sizeof(double));
      // body-frame rotation of the recorded orientation; every other row with the sign flipped
      qmul(q0 + 3, rot, q + 7 * k + 3);
      if (k % 2)
        for (int c = 3; c < 7; c++) q[7 * k + c] = -q[7 * k + c];
    }
    ct_result res;
    ct_score(r, q, T, d->side, &res);
    ck_assert_double_eq_tol(res.eq, expect[a] * expect[a], 1e-12);
    ck_assert_double_eq_tol(res.rot, expect[a] * 180 / M_PI, 1e-10);
    ck_assert_double_eq_tol(res.pos, 0, 1e-12);
  }
  // a pure offset of 1 cm: e_q = (2/l) 1e-4, position error 1/10.48 of the side
  for (int k = 0; k < T; k++) {
    double v[6];
    ct_row_state(r + (size_t)k * CT_NCOL, q + 7 * k, v);
    q[7 * k + 1] += 0.006;
    q[7 * k + 2] -= 0.008;
  }
  ct_result res;
  ct_score(r, q, T, d->side, &res);
  ck_assert_double_eq_tol(res.eq, 2 / 0.1048 * 1e-4, 1e-14);
  ck_assert_double_eq_tol(res.pos, 0.01 / 0.1048 * 100, 1e-9);
  ck_assert_double_eq_tol(res.rot, 0, 1e-12);
  free(q);
  ct_free(d);
}
END_TEST

// ballistic flight: until a corner can reach the table, the simulated centre follows the
// parabola of the first row exactly and the recording within the data's own error (differenced
// velocities lag half a sample, free fall reads ~2 % slow: a few mm over these rows)
START_TEST(ballistic_flight_matches_the_data_parabola) {
  ct_data* d = load("dairlib550");
  ct_model m = {.name = "ncp", .np = 1, .key = {"friction"}, .val = {0.3}};
  ct_options o = {10, 1, NULL, 0};
  int checked = 0;
  for (int i = 0; i < 5; i++) {
    int T;
    const double* r = ct_toss(d, i, &T);
    double* q = malloc(sizeof(double) * 7 * (size_t)T);
    ct_result res;
    csim_error err;
    ck_assert_int_eq(ct_run(d, &m, &o, &i, 1, &res, q, &err), CSIM_OK);
    ck_assert(!res.failed);
    double q0[7], v0[6];
    ct_row_state(r, q0, v0);
    const double half_diag = 0.0524 * sqrt(3.0);
    double maxdev = 0;
    for (int k = 1; k < T; k++) {
      double t = k * d->dt;
      double p[3] = {q0[0] + v0[0] * t, q0[1] + v0[1] * t, q0[2] + v0[2] * t - 0.5 * 9.81 * t * t};
      // stop where a corner of the parabola's cube or of the recorded one could touch
      if (p[2] - half_diag < 2e-3 || r[(size_t)k * CT_NCOL + 2] - half_diag < 2e-3) break;
      for (int c = 0; c < 3; c++) {
        ck_assert_double_eq_tol(q[7 * k + c], p[c], 1e-9);
        double dev = fabs(q[7 * k + c] - r[(size_t)k * CT_NCOL + c]);
        if (dev > maxdev) maxdev = dev;
      }
      checked++;
    }
    ck_assert_double_lt(maxdev, 6e-3);
    free(q);
  }
  ck_assert_int_ge(checked, 20);
  ct_free(d);
}
END_TEST

// validation of 5 tosses: finite errors for every model, the same with 1 and 2 threads
START_TEST(validation_of_five_tosses_is_finite_for_every_model) {
  ct_data* d = load("dairlib550_eval");
  int idx[5] = {0, 1, 2, 3, 4};
  for (int mi = 0; csim_model_names[mi]; mi++) {
    ct_model m;
    csim_error err;
    int found = 0;
    ck_assert_int_eq(
        ct_params_parse(ct_default_params(), "built-in", csim_model_names[mi], &m, &found, &err),
        CSIM_OK);
    ck_assert_int_eq(found, 1);  // csim ships parameters for every model
    ck_assert_int_gt(m.np, 0);
    ct_result r1[5], r2[5];
    ct_options o1 = {10, 1, NULL, 0}, o2 = {10, 2, NULL, 0};
    ck_assert_int_eq(ct_run(d, &m, &o1, idx, 5, r1, NULL, &err), CSIM_OK);
    ck_assert_int_eq(ct_run(d, &m, &o2, idx, 5, r2, NULL, &err), CSIM_OK);
    for (int j = 0; j < 5; j++) {
      ck_assert_msg(!r1[j].failed, "%s toss %d failed", m.name, j);
      ck_assert(isfinite(r1[j].eq) && isfinite(r1[j].pos) && isfinite(r1[j].rot));
      ck_assert_double_ge(r1[j].eq, 0);
      ck_assert_double_eq(r1[j].eq, r2[j].eq);  // deterministic whatever the thread count
      ck_assert_double_eq(r1[j].rot, r2[j].rot);
    }
  }
  ct_free(d);
}
END_TEST

// seed 003's parameters entered through materials (Drake: the table's material, Drake's default
// on the cube) and MuJoCo's solref/solimp (ccp): 5 tosses finite, and the materials route gives
// the same scores as the explicitly combined pair given as global keys (two routes agree)
START_TEST(validation_with_materials_and_solref_is_finite) {
  ct_data* d = load("dairlib550_eval");
  int idx[5] = {0, 1, 2, 3, 4};
  const char* text =
      "hunt_crossley: {combine: drake, materials: {ground: {friction: 0.1, stiffness: 15500, damping: 1.3},\n"
      "                cube: {friction: 1.0, stiffness: 7259.4, damping: 10.096}}}\n"
      "ccp: {friction: 0.23, solref: [-3850, -63], solimp: [0.9, 0.95, 0.001, 0.5, 2]}\n"
      "ncp: {combine: mujoco, materials: {ground: {friction: 0.2, restitution: 0.3}, cube: {friction: 0.1}}}\n"
      "spring_damper: {combine: mean, friction: 0.2, stiffness: 2.0e5, damping: 20, materials: {cube: {}}}\n";
  // the Drake pair combined by hand: springs in series, stiffness-weighted dissipation, 2ab/(a+b)
  double k = 15500 * 7259.4 / (15500 + 7259.4), dd = (7259.4 * 1.3 + 15500 * 10.096) / (15500 + 7259.4);
  char global[256];
  snprintf(global, sizeof global, "hunt_crossley: {friction: %.17g, stiffness: %.17g, damping: %.17g}\n",
           2 * 0.1 / 1.1, k, dd);
  const char* names[] = {"hunt_crossley", "ccp", "ncp", "spring_damper"};
  ct_result ref[5];
  for (int mi = 0; mi < 4; mi++) {
    ct_model m;
    csim_error err;
    int found = 0;
    ck_assert_int_eq(ct_params_parse(text, "t.yaml", names[mi], &m, &found, &err), CSIM_OK);
    ck_assert_int_eq(found, 1);
    ct_result r[5];
    ct_options o = {10, 2, NULL, 0};
    ck_assert_msg(ct_run(d, &m, &o, idx, 5, r, NULL, &err) == CSIM_OK, "%s: %s", names[mi], err.msg);
    for (int j = 0; j < 5; j++) {
      ck_assert_msg(!r[j].failed, "%s toss %d failed", m.name, j);
      ck_assert(isfinite(r[j].eq) && isfinite(r[j].pos) && isfinite(r[j].rot));
      ck_assert_double_ge(r[j].eq, 0);
    }
    if (mi == 0) memcpy(ref, r, sizeof ref);
  }
  ct_model g;
  csim_error err;
  int found = 0;
  ck_assert_int_eq(ct_params_parse(global, "g.yaml", "hunt_crossley", &g, &found, &err), CSIM_OK);
  ct_result rg[5];
  ct_options o = {10, 2, NULL, 0};
  ck_assert_int_eq(ct_run(d, &g, &o, idx, 5, rg, NULL, &err), CSIM_OK);
  for (int j = 0; j < 5; j++) ck_assert_double_eq_tol(rg[j].eq, ref[j].eq, 1e-9 * (1 + ref[j].eq));
  // a misspelt material key or a short solref in a params file: input errors at their place
  ck_assert_int_eq(ct_params_parse("ccp: {materials: {cube: {frction: 1}}}\n", "b.yaml", "ccp", &g, &found, &err),
                   CSIM_ERR_INPUT);
  ck_assert_int_eq(err.line, 1);
  ck_assert_int_eq(ct_params_parse("ccp: {solref: [0.02]}\n", "b.yaml", "ccp", &g, &found, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(err.line, 1);
  ct_free(d);
}
END_TEST

// the CLI: a table line per model with e_q and its mean, per-toss CSV and HDF5
START_TEST(cli_validate_prints_the_table_and_writes_results) {
  char dir[128];
  tmp_dir(dir, sizeof(dir), "cubetoss");
  static char out[65536];
  char cmd[2048];
  snprintf(cmd, sizeof(cmd), "%s validate cubetoss --tosses 3 --model hunt_crossley --model ncp --jobs 2 --out %s",
           csim_bin(), dir);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 0);
  const char* l = strstr(out, "\nhunt_crossley  e_q ");
  ck_assert_msg(l, "%s", out);
  double eq = strtod(l + strlen("\nhunt_crossley  e_q "), NULL);
  ck_assert(isfinite(eq) && eq >= 0);
  ck_assert_ptr_nonnull(strstr(out, "\nncp            e_q "));
  char path[2200];
  snprintf(path, sizeof(path), "%s/cubetoss.csv", dir);
  FILE* f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  int lines = 0;
  char buf[512];
  while (fgets(buf, sizeof(buf), f)) lines++;
  fclose(f);
  ck_assert_int_eq(lines, 1 + 2 * 3);
  tmp_remove(dir);
}
END_TEST

// identification on 5 tosses lowers mean e_q from its starting guess; its file is read back
START_TEST(identification_on_five_tosses_lowers_eq) {
  char dir[128];
  tmp_dir(dir, sizeof(dir), "cubetoss");
  static char out[65536];
  char cmd[2048];
  snprintf(cmd, sizeof(cmd), "%s identify cubetoss --tosses 5 --model hunt_crossley --max-evals 6 --jobs 2 "
           "--out %s/p.yaml", csim_bin(), dir);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 0);
  const char* l = strstr(out, "hunt_crossley  start e_q ");
  ck_assert_msg(l, "%s", out);
  double start = strtod(l + strlen("hunt_crossley  start e_q "), NULL);
  const char* t = strstr(l, "training e_q ");
  ck_assert_ptr_nonnull(t);
  double fit = strtod(t + strlen("training e_q "), NULL);
  ck_assert_msg(fit < start, "e_q %g -> %g", start, fit);
  snprintf(cmd, sizeof(cmd), "%s validate cubetoss --tosses 5 --model hunt_crossley --params %s/p.yaml --out %s",
           csim_bin(), dir, dir);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 0);
  ck_assert_ptr_nonnull(strstr(out, "hunt_crossley  e_q "));
  tmp_remove(dir);
}
END_TEST

// a small file of the shared layout whose toss 1 has a NaN in row 2
static void write_nan_file(const char* path) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  double dt = 1.0 / 148;
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(f, "dt", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_DOUBLE, &dt);
  H5Aclose(a);
  const char* cube = "{\"side_m\": 0.1048, \"mass_kg\": 0.37, \"inertia_kgm2\": [0.00081, 0.00081, 0.00081]}";
  hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, strlen(cube) + 1);
  a = H5Acreate2(f, "cube", st, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, st, cube);
  H5Aclose(a);
  H5Tclose(st);
  H5Sclose(sp);
  hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  double s[8][13];
  for (int k = 0; k < 8; k++) {
    double row[13] = {0, 0, 0.2 - 0.01 * k, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(s[k], row, sizeof(row));
  }
  s[6][8] = NAN;  // toss 1 = rows 4..7, its row 2
  hsize_t dims[2] = {8, 13};
  hid_t ssp = H5Screate_simple(2, dims, NULL);
  hid_t ds = H5Dcreate2(g, "states", H5T_IEEE_F64LE, ssp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s);
  H5Dclose(ds);
  H5Sclose(ssp);
  long off[3] = {0, 4, 8};
  hsize_t od = 3;
  hid_t osp = H5Screate_simple(1, &od, NULL);
  ds = H5Dcreate2(g, "offsets", H5T_STD_I64LE, osp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(ds, H5T_NATIVE_LONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, off);
  H5Dclose(ds);
  H5Sclose(osp);
  H5Gclose(g);
  H5Fclose(f);
}

// bad input: exit 2, a message naming the problem, nothing written
START_TEST(bad_inputs_exit_2_and_write_nothing) {
  char dir[128];
  tmp_dir(dir, sizeof(dir), "cubetoss");
  char nanfile[256], cmd[8192], res[256];
  snprintf(nanfile, sizeof(nanfile), "%s/nan.h5", dir);
  write_nan_file(nanfile);
  snprintf(res, sizeof(res), "%s/res", dir);
  static char out[65536];
  struct {
    const char* args;
    const char* msg;
  } cases[] = {
      {"--data /nonexistent/tosses.h5", "no such data file"},
      {"--group no_such_group", "no group 'no_such_group'"},
      {"--data NAN --group g", "toss 1 row 2 column 8 is not a finite number"},
      {"--model no_such_model", "unknown contact model 'no_such_model'"},
      {"--tosses 5-2", "--tosses expects"},
      {"--params /nonexistent/p.yaml", "cannot open the params file"},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
    char args[512];
    if (strstr(cases[c].args, "NAN"))
      snprintf(args, sizeof(args), "--data %s --group g", nanfile);
    else
      snprintf(args, sizeof(args), "%s", cases[c].args);
    snprintf(cmd, sizeof(cmd), "%s validate cubetoss %s --out %s", csim_bin(), args, res);
    ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 2);
    ck_assert_msg(strstr(out, cases[c].msg), "%s: expected '%s' in:\n%s", args, cases[c].msg, out);
    struct stat sb;
    ck_assert_msg(stat(res, &sb) != 0, "%s: the output directory was created", args);
  }
  // a params file with a misspelt key names file, line and column
  struct stat sb;
  char pf[256];
  snprintf(pf, sizeof(pf), "%s/p.yaml", dir);
  FILE* f = fopen(pf, "w");
  fputs("ncp: {friction: 0.2}\nhunt_crossley:\n  frictoin: 0.3\n", f);
  fclose(f);
  snprintf(cmd, sizeof(cmd), "%s validate cubetoss --tosses 2 --model hunt_crossley --params %s --out %s",
           csim_bin(), pf, res);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 2);
  ck_assert_msg(strstr(out, "p.yaml:3:3") && strstr(out, "frictoin"), "%s", out);
  // a model the file does not name is an error, not a silent run with the scenario defaults
  snprintf(cmd, sizeof(cmd), "%s validate cubetoss --tosses 2 --model lcp --params %s --out %s", csim_bin(), pf,
           res);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 2);
  ck_assert_msg(strstr(out, "no parameters for model 'lcp'"), "%s", out);
  ck_assert(stat(res, &sb) != 0);
  snprintf(cmd, sizeof(cmd), "%s identify cubetoss --data %s --group g --out %s/q.yaml", csim_bin(), nanfile, dir);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 2);
  snprintf(cmd, sizeof(cmd), "%s/q.yaml", dir);
  ck_assert(stat(cmd, &sb) != 0);
  tmp_remove(dir);
}
END_TEST

static Suite* cubetoss_suite(void) {
  Suite* s = suite_create("cubetoss");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, load_reads_the_shared_file);
  tcase_add_test(tc, eq_of_a_toss_against_itself_is_zero);
  tcase_add_test(tc, eq_of_a_known_rotation_is_the_angle_squared);
  tcase_add_test(tc, ballistic_flight_matches_the_data_parabola);
  tcase_add_test(tc, validation_of_five_tosses_is_finite_for_every_model);
  tcase_add_test(tc, validation_with_materials_and_solref_is_finite);
  tcase_add_test(tc, cli_validate_prints_the_table_and_writes_results);
  tcase_add_test(tc, identification_on_five_tosses_lowers_eq);
  tcase_add_test(tc, bad_inputs_exit_2_and_write_nothing);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(cubetoss_suite());
}
