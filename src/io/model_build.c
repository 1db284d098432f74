// model_build.c — the compiler from URDF robots to the model (see model_build.h).
//
// Two passes: plan_robot() walks each URDF tree depth-first, decides which links form which body
// (fixed joints merge a link into its parent's body), computes link poses in body frames and loads
// the collision hulls; model_create() then sizes the model, has model_alloc() make its one buffer
// and fills every array (fill_model).
#include "io/model_build.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"
#include "io/mesh_io.h"

//---------------------------------- small pose helpers ---------------------------------------

// compose poses given as (position, quaternion): (p, q) = (p1, q1) * (p2, q2)
static void pose_mul(double p[3], double q[4], const double p1[3], const double q1[4],
                     const double p2[3], const double q2[4]) {
  double t[3], qq[4];
  sp_rotquat(t, q1, p2);
  sp_add3(t, t, p1);
  sp_mulquat(qq, q1, q2);
  sp_normquat(qq);
  sp_copy3(p, t);
  memcpy(q, qq, sizeof(qq));
}

// pose of a URDF <origin xyz rpy> as (position, quaternion)
static void pose_from_origin(double p[3], double q[4], const double xyz[3], const double rpy[3]) {
  double R[9];
  sp_rpy2mat(R, rpy);
  sp_mat2quat(q, R);
  sp_copy3(p, xyz);
}

// pose of an origin given as xyz with rpy, or (MJCF) with a quaternion
static void pose_from(double p[3], double q[4], const double xyz[3], const double rpy[3],
                      int use_quat, const double quat[4]) {
  pose_from_origin(p, q, xyz, rpy);
  if (use_quat) {
    memcpy(q, quat, 4 * sizeof(double));
    sp_normquat(q);
  }
}

// identity pose
static void pose_identity(double p[3], double q[4]) {
  p[0] = p[1] = p[2] = 0;
  q[0] = q[1] = q[2] = 0;
  q[3] = 1;
}

// symmetric 3x3 from URDF's ixx ixy ixz iyy iyz izz
static void inertia_from6(double I[9], const double v[6]) {
  I[0] = v[0]; I[1] = v[1]; I[2] = v[2];
  I[3] = v[1]; I[4] = v[3]; I[5] = v[4];
  I[6] = v[2]; I[7] = v[4]; I[8] = v[5];
}

// B = R A R'
static void rotate_inertia(double B[9], const double R[9], const double A[9]) {
  double T[9];
  sp_mulmm3(T, R, A);
  sp_mulmmt3(B, T, R);
}

// add m (|d|^2 1 - d d') to I: parallel axis theorem for a mass m displaced by d
static void add_parallel_axis(double I[9], double m, const double d[3]) {
  double d2 = sp_dot3(d, d);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) I[3 * r + c] += m * ((r == c ? d2 : 0) - d[r] * d[c]);
}

//---------------------------------- per-robot plan -------------------------------------------

// a loaded collision hull, shared by every geom using the same file and scale
typedef struct {
  mesh_hull* hull;
  char** path;
  double* scale;   // (n x 3)
  int n, cap;
} hull_set;

// how one robot maps onto bodies, before the model buffer exists
typedef struct {
  int nlink;
  int* order;      // links in depth-first preorder                        (nlink)
  int* lbody;      // local body of each link: -1 world, else 0..nbody-1   (nlink)
  double* lpos;    // link frame in its body frame                         (nlink x 3)
  double* lquat;   //                                                      (nlink x 4)
  int nbody;       // moving bodies
  int* blink;      // link whose frame is the body frame                   (nlink)
  int* bjoint;     // URDF joint that created the body (-1: added free joint) (nlink)
  int* bparent;    // local parent body (-1: world)                        (nlink)
  int* btype;      // model_joint_type                                     (nlink)
  double* bpos;    // body frame in its parent body frame at q = 0         (nlink x 3)
  double* bquat;   //                                                      (nlink x 4)
  int nq, nv, ngeom, npair;
  int* goff;       // first entry of each link's geoms in gmesh            (nlink + 1)
  int* gmesh;      // per URDF geom: hull index, -1 primitive, -2 skipped
  int* gmodel;     // per URDF geom: its model geom (fill_geoms), -1 skipped
} robot_plan;

// release a plan's arrays
static void plan_free(robot_plan* p) {
  free(p->order); free(p->lbody); free(p->lpos); free(p->lquat); free(p->blink);
  free(p->bjoint); free(p->bparent); free(p->btype); free(p->bpos); free(p->bquat);
  free(p->goff); free(p->gmesh); free(p->gmodel);
  memset(p, 0, sizeof(*p));
}

// find or load the hull of (path, scale); returns its index, -1 when the file cannot be read
// (*merr says why) or -2 when out of memory
static int hull_get(hull_set* hs, const char* path, const double scale[3], csim_error* merr) {
  for (int i = 0; i < hs->n; i++)
    if (!strcmp(hs->path[i], path) && hs->scale[3 * i] == scale[0] &&
        hs->scale[3 * i + 1] == scale[1] && hs->scale[3 * i + 2] == scale[2])
      return i;
  // grow the set
  if (hs->n == hs->cap) {
    int cap = hs->cap ? 2 * hs->cap : 16;
    mesh_hull* h = realloc(hs->hull, sizeof(mesh_hull) * (size_t)cap);
    if (h) hs->hull = h;
    char** p = realloc(hs->path, sizeof(char*) * (size_t)cap);
    if (p) hs->path = p;
    double* s = realloc(hs->scale, sizeof(double) * 3 * (size_t)cap);
    if (s) hs->scale = s;
    if (!h || !p || !s) return -2;
    hs->cap = cap;
  }
  mesh_hull hull;
  memset(&hull, 0, sizeof(hull));
  if (mesh_load_hull(path, scale, &hull, merr) != CSIM_OK) return -1;
  char* dup = strdup(path);
  if (!dup) {
    mesh_hull_free(&hull);
    return -2;
  }
  hs->hull[hs->n] = hull;
  hs->path[hs->n] = dup;
  memcpy(hs->scale + 3 * hs->n, scale, 3 * sizeof(double));
  return hs->n++;
}

// release every hull not handed to the model (from index `keep` on) and the set's arrays
static void hull_set_free(hull_set* hs, int keep) {
  for (int i = keep; i < hs->n; i++) mesh_hull_free(&hs->hull[i]);
  for (int i = 0; i < hs->n; i++) free(hs->path[i]);
  free(hs->hull); free(hs->path); free(hs->scale);
  memset(hs, 0, sizeof(*hs));
}

