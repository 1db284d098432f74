// model.h — the immutable simulation model: kinematic tree, joints, dofs, inertias, geometries.
//
// Built once from one or more URDF descriptions by io/model_build.h (model_create) and never
// written during a run (MuJoCo's mjModel). Every step function takes `const sim_model*`. Core
// code sees only this struct: no URDF type reaches it (names are copied into the model).
//
// Tree: body 0 is the world. Every other body has exactly one moving joint to its parent body
// (free, revolute, prismatic or ball). URDF links joined by fixed joints are merged into the body of
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
// and one v. Continuous joints are revolute without limits. A ball joint (MJCF only: a spherical
// joint at the body origin) has q = [qx qy qz qw], the body orientation in its placement frame
// in the free joint's quaternion order, and v = [wx wy wz], the angular velocity relative to the
// parent in body axes (MuJoCo's ball joint, whose qpos is [w x y z]); its motion subspace is
// constant ([0; e_k], the velocity-product term c_J is zero) and its rotation is integrated
// through the SO(3) exponential map exactly as the free joint's (kin_integrate). Spatial vectors everywhere in csim
// are [linear; angular]. A URDF 'floating' joint becomes a free joint inside the tree: its q is
// the body pose relative to the joint placement frame (body_pos, body_quat) in the parent body,
// its v the com velocity relative to the parent in the placement frame's axes and the relative
// angular velocity in body axes; an MJCF free joint (top level only) is placed at the world
// frame instead and has the body's placement as its reference configuration qpos0, so its q is
// the body's pose in the world, as MuJoCo's qpos (io/model_build.c). 'planar' joints are refused.
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
  MODEL_JOINT_BALL,       // 4 q (quaternion [x y z w]), 3 v (angular velocity, body axes)
  MODEL_NJOINT_TYPES
} model_joint_type;

extern const char* const model_joint_type_names[MODEL_NJOINT_TYPES];
extern const int model_joint_nq[MODEL_NJOINT_TYPES];  // 7 1 1 4
extern const int model_joint_nv[MODEL_NJOINT_TYPES];  // 6 1 1 3

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
  MODEL_GEOM_ELLIPSOID,   // size = radii along local x, y, z (MJCF; the convex support path)
  MODEL_NGEOM_TYPES
} model_geom_type;

extern const char* const model_geom_type_names[MODEL_NGEOM_TYPES];

typedef enum { MODEL_BASE_FIXED = 0, MODEL_BASE_FREE = 1 } model_base_type;

