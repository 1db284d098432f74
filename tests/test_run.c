// test_run.c — `csim run` as a user runs it: the binary ($CSIM, default ./csim) through popen
// or fork/exec, its exit codes and messages, and the HDF5 file it writes, read back with the
// HDF5 C API (DESIGN.md "Output file" and "Command line").
//
// Tests run from the repo root. Every output goes into a fresh mkdtemp directory under the system temporary directory (P_tmpdir),
// removed afterwards; nothing is written into the repository.
#include <check.h>
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/scenario.h"
#include "support.h"

#define SLIDE "scenarios/cube_slide.yaml"   // 1 kg cube, mu 0.3, v0 1 m/s, 600 steps of 1 ms

//---------------------------------- temporary directory ---------------------------------------

// g_tmp and its fixture tmp_setup/tmp_teardown (an unchecked fixture: made and removed in
// the runner's process, so a failing test leaves nothing behind), tmp_path: support.h

//---------------------------------- running csim ----------------------------------------------

// csim run SCENARIO ARGS --out OUT --quiet; returns the exit code, output in out
static int csim_run(const char* scenario, const char* args, const char* outfile, char* out,
                    size_t n) {
  char cmd[2048];
  snprintf(cmd, sizeof(cmd), "%s run %s %s --out '%s' --quiet", csim_bin(), scenario, args,
           outfile);
  return sh_run2(cmd, out, n);
}

// csim_run into g_tmp/name (its path into f5, 256 bytes) asserted to exit `want`; output in out
static void run_expect(const char* scenario, const char* args, const char* name, int want,
                       char* f5, char* out, size_t n) {
  tmp_path(f5, 256, name);
  int rc = csim_run(scenario, args, f5, out, n);
  ck_assert_msg(rc == want, "exit %d:\n%s", rc, out);
}

//---------------------------------- reading the HDF5 file -------------------------------------

// the string attribute `name` of object `obj` ("/" for the root) into buf; 0 when absent
static int attr_string(hid_t f, const char* obj, const char* name, char* buf, size_t n) {
  buf[0] = '\0';
  if (H5Aexists_by_name(f, obj, name, H5P_DEFAULT) <= 0) return 0;
  hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  hid_t t = H5Aget_type(a);
  int ok = 0;
  if (H5Tget_class(t) == H5T_STRING) {
    if (H5Tis_variable_str(t) > 0) {
      char* s = NULL;
      hid_t mt = H5Tcopy(H5T_C_S1);
      H5Tset_size(mt, H5T_VARIABLE);
      H5Tset_cset(mt, H5Tget_cset(t));
      if (H5Aread(a, mt, &s) >= 0 && s) {
        snprintf(buf, n, "%s", s);
        H5free_memory(s);
        ok = 1;
      }
      H5Tclose(mt);
    } else {
      size_t sz = H5Tget_size(t);
      char* s = calloc(sz + 1, 1);
      if (s && H5Aread(a, t, s) >= 0) {
        snprintf(buf, n, "%s", s);
        ok = 1;
      }
      free(s);
    }
  }
  H5Tclose(t);
  H5Aclose(a);
  return ok;
}

// an integer attribute of the root; -999 when absent
static long attr_int(hid_t f, const char* name) {
  if (H5Aexists(f, name) <= 0) return -999;
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  long long v = -999;
  if (H5Aread(a, H5T_NATIVE_LLONG, &v) < 0) v = -999;
  H5Aclose(a);
  return (long)v;
}