// 1 when all n values are finite
static int all_finite(const double* x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

// the file name to put in messages
static const char* robot_file(const urdf_robot* u) {
  return u->file ? u->file : (u->name ? u->name : "");
}


// scratch of the depth-first walk of one URDF tree
typedef struct {
  int* cadr;     // children CSR: offsets                                (nlink + 1)
  int* cjnt;     // children CSR: joints, in joint order                 (njoint + 1)
  int* fill;     //                                                      (nlink + 1)
  int* stack;    //                                                      (nlink + 1)
  int* pjoint;   // joint through which a link was reached               (nlink)
  char* seen;    //                                                      (nlink)
} plan_walk;

// allocate a plan's arrays and the walk's scratch; 0 when out of memory
static int plan_alloc(robot_plan* p, plan_walk* w, int nl, int nj) {
  p->order = calloc((size_t)nl, sizeof(int));
  p->lbody = calloc((size_t)nl, sizeof(int));
  p->lpos = calloc((size_t)nl * 3, sizeof(double));
  p->lquat = calloc((size_t)nl * 4, sizeof(double));
  p->blink = calloc((size_t)nl, sizeof(int));
  p->bjoint = calloc((size_t)nl, sizeof(int));
  p->bparent = calloc((size_t)nl, sizeof(int));
  p->btype = calloc((size_t)nl, sizeof(int));
  p->bpos = calloc((size_t)nl * 3, sizeof(double));
  p->bquat = calloc((size_t)nl * 4, sizeof(double));
  p->goff = calloc((size_t)nl + 1, sizeof(int));
  w->cadr = calloc((size_t)nl + 1, sizeof(int));
  w->cjnt = calloc((size_t)nj + 1, sizeof(int));
  w->fill = calloc((size_t)nl + 1, sizeof(int));
  w->stack = calloc((size_t)nl + 1, sizeof(int));
  w->pjoint = calloc((size_t)nl, sizeof(int));
  w->seen = calloc((size_t)nl, 1);
  return p->order && p->lbody && p->lpos && p->lquat && p->blink && p->bjoint && p->bparent &&
         p->btype && p->bpos && p->bquat && p->goff && w->cadr && w->cjnt && w->fill &&
         w->stack && w->pjoint && w->seen;
}

static void walk_free(plan_walk* w) {
  free(w->cadr); free(w->cjnt); free(w->fill); free(w->stack); free(w->pjoint); free(w->seen);
}

// a joint's spring, damper and dry friction: finite, non-negative; on 1-dof and ball joints only
// (csim's free joint velocity is at the centre of mass, so MuJoCo's free-joint damping would not
// carry over; a ball joint's spring pulls towards the identity, MuJoCo's qpos_spring for it)
static csim_status check_passive(const urdf_joint* J, const char* file, csim_error* err) {
  const char* nm = J->name ? J->name : "";
  if (!(J->damping >= 0) || !(J->stiffness >= 0) || !isfinite(J->damping) ||
      !isfinite(J->stiffness) || !isfinite(J->springref))
    return err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name,
                   "joint '%s': damping %g, stiffness %g, springref %g (expected finite, damping "
                   "and stiffness >= 0)", nm, J->damping, J->stiffness, J->springref);
  int has_springs = J->type == URDF_JOINT_REVOLUTE || J->type == URDF_JOINT_CONTINUOUS ||
                J->type == URDF_JOINT_PRISMATIC || J->type == URDF_JOINT_BALL;
  if (!has_springs && J->type != URDF_JOINT_FIXED && (J->damping != 0 || J->stiffness != 0))
    return err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name,
                   "joint '%s': damping or stiffness on a %s joint (csim has joint springs and "
                   "dampers on hinge, slide and ball joints only)", nm,
                   urdf_joint_type_names[J->type]);
  if (!(J->frictionloss >= 0) || !isfinite(J->frictionloss))
    return err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name,
                   "joint '%s': frictionloss %g (expected finite and >= 0)", nm, J->frictionloss);
  if (!has_springs && J->type != URDF_JOINT_FIXED && J->frictionloss != 0)
    return err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name,
                   "joint '%s': frictionloss on a %s joint (csim has dry joint friction on "
                   "hinge, slide and ball joints only: its free joint's velocity is at the "
                   "centre of mass, not MuJoCo's)", nm, urdf_joint_type_names[J->type]);
  return CSIM_OK;
}

// check every joint (links in range, supported type, finite origin and axis) and list each
// link's child joints in joint order
static csim_status plan_children(const urdf_robot* u, const char* file, plan_walk* w,
                                 csim_error* err) {
  int nl = u->nlink, nj = u->njoint;
  for (int j = 0; j < nj; j++) {
    const urdf_joint* J = &u->joints[j];
    if (J->parent < 0 || J->parent >= nl || J->child < 0 || J->child >= nl)
      return err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name, "joint links out of range");
    if (J->type == URDF_JOINT_PLANAR)
      return err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name,
                     "%s joints are not supported (joint '%s')",
                     urdf_joint_type_names[J->type], J->name ? J->name : "");
    if (!all_finite(J->xyz, 3) || !all_finite(J->rpy, 3) || !all_finite(J->axis, 3) ||
        !(J->armature >= 0) || !isfinite(J->armature))
      return err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name,
                     "joint '%s' has a non-finite origin or axis, or a negative or non-finite "
                     "armature", J->name ? J->name : "");
    csim_status st = check_passive(J, file, err);
    if (st != CSIM_OK) return st;
    if ((int)J->type < 0 || J->type >= URDF_NJOINT_TYPES)
      return err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name, "unknown joint type");
    w->cadr[J->parent + 1]++;
  }
  for (int l = 0; l < nl; l++) w->cadr[l + 1] += w->cadr[l];
  for (int j = 0; j < nj; j++) {
    int pl = u->joints[j].parent;
    w->cjnt[w->cadr[pl] + w->fill[pl]++] = j;
  }
  return CSIM_OK;
}

// the root link: a free body at the origin, or merged into the world at the base pose
static void plan_root(const model_robot_spec* spec, robot_plan* p, int L) {
  if (spec->base == MODEL_BASE_FREE) {
    int b = p->nbody++;
    p->blink[b] = L;
    p->bjoint[b] = -1;
    p->bparent[b] = -1;
    p->btype[b] = MODEL_JOINT_FREE;
    pose_identity(p->bpos + 3 * b, p->bquat + 4 * b);
    p->lbody[L] = b;
    pose_identity(p->lpos + 3 * L, p->lquat + 4 * L);
  } else {
    p->lbody[L] = -1;
    sp_copy3(p->lpos + 3 * L, spec->base_pos);
    memcpy(p->lquat + 4 * L, spec->base_quat, 4 * sizeof(double));
    sp_normquat(p->lquat + 4 * L);
  }
}

// link L reached through URDF joint j: merged into its parent's body (fixed joint) or a new body
// whose frame is the joint frame
static csim_status plan_link(const urdf_robot* u, const char* file, robot_plan* p, int L, int j,
                             csim_error* err) {
  const urdf_joint* J = &u->joints[j];
  int P = J->parent;
  double jp[3], jq[4], tp[3], tq[4];
  pose_from(jp, jq, J->xyz, J->rpy, J->use_quat, J->quat);
  pose_mul(tp, tq, p->lpos + 3 * P, p->lquat + 4 * P, jp, jq);
  if (J->type == URDF_JOINT_FIXED) {
    p->lbody[L] = p->lbody[P];
    sp_copy3(p->lpos + 3 * L, tp);
    memcpy(p->lquat + 4 * L, tq, sizeof(tq));
    return CSIM_OK;
  }
  int b = p->nbody++;
  p->blink[b] = L;
  p->bjoint[b] = j;
  p->bparent[b] = p->lbody[P];
  p->btype[b] = J->type == URDF_JOINT_PRISMATIC  ? MODEL_JOINT_PRISMATIC
                : J->type == URDF_JOINT_FLOATING ? MODEL_JOINT_FREE
                : J->type == URDF_JOINT_BALL     ? MODEL_JOINT_BALL
                                                 : MODEL_JOINT_REVOLUTE;
  sp_copy3(p->bpos + 3 * b, tp);
  memcpy(p->bquat + 4 * b, tq, sizeof(tq));
  p->lbody[L] = b;
  pose_identity(p->lpos + 3 * L, p->lquat + 4 * L);
  if (model_joint_nv[p->btype[b]] == 1 && !(sp_norm3(J->axis) > 0))
    return err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name,
                   "moving joint '%s' has a zero axis", J->name ? J->name : "");
  return CSIM_OK;
}

