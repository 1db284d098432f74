// collision_convex.c — the general convex path: support functions, GJK distance on shape cores,
// EPA penetration when the cores overlap, the face-on-face contact patch, and libccd's MPR.
//
// GJK: Gilbert, Johnson, Keerthi 1988, with the sub-simplex search by Voronoi regions of
// Ericson, Real-Time Collision Detection (2005) 5.1.5/9.5. EPA: van den Bergen 2001. Cores: a
// sphere is its centre and a capsule its segment, both with a radius added afterwards (van den
// Bergen's "margins"), so the common sphere/capsule cases are exact distance queries.
#include <ccd/ccd.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/collision/collision_internal.h"

#define GJK_MAX_ITER 64
#define EPA_MAX_V 128
#define EPA_MAX_F 256
#define EPA_MAX_E 192
#define EPA_MAX_ITER 100
// EPA's stop: the support passes the closest face by at most abs + rel depth, which bounds the
// depth's error (the face's distance is below the depth, the support's above). One tight bound
// for every pair: a looser one on curved pairs (1e-9 + 1e-6 depth: 16.6 supports per call on
// humanoid100 instead of 21, -0.09e6 instructions a step) moved the contact point by up to
// 1.6e-5 m (2.2e-6 tight) and with it 001 Sec. VI-B's Allegro runs enough to change a verdict
// (quasi-Newton's wall time 0.35 -> 0.93 of full Newton's): exactness first
#define EPA_ABS 1e-11
#define EPA_REL 1e-10
// the loose stop before an exact finish (coll_convex: ell_refine on two ellipsoids, cyl_refine on
// a cylinder's rim against another's side): the finish, not this stop, sets the answer, to
// round-off; where no finish applies EPA goes on from here to the tight stop above
#define EPA_LOOSE_REL 1e-2
#define FEATURE_SINGLE 1700000000  // feature of the single GJK/EPA contact
#define CPI 3.14159265358979323846

//---------------------------------- support functions ----------------------------------------

// hull vertex farthest along d, hill climbing from vertex `start` on large hulls
static int hull_climb(const coll_hull* h, const double d[3], int start) {
  const double* V = h->vert;
  // small hulls (or no adjacency): plain scan
  if (h->nvert <= 32 || !h->adj_start) {
    int best = 0;
    double bd = sp_dot3(d, V);
    for (int i = 1; i < h->nvert; i++) {
      double t = sp_dot3(d, V + 3 * i);
      if (t > bd) { bd = t; best = i; }
    }
    return best;
  }
  // steepest ascent on the vertex graph: a local maximum of a linear function on a convex
  // polytope's edge graph is global
  // start: the hint or the extreme vertex along the dominant axis of d, whichever is higher
  int ax = 0;
  for (int k = 1; k < 3; k++)
    if (fabs(d[k]) > fabs(d[ax])) ax = k;
  int best = h->ext[2 * ax + (d[ax] > 0)];
  double bd = sp_dot3(d, V + 3 * best);
  if (start >= 0 && start < h->nvert && sp_dot3(d, V + 3 * start) > bd) {
    best = start;
    bd = sp_dot3(d, V + 3 * best);
  }
  for (int it = 0; it < h->nvert; it++) {
    int next = best;
    for (int k = h->adj_start[best]; k < h->adj_start[best + 1]; k++) {
      int j = h->adj[k];
      double t = sp_dot3(d, V + 3 * j);
      if (t > bd) { bd = t; next = j; }
    }
    if (next == best) break;
    best = next;
  }
  return best;
}

int coll_hull_support(const coll_hull* h, const double d[3], int start) {
  if (h->nvert <= 32 || !h->adj_start) return hull_climb(h, d, 0);
  // start at `start` (the caller's last answer for a nearby d: one neighbourhood's scan when it
  // still wins), else at the extreme vertex along the nearest of 26 directions (a component
  // within tan 22.5 degrees of the largest counts): a few steps of steepest ascent instead of a
  // climb from an axis
  int best = start;
  if (best < 0 || best >= h->nvert) {
    double m = 0.41421356 * fmax(fabs(d[0]), fmax(fabs(d[1]), fabs(d[2])));
    int q = 0;
    for (int k = 0; k < 3; k++) q = 3 * q + (d[k] > m ? 2 : d[k] < -m ? 0 : 1);
    best = h->dir27[q];
  }
  const double* V = h->vert;
  double bd = sp_dot3(d, V + 3 * best), nmax = -INFINITY;
  for (int it = 0; it < h->nvert; it++) {
    int next = best;
    nmax = -INFINITY;
    for (int k = h->adj_start[best]; k < h->adj_start[best + 1]; k++) {
      double t = sp_dot3(d, V + 3 * h->adj[k]);
      if (t > nmax) nmax = t;
      if (t > bd) { bd = t; next = h->adj[k]; }
    }
    if (next == best) break;
    best = next;
  }
  // above every neighbour by more than rounding: the unique maximum, wherever the climb began.
  // Else (a face or edge along -d: a plateau) climb from hull_climb's start, so that ties resolve
  // as they always have
  double tol = 1e-9 * (fabs(d[0]) + fabs(d[1]) + fabs(d[2])) * h->vmax;
  return bd - nmax > tol ? best : hull_climb(h, d, 0);
}

// a shape during one GJK/EPA query: the geom and the last hull vertex found (hill-climbing
// start for the next support, as successive directions are close)
typedef struct {
  const coll_geom* g;
  int hint;
} cshape;

// support of the core of shape sh (radius excluded) in world direction dir
static void core_support(cshape* sh, const double dir[3], double out[3]) {
  const coll_geom* g = sh->g;
  if (g->type == MODEL_GEOM_ELLIPSOID) {  // (its own frame change: dl below would be unused)
    coll_ellipsoid_support(g, dir, out);
    return;
  }
  double dl[3], loc[3];
  sp_mulmtv3(dl, g->mat, dir);
  const double* s = g->size;
  switch (g->type) {
    case MODEL_GEOM_BOX:
      loc[0] = dl[0] >= 0 ? s[0] : -s[0];
      loc[1] = dl[1] >= 0 ? s[1] : -s[1];
      loc[2] = dl[2] >= 0 ? s[2] : -s[2];
      break;
    case MODEL_GEOM_CAPSULE:
      loc[0] = loc[1] = 0;
      loc[2] = dl[2] >= 0 ? s[1] : -s[1];
      break;
    case MODEL_GEOM_CYLINDER: {
      double r = sqrt(dl[0] * dl[0] + dl[1] * dl[1]);
      if (r > 0) {
        loc[0] = s[0] * dl[0] / r;
        loc[1] = s[0] * dl[1] / r;
      } else {
        loc[0] = loc[1] = 0;
      }
      loc[2] = dl[2] >= 0 ? s[1] : -s[1];
      break;
    }
    case MODEL_GEOM_MESH:
      if (g->hull && g->hull->nvert > 0) {
        sh->hint = hull_climb(g->hull, dl, sh->hint);
        sp_copy3(loc, g->hull->vert + 3 * sh->hint);
        break;
      }
      loc[0] = loc[1] = loc[2] = 0;
      break;
    default:  // sphere (its core is the centre) and planes (unsupported)
      loc[0] = loc[1] = loc[2] = 0;
      break;
  }
  sp_xform(out, g->mat, g->pos, loc);
}

