// test_urdf.c — the URDF reader against every robot of ../shared/data/robots (counts, masses
// and issues from its README), the quirks fixture, mesh resolution, and every bad fixture.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/urdf.h"
#include "support.h"

#define ROBOTS "../shared/data/robots/"
#define FIX "tests/data/urdf/"

// one row of the README tables (plus the issues it states; -1 where it states nothing)
typedef struct {
  const char* file;
  int links, rev, cont, pris, fixed;
  double mass;
  int box, sphere, cyl, mesh;   // collision geometries
  int notpd, triangle, point;   // inertia issues
  int resolved, unresolved, format;  // collision meshes: found STL/OBJ, not found, other format
} robot_row;

// README tables of ../shared/data/robots; inertia issue counts as the README states them
// ("bad inertia" = not PD or principal triangle broken; all-zero inertias with mass > 0 are
// point masses), 0 where the README lists no bad inertia for the robot
static const robot_row robots[] = {
    {"solo12/solo12.urdf", 17, 12, 0, 0, 4, 2.500, 0, 0, 0, 17, 0, 0, 0, 17, 0, 0},
    // talos: reduced/_box have 5 zero-inertia links and 2 gripper motors breaking the triangle
    // inequality; full_v2 has 3 zero-inertia links and (other gripper inertias) no violation
    {"talos/talos_reduced.urdf", 60, 32, 0, 0, 27, 90.272, 1, 0, 4, 47, 0, 2, 5, 47, 0, 0},
    {"talos/talos_full_v2.urdf", 60, 44, 0, 0, 15, 93.336, 1, 0, 4, 47, 0, 0, 3, 47, 0, 0},
    {"talos/talos_reduced_box.urdf", 60, 32, 0, 0, 27, 90.272, 3, 0, 4, 45, 0, 2, 5, 45, 0, 0},
    // allegro ERD: 13 finger links break the principal triangle inequality
    {"allegro/allegro_right_hand.urdf", 21, 16, 0, 0, 4, 0.955, 17, 4, 0, 0, 0, 13, 0, 0, 0, 0},
    {"allegro/allegro_left_hand.urdf", 21, 16, 0, 0, 4, 0.955, 17, 4, 0, 0, 0, 13, 0, 0, 0, 0},
    {"allegro/allegro_hand_description_right.urdf", 22, 16, 0, 0, 5, 0.955, 17, 4, 0, 0, 0, 0, 0,
     0, 0, 0},
    {"ur5/ur5_robot.urdf", 11, 6, 0, 0, 4, 20.994, 1, 0, 0, 7, 0, 0, 0, 7, 0, 0},
    {"panda/panda.urdf", 13, 7, 0, 2, 3, 17.452, 8, 0, 0, 9, 0, 0, 0, 9, 0, 0},
    // anymal: hatch rank-deficient, 4 depth cameras break the triangle inequality
    {"anymal_c/anymal.urdf", 78, 12, 0, 0, 65, 52.135, 12, 4, 29, 0, 1, 4, 0, 0, 0, 0},
    // go1: the root's all-1e-6 inertia is rank 1
    {"go1/go1.urdf", 46, 12, 0, 0, 33, 13.101, 18, 4, 16, 0, 1, 0, 0, 0, 0, 0},
    {"a1/a1.urdf", 23, 12, 0, 0, 10, 13.741, 10, 4, 8, 0, 0, 0, 0, 0, 0, 0},
    // hyq: 5 links of 1e-6 kg with all-1e-6 inertia (rank 1) and trunk_imu with zero inertia;
    // its collision meshes are COLLADA
    {"hyq/hyq_no_sensors.urdf", 19, 12, 0, 0, 6, 86.774, 0, 4, 4, 9, 5, 0, 1, 0, 0, 9},
    {"double_pendulum/double_pendulum_simple.urdf", 4, 2, 0, 0, 1, 0.600, 3, 0, 0, 0, 0, 0, 0, 0,
     0, 0},
    {"double_pendulum/double_pendulum.urdf", 3, 2, 0, 0, 0, 0.701, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0},
    {"double_pendulum/double_pendulum_continuous.urdf", 3, 0, 2, 0, 0, 0.701, 0, 0, 0, 3, 0, 0, 0,
     0, 3, 0},
    {"iiwa/iiwa14_primitive_collision.urdf", 11, 7, 0, 0, 3, 30.610, 0, 0, 6, 2, 0, 0, 0, 0, 2, 0},  // OBJ meshes (not shipped): not found
    {"iiwa/iiwa14_spheres_collision.urdf", 11, 7, 0, 0, 3, 30.610, 0, 12, 1, 0, 0, 0, 0, 0, 0, 0},
    {"wsg50/wsg_50_mesh_collision.urdf", 6, 0, 0, 2, 3, 1.600, 0, 0, 0, 5, 0, 0, 0, 0, 5, 0},  // OBJ meshes (not shipped): not found
    // cassie_v2: 4 point-mass links; cassie_v4: its 17 STL meshes are not provided
    {"cassie/cassie_v2.urdf", 23, 16, 0, 0, 6, 33.005, 0, 4, 0, 0, 0, 0, 4, 0, 0, 0},
    {"cassie/cassie_v4.urdf", 17, 16, 0, 0, 0, 34.677, 0, 0, 0, 17, 0, 0, 0, 0, 17, 0},
};
#define NROBOTS ((int)(sizeof(robots) / sizeof(robots[0])))

