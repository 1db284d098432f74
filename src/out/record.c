// record.c — HDF5 output layer: chunk-buffered extendible datasets (see record.h).
#define _GNU_SOURCE  // memfd_create (Linux), for divert()
#include "out/record.h"

#include <errno.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out/h5err.h"

#define CHUNK_TARGET_BYTES 65536   // automatic chunk size target
#define CHUNK_MIN_ROWS 64          // automatic chunk rows lower bound
#define CHUNK_MAX_ROWS 8192        // automatic chunk rows upper bound

struct rec_dataset {
  rec_file* file;          // owner
  char* path;              // absolute dataset path
  hid_t id;                // open dataset
  hid_t memtype;           // native memory type (predefined, not closed)
  rec_type type;           // element type
  size_t ncols;            // 0 for 1-D
  size_t rowlen;           // elements per row = max(ncols, 1)
  size_t rowbytes;         // bytes per row
  size_t chunk_rows;       // rows per chunk = rows the buffer holds
  size_t base;             // rows on disk before the buffer (multiple of chunk_rows)
  size_t nbuf;             // rows in the buffer
  size_t nflushed;         // buffer rows already written by a flush
  size_t extent;           // current dataset extent (rows)
  unsigned char* buf;      // chunk_rows * rowbytes
};

// files whose H5Fclose failed in this process (see rec_unclosed)
static int g_unclosed = 0;

struct rec_file {
  char* path;              // file path as given
  hid_t fid;               // open HDF5 file
  int gzip;                // deflate level for new datasets (0 = none)
  size_t chunk_rows;       // chunk rows for new datasets (0 = automatic)
  long long steps;         // rec_step count
  int failed;              // a write failed: refuse further appends
  int diverted;            // HDF5's descriptor now points at a scratch memfd (see divert)
  dev_t dev;               // identity of the file created, to notice removal or replacement
  ino_t ino;
  rec_dataset** ds;        // datasets (nds)
  size_t nds, cap;
};

//---- HDF5 error translation ----

// close an HDF5 handle (ignored when < 0) without losing the error stack of an earlier failure:
// every HDF5 API call clears the stack on entry, so cleanup would erase the message h5err_fail reads
static void h5close(herr_t (*close_fn)(hid_t), hid_t id) {
  if (id < 0) return;
  hid_t saved = H5Eget_current_stack();
  close_fn(id);
  if (saved >= 0) H5Eset_current_stack(saved);
}

// copy a string to the heap (NULL on allocation failure)
static char* dup_string(const char* s) {
  size_t n = strlen(s) + 1;
  char* c = malloc(n);
  if (c) memcpy(c, s, n);
  return c;
}

// after a write error, point HDF5's file descriptor at an anonymous in-memory file, so that
// nothing more reaches the real file (it keeps the state of the last successful flush) and
// H5Fclose succeeds: HDF5 1.10 crashes at exit (H5F__close_cb) after a failed H5Fclose
static void divert(rec_file* f) {
  f->failed = 1;
  if (f->diverted) return;
  void* handle = NULL;
  if (H5Fget_vfd_handle(f->fid, H5P_DEFAULT, &handle) < 0 || !handle) {
    H5Eclear2(H5E_DEFAULT);
    return;
  }
  int fd = *(int*)handle;
  int scratch = memfd_create("csim-discard", 0);
  if (scratch < 0) return;
  if (dup2(scratch, fd) >= 0) f->diverted = 1;
  close(scratch);
}

//---- attributes ----

