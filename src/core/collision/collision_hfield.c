// collision_hfield.c — height-field terrain against every shape (see collision.h, "Height field").
//
// The field is a grid of nx x ny vertices; cell (ix, iy) is split along its diagonal into
// triangle 0 (v00, v10, v11) and triangle 1 (v00, v11, v01), both counter-clockwise seen from
// above. Outside the grid the ground continues as the plane z = geom z (the field's zero height).
// Only the cells under the shape's world AABB are visited (broad-phase culling per pair).
//
// Per shape (contact normals always point from the ground into the shape):
//   sphere   exact: closest point on each triangle of the cells touched. A face contact (the
//            centre projects inside the triangle along its normal) has the triangle's normal; an
//            edge or vertex contact has the direction from the closest point to the centre and is
//            dropped when a face contact's plane contains its point (an internal edge of a flat
//            or convex patch, where the face contact is the true one).
//   capsule  the sphere test at both ends of the segment and at samples along it no farther apart
//            than half a cell (a capsule lying across a ridge is touched between its ends).
//   box      its 8 corners; mesh: every hull vertex; cylinder: for each triangle normal n of the
//            cells touched (and +z), the 4 rim points per cap that plane-cylinder uses for n.
//            Each point is tested against the triangle under it (vertically): depth along that
//            triangle's normal. Exact for a shape resting on one face (the plane result); a
//            terrain vertex or ridge poking into a flat face of a box or hull between its vertices
//            is not seen (stated in the README).
// Features (stable ids for warm starting): the corner / hull vertex / rim point index, which
// does not change as the shape moves across cells; sphere contacts are ranked by depth (rank 0
// the deepest), so a sphere rolling from triangle to triangle keeps id 0. Duplicates (same
// point and normal from two triangles; the same feature twice) keep the deepest; more than
// COLL_HFIELD_MAX contacts are reduced by coll_reduce (the deepest, then farthest-point
// sampling), as plane-mesh reduces to 4.
#include <math.h>
#include <string.h>

#include "core/collision/collision_internal.h"

#define HF_BUF 64   // contacts gathered per pair before deduplication and reduction

// the field placed in the world: grid origin (vertex 0, 0) and zero height
typedef struct {
  const coll_hfield* f;
  double x0, y0, z0;
} hfw;

static hfw hf_place(const coll_geom* g) {
  hfw w = {g->hfield, g->pos[0] - g->size[0], g->pos[1] - g->size[1], g->pos[2]};
  return w;
}

// world vertex (ix, iy)
static void hf_vert(const hfw* w, int ix, int iy, double p[3]) {
  p[0] = w->x0 + ix * w->f->dx;
  p[1] = w->y0 + iy * w->f->dy;
  p[2] = w->z0 + w->f->h[(long)iy * w->f->nx + ix];
}

// triangle k of cell (ix, iy): world vertices and unit upward normal
static void hf_tri(const hfw* w, int ix, int iy, int k, double a[3], double b[3], double c[3],
                   double n[3]) {
  hf_vert(w, ix, iy, a);
  if (k == 0) {
    hf_vert(w, ix + 1, iy, b);
    hf_vert(w, ix + 1, iy + 1, c);
  } else {
    hf_vert(w, ix + 1, iy + 1, b);
    hf_vert(w, ix, iy + 1, c);
  }
  double e1[3], e2[3];
  sp_sub3(e1, b, a);
  sp_sub3(e2, c, a);
  sp_cross3(n, e1, e2);
  sp_scale3(n, n, 1.0 / sp_norm3(n));
}

