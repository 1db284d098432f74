// sim.c — scenario -> simulation, and the velocity-level time step (000 eqs. 2-5; see sim.h)
// as an outline of the stages of stage.h.
#include "core/sim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/compliant/compliant.h"
#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/material.h"
#include "core/compliant/sim_compliant.h"
#include "core/spatial.h"
#include "core/stage.h"
#include "io/model_build.h"
#include "io/terrain.h"


const char* const sim_warning_names[SIM_NWARN] = {
    "contact_buffer_full", "solver_not_converged", "effort_limit_clamped",
    "midpoint_iteration_cap", "energy_gain"};


// scenario contact model and solver -> solver enums (rigid models only)
static csim_status map_solver(const scn_config* cfg, solver_options* o, csim_error* err) {
  static const int model_map[] = {
      [SCN_MODEL_NCP] = SOLVER_MODEL_NCP, [SCN_MODEL_CCP] = SOLVER_MODEL_CCP,
      [SCN_MODEL_LCP] = SOLVER_MODEL_LCP, [SCN_MODEL_RAISIM] = SOLVER_MODEL_RAISIM,
      [SCN_MODEL_RAISIM_DS] = SOLVER_MODEL_RAISIM_DS};
  static const int kind_map[] = {[SCN_SOLVER_PGS] = SOLVER_PGS, [SCN_SOLVER_LEMKE] = SOLVER_LEMKE,
                                 [SCN_SOLVER_ADMM] = SOLVER_ADMM,
                                 [SCN_SOLVER_STAGGERED] = SOLVER_STAGGERED,
                                 [SCN_SOLVER_BISECTION] = SOLVER_BISECTION};
  if (cfg->model > SCN_MODEL_RAISIM_DS)
    return scn_key_error(cfg, "contact.model", err,
                   "compliant contact model '%s' is not available in this version of csim "
                   "(rigid models only so far)", scn_contact_model_names[cfg->model]);
  if (cfg->scheme != SCN_INT_SEMI_IMPLICIT)
    return scn_key_error(cfg, "integrator.scheme", err,
                   "'%s' integrates compliant contact laws; rigid model '%s' uses velocity-level "
                   "time stepping (000 eqs. 2-5): set integrator.scheme: semi_implicit",
                   scn_integrator_names[cfg->scheme], scn_contact_model_names[cfg->model]);
  if (cfg->solver == SCN_SOLVER_NONE)
    return scn_key_error(cfg, "solver.name", err,
                   "rigid contact model '%s' needs a solver; 'none' is for compliant models",
                   scn_contact_model_names[cfg->model]);
  memset(o, 0, sizeof(*o));
  o->model = (solver_model)model_map[cfg->model];
  o->kind = (solver_kind)kind_map[cfg->solver];
  // force units (002 Sec. II: eps on lambda / dt): the impulse residual is held to tolerance * dt
  o->tolerance = cfg->tolerance * (cfg->tolerance_units == SCN_TOL_FORCE ? cfg->dt : 1.0);
  o->max_iterations = cfg->max_iterations;
  o->over_relaxation = cfg->over_relaxation;
  o->facets = cfg->facets;
  o->rho = cfg->rho;
  o->rho_adaptive = cfg->rho_adaptive;
  o->criterion = cfg->criterion == SCN_CRIT_MODEL ? SOLVER_STOP_MODEL : SOLVER_STOP_NCP;
  char msg[512];
  if (!solver_pair_supported(o->model, o->kind, msg, sizeof(msg)))
    return scn_key_error(cfg, "solver.name", err, "%s", msg);
  return CSIM_OK;
}

// "robots.<r>.<name>", the key whose position an error gives
static const char* robot_key(char* buf, size_t n, int r, const char* name) {
  snprintf(buf, n, "robots.%d.%s", r, name);
  return buf;
}

