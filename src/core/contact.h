// contact.h — the rigid contact problem of one step (000 eqs. 5-14): contact frames, Jacobians
// along each contact's chains, the Delassus matrix G through the tree-sparse factor of M, the
// free contact velocity g with Baumgarte and restitution targets, warm starts by contact id, and
// the impulse's effect on the velocities.
//
// Contact frame rows are [t1 t2 n]: n is the collision normal (from geom1 into geom2, so from
// the environment into the body when geom1 is the ground), t1 and t2 complete a right-handed
// frame chosen deterministically from n. The contact velocity is that of geom2's body relative
// to geom1's body at the contact point; an impulse lambda pushes geom2's body along +lambda and
// geom1's body along -lambda.
//
// G = J M^-1 J' = Y Y' with Y = D^-1/2 L^-T J' (dyn_solve_half); J is formed only on the dofs of
// the two bodies' chains, Y likewise (L^-T keeps an ancestor-closed support: no dense n-vector),
// and G is block-sparse (solver.h): a 3x3 block (i, j) only when contacts i and j share a dof,
// which for ancestor-closed chains is exactly when they share a tree root dof (a dof shared
// implies all its ancestors are). Contacts are bucketed by the root dofs of their chains
// (at most two: the world and fixed bases touch none), so the pattern costs O(blocks); each block
// sums Y_i Y_j' over the dofs both chains share (solver_yblock). Islands are the connected
// components of that pattern: trees and free bodies linked through contacts (the world links
// nothing). A solver that works on Y (contact_options.diag_only) gets the diagonal blocks only:
// a chain lying on the ground has O(nc^2) blocks of O(nv) each, the step's largest cost.
//
// Memory: at most min(maxcon^2, maxcon + sum over trees r of min(n_r, maxcon)^2) blocks, n_r the
// contacts collision can make on tree r (every geom pair's most contacts, an upper bound that
// ignores collision filters) plus both limits of each joint of r and its dry friction rows
// (contact_max_blocks).
//
// Joint limits (stage.h) enter the same problem after the contacts, so the same solvers and the
// same eps metrics cover them: entry i is a limit when con[i].geom1 < 0, with con[i].geom2 the
// joint, con[i].feature the side (0 lower, 1 upper) and con[i].depth = -gap (> 0 beyond the
// limit). It is a frictionless contact (mu = 0) on the joint's dof: normal row +1 at the lower
// limit, -1 at the upper, so lambda_N >= 0 pushes the joint back inside its range. A ball
// joint's cone limit (side 1, depth = angle - range[1]) has the row -axis on its three dofs, the
// rotation's axis in body axes held in con[i].normal (MuJoCo's row), and closes its penetration
// within the step (contact.c build_rhs). Its two
// tangent rows are inert: J_t = 0, G_tt = G_nn (so every 3x3 diagonal block stays invertible),
// no coupling to any other row, g_t = 0; with mu = 0 every solver gives lambda_t = 0 there.
//
// Dry joint friction (model.h dof_frictionloss, MuJoCo's frictionloss: mj_instantiateFriction's
// one row per dof, |f| <= frictionloss) enters the same tail, after the limits
// (stage_joint_friction): entry i is a friction row when con[i].geom1 == CONTACT_JOINT_FRICTION,
// con[i].geom2 the joint, con[i].feature 2 + the dof's index within the joint. Its row t1 is +1
// on the dof; t2 and n are inert (zero Jacobian, G_t2t2 = G_nn = G_t1t1 in ydiag). The box
// |lambda_t1| <= b, b = frictionloss h (an impulse over the step), is written as a contact of
// mu = 1 whose normal impulse is pinned at b: g_N = -G_nn b, so the normal row's own
// complementarity (c_N = G_nn (lambda_N - b) >= 0, lambda_N c_N = 0) gives lambda_N = b exactly
// and the disc |lambda_t| <= mu lambda_N is the box. The pinned normal is a bookkeeping variable
// (J_n = 0: it moves nothing). So every NCP solver takes the row unchanged, and 000 eq. 14's
// residuals on it are the box's own: eps_p its bound, eps_d 0, eps_c = |lambda c + b |c|| (maximum
// dissipation: the friction opposes the dof's velocity at the bound, or the dof sticks). The CCP
// (no de Saxce term) would lift lambda_N with the slip (c_N = |c_t|), so solver_problem.box marks
// these entries and the ccp solvers project them as boxes (solver.h).
//
// Torsional and rolling friction (MJCF condim 4 and 6, MuJoCo's elliptic cone): a contact i whose
// pair has condim 4 or 6 (mat_pair_condim) gets a spin entry j in the tail, after the dry
// friction rows (stage_spin; counted in nlimit and nspin, not among the contacts recorded):
// con[j] = con[i] with geom1 = CONTACT_SPIN - geom1, link[i] = j, link[j] = -2 - i. Its rows are
// the relative angular velocity of geom2's body about n (torsion), t1 and t2 (rolling; condim 4:
// zero rows, inert like a limit's tangents), its mu the pair's torsional coefficient and
// mu_roll the rolling one (mat_pair_spin, m: a moment per unit normal force). The pair's
// impulse (t1 t2 n | s r1 r2) lies in the generalized cone of cone.h, ||(f_k / a_k)|| <= f_N,
// a = (mu, mu, mu_spin, mu_roll, mu_roll); solver_problem.link carries it to the solvers
// (pgs, admm and auto under ncp and ccp, newton under ccp take it; io/compile.c refuses the
// others at load).
#ifndef CSIM_CONTACT_H
#define CSIM_CONTACT_H

