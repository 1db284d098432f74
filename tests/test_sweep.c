// test_sweep.c — `csim sweep`, `csim run` on many scenarios and `csim merge`, run as a user would:
// the binary ($CSIM, default ./csim), the generated Makefile under make -j2, GNU parallel, and the
// files they write, read back with the HDF5 C API.
//
// Expected values come from the spec (hand-computed grids, point counts, steps = duration / dt)
// or from the HDF5 datasets recomputed here, never from csim's own summary.
// The tests work in one mkdtemp directory under P_tmpdir (distinct names), removed afterwards.
#include <check.h>
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "support.h"

static char g_csim[1024];   // absolute: the generated runners call it from other directories
static char g_root[1024];   // the repository (tests run from its root)

// the test case's directory g_tmp (support.h) and the absolute paths the runners need
static void sweep_setup(void) {
  tmp_setup();
  char* r = realpath(csim_bin(), NULL);
  snprintf(g_csim, sizeof(g_csim), "%s", r ? r : csim_bin());
  free(r);
  if (!getcwd(g_root, sizeof(g_root))) g_root[0] = '\0';
}

// whole file into buf ("" when absent)
static const char* read_text(const char* path, char* buf, size_t n) {
  buf[0] = '\0';
  FILE* f = fopen(path, "r");
  if (!f) return buf;
  size_t k = fread(buf, 1, n - 1, f);
  buf[k] = '\0';
  fclose(f);
  return buf;
}

static int exists(const char* path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

// a spec in the temporary directory whose base is the repository's cube_slide
static void write_spec(const char* name, const char* body) {
  char path[4096], text[8192];
  snprintf(path, sizeof(path), "%s/%s", g_tmp, name);
  snprintf(text, sizeof(text), "base: %s/scenarios/cube_slide.yaml\n%s", g_root, body);
  write_text(path, text);
}

//---------------------------------- CSV -------------------------------------------------------

// field col of the CSV line starting at line (quotes handled) into buf
static const char* csv_get(const char* line, int col, char* buf, size_t n) {
  int c = 0, q = 0;
  size_t k = 0;
  buf[0] = '\0';
  for (const char* p = line; *p && (q || *p != '\n'); p++) {
    if (*p == '"') {
      if (q && p[1] == '"') {
        if (c == col && k + 1 < n) buf[k++] = '"';
        p++;
      } else {
        q = !q;
      }
    } else if (*p == ',' && !q) {
      if (c == col) break;
      c++;
    } else if (c == col && k + 1 < n) {
      buf[k++] = *p;
    }
  }
  buf[k] = '\0';
  return buf;
}

// index of a column name in a header line, -1 when absent
static int csv_col(const char* header, const char* name) {
  char b[256];
  for (int c = 0; c < 64; c++) {
    csv_get(header, c, b, sizeof(b));
    if (!strcmp(b, name)) return c;
    if (!b[0] && c > 0) {
      // an empty field: check whether the header ended
      int commas = 0;
      for (const char* p = header; *p && *p != '\n'; p++) commas += *p == ',';
      if (c > commas) break;
    }
  }
  return -1;
}

// the line of row r (0 = header)
static const char* csv_line(const char* text, int r) {
  const char* p = text;
  for (int i = 0; i < r && p; i++) {
    p = strchr(p, '\n');
    if (p) p++;
  }
  return p && *p ? p : NULL;
}

// the field named col of row r
static const char* cell(const char* text, int r, const char* col, char* buf, size_t n) {
  int c = csv_col(text, col);
  ck_assert_msg(c >= 0, "no column %s in:\n%.300s", col, text);
  const char* l = csv_line(text, r);
  ck_assert_msg(l != NULL, "no row %d", r);
  return csv_get(l, c, buf, n);
}

//---------------------------------- HDF5 ------------------------------------------------------

static int h5_complete(const char* path) {
  if (!exists(path)) return 0;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return 0;
  int v = 0;
  hid_t a = H5Aopen(f, "complete", H5P_DEFAULT);
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_INT, &v);
    H5Aclose(a);
  }
  H5Fclose(f);
  return v;
}

//---------------------------------- tests -----------------------------------------------------