// initial state of robot r from q0, v0 and joints
static csim_status initial_state(const scn_config* cfg, const sim_model* m, sim_data* d, int r,
                                 csim_error* err) {
  const scn_robot* R = &cfg->robots[r];
  char rk[64];
  if (R->q0) {
    if (R->nq0 != m->robot_nq[r])
      return scn_key_error(cfg, robot_key(rk, sizeof(rk), r, "q0"), err,
                     "robot '%s' has nq = %d (%s base), q0 has %d values", m->robot_name[r],
                     m->robot_nq[r], scn_base_names[R->base], R->nq0);
    memcpy(d->q + m->robot_qadr[r], R->q0, sizeof(double) * (size_t)R->nq0);
  }
  if (R->v0) {
    if (R->nv0 != m->robot_nv[r])
      return scn_key_error(cfg, robot_key(rk, sizeof(rk), r, "v0"), err,
                     "robot '%s' has nv = %d (%s base), v0 has %d values", m->robot_name[r],
                     m->robot_nv[r], scn_base_names[R->base], R->nv0);
    memcpy(d->v + m->robot_dofadr[r], R->v0, sizeof(double) * (size_t)R->nv0);
  }
  for (int k = 0; k < R->njoints; k++) {
    int j = model_find_joint(m, R->joints[k].name);
    if (j < 0 || m->body_robot[m->jnt_body[j]] != r || m->jnt_type[j] == MODEL_JOINT_FREE)
      return scn_key_error(cfg, robot_key(rk, sizeof(rk), r, "joints"), err,
                     "robot '%s' has no 1-dof joint named '%s'", m->robot_name[r],
                     R->joints[k].name);
    d->q[m->jnt_qadr[j]] = R->joints[k].value;
  }
  // a q0 quaternion must be non-zero (no orientation); off unit length by more than 1e-3 (more
  // than rounding of hand-written values) it is normalised with a warning: a typo is not silent
  for (int j = 0; R->q0 && j < m->njnt; j++) {
    if (m->jnt_type[j] != MODEL_JOINT_FREE || m->body_robot[m->jnt_body[j]] != r) continue;
    int a = m->jnt_qadr[j] + 3 - m->robot_qadr[r];
    const double* qq = R->q0 + a;
    double nrm = sqrt(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]);
    if (!(nrm > 1e-9))
      return scn_key_error(cfg, robot_key(rk, sizeof(rk), r, "q0"), err,
                           "values %d-%d are the quaternion [qx qy qz qw] of the free base: "
                           "expected a unit quaternion, found [%g, %g, %g, %g]",
                           a, a + 3, qq[0], qq[1], qq[2], qq[3]);
    if (fabs(nrm - 1) > 1e-3) {
      csim_error w;
      scn_key_error(cfg, robot_key(rk, sizeof(rk), r, "q0"), &w,
                    "the free-base quaternion (values %d-%d) has norm %.9g: normalised", a, a + 3,
                    nrm);
      char buf[2048];
      err_format(&w, buf, sizeof(buf));
      fprintf(stderr, "csim: warning: %s\n", buf);
    }
  }
  // free-joint quaternions given by hand are normalised once here
  for (int j = 0; j < m->njnt; j++)
    if (m->jnt_type[j] == MODEL_JOINT_FREE) sp_normquat(d->q + m->jnt_qadr[j] + 3);
  return CSIM_OK;
}

