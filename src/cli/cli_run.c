// cli_run.c — `csim run` (time stepping with recording and a summary) and `csim compare`.
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "out/compare.h"
#include "core/compliant/compliant.h"
#include "core/error.h"
#include "out/fclib.h"
#include "core/interrupt.h"
#include "out/merge.h"
#include "out/record.h"
#include "io/scenario.h"
#include "core/sim.h"

static const char* const kRunUsage =
    "usage: csim run SCENARIO.yaml... [--batch LIST]... [--set key=value]... [--out FILE]\n"
    "                [--quiet] [--skip-complete] [--log-dir DIR]\n"
    "\n"
    "Simulates the scenario and writes one HDF5 file (output.path, or --out).\n"
    "Several scenarios run one after the other in this process, each with its own output and\n"
    "exit status; a failed one does not stop the others.\n"
    "  --batch LIST      also run the scenario files listed in LIST, one path per line\n"
    "                    (relative to the current directory; blank lines and # comments skipped)\n"
    "  --skip-complete   do not rerun a scenario whose output exists with complete = 1\n"
    "  --log-dir DIR     append each scenario's messages (stdout and stderr) to DIR/STEM.log,\n"
    "                    STEM = the scenario file name without .yaml; each attempt ends with\n"
    "                    \"csim run: exit status N\"\n"
    "  --set key=value   override any scenario key before validation (repeatable), e.g.\n"
    "                    --set solver.tolerance=1e-6 --set robots.0.q0=[0,0,1,0,0,0,1]\n"
    "  --out FILE        output file (overrides output.path)\n"
    "  --quiet           no progress and no summary\n"
    "exit codes: 0 success, 1 the run failed (divergence, solver failure with\n"
    "solver.on_failure: stop, interrupted, output error), 2 bad input; with several\n"
    "scenarios, the worst of their codes (an interrupt ends the batch)\n";

static const char* const kCompareUsage =
    "usage: csim compare A.h5 B.h5 [--rtol R] [--atol A] [--only DATASET]...\n"
    "\n"
    "Compares every dataset of two csim output files (B is the reference), except /timing and\n"
    "the root attributes: |a - b| <= atol + rtol |b| elementwise.\n"
    "  --rtol R          relative tolerance (default 1e-9)\n"
    "  --atol A          absolute tolerance (default 1e-12)\n"
    "  --only DATASET    compare only this dataset or group (repeatable)\n"
    "exit codes: 0 within tolerance, 1 outside, 2 bad input\n";

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// output size (bytes, contacts not counted) above which `csim run` warns before starting
#define RUN_WARN_BYTES 1e9

// the datasets of DESIGN.md "Output file"
typedef struct {
  rec_dataset *time, *q, *v, *ek, *ep, *et, *ework, *einj;
  rec_dataset *l_count, *l_offset, *l_joint, *l_side, *l_gap, *l_force;
  rec_dataset *eps, *primal, *dual, *compl, *iters, *conv;
  rec_dataset *t_step, *t_coll, *t_dyn, *t_solve;
  rec_dataset *c_count, *c_reduced, *c_reduced_touch, *c_offset, *c_body, *c_point, *c_normal, *c_depth, *c_force, *c_vel,
      *c_frame, *c_id;
} run_sets;