// radius added around the core: spheres and capsules
static double core_radius(const coll_geom* g) {
  return (g->type == MODEL_GEOM_SPHERE || g->type == MODEL_GEOM_CAPSULE) ? g->size[0] : 0.0;
}

void coll_support(const coll_geom* g, const double dir[3], double out[3]) {
  cshape sh = {g, 0};
  core_support(&sh, dir, out);
  double r = core_radius(g), l = sp_norm3(dir);
  if (r > 0 && l > 0) sp_madd3(out, out, dir, r / l);
}

//---------------------------------- GJK ------------------------------------------------------

// a simplex vertex of the Minkowski difference of the cores: w = a - b
typedef struct {
  double w[3], a[3], b[3];
} svert;

typedef struct {
  svert v[4];
  int n;
} simplex;

// support of the core difference A - B in direction d
static void diff_support(cshape* A, cshape* B, const double d[3], svert* s) {
  double md[3] = {-d[0], -d[1], -d[2]};
  core_support(A, d, s->a);
  core_support(B, md, s->b);
  sp_sub3(s->w, s->a, s->b);
}

// closest point to the origin on segment (a, b): barycentric weights l[0..1]
static void closest_seg(const double a[3], const double b[3], double l[2]) {
  double ab[3];
  sp_sub3(ab, b, a);
  double den = sp_dot3(ab, ab);
  double t = den > 0 ? -sp_dot3(a, ab) / den : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  l[0] = 1 - t;
  l[1] = t;
}

// closest point to the origin on triangle (a, b, c): barycentric weights l[0..2]
// (Ericson 5.1.5 with p = 0; a degenerate triangle falls back to its best edge)
static void closest_tri(const double a[3], const double b[3], const double c[3], double l[3]) {
  double ab[3], ac[3];
  sp_sub3(ab, b, a);
  sp_sub3(ac, c, a);
  double d1 = -sp_dot3(ab, a), d2 = -sp_dot3(ac, a);
  l[0] = l[1] = l[2] = 0;
  // vertex regions and edge regions
  if (d1 <= 0 && d2 <= 0) { l[0] = 1; return; }
  double d3 = -sp_dot3(ab, b), d4 = -sp_dot3(ac, b);
  if (d3 >= 0 && d4 <= d3) { l[1] = 1; return; }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    double t = d1 / (d1 - d3);
    l[0] = 1 - t; l[1] = t;
    return;
  }
  double d5 = -sp_dot3(ab, c), d6 = -sp_dot3(ac, c);
  if (d6 >= 0 && d5 <= d6) { l[2] = 1; return; }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    double t = d2 / (d2 - d6);
    l[0] = 1 - t; l[2] = t;
    return;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    l[1] = 1 - t; l[2] = t;
    return;
  }
  // face region
  double den = va + vb + vc;
  if (!(den > 1e-300)) {
    // degenerate: best of the three edges
    double best = DBL_MAX, le[2], p[3];
    const double* P[3] = {a, b, c};
    for (int e = 0; e < 3; e++) {
      closest_seg(P[e], P[(e + 1) % 3], le);
      p[0] = le[0] * P[e][0] + le[1] * P[(e + 1) % 3][0];
      p[1] = le[0] * P[e][1] + le[1] * P[(e + 1) % 3][1];
      p[2] = le[0] * P[e][2] + le[1] * P[(e + 1) % 3][2];
      double dd = sp_dot3(p, p);
      if (dd < best) {
        best = dd;
        l[0] = l[1] = l[2] = 0;
        l[e] = le[0];
        l[(e + 1) % 3] = le[1];
      }
    }
    return;
  }
  l[1] = vb / den;
  l[2] = vc / den;
  l[0] = 1 - l[1] - l[2];
}