// Every array of sim_model, declared once: X(element type, name, rows, columns, description),
// rows a size of the model. The struct's fields and model_alloc's placement in one buffer are
// generated from this list (MuJoCo's mjxmacro.h); names (char*) point outside the buffer.
#define MODEL_ARRAYS(X) \
  /* bodies (nbody) */ \
  X(int, body_parent, m->nbody, 1, "parent body (-1 for the world)") \
  X(int, body_jnt, m->nbody, 1, "joint of the body (-1 for the world)") \
  X(int, body_robot, m->nbody, 1, "robot index (-1 for the world)") \
  X(int, body_link, m->nbody, 1, "URDF link the body frame belongs to (-1 for world)") \
  X(int, body_rootid, m->nbody, 1, "the tree's root: the body's ancestor (or itself) whose parent is the " \
    "world (0 for the world)") \
  X(double, body_pos, m->nbody, 3, "body frame origin in the parent frame at q=0") \
  X(double, body_quat, m->nbody, 4, "body frame orientation in the parent frame") \
  X(double, body_mass, m->nbody, 1, "kg, including merged fixed links") \
  X(double, body_com, m->nbody, 3, "centre of mass in the body frame") \
  X(double, body_inertia, m->nbody, 9, "rotational inertia about the com, body axes") \
  X(double, body_subtreemass, m->nbody, 1, "mass of the body and all its descendants") \
  X(double, body_cinert, m->nbody, 10, "spatial inertia about the body origin, compact: mass, first moment m*c " \
    "(3), second moment xx yy zz xy xz yz") \
  X(int, body_dofadr, m->nbody, 1, "first dof of the body's joint (-1 for the world)") \
  X(int, body_dofnum, m->nbody, 1, "dofs of the body's joint (0 for the world)") \
  X(int, body_geomadr, m->nbody, 1, "first geom of the body (geoms are grouped by body)") \
  X(int, body_geomnum, m->nbody, 1, "geoms of the body") \
  X(int, body_filterparent, m->nbody, 1, "body whose geoms never touch this body's when both are links of one " \
    "robot (the parent filter, collision.h): body_parent for URDF; for MJCF MuJoCo's weld parent, " \
    "the nearest ancestor holding an MJCF body (joint-chain frames skipped), -1 when the world " \
    "(MuJoCo's filterparent spares the world)") \
  /* joints (njnt); joint j belongs to body jnt_body[j] */ \
  X(int, jnt_type, m->njnt, 1, "model_joint_type") \
  X(int, jnt_body, m->njnt, 1, "") \
  X(int, jnt_qadr, m->njnt, 1, "first index in q") \
  X(int, jnt_dofadr, m->njnt, 1, "first index in v") \
  X(double, jnt_axis, m->njnt, 3, "unit axis in the body frame (1-dof joints)") \
  X(int, jnt_limited, m->njnt, 1, "position limits given") \
  X(double, jnt_range, m->njnt, 2, "lower, upper; ball joints: 0, the largest rotation angle (MuJoCo's " \
    "cone limit)") \
  X(double, jnt_effort, m->njnt, 1, "effort limit (0: none given)") \
  X(int, jnt_mimic, m->njnt, 1, "mimicked joint (-1: none)") \
  X(double, jnt_mimic_coef, m->njnt, 2, "multiplier, offset") \
  X(char*, jnt_name, m->njnt, 1, "URDF joint name; free joints: \"<robot>/root\"") \
  X(double, jnt_solref, m->njnt, 2, "MJCF solreflimit: MuJoCo softness of the joint's limits under ccp " \
    "(material.h); 0 0: none (URDF), the limit is rigid") \
  X(double, jnt_solimp, m->njnt, 5, "MJCF solimplimit") \
  /* dofs (nv) */ \
  X(int, dof_body, m->nv, 1, "") \
  X(int, dof_jnt, m->nv, 1, "") \
  X(int, dof_parent, m->nv, 1, "parent dof in the tree, -1 at a root; < own index") \
  X(int, dof_Madr, m->nv, 1, "row of dof i in d->qM / d->qLD (MuJoCo's dof_Madr): entries (i,i), " \
    "(i,par(i)), (i,par(par(i))), ... up to the root, contiguous from this " \
    "address; rows in dof order") \
  X(double, dof_motion, m->nv, 6, "motion subspace S of the dof in its body frame, [lin; ang]: revolute " \
    "[0; axis], prismatic [axis; 0], free and ball: unit vectors") \
  X(double, dof_armature, m->nv, 1, "armature (rotor inertia reflected through the gear, kg m^2 or kg): " \
    "added to M's diagonal as MuJoCo does; MJCF joint armature, 0 from URDF") \
  X(double, dof_damping, m->nv, 1, "viscous joint damping D (N m s/rad or N s/m): passive torque -D v, " \
    "implicit in the step (stage_passive); MJCF joint damping, 0 from URDF") \
  X(double, dof_frictionloss, m->nv, 1, "dry joint friction (N m or N): |f| <= frictionloss, a box " \
    "row of the rigid contact problem (contact.h; stage_joint_friction); MJCF joint frictionloss " \
    "on hinge, slide and ball joints, 0 from URDF") \
  X(double, jnt_stiffness, m->njnt, 1, "joint spring k: passive torque -k (q - springref), its potential " \
    "1/2 k (q - springref)^2 in the energy audit; ball joints -k log(q) and 1/2 k |log(q)|^2 (the " \
    "rest is the identity, as MuJoCo's qpos_spring); MJCF joint stiffness") \
  X(double, jnt_springref, m->njnt, 1, "spring rest position (MuJoCo's qpos_spring; MJCF springref; 0 for " \
    "ball joints)") \
  /* links (nlink): every URDF link of every robot */ \
  X(int, link_body, m->nlink, 1, "body the link is part of (0 when merged into the world)") \
  X(int, link_robot, m->nlink, 1, "") \
  X(double, link_pos, m->nlink, 3, "link frame in its body frame") \
  X(double, link_quat, m->nlink, 4, "") \
  X(double, link_mass, m->nlink, 1, "mass of the URDF link alone, kg") \
  X(char*, link_name, m->nlink, 1, "URDF link name") \
  /* geometries (ngeom) */ \
  X(int, geom_type, m->ngeom, 1, "model_geom_type") \
  X(int, geom_body, m->ngeom, 1, "") \
  X(int, geom_link, m->ngeom, 1, "link it came from (-1: ground)") \
  X(double, geom_pos, m->ngeom, 3, "frame in the body frame") \
  X(double, geom_quat, m->ngeom, 4, "") \
  X(double, geom_mat, m->ngeom, 9, "geom_quat as a rotation (row-major), for kin_forward") \
  X(double, geom_size, m->ngeom, 3, "per type, see model_geom_type") \
  X(double, geom_rbound, m->ngeom, 1, "radius of a bounding sphere about geom_pos (inf for planes)") \
  X(int, geom_mesh, m->ngeom, 1, "hull index (-1: not a mesh)") \
  X(int, geom_condim, m->ngeom, 1, "MJCF condim (1 frictionless, 3, 4 torsional, 6 rolling); " \
    "0: not an MJCF geom (URDF, the " \
    "scenario's ground): no contact parameters of its own (material.h)") \
  X(double, geom_friction, m->ngeom, 3, "MJCF friction: sliding (not used: mu comes from the " \
    "scenario), " \
    "torsional (m) and rolling (m) coefficients of condim 4 and 6 pairs (material.h)") \
  X(double, geom_solref, m->ngeom, 2, "MJCF solref (MuJoCo softness of the ccp model; condim > 0 only)") \
  X(double, geom_solimp, m->ngeom, 5, "MJCF solimp") \
  X(int, geom_contype, m->ngeom, 1, "MJCF contype (1 for URDF geoms and the scenario's ground): geoms i and j " \
    "may touch only when (contype_i & conaffinity_j) || (contype_j & conaffinity_i), MuJoCo's rule") \
  X(int, geom_conaffinity, m->ngeom, 1, "MJCF conaffinity (1 for URDF geoms and the ground)") \
  /* explicit geom pairs (npair): MJCF <contact><pair> */ \
  X(int, pair_geom, m->npair, 2, "the two geoms (of different bodies): collided whatever their " \
    "contype, conaffinity, parent filter and exclusions say, once (collision.h); sorted by " \
    "min * ngeom + max, no two alike (model_find_pair)") \
  X(int, pair_condim, m->npair, 1, "the pair's condim, in place of its geoms' (material.h)") \
  X(double, pair_friction, m->npair, 3, "sliding, torsional and rolling coefficients, in place " \
    "of its geoms' (material.h)") \
  X(double, pair_solref, m->npair, 2, "MuJoCo softness of the pair's contacts (ccp)") \
  X(double, pair_solimp, m->npair, 5, "") \
  /* meshes (nmesh) */ \
  X(mesh_hull, mesh, m->nmesh, 1, "") \
  /* robots (nrobot) */ \
  X(char*, robot_name, m->nrobot, 1, "") \
  X(int, robot_base, m->nrobot, 1, "model_base_type") \
  X(int, robot_bodyadr, m->nrobot, 1, "first body") \
  X(int, robot_nbody, m->nrobot, 1, "") \
  X(int, robot_qadr, m->nrobot, 1, "first q / v index and counts") \
  X(int, robot_nq, m->nrobot, 1, "") \
  X(int, robot_dofadr, m->nrobot, 1, "") \
  X(int, robot_nv, m->nrobot, 1, "") \
  X(int, robot_linkadr, m->nrobot, 1, "first link") \
  X(int, robot_nlink, m->nrobot, 1, "") \
  X(double, qpos0, m->nq, 1, "reference configuration: 0 for 1-dof joints, identity/origin pose for " \
    "free joints, identity for ball joints")