// options that ignore CSIM_PACKAGE_PATH (the built-in fallback must suffice)
static urdf_options no_env(void) {
  urdf_options o = urdf_default_options();
  o.use_env = 0;
  return o;
}

// load a file that must load
static urdf_robot* load_ok(const char* path, const urdf_options* o) {
  urdf_robot* r = NULL;
  csim_error e;
  err_clear(&e);
  csim_status st = urdf_load(path, o, &r, &e);
  ck_assert_msg(st == CSIM_OK, "%s: %s (line %d)", path, e.msg, e.line);
  return r;
}

// count issues of one kind
static int count_issues(const urdf_robot* r, urdf_issue_kind k) {
  int n = 0;
  for (int i = 0; i < r->nissue; i++) n += r->issues[i].kind == k;
  return n;
}

// every robot of the shared data: counts by type, mass, geometries, issues, tree invariants
START_TEST(shared_robot_table) {
  const robot_row* row = &robots[_i];
  char path[512];
  snprintf(path, sizeof(path), ROBOTS "%s", row->file);
  urdf_options o = no_env();
  urdf_robot* r = load_ok(path, &o);
  ck_assert_int_eq(r->nlink, row->links);
  ck_assert_int_eq(r->njoint, row->links - 1);
  int jt[URDF_NJOINT_TYPES] = {0};
  for (int j = 0; j < r->njoint; j++) jt[r->joints[j].type]++;
  ck_assert_int_eq(jt[URDF_JOINT_REVOLUTE], row->rev);
  ck_assert_int_eq(jt[URDF_JOINT_CONTINUOUS], row->cont);
  ck_assert_int_eq(jt[URDF_JOINT_PRISMATIC], row->pris);
  ck_assert_int_eq(jt[URDF_JOINT_FIXED], row->fixed);
  double mass = 0;
  int gt[URDF_NGEOM_TYPES] = {0}, resolved = 0;
  for (int i = 0; i < r->nlink; i++) {
    mass += r->links[i].mass;
    for (int g = 0; g < r->links[i].ngeom; g++) {
      const urdf_geom* G = &r->links[i].geoms[g];
      gt[G->type]++;
      if (G->type == URDF_GEOM_MESH && G->path && access(G->path, R_OK) == 0 &&
          (strstr(G->uri, ".stl") || strstr(G->uri, ".STL")))
        resolved++;
    }
  }
  ck_assert_double_eq_tol(mass, row->mass, 1e-3);
  ck_assert_int_eq(gt[URDF_GEOM_BOX], row->box);
  ck_assert_int_eq(gt[URDF_GEOM_SPHERE], row->sphere);
  ck_assert_int_eq(gt[URDF_GEOM_CYLINDER], row->cyl);
  ck_assert_int_eq(gt[URDF_GEOM_MESH], row->mesh);
  ck_assert_int_eq(gt[URDF_GEOM_CAPSULE], 0);  // the README: no <collision> holds a capsule
  ck_assert_int_eq(count_issues(r, URDF_ISSUE_INERTIA_NOT_PD), row->notpd);
  ck_assert_int_eq(count_issues(r, URDF_ISSUE_INERTIA_TRIANGLE), row->triangle);
  ck_assert_int_eq(count_issues(r, URDF_ISSUE_POINT_MASS), row->point);
  ck_assert_int_eq(count_issues(r, URDF_ISSUE_MASSLESS_MOVING), 0);
  ck_assert_int_eq(resolved, row->resolved);
  ck_assert_int_eq(count_issues(r, URDF_ISSUE_MESH_UNRESOLVED), row->unresolved);
  ck_assert_int_eq(count_issues(r, URDF_ISSUE_MESH_FORMAT), row->format);
  // tree: one root, every other link has exactly one parent joint, axes are unit or zero
  ck_assert_int_ge(r->root, 0);
  ck_assert_int_eq(r->link_parent_joint[r->root], -1);
  for (int i = 0; i < r->nlink; i++)
    if (i != r->root) {
      int j = r->link_parent_joint[i];
      ck_assert_int_ge(j, 0);
      ck_assert_int_eq(r->joints[j].child, i);
    }
  for (int j = 0; j < r->njoint; j++) {
    double n = sqrt(r->joints[j].axis[0] * r->joints[j].axis[0] +
                    r->joints[j].axis[1] * r->joints[j].axis[1] +
                    r->joints[j].axis[2] * r->joints[j].axis[2]);
    if (r->joints[j].type == URDF_JOINT_FIXED) ck_assert_double_eq(n, 0);  // urdf.h
    else ck_assert_double_eq_tol(n, 1, 1e-12);
  }
  ck_assert_str_eq(r->file, path);
  urdf_free(r);
}
END_TEST

