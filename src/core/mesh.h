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

// volume, centre of mass and inertia of a triangle mesh per unit density, as MuJoCo 2.2.2 computes
// them for a mesh geom (user_mesh.cc, mjCMesh::Process with the default exactmeshinertia="false"):
// of the mesh's own triangles (not the hull), as pyramids from the area-weighted face centroid
// whose volumes count positive whatever the face orientation; then about the centre of mass.
// MuJoCo keeps vertices in single precision: each coordinate is rounded to float, scaled and
// rounded again, and re-centred in float, as there, so the figures agree to rounding.
typedef struct {
  double volume;      // m^3 (mass = density x volume)
  double com[3];      // centre of mass in the mesh frame (scaled)
  double inertia[6];  // per unit density about com, mesh axes: xx yy zz xy xz yz
} mesh_mass;

// tri: ntri x 9 unscaled vertex coordinates; a mesh of no volume (< 1e-15) is an error
csim_status mesh_mass_props(const double* tri, int ntri, const double scale[3], mesh_mass* mm,
                            csim_error* err);

#endif  // CSIM_MESH_H