// the triangle under world point p (vertically): returns 0 and a point a on its plane and its
// normal n, or 1 outside the grid (the plane z = z0, normal +z)
static int hf_under(const hfw* w, const double p[3], double a[3], double n[3]) {
  const coll_hfield* f = w->f;
  double u = (p[0] - w->x0) / f->dx, v = (p[1] - w->y0) / f->dy;
  if (!(u >= 0 && v >= 0 && u <= f->nx - 1 && v <= f->ny - 1)) {
    a[0] = p[0];
    a[1] = p[1];
    a[2] = w->z0;
    n[0] = n[1] = 0;
    n[2] = 1;
    return 1;
  }
  int ix = (int)u, iy = (int)v;
  if (ix > f->nx - 2) ix = f->nx - 2;
  if (iy > f->ny - 2) iy = f->ny - 2;
  double b[3], c[3];
  hf_tri(w, ix, iy, (u - ix) >= (v - iy) ? 0 : 1, a, b, c, n);
  return 0;
}

// cells [ix0, ix1] x [iy0, iy1] under the world box lo..hi (x, y); returns 0 when none; *outside
// set when the box reaches beyond the grid (the plane region)
static int hf_cells(const hfw* w, const double lo[2], const double hi[2], int r[4], int* outside) {
  const coll_hfield* f = w->f;
  double ulo = (lo[0] - w->x0) / f->dx, uhi = (hi[0] - w->x0) / f->dx;
  double vlo = (lo[1] - w->y0) / f->dy, vhi = (hi[1] - w->y0) / f->dy;
  // a non-finite pose (a diverging run) touches no cell; the plane beyond the grid decides
  if (!isfinite(ulo) || !isfinite(uhi) || !isfinite(vlo) || !isfinite(vhi)) {
    *outside = 1;
    return 0;
  }
  *outside = ulo < 0 || vlo < 0 || uhi > f->nx - 1 || vhi > f->ny - 1;
  if (uhi < 0 || vhi < 0 || ulo > f->nx - 1 || vlo > f->ny - 1) return 0;
  r[0] = ulo < 0 ? 0 : (int)ulo;
  r[1] = uhi > f->nx - 2 ? f->nx - 2 : (int)uhi;
  r[2] = vlo < 0 ? 0 : (int)vlo;
  r[3] = vhi > f->ny - 2 ? f->ny - 2 : (int)vhi;
  if (r[0] > f->nx - 2) r[0] = f->nx - 2;
  if (r[2] > f->ny - 2) r[2] = f->ny - 2;
  return 1;
}

//---------------------------------- contact set ----------------------------------------------

typedef struct {
  coll_contact c[HF_BUF];
  int n;
} cset_buf;

// add a contact; a full buffer keeps the deepest; the same feature twice keeps the deeper one
static void buf_add(cset_buf* B, const coll_contact* c, int by_feature) {
  if (by_feature)
    for (int i = 0; i < B->n; i++)
      if (B->c[i].feature == c->feature) {
        if (c->depth > B->c[i].depth) B->c[i] = *c;
        return;
      }
  if (B->n < HF_BUF) {
    B->c[B->n++] = *c;
    return;
  }
  int s = 0;
  for (int i = 1; i < B->n; i++)
    if (B->c[i].depth < B->c[s].depth) s = i;
  if (c->depth > B->c[s].depth) B->c[s] = *c;
}

// reduce to COLL_HFIELD_MAX and copy out
static int buf_out(cset_buf* B, coll_contact* con) {
  int n = coll_reduce(B->c, B->n, COLL_HFIELD_MAX);
  memcpy(con, B->c, (size_t)n * sizeof(coll_contact));
  return n;
}

// world point p of the shape (feature f) against the triangle under it
static void point_contact(const hfw* w, const double p[3], double margin, int f, cset_buf* B,
                          int by_feature) {
  double a[3], n[3], e[3], p1[3];
  hf_under(w, p, a, n);
  sp_sub3(e, p, a);
  double d = sp_dot3(e, n);   // signed distance above the triangle's plane
  if (d > margin) return;
  sp_madd3(p1, p, n, -d);
  coll_contact c;
  cset(&c, p1, p, n, -d, f);
  buf_add(B, &c, by_feature);
}

