// solver.h — one interface for every rigid contact solver (DESIGN.md table, 000 Alg. 1-6).
//
// A problem is the Delassus matrix G = J M^-1 J' (3nc x 3nc, contact frames [t1 t2 n]), the
// free velocity g = J v_f - c* (Baumgarte and restitution targets folded in, so the contact
// velocity is c = G lambda + g, 000 eqs. 5-9), friction coefficients and an optional diagonal
// compliance R (G~ = G + R, 000 Sec. II). Solvers work on impulses over the step.
//
// Every solver: starts from the lambda it is given (warm start: the caller fills it from the
// previous step's impulses matched by contact id, or zeros), applies optional over-relaxation,
// stops when its model's own residual (`residual`: for ncp the 000 eq. 14 residual on
// c = (G + R) lambda + g; for ccp/lcp/raisim the residual of the problem that model solves) is
// below the tolerance or at the iteration cap, and reports iterations and whether it converged.
// The answer is always the model's (issue 9): whatever solver.criterion says, a solver chooses
// between its warm start and zero, and hands back its best iterate when it did not converge, by
// its model's own residual, never by the NCP residual (a CCP, LCP or RaiSim answer to a sliding
// contact is not an NCP solution, and ranking by the NCP residual returned lambda = 0).
//
// Frictionless contacts and joint limits: mu = 0 gives lambda_T = 0 exactly for every pair. A
// joint limit enters as a contact with mu = 0 whose tangent rows are inert: the Jacobian's tangent
// rows are zero, so G's t1, t2 rows and columns are zero except their diagonal, which the caller
// sets to that contact's G_NN (every 3x3 diagonal block stays invertible), and g_T = 0.
// Whatever the model, solver_solve then measures the physical accuracy of the answer with the
// NCP residuals of 000 eq. 14 on c = G lambda + g (R excluded): eps_abs, eps_p, eps_d, eps_c —
// the metric that makes every model comparable (a CCP answer to a sliding contact has a
// complementarity residual mu lambda_N |c_T| however well it solved its own problem).
// solver_solve never allocates: a solver is created for a maximum contact count and keeps its
// workspace.
//
// Storage: G is block-sparse (solver_problem below). Per-contact families (PGS for ncp/ccp/lcp,
// RaiSim bisection) sweep block rows: after contact i changes, c = G~ lambda + g is updated over
// the blocks of row i only, diagonal blocks come from storage; they iterate island by island
// (each island stops at its own tolerance; iterations reported are the most any island took,
// the residual the largest). ADMM, staggered projections and Lemke factor or pivot on G:
// solver_solve hands them one island at a time as a dense sub-problem (densely per island; their
// workspace is sized for an island of every contact, or for islands of at most
// solver_options.island_rows rows: a larger island is then left unsolved and reported in
// solver_result, never solved in part).
// ADMM given the factored form (Y) factors an island with fewer dofs than contact rows in dof
// space instead: (G~ + s I)^-1 by Woodbury through the nd x nd matrix I + Y' A^-1 Y (nd the
// island's dofs, A diagonal), its dofs in Cuthill-McKee order so that a chain of trees (a stack)
// gives a band: banded Cholesky (LAPACK dpbtrf, O(nd kd^2)) when the bandwidth kd is at most
// half of nd, dense dpotrf otherwise; its products with G go through Y (O(nnz Y)). An island
// that is not banded, in dof space or in contact space, is factored sparse (CHOLMOD, AMD order,
// the symbolic analysis kept per island pattern, chol_sparse.h) when it is large enough and
// CHOLMOD's flop count and fill beat the dense factor's (admm.c, admm_sparse); in contact space
// its products with G then go over the same block pattern; a contact-space island it takes
// sparse is handed to ADMM as its blocks (solver.c island_sparse), its dense G never formed. Newton (ccp with R > 0, newton.c)
// works in dof space per island on the factored form alone: its Hessian I + Y' H Y is factored
// banded in ADMM's band order or densely. c = G lambda + g at the answer is
// computed once (or taken from the family when it is exact) and shared by the NCP criterion and
// the eps metrics.
#ifndef CSIM_SOLVER_H
#define CSIM_SOLVER_H

#include "core/error.h"
#include "core/options.h"

// the model and the solver are options.h's enums (csim_model, csim_solver): the rigid models
// are its first CSIM_NRIGID_MODELS values, the rigid solvers its first CSIM_NRIGID_SOLVERS

