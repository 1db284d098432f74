// test_record.c — HDF5 output layer: round trips read back with the HDF5 C API (and h5py).
#include <check.h>
#include <dirent.h>
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "out/record.h"
#include "support.h"

//---- helpers ----

// dims of a dataset; returns its rank
static int ds_dims(hid_t f, const char* path, hsize_t* dims) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  hid_t s = H5Dget_space(d);
  int rank = H5Sget_simple_extent_ndims(s);
  H5Sget_simple_extent_dims(s, dims, NULL);
  H5Sclose(s);
  H5Dclose(d);
  return rank;
}

// read a whole dataset with a memory type into buf
static void ds_read(hid_t f, const char* path, hid_t mtype, void* buf) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_int_ge(d, 0);
  ck_assert_int_ge(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
  H5Dclose(d);
}

// read a vlen string attribute of an object ("/" for the root) into buf
static void attr_string(hid_t f, const char* obj, const char* name, char* buf, size_t n) {
  hid_t o = H5Oopen(f, obj, H5P_DEFAULT);
  ck_assert_int_ge(o, 0);
  hid_t a = H5Aopen(o, name, H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  hid_t t = H5Aget_type(a);
  ck_assert_int_gt(H5Tis_variable_str(t), 0);
  char* s = NULL;
  ck_assert_int_ge(H5Aread(a, t, &s), 0);
  snprintf(buf, n, "%s", s ? s : "");
  H5free_memory(s);
  H5Tclose(t);
  H5Aclose(a);
  H5Oclose(o);
}

// read a numeric attribute as double (scalar or first element)
static double attr_double(hid_t f, const char* obj, const char* name) {
  hid_t o = H5Oopen(f, obj, H5P_DEFAULT);
  ck_assert_int_ge(o, 0);
  hid_t a = H5Aopen(o, name, H5P_DEFAULT);
  ck_assert_int_ge(a, 0);
  double v[8] = {0};
  ck_assert_int_ge(H5Aread(a, H5T_NATIVE_DOUBLE, v), 0);
  H5Aclose(a);
  H5Oclose(o);
  return v[0];
}

// does an attribute exist on an object?
static int attr_exists(hid_t f, const char* obj, const char* name) {
  return H5Aexists_by_name(f, obj, name, H5P_DEFAULT) > 0;
}

// the test data: q row i = i + j/10, time = i/1000, iterations = i % 17, converged = i % 3 == 0,
// contacts: step i has i % 4 rows [i, k, -k]
#define NSTEPS 1000
#define NQ 7

// datasets of the standard test file
typedef struct {
  rec_dataset *time, *q, *iter, *conv, *cpoint, *coffset;
} std_sets;

// declare the standard datasets
static void add_std(rec_file* f, std_sets* s) {
  csim_error err;
  ck_assert_int_eq(rec_add(f, "/time", REC_F64, 0, "s", "simulation time", &s->time, &err), CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/state/q", REC_F64, NQ, "m, rad", "configuration", &s->q, &err), CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/solver/iterations", REC_I32, 0, "1", "solver iterations", &s->iter, &err),
                   CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/solver/converged", REC_U8, 0, "1", "converged flag", &s->conv, &err),
                   CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/contacts/point", REC_F64, 3, "m", "contact points", &s->cpoint, &err),
                   CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/contacts/offset", REC_I32, 0, "1", "first row of each step", &s->coffset,
                           &err),
                   CSIM_OK);
}

// append step i of the standard data
static void append_std(rec_file* f, std_sets* s, int i) {
  csim_error err;
  double t = i / 1000.0, q[NQ], pts[3 * 3];
  for (int j = 0; j < NQ; j++) q[j] = i + j / 10.0;
  int32_t it = i % 17, off = (int32_t)rec_rows(s->cpoint);
  uint8_t cv = i % 3 == 0;
  int nc = i % 4;
  for (int k = 0; k < nc; k++) {
    pts[3 * k] = i;
    pts[3 * k + 1] = k;
    pts[3 * k + 2] = -k;
  }
  ck_assert_int_eq(rec_append(s->time, &t, &err), CSIM_OK);
  ck_assert_int_eq(rec_append(s->q, q, &err), CSIM_OK);
  ck_assert_int_eq(rec_append(s->iter, &it, &err), CSIM_OK);
  ck_assert_int_eq(rec_append(s->conv, &cv, &err), CSIM_OK);
  ck_assert_int_eq(rec_append_rows(s->cpoint, pts, (size_t)nc, &err), CSIM_OK);
  ck_assert_int_eq(rec_append(s->coffset, &off, &err), CSIM_OK);
  rec_step(f);
}

