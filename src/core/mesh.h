// mesh.h — collision meshes: STL reader (binary and ASCII) and convex hull.
//
// csim treats every collision mesh as its convex hull (as MuJoCo does): collision runs GJK/EPA/MPR
// on the hull's vertices. Binary vs ASCII STL is told by size (84 + 50 n bytes), never by the
// "solid" prefix (solo12's binary files start with "solid"). The scale (possibly mirrored, e.g.
// talos's 1 -1 1) is applied to the vertices before the hull is built, and the hull's faces are
// oriented outward whatever the sign of the scale's determinant.
#ifndef CSIM_MESH_H
#define CSIM_MESH_H

#include "core/error.h"

typedef struct {
  int nvert;
  double* vert;    // (nvert x 3) hull vertices in the mesh frame, scaled
  int nface;
  int* face;       // (nface x 3) vertex indices, counter-clockwise seen from outside
  double volume;   // enclosed volume of the hull (m^3)
  double center[3];  // centroid of the hull volume
} mesh_hull;

// read the triangles of an STL file: *tri is (ntri x 9) doubles, caller frees
csim_status mesh_read_stl(const char* path, double** tri, int* ntri, csim_error* err);

// convex hull of n points (n x 3); degenerate (flat/collinear) inputs are an error
csim_status mesh_hull_points(const double* pts, int n, mesh_hull* hull, csim_error* err);

// read an STL file, scale it and build its convex hull; the file name and format are checked
// (.stl/.STL only; other formats get an error naming the file and the supported format)
csim_status mesh_load_hull(const char* path, const double scale[3], mesh_hull* hull,
                           csim_error* err);

void mesh_hull_free(mesh_hull* hull);

#endif  // CSIM_MESH_H