// what stops a solver (solver.criterion): the model's own residual (each family's fixed point:
// CCP residual, pyramid LCP residual, RaiSim's fixed-point change; for ncp and raisim_ds the NCP
// residual of 000 eq. 14 on (G + R)), or that and the NCP residual on (G + R) whatever the model
// (the paper's and DESIGN.md's rule: a CCP, LCP or RaiSim answer to a sliding contact then runs to
// the iteration cap, since its fixed point is not an NCP solution). The criterion decides when to
// stop and what counts as converged, never which answer is handed back: an iterate that solves
// the NCP but not the model (lambda = 0 on a separating contact that slides, which the CCP still
// pushes) does not stop a ccp, lcp or raisim solver
typedef enum {
  SOLVER_STOP_MODEL = 0,   // the model's own residual
  SOLVER_STOP_NCP = 1,     // the model's own residual and the NCP residual (000 eq. 14)
  // ContactBench's rule (solvers.hxx, every solver's solve: stop_ < th_stop_ || rel_stop_ <
  // rel_th_stop_): the absolute residual each of its solvers stops on below the tolerance (the
  // NCP residual for ncp and raisim, RaisimSolver::stoppingCriteria; the model's own for ccp and
  // lcp, CCPPGSSolver::stoppingCriteria), or the relative change of the island's impulses over
  // the last sweep, ||lambda_k - lambda_k-1||_2 / ||lambda_k-1||_2, below rel_tolerance;
  // per-contact families only (solver_create refuses the others)
  SOLVER_STOP_RELATIVE = 2,
  // SOLVER_STOP_NCP and, for every contact, the natural residual of the NCP in impulse units:
  // |lambda - P_K(lambda - (c + Gamma(c)) / G~_NN)|_inf (solver_natural_on). Zero exactly at an
  // NCP solution like eps_abs, but it bounds the velocities: eps_abs's complementarity term
  // <lambda, c + Gamma> admits a contact still pushing (lambda_N) while it separates at
  // tol / lambda_N, 4 mm/s for a 0.1 kg link at 1e-6, and a resting chain then chatters within the
  // tolerance (issue 26); here a separating velocity counts as the impulse c_N / G~_NN that would
  // stop it. Every family's answer is held to it (solver_solve); pgs, admm, auto, the ccp and lcp
  // sweeps and raisim iterate on it
  SOLVER_STOP_NATURAL = 3,
  SOLVER_NSTOPS
} solver_criterion;