// lists, linear and log ranges, product order, repeat: index.csv against hand-computed values
// `csim sweep SPEC --out DIR` run in g_tmp: its exit status, its output (stderr merged) into out
static int sweep(const char* spec, const char* dir, char* out, size_t n) {
  char cmd[8192];
  snprintf(cmd, sizeof(cmd), "cd %s && %s sweep %s --out %s", g_tmp, g_csim, spec, dir);
  return sh_run2(cmd, out, n);
}

START_TEST(sweep_axes_product_ranges_repeat) {
  write_spec("grid.yaml",
             "name: grid\n"
             "axes:\n"
             "  contact.friction: {from: 0.1, to: 0.5, count: 3}\n"
             "  solver.tolerance: {from: 1.0e-2, to: 1.0e-6, count: 3, scale: log}\n"
             "repeat: 2\n"
             "set: {integrator.duration: 0.01}\n"
             "chunk: 5\n");
  char cmd[8192], out[65536], idx[65536], path[4096];
  ck_assert_msg(sweep("grid.yaml", "sw", out, sizeof(out)) == 0, "%s", out);
  snprintf(path, sizeof(path), "%s/sw/index.csv", g_tmp);
  read_text(path, idx, sizeof(idx));
  // 3 x 3 x 2 = 18 points; first axis slowest, repeat fastest
  const char* want =
      "point,name,contact.friction,solver.tolerance,repeat,scenario,output\n"
      "0,0000_friction-0.1_tolerance-0.01_r0,0.1,0.01,0,points/0000_friction-0.1_tolerance-0.01_r0.yaml,"
      "out/0000_friction-0.1_tolerance-0.01_r0.h5\n"
      "1,0001_friction-0.1_tolerance-0.01_r1,0.1,0.01,1,";
  ck_assert_msg(!strncmp(idx, want, strlen(want)), "index.csv starts:\n%.600s", idx);
  const char* fr[] = {"0.1", "0.3", "0.5"};
  const char* tol[] = {"0.01", "0.0001", "1e-06"};
  char b[128];
  for (int p = 0; p < 18; p++) {
    ck_assert_str_eq(cell(idx, p + 1, "contact.friction", b, sizeof(b)), fr[p / 6]);
    ck_assert_str_eq(cell(idx, p + 1, "solver.tolerance", b, sizeof(b)), tol[(p / 2) % 3]);
    ck_assert_int_eq(atoi(cell(idx, p + 1, "repeat", b, sizeof(b))), p % 2);
  }
  ck_assert_ptr_null(csv_line(idx, 19));
  // chunks of 5: 4 lists; the point file carries the values and its own name and output
  snprintf(path, sizeof(path), "%s/sw/chunks/c0003.txt", g_tmp);
  read_text(path, out, sizeof(out));
  ck_assert_str_eq(out, "points/0015_friction-0.5_tolerance-0.0001_r1.yaml\n"
                        "points/0016_friction-0.5_tolerance-1e-06_r0.yaml\n"
                        "points/0017_friction-0.5_tolerance-1e-06_r1.yaml\n");
  snprintf(path, sizeof(path), "%s/sw/points/0016_friction-0.5_tolerance-1e-06_r0.yaml", g_tmp);
  read_text(path, out, sizeof(out));
  ck_assert_msg(strstr(out, "friction: 0.5") && strstr(out, "tolerance: 1e-06") &&
                    strstr(out, "duration: 0.01") &&
                    strstr(out, "path: \"../out/0016_friction-0.5_tolerance-1e-06_r0.h5\""),
                "%s", out);
  snprintf(path, sizeof(path), "%s/sw/sweep.sbatch", g_tmp);
  read_text(path, out, sizeof(out));
  ck_assert_msg(strstr(out, "#SBATCH --array=0-3%4\n") != NULL, "%s", out);
  // the point file runs from anywhere (paths relative to itself)
  snprintf(cmd, sizeof(cmd), "cd / && %s run --quiet %s/sw/points/0016_friction-0.5_tolerance-1e-06_r0.yaml",
           g_csim, g_tmp);
  ck_assert_msg(sh_run2(cmd, out, sizeof(out)) == 0, "%s", out);
  snprintf(path, sizeof(path), "%s/sw/out/0016_friction-0.5_tolerance-1e-06_r0.h5", g_tmp);
  ck_assert_int_eq(h5_complete(path), 1);
  // zip pairs the values instead
  write_spec("zip.yaml", "combine: zip\naxes:\n  contact.friction: [0.1, 0.2]\n"
                         "  contact.model: [ncp, ccp]\n");
  ck_assert_msg(sweep("zip.yaml", "zw", out, sizeof(out)) == 0, "%s", out);
  snprintf(path, sizeof(path), "%s/zw/index.csv", g_tmp);
  read_text(path, idx, sizeof(idx));
  ck_assert_msg(strstr(idx, "\n0,0000_friction-0.1_model-ncp,0.1,ncp,") &&
                    strstr(idx, "\n1,0001_friction-0.2_model-ccp,0.2,ccp,") && !csv_line(idx, 3),
                "%s", idx);
  // the same spec again into the same directory is fine; another sweep there is refused
  ck_assert_msg(sweep("zip.yaml", "zw", out, sizeof(out)) == 0, "%s", out);
  ck_assert_int_eq(sweep("grid.yaml", "zw", out, sizeof(out)), 2);
  ck_assert_msg(strstr(out, "holds another sweep") != NULL, "%s", out);
}
END_TEST

