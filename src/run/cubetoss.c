// cubetoss.c — cube toss data, seed 003's e_q and the parallel toss runner (see cubetoss.h).
#include "run/cubetoss.h"

#include <hdf5.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "out/h5guard.h"
#include "core/sim.h"
#include "io/compile.h"
#include "io/yamltree.h"

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static char* dupstr(const char* s) {
  size_t n = strlen(s) + 1;
  char* c = malloc(n);
  if (c) memcpy(c, s, n);
  return c;
}

//---------------------------------- reading ---------------------------------------------------

void ct_free(ct_data* d) {
  if (!d) return;
  free(d->file);
  free(d->group);
  free(d->offsets);
  free(d->states);
  free(d->split_key);
  free(d);
}

// a number after "key": in a flat JSON text (the `cube` attribute), NAN when absent
static double json_number(const char* json, const char* key, int index) {
  char pat[64];
  snprintf(pat, sizeof(pat), "\"%s\"", key);
  const char* p = strstr(json, pat);
  if (!p) return NAN;
  p += strlen(pat);
  while (*p == ' ' || *p == ':') p++;
  if (*p == '[') {
    p++;
    for (int k = 0; k < index; k++) {
      p = strchr(p, ',');
      if (!p) return NAN;
      p++;
    }
  }
  char* end;
  double v = strtod(p, &end);
  return end == p ? NAN : v;
}

// a scalar string attribute of obj into *out (malloc'd; NULL when absent or not a string). A
// vlen string is read through h5guard: a corrupted global-heap index crashes HDF5 1.10 inside
// H5Aread (tests/fuzz/regressions/cubetoss/), which is an input error naming file and attribute.
static csim_status read_str_attr(hid_t obj, const char* name, const char* path, char** out,
                                 csim_error* err) {
  *out = NULL;
  if (H5Aexists(obj, name) <= 0) return CSIM_OK;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return CSIM_OK;
  hid_t t = H5Aget_type(a);
  csim_status st = CSIM_OK;
  if (H5Tget_class(t) == H5T_STRING) {
    if (H5Tis_variable_str(t) > 0) {
      hid_t mt = H5Tcopy(H5T_C_S1);
      H5Tset_size(mt, H5T_VARIABLE);
      H5Tset_cset(mt, H5Tget_cset(t));  // HDF5 does not convert between ASCII and UTF-8
      char* s = NULL;
      char why[160];
      int r = h5guard_aread(a, mt, &s, why, sizeof(why));
      if (r == H5GUARD_CRASHED)
        st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, name,
                     "root attribute '%s' is corrupt (a variable-length string): %s", name, why);
      if (r == H5GUARD_OK && s) {
        *out = dupstr(s);
        H5free_memory(s);
      }
      H5Tclose(mt);
    } else {
      size_t n = H5Tget_size(t);
      char* buf = calloc(n + 1, 1);
      hid_t mt = H5Tcopy(H5T_C_S1);
      H5Tset_size(mt, n);
      H5Tset_cset(mt, H5Tget_cset(t));
      if (buf && H5Aread(a, mt, buf) < 0) {
        free(buf);
        buf = NULL;
      }
      *out = buf;
      H5Tclose(mt);
    }
  }
  H5Tclose(t);
  H5Aclose(a);
  return st;
}