// G is block-sparse and symmetric: 3x3 blocks (i, j) only for contact pairs that share dofs
// (contact.h), both triangles stored, CSR over block rows: row i holds blocks
// rowptr[i]..rowptr[i+1]-1 with columns col[] ascending, diag[i] the index of its diagonal block,
// blk[9 k..9 k+8] block k row-major (block (j, i) is block (i, j) transposed). Islands are the
// connected components of the block pattern (contacts that share no dofs, directly or through
// other contacts, never interact): island k holds contacts island_con[island_ptr[k]..
// island_ptr[k+1]-1], ascending. `dense` is the alternative storage of the same G (3nc x 3nc
// row-major) used for the per-island dense sub-problems of ADMM, staggered and Lemke (solver.c);
// when it is set the block fields are unused. The kernels below read whichever is set.
typedef struct {
  int nc;               // contacts
  const int* rowptr;    // (nc + 1)
  const int* col;       // (nblocks) block column
  const int* diag;      // (nc) index of block (i, i)
  const double* blk;    // (9 nblocks)
  int nisland;
  const int* island_ptr;  // (nisland + 1)
  const int* island_con;  // (nc)
  const double* dense;  // (3nc x 3nc) dense G instead of the blocks, or NULL
  const double* g;      // (3nc)
  const double* mu;     // (nc)
  const double* R;      // (3nc) diagonal compliance, or NULL
  // (nc) 1 for a box entry (contact.h: a joint's dry friction, |lambda_t1| <= b written as a
  // contact of mu 1 whose normal impulse is pinned at b by its inert normal row), or NULL: none.
  // The NCP families need no mark (the normal row's Signorini condition pins it); the CCP ones
  // (no de Saxce term) project such an entry as the box and measure it by the NCP residual
  const unsigned char* box;
  // condim 4/6 contacts (contact.h: a contact and its spin entry [s r1 r2], rows of the relative
  // rotation about n, t1, t2), or NULL: none. link (nc): for a contact with a spin entry that
  // entry's index, for a spin entry -2 - its contact's, -1 otherwise; mu_roll (nc): a spin
  // entry's rolling coefficient (its mu the torsional one). The pair's impulse lies in the
  // generalized cone K_a of cone.h, a = (mu, mu, mu_spin, mu_roll, mu_roll); the eps metrics
  // measure the pair with it (cone_ell_residuals) and the spin entry alone counts nothing.
  // ncp and ccp under pgs, admm and auto, and ccp under newton take it (solver_spin_supported):
  // PGS sweeps the pair, ADMM projects it as one cone (admm.c), newton takes the pair's six rows
  // as one zone (newton.c)
  const int* link;
  const double* mu_roll;
  // contact.cone pyramidal (contact.h rhs_pyramid), or NULL: none. rpy (nc): for a contact in
  // MuJoCo's pyramid its edges' common regularizer R_py > 0 (its R rows are 0), 0 otherwise. The
  // contact's impulse is lambda = E f, f >= 0 over the edges E = [n + mu t1, n - mu t1,
  // n + mu t2, n - mu t2] ([t1 t2 n] rows), and the problem is the edges' bound-constrained QP
  // min 1/2 f'(E'G E + R_py I) f + f'E'g, i.e. 0 <= f ⊥ E'c + R_py f >= 0 with c = G lambda + g.
  // The ccp pgs sweeps take it (ccp.c); io/compile.c refuses every other pair
  const double* rpy;
  // optional factored form of the same G (contact.h: Y = D^-1/2 L^-T J' on each contact's
  // chain): G = Y Y' + diag(ydiag). Contact i's three rows hold ynz[i] entries at dofs
  // ydof[i ystride ..], row r's values at Y[(3 i + r) ystride ..]; ydiag (3nc, or NULL: zero)
  // is what G's diagonal holds beyond Y Y' (a joint limit's inert tangent rows, contact.h).
  // NULL Y: none. ADMM factors an island in dof space with it (Woodbury) when the island has
  // fewer dofs than contact rows; the kernels below read the blocks or dense G, and Y only
  // when diag_only
  int nv;               // dofs Y's columns range over
  int ystride;          // entries per row of Y and per contact of ydof
  const int* ynz;       // (nc)
  const int* ydof;      // (nc x ystride)
  const double* Y;      // (3nc x ystride)
  const double* ydiag;  // (3nc) or NULL
  // diag_only: the blocks hold G's diagonal blocks only (rowptr[i] = diag[i] = i, islands as
  // the full pattern's); every other entry of G comes from the factored form, which is then set.
  // The kernels below go through Y for it: a product or a row or column costs O(nnz Y), an entry
  // O(ystride), using ywork (nv doubles) as scratch. For a solver that works on Y (ADMM): the
  // 3x3 blocks of every contact pair sharing dofs, O(nc^2 ystride) on a chain, are never formed
  int diag_only;
  double* ywork;        // (nv) scratch of the kernels when diag_only
  // an island in its factored form without blocks (admm.c island_as_is): its contacts' diagonal
  // blocks of Y Y' + diag(ydiag) at dblk[9 i] (diag_only's blocks, the same sums as Y's rows
  // give), read for G~'s diagonal without R (solver_gtkk), or NULL: from Y
  const double* dblk;
} solver_problem;

// owner of a block-sparse G: storage for up to maxc block rows and maxblocks blocks
typedef struct {
  int maxc;
  long maxblocks;
  int nc;
  long nblocks;
  int* rowptr;          // (maxc + 1)
  int* col;             // (maxblocks)
  int* diag;            // (maxc)
  double* blk;          // (9 maxblocks)
  int nisland;
  int* island_ptr;      // (maxc + 1)
  int* island_con;      // (maxc)
  int* uf;              // (maxc) union-find scratch, then each contact's island
  int diag_only;        // only the diagonal blocks are stored (solver_problem.diag_only)
} solver_blocks;

csim_status solver_blocks_create(int maxc, long maxblocks, solver_blocks** out, csim_error* err);
void solver_blocks_free(solver_blocks* b);
// bytes solver_blocks_create allocates
size_t solver_blocks_bytes(int maxc, long maxblocks);

