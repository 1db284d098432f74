// record.h — the HDF5 output layer: append-only, chunked datasets written as a run goes.
//
// The record module is generic: it knows nothing of the model or the physics. The caller (cli /
// sim driver) declares every dataset up front with rec_add, then appends one row per recorded
// step (rec_append) or any number of rows per step for flat variable-length arrays such as the
// contacts (rec_append_rows). DESIGN.md "Output file" names the datasets and root attributes.
//
// Layout of a dataset: ncols == 0 gives a 1-D dataset (rows); ncols > 0 a 2-D one (rows x ncols).
// The row dimension is unlimited; the dataset is chunked by whole rows. Every dataset carries two
// string attributes, "units" and "description".
// A per-step quantity of varying length with a known bound (e.g. the Newton residual history
// /compliant/newton_history, compliant.h) is a 2-D dataset of that many columns padded with NaN,
// so a row is still appended without allocation.
//
// Speed: each dataset owns a row buffer of exactly one chunk, allocated by rec_add. rec_append
// only copies the row into the buffer (memcpy, no allocation, no HDF5 call); when the buffer
// holds a full chunk it is written with one hyperslab write after H5Dset_extent, always aligned
// on a chunk boundary, so HDF5 never reads a chunk back. Chunk rows default to ~64 KB per chunk,
// clamped to [64, 8192] rows (rec_set_chunk_rows overrides it). No compression by default;
// rec_set_compression(f, level) turns on shuffle + gzip for datasets added afterwards.
//
// Crash safety: rec_open creates (truncates) the file at `path` and sets the root attributes
// complete = 0 and steps_written = 0. rec_flush writes every partially filled buffer (the rows
// stay in the buffer, so the next full chunk is still written whole and aligned), stores
// steps_written (the count of rec_step calls) and calls H5Fflush: a process killed after a flush,
// before any further chunk write, leaves a readable file holding every row appended before the
// flush and complete = 0. (Killed in the middle of later HDF5 writes, the file is as HDF5 left
// it: non-SWMR HDF5 gives no stronger guarantee.) rec_close(f, 1, NULL) flushes and sets
// complete = 1; rec_close(f, 0, "why") flushes, keeps complete = 0 and writes the root string
// attribute failure = "why" (e.g. "interrupted by SIGINT at step 1234", "diverged at step 88").
//
// Signals: this module installs no signal handler. The caller installs SIGINT/SIGTERM handlers
// that only set a volatile sig_atomic_t flag; the step loop checks the flag once per step and
// ends the run with rec_close(f, 0, "interrupted by SIGINT at step N", err).
//
// Determinism: the same sequence of rec_add / rec_append(_rows) gives identical dataset contents
// whatever the flush pattern; object modification times are not stored (H5Pset_obj_track_times
// off) and no timestamp attribute is written, so two runs with the same calls give the same bytes.
//
// Write errors (full disk, file-size limit with SIGXFSZ ignored): the first failed HDF5 write
// or flush "diverts" the file: HDF5's file descriptor is pointed (dup2) at an anonymous memfd,
// so nothing more reaches the real file, which keeps the state of its last successful flush
// (readable, complete = 0, steps_written rows), unless the failure hit a flush itself half-way,
// where the file is as the file system left it. rec_flush also checks that the path still
// names the file created (not removed, nor its directory, nor replaced): CSIM_ERR_RUN if not.
//
// Errors: rec_open silences HDF5's automatic error-stack printing for the process
// (H5Eset_auto(H5E_DEFAULT, NULL, NULL), HDF5 library state, left so). Every HDF5 failure is
// translated into a csim_error naming the file (err->file) and dataset or attribute (err->key),
// with HDF5's innermost error description in the message. A write failure during the run
// returns CSIM_ERR_RUN; bad arguments (bad path, missing directory, duplicate dataset) return
// CSIM_ERR_INPUT. After a failed write the file is marked failed and later appends are refused.
//
// Strings (attribute values) are stored as variable-length UTF-8 strings, which h5py reads as
// Python str and which have no 64 KB object-header limit (the scenario text can be long).
#ifndef CSIM_RECORD_H
#define CSIM_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