// a bad value fails at sweep time: exit 2 naming the spec position, the point and the key, and
// no sweep directory is left
START_TEST(sweep_bad_points_exit_2) {
  struct {
    const char* body;
    const char* want[3];
  } cases[] = {
      {"axes:\n  contact.friction: [0.3,\n                     -1]\n",
       {"bad.yaml:4:22", "point 1 (0001_friction--1)", "contact.friction"}},
      {"axes:\n  contact.frictio: [0.3]\n", {"bad.yaml:3:21", "point 0", "did you mean"}},
      {"axes:\n  robots.0.q0: [[0, 0, 0.05, 0, 0, 0, 1], [0, 0, 1]]\n",
       {"point 1 (0001_q0-0+0+1)", "q0", "7"}},
      {"combine: zip\naxes:\n  contact.friction: [0.1, 0.2]\n  contact.model: [ncp]\n",
       {"bad.yaml:5:3", "equal length", ""}},
      {"axes:\n  name: [a, b]\n", {"bad.yaml:3:9", "cannot be swept", ""}},
      {"axes:\n  solver.tolerance: {from: 0, to: 1, count: 3, scale: log}\n",
       {"bad.yaml:3:21", "log range needs from > 0", ""}},
      {"axes: {contact.friction: [0.1]}\nrepat: 2\n", {"bad.yaml:3:1", "unknown key", ""}},
      {"axes: {\"contact.friction=1\": [0.1]}\n", {"bad.yaml:2:8", "scenario key path", ""}},
      {"axes: {contact.friction: {from: 0, to: 1, count: 100000}, solver.tolerance: [1, 2]}\n",
       {"bad.yaml:2:7", "more than 100000 points", ""}},
  };
  char cmd[8192], out[16384], dir[512];
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    write_spec("bad.yaml", cases[i].body);
    snprintf(dir, sizeof(dir), "%s/bad%zu", g_tmp, i);
    int rc = sweep("bad.yaml", dir, out, sizeof(out));
    ck_assert_msg(rc == 2, "case %zu: exit %d\n%s", i, rc, out);
    for (int k = 0; k < 3; k++)
      ck_assert_msg(strstr(out, cases[i].want[k]) != NULL, "case %zu: '%s' not in:\n%s", i,
                    cases[i].want[k], out);
    ck_assert_msg(!exists(dir), "case %zu: %s was left behind", i, dir);
  }
  // a directory path the runners could not hold unquoted
  write_spec("ok.yaml", "axes: {contact.friction: [0.1]}\n");
  snprintf(cmd, sizeof(cmd), "cd %s && %s sweep ok.yaml --out 'a b'", g_tmp, g_csim);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 2);
  ck_assert_msg(strstr(out, "holds ' '") != NULL, "%s", out);
  snprintf(dir, sizeof(dir), "%s/a b", g_tmp);
  ck_assert(!exists(dir));
  // the empty points/ of a sweep stopped while validating does not block the next one
  snprintf(cmd, sizeof(cmd), "cd %s && mkdir -p st/points && %s sweep ok.yaml --out st", g_tmp,
           g_csim);
  ck_assert_msg(sh_run2(cmd, out, sizeof(out)) == 0, "%s", out);
}
END_TEST

