// compliant.c — compliant force laws, regularized friction, TALS and the per-contact deflection
// state (001 eqs. 5-7, 16, 19-22, Sec. III-A; 004; see compliant.h).
#include "core/compliant/compliant.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// smallest sqrt(delta) used in the sqrt_spring derivative (the law's d/ddelta of sqrt is
// unbounded at delta = 0; delta = 1e-12 m is far below any penetration that carries load)
#define SQRT_FLOOR 1e-6

//---------------------------------- parameters ------------------------------------------------

//---------------------------------- force laws ------------------------------------------------

double cmpl_normal(const cmpl_params* p, double delta, double vn, double* dpi_ddelta,
                   double* dpi_dvn) {
  double pd = 0, pv = 0, pi = 0;
  if (delta > 0) {
    switch (p->law) {
      case CSIM_MODEL_HUNT_CROSSLEY:
      case CSIM_MODEL_BRISTLE: {
        // pi = k (1 + d ddelta)_+ delta_+ with ddelta = -vn (001 eq. 5)
        double damp = 1 - p->d * vn;
        if (damp > 0) {
          pi = p->k * damp * delta;
          pd = p->k * damp;
          pv = -p->k * p->d * delta;
        }
        break;
      }
      case CSIM_MODEL_SPRING_DAMPER: {
        // jiminy: (k delta - c vn)_+ blended by tanh(2 delta / eps)
        double s = p->k * delta - p->d * vn;
        if (s > 0) {
          double b = tanh(2 * delta / p->blend);
          pi = b * s;
          pd = 2 / p->blend * (1 - b * b) * s + b * p->k;
          pv = -b * p->d;
        }
        break;
      }
      case CSIM_MODEL_SQRT_SPRING: {
        // MIT Cheetah: sqrt(delta) (k delta - d vn), positive part
        double zr = sqrt(delta), s = p->k * delta - p->d * vn;
        if (s > 0) {
          pi = zr * s;
          pd = s / (2 * (zr > SQRT_FLOOR ? zr : SQRT_FLOOR)) + zr * p->k;
          pv = -zr * p->d;
        }
        break;
      }
      default: break;
    }
  }
  if (dpi_ddelta) *dpi_ddelta = pd;
  if (dpi_dvn) *dpi_dvn = pv;
  return pi;
}

double cmpl_elastic(const cmpl_params* p, double delta) {
  if (!(delta > 0)) return 0;
  switch (p->law) {
    case CSIM_MODEL_HUNT_CROSSLEY:
    case CSIM_MODEL_BRISTLE: return 0.5 * p->k * delta * delta;  // the spring part k delta
    case CSIM_MODEL_SQRT_SPRING: return 0.4 * p->k * delta * delta * sqrt(delta);  // k d^3/2
    case CSIM_MODEL_SPRING_DAMPER: {
      // k int_0^delta s tanh(2 s / eps) ds: past 5 eps, k (delta^2/2 - pi^2 eps^2 / 96) (the
      // integral of s (1 - tanh(a s)) over s > 0 is pi^2 / (24 a^2); what is left beyond 5 eps
      // is below 1e-8 of it); below, Simpson's rule on 64 intervals
      double eps = p->blend;
      if (delta >= 5 * eps) return p->k * (0.5 * delta * delta - M_PI * M_PI * eps * eps / 96);
      int n = 64;
      double hs = delta / n, acc = 0;
      for (int i = 0; i <= n; i++) {
        double x = i * hs, w = i == 0 || i == n ? 1 : i % 2 ? 4 : 2;
        acc += w * x * tanh(2 * x / eps);
      }
      return p->k * acc * hs / 3;
    }
    default: return 0;
  }
}

const cmpl_params* cmpl_law_at(const cmpl_options* o, const mat_table* mat,
                               const contact_data* con, int i, cmpl_params* tmp) {
  if (!mat || con->con[i].geom1 < 0) return &o->p;
  mat_props mp = mat_pair(mat, con->con[i].geom1, con->con[i].geom2);
  *tmp = o->p;
  tmp->mu = mp.mu;
  tmp->k = mp.k;
  tmp->d = mp.d;
  return tmp;
}

