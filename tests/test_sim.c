// test_sim.c — the time step (sim.h) against exact solutions of its own discrete equations and
// against conservation laws, through the library API: scn_load_string -> sim_create -> sim_step.
//
// Scenarios are inline YAML; their name "test_sim.yaml" puts the scenario directory at the
// current directory (tests run from the repo root), so robots/cube.urdf resolves in the repo.
// Bodies csim does not ship (an anisotropic box, a ball) are written as URDFs into a mkdtemp
// directory under the system temporary directory (P_tmpdir), removed afterwards.
//
// The cube: 1 kg, 10 cm, inertia m a^2/6 = 1/600 kg m^2 about every axis, free base
// q = [x y z qx qy qz qw], v = [com velocity in world axes; angular velocity in body axes].
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/compliant/compliant.h"
#include "core/contact.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "scene_fixture.h"
#include "support.h"

#define G 9.81
#define CUBE_I (1.0 / 600.0)

//---------------------------------- allocation counting ---------------------------------------
// sim_step must not allocate. The test binary replaces malloc and its family (glibc supports
// replacing the allocator by defining these functions in the program: glibc manual, "Replacing
// malloc") with a counting bump allocator on mmap'd memory that never reuses blocks. Every
// allocation anywhere in the process is counted, including a malloc immediately freed again
// (which mallinfo2 before/after would not see). Under AddressSanitizer the sanitizer owns
// malloc, so the replacement is left out and that one check is skipped with a note.

#ifndef CSIM_TEST_ASAN
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <sys/mman.h>

static atomic_long g_nalloc;              // allocations so far
static atomic_long g_nbytes;              // bytes asked for so far
static atomic_flag g_lock = ATOMIC_FLAG_INIT;
static unsigned char* g_chunk;            // current mmap'd chunk
static size_t g_used, g_size;             // bytes used / size of the current chunk

#define HDR 16  // block header: the block's size, keeping 16-byte alignment

// bump-allocate n bytes aligned to `align` (a power of two >= 16) with a header before them
static void* bump(size_t n, size_t align) {
  if (n > ((size_t)1 << 40) || align > ((size_t)1 << 20)) return NULL;
  atomic_fetch_add(&g_nalloc, 1);
  atomic_fetch_add(&g_nbytes, (long)n);
  size_t need = n + HDR + align;
  while (atomic_flag_test_and_set(&g_lock)) {
  }
  if (!g_chunk || g_used + need > g_size) {
    size_t sz = need > ((size_t)64 << 20) ? need : ((size_t)64 << 20);
    void* p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) {
      atomic_flag_clear(&g_lock);
      return NULL;
    }
    g_chunk = p;
    g_size = sz;
    g_used = 0;
  }
  uintptr_t base = (uintptr_t)(g_chunk + g_used) + HDR;
  uintptr_t user = (base + align - 1) & ~(uintptr_t)(align - 1);
  g_used = (size_t)(user - (uintptr_t)g_chunk) + n;
  atomic_flag_clear(&g_lock);
  ((size_t*)user)[-1] = n;
  return (void*)user;
}

// the size recorded in a block's header
static size_t block_size(const void* p) {
  return ((const size_t*)p)[-1];
}

void* malloc(size_t n) {
  void* p = bump(n, 16);
  if (!p) errno = ENOMEM;
  return p;
}

void free(void* p) {
  (void)p;  // blocks are never reused: a test process is short-lived
}

void* calloc(size_t a, size_t b) {
  if (b && a > (size_t)-1 / b) {
    errno = ENOMEM;
    return NULL;
  }
  void* p = malloc(a * b);
  if (p) memset(p, 0, a * b);
  return p;
}

void* realloc(void* p, size_t n) {
  void* q = malloc(n);
  if (q && p) {
    size_t old = block_size(p);
    memcpy(q, p, old < n ? old : n);
  }
  return q;
}

void* memalign(size_t align, size_t n) {
  void* p = bump(n, align < 16 ? 16 : align);
  if (!p) errno = ENOMEM;
  return p;
}

void* aligned_alloc(size_t align, size_t n) {
  return memalign(align, n);
}

