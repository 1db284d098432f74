// stage.c — the stages of one time step (see stage.h for the outline and the integration
// scheme).
#include "core/stage.h"

#include <math.h>
#include <string.h>

#include "core/contact.h"
#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/spatial.h"

#define SIM_VMAX 1e6            // |v| beyond this is divergence
#define MIDPOINT_MAX_IT 50      // fixed-point iterations of the implicit midpoint (stage_free_velocity)
#define MIDPOINT_TOL 1e-10      // change of v_f, relative to 1 + max |v_f|, that ends them, or
                                // (a tree touching something) a bound on v_f's error (mp_settled)
#define MIDPOINT_RHO_STEPS 20   // steps a measured contraction factor is used, then measured again
#define MIDPOINT_MARGIN 2       // on the contraction factor grown from the measured one


//---------------------------------- positions, collision, mass --------------------------------

void stage_positions(const step_model* sm, step_data* sd, const sim_options* o) {
  (void)o;  // every stage takes (model, data, options); this one needs no option
  kin_forward(sm->m, sd->d);
}

// mark the robot of body b as touching something
static void touch(const step_model* sm, step_data* sd, int b) {
  if (b >= sm->m->nbody) return;
  if (b > 0 && sm->m->body_robot[b] >= 0) sd->robot_touch[sm->m->body_robot[b]] = 1;
}

int stage_collision(const step_model* sm, step_data* sd, const sim_options* o) {
  (void)o;  // the margin and the patch reduction are the collision model's
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  int n = 0;
  int dropped =
      coll_detect(sm->coll, sd->coll, m, d->geom_xpos, d->geom_xmat, sd->con->con, sm->maxgeom, &n);
  sd->con->ncon = n;
  sd->con->nlimit = sd->con->nfric = 0;
  sd->con->nreduced = coll_reduced(sd->coll, &sd->con->nreduced_touch);
  memset(sd->robot_touch, 0, sizeof(int) * (size_t)(m->nrobot > 0 ? m->nrobot : 1));
  for (int i = 0; i < n; i++) {
    touch(sm, sd, m->geom_body[sd->con->con[i].geom1]);
    touch(sm, sd, m->geom_body[sd->con->con[i].geom2]);
  }
  return dropped;
}

// how far 1-dof joint j is past its range, q - lim (signed), 0 within it
static double limit_excess(const sim_model* m, const sim_data* d, int j) {
  const double* rg = m->jnt_range + 2 * j;
  double q = d->q[m->jnt_qadr[j]];
  return q < rg[0] ? q - rg[0] : q > rg[1] ? q - rg[1] : 0;
}

// the energy a compliant model's joint-limit springs store (stage_limit_springs): 1/2 k e^2 of
// every limited joint past its limit by e (a ball joint: its angle past the cone's)
static double limit_energy(const step_model* sm, const step_data* sd, const sim_options* o) {
  const sim_model* m = sm->m;
  const sim_data* d = sd->d;
  if (!o->limits) return 0;
  double U = 0;
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_type[j] == MODEL_JOINT_FREE || !m->jnt_limited[j]) continue;
    const double* rg = m->jnt_range + 2 * j;
    double e = 0;
    if (m->jnt_type[j] == MODEL_JOINT_BALL) {
      double a[3];
      kin_ball_rotation(m, d->q, j, a);
      e = fmax(sp_normalize3(a) - rg[1], 0);
    } else {
      e = limit_excess(m, d, j);
    }
    U += 0.5 * o->limit_k * e * e;
  }
  return U;
}

void stage_mass(const step_model* sm, step_data* sd, const sim_options* o, sim_stepinfo* info) {
  dyn_crba(sm->m, sd->d);
  info->kinetic = dyn_kinetic(sm->m, sd->d);
  info->potential = dyn_potential(sm->m, sd->d);
  // a compliant model's springs (contacts from this state's collision, joint limits) hold
  // energy the audit must count, else each rebound reads as energy from nowhere
  if (!o->rigid)
    info->potential += cmpl_energy(&o->cmpl, sm->mat, sd->con, sd->cmpl) + limit_energy(sm, sd, o);
}

void stage_factor(const step_model* sm, step_data* sd, const sim_options* o) {
  (void)o;
  dyn_factor(sm->m, sd->d);
}

//---------------------------------- energy audit ----------------------------------------------