// a 1-D or 2-D dataset of the group read as double or long; dims[0..1] receive its shape
static int read_dataset(hid_t g, const char* name, hid_t memtype, size_t elsize, void** buf,
                        hsize_t dims[2], int* rank) {
  *buf = NULL;
  if (H5Lexists(g, name, H5P_DEFAULT) <= 0) return -1;
  hid_t ds = H5Dopen2(g, name, H5P_DEFAULT);
  if (ds < 0) return -1;
  hid_t sp = H5Dget_space(ds);
  *rank = H5Sget_simple_extent_ndims(sp);
  dims[0] = dims[1] = 1;
  int ok = *rank >= 1 && *rank <= 2 && H5Sget_simple_extent_dims(sp, dims, NULL) >= 0 &&
           h5guard_dset_ok(ds, NULL, 0);  // a compact dataset short of data crashes HDF5 1.10
  size_t n = ok ? (size_t)dims[0] * (size_t)(*rank == 2 ? dims[1] : 1) : 0;
  if (ok) *buf = malloc((n ? n : 1) * elsize);
  ok = ok && *buf && H5Dread(ds, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *buf) >= 0;
  H5Sclose(sp);
  H5Dclose(ds);
  if (!ok) {
    free(*buf);
    *buf = NULL;
    return -1;
  }
  return 0;
}

// the check of the rows of toss i: finite values and a unit quaternion
static csim_status check_toss(const ct_data* d, int i, csim_error* err) {
  int T;
  const double* r = ct_toss(d, i, &T);
  if (T < 2)
    return err_set(err, CSIM_ERR_INPUT, d->file, 0, 0, d->group, "toss %d has %d rows (at least 2 needed)",
                   i, T);
  for (int k = 0; k < T; k++) {
    const double* row = r + (size_t)k * CT_NCOL;
    for (int c = 0; c < CT_NCOL; c++)
      if (!isfinite(row[c]))
        return err_set(err, CSIM_ERR_INPUT, d->file, 0, 0, d->group,
                       "toss %d row %d column %d is not a finite number (%g); every value must be finite", i,
                       k, c, row[c]);
    double n = sqrt(row[3] * row[3] + row[4] * row[4] + row[5] * row[5] + row[6] * row[6]);
    if (fabs(n - 1) > 1e-6)
      return err_set(err, CSIM_ERR_INPUT, d->file, 0, 0, d->group,
                     "toss %d row %d: quaternion norm %.9g (expected 1 within 1e-6)", i, k, n);
  }
  return CSIM_OK;
}