// keep the simplex vertices with positive weight and return the closest point v;
// returns 1 when the origin is inside a full tetrahedron (cores overlap)
static int simplex_reduce(simplex* s, double v[3]) {
  double l[4] = {0, 0, 0, 0};
  if (s->n == 1) {
    l[0] = 1;
  } else if (s->n == 2) {
    closest_seg(s->v[0].w, s->v[1].w, l);
  } else if (s->n == 3) {
    closest_tri(s->v[0].w, s->v[1].w, s->v[2].w, l);
  } else {
    // tetrahedron: faces whose plane separates the origin from the opposite vertex
    static const int F[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
    double best = DBL_MAX;
    int any = 0;
    for (int f = 0; f < 4; f++) {
      const double *a = s->v[F[f][0]].w, *b = s->v[F[f][1]].w, *c = s->v[F[f][2]].w;
      const double* d = s->v[F[f][3]].w;
      double ab[3], ac[3], nn[3], ad[3];
      sp_sub3(ab, b, a);
      sp_sub3(ac, c, a);
      sp_cross3(nn, ab, ac);
      sp_sub3(ad, d, a);
      double so = -sp_dot3(nn, a), sd = sp_dot3(nn, ad);
      if (so * sd > 0) continue;  // origin on the same side as d: not this face
      any = 1;
      double lt[3], p[3];
      closest_tri(a, b, c, lt);
      for (int k = 0; k < 3; k++)
        p[k] = lt[0] * a[k] + lt[1] * b[k] + lt[2] * c[k];
      double dd = sp_dot3(p, p);
      if (dd < best) {
        best = dd;
        l[0] = l[1] = l[2] = l[3] = 0;
        l[F[f][0]] = lt[0];
        l[F[f][1]] = lt[1];
        l[F[f][2]] = lt[2];
      }
    }
    if (!any) return 1;
  }
  // compact to the support set and form v
  int m = 0;
  v[0] = v[1] = v[2] = 0;
  double lk[4];
  for (int i = 0; i < s->n; i++) {
    if (l[i] <= 0) continue;
    s->v[m] = s->v[i];
    lk[m++] = l[i];
  }
  if (m == 0) {  // cannot happen (weights sum to 1); keep the newest vertex
    s->v[0] = s->v[s->n - 1];
    lk[0] = 1;
    m = 1;
  }
  s->n = m;
  for (int i = 0; i < m; i++)
    sp_madd3(v, v, s->v[i].w, lk[i]);
  return 0;
}

// witness points of the closest point v of simplex s (weights recomputed on the support set)
static void simplex_witness(const simplex* s, double pa[3], double pb[3]) {
  double l[4] = {1, 0, 0, 0};
  if (s->n == 2) closest_seg(s->v[0].w, s->v[1].w, l);
  if (s->n >= 3) closest_tri(s->v[0].w, s->v[1].w, s->v[2].w, l);
  pa[0] = pa[1] = pa[2] = 0;
  pb[0] = pb[1] = pb[2] = 0;
  int n = s->n < 3 ? s->n : 3;
  for (int i = 0; i < n; i++) {
    sp_madd3(pa, pa, s->v[i].a, l[i]);
    sp_madd3(pb, pb, s->v[i].b, l[i]);
  }
}

// GJK distance between the cores of A and B.
//   bound: stop with 0 as soon as the cores are provably farther apart than bound
// returns 0: farther than bound; 1: separated, *dist and witness points pa, pb set;
// 2: the cores overlap (or touch), s holds the final simplex for EPA
static int gjk(cshape* A, cshape* B, double bound, simplex* s, double* dist,
               double pa[3], double pb[3]) {
  double v[3], d[3];
  // first direction: centre to centre
  sp_sub3(d, B->g->pos, A->g->pos);
  if (sp_dot3(d, d) < 1e-30) { d[0] = 1; d[1] = 0; d[2] = 0; }
  diff_support(A, B, d, &s->v[0]);
  s->n = 1;
  sp_copy3(v, s->v[0].w);
  for (int it = 0; it < GJK_MAX_ITER; it++) {
    double vv = sp_dot3(v, v);
    if (vv < 1e-26) return 2;
    double mv[3] = {-v[0], -v[1], -v[2]};
    svert w;
    diff_support(A, B, mv, &w);
    double vw = sp_dot3(v, w.w);
    // lower bound on the distance vw/|v| beyond the bound: no contact
    if (vw > 0 && vw * vw > bound * bound * vv) return 0;
    // no more progress (relative tolerance), or w already in the simplex
    if (vv - vw <= 1e-12 * vv) break;
    int dup = 0;
    for (int i = 0; i < s->n; i++) {
      double e[3];
      sp_sub3(e, w.w, s->v[i].w);
      if (sp_dot3(e, e) < 1e-28) dup = 1;
    }
    if (dup) break;
    simplex prev = *s;
    s->v[s->n++] = w;
    double vn[3];
    if (simplex_reduce(s, vn)) return 2;
    // guard against cycling on rounding: the distance must decrease, else keep the last
    // simplex (a sliver simplex can give a worse point in a wrong direction)
    if (sp_dot3(vn, vn) >= vv) {
      *s = prev;
      break;
    }
    sp_copy3(v, vn);
  }
  *dist = sp_norm3(v);
  if (*dist < 1e-13) return 2;
  simplex_witness(s, pa, pb);
  return 1;
}

//---------------------------------- EPA ------------------------------------------------------

typedef struct {
  int v[3];
  double n[3];
  double d;      // n . w(v[0]): distance of the face plane to the origin
  double w0[3];  // w(v[0]) (a copy: the visibility test reads it for every live face)
} eface;

// the polytope's live faces are live[0..nlive) in creation order (ties between equal distances
// and the horizon's edge order follow it); a dead face's slot is reused (freed[0..nfree))
typedef struct {
  svert v[EPA_MAX_V];
  int nv;
  eface f[EPA_MAX_F];
  int nslot;              // slots of f used so far
  int live[EPA_MAX_F], nlive;
  int freed[EPA_MAX_F], nfree;
  double center[3];  // a point inside the polytope (orientation of new faces)
} epoly;

// add face (a, b, c), oriented away from the polytope centre; returns 0 when EPA_MAX_F faces
// are live
static int epa_add_face(epoly* P, int a, int b, int c) {
  if (P->nlive >= EPA_MAX_F) return 0;
  int slot = P->nfree > 0 ? P->freed[--P->nfree] : P->nslot++;
  P->live[P->nlive++] = slot;
  eface* F = &P->f[slot];
  const double *A = P->v[a].w, *B = P->v[b].w, *C = P->v[c].w;
  double ab[3], ac[3], n[3], ca[3];
  sp_sub3(ab, B, A);
  sp_sub3(ac, C, A);
  sp_cross3(n, ab, ac);
  sp_sub3(ca, A, P->center);
  if (sp_dot3(n, ca) < 0) {
    int t = b; b = c; c = t;
    sp_scale3(n, n, -1.0);
  }
  F->v[0] = a; F->v[1] = b; F->v[2] = c;
  sp_copy3(F->w0, A);
  double len = sp_norm3(n);
  if (len < 1e-300) {
    // degenerate sliver: never chosen as the closest face
    F->n[0] = F->n[1] = F->n[2] = 0;
    F->d = DBL_MAX;
    return 1;
  }
  sp_scale3(F->n, n, 1.0 / len);
  F->d = sp_dot3(F->n, A);
  return 1;
}

// grow the GJK simplex (which contains the origin, possibly on its boundary) to a tetrahedron
// (as libccd's simplexToPolytope); returns 0 when the difference is flat (degenerate)
static int epa_init(cshape* A, cshape* B, const simplex* s, epoly* P) {
  P->nv = 0;
  P->nslot = P->nlive = P->nfree = 0;
  for (int i = 0; i < s->n; i++)
    P->v[P->nv++] = s->v[i];
  static const double dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                                    {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  // one point: any support distinct from it
  if (P->nv == 1) {
    for (int k = 0; k < 6 && P->nv == 1; k++) {
      svert w;
      diff_support(A, B, dirs[k], &w);
      double e[3];
      sp_sub3(e, w.w, P->v[0].w);
      if (sp_dot3(e, e) > 1e-24) P->v[P->nv++] = w;
    }
    if (P->nv == 1) return 0;
  }
  // segment: a support off its line, searched around it
  if (P->nv == 2) {
    double u[3], p1[3], p2[3];
    sp_sub3(u, P->v[1].w, P->v[0].w);
    sp_normalize3(u);
    sp_perp3(p1, u);
    sp_cross3(p2, u, p1);
    for (int k = 0; k < 6 && P->nv == 2; k++) {
      double th = k * (CPI / 3), d[3], e[3], c[3];
      for (int j = 0; j < 3; j++)
        d[j] = cos(th) * p1[j] + sin(th) * p2[j];
      svert w;
      diff_support(A, B, d, &w);
      sp_sub3(e, w.w, P->v[0].w);
      sp_cross3(c, e, u);
      if (sp_dot3(c, c) > 1e-24) P->v[P->nv++] = w;
    }
    if (P->nv == 2) return 0;
  }
  // triangle: the support along the normal farther off its plane
  if (P->nv == 3) {
    double ab[3], ac[3], n[3], mn[3];
    sp_sub3(ab, P->v[1].w, P->v[0].w);
    sp_sub3(ac, P->v[2].w, P->v[0].w);
    sp_cross3(n, ab, ac);
    if (sp_normalize3(n) <= 0) return 0;
    sp_scale3(mn, n, -1.0);
    svert w1, w2;
    diff_support(A, B, n, &w1);
    diff_support(A, B, mn, &w2);
    double e1[3], e2[3];
    sp_sub3(e1, w1.w, P->v[0].w);
    sp_sub3(e2, w2.w, P->v[0].w);
    double h1 = fabs(sp_dot3(e1, n)), h2 = fabs(sp_dot3(e2, n));
    if (h1 < 1e-12 && h2 < 1e-12) return 0;
    P->v[P->nv++] = h1 >= h2 ? w1 : w2;
  }
  // tetrahedron: centre and four outward faces
  for (int k = 0; k < 3; k++)
    P->center[k] = 0.25 * (P->v[0].w[k] + P->v[1].w[k] + P->v[2].w[k] + P->v[3].w[k]);
  {
    double ab[3], ac[3], ad[3], n[3];
    sp_sub3(ab, P->v[1].w, P->v[0].w);
    sp_sub3(ac, P->v[2].w, P->v[0].w);
    sp_sub3(ad, P->v[3].w, P->v[0].w);
    sp_cross3(n, ab, ac);
    if (fabs(sp_dot3(n, ad)) < 1e-30) return 0;
  }
  epa_add_face(P, 0, 1, 2);
  epa_add_face(P, 0, 3, 1);
  epa_add_face(P, 0, 2, 3);
  epa_add_face(P, 1, 3, 2);
  return 1;
}

// the live face closest to the origin (the first of equal distances), -1 when none
static int closest_face(const epoly* P) {
  int best = -1;
  double bd = 0;
  for (int q = 0; q < P->nlive; q++) {
    int i = P->live[q];
    if (best < 0 || P->f[i].d < bd) best = i, bd = P->f[i].d;
  }
  return best;
}

// EPA's expansion of polytope P (from epa_init) until the support in the closest face's
// direction passes it by at most tol_abs + tol_rel d: 1 done, 0 on a degenerate polytope. It can
// be run again on the same P with tighter tolerances: the iterations then go on as one run's
static int epa_run(cshape* A, cshape* B, epoly* P, double tol_abs, double tol_rel) {
  // closest live face (the first of equal distances, in creation order): found by a scan at
  // the start, then by each iteration's pass over the faces it keeps and the faces it adds (the
  // kept ones stay first in live, in their order, the new ones follow: the same face as a scan)
  int best = closest_face(P);
  for (int it = 0; it < EPA_MAX_ITER; it++) {
    if (best < 0) return 0;
    eface* F = &P->f[best];
    if (F->d == DBL_MAX) return 0;
    svert w;
    diff_support(A, B, F->n, &w);
    double dw = sp_dot3(F->n, w.w);
    // converged: the support does not pass the face (absolute + relative tolerance)
    if (dw - F->d <= tol_abs + tol_rel * fabs(F->d)) break;
    if (P->nv >= EPA_MAX_V) break;
    int iw = P->nv;
    P->v[P->nv++] = w;
    // remove faces seen from w; the horizon is the set of their edges seen once
    int edges[EPA_MAX_E][2], ne = 0, overflow = 0, keep = 0, next = -1;
    double nd = 0;
    for (int q = 0; q < P->nlive; q++) {
      int i = P->live[q];
      eface* G = &P->f[i];
      double e[3];
      sp_sub3(e, w.w, G->w0);
      if (i != best && sp_dot3(G->n, e) <= 1e-13) {
        P->live[keep++] = i;
        if (next < 0 || G->d < nd) next = i, nd = G->d;
        continue;
      }
      P->freed[P->nfree++] = i;
      for (int k = 0; k < 3; k++) {
        int a = G->v[k], b = G->v[(k + 1) % 3], found = -1;
        for (int r = 0; r < ne; r++)
          if (edges[r][0] == b && edges[r][1] == a) { found = r; break; }
        if (found >= 0) {
          edges[found][0] = edges[ne - 1][0];
          edges[found][1] = edges[ne - 1][1];
          ne--;
        } else if (ne < EPA_MAX_E) {
          edges[ne][0] = a;
          edges[ne][1] = b;
          ne++;
        } else {
          overflow = 1;
        }
      }
    }
    P->nlive = keep;
    if (overflow) return 0;
    // new faces from the horizon to w
    for (int q = 0; q < ne; q++)
      if (!epa_add_face(P, edges[q][0], edges[q][1], iw)) return 0;
    for (int q = keep; q < P->nlive; q++) {
      int i = P->live[q];
      if (next < 0 || P->f[i].d < nd) next = i, nd = P->f[i].d;
    }
    best = next;
  }
  return 1;
}

// EPA's answer from P: penetration depth of the cores, unit normal n (direction B moves to
// separate) and witness points; 0 on a degenerate polytope
static int epa_result(const epoly* P, double* depth, double n[3], double pa[3], double pb[3]) {
  // result from the closest face: the origin's projection in barycentric coordinates
  int best = closest_face(P);
  if (best < 0 || P->f[best].d == DBL_MAX) return 0;
  const eface* F = &P->f[best];
  double p[3], l[3];
  sp_scale3(p, F->n, F->d);
  // barycentric coordinates of p in the face plane, not clamped: on a flat face of the
  // difference split into coplanar triangles the closest may not contain p, and the supports
  // are affine over the face, so extrapolation stays exact
  double e0[3], e1[3], e2[3];
  sp_sub3(e0, P->v[F->v[1]].w, P->v[F->v[0]].w);
  sp_sub3(e1, P->v[F->v[2]].w, P->v[F->v[0]].w);
  sp_sub3(e2, p, P->v[F->v[0]].w);
  double d00 = sp_dot3(e0, e0), d01 = sp_dot3(e0, e1), d11 = sp_dot3(e1, e1);
  double d20 = sp_dot3(e2, e0), d21 = sp_dot3(e2, e1), den = d00 * d11 - d01 * d01;
  if (den > 1e-300) {
    l[1] = (d11 * d20 - d01 * d21) / den;
    l[2] = (d00 * d21 - d01 * d20) / den;
    l[0] = 1 - l[1] - l[2];
  } else {
    l[0] = 1; l[1] = l[2] = 0;
  }
  pa[0] = pa[1] = pa[2] = pb[0] = pb[1] = pb[2] = 0;
  for (int k = 0; k < 3; k++) {
    sp_madd3(pa, pa, P->v[F->v[k]].a, l[k]);
    sp_madd3(pb, pb, P->v[F->v[k]].b, l[k]);
  }
  *depth = F->d > 0 ? F->d : 0;
  sp_copy3(n, F->n);
  return 1;
}

//---------------------------------- libccd MPR -----------------------------------------------

// libccd callbacks: full-shape support and a centre point
static void mpr_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* v) {
  coll_support((const coll_geom*)obj, dir->v, v->v);
}

static void mpr_center(const void* obj, ccd_vec3_t* c) {
  const coll_geom* g = (const coll_geom*)obj;
  if (g->type == MODEL_GEOM_MESH && g->hull)
    sp_xform(c->v, g->mat, g->pos, g->hull->center);
  else
    sp_copy3(c->v, g->pos);
}

int coll_mpr(const coll_geom* g1, const coll_geom* g2, coll_contact* con) {
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = mpr_support;
  ccd.support2 = mpr_support;
  ccd.center1 = mpr_center;
  ccd.center2 = mpr_center;
  ccd.max_iterations = 1000;
  ccd.mpr_tolerance = 1e-12;
  ccd_real_t depth;
  ccd_vec3_t dir, pos;
  if (ccdMPRPenetration(g1, g2, &ccd, &depth, &dir, &pos) != 0) return 0;
  double n[3] = {dir.v[0], dir.v[1], dir.v[2]};
  if (sp_normalize3(n) <= 0) { n[0] = 0; n[1] = 0; n[2] = 1; }
  sp_copy3(con->pos, pos.v);
  sp_copy3(con->normal, n);
  con->depth = depth;
  con->geom1 = con->geom2 = -1;
  con->feature = FEATURE_SINGLE;
  return 1;
}

//---------------------------------- contact patch --------------------------------------------

// the feature of g farthest along unit world direction d: a polygon (>= 3 points, counter-
// clockwise seen from outside, with its outward normal fn and alignment fn.d in *align), a
// segment (2 points, *align = 0: never a reference) or a single point (returns 1).
// Points lie on the surface of g; *fid identifies the feature within g.
static int shape_face(const coll_geom* g, const double d[3], double* pts, double fn[3],
                      int* fid, double* align) {
  double dl[3];
  sp_mulmtv3(dl, g->mat, d);
  *align = 0;
  *fid = 0;
  const double sin_tol = sqrt(1 - COLL_PATCH_COS * COLL_PATCH_COS);
  switch (g->type) {
    case MODEL_GEOM_BOX: {
      int k = 0;
      for (int j = 1; j < 3; j++)
        if (fabs(dl[j]) > fabs(dl[k])) k = j;
      int s = dl[k] >= 0 ? 1 : -1;
      coll_box_face(g, k, s, pts);
      sp_axis3(fn, g->mat, k);
      sp_scale3(fn, fn, (double)s);
      *align = fabs(dl[k]);
      *fid = 2 * k + (s > 0);
      return 4;
    }
    case MODEL_GEOM_MESH: {
      const coll_hull* h = g->hull;
      if (!h || h->npoly <= 0) return 1;
      // the best aligned polygon among those around the support vertex
      int v = hull_climb(h, dl, -1), best = -1;
      double bd = -DBL_MAX;
      for (int k = h->vpoly_start[v]; k < h->vpoly_start[v + 1]; k++) {
        int f = h->vpoly[k];
        double t = sp_dot3(dl, h->poly_normal + 3 * f);
        if (t > bd) { bd = t; best = f; }
      }
      if (best < 0) return 1;
      int np = h->poly_start[best + 1] - h->poly_start[best];
      for (int k = 0; k < np; k++)
        sp_xform(pts + 3 * k, g->mat, g->pos, h->vert + 3 * h->poly_vert[h->poly_start[best] + k]);
      sp_mulmv3(fn, g->mat, h->poly_normal + 3 * best);
      *align = bd;
      *fid = best;
      return np;
    }
    case MODEL_GEOM_CYLINDER: {
      double r = g->size[0], hh = g->size[1], ax[3], c[3];
      sp_axis3(ax, g->mat, 2);
      if (fabs(dl[2]) >= 0.7071) {
        // cap polygon: COLL_CYL_RIM rim points, counter-clockwise seen from outside
        int s = dl[2] >= 0 ? 1 : -1;
        double ux[3], uy[3];
        sp_axis3(ux, g->mat, 0);
        sp_axis3(uy, g->mat, 1);
        sp_madd3(c, g->pos, ax, s * hh);
        for (int k = 0; k < COLL_CYL_RIM; k++) {
          double th = 2 * CPI * k / COLL_CYL_RIM * s;
          double p[3];
          sp_madd3(p, c, ux, r * cos(th));
          sp_madd3(pts + 3 * k, p, uy, r * sin(th));
        }
        sp_scale3(fn, ax, (double)s);
        *align = fabs(dl[2]);
        *fid = s > 0;
        return COLL_CYL_RIM;
      }
      if (fabs(dl[2]) <= sin_tol) {
        // side line: a segment along the axis at the rim point farthest along d
        double u[3];
        sp_madd3(u, d, ax, -sp_dot3(d, ax));
        if (sp_normalize3(u) <= 0) return 1;
        sp_madd3(c, g->pos, u, r);
        sp_madd3(pts, c, ax, -hh);
        sp_madd3(pts + 3, c, ax, hh);
        *fid = 2;
        return 2;
      }
      return 1;
    }
    case MODEL_GEOM_CAPSULE: {
      if (fabs(dl[2]) > sin_tol) return 1;
      double ax[3], c[3];
      sp_axis3(ax, g->mat, 2);
      sp_madd3(c, g->pos, d, g->size[0]);
      sp_madd3(pts, c, ax, -g->size[1]);
      sp_madd3(pts + 3, c, ax, g->size[1]);
      return 2;
    }
    default:
      return 1;
  }
}

// replace the single contact by a face-on-face patch when one shape shows a face along the
// normal; returns the number of patch contacts (0: keep the single contact)
static int contact_patch(const coll_geom* g1, const coll_geom* g2, const double n[3],
                         double margin, coll_contact* con) {
  double P1[3 * COLL_MAX_POLY], P2[3 * COLL_MAX_POLY], fn1[3], fn2[3], mn[3];
  int id1, id2;
  double al1, al2;
  sp_scale3(mn, n, -1.0);
  int n1 = shape_face(g1, n, P1, fn1, &id1, &al1);
  int n2 = shape_face(g2, mn, P2, fn2, &id2, &al2);
  int ref1 = n1 >= 3 && al1 >= COLL_PATCH_COS;
  int ref2 = n2 >= 3 && al2 >= COLL_PATCH_COS;
  if (!ref1 && !ref2) return 0;
  // reference: the better aligned face (geom1 on ties); incident: the other shape's feature
  // most anti-parallel to the reference normal
  int flip = ref2 && (!ref1 || al2 > al1 + 1e-12);
  const coll_geom* gi = flip ? g1 : g2;
  const double* ref = flip ? P2 : P1;
  int nref = flip ? n2 : n1, idr = flip ? id2 : id1;
  double m[3], mm[3], inc[3 * COLL_MAX_POLY], fni[3], ali;
  sp_copy3(m, flip ? fn2 : fn1);
  sp_scale3(mm, m, -1.0);
  int idi;
  int ninc = shape_face(gi, mm, inc, fni, &idi, &ali);
  if (ninc < 2) return 0;
  int fbase = ((idr * 1009 + idi) * 2 + flip) % 200000;
  return coll_clip_patch(ref, nref, m, inc, ninc, margin, flip, fbase, con,
                         COLL_MAX_PAIR_CONTACTS);
}

//---------------------------------- two ellipsoids -------------------------------------------

// An ellipsoid's support function h(n) = c.n + |D R'n| (c its centre, R its rotation, D =
// diag(radii)) is smooth away from n = 0: its gradient is the support point s(n) and its Hessian
// (R D^2 R' - s0 s0') / |D R'n| (s0 = s - c). Returns h(n); s and the Hessian H (3x3) out.
static double ell_h(const coll_geom* g, const double n[3], double s[3], double H[9]) {
  const double *R = g->mat, *r = g->size;
  double u[3], q = 0;
  sp_mulmtv3(u, R, n);
  for (int k = 0; k < 3; k++) q += r[k] * r[k] * u[k] * u[k];
  double a = sqrt(q), w[3], s0[3];
  for (int k = 0; k < 3; k++) w[k] = r[k] * r[k] * u[k] / a;
  sp_mulmv3(s0, R, w);
  sp_add3(s, g->pos, s0);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double m = 0;
      for (int k = 0; k < 3; k++) m += R[3 * i + k] * r[k] * r[k] * R[3 * j + k];
      H[3 * i + j] = (m - s0[i] * s0[j]) / a;
    }
  return sp_dot3(g->pos, n) + a;
}

