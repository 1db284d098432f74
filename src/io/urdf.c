// urdf.c — URDF reader (see urdf.h): XML DOM (xml.h) -> urdf_robot, with strict numbers, limit
// merging, mesh URI resolution, structural checks and inertia diagnostics.
//
// Conventions follow the URDF specification (wiki.ros.org/urdf/XML) and urdfdom where the
// specification is silent (an <inertial> needs <mass> and <inertia>; <limit> without lower/upper
// means 0/0 in urdfdom, here has_position_limit = 0).
//
// Collision meshes: a URI whose extension is not .stl or .obj gets URDF_ISSUE_MESH_FORMAT whether or not
// the file exists (hyq's .dae files are not provided, yet the format is what stops csim);
// an .stl/.obj that is not found gets URDF_ISSUE_MESH_UNRESOLVED. package://PKG/rest (package:///
// too) is searched in: each options dir as DIR/PKG/rest then DIR/rest; the same for each
// CSIM_PACKAGE_PATH entry (when use_env); an ancestor directory of the URDF named PKG; and
// <URDF dir>/../meshes (the ../shared/data/robots layout). Found paths are lexically normalised.
#include "io/urdf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/model.h"
#include "core/spatial.h"
#include "io/mesh_io.h"
#include "io/xml.h"

const char* const urdf_geom_type_names[URDF_NGEOM_TYPES] = {
    "box", "sphere", "cylinder", "capsule", "mesh", "plane", "ellipsoid"};
const char* const urdf_joint_type_names[URDF_NJOINT_TYPES] = {
    "revolute", "continuous", "prismatic", "fixed", "floating", "planar", "ball"};

// principal moments count as non-positive below this fraction of the largest one (rounding of
// the eigen-solver on rank-deficient inertias such as go1's all-1e-6 root)
#define URDF_PD_REL 1e-12
// the triangle inequality I3 <= I1 + I2 may be broken by this fraction of I3 before it counts
#define URDF_TRIANGLE_REL 1e-9

//---------------------------------- context --------------------------------------------------

typedef struct {
  const char* file;         // name in messages
  const char* basedir;      // directory relative URIs resolve from
  const urdf_options* opt;
  csim_error* err;
  urdf_robot* r;
  int capissue;
  char where[160];          // "link 'x'" / "joint 'y'": what is being read, for messages
} ctx;

// error at element n (or at attribute a when given); key = the element name
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static csim_status fail(ctx* c, const xml_node* n, const xml_attr* a, const char* fmt, ...) {
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  int line = a ? a->line : n ? n->line : 0;
  int col = a ? a->column : n ? n->column : 0;
  if (c->where[0])
    return err_set(c->err, CSIM_ERR_INPUT, c->file, line, col, n ? n->name : NULL, "%s: %s",
                   c->where, msg);
  return err_set(c->err, CSIM_ERR_INPUT, c->file, line, col, n ? n->name : NULL, "%s", msg);
}

// out of memory while reading
static csim_status oom(ctx* c) {
  return err_set(c->err, CSIM_ERR_INPUT, c->file, 0, 0, NULL, "out of memory");
}

// duplicate a string (NULL on failure)
static char* dupstr(const char* s) {
  size_t n = strlen(s) + 1;
  char* d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

// record an issue; returns 0 when out of memory
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static int add_issue(ctx* c, urdf_issue_kind kind, int link, int line, const char* fmt, ...) {
  urdf_robot* r = c->r;
  if (r->nissue == c->capissue) {
    int nc = c->capissue ? 2 * c->capissue : 16;
    urdf_issue* ni = realloc(r->issues, (size_t)nc * sizeof(urdf_issue));
    if (!ni) return 0;
    r->issues = ni;
    c->capissue = nc;
  }
  urdf_issue* is = &r->issues[r->nissue++];
  is->kind = kind;
  is->link = link;
  is->line = line;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(is->msg, sizeof(is->msg), fmt, ap);
  va_end(ap);
  return 1;
}

//---------------------------------- numbers --------------------------------------------------

// length of a strict decimal number at s: [+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?; 0 if none
static size_t scan_number(const char* s) {
  size_t i = 0, nd = 0;
  if (s[i] == '+' || s[i] == '-') i++;
  while (isdigit((unsigned char)s[i])) i++, nd++;
  if (s[i] == '.') {
    i++;
    while (isdigit((unsigned char)s[i])) i++, nd++;
  }
  if (nd == 0) return 0;
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1, ne = 0;
    if (s[j] == '+' || s[j] == '-') j++;
    while (isdigit((unsigned char)s[j])) j++, ne++;
    if (ne == 0) return 0;  // "1e" is not a number
    i = j;
  }
  return i;
}

// is c XML white space?
static int ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// parse exactly n white-space separated numbers from attribute a of element e
static csim_status parse_numbers(ctx* c, const xml_node* e, const xml_attr* a, int n, double* out) {
  const char* s = a->value;
  int k = 0;
  while (1) {
    while (ws(*s)) s++;
    if (!*s) break;
    size_t len = scan_number(s);
    size_t tok = 0;
    while (s[tok] && !ws(s[tok])) tok++;
    if (len == 0 || len != tok) {
      return fail(c, e, a, "attribute '%s' of <%s>: '%.*s' is not a number (expected%s %d "
                  "decimal number%s such as 1, -0.5, .5, 1. or 2e-3)", a->name, e->name,
                  (int)(tok > 60 ? 60 : tok), s, n > 1 ? "" : "", n, n > 1 ? "s" : "");
    }
    if (k == n)
      return fail(c, e, a, "attribute '%s' of <%s>: expected %d number%s, found more ('%s')",
                  a->name, e->name, n, n > 1 ? "s" : "", a->value);
    char buf[128];
    double v;
    if (len < sizeof(buf)) {
      memcpy(buf, s, len);
      buf[len] = '\0';
      v = strtod(buf, NULL);
    } else {
      char* tmp = malloc(len + 1);
      if (!tmp) return oom(c);
      memcpy(tmp, s, len);
      tmp[len] = '\0';
      v = strtod(tmp, NULL);
      free(tmp);
    }
    if (!isfinite(v))
      return fail(c, e, a, "attribute '%s' of <%s>: '%.*s' is out of range", a->name, e->name,
                  (int)(len > 60 ? 60 : len), s);
    out[k++] = v;
    s += len;
  }
  if (k != n)
    return fail(c, e, a, "attribute '%s' of <%s>: expected %d number%s, found %d ('%s')", a->name,
                e->name, n, n > 1 ? "s" : "", k, a->value);
  return CSIM_OK;
}

