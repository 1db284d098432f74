// fclib.h — FCLib frictional-contact problems (Siconos's HDF5 format): read local and global
// problems into csim's solver layout, write local problems (run dumps), and Siconos's error.
//
// File layout (FCLib 3.x as written by fclib.h and Siconos; ../shared/data/fclib/README.md):
//   /fclib_local: spacedim (int, must be 3), W/ (sparse, 3nc x 3nc), vectors/q (3nc),
//     vectors/mu (nc), optional info/{title, description, math_info}. u = W r + q.
//   /fclib_global: spacedim, M/ (n x n), H/ (n x 3nc), vectors/f (n), vectors/w (3nc),
//     vectors/mu (nc). M v = H r + f, u = H' v + w, so the local form is
//     W = H' M^-1 H and q = H' M^-1 f + w (condensed here; a G/ block or V/ R/ of the mixed form
//     are refused as unsupported).
//   A sparse matrix is a group {m, n, nzmax, nz, p, i, x}: nz = -1 CSC (p: n+1 column pointers,
//     i: rows), nz = -2 CSR (p: m+1 row pointers, i: columns), nz >= 0 triplet with nz entries,
//     i = ROW and p = COLUMN (CSparse's convention, what the real files use; fclib.h's comment
//     says the opposite). Duplicated triplet entries are summed.
//   /solution/r (and u) when present; csim's dumps add /csim/R, the diagonal compliance.
//
// Conventions. FCLib orders each contact's 3-block [n t1 t2]; csim orders it [t1 t2 n] (cone.h).
// The reader and writer convert (a cyclic permutation: right-handed frames stay right-handed);
// everything in fclib_problem is in csim's order. A local W goes from the file's entries straight
// to the solvers' 3x3 blocks (no dense 3nc x 3nc matrix); a global problem's condensed W is
// computed densely (H' M^-1 H) and then split into blocks. W is NOT symmetrised: some published W are not symmetric (Capsules, OneObject:
// max |W - W'| up to 1e-2 max |W|); w_sym_err reports it.
//
// Global problems: M is factored per connected block of its sparsity graph (rigid bodies give
// 6x6 or 1x1 blocks, an FEM body one block) with a dense Cholesky (LAPACKE_dpotrf) of each
// block, so a 12000-dof diagonal M costs O(n). When M holds entries on one side of the diagonal
// only (LMGC's CubeH8 and GlobalFrictionContactProblem00046 store the upper triangle of a
// symmetric matrix), that triangle is mirrored; otherwise M must be symmetric to 1e-8 max |M|.
//
// Every input problem is an error naming the file and the dataset (missing file, not HDF5, no
// /fclib_local or /fclib_global group, wrong types, inconsistent sizes, W not square, mu of the
// wrong length, indices out of range, NaN or infinite values, mu < 0, M not positive definite);
// the reader never crashes on truncated or corrupted files (HDF5 errors are caught, its
// automatic error printing is switched off during the call and restored).
#ifndef CSIM_FCLIB_H
#define CSIM_FCLIB_H

#include "core/error.h"
#include "core/solvers/solver.h"

// largest problem csim reads (dense W of 3nc x 3nc doubles: 15000 rows = 1.8 GB)
#define FCLIB_MAX_ROWS 15000

// storage of a sparse matrix in the file (the FCLib nz flag for CSC and CSR)
typedef enum {
  FCLIB_TRIPLET = 0,  // nz >= 0 entries, i = row, p = column
  FCLIB_CSC = -1,     // compressed columns
  FCLIB_CSR = -2,     // compressed rows
} fclib_storage;

// name of a storage: "triplet", "CSC", "CSR"
const char* fclib_storage_name(fclib_storage s);

// a problem read from an FCLib file, in csim's per-contact order [t1 t2 n]
typedef struct {
  int nc;                // contacts
  int global;            // 1 when read from /fclib_global and condensed
  int ndof;              // global: rows of M (0 for a local problem)
  fclib_storage storage; // storage of W (local) or H (global) in the file
  long nnz;              // entries stored in the file for W (local) or H (global)
  double* q;             // (3nc) free velocity: u = W r + q
  double* mu;            // (nc) friction coefficients, >= 0
  double* R;             // (3nc) diagonal compliance from /csim/R, or NULL
  double* r;             // (3nc) /solution/r, or NULL (in published files not a reference)
  double w_sym_err;      // max |W_ij - W_ji|
  double w_absmax;       // max |W_ij|
  double q_norm;         // Euclidean norm of q
  solver_blocks* blocks; // W: its 3x3 blocks holding an entry of the file, and every diagonal
                         // block (solver.h), islands from that pattern
} fclib_problem;

// read a local or global problem from an FCLib HDF5 file (global problems are condensed)
//   out: the new problem (free with fclib_free); NULL on error
csim_status fclib_read(const char* path, fclib_problem** out, csim_error* err);

void fclib_free(fclib_problem* p);

// W(a, b) in csim's order (0 outside the stored blocks), O(log blocks in the row)
double fclib_w(const fclib_problem* p, int a, int b);

// the solver's view of a problem read from a file (pointers into p)
solver_problem fclib_solver_problem(const fclib_problem* p);

// the problem's own scales, so that one tolerance means the same on every file: velocities in
// units of s_u = |q| and impulses in units of s_r = |q| / wbar, wbar = the mean of W's diagonal
// (max |W| when that is not > 0; s_u = 1 when q = 0). csim's NCP residual mixes units (eps_p an
// impulse, eps_d a velocity, eps_c their product), so an absolute tolerance is no criterion on a
// file whose |q| is 6e-12 (LMGC_GFC3D-i00501: r = 0 has eps_abs 3e-12 but Siconos's relative
// error 0.98); in these units eps_abs is dimensionless, like Siconos's relative error.
void fclib_scales(const fclib_problem* p, double* s_r, double* s_u);

// the view of p in the units of fclib_scales: W' = W s_r / s_u (= W / wbar), q' = q / s_u,
// R' = R s_r / s_u; an answer r' of the view is the answer r = s_r r' of p (and u = s_u u').
// blk (9 p->blocks->nblocks), g (3nc) and R (3nc; unused when p->R is NULL) receive the scaled
// values, which the view points to; s_r, s_u receive the scales
solver_problem fclib_scaled_problem(const fclib_problem* p, double* blk, double* g, double* R,
                                    double* s_r, double* s_u);

// write p (csim order, any storage of G) as an FCLib local problem: W holds G's non-zero
// entries in the given storage, q = g, mu; p->R, when not NULL, goes to /csim/R; lambda, when
// not NULL, goes to /solution/r with /solution/u = G lambda + g (FCLib order)
//   title, description: the /fclib_local/info strings (NULL -> a default)
csim_status fclib_write_local(const char* path, const solver_problem* p, const double* lambda,
                              fclib_storage storage, const char* title, const char* description,
                              csim_error* err);

// Siconos numerics' fc3d_compute_error on u = W r + q (R excluded, as eps_abs): per contact,
// u~ = u + mu |u_T| e_N (De Saxce), e = r - P_K(r - u~), abs = sqrt(sum |e|^2), and the
// relative error abs / max(|q|, |r|, |u|) (or abs when that max is below machine epsilon)
//   abs_err: receives the absolute error when not NULL; returns the relative error
double fclib_siconos_error(const solver_problem* p, const double* lambda, double* abs_err);

#endif  // CSIM_FCLIB_H