// f(n) = h_A(n) + h_B(-n), the support function of A - B: the penetration depth of two
// overlapping convex shapes is its minimum over unit n (the distance from the origin, inside
// A - B, to its boundary), reached where the support point p = s_A(n) - s_B(-n) is f n. Its
// gradient p and Hessian H_A(n) + H_B(-n) into p and H; returns f
static double ell_pair_f(const coll_geom* A, const coll_geom* B, const double n[3], double sa[3],
                         double sb[3], double p[3], double H[9]) {
  double mn[3] = {-n[0], -n[1], -n[2]}, Hb[9];
  double f = ell_h(A, n, sa, H) + ell_h(B, mn, sb, Hb);
  sp_sub3(p, sa, sb);
  for (int k = 0; k < 9; k++) H[k] += Hb[k];
  return f;
}

#define ELL_NEWTON_IT 30
#define ELL_STOP 1e-9  // the last Newton step (rad) at which n is taken: the next is ~1e-18
#define ELL_NEAR 1e-6  // steps below this are taken without the line search (f is flat there)

// an orthonormal pair t1, t2 across unit n (from the axis least along n)
static void ell_tangents(const double n[3], double t1[3], double t2[3]) {
  double e[3] = {0, 0, 0};
  double a0 = fabs(n[0]), a1 = fabs(n[1]), a2 = fabs(n[2]);
  int k = a0 <= a1 ? (a0 <= a2 ? 0 : 2) : (a1 <= a2 ? 1 : 2);
  e[k] = 1;
  sp_cross3(t1, n, e);
  sp_normalize3(t1);
  sp_cross3(t2, n, t1);
}

