// test_collision.c — every analytic pair against hand-computed contacts, the general convex path
// (GJK/EPA + patch) and libccd's MPR against the analytic paths, randomized cross-checks with
// invariants, feature-id stability, hulls, and the broad phase on a hand-built model.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/collision/collision.h"
#include "core/collision/collision_internal.h"
#include "core/data.h"
#include "core/kinematics.h"
#include "io/mesh_io.h"
#include "io/model_build.h"
#include "io/urdf.h"
#include "core/mesh.h"
#include "core/spatial.h"
#include "support.h"

#define PI 3.14159265358979323846

static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
static const double ORIGIN[3] = {0, 0, 0};

// a geom from borrowed arrays
static coll_geom geom(int type, const double* size, const double* pos, const double* mat) {
  coll_geom g = {type, size, pos, mat, NULL, 0.0, NULL, NULL};
  return g;
}

// rotation by angle about a (not necessarily unit) axis
static void rot(double R[9], double ax, double ay, double az, double angle) {
  double n = sqrt(ax * ax + ay * ay + az * az), s = sin(angle / 2) / n;
  double q[4] = {ax * s, ay * s, az * s, cos(angle / 2)};
  sp_quat2mat(R, q);
}

static double dist3(const double a[3], const double b[3]) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

// splitmix64: seeded, platform-independent
static unsigned long long rng_state;
static double urand(void) {
  return urand_splitmix(&rng_state);
}
static double urange(double a, double b) {
  return a + (b - a) * urand();
}
static void rand_unit(double v[3]) {
  double n;
  do {
    v[0] = urange(-1, 1); v[1] = urange(-1, 1); v[2] = urange(-1, 1);
    n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  } while (n < 0.1 || n > 1);
  v[0] /= n; v[1] /= n; v[2] /= n;
}
static void rand_rot(double R[9]) {
  double q[4], n;
  do {
    for (int k = 0; k < 4; k++) q[k] = urange(-1, 1);
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  } while (n < 0.1 || n > 1);
  for (int k = 0; k < 4; k++) q[k] /= n;
  sp_quat2mat(R, q);
}

// the unit cube hull [-h, h]^3 built by hand: 8 vertices (bit 0/1/2 = +x/+y/+z), 12 triangles
static double cube_v[24];
static int cube_f[36] = {0, 2, 3, 0, 3, 1,   // -z
                         4, 5, 7, 4, 7, 6,   // +z
                         0, 1, 5, 0, 5, 4,   // -y
                         2, 6, 7, 2, 7, 3,   // +y
                         0, 4, 6, 0, 6, 2,   // -x
                         1, 3, 7, 1, 7, 5};  // +x
static mesh_hull cube_mesh(double h) {
  for (int i = 0; i < 8; i++) {
    cube_v[3 * i] = (i & 1) ? h : -h;
    cube_v[3 * i + 1] = (i & 2) ? h : -h;
    cube_v[3 * i + 2] = (i & 4) ? h : -h;
  }
  mesh_hull m;
  memset(&m, 0, sizeof m);
  m.nvert = 8;
  m.vert = cube_v;
  m.nface = 12;
  m.face = cube_f;
  return m;
}

// the convex hull of cube_mesh(h), asserted built (free it with coll_hull_free)
static coll_hull cube_hull(double h) {
  mesh_hull mh = cube_mesh(h);
  coll_hull hl;
  csim_error err;
  ck_assert_int_eq(coll_hull_build(&mh, &hl, &err), CSIM_OK);
  return hl;
}

//---------------------------------- plane pairs ----------------------------------------------

// sphere r = 0.1 at z = 0.05 over z = 0: depth 0.05, normal +z, midpoint z = -0.025
START_TEST(plane_sphere_exact) {
  double size[3] = {0.1, 0, 0}, pos[3] = {0.3, -0.2, 0.05};
  coll_geom p = geom(MODEL_GEOM_PLANE, size, ORIGIN, I3), s = geom(MODEL_GEOM_SPHERE, size, pos, I3);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  ck_assert_int_eq(coll_collide(&p, &s, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.05, 1e-15);
  ck_assert_double_eq_tol(c[0].normal[2], 1.0, 1e-15);
  ck_assert_double_eq_tol(c[0].pos[0], 0.3, 1e-15);
  ck_assert_double_eq_tol(c[0].pos[1], -0.2, 1e-15);
  ck_assert_double_eq_tol(c[0].pos[2], -0.025, 1e-15);
  ck_assert_int_eq(c[0].geom1, -1);
  // reversed argument order: the normal points from the sphere into the plane
  ck_assert_int_eq(coll_collide(&s, &p, c), 1);
  ck_assert_double_eq_tol(c[0].normal[2], -1.0, 1e-15);
  ck_assert_double_eq_tol(c[0].depth, 0.05, 1e-15);
  // separated by 0.1: nothing, unless the margin reaches it (depth -0.1)
  pos[2] = 0.2;
  ck_assert_int_eq(coll_collide(&p, &s, c), 0);
  s.margin = 0.15;
  ck_assert_int_eq(coll_collide(&p, &s, c), 1);
  ck_assert_double_eq_tol(c[0].depth, -0.1, 1e-15);
  ck_assert_double_eq_tol(c[0].pos[2], 0.05, 1e-15);
  // a tilted, shifted plane: normal n, through point o
  double R[9], o[3] = {0, 0, 1};
  rot(R, 1, 0, 0, 0.3);
  double n[3] = {R[2], R[5], R[8]};
  double q[3] = {o[0] + 0.04 * n[0], o[1] + 0.04 * n[1], o[2] + 0.04 * n[2]};
  coll_geom pt = geom(MODEL_GEOM_PLANE, size, o, R), st = geom(MODEL_GEOM_SPHERE, size, q, I3);
  ck_assert_int_eq(coll_collide(&pt, &st, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.06, 1e-14);
  for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(c[0].normal[k], n[k], 1e-15);
}
END_TEST

// a box resting flat: the 4 bottom corners with equal depth, features 0..3
START_TEST(plane_box_flat_and_tilted) {
  double h[3] = {0.1, 0.2, 0.3}, pos[3] = {1, 2, 0.29};
  coll_geom p = geom(MODEL_GEOM_PLANE, h, ORIGIN, I3), b = geom(MODEL_GEOM_BOX, h, pos, I3);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  int n = coll_collide(&p, &b, c);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(c[i].feature, i);
    ck_assert_double_eq_tol(c[i].depth, 0.01, 1e-14);
    ck_assert_double_eq_tol(c[i].normal[2], 1, 1e-15);
    ck_assert_double_eq_tol(c[i].pos[0], 1 + ((i & 1) ? 0.1 : -0.1), 1e-14);
    ck_assert_double_eq_tol(c[i].pos[1], 2 + ((i & 2) ? 0.2 : -0.2), 1e-14);
    ck_assert_double_eq_tol(c[i].pos[2], -0.005, 1e-14);
  }
  // rolled 30 degrees about x: one bottom edge (2 corners) touches
  double R[9];
  rot(R, 1, 0, 0, PI / 6);
  double low = fabs(R[7]) * 0.2 + fabs(R[8]) * 0.3;  // lowest point below the centre
  pos[2] = low - 0.02;
  b.mat = R;
  n = coll_collide(&p, &b, c);
  ck_assert_int_eq(n, 2);
  for (int i = 0; i < 2; i++) ck_assert_double_eq_tol(c[i].depth, 0.02, 1e-14);
  ck_assert_double_eq_tol(fabs(c[0].pos[0] - c[1].pos[0]), 0.2, 1e-14);
  // a generic tilt: one corner
  rot(R, 1, 2, 0.5, 0.4);
  low = 0.1 * fabs(R[6]) + 0.2 * fabs(R[7]) + 0.3 * fabs(R[8]);
  pos[2] = low - 0.003;
  n = coll_collide(&p, &b, c);
  ck_assert_int_eq(n, 1);
  ck_assert_double_eq_tol(c[0].depth, 0.003, 1e-14);
  // the corner index names the signs of the local corner
  int f = c[0].feature;
  double loc[3] = {(f & 1) ? 0.1 : -0.1, (f & 2) ? 0.2 : -0.2, (f & 4) ? 0.3 : -0.3}, w[3];
  sp_xform(w, R, pos, loc);
  ck_assert_double_eq_tol(w[2], -0.003, 1e-14);
  // above the plane: nothing
  pos[2] = low + 1e-6;
  ck_assert_int_eq(coll_collide(&p, &b, c), 0);
  // sunk to its centre, rolled 45 degrees about x (half extents 0.1, 0.3, 0.3): six corners
  // reach the plane (two at depth 0.3 sqrt 2, four at 0), more than the four kept: the two
  // deepest, then the first two of the tied ones, in corner order (keep_deepest)
  double hs[3] = {0.1, 0.3, 0.3};
  b.size = hs;
  rot(R, 1, 0, 0, PI / 4);
  pos[2] = 0;
  n = coll_collide(&p, &b, c);
  ck_assert_int_eq(n, 4);
  double dmax = 0.3 * sqrt(2.0);
  int deep = 0;
  for (int i = 0; i < 4; i++) {
    ck_assert(i == 0 || c[i].feature > c[i - 1].feature);
    if (fabs(c[i].depth - dmax) < 1e-12) deep++;
    else ck_assert_double_eq_tol(c[i].depth, 0, 1e-12);
  }
  ck_assert_int_eq(deep, 2);
}
END_TEST

// capsule lying on the plane: 2 end points; standing: 1
START_TEST(plane_capsule_lying_standing) {
  double sz[3] = {0.05, 0.2, 0}, pos[3] = {0, 0, 0.04}, R[9];
  rot(R, 0, 1, 0, PI / 2);  // axis along x
  coll_geom p = geom(MODEL_GEOM_PLANE, sz, ORIGIN, I3), cp = geom(MODEL_GEOM_CAPSULE, sz, pos, R);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  int n = coll_collide(&p, &cp, c);
  ck_assert_int_eq(n, 2);
  for (int i = 0; i < 2; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.01, 1e-14);
    ck_assert_double_eq_tol(c[i].pos[2], -0.005, 1e-14);
    ck_assert_double_eq_tol(fabs(c[i].pos[0]), 0.2, 1e-14);
  }
  ck_assert_int_ne(c[0].feature, c[1].feature);
  cp.mat = I3;
  pos[2] = 0.2 + 0.05 - 0.001;
  n = coll_collide(&p, &cp, c);
  ck_assert_int_eq(n, 1);
  ck_assert_int_eq(c[0].feature, 0);
  ck_assert_double_eq_tol(c[0].depth, 0.001, 1e-14);
  ck_assert_double_eq_tol(c[0].pos[2], -0.0005, 1e-14);
}
END_TEST

// cylinder: flat on its cap (4 rim points), on its side (2), tilted on the rim (1)
START_TEST(plane_cylinder_cases) {
  double sz[3] = {0.1, 0.3, 0}, pos[3] = {0, 0, 0.29}, R[9];
  coll_geom p = geom(MODEL_GEOM_PLANE, sz, ORIGIN, I3), cy = geom(MODEL_GEOM_CYLINDER, sz, pos, I3);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  int n = coll_collide(&p, &cy, c);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.01, 1e-14);
    ck_assert_double_eq_tol(hypot(c[i].pos[0], c[i].pos[1]), 0.1, 1e-14);
    ck_assert_int_lt(c[i].feature, 4);  // the -z cap
  }
  // side: axis along y, lowest line at z = pos - r
  rot(R, 1, 0, 0, PI / 2);
  cy.mat = R;
  pos[2] = 0.1 - 0.02;
  n = coll_collide(&p, &cy, c);
  ck_assert_int_eq(n, 2);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.02, 1e-14);
    ck_assert_double_eq_tol(fabs(c[i].pos[1]), 0.3, 1e-14);
    ck_assert_double_eq_tol(c[i].pos[0], 0, 1e-14);
  }
  // tilted 0.2 rad about x: lowest rim point at z = pos - h cos - r sin
  rot(R, 1, 0, 0, 0.2);
  double low = 0.3 * cos(0.2) + 0.1 * sin(0.2);
  pos[2] = low - 0.004;
  n = coll_collide(&p, &cy, c);
  ck_assert_int_eq(n, 1);
  ck_assert_double_eq_tol(c[0].depth, 0.004, 1e-14);
  ck_assert_int_eq(c[0].feature, 0);
  // same through the general convex path against a large box: same depth
  double big[3] = {5, 5, 1}, bpos[3] = {0, 0, -1};
  coll_geom gb = geom(MODEL_GEOM_BOX, big, bpos, I3);
  n = coll_collide(&gb, &cy, c);
  ck_assert_int_ge(n, 1);
  double dmax = 0;
  for (int i = 0; i < n; i++) dmax = fmax(dmax, c[i].depth);
  ck_assert_double_eq_tol(dmax, 0.004, 1e-9);
}
END_TEST

