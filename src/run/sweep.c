// sweep.c — `csim sweep`: spec -> validated points -> sweep directory (see sweep.h).
#include "run/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "io/yamltree.h"

#define SPEC_MAX_BYTES (1 << 20)   // spec files larger than this are refused
#define MAX_POINTS 100000          // larger sweeps are refused: split them (every point is held
                                   // in memory and validated before writing)
#define LABEL_MAX 24               // characters of a value kept in a point name

//---------------------------------- growing strings -------------------------------------------

typedef struct {
  char* s;
  size_t n, cap;
  int oom;
} sbuf;

static void sb_add(sbuf* b, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void sb_add(sbuf* b, const char* fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
      b->oom = 1;
      return;
    }
    if (b->s && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap <= b->n + (size_t)k) cap *= 2;
    char* g = realloc(b->s, cap);
    if (!g) {
      b->oom = 1;
      return;
    }
    b->s = g;
    b->cap = cap;
  }
}

//---------------------------------- the spec --------------------------------------------------

// one swept key and its values
typedef struct {
  const char* key;    // scenario key path (the spec's text)
  int n;              // values
  char** text;        // YAML text of each value, as given to --set and written in index.csv
  char** label;       // the value as it appears in point names
  int* line;          // spec position of each value (errors)
  int* col;
} axis;

// one fixed override of `set`
typedef struct {
  const char* key;
  char* text;
  int line, col;
} fixed;

typedef struct {
  const char* file;   // spec path
  char* dir;          // its directory
  char* base;         // base scenario, resolved against dir
  char* name;
  int zip, repeat, chunk;
  axis* axes;
  int naxes;
  fixed* set;
  int nset;
  const char *partition, *time, *mem;
  int max_parallel, cpus;
  const char** extra;
  int nextra;
  ytree_node* root;
  long npoints;
} spec;

static void spec_free(spec* s) {
  for (int a = 0; a < s->naxes; a++) {
    for (int i = 0; i < s->axes[a].n; i++) {
      free(s->axes[a].text[i]);
      free(s->axes[a].label[i]);
    }
    free(s->axes[a].text);
    free(s->axes[a].label);
    free(s->axes[a].line);
    free(s->axes[a].col);
  }
  free(s->axes);
  for (int i = 0; i < s->nset; i++) free(s->set[i].text);
  free(s->set);
  free(s->extra);
  free(s->dir);
  free(s->base);
  free(s->name);
  ytree_free(s->root);
}

static csim_status bad(csim_error* err, const spec* s, const ytree_node* n, const char* key,
                       const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

// an input error at a node of the spec
static csim_status bad(csim_error* err, const spec* s, const ytree_node* n, const char* key,
                       const char* fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return err_set(err, CSIM_ERR_INPUT, s->file, n ? n->line : 0, n ? n->column : 0, key, "%s", msg);
}

// shortest decimal text that reads back as exactly v
static void fmt_double(char* buf, size_t n, double v) {
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, n, "%.*g", p, v);
    if (strtod(buf, NULL) == v) return;
  }
}

// a plain scalar as a finite number
static int num_of(const ytree_node* n, double* v) {
  if (!n || n->kind != YTREE_SCALAR || n->quoted || !n->text[0]) return 0;
  char* end = NULL;
  errno = 0;
  double x = strtod(n->text, &end);
  if (*end || errno == ERANGE || !isfinite(x)) return 0;
  *v = x;
  return 1;
}

static int int_of(const ytree_node* n, long lo, long hi, long* v) {
  double x;
  if (!num_of(n, &x) || x != floor(x) || x < (double)lo || x > (double)hi) return 0;
  *v = (long)x;
  return 1;
}

// a value node as YAML flow text for an override ("0.3", "[0, 0, 1]", "\"a b\"")
static void flow_text(const ytree_node* n, sbuf* b) {
  if (n->kind == YTREE_SCALAR) {
    if (!n->quoted) {
      sb_add(b, "%s", n->text);
      return;
    }
    sb_add(b, "\"");
    for (const char* p = n->text; *p; p++) {
      if (*p == '"' || *p == '\\') sb_add(b, "\\%c", *p);
      else if ((unsigned char)*p < 32) sb_add(b, "\\x%02x", (unsigned)(unsigned char)*p);
      else sb_add(b, "%c", *p);
    }
    sb_add(b, "\"");
  } else if (n->kind == YTREE_SEQ) {
    sb_add(b, "[");
    for (int i = 0; i < n->n; i++) {
      if (i) sb_add(b, ", ");
      flow_text(n->items[i], b);
    }
    sb_add(b, "]");
  } else {
    sb_add(b, "{");
    for (int i = 0; i < n->n; i++) {
      if (i) sb_add(b, ", ");
      sb_add(b, "%s: ", n->entries[i].key);
      flow_text(n->entries[i].value, b);
    }
    sb_add(b, "}");
  }
}

// the characters of a value kept in a point name
static char* label_of(const char* text) {
  char* l = malloc(LABEL_MAX + 1);
  if (!l) return NULL;
  size_t k = 0;
  for (const char* p = text; *p && k < LABEL_MAX; p++) {
    char c = *p;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '+')
      l[k++] = c;
    else if (c == ',' && k > 0 && l[k - 1] != '+')
      l[k++] = '+';   // list items
  }
  l[k] = '\0';
  return l;
}

// a scenario key path: segments of [A-Za-z0-9_] joined by '.'
static int key_ok(const char* k) {
  size_t n = strlen(k);
  return n > 0 && n < 256 && k[0] != '.' && k[n - 1] != '.' && !strstr(k, "..") &&
         strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") == n;
}

// keys the sweep owns in every point
static int reserved_key(const char* k) {
  return !strcmp(k, "name") || !strcmp(k, "output") || !strcmp(k, "output.path");
}

static csim_status axis_add_value(axis* a, char* text, const ytree_node* at) {
  int i = a->n++;
  a->text[i] = text;
  a->label[i] = text ? label_of(text) : NULL;
  a->line[i] = at->line;
  a->col[i] = at->column;
  return text && a->label[i] ? CSIM_OK : CSIM_ERR_RUN;
}