// declare every dataset with units and a description
static csim_status declare(rec_file* f, const sim_model* m, run_sets* s, csim_error* err) {
  struct {
    rec_dataset** d;
    const char* path;
    rec_type type;
    size_t ncols;
    const char* units;
    const char* desc;
  } sets[] = {
      {&s->time, "/time", REC_F64, 0, "s", "time at the start of the step"},
      {&s->q, "/state/q", REC_F64, (size_t)m->nq, "m, rad",
       "configuration at /time; free joints [x y z qx qy qz qw]"},
      {&s->v, "/state/v", REC_F64, (size_t)m->nv, "m/s, rad/s",
       "velocity at /time; free joints [com velocity, world axes; angular velocity, body axes]"},
      {&s->ek, "/energy/kinetic", REC_F64, 0, "J", "1/2 v'M(q)v at /time"},
      {&s->ep, "/energy/potential", REC_F64, 0, "J", "gravitational potential energy at /time"},
      {&s->et, "/energy/total", REC_F64, 0, "J", "kinetic + potential"},
      {&s->ework, "/energy/work", REC_F64, 0, "J",
       "work of actions and external forces from t = 0 to /time (cumulative)"},
      {&s->einj, "/energy/injected", REC_F64, 0, "J",
       "total - initial total - work: energy not explained by the work done (< 0 dissipated, "
       "a rise above its lowest value is energy gained from nowhere)"},
      {&s->l_count, "/limits/count", REC_I32, 0, "1", "active joint limits at this step"},
      {&s->l_offset, "/limits/offset", REC_I32, 0, "1",
       "first row of this step in the flat /limits arrays"},
      {&s->l_joint, "/limits/joint", REC_I32, 0, "1", "joint index (model order, csim info --joints)"},
      {&s->l_side, "/limits/side", REC_I32, 0, "1", "0 lower limit, 1 upper limit"},
      {&s->l_gap, "/limits/gap", REC_F64, 0, "m or rad",
       "distance to the limit at /time, < 0 beyond it"},
      {&s->l_force, "/limits/force", REC_F64, 0, "N or N m",
       "generalized limit force (impulse / dt) pushing the joint back inside its range"},
      {&s->eps, "/solver/eps_abs", REC_F64, 0, "m/s or N s",
       "max over contacts of primal, dual and complementarity residuals (000 eq. 14)"},
      {&s->primal, "/solver/primal", REC_F64, 0, "N s", "max distance of an impulse to its cone"},
      {&s->dual, "/solver/dual", REC_F64, 0, "m/s",
       "max distance of c + Gamma(c) to the dual cone"},
      {&s->compl, "/solver/complementarity", REC_F64, 0, "N m",
       "max |<lambda, c + Gamma(c)>| (impulse times velocity)"},
      {&s->iters, "/solver/iterations", REC_I32, 0, "1", "solver iterations (sweeps)"},
      {&s->conv, "/solver/converged", REC_U8, 0, "1", "1 when eps_abs <= tolerance"},
      {&s->t_step, "/timing/step", REC_F64, 0, "s", "wall time of the whole step"},
      {&s->t_coll, "/timing/collision", REC_F64, 0, "s", "wall time of collision detection"},
      {&s->t_dyn, "/timing/dynamics", REC_F64, 0, "s", "wall time of M, its factor, bias, actions"},
      {&s->t_solve, "/timing/solve", REC_F64, 0, "s",
       "wall time of the contact problem build and solve"},
      {&s->c_count, "/contacts/count", REC_I32, 0, "1", "contacts at this step"},
      {&s->c_reduced, "/contacts/reduced", REC_I32, 0, "1",
       "contacts collision found that the patch reduction removed at this step (contact.patch_angle, "
       "contact.patch_max; not in the flat /contacts arrays; 0 with the reduction off)"},
      {&s->c_reduced_touch, "/contacts/reduced_touching", REC_I32, 0, "1",
       "of /contacts/reduced, those touching (depth >= 0); the others were near contacts within "
       "contact.margin"},
      {&s->c_offset, "/contacts/offset", REC_I32, 0, "1",
       "first row of this step in the flat /contacts arrays"},
      {&s->c_body, "/contacts/body", REC_I32, 2, "1",
       "bodies of geom1 and geom2 (0 = world); the force acts on body2, its opposite on body1"},
      {&s->c_point, "/contacts/point", REC_F64, 3, "m", "contact point in the world"},
      {&s->c_normal, "/contacts/normal", REC_F64, 3, "1",
       "unit normal from geom1 (environment) into geom2 (body), world"},
      {&s->c_depth, "/contacts/depth", REC_F64, 0, "m", "penetration depth, > 0 overlapping"},
      {&s->c_force, "/contacts/force", REC_F64, 3, "N",
       "contact force = impulse / dt, in the contact frame [t1 t2 n]"},
      {&s->c_vel, "/contacts/velocity", REC_F64, 3, "m/s",
       "contact velocity after the step in the contact frame [t1 t2 n]"},
      {&s->c_frame, "/contacts/frame", REC_F64, 9, "1",
       "contact frame rows t1, t2, n in world coordinates"},
      {&s->c_id, "/contacts/id", REC_I32, 3, "1", "geom1, geom2, feature: matches across steps"},
  };
  for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
    csim_status st =
        rec_add(f, sets[k].path, sets[k].type, sets[k].ncols, sets[k].units, sets[k].desc,
                sets[k].d, err);
    if (st != CSIM_OK) return st;
  }
  return CSIM_OK;
}