// mesh URIs of the shared layout resolve through the built-in ../meshes fallback
START_TEST(mesh_paths_shared_layout) {
  urdf_options o = no_env();
  urdf_robot* r = load_ok(ROBOTS "solo12/solo12.urdf", &o);
  int b = urdf_find_link(r, "base_link");
  ck_assert_int_ge(b, 0);
  ck_assert_int_eq(r->links[b].ngeom, 1);
  ck_assert_str_eq(r->links[b].geoms[0].uri,
                   "package://example-robot-data/robots/solo_description/meshes/stl/solo12/"
                   "solo_12_base.stl");
  ck_assert_str_eq(r->links[b].geoms[0].path,
                   ROBOTS "meshes/robots/solo_description/meshes/stl/solo12/solo_12_base.stl");
  urdf_free(r);
  // talos_full_v2: package:/// (three slashes) and mirrored scales
  r = load_ok(ROBOTS "talos/talos_full_v2.urdf", &o);
  int n3 = 0, mirrored = 0;
  for (int i = 0; i < r->nlink; i++)
    for (int g = 0; g < r->links[i].ngeom; g++) {
      const urdf_geom* G = &r->links[i].geoms[g];
      if (G->type != URDF_GEOM_MESH) continue;
      if (strncmp(G->uri, "package:///", 11) == 0) n3++;
      ck_assert_ptr_nonnull(G->path);
      ck_assert_ptr_nonnull(strstr(G->path, ROBOTS "meshes/robots/talos_data/meshes/"));
      if (G->scale[1] == -1) {
        mirrored++;
        ck_assert(G->scale[0] == 1 && G->scale[2] == 1);
      }
    }
  ck_assert_int_gt(n3, 40);
  ck_assert_int_gt(mirrored, 0);
  urdf_free(r);
}
END_TEST

// wsg50: two <limit> per prismatic joint merge attribute by attribute, the first one winning
START_TEST(wsg50_limit_merge) {
  urdf_options o = no_env();
  urdf_robot* r = load_ok(ROBOTS "wsg50/wsg_50_mesh_collision.urdf", &o);
  int j = urdf_find_joint(r, "wsg_50_base_joint_gripper_left");
  ck_assert_int_ge(j, 0);
  const urdf_joint* J = &r->joints[j];
  ck_assert_int_eq(J->type, URDF_JOINT_PRISMATIC);
  ck_assert_int_eq(J->has_limit, 1);
  ck_assert_int_eq(J->has_position_limit, 1);
  ck_assert_double_eq(J->lower, -0.055);
  ck_assert_double_eq(J->upper, -0.0027);
  ck_assert_double_eq(J->effort, 1.0);
  ck_assert_double_eq(J->velocity, 1.0);
  ck_assert_double_eq(J->axis[0], 1);
  // the root is 'world' without <inertial>
  ck_assert_str_eq(r->links[r->root].name, "world");
  ck_assert_int_eq(r->links[r->root].has_inertial, 0);
  urdf_free(r);
}
END_TEST

