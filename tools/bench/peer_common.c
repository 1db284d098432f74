// tools/bench/peer_common.c — scenes, options, output and csim's residual of a peer's answer for
// the Bullet and ODE harnesses (peer_common.h says what each piece is).
#include "peer_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/solvers/solver.h"

static void usage(FILE* f, const char* engine, const char* solvers) {
  fprintf(f,
          "usage: bench_%s [--scene cube_rest|cube_slide|cube_oblique|cube_stack2|grid_N|stack_N]\n"
          "       [--angle DEG] [--solver %s] [--steps N] [--batches B] [--no-eps] [--header]\n",
          engine, solvers);
}

int peer_parse(int argc, char** argv, peer_opts* o, const char* engine, const char* solvers) {
  peer_opts d = {"cube_rest", 10.0, NULL, 0, 3, 1, 0};
  *o = d;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "--scene") && more)
      o->scene = argv[++i];
    else if (!strcmp(a, "--angle") && more)
      o->angle = atof(argv[++i]);
    else if (!strcmp(a, "--solver") && more)
      o->solver = argv[++i];
    else if (!strcmp(a, "--steps") && more)
      o->steps = atoi(argv[++i]);
    else if (!strcmp(a, "--batches") && more)
      o->batches = atoi(argv[++i]);
    else if (!strcmp(a, "--no-eps"))
      o->eps = 0;
    else if (!strcmp(a, "--header"))
      o->header = 1;
    else {
      usage(stderr, engine, solvers);
      return 2;
    }
  }
  if (o->batches < 1 || o->batches > 64 || o->steps < 0) {
    usage(stderr, engine, solvers);
    return 2;
  }
  return 0;
}

int peer_setup(int argc, char** argv, const char* engine, const char* const* names, int n,
               peer_opts* o, peer_scene* s, int* which) {
  char list[256] = "";
  for (int k = 0; k < n; k++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? "|" : "", names[k]);
  if (peer_parse(argc, argv, o, engine, list)) return 2;
  if (!o->solver) o->solver = names[0];
  for (*which = 0; *which < n && strcmp(o->solver, names[*which]) != 0; ++*which) {
  }
  if (*which == n) {
    fprintf(stderr, "bench_%s: unknown solver '%s' (%s)\n", engine, o->solver, list);
    return 2;
  }
  if (peer_scene_make(o->scene, o->angle, s) < 0) return 2;
  if (!o->steps) o->steps = s->steps;
  return 0;
}

// the size N of "prefix_N", or 0
static int scene_size(const char* name, const char* prefix) {
  size_t k = strlen(prefix);
  if (strncmp(name, prefix, k) != 0) return 0;
  int n = atoi(name + k);
  return n >= 1 && n <= PEER_MAXB ? n : 0;
}

static int scene_alloc(peer_scene* s, const char* name, int nb, double mu, int steps) {
  snprintf(s->name, sizeof s->name, "%s", name);
  s->nb = nb;
  s->pos = calloc((size_t)nb, sizeof *s->pos);
  s->vel = calloc((size_t)nb, sizeof *s->vel);
  s->mu = mu;
  s->h = 1e-3;  // every bench scene's dt
  s->steps = steps;
  return s->pos && s->vel ? 0 : -1;
}

// the scenes of tools/bench/bench_scenes.py (cube_slide.yaml: mu 0.3, 1 m/s along y; the stacks
// and grids: mu 0.5, cubes exactly touching, grid pitch 0.2 m)
int peer_scene_make(const char* name, double angle, peer_scene* s) {
  memset(s, 0, sizeof *s);
  int n;
  if (!strcmp(name, "cube_rest") || !strcmp(name, "cube_slide") || !strcmp(name, "cube_oblique")) {
    if (scene_alloc(s, name, 1, 0.3, !strcmp(name, "cube_rest") ? 1000 : 600) < 0) return -1;
    s->pos[0][2] = 0.5 * PEER_SIDE;
    double th = !strcmp(name, "cube_oblique") ? angle * M_PI / 180 : 0;
    if (strcmp(name, "cube_rest") != 0) s->vel[0][0] = sin(th), s->vel[0][1] = cos(th);
    return 0;
  }
  int stack = !strcmp(name, "cube_stack2") ? 2 : scene_size(name, "stack_");
  if (stack) {
    if (scene_alloc(s, name, stack, 0.5, stack <= 16 ? 300 : 100) < 0) return -1;
    for (int k = 0; k < stack; k++) s->pos[k][2] = 0.5 * PEER_SIDE + PEER_SIDE * k;
    if (stack == 2 && name[0] == 'c') s->steps = 1000;
    return 0;
  }
  if ((n = scene_size(name, "grid_")) > 0) {
    int side = (int)sqrt((double)n);
    while (side * side < n) side++;
    if (scene_alloc(s, name, n, 0.5, n <= 16 ? 300 : n <= 64 ? 100 : 30) < 0) return -1;
    for (int i = 0; i < n; i++) {
      s->pos[i][0] = 0.2 * (i % side);
      s->pos[i][1] = 0.2 * (i / side);
      s->pos[i][2] = 0.5 * PEER_SIDE;
    }
    return 0;
  }
  fprintf(stderr, "peer: unknown scene '%s' (cube_rest, cube_slide, cube_oblique, cube_stack2, "
                  "grid_N, stack_N with N in 1..%d)\n", name, PEER_MAXB);
  return -1;
}