// one entry of `axes`: a list of values or a {from, to, count, scale} range
static csim_status parse_axis(spec* s, const ytree_entry* e, axis* a, csim_error* err) {
  const ytree_node* v = e->value;
  char kp[300];
  snprintf(kp, sizeof(kp), "axes.%s", e->key);
  a->key = e->key;
  if (!key_ok(e->key))
    return err_set(err, CSIM_ERR_INPUT, s->file, e->line, e->column, "axes",
                   "expected a scenario key path such as contact.friction or robots.0.q0, found "
                   "'%.200s'", e->key);
  if (reserved_key(e->key))
    return bad(err, s, v, kp, "'%s' is set by csim sweep for every point (name = point name, "
               "output.path = out/NAME.h5): it cannot be swept", e->key);
  int n = 0;
  double from = 0, to = 0;
  int logscale = 0;
  if (v->kind == YTREE_SEQ) {
    if (v->n < 1) return bad(err, s, v, kp, "expected at least one value, found an empty list");
    n = v->n;
  } else if (v->kind == YTREE_MAP) {
    long cnt = 0;
    const ytree_entry *ef = ytree_map_get(v, "from"), *et = ytree_map_get(v, "to"),
                      *ec = ytree_map_get(v, "count"), *es = ytree_map_get(v, "scale");
    for (int i = 0; i < v->n; i++) {
      const char* k = v->entries[i].key;
      if (strcmp(k, "from") && strcmp(k, "to") && strcmp(k, "count") && strcmp(k, "scale"))
        return err_set(err, CSIM_ERR_INPUT, s->file, v->entries[i].line, v->entries[i].column, kp,
                       "unknown range key '%s': expected from, to, count, scale", k);
    }
    if (!ef || !et || !ec)
      return bad(err, s, v, kp, "a range needs from, to and count, e.g. {from: 0.1, to: 0.9, "
                 "count: 5, scale: linear}");
    if (!num_of(ef->value, &from)) return bad(err, s, ef->value, kp, "'from': expected a number");
    if (!num_of(et->value, &to)) return bad(err, s, et->value, kp, "'to': expected a number");
    if (!int_of(ec->value, 1, MAX_POINTS, &cnt))
      return bad(err, s, ec->value, kp, "'count': expected an integer in [1, %d]", MAX_POINTS);
    if (es) {
      const ytree_node* sv = es->value;
      if (sv->kind != YTREE_SCALAR || (strcmp(sv->text, "linear") && strcmp(sv->text, "log")))
        return bad(err, s, sv, kp, "'scale': expected linear or log");
      logscale = !strcmp(sv->text, "log");
    }
    if (logscale && !(from > 0 && to > 0))
      return bad(err, s, v, kp, "a log range needs from > 0 and to > 0, found from %g, to %g",
                 from, to);
    n = (int)cnt;
  } else {
    return bad(err, s, v, kp, "expected a list of values or a range {from, to, count, scale}");
  }
  a->text = calloc((size_t)n, sizeof(char*));
  a->label = calloc((size_t)n, sizeof(char*));
  a->line = calloc((size_t)n, sizeof(int));
  a->col = calloc((size_t)n, sizeof(int));
  if (!a->text || !a->label || !a->line || !a->col)
    return err_set(err, CSIM_ERR_RUN, s->file, 0, 0, kp, "out of memory");
  for (int i = 0; i < n; i++) {
    char* t = NULL;
    const ytree_node* at = v;
    if (v->kind == YTREE_SEQ) {
      at = v->items[i];
      sbuf b = {0};
      flow_text(at, &b);
      t = b.oom ? (free(b.s), NULL) : b.s;
    } else {
      // endpoints exact; the log range interpolates exponents so decades come out exact
      double x;
      if (i == 0) x = from;
      else if (i == n - 1) x = to;
      else if (logscale) x = pow(10.0, log10(from) + (log10(to) - log10(from)) * i / (n - 1));
      else x = from + (to - from) * i / (n - 1);
      if (i > 0 && i < n - 1) {  // decimal grids stay decimal: 0.1 + 0.2 is written 0.3
        char r[40];
        snprintf(r, sizeof(r), "%.15g", x);
        x = strtod(r, NULL);
      }
      char buf[40];
      fmt_double(buf, sizeof(buf), x);
      t = strdup(buf);
    }
    if (axis_add_value(a, t, at) != CSIM_OK)
      return err_set(err, CSIM_ERR_RUN, s->file, 0, 0, kp, "out of memory");
  }
  return CSIM_OK;
}

// a scalar string of the spec
static csim_status get_string(spec* s, const ytree_entry* e, const char* kp, const char** out,
                              csim_error* err) {
  if (e->value->kind != YTREE_SCALAR || !e->value->text[0])
    return bad(err, s, e->value, kp, "expected a non-empty string");
  *out = e->value->text;
  return CSIM_OK;
}

