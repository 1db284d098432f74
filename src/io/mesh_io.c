// mesh_io.c — collision mesh files: STL (binary and ASCII) and OBJ readers, file -> convex hull
// (see mesh_io.h; the hull itself is core/mesh.c).
#include "io/mesh_io.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//---------------------------------- STL reader -----------------------------------------------

// read a whole file into memory; *buf is caller-freed
static csim_status read_file(const char* path, unsigned char** buf, size_t* len,
                             csim_error* err) {
  *buf = NULL;
  *len = 0;
  // only regular files: a FIFO would block, /dev/zero never end
  if (err_check_input_file(path, "mesh", err) != CSIM_OK) return CSIM_ERR_INPUT;
  FILE* f = fopen(path, "rb");
  if (!f) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot open mesh: %s",
                         strerror(errno));
  size_t cap = 1 << 16, n = 0;
  unsigned char* b = malloc(cap);
  while (b) {
    size_t got = fread(b + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;  // short read: end of file or error
    unsigned char* nb = realloc(b, cap * 2);
    if (!nb) {
      free(b);
      b = NULL;
      break;
    }
    b = nb;
    cap *= 2;
  }
  int bad = b && ferror(f);
  fclose(f);
  if (!b) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "out of memory reading mesh");
  if (bad) {
    free(b);
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "read error");
  }
  *buf = b;
  *len = n;
  return CSIM_OK;
}

// little-endian unsigned 32-bit integer
static uint32_t le32(const unsigned char* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

// little-endian IEEE-754 single
static double lef32(const unsigned char* p) {
  uint32_t u = le32(p);
  float f;
  memcpy(&f, &u, sizeof(f));
  return (double)f;
}

// binary STL: 80-byte header, uint32 count, then 50 bytes per triangle (normal, 3 vertices,
// attribute word); the normal is ignored (the hull recomputes orientation)
static csim_status parse_binary(const char* path, const unsigned char* b, uint32_t n,
                                double** tri, int* ntri, csim_error* err) {
  if (n == 0) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "binary STL with no triangles");
  if (n > (uint32_t)(INT32_MAX / 9))
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "binary STL too large (%u triangles)", n);
  double* t = malloc((size_t)n * 9 * sizeof(double));
  if (!t) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "out of memory reading mesh");
  for (uint32_t i = 0; i < n; i++) {
    const unsigned char* r = b + 84 + (size_t)i * 50 + 12;
    for (int k = 0; k < 9; k++) {
      double v = lef32(r + 4 * k);
      if (!isfinite(v)) {
        free(t);
        return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL,
                       "binary STL: triangle %u has a non-finite coordinate", i);
      }
      t[(size_t)i * 9 + (size_t)k] = v;
    }
  }
  *tri = t;
  *ntri = (int)n;
  return CSIM_OK;
}

// tokenizer state of an ASCII STL
typedef struct {
  const char* s;
  size_t len, pos;
  int line;
  const char* tok;  // current token
  size_t tlen;
  int tline;        // line of the current token
} stl_lex;

// next white-space separated token; returns 0 at end of input
static int lex_next(stl_lex* L) {
  while (L->pos < L->len) {
    char c = L->s[L->pos];
    if (c == '\n') L->line++;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') break;
    L->pos++;
  }
  if (L->pos >= L->len) {
    L->tok = NULL;
    L->tlen = 0;
    L->tline = L->line;
    return 0;
  }
  size_t st = L->pos;
  while (L->pos < L->len) {
    char c = L->s[L->pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') break;
    L->pos++;
  }
  L->tok = L->s + st;
  L->tlen = L->pos - st;
  L->tline = L->line;
  return 1;
}

// skip the rest of the current line (solid names)
static void lex_skip_line(stl_lex* L) {
  while (L->pos < L->len && L->s[L->pos] != '\n') L->pos++;
}

// is the current token the keyword kw (case-insensitive, as some exporters write upper case)?
static int lex_is(const stl_lex* L, const char* kw) {
  size_t n = strlen(kw);
  if (!L->tok || L->tlen != n) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = L->tok[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != kw[i]) return 0;
  }
  return 1;
}

