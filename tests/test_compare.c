// test_compare.c — golden-output comparison: tolerances, ignored datasets, bad input.
#include <check.h>
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/compare.h"
#include "out/record.h"
#include "support.h"

//---- helpers ----

// how a generated file departs from the reference one
typedef struct {
  double dq;             // added to q[5][1]
  double timing;         // /timing/step values scale
  int q_rows;            // rows of /state/q (0: 100)
  int iter_as_double;    // write /solver/iterations as float64 instead of int32
  int extra;             // add /extra/x
  int no_energy;         // leave /energy/total out
  int no_version;        // leave csim_version out (not a csim file)
  const char* scenario;  // root attribute scenario text
  double q_special;      // when nonzero, q[7][2] = q_special (NaN, inf)
} gen;

// write a small csim-like file: /time (100), /state/q (100 x 3), /energy/total, /timing/step,
// /solver/iterations
static void write_file(const char* path, const gen* g) {
  rec_file* f = NULL;
  csim_error err;
  ck_assert_int_eq(rec_open(path, &f, &err), CSIM_OK);
  ck_assert_int_eq(rec_set_chunk_rows(f, 32, &err), CSIM_OK);
  if (!g->no_version) ck_assert_int_eq(rec_attr_string(f, NULL, "csim_version", "0.1.0", &err), CSIM_OK);
  ck_assert_int_eq(rec_attr_string(f, NULL, "scenario", g->scenario ? g->scenario : "name: a", &err),
                   CSIM_OK);
  rec_dataset *t, *q, *e = NULL, *tm, *it, *x = NULL;
  ck_assert_int_eq(rec_add(f, "/time", REC_F64, 0, "s", "", &t, &err), CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/state/q", REC_F64, 3, "m", "", &q, &err), CSIM_OK);
  if (!g->no_energy) ck_assert_int_eq(rec_add(f, "/energy/total", REC_F64, 0, "J", "", &e, &err), CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/timing/step", REC_F64, 0, "s", "", &tm, &err), CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/solver/iterations", g->iter_as_double ? REC_F64 : REC_I32, 0, "", "",
                           &it, &err),
                   CSIM_OK);
  if (g->extra) ck_assert_int_eq(rec_add(f, "/extra/x", REC_F64, 0, "", "", &x, &err), CSIM_OK);
  int nq = g->q_rows ? g->q_rows : 100;
  for (int i = 0; i < 100; i++) {
    double ti = i * 0.01, en = 10.0 - 0.001 * i, step = (g->timing ? g->timing : 1.0) * 1e-6 * (i + 1);
    ck_assert_int_eq(rec_append(t, &ti, &err), CSIM_OK);
    if (e) ck_assert_int_eq(rec_append(e, &en, &err), CSIM_OK);
    ck_assert_int_eq(rec_append(tm, &step, &err), CSIM_OK);
    if (g->iter_as_double) {
      double v = i % 9;
      ck_assert_int_eq(rec_append(it, &v, &err), CSIM_OK);
    } else {
      int32_t v = i % 9;
      ck_assert_int_eq(rec_append(it, &v, &err), CSIM_OK);
    }
    if (x) ck_assert_int_eq(rec_append(x, &ti, &err), CSIM_OK);
  }
  for (int i = 0; i < nq; i++) {
    double r[3] = {i, i + 0.1, i + 0.2};
    if (i == 5) r[1] += g->dq;
    if (i == 7 && g->q_special != 0.0) r[2] = g->q_special;
    ck_assert_int_eq(rec_append(q, r, &err), CSIM_OK);
  }
  ck_assert_int_eq(rec_close(f, 1, NULL, &err), CSIM_OK);
}

// a pair of paths a.h5 (candidate) and b.h5 (reference) in a temporary directory
typedef struct {
  char dir[512], a[600], b[600];
  char* rep;         // report text of the last compare
  size_t rep_len;
} pair;

// create the directory and write the two files
static void make_pair(pair* p, const gen* ga, const gen* gb) {
  memset(p, 0, sizeof(*p));
  tmp_dir(p->dir, sizeof(p->dir), "compare");
  snprintf(p->a, sizeof(p->a), "%s/a.h5", p->dir);
  snprintf(p->b, sizeof(p->b), "%s/b.h5", p->dir);
  write_file(p->a, ga);
  write_file(p->b, gb);
}