static csim_status parse_slurm(spec* s, const ytree_node* m, csim_error* err) {
  if (m->kind != YTREE_MAP)
    return bad(err, s, m, "slurm", "expected a map (partition, time, max_parallel, "
               "cpus_per_task, mem, extra)");
  for (int i = 0; i < m->n; i++) {
    const ytree_entry* e = &m->entries[i];
    char kp[300];
    snprintf(kp, sizeof(kp), "slurm.%s", e->key);
    csim_status st = CSIM_OK;
    long v = 0;
    if (!strcmp(e->key, "partition")) {
      st = get_string(s, e, kp, &s->partition, err);
    } else if (!strcmp(e->key, "time")) {
      st = get_string(s, e, kp, &s->time, err);
    } else if (!strcmp(e->key, "mem")) {
      st = get_string(s, e, kp, &s->mem, err);
    } else if (!strcmp(e->key, "max_parallel")) {
      if (!int_of(e->value, 1, 1000000, &v))
        return bad(err, s, e->value, kp, "expected an integer >= 1 (the %%M of --array)");
      s->max_parallel = (int)v;
    } else if (!strcmp(e->key, "cpus_per_task")) {
      if (!int_of(e->value, 1, 4096, &v)) return bad(err, s, e->value, kp, "expected an integer >= 1");
      s->cpus = (int)v;
    } else if (!strcmp(e->key, "extra")) {
      const ytree_node* l = e->value;
      if (l->kind != YTREE_SEQ) return bad(err, s, l, kp, "expected a list of sbatch options");
      s->extra = calloc((size_t)l->n + 1, sizeof(char*));
      if (!s->extra) return err_set(err, CSIM_ERR_RUN, s->file, 0, 0, kp, "out of memory");
      for (int k = 0; k < l->n; k++) {
        const ytree_node* it = l->items[k];
        if (it->kind != YTREE_SCALAR || strncmp(it->text, "--", 2) || strchr(it->text, '\n'))
          return bad(err, s, it, kp, "expected an sbatch option such as --account=NAME");
        s->extra[s->nextra++] = it->text;
      }
    } else {
      return err_set(err, CSIM_ERR_INPUT, s->file, e->line, e->column, kp,
                     "unknown key: expected partition, time, max_parallel, cpus_per_task, mem, "
                     "extra");
    }
    if (st) return st;
    // values go into #SBATCH lines: one line each, no shell metacharacters needed
    const char* t = e->value->kind == YTREE_SCALAR ? e->value->text : "";
    if (strpbrk(t, "\n\r#"))
      return bad(err, s, e->value, kp, "expected a value without newlines or '#'");
  }
  return CSIM_OK;
}

static char* dir_of(const char* path) {
  const char* sl = strrchr(path, '/');
  if (!sl) return strdup(".");
  if (sl == path) return strdup("/");
  return strndup(path, (size_t)(sl - path));
}

static char* stem_of(const char* path) {
  const char* b = strrchr(path, '/');
  b = b ? b + 1 : path;
  const char* e = strrchr(b, '.');
  return strndup(b, e && e != b ? (size_t)(e - b) : strlen(b));
}

static char* join(const char* dir, const char* p) {
  if (p[0] == '/' || !strcmp(dir, ".")) return strdup(p);
  size_t n = strlen(dir) + strlen(p) + 2;
  char* r = malloc(n);
  if (r) snprintf(r, n, "%s/%s", dir, p);
  return r;
}