// check the first n steps of the standard data in an open file
static void check_std(hid_t f, int n) {
  hsize_t dims[2];
  // shapes
  ck_assert_int_eq(ds_dims(f, "/time", dims), 1);
  ck_assert_uint_eq(dims[0], (hsize_t)n);
  ck_assert_int_eq(ds_dims(f, "/state/q", dims), 2);
  ck_assert_uint_eq(dims[0], (hsize_t)n);
  ck_assert_uint_eq(dims[1], NQ);
  size_t ncontacts = 0;
  for (int i = 0; i < n; i++) ncontacts += (size_t)(i % 4);
  ck_assert_int_eq(ds_dims(f, "/contacts/point", dims), 2);
  ck_assert_uint_eq(dims[0], ncontacts);
  ck_assert_uint_eq(dims[1], 3);
  // values
  double* t = malloc((size_t)n * sizeof(double));
  double* q = malloc((size_t)n * NQ * sizeof(double));
  double* p = malloc((ncontacts + 1) * 3 * sizeof(double));
  int32_t* it = malloc((size_t)n * sizeof(int32_t));
  int32_t* off = malloc((size_t)n * sizeof(int32_t));
  uint8_t* cv = malloc((size_t)n);
  ds_read(f, "/time", H5T_NATIVE_DOUBLE, t);
  ds_read(f, "/state/q", H5T_NATIVE_DOUBLE, q);
  ds_read(f, "/contacts/point", H5T_NATIVE_DOUBLE, p);
  ds_read(f, "/solver/iterations", H5T_NATIVE_INT32, it);
  ds_read(f, "/contacts/offset", H5T_NATIVE_INT32, off);
  ds_read(f, "/solver/converged", H5T_NATIVE_UINT8, cv);
  size_t row = 0;
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq(t[i], i / 1000.0);
    for (int j = 0; j < NQ; j++) ck_assert_double_eq(q[(size_t)i * NQ + (size_t)j], i + j / 10.0);
    ck_assert_int_eq(it[i], i % 17);
    ck_assert_int_eq(cv[i], i % 3 == 0);
    ck_assert_int_eq(off[i], (int)row);
    for (int k = 0; k < i % 4; k++, row++) {
      ck_assert_double_eq(p[3 * row], i);
      ck_assert_double_eq(p[3 * row + 1], k);
      ck_assert_double_eq(p[3 * row + 2], -k);
    }
  }
  ck_assert_uint_eq(row, ncontacts);
  free(t);
  free(q);
  free(p);
  free(it);
  free(off);
  free(cv);
}

//---- tests ----

// 1000 rows through 256-row chunks (flush in the middle), read back value by value
// a fresh temporary directory (into dir, 512 bytes) and its file `name` (into path, 600 bytes),
// opened for recording (asserted)
static rec_file* open_in_tmp(char* dir, char* path, const char* name) {
  tmp_dir_path(dir, 512, "record", path, 600, name);
  rec_file* f = NULL;
  csim_error err;
  ck_assert_int_eq(rec_open(path, &f, &err), CSIM_OK);
  return f;
}

