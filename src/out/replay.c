// replay.c — a csim output file -> a self-contained HTML replay (see replay.h).
#include "out/replay.h"

#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/compliant/compliant.h"
#include "out/h5guard.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "core/spatial.h"

//---------------------------------- HDF5 reading ----------------------------------------------

// a root string attribute (variable or fixed length) as a malloc'd string; NULL when absent.
// A vlen string that HDF5 would crash on (a corrupted global-heap index, see h5guard.h) is not
// read: NULL, and bad (nbad bytes, when given and still empty) says which and why.
static char* attr_string(hid_t f, const char* name, char* bad, size_t nbad) {
  if (H5Aexists(f, name) <= 0) return NULL;
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  if (a < 0) return NULL;
  hid_t t = H5Aget_type(a);
  char* out = NULL;
  if (t >= 0 && H5Tget_class(t) == H5T_STRING) {
    if (H5Tis_variable_str(t) > 0) {
      char* s = NULL;
      hid_t mt = H5Tcopy(H5T_C_S1);
      H5Tset_size(mt, H5T_VARIABLE);
      H5Tset_cset(mt, H5Tget_cset(t));
      char why[160];
      int r = h5guard_aread(a, mt, &s, why, sizeof(why));
      if (r == H5GUARD_CRASHED && bad && nbad && !bad[0])
        snprintf(bad, nbad, "root attribute '%s' is corrupt (a variable-length string): %s", name,
                 why);
      if (r == H5GUARD_OK && s) {
        out = strdup(s);
        H5free_memory(s);
      }
      H5Tclose(mt);
    } else {
      size_t n = H5Tget_size(t);
      out = calloc(n + 1, 1);
      if (out && H5Aread(a, t, out) < 0) {
        free(out);
        out = NULL;
      }
    }
  }
  if (t >= 0) H5Tclose(t);
  H5Aclose(a);
  return out;
}

// a root numeric attribute as double; 0 when absent or unreadable
static int attr_double(hid_t f, const char* name, double* v) {
  if (H5Aexists(f, name) <= 0) return 0;
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  if (a < 0) return 0;
  int ok = H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0;
  H5Aclose(a);
  return ok;
}

