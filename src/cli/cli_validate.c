// cli_validate.c — `csim validate cubetoss` (every contact model against recorded real cube
// tosses, seed 003 Tab. III) and `csim identify cubetoss` (contact parameters by minimising mean
// e_q: coarse grid, candidates confirmed on the full training split, then Nelder-Mead).
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "run/cubetoss.h"
#include "run/identify.h"
#include "core/error.h"
#include "io/scenario.h"

#define DEFAULT_DATA "../shared/data/cubetoss/cube_tosses.h5"
#define MAXMODEL CSIM_NMODELS
#define MAXSET 32

static const char* const kValidateUsage =
    "usage: csim validate cubetoss [--data FILE.h5] [--group G] [--model M]... [--params FILE.yaml]\n"
    "                              [--jobs N] [--out DIR] [--tosses N|A-B] [--substeps N]\n"
    "                              [--set key=value]... [--quiet]\n"
    "\n"
    "Simulates every toss of a group of recorded cube tosses from its first row and scores it\n"
    "against the recording with seed 003's e_q (eq. 3), position and rotation errors.\n"
    "  --data FILE.h5    tosses (default " DEFAULT_DATA ")\n"
    "  --group G         group of the file (default dairlib550_eval)\n"
    "  --model M         contact model (repeatable; default every model)\n"
    "  --params FILE     parameters per model (YAML written by csim identify; default: the\n"
    "                    parameters csim identified and ships)\n"
    "  --jobs N          threads (default 1; results do not depend on N)\n"
    "  --out DIR         per-toss results DIR/cubetoss.csv and DIR/cubetoss.h5 (default out/cubetoss)\n"
    "  --tosses N|A-B    the first N tosses, or tosses A to B inclusive (default all)\n"
    "  --substeps N      steps per data period (default 10: dt = 1/1480 s as in seed 003)\n"
    "  --set key=value   scenario override applied to every model (e.g. world.ground.height=-0.0012)\n"
    "  --quiet           no table\n"
    "exit codes: 0 success, 1 output error, 2 bad input\n";

static const char* const kIdentifyUsage =
    "usage: csim identify cubetoss [--data FILE.h5] [--group G] [--model M]... [--jobs N]\n"
    "                              [--tosses N|A-B] [--max-evals N] [--substeps N] [--out FILE.yaml]\n"
    "                              [--set key=value]... [--quiet]\n"
    "\n"
    "Fits each model's contact parameters by minimising mean e_q over the training split (tosses\n"
    "whose physical toss index is even; held out: odd), by a coarse grid whose best candidates are\n"
    "re-scored on the full training split, then Nelder-Mead; prints training and held-out e_q and\n"
    "writes the parameters as a params file for csim validate --params.\n"
    "  --max-evals N     Nelder-Mead evaluations per model (default 40)\n"
    "  --out FILE.yaml   params file (default out/cubetoss_params.yaml)\n"
    "  (other options as csim validate)\n"
    "exit codes: 0 success, 1 output error, 2 bad input\n";

// options shared by both commands
typedef struct {
  const char* data;
  const char* group;
  const char* models[MAXMODEL];
  int nmodel;
  const char* params;
  int jobs;
  const char* out;
  const char* tosses;
  int substeps;
  int max_evals;
  const char* sets[MAXSET];
  int nset;
  int quiet;
} args;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse_int(const char* opt, const char* s, int lo, int hi, int* v) {
  char* end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (errno || *end || end == s || x < lo || x > hi) {
    fprintf(stderr, "csim: error: %s expects an integer in [%d, %d], got '%s'\n", opt, lo, hi, s);
    return -1;
  }
  *v = (int)x;
  return 0;
}

