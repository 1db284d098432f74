// test_admm_sparse.c — ADMM's sparse island factor (CHOLMOD, admm.c admm_sparse): the x-step's
// solve (G~ + sigma I)^-1 x on coupled islands, with the sparse factor, against an independent
// oracle: G~ + sigma I assembled densely here (from the island's dense G, or from its factored
// form Y Y' + diag) and solved by LAPACK dposv. Islands: a pile of 16 boxes and Talos lying on
// the ground (dof space, Woodbury through Y, and contact space), two FCLib piles (contact space).
// Also: same input, same bits (the kept analysis and a fresh one), and the auto rule's choice;
// a hand-made island whose contacts hold their local dofs in every order (dense and sparse).
#include <SuiteSparse_config.h>
#include <check.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contact.h"
#include "core/sim.h"
#include "core/solvers/admm_impl.h"
#include "out/fclib.h"
#include "dense_problem.h"
#include "scene_fixture.h"
#include "support.h"

#define DATA "../shared/data/fclib/"

// G~ of the island problem p (n = 3 nc rows) densely, row-major: the symmetric part of p->dense
// plus R, or Y Y' + diag(ydiag) + R from the factored form
static void island_dense(const solver_problem* p, double* M) {
  int n = 3 * p->nc;
  memset(M, 0, sizeof(double) * (size_t)n * n);
  for (int a = 0; a < n; a++) {
    for (int b = 0; b < n && p->dense; b++)
      M[(size_t)a * n + b] = 0.5 * (p->dense[(size_t)a * n + b] + p->dense[(size_t)b * n + a]);
    if (p->dense) continue;
    const int* da = p->ydof + (size_t)(a / 3) * p->ystride;
    const double* ya = p->Y + (size_t)a * p->ystride;
    for (int b = 0; b < n; b++) {
      const int* db = p->ydof + (size_t)(b / 3) * p->ystride;
      const double* yb = p->Y + (size_t)b * p->ystride;
      double acc = 0;
      for (int u = 0; u < p->ynz[a / 3]; u++)
        for (int v = 0; v < p->ynz[b / 3]; v++)
          if (da[u] == db[v]) acc += ya[u] * yb[v];
      M[(size_t)a * n + b] = acc;
    }
    if (p->ydiag) M[(size_t)a * n + a] += p->ydiag[a];
  }
  for (int a = 0; a < n && p->R; a++) M[(size_t)a * n + a] += p->R[a];
}

// CHOLMOD's allocations, counted through SuiteSparse's memory hooks
static long g_allocs;
static void* count_malloc(size_t n) {
  g_allocs++;
  return malloc(n);
}
static void* count_calloc(size_t n, size_t k) {
  g_allocs++;
  return calloc(n, k);
}
static void* count_realloc(void* p, size_t n) {
  g_allocs++;
  return realloc(p, n);
}