// rows and columns of a 1-D or 2-D dataset; -1 when absent
static long ds_shape(hid_t f, const char* path, int* ncols) {
  if (H5Lexists(f, path, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t s = H5Dget_space(d);
  hsize_t dims[2] = {0, 1};
  int nd = H5Sget_simple_extent_ndims(s);
  long rows = -1;
  if (nd == 1 || nd == 2) {
    H5Sget_simple_extent_dims(s, dims, NULL);
    rows = (long)dims[0];
    *ncols = nd == 2 ? (int)dims[1] : 1;
  }
  H5Sclose(s);
  H5Dclose(d);
  return rows;
}

// the first `rows` rows of a dataset converted to `mtype` into buf (rows x ncols)
static int ds_read(hid_t f, const char* path, long rows, int ncols, hid_t mtype, void* buf) {
  if (rows <= 0) return 1;
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  if (d < 0) return 0;
  hid_t s = H5Dget_space(d);
  int nd = H5Sget_simple_extent_ndims(s);
  hsize_t start[2] = {0, 0}, count[2] = {(hsize_t)rows, (hsize_t)ncols};
  H5Sselect_hyperslab(s, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t ms = H5Screate_simple(nd, count, NULL);
  // (a compact dataset short of data crashes HDF5 1.10: not read)
  int ok = h5guard_dset_ok(d, NULL, 0) && H5Dread(d, mtype, ms, s, H5P_DEFAULT, buf) >= 0;
  H5Sclose(ms);
  H5Sclose(s);
  H5Dclose(d);
  return ok;
}

//---------------------------------- JSON and base64 output ------------------------------------

// a JSON string; '<' escaped so the text can never close the <script> element holding it
static void json_str(FILE* o, const char* s) {
  fputc('"', o);
  for (const unsigned char* p = (const unsigned char*)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(o, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", o);
    else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') fprintf(o, "\\u%04x", *p);
    else fputc(*p, o);
  }
  fputc('"', o);
}

// base64 of n bytes, as a JSON string
static void json_b64(FILE* o, const unsigned char* b, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  fputc('"', o);
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    uint32_t v = (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8 | b[i + 2];
    fputc(tab[v >> 18], o); fputc(tab[(v >> 12) & 63], o);
    fputc(tab[(v >> 6) & 63], o); fputc(tab[v & 63], o);
  }
  if (i < n) {
    uint32_t v = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0);
    fputc(tab[v >> 18], o); fputc(tab[(v >> 12) & 63], o);
    fputc(i + 1 < n ? tab[(v >> 6) & 63] : '=', o); fputc('=', o);
  }
  fputc('"', o);
}

// little-endian bytes of a 32- or 64-bit word, whatever the host order (JS typed arrays read LE)
static void put_le(unsigned char* b, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; k++) b[k] = (unsigned char)(v >> (8 * k));
}

// n doubles as base64 float32 (single = 1) or float64
static int json_reals(FILE* o, const double* x, size_t n, int single) {
  size_t w = single ? 4 : 8;
  unsigned char* b = malloc(n * w + 1);
  if (!b) return 0;
  for (size_t i = 0; i < n; i++) {
    if (single) {
      float fv = (float)x[i];
      uint32_t u;
      memcpy(&u, &fv, 4);
      put_le(b + 4 * i, u, 4);
    } else {
      uint64_t u;
      memcpy(&u, &x[i], 8);
      put_le(b + 8 * i, u, 8);
    }
  }
  json_b64(o, b, n * w);
  free(b);
  return 1;
}

// n int32 as base64
static int json_ints(FILE* o, const int32_t* x, size_t n) {
  unsigned char* b = calloc(4 * n + 1, 1);  // zeroed: n may be 0 (nothing to encode)
  if (!b) return 0;
  for (size_t i = 0; i < n; i++) put_le(b + 4 * i, (uint32_t)x[i], 4);
  json_b64(o, b, 4 * n);
  free(b);
  return 1;
}

static void json_vec(FILE* o, const double* x, int n) {
  fputc('[', o);
  for (int i = 0; i < n; i++) fprintf(o, "%s%.9g", i ? "," : "", x[i]);
  fputc(']', o);
}

//---------------------------------- the run, read once ----------------------------------------

typedef struct {
  long rows, nflat;                  // rows kept from the file; rows of the flat contact arrays
  int nq;
  double *time, *q, *ek, *ep, *et, *eps, *work, *injected;  // (rows), q (rows x nq)
  int32_t *iters, *count, *offset;   // (rows)
  double *cpoint, *cframe, *cforce, *cvel;   // (nflat x 3 / 9)
  double* clog;                      // /control/log (rows x nlog), NULL when the run has none
  int nlog;
  char* ccols;                       // its columns attribute ("controller/channel, ...")
} run_rows;

static void rows_free(run_rows* r) {
  free(r->time); free(r->q); free(r->ek); free(r->ep); free(r->et); free(r->eps);
  free(r->work); free(r->injected); free(r->iters); free(r->count); free(r->offset);
  free(r->cpoint); free(r->cframe); free(r->cforce); free(r->cvel);
  free(r->clog); free(r->ccols);
}

// /control/log and its columns, when the run has them for every row kept (a file without, or
// with fewer rows, replays without the controllers' markers); 0 only when a read fails
static int control_read(hid_t f, run_rows* r) {
  int nc = 0;
  long nr = ds_shape(f, "/control/log", &nc);
  if (nr < r->rows || nc < 1) return 1;
  hid_t d = H5Dopen2(f, "/control/log", H5P_DEFAULT);
  if (d < 0) return 1;
  r->ccols = attr_string(d, "columns", NULL, 0);
  H5Dclose(d);
  if (!r->ccols) return 1;
  r->nlog = nc;
  r->clog = calloc((size_t)(r->rows + 1) * (size_t)nc, 8);
  return r->clog && ds_read(f, "/control/log", r->rows, nc, H5T_NATIVE_DOUBLE, r->clog);
}

// read every per-row dataset up to the shortest one, and the flat contact arrays
static csim_status rows_read(hid_t f, const char* path, run_rows* r, csim_error* err) {
  static const char* const need[] = {"/time", "/state/q", "/energy/kinetic", "/energy/potential",
                                     "/energy/total", "/solver/eps_abs", "/solver/iterations",
                                     "/contacts/count", "/contacts/offset"};
  long rows = -1;
  for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++) {
    int nc = 0;
    long n = ds_shape(f, need[k], &nc);
    if (n < 0)
      return err_set(err, CSIM_ERR_INPUT, path, 0, 0, need[k],
                     "not a csim run file: dataset missing (expected the datasets of `csim run`)");
    if (!strcmp(need[k], "/state/q")) r->nq = nc;
    if (rows < 0 || n < rows) rows = n;
  }
  int c3 = 0, c9 = 0, cf = 0, cv = 0;
  long np = ds_shape(f, "/contacts/point", &c3), nfr = ds_shape(f, "/contacts/frame", &c9);
  long nfo = ds_shape(f, "/contacts/force", &cf), nve = ds_shape(f, "/contacts/velocity", &cv);
  if (np < 0 || nfr < 0 || nfo < 0 || nve < 0 || c3 != 3 || c9 != 9 || cf != 3 || cv != 3)
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, "/contacts",
                   "not a csim run file: expected /contacts/point, frame, force, velocity with "
                   "3, 9, 3, 3 columns");
  r->nflat = np;
  if (nfr < r->nflat) r->nflat = nfr;
  if (nfo < r->nflat) r->nflat = nfo;
  if (nve < r->nflat) r->nflat = nve;
  r->rows = rows;
  size_t n = (size_t)rows + 1, m = (size_t)r->nflat + 1;
  r->time = calloc(n, 8); r->q = calloc(n * (size_t)r->nq, 8); r->ek = calloc(n, 8);
  r->ep = calloc(n, 8); r->et = calloc(n, 8); r->eps = calloc(n, 8);
  r->iters = calloc(n, 4); r->count = calloc(n, 4); r->offset = calloc(n, 4);
  r->cpoint = calloc(3 * m, 8); r->cframe = calloc(9 * m, 8); r->cforce = calloc(3 * m, 8);
  r->cvel = calloc(3 * m, 8);
  if (!r->time || !r->q || !r->ek || !r->ep || !r->et || !r->eps || !r->iters || !r->count ||
      !r->offset || !r->cpoint || !r->cframe || !r->cforce || !r->cvel)
    return err_set(err, CSIM_ERR_RUN, path, 0, 0, NULL, "out of memory");
  hid_t D = H5T_NATIVE_DOUBLE, I = H5T_NATIVE_INT32;
  int ok = ds_read(f, "/time", rows, 1, D, r->time) && ds_read(f, "/state/q", rows, r->nq, D, r->q) &&
           ds_read(f, "/energy/kinetic", rows, 1, D, r->ek) &&
           ds_read(f, "/energy/potential", rows, 1, D, r->ep) &&
           ds_read(f, "/energy/total", rows, 1, D, r->et) &&
           ds_read(f, "/solver/eps_abs", rows, 1, D, r->eps) &&
           ds_read(f, "/solver/iterations", rows, 1, I, r->iters) &&
           ds_read(f, "/contacts/count", rows, 1, I, r->count) &&
           ds_read(f, "/contacts/offset", rows, 1, I, r->offset) &&
           ds_read(f, "/contacts/point", r->nflat, 3, D, r->cpoint) &&
           ds_read(f, "/contacts/frame", r->nflat, 9, D, r->cframe) &&
           ds_read(f, "/contacts/force", r->nflat, 3, D, r->cforce) &&
           ds_read(f, "/contacts/velocity", r->nflat, 3, D, r->cvel);
  // the energy audit datasets, when the run has them (on the rows present)
  const char* opt[2] = {"/energy/work", "/energy/injected"};
  double** dst[2] = {&r->work, &r->injected};
  for (int k = 0; ok && k < 2; k++) {
    int nc = 0;
    long nr = ds_shape(f, opt[k], &nc);
    if (nr < rows || nc != 1) continue;
    *dst[k] = calloc(n, 8);
    ok = *dst[k] && ds_read(f, opt[k], rows, 1, D, *dst[k]);
  }
  ok = ok && control_read(f, r);
  if (!ok) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "could not read the datasets");
  return CSIM_OK;
}