// DESIGN.md "Integration and energy": injected = E - E0 - work; a rise of injected above its
// lowest value so far is energy that appeared from nowhere (a passive model can only lose it)
csim_status stage_audit(const step_model* sm, step_data* sd, const sim_options* o, double kinetic,
                        double potential, sim_stepinfo* info, csim_error* err) {
  (void)sm;
  long step = sd->step;
  double time = sd->d->time;
  sim_energy* e = &sd->energy;
  double E = kinetic + potential;
  if (!e->started) {
    memset(e, 0, sizeof(*e));
    e->started = 1;
    e->e0 = E;
    e->scale = kinetic + fabs(potential);
    e->flag_step = -1;
  } else {
    e->work += e->work_step;
    e->injected = E - e->e0 - e->work;
    if (e->injected < e->injected_min) e->injected_min = e->injected;
    double rise = e->injected - e->injected_min;
    if (rise > e->rise_max) e->rise_max = rise;
    double scale = fmax(fmax(e->scale, fabs(e->work)), 1e-12);
    if (!e->flagged && rise > o->energy_tol * scale) {
      e->flagged = 1;
      e->flag_step = step;
      e->flag_time = time;
      e->flag_gain = rise;
      sd->warnings[SIM_WARN_ENERGY]++;
      if (o->energy_stop)
        return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL,
                       "energy audit: %.4g J gained beyond the work of actions by step %ld "
                       "(t = %.6g s), %.3g of the energy scale %.4g J > integrator."
                       "energy_tolerance %g (integrator.on_energy_gain: stop)",
                       rise, step, time, rise / scale, scale, o->energy_tol);
    }
  }
  e->work_step = 0;
  e->e_prev = E;
  if (info) {
    info->work = e->work;
    info->injected = e->injected;
  }
  return CSIM_OK;
}

csim_status stage_audit_final(const step_model* sm, step_data* sd, const sim_options* o,
                              csim_error* err) {
  sim_stepinfo info;
  memset(&info, 0, sizeof(info));
  stage_positions(sm, sd, o);
  // a compliant model's contact springs at the final state (stage_mass): its collision, unless
  // the state diverged (the audit then records what it can)
  int finite = 1;
  for (int k = 0; k < sm->m->nq; k++) finite = finite && isfinite(sd->d->q[k]);
  if (!o->rigid && finite) stage_collision(sm, sd, o);
  stage_mass(sm, sd, o, &info);
  stage_factor(sm, sd, o);  // the state a step leaves: M and its factor
  return stage_audit(sm, sd, o, info.kinetic, info.potential, &info, err);
}

//---------------------------------- solve (rigid models) -------------------------------------

csim_status stage_solve(const step_model* sm, step_data* sd, const sim_options* o, double h,
                        sim_stepinfo* info, csim_error* err) {
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  for (int round = 0;; round++) {
    int built = contact_build(m, d, sd->con, &o->contact, sd->vfree);
    if (built == -2)
      return err_set(err, CSIM_ERR_RUN, o->file, 0, 0, NULL,
                     "at step %ld the contact Jacobians' scratch does not fit the arena (%zu "
                     "bytes, data_arena_default): a bug, please report",
                     sd->step, d->arena_size);
    if (built != 0)
      return err_set(err, CSIM_ERR_RUN, o->file, 0, 0, "contact.memory_budget",
                     "at step %ld the Delassus matrix needs more blocks than its bound "
                     "(contact_max_blocks, %ld): a bug, please report",
                     sd->step, sd->con->G->maxblocks);
    solver_problem p = contact_problem(sd->con);
    solver_set_dual(sd->slv, o->contact.warm_start && o->warm_dual ? sd->con->dual0 : NULL);
    solver_solve(sd->slv, &p, sd->con->lambda, &info->solve);
    // an island past the reserved dense work was not solved: stop without applying that answer
    // (q and time stay at the start of the step; the step is not recorded)
    if (info->solve.unsolved_island > 0) return sim_island_overflow(sm, sd, o, &info->solve, err);
    memcpy(d->v, sd->vfree, sizeof(double) * (size_t)m->nv);
    contact_apply(m, d, sd->con, d->v);
    if (round >= 2 || stage_limits_crossed(sm, sd, o, h) == 0) break;
  }
  // contact velocities after the step (R excluded: the physical velocity)
  memcpy(sd->con->cvel, solver_velocity(sd->slv), sizeof(double) * 3 * (size_t)sd->con->ncon);
  contact_store(sd->con, solver_dual(sd->slv));
  return CSIM_OK;
}

//---------------------------------- forces ----------------------------------------------------