// depth-first preorder from the root; a link's body and pose are set when it is reached; every
// link must be reached exactly once
static csim_status plan_tree(const model_robot_spec* spec, const char* file, robot_plan* p,
                             plan_walk* w, csim_error* err) {
  const urdf_robot* u = spec->urdf;
  int ns = 0, no = 0;
  w->stack[ns++] = u->root;
  w->seen[u->root] = 1;
  w->pjoint[u->root] = -1;
  while (ns > 0) {
    int L = w->stack[--ns];
    p->order[no++] = L;
    int j = w->pjoint[L];
    if (j < 0) plan_root(spec, p, L);
    else {
      csim_status st = plan_link(u, file, p, L, j, err);
      if (st != CSIM_OK) return st;
    }
    // children, pushed in reverse so they are visited in joint order
    for (int k = w->cadr[L + 1] - 1; k >= w->cadr[L]; k--) {
      int jc = w->cjnt[k], C = u->joints[jc].child;
      if (w->seen[C])
        return err_set(err, CSIM_ERR_INPUT, file, u->joints[jc].line, u->joints[jc].column,
                       u->joints[jc].name, "link '%s' is reached twice (cycle or two parents)",
                       u->links[C].name ? u->links[C].name : "");
      w->seen[C] = 1;
      w->pjoint[C] = jc;
      w->stack[ns++] = C;
    }
  }
  if (no != u->nlink) {
    for (int l = 0; l < u->nlink; l++)
      if (!w->seen[l])
        return err_set(err, CSIM_ERR_INPUT, file, u->links[l].line, u->links[l].column,
                       u->links[l].name, "link '%s' is not connected to the root",
                       u->links[l].name ? u->links[l].name : "");
  }
  return CSIM_OK;
}

// a collision mesh: *slot = its (shared) hull, or -2 when it is skipped (unresolved or
// unreadable while meshes are optional; counted in *nskipped); an error when meshes are required
static csim_status plan_mesh(const model_robot_spec* spec, const char* file, const urdf_link* Lk,
                             const urdf_geom* G, hull_set* hs, int* slot, int* nskipped,
                             csim_error* err) {
  const char* uri = G->uri ? G->uri : "";
  if (!G->path) {
    // unresolved URI
    if (spec->require_meshes)
      return err_set(err, CSIM_ERR_INPUT, file, G->line, G->column, Lk->name,
                     "collision mesh '%s' of link '%s' could not be resolved", uri,
                     Lk->name ? Lk->name : "");
    *slot = -2;
    (*nskipped)++;
    return CSIM_OK;
  }
  csim_error merr;
  err_clear(&merr);
  int h = hull_get(hs, G->path, G->scale, &merr);
  if (h == -2) return err_set(err, CSIM_ERR_RUN, file, G->line, G->column, Lk->name, "out of memory");
  if (h < 0) {
    if (spec->require_meshes) {
      char where[1400];  // the STL's own position (line or triangle) when it has one
      if (merr.file[0]) err_format(&merr, where, sizeof(where));
      else snprintf(where, sizeof(where), "%s", merr.msg);
      return err_set(err, CSIM_ERR_INPUT, file, G->line, G->column, Lk->name,
                     "collision mesh '%s' of link '%s': %s", uri, Lk->name ? Lk->name : "",
                     where);
    }
    *slot = -2;
    (*nskipped)++;
    return CSIM_OK;
  }
  *slot = h;
  return CSIM_OK;
}

// geoms: primitives always kept; meshes loaded (shared hulls) or skipped/refused
static csim_status plan_geoms(const model_robot_spec* spec, const char* file, robot_plan* p,
                              hull_set* hs, int* nskipped, csim_error* err) {
  const urdf_robot* u = spec->urdf;
  int nl = u->nlink;
  for (int l = 0; l < nl; l++) {
    if (u->links[l].ngeom < 0 || (u->links[l].ngeom > 0 && !u->links[l].geoms))
      return err_set(err, CSIM_ERR_INPUT, file, u->links[l].line, u->links[l].column,
                     u->links[l].name, "invalid geometry list");
    p->goff[l + 1] = p->goff[l] + u->links[l].ngeom;
  }
  p->gmesh = calloc((size_t)p->goff[nl] + 1, sizeof(int));
  p->gmodel = calloc((size_t)p->goff[nl] + 1, sizeof(int));
  if (!p->gmesh || !p->gmodel) return err_set(err, CSIM_ERR_RUN, file, 0, 0, NULL, "out of memory");
  for (int l = 0; l < nl; l++) {
    const urdf_link* Lk = &u->links[l];
    for (int g = 0; g < Lk->ngeom; g++) {
      const urdf_geom* G = &Lk->geoms[g];
      int* slot = &p->gmesh[p->goff[l] + g];
      if ((int)G->type < 0 || G->type >= URDF_NGEOM_TYPES)
        return err_set(err, CSIM_ERR_INPUT, file, G->line, G->column, Lk->name,
                       "unknown geometry type");
      if (G->nocollide && !G->paired) {
        *slot = -2;   // MJCF contype = conaffinity = 0 and no <pair>: collides with nothing
        continue;
      }
      if (G->type == URDF_GEOM_PLANE && l != u->root)
        return err_set(err, CSIM_ERR_INPUT, file, G->line, G->column, Lk->name,
                       "%s geometry of link '%s' is not supported", urdf_geom_type_names[G->type],
                       Lk->name ? Lk->name : "");
      if (G->type != URDF_GEOM_MESH) {
        *slot = -1;
        p->ngeom++;
        continue;
      }
      csim_status st = plan_mesh(spec, file, Lk, G, hs, slot, nskipped, err);
      if (st != CSIM_OK) return st;
      if (*slot >= 0) p->ngeom++;
    }
  }
  return CSIM_OK;
}

// walk one URDF tree: bodies, link poses, joint checks, geoms and hulls
static csim_status plan_robot(const model_robot_spec* spec, robot_plan* p, hull_set* hs,
                              int* nskipped, csim_error* err) {
  const urdf_robot* u = spec->urdf;
  const char* file = robot_file(u);
  memset(p, 0, sizeof(*p));
  if (u->nlink <= 0 || !u->links) return err_set(err, CSIM_ERR_INPUT, file, 0, 0, NULL, "robot has no links");
  if (u->root < 0 || u->root >= u->nlink)
    return err_set(err, CSIM_ERR_INPUT, file, 0, 0, NULL, "root link index %d out of range", u->root);
  if (u->njoint < 0 || (u->njoint > 0 && !u->joints))
    return err_set(err, CSIM_ERR_INPUT, file, 0, 0, NULL, "invalid joint list");
  p->nlink = u->nlink;
  p->npair = u->npair;
  plan_walk w;
  csim_status st = CSIM_OK;
  if (!plan_alloc(p, &w, u->nlink, u->njoint))
    st = err_set(err, CSIM_ERR_RUN, file, 0, 0, NULL, "out of memory");
  if (st == CSIM_OK) st = plan_children(u, file, &w, err);
  if (st == CSIM_OK) st = plan_tree(spec, file, p, &w, err);
  if (st == CSIM_OK) {
    for (int b = 0; b < p->nbody; b++) {
      p->nq += model_joint_nq[p->btype[b]];
      p->nv += model_joint_nv[p->btype[b]];
    }
    st = plan_geoms(spec, file, p, hs, nskipped, err);
  }
  walk_free(&w);
  if (st != CSIM_OK) plan_free(p);
  return st;
}