// write an attribute on an open object, in place when one of the same type and size exists,
// else (re)created
//   loc: open file/group/dataset; ftype: file type; mtype: memory type; n: 0 scalar, else 1-D n
static herr_t write_attr(hid_t loc, const char* name, hid_t ftype, hid_t mtype, size_t n,
                         const void* buf) {
  hid_t space = -1, a = -1;
  herr_t rc = -1;
  htri_t ex = H5Aexists(loc, name);
  if (ex < 0) return -1;
  // reuse an existing attribute of identical type and size
  if (ex > 0) {
    a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t at = H5Aget_type(a), as = H5Aget_space(a);
    int same = at >= 0 && as >= 0 && H5Tequal(at, ftype) > 0 &&
               H5Sget_simple_extent_ndims(as) == (n ? 1 : 0) &&
               H5Sget_simple_extent_npoints(as) == (hssize_t)(n ? n : 1);
    h5close(H5Tclose, at);
    h5close(H5Sclose, as);
    if (same) {
      rc = H5Awrite(a, mtype, buf);
      h5close(H5Aclose, a);
      return rc;
    }
    H5Aclose(a);
    a = -1;
    if (H5Adelete(loc, name) < 0) return -1;
  }
  // create a new one
  if (n == 0) {
    space = H5Screate(H5S_SCALAR);
  } else {
    hsize_t dim = (hsize_t)n;
    space = H5Screate_simple(1, &dim, NULL);
  }
  if (space < 0) return -1;
  a = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0) rc = H5Awrite(a, mtype, buf);
  h5close(H5Aclose, a);
  h5close(H5Sclose, space);
  return rc;
}

// variable-length UTF-8 string type (caller closes)
static hid_t vlen_string_type(void) {
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t < 0) return -1;
  if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    h5close(H5Tclose, t);
    return -1;
  }
  return t;
}

// write a vlen string attribute on an open object
static herr_t write_string_attr(hid_t loc, const char* name, const char* value) {
  hid_t t = vlen_string_type();
  if (t < 0) return -1;
  const char* v = value ? value : "";
  herr_t rc = write_attr(loc, name, t, t, 0, &v);
  h5close(H5Tclose, t);
  return rc;
}

// open the object an attribute goes on (root for NULL or "/"); *close_it says whether to close
static hid_t open_attr_target(rec_file* f, const char* obj, int* close_it) {
  *close_it = 0;
  if (!obj || !obj[0] || strcmp(obj, "/") == 0) return f->fid;
  htri_t ex = H5Lexists(f->fid, obj, H5P_DEFAULT);
  if (ex <= 0) return -1;
  hid_t o = H5Oopen(f->fid, obj, H5P_DEFAULT);
  if (o >= 0) *close_it = 1;
  return o;
}

// common path of the rec_attr_* setters
static csim_status set_attr(rec_file* f, const char* obj, const char* name, hid_t ftype,
                            hid_t mtype, size_t n, const void* buf, csim_error* err) {
  if (!f || !name || !name[0])
    return err_set(err, CSIM_ERR_INPUT, f ? f->path : NULL, 0, 0, name,
                   "attribute needs an open file and a non-empty name");
  int close_it;
  hid_t loc = open_attr_target(f, obj, &close_it);
  if (loc < 0)
    return h5err_fail(err, CSIM_ERR_INPUT, f->path, obj, "cannot set attribute '%s': object '%s' not found",
                  name, obj);
  herr_t rc = write_attr(loc, name, ftype, mtype, n, buf);
  if (close_it) h5close(H5Oclose, loc);
  if (rc < 0)
    return h5err_fail(err, CSIM_ERR_RUN, f->path, name, "cannot write attribute '%s' on '%s'", name,
                  obj ? obj : "/");
  return CSIM_OK;
}

// set a vlen UTF-8 string attribute on the root or an object
csim_status rec_attr_string(rec_file* f, const char* obj, const char* name, const char* value,
                            csim_error* err) {
  hid_t t = vlen_string_type();
  if (t < 0) return h5err_fail(err, CSIM_ERR_RUN, f ? f->path : NULL, name, "cannot make string type");
  const char* v = value ? value : "";
  csim_status st = set_attr(f, obj, name, t, t, 0, &v, err);
  H5Tclose(t);
  return st;
}

// set a scalar float64 attribute
csim_status rec_attr_double(rec_file* f, const char* obj, const char* name, double value,
                            csim_error* err) {
  return set_attr(f, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &value, err);
}

// set a scalar int32 attribute
csim_status rec_attr_int(rec_file* f, const char* obj, const char* name, int value,
                         csim_error* err) {
  int32_t v = (int32_t)value;
  return set_attr(f, obj, name, H5T_STD_I32LE, H5T_NATIVE_INT32, 0, &v, err);
}

