// test_terrain.c — height-field terrain (terrain.h, collision_hfield.c) and the open-loop trot.
//
// Oracles: the plane's contacts (coll_plane_*, exact and tested in test_collision) for a flat
// field; closed forms for a sphere on a slope, in a V valley and on a ridge; the file format's
// rules for bad height files; the trot scenario's base displacement and height over a short run.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/collision/collision.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "core/spatial.h"
#include "io/terrain.h"
#include "support.h"

static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
static const double ORIGIN[3] = {0, 0, 0};

// a field of nx x ny vertices over [-sx/2, sx/2] x [-sy/2, sy/2] with heights h(x, y)
typedef struct {
  coll_hfield f;
  double size[3];
  double h[64 * 64];
} field;

static void make_field(field* F, int nx, int ny, double sx, double sy,
                       double (*fn)(double x, double y)) {
  ck_assert(nx * ny <= 64 * 64);
  F->f.nx = nx;
  F->f.ny = ny;
  F->f.dx = sx / (nx - 1);
  F->f.dy = sy / (ny - 1);
  F->size[0] = sx / 2;
  F->size[1] = sy / 2;
  F->size[2] = 0;
  F->f.hmin = INFINITY;
  F->f.hmax = -INFINITY;
  for (int iy = 0; iy < ny; iy++)
    for (int ix = 0; ix < nx; ix++) {
      double v = fn(-sx / 2 + ix * F->f.dx, -sy / 2 + iy * F->f.dy);
      F->h[iy * nx + ix] = v;
      F->f.hmin = fmin(F->f.hmin, v);
      F->f.hmax = fmax(F->f.hmax, v);
    }
  F->f.h = F->h;
}

static coll_geom hf_geom(const field* F, const double pos[3]) {
  coll_geom g = {MODEL_GEOM_HFIELD, F->size, pos, I3, NULL, 0.0, &F->f, NULL};
  return g;
}

static coll_geom shape(int type, const double* size, const double* pos, const double* mat) {
  coll_geom g = {type, size, pos, mat, NULL, 0.0, NULL, NULL};
  return g;
}

static double flat(double x, double y) { (void)x; (void)y; return 0.0; }
#define SLOPE 0.3
static double slope(double x, double y) { (void)y; return SLOPE * x; }
static double valley(double x, double y) { (void)y; return SLOPE * fabs(x); }
static double ridge(double x, double y) { (void)y; return -SLOPE * fabs(x); }

// deterministic pseudo-random numbers in [0, 1)
static unsigned long long rng = 12345;
static double urand(void) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1.0p-53;
}

static void rot(double R[9], double ax, double ay, double az, double angle) {
  double n = sqrt(ax * ax + ay * ay + az * az), s = sin(angle / 2) / n;
  double q[4] = {ax * s, ay * s, az * s, cos(angle / 2)};
  sp_quat2mat(R, q);
}

// contacts a and b (na, nb of them) are the same set, matched by feature
static void same_contacts(const coll_contact* a, int na, const coll_contact* b, int nb,
                          double tol) {
  ck_assert_int_eq(na, nb);
  for (int i = 0; i < na; i++) {
    int j = 0;
    while (j < nb && b[j].feature != a[i].feature) j++;
    ck_assert_msg(j < nb, "feature %d not found", a[i].feature);
    ck_assert_double_eq_tol(a[i].depth, b[j].depth, tol);
    for (int k = 0; k < 3; k++) {
      ck_assert_double_eq_tol(a[i].pos[k], b[j].pos[k], tol);
      ck_assert_double_eq_tol(a[i].normal[k], b[j].normal[k], tol);
    }
  }
}

//---------------------------------- flat field = plane ----------------------------------------

