// test_contact_sparse.c — the block-sparse contact problem (contact.h, solver.h):
//  * G assembled from the chain-sparse factor equals J M^-1 J' computed here densely and
//    independently: M from dyn_mulM on unit vectors (no factor), J densified from the contacts'
//    chain rows, M^-1 J' by LAPACK's dposv; every entry to 1e-12 of max |G| (a missing block
//    reads as 0 and fails), on a branched tree (Talos), two robots (two Solo-12) and a robot
//    with free objects (Solo-12 and cubes); on the same scenes each contact's Jacobian rows
//    (formed on the chains in one pass, two chains merged) equal its frame times the generic
//    point Jacobians of its bodies (kin_jac_point) to 1e-15 of max |J|;
//  * islands: two separate stacks of cubes give two islands, each the contacts of one stack
//    (the oracle: a union-find over the bodies each contact touches, the world excluded);
//  * every model/solver pair gives the same contact velocity c = G lambda + g (to its
//    tolerance) on the block-sparse problem (per island) and on the same G stored with every
//    block (one dense island: the dense reference path), both converged;
//  * the factored form Y Y' + diag(ydiag) handed to the solvers equals the blocks (joint-limit
//    rows included: a Panda arm resting on its limits); ADMM factoring islands in dof space
//    (Woodbury) gives the contact velocities of ADMM factoring them densely in contact space;
//  * on a stack of 12 cubes listed out of order, the dof-space factor is banded (Cuthill-McKee
//    finds the band the robots' order hides) and gives the answer of the dense dof-space factor
//    and of contact space.
#include <check.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contact.h"
#include "dense_problem.h"
#include "core/dynamics.h"
#include "core/kinematics.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "core/solvers/admm_impl.h"  // admm_state.band_off: the dense dof-space reference
#include "scene_fixture.h"
#include "support.h"

// max |G_sparse - J M^-1 J'| / max |J M^-1 J'| for the contacts of the last step (the step's
// kinematics and M are still in d: contact_build used them)
static double g_error(sim* s, int* ncon_out) {
  const sim_model* m = s->model.m;
  sim_data* d = s->data.d;
  contact_data* c = s->data.con;
  int nc = c->ncon, nv = m->nv, n3 = 3 * nc, mc = c->maxchain;
  *ncon_out = nc;
  double* M = calloc((size_t)nv * nv, sizeof(double));
  double* X = calloc((size_t)nv * n3, sizeof(double));  // J' then M^-1 J' (nv x n3)
  double* J = calloc((size_t)n3 * nv, sizeof(double));
  double* e = calloc((size_t)nv, sizeof(double));
  for (int k = 0; k < nv; k++) {
    memset(e, 0, sizeof(double) * (size_t)nv);
    e[k] = 1;
    dyn_mulM(m, d, e, M + (size_t)k * nv);  // column k (M symmetric)
  }
  for (int i = 0; i < nc; i++)
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < c->nchain[i]; k++)
        J[(size_t)(3 * i + r) * nv + c->chain[(size_t)i * mc + k]] = c->J[((size_t)i * 3 + r) * mc + k];
  for (int a = 0; a < n3; a++)
    for (int k = 0; k < nv; k++) X[(size_t)k * n3 + a] = J[(size_t)a * nv + k];
  ck_assert_int_eq(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', nv, n3, M, nv, X, n3), 0);
  solver_problem p = contact_problem(c);
  double emax = 0, gmax = 0;
  for (int a = 0; a < n3; a++)
    for (int b = 0; b < n3; b++) {
      double ref = 0;
      for (int k = 0; k < nv; k++) ref += J[(size_t)a * nv + k] * X[(size_t)k * n3 + b];
      // joint limits: inert tangent rows carry G_NN on their diagonal (contact.h)
      int i = a / 3;
      if (i >= nc - c->nlimit && a == b && a % 3 < 2) continue;
      double got = solver_gentry(&p, a, b);
      if (fabs(ref) > gmax) gmax = fabs(ref);
      if (fabs(got - ref) > emax) emax = fabs(got - ref);
    }
  free(M);
  free(X);
  free(J);
  free(e);
  ck_assert(gmax > 0);
  return emax / gmax;
}

// max |J - J_ref| / max |J_ref| over the contacts of the last step (joint entries and spin
// entries left out): J_ref is each contact's frame times the generic point Jacobians of its two
// bodies (kin_jac_point, dense over every dof: body2's with +, body1's with -), against the rows
// contact.c forms on the chains without storing the columns (its own pass and merge)
static double j_error(sim* s) {
  const sim_model* m = s->model.m;
  const sim_data* d = s->data.d;
  const contact_data* c = s->data.con;
  int nv = m->nv, mc = c->maxchain, n = m->maxdepth + 1;
  double* ref = calloc((size_t)3 * nv, sizeof(double));
  double* got = calloc((size_t)3 * nv, sizeof(double));
  double* jac = calloc((size_t)3 * n, sizeof(double));
  int* dofs = calloc((size_t)n, sizeof(int));
  double emax = 0, jmax = 0;
  for (int i = 0; i < c->ncon; i++) {
    if (c->con[i].geom1 < 0) continue;
    memset(ref, 0, sizeof(double) * 3 * (size_t)nv);
    memset(got, 0, sizeof(double) * 3 * (size_t)nv);
    const double* F = c->frame + 9 * i;
    for (int side = 0; side < 2; side++) {
      int b = side == 0 ? c->body2[i] : c->body1[i];
      double sgn = side == 0 ? 1 : -1;
      if (b <= 0) continue;
      int nb = kin_jac_point(m, d, b, c->con[i].pos, dofs, jac, NULL);
      for (int k = 0; k < nb; k++)
        for (int r = 0; r < 3; r++)
          ref[r * nv + dofs[k]] += sgn * (F[3 * r] * jac[k] + F[3 * r + 1] * jac[nb + k] +
                                          F[3 * r + 2] * jac[2 * nb + k]);
    }
    for (int k = 0; k < c->nchain[i]; k++) {
      int dof = c->chain[(size_t)i * mc + k];
      if (k > 0) ck_assert_int_lt(c->chain[(size_t)i * mc + k - 1], dof);  // ascending
      for (int r = 0; r < 3; r++) got[r * nv + dof] = c->J[((size_t)i * 3 + r) * mc + k];
    }
    for (int a = 0; a < 3 * nv; a++) {
      jmax = fmax(jmax, fabs(ref[a]));
      emax = fmax(emax, fabs(got[a] - ref[a]));
    }
  }
  free(ref);
  free(got);
  free(jac);
  free(dofs);
  ck_assert(jmax > 0);
  return emax / jmax;
}

static const char* kTwoSolo =
    "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\nrobots:\n"
    "  - {urdf: ../shared/data/robots/solo12/solo12.urdf, base: free, q0: [0, 0, 0.235, 0, 0, 0, "
    "1, 0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6]}\n"
    "  - {urdf: ../shared/data/robots/solo12/solo12.urdf, base: free, q0: [1, 0, 0.235, 0, 0, 0, "
    "1, 0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6]}\n"
    "contact: {model: ncp, friction: 0.9}\nsolver: {name: pgs, tolerance: 1.0e-8}\n"
    "integrator: {dt: 1.0e-3, duration: 1}\n";

