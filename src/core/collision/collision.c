// collision.c — dispatch table, contact patch clipping, hull preparation, candidate pairs and
// the per-step driver (see collision.h for the conventions).
#include "core/collision/collision.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/collision/collision_internal.h"
#include "core/spatial.h"

//---------------------------------- dispatch -------------------------------------------------

const coll_pair_fn coll_pair_table[MODEL_NGEOM_TYPES][MODEL_NGEOM_TYPES] = {
    [MODEL_GEOM_PLANE] = {[MODEL_GEOM_BOX] = coll_plane_box,
                          [MODEL_GEOM_SPHERE] = coll_plane_sphere,
                          [MODEL_GEOM_CYLINDER] = coll_plane_cylinder,
                          [MODEL_GEOM_CAPSULE] = coll_plane_capsule,
                          [MODEL_GEOM_MESH] = coll_plane_mesh,
                          [MODEL_GEOM_ELLIPSOID] = coll_plane_ellipsoid},
    [MODEL_GEOM_HFIELD] = {[MODEL_GEOM_BOX] = coll_hfield_box,
                           [MODEL_GEOM_SPHERE] = coll_hfield_sphere,
                           [MODEL_GEOM_CYLINDER] = coll_hfield_cylinder,
                           [MODEL_GEOM_CAPSULE] = coll_hfield_capsule,
                           [MODEL_GEOM_MESH] = coll_hfield_mesh},
    [MODEL_GEOM_BOX] = {[MODEL_GEOM_BOX] = coll_box_box,
                        [MODEL_GEOM_SPHERE] = coll_box_sphere,
                        [MODEL_GEOM_CYLINDER] = coll_convex,
                        [MODEL_GEOM_CAPSULE] = coll_convex,
                        [MODEL_GEOM_MESH] = coll_convex,
                        [MODEL_GEOM_ELLIPSOID] = coll_convex},
    [MODEL_GEOM_SPHERE] = {[MODEL_GEOM_SPHERE] = coll_sphere_sphere,
                           [MODEL_GEOM_CYLINDER] = coll_convex,
                           [MODEL_GEOM_CAPSULE] = coll_sphere_capsule,
                           [MODEL_GEOM_MESH] = coll_convex,
                           [MODEL_GEOM_ELLIPSOID] = coll_convex},
    [MODEL_GEOM_CYLINDER] = {[MODEL_GEOM_CYLINDER] = coll_convex,
                             [MODEL_GEOM_CAPSULE] = coll_convex,
                             [MODEL_GEOM_MESH] = coll_convex,
                             [MODEL_GEOM_ELLIPSOID] = coll_convex},
    [MODEL_GEOM_CAPSULE] = {[MODEL_GEOM_CAPSULE] = coll_capsule_capsule,
                            [MODEL_GEOM_MESH] = coll_convex,
                            [MODEL_GEOM_ELLIPSOID] = coll_convex},
    [MODEL_GEOM_MESH] = {[MODEL_GEOM_MESH] = coll_convex,
                         [MODEL_GEOM_ELLIPSOID] = coll_convex},
    [MODEL_GEOM_ELLIPSOID] = {[MODEL_GEOM_ELLIPSOID] = coll_convex},
};

int coll_pair_max_contacts(int t1, int t2) {
  if (t1 < 0 || t2 < 0 || t1 >= MODEL_NGEOM_TYPES || t2 >= MODEL_NGEOM_TYPES) return 0;
  if (t1 > t2) { int t = t1; t1 = t2; t2 = t; }
  if (!coll_pair_table[t1][t2]) return 0;
  // an ellipsoid is strictly convex and smooth: one point with anything
  if (t2 == MODEL_GEOM_ELLIPSOID) return 1;
  // plane pairs: per-shape point sets
  if (t1 == MODEL_GEOM_PLANE) {
    if (t2 == MODEL_GEOM_SPHERE) return 1;
    if (t2 == MODEL_GEOM_CAPSULE) return 2;
    return 4;
  }
  if (t1 == MODEL_GEOM_HFIELD) return COLL_HFIELD_MAX;
  // a sphere is never more than one point; a capsule's side is at most a segment
  if (t1 == MODEL_GEOM_SPHERE || t2 == MODEL_GEOM_SPHERE) return 1;
  if (t1 == MODEL_GEOM_CAPSULE || t2 == MODEL_GEOM_CAPSULE) return 2;
  return COLL_MAX_PAIR_CONTACTS;
}

int coll_collide(const coll_geom* g1, const coll_geom* g2, coll_contact* con) {
  if (!g1 || !g2 || g1->type < 0 || g2->type < 0 || g1->type >= MODEL_NGEOM_TYPES ||
      g2->type >= MODEL_NGEOM_TYPES)
    return 0;
  double margin = g1->margin > g2->margin ? g1->margin : g2->margin;
  if (g1->type <= g2->type) {
    coll_pair_fn fn = coll_pair_table[g1->type][g2->type];
    return fn ? fn(g1, g2, margin, con) : 0;
  }
  // reversed order: collide (g2, g1) and turn the normals around (the points stay)
  coll_pair_fn fn = coll_pair_table[g2->type][g1->type];
  int n = fn ? fn(g2, g1, margin, con) : 0;
  for (int i = 0; i < n; i++)
    sp_scale3(con[i].normal, con[i].normal, -1.0);
  return n;
}

//---------------------------------- patch helpers --------------------------------------------

void coll_box_face(const coll_geom* g, int k, int s, double out[12]) {
  double ax[3], u[3], v[3], c[3];
  int i1 = (k + 1) % 3, i2 = (k + 2) % 3;
  sp_axis3(ax, g->mat, k);
  sp_axis3(u, g->mat, i1);
  sp_axis3(v, g->mat, i2);
  sp_scale3(u, u, g->size[i1]);
  sp_scale3(v, v, g->size[i2]);
  sp_madd3(c, g->pos, ax, s * g->size[k]);
  // (axis k, k+1, k+2) is right-handed: (+u+v, -u+v, -u-v, +u-v) turns about +axis k
  static const double su[4] = {1, -1, -1, 1}, sv[4] = {1, 1, -1, -1};
  for (int q = 0; q < 4; q++) {
    int j = s > 0 ? q : 3 - q;
    double p[3];
    sp_madd3(p, c, u, su[j]);
    sp_madd3(out + 3 * q, p, v, sv[j]);
  }
}

int coll_reduce(coll_contact* con, int n, int k) {
  if (n <= k || k <= 0) return n < k ? n : (k > 0 ? k : 0);
  enum { RMAX = 128 };
  if (n > RMAX) n = RMAX;
  unsigned char sel[RMAX] = {0};
  double dmin[RMAX];
  // the deepest first
  int first = 0;
  for (int i = 1; i < n; i++)
    if (con[i].depth > con[first].depth) first = i;
  sel[first] = 1;
  for (int i = 0; i < n; i++) {
    double e[3];
    sp_sub3(e, con[i].pos, con[first].pos);
    dmin[i] = sp_dot3(e, e);
  }
  // farthest-point sampling: each next point is the farthest from the chosen ones
  for (int s = 1; s < k; s++) {
    int best = -1;
    for (int i = 0; i < n; i++)
      if (!sel[i] && (best < 0 || dmin[i] > dmin[best])) best = i;
    if (best < 0) break;
    sel[best] = 1;
    for (int i = 0; i < n; i++) {
      double e[3];
      sp_sub3(e, con[i].pos, con[best].pos);
      double d = sp_dot3(e, e);
      if (d < dmin[i]) dmin[i] = d;
    }
  }
  int m = 0;
  for (int i = 0; i < n; i++)
    if (sel[i]) con[m++] = con[i];
  return m;
}

// a vertex of the polygon being clipped: position, clip tag, id of the edge leaving it
typedef struct {
  double p[3];
  int tag, edge;
} cvert;

#define CLIP_MAX (2 * COLL_MAX_POLY + 8)
// the broad phase's dense pair table up to this many geoms (a 256 KiB table at most)
#define COLL_PAIR_TABLE_MAX 256
// sort_ints: insertion sort up to this many entries
#define COLL_SORT_SMALL 32