// run cmp_files capturing the report
static int run_cmp(pair* p, const char* a, const char* b, const cmp_options* o, csim_error* err) {
  free(p->rep);
  p->rep = NULL;
  FILE* ms = open_memstream(&p->rep, &p->rep_len);
  ck_assert_ptr_nonnull(ms);
  int r = cmp_files(a, b, o, ms, err);
  fclose(ms);
  return r;
}

// remove the pair's files
static void free_pair(pair* p) {
  free(p->rep);
  tmp_remove(p->dir);
}

// report line starting with `tag` that mentions `path` (NULL when absent)
static const char* report_line(const pair* p, const char* tag, const char* path) {
  const char* s = p->rep;
  while (s && *s) {
    const char* e = strchr(s, '\n');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    static char line[2048];
    snprintf(line, sizeof(line), "%.*s", (int)len, s);
    if (strncmp(line, tag, strlen(tag)) == 0 && strstr(line, path)) return line;
    s = e ? e + 1 : NULL;
  }
  return NULL;
}

//---- tests ----

// identical files compare equal, dataset by dataset, /timing ignored
START_TEST(identical_files_pass) {
  gen g = {0};
  pair p;
  make_pair(&p, &g, &g);
  csim_error err;
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 0);
  ck_assert_ptr_nonnull(report_line(&p, "OK", "/state/q"));
  ck_assert_ptr_nonnull(report_line(&p, "OK", "/solver/iterations"));
  ck_assert_ptr_nonnull(strstr(p.rep, "(100, 3)"));
  ck_assert_ptr_nonnull(strstr(p.rep, "summary: 4 compared, 4 OK, 0 FAIL, 0 not comparable, 1 ignored"));
  ck_assert_ptr_null(strstr(p.rep, "/timing/step"));
  // no report stream is fine too
  ck_assert_int_eq(cmp_files(p.a, p.b, NULL, NULL, &err), 0);
  free_pair(&p);
}
END_TEST

// differences inside atol + rtol*|b| pass, beyond fail with dataset and index named
START_TEST(tolerance_boundaries) {
  gen ref = {0}, g = {0};
  csim_error err;
  pair p;
  // q[5][1] = 5.1: within atol (1e-12) + rtol (1e-9) * 5.1 = 5.1e-9 + 1e-12
  g.dq = 4e-9;
  make_pair(&p, &g, &ref);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 0);
  free_pair(&p);
  // beyond: 1e-7 -> FAIL naming /state/q, index [5, 1] and both values
  g.dq = 1e-7;
  make_pair(&p, &g, &ref);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 1);
  const char* line = report_line(&p, "FAIL", "/state/q");
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, "first at [5, 1]"));
  ck_assert_ptr_nonnull(strstr(line, "1 of 300 differ"));
  char want[128];
  snprintf(want, sizeof(want), "%.17g vs %.17g", 5.1 + 1e-7, 5.1);
  ck_assert_ptr_nonnull(strstr(line, want));
  ck_assert_ptr_nonnull(strstr(line, "max abs 1e-07"));
  ck_assert_ptr_nonnull(report_line(&p, "OK", "/time"));
  ck_assert_ptr_nonnull(strstr(p.rep, "1 FAIL"));
  // a looser rtol accepts it: 1e-7 <= 1e-6 * 5.1
  cmp_options o;
  cmp_options_default(&o);
  o.rtol = 1e-6;
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 0);
  // atol alone: 1e-7 <= 2e-7 passes, 5e-8 does not
  o.rtol = 0;
  o.atol = 2e-7;
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 0);
  o.atol = 5e-8;
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 1);
  free_pair(&p);
  // atol bracketing the difference 0.15 (up to rounding) decides pass / fail
  g.dq = 0.15;
  make_pair(&p, &g, &ref);
  o.rtol = 0;
  o.atol = 0.15 * (1 + 1e-12);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 0);
  o.atol = 0.15 * (1 - 1e-12);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 1);
  free_pair(&p);
}
END_TEST