// hull vertices below the plane: a resting cube gives its 4 bottom vertices
START_TEST(plane_mesh_cube) {
  coll_hull hl = cube_hull(0.1);
  double sz[3] = {0}, pos[3] = {0.5, 0, 0.09}, R[9];
  coll_geom p = geom(MODEL_GEOM_PLANE, sz, ORIGIN, I3), m = geom(MODEL_GEOM_MESH, sz, pos, I3);
  m.hull = &hl;
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  int n = coll_collide(&p, &m, c);
  ck_assert_int_eq(n, 4);
  int seen = 0;
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.01, 1e-15);
    ck_assert_int_lt(c[i].feature, 4);  // vertices 0..3 have -z
    seen |= 1 << c[i].feature;
    ck_assert_double_eq_tol(c[i].pos[2], -0.005, 1e-15);
  }
  ck_assert_int_eq(seen, 15);
  // same as the analytic box path, corner for corner
  double h[3] = {0.1, 0.1, 0.1};
  coll_geom b = geom(MODEL_GEOM_BOX, h, pos, I3);
  coll_contact cb[COLL_MAX_PAIR_CONTACTS];
  rot(R, 0.3, -1, 0.2, 0.35);
  m.mat = b.mat = R;
  pos[2] = 0.1 * (fabs(R[6]) + fabs(R[7]) + fabs(R[8])) - 0.002;
  n = coll_collide(&p, &m, c);
  ck_assert_int_eq(n, 1);
  ck_assert_int_eq(coll_collide(&p, &b, cb), 1);
  ck_assert_int_eq(c[0].feature, cb[0].feature);  // vertex index = corner index here
  ck_assert_double_eq_tol(c[0].depth, cb[0].depth, 1e-15);
  ck_assert_double_le(dist3(c[0].pos, cb[0].pos), 1e-15);
  coll_hull_free(&hl);
}
END_TEST

// a 12-gon prism standing on its base: 12 vertices at equal depth reduce to 4 spread ones,
// a square inscribed in the base circle
START_TEST(plane_mesh_reduces_to_4) {
  double pts[24 * 3];
  for (int i = 0; i < 12; i++)
    for (int z = 0; z < 2; z++) {
      double* p = pts + 3 * (2 * i + z);
      p[0] = cos(2 * PI * i / 12);
      p[1] = sin(2 * PI * i / 12);
      p[2] = z ? 1 : -1;
    }
  mesh_hull mh;
  csim_error err;
  ck_assert_int_eq(mesh_hull_points(pts, 24, &mh, &err), CSIM_OK);
  coll_hull hl;
  ck_assert_int_eq(coll_hull_build(&mh, &hl, &err), CSIM_OK);
  ck_assert_int_eq(hl.npoly, 14);  // 12 side rectangles and 2 caps
  double sz[3] = {0}, pos[3] = {0, 0, 0.99};
  coll_geom p = geom(MODEL_GEOM_PLANE, sz, ORIGIN, I3), m = geom(MODEL_GEOM_MESH, sz, pos, I3);
  m.hull = &hl;
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  int n = coll_collide(&p, &m, c);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.01, 1e-14);
    ck_assert_double_eq_tol(hypot(c[i].pos[0], c[i].pos[1]), 1, 1e-9);
    for (int j = 0; j < i; j++) ck_assert_double_ge(dist3(c[i].pos, c[j].pos), sqrt(2.0) - 1e-12);
  }
  coll_hull_free(&hl);
  mesh_hull_free(&mh);
}
END_TEST

// Reference for plane-mesh, written plainly: every hull vertex within the margin (height
// nl . v + off <= margin) in index order, strict improvements only (ties keep the lower index),
// scored on its coordinates (x, y) = ((v - v0) . t1, (v - v0) . t2) across the normal, t1 =
// sp_perp3(nl), t2 = nl x t1: from the deepest vertex v0, the farthest from it (x^2 + y^2 >
// 1e-24), the largest |triangle| with those two (twice its area > 1e-9 of that squared distance),
// the most area added outside that triangle (same bound). Returns the count, indices in idx.
static int plane_mesh_ref(const coll_hull* hl, const double nl[3], double off, double margin,
                          int v0, int idx[4]) {
  const double* V = hl->vert;
  double t1[3], t2[3], xy[3][2];
  sp_perp3(t1, nl);
  sp_cross3(t2, nl, t1);
  idx[0] = v0;
  idx[1] = idx[2] = idx[3] = -1;
  double best = 0;
  for (int i = 0; i < hl->nvert; i++) {
    double e[3];
    sp_sub3(e, V + 3 * i, V + 3 * v0);
    double x = sp_dot3(e, t1), y = sp_dot3(e, t2);
    if (sp_dot3(nl, V + 3 * i) + off > margin) continue;
    if (x * x + y * y > best) { best = x * x + y * y; idx[1] = i; xy[1][0] = x; xy[1][1] = y; }
  }
  double l2 = best, sgn = 1;
  if (idx[1] < 0 || !(l2 > 1e-24)) return 1;
  best = 0;
  for (int i = 0; i < hl->nvert; i++) {
    double e[3];
    sp_sub3(e, V + 3 * i, V + 3 * v0);
    double x = sp_dot3(e, t1), y = sp_dot3(e, t2), ar = xy[1][0] * y - xy[1][1] * x;
    if (sp_dot3(nl, V + 3 * i) + off > margin) continue;
    if (fabs(ar) > best) {
      best = fabs(ar);
      idx[2] = i;
      sgn = ar > 0 ? 1 : -1;
      xy[2][0] = x;
      xy[2][1] = y;
    }
  }
  if (idx[2] < 0 || !(best > 1e-9 * l2)) return 2;
  xy[0][0] = xy[0][1] = 0;
  best = 0;
  for (int i = 0; i < hl->nvert; i++) {
    double e[3];
    sp_sub3(e, V + 3 * i, V + 3 * v0);
    double x = sp_dot3(e, t1), y = sp_dot3(e, t2), add = 0;
    if (sp_dot3(nl, V + 3 * i) + off > margin) continue;
    for (int k = 0; k < 3; k++) {
      const double *a = xy[k], *b = xy[(k + 1) % 3];
      add = fmax(add, -sgn * ((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])));
    }
    if (add > best) { best = add; idx[3] = i; }
  }
  return idx[3] >= 0 && best > 1e-9 * l2 ? 4 : 3;
}

// one pose of a hull over the plane z = 0: rotation R, the lowest vertex at height h0 below
// (x, y); coll_plane_mesh against the reference, contact for contact. Returns the candidates.
static int plane_mesh_pose(const coll_hull* hl, const double R[9], double x, double y, double h0,
                           double margin) {
  double sz[3] = {0}, z[3] = {0, 0, 1}, nl[3];
  sp_mulmtv3(nl, R, z);
  double lo = INFINITY;
  for (int i = 0; i < hl->nvert; i++) lo = fmin(lo, sp_dot3(nl, hl->vert + 3 * i));
  double pos[3] = {x, y, h0 - lo};
  coll_geom p = geom(MODEL_GEOM_PLANE, sz, ORIGIN, I3), m = geom(MODEL_GEOM_MESH, sz, pos, R);
  m.hull = hl;
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  int n = coll_plane_mesh(&p, &m, margin, c);
  if (h0 > margin) {
    ck_assert_int_eq(n, 0);
    return 0;
  }
  // the deepest vertex: hill climbing (checked against a scan in hull_hill_climbing) must reach
  // the lowest height, to rounding (a flat face down is a plateau of rounding noise); on ties any
  // lowest vertex will do
  double mz[3] = {-nl[0], -nl[1], -nl[2]};
  int v0 = coll_hull_support(hl, mz, -1), idx[4], ncand = 0;
  double off = pos[2];
  ck_assert_double_le(sp_dot3(nl, hl->vert + 3 * v0), lo + 1e-15);
  for (int i = 0; i < hl->nvert; i++) ncand += sp_dot3(nl, hl->vert + 3 * i) + off <= margin;
  int nr = plane_mesh_ref(hl, nl, off, margin, v0, idx);
  ck_assert_int_eq(n, nr);
  for (int k = 0; k < n; k++) {
    ck_assert_msg(c[k].feature == idx[k], "contact %d: vertex %d, reference %d (%d candidates)",
                  k, c[k].feature, idx[k], ncand);
    double w[3];
    sp_xform(w, R, pos, hl->vert + 3 * idx[k]);
    ck_assert_double_eq_tol(c[k].depth, -w[2], 1e-15);
    ck_assert_double_eq_tol(c[k].pos[2], w[2] / 2, 1e-15);
  }
  ck_assert_double_eq_tol(c[0].depth, -h0, 2e-15);
  // the ring from a start hint (coll_detect keeps the last call's): from every half-edge the
  // level cuts (the ascent finds one of them), the same contacts, bit for bit; a stale hint (an
  // edge the level does not cut) falls back to the ascent
  int hint[2];
  m.hint = hint;
  for (int e = 0; e < 3 * hl->ntri; e++) {
    int a = hl->tri[e], b = hl->tri[e - e % 3 + (e % 3 + 1) % 3];
    int cut = sp_dot3(nl, hl->vert + 3 * a) + off <= margin &&
              sp_dot3(nl, hl->vert + 3 * b) + off > margin;
    if (!cut && e % 97) continue;
    hint[0] = -1;
    hint[1] = e;
    coll_contact ch[COLL_MAX_PAIR_CONTACTS];
    ck_assert_int_eq(coll_plane_mesh(&p, &m, margin, ch), n);
    for (int k = 0; k < n; k++) {
      ck_assert_int_eq(ch[k].feature, c[k].feature);
      ck_assert(memcmp(ch[k].pos, c[k].pos, sizeof c[k].pos) == 0 && ch[k].depth == c[k].depth);
    }
  }
  return ncand;
}

// plane-mesh on real meshes (Solo-12's foot, lower leg and base, ../shared), the cube and a thin
// 300-gon disc against the brute-force reference: random poses 4 mm deep to 0.5 mm above, margins
// 1 and 3 mm, poses turned about y only (the foot's mirror symmetry y -> -y: exact ties; deep ones
// put its flat sides, facing sideways, in the margin), flat faces down (the disc wholly within
// the margin: more candidates than the search keeps, a scan); patches of 1 to 600 vertices
START_TEST(plane_mesh_matches_brute_force) {
  const char* files[3] = {"with_foot/solo_foot.stl", "with_foot/solo_lower_leg_left_side.stl",
                          "solo12/solo_12_base.stl"};
  rng_state = 77;
  enum { ND = 300 };
  static double disc[2 * ND * 3];
  for (int i = 0; i < 2 * ND; i++) {
    disc[3 * i] = 0.05 * cos(2 * PI * (i / 2) / ND);
    disc[3 * i + 1] = 0.05 * sin(2 * PI * (i / 2) / ND);
    disc[3 * i + 2] = i % 2 ? 2.5e-4 : -2.5e-4;
  }
  for (int f = 0; f < 5; f++) {
    mesh_hull mh = cube_mesh(0.05);
    csim_error err;
    double one[3] = {1, 1, 1};
    if (f < 3) {
      char path[256];
      snprintf(path, sizeof path,
               "../shared/data/robots/meshes/robots/solo_description/meshes/stl/%s", files[f]);
      ck_assert_msg(mesh_load_hull(path, one, &mh, &err) == CSIM_OK, "%s", err.msg);
    } else if (f == 4) {
      ck_assert_int_eq(mesh_hull_points(disc, 2 * ND, &mh, &err), CSIM_OK);
    }
    coll_hull hl;
    ck_assert_int_eq(coll_hull_build(&mh, &hl, &err), CSIM_OK);
    ck_assert_ptr_nonnull(hl.hedge);  // closed: the ring walk is what runs
    int cmin = 1 << 30, cmax = 0;
    for (int it = 0; it < 400; it++) {
      double margin = it % 2 ? 3e-3 : 1e-3, R[9];
      double h0 = it % 4 == 3 ? margin * urange(0.9, 1.1) : urange(-4e-3, 5e-4);
      if (it < 200) {
        rand_rot(R);
      } else if (it < 300) {
        rot(R, 0, 1, 0, 2 * PI * (it - 200) / 100);  // about y only
        h0 = -4e-3 + 1e-3 * (it % 5);
      } else {
        // flat down (about x by a quarter turn), then a little tilt about a random axis
        double Rx[9], Rt[9];
        rot(Rx, 1, 0, 0, f == 4 ? 0 : (it % 2 ? 0.5 : -0.5) * PI);
        rot(Rt, urange(-1, 1), urange(-1, 1), urange(-1, 1), it < 320 ? 0 : urange(0, 0.05));
        sp_mulmm3(R, Rt, Rx);
      }
      int nc = plane_mesh_pose(&hl, R, urange(-1, 1), urange(-1, 1), h0, margin);
      if (nc > 0) cmin = nc < cmin ? nc : cmin;
      cmax = nc > cmax ? nc : cmax;
    }
    ck_assert_int_le(cmin, 3);                                // a few candidates
    ck_assert_int_ge(cmax, f < 3 ? 60 : f == 3 ? 4 : 2 * ND);  // many (the cube: a face)
    coll_hull_free(&hl);
    if (f != 3) mesh_hull_free(&mh);
  }
}
END_TEST

//---------------------------------- patch reduction ------------------------------------------

#define PATCH_SLOPE_DEFAULT 0.050041708375538  // tan(0.05), contact.patch_angle's default

