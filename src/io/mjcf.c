// mjcf.c — MJCF reader (see mjcf.h): XML DOM (xml.h) with includes expanded -> urdf_robot.
//
// Semantics follow MuJoCo 2.2.2's XML reference (mujoco.readthedocs.io, "XML Reference") and its
// compiler where the reference is terse: orientations as mjuu_frame (euler accumulated per
// eulerseq, lower case rotating axes, upper case fixed), zaxis by the minimal rotation from +z,
// fromto as the segment's midpoint and direction; a nested default class is a copy of its parent
// when it is created (attributes the parent gains later are not inherited); inertia from geoms
// as mjCGeom::SetInertia and mjCBody's sum about the centre of mass.
#include "io/mjcf.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"
#include "io/mjcf_impl.h"
#include "io/xml.h"

//---------------------------------- context and errors ---------------------------------------

csim_status mj_fail(mj_ctx* c, const mj_node* n, const xml_attr* a, const char* fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  int line = a ? a->line : n ? n->x->line : 0;
  int col = a ? a->column : n ? n->x->column : 0;
  return err_set(c->err, CSIM_ERR_INPUT, n ? n->file : c->mainfile, line, col,
                 n ? n->x->name : NULL, "%s", msg);
}

csim_status mj_oom(mj_ctx* c) {
  return err_set(c->err, CSIM_ERR_RUN, c->mainfile, 0, 0, NULL, "out of memory");
}

// duplicate a string (NULL on failure)
char* mj_dup(const char* s) {
  size_t n = strlen(s) + 1;
  char* d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

// append one unsupported entry (file, position, element, message)
static csim_status add_unsupported(mj_ctx* c, const char* file, int line, int col,
                                   const char* element, const char* msg) {
  urdf_robot* r = c->r;
  if (r->nunsupported == c->capuns) {
    int nc = c->capuns ? 2 * c->capuns : 16;
    urdf_unsupported* u = realloc(r->unsupported, (size_t)nc * sizeof(*u));
    if (!u) return mj_oom(c);
    r->unsupported = u;
    c->capuns = nc;
  }
  urdf_unsupported* u = &r->unsupported[r->nunsupported];
  memset(u, 0, sizeof(*u));
  u->file = mj_dup(file ? file : "");
  if (!u->file) return mj_oom(c);
  r->nunsupported++;
  u->line = line;
  u->column = col;
  snprintf(u->element, sizeof(u->element), "%s", element);
  snprintf(u->msg, sizeof(u->msg), "%s", msg);
  return CSIM_OK;
}

csim_status mj_unsupported(mj_ctx* c, const mj_node* n, const xml_attr* a, const char* fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return add_unsupported(c, n->file, a ? a->line : n->x->line, a ? a->column : n->x->column,
                         n->x->name, msg);
}

csim_status mj_unsupported_at(mj_ctx* c, const char* file, int line, int col,
                              const char* element, const char* fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return add_unsupported(c, file, line, col, element, msg);
}

//---------------------------------- numbers and attributes -----------------------------------

// parse between nmin and nmax white-space separated finite decimal numbers of attribute a of
// element n into out; *nread (may be NULL) gets how many
csim_status mj_nums(mj_ctx* c, const mj_node* n, const xml_attr* a, int nmin, int nmax,
                    double* out, int* nread) {
  const char* s = a->value;
  int k = 0;
  for (;;) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (!*s) break;
    const char* t = s;
    while (*t && !isspace((unsigned char)*t)) t++;
    char* end = NULL;
    int ok = isdigit((unsigned char)*s) || *s == '-' || *s == '+' || *s == '.';
    double v = ok ? strtod(s, &end) : 0;
    // strtod also takes "inf", "nan" and hex after a sign: the token must be plain decimal
    for (const char* p = s; ok && p < t; p++)
      ok = isdigit((unsigned char)*p) || strchr("+-.eE", *p);
    if (!ok || end != t || !isfinite(v))
      return mj_fail(c, n, a, "attribute '%s' of <%s>: '%.*s' is not a finite decimal number",
                     a->name, n->x->name, (int)(t - s > 60 ? 60 : t - s), s);
    if (k == nmax)
      return mj_fail(c, n, a, "attribute '%s' of <%s>: expected at most %d number%s, found more",
                     a->name, n->x->name, nmax, nmax > 1 ? "s" : "");
    out[k++] = v;
    s = t;
  }
  if (k < nmin)
    return mj_fail(c, n, a, "attribute '%s' of <%s>: expected %s%d number%s, found %d ('%s')",
                   a->name, n->x->name, nmin == nmax ? "" : "at least ", nmin,
                   nmin > 1 ? "s" : "", k, a->value);
  if (nread) *nread = k;
  return CSIM_OK;
}