// panda: finger_joint2 mimics finger_joint1 with the default multiplier/offset
START_TEST(panda_mimic) {
  urdf_options o = no_env();
  urdf_robot* r = load_ok(ROBOTS "panda/panda.urdf", &o);
  int j1 = urdf_find_joint(r, "panda_finger_joint1");
  int j2 = urdf_find_joint(r, "panda_finger_joint2");
  ck_assert_int_ge(j1, 0);
  ck_assert_int_ge(j2, 0);
  ck_assert_int_eq(r->joints[j2].mimic, j1);
  ck_assert_double_eq(r->joints[j2].mimic_multiplier, 1);
  ck_assert_double_eq(r->joints[j2].mimic_offset, 0);
  ck_assert_int_eq(r->joints[j1].mimic, -1);
  ck_assert_double_eq(r->joints[j2].axis[1], -1);
  ck_assert_double_eq(r->joints[j2].upper, 0.04);
  urdf_free(r);
  // talos: 12 mimic joints, all resolved
  r = load_ok(ROBOTS "talos/talos_reduced.urdf", &o);
  int nm = 0;
  for (int j = 0; j < r->njoint; j++)
    if (r->joints[j].mimic >= 0) {
      nm++;
      ck_assert_double_eq(fabs(r->joints[j].mimic_multiplier), 1);
    }
  ck_assert_int_eq(nm, 12);
  urdf_free(r);
}
END_TEST

// number formats, defaults and frames read from the shared files
START_TEST(number_formats_and_values) {
  urdf_options o = no_env();
  // allegro left: '+1' and '.9' formats, trailing space in vectors
  urdf_robot* r = load_ok(ROBOTS "allegro/allegro_left_hand.urdf", &o);
  ck_assert_int_eq(r->nlink, 21);
  urdf_free(r);
  // cassie_v2: no declaration, leading-dot numbers, revolute joints without <limit>
  r = load_ok(ROBOTS "cassie/cassie_v2.urdf", &o);
  int nolimit = 0;
  for (int j = 0; j < r->njoint; j++)
    if (r->joints[j].type == URDF_JOINT_REVOLUTE && !r->joints[j].has_limit) nolimit++;
  ck_assert_int_eq(nolimit, 16);
  urdf_free(r);
  // talos: 'axis xyz="0 0 0"' on 2 fixed joints is accepted; fixed joints report a zero axis,
  // moving ones a unit axis
  r = load_ok(ROBOTS "talos/talos_reduced.urdf", &o);
  int zero = 0;
  for (int j = 0; j < r->njoint; j++)
    zero += r->joints[j].axis[0] == 0 && r->joints[j].axis[1] == 0 && r->joints[j].axis[2] == 0;
  ck_assert_int_eq(zero, 27);
  urdf_free(r);
}
END_TEST