// a faceted ball (UV sphere, poles on the x axis, 16 x 16) of radius 0.01 touching the plane at
// one vertex, 1e-5 deep, with the 1 mm default margin: its neighbours rise R (1 - cos 11.25 deg)
// = 0.19 mm and R (1 - cos 22.5 deg) = 0.76 mm, inside the margin, at slopes 0.098 and 0.20
// (> tan 0.05), so the raw patch has 4 points and the reduced one the lowest vertex only
START_TEST(patch_round_foot_one_contact) {
  enum { NL = 16, NM = 16 };
  double pts[(NL - 1) * NM * 3 + 6], R = 0.01;
  int np = 0;
  for (int i = 1; i < NL; i++)
    for (int j = 0; j < NM; j++, np++) {
      double th = PI * i / NL, ph = 2 * PI * j / NM;
      pts[3 * np] = R * cos(th);
      pts[3 * np + 1] = R * sin(th) * cos(ph);
      pts[3 * np + 2] = R * sin(th) * sin(ph);
    }
  double poles[6] = {R, 0, 0, -R, 0, 0};
  memcpy(pts + 3 * np, poles, sizeof poles);
  np += 2;
  mesh_hull mh;
  csim_error err;
  ck_assert_int_eq(mesh_hull_points(pts, np, &mh, &err), CSIM_OK);
  coll_hull hl;
  ck_assert_int_eq(coll_hull_build(&mh, &hl, &err), CSIM_OK);
  double sz[3] = {0}, pos[3] = {0.2, 0.1, R - 1e-5};
  coll_geom p = geom(MODEL_GEOM_PLANE, sz, ORIGIN, I3), m = geom(MODEL_GEOM_MESH, sz, pos, I3);
  m.hull = &hl;
  m.margin = 1e-3;
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  int n = coll_collide(&p, &m, c);
  ck_assert_int_eq(n, 4);  // unreduced: the lowest vertex and 3 near ones
  n = coll_reduce_patch(c, n, PATCH_SLOPE_DEFAULT, 4);
  ck_assert_int_eq(n, 1);
  // the lowest vertex (0, 0, -R) exactly: 1e-5 deep below (0.2, 0.1) to rounding (1e-15 seen)
  ck_assert_double_eq_tol(c[0].depth, 1e-5, 1e-13);
  ck_assert_double_eq_tol(c[0].pos[0], 0.2, 1e-13);
  ck_assert_double_eq_tol(c[0].pos[1], 0.1, 1e-13);
  ck_assert_double_eq_tol(c[0].pos[2], -0.5e-5, 1e-13);
  // the same ball 2 mm above the plane: no contact; a sphere geom: 1 either way
  coll_contact c2[COLL_MAX_PAIR_CONTACTS];
  double ps[3] = {0, 0, R - 1e-5}, rs[3] = {R, 0, 0};
  coll_geom sph = geom(MODEL_GEOM_SPHERE, rs, ps, I3);
  sph.margin = 1e-3;
  ck_assert_int_eq(coll_reduce_patch(c2, coll_collide(&p, &sph, c2), PATCH_SLOPE_DEFAULT, 4), 1);
  pos[2] = R + 2e-3;
  ck_assert_int_eq(coll_collide(&p, &m, c), 0);
  coll_hull_free(&hl);
  mesh_hull_free(&mh);
}
END_TEST

// box faces on the plane with the 1 mm margin: flat, 4; tilted by 0.003 rad (the far corners
// 0.6 mm up, slope 0.003), 4; a 8 mm cube tilted by 0.1 rad (far corners 0.8 mm up, slope
// tan 0.1 > tan 0.05), the 2 touching corners of the low edge. A capsule lying flat keeps both
// ends (a line contact), one standing keeps 1.
START_TEST(patch_box_face_four) {
  double h[3] = {0.1, 0.1, 0.1}, sz[3] = {0}, R[9];
  coll_geom p = geom(MODEL_GEOM_PLANE, sz, ORIGIN, I3);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  double pos[3] = {0, 0, 0.1 - 1e-4};
  coll_geom b = geom(MODEL_GEOM_BOX, h, pos, I3);
  b.margin = 1e-3;
  int n = coll_collide(&p, &b, c);
  ck_assert_int_eq(n, 4);
  ck_assert_int_eq(coll_reduce_patch(c, n, PATCH_SLOPE_DEFAULT, 4), 4);
  for (int i = 0; i < 4; i++) ck_assert_double_eq_tol(c[i].depth, 1e-4, 1e-15);
  // tilted about x by 0.003: the -y edge low (1e-5 deep), the +y edge 0.2 sin(0.003) higher
  rot(R, 1, 0, 0, 0.003);
  b.mat = R;
  pos[2] = 0.1 * (fabs(R[6]) + fabs(R[7]) + fabs(R[8])) - 1e-5;
  n = coll_collide(&p, &b, c);
  ck_assert_int_eq(n, 4);
  ck_assert_int_eq(coll_reduce_patch(c, n, PATCH_SLOPE_DEFAULT, 4), 4);
  // a small cube tilted by 0.1 rad
  double hs[3] = {0.004, 0.004, 0.004};
  rot(R, 1, 0, 0, 0.1);
  coll_geom bs = geom(MODEL_GEOM_BOX, hs, pos, R);
  bs.margin = 1e-3;
  pos[2] = 0.004 * (fabs(R[6]) + fabs(R[7]) + fabs(R[8])) - 1e-5;
  n = coll_collide(&p, &bs, c);
  ck_assert_int_eq(n, 4);
  n = coll_reduce_patch(c, n, PATCH_SLOPE_DEFAULT, 4);
  ck_assert_int_eq(n, 2);
  for (int i = 0; i < n; i++) ck_assert_double_eq_tol(c[i].depth, 1e-5, 1e-13);
  // off (slope 0) changes nothing
  n = coll_collide(&p, &bs, c);
  ck_assert_int_eq(coll_reduce_patch(c, n, 0, 4), 4);
  // capsules: lying (ends 1e-5 deep), standing (one end)
  double cs[3] = {0.02, 0.1, 0}, pc[3] = {0, 0, 0.02 - 1e-5};
  rot(R, 0, 1, 0, PI / 2);
  coll_geom cp = geom(MODEL_GEOM_CAPSULE, cs, pc, R);
  cp.margin = 1e-3;
  n = coll_collide(&p, &cp, c);
  ck_assert_int_eq(n, 2);
  ck_assert_int_eq(coll_reduce_patch(c, n, PATCH_SLOPE_DEFAULT, 4), 2);
  cp.mat = I3;
  pc[2] = 0.12 - 1e-5;
  ck_assert_int_eq(coll_reduce_patch(c, coll_collide(&p, &cp, c), PATCH_SLOPE_DEFAULT, 4), 1);
}
END_TEST

// 8 touching points on a circle of radius r (an octagonal patch, as box-box clipping makes for a
// box turned 45 deg on another): 4 kept, the deepest first, spanning a square of area 2 r^2 (the
// largest quadrilateral on the octagon); patch_max 1 keeps the deepest; a contact with another
// normal is kept whatever its depth
START_TEST(patch_max_spans) {
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  double r = 0.07;
  for (int i = 0; i < 8; i++) {
    memset(&c[i], 0, sizeof c[i]);
    c[i].pos[0] = r * cos(PI * i / 4);
    c[i].pos[1] = r * sin(PI * i / 4);
    c[i].normal[2] = 1;
    c[i].depth = i == 3 ? 2e-4 : 1e-4;
    c[i].feature = i;
  }
  coll_contact c1[COLL_MAX_PAIR_CONTACTS];
  memcpy(c1, c, sizeof c);
  int n = coll_reduce_patch(c, 8, PATCH_SLOPE_DEFAULT, 4);
  ck_assert_int_eq(n, 4);
  int mask = 0;
  for (int i = 0; i < n; i++) mask |= 1 << c[i].feature;
  ck_assert_int_eq(mask, (1 << 3) | (1 << 7) | (1 << 1) | (1 << 5));  // the square through 3
  // shoelace area of the kept points in angular order (they keep their order: 1, 3, 5, 7)
  double area = 0;
  for (int i = 0; i < n; i++) {
    const double *a = c[i].pos, *b2 = c[(i + 1) % n].pos;
    area += 0.5 * (a[0] * b2[1] - a[1] * b2[0]);
  }
  ck_assert_double_eq_tol(area, 2 * r * r, 1e-15);
  ck_assert_int_eq(coll_reduce_patch(c1, 8, PATCH_SLOPE_DEFAULT, 1), 1);
  ck_assert_int_eq(c1[0].feature, 3);
  // a shallow near contact with another normal (a side wall) survives
  memset(c1, 0, 2 * sizeof c1[0]);
  c1[0].normal[2] = 1; c1[0].depth = 1e-3;
  c1[1].normal[0] = 1; c1[1].depth = -9e-4; c1[1].pos[0] = 1e-3;
  ck_assert_int_eq(coll_reduce_patch(c1, 2, PATCH_SLOPE_DEFAULT, 4), 2);
  c1[1].normal[0] = 0; c1[1].normal[2] = 1;  // same normal: the rise 1.9 mm over 1 mm is dropped
  ck_assert_int_eq(coll_reduce_patch(c1, 2, PATCH_SLOPE_DEFAULT, 4), 1);
}
END_TEST

//---------------------------------- sphere / capsule pairs -----------------------------------

