// contact.c — contact frames, chain Jacobians, Delassus matrix, free velocity, warm start
// (000 eqs. 5-9; see contact.h).
#include "core/contact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/spatial.h"

// penetration (m) closed within one step whatever the Baumgarte gain (see contact_build)
#define CONTACT_SLOP 1e-8
// build_y: chains longer than this (dofs) take y_path's walk when made of paths (a 10-link
// chain's or a free body's short walks are cheaper through the parent links: Ir per step)
enum { kPathWalk = 16 };
// group_jacobian's most contacts at a time (a box on a face gives 4 to 8 of one pair of bodies)
enum { kGroup = 8 };
// c->lzero's bits: the row's zero test (0 unknown, 1 zero, 2 not), the row reversed into c->lrev
enum { LZERO_KNOWN = 3, LZERO_REV = 4 };

// root dof of body b's tree (the topmost dof on its path), -1 when no dof moves it
static int body_root_dof(const sim_model* m, int b) {
  while (b > 0 && m->body_dofnum[b] == 0) b = m->body_parent[b];
  if (b <= 0) return -1;
  int d = m->body_dofadr[b];
  while (m->dof_parent[d] >= 0) d = m->dof_parent[d];
  return d;
}

long contact_max_blocks(const sim_model* m, int maxcon) {
  if (maxcon < 1) maxcon = 1;
  long mc = maxcon, all = mc * mc;
  if (m->nv <= 0) return mc;  // no dofs: diagonal blocks only
  // n_r, the contacts tree r can take part in (see contact.h), per root dof r; no scratch (the
  // bytes contact_create asks for are exactly contact_bytes): O(roots x geoms + geoms^2)
  long sum = mc;
  for (int r = 0; r < m->nv && sum < all; r++) {
    if (m->dof_parent[r] >= 0) continue;
    long cap = 0;
    for (int a = 0; a < m->ngeom && cap < mc; a++) {
      if (body_root_dof(m, m->geom_body[a]) != r) continue;
      for (int b = 0; b < m->ngeom && cap < mc; b++) {
        if (b == a || (b < a && body_root_dof(m, m->geom_body[b]) == r)) continue;  // pair once
        long x = coll_pair_max_contacts(m->geom_type[a], m->geom_type[b]);
        if (x > 0) cap += x;
        if (x > 0 && (m->geom_condim[a] > 3 || m->geom_condim[b] > 3)) cap += x;  // spin entries
      }
    }
    for (int j = 0; j < m->njnt; j++)
      if (m->jnt_limited[j] && body_root_dof(m, m->jnt_body[j]) == r) cap += 2;
    for (int i = 0; i < m->nv; i++)  // dry joint friction rows
      if (m->dof_frictionloss[i] > 0 && body_root_dof(m, m->dof_body[i]) == r) cap++;
    long n = cap < mc ? cap : mc;
    sum += n * n;
  }
  return sum < all ? sum : all;
}

csim_status contact_create(const sim_model* m, int maxcon, contact_data** out, csim_error* err) {
  *out = NULL;
  contact_data* c = calloc(1, sizeof(*c));
  if (!c) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  if (maxcon < 1) maxcon = 1;
  int nv = m->nv > 0 ? m->nv : 1;
  c->maxcon = maxcon;
  c->nv = m->nv;
  c->maxchain = contact_max_chain(m);
  size_t mc = (size_t)maxcon, n3 = 3 * mc;
  c->con = calloc(mc, sizeof(coll_contact));
  c->body1 = calloc(mc, sizeof(int));
  c->body2 = calloc(mc, sizeof(int));
  c->frame = calloc(mc * 9, sizeof(double));
  c->mu = calloc(mc, sizeof(double));
  c->nchain = calloc(mc, sizeof(int));
  c->chain = calloc(mc * (size_t)c->maxchain, sizeof(int));
  c->J = calloc(n3 * (size_t)c->maxchain, sizeof(double));
  c->Y = calloc(n3 * (size_t)c->maxchain, sizeof(double));
  c->ydiag = calloc(n3, sizeof(double));
  c->key = calloc(2 * mc, sizeof(int));
  c->g = calloc(n3, sizeof(double));
  c->lambda = calloc(n3, sizeof(double));
  c->cvel = calloc(n3, sizeof(double));
  c->cstar = calloc(mc, sizeof(double));
  c->R = calloc(n3, sizeof(double));
  c->prev_id = calloc(n3, sizeof(int));
  c->prev_lambda = calloc(n3, sizeof(double));
  c->prev_dual = calloc(n3, sizeof(double));
  c->prev_ord = calloc(mc, sizeof(int));
  c->dual0 = calloc(n3, sizeof(double));
  c->pos = calloc((size_t)nv, sizeof(int));
  c->bucket_ptr = calloc((size_t)nv + 1, sizeof(int));
  c->bucket = calloc(2 * mc, sizeof(int));
  c->fill = calloc(mc, sizeof(int));
  c->ywork = calloc((size_t)(nv > 0 ? nv : 1), sizeof(double));
  c->lrev = calloc((size_t)(m->nM > 0 ? m->nM : 1), sizeof(double));
  c->box = calloc(mc, 1);
  c->link = calloc(mc, sizeof(int));
  c->mu_roll = calloc(mc, sizeof(double));
  c->rpy = calloc(mc, sizeof(double));
  c->lzero = calloc((size_t)(nv > 0 ? nv : 1), 1);  // calloc(0) may return NULL
  if (!c->lzero || !c->box || !c->link || !c->mu_roll || !c->rpy || !c->con || !c->body1 || !c->body2 || !c->frame ||
      !c->mu || !c->nchain ||
      !c->chain || !c->J || !c->Y || !c->ydiag || !c->key || !c->g || !c->lambda || !c->cvel ||
      !c->cstar || !c->R || !c->prev_id || !c->prev_ord || !c->prev_dual || !c->dual0 || !c->prev_lambda ||
      !c->pos || !c->bucket_ptr || !c->bucket || !c->fill || !c->ywork || !c->lrev) {
    contact_free(c);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL,
                   "out of memory for %d contacts (%d dofs)", maxcon, m->nv);
  }
  csim_status st = solver_blocks_create(maxcon, contact_max_blocks(m, maxcon), &c->G, err);
  if (st != CSIM_OK) {
    contact_free(c);
    return st;
  }
  *out = c;
  return CSIM_OK;
}

void contact_reset(contact_data* c) {
  size_t n3 = 3 * (size_t)c->maxcon;
  c->ncon = c->nlimit = c->nfric = c->nspin = c->nreduced = c->nreduced_touch = 0;
  c->has_R = c->has_rpy = 0;
  c->nprev = c->nwarm = c->prev_unique = 0;
  double* zero[] = {c->g, c->lambda, c->cvel, c->R, c->prev_lambda, c->prev_dual, c->dual0};
  for (size_t k = 0; k < sizeof(zero) / sizeof(zero[0]); k++)
    memset(zero[k], 0, sizeof(double) * n3);
  memset(c->cstar, 0, sizeof(double) * (size_t)c->maxcon);
  memset(c->rpy, 0, sizeof(double) * (size_t)c->maxcon);
  memset(c->prev_id, 0, sizeof(int) * n3);
  memset(c->prev_ord, 0, sizeof(int) * (size_t)c->maxcon);
}

int contact_max_chain(const sim_model* m) {
  return 2 * (m->maxdepth > 0 ? m->maxdepth : 1);  // two bodies' root-to-leaf paths
}

size_t contact_bytes(const sim_model* m, int maxcon) {
  if (maxcon < 1) maxcon = 1;
  size_t mc = (size_t)maxcon, n3 = 3 * mc, D = sizeof(double), I = sizeof(int);
  size_t nv = (size_t)(m->nv > 0 ? m->nv : 1), ch = 2 * (size_t)(m->maxdepth > 0 ? m->maxdepth : 1);
  // the callocs of contact_create, in its order, then G's blocks
  return sizeof(contact_data) + mc * sizeof(coll_contact) + 2 * mc * I + 9 * mc * D + mc * D +
         mc * I + mc * ch * I + 2 * n3 * ch * D + n3 * D + 2 * mc * I + 3 * n3 * D + mc * D + n3 * D +
         n3 * I + 3 * n3 * D + nv * I + (nv + 1) * I + 2 * mc * I + mc * I + nv * D +
         (size_t)(m->nM > 0 ? m->nM : 1) * D + mc +
         mc * I + mc * D + mc * D + mc * I + nv +
         solver_blocks_bytes(maxcon, contact_max_blocks(m, maxcon));
}

void contact_free(contact_data* c) {
  if (!c) return;
  free(c->con); free(c->body1); free(c->body2); free(c->frame); free(c->mu);
  free(c->nchain); free(c->chain); free(c->J); free(c->Y); free(c->ydiag); free(c->key); free(c->g);
  free(c->lambda); free(c->cvel); free(c->cstar); free(c->R); free(c->prev_id); free(c->prev_ord); free(c->prev_lambda);
  free(c->prev_dual); free(c->dual0); free(c->pos); free(c->bucket_ptr); free(c->bucket);
  free(c->box); free(c->link); free(c->mu_roll); free(c->rpy);
  free(c->fill); free(c->ywork); free(c->lrev); free(c->lzero);
  solver_blocks_free(c->G);
  free(c);
}

// right-handed frame [t1 t2 n] from the normal, the same for the same normal every time
static void make_frame(double F[9], const double n[3]) {
  double e[3] = {1, 0, 0};
  if (fabs(n[0]) > 0.8) { e[0] = 0; e[1] = 1; }
  double t1[3], t2[3];
  sp_cross3(t1, e, n);   // e x n is orthogonal to n
  sp_normalize3(t1);
  sp_cross3(t2, n, t1);  // t1 x t2 = n
  memcpy(F, t1, sizeof(t1));
  memcpy(F + 3, t2, sizeof(t2));
  memcpy(F + 6, n, 3 * sizeof(double));
}

// entry i's key (contact.h): the distinct roots of its chains' trees, ascending (the order they
// take in the chain), -1 for none; a root is -1 when its chain is empty
static void set_key(contact_data* c, int i, int r0, int r1) {
  if (r0 < 0 || r1 == r0) r0 = r1, r1 = -1;  // one tree (or none)
  if (r1 >= 0 && r1 < r0) {
    int t = r0;
    r0 = r1, r1 = t;
  }
  c->key[2 * i] = r0;
  c->key[2 * i + 1] = r1;
}

