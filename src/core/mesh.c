// mesh.c — 3-D convex hull of a point cloud (see mesh.h; STL files are read by io/mesh_io.c).
//
// Hull: Quickhull (Barber, Dobkin, Huhdanpaa, "The Quickhull algorithm for convex hulls",
// ACM TOMS 22(4), 1996) on a triangle mesh with face adjacency. Robustness: the points are first
// snapped to an integer grid of 2^HULL_BITS steps over the cloud's largest extent (the tolerance:
// extent * 2^-40 ~ 1e-12 relative; points that snap together are merged), and every
// above/below-plane test is then an exact 128-bit integer determinant, so the visible region of
// each new point is exactly a disc, no face is ever degenerate or flipped, and the result is
// exactly convex on the grid. Points within HULL_OUT_REL * extent above a face are not added
// (coplanar up to rounding). Sliver triangles (a vertex within HULL_SLIVER_REL * extent of the
// opposite edge, whose planes rounding makes meaningless) are removed by dropping that vertex
// and rebuilding from the remaining hull vertices. (A double-precision thick-plane variant
// without facet merging was tried first and produced non-convex hulls on noisy near-coplanar
// clouds.) Coplanar points are not hull vertices. The output vertices are the grid points
// (within 2^-41 of the extent from the input points; usually exactly them for STL floats).
#include "core/mesh.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"

// grid resolution of the exact predicates: coordinates snap to a power-of-two step of about
// 2^-HULL_BITS times the extent (40 keeps every determinant below 2^127)
#define HULL_BITS 40

//---------------------------------- convex hull ----------------------------------------------

// 128-bit integers for exact orientation tests (a GCC/Clang extension)
__extension__ typedef __int128 i128;

// one hull triangle: edge e runs v[e] -> v[(e+1)%3]; nb[e] is the face across it
typedef struct {
  i128 n[3];         // integer normal (b - a) x (c - a) of the snapped vertices, outward
  i128 d;            // n . a: point q is strictly outside when n . q - d > 0
  double inv_norm;   // 1 / |n| (for ranking outside points by distance)
  int v[3];
  int nb[3];
  int head;          // first point of the outside set (-1: empty)
  int far;           // farthest outside point
  double fardist;
  int alive;
  int mark;          // visit stamp
} hface;

// hull builder work space
typedef struct {
  const int64_t* q;  // (np x 3) snapped unique points, coordinates in [0, 2^HULL_BITS]
  int np;
  double tol;        // a point joins an outside set when farther than this above the face
                     // (grid units); visibility tests stay exact
  int* next;         // (np) outside-set links
  hface* f;
  int nf, capf;
  int* freef;        // free face slots
  int nfree, capfree;
  int* vmap;         // (np) horizon map, -1 when unused
  int* vis;          // visible faces of the current eye
  int nvis, capvis;
  int* hor;          // horizon edges (face*3 + edge)
  int nhor, caphor;
  int* ord;          // ordered horizon
  int capord;
  int* newf;         // new faces of the current eye
  int capnew;
  int* pend;         // stack of faces that may have outside points
  int npend, cappend;
  int stamp;
  int nskip;         // eye points dropped because of a non-simple horizon (never, in exact
                     // arithmetic; kept as a guard)
} hull_ws;

// ensure capacity of an int array
static int grow_int(int** a, int* cap, int need) {
  if (need <= *cap) return 1;
  int nc = *cap ? *cap : 64;
  while (nc < need) nc *= 2;
  int* na = realloc(*a, (size_t)nc * sizeof(int));
  if (!na) return 0;
  *a = na;
  *cap = nc;
  return 1;
}

// exact signed volume test of point i against face f: > 0 strictly outside
static i128 fside(const hull_ws* w, const hface* f, int i) {
  const int64_t* x = w->q + 3 * i;
  return f->n[0] * x[0] + f->n[1] * x[1] + f->n[2] * x[2] - f->d;
}