void peer_scene_free(peer_scene* s) {
  free(s->pos);
  free(s->vel);
  s->pos = s->vel = NULL;
}

int peer_eps_alloc(peer_eps* w, int maxc) {
  memset(w, 0, sizeof *w);
  w->maxc = maxc;
  size_t n3 = 3 * (size_t)maxc;
  // one block: G (n3 x n3), g, lambda, c, Jv (n3 each), frames (3 n3), mu (maxc)
  double* b = calloc(n3 * n3 + 7 * n3 + (size_t)maxc, sizeof(double));
  if (!b) return -1;
  w->G = b;
  w->g = w->G + n3 * n3;
  w->lambda = w->g + n3;
  w->c = w->lambda + n3;
  w->Jv = w->c + n3;
  w->frame = w->Jv + n3;
  w->mu = w->frame + 3 * n3;
  return 0;
}

void peer_eps_free(peer_eps* w) { free(w->G); }

void peer_account(peer_row* r, int nc, double pn, double eps, double mismatch) {
  r->con_mean += nc;  // a sum until peer_close
  r->con_last = nc;
  r->pn_last = pn;
  r->eps_mean += eps;
  if (eps > r->eps_max) r->eps_max = eps;
  if (mismatch > r->mismatch) r->mismatch = mismatch;
}

void peer_close(peer_row* r, const peer_scene* s, int steps, int eps, const double* x_end) {
  r->con_mean /= steps;
  r->eps_mean = eps ? r->eps_mean / steps : NAN;
  if (!eps) r->eps_max = r->mismatch = NAN;
  peer_turn(s, x_end, &r->turn, &r->dist);
}

static double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double* a, const double* b, double* o) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

// rows t1, t2, n of a contact frame (the residual of the circular cone does not depend on the
// choice of t1 in the tangent plane)
static void frame_of(const double* n, double* f) {
  double a[3] = {1, 0, 0};
  if (fabs(n[0]) > 0.6) a[0] = 0, a[1] = 1;
  cross3(n, a, f);
  double l = sqrt(dot3(f, f));
  for (int k = 0; k < 3; k++) f[k] /= l;
  cross3(n, f, f + 3);
  memcpy(f + 6, n, 3 * sizeof(double));
}

// row `d` of contact i on body k (sign s, lever r): the 6-vector [s d, s r x d]
static void jrow(const double* d, const double* r, double s, double* j) {
  cross3(r, d, j + 3);
  for (int k = 0; k < 3; k++) j[k] = s * d[k], j[3 + k] *= s;
}

// the lever arm of contact c on body `body` (its point on that body minus the centre)
static int lever(const peer_contact* c, int body, const double (*x0)[3], double* r, double* s) {
  const double* p = c->a == body ? c->pa : c->pb;
  if (body < 0 || (c->a != body && c->b != body)) return 0;
  for (int k = 0; k < 3; k++) r[k] = p[k] - x0[body][k];
  *s = c->a == body ? 1.0 : -1.0;
  return 1;
}

// G's entries between contacts i and j through their common bodies (M^-1 = diag(1/m, 1/I))
static void g_block(peer_eps* w, const peer_contact* con, int i, int j, int nc,
                    const double (*x0)[3]) {
  int bodies[2] = {con[i].a, con[i].b};
  for (int q = 0; q < 2; q++) {
    double ri[3], rj[3], si, sj;
    if (!lever(&con[i], bodies[q], x0, ri, &si) || !lever(&con[j], bodies[q], x0, rj, &sj)) continue;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        double ja[6], jb[6];
        jrow(w->frame + 9 * i + 3 * a, ri, si, ja);
        jrow(w->frame + 9 * j + 3 * b, rj, sj, jb);
        w->G[(size_t)(3 * i + a) * (size_t)(3 * nc) + (size_t)(3 * j + b)] +=
            dot3(ja, jb) / PEER_MASS + dot3(ja + 3, jb + 3) / PEER_INERTIA;
      }
  }
}