// root attributes: what ran and how to read it
static csim_status attributes(rec_file* f, const scn_config* cfg, const sim_model* m,
                              csim_error* err) {
  csim_status st = CSIM_OK;
  char conv[512];
  snprintf(conv, sizeof(conv),
           "SI units; quaternions [x y z w]; free joint q = [x y z qx qy qz qw] (body origin), v = "
           "[com velocity in world axes; angular velocity in body axes]; contact frame [t1 t2 n], n from environment into body; "
           "/contacts/force is impulse/dt (N); rows describe the state at /time and the contact "
           "problem solved over [time, time + dt]");
  if (!st) st = rec_attr_string(f, NULL, "csim_version", CSIM_VERSION, err);
  if (!st) st = rec_attr_string(f, NULL, "scenario", cfg->text ? cfg->text : "", err);
  if (!st) st = rec_attr_string(f, NULL, "scenario_name", cfg->name, err);
  // where the scenario's relative paths resolve: `csim replay` rebuilds the model from it
  char* sdir = realpath(cfg->dir ? cfg->dir : ".", NULL);
  if (!st) st = rec_attr_string(f, NULL, "scenario_dir", sdir ? sdir : cfg->dir, err);
  free(sdir);
  if (!st) st = rec_attr_string(f, NULL, "contact_model", scn_contact_model_names[cfg->model], err);
  if (!st)  // compliant laws use no rigid solver: "none"
    st = rec_attr_string(f, NULL, "solver",
                         scn_solver_names[cmpl_is_compliant(cfg) ? SCN_SOLVER_NONE : cfg->solver],
                         err);
  if (!st) st = rec_attr_string(f, NULL, "integrator", scn_integrator_names[cfg->scheme], err);
  if (!st) st = rec_attr_string(f, NULL, "conventions", conv, err);
  if (!st) st = rec_attr_string(f, NULL, "force_units", "N (impulse / dt)", err);
  if (!st) st = rec_attr_double(f, NULL, "dt", cfg->dt, err);
  if (!st) st = rec_attr_double(f, NULL, "tolerance", cfg->tolerance, err);
  if (!st)
    st = rec_attr_string(f, NULL, "tolerance_units", scn_tolerance_units_names[cfg->tolerance_units],
                         err);
  if (!st) st = rec_attr_int(f, NULL, "every", cfg->output_every, err);
  if (!st) st = rec_attr_int(f, NULL, "nq", m->nq, err);
  if (!st) st = rec_attr_int(f, NULL, "nv", m->nv, err);
  if (!st) st = rec_attr_doubles(f, NULL, "gravity", cfg->gravity, 3, err);
  return st;
}

// append one recorded row: the pre-step state (q0, v0) and the step's contact problem
static csim_status record_row(const run_sets* s, const sim* S, const double* q0, const double* v0,
                              double t, const sim_stepinfo* info, csim_error* err) {
  const contact_data* c = S->con;
  double dt = S->cfg->dt;
  double et = info->kinetic + info->potential;
  int32_t it = info->solve.iterations, nc = c->ncon - c->nlimit, off = (int32_t)rec_rows(s->c_depth);
  int32_t nl = c->nlimit, loff = (int32_t)rec_rows(s->l_gap);
  uint8_t cv = (uint8_t)(nc == 0 || info->solve.converged);
  csim_status st = CSIM_OK;
  if (!st) st = rec_append(s->time, &t, err);
  if (!st) st = rec_append(s->q, q0, err);
  if (!st) st = rec_append(s->v, v0, err);
  if (!st) st = rec_append(s->ek, &info->kinetic, err);
  if (!st) st = rec_append(s->ep, &info->potential, err);
  if (!st) st = rec_append(s->et, &et, err);
  if (!st) st = rec_append(s->ework, &info->work, err);
  if (!st) st = rec_append(s->einj, &info->injected, err);
  if (!st) st = rec_append(s->l_count, &nl, err);
  if (!st) st = rec_append(s->l_offset, &loff, err);
  for (int i = nc; i < c->ncon && !st; i++) {
    const coll_contact* k = &c->con[i];
    int32_t jnt = k->geom2, side = k->feature;
    double gap = -k->depth, fl = c->lambda[3 * i + 2] / dt;
    if (!st) st = rec_append(s->l_joint, &jnt, err);
    if (!st) st = rec_append(s->l_side, &side, err);
    if (!st) st = rec_append(s->l_gap, &gap, err);
    if (!st) st = rec_append(s->l_force, &fl, err);
  }
  if (!st) st = rec_append(s->eps, &info->solve.eps_abs, err);
  if (!st) st = rec_append(s->primal, &info->solve.eps_p, err);
  if (!st) st = rec_append(s->dual, &info->solve.eps_d, err);
  if (!st) st = rec_append(s->compl, &info->solve.eps_c, err);
  if (!st) st = rec_append(s->iters, &it, err);
  if (!st) st = rec_append(s->conv, &cv, err);
  if (!st) st = rec_append(s->t_step, &info->t_step, err);
  if (!st) st = rec_append(s->t_coll, &info->t_collision, err);
  if (!st) st = rec_append(s->t_dyn, &info->t_dynamics, err);
  if (!st) st = rec_append(s->t_solve, &info->t_solve, err);
  int32_t nred = info->nreduced, nred_t = info->nreduced_touch;
  if (!st) st = rec_append(s->c_count, &nc, err);
  if (!st) st = rec_append(s->c_reduced, &nred, err);
  if (!st) st = rec_append(s->c_reduced_touch, &nred_t, err);
  if (!st) st = rec_append(s->c_offset, &off, err);
  for (int i = 0; i < nc && !st; i++) {
    const coll_contact* k = &c->con[i];
    int32_t bodies[2] = {c->body1[i], c->body2[i]}, id[3] = {k->geom1, k->geom2, k->feature};
    double f[3] = {c->lambda[3 * i] / dt, c->lambda[3 * i + 1] / dt, c->lambda[3 * i + 2] / dt};
    if (!st) st = rec_append(s->c_body, bodies, err);
    if (!st) st = rec_append(s->c_point, k->pos, err);
    if (!st) st = rec_append(s->c_normal, k->normal, err);
    if (!st) st = rec_append(s->c_depth, &k->depth, err);
    if (!st) st = rec_append(s->c_force, f, err);
    if (!st) st = rec_append(s->c_vel, c->cvel + 3 * i, err);
    if (!st) st = rec_append(s->c_frame, c->frame + 9 * i, err);
    if (!st) st = rec_append(s->c_id, id, err);
  }
  return st;
}