// expect keyword kw as the next token
static csim_status lex_expect(stl_lex* L, const char* kw, const char* path, csim_error* err) {
  lex_next(L);
  if (lex_is(L, kw)) return CSIM_OK;
  return err_set(err, CSIM_ERR_INPUT, path, L->tline, 0, NULL,
                 "ASCII STL: expected '%s', found '%.*s'", kw,
                 L->tok ? (int)(L->tlen > 40 ? 40 : L->tlen) : 11, L->tok ? L->tok : "end of file");
}

// read the next token as a finite number
static csim_status lex_number(stl_lex* L, double* v, const char* path, csim_error* err) {
  lex_next(L);
  char buf[64];
  if (L->tok && L->tlen < sizeof(buf)) {
    memcpy(buf, L->tok, L->tlen);
    buf[L->tlen] = '\0';
    char* end = NULL;
    double x = strtod(buf, &end);
    if (end == buf + L->tlen && L->tlen > 0 && isfinite(x)) {  // (underflow to 0 is fine)
      *v = x;
      return CSIM_OK;
    }
  }
  return err_set(err, CSIM_ERR_INPUT, path, L->tline, 0, NULL,
                 "ASCII STL: expected a number, found '%.*s'",
                 L->tok ? (int)(L->tlen > 40 ? 40 : L->tlen) : 11, L->tok ? L->tok : "end of file");
}

// ASCII STL: solid NAME { facet normal n n n outer loop (vertex x y z){3} endloop endfacet }
// endsolid [NAME]; several solids in a file are concatenated
static csim_status parse_ascii(const char* path, const char* s, size_t len, double** tri,
                               int* ntri, csim_error* err) {
  stl_lex L = {.s = s, .len = len, .line = 1};
  size_t cap = 256, n = 0;
  double* t = malloc(cap * 9 * sizeof(double));
  if (!t) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "out of memory reading mesh");
  csim_status st = CSIM_OK;
  int nsolid = 0;
  // solids
  while (!st && lex_next(&L)) {
    if (!lex_is(&L, "solid")) {
      st = err_set(err, CSIM_ERR_INPUT, path, L.tline, 0, NULL,
                   "ASCII STL: expected 'solid', found '%.*s'", (int)(L.tlen > 40 ? 40 : L.tlen),
                   L.tok);
      break;
    }
    nsolid++;
    lex_skip_line(&L);
    // facets
    while (!st) {
      if (!lex_next(&L)) {
        st = err_set(err, CSIM_ERR_INPUT, path, L.tline, 0, NULL,
                     "ASCII STL: unexpected end of file: expected 'facet' or 'endsolid'");
        break;
      }
      if (lex_is(&L, "endsolid")) {
        lex_skip_line(&L);
        break;
      }
      if (!lex_is(&L, "facet")) {
        st = err_set(err, CSIM_ERR_INPUT, path, L.tline, 0, NULL,
                     "ASCII STL: expected 'facet' or 'endsolid', found '%.*s'",
                     (int)(L.tlen > 40 ? 40 : L.tlen), L.tok);
        break;
      }
      double nrm[3], v[9];
      st = lex_expect(&L, "normal", path, err);
      for (int k = 0; k < 3 && !st; k++) st = lex_number(&L, &nrm[k], path, err);
      if (!st) st = lex_expect(&L, "outer", path, err);
      if (!st) st = lex_expect(&L, "loop", path, err);
      for (int k = 0; k < 3 && !st; k++) {
        st = lex_expect(&L, "vertex", path, err);
        for (int j = 0; j < 3 && !st; j++) st = lex_number(&L, &v[3 * k + j], path, err);
      }
      if (!st) st = lex_expect(&L, "endloop", path, err);
      if (!st) st = lex_expect(&L, "endfacet", path, err);
      if (st) break;
      if (n == cap) {
        if (cap > (size_t)INT32_MAX / 18) {
          st = err_set(err, CSIM_ERR_INPUT, path, L.tline, 0, NULL, "ASCII STL too large");
          break;
        }
        double* nt = realloc(t, cap * 2 * 9 * sizeof(double));
        if (!nt) {
          st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "out of memory reading mesh");
          break;
        }
        t = nt;
        cap *= 2;
      }
      memcpy(t + n * 9, v, sizeof(v));
      n++;
    }
  }
  if (!st && (nsolid == 0 || n == 0))
    st = err_set(err, CSIM_ERR_INPUT, path, L.line, 0, NULL, "ASCII STL with no triangles");
  if (st) {
    free(t);
    return st;
  }
  *tri = t;
  *ntri = (int)n;
  return CSIM_OK;
}