int posix_memalign(void** out, size_t align, size_t n) {
  void* p = memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

void* valloc(size_t n) {
  return memalign(4096, n);
}

void* pvalloc(size_t n) {
  return memalign(4096, (n + 4095) & ~(size_t)4095);
}

size_t malloc_usable_size(void* p) {
  return p ? block_size(p) : 0;
}
#endif

//---------------------------------- helpers ---------------------------------------------------

// one step that must succeed
static void step(fixture* f, sim_stepinfo* info) {
  csim_error err;
  err_clear(&err);
  memset(info, 0, sizeof(*info));
  csim_status st = sim_step(f->s, info, &err);
  ck_assert_msg(st == CSIM_OK, "sim_step %ld: %s", f->s->data.step, err.msg);
}

// a cube scenario on the ground plane; the caller fills the parts that vary
//   q0, v0: 7 and 6 numbers as YAML lists; contact: the contact map's content
static void cube_yaml(char* buf, size_t n, const char* q0, const char* v0, const char* contact,
                      double tol, int maxit, int warm, double duration) {
  snprintf(buf, n,
           "name: test_sim\n"
           "world: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
           "robots:\n"
           "  - urdf: robots/cube.urdf\n"
           "    base: free\n"
           "    q0: %s\n"
           "    v0: %s\n"
           "contact: {model: ncp, %s}\n"
           "solver: {name: pgs, tolerance: %g, max_iterations: %d, warm_start: %s}\n"
           "integrator: {dt: 1.0e-3, duration: %g}\n",
           q0, v0, contact, tol, maxit, warm ? "true" : "false", duration);
}

// the sim of cube_yaml's scenario
static fixture cube_fixture(const char* q0, const char* v0, const char* contact, double tol,
                            int maxit, int warm, double duration) {
  char y[2048];
  cube_yaml(y, sizeof(y), q0, v0, contact, tol, maxit, warm, duration);
  return fixture_text(y, "test_sim.yaml", NULL, 0);
}

// rotation matrix (row-major) of a unit quaternion [x y z w]
static void quat_to_mat(const double* q, double R[9]) {
  double x = q[0], y = q[1], z = q[2], w = q[3];
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - z * w);     R[2] = 2 * (x * z + y * w);
  R[3] = 2 * (x * y + z * w);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - x * w);
  R[6] = 2 * (x * z - y * w);     R[7] = 2 * (y * z + x * w);     R[8] = 1 - 2 * (x * x + y * y);
}

// world angular momentum R I w of a body with diagonal inertia I about its centre (at the origin)
static void ang_momentum(const double* q, const double* w, const double I[3], double L[3]) {
  double R[9], Iw[3] = {I[0] * w[0], I[1] * w[1], I[2] * w[2]};
  quat_to_mat(q + 3, R);
  for (int r = 0; r < 3; r++) L[r] = R[3 * r] * Iw[0] + R[3 * r + 1] * Iw[1] + R[3 * r + 2] * Iw[2];
}

// energy of a single free body with its centre at the frame origin: 1/2 m |v|^2 + 1/2 w'Iw + m g z
static double body_energy(const double* q, const double* v, double m, const double I[3],
                          double g) {
  double ke = 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
              0.5 * (I[0] * v[3] * v[3] + I[1] * v[4] * v[4] + I[2] * v[5] * v[5]);
  return ke + m * g * q[2];
}

// URDF of one free body: a box (a b c) or a sphere (radius a), with exact inertia about its centre
static void body_urdf(char* buf, size_t n, const char* name, double mass, int sphere, double a,
                      double b, double c) {
  double ixx, iyy, izz;
  char geom[128];
  if (sphere) {
    ixx = iyy = izz = 0.4 * mass * a * a;
    snprintf(geom, sizeof(geom), "<sphere radius=\"%.17g\"/>", a);
  } else {
    ixx = mass * (b * b + c * c) / 12;
    iyy = mass * (a * a + c * c) / 12;
    izz = mass * (a * a + b * b) / 12;
    snprintf(geom, sizeof(geom), "<box size=\"%.17g %.17g %.17g\"/>", a, b, c);
  }
  snprintf(buf, n,
           "<?xml version=\"1.0\"?>\n<robot name=\"%s\">\n  <link name=\"%s\">\n"
           "    <inertial><origin xyz=\"0 0 0\" rpy=\"0 0 0\"/><mass value=\"%.17g\"/>\n"
           "      <inertia ixx=\"%.17g\" ixy=\"0\" ixz=\"0\" iyy=\"%.17g\" iyz=\"0\" izz=\"%.17g\"/>"
           "</inertial>\n"
           "    <collision><origin xyz=\"0 0 0\" rpy=\"0 0 0\"/><geometry>%s</geometry></collision>\n"
           "  </link>\n</robot>\n",
           name, name, mass, ixx, iyy, izz, geom);
}

// FNV-1a over bytes
static uint64_t fnv(uint64_t h, const void* p, size_t n) {
  const unsigned char* b = p;
  for (size_t k = 0; k < n; k++) {
    h ^= b[k];
    h *= 1099511628211ull;
  }
  return h;
}

//---------------------------------- sliding with Coulomb friction -----------------------------

