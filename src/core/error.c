// error.c — input-error records (see error.h).
#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

void err_clear(csim_error* e) {
  if (e) memset(e, 0, sizeof(*e));
}

csim_status err_set(csim_error* e, csim_status status, const char* file, int line, int column,
                    const char* key, const char* fmt, ...) {
  if (!e) return status;
  err_clear(e);
  if (file) snprintf(e->file, sizeof(e->file), "%s", file);
  if (key) snprintf(e->key, sizeof(e->key), "%s", key);
  e->line = line;
  e->column = column;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
  va_end(ap);
  return status;
}

void err_format(const csim_error* e, char* buf, size_t n) {
  size_t k = 0;
  buf[0] = '\0';
  // location: file[:line[:column]]
  if (e->file[0]) {
    k += (size_t)snprintf(buf + k, n - k, "%s", e->file);
    if (e->line > 0 && k < n) k += (size_t)snprintf(buf + k, n - k, ":%d", e->line);
    if (e->line > 0 && e->column > 0 && k < n) k += (size_t)snprintf(buf + k, n - k, ":%d", e->column);
    if (k < n) k += (size_t)snprintf(buf + k, n - k, ": ");
  }
  if (e->key[0] && k < n) k += (size_t)snprintf(buf + k, n - k, "'%s': ", e->key);
  if (k < n) snprintf(buf + k, n - k, "%s", e->msg);
}

void err_print(const csim_error* e, FILE* f) {
  char buf[2048];
  err_format(e, buf, sizeof(buf));
  fprintf(f, "csim: error: %s\n", buf);
}

// a regular, readable file of bounded size
csim_status err_check_input_file(const char* path, const char* what, csim_error* e) {
  struct stat sb;
  if (!path || !path[0]) return err_set(e, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "no %s file given", what);
  if (stat(path, &sb) != 0)
    return err_set(e, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot open %s: %s", what, strerror(errno));
  if (S_ISDIR(sb.st_mode))
    return err_set(e, CSIM_ERR_INPUT, path, 0, 0, NULL, "is a directory, expected a %s file", what);
  if (!S_ISREG(sb.st_mode))
    return err_set(e, CSIM_ERR_INPUT, path, 0, 0, NULL,
                   "is not a regular file (a FIFO, socket or device), expected a %s file", what);
  if ((long long)sb.st_size > ERR_MAX_INPUT_BYTES)
    return err_set(e, CSIM_ERR_INPUT, path, 0, 0, NULL, "%s file too large (%lld bytes, at most %lld)",
                   what, (long long)sb.st_size, ERR_MAX_INPUT_BYTES);
  return CSIM_OK;
}
