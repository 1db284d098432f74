// collision_primitive.c — exact analytic pair functions: plane vs everything, sphere-sphere,
// sphere-capsule, capsule-capsule, sphere-box and box-box (see collision.h for conventions).
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/collision/collision_internal.h"

//---------------------------------- helpers ---------------------------------------------------

// plane normal: the plane geom's local z axis in the world
static void plane_frame(const coll_geom* g, double n[3]) {
  sp_axis3(n, g->mat, 2);
}

// contact between spheres (c1, r1) of geom1 and (c2, r2) of geom2; 0 or 1 contact
static int spheres(const double c1[3], double r1, const double c2[3], double r2, double margin,
                   int feature, coll_contact* con) {
  double d[3], n[3], p1[3], p2[3];
  sp_sub3(d, c2, c1);
  double dist2 = sp_dot3(d, d);
  // quick reject before the square root
  double reach = r1 + r2 + margin;
  if (dist2 > reach * reach) return 0;
  double dist = sqrt(dist2);
  // concentric spheres: any normal is exact; take +z
  if (dist < 1e-15) {
    n[0] = 0; n[1] = 0; n[2] = 1;
  } else {
    sp_scale3(n, d, 1.0 / dist);
  }
  sp_madd3(p1, c1, n, r1);
  sp_madd3(p2, c2, n, -r2);
  cset(con, p1, p2, n, r1 + r2 - dist, feature);
  return 1;
}

// segment end points of a capsule (local z from -h to +h)
static void capsule_ends(const coll_geom* g, double a[3], double b[3]) {
  double ax[3];
  sp_axis3(ax, g->mat, 2);
  sp_madd3(a, g->pos, ax, -g->size[1]);
  sp_madd3(b, g->pos, ax, g->size[1]);
}

// closest point to p on segment [a, b]
static void closest_on_segment(double r[3], const double p[3], const double a[3],
                               const double b[3]) {
  double ab[3], ap[3];
  sp_sub3(ab, b, a);
  sp_sub3(ap, p, a);
  double l2 = sp_dot3(ab, ab);
  double t = l2 > 0 ? sp_dot3(ap, ab) / l2 : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  sp_madd3(r, a, ab, t);
}

static double clamp01(double t) {
  return t < 0 ? 0 : (t > 1 ? 1 : t);
}

// closest points c1 = p1 + s d1, c2 = p2 + t d2 between segments [p1, q1] and [p2, q2]
// (Ericson, Real-Time Collision Detection, 5.1.9)
static void closest_segments(const double p1[3], const double q1[3], const double p2[3],
                             const double q2[3], double c1[3], double c2[3]) {
  double d1[3], d2[3], r[3];
  sp_sub3(d1, q1, p1);
  sp_sub3(d2, q2, p2);
  sp_sub3(r, p1, p2);
  double a = sp_dot3(d1, d1), e = sp_dot3(d2, d2), f = sp_dot3(d2, r);
  double s, t;
  if (a <= 1e-30 && e <= 1e-30) {
    s = t = 0;
  } else if (a <= 1e-30) {
    s = 0;
    t = clamp01(f / e);
  } else {
    double c = sp_dot3(d1, r);
    if (e <= 1e-30) {
      t = 0;
      s = clamp01(-c / a);
    } else {
      double b = sp_dot3(d1, d2), denom = a * e - b * b;
      s = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = clamp01(-c / a);
      } else if (t > 1) {
        t = 1;
        s = clamp01((b - c) / a);
      }
    }
  }
  sp_madd3(c1, p1, d1, s);
  sp_madd3(c2, p2, d2, t);
}

// keep the k deepest of n contacts (stable: ties keep the lower index); returns min(n, k)
static int keep_deepest(coll_contact* con, int n, int k) {
  if (n <= k) return n;
  // selection by repeated max, then restore the original order via a mark array
  int keep[COLL_MAX_PAIR_CONTACTS * 2] = {0};
  for (int s = 0; s < k; s++) {
    int best = -1;
    for (int i = 0; i < n; i++)
      if (!keep[i] && (best < 0 || con[i].depth > con[best].depth)) best = i;
    keep[best] = 1;
  }
  int m = 0;
  for (int i = 0; i < n; i++)
    if (keep[i]) con[m++] = con[i];
  return m;
}

//---------------------------------- plane pairs ----------------------------------------------

// plane-sphere: one contact below the sphere centre
int coll_plane_sphere(const coll_geom* g1, const coll_geom* g2, double margin,
                      coll_contact* con) {
  double n[3], d[3], p1[3], p2[3];
  plane_frame(g1, n);
  sp_sub3(d, g2->pos, g1->pos);
  double r = g2->size[0];
  double dist = sp_dot3(n, d) - r;
  if (dist > margin) return 0;
  // p2: lowest sphere point, p1: its projection on the plane
  sp_madd3(p2, g2->pos, n, -r);
  sp_madd3(p1, p2, n, -dist);
  cset(con, p1, p2, n, -dist, 0);
  return 1;
}