// clip tags: an incident vertex k keeps tag k (< 64); a point made by side plane j on the edge
// with id e (incident edge k: e = k; edge along side plane j': e = 64 + j') gets
// 128 + 128 j + e (< 8448)
int coll_clip_patch(const double* ref, int nref, const double m[3], const double* inc, int ninc,
                    double margin, int flip, int fbase, coll_contact* con, int maxcon) {
  if (nref < 3 || ninc < 2) return 0;
  if (nref > COLL_MAX_POLY) nref = COLL_MAX_POLY;
  if (ninc > COLL_MAX_POLY) ninc = COLL_MAX_POLY;
  cvert bufa[CLIP_MAX], bufb[CLIP_MAX];
  cvert *cur = bufa, *nxt = bufb;
  int n = 0;
  if (ninc == 2) {
    // segment: parametric interval [t0, t1] cut by each side plane
    double t0 = 0, t1 = 1, dir[3];
    int tag0 = 0, tag1 = 1;
    sp_sub3(dir, inc + 3, inc);
    for (int j = 0; j < nref; j++) {
      const double *r0 = ref + 3 * j, *r1 = ref + 3 * ((j + 1) % nref);
      double e[3], sn[3], a[3], b[3];
      sp_sub3(e, r1, r0);
      sp_cross3(sn, e, m);
      sp_sub3(a, inc, r0);
      sp_sub3(b, inc + 3, r0);
      double d0 = sp_dot3(sn, a), d1 = sp_dot3(sn, b);
      if (d0 > 0 && d1 > 0) return 0;
      if (d0 > 0) {
        double t = d0 / (d0 - d1);
        if (t > t0) { t0 = t; tag0 = 128 + 128 * j; }
      } else if (d1 > 0) {
        double t = d0 / (d0 - d1);
        if (t < t1) { t1 = t; tag1 = 128 + 128 * j; }
      }
    }
    if (t0 > t1) return 0;
    sp_madd3(cur[0].p, inc, dir, t0);
    cur[0].tag = tag0;
    n = 1;
    if (t1 - t0 > 1e-12) {
      sp_madd3(cur[1].p, inc, dir, t1);
      cur[1].tag = tag1;
      n = 2;
    }
  } else {
    // polygon: Sutherland-Hodgman against each side plane of the reference face
    for (int k = 0; k < ninc; k++) {
      sp_copy3(cur[k].p, inc + 3 * k);
      cur[k].tag = k;
      cur[k].edge = k;
    }
    n = ninc;
    for (int j = 0; j < nref && n > 0; j++) {
      const double *r0 = ref + 3 * j, *r1 = ref + 3 * ((j + 1) % nref);
      double e[3], sn[3];
      sp_sub3(e, r1, r0);
      sp_cross3(sn, e, m);  // outward side normal of a counter-clockwise face
      int nn = 0;
      for (int i = 0; i < n && nn < CLIP_MAX - 1; i++) {
        const cvert *P = &cur[i], *Q = &cur[(i + 1) % n];
        double a[3], b[3];
        sp_sub3(a, P->p, r0);
        sp_sub3(b, Q->p, r0);
        double dp = sp_dot3(sn, a), dq = sp_dot3(sn, b);
        if (dp <= 0) {
          nxt[nn++] = *P;
          if (dq > 0) {
            // leaving: the intersection, then along the side plane
            double t = dp / (dp - dq), pq[3];
            sp_sub3(pq, Q->p, P->p);
            sp_madd3(nxt[nn].p, P->p, pq, t);
            nxt[nn].tag = 128 + 128 * j + P->edge;
            nxt[nn].edge = 64 + j;
            nn++;
          }
        } else if (dq <= 0) {
          // entering: the intersection, then along the original edge
          double t = dp / (dp - dq), pq[3];
          sp_sub3(pq, Q->p, P->p);
          sp_madd3(nxt[nn].p, P->p, pq, t);
          nxt[nn].tag = 128 + 128 * j + P->edge;
          nxt[nn].edge = P->edge;
          nn++;
        }
      }
      cvert* t = cur;
      cur = nxt;
      nxt = t;
      n = nn;
    }
  }
  // contacts: depth below the reference plane, midpoint between the point and its projection
  coll_contact tmp[CLIP_MAX];
  int nc = 0;
  double nrm[3];
  sp_scale3(nrm, m, flip ? -1.0 : 1.0);
  for (int i = 0; i < n; i++) {
    double a[3], pr[3];
    sp_sub3(a, cur[i].p, ref);
    double s = sp_dot3(m, a);
    if (-s < -margin) continue;
    sp_madd3(pr, cur[i].p, m, -s);
    const double* p1 = flip ? cur[i].p : pr;
    const double* p2 = flip ? pr : cur[i].p;
    cset(&tmp[nc++], p1, p2, nrm, -s, fbase * 8448 + cur[i].tag);
  }
  nc = coll_reduce(tmp, nc, maxcon);
  memcpy(con, tmp, (size_t)nc * sizeof(coll_contact));
  return nc;
}

//---------------------------------- hulls ----------------------------------------------------

// ascending order of int pairs (a, b)
static int cmp_pair(const void* x, const void* y) {
  const int *a = (const int*)x, *b = (const int*)y;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] != b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