// the sparse x-step solve of island p equals LAPACK's dense solve of G~ + sigma I to 1e-12
// relative (sigma a tenth of G~'s largest diagonal entry, a rho of ADMM's range, so that the
// system is well conditioned and both answers are exact to ~1e-14); the same bits on a second
// solve (the kept analysis) and on a fresh solver (a new one)
// the reference x-step of island p: rhs random (seed), ref = (G~ + sigma I)^-1 rhs by LAPACK's
// dense Cholesky, sigma a tenth of G~'s largest diagonal entry (returned)
static double lapack_reference(const solver_problem* p, unsigned seed, double* rhs, double* ref) {
  int n = 3 * p->nc;
  double* M = malloc(sizeof(double) * (size_t)n * n);
  ck_assert_ptr_nonnull(M);
  island_dense(p, M);
  double dmax = 0;
  for (int a = 0; a < n; a++) dmax = fmax(dmax, M[(size_t)a * n + a]);
  double sigma = 0.1 * dmax;
  for (int a = 0; a < n; a++) M[(size_t)a * n + a] += sigma;
  for (int a = 0; a < n; a++) rhs[a] = ref[a] = urand_sym(&seed);
  ck_assert_int_eq(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', n, 1, M, n, ref, 1), 0);
  free(M);
  return sigma;
}

static void check_island(const solver_options* o, const solver_problem* p, const char* what) {
  int n = 3 * p->nc;
  double *ref = malloc(sizeof(double) * (size_t)n), *x = malloc(sizeof(double) * (size_t)n);
  double *x2 = malloc(sizeof(double) * (size_t)n), *rhs = malloc(sizeof(double) * (size_t)n);
  double sigma = lapack_reference(p, 7, rhs, ref);
  solver* sv = tsolver_create(o, p->nc);
  memcpy(x, rhs, sizeof(double) * (size_t)n);
  ck_assert_msg(admm_island_solve(sv, p, ADMM_FACT_SPARSE, sigma, x) == 0, "%s: no sparse solve",
                what);
  double e = 0, m = 0;
  for (int a = 0; a < n; a++) {
    e = fmax(e, fabs(x[a] - ref[a]));
    m = fmax(m, fabs(ref[a]));
  }
  ck_assert_msg(e <= 1e-12 * m, "%s: |x_sparse - x_lapack| = %g of %g", what, e, m);
  memcpy(x2, rhs, sizeof(double) * (size_t)n);  // the analysis kept: no allocation
  void* (*m0)(size_t) = SuiteSparse_config.malloc_func;
  void* (*c0)(size_t, size_t) = SuiteSparse_config.calloc_func;
  void* (*r0)(void*, size_t) = SuiteSparse_config.realloc_func;
  SuiteSparse_config.malloc_func = count_malloc;
  SuiteSparse_config.calloc_func = count_calloc;
  SuiteSparse_config.realloc_func = count_realloc;
  g_allocs = 0;
  ck_assert_int_eq(admm_island_solve(sv, p, ADMM_FACT_SPARSE, 2 * sigma, x2), 0);
  memcpy(x2, rhs, sizeof(double) * (size_t)n);
  ck_assert_int_eq(admm_island_solve(sv, p, ADMM_FACT_SPARSE, sigma, x2), 0);
  SuiteSparse_config.malloc_func = m0;
  SuiteSparse_config.calloc_func = c0;
  SuiteSparse_config.realloc_func = r0;
  ck_assert_msg(g_allocs == 0, "%s: %ld allocations on a kept pattern", what, g_allocs);
  ck_assert_msg(memcmp(x, x2, sizeof(double) * (size_t)n) == 0, "%s: not the same bits", what);
  solver_free(sv);
  sv = tsolver_create(o, p->nc);  // analysed anew
  memcpy(x2, rhs, sizeof(double) * (size_t)n);
  ck_assert_int_eq(admm_island_solve(sv, p, ADMM_FACT_SPARSE, sigma, x2), 0);
  ck_assert_msg(memcmp(x, x2, sizeof(double) * (size_t)n) == 0, "%s: not the same bits", what);
  solver_free(sv);
  printf("%s: %d contacts, |x_sparse - x_lapack| / |x| = %.2e\n", what, p->nc, e / m);
  free(ref);
  free(x);
  free(x2);
  free(rhs);
}

// a whole ADMM solve (ncp) of p with the factor the rule picks, which must be sparse on at least
// one island, against the dense factors (admm_state.band_off): both converge and their contact
// velocities agree to 10 times the tolerance (the products with G over the sparse pattern, the
// skew part of a G that is not symmetric and the refactorizations as rho changes included)
static void check_admm(const solver_options* o, const solver_problem* p, const char* what) {
  int n3 = 3 * p->nc;
  double* l[2];
  double* c[2];
  solver_result r[2];
  for (int k = 0; k < 2; k++) {
    l[k] = calloc((size_t)n3, sizeof(double));
    c[k] = malloc(sizeof(double) * (size_t)n3);
    solver* sv = tsolver_create(o, p->nc);
    solver_admm(sv)->band_off = k;
    solver_solve(sv, p, l[k], &r[k]);
    memcpy(c[k], solver_velocity(sv), sizeof(double) * (size_t)n3);
    solver_free(sv);
    ck_assert_msg(r[k].converged, "%s, %s: not converged (residual %g)", what,
                  k ? "dense" : "sparse", r[k].residual);
  }
  ck_assert_int_ge(r[0].sparse_islands, 1);
  ck_assert_int_eq(r[1].sparse_islands, 0);
  double d = 0;
  for (int a = 0; a < n3; a++) d = fmax(d, fabs(c[0][a] - c[1][a]));
  ck_assert_msg(d <= 10 * o->tolerance, "%s: |c_sparse - c_dense| = %g", what, d);
  printf("%s: ADMM sparse %d iterations, dense %d, |c_sparse - c_dense| = %.1e\n", what,
         r[0].iterations, r[1].iterations, d);
  for (int k = 0; k < 2; k++) {
    free(l[k]);
    free(c[k]);
  }
}

// the largest island of the last step of s, in contact space (dense G, solver_gdense) and, when
// the island has fewer dofs than contact rows, in the island's dofs (admm's island form);
// both checked (check_island). Returns the island's contacts
static int check_scene(sim* s, const char* what, int* dofs) {
  contact_data* c = s->data.con;
  solver_problem p = contact_problem(c);
  int big = 0;
  for (int k = 1; k < p.nisland; k++)
    if (p.island_ptr[k + 1] - p.island_ptr[k] > p.island_ptr[big + 1] - p.island_ptr[big]) big = k;
  int n = p.island_ptr[big + 1] - p.island_ptr[big];
  const int* cons = p.island_con + p.island_ptr[big];
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-8, 100, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_MODEL, s->model.m->nv, contact_max_chain(s->model.m), 0, 0, 0, 0};
  solver* sv = tsolver_create(&o, p.nc);
  solver_problem sub = {0};
  sub.nc = n;
  *dofs = solver_family_admm.island_form(sv, &p, cons, n, &sub) ? sub.nv : 0;
  char name[128];
  snprintf(name, sizeof(name), "%s, dof space (%d dofs)", what, *dofs);
  if (*dofs > 0) check_island(&o, &sub, name);
  solver_free(sv);
  double* G = malloc(sizeof(double) * 9 * (size_t)n * n);
  int* map = malloc(sizeof(int) * (size_t)p.nc);
  solver_gdense(&p, cons, n, map, G);
  solver_problem d = {0};
  d.nc = n;
  d.dense = G;
  d.mu = p.mu;  // unused by the solve
  solver_options oc = o;
  oc.nv = oc.max_chain = 0;
  snprintf(name, sizeof(name), "%s, contact space", what);
  check_island(&oc, &d, name);
  free(G);
  free(map);
  return n;
}