//---------------------------------- the page --------------------------------------------------

// read a whole text file (NUL-terminated)
static char* slurp(const char* path, size_t* len) {
  FILE* fp = fopen(path, "rb");
  if (!fp) return NULL;
  char* s = NULL;
  if (fseek(fp, 0, SEEK_END) == 0) {
    long n = ftell(fp);
    if (n >= 0 && fseek(fp, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1))) {
      if (fread(s, 1, (size_t)n, fp) != (size_t)n) {
        free(s);
        s = NULL;
      } else {
        s[n] = '\0';
        if (len) *len = (size_t)n;
      }
    }
  }
  fclose(fp);
  return s;
}

// a case-insensitive search
static const char* find_ci(const char* s, const char* pat) {
  size_t n = strlen(pat);
  for (; *s; s++)
    if (!strncasecmp(s, pat, n)) return s;
  return NULL;
}

//---------------------------------- what the controllers computed ----------------------------

#define REPLAY_MAX_CTL 16
#define REPLAY_MAX_FEET 8

// one controller's columns of /control/log that the page draws (-1: the log has no such channel)
typedef struct {
  char name[64];
  int cmd[3];                       // vx_cmd, vy_cmd, wz_cmd (yaw frame, as quadruped_walk logs)
  int vel[2];                       // vx, vy measured (yaw frame)
  int foot[REPLAY_MAX_FEET][2];     // foothold_K_x, foothold_K_y (world)
  int nfoot;
} ctl_cols;