// Two ellipsoids: EPA's polytope approaches curved A - B slowly (34 iterations a pair on
// humanoid100, a third of its collision time), so EPA stops loose (EPA_LOOSE_REL: the basin of
// the deepest direction; Newton only lowers f from EPA's normal, so its f stays within that
// stop's bound of the depth) and Newton's method on the unit sphere takes that n to the minimum of f:
// the Riemannian gradient P p (P = I - n n') and Hessian P H P - f P (f = n.p: f is
// 1-homogeneous) in the tangent plane, the step halved until f falls, quadratic near the
// minimum: n is taken when a step would turn it by 1e-9 rad or less (quadratic: it is then within
// about 1e-18 of the minimum, f within round-off) against EPA's 1e-11 + 1e-10 relative in depth.
// 0 when a step finds no descent or the iterations run out: the caller then runs the full EPA
static int ell_refine(const coll_geom* A, const coll_geom* B, double n[3], double* depth,
                      double pa[3], double pb[3]) {
  double sa[3], sb[3], p[3], H[9];
  double f = ell_pair_f(A, B, n, sa, sb, p, H);
  // round-off of f: its terms are the centres' projections
  double tiny = 1e-15 * (1 + sp_norm3(A->pos) + sp_norm3(B->pos));
  int done = 0;
  for (int it = 0; it < ELL_NEWTON_IT && !done; it++) {
    double t1[3], t2[3], g[2], K[4];
    ell_tangents(n, t1, t2);
    g[0] = sp_dot3(t1, p);
    g[1] = sp_dot3(t2, p);
    const double* T[2] = {t1, t2};
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) {
        double Ht[3];
        sp_mulmv3(Ht, H, T[j]);
        K[2 * i + j] = sp_dot3(T[i], Ht) - (i == j ? f : 0);
      }
    double det = K[0] * K[3] - K[1] * K[2];
    if (!(K[0] > 0 && det > 0)) return 0;  // not near a minimum: EPA decides
    double x0 = -(K[3] * g[0] - K[1] * g[1]) / det, x1 = -(K[0] * g[1] - K[2] * g[0]) / det;
    double dx = sqrt(x0 * x0 + x1 * x1);
    if (dx <= ELL_NEAR) {  // Newton's region: f is flat to round-off, its gradient is not
      for (int k = 0; k < 3; k++) n[k] += x0 * t1[k] + x1 * t2[k];
      sp_normalize3(n);
      f = ell_pair_f(A, B, n, sa, sb, p, H);
      done = dx <= ELL_STOP;  // then within about dx^2
      continue;
    }
    for (double step = 1;; step *= 0.5) {
      if (step * dx < ELL_STOP) return 0;
      double m[3], sa2[3], sb2[3], p2[3], H2[9];
      for (int k = 0; k < 3; k++) m[k] = n[k] + step * (x0 * t1[k] + x1 * t2[k]);
      sp_normalize3(m);
      double f2 = ell_pair_f(A, B, m, sa2, sb2, p2, H2);
      if (f2 <= f) {
        sp_copy3(n, m), sp_copy3(sa, sa2), sp_copy3(sb, sb2), sp_copy3(p, p2);
        memcpy(H, H2, sizeof(H2));
        f = f2;
        break;
      }
      if (step == 1 && f2 - f <= tiny) {  // no lower f within round-off: n is the minimum
        done = 1;
        break;
      }
    }
  }
  if (!done) return 0;
  *depth = f;
  sp_copy3(pa, sa);
  sp_copy3(pb, sb);
  return 1;
}