// rows F_r . (dp/dv_k) (angular: F_r . (dw/dv_k)) of body b's point (or rotation) Jacobian at p
// on its chain dofs[0..nb), times sgn, into r0, r1, r2: kin_jac_point's columns (the dof's world
// axis at its body's origin, a_lin + a_ang x (p - x_b)) formed and projected in one pass, no
// column stored
static void point_rows(const sim_model* m, const sim_data* d, const int* dofs, int nb,
                       const double p[3], const double F[9], int angular, double sgn, double* r0,
                       double* r1, double* r2) {
  double r[3] = {0, 0, 0};
  int rb = -1;  // the body r belongs to (a free joint's six dofs share theirs)
  for (int k = 0; k < nb; k++) {
    const double* al = d->cdofw + 6 * dofs[k];
    const double* aw = al + 3;
    double j[3];
    if (angular) {
      sp_copy3(j, aw);
    } else if (aw[0] == 0 && aw[1] == 0 && aw[2] == 0) {  // a translation (free joint's linear
      sp_copy3(j, al);                                     // dofs, prismatic): a_lin + 0 x r
    } else {
      int b = m->dof_body[dofs[k]];
      if (b != rb) sp_sub3(r, p, d->xpos + 3 * b), rb = b;
      sp_cross3(j, aw, r);
      sp_add3(j, j, al);
    }
    double v0 = F[0] * j[0] + F[1] * j[1] + F[2] * j[2];
    double v1 = F[3] * j[0] + F[4] * j[1] + F[5] * j[2];
    double v2 = F[6] * j[0] + F[7] * j[1] + F[8] * j[2];
    if (sgn != 1.0) v0 *= sgn, v1 *= sgn, v2 *= sgn;  // 1 x v is v, bit for bit
    r0[k] = v0;
    r1[k] = v1;
    r2[k] = v2;
  }
}

// J rows of entry i on the union of the two bodies' chains (ascending dofs): row r is F's row r
// times body2's point Jacobian (angular: its angular velocity Jacobian) with +, body1's with -.
// The first body's rows are written in place (most contacts touch the world: one body, no
// merge); the second's are merged into them from the back, O(chain), no search. tmp: 3 rows of
// maxdepth + 1 doubles
static void contact_jacobian(const sim_model* m, const sim_data* d, contact_data* c, int i,
                             const double F[9], int angular, int* tmpdofs, double* tmp) {
  const double* p = c->con[i].pos;
  int mc = c->maxchain, st = m->maxdepth + 1;
  int* chain = c->chain + (size_t)i * mc;
  double* J = c->J + (size_t)i * 3 * mc;
  double *J0 = J, *J1 = J + mc, *J2 = J + 2 * mc;
  int n = 0;  // the merge writes each entry it keeps: no entry past nchain is read (no memset)
  int root[2] = {-1, -1};  // each chain's first dof, its tree's root (ancestor-closed)
  for (int side = 0; side < 2; side++) {
    int b = side == 0 ? c->body2[i] : c->body1[i];
    double sgn = side == 0 ? 1.0 : -1.0;
    if (b <= 0) continue;
    if (n == 0) {  // the first chain: its rows are J's
      n = kin_chain(m, b, chain);
      point_rows(m, d, chain, n, p, F, angular, sgn, J0, J1, J2);
      if (n > 0) root[0] = chain[0];
      continue;
    }
    int nb = kin_chain(m, b, tmpdofs);
    if (nb > 0) root[1] = tmpdofs[0];
    double *t0 = tmp, *t1 = tmp + st, *t2 = tmp + 2 * st;
    point_rows(m, d, tmpdofs, nb, p, F, angular, sgn, t0, t1, t2);
    // the union's size, then a merge from the back (the dofs of both lists ascend)
    int u = n;
    for (int a = 0, k = 0; k < nb;) {
      if (a < n && chain[a] < tmpdofs[k]) a++;
      else if (a < n && chain[a] == tmpdofs[k]) a++, k++;
      else u++, k++;
    }
    int a = n - 1, w = u - 1;
    for (int k = nb - 1; k >= 0; w--) {
      if (a >= 0 && chain[a] > tmpdofs[k]) {  // an entry of the first list moves up
        chain[w] = chain[a];
        J0[w] = J0[a], J1[w] = J1[a], J2[w] = J2[a];
        a--;
        continue;
      }
      if (a >= 0 && chain[a] == tmpdofs[k]) {  // a dof both chains hold
        chain[w] = chain[a];
        J0[w] = J0[a] + t0[k], J1[w] = J1[a] + t1[k], J2[w] = J2[a] + t2[k];
        a--;
      } else {
        chain[w] = tmpdofs[k];
        J0[w] = t0[k], J1[w] = t1[k], J2[w] = t2[k];
      }
      k--;
    }
    n = u;
  }
  c->nchain[i] = n;
  set_key(c, i, root[0], root[1]);
}

//---------------------------------- warm-start memory ----------------------------------------
// The previous step's contacts are kept with their order by id (geom1, geom2, feature):
// contact_store sorts that order (heap sort of indices, O(n log n); the contacts are not moved)
// and contact_build finds each new contact by binary search, O(n log n) per step instead of the
// O(n^2) scan. Ids are unique within a step
// (features are distinct within a pair); were two equal, either impulse is as good a guess.