// 16 boxes (10 cm cubes) in three layers: 5 x 2 on the ground 1 cm apart, 4 on them (each on
// 4 boxes), 2 on those (each on 2): one branched island, no chain of trees
static char* pile16(void) {
  double pos[48];
  int m = 0;
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 2; j++) pos[m++] = 0.11 * i, pos[m++] = 0.11 * j, pos[m++] = 0.05;
  for (int i = 0; i < 4; i++) pos[m++] = 0.055 + 0.11 * i, pos[m++] = 0.055, pos[m++] = 0.15;
  for (int i = 0; i < 2; i++) pos[m++] = 0.11 + 0.22 * i, pos[m++] = 0.055, pos[m++] = 0.25;
  return fixture_cubes(16, pos, "{name: admm, tolerance: 1.0e-8}");
}

START_TEST(pile_of_16_boxes) {
  char* text = pile16();
  fixture f = fixture_steps(text, NULL, 5);
  free(text);
  int dofs;
  int n = check_scene(f.s, "pile of 16 boxes", &dofs);
  ck_assert_int_ge(n, 40);       // 4 corners of each box on the ground or on the boxes below
  ck_assert_int_eq(dofs, 96);    // the island holds the 16 boxes (6 dofs each)
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-8, 5000, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_MODEL, f.s->model.m->nv, contact_max_chain(f.s->model.m), 0, 0, 0, 0};
  solver_problem p = contact_problem(f.s->data.con);
  check_admm(&o, &p, "pile of 16 boxes, dof space");
  fixture_free(&f);
}
END_TEST

