// compile.c — a validated scenario compiled into a simulation (compile.h): the model from the
// URDFs and the world, the initial state, collision, the contact buffers sized to the memory
// budget, the rigid solver or the compliant law, materials, the step's options and the actions.
#include "io/compile.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/compliant/compliant.h"
#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/material.h"
#include "core/spatial.h"
#include "io/compile_control.h"
#include "io/mjcf.h"
#include "io/model_build.h"
#include "io/terrain.h"
#include "io/urdf.h"

// a load-time warning (an input csim takes, but not as the user may think), on stderr
static void print_warning(const csim_error* w) {
  char buf[2048];
  err_format(w, buf, sizeof(buf));
  fprintf(stderr, "csim: warning: %s\n", buf);
}

// value of a material key or the default material's
static double or_default(double v, double def) { return isnan(v) ? def : v; }

// the law's parameters from contact.*, and the checks beyond the schema's ranges: CSIM_ERR_INPUT
// (exit 2) for a rigid model or for values that make no sense for the chosen law
csim_status compile_cmpl_params(const scn_config* cfg, cmpl_params* p, csim_error* err) {
  memset(p, 0, sizeof(*p));
  if (!csim_model_compliant(cfg->model))
    return scn_key_error(cfg, "contact.model", err,
                   "'%s' is a rigid contact model, not a compliant force law",
                   csim_model_names[cfg->model]);
  p->law = cfg->model;
  p->mu = cfg->friction;
  p->k = cfg->stiffness;
  p->d = cfg->damping;
  p->vs = cfg->stiction_velocity;
  p->kt = cfg->friction_stiffness;
  p->bt = cfg->friction_damping;
  p->blend = CMPL_BLEND_DEPTH;
  // law-specific checks beyond the schema's ranges
  if (cfg->restitution > 0)
    return scn_key_error(cfg, "contact.restitution", err,
                   "restitution %g applies to rigid models only; the compliant law '%s' takes "
                   "its energy loss from contact.damping (set restitution to 0)",
                   cfg->restitution, csim_model_names[p->law]);
  if (cfg->compliance > 0)
    return scn_key_error(cfg, "contact.compliance", err,
                   "compliance %g (R = alpha diag(G)) applies to rigid models only; the compliant "
                   "law '%s' is set by contact.stiffness and contact.damping (set compliance to 0)",
                   cfg->compliance, csim_model_names[p->law]);
  if ((p->law == CSIM_MODEL_BRISTLE || p->law == CSIM_MODEL_SQRT_SPRING) && !(p->bt > 0))
    return scn_key_error(cfg, "contact.friction_damping", err,
                   "the '%s' law needs friction_damping > 0: a slipping deflection moves at "
                   "-(kt x + f_t) / friction_damping (found %g)",
                   csim_model_names[p->law], p->bt);
  if (!(p->k > 0) || !isfinite(p->k) || !isfinite(p->d) || !isfinite(p->vs) || !(p->vs > 0) ||
      !isfinite(p->kt) || !isfinite(p->bt))
    return scn_key_error(cfg, "contact", err,
                   "compliant parameters must be finite with stiffness > 0 and "
                   "stiction_velocity > 0");
  return CSIM_OK;
}


// the rigid solver's options from the scenario (rigid models only)
static csim_status map_solver(const scn_config* cfg, solver_options* o, csim_error* err) {
  if (csim_model_compliant(cfg->model))
    return scn_key_error(cfg, "contact.model", err,
                   "compliant contact model '%s' is not available in this version of csim "
                   "(rigid models only so far)", csim_model_names[cfg->model]);
  if (cfg->scheme != CSIM_SCHEME_SEMI_IMPLICIT)
    return scn_key_error(cfg, "integrator.scheme", err,
                   "'%s' integrates compliant contact laws; rigid model '%s' uses velocity-level "
                   "time stepping (000 eqs. 2-5): set integrator.scheme: semi_implicit",
                   csim_scheme_names[cfg->scheme], csim_model_names[cfg->model]);
  if (cfg->solver == CSIM_SOLVER_NONE)
    return scn_key_error(cfg, "solver.name", err,
                   "rigid contact model '%s' needs a solver; 'none' is for compliant models",
                   csim_model_names[cfg->model]);
  memset(o, 0, sizeof(*o));
  o->model = cfg->model;  // one enum from the scenario to the solver (core/options.h)
  o->kind = cfg->solver;
  // force units (002 Sec. II: eps on lambda / dt): the impulse residual is held to tolerance * dt;
  // contactbench (the authors' code solves (G, g / dt) for lambda / dt: its velocities are c / dt)
  // also, with the complementarity <lambda / dt, c / dt> held to the tolerance: eps_c / dt
  o->tolerance = cfg->tolerance * (cfg->tolerance_units != CSIM_TOL_IMPULSE ? cfg->dt : 1.0);
  o->comp_scale = cfg->tolerance_units == CSIM_TOL_CONTACTBENCH ? 1 / cfg->dt : 0;
  o->max_iterations = cfg->max_iterations;
  o->over_relaxation = cfg->over_relaxation;
  o->facets = cfg->facets;
  o->rho = cfg->rho;
  o->rho_adaptive = cfg->rho_adaptive;
  // auto: a relaxed model (ccp, lcp, raisim) stops at its own fixed point, which is not the NCP's
  // where contacts slide (000 Sec. II): held to the NCP residual it would run to the cap there
  csim_criterion crit = cfg->criterion;
  if (crit == CSIM_CRIT_AUTO) crit = cfg->model == CSIM_MODEL_NCP ? CSIM_CRIT_NCP : CSIM_CRIT_MODEL;
  o->criterion = crit == CSIM_CRIT_MODEL      ? SOLVER_STOP_MODEL
                  : crit == CSIM_CRIT_RELATIVE ? SOLVER_STOP_RELATIVE
                  : crit == CSIM_CRIT_NATURAL  ? SOLVER_STOP_NATURAL
                                               : SOLVER_STOP_NCP;
  // the relative change is unitless: the tolerance as given, whatever tolerance_units says
  if (o->criterion == SOLVER_STOP_RELATIVE)
    o->rel_tolerance = cfg->rel_tolerance > 0 ? cfg->rel_tolerance : cfg->tolerance;
  char msg[512];
  if (!solver_pair_supported(o->model, o->kind, msg, sizeof(msg)))
    return scn_key_error(cfg, "solver.name", err, "%s", msg);
  if (o->criterion == SOLVER_STOP_RELATIVE && !solver_relative_supported(o, msg, sizeof(msg)))
    return scn_key_error(cfg, "solver.criterion", err, "%s", msg);
  if (o->comp_scale > 0 && !solver_comp_scale_supported(o, msg, sizeof(msg)))
    return scn_key_error(cfg, "solver.tolerance_units", err, "%s", msg);
  return CSIM_OK;
}

// robots.N.keyframe resolved while the MJCF file is at hand (compile_model): each robot's q and
// v from its <key>, NULL where the robot has none
typedef struct {
  double** q;
  double** v;
} key_state;

// "robots.<r>.<name>", the key whose position an error gives
static const char* robot_key(char* buf, size_t n, int r, const char* name) {
  snprintf(buf, n, "robots.%d.%s", r, name);
  return buf;
}

