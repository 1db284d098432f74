// support.c — the helpers of support.h, one copy for every test program.
#include "support.h"

#include "cli/cli.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

//---- running csim and shell commands ----

const char* csim_bin(void) {
  const char* c = getenv("CSIM");
  return c && *c ? c : "./csim";
}

int sh_run(const char* cmd, char* out, size_t n) {
  FILE* p = popen(cmd, "r");
  if (!p) return -1;
  size_t k = 0;
  if (out && n) {
    // fill the buffer, then drain the rest so the command never blocks on a full pipe
    while (k + 1 < n) {
      size_t got = fread(out + k, 1, n - 1 - k, p);
      if (got == 0) break;
      k += got;
    }
    out[k] = '\0';
  }
  char sink[4096];
  while (fread(sink, 1, sizeof(sink), p) > 0) {
  }
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// cmd wrapped in pre ... post, then run
static int sh_wrapped(const char* pre, const char* cmd, const char* post, char* out, size_t n) {
  size_t len = strlen(pre) + strlen(cmd) + strlen(post) + 1;
  char* full = malloc(len);
  ck_assert_ptr_nonnull(full);
  snprintf(full, len, "%s%s%s", pre, cmd, post);
  int rc = sh_run(full, out, n);
  free(full);
  return rc;
}

int sh_run2(const char* cmd, char* out, size_t n) {
  return sh_wrapped("", cmd, " 2>&1", out, n);
}

int sh_run_all(const char* cmd, char* out, size_t n) {
  return sh_wrapped("{ ", cmd, "\n} 2>&1", out, n);
}

int sh_fmt(char* out, size_t n, const char* fmt, ...) {
  char cmd[8192];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
  va_end(ap);
  ck_assert_msg(len >= 0 && (size_t)len < sizeof(cmd), "command too long: %s", cmd);
  return sh_run_all(cmd, out, n);
}

const char* python3(void) {
  return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

//---- temporary directories and files ----

void tmp_dir(char* buf, size_t n, const char* tag) {
  const char* t = getenv("TMPDIR");
  snprintf(buf, n, "%s/csim_test_%s_XXXXXX", t && t[0] ? t : P_tmpdir, tag);
  ck_assert_msg(mkdtemp(buf) != NULL, "mkdtemp %s failed", buf);
}

void tmp_dir_path(char* dir, size_t dn, const char* tag, char* path, size_t pn, const char* name) {
  tmp_dir(dir, dn, tag);
  int len = snprintf(path, pn, "%s/%s", dir, name);
  ck_assert_msg(len >= 0 && (size_t)len < pn, "path too long: %s/%s", dir, name);
}

static void rm_tree(const char* dir) {
  DIR* d = opendir(dir);
  if (d) {
    struct dirent* e;
    char path[1024];
    while ((e = readdir(d)) != NULL) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
      struct stat sb;
      if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        rm_tree(path);
      else
        unlink(path);
    }
    closedir(d);
  }
  rmdir(dir);
}

void tmp_remove(const char* dir) {
  // only what tmp_dir made: a mistaken path must not empty anything else
  if (dir && strstr(dir, "/csim_test_")) rm_tree(dir);
}

int file_exists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}

char* read_file(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  size_t got = s ? fread(s, 1, (size_t)n, f) : 0;
  fclose(f);
  if (s && got != (size_t)n) {
    free(s);
    return NULL;
  }
  if (s) s[got] = '\0';
  if (s && len) *len = got;
  return s;
}

char* slurp(const char* path, size_t* len) {
  char* s = read_file(path, len);
  ck_assert_msg(s != NULL, "cannot read %s", path);
  return s;
}

void write_bytes(const char* path, const void* data, size_t n) {
  FILE* f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  ck_assert_uint_eq(fwrite(data, 1, n, f), n);
  ck_assert_int_eq(fclose(f), 0);
}

void write_text(const char* path, const char* text) {
  write_bytes(path, text, strlen(text));
}

char g_tmp[256];

