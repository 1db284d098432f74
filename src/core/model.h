// model.h — the immutable simulation model: kinematic tree, joints, dofs, inertias, geometries.
//
// Built once from one or more URDF descriptions by io/model_build.h (model_create) and never
// written during a run (MuJoCo's mjModel). Every step function takes `const sim_model*`. Core
// code sees only this struct: no URDF type reaches it (names are copied into the model).
//
// Tree: body 0 is the world. Every other body has exactly one moving joint to its parent body
// (free, revolute or prismatic). URDF links joined by fixed joints are merged into the body of
// their parent (mass, inertia and geometries re-expressed in that body's frame); the link keeps a
// record (link_body, link_pos, link_quat) so actions and outputs can name any URDF link. A
// fixed-base robot's root link is merged into the world at the scenario's base pose; a free-base
// robot gets a free joint from the world (added by the loader: no URDF here has one).
// Bodies are numbered so that a body's parent has a smaller index (topological order), and dofs
// likewise (dof_parent[i] < i): the tree-sparse factorization relies on it.
//
// Frames: a body's frame is its joint frame = the frame of the URDF child link of that joint.
// Joint placement (body_pos, body_quat) is the body frame in the parent body frame at q = 0.
//
// Configuration and velocity: a free joint has q = [x y z qx qy qz qw] (position of the body
// origin in the world, orientation quaternion) and v = [vx vy vz wx wy wz]: the velocity of the
// body's CENTRE OF MASS in world axes, then the angular velocity in body axes (MuJoCo's free
// joint, taken at the com instead of the origin: the translation then has no velocity-product
// term, so torque-free ballistic motion is exact; stage.h). Its motion subspace therefore
// depends on the orientation (d->cdof, kinematics.c). Revolute and prismatic joints have one q
// and one v. Continuous joints are revolute without limits. Spatial vectors everywhere in csim
// are [linear; angular]. A URDF 'floating' joint becomes a free joint inside the tree: its q is
// the body pose relative to the joint placement frame (body_pos, body_quat) in the parent body,
// its v the com velocity relative to the parent in the placement frame's axes and the relative
// angular velocity in body axes. 'planar' joints are refused.
//
// Mimic joints: recorded (jnt_mimic, multiplier, offset) but simulated as independent dofs; the
// coupling is not enforced by the dynamics (documented in the README).
//
// Inertia fixes (documented in the README, reported by csim info through urdf issues):
//   mass > 0 with zero inertia      -> solid sphere of radius MODEL_POINT_RADIUS about the com
//   non-positive principal moment   -> moment raised to max(moment, MODEL_MIN_MOMENT_RATIO * largest,
//                                      mass * MODEL_POINT_RADIUS^2 * 2/5)
//   triangle inequality broken      -> the two smaller moments raised equally until I3 = I1 + I2
//   a moving body whose whole subtree is massless -> error (M would be singular)
#ifndef CSIM_MODEL_H
#define CSIM_MODEL_H

#include "core/error.h"
#include "core/mesh.h"

#define MODEL_POINT_RADIUS 0.01        // m: radius of the sphere given to point masses
#define MODEL_MIN_MOMENT_RATIO 1e-6    // smallest principal moment relative to the largest

typedef enum {
  MODEL_JOINT_FREE = 0,   // 7 q, 6 v
  MODEL_JOINT_REVOLUTE,   // 1 q, 1 v (revolute and continuous)
  MODEL_JOINT_PRISMATIC,  // 1 q, 1 v
  MODEL_NJOINT_TYPES
} model_joint_type;

extern const char* const model_joint_type_names[MODEL_NJOINT_TYPES];