// exact cross product (b - a) x (c - a) of snapped points
static void icross(const hull_ws* w, int a, int b, int c, i128 n[3]) {
  const int64_t *pa = w->q + 3 * a, *pb = w->q + 3 * b, *pc = w->q + 3 * c;
  i128 u[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
  i128 v[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
  n[0] = u[1] * v[2] - u[2] * v[1];
  n[1] = u[2] * v[0] - u[0] * v[2];
  n[2] = u[0] * v[1] - u[1] * v[0];
}

// new face (a, b, c) with its plane; returns its index, -1 when out of memory
static int face_new(hull_ws* w, int a, int b, int c) {
  int id;
  if (w->nfree > 0) {
    id = w->freef[--w->nfree];
  } else {
    if (w->nf == w->capf) {
      int nc = w->capf ? 2 * w->capf : 64;
      hface* nfc = realloc(w->f, (size_t)nc * sizeof(hface));
      if (!nfc) return -1;
      w->f = nfc;
      w->capf = nc;
    }
    id = w->nf++;
    w->f[id].mark = 0;
  }
  hface* f = &w->f[id];
  f->v[0] = a;
  f->v[1] = b;
  f->v[2] = c;
  f->nb[0] = f->nb[1] = f->nb[2] = -1;
  f->head = -1;
  f->far = -1;
  f->fardist = 0;
  f->alive = 1;
  icross(w, a, b, c, f->n);
  const int64_t* pa = w->q + 3 * a;
  f->d = f->n[0] * pa[0] + f->n[1] * pa[1] + f->n[2] * pa[2];
  double n0 = (double)f->n[0], n1 = (double)f->n[1], n2 = (double)f->n[2];
  double len = sqrt(n0 * n0 + n1 * n1 + n2 * n2);
  f->inv_norm = len > 0 ? 1.0 / len : 0;
  return id;
}

// squared distance of point i from the centroid of face f (grid units), to break ties
static double spread(const hull_ws* w, const hface* f, int i) {
  double d2 = 0;
  for (int k = 0; k < 3; k++) {
    double c = ((double)w->q[3 * f->v[0] + k] + (double)w->q[3 * f->v[1] + k] +
                (double)w->q[3 * f->v[2] + k]) / 3.0;
    double t = (double)w->q[3 * i + k] - c;
    d2 += t * t;
  }
  return d2;
}

// does point i (dist above face f) beat the face's current farthest point? Distances within
// tol tie, and the tie goes to the point farther from the face centroid: that maximises a
// strictly convex function over the top layer, so the eye is an extreme point, never a point in
// the middle of a flat region or an edge (lattices, tessellated CAD faces)
static int better_far(const hull_ws* w, const hface* f, int i, double dist) {
  if (f->far < 0 || dist > f->fardist + w->tol) return 1;
  if (dist < f->fardist - w->tol) return 0;
  return spread(w, f, i) > spread(w, f, f->far);
}

// put point i in face id's outside set (dist = its distance above the face, for ranking)
static void face_add_point(hull_ws* w, int id, int i, double dist) {
  hface* f = &w->f[id];
  w->next[i] = f->head;
  f->head = i;
  if (better_far(w, f, i, dist)) {
    f->far = i;
    f->fardist = dist;
  }
}

// push a face on the pending stack
static int pend_push(hull_ws* w, int id) {
  if (!grow_int(&w->pend, &w->cappend, w->npend + 1)) return 0;
  w->pend[w->npend++] = id;
  return 1;
}

// index of edge (b -> a) in face g, i.e. the twin of edge a -> b; -1 when absent
static int twin_edge(const hface* g, int a, int b) {
  for (int e = 0; e < 3; e++)
    if (g->v[e] == b && g->v[(e + 1) % 3] == a) return e;
  return -1;
}

// a snapped point and the input point it came from (for sorting)
typedef struct {
  int64_t q[3];
  int src;
} snap_pt;

// lexicographic order of snapped points, then input order (the first input point represents)
static int cmp_snap(const void* a, const void* b) {
  const snap_pt* x = a;
  const snap_pt* y = b;
  for (int k = 0; k < 3; k++)
    if (x->q[k] != y->q[k]) return x->q[k] < y->q[k] ? -1 : 1;
  return (x->src > y->src) - (x->src < y->src);
}

// free the builder's work arrays
static void ws_free(hull_ws* w) {
  free(w->next);
  free(w->f);
  free(w->freef);
  free(w->vmap);
  free(w->vis);
  free(w->hor);
  free(w->ord);
  free(w->newf);
  free(w->pend);
}

// remove eye point e from face id's outside set and recompute its farthest point
static void face_remove_point(hull_ws* w, int id, int e) {
  hface* f = &w->f[id];
  int prev = -1;
  for (int i = f->head; i >= 0; prev = i, i = w->next[i]) {
    if (i != e) continue;
    if (prev < 0) f->head = w->next[i];
    else w->next[prev] = w->next[i];
    break;
  }
  f->far = -1;
  f->fardist = 0;
  for (int i = f->head; i >= 0; i = w->next[i]) {
    double d = (double)fside(w, f, i) * f->inv_norm;
    if (better_far(w, f, i, d)) {
      f->far = i;
      f->fardist = d;
    }
  }
}

// the faces that see the eye strictly (exact test), walked from f0 over neighbours, into w->vis;
// the edges between them and the faces that do not, into w->hor; 0 when out of memory
static int step_visible(hull_ws* w, int f0, int eye) {
  const int vis_st = (w->stamp += 2), novis_st = vis_st + 1;
  w->nvis = 0;
  w->nhor = 0;
  if (!grow_int(&w->vis, &w->capvis, 1)) return 0;
  w->vis[w->nvis++] = f0;
  w->f[f0].mark = vis_st;
  for (int k = 0; k < w->nvis; k++) {
    int fi = w->vis[k];
    for (int e = 0; e < 3; e++) {
      int g = w->f[fi].nb[e];
      if (w->f[g].mark == vis_st) continue;
      if (w->f[g].mark != novis_st) {
        if (fside(w, &w->f[g], eye) > 0) {
          w->f[g].mark = vis_st;
          if (!grow_int(&w->vis, &w->capvis, w->nvis + 1)) return 0;
          w->vis[w->nvis++] = g;
          continue;
        }
        w->f[g].mark = novis_st;
      }
      if (!grow_int(&w->hor, &w->caphor, w->nhor + 1)) return 0;
      w->hor[w->nhor++] = fi * 3 + e;
    }
  }
  return 1;
}

// order the horizon into one loop (w->ord; vmap[start vertex] = horizon edge, reset after);
// 1 when it is one simple loop, 0 when not, -1 when out of memory
static int step_horizon_loop(hull_ws* w) {
  int ok = w->nhor >= 3;
  int nset = 0;
  for (int h = 0; h < w->nhor && ok; h++) {
    int a = w->f[w->hor[h] / 3].v[w->hor[h] % 3];
    if (w->vmap[a] >= 0) {
      ok = 0;
    } else {
      w->vmap[a] = h;
      nset++;
    }
  }
  int oom = 0;
  if (ok) {
    oom = !grow_int(&w->ord, &w->capord, w->nhor) || !grow_int(&w->newf, &w->capnew, w->nhor);
    int cur = 0;
    for (int k = 0; k < w->nhor && ok && !oom; k++) {
      if (k > 0 && cur == 0) ok = 0;
      w->ord[k] = cur;
      const hface* f = &w->f[w->hor[cur] / 3];
      int b = f->v[(w->hor[cur] % 3 + 1) % 3];
      cur = w->vmap[b];
      if (cur < 0) ok = 0;
    }
    if (ok && cur != 0) ok = 0;
  }
  for (int h = 0; h < w->nhor && nset > 0; h++) {
    int a = w->f[w->hor[h] / 3].v[w->hor[h] % 3];
    if (w->vmap[a] == h) {
      w->vmap[a] = -1;
      nset--;
    }
  }
  return oom ? -1 : ok;
}

// new faces (a, b, eye) along the ordered horizon, with their adjacency; 0 when out of memory
static int step_new_faces(hull_ws* w, int eye) {
  int nh = w->nhor;
  for (int k = 0; k < nh; k++) {
    int he = w->hor[w->ord[k]];
    const hface* f = &w->f[he / 3];
    int a = f->v[he % 3], b = f->v[(he % 3 + 1) % 3];
    int id = face_new(w, a, b, eye);
    if (id < 0) return 0;
    w->newf[k] = id;
  }
  for (int k = 0; k < nh; k++) {
    int he = w->hor[w->ord[k]];
    int g = w->f[he / 3].nb[he % 3];  // the non-visible face across the horizon edge
    int id = w->newf[k];
    hface* nf = &w->f[id];
    nf->nb[0] = g;
    nf->nb[1] = w->newf[(k + 1) % nh];
    nf->nb[2] = w->newf[(k + nh - 1) % nh];
    int eg = twin_edge(&w->f[g], nf->v[0], nf->v[1]);
    if (eg >= 0) w->f[g].nb[eg] = id;
  }
  return 1;
}

// the outside points of the visible faces (the eye aside) to the new face they are farthest above
static void step_reassign(hull_ws* w, int eye) {
  int nh = w->nhor;
  for (int k = 0; k < w->nvis; k++) {
    hface* vf = &w->f[w->vis[k]];
    int i = vf->head;
    while (i >= 0) {
      int nx = w->next[i];
      if (i != eye) {
        int best = -1;
        double bd = 0;
        for (int j = 0; j < nh; j++) {
          const hface* nf = &w->f[w->newf[j]];
          i128 s = fside(w, nf, i);
          if (s <= 0) continue;
          double d = (double)s * nf->inv_norm;
          if (d > w->tol && (best < 0 || d > bd)) {
            bd = d;
            best = w->newf[j];
          }
        }
        if (best >= 0) face_add_point(w, best, i, bd);
      }
      i = nx;
    }
    vf->head = -1;
  }
}

// add the eye point of face f0 to the hull (one Quickhull iteration); returns 0 when out of memory
static int hull_step(hull_ws* w, int f0) {
  int eye = w->f[f0].far;
  if (!step_visible(w, f0, eye)) return 0;
  int loop = step_horizon_loop(w);
  if (loop < 0) return 0;
  if (!loop) {
    // guard (cannot happen with exact tests): drop the eye, keep the face pending if needed
    w->nskip++;
    for (int k = 0; k < w->nvis; k++) w->f[w->vis[k]].mark = 0;
    face_remove_point(w, f0, eye);
    if (w->f[f0].head >= 0 && !pend_push(w, f0)) return 0;
    return 1;
  }
  if (!step_new_faces(w, eye)) return 0;
  step_reassign(w, eye);
  // retire the visible faces; queue new faces with outside points
  for (int k = 0; k < w->nvis; k++) {
    hface* vf = &w->f[w->vis[k]];
    vf->alive = 0;
    vf->mark = 0;
    if (!grow_int(&w->freef, &w->capfree, w->nfree + 1)) return 0;
    w->freef[w->nfree++] = w->vis[k];
  }
  for (int k = 0; k < w->nhor; k++)
    if (w->f[w->newf[k]].head >= 0 && !pend_push(w, w->newf[k])) return 0;
  return 1;
}

// the farthest pair among the axis extremes into i0, i1, their distance into *len
static void init_pair(const hull_ws* w, int* i0, int* i1, double* len) {
  const int64_t* q = w->q;
  int ext[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 1; i < w->np; i++)
    for (int k = 0; k < 3; k++) {
      if (q[3 * i + k] < q[3 * ext[2 * k] + k]) ext[2 * k] = i;
      if (q[3 * i + k] > q[3 * ext[2 * k + 1] + k]) ext[2 * k + 1] = i;
    }
  *i0 = *i1 = 0;
  double best = -1;
  for (int a = 0; a < 6; a++)
    for (int b = a + 1; b < 6; b++) {
      double d2 = 0;
      for (int k = 0; k < 3; k++) {
        double t = (double)(q[3 * ext[a] + k] - q[3 * ext[b] + k]);
        d2 += t * t;
      }
      if (d2 > best) {
        best = d2;
        *i0 = ext[a];
        *i1 = ext[b];
      }
    }
  *len = sqrt(best);
}

// the point farthest from the line i0 i1 of length len01 (ties: the one farthest from the pair's
// midpoint), -1 when all are on it; its distance into *dist
static int init_third(const hull_ws* w, int i0, int i1, double len01, double* dist) {
  const int64_t* q = w->q;
  double mid[3], spr = 0;
  *dist = 0;
  for (int k = 0; k < 3; k++) mid[k] = 0.5 * ((double)q[3 * i0 + k] + (double)q[3 * i1 + k]);
  int i2 = -1;
  for (int i = 0; i < w->np; i++) {
    i128 n[3];
    icross(w, i0, i1, i, n);
    double d = sqrt((double)n[0] * (double)n[0] + (double)n[1] * (double)n[1] +
                    (double)n[2] * (double)n[2]) / len01;
    if (d == 0) continue;  // exactly on the line
    double sp2 = 0;
    for (int k = 0; k < 3; k++) sp2 += pow((double)q[3 * i + k] - mid[k], 2);
    if (i2 < 0 || d > *dist + w->tol || (d >= *dist - w->tol && sp2 > spr)) {
      i2 = i;
      *dist = fmax(*dist, d);
      spr = sp2;
    }
  }
  return i2;
}

// the point farthest from the plane i0 i1 i2 (exact orientation; ties: farthest from the
// centroid), -1 when all are on it; its distance into *dist, whether it is above into *above
static int init_fourth(const hull_ws* w, int i0, int i1, int i2, double* dist, int* above) {
  const int64_t* q = w->q;
  i128 n[3];
  icross(w, i0, i1, i2, n);
  double nlen = sqrt((double)n[0] * (double)n[0] + (double)n[1] * (double)n[1] +
                     (double)n[2] * (double)n[2]);
  const int64_t* a0 = q + 3 * i0;
  i128 d0 = n[0] * a0[0] + n[1] * a0[1] + n[2] * a0[2];
  double cen[3];
  for (int k = 0; k < 3; k++)
    cen[k] = ((double)q[3 * i0 + k] + (double)q[3 * i1 + k] + (double)q[3 * i2 + k]) / 3.0;
  int i3 = -1;
  double spr = 0;
  *above = 0;
  *dist = 0;
  for (int i = 0; i < w->np; i++) {
    i128 sv = n[0] * q[3 * i] + n[1] * q[3 * i + 1] + n[2] * q[3 * i + 2] - d0;
    if (sv == 0) continue;
    double d = fabs((double)sv) / nlen;
    double sp2 = 0;
    for (int k = 0; k < 3; k++) sp2 += pow((double)q[3 * i + k] - cen[k], 2);
    if (i3 < 0 || d > *dist + w->tol || (d >= *dist - w->tol && sp2 > spr)) {
      i3 = i;
      *dist = fmax(*dist, d);
      spr = sp2;
      *above = sv > 0;
    }
  }
  return i3;
}

// the tetrahedron's faces tf (v[4]: a b c d with d above plane (a, b, c), outward: acb, abd,
// bcd, cad) with their adjacency, and the outside sets: each point to the face it is farthest
// above; 0 when out of memory
static int init_tetrahedron(hull_ws* w, const int v[4], int tf[4]) {
  int a = v[0], b = v[1], c = v[2], d = v[3];
  int tv[4][3] = {{a, c, b}, {a, b, d}, {b, c, d}, {c, a, d}};
  for (int k = 0; k < 4; k++) {
    tf[k] = face_new(w, tv[k][0], tv[k][1], tv[k][2]);
    if (tf[k] < 0) return 0;
  }
  // adjacency by matching twin edges
  for (int k = 0; k < 4; k++)
    for (int e = 0; e < 3; e++)
      for (int j = 0; j < 4; j++) {
        hface* fk = &w->f[tf[k]];
        if (j != k && twin_edge(&w->f[tf[j]], fk->v[e], fk->v[(e + 1) % 3]) >= 0)
          fk->nb[e] = tf[j];
      }
  for (int i = 0; i < w->np; i++) {
    if (i == a || i == b || i == c || i == d) continue;
    int bf = -1;
    double bd = 0;
    for (int k = 0; k < 4; k++) {
      const hface* f = &w->f[tf[k]];
      i128 s = fside(w, f, i);
      if (s <= 0) continue;
      double dd = (double)s * f->inv_norm;
      if (dd > w->tol && (bf < 0 || dd > bd)) {
        bd = dd;
        bf = tf[k];
      }
    }
    if (bf >= 0) face_add_point(w, bf, i, bd);
  }
  return 1;
}

// initial tetrahedron and outside sets; returns CSIM_OK, or an error for degenerate clouds
// (all points within tol of one point, of a line or of a plane)
static csim_status hull_init(hull_ws* w, csim_error* err) {
  int np = w->np, i0, i1, above;
  double len01, dist;
  init_pair(w, &i0, &i1, &len01);
  if (i0 == i1 || len01 <= w->tol)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                   "degenerate point cloud: all points coincide: no 3-D hull");
  int i2 = init_third(w, i0, i1, len01, &dist);
  if (i2 < 0 || dist <= w->tol)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                   "degenerate point cloud: all %d distinct points are collinear: no 3-D hull",
                   np);
  int i3 = init_fourth(w, i0, i1, i2, &dist, &above);
  if (i3 < 0 || dist <= w->tol)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                   "degenerate point cloud: all %d distinct points are coplanar (flat mesh): "
                   "no 3-D hull", np);
  // d below the plane (a, b, c): swap b and c
  int v[4] = {i0, above ? i1 : i2, above ? i2 : i1, i3}, tf[4];
  if (!init_tetrahedron(w, v, tf))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "out of memory");
  for (int k = 0; k < 4; k++)
    if (!pend_push(w, tf[k]))
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "out of memory");
  return CSIM_OK;
}

