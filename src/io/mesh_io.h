// mesh_io.h — collision mesh files: STL (binary and ASCII) and OBJ readers, file -> convex hull.
//
// Binary vs ASCII STL is told by size (84 + 50 n bytes), never by the "solid" prefix (solo12's
// binary files start with "solid"). The scale (possibly mirrored, e.g. talos's 1 -1 1) is applied
// to the vertices before the hull (core/mesh.h) is built.
#ifndef CSIM_MESH_IO_H
#define CSIM_MESH_IO_H

#include <stddef.h>

#include "core/error.h"
#include "core/mesh.h"

// read the triangles of an STL file: *tri is (ntri x 9) doubles, caller frees
csim_status mesh_read_stl(const char* path, double** tri, int* ntri, csim_error* err);

// Wavefront OBJ: 'v x y z' vertices and 'f' faces (corners i, i/t, i//n, i/t/n; negative i counts
// back from the last vertex so far), polygons fanned into triangles; every other statement is
// skipped. Errors name file:line:column. mesh_parse_obj reads text in memory (name for messages).
csim_status mesh_read_obj(const char* path, double** tri, int* ntri, csim_error* err);
csim_status mesh_parse_obj(const char* name, const char* text, size_t len, double** tri,
                           int* ntri, csim_error* err);

// does the file name end with a mesh format csim reads (.stl, .obj, any case)?
int mesh_format_supported(const char* path);

// read an STL or OBJ file by its extension (another extension is an error naming it)
csim_status mesh_read(const char* path, double** tri, int* ntri, csim_error* err);

// read an STL or OBJ file, scale it and build its convex hull; the format is told by the
// extension (another gets an error naming the file and the supported formats)
csim_status mesh_load_hull(const char* path, const double scale[3], mesh_hull* hull,
                           csim_error* err);

#endif  // CSIM_MESH_IO_H
