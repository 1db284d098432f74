// lcp.c — the pyramidal friction model (000 Sec. III, Alg. 1): projected Gauss-Seidel on the
// pyramid and Lemke's complementary pivoting on the Stewart-Trinkle / Anitescu-Potra LCP.
//
// The pyramid. With m = opt.facets, the friction polygon P (in the [t1 t2] plane, for a unit
// normal impulse) has the m facets <a_k, t> <= 1, a_k = (cos 2 pi k/m, sin 2 pi k/m): every
// facet touches the unit circle, so for m = 4 P is the box |t1| <= 1, |t2| <= 1 and the cone
// K~_mu = {lambda : lambda_N >= 0, lambda_T ∈ mu lambda_N P} is exactly 000's
// {|lambda_T|_inf <= mu lambda_N}. Every m uses the same rule (the polygon circumscribes the
// Coulomb disc, vertices v_k = (cos, sin)((2k+1) pi/m) / cos(pi/m) between facets k and k+1), so
// m = 4 is the paper's pyramid and larger m tend to the cone from outside.
//
// The model's problem and residual. The pyramid NCP: K~ ∋ lambda ⊥ c + Gamma~(c) ∈ K~*, with
// c = (G + R) lambda + g and Gamma~(c) = [0, 0, mu sigma_P(-c_T)], sigma_P(u) = max_k <v_k, u>
// the support function of P (000 eq. 13 with the pyramid's norm in place of |.|_2). It holds iff
// Signorini holds (c + Gamma~ ∈ K~* <=> c_N >= 0) and lambda_T minimizes <lambda_T, c_T> over
// mu lambda_N P (maximum dissipation over the pyramid: <lambda_T, c_T> >= -mu lambda_N sigma_P(-c_T)
// with equality at the solution). The stopping residual is eq. 14's triple on the pyramid:
// eps_p = dist(lambda, K~), eps_d = dist(c + Gamma~, K~*), eps_c = |<lambda, c + Gamma~>|, with
// exact Euclidean distances to the polyhedral cones. It is the same problem as the LCP below.
//
// PGS (Alg. 1): per contact the normal impulse steps with 1/G~_NN and is clamped at 0; the
// tangent impulse steps and is projected horizontally onto mu lambda_N P. For the box (m = 4)
// each tangent component steps with its own diagonal, one after the other (P is a product, so the
// clamp is the exact projection and the fixed point is unchanged); for other m a scalar step
// 1/max(G~_t1t1, G~_t2t2) keeps the fixed point on maximum dissipation. c = G~ lambda + g is
// kept up to date in s->c (column updates, G symmetric). Island by island (solver_impl.h): each
// island sweeps until its own contacts meet the tolerance; its rows of c are recomputed before
// accepting its convergence and every REFRESH of its sweeps.
//
// Lemke. Per contact the unknowns z_i = (lambda_N, beta_1..beta_m, gamma) >= 0 with
// lambda_T = sum_j beta_j v_j, and w = M z + q >= 0, z' w = 0 with
//   w_N = c_N,  w_beta_j = <v_j, c_T> + gamma,  w_gamma = mu lambda_N - sum_j beta_j,
// i.e. M = E' G~ E + H, q = E' g (E maps z_i to lambda_i; H holds the +1, -1 and mu couplings):
// gamma is the sliding speed in P's polar norm, the beta_j > 0 only on the vertices of maximum
// dissipation and mu lambda_N - e'beta ⊥ gamma puts lambda_T on the boundary while sliding
// (Stewart-Trinkle 1996, Anitescu-Potra 1997, who show Lemke's method processes this LCP).
// Lemke with covering vector d = 1 and the artificial z0 (Cottle-Pang-Stone Sec. 4.4); B^-1 is
// kept explicitly (N^2 per pivot), M's entering column is formed from G~ on the fly (O(N)), the
// ratio test is lexicographic on [x_B, B^-1] (no cycling on degenerate pivots), z0 leaves as
// soon as it ties, and the pivots are capped at max_iterations * N in all.
//
// Lemke in floating point. Contact problems are hyperstatic (four coplanar contacts of a box:
// G of rank 6 out of 12; solo12: 16 contacts, rank <= 18 out of 48), so G's zero eigenvalues
// are rounding-sized and exact-arithmetic Lemke on the stored G pivots on 1e-16-sized entries;
// in doubles such pivots are noise and the path ends on a ray or a wrong basis (Siconos 4.4's
// lexicolemke fails the same way on these problems). Three guards:
//   1. a pivot y_r counts only above its rounding bound KNOISE eps (mscale |B^-1_r|_1 + ...),
//      mscale the size of M's entries, and above PTOL max|y|; ties on x are taken up to the
//      same bound;
//   2. proximal passes: each pass solves the LCP with G~ + D and g - D lambda_j, D = scale
//      diag(G~), lambda_j the best iterate so far (first: the warm start), whose fixed point is
//      the LCP with G~ itself; D keeps the bases away from singular and a pass's error is
//      D (lambda_{j+1} - lambda_j), so a warm-started step usually needs one pass. scale starts
//      at PROX; slow progress divides it by 10 down to 0 (plain Lemke, for ill-conditioned G
//      where D slows the passes); a ray or the cap multiplies it by 10;
//   3. one step of iterative refinement of x_B with B's columns formed afresh.
// The answer is the best iterate by the pyramid residual, whatever solver.criterion says (the
// LCP's answer to a sliding contact is not an NCP solution, so ranking by the NCP residual could
// prefer the warm start or zero: issue 9). The passes stop once that iterate meets the tolerance
// on the pyramid residual (a further pass centred on an LCP solution reproduces it), after
// PROX_MAX passes or at the pivot cap; converged is judged on the stopping residual (pyramid,
// and NCP too under solver.criterion: ncp). A ray on every pass (e.g. an infeasible problem)
// leaves the projected initial guess. Scratch from s->work, sized by lcp_work.
#include <float.h>
#include "core/interrupt.h"  // a signal ends the iteration (interrupt.h)
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/solvers/cone.h"
#include "core/solvers/solver_impl.h"
#include "core/spatial.h"