START_TEST(sphere_sphere_exact) {
  double s1[3] = {0.1}, s2[3] = {0.2}, p1[3] = {0, 0, 0}, p2[3] = {0.18, 0.24, 0};  // |d| = 0.3
  coll_geom a = geom(MODEL_GEOM_SPHERE, s1, p1, I3), b = geom(MODEL_GEOM_SPHERE, s2, p2, I3);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  p2[0] *= 1.01;  // 0.0018 apart: nothing
  ck_assert_int_eq(coll_collide(&a, &b, c), 0);
  p2[0] = 0.15; p2[1] = 0.2;  // |d| = 0.25, depth 0.05
  ck_assert_int_eq(coll_collide(&a, &b, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.05, 1e-15);
  ck_assert_double_eq_tol(c[0].normal[0], 0.6, 1e-15);
  ck_assert_double_eq_tol(c[0].normal[1], 0.8, 1e-15);
  // p1 = 0.1 n, p2 = (0.15, 0.2) - 0.2 n = 0.05 n: midpoint 0.075 n
  ck_assert_double_eq_tol(c[0].pos[0], 0.075 * 0.6, 1e-15);
  ck_assert_double_eq_tol(c[0].pos[1], 0.075 * 0.8, 1e-15);
}
END_TEST

// ellipsoids: on a plane, the lowest point at sqrt(z' R D^2 R' z) below the centre (D = radii)
// for random orientations; through the convex path, against a sphere off each axis (depth
// radius + r - distance) and, as a sphere of equal radii, against boxes at random poses where
// coll_box_sphere is exact
START_TEST(ellipsoid_plane_and_convex) {
  double sz[3] = {0.3, 0.2, 0.1}, R[9], pos[3], zero[3] = {0, 0, 0};
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  rng_state = 41;
  coll_geom p = geom(MODEL_GEOM_PLANE, sz, ORIGIN, I3);
  for (int t = 0; t < 50; t++) {
    rand_rot(R);
    double u[3] = {R[6], R[7], R[8]}, low = 0;   // R' z
    for (int k = 0; k < 3; k++) low += sz[k] * sz[k] * u[k] * u[k];
    low = sqrt(low);
    pos[0] = urange(-1, 1), pos[1] = urange(-1, 1), pos[2] = low - urange(0.001, 0.05);
    coll_geom e = geom(MODEL_GEOM_ELLIPSOID, sz, pos, R);
    ck_assert_int_eq(coll_collide(&p, &e, c), 1);
    ck_assert_double_eq_tol(c[0].depth, low - pos[2], 1e-14);
    ck_assert_double_eq_tol(c[0].normal[2], 1, 1e-15);
    pos[2] = low + 0.01;
    ck_assert_int_eq(coll_collide(&p, &e, c), 0);
  }
  coll_geom e0 = geom(MODEL_GEOM_ELLIPSOID, sz, zero, I3);
  double rs[3] = {0.05}, worst = 0;
  for (int ax = 0; ax < 3; ax++) {
    double q[3] = {0, 0, 0};
    q[ax] = sz[ax] + 0.05 - 0.02;
    coll_geom s = geom(MODEL_GEOM_SPHERE, rs, q, I3);
    ck_assert_int_eq(coll_collide(&e0, &s, c), 1);
    worst = fmax(worst, fabs(c[0].depth - 0.02));
    ck_assert_double_eq_tol(fabs(c[0].normal[ax]), 1, 1e-6);
  }
  double r3[3] = {0.1, 0.1, 0.1}, hb[3] = {0.2, 0.15, 0.1}, Rb[9], pb[3];
  for (int t = 0; t < 50; t++) {
    rand_rot(Rb);
    rand_unit(pb);
    for (int k = 0; k < 3; k++) pb[k] *= 0.25;
    coll_geom b = geom(MODEL_GEOM_BOX, hb, pb, Rb), e = geom(MODEL_GEOM_ELLIPSOID, r3, zero, I3);
    coll_geom s = geom(MODEL_GEOM_SPHERE, r3, zero, I3);
    coll_contact cs[COLL_MAX_PAIR_CONTACTS];
    int ns = coll_collide(&b, &s, cs), ne = coll_collide(&b, &e, c);
    ck_assert_int_eq(ne, ns);
    if (ns) worst = fmax(worst, fabs(c[0].depth - cs[0].depth));
  }
  fprintf(stderr, "ellipsoid through GJK/EPA: depth within %.2g of the closed forms\n", worst);
  ck_assert_msg(worst < 1e-6, "ellipsoid depth off by %g", worst);
}
END_TEST

// GJK/EPA on curved shapes against closed forms at random poses: two ellipsoids of equal radii
// (spheres: depth r1 + r2 - |d| along d), a cylinder's side against such an ellipsoid (depth
// r + rs - the radial distance, normal radial) and two crossed cylinders side on side (depth
// r1 + r2 - the axes' distance, normal along their common perpendicular). Depth within 1 nm +
// 1e-6 of itself, normals within 5e-4 rad, points within 1e-5 m: EPA's tight stop gives at most
// 2.1e-4 rad and 2.2e-6 m here; the looser stop once tried on curved pairs (1e-9 + 1e-6 depth)
// gave 5.8e-4 rad and 1.6e-5 m and fails (collision_convex.c EPA_ABS says why it was dropped)
static void curved_check(const coll_geom* a, const coll_geom* b, double depth, const double n[3],
                         const double pos[3], double* worst) {
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  ck_assert_int_eq(coll_collide(a, b, c), 1);
  double ed = fabs(c[0].depth - depth), en = 1 - sp_dot3(c[0].normal, n);
  ck_assert_msg(ed <= 1e-9 + 1e-6 * depth + 1e-13, "depth %.17g, closed form %.17g", c[0].depth,
                depth);
  ck_assert_msg(en <= 0.5 * 5e-4 * 5e-4, "normal off by %g rad", sqrt(2 * fmax(en, 0)));
  ck_assert_msg(dist3(c[0].pos, pos) <= 1e-5, "point off by %g", dist3(c[0].pos, pos));
  worst[0] = fmax(worst[0], ed / (1e-9 + 1e-6 * depth));
  worst[1] = fmax(worst[1], sqrt(2 * fmax(en, 0)));
  worst[2] = fmax(worst[2], dist3(c[0].pos, pos));
}

START_TEST(curved_epa_vs_closed_forms) {
  double worst[3] = {0, 0, 0};
  rng_state = 2525;
  for (int t = 0; t < 200; t++) {
    double R1[9], R2[9], Rc[9], n[3], c1[3], c2[3], pos[3], p1[3], p2[3];
    rand_rot(R1);
    rand_rot(R2);
    // ellipsoid pair of equal radii
    double r1 = urange(0.03, 0.2), r2 = urange(0.03, 0.2), dep = urange(1e-4, 0.02);
    double s1[3] = {r1, r1, r1}, s2[3] = {r2, r2, r2};
    rand_unit(n);
    for (int k = 0; k < 3; k++) c1[k] = urange(-1, 1), c2[k] = c1[k] + (r1 + r2 - dep) * n[k];
    sp_madd3(p1, c1, n, r1);
    sp_madd3(p2, c2, n, -r2);
    for (int k = 0; k < 3; k++) pos[k] = 0.5 * (p1[k] + p2[k]);
    coll_geom e1 = geom(MODEL_GEOM_ELLIPSOID, s1, c1, R1), e2 = geom(MODEL_GEOM_ELLIPSOID, s2, c2, R2);
    curved_check(&e1, &e2, dep, n, pos, worst);
    // cylinder side against an ellipsoid of equal radii, away from the rims
    double sc[3] = {urange(0.05, 0.15), urange(0.1, 0.3)}, rs = urange(0.03, 0.1), th = urange(0, 2 * PI);
    double loc[3] = {cos(th), sin(th), urange(-0.5, 0.5) * sc[1]}, ax[3], foot[3];
    double ss[3] = {rs, rs, rs};
    sp_mulmv3(n, R1, loc);
    sp_axis3(ax, R1, 2);
    sp_madd3(n, n, ax, -sp_dot3(n, ax));  // radial: R1 (cos, sin, 0)
    sp_normalize3(n);
    sp_madd3(foot, c1, ax, loc[2]);
    sp_madd3(c2, foot, n, sc[0] + rs - dep);
    sp_madd3(p1, foot, n, sc[0]);
    sp_madd3(p2, c2, n, -rs);
    for (int k = 0; k < 3; k++) pos[k] = 0.5 * (p1[k] + p2[k]);
    coll_geom cy = geom(MODEL_GEOM_CYLINDER, sc, c1, R1), es = geom(MODEL_GEOM_ELLIPSOID, ss, c2, R2);
    curved_check(&cy, &es, dep, n, pos, worst);
    // crossed cylinders: axes R x and R y (R random), the second above the first along R z
    double sa[3] = {urange(0.03, 0.1), urange(0.2, 0.4)}, sb[3] = {urange(0.03, 0.1), urange(0.2, 0.4)};
    double Ra[9], Rb[9], Rx[9], Ry[9], ex[3], ey[3], a1[3], a2[3];
    rand_rot(Rc);
    rot(Rx, 0, 1, 0, PI / 2);  // local z onto x
    rot(Ry, 1, 0, 0, PI / 2);  // local z onto -y
    sp_mulmm3(Ra, Rc, Rx);
    sp_mulmm3(Rb, Rc, Ry);
    sp_axis3(ex, Rc, 0);
    sp_axis3(ey, Rc, 1);
    sp_axis3(n, Rc, 2);
    double ua = urange(-0.5, 0.5) * sa[1], ub = urange(-0.5, 0.5) * sb[1];
    sp_madd3(a1, c1, ex, ua);                       // the first axis's closest point
    sp_madd3(a2, a1, n, sa[0] + sb[0] - dep);       // the second's, above it
    sp_madd3(c2, a2, ey, -ub);                      // the second's centre along its axis
    sp_madd3(p1, a1, n, sa[0]);
    sp_madd3(p2, a2, n, -sb[0]);
    for (int k = 0; k < 3; k++) pos[k] = 0.5 * (p1[k] + p2[k]);
    coll_geom ca = geom(MODEL_GEOM_CYLINDER, sa, c1, Ra), cb = geom(MODEL_GEOM_CYLINDER, sb, c2, Rb);
    curved_check(&ca, &cb, dep, n, pos, worst);
  }
  fprintf(stderr, "curved GJK/EPA vs closed forms: depth error at most %.2g of the bound, normal "
          "%.2g rad, point %.2g m\n", worst[0], worst[1], worst[2]);
}
END_TEST

// the support function of A - B for two ellipsoids, written here from its definition (h(n) =
// c.n + sqrt(n' R D^2 R' n) for each), independent of collision_convex.c's
static double ell_pair_h(const coll_geom* a, const coll_geom* b, const double n[3]) {
  double h = 0;
  for (int side = 0; side < 2; side++) {
    const coll_geom* g = side ? b : a;
    double m[3] = {side ? -n[0] : n[0], side ? -n[1] : n[1], side ? -n[2] : n[2]}, q = 0;
    for (int k = 0; k < 3; k++) {
      double u = g->mat[k] * m[0] + g->mat[3 + k] * m[1] + g->mat[6 + k] * m[2];  // (R' m)_k
      q += g->size[k] * g->size[k] * u * u;
    }
    h += g->pos[0] * m[0] + g->pos[1] * m[1] + g->pos[2] * m[2] + sqrt(q);
  }
  return h;
}

// its global minimum over unit n, the penetration depth: the best of 20000 directions spread
// over the sphere (Fibonacci), then a compass search in angles around it down to 1e-10 rad
static double ell_pair_depth(const coll_geom* a, const coll_geom* b, double nbest[3]) {
  double best = INFINITY, th = 0, ph = 0;
  for (int i = 0; i < 20000; i++) {
    double z = 1 - (2 * i + 1) / 20000.0, r = sqrt(1 - z * z), az = i * PI * (3 - sqrt(5.0));
    double n[3] = {r * cos(az), r * sin(az), z}, h = ell_pair_h(a, b, n);
    if (h < best) best = h, th = acos(z), ph = az;
  }
  for (double step = 0.05; step > 1e-10;) {
    int moved = 0;
    for (int k = 0; k < 4; k++) {
      double t2 = th + (k == 0 ? step : k == 1 ? -step : 0);
      double p2 = ph + (k == 2 ? step : k == 3 ? -step : 0);
      double n[3] = {sin(t2) * cos(p2), sin(t2) * sin(p2), cos(t2)}, h = ell_pair_h(a, b, n);
      if (h < best) best = h, th = t2, ph = p2, moved = 1;
    }
    if (!moved) step *= 0.5;
  }
  nbest[0] = sin(th) * cos(ph), nbest[1] = sin(th) * sin(ph), nbest[2] = cos(th);
  return best;
}

// two ellipsoids of unequal radii at random poses and depths up to a third of the smaller
// radius: the depth and normal against the global minimum of A - B's support function above.
// Newton's finish (collision_convex.c ell_refine) reaches it to round-off: depth within 1e-12 m
// (EPA alone stops at 1e-11 + 1e-10 relative, up to some 1e-11 here) and normal within 1e-5 rad
// (the oracle's compass search resolves f to 1e-16, the angle to about 1e-8 near a flat minimum)
START_TEST(ellipsoid_pair_at_the_support_minimum) {
  rng_state = 9090;
  double worst_d = 0, worst_n = 0;
  for (int t = 0; t < 60; t++) {
    double R1[9], R2[9], s1[3], s2[3], c1[3], c2[3], u[3], on[3];
    rand_rot(R1);
    rand_rot(R2);
    for (int k = 0; k < 3; k++) s1[k] = urange(0.03, 0.2), s2[k] = urange(0.03, 0.2);
    rand_unit(u);
    for (int k = 0; k < 3; k++) c1[k] = urange(-1, 1);
    coll_geom e1 = geom(MODEL_GEOM_ELLIPSOID, s1, c1, R1);
    // place the second along u where the two just touch (bisection on the support gap), then
    // push it in by a random depth
    double lo = 0, hi = 1;
    for (int it = 0; it < 80; it++) {
      double mid = 0.5 * (lo + hi), nn[3];
      for (int k = 0; k < 3; k++) c2[k] = c1[k] + mid * u[k];
      coll_geom e2 = geom(MODEL_GEOM_ELLIPSOID, s2, c2, R2);
      if (ell_pair_depth(&e1, &e2, nn) > 0) lo = mid;
      else hi = mid;
      if (hi - lo < 1e-6) break;
    }
    double smin = fmin(fmin(fmin(s1[0], s1[1]), s1[2]), fmin(fmin(s2[0], s2[1]), s2[2]));
    double back = urange(1e-4, smin / 3);
    for (int k = 0; k < 3; k++) c2[k] = c1[k] + (lo - back) * u[k];
    coll_geom e2 = geom(MODEL_GEOM_ELLIPSOID, s2, c2, R2);
    double depth = ell_pair_depth(&e1, &e2, on);
    coll_contact c[COLL_MAX_PAIR_CONTACTS];
    ck_assert_int_eq(coll_collide(&e1, &e2, c), 1);
    double ed = fabs(c[0].depth - depth), en = acos(fmin(1, fabs(sp_dot3(c[0].normal, on))));
    ck_assert_msg(ed <= 1e-12, "depth %.17g, the support minimum %.17g", c[0].depth, depth);
    ck_assert_msg(en <= 1e-5, "normal off by %g rad", en);
    worst_d = fmax(worst_d, ed);
    worst_n = fmax(worst_n, en);
  }
  fprintf(stderr, "ellipsoid pairs: depth within %.2g m of the support minimum, normal %.2g rad\n",
          worst_d, worst_n);
}
END_TEST

// a cylinder whose axis is the unit a: its rotation (local z onto a), any spin about a
static void axis_rot(const double a[3], double R[9]) {
  double e[3] = {1, 0, 0}, x[3], y[3];
  if (fabs(a[0]) > 0.8) e[0] = 0, e[1] = 1;
  sp_cross3(y, a, e);
  sp_normalize3(y);
  sp_cross3(x, y, a);
  for (int k = 0; k < 3; k++) R[3 * k] = x[k], R[3 * k + 1] = y[k], R[3 * k + 2] = a[k];
}

// a cylinder's rim pushed into another's side (the pile's commonest cylinder pair), built where
// the answer is known: R's deepest point ps in a direction n across S's axis (R's axis 25-65 deg
// from n), S placed so that its side passes at depth d below ps along n (S's axis across n, ps
// well within S's length): the support function of R - S is stationary on n there with value d.
// Depth within 1e-14 m (the exact finish, collision_convex.c rim_side_min; EPA's tight stop
// alone leaves some 3e-12 here), normal within 1e-9 rad, the contact point within 1e-12 m
START_TEST(cylinder_rim_on_side) {
  rng_state = 4242;
  double worst[3] = {0, 0, 0};
  for (int t = 0; t < 100; t++) {
    double n[3], ar[3], as[3], tmp[3], Rr[9], Rs[9], cr[3], cs[3], q[3], ps[3], pos[3];
    rand_unit(n);
    // R's axis at angle phi from n, S's axis across n
    double phi = urange(25, 65) * PI / 180;
    rand_unit(tmp);
    sp_madd3(tmp, tmp, n, -sp_dot3(tmp, n));
    sp_normalize3(tmp);
    for (int k = 0; k < 3; k++) ar[k] = cos(phi) * n[k] + sin(phi) * tmp[k];
    rand_unit(as);
    sp_madd3(as, as, n, -sp_dot3(as, n));
    sp_normalize3(as);
    double sr[3] = {urange(0.04, 0.15), urange(0.05, 0.2)}, ss[3] = {urange(0.04, 0.15), urange(0.2, 0.4)};
    double d = urange(1e-4, 0.01);
    for (int k = 0; k < 3; k++) cr[k] = urange(-1, 1);
    axis_rot(ar, Rr);
    axis_rot(as, Rs);
    // R's support in n: the rim point c + r q + l a (q: n across R's axis)
    sp_madd3(q, n, ar, -sp_dot3(ar, n));
    sp_normalize3(q);
    sp_madd3(ps, cr, q, sr[0]);
    sp_madd3(ps, ps, ar, sr[1]);
    // S: its side's deepest point in -n at ps - d n, ps at alpha along its axis
    double alpha = urange(-0.5, 0.5) * ss[1];
    sp_madd3(cs, ps, n, ss[0] - d);
    sp_madd3(cs, cs, as, -alpha);
    sp_madd3(pos, ps, n, -0.5 * d);
    coll_geom gr = geom(MODEL_GEOM_CYLINDER, sr, cr, Rr), gs = geom(MODEL_GEOM_CYLINDER, ss, cs, Rs);
    coll_contact c[COLL_MAX_PAIR_CONTACTS];
    // both orders: the pair's normal points from geom1 to geom2
    for (int o = 0; o < 2; o++) {
      int k = o ? coll_collide(&gs, &gr, c) : coll_collide(&gr, &gs, c);
      ck_assert_int_eq(k, 1);
      double cx[3];
      sp_cross3(cx, c[0].normal, n);
      double dn = sp_norm3(cx);  // the angle, without acos's loss near 1
      ck_assert_msg(fabs(c[0].depth - d) <= 1e-14, "depth %.17g, built %.17g", c[0].depth, d);
      ck_assert_msg(dn <= 1e-9, "normal off by %g rad", dn);
      ck_assert_msg(dist3(c[0].pos, pos) <= 1e-12, "point off by %g m", dist3(c[0].pos, pos));
      worst[0] = fmax(worst[0], fabs(c[0].depth - d));
      worst[1] = fmax(worst[1], dn);
      worst[2] = fmax(worst[2], dist3(c[0].pos, pos));
    }
  }
  fprintf(stderr, "cylinder rim on side: depth within %.2g m, normal %.2g rad, point %.2g m\n",
          worst[0], worst[1], worst[2]);
}
END_TEST

START_TEST(sphere_capsule_and_capsule_capsule) {
  double ss[3] = {0.1}, cs[3] = {0.05, 0.3}, ps[3] = {0.2, 0.0, 0.14}, pc[3] = {0, 0, 0}, R[9];
  rot(R, 0, 1, 0, PI / 2);  // capsule along x
  coll_geom s = geom(MODEL_GEOM_SPHERE, ss, ps, I3), cp = geom(MODEL_GEOM_CAPSULE, cs, pc, R);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  // sphere above the segment interior: depth 0.15 - 0.14, normal from sphere into capsule = -z
  ck_assert_int_eq(coll_collide(&s, &cp, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.01, 1e-15);
  ck_assert_double_eq_tol(c[0].normal[2], -1, 1e-15);
  ck_assert_double_eq_tol(c[0].pos[2], 0.045, 1e-15);
  // beyond the end: closest point is the end (0.3, 0, 0)
  ps[0] = 0.3 + 0.09; ps[2] = 0.0;
  ck_assert_int_eq(coll_collide(&s, &cp, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.06, 1e-15);
  ck_assert_double_eq_tol(c[0].normal[0], -1, 1e-15);
  // crossing capsules (x and y axes), 0.09 apart in z: one point, depth 0.01
  double R2[9], pc2[3] = {0.1, 0.05, 0.09};
  rot(R2, 1, 0, 0, PI / 2);  // along y
  coll_geom c2 = geom(MODEL_GEOM_CAPSULE, cs, pc2, R2);
  ck_assert_int_eq(coll_collide(&cp, &c2, c), 1);
  ck_assert_double_eq_tol(c[0].depth, 0.01, 1e-15);
  ck_assert_double_eq_tol(c[0].normal[2], 1, 1e-15);
  ck_assert_double_eq_tol(c[0].pos[0], 0.1, 1e-15);
  ck_assert_double_eq_tol(c[0].pos[1], 0.0, 1e-15);
  ck_assert_double_eq_tol(c[0].pos[2], 0.045, 1e-15);
  // parallel capsules overlapping over x in [0.1, 0.3]: two points
  pc2[0] = 0.4; pc2[1] = 0; pc2[2] = 0.09;
  c2.mat = R;
  int n = coll_collide(&cp, &c2, c);
  ck_assert_int_eq(n, 2);
  for (int i = 0; i < 2; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.01, 1e-15);
    ck_assert_double_eq_tol(c[i].normal[2], 1, 1e-15);
  }
  ck_assert_double_eq_tol(fmin(c[0].pos[0], c[1].pos[0]), 0.1, 1e-14);
  ck_assert_double_eq_tol(fmax(c[0].pos[0], c[1].pos[0]), 0.3, 1e-14);
}
END_TEST

// sphere against a box: face, edge, corner regions and a centre inside the box
START_TEST(box_sphere_regions) {
  double h[3] = {0.5, 0.4, 0.3}, r[3] = {0.1}, pb[3] = {1, 1, 1}, ps[3], R[9];
  rot(R, 1, 1, 1, 0.7);
  coll_geom b = geom(MODEL_GEOM_BOX, h, pb, R), s = geom(MODEL_GEOM_SPHERE, r, ps, I3);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  // local sphere centres and expected (depth, local normal)
  struct { double loc[3], depth, nl[3]; } cases[] = {
      {{0.1, 0.1, 0.38}, 0.02, {0, 0, 1}},                              // face +z
      {{0.53, 0.1, 0.34}, 0.05, {0.6, 0, 0.8}},                         // edge x-z
      {{-0.5 - 0.02, -0.4 - 0.04, -0.3 - 0.04}, 0.04, {-1. / 3, -2. / 3, -2. / 3}},  // corner
      {{0.2, 0.35, 0.0}, 0.15, {0, 1, 0}},                              // inside, nearest +y
  };
  for (int k = 0; k < 4; k++) {
    double w[3];
    sp_xform(ps, R, pb, cases[k].loc);
    ck_assert_int_eq(coll_collide(&b, &s, c), 1);
    ck_assert_double_eq_tol(c[0].depth, cases[k].depth, 1e-14);
    sp_mulmv3(w, R, cases[k].nl);
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(c[0].normal[i], w[i], 1e-14);
    // p1 - p2 = depth * n with p2 = centre - r n: p1 on the box surface
    double p2[3], p1[3];
    for (int i = 0; i < 3; i++) {
      p2[i] = ps[i] - 0.1 * w[i];
      p1[i] = p2[i] + cases[k].depth * w[i];
    }
    double mid[3] = {(p1[0] + p2[0]) / 2, (p1[1] + p2[1]) / 2, (p1[2] + p2[2]) / 2};
    ck_assert_double_le(dist3(mid, c[0].pos), 1e-14);
  }
}
END_TEST

//---------------------------------- box-box --------------------------------------------------

// a small box resting on a large one: 4 points; a same-size box turned 45 degrees: octagon
START_TEST(box_box_face_contacts) {
  double ha[3] = {0.5, 0.5, 0.5}, hb[3] = {0.1, 0.1, 0.1}, pa[3] = {0, 0, 0}, pb[3] = {0.2, -0.1, 0.59};
  coll_geom a = geom(MODEL_GEOM_BOX, ha, pa, I3), b = geom(MODEL_GEOM_BOX, hb, pb, I3);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  int n = coll_collide(&a, &b, c);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.01, 1e-14);
    ck_assert_double_eq_tol(c[i].normal[2], 1, 1e-15);
    ck_assert_double_eq_tol(c[i].pos[2], 0.495, 1e-14);
    ck_assert_double_eq_tol(fabs(c[i].pos[0] - 0.2), 0.1, 1e-14);
    ck_assert_double_eq_tol(fabs(c[i].pos[1] + 0.1), 0.1, 1e-14);
    for (int j = 0; j < i; j++) ck_assert_int_ne(c[i].feature, c[j].feature);
  }
  // reversed roles: normal from the small box down into the large one
  n = coll_collide(&b, &a, c);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < n; i++) ck_assert_double_eq_tol(c[i].normal[2], -1, 1e-15);
  // same size, top box turned 45 degrees about z: the 8 vertices of the octagon
  double R[9], pb2[3] = {0, 0, 0.99};
  rot(R, 0, 0, 1, PI / 4);
  coll_geom b2 = geom(MODEL_GEOM_BOX, ha, pb2, R);
  n = coll_collide(&a, &b2, c);
  ck_assert_int_eq(n, 8);
  double t = 0.5 * sqrt(2.0);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.01, 1e-14);
    ck_assert_double_eq_tol(c[i].normal[2], 1, 1e-15);
    // on the boundary of both squares
    double x = c[i].pos[0], y = c[i].pos[1];
    ck_assert_double_le(fabs(x), 0.5 + 1e-12);
    ck_assert_double_le(fabs(y), 0.5 + 1e-12);
    ck_assert_double_le(fabs(x + y), t + 1e-12);
    ck_assert_double_le(fabs(x - y), t + 1e-12);
    double on = fmin(0.5 - fmax(fabs(x), fabs(y)), t - fmax(fabs(x + y), fabs(x - y)));
    ck_assert_double_le(fabs(on), 1e-12);
    for (int j = 0; j < i; j++) ck_assert_int_ne(c[i].feature, c[j].feature);
  }
  // separated by more than the margin: nothing; within the margin: near contacts
  pb2[2] = 1.02;
  ck_assert_int_eq(coll_collide(&a, &b2, c), 0);
  b2.margin = 0.05;
  n = coll_collide(&a, &b2, c);
  ck_assert_int_eq(n, 8);
  ck_assert_double_eq_tol(c[0].depth, -0.02, 1e-14);
}
END_TEST