#include "core/collision/collision.h"
#include "core/data.h"
#include "core/material.h"
#include "core/model.h"
#include "core/solvers/solver.h"

typedef struct {
  int maxcon;         // contacts the buffers hold
  int nv;
  int maxchain;       // dofs a contact's two chains can touch
  int ncon;           // contacts this step, joint limits included (they come last)
  int nlimit;         // of which joint entries: limits and dry friction rows (they come last)
  int nfric;          // of those, dry joint friction rows
  int nspin;          // of those, spin entries of condim 4/6 contacts (see the top)
  int nreduced;       // contacts the patch reduction removed in the collision that filled con
  int nreduced_touch; // of which touching (depth >= 0); coll_reduced, set by the caller

  // per contact (maxcon)
  coll_contact* con;  // geometry from collision
  int* body1;         // body of geom1 / geom2
  int* body2;
  double* frame;      // rows t1, t2, n in world coordinates              (maxcon x 9)
  double* mu;         // friction coefficient                              (maxcon)
  int* nchain;        // dofs in the union of both chains                  (maxcon)
  int* chain;         // those dofs, ascending                             (maxcon x maxchain)
  double* J;          // rows t1 t2 n on the chain dofs                    (maxcon x 3 x maxchain)
  double* Y;          // D^-1/2 L^-T J' rows on the chain dofs              (maxcon x 3 x maxchain)
  double* ydiag;      // G's diagonal beyond Y Y' (limits' tangent rows)  (3 maxcon)
  int* key;           // root dofs of the chain's trees, -1 when none      (maxcon x 2)
  unsigned char* box; // 1 for a dry friction row (solver_problem.box)       (maxcon)
  int* link;          // condim 4/6 pairs (solver_problem.link; valid when nspin > 0) (maxcon)
  double* mu_roll;    // a spin entry's rolling coefficient (its mu: torsional) (maxcon)

  // the problem (3 ncon rows)
  solver_blocks* G;   // Delassus matrix, block-sparse, with its islands
  double* g;          // J v_free - c*                                     (3 maxcon)
  double* lambda;     // impulses                                          (3 maxcon)
  double* cvel;       // contact velocity after the step, G lambda + g     (3 maxcon)
  double* cstar;      // target normal velocity (Baumgarte/restitution)    (maxcon)
  double* R;          // compliance alpha diag(G) when alpha > 0           (3 maxcon)
  int has_R;          // R is in use this step
  // contact.cone pyramidal: each contact's edge regularizer R_py (solver_problem.rpy), 0 for a
  // contact in the Lorentz cone; its R rows are then 0                  (maxcon)
  double* rpy;
  int has_rpy;        // some contact is pyramidal this step

  // warm start memory: previous step's ids and impulses
  int nprev;
  int* prev_id;       // (maxcon x 3) geom1, geom2, feature
  int* prev_ord;      // (maxcon) the remembered contacts in id order
  int prev_unique;    // no two remembered ids are equal (warm_start may then take the next one)
  double* prev_lambda;// (3 maxcon)
  double* prev_dual;  // the solver's dual variable (ADMM), NaN when none   (3 maxcon)
  double* dual0;      // this step's warm dual, NaN where no previous one   (3 maxcon)
  int nwarm;          // contacts warm-started this step

  // scratch of the block assembly
  int* pos;           // dof -> position in the current chain              (nv)
  int* bucket_ptr;    // contacts by root dof: counting-sort offsets       (nv + 1)
  int* bucket;        // (and contact_store's sort between builds)         (2 maxcon)
  int* fill;          // next free block of each row                       (maxcon)
  double* ywork;      // scratch of G's products through Y when diag_only   (nv)
  double* lrev;       // L's rows, ancestors root first (build_y's long chains) (nM)
  unsigned char* lzero;  // dof i's row of L below the diagonal: 1 all zero, 2 not, 0 not yet
                         // known this step (build_y's one-path walk asks; LZERO_KNOWN's bits),
                         // LZERO_REV: reversed into lrev this step                (nv)
} contact_data;