//---------------------------------- a cylinder's rim on another's side --------------------------

#define CYL_SIDE 1e-3  // |axis . n| below which EPA's loose normal is taken as across the axis

// the axis (local z) of cylinder g in the world
static void cyl_axis(const coll_geom* g, double a[3]) {
  a[0] = g->mat[2], a[1] = g->mat[5], a[2] = g->mat[8];
}

// f(t) = h_R(n) - c_S.n + r_S on the unit circle n(t) = cos t u + sin t v across S's axis, with its
// first two derivatives: h_R(n) = c_R.n + r |n - (a.n) a| + l |a.n| (R's rim and its axis a)
static double rim_f(const coll_geom* R, const coll_geom* S, const double u[3], const double v[3],
                    double t, double n[3], double* f1, double* f2) {
  double a[3], c[3], tg[3];
  cyl_axis(R, a);
  sp_sub3(c, R->pos, S->pos);
  double ct = cos(t), st = sin(t);
  for (int k = 0; k < 3; k++) n[k] = ct * u[k] + st * v[k], tg[k] = -st * u[k] + ct * v[k];
  double r = R->size[0], l = R->size[1], sa = sp_dot3(a, n), sp = sp_dot3(a, tg);
  double w = 1 - sa * sa, rw = sqrt(w), w1 = -2 * sa * sp, w2 = -2 * (sp * sp - sa * sa);
  double sg = sa >= 0 ? 1 : -1;
  *f1 = sp_dot3(c, tg) + r * w1 / (2 * rw) + l * sg * sp;
  *f2 = -sp_dot3(c, n) + r * (w2 / (2 * rw) - w1 * w1 / (4 * w * rw)) - l * fabs(sa);
  return sp_dot3(c, n) + r * rw + l * fabs(sa) + S->size[0];
}