// two cubes crossed edge on edge: one point between the edges
START_TEST(box_box_edge_edge) {
  double h[3] = {0.5, 0.5, 0.5}, pa[3] = {0, 0, 0}, pb[3] = {0, 0, 0}, Ra[9], Rb[9];
  rot(Ra, 0, 1, 0, PI / 4);  // top edge of A along y at z = 0.5 sqrt 2
  rot(Rb, 1, 0, 0, PI / 4);  // bottom edge of B along x
  double e = 0.5 * sqrt(2.0);
  pb[2] = 2 * e - 0.03;
  coll_geom a = geom(MODEL_GEOM_BOX, h, pa, Ra), b = geom(MODEL_GEOM_BOX, h, pb, Rb);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  int n = coll_collide(&a, &b, c);
  ck_assert_int_eq(n, 1);
  ck_assert_double_eq_tol(c[0].depth, 0.03, 1e-14);
  ck_assert_double_eq_tol(c[0].normal[2], 1, 1e-14);
  ck_assert_double_eq_tol(c[0].pos[0], 0, 1e-14);
  ck_assert_double_eq_tol(c[0].pos[1], 0, 1e-14);
  ck_assert_double_eq_tol(c[0].pos[2], e - 0.015, 1e-14);
  // the general convex path agrees
  n = coll_convex(&a, &b, 0, c);
  ck_assert_int_eq(n, 1);
  ck_assert_double_eq_tol(c[0].depth, 0.03, 1e-12);
  ck_assert_double_eq_tol(c[0].normal[2], 1, 1e-12);
  ck_assert_double_eq_tol(c[0].pos[2], e - 0.015, 1e-12);
}
END_TEST

// a tilted box on a box: the patch keeps the 2 points of the lower edge
START_TEST(box_box_tilted_edge_on_face) {
  double ha[3] = {1, 1, 0.5}, hb[3] = {0.2, 0.2, 0.2}, pa[3] = {0, 0, 0}, pb[3], R[9];
  rot(R, 0, 1, 0, 0.3);
  double low = 0.2 * fabs(R[6]) + 0.2 * fabs(R[8]);
  pb[0] = 0.1; pb[1] = 0.2; pb[2] = 0.5 + low - 0.01;
  coll_geom a = geom(MODEL_GEOM_BOX, ha, pa, I3), b = geom(MODEL_GEOM_BOX, hb, pb, R);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  int n = coll_collide(&a, &b, c);
  ck_assert_int_eq(n, 2);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.01, 1e-14);
    ck_assert_double_eq_tol(c[i].normal[2], 1, 1e-15);
  }
  ck_assert_double_eq_tol(fabs(c[0].pos[1] - c[1].pos[1]), 0.4, 1e-14);
  // the general convex path gives the same two points
  coll_contact g[COLL_MAX_PAIR_CONTACTS];
  ck_assert_int_eq(coll_convex(&a, &b, 0, g), 2);
  for (int i = 0; i < 2; i++) {
    ck_assert_double_eq_tol(g[i].depth, 0.01, 1e-12);
    int j = fabs(g[i].pos[1] - c[0].pos[1]) < 1e-9 ? 0 : 1;
    ck_assert_double_le(dist3(g[i].pos, c[j].pos), 1e-12);
  }
}
END_TEST

//---------------------------------- general convex path --------------------------------------

// capsule on a box (2), cylinder on a box (8 rim points), cube hull on a box and on a hull (4)
START_TEST(convex_patches) {
  double hb[3] = {0.5, 0.5, 0.1}, pb[3] = {0, 0, 0};
  coll_geom box = geom(MODEL_GEOM_BOX, hb, pb, I3);
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  // capsule along x lying on the box top
  double cs[3] = {0.05, 0.2}, pc[3] = {0.1, 0.1, 0.14}, R[9];
  rot(R, 0, 1, 0, PI / 2);
  coll_geom cp = geom(MODEL_GEOM_CAPSULE, cs, pc, R);
  int n = coll_collide(&box, &cp, c);
  ck_assert_int_eq(n, 2);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.01, 1e-12);
    ck_assert_double_eq_tol(c[i].normal[2], 1, 1e-12);
    ck_assert_double_eq_tol(fabs(c[i].pos[0] - 0.1), 0.2, 1e-12);
    ck_assert_double_eq_tol(c[i].pos[2], 0.095, 1e-12);
  }
  ck_assert_int_ne(c[0].feature, c[1].feature);
  // cylinder standing on the box top
  double ys[3] = {0.1, 0.2}, py[3] = {0, 0.1, 0.299};
  coll_geom cy = geom(MODEL_GEOM_CYLINDER, ys, py, I3);
  n = coll_collide(&box, &cy, c);
  ck_assert_int_eq(n, COLL_CYL_RIM);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.001, 1e-12);
    ck_assert_double_eq_tol(hypot(c[i].pos[0], c[i].pos[1] - 0.1), 0.1, 1e-12);
  }
  // cube hull (half 0.1) resting on the box
  coll_hull hl = cube_hull(0.1);
  double zs[3] = {0}, pm[3] = {0.2, -0.1, 0.195};
  coll_geom m = geom(MODEL_GEOM_MESH, zs, pm, I3);
  m.hull = &hl;
  n = coll_collide(&box, &m, c);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.005, 1e-12);
    ck_assert_double_eq_tol(c[i].normal[2], 1, 1e-12);
    ck_assert_double_eq_tol(fabs(c[i].pos[0] - 0.2), 0.1, 1e-12);
  }
  // hull on hull, the top one shifted so the faces overlap on a 0.1 x 0.2 rectangle
  double pm2[3] = {0.2 + 0.1, -0.1, 0.195 + 0.2 - 0.003};
  coll_geom m2 = geom(MODEL_GEOM_MESH, zs, pm2, I3);
  m2.hull = &hl;
  n = coll_collide(&m, &m2, c);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.003, 1e-12);
    ck_assert_double_eq_tol(c[i].normal[2], 1, 1e-12);
    ck_assert_double_ge(c[i].pos[0], 0.2 - 1e-12);
    ck_assert_double_le(c[i].pos[0], 0.3 + 1e-12);
  }
  // a sphere on the hull matches the analytic sphere-box
  double ss[3] = {0.05}, ps[3] = {0.25, -0.05, 0.33};
  coll_geom s = geom(MODEL_GEOM_SPHERE, ss, ps, I3);
  double h1[3] = {0.1, 0.1, 0.1};
  coll_geom cube = geom(MODEL_GEOM_BOX, h1, pm, I3);
  coll_contact a[COLL_MAX_PAIR_CONTACTS];
  ck_assert_int_eq(coll_collide(&m, &s, c), 1);
  ck_assert_int_eq(coll_collide(&cube, &s, a), 1);
  ck_assert_double_eq_tol(c[0].depth, a[0].depth, 1e-12);
  ck_assert_double_le(dist3(c[0].pos, a[0].pos), 1e-12);
  ck_assert_double_le(dist3(c[0].normal, a[0].normal), 1e-12);
  coll_hull_free(&hl);
}
END_TEST