// initial state of robot r from its keyframe (ks), q0, v0 and joints
static csim_status initial_state(const scn_config* cfg, const sim_model* m, sim_data* d, int r,
                                 const key_state* ks, csim_error* err) {
  const scn_robot* R = &cfg->robots[r];
  char rk[64];
  if (R->keyframe && (R->q0 || R->v0))
    return scn_key_error(cfg, robot_key(rk, sizeof(rk), r, R->q0 ? "q0" : "v0"), err,
                         "robot %d starts from keyframe '%s', which sets q and v: give one of "
                         "keyframe and %s", r, R->keyframe, R->q0 ? "q0" : "v0");
  if (ks->q[r]) {
    memcpy(d->q + m->robot_qadr[r], ks->q[r], sizeof(double) * (size_t)m->robot_nq[r]);
    memcpy(d->v + m->robot_dofadr[r], ks->v[r], sizeof(double) * (size_t)m->robot_nv[r]);
  }
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
    if (j < 0 || m->body_robot[m->jnt_body[j]] != r || !model_jnt_1dof(m, j))
      return scn_key_error(cfg, robot_key(rk, sizeof(rk), r, "joints"), err,
                     "robot '%s' has no 1-dof joint named '%s'", m->robot_name[r],
                     R->joints[k].name);
    d->q[m->jnt_qadr[j]] = R->joints[k].value;
  }
  // a q0 quaternion (free and ball joints) must be non-zero (no orientation); off unit length by
  // more than 1e-3 (more than rounding of hand-written values) it is normalised with a warning: a
  // typo is not silent
  for (int j = 0; R->q0 && j < m->njnt; j++) {
    if (model_jnt_quat(m, j) < 0 || m->body_robot[m->jnt_body[j]] != r) continue;
    int a = m->jnt_qadr[j] + model_jnt_quat(m, j) - m->robot_qadr[r];
    const char* what = m->jnt_type[j] == MODEL_JOINT_FREE ? "the free base" : "ball joint";
    const char* jn = m->jnt_type[j] == MODEL_JOINT_FREE ? "" : m->jnt_name[j];
    const double* qq = R->q0 + a;
    double nrm = sqrt(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]);
    if (!(nrm > 1e-9))
      return scn_key_error(cfg, robot_key(rk, sizeof(rk), r, "q0"), err,
                           "values %d-%d are the quaternion [qx qy qz qw] of %s%s%s%s: "
                           "expected a unit quaternion, found [%g, %g, %g, %g]",
                           a, a + 3, what, jn[0] ? " '" : "", jn, jn[0] ? "'" : "", qq[0], qq[1],
                           qq[2], qq[3]);
    if (fabs(nrm - 1) > 1e-3) {
      csim_error w;
      scn_key_error(cfg, robot_key(rk, sizeof(rk), r, "q0"), &w,
                    "the %s quaternion (values %d-%d) has norm %.9g: normalised",
                    m->jnt_type[j] == MODEL_JOINT_FREE ? "free-base" : "ball-joint", a, a + 3,
                    nrm);
      print_warning(&w);
    }
  }
  // free- and ball-joint quaternions given by hand are normalised once here
  for (int j = 0; j < m->njnt; j++)
    if (model_jnt_quat(m, j) >= 0) sp_normquat(d->q + m->jnt_qadr[j] + model_jnt_quat(m, j));
  return CSIM_OK;
}

// robot r's kinetic and potential energy (stage_mass's dyn_kinetic and dyn_potential) in d after
// kin_forward and dyn_crba, its velocity from v: M is block-diagonal by robot (each a tree of its
// own), so the kinetic energy of v with the other robots' dofs zeroed is robot r's
static void robot_energy(const sim_model* m, sim_data* d, const double* v, int r, double* T,
                         double* V) {
  memset(d->v, 0, sizeof(double) * (size_t)m->nv);
  memcpy(d->v + m->robot_dofadr[r], v + m->robot_dofadr[r], sizeof(double) * (size_t)m->robot_nv[r]);
  *T = dyn_kinetic(m, d);
  *V = dyn_potential_bodies(m, d, m->robot_bodyadr[r], m->robot_bodyadr[r] + m->robot_nbody[r]);
}

// exit 2 naming robot r's key: its positions (q0, else joints, else position) when the potential
// energy is the larger, else v0
static csim_status energy_error(const scn_config* cfg, const sim_model* m, int r, double T,
                                double V, csim_error* err) {
  const scn_robot* R = &cfg->robots[r];
  int pos = !(fabs(V) < T);  // an infinite or NaN potential blames the positions
  const char* name = !pos ? "v0" : R->q0 ? "q0" : R->njoints > 0 ? "joints" : "position";
  char rk[64];
  return scn_key_error(cfg, robot_key(rk, sizeof(rk), r, name), err,
                       "robot '%s' starts with kinetic energy %g J and potential energy %g J: "
                       "expected finite energies, their sum and the energy audit's scale "
                       "(kinetic + |potential|), which the step and the audit derive from the "
                       "initial state", m->robot_name[r], T, V);
}

// every energy the step and the energy audit derive from the initial state (stage_mass,
// stage_audit: kinetic, potential, their sum, the scale kinetic + |potential|) must be finite
// before the first step, else the run ends "complete" with energy inf and drift NaN (issue 26:
// q0 z = 1e308 gives m g z = inf); computed on a scratch copy of the state, robot by robot, then
// summed (an overflow of the sums blames the robot of the largest term)
static csim_status initial_energies(const scn_config* cfg, const sim_model* m,
                                    const sim_data* d0, csim_error* err) {
  sim_data* d = NULL;
  csim_status st = data_create(m, 0, &d, err);
  if (st != CSIM_OK) return st;
  memcpy(d->q, d0->q, sizeof(double) * (size_t)m->nq);
  kin_forward(m, d);
  dyn_crba(m, d);
  double Ts = 0, Vs = 0, scale = 0, big = -1, Tb = 0, Vb = 0;
  int rb = 0;
  for (int r = 0; r < m->nrobot && st == CSIM_OK; r++) {
    double T, V;
    robot_energy(m, d, d0->v, r, &T, &V);
    if (!isfinite(T) || !isfinite(V) || !isfinite(T + fabs(V)))
      st = energy_error(cfg, m, r, T, V, err);
    Ts += T;
    Vs += V;
    scale += T + fabs(V);
    if (fmax(T, fabs(V)) > big) {
      big = fmax(T, fabs(V));
      rb = r;
      Tb = T;
      Vb = V;
    }
  }
  if (st == CSIM_OK && (!isfinite(Ts + Vs) || !isfinite(scale)))
    st = energy_error(cfg, m, rb, Tb, Vb, err);
  data_free(d);
  return st;
}