void tmp_setup(void) {
  const char* t = getenv("TMPDIR");
  snprintf(g_tmp, sizeof(g_tmp), "%s/csim_test_case_XXXXXX", t && t[0] ? t : P_tmpdir);
  if (!mkdtemp(g_tmp)) g_tmp[0] = '\0';
}

void tmp_teardown(void) {
  if (g_tmp[0]) tmp_remove(g_tmp);
  g_tmp[0] = '\0';
}

const char* tmp_path(char* buf, size_t n, const char* name) {
  ck_assert_msg(g_tmp[0], "no temporary directory");
  snprintf(buf, n, "%s/%s", g_tmp, name);
  return buf;
}

void tmp_write(const char* name, const void* data, size_t n) {
  char p[1024];
  write_bytes(tmp_path(p, sizeof(p), name), data, n);
}

void tmp_write_text(const char* name, const char* text) {
  tmp_write(name, text, strlen(text));
}

int tmp_run_controller(const char* urdf, const char* robot, const char* type, const char* params,
                       char* out, size_t n) {
  char y[2048], path[512], h5[512];
  snprintf(y, sizeof y,
           "name: %s\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\n"
           "robots:\n  - {urdf: %s, base: fixed, name: %s}\n"
           "contact: {model: ncp, friction: 0.5}\nsolver: {name: pgs}\n"
           "integrator: {dt: 0.001, duration: 0.01}\ncontrollers:\n"
           "  - {type: %s, robot: %s, params: {%s}}\n", robot, urdf, robot, type, robot, params);
  tmp_write_text("bad.yaml", y);
  tmp_path(path, sizeof path, "bad.yaml");
  tmp_path(h5, sizeof h5, "bad.h5");
  return sh_fmt(out, n, "%s run %s --out %s --quiet", csim_bin(), path, h5);
}

//---- HDF5 ----

long h5_read(hid_t f, const char* path, double* out, int* ints, long max, long* cols) {
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  ck_assert_msg(d >= 0, "no dataset %s", path);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[2] = {0, 1};
  int nd = H5Sget_simple_extent_dims(sp, dims, NULL);
  long c = nd == 2 ? (long)dims[1] : 1;
  ck_assert_int_le((long)dims[0] * c, max);
  herr_t r = ints ? H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints)
                  : H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out);
  ck_assert_int_ge(r, 0);
  H5Sclose(sp);
  H5Dclose(d);
  if (cols) *cols = c;
  return (long)dims[0];
}

double* h5_read_file(const char* path, const char* name, size_t* rows, size_t* cols) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "cannot open %s", path);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  ck_assert_msg(d >= 0, "no dataset %s in %s", name, path);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[2] = {0, 1};
  int nd = H5Sget_simple_extent_ndims(sp);
  H5Sget_simple_extent_dims(sp, dims, NULL);
  *rows = dims[0];
  *cols = nd > 1 ? dims[1] : 1;
  double* out = malloc(sizeof(double) * (*rows * *cols + 1));
  ck_assert(out != NULL);
  if (*rows) ck_assert(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0);
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

int h5_root_int(const char* path, const char* name) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return -1;
  int v = -1;
  if (H5Aexists(f, name) > 0) {
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    if (H5Aread(a, H5T_NATIVE_INT, &v) < 0) v = -1;
    H5Aclose(a);
  }
  H5Fclose(f);
  return v;
}

hid_t cli_run_open(int argc, char** argv, const char* out) {
  ck_assert_int_eq(cli_run(argc, argv), 0);
  hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
  ck_assert_msg(f >= 0, "cannot open %s", out);
  return f;
}

//---- child processes ----

pid_t spawn_logged(const char* const* argv, const char* log) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execv(argv[0], (char* const*)argv);
    _exit(127);
  }
  return pid;
}

void sleep_s(double s) {
  struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&t, NULL);
}

int wait_file(const char* path, double limit) {
  for (int k = 0; k < (int)(limit / 0.01) && !file_exists(path); k++) sleep_s(0.01);
  return file_exists(path);
}

