// terrain.c — height-field grids from a text file or a seeded random generator (terrain.h).
#include "io/terrain.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void terrain_free(terrain_grid* g) {
  if (!g) return;
  free(g->h);
  g->h = NULL;
  g->nx = g->ny = 0;
}

// grow a double array to hold at least n values
static int reserve(double** a, size_t* cap, size_t n) {
  if (n <= *cap) return 1;
  size_t c = *cap ? *cap : 256;
  while (c < n) c *= 2;
  double* b = realloc(*a, c * sizeof(double));
  if (!b) return 0;
  *a = b;
  *cap = c;
  return 1;
}

// a height file being read: the heights so far and the grid's shape
typedef struct {
  const char* path;
  const char* key;
  csim_error* err;
  double* h;
  size_t cap, n;
  int nx, ny;      // row length (after the first row), rows read
} hf_reader;

// skip blanks (spaces, tabs, line ends)
static const char* skip_blanks(const char* p) {
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
  return p;
}

// the heights of one data line (line number lineno) appended; their number into *count
static csim_status read_row(hf_reader* r, const char* line, const char* p, int lineno,
                            int* count) {
  *count = 0;
  while (*p) {
    const char* s = p;
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    int col = (int)(s - line) + 1;
    if (end == s)
      return err_set(r->err, CSIM_ERR_INPUT, r->path, lineno, col, r->key,
                     "expected a height (a number), found '%.20s'", s);
    if (!isfinite(v) || errno == ERANGE)
      return err_set(r->err, CSIM_ERR_INPUT, r->path, lineno, col, r->key,
                     "expected a finite height, found '%.*s'", (int)(end - s), s);
    if (r->ny == 0 && *count + 1 > TERRAIN_MAX_SIDE)
      return err_set(r->err, CSIM_ERR_INPUT, r->path, lineno, col, r->key,
                     "too many values in a row: at most %d", TERRAIN_MAX_SIDE);
    if (r->ny > 0 && *count + 1 > r->nx)
      return err_set(r->err, CSIM_ERR_INPUT, r->path, lineno, col, r->key,
                     "wrong row length: expected %d values (as in the first row), found more",
                     r->nx);
    if (!reserve(&r->h, &r->cap, r->n + 1))
      return err_set(r->err, CSIM_ERR_RUN, r->path, lineno, col, r->key, "out of memory");
    r->h[r->n++] = v;
    (*count)++;
    // separators: blanks and at most one comma
    p = skip_blanks(end);
    if (*p == ',') {
      p = skip_blanks(p + 1);
      if (*p == '\0' || *p == '#')
        return err_set(r->err, CSIM_ERR_INPUT, r->path, lineno, (int)(p - line) + 1, r->key,
                       "expected a height after ','");
    }
    if (*p == '#') break;
  }
  return CSIM_OK;
}

// one line of the file (len bytes): blank and comment lines skipped, a data row checked
// against the first row's length and the grid's limits
static csim_status read_line(hf_reader* r, const char* line, ssize_t len, int lineno) {
  if (strlen(line) != (size_t)len)
    return err_set(r->err, CSIM_ERR_INPUT, r->path, lineno, 1, r->key,
                   "a NUL byte in the height file");
  const char* p = skip_blanks(line);
  if (*p == '\0' || *p == '#') return CSIM_OK;
  int count = 0;
  csim_status st = read_row(r, line, p, lineno, &count);
  if (st != CSIM_OK) return st;
  if (r->ny == 0) r->nx = count;
  else if (count != r->nx)
    return err_set(r->err, CSIM_ERR_INPUT, r->path, lineno, (int)len, r->key,
                   "wrong row length: expected %d values (as in the first row), found %d", r->nx,
                   count);
  r->ny++;
  if (r->ny > TERRAIN_MAX_SIDE)
    return err_set(r->err, CSIM_ERR_INPUT, r->path, lineno, 1, r->key,
                   "too many rows: at most %d", TERRAIN_MAX_SIDE);
  return CSIM_OK;
}

csim_status terrain_load(const char* path, const char* key, terrain_grid* out, csim_error* err) {
  memset(out, 0, sizeof(*out));
  csim_status st = err_check_input_file(path, "height field", err);
  if (st != CSIM_OK) {
    snprintf(err->key, sizeof(err->key), "%s", key);
    return st;
  }
  FILE* f = fopen(path, "r");
  if (!f)
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, key, "cannot open the height file: %s",
                   strerror(errno));
  hf_reader r = {path, key, err, NULL, 0, 0, 0, 0};
  int lineno = 0;
  char* line = NULL;
  size_t lcap = 0;
  ssize_t len;
  while (st == CSIM_OK && (len = getline(&line, &lcap, f)) >= 0)
    st = read_line(&r, line, len, ++lineno);
  if (st == CSIM_OK && ferror(f))
    st = err_set(err, CSIM_ERR_INPUT, path, lineno, 0, key, "read error");
  if (st == CSIM_OK && (r.nx < 2 || r.ny < 2))
    st = err_set(err, CSIM_ERR_INPUT, path, lineno, 0, key,
                 "wrong size: expected at least 2 rows of at least 2 heights, found %d x %d",
                 r.ny, r.nx);
  free(line);
  fclose(f);
  if (st != CSIM_OK) {
    free(r.h);
    return st;
  }
  out->nx = r.nx;
  out->ny = r.ny;
  out->h = r.h;
  return CSIM_OK;
}

// splitmix64 (Steele, Lea, Flood 2014): a portable, seedable stream
static unsigned long long splitmix64(unsigned long long* s) {
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

csim_status terrain_random(unsigned long long seed, double amplitude, double resolution,
                           const double size[2], terrain_grid* out, csim_error* err) {
  memset(out, 0, sizeof(*out));
  if (!(amplitude >= 0) || !isfinite(amplitude) || !(resolution > 0) || !(size[0] > 0) ||
      !(size[1] > 0) || !isfinite(size[0]) || !isfinite(size[1]))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "world.ground",
                   "random height field: expected amplitude >= 0, resolution > 0, size > 0");
  double fx = round(size[0] / resolution), fy = round(size[1] / resolution);
  if (!(fx >= 1 && fy >= 1 && fx < TERRAIN_MAX_SIDE && fy < TERRAIN_MAX_SIDE))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "world.ground.resolution",
                   "random height field: size / resolution = %g x %g cells, expected 1 to %d per "
                   "side", fx, fy, TERRAIN_MAX_SIDE - 1);
  int nx = (int)fx + 1, ny = (int)fy + 1;
  double* h = calloc((size_t)nx * (size_t)ny, sizeof(double));
  if (!h) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  unsigned long long s = seed;
  for (int iy = 0; iy < ny; iy++)
    for (int ix = 0; ix < nx; ix++) {
      // 53 random bits -> [0, 1); drawn for every vertex so the stream does not depend on borders
      double u = (double)(splitmix64(&s) >> 11) * 0x1.0p-53;
      int border = ix == 0 || iy == 0 || ix == nx - 1 || iy == ny - 1;
      h[(size_t)iy * nx + ix] = border ? 0.0 : amplitude * u;
    }
  out->nx = nx;
  out->ny = ny;
  out->h = h;
  return CSIM_OK;
}