// csim run a b c: each run independent, the exit status the worst; a failure does not stop the
// others; exit_status and failure are written in the output
START_TEST(run_many_scenarios_worst_status) {
  char cmd[8192], out[65536], path[4096];
  // good, failing at step 0 (one PGS sweep, on_failure stop), bad input, good
  const char* names[] = {"a", "fail", "bad", "b"};
  const char* sets[] = {"", "  on_failure: stop\n  max_iterations: 1\n", "", ""};
  for (int i = 0; i < 4; i++) {
    char text[4096];
    snprintf(text, sizeof(text),
             "name: %s\nrobots:\n  - {urdf: %s/robots/cube.urdf, base: free, q0: [0, 0, 0.05, 0, 0, 0, 1]}\n"
             "contact: {friction: %s}\nsolver:\n  name: pgs\n%s"
             "integrator: {dt: 1.0e-3, duration: 0.05}\noutput: {path: %s.h5}\n",
             names[i], g_root, i == 2 ? "-1" : "0.3", sets[i], names[i]);
    snprintf(path, sizeof(path), "%s/%s.yaml", g_tmp, names[i]);
    write_text(path, text);
  }
  snprintf(path, sizeof(path), "%s/list.txt", g_tmp);
  write_text(path, "# the last two\nbad.yaml\n\n  b.yaml\n");
  snprintf(cmd, sizeof(cmd), "cd %s && mkdir logs && %s run a.yaml fail.yaml --batch list.txt --log-dir logs",
           g_tmp, g_csim);
  int rc = sh_run2(cmd, out, sizeof(out));
  ck_assert_msg(rc == 2, "exit %d\n%s", rc, out);
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof(path), "%s/%s.h5", g_tmp, names[i]);
    ck_assert_int_eq(h5_complete(path), i == 0 || i == 3);
    ck_assert_int_eq(exists(path), i != 2);  // bad input: no output file
    char log[8192], want[64];
    snprintf(path, sizeof(path), "%s/logs/%s.log", g_tmp, names[i]);
    snprintf(want, sizeof(want), "csim run: exit status %d\n", i == 0 || i == 3 ? 0 : i);
    read_text(path, log, sizeof(log));
    ck_assert_msg(strstr(log, want) != NULL, "%s: %s", names[i], log);
  }
  snprintf(path, sizeof(path), "%s/fail.h5", g_tmp);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  int st = -1;
  hid_t a = H5Aopen(f, "exit_status", H5P_DEFAULT);
  ck_assert(a >= 0);
  H5Aread(a, H5T_NATIVE_INT, &st);
  H5Aclose(a);
  H5Fclose(f);
  ck_assert_int_eq(st, 1);
  // --skip-complete: a complete output is not rerun (same inode and modification time)
  struct stat before, after;
  snprintf(path, sizeof(path), "%s/a.h5", g_tmp);
  ck_assert_int_eq(stat(path, &before), 0);
  snprintf(cmd, sizeof(cmd), "cd %s && %s run --skip-complete a.yaml", g_tmp, g_csim);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 0);
  ck_assert_msg(strstr(out, "skipped") != NULL, "%s", out);
  ck_assert_int_eq(stat(path, &after), 0);
  ck_assert(before.st_ino == after.st_ino && before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
            before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
  // --out with several scenarios is ambiguous
  snprintf(cmd, sizeof(cmd), "cd %s && %s run a.yaml b.yaml --out x.h5", g_tmp, g_csim);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 2);
}
END_TEST

// lines of a log that end an attempt, and whether the last attempt skipped
static int attempts(const char* log, int* skipped_last) {
  int n = 0;
  const char* last = log;
  for (const char* p = strstr(log, "csim run: exit status"); p; p = strstr(p + 1, "csim run: exit status")) {
    n++;
    *skipped_last = 0;
    const char* s = strstr(last, "skipped:");
    if (s && s < p) *skipped_last = 1;
    last = p + 1;
  }
  return n;
}

