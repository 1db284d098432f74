// cli_solve.c — `csim solve PROBLEM.hdf5|DIR --solver NAME ...`: solve stored frictional contact
// problems (FCLib files, csim's own dumps included) and report accuracy, iterations and time.
//
// Per problem: contacts, the form (local, or global condensed to W = H' M^-1 H), iterations,
// converged (the solver's own criterion), eps_abs (csim's NCP residual, 000 eq. 14, on
// u = W r + q), Siconos's relative error (fc3d_compute_error, fclib.h), the solve time (the
// median of 7 solves below 20 ms, of 3 below 200 ms, else one solve, each from r = 0) and
// eps_scaled. The solver works on the problem in its own units (fclib_scaled_problem: |q| = 1,
// mean diagonal of W = 1) and the tolerance applies to that problem's eps_abs, eps_scaled: FCLib
// files come in any units (|q| from 6e-12 to 1e3 here), and an absolute tolerance on a residual
// that mixes impulse, velocity and their product accepted r = 0 on LMGC_GFC3D-i00501 (|q| 6e-12).
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "core/error.h"
#include "out/fclib.h"
#include "core/solvers/solver.h"

static const char* const kSolveUsage =
    "usage: csim solve PROBLEM.hdf5|DIR --solver NAME [--model M] [--tolerance T]\n"
    "                  [--max-iterations N] [--csv FILE]\n"
    "\n"
    "Solves FCLib frictional contact problems (/fclib_local, or /fclib_global condensed to\n"
    "W = H' M^-1 H) with one of csim's solvers; a directory is searched (recursively) for\n"
    ".hdf5 files, solved in sorted order. Prints one row per problem: contacts, iterations,\n"
    "whether the solver converged, eps_abs (csim's NCP residual, 000 eq. 14), Siconos's\n"
    "relative error (fc3d_compute_error), the solve time (median of repeats when short) and\n"
    "eps_scaled, the eps_abs of the problem in its own units (velocities / |q|, impulses /\n"
    "(|q| / mean diagonal of W)): the solver solves that problem, so the tolerance is relative.\n"
    "  --solver NAME         pgs, admm, ... (default pgs)\n"
    "  --model M             ncp, ccp, lcp, raisim, raisim_ds (default ncp)\n"
    "  --tolerance T         stopping tolerance of the solver on eps_scaled (default 1e-8)\n"
    "  --max-iterations N    iteration cap (default 1000)\n"
    "  --csv FILE            also write the table as CSV\n"
    "exit codes: 0 every problem was read and solved (converged or not: see the table),\n"
    "2 bad input (unreadable or invalid problem, unknown solver)\n";

// one solved (or rejected) problem
typedef struct {
  char* path;
  int ok;                // read and solved
  int nc, global, ndof;
  solver_result res;     // the solver's report on the scaled problem (eps_abs = eps_scaled)
  solver_result unscaled;  // NCP residuals of the answer on u = W r + q
  double s_r, s_u;       // the scales (fclib_scales)
  double sic_abs, sic_rel;
  double time;           // s, median of the repeats
} solve_row;

// growable list of file paths
typedef struct {
  char** v;
  int n, cap;
} path_list;

// append a copy of p; -1 when out of memory
static int list_add(path_list* l, const char* p) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char** v = realloc(l->v, sizeof(char*) * (size_t)cap);
    if (!v) return -1;
    l->v = v;
    l->cap = cap;
  }
  size_t n = strlen(p) + 1;
  l->v[l->n] = malloc(n);
  if (!l->v[l->n]) return -1;
  memcpy(l->v[l->n++], p, n);
  return 0;
}

// release the list and its strings
static void list_free(path_list* l) {
  for (int k = 0; k < l->n; k++) free(l->v[k]);
  free(l->v);
}