// sweeps between exact recomputations of c in PGS
#define REFRESH 64
// the largest Lemke tableau solver_create accepts, in doubles (1 GiB)
#define LEMKE_MAX_DOUBLES ((size_t)1 << 27)
// Lemke: a pivot y_r must exceed KNOISE eps times its rounding bound and PTOL max|y|
#define KNOISE 1e3
#define PTOL 1e-9
// Lemke: first proximal weight (times diag G~) and the cap on proximal passes
#define PROX 1e-3
#define PROX_MAX 20

// the unit friction polygon P: m facets, normals a (2m) and vertices v (2m)
typedef struct {
  int m;
  const double* a;
  const double* v;
} pyramid;

// snap a computed cosine or sine to 0 or +-1 when it is one up to rounding (exact box for m = 4)
static double snap(double x) {
  if (fabs(x) < 1e-14) return 0;
  if (fabs(fabs(x) - 1) < 1e-14) return x > 0 ? 1 : -1;
  return x;
}

// fill buf (4m doubles) with the polygon of m facets and return its view
static pyramid pyramid_make(double* buf, int m) {
  const double pi = 3.14159265358979323846;
  double* a = buf;
  double* v = buf + 2 * m;
  double rv = 1 / cos(pi / m);
  for (int k = 0; k < m; k++) {
    if (m % 2 == 0 && k >= m / 2) {  // even m: opposite directions exactly opposite
      for (int d = 0; d < 2; d++) {
        a[2 * k + d] = -a[2 * (k - m / 2) + d];
        v[2 * k + d] = -v[2 * (k - m / 2) + d];
      }
      continue;
    }
    a[2 * k] = snap(cos(2 * pi * k / m));
    a[2 * k + 1] = snap(sin(2 * pi * k / m));
    v[2 * k] = snap(rv * cos((2 * k + 1) * pi / m));
    v[2 * k + 1] = snap(rv * sin((2 * k + 1) * pi / m));
  }
  return (pyramid){m, a, v};
}

// support function of P: max_k <v_k, u>
static double support(const pyramid* py, double u0, double u1) {
  if (py->m == 4) return fabs(u0) + fabs(u1);
  double best = -INFINITY;
  for (int k = 0; k < py->m; k++) {
    double s = py->v[2 * k] * u0 + py->v[2 * k + 1] * u1;
    if (s > best) best = s;
  }
  return best;
}

// horizontal projection of t (2) onto r P (r >= 0): the box clamp for m = 4, otherwise the
// nearest point of the polygon's edges when t is outside
static void polygon_project(const pyramid* py, double r, double t[2]) {
  if (!(r > 0)) {
    t[0] = t[1] = 0;
    return;
  }
  if (py->m == 4) {
    t[0] = t[0] > r ? r : (t[0] < -r ? -r : t[0]);
    t[1] = t[1] > r ? r : (t[1] < -r ? -r : t[1]);
    return;
  }
  // inside: every facet holds
  int inside = 1;
  for (int k = 0; k < py->m && inside; k++)
    if (py->a[2 * k] * t[0] + py->a[2 * k + 1] * t[1] > r) inside = 0;
  if (inside) return;
  // nearest point on facet k, the edge from r v_{k-1} to r v_k
  double best = INFINITY, b0 = 0, b1 = 0;
  for (int k = 0; k < py->m; k++) {
    int km = k ? k - 1 : py->m - 1;
    double p0 = r * py->v[2 * km], p1 = r * py->v[2 * km + 1];
    double e0 = r * py->v[2 * k] - p0, e1 = r * py->v[2 * k + 1] - p1;
    double ee = e0 * e0 + e1 * e1;
    double s = ee > 0 ? ((t[0] - p0) * e0 + (t[1] - p1) * e1) / ee : 0;
    s = s < 0 ? 0 : (s > 1 ? 1 : s);
    double q0 = p0 + s * e0, q1 = p1 + s * e1;
    double d = (t[0] - q0) * (t[0] - q0) + (t[1] - q1) * (t[1] - q1);
    if (d < best) {
      best = d;
      b0 = q0;
      b1 = q1;
    }
  }
  t[0] = b0;
  t[1] = b1;
}