int wait_exit(pid_t pid, double limit, int* status) {
  for (int k = 0; k < (int)(limit / 0.01); k++) {
    if (waitpid(pid, status, WNOHANG) == pid) return 0;
    sleep_s(0.01);
  }
  kill(pid, SIGKILL);
  waitpid(pid, status, 0);
  return -1;
}

void read_log(const char* log, char* text, size_t n) {
  text[0] = '\0';
  FILE* f = fopen(log, "r");
  if (!f) return;
  size_t got = fread(text, 1, n - 1, f);
  text[got] = '\0';
  fclose(f);
}

//---- seeded random numbers ----

double urand_sym(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffffff) / (double)0xffffff * 2 - 1;
}

double urand_splitmix(unsigned long long* state) {
  unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

void random_spd(int n, double* G, unsigned* s) {
  double A[24 * 24];
  ck_assert_int_le(n, 24);
  for (int i = 0; i < n * n; i++) A[i] = urand_sym(s);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double acc = i == j ? 0.5 : 0;
      for (int k = 0; k < n; k++) acc += A[i * n + k] * A[j * n + k];
      G[i * n + j] = acc;
    }
}

void box_corner_J(double half, double h, double J[72]) {
  memset(J, 0, sizeof(double) * 72);
  double corners[4][2] = {{half, half}, {-half, half}, {half, -half}, {-half, -half}};
  for (int i = 0; i < 4; i++) {
    double r[3] = {corners[i][0], corners[i][1], -h};
    double axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int a = 0; a < 3; a++) {
      double* row = J + (3 * i + a) * 6;
      for (int k = 0; k < 3; k++) row[k] = axes[a][k];
      row[3] = r[1] * axes[a][2] - r[2] * axes[a][1];
      row[4] = r[2] * axes[a][0] - r[0] * axes[a][2];
      row[5] = r[0] * axes[a][1] - r[1] * axes[a][0];
    }
  }
}

void box_G(double m, const double inertia[3], double half, double h, double G[144]) {
  double J[12 * 6];
  box_corner_J(half, h, J);
  double minv[6] = {1 / m, 1 / m, 1 / m, 1 / inertia[0], 1 / inertia[1], 1 / inertia[2]};
  for (int a = 0; a < 12; a++)
    for (int b = 0; b < 12; b++) {
      double acc = 0;
      for (int k = 0; k < 6; k++) acc += J[a * 6 + k] * minv[k] * J[b * 6 + k];
      G[a * 12 + b] = acc;
    }
}

void ncp_contact_case(int kind, unsigned* s, double G[9], double* mu, double lam[3], double g[3]) {
  double c[3];
  *mu = 0.2 + 0.3 * (urand_sym(s) + 1) / 2;
  random_spd(3, G, s);
  if (kind == 0) {  // sticking
    double r = *mu * 0.9 * fabs(urand_sym(s)), th = 3 * urand_sym(s);
    lam[2] = 1 + fabs(urand_sym(s));
    lam[0] = r * lam[2] * cos(th);
    lam[1] = r * lam[2] * sin(th);
    c[0] = c[1] = c[2] = 0;
  } else if (kind == 1) {  // sliding
    double th = 3 * urand_sym(s), sp = 0.1 + fabs(urand_sym(s));
    lam[2] = 1 + fabs(urand_sym(s));
    c[0] = sp * cos(th);
    c[1] = sp * sin(th);
    c[2] = 0;
    lam[0] = -*mu * lam[2] * cos(th);
    lam[1] = -*mu * lam[2] * sin(th);
  } else {  // take-off
    lam[0] = lam[1] = lam[2] = 0;
    c[0] = urand_sym(s);
    c[1] = urand_sym(s);
    c[2] = 0.1 + fabs(urand_sym(s));
  }
  for (int i = 0; i < 3; i++)
    g[i] = c[i] - (G[3 * i] * lam[0] + G[3 * i + 1] * lam[1] + G[3 * i + 2] * lam[2]);
}

//---- suites ----

int run_suite(Suite* s) {
  SRunner* sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