// element type of a dataset (file types are little-endian IEEE f64, int32, uint8)
typedef enum {
  REC_F64 = 0,   // double
  REC_I32 = 1,   // int32_t
  REC_U8 = 2,    // uint8_t (flags, booleans)
} rec_type;

typedef struct rec_file rec_file;        // an open output file
typedef struct rec_dataset rec_dataset;  // one extendible dataset, owned by its rec_file

//---- file ----

// create (truncate) the HDF5 file at path; root attributes complete = 0, steps_written = 0.
// The parent directory must exist (no directory is created): a missing one is CSIM_ERR_INPUT
// naming the directory. An existing file is replaced only when it is empty or HDF5: anything
// else (the scenario, a URDF, a mesh named as output by mistake, a device) is CSIM_ERR_INPUT.
csim_status rec_open(const char* path, rec_file** out, csim_error* err);

// gzip level (0 = none, the default; 1-9 = shuffle + deflate) for datasets added afterwards
csim_status rec_set_compression(rec_file* f, int level, csim_error* err);

// rows per chunk for datasets added afterwards (0 = automatic, ~64 KB per chunk)
csim_status rec_set_chunk_rows(rec_file* f, size_t rows, csim_error* err);

// count one recorded step (call once after appending a step's rows); written as steps_written
void rec_step(rec_file* f);

// write every buffered row, store steps_written and flush HDF5 to disk (see crash safety above)
csim_status rec_flush(rec_file* f, csim_error* err);

// flush, set complete = 1 (success != 0) or write failure = failure_msg (success == 0; NULL
// gives "run failed"), close and free everything. f is freed even when an error is returned.
// f may be NULL (no-op).
csim_status rec_close(rec_file* f, int success, const char* failure_msg, csim_error* err);

// number of files whose final H5Fclose failed in this process (e.g. the memfd scratch of a
// diverted file also hit a file-size limit). HDF5 1.10 then crashes in its atexit cleanup
// (H5F__close_cb on a freed file), so a process with rec_unclosed() > 0 must end with _exit
// after flushing stdio; main.c does.
int rec_unclosed(void);

// path of the file as given to rec_open
const char* rec_path(const rec_file* f);

//---- attributes ----
// obj: NULL or "/" for the root group, else the absolute path of an existing dataset or group.
// An attribute that already exists is replaced.

// set a variable-length UTF-8 string attribute
csim_status rec_attr_string(rec_file* f, const char* obj, const char* name, const char* value,
                            csim_error* err);

// set a scalar double attribute
csim_status rec_attr_double(rec_file* f, const char* obj, const char* name, double value,
                            csim_error* err);

// set a scalar int32 attribute
csim_status rec_attr_int(rec_file* f, const char* obj, const char* name, int value,
                         csim_error* err);

// set a 1-D double array attribute of n values (n >= 1), e.g. gravity
csim_status rec_attr_doubles(rec_file* f, const char* obj, const char* name, const double* values,
                             size_t n, csim_error* err);

//---- datasets ----

// declare a dataset at an absolute path ("/state/q"); creates the groups along the path.
//   ncols: 0 for a 1-D dataset, else the row length of a 2-D dataset
//   units, description: stored as string attributes (NULL gives "")
// The row buffer is allocated here; *out stays owned by f (freed by rec_close).
csim_status rec_add(rec_file* f, const char* path, rec_type type, size_t ncols, const char* units,
                    const char* description, rec_dataset** out, csim_error* err);

// append one row: max(ncols, 1) elements of the dataset's type (double / int32_t / uint8_t).
// Never allocates; writes one HDF5 chunk when the buffer fills. CSIM_ERR_RUN on a write failure.
csim_status rec_append(rec_dataset* d, const void* row, csim_error* err);

// append nrows rows stored contiguously (nrows may be 0); same rules as rec_append
csim_status rec_append_rows(rec_dataset* d, const void* rows, size_t nrows, csim_error* err);

// rows appended so far (buffered or written); e.g. the next /contacts/offset value
size_t rec_rows(const rec_dataset* d);

// rows per chunk of this dataset
size_t rec_chunk_rows(const rec_dataset* d);

#endif  // CSIM_RECORD_H
