// raisim.c — RaiSim's per-contact bisection (000 Alg. 4, Hwangbo et al. RA-L 2018 [33]) and its
// de Saxce-corrected variant RaiSim+DS (002 Alg. 1).
//
// Gauss-Seidel over contacts. For contact i, with G~ = G + diag(R) (compliance, 000 Sec. II):
//   g~ = g_i + sum_{j != i} G_ij lambda_j       velocity of the contact as if it were free
//   lambda_v0 = -G~_ii^-1 g~                    the impulse that stops it (Alg. 1 line 4)
//   take-off  if g~_N >= 0: lambda* = 0        (line 5; g~_N = 0 also takes off: lambda = 0
//             solves the contact and the sliding ellipse degenerates to the apex)
//   stiction  if lambda_v0 in K_mu: lambda* = lambda_v0                                (line 8)
//   sliding   otherwise: lambda* = argmin over the ellipse dK_mu ∩ V_N, V_N = {lambda :
//             (G~_ii lambda + g~)_N = 0}, of 1/2 lambda' G~_ii lambda + q' lambda     (000 eq. 20)
//             with q = g~ for RaiSim and q = g~ + Gamma(c^-, mu) for RaiSim+DS (002 eq. 13),
//             c^- = G~_ii lambda_i + g~ the contact's velocity with its current impulse
//             (002 Alg. 1 lines 13-15: only the objective is corrected; V_N, the take-off and the
//             stiction tests keep the uncorrected g~)
//   damped update lambda_i <- (1 - alpha) lambda_i + alpha lambda* (002 Alg. 1 line 17; 000
//             Alg. 4 line 11 prints the weights swapped, which with alpha_0 = 1 would never move)
//   alpha <- gamma alpha + (1 - gamma) alpha_min, once per sweep.
// Defaults: those of the authors' reference implementation of both listings (ContactBench):
// alpha_0 = 1 (scaled by solver.over_relaxation, whose default is 1), alpha_min = 0.1 (or
// alpha_0 when smaller), gamma = 0.99, alpha decayed once per sweep and reset at every solve.
// Island by island (solver_impl.h): each island sweeps until its own contacts meet the
// tolerance, with its own alpha from alpha_0 and its own stopping residual below (over its
// contacts), so it gets the answer it would get solved alone.
//
// The ellipse is parametrised by the polar angle theta of lambda_T (000 Fig. 7, 002 Fig. 2):
//   lambda(theta) = r(theta) [cos theta, sin theta, 1/mu],
//   r(theta) = -g~_N / D(theta), D(theta) = G_Nt1 cos theta + G_Nt2 sin theta + G_NN / mu,
// on the arc D > 0 (the whole circle unless the normal/tangent coupling is strong). The 1-D
// objective f(theta) is minimised by bracketing a sign change of f'(theta) from a start angle with
// doubling steps, then shrinking the bracket until its two impulses differ by less than a tenth
// of the tolerance (in impulse and in velocity G~_ii dlambda): bisection of the angle, with
// regula falsi (Illinois) steps that cut the evaluations about threefold and fall
// back to halving whenever a step fails to halve the bracket — the minimiser found is the same.
// The start angle is this contact's previous minimiser within the solve (first sweep: the warm
// start's angle, else lambda_v0's, RaiSim's choice) and the first step twice the minimiser's last
// move, so late sweeps search a tiny bracket.
//
// Convergence: none is guaranteed (000 Sec. III, 002 Sec. III). Measured: a few sweeps on
// sliding or resting contacts; at the stick-slip transition of a hyperstatic contact set (a cube
// on 4 corners starting to slide) the damped sweeps converge slowly, thousands of sweeps to 1e-8.
//
// Stopping residuals (res->residual):
//   raisim     the fixed point of the per-contact map: max over contacts, in the sweep, of
//              max(|lambda* - lambda_i|_inf, |G~_ii (lambda* - lambda_i)|_inf) — the change an
//              undamped sweep would make, in impulse and in velocity units. Its fixed point is
//              not an NCP solution: a sliding contact keeps c_N = 0 but its friction is not
//              anti-parallel to c_T when G_NT != 0 (000 eq. 21, 002 eq. 10), so the eps_abs that
//              solver_solve reports stays large while sliding however well this converges.
//   raisim_ds  the NCP residual of 000 eq. 14 on c = G~ lambda + g (the MDP holds at its fixed
//              point, 002 eq. 11), checked before the first sweep (a solution warm start takes
//              no sweep) and after every sweep.
//   solver.criterion: ncp  raisim stops on the larger of its fixed-point change and the NCP
//              residual: the NCP criterion decides convergence, never the answer (issue 9).
//   solver.criterion: relative  ContactBench's RaisimSolver: the NCP residual alone, or the
//              relative change of the island's impulses over a sweep (solver_rel_stop).
#include "core/interrupt.h"  // a signal ends the iteration (interrupt.h)
#include <math.h>
#include <string.h>