// compile the actions once: copy their values, resolve names to indices
static csim_status resolve_actions(sim* s, csim_error* err) {
  const scn_config* cfg = s->cfg;
  const sim_model* m = s->m;
  s->nact = cfg->nactions;
  s->act = calloc((size_t)(cfg->nactions > 0 ? cfg->nactions : 1), sizeof(sim_action));
  if (!s->act) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  for (int a = 0; a < cfg->nactions; a++) {
    const scn_action* A = &cfg->actions[a];
    sim_action* act = &s->act[a];
    act->a = *A;
    char key[64];
    snprintf(key, sizeof(key), "actions.%d", a);
    if (A->type == SCN_ACTION_FORCE) {
      int l = model_find_link(m, A->body);
      if (l < 0)
        return scn_key_error(cfg, strcat(key, ".body"), err, "no link named '%s' in the model",
                             A->body);
      act->link = l;
      continue;
    }
    // pd / trajectory: the robot and its joints
    int r = 0;
    if (A->robot) {
      for (r = 0; r < m->nrobot; r++)
        if (!strcmp(m->robot_name[r], A->robot)) break;
      if (r == m->nrobot)
        return scn_key_error(cfg, strcat(key, ".robot"), err, "no robot named '%s'",
                       A->robot);
    }
    int nj = 0;
    int* jl = calloc((size_t)(m->njnt > 0 ? m->njnt : 1), sizeof(int));
    if (!jl) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
    act->jnt = jl;
    if (A->njoint_names < 0) {
      for (int j = 0; j < m->njnt; j++)
        if (m->body_robot[m->jnt_body[j]] == r && m->jnt_type[j] != MODEL_JOINT_FREE) jl[nj++] = j;
    } else {
      for (int k = 0; k < A->njoint_names; k++) {
        int j = model_find_joint(m, A->joint_names[k]);
        if (j < 0 || m->jnt_type[j] == MODEL_JOINT_FREE)
          return scn_key_error(cfg, strcat(key, ".joints"), err, "no 1-dof joint named '%s'",
                               A->joint_names[k]);
        jl[nj++] = j;
      }
    }
    act->njnt = nj;
    // per-joint reference: targets (pd) or offsets (trajectory), else the initial positions
    double* ref = calloc((size_t)(nj > 0 ? nj : 1), sizeof(double));
    if (!ref) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
    act->ref = ref;
    const double* given = A->type == SCN_ACTION_PD ? A->target : A->offset;
    int ngiven = A->type == SCN_ACTION_PD ? A->ntarget : A->noffset;
    if (given && ngiven != nj && ngiven != 1)
      return err_set(err, CSIM_ERR_INPUT, cfg->file, A->line, 0, key,
                     "%d joints but %d %s values (expected %d or 1)", nj, ngiven,
                     A->type == SCN_ACTION_PD ? "target" : "offset", nj);
    for (int k = 0; k < nj; k++)
      ref[k] = given ? given[ngiven == 1 ? 0 : k] : s->d->q[m->jnt_qadr[jl[k]]];
    // trajectory lists: one value or one per joint
    if (A->type == SCN_ACTION_TRAJECTORY) {
      const int lens[3] = {A->namp, A->nfreq, A->nphase};
      const char* names[3] = {"amplitude", "frequency", "phase"};
      for (int t = 0; t < 3; t++)
        if (lens[t] > 1 && lens[t] != nj)
          return err_set(err, CSIM_ERR_INPUT, cfg->file, A->line, 0, key,
                         "%d joints but %d %s values (expected %d or 1)", nj, lens[t], names[t], nj);
    }
  }
  return CSIM_OK;
}

// bytes of the contact buffers for n contacts: contact problem plus the rigid solver (so) or
// the compliant state (so NULL); SIZE_MAX when the solver cannot take n
static size_t buffer_bytes(const sim* s, const solver_options* so, int n) {
  size_t x = so ? solver_bytes(so, n) : cmpl_bytes(s->cfg, s->m, n);
  return x == SIZE_MAX ? SIZE_MAX : contact_bytes(s->m, n) + x;
}

// the same with a dense family's island work sized for `rows` rows (solver_options island_rows)
static size_t buffer_bytes_rows(const sim* s, const solver_options* so, int n, int rows) {
  solver_options o = *so;
  o.island_rows = rows;
  return buffer_bytes(s, &o, n);
}

// share of contact.memory_budget the dense island work is held to while the contact buffers
// are sized, when the budget cannot hold both at their worst (size_contacts)
#define SIM_ISLAND_SHARE 0.25