// generator k of K~_mu (dual = 0: the edge (mu v_k, 1)) or of K~_mu* (dual = 1: the facet
// normal (-a_k, mu)); both in counter-clockwise order
static void generator(const pyramid* py, double mu, int dual, int k, double e[3]) {
  if (dual) {
    e[0] = -py->a[2 * k];
    e[1] = -py->a[2 * k + 1];
    e[2] = mu;
  } else {
    e[0] = mu * py->v[2 * k];
    e[1] = mu * py->v[2 * k + 1];
    e[2] = 1;
  }
}

// Euclidean distance from x to K~_mu (dual = 0) or K~_mu* (dual = 1): 0 inside; otherwise the
// nearest of the apex, the edge rays and the faces (a face's candidate counts only when the
// plane projection lies between its two edges: the nearest point is one of these)
static double pyramid_dist(const pyramid* py, double mu, int dual, const double x[3]) {
  if (!(mu > 0)) {  // frictionless: K~ = {t = 0, n >= 0}, K~* = {n >= 0}
    if (dual) return x[2] < 0 ? -x[2] : 0;
    double nn = x[2] < 0 ? x[2] : 0;
    return sqrt(x[0] * x[0] + x[1] * x[1] + nn * nn);
  }
  int m = py->m, inside = 1;
  double xx = sp_dot3(x, x), best = xx;
  double e0[3], e1[3], nrm[3];
  generator(py, mu, dual, 0, e0);
  for (int k = 0; k < m; k++) {
    generator(py, mu, dual, (k + 1) % m, e1);
    // edge ray k
    double t = sp_dot3(x, e0);
    if (t > 0) {  // |x - t e / |e|^2|^2 from the difference (no cancellation near the ray)
      double f = t / sp_dot3(e0, e0);
      double r[3] = {x[0] - f * e0[0], x[1] - f * e0[1], x[2] - f * e0[2]};
      double d = sp_dot3(r, r);
      if (d < best) best = d;
    }
    // face between edges k and k+1 (inward normal e0 x e1)
    sp_cross3(nrm, e0, e1);
    double s = sp_dot3(nrm, x);
    if (s < 0) {
      inside = 0;
      double nn = sp_dot3(nrm, nrm);
      double p[3] = {x[0] - s / nn * nrm[0], x[1] - s / nn * nrm[1], x[2] - s / nn * nrm[2]};
      double c0[3], c1[3];
      sp_cross3(c0, p, e1);  // alpha |n|^2
      sp_cross3(c1, e0, p);  // beta |n|^2
      if (sp_dot3(c0, nrm) >= 0 && sp_dot3(c1, nrm) >= 0) {
        double d = s * s / nn;
        if (d < best) best = d;
      }
    }
    memcpy(e0, e1, sizeof(e0));
  }
  if (inside) return 0;
  return sqrt(best > 0 ? best : 0);
}

// the pyramid NCP residual of one contact (see the top of the file)
static void pyramid_residuals(const pyramid* py, const double l[3], const double c[3], double mu,
                              double* ep, double* ed, double* ec) {
  double cg[3] = {c[0], c[1], c[2] + mu * support(py, -c[0], -c[1])};
  *ep = pyramid_dist(py, mu, 0, l);
  *ed = c[2] >= 0 ? 0 : pyramid_dist(py, mu, 1, cg);  // cg ∈ K~* <=> c_N >= 0
  *ec = fabs(sp_dot3(l, cg));
}

// the largest pyramid residual over the contacts cons[0..n) (all when cons is NULL)
static double pyramid_residual(const pyramid* py, const solver_problem* p, const double* lambda,
                               const double* c, const int* cons, int n) {
  double worst = 0;
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    double a, b, d;
    pyramid_residuals(py, lambda + 3 * i, c + 3 * i, p->mu[i], &a, &b, &d);
    if (isnan(a) || isnan(b) || isnan(d)) return NAN;  // never report NaN as converged
    if (a > worst) worst = a;
    if (b > worst) worst = b;
    if (d > worst) worst = d;
  }
  return worst;
}