#include "core/solvers/cone.h"
#include "core/solvers/solver_impl.h"
#include "core/spatial.h"

#define RAISIM_ALPHA_MIN 0.1   // alpha_min
#define RAISIM_GAMMA 0.99      // gamma: decay of alpha per sweep
#define RAISIM_STEP0 1e-2      // first bracketing step (rad) from lambda_v0's angle
#define RAISIM_STEP_WARM 1e-4  // first bracketing step (rad) from the warm start's angle
#define RAISIM_BISECT_FRAC 0.1 // bisection precision as a fraction of the tolerance
#define RAISIM_MU_MIN 1e-12    // below: frictionless contact
#define RAISIM_MU_MAX 1e8      // above: treated as this (the ellipse needs a finite mu)

// the friction coefficient the iteration uses: NaN or negative -> 0, above RAISIM_MU_MAX (inf)
// -> RAISIM_MU_MAX
static double mu_clamp(double mu) {
  if (!(mu > 0)) return 0;
  return mu < RAISIM_MU_MAX ? mu : RAISIM_MU_MAX;
}

// the sliding sub-problem of one contact (000 eq. 20, 002 eq. 13)
typedef struct {
  const double* G;  // G~_ii (3x3 row-major)
  double gN;        // g~_N < 0: defines V_N
  double q[3];      // linear term of the objective
  double mu;
} ellipse;

// Cholesky factor of a 3x3 SPD block, packed lower [l00 l10 l11 l20 l21 l22]; a singular or
// indefinite block is regularised by eps*trace on the diagonal; returns 0 when the block is
// unusable (zero, negative or non-finite trace)
static int chol3(const double A[9], double L[6]) {
  double tr = A[0] + A[4] + A[8];
  if (!(tr > 0) || !isfinite(tr)) return 0;
  // the block as given, then with growing diagonal shifts
  for (double eps = 0; eps < 1e-2; eps = eps > 0 ? eps * 1e3 : 1e-12) {
    double sh = eps * tr, floor = 1e-14 * tr;
    double d0 = A[0] + sh;
    if (!(d0 > floor)) continue;
    double l00 = sqrt(d0), l10 = A[3] / l00, l20 = A[6] / l00;
    double d1 = A[4] + sh - l10 * l10;
    if (!(d1 > floor)) continue;
    double l11 = sqrt(d1), l21 = (A[7] - l20 * l10) / l11;
    double d2 = A[8] + sh - l20 * l20 - l21 * l21;
    if (!(d2 > floor)) continue;
    L[0] = l00; L[1] = l10; L[2] = l11; L[3] = l20; L[4] = l21; L[5] = sqrt(d2);
    return 1;
  }
  return 0;
}

// x = -(L L')^-1 b
static void chol3_solve_neg(const double L[6], const double b[3], double x[3]) {
  double y0 = b[0] / L[0];
  double y1 = (b[1] - L[1] * y0) / L[2];
  double y2 = (b[2] - L[3] * y0 - L[4] * y1) / L[5];
  double x2 = y2 / L[5];
  double x1 = (y1 - L[4] * x2) / L[2];
  x[0] = -(y0 - L[1] * x1 - L[3] * x2) / L[0];
  x[1] = -x1;
  x[2] = -x2;
}

// max(|d|_inf, |A d|_inf) with d = a - b: the distance used by every RaiSim test
static double dist3(const double A[9], const double a[3], const double b[3]) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]}, Ad[3];
  sp_mulmv3(Ad, A, d);
  double m = 0;
  for (int r = 0; r < 3; r++) {
    if (fabs(d[r]) > m) m = fabs(d[r]);
    if (fabs(Ad[r]) > m) m = fabs(Ad[r]);
  }
  return m;
}