// NaN equals NaN only; infinities equal only themselves (even with a huge rtol)
START_TEST(nan_and_inf) {
  gen a = {0}, b = {0};
  csim_error err;
  pair p;
  a.q_special = b.q_special = NAN;
  make_pair(&p, &a, &b);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 0);
  free_pair(&p);
  b.q_special = 0;  // reference has the number 7.2
  make_pair(&p, &a, &b);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 1);
  const char* line = report_line(&p, "FAIL", "/state/q");
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, "first at [7, 2]: nan vs 7.2"));
  ck_assert_ptr_nonnull(strstr(line, "max abs inf"));
  free_pair(&p);
  a.q_special = b.q_special = INFINITY;
  make_pair(&p, &a, &b);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 0);
  free_pair(&p);
  b.q_special = 7.0;
  make_pair(&p, &a, &b);
  cmp_options o;
  cmp_options_default(&o);
  o.rtol = 1e300;
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 1);
  free_pair(&p);
}
END_TEST

// /timing and root attributes never count
START_TEST(timing_and_attributes_ignored) {
  gen a = {0}, b = {0};
  a.timing = 3.0;
  a.scenario = "name: other";
  csim_error err;
  pair p;
  make_pair(&p, &a, &b);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 0);
  ck_assert_ptr_nonnull(strstr(p.rep, "1 ignored (/timing)"));
  // even when asked for: /timing matches no compared dataset -> bad input
  cmp_options o;
  cmp_options_default(&o);
  const char* only[] = {"/timing"};
  o.only = only;
  o.nonly = 1;
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 2);
  ck_assert_ptr_nonnull(strstr(err.msg, "/timing"));
  free_pair(&p);
}
END_TEST

// --only restricts the comparison to datasets or groups
START_TEST(only_restricts) {
  gen a = {0}, b = {0};
  a.dq = 1.0;
  csim_error err;
  pair p;
  make_pair(&p, &a, &b);
  cmp_options o;
  cmp_options_default(&o);
  const char* only_time[] = {"/time", "/energy"};
  o.only = only_time;
  o.nonly = 2;
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 0);
  ck_assert_ptr_null(strstr(p.rep, "/state/q"));
  ck_assert_ptr_nonnull(strstr(p.rep, "summary: 2 compared, 2 OK"));
  const char* only_state[] = {"state/"};  // group prefix, relative spelling
  o.only = only_state;
  o.nonly = 1;
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 1);
  ck_assert_ptr_nonnull(report_line(&p, "FAIL", "/state/q"));
  ck_assert_ptr_null(strstr(p.rep, "/time"));
  const char* only_bad[] = {"/time", "/stat"};  // a prefix of a name is not a group
  o.only = only_bad;
  o.nonly = 2;
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 2);
  ck_assert_str_eq(err.key, "--only");
  ck_assert_ptr_nonnull(strstr(err.msg, "'/stat'"));
  free_pair(&p);
  // the matcher itself
  ck_assert(cmp_path_matches("/state/q", "/state/q"));
  ck_assert(cmp_path_matches("/state/q", "/state"));
  ck_assert(cmp_path_matches("/state/q", "state/"));
  ck_assert(cmp_path_matches("/state/q", "/"));
  ck_assert(!cmp_path_matches("/state/q", "/stat"));
  ck_assert(!cmp_path_matches("/state", "/state/q"));
  ck_assert(!cmp_path_matches("/timingx", "/timing"));
}
END_TEST

// a dataset in one file only: not comparable (2), named in the error and the report
START_TEST(missing_dataset_is_bad_input) {
  gen a = {0}, b = {0};
  a.extra = 1;
  b.no_energy = 1;
  csim_error err;
  pair p;
  make_pair(&p, &a, &b);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 2);
  ck_assert_str_eq(err.key, "/energy/total");
  ck_assert_str_eq(err.file, p.b);
  ck_assert_ptr_nonnull(report_line(&p, "MISSING", "/energy/total"));
  ck_assert_ptr_nonnull(report_line(&p, "MISSING", "/extra/x"));
  ck_assert_ptr_nonnull(report_line(&p, "OK", "/state/q"));  // the rest is still compared
  ck_assert_ptr_nonnull(strstr(p.rep, "2 not comparable"));
  free_pair(&p);
}
END_TEST

// different shapes or element types: 2
START_TEST(shape_and_type_mismatch) {
  gen a = {0}, b = {0};
  a.q_rows = 101;
  csim_error err;
  pair p;
  make_pair(&p, &a, &b);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 2);
  ck_assert_str_eq(err.key, "/state/q");
  ck_assert_ptr_nonnull(strstr(err.msg, "(101, 3)"));
  ck_assert_ptr_nonnull(report_line(&p, "SHAPE", "/state/q"));
  free_pair(&p);
  a.q_rows = 0;
  a.iter_as_double = 1;
  make_pair(&p, &a, &b);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 2);
  ck_assert_str_eq(err.key, "/solver/iterations");
  const char* line = report_line(&p, "TYPE", "/solver/iterations");
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, "float64 vs int32"));
  free_pair(&p);
}
END_TEST