// an attribute that must be one of the words in `names` (NULL-terminated); *out = its index
csim_status mj_word(mj_ctx* c, const mj_node* n, const xml_attr* a, const char* const* names,
                    int* out) {
  for (int i = 0; names[i]; i++)
    if (!strcmp(a->value, names[i])) {
      *out = i;
      return CSIM_OK;
    }
  char list[256];
  size_t t = 0;
  list[0] = '\0';
  for (int i = 0; names[i] && t < sizeof(list); i++)
    t += (size_t)snprintf(list + t, sizeof(list) - t, "%s'%s'", i ? ", " : "", names[i]);
  return mj_fail(c, n, a, "attribute '%s' of <%s>: '%s' is not one of %s", a->name, n->x->name,
                 a->value, list);
}

static const char* const kBool[] = {"false", "true", NULL};

csim_status mj_bool(mj_ctx* c, const mj_node* n, const xml_attr* a, int* out) {
  return mj_word(c, n, a, kBool, out);
}

// every attribute of n must be in the space-separated list `allowed`
csim_status mj_check_attrs(mj_ctx* c, const mj_node* n, const char* allowed) {
  for (const xml_attr* a = n->x->attrs; a; a = a->next) {
    size_t len = strlen(a->name);
    const char* p = allowed;
    int found = 0;
    while (*p && !found) {
      const char* e = strchr(p, ' ');
      size_t l = e ? (size_t)(e - p) : strlen(p);
      found = l == len && !strncmp(p, a->name, len);
      p += l + (e ? 1 : 0);
    }
    if (!found)
      return mj_fail(c, n, a, "unknown attribute '%s' of <%s> (MuJoCo 2.2.2's <%s> takes: %s)",
                     a->name, n->x->name, n->x->name, allowed);
  }
  return CSIM_OK;
}

//---------------------------------- defaults -------------------------------------------------

// the attribute `name` of element n of kind `kind` ("geom", "joint", ...): its own, else from
// its default class cls and that class's ancestors (each as it was when the child was made);
// *where gets the element that holds it (for messages)
const xml_attr* mj_attr(const mj_ctx* c, const mj_node* n, const char* kind, int cls,
                        const char* name, const mj_node** where) {
  const xml_attr* a = n ? xml_attr_find(n->x, name) : NULL;
  if (a) {
    *where = n;
    return a;
  }
  int before = INT32_MAX;
  for (int k = cls; k >= 0; k = c->cls[k].parent) {
    const mj_class* K = &c->cls[k];
    for (int i = K->nel - 1; i >= 0; i--) {
      if (K->seq[i] >= before || strcmp(K->el[i]->x->name, kind)) continue;
      a = xml_attr_find(K->el[i]->x, name);
      if (a) {
        *where = K->el[i];
        return a;
      }
    }
    if (K->created < before) before = K->created;
  }
  return NULL;
}

// numbers of an attribute through the default chain; out keeps its defaults when absent;
// *given (may be NULL) says whether it was found
csim_status mj_dnums(mj_ctx* c, const mj_node* n, const char* kind, int cls, const char* name,
                     int nmin, int nmax, double* out, int* given) {
  const mj_node* w = NULL;
  const xml_attr* a = mj_attr(c, n, kind, cls, name, &w);
  if (given) *given = a != NULL;
  return a ? mj_nums(c, w, a, nmin, nmax, out, NULL) : CSIM_OK;
}

// index of class `name`, -1 when none
static int find_class(const mj_ctx* c, const char* name) {
  for (int k = 0; k < c->ncls; k++)
    if (!strcmp(c->cls[k].name, name)) return k;
  return -1;
}