// islands of the pattern in b (rowptr/col for b->nc rows): union-find over the off-diagonal
// blocks, O(nblocks); islands numbered by their smallest contact
void solver_blocks_islands(solver_blocks* b);

// the same islands from groups instead of the pattern: contacts listed in one group
// (gcon[gptr[k]..gptr[k+1]-1], k < ngroup) share dofs, contacts in no common group share none
// (contact.h: the groups are the contacts of each tree root dof). O(sum of group sizes)
void solver_blocks_islands_grouped(solver_blocks* b, const int* gptr, const int* gcon,
                                   int ngroup);

// block (i, j) of G = Y Y' + diag(ydiag) from p's factored form (p->Y set): the rows of i
// times those of j over the dofs both chains hold (ascending ydof), ydiag added when i == j.
// The one formula of G's blocks: contact_build forms its blocks with it, the diag_only kernels
// their entries, so both storages give the same bits
void solver_yblock(const solver_problem* p, int i, int j, double blk[9]);
// solver_yblock when the caller knows whether i's and j's chains hold the same dofs (same: 1,
// e.g. two contacts of the same bodies; 0: the merge over the dofs both hold), the same bits
void solver_yblock_on(const solver_problem* p, int i, int j, int same, double blk[9]);
// every block (cons[a], cons[b]) of n contacts whose chains hold the same six dofs (a free
// body's corners on the ground), as solver_yblock_on gives them (the same bits) in one pass over
// the rows: row cons[a]'s n blocks, in the order of cons, at rowblk[a]. 0 (nothing written) past
// SOLVER_YGROUP_MAX contacts or on another number of dofs
#define SOLVER_YGROUP_MAX 8
int solver_yblocks_same(const solver_problem* p, const int* cons, int n, double* const* rowblk);
// solver_yblock_on(p, i, i, 1, ...) of contacts i and i + 1 at once into blk and blk + 9, their
// rows of the same length (ynz): the same sums, one contact in each half of a vector
void solver_yblock_diag2(const solver_problem* p, int i, double blk[18]);

// b := the blocks of a dense symmetric G (3nc x 3nc row-major): every block with a nonzero entry
// and every diagonal block, or all nc^2 blocks when full (one island); islands computed. Input
// error when they do not fit in b
csim_status solver_blocks_from_dense(solver_blocks* b, int nc, const double* G, int full,
                                     csim_error* err);

// the problem view of b with g, mu, R (R may be NULL); diag_only copied from b (the caller then
// sets the factored form and ywork)
solver_problem solver_blocks_problem(const solver_blocks* b, const double* g, const double* mu,
                                     const double* R);

// kernels on p's G (blocks, dense, or diagonal blocks and the factored form when diag_only; R
// never included):
// y += G x (3nc)
void solver_gmul_add(const solver_problem* p, const double* x, double* y);
// diagonal block G_ii (row-major)
void solver_gdiag(const solver_problem* p, int i, double B[9]);
// diagonal entry k of G~ = G + R, from whichever form p has (an island's factored form without
// blocks: its dblk without R, else R plus Y's row k squared plus ydiag)
double solver_gtkk(const solver_problem* p, int k);
// entry G(a, b) (0 where no block), O(log blocks in the row)
double solver_gentry(const solver_problem* p, int a, int b);
// out (3) += row block i of G x: O(blocks in row i)
void solver_grow_add(const solver_problem* p, int i, const double* x, double out[3]);
// y += G(:, 3i..3i+2) d: touches only the contacts sharing a block with i, O(blocks in row i)
void solver_gcol_add(const solver_problem* p, int i, const double d[3], double* y);
// dense copy of G restricted to the n contacts cons[] (ascending; 3n x 3n row-major, zeros where
// no block); map (nc ints, any content) is scratch
void solver_gdense(const solver_problem* p, const int* cons, int n, int* map, double* out);