// a cube launched at v0 = 1 m/s on a plane with mu = 0.3: the discrete equations are
// v_{k+1} = max(v_k - mu g dt, 0), y_{k+1} = y_k + v_{k+1} dt (semi-implicit Euler); the step
// must reproduce them to rounding, and the stop lies within v0 dt of v0^2 / (2 mu g)
START_TEST(slide_decelerates_at_mu_g) {
  fixture f = cube_fixture("[0, 0, 0.05, 0, 0, 0, 1]", "[0, 1, 0, 0, 0, 0]",
                           "friction: 0.3, restitution: 0, baumgarte: 0", 1e-12, 10000, 1, 1);
  const double mu = 0.3, dt = 1e-3, v0 = 1;
  double vref = v0, yref = 0;
  int sliding_steps = 0, stop_step = -1;
  sim_stepinfo info;
  for (int k = 0; k < 500; k++) {
    double vk = f.s->data.d->v[1];
    step(&f, &info);
    double vk1 = f.s->data.d->v[1];
    ck_assert_int_eq(info.ncon, 4);
    ck_assert_msg(info.solve.converged, "step %d: eps_abs %g", k, info.solve.eps_abs);
    // the reference recursion
    int slides = vref > mu * G * dt;
    vref = slides ? vref - mu * G * dt : 0;
    yref += vref * dt;
    if (slides) {
      sliding_steps++;
      ck_assert_msg(fabs((vk1 - vk) + mu * G * dt) < 1e-9, "step %d: dv = %.15g, expected %.15g",
                    k, vk1 - vk, -mu * G * dt);
    } else if (stop_step < 0) {
      stop_step = k;
    }
    ck_assert_msg(fabs(vk1 - vref) < 1e-9, "step %d: v = %.15g, expected %.15g", k, vk1, vref);
    ck_assert_msg(fabs(f.s->data.d->q[1] - yref) < 1e-9, "step %d: y = %.15g, expected %.15g", k,
                  f.s->data.d->q[1], yref);
    // no lateral, vertical or rotational motion
    ck_assert_msg(fabs(f.s->data.d->q[0]) < 1e-9 && fabs(f.s->data.d->q[2] - 0.05) < 1e-9,
                  "step %d: x %g z %g", k, f.s->data.d->q[0], f.s->data.d->q[2]);
    ck_assert_msg(fabs(f.s->data.d->q[3]) < 1e-9 && fabs(f.s->data.d->q[4]) < 1e-9 &&
                      fabs(f.s->data.d->q[5]) < 1e-9,
                  "step %d: rotated", k);
  }
  // 1 / (0.3 9.81 0.001) = 339.8: 339 decelerating steps, then at rest
  ck_assert_int_eq(sliding_steps, 339);
  ck_assert_int_eq(stop_step, 339);
  double d_cont = v0 * v0 / (2 * mu * G);
  ck_assert_msg(fabs(f.s->data.d->q[1] - d_cont) <= v0 * dt, "stopped at %.9g m, continuous %.9g m",
                f.s->data.d->q[1], d_cont);
  ck_assert(fabs(f.s->data.d->v[1]) < 1e-9);
  fixture_free(&f);
}
END_TEST

//---------------------------------- resting ---------------------------------------------------

// a cube at rest on the plane for 1 s: no net friction impulse, normal impulses carry the
// weight, every solve converged, no drift
START_TEST(box_rests) {
  fixture f = cube_fixture("[0, 0, 0.05, 0, 0, 0, 1]", "[0, 0, 0, 0, 0, 0]",
                           "friction: 0.5, restitution: 0, baumgarte: 0", 1e-12, 10000, 1, 1);
  const double dt = 1e-3, m = 1;
  sim_stepinfo info;
  double q0[7];
  memcpy(q0, f.s->data.d->q, sizeof(q0));
  for (int k = 0; k < 1000; k++) {
    step(&f, &info);
    const contact_data* c = f.s->data.con;
    ck_assert_int_eq(c->ncon, 4);
    ck_assert_msg(info.solve.eps_abs <= f.cfg->tolerance, "step %d: eps_abs %g > %g", k,
                  info.solve.eps_abs, f.cfg->tolerance);
    // the net tangential impulse (world) is zero and each impulse lies in its cone. Each
    // contact's lambda_T alone is not zero: internal tangential impulses (cancelling in pairs)
    // lie in the null space of J' for a box on 4 points and PGS settles on some (~0.3 lambda_N)
    double sum_n = 0, net[2] = {0, 0};
    for (int i = 0; i < c->ncon; i++) {
      const double* F = c->frame + 9 * i;  // rows t1, t2, n
      const double* l = c->lambda + 3 * i;
      ck_assert(l[2] >= 0);
      ck_assert(hypot(l[0], l[1]) <= 0.5 * l[2] * (1 + 1e-12));
      for (int r = 0; r < 2; r++) net[r] += l[0] * F[r] + l[1] * F[3 + r] + l[2] * F[6 + r];
      sum_n += l[0] * F[2] + l[1] * F[5] + l[2] * F[8];
    }
    // Tolerances: eps_abs <= tol bounds the complementarity |lambda_N c_N|, so a loaded contact
    // may keep a velocity up to tol / lambda_N = 1e-12 / 2.45e-3 = 4e-10 m/s; the net impulses
    // match zero and the weight to m times that (1e-7 of m g dt)
    ck_assert_msg(hypot(net[0], net[1]) < 1e-9, "step %d: net tangential impulse %g", k,
                  hypot(net[0], net[1]));
    ck_assert_msg(fabs(sum_n - m * G * dt) < 1e-9, "step %d: sum lambda_N = %.15g, m g dt = %.15g",
                  k, sum_n, m * G * dt);
  }
  for (int i = 0; i < 7; i++)
    ck_assert_msg(fabs(f.s->data.d->q[i] - q0[i]) < 1e-10, "q[%d] drifted by %g", i,
                  f.s->data.d->q[i] - q0[i]);
  for (int i = 0; i < 6; i++) ck_assert_msg(fabs(f.s->data.d->v[i]) < 1e-9, "v[%d] = %g", i, f.s->data.d->v[i]);
  ck_assert_double_eq_tol(f.s->data.d->time, 1.0, 1e-12);
  fixture_free(&f);
}
END_TEST

//---------------------------------- conservation ----------------------------------------------