static const char* kSoloCubes =
    "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\nrobots:\n"
    "  - {urdf: ../shared/data/robots/solo12/solo12.urdf, base: free, q0: [0, 0, 0.235, 0, 0, 0, "
    "1, 0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6]}\n"
    "  - {urdf: robots/cube.urdf, base: free, q0: [0.6, 0, 0.05, 0, 0, 0, 1]}\n"
    "  - {urdf: robots/cube.urdf, base: free, q0: [0.6, 0, 0.15, 0, 0, 0, 1]}\n"
    "  - {urdf: robots/cube.urdf, base: free, q0: [0.9, 0.3, 0.05, 0, 0, 0, 1]}\n"
    "contact: {model: ncp, friction: 0.9}\nsolver: {name: pgs, tolerance: 1.0e-8}\n"
    "integrator: {dt: 1.0e-3, duration: 1}\n";

// a Panda arm (fixed base) falling under gravity from q = 0, which is past joint 4's upper
// limit: its joints rest on their limits
static const char* kLimitDrop =
    "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\nrobots:\n"
    "  - {urdf: ../shared/data/robots/panda/panda.urdf, base: fixed}\n"
    "contact: {model: ncp, friction: 0.9}\nsolver: {name: admm, tolerance: 1.0e-8}\n"
    "limits: {enabled: true}\nintegrator: {dt: 1.0e-3, duration: 1}\n";

static const char* kTwoStacks =
    "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\nrobots:\n"
    "  - {urdf: robots/cube.urdf, base: free, q0: [0, 0, 0.05, 0, 0, 0, 1]}\n"
    "  - {urdf: robots/cube.urdf, base: free, q0: [0, 0, 0.15, 0, 0, 0, 1]}\n"
    "  - {urdf: robots/cube.urdf, base: free, q0: [0.5, 0, 0.05, 0, 0, 0, 1]}\n"
    "  - {urdf: robots/cube.urdf, base: free, q0: [0.5, 0, 0.15, 0, 0, 0, 1]}\n"
    "  - {urdf: robots/cube.urdf, base: free, q0: [0.5, 0, 0.25, 0, 0, 0, 1]}\n"
    "contact: {model: ncp, friction: 0.5}\nsolver: {name: pgs, tolerance: 1.0e-10}\n"
    "integrator: {dt: 1.0e-3, duration: 1}\n";

// a scene stepped 3 times whose G matches J M^-1 J' (g_error) to 1e-12 with at least min_nc
// contacts; its sim returned for the island checks
static fixture g_checked(const char* text, const char* path, int min_nc, const char* what) {
  fixture f = fixture_steps(text, path, 3);
  int nc;
  double e = g_error(f.s, &nc);
  ck_assert_int_ge(nc, min_nc);
  ck_assert_msg(e <= 1e-12, "%s, %d contacts: relative error %g", what, nc, e);
  e = j_error(f.s);
  ck_assert_msg(e <= 1e-15, "%s: contact Jacobian rows off the point Jacobians by %g", what, e);
  return f;
}

START_TEST(g_branched_tree) {
  fixture f = g_checked(NULL, "scenarios/talos_stand.yaml", 4, "Talos");
  sim* s = f.s;
  ck_assert_int_eq(s->data.con->G->nisland, 1);  // one tree
  fixture_free(&f);
}
END_TEST

// the contacts between two bodies listed the other way round (geom1 and geom2 swapped, the
// normal turned): contact.c then finds body2's tree before body1's (a stack's two trees placed
// one after the other in either order, group_jacobian); the rebuilt J still equals the point
// Jacobians and G still J M^-1 J'
START_TEST(g_bodies_swapped) {
  fixture f = g_checked(kSoloCubes, NULL, 12, "Solo-12 and cubes");
  sim* s = f.s;
  contact_data* c = s->data.con;
  const sim_model* m = s->model.m;
  int swapped = 0;
  for (int i = 0; i < c->ncon; i++) {
    coll_contact* k = c->con + i;
    if (k->geom1 < 0 || m->geom_body[k->geom1] <= 0 || m->geom_body[k->geom2] <= 0) continue;
    int g = k->geom1;
    k->geom1 = k->geom2, k->geom2 = g;
    for (int r = 0; r < 3; r++) k->normal[r] = -k->normal[r];
    swapped++;
  }
  ck_assert_int_ge(swapped, 4);  // the stack's cube on cube
  ck_assert_int_eq(contact_build(m, s->data.d, c, &s->opt.contact, s->data.vfree), 0);
  int nc;
  double e = g_error(s, &nc);
  ck_assert_msg(e <= 1e-12, "swapped bodies, %d contacts: relative error %g", nc, e);
  e = j_error(s);
  ck_assert_msg(e <= 1e-15, "swapped bodies: contact Jacobian rows off by %g", e);
  fixture_free(&f);
}
END_TEST

START_TEST(g_two_robots) {
  fixture f = g_checked(kTwoSolo, NULL, 8, "two Solo-12");
  sim* s = f.s;
  int nc = s->data.con->ncon;
  ck_assert_int_eq(s->data.con->G->nisland, 2);  // one per robot: the ground links nothing
  // fewer blocks than dense: the robots' contacts do not couple
  ck_assert_int_lt(s->data.con->G->nblocks, (long)nc * nc);
  fixture_free(&f);
}
END_TEST

START_TEST(g_robot_and_objects) {
  fixture f = g_checked(kSoloCubes, NULL, 12, "Solo-12 and cubes");
  sim* s = f.s;
  ck_assert_int_eq(s->data.con->G->nisland, 3);  // the robot, the 2-cube stack, the lone cube
  fixture_free(&f);
}
END_TEST

// two 20-link chains (25 dofs each), one lying along +x on the ground, the other across it
// along +y, its 10th link resting on the first's: contacts on chains longer than 16 dofs made of
// one root path (link on the ground) and of two (link on link), which build_y walks with y_path
// on L's rows root first (contact.c l_reversed); G against J M^-1 J' to 1e-10 (g_error: a row
// of L read at a wrong offset, or reversed the wrong way, errs by O(1)). Not 1e-12: the
// reference's own round-off on the two 25-dof chains' M; build_y's general walk (kPathWalk
// raised past 25) and y_path before l_reversed both measure 6.0e-12 here
START_TEST(g_long_chains) {
  tmp_setup();
  char path[512], urdf[512], text[4096];
  fixture_chain(20, "{model: ncp, friction: 0.5}", "{name: pgs, tolerance: 1.0e-8}", path,
                sizeof(path));
  tmp_path(urdf, sizeof(urdf), "chain20.urdf");
  char zeros[128] = "";
  for (int k = 1; k < 20; k++) strcat(zeros, ", 0");
  // the second chain's base turned +90 degrees about x (its links along +y), at x = 0.95 over
  // the first one's 10th link, its 10th link across it (y from -0.05 to 0.05), 2 cm up
  snprintf(text, sizeof(text),
           "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
           "robots:\n  - {urdf: %s, base: free, q0: [0, 0, 0.01, 0, -0.7071067811865476, 0, "
           "0.7071067811865476%s]}\n  - {urdf: %s, base: free, q0: [0.95, -0.95, 0.03, "
           "0.7071067811865476, 0, 0, 0.7071067811865476%s]}\ncontact: {model: ncp, friction: "
           "0.5}\nsolver: {name: pgs, tolerance: 1.0e-8}\nintegrator: {dt: 1.0e-3, duration: 1}\n",
           urdf, zeros, urdf, zeros);
  fixture f = fixture_steps(text, NULL, 3);
  int nc;
  double e = g_error(f.s, &nc);
  ck_assert_int_ge(nc, 80);
  ck_assert_msg(e <= 1e-10, "two 20-link chains, %d contacts: relative error %g", nc, e);
  const contact_data* c = f.s->data.con;
  int one = 0, two = 0;  // long contacts on one root path, on two
  for (int i = 0; i < c->ncon; i++) {
    if (c->nchain[i] <= 16) continue;
    if (c->key[2 * i + 1] >= 0) two++;
    else one++;
  }
  ck_assert_msg(one > 0 && two > 0, "long chains: %d on one path, %d on two", one, two);
  fixture_free(&f);
  tmp_teardown();
}
END_TEST