// the quirks fixture (CRLF, tabs, every number format, several limits, all joint and geometry
// types, skipped elements, one issue of each inertia kind)
START_TEST(quirks_fixture) {
  const char* pp[] = {FIX, NULL};
  urdf_options o = no_env();
  o.package_paths = pp;
  urdf_robot* r = load_ok(FIX "good_quirks.urdf", &o);
  ck_assert_str_eq(r->name, "quirky");
  ck_assert_int_eq(r->nlink, 8);  // <gazebo>/<transmission> joints and <frame> do not count
  ck_assert_int_eq(r->njoint, 7);
  ck_assert_str_eq(r->links[r->root].name, "base");
  // base: box "1. 2 +3" at z = .5, no inertial
  const urdf_link* base = &r->links[urdf_find_link(r, "base")];
  ck_assert_int_eq(base->has_inertial, 0);
  ck_assert_int_eq(base->ngeom, 1);  // the <visual> mesh is skipped
  ck_assert_int_eq(base->geoms[0].type, URDF_GEOM_BOX);
  ck_assert_double_eq(base->geoms[0].size[0], 1);
  ck_assert_double_eq(base->geoms[0].size[1], 2);
  ck_assert_double_eq(base->geoms[0].size[2], 3);
  ck_assert_double_eq(base->geoms[0].xyz[2], 0.5);
  ck_assert_int_eq(base->geoms[0].line, 6);
  // arm: inertial, 7 collisions of every type
  const urdf_link* arm = &r->links[urdf_find_link(r, "arm")];
  ck_assert_double_eq(arm->mass, 2);
  ck_assert_double_eq(arm->com_xyz[2], 0.25);
  ck_assert_double_eq(arm->inertia[0], 0.5);
  ck_assert_double_eq(arm->inertia[3], 0.5);
  ck_assert_double_eq(arm->inertia[5], 0.8);
  ck_assert_int_eq(arm->ngeom, 7);
  const urdf_geom* g = arm->geoms;
  ck_assert_int_eq(g[0].type, URDF_GEOM_MESH);
  ck_assert_str_eq(g[0].path, FIX "meshes/tet.stl");  // package:///testpkg via package_paths
  ck_assert_double_eq(g[0].scale[1], -1);
  ck_assert_str_eq(g[1].path, FIX "meshes/tet.stl");  // relative to the URDF's directory
  ck_assert_double_eq(g[1].scale[0], 1);
  ck_assert_ptr_null(g[2].path);                     // part.obj: no such file
  ck_assert_ptr_null(g[3].path);                     // missingpkg
  ck_assert_int_eq(g[4].type, URDF_GEOM_SPHERE);
  ck_assert_double_eq(g[4].size[0], 0);
  ck_assert_double_eq(g[4].xyz[0], 0.1);
  ck_assert_double_eq(g[4].xyz[1], -2);
  ck_assert_double_eq(g[4].xyz[2], 350);
  ck_assert_int_eq(g[5].type, URDF_GEOM_CYLINDER);
  ck_assert_double_eq(g[5].size[0], 0.1);
  ck_assert_double_eq(g[5].size[1], 1);
  ck_assert_int_eq(g[6].type, URDF_GEOM_CAPSULE);
  ck_assert_double_eq(g[6].size[1], 0.3);
  // shoulder: axis normalised, limits merged (first <limit> wins per attribute)
  const urdf_joint* sh = &r->joints[urdf_find_joint(r, "shoulder")];
  ck_assert_int_eq(sh->type, URDF_JOINT_REVOLUTE);
  ck_assert_double_eq(sh->axis[2], 1);
  ck_assert_double_eq(sh->lower, -1);
  ck_assert_double_eq(sh->upper, 1.5);
  ck_assert_double_eq(sh->effort, 7);
  ck_assert_double_eq(sh->velocity, 3);
  ck_assert_int_eq(sh->has_position_limit, 1);
  ck_assert_double_eq_tol(sh->rpy[2], M_PI / 2, 1e-15);
  ck_assert_double_eq(sh->xyz[2], 1);
  ck_assert_int_eq(sh->line, 73);
  ck_assert_int_eq(r->links[sh->child].line, 13);
  ck_assert_int_eq(r->link_parent_joint[sh->child], urdf_find_joint(r, "shoulder"));
  // fix: zero axis allowed on a fixed joint
  const urdf_joint* fx = &r->joints[urdf_find_joint(r, "fix")];
  ck_assert_int_eq(fx->type, URDF_JOINT_FIXED);
  ck_assert(fx->axis[0] == 0 && fx->axis[1] == 0 && fx->axis[2] == 0);
  // slide: axis (1 1 0)/sqrt 2, mimic of shoulder with multiplier -2 and offset .5
  const urdf_joint* sl = &r->joints[urdf_find_joint(r, "slide")];
  ck_assert_double_eq_tol(sl->axis[0], sqrt(0.5), 1e-15);
  ck_assert_double_eq_tol(sl->axis[1], sqrt(0.5), 1e-15);
  ck_assert_int_eq(sl->mimic, urdf_find_joint(r, "shoulder"));
  ck_assert_double_eq(sl->mimic_multiplier, -2);
  ck_assert_double_eq(sl->mimic_offset, 0.5);
  // spin: continuous, default axis x, a limit without position bounds
  const urdf_joint* sp = &r->joints[urdf_find_joint(r, "spin")];
  ck_assert_int_eq(sp->type, URDF_JOINT_CONTINUOUS);
  ck_assert_double_eq(sp->axis[0], 1);
  ck_assert_int_eq(sp->has_limit, 1);
  ck_assert_int_eq(sp->has_position_limit, 0);
  ck_assert_double_eq(sp->effort, 5);
  ck_assert_int_eq(r->joints[urdf_find_joint(r, "free")].type, URDF_JOINT_FLOATING);
  ck_assert_int_eq(r->joints[urdf_find_joint(r, "plane")].type, URDF_JOINT_PLANAR);
  ck_assert_int_eq(urdf_find_joint(r, "not_a_joint"), -1);
  ck_assert_int_eq(urdf_find_link(r, "tool"), -1);
  // issues: one of each kind, on the right link and line
  ck_assert_int_eq(r->nissue, 6);
  int lk[URDF_NISSUE_KINDS];
  int ln[URDF_NISSUE_KINDS];
  for (int k = 0; k < URDF_NISSUE_KINDS; k++) lk[k] = ln[k] = -2;
  for (int i = 0; i < r->nissue; i++) {
    ck_assert_int_eq(lk[r->issues[i].kind], -2);  // one each
    lk[r->issues[i].kind] = r->issues[i].link;
    ln[r->issues[i].kind] = r->issues[i].line;
  }
  ck_assert_int_eq(lk[URDF_ISSUE_POINT_MASS], urdf_find_link(r, "point"));
  ck_assert_int_eq(lk[URDF_ISSUE_INERTIA_NOT_PD], urdf_find_link(r, "flat"));
  ck_assert_int_eq(lk[URDF_ISSUE_INERTIA_TRIANGLE], urdf_find_link(r, "tri"));
  ck_assert_int_eq(lk[URDF_ISSUE_MASSLESS_MOVING], urdf_find_link(r, "massless_tip"));
  ck_assert_int_eq(lk[URDF_ISSUE_MESH_FORMAT], urdf_find_link(r, "arm"));
  ck_assert_int_eq(lk[URDF_ISSUE_MESH_UNRESOLVED], urdf_find_link(r, "arm"));
  ck_assert_int_eq(ln[URDF_ISSUE_MESH_FORMAT], 25);
  ck_assert_int_eq(ln[URDF_ISSUE_MESH_UNRESOLVED], 28);
  ck_assert_int_eq(ln[URDF_ISSUE_POINT_MASS], 42);
  for (int i = 0; i < r->nissue; i++) {
    const char* m = r->issues[i].msg;
    switch (r->issues[i].kind) {
      case URDF_ISSUE_MESH_UNRESOLVED:
        ck_assert_ptr_nonnull(strstr(m, "package://missingpkg/x.stl"));
        break;
      case URDF_ISSUE_MESH_FORMAT:
        ck_assert_ptr_nonnull(strstr(m, "meshes/part.dae"));
        break;
      case URDF_ISSUE_INERTIA_TRIANGLE:
        ck_assert_ptr_nonnull(strstr(m, "80.0%"));
        break;
      case URDF_ISSUE_POINT_MASS:
        ck_assert_ptr_nonnull(strstr(m, "0.5 kg"));
        break;
      case URDF_ISSUE_MASSLESS_MOVING:
        ck_assert_ptr_nonnull(strstr(m, "'tip'"));
        break;
      default:
        break;
    }
  }
  urdf_free(r);
}
END_TEST

