// dynamics.h — rigid-body dynamics on the tree: RNEA bias forces, CRBA mass matrix, the
// tree-sparse L'DL factorization of M (Featherstone, RBDA ch. 6) and solves through it.
//
// M is stored tree-sparse (MuJoCo's layout): only the entries (i, j) with j = i or an ancestor
// dof of i are nonzero, and row i holds them contiguously from m->dof_Madr[i], diagonal first,
// then the ancestors nearest first (m->nM doubles in all). CRBA costs O(nv * depth), the
// factorization O(nv * depth^2) and each solve O(nv * depth); no nv x nv storage or work.
// Factorization: M = L' D L with L unit lower triangular and the same sparsity as M (no fill-in
// because dof_parent[i] < i), stored in d->qLD in M's layout (each row's first slot holds D(i),
// the others L(i, j)) and D also in d->qLDiag.
#ifndef CSIM_DYNAMICS_H
#define CSIM_DYNAMICS_H

#include "core/data.h"
#include "core/model.h"

// tau = M(q) qacc + b(q, v) - J'f_ext by RNEA at v = d->v (needs kin_forward);
// qacc may be NULL (zero); f_ext: per-body external spatial force [force; torque] at the body
// origin in world axes (nbody x 6) or NULL
void dyn_rnea(const sim_model* m, sim_data* d, const double* qacc, const double* fext,
              double* tau);

// the same at any velocity v (d->v and d->cvel are not read) with gravity on or off:
// tau = M qacc + C(q, v) v + [gravity] g(q) - J'f_ext (needs kin_forward); d->rvel receives
// the body velocities of v. The integrator evaluates velocity products at a trial velocity.
void dyn_rnea_full(const sim_model* m, sim_data* d, const double* v, const double* qacc,
                   const double* fext, int gravity, double* tau);

// the velocity products C(q, v) v alone (qacc 0, no gravity, no f_ext: dyn_rnea_full's
// arithmetic) on the bodies whose tree is on (tree_on[body_tree[b]], body_tree[b] the body's
// tree, b >= 1); the other trees' tau, rvel and forces are not touched.
// The implicit midpoint iterates each tree until its own velocity settles. Bodies below a tree's
// root work in the tree's frame from d->cinertt and d->cdoft: call after dyn_crba at this q
void dyn_rnea_vp(const sim_model* m, sim_data* d, const double* v, const int* body_tree,
                 const int* tree_on, double* tau);

// the same at rest (v = 0, qacc = 0): tau = [gravity] g(q) - J'f_ext, as dyn_rnea_full with a
// zero v gives it (up to the sign of exact zeros) without the velocity terms; d->rvel is not
// touched. The step's position-dependent forces (gravity, applied wrenches) come from here
void dyn_rnea_rest(const sim_model* m, sim_data* d, const double* fext, int gravity, double* tau);

// d->qfrc_bias = b(q, v): Coriolis, centrifugal and gravity forces (RNEA with qacc = 0)
void dyn_bias(const sim_model* m, sim_data* d);

// d->qM = M(q) by the composite-rigid-body algorithm (the tree entries, layout above), and with
// it d->qfrc_grav = g(q) (gravity's generalized force, dyn_rnea_rest's without f_ext) and the
// tree-frame d->crb, d->cinertt, d->cdoft that dyn_rnea_vp reads (after kin_forward at this q)
void dyn_crba(const sim_model* m, sim_data* d);

// factor d->qM into d->qLD, d->qLDiag, d->qLDiagSqrtInv (tree-sparse L'DL)
void dyn_factor(const sim_model* m, sim_data* d);

// dense copies for tests and diagnostics (nv x nv, row-major, entries off the tree 0):
// M from d->qM, symmetric; the factor from d->qLD, L(i, j) below the diagonal and D on it
void dyn_mass_dense(const sim_model* m, const sim_data* d, double* M);
void dyn_factor_dense(const sim_model* m, const sim_data* d, double* L);

// solve M x = b in place for n right-hand sides stored as rows of x (n x nv)
void dyn_solve(const sim_model* m, const sim_data* d, double* x, int n);
// x <- M^-1 x on the dofs of the trees on (M is block diagonal by tree): tree t's dofs are
// tree_dof[t] .. tree_dof[t + 1] - 1 (ntree trees, each a contiguous range)
void dyn_solve_trees(const sim_model* m, const sim_data* d, double* x, int ntree,
                     const int* tree_dof, const int* tree_on);

// half solve for G = J M^-1 J' = Y'Y: y = D^-1/2 L^-T x in place (n rows of length nv)
void dyn_solve_half(const sim_model* m, const sim_data* d, double* x, int n);

// y = M x using the tree entries of d->qM
void dyn_mulM(const sim_model* m, const sim_data* d, const double* x, double* y);

// kinetic energy 1/2 v'Mv (needs dyn_crba) and potential energy -sum m_i g.c_i (needs kin_forward)
double dyn_kinetic(const sim_model* m, const sim_data* d);
double dyn_potential(const sim_model* m, const sim_data* d);
// the same over bodies b0..b1-1 (a robot's): gravity, and the joint springs 1/2 k (q - springref)^2
// of their joints (dyn_potential includes them too: the energy audit counts the springs)
double dyn_potential_bodies(const sim_model* m, const sim_data* d, int b0, int b1);

// passive joint forces at d->q, d->v into qfrc (nv, every entry written): springs
// -k (q - springref) and dampers -D v (model.h jnt_stiffness, dof_damping); returns the number of
// spring and damper terms (0: qfrc is all zero)
int dyn_passive(const sim_model* m, const sim_data* d, double* qfrc);

#endif  // CSIM_DYNAMICS_H