// the channel `ch` (column col) of controller c
static void ctl_col_channel(ctl_cols* c, const char* ch, int col) {
  static const char* const cmd[3] = {"vx_cmd", "vy_cmd", "wz_cmd"};
  static const char* const vel[2] = {"vx", "vy"};
  for (int i = 0; i < 3; i++)
    if (!strcmp(ch, cmd[i])) c->cmd[i] = col;
  for (int i = 0; i < 2; i++)
    if (!strcmp(ch, vel[i])) c->vel[i] = col;
  int k = -1;
  char axis = 0, tail = 0;
  if (sscanf(ch, "foothold_%d_%c%c", &k, &axis, &tail) == 2 && k >= 0 && k < REPLAY_MAX_FEET &&
      (axis == 'x' || axis == 'y')) {
    c->foot[k][axis == 'y'] = col;
    if (k + 1 > c->nfoot) c->nfoot = k + 1;
  }
}

// the controllers of the columns attribute ("controller/channel, ..."), in their order
static int ctl_cols_parse(const char* cols, int ncol, ctl_cols* c) {
  int n = 0;
  const char* p = cols;
  for (int col = 0; col < ncol && *p; col++) {
    while (*p == ' ') p++;
    const char* e = p;
    while (*e && *e != ',') e++;
    const char* sl = memchr(p, '/', (size_t)(e - p));
    if (sl) {
      char ctl[64], ch[64];
      snprintf(ctl, sizeof(ctl), "%.*s", (int)(sl - p), p);
      snprintf(ch, sizeof(ch), "%.*s", (int)(e - sl - 1), sl + 1);
      for (size_t z = strlen(ch); z > 0 && ch[z - 1] == ' '; z--) ch[z - 1] = '\0';
      int k = 0;
      while (k < n && strcmp(c[k].name, ctl)) k++;
      if (k == n && n < REPLAY_MAX_CTL) {
        memset(&c[n], 0xff, sizeof(c[n]));  // every column -1
        snprintf(c[n].name, sizeof(c[n].name), "%s", ctl);
        c[n++].nfoot = 0;
      }
      if (k < n) ctl_col_channel(&c[k], ch, col);
    }
    p = *e ? e + 1 : e;
  }
  return n;
}

// the first body of the robot the controller `name` drives (the scenario's controllers; the
// first robot when the name is not found, as for a controller named by default)
static int ctl_base_body(const sim_model* m, const scn_config* cfg, const char* name) {
  int robot = 0;
  for (int i = 0; i < cfg->ncontrollers; i++)
    if (cfg->controllers[i].name && !strcmp(cfg->controllers[i].name, name) &&
        cfg->controllers[i].robot)
      for (int k = 0; k < m->nrobot; k++)
        if (m->robot_name[k] && !strcmp(m->robot_name[k], cfg->controllers[i].robot)) robot = k;
  for (int b = 1; b < m->nbody; b++)
    if (m->body_robot[b] == robot) return b;
  return m->nbody > 1 ? 1 : 0;
}

// columns cols (n of them) of the kept rows, as base64 float32 (frames x n)
static int ctl_cols_series(FILE* o, const run_rows* r, long frames, int every, const int* cols, int n) {
  double* v = calloc((size_t)frames * (size_t)n + 1, sizeof(double));
  if (!v) return 0;
  for (long i = 0; i < frames; i++)
    for (int j = 0; j < n; j++)
      v[i * n + j] = cols[j] >= 0 ? r->clog[i * every * r->nlog + cols[j]] : 0;
  int ok = json_reals(o, v, (size_t)frames * (size_t)n, 1);
  free(v);
  return ok;
}