// ascending order of int triples (a, b, t)
static int cmp_triple(const void* x, const void* y) {
  const int *a = (const int*)x, *b = (const int*)y;
  for (int k = 0; k < 3; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

// union-find root with path halving
static int uf_find(int* p, int i) {
  while (p[i] != i) {
    p[i] = p[p[i]];
    i = p[i];
  }
  return i;
}

// half-edge a -> b in he (triples (a, b, e) sorted ascending), or -1
static int he_find(const int* he, int n, int a, int b) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    const int* x = he + 3 * mid;
    if (x[0] == a && x[1] == b) return x[2];
    if (x[0] < a || (x[0] == a && x[1] < b)) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

void coll_hull_free(coll_hull* h) {
  if (!h) return;
  free(h->buffer);
  memset(h, 0, sizeof *h);
}

// scratch of coll_hull_build (each array sized from the hull's nf triangles)
typedef struct {
  int nv, nf;
  int* tri;      // triangles oriented outward                         (nf x 3)
  double* tn;    // their unit normals                                 (nf x 3)
  int* dir;      // directed neighbour pairs, then the sorted unique ones (12 nf)
  int* und;      // (min, max, triangle) per edge                      (nf x 9)
  int* par;      // union-find                                         (nf)
  int* ord;      // (root, triangle)                                   (nf x 2)
  int* pv;       // polygon vertices (before capping)                  (nf x 3)
  int* ps;       // polygon starts                                     (nf + 1)
  double* pn;    // polygon normals                                    (nf x 3)
  int* bnd;      // boundary edges of one group                        (nf x 6)
  int* he;       // (origin, destination, half-edge)                   (nf x 9)
  int nadj, npoly, npv;
  double c[3];   // centre: vertex mean
} hull_scratch;

static void hull_scratch_free(hull_scratch* w) {
  free(w->tri); free(w->tn); free(w->dir); free(w->und); free(w->par); free(w->ord);
  free(w->pv); free(w->ps); free(w->pn); free(w->bnd); free(w->he);
}

// the scratch arrays; 0 when out of memory
static int hull_scratch_alloc(hull_scratch* w, int nv, int nf) {
  memset(w, 0, sizeof(*w));
  w->nv = nv;
  w->nf = nf;
  w->tri = malloc(sizeof(int) * 3 * (size_t)nf);
  w->tn = malloc(sizeof(double) * 3 * (size_t)nf);
  w->dir = malloc(sizeof(int) * 12 * (size_t)nf);
  w->und = malloc(sizeof(int) * 9 * (size_t)nf);
  w->par = malloc(sizeof(int) * (size_t)nf);
  w->ord = malloc(sizeof(int) * 2 * (size_t)nf);
  w->pv = malloc(sizeof(int) * 3 * (size_t)nf);
  w->ps = malloc(sizeof(int) * ((size_t)nf + 1));
  w->pn = malloc(sizeof(double) * 3 * (size_t)nf);
  w->bnd = malloc(sizeof(int) * 6 * (size_t)nf);
  w->he = malloc(sizeof(int) * 9 * (size_t)nf);
  return w->tri && w->tn && w->dir && w->und && w->par && w->ord && w->pv && w->ps && w->pn &&
         w->bnd && w->he;
}

// centre (vertex mean, inside a convex hull); triangles oriented outward (normal away from the
// centre) and their unit normals
static void hull_orient(const mesh_hull* h, hull_scratch* w) {
  double* c = w->c;
  c[0] = c[1] = c[2] = 0;
  for (int i = 0; i < w->nv; i++)
    sp_add3(c, c, h->vert + 3 * i);
  sp_scale3(c, c, 1.0 / w->nv);
  for (int t = 0; t < w->nf; t++) {
    int a = h->face[3 * t], b = h->face[3 * t + 1], cc = h->face[3 * t + 2];
    double e1[3], e2[3], n[3], ac[3];
    sp_sub3(e1, h->vert + 3 * b, h->vert + 3 * a);
    sp_sub3(e2, h->vert + 3 * cc, h->vert + 3 * a);
    sp_cross3(n, e1, e2);
    sp_sub3(ac, h->vert + 3 * a, c);
    if (sp_dot3(n, ac) < 0) {
      int tmp = b; b = cc; cc = tmp;
      sp_scale3(n, n, -1.0);
    }
    w->tri[3 * t] = a; w->tri[3 * t + 1] = b; w->tri[3 * t + 2] = cc;
    sp_normalize3(n);
    sp_copy3(w->tn + 3 * t, n);
  }
}

// vertex adjacency: the sorted unique directed pairs of both directions of every edge (w->dir,
// w->nadj); the undirected edges with their triangle (w->und)
static void hull_adjacency(hull_scratch* w) {
  int nf = w->nf, *dir = w->dir, *und = w->und;
  for (int t = 0; t < nf; t++)
    for (int k = 0; k < 3; k++) {
      int a = w->tri[3 * t + k], b = w->tri[3 * t + (k + 1) % 3];
      dir[2 * (3 * t + k)] = a;
      dir[2 * (3 * t + k) + 1] = b;
      und[3 * (3 * t + k)] = a < b ? a : b;
      und[3 * (3 * t + k) + 1] = a < b ? b : a;
      und[3 * (3 * t + k) + 2] = t;
    }
  // the reversed copies after the first 3 nf pairs
  int nd = 3 * nf;
  for (int i = 0; i < nd; i++) {
    dir[2 * (nd + i)] = dir[2 * i + 1];
    dir[2 * (nd + i) + 1] = dir[2 * i];
  }
  nd *= 2;
  qsort(dir, (size_t)nd, 2 * sizeof(int), cmp_pair);
  int nadj = 0;
  for (int i = 0; i < nd; i++)
    if (i == 0 || cmp_pair(dir + 2 * i, dir + 2 * (i - 1)) != 0) {
      dir[2 * nadj] = dir[2 * i];
      dir[2 * nadj + 1] = dir[2 * i + 1];
      nadj++;
    }
  w->nadj = nadj;
}

// coplanar neighbouring triangles join one group: w->ord lists (group root, triangle) sorted
static void hull_group(hull_scratch* w) {
  int nf = w->nf, *par = w->par, *und = w->und;
  for (int t = 0; t < nf; t++)
    par[t] = t;
  qsort(und, 3 * (size_t)nf, 3 * sizeof(int), cmp_triple);
  for (int i = 0; i + 1 < 3 * nf; i++) {
    const int *e = und + 3 * i, *f = und + 3 * (i + 1);
    if (e[0] != f[0] || e[1] != f[1]) continue;
    int ta = e[2], tb = f[2];
    if (sp_dot3(w->tn + 3 * ta, w->tn + 3 * tb) > 1 - 1e-9 && sp_norm3(w->tn + 3 * ta) > 0.5) {
      int ra = uf_find(par, ta), rb = uf_find(par, tb);
      if (ra != rb) par[ra < rb ? rb : ra] = ra < rb ? ra : rb;
    }
  }
  for (int t = 0; t < nf; t++) {
    w->ord[2 * t] = uf_find(par, t);
    w->ord[2 * t + 1] = t;
  }
  qsort(w->ord, (size_t)nf, 2 * sizeof(int), cmp_pair);
}

// boundary edges of group ord[g0..g1) (directed edges whose reverse is not in the group) into
// w->bnd; returns their number
static int hull_group_boundary(hull_scratch* w, int g0, int g1) {
  const int *tri = w->tri, *ord = w->ord;
  int nb = 0;
  for (int i = g0; i < g1; i++) {
    int t = ord[2 * i + 1];
    for (int k = 0; k < 3; k++) {
      int a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3], shared = 0;
      for (int j = g0; j < g1 && !shared; j++) {
        int u = ord[2 * j + 1];
        for (int l = 0; l < 3; l++)
          if (tri[3 * u + l] == b && tri[3 * u + (l + 1) % 3] == a) shared = 1;
      }
      if (!shared) {
        w->bnd[2 * nb] = a;
        w->bnd[2 * nb + 1] = b;
        nb++;
      }
    }
  }
  return nb;
}

// group ord[g0..g1) as polygons: its boundary loop chained into one polygon (capped at
// COLL_MAX_POLY evenly spaced vertices, a convex subset), else one polygon per triangle
static void hull_group_polygon(hull_scratch* w, int g0, int g1) {
  int nb = hull_group_boundary(w, g0, g1);
  const int* bnd = w->bnd;
  int *pv = w->pv, start = w->npv;
  // walk the boundary loop
  int cnt = 0, cur = bnd[0], ok = nb >= 3;
  while (ok && cnt < nb) {
    pv[start + cnt] = cur;
    cnt++;
    int nx = -1;
    for (int q = 0; q < nb; q++)
      if (bnd[2 * q] == cur) { nx = bnd[2 * q + 1]; break; }
    if (nx < 0) { ok = 0; break; }
    cur = nx;
    if (cur == bnd[0]) break;
  }
  double n[3] = {0, 0, 0};
  for (int i = g0; i < g1; i++)
    sp_add3(n, n, w->tn + 3 * w->ord[2 * i + 1]);
  sp_normalize3(n);
  if (ok && cnt == nb && cur == bnd[0]) {
    if (cnt > COLL_MAX_POLY) {
      for (int q = 0; q < COLL_MAX_POLY; q++)
        pv[start + q] = pv[start + (int)((long)q * cnt / COLL_MAX_POLY)];
      cnt = COLL_MAX_POLY;
    }
    w->npv = start + cnt;
    sp_copy3(w->pn + 3 * w->npoly, n);
    w->ps[++w->npoly] = w->npv;
    return;
  }
  // not a simple loop (should not happen on a convex hull)
  w->npv = start;
  for (int i = g0; i < g1; i++) {
    int t = w->ord[2 * i + 1];
    for (int k = 0; k < 3; k++)
      pv[w->npv++] = w->tri[3 * t + k];
    sp_copy3(w->pn + 3 * w->npoly, w->tn + 3 * t);
    w->ps[++w->npoly] = w->npv;
  }
}

// the polygons of every group (degenerate triangles' groups left out)
static void hull_polygons(hull_scratch* w) {
  int nf = w->nf;
  w->npoly = w->npv = 0;
  w->ps[0] = 0;
  for (int g0 = 0; g0 < nf;) {
    int g1 = g0;
    while (g1 < nf && w->ord[2 * g1] == w->ord[2 * g0]) g1++;
    // a degenerate triangle's group has no polygon (NaN norms are kept, as they always were)
    if (!(sp_norm3(w->tn + 3 * w->ord[2 * g0 + 1]) < 0.5)) hull_group_polygon(w, g0, g1);
    g0 = g1;
  }
}

// one buffer for out's arrays: doubles first, then ints; 0 when out of memory
static int hull_layout(coll_hull* out, const hull_scratch* w) {
  int nv = w->nv, nf = w->nf, npoly = w->npoly, npv = w->npv, nadj = w->nadj;
  size_t nd_ = 3 * (size_t)nv + 3 * (size_t)npoly + 3 * (size_t)nf;
  size_t ni_ = (size_t)nv + 1 + (size_t)nadj + (size_t)npoly + 1 + (size_t)npv + (size_t)nv + 1 +
               (size_t)npv + 15 * (size_t)nf + (size_t)nadj;
  out->buffer = malloc(nd_ * sizeof(double) + ni_ * sizeof(int));
  if (!out->buffer) return 0;
  out->vert = (double*)out->buffer;
  out->poly_normal = out->vert + 3 * nv;
  out->tri_normal = out->poly_normal + 3 * npoly;
  out->adj_start = (int*)(out->tri_normal + 3 * nf);
  out->adj = out->adj_start + nv + 1;
  out->poly_start = out->adj + nadj;
  out->poly_vert = out->poly_start + npoly + 1;
  out->vpoly_start = out->poly_vert + npv;
  out->vpoly = out->vpoly_start + nv + 1;
  out->tri = out->vpoly + npv;
  out->hedge = out->tri + 3 * nf;
  out->adj_he = out->hedge + 12 * nf;
  out->nvert = nv;
  out->npoly = npoly;
  out->ntri = nf;
  return 1;
}

// triangle normals for plane-mesh's ring walk; a sliver (sine of its angle below 1e-6) gets 0,
// which that walk reads as "may face sideways" (its normal would be rounding noise)
static void hull_tri_normals(coll_hull* out, const mesh_hull* h, const int* tri, int nf) {
  for (int t = 0; t < nf; t++) {
    const int* v = tri + 3 * t;
    double e1[3], e2[3], n[3];
    sp_sub3(e1, h->vert + 3 * v[1], h->vert + 3 * v[0]);
    sp_sub3(e2, h->vert + 3 * v[2], h->vert + 3 * v[0]);
    sp_cross3(n, e1, e2);
    double s = sp_norm3(n);
    if (s > 1e-6 * sp_norm3(e1) * sp_norm3(e2)) sp_scale3(n, n, 1.0 / s);
    else n[0] = n[1] = n[2] = 0;
    sp_copy3(out->tri_normal + 3 * t, n);
  }
}

// vertex adjacency in CSR form from the sorted unique pairs; polygons around each vertex (CSR
// by counting)
static void hull_vertex_csr(coll_hull* out, const hull_scratch* w) {
  int nv = w->nv;
  const int *dir = w->dir, *pv = w->pv, *ps = w->ps;
  for (int i = 0; i <= nv; i++)
    out->adj_start[i] = 0;
  for (int i = 0; i < w->nadj; i++) {
    out->adj_start[dir[2 * i] + 1]++;
    out->adj[i] = dir[2 * i + 1];
  }
  for (int i = 0; i < nv; i++)
    out->adj_start[i + 1] += out->adj_start[i];
  for (int i = 0; i <= nv; i++)
    out->vpoly_start[i] = 0;
  for (int k = 0; k < w->npv; k++)
    out->vpoly_start[pv[k] + 1]++;
  for (int i = 0; i < nv; i++)
    out->vpoly_start[i + 1] += out->vpoly_start[i];
  for (int f = 0; f < w->npoly; f++)
    for (int k = ps[f]; k < ps[f + 1]; k++)
      out->vpoly[out->vpoly_start[pv[k]]++] = f;
  for (int i = nv; i > 0; i--)
    out->vpoly_start[i] = out->vpoly_start[i - 1];
  out->vpoly_start[0] = 0;
}

// half-edges: every directed edge once and its reverse once (a closed 2-manifold), else none
// (plane-mesh then searches the vertex graph instead of walking triangles)
static void hull_half_edges(coll_hull* out, hull_scratch* w) {
  int nf = w->nf, nv = w->nv, *he = w->he;
  const int* tri = w->tri;
  for (int e = 0; e < 3 * nf; e++) {
    he[3 * e] = tri[e];
    he[3 * e + 1] = tri[e - e % 3 + (e % 3 + 1) % 3];
    he[3 * e + 2] = e;
  }
  qsort(he, 3 * (size_t)nf, 3 * sizeof(int), cmp_triple);
  int manifold = 1;
  for (int i = 0; i + 1 < 3 * nf && manifold; i++)
    manifold = he[3 * i] != he[3 * i + 3] || he[3 * i + 1] != he[3 * i + 4];
  for (int i = 0; i < 3 * nf && manifold; i++)
    manifold = he[3 * i] != he[3 * i + 1] && he_find(he, 3 * nf, he[3 * i + 1], he[3 * i]) >= 0;
  for (int e = 0; e < 3 * nf && manifold; e++) {
    int t3 = e - e % 3, a = tri[e], b = tri[t3 + (e % 3 + 1) % 3], o = tri[t3 + (e % 3 + 2) % 3];
    out->hedge[4 * e] = o;
    out->hedge[4 * e + 1] = he_find(he, 3 * nf, o, b);
    out->hedge[4 * e + 2] = he_find(he, 3 * nf, a, o);
    out->hedge[4 * e + 3] = e / 3;
  }
  for (int i = 0; i < nv && manifold; i++)
    for (int k = out->adj_start[i]; k < out->adj_start[i + 1] && manifold; k++) {
      out->adj_he[k] = he_find(he, 3 * nf, i, out->adj[k]);
      manifold = out->adj_he[k] >= 0;
    }
  if (!manifold) out->hedge = out->adj_he = NULL;
}

// extreme vertices along the local axes and the 26 directions of a cube's faces, edges and
// corners; the largest coordinate magnitude
static void hull_extremes(coll_hull* out, const mesh_hull* h) {
  int nv = h->nvert;
  for (int k = 0; k < 6; k++) {
    int best = 0;
    double sg = (k & 1) ? 1.0 : -1.0;
    for (int i = 1; i < nv; i++)
      if (sg * h->vert[3 * i + k / 2] > sg * h->vert[3 * best + k / 2]) best = i;
    out->ext[k] = best;
  }
  for (int q = 0; q < 27; q++) {
    double d[3] = {q / 9 - 1, q / 3 % 3 - 1, q % 3 - 1};
    int best = 0;
    for (int i = 1; i < nv; i++)
      if (sp_dot3(d, h->vert + 3 * i) > sp_dot3(d, h->vert + 3 * best)) best = i;
    out->dir27[q] = best;
  }
  out->vmax = 0;
  for (int i = 0; i < 3 * nv; i++)
    out->vmax = fmax(out->vmax, fabs(h->vert[i]));
}

// the hull's collision structures: outward triangles, coplanar triangles merged into polygons,
// vertex adjacency, half-edges, extreme vertices
csim_status coll_hull_build(const mesh_hull* h, coll_hull* out, csim_error* err) {
  memset(out, 0, sizeof *out);
  if (!h || !h->vert || !h->face || h->nvert < 4 || h->nface < 4)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "mesh",
                   "collision hull needs at least 4 vertices and 4 faces");
  int nv = h->nvert, nf = h->nface;
  for (int i = 0; i < 3 * nf; i++)
    if (h->face[i] < 0 || h->face[i] >= nv)
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "mesh",
                     "hull face %d refers to vertex %d, expected 0..%d", i / 3, h->face[i],
                     nv - 1);
  hull_scratch w;
  csim_status st = CSIM_OK;
  if (!hull_scratch_alloc(&w, nv, nf)) {
    st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, "mesh", "out of memory preparing a hull");
    goto done;
  }
  hull_orient(h, &w);
  hull_adjacency(&w);
  hull_group(&w);
  hull_polygons(&w);
  if (!hull_layout(out, &w)) {
    st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, "mesh", "out of memory preparing a hull");
    goto done;
  }
  memcpy(out->tri, w.tri, sizeof(int) * 3 * (size_t)nf);
  hull_tri_normals(out, h, w.tri, nf);
  memcpy(out->vert, h->vert, sizeof(double) * 3 * (size_t)nv);
  memcpy(out->poly_normal, w.pn, sizeof(double) * 3 * (size_t)w.npoly);
  memcpy(out->poly_start, w.ps, sizeof(int) * ((size_t)w.npoly + 1));
  memcpy(out->poly_vert, w.pv, sizeof(int) * (size_t)w.npv);
  hull_vertex_csr(out, &w);
  hull_half_edges(out, &w);
  hull_extremes(out, h);
  sp_copy3(out->center, w.c);
