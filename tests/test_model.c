// test_model.c — model building: fixed-link merging (hand-computed parallel-axis inertias),
// free and fixed bases, numbering, geometries, inertia fixes, errors, multiple robots and the
// shared robot URDFs.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "core/model.h"
#include "core/spatial.h"
#include "tree_fixture.h"
#include "io/model_build.h"
#include "io/urdf.h"
#include "support.h"


//---------------------------------- hand-built URDF descriptions ------------------------------



//---------------------------------- helpers ---------------------------------------------------

// create a one-robot model; returns the status, err filled
static csim_status make1(const urdf_robot* u, model_base_type base, int ground, sim_model** m,
                         csim_error* err) {
  model_world_spec world = {{0, 0, -9.81}, ground, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec = {u, NULL, base, {0, 0, 0}, {0, 0, 0, 1}, 0};
  return model_create(&world, &spec, 1, m, err);
}

// assert model creation succeeds
static sim_model* make_ok(const urdf_robot* u, model_base_type base) {
  sim_model* m = NULL;
  csim_error err;
  csim_status st = make1(u, base, 0, &m, &err);
  char msg[2048];
  err_format(&err, msg, sizeof(msg));
  ck_assert_msg(st == CSIM_OK, "model_create: %s", msg);
  return m;
}

// ascending principal moments of a symmetric 3x3
static void principal(double w[3], const double I[9]) {
  double V[9];
  sp_eigsym3(w, V, I);
}

// structural invariants every model satisfies
static void check_invariants(const sim_model* m) {
  ck_assert_int_eq(m->njnt, m->nbody - 1);
  ck_assert_int_eq(m->body_parent[0], -1);
  for (int b = 1; b < m->nbody; b++) {
    ck_assert_int_lt(m->body_parent[b], b);
    ck_assert_int_ge(m->body_parent[b], 0);
    ck_assert_int_eq(m->jnt_body[m->body_jnt[b]], b);
    ck_assert_double_ge(m->body_subtreemass[b], m->body_mass[b]);
    ck_assert(m->body_subtreemass[b] > 0);
  }
  int depth_max = 0;
  for (int i = 0; i < m->nv; i++) {
    ck_assert_int_lt(m->dof_parent[i], i);
    int dep = 0;
    for (int j = i; j >= 0; j = m->dof_parent[j]) dep++;
    if (dep > depth_max) depth_max = dep;
    int j = m->dof_jnt[i];
    if (m->jnt_type[j] == MODEL_JOINT_FREE && i > m->jnt_dofadr[j])
      ck_assert_int_eq(m->dof_parent[i], i - 1);
  }
  ck_assert_int_eq(depth_max, m->maxdepth);
  // mass matrix rows (dof_Madr): dof i's row holds one entry per dof from i to its root, rows
  // one after another in dof order; nM the total (counted here by walking dof_parent); each
  // entry's column (dof_Mcol) the dof of that walk
  int nM = 0;
  for (int i = 0; i < m->nv; i++) {
    ck_assert_int_eq(m->dof_Madr[i], nM);
    for (int j = i; j >= 0; j = m->dof_parent[j]) ck_assert_int_eq(m->dof_Mcol[nM++], j);
  }
  ck_assert_int_eq(m->nM, nM);
  int nq = 0, nv = 0;
  for (int j = 0; j < m->njnt; j++) {
    ck_assert_int_eq(m->jnt_qadr[j], nq);
    ck_assert_int_eq(m->jnt_dofadr[j], nv);
    nq += m->jnt_type[j] == MODEL_JOINT_FREE ? 7 : 1;
    nv += m->jnt_type[j] == MODEL_JOINT_FREE ? 6 : 1;
  }
  ck_assert_int_eq(nq, m->nq);
  ck_assert_int_eq(nv, m->nv);
  // geoms grouped by body
  int g = 0;
  for (int b = 0; b < m->nbody; b++) {
    ck_assert_int_eq(m->body_geomadr[b], g);
    for (int k = 0; k < m->body_geomnum[b]; k++) ck_assert_int_eq(m->geom_body[g + k], b);
    g += m->body_geomnum[b];
  }
  ck_assert_int_eq(g, m->ngeom);
  // body inertias are valid (positive principal moments obeying the triangle inequality)
  for (int b = 1; b < m->nbody; b++) {
    if (m->body_mass[b] == 0) continue;
    double w[3];
    principal(w, m->body_inertia + 9 * b);
    ck_assert(w[0] > 0);
    ck_assert(w[2] <= (w[0] + w[1]) * (1 + 1e-12));
  }
}

//---------------------------------- merging ---------------------------------------------------

// free root A (inertia rotated by com_rpy) with a fixed child B (joint rpy) and a massless fixed
// sensor C: merged mass, com and inertia computed by hand with the parallel axis theorem
START_TEST(fixed_chain_merged_inertia) {
  hand_robot h;
  hand_init(&h);
  int A = hand_link(&h, 2, (double[]){0.1, 0, 0}, (double[]){0.01, 0, 0, 0.02, 0, 0.03});
  h.links[A].com_rpy[2] = M_PI / 2;   // Rz(90): link-axes inertia diag(0.02, 0.01, 0.03)
  int B = hand_link(&h, 1, (double[]){0, 0, 0.2}, (double[]){0.004, 0, 0, 0.005, 0, 0.006});
  int C = hand_link(&h, 0, NULL, NULL);
  // Rx(90): B's z axis is A's -y; B's com lands at (0, 0.5 - 0.2, 0); inertia diag(a, c, b)
  hand_joint(&h, URDF_JOINT_FIXED, A, B, (double[]){0, 0.5, 0}, (double[]){M_PI / 2, 0, 0}, NULL);
  hand_joint(&h, URDF_JOINT_FIXED, B, C, (double[]){0, 0, 1}, NULL, NULL);
  // geoms on B: box (full extents), cylinder (length) at an offset
  urdf_geom* G = h.geoms;
  G[0].type = URDF_GEOM_BOX;
  sp_copy3(G[0].size, (double[]){0.2, 0.4, 0.6});
  G[1].type = URDF_GEOM_CYLINDER;
  sp_copy3(G[1].size, (double[]){0.1, 0.5, 0});
  sp_copy3(G[1].xyz, (double[]){0, 0, 0.3});
  G[2].type = URDF_GEOM_CAPSULE;
  sp_copy3(G[2].size, (double[]){0.05, 0.2, 0});
  G[3].type = URDF_GEOM_SPHERE;
  G[3].size[0] = 0.07;
  h.links[B].geoms = G;
  h.links[B].ngeom = 3;
  h.links[A].geoms = G + 3;
  h.links[A].ngeom = 1;
  sim_model* m = make_ok(&h.r, MODEL_BASE_FREE);
  check_invariants(m);
  ck_assert_int_eq(m->nbody, 2);
  ck_assert_int_eq(m->nq, 7);
  ck_assert_int_eq(m->nv, 6);
  ck_assert_double_eq_tol(m->body_mass[1], 3, 1e-15);
  double c[3] = {0.2 / 3, 0.1, 0};
  for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(m->body_com[3 + i], c[i], 1e-15);
  // hand computation: dA = (0.1/3, -0.1, 0), dB = (-0.2/3, 0.2, 0)
  double Iexp[9] = {0.084, 0.02, 0, 0.02, 0.016 + 0.06 / 9, 0, 0, 0, 0.095 + 0.06 / 9};
  for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(m->body_inertia[9 + i], Iexp[i], 1e-15);
  // link records: C sits at (0, 0.5, 0) + Rx(90) (0, 0, 1) = (0, -0.5, 0)
  ck_assert_int_eq(m->nlink, 3);
  ck_assert_int_eq(m->link_body[C], 1);
  ck_assert_double_eq_tol(m->link_pos[3 * C + 1], -0.5, 1e-15);
  ck_assert_double_eq(m->link_mass[A], 2);
  ck_assert_double_eq_tol(model_robot_mass(m, 0), 3, 1e-15);
  // geoms: A's sphere first (DFS order), then B's box / cylinder / capsule in body coordinates
  ck_assert_int_eq(m->ngeom, 4);
  ck_assert_int_eq(m->geom_type[0], MODEL_GEOM_SPHERE);
  ck_assert_double_eq(m->geom_rbound[0], 0.07);
  ck_assert_int_eq(m->geom_type[1], MODEL_GEOM_BOX);
  ck_assert_double_eq(m->geom_size[3], 0.1);
  ck_assert_double_eq(m->geom_size[4], 0.2);
  ck_assert_double_eq(m->geom_size[5], 0.3);
  ck_assert_double_eq_tol(m->geom_rbound[1], sqrt(0.01 + 0.04 + 0.09), 1e-15);
  ck_assert_double_eq_tol(m->geom_pos[3 + 1], 0.5, 1e-15);
  ck_assert_int_eq(m->geom_type[2], MODEL_GEOM_CYLINDER);
  ck_assert_double_eq(m->geom_size[6], 0.1);
  ck_assert_double_eq(m->geom_size[7], 0.25);
  // cylinder at (0, 0, 0.3) in B: (0, 0.5 - 0.3, 0) in the body, axis along the body's -y
  ck_assert_double_eq_tol(m->geom_pos[6 + 1], 0.2, 1e-15);
  double R[9];
  sp_quat2mat(R, m->geom_quat + 8);
  ck_assert_double_eq_tol(R[5], -1, 1e-15);   // local z -> body -y: R[1][2] = -1
  ck_assert_double_eq_tol(m->geom_rbound[2], sqrt(0.01 + 0.0625), 1e-15);
  ck_assert_int_eq(m->geom_type[3], MODEL_GEOM_CAPSULE);
  ck_assert_double_eq_tol(m->geom_rbound[3], 0.15, 1e-15);
  for (int g = 0; g < 4; g++) ck_assert_int_eq(m->geom_mesh[g], -1);
  model_free(m);
}
END_TEST

// a root without mass (a1, anymal_c) gets the mass of its fixed children; a fixed-base root is
// merged into the world at the base pose
START_TEST(massless_root_and_fixed_base) {
  hand_robot h;
  hand_init(&h);
  int base = hand_link(&h, 0, NULL, NULL);
  int trunk = hand_link(&h, 4, (double[]){0, 0, 0.1}, (double[]){0.1, 0, 0, 0.2, 0, 0.25});
  int leg = hand_link(&h, 1, (double[]){0, 0, -0.1}, (double[]){0.01, 0, 0, 0.01, 0, 0.001});
  hand_joint(&h, URDF_JOINT_FIXED, base, trunk, (double[]){0.05, 0, 0}, NULL, NULL);
  hand_joint(&h, URDF_JOINT_REVOLUTE, trunk, leg, (double[]){0.2, 0.1, 0}, NULL, (double[]){0, 1, 0});
  sim_model* m = make_ok(&h.r, MODEL_BASE_FREE);
  check_invariants(m);
  ck_assert_int_eq(m->nbody, 3);
  ck_assert_int_eq(m->nv, 7);
  ck_assert_int_eq(m->jnt_type[0], MODEL_JOINT_FREE);
  ck_assert_str_eq(m->jnt_name[0], "hand/root");
  ck_assert_double_eq(m->body_mass[1], 4);
  ck_assert_double_eq_tol(m->body_com[3], 0.05, 1e-15);
  ck_assert_double_eq_tol(m->body_com[5], 0.1, 1e-15);
  ck_assert_double_eq_tol(m->body_subtreemass[1], 5, 1e-15);
  ck_assert_double_eq_tol(m->body_pos[6], 0.25, 1e-15);
  for (int i = 0; i < 7; i++) ck_assert_double_eq(m->qpos0[i], i == 6 ? 1 : 0);
  ck_assert_int_eq(m->dof_parent[6], 5);
  model_free(m);
  // fixed base: the root and trunk go to the world at the base pose (turned 90 deg about z)
  csim_error err;
  model_world_spec world = {{0, 0, -9.81}, 1, 0.25, 0, 0, {0, 0}, NULL};
  double s2 = sqrt(0.5);
  model_robot_spec spec = {&h.r, "bot", MODEL_BASE_FIXED, {1, 2, 3}, {0, 0, s2, s2}, 0};
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_OK);
  check_invariants(m);
  ck_assert_int_eq(m->nbody, 2);
  ck_assert_int_eq(m->nv, 1);
  ck_assert_int_eq(m->link_body[trunk], 0);
  ck_assert_double_eq_tol(model_robot_mass(m, 0), 5, 1e-15);
  // leg joint at base pose * (0.05 + 0.2, 0.1, 0) = (1 - 0.1, 2 + 0.25, 3)
  ck_assert_double_eq_tol(m->body_pos[3], 0.9, 1e-15);
  ck_assert_double_eq_tol(m->body_pos[4], 2.25, 1e-15);
  ck_assert_double_eq_tol(m->body_pos[5], 3, 1e-15);
  // ground plane on the world
  ck_assert_int_eq(m->ngeom, 1);
  ck_assert_int_eq(m->geom_type[0], MODEL_GEOM_PLANE);
  ck_assert_int_eq(m->geom_body[0], 0);
  ck_assert_double_eq(m->geom_pos[2], 0.25);
  ck_assert(isinf(m->geom_rbound[0]));
  ck_assert_str_eq(m->robot_name[0], "bot");
  model_free(m);
}
END_TEST