// contact capacity: every contact collision can produce (coll_max_contacts, so none can ever be
// dropped) when that fits in contact.memory_budget, else the most that fit (a step that finds
// more stops the run: sim_contact_overflow); then room for both limits of every limited joint.
// The dense families (ADMM, staggered, Lemke) also keep work for the largest island, sized at
// worst for an island of every contact (solver_dense_rows: as the square of the contacts, or of
// the dofs). When that and the contacts do not both fit, the contacts are sized with the island
// work held to SIM_ISLAND_SHARE of the budget, and the island work then takes every byte the
// contact buffers leave (rows as large as fit: so->island_rows); a step with an island past it
// stops the run (sim_island_overflow). On a grid of separate bodies every island is one body,
// while the worst case is one island of every contact
static csim_status size_contacts(sim* s, solver_options* so, csim_error* err) {
  // the budget holds the simulation data too: the contact buffers get what it leaves
  double budget = s->cfg->memory_budget * SIM_MIB - (double)s->data_bytes;
  int nlim = 0;
  for (int j = 0; j < s->m->njnt; j++) nlim += 2 * (s->m->jnt_limited[j] != 0);
  if (!s->cfg->limits_enabled) nlim = 0;
  int worst = coll_max_contacts(s->coll);
  s->maxgeom_worst = worst;
  if (so) so->island_rows = 0;
  int rcap = 0;  // island rows the contact sizing assumes (0: the worst case)
  if ((double)buffer_bytes(s, so, worst + nlim) <= budget) {
    s->maxgeom = worst;
  } else {
    int rworst = so ? solver_island_rows(so, worst + nlim) : 0;
    if (rworst > 0) {
      // the largest rows within the island's share whose work the family can take (Lemke's
      // tableau has a limit of its own: solver_bytes SIZE_MAX); at least one contact's 3
      int lo = 3, hi = rworst + 1;
      while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        solver_options o = *so;
        o.island_rows = mid;
        if ((double)solver_island_bytes(so, mid) <= SIM_ISLAND_SHARE * budget &&
            solver_bytes(&o, worst + nlim) != SIZE_MAX)
          lo = mid;
        else
          hi = mid;
      }
      rcap = lo;
    }
    // bytes grow with n: bisect for the largest g in [lo, hi) whose buffers fit
    int lo = -1, hi = worst;
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      size_t b = so ? buffer_bytes_rows(s, so, mid + nlim, rcap) : buffer_bytes(s, NULL, mid + nlim);
      if ((double)b <= budget) lo = mid; else hi = mid;
    }
    if (lo < 1)
      return err_set(err, CSIM_ERR_INPUT, s->cfg->file, 0, 0, "contact.memory_budget",
                     "%g MiB does not hold the buffers of one contact and %d joint-limit rows "
                     "(%.3g MiB) besides the simulation data (%.3g MiB)", s->cfg->memory_budget,
                     nlim,
                     (double)(so ? buffer_bytes_rows(s, so, 1 + nlim, rcap)
                                 : buffer_bytes(s, NULL, 1 + nlim)) / SIM_MIB,
                     (double)s->data_bytes / SIM_MIB);
    s->maxgeom = lo;
  }
  s->maxcon = s->maxgeom + nlim;
  if (s->maxcon < 1) s->maxcon = 1;
  if (rcap > 0) {
    // the island work takes what the contact buffers leave: the largest rows in
    // [rcap, worst case for maxcon] whose buffers fit (rcap's do, by the bisection above)
    int rmax = solver_island_rows(so, s->maxcon), lo = rcap < rmax ? rcap : rmax, hi = rmax + 1;
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      if ((double)buffer_bytes_rows(s, so, s->maxcon, mid) <= budget) lo = mid; else hi = mid;
    }
    so->island_rows = lo < rmax ? lo : 0;  // 0: the worst case after all
  }
  s->island_rows = so ? solver_island_rows(so, s->maxcon) : 0;
  if (so) {
    solver_options o = *so;
    o.island_rows = 0;
    s->island_rows_worst = solver_island_rows(&o, s->maxcon);
  }
  s->buffer_bytes = buffer_bytes(s, so, s->maxcon);
  return CSIM_OK;
}