done:
  hull_scratch_free(&w);
  return st;
}

//---------------------------------- candidate pairs ------------------------------------------

struct coll_model {
  int ngeom;
  int npair;
  int* pair;         // (npair x 2), geom1 has the lower type (then the lower index)
  double* bound;     // per geom: bounding-sphere centre in the geom frame, radius, local
                     // AABB half extents about that centre                        (ngeom x 7)
  int maxcon;        // sum of the pairs' most contacts
  double margin;
  double patch_slope; // patch reduction: tan of the angle tolerance (0: off), most per patch
  int patch_max;
  int nhull;
  coll_hull* hull;   // one per model mesh (nhull)
  coll_hfield hfield;// the model's height field (hfield.nx = 0: none)
  // broad phase (sort and sweep on world AABBs; its scratch is coll_scratch's)
  long* pkey;        // pair p's geoms (lower index i, higher j) as i * ngeom + j, ascending (npair)
  int nsweep;        // non-plane geoms paired with a non-plane geom
  int* order0;       // those geoms in geom order: the sweep order a run starts from (nsweep)
  int nplane;
  int* plane;        // plane geoms (half-spaces: paired with every geom, no AABB) (nplane)
  int* plane_pair;   // pair of plane k and geom g at [k * ngeom + g], -1: none  (nplane x ngeom)
  // pair of geoms a, b at [a * ngeom + b] (both orders), -1: none; only for models of at most
  // COLL_PAIR_TABLE_MAX geoms (else NULL: find_pair's binary search). A robot's adjacent links
  // overlap every step without being a pair (self-collision off): Solo-12's binary searches were
  // 1 % of its step                                                  (ngeom x ngeom)
  int* pair_of;
};