// a free rigid body's contacts against the closed form of its Delassus matrix (Newton-Euler,
// not the factor): an impulse f at p_j changes the velocity at p_i by f / m + (I_w^-1 (r_j x f))
// x r_i, r = p - com, so G_ij = F_i' (E / m - [r_i]x I_w^-1 [r_j]x) F_j with I_w = R I_b R' from
// the URDF's mass, inertia and centre of mass; every entry to 1e-12 of max |G|. The cube with
// its centre of mass at its origin and a diagonal inertia has zero rows of L below the diagonal
// (contact.c y_one_path skips them), the skewed one (offset centre of mass, products of inertia)
// has none
static double rigid_g_error(const char* inertial, const char* what) {
  tmp_setup();
  char urdf[512], text[2048];
  tmp_path(urdf, sizeof(urdf), "body.urdf");
  char body[1024];
  snprintf(body, sizeof(body),
           "<?xml version=\"1.0\"?>\n<robot name=\"b\">\n  <link name=\"b\">\n    <inertial>%s"
           "</inertial>\n    <collision><geometry><box size=\"0.1 0.1 0.1\"/></geometry>"
           "</collision>\n  </link>\n</robot>\n", inertial);
  tmp_write_text("body.urdf", body);
  // tilted 0.3 rad about x and resting on an edge: 2 contacts in a non-trivial frame
  snprintf(text, sizeof(text),
           "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
           "robots:\n  - {urdf: %s, base: free, q0: [0, 0, 0.0625, 0.1494381, 0, 0, 0.9887711]}\n"
           "contact: {model: ncp, friction: 0.5}\nsolver: {name: pgs, tolerance: 1.0e-8}\n"
           "integrator: {dt: 1.0e-3, duration: 1}\n", urdf);
  fixture f = fixture_steps(text, NULL, 3);
  const sim_model* m = f.s->model.m;
  const sim_data* d = f.s->data.d;
  const contact_data* c = f.s->data.con;
  int nc = c->ncon, b = 1;
  ck_assert_int_ge(nc, 2);
  // the URDF's values, parsed back from the same string the model was built from
  double mass, cb[3], in[6];
  const char* q = strstr(inertial, "xyz=\"");
  ck_assert(q && sscanf(q, "xyz=\"%lf %lf %lf\"", cb, cb + 1, cb + 2) == 3);
  q = strstr(inertial, "mass value=\"");
  ck_assert(q && sscanf(q, "mass value=\"%lf\"", &mass) == 1);
  q = strstr(inertial, "ixx=\"");
  ck_assert(q && sscanf(q, "ixx=\"%lf\" ixy=\"%lf\" ixz=\"%lf\" iyy=\"%lf\" iyz=\"%lf\" izz=\"%lf\"",
                        in, in + 1, in + 2, in + 3, in + 4, in + 5) == 6);
  double Ib[9] = {in[0], in[1], in[2], in[1], in[3], in[4], in[2], in[4], in[5]}, Iw[9], T[9];
  const double* R = d->xmat + 9 * b;
  double com[3];
  for (int r = 0; r < 3; r++) {
    com[r] = d->xpos[3 * b + r];
    for (int k = 0; k < 3; k++) com[r] += R[3 * r + k] * cb[k];
  }
  for (int r = 0; r < 3; r++)  // T = R Ib, Iw = T R'
    for (int k = 0; k < 3; k++) T[3 * r + k] = R[3 * r] * Ib[k] + R[3 * r + 1] * Ib[3 + k] + R[3 * r + 2] * Ib[6 + k];
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < 3; k++) Iw[3 * r + k] = T[3 * r] * R[3 * k] + T[3 * r + 1] * R[3 * k + 1] + T[3 * r + 2] * R[3 * k + 2];
  int ipiv[3];
  ck_assert_int_eq(LAPACKE_dgetrf(LAPACK_ROW_MAJOR, 3, 3, Iw, 3, ipiv), 0);
  ck_assert_int_eq(LAPACKE_dgetri(LAPACK_ROW_MAJOR, 3, Iw, 3, ipiv), 0);  // Iw now I_w^-1
  solver_problem p = contact_problem(c);
  double emax = 0, gmax = 0;
  for (int i = 0; i < nc; i++)
    for (int j = 0; j < nc; j++)
      for (int s = 0; s < 3; s++)
        for (int t = 0; t < 3; t++) {
          const double *Fi = c->frame + 9 * i + 3 * s, *Fj = c->frame + 9 * j + 3 * t;
          double ri[3], rj[3], a[3], w[3], u[3];
          for (int k = 0; k < 3; k++) ri[k] = c->con[i].pos[k] - com[k], rj[k] = c->con[j].pos[k] - com[k];
          // a = r_j x F_j's row; w = I_w^-1 a; u = w x r_i: the velocity at p_i per unit impulse
          a[0] = rj[1] * Fj[2] - rj[2] * Fj[1], a[1] = rj[2] * Fj[0] - rj[0] * Fj[2], a[2] = rj[0] * Fj[1] - rj[1] * Fj[0];
          for (int k = 0; k < 3; k++) w[k] = Iw[3 * k] * a[0] + Iw[3 * k + 1] * a[1] + Iw[3 * k + 2] * a[2];
          u[0] = w[1] * ri[2] - w[2] * ri[1], u[1] = w[2] * ri[0] - w[0] * ri[2], u[2] = w[0] * ri[1] - w[1] * ri[0];
          double ref = 0;
          for (int k = 0; k < 3; k++) ref += Fi[k] * (Fj[k] / mass + u[k]);
          double got = solver_gentry(&p, 3 * i + s, 3 * j + t);
          gmax = fmax(gmax, fabs(ref));
          emax = fmax(emax, fabs(got - ref));
        }
  (void)m;
  fixture_free(&f);
  tmp_teardown();
  ck_assert_msg(gmax > 0, "%s: G is zero", what);
  return emax / gmax;
}

// a lone free body on the ground (contact.c assemble_one, group_blocks, y_six_group): one island
// of every contact, every block stored (row i's in column order), each equal bit for bit to
// the one formula's block (solver_yblock, which put_block's path forms), and G to J M^-1 J'
// (LAPACK) to 1e-12
static void lone_body_check(sim* s, const char* what) {
  const contact_data* c = s->data.con;
  const solver_blocks* B = c->G;
  int nc = c->ncon;
  ck_assert_int_ge(nc, 2);
  ck_assert_int_eq(B->nisland, 1);
  ck_assert_int_eq(B->island_ptr[1], nc);
  ck_assert_int_eq(B->nblocks, (long)nc * nc);
  solver_problem p = contact_problem(c);
  for (int i = 0; i < nc; i++) {
    ck_assert_int_eq(B->island_con[i], i);
    ck_assert_int_eq(B->rowptr[i], i * nc);
    ck_assert_int_eq(B->diag[i], i * nc + i);
    for (int j = 0; j < nc; j++) {
      double ref[9];
      solver_yblock(&p, i, j, ref);
      ck_assert_int_eq(B->col[i * nc + j], j);
      ck_assert_msg(memcmp(B->blk + 9 * (size_t)(i * nc + j), ref, sizeof(ref)) == 0,
                    "%s: block (%d, %d) not the one formula's bits", what, i, j);
    }
  }
  int n;
  double e = g_error(s, &n);
  ck_assert_msg(e <= 1e-12, "%s: G off J M^-1 J' by %g", what, e);
}