// the class of element n: its class attribute, else the inherited childclass
csim_status mj_class_of(mj_ctx* c, const mj_node* n, int inherited, int* out) {
  const xml_attr* a = xml_attr_find(n->x, "class");
  *out = inherited;
  if (!a) return CSIM_OK;
  *out = find_class(c, a->value);
  if (*out < 0)
    return mj_fail(c, n, a, "<%s> names default class '%s', which is not defined", n->x->name,
                   a->value);
  return CSIM_OK;
}

// a new class (parent -1: main)
static int add_class(mj_ctx* c, const char* name, int parent) {
  if (c->ncls == c->capcls) {
    int nc = c->capcls ? 2 * c->capcls : 8;
    mj_class* k = realloc(c->cls, (size_t)nc * sizeof(*k));
    if (!k) return -1;
    c->cls = k;
    c->capcls = nc;
  }
  mj_class* K = &c->cls[c->ncls];
  memset(K, 0, sizeof(*K));
  K->name = name;
  K->parent = parent;
  K->created = c->seq++;
  return c->ncls++;
}

// one element of class k's defaults
static int add_class_el(mj_ctx* c, int k, const mj_node* e) {
  mj_class* K = &c->cls[k];
  if (K->nel == K->capel) {
    int nc = K->capel ? 2 * K->capel : 8;
    const mj_node** el = realloc(K->el, (size_t)nc * sizeof(*el));
    int* sq = realloc(K->seq, (size_t)nc * sizeof(int));
    if (el) K->el = el;
    if (sq) K->seq = sq;
    if (!el || !sq) return 0;
    K->capel = nc;
  }
  K->el[K->nel] = e;
  K->seq[K->nel++] = c->seq++;
  return 1;
}

// element kinds a default class may hold (MuJoCo 2.2.2)
static const char* const kDefaultKinds[] = {
    "mesh", "material", "joint", "geom", "site", "camera", "light", "pair", "equality",
    "tendon", "general", "motor", "position", "velocity", "cylinder", "muscle", "adhesion",
    "intvelocity", "damper", NULL};

// one <default> element: class k gets its children; nested <default> make child classes
csim_status mj_read_default(mj_ctx* c, const mj_node* d, int k) {
  for (int i = 0; i < d->nkid; i++) {
    const mj_node* e = &d->kids[i];
    if (!strcmp(e->x->name, "default")) {
      const xml_attr* a = xml_attr_find(e->x, "class");
      if (!a || !a->value[0])
        return mj_fail(c, e, NULL, "a nested <default> needs a 'class' attribute");
      if (find_class(c, a->value) >= 0)
        return mj_fail(c, e, a, "default class '%s' is defined twice", a->value);
      int nk = add_class(c, a->value, k);
      if (nk < 0) return mj_oom(c);
      csim_status st = mj_read_default(c, e, nk);
      if (st) return st;
      continue;
    }
    int known = 0;
    for (int t = 0; kDefaultKinds[t] && !known; t++) known = !strcmp(e->x->name, kDefaultKinds[t]);
    if (!known)
      return mj_fail(c, e, NULL, "<%s> cannot be in a <default> class (expected geom, joint, "
                     "mesh, an actuator or a visual element)", e->x->name);
    if (!add_class_el(c, k, e)) return mj_oom(c);
  }
  return CSIM_OK;
}

//---------------------------------- includes -------------------------------------------------

// directory part of a path ("." when none); new string
static char* dir_of(const char* path) {
  char* d = mj_dup(path);
  if (!d) return NULL;
  char* sl = strrchr(d, '/');
  if (!sl) strcpy(d, ".");
  else if (sl == d) d[1] = '\0';
  else *sl = '\0';
  return d;
}

// a/b, or b alone when b is absolute or a is NULL; new string
char* mj_join(const char* a, const char* b) {
  if (!a || b[0] == '/') return mj_dup(b);
  size_t n = strlen(a) + strlen(b) + 2;
  char* s = malloc(n);
  if (s) snprintf(s, n, "%s/%s", a, b);
  return s;
}

// keep a parsed document and its name in the context (freed at the end)
static int keep_doc(mj_ctx* c, xml_doc* doc, char* name) {
  if (c->ndoc == c->capdoc) {
    int nc = c->capdoc ? 2 * c->capdoc : 4;
    xml_doc** d = realloc(c->docs, (size_t)nc * sizeof(*d));
    char** nm = realloc(c->docnames, (size_t)nc * sizeof(*nm));
    if (d) c->docs = d;
    if (nm) c->docnames = nm;
    if (!d || !nm) return 0;
    c->capdoc = nc;
  }
  c->docs[c->ndoc] = doc;
  c->docnames[c->ndoc++] = name;
  return 1;
}