// world AABB of a shape in x, y and its lowest z (support points)
static void shape_box(const coll_geom* g, double margin, double lo[3], double hi[2]) {
  static const double dirs[5][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}};
  double s[3];
  coll_support(g, dirs[0], s); lo[0] = s[0] - margin;
  coll_support(g, dirs[1], s); hi[0] = s[0] + margin;
  coll_support(g, dirs[2], s); lo[1] = s[1] - margin;
  coll_support(g, dirs[3], s); hi[1] = s[1] + margin;
  coll_support(g, dirs[4], s); lo[2] = s[2] - margin;
}

// the shape's lowest point is above every height: no contact
static int above_all(const hfw* w, double zlo) {
  double top = w->f->hmax > 0 ? w->f->hmax : 0;
  return zlo > w->z0 + top;
}

//---------------------------------- spheres --------------------------------------------------

// closest point q on triangle abc to p (Ericson, "Real-Time Collision Detection" 5.1.5);
// returns 1 when q is inside the face (p projects into the triangle), 0 on an edge or vertex
static int closest_on_tri(const double p[3], const double a[3], const double b[3],
                          const double c[3], double q[3]) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  sp_sub3(ab, b, a);
  sp_sub3(ac, c, a);
  sp_sub3(ap, p, a);
  double d1 = sp_dot3(ab, ap), d2 = sp_dot3(ac, ap);
  if (d1 <= 0 && d2 <= 0) { sp_copy3(q, a); return 0; }
  sp_sub3(bp, p, b);
  double d3 = sp_dot3(ab, bp), d4 = sp_dot3(ac, bp);
  if (d3 >= 0 && d4 <= d3) { sp_copy3(q, b); return 0; }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) { sp_madd3(q, a, ab, d1 / (d1 - d3)); return 0; }
  sp_sub3(cp, p, c);
  double d5 = sp_dot3(ab, cp), d6 = sp_dot3(ac, cp);
  if (d6 >= 0 && d5 <= d6) { sp_copy3(q, c); return 0; }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) { sp_madd3(q, a, ac, d2 / (d2 - d6)); return 0; }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    double t = (d4 - d3) / ((d4 - d3) + (d5 - d6)), bc[3];
    sp_sub3(bc, c, b);
    sp_madd3(q, b, bc, t);
    return 0;
  }
  double den = 1.0 / (va + vb + vc), v = vb * den, wgt = vc * den;
  sp_madd3(q, a, ab, v);
  sp_madd3(q, q, ac, wgt);
  return 1;
}