// magnitude of a force action at time t (0 outside its window)
static double profile_value(const act_spec* A, double t) {
  if (t < A->start || t > A->stop) return 0;
  double tau = t - A->start;
  switch (A->profile) {
    case ACT_PROFILE_RAMP: return A->magnitude + A->rate * tau;
    case ACT_PROFILE_SINE:
      return A->magnitude + A->amplitude * sin(2 * M_PI * A->frequency * tau + A->phase);
    case ACT_PROFILE_CONSTANT:
    default: return A->magnitude;
  }
}

// a force action -> the body wrench at the body origin, world axes
static void force_action(const step_model* sm, step_data* sd, const sim_action* act, double t) {
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  const act_spec* A = &act->a;
  int l = act->link, b = m->link_body[l];
  if (b <= 0) return;  // a link welded to the world does not move
  double mag = profile_value(A, t);
  if (mag == 0) return;
  // link frame in the world: body pose * link offset
  const double* Rb = d->xmat + 9 * b;
  double Rl[9], Rw[9], pl[3], pw[3], dir[3];
  sp_quat2mat(Rl, m->link_quat + 4 * l);
  sp_mulmm3(Rw, Rb, Rl);
  sp_mulmv3(pl, Rl, A->point);
  sp_add3(pl, pl, m->link_pos + 3 * l);
  sp_xform(pw, Rb, d->xpos + 3 * b, pl);
  if (A->local) sp_mulmv3(dir, Rw, A->direction); else sp_copy3(dir, A->direction);
  double* w = d->xfrc_applied + 6 * b;
  if (A->torque) {
    sp_addscl3(w + 3, dir, mag);
  } else {
    double f[3], r[3], tq[3];
    sp_scale3(f, dir, mag);
    sp_add3(w, w, f);
    sp_sub3(r, pw, d->xpos + 3 * b);
    sp_cross3(tq, r, f);
    sp_add3(w + 3, w + 3, tq);
  }
}

// joint-space PD on a fixed target, or tracking a sine reference
static void joint_action(const step_model* sm, step_data* sd, const sim_action* act, double t) {
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  const act_spec* A = &act->a;
  if (t < A->start || t > A->stop) return;
  for (int k = 0; k < act->njnt; k++) {
    int j = act->jnt[k];
    double qref = act->ref[k], vref = 0;
    if (A->type == ACT_TRAJECTORY) {
      double amp = A->amp ? A->amp[A->namp == 1 ? 0 : k] : 0;
      double fr = A->freq ? A->freq[A->nfreq == 1 ? 0 : k] : 0;
      double ph = A->phase_j ? A->phase_j[A->nphase == 1 ? 0 : k] : 0;
      double arg = 2 * M_PI * fr * (t - A->start) + ph;
      qref += amp * sin(arg);
      vref = amp * 2 * M_PI * fr * cos(arg);
    }
    double u = A->kp * (qref - d->q[m->jnt_qadr[j]]) + A->kd * (vref - d->v[m->jnt_dofadr[j]]);
    if (u > A->effort_limit) u = A->effort_limit;
    if (u < -A->effort_limit) u = -A->effort_limit;
    d->qfrc_applied[m->jnt_dofadr[j]] += u;
  }
}

void stage_actions(const step_model* sm, step_data* sd, const sim_options* o) {
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  int nv = m->nv;
  double t = d->time;
  memset(d->qfrc_applied, 0, sizeof(double) * (size_t)nv);
  memset(d->xfrc_applied, 0, sizeof(double) * 6 * (size_t)m->nbody);
  if (!sm->nact && !sm->nctl) {  // nothing applies a force: what follows would leave zeros
    memset(sd->qfrc_ext, 0, sizeof(double) * (size_t)nv);
    return;
  }
  int nforce = 0;  // force actions: the only writers of xfrc_applied
  for (int a = 0; a < sm->nact; a++) {
    if (sm->act[a].a.type == ACT_FORCE) {
      force_action(sm, sd, &sm->act[a], t);
      nforce++;
    } else {
      joint_action(sm, sd, &sm->act[a], t);
    }
  }
  for (int c = 0; c < sm->nctl; c++) ctl_apply(m, &sm->ctl[c], &sd->ctl[c], d->qfrc_applied);
  // URDF effort limits on the joint torques of actions
  if (o->effort) {
    int clamped = 0;
    for (int j = 0; j < m->njnt; j++) {
      double lim = m->jnt_effort[j];
      if (!model_jnt_1dof(m, j) || !(lim > 0)) continue;
      double* u = d->qfrc_applied + m->jnt_dofadr[j];
      if (*u > lim) { *u = lim; clamped = 1; }
      if (*u < -lim) { *u = -lim; clamped = 1; }
    }
    if (clamped) sd->warnings[SIM_WARN_EFFORT]++;
  }
  // generalized applied force qfrc_applied + J'f_ext (RNEA at rest without gravity: -J'f_ext)
  memcpy(sd->qfrc_ext, d->qfrc_applied, sizeof(double) * (size_t)nv);
  int any = 0;
  for (int k = 0; k < 6 * m->nbody && !any && nforce; k++) any = d->xfrc_applied[k] != 0;
  if (any) {
    dyn_rnea_rest(m, d, d->xfrc_applied, 0, sd->tau);
    for (int k = 0; k < nv; k++) sd->qfrc_ext[k] -= sd->tau[k];
  }
}