// hull of the snapped points: faces in *fv (nface x 3 indices into the snapped points)
static csim_status hull_run(hull_ws* w, csim_error* err) {
  csim_status st = hull_init(w, err);
  if (st) return st;
  // Quickhull iterations: add the farthest outside point of a pending face
  while (w->npend > 0) {
    int fi = w->pend[--w->npend];
    if (!w->f[fi].alive || w->f[fi].head < 0) continue;
    if (!hull_step(w, fi)) return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "out of memory");
  }
  return CSIM_OK;
}

// points closer than this (relative to the extent) above a face are not added to the hull: it
// absorbs the snapping (<= 2^-41 of the extent per coordinate) so that points coplanar with a
// face up to rounding do not become vertices
#define HULL_OUT_REL 1e-10

// grid height below which a hull triangle counts as a sliver: its vertex opposite the longest
// edge is that close to the edge, and is dropped (relative to the extent; see mesh_hull_points)
#define HULL_SLIVER_REL 1e-8

// hull of q (np snapped points): on success *fv (nface x 3, indices into q) is caller-freed
//   tol: outside/degeneracy tolerance in grid units
static csim_status hull_build(const int64_t* q, int np, double tol, int** fv, int* nface,
                              csim_error* err) {
  *fv = NULL;
  *nface = 0;
  hull_ws w = {.q = q, .np = np, .tol = tol};
  w.next = malloc((size_t)np * sizeof(int));
  w.vmap = malloc((size_t)np * sizeof(int));
  csim_status st = CSIM_OK;
  if (!w.next || !w.vmap) {
    st = err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "out of memory");
    goto done;
  }
  for (int i = 0; i < np; i++) w.vmap[i] = -1;
  if ((st = hull_run(&w, err))) goto done;
  int nf = 0;
  for (int k = 0; k < w.nf; k++) nf += w.f[k].alive;
  *fv = malloc((size_t)(nf > 0 ? nf : 1) * 3 * sizeof(int));
  if (!*fv) {
    st = err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "out of memory");
    goto done;
  }
  int m = 0;
  for (int k = 0; k < w.nf; k++)
    if (w.f[k].alive) memcpy(*fv + 3 * m++, w.f[k].v, 3 * sizeof(int));
  *nface = nf;