// missing file, text file, HDF5 without csim_version, bad tolerances: 2 with a message
START_TEST(bad_files_are_bad_input) {
  gen g = {0}, nv = {0};
  nv.no_version = 1;
  csim_error err;
  pair p;
  make_pair(&p, &g, &nv);
  // not a csim file
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 2);
  ck_assert_str_eq(err.file, p.b);
  ck_assert_ptr_nonnull(strstr(err.msg, "csim_version"));
  // missing file
  char missing[700], text[700];
  snprintf(missing, sizeof(missing), "%s/nope.h5", p.dir);
  ck_assert_int_eq(run_cmp(&p, missing, p.a, NULL, &err), 2);
  ck_assert_str_eq(err.file, missing);
  ck_assert_ptr_nonnull(strstr(err.msg, "No such file"));
  // not HDF5
  snprintf(text, sizeof(text), "%s/text.h5", p.dir);
  FILE* fp = fopen(text, "w");
  fputs("time,q\n0,1\n", fp);
  fclose(fp);
  ck_assert_int_eq(run_cmp(&p, p.a, text, NULL, &err), 2);
  ck_assert_str_eq(err.file, text);
  ck_assert_ptr_nonnull(strstr(err.msg, "not an HDF5 file"));
  // an empty file and a directory
  fp = fopen(text, "w");
  fclose(fp);
  ck_assert_int_eq(run_cmp(&p, text, p.a, NULL, &err), 2);
  ck_assert_int_eq(run_cmp(&p, p.dir, p.a, NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err.msg, "directory"));
  ck_assert_int_eq(run_cmp(&p, NULL, p.a, NULL, &err), 2);
  // tolerances must be finite and >= 0
  cmp_options o;
  cmp_options_default(&o);
  o.rtol = -1;
  ck_assert_int_eq(run_cmp(&p, p.a, p.a, &o, &err), 2);
  o.rtol = 0;
  o.atol = NAN;
  ck_assert_int_eq(run_cmp(&p, p.a, p.a, &o, &err), 2);
  // a file compared with itself
  ck_assert_int_eq(run_cmp(&p, p.a, p.a, NULL, &err), 0);
  free_pair(&p);
}
END_TEST

// write a raw dataset with the HDF5 API (strings, 3-D ints, scalars, big 1-D)
static void raw_dataset(const char* path, const char* name, hid_t type, int rank, const hsize_t* dims,
                        const void* data) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  ck_assert_int_ge(f, 0);
  hid_t s = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
  hid_t d = H5Dcreate2(f, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  ck_assert_int_ge(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0);
  H5Dclose(d);
  H5Sclose(s);
  H5Fclose(f);
}

