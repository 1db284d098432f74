// collision_internal.h — what the collision files share (not part of the collision contract):
// the primitive pair functions and the patch clipper (3-D math: spatial.h's inline vocabulary).
#ifndef CSIM_COLLISION_INTERNAL_H
#define CSIM_COLLISION_INTERNAL_H

#include <math.h>

#include "core/collision/collision.h"
#include "core/spatial.h"

//---------------------------------- contacts ------------------------------------------------
// fill one contact from the two surface points: p1 on geom1, p2 on geom2, n from geom1 into geom2
static inline void cset(coll_contact* c, const double p1[3], const double p2[3],
                        const double n[3], double depth, int feature) {
  c->pos[0] = 0.5 * (p1[0] + p2[0]);
  c->pos[1] = 0.5 * (p1[1] + p2[1]);
  c->pos[2] = 0.5 * (p1[2] + p2[2]);
  sp_copy3(c->normal, n);
  c->depth = depth;
  c->geom1 = -1;
  c->geom2 = -1;
  c->feature = feature;
}

// clip an incident face against the side planes of a reference face (Sutherland-Hodgman) and
// write one contact per clipped point with depth >= -margin (at most maxcon, reduced by
// coll_reduce when more).
//   ref, nref:  reference polygon (world, nref >= 3), counter-clockwise seen from outside
//   m:          reference outward unit normal (points toward the incident shape)
//   inc, ninc:  incident polygon (ninc >= 3) or segment (ninc == 2), on the incident surface
//   flip:       0: reference is geom1 (normal = m); 1: reference is geom2 (normal = -m)
//   fbase:      feature base; contact features are fbase * 8448 + clip tag (see the .c)
int coll_clip_patch(const double* ref, int nref, const double m[3], const double* inc, int ninc,
                    double margin, int flip, int fbase, coll_contact* con, int maxcon);

// keep at most k of n contacts: the deepest, then farthest-point sampling; order kept
int coll_reduce(coll_contact* con, int n, int k);

// index of the hull vertex farthest along local direction d (scan for small hulls, steepest
// ascent over the vertex adjacency for large ones, from vertex `start` when one is given (>= 0),
// else from the extreme vertex of the nearest of 26 directions; on a plateau the tie goes where
// a climb from the dominant axis's extreme ends, whatever the start)
int coll_hull_support(const coll_hull* h, const double d[3], int start);

// corners of box face (axis k, side s = +-1) counter-clockwise seen from outside (world)
void coll_box_face(const coll_geom* g, int k, int s, double out[12]);

//---------------------------------- primitive pair functions --------------------------------
int coll_plane_sphere(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con);
int coll_plane_box(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con);
// plane-ellipsoid: one contact at the ellipsoid's lowest point
int coll_plane_ellipsoid(const coll_geom* g1, const coll_geom* g2, double margin,
                         coll_contact* con);
// the point of ellipsoid g (radii size[0..2]) farthest along world direction d
void coll_ellipsoid_support(const coll_geom* g, const double d[3], double out[3]);
int coll_plane_capsule(const coll_geom* g1, const coll_geom* g2, double margin,
                       coll_contact* con);
int coll_plane_cylinder(const coll_geom* g1, const coll_geom* g2, double margin,
                        coll_contact* con);
int coll_plane_mesh(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con);
int coll_sphere_sphere(const coll_geom* g1, const coll_geom* g2, double margin,
                       coll_contact* con);
int coll_sphere_capsule(const coll_geom* g1, const coll_geom* g2, double margin,
                        coll_contact* con);
int coll_capsule_capsule(const coll_geom* g1, const coll_geom* g2, double margin,
                         coll_contact* con);
int coll_box_sphere(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con);
int coll_box_box(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con);

//---------------------------------- height field (collision_hfield.c) ------------------------
int coll_hfield_box(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con);
int coll_hfield_sphere(const coll_geom* g1, const coll_geom* g2, double margin,
                       coll_contact* con);
int coll_hfield_cylinder(const coll_geom* g1, const coll_geom* g2, double margin,
                         coll_contact* con);
int coll_hfield_capsule(const coll_geom* g1, const coll_geom* g2, double margin,
                        coll_contact* con);
int coll_hfield_mesh(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con);

#endif  // CSIM_COLLISION_INTERNAL_H