//---------------------------------- inertia fixes ---------------------------------------------

// model.h's fixes, on the matrices and through model_create
START_TEST(inertia_fixes) {
  double r = MODEL_POINT_RADIUS, w[3];
  // point mass -> solid sphere
  double I[9] = {0};
  ck_assert_int_eq(model_fix_inertia(2, I), MODEL_FIX_POINT_MASS);
  for (int i = 0; i < 9; i++) ck_assert_double_eq(I[i], i % 4 == 0 ? 0.4 * 2 * r * r : 0);
  // triangle violation diag(1, 1, 3) -> (1.5, 1.5, 3), in rotated axes too
  double R[9], D[9] = {1, 0, 0, 0, 1, 0, 0, 0, 3}, T[9], A[9];
  sp_rpy2mat(R, (double[]){0.3, -0.7, 1.9});
  sp_mulmm3(T, R, D);
  sp_mulmmt3(A, T, R);
  ck_assert_int_eq(model_fix_inertia(1, A), MODEL_FIX_TRIANGLE);
  principal(w, A);
  ck_assert_double_eq_tol(w[0], 1.5, 1e-14);
  ck_assert_double_eq_tol(w[1], 1.5, 1e-14);
  ck_assert_double_eq_tol(w[2], 3, 1e-14);
  // the principal axes are kept: R'AR = diag(1.5, 1.5, 3)
  sp_mulmtm3(T, R, A);
  sp_mulmm3(D, T, R);
  ck_assert_double_eq_tol(D[8], 3, 1e-14);
  ck_assert_double_eq_tol(D[2], 0, 1e-14);
  // unequal moments: (0.1, 0.2, 0.5) -> (0.2, 0.3, 0.5)
  double B[9] = {0.5, 0, 0, 0, 0.1, 0, 0, 0, 0.2};
  ck_assert_int_eq(model_fix_inertia(1, B), MODEL_FIX_TRIANGLE);
  ck_assert_double_eq_tol(B[0], 0.5, 1e-15);
  ck_assert_double_eq_tol(B[4], 0.2, 1e-15);
  ck_assert_double_eq_tol(B[8], 0.3, 1e-15);
  // go1's root: mass 1e-6, all six entries 1e-6 (rank 1: moments 0, 0, 3e-6): the zero moments
  // become max(0, 1e-6 * 3e-6, 2/5 m r^2 = 4e-11), then the triangle fix gives (1.5e-6, 1.5e-6, 3e-6)
  double G[9] = {1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6};
  ck_assert_int_eq(model_fix_inertia(1e-6, G), MODEL_FIX_NOT_PD | MODEL_FIX_TRIANGLE);
  principal(w, G);
  ck_assert_double_eq_tol(w[0], 1.5e-6, 1e-18);
  ck_assert_double_eq_tol(w[1], 1.5e-6, 1e-18);
  ck_assert_double_eq_tol(w[2], 3e-6, 1e-18);
  // a negative moment with a valid rest: diag(-0.1, 1, 1) -> max(1e-6, 2/5 r^2) = 4e-5 (mass 1)
  double N[9] = {-0.1, 0, 0, 0, 1, 0, 0, 0, 1};
  ck_assert_int_eq(model_fix_inertia(1, N), MODEL_FIX_NOT_PD);
  ck_assert_double_eq_tol(N[0], 0.4 * r * r, 1e-18);
  ck_assert_double_eq_tol(N[4], 1, 1e-15);
  // valid inertia and massless links are left alone
  double V[9] = {0.2, 0.01, 0, 0.01, 0.3, 0, 0, 0, 0.4}, V0[9];
  memcpy(V0, V, sizeof(V));
  ck_assert_int_eq(model_fix_inertia(1, V), 0);
  for (int i = 0; i < 9; i++) ck_assert_double_eq(V[i], V0[i]);
  ck_assert_int_eq(model_fix_inertia(0, V), 0);
  // through model_create: a point-mass body and a triangle-violating body
  hand_robot h;
  hand_init(&h);
  int base = hand_link(&h, 0.5, NULL, (double[]){0, 0, 0, 0, 0, 0});
  int arm = hand_link(&h, 1, (double[]){0.3, 0, 0}, (double[]){0.1, 0, 0, 0.2, 0, 0.5});
  hand_joint(&h, URDF_JOINT_REVOLUTE, base, arm, NULL, NULL, (double[]){0, 0, 1});
  sim_model* m = make_ok(&h.r, MODEL_BASE_FREE);
  check_invariants(m);
  for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(m->body_inertia[9 + i], i % 4 == 0 ? 0.4 * 0.5 * r * r : 0, 1e-18);
  principal(w, m->body_inertia + 18);
  ck_assert_double_eq_tol(w[0], 0.2, 1e-15);
  ck_assert_double_eq_tol(w[1], 0.3, 1e-15);
  ck_assert_double_eq_tol(w[2], 0.5, 1e-15);
  model_free(m);
}
END_TEST