// u = G~(:, 3i..3i+2) d (the blocks of row i of the symmetric G), into u (overwrite = 1: all of
// u is set) or added to it
static void column_combo(const solver_problem* p, int i, const double d[3], double* u,
                         int overwrite) {
  if (overwrite) memset(u, 0, sizeof(double) * 3 * (size_t)p->nc);
  solver_gcol_add(p, i, d, u);
  if (p->R)
    for (int r = 0; r < 3; r++) u[3 * i + r] += p->R[3 * i + r] * d[r];
}

// project each contact's impulse onto K~: lambda_N >= 0, then lambda_T onto mu lambda_N P
static void project_all(const pyramid* py, const solver_problem* p, double* lambda) {
  for (int i = 0; i < p->nc; i++) {
    double* li = lambda + 3 * i;
    if (!(li[2] > 0)) li[2] = 0;
    polygon_project(py, p->mu[i] * li[2], li);
  }
}

// raise *nwork to the scratch the LCP families need (the polygon; Lemke's N x N tableau,
// N = maxc (facets + 2)); input error on bad facets or a tableau too large
static csim_status lcp_work(const solver_options* opt, int maxc, size_t* nwork,
                            csim_error* err) {
  if (opt->facets < 3 || opt->facets > SOLVER_MAX_FACETS)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "contact.facets",
                   "expected between 3 and %d pyramid facets, got %d", SOLVER_MAX_FACETS,
                   opt->facets);
  size_t m = (size_t)opt->facets, nc = (size_t)(maxc > 0 ? maxc : 1), need = 4 * m + 64 + 3 * nc;
  if (opt->kind == CSIM_SOLVER_LEMKE) {
    // polygon, B^-1 (N x N), x, y, q, the entering column, basis and candidates (N each), u (3nc)
    // for the largest island the work holds (solver_work_rows / 3 contacts: every contact, or
    // fewer under solver_options island_rows; Lemke is handed one island at a time, solver.c)
    size_t ni = solver_work_rows(opt, nc) / 3, N = ni * (m + 2);
    if (N > 1 << 14 || N * N > LEMKE_MAX_DOUBLES)
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "solver.name",
                     "lemke on %zu contacts with %zu facets needs a %zu x %zu tableau (more than "
                     "1 GiB); use fewer facets or solver pgs",
                     ni, m, N, N);
    need += N * N + 8 * N + 12 * ni;
  }
  if (need > *nwork) *nwork = need;
  return CSIM_OK;
}

// what the sweeps read: the solver (its per-contact steps in tinv), the problem, the pyramid
// and each contact's G_t1N, G_t2N, G_t1t2
typedef struct {
  const solver* s;
  const solver_problem* p;
  const pyramid* py;
  const double* gt;
} lcp_ctx;

// the stopping residual over the contacts cons[0..n) (all when cons is NULL): the pyramid LCP
// residual, and under solver.criterion: ncp also the NCP one (an NCP solution that is not the
// pyramid's answer must not stop the solver)
static double stop_residual(const solver* s, const pyramid* py, const solver_problem* p,
                            const double* lambda, const double* c, const int* cons, int n) {
  return solver_stop_of(s, p, lambda, c, cons, n, pyramid_residual(py, p, lambda, c, cons, n));
}

// stop_residual as the sweeps call it
static double sweep_stop(const void* ctx, const int* cons, int n, const double* lambda,
                         const double* c, double above) {
  (void)above;  // always exact
  const lcp_ctx* x = ctx;
  return stop_residual(x->s, x->py, x->p, lambda, c, cons, n);
}

// one sweep: per contact the normal step, then the tangent ones on the velocity after it
static void lcp_sweep(const void* ctx, const int* cons, int n, double* lambda, double* c) {
  const lcp_ctx* x = ctx;
  const solver_problem* p = x->p;
  const pyramid* py = x->py;
  double omega = x->s->opt.over_relaxation;
  for (int q = 0; q < n; q++) {
    int i = cons ? cons[q] : q;
    double* li = lambda + 3 * i;
    const double* ti = x->s->tinv + 4 * i;
    const double* gi = x->gt + 3 * i;  // G_t1N, G_t2N, G_t2t1 of the diagonal block
    // normal: Alg. 1 lines 3-4
    double ln = li[2] - omega * ti[0] * c[3 * i + 2];
    if (ln < 0) ln = 0;
    double dn = ln - li[2];
    // tangent velocity after the normal update (R is diagonal: no coupling)
    double ct0 = c[3 * i] + gi[0] * dn, ct1 = c[3 * i + 1] + gi[1] * dn;
    double t[2];
    double rad = p->mu[i] * ln;
    if (py->m == 4) {  // box: Gauss-Seidel on t1 then t2, each clamped (lines 5-6)
      t[0] = li[0] - omega * ti[1] * ct0;
      t[0] = t[0] > rad ? rad : (t[0] < -rad ? -rad : t[0]);
      ct1 += gi[2] * (t[0] - li[0]);
      t[1] = li[1] - omega * ti[2] * ct1;
      t[1] = t[1] > rad ? rad : (t[1] < -rad ? -rad : t[1]);
    } else {  // polygon: scalar step and horizontal projection
      t[0] = li[0] - omega * ti[3] * ct0;
      t[1] = li[1] - omega * ti[3] * ct1;
      polygon_project(py, rad, t);
    }
    double d[3] = {t[0] - li[0], t[1] - li[1], dn};
    if (d[0] == 0 && d[1] == 0 && d[2] == 0) continue;
    li[0] = t[0];
    li[1] = t[1];
    li[2] = ln;
    column_combo(p, i, d, c, 0);
  }
}