START_TEST(flat_field_matches_plane) {
  static field F;
  make_field(&F, 11, 9, 2.0, 1.6, flat);
  double base[3] = {0.05, -0.02, 0.1};   // the field's zero at z = 0.1, off the origin
  coll_geom hf = hf_geom(&F, base);
  double psz[3] = {0, 0, 0};
  coll_geom pl = shape(MODEL_GEOM_PLANE, psz, base, I3);
  coll_contact a[8], b[8];
  int checked[4] = {0, 0, 0, 0};
  for (int trial = 0; trial < 400; trial++) {
    // positions across cells, on cell edges and vertices (every 4th trial), and beyond the grid
    double pos[3] = {-1.4 + 2.8 * urand(), -1.1 + 2.2 * urand(), 0};
    if (trial % 4 == 0) {
      pos[0] = base[0] - 1.0 + 0.2 * floor(urand() * 11);
      pos[1] = base[1] - 0.8 + 0.2 * floor(urand() * 9);
    }
    double R[9];
    rot(R, urand() - 0.5, urand() - 0.5, urand() - 0.5, trial % 3 == 0 ? 0.0 : 3 * urand());
    // sphere
    double ss[3] = {0.1, 0, 0};
    pos[2] = base[2] + 0.1 - 0.01 * urand();
    coll_geom s = shape(MODEL_GEOM_SPHERE, ss, pos, R);
    int na = coll_collide(&pl, &s, a), nb = coll_collide(&hf, &s, b);
    ck_assert_int_eq(na, 1);
    same_contacts(a, na, b, nb, 1e-12);
    checked[0]++;
    // box: flat (trial % 3 == 0) or tilted; its lowest corner 0..5 mm below the ground
    double bs[3] = {0.08, 0.05, 0.03}, lo = 0;
    for (int k = 0; k < 3; k++) lo += fabs(R[6 + k]) * bs[k];
    pos[2] = base[2] + lo - 0.005 * urand();
    coll_geom bx = shape(MODEL_GEOM_BOX, bs, pos, R);
    na = coll_collide(&pl, &bx, a);
    nb = coll_collide(&hf, &bx, b);
    ck_assert_int_ge(na, 1);
    same_contacts(a, na, b, nb, 1e-12);
    checked[1]++;
    // capsule lying flat: both ends touch, as on the plane
    double cs[3] = {0.03, 0.1, 0}, Rc[9];
    rot(Rc, 1, 0, 0, M_PI / 2);
    pos[2] = base[2] + 0.03 - 0.002;
    coll_geom cp = shape(MODEL_GEOM_CAPSULE, cs, pos, Rc);
    na = coll_collide(&pl, &cp, a);
    nb = coll_collide(&hf, &cp, b);
    ck_assert_int_eq(na, 2);
    // the capsule's contacts include the plane's two ends (plus samples along it, as deep)
    for (int i = 0; i < na; i++) {
      int found = 0;
      for (int j = 0; j < nb; j++)
        found |= sp_dot3(a[i].normal, b[j].normal) > 1 - 1e-12 &&
                 fabs(a[i].depth - b[j].depth) < 1e-12 && fabs(a[i].pos[0] - b[j].pos[0]) < 1e-12 &&
                 fabs(a[i].pos[1] - b[j].pos[1]) < 1e-12;
      ck_assert_msg(found || nb == COLL_HFIELD_MAX, "capsule end %d missing", i);
    }
    checked[2]++;
    // cylinder standing on its cap and lying on its side: plane-cylinder's rim points, same ids
    double ys[3] = {0.04, 0.06, 0}, Ry[9];
    rot(Ry, 1, 0, 0, trial % 2 ? M_PI / 2 : 0.0);
    pos[2] = base[2] + (trial % 2 ? 0.04 : 0.06) - 0.003 * urand();
    coll_geom cy = shape(MODEL_GEOM_CYLINDER, ys, pos, Ry);
    na = coll_collide(&pl, &cy, a);
    nb = coll_collide(&hf, &cy, b);
    ck_assert_int_eq(na, trial % 2 ? 2 : 4);
    same_contacts(a, na, b, nb, 1e-12);
    checked[3]++;
  }
  ck_assert_int_eq(checked[0] + checked[1] + checked[2] + checked[3], 1600);
}
END_TEST