// "control": per controller whose log has footholds or a commanded velocity, the kept rows of
// them (nothing is written for a run without such channels: its page is as before)
static int write_control(FILE* o, const sim_model* m, const scn_config* cfg, const run_rows* r,
                         long frames, int every, replay_info* info) {
  if (!r->clog) return 1;
  ctl_cols c[REPLAY_MAX_CTL];
  int n = ctl_cols_parse(r->ccols, r->nlog, c), any = 0, ok = 1;
  for (int k = 0; k < n && ok; k++) {
    int nfoot = 0;
    while (nfoot < c[k].nfoot && c[k].foot[nfoot][0] >= 0 && c[k].foot[nfoot][1] >= 0) nfoot++;
    int cmd = c[k].cmd[0] >= 0 && c[k].cmd[1] >= 0, vel = c[k].vel[0] >= 0 && c[k].vel[1] >= 0;
    if (!nfoot && !cmd) continue;
    fputs(any++ ? "," : ",\"control\":[", o);
    fputs("{\"name\":", o);
    json_str(o, c[k].name);
    fprintf(o, ",\"base\":%d,\"nfoot\":%d", ctl_base_body(m, cfg, c[k].name), nfoot);
    if (nfoot) {
      fputs(",\"footholds\":", o);
      ok = ctl_cols_series(o, r, frames, every, &c[k].foot[0][0], 2 * nfoot);
    }
    if (ok && cmd) {
      fputs(",\"cmd\":", o);
      ok = ctl_cols_series(o, r, frames, every, c[k].cmd, 3);
    }
    if (ok && cmd && vel) {
      fputs(",\"vel\":", o);
      ok = ctl_cols_series(o, r, frames, every, c[k].vel, 2);
    }
    fputc('}', o);
    info->ctl_footholds += nfoot;
    info->ctl_commands += cmd;
  }
  if (any) fputc(']', o);
  return ok;
}