typedef struct sim_model {
  // sizes
  int nq;                   // configuration size
  int nv;                   // velocity size (dofs)
  int nbody;                // bodies including the world (body 0)
  int njnt;                 // moving joints = nbody - 1
  int nlink;                // URDF links of all robots
  int ngeom;                // collision geometries (incl. the ground plane)
  int nmesh;                // convex hulls
  int npair;                // explicit geom pairs (MJCF <contact><pair>)
  int nrobot;
  int maxdepth;             // largest number of dofs on a root-to-leaf path
  int nM;                   // entries of the tree-sparse mass matrix (d->qM, d->qLD): the sum
                            // over dofs of the dofs from it to its root (see dof_Madr)
  int* dof_Mcol;            // (nM) the column of each entry: row i's entries dof_Madr[i]... hold
                            // (i, i), (i, par(i)), ... and these are i, par(i), ...; the walks up a
                            // row read it instead of chasing dof_parent (each step's address
                            // waits on the last load); its own allocation, with nM

  double gravity[3];        // m/s^2

  int ngeom_skipped;        // collision meshes left out (unresolved or unreadable while
                            // require_meshes = 0)

  // height field (at most one, the ground; hfield_nx = 0 when none): see model_world_spec in
  // io/model_build.h
  int hfield_nx, hfield_ny;
  double hfield_size[2];    // extent x, y (m), centred on the geom's x, y
  double* hfield_data;      // heights above the geom's z, x fastest (hfield_nx x hfield_ny)

  // the arrays of MODEL_ARRAYS
#define MODEL_FIELD(type, name, rows, cols, desc) type* name;
  MODEL_ARRAYS(MODEL_FIELD)
#undef MODEL_FIELD

  void* buffer;             // one allocation holds the arrays above (names aside)
} sim_model;

