// mjcf.h — in-house reader of MuJoCo's MJCF (MuJoCo 2.2.2 semantics) on csim's XML parser
// (io/xml.h), into the plain robot description the URDF reader makes (io/urdf.h), so that one
// model compiler (io/model_build.h) serves both.
//
// The file's world body is the description's root link (world_root = 1: its geoms are world
// geometry, the robot is placed as a fixed base). Each <body> is a link whose frame is the body
// frame; its joints become a chain of URDF-style joints through massless frame links named
// "<body>/<joint>" (a hinge or slide turns its child frame about / along its axis through its
// `pos`, as MuJoCo's joints of one body compose in order); a body without joints is welded by a
// fixed joint, <freejoint> (or type free) is a floating joint. Inertials come from <inertial>
// or, per <compiler inertiafromgeom>, from the geoms: volume x density (1000 by default, or the
// geom's mass) with each shape's closed-form inertia, capsules with their hemispheres, summed
// about the body's centre of mass (MuJoCo's rule, so masses match mj_setConst's).
//
// Read: <include> (file relative to the including file; a cycle or a missing file is an error),
// <compiler> (angle, eulerseq, coordinate local only, inertiafromgeom, meshdir, ...), <option>
// (timestep, gravity; the solver options are not used), <default> classes with inheritance and
// childclass, <body> frames (pos with quat, euler, axisangle, xyaxes or zaxis), <inertial>,
// <joint>/<freejoint>, <geom> (plane on the world, sphere, capsule, cylinder, box, ellipsoid,
// mesh; fromto; contype/conaffinity; friction; condim; solref/solimp/margin/gap), <asset><mesh>
// (STL or OBJ, a convex hull for collision), <contact><exclude>, <actuator>.
//
// Ball joints (type="ball", in defaults too) are spherical joints (model.h MODEL_JOINT_BALL: a
// quaternion, the angular velocity in body axes); a limited one's range is MuJoCo's cone limit
// "0 angle" (range[0] must be 0), its stiffness pulls towards the identity (springref does not
// apply, as in MuJoCo), damping and armature act per dof.
// Joint armature goes onto the mass matrix's diagonal (model dof_armature); joint stiffness
// with springref (degrees on hinges when angle="degree", as MuJoCo's) and damping become the
// model's passive springs and dampers (jnt_stiffness, jnt_springref, dof_damping). What csim cannot
// Geom condim 1 makes its pairs frictionless (the pair's condim is the larger, as MuJoCo's);
// condim 4 adds torsional friction, 6 torsional and rolling (friction[1], friction[2]; contact.h's
// spin entries, pgs, admm and auto under ncp and ccp: io/compile.c refuses the others naming the
// geom);
// geom solref/solimp give the ccp model MuJoCo's softness per pair, joint solreflimit/solimplimit
// its soft limits (material.h); other models keep hard limits. What csim cannot
// simulate yet (joint ref and margin,
// per-geom margin/gap/priority/solmix, actuators
// other than motors, mesh inertia) is recorded in urdf_robot.unsupported with its
// file:line:column, and model_create refuses the robot naming the first one ("not supported
// yet (issue 25)"). Out-of-scope elements (tendon, equality, sensor, keyframe, composite,
// plugin/extension, explicit contact pairs, ...) are errors naming the element and its line;
// purely visual ones (light, camera, texture, material, skin, visual, statistic, site, ...) are
// skipped and counted (nvisual) for one summary note.
#ifndef CSIM_MJCF_H
#define CSIM_MJCF_H

#include <stddef.h>

#include "core/error.h"
#include "io/urdf.h"

// one file of a memory image: includes are looked up here instead of on disk
typedef struct {
  const char* name;   // as written in <include file=...>
  const char* text;   // NUL-terminated
} mjcf_file;

typedef struct {
  // when non-NULL, <include> files are taken from these nfiles entries only (the disk is never
  // read for them): the fuzz target and the tests use this
  const mjcf_file* files;
  int nfiles;
} mjcf_options;

// read an MJCF file; on success *out owns everything (free with urdf_free)
csim_status mjcf_load(const char* path, const mjcf_options* opt, urdf_robot** out,
                      csim_error* err);

// same, from a string; `name` is used in messages, relative files resolve from `basedir`
// (NULL: the current directory)
csim_status mjcf_load_string(const char* text, const char* name, const char* basedir,
                             const mjcf_options* opt, urdf_robot** out, csim_error* err);

// 1 when the file at path looks like MJCF (its extension is .xml or .mjcf), 0 otherwise
int mjcf_is_mjcf_path(const char* path);

#endif  // CSIM_MJCF_H