START_TEST(g_lone_body_group) {
  const char* files[] = {"scenarios/cube_slide.yaml", "scenarios/cube_push_ramp.yaml"};
  for (int k = 0; k < 2; k++) {
    fixture f = fixture_steps(NULL, files[k], 5);
    lone_body_check(f.s, files[k]);
    fixture_free(&f);
  }
}
END_TEST

START_TEST(g_rigid_body_closed_form) {
  const char* plain =
      "<origin xyz=\"0 0 0\"/><mass value=\"1.0\"/><inertia ixx=\"0.001666666667\" ixy=\"0\" "
      "ixz=\"0\" iyy=\"0.001666666667\" iyz=\"0\" izz=\"0.001666666667\"/>";
  const char* skewed =
      "<origin xyz=\"0.01 -0.02 0.005\"/><mass value=\"0.7\"/><inertia ixx=\"0.0015\" "
      "ixy=\"0.0002\" ixz=\"-0.0001\" iyy=\"0.0012\" iyz=\"0.00015\" izz=\"0.0018\"/>";
  double e = rigid_g_error(plain, "cube");
  ck_assert_msg(e <= 1e-12, "cube: G off the rigid body's closed form by %g", e);
  e = rigid_g_error(skewed, "skewed body");
  ck_assert_msg(e <= 1e-12, "skewed body: G off the rigid body's closed form by %g", e);
}
END_TEST

// the whole G of a problem as one dense 3nc x 3nc matrix (malloc'd; solver_gdense over every
// contact)
static double* g_dense_all(const solver_problem* p) {
  int nc = p->nc;
  double* G = calloc((size_t)9 * nc * nc, sizeof(double));
  int* map = calloc((size_t)nc, sizeof(int));
  int* all = calloc((size_t)nc, sizeof(int));
  for (int i = 0; i < nc; i++) all[i] = i;
  solver_gdense(p, all, nc, map, G);
  free(map);
  free(all);
  return G;
}

// max |a - b| and max |a| over n entries
static double max_absdiff(const double* a, const double* b, int n) {
  double m = 0;
  for (int k = 0; k < n; k++) m = fmax(m, fabs(a[k] - b[k]));
  return m;
}

static double max_abs(const double* a, int n) {
  double m = 0;
  for (int k = 0; k < n; k++) m = fmax(m, fabs(a[k]));
  return m;
}

static int uf_find(int* uf, int i) {
  while (uf[i] != i) i = uf[i];
  return i;
}

START_TEST(islands_two_stacks) {
  fixture f = fixture_steps(kTwoStacks, NULL, 2);
  sim* s = f.s;
  contact_data* c = s->data.con;
  const solver_blocks* B = c->G;
  int nc = c->ncon, nb = s->model.m->nbody;
  ck_assert_int_ge(nc, 16);  // 4 corners on the ground or on the cube below, 5 cubes
  // oracle: bodies linked through contacts (world excluded)
  int uf[64];
  ck_assert_int_le(nb, 64);
  for (int b = 0; b < nb; b++) uf[b] = b;
  for (int i = 0; i < nc; i++) {
    int a = c->body1[i], b = c->body2[i];
    if (a <= 0 || b <= 0) continue;
    int ra = uf_find(uf, a), rb = uf_find(uf, b);
    if (ra != rb) uf[ra] = rb;
  }
  ck_assert_int_eq(B->nisland, 2);
  int seen[2] = {-1, -1};
  for (int k = 0; k < B->nisland; k++) {
    int root = -1;
    for (int q = B->island_ptr[k]; q < B->island_ptr[k + 1]; q++) {
      int i = B->island_con[q];
      int b = c->body2[i] > 0 ? c->body2[i] : c->body1[i];
      int r = uf_find(uf, b);
      if (root < 0) root = r;
      ck_assert_int_eq(r, root);  // one stack per island
      if (q > B->island_ptr[k]) ck_assert_int_gt(i, B->island_con[q - 1]);  // ascending
    }
    seen[k] = root;
  }
  ck_assert_int_ne(seen[0], seen[1]);
  ck_assert_int_eq(B->island_ptr[2], nc);  // every contact in exactly one island
  // the cubes of each stack: 2 and 3
  int n0 = 0, n1 = 0;
  for (int b = 1; b < nb; b++) {
    n0 += uf_find(uf, b) == seen[0];
    n1 += uf_find(uf, b) == seen[1];
  }
  ck_assert((n0 == 2 && n1 == 3) || (n0 == 3 && n1 == 2));
  fixture_free(&f);
}
END_TEST