// the loader itself; ct_load runs it first in a probe child (h5guard_probe)
static csim_status load_file(const char* path, const char* group, ct_data** out,
                             csim_error* err) {
  *out = NULL;
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "no such data file (expected an HDF5 file of cube tosses)");
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);  // errors are reported here, not on HDF5's stack dump
  if (H5Fis_hdf5(path) <= 0)
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "not an HDF5 file");
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot open the HDF5 file");
  ct_data* d = calloc(1, sizeof(*d));
  csim_status st = CSIM_OK;
  hid_t g = -1;
  if (!d) {
    H5Fclose(f);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  }
  d->file = dupstr(path);
  d->group = dupstr(group);
  if (H5Lexists(f, group, H5P_DEFAULT) <= 0 || (g = H5Gopen2(f, group, H5P_DEFAULT)) < 0)
    st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, group,
                 "no group '%s' in the file (the shared file has dairlib550, dairlib550_eval, contactnets570)",
                 group);

  // root attributes: dt and the cube
  if (st == CSIM_OK) {
    double dt = NAN;
    if (H5Aexists(f, "dt") > 0) {
      hid_t a = H5Aopen(f, "dt", H5P_DEFAULT);
      if (a < 0 || H5Aread(a, H5T_NATIVE_DOUBLE, &dt) < 0) dt = NAN;
      if (a >= 0) H5Aclose(a);
    }
    if (!(dt > 0 && dt < 1))
      st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, "dt", "root attribute 'dt' missing or not in (0, 1) s");
    d->dt = dt;
  }
  if (st == CSIM_OK) {
    char* cube = NULL;
    st = read_str_attr(f, "cube", path, &cube, err);
    if (cube) {
      d->side = json_number(cube, "side_m", 0);
      d->mass = json_number(cube, "mass_kg", 0);
      for (int k = 0; k < 3; k++) d->inertia[k] = json_number(cube, "inertia_kgm2", k);
    }
    free(cube);
    if (st == CSIM_OK && !(d->side > 0 && d->mass > 0 && d->inertia[0] > 0 && d->inertia[1] > 0 && d->inertia[2] > 0))
      st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, "cube",
                   "root attribute 'cube' missing or without positive side_m, mass_kg, inertia_kgm2[3]");
  }

  // states and offsets
  void* states = NULL;
  void* offs = NULL;
  hsize_t sd[2], od[2];
  int sr = 0, orank = 0;
  if (st == CSIM_OK &&
      (read_dataset(g, "states", H5T_NATIVE_DOUBLE, sizeof(double), &states, sd, &sr) < 0 || sr != 2 ||
       sd[1] != CT_NCOL))
    st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, group, "dataset '%s/states' missing or not (rows x 13) numbers",
                 group);
  if (st == CSIM_OK &&
      (read_dataset(g, "offsets", H5T_NATIVE_LONG, sizeof(long), &offs, od, &orank) < 0 || orank != 1 ||
       od[0] < 2))
    st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, group, "dataset '%s/offsets' missing or shorter than 2", group);
  d->states = states;
  d->offsets = offs;
  if (st == CSIM_OK) {
    d->ntoss = (int)(od[0] - 1);
    for (int i = 0; i <= d->ntoss && st == CSIM_OK; i++)
      if (d->offsets[i] < 0 || d->offsets[i] > (long)sd[0] || (i > 0 && d->offsets[i] < d->offsets[i - 1]))
        st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, group,
                     "offsets[%d] = %ld is out of order or outside the %llu rows", i, d->offsets[i],
                     (unsigned long long)sd[0]);
  }
  for (int i = 0; st == CSIM_OK && i < d->ntoss; i++) st = check_toss(d, i, err);

  // the physical toss of each entry, for a split that keeps duplicates together: the group's
  // duplicate_of, or that of the group it is a window of (NAME_eval -> NAME), else the index
  if (st == CSIM_OK) {
    d->split_key = malloc(sizeof(int) * (size_t)d->ntoss);
    if (!d->split_key) st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
    for (int i = 0; st == CSIM_OK && i < d->ntoss; i++) d->split_key[i] = i;
    char base[256];
    snprintf(base, sizeof(base), "%s", group);
    size_t bl = strlen(base);
    if (bl > 5 && !strcmp(base + bl - 5, "_eval")) base[bl - 5] = 0;
    hid_t g2 = st == CSIM_OK && H5Lexists(f, base, H5P_DEFAULT) > 0 ? H5Gopen2(f, base, H5P_DEFAULT) : -1;
    void* dup = NULL;
    hsize_t dd[2];
    int dr = 0;
    if (g2 >= 0 && read_dataset(g2, "duplicate_of", H5T_NATIVE_LONG, sizeof(long), &dup, dd, &dr) == 0 &&
        dr == 1 && dd[0] == (hsize_t)d->ntoss)
      for (int i = 0; i < d->ntoss; i++) {
        long k = ((long*)dup)[i];
        if (k >= 0 && k < d->ntoss) d->split_key[i] = (int)k;
      }
    free(dup);
    if (g2 >= 0) H5Gclose(g2);
  }
  if (g >= 0) H5Gclose(g);
  H5Fclose(f);
  if (st != CSIM_OK) {
    ct_free(d);
    return st;
  }
  *out = d;
  return CSIM_OK;
}

// the whole load probed in a child first: corrupted metadata can crash HDF5 1.10.8 anywhere
typedef struct {
  const char *path, *group;
} load_args;

static int probe_load(void* ctx) {
  const load_args* a = ctx;
  ct_data* d = NULL;
  csim_error e;
  memset(&e, 0, sizeof(e));
  return load_file(a->path, a->group, &d, &e) == CSIM_OK ? 0 : 1;  // (memory goes with the child)
}

