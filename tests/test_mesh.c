// test_mesh.c — STL reading (binary, ASCII, errors) and convex hulls: analytic shapes, mirrored
// scales, degenerate clouds, noisy near-coplanar clouds, and every collision mesh of the shared
// robots (solo12, ur5, panda, talos) through their URDFs.
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/mesh_io.h"
#include "io/urdf.h"
#include "support.h"

#define ROBOTS "../shared/data/robots/"

// deterministic uniform numbers in [0, 1)
static double urand(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  return (*s >> 8) / 16777216.0;
}

// largest distance between two vertices (the hull's diameter)
static double hull_diameter(const mesh_hull* h) {
  double d = 0;
  for (int a = 0; a < h->nvert; a++)
    for (int b = a + 1; b < h->nvert; b++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += pow(h->vert[3 * a + k] - h->vert[3 * b + k], 2);
      d = fmax(d, s);
    }
  return sqrt(d);
}

// unit outward normal and offset of face t; returns the normal's length before normalising
static double face_plane(const mesh_hull* h, int t, double n[3], double* off) {
  const double* A = h->vert + 3 * h->face[3 * t];
  const double* B = h->vert + 3 * h->face[3 * t + 1];
  const double* C = h->vert + 3 * h->face[3 * t + 2];
  double u[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
  double v[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
  n[0] = u[1] * v[2] - u[2] * v[1];
  n[1] = u[2] * v[0] - u[0] * v[2];
  n[2] = u[0] * v[1] - u[1] * v[0];
  double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (int k = 0; k < 3 && l > 0; k++) n[k] /= l;
  *off = n[0] * A[0] + n[1] * A[1] + n[2] * A[2];
  return l;
}

// a valid hull: indices in range, Euler F = 2V - 4, every edge shared by exactly two faces in
// opposite directions, no degenerate face, every vertex on or behind every face plane (within
// rtol * diameter), the centroid strictly behind every face (outward), positive volume
// (violations are counted in plain loops and asserted once: Check records every assertion)
static void check_hull(const mesh_hull* h, double rtol) {
  ck_assert_int_ge(h->nvert, 4);
  ck_assert_int_eq(h->nface, 2 * h->nvert - 4);
  ck_assert_double_gt(h->volume, 0);
  double diam = hull_diameter(h), tol = rtol * diam;
  int bad_index = 0, unused = 0, bad_edge = 0, degenerate = 0, inward = 0;
  int* used = calloc((size_t)h->nvert, sizeof(int));
  for (int t = 0; t < 3 * h->nface; t++) {
    if (h->face[t] < 0 || h->face[t] >= h->nvert) bad_index++;
    else used[h->face[t]] = 1;
  }
  ck_assert_int_eq(bad_index, 0);
  for (int i = 0; i < h->nvert; i++) unused += !used[i];
  free(used);
  ck_assert_int_eq(unused, 0);
  // edge a->b appears once and b->a once (closed, consistently oriented 2-manifold)
  for (int t = 0; t < h->nface; t++)
    for (int e = 0; e < 3; e++) {
      int a = h->face[3 * t + e], b = h->face[3 * t + (e + 1) % 3];
      int same = 0, twin = 0;
      for (int s = 0; s < h->nface; s++)
        for (int f = 0; f < 3; f++) {
          int c = h->face[3 * s + f], d = h->face[3 * s + (f + 1) % 3];
          same += c == a && d == b;
          twin += c == b && d == a;
        }
      bad_edge += same != 1 || twin != 1;
    }
  ck_assert_int_eq(bad_edge, 0);
  double worst = -INFINITY;
  for (int t = 0; t < h->nface; t++) {
    double n[3], off;
    if (!(face_plane(h, t, n, &off) > 0)) {
      degenerate++;
      continue;
    }
    for (int i = 0; i < h->nvert; i++) {
      double d = n[0] * h->vert[3 * i] + n[1] * h->vert[3 * i + 1] + n[2] * h->vert[3 * i + 2];
      worst = fmax(worst, d - off);
    }
    double dc = n[0] * h->center[0] + n[1] * h->center[1] + n[2] * h->center[2];
    inward += !(dc - off < 0);
  }
  ck_assert_int_eq(degenerate, 0);
  ck_assert_int_eq(inward, 0);
  ck_assert_msg(worst <= tol, "a vertex is %g above a face plane (tol %g)", worst, tol);
}

// every point of a cloud (every stride-th) is on or inside the hull (within rtol * diameter)
static void check_contains(const mesh_hull* h, const double* p, int n, int stride, double rtol) {
  double tol = rtol * hull_diameter(h), worst = -INFINITY;
  for (int t = 0; t < h->nface; t++) {
    double nr[3], off;
    face_plane(h, t, nr, &off);
    for (int i = 0; i < n; i += stride) {
      double d = nr[0] * p[3 * i] + nr[1] * p[3 * i + 1] + nr[2] * p[3 * i + 2] - off;
      worst = fmax(worst, d);
    }
  }
  ck_assert_msg(worst <= tol, "a point is %g outside a face plane (tol %g)", worst, tol);
}

// unit cube corners plus interior, face and edge points: 8 vertices, 12 faces, volume 1
START_TEST(cube_hull) {
  double p[3 * 600];
  int n = 0;
  unsigned s = 3;
  for (int c = 0; c < 8; c++) {
    p[3 * n] = c & 1;
    p[3 * n + 1] = (c >> 1) & 1;
    p[3 * n + 2] = (c >> 2) & 1;
    n++;
  }
  for (int i = 0; i < 300; i++, n++)
    for (int k = 0; k < 3; k++) p[3 * n + k] = 0.05 + 0.9 * urand(&s);
  // points on faces and edges (exactly coplanar / collinear with hull features) and duplicates
  for (int i = 0; i < 200; i++, n++) {
    int f = i % 6;
    p[3 * n + f / 2] = f % 2;
    p[3 * n + (f / 2 + 1) % 3] = urand(&s);
    p[3 * n + (f / 2 + 2) % 3] = (i % 4 == 0) ? 0 : urand(&s);
  }
  for (int i = 0; i < 8; i++, n++) memcpy(p + 3 * n, p + 3 * i, 3 * sizeof(double));
  mesh_hull h;
  csim_error e;
  ck_assert_int_eq(mesh_hull_points(p, n, &h, &e), CSIM_OK);
  ck_assert_int_eq(h.nvert, 8);
  ck_assert_int_eq(h.nface, 12);
  ck_assert_double_eq_tol(h.volume, 1, 1e-12);
  for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(h.center[k], 0.5, 1e-12);
  int notcorner = 0;  // the vertices are the corners themselves
  for (int i = 0; i < 8; i++)
    for (int k = 0; k < 3; k++) notcorner += !(h.vert[3 * i + k] == 0 || h.vert[3 * i + k] == 1);
  ck_assert_int_eq(notcorner, 0);
  check_hull(&h, 1e-12);
  check_contains(&h, p, n, 1, 1e-12);
  mesh_hull_free(&h);
  ck_assert_ptr_null(h.vert);
}
END_TEST

// points on a sphere (Fibonacci lattice) plus interior points: every sphere point is a vertex;
// the volume approaches 4/3 pi from below; the centroid is the centre
START_TEST(sphere_hull) {
  int m = 2000, n = 0;
  double* p = malloc(sizeof(double) * 3 * (size_t)(m + 500));
  const double ga = M_PI * (3 - sqrt(5.0));
  for (int i = 0; i < m; i++, n++) {
    double z = 1 - 2 * (i + 0.5) / m, r = sqrt(1 - z * z);
    p[3 * n] = 2 + r * cos(ga * i);
    p[3 * n + 1] = -1 + r * sin(ga * i);
    p[3 * n + 2] = 0.5 + z;
  }
  unsigned s = 9;
  for (int i = 0; i < 500; i++, n++)
    for (int k = 0; k < 3; k++)
      p[3 * n + k] = (k == 0 ? 2 : k == 1 ? -1 : 0.5) + 0.5 * (urand(&s) - 0.5);
  mesh_hull h;
  csim_error e;
  ck_assert_int_eq(mesh_hull_points(p, n, &h, &e), CSIM_OK);
  ck_assert_int_eq(h.nvert, m);
  double v = 4.0 / 3.0 * M_PI;
  ck_assert_double_lt(h.volume, v);
  ck_assert_double_gt(h.volume, 0.995 * v);
  ck_assert_double_eq_tol(h.center[0], 2, 1e-3);
  ck_assert_double_eq_tol(h.center[1], -1, 1e-3);
  ck_assert_double_eq_tol(h.center[2], 0.5, 1e-3);
  check_hull(&h, 1e-12);
  check_contains(&h, p, n, 1, 1e-11);  // snapping: 2^-41 of the largest |coordinate| (3)
  mesh_hull_free(&h);
  free(p);
}
END_TEST

// degenerate clouds are errors saying why
START_TEST(degenerate_clouds) {
  mesh_hull h;
  csim_error e;
  double p[3 * 50] = {0};
  // fewer than 4 points
  ck_assert_int_eq(mesh_hull_points(p, 3, &h, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "at least 4"));
  // coincident
  for (int i = 0; i < 50; i++) p[3 * i] = p[3 * i + 1] = p[3 * i + 2] = 0.25;
  ck_assert_int_eq(mesh_hull_points(p, 50, &h, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "coincide"));
  // collinear
  for (int i = 0; i < 50; i++) {
    p[3 * i] = i;
    p[3 * i + 1] = 2 * i;
    p[3 * i + 2] = -0.5 * i;
  }
  ck_assert_int_eq(mesh_hull_points(p, 50, &h, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "collinear"));
  // coplanar (a tilted plane)
  unsigned s = 5;
  for (int i = 0; i < 50; i++) {
    double u = urand(&s), v = urand(&s);
    p[3 * i] = u;
    p[3 * i + 1] = v;
    p[3 * i + 2] = 0.25 * u - 0.5 * v + 1;
  }
  ck_assert_int_eq(mesh_hull_points(p, 50, &h, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "coplanar"));
  ck_assert_ptr_null(h.vert);
  // non-finite coordinates
  p[7] = NAN;
  ck_assert_int_eq(mesh_hull_points(p, 50, &h, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "non-finite"));
}
END_TEST

// noisy near-coplanar clouds and rotated lattices (many exactly collinear/coplanar points):
// always a valid, convex, outward hull containing every point
START_TEST(noisy_and_lattice_clouds) {
  unsigned s = 11;
  double* p = malloc(sizeof(double) * 3 * 4000);
  for (int trial = 0; trial < 24; trial++) {
    int n = 0;
    double noise = pow(10, -3 - trial % 12);
    if (trial < 12) {
      // points near the 6 faces of a flat box, with noise from 1e-3 down to 1e-14
      for (int i = 0; i < 1500; i++, n++) {
        int f = i % 6;
        double q[3];
        q[f / 2] = f % 2;
        q[(f / 2 + 1) % 3] = urand(&s);
        q[(f / 2 + 2) % 3] = urand(&s);
        for (int k = 0; k < 3; k++)
          p[3 * n + k] = q[k] * (k == 2 ? 0.3 : 1) + noise * (urand(&s) - 0.5);
      }
    } else {
      // a lattice cube, rotated (collinear and coplanar runs up to rounding)
      int m = 4 + trial % 7;
      double a = 0.3 + trial, c = cos(a), sn = sin(a), c2 = cos(2 * a), s2 = sin(2 * a);
      for (int i = 0; i <= m; i++)
        for (int j = 0; j <= m; j++)
          for (int k = 0; k <= m; k++, n++) {
            double x = (double)i / m, y = (double)j / m, z = (double)k / m;
            double x1 = c * x - sn * y, y1 = sn * x + c * y;
            p[3 * n] = x1;
            p[3 * n + 1] = c2 * y1 - s2 * z;
            p[3 * n + 2] = s2 * y1 + c2 * z;
          }
    }
    mesh_hull h;
    csim_error e;
    ck_assert_int_eq(mesh_hull_points(p, n, &h, &e), CSIM_OK);
    check_hull(&h, 1e-7);
    check_contains(&h, p, n, 1, 1e-7);
    if (trial >= 12) {
      // a rotated cube: 8 corners, volume 1
      ck_assert_int_eq(h.nvert, 8);
      ck_assert_double_eq_tol(h.volume, 1, 1e-9);
    }
    mesh_hull_free(&h);
  }
  free(p);
}
END_TEST

// write n triangles as binary STL (header given) to a new temp file; returns its path
static char* write_binary_stl(const char* header, const float* tri, uint32_t n, const char* ext) {
  char* path = malloc(64);
  snprintf(path, 64, P_tmpdir "/csim_mesh_XXXXXX%s", ext);
  int fd = mkstemps(path, (int)strlen(ext));
  ck_assert_int_ge(fd, 0);
  FILE* f = fdopen(fd, "wb");
  char h[80] = {0};
  memcpy(h, header, strlen(header) < 80 ? strlen(header) : 80);
  fwrite(h, 1, 80, f);
  unsigned char c[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                        (unsigned char)(n >> 24)};
  fwrite(c, 1, 4, f);
  for (uint32_t t = 0; t < n; t++) {
    float rec[12] = {0, 0, 0};
    memcpy(rec + 3, tri + 9 * t, 9 * sizeof(float));
    // little-endian floats (the test machine is little-endian; checked below)
    fwrite(rec, 4, 12, f);
    fwrite("\0\0", 1, 2, f);
  }
  fclose(f);
  return path;
}

// write text to a new temp file with the given extension; returns its path
static char* write_temp(const char* text, const char* ext) {
  char* path = malloc(64);
  snprintf(path, 64, P_tmpdir "/csim_mesh_XXXXXX%s", ext);
  int fd = mkstemps(path, (int)strlen(ext));
  ck_assert_int_ge(fd, 0);
  FILE* f = fdopen(fd, "wb");
  fputs(text, f);
  fclose(f);
  return path;
}

// the 4 outward triangles of the tetrahedron (0,0,0) (2,0,0) (0,3,0) (0,0,4), volume 4
static const float tet[36] = {0, 0, 0, 0, 3, 0, 2, 0, 0,  0, 0, 0, 2, 0, 0, 0, 0, 4,
                              0, 0, 0, 0, 0, 4, 0, 3, 0,  2, 0, 0, 0, 3, 0, 0, 0, 4};

// the STL at path reads as exactly the 4 triangles of tet
static void expect_tet(const char* path) {
  double* tri;
  int ntri;
  csim_error e;
  ck_assert_int_eq(mesh_read_stl(path, &tri, &ntri, &e), CSIM_OK);
  ck_assert_int_eq(ntri, 4);
  int differ = 0;
  for (int i = 0; i < 36; i++) differ += tri[i] != tet[i];
  ck_assert_int_eq(differ, 0);
  free(tri);
}

// binary STL whose header starts with "solid" is read as binary (size rule), exactly
START_TEST(binary_stl) {
  uint32_t one = 1;
  ck_assert_int_eq(*(unsigned char*)&one, 1);  // little-endian host for write_binary_stl
  char* path = write_binary_stl("solid looks like ascii", tet, 4, ".stl");
  expect_tet(path);
  double* tri;
  int ntri;
  csim_error e;
  // hull with scale: volume scales by the determinant's magnitude
  mesh_hull h;
  double scale[3] = {0.5, 2, 1};
  ck_assert_int_eq(mesh_load_hull(path, scale, &h, &e), CSIM_OK);
  ck_assert_int_eq(h.nvert, 4);
  ck_assert_double_eq_tol(h.volume, 4.0, 1e-12);
  ck_assert_double_eq_tol(h.center[0], 0.25 * 1.0, 1e-12);   // (0 + 1 + 0 + 0) / 4
  ck_assert_double_eq_tol(h.center[1], 0.25 * 6.0, 1e-12);   // (0 + 0 + 6 + 0) / 4
  ck_assert_double_eq_tol(h.center[2], 0.25 * 4.0, 1e-12);
  check_hull(&h, 1e-12);
  mesh_hull_free(&h);
  unlink(path);
  free(path);
  // a "COLOR=" header (talos) and a truncated file (size no longer 84 + 50 n, no 'solid')
  path = write_binary_stl("COLOR=\xA0\xA0\xA0\xFF MATERIAL=", tet, 4, ".STL");
  ck_assert_int_eq(mesh_read_stl(path, &tri, &ntri, &e), CSIM_OK);
  ck_assert_int_eq(ntri, 4);
  free(tri);
  ck_assert_int_eq(truncate(path, 84 + 50 * 3 + 20), 0);
  ck_assert_int_eq(mesh_read_stl(path, &tri, &ntri, &e), CSIM_ERR_INPUT);
  ck_assert_str_eq(e.file, path);
  ck_assert_ptr_nonnull(strstr(e.msg, "not an STL file"));
  unlink(path);
  free(path);
}
END_TEST

// mirrored scale (negative determinant): the hull is still outward with positive volume and
// is the mirror image of the unscaled hull
START_TEST(mirrored_scale) {
  // an asymmetric solid: the tetrahedron plus a point cloud on one side
  float tri[36 + 9];
  memcpy(tri, tet, sizeof(tet));
  float extra[9] = {1, 2, 1, 0.5f, 0.5f, 3, 1.5f, 1, 0.5f};
  memcpy(tri + 36, extra, sizeof(extra));
  char* path = write_binary_stl("mirror", tri, 5, ".stl");
  mesh_hull h0, h1;
  csim_error e;
  double one[3] = {1, 1, 1}, mir[3] = {1, -1, 1};
  ck_assert_int_eq(mesh_load_hull(path, one, &h0, &e), CSIM_OK);
  ck_assert_int_eq(mesh_load_hull(path, mir, &h1, &e), CSIM_OK);
  check_hull(&h0, 1e-12);
  check_hull(&h1, 1e-12);
  ck_assert_double_gt(h1.volume, 0);
  ck_assert_double_eq_tol(h1.volume, h0.volume, 1e-12);
  ck_assert_double_eq_tol(h1.center[1], -h0.center[1], 1e-12);
  ck_assert_int_eq(h1.nvert, h0.nvert);
  // every mirrored vertex is a vertex of the unscaled hull
  int missing = 0;
  for (int i = 0; i < h1.nvert; i++) {
    int found = 0;
    for (int j = 0; j < h0.nvert && !found; j++)
      found = h1.vert[3 * i] == h0.vert[3 * j] && h1.vert[3 * i + 1] == -h0.vert[3 * j + 1] &&
              h1.vert[3 * i + 2] == h0.vert[3 * j + 2];
    missing += !found;
  }
  ck_assert_int_eq(missing, 0);
  mesh_hull_free(&h0);
  mesh_hull_free(&h1);
  // mirroring two axes (positive determinant) too
  double mir2[3] = {-1, -1, 1};
  ck_assert_int_eq(mesh_load_hull(path, mir2, &h1, &e), CSIM_OK);
  check_hull(&h1, 1e-12);
  mesh_hull_free(&h1);
  unlink(path);
  free(path);
}
END_TEST

// ASCII STL (several solids, odd spacing and case) and its errors with line numbers
START_TEST(ascii_stl) {
  const char* text =
      "solid first part\n"
      "  facet normal 0 0 -1\n    outer loop\n      vertex 0 0 0\n      vertex 0 3 0\n"
      "      vertex 2 0 0\n    endloop\n  endfacet\n"
      "  facet normal 0 -1 0 outer loop vertex 0 0 0 vertex 2 0 0 vertex 0 0 4 endloop endfacet\n"
      "endsolid first part\n"
      "SOLID second\r\n FACET NORMAL -1 0 0\r\n OUTER LOOP\r\n VERTEX 0 0 0\r\n VERTEX 0 0 4e0\r\n"
      " VERTEX 0 3. 0\r\n ENDLOOP\r\n ENDFACET\r\n"
      "facet normal .5 .5 .5\nouter loop\nvertex 2 0 0\nvertex 0 3 0\nvertex 0 0 +4\nendloop\n"
      "endfacet\nendsolid\n";
  char* path = write_temp(text, ".stl");
  expect_tet(path);
  double* tri;
  int ntri;
  csim_error e;
  mesh_hull h;
  ck_assert_int_eq(mesh_load_hull(path, NULL, &h, &e), CSIM_OK);
  ck_assert_double_eq_tol(h.volume, 4, 1e-12);
  mesh_hull_free(&h);
  unlink(path);
  free(path);
  // errors: a bad number (line 4), a missing keyword (line 3), a truncated file, no triangles
  struct {
    const char* text;
    int line;
    const char* frag;
  } bad[] = {
      {"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 abc\n", 4, "expected a number"},
      {"solid x\nfacet normal 0 0 1\nouter lop\n", 3, "expected 'loop'"},
      {"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n", 6, "vertex"},
      {"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n"
       "endloop\nendfacet\n", 9, "end of file"},
      {"solid empty\nendsolid empty\n", 3, "no triangles"},
      {"solid x\nfacet normal 0 0 1 outer loop vertex 1e999 0 0", 2, "expected a number"},
  };
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    path = write_temp(bad[k].text, ".stl");
    ck_assert_int_eq(mesh_read_stl(path, &tri, &ntri, &e), CSIM_ERR_INPUT);
    ck_assert_str_eq(e.file, path);
    ck_assert_msg(e.line == bad[k].line, "case %zu: line %d (%s)", k, e.line, e.msg);
    ck_assert_msg(strstr(e.msg, bad[k].frag), "case %zu: '%s'", k, e.msg);
    unlink(path);
    free(path);
  }
}
END_TEST

// other formats and missing files: errors naming the file
START_TEST(format_errors) {
  mesh_hull h;
  csim_error e;
  double* tri;
  int ntri;
  // a format csim does not read is refused by extension
  ck_assert_int_eq(mesh_load_hull("/nonexistent/part.dae", NULL, &h, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(e.file, "part.dae"));
  ck_assert_ptr_nonnull(strstr(e.msg, "'.dae'"));
  ck_assert_ptr_nonnull(strstr(e.msg, "STL and OBJ"));
  // ... and by content by mesh_read_stl
  ck_assert_int_eq(mesh_read_stl(ROBOTS "meshes/robots/solo_description/meshes/cube.obj", &tri,
                                 &ntri, &e),
                   CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "not an STL file"));
  // a COLLADA file renamed .stl
  char* path = write_temp("<?xml version=\"1.0\"?><COLLADA></COLLADA>", ".stl");
  ck_assert_int_eq(mesh_load_hull(path, NULL, &h, &e), CSIM_ERR_INPUT);
  ck_assert_str_eq(e.file, path);
  unlink(path);
  free(path);
  // missing
  ck_assert_int_eq(mesh_load_hull("/nonexistent/x.stl", NULL, &h, &e), CSIM_ERR_INPUT);
  ck_assert_str_eq(e.file, "/nonexistent/x.stl");
  ck_assert_ptr_nonnull(strstr(e.msg, "cannot open"));
  // a flat mesh: the hull error names the file
  float flat[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  path = write_binary_stl("flat", flat, 2, ".stl");
  ck_assert_int_eq(mesh_load_hull(path, NULL, &h, &e), CSIM_ERR_INPUT);
  ck_assert_str_eq(e.file, path);
  ck_assert_ptr_nonnull(strstr(e.msg, "coplanar"));
  unlink(path);
  free(path);
  mesh_hull_free(NULL);
}
END_TEST

// every collision mesh of a robot, through its URDF (with its scales): valid hulls, all input
// points inside; returns the number of meshes and the total triangles read
static void robot_meshes(const char* urdf, int expect_meshes, long* ntri_total) {
  urdf_options o = urdf_default_options();
  o.use_env = 0;
  urdf_robot* r;
  csim_error e;
  ck_assert_int_eq(urdf_load(urdf, &o, &r, &e), CSIM_OK);
  int nm = 0;
  *ntri_total = 0;
  for (int i = 0; i < r->nlink; i++)
    for (int g = 0; g < r->links[i].ngeom; g++) {
      const urdf_geom* G = &r->links[i].geoms[g];
      if (G->type != URDF_GEOM_MESH) continue;
      ck_assert_ptr_nonnull(G->path);
      mesh_hull h;
      csim_status st = mesh_load_hull(G->path, G->scale, &h, &e);
      ck_assert_msg(st == CSIM_OK, "%s: %s", G->path, e.msg);
      check_hull(&h, 1e-9);
      // the input points (scaled) lie inside
      double* tri;
      int ntri;
      ck_assert_int_eq(mesh_read_stl(G->path, &tri, &ntri, &e), CSIM_OK);
      for (int p = 0; p < 3 * ntri; p++)
        for (int k = 0; k < 3; k++) tri[3 * p + k] *= G->scale[k];
      check_contains(&h, tri, 3 * ntri, 7, 1e-9);
      *ntri_total += ntri;
      free(tri);
      mesh_hull_free(&h);
      nm++;
    }
  ck_assert_int_eq(nm, expect_meshes);
  urdf_free(r);
}

// solo12: 17 collision meshes (30k triangles) hulled (speed belongs to make bench, not here)
START_TEST(solo12_meshes) {
  long ntri;
  robot_meshes(ROBOTS "solo12/solo12.urdf", 17, &ntri);
  ck_assert_int_gt(ntri, 30000);
}
END_TEST

// ur5, panda, talos (mirrored scales included)
START_TEST(other_robot_meshes) {
  long ntri;
  robot_meshes(ROBOTS "ur5/ur5_robot.urdf", 7, &ntri);
  robot_meshes(ROBOTS "panda/panda.urdf", 9, &ntri);
  robot_meshes(ROBOTS "talos/talos_reduced.urdf", 47, &ntri);
  robot_meshes(ROBOTS "talos/talos_full_v2.urdf", 47, &ntri);
}
END_TEST

// run the mesh suite
//---------------------------------- OBJ ------------------------------------------------------

#define CUBE_OBJ ROBOTS "meshes/robots/solo_description/meshes/cube.obj"

// OBJ reader table: good inputs (triangle count, and the corners of the last triangle) and bad
// ones (line, column, a piece of the message)
typedef struct {
  const char* text;
  int ntri;              // > 0: accepted with this many triangles
  double last[9];        // the last triangle's corners
  int line, column;      // bad: where
  const char* msg;       // bad: in the message
} obj_row;

#define TRI3 "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
static const obj_row kObj[] = {
    {TRI3 "f 1 2 3\n", 1, {0, 0, 0, 1, 0, 0, 0, 1, 0}, 0, 0, NULL},
    {TRI3 "f 1/1 2/2 3/3", 1, {0, 0, 0, 1, 0, 0, 0, 1, 0}, 0, 0, NULL},
    {TRI3 "f 3//1 2//2 1//3\n", 1, {0, 1, 0, 1, 0, 0, 0, 0, 0}, 0, 0, NULL},
    {TRI3 "f 1/4/2 2/5/6 3/7/8\n", 1, {0, 0, 0, 1, 0, 0, 0, 1, 0}, 0, 0, NULL},
    {TRI3 "f -1 -3 -2\n", 1, {0, 1, 0, 0, 0, 0, 1, 0, 0}, 0, 0, NULL},
    // a pentagon fanned from its first corner: (1 2 3) (1 3 4) (1 4 5)
    {TRI3 "v 1 1 0\nv 2 2 2\nf 1 2 3 4 5\n", 3, {0, 0, 0, 1, 1, 0, 2, 2, 2}, 0, 0, NULL},
    // everything but v and f skipped; CRLF, tabs, comments, a w coordinate
    {"# c\r\nmtllib m.mtl\r\no Box\r\ng x\r\nvn 0 0 1\r\nvt 0 0\r\nusemtl m\r\ns off\r\n"
     "v\t0 0 0 1\r\nv 2e0 0 0\r\nv 0 .5 0\r\nl 1 2\r\nf 1 2 3\r\n", 1, {0, 0, 0, 2, 0, 0, 0, 0.5, 0},
     0, 0, NULL},
    {"v 0 x 0\n", 0, {0}, 1, 5, "expected a vertex coordinate"},
    {"v 0 0\nf 1 1 1\n", 0, {0}, 1, 6, "expected a vertex coordinate"},
    {"v 1e999 0 0\n", 0, {0}, 1, 3, "finite number"},
    {TRI3 "f 1 2 4\n", 0, {0}, 4, 7, "vertex index out of range (3 vertices so far)"},
    {TRI3 "f 0 1 2\n", 0, {0}, 4, 3, "out of range"},
    {TRI3 "f -4 -1 -2\n", 0, {0}, 4, 3, "out of range"},
    {TRI3 "f 1 2 99999999999\n", 0, {0}, 4, 7, "expected a face vertex"},
    {TRI3 "f 1 a 3\n", 0, {0}, 4, 5, "expected a face vertex"},
    {TRI3 "f 1 2/ 3 -\n", 0, {0}, 4, 10, "expected a face vertex"},  // ("2/": no texture index)
    {TRI3 "\nf 1 2\n", 0, {0}, 5, 1, "3 or more vertices (this one has 2)"},
    {TRI3, 0, {0}, 3, 0, "no faces (3 vertices)"},
    {"", 0, {0}, 0, 0, "no faces (0 vertices)"},
};

START_TEST(obj_reader_table) {
  const obj_row* r = &kObj[_i];
  double* tri = NULL;
  int ntri = -1;
  csim_error e;
  memset(&e, 0, sizeof(e));
  csim_status st = mesh_parse_obj("t.obj", r->text, strlen(r->text), &tri, &ntri, &e);
  if (r->ntri > 0) {
    ck_assert_msg(st == CSIM_OK, "row %d: %s:%d:%d: %s", _i, e.file, e.line, e.column, e.msg);
    ck_assert_int_eq(ntri, r->ntri);
    for (int k = 0; k < 9; k++) ck_assert_double_eq(tri[9 * (ntri - 1) + k], r->last[k]);
    free(tri);
    return;
  }
  ck_assert_int_eq(st, CSIM_ERR_INPUT);
  ck_assert_ptr_null(tri);
  ck_assert_str_eq(e.file, "t.obj");
  ck_assert_msg(e.line == r->line && e.column == r->column, "row %d: at %d:%d, expected %d:%d (%s)",
                _i, e.line, e.column, r->line, r->column, e.msg);
  ck_assert_msg(strstr(e.msg, r->msg) != NULL, "row %d: '%s' lacks '%s'", _i, e.msg, r->msg);
}
END_TEST

// the unit cube of solo12's cube.obj, scaled to a 2 x 3 x 4 box: the hull has 8 corners and the
// box's volume, and mesh_mass_props (MuJoCo's legacy rule: exact for a convex closed mesh) the
// closed forms of a box of sides a b c: V = abc, I_xx = V (b^2 + c^2) / 12, no products
START_TEST(obj_cube_mass) {
  csim_error e;
  const double s[3] = {2, 3, 4};
  mesh_hull h;
  ck_assert_msg(mesh_load_hull(CUBE_OBJ, s, &h, &e) == CSIM_OK, "%s", e.msg);
  ck_assert_int_eq(h.nvert, 8);
  ck_assert_double_eq_tol(h.volume, 24, 1e-12);
  mesh_hull_free(&h);
  double* tri = NULL;
  int ntri = 0;
  ck_assert_int_eq(mesh_read(CUBE_OBJ, &tri, &ntri, &e), CSIM_OK);
  ck_assert_int_eq(ntri, 12);
  mesh_mass mm;
  ck_assert_int_eq(mesh_mass_props(tri, ntri, s, &mm, &e), CSIM_OK);
  ck_assert_double_eq_tol(mm.volume, 24, 24e-14);
  for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(mm.com[k], 0, 1e-14);
  const double I[6] = {24 * (9 + 16) / 12.0, 24 * (4 + 16) / 12.0, 24 * (4 + 9) / 12.0, 0, 0, 0};
  for (int k = 0; k < 6; k++) ck_assert_double_eq_tol(mm.inertia[k], I[k], 1e-13 * I[0]);
  // the unit cube: V = 1, I = 1/6
  const double one[3] = {1, 1, 1};
  ck_assert_int_eq(mesh_mass_props(tri, ntri, one, &mm, &e), CSIM_OK);
  ck_assert_double_eq_tol(mm.volume, 1, 1e-14);
  for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(mm.inertia[k], 1.0 / 6, 1e-14);
  // a flat mesh has no volume: an error
  const double flat[3] = {1, 1, 0};
  ck_assert_int_eq(mesh_mass_props(tri, ntri, flat, &mm, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "too small"));
  free(tri);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mesh");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, cube_hull);
  tcase_add_test(tc, sphere_hull);
  tcase_add_test(tc, degenerate_clouds);
  tcase_add_test(tc, noisy_and_lattice_clouds);
  tcase_add_test(tc, binary_stl);
  tcase_add_test(tc, mirrored_scale);
  tcase_add_test(tc, ascii_stl);
  tcase_add_test(tc, format_errors);
  tcase_add_loop_test(tc, obj_reader_table, 0, (int)(sizeof(kObj) / sizeof(kObj[0])));
  tcase_add_test(tc, obj_cube_mass);
  tcase_add_test(tc, solo12_meshes);
  tcase_add_test(tc, other_robot_meshes);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