// every pair: the block-sparse problem (per island) and the all-blocks one (one island) agree
START_TEST(solvers_sparse_vs_dense) {
  fixture f = fixture_steps(kTwoStacks, NULL, 20);
  sim* s = f.s;
  contact_data* c = s->data.con;
  solver_problem sp = contact_problem(c);
  int nc = sp.nc, n3 = 3 * nc;
  ck_assert_int_eq(sp.nisland, 2);
  double* Gd = g_dense_all(&sp);
  solver_problem dp = tdense_full(nc, Gd, sp.g, sp.mu, NULL);
  ck_assert_int_eq(dp.nisland, 1);
  double* l1 = calloc((size_t)n3, sizeof(double));
  double* l2 = calloc((size_t)n3, sizeof(double));
  double* c1 = calloc((size_t)n3, sizeof(double));
  double* c2 = calloc((size_t)n3, sizeof(double));
  int npairs = 0;
  for (int mo = 0; mo < CSIM_NRIGID_MODELS; mo++)
    for (int k = 0; k < CSIM_NRIGID_SOLVERS; k++) {
      if (!solver_pair_supported((csim_model)mo, (csim_solver)k, NULL, 0)) continue;
      // newton needs the factored form and R > 0 (test_newton.c), neither of which the dense
      // problem and this rigid scene have
      if (k == CSIM_SOLVER_NEWTON) continue;
      npairs++;
      solver_options o = {(csim_model)mo, (csim_solver)k, 1e-9, 20000, 1.0, 4, 1.0, 1,
                          SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
      solver* sv = tsolver_create(&o, nc);
      solver_result r1, r2;
      memset(l1, 0, sizeof(double) * (size_t)n3);
      memset(l2, 0, sizeof(double) * (size_t)n3);
      solver_solve(sv, &sp, l1, &r1);
      memcpy(c1, solver_velocity(sv), sizeof(double) * (size_t)n3);
      solver_solve(sv, &dp, l2, &r2);
      memcpy(c2, solver_velocity(sv), sizeof(double) * (size_t)n3);
      const char* name = csim_solver_names[k];
      ck_assert_msg(r1.converged && r2.converged, "%s/%s: converged %d (sparse) %d (dense)",
                    csim_model_names[mo], name, r1.converged, r2.converged);
      double dc = max_absdiff(c1, c2, n3), cmax = max_abs(c1, n3);
      // the contact velocity of either answer, to the solvers' tolerance (CCP/LCP velocities
      // are unique; the resting stacks' NCP answer is too)
      ck_assert_msg(dc <= 1e-6 * fmax(1, cmax), "%s/%s: |c_sparse - c_dense| = %g",
                    csim_model_names[mo], name, dc);
      // (the per-contact families stop island by island on the sparse problem and sweep
      // every contact together on the one-island problem: their sweep counts, hence their
      // impulses' last bits, differ; the velocity check above is what both must meet)
      solver_free(sv);
    }
  ck_assert_int_ge(npairs, 9);
  free(Gd);
  free(l1); free(l2); free(c1); free(c2);
  fixture_free(&f);
}
END_TEST

// the bound of contact_max_blocks holds on a scene whose trees take many contacts
START_TEST(block_bound) {
  fixture f = fixture_steps(kSoloCubes, NULL, 2);
  sim* s = f.s;
  long bound = contact_max_blocks(s->model.m, s->data.con->ncon);
  ck_assert_int_le(s->data.con->G->nblocks, bound);
  ck_assert_int_le(bound, (long)s->data.con->ncon * s->data.con->ncon);
  fixture_free(&f);
}
END_TEST

// the factored form contact_problem hands the solvers (solver.h): Y Y' + diag(ydiag), densified
// here from the chain rows, equals the stored blocks entry by entry (to 1e-12 of max |G|)
static double factored_error(const solver_problem* p) {
  int nc = p->nc, n3 = 3 * nc;
  double* Gd = g_dense_all(p);
  double* Yd = calloc((size_t)n3 * (size_t)p->nv, sizeof(double));
  for (int i = 0; i < nc; i++)
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < p->ynz[i]; k++)
        Yd[(size_t)(3 * i + r) * p->nv + p->ydof[(size_t)i * p->ystride + k]] =
            p->Y[(size_t)(3 * i + r) * p->ystride + k];
  double e = 0, gmax = 0;
  for (int a = 0; a < n3; a++)
    for (int b = 0; b < n3; b++) {
      double x = a == b && p->ydiag ? p->ydiag[a] : 0;
      for (int k = 0; k < p->nv; k++) x += Yd[(size_t)a * p->nv + k] * Yd[(size_t)b * p->nv + k];
      e = fmax(e, fabs(x - Gd[(size_t)a * n3 + b]));
      gmax = fmax(gmax, fabs(Gd[(size_t)a * n3 + b]));
    }
  free(Gd); free(Yd);
  return e / gmax;
}

// ADMM factoring islands in dof space (Woodbury through the factored form, solver options nv
// and max_chain set as sim sets them) against ADMM factoring every island densely in contact
// space (nv = 0): both converge, the islands with fewer dofs than contact rows did go through
// dof space, and the contact velocities agree to the tolerance; the factored form itself equals
// the blocks (including a robot's joint-limit rows when limits are active)
START_TEST(admm_dof_space) {
  const char* scenes[] = {kTwoStacks, kSoloCubes, NULL};
  for (int sc = 0; sc < 3; sc++) {
    fixture f = fixture_steps(scenes[sc], sc == 2 ? "scenarios/talos_stand.yaml" : NULL, 20);
    sim* s = f.s;
    solver_problem sp = contact_problem(s->data.con);
    int nc = sp.nc, n3 = 3 * nc;
    ck_assert_int_ge(nc, 4);
    double fe = factored_error(&sp);
    ck_assert_msg(fe <= 1e-12, "scene %d: |Y Y' + diag - G| / |G| = %g", sc, fe);
    double* l1 = calloc((size_t)n3, sizeof(double));
    double* l2 = calloc((size_t)n3, sizeof(double));
    double* c1 = calloc((size_t)n3, sizeof(double));
    for (int mo = 0; mo < 2; mo++) {
      csim_model model = mo ? CSIM_MODEL_CCP : CSIM_MODEL_NCP;
      solver_options od = {model, CSIM_SOLVER_ADMM, 1e-9, 5000, 1.0, 4, 1.0, 1, SOLVER_STOP_MODEL, 0, 0, 0, 0, 0, 0};
      solver_options oy = od;
      oy.nv = s->model.m->nv;
      oy.max_chain = contact_max_chain(s->model.m);
      solver *sd = NULL, *sy = NULL;
      csim_error err;
      ck_assert_msg(solver_create(&od, nc, &sd, &err) == CSIM_OK, "%s", err.msg);
      ck_assert_msg(solver_create(&oy, nc, &sy, &err) == CSIM_OK, "%s", err.msg);
      memset(l1, 0, sizeof(double) * (size_t)n3);
      memset(l2, 0, sizeof(double) * (size_t)n3);
      solver_result rd, ry;
      solver_solve(sd, &sp, l1, &rd);
      memcpy(c1, solver_velocity(sd), sizeof(double) * (size_t)n3);
      solver_solve(sy, &sp, l2, &ry);
      const double* c2 = solver_velocity(sy);
      ck_assert_msg(rd.converged && ry.converged, "scene %d model %d: converged %d (dense) %d (dofs)",
                    sc, mo, rd.converged, ry.converged);
      ck_assert_int_eq(rd.dof_islands, 0);
      // the cube stacks (12 or 18 dofs, 24 or 36 rows) go through dof space
      if (sc < 2) ck_assert_int_ge(ry.dof_islands, 2);
      double dc = max_absdiff(c1, c2, n3), cmax = max_abs(c1, n3);
      ck_assert_msg(dc <= 1e-6 * fmax(1, cmax), "scene %d model %d: |c_dofs - c_dense| = %g", sc,
                    mo, dc);
      solver_free(sd);
      solver_free(sy);
    }
    free(l1); free(l2); free(c1);
    fixture_free(&f);
  }
}
END_TEST

// a stack of 12 cubes (centres 0.1 m apart, resting on one another) listed in shuffled order, so
// that the robots' dofs are not in the stack's order
static char* shuffled_stack(void) {
  static const int order[12] = {7, 2, 10, 0, 5, 11, 3, 8, 1, 6, 9, 4};
  double pos[36] = {0};
  for (int r = 0; r < 12; r++) pos[3 * r + 2] = 0.05 + 0.1 * order[r];
  return fixture_cubes(12, pos, "{name: pgs, tolerance: 1.0e-10}");
}