double cmpl_energy(const cmpl_options* o, const mat_table* mat, const contact_data* con,
                   const cmpl_data* c) {
  double U = 0;
  for (int i = 0; i < con->ncon; i++) {
    cmpl_params tmp;
    U += cmpl_elastic(cmpl_law_at(o, mat, con, i, &tmp), con->con[i].depth);
  }
  if (o->p.law == CSIM_MODEL_BRISTLE && c)
    for (int i = 0; i < c->nprev; i++) {
      const double* x = c->prev_x + 3 * i;
      U += 0.5 * o->p.kt * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    }
  return U;
}

double cmpl_mu_reg(double mu, double s, double* dmu_ds) {
  // 001 eq. 7: linear up to s = 1, then constant
  if (s < 1) {
    if (dmu_ds) *dmu_ds = mu;
    return mu * s;
  }
  if (dmu_ds) *dmu_ds = 0;
  return mu;
}

void cmpl_force(const cmpl_params* p, const cmpl_point* c, const double vc[3], cmpl_eval* out) {
  memset(out, 0, sizeof(*out));
  double vt0 = vc[0], vt1 = vc[1], vn = vc[2];
  double* D = out->dfdv;

  // normal force: frozen (semi-implicit), or pi(delta0 - hpen vn, vn) (001 eq. 19)
  double delta = c->frozen ? c->delta0 : c->delta0 - c->hpen * vn;
  double pi, dpi_dvn = 0;
  if (c->frozen) {
    pi = c->pi0;
  } else {
    double pd, pv;
    pi = cmpl_normal(p, delta, vn, &pd, &pv);
    dpi_dvn = pv - c->hpen * pd;
  }
  out->pi = pi;
  out->f[2] = pi;
  D[8] = dpi_dvn;

  if (p->law == CSIM_MODEL_HUNT_CROSSLEY || p->law == CSIM_MODEL_SPRING_DAMPER) {
    // regularized Coulomb (001 eqs. 6-7) and its gradient (001 eq. 16; 22 for the vn coupling)
    out->radius = p->vs;
    double nrm = sqrt(vt0 * vt0 + vt1 * vt1);
    double s = nrm / p->vs, dmu;
    double mut = cmpl_mu_reg(p->mu, s, &dmu);
    out->stick = pi > 0 && s <= 1;
    if (pi <= 0 && dpi_dvn == 0) return;
    if (nrm > 0) {
      double u0 = vt0 / nrm, u1 = vt1 / nrm;
      double a = mut / nrm, b = dmu / p->vs;
      out->f[0] = -mut * pi * u0;
      out->f[1] = -mut * pi * u1;
      // -pi [mu~/|v| (I - u u') + mu~'/vs u u']
      D[0] = -pi * (a * (1 - u0 * u0) + b * u0 * u0);
      D[1] = -pi * (-a * u0 * u1 + b * u0 * u1);
      D[3] = D[1];
      D[4] = -pi * (a * (1 - u1 * u1) + b * u1 * u1);
      D[2] = -mut * u0 * dpi_dvn;
      D[5] = -mut * u1 * dpi_dvn;
    } else {
      // the linear region at v_t = 0: f_t = -mu pi v_t / vs
      D[0] = D[4] = -pi * p->mu / p->vs;
    }
    return;
  }

  // bristle / sqrt_spring: implicit deflection, f_stick = -zr (kt (x0 + h v_t) + bt v_t)
  double zr = 1;
  if (p->law == CSIM_MODEL_SQRT_SPRING) zr = delta > 0 ? sqrt(delta) : 0;
  double a = p->kt * c->h + p->bt;
  out->center[0] = -p->kt * c->x0[0] / a;
  out->center[1] = -p->kt * c->x0[1] / a;
  if (pi <= 0 || zr <= 0) return;  // unloaded: no friction, deflection reset
  double R = p->mu * pi;
  out->radius = R / (zr * a);
  double fs0 = -zr * (a * vt0 + p->kt * c->x0[0]);
  double fs1 = -zr * (a * vt1 + p->kt * c->x0[1]);
  double fsn = sqrt(fs0 * fs0 + fs1 * fs1);
  if (fsn <= R) {
    // sticking: f_t = f_stick, affine in v_t
    out->stick = 1;
    out->f[0] = fs0;
    out->f[1] = fs1;
    D[0] = D[4] = -zr * a;
    if (p->law == CSIM_MODEL_SQRT_SPRING && !c->frozen) {
      // zr depends on vn through delta = delta0 - hpen vn: d zr / dvn / zr = -hpen / (2 delta)
      double g = -c->hpen / (2 * delta);
      D[2] = fs0 * g;
      D[5] = fs1 * g;
    }
  } else {
    // clamped to the cone: f_t = mu pi f_stick / |f_stick|
    double u0 = fs0 / fsn, u1 = fs1 / fsn, sc = -R * zr * a / fsn;
    out->f[0] = R * u0;
    out->f[1] = R * u1;
    D[0] = sc * (1 - u0 * u0);
    D[1] = D[3] = -sc * u0 * u1;
    D[4] = sc * (1 - u1 * u1);
    D[2] = p->mu * dpi_dvn * u0;
    D[5] = p->mu * dpi_dvn * u1;
  }
  // deflection after the step: x1 = (bt x0 - h f_t / zr) / (kt h + bt)
  out->x1[0] = (p->bt * c->x0[0] - c->h * out->f[0] / zr) / a;
  out->x1[1] = (p->bt * c->x0[1] - c->h * out->f[1] / zr) / a;
}