csim_status ct_load(const char* path, const char* group, ct_data** out, csim_error* err) {
  *out = NULL;
  load_args a = {path, group};
  char why[200];
  if (h5guard_probe(probe_load, &a, why, sizeof(why)) == H5GUARD_CRASHED)
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL,
                   "corrupted HDF5 file: %s (reading it in a probe process)", why);
  return load_file(path, group, out, err);
}

const double* ct_toss(const ct_data* d, int i, int* nrows) {
  *nrows = (int)(d->offsets[i + 1] - d->offsets[i]);
  return d->states + (size_t)d->offsets[i] * CT_NCOL;
}

//---------------------------------- metric ----------------------------------------------------

void ct_row_state(const double row[CT_NCOL], double q[7], double v[6]) {
  // position of the centre = com; quaternion wxyz -> [x y z w]
  q[0] = row[0], q[1] = row[1], q[2] = row[2];
  q[3] = row[4], q[4] = row[5], q[5] = row[6], q[6] = row[3];
  // com velocity in world (table) axes, angular velocity in body axes: csim's free joint as is
  for (int k = 0; k < 6; k++) v[k] = row[7 + k];
}

double ct_quat_angle(const double qa[4], const double qb[4]) {
  // r = conj(qa) qb: w = wa wb + va.vb, v = wa vb - wb va - va x vb
  const double* a = qa;
  const double* b = qb;
  double w = a[3] * b[3] + a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  double v[3];
  for (int k = 0; k < 3; k++) v[k] = a[3] * b[k] - b[3] * a[k] - c[k];
  double s = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  // shortest arc: q and -q are the same rotation, so use |w|
  return 2 * atan2(s, fabs(w));
}

void ct_score(const double* ref, const double* simq, int T, double side, ct_result* out) {
  double eq = 0, pos = 0, rot = 0;
  for (int k = 0; k < T; k++) {
    double q[7], v[6];
    ct_row_state(ref + (size_t)k * CT_NCOL, q, v);
    const double* s = simq + (size_t)k * 7;
    double dp2 = 0;
    for (int c = 0; c < 3; c++) dp2 += (q[c] - s[c]) * (q[c] - s[c]);
    double th = ct_quat_angle(q + 3, s + 3);
    eq += 2 / side * dp2 + th * th;  // 003 eq. 3
    pos += sqrt(dp2) / side * 100;
    rot += th * 180 / M_PI;
  }
  out->eq = eq / T;
  out->pos = pos / T;
  out->rot = rot / T;
}

double ct_mean_eq(const ct_result* res, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += res[i].failed ? CT_FAIL_EQ : res[i].eq;
  return n ? s / n : NAN;
}

//---------------------------------- the cube scenario -----------------------------------------

char* ct_cube_urdf(const ct_data* d) {
  char* s = malloc(1024);
  if (!s) return NULL;
  snprintf(s, 1024,
           "<?xml version=\"1.0\"?>\n<robot name=\"cube\">\n <link name=\"cube\">\n  <inertial>\n"
           "   <mass value=\"%.17g\"/>\n"
           "   <inertia ixx=\"%.17g\" ixy=\"0\" ixz=\"0\" iyy=\"%.17g\" iyz=\"0\" izz=\"%.17g\"/>\n"
           "  </inertial>\n  <collision><geometry><box size=\"%.17g %.17g %.17g\"/></geometry></collision>\n"
           " </link>\n</robot>\n",
           d->mass, d->inertia[0], d->inertia[1], d->inertia[2], d->side, d->side, d->side);
  return s;
}

// each model's solver and integrator (cubetoss.h)
static const char* model_solver(int model) {
  switch (model) {
    case CSIM_MODEL_NCP: return "solver: {name: pgs, criterion: model, max_iterations: 200}\n";
    case CSIM_MODEL_CCP: return "solver: {name: admm, criterion: model, max_iterations: 200}\n";
    case CSIM_MODEL_LCP: return "solver: {name: lemke, criterion: model, max_iterations: 200}\n";
    case CSIM_MODEL_RAISIM:
    case CSIM_MODEL_RAISIM_DS: return "solver: {name: bisection, criterion: model, max_iterations: 200}\n";
    default: return "";
  }
}