csim_status stage_control(const step_model* sm, step_data* sd, const sim_options* o,
                          csim_error* err) {
  if (!sm->nctl) return CSIM_OK;
  // body velocities for the controllers' sensors, their only reader in the step (computed here,
  // not in stage_positions: a run without controllers does not pay for them)
  kin_velocity(sm->m, sd->d);
  const contact_data* c = sd->con;
  ctl_link_forces(sm->m, c->con, c->ncon - c->nlimit, c->frame, c->lambda, o->dt,
                  sd->link_contact, sd->link_force);
  for (int i = 0; i < sm->nctl; i++) {
    csim_status st = ctl_update(sm->m, sd->d, &sm->ctl[i], &sd->ctl[i], sd->step,
                                sd->link_contact, sd->link_force, err);
    if (st != CSIM_OK) return st;
  }
  return CSIM_OK;
}

// a ball joint beyond its cone limit (angle > range[1]), compliant: the spring-damper of
// stage_limit_springs along the rotation axis a (body axes), -k (angle - lim) a - (c + h k)
// (a.v) a, with its damping implicit: h (c + h k) a a' added to M's 3 x 3 block of the joint
// (rows dof..dof+2, each from the diagonal towards the root). Returns 1 when active
static int ball_limit_spring(const step_model* sm, step_data* sd, const sim_options* o, int j,
                             double h) {
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  double a[3], k = o->limit_k, c = o->limit_d;
  kin_ball_rotation(m, d->q, j, a);
  double angle = sp_normalize3(a), lim = m->jnt_range[2 * j + 1];
  if (!(angle > lim)) return 0;
  int dof = m->jnt_dofadr[j];
  double f = -k * (angle - lim) - (c + h * k) * sp_dot3(a, d->v + dof);
  for (int r = 0; r < 3; r++) {
    sd->qfrc_limit[dof + r] = f * a[r];
    for (int t = 0; t <= r && h > 0; t++)
      d->qM[m->dof_Madr[dof + r] + t] += h * (c + h * k) * a[r] * a[r - t];
  }
  touch(sm, sd, m->jnt_body[j]);
  return 1;
}

int stage_limit_springs(const step_model* sm, step_data* sd, const sim_options* o, double h) {
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  memset(sd->qfrc_limit, 0, sizeof(double) * (size_t)m->nv);
  if (!o->limits) return 0;
  double k = o->limit_k, c = o->limit_d;
  int n = 0;
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_type[j] == MODEL_JOINT_FREE || !m->jnt_limited[j]) continue;
    if (m->jnt_type[j] == MODEL_JOINT_BALL) {
      n += ball_limit_spring(sm, sd, o, j, h);
      continue;
    }
    int dof = m->jnt_dofadr[j];
    double e = limit_excess(m, d, j), v = d->v[dof];
    if (e == 0) continue;
    // spring-damper beyond the limit, implicit in the step (backward Euler on this dof:
    // (M + h (c + h k) e e') dv = h (f - k (q - lim) - (c + h k) v)), so any stiffness is stable
    sd->qfrc_limit[dof] = -k * e - (c + h * k) * v;
    if (h > 0) d->qM[m->dof_Madr[dof]] += h * (c + h * k);  // the diagonal, first in its row
    touch(sm, sd, m->jnt_body[j]);
    n++;
  }
  return n;
}

int stage_passive(const step_model* sm, step_data* sd, const sim_options* o, double h) {
  (void)o;  // springs and dampers are the model's
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  int n = dyn_passive(m, d, sd->qfrc_passive);
  if (n == 0 || h <= 0) return n;
  for (int i = 0; i < m->nv; i++)
    if (m->dof_damping[i] != 0) d->qM[m->dof_Madr[i]] += h * m->dof_damping[i];
  return n;
}