// a box sliding across cells keeps its contact ids (corner codes), so warm starts carry over
START_TEST(box_ids_stable_across_cells) {
  static field F;
  make_field(&F, 21, 21, 2.0, 2.0, flat);
  coll_geom hf = hf_geom(&F, ORIGIN);
  double bs[3] = {0.05, 0.05, 0.05};
  int first[8], nfirst = -1;
  for (double x = -0.5; x <= 0.5; x += 0.0137) {
    double pos[3] = {x, 0.3 * x, 0.05 - 1e-4};
    coll_geom bx = shape(MODEL_GEOM_BOX, bs, pos, I3);
    coll_contact c[8];
    int n = coll_collide(&hf, &bx, c);
    ck_assert_int_eq(n, 4);
    int ids[8];
    for (int i = 0; i < n; i++) ids[i] = c[i].feature;
    if (nfirst < 0) {
      nfirst = n;
      memcpy(first, ids, sizeof(ids));
    }
    for (int i = 0; i < n; i++) {
      int found = 0;
      for (int j = 0; j < nfirst; j++) found |= ids[i] == first[j];
      ck_assert_msg(found, "id %d at x = %g is new", ids[i], x);
      ck_assert_double_eq_tol(c[i].depth, 1e-4, 1e-15);
    }
  }
}
END_TEST

//---------------------------------- closed forms ----------------------------------------------

// a sphere above the plane z = SLOPE x: normal (-s, 0, 1)/sqrt(1 + s^2), depth r - distance
START_TEST(sphere_on_slope) {
  static field F;
  make_field(&F, 9, 9, 2.0, 2.0, slope);
  coll_geom hf = hf_geom(&F, ORIGIN);
  double r = 0.1, ss[3] = {r, 0, 0}, k = sqrt(1 + SLOPE * SLOPE);
  for (int trial = 0; trial < 200; trial++) {
    double x = -0.6 + 1.2 * urand(), y = -0.6 + 1.2 * urand();
    double depth = 0.02 * urand();
    // centre at distance r - depth from the plane along its normal
    double pos[3] = {x - SLOPE * (r - depth) / k, y, SLOPE * x + (r - depth) / k};
    coll_geom s = shape(MODEL_GEOM_SPHERE, ss, pos, I3);
    coll_contact c[8];
    int n = coll_collide(&hf, &s, c);
    ck_assert_int_eq(n, 1);
    ck_assert_double_eq_tol(c[0].normal[0], -SLOPE / k, 1e-12);
    ck_assert_double_eq_tol(c[0].normal[1], 0, 1e-12);
    ck_assert_double_eq_tol(c[0].normal[2], 1 / k, 1e-12);
    ck_assert_double_eq_tol(c[0].depth, depth, 1e-12);
    ck_assert_int_eq(c[0].feature, 0);
  }
  // a box resting flat on the slope (rotated to it): 4 corners at the same depth
  double R[9], bs[3] = {0.05, 0.04, 0.03};
  rot(R, 0, 1, 0, -atan(SLOPE));
  double d = 0.001, x = 0.1;
  double pos[3] = {x - SLOPE * (bs[2] - d) / k, 0.05, SLOPE * x + (bs[2] - d) / k};
  coll_geom bx = shape(MODEL_GEOM_BOX, bs, pos, R);
  coll_contact c[8];
  int n = coll_collide(&hf, &bx, c);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, d, 1e-12);
    ck_assert_double_eq_tol(c[i].normal[0], -SLOPE / k, 1e-12);
  }
}
END_TEST