// the test: 6 points with make -j2, interrupted after 3 complete, resumed: exactly the
// missing points run; a point made to fail is a row with its exit code and message
START_TEST(make_interrupt_resume_merge) {
  // 40 s of cube_slide each (~0.25 s of work, recorded every 200 steps); point 4 fails at step 0
  // (one PGS sweep: under auto, Newton's one step after ADMM's would solve it, auto.c)
  write_spec("six.yaml",
             "name: six\ncombine: zip\n"
             "axes:\n"
             "  contact.friction: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]\n"
             "  solver.max_iterations: [2000, 2000, 2000, 2000, 1, 2000]\n"
             "set: {integrator.duration: 40, output.every: 200, solver.on_failure: stop,\n"
             "      solver.name: pgs}\n");
  char cmd[8192], out[65536], path[4096], log[65536];
  ck_assert_msg(sweep("six.yaml", "six", out, sizeof(out)) == 0, "%s", out);
  char names[6][128], idx[8192];
  snprintf(path, sizeof(path), "%s/six/index.csv", g_tmp);
  read_text(path, idx, sizeof(idx));
  for (int p = 0; p < 6; p++) cell(idx, p + 1, "name", names[p], sizeof(names[p]));

  // make -j2 in its own process group; SIGINT to the group once 3 points have completed
  char dir[512];
  snprintf(dir, sizeof(dir), "%s/six", g_tmp);
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0);
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(127);
    execlp("make", "make", "-s", "-C", dir, "-j2", (char*)NULL);
    _exit(127);
  }
  setpgid(pid, pid);
  int done = 0;
  for (int t = 0; t < 12000 && done < 3; t++) {  // at most 120 s
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
    done = 0;
    for (int p = 0; p < 6; p++) {
      snprintf(path, sizeof(path), "%s/logs/%s.log", dir, names[p]);
      done += strstr(read_text(path, log, sizeof(log)), "exit status 0\n") != NULL;
    }
  }
  ck_assert_msg(done >= 3, "3 points did not complete within 120 s");
  kill(-pid, SIGINT);
  int ws = 0;
  waitpid(pid, &ws, 0);
  // the interrupted runs may outlive make: wait until the whole process group is gone (they
  // close their files on SIGINT), at most 60 s, however loaded the machine
  for (int t = 0; t < 6000 && kill(-pid, 0) == 0; t++) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }

  int complete[6], ncomplete = 0, interrupted = 0;
  struct stat before[6];
  for (int p = 0; p < 6; p++) {
    snprintf(path, sizeof(path), "%s/out/%s.h5", dir, names[p]);
    complete[p] = h5_complete(path);
    ncomplete += complete[p];
    if (complete[p]) ck_assert_int_eq(stat(path, &before[p]), 0);
  }
  ck_assert_msg(ncomplete >= 3 && ncomplete <= 4, "%d points complete after the interrupt",
                ncomplete);
  ck_assert_int_eq(complete[4], 0);
  // the merge of the interrupted sweep: missing, interrupted and complete rows, exit 1
  snprintf(cmd, sizeof(cmd), "%s merge %s --out %s/mid.csv", g_csim, dir, g_tmp);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 1);
  char mid[65536], b[1024];
  snprintf(path, sizeof(path), "%s/mid.csv", g_tmp);
  read_text(path, mid, sizeof(mid));
  for (int p = 0; p < 6; p++) {
    cell(mid, p + 1, "status", b, sizeof(b));
    if (complete[p]) {
      ck_assert_str_eq(b, "complete");
    } else {
      // SIGINT reaches the whole process group at an arbitrary moment: a point may not have
      // started (missing), have closed its file as interrupted (failed), or have been caught
      // before it could mark the file (incomplete); all three are rerun on resume
      ck_assert_msg(!strcmp(b, "missing") || !strcmp(b, "failed") || !strcmp(b, "incomplete"),
                    "point %d: %s", p, b);
      interrupted += strstr(cell(mid, p + 1, "message", b, sizeof(b)), "interrupted by SIGINT") != NULL;
    }
  }

  // resume: exactly the points that were not complete run; the complete ones are skipped
  int nlog[6], skipped;
  for (int p = 0; p < 6; p++) {
    snprintf(path, sizeof(path), "%s/logs/%s.log", dir, names[p]);
    nlog[p] = attempts(read_text(path, log, sizeof(log)), &skipped);
  }
  snprintf(cmd, sizeof(cmd), "make -s -C %s -j2", dir);
  ck_assert_int_ne(sh_run2(cmd, out, sizeof(out)), 0);  // point 4 fails: make says so at the end
  int rerun = 0;
  for (int p = 0; p < 6; p++) {
    snprintf(path, sizeof(path), "%s/logs/%s.log", dir, names[p]);
    int n = attempts(read_text(path, log, sizeof(log)), &skipped);
    ck_assert_msg(n == nlog[p] + 1, "point %d: %d attempts, %d before", p, n, nlog[p]);
    ck_assert_msg(skipped == complete[p], "point %d: skipped %d, complete before %d", p, skipped,
                  complete[p]);
    rerun += !skipped;
    snprintf(path, sizeof(path), "%s/out/%s.h5", dir, names[p]);
    ck_assert_int_eq(h5_complete(path), p != 4);
    if (complete[p]) {
      struct stat now;
      ck_assert_int_eq(stat(path, &now), 0);
      ck_assert(now.st_ino == before[p].st_ino && now.st_mtim.tv_sec == before[p].st_mtim.tv_sec &&
                now.st_mtim.tv_nsec == before[p].st_mtim.tv_nsec);
    }
  }
  ck_assert_int_eq(rerun, 6 - ncomplete);

  // the final merge: 5 complete rows and the failed point with its exit code and message
  snprintf(cmd, sizeof(cmd), "%s merge %s", g_csim, dir);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 1);
  ck_assert_msg(strstr(out, "5 of 6 points complete") != NULL, "%s", out);
  char m[65536];
  snprintf(path, sizeof(path), "%s/merged.csv", dir);
  read_text(path, m, sizeof(m));
  ck_assert_str_eq(cell(m, 5, "status", b, sizeof(b)), "failed");
  ck_assert_str_eq(cell(m, 5, "exit_status", b, sizeof(b)), "1");
  ck_assert_str_eq(cell(m, 5, "complete", b, sizeof(b)), "0");
  ck_assert_msg(strstr(cell(m, 5, "message", b, sizeof(b)), "solver did not converge at step 0"),
                "%s", b);
  ck_assert_str_eq(cell(m, 5, "contact.friction", b, sizeof(b)), "0.5");
  for (int p = 0; p < 6; p++) {
    if (p == 4) continue;
    ck_assert_str_eq(cell(m, p + 1, "status", b, sizeof(b)), "complete");
    ck_assert_str_eq(cell(m, p + 1, "exit_status", b, sizeof(b)), "0");
    ck_assert_str_eq(cell(m, p + 1, "steps", b, sizeof(b)), "40000");  // 40 s / 1 ms
  }
  // row 0's statistics recomputed here from the datasets
  snprintf(path, sizeof(path), "%s/out/%s.h5", dir, names[0]);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  size_t n = 0, nd = 0, nit = 0, ne = 0, cols = 0;  // 1-D datasets
  double* eps = h5_read_file(path, "/solver/eps_abs", &n, &cols);
  double* it = h5_read_file(path, "/solver/iterations", &nit, &cols);
  double* et = h5_read_file(path, "/energy/total", &ne, &cols);
  double* dep = h5_read_file(path, "/contacts/depth", &nd, &cols);
  // injected energy: the root attribute energy_injected (final state) where this csim writes it,
  // else the last row of /energy/injected, else an empty cell
  double inj = NAN;
  if (H5Aexists(f, "energy_injected") > 0) {
    hid_t a = H5Aopen(f, "energy_injected", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_DOUBLE, &inj);
    H5Aclose(a);
  } else if (H5Lexists(f, "/energy/injected", H5P_DEFAULT) > 0) {
    size_t ni = 0;
    double* v = h5_read_file(path, "/energy/injected", &ni, &cols);
    ck_assert_int_eq((int)ni, 200);
    inj = v[ni - 1];
    free(v);
  }
  H5Fclose(f);
  cell(m, 1, "energy_injected", b, sizeof(b));
  if (isnan(inj)) ck_assert_str_eq(b, "");
  else ck_assert_double_eq(strtod(b, NULL), inj);
  ck_assert_int_eq((int)n, 200);  // 40000 steps recorded every 200
  double es = 0, em = 0, is = 0, im = 0, dm = 0;
  for (size_t i = 0; i < n; i++) {
    es += eps[i];
    em = fmax(em, eps[i]);
    is += it[i];
    im = fmax(im, it[i]);
  }
  for (size_t i = 0; i < nd; i++) dm = fmax(dm, dep[i]);
  ck_assert_double_eq(strtod(cell(m, 1, "eps_abs_mean", b, sizeof(b)), NULL), es / (double)n);
  ck_assert_double_eq(strtod(cell(m, 1, "eps_abs_max", b, sizeof(b)), NULL), em);
  ck_assert_double_eq(strtod(cell(m, 1, "iterations_mean", b, sizeof(b)), NULL), is / (double)n);
  ck_assert_double_eq(strtod(cell(m, 1, "iterations_max", b, sizeof(b)), NULL), im);
  ck_assert_double_eq(strtod(cell(m, 1, "energy_drift", b, sizeof(b)), NULL), et[ne - 1] - et[0]);
  ck_assert_double_eq(strtod(cell(m, 1, "penetration_max", b, sizeof(b)), NULL), dm);
  ck_assert(strtod(cell(m, 1, "us_per_step", b, sizeof(b)), NULL) > 0);
  free(eps);
  free(it);
  free(et);
  free(dep);
  // 0 when the kill fell between two points: reported, not required
  fprintf(stderr, "make_interrupt_resume_merge: %d complete at the interrupt, %d interrupted "
          "mid-run, %d rerun\n", ncomplete, interrupted, rerun);
}
END_TEST