// Talos (38 dofs) lying on its back, joints at zero, dropped from 25 cm and stepped until it
// rests on the ground: contacts at the torso, head, arms and legs
static const char* kTalosLying =
    "name: talos_lying\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
    "robots:\n  - urdf: ../shared/data/robots/talos/talos_reduced.urdf\n    base: free\n"
    "    q0: [0, 0, 0.25, 0, -0.7071067811865476, 0, 0.7071067811865476,\n"
    "         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,\n"
    "         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n"
    "contact: {model: ncp, friction: 0.9, margin: 0.002}\n"
    "solver: {name: pgs, tolerance: 1.0e-6, max_iterations: 200}\n"
    "integrator: {dt: 1.0e-3, duration: 1}\n";

START_TEST(humanoid_lying) {
  fixture f = fixture_steps(kTalosLying, NULL, 300);
  int dofs;
  int n = check_scene(f.s, "Talos lying", &dofs);
  ck_assert_int_ge(n, 12);
  fixture_free(&f);
}
END_TEST

// a 20-link chain lying flat (25 dofs, 80 contacts): in dof space each link's four corners hold
// one stretch of dofs, the same one, which the dense factor of I + Y' A^-1 Y adds four contacts
// at a time (admm.c run4, dense_add4); the x-step's solve (G~ + sigma I)^-1 x with the dense
// factor against LAPACK dposv on G~ + sigma I assembled here (island_dense), to 1e-12
START_TEST(chain_dense_factor) {
  tmp_setup();
  char path[512];
  fixture_chain(20, "{model: ncp, friction: 0.5}", "{name: admm, tolerance: 1.0e-8}", path,
                sizeof(path));
  fixture f = fixture_steps(NULL, path, 3);
  solver_problem p = contact_problem(f.s->data.con);
  ck_assert_int_eq(p.nisland, 1);
  int n = p.nc, n3 = 3 * p.nc;
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-8, 100, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_MODEL, f.s->model.m->nv, contact_max_chain(f.s->model.m), 0, 0, 0, 0};
  solver* sv = tsolver_create(&o, n);
  solver_problem sub = {0};
  sub.nc = n;
  ck_assert(solver_family_admm.island_form(sv, &p, p.island_con, n, &sub));
  ck_assert_int_eq(sub.nv, 25);
  int groups = 0;  // runs of four contacts on one stretch of consecutive dofs
  for (int i = 0; i + 3 < n; i++) {
    int same = 1;
    for (int q = 0; q < 4 && same; q++) {
      const int* d = sub.ydof + (size_t)(i + q) * sub.ystride;
      same = sub.ynz[i + q] == sub.ynz[i] && d[0] == sub.ydof[(size_t)i * sub.ystride];
      for (int k = 1; k < sub.ynz[i + q] && same; k++) same = d[k] == d[k - 1] + 1;
    }
    groups += same;
  }
  ck_assert_msg(groups >= 10, "%d groups of four contacts on one stretch", groups);
  double *ref = malloc(sizeof(double) * (size_t)n3), *x = malloc(sizeof(double) * (size_t)n3);
  double sigma = lapack_reference(&sub, 11, x, ref);
  ck_assert_int_eq(admm_island_solve(sv, &sub, ADMM_FACT_DENSE, sigma, x), 0);
  double e = 0, m = 0;
  for (int a = 0; a < n3; a++) {
    e = fmax(e, fabs(x[a] - ref[a]));
    m = fmax(m, fabs(ref[a]));
  }
  printf("chain of 20 lying, dof space dense: |x - x_lapack| / |x| = %.2e\n", e / m);
  ck_assert_msg(e <= 1e-12 * m, "|x_dense - x_lapack| = %g of %g", e, m);
  free(ref);
  free(x);
  solver_free(sv);
  fixture_free(&f);
  tmp_teardown();
}
END_TEST