// a sphere in the V valley z = s|x| centred over the crease: two contacts, one per face, each
// with that face's normal and depth r - h/sqrt(1+s^2) for centre height h; on the ridge
// z = -s|x|: one contact (the crease edge), normal +z, depth r - h
START_TEST(sphere_valley_and_ridge) {
  static field F;
  make_field(&F, 9, 9, 2.0, 2.0, valley);
  coll_geom hf = hf_geom(&F, ORIGIN);
  double r = 0.1, ss[3] = {r, 0, 0}, k = sqrt(1 + SLOPE * SLOPE), h = 0.09;
  double pos[3] = {0, 0.1, h};
  coll_geom s = shape(MODEL_GEOM_SPHERE, ss, pos, I3);
  coll_contact c[8];
  int n = coll_collide(&hf, &s, c);
  ck_assert_int_eq(n, 2);
  double sx = 0;
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, r - h / k, 1e-12);
    ck_assert_double_eq_tol(fabs(c[i].normal[0]), SLOPE / k, 1e-12);
    ck_assert_double_eq_tol(c[i].normal[2], 1 / k, 1e-12);
    sx += c[i].normal[0];
  }
  ck_assert_double_eq_tol(sx, 0, 1e-12);
  static field G;
  make_field(&G, 9, 9, 2.0, 2.0, ridge);
  coll_geom hr = hf_geom(&G, ORIGIN);
  n = coll_collide(&hr, &s, c);
  ck_assert_int_eq(n, 1);
  ck_assert_double_eq_tol(c[0].depth, r - h, 1e-12);
  ck_assert_double_eq_tol(c[0].normal[2], 1, 1e-12);
  // a box in the valley: its bottom corners over the faces, 2 mm below them vertically, depth
  // 2 mm / sqrt(1 + s^2) along each face's normal (tilted towards the crease)
  double bs[3] = {0.1, 0.05, 0.05}, bp[3] = {0, 0.1, 0.05 + SLOPE * 0.1 - 0.002};
  coll_geom bx = shape(MODEL_GEOM_BOX, bs, bp, I3);
  n = coll_collide(&hf, &bx, c);
  ck_assert_int_eq(n, 4);
  for (int i = 0; i < n; i++) {
    ck_assert_double_eq_tol(c[i].depth, 0.002 / k, 1e-12);
    ck_assert_double_eq_tol(c[i].normal[0] * c[i].pos[0], -SLOPE / k * fabs(c[i].pos[0]), 1e-12);
  }
}
END_TEST

//---------------------------------- random fields and files -----------------------------------

START_TEST(random_field_seeded) {
  double size[2] = {1.0, 0.6};
  terrain_grid a, b, c;
  csim_error err;
  ck_assert_int_eq(terrain_random(7, 0.05, 0.1, size, &a, &err), CSIM_OK);
  ck_assert_int_eq(terrain_random(7, 0.05, 0.1, size, &b, &err), CSIM_OK);
  ck_assert_int_eq(terrain_random(8, 0.05, 0.1, size, &c, &err), CSIM_OK);
  ck_assert_int_eq(a.nx, 11);
  ck_assert_int_eq(a.ny, 7);
  int differ = 0;
  for (int i = 0; i < a.nx * a.ny; i++) {
    int ix = i % a.nx, iy = i / a.nx;
    ck_assert(a.h[i] == b.h[i]);
    differ |= a.h[i] != c.h[i];
    ck_assert(a.h[i] >= 0 && a.h[i] <= 0.05);
    if (ix == 0 || iy == 0 || ix == a.nx - 1 || iy == a.ny - 1) ck_assert(a.h[i] == 0);
  }
  ck_assert(differ);
  terrain_free(&a);
  terrain_free(&b);
  terrain_free(&c);
}
END_TEST