// dimensions of a dataset (rank returned; dims[1] = 1 for rank 1); -1 when absent
static int dset_dims(hid_t f, const char* path, hsize_t dims[2]) {
  dims[0] = 0;
  dims[1] = 1;
  if (H5Lexists(f, path, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t s = H5Dget_space(d);
  int rank = H5Sget_simple_extent_ndims(s);
  if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(s, dims, NULL);
  H5Sclose(s);
  H5Dclose(d);
  return rank;
}

// a whole dataset as memory type `type` (elements of `size` bytes), allocated; *rows, *cols set
static void* read_all(hid_t f, const char* path, hid_t type, size_t size, hsize_t* rows,
                      hsize_t* cols) {
  hsize_t dims[2];
  ck_assert_msg(dset_dims(f, path, dims) >= 1, "%s missing", path);
  *rows = dims[0];
  if (cols) *cols = dims[1];
  void* buf = calloc(dims[0] * dims[1] + 1, size);
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_int_ge(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
  H5Dclose(d);
  return buf;
}

// a whole dataset as doubles (or ints), allocated; *rows, *cols set
static double* read_f64(hid_t f, const char* path, hsize_t* rows, hsize_t* cols) {
  return read_all(f, path, H5T_NATIVE_DOUBLE, sizeof(double), rows, cols);
}

static int* read_int(hid_t f, const char* path, hsize_t* rows) {
  return read_all(f, path, H5T_NATIVE_INT, sizeof(int), rows, NULL);
}

static hid_t open_h5(const char* path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "cannot open %s", path);
  return f;
}

//---------------------------------- the output file -------------------------------------------

static const char* const kDatasets[] = {
    "/time", "/state/q", "/state/v", "/energy/kinetic", "/energy/potential", "/energy/total",
    "/solver/eps_abs", "/solver/primal", "/solver/dual", "/solver/complementarity",
    "/solver/iterations", "/solver/converged", "/timing/step", "/timing/collision",
    "/timing/dynamics", "/timing/solve", "/contacts/count", "/contacts/reduced",
    "/contacts/reduced_touching", "/contacts/offset", "/contacts/body",
    "/contacts/point", "/contacts/normal", "/contacts/depth", "/contacts/force",
    "/contacts/velocity"};
#define NDATASETS ((int)(sizeof(kDatasets) / sizeof(kDatasets[0])))

// every dataset of DESIGN.md with units and description; root attributes; and the content
// agrees with the scenario: 600 rows at dt = 1 ms, forces in N that carry the weight and obey
// Coulomb's law while sliding
START_TEST(output_file_complete) {
  char out[8192], f5[256];
  run_expect(SLIDE, "", "a.h5", 0, f5, out, sizeof(out));
  hid_t f = open_h5(f5);

  // datasets and their attributes; rows per step datasets all have 600 rows
  hsize_t dims[2];
  int ncontact_rows = -1;
  for (int k = 0; k < NDATASETS; k++) {
    const char* p = kDatasets[k];
    ck_assert_msg(dset_dims(f, p, dims) >= 1, "dataset %s missing", p);
    char units[256], desc[1024];
    ck_assert_msg(attr_string(f, p, "units", units, sizeof(units)) && units[0],
                  "%s has no units", p);
    ck_assert_msg(attr_string(f, p, "description", desc, sizeof(desc)) && desc[0],
                  "%s has no description", p);
    int flat = strncmp(p, "/contacts/", 10) == 0 && strcmp(p, "/contacts/count") != 0 &&
               strcmp(p, "/contacts/offset") != 0 && strncmp(p, "/contacts/reduced", 17) != 0;
    if (flat) {
      if (ncontact_rows < 0) ncontact_rows = (int)dims[0];
      ck_assert_msg((int)dims[0] == ncontact_rows, "%s has %d rows, other contact arrays %d", p,
                    (int)dims[0], ncontact_rows);
    } else {
      ck_assert_msg(dims[0] == 600, "%s has %llu rows, expected 600", p,
                    (unsigned long long)dims[0]);
    }
  }
  ck_assert_int_eq(dset_dims(f, "/state/q", dims), 2);
  ck_assert_int_eq((int)dims[1], 7);
  ck_assert_int_eq(dset_dims(f, "/state/v", dims), 2);
  ck_assert_int_eq((int)dims[1], 6);
  ck_assert_int_eq(ncontact_rows, 2400);  // 4 contacts on each of the 600 steps

  // root attributes
  char s[8192], ver[256];
  ck_assert(attr_string(f, "/", "csim_version", s, sizeof(s)) && s[0]);
  char vcmd[512];
  snprintf(vcmd, sizeof(vcmd), "%s --version", csim_bin());
  ck_assert_int_eq(sh_run2(vcmd, ver, sizeof(ver)), 0);
  char want[8200];
  snprintf(want, sizeof(want), "csim %s\n", s);
  ck_assert_msg(strncmp(ver, want, strlen(want)) == 0, "version attribute '%s', --version:\n%s", s,
                ver);
  // the BLAS kernel set the run used: the one OPENBLAS_CORETYPE names (the Makefile sets it
  // where the CPU allows; OpenBLAS's names are capitalised, the variable's case is free)
  ck_assert(attr_string(f, "/", "blas_core", s, sizeof(s)) && s[0]);
  const char* core = getenv("OPENBLAS_CORETYPE");
  if (core && core[0]) ck_assert_msg(strcasecmp(s, core) == 0, "blas_core '%s', OPENBLAS_CORETYPE '%s'", s, core);
  ck_assert(attr_string(f, "/", "scenario", s, sizeof(s)));
  ck_assert_ptr_nonnull(strstr(s, "cube_slide"));
  ck_assert(attr_string(f, "/", "contact_model", s, sizeof(s)));
  ck_assert_str_eq(s, "ncp");
  ck_assert(attr_string(f, "/", "solver", s, sizeof(s)));
  ck_assert_str_eq(s, "auto");
  ck_assert(attr_string(f, "/", "integrator", s, sizeof(s)));
  ck_assert_str_eq(s, "semi_implicit");
  ck_assert(attr_string(f, "/", "conventions", s, sizeof(s)));
  ck_assert_ptr_nonnull(strstr(s, "quaternion"));
  ck_assert_int_eq(attr_int(f, "complete"), 1);

  // content: time, energies, the initial state
  hsize_t r, c, rc2;
  double* t = read_f64(f, "/time", &r, &c);
  for (hsize_t k = 0; k < r; k++) ck_assert_double_eq_tol(t[k], 1e-3 * (double)k, 1e-12);
  double* ek = read_f64(f, "/energy/kinetic", &r, &c);
  double* ep = read_f64(f, "/energy/potential", &r, &c);
  double* et = read_f64(f, "/energy/total", &r, &c);
  for (hsize_t k = 0; k < r; k++) ck_assert_double_eq_tol(et[k], ek[k] + ep[k], 1e-12);
  ck_assert_double_eq_tol(ek[0], 0.5, 1e-12);          // 1/2 m v0^2
  ck_assert_double_eq_tol(ep[0], 9.81 * 0.05, 1e-12);  // m g z0
  double* v = read_f64(f, "/state/v", &r, &c);
  ck_assert_double_eq_tol(v[1], 1.0, 1e-15);
  int* conv = read_int(f, "/solver/converged", &r);
  for (hsize_t k = 0; k < r; k++) ck_assert_int_eq(conv[k], 1);

  // contacts: offsets are the running sum of counts; forces (N) carry the weight, and the
  // friction force is mu times the normal force, opposed to the motion (+y) while sliding
  int* count = read_int(f, "/contacts/count", &r);
  int* off = read_int(f, "/contacts/offset", &rc2);
  double* force = read_f64(f, "/contacts/force", &r, &c);
  ck_assert_int_eq((int)c, 3);
  int acc = 0;
  for (int k = 0; k < 600; k++) {
    ck_assert_int_eq(off[k], acc);
    ck_assert_int_eq(count[k], 4);
    double fn = 0, ft[2] = {0, 0};
    for (int i = acc; i < acc + count[k]; i++) {
      fn += force[3 * i + 2];
      ft[0] += force[3 * i];
      ft[1] += force[3 * i + 1];
    }
    // m g, to m / dt times the velocity eps_abs <= 1e-8 allows a loaded contact
    // (|lambda_N c_N| <= 1e-8: 4e-6 m/s at 2.45e-3 N s, so 4e-3 N)
    ck_assert_msg(fabs(fn - 9.81) < 1e-2, "step %d: normal force %.9g N, m g = 9.81 N", k, fn);
    if (k < 339)
      ck_assert_msg(fabs(hypot(ft[0], ft[1]) - 0.3 * fn) < 1e-5, "step %d: friction %.9g N", k,
                    hypot(ft[0], ft[1]));
    acc += count[k];
  }
  free(t); free(ek); free(ep); free(et); free(v); free(conv); free(count); free(off); free(force);
  H5Fclose(f);
}
END_TEST

// the patch reduction's removed contacts are recorded per row and summarised: Solo-12 standing
// 0.1 s has 16 mesh-vertex contacts at every step with the reduction off (test_patch.c), so
// /contacts/reduced + /contacts/count = 16 on every row with it on, and the summary's mean is the
// rows' mean; with contact.patch_angle 0 every row records 0 (and 16 contacts) and the summary
// says the reduction is off
START_TEST(contacts_reduced_recorded) {
  char out[16384], on[256], off[256], cmd[2048];
  tmp_path(on, sizeof(on), "red_on.h5");
  tmp_path(off, sizeof(off), "red_off.h5");
  const char* solo = "scenarios/solo12_stand.yaml --set integrator.duration=0.1";
  snprintf(cmd, sizeof(cmd), "%s run %s --out '%s'", csim_bin(), solo, on);
  int rc = sh_run2(cmd, out, sizeof(out));
  ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
  const char* line = strstr(out, "patch reduction dropped mean ");
  ck_assert_msg(line != NULL, "no patch reduction line:\n%s", out);
  double mean = -1;
  int mx = -1;
  ck_assert_int_eq(sscanf(line, "patch reduction dropped mean %lf, max %d", &mean, &mx), 2);
  ck_assert_ptr_nonnull(strstr(line, "(contact.patch_angle 0.05 rad, patch_max 4)"));
  hid_t f = open_h5(on);
  hsize_t r, rr, rt, dims[2];
  int* count = read_int(f, "/contacts/count", &r);
  int* red = read_int(f, "/contacts/reduced", &rr);
  int* redt = read_int(f, "/contacts/reduced_touching", &rt);
  ck_assert_int_eq((int)r, 100);
  ck_assert_int_eq((int)rr, 100);
  ck_assert_int_eq((int)rt, 100);
  long sum = 0, cnt = 0;
  int rmax = 0;
  for (int k = 0; k < 100; k++) {
    ck_assert_msg(red[k] + count[k] == 16, "row %d: %d removed + %d kept", k, red[k], count[k]);
    ck_assert_msg(redt[k] >= 0 && redt[k] <= red[k], "row %d: %d touching of %d", k, redt[k], red[k]);
    sum += red[k];
    cnt += count[k];
    if (red[k] > rmax) rmax = red[k];
  }
  ck_assert_int_eq(rmax, mx);
  ck_assert_double_eq_tol(mean, (double)sum / 100, 0.006);  // printed with 2 decimals
  ck_assert_int_eq(dset_dims(f, "/contacts/depth", dims), 1);
  ck_assert_int_eq((long)dims[0], cnt);  // removed contacts are not in the flat arrays
  free(count); free(red); free(redt);
  H5Fclose(f);

  snprintf(cmd, sizeof(cmd), "%s run %s --set contact.patch_angle=0 --out '%s'", csim_bin(), solo,
           off);
  rc = sh_run2(cmd, out, sizeof(out));
  ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
  ck_assert_msg(strstr(out, "patch reduction off (contact.patch_angle 0)") != NULL, "%s", out);
  f = open_h5(off);
  count = read_int(f, "/contacts/count", &r);
  red = read_int(f, "/contacts/reduced", &rr);
  redt = read_int(f, "/contacts/reduced_touching", &rt);
  ck_assert_int_eq((int)rr, 100);
  for (int k = 0; k < 100; k++)
    ck_assert_msg(count[k] == 16 && red[k] == 0 && redt[k] == 0, "row %d: %d kept, %d removed", k,
                  count[k], red[k]);
  free(count); free(red); free(redt);
  H5Fclose(f);
}
END_TEST

// output.every = 10 keeps one row in ten
START_TEST(output_every) {
  char out[8192], f5[256];
  run_expect(SLIDE, "--set output.every=10", "every.h5", 0, f5, out, sizeof(out));
  hid_t f = open_h5(f5);
  hsize_t r, c, dims[2];
  double* t = read_f64(f, "/time", &r, &c);
  ck_assert_int_eq((int)r, 60);
  for (hsize_t k = 0; k < r; k++) ck_assert_double_eq_tol(t[k], 0.01 * (double)k, 1e-12);
  const char* per_row[] = {"/state/q", "/state/v", "/energy/total", "/solver/eps_abs",
                           "/timing/step", "/contacts/count", "/contacts/offset"};
  for (int k = 0; k < 7; k++) {
    ck_assert_int_ge(dset_dims(f, per_row[k], dims), 1);
    ck_assert_msg(dims[0] == 60, "%s: %llu rows", per_row[k], (unsigned long long)dims[0]);
  }
  ck_assert_int_ge(dset_dims(f, "/contacts/force", dims), 1);
  ck_assert_int_eq((int)dims[0], 240);
  ck_assert_int_eq(attr_int(f, "complete"), 1);
  free(t);
  H5Fclose(f);
}
END_TEST

// --set overrides are part of the 'scenario' attribute: it loads back with the new values
START_TEST(overrides_in_scenario_attribute) {
  char out[8192], f5[256];
  run_expect(SLIDE, "--set contact.friction=0.25 --set solver.tolerance=1e-7 "
             "--set 'robots.0.v0=[0, 0.5, 0, 0, 0, 0]'", "ov.h5", 0, f5, out, sizeof(out));
  hid_t f = open_h5(f5);
  static char text[65536];
  ck_assert(attr_string(f, "/", "scenario", text, sizeof(text)));
  H5Fclose(f);
  scn_config* cfg = NULL;
  csim_error err;
  err_clear(&err);
  ck_assert_msg(scn_load_string(text, SLIDE, NULL, 0, &cfg, &err) == CSIM_OK,
                "the scenario attribute does not load: %s\n%s", err.msg, text);
  ck_assert_double_eq(cfg->friction, 0.25);
  ck_assert_double_eq(cfg->tolerance, 1e-7);
  ck_assert_int_eq(cfg->robots[0].nv0, 6);
  ck_assert_double_eq(cfg->robots[0].v0[1], 0.5);
  ck_assert_double_eq(cfg->dt, 1e-3);  // untouched keys keep the file's values
  ck_assert_str_eq(cfg->name, "cube_slide");
  scn_free(cfg);
}
END_TEST

//---------------------------------- determinism -----------------------------------------------

// two runs give files that compare equal with the default tolerances (timing ignored); a
// small change of friction makes compare fail
START_TEST(runs_are_deterministic) {
  char out[16384], a[256], b[256], p[256], cmd[1024];
  tmp_path(a, sizeof(a), "a.h5");
  tmp_path(b, sizeof(b), "b.h5");
  tmp_path(p, sizeof(p), "p.h5");
  ck_assert_int_eq(csim_run(SLIDE, "", a, out, sizeof(out)), 0);
  ck_assert_int_eq(csim_run(SLIDE, "", b, out, sizeof(out)), 0);
  ck_assert_int_eq(csim_run(SLIDE, "--set contact.friction=0.31", p, out, sizeof(out)), 0);
  snprintf(cmd, sizeof(cmd), "%s compare '%s' '%s'", csim_bin(), a, b);
  int rc = sh_run2(cmd, out, sizeof(out));
  ck_assert_msg(rc == 0, "compare of two identical runs exited %d:\n%s", rc, out);
  snprintf(cmd, sizeof(cmd), "%s compare '%s' '%s'", csim_bin(), p, a);
  rc = sh_run2(cmd, out, sizeof(out));
  ck_assert_msg(rc == 1, "compare with friction 0.31 vs 0.3 exited %d:\n%s", rc, out);
  ck_assert_ptr_nonnull(strstr(out, "/state/q"));
}
END_TEST

// solver.criterion: with ncp every model stops on the NCP residual eps_abs, so a CCP answer to
// the sliding cube (lift-off, complementarity mu lambda_N |c_T| > 0) runs to the iteration cap
// while sliding; with the default (auto: the model's own for ccp) CCP stops on its own
// residual. For ncp both criteria are the same: the two runs are identical.
START_TEST(stopping_criterion) {
  char out[16384], a[256], b[256], c[256], d[256], cmd[1024];
  tmp_path(a, sizeof(a), "ccp_ncp.h5");
  tmp_path(b, sizeof(b), "ccp_model.h5");
  tmp_path(c, sizeof(c), "ncp_ncp.h5");
  tmp_path(d, sizeof(d), "ncp_model.h5");
  const char* ccp = "--set contact.model=ccp --set solver.max_iterations=200";
  char args[256];
  snprintf(args, sizeof(args), "%s --set solver.criterion=ncp", ccp);
  ck_assert_int_eq(csim_run(SLIDE, args, a, out, sizeof(out)), 0);
  ck_assert_int_eq(csim_run(SLIDE, ccp, b, out, sizeof(out)), 0);
  ck_assert_int_eq(csim_run(SLIDE, "", c, out, sizeof(out)), 0);
  ck_assert_int_eq(csim_run(SLIDE, "--set solver.criterion=model", d, out, sizeof(out)), 0);
  // converged flags: count the failures in each CCP run
  long fails[2] = {0, 0};
  const char* files[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    hid_t f = open_h5(files[k]);
    hsize_t rows = 0, cols = 0;
    double* conv = read_f64(f, "/solver/converged", &rows, &cols);
    double* eps = read_f64(f, "/solver/eps_abs", &rows, &cols);
    for (hsize_t i = 0; i < rows; i++) {
      if (conv[i] == 0) fails[k]++;
      // a step the NCP criterion calls converged has eps_abs below the tolerance (1e-8)
      if (k == 0 && conv[i] != 0) ck_assert_double_le(eps[i], 1e-8);
    }
    free(conv);
    free(eps);
    H5Fclose(f);
  }
  ck_assert_msg(fails[0] > 100, "ccp under the NCP criterion: %ld non-converged steps", fails[0]);
  ck_assert_msg(fails[1] == 0, "ccp under its own criterion: %ld non-converged steps", fails[1]);
  snprintf(cmd, sizeof(cmd), "%s compare '%s' '%s'", csim_bin(), c, d);
  int rc = sh_run2(cmd, out, sizeof(out));
  ck_assert_msg(rc == 0, "ncp under both criteria differs (exit %d):\n%s", rc, out);
}
END_TEST

//---------------------------------- bad input -------------------------------------------------

// each case: csim run exits 2, names the key or file, and creates no output file
START_TEST(bad_input_exits_2) {
  char mal[256], dir[256];
  tmp_path(mal, sizeof(mal), "malformed.yaml");
  FILE* fm = fopen(mal, "w");
  ck_assert_ptr_nonnull(fm);
  fputs("name: broken\nrobots: [\n  {urdf: x.urdf\n", fm);
  fclose(fm);
  tmp_path(dir, sizeof(dir), "adir");
  ck_assert(mkdir(dir, 0700) == 0 || file_exists(dir));
  char missing[256], malq[300], dirq[300];
  tmp_path(missing, sizeof(missing), "no_such_scenario.yaml");
  snprintf(malq, sizeof(malq), "'%s'", mal);
  snprintf(dirq, sizeof(dirq), "'%s'", dir);
  struct {
    const char* scenario;
    const char* args;
    const char* names;  // the message must contain this
  } cases[] = {
      {missing, "", "no_such_scenario.yaml"},
      {malq, "", "malformed.yaml"},
      {dirq, "", "directory"},
      {SLIDE, "--set solver.bogus=1", "bogus"},
      {SLIDE, "--set solver.tolerance", "solver.tolerance"},
      {SLIDE, "--set solver.tolerance=-1", "solver.tolerance"},
      {SLIDE, "--set integrator.dt=fast", "integrator.dt"},
      {SLIDE, "--set contact.model=ncpp", "contact.model"},
      {SLIDE, "--set 'actions=[{type: force, body: no_such_link, magnitude: 1}]'",
       "no_such_link"},
      {SLIDE, "--set 'robots.0.q0=[0, 0, 1]'", "q0"},
      {SLIDE, "--set robots.0.urdf=no_such_robot.urdf", "no_such_robot.urdf"},
      {SLIDE, "--set solver.name=lemke", "lemke"},
      {SLIDE, "--set solver.name=bisection", "bisection"},
      {SLIDE, "--set integrator.scheme=tamsi", "integrator.scheme"},
      {SLIDE, "--set robots.3.q0=[0]", "robots"},
  };
  int n = (int)(sizeof(cases) / sizeof(cases[0]));
  ck_assert_int_ge(n, 8);
  char out[8192], f5[256];
  for (int k = 0; k < n; k++) {
    char name[32];
    snprintf(name, sizeof(name), "bad%d.h5", k);
    tmp_path(f5, sizeof(f5), name);
    int rc = csim_run(cases[k].scenario, cases[k].args, f5, out, sizeof(out));
    ck_assert_msg(rc == 2, "case %d (%s %s): exit %d, expected 2:\n%s", k, cases[k].scenario,
                  cases[k].args, rc, out);
    ck_assert_msg(strstr(out, "error") != NULL, "case %d: no error message:\n%s", k, out);
    ck_assert_msg(strstr(out, cases[k].names) != NULL, "case %d: message does not name '%s':\n%s",
                  k, cases[k].names, out);
    ck_assert_msg(!file_exists(f5), "case %d: output file created", k);
  }
  // no scenario at all
  char cmd[512];
  snprintf(cmd, sizeof(cmd), "%s run", csim_bin());
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 2);
  ck_assert_ptr_nonnull(strstr(out, "SCENARIO"));
}
END_TEST

//---------------------------------- failures during a run -------------------------------------

// SIGINT during a long run: exit 1, the file readable, complete = 0, a 'failure' attribute
// naming SIGINT, and the rows written so far
START_TEST(sigint_leaves_incomplete_file) {
  char f5[256], log[256];
  tmp_path(f5, sizeof(f5), "sig.h5");
  tmp_path(log, sizeof(log), "sig.log");
  const char* argv[] = {csim_bin(), "run", SLIDE, "--set", "integrator.duration=1000", "--out",
                        f5, "--quiet", NULL};
  pid_t pid = spawn_logged(argv, log);
  // the output file appears once the input is validated (the handler is installed right after);
  // then let it run 0.5 s
  ck_assert_msg(wait_file(f5, 30), "the run did not create its output within 30 s");
  sleep_s(0.5);
  ck_assert_int_eq(kill(pid, SIGINT), 0);
  int st = 0;
  ck_assert_msg(wait_exit(pid, 30, &st) == 0, "csim did not stop within 30 s of SIGINT");
  ck_assert_msg(WIFEXITED(st), "csim was killed by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  ck_assert_int_eq(WEXITSTATUS(st), 1);
  char text[4096];
  ck_assert(file_exists(log));
  read_log(log, text, sizeof(text));
  ck_assert_msg(strstr(text, "SIGINT") != NULL, "no SIGINT message:\n%s", text);

  hid_t f = open_h5(f5);
  ck_assert_int_eq(attr_int(f, "complete"), 0);
  char fail[1024];
  ck_assert(attr_string(f, "/", "failure", fail, sizeof(fail)));
  ck_assert_msg(strstr(fail, "SIGINT") != NULL, "failure attribute '%s'", fail);
  hsize_t r, c, dims[2];
  double* t = read_f64(f, "/time", &r, &c);
  ck_assert_int_gt((int)r, 10);
  ck_assert_int_lt((int)r, 1000000);
  for (hsize_t k = 0; k < r; k++) ck_assert_double_eq_tol(t[k], 1e-3 * (double)k, 1e-9);
  ck_assert_int_ge(dset_dims(f, "/state/q", dims), 2);
  ck_assert_int_eq((int)dims[0], (int)r);
  free(t);
  H5Fclose(f);
}
END_TEST

// divergence: a vertical force growing at 1e12 N/s throws the cube past 1e6 m/s in 3 steps:
// exit 1, a message naming the step, an incomplete file that says why
START_TEST(divergence_exits_1) {
  char out[8192], f5[256];
  run_expect(SLIDE, "--set 'actions=[{type: force, body: cube, direction: [0, 0, 1], "
             "profile: ramp, magnitude: 0, rate: 1e12}]'", "div.h5", 1, f5, out, sizeof(out));
  ck_assert_msg(strstr(out, "diverged at step ") != NULL, "no divergence message:\n%s", out);
  const char* at = strstr(out, "diverged at step ");
  int stepno = -1;
  ck_assert_int_eq(sscanf(at, "diverged at step %d", &stepno), 1);
  ck_assert_int_ge(stepno, 1);
  ck_assert_int_le(stepno, 3);
  hid_t f = open_h5(f5);
  ck_assert_int_eq(attr_int(f, "complete"), 0);
  char fail[1024];
  ck_assert(attr_string(f, "/", "failure", fail, sizeof(fail)));
  ck_assert_msg(strstr(fail, "diverged at step") != NULL, "failure attribute '%s'", fail);
  H5Fclose(f);
}
END_TEST

// ADMM's island work cut to contact.memory_budget (sim.h): 16 cubes 1 cm apart above one on the
// floor land one by one into a single island (6 rows per cube in dof space) that outgrows what
// 0.5 MiB leaves it; the run stops with exit 1 at the step the island first needs more, the
// message names the island, the rows held and the budget, and the file stays readable: complete
// 0, the failure attribute saying why, one row per step done
START_TEST(island_past_budget_exits_1) {
  char out[8192], f5[256], yaml[256], cwd[1024];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
  tmp_path(yaml, sizeof(yaml), "stack.yaml");
  FILE* y = fopen(yaml, "w");
  ck_assert_ptr_nonnull(y);
  fprintf(y, "name: stack\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
             "robots:\n");
  for (int i = 0; i < 16; i++)
    fprintf(y, "  - {urdf: %s/robots/cube.urdf, base: free, q0: [0, 0, %.3f, 0, 0, 0, 1]}\n", cwd,
            0.05 + 0.11 * i);
  fprintf(y, "contact: {model: ncp, friction: 0.5, memory_budget: 0.5}\n"
             "solver: {name: admm, tolerance: 1.0e-6, max_iterations: 500}\n"
             "integrator: {dt: 1.0e-3, duration: 0.6}\n");
  fclose(y);
  run_expect(yaml, "", "stack.h5", 1, f5, out, sizeof(out));
  const char* at = strstr(out, "at step ");
  int stepno = -1, ncon = -1, rows = -1, held = -1;
  ck_assert_msg(at && sscanf(at, "at step %d", &stepno) == 1, "no step in:\n%s", out);
  const char* isl = strstr(out, "an island of ");
  ck_assert_msg(isl && sscanf(isl, "an island of %d contacts needs %d rows of dense admm work",
                              &ncon, &rows) == 2, "no island in:\n%s", out);
  const char* h = strstr(out, "the island work holds ");
  ck_assert_msg(h && sscanf(h, "the island work holds %d rows", &held) == 1, "%s", out);
  // a stack of c cubes: 4 c contacts, 6 c dofs; the first island past the rows held
  ck_assert_int_eq(ncon % 4, 0);
  ck_assert_int_eq(rows, 6 * (ncon / 4));
  ck_assert_int_gt(rows, held);
  ck_assert_int_le(rows - 6, held);
  ck_assert_msg(strstr(out, "contact.memory_budget 0.5 MiB") &&
                    strstr(out, "raise contact.memory_budget"), "%s", out);
  ck_assert_int_ge(stepno, 45);  // the first landing alone takes sqrt(2 * 0.01 / 9.81) = 45 ms
  hid_t f = open_h5(f5);
  ck_assert_int_eq(attr_int(f, "complete"), 0);
  ck_assert_int_eq(attr_int(f, "exit_status"), 1);
  char fail[2048];
  ck_assert(attr_string(f, "/", "failure", fail, sizeof(fail)));
  ck_assert_msg(strstr(fail, "an island of") && strstr(fail, "contact.memory_budget"),
                "failure attribute '%s'", fail);
  hsize_t dims[2];
  ck_assert_int_eq(dset_dims(f, "/time", dims), 1);
  ck_assert_int_eq((int)dims[0], stepno);  // the steps done before the failing one
  H5Fclose(f);
}
END_TEST

static Suite* make_suite(void) {
  Suite* s = suite_create("run");
  TCase* t = tcase_create("csim_run");
  tcase_set_timeout(t, 120);
  tcase_add_unchecked_fixture(t, tmp_setup, tmp_teardown);
  tcase_add_test(t, output_file_complete);
  tcase_add_test(t, output_every);
  tcase_add_test(t, contacts_reduced_recorded);
  tcase_add_test(t, overrides_in_scenario_attribute);
  tcase_add_test(t, runs_are_deterministic);
  tcase_add_test(t, stopping_criterion);
  tcase_add_test(t, bad_input_exits_2);
  tcase_add_test(t, sigint_leaves_incomplete_file);
  tcase_add_test(t, divergence_exits_1);
  tcase_add_test(t, island_past_budget_exits_1);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return run_suite(make_suite());
}