// write the JSON data block: model geometry, per-frame poses, series, contacts
static int write_data(FILE* o, const sim_model* m, const scn_config* cfg, sim_data* d,
                      const run_rows* r, hid_t f, int every, double slip_v, int complete, const char* failure, replay_info* info) {
  long frames = (r->rows + every - 1) / every;
  int nb = m->nbody - 1;
  char* name = attr_string(f, "scenario_name", NULL, 0);
  char* model = attr_string(f, "contact_model", NULL, 0);
  char* solv = attr_string(f, "solver", NULL, 0);
  char* version = attr_string(f, "csim_version", NULL, 0);
  double dt = 0, fevery = 1;
  attr_double(f, "dt", &dt);
  attr_double(f, "every", &fevery);
  fputs("{\"name\":", o); json_str(o, name ? name : "run");
  fputs(",\"csim_version\":", o); json_str(o, version);
  fputs(",\"contact_model\":", o); json_str(o, model);
  fputs(",\"solver\":", o); json_str(o, solv);
  fprintf(o, ",\"dt\":%.9g,\"row_every\":%d,\"every\":%d,\"rows\":%ld,\"frames\":%ld",
          dt, (int)fevery, every, r->rows, frames);
  fprintf(o, ",\"complete\":%d,\"failure\":", complete);
  json_str(o, failure);
  fprintf(o, ",\"slip_velocity\":%.9g,\"nbody\":%d", slip_v, nb);
  free(name); free(model); free(solv); free(version);

  // bodies: the URDF link each body frame belongs to
  fputs(",\"bodies\":[", o);
  for (int b = 1; b <= nb; b++) {
    fprintf(o, "%s{\"robot\":%d,\"name\":", b > 1 ? "," : "", m->body_robot[b]);
    json_str(o, m->body_link[b] >= 0 ? m->link_name[m->body_link[b]] : "");
    fputc('}', o);
  }
  // geometries, in their body frames
  fputs("],\"geoms\":[", o);
  for (int g = 0; g < m->ngeom; g++) {
    fprintf(o, "%s{\"type\":", g ? "," : "");
    json_str(o, model_geom_type_names[m->geom_type[g]]);
    fprintf(o, ",\"body\":%d,\"robot\":%d,\"mesh\":%d,\"pos\":", m->geom_body[g],
            m->body_robot[m->geom_body[g]], m->geom_mesh[g]);
    json_vec(o, m->geom_pos + 3 * g, 3);
    fputs(",\"quat\":", o); json_vec(o, m->geom_quat + 4 * g, 4);
    fputs(",\"size\":", o); json_vec(o, m->geom_size + 3 * g, 3);
    fputc('}', o);
  }
  // convex hulls as csim built them
  fputs("],\"meshes\":[", o);
  int ok = 1;
  for (int k = 0; k < m->nmesh && ok; k++) {
    const mesh_hull* h = &m->mesh[k];
    int32_t* fc = malloc(sizeof(int32_t) * (size_t)(3 * h->nface + 1));
    if (!fc) return 0;
    for (int i = 0; i < 3 * h->nface; i++) fc[i] = h->face[i];
    fprintf(o, "%s{\"v\":", k ? "," : "");
    ok = json_reals(o, h->vert, 3 * (size_t)h->nvert, 1);
    fputs(",\"f\":", o);
    ok = ok && json_ints(o, fc, 3 * (size_t)h->nface);
    fputc('}', o);
    free(fc);
  }
  fputc(']', o);
  if (!ok) return 0;

  // per-frame series and body poses (kin_forward on the row's q)
  double* ser = calloc((size_t)frames * 8 + 1, sizeof(double));
  double* pose = calloc((size_t)frames * (size_t)nb * 7 + 1, sizeof(double));
  int32_t* ints = calloc((size_t)frames * 2 + 1, sizeof(int32_t));
  int32_t* coff = calloc((size_t)frames + 1, sizeof(int32_t));
  if (!ser || !pose || !ints || !coff) ok = 0;
  long nc = 0;
  for (long i = 0; ok && i < frames; i++) {
    long row = i * every;
    memcpy(d->q, r->q + row * r->nq, sizeof(double) * (size_t)r->nq);
    kin_forward(m, d);
    for (int b = 1; b <= nb; b++) {
      double* p = pose + ((size_t)i * (size_t)nb + (size_t)(b - 1)) * 7;
      memcpy(p, d->xpos + 3 * b, 3 * sizeof(double));
      sp_mat2quat(p + 3, d->xmat + 9 * b);
    }
    ser[i] = r->time[row];
    ser[frames + i] = r->eps[row];
    ser[2 * frames + i] = r->ek[row];
    ser[3 * frames + i] = r->ep[row];
    ser[4 * frames + i] = r->et[row];
    ser[5 * frames + i] = r->work ? r->work[row] : 0;
    ser[6 * frames + i] = r->injected ? r->injected[row] : 0;
    ints[i] = r->iters[row];
    // contacts of the row that the flat arrays hold
    long c0 = r->offset[row], cn = r->count[row];
    if (c0 < 0 || cn < 0) cn = 0;
    long have = c0 + cn <= r->nflat ? cn : (c0 < r->nflat ? r->nflat - c0 : 0);
    info->contacts_dropped += cn - have;
    ints[frames + i] = (int32_t)have;
    coff[i] = (int32_t)nc;
    nc += have;
  }
  info->contacts = nc;
  static const char* const sname[7] = {"time", "eps_abs", "kinetic", "potential", "total",
                                       "work", "injected"};
  for (int k = 0; ok && k < 7; k++) {
    if ((k == 5 && !r->work) || (k == 6 && !r->injected)) continue;
    fprintf(o, ",\"%s\":", sname[k]);
    ok = json_reals(o, ser + (size_t)k * (size_t)frames, (size_t)frames, 0);
  }
  if (ok) { fputs(",\"iterations\":", o); ok = json_ints(o, ints, (size_t)frames); }
  if (ok) { fputs(",\"ncon\":", o); ok = json_ints(o, ints + frames, (size_t)frames); }
  if (ok) { fputs(",\"coff\":", o); ok = json_ints(o, coff, (size_t)frames); }
  if (ok) { fputs(",\"pose\":", o); ok = json_reals(o, pose, (size_t)frames * (size_t)nb * 7, 1); }
  free(ser); free(pose); free(ints); free(coff);

  // contacts: world point, world force on body2, slip flag
  double* cp = calloc(3 * (size_t)nc + 1, sizeof(double));
  double* cf = calloc(3 * (size_t)nc + 1, sizeof(double));
  unsigned char* cs = calloc((size_t)nc + 1, 1);
  if (!cp || !cf || !cs) ok = 0;
  long j = 0;
  for (long i = 0; ok && i < frames; i++) {
    long row = i * every, c0 = r->offset[row], cn = r->count[row];
    if (c0 < 0 || cn < 0) continue;
    for (long c = c0; c < c0 + cn && c < r->nflat; c++, j++) {
      const double* F = r->cframe + 9 * c;   // rows t1, t2, n in world coordinates
      const double* l = r->cforce + 3 * c;
      const double* v = r->cvel + 3 * c;
      for (int a = 0; a < 3; a++) {
        cp[3 * j + a] = r->cpoint[3 * c + a];
        cf[3 * j + a] = l[0] * F[a] + l[1] * F[3 + a] + l[2] * F[6 + a];
      }
      cs[j] = hypot(v[0], v[1]) > slip_v;
    }
  }
  if (ok) { fputs(",\"cpoint\":", o); ok = json_reals(o, cp, 3 * (size_t)nc, 1); }
  if (ok) { fputs(",\"cforce\":", o); ok = json_reals(o, cf, 3 * (size_t)nc, 1); }
  if (ok) { fputs(",\"cslip\":", o); json_b64(o, cs, (size_t)nc); }
  ok = ok && write_control(o, m, cfg, r, frames, every, info);
  fputc('}', o);
  free(cp); free(cf); free(cs);
  info->frames = frames;
  info->bodies = nb;
  info->geoms = m->ngeom;
  return ok;
}