// a scenario with a height field from a file; returns sim_create's status and the error
static csim_status load_hf(const char* dir, const char* file_text, const char* extra,
                           csim_error* err) {
  char path[512], yaml[2048], name[600];
  snprintf(path, sizeof(path), "%s/h.txt", dir);
  if (file_text) {
    FILE* f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(file_text, f);
    fclose(f);
  } else {
    unlink(path);
  }
  char cwd[400];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
  snprintf(yaml, sizeof(yaml),
           "world: {ground: {type: heightfield, file: %s%s}}\n"
           "robots:\n  - {urdf: %s/robots/cube.urdf, base: free, q0: [0, 0, 0.2, 0, 0, 0, 1]}\n"
           "integrator: {dt: 0.001, duration: 0.01}\n",
           path, *extra ? extra : ", size: [1, 1]", cwd);
  snprintf(name, sizeof(name), "%s/s.yaml", dir);
  scn_config* cfg = NULL;
  csim_status st = scn_load_string(yaml, name, NULL, 0, &cfg, err);
  if (st == CSIM_OK) {
    sim* s = NULL;
    st = sim_create(cfg, &s, err);
    sim_free(s);
  }
  scn_free(cfg);
  return st;
}

// bad height inputs: each exits 2 (CSIM_ERR_INPUT) naming file, line, column and key
START_TEST(bad_height_inputs) {
  char dir[] = P_tmpdir "/csim_hf_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const struct {
    const char* text;    // height file (NULL: missing)
    const char* extra;   // more world.ground keys
    const char* key;     // key named
    int in_hfile;        // 1: the error is in the height file (else in the scenario)
    int line, column;    // expected position (0: any > 0)
    const char* says;    // part of the message
  } cases[] = {
      {NULL, "", "world.ground.file", 0, 0, 0, "height field"},
      {"0 0 0\n0 0\n", "", "world.ground.file", 1, 2, 0, "wrong row length"},
      {"0 0\n0 0 0\n", "", "world.ground.file", 1, 2, 5, "wrong row length"},
      {"0, 0\n0, nan\n", "", "world.ground.file", 1, 2, 4, "finite"},
      {"# one row only\n0 0 0\n", "", "world.ground.file", 1, 0, 0, "wrong size"},
      {"0 0\n0 x\n", "", "world.ground.file", 1, 2, 3, "expected a height"},
      {"0 0\n0 1e999\n", "", "world.ground.file", 1, 2, 3, "finite"},
      {"0 0\n0 0\n", ", size: [1]", "world.ground.size", 0, 1, 0, "size_x"},
      {"0 0\n0 0\n", ", size: [1, 0]", "world.ground.size", 0, 1, 0, "size_x"},
      {"0 0\n0 0\n", ", size: [1, 1], seed: 3", "world.ground.seed", 0, 1, 0, "random"},
      {"0 0\n0 0\n", ", size: [1, 1], amplitude: 0.1", "world.ground.amplitude", 0, 1, 0, "random"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    csim_error err;
    err_clear(&err);
    csim_status st = load_hf(dir, cases[i].text, cases[i].extra, &err);
    char msg[2048];
    err_format(&err, msg, sizeof(msg));
    ck_assert_msg(st == CSIM_ERR_INPUT, "case %zu: status %d (%s)", i, st, msg);
    ck_assert_msg(!strcmp(err.key, cases[i].key), "case %zu: key '%s' (%s)", i, err.key, msg);
    ck_assert_msg(strstr(err.msg, cases[i].says), "case %zu: %s", i, msg);
    ck_assert_msg(strstr(err.file, cases[i].in_hfile ? "h.txt" : "s.yaml"), "case %zu: %s", i,
                  msg);
    ck_assert_msg(err.line > 0, "case %zu: no line (%s)", i, msg);
    if (cases[i].line) ck_assert_msg(err.line == cases[i].line, "case %zu: %s", i, msg);
    if (cases[i].column) ck_assert_msg(err.column == cases[i].column, "case %zu: %s", i, msg);
    else ck_assert_msg(err.column > 0 || cases[i].in_hfile, "case %zu: no column (%s)", i, msg);
  }
  // a good file loads, and a cube resting on it matches the plane (heights all 0.0)
  csim_error err;
  ck_assert_int_eq(load_hf(dir, "# flat\n0, 0, 0\n0 0 0\n", "", &err), CSIM_OK);
  char p[600];
  snprintf(p, sizeof(p), "%s/h.txt", dir);
  unlink(p);
  rmdir(dir);
}
END_TEST

