// support.h — what the test programs share: running ./csim and shell commands, temporary
// directories and files, reading HDF5 datasets, seeded random numbers, running a suite.
// Linked into every test program (the Makefile links each non-test_*.c file of tests/).
#ifndef CSIM_TEST_SUPPORT_H
#define CSIM_TEST_SUPPORT_H

#include <check.h>
#include <hdf5.h>
#include <stddef.h>
#include <sys/types.h>

// CSIM_TEST_ASAN: defined when the test is built under AddressSanitizer (SANITIZE=1), for the
// checks a sanitized process cannot make (its own malloc) or that take too long there
#if defined(__SANITIZE_ADDRESS__)
#define CSIM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CSIM_TEST_ASAN 1
#endif
#endif

// Check's ck_assert_msg (behind every ck_assert_*) reports each PASSING assertion's file:line to
// the runner with a write(2) (_mark_point), so an assertion inside a loop over a matrix costs a
// system call per entry: 3.5 million in test_fclib, 20 of its 26 s (plain build; 200 s under
// ASan+UBSan, the CPU idle in the kernel). Here a passing assertion costs its comparison only; a
// failing one reports file:line and the message as before. (A crash is then reported at the
// test's start or the last explicit mark_point() instead of the last assertion passed.)
#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                                                   \
  ((expr) ? (void)0                                                                                \
          : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", __VA_ARGS__))

//---- running csim and shell commands ----

// the binary under test: $CSIM, default ./csim (tests run from the repository root)
const char* csim_bin(void);

// run `cmd` through the shell; its stdout into out (NUL-terminated, cut at n - 1 bytes; out may
// be NULL), the rest drained; the exit code, -1 when it did not exit normally
int sh_run(const char* cmd, char* out, size_t n);
// the same with the last command's stderr merged ("CMD 2>&1")
int sh_run2(const char* cmd, char* out, size_t n);
// the same with every command's stderr merged ("{ CMD\n} 2>&1", for lists and pipelines)
int sh_run_all(const char* cmd, char* out, size_t n);
// sh_run_all of a formatted command
int sh_fmt(char* out, size_t n, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// the Debian python3 (h5py, numpy, matplotlib), or python3 on PATH where it is missing
const char* python3(void);

//---- temporary directories and files ----

// a fresh directory $TMPDIR/csim_test_<tag>_XXXXXX (P_tmpdir without TMPDIR) into buf
void tmp_dir(char* buf, size_t n, const char* tag);
// tmp_dir(dir, dn, tag), and into path the path of `name` in it (asserted to fit)
void tmp_dir_path(char* dir, size_t dn, const char* tag, char* path, size_t pn, const char* name);
// remove a tree made by tmp_dir (files, FIFOs, links, directories); other paths are left alone
void tmp_remove(const char* dir);
int file_exists(const char* path);
// a whole file, NUL-terminated (malloc'd; *len its size when len is not NULL); NULL if unreadable
char* read_file(const char* path, size_t* len);
// the same, asserted readable
char* slurp(const char* path, size_t* len);
// write n bytes / a string to path (asserted)
void write_bytes(const char* path, const void* data, size_t n);
void write_text(const char* path, const char* text);

// the temporary directory of the running test case: tmp_setup and tmp_teardown as a Check
// fixture (or called by hand); g_tmp its path ("" when it could not be made)
extern char g_tmp[256];
void tmp_setup(void);
void tmp_teardown(void);
// the path of `name` in g_tmp (asserts that g_tmp exists)
const char* tmp_path(char* buf, size_t n, const char* name);
// a file `name` in g_tmp with n bytes / a string
void tmp_write(const char* name, const void* data, size_t n);
void tmp_write_text(const char* name, const char* text);
// write bad.yaml in the temporary directory (a fixed-base robot from urdf named robot, no ground,
// 10 steps, the controller "{type: type, robot: robot, params: {params}}" on line 9), run it
// and return csim's exit code, its output in out: the controllers' bad-params tables
int tmp_run_controller(const char* urdf, const char* robot, const char* type, const char* params,
                       char* out, size_t n);

//---- HDF5 ----

// a whole 1-D or 2-D dataset of an open file as doubles (or int32 when ints != NULL), at most max
// values (asserted); returns its rows, *cols its columns (1 for 1-D) when cols is not NULL
long h5_read(hid_t f, const char* path, double* out, int* ints, long max, long* cols);
// a whole dataset of file `path` as doubles (malloc'd), its rows and columns (1 for 1-D)
double* h5_read_file(const char* path, const char* name, size_t* rows, size_t* cols);
// an int attribute of the root group of file `path`; -1 when the file or attribute is missing
int h5_root_int(const char* path, const char* name);

// `csim run` in this process (cli_run; argv without the program name) asserted to exit 0, and
// its output file `out` opened read-only (asserted)
hid_t cli_run_open(int argc, char** argv, const char* out);

//---- child processes ----

// start argv[0] with argv (NULL-terminated), its stdout and stderr to the file `log`; its pid
// (the fork asserted)
pid_t spawn_logged(const char* const* argv, const char* log);
void sleep_s(double s);
// wait up to `limit` seconds for `path` to exist, polling every 10 ms; whether it does
int wait_file(const char* path, double limit);
// wait up to `limit` seconds for pid to exit (*status its status); -1 if still running (then
// killed with SIGKILL and reaped)
int wait_exit(pid_t pid, double limit, int* status);
// the start of a text file (n - 1 bytes at most) into text, NUL-terminated; "" if unreadable
void read_log(const char* log, char* text, size_t n);

//---- seeded random numbers (the same sequence on every platform) ----

// an LCG in [-1, 1]
double urand_sym(unsigned* s);
// splitmix64 in [0, 1)
double urand_splitmix(unsigned long long* state);
// a random well-conditioned SPD n x n (n <= 24) from urand_sym: A A' + 0.5 I
void random_spd(int n, double* spd, unsigned* s);

// G = J M^-1 J' of a free box (mass m, inertia diag I) with its 4 bottom corners (+-half, +-half,
// -h) in contact, rows [t1 t2 n] per contact: rank 6 of 12 (hyperstatic)
void box_G(double m, const double inertia[3], double half, double h, double out[144]);
// the contact Jacobian of those corners, rows [e, r x e] for e = x, y, z per corner (12 x 6)
void box_corner_J(double half, double h, double J[72]);
// one contact's exact NCP solution built backwards (000 eq. 12), as ncp/pgs, ncp/admm and
// ncp/staggered must recover it: mu in [0.2, 0.5], G = random_spd(3), then by kind 0 sticking
// (lambda inside the cone, c = 0), 1 sliding (c_N = 0, lambda_T = -mu lambda_N c_T/|c_T|),
// 2 take-off (lambda = 0, c_N > 0); g = c - G lambda
void ncp_contact_case(int kind, unsigned* s, double blk[9], double* mu, double lam[3], double g[3]);

//---- suites ----

// run a suite (CK_NORMAL), free it; EXIT_SUCCESS when every test passed
int run_suite(Suite* s);

#endif