// what coll_detect writes (the run's data, state.h): the broad phase's scratch and the call's
// patch reduction counts
struct coll_scratch {
  int* order;        // non-plane geoms sorted by AABB min x, kept between steps (nsweep)
  double* aabb;      // world AABB per geom: lo x y z, hi x y z                  (ngeom x 6)
  int* found;        // candidate pairs whose AABBs overlap this step             (npair)
  uint64_t* mark;    // one bit per pair, all clear between calls (sort_found)    (npair / 64)
  int* hint;         // per pair: geom2's two hints, -1 none (coll_geom)       (npair x 2)
  int nreduced;      // contacts the patch reduction removed in the last coll_detect call,
  int nreduced_touch;  // and of those the touching ones (depth >= 0)
};

// bounding sphere (centre b[0..2] in the geom frame, radius b[3]) and local box half extents
// b[4..6] about the same centre; planes get an infinite radius
static void geom_bounds(int type, const double* sz, const coll_hull* h, double b[7]) {
  memset(b, 0, 7 * sizeof(double));
  double r = sz[0], hl = sz[1];
  switch (type) {
    case MODEL_GEOM_SPHERE:
      b[3] = r; b[4] = b[5] = b[6] = r;
      break;
    case MODEL_GEOM_BOX:
      b[3] = sqrt(sz[0] * sz[0] + sz[1] * sz[1] + sz[2] * sz[2]);
      b[4] = sz[0]; b[5] = sz[1]; b[6] = sz[2];
      break;
    case MODEL_GEOM_CAPSULE:
      b[3] = r + hl; b[4] = b[5] = r; b[6] = r + hl;
      break;
    case MODEL_GEOM_CYLINDER:
      b[3] = sqrt(r * r + hl * hl); b[4] = b[5] = r; b[6] = hl;
      break;
    case MODEL_GEOM_ELLIPSOID:
      b[3] = fmax(sz[0], fmax(sz[1], sz[2])); b[4] = sz[0]; b[5] = sz[1]; b[6] = sz[2];
      break;
    case MODEL_GEOM_MESH: {
      double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
      for (int i = 0; i < h->nvert; i++)
        for (int k = 0; k < 3; k++) {
          lo[k] = fmin(lo[k], h->vert[3 * i + k]);
          hi[k] = fmax(hi[k], h->vert[3 * i + k]);
        }
      for (int k = 0; k < 3; k++) {
        b[k] = 0.5 * (lo[k] + hi[k]);
        b[4 + k] = 0.5 * (hi[k] - lo[k]);
      }
      double r2 = 0;
      for (int i = 0; i < h->nvert; i++) {
        double e[3];
        sp_sub3(e, h->vert + 3 * i, b);
        r2 = fmax(r2, sp_dot3(e, e));
      }
      b[3] = sqrt(r2);
      break;
    }
    default:
      b[3] = INFINITY;
      break;
  }
}

void coll_free(coll_model* cm) {
  if (!cm) return;
  for (int i = 0; i < cm->nhull; i++)
    coll_hull_free(&cm->hull[i]);
  free(cm->hull);
  free(cm->pair);
  free(cm->bound);
  free(cm->pkey);
  free(cm->order0);
  free(cm->plane);
  free(cm->plane_pair);
  free(cm->pair_of);
  free(cm);
}

static int find_pair(const coll_model* cm, int a, int b);

// cm->pair_of (coll_model): every pair's index at both orders of its geoms; 0 when out of memory
static int pair_table(coll_model* cm, int ngeom) {
  size_t n = (size_t)(ngeom > 0 ? ngeom : 1);
  cm->pair_of = malloc(sizeof(int) * n * n);
  if (!cm->pair_of) return 0;
  for (size_t k = 0; k < n * n; k++) cm->pair_of[k] = -1;
  for (int p = 0; p < cm->npair; p++) {
    int i = cm->pair[2 * p], j = cm->pair[2 * p + 1];
    cm->pair_of[(size_t)i * n + (size_t)j] = cm->pair_of[(size_t)j * n + (size_t)i] = p;
  }
  return 1;
}

static int cmp_long(const void* a, const void* b) {
  long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}

// excluded link pairs as sorted keys min * nlink + max (a binary search per geom pair: the
// pairs of a large robot without self-collision are many); NULL when out of memory
static long* exclude_keys(const sim_model* m, const int* ex, int nex) {
  long* key = malloc(sizeof(long) * (size_t)(nex > 0 ? nex : 1));
  if (!key) return NULL;
  for (int k = 0; k < nex; k++) {
    long a = ex[2 * k], b = ex[2 * k + 1];
    key[k] = a < b ? a * m->nlink + b : b * m->nlink + a;
  }
  qsort(key, (size_t)nex, sizeof(long), cmp_long);
  return key;
}

// whether geoms i and j may touch: not the same body; MuJoCo's contype/conaffinity test; not a
// body and its filter parent of the same robot (the ground and other robots always collide;
// model.h body_filterparent: the parent for URDF, MuJoCo's weld parent for MJCF); not an
// excluded link pair (key: sorted, from exclude_keys)
static int pair_allowed(const sim_model* m, int i, int j, const long* key, int nex) {
  int bi = m->geom_body[i], bj = m->geom_body[j];
  if (bi == bj) return 0;
  if (!(m->geom_contype[i] & m->geom_conaffinity[j]) &&
      !(m->geom_contype[j] & m->geom_conaffinity[i]))
    return 0;
  int li = m->geom_link[i], lj = m->geom_link[j];
  if (li < 0 || lj < 0) return 1;
  if (m->link_robot[li] == m->link_robot[lj] &&
      (m->body_filterparent[bi] == bj || m->body_filterparent[bj] == bi))
    return 0;
  long k = li < lj ? (long)li * m->nlink + lj : (long)lj * m->nlink + li;
  return !bsearch(&k, key, (size_t)nex, sizeof(long), cmp_long);
}

