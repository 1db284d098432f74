// collision_internal.h — what the collision files share (not part of the collision contract):
// inline 3-vector math for the hot paths, the primitive pair functions and the patch clipper.
#ifndef CSIM_COLLISION_INTERNAL_H
#define CSIM_COLLISION_INTERNAL_H

#include <math.h>

#include "collision.h"

//---------------------------------- inline 3-vector math ------------------------------------
static inline double cdot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void csub(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}
static inline void cadd(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2];
}
static inline void ccopy(double r[3], const double a[3]) {
  r[0] = a[0]; r[1] = a[1]; r[2] = a[2];
}
static inline void cscale(double r[3], const double a[3], double s) {
  r[0] = a[0] * s; r[1] = a[1] * s; r[2] = a[2] * s;
}
// r = a + s*b
static inline void cmadd(double r[3], const double a[3], const double b[3], double s) {
  r[0] = a[0] + s * b[0]; r[1] = a[1] + s * b[1]; r[2] = a[2] + s * b[2];
}
// r = a x b (r must not alias a or b)
static inline void ccross(double r[3], const double a[3], const double b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double cnorm(const double a[3]) {
  return sqrt(cdot(a, a));
}
// normalize in place, returns the norm before (0 leaves a unchanged)
static inline double cnormalize(double a[3]) {
  double n = cnorm(a);
  if (n > 0) cscale(a, a, 1.0 / n);
  return n;
}
// r = R x (world from local), R row-major
static inline void crot(double r[3], const double R[9], const double x[3]) {
  r[0] = R[0] * x[0] + R[1] * x[1] + R[2] * x[2];
  r[1] = R[3] * x[0] + R[4] * x[1] + R[5] * x[2];
  r[2] = R[6] * x[0] + R[7] * x[1] + R[8] * x[2];
}
// r = R' x (local from world)
static inline void crott(double r[3], const double R[9], const double x[3]) {
  r[0] = R[0] * x[0] + R[3] * x[1] + R[6] * x[2];
  r[1] = R[1] * x[0] + R[4] * x[1] + R[7] * x[2];
  r[2] = R[2] * x[0] + R[5] * x[1] + R[8] * x[2];
}
// column k of R (local axis k in world)
static inline void caxis(double r[3], const double R[9], int k) {
  r[0] = R[k]; r[1] = R[3 + k]; r[2] = R[6 + k];
}
// r = R x + p
static inline void cxform(double r[3], const double R[9], const double p[3], const double x[3]) {
  crot(r, R, x);
  r[0] += p[0]; r[1] += p[1]; r[2] += p[2];
}
// a unit vector perpendicular to unit n
static inline void cperp(double r[3], const double n[3]) {
  if (fabs(n[0]) < 0.57735) {
    r[0] = 0; r[1] = n[2]; r[2] = -n[1];  // e_x x n
  } else {
    r[0] = -n[2]; r[1] = 0; r[2] = n[0];  // e_y x n
  }
  cnormalize(r);
}

//---------------------------------- contacts ------------------------------------------------
// fill one contact from the two surface points: p1 on geom1, p2 on geom2, n from geom1 into geom2
static inline void cset(coll_contact* c, const double p1[3], const double p2[3],
                        const double n[3], double depth, int feature) {
  c->pos[0] = 0.5 * (p1[0] + p2[0]);
  c->pos[1] = 0.5 * (p1[1] + p2[1]);
  c->pos[2] = 0.5 * (p1[2] + p2[2]);
  ccopy(c->normal, n);
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
// ascent over the vertex adjacency for large ones)
int coll_hull_support(const coll_hull* h, const double d[3]);

// corners of box face (axis k, side s = +-1) counter-clockwise seen from outside (world)
void coll_box_face(const coll_geom* g, int k, int s, double out[12]);

//---------------------------------- primitive pair functions --------------------------------
int coll_plane_sphere(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con);
int coll_plane_box(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con);
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

#endif  // CSIM_COLLISION_INTERNAL_H