// parse the file an <include> names: from the memory image when there is one, else from disk
// relative to the including file; *name gets the name used in messages (kept by the context)
static csim_status open_include(mj_ctx* c, const mj_node* inc, const char* file, xml_doc** doc,
                                const char** name) {
  char* path = NULL;
  csim_status st;
  if (c->opt && c->opt->files) {
    const char* text = NULL;
    for (int i = 0; i < c->opt->nfiles && !text; i++)
      if (c->opt->files[i].name && !strcmp(c->opt->files[i].name, file)) text = c->opt->files[i].text;
    if (!text) return mj_fail(c, inc, xml_attr_find(inc->x, "file"), "included file '%s' is not in the model's file set", file);
    path = mj_dup(file);
    if (!path) return mj_oom(c);
    st = xml_parse(text, strlen(text), path, doc, c->err);
  } else {
    // the main file's includes resolve from its directory (mjcf_load_string's basedir)
    char* dir = inc->file == c->mainfile ? mj_dup(c->maindir) : dir_of(inc->file);
    path = dir ? mj_join(strcmp(dir, ".") ? dir : NULL, file) : NULL;
    free(dir);
    if (!path) return mj_oom(c);
    csim_error ferr;
    err_clear(&ferr);
    if (err_check_input_file(path, "MJCF include", &ferr) != CSIM_OK) {
      free(path);
      return mj_fail(c, inc, xml_attr_find(inc->x, "file"), "included file '%s' cannot be read: %s",
                     file, ferr.msg);
    }
    st = xml_parse_file(path, doc, c->err);
  }
  if (st == CSIM_OK && !keep_doc(c, *doc, path)) {
    xml_free(*doc);
    st = mj_oom(c);
  } else if (st != CSIM_OK) {
    free(path);
  }
  *name = st == CSIM_OK ? path : NULL;
  return st;
}

static csim_status expand(mj_ctx* c, mj_node* n, int depth);
static csim_status splice_include(mj_ctx* c, mj_node* n, int* cap, const mj_node* inc, int depth);

// append a child element (x, file) to n, expanded in turn
static csim_status add_kid(mj_ctx* c, mj_node* n, int* cap, const xml_node* x, const char* file,
                           int depth) {
  if (n->nkid == *cap) {
    int nc = *cap ? 2 * *cap : 4;
    mj_node* k = realloc(n->kids, (size_t)nc * sizeof(*k));
    if (!k) return mj_oom(c);
    n->kids = k;
    *cap = nc;
  }
  mj_node* k = &n->kids[n->nkid++];
  k->x = x;
  k->file = file;
  k->kids = NULL;
  k->nkid = 0;
  return expand(c, k, depth + 1);
}

// the children of an included file's root go where the <include> was
static csim_status splice_include(mj_ctx* c, mj_node* n, int* cap, const mj_node* inc, int depth) {
  csim_status st = mj_check_attrs(c, inc, "file");
  const xml_attr* fa = xml_attr_find(inc->x, "file");
  if (st) return st;
  if (!fa || !fa->value[0]) return mj_fail(c, inc, NULL, "<include> has no 'file' attribute");
  if (inc->x->nchild) return mj_fail(c, inc, NULL, "<include> must be empty");
  if (c->ninc == MJCF_MAX_INCLUDE)
    return mj_fail(c, inc, fa, "includes nested deeper than %d files", MJCF_MAX_INCLUDE);
  xml_doc* doc = NULL;
  const char* name = NULL;
  if ((st = open_include(c, inc, fa->value, &doc, &name))) return st;
  for (int i = 0; i < c->ninc; i++)
    if (!strcmp(c->incstack[i], name))
      return mj_fail(c, inc, fa, "cyclic include: '%s' includes itself (through %d file%s)",
                     fa->value, c->ninc - i, c->ninc - i > 1 ? "s" : "");
  if (strcmp(doc->root->name, "mujoco"))
    return err_set(c->err, CSIM_ERR_INPUT, name, doc->root->line, doc->root->column,
                   doc->root->name, "root element of an included file is <%s>, expected <mujoco>",
                   doc->root->name);
  c->incstack[c->ninc++] = name;
  for (const xml_node* x = doc->root->children; x && !st; x = x->next) {
    if (!strcmp(x->name, "include")) {
      mj_node sub = {x, name, NULL, 0};
      st = splice_include(c, n, cap, &sub, depth);
    } else {
      st = add_kid(c, n, cap, x, name, depth);
    }
  }
  c->ninc--;
  return st;
}