START_TEST(roundtrip_values_shapes_attributes) {
  char dir[512], path[600];
  rec_file* f = open_in_tmp(dir, path, "run.h5");
  csim_error err;
  ck_assert_str_eq(rec_path(f), path);
  ck_assert_int_eq(rec_set_chunk_rows(f, 256, &err), CSIM_OK);
  std_sets s;
  add_std(f, &s);
  ck_assert_uint_eq(rec_chunk_rows(s.q), 256);
  // attributes on the root and on a dataset
  ck_assert_int_eq(rec_attr_string(f, NULL, "csim_version", "0.1.0", &err), CSIM_OK);
  ck_assert_int_eq(rec_attr_int(f, "/", "seed", -7, &err), CSIM_OK);
  ck_assert_int_eq(rec_attr_double(f, "/time", "dt", 1e-3, &err), CSIM_OK);
  const double g[3] = {0, 0, -9.81};
  ck_assert_int_eq(rec_attr_doubles(f, NULL, "gravity", g, 3, &err), CSIM_OK);
  // a string attribute replaced keeps the last value
  ck_assert_int_eq(rec_attr_string(f, "/state", "note", "first", &err), CSIM_OK);
  ck_assert_int_eq(rec_attr_string(f, "/state", "note", "second, longer value", &err), CSIM_OK);
  for (int i = 0; i < NSTEPS; i++) {
    append_std(f, &s, i);
    if (i == 299 || i == 300 || i == 511) ck_assert_int_eq(rec_flush(f, &err), CSIM_OK);
  }
  ck_assert_uint_eq(rec_rows(s.q), NSTEPS);
  ck_assert_uint_eq(rec_rows(s.cpoint), 1500);  // 250 * (0 + 1 + 2 + 3)
  ck_assert_int_eq(rec_close(f, 1, NULL, &err), CSIM_OK);

  // read back
  hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(h, 0);
  check_std(h, NSTEPS);
  char buf[256];
  attr_string(h, "/state/q", "units", buf, sizeof(buf));
  ck_assert_str_eq(buf, "m, rad");
  attr_string(h, "/state/q", "description", buf, sizeof(buf));
  ck_assert_str_eq(buf, "configuration");
  attr_string(h, "/", "csim_version", buf, sizeof(buf));
  ck_assert_str_eq(buf, "0.1.0");
  attr_string(h, "/state", "note", buf, sizeof(buf));
  ck_assert_str_eq(buf, "second, longer value");
  ck_assert_double_eq(attr_double(h, "/", "seed"), -7);
  ck_assert_double_eq(attr_double(h, "/time", "dt"), 1e-3);
  ck_assert_double_eq(attr_double(h, "/", "complete"), 1);
  ck_assert_double_eq(attr_double(h, "/", "steps_written"), NSTEPS);
  ck_assert(!attr_exists(h, "/", "failure"));
  // gravity as a 3-vector
  hid_t a = H5Aopen(h, "gravity", H5P_DEFAULT);
  double gr[3];
  ck_assert_int_ge(H5Aread(a, H5T_NATIVE_DOUBLE, gr), 0);
  ck_assert_double_eq(gr[2], -9.81);
  H5Aclose(a);
  // chunked by 256 rows, unlimited rows, little-endian file types
  hid_t d = H5Dopen2(h, "/state/q", H5P_DEFAULT);
  hid_t pl = H5Dget_create_plist(d);
  hsize_t ch[2], maxd[2], dims[2];
  ck_assert_int_eq(H5Pget_layout(pl), H5D_CHUNKED);
  ck_assert_int_eq(H5Pget_chunk(pl, 2, ch), 2);
  ck_assert_uint_eq(ch[0], 256);
  ck_assert_uint_eq(ch[1], NQ);
  ck_assert_int_eq(H5Pget_nfilters(pl), 0);
  hid_t sp = H5Dget_space(d);
  H5Sget_simple_extent_dims(sp, dims, maxd);
  ck_assert(maxd[0] == H5S_UNLIMITED);
  hid_t t = H5Dget_type(d);
  ck_assert_int_gt(H5Tequal(t, H5T_IEEE_F64LE), 0);
  H5Tclose(t);
  H5Sclose(sp);
  H5Pclose(pl);
  H5Dclose(d);
  d = H5Dopen2(h, "/solver/converged", H5P_DEFAULT);
  t = H5Dget_type(d);
  ck_assert_int_gt(H5Tequal(t, H5T_STD_U8LE), 0);
  H5Tclose(t);
  H5Dclose(d);
  H5Fclose(h);
  tmp_remove(dir);
}
END_TEST

