// run.c — one scenario run: the step loop, its failure policy, the summary (run.h).
#include "run/run.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/interrupt.h"
#include "core/sim.h"
#include "core/solvers/solver.h"
#include "io/compile.h"
#include "io/scenario.h"
#include "out/merge.h"
#include "out/output.h"

// output size (bytes, contacts not counted) above which a run warns before starting
#define RUN_WARN_BYTES 1e9

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// running statistics for the summary
typedef struct {
  long steps, nonconv, isl_sum, sw_sum, sw_steps, resc_sum, resc_steps;
  double eps_sum, eps_max, it_sum, con_sum, e0, e1, wall, lim_sum, red_sum, redt_sum;
  int it_max, con_max, lim_max, red_max, redt_max;
} run_stats;

static void print_summary(FILE* f, const scn_config* cfg, const sim* S, const run_stats* r,
                          const char* out, const char* status) {
  double simt = (double)r->steps * cfg->dt;
  const step_model* M = &S->model;
  const step_data* D = &S->data;
  long n = r->steps > 0 ? r->steps : 1;
  fprintf(f, "csim run: %s — %s\n", cfg->name, status);
  fprintf(f, "  model %s, solver %s, dt %g s, tolerance %g (%s)\n",
          csim_model_names[cfg->model], csim_solver_names[cfg->solver], cfg->dt,
          cfg->tolerance, csim_tolerance_units_names[cfg->tolerance_units]);
  if (!D->cmpl && cfg->solver == CSIM_SOLVER_AUTO &&
      solver_model_kind(cfg->model, 1) == CSIM_SOLVER_NONE)
    fprintf(f, "  auto: %s, the model's only solver\n",
            csim_solver_names[solver_model_kind(cfg->model, 0)]);
  else if (!D->cmpl && cfg->solver == CSIM_SOLVER_AUTO && S->opt.solver.soft)  // soft ccp
    fprintf(f, "  auto: newton solved %ld islands (MuJoCo softness on every row), %s %ld (on %ld "
            "steps: an island newton does not take)\n", r->isl_sum - r->sw_sum,
            csim_solver_names[S->opt.contact.pyramidal ? solver_model_kind(cfg->model, 0)
                                                      : solver_model_kind(cfg->model, 1)],
            r->sw_sum, r->sw_steps);
  else if (!D->cmpl && cfg->solver == CSIM_SOLVER_AUTO)  // what auto chose (auto.c)
    fprintf(f, "  auto: %s solved %ld islands, %s %ld (on %ld steps: a coupled island, or "
            "%s stalled)\n", csim_solver_names[solver_model_kind(cfg->model, 0)],
            r->isl_sum - r->sw_sum, csim_solver_names[solver_model_kind(cfg->model, 1)],
            r->sw_sum, r->sw_steps, csim_solver_names[solver_model_kind(cfg->model, 0)]);
  if (!D->cmpl && cfg->solver == CSIM_SOLVER_AUTO && r->resc_sum > 0)  // auto.c third_pass
    fprintf(f, "  auto: newton's answer kept on %ld islands (on %ld steps: %s and %s both above "
            "the tolerance)\n", r->resc_sum, r->resc_steps,
            csim_solver_names[solver_model_kind(cfg->model, 0)],
            csim_solver_names[solver_model_kind(cfg->model, 1)]);
  if (D->cmpl)  // compliant laws: the integrator's Newton iteration replaces the solver
    fprintf(f, "  compliant: integrator %s, newton tolerance %g, max iterations %d; steps retaken "
            "in substeps %d (iterations below are Newton's)\n", csim_scheme_names[cfg->scheme],
            cfg->newton_tolerance, cfg->newton_max_iterations, D->cmpl->nsubstepped);
  if (D->cmpl)  // work as 001 Sec. IV-A counts it
    fprintf(f, "  work: dynamics evaluations %ld, Jacobian evaluations %ld, factorizations %ld "
            "(jacobian %s)\n", D->cmpl->work[0], D->cmpl->work[1], D->cmpl->work[2],
            csim_jacobian_names[cfg->jacobian]);
  if (D->cmpl && cfg->accuracy > 0)
    fprintf(f, "  error control: accuracy %g, substeps %.3g to %.3g s, rejected %ld\n",
            cfg->accuracy, D->cmpl->h_min, D->cmpl->h_max, D->cmpl->nrejected);
  fprintf(f, "  dofs nq %d, nv %d; bodies %d; geometries %d\n", M->m->nq, M->m->nv,
          M->m->nbody - 1, M->m->ngeom);
  fprintf(f, "  steps %ld, simulated %.4g s, wall %.4g s, real-time factor %.1f, %.2f us/step\n",
          r->steps, simt, r->wall, r->wall > 0 ? simt / r->wall : 0,
          1e6 * r->wall / (double)n);
  fprintf(f, "  eps_abs mean %.3g, max %.3g; iterations mean %.1f, max %d; non-converged steps %ld\n",
          r->eps_sum / (double)n, r->eps_max, r->it_sum / (double)n, r->it_max, r->nonconv);
  fprintf(f, "  contacts mean %.2f, max %d; joint limits active mean %.2f, max %d%s; "
          "implicit-midpoint iterations mean %.2f per step\n",
          r->con_sum / (double)n, r->con_max, r->lim_sum / (double)n, r->lim_max,
          cfg->limits_enabled ? "" : " (limits.enabled: false)",
          (double)D->midpoint_its / (double)n);
  if (cfg->patch_angle > 0)  // the contacts collision found beyond those solved (never hidden)
    fprintf(f, "  patch reduction dropped mean %.2f, max %d contacts per step, of them touching mean "
            "%.2f, max %d (contact.patch_angle %g rad, patch_max %d)\n", r->red_sum / (double)n,
            r->red_max, r->redt_sum / (double)n, r->redt_max, cfg->patch_angle, cfg->patch_max);
  else
    fprintf(f, "  patch reduction off (contact.patch_angle 0): no contact dropped\n");
  fprintf(f, "  contact buffers hold %d contacts (%.1f MiB, simulation data %.1f MiB; "
          "contact.memory_budget %g MiB)\n", M->maxgeom, (double)M->buffer_bytes / SIM_MIB,
          (double)M->data_bytes / SIM_MIB, cfg->memory_budget);
  if (M->island_rows < M->island_rows_worst)  // the dense island work was cut to the budget
    fprintf(f, "  dense solver work holds islands of up to %d rows (3 per contact, or an ADMM "
            "island's dofs); an island of every contact could need %d\n", M->island_rows,
            M->island_rows_worst);
  fprintf(f, "  energy: start %.6g J, end %.6g J, drift %.3g J; work of actions %.4g J, "
          "injected %.3g J (largest gain %.3g J)\n", r->e0, r->e1, r->e1 - r->e0,
          D->energy.work, D->energy.injected, D->energy.rise_max);
  if (D->energy.flagged)
    fprintf(f, "  warning: energy gained from nowhere: %.4g J beyond the work of actions by step "
            "%ld (t = %.6g s), above integrator.energy_tolerance %g of the energy scale\n",
            D->energy.flag_gain, D->energy.flag_step, D->energy.flag_time, cfg->energy_tolerance);
  // controllers: instants run, and those whose torques the effort limits clamped (control.h)
  for (int i = 0; i < M->nctl; i++) {
    const ctl_data* cd = &D->ctl[i];
    fprintf(f, "  controller %s (%s): %ld control instants, solve time mean %.3g us\n",
            M->ctl[i].info.controller, M->ctl[i].api->name, cd->instant,
            cd->instant ? 1e6 * cd->solve_time_sum / (double)cd->instant : 0.0);
    if (D->ctl[i].nclamped)
      fprintf(f, "  warning: controller %s: torques clamped to the effort limits at %ld instants\n",
              M->ctl[i].info.controller, D->ctl[i].nclamped);
  }
  for (int w = 0; w < SIM_NWARN; w++)
    if (D->warnings[w])
      fprintf(f, "  warning: %s on %d steps\n", sim_warning_names[w], D->warnings[w]);
  fprintf(f, "  arena peak %zu of %zu bytes\n", D->d->arena_peak, D->d->arena_size);
  fprintf(f, "  output: %s\n", out);
}