// parse argv (after "cubetoss"); returns -1 on a bad option (message printed), 1 for --help
static int parse_args(int argc, char** argv, args* a, const char* usage) {
  for (int i = 0; i < argc; i++) {
    const char* o = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
      fputs(usage, stdout);
      return 1;
    }
    if (!strcmp(o, "--quiet")) {
      a->quiet = 1;
      continue;
    }
    if (!v) {
      fprintf(stderr, "csim: error: unknown option or missing value: '%s'\n\n%s", o, usage);
      return -1;
    }
    i++;
    if (!strcmp(o, "--data")) a->data = v;
    else if (!strcmp(o, "--group")) a->group = v;
    else if (!strcmp(o, "--params")) a->params = v;
    else if (!strcmp(o, "--out")) a->out = v;
    else if (!strcmp(o, "--tosses")) a->tosses = v;
    else if (!strcmp(o, "--jobs")) { if (parse_int(o, v, 1, 64, &a->jobs)) return -1; }
    else if (!strcmp(o, "--substeps")) { if (parse_int(o, v, 1, 10000, &a->substeps)) return -1; }
    else if (!strcmp(o, "--max-evals")) { if (parse_int(o, v, 0, 100000, &a->max_evals)) return -1; }
    else if (!strcmp(o, "--set")) {
      if (a->nset >= MAXSET) { fprintf(stderr, "csim: error: more than %d --set\n", MAXSET); return -1; }
      a->sets[a->nset++] = v;
    } else if (!strcmp(o, "--model")) {
      if (scn_name_index(csim_model_names, v) < 0) {
        fprintf(stderr, "csim: error: --model: unknown contact model '%s' (expected one of:", v);
        for (int k = 0; csim_model_names[k]; k++) fprintf(stderr, " %s", csim_model_names[k]);
        fprintf(stderr, ")\n");
        return -1;
      }
      int dup = 0;
      for (int k = 0; k < a->nmodel; k++) dup |= !strcmp(a->models[k], v);
      if (!dup) a->models[a->nmodel++] = v;
    } else {
      fprintf(stderr, "csim: error: unknown option '%s'\n\n%s", o, usage);
      return -1;
    }
  }
  if (a->nmodel == 0)
    for (int k = 0; k < CSIM_NMODELS; k++) a->models[a->nmodel++] = csim_model_names[k];
  return 0;
}

// the toss indices selected by --tosses ("N": the first N; "A-B": A..B inclusive)
static int select_tosses(const char* spec, int ntoss, int** idx, int* n) {
  int a = 0, b = ntoss - 1;
  if (spec) {
    char* end;
    long x = strtol(spec, &end, 10);
    if (end != spec && *end == 0 && x >= 1 && x <= ntoss) {
      b = (int)x - 1;
    } else if (end != spec && *end == '-' && x >= 0 && x < ntoss) {
      char* e2;
      long y = strtol(end + 1, &e2, 10);
      if (e2 == end + 1 || *e2 || y < x || y >= ntoss) goto bad;
      a = (int)x;
      b = (int)y;
    } else {
      goto bad;
    }
  }
  *n = b - a + 1;
  *idx = malloc(sizeof(int) * (size_t)(*n > 0 ? *n : 1));
  if (!*idx) return -1;
  for (int i = 0; i < *n; i++) (*idx)[i] = a + i;
  return 0;
bad:
  fprintf(stderr, "csim: error: --tosses expects N in [1, %d] or A-B with 0 <= A <= B < %d, got '%s'\n", ntoss,
          ntoss, spec);
  return -1;
}

// the parameters of one model: from --params, or the shipped ones
static csim_status model_params(const char* text, const char* file, const char* name, ct_model* m,
                                csim_error* err) {
  int found = 0;
  csim_status st = ct_params_parse(text, file, name, m, &found, err);
  // a model the file does not name would otherwise run silently with the scenario defaults
  if (st == CSIM_OK && !found)
    st = err_set(err, CSIM_ERR_INPUT, file, 0, 0, name,
                 "no parameters for model '%s' (name it in the file, `%s: {}` for the scenario defaults, "
                 "or choose models with --model)", name, name);
  return st;
}