done:
  ws_free(&w);
  return st;
}

// mark the sliver vertices of a hull (the vertex opposite the longest edge of each triangle
// whose height is below hmin grid units: drop = 1) and the edge ends that must stay this round
// (drop = 2); returns how many were marked for dropping
static int mark_slivers(const int64_t* q, const int* fv, int nface, double hmin, char* drop) {
  int nd = 0;
  for (int t = 0; t < nface; t++) {
    const int* v = fv + 3 * t;
    // longest edge (exact squared lengths fit in double exactly enough for a comparison)
    double l2[3];
    for (int e = 0; e < 3; e++) {
      const int64_t *a = q + 3 * v[e], *b = q + 3 * v[(e + 1) % 3];
      l2[e] = 0;
      for (int k = 0; k < 3; k++) {
        double d = (double)(b[k] - a[k]);
        l2[e] += d * d;
      }
    }
    int e = l2[0] >= l2[1] ? (l2[0] >= l2[2] ? 0 : 2) : (l2[1] >= l2[2] ? 1 : 2);
    // height = |(b - a) x (c - a)| / |longest edge|, from the exact cross product
    const int64_t *a = q + 3 * v[0], *b = q + 3 * v[1], *c = q + 3 * v[2];
    i128 u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    i128 s[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n0 = (double)(u[1] * s[2] - u[2] * s[1]), n1 = (double)(u[2] * s[0] - u[0] * s[2]),
           n2 = (double)(u[0] * s[1] - u[1] * s[0]);
    double h = sqrt(n0 * n0 + n1 * n1 + n2 * n2) / sqrt(l2[e]);
    int opp = v[(e + 2) % 3], a0 = v[e], b0 = v[(e + 1) % 3];
    // drop opp only if the edge it is close to stays (never both ends of a short edge at once)
    if (h < hmin && drop[opp] == 0 && drop[a0] != 1 && drop[b0] != 1) {
      drop[opp] = 1;
      drop[a0] = drop[b0] = 2;
      nd++;
    }
  }
  return nd;
}

// check the cloud (at least 4 finite points, not all coincident, not too large); its bounding
// box into lo, hi and its largest extent into *range
static csim_status cloud_extent(const double* pts, int n, double lo[3], double hi[3],
                                double* range, csim_error* err) {
  if (n < 4)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                   "convex hull needs at least 4 points, got %d", n);
  for (int i = 0; i < 3 * n; i++)
    if (!isfinite(pts[i]))
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                     "convex hull: point %d has a non-finite coordinate", i / 3);
  double maxabs = 0;
  for (int k = 0; k < 3; k++) lo[k] = hi[k] = pts[k];
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], pts[3 * i + k]);
      hi[k] = fmax(hi[k], pts[3 * i + k]);
      maxabs = fmax(maxabs, fabs(pts[3 * i + k]));
    }
  *range = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  if (!(*range > 0))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                   "degenerate point cloud: all %d points coincide: no 3-D hull", n);
  if (!isfinite(*range) || maxabs > 1e300)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "convex hull: point cloud too large");
  return CSIM_OK;
}