csim_status ct_scenario(const ct_data* d, const ct_model* mdl, const ct_options* opt, scn_config** out,
                        csim_error* err) {
  *out = NULL;
  int model = scn_name_index(csim_model_names, mdl->name);
  if (model < 0)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "--model", "unknown contact model '%s'", mdl->name);
  int compliant = model >= CSIM_MODEL_HUNT_CROSSLEY;
  int sub = opt->substeps > 0 ? opt->substeps : 10;
  char text[2048];
  snprintf(text, sizeof(text),
           "name: cubetoss_%s\n"
           "world: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
           "robots:\n  - {urdf: cube.urdf, base: free}\n"
           "contact: {model: %s}\n%s"
           "integrator: {dt: %.17g, duration: 0%s}\n",
           mdl->name, mdl->name, model_solver(model), d->dt / sub, compliant ? ", scheme: tamsi" : "");
  int nset = mdl->np + 3 + opt->nsets;
  char** sets = calloc((size_t)nset + 1, sizeof(char*));
  if (!sets) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  // one override per key; solref.I / solimp.I gathered into one list each, combine last
  char buf[CT_MAXP + 3][256];
  int ns = 0;
  for (int k = 0; k < mdl->np; k++) {
    if (!strncmp(mdl->key[k], "solref.", 7) || !strncmp(mdl->key[k], "solimp.", 7)) continue;
    snprintf(buf[ns], sizeof(buf[ns]), "contact.%s=%.17g", mdl->key[k], mdl->val[k]);
    sets[ns] = buf[ns];
    ns++;
  }
  static const char* const lists[2] = {"solref", "solimp"};
  for (int l = 0; l < 2; l++) {
    // the items in index order, comma-separated
    char items[200] = "";
    int nitems = 0;
    for (int i = 0; i < 5; i++)
      for (int k = 0; k < mdl->np; k++) {
        char want[16], one[40];
        snprintf(want, sizeof(want), "%s.%d", lists[l], i);
        if (strcmp(mdl->key[k], want)) continue;
        snprintf(one, sizeof(one), "%s%.17g", nitems ? ", " : "", mdl->val[k]);
        if (strlen(items) + strlen(one) < sizeof(items)) strcat(items, one);
        nitems++;
      }
    if (!nitems) continue;
    snprintf(buf[ns], sizeof(buf[ns]), "contact.%s=[%s]", lists[l], items);
    sets[ns] = buf[ns];
    ns++;
  }
  if (mdl->combine[0]) {
    snprintf(buf[ns], sizeof(buf[ns]), "contact.combine=%s", mdl->combine);
    sets[ns] = buf[ns];
    ns++;
  }
  for (int k = 0; k < opt->nsets; k++) sets[ns + k] = (char*)opt->sets[k];
  nset = ns + opt->nsets;
  csim_status st = scn_load_string(text, "cubetoss", (const char* const*)sets, nset, out, err);
  free(sets);
  return st;
}

//---------------------------------- the runner ------------------------------------------------

typedef struct {
  const ct_data* d;
  const scn_config* cfg;
  const char* urdf;
  int substeps;
  const int* idx;
  int n;
  ct_result* res;
  double* traj;
  const long* toff;          // row offset of each job's trajectory (n)
  atomic_int next;
  pthread_mutex_t lock;
  int err_job;               // lowest job whose sim could not be built (-1: none)
  csim_error err;
} ct_pool;