// frictionless sliding: kinetic plus potential energy constant over 1000 steps
START_TEST(frictionless_slide_conserves_energy) {
  fixture f = cube_fixture("[0, 0, 0.05, 0, 0, 0, 1]", "[0.6, 0.8, 0, 0, 0, 0]",
                           "friction: 0, restitution: 0, baumgarte: 0", 1e-12, 10000, 1, 2);
  const double I[3] = {CUBE_I, CUBE_I, CUBE_I};
  double e0 = body_energy(f.s->data.d->q, f.s->data.d->v, 1, I, G);
  ck_assert_double_eq_tol(e0, 0.5 + G * 0.05, 1e-15);
  sim_stepinfo info;
  for (int k = 0; k < 1000; k++) {
    step(&f, &info);
    ck_assert_int_eq(info.ncon, 4);
    // the energy the step reports (at the start of the step) agrees with the independent one
    ck_assert_msg(fabs(info.kinetic + info.potential - e0) <= 1e-9 * e0, "step %d: reported %.15g",
                  k, info.kinetic + info.potential);
    double e = body_energy(f.s->data.d->q, f.s->data.d->v, 1, I, G);
    ck_assert_msg(fabs(e - e0) <= 1e-9 * e0, "step %d: energy %.15g, start %.15g", k, e, e0);
  }
  // it went straight on at 1 m/s for 1 s
  ck_assert_double_eq_tol(f.s->data.d->q[0], 0.6, 1e-9);
  ck_assert_double_eq_tol(f.s->data.d->q[1], 0.8, 1e-9);
  fixture_free(&f);
}
END_TEST

// spin about a principal axis in zero gravity: w constant, q = q0 exp(w t) exactly (SE(3)
// exponential), energy and world angular momentum conserved
static void check_spin(const char* yaml, const char* name, const double I[3], const double w[3],
                       double m) {
  fixture f = fixture_text(yaml, name, NULL, 0);
  const double dt = 1e-3;
  double L0[3], L[3], e0 = body_energy(f.s->data.d->q, f.s->data.d->v, m, I, 0);
  ang_momentum(f.s->data.d->q, f.s->data.d->v + 3, I, L0);
  double nl0 = sqrt(L0[0] * L0[0] + L0[1] * L0[1] + L0[2] * L0[2]);
  sim_stepinfo info;
  int n = 1000;
  for (int k = 0; k < n; k++) {
    step(&f, &info);
    ck_assert_int_eq(info.ncon, 0);
    for (int r = 0; r < 3; r++)
      ck_assert_msg(fabs(f.s->data.d->v[3 + r] - w[r]) < 1e-12, "step %d: w[%d] = %.17g", k, r,
                    f.s->data.d->v[3 + r]);
    double e = body_energy(f.s->data.d->q, f.s->data.d->v, m, I, 0);
    ck_assert_msg(fabs(e - e0) <= 1e-12 * e0, "step %d: energy %.17g vs %.17g", k, e, e0);
    ang_momentum(f.s->data.d->q, f.s->data.d->v + 3, I, L);
    for (int r = 0; r < 3; r++)
      ck_assert_msg(fabs(L[r] - L0[r]) <= 1e-12 * nl0, "step %d: L[%d] %.17g vs %.17g", k, r,
                    L[r], L0[r]);
  }
  // the scheme's exact rotation (stage.h: free flight turns by the Cayley map of the midpoint
  // angular velocity, which keeps E and L exact): angle 2 atan(|w| dt / 2) per step about
  // w/|w| (from the identity), a relative phase lag of (|w| dt)^2 / 12 against exp(t w)
  double nw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), th = 2 * atan(0.5 * nw * dt) * n;
  double qe[4] = {sin(th / 2) * w[0] / nw, sin(th / 2) * w[1] / nw, sin(th / 2) * w[2] / nw,
                  cos(th / 2)};
  double sgn = qe[3] * f.s->data.d->q[6] < 0 ? -1 : 1;  // q and -q are the same rotation
  for (int r = 0; r < 4; r++)
    ck_assert_msg(fabs(sgn * f.s->data.d->q[3 + r] - qe[r]) < 1e-11, "quaternion[%d] %.17g, exact %.17g",
                  r, sgn * f.s->data.d->q[3 + r], qe[r]);
  for (int r = 0; r < 3; r++) ck_assert(fabs(f.s->data.d->q[r]) < 1e-15);
  fixture_free(&f);
}