// the hull of the snapped points q (np, compacted in place with sp); while some triangles are
// slivers (a vertex within HULL_SLIVER_REL * extent of the opposite edge: numerically useless
// face planes), drop those vertices and rebuild from the remaining hull vertices (each round
// removes vertices, so this ends); map and drop are np-sized scratch
static csim_status hull_rounds(int64_t* q, snap_pt* sp, int* np, double tol, double hmin,
                               int* map, char* drop, int** fv, int* nface, csim_error* err) {
  for (int round = 0;; round++) {
    csim_status st = hull_build(q, *np, tol, fv, nface, err);
    if (st) return st;
    memset(drop, 0, (size_t)*np);
    int nd = round < 32 ? mark_slivers(q, *fv, *nface, hmin, drop) : 0;
    if (nd == 0) return CSIM_OK;
    // keep the hull vertices that are not dropped (compacting q and sp alike)
    for (int i = 0; i < *np; i++) map[i] = 0;
    for (int t = 0; t < 3 * *nface; t++) map[(*fv)[t]] = 1;
    int m = 0;
    for (int i = 0; i < *np; i++)
      if (map[i] && drop[i] != 1) {
        memmove(q + 3 * m, q + 3 * i, 3 * sizeof(int64_t));
        sp[m] = sp[i];
        m++;
      }
    *np = m;
    free(*fv);
    *fv = NULL;
  }
}