// read an STL file: binary when its size is 84 + 50 n for its declared n, else ASCII
csim_status mesh_read_stl(const char* path, double** tri, int* ntri, csim_error* err) {
  *tri = NULL;
  *ntri = 0;
  unsigned char* b = NULL;
  size_t len = 0;
  csim_status st = read_file(path, &b, &len, err);
  if (st) return st;
  // binary when the size matches the declared triangle count (never trust the "solid" prefix)
  if (len >= 84) {
    uint32_t n = le32(b + 80);
    if ((uint64_t)84 + (uint64_t)50 * n == (uint64_t)len) {
      st = parse_binary(path, b, n, tri, ntri, err);
      free(b);
      return st;
    }
  }
  // otherwise ASCII, which starts with "solid" after optional white space
  size_t i = 0;
  while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) i++;
  if (len - i >= 5 && strncmp((const char*)b + i, "solid", 5) == 0 && !memchr(b, 0, len)) {
    st = parse_ascii(path, (const char*)b, len, tri, ntri, err);
    free(b);
    return st;
  }
  if (len >= 84)
    st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL,
                 "not an STL file: %zu bytes is not 84 + 50*%u (binary STL with the triangle "
                 "count of its header) and the text does not start with 'solid' (ASCII STL)",
                 len, le32(b + 80));
  else
    st = err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL,
                 "not an STL file: %zu bytes, too short for binary STL and no 'solid' keyword "
                 "of ASCII STL", len);
  free(b);
  return st;
}

//---------------------------------- OBJ reader -----------------------------------------------

// growable triangle list
typedef struct {
  double* t;
  size_t n, cap;
} tri_buf;

static int tri_push(tri_buf* b, const double* v, int i0, int i1, int i2) {
  if (b->n == b->cap) {
    size_t nc = b->cap ? 2 * b->cap : 256;
    if (nc > (size_t)INT32_MAX / 9) return 0;
    double* nt = realloc(b->t, nc * 9 * sizeof(double));
    if (!nt) return 0;
    b->t = nt;
    b->cap = nc;
  }
  memcpy(b->t + 9 * b->n, v + 3 * (size_t)i0, 3 * sizeof(double));
  memcpy(b->t + 9 * b->n + 3, v + 3 * (size_t)i1, 3 * sizeof(double));
  memcpy(b->t + 9 * b->n + 6, v + 3 * (size_t)i2, 3 * sizeof(double));
  b->n++;
  return 1;
}

// state of the OBJ line parser
typedef struct {
  const char* path;
  const char* s;   // current line (not NUL-terminated: ends at e)
  const char* e;
  const char* p;   // cursor in the line
  int line;
  double* v;       // vertices so far (nv x 3)
  int nv, capv;
  tri_buf tri;
  csim_error* err;
} obj_ctx;