START_TEST(free_spin_is_exact) {
  // the cube: every axis is principal (isotropic inertia), so an oblique axis too
  const double Ic[3] = {CUBE_I, CUBE_I, CUBE_I};
  const double wc[3] = {5.0 / 3, 10.0 / 3, 10.0 / 3};
  const char* cube =
      "name: spin\n"
      "world: {gravity: [0, 0, 0], ground: {type: none}}\n"
      "robots:\n"
      "  - urdf: robots/cube.urdf\n"
      "    base: free\n"
      "    q0: [0, 0, 0, 0, 0, 0, 1]\n"
      "    v0: [0, 0, 0, 1.6666666666666667, 3.3333333333333335, 3.3333333333333335]\n"
      "solver: {tolerance: 1.0e-10}\n"
      "integrator: {dt: 1.0e-3, duration: 1}\n";
  check_spin(cube, "test_sim.yaml", Ic, wc, 1);

  // an anisotropic box (0.3 x 0.2 x 0.1 m, 2 kg) about each of its principal axes
  tmp_setup();  // g_tmp, support.h
  char urdf[2048], yaml[1024], name[300];
  body_urdf(urdf, sizeof(urdf), "slab", 2, 0, 0.3, 0.2, 0.1);
  tmp_write_text("slab.urdf", urdf);
  const double Ib[3] = {2 * (0.04 + 0.01) / 12, 2 * (0.09 + 0.01) / 12, 2 * (0.09 + 0.04) / 12};
  snprintf(name, sizeof(name), "%s/spin.yaml", g_tmp);
  for (int axis = 0; axis < 3; axis++) {
    double w[3] = {0, 0, 0};
    w[axis] = 7;
    snprintf(yaml, sizeof(yaml),
             "name: spin\n"
             "world: {gravity: [0, 0, 0], ground: {type: none}}\n"
             "robots:\n"
             "  - urdf: slab.urdf\n"
             "    base: free\n"
             "    q0: [0, 0, 0, 0, 0, 0, 1]\n"
             "    v0: [0, 0, 0, %g, %g, %g]\n"
             "integrator: {dt: 1.0e-3, duration: 1}\n",
             w[0], w[1], w[2]);
    check_spin(yaml, name, Ib, w, 2);
  }
  tmp_teardown();
}
END_TEST

//---------------------------------- impacts ---------------------------------------------------

// drop a body until its first impact ends: returns the largest downward speed before it (the
// impact velocity) in *v_impact and, in *v_after, the normal velocity once the contact impulses
// have stopped or reversed the fall (vz >= 0); the return value is the number of steps from the
// first contact impulse to that point (0 when one step does it)
static int drop(fixture* f, double* v_impact, double* v_after) {
  sim_stepinfo info;
  double vmax = 0;
  int first = -1;
  for (int k = 0; k < 3000; k++) {
    step(f, &info);
    ck_assert_msg(info.ncon == 0 || info.solve.converged, "step %ld: eps_abs %g", f->s->data.step,
                  info.solve.eps_abs);
    double vz = f->s->data.d->v[2], ln = 0;
    for (int i = 0; i < f->s->data.con->ncon; i++) ln += f->s->data.con->lambda[3 * i + 2];
    if (first < 0 && ln > 0) first = k;
    if (first < 0 && -vz > vmax) vmax = -vz;
    if (first >= 0 && vz > -1e-9) {
      *v_impact = vmax;
      *v_after = vz;
      return k - first;
    }
  }
  ck_assert_msg(0, "no impact found");
  return -1;
}

// restitution 0: the box stops at the impact and stays at rest on the plane
START_TEST(inelastic_drop_comes_to_rest) {
  fixture f = cube_fixture("[0, 0, 0.1, 0, 0, 0, 1]", "[0, 0, 0, 0, 0, 0]",
                           "friction: 0.5, restitution: 0, baumgarte: 0", 1e-12, 10000, 1, 1);
  double vi, va;
  int nimpact = drop(&f, &vi, &va);
  // fallen 5 cm: sqrt(2 g h) = 0.9905 m/s, to within the step's g dt
  ck_assert_msg(fabs(vi - sqrt(2 * G * 0.05)) <= G * 1e-3, "impact at %g m/s", vi);
  // the step that closes the last gap, then at rest (no bounce)
  ck_assert_int_le(nimpact, 1);
  ck_assert_msg(fabs(va) < 1e-9, "velocity after an inelastic impact %g", va);
  sim_stepinfo info;
  for (int k = 0; k < 300; k++) {
    step(&f, &info);
    ck_assert_int_eq(info.ncon, 4);
    // at rest: 1e-9 m/s, 1e-8 rad/s (5e-10 m/s at the corners)
    for (int i = 0; i < 6; i++)
      ck_assert_msg(fabs(f.s->data.d->v[i]) < (i < 3 ? 1e-9 : 1e-8), "step %d after impact: v[%d] = %g",
                    k, i, f.s->data.d->v[i]);
    ck_assert_msg(fabs(f.s->data.d->q[2] - 0.05) < 1e-9, "z = %.12g", f.s->data.d->q[2]);
  }
  fixture_free(&f);
}
END_TEST

