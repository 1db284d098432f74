// urdf.h — in-house URDF reader: XML text -> a plain description of links, joints, inertials
// and collision geometries, in URDF's own terms (no kinematic tree processing, no dynamics).
//
// What it owns: the URDF subset real robots use (see ../shared/data/robots/README.md): <robot>
// with top-level <link> and <joint>; <inertial> (origin xyz/rpy, mass, inertia), <collision>
// (origin, geometry box/sphere/cylinder/capsule/mesh with scale); joint types revolute,
// continuous, prismatic, fixed, floating, planar; origin, axis (normalised; a zero axis is allowed
// on fixed joints), <limit> (several <limit> elements merge attribute by attribute), <mimic>.
// Everything else (<visual>, <gazebo>, <transmission>, <material>, drake:*, <contact>...) is
// skipped. Mesh URIs (package://, package:///, file://, relative) are resolved through a search
// path; an unresolved mesh is recorded, not an error (csim info lists it; model_create refuses it).
//
// Physical checks: each link's inertial is checked (mass < 0 is an error; non-positive-definite
// inertia, principal-moment triangle violations, mass > 0 with zero inertia are recorded as
// urdf_issue entries with the fix applied by model_create). Structural errors (no links, two
// roots, cycles, unknown parent/child, duplicate names, a link with two parents, bad numbers,
// malformed XML) are CSIM_ERR_INPUT errors naming file:line and the element.
#ifndef CSIM_URDF_H
#define CSIM_URDF_H

#include "core/error.h"

typedef enum {
  URDF_GEOM_BOX = 0,     // size = full extents x, y, z
  URDF_GEOM_SPHERE,      // size[0] = radius
  URDF_GEOM_CYLINDER,    // size[0] = radius, size[1] = length (along local z)
  URDF_GEOM_CAPSULE,     // size[0] = radius, size[1] = length of the cylinder part (local z)
  URDF_GEOM_MESH,        // filename/path/scale
  URDF_GEOM_PLANE,       // MJCF only: normal +z of the geom frame; size as written (unused)
  URDF_GEOM_ELLIPSOID,   // MJCF only: size = radii x, y, z
  URDF_NGEOM_TYPES
} urdf_geom_type;

extern const char* const urdf_geom_type_names[URDF_NGEOM_TYPES];  // "box", "sphere", ...

typedef struct {
  urdf_geom_type type;
  double xyz[3], rpy[3];  // <origin> in the link frame
  double size[3];         // per type, see urdf_geom_type
  char* uri;              // mesh: filename attribute as written (NULL otherwise)
  char* path;             // mesh: resolved file path, NULL when not found
  double scale[3];        // mesh scale (1 1 1 by default; may be negative: mirrored mesh)
  int line;               // line of the <collision> element
  int column;             // its column
  // MJCF only (io/mjcf.h; zero from the URDF reader): orientation as a quaternion, contact
  // parameters as written (recorded; those csim cannot use yet are listed in urdf_robot's
  // unsupported entries by the reader)
  int use_quat;           // 1: quat [x y z w] is the orientation (rpy unused)
  double quat[4];
  char* name;             // geom name (NULL when unnamed)
  int nocollide;          // 1: contype = conaffinity = 0, the geom collides with nothing
  int contype, conaffinity, condim;
  double friction[3];     // sliding, torsional, rolling
  double solref[2], solimp[5], margin, gap;
  int paired;             // named by a <contact><pair>: kept even when it collides with nothing
} urdf_geom;

// one MJCF <contact><pair>: two geoms (link index, geom index in that link's list) and the
// contact parameters MuJoCo gives their contacts instead of mixing the geoms' (io/mjcf.h)
typedef struct {
  int link[2], geom[2];
  int condim;
  double friction[3];     // sliding, torsional, rolling (MuJoCo's five, isotropic)
  double solref[2], solimp[5];
  int line, column;       // the <pair> element
} urdf_pair;

typedef struct {
  char* name;
  int line, column;       // position of the <link> element
  int has_inertial;       // 0: no <inertial> element (mass 0, zero inertia)
  double mass;
  double com_xyz[3];      // <inertial><origin xyz>
  double com_rpy[3];      // <inertial><origin rpy>: orientation of the inertia frame
  double inertia[6];      // ixx ixy ixz iyy iyz izz, in the inertia frame
  int ngeom;
  urdf_geom* geoms;       // collision geometries
  int frame;              // MJCF only: 1 for a massless frame link of a body's joint chain (not
                          // an MJCF body; MuJoCo's parent filter looks through it)
} urdf_link;

typedef enum {
  URDF_JOINT_REVOLUTE = 0,
  URDF_JOINT_CONTINUOUS,
  URDF_JOINT_PRISMATIC,
  URDF_JOINT_FIXED,
  URDF_JOINT_FLOATING,
  URDF_JOINT_PLANAR,
  URDF_JOINT_BALL,          // MJCF only: a spherical joint (model.h MODEL_JOINT_BALL)
  URDF_NJOINT_TYPES
} urdf_joint_type;

extern const char* const urdf_joint_type_names[URDF_NJOINT_TYPES];  // "revolute", ...