// plane-box: corners below the plane (+margin), at most the 4 deepest; feature = corner index
// with bit 0/1/2 set for +x/+y/+z local
int coll_plane_box(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con) {
  double n[3], nl[3], d[3];
  plane_frame(g1, n);
  sp_mulmtv3(nl, g2->mat, n);
  sp_sub3(d, g2->pos, g1->pos);
  const double* h = g2->size;
  // centre height and the half-extent contributions along the normal
  double hc = sp_dot3(n, d);
  double ex = h[0] * nl[0], ey = h[1] * nl[1], ez = h[2] * nl[2];
  // quick reject: the lowest corner is above the margin
  if (hc - fabs(ex) - fabs(ey) - fabs(ez) > margin) return 0;
  // the corners within the margin; up to four (a box on its face) are written in place, more
  // (a box sunk past the margin on an edge's far side) go through keep_deepest: the same
  // contacts in the same order either way
  double dist[8];
  int nin = 0;
  for (int i = 0; i < 8; i++) {
    double sx = (i & 1) ? 1 : -1, sy = (i & 2) ? 1 : -1, sz = (i & 4) ? 1 : -1;
    dist[i] = hc + sx * ex + sy * ey + sz * ez;
    nin += !(dist[i] > margin);
  }
  coll_contact tmp[8];
  coll_contact* out = nin <= 4 ? con : tmp;
  int nc = 0;
  for (int i = 0; i < 8; i++) {
    if (dist[i] > margin) continue;
    double sx = (i & 1) ? 1 : -1, sy = (i & 2) ? 1 : -1, sz = (i & 4) ? 1 : -1;
    double loc[3] = {sx * h[0], sy * h[1], sz * h[2]}, p1[3], p2[3];
    sp_xform(p2, g2->mat, g2->pos, loc);
    sp_madd3(p1, p2, n, -dist[i]);
    cset(&out[nc++], p1, p2, n, -dist[i], i);
  }
  if (out == con) return nc;
  nc = keep_deepest(tmp, nc, 4);
  memcpy(con, tmp, (size_t)nc * sizeof(coll_contact));
  return nc;
}

void coll_ellipsoid_support(const coll_geom* g, const double d[3], double out[3]) {
  // x = D^2 u / |D u| (u = d in the geom frame, D = diag(radii)): the maximizer of u.x on
  // x' D^-2 x = 1
  double u[3], loc[3], n2 = 0;
  sp_mulmtv3(u, g->mat, d);
  for (int k = 0; k < 3; k++) n2 += g->size[k] * g->size[k] * u[k] * u[k];
  double inv = n2 > 0 ? 1 / sqrt(n2) : 0;
  for (int k = 0; k < 3; k++) loc[k] = g->size[k] * g->size[k] * u[k] * inv;
  sp_xform(out, g->mat, g->pos, loc);
}

int coll_plane_ellipsoid(const coll_geom* g1, const coll_geom* g2, double margin,
                         coll_contact* con) {
  double n[3], mn[3], p1[3], p2[3], d[3];
  plane_frame(g1, n);
  sp_scale3(mn, n, -1);
  coll_ellipsoid_support(g2, mn, p2);
  sp_sub3(d, p2, g1->pos);
  double dist = sp_dot3(n, d);
  if (dist > margin) return 0;
  sp_madd3(p1, p2, n, -dist);
  cset(con, p1, p2, n, -dist, 0);
  return 1;
}

// plane-capsule: the two segment ends as spheres; feature 0 (-z end) and 1 (+z end)
int coll_plane_capsule(const coll_geom* g1, const coll_geom* g2, double margin,
                       coll_contact* con) {
  double n[3], ends[2][3];
  plane_frame(g1, n);
  capsule_ends(g2, ends[0], ends[1]);
  double r = g2->size[0];
  int nc = 0;
  for (int e = 0; e < 2; e++) {
    double d[3], p1[3], p2[3];
    sp_sub3(d, ends[e], g1->pos);
    double dist = sp_dot3(n, d) - r;
    if (dist > margin) continue;
    sp_madd3(p2, ends[e], n, -r);
    sp_madd3(p1, p2, n, -dist);
    cset(&con[nc++], p1, p2, n, -dist, e);
  }
  return nc;
}