// restitution e: the rebound normal velocity is e times the impact velocity (within g dt), for
// the box landing flat and for a ball, on the first and the second bounce
START_TEST(restitution_scales_rebound) {
  const double es[2] = {0.5, 0.8};
  for (int t = 0; t < 2; t++) {
    char c[128];
    snprintf(c, sizeof(c), "friction: 0.5, restitution: %g, baumgarte: 0", es[t]);
    fixture f = cube_fixture("[0, 0, 0.1, 0, 0, 0, 1]", "[0, 0, 0, 0, 0, 0]",
                             c, 1e-12, 10000, 1, 2);
    double vi, va;
    drop(&f, &vi, &va);
    ck_assert_msg(fabs(va - es[t] * vi) <= G * 1e-3, "box e = %g: impact %g m/s, rebound %g m/s",
                  es[t], vi, va);
    // second bounce: it comes back down at the rebound speed and bounces again. The flight is
    // exact (stage.h), so the speed at the launch height is the rebound speed; the impact is
    // taken in the first step that reaches the ground at its pre-step velocity, which at the
    // slower return can be up to two steps later than at the launch: two steps of g dt
    double va1 = va;
    drop(&f, &vi, &va);
    ck_assert_msg(fabs(vi - va1) <= 2 * G * 1e-3 + 1e-12, "box e = %g: up at %g, down at %g",
                  es[t], va1, vi);
    ck_assert_msg(fabs(va - es[t] * vi) <= G * 1e-3, "box e = %g, 2nd: impact %g, rebound %g",
                  es[t], vi, va);
    fixture_free(&f);
  }
  // a ball of radius 5 cm dropped from 20 cm above the plane
  tmp_setup();  // g_tmp, support.h
  char urdf[2048], yaml[1024], name[300];
  body_urdf(urdf, sizeof(urdf), "ball", 0.2, 1, 0.05, 0, 0);
  tmp_write_text("ball.urdf", urdf);
  snprintf(name, sizeof(name), "%s/ball.yaml", g_tmp);
  for (int t = 0; t < 2; t++) {
    snprintf(yaml, sizeof(yaml),
             "name: ball\n"
             "world: {gravity: [0, 0, -9.81], ground: {type: plane}}\n"
             "robots:\n"
             "  - urdf: ball.urdf\n"
             "    base: free\n"
             "    q0: [0, 0, 0.25, 0, 0, 0, 1]\n"
             "contact: {model: ncp, friction: 0.5, restitution: %g}\n"
             "solver: {tolerance: 1.0e-12, max_iterations: 10000}\n"
             "integrator: {dt: 1.0e-3, duration: 2}\n",
             es[t]);
    fixture f = fixture_text(yaml, name, NULL, 0);
    double vi, va;
    drop(&f, &vi, &va);
    ck_assert_msg(fabs(vi - sqrt(2 * G * 0.2)) <= G * 1e-3, "ball impact at %g m/s", vi);
    ck_assert_msg(fabs(va - es[t] * vi) <= G * 1e-3, "ball e = %g: impact %g, rebound %g", es[t],
                  vi, va);
    fixture_free(&f);
  }
  tmp_teardown();
}
END_TEST

//---------------------------------- determinism and allocation --------------------------------

// a tilted cube dropped with a sideways push: impacts, rolling and sliding in 600 steps
static const char* kTumble =
    "name: tumble\n"
    "world: {gravity: [0, 0, -9.81], ground: {type: plane}}\n"
    "robots:\n"
    "  - urdf: robots/cube.urdf\n"
    "    base: free\n"
    "    q0: [0, 0, 0.3, 0.14869, 0.09871, -0.01492, 0.98383]\n"
    "    v0: [0.5, 0, 0, 0, 0, 3]\n"
    "contact: {model: ncp, friction: 0.4, restitution: 0.2, baumgarte: 5}\n"
    "solver: {tolerance: 1.0e-8, max_iterations: 300}\n"
    "integrator: {dt: 1.0e-3, duration: 1}\n"
    "actions:\n"
    "  - {type: force, body: cube, direction: [0, 1, 0], profile: sine, magnitude: 1,\n"
    "     amplitude: 3, frequency: 2, start: 0.1}\n";

// hash of q, v and lambda over n steps of a fresh simulation
static uint64_t run_hash(int n, int* ncontact_steps) {
  fixture f = fixture_text(kTumble, "test_sim.yaml", NULL, 0);
  uint64_t h = 1469598103934665603ull;
  sim_stepinfo info;
  *ncontact_steps = 0;
  for (int k = 0; k < n; k++) {
    step(&f, &info);
    h = fnv(h, f.s->data.d->q, sizeof(double) * (size_t)f.s->model.m->nq);
    h = fnv(h, f.s->data.d->v, sizeof(double) * (size_t)f.s->model.m->nv);
    h = fnv(h, f.s->data.con->lambda, sizeof(double) * 3 * (size_t)f.s->data.con->ncon);
    if (info.ncon > 0) (*ncontact_steps)++;
  }
  fixture_free(&f);
  return h;
}

// two identical runs give bitwise-identical q, v, lambda at every step
START_TEST(deterministic) {
  int n1, n2;
  uint64_t a = run_hash(600, &n1), b = run_hash(600, &n2);
  ck_assert_msg(a == b, "hashes differ: %016llx vs %016llx", (unsigned long long)a,
                (unsigned long long)b);
  ck_assert_int_eq(n1, n2);
  ck_assert_int_gt(n1, 200);  // it did touch the ground for most of the run
}
END_TEST

static double mono_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// the stage timers (core/clock.c: the time-stamp counter where it is invariant) against
// clock_gettime, an independent clock: over a 50 ms sleep within 1 % (the calibration's error is
// some 1e-5), and over 600 steps every stage's time is >= 0, the three stages' sum at most the
// step's, the steps' sum at most the loop's wall time by clock_gettime
START_TEST(stage_timers_against_clock_gettime) {
  fixture f = fixture_text(kTumble, "test_sim.yaml", NULL, 0);  // its reset calibrates
  double a0 = clock_now(), m0 = mono_seconds();
  struct timespec nap = {0, 50000000};
  nanosleep(&nap, NULL);
  double a1 = clock_now(), m1 = mono_seconds();
  ck_assert_msg(fabs((a1 - a0) - (m1 - m0)) <= 0.01 * (m1 - m0), "stage clock %.6f s, "
                "clock_gettime %.6f s", a1 - a0, m1 - m0);
  sim_stepinfo info;
  double sum = 0, w0 = mono_seconds();
  for (int k = 0; k < 600; k++) {
    step(&f, &info);
    ck_assert(info.t_collision >= 0 && info.t_dynamics >= 0 && info.t_solve >= 0);
    ck_assert_double_le(info.t_collision + info.t_dynamics + info.t_solve, info.t_step * 1.0001);
    sum += info.t_step;
  }
  double wall = mono_seconds() - w0;
  ck_assert_msg(sum > 0 && sum <= wall * 1.01, "steps %.6f s, loop %.6f s", sum, wall);
  fixture_free(&f);
}
END_TEST

