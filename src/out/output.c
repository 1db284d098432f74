// output.c — the run file (output.h): the table of datasets, attributes, rows, closing.
#include "out/output.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/version.h"
#include "out/fclib.h"

static const struct {
  const char* path;
  rec_type type;
  int ncols;
  const char* units;
  out_when when;
  const char* desc;
} kSets[OUT_NDATASETS] = {
#define OUT_ROW(id, path, type, ncols, units, when, desc) {path, type, ncols, units, when, desc},
    OUT_DATASETS(OUT_ROW)
#undef OUT_ROW
};

// the controllers' joints and log channels, summed
static void control_sizes(const sim* S, int* nj, int* nlog) {
  *nj = *nlog = 0;
  for (int i = 0; i < S->model.nctl; i++) {
    *nj += S->model.ctl[i].info.njoint;
    *nlog += S->data.ctl[i].nlog;
  }
}

// the columns attribute of /control/tau or /control/log (controller/name, comma separated) or
// /timing/control (controller names)
typedef enum { COLS_TAU, COLS_LOG, COLS_TIMING } ctl_cols;

static csim_status control_columns(out_run* o, const sim* S, ctl_cols which, csim_error* err) {
  static const char* const paths[] = {"/control/tau", "/control/log", "/timing/control"};
  size_t n = 1;
  for (int pass = 0; pass < 2; pass++) {
    char* buf = pass ? calloc(n, 1) : NULL;
    if (pass && !buf) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
    size_t k = 0;
    for (int i = 0; i < S->model.nctl; i++) {
      const ctl_model* cm = &S->model.ctl[i];
      int m = which == COLS_LOG ? S->data.ctl[i].nlog
              : which == COLS_TAU ? cm->info.njoint : 1;
      for (int j = 0; j < m; j++) {
        const char* name = which == COLS_LOG ? S->data.ctl[i].log_names[j]
                           : which == COLS_TAU ? cm->info.joint_names[j] : "";
        size_t len = strlen(cm->info.controller) + strlen(name) + 3;
        if (pass)
          snprintf(buf + k, n - k, "%s%s%s%s", k ? ", " : "", cm->info.controller,
                   *name ? "/" : "", name);
        k += pass ? strlen(buf + k) : len;
      }
    }
    if (!pass) {
      n = k + 1;
      continue;
    }
    csim_status st = rec_attr_string(o->f, paths[which], "columns", buf, err);
    free(buf);
    return st;
  }
  return CSIM_OK;
}

// declare the datasets this run has, in table order
static csim_status declare(out_run* o, const sim* S, csim_error* err) {
  int nhist = S->data.cmpl ? S->data.cmpl->nhist : 0, nctlj, nlog;
  control_sizes(S, &nctlj, &nlog);
  if (S->model.nctl) {
    int n = nctlj > nlog ? nctlj : nlog;
    o->ctl_row = calloc((size_t)(n > S->model.nctl ? n : S->model.nctl) + 1, sizeof(double));
    if (!o->ctl_row) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  }
  for (int k = 0; k < OUT_NDATASETS; k++) {
    out_when w = kSets[k].when;
    int work = S->data.cmpl && (S->opt.cmpl.accuracy > 0 ||
                                S->opt.cmpl.jacobian == CSIM_JAC_QUASI_NEWTON);
    if ((w == OUT_COMPLIANT && !S->data.cmpl) || (w == OUT_HISTORY && nhist <= 0) ||
        (w == OUT_WORK && !work) ||
        (w == OUT_CONTROL && !S->model.nctl) || (w == OUT_CONTROL_LOG && nlog <= 0) ||
        (w == OUT_SPIN && model_spin_geom(S->model.m) < 0) ||
        (w == OUT_AUTO && (!S->opt.rigid || S->opt.solver.kind != CSIM_SOLVER_AUTO)))
      continue;
    int n = kSets[k].ncols;
    size_t ncols = (size_t)(n == OUT_NQ ? S->model.m->nq : n == OUT_NV ? S->model.m->nv
                            : n == OUT_NHIST ? nhist : n == OUT_NCTLJ ? nctlj
                            : n == OUT_NCTLLOG ? nlog : n == OUT_NCTL ? S->model.nctl : n);
    csim_status st = rec_add(o->f, kSets[k].path, kSets[k].type, ncols, kSets[k].units,
                             kSets[k].desc, &o->ds[k], err);
    if (st == CSIM_OK && (k == OUT_CTL_TAU || k == OUT_CTL_LOG || k == OUT_T_CTL))
      st = control_columns(o, S, k == OUT_CTL_LOG ? COLS_LOG : k == OUT_CTL_TAU ? COLS_TAU
                                 : COLS_TIMING, err);
    if (st != CSIM_OK) return st;
  }
  return CSIM_OK;
}