// lambda(theta) on the ellipse and f'(theta); returns 0 when theta is off the arc D > 0
static int ellipse_eval(const ellipse* e, double th, double lam[3], double* fp) {
  const double* G = e->G;
  double c = cos(th), s = sin(th), im = 1 / e->mu;
  double D = G[6] * c + G[7] * s + G[8] * im;
  if (!(D > 0)) return 0;
  // r = -g~_N / D and its derivative r' = -r D'/D
  double r = -e->gN / D, Dp = -G[6] * s + G[7] * c, rp = -r * Dp / D;
  lam[0] = r * c;
  lam[1] = r * s;
  lam[2] = r * im;
  // f' = (G lambda + q) . dlambda/dtheta, dlambda/dtheta = r' u + r u',
  // u = [c, s, 1/mu], u' = [-s, c, 0]
  double w[3];
  sp_mulmv3(w, G, lam);
  w[0] += e->q[0];
  w[1] += e->q[1];
  w[2] += e->q[2];
  *fp = rp * (w[0] * c + w[1] * s + w[2] * im) + r * (-w[0] * s + w[1] * c);
  return 1;
}

// minimise the objective over the ellipse (000 Fig. 7): bracket a sign change of f' from th0
// with doubling steps starting at h0, then shrink the bracket until its two impulses are within
// tol; lam receives the minimiser, the return value is its angle
static double ellipse_min(const ellipse* e, double th0, double h0, double tol, double lam[3]) {
  double la[3], lb[3], da, db = 0;
  double ta = th0;
  // a start off the arc moves to the arc's middle, the angle of (G_Nt1, G_Nt2) (D largest)
  if (!isfinite(ta) || !ellipse_eval(e, ta, la, &da)) {
    ta = atan2(e->G[7], e->G[6]);
    if (!ellipse_eval(e, ta, la, &da)) {  // G_NN <= 0: no ellipse; no force
      lam[0] = lam[1] = lam[2] = 0;
      return ta;
    }
  }
  if (!(da != 0)) {  // stationary already (or non-finite data: keep the start)
    memcpy(lam, la, sizeof(la));
    return ta;
  }
  // bracketing: walk downhill (dir) until dir*f' >= 0; a step off the arc's end is halved
  double dir = da > 0 ? -1 : 1, h = h0 > 0 && isfinite(h0) ? h0 : RAISIM_STEP0, tb = ta;
  double travelled = 0;
  int bracketed = 0;
  for (int k = 0; k < 200 && travelled < 2 * M_PI; k++) {
    double t1 = ta + dir * h;
    if (!ellipse_eval(e, t1, lb, &db)) {
      h *= 0.5;
      continue;
    }
    if (db * dir >= 0 || !isfinite(db)) {
      tb = t1;
      bracketed = 1;
      break;
    }
    ta = t1;
    da = db;
    memcpy(la, lb, sizeof(la));
    travelled += h;
    h *= 2;
  }
  if (!bracketed) {  // f' kept its sign around a whole turn: only rounding noise; keep ta
    memcpy(lam, la, sizeof(la));
    return ta;
  }
  // shrink the bracket, fa = dir*f'(ta) < 0 <= fb = dir*f'(tb): bisection of the angle,
  // accelerated by regula falsi with the Illinois modification (the value kept twice in a row
  // is halved); a step that fails to halve the bracket makes the next one a plain halving
  double fa = dir * da, fb = isfinite(db) ? dir * db : 0;
  int side = 0, halve = !(fb > 0);
  for (int k = 0; k < 100 && dist3(e->G, la, lb) > tol; k++) {
    double w = fabs(tb - ta), tm = 0.5 * (ta + tb), lm[3], dm;
    if (!halve) {
      double tf = ta + (tb - ta) * (-fa / (fb - fa));
      if (tf > fmin(ta, tb) && tf < fmax(ta, tb)) tm = tf;
    }
    if (tm == ta || tm == tb) break;  // bracket at machine precision
    if (!ellipse_eval(e, tm, lm, &dm) || !isfinite(dm)) break;
    double fm = dir * dm;
    if (fm < 0) {
      ta = tm;
      fa = fm;
      memcpy(la, lm, sizeof(la));
      if (side < 0) fb *= 0.5;
      side = -1;
    } else {
      tb = tm;
      fb = fm;
      memcpy(lb, lm, sizeof(lb));
      if (side > 0) fa *= 0.5;
      side = 1;
      if (fm == 0) {  // exact root
        memcpy(la, lm, sizeof(la));
        ta = tm;
      }
    }
    halve = fabs(tb - ta) > 0.5 * w;
  }
  // the end with the smaller slope (both lie on the ellipse, within tol of each other)
  if (fabs(fb) < fabs(fa)) {
    memcpy(lam, lb, sizeof(lb));
    return tb;
  }
  memcpy(lam, la, sizeof(la));
  return ta;
}