// n's children, with every <include> replaced by the included file's top-level elements
static csim_status expand(mj_ctx* c, mj_node* n, int depth) {
  if (depth > MJCF_MAX_DEPTH)
    return mj_fail(c, n, NULL, "elements nested deeper than %d levels", MJCF_MAX_DEPTH);
  int cap = 0;
  csim_status st = CSIM_OK;
  for (const xml_node* x = n->x->children; x && !st; x = x->next) {
    if (!strcmp(x->name, "include")) {
      mj_node inc = {x, n->file, NULL, 0};
      st = splice_include(c, n, &cap, &inc, depth);
    } else {
      st = add_kid(c, n, &cap, x, n->file, depth);
    }
  }
  return st;
}

// free the expanded tree below n
static void free_nodes(mj_node* n) {
  for (int i = 0; i < n->nkid; i++) free_nodes(&n->kids[i]);
  free(n->kids);
}

//---------------------------------- top level ------------------------------------------------

// elements purely visual or without effect on the dynamics: skipped, counted for one note
static const char* const kVisual[] = {"visual", "statistic", "size", "custom", "light", "camera",
                                      "texture", "material", "skin", "site", "numeric", "text",
                                      "tuple", NULL};
// elements out of the reader's scope: errors
static const char* const kOutOfScope[] = {"tendon", "equality", "sensor",
                                          "composite", "extension", "plugin", "flexcomp",
                                          "replicate", "frame", "spatial", "fixed", NULL};

int mj_in_list(const char* const* list, const char* name) {
  for (int i = 0; list[i]; i++)
    if (!strcmp(list[i], name)) return 1;
  return 0;
}

// an element that is skipped (visual) or refused (out of scope); 1 when it was handled
int mj_skip_or_refuse(mj_ctx* c, const mj_node* e, csim_status* st) {
  if (mj_in_list(kVisual, e->x->name)) {
    c->r->nvisual++;
    *st = CSIM_OK;
    return 1;
  }
  if (mj_in_list(kOutOfScope, e->x->name)) {
    *st = mj_fail(c, e, NULL, "<%s> is not supported by csim's MJCF reader (out of scope: "
                  "tendons, equality constraints, sensors, composites, plugins)",
                  e->x->name);
    return 1;
  }
  return 0;
}

// <compiler>
static csim_status read_compiler(mj_ctx* c, const mj_node* e) {
  csim_status st = mj_check_attrs(c, e,
      "angle eulerseq coordinate inertiafromgeom meshdir texturedir assetdir strippath "
      "discardvisual convexhull fusestatic inertiagrouprange boundmass boundinertia "
      "balanceinertia settotalmass autolimits usethread exactmeshinertia");
  static const char* const kAngle[] = {"radian", "degree", NULL};
  static const char* const kCoord[] = {"local", "global", NULL};
  static const char* const kIfg[] = {"false", "true", "auto", NULL};
  for (const xml_attr* a = e->x->attrs; a && !st; a = a->next) {
    int v = 0;
    double x[2] = {0, 0};
    if (!strcmp(a->name, "angle")) {
      st = mj_word(c, e, a, kAngle, &v);
      c->degree = v;
    } else if (!strcmp(a->name, "eulerseq")) {
      const char* s = a->value;
      int ok = strlen(s) == 3;
      for (int i = 0; ok && i < 3; i++) ok = strchr("xyzXYZ", s[i]) != NULL;
      if (!ok)
        return mj_fail(c, e, a, "eulerseq '%s': expected 3 letters among x y z X Y Z", s);
      memcpy(c->eulerseq, s, 4);
    } else if (!strcmp(a->name, "coordinate")) {
      st = mj_word(c, e, a, kCoord, &v);
      if (!st && v == 1)
        return mj_fail(c, e, a, "coordinate=\"global\" is not supported (MuJoCo 2.2.2 "
                       "deprecates it; csim reads local coordinates only)");
    } else if (!strcmp(a->name, "inertiafromgeom")) {
      st = mj_word(c, e, a, kIfg, &c->inertiafromgeom);
    } else if (!strcmp(a->name, "meshdir") || !strcmp(a->name, "assetdir")) {
      if (!strcmp(a->name, "assetdir") && c->meshdir) continue;
      free(c->meshdir);
      c->meshdir = mj_dup(a->value);
      if (!c->meshdir) return mj_oom(c);
    } else if (!strcmp(a->name, "autolimits")) {
      st = mj_bool(c, e, a, &c->autolimits);
    } else if (!strcmp(a->name, "inertiagrouprange")) {
      if (!(st = mj_nums(c, e, a, 2, 2, x, NULL))) {
        c->grouprange[0] = (int)x[0];
        c->grouprange[1] = (int)x[1];
      }
    } else if (!strcmp(a->name, "boundmass") || !strcmp(a->name, "boundinertia") ||
               !strcmp(a->name, "settotalmass")) {
      if (!(st = mj_nums(c, e, a, 1, 1, x, NULL)) && x[0] > 0)
        st = mj_unsupported(c, e, a, "compiler %s %g", a->name, x[0]);
    } else if (!strcmp(a->name, "balanceinertia")) {
      if (!(st = mj_bool(c, e, a, &v)) && v)
        st = mj_unsupported(c, e, a, "compiler balanceinertia");
    }
  }
  return st;
}