// error at the cursor's column, quoting the token there
static csim_status obj_fail(obj_ctx* c, const char* tok, size_t tlen, const char* what) {
  return err_set(c->err, CSIM_ERR_INPUT, c->path, c->line, (int)(tok - c->s) + 1, NULL,
                 "OBJ: %s, found '%.*s'", what, tlen ? (int)(tlen > 40 ? 40 : tlen) : 11,
                 tlen ? tok : "end of line");
}

// next token of the line (white space separated); its length, 0 at the end of the line
static size_t obj_token(obj_ctx* c, const char** tok) {
  while (c->p < c->e && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r')) c->p++;
  *tok = c->p;
  while (c->p < c->e && *c->p != ' ' && *c->p != '\t' && *c->p != '\r') c->p++;
  return (size_t)(c->p - *tok);
}

// "v x y z [w]": three finite numbers (w, a rational-curve weight, is ignored)
static csim_status obj_vertex(obj_ctx* c) {
  if (c->nv == c->capv) {
    int nc = c->capv ? 2 * c->capv : 256;
    double* nv = nc <= INT32_MAX / 6 ? realloc(c->v, (size_t)nc * 3 * sizeof(double)) : NULL;
    if (!nv) return err_set(c->err, CSIM_ERR_INPUT, c->path, c->line, 0, NULL, "OBJ too large");
    c->v = nv;
    c->capv = nc;
  }
  for (int k = 0; k < 3; k++) {
    const char* tok;
    size_t n = obj_token(c, &tok);
    char buf[64], *end = NULL;
    double x = 0;
    if (n && n < sizeof(buf)) {
      memcpy(buf, tok, n);
      buf[n] = '\0';
      x = strtod(buf, &end);
    }
    if (!n || n >= sizeof(buf) || end != buf + n || !isfinite(x))
      return obj_fail(c, tok, n, "expected a vertex coordinate (a finite number)");
    c->v[3 * c->nv + k] = x;
  }
  c->nv++;
  return CSIM_OK;
}

// one face corner "i", "i/t", "i//n" or "i/t/n": the 0-based vertex index (negative i counts
// back from the last vertex read so far)
static csim_status obj_corner(obj_ctx* c, const char* tok, size_t n, int* idx) {
  size_t k = 0;
  int neg = n > 0 && tok[0] == '-';
  long long x = 0;
  for (k = (size_t)neg; k < n && tok[k] >= '0' && tok[k] <= '9'; k++)
    if ((x = 10 * x + (tok[k] - '0')) > INT32_MAX) break;
  if (k == (size_t)neg || (k < n && tok[k] != '/'))
    return obj_fail(c, tok, n, "expected a face vertex 'i', 'i/t', 'i//n' or 'i/t/n'");
  long long i = neg ? c->nv - x : x - 1;
  if (x == 0 || i < 0 || i >= c->nv) {
    char what[96];
    snprintf(what, sizeof(what), "vertex index out of range (%d vertices so far)", c->nv);
    return obj_fail(c, tok, n, what);
  }
  *idx = (int)i;
  return CSIM_OK;
}

// "f a b c ...": a polygon, fanned into triangles (a b c), (a c d), ...
static csim_status obj_face(obj_ctx* c, const char* kw) {
  int first = 0, prev = 0, count = 0, idx = 0;
  const char* tok;
  size_t n;
  while ((n = obj_token(c, &tok)) > 0) {
    csim_status st = obj_corner(c, tok, n, &idx);
    if (st) return st;
    if (count == 0) first = idx;
    if (count >= 2 && !tri_push(&c->tri, c->v, first, prev, idx))
      return err_set(c->err, CSIM_ERR_INPUT, c->path, c->line, 0, NULL, "OBJ too large");
    prev = idx;
    count++;
  }
  if (count < 3) {
    char what[64];
    snprintf(what, sizeof(what), "a face needs 3 or more vertices (this one has %d)", count);
    return obj_fail(c, kw, 1, what);
  }
  return CSIM_OK;
}

// parse OBJ text: 'v' and 'f' lines; every other statement (vt, vn, o, g, s, usemtl, ...) skipped
static csim_status parse_obj(obj_ctx* c, const char* s, size_t len) {
  csim_status st = CSIM_OK;
  const char* end = s + len;
  for (const char* l = s; !st && l < end; c->line++) {
    const char* nl = memchr(l, '\n', (size_t)(end - l));
    c->s = c->p = l;
    c->e = nl ? nl : end;
    l = nl ? nl + 1 : end;
    const char* kw;
    size_t n = obj_token(c, &kw);
    if (n == 1 && kw[0] == 'v') st = obj_vertex(c);
    else if (n == 1 && kw[0] == 'f') st = obj_face(c, kw);
  }
  if (!st && c->tri.n == 0)
    st = err_set(c->err, CSIM_ERR_INPUT, c->path, c->line - 1, 0, NULL,
                 "OBJ with no faces (%d vertices): an empty mesh", c->nv);
  return st;
}

csim_status mesh_parse_obj(const char* name, const char* text, size_t len, double** tri,
                           int* ntri, csim_error* err) {
  *tri = NULL;
  *ntri = 0;
  obj_ctx c = {.path = name, .line = 1, .err = err};
  csim_status st = parse_obj(&c, text, len);
  free(c.v);
  if (st) {
    free(c.tri.t);
    return st;
  }
  *tri = c.tri.t;
  *ntri = (int)c.tri.n;
  return CSIM_OK;
}

csim_status mesh_read_obj(const char* path, double** tri, int* ntri, csim_error* err) {
  unsigned char* b = NULL;
  size_t len = 0;
  csim_status st = read_file(path, &b, &len, err);
  if (st) *tri = NULL, *ntri = 0;
  else st = mesh_parse_obj(path, (const char*)b, len, tri, ntri, err);
  free(b);
  return st;
}

//---------------------------------- by extension ---------------------------------------------

// does path end with ext (".stl", ".obj"; any case)?
static int has_ext(const char* path, const char* ext) {
  size_t n = strlen(path), k = strlen(ext);
  if (n < k) return 0;
  for (size_t i = 0; i < k; i++) {
    char ch = path[n - k + i];
    if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
    if (ch != ext[i]) return 0;
  }
  return 1;
}

int mesh_format_supported(const char* path) {
  return has_ext(path, ".stl") || has_ext(path, ".obj");
}

csim_status mesh_read(const char* path, double** tri, int* ntri, csim_error* err) {
  *tri = NULL;
  *ntri = 0;
  if (has_ext(path, ".obj")) return mesh_read_obj(path, tri, ntri, err);
  if (has_ext(path, ".stl")) return mesh_read_stl(path, tri, ntri, err);
  const char* dot = strrchr(path, '.');
  const char* slash = strrchr(path, '/');
  return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL,
                 "unsupported mesh format '%s': csim reads STL and OBJ meshes (.stl, .obj)",
                 dot && (!slash || dot > slash) ? dot : "(no extension)");
}

// read the mesh (format by extension), scale the vertices, build the hull
csim_status mesh_load_hull(const char* path, const double scale[3], mesh_hull* hull,
                           csim_error* err) {
  memset(hull, 0, sizeof(*hull));
  double* tri = NULL;
  int ntri = 0;
  csim_status st = mesh_read(path, &tri, &ntri, err);
  if (st) return st;
  double s[3] = {1, 1, 1};
  if (scale) memcpy(s, scale, sizeof(s));
  // scale every vertex (a negative component mirrors; the hull orients itself)
  for (int i = 0; i < 3 * ntri; i++)
    for (int k = 0; k < 3; k++) tri[3 * i + k] *= s[k];
  st = mesh_hull_points(tri, 3 * ntri, hull, err);
  free(tri);
  if (st && err) {
    // name the file in the hull's error
    snprintf(err->file, sizeof(err->file), "%s", path);
  }
  return st;
}