// sim_step allocates nothing: 1000 steps with impacts, contacts and an action
START_TEST(step_does_not_allocate) {
#ifdef CSIM_TEST_ASAN
  fprintf(stderr, "test_sim: step_does_not_allocate skipped under AddressSanitizer (it owns malloc)\n");
#else
  fixture f = fixture_text(kTumble, "test_sim.yaml", NULL, 0);
  sim_stepinfo info;
  step(&f, &info);  // first step outside the count
  // no Check assertion inside the loop: Check's own bookkeeping allocates
  csim_error err;
  err_clear(&err);
  int failed = -1, ncon = 0;
  long before = atomic_load(&g_nalloc);
  for (int k = 0; k < 1000 && failed < 0; k++) {
    if (sim_step(f.s, &info, &err) != CSIM_OK) failed = k;
    ncon += info.ncon;
  }
  long after = atomic_load(&g_nalloc);
  // the counter counts: one malloc is seen
  void* volatile p = malloc(24);
  long probe = atomic_load(&g_nalloc);
  free(p);
  ck_assert_msg(failed < 0, "step %d failed: %s", failed, err.msg);
  ck_assert_int_gt(ncon, 1000);
  ck_assert_msg(after == before, "%ld allocations in 1000 steps", after - before);
  ck_assert_int_eq(probe, after + 1);
  fixture_free(&f);
#endif
}
END_TEST

// contact.memory_budget is checked against contact_bytes, solver_bytes, cmpl_bytes and
// data_bytes: each must be what contact_create, solver_create, cmpl_create (implicit Euler: its
// own contact_data too) and data_create really ask the allocator for, byte for byte, at several
// sizes
START_TEST(buffer_bytes_are_what_is_allocated) {
#ifdef CSIM_TEST_ASAN
  fprintf(stderr, "test_sim: buffer_bytes_are_what_is_allocated skipped under AddressSanitizer\n");
#else
  fixture f = fixture_text(kTumble, "test_sim.yaml", NULL, 0);
  const char* y =
      "name: test_sim\n"
      "world: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
      "robots:\n"
      "  - {urdf: robots/cube.urdf, base: free, q0: [0, 0, 0.05, 0, 0, 0, 1]}\n"
      "contact: {model: hunt_crossley, friction: 0.5}\n"
      "integrator: {scheme: implicit_euler, dt: 1.0e-3, duration: 0.01}\n";
  fixture g = fixture_text(y, "test_sim.yaml", NULL, 0);
  ck_assert_ptr_nonnull(g.s->data.cmpl);
  static const int sizes[3] = {1, 7, 40};
  long got[9], want[9];
  for (int k = 0; k < 3; k++) {
    csim_error err;
    contact_data* c = NULL;
    solver* sv = NULL;
    cmpl_data* cd = NULL;
    long b0 = atomic_load(&g_nbytes);
    contact_create(f.s->model.m, sizes[k], &c, &err);
    long b1 = atomic_load(&g_nbytes);
    solver_create(&f.s->opt.solver, sizes[k], &sv, &err);
    long b2 = atomic_load(&g_nbytes);
    cmpl_create(&g.s->opt.cmpl, g.s->model.m, sizes[k], &cd, &err);
    long b3 = atomic_load(&g_nbytes);
    got[3 * k] = b1 - b0;
    got[3 * k + 1] = b2 - b1;
    got[3 * k + 2] = b3 - b2;
    want[3 * k] = (long)contact_bytes(f.s->model.m, sizes[k]);
    want[3 * k + 1] = (long)solver_bytes(&f.s->opt.solver, sizes[k]);
    want[3 * k + 2] = (long)cmpl_bytes(&g.s->opt.cmpl, g.s->model.m, sizes[k]);
    ck_assert(c && sv && cd);
    contact_free(c);
    solver_free(sv);
    cmpl_free(cd);
  }
  for (int i = 0; i < 9; i++)
    ck_assert_msg(got[i] == want[i], "%s for %d contacts: allocated %ld bytes, accounted %ld",
                  i % 3 == 0 ? "contact_create" : i % 3 == 1 ? "solver_create" : "cmpl_create",
                  sizes[i / 3], got[i], want[i]);
  // the families with a dense island buffer (ADMM, staggered, Lemke) and the per-contact ones
  // other than PGS: their solver_bytes too
  const solver_options others[4] = {
      {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-8, 100, 1, 4, 1, 1, SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0},
      {CSIM_MODEL_NCP, CSIM_SOLVER_STAGGERED, 1e-8, 100, 1, 4, 1, 1, SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0},
      {CSIM_MODEL_LCP, CSIM_SOLVER_LEMKE, 1e-8, 100, 1, 4, 1, 1, SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0},
      {CSIM_MODEL_RAISIM, CSIM_SOLVER_BISECTION, 1e-8, 100, 1, 4, 1, 1, SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0}};
  // (and the dense ones with their island work cut to 5 rows: solver_options island_rows)
  for (int o = 0; o < 7; o++)
    for (int k = 0; k < 3; k++) {
      csim_error err;
      solver* sv = NULL;
      solver_options so = others[o % 4];
      if (o >= 4) so.island_rows = 5;
      long b0 = atomic_load(&g_nbytes);
      csim_status st = solver_create(&so, sizes[k], &sv, &err);
      long b1 = atomic_load(&g_nbytes);  // (before any ck_assert: Check allocates its messages)
      ck_assert(st == CSIM_OK);
      ck_assert_msg(b1 - b0 == (long)solver_bytes(&so, sizes[k]),
                    "solver %d for %d contacts: allocated %ld bytes, accounted %ld", o, sizes[k],
                    b1 - b0, (long)solver_bytes(&so, sizes[k]));
      if (o >= 4 && sizes[k] > 1) {  // the cut work is smaller than the worst case's
        ck_assert_int_eq(solver_island_rows(&so, sizes[k]), 5);
        ck_assert(solver_bytes(&so, sizes[k]) < solver_bytes(&others[o % 4], sizes[k]));
      }
      solver_free(sv);
    }
  // the simulation data, with the default arena and with given ones; the sim counts it
  ck_assert_uint_eq(f.s->model.data_bytes, data_bytes(f.s->model.m, 0));
  static const size_t arenas[3] = {0, 100, 4096};
  for (int k = 0; k < 3; k++) {
    csim_error err;
    sim_data* d = NULL;
    long b0 = atomic_load(&g_nbytes);
    csim_status st = data_create(f.s->model.m, arenas[k], &d, &err);
    long b1 = atomic_load(&g_nbytes);
    ck_assert(st == CSIM_OK);
    ck_assert_msg(b1 - b0 == (long)data_bytes(f.s->model.m, arenas[k]),
                  "data_create (arena %zu): allocated %ld bytes, accounted %ld", arenas[k],
                  b1 - b0, (long)data_bytes(f.s->model.m, arenas[k]));
    data_free(d);
  }
  fixture_free(&g);
  fixture_free(&f);
#endif
}
END_TEST