typedef struct {
  csim_model model;
  csim_solver kind;
  double tolerance;       // on eps_abs, > 0
  int max_iterations;     // >= 1
  double over_relaxation; // omega in (0, 2); 1 = none
  int facets;             // LCP pyramid facets (>= 3)
  double rho;             // ADMM initial proximal parameter
  int rho_adaptive;       // ADMM: adapt rho
  solver_criterion criterion;  // what the tolerance applies to (0: the model's own residual)
  // set by a caller that passes factored problems (solver_problem's Y: sim with contact.h), 0
  // otherwise: the dofs and the largest ystride those problems have. ADMM then sizes its
  // dense work for min(3 contacts, nv) rows (an island is factored in whichever space is
  // smaller) instead of 3 contacts
  int nv;
  int max_chain;
  // dense families (ADMM, staggered, Lemke): rows of the largest island their dense work is
  // sized for (3 per contact, or an ADMM island's dofs when it factors in dof space), when
  // smaller than the worst case solver_dense_rows of max_contacts (an island of every contact);
  // 0: the worst case. A caller short of memory (sim.c: contact.memory_budget) sets it; an island
  // past it is left unsolved and reported (solver_result unsolved_island)
  int island_rows;
  // solver.criterion: relative only: the bound on the relative change of successive iterates
  // (unitless, > 0; solver.tolerance as given, not scaled by tolerance_units)
  double rel_tolerance;
  // solver.name auto under ccp: 1 when every row carries MuJoCo softness as solver.name newton
  // needs it (io/compile.c sets it once the materials are known, with solver_auto_soft): auto
  // then gives every island to newton (auto.c), and the problems are diag_only
  int soft;
  // solver.tolerance_units: contactbench: the weight of the complementarity term eps_c in every
  // stopping residual (the NCP's, solver_ncp_stop_on, and the CCP's own): 1 / dt, so that
  // eps_c <= tolerance * dt^2 as the authors' code holds <lambda / dt, c / dt> to its threshold;
  // 0: none (every other unit). eps_abs as reported (solver_result) is never weighted
  double comp_scale;
} solver_options;

// 1 when solver.criterion: relative applies to o's solver (pgs, bisection; rel_tolerance > 0),
// else 0 and why in msg (n bytes)
int solver_relative_supported(const solver_options* o, char* msg, int n);

// 1 when o's comp_scale (solver.tolerance_units: contactbench) applies: pgs and bisection under
// ncp, ccp, raisim and raisim_ds (the families the authors' stopping rules are reproduced for),
// else 0 and why in msg (n bytes)
int solver_comp_scale_supported(const solver_options* o, char* msg, int n);

typedef struct {
  int iterations;       // sweeps or outer iterations done
  int converged;        // residual <= tolerance
  double residual;      // the stopping residual at exit (the model's own, or with the NCP
                        // criterion the larger of it and the NCP residual on G + R)
  double eps_abs;       // NCP residual (000 eq. 14): max of the three below over contacts
                        // (NaN when a contact's residual is NaN)
  double eps_p, eps_d, eps_c;  // largest primal, dual and complementarity residuals
  int dof_islands;      // islands ADMM factored in dof space (the factored form), 0 otherwise
  // dense families: contacts of the largest island whose rows were past the work's
  // (solver_island_rows), 0 when every island fitted. Such an island is not solved at all: its
  // lambda stays the initial guess, converged is 0 and residual infinite; the caller must not
  // take the answer for a solution (sim_step stops the run naming the sizes)
  int unsolved_island;
  int unsolved_rows;    // the rows that island needed
  int band_islands;     // of those, the islands factored banded (admm.c; an island whose warm
                        // start already converged is never factored, so not counted)
  int sparse_islands;   // the islands ADMM factored sparse (CHOLMOD, admm.c: dof or contact
                        // space), counted as band_islands
  // solver.name auto (auto.c): the islands of the problem, and those its first (per-contact)
  // solver stalled on and handed to its second (dense) solver; 0 for every other solver
  int islands;
  int switched;
  // of those, the islands both left above the tolerance whose answer then came from the third
  // solver (ncp: the semismooth Newton method, auto.c third_pass); 0 for every other solver
  int rescued;
} solver_result;

typedef struct solver solver;

// 1 when the model/solver pair is implemented; otherwise 0 and, if msg, a sentence naming the
// valid pairs (for an exit-2 message)
int solver_pair_supported(csim_model model, csim_solver kind, char* msg, int n);

// 1 when the model/solver pair solves contacts with spin entries (solver_problem.link: condim 4
// and 6): pgs, admm and auto under ncp and ccp; otherwise 0 and, if msg, a sentence saying so
// (exit-2 message)
int solver_spin_supported(csim_model model, csim_solver kind, char* msg, int n);

