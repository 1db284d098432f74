// tree_fixture.c — test fixtures shared by the model, kinematics and dynamics suites.
#include "tree_fixture.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/spatial.h"


char* hand_name(hand_robot* h, const char* prefix, int i) {
  char* s = h->names[h->nname++];
  snprintf(s, 16, "%s%d", prefix, i);
  return s;
}

void hand_init(hand_robot* h) {
  memset(h, 0, sizeof(*h));
  h->r.name = "hand";
  h->r.file = "hand.urdf";
  h->r.links = h->links;
  h->r.joints = h->joints;
  h->r.link_parent_joint = h->lpj;
  h->r.root = 0;
}

// add a link with mass, com and inertia (ixx ixy ixz iyy iyz izz); returns its index
int hand_link(hand_robot* h, double mass, const double com[3], const double I6[6]) {
  int i = h->r.nlink++;
  urdf_link* L = &h->links[i];
  L->name = hand_name(h, "link", i);
  L->line = 10 + i;
  L->has_inertial = mass > 0 || (I6 && (I6[0] != 0 || I6[3] != 0 || I6[5] != 0));
  L->mass = mass;
  if (com) sp_copy3(L->com_xyz, com);
  if (I6) memcpy(L->inertia, I6, sizeof(L->inertia));
  h->lpj[i] = -1;
  return i;
}

// add a joint parent -> child with origin xyz/rpy and axis
int hand_joint(hand_robot* h, urdf_joint_type type, int parent, int child,
                      const double xyz[3], const double rpy[3], const double axis[3]) {
  int j = h->r.njoint++;
  urdf_joint* J = &h->joints[j];
  J->name = hand_name(h, "joint", j);
  J->line = 100 + j;
  J->type = type;
  J->parent = parent;
  J->child = child;
  if (xyz) sp_copy3(J->xyz, xyz);
  if (rpy) sp_copy3(J->rpy, rpy);
  if (axis) sp_copy3(J->axis, axis);
  J->mimic = -1;
  h->lpj[child] = j;
  return j;
}

static unsigned g_seed = 12345u;

// uniform in [-1, 1]
double urand(void) {
  g_seed = g_seed * 1664525u + 1013904223u;
  return ((g_seed >> 8) & 0xffffff) / (double)0xffffff * 2 - 1;
}