// an FCLib pile's largest island, in contact space
static void check_fclib(const char* file, int min_nc) {
  char path[512];
  snprintf(path, sizeof(path), DATA "%s", file);
  fclib_problem* fp = NULL;
  csim_error e;
  ck_assert_msg(fclib_read(path, &fp, &e) == CSIM_OK, "%s", e.msg);
  solver_problem p = fclib_solver_problem(fp);
  int big = 0;
  for (int k = 1; k < p.nisland; k++)
    if (p.island_ptr[k + 1] - p.island_ptr[k] > p.island_ptr[big + 1] - p.island_ptr[big]) big = k;
  int n = p.island_ptr[big + 1] - p.island_ptr[big];
  ck_assert_int_ge(n, min_nc);
  double* G = malloc(sizeof(double) * 9 * (size_t)n * n);
  int* map = malloc(sizeof(int) * (size_t)p.nc);
  solver_gdense(&p, p.island_con + p.island_ptr[big], n, map, G);
  solver_problem d = {0};
  d.nc = n;
  d.dense = G;
  d.mu = p.mu;
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-8, 100, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
  check_island(&o, &d, file);
  free(G);
  free(map);
  // the whole problem in its own units (csim solve's view, fclib_scaled_problem)
  double* blk = malloc(sizeof(double) * 9 * (size_t)fp->blocks->nblocks);
  double* g = malloc(sizeof(double) * 6 * (size_t)p.nc);
  double s_r, s_u;
  solver_problem ps = fclib_scaled_problem(fp, blk, g, g + 3 * p.nc, &s_r, &s_u);
  o.tolerance = 1e-10;
  o.max_iterations = 5000;
  check_admm(&o, &ps, file);
  free(blk);
  free(g);
  fclib_free(fp);
}

START_TEST(fclib_piles) {
  check_fclib("siconos_local/LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", 60);
  check_fclib("siconos_local/Capsules-i125-1213.hdf5", 50);  // its largest island: 57
}
END_TEST

// one island of 1710 rows whose W is not symmetric (its skew part read over the sparse pattern,
// the dense skew part no longer filled on that path) and whose block pattern comes from one pass
// over G's rows (admm.c block_marks): the sparse factor's solves and a whole ADMM solve against
// the dense factor's, as above (2 s)
START_TEST(fclib_kaplas_tower) {
  check_fclib("siconos_dat_converted/KaplasTower-i1061-4.hdf5", 570);
}
END_TEST

// the round-off jump (admm.c admm_rho_jump). KaplasTower-i1061-4 in its own units (csim solve's
// and bench_siconos's view: fclib_scaled_problem), from zero at eps 1e-7: every contact sticks,
// so no projection moves its point (|l - z| 2e-11 of |z| = 0.07 on the first iteration, then
// ~1e-17) and the spectral rule alone halved rho and refactored on every iteration (9
// iterations, 9 factorizations of the 1710 rows). With the jump: at most 2 factorizations and 3
// iterations,
// and the answer meets Siconos's relative error 1e-6 (fc3d_compute_error's measure,
// fclib_siconos_error, on the answer in the file's units)
// KaplasTower-i1061-4 in its own units (csim solve's view: fclib_scaled_problem, no R) into
// *fp, its scaled blocks *blk and g *g (the caller frees them), s_r its impulse scale
static solver_problem kaplas_scaled(fclib_problem** fp, double** blk, double** g, double* s_r) {
  csim_error e;
  ck_assert_msg(fclib_read(DATA "siconos_dat_converted/KaplasTower-i1061-4.hdf5", fp, &e) ==
                    CSIM_OK, "%s", e.msg);
  int n = 3 * (*fp)->nc;
  *blk = malloc(sizeof(double) * 9 * (size_t)(*fp)->blocks->nblocks);
  *g = malloc(sizeof(double) * (2 * (size_t)n + 2));
  double s_u;
  solver_problem p = fclib_scaled_problem(*fp, *blk, *g, *g + n + 1, s_r, &s_u);
  p.R = NULL;
  return p;
}