static int cmp_dbl(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// summary statistics of one model over its successful tosses
typedef struct {
  int n, nfail;
  double eq, eq_sd, eq_med, pos, pos_sd, rot, rot_sd, us_step, ms_toss;
} summary;

static void summarise(const ct_result* r, int n, summary* s) {
  memset(s, 0, sizeof(*s));
  double* e = malloc(sizeof(double) * (size_t)(n ? n : 1));
  long steps = 0;
  double tst = 0, ttot = 0;
  for (int i = 0; i < n; i++) {
    steps += r[i].steps;
    tst += r[i].t_steps;
    ttot += r[i].t_total;
    if (r[i].failed) { s->nfail++; continue; }
    if (e) e[s->n] = r[i].eq;
    s->n++;
    s->eq += r[i].eq;
    s->pos += r[i].pos;
    s->rot += r[i].rot;
  }
  int k = s->n;
  if (k) {
    s->eq /= k; s->pos /= k; s->rot /= k;
    for (int i = 0; i < n; i++) {
      if (r[i].failed) continue;
      s->eq_sd += (r[i].eq - s->eq) * (r[i].eq - s->eq);
      s->pos_sd += (r[i].pos - s->pos) * (r[i].pos - s->pos);
      s->rot_sd += (r[i].rot - s->rot) * (r[i].rot - s->rot);
    }
    // population standard deviation, as seed 003 Tab. III's sigma
    s->eq_sd = sqrt(s->eq_sd / k); s->pos_sd = sqrt(s->pos_sd / k); s->rot_sd = sqrt(s->rot_sd / k);
    if (e) {
      qsort(e, (size_t)k, sizeof(double), cmp_dbl);
      s->eq_med = k % 2 ? e[k / 2] : 0.5 * (e[k / 2 - 1] + e[k / 2]);
    }
  } else {
    s->eq = s->eq_sd = s->eq_med = s->pos = s->pos_sd = s->rot = s->rot_sd = NAN;
  }
  s->us_step = steps ? 1e6 * tst / (double)steps : NAN;
  s->ms_toss = n ? 1e3 * ttot / n : NAN;
  free(e);
}

static void print_line(const char* name, const summary* s) {
  printf("%-14s e_q %.4f ± %.4f  median %.4f  pos %5.1f ± %5.1f %%  rot %5.1f ± %5.1f deg  %6.2f us/step"
         "  %6.2f ms/toss  failures %d/%d\n",
         name, s->eq, s->eq_sd, s->eq_med, s->pos, s->pos_sd, s->rot, s->rot_sd, s->us_step, s->ms_toss,
         s->nfail, s->n + s->nfail);
}

// mkdir -p for one level (the output directory and its parent when missing)
static int ensure_dir(const char* dir) {
  struct stat sb;
  if (stat(dir, &sb) == 0) return S_ISDIR(sb.st_mode) ? 0 : -1;
  char parent[1024];
  snprintf(parent, sizeof(parent), "%s", dir);
  char* sl = strrchr(parent, '/');
  if (sl && sl != parent) {
    *sl = 0;
    if (ensure_dir(parent)) return -1;
  }
  return mkdir(dir, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

static herr_t put_str_attr(hid_t obj, const char* name, const char* val) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, strlen(val) + 1);
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t r = a < 0 ? -1 : H5Awrite(a, t, val);
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  H5Tclose(t);
  return r;
}

static herr_t put_1d(hid_t g, const char* name, hid_t ft, hid_t mt, const void* buf, hsize_t n, hsize_t cols,
                     const char* units) {
  hsize_t dims[2] = {n, cols};
  hid_t sp = H5Screate_simple(cols ? 2 : 1, dims, NULL);
  hid_t ds = H5Dcreate2(g, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t r = ds < 0 ? -1 : (n ? H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : 0);
  if (ds >= 0 && units) put_str_attr(ds, "units", units);
  if (ds >= 0) H5Dclose(ds);
  H5Sclose(sp);
  return r;
}

// per-toss results of every model: CSV and HDF5, each written to a temporary name and renamed
static int write_results(const args* a, const ct_data* d, const int* idx, int n, ct_model* const* mdl,
                         ct_result* const* res, double* const* traj, int nmodel, const char* params_src) {
  if (ensure_dir(a->out)) {
    fprintf(stderr, "csim: error: cannot create the output directory '%s'\n", a->out);
    return -1;
  }
  char csv[1100], csvt[1200], h5[1100], h5t[1200];
  snprintf(csv, sizeof(csv), "%s/cubetoss.csv", a->out);
  snprintf(h5, sizeof(h5), "%s/cubetoss.h5", a->out);
  snprintf(csvt, sizeof(csvt), "%s.tmp.%d", csv, (int)getpid());
  snprintf(h5t, sizeof(h5t), "%s.tmp.%d", h5, (int)getpid());
  FILE* f = fopen(csvt, "w");
  if (!f) {
    fprintf(stderr, "csim: error: cannot write '%s'\n", csvt);
    return -1;
  }
  fprintf(f, "model,toss,rows,e_q,pos_err_pct,rot_err_deg,failed,steps,us_per_step,ms_total\n");
  for (int m = 0; m < nmodel; m++)
    for (int j = 0; j < n; j++) {
      int T;
      ct_toss(d, idx[j], &T);
      const ct_result* r = &res[m][j];
      fprintf(f, "%s,%d,%d,%.9g,%.9g,%.9g,%d,%ld,%.6g,%.6g\n", mdl[m]->name, idx[j], T, r->eq, r->pos, r->rot,
              r->failed, r->steps, r->steps ? 1e6 * r->t_steps / (double)r->steps : NAN, 1e3 * r->t_total);
    }
  int bad = ferror(f);
  bad |= fclose(f) != 0;
  // HDF5
  hid_t h = bad ? -1 : H5Fcreate(h5t, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (h < 0) bad = 1;
  if (!bad) {
    char buf[256];
    put_str_attr(h, "data", d->file);
    put_str_attr(h, "group", d->group);
    snprintf(buf, sizeof(buf), "%d", a->substeps);
    put_str_attr(h, "substeps", buf);
    snprintf(buf, sizeof(buf), "%.17g", d->dt / a->substeps);
    put_str_attr(h, "dt", buf);
    put_str_attr(h, "params", params_src);
    put_str_attr(h, "metric",
                 "e_q = mean over rows of (2/side)|dp|^2 + angle^2 (seed 003 eq. 3); pos_err = mean |dp|/side "
                 "in %; rot_err = mean angle in degrees; rows 0..T-1, simulated row k = state after k data "
                 "periods");
    put_str_attr(h, "q", "simulated configurations [x y z qx qy qz qw] at the data rows, tosses "
                         "concatenated in the order of 'toss' (offsets)");
    long* off = malloc(sizeof(long) * (size_t)(n + 1));
    int* ti = malloc(sizeof(int) * (size_t)(n ? n : 1));
    double* col = malloc(sizeof(double) * (size_t)(n ? n : 1));
    int* fl = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!off || !ti || !col || !fl) bad = 1;
    for (int j = 0; !bad && j < n; j++) ti[j] = idx[j];
    if (!bad) {
      off[0] = 0;
      for (int j = 0; j < n; j++) {
        int T;
        ct_toss(d, idx[j], &T);
        off[j + 1] = off[j] + T;
      }
    }
    for (int m = 0; !bad && m < nmodel; m++) {
      hid_t g = H5Gcreate2(h, mdl[m]->name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      if (g < 0) { bad = 1; break; }
      char ptxt[1024] = "";
      size_t pl = 0;
      for (int k = 0; k < mdl[m]->np && pl < sizeof(ptxt) - 64; k++)
        pl += (size_t)snprintf(ptxt + pl, sizeof(ptxt) - pl, "%s%s: %.9g", k ? ", " : "", mdl[m]->key[k],
                               mdl[m]->val[k]);
      if (mdl[m]->combine[0] && pl < sizeof(ptxt) - 64)
        snprintf(ptxt + pl, sizeof(ptxt) - pl, "%scombine: %s", pl ? ", " : "", mdl[m]->combine);
      put_str_attr(g, "contact", ptxt);
      bad |= put_1d(g, "toss", H5T_STD_I32LE, H5T_NATIVE_INT, ti, (hsize_t)n, 0, "index in the group") < 0;
      bad |= put_1d(g, "offsets", H5T_STD_I64LE, H5T_NATIVE_LONG, off, (hsize_t)n + 1, 0, "row") < 0;
      const char* names[5] = {"e_q", "pos_err", "rot_err", "us_per_step", "ms_total"};
      const char* units[5] = {"1", "% of side", "deg", "us", "ms"};
      for (int c = 0; c < 5 && !bad; c++) {
        for (int j = 0; j < n; j++) {
          const ct_result* r = &res[m][j];
          col[j] = c == 0 ? r->eq : c == 1 ? r->pos : c == 2 ? r->rot
                   : c == 3 ? (r->steps ? 1e6 * r->t_steps / (double)r->steps : NAN) : 1e3 * r->t_total;
        }
        bad |= put_1d(g, names[c], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, col, (hsize_t)n, 0, units[c]) < 0;
      }
      for (int j = 0; j < n; j++) fl[j] = res[m][j].failed;
      bad |= put_1d(g, "failed", H5T_STD_I32LE, H5T_NATIVE_INT, fl, (hsize_t)n, 0, "1 = failed") < 0;
      bad |= put_1d(g, "q", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, traj[m], (hsize_t)off[n], 7, "m, 1") < 0;
      H5Gclose(g);
    }
    free(off); free(ti); free(col); free(fl);
    if (H5Fclose(h) < 0) bad = 1;
  }
  if (!bad && (rename(csvt, csv) || rename(h5t, h5))) bad = 1;
  if (bad) {
    unlink(csvt);
    unlink(h5t);
    fprintf(stderr, "csim: error: could not write the results under '%s'\n", a->out);
    return -1;
  }
  return 0;
}

// the data, the selected tosses and the params text shared by both commands
typedef struct {
  ct_data* d;
  int* idx;                 // selected tosses
  int n;
  char* ptext;              // --params text (NULL: the built-in parameters)
  const char* pname;        // where the parameters come from, for messages
} loaded;

static void loaded_free(loaded* L) {
  free(L->ptext);
  free(L->idx);
  ct_free(L->d);
  memset(L, 0, sizeof(*L));
}

// load the data and the params text; -1 (the error printed, nothing left loaded) on failure
static int setup(args* a, loaded* L) {
  memset(L, 0, sizeof(*L));
  csim_error err;
  err_clear(&err);
  int bad = 0;
  if (ct_load(a->data, a->group, &L->d, &err) != CSIM_OK) {
    err_print(&err, stderr);
    bad = 1;
  } else if (L->d->ntoss < 1) {
    fprintf(stderr, "csim: error: %s: group '%s' holds no toss\n", a->data, a->group);
    bad = 1;
  } else if (select_tosses(a->tosses, L->d->ntoss, &L->idx, &L->n)) {
    bad = 1;
  }
  L->pname = "built-in (src/run/cubetoss_params.c)";
  if (!bad && a->params) {
    if (ct_params_read(a->params, &L->ptext, &err) != CSIM_OK) {
      err_print(&err, stderr);
      bad = 1;
    }
    L->pname = a->params;
  }
  if (bad) loaded_free(L);
  return bad ? -1 : 0;
}

static void defaults(args* a) {
  memset(a, 0, sizeof(*a));
  a->data = DEFAULT_DATA;
  a->group = "dairlib550_eval";
  a->jobs = 1;
  a->substeps = 10;
  a->max_evals = 40;
}

// the common head of validate and identify: the data set name, -h, the options (defaults, out
// the default output); 0 to go on, 1 when help was printed (exit 0), -1 on bad input (exit 2)
static int begin(int argc, char** argv, const char* cmd, const char* usage, const char* out,
                 args* a) {
  if (argc < 1 || strcmp(argv[0], "cubetoss")) {
    if (argc >= 1 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
      fputs(usage, stdout);
      return 1;
    }
    fprintf(stderr, "csim: error: %s: expected the data set name 'cubetoss'\n\n%s", cmd, usage);
    return -1;
  }
  defaults(a);
  a->out = out;
  int pr = parse_args(argc - 1, argv + 1, a, usage);
  return pr > 0 ? 1 : pr ? -1 : 0;
}

// every model's parameters and scenario, checked before anything runs, with room for its
// results and trajectories (rows rows of all tosses); 0 or an exit code (the error printed)
static int validate_prepare(const args* a, const loaded* L, long rows, ct_model** mdl,
                            ct_result** res, double** traj) {
  csim_error err;
  err_clear(&err);
  for (int m = 0; m < a->nmodel; m++) {
    mdl[m] = calloc(1, sizeof(ct_model));
    res[m] = calloc((size_t)L->n, sizeof(ct_result));
    traj[m] = calloc((size_t)rows * 7, sizeof(double));
    if (!mdl[m] || !res[m] || !traj[m]) {
      fprintf(stderr, "csim: error: out of memory\n");
      return 1;
    }
    const char* text = L->ptext ? L->ptext : ct_default_params();
    if (model_params(text, L->ptext ? a->params : "built-in params", a->models[m], mdl[m],
                     &err) != CSIM_OK) {
      err_print(&err, stderr);
      return CSIM_ERR_INPUT;
    }
    ct_options o = {a->substeps, a->jobs, a->sets, a->nset};
    scn_config* cfg = NULL;
    int bad = ct_scenario(L->d, mdl[m], &o, &cfg, &err) != CSIM_OK;
    if (bad) err_print(&err, stderr);
    scn_free(cfg);
    if (bad) return CSIM_ERR_INPUT;
  }
  return 0;
}

// run every model on the selected tosses, a table line per model; 0 or an exit code
static int validate_run(const args* a, const loaded* L, ct_model** mdl, ct_result** res,
                        double** traj) {
  csim_error err;
  err_clear(&err);
  for (int m = 0; m < a->nmodel; m++) {
    ct_options o = {a->substeps, a->jobs, a->sets, a->nset};
    if (ct_run(L->d, mdl[m], &o, L->idx, L->n, res[m], traj[m], &err) != CSIM_OK) {
      err_print(&err, stderr);
      return CSIM_ERR_INPUT;
    }
    summary s;
    summarise(res[m], L->n, &s);
    if (!a->quiet) {
      print_line(mdl[m]->name, &s);
      fflush(stdout);
    }
  }
  return 0;
}

int cli_validate(int argc, char** argv) {
  args a;
  int st0 = begin(argc, argv, "validate", kValidateUsage, "out/cubetoss", &a);
  if (st0) return st0 > 0 ? 0 : CSIM_ERR_INPUT;
  double t0 = now();
  loaded L;
  if (setup(&a, &L)) return CSIM_ERR_INPUT;
  int n = L.n;
  ct_model* mdl[MAXMODEL] = {0};
  ct_result* res[MAXMODEL] = {0};
  double* traj[MAXMODEL] = {0};
  long rows = 0;
  for (int j = 0; j < n; j++) {
    int T;
    ct_toss(L.d, L.idx[j], &T);
    rows += T;
  }
  int rc = validate_prepare(&a, &L, rows, mdl, res, traj);
  if (!rc && !a.quiet) {
    printf("cubetoss: %s group %s, %d tosses (%ld rows), %d substeps of %.6g s (dt %.6g s), %d jobs, "
           "params %s\n",
           a.data, a.group, n, rows, a.substeps, L.d->dt, L.d->dt / a.substeps, a.jobs, L.pname);
    printf("seed 003 Tab. III (dairlib550, 550 tosses): Drake e_q 0.27 ± 0.57, Bullet 0.27 ± 0.57, "
           "MuJoCo 0.38 ± 0.62\n");
  }
  if (!rc) rc = validate_run(&a, &L, mdl, res, traj);
  if (!rc && write_results(&a, L.d, L.idx, n, mdl, res, traj, a.nmodel, L.pname)) rc = CSIM_ERR_RUN;
  if (!rc && !a.quiet)
    printf("wrote %s/cubetoss.csv and %s/cubetoss.h5 (%.2f s in all, %.2f ms per toss and model)\n", a.out,
           a.out, now() - t0, 1e3 * (now() - t0) / (n * a.nmodel));
  for (int m = 0; m < MAXMODEL; m++) {
    free(mdl[m]);
    free(res[m]);
    free(traj[m]);
  }
  loaded_free(&L);
  return rc;
}

//---------------------------------- identification --------------------------------------------

// write text atomically to path (a temporary file renamed over it; its directory made); 0 on
// success
static int write_atomic(const char* path, const char* text, size_t len) {
  char tmp[1200];
  snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
  char dir[1024];
  snprintf(dir, sizeof(dir), "%s", path);
  char* sl = strrchr(dir, '/');
  if (sl) { *sl = 0; if (ensure_dir(dir)) return -1; }
  FILE* f = fopen(tmp, "w");
  if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0 || rename(tmp, path)) {
    if (f) unlink(tmp);
    return -1;
  }
  return 0;
}

// the params file's head: date, data, split, objective
static void identify_header(FILE* mem, const args* a, int n, int ntr, int nho) {
  time_t tnow = time(NULL);
  char date[32];
  strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&tnow));
  fprintf(mem, "# contact parameters identified by csim identify cubetoss on %s\n", date);
  fprintf(mem, "# data: %s group %s, %d tosses selected; training split: physical toss index even (%d "
               "tosses), held out: odd (%d)\n", a->data, a->group, n, ntr, nho);
  fprintf(mem, "# objective: mean e_q (seed 003 eq. 3), %d substeps per data period, failed toss = %g\n",
          a->substeps, CT_FAIL_EQ);
}