double cmpl_tals_alpha(const double v[2], const double dv[2], double radius, double theta_max) {
  if (!(radius > 0)) return 1;
  double dv2 = dv[0] * dv[0] + dv[1] * dv[1];
  // small updates are never limited (Drake's relative tolerance 1e-2 of the stiction radius)
  if (dv2 < 1e-4 * radius * radius) return 1;
  double v2 = v[0] * v[0] + v[1] * v[1];
  double v1x = v[0] + dv[0], v1y = v[1] + dv[1];
  double v12 = v1x * v1x + v1y * v1y, r2 = radius * radius;
  // from inside the stiction region, or landing in it: strong gradients, accept
  if (v2 <= r2 || v12 <= r2) return 1;
  double vdv = v[0] * dv[0] + v[1] * dv[1];
  // both outside: does the segment cross the region? stop at its point closest to the centre
  if (vdv < 0) {
    double a = -vdv / dv2;
    if (a < 1) {
      double px = v[0] + a * dv[0], py = v[1] + a * dv[1];
      if (px * px + py * py < r2) return a;
    }
  }
  // outside the region all along: limit the direction change to theta_max (Fig. 3, right)
  double vn = sqrt(v2), v1n = sqrt(v12);
  double cos1 = (v2 + vdv) / (vn * v1n);
  if (cos1 >= cos(theta_max)) return 1;
  // angle of v + a dv seen from the centre: tan(phi) = a |v x dv| / (|v|^2 + a v.dv); phi =
  // theta_max (< pi/2, so |v|^2 + a v.dv > 0 there) at
  // a = tan(th) |v|^2 / (|v x dv| - tan(th) v.dv)
  double cr = fabs(v[0] * dv[1] - v[1] * dv[0]), t = tan(theta_max);
  double den = cr - t * vdv;
  if (!(den > 0)) return 1;
  double a = t * v2 / den;
  if (!(a > 0) || a > 1) return 1;
  return a;
}

//---------------------------------- state -----------------------------------------------------

size_t cmpl_bytes(const cmpl_options* o, const sim_model* m, int maxcon) {
  if (maxcon < 1) maxcon = 1;
  size_t mc = (size_t)maxcon, n3 = 3 * mc, nv = (size_t)(m->nv > 0 ? m->nv : 1);
  size_t nq = (size_t)(m->nq > 0 ? m->nq : 1), npiv = n3 > nv ? n3 : nv;
  size_t D = sizeof(double), I = sizeof(int);
  // the callocs of cmpl_create, in its order
  size_t b = sizeof(cmpl_data) + n3 * I + 2 * n3 * D + 2 * mc * D + mc * I + mc * D +
             6 * n3 * D + 9 * mc * D + n3 * n3 * D + npiv * I + mc * sizeof(cmpl_point) +
             mc * sizeof(cmpl_eval) + nq * D + nv * D + n3 * I + n3 * D;
  b += (size_t)(o->newton_history > 0 ? o->newton_history : 0) * D;  // hist
  if (o->scheme == CSIM_SCHEME_IMPLICIT_EULER)
    b += nq * D + 7 * nv * D + nv * nv * D + contact_bytes(m, maxcon);
  if (o->jacobian == CSIM_JAC_QUASI_NEWTON) b += nv * nv * D;  // Jd
  if (o->accuracy > 0) b += nq * D + nv * D;                    // qfull, vfull
  if (o->accuracy > 0 && o->error_estimate == CSIM_EST_TRAPEZOID) b += 2 * nv * D;  // a0h, vq
  return b;
}