// optional numeric attribute(s): out keeps its defaults when the attribute is absent;
//   *given (may be NULL) says whether it was present
static csim_status get_num(ctx* c, const xml_node* e, const char* name, int n, double* out,
                           int* given) {
  const xml_attr* a = xml_attr_find(e, name);
  if (given) *given = a != NULL;
  if (!a) return CSIM_OK;
  return parse_numbers(c, e, a, n, out);
}

// required numeric attribute(s)
static csim_status need_num(ctx* c, const xml_node* e, const char* name, int n, double* out) {
  const xml_attr* a = xml_attr_find(e, name);
  if (!a)
    return fail(c, e, NULL, "<%s> has no '%s' attribute (expected %d number%s)", e->name, name,
                n, n > 1 ? "s" : "");
  return parse_numbers(c, e, a, n, out);
}

// required non-negative numeric attribute
static csim_status need_nonneg(ctx* c, const xml_node* e, const char* name, int n, double* out) {
  csim_status st = need_num(c, e, name, n, out);
  if (st) return st;
  for (int k = 0; k < n; k++)
    if (out[k] < 0)
      return fail(c, e, xml_attr_find(e, name), "attribute '%s' of <%s> must be >= 0, found '%s'",
                  name, e->name, xml_attr_get(e, name));
  return CSIM_OK;
}

// the single child named `name` of e (NULL when none); several are an error
static csim_status single_child(ctx* c, const xml_node* e, const char* name, const xml_node** out) {
  *out = xml_child(e, name);
  const xml_node* second = *out ? xml_next(*out, name) : NULL;
  if (second)
    return fail(c, second, NULL, "<%s> has several <%s> elements (first at line %d)", e->name,
                name, (*out)->line);
  return CSIM_OK;
}

// <origin xyz rpy> child of e (both default to 0)
static csim_status read_origin(ctx* c, const xml_node* e, double xyz[3], double rpy[3]) {
  const xml_node* o;
  csim_status st = single_child(c, e, "origin", &o);
  memset(xyz, 0, 3 * sizeof(double));
  memset(rpy, 0, 3 * sizeof(double));
  if (st || !o) return st;
  st = get_num(c, o, "xyz", 3, xyz, NULL);
  if (!st) st = get_num(c, o, "rpy", 3, rpy, NULL);
  return st;
}

//---------------------------------- mesh URIs ------------------------------------------------