// fit every model of a (run/identify.h) into the params text mem, printing a line per model;
// 0 or an exit code
static int identify_models(const args* a, const id_problem* pb, ct_result* res, FILE* mem) {
  csim_error err;
  err_clear(&err);
  for (int mi = 0; mi < a->nmodel; mi++) {
    double tm = now();
    id_fit fit;
    if (id_fit_model(pb, a->models[mi], res, &fit, &err) != CSIM_OK) {
      err_print(&err, stderr);
      return CSIM_ERR_INPUT;
    }
    double dt_model = now() - tm;
    fprintf(mem, "# %s: start %.4f, training e_q %.4f, held-out e_q %.4f; %ld evaluations, %.1f s\n",
            a->models[mi], fit.f0, fit.ftrain, fit.fheld, fit.evals, dt_model);
    fprintf(mem, "%s: {%s}\n", a->models[mi], fit.fitted);
    if (!a->quiet) {
      printf("%-14s start e_q %.4f -> training e_q %.4f, held-out e_q %.4f  (%s", a->models[mi],
             fit.f0, fit.ftrain, fit.fheld, fit.fitted);
      printf(")  %ld evaluations, %ld steps, %.1f s\n", fit.evals, fit.steps, dt_model);
      fflush(stdout);
    }
  }
  return 0;
}