// build model and data for one robot, asserting success
void build(const urdf_robot* u, model_base_type base, const double g[3], sim_model** m,
                  sim_data** d) {
  csim_error err;
  model_world_spec world = {{g[0], g[1], g[2]}, 0, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec = {u, NULL, base, {0, 0, 0}, {0, 0, 0, 1}, 0};
  csim_status st = model_create(&world, &spec, 1, m, &err);
  char msg[2048];
  err_format(&err, msg, sizeof(msg));
  ck_assert_msg(st == CSIM_OK, "model_create: %s", msg);
  ck_assert_int_eq(data_create(*m, 0, d, &err), CSIM_OK);
}

// random configuration (unit quaternions for free joints) and velocity
void random_state(const sim_model* m, double* q, double* v, double qscale, double vscale) {
  for (int j = 0; j < m->njnt; j++) {
    int qa = m->jnt_qadr[j];
    if (m->jnt_type[j] == MODEL_JOINT_FREE) {
      for (int i = 0; i < 3; i++) q[qa + i] = qscale * urand();
      double qu[4] = {urand(), urand(), urand(), urand()};
      sp_normquat(qu);
      memcpy(q + qa + 3, qu, sizeof(qu));
    } else {
      q[qa] = qscale * urand();
    }
  }
  if (v)
    for (int i = 0; i < m->nv; i++) v[i] = vscale * urand();
}

// random tree: n links, random parents, joint types (revolute, continuous, prismatic, fixed,
// floating: a free joint inside the tree, with a placement),
// origins, axes and inertias (valid, random orientation via com_rpy)
void random_tree(hand_robot* h, int n) {
  hand_init(h);
  for (int i = 0; i < n; i++) {
    double mass = 0.2 + urand() * urand() + 1;
    double e[3] = {0.01 + 0.05 * fabs(urand()), 0.01 + 0.05 * fabs(urand()), 0};
    e[2] = 0.5 * (e[0] + e[1]) + 0.02 * fabs(urand());   // principal moments obey the triangle rule
    double I6[6] = {e[0], 0, 0, e[1], 0, e[2]};
    int l = hand_link(h, mass, (double[]){0.2 * urand(), 0.2 * urand(), 0.2 * urand()}, I6);
    h->links[l].com_rpy[0] = 3 * urand();
    h->links[l].com_rpy[1] = 1.5 * urand();
    h->links[l].com_rpy[2] = 3 * urand();
    if (i == 0) continue;
    int parent = (int)((urand() * 0.5 + 0.5) * i);
    if (parent >= i) parent = i - 1;
    double u = urand();
    urdf_joint_type type = u < -0.6 ? URDF_JOINT_PRISMATIC : u < 0.2 ? URDF_JOINT_REVOLUTE
                          : u < 0.5 ? URDF_JOINT_CONTINUOUS : u < 0.85 ? URDF_JOINT_FIXED
                                                                       : URDF_JOINT_FLOATING;
    double ax[3] = {urand(), urand(), urand()};
    sp_normalize3(ax);
    hand_joint(h, type, parent, l, (double[]){0.3 * urand(), 0.3 * urand(), 0.3 * urand()},
               (double[]){3 * urand(), 1.5 * urand(), 3 * urand()}, ax);
  }
}

void build_random_tree(int n, model_base_type base, const double g[3], sim_model** m,
                       sim_data** d) {
  static hand_robot h;
  random_tree(&h, n);
  build(&h.r, base, g, m, d);
}

const robot_file_case k_robots[] = {
    {"solo12/solo12.urdf", MODEL_BASE_FREE, 2.500},
    {"talos/talos_reduced.urdf", MODEL_BASE_FREE, 90.272},
    {"talos/talos_full_v2.urdf", MODEL_BASE_FREE, 93.336},
    {"talos/talos_reduced_box.urdf", MODEL_BASE_FREE, 90.272},
    {"allegro/allegro_right_hand.urdf", MODEL_BASE_FIXED, 0.955},
    {"allegro/allegro_left_hand.urdf", MODEL_BASE_FIXED, 0.955},
    {"allegro/allegro_hand_description_right.urdf", MODEL_BASE_FIXED, 0.955},
    {"ur5/ur5_robot.urdf", MODEL_BASE_FIXED, 20.994},
    {"panda/panda.urdf", MODEL_BASE_FIXED, 17.452},
    {"anymal_c/anymal.urdf", MODEL_BASE_FREE, 52.135},
    {"go1/go1.urdf", MODEL_BASE_FREE, 13.101},
    {"a1/a1.urdf", MODEL_BASE_FREE, 13.741},
    {"hyq/hyq_no_sensors.urdf", MODEL_BASE_FREE, 86.774},
    {"double_pendulum/double_pendulum_simple.urdf", MODEL_BASE_FIXED, 0.600},
    {"double_pendulum/double_pendulum.urdf", MODEL_BASE_FIXED, 0.701},
    {"double_pendulum/double_pendulum_continuous.urdf", MODEL_BASE_FIXED, 0.701},
    {"iiwa/iiwa14_primitive_collision.urdf", MODEL_BASE_FIXED, 30.610},
    {"iiwa/iiwa14_spheres_collision.urdf", MODEL_BASE_FIXED, 30.610},
    {"wsg50/wsg_50_mesh_collision.urdf", MODEL_BASE_FIXED, 1.600},
    {"cassie/cassie_v2.urdf", MODEL_BASE_FREE, 33.005},
    {"cassie/cassie_v4.urdf", MODEL_BASE_FREE, 34.677},
};
const int k_nrobots = (int)(sizeof(k_robots) / sizeof(k_robots[0]));

urdf_robot* load_robot(const char* rel, int meshes) {
  char path[512];
  snprintf(path, sizeof(path), ROBOT_DIR "%s", rel);
  const char* pkg[] = {ROBOT_DIR "meshes", NULL};
  urdf_options opt = urdf_default_options();
  if (meshes) opt.package_paths = pkg;
  opt.use_env = 0;
  urdf_robot* u = NULL;
  csim_error err;
  csim_status st = urdf_load(path, &opt, &u, &err);
  char msg[2048];
  err_format(&err, msg, sizeof(msg));
  ck_assert_msg(st == CSIM_OK, "urdf_load %s: %s", rel, msg);
  return u;
}
