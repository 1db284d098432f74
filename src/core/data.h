// data.h — everything a step writes (MuJoCo's mjData), sized once from the model.
//
// sim_data is created by data_create from a sim_model and never resized: the step loop does not
// allocate. Scratch space for per-step temporaries comes from the arena (data_stack_*), a LIFO
// region inside the same allocation whose high-water mark is recorded.
#ifndef CSIM_DATA_H
#define CSIM_DATA_H

#include <stddef.h>

#include "core/error.h"
#include "core/model.h"

// Every array of sim_data, declared once: X(name, rows, cols, description). rows is a size of
// the model m (m->nq, m->nv, m->nbody, m->ngeom, m->nM); the struct's fields, data_create's
// placement in one buffer and data_bytes are generated from this list (MuJoCo's mjxmacro.h).
#define DATA_ARRAYS(X) \
  /* state */ \
  X(q, m->nq, 1, "configuration") \
  X(v, m->nv, 1, "velocity") \
  /* inputs */ \
  X(qfrc_applied, m->nv, 1, "generalized forces from actions") \
  X(xfrc_applied, m->nbody, 6, "external spatial force per body at its origin, world axes, " \
    "[force; torque]") \
  /* kinematics (kin_forward, kin_velocity) */ \
  X(xpos, m->nbody, 3, "body frame origin in the world") \
  X(xmat, m->nbody, 9, "body frame rotation in the world, row-major") \
  X(xcom, m->nbody, 3, "body centre of mass in the world") \
  X(geom_xpos, m->ngeom, 3, "geom frame origin in the world") \
  X(geom_xmat, m->ngeom, 9, "geom frame rotation in the world") \
  X(cvel, m->nbody, 6, "body spatial velocity [lin; ang] in body frame (kin_velocity; in the " \
    "step only stage_control computes it, for the controllers: stale in a run without them)") \
  X(cdof, m->nv, 6, "motion subspace S of each dof in its body frame at q, [lin; ang]: " \
    "m->dof_motion for 1-dof joints; for free joints it depends on the orientation (model.h: " \
    "linear dofs move the com along fixed axes of the joint's parent frame)") \
  X(cdofw, m->nv, 6, "the same in the world frame, [R S_lin; R S_ang] with R the dof's body " \
    "rotation (kin_forward: point Jacobians)") \
  X(cdoft, m->nv, 6, "the same in its tree's frame, world axes at the origin of the tree's root " \
    "body (dyn_crba; only the dofs of trees of more than one body)") \
  X(xloc_pos, m->nbody, 3, "body frame origin in its parent body frame at q") \
  X(xloc_mat, m->nbody, 9, "body frame rotation in its parent body frame") \
  /* dynamics (dyn_*) */ \
  X(qM, m->nM, 1, "mass matrix, tree-sparse: row i at m->dof_Madr[i] holds M(i,i), " \
    "M(i,par(i)), ... up to the root (model.h; dyn_mass_dense gives the dense matrix)") \
  X(qLD, m->nM, 1, "M = L'DL in the same layout: each row's first slot holds D(i), the " \
    "others L(i,j) (dyn_factor_dense)") \
  X(qLDiag, m->nv, 1, "D") \
  X(qLDiagSqrtInv, m->nv, 1, "D^-1/2") \
  X(qfrc_bias, m->nv, 1, "b(q, v)") \
  X(cacc, m->nbody, 6, "RNEA body spatial accelerations, body frame (dyn_rnea_vp as rvel)") \
  X(rvel, m->nbody, 6, "RNEA body velocities for the v it was given (body frame; dyn_rnea_vp: " \
    "a body below a root in its tree's frame)") \
  X(cfrc, m->nbody, 6, "RNEA body spatial forces [f; n], body frame (dyn_rnea_vp as rvel)") \
  X(qfrc_grav, m->nv, 1, "g(q), gravity's generalized force as RNEA at rest gives it (dyn_crba: " \
    "S_i' Ic_i a_0 = (Ic_i S_i)' a_0 from each row's force)") \
  X(cinertt, m->nbody, 10, "a body's own inertia in its tree's frame (crb's layout; dyn_crba, " \
    "bodies below a root: dyn_rnea_vp)") \
  X(crb, m->nbody, 10, "CRBA composite inertia, a tree's root body in its body frame, the other " \
    "bodies in their tree's frame (cdoft's): mass, first moment m*c (3), second moment about " \
    "the frame's origin xx yy zz xy xz yz")

typedef struct sim_data {
  double time;              // s

  // the arrays of DATA_ARRAYS, each rows x cols doubles
#define DATA_FIELD(name, rows, cols, desc) double* name;
  DATA_ARRAYS(DATA_FIELD)
#undef DATA_FIELD

  // arena for per-step scratch (LIFO)
  size_t arena_size;        // bytes
  size_t arena_top;         // bytes in use
  size_t arena_peak;        // high-water mark
  unsigned char* arena;

  void* buffer;             // one allocation holds the arrays above
} sim_data;

// create data for model m with `arena_bytes` of scratch (0: data_arena_default(m));
// q = m->qpos0, v = 0. Everything is O(nv + nM + nbody + ngeom): no nv x nv storage
csim_status data_create(const sim_model* m, size_t arena_bytes, sim_data** out, csim_error* err);

// the default arena: room for the most the step's users of the arena hold at once (contact.c:
// contact_build's chain Jacobian scratch, contact_apply's nv-vector), with their alignment
size_t data_arena_default(const sim_model* m);

// bytes data_create(m, arena_bytes, ...) asks the allocator for (the sim_data struct and its
// one buffer): what contact.memory_budget counts for the data (sim.h)
size_t data_bytes(const sim_model* m, size_t arena_bytes);

void data_free(sim_data* d);

// reset the state to q = m->qpos0, v = 0, time = 0, inputs cleared
void data_reset(const sim_model* m, sim_data* d);

// arena: mark, allocate (aligned to 64 bytes, zeroed), release back to a mark.
// An allocation that does not fit returns NULL (callers treat it as a run error).
size_t data_stack_mark(const sim_data* d);
void* data_stack_alloc(sim_data* d, size_t bytes);
void data_stack_free(sim_data* d, size_t mark);

#endif  // CSIM_DATA_H