// running statistics for the summary
typedef struct {
  long steps, nonconv;
  double eps_sum, eps_max, it_sum, con_sum, e0, e1, wall, lim_sum, red_sum, redt_sum;
  int it_max, con_max, lim_max, red_max, redt_max;
} run_stats;

static void print_summary(FILE* f, const scn_config* cfg, const sim* S, const run_stats* r,
                          const char* out, const char* status) {
  double simt = (double)r->steps * cfg->dt;
  long n = r->steps > 0 ? r->steps : 1;
  fprintf(f, "csim run: %s — %s\n", cfg->name, status);
  fprintf(f, "  model %s, solver %s, dt %g s, tolerance %g (%s)\n",
          scn_contact_model_names[cfg->model], scn_solver_names[cfg->solver], cfg->dt,
          cfg->tolerance, scn_tolerance_units_names[cfg->tolerance_units]);
  if (S->cmpl)  // compliant laws: the integrator's Newton iteration replaces the solver
    fprintf(f, "  compliant: integrator %s, newton tolerance %g, max iterations %d; steps retaken "
            "in substeps %d (iterations below are Newton's)\n", scn_integrator_names[cfg->scheme],
            cfg->newton_tolerance, cfg->newton_max_iterations, S->cmpl->nsubstepped);
  fprintf(f, "  dofs nq %d, nv %d; bodies %d; geometries %d\n", S->m->nq, S->m->nv,
          S->m->nbody - 1, S->m->ngeom);
  fprintf(f, "  steps %ld, simulated %.4g s, wall %.4g s, real-time factor %.1f, %.2f us/step\n",
          r->steps, simt, r->wall, r->wall > 0 ? simt / r->wall : 0,
          1e6 * r->wall / (double)n);
  fprintf(f, "  eps_abs mean %.3g, max %.3g; iterations mean %.1f, max %d; non-converged steps %ld\n",
          r->eps_sum / (double)n, r->eps_max, r->it_sum / (double)n, r->it_max, r->nonconv);
  fprintf(f, "  contacts mean %.2f, max %d; joint limits active mean %.2f, max %d%s; "
          "implicit-midpoint iterations mean %.2f per step\n",
          r->con_sum / (double)n, r->con_max, r->lim_sum / (double)n, r->lim_max,
          cfg->limits_enabled ? "" : " (limits.enabled: false)",
          (double)S->midpoint_its / (double)n);
  if (cfg->patch_angle > 0)  // the contacts collision found beyond those solved (never hidden)
    fprintf(f, "  patch reduction dropped mean %.2f, max %d contacts per step, of them touching mean "
            "%.2f, max %d (contact.patch_angle %g rad, patch_max %d)\n", r->red_sum / (double)n,
            r->red_max, r->redt_sum / (double)n, r->redt_max, cfg->patch_angle, cfg->patch_max);
  else
    fprintf(f, "  patch reduction off (contact.patch_angle 0): no contact dropped\n");
  fprintf(f, "  contact buffers hold %d contacts (%.1f MiB, simulation data %.1f MiB; "
          "contact.memory_budget %g MiB)\n", S->maxgeom, (double)S->buffer_bytes / SIM_MIB,
          (double)S->data_bytes / SIM_MIB, cfg->memory_budget);
  if (S->island_rows < S->island_rows_worst)  // the dense island work was cut to the budget
    fprintf(f, "  dense solver work holds islands of up to %d rows (3 per contact, or an ADMM "
            "island's dofs); an island of every contact could need %d\n", S->island_rows,
            S->island_rows_worst);
  fprintf(f, "  energy: start %.6g J, end %.6g J, drift %.3g J; work of actions %.4g J, "
          "injected %.3g J (largest gain %.3g J)\n", r->e0, r->e1, r->e1 - r->e0,
          S->energy.work, S->energy.injected, S->energy.rise_max);
  if (S->energy.flagged)
    fprintf(f, "  warning: energy gained from nowhere: %.4g J beyond the work of actions by step "
            "%ld (t = %.6g s), above integrator.energy_tolerance %g of the energy scale\n",
            S->energy.flag_gain, S->energy.flag_step, S->energy.flag_time, cfg->energy_tolerance);
  for (int w = 0; w < SIM_NWARN; w++)
    if (S->warnings[w]) fprintf(f, "  warning: %s on %d steps\n", sim_warning_names[w], S->warnings[w]);
  fprintf(f, "  arena peak %zu of %zu bytes\n", S->d->arena_peak, S->d->arena_size);
  fprintf(f, "  output: %s\n", out);
}