//---------------------------------- scenarios -------------------------------------------------

// run a scenario for the library, returning the final q (nq values) and the lowest base z
static void run_scenario(const char* path, const char* const* ov, int nov, double* q, int nq,
                         double* zmin, double* x1s) {
  scn_config* cfg = NULL;
  csim_error err;
  csim_status st = scn_load(path, ov, nov, &cfg, &err);
  char msg[2048];
  err_format(&err, msg, sizeof(msg));
  ck_assert_msg(st == CSIM_OK, "%s", msg);
  sim* s = NULL;
  st = sim_create(cfg, &s, &err);
  err_format(&err, msg, sizeof(msg));
  ck_assert_msg(st == CSIM_OK, "%s", msg);
  ck_assert_int_eq(s->model.m->nq, nq);
  long nsteps = lround(cfg->duration / cfg->dt);
  *zmin = INFINITY;
  for (long k = 0; k < nsteps; k++) {
    sim_stepinfo info;
    ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
    *zmin = fmin(*zmin, s->data.d->q[2]);
    if (x1s && k + 1 == lround(1.0 / cfg->dt)) *x1s = s->data.d->q[0];
  }
  memcpy(q, s->data.d->q, sizeof(double) * (size_t)nq);
  sim_free(s);
  scn_free(cfg);
}

// Solo-12 (mesh feet) standing on a flat height field moves exactly as on the plane
START_TEST(solo_on_flat_field_matches_plane) {
  double qa[19], qb[19], za, zb;
  // one solver for both (solver.name auto may hand a stalled island to ADMM in one run only)
  const char* ov_plane[] = {"integrator.duration=0.3", "solver.name=pgs"};
  const char* ov_hf[] = {"integrator.duration=0.3", "world.ground.type=heightfield",
                         "world.ground.amplitude=0", "world.ground.resolution=0.07",
                         "solver.name=pgs"};
  run_scenario("scenarios/solo12_stand.yaml", ov_plane, 2, qa, 19, &za, NULL);
  run_scenario("scenarios/solo12_stand.yaml", ov_hf, 5, qb, 19, &zb, NULL);
  for (int i = 0; i < 19; i++) ck_assert_double_eq_tol(qa[i], qb[i], 1e-9);
}
END_TEST

// the open-loop trot walks forward: more than TROT_MIN_DX in 1 s with the base above TROT_MIN_Z
#define TROT_MIN_DX 0.2
#define TROT_MIN_Z 0.18
START_TEST(trot_walks_forward) {
  double q[19], zmin, x1;
  const char* ov[] = {"integrator.duration=1.0"};
  run_scenario("scenarios/solo12_trot.yaml", ov, 1, q, 19, &zmin, &x1);
  ck_assert_msg(q[0] > TROT_MIN_DX, "base x after 1 s: %g m", q[0]);
  ck_assert_msg(zmin > TROT_MIN_Z, "lowest base height %g m", zmin);
  // a stand-still control: the same robot with the gait's amplitudes at 0 does not walk
  const char* ov0[] = {"integrator.duration=1.0", "actions.0.amp=0"};
  run_scenario("scenarios/solo12_trot.yaml", ov0, 2, q, 19, &zmin, &x1);
  ck_assert_msg(fabs(q[0]) < 0.02, "base x standing: %g m", q[0]);
}
END_TEST

static Suite* terrain_suite(void) {
  Suite* s = suite_create("terrain");
  TCase* t = tcase_create("heightfield");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, flat_field_matches_plane);
  tcase_add_test(t, box_ids_stable_across_cells);
  tcase_add_test(t, sphere_on_slope);
  tcase_add_test(t, sphere_valley_and_ridge);
  tcase_add_test(t, random_field_seeded);
  tcase_add_test(t, bad_height_inputs);
  tcase_add_test(t, solo_on_flat_field_matches_plane);
  tcase_add_test(t, trot_walks_forward);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return run_suite(terrain_suite());
}