// J v for contact i's rows with body velocities (v, w) (+ h gravity when grav)
static void jv_rows(const peer_eps* w, const peer_contact* c, int i, const double (*x0)[3],
                    const double (*v)[3], const double (*om)[3], double hg, double* out) {
  int bodies[2] = {c->a, c->b};
  for (int a = 0; a < 3; a++) out[a] = 0;
  for (int q = 0; q < 2; q++) {
    double r[3], s;
    if (!lever(c, bodies[q], x0, r, &s)) continue;
    double vb[3] = {v[bodies[q]][0], v[bodies[q]][1], v[bodies[q]][2] - hg}, j[6];
    for (int a = 0; a < 3; a++) {
      jrow(w->frame + 9 * i + 3 * a, r, s, j);
      out[a] += dot3(j, vb) + dot3(j + 3, om[bodies[q]]);
    }
  }
}

double peer_residual(peer_eps* w, const peer_contact* con, int nc, double mu, double h,
                     const double (*x0)[3], const double (*v0)[3], const double (*w0)[3],
                     const double (*v1)[3], const double (*w1)[3], double* mismatch) {
  *mismatch = 0;
  if (nc > w->maxc) nc = w->maxc;
  if (nc == 0) return 0;
  int n3 = 3 * nc;
  memset(w->G, 0, (size_t)n3 * (size_t)n3 * sizeof(double));
  for (int i = 0; i < nc; i++) {
    frame_of(con[i].n, w->frame + 9 * i);
    for (int a = 0; a < 3; a++) w->lambda[3 * i + a] = dot3(w->frame + 9 * i + 3 * a, con[i].P);
    w->mu[i] = mu;
  }
  for (int i = 0; i < nc; i++)
    for (int j = 0; j < nc; j++) g_block(w, con, i, j, nc, x0);
  for (int i = 0; i < nc; i++) {
    jv_rows(w, &con[i], i, x0, v0, w0, h * PEER_G, w->g + 3 * i);
    jv_rows(w, &con[i], i, x0, v1, w1, 0, w->Jv + 3 * i);
  }
  solver_problem p = {0};  // dense G (solver.h)
  p.nc = nc;
  p.dense = w->G;
  p.g = w->g;
  p.mu = w->mu;
  solver_result res;
  solver_residuals(&p, w->lambda, w->c, &res);
  for (int a = 0; a < n3; a++) {
    double e = fabs(w->c[a] - w->Jv[a]);
    if (e > *mismatch) *mismatch = e;
  }
  return res.eps_abs;
}

double peer_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double peer_median(double* x, int n) {
  if (n <= 0) return NAN;
  for (int i = 1; i < n; i++)  // insertion sort: a handful of batches
    for (int j = i; j > 0 && x[j - 1] > x[j]; j--) {
      double t = x[j];
      x[j] = x[j - 1];
      x[j - 1] = t;
    }
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

void peer_turn(const peer_scene* s, const double* x_end, double* turn, double* dist) {
  double dx = x_end[0] - s->pos[0][0], dy = x_end[1] - s->pos[0][1];
  *dist = sqrt(dx * dx + dy * dy);
  double launch = atan2(s->vel[0][0], s->vel[0][1]);
  *turn = *dist > 0 && (s->vel[0][0] != 0 || s->vel[0][1] != 0)
              ? (launch - atan2(dx, dy)) * 180 / M_PI
              : 0;
}

void peer_print(const peer_row* r, int header) {
  if (header)
    printf("scene,engine,solver,nv,steps,us_per_step,us_per_step_min,contacts_mean,contacts_last,"
           "normal_impulse_last,eps_abs_mean,eps_abs_max,mismatch_max,turn_deg,distance\n");
  printf("%s,%s,%s,%d,%d,%.4g,%.4g,%.4g,%d,%.6g,%.4g,%.4g,%.3g,%.4f,%.5f\n", r->scene, r->engine,
         r->solver, r->nv, r->steps, r->us, r->us_min, r->con_mean, r->con_last, r->pn_last,
         r->eps_mean, r->eps_max, r->mismatch, r->turn, r->dist);
  fflush(stdout);
}