// OpenBLAS's kernel set, chosen per CPU when the library loads (OPENBLAS_CORETYPE overrides it):
// its kernels round differently, so two machines' files agree bit for bit only on one kernel set
char* openblas_get_corename(void);

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
  if (!st) st = rec_attr_string(f, NULL, "blas_core", openblas_get_corename(), err);
  if (!st) st = rec_attr_string(f, NULL, "scenario", cfg->text ? cfg->text : "", err);
  if (!st) st = rec_attr_string(f, NULL, "scenario_name", cfg->name, err);
  // where the scenario's relative paths resolve: `csim replay` rebuilds the model from it
  char* sdir = realpath(cfg->dir ? cfg->dir : ".", NULL);
  if (!st) st = rec_attr_string(f, NULL, "scenario_dir", sdir ? sdir : cfg->dir, err);
  free(sdir);
  if (!st) st = rec_attr_string(f, NULL, "contact_model", csim_model_names[cfg->model], err);
  if (!st)  // compliant laws use no rigid solver: "none"
    st = rec_attr_string(f, NULL, "solver",
                         csim_solver_names[csim_model_compliant(cfg->model) ? CSIM_SOLVER_NONE : cfg->solver],
                         err);
  if (!st) st = rec_attr_string(f, NULL, "integrator", csim_scheme_names[cfg->scheme], err);
  if (!st) st = rec_attr_string(f, NULL, "conventions", conv, err);
  if (!st) st = rec_attr_string(f, NULL, "force_units", "N (impulse / dt)", err);
  if (!st) st = rec_attr_double(f, NULL, "dt", cfg->dt, err);
  if (!st) st = rec_attr_double(f, NULL, "tolerance", cfg->tolerance, err);
  if (!st)
    st = rec_attr_string(f, NULL, "tolerance_units", csim_tolerance_units_names[cfg->tolerance_units],
                         err);
  if (!st) st = rec_attr_int(f, NULL, "every", cfg->output_every, err);
  if (!st) st = rec_attr_int(f, NULL, "nq", m->nq, err);
  if (!st) st = rec_attr_int(f, NULL, "nv", m->nv, err);
  if (!st) st = rec_attr_doubles(f, NULL, "gravity", cfg->gravity, 3, err);
  return st;
}

csim_status out_open(const char* path, const scn_config* cfg, const sim* S, long rows_expected,
                     out_run* o, csim_error* err) {
  memset(o, 0, sizeof(*o));
  o->dt = cfg->dt;
  csim_status st = rec_open(path, &o->f, err);
  // a short run's datasets in one chunk each, not ~64 KB each (sweeps of short points: README)
  if (!st && rows_expected < 512)
    st = rec_set_chunk_rows(o->f, rows_expected < 64 ? 64 : (size_t)rows_expected, err);
  if (!st) st = attributes(o->f, cfg, S->model.m, err);
  if (!st) st = declare(o, S, err);
  return st;
}