//---------------------------------- geometry --------------------------------------------------

// radius of a bounding sphere about the geom frame origin
static double geom_bound(const sim_model* m, int g) {
  const double* s = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
    case MODEL_GEOM_PLANE: return INFINITY;
    case MODEL_GEOM_HFIELD: return INFINITY;
    case MODEL_GEOM_BOX: return sp_norm3(s);
    case MODEL_GEOM_SPHERE: return s[0];
    case MODEL_GEOM_CYLINDER: return sqrt(s[0] * s[0] + s[1] * s[1]);
    case MODEL_GEOM_CAPSULE: return s[0] + s[1];
    case MODEL_GEOM_ELLIPSOID: return fmax(s[0], fmax(s[1], s[2]));
    case MODEL_GEOM_MESH: {
      const mesh_hull* h = &m->mesh[m->geom_mesh[g]];
      double r = 0;
      for (int k = 0; k < h->nvert; k++) r = fmax(r, sp_norm3(h->vert + 3 * k));
      return r;
    }
    default: return 0;
  }
}


//---------------------------------- model_create ---------------------------------------------

// what a description asks for that csim cannot simulate yet (MJCF: armature, springs, ...; the
// reader lists them) is refused, naming the first; an MJCF world is placed as a fixed base
static csim_status check_supported(const model_robot_spec* spec, csim_error* err) {
  const urdf_robot* u = spec->urdf;
  if (u->nunsupported > 0) {
    const urdf_unsupported* x = &u->unsupported[0];
    char more[96] = "";
    if (u->nunsupported > 1)
      snprintf(more, sizeof(more), " (and %d more: csim info lists them)", u->nunsupported - 1);
    return err_set(err, CSIM_ERR_INPUT, x->file, x->line, x->column, x->element,
                   "%s: not supported yet (issue 25)%s", x->msg, more);
  }
  if (u->world_root && spec->base == MODEL_BASE_FREE)
    return err_set(err, CSIM_ERR_INPUT, robot_file(u), 0, 0, NULL,
                   "an MJCF model is placed as a fixed base (its world body is the root; free "
                   "bodies come from its own free joints)");
  return CSIM_OK;
}

// a height field collides with no ellipsoid yet (collision.c's table): refused by name
static csim_status check_no_ellipsoid(const urdf_robot* u, csim_error* err) {
  for (int l = 0; l < u->nlink; l++)
    for (int g = 0; g < u->links[l].ngeom; g++) {
      const urdf_geom* G = &u->links[l].geoms[g];
      if (G->type == URDF_GEOM_ELLIPSOID && !G->nocollide)
        return err_set(err, CSIM_ERR_INPUT, robot_file(u), G->line, G->column, "geom",
                       "ellipsoid of link '%s' on a height-field ground (world.ground.type "
                       "heightfield): csim collides ellipsoids with planes and convex shapes only",
                       u->links[l].name ? u->links[l].name : "");
    }
  return CSIM_OK;
}

// strdup that accepts NULL (gives "")
static char* dupstr(const char* s) {
  return strdup(s ? s : "");
}

// the world: ground kind; the collision code indexes the height field directly, so its sizes
// and heights are checked here
static csim_status check_world(const model_world_spec* world, csim_error* err) {
  if (world->ground < 0 || world->ground > 2)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "ground %d: expected 0, 1 or 2",
                   world->ground);
  if (world->ground != 2) return CSIM_OK;
  int nx = world->hf_nx, ny = world->hf_ny;
  if (nx < 2 || ny < 2 || nx > (1 << 14) || ny > (1 << 14) || !world->hf_height ||
      !(world->hf_size[0] > 0) || !(world->hf_size[1] > 0) || !isfinite(world->hf_size[0]) ||
      !isfinite(world->hf_size[1]))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "world.ground",
                   "height field: expected 2..16384 vertices per side and a finite positive "
                   "size, found %d x %d over %g x %g m", nx, ny, world->hf_size[0],
                   world->hf_size[1]);
  for (long i = 0; i < (long)nx * ny; i++)
    if (!isfinite(world->hf_height[i]))
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, "world.ground",
                     "height field: height %ld (x %ld, y %ld) is not finite", i, i % nx, i / nx);
  return CSIM_OK;
}

// the model's sizes from the plans; the world's scalars and a copy of the height field
static csim_status size_model(sim_model* m, const model_world_spec* world,
                              const robot_plan* plans, int nrobot, int nmesh, int nskipped,
                              csim_error* err) {
  m->nrobot = nrobot;
  m->nbody = 1;
  m->ngeom = world->ground ? 1 : 0;
  for (int r = 0; r < nrobot; r++) {
    m->nbody += plans[r].nbody;
    m->nq += plans[r].nq;
    m->nv += plans[r].nv;
    m->nlink += plans[r].nlink;
    m->ngeom += plans[r].ngeom;
    m->npair += plans[r].npair;
  }
  m->njnt = m->nbody - 1;
  m->nmesh = nmesh;
  if (world->ground == 2) {
    size_t nh = (size_t)world->hf_nx * (size_t)world->hf_ny;
    m->hfield_data = malloc(nh * sizeof(double));
    if (!m->hfield_data) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
    memcpy(m->hfield_data, world->hf_height, nh * sizeof(double));
    m->hfield_nx = world->hf_nx;
    m->hfield_ny = world->hf_ny;
    m->hfield_size[0] = world->hf_size[0];
    m->hfield_size[1] = world->hf_size[1];
  }
  m->ngeom_skipped = nskipped;
  sp_copy3(m->gravity, world->gravity);
  return CSIM_OK;
}

// first body, q, dof and link of the robot being filled
typedef struct {
  int body, q, dof, link;
} fill_adr;

// robot record r: name (the spec's, else the URDF's, else "robot<r>"), base, index ranges;
// 0 when out of memory
static int fill_robot_record(sim_model* m, const model_robot_spec* spec, int r,
                             const robot_plan* p, const fill_adr* a) {
  const char* rname = spec->name ? spec->name : spec->urdf->name;
  char tmp[32];
  if (!rname || !rname[0]) {
    snprintf(tmp, sizeof(tmp), "robot%d", r);
    rname = tmp;
  }
  m->robot_name[r] = dupstr(rname);
  m->robot_base[r] = spec->base;
  m->robot_bodyadr[r] = a->body;
  m->robot_nbody[r] = p->nbody;
  m->robot_qadr[r] = a->q;
  m->robot_nq[r] = p->nq;
  m->robot_dofadr[r] = a->dof;
  m->robot_nv[r] = p->nv;
  m->robot_linkadr[r] = a->link;
  m->robot_nlink[r] = p->nlink;
  return m->robot_name[r] != NULL;
}