// the velocity scale of the midpoint iteration on dofs k0..k1-1: largest |vm| but on a free
// root's linear dofs (model.h: its com's world velocity; the velocity products do not depend on
// it, as a uniform translation changes no body's motion relative to another)
static double mp_vscale(const sim_model* m, const double* vm, int k0, int k1) {
  double s = 0;
  for (int k = k0; k < k1; k++) {
    int b = m->dof_body[k];
    if (k < m->body_dofadr[b] + 3 && m->body_parent[b] == 0 &&
        m->jnt_type[m->body_jnt[b]] == MODEL_JOINT_FREE)
      continue;
    if (fabs(vm[k]) > s) s = fabs(vm[k]);
  }
  return s;
}

// whether tree t's midpoint iteration is settled after iteration `it`, which changed its v_f by
// `change` (max norm) to velocities of at most `scale`: the change is within MIDPOINT_TOL, or, on
// a tree touching something, the error bound of a contraction of factor rho, rho / (1 - rho)
// change (Banach's a-posteriori bound), is. The change test leaves an error of about rho times
// the tolerance (rho 1e-4 on Talos, whose first change is 1e-9: two evaluations a step); a
// touching tree's v_f goes on to a contact problem solved to solver.tolerance (1e-6 by
// default), far above the error bound, while a free tree keeps the change test and with it its
// energy and momentum (the bound's error is systematic: test_integrate's 5 rad/s tumble drifts
// 4e-9 over 10 s under it, 6e-11 under the change test). rho: the ratio of a step's last two
// changes (sd->tree_rho: measured on every iteration past a step's first, used for
// MIDPOINT_RHO_STEPS steps), grown with h s as the iteration's Jacobian h/2 M^-1 d(C(v) v)/dv
// is linear in h and in the velocities (s: mp_vscale, at the iterate), times MIDPOINT_MARGIN;
// unknown at the first steps and after a rest (s = 0 when measured, s > 0 now)
static int mp_settled(const step_model* sm, step_data* sd, int t, int it, double change,
                      double scale, double h, int touching) {
  double* r = sd->tree_rho + 4 * t;  // rho, h s when measured, steps left, the last change
  double last = r[3], hs = -1, tol = MIDPOINT_TOL * (1 + scale);
  r[3] = change;
  if (it > 0 && last > 0) {
    hs = h * mp_vscale(sm->m, sd->vprev, sm->tree_dof[t], sm->tree_dof[t + 1]);
    r[0] = change / last, r[1] = hs, r[2] = MIDPOINT_RHO_STEPS;
  }
  if (change <= tol) return 1;
  if (!touching || r[2] <= 0) return 0;
  if (hs < 0) hs = h * mp_vscale(sm->m, sd->vprev, sm->tree_dof[t], sm->tree_dof[t + 1]);
  if (hs > r[1] && r[1] <= 0) return 0;
  double rho = MIDPOINT_MARGIN * r[0] * (hs > r[1] ? hs / r[1] : 1);
  return rho < 0.5 && rho * change <= (1 - rho) * tol;
}

// tree_on[t] = 1 for every tree, 2 for one of a robot with a body in a contact of this step's
// collision (stage_collision's robot_touch; a tree is one robot's); a step less to use each
// tree's contraction factor
static void mp_trees_on(const step_model* sm, step_data* sd) {
  const sim_model* m = sm->m;
  for (int t = 0; t < sm->ntree; t++) {
    int k = sm->tree_dof[t], r = k < sm->tree_dof[t + 1] ? m->body_robot[m->dof_body[k]] : -1;
    sd->tree_on[t] = r >= 0 && sd->robot_touch[r] ? 2 : 1;
    sd->tree_rho[4 * t + 2]--;
  }
}