// add one step to the statistics
static void stats_add(run_stats* r, const sim_stepinfo* info, long k) {
  double et = info->kinetic + info->potential;
  if (k == 0) r->e0 = et;
  r->e1 = et;
  r->steps++;
  double eps = info->ncon ? info->solve.eps_abs : 0;
  r->eps_sum += eps;
  if (eps > r->eps_max) r->eps_max = eps;
  r->it_sum += info->solve.iterations;
  if (info->solve.iterations > r->it_max) r->it_max = info->solve.iterations;
  r->con_sum += info->ncon;
  if (info->ncon > r->con_max) r->con_max = info->ncon;
  r->red_sum += info->nreduced;
  if (info->nreduced > r->red_max) r->red_max = info->nreduced;
  r->redt_sum += info->nreduced_touch;
  if (info->nreduced_touch > r->redt_max) r->redt_max = info->nreduced_touch;
  r->lim_sum += info->nlimit;
  if (info->nlimit > r->lim_max) r->lim_max = info->nlimit;
  if (info->ncon && !info->solve.converged) r->nonconv++;
  r->isl_sum += info->solve.islands;
  r->sw_sum += info->solve.switched;
  r->sw_steps += info->solve.switched > 0;
  r->resc_sum += info->solve.rescued;
  r->resc_steps += info->solve.rescued > 0;
}

