// bench_siconos.c — csim's contact solvers against Siconos numerics 4.4 on FCLib problems, at the
// same accuracy measured by the same code (a separate program, not part of libcsim; built and
// run by tools/bench/bench_siconos.sh).
//
// Per file (read by csim's FCLib reader, src/out/fclib.h; global problems condensed), one accuracy
// criterion for both sides: Siconos's relative error (fc3d_compute_error's measure) <= --tol
// (default 1e-6), computed by csim's code (fclib_siconos_error) on every answer, whoever
// produced it; no solver's own stopping test decides.
//  1. every csim solver (--csim, e.g. ncp/pgs,ncp/admm) solves the problem in its own units
//     (fclib_scaled_problem: |q| = 1, mean diagonal of W = 1, as `csim solve` does) with eps_abs
//     tolerance tol x 1e4 (LOOSEN), then /10, ... down to tol / 1e6 (TIGHTEN) until its answer
//     meets the criterion: the loosest stopping tolerance whose answer meets it counts
//     (tightening stops, from tol on, when an answer is worse than the looser one's: an equal
//     answer, a tolerance the looser run already met, goes on tightening, for both sides)
//     (an absolute tolerance tol (1 + |q|), Siconos 3's normalisation, accepted r = 0 on
//     LMGC_GFC3D-i00501, |q| = 6e-12: relative error 0.98);
//  2. every Siconos solver (--siconos: NSGS, NSGS_FULL = NSGS with its full error evaluation at
//     every sweep, ADMM, NSN_AC, PROX, DSFP, ...) runs at tolerance tol x 1e4, ..., tol / 1e6
//     likewise (its own error is the criterion's measure, but NSGS's light evaluation is not);
//  3. the time of the first run that meets the criterion is the solver's time; csim's best time
//     over Siconos's best time is the file's ratio (< 1: csim faster); files where one side
//     never meets it are counted (converged counts per side), not ratioed.
// Times are the median of 7 solves below 20 ms, of 3 below 200 ms, else one solve, each from
// r = 0, measured around the solve call only (problem and option set-up excluded). Each run
// happens in a forked child with a wall-time limit (--limit), so a diverging or crashing solver
// costs at most that. Siconos's answers are also checked with its own fc3d_compute_error
// against csim's fclib_siconos_error (column sic_err_check: |difference| / max(both, 1e-12):
// relative where the errors are meaningful, round-off scaled by 1e-12 below).
// Siconos gets its problem as a dense NumericsMatrix (as csim's dense G) or sparse-block
// (--storage sbm), or the faster of both (--storage both, the default). DSFP and FPP have a
// fixed step rho: they get rho = 1 / (Gershgorin bound of W's largest eigenvalue). A Siconos
// solver stops tightening when a run takes more than a tenth of the limit.
#include <errno.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <numerics/FrictionContactProblem.h>
#include <numerics/Friction_cst.h>
#include <numerics/NonSmoothDrivers.h>
#include <numerics/NumericsMatrix.h>
#include <numerics/NumericsVerbose.h>
#include <numerics/SolverOptions.h>
#include <numerics/SparseBlockMatrix.h>
#include <numerics/fc3d_compute_error.h>

#include "out/fclib.h"
#include "core/solvers/solver.h"

#define MAXS 16          // solvers per family
#define TIGHTEN 7        // tolerances tried below tol: tol, tol/10, ..., tol/1e6
#define LOOSEN 4         // and above it first: tol x 1e4, ..., tol x 10 (each side's own
                         // stopping measure differs from the criterion: csim's eps_scaled at
                         // 1e-6 left Siconos's relative error at 7e-12 on LMGC_100_PR_PerioBox)