// libccd's MPR agrees with the analytic paths where its ray is the true normal
START_TEST(mpr_matches_analytic) {
  coll_contact c[COLL_MAX_PAIR_CONTACTS], a[COLL_MAX_PAIR_CONTACTS];
  // sphere-sphere
  double s1[3] = {0.1}, s2[3] = {0.2}, p1[3] = {0.1, 0.2, 0.3}, p2[3] = {0.25, 0.1, 0.45};
  coll_geom g1 = geom(MODEL_GEOM_SPHERE, s1, p1, I3), g2 = geom(MODEL_GEOM_SPHERE, s2, p2, I3);
  ck_assert_int_eq(coll_mpr(&g1, &g2, c), 1);
  ck_assert_int_eq(coll_collide(&g1, &g2, a), 1);
  ck_assert_double_eq_tol(c[0].depth, a[0].depth, 1e-6);
  ck_assert_double_le(dist3(c[0].normal, a[0].normal), 1e-6);
  ck_assert_double_le(dist3(c[0].pos, a[0].pos), 1e-6);
  // a box resting on a large box (the ground as a box) vs plane-box
  double big[3] = {10, 10, 1}, pbig[3] = {0, 0, -1}, hb[3] = {0.1, 0.2, 0.3}, pb[3] = {0, 0, 0.29};
  coll_geom ground = geom(MODEL_GEOM_BOX, big, pbig, I3), b = geom(MODEL_GEOM_BOX, hb, pb, I3);
  coll_geom plane = geom(MODEL_GEOM_PLANE, hb, ORIGIN, I3);
  ck_assert_int_eq(coll_mpr(&ground, &b, c), 1);
  ck_assert_int_eq(coll_collide(&plane, &b, a), 4);
  ck_assert_double_eq_tol(c[0].depth, 0.01, 1e-6);
  ck_assert_double_eq_tol(c[0].normal[2], 1, 1e-6);
  // sphere over a box face vs sphere-box
  double rs[3] = {0.1}, ps[3] = {0.02, -0.03, 0.29};
  coll_geom s = geom(MODEL_GEOM_SPHERE, rs, ps, I3), b2 = geom(MODEL_GEOM_BOX, hb, ORIGIN, I3);
  hb[2] = 0.2;
  ck_assert_int_eq(coll_mpr(&b2, &s, c), 1);
  ck_assert_int_eq(coll_collide(&b2, &s, a), 1);
  ck_assert_double_eq_tol(c[0].depth, a[0].depth, 1e-6);
  ck_assert_double_le(dist3(c[0].normal, a[0].normal), 1e-6);
  // MPR's point is a barycentric mix of support points: inside the overlap, not the midpoint
  ck_assert_double_le(dist3(c[0].pos, a[0].pos), a[0].depth);
  // separated: MPR reports nothing
  ps[2] = 0.31;
  ck_assert_int_eq(coll_mpr(&b2, &s, c), 0);
}
END_TEST

//---------------------------------- randomized cross-checks ----------------------------------

// 1000 random poses: GJK/EPA (coll_convex) vs analytic for sphere-sphere and sphere-box, MPR vs
// analytic for sphere-sphere; unit normals; nothing beyond the margin
START_TEST(random_convex_vs_analytic) {
  rng_state = 12345;
  int hits_ss = 0, hits_sb = 0, inside = 0;
  for (int it = 0; it < 1000; it++) {
    coll_contact a[COLL_MAX_PAIR_CONTACTS], c[COLL_MAX_PAIR_CONTACTS];
    double margin = urand() < 0.5 ? 0.0 : 0.02;
    // sphere-sphere
    double r1[3] = {urange(0.02, 0.3)}, r2[3] = {urange(0.02, 0.3)}, p1[3], p2[3], u[3];
    for (int k = 0; k < 3; k++) p1[k] = urange(-1, 1);
    rand_unit(u);
    double dd = urange(0.001, r1[0] + r2[0] + 0.05);
    for (int k = 0; k < 3; k++) p2[k] = p1[k] + dd * u[k];
    coll_geom g1 = geom(MODEL_GEOM_SPHERE, r1, p1, I3), g2 = geom(MODEL_GEOM_SPHERE, r2, p2, I3);
    g1.margin = margin;
    int na = coll_collide(&g1, &g2, a), nc = coll_convex(&g1, &g2, margin, c);
    ck_assert_int_eq(na, nc);
    ck_assert_int_eq(na, dd < r1[0] + r2[0] + margin);
    if (na) {
      hits_ss++;
      ck_assert_double_eq_tol(c[0].depth, a[0].depth, 1e-9);
      ck_assert_double_le(dist3(c[0].normal, a[0].normal), 1e-9);
      ck_assert_double_le(dist3(c[0].pos, a[0].pos), 1e-9);
      ck_assert_double_eq_tol(sp_norm3(c[0].normal), 1, 1e-12);
      if (a[0].depth > 1e-6) {
        ck_assert_int_eq(coll_mpr(&g1, &g2, c), 1);
        ck_assert_double_eq_tol(c[0].depth, a[0].depth, 1e-6);
        ck_assert_double_le(dist3(c[0].normal, a[0].normal), 1e-6);
        ck_assert_double_le(dist3(c[0].pos, a[0].pos), 1e-6);
      }
    }
    // sphere-box: centre anywhere from inside the box to just beyond the margin
    double h[3] = {urange(0.05, 0.5), urange(0.05, 0.5), urange(0.05, 0.5)}, R[9], pb[3], ps[3];
    double rs[3] = {urange(0.02, 0.3)};
    rand_rot(R);
    for (int k = 0; k < 3; k++) pb[k] = urange(-1, 1);
    double loc[3];
    for (int k = 0; k < 3; k++) loc[k] = urange(-1.2, 1.2) * (h[k] + rs[0]);
    sp_xform(ps, R, pb, loc);
    coll_geom b = geom(MODEL_GEOM_BOX, h, pb, R), s = geom(MODEL_GEOM_SPHERE, rs, ps, I3);
    b.margin = margin;
    na = coll_collide(&b, &s, a);
    nc = coll_convex(&b, &s, margin, c);
    ck_assert_int_eq(na, nc);
    if (na) {
      hits_sb++;
      if (fabs(loc[0]) < h[0] && fabs(loc[1]) < h[1] && fabs(loc[2]) < h[2]) inside++;
      ck_assert_double_eq_tol(c[0].depth, a[0].depth, 1e-9);
      ck_assert_double_le(dist3(c[0].normal, a[0].normal), 1e-9);
      ck_assert_double_le(dist3(c[0].pos, a[0].pos), 1e-9);
      ck_assert_double_ge(a[0].depth, -margin - 1e-15);
      ck_assert_double_eq_tol(sp_norm3(a[0].normal), 1, 1e-12);
    }
  }
  // the sample covers contacts, deep (centre inside) cases and misses
  ck_assert_int_gt(hits_ss, 300);
  ck_assert_int_gt(hits_sb, 200);
  ck_assert_int_gt(inside, 20);
}
END_TEST

// exact penetration depth of two boxes: min over the 15 SAT axes of the overlap (independent code)
static double sat_depth(const double* ha, const double* pa, const double* Ra, const double* hb,
                        const double* pb, const double* Rb, double n_out[3]) {
  double ax[15][3];
  int na = 0;
  for (int k = 0; k < 3; k++) {
    ax[na][0] = Ra[k]; ax[na][1] = Ra[3 + k]; ax[na][2] = Ra[6 + k]; na++;
    ax[na][0] = Rb[k]; ax[na][1] = Rb[3 + k]; ax[na][2] = Rb[6 + k]; na++;
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double a[3] = {Ra[i], Ra[3 + i], Ra[6 + i]}, b[3] = {Rb[j], Rb[3 + j], Rb[6 + j]}, c[3];
      sp_cross3(c, a, b);
      if (sp_normalize3(c) > 1e-6) { sp_copy3(ax[na], c); na++; }
    }
  double best = 1e300;
  for (int k = 0; k < na; k++) {
    double ra = 0, rb = 0;
    for (int j = 0; j < 3; j++) {
      double a[3] = {Ra[j], Ra[3 + j], Ra[6 + j]}, b[3] = {Rb[j], Rb[3 + j], Rb[6 + j]};
      ra += ha[j] * fabs(sp_dot3(a, ax[k]));
      rb += hb[j] * fabs(sp_dot3(b, ax[k]));
    }
    double d[3];
    sp_sub3(d, pb, pa);
    double ov = ra + rb - fabs(sp_dot3(d, ax[k]));
    if (ov < best) {
      best = ov;
      sp_copy3(n_out, ax[k]);
      if (sp_dot3(d, ax[k]) < 0) sp_scale3(n_out, n_out, -1);
    }
  }
  return best;
}

// 1000 random box pairs: analytic box-box and GJK/EPA never report a depth beyond the true one,
// the deepest contact reaches it, normals are unit, and separated pairs give nothing
START_TEST(random_box_box_invariants) {
  rng_state = 777;
  int overl = 0;
  for (int it = 0; it < 1000; it++) {
    double ha[3], hb[3], pa[3] = {0, 0, 0}, pb[3], Ra[9], Rb[9], u[3], n[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) { ha[k] = urange(0.05, 0.5); hb[k] = urange(0.05, 0.5); }
    rand_rot(Ra);
    rand_rot(Rb);
    rand_unit(u);
    double reach = sqrt(sp_dot3(ha, ha)) + sqrt(sp_dot3(hb, hb));
    double dd = urange(0.0, reach);
    for (int k = 0; k < 3; k++) pb[k] = dd * u[k];
    double depth = sat_depth(ha, pa, Ra, hb, pb, Rb, n);
    coll_geom a = geom(MODEL_GEOM_BOX, ha, pa, Ra), b = geom(MODEL_GEOM_BOX, hb, pb, Rb);
    coll_contact cb[COLL_MAX_PAIR_CONTACTS], cc[COLL_MAX_PAIR_CONTACTS];
    int nb = coll_collide(&a, &b, cb), nc = coll_convex(&a, &b, 0, cc);
    if (depth < -1e-9) {
      // separated (the SAT gap is a lower bound on the distance)
      ck_assert_int_eq(nb, 0);
      ck_assert_int_eq(nc, 0);
      continue;
    }
    if (depth < 1e-6) continue;  // grazing: either answer is fine
    overl++;
    ck_assert_int_gt(nb, 0);
    ck_assert_int_gt(nc, 0);
    double mb = -1, mc = -1;
    for (int i = 0; i < nb; i++) {
      ck_assert_double_le(cb[i].depth, depth + 1e-8);
      ck_assert_double_eq_tol(sp_norm3(cb[i].normal), 1, 1e-12);
      mb = fmax(mb, cb[i].depth);
    }
    for (int i = 0; i < nc; i++) {
      ck_assert_double_le(cc[i].depth, depth + 1e-9);
      ck_assert_double_eq_tol(sp_norm3(cc[i].normal), 1, 1e-12);
      mc = fmax(mc, cc[i].depth);
    }
    // GJK/EPA finds the exact depth and normal of the polytopes
    ck_assert_double_eq_tol(mc, depth, 1e-7);
    ck_assert_double_gt(sp_dot3(cc[0].normal, n), 1 - 1e-6);
    // the analytic normal is the SAT axis: its deepest point has the SAT depth unless clipped
    ck_assert_double_gt(mb, 0);
  }
  ck_assert_int_gt(overl, 200);
}
END_TEST

//---------------------------------- feature ids ----------------------------------------------

// the sorted features of a contact set
static int features(const coll_contact* c, int n, int* f) {
  for (int i = 0; i < n; i++) f[i] = c[i].feature;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && f[j - 1] > f[j]; j--) {
      int t = f[j]; f[j] = f[j - 1]; f[j - 1] = t;
    }
  return n;
}