// set a 1-D float64 array attribute
csim_status rec_attr_doubles(rec_file* f, const char* obj, const char* name, const double* values,
                             size_t n, csim_error* err) {
  if (!values || n == 0)
    return err_set(err, CSIM_ERR_INPUT, f ? f->path : NULL, 0, 0, name,
                   "array attribute needs at least one value");
  return set_attr(f, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, values, err);
}

//---- file ----

// check that the directory holding path exists; CSIM_ERR_INPUT naming it otherwise
static csim_status check_parent_dir(const char* path, csim_error* err) {
  const char* slash = strrchr(path, '/');
  char dir[1024];
  if (!slash) {
    snprintf(dir, sizeof(dir), ".");
  } else if (slash == path) {
    snprintf(dir, sizeof(dir), "/");
  } else {
    size_t n = (size_t)(slash - path);
    if (n >= sizeof(dir)) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "path too long");
    memcpy(dir, path, n);
    dir[n] = '\0';
  }
  struct stat sb;
  if (stat(dir, &sb) != 0)
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL,
                   "cannot create output file: directory '%s' does not exist (%s)", dir,
                   strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL,
                   "cannot create output file: '%s' is not a directory", dir);
  return CSIM_OK;
}

// an existing file is overwritten only when it is an (empty or) HDF5 regular file: --out
// naming the scenario, a URDF or a mesh by mistake must not destroy it
static csim_status check_overwrite(const char* path, csim_error* err) {
  struct stat sb;
  if (stat(path, &sb) != 0 || S_ISDIR(sb.st_mode)) return CSIM_OK;  // new; HDF5 names a directory
  if (!S_ISREG(sb.st_mode))
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL,
                   "cannot write the output here: it exists and is not a regular file");
  if (sb.st_size == 0) return CSIM_OK;
  htri_t is5 = H5Fis_hdf5(path);
  H5Eclear2(H5E_DEFAULT);
  if (is5 <= 0)
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL,
                   "refusing to overwrite an existing file that is not HDF5 (an input such as the "
                   "scenario, a URDF or a mesh?): choose another output path");
  return CSIM_OK;
}

// write the root attributes complete and steps_written
static herr_t write_progress(rec_file* f, int complete) {
  int32_t c = complete;
  int64_t s = (int64_t)f->steps;
  if (write_attr(f->fid, "complete", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, &c) < 0) return -1;
  return write_attr(f->fid, "steps_written", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &s);
}

// create the file, marked incomplete (complete = 0, steps_written = 0)
csim_status rec_open(const char* path, rec_file** out, csim_error* err) {
  if (out) *out = NULL;
  if (!path || !path[0] || !out)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "output path is empty");
  // silence HDF5's own error printing: errors come back as csim_error
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  csim_status st = check_parent_dir(path, err);
  if (st != CSIM_OK) return st;
  st = check_overwrite(path, err);
  if (st != CSIM_OK) return st;

  rec_file* f = calloc(1, sizeof(*f));
  char* p = dup_string(path);
  if (!f || !p) {
    free(f);
    free(p);
    return err_set(err, CSIM_ERR_RUN, path, 0, 0, NULL, "out of memory");
  }
  f->path = p;

  // no object modification times, so identical runs give identical files
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  if (fcpl >= 0 && H5Pset_obj_track_times(fcpl, 0) < 0) H5Eclear2(H5E_DEFAULT);
  f->fid = H5Fcreate(path, H5F_ACC_TRUNC, fcpl >= 0 ? fcpl : H5P_DEFAULT, H5P_DEFAULT);
  h5close(H5Pclose, fcpl);
  if (f->fid < 0) {
    st = h5err_fail(err, CSIM_ERR_INPUT, path, NULL, "cannot create HDF5 file");
    free(f->path);
    free(f);
    return st;
  }
  // remember which file was created (check_identity)
  struct stat sb;
  if (stat(path, &sb) == 0) {
    f->dev = sb.st_dev;
    f->ino = sb.st_ino;
  }
  // incomplete until rec_close(success = 1)
  if (write_progress(f, 0) < 0 || H5Fflush(f->fid, H5F_SCOPE_GLOBAL) < 0) {
    st = h5err_fail(err, CSIM_ERR_RUN, path, "complete", "cannot write root attributes");
    H5Fclose(f->fid);
    free(f->path);
    free(f);
    return st;
  }
  *out = f;
  return CSIM_OK;
}