// the candidate pairs of m (pair_allowed, and the explicit pairs whatever it says: MuJoCo's
// predefined pairs, each listed once): counted, then listed in the all-pairs order with their
// most contacts; also allocates the sweep's per-geom lists; 0 when out of memory
static int list_pairs(coll_model* cm, const sim_model* m, const int* ex, int nex) {
  long* key = exclude_keys(m, ex, nex);
  if (!key) return 0;
  for (int pass = 0; pass < 2; pass++) {
    int np = 0, mc = 0;
    for (int i = 0; i < m->ngeom; i++)
      for (int j = i + 1; j < m->ngeom; j++) {
        int a = i, b = j;
        if (m->geom_type[a] > m->geom_type[b]) { a = j; b = i; }
        int mx = coll_pair_max_contacts(m->geom_type[a], m->geom_type[b]);
        long ij = (long)i * m->ngeom + j;
        if (mx == 0 || (!pair_allowed(m, a, b, key, nex) && model_find_pair(m, i, j) < 0))
          continue;
        if (pass == 1) {
          cm->pair[2 * np] = a;
          cm->pair[2 * np + 1] = b;
          cm->pkey[np] = ij;  // ascending: (i, j) run in order
        }
        np++;
        mc += mx;
      }
    if (pass == 1) break;
    cm->npair = np;
    cm->maxcon = mc;
    size_t np1 = (size_t)(np > 0 ? np : 1), ng1 = (size_t)(m->ngeom > 0 ? m->ngeom : 1);
    cm->pair = malloc(sizeof(int) * 2 * np1);
    cm->pkey = malloc(sizeof(long) * np1);
    cm->order0 = malloc(sizeof(int) * ng1);
    cm->plane = malloc(sizeof(int) * ng1);
    if (!cm->pair || !cm->pkey || !cm->order0 || !cm->plane) break;
  }
  free(key);
  return cm->pair && cm->pkey && cm->order0 && cm->plane;
}

static int is_plane(const sim_model* m, int g) {
  return m->geom_type[g] == MODEL_GEOM_PLANE || m->geom_type[g] == MODEL_GEOM_HFIELD;
}

// sw[g] = 1 for each geom g with a candidate pair against a geom that is not a plane (sw: ngeom,
// zeroed)
static void mark_swept(const coll_model* cm, const sim_model* m, unsigned char* sw) {
  for (int p = 0; p < cm->npair; p++) {
    int a = cm->pair[2 * p], b = cm->pair[2 * p + 1];
    if (!is_plane(m, a) && !is_plane(m, b)) sw[a] = sw[b] = 1;
  }
}

csim_status coll_create(const sim_model* m, const int* exclude_pairs, int nexclude,
                        coll_model** out, csim_error* err) {
  *out = NULL;
  if (!m || m->ngeom < 0 || m->nmesh < 0)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "collision", "a valid model is required");
  if (nexclude < 0 || (nexclude > 0 && !exclude_pairs))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "collision",
                   "excluded pairs: expected a list of %d link index pairs", nexclude);
  for (int k = 0; k < 2 * nexclude; k++)
    if (exclude_pairs[k] < 0 || exclude_pairs[k] >= m->nlink)
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "collision",
                     "excluded pair %d names link %d, expected 0..%d", k / 2, exclude_pairs[k],
                     m->nlink - 1);
  // geoms must have known types, bodies and (for meshes) hulls
  for (int i = 0; i < m->ngeom; i++) {
    int t = m->geom_type[i];
    if (t < 0 || t >= MODEL_NGEOM_TYPES || m->geom_body[i] < 0 || m->geom_body[i] >= m->nbody)
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "collision",
                     "geom %d: type %d / body %d out of range", i, t, m->geom_body[i]);
    if (t == MODEL_GEOM_MESH && (m->geom_mesh[i] < 0 || m->geom_mesh[i] >= m->nmesh))
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "collision",
                     "mesh geom %d refers to hull %d, expected 0..%d", i, m->geom_mesh[i],
                     m->nmesh - 1);
  }
  coll_model* cm = calloc(1, sizeof *cm);
  if (!cm) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, "collision", "out of memory");
  cm->ngeom = m->ngeom;
  cm->patch_max = 4;  // patch reduction off (patch_slope 0) until coll_set_patch
  // hulls
  if (m->nmesh > 0) {
    cm->hull = calloc((size_t)m->nmesh, sizeof(coll_hull));
    if (!cm->hull) {
      coll_free(cm);
      return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, "collision", "out of memory");
    }
    for (int k = 0; k < m->nmesh; k++) {
      csim_status st = coll_hull_build(&m->mesh[k], &cm->hull[k], err);
      if (st != CSIM_OK) {
        coll_free(cm);
        return st;
      }
      cm->nhull = k + 1;
    }
  }
  // the height field (the ground): spacing and extreme heights
  for (int i = 0; i < m->ngeom; i++) {
    if (m->geom_type[i] != MODEL_GEOM_HFIELD) continue;
    if (!m->hfield_data || m->hfield_nx < 2 || m->hfield_ny < 2 || cm->hfield.nx) {
      coll_free(cm);
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "collision",
                     "height field geom %d: expected one height field with 2 x 2 vertices or "
                     "more in the model", i);
    }
    coll_hfield* f = &cm->hfield;
    f->nx = m->hfield_nx;
    f->ny = m->hfield_ny;
    f->dx = m->hfield_size[0] / (f->nx - 1);
    f->dy = m->hfield_size[1] / (f->ny - 1);
    f->h = m->hfield_data;
    f->hmin = f->hmax = f->h[0];
    for (long k = 1; k < (long)f->nx * f->ny; k++) {
      f->hmin = fmin(f->hmin, f->h[k]);
      f->hmax = fmax(f->hmax, f->h[k]);
    }
  }
  // tight bounds per geom: a sphere and a box about the shape's own centre (model->geom_rbound
  // is about the geom origin, loose for meshes whose origin is a joint)
  cm->bound = calloc(7 * (size_t)(m->ngeom > 0 ? m->ngeom : 1), sizeof(double));
  if (!cm->bound) {
    coll_free(cm);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, "collision", "out of memory");
  }
  for (int i = 0; i < m->ngeom; i++)
    geom_bounds(m->geom_type[i], m->geom_size + 3 * i,
                m->geom_type[i] == MODEL_GEOM_MESH ? &cm->hull[m->geom_mesh[i]] : NULL,
                cm->bound + 7 * i);
  // candidate pairs: count, then fill
  if (!list_pairs(cm, m, exclude_pairs, nexclude)) {
    coll_free(cm);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, "collision", "out of memory");
  }
  // sweep order starts as the geom order; planes apart, and geoms with no candidate pair but
  // planes' left out: a robot alone with self-collision off (Talos: 52 geoms, none paired with
  // another) swept every pair of its links, 1,039 overlap tests a step, to find none. The pairs
  // found are the same (sort_found orders them), so the contacts are too
  unsigned char* sw = calloc((size_t)(m->ngeom > 0 ? m->ngeom : 1), 1);
  if (!sw) {
    coll_free(cm);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, "collision", "out of memory");
  }
  mark_swept(cm, m, sw);
  for (int i = 0; i < m->ngeom; i++) {
    if (is_plane(m, i))
      cm->plane[cm->nplane++] = i;
    else if (sw[i])
      cm->order0[cm->nsweep++] = i;
  }
  free(sw);
  cm->plane_pair = malloc(sizeof(int) * (size_t)(cm->nplane > 0 ? cm->nplane * m->ngeom : 1));
  if (!cm->plane_pair) {
    coll_free(cm);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, "collision", "out of memory");
  }
  for (int k = 0; k < cm->nplane; k++)
    for (int g = 0; g < m->ngeom; g++)
      cm->plane_pair[k * m->ngeom + g] = g == cm->plane[k] ? -1 : find_pair(cm, cm->plane[k], g);
  if (m->ngeom <= COLL_PAIR_TABLE_MAX && !pair_table(cm, m->ngeom)) {
    coll_free(cm);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, "collision", "out of memory");
  }
  *out = cm;
  return CSIM_OK;
}

void coll_set_margin(coll_model* cm, double margin) {
  if (cm && margin >= 0 && isfinite(margin)) cm->margin = margin;
}

void coll_set_patch(coll_model* cm, double angle, int patch_max) {
  if (!cm || !(angle >= 0) || !(angle < 1.5)) return;
  cm->patch_slope = tan(angle);
  cm->patch_max = patch_max < 1 ? 1 : patch_max > 4 ? 4 : patch_max;
}

// twice the signed area of (a, b, c) seen along n
static double tri_area(const double* a, const double* b, const double* c, const double n[3]) {
  double e1[3], e2[3], x[3];
  sp_sub3(e1, b, a);
  sp_sub3(e2, c, a);
  sp_cross3(x, e1, e2);
  return sp_dot3(x, n);
}