// <option>: timestep and gravity used; MuJoCo's solver settings are not (csim's solver is the
// scenario's); <flag> children skipped
static csim_status read_option(mj_ctx* c, const mj_node* e) {
  csim_status st = mj_check_attrs(c, e,
      "timestep apirate impratio tolerance noslip_tolerance mpr_tolerance gravity wind "
      "magnetic density viscosity o_margin o_solref o_solimp integrator collision cone "
      "jacobian solver iterations noslip_iterations mpr_iterations");
  const xml_attr* a = xml_attr_find(e->x, "timestep");
  if (!st && a && !(st = mj_nums(c, e, a, 1, 1, &c->r->timestep, NULL))) {
    if (!(c->r->timestep > 0)) return mj_fail(c, e, a, "timestep must be > 0, found %s", a->value);
    c->r->has_timestep = 1;
  }
  a = xml_attr_find(e->x, "gravity");
  if (!st && a && !(st = mj_nums(c, e, a, 3, 3, c->r->gravity, NULL))) c->r->has_gravity = 1;
  // fluid forces change the dynamics: recorded when on
  for (int k = 0; k < 2 && !st; k++) {
    double v = 0;
    a = xml_attr_find(e->x, k ? "viscosity" : "density");
    if (a && !(st = mj_nums(c, e, a, 1, 1, &v, NULL)) && v != 0)
      st = mj_unsupported(c, e, a, "option %s %g (fluid forces)", a->name, v);
  }
  // <flag> switches parts of MuJoCo's pipeline (gravity, contacts, limits...): recorded
  for (int i = 0; i < e->nkid && !st; i++) {
    const mj_node* k = &e->kids[i];
    if (strcmp(k->x->name, "flag"))
      return mj_fail(c, k, NULL, "<%s> cannot be in <option> (expected <flag>)", k->x->name);
    for (const xml_attr* f = k->x->attrs; f && !st; f = f->next)
      st = mj_unsupported(c, k, f, "option flag %s=\"%s\"", f->name, f->value);
  }
  return st;
}

// <asset>: meshes recorded; textures, materials, skins skipped; height fields refused
static csim_status read_asset(mj_ctx* c, const mj_node* e) {
  for (int i = 0; i < e->nkid; i++) {
    const mj_node* k = &e->kids[i];
    csim_status st;
    if (!strcmp(k->x->name, "mesh")) {
      if (c->nmesh == MJCF_MAX_MESH) return mj_fail(c, k, NULL, "more than %d meshes", MJCF_MAX_MESH);
      c->mesh[c->nmesh++] = k;
    } else if (!strcmp(k->x->name, "hfield")) {
      return mj_fail(c, k, NULL, "<hfield> assets are not supported (csim's terrain comes from "
                     "the scenario's world.ground)");
    } else if (!mj_skip_or_refuse(c, k, &st)) {
      return mj_fail(c, k, NULL, "unknown element <%s> in <asset>", k->x->name);
    } else if (st) {
      return st;
    }
  }
  return CSIM_OK;
}

