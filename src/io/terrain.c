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
  double* h = NULL;
  size_t cap = 0, n = 0;
  int nx = 0, ny = 0, lineno = 0;
  char* line = NULL;
  size_t lcap = 0;
  ssize_t len;
  st = CSIM_OK;
  while (st == CSIM_OK && (len = getline(&line, &lcap, f)) >= 0) {
    lineno++;
    if (strlen(line) != (size_t)len) {
      st = err_set(err, CSIM_ERR_INPUT, path, lineno, 1, key, "a NUL byte in the height file");
      break;
    }
    const char* p = line;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (*p == '\0' || *p == '#') continue;
    int count = 0;
    while (*p && st == CSIM_OK) {
      const char* s = p;
      char* end;
      errno = 0;
      double v = strtod(s, &end);
      int col = (int)(s - line) + 1;
      if (end == s) {
        st = err_set(err, CSIM_ERR_INPUT, path, lineno, col, key,
                     "expected a height (a number), found '%.20s'", s);
        break;
      }
      if (!isfinite(v) || errno == ERANGE) {
        st = err_set(err, CSIM_ERR_INPUT, path, lineno, col, key,
                     "expected a finite height, found '%.*s'", (int)(end - s), s);
        break;
      }
      if (ny == 0 && count + 1 > TERRAIN_MAX_SIDE) {
        st = err_set(err, CSIM_ERR_INPUT, path, lineno, col, key,
                     "too many values in a row: at most %d", TERRAIN_MAX_SIDE);
        break;
      }
      if (ny > 0 && count + 1 > nx) {
        st = err_set(err, CSIM_ERR_INPUT, path, lineno, col, key,
                     "wrong row length: expected %d values (as in the first row), found more", nx);
        break;
      }
      if (!reserve(&h, &cap, n + 1)) {
        st = err_set(err, CSIM_ERR_RUN, path, lineno, col, key, "out of memory");
        break;
      }
      h[n++] = v;
      count++;
      p = end;
      // separators: blanks and at most one comma
      while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
      if (*p == ',') {
        p++;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (*p == '\0' || *p == '#') {
          st = err_set(err, CSIM_ERR_INPUT, path, lineno, (int)(p - line) + 1, key,
                       "expected a height after ','");
          break;
        }
      }
      if (*p == '#') break;
    }
    if (st != CSIM_OK) break;
    if (ny == 0) nx = count;
    else if (count != nx) {
      st = err_set(err, CSIM_ERR_INPUT, path, lineno, (int)len, key,
                   "wrong row length: expected %d values (as in the first row), found %d", nx,
                   count);
      break;
    }
    ny++;
    if (ny > TERRAIN_MAX_SIDE) {
      st = err_set(err, CSIM_ERR_INPUT, path, lineno, 1, key, "too many rows: at most %d",
                   TERRAIN_MAX_SIDE);
      break;
    }
  }
  if (st == CSIM_OK && ferror(f))
    st = err_set(err, CSIM_ERR_INPUT, path, lineno, 0, key, "read error");
  if (st == CSIM_OK && (nx < 2 || ny < 2))
    st = err_set(err, CSIM_ERR_INPUT, path, lineno, 0, key,
                 "wrong size: expected at least 2 rows of at least 2 heights, found %d x %d", ny,
                 nx);
  free(line);
  fclose(f);
  if (st != CSIM_OK) {
    free(h);
    return st;
  }
  out->nx = nx;
  out->ny = ny;
  out->h = h;
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