int coll_reduce_patch(coll_contact* con, int n, double slope, int patch_max) {
  if (n <= 1 || !(slope > 0)) return n;
  if (patch_max < 1) patch_max = 1;
  if (patch_max > 4) patch_max = 4;
  // the deepest contact (first on ties: deterministic)
  int d = 0;
  for (int i = 1; i < n; i++)
    if (con[i].depth > con[d].depth) d = i;
  const double* nd = con[d].normal;
  // keep: 1 kept outside the patch, 2 a patch candidate (same normal; touching, or a near
  // contact a rotation about the deepest point by less than the angle closes), 0 drop
  unsigned char keep[COLL_MAX_PAIR_CONTACTS * 2];
  if (n > (int)sizeof keep) return n;
  int ncand = 0;
  for (int i = 0; i < n; i++) {
    if (sp_dot3(con[i].normal, nd) < COLL_PATCH_COS) keep[i] = 1;
    else {
      double e[3];
      sp_sub3(e, con[i].pos, con[d].pos);
      double t = sp_dot3(e, nd), lat2 = sp_dot3(e, e) - t * t;
      double rise = con[d].depth - con[i].depth;  // gap left once the deepest point touches
      keep[i] = (con[i].depth >= 0 || rise <= slope * sqrt(lat2 > 0 ? lat2 : 0)) ? 2 : 0;
      ncand += keep[i] == 2;
    }
  }
  if (ncand > patch_max) {
    // spread selection among the candidates (Bullet's sortCachedPoints idea, MuJoCo's
    // mjc_PlaneConvex): deepest, farthest from it in the plane, largest triangle, most area added
    int sel[4] = {d, -1, -1, -1}, ns = 1;
    const double* p0 = con[d].pos;
    double best = 0;
    for (int i = 0; i < n; i++) {
      if (keep[i] != 2) continue;
      double e[3];
      sp_sub3(e, con[i].pos, p0);
      double t = sp_dot3(e, nd), dd = sp_dot3(e, e) - t * t;
      if (dd > best) best = dd, sel[1] = i;
    }
    double l2 = best, sgn = 1;
    if (patch_max >= 2 && sel[1] >= 0 && l2 > 1e-24) {
      ns = 2;
      best = 0;
      for (int i = 0; i < n; i++) {
        if (keep[i] != 2) continue;
        double a = tri_area(p0, con[sel[1]].pos, con[i].pos, nd);
        if (fabs(a) > best) best = fabs(a), sel[2] = i, sgn = a > 0 ? 1 : -1;
      }
      if (patch_max >= 3 && sel[2] >= 0 && best > 1e-9 * l2) {
        ns = 3;
        const double* tri[3] = {p0, con[sel[1]].pos, con[sel[2]].pos};
        best = 0;
        for (int i = 0; i < n; i++) {
          if (keep[i] != 2) continue;
          double add = 0;
          for (int e = 0; e < 3; e++) {
            double a = -sgn * tri_area(tri[e], tri[(e + 1) % 3], con[i].pos, nd);
            if (a > add) add = a;
          }
          if (add > best) best = add, sel[3] = i;
        }
        if (patch_max >= 4 && sel[3] >= 0 && best > 1e-9 * l2) ns = 4;
      }
    }
    for (int i = 0; i < n; i++)
      if (keep[i] == 2) keep[i] = 0;
    for (int k = 0; k < ns; k++) keep[sel[k]] = 2;
  }
  int m = 0;
  for (int i = 0; i < n; i++)
    if (keep[i]) {  // in place: a contact already where it goes is not copied onto itself
      if (m != i) con[m] = con[i];
      m++;
    }
  return m;
}

int coll_reduced(const coll_scratch* cs, int* touching) {
  if (touching) *touching = cs ? cs->nreduced_touch : 0;
  return cs ? cs->nreduced : 0;
}

csim_status coll_scratch_create(const coll_model* cm, coll_scratch** out, csim_error* err) {
  *out = NULL;
  coll_scratch* cs = calloc(1, sizeof(*cs));
  size_t np1 = (size_t)(cm->npair > 0 ? cm->npair : 1),
         ng1 = (size_t)(cm->ngeom > 0 ? cm->ngeom : 1);
  if (cs) {
    cs->order = malloc(sizeof(int) * ng1);
    cs->aabb = calloc(6 * ng1, sizeof(double));
    cs->found = malloc(sizeof(int) * np1);
    cs->mark = calloc((np1 + 63) / 64, sizeof(uint64_t));
    cs->hint = malloc(2 * sizeof(int) * np1);
  }
  if (!cs || !cs->order || !cs->aabb || !cs->found || !cs->mark || !cs->hint) {
    coll_scratch_free(cs);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, "collision", "out of memory");
  }
  coll_scratch_reset(cm, cs);
  *out = cs;
  return CSIM_OK;
}

void coll_scratch_reset(const coll_model* cm, coll_scratch* cs) {
  memcpy(cs->order, cm->order0, sizeof(int) * (size_t)cm->nsweep);
  memset(cs->aabb, 0, sizeof(double) * 6 * (size_t)(cm->ngeom > 0 ? cm->ngeom : 1));
  cs->nreduced = cs->nreduced_touch = 0;
  for (int p = 0; p < 2 * (cm->npair > 0 ? cm->npair : 1); p++) cs->hint[p] = -1;
}

void coll_scratch_free(coll_scratch* cs) {
  if (!cs) return;
  free(cs->order);
  free(cs->aabb);
  free(cs->found);
  free(cs->mark);
  free(cs->hint);
  free(cs);
}

// contacts with depth >= 0 (touching) among con[0..n)
static int count_touching(const coll_contact* con, int n) {
  int t = 0;
  for (int i = 0; i < n; i++) t += con[i].depth >= 0;
  return t;
}

int coll_npair(const coll_model* cm) {
  return cm ? cm->npair : 0;
}

void coll_pair_geoms(const coll_model* cm, int i, int* geom1, int* geom2) {
  *geom1 = *geom2 = -1;
  if (!cm || i < 0 || i >= cm->npair) return;
  *geom1 = cm->pair[2 * i];
  *geom2 = cm->pair[2 * i + 1];
}

int coll_max_contacts(const coll_model* cm) {
  return cm ? cm->maxcon : 0;
}

//---------------------------------- per-step driver ------------------------------------------