static csim_status parse_spec(spec* s, csim_error* err) {
  struct stat sb;
  if (stat(s->file, &sb) != 0 || !S_ISREG(sb.st_mode))
    return err_set(err, CSIM_ERR_INPUT, s->file, 0, 0, NULL, "cannot read the sweep spec: %s",
                   errno ? strerror(errno) : "not a regular file");
  if (sb.st_size > SPEC_MAX_BYTES)
    return err_set(err, CSIM_ERR_INPUT, s->file, 0, 0, NULL, "the spec is too large (at most %d "
                   "bytes)", SPEC_MAX_BYTES);
  FILE* f = fopen(s->file, "rb");
  if (!f) return err_set(err, CSIM_ERR_INPUT, s->file, 0, 0, NULL, "cannot open: %s", strerror(errno));
  char* text = malloc((size_t)sb.st_size + 1);
  size_t len = text ? fread(text, 1, (size_t)sb.st_size, f) : 0;
  fclose(f);
  if (!text) return err_set(err, CSIM_ERR_RUN, s->file, 0, 0, NULL, "out of memory");
  text[len] = '\0';
  if (strlen(text) != len) {
    free(text);
    return err_set(err, CSIM_ERR_INPUT, s->file, 0, 0, NULL, "the spec holds a NUL byte: expected "
                   "YAML text");
  }
  ytree_source src = {s->file, 0, 0, NULL};
  csim_status st = ytree_parse(text, len, &src, &s->root, err);
  free(text);
  if (st) return st;
  const ytree_node* r = s->root;
  if (!r || r->kind != YTREE_MAP)
    return bad(err, s, r, NULL, "expected a map with base, axes and optionally name, combine, "
               "repeat, set, chunk, slurm");
  s->dir = dir_of(s->file);
  s->repeat = 1;
  s->chunk = 1;
  s->max_parallel = 0;
  for (int i = 0; i < r->n; i++) {
    const ytree_entry* e = &r->entries[i];
    const ytree_node* v = e->value;
    long x = 0;
    if (!strcmp(e->key, "base")) {
      const char* b = NULL;
      if ((st = get_string(s, e, "base", &b, err))) return st;
      s->base = join(s->dir, b);
    } else if (!strcmp(e->key, "name")) {
      const char* nm = NULL;
      if ((st = get_string(s, e, "name", &nm, err))) return st;
      if (strlen(nm) > 64 || strspn(nm, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789._-") != strlen(nm) || nm[0] == '.')
        return bad(err, s, v, "name", "expected at most 64 characters of [A-Za-z0-9._-], not "
                   "starting with '.', found '%s'", nm);
      s->name = strdup(nm);
    } else if (!strcmp(e->key, "combine")) {
      if (v->kind != YTREE_SCALAR || (strcmp(v->text, "product") && strcmp(v->text, "zip")))
        return bad(err, s, v, "combine", "expected product or zip");
      s->zip = !strcmp(v->text, "zip");
    } else if (!strcmp(e->key, "repeat")) {
      if (!int_of(v, 1, MAX_POINTS, &x))
        return bad(err, s, v, "repeat", "expected an integer in [1, %d]", MAX_POINTS);
      s->repeat = (int)x;
    } else if (!strcmp(e->key, "chunk")) {
      if (!int_of(v, 1, MAX_POINTS, &x))
        return bad(err, s, v, "chunk", "expected an integer in [1, %d] (points per job)", MAX_POINTS);
      s->chunk = (int)x;
    } else if (!strcmp(e->key, "axes")) {
      if (v->kind != YTREE_MAP || v->n < 1)
        return bad(err, s, v, "axes", "expected a map of scenario keys to value lists or ranges, "
                   "e.g. contact.friction: [0.1, 0.3]");
      s->axes = calloc((size_t)v->n, sizeof(axis));
      if (!s->axes) return err_set(err, CSIM_ERR_RUN, s->file, 0, 0, NULL, "out of memory");
      for (int k = 0; k < v->n; k++) {
        s->naxes++;
        if ((st = parse_axis(s, &v->entries[k], &s->axes[k], err))) return st;
      }
    } else if (!strcmp(e->key, "set")) {
      if (v->kind != YTREE_MAP)
        return bad(err, s, v, "set", "expected a map of scenario keys to values, e.g. "
                   "{integrator.duration: 0.3}");
      s->set = calloc((size_t)v->n + 1, sizeof(fixed));
      if (!s->set) return err_set(err, CSIM_ERR_RUN, s->file, 0, 0, NULL, "out of memory");
      for (int k = 0; k < v->n; k++) {
        const ytree_entry* se = &v->entries[k];
        if (!key_ok(se->key))
          return err_set(err, CSIM_ERR_INPUT, s->file, se->line, se->column, "set",
                         "expected a scenario key path such as integrator.duration, found "
                         "'%.200s'", se->key);
        if (reserved_key(se->key))
          return err_set(err, CSIM_ERR_INPUT, s->file, se->line, se->column, "set",
                         "'%s' is set by csim sweep for every point: remove it", se->key);
        sbuf b = {0};
        flow_text(se->value, &b);
        if (b.oom) return err_set(err, CSIM_ERR_RUN, s->file, 0, 0, NULL, "out of memory");
        s->set[s->nset++] = (fixed){se->key, b.s, se->value->line, se->value->column};
      }
    } else if (!strcmp(e->key, "slurm")) {
      if ((st = parse_slurm(s, v, err))) return st;
    } else {
      return err_set(err, CSIM_ERR_INPUT, s->file, e->line, e->column, e->key,
                     "unknown key: expected base, name, combine, axes, repeat, set, chunk, slurm");
    }
  }
  if (!s->base) return bad(err, s, r, "base", "missing: the base scenario file, e.g. base: "
                           "../scenarios/cube_slide.yaml");
  if (!s->naxes) return bad(err, s, r, "axes", "missing: at least one axis, e.g. axes: "
                            "{contact.friction: [0.1, 0.3]}");
  if (!s->name) s->name = stem_of(s->file);
  // point count, refusing runaway products
  long n = s->zip ? s->axes[0].n : 1;
  const ytree_node* axes = ytree_map_get(r, "axes")->value;
  for (int a = 0; a < s->naxes; a++) {
    if (s->zip && s->axes[a].n != s->axes[0].n)
      return err_set(err, CSIM_ERR_INPUT, s->file, axes->entries[a].line, axes->entries[a].column,
                     s->axes[a].key, "combine: zip needs axes of equal length: %d values here, "
                     "%d for %s", s->axes[a].n, s->axes[0].n, s->axes[0].key);
    if (!s->zip) n = n * s->axes[a].n > MAX_POINTS ? MAX_POINTS + 1L : n * s->axes[a].n;
  }
  n = n * s->repeat > MAX_POINTS ? MAX_POINTS + 1L : n * s->repeat;
  if (n > MAX_POINTS)
    return bad(err, s, axes, "axes", "more than %d points: split the sweep", MAX_POINTS);
  s->npoints = n;
  return CSIM_OK;
}

//---------------------------------- points ----------------------------------------------------

// value index of every axis at point p (repeat innermost, then the last axis fastest)
static void point_indices(const spec* s, long p, int* idx, int* rep) {
  *rep = (int)(p % s->repeat);
  long q = p / s->repeat;
  for (int a = s->naxes - 1; a >= 0; a--) {
    if (s->zip) {
      idx[a] = (int)q;
    } else {
      idx[a] = (int)(q % s->axes[a].n);
      q /= s->axes[a].n;
    }
  }
}

// the last segment of a key that is not a list index ("robots.0.q0" -> "q0")
static const char* leaf_of(const char* key, char* buf, size_t n) {
  snprintf(buf, n, "%s", key);
  for (;;) {
    char* d = strrchr(buf, '.');
    const char* last = d ? d + 1 : buf;
    if (strspn(last, "0123456789") != strlen(last) || !d) return last;
    *d = '\0';
  }
}

static char* point_name(const spec* s, long p, const int* idx, int rep, int width) {
  sbuf b = {0};
  sb_add(&b, "%0*ld", width, p);
  for (int a = 0; a < s->naxes; a++) {
    char lb[300];
    const char* leaf = leaf_of(s->axes[a].key, lb, sizeof(lb));
    int clash = 0;  // two axes with one leaf: the whole key tells them apart
    for (int o = 0; o < s->naxes; o++) {
      char ob[300];
      clash |= o != a && !strcmp(leaf, leaf_of(s->axes[o].key, ob, sizeof(ob)));
    }
    char* l = label_of(clash ? s->axes[a].key : leaf);
    sb_add(&b, "_%s-%s", l ? l : "", s->axes[a].label[idx[a]]);
    free(l);
  }
  if (s->repeat > 1) sb_add(&b, "_r%d", rep);
  if (b.oom) {
    free(b.s);
    return NULL;
  }
  return b.s;
}

// relative path from directory `from` to `to` (both absolute and canonical)
static char* rel_path(const char* from, const char* to) {
  size_t i = 0, common = 0;
  while (from[i] && from[i] == to[i]) {
    if (from[i] == '/') common = i;
    i++;
  }
  if (!from[i] && (to[i] == '/' || !to[i])) common = i;
  else if (!to[i] && from[i] == '/') common = i;
  sbuf b = {0};
  for (const char* p = from + common; *p; p++)
    if (*p == '/') sb_add(&b, "../");
  const char* rest = to + common;
  while (*rest == '/') rest++;
  if (*rest) sb_add(&b, "%s", rest);
  else if (b.n) b.s[--b.n] = '\0';   // drop the trailing '/'
  else sb_add(&b, ".");
  if (b.oom) {
    free(b.s);
    return NULL;
  }
  return b.s;
}

// path p (relative to the base scenario's directory) relative to the points directory: through
// the canonical path when p exists, else lexically (prefix = points -> base directory)
static char* rel_to(const char* pts_abs, const char* base_abs, const char* prefix, const char* p) {
  char* full = join(base_abs, p);
  char* canon = full ? realpath(full, NULL) : NULL;
  free(full);
  char* r = canon ? rel_path(pts_abs, canon) : join(prefix, p);
  free(canon);
  return r;
}

// a YAML double-quoted string
static void quoted(sbuf* b, const char* t) {
  sb_add(b, "\"");
  for (; *t; t++) {
    if (*t == '"' || *t == '\\') sb_add(b, "\\%c", *t);
    else sb_add(b, "%c", *t);
  }
  sb_add(b, "\"");
}

// the overrides of a point: `set` first, then the axes; pos gets the spec position of each
static int point_overrides(const spec* s, const int* idx, char** ov, int (*pos)[2]) {
  int n = 0;
  for (int i = 0; i < s->nset; i++) {
    sbuf b = {0};
    sb_add(&b, "%s=%s", s->set[i].key, s->set[i].text);
    ov[n] = b.s;
    pos[n][0] = s->set[i].line;
    pos[n++][1] = s->set[i].col;
    if (b.oom) return -1;
  }
  for (int a = 0; a < s->naxes; a++) {
    sbuf b = {0};
    sb_add(&b, "%s=%s", s->axes[a].key, s->axes[a].text[idx[a]]);
    ov[n] = b.s;
    pos[n][0] = s->axes[a].line[idx[a]];
    pos[n++][1] = s->axes[a].col[idx[a]];
    if (b.oom) return -1;
  }
  return n;
}

// an error of point p: where in the spec, which point, then the scenario's own message
static csim_status point_error(const spec* s, long p, const char* name, int (*pos)[2], int nov,
                               csim_error* err) {
  csim_error e = *err;
  if (!strcmp(e.file, "--set") && e.line >= 1 && e.line <= nov) {  // an override: the spec's value
    int k = e.line - 1;
    snprintf(e.file, sizeof(e.file), "%s", s->file);
    e.line = pos[k][0];
    e.column = pos[k][1];
    char m[sizeof(e.msg)];
    snprintf(m, sizeof(m), "point %ld (%.200s): %.700s", p, name, err->msg);
    snprintf(e.msg, sizeof(e.msg), "%s", m);
  } else {
    char where[700];
    err_format(err, where, sizeof(where));
    snprintf(e.msg, sizeof(e.msg), "point %ld (%.200s): %.700s", p, name, where);
    snprintf(e.file, sizeof(e.file), "%s", s->file);
    e.line = e.column = 0;
    e.key[0] = '\0';
  }
  *err = e;
  return CSIM_ERR_INPUT;
}

// one point: validate it and produce its scenario text; *text owned by the caller
static csim_status make_point(const spec* s, long p, const char* name, const char* pts_abs,
                              const char* base_dir_abs, const char* dir, char** text,
                              csim_error* err) {
  int idx[256], rep = 0;
  point_indices(s, p, idx, &rep);
  int cap = s->nset + s->naxes + 8;
  char** ov = calloc((size_t)cap, sizeof(char*));
  int(*pos)[2] = calloc((size_t)cap, sizeof(*pos));
  scn_config* cfg = NULL;
  sim* S = NULL;
  csim_status st = CSIM_OK;
  int nov = ov && pos ? point_overrides(s, idx, ov, pos) : -1;
  if (nov < 0) {
    st = err_set(err, CSIM_ERR_RUN, s->file, 0, 0, NULL, "out of memory");
    goto done;
  }
  // 1. the overrides on the base, as `csim run --set` would apply them
  if (scn_load(s->base, (const char* const*)ov, nov, &cfg, err) != CSIM_OK) {
    st = point_error(s, p, name, pos, nov, err);
    goto done;
  }
  // 2. the same with the sweep's own keys: paths relative to points/, name, output
  int need = nov + 3;
  for (int r = 0; r < cfg->nrobots; r++) need += 1 + cfg->robots[r].npackage_paths;
  if (need > cap) {
    char** ov2 = realloc(ov, sizeof(char*) * (size_t)need);
    if (!ov2) {
      st = err_set(err, CSIM_ERR_RUN, s->file, 0, 0, NULL, "out of memory");
      goto done;
    }
    memset(ov2 + cap, 0, sizeof(char*) * (size_t)(need - cap));
    ov = ov2;
    cap = need;
  }
  char* prefix = rel_path(pts_abs, base_dir_abs);
  int n2 = nov;
  for (int r = 0; r < cfg->nrobots && prefix; r++) {
    const scn_robot* rb = &cfg->robots[r];
    sbuf b = {0};
    const char* file = rb->urdf ? rb->urdf : rb->mjcf;
    if (file && file[0] != '/') {
      sb_add(&b, "robots.%d.%s=", r, rb->urdf ? "urdf" : "mjcf");
      char* j = rel_to(pts_abs, base_dir_abs, prefix, file);
      quoted(&b, j ? j : "");
      free(j);
      ov[n2++] = b.s;
    }
    for (int k = 0; k < rb->npackage_paths; k++) {
      const char* t = rb->package_paths_text[k];
      if (t[0] == '/') continue;
      sbuf c = {0};
      sb_add(&c, "robots.%d.package_paths.%d=", r, k);
      char* j = rel_to(pts_abs, base_dir_abs, prefix, t);
      quoted(&c, j ? j : "");
      free(j);
      ov[n2++] = c.s;
    }
  }
  free(prefix);
  sbuf nb = {0}, ob = {0};
  sb_add(&nb, "name=");
  quoted(&nb, name);
  sb_add(&ob, "output.path=\"../out/%s.h5\"", name);
  ov[n2++] = nb.s;
  ov[n2++] = ob.s;
  for (int i = 0; i < n2; i++)
    if (!ov[i]) {
      st = err_set(err, CSIM_ERR_RUN, s->file, 0, 0, NULL, "out of memory");
      goto done;
    }
  scn_free(cfg);
  cfg = NULL;
  if (scn_load(s->base, (const char* const*)ov, n2, &cfg, err) != CSIM_OK) {
    st = point_error(s, p, name, pos, nov, err);
    goto done;
  }
  // the emitted YAML without scenario.c's "# csim scenario as run" comment lines
  const char* y = cfg->text;
  while (*y == '#') {
    const char* nl = strchr(y, '\n');
    y = nl ? nl + 1 : y + strlen(y);
  }
  sbuf tb = {0};
  sb_add(&tb, "# csim sweep %s, point %ld of %ld (%s):", s->name, p, s->npoints, name);
  for (int a = 0; a < s->naxes; a++)
    sb_add(&tb, "%s %s = %s", a ? "," : "", s->axes[a].key, s->axes[a].text[idx[a]]);
  if (s->repeat > 1) sb_add(&tb, ", repeat %d", rep);
  sb_add(&tb, "\n# generated by csim sweep from %s (base %s): regenerate rather than edit\n%s",
         s->file, s->base, y);
  if (tb.oom) {
    free(tb.s);
    st = err_set(err, CSIM_ERR_RUN, s->file, 0, 0, NULL, "out of memory");
    goto done;
  }
  // 3. the file as it will run: scenario checks and the model (URDF, q0 sizes, pairings)
  scn_free(cfg);
  cfg = NULL;
  char fname[4096];
  snprintf(fname, sizeof(fname), "%s/points/%s.yaml", dir, name);
  if (scn_load_string(tb.s, fname, NULL, 0, &cfg, err) != CSIM_OK ||
      sim_create(cfg, &S, err) != CSIM_OK) {
    free(tb.s);
    st = point_error(s, p, name, pos, nov, err);
    goto done;
  }
  *text = tb.s;
done:
  if (ov)
    for (int i = 0; i < cap; i++) free(ov[i]);
  free(ov);
  free(pos);
  sim_free(S);
  scn_free(cfg);
  return st;
}

//---------------------------------- files -----------------------------------------------------

// write a whole file through a temporary name, so a reader never sees half of it
static csim_status write_file(const char* path, const char* text, int mode, csim_error* err) {
  char tmp[4200];
  snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
  FILE* f = fopen(tmp, "w");
  int ok = f && fputs(text, f) >= 0;
  if (f && fclose(f) != 0) ok = 0;
  if (ok && mode) ok = chmod(tmp, (mode_t)mode) == 0;
  if (ok) ok = rename(tmp, path) == 0;
  if (!ok) {
    int e = errno;
    remove(tmp);
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot write: %s", strerror(e));
  }
  return CSIM_OK;
}

static void csv_cell(sbuf* b, const char* s) {
  if (!strpbrk(s, ",\"\n\r")) {
    sb_add(b, "%s", s);
    return;
  }
  sb_add(b, "\"");
  for (; *s; s++) sb_add(b, *s == '"' ? "\"\"" : "%c", *s);
  sb_add(b, "\"");
}

// directories the sweep creates, removed again when validation fails
typedef struct {
  char* made[8];
  int n;
} made_dirs;

static int make_dir(const char* path, made_dirs* m) {
  if (mkdir(path, 0755) == 0) {
    if (m && m->n < 8) m->made[m->n++] = strdup(path);
    return 0;
  }
  struct stat sb;
  return errno == EEXIST && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) ? 0 : -1;
}

// mkdir -p for the sweep directory (its parents are kept afterwards, the leaf is recorded)
static int make_dirs(const char* path, made_dirs* m) {
  char* p = strdup(path);
  if (!p) return -1;
  for (char* q = p + 1; *q; q++) {
    if (*q != '/') continue;
    *q = '\0';
    if (make_dir(p, NULL) != 0) {
      free(p);
      return -1;
    }
    *q = '/';
  }
  int rc = make_dir(p, m);
  free(p);
  return rc;
}

// a sweep directory may be new, empty, or hold this very sweep (same index.csv)
static csim_status check_dir(const char* dir, const char* index, csim_error* err) {
  struct stat sb;
  if (stat(dir, &sb) != 0) return CSIM_OK;
  if (!S_ISDIR(sb.st_mode))
    return err_set(err, CSIM_ERR_INPUT, dir, 0, 0, "--out", "exists and is not a directory");
  char ip[4200];
  snprintf(ip, sizeof(ip), "%s/index.csv", dir);
  FILE* f = fopen(ip, "rb");
  if (!f) {
    // empty, or holding only the empty points/ of a csim sweep stopped while validating
    char pts[4200];
    snprintf(pts, sizeof(pts), "%s/points", dir);
    DIR* d = opendir(dir);
    int entries = 0;
    for (struct dirent* e; d && (e = readdir(d)) != NULL;)
      entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                 !(!strcmp(e->d_name, "points") && rmdir(pts) == 0);
    if (d) closedir(d);
    if (d && !entries) return CSIM_OK;
    return err_set(err, CSIM_ERR_INPUT, dir, 0, 0, "--out", "is a non-empty directory without "
                   "index.csv, not a sweep directory: choose another --out");
  }
  size_t n = strlen(index), k = 0;
  int same = 1, c;
  while ((c = fgetc(f)) != EOF) {
    if (k >= n || (char)c != index[k]) {
      same = 0;
      break;
    }
    k++;
  }
  fclose(f);
  if (!same || k != n)
    return err_set(err, CSIM_ERR_INPUT, dir, 0, 0, "--out", "holds another sweep (its index.csv "
                   "lists other points): choose another --out, or remove it to start over");
  return CSIM_OK;
}

static char* makefile_text(const spec* s, int nchunks, const char* csim) {
  sbuf b = {0};
  sb_add(&b, "# csim sweep %s: %ld points in %d chunks of up to %d. Generated by csim sweep from\n"
         "# %s: regenerate rather than edit.\n"
         "#   make -C DIR -j N   run every point whose output is not complete = 1 (resumable:\n"
         "#                      rerun after an interrupt to run just the missing points)\n"
         "#   make -C DIR merge  one table of every point: merged.csv\n"
         "# A failing point does not stop the others (-k); make then exits non-zero.\n"
         "# Another csim executable: make -C DIR CSIM=/path/to/csim\n",
         s->name, s->npoints, nchunks, s->chunk, s->file);
  sb_add(&b, "CSIM := %s\nMAKEFLAGS += -k\n\nCHUNKS :=", csim);  // := : not taken from the environment
  for (int c = 0; c < nchunks; c++) sb_add(&b, "%s c%04d", c % 8 ? "" : " \\\n ", c);
  sb_add(&b, "\n\n.PHONY: all merge $(CHUNKS)\nall: $(CHUNKS)\n\n"
         "$(CHUNKS):\n\t@$(CSIM) run --skip-complete --log-dir logs --batch chunks/$@.txt\n\n"
         "merge:\n\t$(CSIM) merge . --out merged.csv\n");
  return b.oom ? (free(b.s), NULL) : b.s;
}

static char* sbatch_text(const spec* s, int nchunks, const char* dir_abs, const char* csim) {
  int m = s->max_parallel ? s->max_parallel : (nchunks < 64 ? nchunks : 64);
  sbuf b = {0};
  sb_add(&b, "#!/bin/bash\n"
         "# csim sweep %s: %ld points in %d chunks of up to %d, one chunk per array task.\n"
         "# Submit: sbatch %s/sweep.sbatch   (again after a preemption or failure: complete\n"
         "# points are skipped). Merge: csim merge %s\n",
         s->name, s->npoints, nchunks, s->chunk, dir_abs, dir_abs);
  sb_add(&b, "#SBATCH --job-name=csim-%s\n#SBATCH --array=0-%d%%%d\n#SBATCH --chdir=%s\n"
         "#SBATCH --output=logs/slurm-%%A_%%a.out\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n"
         "#SBATCH --requeue\n",
         s->name, nchunks - 1, m, dir_abs, s->cpus ? s->cpus : 1);
  if (s->partition) sb_add(&b, "#SBATCH --partition=%s\n", s->partition);
  if (s->time) sb_add(&b, "#SBATCH --time=%s\n", s->time);
  if (s->mem) sb_add(&b, "#SBATCH --mem=%s\n", s->mem);
  for (int i = 0; i < s->nextra; i++) sb_add(&b, "#SBATCH %s\n", s->extra[i]);
  sb_add(&b, "set -u\nCSIM=${CSIM_SWEEP_EXE:-%s}\n"
         "task=${SLURM_ARRAY_TASK_ID:?submit with sbatch: this script is a job array}\n"
         "chunk=$(printf 'chunks/c%%04d.txt' \"$task\")\n"
         "# SIGTERM (preemption, scancel, time limit) ends the running point with complete = 0\n"
         "exec \"$CSIM\" run --skip-complete --log-dir logs --batch \"$chunk\"\n",
         csim);
  return b.oom ? (free(b.s), NULL) : b.s;
}

static char* parallel_text(const spec* s, const char* csim) {
  sbuf b = {0};
  sb_add(&b, "#!/bin/sh\n# csim sweep %s with GNU parallel: one chunk per job, JOBS at a time\n"
         "# (default: one per core); rerun to resume (complete points are skipped).\n"
         "cd \"$(dirname \"$0\")\" || exit 2\n"
         "exec parallel --halt never -j \"${JOBS:-100%%}\" \"${CSIM_SWEEP_EXE:-%s}\" run --skip-complete "
         "--log-dir logs --batch {} ::: chunks/c*.txt\n",
         s->name, csim);
  return b.oom ? (free(b.s), NULL) : b.s;
}

csim_status swp_generate(const swp_options* opt, csim_error* err) {
  err_clear(err);
  spec s;
  memset(&s, 0, sizeof(s));
  s.file = opt->spec;
  csim_status st = parse_spec(&s, err);
  char** names = NULL;
  char** texts = NULL;
  char* dir = NULL;
  char* dir_abs = NULL;
  char* pts_abs = NULL;
  char* base_abs = NULL;
  made_dirs md = {{NULL}, 0};
  sbuf idx = {0};
  if (st) goto done;
  if (s.naxes > 200) {
    st = err_set(err, CSIM_ERR_INPUT, s.file, 0, 0, "axes", "more than 200 axes");
    goto done;
  }
  if (opt->out) {
    dir = strdup(opt->out);
  } else {
    size_t n = strlen(s.name) + 10;
    dir = malloc(n);
    if (dir) snprintf(dir, n, "sweeps/%s", s.name);
  }
  names = calloc((size_t)s.npoints, sizeof(char*));
  texts = calloc((size_t)s.npoints, sizeof(char*));
  if (!dir || !names || !texts) {
    st = err_set(err, CSIM_ERR_RUN, s.file, 0, 0, NULL, "out of memory");
    goto done;
  }
  while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/') dir[strlen(dir) - 1] = '\0';
  // names and index.csv first: they decide whether DIR may be (re)used
  int width = 4;
  for (long x = s.npoints - 1; x >= 10000; x /= 10) width++;
  sb_add(&idx, "point,name");
  for (int a = 0; a < s.naxes; a++) {
    sb_add(&idx, ",");
    csv_cell(&idx, s.axes[a].key);
  }
  sb_add(&idx, "%s,scenario,output\n", s.repeat > 1 ? ",repeat" : "");
  for (long p = 0; p < s.npoints; p++) {
    int ix[256], rep;
    point_indices(&s, p, ix, &rep);
    names[p] = point_name(&s, p, ix, rep, width);
    if (!names[p]) {
      st = err_set(err, CSIM_ERR_RUN, s.file, 0, 0, NULL, "out of memory");
      goto done;
    }
    sb_add(&idx, "%ld,%s", p, names[p]);
    for (int a = 0; a < s.naxes; a++) {
      sb_add(&idx, ",");
      csv_cell(&idx, s.axes[a].text[ix[a]]);
    }
    if (s.repeat > 1) sb_add(&idx, ",%d", rep);
    sb_add(&idx, ",points/%s.yaml,out/%s.h5\n", names[p], names[p]);
  }
  if (idx.oom) {
    st = err_set(err, CSIM_ERR_RUN, s.file, 0, 0, NULL, "out of memory");
    goto done;
  }
  if ((st = check_dir(dir, idx.s, err))) goto done;
  // the points directory must exist to compute paths relative to it; removed again on failure
  char sub[4200];
  snprintf(sub, sizeof(sub), "%s/points", dir);
  if (make_dirs(dir, &md) != 0 || make_dir(sub, &md) != 0) {
    st = err_set(err, CSIM_ERR_INPUT, dir, 0, 0, "--out", "cannot create the directory: %s",
                 strerror(errno));
    goto done;
  }
  char* bd = dir_of(s.base);
  base_abs = bd ? realpath(bd, NULL) : NULL;
  free(bd);
  pts_abs = realpath(sub, NULL);
  dir_abs = realpath(dir, NULL);
  if (!base_abs || !pts_abs || !dir_abs) {
    st = err_set(err, CSIM_ERR_INPUT, base_abs ? dir : s.base, 0, 0, NULL,
                 "cannot resolve the directory: %s", strerror(errno));
    goto done;
  }
  // the runners hold these paths unquoted (#SBATCH lines, make variables)
  const char* unsafe = " \t\n\r'\"\\$#%:;=`*?[]()&|<>";
  if (strpbrk(dir_abs, unsafe) || strpbrk(opt->csim, unsafe)) {
    const char* which = strpbrk(dir_abs, unsafe) ? dir_abs : opt->csim;
    st = err_set(err, CSIM_ERR_INPUT, which, 0, 0, strpbrk(dir_abs, unsafe) ? "--out" : NULL,
                 "the path holds '%c', which the generated Makefile and sbatch script cannot "
                 "quote: use a path of letters, digits and ./_+-",
                 *strpbrk(which, unsafe));
    goto done;
  }
  // validate every point before writing anything
  for (long p = 0; p < s.npoints && !st; p++)
    st = make_point(&s, p, names[p], pts_abs, base_abs, dir, &texts[p], err);
  if (st) goto done;
  // write
  const char* subs[] = {"out", "logs", "chunks"};
  for (int k = 0; k < 3 && !st; k++) {
    snprintf(sub, sizeof(sub), "%s/%s", dir, subs[k]);
    if (make_dir(sub, NULL) != 0)
      st = err_set(err, CSIM_ERR_INPUT, sub, 0, 0, NULL, "cannot create: %s", strerror(errno));
  }
  for (long p = 0; p < s.npoints && !st; p++) {
    snprintf(sub, sizeof(sub), "%s/points/%s.yaml", dir, names[p]);
    st = write_file(sub, texts[p], 0, err);
  }
  int nchunks = (int)((s.npoints + s.chunk - 1) / s.chunk);
  for (int c = 0; c < nchunks && !st; c++) {
    sbuf cb = {0};
    for (long p = (long)c * s.chunk; p < s.npoints && p < (long)(c + 1) * s.chunk; p++)
      sb_add(&cb, "points/%s.yaml\n", names[p]);
    snprintf(sub, sizeof(sub), "%s/chunks/c%04d.txt", dir, c);
    st = cb.oom ? err_set(err, CSIM_ERR_RUN, sub, 0, 0, NULL, "out of memory")
                : write_file(sub, cb.s, 0, err);
    free(cb.s);
  }
  char* mk = st ? NULL : makefile_text(&s, nchunks, opt->csim);
  char* sl = st ? NULL : sbatch_text(&s, nchunks, dir_abs, opt->csim);
  char* pl = st ? NULL : parallel_text(&s, opt->csim);
  if (!st && (!mk || !sl || !pl)) st = err_set(err, CSIM_ERR_RUN, dir, 0, 0, NULL, "out of memory");
  snprintf(sub, sizeof(sub), "%s/Makefile", dir);
  if (!st) st = write_file(sub, mk, 0, err);
  snprintf(sub, sizeof(sub), "%s/sweep.sbatch", dir);
  if (!st) st = write_file(sub, sl, 0755, err);
  snprintf(sub, sizeof(sub), "%s/parallel.sh", dir);
  if (!st) st = write_file(sub, pl, 0755, err);
  free(mk);
  free(sl);
  free(pl);
  snprintf(sub, sizeof(sub), "%s/index.csv", dir);  // last: marks a finished sweep directory
  if (!st) st = write_file(sub, idx.s, 0, err);
  if (!st && opt->report) {
    fprintf(opt->report,
            "csim sweep: %ld points (%s of %d axes%s), %d chunks of up to %d, validated; "
            "written to %s\n"
            "  make:     make -C %s -j $(nproc)\n"
            "  slurm:    sbatch %s/sweep.sbatch\n"
            "  parallel: %s/parallel.sh\n"
            "  merge:    csim merge %s --out %s/merged.csv\n",
            s.npoints, s.zip ? "zip" : "product", s.naxes, s.repeat > 1 ? ", repeated" : "",
            nchunks, s.chunk, dir, dir, dir_abs, dir, dir, dir);
  }
done:
  if (st)  // nothing half-made: the directories this call created are empty again
    for (int k = md.n - 1; k >= 0; k--) rmdir(md.made[k]);
  for (int k = 0; k < md.n; k++) free(md.made[k]);
  if (names)
    for (long p = 0; p < s.npoints; p++) free(names[p]);
  if (texts)
    for (long p = 0; p < s.npoints; p++) free(texts[p]);
  free(names);
  free(texts);
  free(idx.s);
  free(dir);
  free(dir_abs);
  free(pts_abs);
  free(base_abs);
  spec_free(&s);
  return st;
}