// plane-cylinder: on each cap, the rim point deepest along -n and the rim points at +90, 180
// and -90 degrees from it; those within the margin, at most the 4 deepest. A flat-lying disc
// gives 4 points, a side-lying cylinder 2 (one per cap), a tilted one 1.
// feature = 4 * cap (0: -z cap, 1: +z cap) + k (0 deepest, 1 +90, 2 opposite, 3 -90)
int coll_plane_cylinder(const coll_geom* g1, const coll_geom* g2, double margin,
                        coll_contact* con) {
  double n[3], a[3], u[3], v[3], d[3];
  plane_frame(g1, n);
  sp_axis3(a, g2->mat, 2);
  double r = g2->size[0], h = g2->size[1];
  sp_sub3(d, g2->pos, g1->pos);
  double hc = sp_dot3(n, d), na = sp_dot3(n, a);
  // u: direction in the cap plane pointing most against n (local x when the cap lies flat)
  sp_madd3(u, n, a, -na);
  sp_scale3(u, u, -1.0);
  double su = sp_norm3(u);
  // quick reject on the lowest point of the cylinder
  if (hc - fabs(na) * h - su * r > margin) return 0;
  if (su < 1e-6) {
    sp_axis3(u, g2->mat, 0);
  } else {
    sp_scale3(u, u, 1.0 / su);
  }
  sp_cross3(v, a, u);
  coll_contact tmp[8];
  int nc = 0;
  for (int cap = 0; cap < 2; cap++) {
    double s = cap ? 1.0 : -1.0, cc[3];
    sp_madd3(cc, g2->pos, a, s * h);
    for (int k = 0; k < 4; k++) {
      const double* dir = (k & 1) ? v : u;
      double sg = (k < 2) ? 1.0 : -1.0, p1[3], p2[3];
      sp_madd3(p2, cc, dir, sg * r);
      sp_sub3(d, p2, g1->pos);
      double dist = sp_dot3(n, d);
      if (dist > margin) continue;
      sp_madd3(p1, p2, n, -dist);
      cset(&tmp[nc++], p1, p2, n, -dist, 4 * cap + k);
    }
  }
  nc = keep_deepest(tmp, nc, 4);
  memcpy(con, tmp, (size_t)nc * sizeof(coll_contact));
  return nc;
}

// Plane-mesh. The candidates are the hull vertices within the margin (height h = nl . v + off <=
// margin, nl the plane normal in the mesh frame); the contacts are at most 4 spread ones of them:
// the deepest, the farthest from it across the normal, the one making the largest triangle with
// those two, the one adding the most area to that triangle (Bullet-style manifold reduction;
// ties go to the lower vertex index, so the choice does not depend on the search order).
//
// Only part of the candidates can win. Each score depends on a vertex through its projection on
// the plane and is convex there, so a winner v has a direction g across the normal along which
// no candidate neighbour of v rises. If v has a neighbour above the margin, v is an inner end of
// an edge that the level h = margin cuts. Else g is maximal at v over the whole hull: v is on the
// silhouette seen along nl, on a triangle facing sideways or up (nl . n >= 0) whose vertices are
// all candidates. The inner ends are found by walking the ring of triangles the level cuts (each
// has two cut edges; the next triangle is across the second): ~ the perimeter of the candidate
// patch instead of its area (Solo-12's feet: 16 to 40 ring vertices of 30 to 120). Triangles
// facing sideways or up are connected (the polar polytope's vertices with nl . n >= 0), so those
// within the margin are reached from the ring's sideways ones, by a flood over sideways triangles
// with all vertices within the margin (a flat side of a foot, the walls of a box standing on the
// plane). A hull without half-edges, or a walk or flood over its size limits, falls back to a
// breadth-first search of the vertex graph from the deepest vertex (the candidates are connected).
enum { PM_CMAX = 256, PM_VMAX = 4096, PM_TMAX = 8192, PM_SMAX = 256 };

// height of vertex i above the plane
static inline double pm_height(const double* V, const double nl[3], double off, int i) {
  return sp_dot3(nl, V + 3 * i) + off;
}

// triangle t faces sideways or up (slivers, normal 0, count as such)
static inline int pm_side(const coll_hull* hl, const double nl[3], int t) {
  return sp_dot3(nl, hl->tri_normal + 3 * t) > -1e-9;
}