int cli_identify(int argc, char** argv) {
  args a;
  int st0 = begin(argc, argv, "identify", kIdentifyUsage, "out/cubetoss_params.yaml", &a);
  if (st0) return st0 > 0 ? 0 : CSIM_ERR_INPUT;
  loaded L;
  if (setup(&a, &L)) return CSIM_ERR_INPUT;
  ct_data* d = L.d;
  int n = L.n;
  int* tr = malloc(sizeof(int) * (size_t)n);
  int* ho = malloc(sizeof(int) * (size_t)n);
  ct_result* res = calloc((size_t)n, sizeof(ct_result));
  int ntr = 0, nho = 0;
  if (tr && ho) id_split(d, L.idx, n, tr, &ntr, ho, &nho);
  // a coarse subset of the training split for the grid: every 4th training toss
  int* sub = malloc(sizeof(int) * (size_t)(ntr + 1));
  int nsub = 0;
  for (int j = 0; sub && j < ntr; j += (ntr >= 16 ? 4 : 1)) sub[nsub++] = tr[j];
  int rc = 0;
  if (!tr || !ho || !res || !sub) rc = 1;
  else if (ntr < 1) {
    fprintf(stderr, "csim: error: the training split of the selected tosses is empty\n");
    rc = CSIM_ERR_INPUT;
  }
  double t_all = now();
  char* outtext = NULL;
  size_t outlen = 0;
  FILE* mem = rc ? NULL : open_memstream(&outtext, &outlen);
  if (!rc && !mem) rc = 1;
  if (!rc) identify_header(mem, &a, n, ntr, nho);
  if (!rc && !a.quiet)
    printf("identify cubetoss: %s group %s, training %d tosses (grid subset %d), held out %d, %d jobs\n",
           a.data, a.group, ntr, nsub, nho, a.jobs);
  id_problem pb = {d, {a.substeps, a.jobs, a.sets, a.nset}, tr, ntr, sub, nsub, ho, nho,
                   a.max_evals};
  if (!rc) rc = identify_models(&a, &pb, res, mem);
  if (mem) fclose(mem);
  if (!rc && write_atomic(a.out, outtext, outlen)) {
    fprintf(stderr, "csim: error: cannot write '%s'\n", a.out);
    rc = CSIM_ERR_RUN;
  } else if (!rc && !a.quiet) {
    printf("wrote %s (%.1f s in all)\n", a.out, now() - t_all);
  }
  free(outtext);
  free(tr); free(ho); free(sub); free(res);
  loaded_free(&L);
  return rc;
}
