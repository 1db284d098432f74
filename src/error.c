// error.c — input-error records (see error.h).
#include "error.h"

#include <stdarg.h>
#include <string.h>

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