void stage_free_velocity(const step_model* sm, step_data* sd, const sim_options* o, double h) {
  const sim_model* m = sm->m;
  sim_data* d = sd->d;
  int nv = m->nv;
  if (nv == 0) return;
  double* vm = sd->vprev;
  // actions, limit springs and gravity: position-dependent only, one solve; gravity from this
  // state's CRBA (stage_mass)
  for (int k = 0; k < nv; k++)
    sd->aact[k] = sd->qfrc_ext[k] + sd->qfrc_limit[k] + sd->qfrc_passive[k] - d->qfrc_grav[k];
  dyn_solve(m, d, sd->aact, 1);
  // velocity products C(q, vm) vm at the midpoint velocity, by fixed-point iteration from the
  // line through the last two steps' (sd->apas, sd->apas1; zero before the first step), within
  // O(h^3) of the answer on a smooth motion (the last step's alone: O(h^2); Talos's first change
  // 1e-7 -> 2e-9 median): slow motions settle at the first evaluation
  // (integrator.velocity_products: explicit evaluates them once at vm = v)
  int expl = o->explicit_vp;
  double* a2 = sd->apas1;  // the step before last's, overwritten by this step's (all trees run)
  sd->apas1 = sd->apas;
  sd->apas = a2;
  for (int k = 0; k < nv; k++) {
    sd->vfree[k] = d->v[k] + h * (sd->aact[k] + (2 * sd->apas1[k] - a2[k]));
    vm[k] = expl ? d->v[k] : 0.5 * (d->v[k] + sd->vfree[k]);
  }
  // each tree (M block diagonal by tree: its velocity products and solve are its own) is
  // iterated until it is settled (mp_settled) relative to its own velocities, then kept:
  // a tree moves as it would alone, and the trees still moving do not pay for a settled one
  // (humanoid100 under the midpoint rule: 5.5 iterations a step, 4.6 from the line). One tree:
  // the single fixed-point iteration as before
  int nt = sm->ntree, *on = sd->tree_on;
  const int* tdof = sm->tree_dof;
  mp_trees_on(sm, sd);
  int converged = 0;
  for (int it = 0; it < MIDPOINT_MAX_IT; it++) {
    dyn_rnea_vp(m, d, vm, sm->body_tree, on, sd->apas);
    for (int t = 0; t < nt; t++)
      if (on[t])
        for (int k = tdof[t]; k < tdof[t + 1]; k++) sd->apas[k] = -sd->apas[k];
    dyn_solve_trees(m, d, sd->apas, nt, tdof, on);
    int left = 0;
    for (int t = 0; t < nt; t++) {
      if (!on[t]) continue;
      double change = 0, scale = 0;
      for (int k = tdof[t]; k < tdof[t + 1]; k++) {
        double vf = d->v[k] + h * (sd->aact[k] + sd->apas[k]), c = fabs(vf - sd->vfree[k]);
        if (c > change) change = c;
        if (fabs(vf) > scale) scale = fabs(vf);
        sd->vfree[k] = vf;
        vm[k] = 0.5 * (d->v[k] + vf);
      }
      if (expl || mp_settled(sm, sd, t, it, change, scale, h, on[t] == 2)) on[t] = 0;
      left += on[t] != 0;
    }
    sd->midpoint_its++;
    if (!left) {
      converged = 1;
      break;
    }
  }
  if (!converged) sd->warnings[SIM_WARN_MIDPOINT]++;
}

//---------------------------------- joint limits (rigid) --------------------------------------

// write limit `side` of joint j at gap `gap` as contact entry n (contact.h); a ball joint's cone
// limit (side 1) carries its rotation axis in the normal (body axes; contact.c's Jacobian row
// -axis); returns 1, or 0 when the buffer is full (sized for every limit: cannot happen, counted
// if it did)
static int append_limit(const step_model* sm, step_data* sd, int n, int j, int side, double gap,
                        const double* axis) {
  if (n >= sm->maxcon) {
    sd->warnings[SIM_WARN_CONTACTFULL]++;
    return 0;
  }
  int b = sm->m->jnt_body[j];
  coll_contact* k = &sd->con->con[n];
  memcpy(k->pos, sd->d->xpos + 3 * b, sizeof(k->pos));
  k->normal[0] = k->normal[1] = 0;
  k->normal[2] = 1;
  if (axis) sp_copy3(k->normal, axis);
  k->depth = -gap;
  k->geom1 = -1;
  k->geom2 = j;
  k->feature = side;
  touch(sm, sd, b);
  return 1;
}

// a ball joint's one limit side, MuJoCo's cone limit: gap = range[1] - angle, rate -axis.v (the
// rotation's angle and axis, body axes: d angle/dt = axis.w); returns 2 (limit_sides)
static int ball_limit_side(const sim_model* m, const sim_data* d, int j, const double* v,
                           double gap[2], double rate[2], double axis[3]) {
  kin_ball_rotation(m, d->q, j, axis);
  gap[1] = m->jnt_range[2 * j + 1] - sp_normalize3(axis);
  rate[1] = -sp_dot3(axis, v + m->jnt_dofadr[j]);
  return 2;
}