// package:// search: explicit paths, CSIM_PACKAGE_PATH (use_env), and nothing
START_TEST(package_search_path) {
  // without search paths, package:///testpkg is unresolved (and reported with its URI)
  urdf_options o = no_env();
  urdf_robot* r = load_ok(FIX "good_quirks.urdf", &o);
  const urdf_link* arm = &r->links[urdf_find_link(r, "arm")];
  ck_assert_ptr_null(arm->geoms[0].path);
  ck_assert_int_eq(count_issues(r, URDF_ISSUE_MESH_UNRESOLVED), 2);
  urdf_free(r);
  // the environment variable (colon separated, empty entries ignored)
  setenv("CSIM_PACKAGE_PATH", "/nonexistent::" FIX, 1);
  o.use_env = 1;
  r = load_ok(FIX "good_quirks.urdf", &o);
  arm = &r->links[urdf_find_link(r, "arm")];
  ck_assert_str_eq(arm->geoms[0].path, FIX "meshes/tet.stl");
  ck_assert_int_eq(count_issues(r, URDF_ISSUE_MESH_UNRESOLVED), 1);
  urdf_free(r);
  // ... ignored when use_env = 0
  o.use_env = 0;
  r = load_ok(FIX "good_quirks.urdf", &o);
  ck_assert_ptr_null(r->links[urdf_find_link(r, "arm")].geoms[0].path);
  urdf_free(r);
  unsetenv("CSIM_PACKAGE_PATH");
  // dir/PKG/rest is tried before dir/rest: "tests/data" holds urdf/meshes/tet.stl
  const char* pp[] = {"/nonexistent", "tests/data", NULL};
  o.package_paths = pp;
  const char* text =
      "<robot name='p'><link name='a'><collision><geometry>"
      "<mesh filename='package://urdf/meshes/tet.stl'/></geometry></collision>"
      "<collision><geometry><mesh filename='file://meshes/tet.stl'/></geometry></collision>"
      "</link></robot>";
  csim_error e;
  ck_assert_int_eq(urdf_load_string(text, "s.urdf", FIX, &o, &r, &e), CSIM_OK);
  ck_assert_str_eq(r->links[0].geoms[0].path, "tests/data/urdf/meshes/tet.stl");
  ck_assert_str_eq(r->links[0].geoms[1].path, FIX "meshes/tet.stl");
  ck_assert_int_eq(r->nissue, 0);
  urdf_free(r);
  // file:///absolute
  char cwd[1024], uri[1400], doc[2000];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
  snprintf(uri, sizeof(uri), "file://%s/" FIX "meshes/tet.stl", cwd);
  snprintf(doc, sizeof(doc), "<robot name='f'><link name='a'><collision><geometry><mesh "
           "filename='%s'/></geometry></collision></link></robot>", uri);
  ck_assert_int_eq(urdf_load_string(doc, "f.urdf", NULL, &o, &r, &e), CSIM_OK);
  ck_assert_str_eq(r->links[0].geoms[0].path, uri + 7);
  urdf_free(r);
}
END_TEST