// simulate one toss into res and traj (T x 7) with the worker's sim *Sp (built on its first toss,
// reset for each later one: the tosses share the scenario, and a reset sim runs as a new one,
// core/state.h); 0, or -1 when the sim cannot be built
static int run_toss(ct_pool* P, int j, sim** Sp, double* simq, csim_error* err) {
  ct_result* r = &P->res[j];
  memset(r, 0, sizeof(*r));
  r->eq = r->pos = r->rot = NAN;
  double t0 = wall();
  int T;
  const double* rows = ct_toss(P->d, P->idx[j], &T);
  const char* texts[1] = {P->urdf};
  if (*Sp) {
    sim_reset(*Sp);
  } else if (sim_create_urdf(P->cfg, texts, Sp, err) != CSIM_OK) {
    r->failed = 1;
    return -1;
  }
  sim* S = *Sp;
  double v[6];
  ct_row_state(rows, S->data.d->q, v);
  memcpy(S->data.d->v, v, sizeof(v));
  memcpy(simq, S->data.d->q, 7 * sizeof(double));
  csim_error e2;
  for (int k = 1; k < T && !r->failed; k++) {
    for (int s = 0; s < P->substeps; s++) {
      sim_stepinfo info;
      double a = wall();
      csim_status st = sim_step(S, &info, &e2);
      r->t_steps += wall() - a;
      r->steps++;
      if (st != CSIM_OK) {
        r->failed = 1;
        break;
      }
    }
    memcpy(simq + (size_t)k * 7, S->data.d->q, 7 * sizeof(double));
    for (int c = 0; c < 7; c++)
      if (!isfinite(simq[(size_t)k * 7 + c])) r->failed = 1;
  }
  if (!r->failed) ct_score(rows, simq, T, P->d->side, r);
  r->t_total = wall() - t0;
  return 0;
}

static void* worker(void* arg) {
  ct_pool* P = arg;
  double* own = NULL;
  size_t cap = 0;
  sim* S = NULL;  // this worker's sim, reset between tosses
  for (;;) {
    int j = atomic_fetch_add(&P->next, 1);
    if (j >= P->n) break;
    int T;
    ct_toss(P->d, P->idx[j], &T);
    double* simq = P->traj ? P->traj + (size_t)P->toff[j] * 7 : NULL;
    if (!simq) {
      if ((size_t)T > cap) {
        free(own);
        cap = (size_t)T;
        own = malloc(cap * 7 * sizeof(double));
      }
      if (!own) {
        P->res[j].failed = 1;
        continue;
      }
      simq = own;
    }
    csim_error e;
    err_clear(&e);
    if (run_toss(P, j, &S, simq, &e) < 0) {
      pthread_mutex_lock(&P->lock);
      if (P->err_job < 0 || j < P->err_job) {
        P->err_job = j;
        P->err = e;
      }
      pthread_mutex_unlock(&P->lock);
    }
  }
  free(own);
  sim_free(S);
  return NULL;
}

csim_status ct_run(const ct_data* d, const ct_model* mdl, const ct_options* opt, const int* idx, int n,
                   ct_result* res, double* traj, csim_error* err) {
  scn_config* cfg = NULL;
  csim_status st = ct_scenario(d, mdl, opt, &cfg, err);
  if (st != CSIM_OK) return st;
  for (int j = 0; j < n; j++)
    if (idx[j] < 0 || idx[j] >= d->ntoss) {
      scn_free(cfg);
      return err_set(err, CSIM_ERR_INPUT, d->file, 0, 0, "--tosses", "toss %d outside 0..%d", idx[j],
                     d->ntoss - 1);
    }
  ct_pool* P = calloc(1, sizeof(*P));
  long* toff = calloc((size_t)n + 1, sizeof(long));
  char* urdf = ct_cube_urdf(d);
  if (!P || !toff || !urdf) {
    free(P); free(toff); free(urdf); scn_free(cfg);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  }
  for (int j = 0; j < n; j++) {
    int T;
    ct_toss(d, idx[j], &T);
    toff[j + 1] = toff[j] + T;
  }
  P->d = d;
  P->cfg = cfg;
  P->urdf = urdf;
  P->substeps = opt->substeps > 0 ? opt->substeps : 10;
  P->idx = idx;
  P->n = n;
  P->res = res;
  P->traj = traj;
  P->toff = toff;
  atomic_init(&P->next, 0);
  pthread_mutex_init(&P->lock, NULL);
  P->err_job = -1;
  int jobs = opt->jobs < 1 ? 1 : opt->jobs > 64 ? 64 : opt->jobs;
  if (jobs > n) jobs = n > 0 ? n : 1;
  pthread_t th[64];
  int started = 0;
  for (int k = 1; k < jobs; k++) {
    if (pthread_create(&th[k], NULL, worker, P) != 0) break;
    started = k;
  }
  worker(P);  // the calling thread works too
  for (int k = 1; k <= started; k++) pthread_join(th[k], NULL);
  pthread_mutex_destroy(&P->lock);
  if (P->err_job >= 0) {
    *err = P->err;
    st = CSIM_ERR_INPUT;
  }
  free(P);
  free(toff);
  free(urdf);
  scn_free(cfg);
  return st;
}