void solver_lcp_pgs(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  int nc = p->nc;
  pyramid py = pyramid_make(s->work, s->opt.facets);

  // per-contact steps: 1/G~_NN, 1/G~_t1t1, 1/G~_t2t2, 1/max(G~_t1t1, G~_t2t2)
  double* gt = s->work + 4 * s->opt.facets + 64;  // G_t1N, G_t2N, G_t1t2 per contact (3 nc)
  for (int i = 0; i < nc; i++) {
    double d[3], B[9];
    solver_gdiag(p, i, B);
    gt[3 * i] = B[2];
    gt[3 * i + 1] = B[5];
    gt[3 * i + 2] = B[3];
    for (int r = 0; r < 3; r++) d[r] = B[4 * r] + (p->R ? p->R[3 * i + r] : 0);
    double big = d[0] > d[1] ? d[0] : d[1];
    s->tinv[4 * i] = d[2] > 0 ? 1 / d[2] : 0;
    s->tinv[4 * i + 1] = d[0] > 0 ? 1 / d[0] : 0;
    s->tinv[4 * i + 2] = d[1] > 0 ? 1 / d[1] : 0;
    s->tinv[4 * i + 3] = big > 0 ? 1 / big : 0;
  }

  // start from the warm start projected onto the pyramids
  project_all(&py, p, lambda);
  solver_crows(p, lambda, s->c, NULL, nc);

  // island by island (solver_impl.h): each island sweeps until its pyramid residual, checked on
  // an exact c, is below the tolerance
  lcp_ctx x = {s, p, &py, gt};
  solver_sweep_run(s, p, lambda, lcp_sweep, sweep_stop, &x, REFRESH, res);
}

// column j of M = E' (G~ + diag(reg)) E + H into col (N), u (3nc) as scratch (see the top)
static void lemke_column(const pyramid* py, const solver_problem* p, const double* reg, int j,
                         double* u, double* col) {
  int m = py->m, k = m + 2, nc = p->nc, N = nc * k;
  int i = j / k, l = j % k;
  memset(col, 0, sizeof(double) * (size_t)N);
  if (l == k - 1) {  // gamma_i: +1 in the rows beta_i (H)
    for (int b = 1; b <= m; b++) col[i * k + b] = 1;
    return;
  }
  // lambda_i moves along e: lambda_N -> (0, 0, 1); beta_l -> (v_l, 0)
  double e[3] = {0, 0, 1};
  if (l > 0) {
    e[0] = py->v[2 * (l - 1)];
    e[1] = py->v[2 * (l - 1) + 1];
    e[2] = 0;
  }
  column_combo(p, i, e, u, 1);
  for (int r = 0; r < 3; r++) u[3 * i + r] += reg[3 * i + r] * e[r];
  // E' u per contact: row lambda_N gets u_N, rows beta get <v_b, u_T>, row gamma 0
  for (int q = 0; q < nc; q++) {
    double* cq = col + q * k;
    const double* uq = u + 3 * q;
    cq[0] = uq[2];
    for (int b = 0; b < m; b++) cq[1 + b] = py->v[2 * b] * uq[0] + py->v[2 * b + 1] * uq[1];
  }
  // H: row gamma_i gets mu_i for lambda_N, -1 for each beta
  col[i * k + k - 1] += l == 0 ? p->mu[i] : -1;
}

