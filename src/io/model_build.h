// model_build.h — the compiler from URDF robots (io/urdf.h) to the simulation model
// (core/model.h). MJCF files (io/mjcf.h) arrive in the same description: their world body's
// geoms become world geometry (geom_link -1, planes included), contype = conaffinity = 0 geoms
// are left out of collision, joint armature goes to dof_armature, and a robot whose reader
// recorded unsupported features is refused naming the first ("not supported yet (issue 25)").
//
// Two passes: each URDF tree is walked depth-first to decide which links form which body (fixed
// joints merge a link into its parent's body), where each link sits in its body frame, and which
// collision hulls to load (io/mesh_io.h); then the model's buffer is sized exactly (model_alloc)
// and every array filled: bodies, joints, dofs, links, inertias (with core/model.h's fixes),
// geoms. The model keeps copies of what it needs (names, limits, hulls); it holds no pointer into
// the URDF, which the caller may free once model_create returns.
#ifndef CSIM_MODEL_BUILD_H
#define CSIM_MODEL_BUILD_H

#include "core/error.h"
#include "core/model.h"
#include "io/urdf.h"

// How one robot enters the model.
typedef struct {
  const urdf_robot* urdf;
  const char* name;         // robot name for messages and outputs (NULL: the URDF's)
  model_base_type base;
  double base_pos[3];       // fixed base: root link pose in the world (free base: ignored)
  double base_quat[4];      // [x y z w]
  int require_meshes;       // 1: an unresolved/unreadable collision mesh is an error
} model_robot_spec;

typedef struct {
  double gravity[3];        // world gravity, m/s^2
  int ground;               // 1: add a ground plane geom to the world; 2: a height field
  double ground_height;     // z of the ground plane (height field: of its zero height), m
  // height field (ground == 2): a grid of hf_nx x hf_ny heights over [-sx/2, sx/2] x [-sy/2, sy/2]
  int hf_nx, hf_ny;         // vertices along x and y (>= 2 each)
  double hf_size[2];        // extent sx, sy (m, > 0)
  const double* hf_height;  // heights above ground_height, row-major, x fastest: h[iy*nx + ix]
                            // (copied; finite)
} model_world_spec;

// build the model; on failure *out is NULL and err says which robot, link or mesh is at fault
csim_status model_create(const model_world_spec* world, const model_robot_spec* robots,
                         int nrobot, sim_model** out, csim_error* err);

#endif  // CSIM_MODEL_BUILD_H