// vertices that can win (see above) into out, repeats possible; their count, or -1 when the
// caller must search otherwise (no half-edges, every vertex within the margin, a limit reached).
// hint (NULL: none): the last call's start half-edge, in and out
static int pm_ring(const coll_hull* hl, const double nl[3], double off, double margin, int i0,
                   int* hint, int* out, int max) {
  if (!hl->hedge) return -1;
  const double* V = hl->vert;
  int v = i0, start = -1;
  // the last call's cut edge when the level still cuts it (a still foot: two heights instead of
  // the ascent below). A convex hull's cut is one closed ring, walked the same from any of its
  // edges: the candidates come in another order, the start vertex once more or less, which the
  // spread's choice does not see (equal scores go to the lower vertex index)
  if (hint && *hint >= 0 && *hint < 3 * hl->ntri) {
    int e = *hint, a = hl->tri[e], b = hl->tri[e - e % 3 + (e % 3 + 1) % 3];
    if (pm_height(V, nl, off, a) <= margin && pm_height(V, nl, off, b) > margin) start = e, v = a;
  }
  // else a cut edge: steepest ascent of h from the deepest vertex until a neighbour is above
  double hv = start < 0 ? pm_height(V, nl, off, v) : 0;
  for (int it = 0; it < hl->nvert && start < 0; it++) {
    int up = -1;
    double hu = hv;
    for (int k = hl->adj_start[v]; k < hl->adj_start[v + 1]; k++) {
      double hj = pm_height(V, nl, off, hl->adj[k]);
      if (hj > margin) { start = hl->adj_he[k]; break; }
      if (hj > hu) { hu = hj; up = hl->adj[k]; }
    }
    if (start >= 0) break;
    if (up < 0) return -1;  // the top is within the margin: every vertex is a candidate
    v = up;
    hv = hu;
  }
  if (start < 0) return -1;
  if (hint) *hint = start;
  // the ring: half-edge e runs from vertex a, within the margin, to one above it
  int n = 0, e = start, a = v, ns = 0;
  int stack[PM_SMAX];
  unsigned char tseen[PM_TMAX / 8];
  out[n++] = a;
  for (int it = 0; it < 3 * hl->ntri; it++) {
    const int* r = hl->hedge + 4 * e;
    int t = r[3];
    if (pm_side(hl, nl, t)) {
      if (ns == 0) {
        if (hl->ntri > PM_TMAX) return -1;
        memset(tseen, 0, (size_t)(hl->ntri + 7) / 8);
      }
      if (ns == PM_SMAX) return -1;
      stack[ns++] = t;
      tseen[t >> 3] |= (unsigned char)(1u << (t & 7));
    }
    // triangle (a, b, c), e = a -> b: it leaves across b -> c when c is within the margin (next
    // half-edge c -> b), else across c -> a (next a -> c)
    if (pm_height(V, nl, off, r[0]) <= margin) {
      e = r[1];
      a = r[0];
      if (e == start) break;
      if (n == max) return -1;
      out[n++] = a;
    } else {
      e = r[2];
      if (e == start) break;
    }
  }
  if (e != start) return -1;  // not closed: not a convex hull's triangles
  // flood from the ring's sideways triangles over sideways ones wholly within the margin
  while (ns > 0) {
    int t = stack[--ns];
    const int* r0 = hl->hedge + 12 * t;  // half-edge 3 t: the twins of 3 t + 1, 3 t + 2, then 3 t
    int nb[3] = {hl->hedge[4 * r0[1] + 3], hl->hedge[4 * r0[2] + 3], hl->hedge[4 * r0[6] + 3]};
    for (int k = 0; k < 3; k++) {
      int u = nb[k];
      if (tseen[u >> 3] & (1u << (u & 7))) continue;
      tseen[u >> 3] |= (unsigned char)(1u << (u & 7));
      const int* tv = hl->tri + 3 * u;
      if (!pm_side(hl, nl, u) || pm_height(V, nl, off, tv[0]) > margin ||
          pm_height(V, nl, off, tv[1]) > margin || pm_height(V, nl, off, tv[2]) > margin)
        continue;
      if (n + 3 > max || ns == PM_SMAX) return -1;
      out[n++] = tv[0];
      out[n++] = tv[1];
      out[n++] = tv[2];
      stack[ns++] = u;
    }
  }
  return n;
}

// the spread selection in progress: chosen vertices, their coordinates across the normal (v0 at
// the origin), the best score of the pass running, the orientation of (v0, v1, v2)
typedef struct {
  int idx[4];
  double q[3][2];
  double best, sgn;
  double ed[3][2];  // edges of (v0, v1, v2), for the third pass
} pm_sel;

// pass 0 on candidate i at coordinates p: the farthest from v0 so far (ties: the lower index)
static inline void pm_far(pm_sel* s, int i, const double p[2]) {
  double dd = p[0] * p[0] + p[1] * p[1];
  if (dd > s->best || (dd == s->best && i < s->idx[1])) {
    s->best = dd;
    s->idx[1] = i;
    s->q[1][0] = p[0];
    s->q[1][1] = p[1];
  }
}

