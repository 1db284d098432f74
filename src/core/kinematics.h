// kinematics.h — forward kinematics, body velocities and Jacobians along one chain.
//
// Reads d->q (and d->v for velocities); writes world poses of bodies, links and geoms into d.
// Jacobians are formed only along the chain from a body to the root (DESIGN.md "Speed by
// construction"): a chain is the ascending list of dofs that move the body.
#ifndef CSIM_KINEMATICS_H
#define CSIM_KINEMATICS_H

#include "core/data.h"
#include "core/model.h"
#include "core/spatial.h"

// body, link and geom world poses from d->q: d->xpos, d->xmat, d->geom_xpos, d->geom_xmat; the
// dofs' motion subspaces d->cdof (body frames) and d->cdofw (world frame)
void kin_forward(const sim_model* m, sim_data* d);

// a motion vector mp (linear, angular) of body b's parent in b's frame: X mp = (R'(mp_lin +
// mp_ang x p), R' mp_ang), (R, p) b's pose in its parent (d->xloc_*): the velocity and
// acceleration transform of kin_velocity and the RNEA (dynamics.c)
static inline void kin_motion_to_body(const sim_data* d, int b, const double mp[6],
                                      double out[6]) {
  const double* R = d->xloc_mat + 9 * b;
  double t[3];
  sp_cross3(t, mp + 3, d->xloc_pos + 3 * b);
  sp_add3(t, t, mp);
  sp_mulmtv3(out, R, t);
  sp_mulmtv3(out + 3, R, mp + 3);
}

// body spatial velocities from d->q, d->v (after kin_forward): d->cvel in body frames
void kin_velocity(const sim_model* m, sim_data* d);

// dofs that move `body`, ascending; returns their number (at most m->maxdepth)
int kin_chain(const sim_model* m, int body, int* dofs);

// Jacobian of a point attached to `body` (world coordinates), restricted to the body's chain:
//   jacp (3 x n) maps v[dofs] to the point's world linear velocity; jacr (3 x n) to the body's
//   world angular velocity (either may be NULL); dofs receives the chain; returns n.
int kin_jac_point(const sim_model* m, const sim_data* d, int body, const double point[3],
                  int* dofs, double* jacp, double* jacr);

// configuration integration on the manifold: q_out = q ⊕ v*dt (free joints: the com on a
// straight line, the orientation through the SO(3) exponential map, 000 eq. 4 / 004; ball
// joints through the same map; 1-dof joints by addition); q_out may alias q
void kin_integrate(const sim_model* m, const double* q, const double* v, double dt, double* q_out);

// rotation vector log(q) of ball joint j at configuration q (body axes, |x| <= pi): the spring's
// deflection and the cone limit's angle and axis
void kin_ball_rotation(const sim_model* m, const double* q, int j, double x[3]);

// v = q1 ⊖ q0 per unit time (the inverse of kin_integrate with dt = 1)
void kin_difference(const sim_model* m, const double* q0, const double* q1, double* v);

#endif  // CSIM_KINEMATICS_H