// joint jid from URDF joint J (NULL: the free joint added for a free base of robot r); jmap maps
// URDF joints to model joints (for mimic); 0 when out of memory
static int fill_joint(sim_model* m, int jid, int r, const urdf_robot* u, const urdf_joint* J,
                      const int* jmap) {
  int type = m->jnt_type[jid];
  m->jnt_mimic[jid] = -1;
  m->jnt_mimic_coef[2 * jid] = 1;
  if (J) {
    double ax[3];
    sp_copy3(ax, J->axis);
    if (sp_normalize3(ax) == 0) ax[0] = 1;
    sp_copy3(m->jnt_axis + 3 * jid, ax);
    m->jnt_limited[jid] = type != MODEL_JOINT_FREE && J->type != URDF_JOINT_CONTINUOUS &&
                          J->has_position_limit;  // ball: the cone limit, [0, angle] (MJCF)
    m->jnt_range[2 * jid] = J->lower;
    m->jnt_range[2 * jid + 1] = J->upper;
    m->jnt_effort[jid] = J->has_limit ? J->effort : 0;
    if (J->mimic >= 0 && J->mimic < u->njoint) {
      m->jnt_mimic[jid] = jmap[J->mimic];
      m->jnt_mimic_coef[2 * jid] = J->mimic_multiplier;
      m->jnt_mimic_coef[2 * jid + 1] = J->mimic_offset;
    }
    m->jnt_name[jid] = dupstr(J->name);
  } else {
    m->jnt_axis[3 * jid + 2] = 1;
    const char* rname = m->robot_name[r];
    size_t n = strlen(rname) + 6;
    m->jnt_name[jid] = malloc(n);
    if (m->jnt_name[jid]) snprintf(m->jnt_name[jid], n, "%s/root", rname);
  }
  return m->jnt_name[jid] != NULL;
}

// the dofs of body gb's joint: parent is the last dof of the nearest ancestor body, chained
// inside a free or ball joint; motion subspaces from the joint axis
static void fill_dofs(sim_model* m, int gb) {
  int jid = m->body_jnt[gb], type = m->jnt_type[jid], dofadr = m->body_dofadr[gb];
  int pb = m->body_parent[gb];
  int pdof = pb > 0 ? m->body_dofadr[pb] + m->body_dofnum[pb] - 1 : -1;
  for (int k = 0; k < m->body_dofnum[gb]; k++) {
    int dof = dofadr + k;
    m->dof_body[dof] = gb;
    m->dof_jnt[dof] = jid;
    m->dof_parent[dof] = k == 0 ? pdof : dof - 1;
    double* S = m->dof_motion + 6 * dof;
    if (type == MODEL_JOINT_FREE) S[k] = 1;
    else if (type == MODEL_JOINT_BALL) S[3 + k] = 1;   // turns about the body axes
    else if (type == MODEL_JOINT_REVOLUTE) sp_copy3(S + 3, m->jnt_axis + 3 * jid);
    else sp_copy3(S, m->jnt_axis + 3 * jid);
  }
}

// body b of robot r's plan with its joint and dofs; advances a->q and a->dof; 0 when out of memory
static int fill_body(sim_model* m, int r, const urdf_robot* u, const robot_plan* p, int b,
                     const int* jmap, fill_adr* a) {
  int gb = a->body + b, jid = gb - 1, type = p->btype[b], uj = p->bjoint[b];
  m->body_parent[gb] = p->bparent[b] < 0 ? 0 : a->body + p->bparent[b];
  m->body_jnt[gb] = jid;
  m->body_robot[gb] = r;
  m->body_link[gb] = a->link + p->blink[b];
  // an MJCF free joint (urdf_joint.world_pose; top level): its placement in the world becomes
  // the reference configuration and the joint frame the world's, so q is the body's pose in the
  // world as MuJoCo's qpos (qpos0: the body's pos and quat), not relative to that placement
  int wp = type == MODEL_JOINT_FREE && uj >= 0 && u->joints[uj].world_pose && p->bparent[b] < 0;
  if (wp) {
    pose_identity(m->body_pos + 3 * gb, m->body_quat + 4 * gb);
  } else {
    sp_copy3(m->body_pos + 3 * gb, p->bpos + 3 * b);
    memcpy(m->body_quat + 4 * gb, p->bquat + 4 * b, 4 * sizeof(double));
  }
  int ndof = model_joint_nv[type];
  m->body_dofadr[gb] = a->dof;
  m->body_dofnum[gb] = ndof;
  m->jnt_type[jid] = type;
  m->jnt_body[jid] = gb;
  m->jnt_qadr[jid] = a->q;
  m->jnt_dofadr[jid] = a->dof;
  if (!fill_joint(m, jid, r, u, uj >= 0 ? &u->joints[uj] : NULL, jmap)) return 0;
  fill_dofs(m, gb);
  for (int k = 0; uj >= 0 && k < ndof; k++) {
    m->dof_armature[a->dof + k] = u->joints[uj].armature;
    m->dof_damping[a->dof + k] = u->joints[uj].damping;
    m->dof_frictionloss[a->dof + k] = u->joints[uj].frictionloss;
  }
  if (uj >= 0) {
    const urdf_joint* J = &u->joints[uj];
    m->jnt_stiffness[jid] = J->stiffness;
    m->jnt_springref[jid] = type == MODEL_JOINT_BALL ? 0 : J->springref;  // ball: the identity
    memcpy(m->jnt_solref + 2 * jid, J->solreflimit, sizeof(J->solreflimit));
    memcpy(m->jnt_solimp + 5 * jid, J->solimplimit, sizeof(J->solimplimit));
  }
  if (type == MODEL_JOINT_FREE) m->qpos0[a->q + 6] = 1;   // reference configuration
  if (wp) {
    sp_copy3(m->qpos0 + a->q, p->bpos + 3 * b);
    memcpy(m->qpos0 + a->q + 3, p->bquat + 4 * b, 4 * sizeof(double));
  }
  if (type == MODEL_JOINT_BALL) m->qpos0[a->q + 3] = 1;
  a->q += model_joint_nq[type];
  a->dof += ndof;
  return 1;
}

// links of robot r: pose in body frame, names, mass of the link alone; 0 when out of memory
static int fill_links(sim_model* m, int r, const urdf_robot* u, const robot_plan* p,
                      const fill_adr* a) {
  for (int l = 0; l < p->nlink; l++) {
    const urdf_link* Lk = &u->links[l];
    int gl = a->link + l, lb = p->lbody[l];
    m->link_body[gl] = lb < 0 ? 0 : a->body + lb;
    m->link_robot[gl] = r;
    sp_copy3(m->link_pos + 3 * gl, p->lpos + 3 * l);
    memcpy(m->link_quat + 4 * gl, p->lquat + 4 * l, 4 * sizeof(double));
    m->link_mass[gl] = Lk->has_inertial ? Lk->mass : 0;
    m->link_name[gl] = dupstr(Lk->name);
    if (!m->link_name[gl]) return 0;
  }
  return 1;
}

// robot r: record, bodies, joints, dofs, links; advances a; 0 when out of memory
static int fill_robot(sim_model* m, const model_robot_spec* spec, int r, const robot_plan* p,
                      fill_adr* a) {
  const urdf_robot* u = spec->urdf;
  if (!fill_robot_record(m, spec, r, p, a)) return 0;
  // URDF joint -> model joint (for mimic)
  int* jmap = calloc((size_t)u->njoint + 1, sizeof(int));
  if (!jmap) return 0;
  for (int j = 0; j < u->njoint; j++) jmap[j] = -1;
  for (int b = 0; b < p->nbody; b++)
    if (p->bjoint[b] >= 0) jmap[p->bjoint[b]] = a->body + b - 1;
  int ok = 1;
  for (int b = 0; b < p->nbody && ok; b++) ok = fill_body(m, r, u, p, b, jmap, a);
  free(jmap);
  if (!ok || !fill_links(m, r, u, p, a)) return 0;
  a->body += p->nbody;
  a->link += p->nlink;
  return 1;
}