// is path an existing regular file?
static int file_exists(const char* path) {
  struct stat sb;
  return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

// join a/b (or a/b/c when c is given) into a new string
static char* join(const char* a, const char* b, const char* c) {
  size_t n = strlen(a) + strlen(b) + (c ? strlen(c) : 0) + 3;
  char* s = malloc(n);
  if (!s) return NULL;
  if (c) snprintf(s, n, "%s/%s/%s", a, b, c);
  else snprintf(s, n, "%s/%s", a, b);
  return s;
}

// lexical normalisation: drop "." and empty segments, fold "seg/.." (as Python's normpath);
// returns a new string (caller frees), NULL when out of memory
static char* normalize_path(const char* p) {
  size_t len = strlen(p);
  char* out = malloc(len + 2);
  if (!out) return NULL;
  int abs = p[0] == '/';
  size_t o = 0;       // output length
  size_t nkeep = 0;   // segments in the output that a ".." may fold
  if (abs) out[o++] = '/';
  const char* seg = p;
  while (*seg) {
    const char* end = strchr(seg, '/');
    size_t n = end ? (size_t)(end - seg) : strlen(seg);
    if (n == 0 || (n == 1 && seg[0] == '.')) {
      // empty or "." segment: nothing
    } else if (n == 2 && seg[0] == '.' && seg[1] == '.') {
      if (nkeep > 0) {
        // drop the last segment and its separator
        while (o > (size_t)abs && out[o - 1] != '/') o--;
        if (o > (size_t)abs) o--;
        nkeep--;
      } else if (!abs) {
        if (o > 0) out[o++] = '/';
        out[o++] = '.';
        out[o++] = '.';
      }
    } else {
      if (o > (size_t)abs) out[o++] = '/';
      memcpy(out + o, seg, n);
      o += n;
      nkeep++;
    }
    seg = end ? end + 1 : seg + n;
  }
  if (o == 0) out[o++] = '.';
  out[o] = '\0';
  return out;
}

// try candidate path a/b[/c]: returns it when it exists (caller frees), else NULL; *ntried counts;
// the lexically normalised form is preferred when it names an existing file
static char* try_path(const char* a, const char* b, const char* c, int* ntried) {
  if (!a || !a[0]) return NULL;
  char* p = join(a, b, c);
  (*ntried)++;
  if (!p) return NULL;
  char* q = normalize_path(p);
  if (q) {
    if (file_exists(q)) {
      free(p);
      return q;
    }
    free(q);
  }
  if (file_exists(p)) return p;
  free(p);
  return NULL;
}

// package root candidates for package://pkg/rest, in order: options, CSIM_PACKAGE_PATH, then the
// built-in fallbacks (an ancestor directory named pkg; <urdf dir>/../meshes of the shared data
// layout); returns the first existing file (caller frees) or NULL
static char* resolve_package(ctx* c, const char* pkg, const char* rest, int* ntried) {
  char* p = NULL;
  // explicit package paths: dir/pkg/rest, then dir/rest
  for (const char* const* d = c->opt ? c->opt->package_paths : NULL; d && *d && !p; d++) {
    p = try_path(*d, pkg, rest, ntried);
    if (!p) p = try_path(*d, rest, NULL, ntried);
  }
  // the environment variable, colon separated
  const char* env = (!c->opt || c->opt->use_env) ? getenv("CSIM_PACKAGE_PATH") : NULL;
  while (env && *env && !p) {
    const char* colon = strchr(env, ':');
    size_t n = colon ? (size_t)(colon - env) : strlen(env);
    if (n > 0) {
      char* dir = malloc(n + 1);
      if (!dir) return NULL;
      memcpy(dir, env, n);
      dir[n] = '\0';
      p = try_path(dir, pkg, rest, ntried);
      if (!p) p = try_path(dir, rest, NULL, ntried);
      free(dir);
    }
    env = colon ? colon + 1 : NULL;
  }
  if (p) return p;
  // an ancestor of the URDF's directory named like the package (a source checkout)
  const char* base = c->basedir ? c->basedir : ".";
  char* anc = dupstr(base);
  for (int up = 0; anc && up < 8 && !p; up++) {
    size_t n = strlen(anc);
    while (n > 1 && anc[n - 1] == '/') anc[--n] = '\0';
    const char* slash = strrchr(anc, '/');
    const char* last = slash ? slash + 1 : anc;
    if (strcmp(last, pkg) == 0) p = try_path(anc, rest, NULL, ntried);
    if (!slash || slash == anc) break;
    anc[slash - anc] = '\0';
  }
  free(anc);
  if (p) return p;
  // the shared data layout: X/robots/<robot>/file.urdf with the package root at X/robots/meshes
  char* meshes = join(base, "..", "meshes");
  if (meshes) {
    p = try_path(meshes, rest, NULL, ntried);
    if (!p) p = try_path(meshes, pkg, rest, ntried);
    free(meshes);
  }
  return p;
}

// resolve a mesh URI to an existing file (caller frees), NULL when not found
static char* resolve_uri(ctx* c, const char* uri, int* ntried) {
  const char* base = c->basedir ? c->basedir : ".";
  if (strncmp(uri, "package://", 10) == 0) {
    const char* s = uri + 10;
    while (*s == '/') s++;  // package:///pkg/... is package://pkg/...
    const char* slash = strchr(s, '/');
    if (!slash || slash == s) return NULL;
    char* pkg = malloc((size_t)(slash - s) + 1);
    if (!pkg) return NULL;
    memcpy(pkg, s, (size_t)(slash - s));
    pkg[slash - s] = '\0';
    const char* rest = slash + 1;
    while (*rest == '/') rest++;
    char* p = resolve_package(c, pkg, rest, ntried);
    free(pkg);
    return p;
  }
  if (strncmp(uri, "file://", 7) == 0) {
    const char* s = uri + 7;
    if (s[0] != '/') return try_path(base, s, NULL, ntried);
    (*ntried)++;
    return file_exists(s) ? dupstr(s) : NULL;
  }
  if (strstr(uri, "://")) return NULL;  // another scheme (http://...): not supported
  if (uri[0] == '/') {
    (*ntried)++;
    return file_exists(uri) ? dupstr(uri) : NULL;
  }
  return try_path(base, uri, NULL, ntried);
}


//---------------------------------- links ----------------------------------------------------

// <inertial>: origin, mass (>= 0), inertia (6 numbers)
static csim_status read_inertial(ctx* c, const xml_node* in, urdf_link* L) {
  L->has_inertial = 1;
  csim_status st = read_origin(c, in, L->com_xyz, L->com_rpy);
  if (st) return st;
  const xml_node *m, *I;
  if ((st = single_child(c, in, "mass", &m))) return st;
  if ((st = single_child(c, in, "inertia", &I))) return st;
  if (!m) return fail(c, in, NULL, "<inertial> has no <mass> element");
  if (!I) return fail(c, in, NULL, "<inertial> has no <inertia> element");
  if ((st = need_num(c, m, "value", 1, &L->mass))) return st;
  if (L->mass < 0)
    return fail(c, m, xml_attr_find(m, "value"), "negative mass %s kg (expected >= 0)",
                xml_attr_get(m, "value"));
  static const char* const comp[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
  for (int k = 0; k < 6; k++)
    if ((st = need_num(c, I, comp[k], 1, &L->inertia[k]))) return st;
  return CSIM_OK;
}

// record a collision mesh's format or resolution issue, resolving its path
static csim_status check_mesh(ctx* c, int li, urdf_geom* g) {
  int ntried = 0;
  g->path = resolve_uri(c, g->uri, &ntried);
  const char* lname = c->r->links[li].name;
  if (!mesh_format_supported(g->uri)) {
    const char* dot = strrchr(g->uri, '.');
    const char* sl = strrchr(g->uri, '/');
    const char* ext = dot && (!sl || dot > sl) ? dot : "(none)";
    if (!add_issue(c, URDF_ISSUE_MESH_FORMAT, li, g->line,
                   "link '%s': collision mesh '%s' is neither STL nor OBJ (extension %s%s): csim "
                   "reads STL and OBJ only and leaves this geometry out", lname, g->uri, ext,
                   g->path ? "" : "; file not found either"))
      return oom(c);
  } else if (!g->path) {
    if (!add_issue(c, URDF_ISSUE_MESH_UNRESOLVED, li, g->line,
                   "link '%s': collision mesh '%s' not found (%d places tried; set "
                   "CSIM_PACKAGE_PATH): csim leaves this geometry out", lname, g->uri, ntried))
      return oom(c);
  }
  return CSIM_OK;
}

// one <collision>: origin and geometry
static csim_status read_collision(ctx* c, int li, const xml_node* col, urdf_geom* g) {
  g->line = col->line;
  g->column = col->column;
  g->scale[0] = g->scale[1] = g->scale[2] = 1;
  csim_status st = read_origin(c, col, g->xyz, g->rpy);
  if (st) return st;
  const xml_node* geo;
  if ((st = single_child(c, col, "geometry", &geo))) return st;
  if (!geo) return fail(c, col, NULL, "<collision> has no <geometry> element");
  const xml_node* s = xml_child(geo, NULL);
  if (!s)
    return fail(c, geo, NULL, "<geometry> is empty (expected <box>, <sphere>, <cylinder>, "
                "<capsule> or <mesh>)");
  if (xml_next(s, NULL))
    return fail(c, xml_next(s, NULL), NULL, "<geometry> holds several shapes (expected one)");
  if (strcmp(s->name, "box") == 0) {
    g->type = URDF_GEOM_BOX;
    return need_nonneg(c, s, "size", 3, g->size);
  }
  if (strcmp(s->name, "sphere") == 0) {
    g->type = URDF_GEOM_SPHERE;
    return need_nonneg(c, s, "radius", 1, &g->size[0]);
  }
  if (strcmp(s->name, "cylinder") == 0 || strcmp(s->name, "capsule") == 0) {
    g->type = s->name[1] == 'y' ? URDF_GEOM_CYLINDER : URDF_GEOM_CAPSULE;
    if ((st = need_nonneg(c, s, "radius", 1, &g->size[0]))) return st;
    return need_nonneg(c, s, "length", 1, &g->size[1]);
  }
  if (strcmp(s->name, "mesh") == 0) {
    g->type = URDF_GEOM_MESH;
    const char* fn = xml_attr_get(s, "filename");
    if (!fn || !fn[0]) return fail(c, s, NULL, "<mesh> has no 'filename' attribute");
    if ((st = get_num(c, s, "scale", 3, g->scale, NULL))) return st;
    g->uri = dupstr(fn);
    if (!g->uri) return oom(c);
    return check_mesh(c, li, g);
  }
  return fail(c, s, NULL, "unsupported geometry <%s> (expected <box>, <sphere>, <cylinder>, "
              "<capsule> or <mesh>)", s->name);
}

// one top-level <link>
static csim_status read_link(ctx* c, const xml_node* e, int li) {
  urdf_link* L = &c->r->links[li];
  L->line = e->line;
  L->column = e->column;
  const char* name = xml_attr_get(e, "name");
  if (!name || !name[0]) return fail(c, e, NULL, "<link> has no 'name' attribute");
  L->name = dupstr(name);
  if (!L->name) return oom(c);
  snprintf(c->where, sizeof(c->where), "link '%s'", name);
  const xml_node* in;
  csim_status st = single_child(c, e, "inertial", &in);
  if (!st && in) st = read_inertial(c, in, L);
  if (st) return st;
  int ng = xml_count(e, "collision");
  if (ng > 0) {
    L->geoms = calloc((size_t)ng, sizeof(urdf_geom));
    if (!L->geoms) return oom(c);
  }
  for (const xml_node* col = xml_child(e, "collision"); col; col = xml_next(col, "collision")) {
    if ((st = read_collision(c, li, col, &L->geoms[L->ngeom++]))) return st;
  }
  c->where[0] = '\0';
  return CSIM_OK;
}

//---------------------------------- joints ---------------------------------------------------

// name of the link in <parent link=..>/<child link=..>; error when missing
static csim_status link_ref(ctx* c, const xml_node* e, const char* tag, const char** out) {
  const xml_node* n;
  csim_status st = single_child(c, e, tag, &n);
  if (st) return st;
  if (!n) return fail(c, e, NULL, "<joint> has no <%s> element", tag);
  *out = xml_attr_get(n, "link");
  if (!*out || !(*out)[0]) return fail(c, n, NULL, "<%s> has no 'link' attribute", tag);
  return CSIM_OK;
}

// several <limit> elements merge attribute by attribute; the first occurrence of each wins
static csim_status read_limits(ctx* c, const xml_node* e, urdf_joint* J) {
  static const char* const names[4] = {"lower", "upper", "effort", "velocity"};
  double* dst[4] = {&J->lower, &J->upper, &J->effort, &J->velocity};
  int set[4] = {0, 0, 0, 0};
  for (const xml_node* l = xml_child(e, "limit"); l; l = xml_next(l, "limit")) {
    J->has_limit = 1;
    for (int k = 0; k < 4; k++) {
      if (set[k] || !xml_attr_find(l, names[k])) continue;
      csim_status st = need_num(c, l, names[k], 1, dst[k]);
      if (st) return st;
      set[k] = 1;
    }
  }
  int movable = J->type == URDF_JOINT_REVOLUTE || J->type == URDF_JOINT_PRISMATIC;
  J->has_position_limit = movable && (set[0] || set[1]);
  if (J->has_position_limit && J->lower > J->upper) {
    const xml_node* l = xml_child(e, "limit");
    return fail(c, l, NULL, "lower limit %g > upper limit %g", J->lower, J->upper);
  }
  if (J->effort < 0 || J->velocity < 0)
    return fail(c, xml_child(e, "limit"), NULL, "negative effort or velocity limit (%g, %g)",
                J->effort, J->velocity);
  return CSIM_OK;
}

// <dynamics damping friction>: the joint's viscous damping (N m s/rad or N s/m) and dry friction
// (N m or N), MuJoCo's damping and frictionloss; whether a run applies them is the scenario's
// robots.N.joint_dynamics (other simulators' extra attributes, e.g. Franka's K D mu_viscous, are
// no URDF and not read)
static csim_status read_dynamics(ctx* c, const xml_node* e, urdf_joint* J) {
  const xml_node* d;
  csim_status st = single_child(c, e, "dynamics", &d);
  if (st || !d) return st;
  static const char* const names[2] = {"damping", "friction"};
  double* dst[2] = {&J->damping, &J->frictionloss};
  for (int k = 0; k < 2; k++) {
    if ((st = get_num(c, d, names[k], 1, dst[k], NULL))) return st;
    if (!(*dst[k] >= 0) || !isfinite(*dst[k]))
      return fail(c, d, xml_attr_find(d, names[k]), "<dynamics> %s %g (expected finite and >= 0)",
                  names[k], *dst[k]);
  }
  return CSIM_OK;
}

// one top-level <joint>; parent/child names are returned for the second pass
static csim_status read_joint(ctx* c, const xml_node* e, int ji, const char** pname,
                              const char** cname, const char** mimic_name,
                              const xml_node** mimic_el) {
  urdf_joint* J = &c->r->joints[ji];
  J->line = e->line;
  J->column = e->column;
  J->parent = J->child = J->mimic = -1;
  const char* name = xml_attr_get(e, "name");
  if (!name || !name[0]) return fail(c, e, NULL, "<joint> has no 'name' attribute");
  J->name = dupstr(name);
  if (!J->name) return oom(c);
  snprintf(c->where, sizeof(c->where), "joint '%s'", name);
  // type
  const xml_attr* ta = xml_attr_find(e, "type");
  if (!ta) return fail(c, e, NULL, "<joint> has no 'type' attribute");
  int type = -1;
  for (int k = 0; k < URDF_NJOINT_TYPES; k++)
    if (strcmp(ta->value, urdf_joint_type_names[k]) == 0) type = k;
  if (type < 0)
    return fail(c, e, ta, "unknown joint type '%s' (expected revolute, continuous, prismatic, "
                "fixed, floating or planar)", ta->value);
  J->type = (urdf_joint_type)type;
  csim_status st;
  if ((st = link_ref(c, e, "parent", pname))) return st;
  if ((st = link_ref(c, e, "child", cname))) return st;
  if ((st = read_origin(c, e, J->xyz, J->rpy))) return st;
  // axis: default x; normalised; zero only where it does not matter (fixed, floating)
  const xml_node* ax;
  if ((st = single_child(c, e, "axis", &ax))) return st;
  J->axis[0] = 1;
  J->axis[1] = J->axis[2] = 0;
  if (ax && (st = need_num(c, ax, "xyz", 3, J->axis))) return st;
  double n = sp_normalize3(J->axis);
  if (!(n > 1e-12)) {
    J->axis[0] = J->axis[1] = J->axis[2] = 0;
    if (J->type != URDF_JOINT_FIXED && J->type != URDF_JOINT_FLOATING)
      return fail(c, ax, xml_attr_find(ax, "xyz"), "zero axis '%s' on a %s joint (expected a "
                  "non-zero direction)", xml_attr_get(ax, "xyz"), ta->value);
  }
  // a fixed joint has no axis (urdf.h: 0 0 0), whatever the file says
  if (J->type == URDF_JOINT_FIXED) J->axis[0] = J->axis[1] = J->axis[2] = 0;
  if ((st = read_limits(c, e, J))) return st;
  if ((st = read_dynamics(c, e, J))) return st;
  // mimic: joint name resolved in the second pass
  const xml_node* mi;
  if ((st = single_child(c, e, "mimic", &mi))) return st;
  *mimic_name = NULL;
  *mimic_el = mi;
  if (mi) {
    *mimic_name = xml_attr_get(mi, "joint");
    if (!*mimic_name || !(*mimic_name)[0])
      return fail(c, mi, NULL, "<mimic> has no 'joint' attribute");
    J->mimic_multiplier = 1;
    J->mimic_offset = 0;
    if ((st = get_num(c, mi, "multiplier", 1, &J->mimic_multiplier, NULL))) return st;
    if ((st = get_num(c, mi, "offset", 1, &J->mimic_offset, NULL))) return st;
  }
  c->where[0] = '\0';
  return CSIM_OK;
}

//---------------------------------- name lookup ----------------------------------------------

// an index sorted by name, for O(log n) lookups and duplicate detection
typedef struct {
  const char* name;
  int idx;
} name_ix;

// order by name, then by index (so the first definition comes first among equals)
static int cmp_name_ix(const void* a, const void* b) {
  const name_ix* x = a;
  const name_ix* y = b;
  int s = strcmp(x->name, y->name);
  return s ? s : (x->idx > y->idx) - (x->idx < y->idx);
}

// find name in the sorted index (-1 when absent)
static int ix_find(const name_ix* ix, int n, const char* name) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    int s = strcmp(ix[mid].name, name);
    if (s == 0) {
      while (mid > 0 && strcmp(ix[mid - 1].name, name) == 0) mid--;
      return ix[mid].idx;
    }
    if (s < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

//---------------------------------- checks ---------------------------------------------------

// inertia diagnostics of link li (urdf_issue entries; fixes are model_create's)
static csim_status check_inertia(ctx* c, int li) {
  const urdf_link* L = &c->r->links[li];
  if (!L->has_inertial || !(L->mass > 0)) return CSIM_OK;
  const double* I = L->inertia;
  if (I[0] == 0 && I[1] == 0 && I[2] == 0 && I[3] == 0 && I[4] == 0 && I[5] == 0) {
    if (!add_issue(c, URDF_ISSUE_POINT_MASS, li, L->line,
                   "link '%s': mass %g kg with an all-zero inertia: csim uses a solid sphere of "
                   "radius %g m about the com", L->name, L->mass, MODEL_POINT_RADIUS))
      return oom(c);
    return CSIM_OK;
  }
  // principal moments (ascending)
  double A[9] = {I[0], I[1], I[2], I[1], I[3], I[4], I[2], I[4], I[5]}, w[3], V[9];
  sp_eigsym3(w, V, A);
  if (w[2] <= 0 || w[0] <= URDF_PD_REL * w[2]) {
    if (!add_issue(c, URDF_ISSUE_INERTIA_NOT_PD, li, L->line,
                   "link '%s': inertia not positive definite, principal moments %.3g %.3g %.3g "
                   "(mass %g kg): csim raises non-positive moments to a small positive value",
                   L->name, w[0], w[1], w[2], L->mass))
      return oom(c);
    return CSIM_OK;
  }
  double excess = w[2] - (w[0] + w[1]);
  if (excess > URDF_TRIANGLE_REL * w[2]) {
    if (!add_issue(c, URDF_ISSUE_INERTIA_TRIANGLE, li, L->line,
                   "link '%s': principal moments %.4g %.4g %.4g break I3 <= I1 + I2 by %.1f%%: "
                   "csim raises the two smaller moments equally until I3 = I1 + I2",
                   L->name, w[0], w[1], w[2], 100 * excess / w[2]))
      return oom(c);
  }
  return CSIM_OK;
}

// duplicate link or joint names (lix, jix: the sorted name indexes)
static csim_status check_duplicates(ctx* c, const name_ix* lix, const name_ix* jix) {
  urdf_robot* r = c->r;
  for (int i = 1; i < r->nlink; i++)
    if (strcmp(lix[i].name, lix[i - 1].name) == 0) {
      const urdf_link* a = &r->links[lix[i - 1].idx];
      const urdf_link* b = &r->links[lix[i].idx];
      return err_set(c->err, CSIM_ERR_INPUT, c->file, b->line, b->column, "link",
                     "duplicate link name '%s' (first defined at line %d)", b->name, a->line);
    }
  for (int j = 1; j < r->njoint; j++)
    if (strcmp(jix[j].name, jix[j - 1].name) == 0) {
      const urdf_joint* a = &r->joints[jix[j - 1].idx];
      const urdf_joint* b = &r->joints[jix[j].idx];
      return err_set(c->err, CSIM_ERR_INPUT, c->file, b->line, b->column, "joint",
                     "duplicate joint name '%s' (first defined at line %d)", b->name, a->line);
    }
  return CSIM_OK;
}

// parent and child links of every joint; one parent joint per link
static csim_status connect_joints(ctx* c, const name_ix* lix, const char** pnames,
                                  const char** cnames, const xml_node** jels) {
  urdf_robot* r = c->r;
  int nl = r->nlink;
  for (int i = 0; i < nl; i++) r->link_parent_joint[i] = -1;
  for (int j = 0; j < r->njoint; j++) {
    urdf_joint* J = &r->joints[j];
    J->parent = ix_find(lix, nl, pnames[j]);
    J->child = ix_find(lix, nl, cnames[j]);
    const xml_node* pe = xml_child(jels[j], "parent");
    const xml_node* ce = xml_child(jels[j], "child");
    if (J->parent < 0)
      return err_set(c->err, CSIM_ERR_INPUT, c->file, pe->line, pe->column, "parent",
                     "joint '%s': parent link '%s' is not defined", J->name, pnames[j]);
    if (J->child < 0)
      return err_set(c->err, CSIM_ERR_INPUT, c->file, ce->line, ce->column, "child",
                     "joint '%s': child link '%s' is not defined", J->name, cnames[j]);
    if (J->parent == J->child)
      return err_set(c->err, CSIM_ERR_INPUT, c->file, J->line, J->column, "joint",
                     "joint '%s' connects link '%s' to itself (a cycle)", J->name, pnames[j]);
    int prev = r->link_parent_joint[J->child];
    if (prev >= 0)
      return err_set(c->err, CSIM_ERR_INPUT, c->file, J->line, J->column, "joint",
                     "link '%s' has two parent joints: '%s' (line %d) and '%s' (a URDF is a tree)",
                     cnames[j], r->joints[prev].name, r->joints[prev].line, J->name);
    r->link_parent_joint[J->child] = j;
  }
  return CSIM_OK;
}

// the joint each mimic joint follows
static csim_status resolve_mimics(ctx* c, const name_ix* jix, const char** mnames,
                                  const xml_node** mels) {
  urdf_robot* r = c->r;
  for (int j = 0; j < r->njoint; j++) {
    if (!mnames[j]) continue;
    urdf_joint* J = &r->joints[j];
    J->mimic = ix_find(jix, r->njoint, mnames[j]);
    const xml_attr* a = xml_attr_find(mels[j], "joint");
    if (J->mimic < 0)
      return err_set(c->err, CSIM_ERR_INPUT, c->file, a->line, a->column, "mimic",
                     "joint '%s' mimics joint '%s', which is not defined", J->name, mnames[j]);
    if (J->mimic == j)
      return err_set(c->err, CSIM_ERR_INPUT, c->file, a->line, a->column, "mimic",
                     "joint '%s' mimics itself", J->name);
  }
  return CSIM_OK;
}

// root: the one link that is no joint's child (-1 when every link is one)
static csim_status find_root(ctx* c) {
  urdf_robot* r = c->r;
  r->root = -1;
  for (int i = 0; i < r->nlink; i++) {
    if (r->link_parent_joint[i] >= 0) continue;
    if (r->root >= 0) {
      const urdf_link* a = &r->links[r->root];
      const urdf_link* b = &r->links[i];
      return err_set(c->err, CSIM_ERR_INPUT, c->file, b->line, b->column, "link",
                     "two root links (links that are no joint's child): '%s' (line %d) and '%s' "
                     "(a URDF has one root; is a joint missing?)", a->name, a->line, b->name);
    }
    r->root = i;
  }
  return CSIM_OK;
}

// breadth-first order of the links from the root into order (head: nlink, nextj: njoint
// scratch); links not reached lie on a cycle, reported through the joint that closes it
static csim_status tree_order(ctx* c, int* order, int* head, int* nextj) {
  urdf_robot* r = c->r;
  int nl = r->nlink, nj = r->njoint;
  for (int i = 0; i < nl; i++) head[i] = -1;
  for (int j = nj - 1; j >= 0; j--) {
    nextj[j] = head[r->joints[j].parent];
    head[r->joints[j].parent] = j;
  }
  int nord = 0;
  if (r->root >= 0) order[nord++] = r->root;
  for (int k = 0; k < nord; k++)
    for (int j = head[order[k]]; j >= 0; j = nextj[j]) order[nord++] = r->joints[j].child;
  if (nord == nl) return CSIM_OK;
  // walk up parents from an unreached link until a link repeats: that joint closes a cycle
  for (int i = 0; i < nl; i++) head[i] = 0;  // reuse as a 'reached' flag
  for (int k = 0; k < nord; k++) head[order[k]] = 1;
  int i = 0;
  while (i < nl && head[i]) i++;
  for (int step = 0; step < nl; step++) i = r->joints[r->link_parent_joint[i]].parent;
  int j = r->link_parent_joint[i];
  return err_set(c->err, CSIM_ERR_INPUT, c->file, r->joints[j].line, r->joints[j].column, "joint",
                 "kinematic cycle through joint '%s' (parent '%s', child '%s')%s",
                 r->joints[j].name, r->links[r->joints[j].parent].name,
                 r->links[r->joints[j].child].name,
                 r->root < 0 ? ": every link is some joint's child, so there is no root" : "");
}

// subtree masses sub (children after parents in `order`), then an issue per massless moving
// subtree
static csim_status massless_subtrees(ctx* c, const int* order, double* sub) {
  urdf_robot* r = c->r;
  int nl = r->nlink;
  for (int i = 0; i < nl; i++) sub[i] = r->links[i].mass;
  for (int k = nl - 1; k > 0; k--) {
    int i = order[k];
    sub[r->joints[r->link_parent_joint[i]].parent] += sub[i];
  }
  for (int j = 0; j < r->njoint; j++) {
    const urdf_joint* J = &r->joints[j];
    if (J->type == URDF_JOINT_FIXED || sub[J->child] > 0) continue;
    if (!add_issue(c, URDF_ISSUE_MASSLESS_MOVING, J->child, J->line,
                   "joint '%s' (%s) moves link '%s' whose subtree has no mass: its dof would "
                   "make the mass matrix singular; csim refuses such a model",
                   J->name, urdf_joint_type_names[J->type], r->links[J->child].name))
      return oom(c);
  }
  return CSIM_OK;
}

// second pass: names, tree structure (one root, no cycle, one parent per link), mimic joints,
// inertia and subtree-mass issues
static csim_status build_tree(ctx* c, const char** pnames, const char** cnames,
                              const char** mnames, const xml_node** jels,
                              const xml_node** mels) {
  urdf_robot* r = c->r;
  int nl = r->nlink, nj = r->njoint;
  csim_status st = CSIM_OK;
  name_ix* lix = malloc((size_t)(nl > 0 ? nl : 1) * sizeof(name_ix));
  name_ix* jix = malloc((size_t)(nj > 0 ? nj : 1) * sizeof(name_ix));
  int* order = malloc((size_t)(nl > 0 ? nl : 1) * sizeof(int));
  int* head = malloc((size_t)(nl > 0 ? nl : 1) * sizeof(int));    // first child joint of a link
  int* nextj = malloc((size_t)(nj > 0 ? nj : 1) * sizeof(int));   // next sibling joint
  double* sub = malloc((size_t)(nl > 0 ? nl : 1) * sizeof(double));
  r->link_parent_joint = malloc((size_t)(nl > 0 ? nl : 1) * sizeof(int));
  if (!lix || !jix || !order || !head || !nextj || !sub || !r->link_parent_joint) st = oom(c);
  if (!st) {
    for (int i = 0; i < nl; i++) lix[i] = (name_ix){r->links[i].name, i};
    for (int j = 0; j < nj; j++) jix[j] = (name_ix){r->joints[j].name, j};
    qsort(lix, (size_t)nl, sizeof(name_ix), cmp_name_ix);
    qsort(jix, (size_t)nj, sizeof(name_ix), cmp_name_ix);
    st = check_duplicates(c, lix, jix);
  }
  if (!st) st = connect_joints(c, lix, pnames, cnames, jels);
  if (!st) st = resolve_mimics(c, jix, mnames, mels);
  if (!st) st = find_root(c);
  if (!st) st = tree_order(c, order, head, nextj);
  // inertia diagnostics in link order
  for (int i = 0; i < nl && !st; i++) st = check_inertia(c, i);
  if (!st) st = massless_subtrees(c, order, sub);
  free(lix);
  free(jix);
  free(order);
  free(head);
  free(nextj);
  free(sub);
  return st;
}

//---------------------------------- driver ---------------------------------------------------

// build a robot from a parsed document
static csim_status read_robot(ctx* c, const xml_doc* doc) {
  const xml_node* root = doc->root;
  if (strcmp(root->name, "robot") != 0)
    return fail(c, root, NULL, "root element is <%s>, expected <robot>", root->name);
  urdf_robot* r = c->r;
  const char* name = xml_attr_get(root, "name");
  r->name = dupstr(name ? name : "");
  if (!r->name) return oom(c);
  int nl = xml_count(root, "link"), nj = xml_count(root, "joint");
  if (nl == 0) return fail(c, root, NULL, "<robot> has no <link> element");
  r->links = calloc((size_t)nl, sizeof(urdf_link));
  r->joints = calloc((size_t)(nj > 0 ? nj : 1), sizeof(urdf_joint));
  const char** pn = calloc((size_t)(nj > 0 ? nj : 1), sizeof(char*));
  const char** cn = calloc((size_t)(nj > 0 ? nj : 1), sizeof(char*));
  const char** mn = calloc((size_t)(nj > 0 ? nj : 1), sizeof(char*));
  const xml_node** je = calloc((size_t)(nj > 0 ? nj : 1), sizeof(xml_node*));
  const xml_node** me = calloc((size_t)(nj > 0 ? nj : 1), sizeof(xml_node*));
  csim_status st = CSIM_OK;
  if (!r->links || !r->joints || !pn || !cn || !mn || !je || !me) st = oom(c);
  // first pass: every top-level link and joint in document order
  for (const xml_node* e = root->children; e && !st; e = e->next) {
    if (strcmp(e->name, "link") == 0) {
      st = read_link(c, e, r->nlink++);
    } else if (strcmp(e->name, "joint") == 0) {
      int j = r->njoint++;
      je[j] = e;
      st = read_joint(c, e, j, &pn[j], &cn[j], &mn[j], &me[j]);
    }
  }
  c->where[0] = '\0';
  if (!st) st = build_tree(c, pn, cn, mn, je, me);
  free(pn);
  free(cn);
  free(mn);
  free(je);
  free(me);
  return st;
}

// no package paths; read CSIM_PACKAGE_PATH
urdf_options urdf_default_options(void) {
  urdf_options o = {.package_paths = NULL, .use_env = 1};
  return o;
}

// parse text and build the robot (shared by urdf_load and urdf_load_string)
static csim_status load_common(const char* text, size_t len, const char* name,
                               const char* basedir, const urdf_options* opt, urdf_robot** out,
                               csim_error* err) {
  *out = NULL;
  urdf_options def = urdf_default_options();
  xml_doc* doc = NULL;
  csim_status st = xml_parse(text, len, name, &doc, err);
  if (st) return st;
  urdf_robot* r = calloc(1, sizeof(urdf_robot));
  if (!r) {
    xml_free(doc);
    return err_set(err, CSIM_ERR_INPUT, name, 0, 0, NULL, "out of memory");
  }
  r->root = -1;
  r->file = dupstr(name ? name : "");
  ctx c = {.file = name, .basedir = basedir, .opt = opt ? opt : &def, .err = err, .r = r};
  st = r->file ? read_robot(&c, doc) : oom(&c);
  xml_free(doc);
  if (st) {
    urdf_free(r);
    return st;
  }
  *out = r;
  return CSIM_OK;
}

// read a file, then parse it with relative URIs resolved from its directory
csim_status urdf_load(const char* path, const urdf_options* opt, urdf_robot** out,
                      csim_error* err) {
  *out = NULL;
  // whole file
  // only regular files: a FIFO would block, /dev/zero never end
  if (err_check_input_file(path, "URDF", err) != CSIM_OK) return CSIM_ERR_INPUT;
  FILE* f = fopen(path, "rb");
  if (!f) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot open URDF: %s",
                         strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char* buf = malloc(cap);
  while (buf) {
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap) break;
    char* nb = realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      buf = NULL;
    } else {
      buf = nb;
      cap *= 2;
    }
  }
  int bad = buf && ferror(f);
  fclose(f);
  if (!buf) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "out of memory");
  if (bad) {
    free(buf);
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "read error");
  }
  // directory of the file, for relative URIs
  char* dir = dupstr(path);
  if (!dir) {
    free(buf);
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "out of memory");
  }
  char* slash = strrchr(dir, '/');
  if (!slash) strcpy(dir, ".");
  else if (slash == dir) dir[1] = '\0';
  else *slash = '\0';
  csim_status st = load_common(buf, len, path, dir, opt, out, err);
  free(buf);
  free(dir);
  return st;
}