// output.dump_steps: write step k's contact problem (G, g, mu, R, and the impulses found as
// /solution/r) in FCLib local format to <output without .h5>_step<k>.hdf5, for `csim solve`
static csim_status dump_problem(const sim* S, const char* out, long k, int quiet, csim_error* err) {
  int listed = 0;
  for (int i = 0; i < S->cfg->ndump_steps; i++) listed |= S->cfg->dump_steps[i] == k;
  if (!listed) return CSIM_OK;
  size_t n = strlen(out);
  if (n > 3 && !strcmp(out + n - 3, ".h5")) n -= 3;
  char path[1100], desc[512];
  snprintf(path, sizeof(path), "%.*s_step%ld.hdf5", (int)(n < 1000 ? n : 1000), out, k);
  snprintf(desc, sizeof(desc), "csim %s run of scenario '%s', step %ld (t = %.9g s): contact "
           "model %s, solver %s, tolerance %g; /solution/r holds the impulses it found",
           CSIM_VERSION, S->cfg->name, k, (double)k * S->cfg->dt,
           scn_contact_model_names[S->cfg->model], scn_solver_names[S->cfg->solver],
           S->cfg->tolerance);
  solver_problem p = contact_problem(S->con);
  csim_status st = fclib_write_local(path, &p, S->con->lambda, FCLIB_CSR, "csim contact problem",
                                     desc, err);
  if (st == CSIM_OK && !quiet)
    printf("csim run: step %ld contact problem (%d contacts) written to %s\n", k, p.nc, path);
  return st;
}

static int run_one(const char* path, const char* const* sets, int nset, const char* outp, int quiet,
                   int skip_complete);

// scenario paths of one csim run invocation (argv entries are borrowed, --batch lines owned)
typedef struct {
  char** v;
  unsigned char* owned;
  int n, cap;
} run_list;

static int list_add(run_list* l, const char* p, int copy) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char** v = realloc(l->v, sizeof(char*) * (size_t)cap);
    if (!v) return 1;
    l->v = v;
    unsigned char* o = realloc(l->owned, (size_t)cap);
    if (!o) return 1;
    l->owned = o;
    l->cap = cap;
  }
  char* s = copy ? strdup(p) : (char*)p;
  if (!s) return 1;
  l->v[l->n] = s;
  l->owned[l->n++] = (unsigned char)copy;
  return 0;
}

static void list_free(run_list* l) {
  for (int i = 0; i < l->n; i++)
    if (l->owned[i]) free(l->v[i]);
  free(l->v);
  free(l->owned);
}

// --batch LIST: one scenario path per line; returns 0, or 1 after printing the problem
static int read_batch(const char* file, run_list* l) {
  FILE* f = fopen(file, "r");
  if (!f) {
    fprintf(stderr, "csim: error: run: --batch %s: cannot open: %s\n", file, strerror(errno));
    return 1;
  }
  char line[4096];
  int ln = 0, bad = 0;
  while (!bad && fgets(line, sizeof(line), f)) {
    ln++;
    size_t n = strlen(line);
    if (n == sizeof(line) - 1 && line[n - 1] != '\n') {
      fprintf(stderr, "csim: error: run: --batch %s:%d: line longer than %zu characters\n", file,
              ln, sizeof(line) - 2);
      bad = 1;
      break;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = 0;
    char* s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s && *s != '#') bad = list_add(l, s, 1);
  }
  if (!bad && ferror(f)) {
    fprintf(stderr, "csim: error: run: --batch %s: read error\n", file);
    bad = 1;
  }
  fclose(f);
  return bad;
}

// --log-dir: point stdout and stderr at DIR/STEM.log for one scenario; saved gets the old fds
static int log_begin(const char* dir, const char* scenario, int saved[2]) {
  const char* b = strrchr(scenario, '/');
  b = b ? b + 1 : scenario;
  size_t n = strlen(b);
  if (n > 5 && !strcmp(b + n - 5, ".yaml")) n -= 5;
  else if (n > 4 && !strcmp(b + n - 4, ".yml")) n -= 4;
  char path[4096];
  if (snprintf(path, sizeof(path), "%s/%.*s.log", dir, (int)n, b) >= (int)sizeof(path)) {
    fprintf(stderr, "csim: error: run: --log-dir: path too long for %s\n", scenario);
    return 1;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);  // a resumed point keeps its history
  if (fd < 0) {
    fprintf(stderr, "csim: error: run: --log-dir: cannot create %s: %s\n", path, strerror(errno));
    return 1;
  }
  fflush(stdout);
  fflush(stderr);
  saved[0] = dup(STDOUT_FILENO);
  saved[1] = dup(STDERR_FILENO);
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  close(fd);
  return 0;
}