// automatic chunk sizes aim at ~64 KB, clamped to [64, 8192] rows
START_TEST(automatic_chunk_rows) {
  char dir[512], path[600];
  rec_file* f = open_in_tmp(dir, path, "chunks.h5");
  csim_error err;
  rec_dataset *a, *b, *c, *u;
  ck_assert_int_eq(rec_add(f, "/a", REC_F64, 0, "s", "", &a, &err), CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/b", REC_F64, 7, "", NULL, &b, &err), CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/c", REC_F64, 200, NULL, NULL, &c, &err), CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/u", REC_U8, 0, NULL, NULL, &u, &err), CSIM_OK);
  ck_assert_uint_eq(rec_chunk_rows(a), 8192);     // 65536 / 8
  ck_assert_uint_eq(rec_chunk_rows(b), 65536 / 56);
  ck_assert_uint_eq(rec_chunk_rows(c), 64);       // 65536 / 1600 = 40, clamped
  ck_assert_uint_eq(rec_chunk_rows(u), 8192);     // 65536, clamped
  // 20000 rows in one call cross two 8192-row chunk boundaries
  double* v = malloc(20000 * sizeof(double));
  for (int i = 0; i < 20000; i++) v[i] = 0.5 * i;
  ck_assert_int_eq(rec_append_rows(a, v, 20000, &err), CSIM_OK);
  ck_assert_int_eq(rec_append_rows(a, v, 0, &err), CSIM_OK);
  ck_assert_int_eq(rec_close(f, 1, NULL, &err), CSIM_OK);
  hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t dims[2];
  ck_assert_int_eq(ds_dims(h, "/a", dims), 1);
  ck_assert_uint_eq(dims[0], 20000);
  ck_assert_int_eq(ds_dims(h, "/c", dims), 2);
  ck_assert_uint_eq(dims[0], 0);
  ck_assert_uint_eq(dims[1], 200);
  double* r = malloc(20000 * sizeof(double));
  ds_read(h, "/a", H5T_NATIVE_DOUBLE, r);
  for (int i = 0; i < 20000; i++) ck_assert_double_eq(r[i], 0.5 * i);
  char buf[64];
  attr_string(h, "/c", "units", buf, sizeof(buf));
  ck_assert_str_eq(buf, "");
  H5Fclose(h);
  free(v);
  free(r);
  tmp_remove(dir);
}
END_TEST

// closed with success = 0: complete stays 0, failure says why, rows and steps_written kept
START_TEST(failed_run_is_marked) {
  char dir[512], path[600];
  rec_file* f = open_in_tmp(dir, path, "fail.h5");
  csim_error err;
  ck_assert_int_eq(rec_set_chunk_rows(f, 16, &err), CSIM_OK);
  std_sets s;
  add_std(f, &s);
  for (int i = 0; i < 42; i++) append_std(f, &s, i);
  ck_assert_int_eq(rec_close(f, 0, "interrupted by SIGINT at step 42", &err), CSIM_OK);
  hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(h, 0);
  check_std(h, 42);
  ck_assert_double_eq(attr_double(h, "/", "complete"), 0);
  ck_assert_double_eq(attr_double(h, "/", "steps_written"), 42);
  char buf[256];
  attr_string(h, "/", "failure", buf, sizeof(buf));
  ck_assert_str_eq(buf, "interrupted by SIGINT at step 42");
  H5Fclose(h);
  // NULL message: a generic one
  ck_assert_int_eq(rec_open(path, &f, &err), CSIM_OK);
  ck_assert_int_eq(rec_close(f, 0, NULL, &err), CSIM_OK);
  h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  attr_string(h, "/", "failure", buf, sizeof(buf));
  ck_assert_str_eq(buf, "run failed");
  ck_assert_double_eq(attr_double(h, "/", "complete"), 0);
  H5Fclose(h);
  tmp_remove(dir);
}
END_TEST