// the limits of joint j at velocity v: for each side (bit s of the result; 0 lower, 1 upper) the
// gap and its rate of change (a ball joint: ball_limit_side). Inline: a 1-dof joint's sides are a
// few subtractions, less than a call (every joint of a legged robot, twice a step). A 1-dof
// joint's side is present only where its bound is finite (limit_bounded), which the callers ask
// last: a joint far from its limits does not
static inline int limit_sides(const sim_model* m, const sim_data* d, int j, const double* v,
                              double gap[2], double rate[2], double axis[3]) {
  if (m->jnt_type[j] == MODEL_JOINT_BALL) return ball_limit_side(m, d, j, v, gap, rate, axis);
  const double* rg = m->jnt_range + 2 * j;
  int dof = m->jnt_dofadr[j];
  double q = d->q[m->jnt_qadr[j]];
  gap[0] = q - rg[0];
  gap[1] = rg[1] - q;
  rate[0] = v[dof];
  rate[1] = -v[dof];
  return 3;
}

// side `side` of joint j's limits is present (limit_sides): a ball joint's cone, a finite bound
static int limit_bounded(const sim_model* m, int j, int side) {
  return m->jnt_type[j] == MODEL_JOINT_BALL || isfinite(m->jnt_range[2 * j + side]);
}

void stage_limits(const step_model* sm, step_data* sd, const sim_options* o, double h) {
  const sim_model* m = sm->m;
  const sim_data* d = sd->d;
  contact_data* c = sd->con;
  if (!o->limits) return;
  int n = c->ncon;
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_type[j] == MODEL_JOINT_FREE || !m->jnt_limited[j]) continue;
    double gap[2], rate[2], axis[3];
    int sides = limit_sides(m, d, j, sd->vfree, gap, rate, axis);
    const double* ax = m->jnt_type[j] == MODEL_JOINT_BALL ? axis : NULL;
    for (int side = 0; side < 2; side++) {
      if (!(sides >> side & 1)) continue;
      // gap to the limit and the free approach speed towards it (fmax(0, -rate) without the
      // libm call: a NaN gives 0 as there, and the sign of a zero is lost on the nonzero gap)
      double ap = -rate[side] > 0 ? -rate[side] : 0;
      if (gap[side] > o->margin && gap[side] - h * ap > o->margin) continue;
      if (!limit_bounded(m, j, side)) continue;
      n += append_limit(sm, sd, n, j, side, gap[side], ax);
    }
  }
  c->nlimit = n - c->ncon;
  c->ncon = n;
}

void stage_joint_friction(const step_model* sm, step_data* sd, const sim_options* o) {
  (void)o;  // the bounds are the model's (dof_frictionloss); the step's h enters in contact.c
  const sim_model* m = sm->m;
  contact_data* c = sd->con;
  int n = c->ncon, added = 0;
  for (int i = 0; i < m->nv; i++) {
    if (!(m->dof_frictionloss[i] > 0)) continue;
    if (n >= sm->maxcon) {  // sized for every row (compile.c): cannot happen, counted if it did
      sd->warnings[SIM_WARN_CONTACTFULL]++;
      break;
    }
    int j = m->dof_jnt[i], b = m->jnt_body[j];
    coll_contact* k = &c->con[n++];
    memset(k, 0, sizeof(*k));
    memcpy(k->pos, sd->d->xpos + 3 * b, sizeof(k->pos));
    k->normal[2] = 1;
    k->geom1 = CONTACT_JOINT_FRICTION;
    k->geom2 = j;
    k->feature = 2 + i - m->jnt_dofadr[j];
    added++;
  }
  c->nlimit += added;
  c->nfric = added;
  c->ncon = n;
}

void stage_spin(const step_model* sm, step_data* sd, const sim_options* o) {
  contact_data* c = sd->con;
  const mat_table* mt = o->contact.mat;
  int ngc = c->ncon - c->nlimit, n = c->ncon, added = 0;
  c->nspin = 0;
  if (!mt || !mt->geom_condim) return;
  for (int i = 0; i < ngc; i++) {
    c->link[i] = -1;
    if (mat_pair_condim(mt, c->con[i].geom1, c->con[i].geom2) <= 3) continue;
    if (n >= sm->maxcon) {  // sized for a spin entry per contact (compile.c): counted if not
      sd->warnings[SIM_WARN_CONTACTFULL]++;
      break;
    }
    c->con[n] = c->con[i];
    c->con[n].geom1 = CONTACT_SPIN - c->con[i].geom1;
    c->link[i] = n;
    c->link[n++] = -2 - i;
    added++;
  }
  for (int i = ngc; i < c->ncon; i++) c->link[i] = -1;
  c->nlimit += added;
  c->nspin = added;
  c->ncon = n;
}