// the hull's vertices (re-indexed in first-use order, at their grid positions c + q step: exact
// doubles) and faces; map is np-sized scratch
static csim_status hull_output(mesh_hull* hull, const int64_t* q, int np, const int* fv,
                               int nface, int* map, const double c[3], double step,
                               csim_error* err) {
  int nvert = 0;
  for (int i = 0; i < np; i++) map[i] = -1;
  for (int t = 0; t < 3 * nface; t++)
    if (map[fv[t]] < 0) map[fv[t]] = nvert++;
  // a closed triangulated sphere has F = 2V - 4 (Euler)
  if (nface != 2 * nvert - 4)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                   "convex hull failed: %d faces and %d vertices do not form a closed surface",
                   nface, nvert);
  hull->vert = malloc((size_t)nvert * 3 * sizeof(double));
  hull->face = malloc((size_t)nface * 3 * sizeof(int));
  if (!hull->vert || !hull->face) {
    mesh_hull_free(hull);
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "out of memory");
  }
  hull->nvert = nvert;
  hull->nface = nface;
  for (int i = 0; i < np; i++)
    if (map[i] >= 0)
      for (int k = 0; k < 3; k++) {
        hull->vert[3 * map[i] + k] = c[k] + (double)q[3 * i + k] * step;
      }
  for (int t = 0; t < 3 * nface; t++) hull->face[t] = map[fv[t]];
  return CSIM_OK;
}