// a process that dies after rec_flush without closing leaves a readable, incomplete file
START_TEST(abandoned_after_flush_is_readable) {
  char dir[512], path[600];
  tmp_dir(dir, sizeof(dir), "record");
  snprintf(path, sizeof(path), "%s/killed.h5", dir);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    // child: 300 steps (one 256-row chunk written, 44 rows buffered), flush, 100 more, die
    rec_file* f = NULL;
    csim_error err;
    std_sets s;
    if (rec_open(path, &f, &err) != CSIM_OK) _exit(3);
    if (rec_set_chunk_rows(f, 256, &err) != CSIM_OK) _exit(3);
    if (rec_attr_string(f, NULL, "csim_version", "0.1.0", &err) != CSIM_OK) _exit(3);
    add_std(f, &s);
    for (int i = 0; i < 300; i++) append_std(f, &s, i);
    if (rec_flush(f, &err) != CSIM_OK) _exit(4);
    for (int i = 300; i < 400; i++) append_std(f, &s, i);
    _exit(0);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), 0);
  // parent: the flushed state is there, marked incomplete
  hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_int_ge(h, 0);
  check_std(h, 300);
  ck_assert_double_eq(attr_double(h, "/", "complete"), 0);
  ck_assert_double_eq(attr_double(h, "/", "steps_written"), 300);
  ck_assert(!attr_exists(h, "/", "failure"));
  H5Fclose(h);
  tmp_remove(dir);
}
END_TEST

// same appends give the same dataset bytes whatever the flush pattern, and the same file bytes
// for the same call sequence
START_TEST(deterministic_output) {
  char dir[512], p[3][600];
  tmp_dir(dir, sizeof(dir), "record");
  for (int k = 0; k < 3; k++) {
    snprintf(p[k], sizeof(p[k]), "%s/det%d.h5", dir, k);
    rec_file* f = NULL;
    csim_error err;
    ck_assert_int_eq(rec_open(p[k], &f, &err), CSIM_OK);
    ck_assert_int_eq(rec_set_chunk_rows(f, 100, &err), CSIM_OK);
    ck_assert_int_eq(rec_attr_string(f, NULL, "csim_version", "0.1.0", &err), CSIM_OK);
    std_sets s;
    add_std(f, &s);
    for (int i = 0; i < 777; i++) {
      append_std(f, &s, i);
      // file 2 flushes at odd moments, files 0 and 1 every 50 steps
      int flush = k == 2 ? (i % 37 == 5) : (i % 50 == 49);
      if (flush) ck_assert_int_eq(rec_flush(f, &err), CSIM_OK);
    }
    ck_assert_int_eq(rec_close(f, 1, NULL, &err), CSIM_OK);
  }
  // dataset bytes: identical across all three
  const char* sets[] = {"/time", "/state/q", "/contacts/point"};
  hid_t h0 = H5Fopen(p[0], H5F_ACC_RDONLY, H5P_DEFAULT);
  for (int k = 1; k < 3; k++) {
    hid_t hk = H5Fopen(p[k], H5F_ACC_RDONLY, H5P_DEFAULT);
    for (int i = 0; i < 3; i++) {
      size_t n = 777 * NQ;
      double* a = calloc(n, sizeof(double));
      double* b = calloc(n, sizeof(double));
      ds_read(h0, sets[i], H5T_NATIVE_DOUBLE, a);
      ds_read(hk, sets[i], H5T_NATIVE_DOUBLE, b);
      ck_assert_int_eq(memcmp(a, b, n * sizeof(double)), 0);
      free(a);
      free(b);
    }
    H5Fclose(hk);
  }
  H5Fclose(h0);
  // whole files: identical for the identical call sequence (no timestamps stored)
  size_t n0, n1;
  unsigned char* b0 = (unsigned char*)slurp(p[0], &n0);
  unsigned char* b1 = (unsigned char*)slurp(p[1], &n1);
  ck_assert_uint_eq(n0, n1);
  ck_assert_int_eq(memcmp(b0, b1, n0), 0);
  free(b0);
  free(b1);
  tmp_remove(dir);
}
END_TEST

