// mesh_io.h — collision mesh files: STL reader (binary and ASCII) and file -> convex hull.
//
// Binary vs ASCII STL is told by size (84 + 50 n bytes), never by the "solid" prefix (solo12's
// binary files start with "solid"). The scale (possibly mirrored, e.g. talos's 1 -1 1) is applied
// to the vertices before the hull (core/mesh.h) is built.
#ifndef CSIM_MESH_IO_H
#define CSIM_MESH_IO_H

#include "core/error.h"
#include "core/mesh.h"

// read the triangles of an STL file: *tri is (ntri x 9) doubles, caller frees
csim_status mesh_read_stl(const char* path, double** tri, int* ntri, csim_error* err);

// read an STL file, scale it and build its convex hull; the file name and format are checked
// (.stl/.STL only; other formats get an error naming the file and the supported format)
csim_status mesh_load_hull(const char* path, const double scale[3], mesh_hull* hull,
                           csim_error* err);

#endif  // CSIM_MESH_IO_H