csim_status cmpl_create(const cmpl_options* o, const sim_model* m, int maxcon, cmpl_data** out,
                        csim_error* err) {
  *out = NULL;
  csim_status st = CSIM_OK;
  cmpl_data* c = calloc(1, sizeof(*c));
  if (!c) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  if (maxcon < 1) maxcon = 1;
  c->maxcon = maxcon;
  c->nv = m->nv;
  c->converged = 1;
  c->substeps = 1;
  size_t mc = (size_t)maxcon, n3 = 3 * mc, nv = (size_t)(m->nv > 0 ? m->nv : 1);
  size_t nq = (size_t)(m->nq > 0 ? m->nq : 1), npiv = n3 > nv ? n3 : nv;
  c->prev_id = calloc(n3, sizeof(int));
  c->prev_x = calloc(n3, sizeof(double));
  c->x1 = calloc(n3, sizeof(double));
  c->x0 = calloc(2 * mc, sizeof(double));
  c->stick = calloc(mc, sizeof(int));
  c->slip = calloc(mc, sizeof(double));
  c->vc = calloc(n3, sizeof(double));
  c->vstar = calloc(n3, sizeof(double));
  c->R = calloc(n3, sizeof(double));
  c->dvc = calloc(n3, sizeof(double));
  c->vtry = calloc(n3, sizeof(double));
  c->f = calloc(n3, sizeof(double));
  c->A = calloc(9 * mc, sizeof(double));
  c->N = calloc(n3 * n3, sizeof(double));
  c->piv = calloc(npiv, sizeof(int));
  c->pt = calloc(mc, sizeof(cmpl_point));
  c->ev = calloc(mc, sizeof(cmpl_eval));
  c->qsave = calloc(nq, sizeof(double));
  c->vsave = calloc(nv, sizeof(double));
  c->prev_id_save = calloc(n3, sizeof(int));
  c->prev_x_save = calloc(n3, sizeof(double));
  int ok = c->prev_id && c->prev_x && c->x1 && c->x0 && c->stick && c->slip && c->vc &&
           c->vstar && c->R && c->dvc && c->vtry && c->f && c->A && c->N && c->piv && c->pt &&
           c->ev && c->qsave && c->vsave && c->prev_id_save && c->prev_x_save;
  if (ok && o->newton_history > 0) {
    c->nhist = o->newton_history;
    c->hist = calloc((size_t)c->nhist, sizeof(double));
    ok = c->hist != NULL;
    for (int j = 0; ok && j < c->nhist; j++) c->hist[j] = NAN;
  }
  if (ok && o->scheme == CSIM_SCHEME_IMPLICIT_EULER) {
    c->q0 = calloc(nq, sizeof(double));
    c->v0 = calloc(nv, sizeof(double));
    c->vk = calloc(nv, sizeof(double));
    c->r = calloc(nv, sizeof(double));
    c->r2 = calloc(nv, sizeof(double));
    c->dv = calloc(nv, sizeof(double));
    c->tmp = calloc(nv, sizeof(double));
    c->tmp2 = calloc(nv, sizeof(double));
    c->Jr = calloc(nv * nv, sizeof(double));
    ok = c->q0 && c->v0 && c->vk && c->r && c->r2 && c->dv && c->tmp && c->tmp2 && c->Jr;
    if (ok) {
      st = contact_create(m, maxcon, &c->con_eval, err);
      if (st != CSIM_OK) {
        cmpl_free(c);
        return st;
      }
    }
  }
  if (ok && o->jacobian == CSIM_JAC_QUASI_NEWTON)
    ok = (c->Jd = calloc(nv * nv, sizeof(double))) != NULL;
  if (ok && o->accuracy > 0) {
    c->qfull = calloc(nq, sizeof(double));
    c->vfull = calloc(nv, sizeof(double));
    ok = c->qfull && c->vfull;
  }
  if (ok && o->accuracy > 0 && o->error_estimate == CSIM_EST_TRAPEZOID)
    ok = (c->a0h = calloc(2 * nv, sizeof(double))) != NULL;  // h a0, then the midpoint velocity
  if (!ok) {
    cmpl_free(c);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL,
                   "out of memory for the compliant contact state (%d contacts, %d dofs)", maxcon,
                   m->nv);
  }
  *out = c;
  return CSIM_OK;
}