// bad paths and bad declarations are errors with a message, never crashes
START_TEST(bad_input_is_reported) {
  char dir[512], path[600];
  tmp_dir(dir, sizeof(dir), "record");
  rec_file* f = (rec_file*)&f;  // non-NULL garbage must be reset to NULL
  csim_error err;
  // missing directory: named in the message
  snprintf(path, sizeof(path), "%s/no_such_dir/out.h5", dir);
  ck_assert_int_eq(rec_open(path, &f, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_null(f);
  ck_assert_ptr_nonnull(strstr(err.msg, "no_such_dir"));
  ck_assert_ptr_nonnull(strstr(err.msg, "does not exist"));
  ck_assert_str_eq(err.file, path);
  // the path is a directory
  ck_assert_int_eq(rec_open(dir, &f, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_null(f);
  ck_assert_ptr_nonnull(strstr(err.msg, "cannot create HDF5 file"));
  ck_assert_ptr_nonnull(strstr(err.msg, "HDF5: "));  // HDF5's own reason, translated
  ck_assert_str_eq(err.file, dir);
  // parent is a file, not a directory
  snprintf(path, sizeof(path), "%s/plain", dir);
  FILE* fp = fopen(path, "w");
  fputs("x", fp);
  fclose(fp);
  snprintf(path, sizeof(path), "%s/plain/out.h5", dir);
  ck_assert_int_eq(rec_open(path, &f, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "not a directory"));
  ck_assert_int_eq(rec_open("", &f, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(rec_open(NULL, &f, &err), CSIM_ERR_INPUT);

  // bad dataset declarations
  snprintf(path, sizeof(path), "%s/ok.h5", dir);
  ck_assert_int_eq(rec_open(path, &f, &err), CSIM_OK);
  rec_dataset* d = NULL;
  const char* bad[] = {"state/q", "/", "/a//b", "/a/", "/a/./b", "/../x", NULL};
  for (int i = 0; bad[i]; i++) {
    ck_assert_int_eq(rec_add(f, bad[i], REC_F64, 0, "", "", &d, &err), CSIM_ERR_INPUT);
    ck_assert_ptr_null(d);
    ck_assert_str_eq(err.key, bad[i]);
  }
  ck_assert_int_eq(rec_add(f, NULL, REC_F64, 0, "", "", &d, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(rec_add(f, "/x", (rec_type)99, 0, "", "", &d, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(rec_add(f, "/x", REC_F64, 2, "", "", &d, &err), CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/x", REC_F64, 2, "", "", &d, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "twice"));
  ck_assert_int_eq(rec_add(f, "/x/y", REC_F64, 0, "", "", &d, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "not a group"));
  // options and attributes
  ck_assert_int_eq(rec_set_compression(f, 10, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(rec_set_compression(f, -1, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(rec_attr_int(f, "/nope", "a", 1, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "not found"));
  ck_assert_int_eq(rec_attr_int(f, NULL, "", 1, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(rec_attr_doubles(f, NULL, "g", NULL, 0, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(rec_append(NULL, NULL, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(rec_close(f, 1, NULL, &err), CSIM_OK);
  ck_assert_int_eq(rec_close(NULL, 1, NULL, &err), CSIM_OK);
  tmp_remove(dir);
}
END_TEST

// gzip level: the filter is set and the values survive
START_TEST(compression_roundtrip) {
  char dir[512], path[600];
  rec_file* f = open_in_tmp(dir, path, "gz.h5");
  csim_error err;
  rec_dataset *plain, *gz;
  ck_assert_int_eq(rec_add(f, "/plain", REC_F64, 3, "", "", &plain, &err), CSIM_OK);
  ck_assert_int_eq(rec_set_compression(f, 6, &err), CSIM_OK);
  ck_assert_int_eq(rec_add(f, "/g/z", REC_F64, 3, "", "", &gz, &err), CSIM_OK);
  for (int i = 0; i < 5000; i++) {
    double r[3] = {1.0, i * 0.25, -2.0};
    ck_assert_int_eq(rec_append(plain, r, &err), CSIM_OK);
    ck_assert_int_eq(rec_append(gz, r, &err), CSIM_OK);
  }
  ck_assert_int_eq(rec_close(f, 1, NULL, &err), CSIM_OK);
  hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(h, "/g/z", H5P_DEFAULT);
  hid_t pl = H5Dget_create_plist(d);
  ck_assert_int_eq(H5Pget_nfilters(pl), 2);  // shuffle + deflate
  hsize_t stored = H5Dget_storage_size(d);
  H5Pclose(pl);
  H5Dclose(d);
  d = H5Dopen2(h, "/plain", H5P_DEFAULT);
  ck_assert_uint_lt(stored, H5Dget_storage_size(d) / 4);
  H5Dclose(d);
  double* v = malloc(5000 * 3 * sizeof(double));
  ds_read(h, "/g/z", H5T_NATIVE_DOUBLE, v);
  for (int i = 0; i < 5000; i++) {
    ck_assert_double_eq(v[3 * i], 1.0);
    ck_assert_double_eq(v[3 * i + 1], i * 0.25);
    ck_assert_double_eq(v[3 * i + 2], -2.0);
  }
  free(v);
  H5Fclose(h);
  tmp_remove(dir);
}
END_TEST

// h5py (the plot scripts' reader) opens the file and sees the values and str attributes
START_TEST(h5py_reads_the_file) {
  const char* cands[] = {"python3", "/usr/bin/python3", NULL};
  const char* py = NULL;
  char cmd[2048];
  for (int i = 0; cands[i] && !py; i++) {
    snprintf(cmd, sizeof(cmd), "%s -c 'import h5py' >/dev/null 2>&1", cands[i]);
    if (system(cmd) == 0) py = cands[i];
  }
  if (!py) {
    printf("note: python3 with h5py not found, h5py check skipped\n");
    return;
  }
  char dir[512], path[600], script[600];
  rec_file* f = open_in_tmp(dir, path, "py.h5");
  snprintf(script, sizeof(script), "%s/check.py", dir);
  csim_error err;
  ck_assert_int_eq(rec_set_chunk_rows(f, 256, &err), CSIM_OK);
  ck_assert_int_eq(rec_attr_string(f, NULL, "csim_version", "0.1.0", &err), CSIM_OK);
  std_sets s;
  add_std(f, &s);
  for (int i = 0; i < NSTEPS; i++) append_std(f, &s, i);
  ck_assert_int_eq(rec_close(f, 1, NULL, &err), CSIM_OK);
  FILE* fp = fopen(script, "w");
  ck_assert_ptr_nonnull(fp);
  fputs("import sys, h5py\n"
        "f = h5py.File(sys.argv[1], 'r')\n"
        "q = f['/state/q'][...]\n"
        "assert q.shape == (1000, 7), q.shape\n"
        "assert q[999, 6] == 999 + 6 / 10.0, q[999, 6]\n"
        "assert f['/contacts/point'].shape == (1500, 3)\n"
        "assert int(f['/solver/iterations'][35]) == 35 % 17\n"
        "assert f.attrs['complete'] == 1\n"
        "assert f.attrs['steps_written'] == 1000\n"
        "assert f.attrs['csim_version'] == '0.1.0', repr(f.attrs['csim_version'])\n"
        "assert f['/state/q'].attrs['units'] == 'm, rad'\n"
        "print('h5py ok')\n",
        fp);
  fclose(fp);
  snprintf(cmd, sizeof(cmd), "%s '%s' '%s'", py, script, path);
  ck_assert_int_eq(system(cmd), 0);
  tmp_remove(dir);
}
END_TEST

// suite
static Suite* record_suite(void) {
  Suite* s = suite_create("record");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, roundtrip_values_shapes_attributes);
  tcase_add_test(tc, automatic_chunk_rows);
  tcase_add_test(tc, failed_run_is_marked);
  tcase_add_test(tc, abandoned_after_flush_is_readable);
  tcase_add_test(tc, deterministic_output);
  tcase_add_test(tc, bad_input_is_reported);
  tcase_add_test(tc, compression_roundtrip);
  tcase_add_test(tc, h5py_reads_the_file);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(record_suite());
}