// one spread pass over candidates ci[0..n) with coordinates P (n x 2), raising s->best and
// s->idx[pass + 1] (ties: the lower index): 0 the farthest from v0 (pm_far), 1 the largest
// |triangle| with v0 and v1 (twice its signed area along nl), 2 the most area added outside
// (v0, v1, v2)
static void pm_pass(pm_sel* s, int pass, const int* ci, const double* P, int n) {
  if (pass == 0) {
    for (int k = 0; k < n; k++) pm_far(s, ci[k], P + 2 * k);
    return;
  }
  double best = s->best;
  int id = s->idx[pass + 1], kw = -1;  // kw: the winner's place here, if it is here
  if (pass == 1) {
    double ax = s->q[1][0], ay = s->q[1][1], sgn = s->sgn;
    for (int k = 0; k < n; k++) {
      double ar = ax * P[2 * k + 1] - ay * P[2 * k], aa = fabs(ar);
      if (aa > best || (aa == best && ci[k] < id)) {
        best = aa;
        id = ci[k];
        kw = k;
        sgn = ar > 0 ? 1 : -1;
      }
    }
    s->sgn = sgn;
  } else {
    // each edge's area sg (ed_x (y - q_y) - ed_y (x - q_x)) as (sg ed_x) (y - q_y) - (sg ed_y)
    // (x - q_x): sg is +-1, so the same bits up to the sign of an exact zero, which no
    // comparison below sees; q[0] is v0, the origin: y - 0 and x - 0 are y and x
    double sg = -s->sgn, (*q)[2] = s->q;
    double e0x = sg * s->ed[0][0], e0y = sg * s->ed[0][1], e1x = sg * s->ed[1][0],
           e1y = sg * s->ed[1][1], e2x = sg * s->ed[2][0], e2y = sg * s->ed[2][1];
    for (int k = 0; k < n; k++) {
      double x = P[2 * k], y = P[2 * k + 1], add = 0;
      double a0 = e0x * y - e0y * x;
      double a1 = e1x * (y - q[1][1]) - e1y * (x - q[1][0]);
      double a2 = e2x * (y - q[2][1]) - e2y * (x - q[2][0]);
      if (a0 > add) add = a0;
      if (a1 > add) add = a1;
      if (a2 > add) add = a2;
      if (add > best || (add == best && ci[k] < id)) { best = add; id = ci[k]; }
    }
  }
  if (kw >= 0) {  // the winner's coordinates, for the next pass
    s->q[pass + 1][0] = P[2 * kw];
    s->q[pass + 1][1] = P[2 * kw + 1];
  }
  s->best = best;
  s->idx[pass + 1] = id;
}

// coordinates across the normal of vertex i: ((v - v0) . t1, (v - v0) . t2), the plane frame
// (t1, t2, nl) right-handed
static inline void pm_proj(const double* V, const double* v0, const double t1[3],
                           const double t2[3], int i, double p[2]) {
  double e[3];
  sp_sub3(e, V + 3 * i, v0);
  p[0] = sp_dot3(e, t1);
  p[1] = sp_dot3(e, t2);
}

// the spread contacts among the candidates cand[0..nc), or with cand NULL every vertex within
// the margin (scanned in chunks): idx[0] = i0, then up to 3 more; returns how many
static int pm_spread(const double* V, int nvert, const double nl[3], double off, double margin,
                     int i0, const int* cand, int nc, int idx[4]) {
  const double* v0 = V + 3 * i0;
  double t1[3], t2[3], P[2 * PM_CMAX];
  int ci[PM_CMAX];
  sp_perp3(t1, nl);
  sp_cross3(t2, nl, t1);
  // s.best 0 at each pass: v0 itself (score 0) never wins
  pm_sel s = {{i0, -1, -1, -1}, {{0, 0}, {0, 0}, {0, 0}}, 0, 1, {{0, 0}, {0, 0}, {0, 0}}};
  if (cand)  // pass 0 as the candidates are projected
    for (int k = 0; k < nc; k++) {
      pm_proj(V, v0, t1, t2, cand[k], P + 2 * k);
      pm_far(&s, cand[k], P + 2 * k);
    }
  int cnt = 1;
  double l2 = 0;
  for (int pass = 0; pass < 3; pass++) {
    if (cand) {
      if (pass > 0) {
        s.best = 0;
        pm_pass(&s, pass, cand, P, nc);
      }
    } else {
      s.best = 0;
      for (int i = 0; i < nvert;) {
        int n = 0;
        for (; i < nvert && n < PM_CMAX; i++)
          if (pm_height(V, nl, off, i) <= margin) {
            ci[n] = i;
            pm_proj(V, v0, t1, t2, i, P + 2 * n++);
          }
        pm_pass(&s, pass, ci, P, n);
      }
    }
    // degeneracy thresholds relative to the spread of the candidates
    if (pass == 0) l2 = s.best;
    if (s.idx[pass + 1] < 0 || !(s.best > (pass == 0 ? 1e-24 : 1e-9 * l2))) break;
    cnt++;
    if (pass == 1)
      for (int e = 0; e < 3; e++) {
        s.ed[e][0] = s.q[(e + 1) % 3][0] - s.q[e][0];
        s.ed[e][1] = s.q[(e + 1) % 3][1] - s.q[e][1];
      }
  }
  memcpy(idx, s.idx, sizeof s.idx);
  return cnt;
}