// end of one scenario's attempt in its log: its exit status, then the old stdout and stderr back
static void log_end(int rc, const int saved[2]) {
  printf("csim run: exit status %d\n", rc);
  fflush(stdout);
  fflush(stderr);
  for (int k = 0; k < 2; k++) {
    if (saved[k] < 0) continue;
    dup2(saved[k], k == 0 ? STDOUT_FILENO : STDERR_FILENO);
    close(saved[k]);
  }
}

int cli_run(int argc, char** argv) {
  const char* outp = NULL;
  const char* logdir = NULL;
  int quiet = 0, nset = 0, skip_complete = 0;
  run_list paths = {NULL, 0, 0, 0};
  const char** sets = calloc((size_t)argc + 1, sizeof(char*));
  if (!sets) return CSIM_ERR_RUN;
  int bad = 0;
  for (int i = 0; i < argc && !bad; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(kRunUsage, stdout);
      free(sets);
      return CSIM_OK;
    } else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
      sets[nset++] = argv[++i];
    } else if (!strncmp(argv[i], "--set=", 6)) {
      sets[nset++] = argv[i] + 6;
    } else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
      bad = read_batch(argv[++i], &paths);
    } else if (!strcmp(argv[i], "--skip-complete")) {
      skip_complete = 1;
    } else if (!strcmp(argv[i], "--log-dir") && i + 1 < argc) {
      logdir = argv[++i];
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      outp = argv[++i];
    } else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
      quiet = 1;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "csim: error: run: unexpected argument '%s'\n%s", argv[i], kRunUsage);
      bad = 1;
    } else {
      bad = list_add(&paths, argv[i], 0);
    }
  }
  if (!bad && paths.n == 0) {
    fprintf(stderr, "csim: error: run: missing SCENARIO.yaml\n%s", kRunUsage);
    bad = 1;
  }
  if (!bad && outp && paths.n > 1) {
    fprintf(stderr, "csim: error: run: --out names one file but %d scenarios were given: set "
            "output.path in each scenario instead\n", paths.n);
    bad = 1;
  }
  int rc = bad ? CSIM_ERR_INPUT : CSIM_OK;
  for (int k = 0; k < paths.n && !bad; k++) {
    int saved[2] = {-1, -1};
    if (logdir && log_begin(logdir, paths.v[k], saved) != 0) {
      rc = CSIM_ERR_INPUT;  // the log directory is unusable: every scenario would fail alike
      break;
    }
    int rk = run_one(paths.v[k], sets, nset, outp, quiet, skip_complete);
    if (logdir) log_end(rk, saved);
    if (rk > rc) rc = rk;   // 2 (bad input) > 1 (run failed) > 0
    if (intr_requested()) break;  // interrupted: the rest of the batch is not started
  }
  list_free(&paths);
  free(sets);
  return rc;
}

