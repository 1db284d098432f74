// terrain.h — height-field grids for world.ground.type: heightfield, read from a text file or
// drawn from a seeded random generator. The grid becomes the model's height field (model.h,
// MODEL_GEOM_HFIELD); its collision is in collision_hfield.c.
//
// File format (README "Terrain"): plain text, one grid row per line, row k at
// y = -size_y/2 + k size_y/(ny-1) (the first data row is the south edge, y = -size_y/2), values
// in a row at x = -size_x/2 + i size_x/(nx-1), separated by commas and/or blanks; heights in m
// above world.ground.height. Lines that are empty or start with '#' are skipped. Every row has
// the same number of values; at least 2 rows of at least 2 values, at most TERRAIN_MAX_SIDE each.
// Errors name the height file, line and column, and the scenario key (world.ground.file).
//
// Random field: vertices every `resolution` m over size_x x size_y (nx = round(size_x /
// resolution) + 1, likewise ny), heights independent and uniform in [0, amplitude] from a
// splitmix64 stream seeded by `seed` (the same seed gives the same field on every machine),
// border vertices at 0 so the field meets the plane that continues it beyond the grid.
#ifndef CSIM_TERRAIN_H
#define CSIM_TERRAIN_H

#include "core/error.h"

#define TERRAIN_MAX_SIDE 4096   // most vertices along one side of a grid

typedef struct {
  int nx, ny;      // vertices along x, y
  double* h;       // heights, x fastest: h[iy * nx + ix] (nx x ny), owned
} terrain_grid;

// read a height file; key is the scenario key named in errors
csim_status terrain_load(const char* path, const char* key, terrain_grid* out, csim_error* err);

// a seeded random field (see above); amplitude >= 0, resolution > 0, size > 0 (checked)
csim_status terrain_random(unsigned long long seed, double amplitude, double resolution,
                           const double size[2], terrain_grid* out, csim_error* err);

void terrain_free(terrain_grid* g);

#endif  // CSIM_TERRAIN_H