int coll_plane_mesh(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con) {
  const coll_hull* hl = g2->hull;
  if (!hl || hl->nvert <= 0) return 0;
  double n[3], nl[3], d[3], mnl[3];
  plane_frame(g1, n);
  sp_mulmtv3(nl, g2->mat, n);
  sp_sub3(d, g2->pos, g1->pos);
  double off = sp_dot3(n, d);
  const double* V = hl->vert;
  // deepest vertex by support in -n (hill climbing on large hulls): quick reject
  mnl[0] = -nl[0]; mnl[1] = -nl[1]; mnl[2] = -nl[2];
  int i0 = coll_hull_support(hl, mnl, g2->hint ? *g2->hint : -1);
  if (g2->hint) *g2->hint = i0;
  if (pm_height(V, nl, off, i0) > margin) return 0;
  int cand[PM_CMAX], nc = pm_ring(hl, nl, off, margin, i0, g2->hint ? g2->hint + 1 : NULL, cand,
                                  PM_CMAX);
  int full = nc < 0 && (!hl->adj_start || hl->nvert > PM_VMAX);
  if (nc < 0 && !full) {
    // breadth-first search from the deepest vertex, O(candidates x degree); too many candidates
    // fall back to a full scan
    nc = 1;
    unsigned char seen[PM_VMAX / 8];
    memset(seen, 0, (size_t)(hl->nvert + 7) / 8);
    seen[i0 >> 3] |= (unsigned char)(1u << (i0 & 7));
    cand[0] = i0;
    for (int q = 0; q < nc && !full; q++) {
      int v = cand[q];
      for (int k = hl->adj_start[v]; k < hl->adj_start[v + 1] && !full; k++) {
        int j = hl->adj[k];
        if (seen[j >> 3] & (1u << (j & 7))) continue;
        seen[j >> 3] |= (unsigned char)(1u << (j & 7));
        if (pm_height(V, nl, off, j) > margin) continue;
        if (nc < PM_CMAX) cand[nc++] = j;
        else full = 1;
      }
    }
  }
  int idx[4];
  int cnt = pm_spread(V, hl->nvert, nl, off, margin, i0, full ? NULL : cand, nc, idx);
  // contacts at the chosen vertices
  for (int k = 0; k < cnt; k++) {
    double p1[3], p2[3];
    sp_xform(p2, g2->mat, g2->pos, V + 3 * idx[k]);
    sp_sub3(d, p2, g1->pos);
    double dist = sp_dot3(n, d);
    sp_madd3(p1, p2, n, -dist);
    cset(&con[k], p1, p2, n, -dist, idx[k]);
  }
  return cnt;
}

//---------------------------------- sphere and capsule pairs ---------------------------------

// sphere-sphere: one contact on the centre line
int coll_sphere_sphere(const coll_geom* g1, const coll_geom* g2, double margin,
                       coll_contact* con) {
  return spheres(g1->pos, g1->size[0], g2->pos, g2->size[0], margin, 0, con);
}

// sphere-capsule: the sphere against the closest point of the capsule segment
int coll_sphere_capsule(const coll_geom* g1, const coll_geom* g2, double margin,
                        coll_contact* con) {
  double a[3], b[3], q[3];
  capsule_ends(g2, a, b);
  closest_on_segment(q, g1->pos, a, b);
  return spheres(g1->pos, g1->size[0], q, g2->size[0], margin, 0, con);
}

// capsule-capsule: closest points of the segments; parallel segments that overlap along their
// length get two contacts at the ends of the overlap (features 1, 2), otherwise one (feature 0)
int coll_capsule_capsule(const coll_geom* g1, const coll_geom* g2, double margin,
                         coll_contact* con) {
  double a1[3], b1[3], a2[3], b2[3], d1[3], d2[3], c[3];
  capsule_ends(g1, a1, b1);
  capsule_ends(g2, a2, b2);
  double r1 = g1->size[0], r2 = g2->size[0];
  sp_sub3(d1, b1, a1);
  sp_sub3(d2, b2, a2);
  sp_cross3(c, d1, d2);
  double l1 = sp_dot3(d1, d1), l2 = sp_dot3(d2, d2);
  // parallel: overlap interval of segment 2's ends projected on segment 1
  if (l1 > 1e-20 && l2 > 1e-20 && sp_dot3(c, c) < 1e-8 * l1 * l2) {
    double e[3];
    sp_sub3(e, a2, a1);
    double ta = sp_dot3(e, d1) / l1;
    sp_sub3(e, b2, a1);
    double tb = sp_dot3(e, d1) / l1;
    double lo = fmax(0.0, fmin(ta, tb)), hi = fmin(1.0, fmax(ta, tb));
    if (hi - lo > 1e-9) {
      int nc = 0;
      double ts[2] = {lo, hi};
      for (int k = 0; k < 2; k++) {
        double p[3], q[3];
        sp_madd3(p, a1, d1, ts[k]);
        closest_on_segment(q, p, a2, b2);
        nc += spheres(p, r1, q, r2, margin, 1 + k, con + nc);
      }
      return nc;
    }
  }
  double p[3], q[3];
  closest_segments(a1, b1, a2, b2, p, q);
  return spheres(p, r1, q, r2, margin, 0, con);
}