// A cylinder R's rim against cylinder S's side (EPA's loose normal m across S's axis, oblique to
// R's): the support function of R - S restricted to the normals across S's axis is smooth there
// (R's term is, S's is c_S.n - r_S), so Newton's method in the angle t on that circle finds its
// minimum f to round-off; it is the minimum over every normal when R's support point lies within
// S's length (the subgradient of S's term l_S |a_S.n| covers the slope across the circle) and
// the rim is met off its axis and plane. 1 with m, f and R's support point ps; 0 otherwise
static int rim_side_min(const coll_geom* R, const coll_geom* S, double m[3], double* f,
                        double ps[3]) {
  double as[3], ar[3], u[3], v[3], n[3], f1, f2;
  cyl_axis(S, as);
  cyl_axis(R, ar);
  sp_madd3(u, m, as, -sp_dot3(as, m));
  if (sp_normalize3(u) <= 0) return 0;
  sp_cross3(v, as, u);
  double t = 0, fc = rim_f(R, S, u, v, t, n, &f1, &f2);
  double tiny = 1e-15 * (1 + sp_norm3(R->pos) + sp_norm3(S->pos));
  int done = 0;
  for (int it = 0; it < ELL_NEWTON_IT && !done; it++) {
    if (!(f2 > 0)) return 0;
    double dt = -f1 / f2;
    if (fabs(dt) <= ELL_NEAR) {  // Newton's region: f is flat to round-off, its slope is not
      t += dt;
      fc = rim_f(R, S, u, v, t, n, &f1, &f2);
      done = fabs(dt) <= ELL_STOP;  // then within about dt^2
      continue;
    }
    for (double step = 1;; step *= 0.5) {
      if (fabs(step * dt) < ELL_STOP) return 0;
      double n2[3], g1, g2, fn = rim_f(R, S, u, v, t + step * dt, n2, &g1, &g2);
      if (fn <= fc) {
        t += step * dt, fc = fn, f1 = g1, f2 = g2;
        break;
      }
      if (step == 1 && fn - fc <= tiny) {
        done = 1;
        break;
      }
    }
  }
  if (!done) return 0;
  fc = rim_f(R, S, u, v, t, n, &f1, &f2);
  double sa = sp_dot3(ar, n), q[3];
  if (fabs(sa) <= CYL_SIDE || 1 - fabs(sa) <= CYL_SIDE) return 0;  // not on the rim's curve
  sp_madd3(q, n, ar, -sa);
  sp_normalize3(q);
  sp_madd3(ps, R->pos, q, R->size[0]);
  sp_madd3(ps, ps, ar, sa > 0 ? R->size[1] : -R->size[1]);
  double d[3];
  sp_sub3(d, ps, S->pos);
  if (fabs(sp_dot3(d, as)) > S->size[1]) return 0;  // past S's end: a rim or a cap decides
  sp_copy3(m, n);
  *f = fc;
  return 1;
}