// tiny motions keep the feature ids of box-plane, box-box, mesh-plane and mesh-box contacts
START_TEST(features_stable) {
  coll_hull hl = cube_hull(0.1);
  double hs[3] = {0.1, 0.1, 0.1}, hb[3] = {0.5, 0.5, 0.1}, pz[3] = {0, 0, -0.1};
  coll_geom plane = geom(MODEL_GEOM_PLANE, hs, ORIGIN, I3), base = geom(MODEL_GEOM_BOX, hb, pz, I3);
  rng_state = 99;
  for (int pairk = 0; pairk < 4; pairk++) {
    int f0[COLL_MAX_PAIR_CONTACTS], f1[COLL_MAX_PAIR_CONTACTS], n0 = -1;
    for (int step = 0; step < 20; step++) {
      double R[9], pos[3] = {urange(-1e-6, 1e-6), urange(-1e-6, 1e-6), 0.099 + urange(-1e-6, 1e-6)};
      rot(R, urange(-1, 1), urange(-1, 1), urange(-1, 1), 1e-6);
      coll_geom g = geom(pairk % 2 ? MODEL_GEOM_MESH : MODEL_GEOM_BOX, hs, pos, R);
      g.hull = &hl;
      coll_contact c[COLL_MAX_PAIR_CONTACTS];
      int n = coll_collide(pairk < 2 ? &plane : &base, &g, c);
      ck_assert_int_eq(n, 4);
      if (n0 < 0) {
        n0 = features(c, n, f0);
      } else {
        features(c, n, f1);
        for (int i = 0; i < n; i++) ck_assert_int_eq(f0[i], f1[i]);
      }
    }
  }
  coll_hull_free(&hl);
}
END_TEST

//---------------------------------- hulls ----------------------------------------------------

// the cube's 12 triangles merge into 6 squares; each vertex has 3 (+ diagonal) neighbours
START_TEST(hull_build_cube) {
  coll_hull hl = cube_hull(0.5);
  ck_assert_int_eq(hl.nvert, 8);
  ck_assert_int_eq(hl.npoly, 6);
  for (int f = 0; f < 6; f++) {
    ck_assert_int_eq(hl.poly_start[f + 1] - hl.poly_start[f], 4);
    // counter-clockwise about the outward normal: consecutive edges turn along it
    const double* n = hl.poly_normal + 3 * f;
    const int* v = hl.poly_vert + hl.poly_start[f];
    for (int k = 0; k < 4; k++) {
      double e1[3], e2[3], x[3];
      sp_sub3(e1, hl.vert + 3 * v[(k + 1) % 4], hl.vert + 3 * v[k]);
      sp_sub3(e2, hl.vert + 3 * v[(k + 2) % 4], hl.vert + 3 * v[(k + 1) % 4]);
      sp_cross3(x, e1, e2);
      ck_assert_double_gt(sp_dot3(x, n), 0);
      ck_assert_double_eq_tol(fabs(sp_dot3(hl.vert + 3 * v[k], n)), 0.5, 1e-15);
    }
  }
  for (int i = 0; i < 8; i++) {
    int deg = hl.adj_start[i + 1] - hl.adj_start[i];
    ck_assert_int_ge(deg, 3);
    ck_assert_int_le(deg, 6);
  }
  // support along any direction: the corner with matching signs
  double d[3] = {0.3, -0.7, 0.1};
  ck_assert_int_eq(coll_hull_support(&hl, d, -1), 1 | 0 | 4);
  coll_hull_free(&hl);
  // degenerate input is an error, never a crash
  csim_error err;
  mesh_hull bad = cube_mesh(0.5);
  bad.nvert = 3;
  ck_assert_int_eq(coll_hull_build(&bad, &hl, &err), CSIM_ERR_INPUT);
  bad = cube_mesh(0.5);
  cube_f[5] = 42;
  ck_assert_int_eq(coll_hull_build(&bad, &hl, &err), CSIM_ERR_INPUT);
  cube_f[5] = 1;
}
END_TEST

// a large hull (sphere-like point cloud) uses hill climbing; it must agree with a scan, and give
// the same vertex from any start (coll_detect's hint: the last step's answer, or any vertex)
START_TEST(hull_hill_climbing) {
  rng_state = 5;
  enum { NP = 400 };
  double pts[3 * NP];
  for (int i = 0; i < NP; i++) {
    double u[3];
    rand_unit(u);
    for (int k = 0; k < 3; k++) pts[3 * i + k] = u[k] * (k == 2 ? 0.5 : 1.0);
  }
  mesh_hull mh;
  csim_error err;
  ck_assert_int_eq(mesh_hull_points(pts, NP, &mh, &err), CSIM_OK);
  coll_hull hl;
  ck_assert_int_eq(coll_hull_build(&mh, &hl, &err), CSIM_OK);
  ck_assert_int_gt(hl.nvert, 32);
  for (int it = 0; it < 500; it++) {
    double d[3];
    rand_unit(d);
    int i = coll_hull_support(&hl, d, -1), best = 0;
    for (int j = 1; j < hl.nvert; j++)
      if (sp_dot3(d, hl.vert + 3 * j) > sp_dot3(d, hl.vert + 3 * best)) best = j;
    ck_assert_double_eq_tol(sp_dot3(d, hl.vert + 3 * i), sp_dot3(d, hl.vert + 3 * best), 1e-15);
    ck_assert_int_eq(coll_hull_support(&hl, d, (it * 37) % hl.nvert), i);
    ck_assert_int_eq(coll_hull_support(&hl, d, best), i);
  }
  coll_hull_free(&hl);
  mesh_hull_free(&mh);
}
END_TEST

//---------------------------------- broad phase ----------------------------------------------

// hand-built model: world (ground plane) + robot 0: body 1 (box) <- body 2 (sphere) <- body 3
// (capsule); robot 1: body 4 (box, child of the world). Only the fields collision reads.
typedef struct {
  sim_model m;
  int geom_type[6], geom_body[6], geom_link[6], geom_mesh[6];
  double geom_size[18], geom_rbound[6];
  int body_parent[5], link_robot[4], contype[6];
} toy_model;

static void toy_init(toy_model* t) {
  memset(t, 0, sizeof *t);
  sim_model* m = &t->m;
  m->ngeom = 5;
  m->nbody = 5;
  m->nlink = 4;
  m->nmesh = 0;
  int type[5] = {MODEL_GEOM_PLANE, MODEL_GEOM_BOX, MODEL_GEOM_SPHERE, MODEL_GEOM_CAPSULE,
                 MODEL_GEOM_BOX};
  int body[5] = {0, 1, 2, 3, 4}, link[5] = {-1, 0, 1, 2, 3};
  double size[15] = {0, 0, 0, 0.1, 0.1, 0.1, 0.1, 0, 0, 0.05, 0.2, 0, 0.1, 0.1, 0.1};
  double rb[5] = {INFINITY, sqrt(0.03), 0.1, 0.25, sqrt(0.03)};
  int parent[5] = {-1, 0, 1, 2, 0}, lrob[4] = {0, 0, 0, 1};
  memcpy(t->geom_type, type, sizeof type);
  memcpy(t->geom_body, body, sizeof body);
  memcpy(t->geom_link, link, sizeof link);
  memcpy(t->geom_size, size, sizeof size);
  memcpy(t->geom_rbound, rb, sizeof rb);
  memcpy(t->body_parent, parent, sizeof parent);
  memcpy(t->link_robot, lrob, sizeof lrob);
  for (int i = 0; i < 5; i++) t->geom_mesh[i] = -1;
  m->geom_type = t->geom_type;
  m->geom_body = t->geom_body;
  m->geom_link = t->geom_link;
  m->geom_mesh = t->geom_mesh;
  m->geom_size = t->geom_size;
  m->geom_rbound = t->geom_rbound;
  m->body_parent = t->body_parent;
  m->body_filterparent = t->body_parent;   // URDF's parent filter
  m->link_robot = t->link_robot;
  for (int i = 0; i < 6; i++) t->contype[i] = 1;
  m->geom_contype = m->geom_conaffinity = t->contype;
}

// the pair (a, b) in either order is a candidate
static int has_pair(const coll_model* cm, int a, int b) {
  for (int i = 0; i < coll_npair(cm); i++) {
    int g1, g2;
    coll_pair_geoms(cm, i, &g1, &g2);
    if ((g1 == a && g2 == b) || (g1 == b && g2 == a)) return 1;
  }
  return 0;
}

