// tools/bench/peer_cubetoss.c — peer_cubetoss.h over csim's src/run/cubetoss.c
#include "peer_cubetoss.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"
#include "run/cubetoss.h"

struct peer_ct {
  ct_data* d;
};

peer_ct* peer_ct_open(const char* path, const char* group) {
  peer_ct* c = calloc(1, sizeof *c);
  csim_error err;
  if (!c) return NULL;
  if (ct_load(path, group, &c->d, &err) != CSIM_OK) {
    char msg[1024];
    err_format(&err, msg, sizeof msg);
    fprintf(stderr, "cubetoss peer: %s\n", msg);
    free(c);
    return NULL;
  }
  return c;
}

void peer_ct_close(peer_ct* c) {
  if (!c) return;
  ct_free(c->d);
  free(c);
}

int peer_ct_count(const peer_ct* c) { return c->d->ntoss; }

void peer_ct_cube(const peer_ct* c, double* dt, double* side, double* mass, double inertia[3]) {
  *dt = c->d->dt, *side = c->d->side, *mass = c->d->mass;
  for (int k = 0; k < 3; k++) inertia[k] = c->d->inertia[k];
}

int peer_ct_rows(const peer_ct* c, int i) {
  int T;
  ct_toss(c->d, i, &T);
  return T;
}

void peer_ct_state(const peer_ct* c, int i, int k, double q[7], double v[6]) {
  int T;
  const double* rows = ct_toss(c->d, i, &T);
  ct_row_state(rows + (size_t)k * CT_NCOL, q, v);
}

void peer_ct_score(const peer_ct* c, int i, const double* simq, double* eq, double* pos, double* rot) {
  int T;
  const double* rows = ct_toss(c->d, i, &T);
  ct_result r = {0};
  ct_score(rows, simq, T, c->d->side, &r);
  *eq = r.eq, *pos = r.pos, *rot = r.rot;
}