// merge link Lk's inertial (checked) into body gb, the link frame being link gl's
static csim_status merge_link(sim_model* m, const urdf_robot* u, const urdf_link* Lk, int gl,
                              int gb, csim_error* err) {
  if (Lk->mass < 0 || !isfinite(Lk->mass) || !all_finite(Lk->com_xyz, 3) ||
      !all_finite(Lk->com_rpy, 3) || !all_finite(Lk->inertia, 6))
    return err_set(err, CSIM_ERR_INPUT, robot_file(u), Lk->line, Lk->column, Lk->name,
                   "link '%s' has an invalid inertial (mass %g; negative or non-finite values)",
                   Lk->name ? Lk->name : "", Lk->mass);
  if (!(Lk->mass > 0)) return CSIM_OK;
  // inertia in link axes (URDF gives it in the inertial frame rotated by com_rpy), fixed
  double Ri[9], Iu[9], Il[9], Rl[9], Ib[9], c[3];
  sp_rpy2mat(Ri, Lk->com_rpy);
  inertia_from6(Iu, Lk->inertia);
  rotate_inertia(Il, Ri, Iu);
  model_fix_inertia(Lk->mass, Il);
  // into body axes; com in the body frame
  sp_quat2mat(Rl, m->link_quat + 4 * gl);
  rotate_inertia(Ib, Rl, Il);
  sp_xform(c, Rl, m->link_pos + 3 * gl, Lk->com_xyz);
  // merge (m1, c1, I1) + (m2, c2, I2): total com, then parallel axis to it
  double m1 = m->body_mass[gb], m2 = Lk->mass, mt = m1 + m2;
  double* c1 = m->body_com + 3 * gb;
  double* I1 = m->body_inertia + 9 * gb;
  double ct[3], d1[3], d2[3];
  for (int i = 0; i < 3; i++) ct[i] = (m1 * c1[i] + m2 * c[i]) / mt;
  sp_sub3(d1, c1, ct);
  sp_sub3(d2, c, ct);
  add_parallel_axis(I1, m1, d1);
  for (int i = 0; i < 9; i++) I1[i] += Ib[i];
  add_parallel_axis(I1, m2, d2);
  sp_copy3(c1, ct);
  m->body_mass[gb] = mt;
  return CSIM_OK;
}

// mass, com, inertia of each moving body from its links (in link DFS order per robot), then the
// compact spatial inertia about each body origin: Io = Ic + m(|c|^2 1 - c c')
static csim_status fill_inertias(sim_model* m, const model_robot_spec* robots,
                                 const robot_plan* plans, int nrobot, csim_error* err) {
  for (int r = 0; r < nrobot; r++) {
    const urdf_robot* u = robots[r].urdf;
    const robot_plan* p = &plans[r];
    for (int k = 0; k < p->nlink; k++) {
      int l = p->order[k], gl = m->robot_linkadr[r] + l, gb = m->link_body[gl];
      if (gb == 0 || !u->links[l].has_inertial) continue;
      csim_status st = merge_link(m, u, &u->links[l], gl, gb, err);
      if (st != CSIM_OK) return st;
    }
  }
  for (int b = 1; b < m->nbody; b++) {
    double mass = m->body_mass[b], *ci = m->body_cinert + 10 * b;
    const double* c = m->body_com + 3 * b;
    const double* I = m->body_inertia + 9 * b;
    double c2 = sp_dot3(c, c);
    ci[0] = mass;
    for (int i = 0; i < 3; i++) ci[1 + i] = mass * c[i];
    for (int i = 0; i < 3; i++) ci[4 + i] = I[4 * i] + mass * (c2 - c[i] * c[i]);
    ci[7] = I[1] - mass * c[0] * c[1];
    ci[8] = I[2] - mass * c[0] * c[2];
    ci[9] = I[5] - mass * c[1] * c[2];
  }
  return CSIM_OK;
}

// subtree masses and tree roots; a moving body with a massless subtree makes M singular
static csim_status fill_subtree_mass(sim_model* m, const model_robot_spec* robots,
                                     csim_error* err) {
  for (int b = 1; b < m->nbody; b++)
    m->body_rootid[b] = m->body_parent[b] == 0 ? b : m->body_rootid[m->body_parent[b]];
  for (int b = 0; b < m->nbody; b++) m->body_subtreemass[b] = m->body_mass[b];
  for (int b = m->nbody - 1; b > 0; b--) m->body_subtreemass[m->body_parent[b]] += m->body_subtreemass[b];
  for (int b = 1; b < m->nbody; b++) {
    if (!(m->body_subtreemass[b] > 0)) {
      int r = m->body_robot[b], l = m->body_link[b] - m->robot_linkadr[r];
      const urdf_robot* u = robots[r].urdf;
      return err_set(err, CSIM_ERR_INPUT, robot_file(u), u->links[l].line, u->links[l].column,
                     u->links[l].name,
                     "moving link '%s' (joint '%s') and all links it carries have no mass: the "
                     "mass matrix would be singular",
                     m->link_name[m->body_link[b]], m->jnt_name[m->body_jnt[b]]);
    }
  }
  return CSIM_OK;
}

// dof depths: the maximum, and the tree-sparse mass matrix rows (one entry per dof from the dof
// to its root, rows in dof order)
static csim_status fill_dof_tree(sim_model* m, csim_error* err) {
  int* depth = calloc((size_t)m->nv + 1, sizeof(int));
  if (!depth) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  size_t nM = 0;
  for (int i = 0; i < m->nv; i++) {
    depth[i] = 1 + (m->dof_parent[i] >= 0 ? depth[m->dof_parent[i]] : 0);
    if (depth[i] > m->maxdepth) m->maxdepth = depth[i];
    m->dof_Madr[i] = (int)nM;
    nM += (size_t)depth[i];
    if (nM > INT_MAX) {
      free(depth);
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                     "the mass matrix of %d dofs (largest depth %d) has more than %d tree "
                     "entries", m->nv, m->maxdepth, INT_MAX);
    }
  }
  m->nM = (int)nM;
  free(depth);
  m->dof_Mcol = malloc(sizeof(int) * (nM > 0 ? nM : 1));
  if (!m->dof_Mcol) return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  for (int i = 0; i < m->nv; i++)
    for (int j = i, a = m->dof_Madr[i]; j >= 0; j = m->dof_parent[j], a++) m->dof_Mcol[a] = j;
  return CSIM_OK;
}

// first geom of each body (geoms grouped by body; the ground first on the world); 0 when out of
// memory
static int geom_addresses(sim_model* m, const model_world_spec* world, const robot_plan* plans,
                          int nrobot) {
  int* cnt = calloc((size_t)m->nbody + 1, sizeof(int));
  if (!cnt) return 0;
  if (world->ground) cnt[0]++;
  for (int r = 0; r < nrobot; r++) {
    const robot_plan* p = &plans[r];
    for (int l = 0; l < p->nlink; l++)
      for (int g = p->goff[l]; g < p->goff[l + 1]; g++)
        if (p->gmesh[g] != -2) cnt[m->link_body[m->robot_linkadr[r] + l]]++;
  }
  int acc = 0;
  for (int b = 0; b < m->nbody; b++) {
    m->body_geomadr[b] = acc;
    m->body_geomnum[b] = 0;
    acc += cnt[b];
  }
  free(cnt);
  return 1;
}