// the banded dof-space factor (admm.c: dofs in Cuthill-McKee order, LAPACK dpbtrf) on a tall
// stack: taken (one island of 72 dofs; in the robots' order its band would be too wide and the
// factor dense), and its answer is the dense dof-space factor's (admm_state.band_off) and contact
// space's, NCP and CCP: contact velocities to 10 times the tolerance, impulses to 1e-6 of the
// largest against the dense dof path. A band computed too narrow drops entries of
// I + Y' A^-1 Y, and the iteration no longer converges
START_TEST(admm_banded) {
  char* text = shuffled_stack();
  fixture f = fixture_steps(text, NULL, 5);
  sim* s = f.s;
  free(text);
  solver_problem sp = contact_problem(s->data.con);
  int nc = sp.nc, n3 = 3 * nc;
  ck_assert_int_ge(nc, 48);  // 4 corners on the ground and on each cube below
  ck_assert_int_eq(sp.nisland, 1);
  double* l[3];
  double* c[3];
  for (int k = 0; k < 3; k++) {
    l[k] = calloc((size_t)n3, sizeof(double));
    c[k] = calloc((size_t)n3, sizeof(double));
  }
  for (int mo = 0; mo < 2; mo++) {
    csim_model model = mo ? CSIM_MODEL_CCP : CSIM_MODEL_NCP;
    // 0: banded dof space, 1: dense dof space, 2: contact space (nv = 0)
    solver_options o = {model, CSIM_SOLVER_ADMM, 1e-10, 20000, 1.0, 4, 1.0, 1, SOLVER_STOP_MODEL,
                        s->model.m->nv, contact_max_chain(s->model.m), 0, 0, 0, 0};
    solver_result r[3];
    for (int k = 0; k < 3; k++) {
      solver_options ok = o;
      if (k == 2) ok.nv = ok.max_chain = 0;
      solver* sv = tsolver_create(&ok, nc);
      solver_admm(sv)->band_off = k == 1;
      memset(l[k], 0, sizeof(double) * (size_t)n3);
      solver_solve(sv, &sp, l[k], &r[k]);
      memcpy(c[k], solver_velocity(sv), sizeof(double) * (size_t)n3);
      ck_assert_msg(r[k].converged, "model %d path %d: not converged (residual %g)", mo, k,
                    r[k].residual);
      solver_free(sv);
    }
    ck_assert_int_eq(r[0].dof_islands, 1);
    ck_assert_int_eq(r[0].band_islands, 1);
    ck_assert_int_eq(r[1].dof_islands, 1);
    ck_assert_int_eq(r[1].band_islands, 0);
    ck_assert_int_eq(r[2].dof_islands, 0);
    ck_assert_int_eq(r[2].band_islands, 0);
    for (int k = 1; k < 3; k++) {
      double dc = max_absdiff(c[0], c[k], n3), dl = max_absdiff(l[0], l[k], n3);
      double lmax = max_abs(l[k], n3);
      ck_assert_msg(dc <= 10 * o.tolerance, "model %d: |c_band - c_%s| = %g", mo,
                    k == 1 ? "dense" : "contact", dc);
      // a resting stack's impulses are not unique (four corners per face): their sums are, and
      // the velocities above; each impulse is checked against the dense dof path only, which
      // runs the same iteration on the same numbers up to float order
      if (k == 1)
        ck_assert_msg(dl <= 1e-6 * lmax, "model %d: |l_band - l_dense| = %g (max %g)",
                      mo, dl, lmax);
    }
  }
  for (int k = 0; k < 3; k++) {
    free(l[k]);
    free(c[k]);
  }
  fixture_free(&f);
}
END_TEST

// solver (ADMM, dof space, keep_off as given) solving sp, then sp with its Y rows scaled by
// 1 + scale (the same pattern: contacts on the same dofs) from the first answer, into l and c
// (3 nc each); the factorizations of the second solve
static long kept_solves(const solver_problem* sp, const solver_options* o, int keep_off,
                        double scale, double* l, double* c) {
  int nc = sp->nc, n3 = 3 * nc;
  size_t ny = (size_t)n3 * (size_t)sp->ystride;
  double* y2 = malloc(sizeof(double) * ny);
  for (size_t k = 0; k < ny; k++) y2[k] = sp->Y[k] * (1 + scale * (double)(k % 7) / 7);
  solver_problem p2 = *sp;
  p2.Y = y2;
  solver* sv = tsolver_create(o, nc);
  solver_admm(sv)->keep_off = keep_off;
  solver_result r;
  memset(l, 0, sizeof(double) * (size_t)n3);
  solver_solve(sv, sp, l, &r);
  ck_assert_msg(r.converged, "first solve: residual %g", r.residual);
  long f0 = solver_admm(sv)->factorizations;
  solver_solve(sv, &p2, l, &r);
  ck_assert_msg(r.converged, "second solve (scale %g): residual %g", scale, r.residual);
  memcpy(c, solver_velocity(sv), sizeof(double) * (size_t)n3);
  long f = solver_admm(sv)->factorizations - f0;
  solver_free(sv);
  free(y2);
  return f;
}

// the kept factor (admm.c admm_kept): a second solve of the same island pattern at the same
// shift starts on the first solve's factor, refined against its own G~, and answers as a solver
// that refactors (keep_off): contact velocities to 10 times the tolerance, impulses to 1e-6 of
// the largest; a Y moved 1e-8 keeps the factor (one factorization fewer), a Y moved 1e-1 is
// refactored (the refinement's correction past kKeptTol) and still converges
START_TEST(admm_kept_factor) {
  char* text = shuffled_stack();
  fixture f = fixture_steps(text, NULL, 5);
  sim* s = f.s;
  free(text);
  solver_problem sp = contact_problem(s->data.con);
  int n3 = 3 * sp.nc;
  solver_options o = {CSIM_MODEL_NCP, CSIM_SOLVER_ADMM, 1e-10, 20000, 1.0, 4, 1.0, 1,
                      SOLVER_STOP_MODEL, s->model.m->nv, contact_max_chain(s->model.m), 0, 0,
                      0, 0};
  double *l[2], *c[2];
  for (int k = 0; k < 2; k++) {
    l[k] = calloc((size_t)n3, sizeof(double));
    c[k] = calloc((size_t)n3, sizeof(double));
  }
  const double scales[2] = {1e-8, 1e-1};
  for (int t = 0; t < 2; t++) {
    long fk = kept_solves(&sp, &o, 0, scales[t], l[0], c[0]);
    long fr = kept_solves(&sp, &o, 1, scales[t], l[1], c[1]);
    if (t == 0) ck_assert_msg(fk == fr - 1, "kept %ld factorizations, refactored %ld", fk, fr);
    else ck_assert_msg(fk >= 1, "a factor 1e-1 away was kept");
    double dc = max_absdiff(c[0], c[1], n3), dl = max_absdiff(l[0], l[1], n3);
    ck_assert_msg(dc <= 10 * o.tolerance, "scale %g: |c_kept - c_refactored| = %g", scales[t],
                  dc);
    ck_assert_msg(dl <= 1e-6 * max_abs(l[1], n3), "scale %g: |l_kept - l_refactored| = %g",
                  scales[t], dl);
  }
  for (int k = 0; k < 2; k++) {
    free(l[k]);
    free(c[k]);
  }
  fixture_free(&f);
}
END_TEST

// the bench's 2-cube stack (tools/bench/bench_scenes.py stack_yaml) under ncp/admm without a
// kept factor, its corrections' history off (the reference) or on; the solver's factorizations
// (one a solve) over nstep steps
// into *fact, cube 2's height at each step into z (nstep), every step asserted converged
static void stack2_run(int hist_off, int nstep, long* fact, double* z) {
  const double pos[6] = {0, 0, 0.05, 0, 0, 0.15};
  char* text = fixture_cubes(2, pos, "{name: admm, tolerance: 1.0e-6, max_iterations: 500}");
  char* at = strstr(text, "friction: 0.5}");
  ck_assert_ptr_nonnull(at);
  size_t k = (size_t)(at - text), m = strlen(text);
  char* t2 = malloc(m + 32);
  snprintf(t2, m + 32, "%.*sfriction: 0.5, baumgarte: 0}%s", (int)k, text, at + 14);
  fixture f = fixture_text(t2, "stack2.yaml", NULL, 0);
  free(text);
  free(t2);
  solver_admm(f.s->data.slv)->hist_off = hist_off;
  // every solve factors (no factor kept across steps, which from 10 dofs would hide the solves
  // the history saves behind its refinements)
  solver_admm(f.s->data.slv)->keep_off = 1;
  sim_stepinfo info;
  csim_error err;
  for (int s = 0; s < nstep; s++) {
    ck_assert_msg(sim_step(f.s, &info, &err) == CSIM_OK, "%s", err.msg);
    ck_assert_msg(info.solve.converged && info.solve.eps_abs <= 1e-6, "history %s, step %d: eps %g",
                  hist_off ? "off" : "on", s, info.solve.eps_abs);
    z[s] = f.s->data.d->q[7 + 2];
  }
  *fact = solver_admm(f.s->data.slv)->factorizations;
  fixture_free(&f);
}