// contacts of the sphere (centre ctr, radius r) with the field, ranked by depth into features
// fbase + rank; appended to B
static void sphere_contacts(const hfw* w, const double ctr[3], double r, double margin, int fbase,
                            cset_buf* B) {
  enum { SMAX = 32 };
  coll_contact face[SMAX], edge[SMAX];
  int nf = 0, ne = 0;
  if (ctr[2] - r > w->z0 + (w->f->hmax > 0 ? w->f->hmax : 0) + margin) return;
  double lo[2] = {ctr[0] - r - margin, ctr[1] - r - margin};
  double hi[2] = {ctr[0] + r + margin, ctr[1] + r + margin};
  int cells[4], outside = 0;
  if (hf_cells(w, lo, hi, cells, &outside))
    for (int iy = cells[2]; iy <= cells[3]; iy++)
      for (int ix = cells[0]; ix <= cells[1]; ix++)
        for (int k = 0; k < 2; k++) {
          double a[3], b[3], c[3], n[3], q[3], e[3], nrm[3], p2[3];
          hf_tri(w, ix, iy, k, a, b, c, n);
          int inface = closest_on_tri(ctr, a, b, c, q);
          sp_sub3(e, ctr, a);
          double s = sp_dot3(e, n), depth;
          if (inface) {
            depth = r - s;
            sp_copy3(nrm, n);
          } else {
            // a centre below this triangle's plane that projects outside it belongs to another
            if (s <= 0) continue;
            sp_sub3(e, ctr, q);
            double dist = sp_norm3(e);
            if (dist < 1e-12) continue;
            depth = r - dist;
            sp_scale3(nrm, e, 1.0 / dist);
          }
          if (depth < -margin) continue;
          sp_madd3(p2, ctr, nrm, -r);
          if (inface && nf < SMAX) {
            sp_madd3(q, ctr, n, -s);   // the projection of the centre on the face
            cset(&face[nf++], q, p2, nrm, depth, 0);
          } else if (!inface && ne < SMAX) {
            cset(&edge[ne++], q, p2, nrm, depth, 0);
          }
        }
  // beyond the grid: the plane z = z0 under the sphere's lowest point
  if (outside) {
    double p[3] = {ctr[0], ctr[1], ctr[2] - r}, a[3], n[3];
    if (hf_under(w, p, a, n) && nf < SMAX) {
      double d = p[2] - w->z0;
      if (d <= margin) {
        double p1[3] = {p[0], p[1], w->z0};
        cset(&face[nf++], p1, p, n, -d, 0);
      }
    }
  }
  // edge/vertex contacts inside a face contact's plane are internal edges: dropped; duplicates
  // (one edge point seen from its two triangles) merged
  int nout = 0;
  coll_contact out[2 * SMAX];
  for (int i = 0; i < nf; i++) {
    int dup = 0;
    for (int j = 0; j < nout && !dup; j++) {
      double e[3];
      sp_sub3(e, face[i].pos, out[j].pos);
      dup = sp_dot3(e, e) < 1e-18 && sp_dot3(face[i].normal, out[j].normal) > 1 - 1e-12;
    }
    if (!dup) out[nout++] = face[i];
  }
  for (int i = 0; i < ne; i++) {
    double q[3];
    sp_madd3(q, edge[i].pos, edge[i].normal, 0.5 * edge[i].depth);   // the point on the terrain
    int drop = 0;
    for (int j = 0; j < nf && !drop; j++) {
      double fq[3], e[3];
      sp_madd3(fq, face[j].pos, face[j].normal, 0.5 * face[j].depth);
      sp_sub3(e, q, fq);
      drop = fabs(sp_dot3(e, face[j].normal)) < 1e-9;
    }
    for (int j = 0; j < nout && !drop; j++) {
      double e[3];
      sp_sub3(e, edge[i].pos, out[j].pos);
      drop = sp_dot3(e, e) < 1e-18 && sp_dot3(edge[i].normal, out[j].normal) > 1 - 1e-12;
    }
    if (!drop) out[nout++] = edge[i];
  }
  // rank by depth (deepest first; ties keep the visiting order): features fbase + rank
  for (int i = 1; i < nout; i++) {
    coll_contact t = out[i];
    int j = i - 1;
    while (j >= 0 && out[j].depth < t.depth) {
      out[j + 1] = out[j];
      j--;
    }
    out[j + 1] = t;
  }
  for (int i = 0; i < nout; i++) {
    out[i].feature = fbase + i;
    buf_add(B, &out[i], 0);
  }
}

int coll_hfield_sphere(const coll_geom* g1, const coll_geom* g2, double margin,
                       coll_contact* con) {
  hfw w = hf_place(g1);
  cset_buf B;
  B.n = 0;
  sphere_contacts(&w, g2->pos, g2->size[0], margin, 0, &B);
  return buf_out(&B, con);
}

int coll_hfield_capsule(const coll_geom* g1, const coll_geom* g2, double margin,
                        coll_contact* con) {
  hfw w = hf_place(g1);
  double lo[3], hi[2];
  shape_box(g2, margin, lo, hi);
  if (above_all(&w, lo[2] - margin)) return 0;
  double ax[3], a[3], b[3];
  sp_axis3(ax, g2->mat, 2);
  sp_madd3(a, g2->pos, ax, -g2->size[1]);
  sp_madd3(b, g2->pos, ax, g2->size[1]);
  // samples no farther apart than half a cell, at most 17
  double cell = fmin(w.f->dx, w.f->dy), len = 2 * g2->size[1];
  int ns = 1 + (int)ceil(len / (0.5 * cell));
  if (ns > 16) ns = 16;
  cset_buf B;
  B.n = 0;
  for (int i = 0; i <= ns; i++) {
    double p[3], t = (double)i / ns;
    for (int k = 0; k < 3; k++) p[k] = a[k] + t * (b[k] - a[k]);
    sphere_contacts(&w, p, g2->size[0], margin, 8 * i, &B);
  }
  return buf_out(&B, con);
}

