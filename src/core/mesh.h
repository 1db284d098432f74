// mesh.h — convex hulls of collision meshes.
//
// csim treats every collision mesh as its convex hull (as MuJoCo does): collision runs GJK/EPA/MPR
// on the hull's vertices. The hull's faces are oriented outward whatever the sign of the scale's
// determinant applied to the points (talos's meshes are mirrored by a 1 -1 1 scale). Reading the
// mesh files is io/mesh_io.h.
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

// convex hull of n points (n x 3); degenerate (flat/collinear) inputs are an error
csim_status mesh_hull_points(const double* pts, int n, mesh_hull* hull, csim_error* err);

void mesh_hull_free(mesh_hull* hull);

#endif  // CSIM_MESH_H