typedef enum {
  MODEL_GEOM_PLANE = 0,   // world ground plane: normal +z of its frame; size unused
  MODEL_GEOM_HFIELD,      // world height field (terrain): size = half extents x, y of the grid,
                          // size[2] unused; heights in model->hfield_* (just after the plane so
                          // it is geom1 of its pairs: normals point from the ground into bodies)
  MODEL_GEOM_BOX,         // size = half extents x, y, z
  MODEL_GEOM_SPHERE,      // size[0] = radius
  MODEL_GEOM_CYLINDER,    // size[0] = radius, size[1] = half length along local z
  MODEL_GEOM_CAPSULE,     // size[0] = radius, size[1] = half length of the segment along local z
  MODEL_GEOM_MESH,        // geom_mesh = index of its convex hull; size = the URDF mesh scale
                          // (informational: the hull vertices are already scaled)
  MODEL_NGEOM_TYPES
} model_geom_type;

extern const char* const model_geom_type_names[MODEL_NGEOM_TYPES];

typedef enum { MODEL_BASE_FIXED = 0, MODEL_BASE_FREE = 1 } model_base_type;

typedef struct sim_model {
  // sizes
  int nq;                   // configuration size
  int nv;                   // velocity size (dofs)
  int nbody;                // bodies including the world (body 0)
  int njnt;                 // moving joints = nbody - 1
  int nlink;                // URDF links of all robots
  int ngeom;                // collision geometries (incl. the ground plane)
  int nmesh;                // convex hulls
  int nrobot;
  int maxdepth;             // largest number of dofs on a root-to-leaf path
  int nM;                   // entries of the tree-sparse mass matrix (d->qM, d->qLD): the sum
                            // over dofs of the dofs from it to its root (see dof_Madr)

  double gravity[3];        // m/s^2

  // bodies (nbody)
  int* body_parent;         // parent body (-1 for the world)              (nbody)
  int* body_jnt;            // joint of the body (-1 for the world)        (nbody)
  int* body_robot;          // robot index (-1 for the world)              (nbody)
  int* body_link;           // URDF link the body frame belongs to (-1 for world) (nbody)
  double* body_pos;         // body frame origin in the parent frame at q=0 (nbody x 3)
  double* body_quat;        // body frame orientation in the parent frame  (nbody x 4)
  double* body_mass;        // kg, including merged fixed links            (nbody)
  double* body_com;         // centre of mass in the body frame            (nbody x 3)
  double* body_inertia;     // rotational inertia about the com, body axes (nbody x 9)
  double* body_subtreemass; // mass of the body and all its descendants    (nbody)
  double* body_cinert;      // spatial inertia about the body origin, compact: mass, first
                            // moment m*c (3), second moment xx yy zz xy xz yz (nbody x 10)
  int* body_dofadr;         // first dof of the body's joint (-1 for the world) (nbody)
  int* body_dofnum;         // dofs of the body's joint (0 for the world)  (nbody)
  int* body_geomadr;        // first geom of the body (geoms are grouped by body) (nbody)
  int* body_geomnum;        // geoms of the body                           (nbody)

  // joints (njnt); joint j belongs to body jnt_body[j]
  int* jnt_type;            // model_joint_type                            (njnt)
  int* jnt_body;            //                                             (njnt)
  int* jnt_qadr;            // first index in q                            (njnt)
  int* jnt_dofadr;          // first index in v                            (njnt)
  double* jnt_axis;         // unit axis in the body frame (1-dof joints)  (njnt x 3)
  int* jnt_limited;         // position limits given                       (njnt)
  double* jnt_range;        // lower, upper                                (njnt x 2)
  double* jnt_effort;       // effort limit (0: none given)                (njnt)
  int* jnt_mimic;           // mimicked joint (-1: none)                   (njnt)
  double* jnt_mimic_coef;   // multiplier, offset                          (njnt x 2)
  char** jnt_name;          // URDF joint name; free joints: "<robot>/root" (njnt)

  // dofs (nv)
  int* dof_body;            //                                             (nv)
  int* dof_jnt;             //                                             (nv)
  int* dof_parent;          // parent dof in the tree, -1 at a root; < own index (nv)
  int* dof_Madr;            // row of dof i in d->qM / d->qLD (MuJoCo's dof_Madr): entries
                            // (i,i), (i,par(i)), (i,par(par(i))), ... up to the root, contiguous
                            // from this address; rows in dof order               (nv)
  double* dof_motion;       // motion subspace S of the dof in its body frame, [lin; ang]:
                            // revolute [0; axis], prismatic [axis; 0], free: unit vectors (nv x 6)

  // links (nlink): every URDF link of every robot
  int* link_body;           // body the link is part of (0 when merged into the world) (nlink)
  int* link_robot;          //                                             (nlink)
  double* link_pos;         // link frame in its body frame                (nlink x 3)
  double* link_quat;        //                                             (nlink x 4)
  double* link_mass;        // mass of the URDF link alone, kg             (nlink)
  char** link_name;         // URDF link name                              (nlink)

  // geometries (ngeom)
  int* geom_type;           // model_geom_type                             (ngeom)
  int* geom_body;           //                                             (ngeom)
  int* geom_link;           // link it came from (-1: ground)              (ngeom)
  double* geom_pos;         // frame in the body frame                     (ngeom x 3)
  double* geom_quat;        //                                             (ngeom x 4)
  double* geom_size;        // per type, see model_geom_type               (ngeom x 3)
  double* geom_rbound;      // radius of a bounding sphere about geom_pos (inf for planes) (ngeom)
  int* geom_mesh;           // hull index (-1: not a mesh)                 (ngeom)
  int ngeom_skipped;        // collision meshes left out (unresolved or unreadable while
                            // require_meshes = 0)

  // height field (at most one, the ground; hfield_nx = 0 when none): see model_world_spec in io/model_build.h
  int hfield_nx, hfield_ny;
  double hfield_size[2];    // extent x, y (m), centred on the geom's x, y
  double* hfield_data;      // heights above the geom's z, x fastest (hfield_nx x hfield_ny)

  // meshes (nmesh)
  mesh_hull* mesh;          //                                             (nmesh)

  // robots (nrobot)
  char** robot_name;        //                                             (nrobot)
  int* robot_base;          // model_base_type                             (nrobot)
  int* robot_bodyadr;       // first body                                  (nrobot)
  int* robot_nbody;         //                                             (nrobot)
  int* robot_qadr;          // first q / v index and counts                (nrobot)
  int* robot_nq;
  int* robot_dofadr;
  int* robot_nv;
  int* robot_linkadr;       // first link                                  (nrobot)
  int* robot_nlink;

  double* qpos0;            // reference configuration: 0 for 1-dof joints, identity/origin
                            // pose for free joints                        (nq)

  void* buffer;             // one allocation holds the arrays above (names aside)
} sim_model;

