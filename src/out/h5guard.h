// h5guard.h — reads of untrusted HDF5 files that libhdf5 itself may crash on.
//
// HDF5 1.10 trusts the global-heap index inside a variable-length (vlen) element: a corrupted
// index makes H5HG_read index its object table out of bounds (only an assert guards it) and
// the process dies with SIGSEGV inside H5Aread/H5Dread (tests/fuzz/regressions/cubetoss/README).
// The public API gives no way to check the index before the read, so a read whose memory type
// holds vlen data is first done in a forked child (h5guard_probe). The child starts from the
// parent's exact HDF5 state and the file is open read-only, so the parent's own read afterwards
// follows the same path: it is done only when the child's read returned normally. Reads without
// vlen data go straight to HDF5 (no fork). POSIX only (fork, waitpid).
#ifndef CSIM_H5GUARD_H
#define CSIM_H5GUARD_H

#include <hdf5.h>
#include <stddef.h>

enum {
  H5GUARD_OK = 0,        // read done; vlen memory in buf is HDF5's (H5free_memory/reclaim)
  H5GUARD_FAILED = -1,   // HDF5 returned an error (nothing to free)
  H5GUARD_CRASHED = -2,  // the read kills the process: not done; why says how the child died
};

// 1 when the dataset's stored data can back a read of its whole shape; 0 (why says what) when
// not. HDF5 1.10 memcpy's a compact dataset's raw data without checking its stored size against
// the shape: a corrupted FCLib file (tests/fuzz/regressions/fclib/) with a 3-element compact
// dataset that stores 0 bytes crashed H5Dread with SIGSEGV. Cheap (no read, no fork): call it
// after H5Dopen2 on every dataset of a user's file before reading it.
int h5guard_dset_ok(hid_t dset, char* why, size_t n);

// H5Aread(attr, memtype, buf), probed in a child first when memtype holds vlen data.
// why (n bytes, may be NULL) receives e.g. "killed by SIGSEGV" for H5GUARD_CRASHED.
int h5guard_aread(hid_t attr, hid_t memtype, void* buf, char* why, size_t n);

// H5Dread(dset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), probed the same way, after
// h5guard_dset_ok (H5GUARD_CRASHED when it fails).
int h5guard_dread(hid_t dset, hid_t memtype, void* buf, char* why, size_t n);

// A whole reader run first in a forked child: fn(ctx) opens and reads the user's file as the
// caller is about to (its result and memory are dropped with the child). Corrupted metadata
// crashes HDF5 1.10.8 in more places than a check can cover (a group's local heap inside
// H5Lexists, found by fuzz_fclib), so fclib_read, ct_load, cmp_files, merge's reading of each
// point file and replay_write (its reads, not the page) probe their whole read: the
// child starts from the caller's HDF5 state and the file is read-only, so the caller's own
// read repeats a run that returned. H5GUARD_OK when fn returned (whatever its status: the
// caller's read reports its errors), H5GUARD_CRASHED (why says how) when the child died.
int h5guard_probe(int (*fn)(void* ctx), void* ctx, char* why, size_t n);

#endif  // CSIM_H5GUARD_H