// a Siconos solver by name (full: NSGS's error evaluated in full at every sweep)
static const struct {
  const char* name;
  int id, full;
} kSiconos[] = {
    {"NSGS", SICONOS_FRICTION_3D_NSGS, 0},     {"NSGS_FULL", SICONOS_FRICTION_3D_NSGS, 1},
    {"ADMM", SICONOS_FRICTION_3D_ADMM, 0},     {"DSFP", SICONOS_FRICTION_3D_DSFP, 0},
    {"FPP", SICONOS_FRICTION_3D_FPP, 0},       {"VI_FPP", SICONOS_FRICTION_3D_VI_FPP, 0},
    {"NSN_AC", SICONOS_FRICTION_3D_NSN_AC, 0}, {"PROX", SICONOS_FRICTION_3D_PROX, 0},
    {"VI_EG", SICONOS_FRICTION_3D_VI_EG, 0},
};
#define NSICONOS ((int)(sizeof(kSiconos) / sizeof(kSiconos[0])))

// what one run (in the child) reports
typedef struct {
  int status;        // 0 ran, 1 timeout, 2 crashed
  double time;       // s, median of the repeats
  int iterations;
  int info;          // solver's own flag (0 converged)
} run_report;

// one solver's outcome on one file
typedef struct {
  int ran, reached;
  double time, eps, sic_rel, tol_used, check;
  int iterations;
  const char* storage;
} outcome;