//---------------------------------- point sets -----------------------------------------------

int coll_hfield_box(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con) {
  hfw w = hf_place(g1);
  double lo[3], hi[2];
  shape_box(g2, margin, lo, hi);
  if (above_all(&w, lo[2] - margin)) return 0;
  cset_buf B;
  B.n = 0;
  for (int f = 0; f < 8; f++) {
    double l[3], p[3];
    for (int k = 0; k < 3; k++) l[k] = ((f >> k) & 1 ? 1 : -1) * g2->size[k];
    sp_xform(p, g2->mat, g2->pos, l);
    point_contact(&w, p, margin, f, &B, 0);
  }
  return buf_out(&B, con);
}

int coll_hfield_mesh(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con) {
  const coll_hull* hl = g2->hull;
  if (!hl || hl->nvert <= 0) return 0;
  hfw w = hf_place(g1);
  double lo[3], hi[2];
  shape_box(g2, margin, lo, hi);
  if (above_all(&w, lo[2] - margin)) return 0;
  // vertices higher than every height of the field cannot touch it
  double top = w.z0 + (w.f->hmax > 0 ? w.f->hmax : 0) + margin;
  cset_buf B;
  B.n = 0;
  for (int i = 0; i < hl->nvert; i++) {
    double p[3];
    sp_xform(p, g2->mat, g2->pos, hl->vert + 3 * i);
    if (p[2] > top) continue;
    point_contact(&w, p, margin, i, &B, 0);
  }
  return buf_out(&B, con);
}

int coll_hfield_cylinder(const coll_geom* g1, const coll_geom* g2, double margin,
                         coll_contact* con) {
  hfw w = hf_place(g1);
  double lo[3], hi[2];
  shape_box(g2, margin, lo, hi);
  if (above_all(&w, lo[2] - margin)) return 0;
  double ax[3];
  sp_axis3(ax, g2->mat, 2);
  double r = g2->size[0], h = g2->size[1];
  cset_buf B;
  B.n = 0;
  // the normals to try: +z (flat ground, the plane beyond the grid) and every triangle's
  int cells[4], outside = 0, have = hf_cells(&w, lo, hi, cells, &outside);
  int ntri = have ? 2 * (cells[1] - cells[0] + 1) * (cells[3] - cells[2] + 1) : 0;
  for (int t = -1; t < ntri; t++) {
    double n[3] = {0, 0, 1};
    if (t >= 0) {
      int cx = cells[1] - cells[0] + 1, c = t / 2;
      double a[3], b[3], cc[3];
      hf_tri(&w, cells[0] + c % cx, cells[2] + c / cx, t % 2, a, b, cc, n);
    }
    // plane-cylinder's points for normal n: per cap, +-u (u in the cap plane most against n)
    // and +-v
    double u[3], v[3], na = sp_dot3(n, ax);
    sp_madd3(u, n, ax, -na);
    sp_scale3(u, u, -1.0);
    double su = sp_norm3(u);
    if (su < 1e-6) sp_axis3(u, g2->mat, 0);
    else sp_scale3(u, u, 1.0 / su);
    sp_cross3(v, ax, u);
    for (int cap = 0; cap < 2; cap++) {
      double cc[3];
      sp_madd3(cc, g2->pos, ax, (cap ? 1.0 : -1.0) * h);
      for (int k = 0; k < 4; k++) {
        double p[3];
        sp_madd3(p, cc, (k & 1) ? v : u, (k < 2 ? 1.0 : -1.0) * r);
        point_contact(&w, p, margin, 4 * cap + k, &B, 1);
      }
    }
  }
  return buf_out(&B, con);
}