START_TEST(broad_phase_pairs_and_detect) {
  toy_model t;
  toy_init(&t);
  coll_model* cm = NULL;
  csim_error err;
  ck_assert_int_eq(coll_create(&t.m, NULL, 0, &cm, &err), CSIM_OK);
  coll_scratch* cs = NULL;
  ck_assert_int_eq(coll_scratch_create(cm, &cs, &err), CSIM_OK);
  // ground with everything (4); robot 0: 1-3 (grandparent) allowed, 1-2 and 2-3 parent-child;
  // robot 1's box with all of robot 0 (3)
  ck_assert_int_eq(coll_npair(cm), 4 + 1 + 3);
  ck_assert(has_pair(cm, 0, 4) && has_pair(cm, 1, 3) && has_pair(cm, 4, 1));
  ck_assert(!has_pair(cm, 1, 2) && !has_pair(cm, 2, 3));
  for (int i = 0; i < coll_npair(cm); i++) {
    int g1, g2;
    coll_pair_geoms(cm, i, &g1, &g2);
    ck_assert_int_le(t.geom_type[g1], t.geom_type[g2]);
  }
  // plane-box 4 + plane-sphere 1 + plane-capsule 2 + plane-box 4, box-capsule 2,
  // box-box 8 + box-sphere 1 + box-capsule 2
  ck_assert_int_eq(coll_max_contacts(cm), 4 + 1 + 2 + 4 + 2 + 8 + 1 + 2);
  // poses: box 1 resting on the ground, others far up and apart
  double xpos[15] = {0, 0, 0, 0, 0, 0.09, 5, 0, 5, -5, 0, 5, 5, 5, 5}, xmat[45];
  for (int i = 0; i < 5; i++) memcpy(xmat + 9 * i, I3, sizeof I3);
  coll_contact out[64];
  int ncon = -1;
  ck_assert_int_eq(coll_detect(cm, cs, &t.m, xpos, xmat, out, 64, &ncon), 0);
  ck_assert_int_eq(ncon, 4);
  for (int i = 0; i < ncon; i++) {
    ck_assert_int_eq(out[i].geom1, 0);
    ck_assert_int_eq(out[i].geom2, 1);
    ck_assert_double_eq_tol(out[i].depth, 0.01, 1e-15);
  }
  // a full buffer drops contacts and counts them, never overflows
  ck_assert_int_eq(coll_detect(cm, cs, &t.m, xpos, xmat, out, 3, &ncon), 1);
  ck_assert_int_eq(ncon, 3);
  // margin: the sphere 0.02 above the ground becomes a near contact
  xpos[6] = 0; xpos[7] = 3; xpos[8] = 0.12;
  ck_assert_int_eq(coll_detect(cm, cs, &t.m, xpos, xmat, out, 64, &ncon), 0);
  ck_assert_int_eq(ncon, 4);
  coll_set_margin(cm, 0.03);
  coll_detect(cm, cs, &t.m, xpos, xmat, out, 64, &ncon);
  ck_assert_int_eq(ncon, 5);
  ck_assert_int_eq(out[4].geom2, 2);
  ck_assert_double_eq_tol(out[4].depth, -0.02, 1e-15);
  coll_scratch_free(cs);
  coll_free(cm);
  // excluded link pair (0, 3): boxes 1 and 4 never collide
  int ex[2] = {3, 0};
  ck_assert_int_eq(coll_create(&t.m, ex, 1, &cm, &err), CSIM_OK);
  ck_assert_int_eq(coll_npair(cm), 7);
  ck_assert(!has_pair(cm, 1, 4));
  coll_free(cm);
  // MuJoCo's contype/conaffinity rule: robot 1's box of type 2 and affinity 2 meets none of the
  // type-1, affinity-1 geoms (ground 0-4 and robot 0's 1-4, 2-4, 3-4 go: 8 - 4 pairs)
  t.contype[4] = 2;
  ck_assert_int_eq(coll_create(&t.m, NULL, 0, &cm, &err), CSIM_OK);
  ck_assert_int_eq(coll_npair(cm), 4);
  ck_assert(!has_pair(cm, 0, 4) && !has_pair(cm, 1, 4) && has_pair(cm, 1, 3));
  coll_free(cm);
  t.contype[4] = 1;
  // bad exclusion index: an error naming it
  ex[0] = 9;
  ck_assert_int_eq(coll_create(&t.m, ex, 1, &cm, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_null(cm);
  ck_assert_ptr_nonnull(strstr(err.msg, "link 9"));
}
END_TEST

// a real model (URDF -> model_create -> kinematics): free box base, two links above it
static const char* TOY_URDF =
    "<robot name='toy'>"
    " <link name='base'><inertial><mass value='1'/><inertia ixx='0.01' iyy='0.01' izz='0.01'"
    "  ixy='0' ixz='0' iyz='0'/></inertial>"
    "  <collision><geometry><box size='0.2 0.2 0.2'/></geometry></collision></link>"
    " <link name='l1'><inertial><mass value='0.5'/><inertia ixx='0.001' iyy='0.001' izz='0.001'"
    "  ixy='0' ixz='0' iyz='0'/></inertial>"
    "  <collision><origin xyz='0 0 0.2'/><geometry><cylinder radius='0.05' length='0.2'/>"
    "  </geometry></collision></link>"
    " <link name='l2'><inertial><mass value='0.5'/><inertia ixx='0.001' iyy='0.001' izz='0.001'"
    "  ixy='0' ixz='0' iyz='0'/></inertial>"
    "  <collision><origin xyz='0 0 0.1'/><geometry><sphere radius='0.05'/></geometry>"
    "  </collision></link>"
    " <joint name='j1' type='revolute'><parent link='base'/><child link='l1'/>"
    "  <origin xyz='0 0 0.1'/><axis xyz='0 1 0'/><limit lower='-1' upper='1' effort='1'"
    "  velocity='1'/></joint>"
    " <joint name='j2' type='revolute'><parent link='l1'/><child link='l2'/>"
    "  <origin xyz='0 0 0.3'/><axis xyz='0 1 0'/><limit lower='-1' upper='1' effort='1'"
    "  velocity='1'/></joint>"
    "</robot>";

START_TEST(model_pairs_and_contacts) {
  csim_error err;
  urdf_robot* u = NULL;
  urdf_options opt = urdf_default_options();
  ck_assert_int_eq(urdf_load_string(TOY_URDF, "toy.urdf", NULL, &opt, &u, &err), CSIM_OK);
  model_world_spec world = {{0, 0, -9.81}, 1, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec = {u, NULL, MODEL_BASE_FREE, {0, 0, 0}, {0, 0, 0, 1}, 0};
  sim_model* m = NULL;
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_OK);
  ck_assert_int_eq(m->ngeom, 4);
  coll_model* cm = NULL;
  ck_assert_int_eq(coll_create(m, NULL, 0, &cm, &err), CSIM_OK);
  coll_scratch* cs = NULL;
  ck_assert_int_eq(coll_scratch_create(cm, &cs, &err), CSIM_OK);
  // ground with the 3 robot geoms, base with l2 (grandparent); no base-l1, l1-l2
  ck_assert_int_eq(coll_npair(cm), 4);
  int ground = -1, box = -1;
  for (int i = 0; i < m->ngeom; i++) {
    if (m->geom_type[i] == MODEL_GEOM_PLANE) ground = i;
    if (m->geom_type[i] == MODEL_GEOM_BOX) box = i;
  }
  ck_assert_int_ge(ground, 0);
  ck_assert_int_ge(box, 0);
  // excluding (base, l2) by link index leaves the ground pairs
  int ex[2] = {model_find_link(m, "base"), model_find_link(m, "l2")};
  coll_model* cm2 = NULL;
  ck_assert_int_eq(coll_create(m, ex, 1, &cm2, &err), CSIM_OK);
  ck_assert_int_eq(coll_npair(cm2), 3);
  coll_free(cm2);
  // base resting 0.01 deep on the ground
  sim_data* d = NULL;
  ck_assert_int_eq(data_create(m, 0, &d, &err), CSIM_OK);
  d->q[2] = 0.09;
  kin_forward(m, d);
  coll_contact out[32];
  int ncon = 0;
  ck_assert_int_le(coll_max_contacts(cm), 32);
  ck_assert_int_eq(coll_detect(cm, cs, m, d->geom_xpos, d->geom_xmat, out, 32, &ncon), 0);
  ck_assert_int_eq(ncon, 4);
  for (int i = 0; i < ncon; i++) {
    ck_assert_int_eq(out[i].geom1, ground);
    ck_assert_int_eq(out[i].geom2, box);
    ck_assert_double_eq_tol(out[i].depth, 0.01, 1e-12);
    ck_assert_double_eq_tol(out[i].normal[2], 1, 1e-12);
  }
  data_free(d);
  coll_scratch_free(cs);
  coll_free(cm);
  model_free(m);
  urdf_free(u);
}
END_TEST

// bad poses and shapes (NaN, zero sizes, missing hull) never crash or hang
START_TEST(bad_input_is_harmless) {
  double nan3[3] = {NAN, NAN, NAN}, z3[3] = {0, 0, 0}, s[3] = {0.1, 0.1, 0.1};
  double nanR[9];
  for (int k = 0; k < 9; k++) nanR[k] = NAN;
  int types[6] = {MODEL_GEOM_PLANE, MODEL_GEOM_BOX, MODEL_GEOM_SPHERE, MODEL_GEOM_CYLINDER,
                  MODEL_GEOM_CAPSULE, MODEL_GEOM_MESH};
  coll_contact c[COLL_MAX_PAIR_CONTACTS];
  for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++)
      for (int v = 0; v < 3; v++) {
        coll_geom g1 = geom(types[a], v == 2 ? z3 : s, v == 0 ? nan3 : z3, v == 1 ? nanR : I3);
        coll_geom g2 = geom(types[b], v == 2 ? z3 : s, z3, I3);
        int n = coll_collide(&g1, &g2, c);
        ck_assert_int_ge(n, 0);
        ck_assert_int_le(n, COLL_MAX_PAIR_CONTACTS);
        if (types[a] != MODEL_GEOM_PLANE && types[b] != MODEL_GEOM_PLANE) {
          n = coll_convex(&g1, &g2, 0.01, c);
          ck_assert_int_le(n, COLL_MAX_PAIR_CONTACTS);
        }
      }
}
END_TEST

// sort and sweep returns exactly the contacts of all pairs: random scenes of 90 geoms (a ground
// plane, two static geoms on the world body, boxes, spheres, capsules, cylinders and hull cubes
// on their own bodies) crowded into a 1 m box, then moved a little at a time (the sweep keeps its
// order between calls); the reference runs the narrow phase on every candidate pair in pair
// order with no bound test at all. 90 geoms look pairs up in the broad phase's dense table; 300
// (past COLL_PAIR_TABLE_MAX, a few scenes) by binary search in the pair keys. Both put their
// 500-5,800 candidate pairs in order through sort_found's bitmap (the pair order checked here)
#define BP_MAX 300
static void broad_phase_check(int ng, int nscene, int min_hit) {
  rng_state = 4242;
  sim_model m;
  memset(&m, 0, sizeof m);
  static int type[BP_MAX], body[BP_MAX], link[BP_MAX], gmesh[BP_MAX], parent[BP_MAX];
  static double size[3 * BP_MAX], rb[BP_MAX], xpos[3 * BP_MAX], xmat[9 * BP_MAX];
  mesh_hull mh = cube_mesh(0.06);
  coll_hull hull;
  csim_error err;
  ck_assert_int_eq(coll_hull_build(&mh, &hull, &err), CSIM_OK);
  static const int kinds[5] = {MODEL_GEOM_BOX, MODEL_GEOM_SPHERE, MODEL_GEOM_CAPSULE,
                               MODEL_GEOM_CYLINDER, MODEL_GEOM_MESH};
  for (int i = 0; i < ng; i++) {
    type[i] = i == 0 ? MODEL_GEOM_PLANE : kinds[(int)(urand() * 5)];
    body[i] = i < 3 ? 0 : i - 2;  // geoms 0-2 on the world body
    link[i] = -1;
    parent[i] = i == 0 ? -1 : 0;
    gmesh[i] = type[i] == MODEL_GEOM_MESH ? 0 : -1;
    for (int k = 0; k < 3; k++) size[3 * i + k] = type[i] == MODEL_GEOM_MESH ? 1 : urange(0.02, 0.12);
    rb[i] = type[i] == MODEL_GEOM_PLANE ? INFINITY : 1;
  }
  m.ngeom = ng;
  m.nbody = ng - 2;
  m.nlink = 0;
  m.nmesh = 1;
  m.mesh = &mh;
  m.geom_type = type;
  m.geom_body = body;
  m.geom_link = link;
  m.geom_mesh = gmesh;
  m.geom_size = size;
  m.geom_rbound = rb;
  m.body_parent = m.body_filterparent = parent;
  static int ones[BP_MAX];
  for (int i = 0; i < ng; i++) ones[i] = 1;
  m.geom_contype = m.geom_conaffinity = ones;
  coll_model* cm = NULL;
  ck_assert_int_eq(coll_create(&m, NULL, 0, &cm, &err), CSIM_OK);
  coll_scratch* cs = NULL;
  ck_assert_int_eq(coll_scratch_create(cm, &cs, &err), CSIM_OK);
  // every pair but the three world geoms among themselves
  ck_assert_int_eq(coll_npair(cm), ng * (ng - 1) / 2 - 3);
  int maxc = coll_max_contacts(cm);
  coll_contact* out = malloc(sizeof(coll_contact) * (size_t)maxc);
  coll_contact* ref = malloc(sizeof(coll_contact) * (size_t)maxc);
  ck_assert(out && ref);
  for (int k = 0; k < 9; k++) xmat[k] = I3[k];
  memset(xpos, 0, 3 * sizeof(double));
  int pairs_hit = 0;
  for (int scene = 0; scene < nscene; scene++) {
    double margin = scene % 3 == 0 ? 0.0 : 0.01;
    coll_set_margin(cm, margin);
    for (int i = 1; i < ng; i++) {
      if (scene % 10 == 0) {  // a new random scene
        xpos[3 * i] = urange(0, 1);
        xpos[3 * i + 1] = urange(0, 1);
        xpos[3 * i + 2] = urange(-0.05, 0.4);
        rand_rot(xmat + 9 * i);
      } else {  // small moves: the sweep order changes a little
        for (int k = 0; k < 3; k++) xpos[3 * i + k] += urange(-0.03, 0.03);
      }
    }
    int n = -1;
    ck_assert_int_eq(coll_detect(cm, cs, &m, xpos, xmat, out, maxc, &n), 0);
    // reference: every candidate pair, in order
    int nr = 0;
    for (int p = 0; p < coll_npair(cm); p++) {
      int i, j;
      coll_pair_geoms(cm, p, &i, &j);
      coll_geom g1 = {type[i], size + 3 * i, xpos + 3 * i, xmat + 9 * i,
                      type[i] == MODEL_GEOM_MESH ? &hull : NULL, margin, NULL, NULL};
      coll_geom g2 = {type[j], size + 3 * j, xpos + 3 * j, xmat + 9 * j,
                      type[j] == MODEL_GEOM_MESH ? &hull : NULL, margin, NULL, NULL};
      int k = coll_pair_table[type[i]][type[j]](&g1, &g2, margin, ref + nr);
      for (int c = 0; c < k; c++) {
        ref[nr + c].geom1 = i;
        ref[nr + c].geom2 = j;
      }
      pairs_hit += k > 0;
      nr += k;
    }
    ck_assert_int_eq(n, nr);
    for (int c = 0; c < n; c++)
      ck_assert_msg(!memcmp(out[c].pos, ref[c].pos, sizeof out[c].pos) &&
                        !memcmp(out[c].normal, ref[c].normal, sizeof out[c].normal) &&
                        !memcmp(&out[c].depth, &ref[c].depth, sizeof(double)) &&
                        out[c].geom1 == ref[c].geom1 && out[c].geom2 == ref[c].geom2 &&
                        out[c].feature == ref[c].feature,
                    "scene %d contact %d: geoms %d-%d feature %d vs %d-%d feature %d", scene, c,
                    out[c].geom1, out[c].geom2, out[c].feature, ref[c].geom1, ref[c].geom2,
                    ref[c].feature);
  }
  // the scenes are crowded: many pairs touch, far fewer than all
  ck_assert_int_gt(pairs_hit, min_hit);
  ck_assert_int_lt(pairs_hit, nscene * coll_npair(cm) / 10);
  free(out);
  free(ref);
  coll_scratch_free(cs);
  coll_free(cm);
  coll_hull_free(&hull);
}

START_TEST(broad_phase_matches_all_pairs) {
  broad_phase_check(90, 40, 400);
  broad_phase_check(BP_MAX, 3, 300);
}
END_TEST

static Suite* collision_suite(void) {
  Suite* s = suite_create("collision");
  TCase* tc = tcase_create("analytic");
  tcase_add_test(tc, plane_sphere_exact);
  tcase_add_test(tc, ellipsoid_plane_and_convex);
  tcase_add_test(tc, plane_box_flat_and_tilted);
  tcase_add_test(tc, plane_capsule_lying_standing);
  tcase_add_test(tc, plane_cylinder_cases);
  tcase_add_test(tc, plane_mesh_cube);
  tcase_add_test(tc, plane_mesh_reduces_to_4);
  tcase_add_test(tc, plane_mesh_matches_brute_force);
  tcase_add_test(tc, patch_round_foot_one_contact);
  tcase_add_test(tc, patch_box_face_four);
  tcase_add_test(tc, patch_max_spans);
  tcase_add_test(tc, sphere_sphere_exact);
  tcase_add_test(tc, sphere_capsule_and_capsule_capsule);
  tcase_add_test(tc, curved_epa_vs_closed_forms);
  tcase_add_test(tc, ellipsoid_pair_at_the_support_minimum);
  tcase_add_test(tc, cylinder_rim_on_side);
  tcase_add_test(tc, box_sphere_regions);
  tcase_add_test(tc, box_box_face_contacts);
  tcase_add_test(tc, box_box_edge_edge);
  tcase_add_test(tc, box_box_tilted_edge_on_face);
  suite_add_tcase(s, tc);
  TCase* tg = tcase_create("convex");
  tcase_set_timeout(tg, 60);
  tcase_add_test(tg, convex_patches);
  tcase_add_test(tg, mpr_matches_analytic);
  tcase_add_test(tg, random_convex_vs_analytic);
  tcase_add_test(tg, random_box_box_invariants);
  tcase_add_test(tg, features_stable);
  tcase_add_test(tg, hull_build_cube);
  tcase_add_test(tg, hull_hill_climbing);
  suite_add_tcase(s, tg);
  TCase* tb = tcase_create("broad");
  tcase_add_test(tb, broad_phase_pairs_and_detect);
  tcase_add_test(tb, model_pairs_and_contacts);
  tcase_add_test(tb, bad_input_is_harmless);
  tcase_add_test(tb, broad_phase_matches_all_pairs);
  suite_add_tcase(s, tb);
  return s;
}

int main(void) {
  return run_suite(collision_suite());
}