// the lexicographic ratio test: among rows whose y_r is above its rounding noise ny_r, the
// minimum of [x_r, B^-1_r] / y_r, ties on x taken up to the noise nx_r; the artificial z0's row
// wins any tie on x; -1 on a ray
static int lemke_ratio(int N, const double* Binv, const double* x, const double* y,
                       const double* nx, const double* ny, const int* basis, int z0, int* cand) {
  double ymax = 0;
  for (int r = 0; r < N; r++)
    if (fabs(y[r]) > ymax) ymax = fabs(y[r]);
  double pfloor = PTOL * ymax;
  // minimum ratio on x
  double theta = INFINITY;
  for (int r = 0; r < N; r++)
    if (y[r] > ny[r] && y[r] > pfloor) {
      double t = (x[r] > 0 ? x[r] : 0) / y[r];
      if (t < theta) theta = t;
    }
  if (!isfinite(theta)) return -1;
  // ties: rows the pivot would bring to zero up to rounding
  int ncand = 0;
  for (int r = 0; r < N; r++)
    if (y[r] > ny[r] && y[r] > pfloor &&
        (x[r] > 0 ? x[r] : 0) - theta * y[r] <= nx[r] + theta * ny[r])
      cand[ncand++] = r;
  for (int t = 0; t < ncand; t++)
    if (basis[cand[t]] == z0) return cand[t];
  // break ties on the columns of B^-1, one after the other
  for (int col = 0; col < N && ncand > 1; col++) {
    double lo = INFINITY, big = 0;
    for (int t = 0; t < ncand; t++) {
      double v = Binv[(size_t)cand[t] * N + col] / y[cand[t]];
      if (v < lo) lo = v;
      if (fabs(v) > big) big = fabs(v);
    }
    double tol = 1e-12 * big;
    int keep = 0;
    for (int t = 0; t < ncand; t++)
      if (Binv[(size_t)cand[t] * N + col] / y[cand[t]] <= lo + tol) cand[keep++] = cand[t];
    ncand = keep;
  }
  // several left only through rounding: the largest pivot
  int best = cand[0];
  for (int t = 1; t < ncand; t++)
    if (y[cand[t]] > y[best]) best = cand[t];
  return best;
}

// Lemke's scratch (all from s->work)
typedef struct {
  int nc, m, k, N;
  double* Binv;   // (N x N) basis inverse
  double* x;      // (N) basic values
  double* y;      // (N) B^-1 times the entering column
  double* q;      // (N)
  double* col;    // (N) entering column of M
  double* u;      // (3nc) G~ times a contact direction
  double* gs;     // (3nc) shifted free velocity
  double* nx;     // (N) rounding noise of x
  double* ny;     // (N) rounding noise of y
  int* basis;     // (N) basic variable per row
  int* cand;      // (N) ratio-test candidates
} lemke_ws;

// the scale of M's entries, for the rounding noise of the data
static double lemke_scale(const solver_problem* p, const double* reg, int nc) {
  double dmax = 0;
  for (int j = 0; j < 3 * nc; j++) {
    double d = p->dense[(size_t)j * 3 * nc + j] + (p->R ? p->R[j] : 0) + reg[j];
    if (d > dmax) dmax = d;
  }
  double mscale = 4 * dmax + 1;
  for (int i = 0; i < nc; i++)
    if (p->mu[i] > mscale) mscale = p->mu[i];
  return mscale;
}

// q = E' gs; returns its smallest entry
static double lemke_q(const pyramid* py, lemke_ws* w) {
  int m = w->m, k = w->k;
  double* q = w->q;
  double qmin = INFINITY;
  for (int i = 0; i < w->nc; i++) {
    const double* gi = w->gs + 3 * i;
    double* qi = q + i * k;
    qi[0] = gi[2];
    for (int b = 0; b < m; b++) qi[1 + b] = py->v[2 * b] * gi[0] + py->v[2 * b + 1] * gi[1];
    qi[k - 1] = 0;
  }
  for (int j = 0; j < w->N; j++)
    if (q[j] < qmin) qmin = q[j];
  return qmin;
}

// the basis of the slacks w, B^-1 = I, x = q, and the entering column of z0 (y = -1); returns
// the row of the first pivot: the most negative q (the last row among ties, which keeps the rows
// lexicographically positive)
static int lemke_start(lemke_ws* w) {
  int N = w->N;
  memset(w->Binv, 0, sizeof(double) * (size_t)N * N);
  for (int j = 0; j < N; j++) {
    w->Binv[(size_t)j * N + j] = 1;
    w->basis[j] = j;
    w->x[j] = w->q[j];
  }
  int rlev = 0;
  for (int j = 1; j < N; j++)
    if (w->q[j] <= w->q[rlev]) rlev = j;
  for (int j = 0; j < N; j++) w->y[j] = -1;
  return rlev;
}

// pivot on row rlev with the entering column in y: `enter` replaces basis[rlev], which is
// returned (the leaving variable)
static int lemke_pivot(lemke_ws* w, int rlev, int enter) {
  int N = w->N;
  double *Binv = w->Binv, *x = w->x, *y = w->y;
  double piv = y[rlev];
  double* Br = Binv + (size_t)rlev * N;
  for (int j = 0; j < N; j++) Br[j] /= piv;
  x[rlev] /= piv;
  for (int rr = 0; rr < N; rr++) {
    if (rr == rlev || y[rr] == 0) continue;
    double f = y[rr];
    double* Bk = Binv + (size_t)rr * N;
    for (int j = 0; j < N; j++) Bk[j] -= f * Br[j];
    x[rr] -= f * x[rlev];
  }
  int leave = w->basis[rlev];
  w->basis[rlev] = enter;
  return leave;
}

