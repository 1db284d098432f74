// h5err.h — HDF5 failures as csim errors: HDF5's innermost error description appended to what
// csim was doing (one copy for the record layer and the FCLib reader/writer).
#ifndef CSIM_H5ERR_H
#define CSIM_H5ERR_H

#include <stdarg.h>
#include <stddef.h>

#include "core/error.h"

// the innermost description on HDF5's error stack into buf (n bytes; "" when the stack is
// empty), then the stack cleared. Low-level I/O errors carry a timestamp, a newline and a
// buffer address: for them the text is "<where>: <the OS's reason>".
void h5err_innermost(char* buf, size_t n);

// fill err with "<what> (HDF5: <innermost description>)", or "<what>" when HDF5 has none, and
// clear HDF5's stack; path goes to err->file, key (may be NULL) to err->key; returns status
csim_status h5err_vfail(csim_error* err, csim_status status, const char* path, const char* key,
                        const char* fmt, va_list ap);
csim_status h5err_fail(csim_error* err, csim_status status, const char* path, const char* key,
                       const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#endif  // CSIM_H5ERR_H