// the ground plane or height field, on the world body
static void fill_ground(sim_model* m, const model_world_spec* world) {
  int g = m->body_geomadr[0] + m->body_geomnum[0]++;
  m->geom_type[g] = world->ground == 2 ? MODEL_GEOM_HFIELD : MODEL_GEOM_PLANE;
  if (world->ground == 2) {
    m->geom_size[3 * g] = 0.5 * world->hf_size[0];
    m->geom_size[3 * g + 1] = 0.5 * world->hf_size[1];
  }
  m->geom_body[g] = 0;
  m->geom_link[g] = -1;
  m->geom_pos[3 * g + 2] = world->ground_height;
  m->geom_quat[4 * g + 3] = 1;
  m->geom_mesh[g] = -1;
  m->geom_rbound[g] = INFINITY;
  m->geom_contype[g] = m->geom_conaffinity[g] = 1;
}

// geom g of body gb from URDF geom G of link gl; hm: its hull (-1: a primitive); world: an MJCF
// world body's geom, world geometry like the ground (geom_link -1)
static void fill_geom(sim_model* m, int g, int gb, int gl, const urdf_geom* G, int hm, int world) {
  double op[3], oq[4];
  pose_from(op, oq, G->xyz, G->rpy, G->use_quat, G->quat);
  pose_mul(m->geom_pos + 3 * g, m->geom_quat + 4 * g, m->link_pos + 3 * gl,
           m->link_quat + 4 * gl, op, oq);
  m->geom_body[g] = gb;
  m->geom_link[g] = world ? -1 : gl;
  m->geom_mesh[g] = -1;
  m->geom_condim[g] = G->condim;  // 0 from the URDF reader
  m->geom_contype[g] = G->condim ? G->contype : 1;   // URDF geoms collide with everything
  m->geom_conaffinity[g] = G->condim ? G->conaffinity : 1;
  memcpy(m->geom_solref + 2 * g, G->solref, 2 * sizeof(double));
  if (G->condim) memcpy(m->geom_friction + 3 * g, G->friction, 3 * sizeof(double));
  memcpy(m->geom_solimp + 5 * g, G->solimp, 5 * sizeof(double));
  double* s = m->geom_size + 3 * g;
  switch (G->type) {
    case URDF_GEOM_BOX:
      m->geom_type[g] = MODEL_GEOM_BOX;
      for (int c = 0; c < 3; c++) s[c] = 0.5 * fabs(G->size[c]);
      break;
    case URDF_GEOM_SPHERE:
      m->geom_type[g] = MODEL_GEOM_SPHERE;
      s[0] = fabs(G->size[0]);
      break;
    case URDF_GEOM_CYLINDER:
      m->geom_type[g] = MODEL_GEOM_CYLINDER;
      s[0] = fabs(G->size[0]);
      s[1] = 0.5 * fabs(G->size[1]);
      break;
    case URDF_GEOM_CAPSULE:
      m->geom_type[g] = MODEL_GEOM_CAPSULE;
      s[0] = fabs(G->size[0]);
      s[1] = 0.5 * fabs(G->size[1]);
      break;
    case URDF_GEOM_PLANE:
      m->geom_type[g] = MODEL_GEOM_PLANE;
      break;
    case URDF_GEOM_ELLIPSOID:
      m->geom_type[g] = MODEL_GEOM_ELLIPSOID;
      for (int c = 0; c < 3; c++) s[c] = fabs(G->size[c]);
      break;
    default:
      m->geom_type[g] = MODEL_GEOM_MESH;
      m->geom_mesh[g] = hm;
      sp_copy3(s, G->scale);
      break;
  }
  m->geom_rbound[g] = geom_bound(m, g);
}

// every geom, grouped by body: the ground, then link geoms in link DFS order (skipped meshes
// left out); 0 when out of memory
static int fill_geoms(sim_model* m, const model_world_spec* world,
                      const model_robot_spec* robots, const robot_plan* plans, int nrobot) {
  if (!geom_addresses(m, world, plans, nrobot)) return 0;
  if (world->ground) fill_ground(m, world);
  for (int r = 0; r < nrobot; r++) {
    const urdf_robot* u = robots[r].urdf;
    const robot_plan* p = &plans[r];
    for (int k = 0; k < p->nlink; k++) {
      int l = p->order[k], gl = m->robot_linkadr[r] + l, gb = m->link_body[gl];
      const urdf_link* Lk = &u->links[l];
      for (int i = 0; i < Lk->ngeom; i++) {
        int hm = p->gmesh[p->goff[l] + i];
        p->gmodel[p->goff[l] + i] = -1;
        if (hm == -2) continue;
        int g = m->body_geomadr[gb] + m->body_geomnum[gb]++;
        p->gmodel[p->goff[l] + i] = g;
        fill_geom(m, g, gb, gl, &Lk->geoms[i], hm, u->world_root && l == u->root);
      }
    }
  }
  return 1;
}

// explicit pair k of the model from P of robot u (plan: its geoms' model indices)
static csim_status fill_pair(sim_model* m, int k, const urdf_robot* u, const urdf_pair* P,
                             const robot_plan* plan, csim_error* err) {
  int g[2];
  for (int s = 0; s < 2; s++) {
    g[s] = plan->gmodel[plan->goff[P->link[s]] + P->geom[s]];
    if (g[s] < 0)
      return err_set(err, CSIM_ERR_INPUT, robot_file(u), P->line, P->column, "pair",
                     "<pair>: geom%d (of body '%s') was left out of the model (its mesh "
                     "could not be read)", s + 1, u->links[P->link[s]].name);
  }
  if (m->geom_body[g[0]] == m->geom_body[g[1]])
    return err_set(err, CSIM_ERR_INPUT, robot_file(u), P->line, P->column, "pair",
                   "<pair>: both geoms are on body '%s' (expected geoms of two bodies)",
                   u->links[P->link[0]].name);
  m->pair_geom[2 * k] = g[0], m->pair_geom[2 * k + 1] = g[1];
  m->pair_condim[k] = P->condim;
  memcpy(m->pair_friction + 3 * k, P->friction, 3 * sizeof(double));
  memcpy(m->pair_solref + 2 * k, P->solref, 2 * sizeof(double));
  memcpy(m->pair_solimp + 5 * k, P->solimp, 5 * sizeof(double));
  return CSIM_OK;
}

// the explicit pairs' key order (model.h pair_geom: min * ngeom + max), for qsort
typedef struct {
  long key;
  int k;
} pair_order;

static int cmp_pair_order(const void* a, const void* b) {
  const pair_order *x = a, *y = b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  return (x->k > y->k) - (x->k < y->k);  // the first given first: it is the one kept
}