// box-sphere: closest point of the box to the sphere centre; a centre inside the box is pushed
// out through the nearest face
int coll_box_sphere(const coll_geom* g1, const coll_geom* g2, double margin,
                    coll_contact* con) {
  const double* h = g1->size;
  double r = g2->size[0], d[3], cl[3], q[3];
  sp_sub3(d, g2->pos, g1->pos);
  sp_mulmtv3(cl, g1->mat, d);
  // clamp the centre into the box
  int inside = 1;
  for (int k = 0; k < 3; k++) {
    q[k] = cl[k];
    if (q[k] > h[k]) { q[k] = h[k]; inside = 0; }
    if (q[k] < -h[k]) { q[k] = -h[k]; inside = 0; }
  }
  double nl[3], depth, p1[3], p2[3], n[3];
  if (!inside) {
    double e[3];
    sp_sub3(e, cl, q);
    double dist2 = sp_dot3(e, e);
    if (dist2 > (r + margin) * (r + margin)) return 0;
    double dist = sqrt(dist2);
    sp_scale3(nl, e, 1.0 / dist);
    depth = r - dist;
  } else {
    // nearest face: smallest h_k - |c_k|
    int kb = 0;
    double best = h[0] - fabs(cl[0]);
    for (int k = 1; k < 3; k++)
      if (h[k] - fabs(cl[k]) < best) { best = h[k] - fabs(cl[k]); kb = k; }
    nl[0] = nl[1] = nl[2] = 0;
    nl[kb] = cl[kb] >= 0 ? 1 : -1;
    q[kb] = nl[kb] * h[kb];
    depth = r + best;
  }
  sp_mulmv3(n, g1->mat, nl);
  sp_xform(p1, g1->mat, g1->pos, q);
  sp_madd3(p2, g2->pos, n, -r);
  cset(con, p1, p2, n, depth, 0);
  return 1;
}

//---------------------------------- box-box --------------------------------------------------