// the error for a step whose largest island needs more rows of dense solver work than the
// island work holds (size_contacts); status CSIM_ERR_RUN
static csim_status sim_island_overflow(const sim* s, const solver_result* r, csim_error* err) {
  double need = (double)(buffer_bytes_rows(s, &s->slv_opt, s->maxcon, r->unsolved_rows) +
                         s->data_bytes) / SIM_MIB;
  return err_set(err, CSIM_ERR_RUN, s->cfg->file, 0, 0, "contact.memory_budget",
                 "at step %ld (t = %.6g s) an island of %d contacts needs %d rows of dense %s "
                 "work (3 per contact, or the island's dofs when ADMM factors it in dof space); "
                 "the island work holds %d rows (an island of every contact could need %d): "
                 "contact.memory_budget %g MiB holds %d contacts' buffers and the island work "
                 "(%.1f MiB) and the simulation data (%.2g MiB), an island this large needs "
                 "about %.3g MiB: raise contact.memory_budget", s->step, s->d->time,
                 r->unsolved_island, r->unsolved_rows, solver_kind_names[s->slv_opt.kind],
                 s->island_rows, s->island_rows_worst, s->cfg->memory_budget, s->maxgeom,
                 (double)s->buffer_bytes / SIM_MIB, (double)s->data_bytes / SIM_MIB, need);
}

csim_status sim_contact_overflow(const sim* s, int found, csim_status status, csim_error* err) {
  char when[96] = "at the initial state";
  if (status != CSIM_ERR_INPUT)
    snprintf(when, sizeof(when), "at step %ld (t = %.6g s)", s->step, s->d->time);
  int need = found + (s->maxcon - s->maxgeom);
  return err_set(err, status, s->cfg->file, 0, 0, "contact.memory_budget",
                 "%s collision found %d contacts; the contact buffers hold %d (%.1f MiB of "
                 "%g MiB, which also holds the simulation data's %.2g MiB; G's blocks and dense "
                 "solver work grow as the square of the contacts; every contact this scene can "
                 "produce: %d); %d contacts need about %.3g MiB: raise contact.memory_budget",
                 when, found, s->maxgeom, (double)s->buffer_bytes / SIM_MIB,
                 s->cfg->memory_budget, (double)s->data_bytes / SIM_MIB, s->maxgeom_worst, found,
                 (double)(contact_bytes(s->m, need) +
                          (!cmpl_is_compliant(s->cfg) ? solver_bytes(&s->slv_opt, need)
                                                      : cmpl_bytes(s->cfg, s->m, need)) +
                          s->data_bytes) /
                     SIM_MIB);
}

// the initial state's contacts must fit (exit 2 before the first step otherwise)
static csim_status initial_contacts(sim* s, csim_error* err) {
  int n = 0;
  kin_forward(s->m, s->d);
  int dropped = coll_detect(s->coll, s->m, s->d->geom_xpos, s->d->geom_xmat, s->con->con,
                            s->maxgeom, &n);
  return dropped > 0 ? sim_contact_overflow(s, n + dropped, CSIM_ERR_INPUT, err) : CSIM_OK;
}

csim_status sim_create(const scn_config* cfg, sim** out, csim_error* err) {
  return sim_create_urdf(cfg, NULL, out, err);
}

