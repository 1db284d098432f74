// h5err.c — HDF5 failures as csim errors (see h5err.h).
#include "out/h5err.h"

#include <hdf5.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  char* buf;
  size_t n;
} walk_out;

// HDF5 error-stack walker (downward: the last call is the innermost): keep its description
static herr_t walk_innermost(unsigned n, const H5E_error2_t* e, void* data) {
  (void)n;
  walk_out* o = data;
  if (!e || !e->desc || !e->desc[0]) return 0;
  const char* m = strstr(e->desc, "error message = '");
  const char* end = m ? strchr(m + 17, '\'') : NULL;
  const char* colon = strchr(e->desc, ':');
  if (m && end && colon && colon < m)
    snprintf(o->buf, o->n, "%.*s: %.*s", (int)(colon - e->desc), e->desc, (int)(end - m - 17),
             m + 17);
  else
    snprintf(o->buf, o->n, "%s", e->desc);
  return 0;
}

void h5err_innermost(char* buf, size_t n) {
  if (!buf || n == 0) return;
  buf[0] = '\0';
  walk_out o = {buf, n};
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_innermost, &o);
  H5Eclear2(H5E_DEFAULT);
}

csim_status h5err_vfail(csim_error* err, csim_status status, const char* path, const char* key,
                        const char* fmt, va_list ap) {
  char what[768], h5[512];
  vsnprintf(what, sizeof(what), fmt, ap);
  h5err_innermost(h5, sizeof(h5));
  if (h5[0]) return err_set(err, status, path, 0, 0, key, "%s (HDF5: %s)", what, h5);
  return err_set(err, status, path, 0, 0, key, "%s", what);
}

csim_status h5err_fail(csim_error* err, csim_status status, const char* path, const char* key,
                       const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  csim_status st = h5err_vfail(err, status, path, key, fmt, ap);
  va_end(ap);
  return st;
}