// two cylinders after EPA's loose stop (depth d0, normal n): a rim on a side refined by
// rim_side_min (within twice EPA_LOOSE_REL of d0: its start is EPA's normal moved onto the
// circle across the side's axis, so the descent alone does not bound f; else EPA decides); 1 with the exact
// depth, normal and witness points; 0 for the other cases (caps, two rims), which EPA takes
static int cyl_refine(const coll_geom* A, const coll_geom* B, double n[3], double* depth,
                      double pa[3], double pb[3]) {
  double a1[3], a2[3], m[3], f, ps[3];
  cyl_axis(A, a1);
  cyl_axis(B, a2);
  double s1 = fabs(sp_dot3(a1, n)), s2 = fabs(sp_dot3(a2, n)), d0 = *depth;
  int rim_a = s2 <= CYL_SIDE && s1 > CYL_SIDE && s1 < 1 - CYL_SIDE;
  int rim_b = s1 <= CYL_SIDE && s2 > CYL_SIDE && s2 < 1 - CYL_SIDE;
  if (rim_a == rim_b) return 0;
  // f(n) = h_A(n) + h_B(-n): A's rim on B's side in n, B's rim on A's side in m = -n
  for (int k = 0; k < 3; k++) m[k] = rim_a ? n[k] : -n[k];
  if (!(rim_a ? rim_side_min(A, B, m, &f, ps) : rim_side_min(B, A, m, &f, ps))) return 0;
  if (!(f <= d0 * (1 + 2 * EPA_LOOSE_REL) + 1e-9)) return 0;
  for (int k = 0; k < 3; k++) n[k] = rim_a ? m[k] : -m[k];
  if (rim_a) sp_copy3(pa, ps), sp_madd3(pb, ps, n, -f);
  else sp_copy3(pb, ps), sp_madd3(pa, ps, n, f);
  *depth = f;
  return 1;
}

//---------------------------------- the general convex pair ----------------------------------

int coll_convex(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con) {
  if (g1->type == MODEL_GEOM_PLANE || g2->type == MODEL_GEOM_PLANE ||
      g1->type == MODEL_GEOM_HFIELD || g2->type == MODEL_GEOM_HFIELD)
    return 0;
  double r1 = core_radius(g1), r2 = core_radius(g2);
  int curved = g1->type == MODEL_GEOM_CYLINDER || g2->type == MODEL_GEOM_CYLINDER ||
               g1->type == MODEL_GEOM_ELLIPSOID || g2->type == MODEL_GEOM_ELLIPSOID;
  simplex s;
  cshape A = {g1, 0}, B = {g2, 0};
  double dist = 0, pa[3], pb[3], n[3], depth;
  int res = gjk(&A, &B, r1 + r2 + margin, &s, &dist, pa, pb);
  if (res == 0) return 0;
  if (res == 1) {
    // separated cores: exact distance; n from core 1 to core 2
    depth = r1 + r2 - dist;
    if (depth < -margin) return 0;
    sp_sub3(n, pb, pa);
    sp_scale3(n, n, 1.0 / dist);
  } else {
    double dc;
    int ell = g1->type == MODEL_GEOM_ELLIPSOID && g2->type == MODEL_GEOM_ELLIPSOID;
    int cyl = g1->type == MODEL_GEOM_CYLINDER && g2->type == MODEL_GEOM_CYLINDER;
    epoly P;
    int st = epa_init(&A, &B, &s, &P), ok = 0;
    // curved pairs: EPA to a loose stop, then an exact finish (ell_refine, cyl_refine) where
    // one applies; else EPA goes on from there to its tight stop, as one run
    if (st && (ell || cyl)) {
      st = epa_run(&A, &B, &P, EPA_ABS, EPA_LOOSE_REL) && epa_result(&P, &dc, n, pa, pb);
      if (st) ok = ell ? ell_refine(g1, g2, n, &dc, pa, pb) : cyl_refine(g1, g2, n, &dc, pa, pb);
    }
    if (st && !ok) st = epa_run(&A, &B, &P, EPA_ABS, EPA_REL) && epa_result(&P, &dc, n, pa, pb);
    if (!st) {
      // degenerate polytope: libccd's MPR on the full shapes
      int k = coll_mpr(g1, g2, con);
      if (k && con->depth < -margin) return 0;
      return k;
    }
    depth = dc + r1 + r2;
  }
  // surface points: p1 = core point + r1 n, p2 = core point - r2 n
  double p1[3], p2[3];
  sp_madd3(p1, pa, n, r1);
  sp_madd3(p2, pb, n, -r2);
  cset(con, p1, p2, n, depth, FEATURE_SINGLE);
  // face-on-face patch
  coll_contact patch[COLL_MAX_PAIR_CONTACTS];
  int k = contact_patch(g1, g2, n, margin, patch);
  // the patch's deepest point must have the depth found along n: a reference face whose normal
  // is only close to n (an edge or a cylinder rim nearly parallel to a face) would report other
  // depths along another normal; keep the single point then. EPA is exact on polytopes (cores
  // without cylinders): a tight tolerance; on cylinders it stops at a small gap.
  double tol = 1e-10 + (curved ? 1e-4 : 1e-9) * fabs(depth), pmax = -DBL_MAX;
  for (int i = 0; i < k; i++)
    if (patch[i].depth > pmax) pmax = patch[i].depth;
  if (k > 0 && fabs(pmax - depth) > tol) k = 0;
  if (k > 0) {
    memcpy(con, patch, (size_t)k * sizeof(coll_contact));
    return k;
  }
  return 1;
}