// one bad fixture: file, line, element (csim_error.key) and message fragments
typedef struct {
  const char* file;
  int line;
  const char* key;
  const char* frag1;
  const char* frag2;
} bad_case;

static const bad_case bad[] = {
    {"bad_truncated.urdf", 12, "origin", "unterminated value of attribute 'rpy'", "end of file"},
    {"bad_mismatched_tag.urdf", 6, "inertial", "mismatched end tag", "</inertia>"},
    {"bad_number.urdf", 5, "mass", "'1.0.0' is not a number", "attribute 'value'"},
    {"bad_number_exponent.urdf", 7, "origin", "'1e' is not a number", "joint 'j1'"},
    {"bad_number_word.urdf", 5, "inertia", "'abc' is not a number", "attribute 'ixx'"},
    {"bad_vector_count.urdf", 7, "origin", "expected 3 numbers, found 2", "'xyz'"},
    {"bad_cycle.urdf", 13, "joint", "kinematic cycle", "'ca'"},
    {"bad_cycle_detached.urdf", 14, "joint", "kinematic cycle", "'c_b'"},
    {"bad_self_joint.urdf", 8, "joint", "to itself", "'b_self'"},
    {"bad_missing_parent.urdf", 5, "parent", "parent link 'bsae' is not defined", "'j1'"},
    {"bad_missing_child.urdf", 5, "child", "child link 'ghost' is not defined", "'j1'"},
    {"bad_two_roots.urdf", 4, "link", "two root links", "'floating_thing'"},
    {"bad_two_parents.urdf", 13, "joint", "has two parent joints", "'base_b' (line 9)"},
    {"bad_duplicate_link.urdf", 4, "link", "duplicate link name 'base'", "line 2"},
    {"bad_duplicate_joint.urdf", 9, "joint", "duplicate joint name 'j'", "line 5"},
    {"bad_joint_type.urdf", 4, "joint", "unknown joint type 'hinge'", "'elbow'"},
    {"bad_zero_axis.urdf", 12, "axis", "zero axis", "revolute"},
    {"bad_mimic.urdf", 16, "mimic", "'left_fingr', which is not defined", "'right_finger'"},
    {"bad_negative_mass.urdf", 5, "mass", "negative mass -0.5", "link 'base'"},
    {"bad_empty_robot.urdf", 3, "robot", "no <link>", ""},
    {"bad_root_element.urdf", 2, "sdf", "expected <robot>", "<sdf>"},
    {"bad_geometry.urdf", 5, "cone", "unsupported geometry <cone>", "link 'base'"},
    {"bad_limit_order.urdf", 8, "limit", "lower limit 1 > upper limit -1", "'elbow'"},
    {"bad_inertial_no_inertia.urdf", 3, "inertial", "no <inertia>", "link 'base'"},
};
#define NBAD ((int)(sizeof(bad) / sizeof(bad[0])))