// volume and centroid: tetrahedra from the vertex mean o to each face,
// V = sum (a-o).((b-o)x(c-o))/6, centroid = o + sum V_t (a+b+c-3o)/4 / V
static void hull_volume(mesh_hull* hull) {
  int nvert = hull->nvert;
  double o[3] = {0, 0, 0};
  for (int i = 0; i < nvert; i++)
    for (int k = 0; k < 3; k++) o[k] += hull->vert[3 * i + k] / nvert;
  double vol = 0, cen[3] = {0, 0, 0};
  for (int t = 0; t < hull->nface; t++) {
    const double* A = hull->vert + 3 * hull->face[3 * t];
    const double* B = hull->vert + 3 * hull->face[3 * t + 1];
    const double* C = hull->vert + 3 * hull->face[3 * t + 2];
    double x[3] = {A[0] - o[0], A[1] - o[1], A[2] - o[2]};
    double y[3] = {B[0] - o[0], B[1] - o[1], B[2] - o[2]};
    double z[3] = {C[0] - o[0], C[1] - o[1], C[2] - o[2]};
    double v6 = x[0] * (y[1] * z[2] - y[2] * z[1]) + x[1] * (y[2] * z[0] - y[0] * z[2]) +
                x[2] * (y[0] * z[1] - y[1] * z[0]);
    vol += v6 / 6.0;
    for (int k = 0; k < 3; k++) cen[k] += v6 / 6.0 * (x[k] + y[k] + z[k]) / 4.0;
  }
  hull->volume = vol;
  for (int k = 0; k < 3; k++) hull->center[k] = o[k] + (vol > 0 ? cen[k] / vol : 0);
}

// convex hull of a point cloud: snap, merge, Quickhull, drop slivers, volume/centroid
csim_status mesh_hull_points(const double* pts, int n, mesh_hull* hull, csim_error* err) {
  memset(hull, 0, sizeof(*hull));
  double lo[3], hi[3], range = 0;
  csim_status st = cloud_extent(pts, n, lo, hi, &range, err);
  if (st) return st;
  // snap to an integer grid about the box centre c, with a power-of-two step such that the
  // extent spans < 2^HULL_BITS steps: every orientation test is then exact in 128-bit integers
  // (|q| <= 2^39 + 1, differences < 2^41, normals < 2^83, n.q - d < 2^126), so the hull is
  // exactly convex on the grid; c is a multiple of the step, so grid points c + q step are
  // (usually exact) doubles, and STL float coordinates sit on the grid
  snap_pt* sp = malloc((size_t)n * sizeof(snap_pt));
  if (!sp) return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "out of memory");
  const double step = ldexp(1.0, ilogb(range) + 1 - HULL_BITS);
  double c[3];
  for (int k = 0; k < 3; k++) c[k] = nearbyint(0.5 * (lo[k] + hi[k]) / step) * step;
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) sp[i].q[k] = (int64_t)llround((pts[3 * i + k] - c[k]) / step);
    sp[i].src = i;
  }
  // tolerances relative to the extent, in grid units
  const double tol = HULL_OUT_REL * range / step;
  const double hmin = HULL_SLIVER_REL * range / step;
  // merge points that snap together
  qsort(sp, (size_t)n, sizeof(snap_pt), cmp_snap);
  int np = 0;
  for (int i = 0; i < n; i++)
    if (np == 0 || memcmp(sp[i].q, sp[np - 1].q, sizeof(sp[i].q)) != 0) sp[np++] = sp[i];
  int64_t* q = malloc((size_t)np * 3 * sizeof(int64_t));
  int* map = malloc((size_t)np * sizeof(int));
  char* drop = malloc((size_t)np);
  int* fv = NULL;
  int nface = 0;
  if (!q || !map || !drop) st = err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "out of memory");
  if (!st) {
    for (int i = 0; i < np; i++) memcpy(q + 3 * i, sp[i].q, sizeof(sp[i].q));
    st = hull_rounds(q, sp, &np, tol, hmin, map, drop, &fv, &nface, err);
  }
  if (!st) st = hull_output(hull, q, np, fv, nface, map, c, step, err);
  if (!st) {
    hull_volume(hull);
    if (!(hull->volume > 0)) {
      double vol = hull->volume;
      mesh_hull_free(hull);
      st = err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                   "convex hull failed: non-positive volume %g", vol);
    }
  }
  free(fv);
  free(q);
  free(map);
  free(drop);
  free(sp);
  return st;
}