csim_status sim_create_urdf(const scn_config* cfg, const char* const* urdf_text, sim** out,
                            csim_error* err) {
  *out = NULL;
  sim* s = calloc(1, sizeof(*s));
  if (!s) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  s->cfg = cfg;
  csim_status st = CSIM_OK;
  model_robot_spec* specs = calloc((size_t)cfg->nrobots, sizeof(*specs));
  s->urdf = calloc((size_t)cfg->nrobots, sizeof(urdf_robot*));
  if (!specs || !s->urdf) {
    free(specs);
    sim_free(s);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  }

  // robots: URDF -> model
  for (int r = 0; r < cfg->nrobots && st == CSIM_OK; r++) {
    const scn_robot* R = &cfg->robots[r];
    const char** pk = calloc((size_t)R->npackage_paths + 1, sizeof(char*));
    if (!pk) { st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory"); break; }
    for (int k = 0; k < R->npackage_paths; k++) pk[k] = R->package_paths[k];
    urdf_options uo = urdf_default_options();
    uo.package_paths = pk;
    if (urdf_text && urdf_text[r])  // a URDF made in memory (csim validate's cube)
      st = urdf_load_string(urdf_text[r], R->urdf, cfg->dir, &uo, &s->urdf[r], err);
    else
      st = urdf_load(R->urdf_path, &uo, &s->urdf[r], err);
    free(pk);
    if (st != CSIM_OK) break;
    specs[r].urdf = s->urdf[r];
    specs[r].name = R->name;
    specs[r].base = R->base == SCN_BASE_FREE ? MODEL_BASE_FREE : MODEL_BASE_FIXED;
    memcpy(specs[r].base_pos, R->pos, sizeof(R->pos));
    double Rm[9];
    sp_rpy2mat(Rm, R->rpy);
    sp_mat2quat(specs[r].base_quat, Rm);
    specs[r].require_meshes = 1;
  }
  if (st == CSIM_OK) {
    model_world_spec w;
    memset(&w, 0, sizeof(w));
    memcpy(w.gravity, cfg->gravity, sizeof(w.gravity));
    w.ground = cfg->ground;
    w.ground_height = cfg->ground_height;
    // terrain: the height grid from its file or the seeded random generator (terrain.h)
    terrain_grid tg = {0, 0, NULL};
    if (cfg->ground == 2) {
      if (cfg->ground_file)
        st = terrain_load(cfg->ground_file, "world.ground.file", &tg, err);
      else
        st = terrain_random((unsigned long long)cfg->ground_seed, cfg->ground_amplitude,
                            cfg->ground_resolution, cfg->ground_size, &tg, err);
      if (st != CSIM_OK && cfg->ground_file && err->line == 0)
        // the file itself could not be read: point at the key that names it
        st = scn_key_error(cfg, "world.ground.file", err, "%s", err->msg);
      w.hf_nx = tg.nx;
      w.hf_ny = tg.ny;
      w.hf_size[0] = cfg->ground_size[0];
      w.hf_size[1] = cfg->ground_size[1];
      w.hf_height = tg.h;
    }
    if (st == CSIM_OK) st = model_create(&w, specs, cfg->nrobots, &s->m, err);
    terrain_free(&tg);
  }
  free(specs);
  if (st == CSIM_OK) st = data_create(s->m, 0, &s->d, err);
  if (st == CSIM_OK) s->data_bytes = data_bytes(s->m, 0);
  for (int r = 0; st == CSIM_OK && r < cfg->nrobots; r++) st = initial_state(cfg, s->m, s->d, r, err);

  // collision pairs, without the scenario's excluded link pairs and, unless
  // contact.self_collision, without pairs of links of the same robot
  if (st == CSIM_OK) {
    const sim_model* m = s->m;
    size_t nself = 0;
    if (!cfg->self_collision)
      for (int r = 0; r < m->nrobot; r++)
        nself += (size_t)m->robot_nlink[r] * (size_t)(m->robot_nlink[r] - 1) / 2;
    size_t nex = (size_t)cfg->nexclude + nself;
    int* ex = calloc(2 * nex + 1, sizeof(int));
    if (!ex) st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
    for (int k = 0; st == CSIM_OK && k < 2 * cfg->nexclude; k++) {
      ex[k] = model_find_link(m, cfg->exclude[k]);
      if (ex[k] < 0)
        st = scn_key_error(cfg, "contact.exclude", err,
                     "no link named '%s' in the model", cfg->exclude[k]);
    }
    size_t k = 2 * (size_t)cfg->nexclude;
    for (int r = 0; st == CSIM_OK && !cfg->self_collision && r < m->nrobot; r++) {
      int a0 = m->robot_linkadr[r], na = m->robot_nlink[r];
      for (int a = a0; a < a0 + na; a++)
        for (int b = a + 1; b < a0 + na; b++) {
          ex[k++] = a;
          ex[k++] = b;
        }
    }
    if (st == CSIM_OK) st = coll_create(m, ex, (int)nex, &s->coll, err);
    if (st == CSIM_OK) coll_set_margin(s->coll, cfg->margin);
    if (st == CSIM_OK) coll_set_patch(s->coll, cfg->patch_angle, cfg->patch_max);
    free(ex);
  }

  // contact buffers and solver
  solver_options so;
  int compliant = cmpl_is_compliant(cfg);  // compliant laws: no rigid solver (solver.name ignored)
  if (st == CSIM_OK && !compliant) st = map_solver(cfg, &so, err);
  if (st == CSIM_OK && !compliant) {  // the contact problems carry their factored form
    so.nv = s->m->nv;
    so.max_chain = contact_max_chain(s->m);
  }
  if (st == CSIM_OK) st = size_contacts(s, compliant ? NULL : &so, err);
  if (st == CSIM_OK && !compliant) s->slv_opt = so;  // (also sim_contact_overflow's estimate)
  if (st == CSIM_OK) st = contact_create(s->m, s->maxcon, &s->con, err);
  if (st == CSIM_OK) st = initial_contacts(s, err);
  if (st == CSIM_OK && !compliant) st = solver_create(&so, s->maxcon, &s->slv, err);
  if (st == CSIM_OK && (cfg->nmaterials > 0 || cfg->solref)) st = mat_create(cfg, s->m, s->d, &s->mat, err);
  if (st == CSIM_OK && compliant) st = cmpl_create(cfg, s->m, s->maxcon, &s->cmpl, err);
  if (st == CSIM_OK && compliant && s->cmpl) s->cmpl->mat = s->mat;
  // a compliant law's damping sets the energy loss: a material's restitution is an error as the
  // global key is (compliant.h)
  for (int i = 0; st == CSIM_OK && compliant && i < cfg->nmaterials; i++)
    if (cfg->materials[i].restitution > 0) {
      char key[300];
      snprintf(key, sizeof(key), "contact.materials.%.200s.restitution", cfg->materials[i].name);
      st = scn_key_error(cfg, key, err, "restitution %g applies to rigid models only: compliant law '%s' takes its "
                         "energy loss from its damping", cfg->materials[i].restitution,
                         scn_contact_model_names[cfg->model]);
    }
  if (st == CSIM_OK) {
    s->copt.friction = cfg->friction;
    s->copt.baumgarte = cfg->baumgarte;
    s->copt.restitution = cfg->restitution;
    s->copt.warm_start = cfg->warm_start;
    s->copt.dt = cfg->dt;
    s->copt.compliance = cfg->compliance;
    s->copt.mat = s->mat;
    // ADMM works on the factored form: G's off-diagonal blocks would go unread (contact.h)
    s->copt.diag_only = !compliant && so.kind == SOLVER_ADMM;
    s->opt.dt = cfg->dt;
    s->opt.rigid = !compliant;
    s->opt.warm_dual = cfg->warm_dual;
    s->opt.explicit_vp = cfg->velocity_products == SCN_VP_EXPLICIT;
    s->opt.limits = cfg->limits_enabled;
    s->opt.effort = cfg->limits_effort;
    s->opt.limit_k = cfg->limits_stiffness;
    s->opt.limit_d = cfg->limits_damping;
    s->opt.margin = cfg->margin;
    s->opt.energy_tol = cfg->energy_tolerance;
    s->opt.energy_stop = cfg->on_energy_gain == SCN_ENERGY_STOP;
    size_t nv1 = (size_t)s->m->nv + 1;
    double** arrays[] = {&s->vfree, &s->tau, &s->qfrc_ext, &s->qfrc_limit, &s->aact, &s->apas,
                         &s->wpos, &s->vprev};
    for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++) {
      *arrays[k] = calloc(nv1, sizeof(double));
      if (!*arrays[k]) st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
    }
    s->robot_touch = calloc((size_t)s->m->nrobot + 1, sizeof(int));
    if (!s->robot_touch) st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  }
  if (st == CSIM_OK) st = resolve_actions(s, err);
  if (st != CSIM_OK) {
    sim_free(s);
    return st;
  }
  *out = s;
  return CSIM_OK;
}