//---------------------------------- warm start ------------------------------------------------

// total sweeps and non-converged steps of a run
static void sweeps(const char* yaml, long* total, int* nonconv) {
  fixture f = fixture_text(yaml, "test_sim.yaml", NULL, 0);
  sim_stepinfo info;
  *total = 0;
  *nonconv = 0;
  long n = (long)llround(f.cfg->duration / f.cfg->dt);
  for (long k = 0; k < n; k++) {
    step(&f, &info);
    *total += info.solve.iterations;
    if (info.ncon > 0 && !info.solve.converged) (*nonconv)++;
  }
  fixture_free(&f);
}

// warm starting converges on every step and needs fewer sweeps than cold starting: the sliding
// cube and the cube pushed by a growing force (stick, then slip) at tolerance 1e-8
START_TEST(warm_start_helps) {
  for (int sc = 0; sc < 2; sc++) {
    long total[2];
    int nonconv[2];
    for (int warm = 0; warm < 2; warm++) {
      char y[2048];
      if (sc == 0) {
        cube_yaml(y, sizeof(y), "[0, 0, 0.05, 0, 0, 0, 1]", "[0, 1, 0, 0, 0, 0]",
                  "friction: 0.3, restitution: 0, baumgarte: 0", 1e-8, 2000, warm, 0.6);
      } else {
        cube_yaml(y, sizeof(y), "[0, 0, 0.05, 0, 0, 0, 1]", "[0, 0, 0, 0, 0, 0]",
                  "friction: 0.5, restitution: 0, baumgarte: 0", 1e-8, 2000, warm, 1);
        strcat(y, "actions:\n  - {type: force, body: cube, direction: [1, 0, 0], profile: ramp, "
                  "magnitude: 0, rate: 10}\n");
      }
      sweeps(y, &total[warm], &nonconv[warm]);
    }
    ck_assert_msg(nonconv[0] == 0 && nonconv[1] == 0, "scenario %d: non-converged cold %d warm %d",
                  sc, nonconv[0], nonconv[1]);
    ck_assert_msg(2 * total[1] < total[0], "scenario %d: %ld sweeps warm vs %ld cold", sc, total[1],
                  total[0]);
  }
}
END_TEST

static Suite* sim_suite(void) {
  Suite* s = suite_create("sim");
  TCase* t = tcase_create("step");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, slide_decelerates_at_mu_g);
  tcase_add_test(t, box_rests);
  tcase_add_test(t, frictionless_slide_conserves_energy);
  tcase_add_test(t, free_spin_is_exact);
  tcase_add_test(t, inelastic_drop_comes_to_rest);
  tcase_add_test(t, restitution_scales_rebound);
  tcase_add_test(t, deterministic);
  tcase_add_test(t, stage_timers_against_clock_gettime);
  tcase_add_test(t, step_does_not_allocate);
  tcase_add_test(t, buffer_bytes_are_what_is_allocated);
  tcase_add_test(t, warm_start_helps);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return run_suite(sim_suite());
}