//---------------------------------- errors ----------------------------------------------------

// a moving link whose whole subtree is massless, planar joints, cycles: input errors with
// file:line and the link/joint named
START_TEST(input_errors) {
  csim_error err;
  sim_model* m = (sim_model*)1;
  // massless moving subtree: revolute -> massless link -> fixed massless child
  hand_robot h;
  hand_init(&h);
  int base = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int arm = hand_link(&h, 0, NULL, NULL);
  int tip = hand_link(&h, 0, NULL, NULL);
  hand_joint(&h, URDF_JOINT_REVOLUTE, base, arm, NULL, NULL, (double[]){0, 0, 1});
  hand_joint(&h, URDF_JOINT_FIXED, arm, tip, NULL, NULL, NULL);
  ck_assert_int_eq(make1(&h.r, MODEL_BASE_FREE, 0, &m, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_null(m);
  ck_assert_str_eq(err.file, "hand.urdf");
  ck_assert_int_eq(err.line, h.links[arm].line);
  ck_assert_ptr_nonnull(strstr(err.msg, "link1"));
  ck_assert_ptr_nonnull(strstr(err.msg, "no mass"));
  // ... but fine once the tip has mass
  h.links[tip].has_inertial = 1;
  h.links[tip].mass = 0.1;
  ck_assert_int_eq(make1(&h.r, MODEL_BASE_FREE, 0, &m, &err), CSIM_OK);
  model_free(m);
  // a fixed-base robot whose moving part has no mass at all
  hand_init(&h);
  base = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  arm = hand_link(&h, 0, NULL, NULL);
  hand_joint(&h, URDF_JOINT_PRISMATIC, base, arm, NULL, NULL, (double[]){0, 0, 1});
  ck_assert_int_eq(make1(&h.r, MODEL_BASE_FIXED, 0, &m, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(err.line, h.links[arm].line);
  // a free body without any mass
  hand_init(&h);
  hand_link(&h, 0, NULL, NULL);
  ck_assert_int_eq(make1(&h.r, MODEL_BASE_FREE, 0, &m, &err), CSIM_ERR_INPUT);
  // planar joint
  hand_init(&h);
  base = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  arm = hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int jp = hand_joint(&h, URDF_JOINT_PLANAR, base, arm, NULL, NULL, (double[]){0, 0, 1});
  ck_assert_int_eq(make1(&h.r, MODEL_BASE_FREE, 0, &m, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "planar joints are not supported"));
  ck_assert_int_eq(err.line, h.joints[jp].line);
  ck_assert_str_eq(err.file, "hand.urdf");
  // floating joint -> a free joint in the tree
  h.joints[jp].type = URDF_JOINT_FLOATING;
  ck_assert_int_eq(make1(&h.r, MODEL_BASE_FIXED, 0, &m, &err), CSIM_OK);
  ck_assert_int_eq(m->nq, 7);
  ck_assert_int_eq(m->nv, 6);
  ck_assert_int_eq(m->jnt_type[0], MODEL_JOINT_FREE);
  model_free(m);
  // a cycle (link reached twice) and an unreachable link; a mesh that cannot be resolved
  h.joints[jp].type = URDF_JOINT_REVOLUTE;
  hand_joint(&h, URDF_JOINT_FIXED, arm, base, NULL, NULL, NULL);
  ck_assert_int_eq(make1(&h.r, MODEL_BASE_FREE, 0, &m, &err), CSIM_ERR_INPUT);
  h.r.njoint = 1;
  hand_link(&h, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  ck_assert_int_eq(make1(&h.r, MODEL_BASE_FREE, 0, &m, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "not connected"));
  h.r.nlink = 2;
  urdf_geom mg;
  memset(&mg, 0, sizeof(mg));
  mg.type = URDF_GEOM_MESH;
  mg.uri = "package://nowhere/thing.stl";
  mg.line = 77;
  mg.scale[0] = mg.scale[1] = mg.scale[2] = 1;
  h.links[arm].geoms = &mg;
  h.links[arm].ngeom = 1;
  model_world_spec world = {{0, 0, -9.81}, 0, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec = {&h.r, NULL, MODEL_BASE_FREE, {0, 0, 0}, {0, 0, 0, 1}, 1};
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(err.line, 77);
  ck_assert_ptr_nonnull(strstr(err.msg, "thing.stl"));
  // a resolved path that cannot be read
  mg.path = "../shared/data/robots/no_such_mesh.stl";
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(err.line, 77);
  // without require_meshes the geom is skipped
  spec.require_meshes = 0;
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_OK);
  ck_assert_int_eq(m->ngeom, 0);
  ck_assert_int_eq(m->ngeom_skipped, 1);
  model_free(m);
  // non-finite inertial and joint numbers
  h.links[arm].inertia[0] = NAN;
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(err.line, h.links[arm].line);
  h.links[arm].inertia[0] = 0.1;
  h.links[arm].mass = -1;
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_ERR_INPUT);
  h.links[arm].mass = 1;
  h.joints[jp].xyz[1] = INFINITY;
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_ERR_INPUT);
  ck_assert_int_eq(err.line, h.joints[jp].line);
  h.joints[jp].xyz[1] = 0;
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_OK);
  model_free(m);
  // bad arguments
  ck_assert_int_eq(model_create(NULL, &spec, 1, &m, &err), CSIM_ERR_INPUT);
  spec.urdf = NULL;
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_ERR_INPUT);
}
END_TEST

//---------------------------------- several robots --------------------------------------------

// two robots side by side: separate numbering blocks, names, lookups, masses, data sizes
START_TEST(two_robots) {
  hand_robot a, b;
  hand_init(&a);
  int a0 = hand_link(&a, 1, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int a1 = hand_link(&a, 2, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  hand_joint(&a, URDF_JOINT_REVOLUTE, a0, a1, NULL, NULL, (double[]){0, 0, 1});
  hand_init(&b);
  int b0 = hand_link(&b, 3, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int b1 = hand_link(&b, 4, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  int b2 = hand_link(&b, 5, NULL, (double[]){0.1, 0, 0, 0.1, 0, 0.1});
  hand_joint(&b, URDF_JOINT_PRISMATIC, b0, b1, NULL, NULL, (double[]){1, 0, 0});
  hand_joint(&b, URDF_JOINT_REVOLUTE, b1, b2, NULL, NULL, (double[]){0, 1, 0});
  model_world_spec world = {{0, 0, -9.81}, 1, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec[2] = {{&a.r, "arm", MODEL_BASE_FIXED, {0, 0, 0}, {0, 0, 0, 1}, 0},
                              {&b.r, "box", MODEL_BASE_FREE, {0, 0, 0}, {0, 0, 0, 1}, 0}};
  sim_model* m;
  csim_error err;
  ck_assert_int_eq(model_create(&world, spec, 2, &m, &err), CSIM_OK);
  check_invariants(m);
  ck_assert_int_eq(m->nrobot, 2);
  ck_assert_int_eq(m->nbody, 5);
  ck_assert_int_eq(m->nq, 1 + 7 + 2);
  ck_assert_int_eq(m->nv, 1 + 6 + 2);
  ck_assert_int_eq(m->robot_bodyadr[1], 2);
  ck_assert_int_eq(m->robot_nbody[1], 3);
  ck_assert_int_eq(m->robot_qadr[1], 1);
  ck_assert_int_eq(m->robot_dofadr[1], 1);
  ck_assert_int_eq(m->robot_nv[1], 8);
  ck_assert_int_eq(m->robot_linkadr[1], 2);
  ck_assert_int_eq(m->dof_parent[1], -1);   // the second robot's tree starts afresh
  ck_assert_int_eq(m->dof_parent[7], 6);
  ck_assert_int_eq(m->maxdepth, 8);
  // mass matrix rows: the arm's dof (1 entry), the free joint's chain (1 + ... + 6), then the
  // box's two 1-dof joints below it (7, 8)
  ck_assert_int_eq(m->nM, 1 + 21 + 7 + 8);
  ck_assert_int_eq(m->dof_Madr[1], 1);
  ck_assert_int_eq(m->dof_Madr[7], 1 + 21);
  ck_assert_int_eq(m->dof_Madr[8], 1 + 21 + 7);
  ck_assert_double_eq(m->qpos0[7], 1);
  ck_assert_double_eq_tol(model_robot_mass(m, 0), 3, 1e-15);
  ck_assert_double_eq_tol(model_robot_mass(m, 1), 12, 1e-15);
  // names repeat across the robots ("link0" ...): plain names are ambiguous
  ck_assert_int_eq(model_find_link(m, "link0"), -1);
  ck_assert_int_eq(model_find_link(m, "arm/link0"), 0);
  ck_assert_int_eq(model_find_link(m, "box/link2"), 4);
  ck_assert_int_eq(model_find_link(m, "link2"), 4);
  ck_assert_int_eq(model_find_link(m, "box/link9"), -1);
  ck_assert_int_eq(model_find_joint(m, "box/root"), 1);
  ck_assert_int_eq(model_find_joint(m, "box/joint1"), 3);
  ck_assert_int_eq(model_find_joint(m, "joint1"), 3);
  ck_assert_int_eq(model_find_joint(m, "joint0"), -1);
  ck_assert_int_eq(model_find_joint(m, "arm/joint0"), 0);
  // data sized from the model, reset to qpos0; arena alignment, LIFO and peak
  sim_data* d;
  ck_assert_int_eq(data_create(m, 4096, &d, &err), CSIM_OK);
  for (int i = 0; i < m->nq; i++) ck_assert_double_eq(d->q[i], m->qpos0[i]);
  size_t mark = data_stack_mark(d);
  double* x = data_stack_alloc(d, 100);
  double* y = data_stack_alloc(d, 8);
  ck_assert_ptr_nonnull(x);
  ck_assert_int_eq((int)((size_t)x % 64), 0);
  ck_assert_int_eq((int)((size_t)y % 64), 0);
  ck_assert(y > x);
  ck_assert_ptr_null(data_stack_alloc(d, 1 << 20));
  data_stack_free(d, mark);
  ck_assert_int_eq((int)d->arena_top, (int)mark);
  ck_assert(d->arena_peak >= 128 + 8);
  double* z = data_stack_alloc(d, 16);
  ck_assert_ptr_eq(z, x);
  ck_assert_double_eq(z[0], 0);
  data_free(d);
  model_free(m);
}
END_TEST

// sim_data of n free cubes (robots/cube.urdf): its bytes grow linearly in the dofs (the mass
// matrix and its factor are tree-sparse, 21 entries per cube; the default arena holds O(nv)),
// so 64 cubes take at most 64 times one cube's bytes, not 4096 times (dense nv x nv storage
// would add 2 * 8 nv^2 bytes: 2.4 MB at 64 cubes, 9.4 MB at 128)
static size_t cube_data_bytes(const urdf_robot* u, int n, int* nv, int* nM) {
  model_world_spec world = {{0, 0, -9.81}, 1, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec* spec = calloc((size_t)n, sizeof(model_robot_spec));
  char(*names)[16] = calloc((size_t)n, sizeof(*names));
  ck_assert(spec && names);
  for (int i = 0; i < n; i++) {
    snprintf(names[i], sizeof(names[i]), "c%d", i);
    spec[i] = (model_robot_spec){u, names[i], MODEL_BASE_FREE, {0.2 * i, 0, 0.05}, {0, 0, 0, 1}, 0};
  }
  sim_model* m = NULL;
  csim_error err;
  ck_assert_int_eq(model_create(&world, spec, n, &m, &err), CSIM_OK);
  *nv = m->nv;
  *nM = m->nM;
  size_t bytes = data_bytes(m, 0);
  // the default arena holds what its users take (data.h): an nv-vector, or the chain scratch
  sim_data* d;
  ck_assert_int_eq(data_create(m, 0, &d, &err), CSIM_OK);
  ck_assert_uint_eq(d->arena_size, data_arena_default(m));
  ck_assert_uint_ge(d->arena_size, sizeof(double) * (size_t)m->nv);
  ck_assert_uint_ge(d->arena_size, (sizeof(int) + 3 * sizeof(double)) * (size_t)(m->maxdepth + 1));
  data_free(d);
  model_free(m);
  free(names);
  free(spec);
  return bytes;
}

START_TEST(data_linear_in_dofs) {
  urdf_options opt = urdf_default_options();
  opt.use_env = 0;
  urdf_robot* u = NULL;
  csim_error err;
  ck_assert_int_eq(urdf_load("robots/cube.urdf", &opt, &u, &err), CSIM_OK);
  int n[3] = {1, 64, 128}, nv[3], nM[3];
  size_t b[3];
  for (int k = 0; k < 3; k++) {
    b[k] = cube_data_bytes(u, n[k], &nv[k], &nM[k]);
    ck_assert_int_eq(nv[k], 6 * n[k]);
    ck_assert_int_eq(nM[k], 21 * n[k]);  // each cube's free-joint chain: 1 + 2 + ... + 6
  }
  // 64 cubes: at most 64 times one cube (the struct and the arrays' alignment padding are
  // shared, so less: about 34 times); 128 cubes: twice 64 cubes (quadratic: about 4 times)
  double r64 = (double)b[1] / (double)b[0], r128 = (double)b[2] / (double)b[1];
  ck_assert_msg(r64 >= 16 && r64 <= 64 && r128 >= 1.9 && r128 <= 2.05,
                "data bytes: 1 cube %zu, 64 cubes %zu (ratio %.1f), 128 cubes %zu (ratio %.2f)",
                b[0], b[1], r64, b[2], r128);
  // the same bytes per added cube from 1 to 64 and from 64 to 128 (quadratic growth would
  // triple the second); alignment padding of the arrays aside
  double per1 = (double)(b[1] - b[0]) / 63, per2 = (double)(b[2] - b[1]) / 64;
  ck_assert_msg(fabs(per2 - per1) <= 0.05 * per1, "bytes per cube %.1f (1 to 64), %.1f (64 to 128)",
                per1, per2);
  urdf_free(u);
}
END_TEST

//---------------------------------- shared robot files ------------------------------------------

// model of one shared robot (require_meshes given)
static sim_model* robot_model(const urdf_robot* u, model_base_type base, int require_meshes) {
  model_world_spec world = {{0, 0, -9.81}, 1, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec = {u, NULL, base, {0, 0, 0}, {0, 0, 0, 1}, require_meshes};
  sim_model* m = NULL;
  csim_error err;
  csim_status st = model_create(&world, &spec, 1, &m, &err);
  char msg[2048];
  err_format(&err, msg, sizeof(msg));
  ck_assert_msg(st == CSIM_OK, "model_create %s: %s", u->file, msg);
  return m;
}

// every shared robot loads (meshes optional); invariants; total mass as listed in the README;
// the bodies carry all of it (free base) or all but the world-merged links (fixed base)
START_TEST(shared_robots_load) {
  const robot_file_case* c = &k_robots[_i];
  urdf_robot* u = load_robot(c->file, 1);
  sim_model* m = robot_model(u, c->base, 0);
  check_invariants(m);
  ck_assert_int_eq(m->nlink, u->nlink);
  double total = model_robot_mass(m, 0);
  ck_assert_msg(fabs(total - c->mass) <= 5e-4, "%s: mass %.6f, README %.3f", c->file, total, c->mass);
  double moving = 0;
  for (int b = 1; b < m->nbody; b++) moving += m->body_mass[b];
  ck_assert_double_eq_tol(m->body_subtreemass[0], moving, 1e-9);
  if (c->base == MODEL_BASE_FREE) ck_assert_double_eq_tol(moving, total, 1e-9);
  // every URDF link is recorded with its body
  for (int l = 0; l < m->nlink; l++) {
    ck_assert_str_eq(m->link_name[l], u->links[l].name);
    ck_assert_int_eq(model_find_link(m, u->links[l].name), l);
  }
  // dofs: one per moving URDF joint, plus the free base
  int nmove = 0;
  for (int j = 0; j < u->njoint; j++) nmove += u->joints[j].type != URDF_JOINT_FIXED;
  ck_assert_int_eq(m->nv, nmove + (c->base == MODEL_BASE_FREE ? 6 : 0));
  model_free(m);
  urdf_free(u);
}
END_TEST

// sizes named in the task: solo12 free (19, 18, 13 bodies), panda fixed (9, 9), talos_reduced
// free (nv 38), ur5's mass 20.994 kg; meshes loaded as convex hulls when required
START_TEST(shared_robot_sizes) {
  urdf_robot* u = load_robot("solo12/solo12.urdf", 1);
  sim_model* m = robot_model(u, MODEL_BASE_FREE, 1);
  ck_assert_int_eq(m->nq, 19);
  ck_assert_int_eq(m->nv, 18);
  ck_assert_int_eq(m->nbody, 1 + 13);   // the world + 13 moving bodies (base + 12 leg links)
  ck_assert_int_eq(m->maxdepth, 9);
  // mass matrix rows (branched: four legs of 3 dofs on the free base's chain of 6): the base
  // 1 + ... + 6 = 21 entries, each leg 7 + 8 + 9 = 24, against nv^2 = 324 dense
  ck_assert_int_eq(m->nM, 21 + 4 * 24);
  for (int leg = 0; leg < 4; leg++) {
    int hip = 6 + 3 * leg;
    ck_assert_int_eq(m->dof_parent[hip], 5);
    ck_assert_int_eq(m->dof_Madr[hip], 21 + 24 * leg);
  }
  ck_assert_int_eq(m->ngeom, 1 + 17);
  ck_assert_int_eq(m->ngeom_skipped, 0);
  ck_assert_int_gt(m->nmesh, 0);
  ck_assert_int_le(m->nmesh, 17);
  for (int g = 1; g < m->ngeom; g++) {
    ck_assert_int_eq(m->geom_type[g], MODEL_GEOM_MESH);
    ck_assert_int_ge(m->geom_mesh[g], 0);
    const mesh_hull* h = &m->mesh[m->geom_mesh[g]];
    ck_assert_int_ge(h->nvert, 4);
    // every hull vertex lies within the bounding radius
    for (int k = 0; k < h->nvert; k++) ck_assert_double_le(sp_norm3(h->vert + 3 * k), m->geom_rbound[g]);
  }
  model_free(m);
  urdf_free(u);
  u = load_robot("panda/panda.urdf", 1);
  m = robot_model(u, MODEL_BASE_FIXED, 1);
  ck_assert_int_eq(m->nq, 9);
  ck_assert_int_eq(m->nv, 9);
  ck_assert_int_eq(m->ngeom, 1 + 17);
  // panda_finger_joint2 mimics panda_finger_joint1 (multiplier 1, offset 0)
  int j2 = model_find_joint(m, "panda_finger_joint2"), j1 = model_find_joint(m, "panda_finger_joint1");
  ck_assert_int_ge(j1, 0);
  ck_assert_int_eq(m->jnt_mimic[j2], j1);
  ck_assert_double_eq(m->jnt_mimic_coef[2 * j2], 1);
  ck_assert_int_eq(m->jnt_type[j1], MODEL_JOINT_PRISMATIC);
  model_free(m);
  urdf_free(u);
  u = load_robot("talos/talos_reduced.urdf", 1);
  m = robot_model(u, MODEL_BASE_FREE, 1);
  ck_assert_int_eq(m->nv, 38);
  ck_assert_int_eq(m->nq, 39);
  check_invariants(m);  // (dof_Madr and nM on a deeper branched tree)
  ck_assert_int_lt(m->nM, m->nv * m->nv / 2);
  model_free(m);
  urdf_free(u);
  u = load_robot("ur5/ur5_robot.urdf", 1);
  m = robot_model(u, MODEL_BASE_FIXED, 1);
  ck_assert_double_eq_tol(model_robot_mass(m, 0), 20.994, 5e-4);
  ck_assert_int_eq(m->nv, 6);
  ck_assert_int_eq(m->ngeom, 1 + 8);
  model_free(m);
  urdf_free(u);
}
END_TEST

// hyq's collision meshes are COLLADA: an error when meshes are required, skipped otherwise
START_TEST(unreadable_meshes) {
  urdf_robot* u = load_robot("hyq/hyq_no_sensors.urdf", 1);
  model_world_spec world = {{0, 0, -9.81}, 0, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec = {u, NULL, MODEL_BASE_FREE, {0, 0, 0}, {0, 0, 0, 1}, 1};
  sim_model* m = NULL;
  csim_error err;
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_ERR_INPUT);
  ck_assert_ptr_null(m);
  ck_assert_ptr_nonnull(strstr(err.file, "hyq_no_sensors.urdf"));
  ck_assert_int_gt(err.line, 0);
  spec.require_meshes = 0;
  ck_assert_int_eq(model_create(&world, &spec, 1, &m, &err), CSIM_OK);
  ck_assert_int_eq(m->ngeom_skipped, 9);
  ck_assert_int_eq(m->ngeom, 8);
  model_free(m);
  urdf_free(u);
}
END_TEST

//---------------------------------- suite -----------------------------------------------------

static Suite* model_suite(void) {
  Suite* s = suite_create("model");
  TCase* tc = tcase_create("hand");
  tcase_add_test(tc, fixed_chain_merged_inertia);
  tcase_add_test(tc, massless_root_and_fixed_base);
  tcase_add_test(tc, inertia_fixes);
  tcase_add_test(tc, input_errors);
  tcase_add_test(tc, two_robots);
  tcase_add_test(tc, data_linear_in_dofs);
  suite_add_tcase(s, tc);
  TCase* tf = tcase_create("files");
  tcase_set_timeout(tf, 120);
  tcase_add_loop_test(tf, shared_robots_load, 0, k_nrobots);
  tcase_add_test(tf, shared_robot_sizes);
  tcase_add_test(tf, unreadable_meshes);
  suite_add_tcase(s, tf);
  return s;
}

int main(void) {
  return run_suite(model_suite());
}