typedef struct {
  char* name;
  int line, column;         // position of the <joint> element
  urdf_joint_type type;
  int parent, child;        // link indices
  double xyz[3], rpy[3];    // <origin>: child (joint) frame in the parent link frame
  double axis[3];           // unit axis in the joint frame (default 1 0 0; 0 0 0 on fixed joints)
  int has_limit;            // a <limit> element was present
  int has_position_limit;   // lower/upper given (revolute/prismatic)
  double lower, upper, effort, velocity;
  int mimic;                // index of the mimicked joint, -1 when none
  double mimic_multiplier, mimic_offset;
  // MJCF only (zero from the URDF reader): origin orientation as a quaternion, and the joint's
  // passive properties as written (armature enters M's diagonal; the others are recorded and
  // refused through urdf_robot's unsupported entries). damping and frictionloss also come from
  // a URDF's <dynamics damping friction> (whether a run applies them: the scenario's
  // robots.N.joint_dynamics)
  int use_quat;             // 1: quat [x y z w] is the origin's orientation (rpy unused)
  double quat[4];
  double damping, stiffness, springref, armature, frictionloss, ref;
  // MJCF free joint (top level): q is the body's pose in the world, as MuJoCo's qpos, and the
  // origin above (the body's pos and quat) is its reference configuration qpos0 instead of the
  // joint's placement (model_build.c)
  int world_pose;
  double solreflimit[2], solimplimit[5];   // MuJoCo's soft limit (0 0 from the URDF reader)
} urdf_joint;

typedef enum {
  URDF_ISSUE_INERTIA_NOT_PD = 0,      // mass > 0, inertia has a non-positive principal moment
  URDF_ISSUE_INERTIA_TRIANGLE,        // principal moments break I_a <= I_b + I_c
  URDF_ISSUE_POINT_MASS,              // mass > 0 with an all-zero inertia
  URDF_ISSUE_MASSLESS_MOVING,         // a moving joint's child subtree has no mass at all
  URDF_ISSUE_MESH_UNRESOLVED,         // a collision mesh URI could not be found
  URDF_ISSUE_MESH_FORMAT,             // a collision mesh in a format csim cannot read (.dae, .obj...)
  URDF_ISSUE_OTHER,
  URDF_NISSUE_KINDS
} urdf_issue_kind;

typedef struct {
  urdf_issue_kind kind;
  int link;                 // link index, -1 when not about a link
  int line;
  char msg[256];            // what was found and what csim does about it
} urdf_issue;

// an element or attribute the file uses that csim reads but cannot simulate yet (MJCF: armature,
// joint springs, actuators, ...): model_create refuses a robot that has any, naming the first
typedef struct {
  char* file;               // file it is in (an included file's own name)
  int line, column;
  char element[64];         // element name ("joint", "motor", ...)
  char msg[256];            // what it is: "joint 'knee': armature 0.01"
} urdf_unsupported;

// one MJCF <keyframe><key>: its qpos and qvel as written, in MuJoCo's layout (quaternions
// [w x y z]); robots.N.keyframe starts a run from it (io/compile.c)
typedef struct {
  char* name;               // NULL when unnamed
  char* file;               // file it is in
  int line, column;
  double* qpos;             // (nqpos) NULL: not given (the reference configuration)
  int nqpos;
  double* qvel;             // (nqvel) NULL: not given (zero)
  int nqvel;
  char ignored[64];         // what csim does not take of it ("time ctrl", ...), "" when nothing
} urdf_key;

typedef struct {
  char* name;               // <robot name>
  char* file;               // path read
  int nlink, njoint;
  urdf_link* links;
  urdf_joint* joints;
  int root;                 // index of the root link (the one link that is no joint's child)
  int* link_parent_joint;   // (nlink) joint whose child is the link, -1 for the root
  int nissue;
  urdf_issue* issues;
  // MJCF only (io/mjcf.h; zero from the URDF reader)
  int world_root;           // 1: the root link is the file's world body: its geoms are world
                            // geometry (geom_link -1) and the robot must be placed as a fixed base
  int has_timestep, has_gravity;   // <option timestep/gravity> given
  double timestep, gravity[3];
  int nexclude;             // <contact><exclude>: link index pairs (2 x nexclude)
  int* exclude;
  int npair;                // <contact><pair>: explicit geom pairs
  urdf_pair* pairs;
  int nactuator;            // actuators read (refused for now: listed in unsupported)
  int nvisual;              // purely visual elements skipped (lights, cameras, materials, ...)
  int nunsupported;
  urdf_unsupported* unsupported;
  int nkey;                 // <keyframe> keys in document order
  urdf_key* keys;
} urdf_robot;

// Options of urdf_load.
typedef struct {
  // directories searched for package://PKG/rest URIs: each dir is tried as the root that holds
  // PKG/rest, and as the package root itself (dir/rest); NULL-terminated, may be NULL.
  const char* const* package_paths;
  // also read the colon-separated environment variable CSIM_PACKAGE_PATH (default 1)
  int use_env;
} urdf_options;

// default options: no package paths, use_env = 1
urdf_options urdf_default_options(void);

// read and check a URDF file; on success *out owns everything (free with urdf_free)
csim_status urdf_load(const char* path, const urdf_options* opt, urdf_robot** out, csim_error* err);

// same, from a string; `name` is used as the file name in messages and relative URIs resolve
// from `basedir` (may be NULL: the current directory)
csim_status urdf_load_string(const char* text, const char* name, const char* basedir,
                             const urdf_options* opt, urdf_robot** out, csim_error* err);

void urdf_free(urdf_robot* r);

// index of a link / joint by name, -1 when absent
int urdf_find_link(const urdf_robot* r, const char* name);
int urdf_find_joint(const urdf_robot* r, const char* name);

#endif  // CSIM_URDF_H