// gzip level for datasets added afterwards
csim_status rec_set_compression(rec_file* f, int level, csim_error* err) {
  if (!f) return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "no file");
  if (level < 0 || level > 9)
    return err_set(err, CSIM_ERR_INPUT, f->path, 0, 0, "compression",
                   "expected a gzip level in 0..9, got %d", level);
  if (level > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
    return h5err_fail(err, CSIM_ERR_INPUT, f->path, "compression",
                  "gzip (deflate) filter is not available in this HDF5 build");
  f->gzip = level;
  return CSIM_OK;
}

// chunk rows for datasets added afterwards (0 = automatic)
csim_status rec_set_chunk_rows(rec_file* f, size_t rows, csim_error* err) {
  if (!f) return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "no file");
  if (rows > ((size_t)1 << 24))
    return err_set(err, CSIM_ERR_INPUT, f->path, 0, 0, "chunk_rows",
                   "expected at most 16777216 rows per chunk, got %zu", rows);
  f->chunk_rows = rows;
  return CSIM_OK;
}

// count one recorded step
void rec_step(rec_file* f) {
  if (f) f->steps++;
}

// file path as given to rec_open
const char* rec_path(const rec_file* f) {
  return f ? f->path : NULL;
}

//---- datasets ----

// write the buffer rows [base, base + nbuf) to the dataset, growing its extent as needed
static csim_status write_buffer(rec_dataset* d, csim_error* err) {
  rec_file* f = d->file;
  int rank = d->ncols ? 2 : 1;
  hsize_t dims[2] = {(hsize_t)(d->base + d->nbuf), (hsize_t)d->ncols};
  hsize_t start[2] = {(hsize_t)d->base, 0};
  hsize_t count[2] = {(hsize_t)d->nbuf, (hsize_t)d->ncols};
  // grow the row dimension
  if (d->base + d->nbuf > d->extent) {
    if (H5Dset_extent(d->id, dims) < 0) goto fail;
    d->extent = d->base + d->nbuf;
  }
  // hyperslab of the buffered rows
  hid_t fs = H5Dget_space(d->id);
  if (fs < 0) goto fail;
  hid_t ms = H5Screate_simple(rank, count, NULL);
  herr_t rc = ms < 0 ? -1 : H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  if (rc >= 0) rc = H5Dwrite(d->id, d->memtype, ms, fs, H5P_DEFAULT, d->buf);
  h5close(H5Sclose, ms);
  h5close(H5Sclose, fs);
  if (rc < 0) goto fail;
  return CSIM_OK;
fail:;
  // the message first: divert() makes HDF5 calls that clear its error stack
  csim_status st = h5err_fail(err, CSIM_ERR_RUN, f->path, d->path, "cannot write rows %zu..%zu",
                          d->base, d->base + d->nbuf);
  divert(f);
  return st;
}

// check a path is absolute with non-empty components other than "." and ".."
static int valid_path(const char* p) {
  if (!p || p[0] != '/' || p[1] == '\0') return 0;
  size_t n = strlen(p);
  if (p[n - 1] == '/') return 0;
  const char* c = p + 1;
  while (*c) {
    const char* e = strchr(c, '/');
    size_t len = e ? (size_t)(e - c) : strlen(c);
    if (len == 0) return 0;
    if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) return 0;
    c += len;
    if (*c == '/') c++;
  }
  return 1;
}