//---------------------------------- parameter files -------------------------------------------

// keys a params file may set (contact.<key>)
static const char* const kParamKeys[] = {"friction", "restitution", "baumgarte", "compliance", "stiffness",
                                         "damping", "stiction_velocity", "friction_stiffness",
                                         "friction_damping", NULL};

static const char* const kMatKeys[] = {"friction", "stiffness", "damping", "restitution", NULL};

// append the number of node v as parameter pk (msgkey names it in messages)
static csim_status param_number(const ytree_node* v, const char* file, const char* msgkey, const char* pk,
                                ct_model* mdl, csim_error* err) {
  char* end = NULL;
  double x = v->kind == YTREE_SCALAR && !v->quoted ? strtod(v->text, &end) : NAN;
  if (!end || *end || !isfinite(x))
    return err_set(err, CSIM_ERR_INPUT, file, v->line, v->column, msgkey, "expected a finite number");
  if (mdl->np >= CT_MAXP)
    return err_set(err, CSIM_ERR_INPUT, file, v->line, v->column, msgkey, "more than %d parameters", CT_MAXP);
  snprintf(mdl->key[mdl->np], sizeof(mdl->key[0]), "%s", pk);
  mdl->val[mdl->np++] = x;
  return CSIM_OK;
}

csim_status ct_params_parse(const char* text, const char* file, const char* name, ct_model* mdl,
                            int* found, csim_error* err) {
  snprintf(mdl->name, sizeof(mdl->name), "%s", name);
  mdl->np = 0;
  mdl->combine[0] = 0;
  *found = 0;
  ytree_source src = {file, 0, 0, NULL};
  ytree_node* root = NULL;
  csim_status st = ytree_parse(text, strlen(text), &src, &root, err);
  if (st != CSIM_OK) return st;
  if (!root) return CSIM_OK;
  if (root->kind != YTREE_MAP) {
    st = err_set(err, CSIM_ERR_INPUT, file, root->line, root->column, NULL,
                 "expected a map of model name -> {key: value}");
    ytree_free(root);
    return st;
  }
  // every entry must name a contact model (a typo would otherwise be silently ignored)
  for (int e = 0; e < root->n && st == CSIM_OK; e++) {
    const ytree_entry* E = &root->entries[e];
    if (scn_name_index(csim_model_names, E->key) < 0)
      st = err_set(err, CSIM_ERR_INPUT, file, E->line, E->column, E->key, "not a contact model name");
    else if (E->value->kind != YTREE_MAP)
      st = err_set(err, CSIM_ERR_INPUT, file, E->value->line, E->value->column, E->key,
                   "expected a map of contact keys to numbers");
  }
  const ytree_entry* M = st == CSIM_OK ? ytree_map_get(root, name) : NULL;
  *found = M != NULL;
  for (int e = 0; M && e < M->value->n && st == CSIM_OK; e++) {
    const ytree_entry* E = &M->value->entries[e];
    char key[96];
    snprintf(key, sizeof(key), "%s.%s", name, E->key);
    const ytree_node* v = E->value;
    // contact.combine: a rule name
    if (!strcmp(E->key, "combine")) {
      if (v->kind != YTREE_SCALAR || scn_name_index(csim_combine_names, v->text) < 0)
        st = err_set(err, CSIM_ERR_INPUT, file, v->line, v->column, key, "expected drake, mujoco or mean");
      else
        snprintf(mdl->combine, sizeof(mdl->combine), "%s", v->text);
      continue;
    }
    // solref / solimp: a list of numbers -> solref.I
    if (!strcmp(E->key, "solref") || !strcmp(E->key, "solimp")) {
      int want = E->key[3] == 'r' ? 2 : 5;
      if (v->kind != YTREE_SEQ || v->n != want) {
        st = err_set(err, CSIM_ERR_INPUT, file, v->line, v->column, key, "expected a list of %d numbers", want);
        break;
      }
      for (int i = 0; i < v->n && st == CSIM_OK; i++) {
        char ik[64];
        snprintf(ik, sizeof(ik), "%s.%d", E->key, i);
        st = param_number(v->items[i], file, key, ik, mdl, err);
      }
      continue;
    }
    // materials: LINK -> {friction, stiffness, damping, restitution}
    if (!strcmp(E->key, "materials")) {
      if (v->kind != YTREE_MAP) {
        st = err_set(err, CSIM_ERR_INPUT, file, v->line, v->column, key, "expected a map of link name -> {key: number}");
        break;
      }
      for (int l = 0; l < v->n && st == CSIM_OK; l++) {
        const ytree_entry* L = &v->entries[l];
        if (L->value->kind != YTREE_MAP) {
          st = err_set(err, CSIM_ERR_INPUT, file, L->line, L->column, key, "expected a map of material keys");
          break;
        }
        for (int q = 0; q < L->value->n && st == CSIM_OK; q++) {
          const ytree_entry* P = &L->value->entries[q];
          char mk[64];
          snprintf(mk, sizeof(mk), "materials.%.24s.%.16s", L->key, P->key);
          if (scn_name_index(kMatKeys, P->key) < 0) {
            st = err_set(err, CSIM_ERR_INPUT, file, P->line, P->column, key,
                         "not a material key (expected friction, stiffness, damping or restitution)");
            break;
          }
          st = param_number(P->value, file, key, mk, mdl, err);
        }
      }
      continue;
    }
    if (scn_name_index(kParamKeys, E->key) < 0) {
      st = err_set(err, CSIM_ERR_INPUT, file, E->line, E->column, key,
                   "not a parameter (expected one of friction, restitution, baumgarte, compliance, "
                   "stiffness, damping, stiction_velocity, friction_stiffness, friction_damping, combine, "
                   "solref, solimp, materials)");
      break;
    }
    st = param_number(v, file, key, E->key, mdl, err);
  }
  ytree_free(root);
  return st;
}

csim_status ct_params_read(const char* path, char** text, csim_error* err) {
  *text = NULL;
  FILE* f = fopen(path, "rb");
  if (!f) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, "--params", "cannot open the params file");
  char* buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 4096 + 1 > cap) {
      cap = cap ? 2 * cap : 8192;
      char* nb = realloc(buf, cap);
      if (!nb || cap > (1u << 24)) {
        free(nb ? nb : buf);
        fclose(f);
        return err_set(err, CSIM_ERR_INPUT, path, 0, 0, "--params", "params file too large");
      }
      buf = nb;
    }
    size_t got = fread(buf + n, 1, 4096, f);
    n += got;
    if (got < 4096) break;
  }
  fclose(f);
  buf[n] = 0;
  if (strlen(buf) != n) {
    free(buf);
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, "--params", "params file contains NUL bytes");
  }
  *text = buf;
  return CSIM_OK;
}
