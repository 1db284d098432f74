// error.h — status codes and input-error reports shared by every module.
//
// Every fallible function returns a csim_status and, on failure, fills a caller-owned
// csim_error naming where the problem is (file, line, column, key) and what was expected.
// Status values are the process exit codes of DESIGN.md: 0 success, 1 run failed, 2 bad input.
#ifndef CSIM_ERROR_H
#define CSIM_ERROR_H

#include <stdio.h>

typedef enum {
  CSIM_OK = 0,          // success
  CSIM_ERR_RUN = 1,     // the run failed (divergence, non-convergence policy, I/O during a run)
  CSIM_ERR_INPUT = 2,   // bad input: unreadable file, malformed YAML/XML/URDF, invalid value
} csim_status;

typedef struct {
  char file[512];   // file the problem is in ("" when none)
  int line;         // 1-based line, 0 when unknown
  int column;       // 1-based column, 0 when unknown
  char key[256];    // scenario key path, XML element or dataset name ("" when none)
  char msg[1024];   // what is wrong: what was expected and what was found
} csim_error;

// clear an error record
void err_clear(csim_error* e);

// fill an error record; any of file/key may be NULL; returns CSIM_ERR_INPUT for convenience
//   status: the status to return (CSIM_ERR_INPUT or CSIM_ERR_RUN)
csim_status err_set(csim_error* e, csim_status status, const char* file, int line, int column,
                    const char* key, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

// format as "file:line:column: key 'k': msg" (parts omitted when unknown) into buf
void err_format(const csim_error* e, char* buf, size_t n);

// print the formatted error and a newline to f, prefixed by "csim: error: "
void err_print(const csim_error* e, FILE* f);

// most bytes an input file (URDF, STL, ...) may have: reading more is refused, not attempted
#define ERR_MAX_INPUT_BYTES (1LL << 30)

// check that path names a regular file of at most ERR_MAX_INPUT_BYTES before it is opened:
// directories, FIFOs (opening one blocks), devices (/dev/zero never ends) and missing files
// are CSIM_ERR_INPUT naming the file; what ("URDF", "mesh") goes into the message
csim_status err_check_input_file(const char* path, const char* what, csim_error* e);

#endif  // CSIM_ERROR_H