// box-box: separating axis test over the 15 axes (3 + 3 face normals, 9 edge cross products);
// a face axis gives the reference face, the most anti-parallel face of the other box is
// clipped against it (up to 8 points); an edge axis gives one point between the two edges.
// Face axes win ties with edge axes (an edge axis parallel to a face normal), so the depth is
// never beyond the true one by more than rounding.
// Features: face case fbase = (ref_is_b * 6 + ref_face) * 6 + inc_face with face = 2 * axis +
// (side > 0), times 8448 plus the clip tag; edge case 72 * 8448 + 12 * edgeA + edgeB.
int coll_box_box(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con) {
  const double *ha = g1->size, *hb = g2->size;
  double A[3][3], B[3][3], d[3], C[3][3], aC[3][3];
  for (int k = 0; k < 3; k++) {
    sp_axis3(A[k], g1->mat, k);
    sp_axis3(B[k], g2->mat, k);
  }
  sp_sub3(d, g2->pos, g1->pos);
  // C = A' B and its absolute value (with a tiny bias against parallel-edge degeneracy)
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      C[i][j] = sp_dot3(A[i], B[j]);
      aC[i][j] = fabs(C[i][j]) + 1e-12;
    }
  double da[3] = {sp_dot3(d, A[0]), sp_dot3(d, A[1]), sp_dot3(d, A[2])};
  double db[3] = {sp_dot3(d, B[0]), sp_dot3(d, B[1]), sp_dot3(d, B[2])};
  // face axes of A then B: separation = |d.axis| - (extent A + extent B)
  double best_face = -DBL_MAX;
  int face_box = 0, face_axis = 0;
  for (int i = 0; i < 3; i++) {
    double s = fabs(da[i]) - (ha[i] + hb[0] * aC[i][0] + hb[1] * aC[i][1] + hb[2] * aC[i][2]);
    if (s > margin) return 0;
    if (s > best_face) { best_face = s; face_box = 0; face_axis = i; }
  }
  for (int j = 0; j < 3; j++) {
    double s = fabs(db[j]) - (hb[j] + ha[0] * aC[0][j] + ha[1] * aC[1][j] + ha[2] * aC[2][j]);
    if (s > margin) return 0;
    // B's face only when clearly better than A's (stable choice on ties)
    if (s > best_face + 1e-9 + 1e-6 * fabs(best_face)) {
      best_face = s;
      face_box = 1;
      face_axis = j;
    }
  }
  // edge axes a_i x b_j
  double best_edge = -DBL_MAX, edge_n[3] = {0, 0, 0};
  int ei = -1, ej = -1;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double ax[3];
      sp_cross3(ax, A[i], B[j]);
      double len = sp_norm3(ax);
      if (len < 1e-6) continue;  // parallel edges: covered by the face axes
      sp_scale3(ax, ax, 1.0 / len);
      double ra = ha[0] * fabs(sp_dot3(A[0], ax)) + ha[1] * fabs(sp_dot3(A[1], ax)) +
                  ha[2] * fabs(sp_dot3(A[2], ax));
      double rb = hb[0] * fabs(sp_dot3(B[0], ax)) + hb[1] * fabs(sp_dot3(B[1], ax)) +
                  hb[2] * fabs(sp_dot3(B[2], ax));
      double s = fabs(sp_dot3(d, ax)) - (ra + rb);
      if (s > margin) return 0;
      if (s > best_edge) {
        best_edge = s;
        ei = i;
        ej = j;
        sp_copy3(edge_n, ax);
      }
    }
  // edge contact only when its axis separates more than the best face axis (beyond rounding:
  // an edge axis parallel to a face normal ties with it)
  if (ei >= 0 && best_edge > best_face + 1e-12 + 1e-9 * fabs(best_face)) {
    double n[3], pa[3], pb[3];
    sp_copy3(n, edge_n);
    if (sp_dot3(n, d) < 0) sp_scale3(n, n, -1.0);
    // edge of A parallel to a_i farthest along n; edge of B parallel to b_j farthest along -n
    sp_copy3(pa, g1->pos);
    sp_copy3(pb, g2->pos);
    int ida = 0, idb = 0, bit = 0;
    for (int k = 0; k < 3; k++) {
      if (k == ei) continue;
      double s = sp_dot3(n, A[k]) >= 0 ? 1 : -1;
      sp_madd3(pa, pa, A[k], s * ha[k]);
      if (s > 0) ida |= 1 << bit;
      bit++;
    }
    bit = 0;
    for (int k = 0; k < 3; k++) {
      if (k == ej) continue;
      double s = sp_dot3(n, B[k]) >= 0 ? -1 : 1;
      sp_madd3(pb, pb, B[k], s * hb[k]);
      if (s > 0) idb |= 1 << bit;
      bit++;
    }
    double a0[3], a1[3], b0[3], b1[3], c1[3], c2[3];
    sp_madd3(a0, pa, A[ei], -ha[ei]);
    sp_madd3(a1, pa, A[ei], ha[ei]);
    sp_madd3(b0, pb, B[ej], -hb[ej]);
    sp_madd3(b1, pb, B[ej], hb[ej]);
    closest_segments(a0, a1, b0, b1, c1, c2);
    // depth from the separating axis (the closest points agree with it up to rounding)
    cset(con, c1, c2, n, -best_edge, 72 * 8448 + 12 * (4 * ei + ida) + (4 * ej + idb));
    return 1;
  }
  // face contact: reference box X, face axis k with outward normal m toward the other box Y
  const coll_geom *gx = face_box ? g2 : g1, *gy = face_box ? g1 : g2;
  double (*X)[3] = face_box ? B : A;
  double (*Y)[3] = face_box ? A : B;
  int k = face_axis;
  double sgn_d = face_box ? -1.0 : 1.0;  // d points from A to B; from X to Y is sgn_d * d
  double dk = sgn_d * sp_dot3(d, X[k]);
  int sx = dk >= 0 ? 1 : -1;
  double m[3];
  sp_scale3(m, X[k], (double)sx);
  // incident face: the face of Y whose outward normal is most anti-parallel to m
  int l = 0;
  double bl = fabs(sp_dot3(m, Y[0]));
  for (int j = 1; j < 3; j++)
    if (fabs(sp_dot3(m, Y[j])) > bl) { bl = fabs(sp_dot3(m, Y[j])); l = j; }
  int sy = sp_dot3(m, Y[l]) > 0 ? -1 : 1;
  double ref[12], inc[12];
  coll_box_face(gx, k, sx, ref);
  coll_box_face(gy, l, sy, inc);
  int fbase = (face_box * 6 + 2 * k + (sx > 0)) * 6 + 2 * l + (sy > 0);
  return coll_clip_patch(ref, 4, m, inc, 4, margin, face_box, fbase, con,
                         COLL_MAX_PAIR_CONTACTS);
}
