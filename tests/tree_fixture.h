// tree_fixture.h — test fixtures shared by the model, kinematics and dynamics suites:
// URDF descriptions built in code (no parser), random states and random trees.
#ifndef CSIM_TREE_FIXTURE_H
#define CSIM_TREE_FIXTURE_H

#include "core/data.h"
#include "core/model.h"
#include "io/model_build.h"
#include "io/urdf.h"

#define HAND_MAX 64

// a urdf_robot built in code (no parser), arrays inside
typedef struct {
  urdf_robot r;
  urdf_link links[HAND_MAX];
  urdf_joint joints[HAND_MAX];
  urdf_geom geoms[HAND_MAX];
  int lpj[HAND_MAX];
  char names[2 * HAND_MAX][16];
  int nname;
} hand_robot;

// a generated name "<prefix><i>" owned by h
char* hand_name(hand_robot* h, const char* prefix, int i);
// empty robot named "hand"
void hand_init(hand_robot* h);
// add a link with mass, com and inertia (ixx ixy ixz iyy iyz izz); returns its index
int hand_link(hand_robot* h, double mass, const double com[3], const double I6[6]);
// add a joint parent -> child with origin xyz/rpy and axis; returns its index
int hand_joint(hand_robot* h, urdf_joint_type type, int parent, int child, const double xyz[3],
               const double rpy[3], const double axis[3]);
// uniform in [-1, 1] from a fixed-seed LCG (deterministic tests)
double urand(void);
// build model and data for one robot with gravity g, asserting success
void build(const urdf_robot* u, model_base_type base, const double g[3], sim_model** m,
           sim_data** d);
// random configuration (unit quaternions for free joints) and velocity
void random_state(const sim_model* m, double* q, double* v, double qscale, double vscale);
// random tree of n links with every joint type and valid random inertias
void random_tree(hand_robot* h, int n);
// model and data of random_tree(n) with this base and gravity (asserted); the tree it builds them
// from is kept until the next call
void build_random_tree(int n, model_base_type base, const double g[3], sim_model** m,
                       sim_data** d);

// the shared URDFs: legged robots and Cassie with a free base, arms, hands, the gripper and
// pendulums fixed; each with its README total mass (kg, 3 decimals)
#define ROBOT_DIR "../shared/data/robots/"
typedef struct {
  const char* file;  // under ROBOT_DIR
  model_base_type base;
  double mass;
} robot_file_case;
extern const robot_file_case k_robots[];
extern const int k_nrobots;
// read a shared URDF (path under ROBOT_DIR), asserted; meshes resolved from ROBOT_DIR/meshes when
// `meshes` is set (dynamics does not need them)
urdf_robot* load_robot(const char* rel, int meshes);

#endif  // CSIM_TREE_FIXTURE_H