// compile the actions once: copy their values, resolve names to indices
static csim_status resolve_actions(const scn_config* cfg, sim* s, csim_error* err) {
  const sim_model* m = s->model.m;
  sim_action* acts = calloc((size_t)(cfg->nactions > 0 ? cfg->nactions : 1), sizeof(sim_action));
  if (!acts) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  s->model.act = acts;
  s->model.nact = cfg->nactions;
  for (int a = 0; a < cfg->nactions; a++) {
    const act_spec* A = &cfg->actions[a];
    sim_action* act = &acts[a];
    act->a = *A;
    char key[64];
    snprintf(key, sizeof(key), "actions.%d", a);
    if (A->type == ACT_FORCE) {
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
        if (m->body_robot[m->jnt_body[j]] == r && model_jnt_1dof(m, j)) jl[nj++] = j;
    } else {
      for (int k = 0; k < A->njoint_names; k++) {
        int j = model_find_joint(m, A->joint_names[k]);
        if (j < 0 || !model_jnt_1dof(m, j))
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
    const double* given = A->type == ACT_PD ? A->target : A->offset;
    int ngiven = A->type == ACT_PD ? A->ntarget : A->noffset;
    if (given && ngiven != nj && ngiven != 1)
      return err_set(err, CSIM_ERR_INPUT, cfg->file, A->line, 0, key,
                     "%d joints but %d %s values (expected %d or 1)", nj, ngiven,
                     A->type == ACT_PD ? "target" : "offset", nj);
    for (int k = 0; k < nj; k++)
      ref[k] = given ? given[ngiven == 1 ? 0 : k] : s->data.d->q[m->jnt_qadr[jl[k]]];
    // trajectory lists: one value or one per joint
    if (A->type == ACT_TRAJECTORY) {
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

// the same with a dense family's island work sized for `rows` rows (solver_options island_rows)
static size_t buffer_bytes_rows(const sim* s, const solver_options* so, int n, int rows) {
  solver_options o = *so;
  o.island_rows = rows;
  return sim_buffer_bytes(s->model.m, &s->opt, &o, n);
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
static csim_status size_contacts(const scn_config* cfg, sim* s, solver_options* so,
                                 csim_error* err) {
  // the budget holds the simulation data too: the contact buffers get what it leaves
  double budget = cfg->memory_budget * SIM_MIB - (double)s->model.data_bytes;
  int nlim = 0;
  for (int j = 0; j < s->model.m->njnt; j++) nlim += 2 * (s->model.m->jnt_limited[j] != 0);
  if (!cfg->limits_enabled) nlim = 0;
  nlim += model_nfriction(s->model.m);  // dry joint friction rows (rigid models, contact.h)
  int worst = coll_max_contacts(s->model.coll);
  // condim 4/6: a spin entry per contact at most (contact.h), so k rows per contact
  int k = model_spin_geom(s->model.m) >= 0 ? 2 : 1;
  s->model.maxgeom_worst = worst;
  if (so) so->island_rows = 0;
  int rcap = 0;  // island rows the contact sizing assumes (0: the worst case)
  if ((double)sim_buffer_bytes(s->model.m, &s->opt, so, k * worst + nlim) <= budget) {
    s->model.maxgeom = worst;
  } else {
    int rworst = so ? solver_island_rows(so, k * worst + nlim) : 0;
    if (rworst > 0) {
      // the largest rows within the island's share whose work the family can take (Lemke's
      // tableau has a limit of its own: solver_bytes SIZE_MAX); at least one contact's 3
      int lo = 3, hi = rworst + 1;
      while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        solver_options o = *so;
        o.island_rows = mid;
        if ((double)solver_island_bytes(so, mid) <= SIM_ISLAND_SHARE * budget &&
            solver_bytes(&o, k * worst + nlim) != SIZE_MAX)
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
      size_t b = so ? buffer_bytes_rows(s, so, k * mid + nlim, rcap)
                    : sim_buffer_bytes(s->model.m, &s->opt, NULL, k * mid + nlim);
      if ((double)b <= budget) lo = mid; else hi = mid;
    }
    if (lo < 1)
      return err_set(err, CSIM_ERR_INPUT, cfg->file, 0, 0, "contact.memory_budget",
                     "%g MiB does not hold the buffers of one contact and %d joint-limit rows "
                     "(%.3g MiB) besides the simulation data (%.3g MiB)",
                     cfg->memory_budget, nlim,
                     (double)(so ? buffer_bytes_rows(s, so, k + nlim, rcap)
                                 : sim_buffer_bytes(s->model.m, &s->opt, NULL, k + nlim)) /
                         SIM_MIB,
                     (double)s->model.data_bytes / SIM_MIB);
    s->model.maxgeom = lo;
  }
  s->model.maxcon = k * s->model.maxgeom + nlim;
  if (s->model.maxcon < 1) s->model.maxcon = 1;
  if (rcap > 0) {
    // the island work takes what the contact buffers leave: the largest rows in
    // [rcap, worst case for maxcon] whose buffers fit (rcap's do, by the bisection above)
    int rmax = solver_island_rows(so, s->model.maxcon), lo = rcap < rmax ? rcap : rmax,
        hi = rmax + 1;
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      if ((double)buffer_bytes_rows(s, so, s->model.maxcon, mid) <= budget)
        lo = mid;
      else
        hi = mid;
    }
    so->island_rows = lo < rmax ? lo : 0;  // 0: the worst case after all
  }
  s->model.island_rows = so ? solver_island_rows(so, s->model.maxcon) : 0;
  if (so) {
    solver_options o = *so;
    o.island_rows = 0;
    s->model.island_rows_worst = solver_island_rows(&o, s->model.maxcon);
  }
  s->model.buffer_bytes = sim_buffer_bytes(s->model.m, &s->opt, so, s->model.maxcon);
  return CSIM_OK;
}

// the initial state's contacts must fit (exit 2 before the first step otherwise)
static csim_status initial_contacts(sim* s, csim_error* err) {
  int n = 0;
  kin_forward(s->model.m, s->data.d);
  int dropped = coll_detect(s->model.coll, s->data.coll, s->model.m, s->data.d->geom_xpos,
                            s->data.d->geom_xmat, s->data.con->con, s->model.maxgeom, &n);
  return dropped > 0
             ? sim_contact_overflow(&s->model, &s->data, &s->opt, n + dropped, CSIM_ERR_INPUT, err)
             : CSIM_OK;
}

// what an MJCF file says about the world must agree with the scenario, not be dropped: its
// <option gravity> with world.gravity
static csim_status check_mjcf_world(const scn_config* cfg, const urdf_robot* u, csim_error* err) {
  if (u->has_gravity && (u->gravity[0] != cfg->gravity[0] || u->gravity[1] != cfg->gravity[1] ||
                         u->gravity[2] != cfg->gravity[2]))
    return err_set(err, CSIM_ERR_INPUT, u->file, 0, 0, "option",
                   "the file's gravity [%g, %g, %g] differs from world.gravity [%g, %g, %g]: set "
                   "world.gravity to the file's value", u->gravity[0], u->gravity[1],
                   u->gravity[2], cfg->gravity[0], cfg->gravity[1], cfg->gravity[2]);
  return CSIM_OK;
}

// robots: each URDF read (urdf_text[r] when given, else robots.r.urdf) into specs[r]; the
// robots.N.joint_dynamics: the file's joint damping and dry friction, both, damping only or
// neither (scenario.h)
static void take_joint_dynamics(scn_joint_dynamics jd, urdf_robot* u) {
  for (int j = 0; j < u->njoint; j++) {
    if (jd == SCN_JDYN_IGNORE) u->joints[j].damping = 0;
    if (jd != SCN_JDYN_APPLY) u->joints[j].frictionloss = 0;
  }
}

// robots.N.spin_friction: ignore drops the file's torsional and rolling friction (condim 4/6
// geoms take condim 3, MuJoCo's sliding-only contact); a model change, so it is said on stderr
// with the count of geoms it changed
static void take_spin_friction(const scn_config* cfg, int r, urdf_robot* u) {
  if (cfg->robots[r].spin_friction != SCN_SPIN_IGNORE) return;
  int changed = 0, pairs = 0;
  for (int l = 0; l < u->nlink; l++)
    for (int g = 0; g < u->links[l].ngeom; g++)
      if (u->links[l].geoms[g].condim > 3) u->links[l].geoms[g].condim = 3, changed++;
  for (int k = 0; k < u->npair; k++)  // explicit pairs' condim likewise
    if (u->pairs[k].condim > 3) u->pairs[k].condim = 3, pairs++;
  if (!changed && !pairs) return;
  char key[64], what[64] = "";
  csim_error w;
  if (pairs) snprintf(what, sizeof(what), " and %d <pair>%s", pairs, pairs == 1 ? "" : "s");
  scn_key_error(cfg, robot_key(key, sizeof(key), r, "spin_friction"), &w,
                "ignore: %d geom%s%s of condim 4 or 6 run as condim 3 (their torsional and "
                "rolling friction dropped)", changed, changed == 1 ? "" : "s", what);
  print_warning(&w);
}

// parsed robots are returned in urdf (freed by the caller after the model is built)
static csim_status load_robots(const scn_config* cfg, const char* const* urdf_text,
                               model_robot_spec* specs, urdf_robot** urdf, csim_error* err) {
  for (int r = 0; r < cfg->nrobots; r++) {
    const scn_robot* R = &cfg->robots[r];
    const char** pk = calloc((size_t)R->npackage_paths + 1, sizeof(char*));
    if (!pk) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
    for (int k = 0; k < R->npackage_paths; k++) pk[k] = R->package_paths[k];
    urdf_options uo = urdf_default_options();
    uo.package_paths = pk;
    csim_status st;
    if (urdf_text && urdf_text[r])  // a URDF made in memory (csim validate's cube)
      st = urdf_load_string(urdf_text[r], R->urdf, cfg->dir, &uo, &urdf[r], err);
    else if (R->mjcf)
      st = mjcf_load(R->mjcf_path, NULL, &urdf[r], err);
    else
      st = urdf_load(R->urdf_path, &uo, &urdf[r], err);
    free(pk);
    if (st == CSIM_OK && R->mjcf) st = check_mjcf_world(cfg, urdf[r], err);
    if (st != CSIM_OK) return st;
    take_joint_dynamics(R->joint_dynamics, urdf[r]);
    take_spin_friction(cfg, r, urdf[r]);
    specs[r].urdf = urdf[r];
    specs[r].name = R->name;
    specs[r].base = R->base == SCN_BASE_FREE ? MODEL_BASE_FREE : MODEL_BASE_FIXED;
    memcpy(specs[r].base_pos, R->pos, sizeof(R->pos));
    double Rm[9];
    sp_rpy2mat(Rm, R->rpy);
    sp_mat2quat(specs[r].base_quat, Rm);
    specs[r].require_meshes = 1;
  }
  return CSIM_OK;
}

// the world: gravity, the ground plane or the height grid from its file or the seeded random
// generator (terrain.h), then the model of every robot in it
static csim_status build_model(const scn_config* cfg, const model_robot_spec* specs,
                               sim_model** m, csim_error* err) {
  model_world_spec w;
  memset(&w, 0, sizeof(w));
  memcpy(w.gravity, cfg->gravity, sizeof(w.gravity));
  w.ground = cfg->ground;
  w.ground_height = cfg->ground_height;
  terrain_grid tg = {0, 0, NULL};
  csim_status st = CSIM_OK;
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
  if (st == CSIM_OK) st = model_create(&w, specs, cfg->nrobots, m, err);
  terrain_free(&tg);
  return st;
}

// link pairs (model link indices, 2 x n) that never collide
typedef struct {
  int* pair;
  int n;
} link_pairs;

// the MJCF files' <contact><exclude> pairs in the model's link indices (MuJoCo excludes by body:
// an MJCF body is a link)
static csim_status mjcf_excludes(const sim_model* m, urdf_robot* const* urdf, int nrobot,
                                 link_pairs* ex, csim_error* err) {
  int n = 0;
  for (int r = 0; r < nrobot; r++) n += urdf[r]->nexclude;
  ex->pair = malloc(sizeof(int) * (2 * (size_t)n + 1));
  if (!ex->pair) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  for (int r = 0; r < nrobot; r++)
    for (int k = 0; k < 2 * urdf[r]->nexclude; k++)
      ex->pair[2 * ex->n + k] = m->robot_linkadr[r] + urdf[r]->exclude[k];
  ex->n = n;
  return CSIM_OK;
}

static void key_state_free(key_state* ks, int n) {
  for (int r = 0; r < n; r++) {
    if (ks->q) free(ks->q[r]);
    if (ks->v) free(ks->v[r]);
  }
  free(ks->q);
  free(ks->v);
}

// the key of u named `want`, else the key at that 0-based index; -1 when none
static int find_key(const urdf_robot* u, const char* want) {
  for (int k = 0; k < u->nkey; k++)
    if (u->keys[k].name && !strcmp(u->keys[k].name, want)) return k;
  char* end = NULL;
  long k = strtol(want, &end, 10);
  return end != want && !*end && k >= 0 && k < u->nkey ? (int)k : -1;
}

// MuJoCo's qpos and qvel of robot r (its layout: quaternions [w x y z], a free joint's linear
// velocity that of the body origin) as csim's q and v ([x y z w]; the com's velocity, model.h)
static void key_to_csim(const sim_model* m, int r, const urdf_key* K, double* q, double* v) {
  int qa = m->robot_qadr[r], va = m->robot_dofadr[r];
  if (K->qpos) memcpy(q, K->qpos, sizeof(double) * (size_t)K->nqpos);
  else memcpy(q, m->qpos0 + qa, sizeof(double) * (size_t)m->robot_nq[r]);
  if (K->qvel) memcpy(v, K->qvel, sizeof(double) * (size_t)K->nqvel);
  for (int j = 0; j < m->njnt; j++) {
    int t = m->jnt_type[j], b = m->jnt_body[j];
    if (m->body_robot[b] != r || (t != MODEL_JOINT_FREE && t != MODEL_JOINT_BALL)) continue;
    double* qq = q + m->jnt_qadr[j] - qa + (t == MODEL_JOINT_FREE ? 3 : 0);
    if (K->qpos) {
      double w = qq[0];
      memmove(qq, qq + 1, 3 * sizeof(double));
      qq[3] = w;
      sp_normquat(qq);
    }
    if (t != MODEL_JOINT_FREE) continue;
    // v_com = v_origin + (R w_body) x (R com)
    double R[9], wb[3], rc[3], wx[3];
    double* vv = v + m->jnt_dofadr[j] - va;
    sp_quat2mat(R, qq);
    sp_mulmv3(wb, R, vv + 3);
    sp_mulmv3(rc, R, m->body_com + 3 * b);
    sp_cross3(wx, wb, rc);
    for (int k = 0; k < 3; k++) vv[k] += wx[k];
  }
}

// the first free or ball joint of robot r whose quaternion in K's qpos (MuJoCo's [w x y z]) is
// zero (no orientation: an error, as for q0), -1 when none; one off unit length by more than
// 1e-3 is normalised with a warning, as q0's are (initial_state)
static int key_bad_quat(const sim_model* m, int r, const urdf_key* K) {
  for (int j = 0; K->qpos && j < m->njnt; j++) {
    int t = m->jnt_type[j];
    if (m->body_robot[m->jnt_body[j]] != r || (t != MODEL_JOINT_FREE && t != MODEL_JOINT_BALL))
      continue;
    const double* qq = K->qpos + m->jnt_qadr[j] - m->robot_qadr[r] + (t == MODEL_JOINT_FREE ? 3 : 0);
    double n = sqrt(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]);
    if (!(n > 1e-9)) return j;
    if (fabs(n - 1) > 1e-3) {
      csim_error w;
      err_set(&w, CSIM_ERR_INPUT, K->file, K->line, K->column, "key",
              "<key>: the quaternion of joint '%s' has norm %.9g: normalised", m->jnt_name[j], n);
      print_warning(&w);
    }
  }
  return -1;
}

// robot r's robots.N.keyframe from its MJCF keys into ks (q and v in csim's layout)
static csim_status resolve_key(const scn_config* cfg, const sim_model* m, int r,
                               const urdf_robot* u, key_state* ks, csim_error* err) {
  const scn_robot* R = &cfg->robots[r];
  char rk[64];
  snprintf(rk, sizeof(rk), "robots.%d.keyframe", r);
  if (!R->mjcf) return scn_key_error(cfg, rk, err, "keyframes are MJCF's: robot %d is a URDF", r);
  int k = find_key(u, R->keyframe);
  if (k < 0)
    return scn_key_error(cfg, rk, err, "'%s' names no <key> of %s (it has %d key%s%s%s%s)",
                         R->keyframe, R->mjcf, u->nkey, u->nkey == 1 ? "" : "s",
                         u->nkey ? ": the first named '" : "",
                         u->nkey ? (u->keys[0].name ? u->keys[0].name : "(unnamed)") : "",
                         u->nkey ? "', or give an index" : "");
  const urdf_key* K = &u->keys[k];
  int nq = m->robot_nq[r], nv = m->robot_nv[r];
  if ((K->qpos && K->nqpos != nq) || (K->qvel && K->nqvel != nv))
    return err_set(err, CSIM_ERR_INPUT, K->file, K->line, K->column, "key",
                   "<key%s%s%s>: %s has %d values, the model's %s is %d (robots.%d.keyframe)",
                   K->name ? " name='" : "", K->name ? K->name : "", K->name ? "'" : "",
                   K->qpos && K->nqpos != nq ? "qpos" : "qvel",
                   K->qpos && K->nqpos != nq ? K->nqpos : K->nqvel,
                   K->qpos && K->nqpos != nq ? "nq" : "nv", K->qpos && K->nqpos != nq ? nq : nv, r);
  int bj = key_bad_quat(m, r, K);
  if (bj >= 0)
    return err_set(err, CSIM_ERR_INPUT, K->file, K->line, K->column, "key",
                   "<key>: qpos gives joint '%s' a zero quaternion: expected a unit quaternion "
                   "[w x y z] (robots.%d.keyframe)", m->jnt_name[bj], r);
  ks->q[r] = calloc((size_t)nq + 1, sizeof(double));
  ks->v[r] = calloc((size_t)nv + 1, sizeof(double));
  if (!ks->q[r] || !ks->v[r]) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  key_to_csim(m, r, K, ks->q[r], ks->v[r]);
  if (K->ignored[0]) {
    csim_error w;
    err_set(&w, CSIM_ERR_INPUT, K->file, K->line, K->column, "key",
            "<key> '%s': %s not taken (csim starts at time 0 and drives actuators from actions)",
            R->keyframe, K->ignored);
    print_warning(&w);
  }
  return CSIM_OK;
}

// every robot's robots.N.keyframe (ks->q, ks->v allocated for nrobots)
static csim_status resolve_keys(const scn_config* cfg, const sim_model* m,
                                urdf_robot* const* urdf, key_state* ks, csim_error* err) {
  ks->q = calloc((size_t)cfg->nrobots + 1, sizeof(double*));
  ks->v = calloc((size_t)cfg->nrobots + 1, sizeof(double*));
  if (!ks->q || !ks->v) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  csim_status st = CSIM_OK;
  for (int r = 0; r < cfg->nrobots && !st; r++)
    if (cfg->robots[r].keyframe) st = resolve_key(cfg, m, r, urdf[r], ks, err);
  return st;
}

// URDFs -> model; the parsed URDFs are not kept (the model holds what it needs; the MJCF
// <exclude> pairs go to *ex when ex is not NULL, the robots' keyframes to *ks, both freed by
// the caller)
static csim_status compile_model(const scn_config* cfg, const char* const* urdf_text,
                                 sim_model** m, link_pairs* ex, key_state* ks, csim_error* err) {
  model_robot_spec* specs = calloc((size_t)cfg->nrobots + 1, sizeof(*specs));
  urdf_robot** urdf = calloc((size_t)cfg->nrobots + 1, sizeof(urdf_robot*));
  csim_status st = specs && urdf ? load_robots(cfg, urdf_text, specs, urdf, err)
                                 : err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  if (st == CSIM_OK) st = build_model(cfg, specs, m, err);
  if (st == CSIM_OK && ex) st = mjcf_excludes(*m, urdf, cfg->nrobots, ex, err);
  if (st == CSIM_OK) st = resolve_keys(cfg, *m, urdf, ks, err);
  for (int r = 0; urdf && r < cfg->nrobots; r++) urdf_free(urdf[r]);
  free(urdf);
  free(specs);
  return st;
}

// 1 when the scenario (or a --set) wrote key, not its schema default (scenario.c apply_default)
static int key_given(const scn_config* cfg, const char* key) {
  for (int i = 0; i < cfg->npositions; i++)
    if (!strcmp(cfg->positions[i].key, key))
      return !cfg->positions[i].file || strcmp(cfg->positions[i].file, "<schema default>") != 0;
  return 0;
}

// MuJoCo softness applies to ccp without contact.compliance (material.h): globally with
// contact.solref, per geom for MJCF files' geoms (mat_set_geoms)
static int ccp_softness(const scn_config* cfg) {
  return cfg->model == CSIM_MODEL_CCP && !(cfg->compliance > 0);
}

// the run's collision margin. Under MuJoCo softness (ccp, no contact.compliance, with
// contact.solref or an MJCF robot: material.h) contact.margin defaults to 0, MuJoCo's, whose soft
// constraint starts at contact: within csim's 1 mm margin a contact still apart gets the rigid
// models' gap-closing target (c*_N = -gap/dt), which stopped a soft impact in its first step. 003's
// toss 106 at its MuJoCo values [-3850, -63] took a 413 N one-step spike where MuJoCo 2.2.2
// decelerates the cube with 32 N for 30 ms (csim with margin 0: 32.1, 32.6, 32.4 N; MuJoCo 32.4,
// 32.7, 32.5). A margin the scenario gives is kept: its contacts still apart exert nothing of
// their own (contact.c apart_target), so it changes no soft trajectory either
static double run_margin(const scn_config* cfg) {
  int mjcf = 0;
  for (int r = 0; r < cfg->nrobots; r++) mjcf |= cfg->robots[r].mjcf != NULL;
  int soft = ccp_softness(cfg) && (cfg->solref || mjcf);
  return soft && !key_given(cfg, "contact.margin") ? 0 : cfg->margin;
}

// collision pairs, without the scenario's excluded link pairs and the MJCF files' (fx) and,
// unless contact.self_collision, without pairs of links of the same URDF robot (an MJCF robot
// follows its file: contype/conaffinity, MuJoCo's parent filter and <exclude>, collision.h)
static csim_status compile_collision(const scn_config* cfg, sim* s, const link_pairs* fx,
                                     csim_error* err) {
  const sim_model* m = s->model.m;
  size_t nself = 0;
  for (int r = 0; !cfg->self_collision && r < m->nrobot; r++)
    if (!cfg->robots[r].mjcf)
      nself += (size_t)m->robot_nlink[r] * (size_t)(m->robot_nlink[r] - 1) / 2;
  size_t nex = (size_t)cfg->nexclude + (size_t)fx->n + nself;
  int* ex = calloc(2 * nex + 1, sizeof(int));
  csim_status st = ex ? CSIM_OK : err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  for (int k = 0; st == CSIM_OK && k < 2 * cfg->nexclude; k++) {
    ex[k] = model_find_link(m, cfg->exclude[k]);
    if (ex[k] < 0)
      st = scn_key_error(cfg, "contact.exclude", err, "no link named '%s' in the model",
                         cfg->exclude[k]);
  }
  size_t k = 2 * (size_t)cfg->nexclude;
  if (st == CSIM_OK && fx->n > 0) memcpy(ex + k, fx->pair, sizeof(int) * 2 * (size_t)fx->n);
  k += 2 * (size_t)fx->n;
  for (int r = 0; st == CSIM_OK && !cfg->self_collision && r < m->nrobot; r++) {
    if (cfg->robots[r].mjcf) continue;
    int a0 = m->robot_linkadr[r], na = m->robot_nlink[r];
    for (int a = a0; a < a0 + na; a++)
      for (int b = a + 1; b < a0 + na; b++) {
        ex[k++] = a;
        ex[k++] = b;
      }
  }
  coll_model* cm = NULL;
  if (st == CSIM_OK) st = coll_create(m, ex, (int)nex, &cm, err);
  if (st == CSIM_OK) {
    coll_set_margin(cm, run_margin(cfg));
    coll_set_patch(cm, cfg->patch_angle, cfg->patch_max);
    s->model.coll = cm;
    st = coll_scratch_create(cm, &s->data.coll, err);
  }
  free(ex);
  return st;
}

// integrator.accuracy and integrator.jacobian: the compliant integrators' (compliant/integrate.c)
static csim_status check_error_control(const scn_config* cfg, csim_error* err) {
  if (cfg->accuracy > 0 && !csim_model_compliant(cfg->model))
    return scn_key_error(cfg, "integrator.accuracy", err,
                         "error control applies to the compliant laws (hunt_crossley, "
                         "spring_damper, bristle, sqrt_spring); rigid model '%s' steps at "
                         "integrator.dt: remove integrator.accuracy",
                         csim_model_names[cfg->model]);
  if (cfg->jacobian == CSIM_JAC_QUASI_NEWTON && cfg->scheme != CSIM_SCHEME_IMPLICIT_EULER)
    return scn_key_error(cfg, "integrator.jacobian", err,
                         "quasi_newton applies to integrator.scheme implicit_euler (%s assembles "
                         "its contact-space Newton matrix at every iteration): set "
                         "integrator.jacobian: full or integrator.scheme: implicit_euler",
                         csim_scheme_names[cfg->scheme]);
  if (cfg->error_estimate == CSIM_EST_TRAPEZOID && !(cfg->accuracy > 0))
    return scn_key_error(cfg, "integrator.error_estimate", err,
                         "trapezoid is an error estimate of error control: set "
                         "integrator.accuracy, or remove integrator.error_estimate");
  if (cfg->error_estimate == CSIM_EST_TRAPEZOID && cfg->scheme != CSIM_SCHEME_IMPLICIT_EULER)
    return scn_key_error(cfg, "integrator.error_estimate", err,
                         "trapezoid applies to integrator.scheme implicit_euler (Drake's "
                         "ImplicitEulerIntegrator; %s steps in contact space): set "
                         "integrator.error_estimate: step_doubling or integrator.scheme: "
                         "implicit_euler", csim_scheme_names[cfg->scheme]);
  return CSIM_OK;
}

// the step's options (state.h sim_options, and the compliant law's: its parameters are checked
// later, compile_compliant, in the order errors have always been reported)
static csim_status compile_options(const scn_config* cfg, sim_options* o, csim_error* err) {
  o->file = strdup(cfg->file ? cfg->file : "");
  if (!o->file) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  o->dt = cfg->dt;
  o->rigid = !csim_model_compliant(cfg->model);
  o->warm_dual = cfg->warm_dual;
  o->explicit_vp = cfg->velocity_products == CSIM_VP_EXPLICIT;
  o->limits = cfg->limits_enabled;
  o->effort = cfg->limits_effort;
  o->limit_k = cfg->limits_stiffness;
  o->limit_d = cfg->limits_damping;
  o->margin = run_margin(cfg);
  o->energy_tol = cfg->energy_tolerance;
  o->energy_stop = cfg->on_energy_gain == CSIM_ENERGY_STOP;
  o->memory_budget = cfg->memory_budget;
  o->cmpl.scheme = cfg->scheme;
  o->cmpl.tolerance = cfg->newton_tolerance;
  o->cmpl.max_iterations = cfg->newton_max_iterations;
  o->cmpl.line_search = cfg->line_search;
  o->cmpl.newton_history = cfg->newton_history;
  o->cmpl.accuracy = cfg->accuracy;
  o->cmpl.jacobian = cfg->jacobian;
  o->cmpl.error_estimate = cfg->error_estimate;
  return check_error_control(cfg, err);
}

// contact materials and MuJoCo softness (material.h): link names (and `ground`) resolved to
// geometries; a name that is no link of the model is an input error at its key
static csim_status compile_materials(const scn_config* cfg, sim* s, csim_error* err) {
  const sim_model* m = s->model.m;
  mat_props def = {cfg->friction, cfg->stiffness, cfg->damping, cfg->restitution};
  mat_table* mt = NULL;
  csim_status st = mat_alloc(m, cfg->nmaterials, def, cfg->combine, &mt, err);
  s->model.mat = mt;
  for (int i = 0; st == CSIM_OK && i < cfg->nmaterials; i++) {
    const scn_material* sm = &cfg->materials[i];
    char key[300];
    snprintf(key, sizeof(key), "contact.materials.%.200s", sm->name);
    int ground = !strcmp(sm->name, "ground"), link = model_find_link(m, sm->name);
    if (ground && link >= 0)
      return scn_key_error(cfg, key, err, "'ground' names the ground plane, but a link is also "
                           "called 'ground': rename the link");
    if (!ground && link < 0)
      return scn_key_error(cfg, key, err, "no link named '%s' (expected a URDF link name of a "
                           "robot, or 'ground' for the ground plane)", sm->name);
    mat_props p = {or_default(sm->friction, def.mu), or_default(sm->stiffness, def.k),
                   or_default(sm->damping, def.d), or_default(sm->restitution, def.e)};
    mat_assign(mt, m, i, p, ground ? -1 : link);
    mt->mat_own_mu[i] = !isnan(sm->friction);
  }
  if (st == CSIM_OK && cfg->solref) mat_set_soft(mt, cfg->solref, cfg->solimp, m, s->data.d);
  // MJCF geoms: condim 1 pairs frictionless; their sliding friction[0] (the larger of the two,
  // MuJoCo's rule) unless the scenario gives contact.friction; under ccp (without
  // contact.compliance) their own solref/solimp are its MuJoCo softness (material.h)
  int any = st == CSIM_OK ? mat_set_geoms(mt, m, ccp_softness(cfg), s->data.d) : 0;
  if (any < 0) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  if (any) mt->geom_mu = !key_given(cfg, "contact.friction");  // else the scenario's overrides
  return st;
}

// a geometry of an MJCF file (its own contact parameters: material.h mat_set_geoms)
static int has_mjcf_geoms(const sim_model* m) {
  for (int g = 0; g < m->ngeom; g++)
    if (m->geom_condim[g] > 0) return 1;
  return 0;
}

// a compliant law: its parameters checked, its state; a material's restitution is an error as
// the global key is (the law's damping sets the energy loss: compliant.h)
static csim_status compile_compliant(const scn_config* cfg, sim* s, csim_error* err) {
  if (model_nfriction(s->model.m) > 0)
    return scn_key_error(cfg, "contact.model", err, "the model has dry joint friction "
                         "(frictionloss on %d dofs), which csim simulates with the rigid models "
                         "only (a box row of the contact problem); compliant law '%s' has none: "
                         "choose a rigid model, or robots.N.joint_dynamics: damping (or ignore) "
                         "to leave the file's joint friction out",
                         model_nfriction(s->model.m), csim_model_names[cfg->model]);
  csim_status st = compile_cmpl_params(cfg, &s->opt.cmpl.p, err);
  if (st == CSIM_OK)
    st = cmpl_create(&s->opt.cmpl, s->model.m, s->model.maxcon, &s->data.cmpl, err);
  for (int i = 0; st == CSIM_OK && i < cfg->nmaterials; i++)
    if (cfg->materials[i].restitution > 0) {
      char key[300];
      snprintf(key, sizeof(key), "contact.materials.%.200s.restitution", cfg->materials[i].name);
      st = scn_key_error(cfg, key, err, "restitution %g applies to rigid models only: compliant "
                         "law '%s' takes its energy loss from its damping",
                         cfg->materials[i].restitution, csim_model_names[cfg->model]);
    }
  return st;
}

// the trees below the world (step_model ntree, body_tree, tree_dof; body_parent[b] < b): one
// tree of every body when a tree's dofs are not one contiguous range
static csim_status compile_trees(sim* s, csim_error* err) {
  const sim_model* m = s->model.m;
  size_t nb = (size_t)m->nbody + 1;
  int* tree = calloc(nb, sizeof(int));
  int* dof = calloc(nb + 1, sizeof(int));
  s->model.body_tree = tree;
  s->model.tree_dof = dof;
  s->data.tree_on = calloc(nb, sizeof(int));
  s->data.tree_rho = calloc(4 * nb, sizeof(double));
  if (!tree || !dof || !s->data.tree_on || !s->data.tree_rho)
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  int nt = 0, ok = 1;
  for (int b = 1; b < m->nbody; b++) tree[b] = m->body_parent[b] > 0 ? tree[m->body_parent[b]] : nt++;
  for (int t = 0; t <= nt; t++) dof[t] = -1;
  for (int k = 0, last = -1; k < m->nv; k++) {  // tree t's dofs [dof[t], dof[t + 1])
    int t = tree[m->dof_body[k]];
    if (t != last && (t < last || dof[t] >= 0)) ok = 0;
    if (t != last) dof[t] = k;
    last = t;
  }
  dof[nt] = m->nv;
  for (int t = nt - 1; t >= 0; t--)
    if (dof[t] < 0) dof[t] = dof[t + 1];  // a tree without dofs
  if (!ok || nt == 0) {
    for (int b = 1; b < m->nbody; b++) tree[b] = 0;
    nt = 1, dof[0] = 0, dof[1] = m->nv;
  }
  s->model.ntree = nt;
  return CSIM_OK;
}

// the contact options (contact.h) and the step's per-step work arrays
static csim_status compile_contact(const scn_config* cfg, sim* s, csim_error* err) {
  s->opt.contact.friction = cfg->friction;
  s->opt.contact.baumgarte = cfg->baumgarte;
  s->opt.contact.restitution = cfg->restitution;
  s->opt.contact.warm_start = cfg->warm_start;
  s->opt.contact.dt = cfg->dt;
  s->opt.contact.compliance = cfg->compliance;
  s->opt.contact.mat = s->model.mat;
  s->opt.contact.pyramidal = cfg->cone == CSIM_CONE_PYRAMIDAL;
  // a solver on the factored form (ADMM): G's off-diagonal blocks would go unread (contact.h)
  s->opt.contact.diag_only = s->opt.rigid && !solver_reads_offdiag(&s->opt.solver);
  s->opt.contact.auto_split = s->opt.rigid && solver_auto_splits(&s->opt.solver);
  size_t nv1 = (size_t)s->model.m->nv + 1;
  double** arrays[] = {&s->data.vfree, &s->data.tau,  &s->data.qfrc_ext, &s->data.qfrc_limit,
                       &s->data.aact,  &s->data.apas, &s->data.wpos,     &s->data.vprev,
                       &s->data.qfrc_passive, &s->data.apas1};
  for (size_t k = 0; k < sizeof(arrays) / sizeof(arrays[0]); k++)
    if (!(*arrays[k] = calloc(nv1, sizeof(double))))
      return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  s->data.robot_touch = calloc((size_t)s->model.m->nrobot + 1, sizeof(int));
  if (!s->data.robot_touch) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  return compile_trees(s, err);
}

// condim 4/6 under a model or solver without the generalized cone: refused at load, naming the
// geom (so: the rigid solver's options, NULL for a compliant law)
static csim_status check_spin(const scn_config* cfg, const sim* s, const solver_options* so,
                              csim_error* err) {
  const sim_model* m = s->model.m;
  int g = model_spin_geom(m);
  if (g < 0) return CSIM_OK;
  char why[400];
  if (so && so->criterion == SOLVER_STOP_NATURAL) {  // solver_impl.h: no natural residual there
    csim_error w;
    int l = m->geom_link[g];
    scn_key_error(cfg, "solver.criterion", &w,
                  "geom %d (body '%s') has condim %d: its contacts are held to eps_abs only, "
                  "not to the natural residual (the generalized cone has none in csim yet)", g,
                  l >= 0 ? m->link_name[l] : "world", model_geom_condim(m, g));
    print_warning(&w);
  }
  if (so && solver_spin_supported(so->model, so->kind, why, (int)sizeof(why))) return CSIM_OK;
  if (!so)
    snprintf(why, sizeof(why), "compliant law '%s' has no torsional or rolling friction",
             csim_model_names[cfg->model]);
  int l = m->geom_link[g], cd = model_geom_condim(m, g);
  return scn_key_error(cfg, so ? "solver.name" : "contact.model", err,
                       "geom %d (body '%s') has condim %d (torsional%s friction): %s; choose "
                       "pgs, admm or auto under ncp or ccp, newton under ccp (not ncp), or drop it: "
                       "robots.N.spin_friction: ignore (condim 3)", g,
                       l >= 0 ? m->link_name[l] : "world", cd, cd > 4 ? " and rolling" : "",
                       why);
}

// newton takes a condim 4/6 pair when its cone is round in R^1/2 lambda (newton.c): MuJoCo
// softness gives a pair's friction rows R_k = R_t mu^2 / a_k^2, but without sliding friction
// (mu = 0) one R on every row, so a condim 6 pair of different torsional and rolling coefficients
// is not round: refused, naming the two geoms (a pair's condim is the larger of its geoms')
static csim_status check_newton_spin(const scn_config* cfg, const sim_model* m,
                                     const mat_table* mt, csim_error* err) {
  if (model_spin_geom(m) < 0) return CSIM_OK;
  for (int a = 0; a < m->ngeom; a++) {
    if (model_geom_condim(m, a) < 6) continue;
    for (int b = 0; b < m->ngeom; b++) {
      double sp[2];
      if (b == a || mat_pair_condim(mt, a, b) < 6 || mat_pair(mt, a, b).mu > 0) continue;
      mat_pair_spin(mt, a, b, sp);
      if (!(sp[0] > 0 && sp[1] > 0) || sp[0] == sp[1]) continue;
      return scn_key_error(cfg, "solver.name", err, "solver 'newton' cannot take geoms %d and "
                           "%d: condim 6 without sliding friction and with torsional friction "
                           "%g, rolling %g: their generalized cone is not round in newton's "
                           "variables; choose pgs or admm, or give them sliding friction", a, b,
                           sp[0], sp[1]);
    }
  }
  return CSIM_OK;
}

// solver.name newton (core/solvers/newton.c) solves the soft CCP only: every row needs R > 0 with
// R equal on a contact's three rows (MuJoCo softness), and it has no box of dry joint friction:
// refused at load, once the materials are known (compile_materials). Condim 4/6 it takes
// (check_spin)
// solver.name auto under ccp when newton's conditions hold: auto gives the islands to newton
// (auto.c, solver_auto_soft) and the problems are diag_only (compile_contact)
static int mt_soft(const sim* s) { return s->model.mat && s->model.mat->soft; }

// solver.name newton under ncp (core/solvers/ncp_newton.c) has no box rows (a joint's dry
// friction): refused at load naming the joint (condim 4/6 is check_spin's, the pyramid
// check_cone's)
static csim_status check_ncp_newton(const scn_config* cfg, const sim_model* m, csim_error* err) {
  for (int j = 0; j < m->njnt; j++) {
    int dof = m->jnt_dofadr[j], b = m->jnt_body[j], l = b >= 0 ? m->body_link[b] : -1;
    if (m->dof_frictionloss[dof] > 0)
      return scn_key_error(cfg, "solver.name", err, "solver 'newton' under model 'ncp' cannot "
                           "take joint '%s' (body '%s'): it has dry friction (frictionloss), a "
                           "box row its Alart-Curnier function does not model; choose pgs, admm "
                           "or auto, or robots.N.joint_dynamics: damping",
                           m->jnt_name[j], l >= 0 ? m->link_name[l] : "world");
  }
  return CSIM_OK;
}

static csim_status check_newton(const scn_config* cfg, sim* s, csim_error* err) {
  solver_options* so = &s->opt.solver;
  if (so->kind == CSIM_SOLVER_AUTO && so->model == CSIM_MODEL_CCP) {
    csim_error quiet;
    so->kind = CSIM_SOLVER_NEWTON;  // the same conditions
    int fits = check_newton(cfg, s, &quiet) == CSIM_OK;
    so->kind = CSIM_SOLVER_AUTO;
    so->soft = fits;
    solver_auto_soft(s->data.slv, fits);
    // the pyramid under auto is newton's alone (MuJoCo's model and method): where newton cannot
    // take the model, say why rather than fall back to Gauss-Seidel's hundreds of sweeps
    if (!fits && cfg->cone == CSIM_CONE_PYRAMIDAL && mt_soft(s)) {
      char* alt = strstr(quiet.msg, "; choose");  // newton's alternatives: admm has no pyramid
      if (alt) *alt = '\0';
      return scn_key_error(cfg, "solver.name", err, "solver 'auto' under contact.cone pyramidal "
                           "is newton, which cannot take this model: %s; choose solver.name pgs",
                           quiet.msg);
    }
    return CSIM_OK;
  }
  if (so->kind != CSIM_SOLVER_NEWTON) return CSIM_OK;
  const sim_model* m = s->model.m;
  const mat_table* mt = s->model.mat;
  if (so->model == CSIM_MODEL_NCP) return check_ncp_newton(cfg, m, err);
  if (cfg->compliance > 0)
    return scn_key_error(cfg, "contact.compliance", err, "solver 'newton' takes MuJoCo "
                         "softness (contact.solref or MJCF solref), not contact.compliance: R = "
                         "alpha diag(G) differs between a contact's rows; choose pgs or admm");
  if (!mt || !mt->soft)
    return scn_key_error(cfg, "solver.name", err, "solver 'newton' needs a compliance R > 0 on "
                         "every contact (its primal cost has a quadratic term R^-1 per row): give "
                         "contact.solref or MJCF geoms with solref, or choose pgs or admm");
  for (int j = 0; j < m->njnt; j++) {
    int dof = m->jnt_dofadr[j], b = m->jnt_body[j], l = b >= 0 ? m->body_link[b] : -1;
    const double *lref, *limp;
    double w;
    const char* why = m->dof_frictionloss[dof] > 0 ? "dry friction (frictionloss)"
                      : m->jnt_limited[j] && !mat_limit_soft(mt, m, j, &lref, &limp, &w)
                          ? "a rigid limit (no solreflimit: R = 0)"
                          : NULL;
    if (why)
      return scn_key_error(cfg, "solver.name", err, "solver 'newton' cannot take joint '%s' "
                           "(body '%s'): it has %s; choose pgs or admm",
                           m->jnt_name[j], l >= 0 ? m->link_name[l] : "world", why);
  }
  return check_newton_spin(cfg, m, mt, err);
}

// contact.cone pyramidal (contact.h rhs_pyramid, solver.h rpy): MuJoCo's pyramid of soft edges,
// so ccp with MuJoCo softness on every contact, solved by the ccp pgs sweeps (ccp.c) or newton
// (newton.c; condim 4/6 pairs too, their torsion and rolling edges), auto being newton there
// (check_newton); anything else is refused at load naming the key
static csim_status check_cone(const scn_config* cfg, const sim* s, csim_error* err) {
  if (cfg->cone != CSIM_CONE_PYRAMIDAL) return CSIM_OK;
  const solver_options* so = &s->opt.solver;
  if (cfg->model != CSIM_MODEL_CCP)
    return scn_key_error(cfg, "contact.cone", err, "the pyramidal cone is MuJoCo's, for model "
                         "'ccp' with MuJoCo softness; found model '%s' (expected contact.cone: "
                         "elliptic, or model ccp)", csim_model_names[cfg->model]);
  if (!s->model.mat || !s->model.mat->soft)
    return scn_key_error(cfg, "contact.cone", err, "the pyramidal cone's edges are MuJoCo's soft "
                         "rows: give contact.solref, or an MJCF robot whose geoms carry solref "
                         "(without contact.compliance)");
  if (so->kind != CSIM_SOLVER_PGS && so->kind != CSIM_SOLVER_NEWTON &&
      !(so->kind == CSIM_SOLVER_AUTO && so->soft))
    return scn_key_error(cfg, "solver.name", err, "contact.cone pyramidal is solved by solvers "
                         "'pgs' (Gauss-Seidel on the edges, ccp.c), 'newton' (MuJoCo's primal "
                         "Newton, newton.c) and 'auto' (newton) only; found '%s': set "
                         "solver.name: pgs, newton or auto, or contact.cone: elliptic",
                         csim_solver_names[so->kind]);
  if (so->criterion == SOLVER_STOP_NATURAL)
    return scn_key_error(cfg, "solver.criterion", err, "the natural residual has no pyramidal "
                         "form in csim: choose solver.criterion model, ncp or auto");
  if (cfg->ndump_steps > 0)  // FCLib's problem has the Lorentz cone only (out/fclib.c)
    return scn_key_error(cfg, "output.dump_steps", err, "a dumped contact problem is FCLib's, "
                         "in the Lorentz cone: it cannot hold the pyramid's edges; dump with "
                         "contact.cone: elliptic");
  return CSIM_OK;
}

// contact buffers and the rigid solver (compliant laws: no rigid solver, solver.name ignored)
static csim_status compile_buffers(const scn_config* cfg, sim* s, csim_error* err) {
  solver_options so;
  memset(&so, 0, sizeof(so));
  int rigid = s->opt.rigid;
  csim_status st = rigid ? map_solver(cfg, &so, err) : CSIM_OK;
  if (st == CSIM_OK && rigid) {  // the contact problems carry their factored form
    so.nv = s->model.m->nv;
    so.max_chain = contact_max_chain(s->model.m);
  }
  if (st == CSIM_OK) st = check_spin(cfg, s, rigid ? &so : NULL, err);
  if (st == CSIM_OK) st = size_contacts(cfg, s, rigid ? &so : NULL, err);
  if (st == CSIM_OK && rigid) s->opt.solver = so;  // (also sim_contact_overflow's estimate)
  if (st == CSIM_OK) st = contact_create(s->model.m, s->model.maxcon, &s->data.con, err);
  if (st == CSIM_OK) st = initial_contacts(s, err);
  if (st == CSIM_OK && rigid) st = solver_create(&so, s->model.maxcon, &s->data.slv, err);
  // solver.criterion auto under ncp: auto's coupled islands also to the natural residual (auto.c
  // coupled_criterion: a resting chain's chatter within eps_abs, issue 26)
  if (st == CSIM_OK && rigid)
    solver_auto_coupled_natural(s->data.slv, cfg->criterion == CSIM_CRIT_AUTO &&
                                                 cfg->model == CSIM_MODEL_NCP);
  return st;
}

csim_status compile_model_data(const scn_config* cfg, sim_model** m, sim_data** d,
                               csim_error* err) {
  *m = NULL;
  *d = NULL;
  key_state ks = {NULL, NULL};
  csim_status st = compile_model(cfg, NULL, m, NULL, &ks, err);
  if (st == CSIM_OK) st = data_create(*m, 0, d, err);
  for (int r = 0; st == CSIM_OK && r < cfg->nrobots; r++)
    st = initial_state(cfg, *m, *d, r, &ks, err);
  key_state_free(&ks, cfg->nrobots);
  if (st != CSIM_OK) {
    data_free(*d);
    model_free(*m);
    *m = NULL;
    *d = NULL;
  }
  return st;
}

// the state a run starts from (step_model q_init, v_init: what sim_reset puts back)
static csim_status keep_initial_state(sim* s, csim_error* err) {
  const sim_model* m = s->model.m;
  double* q = malloc(sizeof(double) * (size_t)(m->nq + 1));
  double* v = malloc(sizeof(double) * (size_t)(m->nv + 1));
  s->model.q_init = q;
  s->model.v_init = v;
  if (!q || !v) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  memcpy(q, s->data.d->q, sizeof(double) * (size_t)m->nq);
  memcpy(v, s->data.d->v, sizeof(double) * (size_t)m->nv);
  return CSIM_OK;
}

csim_status sim_create(const scn_config* cfg, sim** out, csim_error* err) {
  return sim_create_urdf(cfg, NULL, out, err);
}

csim_status sim_create_urdf(const scn_config* cfg, const char* const* urdf_text, sim** out,
                            csim_error* err) {
  *out = NULL;
  sim* s = calloc(1, sizeof(*s));
  if (!s) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  sim_model* m = NULL;
  link_pairs fx = {NULL, 0};
  csim_status st = compile_options(cfg, &s->opt, err);
  key_state ks = {NULL, NULL};
  if (st == CSIM_OK) st = compile_model(cfg, urdf_text, &m, &fx, &ks, err);
  s->model.m = m;
  if (st == CSIM_OK) st = data_create(m, 0, &s->data.d, err);
  if (st == CSIM_OK) s->model.data_bytes = data_bytes(m, 0);
  for (int r = 0; st == CSIM_OK && r < cfg->nrobots; r++)
    st = initial_state(cfg, m, s->data.d, r, &ks, err);
  key_state_free(&ks, cfg->nrobots);
  if (st == CSIM_OK) st = initial_energies(cfg, m, s->data.d, err);
  if (st == CSIM_OK) st = keep_initial_state(s, err);
  if (st == CSIM_OK) st = compile_collision(cfg, s, &fx, err);
  free(fx.pair);
  if (st == CSIM_OK) st = compile_buffers(cfg, s, err);
  if (st == CSIM_OK && (cfg->nmaterials > 0 || cfg->solref || has_mjcf_geoms(m)))
    st = compile_materials(cfg, s, err);
  if (st == CSIM_OK && s->opt.rigid) st = check_newton(cfg, s, err);
  if (st == CSIM_OK) st = check_cone(cfg, s, err);
  if (st == CSIM_OK && !s->opt.rigid) st = compile_compliant(cfg, s, err);
  if (st == CSIM_OK) st = compile_contact(cfg, s, err);
  if (st == CSIM_OK) st = resolve_actions(cfg, s, err);
  if (st == CSIM_OK) st = compile_controllers(cfg, s, err);
  if (st != CSIM_OK) {
    sim_free(s);
    return st;
  }
  sim_reset(s);  // the state a run starts from has one definition (state.h step_data_reset)
  *out = s;
  return CSIM_OK;
}