// create the groups along an absolute dataset path (all but the last component)
static csim_status make_groups(rec_file* f, const char* path, csim_error* err) {
  size_t n = strlen(path);
  char* pre = malloc(n + 1);
  if (!pre) return err_set(err, CSIM_ERR_RUN, f->path, 0, 0, path, "out of memory");
  csim_status st = CSIM_OK;
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  if (gcpl >= 0 && H5Pset_obj_track_times(gcpl, 0) < 0) H5Eclear2(H5E_DEFAULT);
  // each '/' after the first ends a group prefix
  for (size_t i = 1; i < n && st == CSIM_OK; i++) {
    if (path[i] != '/') continue;
    memcpy(pre, path, i);
    pre[i] = '\0';
    htri_t ex = H5Lexists(f->fid, pre, H5P_DEFAULT);
    if (ex < 0) {
      st = h5err_fail(err, CSIM_ERR_INPUT, f->path, pre, "cannot look up group");
    } else if (ex > 0) {
      // an existing link must be a group
      hid_t o = H5Oopen(f->fid, pre, H5P_DEFAULT);
      H5I_type_t t = o >= 0 ? H5Iget_type(o) : H5I_BADID;
      if (o >= 0) H5Oclose(o);
      if (t != H5I_GROUP)
        st = err_set(err, CSIM_ERR_INPUT, f->path, 0, 0, path, "'%s' exists and is not a group", pre);
    } else {
      hid_t g = H5Gcreate2(f->fid, pre, H5P_DEFAULT, gcpl >= 0 ? gcpl : H5P_DEFAULT, H5P_DEFAULT);
      if (g < 0)
        st = h5err_fail(err, CSIM_ERR_RUN, f->path, pre, "cannot create group");
      else
        H5Gclose(g);
    }
  }
  if (gcpl >= 0) H5Pclose(gcpl);
  free(pre);
  return st;
}

// element size, file type and memory type of a rec_type; 0 for an unknown type
static size_t type_info(rec_type t, hid_t* ftype, hid_t* mtype) {
  switch (t) {
    case REC_F64: *ftype = H5T_IEEE_F64LE; *mtype = H5T_NATIVE_DOUBLE; return 8;
    case REC_I32: *ftype = H5T_STD_I32LE; *mtype = H5T_NATIVE_INT32; return 4;
    case REC_U8: *ftype = H5T_STD_U8LE; *mtype = H5T_NATIVE_UINT8; return 1;
  }
  return 0;
}

// free a dataset record (closing its HDF5 handle)
static void free_dataset(rec_dataset* d) {
  if (!d) return;
  if (d->id >= 0) H5Dclose(d->id);
  free(d->buf);
  free(d->path);
  free(d);
}