START_TEST(kaplas_tower_factorizations) {
  fclib_problem* fp = NULL;
  double *blk, *g, s_r;
  solver_problem p = kaplas_scaled(&fp, &blk, &g, &s_r);
  int n = 3 * fp->nc;
  double* lam = calloc((size_t)n, sizeof(double));
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-7, 1000, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
  solver* sv = tsolver_create(&o, p.nc);
  solver_result r;
  solver_solve(sv, &p, lam, &r);
  long fact = solver_admm(sv)->factorizations;
  printf("KaplasTower-i1061-4 ncp/admm: %d iterations, %ld factorizations, eps %.3g\n",
         r.iterations, fact, r.residual);
  ck_assert(r.converged);
  ck_assert_int_le(r.iterations, 3);
  ck_assert_int_le(fact, 2);
  for (int k = 0; k < n; k++) lam[k] *= s_r;  // the file's units
  solver_problem pf = fclib_solver_problem(fp);
  double rel = fclib_siconos_error(&pf, lam, NULL);
  ck_assert_msg(rel <= 1e-6, "Siconos relative error %g", rel);
  solver_free(sv);
  free(blk);
  free(g);
  free(lam);
  fclib_free(fp);
}
END_TEST

// an island the sparse factor takes is handed to ADMM as its blocks (solver.c island_sparse),
// its dense G never formed (9 n^2 doubles: 23 MB on KaplasTower-i1061-4): the whole ADMM solve
// of the file's one island from its blocks against the same problem given as a dense G (whose
// pattern and values the sparse factor reads from the dense rows instead): the same answer to
// 1e-12 of its largest impulse and the same iterations
START_TEST(island_from_blocks) {
  fclib_problem* fp = NULL;
  double *blk, *g, s_r;
  solver_problem p = kaplas_scaled(&fp, &blk, &g, &s_r);
  int n = 3 * fp->nc;
  ck_assert_int_eq(p.nisland, 1);
  solver_problem d = p;  // the same problem, dense
  double* G = malloc(sizeof(double) * (size_t)n * (size_t)n);
  int* map = malloc(sizeof(int) * (size_t)p.nc);
  solver_gdense(&p, p.island_con, p.nc, map, G);
  d.dense = G;
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-9, 1000, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
  double* l[2];
  solver_result r[2];
  long blocks[2];
  for (int k = 0; k < 2; k++) {
    l[k] = calloc((size_t)n, sizeof(double));
    solver* sv = tsolver_create(&o, p.nc);
    solver_solve(sv, k ? &d : &p, l[k], &r[k]);
    blocks[k] = solver_admm(sv)->block_islands;
    solver_free(sv);
    ck_assert_msg(r[k].converged, "%s: not converged", k ? "dense" : "blocks");
    ck_assert_int_eq(r[k].sparse_islands, 1);
  }
  ck_assert_int_eq(blocks[0], 1);
  ck_assert_int_eq(blocks[1], 0);
  ck_assert_int_eq(r[0].iterations, r[1].iterations);
  double dl = 0, lmax = 0;
  for (int a = 0; a < n; a++) {
    dl = fmax(dl, fabs(l[0][a] - l[1][a]));
    lmax = fmax(lmax, fabs(l[1][a]));
  }
  printf("KaplasTower-i1061-4 from its blocks: %d iterations, |l_blocks - l_dense| = %.1e of %.2g\n",
         r[0].iterations, dl, lmax);
  ck_assert_msg(dl <= 1e-12 * lmax, "|l_blocks - l_dense| = %g of %g", dl, lmax);
  free(l[0]);
  free(l[1]);
  free(G);
  free(map);
  free(blk);
  free(g);
  fclib_free(fp);
}
END_TEST