void cmpl_free(cmpl_data* c) {
  if (!c) return;
  free(c->prev_id); free(c->prev_x); free(c->x1); free(c->x0); free(c->stick); free(c->slip);
  free(c->vc); free(c->vstar); free(c->R); free(c->dvc); free(c->vtry); free(c->f); free(c->A);
  free(c->N);
  free(c->piv); free(c->pt); free(c->ev);
  free(c->qsave); free(c->vsave); free(c->prev_id_save); free(c->prev_x_save);
  free(c->q0); free(c->v0); free(c->vk); free(c->r); free(c->r2); free(c->dv); free(c->tmp);
  free(c->tmp2); free(c->Jr); free(c->Jd); free(c->qfull); free(c->vfull); free(c->a0h);
  free(c->hist);
  contact_free(c->con_eval);
  free(c);
}

void cmpl_reset(cmpl_data* c) {
  size_t mc = (size_t)c->maxcon, n3 = 3 * mc;
  c->nprev = c->nprev_save = 0;
  memset(c->prev_id, 0, sizeof(int) * n3);
  memset(c->prev_x, 0, sizeof(double) * n3);
  memset(c->x1, 0, sizeof(double) * n3);
  memset(c->x0, 0, sizeof(double) * 2 * mc);
  memset(c->stick, 0, sizeof(int) * mc);
  memset(c->slip, 0, sizeof(double) * mc);
  c->iterations = c->nfail = c->nsubstepped = c->nstick = 0;
  c->substeps = c->converged = 1;
  c->residual = c->pen_max = c->pen_mean = c->stick_slip_max = 0;
  c->tsave = 0;
  c->hist_on = 0;
  memset(c->work, 0, sizeof(c->work));
  memset(c->work_step, 0, sizeof(c->work_step));
  c->rejected = 0;
  c->est_max = 0;
  c->nrejected = 0;
  c->h_next = c->h_min = c->h_max = 0;
  c->jac_ok = c->fact_ok = 0;
  for (int j = 0; j < c->nhist; j++) c->hist[j] = NAN;
  if (c->con_eval) contact_reset(c->con_eval);
}

void cmpl_lookup_state(const cmpl_options* o, const cmpl_data* c, const contact_data* con, int i,
                       double x0[2]) {
  x0[0] = x0[1] = 0;
  if (!cmpl_stateful(o)) return;
  const coll_contact* k = &con->con[i];
  for (int j = 0; j < c->nprev; j++) {
    const int* id = c->prev_id + 3 * j;
    if (id[0] == k->geom1 && id[1] == k->geom2 && id[2] == k->feature) {
      // world deflection projected on this step's tangents t1, t2
      const double* F = con->frame + 9 * i;
      const double* xw = c->prev_x + 3 * j;
      x0[0] = F[0] * xw[0] + F[1] * xw[1] + F[2] * xw[2];
      x0[1] = F[3] * xw[0] + F[4] * xw[1] + F[5] * xw[2];
      return;
    }
  }
}

void cmpl_store_state(const cmpl_options* o, cmpl_data* c, const contact_data* con) {
  c->nprev = 0;
  if (!cmpl_stateful(o)) return;
  for (int i = 0; i < con->ncon; i++) {
    const double* F = con->frame + 9 * i;
    const double* x = c->x1 + 3 * i;
    int* id = c->prev_id + 3 * c->nprev;
    double* xw = c->prev_x + 3 * c->nprev;
    id[0] = con->con[i].geom1;
    id[1] = con->con[i].geom2;
    id[2] = con->con[i].feature;
    for (int r = 0; r < 3; r++) xw[r] = x[0] * F[r] + x[1] * F[3 + r];
    c->nprev++;
  }
}