// declare a chunked, row-extendible dataset with its one-chunk buffer
csim_status rec_add(rec_file* f, const char* path, rec_type type, size_t ncols, const char* units,
                    const char* description, rec_dataset** out, csim_error* err) {
  if (out) *out = NULL;
  if (!f || !out) return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, path, "no file");
  if (!valid_path(path))
    return err_set(err, CSIM_ERR_INPUT, f->path, 0, 0, path ? path : "",
                   "expected an absolute dataset path like /state/q");
  hid_t ftype = -1, mtype = -1;
  size_t esize = type_info(type, &ftype, &mtype);
  if (esize == 0)
    return err_set(err, CSIM_ERR_INPUT, f->path, 0, 0, path, "unknown element type %d", (int)type);
  if (ncols > ((size_t)1 << 24))
    return err_set(err, CSIM_ERR_INPUT, f->path, 0, 0, path, "too many columns (%zu)", ncols);
  htri_t ex = H5Lexists(f->fid, path, H5P_DEFAULT);
  if (ex > 0) return err_set(err, CSIM_ERR_INPUT, f->path, 0, 0, path, "dataset declared twice");
  H5Eclear2(H5E_DEFAULT);  // a missing intermediate group makes H5Lexists fail: that is fine
  csim_status st = make_groups(f, path, err);
  if (st != CSIM_OK) return st;

  // the record and its one-chunk buffer
  rec_dataset* d = calloc(1, sizeof(*d));
  if (!d) return err_set(err, CSIM_ERR_RUN, f->path, 0, 0, path, "out of memory");
  d->id = -1;
  d->file = f;
  d->type = type;
  d->memtype = mtype;
  d->ncols = ncols;
  d->rowlen = ncols ? ncols : 1;
  d->rowbytes = d->rowlen * esize;
  d->chunk_rows = f->chunk_rows;
  if (d->chunk_rows == 0) {
    d->chunk_rows = CHUNK_TARGET_BYTES / d->rowbytes;
    if (d->chunk_rows < CHUNK_MIN_ROWS) d->chunk_rows = CHUNK_MIN_ROWS;
    if (d->chunk_rows > CHUNK_MAX_ROWS) d->chunk_rows = CHUNK_MAX_ROWS;
  }
  d->path = dup_string(path);
  d->buf = malloc(d->chunk_rows * d->rowbytes);
  if (!d->path || !d->buf) {
    free_dataset(d);
    return err_set(err, CSIM_ERR_RUN, f->path, 0, 0, path, "out of memory");
  }
  // grow the file's dataset list
  if (f->nds == f->cap) {
    size_t cap = f->cap ? 2 * f->cap : 32;
    rec_dataset** nd = realloc(f->ds, cap * sizeof(*nd));
    if (!nd) {
      free_dataset(d);
      return err_set(err, CSIM_ERR_RUN, f->path, 0, 0, path, "out of memory");
    }
    f->ds = nd;
    f->cap = cap;
  }

  // chunked, extendible in rows, no timestamps, optional shuffle + gzip
  int rank = ncols ? 2 : 1;
  hsize_t dims[2] = {0, (hsize_t)ncols};
  hsize_t maxdims[2] = {H5S_UNLIMITED, (hsize_t)ncols};
  hsize_t chunk[2] = {(hsize_t)d->chunk_rows, (hsize_t)ncols};
  hid_t space = H5Screate_simple(rank, dims, maxdims);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
  herr_t rc = (space < 0 || dcpl < 0 || dapl < 0) ? -1 : 0;
  if (rc >= 0) rc = H5Pset_chunk(dcpl, rank, chunk);
  if (rc >= 0) rc = H5Pset_obj_track_times(dcpl, 0);
  if (rc >= 0 && f->gzip > 0) rc = H5Pset_shuffle(dcpl);
  if (rc >= 0 && f->gzip > 0) rc = H5Pset_deflate(dcpl, (unsigned)f->gzip);
  // whole chunks are written once: bypass the chunk cache
  if (rc >= 0) rc = H5Pset_chunk_cache(dapl, 0, 0, 1.0);
  if (rc >= 0) d->id = H5Dcreate2(f->fid, path, ftype, space, H5P_DEFAULT, dcpl, dapl);
  h5close(H5Sclose, space);
  h5close(H5Pclose, dcpl);
  h5close(H5Pclose, dapl);
  if (rc < 0 || d->id < 0) {
    st = h5err_fail(err, CSIM_ERR_RUN, f->path, path, "cannot create dataset");
    free_dataset(d);
    return st;
  }
  // units and description
  if (write_string_attr(d->id, "units", units) < 0 ||
      write_string_attr(d->id, "description", description) < 0) {
    st = h5err_fail(err, CSIM_ERR_RUN, f->path, path, "cannot write units/description attributes");
    free_dataset(d);
    return st;
  }
  f->ds[f->nds++] = d;
  *out = d;
  return CSIM_OK;
}

// append one row (a memcpy; a chunk write when the buffer fills)
csim_status rec_append(rec_dataset* d, const void* row, csim_error* err) {
  return rec_append_rows(d, row, 1, err);
}

// append nrows contiguous rows
csim_status rec_append_rows(rec_dataset* d, const void* rows, size_t nrows, csim_error* err) {
  if (!d) return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "no dataset");
  if (d->file->failed)
    return err_set(err, CSIM_ERR_RUN, d->file->path, 0, 0, d->path,
                   "an earlier write to this file failed");
  if (nrows && !rows) return err_set(err, CSIM_ERR_INPUT, d->file->path, 0, 0, d->path, "no data");
  const unsigned char* src = rows;
  // fill the buffer; write each chunk as it completes
  while (nrows > 0) {
    size_t k = d->chunk_rows - d->nbuf;
    if (k > nrows) k = nrows;
    memcpy(d->buf + d->nbuf * d->rowbytes, src, k * d->rowbytes);
    d->nbuf += k;
    src += k * d->rowbytes;
    nrows -= k;
    if (d->nbuf == d->chunk_rows) {
      csim_status st = write_buffer(d, err);
      if (st != CSIM_OK) return st;
      d->base += d->chunk_rows;
      d->nbuf = 0;
      d->nflushed = 0;
    }
  }
  return CSIM_OK;
}