int stage_limits_crossed(const step_model* sm, step_data* sd, const sim_options* o, double h) {
  const sim_model* m = sm->m;
  const sim_data* d = sd->d;
  contact_data* c = sd->con;
  if (!o->limits) return 0;
  int n = c->ncon, added = 0;
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_type[j] == MODEL_JOINT_FREE || !m->jnt_limited[j]) continue;
    double gap[2], rate[2], axis[3];
    int sides = limit_sides(m, d, j, d->v, gap, rate, axis);
    const double* ax = m->jnt_type[j] == MODEL_JOINT_BALL ? axis : NULL;
    for (int side = 0; side < 2; side++) {
      if (!(sides >> side & 1)) continue;
      double gap1 = gap[side] + h * rate[side];
      if (gap1 >= 0 || gap[side] < 0) continue;  // not crossed, or already beyond (then in the problem)
      if (!limit_bounded(m, j, side)) continue;
      int present = 0;
      for (int i = c->ncon - c->nlimit; i < c->ncon; i++)
        present |= c->con[i].geom1 > CONTACT_SPIN && c->con[i].geom2 == j &&
                   c->con[i].feature == side;
      if (present) continue;
      int a = append_limit(sm, sd, n, j, side, gap[side], ax);
      n += a;
      added += a;
    }
  }
  c->nlimit += added;
  c->ncon = n;
  return added;
}

//---------------------------------- integrate, check ------------------------------------------

void stage_integrate(const step_model* sm, step_data* sd, const sim_options* o, const double* q,
                     double h, double* q_out) {
  (void)o;
  const sim_model* m = sm->m;
  const sim_data* d = sd->d;
  int nv = m->nv;
  double* w = sd->wpos;
  memcpy(w, d->v, sizeof(double) * (size_t)nv);
  // a robot is in contact when an impulse or a limit torque acted on it this step (a contact
  // reported within the margin that stayed open does not count)
  const contact_data* c = sd->con;
  memset(sd->robot_touch, 0, sizeof(int) * (size_t)(m->nrobot > 0 ? m->nrobot : 1));
  for (int i = 0; i < c->ncon; i++) {
    const double* l = c->lambda + 3 * i;
    // a dry friction row's normal is its pinned bound (contact.h): it acts through t1 alone
    int fric = c->con[i].geom1 == CONTACT_JOINT_FRICTION;
    if (l[0] == 0 && (fric || (l[1] == 0 && l[2] == 0))) continue;
    touch(sm, sd, c->body1[i]);
    touch(sm, sd, c->body2[i]);
  }
  for (int k = 0; k < nv; k++)
    if (sd->qfrc_limit[k] != 0) touch(sm, sd, m->dof_body[k]);
  // free flight: trapezoidal in the passive forces, Cayley rotation of the base (stage.h). For a
  // free-floating robot uniform gravity accelerates its root's com by g and nothing else (every
  // body falls alike; model.h: the root's linear dofs are its com velocity in world axes)
  for (int r = 0; r < m->nrobot; r++) {
    if (m->robot_base[r] != MODEL_BASE_FREE || sd->robot_touch[r]) continue;
    int a0 = m->robot_dofadr[r];
    for (int k = a0; k < a0 + m->robot_nv[r]; k++) w[k] -= 0.5 * h * sd->apas[k];
    for (int k = 0; k < 3; k++) w[a0 + k] -= 0.5 * h * m->gravity[k];
    double* wa = w + a0 + 3;
    double n = sp_norm3(wa);
    if (n > 0 && h > 0) sp_scale3(wa, wa, 2 * atan(0.5 * h * n) / (h * n));
  }
  // work of actions and external forces over the step
  double work = 0;
  for (int k = 0; k < nv; k++) work += sd->qfrc_ext[k] * w[k];
  sd->energy.work_step += h * work;
  kin_integrate(m, q, w, h, q_out);
}

csim_status stage_check(const step_model* sm, const step_data* sd, const sim_options* o, double h,
                        csim_error* err) {
  const sim_model* m = sm->m;
  const sim_data* d = sd->d;
  for (int k = 0; k < m->nv; k++)
    if (!(fabs(d->v[k]) <= SIM_VMAX))  // not finite (a NaN compares false) or beyond SIM_VMAX
      return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL,
                     "diverged at step %ld (t = %.6g s): velocity %d is %g%s", sd->step - 1,
                     d->time - h, k, d->v[k],
                     o->rigid ? ""
                              : " (compliant contact: a smaller integrator.dt or a "
                                "softer contact.stiffness may help)");
  for (int k = 0; k < m->nq; k++)
    if (!isfinite(d->q[k]))
      return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL,
                     "diverged at step %ld (t = %.6g s): configuration %d is not finite",
                     sd->step - 1, d->time - h, k);
  return CSIM_OK;
}