// every bad fixture is CSIM_ERR_INPUT naming file, line, element and the culprit
START_TEST(bad_fixtures) {
  const bad_case* b = &bad[_i];
  char path[256];
  snprintf(path, sizeof(path), FIX "%s", b->file);
  urdf_robot* r = (urdf_robot*)1;
  csim_error e;
  urdf_options o = no_env();
  ck_assert_int_eq(urdf_load(path, &o, &r, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_null(r);
  ck_assert_str_eq(e.file, path);
  ck_assert_msg(e.line == b->line, "%s: line %d, expected %d (%s)", b->file, e.line, b->line,
                e.msg);
  ck_assert_str_eq(e.key, b->key);
  ck_assert_msg(strstr(e.msg, b->frag1), "%s: '%s' lacks '%s'", b->file, e.msg, b->frag1);
  ck_assert_msg(strstr(e.msg, b->frag2), "%s: '%s' lacks '%s'", b->file, e.msg, b->frag2);
}
END_TEST

// strict numbers accept every format of the shared files and reject near misses
START_TEST(number_syntax) {
  static const char* good[] = {"1", "1.", ".9", "+1", "+0.5", "2e-3", "1E+2", "  3  ", "0.0"};
  static const char* badn[] = {"abc", "1.0.0", "1e", ".", "+", "1,5", "nan", "inf", "0x10",
                               "1e999", "", "1 2", "--1", "1e+"};
  char doc[512];
  urdf_robot* r;
  csim_error e;
  urdf_options o = no_env();
  for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
    snprintf(doc, sizeof(doc), "<robot name='n'><link name='a'><inertial><mass value='%s'/>"
             "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link></robot>",
             good[k]);
    ck_assert_msg(urdf_load_string(doc, "n.urdf", NULL, &o, &r, &e) == CSIM_OK, "%s: %s",
                  good[k], e.msg);
    ck_assert_double_eq(r->links[0].mass, strtod(good[k], NULL));
    urdf_free(r);
  }
  for (size_t k = 0; k < sizeof(badn) / sizeof(badn[0]); k++) {
    snprintf(doc, sizeof(doc), "<robot name='n'>\n<link name='a'><inertial>\n<mass value='%s'/>"
             "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link></robot>",
             badn[k]);
    ck_assert_msg(urdf_load_string(doc, "n.urdf", NULL, &o, &r, &e) == CSIM_ERR_INPUT,
                  "accepted '%s'", badn[k]);
    ck_assert_int_eq(e.line, 3);
    ck_assert_str_eq(e.key, "mass");
    ck_assert_ptr_nonnull(strstr(e.msg, "'value'"));
  }
}
END_TEST

// truncating a real URDF anywhere is an input error, never a crash or a partial robot
START_TEST(truncation_sweep) {
  FILE* f = fopen(ROBOTS "double_pendulum/double_pendulum_simple.urdf", "rb");
  ck_assert_ptr_nonnull(f);
  char* text = malloc(1 << 16);
  size_t n = fread(text, 1, (1 << 16) - 1, f);
  fclose(f);
  const char* end = strstr(text, "</robot>");
  ck_assert_ptr_nonnull(end);
  size_t last = (size_t)(end - text) + 7;
  urdf_options o = no_env();
  for (size_t cut = 0; cut < last; cut += 3) {
    char save = text[cut];
    text[cut] = '\0';
    urdf_robot* r = (urdf_robot*)1;
    csim_error e;
    ck_assert_int_eq(urdf_load_string(text, "cut.urdf", ROBOTS "double_pendulum", &o, &r, &e),
                     CSIM_ERR_INPUT);
    ck_assert_ptr_null(r);
    ck_assert_int_ge(e.line, 1);
    text[cut] = save;
  }
  text[n] = '\0';
  urdf_robot* r;
  csim_error e;
  ck_assert_int_eq(urdf_load_string(text, "full.urdf", ROBOTS "double_pendulum", &o, &r, &e),
                   CSIM_OK);
  ck_assert_int_eq(r->nlink, 4);
  urdf_free(r);
  free(text);
}
END_TEST

// a missing file and a non-XML file
START_TEST(unreadable_inputs) {
  urdf_robot* r;
  csim_error e;
  urdf_options o = no_env();
  ck_assert_int_eq(urdf_load(FIX "nope.urdf", &o, &r, &e), CSIM_ERR_INPUT);
  ck_assert_str_eq(e.file, FIX "nope.urdf");
  ck_assert_int_eq(urdf_load(ROBOTS "meshes/robots/ur_description/meshes/ur5/collision/base.stl",
                             &o, &r, &e),
                   CSIM_ERR_INPUT);
  ck_assert_ptr_null(r);
  ck_assert_int_eq(urdf_default_options().use_env, 1);
  ck_assert_ptr_null(urdf_default_options().package_paths);
  ck_assert_str_eq(urdf_joint_type_names[URDF_JOINT_PLANAR], "planar");
  ck_assert_str_eq(urdf_geom_type_names[URDF_GEOM_CAPSULE], "capsule");
}
END_TEST

// run the urdf suite
int main(void) {
  Suite* s = suite_create("urdf");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, shared_robot_table, 0, NROBOTS);
  tcase_add_test(tc, mesh_paths_shared_layout);
  tcase_add_test(tc, wsg50_limit_merge);
  tcase_add_test(tc, panda_mimic);
  tcase_add_test(tc, number_formats_and_values);
  tcase_add_test(tc, quirks_fixture);
  tcase_add_test(tc, package_search_path);
  tcase_add_loop_test(tc, bad_fixtures, 0, NBAD);
  tcase_add_test(tc, number_syntax);
  tcase_add_test(tc, truncation_sweep);
  tcase_add_test(tc, unreadable_inputs);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