// the sections of <mujoco>, in MuJoCo's order (compiler settings first, then defaults and
// assets, bodies, contacts, actuators), whatever order the file has them in
// attribute a of n as a list of any length of numbers (malloc'd into *out, count in *n); an
// empty list leaves *out NULL
static csim_status num_list(mj_ctx* c, const mj_node* n, const xml_attr* a, double** out,
                            int* count) {
  int k = 0;
  for (const char* s = a->value; *s;) {  // tokens: the most numbers the list can hold
    while (*s && isspace((unsigned char)*s)) s++;
    if (*s) k++;
    while (*s && !isspace((unsigned char)*s)) s++;
  }
  *out = NULL;
  *count = 0;
  if (k == 0) return CSIM_OK;
  if (!(*out = malloc(sizeof(double) * (size_t)k))) return mj_oom(c);
  *count = k;
  return mj_nums(c, n, a, k, k, *out, NULL);
}

// one <key>: qpos and qvel kept; time, act, ctrl, mpos and mquat recorded as not taken
static csim_status read_key(mj_ctx* c, const mj_node* n, urdf_key* K) {
  csim_status st = mj_check_attrs(c, n, "name time qpos qvel act ctrl mpos mquat");
  K->file = mj_dup(n->file ? n->file : "");
  K->line = n->x->line;
  K->column = n->x->column;
  if (!K->file) return mj_oom(c);
  for (const xml_attr* a = n->x->attrs; a && !st; a = a->next) {
    if (!strcmp(a->name, "name")) {
      if (!(K->name = mj_dup(a->value))) st = mj_oom(c);
    } else if (!strcmp(a->name, "qpos")) {
      st = num_list(c, n, a, &K->qpos, &K->nqpos);
    } else if (!strcmp(a->name, "qvel")) {
      st = num_list(c, n, a, &K->qvel, &K->nqvel);
    } else if (a->value[strspn(a->value, " \t\r\n")]) {  // given, not empty
      double x = 0;
      int one = !strcmp(a->name, "time") && !(st = mj_nums(c, n, a, 1, 1, &x, NULL));
      if (!one || x != 0)
        snprintf(K->ignored + strlen(K->ignored), sizeof(K->ignored) - strlen(K->ignored),
                 "%s%s", K->ignored[0] ? " " : "", a->name);
    }
  }
  return st;
}

// <keyframe>: its <key> elements, kept on the robot for robots.N.keyframe
static csim_status read_keyframe(mj_ctx* c, const mj_node* e) {
  csim_status st = mj_check_attrs(c, e, "");
  for (int i = 0; i < e->nkid && !st; i++) {
    const mj_node* k = &e->kids[i];
    if (strcmp(k->x->name, "key")) {
      st = mj_fail(c, k, NULL, "<%s> in <keyframe>: expected <key>", k->x->name);
      break;
    }
    urdf_key* ks = realloc(c->r->keys, sizeof(urdf_key) * (size_t)(c->r->nkey + 1));
    if (!ks) return mj_oom(c);
    c->r->keys = ks;
    memset(&ks[c->r->nkey], 0, sizeof(urdf_key));
    st = read_key(c, k, &ks[c->r->nkey++]);
  }
  return st;
}

static csim_status read_sections(mj_ctx* c, const mj_node* root) {
  static const char* const kKnown[] = {"compiler", "option", "default", "asset", "worldbody",
                                       "contact", "actuator", "keyframe", NULL};
  csim_status st = CSIM_OK;
  for (int i = 0; i < root->nkid && !st; i++) {
    const mj_node* e = &root->kids[i];
    if (mj_in_list(kKnown, e->x->name) || mj_skip_or_refuse(c, e, &st)) continue;
    st = mj_fail(c, e, NULL, "unknown element <%s> in <mujoco>", e->x->name);
  }
  for (int pass = 0; pass < 8 && !st; pass++)
    for (int i = 0; i < root->nkid && !st; i++) {
      const mj_node* e = &root->kids[i];
      if (strcmp(e->x->name, kKnown[pass])) continue;
      switch (pass) {
        case 0: st = read_compiler(c, e); break;
        case 1: st = read_option(c, e); break;
        case 2:
          if (!(st = mj_check_attrs(c, e, "class"))) st = mj_read_default(c, e, 0);
          break;
        case 3: st = read_asset(c, e); break;
        case 4: st = mj_read_worldbody(c, e); break;
        case 5: st = mj_read_contact(c, e); break;
        case 6: st = mj_read_actuator(c, e); break;
        default: st = read_keyframe(c, e); break;
      }
    }
  return st;
}