// one scenario: load, simulate, record, summarise; returns its exit code
static int run_one(const char* path, const char* const* sets, int nset, const char* outp, int quiet,
                   int skip_complete) {
  csim_error err;
  err_clear(&err);
  scn_config* cfg = NULL;
  sim* S = NULL;
  rec_file* f = NULL;
  int rc = CSIM_OK;
  if (scn_load(path, sets, nset, &cfg, &err) != CSIM_OK) {
    err_print(&err, stderr);
    return CSIM_ERR_INPUT;
  }
  const char* out = outp ? outp : cfg->output_path;
  if (skip_complete && mrg_output_complete(out)) {  // resumed sweeps: done before, not rerun
    if (!quiet) printf("csim run: %s — skipped: %s is complete\n", cfg->name, out);
    scn_free(cfg);
    return CSIM_OK;
  }
  csim_status st = sim_create(cfg, &S, &err);
  if (st != CSIM_OK) {
    err_print(&err, stderr);
    scn_free(cfg);
    return st;
  }
  // a run that would write more than RUN_WARN_BYTES says so before it starts
  {
    double rows = floor(cfg->duration / cfg->dt / cfg->output_every) + 1;
    double bytes = rows * (8.0 * (S->m->nq + S->m->nv) + 8 * 13 + 4 * 3 + 1);
    if (bytes > RUN_WARN_BYTES)  // also with --quiet: a warning is not progress
      fprintf(stderr, "csim: warning: %s: about %.3g GB of output (%.3g rows, contacts not "
              "counted): raise output.every or shorten integrator.duration if unintended\n",
              out, bytes / 1e9, rows);
  }
  // signals end the run cleanly with a readable, incomplete file; installed before the file
  // exists, so a signal during its set-up cannot leave it unmarked (killed by the default action)
  intr_install();
  // the output file is created only once the input is known to be good
  run_sets ds;
  memset(&ds, 0, sizeof(ds));
  st = rec_open(out, &f, &err);
  // a short run's datasets in one chunk each, not ~64 KB each (sweeps of short points: README)
  long rows_expected = (long)llround(cfg->duration / cfg->dt) / cfg->output_every + 1;
  if (!st && rows_expected < 512) st = rec_set_chunk_rows(f, rows_expected < 64 ? 64 : (size_t)rows_expected, &err);
  if (!st) st = attributes(f, cfg, S->m, &err);
  if (!st) st = declare(f, S->m, &ds, &err);
  if (!st && S->cmpl) st = cmpl_record_declare(S->cmpl, f, &err);  // /compliant datasets
  if (st != CSIM_OK) {
    err_print(&err, stderr);
    if (f) rec_close(f, 0, "could not set up the output", NULL);
    intr_restore();
    sim_free(S);
    scn_free(cfg);
    return st;
  }

  long nsteps = (long)llround(cfg->duration / cfg->dt);
  int nq = S->m->nq, nv = S->m->nv;
  double* q0 = calloc((size_t)nq + 1, sizeof(double));
  double* v0 = calloc((size_t)nv + 1, sizeof(double));
  int progress = !quiet && isatty(STDERR_FILENO);
  run_stats r;
  memset(&r, 0, sizeof(r));
  char failure[2048] = "";
  double w0 = wall();
  double last_flush = w0;
  for (long k = 0; k < nsteps; k++) {
    if (intr_requested()) {
      snprintf(failure, sizeof(failure), "interrupted by %s at step %ld",
               intr_requested() == SIGINT ? "SIGINT" : "SIGTERM", k);
      rc = CSIM_ERR_RUN;
      break;
    }
    memcpy(q0, S->d->q, sizeof(double) * (size_t)nq);
    memcpy(v0, S->d->v, sizeof(double) * (size_t)nv);
    double t = S->d->time;
    sim_stepinfo info;
    memset(&info, 0, sizeof(info));
    st = sim_step(S, &info, &err);
    if (st != CSIM_OK) {
      char buf[1200];
      err_format(&err, buf, sizeof(buf));
      snprintf(failure, sizeof(failure), "%s", buf);
      rc = CSIM_ERR_RUN;
      break;
    }
    // a signal inside the step cut its solve short: the step is not recorded
    if (intr_requested()) {
      snprintf(failure, sizeof(failure), "interrupted by %s during step %ld",
               intr_requested() == SIGINT ? "SIGINT" : "SIGTERM", k);
      rc = CSIM_ERR_RUN;
      break;
    }
    if (dump_problem(S, out, k, quiet, &err) != CSIM_OK) {
      char buf[1200];
      err_format(&err, buf, sizeof(buf));
      snprintf(failure, sizeof(failure), "output.dump_steps: %s", buf);
      rc = CSIM_ERR_RUN;
      break;
    }
    // statistics
    double et = info.kinetic + info.potential;
    if (k == 0) r.e0 = et;
    r.e1 = et;
    r.steps++;
    double eps = info.ncon ? info.solve.eps_abs : 0;
    r.eps_sum += eps;
    if (eps > r.eps_max) r.eps_max = eps;
    r.it_sum += info.solve.iterations;
    if (info.solve.iterations > r.it_max) r.it_max = info.solve.iterations;
    r.con_sum += info.ncon;
    if (info.ncon > r.con_max) r.con_max = info.ncon;
    r.red_sum += info.nreduced;
    if (info.nreduced > r.red_max) r.red_max = info.nreduced;
    r.redt_sum += info.nreduced_touch;
    if (info.nreduced_touch > r.redt_max) r.redt_max = info.nreduced_touch;
    r.lim_sum += info.nlimit;
    if (info.nlimit > r.lim_max) r.lim_max = info.nlimit;
    if (info.ncon && !info.solve.converged) r.nonconv++;
    if (k % cfg->output_every == 0) {
      st = record_row(&ds, S, q0, v0, t, &info, &err);
      if (!st && S->cmpl) st = cmpl_record_row(S->cmpl, S->con, &err);
      rec_step(f);
      // periodic flush: a killed run keeps every row up to here (output.flush_every)
      if (!st && wall() - last_flush >= cfg->flush_every) {
        st = rec_flush(f, &err);
        last_flush = wall();
      }
      if (st != CSIM_OK) {
        char buf[1200];
        err_format(&err, buf, sizeof(buf));
        snprintf(failure, sizeof(failure), "output error at step %ld: %s", k, buf);
        rc = CSIM_ERR_RUN;
        break;
      }
    }
    if (info.ncon && !info.solve.converged && cfg->on_failure == SCN_FAIL_STOP && S->cmpl) {
      snprintf(failure, sizeof(failure),  // compliant: the integrator's Newton iteration
               "Newton did not converge at step %ld (t = %.6g s): residual %.3g > "
               "integrator.newton_tolerance %.3g after %d iterations (solver.on_failure: stop)",
               k, t, info.solve.residual, cfg->newton_tolerance, info.solve.iterations);
      rc = CSIM_ERR_RUN;
      break;
    }
    if (info.ncon && !info.solve.converged && cfg->on_failure == SCN_FAIL_STOP) {
      snprintf(failure, sizeof(failure),
               "solver did not converge at step %ld (t = %.6g s): eps_abs %.3g N s > tolerance %.3g "
               "N s after %d iterations (solver.on_failure: stop)",
               k, t, info.solve.eps_abs,
               cfg->tolerance * (cfg->tolerance_units == SCN_TOL_FORCE ? cfg->dt : 1.0),
               info.solve.iterations);
      rc = CSIM_ERR_RUN;
      break;
    }
    if (progress && (k % 200 == 0 || k + 1 == nsteps)) {
      fprintf(stderr, "\r  step %ld/%ld  t = %.3f s  contacts %d  eps %.2e   ", k + 1, nsteps,
              S->d->time, info.ncon, eps);
      fflush(stderr);
    }
  }
  r.wall = wall() - w0;
  if (progress) fputc('\n', stderr);
  intr_restore();

  // the energy audit of the final state, and its findings as root attributes
  if (rc == CSIM_OK && sim_finish(S, &err) != CSIM_OK) {
    char buf[1200];
    err_format(&err, buf, sizeof(buf));
    snprintf(failure, sizeof(failure), "%s", buf);
    rc = CSIM_ERR_RUN;
  }
  {
    const sim_energy* e = &S->energy;
    csim_error aerr;
    err_clear(&aerr);
    csim_status ast = rec_attr_int(f, NULL, "energy_gain_flagged", e->flagged, &aerr);
    if (!ast) ast = rec_attr_int(f, NULL, "energy_gain_step", (int)e->flag_step, &aerr);
    if (!ast) ast = rec_attr_double(f, NULL, "energy_gain_time", e->flagged ? e->flag_time : -1, &aerr);
    if (!ast) ast = rec_attr_double(f, NULL, "energy_gain_max", e->rise_max, &aerr);
    if (!ast) ast = rec_attr_double(f, NULL, "energy_work", e->work, &aerr);
    if (!ast) ast = rec_attr_double(f, NULL, "energy_injected", e->injected, &aerr);
    if (!ast) ast = rec_attr_double(f, NULL, "energy_tolerance", cfg->energy_tolerance, &aerr);
    if (ast) err_print(&aerr, stderr);
  }

  // close: complete = 1 only when every step ran
  csim_error cerr;
  err_clear(&cerr);
  // for csim merge: the run's exit status, step count and wall time (best effort: a failed
  // attribute write is reported by rec_close's flush below)
  if (rec_attr_int(f, NULL, "exit_status", rc, &cerr) == CSIM_OK &&
      rec_attr_int(f, NULL, "steps", (int)r.steps, &cerr) == CSIM_OK)
    rec_attr_double(f, NULL, "wall_time", r.wall, &cerr);
  err_clear(&cerr);
  if (rec_close(f, rc == CSIM_OK, rc == CSIM_OK ? NULL : failure, &cerr) != CSIM_OK) {
    err_print(&cerr, stderr);
    if (rc == CSIM_OK) rc = CSIM_ERR_RUN;
  }
  if (rc != CSIM_OK) fprintf(stderr, "csim: error: %s\n", failure[0] ? failure : "output error");
  if (!quiet) print_summary(stdout, cfg, S, &r, out, rc == CSIM_OK ? "complete" : "FAILED");
  free(q0);
  free(v0);
  sim_free(S);
  scn_free(cfg);
  return rc;
}