// y = B^-1 a for the entering variable (a = e_j for w_j, -M(:, j) for z_j) and the rounding
// noise of y and x per row: KNOISE eps (|B^-1_r| |q| + mscale |B^-1_r|_1 |x|) and
// KNOISE eps mscale |B^-1_r|_1
static void lemke_entering(const pyramid* py, const solver_problem* p, const double* reg,
                           lemke_ws* w, int enter, double mscale) {
  int N = w->N;
  const double *x = w->x, *q = w->q, *col = w->col;
  double xnorm = 0;
  for (int rr = 0; rr < N; rr++)
    if (fabs(x[rr]) > xnorm) xnorm = fabs(x[rr]);
  if (enter >= N) lemke_column(py, p, reg, enter - N, w->u, w->col);
  for (int rr = 0; rr < N; rr++) {
    const double* Bk = w->Binv + (size_t)rr * N;
    double acc = 0, sx = 0, bn = 0;
    if (enter >= N)
      for (int j = 0; j < N; j++) acc -= Bk[j] * col[j];
    else
      acc = Bk[enter];
    for (int j = 0; j < N; j++) {
      sx += fabs(Bk[j]) * fabs(q[j]);
      bn += fabs(Bk[j]);
    }
    w->y[rr] = acc;
    w->nx[rr] = KNOISE * DBL_EPSILON * (sx + mscale * bn * xnorm);
    w->ny[rr] = KNOISE * DBL_EPSILON * mscale * bn;
  }
}

// one step of iterative refinement of the basic values: x += B^-1 (q - B x), with B's columns
// formed afresh from G (the updates of B^-1 accumulate rounding)
static void lemke_refine(const pyramid* py, const solver_problem* p, const double* reg,
                         lemke_ws* w, int z0) {
  int N = w->N;
  double *x = w->x, *y = w->y, *col = w->col, *nx = w->nx;
  for (int j = 0; j < N; j++) y[j] = w->q[j];
  for (int rr = 0; rr < N; rr++) {
    int v = w->basis[rr];
    if (v < N) {
      y[v] -= x[rr];
    } else if (v == z0) {
      for (int j = 0; j < N; j++) y[j] += x[rr];
    } else {
      lemke_column(py, p, reg, v - N, w->u, col);
      for (int j = 0; j < N; j++) y[j] += col[j] * x[rr];
    }
  }
  for (int rr = 0; rr < N; rr++) {
    const double* Bk = w->Binv + (size_t)rr * N;
    double acc = 0;
    for (int j = 0; j < N; j++) acc += Bk[j] * y[j];
    nx[rr] = acc;
  }
  for (int rr = 0; rr < N; rr++) x[rr] += nx[rr];
}

// lambda from z: lambda_N and lambda_T = sum_j beta_j v_j (lambda zero on entry)
static void lemke_lambda(const pyramid* py, const lemke_ws* w, int z0, double* lambda) {
  int N = w->N, k = w->k, m = w->m;
  for (int rr = 0; rr < N; rr++) {
    if (w->basis[rr] < N || w->basis[rr] == z0) continue;
    int j = w->basis[rr] - N, i = j / k, l = j % k;
    double z = w->x[rr] > 0 ? w->x[rr] : 0;
    if (l == 0)
      lambda[3 * i + 2] = z;
    else if (l <= m) {
      lambda[3 * i] += z * py->v[2 * (l - 1)];
      lambda[3 * i + 1] += z * py->v[2 * (l - 1) + 1];
    }
  }
}

// Lemke's method on the LCP of the pyramid problem with G~ + diag(reg) and free velocity w->gs;
// lambda (3nc) receives the solution; returns 1 on a solution, 0 on a ray or the pivot cap;
// *pivots counts the pivots
static int lemke_run(const pyramid* py, const solver_problem* p, const double* reg, lemke_ws* w,
                     long cap, double* lambda, long* pivots) {
  const int z0 = 2 * w->N;  // variables: w_j = j, z_j = N + j, z0 = 2N
  *pivots = 0;
  double mscale = lemke_scale(p, reg, w->nc);
  double qmin = lemke_q(py, w);
  memset(lambda, 0, sizeof(double) * (size_t)(3 * w->nc));
  if (qmin >= 0) return 1;  // z = 0 solves it: no contact force
  int rlev = lemke_start(w), enter = z0, ok = 0;
  for (;;) {
    int leave = lemke_pivot(w, rlev, enter);
    (*pivots)++;
    if (leave == z0) {
      ok = 1;
      break;
    }
    if (*pivots >= cap) break;
    enter = leave < w->N ? leave + w->N : leave - w->N;  // the complement of the leaving one
    lemke_entering(py, p, reg, w, enter, mscale);
    rlev = lemke_ratio(w->N, w->Binv, w->x, w->y, w->nx, w->ny, w->basis, z0, w->cand);
    if (rlev < 0) break;  // ray termination
  }
  if (!ok) return 0;
  lemke_refine(py, p, reg, w, z0);
  lemke_lambda(py, w, z0, lambda);
  // onto the pyramids: the basic values carry rounding (with mu = 0, a frictionless contact or
  // a joint limit, w_gamma = -sum beta >= 0 holds only to rounding: lambda_T must be exactly 0)
  project_all(py, p, lambda);
  return 1;
}