// the corrections' history (admm.c admm_secant): on the resting 2-cube stack, whose warm starts
// fail on two steps of three (contact.c's depth / dt target), the warm start moved along the last
// solves' corrections meets the tolerance instead of a solve: far fewer factorizations than
// without the history (measured: 192 and 5 in 300 steps), every step converged to the
// tolerance, and the upper cube within 1e-8 m of its resting height (measured 3.5e-9 m; the
// reference's warm starts, kept at a separating velocity within the tolerance, lift it 3.3e-7 m)
START_TEST(admm_history_secant) {
  enum { NSTEP = 300 };
  double z0[NSTEP], z1[NSTEP];
  long f0, f1;
  stack2_run(1, NSTEP, &f0, z0);
  stack2_run(0, NSTEP, &f1, z1);
  printf("2-cube stack, %d steps of ncp/admm: %ld factorizations without the history, %ld with\n",
         NSTEP, f0, f1);
  ck_assert_msg(f0 >= NSTEP / 3, "precondition: the reference factors on %ld of %d steps", f0,
                NSTEP);
  ck_assert_msg(f1 <= 10, "with the history: %ld factorizations", f1);
  double d0 = 0, d1 = 0;  // the upper cube's largest distance from its resting height
  for (int s = 0; s < NSTEP; s++) {
    d0 = fmax(d0, fabs(z0[s] - 0.15));
    d1 = fmax(d1, fabs(z1[s] - 0.15));
  }
  printf("upper cube within %.3g m of 0.15 m without the history, %.3g m with\n", d0, d1);
  ck_assert_msg(d1 <= 1e-8, "with the history the upper cube moves %g m", d1);
}
END_TEST

// kLimitDrop stepped until a joint limit is active (every step converged), its sim returned
static fixture panda_on_limits(void) {
  fixture f = fixture_steps(kLimitDrop, NULL, 0);
  sim* s = f.s;
  sim_stepinfo info;
  csim_error err;
  for (int k = 0; k < 400 && s->data.con->nlimit == 0; k++) {
    ck_assert_msg(sim_step(s, &info, &err) == CSIM_OK, "%s", err.msg);
    ck_assert_msg(info.solve.converged, "Panda step %d", k);
  }
  ck_assert_msg(s->data.con->nlimit > 0, "no joint limit became active in 400 steps");
  return f;
}

// a joint limit's rows in the factored form: zero Y tangent rows, G_NN on ydiag (solver.h),
// against every block (the ADMM run's own problem holds the diagonal ones only: rebuilt)
START_TEST(factored_form_limits) {
  fixture f = panda_on_limits();
  sim* s = f.s;
  contact_options o = s->opt.contact;
  o.diag_only = 0;
  o.auto_split = 0;  // the blocks as asked, whatever solver.name auto would choose
  ck_assert_int_eq(contact_build(s->model.m, s->data.d, s->data.con, &o, s->data.vfree), 0);
  solver_problem sp = contact_problem(s->data.con);
  ck_assert_int_eq(sp.diag_only, 0);
  ck_assert_ptr_nonnull(sp.ydiag);
  double fe = factored_error(&sp);
  ck_assert_msg(fe <= 1e-12, "limits: |Y Y' + diag - G| / |G| = %g", fe);
  fixture_free(&f);
}
END_TEST

// an arena too small for contact_build's scratch is reported (-2), not written past: data whose
// arena holds one 64-byte block cannot take both the chain's dofs and its Jacobian rows
START_TEST(arena_too_small_is_reported) {
  fixture f = panda_on_limits();
  sim* s = f.s;
  sim_data* small = NULL;
  csim_error err;
  ck_assert_int_eq(data_create(s->model.m, 64, &small, &err), CSIM_OK);
  ck_assert_int_eq(contact_build(s->model.m, small, s->data.con, &s->opt.contact, s->data.vfree), -2);
  ck_assert_int_eq((int)small->arena_top, 0);  // released
  data_free(small);
  fixture_free(&f);
}
END_TEST