// every HDF5 read replay_write makes of the run file, for h5guard_probe: corrupted metadata
// can crash HDF5 1.10.8 anywhere (h5guard.h); run in a child, whose memory goes with it
static int probe_reads(void* arg) {
  const char* run = arg;
  hid_t f = H5Fopen(run, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return 1;
  const char* names[] = {"scenario", "scenario_dir", "scenario_name", "failure",
                         "contact_model", "solver", "csim_version"};
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
    free(attr_string(f, names[k], NULL, 0));
  double x;
  attr_double(f, "complete", &x);
  attr_double(f, "dt", &x);
  attr_double(f, "every", &x);
  run_rows r;
  memset(&r, 0, sizeof(r));
  csim_error e;
  memset(&e, 0, sizeof(e));
  rows_read(f, run, &r, &e);
  H5Fclose(f);
  return 0;
}

csim_status replay_write(const char* run, const char* out, const replay_options* opt,
                         replay_info* info, csim_error* err) {
  memset(info, 0, sizeof(*info));
  int every = opt->every >= 1 ? opt->every : 1;
  H5Eset_auto(H5E_DEFAULT, NULL, NULL);
  FILE* probe = fopen(run, "rb");
  if (!probe) return err_set(err, CSIM_ERR_INPUT, run, 0, 0, NULL, "cannot open the file");
  fclose(probe);
  if (H5Fis_hdf5(run) <= 0)
    return err_set(err, CSIM_ERR_INPUT, run, 0, 0, NULL,
                   "not an HDF5 file (expected the output of `csim run`)");
  char died[200];
  if (h5guard_probe(probe_reads, (void*)run, died, sizeof(died)) == H5GUARD_CRASHED)
    return err_set(err, CSIM_ERR_INPUT, run, 0, 0, NULL,
                   "corrupted HDF5 file: %s (reading it in a probe process)", died);
  hid_t f = H5Fopen(run, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return err_set(err, CSIM_ERR_INPUT, run, 0, 0, NULL, "HDF5 cannot open the file");
  csim_status st = CSIM_OK;
  char bad[400] = "";
  char* text = attr_string(f, "scenario", bad, sizeof(bad));
  char* sdir = attr_string(f, "scenario_dir", bad, sizeof(bad));
  char* sname = attr_string(f, "scenario_name", bad, sizeof(bad));
  char* fail = attr_string(f, "failure", bad, sizeof(bad));
  // the string attributes write_data reads later, checked here once
  const char* later[] = {"contact_model", "solver", "csim_version"};
  for (size_t k = 0; k < sizeof(later) / sizeof(later[0]); k++)
    free(attr_string(f, later[k], bad, sizeof(bad)));
  double complete = 0;
  run_rows r;
  memset(&r, 0, sizeof(r));
  scn_config* cfg = NULL;
  sim_model* M = NULL;
  sim_data* D = NULL;
  char* tpl = NULL;
  char* three = NULL;
  FILE* o = NULL;
  char tmp[1100] = "";
  if (bad[0])
    st = err_set(err, CSIM_ERR_INPUT, run, 0, 0, NULL, "%s", bad);
  else if (H5Aexists(f, "csim_version") <= 0 || !text || !attr_double(f, "complete", &complete))
    st = err_set(err, CSIM_ERR_INPUT, run, 0, 0, NULL,
                 "not a csim output file (expected the root attributes csim_version, scenario "
                 "and complete)");
  info->complete = complete != 0;
  snprintf(info->failure, sizeof(info->failure), "%s", fail ? fail : "");
  if (!st) st = rows_read(f, run, &r, err);
  if (!st && r.rows == 0)
    st = err_set(err, CSIM_ERR_INPUT, run, 0, 0, "/time",
                 "the run has no rows to replay (it stopped before its first recorded step)");
  info->rows = r.rows;

  // the model, rebuilt by csim from the scenario as run
  if (!st) {
    const char* dir = opt->scenario_dir ? opt->scenario_dir : sdir;
    if (!dir)
      st = err_set(err, CSIM_ERR_INPUT, run, 0, 0, "scenario_dir",
                   "the file does not say where its scenario was (no scenario_dir attribute, "
                   "written by older csim builds): give it with --scenario-dir DIR");
    char name[1100];
    snprintf(name, sizeof(name), "%s/%s.yaml", dir ? dir : ".", sname ? sname : "scenario");
    if (!st) st = scn_load_string(text, name, NULL, 0, &cfg, err);
    if (!st) st = compile_model_data(cfg, &M, &D, err);
    if (st) {
      char why[1200];
      err_format(err, why, sizeof(why));
      st = err_set(err, CSIM_ERR_INPUT, run, 0, 0, "scenario",
                   "cannot rebuild the model from the scenario stored in the file (paths "
                   "relative to %s; --scenario-dir DIR changes it): %s", dir ? dir : ".", why);
    } else if (M->nq != r.nq) {
      st = err_set(err, CSIM_ERR_INPUT, run, 0, 0, "/state/q",
                   "the model rebuilt from the scenario has nq = %d but /state/q has %d "
                   "columns (URDF changed since the run?)", M->nq, r.nq);
    }
  }
  // page template and three.js
  size_t nthree = 0;
  if (!st && !(tpl = slurp(opt->template_path, NULL)))
    st = err_set(err, CSIM_ERR_INPUT, opt->template_path, 0, 0, NULL,
                 "cannot read the replay page template");
  if (!st && !(three = slurp(opt->three_path, &nthree)))
    st = err_set(err, CSIM_ERR_INPUT, opt->three_path, 0, 0, NULL,
                 "cannot read three.js: run `make deps` (npm ci in tools/view/replay)");
  char* m1 = tpl ? strstr(tpl, "@@THREE@@") : NULL;
  char* m2 = tpl ? strstr(tpl, "@@DATA@@") : NULL;
  if (!st && (!m1 || !m2 || m2 < m1))
    st = err_set(err, CSIM_ERR_INPUT, opt->template_path, 0, 0, NULL,
                 "template lacks the markers @@THREE@@ then @@DATA@@");
  // text inside a <script> element must not end it early
  if (!st && (find_ci(three, "</script") || strstr(three, "<!--")))
    st = err_set(err, CSIM_ERR_INPUT, opt->three_path, 0, 0, NULL,
                 "three.js contains '</script' or '<!--' and cannot be inlined as is");

  // write <out>.tmp, then rename
  if (!st) {
    snprintf(tmp, sizeof(tmp), "%s.tmp", out);
    o = fopen(tmp, "wb");
    if (!o) st = err_set(err, CSIM_ERR_INPUT, out, 0, 0, NULL, "cannot create the output file");
  }
  if (!st) {
    double slip_v = csim_model_compliant(cfg->model) ? cfg->stiction_velocity : REPLAY_SLIP_VELOCITY;
    fwrite(tpl, 1, (size_t)(m1 - tpl), o);
    fwrite(three, 1, nthree, o);
    m1 += strlen("@@THREE@@");
    fwrite(m1, 1, (size_t)(m2 - m1), o);
    int ok = write_data(o, M, cfg, D, &r, f, every, slip_v, info->complete, info->failure, info);
    m2 += strlen("@@DATA@@");
    fputs(m2, o);
    info->bytes = ftell(o);
    if (fclose(o) != 0 || !ok) {
      st = err_set(err, CSIM_ERR_RUN, out, 0, 0, NULL, "writing the page failed");
      remove(tmp);
    } else if (rename(tmp, out) != 0) {
      st = err_set(err, CSIM_ERR_INPUT, out, 0, 0, NULL, "cannot rename %s to the output", tmp);
      remove(tmp);
    }
  }
  free(text); free(sdir); free(sname); free(fail); free(tpl); free(three);
  rows_free(&r);
  data_free(D);
  model_free(M);
  scn_free(cfg);
  H5Fclose(f);
  return st;
}