// parse a string (name for messages, basedir for relative URIs)
csim_status urdf_load_string(const char* text, const char* name, const char* basedir,
                             const urdf_options* opt, urdf_robot** out, csim_error* err) {
  return load_common(text, text ? strlen(text) : 0, name ? name : "<string>",
                     basedir ? basedir : ".", opt, out, err);
}

// free a robot and everything it owns
void urdf_free(urdf_robot* r) {
  if (!r) return;
  for (int i = 0; i < r->nlink; i++) {
    urdf_link* L = &r->links[i];
    for (int g = 0; g < L->ngeom; g++) {
      free(L->geoms[g].uri);
      free(L->geoms[g].path);
      free(L->geoms[g].name);
    }
    free(L->geoms);
    free(L->name);
  }
  for (int j = 0; j < r->njoint; j++) free(r->joints[j].name);
  free(r->links);
  free(r->joints);
  free(r->link_parent_joint);
  free(r->issues);
  for (int k = 0; k < r->nunsupported; k++) free(r->unsupported[k].file);
  free(r->unsupported);
  free(r->exclude);
  free(r->pairs);
  for (int k = 0; k < r->nkey; k++) {
    free(r->keys[k].name);
    free(r->keys[k].file);
    free(r->keys[k].qpos);
    free(r->keys[k].qvel);
  }
  free(r->keys);
  free(r->name);
  free(r->file);
  free(r);
}

// link index by name (linear), -1 when absent
int urdf_find_link(const urdf_robot* r, const char* name) {
  for (int i = 0; r && i < r->nlink; i++)
    if (strcmp(r->links[i].name, name) == 0) return i;
  return -1;
}

// joint index by name (linear), -1 when absent
int urdf_find_joint(const urdf_robot* r, const char* name) {
  for (int j = 0; r && j < r->njoint; j++)
    if (strcmp(r->joints[j].name, name) == 0) return j;
  return -1;
}