// the pairs sorted by key (model_find_pair's binary search), their parameters with them; two
// pairs of the same two geoms are an error at the second's line (csim collides two geoms once,
// and which pair's parameters held would be arbitrary)
static csim_status sort_pairs(sim_model* m, const urdf_robot* const* src_robot,
                              const urdf_pair* const* src, csim_error* err) {
  size_t n = (size_t)m->npair;
  pair_order* o = malloc(sizeof(*o) * (n ? n : 1));
  void* tmp = malloc(sizeof(double) * 5 * (n ? n : 1));
  if (!o || !tmp) {
    free(o), free(tmp);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  }
  for (int k = 0; k < m->npair; k++) o[k] = (pair_order){model_pair_key(m, k), k};
  qsort(o, n, sizeof(*o), cmp_pair_order);
  for (size_t i = 1; i < n; i++)
    if (o[i].key == o[i - 1].key) {
      const urdf_pair *P = src[o[i].k], *Q = src[o[i - 1].k];
      csim_status st = err_set(err, CSIM_ERR_INPUT, robot_file(src_robot[o[i].k]), P->line,
                               P->column, "pair", "<pair>: the same two geoms as the <pair> "
                               "at line %d (expected one pair per two geoms)", Q->line);
      free(o), free(tmp);
      return st;
    }
  // permute each array through tmp: entry i takes old entry o[i].k
#define PERMUTE(T, arr, w)                                                    \
  do {                                                                        \
    T* t_ = tmp;                                                              \
    for (size_t i = 0; i < n; i++)                                            \
      memcpy(t_ + (w) * i, m->arr + (size_t)(w) * (size_t)o[i].k, sizeof(T) * (w)); \
    memcpy(m->arr, t_, sizeof(T) * (w) * n);                                  \
  } while (0)
  PERMUTE(int, pair_geom, 2);
  PERMUTE(int, pair_condim, 1);
  PERMUTE(double, pair_friction, 3);
  PERMUTE(double, pair_solref, 2);
  PERMUTE(double, pair_solimp, 5);
#undef PERMUTE
  free(o), free(tmp);
  return CSIM_OK;
}

// the MJCF files' explicit geom pairs (<contact><pair>) in model geom indices, sorted by key; a
// pair whose geom was left out (an unreadable mesh) or whose geoms share a body (never collided)
// is an error
static csim_status fill_pairs(sim_model* m, const model_robot_spec* robots,
                              const robot_plan* plans, int nrobot, csim_error* err) {
  const urdf_pair** src = malloc(sizeof(*src) * (size_t)(m->npair > 0 ? m->npair : 1));
  const urdf_robot** src_robot = malloc(sizeof(*src_robot) * (size_t)(m->npair > 0 ? m->npair : 1));
  if (!src || !src_robot) {
    free(src), free(src_robot);
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  }
  csim_status st = CSIM_OK;
  int k = 0;
  for (int r = 0; r < nrobot && st == CSIM_OK; r++) {
    const urdf_robot* u = robots[r].urdf;
    for (int i = 0; i < u->npair && st == CSIM_OK; i++, k++) {
      const urdf_pair* P = &u->pairs[i];
      src[k] = P, src_robot[k] = u;
      st = fill_pair(m, k, u, P, &plans[r], err);
    }
  }
  if (st == CSIM_OK) st = sort_pairs(m, src_robot, src, err);
  free(src), free(src_robot);
  return st;
}

// the parent filter's body of each body (model.h body_filterparent): URDF its parent; MJCF
// MuJoCo's weld parent, the nearest ancestor holding an MJCF body (a body whose joints are a
// chain of frame links is one MuJoCo body), none (-1) when that is the world; 0 when out of memory
static int fill_filter(sim_model* m, const model_robot_spec* robots) {
  char* mjbody = calloc((size_t)m->nbody, 1);
  if (!mjbody) return 0;
  for (int l = 0; l < m->nlink; l++) {
    const urdf_robot* u = robots[m->link_robot[l]].urdf;
    if (!u->links[l - m->robot_linkadr[m->link_robot[l]]].frame) mjbody[m->link_body[l]] = 1;
  }
  for (int b = 1; b < m->nbody; b++) {
    int p = m->body_parent[b];
    if (robots[m->body_robot[b]].urdf->world_root) {
      while (p > 0 && !mjbody[p]) p = m->body_parent[p];
      if (p == 0) p = -1;
    }
    m->body_filterparent[b] = p;
  }
  free(mjbody);
  return 1;
}

// pass 2 into the allocated model: bodies, joints, dofs, links, inertias, mass tree, geoms
static csim_status fill_model(sim_model* m, const model_world_spec* world,
                              const model_robot_spec* robots, const robot_plan* plans,
                              int nrobot, csim_error* err) {
  fill_adr a = {1, 0, 0, 0};
  for (int r = 0; r < nrobot; r++)
    if (!fill_robot(m, &robots[r], r, &plans[r], &a))
      return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  csim_status st = fill_inertias(m, robots, plans, nrobot, err);
  if (st == CSIM_OK) st = fill_subtree_mass(m, robots, err);
  if (st == CSIM_OK) st = fill_dof_tree(m, err);
  if (st == CSIM_OK && (!fill_geoms(m, world, robots, plans, nrobot) || !fill_filter(m, robots)))
    st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
  if (st == CSIM_OK) st = fill_pairs(m, robots, plans, nrobot, err);
  for (int g = 0; st == CSIM_OK && g < m->ngeom; g++)
    sp_quat2mat(m->geom_mat + 9 * g, m->geom_quat + 4 * g);
  return st;
}

// plan every robot, size one buffer, then fill it
csim_status model_create(const model_world_spec* world, const model_robot_spec* robots,
                         int nrobot, sim_model** out, csim_error* err) {
  if (out) *out = NULL;
  if (!world || !out || nrobot < 0 || (nrobot > 0 && !robots))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "model_create: invalid arguments");
  for (int r = 0; r < nrobot; r++) {
    if (!robots[r].urdf)
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "robot %d has no URDF description", r);
    csim_status su = check_supported(&robots[r], err);
    if (su == CSIM_OK && world->ground == 2) su = check_no_ellipsoid(robots[r].urdf, err);
    if (su != CSIM_OK) return su;
  }
  csim_status st = check_world(world, err);
  if (st != CSIM_OK) return st;
  // pass 1: plan every robot
  robot_plan* plans = calloc((size_t)nrobot + 1, sizeof(robot_plan));
  hull_set hs;
  memset(&hs, 0, sizeof(hs));
  sim_model* m = calloc(1, sizeof(sim_model));
  int nplanned = 0, nskipped = 0;
  if (!plans || !m) {
    st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
    goto fail;
  }
  for (int r = 0; r < nrobot; r++) {
    st = plan_robot(&robots[r], &plans[r], &hs, &nskipped, err);
    if (st != CSIM_OK) goto fail;
    nplanned++;
  }
  st = size_model(m, world, plans, nrobot, hs.n, nskipped, err);
  if (st == CSIM_OK) st = model_alloc(m, err);
  if (st != CSIM_OK) goto fail;
  if (hs.n) memcpy(m->mesh, hs.hull, sizeof(mesh_hull) * (size_t)hs.n);
  int nhull_owned = hs.n;   // hulls now belong to the model
  st = fill_model(m, world, robots, plans, nrobot, err);
  if (st != CSIM_OK) goto fail;
  // done: release the plans and the hull set's bookkeeping (the hulls belong to the model)
  for (int r = 0; r < nplanned; r++) plan_free(&plans[r]);
  free(plans);
  hull_set_free(&hs, nhull_owned);
  *out = m;
  return CSIM_OK;

fail:
  if (m && m->buffer) {
    // the model owns the hulls once the buffer exists: model_free releases them
    model_free(m);
    m = NULL;
    hull_set_free(&hs, hs.n);
  } else {
    if (m) free(m->hfield_data);
    free(m);
    hull_set_free(&hs, 0);
  }
  for (int r = 0; r < nplanned; r++) plan_free(&plans[r]);
  free(plans);
  return st;
}