typedef struct {
  double friction;      // mu for every contact
  double baumgarte;     // K (1/s): c*_N = K max(0, depth)
  double restitution;   // e: c*_N = -e c_N(before the step) when approaching
  double dt;            // step (s): a gap closes at most at -depth/dt
  double compliance;    // alpha: R = alpha diag(G) (000 Sec. III, MuJoCo-like), 0 = rigid
  int warm_start;
  // materials (material.h): per-contact mu and restitution of the pair, and with mat->soft MuJoCo's
  // solref/solimp (R and a reference velocity target on all three rows); NULL: friction and
  // restitution above for every contact
  const mat_table* mat;
  // 1: form G's diagonal blocks only, for a solver that works on the factored form (ADMM): the
  // problem is then diag_only (solver.h) and its other entries come from Y. Islands are the
  // same (from the root-dof buckets). 0: every block of contacts that share dofs
  int diag_only;
  // solver.name auto with a factoring second solver (solver_auto_splits): diag_only decided per
  // step instead: set when an island is coupled (contact_coupled), so that its factoring solver
  // takes the step without the O(nc^2) blocks per-contact sweeps would need
  int auto_split;
  // contact.cone pyramidal (with mat->soft): frictional soft contacts in MuJoCo's pyramid
  // (rhs_soft; solver.h rpy), others as before
  int pyramidal;
} contact_options;

// con[i].geom1 of a dry joint friction row (joint limits have -1)
#define CONTACT_JOINT_FRICTION (-2)
// con[j].geom1 of a spin entry is CONTACT_SPIN - its contact's geom1 (<= CONTACT_SPIN): the
// warm start's id stays the contact's, distinct from it
#define CONTACT_SPIN (-3)

// solver.name auto: contacts in one island past which per-contact sweeps cost more than a
// factoring solver (measured, callgrind, ncp/pgs vs ncp/admm over 300 steps: Talos standing,
// 8 contacts, PGS 0.53x ADMM's instructions; a 5-link chain lying down, 20 contacts, 2.1x)
#define CONTACT_AUTO_MAX_CONTACTS 12

csim_status contact_create(const sim_model* m, int maxcon, contact_data** out, csim_error* err);
void contact_free(contact_data* c);

// back to what contact_create left: no contacts, no warm start memory, impulses and contact
// velocities zero (a run's reset, state.h)
void contact_reset(contact_data* c);

// bytes contact_create allocates for maxcon contacts (G's blocks dominate: 76 bytes each,
// contact_max_blocks)
size_t contact_bytes(const sim_model* m, int maxcon);

// the most 3x3 blocks G can have with maxcon contacts on this model (see the top)
long contact_max_blocks(const sim_model* m, int maxcon);

// build frames, Jacobians, G and g for the contacts c->con[0..ncon) (c->ncon set by the caller)
// from the current kinematics and factor of M (d), the free velocity vfree and the velocity
// before the step v (restitution); fills lambda with the warm start. 0, or -1 when G needs more
// blocks than contact_max_blocks allowed, -2 when the arena lacks its scratch
// (data_arena_default); neither happens for true bounds, the caller stops the run
int contact_build(const sim_model* m, sim_data* d, contact_data* c, const contact_options* opt,
                  const double* vfree);

// v += M^-1 J' lambda
void contact_apply(const sim_model* m, sim_data* d, const contact_data* c, double* v);

// remember this step's ids, impulses and the solver's dual variable (3 ncon, NaN where none;
// NULL: none) for the next warm start
void contact_store(contact_data* c, const double* dual);

// the solver problem view of the built contacts: G's blocks and islands, and its factored form
// G = Y Y' + diag(ydiag) (solver.h; ADMM factors an island in dof space with it)
solver_problem contact_problem(const contact_data* c);

// the longest chain a contact can have (contact_data's maxchain): solver_options.max_chain
int contact_max_chain(const sim_model* m);

#endif  // CSIM_CONTACT_H