// monotonic wall time, s
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// qsort comparator on doubles
static int cmp_dbl(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

// median of n values (sorts them)
static double median(double* v, int n) {
  if (n == 0) return NAN;
  qsort(v, (size_t)n, sizeof(double), cmp_dbl);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// csim index of FCLib index k (per contact [n t1 t2] -> [t1 t2 n])
static int to_csim(int k) {
  static const int to[3] = {2, 0, 1};
  return 3 * (k / 3) + to[k % 3];
}

//---- the two kinds of jobs, run in a child ----

typedef struct {
  int is_siconos;
  // csim
  solver_options copt;
  const solver_problem* cp;
  // siconos
  int sid, full;
  double tol, rho;
  FrictionContactProblem* sp;
} job;

// solve once from zero; fills lambda (csim order), iterations and info; returns the time
static double solve_once(const job* j, double* lambda, double* work, int* iters, int* info) {
  int N = j->is_siconos ? 3 * j->sp->numberOfContacts : 3 * j->cp->nc;
  if (!j->is_siconos) {
    solver* s = NULL;
    csim_error e;
    if (solver_create(&j->copt, j->cp->nc, &s, &e) != CSIM_OK) _exit(3);
    memset(lambda, 0, sizeof(double) * (size_t)N);
    solver_result r;
    double t0 = now();
    solver_solve(s, j->cp, lambda, &r);
    double t = now() - t0;
    *iters = r.iterations;
    *info = !r.converged;
    solver_free(s);
    return t;
  }
  SolverOptions* o = solver_options_create(j->sid);
  o->iparam[SICONOS_IPARAM_MAX_ITER] = 10000000;
  o->dparam[SICONOS_DPARAM_TOL] = j->tol;
  if (j->sid == SICONOS_FRICTION_3D_DSFP || j->sid == SICONOS_FRICTION_3D_FPP)
    o->dparam[SICONOS_FRICTION_3D_NSN_RHO] = j->rho;
  if (j->full)
    o->iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION] =
        SICONOS_FRICTION_3D_NSGS_ERROR_EVALUATION_FULL;
  double *r = work, *u = work + N;
  memset(r, 0, sizeof(double) * (size_t)N);
  memset(u, 0, sizeof(double) * (size_t)N);
  double t0 = now();
  *info = fc3d_driver(j->sp, r, u, o);
  double t = now() - t0;
  *iters = o->iparam[SICONOS_IPARAM_ITER_DONE];
  solver_options_delete(o);
  for (int k = 0; k < N; k++) lambda[to_csim(k)] = r[k];
  return t;
}

// run a job in a forked child with a wall-time limit; lambda (csim order) receives the answer
static void run_job(const job* j, int N, double limit, double* lambda, run_report* rep) {
  memset(rep, 0, sizeof(*rep));
  int fd[2];
  if (pipe(fd) != 0) {
    rep->status = 2;
    return;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    rep->status = 2;
    close(fd[0]);
    close(fd[1]);
    return;
  }
  if (pid == 0) {  // child: solve (repeating short solves), send report + answer
    close(fd[0]);
    double* work = malloc(sizeof(double) * 2 * (size_t)(N + 1));
    double times[7];
    run_report r = {0, 0, 0, 0};
    int nrep = 1;
    for (int k = 0; k < nrep; k++) {
      times[k] = solve_once(j, lambda, work, &r.iterations, &r.info);
      if (k == 0) nrep = times[0] < 0.02 ? 7 : times[0] < 0.2 ? 3 : 1;
    }
    r.time = median(times, nrep);
    const char* p = (const char*)&r;
    size_t left = sizeof(r);
    while (left) {
      ssize_t w = write(fd[1], p, left);
      if (w <= 0) _exit(4);
      p += w;
      left -= (size_t)w;
    }
    p = (const char*)lambda;
    left = sizeof(double) * (size_t)N;
    while (left) {
      ssize_t w = write(fd[1], p, left);
      if (w <= 0) _exit(4);
      p += w;
      left -= (size_t)w;
    }
    _exit(0);
  }
  // parent: read with a deadline
  close(fd[1]);
  size_t need = sizeof(run_report) + sizeof(double) * (size_t)N, got = 0;
  char* buf = malloc(need + 1);
  double deadline = now() + limit;
  int timed_out = 0;
  while (got < need) {
    double left = deadline - now();
    if (left <= 0) {
      timed_out = 1;
      break;
    }
    struct pollfd pf = {fd[0], POLLIN, 0};
    int pr = poll(&pf, 1, (int)(left * 1000) + 1);
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    ssize_t rd = read(fd[0], buf + got, need - got);
    if (rd <= 0) break;
    got += (size_t)rd;
  }
  close(fd[0]);
  if (timed_out) kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  if (got == need) {
    memcpy(rep, buf, sizeof(run_report));
    memcpy(lambda, buf + sizeof(run_report), sizeof(double) * (size_t)N);
  } else {
    rep->status = timed_out ? 1 : 2;
  }
  free(buf);
}

//---- Siconos problems ----

// FCLib-order matrix of p in the requested storage ("dense" or "sbm")
static NumericsMatrix* siconos_matrix(const fclib_problem* p, const char* storage) {
  int N = 3 * p->nc;
  if (!strcmp(storage, "dense")) {
    NumericsMatrix* M = NM_create(NM_DENSE, N, N);
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        M->matrix0[i + (size_t)j * N] = fclib_w(p, to_csim(i), to_csim(j));
    return M;
  }
  // sparse block (3 x 3 blocks) from a triplet of the non-zeros
  NumericsMatrix* T = NM_create(NM_SPARSE, N, N);
  NM_triplet_alloc(T, 1);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double v = fclib_w(p, to_csim(i), to_csim(j));
      if (v != 0) NM_zentry(T, i, j, v, 0);
    }
  NumericsMatrix* M = NM_new();
  M->storageType = NM_SPARSE_BLOCK;
  M->size0 = M->size1 = N;
  M->matrix1 = SBM_new();
  SBM_from_csparse(3, NM_csc(T), M->matrix1);
  NM_free(T);
  return M;
}

//---- results ----

// eps_abs (csim) and Siconos's relative error (csim's implementation) of lambda
static void measure(const fclib_problem* p, const double* lambda, double* eps, double* rel) {
  solver_problem sp = fclib_solver_problem(p);
  sp.R = NULL;
  solver_result r;
  solver_residuals(&sp, lambda, NULL, &r);
  *eps = r.eps_abs;
  *rel = fclib_siconos_error(&sp, lambda, NULL);
}

// split a comma list into at most MAXS items (in place)
static int split(char* s, char** items) {
  int n = 0;
  for (char* tok = strtok(s, ","); tok && n < MAXS; tok = strtok(NULL, ",")) items[n++] = tok;
  return n;
}