// solver.on_failure: stop ends the run at a step whose solve (or compliant Newton iteration)
// did not converge; returns 1 with failure set then
static int stop_on_failure(const scn_config* cfg, const sim* S, const sim_stepinfo* info,
                           long k, double t, char* failure, size_t n) {
  if (!info->ncon || info->solve.converged || cfg->on_failure != CSIM_FAIL_STOP) return 0;
  if (S->data.cmpl)  // compliant: the integrator's Newton iteration
    snprintf(failure, n, "Newton did not converge at step %ld (t = %.6g s): residual %.3g > "
             "integrator.newton_tolerance %.3g after %d iterations (solver.on_failure: stop)",
             k, t, info->solve.residual, cfg->newton_tolerance, info->solve.iterations);
  else
    snprintf(failure, n, "solver did not converge at step %ld (t = %.6g s): eps_abs %.3g N s > "
             "tolerance %.3g N s after %d iterations (solver.on_failure: stop)", k, t,
             info->solve.eps_abs,
             cfg->tolerance * (cfg->tolerance_units != CSIM_TOL_IMPULSE ? cfg->dt : 1.0),
             info->solve.iterations);
  return 1;
}

// the failure message of an error
static void failure_of(const csim_error* err, const char* prefix, char* failure, size_t n) {
  char buf[1200];
  err_format(err, buf, sizeof(buf));
  snprintf(failure, n, "%s%s", prefix, buf);
}

// everything a run's loop works with
typedef struct {
  const scn_config* cfg;
  const run_request* req;
  const char* out;
  sim* S;
  out_run o;
  run_stats r;
  long nsteps;              // steps of integrator.duration
  int progress;             // a progress line on stderr (not --quiet, a terminal): decided once
  char failure[2048];
} run_ctx;

// one step: the step itself, the problem dump, statistics, the row, the failure policy;
// returns 0 to go on, CSIM_ERR_RUN with x->failure set to stop
static int run_step(run_ctx* x, long k, double* q0, double* v0, double* last_flush) {
  sim* S = x->S;
  const scn_config* cfg = x->cfg;
  csim_error err;
  err_clear(&err);
  memcpy(q0, S->data.d->q, sizeof(double) * (size_t)S->model.m->nq);
  memcpy(v0, S->data.d->v, sizeof(double) * (size_t)S->model.m->nv);
  double t = S->data.d->time;
  sim_stepinfo info;
  memset(&info, 0, sizeof(info));
  if (sim_step(S, &info, &err) != CSIM_OK) {
    failure_of(&err, "", x->failure, sizeof(x->failure));
    return CSIM_ERR_RUN;
  }
  // a signal inside the step cut its solve short: the step is not recorded
  if (intr_requested()) {
    snprintf(x->failure, sizeof(x->failure), "interrupted by %s during step %ld",
             intr_requested() == SIGINT ? "SIGINT" : "SIGTERM", k);
    return CSIM_ERR_RUN;
  }
  if (out_dump_problem(S, cfg, x->out, k, x->req->quiet, &err) != CSIM_OK) {
    failure_of(&err, "output.dump_steps: ", x->failure, sizeof(x->failure));
    return CSIM_ERR_RUN;
  }
  stats_add(&x->r, &info, k);
  if (k % cfg->output_every == 0) {
    csim_status st = out_row(&x->o, S, q0, v0, t, &info, &err);
    // periodic flush: a killed run keeps every row up to here (output.flush_every)
    if (!st && wall() - *last_flush >= cfg->flush_every) {
      st = rec_flush(x->o.f, &err);
      *last_flush = wall();
    }
    if (st != CSIM_OK) {
      char prefix[64];
      snprintf(prefix, sizeof(prefix), "output error at step %ld: ", k);
      failure_of(&err, prefix, x->failure, sizeof(x->failure));
      return CSIM_ERR_RUN;
    }
  }
  if (stop_on_failure(cfg, S, &info, k, t, x->failure, sizeof(x->failure))) return CSIM_ERR_RUN;
  if (x->progress && (k % 200 == 0 || k + 1 == x->nsteps)) {
    fprintf(stderr, "\r  step %ld/%ld  t = %.3f s  contacts %d  eps %.2e   ", k + 1, x->nsteps,
            S->data.d->time, info.ncon, info.ncon ? info.solve.eps_abs : 0);
    fflush(stderr);
  }
  return CSIM_OK;
}