// one contact's RaiSim (ds = 0) or RaiSim+DS (ds = 1) impulse lambda* (002 Alg. 1 lines 3-15)
//   G, L: G~_ii and its Cholesky factor; ci: the contact's current velocity G~ lambda + g;
//   li: its current impulse; hist: [theta*, valid, last move] of its previous minimiser
static void contact_target(const double G[9], const double L[6], const double ci[3],
                           const double li[3], double mu, int ds, double tol, double hist[3],
                           double out[3]) {
  double gt[3], Gl[3], v0[3];
  sp_mulmv3(Gl, G, li);
  for (int r = 0; r < 3; r++) gt[r] = ci[r] - Gl[r];  // g~ = c - G~_ii lambda_i
  // take-off (line 5)
  if (!(gt[2] < 0)) {
    out[0] = out[1] = out[2] = 0;
    return;
  }
  chol3_solve_neg(L, gt, v0);  // lambda_v0 (line 4)
  // frictionless: the ellipse shrinks to lambda_T = 0, lambda_N = -g~_N / G_NN
  mu = mu_clamp(mu);
  if (!(mu > RAISIM_MU_MIN)) {
    out[0] = out[1] = 0;
    out[2] = G[8] > 0 ? -gt[2] / G[8] : 0;
    return;
  }
  // stiction (line 8)
  if (hypot(v0[0], v0[1]) <= mu * v0[2]) {
    memcpy(out, v0, 3 * sizeof(double));
    return;
  }
  // sliding (lines 13-15): objective linear term, with de Saxce's correction for DS
  ellipse e = {G, gt[2], {gt[0], gt[1], gt[2]}, mu};
  if (ds) {
    e.q[2] += mu * hypot(ci[0], ci[1]);  // Gamma(c^-, mu), c^- = G~_ii lambda_i + g~ = ci
    chol3_solve_neg(L, e.q, v0);         // lambda_v0^cor: the start angle's fallback
  }
  double th0, h0 = RAISIM_STEP0;
  if (hist[1] > 0) {  // this contact's previous minimiser in this solve
    th0 = hist[0];
    h0 = 2 * hist[2];
    if (h0 < 1e-12) h0 = 1e-12;
    if (h0 > 0.5) h0 = 0.5;
  } else if (li[0] != 0 || li[1] != 0) {  // the warm start's direction
    th0 = atan2(li[1], li[0]);
    h0 = RAISIM_STEP_WARM;
  } else {  // RaiSim's: the direction of lambda_v0
    th0 = atan2(v0[1], v0[0]);
  }
  double th = ellipse_min(&e, th0, h0, tol, out);
  double mv = fabs(th - th0);  // how far the minimiser moved from its start
  hist[2] = isfinite(mv) ? mv : RAISIM_STEP0;
  hist[0] = th;
  hist[1] = 1;
}