// index of a Siconos solver name in kSiconos, -1 when unknown
static int siconos_index(const char* name) {
  for (int k = 0; k < NSICONOS; k++)
    if (!strcmp(kSiconos[k].name, name)) return k;
  return -1;
}

// the command line, on stderr
static void usage(void) {
  fprintf(stderr,
          "usage: bench_siconos [--csim ncp/pgs,...] [--siconos NSGS,NSGS_FULL,ADMM,NSN_AC,PROX,DSFP]\n"
          "                     [--storage dense|sbm|both] [--tol T]\n"
          "                     [--limit SECONDS] [--csv FILE] FILE.hdf5...\n");
}

// "1.23" ms or "-" for a run that did not reach the target
static void fmt_time(char* b, size_t n, const outcome* o) {
  if (o->reached) snprintf(b, n, "%.3g", 1e3 * o->time);
  else snprintf(b, n, "%s", !o->ran ? "-" : "x");
}

// options, then per file: reference, csim solvers, Siconos solvers, table and CSV rows
int main(int argc, char** argv) {
  char csim_list[256] = "ncp/pgs", sic_list[256] = "NSGS,ADMM,DSFP,FPP,VI_FPP";
  const char* storage_opt = "both";
  const char* csv = NULL;
  double tol = 1e-6, limit = 10;
  int nfiles = 0;
  char** files = calloc((size_t)argc + 1, sizeof(char*));
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    int has = i + 1 < argc;
    if (!strcmp(a, "--csim") && has) snprintf(csim_list, sizeof(csim_list), "%s", argv[++i]);
    else if (!strcmp(a, "--siconos") && has) snprintf(sic_list, sizeof(sic_list), "%s", argv[++i]);
    else if (!strcmp(a, "--storage") && has) storage_opt = argv[++i];
    else if (!strcmp(a, "--tol") && has) tol = atof(argv[++i]);
    else if (!strcmp(a, "--limit") && has) limit = atof(argv[++i]);
    else if (!strcmp(a, "--csv") && has) csv = argv[++i];
    else if (a[0] == '-') { usage(); return 2; }
    else files[nfiles++] = argv[i];
  }
  if (nfiles == 0 || !(tol > 0) || !(limit > 0)) {
    usage();
    return 2;
  }
  numerics_set_verbose(0);
  SolverOptions* chk = solver_options_create(SICONOS_FRICTION_3D_NSGS);  // for fc3d_compute_error
  // solver lists
  char* cs[MAXS];
  char* ss[MAXS];
  int ncs = split(csim_list, cs), nss = split(sic_list, ss);
  solver_options copts[MAXS];
  for (int k = 0; k < ncs; k++) {
    char model[64], kind[64];
    if (sscanf(cs[k], "%63[^/]/%63s", model, kind) != 2) {
      fprintf(stderr, "bench_siconos: csim solver '%s' is not model/solver\n", cs[k]);
      return 2;
    }
    int mi = -1, ki = -1;
    for (int m = 0; m < CSIM_NRIGID_MODELS; m++)
      if (!strcmp(csim_model_names[m], model)) mi = m;
    for (int m = 0; m < CSIM_NRIGID_SOLVERS; m++)
      if (!strcmp(csim_solver_names[m], kind)) ki = m;
    char msg[512];
    if (mi < 0 || ki < 0) {
      fprintf(stderr, "bench_siconos: '%s' is not a csim model/solver\n", cs[k]);
      return 2;
    }
    if (!solver_pair_supported((csim_model)mi, (csim_solver)ki, msg, 512)) {
      fprintf(stderr, "bench_siconos: skipping %s: %s\n", cs[k], msg);  // not in this build
      for (int m = k; m + 1 < ncs; m++) cs[m] = cs[m + 1];
      ncs--;
      k--;
      continue;
    }
    memset(&copts[k], 0, sizeof(copts[k]));
    copts[k].model = (csim_model)mi;
    copts[k].kind = (csim_solver)ki;
    copts[k].max_iterations = 100000000;
    copts[k].over_relaxation = 1;
    copts[k].facets = 4;
    copts[k].rho = 1;
    copts[k].rho_adaptive = 1;
  }
  int sids[MAXS];
  for (int k = 0; k < nss; k++)
    if ((sids[k] = siconos_index(ss[k])) < 0) {
      fprintf(stderr, "bench_siconos: unknown Siconos solver '%s'\n", ss[k]);
      return 2;
    }
  const char* storages[2] = {"dense", "sbm"};
  int st0 = !strcmp(storage_opt, "sbm") ? 1 : 0, st1 = !strcmp(storage_opt, "dense") ? 1 : 2;
  if (strcmp(storage_opt, "dense") && strcmp(storage_opt, "sbm") && strcmp(storage_opt, "both")) {
    usage();
    return 2;
  }

  FILE* fc = NULL;
  if (csv) {
    fc = fopen(csv, "w");
    if (!fc) {
      fprintf(stderr, "bench_siconos: cannot write %s: %s\n", csv, strerror(errno));
      return 2;
    }
    fprintf(fc, "file,contacts,form,target_siconos_rel,solver,family,storage,reached,time_s,"
            "iterations,eps_abs,siconos_rel,siconos_tol,sic_err_check\n");
  }
  // table header
  printf("csim vs Siconos %s: every answer must have Siconos's relative error <= %g, computed by "
         "csim's code; times in ms (median of repeats), x = criterion not met, limit %g s\n",
         "4.4", tol, limit);
  printf("%-44s %5s %9s", "file", "nc", "target");
  for (int k = 0; k < ncs; k++) printf(" %10s", cs[k]);
  for (int k = 0; k < nss; k++) printf(" %9s", ss[k]);
  printf(" %9s %8s\n", "sic_best", "ratio");

  double* ratios = calloc((size_t)nfiles + 1, sizeof(double));
  int nratio = 0, rc = 0, nconv_c = 0, nconv_s = 0, nfile_ok = 0;
  double worst_check = 0;
  for (int f = 0; f < nfiles; f++) {
    csim_error e;
    fclib_problem* p = NULL;
    if (fclib_read(files[f], &p, &e) != CSIM_OK) {
      err_print(&e, stderr);
      rc = 2;
      continue;
    }
    int N = 3 * p->nc;
    fprintf(stderr, "bench_siconos: %d/%d %s\n", f + 1, nfiles, files[f]);
    const char* base = strrchr(files[f], '/');
    base = base ? base + 1 : files[f];
    // Siconos problems per storage, in FCLib order
    double* qf = malloc(sizeof(double) * (size_t)(N + 1));
    for (int k = 0; k < N; k++) qf[k] = p->q[to_csim(k)];
    FrictionContactProblem* sp[2] = {NULL, NULL};
    for (int s = st0; s < st1; s++)
      sp[s] = frictionContactProblem_new_with_data(3, p->nc, siconos_matrix(p, storages[s]), qf,
                                                   p->mu);
    // DSFP/FPP step: 1 / Gershgorin bound of lambda_max(W)
    double gmax = 0;
    for (int i = 0; i < N; i++) {
      double s = 0;
      for (int j = 0; j < N; j++) s += fabs(fclib_w(p, i, j));
      if (s > gmax) gmax = s;
    }
    double rho = gmax > 0 ? 1 / gmax : 1;
    double* lam = malloc(sizeof(double) * (size_t)(N + 1));
    // csim solves the problem in its own units (scaled W blocks, q and R)
    double* sg = malloc(sizeof(double) * (size_t)(2 * N + 2));
    double* sblk = malloc(sizeof(double) * (size_t)(9 * p->blocks->nblocks + 1));
    double s_r, s_u;
    solver_problem cp = fclib_scaled_problem(p, sblk, sg, sg + N + 1, &s_r, &s_u);
    cp.R = NULL;
    double* rf = malloc(sizeof(double) * (size_t)(N + 1));
    double* uf = malloc(sizeof(double) * (size_t)(N + 1));
    run_report rep;
    // a Siconos run at tolerance t with storage s: outcome o (eps measured here)
#define SICONOS_RUN(o, ix, s, t)                                                           \
  do {                                                                                     \
    job j_ = {.is_siconos = 1, .sid = kSiconos[ix].id, .full = kSiconos[ix].full,          \
              .tol = (t), .rho = rho, .sp = sp[s]};                                        \
    run_job(&j_, N, limit, lam, &rep);                                                     \
    (o).ran = 1;                                                                           \
    (o).storage = storages[s];                                                             \
    (o).tol_used = (t);                                                                    \
    if (rep.status == 0) {                                                                 \
      measure(p, lam, &(o).eps, &(o).sic_rel);                                             \
      (o).time = rep.time;                                                                 \
      (o).iterations = rep.iterations;                                                     \
      for (int k_ = 0; k_ < N; k_++) rf[k_] = lam[to_csim(k_)];                            \
      double se_ = 0;                                                                      \
      fc3d_compute_error(sp[s], rf, uf, (t), chk, p->q_norm, &se_);                        \
      (o).check = fabs(se_ - (o).sic_rel) / fmax(fmax(se_, (o).sic_rel), 1e-12);            \
    } else {                                                                               \
      (o).eps = INFINITY;                                                                  \
      (o).time = rep.status == 1 ? limit : NAN;                                            \
    }                                                                                      \
  } while (0)

    // the criterion, the same for every answer: Siconos's relative error, csim's code
    double target = tol, accept = tol * (1 + 1e-9);
    // 1. csim solvers: tighten the eps_abs tolerance until the answer meets the criterion
    outcome co[MAXS];
    memset(co, 0, sizeof(co));
    for (int k = 0; k < ncs; k++) {
      double t = tol * pow(10, LOOSEN), prev = INFINITY;
      for (int a = -LOOSEN; a < TIGHTEN; a++, t /= 10) {
        solver_options o = copts[k];
        o.tolerance = t;
        job j = {.is_siconos = 0, .copt = o, .cp = &cp};
        run_job(&j, N, limit, lam, &rep);
        outcome x;
        memset(&x, 0, sizeof(x));
        x.ran = 1;
        x.storage = "dense";
        x.tol_used = t;
        if (rep.status == 0) {
          for (int k_ = 0; k_ < N; k_++) lam[k_] *= s_r;  // the answer in the file's units
          measure(p, lam, &x.eps, &x.sic_rel);
          x.time = rep.time;
          x.iterations = rep.iterations;
          x.reached = x.sic_rel <= accept;
        } else {
          x.eps = x.sic_rel = INFINITY;
          x.time = rep.status == 1 ? limit : NAN;
        }
        co[k] = x;
        // above tol a run that does not improve on a looser one is no reason to stop; from tol
        // on, one that is worse is (an equal one is the same answer: the looser tolerance was
        // already met, e.g. by a Newton step's jump, so tightening has not been tried yet)
        if (x.reached || (a >= 0 && x.sic_rel > prev) || !isfinite(x.sic_rel) ||
            x.time > limit / 10)
          break;
        prev = x.sic_rel;
      }
    }
    // 2. Siconos solvers: tighten their tolerance until the answer meets the criterion
    outcome so[MAXS];
    memset(so, 0, sizeof(so));
    for (int k = 0; k < nss; k++) {
      for (int s = st0; s < st1; s++) {
        outcome best;
        memset(&best, 0, sizeof(best));
        double t = tol * pow(10, LOOSEN), prev = INFINITY;
        for (int a = -LOOSEN; a < TIGHTEN; a++, t /= 10) {
          outcome o;
          memset(&o, 0, sizeof(o));
          SICONOS_RUN(o, sids[k], s, t);
          if (rep.status != 0) o.sic_rel = INFINITY;
          o.reached = o.sic_rel <= accept;
          if (o.check > worst_check && o.eps < INFINITY) worst_check = o.check;
          best = o;
          // stop when reached, when tightening made it worse, or when the next (tighter and
          // slower) run would likely hit the time limit
          if (o.reached || (a >= 0 && o.sic_rel > prev) || !isfinite(o.sic_rel) ||
              o.time > limit / 10)
            break;
          prev = o.sic_rel;
        }
        // keep the faster storage (a reached run beats one that did not reach)
        if (!so[k].ran || (best.reached && (!so[k].reached || best.time < so[k].time)))
          so[k] = best;
      }
    }
    // 3. best of each side and the ratio
    double cbest = INFINITY, sbest = INFINITY;
    for (int k = 0; k < ncs; k++)
      if (co[k].reached && co[k].time < cbest) cbest = co[k].time;
    for (int k = 0; k < nss; k++)
      if (so[k].reached && so[k].time < sbest) sbest = so[k].time;
    double ratio = isfinite(cbest) && isfinite(sbest) ? cbest / sbest : NAN;
    if (isfinite(ratio)) ratios[nratio++] = ratio;
    nconv_c += isfinite(cbest);
    nconv_s += isfinite(sbest);
    nfile_ok++;
    char tb[32];
    printf("%-44.44s %5d %9.2e", base, p->nc, target);
    for (int k = 0; k < ncs; k++) {
      fmt_time(tb, sizeof(tb), &co[k]);
      printf(" %10s", tb);
    }
    for (int k = 0; k < nss; k++) {
      fmt_time(tb, sizeof(tb), &so[k]);
      printf(" %9s", tb);
    }
    if (isfinite(sbest)) printf(" %9.3g", 1e3 * sbest); else printf(" %9s", "-");
    if (isfinite(ratio)) printf(" %8.3g\n", ratio); else printf(" %8s\n", "-");
    fflush(stdout);
    if (fc) {
      const char* form = p->global ? "global" : "local";
      for (int k = 0; k < ncs + nss; k++) {
        const outcome* o = k < ncs ? &co[k] : &so[k - ncs];
        fprintf(fc, "%s,%d,%s,%.6g,%s,%s,%s,%d,%.6g,%d,%.6g,%.6g,%.3g,%.3g\n", files[f], p->nc,
                form, target, k < ncs ? cs[k] : ss[k - ncs], k < ncs ? "csim" : "siconos",
                o->storage ? o->storage : "", o->reached, o->time, o->iterations, o->eps,
                o->sic_rel, o->tol_used, k < ncs ? NAN : o->check);
      }
      fprintf(fc, "%s,%d,%s,%.6g,csim_best/siconos_best,ratio,,%d,%.6g,,,,,\n", files[f], p->nc,
              form, target, isfinite(ratio), ratio);
    }
    for (int s = st0; s < st1; s++) {
      NM_free(sp[s]->M);
      free(sp[s]);
    }
    free(qf);
    free(lam);
    free(sg);
    free(sblk);
    free(rf);
    free(uf);
    fclib_free(p);
  }
  double med = median(ratios, nratio);
  printf("criterion met on %d of %d files by csim's best solver, on %d by Siconos's best\n",
         nconv_c, nfile_ok, nconv_s);
  printf("median ratio csim/Siconos (best solver each side, %d files where both met the "
         "criterion): %.3g  (< 1: csim faster)\n", nratio, med);
  printf("Siconos fc3d_compute_error vs csim's fclib_siconos_error: max difference (relative; floor 1e-12) "
         "%.2g\n", worst_check);
  if (fc) {
    fprintf(fc, "MEDIAN,,,%.6g,csim_best/siconos_best,ratio,,%d,%.6g,,,,,\n", tol, nratio, med);
    fprintf(fc, "CONVERGED,%d,,%.6g,csim_best,count,,%d,,,,,,\n", nfile_ok, tol, nconv_c);
    fprintf(fc, "CONVERGED,%d,,%.6g,siconos_best,count,,%d,,,,,,\n", nfile_ok, tol, nconv_s);
    fclose(fc);
  }
  solver_options_delete(chk);
  free(ratios);
  free(files);
  return rc;
}