// free a hull's arrays and zero its counts
void mesh_hull_free(mesh_hull* hull) {
  if (!hull) return;
  free(hull->vert);
  free(hull->face);
  hull->vert = NULL;
  hull->face = NULL;
  hull->nvert = hull->nface = 0;
}

//---------------------------------- mass properties (MuJoCo's) ------------------------------

// MuJoCo's mjMINVAL: smaller faces and volumes count as none
#define MESH_MINVAL 1e-15

// area, unit normal and centre of a float triangle, with MuJoCo's operations and precisions
// (the centre and the edge vectors are computed in float as there); 0 for a degenerate face
static double ftriangle(double nrm[3], double cen[3], const float* a, const float* b,
                        const float* c) {
  for (int i = 0; i < 3; i++) cen[i] = (a[i] + b[i] + c[i]) / 3;
  double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double f[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  sp_cross3(nrm, e, f);
  double len = sp_norm3(nrm);
  if (len < MESH_MINVAL) return 0;
  for (int i = 0; i < 3; i++) nrm[i] /= len;
  return len / 2;
}

// |pyramid volume| of face t from apex o (legacy: always positive)
static double pyramid(const float* v, int t, const double o[3], double cen[3]) {
  double nrm[3];
  double a = ftriangle(nrm, cen, v + 9 * t, v + 9 * t + 3, v + 9 * t + 6);
  double d[3] = {cen[0] - o[0], cen[1] - o[1], cen[2] - o[2]};
  return fabs(sp_dot3(d, nrm) * a / 3);
}

// products of inertia sum over the pyramids from the origin (float terms as in MuJoCo)
static double mass_products(const float* v, int ntri, double P[6]) {
  static const int k[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  const double o[3] = {0, 0, 0};
  double vol = 0, cen[3];
  for (int t = 0; t < ntri; t++) {
    const float *D = v + 9 * t, *E = D + 3, *F = D + 6;
    double pv = pyramid(v, t, o, cen);
    vol += pv;
    for (int j = 0; j < 6; j++) {
      int p = k[j][0], q = k[j][1];
      float s = 2 * (D[p] * D[q] + E[p] * E[q] + F[p] * F[q]) + D[p] * E[q] + D[q] * E[p] +
                D[p] * F[q] + D[q] * F[p] + E[p] * F[q] + E[q] * F[p];
      P[j] += pv / 20 * s;
    }
  }
  return vol;
}

csim_status mesh_mass_props(const double* tri, int ntri, const double scale[3], mesh_mass* mm,
                            csim_error* err) {
  memset(mm, 0, sizeof(*mm));
  float* v = malloc((size_t)ntri * 9 * sizeof(float));
  if (!v) return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "out of memory (mesh inertia)");
  // a mirroring scale: MuJoCo swaps each face's last two corners (which changes only rounding)
  int swap = scale[0] * scale[1] * scale[2] < 0;
  for (int i = 0; i < 9 * ntri; i++) {
    int corner = (i % 9) / 3, src = swap && corner ? i + (corner == 1 ? 3 : -3) : i;
    v[i] = (float)((double)(float)tri[src] * scale[i % 3]);
  }
  // area-weighted centroid of the faces: the pyramids' apex
  double fc[3] = {0, 0, 0}, area = 0, nrm[3], cen[3], vol = 0, com[3] = {0, 0, 0};
  for (int t = 0; t < ntri; t++) {
    double a = ftriangle(nrm, cen, v + 9 * t, v + 9 * t + 3, v + 9 * t + 6);
    for (int j = 0; j < 3; j++) fc[j] += a * cen[j];
    area += a;
  }
  if (area >= MESH_MINVAL)
    for (int j = 0; j < 3; j++) fc[j] /= area;
  for (int t = 0; t < ntri && area >= MESH_MINVAL; t++) {
    double pv = pyramid(v, t, fc, cen);
    vol += pv;
    for (int j = 0; j < 3; j++) com[j] += pv * (cen[j] * 3.0 / 4.0 + fc[j] / 4.0);
  }
  if (vol < MESH_MINVAL) {
    free(v);
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                   "mesh volume %g m^3 is too small to give the geom a mass (MuJoCo's rule)", vol);
  }
  for (int j = 0; j < 3; j++) com[j] /= vol;
  // re-centre at the centre of mass (in float, as MuJoCo), then the second moments about it
  for (int i = 0; i < 9 * ntri; i++) v[i] = (float)(v[i] - com[i % 3]);
  double P[6] = {0, 0, 0, 0, 0, 0};
  mm->volume = mass_products(v, ntri, P);
  free(v);
  memcpy(mm->com, com, sizeof(com));
  mm->inertia[0] = P[1] + P[2];
  mm->inertia[1] = P[0] + P[2];
  mm->inertia[2] = P[0] + P[1];
  for (int j = 3; j < 6; j++) mm->inertia[j] = -P[j];
  return CSIM_OK;
}