// the factored form's x-step with its local dofs in any order: ADMM's dof-space factor visits
// each pair of a contact's entries once, the pairs whose dofs descend by the column's own
// expression, and a contact whose dofs are consecutive (a chain's path) as one stretch (admm.c
// pair_term, admm_op.run). A hand-made island of 12 dofs whose contacts hold consecutive,
// ascending gapped, descending and two-block orders (an island's first-seen numbering gives
// those): the dense and the sparse factor's solves equal LAPACK's dense solve to 1e-12
START_TEST(local_dof_orders) {
  enum { NC = 6, ND = 12, W = 12 };
  static const int dofs[NC][W] = {{6, 7, 8, 9, 10, 11},
                                  {6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5},
                                  {0, 1, 2, 3, 4, 5},
                                  {2, 5, 9},
                                  {11, 3, 7, 0},
                                  {4, 5, 6, 7}};
  static const int nz[NC] = {6, 12, 6, 3, 4, 4};
  int ydof[NC * W] = {0}, ynz[NC];
  double Y[3 * NC * W] = {0}, mu[NC];
  unsigned seed = 11;
  for (int i = 0; i < NC; i++) {
    ynz[i] = nz[i];
    mu[i] = 0.5;
    for (int k = 0; k < nz[i]; k++) {
      ydof[i * W + k] = dofs[i][k];
      for (int r = 0; r < 3; r++) Y[(3 * i + r) * W + k] = urand_sym(&seed);
    }
  }
  solver_problem p = {0};
  p.nc = NC;
  p.nv = ND;
  p.ystride = W;
  p.ynz = ynz;
  p.ydof = ydof;
  p.Y = Y;
  p.mu = mu;
  int n = 3 * NC;
  double M[3 * NC * 3 * NC], ref[3 * NC], x[3 * NC], rhs[3 * NC];
  island_dense(&p, M);
  double dmax = 0;
  for (int a = 0; a < n; a++) dmax = fmax(dmax, M[a * n + a]);
  double sigma = 0.1 * dmax;
  for (int a = 0; a < n; a++) M[a * n + a] += sigma;
  for (int a = 0; a < n; a++) rhs[a] = ref[a] = urand_sym(&seed);
  ck_assert_int_eq(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', n, 1, M, n, ref, 1), 0);
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-8, 100, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_MODEL, ND, W, 0, 0, 0, 0};
  const int facts[2] = {ADMM_FACT_DENSE, ADMM_FACT_SPARSE};
  for (int f = 0; f < 2; f++) {
    solver* sv = tsolver_create(&o, NC);
    memcpy(x, rhs, sizeof(x));
    ck_assert_int_eq(admm_island_solve(sv, &p, facts[f], sigma, x), 0);
    double e = 0, m = 0;
    for (int a = 0; a < n; a++) {
      e = fmax(e, fabs(x[a] - ref[a]));
      m = fmax(m, fabs(ref[a]));
    }
    ck_assert_msg(e <= 1e-12 * m, "%s factor: |x - x_lapack| = %g of %g",
                  f ? "sparse" : "dense", e, m);
    solver_free(sv);
  }
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("admm_sparse");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, pile_of_16_boxes);
  tcase_add_test(tc, humanoid_lying);
  tcase_add_test(tc, fclib_piles);
  tcase_add_test(tc, local_dof_orders);
  tcase_add_test(tc, chain_dense_factor);
  tcase_add_test(tc, fclib_kaplas_tower);
  tcase_add_test(tc, kaplas_tower_factorizations);
  tcase_add_test(tc, island_from_blocks);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(suite());
}