// the same sweep with GNU parallel gives the Make path's table; the HDF5 table has the columns
START_TEST(parallel_path_and_h5_merge) {
  char out[65536], cmd[8192];
  ck_assert_msg(sh_run2("command -v parallel", out, sizeof(out)) == 0,
                "GNU parallel is needed (Debian package parallel: make deps)");
  write_spec("pm.yaml", "axes:\n  contact.friction: [0.2, 0.4]\n  contact.model: [ncp, lcp]\n"
                        "set: {integrator.duration: 0.2}\nchunk: 3\n");
  snprintf(cmd, sizeof(cmd),
           "cd %s && %s sweep pm.yaml --out mk && %s sweep pm.yaml --out pl && %s merge mk --out "
           "mk/nothing.csv",
           g_tmp, g_csim, g_csim, g_csim);
  ck_assert_int_eq(sh_run2(cmd, out, sizeof(out)), 1);  // nothing has run: every row missing
  char t[65536], b[256], path[4096];
  snprintf(path, sizeof(path), "%s/mk/nothing.csv", g_tmp);
  read_text(path, t, sizeof(t));
  for (int p = 0; p < 4; p++) ck_assert_str_eq(cell(t, p + 1, "status", b, sizeof(b)), "missing");
  snprintf(cmd, sizeof(cmd),
           "cd %s && make -s -C mk -j2 && pl/parallel.sh && %s merge mk && %s merge pl && "
           "%s merge pl --out pl/m.h5 && diff <(rev mk/merged.csv | cut -d, -f3- | rev) "
           "<(rev pl/merged.csv | cut -d, -f3- | rev)",
           g_tmp, g_csim, g_csim, g_csim);
  char bash[8400 + 16];
  snprintf(bash, sizeof(bash), "bash -c \"%s\"", cmd);
  ck_assert_msg(sh_run2(bash, out, sizeof(out)) == 0, "%s", out);
  snprintf(path, sizeof(path), "%s/pl/m.h5", g_tmp);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert(f >= 0);
  size_t n = 0, cols = 0;
  double* fr = h5_read_file(path, "contact.friction", &n, &cols);  // numeric parameters are numbers
  ck_assert_int_eq((int)n, 4);
  ck_assert_double_eq(fr[0], 0.2);
  ck_assert_double_eq(fr[3], 0.4);
  free(fr);
  double* c = h5_read_file(path, "complete", &n, &cols);
  for (size_t i = 0; i < n; i++) ck_assert_double_eq(c[i], 1);
  free(c);
  ck_assert(H5Aexists(f, "columns") > 0);
  H5Fclose(f);
}
END_TEST