// allocate every array of m (zeroed, one buffer) from its sizes (nq, nv, nbody, njnt, nlink,
// ngeom, nmesh, nrobot), and set the world body's fields; for model compilers (io/model_build.c)
csim_status model_alloc(sim_model* m, csim_error* err);

// release the model (names, hulls, buffer, height field); NULL is a no-op
void model_free(sim_model* m);

// index of a joint / link / body by name ("link" or "robot/link" when names repeat), -1 if absent
// (a plain name found in several robots is ambiguous: -1)
int model_find_joint(const sim_model* m, const char* name);
int model_find_link(const sim_model* m, const char* name);

// apply the inertia fixes listed at the top of this file (model compilers apply them) to a rotational inertia about the com
// (row-major 3x3, any axes) of a body of the given mass; returns a bitmask of the fixes applied
// (MODEL_FIX_*; 0 when the inertia was already valid or mass <= 0)
#define MODEL_FIX_POINT_MASS 1
#define MODEL_FIX_NOT_PD 2
#define MODEL_FIX_TRIANGLE 4
int model_fix_inertia(double mass, double inertia[9]);

// total mass of robot r (all its bodies; for fixed bases the root link's merged mass included)
double model_robot_mass(const sim_model* m, int r);

#endif  // CSIM_MODEL_H
