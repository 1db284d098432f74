#!/usr/bin/python3
"""Copy an HDF5 file with the global-heap index of one vlen string root attribute corrupted.

usage: corrupt_vlen.py SRC DST ATTRIBUTE|/DATASET [INDEX_HEX]

A variable-length string is stored as a 16-byte descriptor (length u32, global-heap collection
address u64, object index u32, HDF5 file format spec III.E "Global Heap"). The descriptor of
ATTRIBUTE (a root attribute; or the first element of a vlen string
/DATASET) is found by value: the heap object of a GCOL collection holding the attribute's bytes,
then the one descriptor pointing at it; its index is set to INDEX_HEX (default ff ff 00 6f, the
bytes the cube-toss fuzzer found: HDF5 1.10.8 reads out of bounds in H5HG_read). Prints the
offset of the 4 bytes changed. Used by tests/test_hardening.c (corrupt_vlen_attributes_exit_2)
and to make tests/fuzz/regressions/cubetoss/vlen-cube-global-heap-index.h5.
"""
import shutil
import struct
import sys

import h5py


def heap_objects(data):
    """(collection address, object index, bytes) of every global-heap object in the file"""
    out = []
    at = data.find(b"GCOL")
    while at >= 0:
        size = struct.unpack_from("<Q", data, at + 8)[0]
        p, end = at + 16, min(at + size, len(data))
        while p + 16 <= end:
            idx, _ref, _res, n = struct.unpack_from("<HHIQ", data, p)
            if idx == 0:  # free space: the rest of the collection
                break
            out.append((at, idx, data[p + 16:p + 16 + n]))
            p += 16 + ((n + 7) // 8) * 8
        at = data.find(b"GCOL", at + 4)
    return out


def main():
    src, dst, name = sys.argv[1:4]
    new = bytes.fromhex(sys.argv[4]) if len(sys.argv) > 4 else bytes([0xFF, 0xFF, 0x00, 0x6F])
    with h5py.File(src, "r") as f:
        v = f[name][0] if name.startswith("/") else f.attrs[name]
    value = v.encode() if isinstance(v, str) else bytes(v)
    data = open(src, "rb").read()
    hits = []
    for addr, idx, obj in heap_objects(data):
        if obj != value:
            continue
        desc = struct.pack("<IQI", len(value), addr, idx)
        at = data.find(desc)
        while at >= 0:
            hits.append(at + 12)
            at = data.find(desc, at + 1)
    if len(hits) != 1:
        sys.exit("corrupt_vlen.py: %d descriptors of attribute '%s' found, expected 1" % (len(hits), name))
    shutil.copyfile(src, dst)
    with open(dst, "r+b") as f:
        f.seek(hits[0])
        f.write(new)
    print(hits[0])


if __name__ == "__main__":
    main()