// qsort comparator on strings
static int cmp_str(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

// directories on the path of the walk, to detect symlink loops
#define WALK_MAX_DEPTH 16
typedef struct {
  dev_t dev[WALK_MAX_DEPTH + 2];
  ino_t ino[WALK_MAX_DEPTH + 2];
  int n;
  char msg[1200];  // why the walk stopped (-2)
} walk_stack;

// every *.hdf5 file under dir (recursive, hidden entries skipped); -1 on a system error, -2
// (ws->msg says why) on a symlink loop or a tree deeper than WALK_MAX_DEPTH
static int collect(const char* dir, path_list* l, walk_stack* ws) {
  struct stat ds;
  if (stat(dir, &ds) != 0) return -1;
  // a directory already on the path: following it again would never end
  for (int k = 0; k < ws->n; k++)
    if (ws->dev[k] == ds.st_dev && ws->ino[k] == ds.st_ino) {
      snprintf(ws->msg, sizeof(ws->msg), "%s: directory loop (a symbolic link to one of its "
               "parents): not followed twice", dir);
      return -2;
    }
  if (ws->n > WALK_MAX_DEPTH) {
    snprintf(ws->msg, sizeof(ws->msg), "%s: more than %d directory levels", dir, WALK_MAX_DEPTH);
    return -2;
  }
  ws->dev[ws->n] = ds.st_dev;
  ws->ino[ws->n] = ds.st_ino;
  ws->n++;
  DIR* d = opendir(dir);
  if (!d) {
    ws->n--;
    return -1;
  }
  struct dirent* e;
  int rc = 0;
  while ((e = readdir(d)) != NULL && rc == 0) {
    if (e->d_name[0] == '.') continue;
    size_t n = strlen(dir) + strlen(e->d_name) + 2;
    char* p = malloc(n);
    if (!p) {
      rc = -1;
      break;
    }
    snprintf(p, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", e->d_name);
    struct stat sb;
    if (stat(p, &sb) == 0) {
      size_t k = strlen(e->d_name);
      if (S_ISDIR(sb.st_mode)) rc = collect(p, l, ws);
      else if (k > 5 && !strcmp(e->d_name + k - 5, ".hdf5")) rc = list_add(l, p);
    }
    free(p);
  }
  closedir(d);
  ws->n--;
  return rc;
}

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
  qsort(v, (size_t)n, sizeof(double), cmp_dbl);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// read and solve one file into row; returns CSIM_OK or the reader's/solver's status (printed)
static csim_status solve_one(const char* path, const solver_options* opt, solve_row* row) {
  csim_error err;
  err_clear(&err);
  fclib_problem* fp = NULL;
  csim_status st = fclib_read(path, &fp, &err);
  if (st != CSIM_OK) {
    err_print(&err, stderr);
    return st;
  }
  row->nc = fp->nc;
  row->global = fp->global;
  row->ndof = fp->ndof;
  solver* s = NULL;
  st = solver_create(opt, fp->nc, &s, &err);
  size_t n3 = 3 * (size_t)fp->nc + 1;
  double* lambda = calloc(n3, sizeof(double));
  double* sg = calloc(2 * n3, sizeof(double));  // scaled q, then scaled R
  double* sblk = calloc(9 * (size_t)fp->blocks->nblocks + 1, sizeof(double));
  if (st == CSIM_OK && (!lambda || !sg || !sblk)) st = err_set(&err, CSIM_ERR_RUN, path, 0, 0, NULL, "out of memory");
  if (st != CSIM_OK) {
    err_print(&err, stderr);
    free(lambda);
    free(sg);
    free(sblk);
    solver_free(s);
    fclib_free(fp);
    return st;
  }
  solver_problem p = fclib_solver_problem(fp);
  solver_problem ps = fclib_scaled_problem(fp, sblk, sg, sg + n3, &row->s_r, &row->s_u);
  // timed solves from r = 0 of the scaled problem: more repeats for short solves
  double times[7];
  int nrep = 1;
  for (int k = 0; k < nrep; k++) {
    memset(lambda, 0, sizeof(double) * 3 * (size_t)fp->nc);
    double t0 = now();
    solver_solve(s, &ps, lambda, &row->res);
    times[k] = now() - t0;
    if (k == 0) nrep = times[0] < 0.02 ? 7 : times[0] < 0.2 ? 3 : 1;
  }
  row->time = median(times, nrep);
  for (int k = 0; k < 3 * fp->nc; k++) lambda[k] *= row->s_r;
  solver_residuals(&p, lambda, NULL, &row->unscaled);
  row->sic_rel = fclib_siconos_error(&p, lambda, &row->sic_abs);
  row->ok = 1;
  free(lambda);
  free(sg);
  free(sblk);
  solver_free(s);
  fclib_free(fp);
  return CSIM_OK;
}

// index of name in a name table, -1 when absent
static int find_name(const char* const* names, int n, const char* name) {
  for (int k = 0; k < n; k++)
    if (!strcmp(names[k], name)) return k;
  return -1;
}

// "a, b, c" from a name table
static void join_names(char* buf, size_t n, const char* const* names, int count) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < count && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", names[i]);
}

// parse a number option; returns 0 on success
static int parse_num(const char* opt, const char* s, double lo, double* v) {
  char* end = NULL;
  errno = 0;
  double x = strtod(s, &end);
  if (!end || end == s || *end || errno || !isfinite(x) || !(x > lo)) {
    fprintf(stderr, "csim: error: solve: %s expects a number > %g, found '%s'\n", opt, lo, s);
    return -1;
  }
  *v = x;
  return 0;
}

// parse, pick the model/solver pair, collect the files, solve and print (cli.h)
int cli_solve(int argc, char** argv) {
  const char* input = NULL;
  const char* csv = NULL;
  const char* sname = "pgs";
  const char* mname = "ncp";
  double tol = 1e-8, maxit = 1000;
  for (int i = 0; i < argc; i++) {
    const char* a = argv[i];
    int has = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(kSolveUsage, stdout);
      return CSIM_OK;
    } else if (!strcmp(a, "--solver") && has) {
      sname = argv[++i];
    } else if (!strcmp(a, "--model") && has) {
      mname = argv[++i];
    } else if (!strcmp(a, "--tolerance") && has) {
      if (parse_num(a, argv[++i], 0, &tol)) return CSIM_ERR_INPUT;
    } else if (!strcmp(a, "--max-iterations") && has) {
      if (parse_num(a, argv[++i], 0, &maxit)) return CSIM_ERR_INPUT;
      if (maxit != floor(maxit) || maxit > 1e9) {
        fprintf(stderr, "csim: error: solve: --max-iterations expects an integer >= 1, found "
                "'%s'\n", argv[i]);
        return CSIM_ERR_INPUT;
      }
    } else if (!strcmp(a, "--csv") && has) {
      csv = argv[++i];
    } else if (a[0] == '-' || input) {
      fprintf(stderr, "csim: error: solve: unexpected argument '%s'\n%s", a, kSolveUsage);
      return CSIM_ERR_INPUT;
    } else {
      input = a;
    }
  }
  if (!input) {
    fprintf(stderr, "csim: error: solve: missing PROBLEM.hdf5 or DIR\n%s", kSolveUsage);
    return CSIM_ERR_INPUT;
  }

  // model and solver: names, then a pair the solver table implements
  char names[512];
  int mi = find_name(csim_model_names, CSIM_NRIGID_MODELS, mname);
  int si = find_name(csim_solver_names, CSIM_NRIGID_SOLVERS, sname);
  if (mi < 0) {
    join_names(names, sizeof(names), csim_model_names, CSIM_NRIGID_MODELS);
    fprintf(stderr, "csim: error: solve: unknown model '%s' (expected one of: %s)\n", mname, names);
    return CSIM_ERR_INPUT;
  }
  if (si < 0) {
    join_names(names, sizeof(names), csim_solver_names, CSIM_NRIGID_SOLVERS);
    fprintf(stderr, "csim: error: solve: unknown solver '%s' (expected one of: %s)\n", sname, names);
    return CSIM_ERR_INPUT;
  }
  char msg[1024];
  if (!solver_pair_supported((csim_model)mi, (csim_solver)si, msg, sizeof(msg))) {
    fprintf(stderr, "csim: error: solve: %s\n", msg);
    return CSIM_ERR_INPUT;
  }
  solver_options opt;
  memset(&opt, 0, sizeof(opt));
  opt.model = (csim_model)mi;
  opt.kind = (csim_solver)si;
  opt.tolerance = tol;
  opt.max_iterations = (int)maxit;
  opt.over_relaxation = 1;
  opt.facets = 4;
  opt.rho = 1;
  opt.rho_adaptive = 1;
  opt.criterion = SOLVER_STOP_NCP;  // the scenario default: every model stops on eps_abs

  // the files: one, or every .hdf5 under a directory, sorted
  path_list files = {NULL, 0, 0};
  struct stat sb;
  if (stat(input, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    walk_stack ws;
    memset(&ws, 0, sizeof(ws));
    int wrc = collect(input, &files, &ws);
    if (wrc != 0) {
      if (wrc == -2)
        fprintf(stderr, "csim: error: %s\n", ws.msg);
      else
        fprintf(stderr, "csim: error: %s: cannot list the directory: %s\n", input, strerror(errno));
      list_free(&files);
      return CSIM_ERR_INPUT;
    }
    if (files.n == 0) {
      fprintf(stderr, "csim: error: %s: no .hdf5 files in this directory\n", input);
      list_free(&files);
      return CSIM_ERR_INPUT;
    }
    qsort(files.v, (size_t)files.n, sizeof(char*), cmp_str);
  } else if (list_add(&files, input) != 0) {
    list_free(&files);
    return CSIM_ERR_RUN;
  }
  FILE* fcsv = NULL;
  if (csv && !(fcsv = fopen(csv, "w"))) {
    fprintf(stderr, "csim: error: %s: cannot write the CSV file: %s\n", csv, strerror(errno));
    list_free(&files);
    return CSIM_ERR_INPUT;
  }

  // solve and print as we go
  int rc = CSIM_OK, nok = 0, nconv = 0;
  // files under a directory are shown relative to it
  size_t skip = files.n > 1 || strcmp(files.v[0], input) ? strlen(input) : 0, w = 4;
  if (skip && input[skip - 1] != '/') skip++;
  for (int k = 0; k < files.n; k++)
    if (strlen(files.v[k] + skip) > w) w = strlen(files.v[k] + skip);
  printf("csim solve: model %s, solver %s, tolerance %g, max iterations %d\n", mname, sname, tol,
         opt.max_iterations);
  printf("%-*s %8s %6s %7s %4s %11s %11s %11s %11s\n", (int)w, "file", "contacts", "form",
         "iters", "conv", "eps_abs", "siconos_rel", "time_ms", "eps_scaled");
  if (fcsv)
    fprintf(fcsv, "file,status,contacts,form,ndof,model,solver,tolerance,iterations,converged,"
            "eps_abs,eps_p,eps_d,eps_c,siconos_abs,siconos_rel,time_s,eps_scaled,scale_r,scale_u\n");
  for (int k = 0; k < files.n; k++) {
    solve_row row;
    memset(&row, 0, sizeof(row));
    row.path = files.v[k];
    fflush(stdout);
    if (solve_one(files.v[k], &opt, &row) != CSIM_OK) {
      rc = CSIM_ERR_INPUT;
      printf("%-*s %8s\n", (int)w, row.path + skip, "error");
      if (fcsv) fprintf(fcsv, "%s,error,,,,%s,%s,%g,,,,,,,,,,,,\n", row.path, mname, sname, tol);
      continue;
    }
    nok++;
    nconv += row.res.converged;
    printf("%-*s %8d %6s %7d %4s %11.3e %11.3e %11.4g %11.3e\n", (int)w, row.path + skip, row.nc,
           row.global ? "global" : "local", row.res.iterations, row.res.converged ? "yes" : "no",
           row.unscaled.eps_abs, row.sic_rel, 1e3 * row.time, row.res.eps_abs);
    if (fcsv)
      fprintf(fcsv, "%s,ok,%d,%s,%d,%s,%s,%.17g,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
              "%.17g,%.17g,%.17g\n", row.path, row.nc, row.global ? "global" : "local", row.ndof,
              mname, sname, tol, row.res.iterations, row.res.converged, row.unscaled.eps_abs,
              row.unscaled.eps_p, row.unscaled.eps_d, row.unscaled.eps_c, row.sic_abs,
              row.sic_rel, row.time, row.res.eps_abs, row.s_r, row.s_u);
  }
  printf("%d problem%s: %d solved, %d converged, %d rejected\n", files.n, files.n == 1 ? "" : "s",
         nok, nconv, files.n - nok);
  if (fcsv && fclose(fcsv) != 0) {
    fprintf(stderr, "csim: error: %s: cannot write the CSV file\n", csv);
    rc = CSIM_ERR_INPUT;
  }
  list_free(&files);
  return rc;
}