// allocate every array of m (zeroed, one buffer) from its sizes (nq, nv, nbody, njnt, nlink,
// ngeom, nmesh, npair, nrobot), and set the world body's fields; for model compilers (io/model_build.c)
csim_status model_alloc(sim_model* m, csim_error* err);

// release the model (names, hulls, buffer, height field); NULL is a no-op
void model_free(sim_model* m);

// index of a joint / link / body by name ("link" or "robot/link" when names repeat), -1 if absent
// (a plain name found in several robots is ambiguous: -1)
int model_find_joint(const sim_model* m, const char* name);
int model_find_link(const sim_model* m, const char* name);

// the first geom with condim 4 or 6 (MJCF) that collides, or in an explicit pair of condim 4
// or 6, whose contacts carry spin entries (contact.h: torsional and rolling friction), -1 when
// none
int model_spin_geom(const sim_model* m);

// the largest condim geom g's contacts may have: its own, or an explicit pair's it is in
int model_geom_condim(const sim_model* m, int g);

// the explicit pair (pair_*) of geoms g1 and g2 in either order, -1 when they are none (a binary
// search: model compilers sort the pairs by their key min * ngeom + max)
int model_find_pair(const sim_model* m, int g1, int g2);
long model_pair_key(const sim_model* m, int k);

// apply the inertia fixes listed at the top of this file (model compilers apply them) to a rotational inertia about the com
// (row-major 3x3, any axes) of a body of the given mass; returns a bitmask of the fixes applied
// (MODEL_FIX_*; 0 when the inertia was already valid or mass <= 0)
#define MODEL_FIX_POINT_MASS 1
#define MODEL_FIX_NOT_PD 2
#define MODEL_FIX_TRIANGLE 4
int model_fix_inertia(double mass, double inertia[9]);

// 1 for joints with one q and one v (revolute, prismatic): the joints scenario `joints`, pd and
// trajectory actions, controllers and interval limits address
// dofs with dry joint friction (dof_frictionloss > 0): the rigid problem's friction rows
static inline int model_nfriction(const sim_model* m) {
  int n = 0;
  for (int i = 0; i < m->nv; i++) n += m->dof_frictionloss[i] > 0;
  return n;
}

static inline int model_jnt_1dof(const sim_model* m, int j) {
  return m->jnt_type[j] == MODEL_JOINT_REVOLUTE || m->jnt_type[j] == MODEL_JOINT_PRISMATIC;
}

// offset in q (from jnt_qadr) of joint j's unit quaternion [x y z w]: 3 (free), 0 (ball), -1
static inline int model_jnt_quat(const sim_model* m, int j) {
  return m->jnt_type[j] == MODEL_JOINT_FREE ? 3 : m->jnt_type[j] == MODEL_JOINT_BALL ? 0 : -1;
}

// total mass of robot r (all its bodies; for fixed bases the root link's merged mass included)
double model_robot_mass(const sim_model* m, int r);

#endif  // CSIM_MODEL_H