void sim_free(sim* s) {
  if (!s) return;
  if (s->act)
    for (int a = 0; a < s->nact; a++) {
      free(s->act[a].jnt);
      free(s->act[a].ref);
    }
  free(s->act);
  free(s->vfree); free(s->tau); free(s->qfrc_ext); free(s->qfrc_limit); free(s->aact);
  free(s->apas); free(s->wpos); free(s->vprev); free(s->robot_touch);
  solver_free(s->slv);
  cmpl_free(s->cmpl);
  mat_free(s->mat);
  contact_free(s->con);
  coll_free(s->coll);
  data_free(s->d);
  model_free(s->m);
  if (s->urdf)
    for (int r = 0; r < s->cfg->nrobots; r++) urdf_free(s->urdf[r]);
  free(s->urdf);
  free(s);
}

// the step as an outline of stages (stage.h); compliant laws take their own path after the
// shared stages (sim_compliant.c)
csim_status sim_step(sim* s, sim_stepinfo* info, csim_error* err) {
  if (!s->opt.rigid) return sim_compliant_step(s, info, err);
  const sim_model* m = s->m;
  sim_data* d = s->d;
  double h = s->opt.dt;
  csim_status st;
  double t0 = stage_clock();

  // positions and collision at the current state
  stage_positions(s);
  double t1 = stage_clock();
  int dropped = stage_collision(s);
  if (dropped) return sim_contact_overflow(s, s->con->ncon + dropped, CSIM_ERR_RUN, err);
  double t2 = stage_clock();

  // mass matrix and factor, the energy audit of the state reached, forces, free velocity
  stage_mass(s, info);
  if ((st = stage_audit(s, s->step, d->time, info->kinetic, info->potential, info, err)) != CSIM_OK)
    return st;
  stage_actions(s);
  stage_free_velocity(s, h);
  double t3 = stage_clock();

  // joint limits and the contact problem (000 eqs. 5-14), solve, v+ = v_f + M^-1 J' lambda;
  // a limit that the contact impulses drive a joint through within the step joins the problem,
  // which is solved again (at most twice more)
  stage_limits(s, h);
  for (int round = 0;; round++) {
    int built = contact_build(m, d, s->con, &s->copt, s->vfree);
    if (built == -2)
      return err_set(err, CSIM_ERR_RUN, s->cfg->file, 0, 0, NULL,
                     "at step %ld the contact Jacobians' scratch does not fit the arena (%zu "
                     "bytes, data_arena_default): a bug, please report", s->step,
                     d->arena_size);
    if (built != 0)
      return err_set(err, CSIM_ERR_RUN, s->cfg->file, 0, 0, "contact.memory_budget",
                     "at step %ld the Delassus matrix needs more blocks than its bound "
                     "(contact_max_blocks, %ld): a bug, please report", s->step,
                     s->con->G->maxblocks);
    solver_problem p = contact_problem(s->con);
    solver_set_dual(s->slv, s->copt.warm_start && s->opt.warm_dual ? s->con->dual0 : NULL);
    solver_solve(s->slv, &p, s->con->lambda, &info->solve);
    // an island past the reserved dense work was not solved: stop without applying that answer
    // (q and time stay at the start of the step; the step is not recorded)
    if (info->solve.unsolved_island > 0) return sim_island_overflow(s, &info->solve, err);
    memcpy(d->v, s->vfree, sizeof(double) * (size_t)m->nv);
    contact_apply(m, d, s->con, d->v);
    if (round >= 2 || stage_limits_crossed(s, h) == 0) break;
  }
  // contact velocities after the step (R excluded: the physical velocity)
  memcpy(s->con->cvel, solver_velocity(s->slv), sizeof(double) * 3 * (size_t)s->con->ncon);
  contact_store(s->con, solver_dual(s->slv));
  double t4 = stage_clock();

  // q+ = q ⊕ w h
  stage_integrate(s, d->q, h, d->q);
  d->time += h;
  s->step++;
  if ((st = stage_check(s, h, err)) != CSIM_OK) {
    csim_error e2;  // the audit records the gain of the diverged state too
    stage_audit_final(s, &e2);
    return st;
  }

  double t5 = stage_clock();
  info->ncon = s->con->ncon - s->con->nlimit;
  info->nlimit = s->con->nlimit;
  info->nreduced = s->con->nreduced;
  info->nreduced_touch = s->con->nreduced_touch;
  info->t_collision = t2 - t1;
  info->t_dynamics = t3 - t2;
  info->t_solve = t4 - t3;
  info->t_step = t5 - t0;
  return CSIM_OK;
}

csim_status sim_finish(sim* s, csim_error* err) {
  return stage_audit_final(s, err);
}