// diag_only (solver.h): the diagonal blocks and the factored form give what the full blocks give,
// for the same contacts built both ways at the same state: the same islands, the dense G of
// every island bit for bit (both storages form a block by the one formula, solver_yblock), and
// G x, a row block of G x, a column block times d and single entries to 1e-12 of max |G|
// (products through Y sum in another order). x is fixed pseudo-random data
static void diag_only_check(sim* s, const char* what) {
  contact_data* c = s->data.con;
  contact_options o = s->opt.contact;
  o.diag_only = 0;
  o.auto_split = 0;  // the blocks as asked, whatever solver.name auto would choose
  ck_assert_int_eq(contact_build(s->model.m, s->data.d, c, &o, s->data.vfree), 0);
  int nc = c->ncon, n3 = 3 * nc, ni = c->G->nisland;
  ck_assert_int_ge(nc, 2);
  double* Gd = calloc((size_t)n3 * n3, sizeof(double));
  double* x = calloc((size_t)n3, sizeof(double));
  double* yf = calloc((size_t)n3, sizeof(double));
  double* yd = calloc((size_t)n3, sizeof(double));
  double* colf = calloc((size_t)n3 * nc, sizeof(double));
  double* rowf = calloc((size_t)n3, sizeof(double));
  int* isl = calloc((size_t)nc + 1, sizeof(int));
  int* islc = calloc((size_t)nc, sizeof(int));
  int* map = calloc((size_t)nc, sizeof(int));
  unsigned r = 12345u;
  for (int a = 0; a < n3; a++) {
    r = r * 1103515245u + 12345u;
    x[a] = (double)(r >> 8) / 16777216.0 - 0.5;
  }
  solver_problem pf = contact_problem(c);
  ck_assert_int_eq(pf.diag_only, 0);
  double* Gf = g_dense_all(&pf);
  solver_gmul_add(&pf, x, yf);
  for (int i = 0; i < nc; i++) {
    solver_grow_add(&pf, i, x, rowf + 3 * i);
    double d3[3] = {x[3 * i], -x[3 * i + 1], 0.5};
    solver_gcol_add(&pf, i, d3, colf + (size_t)i * n3);
  }
  memcpy(isl, c->G->island_ptr, sizeof(int) * (size_t)(ni + 1));
  memcpy(islc, c->G->island_con, sizeof(int) * (size_t)nc);

  o.diag_only = 1;
  ck_assert_int_eq(contact_build(s->model.m, s->data.d, c, &o, s->data.vfree), 0);
  solver_problem pd = contact_problem(c);
  ck_assert_int_eq(pd.diag_only, 1);
  ck_assert_int_eq(c->G->nblocks, nc);  // the diagonal blocks alone
  // two contacts' diagonal blocks at once (solver_yblock_diag2) are solver_yblock_on's bit for
  // bit, and an island's G~ diagonal read from diag_only's blocks (dblk, R zero) is the sum
  // over Y's rows and ydiag that solver_gtkk forms without them
  for (int i = 0; i + 1 < nc; i++) {
    if (pd.ynz[i] != pd.ynz[i + 1]) continue;
    double b2[18], b1[9];
    solver_yblock_diag2(&pd, i, b2);
    for (int h = 0; h < 2; h++) {
      solver_yblock_on(&pd, i + h, i + h, 1, b1);
      ck_assert_msg(memcmp(b1, b2 + 9 * h, sizeof(b1)) == 0, "%s: diag2 %d", what, i);
    }
  }
  solver_problem py = pd;  // the factored form alone, as an island's
  py.blk = NULL;
  py.R = NULL;
  solver_problem pb = py;
  pb.dblk = pd.blk;  // diag_only: block i is contact i's
  for (int k = 0; k < n3; k++)
    ck_assert_msg(solver_gtkk(&pb, k) == solver_gtkk(&py, k), "%s: G~(%d, %d)", what, k, k);
  ck_assert_int_eq(c->G->nisland, ni);
  for (int k = 0; k <= ni; k++) ck_assert_int_eq(c->G->island_ptr[k], isl[k]);
  for (int i = 0; i < nc; i++) ck_assert_int_eq(c->G->island_con[i], islc[i]);
  // each island's dense G: bit for bit (entries outside the islands are zero in the full one)
  double gmax = 0;
  for (int k = 0; k < ni; k++) {
    int n0 = isl[k], n = isl[k + 1] - n0;
    solver_gdense(&pd, islc + n0, n, map, Gd);
    for (int q = 0; q < 3 * n; q++)
      for (int u = 0; u < 3 * n; u++) {
        int a = 3 * islc[n0 + q / 3] + q % 3, b = 3 * islc[n0 + u / 3] + u % 3;
        double ref = Gf[(size_t)a * n3 + b];
        gmax = fmax(gmax, fabs(ref));
        ck_assert_msg(Gd[(size_t)q * 3 * n + u] == ref, "%s: island %d G(%d, %d) %.17g vs %.17g",
                      what, k, a, b, Gd[(size_t)q * 3 * n + u], ref);
      }
  }
  ck_assert(gmax > 0);
  double tol = 1e-12 * gmax;
  solver_gmul_add(&pd, x, yd);
  for (int a = 0; a < n3; a++)
    ck_assert_msg(fabs(yd[a] - yf[a]) <= tol * n3, "%s: (G x)[%d] %g vs %g", what, a, yd[a], yf[a]);
  double* t = calloc((size_t)n3, sizeof(double));
  for (int i = 0; i < nc; i++) {
    double row[3] = {0, 0, 0};
    solver_grow_add(&pd, i, x, row);
    for (int q = 0; q < 3; q++)
      ck_assert_msg(fabs(row[q] - rowf[3 * i + q]) <= tol * n3, "%s: row %d", what, i);
    double d3[3] = {x[3 * i], -x[3 * i + 1], 0.5};
    memset(t, 0, sizeof(double) * (size_t)n3);
    solver_gcol_add(&pd, i, d3, t);
    for (int a = 0; a < n3; a++)
      ck_assert_msg(fabs(t[a] - colf[(size_t)i * n3 + a]) <= tol * 3, "%s: column %d row %d",
                    what, i, a);
    for (int a = 0; a < n3; a += 5)
      ck_assert_msg(fabs(solver_gentry(&pd, 3 * i + a % 3, a) - Gf[(size_t)(3 * i + a % 3) * n3 + a])
                        <= tol, "%s: entry (%d, %d)", what, 3 * i + a % 3, a);
  }
  free(t); free(Gf); free(Gd); free(x); free(yf); free(yd); free(colf); free(rowf);
  free(isl); free(islc); free(map);
}

START_TEST(diag_only_kernels) {
  const char* scenes[] = {kTwoStacks, kSoloCubes, NULL};
  const char* names[] = {"two stacks", "Solo-12 and cubes", "Talos"};
  for (int sc = 0; sc < 3; sc++) {
    fixture f = fixture_steps(scenes[sc], sc == 2 ? "scenarios/talos_stand.yaml" : NULL, 5);
    sim* s = f.s;
    diag_only_check(s, names[sc]);
    fixture_free(&f);
  }
  // a Panda arm on its joint limits (ydiag rows); its ADMM run builds diag_only problems
  fixture f = panda_on_limits();
  sim* s = f.s;
  ck_assert_int_eq(s->opt.contact.diag_only, 1);
  diag_only_check(s, "Panda on its limits");
  fixture_free(&f);
}
END_TEST

// block (i, j) of two chains (solver_yblock_on, not the same chain): the sums over the dofs both
// hold in ascending order, from 0, bit for bit, whether the shared dofs are a common prefix
// (two feet on one base: the prefix's sums) or not (the merge)
START_TEST(yblock_shared_dofs) {
  enum { W = 12 };
  static const int dofs[4][W] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
                                 {0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17},
                                 {0, 1, 2, 7, 9},
                                 {0, 1, 3, 7, 8}};
  int nz[4] = {12, 12, 5, 5};
  double Y[12 * W];
  unsigned seed = 3;
  for (int k = 0; k < 12 * W; k++) Y[k] = urand_sym(&seed);
  solver_problem p = {0};
  p.nc = 4;
  p.ystride = W;
  p.ynz = nz;
  p.ydof = &dofs[0][0];
  p.Y = Y;
  for (int pair = 0; pair < 2; pair++) {
    int i = 2 * pair, j = i + 1;
    double got[9], ref[9] = {0};
    solver_yblock_on(&p, i, j, 0, got);
    for (int a = 0; a < nz[i]; a++)
      for (int b = 0; b < nz[j]; b++)
        if (dofs[i][a] == dofs[j][b])
          for (int r = 0; r < 3; r++)
            for (int t = 0; t < 3; t++) ref[3 * r + t] += Y[(3 * i + r) * W + a] * Y[(3 * j + t) * W + b];
    ck_assert_msg(memcmp(got, ref, sizeof(ref)) == 0, "pair %d: block not the sums in dof order",
                  pair);
  }
}
END_TEST

static Suite* suite(void) {
  Suite* s = suite_create("contact_sparse");
  TCase* t = tcase_create("sparse");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, g_branched_tree);
  tcase_add_test(t, yblock_shared_dofs);
  tcase_add_test(t, g_two_robots);
  tcase_add_test(t, g_bodies_swapped);
  tcase_add_test(t, g_robot_and_objects);
  tcase_add_test(t, g_long_chains);
  tcase_add_test(t, g_rigid_body_closed_form);
  tcase_add_test(t, g_lone_body_group);
  tcase_add_test(t, islands_two_stacks);
  tcase_add_test(t, solvers_sparse_vs_dense);
  tcase_add_test(t, block_bound);
  tcase_add_test(t, admm_dof_space);
  tcase_add_test(t, factored_form_limits);
  tcase_add_test(t, arena_too_small_is_reported);
  tcase_add_test(t, diag_only_kernels);
  tcase_add_test(t, admm_banded);
  tcase_add_test(t, admm_kept_factor);
  tcase_add_test(t, admm_history_secant);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return run_suite(suite());
}