// shared body of both families
static void raisim_run(solver* s, const solver_problem* p, double* lambda, solver_result* res,
                       int ds) {
  int nc = p->nc;
  double tol = s->opt.tolerance, btol = RAISIM_BISECT_FRAC * tol;
  double alpha0 = s->opt.over_relaxation;
  double amin = alpha0 < RAISIM_ALPHA_MIN ? alpha0 : RAISIM_ALPHA_MIN;
  double* Gd = s->work;         // G~_ii blocks       (9 nc)
  double* Lf = Gd + 9 * nc;     // their factors      (6 nc)
  double* okf = Lf + 6 * nc;    // 1 when factored    (nc)

  // per-contact blocks with compliance, their factors; no angle history yet
  for (int i = 0; i < nc; i++) {
    double* B = Gd + 9 * i;
    solver_gdiag(p, i, B);
    if (p->R)
      for (int r = 0; r < 3; r++) B[4 * r] += p->R[3 * i + r];
    okf[i] = chol3(B, Lf + 6 * i);
    s->tinv[4 * i + 1] = 0;
    cone_project(lambda + 3 * i, lambda + 3 * i, mu_clamp(p->mu[i]));
  }

  // raisim_ds stops on the NCP residual (its own), raisim on its fixed-point change, and under
  // solver.criterion: ncp on both (an NCP solution that is not RaiSim's fixed point, e.g. a warm
  // start, must not stop it: RaiSim's answer differs while sliding); the fixed-point change needs
  // a sweep, so only raisim_ds can accept its warm start without one. The NCP residual is taken
  // on the island's rows of c = G~ lambda + g, computed afresh into s->c
  int ncp_stop = ds || solver_stop_ncp(s);
  double* c = s->c;
  // island by island (solver_impl.h): each island sweeps until its own contacts meet the
  // tolerance, its alpha decayed from alpha_0 by its own sweeps, as if it were solved alone
  int nis = solver_sweep_islands(p);
  solver_tally tally = solver_tally_start();
  for (int k = 0; k < nis; k++) {
    int n;
    const int* cons = solver_sweep_island(p, k, &n);
    double alpha = alpha0, resid = INFINITY;
    int exact = 0;  // the island's rows of s->c hold G~ lambda + g at its answer
    solver_result r;
    if (ds) {  // the NCP residual of the warm start
      solver_crows(p, lambda, c, cons, n);
      solver_ncp_stop_on(s, p, lambda, c, cons, n, &r);
      resid = r.eps_abs;
      exact = 1;
    }
    int it = 0;
    while (!(resid <= tol) && it < s->opt.max_iterations && !intr_requested()) {
      double fp = 0;  // fixed-point residual of this sweep
      solver_rel_keep(s, lambda, cons, n);
      for (int q = 0; q < n; q++) {
        int i = cons ? cons[q] : q;
        double* li = lambda + 3 * i;
        // c_i = g_i + (G~ lambda)_i over the blocks of row i
        double ci[3] = {p->g[3 * i], p->g[3 * i + 1], p->g[3 * i + 2]};
        solver_grow_add(p, i, lambda, ci);
        if (p->R)
          for (int u = 0; u < 3; u++) ci[u] += p->R[3 * i + u] * li[u];
        double ls[3];
        if (okf[i] > 0)
          contact_target(Gd + 9 * i, Lf + 6 * i, ci, li, p->mu[i], ds, btol, s->tinv + 4 * i,
                         ls);
        else  // no usable block (no dof moves this contact): no impulse
          ls[0] = ls[1] = ls[2] = 0;
        double d = dist3(Gd + 9 * i, ls, li);
        // a NaN velocity (NaN data) can still give a finite target (the sliding search stops
        // at a NaN slope, on a finite point of the ellipse): never report it converged
        if (isnan(ci[0]) || isnan(ci[1]) || isnan(ci[2])) d = NAN;
        if (d > fp || d != d) fp = d;
        // damped update (002 Alg. 1 line 17)
        for (int u = 0; u < 3; u++) li[u] += alpha * (ls[u] - li[u]);
      }
      it++;
      alpha = RAISIM_GAMMA * alpha + (1 - RAISIM_GAMMA) * amin;  // line 18
      resid = fp;
      exact = 0;
      if (ncp_stop) {
        solver_crows(p, lambda, c, cons, n);
        solver_ncp_stop_on(s, p, lambda, c, cons, n, &r);
        exact = 1;
        // ContactBench's rule (relative): RaisimSolver::stoppingCriteria is the NCP residual
        // alone; else the larger of it and the fixed-point change
        if (ds || s->opt.criterion == SOLVER_STOP_RELATIVE || (!isnan(fp) && !(r.eps_abs <= fp)))
          resid = r.eps_abs;
      }
      resid = solver_rel_stop(s, lambda, cons, n, resid);
    }
    solver_tally_add(&tally, it, resid, exact);
  }
  solver_tally_finish(&tally, s, res, tol);
}

void solver_raisim(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  raisim_run(s, p, lambda, res, 0);
}

void solver_raisim_ds(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  raisim_run(s, p, lambda, res, 1);
}