#define APPEND(id, value) \
  if (!st) st = rec_append(o->ds[OUT_##id], value, err)

// energies, joint limits and solver results of the row
static csim_status row_state(out_run* o, const sim* S, const double* q0, const double* v0,
                             double t, const sim_stepinfo* info, csim_error* err) {
  const contact_data* c = S->data.con;
  double et = info->kinetic + info->potential;
  int32_t it = info->solve.iterations, nc = c->ncon - c->nlimit;
  int32_t nl = c->nlimit - c->nspin, loff = (int32_t)rec_rows(o->ds[OUT_L_GAP]);
  uint8_t cv = (uint8_t)(nc == 0 || info->solve.converged);
  csim_status st = CSIM_OK;
  APPEND(TIME, &t); APPEND(Q, q0); APPEND(V, v0);
  APPEND(EK, &info->kinetic); APPEND(EP, &info->potential); APPEND(ET, &et);
  APPEND(EWORK, &info->work); APPEND(EINJ, &info->injected);
  APPEND(L_COUNT, &nl); APPEND(L_OFFSET, &loff);
  for (int i = nc; i < c->ncon && !st; i++) {
    const coll_contact* k = &c->con[i];
    if (k->geom1 <= CONTACT_SPIN) continue;  // a contact's spin entry (contact.h): not a joint's
    // a dry friction row (contact.h): side 2 + the dof within the joint, its force along t1
    int fric = k->geom1 == CONTACT_JOINT_FRICTION;
    int32_t jnt = k->geom2, side = k->feature;
    double gap = fric ? 0 : -k->depth, fl = c->lambda[3 * i + (fric ? 0 : 2)] / o->dt;
    APPEND(L_JOINT, &jnt); APPEND(L_SIDE, &side); APPEND(L_GAP, &gap); APPEND(L_FORCE, &fl);
  }
  APPEND(EPS, &info->solve.eps_abs); APPEND(PRIMAL, &info->solve.eps_p);
  APPEND(DUAL, &info->solve.eps_d); APPEND(COMPL, &info->solve.eps_c);
  APPEND(ITERS, &it); APPEND(CONV, &cv);
  if (o->ds[OUT_SWITCHED]) {
    int32_t ni = info->solve.islands, ns = info->solve.switched, nr = info->solve.rescued;
    APPEND(ISLANDS, &ni); APPEND(SWITCHED, &ns); APPEND(RESCUED, &nr);
  }
  APPEND(T_STEP, &info->t_step); APPEND(T_COLL, &info->t_collision);
  APPEND(T_DYN, &info->t_dynamics); APPEND(T_SOLVE, &info->t_solve);
  return st;
}

// the contacts of the row (flat arrays, /contacts/offset and /contacts/count)
static csim_status row_contacts(out_run* o, const sim* S, const sim_stepinfo* info,
                                csim_error* err) {
  const contact_data* c = S->data.con;
  double dt = o->dt;
  int32_t nc = c->ncon - c->nlimit, off = (int32_t)rec_rows(o->ds[OUT_C_DEPTH]);
  int32_t nred = info->nreduced, nred_t = info->nreduced_touch;
  csim_status st = CSIM_OK;
  APPEND(C_COUNT, &nc); APPEND(C_REDUCED, &nred); APPEND(C_REDUCED_TOUCH, &nred_t);
  APPEND(C_OFFSET, &off);
  for (int i = 0; i < nc && !st; i++) {
    const coll_contact* k = &c->con[i];
    int32_t bodies[2] = {c->body1[i], c->body2[i]}, id[3] = {k->geom1, k->geom2, k->feature};
    double f[3] = {c->lambda[3 * i] / dt, c->lambda[3 * i + 1] / dt, c->lambda[3 * i + 2] / dt};
    APPEND(C_BODY, bodies); APPEND(C_POINT, k->pos); APPEND(C_NORMAL, k->normal);
    APPEND(C_DEPTH, &k->depth); APPEND(C_FORCE, f); APPEND(C_VEL, c->cvel + 3 * i);
    if (o->ds[OUT_C_MOMENT]) {  // the contact's spin entry j (contact.h), when it has one
      int j = c->nspin > 0 && c->link ? c->link[i] : -1;
      double mo[3] = {0, 0, 0};
      for (int r = 0; r < 3 && j >= 0; r++) mo[r] = c->lambda[3 * j + r] / dt;
      APPEND(C_MOMENT, mo);
    }
    APPEND(C_FRAME, c->frame + 9 * i); APPEND(C_ID, id);
  }
  return st;
}

// the controllers' row (/control): each controller's held torques and log, concatenated
static csim_status row_control(out_run* o, const sim* S, csim_error* err) {
  csim_status st = CSIM_OK;
  for (int logs = 0; logs < 2 && !st; logs++) {
    size_t k = 0;
    for (int i = 0; i < S->model.nctl; i++) {
      const ctl_data* cd = &S->data.ctl[i];
      size_t n = (size_t)(logs ? cd->nlog : S->model.ctl[i].info.njoint);
      memcpy(o->ctl_row + k, logs ? cd->log : cd->tau, sizeof(double) * n);
      k += n;
    }
    rec_dataset* ds = o->ds[logs ? OUT_CTL_LOG : OUT_CTL_TAU];
    if (ds) st = rec_append(ds, o->ctl_row, err);
  }
  for (int i = 0; i < S->model.nctl; i++) o->ctl_row[i] = S->data.ctl[i].solve_time;
  if (!st) st = rec_append(o->ds[OUT_T_CTL], o->ctl_row, err);
  return st;
}

// a compliant law's row (/compliant)
static csim_status row_compliant(out_run* o, const sim* S, csim_error* err) {
  const cmpl_data* c = S->data.cmpl;
  int32_t it = c->iterations, ns = c->nstick, sub = c->substeps;
  uint8_t cv = (uint8_t)(c->converged != 0);
  csim_status st = CSIM_OK;
  APPEND(CMPL_DS_ITER, &it); APPEND(CMPL_DS_SUB, &sub); APPEND(CMPL_DS_RES, &c->residual);
  APPEND(CMPL_DS_CONV, &cv); APPEND(CMPL_DS_PMAX, &c->pen_max);
  APPEND(CMPL_DS_PMEAN, &c->pen_mean); APPEND(CMPL_DS_NSTICK, &ns);
  APPEND(CMPL_DS_SLIP, &c->stick_slip_max);
  if (!st) st = rec_append_rows(o->ds[OUT_CMPL_DS_X], c->x1, (size_t)S->data.con->ncon, err);
  if (!st && o->ds[OUT_CMPL_DS_HIST]) APPEND(CMPL_DS_HIST, c->hist);
  int32_t w[4] = {(int32_t)c->work_step[0], (int32_t)c->work_step[1], (int32_t)c->work_step[2],
                  c->rejected};
  if (!st && o->ds[OUT_CMPL_DS_DYN]) {
    APPEND(CMPL_DS_DYN, &w[0]); APPEND(CMPL_DS_JAC, &w[1]); APPEND(CMPL_DS_FACT, &w[2]);
    APPEND(CMPL_DS_REJ, &w[3]); APPEND(CMPL_DS_EST, &c->est_max);
  }
  return st;
}

#undef APPEND

csim_status out_row(out_run* o, const sim* S, const double* q0, const double* v0, double t,
                    const sim_stepinfo* info, csim_error* err) {
  csim_status st = row_state(o, S, q0, v0, t, info, err);
  if (!st) st = row_contacts(o, S, info, err);
  if (!st && S->data.cmpl) st = row_compliant(o, S, err);
  if (!st && S->model.nctl) st = row_control(o, S, err);
  rec_step(o->f);
  return st;
}

csim_status out_close(out_run* o, const sim* S, const scn_config* cfg, int rc, long steps,
                      double wall, const char* failure) {
  const sim_energy* e = &S->data.energy;
  rec_file* f = o->f;
  csim_error aerr;
  err_clear(&aerr);
  csim_status ast = rec_attr_int(f, NULL, "energy_gain_flagged", e->flagged, &aerr);
  if (!ast) ast = rec_attr_int(f, NULL, "energy_gain_step", (int)e->flag_step, &aerr);
  if (!ast) ast = rec_attr_double(f, NULL, "energy_gain_time", e->flagged ? e->flag_time : -1, &aerr);
  if (!ast) ast = rec_attr_double(f, NULL, "energy_gain_max", e->rise_max, &aerr);
  if (!ast) ast = rec_attr_double(f, NULL, "energy_work", e->work, &aerr);
  if (!ast) ast = rec_attr_double(f, NULL, "energy_injected", e->injected, &aerr);
  if (!ast) ast = rec_attr_double(f, NULL, "energy_tolerance", cfg->energy_tolerance, &aerr);
  const cmpl_data* c = S->data.cmpl;  // compliant: the run's work (001 Sec. IV-A)
  if (!ast && c) ast = rec_attr_double(f, NULL, "work_dynamics_evaluations", (double)c->work[0], &aerr);
  if (!ast && c) ast = rec_attr_double(f, NULL, "work_jacobian_evaluations", (double)c->work[1], &aerr);
  if (!ast && c) ast = rec_attr_double(f, NULL, "work_factorizations", (double)c->work[2], &aerr);
  if (!ast && c) ast = rec_attr_double(f, NULL, "rejected_substeps", (double)c->nrejected, &aerr);
  if (ast) err_print(&aerr, stderr);
  // for csim merge: the run's exit status, step count and wall time (best effort: a failed
  // attribute write is reported by rec_close's flush below)
  csim_error cerr;
  err_clear(&cerr);
  if (rec_attr_int(f, NULL, "exit_status", rc, &cerr) == CSIM_OK &&
      rec_attr_int(f, NULL, "steps", (int)steps, &cerr) == CSIM_OK)
    rec_attr_double(f, NULL, "wall_time", wall, &cerr);
  err_clear(&cerr);
  o->f = NULL;
  free(o->ctl_row);
  o->ctl_row = NULL;
  if (rec_close(f, rc == CSIM_OK, rc == CSIM_OK ? NULL : failure, &cerr) != CSIM_OK) {
    err_print(&cerr, stderr);
    return CSIM_ERR_RUN;
  }
  return CSIM_OK;
}

csim_status out_dump_problem(const sim* S, const scn_config* cfg, const char* out, long k,
                             int quiet, csim_error* err) {
  int listed = 0;
  for (int i = 0; i < cfg->ndump_steps; i++) listed |= cfg->dump_steps[i] == k;
  if (!listed) return CSIM_OK;
  size_t n = strlen(out);
  if (n > 3 && !strcmp(out + n - 3, ".h5")) n -= 3;
  char path[1100], desc[512];
  snprintf(path, sizeof(path), "%.*s_step%ld.hdf5", (int)(n < 1000 ? n : 1000), out, k);
  snprintf(desc, sizeof(desc), "csim %s run of scenario '%s', step %ld (t = %.9g s): contact "
           "model %s, solver %s, tolerance %g; /solution/r holds the impulses it found",
           CSIM_VERSION, cfg->name, k, (double)k * cfg->dt,
           csim_model_names[cfg->model], csim_solver_names[cfg->solver],
           cfg->tolerance);
  solver_problem p = contact_problem(S->data.con);
  if (p.link)  // FCLIB's local problem is 3-D frictional contact only (contact.h: spin entries)
    return err_set(err, CSIM_ERR_RUN, cfg->file, 0, 0, "output.dump_steps",
                   "step %ld's contact problem has %d condim 4/6 contacts (torsional or rolling "
                   "friction), which FCLIB's 3-D frictional contact format cannot hold",
                   k, S->data.con->nspin);
  csim_status st = fclib_write_local(path, &p, S->data.con->lambda, FCLIB_CSR,
                                     "csim contact problem", desc, err);
  if (st == CSIM_OK && !quiet)
    printf("csim run: step %ld contact problem (%d contacts) written to %s\n", k, p.nc, path);
  return st;
}