// 1 when the solver reads G's off-diagonal blocks; 0 when it works on the factored form
// G = Y Y' + diag only (ADMM, newton), so the contact problem may store the diagonal blocks alone
// (contact_options.diag_only)
int solver_reads_offdiag(const solver_options* o);

// solver.name auto's two solvers for a model (auto.c): its first pair in SOLVER_PAIRS order that
// is per-contact (dense 0) or factors (dense 1), auto excluded; CSIM_SOLVER_NONE when none
csim_solver solver_model_kind(csim_model model, int dense);

// 1 when o is solver.name auto with a factoring second solver (auto.c: ncp, ccp, lcp): the
// caller may then pass a step's problem diag_only (contact_options auto_split), which auto
// solves with that solver on every island; 0 otherwise
int solver_auto_splits(const solver_options* o);

// solver.name auto under ccp (s created by solver_create for it; any other solver: no effect):
// on 1 hands every island to newton first (solver_options soft: the caller knows every row
// carries MuJoCo softness); an island newton does not take (a row without R, a condim 4/6 pair
// whose cone is not round in R^1/2 lambda) sends the whole solve the usual way (PGS, then ADMM)
void solver_auto_soft(solver* s, int on);

// solver.name auto (any other solver: no effect): on 1 holds the islands of a coupled step
// (solver_auto_splits: the problem diag_only) to SOLVER_STOP_NATURAL, the per-contact solver's
// islands to the solver's own criterion (io/compile.c: under solver.criterion auto with ncp)
void solver_auto_coupled_natural(solver* s, int on);

// create a solver for problems of at most max_contacts contacts
csim_status solver_create(const solver_options* opt, int max_contacts, solver** out,
                          csim_error* err);

void solver_free(solver* s);

// back to what solver_create left: no warm dual, the penalties a family carries across solves
// (ADMM's rho, staggered's) and its caches (ADMM's eigenvalues) cleared (a run's reset)
void solver_reset(solver* s);

// bytes solver_create allocates for max_contacts contacts (SIZE_MAX: more than the solver
// takes, e.g. Lemke's tableau)
size_t solver_bytes(const solver_options* opt, int max_contacts);

// rows of the largest island the dense work of solver_create(opt, max_contacts) holds: the
// worst case solver_dense_rows (3 max_contacts, or for ADMM given factored problems at most
// opt->nv), or opt->island_rows when set and smaller; 0 for the per-contact families
int solver_island_rows(const solver_options* opt, int max_contacts);

// bytes of the dense island work that grow as the square of its rows (the two work matrices,
// the island's G, Lemke's tableau) for islands of `rows` rows; 0 for per-contact families. The
// rest of solver_bytes grows linearly with the contacts (sim.c shares contact.memory_budget
// between the two with it)
size_t solver_island_bytes(const solver_options* opt, int rows);

// solve: lambda (3nc) is the initial guess on entry and the solution on exit
void solver_solve(solver* s, const solver_problem* p, double* lambda, solver_result* res);

// warm start of the dual variable (ADMM's gamma, 3nc) for the next solver_solve only; entries
// that are NaN (contacts with no previous dual) are reconstructed from the warm-started lambda.
// NULL (the default) reconstructs all. Solvers without a dual variable ignore it.
void solver_set_dual(solver* s, const double* dual0);

// the dual variable of the last solver_solve (3nc; NaN where the solver has none)
const double* solver_dual(const solver* s);

// contact velocities c = G lambda + g (R excluded) of the last solver_solve (3nc)
const double* solver_velocity(const solver* s);

// NCP residuals (000 eq. 14) of lambda given its contact velocity c (3nc), O(nc): fills the
// eps_* fields of res (eps_abs NaN when a contact's residual is, as solver_residuals); p gives
// mu and the entries' kinds only (G is not read: a caller with c from elsewhere, e.g. a peer
// engine's velocities, needs no Delassus matrix)
void solver_residuals_of(const solver_problem* p, const double* lambda, const double* c,
                         solver_result* res);

// NCP residuals of lambda for problem p (000 eq. 14) on c = (G + R) lambda + g (R when p->R is
// not NULL): fills eps_abs/eps_p/eps_d/eps_c of res (the rest untouched; eps_abs NaN when a
// contact's residual is: NaN data never measures as a finite residual); c (3nc) receives c when
// not NULL
void solver_residuals(const solver_problem* p, const double* lambda, double* c,
                      solver_result* res);

#endif  // CSIM_SOLVER_H