//---------------------------------- entry points ---------------------------------------------

// release the context's own storage (not the robot)
static void ctx_free(mj_ctx* c) {
  for (int i = 0; i < c->ndoc; i++) {
    xml_free(c->docs[i]);
    free(c->docnames[i]);
  }
  free(c->docs);
  free(c->docnames);
  for (int k = 0; k < c->ncls; k++) {
    free(c->cls[k].el);
    free(c->cls[k].seq);
  }
  free(c->cls);
  free(c->meshdir);
  free(c->maindir);
}

// parse the main text (text NULL: the file `name`) and read the model into *out
static csim_status load_common(const char* text, size_t len, const char* name,
                               const char* basedir, const mjcf_options* opt, urdf_robot** out,
                               csim_error* err) {
  *out = NULL;
  mj_ctx c;
  memset(&c, 0, sizeof(c));
  c.err = err;
  c.opt = opt;
  c.mainfile = name;
  c.degree = 1;
  c.inertiafromgeom = 2;
  c.grouprange[1] = 5;
  memcpy(c.eulerseq, "xyz", 4);
  urdf_robot* r = calloc(1, sizeof(urdf_robot));
  c.r = r;
  char* fname = mj_dup(name);
  c.maindir = mj_dup(basedir ? basedir : ".");
  xml_doc* doc = NULL;
  csim_status st = r && fname && c.maindir ? CSIM_OK : mj_oom(&c);
  if (!st) st = text ? xml_parse(text, len, name, &doc, err) : xml_parse_file(name, &doc, err);
  if (!st && !keep_doc(&c, doc, fname)) {
    xml_free(doc);
    st = mj_oom(&c);
  } else if (!st) {
    fname = NULL;  // owned by the context now
  }
  mj_node root = {doc ? doc->root : NULL, name, NULL, 0};
  if (!st && strcmp(root.x->name, "mujoco"))
    st = mj_fail(&c, &root, NULL, "root element is <%s>, expected <mujoco>", root.x->name);
  if (!st) st = mj_check_attrs(&c, &root, "model");
  if (!st) {
    c.incstack[c.ninc++] = name;
    st = expand(&c, &root, 0);
  }
  if (!st && add_class(&c, "main", -1) != 0) st = mj_oom(&c);
  if (!st) {
    const char* model = xml_attr_get(root.x, "model");
    r->name = mj_dup(model ? model : "MuJoCo Model");
    r->file = mj_dup(name);
    if (!r->name || !r->file) st = mj_oom(&c);
  }
  if (!st) st = read_sections(&c, &root);
  if (!st) st = mj_finish(&c);
  free_nodes(&root);
  free(fname);
  ctx_free(&c);
  if (st) {
    urdf_free(r);
    return st;
  }
  *out = r;
  return CSIM_OK;
}

csim_status mjcf_load(const char* path, const mjcf_options* opt, urdf_robot** out,
                      csim_error* err) {
  *out = NULL;
  char* dir = dir_of(path);
  csim_status st = dir ? load_common(NULL, 0, path, dir, opt, out, err)
                       : err_set(err, CSIM_ERR_RUN, path, 0, 0, NULL, "out of memory");
  free(dir);
  return st;
}

csim_status mjcf_load_string(const char* text, const char* name, const char* basedir,
                             const mjcf_options* opt, urdf_robot** out, csim_error* err) {
  return load_common(text ? text : "", text ? strlen(text) : 0, name ? name : "<string>",
                     basedir, opt, out, err);
}

int mjcf_is_mjcf_path(const char* path) {
  size_t n = path ? strlen(path) : 0;
  return (n >= 4 && !strcmp(path + n - 4, ".xml")) || (n >= 5 && !strcmp(path + n - 5, ".mjcf"));
}