int cli_compare(int argc, char** argv) {
  const char* files[2] = {NULL, NULL};
  int nf = 0;
  cmp_options opt;
  cmp_options_default(&opt);
  const char** only = calloc((size_t)argc + 1, sizeof(char*));
  if (!only) return CSIM_ERR_RUN;
  int nonly = 0;
  for (int i = 0; i < argc; i++) {
    char* end = NULL;
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(kCompareUsage, stdout);
      free(only);
      return 0;
    } else if ((!strcmp(argv[i], "--rtol") || !strcmp(argv[i], "--atol")) && i + 1 < argc) {
      double v = strtod(argv[i + 1], &end);
      if (!end || *end || !(v >= 0) || !isfinite(v)) {
        fprintf(stderr, "csim: error: compare: %s expects a number >= 0, found '%s'\n", argv[i],
                argv[i + 1]);
        free(only);
        return 2;
      }
      if (argv[i][2] == 'r') opt.rtol = v; else opt.atol = v;
      i++;
    } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      only[nonly++] = argv[++i];
    } else if (argv[i][0] == '-' || nf == 2) {
      fprintf(stderr, "csim: error: compare: unexpected argument '%s'\n%s", argv[i], kCompareUsage);
      free(only);
      return 2;
    } else {
      files[nf++] = argv[i];
    }
  }
  if (nf != 2) {
    fprintf(stderr, "csim: error: compare: two files expected\n%s", kCompareUsage);
    free(only);
    return 2;
  }
  opt.only = nonly ? only : NULL;
  opt.nonly = nonly;
  csim_error err;
  err_clear(&err);
  int rc = cmp_files(files[0], files[1], &opt, stdout, &err);
  if (rc == 2) err_print(&err, stderr);
  free(only);
  return rc;
}