// order of two ids
static int id_cmp(const int* a, const int* b) {
  for (int k = 0; k < 3; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

// remembered contact o's id
static inline const int* prev_key(const contact_data* c, int o) {
  return c->prev_id + 3 * c->prev_ord[o];
}

// sift position `root` down the max-heap of the first n positions of prev_ord (by id)
static void prev_sift(contact_data* c, int root, int n) {
  int* ord = c->prev_ord;
  for (;;) {
    int ch = 2 * root + 1;
    if (ch >= n) return;
    if (ch + 1 < n && id_cmp(prev_key(c, ch + 1), prev_key(c, ch)) > 0) ch++;
    if (id_cmp(prev_key(c, root), prev_key(c, ch)) >= 0) return;
    int t = ord[root];
    ord[root] = ord[ch], ord[ch] = t;
    root = ch;
  }
}

// merge the sorted stretches ord[a, m) and ord[m, e) (through tmp); 0 when two ids are equal
static int prev_merge(contact_data* c, int a, int m, int e, int* tmp) {
  int* ord = c->prev_ord;
  int i = a, j = m, w = a;
  while (i < m && j < e) {
    int o = id_cmp(prev_key(c, i), prev_key(c, j));
    if (o == 0) return 0;
    tmp[w++] = o < 0 ? ord[i++] : ord[j++];
  }
  while (i < m) tmp[w++] = ord[i++];
  while (j < e) tmp[w++] = ord[j++];
  memcpy(ord + a, tmp + a, sizeof(int) * (size_t)(e - a));
  return 1;
}

// the remembered order sorted by merging its ascending stretches (collision lists the pairs in
// pair order, each pair's contacts by feature, then limits and spin entries: humanoid100's 150
// ids are 10-20 stretches, merged in about 4 passes against the heap sort's 2 n log n
// comparisons). 0 when two ids are equal: the heap sort then decides their order, as before.
// With distinct ids both give the one ascending order. Its scratch (a merge buffer and the
// stretches' starts, 2 maxcon ints) is c->bucket, contact_build's, which nothing reads between
// builds (each build fills it anew)
static int prev_merge_sort(contact_data* c) {
  int n = c->nprev, *tmp = c->bucket, *run = c->bucket + c->maxcon, nrun = 0;
  for (int i = 0; i < n; i++) {
    int o = i ? id_cmp(prev_key(c, i - 1), prev_key(c, i)) : 1;
    if (o == 0) return 0;
    if (o > 0) run[nrun++] = i;
  }
  while (nrun > 1) {  // merge neighbouring stretches pairwise, run[] keeps the starts
    int w = 0;
    for (int r = 0; r < nrun; r += 2) {
      int e = r + 2 < nrun ? run[r + 2] : n;
      if (r + 1 < nrun && !prev_merge(c, run[r], run[r + 1], e, tmp)) return 0;
      run[w++] = run[r];
    }
    nrun = w;
  }
  return 1;
}

// the remembered contacts' order by id (prev_ord; the contacts stay in place): by merging, or a
// heap sort of indices when two ids are equal
static void prev_sort(contact_data* c) {
  int n = c->nprev, *ord = c->prev_ord;
  for (int i = 0; i < n; i++) ord[i] = i;
  c->prev_unique = 1;  // strictly ascending: unique
  if (prev_merge_sort(c)) return;  // O(n) when the ids come sorted already
  for (int i = 0; i < n; i++) ord[i] = i;
  for (int i = n / 2 - 1; i >= 0; i--) prev_sift(c, i, n);
  for (int e = n - 1; e > 0; e--) {
    int t = ord[0];
    ord[0] = ord[e], ord[e] = t;
    prev_sift(c, 0, e);
  }
  for (int i = 1; i < n && c->prev_unique; i++)
    c->prev_unique = id_cmp(prev_key(c, i - 1), prev_key(c, i)) != 0;
}

// index of the remembered contact with this id, or -1
static int prev_find(const contact_data* c, const int key[3]) {
  int lo = 0, hi = c->nprev - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, o = id_cmp(prev_key(c, mid), key);
    if (o == 0) return c->prev_ord[mid];
    if (o < 0) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

// entries i and j hold the same dofs: their chains are the union of their bodies' (contact_jacobian;
// a joint entry's is its body's, body1 the world), so the same pair of bodies gives the same chain
static int same_chain(const contact_data* c, int i, int j) {
  int a1 = c->body1[i], a2 = c->body2[i], b1 = c->body1[j], b2 = c->body2[j];
  return (a1 == b1 && a2 == b2) || (a1 == b2 && a2 == b1);
}

// block (i, j >= i) of G (solver_yblock) stored at row i's next slot and, transposed, at row j's
static void put_block(contact_data* c, const solver_problem* yp, int i, int j) {
  solver_blocks* B = c->G;
  double blk[9];
  solver_yblock_on(yp, i, j, i == j || same_chain(c, i, j), blk);
  int a = c->fill[i]++;
  B->col[a] = j;
  if (j == i) {
    B->diag[i] = a;
    // symmetric exactly: the lower triangle mirrors the upper (as the dense G did)
    blk[3] = blk[1];
    blk[6] = blk[2];
    blk[7] = blk[5];
    memcpy(B->blk + 9 * (size_t)a, blk, sizeof(blk));
    return;
  }
  memcpy(B->blk + 9 * (size_t)a, blk, sizeof(blk));
  int b = c->fill[j]++;
  B->col[b] = i;
  double* T = B->blk + 9 * (size_t)b;
  for (int r = 0; r < 3; r++)
    for (int t = 0; t < 3; t++) T[3 * t + r] = blk[3 * r + t];
}

// the rows of bucket l[0..n) at once when the bucket is one group of entries: each on this tree
// alone (its row is the bucket) and all on the same chain (a body's corners on the ground): the
// blocks solver_yblocks_same forms in one pass, stored as put_block would (row l[a]'s blocks in
// the bucket's order, ascending). 0 (nothing done) otherwise
static int group_blocks(contact_data* c, const solver_problem* yp, const int* l, int n) {
  solver_blocks* B = c->G;
  if (n > SOLVER_YGROUP_MAX) return 0;
  for (int b = 0; b < n; b++)
    if (c->key[2 * l[b] + 1] >= 0 || !same_chain(c, l[0], l[b])) return 0;
  double* rows[SOLVER_YGROUP_MAX] = {NULL};
  for (int a = 0; a < n; a++) rows[a] = B->blk + 9 * (size_t)B->rowptr[l[a]];
  if (!solver_yblocks_same(yp, l, n, rows)) return 0;
  for (int a = 0; a < n; a++) {
    int ra = B->rowptr[l[a]];
    for (int b = 0; b < n; b++) B->col[ra + b] = l[b];
    B->diag[l[a]] = ra + a;
    c->fill[l[a]] = ra + n;
  }
  return 1;
}

// every block of G (contact.h): row i holds the contacts of i's buckets (merged, ascending, i
// itself included; a contact without a root has its diagonal block only); each block
// (i, j >= i) summed over the dofs both chains share, stored in row i and transposed in row j.
// The number of blocks, or -1 when they pass the buffers' bound
static long full_blocks(contact_data* c, const solver_problem* yp, const int* bp) {
  solver_blocks* B = c->G;
  int nc = c->ncon;
  long nb = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      for (int i = 0; i < nc; i++) c->fill[i] = B->rowptr[i];
    }
    for (int i = 0; i < nc; i++) {
      if (pass == 0) B->rowptr[i] = (int)nb;
      int k1 = c->key[2 * i], k2 = c->key[2 * i + 1];
      const int* l1 = k1 >= 0 ? c->bucket + bp[k1] : NULL;
      const int* l2 = k2 >= 0 ? c->bucket + bp[k2] : NULL;
      int n1 = k1 >= 0 ? bp[k1 + 1] - bp[k1] : 0, n2 = k2 >= 0 ? bp[k2 + 1] - bp[k2] : 0;
      if (n1 + n2 == 0) {  // no dof: the (zero) diagonal block alone
        if (pass == 0) {
          nb++;
        } else {
          B->diag[i] = c->fill[i];
          B->col[c->fill[i]] = i;
          memset(B->blk + 9 * (size_t)c->fill[i]++, 0, 9 * sizeof(double));
        }
        continue;
      }
      if (pass == 0 && n2 == 0) {  // one tree: its bucket is the row (no merge to count)
        nb += n1;
        continue;
      }
      if (pass == 1 && n2 == 0) {  // one tree: its bucket is the row, ascending
        // a row filled before its turn is its group's (a row's diagonal block is otherwise
        // stored at its own turn)
        if (c->fill[i] == B->rowptr[i + 1] || (i == l1[0] && group_blocks(c, yp, l1, n1)))
          continue;
        for (int p1 = 0; p1 < n1; p1++)
          if (l1[p1] >= i) put_block(c, yp, i, l1[p1]);
        continue;
      }
      int p1 = 0, p2 = 0;
      while (p1 < n1 || p2 < n2) {
        int j;
        if (p2 >= n2 || (p1 < n1 && l1[p1] < l2[p2])) j = l1[p1++];
        else if (p1 >= n1 || l2[p2] < l1[p1]) j = l2[p2++];
        else { j = l1[p1++]; p2++; }
        if (pass == 0) nb++;
        else if (j >= i) put_block(c, yp, i, j);  // j < i: stored when row j was done
      }
    }
    if (pass == 0) {
      B->rowptr[nc] = (int)nb;
      // the bound of contact_max_blocks holds for any contacts (contact.h); were it ever
      // wrong, report rather than write past the buffers
      if (nb > B->maxblocks) return -1;
    }
  }
  return nb;
}

// a joint entry's frame, bodies, friction and Jacobian (contact.h): it acts on its own dofs (its
// chain is its body's, ancestor-closed as G's assembly needs: L^-T spreads the row over the
// ancestors; J is zero but there): a limit's normal row +1 (lower) or -1 (upper) on the dof, a
// ball joint's cone limit -axis on its three dofs (MuJoCo's row; the axis in the entry's normal,
// stage.c), a dry friction row's t1 row +1 on its dof (the box: mu 1, the normal pinned)
static void joint_jacobian(const sim_model* m, contact_data* c, int i) {
  int j = c->con[i].geom2, dof = m->jnt_dofadr[j], mc0 = c->maxchain;
  double* J = c->J + (size_t)i * 3 * mc0;
  int* chain = c->chain + (size_t)i * mc0;
  int fric = c->con[i].geom1 == CONTACT_JOINT_FRICTION;
  c->body1[i] = 0;
  c->body2[i] = m->jnt_body[j];
  sp_eye3(c->frame + 9 * i);
  c->mu[i] = fric ? 1 : 0;
  c->box[i] = (unsigned char)fric;
  int n = kin_chain(m, m->jnt_body[j], chain);
  c->nchain[i] = n;
  set_key(c, i, n > 0 ? chain[0] : -1, -1);
  for (int r = 0; r < 3; r++) memset(J + (size_t)r * mc0, 0, sizeof(double) * (size_t)n);
  int ball = m->jnt_type[j] == MODEL_JOINT_BALL;
  for (int k = 0; k < n; k++) {
    if (fric) {
      if (chain[k] == dof + c->con[i].feature - 2) J[k] = 1.0;
    } else if (ball && chain[k] >= dof && chain[k] < dof + 3) {
      J[2 * mc0 + k] = -c->con[i].normal[chain[k] - dof];
    } else if (chain[k] == dof) {
      J[2 * mc0 + k] = c->con[i].feature == 0 ? 1.0 : -1.0;
    }
  }
}

// a spin entry j of contact i = -2 - link[j] (contact.h): its contact's bodies and frame, its
// rows the relative rotation about n (torsion), and for condim 6 about t1 and t2 (rolling);
// condim 4's rolling rows are inert (zero, mu_roll 0; limit_rows gives them a diagonal)
static void spin_jacobian(const sim_model* m, const sim_data* d, contact_data* c,
                          const contact_options* opt, int j, int* tmpdofs, double* tmpjac) {
  int i = -2 - c->link[j], g1 = c->con[i].geom1, g2 = c->con[i].geom2;
  double spin[2], A[9] = {0};
  c->box[j] = 0;
  c->body1[j] = c->body1[i];
  c->body2[j] = c->body2[i];
  memcpy(c->frame + 9 * j, c->frame + 9 * i, 9 * sizeof(double));
  mat_pair_spin(opt->mat, g1, g2, spin);
  int six = mat_pair_condim(opt->mat, g1, g2) >= 6;
  c->mu[j] = spin[0];
  c->mu_roll[j] = six ? spin[1] : 0;
  memcpy(A, c->frame + 9 * i + 6, 3 * sizeof(double));
  if (six) memcpy(A + 3, c->frame + 9 * i, 6 * sizeof(double));
  contact_jacobian(m, d, c, j, A, 1, tmpdofs, tmpjac);
}

// two doubles, the same operation on each (GCC's vector extension, as solver_impl.h's)
typedef double contact_v2 __attribute__((vector_size(16), aligned(8)));

// point_rows for the g contacts from i on, all of one chain: the rows of dofs[0..nb) (one body's
// chain, times sgn) at column off of each contact's J. Two contacts at a time, one in each half
// of a vector (an odd last one in both, its copy not stored), each dof's axis and body read once
// for them: each point's rows take point_rows' operations in its order (the same bits; the
// scalar loop was 28e3 instructions of chain_10's step, 67 an entry)
static void point_rows_n(const sim_model* m, const sim_data* d, contact_data* c, int i, int g,
                         const int* dofs, int nb, int off, double sgn) {
  int mc = c->maxchain;
  for (int t = 0; t < g; t += 2) {
    int u = t + 1 < g ? t + 1 : t;  // the second half's contact
    const double *Fa = c->frame + 9 * (i + t), *Fb = c->frame + 9 * (i + u);
    const double *pa = c->con[i + t].pos, *pb = c->con[i + u].pos;
    contact_v2 f[9], p[3], r[3] = {{0, 0}, {0, 0}, {0, 0}};
    for (int q = 0; q < 9; q++) f[q] = (contact_v2){Fa[q], Fb[q]};
    for (int q = 0; q < 3; q++) p[q] = (contact_v2){pa[q], pb[q]};
    double *Ja = c->J + (size_t)(i + t) * 3 * mc + off, *Jb = c->J + (size_t)(i + u) * 3 * mc + off;
    int rb = -1;
    for (int k = 0; k < nb; k++) {
      const double* al = d->cdofw + 6 * dofs[k];
      const double* aw = al + 3;
      contact_v2 j0, j1, j2;
      if (aw[0] == 0 && aw[1] == 0 && aw[2] == 0) {  // a translation: a_lin + 0 x r
        j0 = (contact_v2){al[0], al[0]}, j1 = (contact_v2){al[1], al[1]};
        j2 = (contact_v2){al[2], al[2]};
      } else {
        int b = m->dof_body[dofs[k]];
        if (b != rb) {
          const double* xb = d->xpos + 3 * b;
          for (int q = 0; q < 3; q++) r[q] = p[q] - xb[q];
          rb = b;
        }
        j0 = (aw[1] * r[2] - aw[2] * r[1]) + al[0];  // sp_cross3 then sp_add3
        j1 = (aw[2] * r[0] - aw[0] * r[2]) + al[1];
        j2 = (aw[0] * r[1] - aw[1] * r[0]) + al[2];
      }
      contact_v2 v0 = f[0] * j0 + f[1] * j1 + f[2] * j2;
      contact_v2 v1 = f[3] * j0 + f[4] * j1 + f[5] * j2;
      contact_v2 v2 = f[6] * j0 + f[7] * j1 + f[8] * j2;
      if (sgn != 1.0) v0 *= sgn, v1 *= sgn, v2 *= sgn;
      Ja[k] = v0[0], Ja[mc + k] = v1[0], Ja[2 * mc + k] = v2[0];
      if (u != t) Jb[k] = v0[1], Jb[mc + k] = v1[1], Jb[2 * mc + k] = v2[1];
    }
  }
}

// contact_jacobian for the g contacts from i on, all between the same two bodies (one chain),
// when the chain is the bodies' chains one after the other: one body moves (a body on the
// ground: the other chain is empty) or one tree's dofs all lie below the other's (a stack of
// free bodies). Without a dof both chains hold, contact_jacobian's merge only places entries:
// the same J. The chain is found once and each dof's axis read once for the g points
// (point_rows_n). 0 (nothing done) when the chains interleave or share dofs
static int group_jacobian(const sim_model* m, const sim_data* d, contact_data* c, int i, int g,
                          int* tmpdofs) {
  int mc = c->maxchain, *chain = c->chain + (size_t)i * mc;
  int n2 = kin_chain(m, c->body2[i], chain), n1 = kin_chain(m, c->body1[i], tmpdofs);
  int root2 = n2 > 0 ? chain[0] : -1, root1 = n1 > 0 ? tmpdofs[0] : -1;
  if (n1 > 0 && n2 > 0 && chain[n2 - 1] < tmpdofs[0]) {  // body2's tree first, then body1's
    memcpy(chain + n2, tmpdofs, sizeof(int) * (size_t)n1);
    point_rows_n(m, d, c, i, g, chain, n2, 0, 1.0);
    point_rows_n(m, d, c, i, g, chain + n2, n1, n2, -1.0);
  } else if (n1 > 0 && n2 > 0 && tmpdofs[n1 - 1] < chain[0]) {  // body1's tree first
    memmove(chain + n1, chain, sizeof(int) * (size_t)n2);
    memcpy(chain, tmpdofs, sizeof(int) * (size_t)n1);
    point_rows_n(m, d, c, i, g, chain, n1, 0, -1.0);
    point_rows_n(m, d, c, i, g, chain + n1, n2, n1, 1.0);
  } else if (n1 > 0 && n2 > 0) {
    return 0;
  } else if (n1 > 0) {  // body1 alone moves
    memcpy(chain, tmpdofs, sizeof(int) * (size_t)n1);
    point_rows_n(m, d, c, i, g, chain, n1, 0, -1.0);
  } else {
    point_rows_n(m, d, c, i, g, chain, n2, 0, 1.0);
  }
  for (int t = 0; t < g; t++) {
    if (t > 0) memcpy(c->chain + (size_t)(i + t) * mc, chain, sizeof(int) * (size_t)(n1 + n2));
    c->nchain[i + t] = n1 + n2;
    set_key(c, i + t, root2, root1);
  }
  return 1;
}

// frames, bodies and friction of the contacts (the spin entries copy their contact's)
static void build_frames(const sim_model* m, contact_data* c, const contact_options* opt) {
  for (int i = 0; i < c->ncon; i++) {
    if (c->con[i].geom1 < 0) continue;
    c->box[i] = 0;
    c->body1[i] = m->geom_body[c->con[i].geom1];
    c->body2[i] = m->geom_body[c->con[i].geom2];
    make_frame(c->frame + 9 * i, c->con[i].normal);
    // friction of the pair's materials (material.h), or the global coefficient
    c->mu[i] = opt->mat ? mat_pair(opt->mat, c->con[i].geom1, c->con[i].geom2).mu : opt->friction;
  }
}

// frames, bodies, friction and Jacobians of the contacts and the joint entries; the contacts
// of one pair of bodies (collision lists them one after the other) in groups (group_jacobian)
static void build_jacobians(const sim_model* m, const sim_data* d, contact_data* c,
                            const contact_options* opt, int* tmpdofs, double* tmpjac) {
  build_frames(m, c, opt);
  for (int i = 0; i < c->ncon; i++) {
    if (c->con[i].geom1 <= CONTACT_SPIN) {  // after its contact (they come last)
      spin_jacobian(m, d, c, opt, i, tmpdofs, tmpjac);
      continue;
    }
    if (c->con[i].geom1 < 0) {
      joint_jacobian(m, c, i);
      continue;
    }
    int g = 1;
    while (g < kGroup && i + g < c->ncon && c->con[i + g].geom1 >= 0 &&
           c->body1[i + g] == c->body1[i] && c->body2[i + g] == c->body2[i])
      g++;
    if (group_jacobian(m, d, c, i, g, tmpdofs)) {
      i += g - 1;
      continue;
    }
    contact_jacobian(m, d, c, i, c->frame + 9 * i, 0, tmpdofs, tmpjac);
  }
}

// the rows of L of a chain's dofs with each dof's ancestors reversed (root first) into lrev, at
// L's addresses (dof_Madr; the diagonal entries are not copied): y_path then reads a row
// ascending, as it writes the Y rows, so its loop vectorizes without reversing every pair of
// loads (it read L's rows backwards: chain_40 1.05e6 instructions per step in the walk). Each
// row once per step (LZERO_REV in lzero), only those of the long chains' dofs (humanoid100: 27
// of 627 dofs, 17000 instructions per step to reverse them all)
static void l_reversed(const sim_model* m, const double* L, const int* chain, int n,
                       unsigned char* lzero, double* lrev) {
  // one root-to-body path (its deepest dof has the n - 1 others as ancestors): a chain holds
  // every ancestor of its dofs, so a reversed row means reversed ancestors, and the walk from the
  // deepest dof stops at the first (a chain lying down: each link's contacts add one dof to the
  // last link's, 3.5e4 instructions a step in the checks of chain_40 before)
  int e = chain[n - 1];
  int one = (e + 1 < m->nv ? m->dof_Madr[e + 1] : m->nM) - m->dof_Madr[e] == n;
  for (int k = n - 1; k >= 0; k--) {
    int d = chain[k];
    if (lzero[d] & LZERO_REV) {
      if (one) return;
      continue;
    }
    lzero[d] |= LZERO_REV;
    int a = m->dof_Madr[d] + 1, na = (d + 1 < m->nv ? m->dof_Madr[d + 1] : m->nM) - a;
    for (int u = 0; u < na; u++) lrev[a + u] = L[a + na - 1 - u];
  }
}

// build_y on a long chain made of root-to-body paths (a chain of links touching the ground, or
// two such trees): each dof's parent is the entry before it, so each dof's ancestors sit just
// below it, root first, as its row of lrev (l_reversed) holds them, and the walk indexes the
// rows directly: the same operations in the same order as build_y's for each entry (the same Y
// bit for bit: an entry takes one update per dof below it, in the same order of dofs), in
// loops of independent updates the compiler vectorizes (the rows and L do not overlap:
// restrict spares the run-time overlap checks), two dofs of a path per pass and up to four rows
// per loop (y_rows), the rows of every contact on the chain in one walk (y_path).
// Kernels: entries s0..top-1 of the rows take dof k's update (row lr, values x) and then dof
// k-1's (row lq, values z), each as its own subtraction in that order: the bits of two passes,
// with one load and store of each entry instead of two, and one load of L for all the rows
static void y_path4(const double* restrict lr, const double* restrict lq, int s0, int top,
                    const double x[4], const double z[4], double* restrict ya,
                    double* restrict yb, double* restrict yc, double* restrict yd) {
  double xa = x[0], xb = x[1], xc = x[2], xd = x[3], za = z[0], zb = z[1], zc = z[2], zd = z[3];
  for (int p = s0; p < top; p++) {
    double l = lr[p], q = lq[p];
    ya[p] = (ya[p] - l * xa) - q * za;
    yb[p] = (yb[p] - l * xb) - q * zb;
    yc[p] = (yc[p] - l * xc) - q * zc;
    yd[p] = (yd[p] - l * xd) - q * zd;
  }
}

static void y_path3(const double* restrict lr, const double* restrict lq, int s0, int top,
                    const double x[3], const double z[3], double* restrict ya,
                    double* restrict yb, double* restrict yc) {
  double xa = x[0], xb = x[1], xc = x[2], za = z[0], zb = z[1], zc = z[2];
  for (int p = s0; p < top; p++) {
    double l = lr[p], q = lq[p];
    ya[p] = (ya[p] - l * xa) - q * za;
    yb[p] = (yb[p] - l * xb) - q * zb;
    yc[p] = (yc[p] - l * xc) - q * zc;
  }
}

static void y_path2r(const double* restrict lr, const double* restrict lq, int s0, int top,
                     const double x[2], const double z[2], double* restrict ya,
                     double* restrict yb) {
  double xa = x[0], xb = x[1], za = z[0], zb = z[1];
  for (int p = s0; p < top; p++) {
    double l = lr[p], q = lq[p];
    ya[p] = (ya[p] - l * xa) - q * za;
    yb[p] = (yb[p] - l * xb) - q * zb;
  }
}

static void y_path1(const double* restrict lr, const double* restrict lq, int s0, int top,
                    double x, double z, double* restrict y) {
  for (int p = s0; p < top; p++) y[p] = (y[p] - lr[p] * x) - lq[p] * z;
}

// the kernels on the nr rows y[] (values x[], z[]), four at a time
static void y_rows(const double* lr, const double* lq, int s0, int top, double* const* y,
                   const double* x, const double* z, int nr) {
  int a = 0;
  for (; nr - a >= 4 && nr - a != 6; a += 4)  // 6: twice y_path3, not y_path4 and y_path2r
    y_path4(lr, lq, s0, top, x + a, z + a, y[a], y[a + 1], y[a + 2], y[a + 3]);
  for (; nr - a >= 3; a += 3) y_path3(lr, lq, s0, top, x + a, z + a, y[a], y[a + 1], y[a + 2]);
  if (nr - a == 2) y_path2r(lr, lq, s0, top, x + a, z + a, y[a], y[a + 1]);
  if (nr - a == 1) y_path1(lr, lq, s0, top, x[a], z[a], y[a]);
}

// where a long chain's second path starts (n when it is one path), -1 when it is not made of
// one or two root-to-body paths (y_path's walk needs each dof's parent just before it)
static int path_split(const sim_model* m, const int* chain, int n) {
  const int* par = m->dof_parent;
  int r1 = n;
  for (int k = 1; k < n; k++) {
    int pk = par[chain[k]];
    if (pk >= 0 && pk != chain[k - 1]) return -1;
    if (pk < 0) {
      if (r1 < n) return -1;  // a third root
      r1 = k;
    }
  }
  return par[chain[0]] < 0 ? r1 : -1;
}

// Y of the g entries from i on, one chain made of paths (path_split's r1), their rows copied
// from J: the walk (each row's updates skipped where its two values are zero: y - l 0 changes
// at most an exact zero's sign; a chain lying flat gives its t1 row nothing on the revolute
// dofs), each dof's entries scaled by D^-1/2 once final (as build_y's last loop: the same
// products). Kept out of build_y's loop (noinline): inlined, its code made the short chains'
// walk dearer (a cube's step +1.5 %)
__attribute__((noinline)) static void y_path(const sim_model* m, const sim_data* d,
                                             contact_data* c, int i, int g, int r1) {
  int mc = c->maxchain, n = c->nchain[i], nr;
  const int* chain = c->chain + (size_t)i * mc;
  const double* s = d->qLDiagSqrtInv;
  double *y[3 * kGroup], *ry[3 * kGroup], rx[3 * kGroup], rz[3 * kGroup];
  for (int a = 0; a < 3 * g; a++) y[a] = c->Y + (size_t)(3 * i + a) * mc;  // row a of the g
  for (int k = n - 1; k >= 0; k--) {
    int s0 = k >= r1 ? r1 : 0;  // the path's root: the ancestor at p is lr[p]
    const double* lr = c->lrev + m->dof_Madr[chain[k]] + 1 - s0;
    double sk = s[chain[k]];
    if (k - 1 <= s0) {  // no second dof of the path above its root: k alone
      for (int a = 0; a < 3 * g; a++) {
        double x = y[a][k], *ya = y[a];
        ya[k] = x * sk;
        if (x != 0)
          for (int p = s0; p < k; p++) ya[p] -= lr[p] * x;
      }
      continue;
    }
    int k1 = --k;  // dof k - 1 walks the same path after k: the two walks in one pass
    const double* lq = c->lrev + m->dof_Madr[chain[k1]] + 1 - s0;
    double sk1 = s[chain[k1]], lk1 = lr[k1];  // read once (the rows' stores could alias it)
    nr = 0;
    for (int a = 0; a < 3 * g; a++) {
      double* ya = y[a];
      double x = ya[k1 + 1];
      ya[k1 + 1] = x * sk;
      if (x != 0) ya[k1] -= lk1 * x;  // k's update of k - 1 first: then k - 1's value is final
      double z = ya[k1];
      ya[k1] = z * sk1;
      if (x != 0 || z != 0) ry[nr] = ya, rx[nr] = x, rz[nr++] = z;
    }
    y_rows(lr, lq, s0, k1, ry, rx, rz, nr);
  }
}

// y_one_path's update of two rows by dof k's row l of L (k entries, ancestors nearest first)
static inline void y_walk2(const double* restrict l, int k, double xa, double xb,
                           double* restrict ya, double* restrict yb) {
  for (int u = 0, p = k - 1; p >= 0; u++, p--) {
    ya[p] -= l[u] * xa;
    yb[p] -= l[u] * xb;
  }
}

// y_one_path's update of the three rows by dof k's row l of L (not all zero), y[k] not all zero
static inline void y_step(const double* restrict l, int k, double* restrict y0,
                          double* restrict y1, double* restrict y2) {
  double x0 = y0[k], x1 = y1[k], x2 = y2[k];
  // a row whose value is zero takes no update (y_path's rule: a chain lying flat gives its t1
  // row nothing on the revolute dofs)
  if (x1 == 0) y_walk2(l, k, x0, x2, y0, y2);
  else if (x0 == 0) y_walk2(l, k, x1, x2, y1, y2);
  else if (x2 == 0) y_walk2(l, k, x0, x1, y0, y1);
  else
    for (int u = 0, p = k - 1; p >= 0; u++, p--) {
      y0[p] -= l[u] * x0;
      y1[p] -= l[u] * x1;
      y2[p] -= l[u] * x2;
    }
}

// 1 when chain[0..n) is one root-to-body path: its last dof's row of L lists the n - 1 others,
// the farthest (the root) chain[0]; a part of a two-tree chain (y_two_paths) that holds dofs of
// the other tree is not one path even when the count matches
static inline int one_path(const sim_model* m, const int* chain, int n) {
  const int* adr = m->dof_Madr;
  int last = chain[n - 1];
  return (last + 1 < m->nv ? adr[last + 1] : m->nM) - adr[last] == n &&
         m->dof_Mcol[adr[last] + n - 1] == chain[0];
}

// 1 when the k entries l[0..k) of a dof's row of L (its ancestors') are all zero; *z caches the
// answer for the step: 0 not yet known, 1 zero, 2 not (LZERO_KNOWN)
static inline int l_row_zero(const double* l, int k, unsigned char* z) {
  if ((*z & LZERO_KNOWN) == 0) {
    int u = 0;
    while (u < k && l[u] == 0) u++;
    *z |= u == k ? 1 : 2;
  }
  return (*z & LZERO_KNOWN) == 1;
}

// build_y's walk on a chain that is one root-to-body path (a contact of one body with the world,
// two bodies of one path): the last dof's row of L lists every other dof of the chain, so dof
// chain[k]'s row holds chain[k-1], chain[k-2], ... chain[0] in that order and the walk indexes
// the rows directly, without build_y's position map: the same operations in the same order (the
// same Y bit for bit). 0 (nothing done) when the chain is not one path
static inline int y_one_path(const sim_model* m, const double* restrict L, unsigned char* lzero,
                             const int* chain, int n, double* restrict y0, double* restrict y1,
                             double* restrict y2) {
  const int* adr = m->dof_Madr;
  if (!one_path(m, chain, n)) return 0;
  for (int k = n - 1; k > 0; k--) {
    // a zero row of L (a free body's translations; its rotations too when the centre of mass
    // is the body's origin and the inertia diagonal): y - 0 x changes at most an exact zero's
    // sign
    if (y0[k] == 0 && y1[k] == 0 && y2[k] == 0) continue;
    const double* l = L + adr[chain[k]] + 1;  // (chain[k], chain[k-1-u]) at l[u]
    if (!l_row_zero(l, k, lzero + chain[k])) y_step(l, k, y0, y1, y2);
  }
  return 1;
}

// 1 when the chain is one root-to-body path (y_one_path's test) whose dofs' rows of L are all
// zero (a free body whose centre of mass is its origin and inertia diagonal): its walk does
// nothing
static int y_path_zero(const sim_model* m, const double* L, unsigned char* lzero,
                       const int* chain, int n) {
  const int* adr = m->dof_Madr;
  if (!one_path(m, chain, n)) return 0;
  for (int k = n - 1; k > 0; k--)
    if (!l_row_zero(L + adr[chain[k]] + 1, k, lzero + chain[k])) return 0;
  return 1;
}

// build_y's whole work on a chain of six dofs that is one path (a free body against the world):
// the copy, y_one_path's walk and the scaling with n a constant, so that the compiler unrolls
// them (the same operations in the same order); zero: the caller knows its rows of L zero (the
// previous entry's chain). 2 when the rows were zero (no walk), 1 walked, 0 (Y's rows copied,
// nothing else) when the chain is not one path
static int y_six(const sim_model* m, const sim_data* d, unsigned char* lzero, const int* chain,
                 const double* J, int mc, int zero, double* restrict y0, double* restrict y1,
                 double* restrict y2) {
  const double* s = d->qLDiagSqrtInv;
  if (zero || y_path_zero(m, d->qLD, lzero, chain, 6)) {  // no walk: Y = D^-1/2 J', the same
    for (int k = 0; k < 6; k++) {                          // products
      double sk = s[chain[k]];
      y0[k] = J[k] * sk, y1[k] = J[mc + k] * sk, y2[k] = J[2 * mc + k] * sk;
    }
    return 2;
  }
  for (int k = 0; k < 6; k++) y0[k] = J[k], y1[k] = J[mc + k], y2[k] = J[2 * mc + k];
  if (!y_one_path(m, d->qLD, lzero, chain, 6, y0, y1, y2)) return 0;
  for (int k = 0; k < 6; k++) {
    double sk = s[chain[k]];
    y0[k] *= sk;
    y1[k] *= sk;
    y2[k] *= sk;
  }
  return 1;
}

// an entry's three rows of six (stride mc) from J into Y, times s[k] on column k when s is set
// (J may be Y): y_six's copy and products, each row read whole before it is written (so the
// loops vectorize)
static inline void y_six_rows(const double* J, double* Y, int mc, const double* s) {
  for (int r = 0; r < 3; r++) {
    const double* a = J + (size_t)r * mc;
    double* y = Y + (size_t)r * mc;
    double v[6];
    if (s)
      for (int k = 0; k < 6; k++) v[k] = a[k] * s[k];
    else
      for (int k = 0; k < 6; k++) v[k] = a[k];
    for (int k = 0; k < 6; k++) y[k] = v[k];
  }
}

// y_six for the g entries from i on, all on the same chain of six dofs (a free body's corners on
// the ground): the chain's checks and its rows of L looked up once, each entry then the same
// copy, walk (y_one_path's updates in its order) and scaling. 2, 1 as y_six; 0 (nothing done)
// when the chain is not one path
static int y_six_group(const sim_model* m, const sim_data* d, contact_data* c, int i, int g,
                       int zero) {
  int mc = c->maxchain;
  const int* chain = c->chain + (size_t)i * mc;
  const double* L = d->qLD;
  int zrow = zero || y_path_zero(m, L, c->lzero, chain, 6);
  if (!zrow && !one_path(m, chain, 6)) return 0;
  double sk[6];
  int walk[5], nw = 0;  // the dofs whose rows of L are not zero, the last first (the walk's order)
  for (int k = 0; k < 6; k++) sk[k] = d->qLDiagSqrtInv[chain[k]];
  for (int k = 5; k > 0 && !zrow; k--)
    if (!l_row_zero(L + m->dof_Madr[chain[k]] + 1, k, c->lzero + chain[k])) walk[nw++] = k;
  for (int t = i; t < i + g; t++) {
    double* y0 = c->Y + (size_t)t * 3 * mc;
    double *y1 = y0 + mc, *y2 = y1 + mc;
    y_six_rows(c->J + (size_t)t * 3 * mc, y0, mc, zrow ? sk : NULL);  // zrow: Y = D^-1/2 J'
    if (zrow) continue;
    for (int w = 0; w < nw; w++) {
      int k = walk[w];
      if (!(y0[k] == 0 && y1[k] == 0 && y2[k] == 0))
        y_step(L + m->dof_Madr[chain[k]] + 1, k, y0, y1, y2);
    }
    y_six_rows(y0, y0, mc, sk);
  }
  return zrow ? 2 : 1;
}

// build_y's walk on a chain of two trees, each one root-to-body path (a contact between two free
// bodies: a stack): the walk up one tree's path never touches the other's entries, so each tree
// takes y_one_path's walk alone, each entry the same updates in the same order as build_y's
// (the same Y bit for bit). 0 (nothing done) when the chain is not two such paths
static int y_two_paths(const sim_model* m, const double* restrict L, unsigned char* lzero,
                       const int* chain, int n, double* restrict y0, double* restrict y1,
                       double* restrict y2) {
  int r1 = 1;  // where the second tree starts (its root)
  while (r1 < n && m->dof_parent[chain[r1]] >= 0) r1++;
  if (r1 >= n) return 0;
  // both checks before either walk (y_one_path walks once its check passes)
  const int* adr = m->dof_Madr;
  int e = chain[r1 - 1];
  if ((e + 1 < m->nv ? adr[e + 1] : m->nM) - adr[e] != r1) return 0;
  if (!y_one_path(m, L, lzero, chain + r1, n - r1, y0 + r1, y1 + r1, y2 + r1)) return 0;
  return y_one_path(m, L, lzero, chain, r1, y0, y1, y2);
}

// y[0..n) = J[0..n): rows of Y and J never overlap (restrict: a vectorized copy, no check)
static inline void row_copy(double* restrict y, const double* restrict J, int n) {
  for (int k = 0; k < n; k++) y[k] = J[k];
}

// build_y's whole work on entry i's long chain when it is made of paths (path_split), together
// with the entries after i on the same chain (one pair of bodies: a link's 4 corners): their
// rows copied from J, y_path's walk and scaling. The number of entries done, 0 (nothing done)
// when the chain is not made of paths. Walking the link's six spatial rows once and mapping
// them to each corner (F (y_lin + y_ang x r)) was measured slower or even (docs/status.md,
// issue 26: the map costs what the twelve rows' walk saves up to ~30 dofs)
static int y_long(const sim_model* m, const sim_data* d, contact_data* c, int i) {
  int mc = c->maxchain, n = c->nchain[i], g = 1;
  const int* chain = c->chain + (size_t)i * mc;
  int r1 = path_split(m, chain, n);
  if (r1 < 0) return 0;
  while (g < kGroup && i + g < c->ncon && same_chain(c, i, i + g)) g++;
  for (int a = 0; a < 3 * g; a++)
    row_copy(c->Y + (size_t)(3 * i + a) * mc, c->J + (size_t)(3 * i + a) * mc, n);
  l_reversed(m, d->qLD, chain, n, c->lzero, c->lrev);
  y_path(m, d, c, i, g, r1);
  return g;
}

// build_y's walk on any chain (ascending, ancestor-closed), through the dofs' positions in it
// (pos): for k from the last dof down, its values subtracted times L up its row
static void y_walk_map(const sim_model* m, const double* L, int* pos, const int* chain, int n,
                       double* y0, double* y1, double* y2) {
  const int* col = m->dof_Mcol;
  for (int k = 0; k < n; k++) pos[chain[k]] = k;
  for (int k = n - 1; k >= 0; k--) {
    int dof = chain[k];
    double x0 = y0[k], x1 = y1[k], x2 = y2[k];
    if (x0 == 0 && x1 == 0 && x2 == 0) continue;
    // (dof, par[dof]), then up the row
    for (int a = m->dof_Madr[dof] + 1, e = dof + 1 < m->nv ? m->dof_Madr[dof + 1] : m->nM; a < e;
         a++) {
      int p = pos[col[a]];
      double l = L[a];
      y0[p] -= l * x0;
      y1[p] -= l * x1;
      y2[p] -= l * x2;
    }
  }
}

// Y = D^-1/2 L^-T J' on each contact's chain (ancestor-closed, so L^-T stays on it): for each
// of the three rows the same operations, in the same order, as dyn_solve_half on the full
// row; the rows share one walk up L's row per dof, skipped when all three values are zero
// (a row whose value alone is zero subtracts L * 0: only an exact zero's sign can change).
static void build_y(const sim_model* m, const sim_data* d, contact_data* c) {
  int mc = c->maxchain;
  const double* L = d->qLD;
  if (m->nv > 0) memset(c->lzero, 0, (size_t)m->nv);  // L's zero rows: found as y_one_path asks
  int zchain = 0;  // entry i - 1's chain: y_six's, all its rows of L zero (y_path_zero)
  for (int i = 0; i < c->ncon; i++) {
    const int* chain = c->chain + (size_t)i * mc;
    int n = c->nchain[i];
    double* Y = c->Y + (size_t)i * 3 * mc;
    double *y0 = Y, *y1 = Y + mc, *y2 = Y + 2 * (size_t)mc;
    const double* J = c->J + (size_t)i * 3 * mc;
    // entry i - 1 on the same chain found it a free body's (or two's) with zero rows of L
    int zero = zchain && same_chain(c, i, i - 1), r = 0, r2 = 0;
    zchain = 0;
    // a free body's entries (same chain, one after the other: its corners) together
    int ng = 1;
    while (n == 6 && ng < kGroup && i + ng < c->ncon && same_chain(c, i, i + ng)) ng++;
    if (n == 6 && (r = y_six_group(m, d, c, i, ng, zero)) > 0) {
      zchain = r == 2;
      i += ng - 1;
      continue;
    }
    // two free bodies (y_two_paths' two trees, unrolled): the second tree's path first (its
    // check finds it a tree of its own), then the first's; when either is not a path the copy
    // below starts over
    if (n == 12 && (r2 = y_six(m, d, c->lzero, chain + 6, J + 6, mc, zero, y0 + 6, y1 + 6, y2 + 6)) &&
        (r = y_six(m, d, c->lzero, chain, J, mc, zero, y0, y1, y2)) > 0) {
      zchain = r == 2 && r2 == 2;
      continue;
    }
    // a long chain, or a chain of a few links that several entries share (y_long's walk then
    // serves them all: a link's corners)
    int shared = n > 6 && i + 1 < c->ncon && same_chain(c, i, i + 1);
    int g = n > kPathWalk || shared ? y_long(m, d, c, i) : 0;
    if (g > 0) {
      i += g - 1;
      continue;
    }
    // the rows' first n entries (nothing reads past nchain); a loop: a chain is a few dofs,
    // three memcpy calls cost more than the copy
    for (int k = 0; k < n; k++) y0[k] = J[k], y1[k] = J[mc + k], y2[k] = J[2 * mc + k];
    if (n > 1 && n <= kPathWalk &&
        (y_one_path(m, L, c->lzero, chain, n, y0, y1, y2) ||
         y_two_paths(m, L, c->lzero, chain, n, y0, y1, y2)))
      n = 0;
    y_walk_map(m, L, c->pos, chain, n, y0, y1, y2);
    n = c->nchain[i];
    for (int k = 0; k < n; k++) {
      double s = d->qLDiagSqrtInv[chain[k]];
      y0[k] *= s;
      y1[k] *= s;
      y2[k] *= s;
    }
  }
}

// contacts bucketed by root dof into c->bucket_ptr / c->bucket (counting sort: ascending
// contacts within a bucket)
static void bucket_by_root(contact_data* c, int nv) {
  int nc = c->ncon;
  int* bp = c->bucket_ptr;
  if (nv > 0) memset(bp, 0, sizeof(int) * (size_t)(nv + 1));
  for (int i = 0; i < nc; i++)
    for (int t = 0; t < 2; t++)
      if (c->key[2 * i + t] >= 0) bp[c->key[2 * i + t] + 1]++;
  for (int r = 0; r < nv; r++) bp[r + 1] += bp[r];
  for (int i = 0; i < nc; i++)
    for (int t = 0; t < 2; t++)
      if (c->key[2 * i + t] >= 0) c->bucket[bp[c->key[2 * i + t]]++] = i;
  for (int r = nv; r > 0; r--) bp[r] = bp[r - 1];
  if (nv > 0) bp[0] = 0;
}

// G's blocks from the factored form (solver_yblock; ydiag is set by limit_rows) and its
// islands: every block (full_blocks), or under diag_only the diagonal blocks alone (the solver
// works on Y, solver.h) with the islands from the buckets. -1 (G emptied) when the blocks pass
// the buffers' bound
// a root dof of a free joint (a floating body or robot base)
static int free_root(const sim_model* m, int dof) {
  return dof >= 0 && m->jnt_type[m->dof_jnt[dof]] == MODEL_JOINT_FREE;
}

// solver.name auto (contact_options auto_split): 1 when an island of B's (from the buckets)
// couples bodies, i.e. holds a contact between two free-floating trees (a stack, a pile: 000
// Fig. 12's per-contact stall; a fixed-base arm pushing an object stays with PGS and its stall
// test) or more than CONTACT_AUTO_MAX_CONTACTS contacts (a chain lying down). Only contacts
// count: a joint's dry friction row, limit or spin entry is one joint's or one contact's row,
// which PGS settles alone (Go1's 12 frictional joints made every 2-foot stance island of its
// walk "coupled": ADMM on 9,997 of 10,000 steps, 2,633 at the cap, where PGS converges in 7.9
// sweeps)
static int any_coupled(const sim_model* m, const contact_data* c, const solver_blocks* B) {
  for (int k = 0; k < B->nisland; k++) {
    int a = B->island_ptr[k], b = B->island_ptr[k + 1], ncon = 0;
    for (int q = a; q < b; q++) {
      int i = B->island_con[q];
      if (c->con[i].geom1 < 0) continue;  // a limit, dry friction row or spin entry
      const int* key = c->key + 2 * i;
      if (free_root(m, key[0]) && free_root(m, key[1])) return 1;
      if (++ncon > CONTACT_AUTO_MAX_CONTACTS) return 1;
    }
  }
  return 0;
}

// the factored form alone (solver_yblock's input)
static solver_problem y_problem(const contact_data* c) {
  solver_problem yp = {0};
  yp.ystride = c->maxchain;
  yp.ynz = c->nchain;
  yp.ydof = c->chain;
  yp.Y = c->Y;
  return yp;
}

static int assemble_g(const sim_model* m, contact_data* c, const contact_options* opt) {
  int nv = m->nv;
  int nc = c->ncon, *bp = c->bucket_ptr;
  solver_problem yp = y_problem(c);
  solver_blocks* B = c->G;
  B->nc = nc;
  int diag = opt->diag_only;
  if (opt->auto_split) {  // the islands first (the same from the buckets as from the blocks)
    solver_blocks_islands_grouped(B, bp, c->bucket, nv);
    diag = diag || any_coupled(m, c, B);
  }
  B->diag_only = diag;
  long nb = nc;
  if (diag) {
    for (int i = 0; i < nc; i++) B->rowptr[i] = B->diag[i] = B->col[i] = i;
    for (int i = 0; i < nc; i++) {
      if (i + 1 < nc && c->nchain[i + 1] == c->nchain[i]) {  // two at once: a link's corners
        solver_yblock_diag2(&yp, i, B->blk + 9 * (size_t)i);
        i++;
        continue;
      }
      solver_yblock_on(&yp, i, i, 1, B->blk + 9 * (size_t)i);
    }
    B->rowptr[nc] = nc;
  } else if ((nb = full_blocks(c, &yp, bp)) < 0) {
    B->nc = 0;
    return -1;
  }
  B->nblocks = nb;
  if (opt->auto_split) return 0;  // islands done above
  if (diag) solver_blocks_islands_grouped(B, bp, c->bucket, nv);
  else solver_blocks_islands(B);
  return 0;
}

// assemble_g when every entry is on one tree alone and on the same chain (one body on the
// ground): its one bucket holds them all, so G is every block of them (group_blocks), one
// island of every entry, and any_coupled's test is their count. The same blocks, islands and
// choice as bucket_by_root and assemble_g, without the buckets' and islands' passes. 0 (nothing
// that the general path does not redo) when the entries are not one such group
static int assemble_one(contact_data* c, const contact_options* opt) {
  solver_blocks* B = c->G;
  int nc = c->ncon;
  if (nc < 1 || nc > SOLVER_YGROUP_MAX || c->key[0] < 0 || c->key[1] >= 0 ||
      (long)nc * nc > B->maxblocks)
    return 0;
  for (int i = 1; i < nc; i++)
    if (!same_chain(c, 0, i)) return 0;  // the same chain: the same key
  int ncon = 0;
  for (int i = 0; i < nc; i++) ncon += c->con[i].geom1 >= 0;
  int diag = opt->diag_only || (opt->auto_split && ncon > CONTACT_AUTO_MAX_CONTACTS);
  solver_problem yp = y_problem(c);
  if (!diag) {
    for (int i = 0; i <= nc; i++) B->rowptr[i] = i * nc;
    for (int i = 0; i < nc; i++) c->bucket[i] = i;
    if (!group_blocks(c, &yp, c->bucket, nc)) return 0;
  } else {
    for (int i = 0; i < nc; i++) {
      B->rowptr[i] = B->diag[i] = B->col[i] = i;
      solver_yblock_on(&yp, i, i, 1, B->blk + 9 * (size_t)i);
    }
    B->rowptr[nc] = nc;
  }
  B->nc = nc;
  B->diag_only = diag;
  B->nblocks = diag ? nc : (long)nc * nc;
  B->nisland = 1;
  B->island_ptr[0] = 0;
  B->island_ptr[1] = nc;
  for (int i = 0; i < nc; i++) B->island_con[i] = i, B->uf[i] = 0;
  return 1;
}

// inert tangent rows of the joint limits: G_tt = G_nn keeps their diagonal blocks invertible
// (and the factored form's ydiag carries the same, since their Y rows are zero); a dry friction
// row's inert t2 and n rows likewise take its G_t1t1
static void limit_rows(contact_data* c) {
  int nc = c->ncon;
  solver_blocks* B = c->G;
  if (c->nlimit > 0) memset(c->ydiag, 0, sizeof(double) * 3 * (size_t)(nc - c->nlimit));
  for (int i = nc - c->nlimit; i < nc; i++) {
    double* D = B->blk + 9 * (size_t)B->diag[i];
    if (c->con[i].geom1 <= CONTACT_SPIN) {  // a spin entry: condim 4's rolling rows are inert
      c->ydiag[3 * i] = c->ydiag[3 * i + 1] = c->ydiag[3 * i + 2] = 0;
      if (c->mu_roll[i] == 0) D[4] = D[8] = c->ydiag[3 * i + 1] = c->ydiag[3 * i + 2] = D[0];
      continue;
    }
    if (c->box[i]) {
      D[4] = D[8] = D[0];
      c->ydiag[3 * i] = 0;
      c->ydiag[3 * i + 1] = c->ydiag[3 * i + 2] = D[0];
      continue;
    }
    D[0] = D[4] = D[8];
    c->ydiag[3 * i] = c->ydiag[3 * i + 1] = D[8];
    c->ydiag[3 * i + 2] = 0;
  }
}

// compliance R = alpha diag(G) on all three directions (000 Sec. III, MuJoCo-like); joint
// limits stay rigid. With MuJoCo softness (material.h) R starts at zero and rhs_soft sets the
// contacts' rows; returns 1 then
static int build_compliance(contact_data* c, const contact_options* opt) {
  int nc = c->ncon, n3 = 3 * nc;
  int soft = opt->mat && opt->mat->soft;
  c->has_R = opt->compliance > 0 || soft;
  if (soft) memset(c->R, 0, sizeof(double) * (size_t)n3);
  if (opt->compliance > 0) {
    for (int i = 0; i < nc; i++)
      for (int r = 0; r < 3; r++)
        c->R[3 * i + r] = opt->compliance * c->G->blk[9 * (size_t)c->G->diag[i] + 4 * r];
    for (int a = 3 * (nc - c->nlimit); a < n3; a++)  // spin entries keep theirs
      if (c->con[a / 3].geom1 > CONTACT_SPIN) c->R[a] = 0;
  }
  return soft;
}

// MuJoCo softness's target for contact i still apart (depth < 0: within an explicit
// contact.margin; the default under softness is 0). MuJoCo has no constraint before contact, so
// the contact must exert no impulse of its own: the rigid gap target -gap/dt would stop a soft
// impact in one step (003's toss 106: 413 N where MuJoCo gives 32 N). g - c* is kept at least the
// gap-closing value and at least mu |g_T| (g_T after the tangents' reference): then the dual-cone
// condition g_N - c* >= mu |g_T| holds and lambda = 0 solves the isolated contact's CCP, in the
// elliptic cone and in each pyramid edge n +- mu t. A contact not closing keeps -gap/dt exactly
static double apart_target(const contact_data* c, const contact_options* opt, int i,
                           double depth) {
  double gap_target = depth / opt->dt, gn = c->g[3 * i + 2];
  double mu = c->con[i].geom1 >= 0 ? c->mu[i] : 0;
  double need = mu * hypot(c->g[3 * i], c->g[3 * i + 1]);
  return gn - gap_target >= need ? gap_target : gn - need;
}

// MuJoCo softness (material.h) for contact i, whose g holds J v_free: R = (1-imp)/imp w and
// c* = J v + h aref on all three rows (sK, sB: mat_soft_kb's stiffness and damping)
static void rhs_soft(const sim_data* d, contact_data* c, const contact_options* opt, int i,
                     const double solimp[5], double w, double sK, double sB) {
  int mc = c->maxchain;
  const int* chain = c->chain + (size_t)i * mc;
  const double* J = c->J + (size_t)i * 3 * mc;
  double depth = c->con[i].depth;
  double vb[3] = {0, 0, 0}, imp = mat_impedance(solimp, -depth);
  for (int k = 0, n = c->nchain[i]; k < n; k++) {  // J v, the three rows in one pass (each in order)
    double vk = d->v[chain[k]];
    vb[0] += J[k] * vk;
    vb[1] += J[mc + k] * vk;
    vb[2] += J[2 * mc + k] * vk;
  }
  double rv = (1 - imp) * w / imp;
  for (int r = 0; r < 3; r++) c->R[3 * i + r] = rv > 1e-15 ? rv : 1e-15;
  for (int r = 0; r < 2; r++) c->g[3 * i + r] -= vb[r] - opt->dt * sB * vb[r];
  double cs = depth < 0 ? apart_target(c, opt, i, depth)
                        : vb[2] + opt->dt * (-sB * vb[2] + sK * imp * depth);
  c->cstar[i] = cs;
  c->g[3 * i + 2] -= cs;
}

// contact.cone pyramidal (MuJoCo 2.2.2's pyramidal cone, engine_core_constraint.c mj_diagApprox
// and mj_makeImpedance): contact i's impulse is lambda = E f over the edges E = [n + mu t1,
// n - mu t1, n + mu t2, n - mu t2], f >= 0, each edge a soft row with the reference E' of rhs_soft's
// (its normal and tangent references are linear in the velocity, the edge's imp is the normal's)
// and the common regularizer R_py = 2 mu^2 R_e, R_e = (1-imp)/imp w (1 + mu^2) (the edge's
// diagApprox w + mu^2 w). The Lorentz cone's R rows are not used: 0 (solver.h rpy)
static void rhs_pyramid(contact_data* c, int i) {
  double mu = c->mu[i], rn = c->R[3 * i + 2];  // rn = (1-imp)/imp w, clamped (rhs_soft)
  double re = rn * (1 + mu * mu);
  if (re < 1e-15) re = 1e-15;
  c->rpy[i] = 2 * mu * mu * re;
  for (int r = 0; r < 3; r++) c->R[3 * i + r] = 0;
  c->has_rpy = 1;
}

// MuJoCo softness of spin entry j (contact.h) of contact i: its rows are friction rows of i's
// constraint: the reference -B v (aref's friction part, as rhs_soft's tangents), and the
// regularizer scaled by the cone's coefficients, R_k = R_t mu^2 / a_k^2 (MuJoCo's elliptic
// cones: every friction row's R over a_k^2 the same); a_k = 0 keeps R_t
static void rhs_spin(const sim_data* d, contact_data* c, const contact_options* opt, int j) {
  int i = -2 - c->link[j], mc = c->maxchain;
  const int* chain = c->chain + (size_t)j * mc;
  const double* J = c->J + (size_t)j * 3 * mc;
  double solref[2], solimp[5], sK, sB;
  mat_pair_soft(opt->mat, c->con[i].geom1, c->con[i].geom2, solref, solimp);
  mat_soft_kb(solref, solimp, opt->dt, &sK, &sB);
  double a[3] = {c->mu[j], c->mu_roll[j], c->mu_roll[j]}, mu = c->mu[i];
  for (int r = 0; r < 3; r++) {
    double vb = 0;
    for (int k = 0; k < c->nchain[j]; k++) vb += J[r * mc + k] * d->v[chain[k]];
    c->g[3 * j + r] -= vb - opt->dt * sB * vb;
    c->R[3 * j + r] = a[r] > 0 && mu > 0 ? c->R[3 * i] * mu * mu / (a[r] * a[r]) : c->R[3 * i];
  }
  if (c->con[i].depth < 0) {
    // contact i still apart (apart_target): its spin rows join the dual-cone bound, g_N - c* >=
    // ||(a_k g_k)|| over all five friction rows of the generalized cone (cone.h), so that
    // lambda = 0 still solves it
    double s2 = 0;
    for (int r = 0; r < 2; r++) s2 += mu * mu * c->g[3 * i + r] * c->g[3 * i + r];
    for (int r = 0; r < 3; r++) s2 += a[r] * a[r] * c->g[3 * j + r] * c->g[3 * j + r];
    double need = sqrt(s2);
    if (c->g[3 * i + 2] < need) {
      c->cstar[i] -= need - c->g[3 * i + 2];
      c->g[3 * i + 2] = need;
    }
  }
}

// contact i's normal velocity J_N v (the sum in the chain's order): target_normal's, only
// where restitution reads it
static double normal_velocity(const contact_data* c, int i, const double* v) {
  int mc = c->maxchain;
  const int* chain = c->chain + (size_t)i * mc;
  const double* Jn = c->J + (size_t)i * 3 * mc + 2 * (size_t)mc;
  double cn = 0;
  for (int k = 0; k < c->nchain[i]; k++) cn += Jn[k] * v[chain[k]];
  return cn;
}

// target normal velocity c*_N of rigid contact i (000 Sec. II) given the velocity v before the
// step (its normal velocity cn_before, formed under restitution only): a contact still apart by
// a gap may close it within the step (c*_N = -gap/dt, exact, not an approximation); a touching
// one gets the Baumgarte correction K max(0, depth) or the restitution target -e c_N, the larger.
// Penetrations up to CONTACT_SLOP are closed within the step too (c*_N = depth/dt; beyond,
// SLOP/dt + K (depth - SLOP)), so c*_N is one continuous function of depth, affine across
// depth = 0 where resting contacts live. Without this (c*_N = depth/dt on the gap side, K
// depth on the other), a box on 4 corners whose depths straddle 0 by solver noise (~1e-10 m,
// uncorrected when K = 0) gets targets no rigid motion meets; the exact NCP solution then
// unloads one corner, far along the null space of G from the previous step's impulses, and
// warm-started PGS crawls there at a rate set by the ~1e-7 m/s mismatch (cube_slide hit the
// 2000-sweep cap on ~130 of 600 steps). 1e-9 m is far above the depth noise at tolerances
// 1e-10..1e-6 and dt <= 1e-3, and far below any scale that matters physically.
static double target_normal(const contact_data* c, const contact_options* opt, int i,
                            const double* v) {
  double cs = 0, depth = c->con[i].depth;
  if (depth < 0) {
    cs = depth / opt->dt;
  } else {
    cs = depth <= CONTACT_SLOP ? depth / opt->dt
                               : CONTACT_SLOP / opt->dt + opt->baumgarte * (depth - CONTACT_SLOP);
  }
  // restitution (000 Sec. II: c*_N = -e c_N before the impact) for a contact that touches or
  // is reached within this step at its velocity before the step (cn_before dt <= depth).
  // Applying it only at depth >= 0 lost the impact: the step that closes a gap brings c_N to
  // -gap/dt, and the next step bounced at e gap/dt (a 0.98 m/s drop rebounded at 0.11, not
  // 0.49); tiny gaps (depth straddling 0 by rounding) also got mixed targets
  double e = opt->mat && c->con[i].geom1 >= 0 ? mat_pair(opt->mat, c->con[i].geom1, c->con[i].geom2).e
                                              : opt->restitution;
  double cn_before = e > 0 && c->con[i].geom1 >= 0 ? normal_velocity(c, i, v) : 0;
  if (cn_before < 0 && cn_before * opt->dt <= depth) {
    double rs = -e * cn_before;
    if (rs > cs) cs = rs;
  }
  return cs;
}

// build_rhs's sums (J v_free's three rows) of entries i and i + 1 on one chain (a link's
// corners), one in each half of a vector: the same sums in the chain's order, into s[0..3) and
// s[3..6)
static void rhs_sums2(const contact_data* c, int i, const double* vfree, double s[6]) {
  int mc = c->maxchain;
  const int* chain = c->chain + (size_t)i * mc;
  const double *Ja = c->J + (size_t)i * 3 * mc, *Jb = Ja + 3 * mc;
  contact_v2 a0 = {0, 0}, a1 = a0, a2 = a0;
  for (int k = 0; k < c->nchain[i]; k++) {
    double vf = vfree[chain[k]];
    a0 += (contact_v2){Ja[k], Jb[k]} * vf;
    a1 += (contact_v2){Ja[mc + k], Jb[mc + k]} * vf;
    a2 += (contact_v2){Ja[2 * mc + k], Jb[2 * mc + k]} * vf;
  }
  for (int h = 0; h < 2; h++) s[3 * h] = a0[h], s[3 * h + 1] = a1[h], s[3 * h + 2] = a2[h];
}

// g = J v_free - c* (000 Sec. II): c* from target_normal, or the soft rows (rhs_soft)
static void build_rhs(const sim_model* m, const sim_data* d, contact_data* c,
                      const contact_options* opt, const double* vfree, int soft) {
  int mc = c->maxchain;
  c->has_rpy = 0;
  double next[3] = {0, 0, 0};  // entry i + 1's sums, done with entry i's (rhs_sums2)
  int have = 0;
  for (int i = 0; i < c->ncon; i++) {
    double a0, a1, a2;
    c->rpy[i] = 0;
    if (have) {
      a0 = next[0], a1 = next[1], a2 = next[2];
      have = 0;
    } else if (i + 1 < c->ncon && same_chain(c, i, i + 1) && c->nchain[i + 1] == c->nchain[i]) {
      double s[6];
      rhs_sums2(c, i, vfree, s);
      a0 = s[0], a1 = s[1], a2 = s[2];
      memcpy(next, s + 3, sizeof(next));
      have = 1;
    } else {
      // J v_free's three rows in one pass over the chain (each sum in its own register, in the
      // chain's order)
      const int* chain = c->chain + (size_t)i * mc;
      const double* J = c->J + (size_t)i * 3 * mc;
      a0 = a1 = a2 = 0;
      for (int k = 0; k < c->nchain[i]; k++) {
        double vf = vfree[chain[k]];
        a0 += J[k] * vf;
        a1 += J[mc + k] * vf;
        a2 += J[2 * mc + k] * vf;
      }
    }
    c->g[3 * i] = a0;
    c->g[3 * i + 1] = a1;
    c->g[3 * i + 2] = a2;
    if (c->con[i].geom1 <= CONTACT_SPIN) {  // friction rows: no target, or MuJoCo's (rhs_spin)
      c->cstar[i] = 0;
      if (soft) rhs_spin(d, c, opt, i);
      continue;
    }
    if (c->box[i]) {  // the pinned normal: lambda_N = b = frictionloss h (contact.h)
      int dof = m->jnt_dofadr[c->con[i].geom2] + c->con[i].feature - 2;
      double gnn = c->G->blk[9 * (size_t)c->G->diag[i] + 8];
      c->cstar[i] = gnn * m->dof_frictionloss[dof] * opt->dt;
      c->g[3 * i + 2] -= c->cstar[i];
      continue;
    }
    if (soft && c->con[i].geom1 >= 0) {
      // the pair's solref and solimp (material.h: global, or its MJCF geoms' mixed)
      double solref[2], solimp[5], sK, sB;
      mat_pair_soft(opt->mat, c->con[i].geom1, c->con[i].geom2, solref, solimp);
      mat_soft_kb(solref, solimp, opt->dt, &sK, &sB);
      double w = opt->mat->body_invweight[c->body1[i]] + opt->mat->body_invweight[c->body2[i]];
      rhs_soft(d, c, opt, i, solimp, w, sK, sB);
      if (opt->pyramidal && c->mu[i] > 0) rhs_pyramid(c, i);
      continue;
    }
    const double *lref, *limp;
    double w;
    if (soft && mat_limit_soft(opt->mat, m, c->con[i].geom2, &lref, &limp, &w)) {
      // an MJCF joint's soft limit: its solreflimit/solimplimit, its dof's inverse weight
      double sK, sB;
      mat_soft_kb(lref, limp, opt->dt, &sK, &sB);
      rhs_soft(d, c, opt, i, limp, w, sK, sB);
      continue;
    }
    double cs = target_normal(c, opt, i, d->v);
    // a ball joint's cone limit closes its penetration within the step whatever its size: the
    // cone is curved, so every step along its boundary penetrates at second order (h^2 |w|^2),
    // which the rule beyond CONTACT_SLOP (no correction without contact.baumgarte) would let
    // accumulate (1.2 degrees in 1 s for test_ball.c's pendulum); closing it costs O(h |w|^2)
    if (c->con[i].geom1 < 0 && m->jnt_type[c->con[i].geom2] == MODEL_JOINT_BALL)
      cs = fmax(cs, c->con[i].depth / opt->dt);
    c->cstar[i] = cs;
    c->g[3 * i + 2] -= cs;
  }
}

// warm start: impulses of the previous step's contact with the same id and the solver's dual
// variable (ADMM) of that contact; NaN marks "none"
static void warm_start(contact_data* c, const contact_options* opt) {
  int n3 = 3 * c->ncon;
  c->nwarm = 0;
  memset(c->lambda, 0, sizeof(double) * (size_t)n3);
  for (int k = 0; k < n3; k++) c->dual0[k] = NAN;
  if (!opt->warm_start) return;
  // collision lists the contacts in a steady order (pairs in pair order, each pair's by
  // feature), so the remembered contact after the last one found is usually the next one's:
  // tried first, O(1), the binary search otherwise. With unique ids (prev_sort) both find the
  // same contact
  int next = 0;
  for (int i = 0; i < c->ncon; i++) {
    int key[3] = {c->con[i].geom1, c->con[i].geom2, c->con[i].feature};
    int j = c->prev_unique && next < c->nprev && id_cmp(c->prev_id + 3 * next, key) == 0
                ? next
                : prev_find(c, key);
    if (j < 0) continue;
    next = j + 1;
    memcpy(c->lambda + 3 * i, c->prev_lambda + 3 * j, 3 * sizeof(double));
    memcpy(c->dual0 + 3 * i, c->prev_dual + 3 * j, 3 * sizeof(double));
    c->nwarm++;
  }
}

int contact_build(const sim_model* m, sim_data* d, contact_data* c, const contact_options* opt,
                  const double* vfree) {
  size_t mark = data_stack_mark(d);
  int* tmpdofs = data_stack_alloc(d, sizeof(int) * (size_t)(m->maxdepth + 1));
  double* tmpjac = data_stack_alloc(d, sizeof(double) * 3 * (size_t)(m->maxdepth + 1));
  if (!tmpdofs || !tmpjac) {  // the arena is sized for these (data_arena_default): a bug
    data_stack_free(d, mark);
    return -2;
  }
  // limits appended after the spin entries (stage_limits_crossed) link nothing
  if (c->nspin > 0)
    for (int i = c->ncon - c->nlimit; i < c->ncon; i++)
      if (c->con[i].geom1 > CONTACT_SPIN) c->link[i] = -1;
  build_jacobians(m, d, c, opt, tmpdofs, tmpjac);
  build_y(m, d, c);
  if (!assemble_one(c, opt)) {
    bucket_by_root(c, m->nv);
    if (assemble_g(m, c, opt) < 0) {
      data_stack_free(d, mark);
      return -1;
    }
  }
  limit_rows(c);
  int soft = build_compliance(c, opt);
  build_rhs(m, d, c, opt, vfree, soft);
  warm_start(c, opt);
  data_stack_free(d, mark);
  return 0;
}

// x[0..6) += J' l on six consecutive dofs (rows J, J + mc, J + 2 mc): contact_apply's sums
// two dofs at a time
static inline void jt_six(const double* J, int mc, const double l[3], double* x) {
  typedef double v2 __attribute__((vector_size(16), aligned(8)));
  v2 l0 = {l[0], l[0]}, l1 = {l[1], l[1]}, l2 = {l[2], l[2]};
  for (int k = 0; k < 6; k += 2) {
    v2 a, b, e, y;
    memcpy(&a, J + k, 16);
    memcpy(&b, J + mc + k, 16);
    memcpy(&e, J + 2 * mc + k, 16);
    memcpy(&y, x + k, 16);
    y += a * l0 + b * l1 + e * l2;
    memcpy(x + k, &y, 16);
  }
}

void contact_apply(const sim_model* m, sim_data* d, const contact_data* c, double* v) {
  int nv = m->nv, mc = c->maxchain;
  if (nv == 0 || c->ncon == 0) return;
  size_t mark = data_stack_mark(d);
  double* x = data_stack_alloc(d, sizeof(double) * (size_t)nv);
  // x = J' lambda on each contact's chain; two entries on one chain (a link's corners) in one
  // pass, their terms in the halves of a vector and added to x in entry order (the same sums)
  for (int i = 0; i < c->ncon; i++) {
    const int* chain = c->chain + (size_t)i * mc;
    const double* J = c->J + (size_t)i * 3 * mc;
    const double* l = c->lambda + 3 * i;
    int n = c->nchain[i];
    if (n == 6 && chain[5] == chain[0] + 5) {  // a free body's dofs: jt_six
      jt_six(J, mc, l, x + chain[0]);
      continue;
    }
    if (i + 1 < c->ncon && same_chain(c, i, i + 1) && c->nchain[i + 1] == n) {
      const double* Jb = J + 3 * mc;
      contact_v2 l0 = {l[0], l[3]}, l1 = {l[1], l[4]}, l2 = {l[2], l[5]};
      for (int k = 0; k < n; k++) {
        contact_v2 t = (contact_v2){J[k], Jb[k]} * l0 + (contact_v2){J[mc + k], Jb[mc + k]} * l1 +
                       (contact_v2){J[2 * mc + k], Jb[2 * mc + k]} * l2;
        x[chain[k]] = (x[chain[k]] + t[0]) + t[1];
      }
      i++;
      continue;
    }
    for (int k = 0; k < n; k++)
      x[chain[k]] += J[k] * l[0] + J[mc + k] * l[1] + J[2 * mc + k] * l[2];
  }
  dyn_solve(m, d, x, 1);
  for (int k = 0; k < nv; k++) v[k] += x[k];
  data_stack_free(d, mark);
}

void contact_store(contact_data* c, const double* dual) {
  c->nprev = c->ncon;
  if (dual) memcpy(c->prev_dual, dual, sizeof(double) * 3 * (size_t)c->ncon);
  else
    for (int k = 0; k < 3 * c->ncon; k++) c->prev_dual[k] = NAN;
  for (int i = 0; i < c->ncon; i++) {
    c->prev_id[3 * i] = c->con[i].geom1;
    c->prev_id[3 * i + 1] = c->con[i].geom2;
    c->prev_id[3 * i + 2] = c->con[i].feature;
  }
  memcpy(c->prev_lambda, c->lambda, sizeof(double) * 3 * (size_t)c->ncon);
  prev_sort(c);
}

solver_problem contact_problem(const contact_data* c) {
  solver_problem p = solver_blocks_problem(c->G, c->g, c->mu, c->has_R ? c->R : NULL);
  p.rpy = c->has_rpy ? c->rpy : NULL;
  // the factored form G = Y Y' + diag(ydiag) (solver.h)
  p.nv = c->nv;
  p.ystride = c->maxchain;
  p.ynz = c->nchain;
  p.ydof = c->chain;
  p.Y = c->Y;
  p.ydiag = c->nlimit > 0 ? c->ydiag : NULL;
  p.box = c->nfric > 0 ? c->box : NULL;
  p.link = c->nspin > 0 ? c->link : NULL;
  p.mu_roll = c->nspin > 0 ? c->mu_roll : NULL;
  p.ywork = c->ywork;  // diag_only's scratch (set by solver_blocks_problem from G)
  return p;
}