// strings exactly; integers of any rank with multi-index reports; scalars; large datasets in blocks
START_TEST(strings_ranks_and_blocks) {
  gen g = {0};
  csim_error err;
  pair p;
  make_pair(&p, &g, &g);
  // variable-length strings: differ at [1]
  hid_t vs = H5Tcopy(H5T_C_S1);
  H5Tset_size(vs, H5T_VARIABLE);
  const char* sa[3] = {"base", "foot_FL", "foot_FR"};
  const char* sb[3] = {"base", "foot_HL", "foot_FR"};
  hsize_t n3 = 3;
  raw_dataset(p.a, "/names", vs, 1, &n3, sa);
  raw_dataset(p.b, "/names", vs, 1, &n3, sb);
  // fixed-length strings: equal
  hid_t fs = H5Tcopy(H5T_C_S1);
  H5Tset_size(fs, 8);
  const char fixed[2][8] = {"alpha", "beta"};
  hsize_t n2 = 2;
  raw_dataset(p.a, "/fixed", fs, 1, &n2, fixed);
  raw_dataset(p.b, "/fixed", fs, 1, &n2, fixed);
  // 3-D int16: flat element 23 = [1, 2, 3] differs
  int16_t ia[24], ib[24];
  for (int i = 0; i < 24; i++) ia[i] = ib[i] = (int16_t)(i * 3 - 20);
  ia[23] = 1000;
  hsize_t d3[3] = {2, 3, 4};
  raw_dataset(p.a, "/grid", H5T_NATIVE_INT16, 3, d3, ia);
  raw_dataset(p.b, "/grid", H5T_NATIVE_INT16, 3, d3, ib);
  // scalar float32, equal
  float sc = 0.5f;
  raw_dataset(p.a, "/scalar", H5T_NATIVE_FLOAT, 0, NULL, &sc);
  raw_dataset(p.b, "/scalar", H5T_NATIVE_FLOAT, 0, NULL, &sc);
  // 600000 doubles (several read blocks), last element differs
  size_t nbig = 600000;
  double* ba = malloc(nbig * sizeof(double));
  double* bb = malloc(nbig * sizeof(double));
  for (size_t i = 0; i < nbig; i++) ba[i] = bb[i] = sin((double)i);
  ba[nbig - 1] += 1e-3;
  hsize_t db = nbig;
  raw_dataset(p.a, "/big", H5T_NATIVE_DOUBLE, 1, &db, ba);
  raw_dataset(p.b, "/big", H5T_NATIVE_DOUBLE, 1, &db, bb);
  free(ba);
  free(bb);
  H5Tclose(vs);
  H5Tclose(fs);

  ck_assert_int_eq(run_cmp(&p, p.a, p.b, NULL, &err), 1);
  const char* line = report_line(&p, "FAIL", "/names");
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, "first at [1]: \"foot_FL\" vs \"foot_HL\""));
  ck_assert_ptr_nonnull(report_line(&p, "OK", "/fixed"));
  ck_assert_ptr_nonnull(report_line(&p, "OK", "/scalar"));
  line = report_line(&p, "FAIL", "/grid");
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, "(2, 3, 4)"));
  ck_assert_ptr_nonnull(strstr(line, "first at [1, 2, 3]: 1000 vs 49"));
  line = report_line(&p, "FAIL", "/big");
  ck_assert_ptr_nonnull(line);
  ck_assert_ptr_nonnull(strstr(line, "1 of 600000 differ, first at [599999]"));
  // only the equal ones
  cmp_options o;
  cmp_options_default(&o);
  const char* only[] = {"/fixed", "/scalar", "/state"};
  o.only = only;
  o.nonly = 3;
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 0);
  free_pair(&p);
}
END_TEST

// an abandoned (incomplete) file is still comparable
START_TEST(incomplete_file_compares) {
  gen g = {0};
  csim_error err;
  pair p;
  make_pair(&p, &g, &g);
  rec_file* f = NULL;
  ck_assert_int_eq(rec_open(p.a, &f, &err), CSIM_OK);
  ck_assert_int_eq(rec_attr_string(f, NULL, "csim_version", "0.1.0", &err), CSIM_OK);
  rec_dataset* t;
  ck_assert_int_eq(rec_add(f, "/time", REC_F64, 0, "s", "", &t, &err), CSIM_OK);
  double v = 1.0;
  ck_assert_int_eq(rec_append(t, &v, &err), CSIM_OK);
  ck_assert_int_eq(rec_close(f, 0, "diverged at step 1", &err), CSIM_OK);
  cmp_options o;
  cmp_options_default(&o);
  const char* only[] = {"/time"};
  o.only = only;
  o.nonly = 1;
  ck_assert_int_eq(run_cmp(&p, p.a, p.a, &o, &err), 0);
  ck_assert_int_eq(run_cmp(&p, p.a, p.b, &o, &err), 2);  // 1 row vs 100
  free_pair(&p);
}
END_TEST

// suite
static Suite* compare_suite(void) {
  Suite* s = suite_create("compare");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, identical_files_pass);
  tcase_add_test(tc, tolerance_boundaries);
  tcase_add_test(tc, nan_and_inf);
  tcase_add_test(tc, timing_and_attributes_ignored);
  tcase_add_test(tc, only_restricts);
  tcase_add_test(tc, missing_dataset_is_bad_input);
  tcase_add_test(tc, shape_and_type_mismatch);
  tcase_add_test(tc, bad_files_are_bad_input);
  tcase_add_test(tc, strings_ranks_and_blocks);
  tcase_add_test(tc, incomplete_file_compares);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(compare_suite());
}