// Lemke's scratch from base (lcp_work sizes it) for nc contacts and m facets: the tableau and
// its vectors (w), then the best iterate so far, also the proximal centre (*best, 3nc), and the
// proximal weights (*dprox, 3nc), then the basis and the candidates (N ints each in the space of
// N doubles)
static void lemke_layout(double* base, int nc, int m, lemke_ws* w, double** best, double** dprox) {
  int k = m + 2, N = nc * k, n = 3 * nc;
  w->nc = nc;
  w->m = m;
  w->k = k;
  w->N = N;
  w->Binv = base;
  w->x = w->Binv + (size_t)N * N;
  w->y = w->x + N;
  w->q = w->y + N;
  w->col = w->q + N;
  w->nx = w->col + N;
  w->ny = w->nx + N;
  w->u = w->ny + N;
  w->gs = w->u + n;
  *best = w->gs + n;
  *dprox = *best + n;
  w->basis = (int*)(*dprox + n);
  w->cand = (int*)(*dprox + n + N);
}

void solver_lcp_lemke(solver* s, const solver_problem* p, double* lambda, solver_result* res) {
  int nc = p->nc, m = s->opt.facets, N = nc * (m + 2), n = 3 * nc;
  double tol = s->opt.tolerance;
  pyramid py = pyramid_make(s->work, m);
  double* c = s->c;
  res->iterations = 0;

  // a warm start that already solves the problem is kept as it is
  solver_velocity_all(p, lambda, c);
  double r = stop_residual(s, &py, p, lambda, c, NULL, nc);
  if (r <= tol) {
    res->residual = r;
    res->converged = 1;
    return;
  }

  lemke_ws w;
  double *best, *dprox;
  lemke_layout(s->work + 4 * m, nc, m, &w, &best, &dprox);  // after the polygon

  // proximal passes (see the top of the file): the best iterate by the pyramid residual q,
  // sbest its stopping residual
  project_all(&py, p, lambda);
  memcpy(best, lambda, sizeof(double) * (size_t)n);
  solver_velocity_all(p, best, c);
  double qbest = pyramid_residual(&py, p, best, c, NULL, nc), qprev = qbest;
  double sbest = stop_residual(s, &py, p, best, c, NULL, nc);
  long total = 0, cap = (long)s->opt.max_iterations * N;
  int outer = 0;
  double scale = PROX;
  while (!(qbest <= tol) && outer < PROX_MAX && total < cap && !intr_requested()) {
    // the proximal term scale diag(G~) |lambda - best|^2: on the diagonal and in gs
    for (int j = 0; j < n; j++) {
      dprox[j] = scale * (p->dense[(size_t)j * n + j] + (p->R ? p->R[j] : 0));
      w.gs[j] = p->g[j] - dprox[j] * best[j];
    }
    long piv = 0;
    int ok = lemke_run(&py, p, dprox, &w, cap - total, lambda, &piv);
    total += piv;
    outer++;
    if (!ok) {  // a ray or the cap: more regularization, from the best iterate
      scale = scale > 0 ? 10 * scale : PROX;
      if (scale > 0.1) break;
      continue;
    }
    solver_velocity_all(p, lambda, c);
    double q = pyramid_residual(&py, p, lambda, c, NULL, nc);
    if (q < qbest) {
      qbest = q;
      sbest = stop_residual(s, &py, p, lambda, c, NULL, nc);
      memcpy(best, lambda, sizeof(double) * (size_t)n);
    }
    // slow progress: less regularization, down to plain Lemke
    if (!(q < 0.1 * qprev)) scale = scale > 1e-9 ? 0.1 * scale : 0;
    qprev = q;
  }
  memcpy(lambda, best, sizeof(double) * (size_t)n);
  res->iterations = (int)(total < INT32_MAX ? total : INT32_MAX);
  res->residual = sbest;
  res->converged = sbest <= tol;
}

//------------------------------------ the families -----------------------------------------

// Lemke's tableau on an island of `rows` rows (rows / 3 contacts), and its vectors
static size_t lemke_island_doubles(const solver_options* o, size_t rows) {
  size_t N = rows / 3 * (size_t)(o->facets + 2);
  return N * N + 8 * N;
}

const solver_family solver_family_lcp = {.work = lcp_work};
const solver_family solver_family_lemke = {.work = lcp_work,
                                           .island_doubles = lemke_island_doubles};