// a 1-D float64 dataset written by hand
static void h5_put(hid_t f, const char* name, const double* v, size_t n) {
  hsize_t dims[1] = {n};
  hid_t sp = H5Screate_simple(1, dims, NULL);
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t d = H5Dcreate2(f, name, H5T_NATIVE_DOUBLE, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(d >= 0);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(d);
  H5Pclose(lcpl);
  H5Sclose(sp);
}

static void h5_put_int_attr(hid_t f, const char* name, int v) {
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(f, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_INT, &v);
  H5Aclose(a);
  H5Sclose(sp);
}

// an output written by hand (an older csim: no /energy/injected, no steps or wall_time
// attributes, no contacts): the row's figures computed by hand, unknown ones empty
START_TEST(merge_hand_made_output) {
  write_spec("one.yaml", "axes: {contact.friction: [0.25]}\n");
  char cmd[8192], out[16384], path[4096], m[16384], b[256];
  ck_assert_msg(sweep("one.yaml", "one", out, sizeof(out)) == 0, "%s", out);
  snprintf(path, sizeof(path), "%s/one/out/0000_friction-0.25.h5", g_tmp);
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  ck_assert(f >= 0);
  const double t[3] = {0, 0.002, 0.004}, eps[3] = {1, 2, 3}, it[3] = {1, 5, 3}, cv[3] = {1, 0, 1},
               et[3] = {10, 9, 7}, ts[3] = {0.1, 0.2, 0.3};
  h5_put(f, "/time", t, 3);
  h5_put(f, "/solver/eps_abs", eps, 3);
  h5_put(f, "/solver/iterations", it, 3);
  h5_put(f, "/solver/converged", cv, 3);
  h5_put(f, "/energy/total", et, 3);
  h5_put(f, "/timing/step", ts, 3);
  h5_put_int_attr(f, "complete", 1);
  h5_put_int_attr(f, "every", 2);
  H5Fclose(f);
  snprintf(cmd, sizeof(cmd), "%s merge %s/one --out -", g_csim, g_tmp);
  ck_assert_int_eq(sh_run2(cmd, m, sizeof(m)), 0);
  const char* want[][2] = {{"status", "complete"}, {"complete", "1"}, {"exit_status", "-1"},
                           {"steps", "6"},  // 3 rows recorded every 2 steps
                           {"eps_abs_mean", "2"}, {"eps_abs_max", "3"}, {"iterations_mean", "3"},
                           {"iterations_max", "5"}, {"nonconverged_steps", "1"},
                           {"energy_drift", "-3"}, {"energy_injected", ""},
                           {"penetration_max", ""}, {"contact.friction", "0.25"}};
  for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
    ck_assert_msg(!strcmp(cell(m, 1, want[k][0], b, sizeof(b)), want[k][1]), "%s: '%s', want '%s'\n%s",
                  want[k][0], b, want[k][1], m);
  double wall = 0.1 + 0.2 + 0.3;  // the sum of /timing/step when wall_time is absent
  ck_assert_double_eq(strtod(cell(m, 1, "wall_time", b, sizeof(b)), NULL), wall);
  ck_assert_double_eq(strtod(cell(m, 1, "us_per_step", b, sizeof(b)), NULL), 1e6 * wall / 6);
}
END_TEST

static Suite* sweep_suite(void) {
  Suite* s = suite_create("sweep");
  TCase* tc = tcase_create("sweep");
  tcase_add_unchecked_fixture(tc, sweep_setup, tmp_teardown);  // in the runner: removed even on failure
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, sweep_axes_product_ranges_repeat);
  tcase_add_test(tc, sweep_bad_points_exit_2);
  tcase_add_test(tc, run_many_scenarios_worst_status);
  tcase_add_test(tc, make_interrupt_resume_merge);
  tcase_add_test(tc, parallel_path_and_h5_merge);
  tcase_add_test(tc, merge_hand_made_output);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return run_suite(sweep_suite());
}
