# fig001_lib.sh — sourced by tools/fig001_*.sh. Builds, in a temporary directory, a small driver
# linked against build/libcsim.a that runs a compliant scenario with TALS and the residual
# backtracking switched on or off (cmpl_data.tals / .backtrack, src/compliant.h: the scenario keys
# have no switch for them; the library's tests use the same fields). 001 Figs. 4/5 and 7 compare
# Newton with and without TALS, which needs exactly this switch.
#
# Usage: fig001_build_driver DIR   -> DIR/tals_driver
#   DIR/tals_driver SCENARIO.yaml TALS(0|1) BACKTRACK(0|1) [key=value]...
# prints one CSV line per step (after a header): t, newton iterations, converged, substeps,
# residual, wall time of the step, q[0..nq), v[0..nv), the summed world contact force on body2
# (x, y, z; impulse / dt), and the number of contacts.

fig001_build_driver() {
  local dir="$1"
  mkdir -p "$dir"
  cat > "$dir/tals_driver.c" <<'EOF'
// tals_driver.c — run a compliant csim scenario with TALS/backtracking on or off (fig001_lib.sh)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compliant.h"
#include "scenario.h"
#include "sim.h"

// main: load the scenario with overrides, flip the line-search switches, step, print CSV
int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s SCENARIO TALS BACKTRACK [key=value]...\n", argv[0]);
    return 2;
  }
  csim_error err;
  err_clear(&err);
  scn_config* cfg = NULL;
  if (scn_load(argv[1], (const char* const*)(argv + 4), argc - 4, &cfg, &err) != CSIM_OK) {
    err_print(&err, stderr);
    return 2;
  }
  sim* S = NULL;
  if (sim_create(cfg, &S, &err) != CSIM_OK || !S->cmpl) {
    err_print(&err, stderr);
    return 2;
  }
  S->cmpl->tals = atoi(argv[2]);
  S->cmpl->backtrack = atoi(argv[3]);
  int nq = S->m->nq, nv = S->m->nv;
  long nsteps = (long)(cfg->duration / cfg->dt + 0.5);
  printf("t,iterations,converged,substeps,residual,wall");
  for (int k = 0; k < nq; k++) printf(",q%d", k);
  for (int k = 0; k < nv; k++) printf(",v%d", k);
  printf(",fx,fy,fz,ncon\n");
  for (long k = 0; k < nsteps; k++) {
    double t = S->d->time;
    sim_stepinfo info;
    memset(&info, 0, sizeof(info));
    // the state at the start of the step, as csim run records it
    printf("%.9g", t);
    char qv[1 << 14];
    int len = 0;
    for (int j = 0; j < nq && len < (int)sizeof(qv) - 64; j++)
      len += snprintf(qv + len, sizeof(qv) - (size_t)len, ",%.12g", S->d->q[j]);
    for (int j = 0; j < nv && len < (int)sizeof(qv) - 64; j++)
      len += snprintf(qv + len, sizeof(qv) - (size_t)len, ",%.12g", S->d->v[j]);
    csim_status st = sim_step(S, &info, &err);
    if (st != CSIM_OK) {
      printf("\n");
      err_print(&err, stderr);
      break;
    }
    // summed contact force on body2 in world coordinates
    double F[3] = {0, 0, 0};
    const contact_data* c = S->con;
    for (int i = 0; i < c->ncon; i++)
      for (int r = 0; r < 3; r++)
        for (int a = 0; a < 3; a++) F[a] += c->lambda[3 * i + r] / cfg->dt * c->frame[9 * i + 3 * r + a];
    printf(",%d,%d,%d,%.6g,%.6g%s,%.9g,%.9g,%.9g,%d\n", S->cmpl->iterations, S->cmpl->converged,
           S->cmpl->substeps, S->cmpl->residual, info.t_step, qv, F[0], F[1], F[2], c->ncon);
  }
  sim_free(S);
  scn_free(cfg);
  return 0;
}
EOF
  local flags
  flags="$(pkg-config --cflags yaml-0.1 ccd hdf5 lapacke 2>/dev/null)"
  local libs
  libs="$(pkg-config --libs yaml-0.1 ccd hdf5 lapacke 2>/dev/null) -lopenblas -lm"
  # shellcheck disable=SC2086
  cc -std=c11 -D_DEFAULT_SOURCE -O2 $flags -Isrc -o "$dir/tals_driver" "$dir/tals_driver.c" \
    build/libcsim.a $libs
}
