// h5guard.c — HDF5 reads of vlen data probed in a forked child first (see h5guard.h).
#include "out/h5guard.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_READ_OK 0
#define CHILD_READ_FAILED 3  // not 1: a sanitizer report ends the child with exit status 1

// The child's verdict also goes through a pipe, one byte written just before _exit: a child
// that wrote it returned from the read, whatever its exit status (valgrind's --error-exitcode
// replaces it when the child leaks the memory it drops on purpose). No byte: it died.
static int g_result_fd = -1;  // the write end, in a probe child

// 1 when a read into memtype may dereference global-heap objects of the file (vlen sequences
// and strings, region references), also inside compound and array members: only the classes
// known to be stored in place skip the probe
static int has_vlen(hid_t memtype) {
  switch (H5Tget_class(memtype)) {
    case H5T_INTEGER:
    case H5T_FLOAT:
    case H5T_BITFIELD:
    case H5T_OPAQUE:
    case H5T_ENUM:
    case H5T_TIME: return 0;
    case H5T_STRING: return H5Tis_variable_str(memtype) != 0;
    default: return 1;
  }
}

// the read itself: on an attribute (is_attr) or a whole dataset
static herr_t do_read(hid_t obj, int is_attr, hid_t memtype, void* buf) {
  return is_attr ? H5Aread(obj, memtype, buf)
                 : H5Dread(obj, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
}

// number of elements of the object's dataspace; 0 on error
static size_t n_points(hid_t obj, int is_attr) {
  hid_t sp = is_attr ? H5Aget_space(obj) : H5Dget_space(obj);
  if (sp < 0) return 0;
  hssize_t np = H5Sget_simple_extent_npoints(sp);
  H5Sclose(sp);
  return np > 0 ? (size_t)np : 0;
}

int h5guard_dset_ok(hid_t dset, char* why, size_t n) {
  if (why && n) why[0] = '\0';
  hid_t dcpl = H5Dget_create_plist(dset);
  H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
  if (dcpl >= 0) H5Pclose(dcpl);
  if (layout != H5D_COMPACT) return 1;
  hid_t t = H5Dget_type(dset);
  size_t esz = t >= 0 ? H5Tget_size(t) : 0;
  if (t >= 0) H5Tclose(t);
  size_t np = n_points(dset, 0);
  hsize_t have = H5Dget_storage_size(dset);
  if (esz > 0 && np > 0 && have / esz >= np) return 1;  // (division: no overflow)
  if (why)
    snprintf(why, n, "compact dataset of %zu elements of %zu bytes stores %llu bytes", np, esz,
             (unsigned long long)have);
  return np == 0;
}

// in the child: the same read into a scratch buffer, then _exit (no atexit handlers, no HDF5
// close, no leak check). The crash signals get their default action, so a fault in libhdf5
// kills the child instead of running a sanitizer's or fuzzer's handler.
static void child_signals(void);

// end a probe child: the verdict byte, then _exit
static void child_done(int code) {
  char b = (char)code;
  if (write(g_result_fd, &b, 1) != 1) code = 99;
  _exit(code);
}

static void child_read(hid_t obj, int is_attr, hid_t memtype) {
  child_signals();
  size_t np = n_points(obj, is_attr);
  size_t esz = H5Tget_size(memtype);
  void* buf = calloc(np ? np : 1, esz ? esz : 1);
  if (!buf) child_done(CHILD_READ_FAILED);
  int ok = do_read(obj, is_attr, memtype, buf) >= 0;
  free(buf);  // (vlen data HDF5 allocated is dropped with the child)
  child_done(ok ? CHILD_READ_OK : CHILD_READ_FAILED);
}

// the crash signals back to their default action in a probe child
static void child_signals(void) {
  const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
  for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) signal(sigs[k], SIG_DFL);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);  // the parent reports, once
}

// wait for a probe child (rfd: the read end of its verdict pipe, closed here): H5GUARD_OK,
// H5GUARD_FAILED (the read returned an error) or H5GUARD_CRASHED with why
static int wait_child(pid_t pid, int rfd, char* why, size_t n) {
  int ws = 0;
  pid_t r;
  do r = waitpid(pid, &ws, 0);
  while (r < 0 && errno == EINTR);
  char b = -1;
  ssize_t got;
  do got = read(rfd, &b, 1);  // the child has ended: its byte or end of file
  while (got < 0 && errno == EINTR);
  close(rfd);
  if (got == 1 && b == CHILD_READ_OK) return H5GUARD_OK;
  if (got == 1 && b == CHILD_READ_FAILED) return H5GUARD_FAILED;
  if (r < 0) {
    if (why) snprintf(why, n, "lost the probe process: %s", strerror(errno));
    return H5GUARD_CRASHED;
  }
  if (why) {
    if (WIFSIGNALED(ws))
      snprintf(why, n, "HDF5 crashed reading it (killed by signal %d, %s)", WTERMSIG(ws),
               strsignal(WTERMSIG(ws)));
    else
      snprintf(why, n, "HDF5 failed reading it (probe exit status %d)", WEXITSTATUS(ws));
  }
  return H5GUARD_CRASHED;
}

// fork for a probe, *rfd the read end of its verdict pipe (parent); -1 (why set) when no pipe
// or process can be made: refuse rather than risk the crash
static pid_t probe_fork(int* rfd, char* why, size_t n) {
  int fds[2];
  if (pipe(fds) != 0) {
    if (why) snprintf(why, n, "cannot make a pipe for a probe process: %s", strerror(errno));
    return -1;
  }
  fflush(NULL);  // nothing buffered is written twice (the child ends with _exit anyway)
  pid_t pid = fork();
  if (pid < 0) {
    if (why) snprintf(why, n, "cannot fork a probe process: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    g_result_fd = fds[1];
  } else {
    close(fds[1]);
    *rfd = fds[0];
  }
  return pid;
}

static int guarded_read(hid_t obj, int is_attr, hid_t memtype, void* buf, char* why, size_t n) {
  if (why && n) why[0] = '\0';
  if (!is_attr && !h5guard_dset_ok(obj, why, n)) return H5GUARD_CRASHED;
  if (has_vlen(memtype)) {
    int rfd = -1;
    pid_t pid = probe_fork(&rfd, why, n);
    if (pid < 0) return H5GUARD_CRASHED;
    if (pid == 0) child_read(obj, is_attr, memtype);
    int r = wait_child(pid, rfd, why, n);
    if (r != H5GUARD_OK) return r;
  }
  return do_read(obj, is_attr, memtype, buf) >= 0 ? H5GUARD_OK : H5GUARD_FAILED;
}

int h5guard_probe(int (*fn)(void* ctx), void* ctx, char* why, size_t n) {
  if (why && n) why[0] = '\0';
  int rfd = -1;
  pid_t pid = probe_fork(&rfd, why, n);
  if (pid < 0) return H5GUARD_CRASHED;
  if (pid == 0) {
    child_signals();
    child_done(fn(ctx) == 0 ? CHILD_READ_OK : CHILD_READ_FAILED);
  }
  int r = wait_child(pid, rfd, why, n);
  return r == H5GUARD_FAILED ? H5GUARD_OK : r;
}

int h5guard_aread(hid_t attr, hid_t memtype, void* buf, char* why, size_t n) {
  return guarded_read(attr, 1, memtype, buf, why, n);
}

int h5guard_dread(hid_t dset, hid_t memtype, void* buf, char* why, size_t n) {
  return guarded_read(dset, 0, memtype, buf, why, n);
}