// the step loop: every step of integrator.duration unless a step fails or a signal arrives;
// then the energy audit of the final state
static int run_loop(run_ctx* x) {
  const scn_config* cfg = x->cfg;
  long nsteps = (long)llround(cfg->duration / cfg->dt);
  x->nsteps = nsteps;
  x->progress = !x->req->quiet && isatty(STDERR_FILENO);
  double* q0 = calloc((size_t)x->S->model.m->nq + 1, sizeof(double));
  double* v0 = calloc((size_t)x->S->model.m->nv + 1, sizeof(double));
  int rc = CSIM_OK;
  double w0 = wall(), last_flush = w0;
  for (long k = 0; k < nsteps && rc == CSIM_OK; k++) {
    if (intr_requested()) {
      snprintf(x->failure, sizeof(x->failure), "interrupted by %s at step %ld",
               intr_requested() == SIGINT ? "SIGINT" : "SIGTERM", k);
      rc = CSIM_ERR_RUN;
      break;
    }
    rc = run_step(x, k, q0, v0, &last_flush);
  }
  x->r.wall = wall() - w0;
  if (x->progress) fputc('\n', stderr);
  intr_restore();
  csim_error err;
  err_clear(&err);
  if (rc == CSIM_OK && sim_finish(x->S, &err) != CSIM_OK) {
    failure_of(&err, "", x->failure, sizeof(x->failure));
    rc = CSIM_ERR_RUN;
  }
  free(q0);
  free(v0);
  return rc;
}

// a run that would write more than RUN_WARN_BYTES says so before it starts
static void warn_size(const scn_config* cfg, const sim* S, const char* out) {
  double rows = floor(cfg->duration / cfg->dt / cfg->output_every) + 1;
  double bytes = rows * (8.0 * (S->model.m->nq + S->model.m->nv) + 8 * 13 + 4 * 3 + 1);
  if (bytes > RUN_WARN_BYTES)  // also with --quiet: a warning is not progress
    fprintf(stderr, "csim: warning: %s: about %.3g GB of output (%.3g rows, contacts not "
            "counted): raise output.every or shorten integrator.duration if unintended\n",
            out, bytes / 1e9, rows);
}

// the compiled run: output file, loop, closing, summary
static int run_compiled(run_ctx* x) {
  const scn_config* cfg = x->cfg;
  csim_error err;
  err_clear(&err);
  warn_size(cfg, x->S, x->out);
  // signals end the run cleanly with a readable, incomplete file; installed before the file
  // exists, so a signal during its set-up cannot leave it unmarked (killed by the default action)
  intr_install();
  long rows_expected = (long)llround(cfg->duration / cfg->dt) / cfg->output_every + 1;
  csim_status st = out_open(x->out, cfg, x->S, rows_expected, &x->o, &err);
  if (st != CSIM_OK) {
    err_print(&err, stderr);
    if (x->o.f) rec_close(x->o.f, 0, "could not set up the output", NULL);
    intr_restore();
    return st;
  }
  int rc = run_loop(x);
  if (out_close(&x->o, x->S, cfg, rc, x->r.steps, x->r.wall, x->failure) != CSIM_OK &&
      rc == CSIM_OK)
    rc = CSIM_ERR_RUN;
  if (rc != CSIM_OK)
    fprintf(stderr, "csim: error: %s\n", x->failure[0] ? x->failure : "output error");
  if (!x->req->quiet)
    print_summary(stdout, cfg, x->S, &x->r, x->out, rc == CSIM_OK ? "complete" : "FAILED");
  return rc;
}

int run_scenario(const char* path, const run_request* req) {
  csim_error err;
  err_clear(&err);
  scn_config* cfg = NULL;
  if (scn_load(path, req->sets, req->nset, &cfg, &err) != CSIM_OK) {
    err_print(&err, stderr);
    return CSIM_ERR_INPUT;
  }
  const char* out = req->out ? req->out : cfg->output_path;
  if (req->skip_complete && mrg_output_complete(out)) {  // resumed sweeps: done, not rerun
    if (!req->quiet) printf("csim run: %s — skipped: %s is complete\n", cfg->name, out);
    scn_free(cfg);
    return CSIM_OK;
  }
  run_ctx* x = calloc(1, sizeof(*x));
  if (!x) {
    scn_free(cfg);
    return CSIM_ERR_RUN;
  }
  x->cfg = cfg;
  x->req = req;
  x->out = out;
  csim_status st = sim_create(cfg, &x->S, &err);
  int rc = st;
  if (st != CSIM_OK) err_print(&err, stderr);
  else rc = run_compiled(x);
  sim_free(x->S);
  free(x);
  scn_free(cfg);
  return rc;
}