// index of the candidate pair of geoms a != b, or -1 when they never collide
static int find_pair(const coll_model* cm, int a, int b) {
  if (cm->pair_of) return cm->pair_of[(size_t)a * (size_t)cm->ngeom + (size_t)b];
  long key = a < b ? (long)a * cm->ngeom + b : (long)b * cm->ngeom + a;
  int lo = 0, hi = cm->npair - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (cm->pkey[mid] == key) return mid;
    if (cm->pkey[mid] < key) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

// sift-down of a max-heap of ints
static void sift_down(int* a, int root, int n) {
  for (;;) {
    int c = 2 * root + 1;
    if (c >= n) return;
    if (c + 1 < n && a[c + 1] > a[c]) c++;
    if (a[root] >= a[c]) return;
    int t = a[root]; a[root] = a[c]; a[c] = t;
    root = c;
  }
}

// ascending order in place, no allocation: an insertion sort up to COLL_SORT_SMALL entries (a
// few robots' pairs: the heap sort's sifts were 0.7 % of Solo-12's step), else a heap sort,
// O(n log n). The same order either way (ints)
static void sort_ints(int* a, int n) {
  if (n <= COLL_SORT_SMALL) {
    for (int k = 1; k < n; k++) {
      int x = a[k], j = k - 1;
      for (; j >= 0 && a[j] > x; j--) a[j + 1] = a[j];
      a[j + 1] = x;
    }
    return;
  }
  for (int i = n / 2 - 1; i >= 0; i--) sift_down(a, i, n);
  for (int e = n - 1; e > 0; e--) {
    int t = a[0]; a[0] = a[e]; a[e] = t;
    sift_down(a, 0, e);
  }
}

// the nf candidate pairs in cs->found in ascending order: by marking each pair's bit and reading
// the marked ones back in order, O(nf + npair / 64), when that is cheaper than sort_ints'
// O(nf log nf) (humanoid100: 197 of 8,063 pairs; the heap sort was 0.5 % of its step); the
// same order as sort_ints' (the pairs are distinct: each geom pair is met once in the sweep, the
// half-spaces' pairs are not in it; were one met twice, sort_ints orders them as before)
static void sort_found(const coll_model* cm, coll_scratch* cs, int nf) {
  int nw = (cm->npair + 63) / 64, dup = 0, *f = cs->found;
  if (nf <= COLL_SORT_SMALL || nw > 8 * nf) {
    sort_ints(f, nf);
    return;
  }
  for (int k = 0; k < nf; k++) {
    uint64_t b = (uint64_t)1 << (f[k] & 63);
    dup |= (cs->mark[f[k] >> 6] & b) != 0;
    cs->mark[f[k] >> 6] |= b;
  }
  if (dup) {
    for (int k = 0; k < nf; k++) cs->mark[f[k] >> 6] = 0;
    sort_ints(f, nf);
    return;
  }
  int n = 0;
  for (int w = 0; w < nw; w++)
    for (uint64_t x = cs->mark[w]; x; x &= x - 1) f[n++] = 64 * w + __builtin_ctzll(x);
  for (int k = 0; k < nf; k++) cs->mark[f[k] >> 6] = 0;
}

// sort and sweep: the candidate pairs whose world AABBs (grown by the margin) overlap, in
// ascending pair order (the all-pairs order, so contacts come out the same); returns the count.
// Cost O(n + k log k) for k overlapping pairs, plus the insertion sort's moves: few when geoms
// move little between steps (the order is kept), O(n^2) at worst (the first step of a shuffle).
static int broad_phase(const coll_model* cm, coll_scratch* cs, const double* geom_xpos,
                       const double* geom_xmat) {
  // pad beyond the margin: the exact tests in coll_detect decide, this only has to be conservative
  double pad = cm->margin + 1e-9;
  for (int k = 0; k < cm->nsweep; k++) {
    int g = cs->order[k];
    const double *R = geom_xmat + 9 * g, *b = cm->bound + 7 * g;
    double c[3], *box = cs->aabb + 6 * g;
    sp_xform(c, R, geom_xpos + 3 * g, b);
    for (int a = 0; a < 3; a++) {
      double e = fabs(R[3 * a]) * b[4] + fabs(R[3 * a + 1]) * b[5] + fabs(R[3 * a + 2]) * b[6];
      box[a] = c[a] - e - pad;
      box[3 + a] = c[a] + e + pad;
    }
  }
  // insertion sort on (lo x, index), from the previous step's order
  int* ord = cs->order;
  const double* bx = cs->aabb;
  for (int k = 1; k < cm->nsweep; k++) {
    int g = ord[k], j = k - 1;
    double x = bx[6 * g];
    while (j >= 0 && (bx[6 * ord[j]] > x || (bx[6 * ord[j]] == x && ord[j] > g))) {
      ord[j + 1] = ord[j];
      j--;
    }
    ord[j + 1] = g;
  }
  // sweep along x; y and z overlaps checked per pair
  int nf = 0;
  for (int k = 0; k < cm->nsweep; k++) {
    int g = ord[k];
    const double* A = bx + 6 * g;
    for (int l = k + 1; l < cm->nsweep && bx[6 * ord[l]] <= A[3]; l++) {
      const double* B = bx + 6 * ord[l];
      if (B[1] > A[4] || A[1] > B[4] || B[2] > A[5] || A[2] > B[5]) continue;
      int p = find_pair(cm, g, ord[l]);
      if (p >= 0) cs->found[nf++] = p;
    }
  }
  // half-spaces: every geom is a candidate (the height test in coll_detect decides)
  for (int k = 0; k < cm->nplane * cm->ngeom; k++)
    if (cm->plane_pair[k] >= 0) cs->found[nf++] = cm->plane_pair[k];
  sort_found(cm, cs, nf);
  return nf;
}

int coll_detect(const coll_model* cm, coll_scratch* cs, const sim_model* m, const double* geom_xpos,
                const double* geom_xmat, coll_contact* out, int maxcon, int* ncon) {
  int n = 0, dropped = 0;
  double margin = cm->margin;
  cs->nreduced = cs->nreduced_touch = 0;
  int nf = broad_phase(cm, cs, geom_xpos, geom_xmat);
  for (int f = 0; f < nf; f++) {
    int p = cs->found[f];
    int i = cm->pair[2 * p], j = cm->pair[2 * p + 1];
    const double *xi = geom_xpos + 3 * i, *xj = geom_xpos + 3 * j;
    const double *Ri = geom_xmat + 9 * i, *Rj = geom_xmat + 9 * j;
    const double *bi = cm->bound + 7 * i, *bj = cm->bound + 7 * j;
    int ti = m->geom_type[i], tj = m->geom_type[j];
    // bounding sphere of geom2 about its own centre
    double cj[3];
    sp_xform(cj, Rj, xj, bj);
    if (ti == MODEL_GEOM_PLANE) {
      // a plane is a half-space: the sphere's height above it, then the local box's (its half
      // extents along the plane normal; 1e-9 covers the rounding of the box about the shape)
      double h = Ri[2] * (cj[0] - xi[0]) + Ri[5] * (cj[1] - xi[1]) + Ri[8] * (cj[2] - xi[2]);
      if (h - bj[3] > margin) continue;
      for (int k = 0; k < 3; k++)
        h -= fabs(Ri[2] * Rj[k] + Ri[5] * Rj[3 + k] + Ri[8] * Rj[6 + k]) * bj[4 + k];
      if (h - 1e-9 > margin) continue;
    } else if (ti == MODEL_GEOM_HFIELD) {
      // above the highest point of the terrain (the cells touched are culled in the pair call)
      if (cj[2] - bj[3] - xi[2] > fmax(cm->hfield.hmax, 0.0) + margin) continue;
    } else {
      // spheres, then world boxes of the local boxes (|R| times the half extents)
      double ci[3], d[3], r = bi[3] + bj[3] + margin;
      sp_xform(ci, Ri, xi, bi);
      sp_sub3(d, cj, ci);
      if (sp_dot3(d, d) > r * r) continue;
      int sep = 0;
      for (int k = 0; k < 3 && !sep; k++) {
        double ei = fabs(Ri[3 * k]) * bi[4] + fabs(Ri[3 * k + 1]) * bi[5] + fabs(Ri[3 * k + 2]) * bi[6];
        double ej = fabs(Rj[3 * k]) * bj[4] + fabs(Rj[3 * k + 1]) * bj[5] + fabs(Rj[3 * k + 2]) * bj[6];
        sep = fabs(d[k]) > ei + ej + margin;
      }
      if (sep) continue;
    }
    // narrow phase
    coll_geom g1 = {ti, m->geom_size + 3 * i, xi, geom_xmat + 9 * i,
                    ti == MODEL_GEOM_MESH ? &cm->hull[m->geom_mesh[i]] : NULL, margin,
                    ti == MODEL_GEOM_HFIELD ? &cm->hfield : NULL, NULL};
    coll_geom g2 = {tj, m->geom_size + 3 * j, xj, geom_xmat + 9 * j,
                    tj == MODEL_GEOM_MESH ? &cm->hull[m->geom_mesh[j]] : NULL, margin, NULL,
                    tj == MODEL_GEOM_MESH ? cs->hint + 2 * p : NULL};
    coll_contact tmp[COLL_MAX_PAIR_CONTACTS];
    // the pair's contacts straight into out when the most a pair gives fits (no copy)
    coll_contact* pc = n + COLL_MAX_PAIR_CONTACTS <= maxcon ? out + n : tmp;
    int k = coll_pair_table[ti][tj](&g1, &g2, margin, pc);
    if (k > 1 && cm->patch_slope > 0) {  // counted, never hidden (README "Contacts per patch")
      int t0 = count_touching(pc, k);
      int kept = coll_reduce_patch(pc, k, cm->patch_slope, cm->patch_max);
      cs->nreduced += k - kept;
      if (kept < k) cs->nreduced_touch += t0 - count_touching(pc, kept);
      k = kept;
    }
    for (int c = 0; c < k; c++) {
      if (n >= maxcon) {
        dropped++;
        continue;
      }
      if (pc == tmp) out[n] = tmp[c];
      out[n].geom1 = i;
      out[n].geom2 = j;
      n++;
    }
  }
  *ncon = n;
  return dropped;
}