// rows appended so far
size_t rec_rows(const rec_dataset* d) {
  return d ? d->base + d->nbuf : 0;
}

// rows per chunk
size_t rec_chunk_rows(const rec_dataset* d) {
  return d ? d->chunk_rows : 0;
}

// the path must still name the file created: a removed file (or directory) or one replaced
// by another would make every later row go to a file nobody can open
static csim_status check_identity(rec_file* f, csim_error* err) {
  struct stat sb;
  if (stat(f->path, &sb) != 0)
    return err_set(err, CSIM_ERR_RUN, f->path, 0, 0, NULL,
                   "output file disappeared during the run (%s): was it or its directory "
                   "removed?", strerror(errno));
  if (sb.st_dev != f->dev || sb.st_ino != f->ino)
    return err_set(err, CSIM_ERR_RUN, f->path, 0, 0, NULL,
                   "output file was replaced by another file during the run");
  return CSIM_OK;
}

// write partial buffers, steps_written, then H5Fflush
csim_status rec_flush(rec_file* f, csim_error* err) {
  if (!f) return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "no file");
  if (f->failed)
    return err_set(err, CSIM_ERR_RUN, f->path, 0, 0, NULL, "an earlier write to this file failed");
  // partial buffers go to disk but stay buffered, so the full chunk is later written whole
  for (size_t i = 0; i < f->nds; i++) {
    rec_dataset* d = f->ds[i];
    if (d->nbuf > d->nflushed) {
      csim_status st = write_buffer(d, err);
      if (st != CSIM_OK) return st;
      d->nflushed = d->nbuf;
    }
  }
  // progress attribute, then HDF5 metadata to disk
  csim_status st = CSIM_OK;
  if (write_progress(f, 0) < 0)
    st = h5err_fail(err, CSIM_ERR_RUN, f->path, "steps_written", "cannot write root attribute");
  else if (H5Fflush(f->fid, H5F_SCOPE_GLOBAL) < 0)
    st = h5err_fail(err, CSIM_ERR_RUN, f->path, NULL, "cannot flush file");
  else
    st = check_identity(f, err);
  if (st != CSIM_OK) divert(f);
  return st;
}

// flush, mark complete or failed, close and free
csim_status rec_close(rec_file* f, int success, const char* failure_msg, csim_error* err) {
  if (!f) return CSIM_OK;
  csim_status st = CSIM_OK;
  int was_failed = f->failed;
  // flush rows; then the outcome attributes, flushed before H5Fclose so that a write error
  // is met here (and diverted) rather than inside H5Fclose
  if (!was_failed) st = rec_flush(f, err);
  if (st == CSIM_OK && !was_failed) {
    herr_t rc = 0;
    if (success) {
      rc = write_progress(f, 1);
    } else {
      rc = write_string_attr(f->fid, "failure", failure_msg ? failure_msg : "run failed");
    }
    if (rc >= 0) rc = H5Fflush(f->fid, H5F_SCOPE_GLOBAL);
    if (rc < 0) {
      st = h5err_fail(err, CSIM_ERR_RUN, f->path, success ? "complete" : "failure",
                  "cannot write root attribute");
      divert(f);
    }
  } else if (was_failed) {
    // the file keeps the state of its last successful flush (complete = 0)
    st = err_set(err, CSIM_ERR_RUN, f->path, 0, 0, NULL,
                 "file left incomplete: an earlier write failed; it holds the rows of the last "
                 "successful flush (steps_written)");
  }
  // close everything, whatever happened above
  for (size_t i = 0; i < f->nds; i++) free_dataset(f->ds[i]);
  free(f->ds);
  if (H5Fclose(f->fid) < 0) {
    g_unclosed++;
    if (st == CSIM_OK) st = h5err_fail(err, CSIM_ERR_RUN, f->path, NULL, "cannot close file");
  }
  H5Eclear2(H5E_DEFAULT);
  free(f->path);
  free(f);
  return st;
}

// files HDF5 failed to close
int rec_unclosed(void) {
  return g_unclosed;
}
