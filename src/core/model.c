// model.c — build the immutable simulation model from URDF descriptions (see model.h).
//
// Two passes: plan_robot() walks each URDF tree depth-first, decides which links form which body
// (fixed joints merge a link into its parent's body), computes link poses in body frames and loads
// the collision hulls; model_create() then sizes one buffer exactly and fills every array.
#include "core/model.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"

const char* const model_joint_type_names[MODEL_NJOINT_TYPES] = {"free", "revolute", "prismatic"};

const char* const model_geom_type_names[MODEL_NGEOM_TYPES] = {"plane",    "hfield",  "box",
                                                              "sphere",   "cylinder", "capsule",
                                                              "mesh"};

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

//---------------------------------- inertia fixes -------------------------------------------

// fixes of model.h in principal axes: point mass -> sphere, non-positive moments raised,
// triangle inequality restored by raising the two smaller moments equally
int model_fix_inertia(double mass, double inertia[9]) {
  if (!(mass > 0)) return 0;
  int fixes = 0;
  double sphere = 0.4 * mass * MODEL_POINT_RADIUS * MODEL_POINT_RADIUS;
  // symmetrize (URDF gives six numbers, callers may pass a slightly asymmetric product)
  double A[9];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) A[3 * r + c] = 0.5 * (inertia[3 * r + c] + inertia[3 * c + r]);
  // point mass: all-zero inertia becomes a solid sphere of radius MODEL_POINT_RADIUS
  double amax = 0;
  for (int k = 0; k < 9; k++) amax = fmax(amax, fabs(A[k]));
  if (amax == 0) {
    memset(inertia, 0, 9 * sizeof(double));
    inertia[0] = inertia[4] = inertia[8] = sphere;
    return MODEL_FIX_POINT_MASS;
  }
  // principal moments, ascending
  double w[3], V[9];
  sp_eigsym3(w, V, A);
  // non-positive moments raised to max(moment, ratio * largest, sphere)
  for (int k = 0; k < 3; k++) {
    if (!(w[k] > 0)) {
      w[k] = fmax(fmax(w[k], MODEL_MIN_MOMENT_RATIO * w[2]), sphere);
      fixes |= MODEL_FIX_NOT_PD;
    }
  }
  // keep ascending order after raising
  for (int i = 0; i < 2; i++)
    for (int j = i + 1; j < 3; j++)
      if (w[j] < w[i]) {
        double t = w[i]; w[i] = w[j]; w[j] = t;
        for (int k = 0; k < 3; k++) {
          double tv = V[3 * k + i]; V[3 * k + i] = V[3 * k + j]; V[3 * k + j] = tv;
        }
      }
  // triangle inequality on the largest moment: I3 <= I1 + I2
  if (w[2] > w[0] + w[1]) {
    double dlt = 0.5 * (w[2] - w[0] - w[1]);
    w[0] += dlt;
    w[1] += dlt;
    fixes |= MODEL_FIX_TRIANGLE;
  }
  if (!fixes) {
    memcpy(inertia, A, sizeof(A));
    return 0;
  }
  // rebuild I = V diag(w) V'
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      inertia[3 * r + c] = V[3 * r] * w[0] * V[3 * c] + V[3 * r + 1] * w[1] * V[3 * c + 1] +
                           V[3 * r + 2] * w[2] * V[3 * c + 2];
  return fixes;
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
  int nq, nv, ngeom;
  int* goff;       // first entry of each link's geoms in gmesh            (nlink + 1)
  int* gmesh;      // per URDF geom: hull index, -1 primitive, -2 skipped
} robot_plan;

// release a plan's arrays
static void plan_free(robot_plan* p) {
  free(p->order); free(p->lbody); free(p->lpos); free(p->lquat); free(p->blink);
  free(p->bjoint); free(p->bparent); free(p->btype); free(p->bpos); free(p->bquat);
  free(p->goff); free(p->gmesh);
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
  int nl = u->nlink, nj = u->njoint;
  p->nlink = nl;
  // arrays
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
  int* cadr = calloc((size_t)nl + 1, sizeof(int));   // children CSR: offsets
  int* cjnt = calloc((size_t)nj + 1, sizeof(int));   // children CSR: joints
  int* fill = calloc((size_t)nl + 1, sizeof(int));
  int* stack = calloc((size_t)nl + 1, sizeof(int));
  int* pjoint = calloc((size_t)nl, sizeof(int));     // joint through which a link was reached
  char* seen = calloc((size_t)nl, 1);
  csim_status st = CSIM_OK;
  if (!p->order || !p->lbody || !p->lpos || !p->lquat || !p->blink || !p->bjoint || !p->bparent ||
      !p->btype || !p->bpos || !p->bquat || !p->goff || !cadr || !cjnt || !fill || !stack ||
      !pjoint || !seen) {
    st = err_set(err, CSIM_ERR_RUN, file, 0, 0, NULL, "out of memory");
    goto done;
  }
  // joint checks and the children lists (in joint order)
  for (int j = 0; j < nj; j++) {
    const urdf_joint* J = &u->joints[j];
    if (J->parent < 0 || J->parent >= nl || J->child < 0 || J->child >= nl) {
      st = err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name, "joint links out of range");
      goto done;
    }
    if (J->type == URDF_JOINT_PLANAR) {
      st = err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name,
                   "planar joints are not supported (joint '%s')", J->name ? J->name : "");
      goto done;
    }
    if (!all_finite(J->xyz, 3) || !all_finite(J->rpy, 3) || !all_finite(J->axis, 3)) {
      st = err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name,
                   "joint '%s' has a non-finite origin or axis", J->name ? J->name : "");
      goto done;
    }
    if ((int)J->type < 0 || J->type >= URDF_NJOINT_TYPES) {
      st = err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name, "unknown joint type");
      goto done;
    }
    cadr[J->parent + 1]++;
  }
  for (int l = 0; l < nl; l++) cadr[l + 1] += cadr[l];
  for (int j = 0; j < nj; j++) {
    int pl = u->joints[j].parent;
    cjnt[cadr[pl] + fill[pl]++] = j;
  }
  // depth-first preorder from the root; a link's body and pose are set when it is reached
  int ns = 0, no = 0;
  stack[ns++] = u->root;
  seen[u->root] = 1;
  pjoint[u->root] = -1;
  while (ns > 0) {
    int L = stack[--ns];
    p->order[no++] = L;
    int j = pjoint[L];
    if (j < 0) {
      // root: a free body at the origin, or merged into the world at the base pose
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
    } else {
      const urdf_joint* J = &u->joints[j];
      int P = J->parent;
      double jp[3], jq[4], tp[3], tq[4];
      pose_from_origin(jp, jq, J->xyz, J->rpy);
      pose_mul(tp, tq, p->lpos + 3 * P, p->lquat + 4 * P, jp, jq);
      if (J->type == URDF_JOINT_FIXED) {
        // merged into the parent's body
        p->lbody[L] = p->lbody[P];
        sp_copy3(p->lpos + 3 * L, tp);
        memcpy(p->lquat + 4 * L, tq, sizeof(tq));
      } else {
        // a new body whose frame is the joint frame
        int b = p->nbody++;
        p->blink[b] = L;
        p->bjoint[b] = j;
        p->bparent[b] = p->lbody[P];
        p->btype[b] = J->type == URDF_JOINT_PRISMATIC  ? MODEL_JOINT_PRISMATIC
                      : J->type == URDF_JOINT_FLOATING ? MODEL_JOINT_FREE
                                                       : MODEL_JOINT_REVOLUTE;
        sp_copy3(p->bpos + 3 * b, tp);
        memcpy(p->bquat + 4 * b, tq, sizeof(tq));
        p->lbody[L] = b;
        pose_identity(p->lpos + 3 * L, p->lquat + 4 * L);
        if (p->btype[b] != MODEL_JOINT_FREE && !(sp_norm3(J->axis) > 0)) {
          st = err_set(err, CSIM_ERR_INPUT, file, J->line, J->column, J->name,
                       "moving joint '%s' has a zero axis", J->name ? J->name : "");
          goto done;
        }
      }
    }
    // children, pushed in reverse so they are visited in joint order
    for (int k = cadr[L + 1] - 1; k >= cadr[L]; k--) {
      int jc = cjnt[k], C = u->joints[jc].child;
      if (seen[C]) {
        st = err_set(err, CSIM_ERR_INPUT, file, u->joints[jc].line, u->joints[jc].column, u->joints[jc].name,
                     "link '%s' is reached twice (cycle or two parents)",
                     u->links[C].name ? u->links[C].name : "");
        goto done;
      }
      seen[C] = 1;
      pjoint[C] = jc;
      stack[ns++] = C;
    }
  }
  if (no != nl) {
    for (int l = 0; l < nl; l++)
      if (!seen[l]) {
        st = err_set(err, CSIM_ERR_INPUT, file, u->links[l].line, u->links[l].column, u->links[l].name,
                     "link '%s' is not connected to the root", u->links[l].name ? u->links[l].name : "");
        goto done;
      }
  }
  // sizes
  for (int b = 0; b < p->nbody; b++) {
    p->nq += p->btype[b] == MODEL_JOINT_FREE ? 7 : 1;
    p->nv += p->btype[b] == MODEL_JOINT_FREE ? 6 : 1;
  }
  // geoms: primitives always kept; meshes loaded (shared hulls) or skipped/refused
  for (int l = 0; l < nl; l++) {
    if (u->links[l].ngeom < 0 || (u->links[l].ngeom > 0 && !u->links[l].geoms)) {
      st = err_set(err, CSIM_ERR_INPUT, file, u->links[l].line, u->links[l].column, u->links[l].name, "invalid geometry list");
      goto done;
    }
    p->goff[l + 1] = p->goff[l] + u->links[l].ngeom;
  }
  p->gmesh = calloc((size_t)p->goff[nl] + 1, sizeof(int));
  if (!p->gmesh) {
    st = err_set(err, CSIM_ERR_RUN, file, 0, 0, NULL, "out of memory");
    goto done;
  }
  for (int l = 0; l < nl; l++) {
    const urdf_link* Lk = &u->links[l];
    for (int g = 0; g < Lk->ngeom; g++) {
      const urdf_geom* G = &Lk->geoms[g];
      int* slot = &p->gmesh[p->goff[l] + g];
      if ((int)G->type < 0 || G->type >= URDF_NGEOM_TYPES) {
        st = err_set(err, CSIM_ERR_INPUT, file, G->line, G->column, Lk->name, "unknown geometry type");
        goto done;
      }
      if (G->type != URDF_GEOM_MESH) {
        *slot = -1;
        p->ngeom++;
        continue;
      }
      const char* uri = G->uri ? G->uri : "";
      if (!G->path) {
        // unresolved URI
        if (spec->require_meshes) {
          st = err_set(err, CSIM_ERR_INPUT, file, G->line, G->column, Lk->name,
                       "collision mesh '%s' of link '%s' could not be resolved", uri,
                       Lk->name ? Lk->name : "");
          goto done;
        }
        *slot = -2;
        (*nskipped)++;
        continue;
      }
      csim_error merr;
      err_clear(&merr);
      int h = hull_get(hs, G->path, G->scale, &merr);
      if (h == -2) {
        st = err_set(err, CSIM_ERR_RUN, file, G->line, G->column, Lk->name, "out of memory");
        goto done;
      }
      if (h < 0) {
        if (spec->require_meshes) {
          char where[1400];  // the STL's own position (line or triangle) when it has one
          if (merr.file[0]) err_format(&merr, where, sizeof(where));
          else snprintf(where, sizeof(where), "%s", merr.msg);
          st = err_set(err, CSIM_ERR_INPUT, file, G->line, G->column, Lk->name,
                       "collision mesh '%s' of link '%s': %s", uri, Lk->name ? Lk->name : "",
                       where);
          goto done;
        }
        *slot = -2;
        (*nskipped)++;
        continue;
      }
      *slot = h;
      p->ngeom++;
    }
  }
done:
  free(cadr); free(cjnt); free(fill); free(stack); free(pjoint); free(seen);
  if (st != CSIM_OK) plan_free(p);
  return st;
}

//---------------------------------- buffer layout --------------------------------------------

// reserve `bytes` at the next 64-byte boundary of the buffer; NULL pointers while only measuring
static void* take(unsigned char* base, size_t* off, size_t bytes) {
  size_t o = (*off + 63) & ~(size_t)63;
  *off = o + bytes;
  return base ? (void*)(base + o) : NULL;
}

// place every array of m inside `base` (NULL: only measure); returns the bytes needed
static size_t model_layout(sim_model* m, unsigned char* base) {
  size_t off = 0, nb = (size_t)m->nbody, nj = (size_t)m->njnt, nv = (size_t)m->nv;
  size_t nl = (size_t)m->nlink, ng = (size_t)m->ngeom, nr = (size_t)m->nrobot;
  size_t I = sizeof(int), D = sizeof(double), P = sizeof(char*);
  // bodies
  m->body_parent = take(base, &off, I * nb);
  m->body_jnt = take(base, &off, I * nb);
  m->body_robot = take(base, &off, I * nb);
  m->body_link = take(base, &off, I * nb);
  m->body_pos = take(base, &off, D * nb * 3);
  m->body_quat = take(base, &off, D * nb * 4);
  m->body_mass = take(base, &off, D * nb);
  m->body_com = take(base, &off, D * nb * 3);
  m->body_inertia = take(base, &off, D * nb * 9);
  m->body_subtreemass = take(base, &off, D * nb);
  m->body_cinert = take(base, &off, D * nb * 10);
  m->body_dofadr = take(base, &off, I * nb);
  m->body_dofnum = take(base, &off, I * nb);
  m->body_geomadr = take(base, &off, I * nb);
  m->body_geomnum = take(base, &off, I * nb);
  // joints
  m->jnt_type = take(base, &off, I * nj);
  m->jnt_body = take(base, &off, I * nj);
  m->jnt_qadr = take(base, &off, I * nj);
  m->jnt_dofadr = take(base, &off, I * nj);
  m->jnt_axis = take(base, &off, D * nj * 3);
  m->jnt_limited = take(base, &off, I * nj);
  m->jnt_range = take(base, &off, D * nj * 2);
  m->jnt_effort = take(base, &off, D * nj);
  m->jnt_mimic = take(base, &off, I * nj);
  m->jnt_mimic_coef = take(base, &off, D * nj * 2);
  m->jnt_name = take(base, &off, P * nj);
  // dofs
  m->dof_body = take(base, &off, I * nv);
  m->dof_jnt = take(base, &off, I * nv);
  m->dof_parent = take(base, &off, I * nv);
  m->dof_Madr = take(base, &off, I * nv);
  m->dof_motion = take(base, &off, D * nv * 6);
  // links
  m->link_body = take(base, &off, I * nl);
  m->link_robot = take(base, &off, I * nl);
  m->link_pos = take(base, &off, D * nl * 3);
  m->link_quat = take(base, &off, D * nl * 4);
  m->link_mass = take(base, &off, D * nl);
  m->link_name = take(base, &off, P * nl);
  // geoms and meshes
  m->geom_type = take(base, &off, I * ng);
  m->geom_body = take(base, &off, I * ng);
  m->geom_link = take(base, &off, I * ng);
  m->geom_pos = take(base, &off, D * ng * 3);
  m->geom_quat = take(base, &off, D * ng * 4);
  m->geom_size = take(base, &off, D * ng * 3);
  m->geom_rbound = take(base, &off, D * ng);
  m->geom_mesh = take(base, &off, I * ng);
  m->mesh = take(base, &off, sizeof(mesh_hull) * (size_t)m->nmesh);
  // robots
  m->robot_name = take(base, &off, P * nr);
  m->robot_base = take(base, &off, I * nr);
  m->robot_bodyadr = take(base, &off, I * nr);
  m->robot_nbody = take(base, &off, I * nr);
  m->robot_qadr = take(base, &off, I * nr);
  m->robot_nq = take(base, &off, I * nr);
  m->robot_dofadr = take(base, &off, I * nr);
  m->robot_nv = take(base, &off, I * nr);
  m->robot_linkadr = take(base, &off, I * nr);
  m->robot_nlink = take(base, &off, I * nr);
  m->qpos0 = take(base, &off, D * (size_t)m->nq);
  return off + 64;
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

// strdup that accepts NULL (gives "")
static char* dupstr(const char* s) {
  return strdup(s ? s : "");
}

// plan every robot, size one buffer, then fill bodies, joints, dofs, links, inertias and geoms
csim_status model_create(const model_world_spec* world, const model_robot_spec* robots,
                         int nrobot, sim_model** out, csim_error* err) {
  if (out) *out = NULL;
  if (!world || !out || nrobot < 0 || (nrobot > 0 && !robots))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "model_create: invalid arguments");
  for (int r = 0; r < nrobot; r++)
    if (!robots[r].urdf)
      return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "robot %d has no URDF description", r);
  if (world->ground < 0 || world->ground > 2)
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "ground %d: expected 0, 1 or 2",
                   world->ground);
  if (world->ground == 2) {
    // the collision code indexes the grid directly: sizes and heights are checked here
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
  }

  // pass 1: plan every robot
  robot_plan* plans = calloc((size_t)nrobot + 1, sizeof(robot_plan));
  hull_set hs;
  memset(&hs, 0, sizeof(hs));
  sim_model* m = calloc(1, sizeof(sim_model));
  int nplanned = 0, nskipped = 0;
  csim_status st = CSIM_OK;
  if (!plans || !m) {
    st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
    goto fail;
  }
  for (int r = 0; r < nrobot; r++) {
    st = plan_robot(&robots[r], &plans[r], &hs, &nskipped, err);
    if (st != CSIM_OK) goto fail;
    nplanned++;
  }

  // sizes
  m->nrobot = nrobot;
  m->nbody = 1;
  m->ngeom = world->ground ? 1 : 0;
  for (int r = 0; r < nrobot; r++) {
    m->nbody += plans[r].nbody;
    m->nq += plans[r].nq;
    m->nv += plans[r].nv;
    m->nlink += plans[r].nlink;
    m->ngeom += plans[r].ngeom;
  }
  m->njnt = m->nbody - 1;
  m->nmesh = hs.n;
  if (world->ground == 2) {
    size_t nh = (size_t)world->hf_nx * (size_t)world->hf_ny;
    m->hfield_data = malloc(nh * sizeof(double));
    if (!m->hfield_data) {
      st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
      goto fail;
    }
    memcpy(m->hfield_data, world->hf_height, nh * sizeof(double));
    m->hfield_nx = world->hf_nx;
    m->hfield_ny = world->hf_ny;
    m->hfield_size[0] = world->hf_size[0];
    m->hfield_size[1] = world->hf_size[1];
  }
  m->ngeom_skipped = nskipped;
  sp_copy3(m->gravity, world->gravity);

  // one buffer for every array
  size_t bytes = model_layout(m, NULL);
  m->buffer = calloc(1, bytes);
  if (!m->buffer) {
    st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory (%zu bytes)", bytes);
    goto fail;
  }
  unsigned char* base = (unsigned char*)(((uintptr_t)m->buffer + 63) & ~(uintptr_t)63);
  model_layout(m, base);
  if (hs.n) memcpy(m->mesh, hs.hull, sizeof(mesh_hull) * (size_t)hs.n);
  int nhull_owned = hs.n;   // hulls now belong to the model

  // world body
  m->body_parent[0] = -1;
  m->body_jnt[0] = -1;
  m->body_robot[0] = -1;
  m->body_link[0] = -1;
  m->body_quat[3] = 1;
  m->body_dofadr[0] = -1;

  // pass 2: bodies, joints, dofs, links of every robot
  int bodyadr = 1, qadr = 0, dofadr = 0, linkadr = 0;
  for (int r = 0; r < nrobot; r++) {
    const model_robot_spec* spec = &robots[r];
    const urdf_robot* u = spec->urdf;
    const robot_plan* p = &plans[r];
    // robot record
    const char* rname = spec->name ? spec->name : u->name;
    char tmp[32];
    if (!rname || !rname[0]) {
      snprintf(tmp, sizeof(tmp), "robot%d", r);
      rname = tmp;
    }
    m->robot_name[r] = dupstr(rname);
    m->robot_base[r] = spec->base;
    m->robot_bodyadr[r] = bodyadr;
    m->robot_nbody[r] = p->nbody;
    m->robot_qadr[r] = qadr;
    m->robot_nq[r] = p->nq;
    m->robot_dofadr[r] = dofadr;
    m->robot_nv[r] = p->nv;
    m->robot_linkadr[r] = linkadr;
    m->robot_nlink[r] = p->nlink;
    if (!m->robot_name[r]) goto oom;
    // URDF joint -> model joint (for mimic)
    int* jmap = calloc((size_t)u->njoint + 1, sizeof(int));
    if (!jmap) goto oom;
    for (int j = 0; j < u->njoint; j++) jmap[j] = -1;
    for (int b = 0; b < p->nbody; b++)
      if (p->bjoint[b] >= 0) jmap[p->bjoint[b]] = bodyadr + b - 1;
    // bodies and their joints
    for (int b = 0; b < p->nbody; b++) {
      int gb = bodyadr + b, jid = gb - 1, type = p->btype[b];
      int uj = p->bjoint[b];
      const urdf_joint* J = uj >= 0 ? &u->joints[uj] : NULL;
      m->body_parent[gb] = p->bparent[b] < 0 ? 0 : bodyadr + p->bparent[b];
      m->body_jnt[gb] = jid;
      m->body_robot[gb] = r;
      m->body_link[gb] = linkadr + p->blink[b];
      sp_copy3(m->body_pos + 3 * gb, p->bpos + 3 * b);
      memcpy(m->body_quat + 4 * gb, p->bquat + 4 * b, 4 * sizeof(double));
      int ndof = type == MODEL_JOINT_FREE ? 6 : 1;
      m->body_dofadr[gb] = dofadr;
      m->body_dofnum[gb] = ndof;
      // joint
      m->jnt_type[jid] = type;
      m->jnt_body[jid] = gb;
      m->jnt_qadr[jid] = qadr;
      m->jnt_dofadr[jid] = dofadr;
      m->jnt_mimic[jid] = -1;
      m->jnt_mimic_coef[2 * jid] = 1;
      if (J) {
        double ax[3];
        sp_copy3(ax, J->axis);
        if (sp_normalize3(ax) == 0) ax[0] = 1;
        sp_copy3(m->jnt_axis + 3 * jid, ax);
        m->jnt_limited[jid] = type != MODEL_JOINT_FREE && J->type != URDF_JOINT_CONTINUOUS &&
                              J->has_position_limit;
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
        // the free joint added for a free base
        m->jnt_axis[3 * jid + 2] = 1;
        size_t n = strlen(rname) + 6;
        m->jnt_name[jid] = malloc(n);
        if (m->jnt_name[jid]) snprintf(m->jnt_name[jid], n, "%s/root", rname);
      }
      if (!m->jnt_name[jid]) {
        free(jmap);
        goto oom;
      }
      // dofs: parent is the last dof of the nearest ancestor body, chained inside a free joint
      int pb = m->body_parent[gb];
      int pdof = pb > 0 ? m->body_dofadr[pb] + m->body_dofnum[pb] - 1 : -1;
      for (int k = 0; k < ndof; k++) {
        int dof = dofadr + k;
        m->dof_body[dof] = gb;
        m->dof_jnt[dof] = jid;
        m->dof_parent[dof] = k == 0 ? pdof : dof - 1;
        double* S = m->dof_motion + 6 * dof;
        if (type == MODEL_JOINT_FREE) S[k] = 1;
        else if (type == MODEL_JOINT_REVOLUTE) sp_copy3(S + 3, m->jnt_axis + 3 * jid);
        else sp_copy3(S, m->jnt_axis + 3 * jid);
      }
      // reference configuration
      if (type == MODEL_JOINT_FREE) m->qpos0[qadr + 6] = 1;
      qadr += type == MODEL_JOINT_FREE ? 7 : 1;
      dofadr += ndof;
    }
    free(jmap);
    // links: pose in body frame, names, mass and inertia merged into their body
    for (int l = 0; l < p->nlink; l++) {
      const urdf_link* Lk = &u->links[l];
      int gl = linkadr + l, lb = p->lbody[l];
      int gb = lb < 0 ? 0 : bodyadr + lb;
      m->link_body[gl] = gb;
      m->link_robot[gl] = r;
      sp_copy3(m->link_pos + 3 * gl, p->lpos + 3 * l);
      memcpy(m->link_quat + 4 * gl, p->lquat + 4 * l, 4 * sizeof(double));
      m->link_mass[gl] = Lk->has_inertial ? Lk->mass : 0;
      m->link_name[gl] = dupstr(Lk->name);
      if (!m->link_name[gl]) goto oom;
    }
    bodyadr += p->nbody;
    linkadr += p->nlink;
  }

  // mass, com, inertia of each moving body from its links (in link DFS order per robot)
  for (int r = 0; r < nrobot; r++) {
    const urdf_robot* u = robots[r].urdf;
    const robot_plan* p = &plans[r];
    for (int k = 0; k < p->nlink; k++) {
      int l = p->order[k], gl = m->robot_linkadr[r] + l, gb = m->link_body[gl];
      const urdf_link* Lk = &u->links[l];
      if (gb == 0 || !Lk->has_inertial) continue;
      if (Lk->mass < 0 || !isfinite(Lk->mass) || !all_finite(Lk->com_xyz, 3) ||
          !all_finite(Lk->com_rpy, 3) || !all_finite(Lk->inertia, 6)) {
        st = err_set(err, CSIM_ERR_INPUT, robot_file(u), Lk->line, Lk->column, Lk->name,
                     "link '%s' has an invalid inertial (mass %g; negative or non-finite values)",
                     Lk->name ? Lk->name : "", Lk->mass);
        goto fail;
      }
      if (!(Lk->mass > 0)) continue;
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
    }
  }

  // compact spatial inertia about each body origin: Io = Ic + m(|c|^2 1 - c c')
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

  // subtree masses; a moving body with a massless subtree makes M singular
  for (int b = 0; b < m->nbody; b++) m->body_subtreemass[b] = m->body_mass[b];
  for (int b = m->nbody - 1; b > 0; b--) m->body_subtreemass[m->body_parent[b]] += m->body_subtreemass[b];
  for (int b = 1; b < m->nbody; b++) {
    if (!(m->body_subtreemass[b] > 0)) {
      int r = m->body_robot[b], l = m->body_link[b] - m->robot_linkadr[r];
      const urdf_robot* u = robots[r].urdf;
      st = err_set(err, CSIM_ERR_INPUT, robot_file(u), u->links[l].line, u->links[l].column, u->links[l].name,
                   "moving link '%s' (joint '%s') and all links it carries have no mass: the mass "
                   "matrix would be singular",
                   m->link_name[m->body_link[b]], m->jnt_name[m->body_jnt[b]]);
      goto fail;
    }
  }

  // dof depths: the maximum, and the tree-sparse mass matrix rows (one entry per dof from
  // the dof to its root, rows in dof order)
  {
    int* depth = calloc((size_t)m->nv + 1, sizeof(int));
    if (!depth) goto oom;
    size_t nM = 0;
    for (int i = 0; i < m->nv; i++) {
      depth[i] = 1 + (m->dof_parent[i] >= 0 ? depth[m->dof_parent[i]] : 0);
      if (depth[i] > m->maxdepth) m->maxdepth = depth[i];
      m->dof_Madr[i] = (int)nM;
      nM += (size_t)depth[i];
      if (nM > INT_MAX) {
        free(depth);
        st = err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL,
                     "the mass matrix of %d dofs (largest depth %d) has more than %d tree "
                     "entries", m->nv, m->maxdepth, INT_MAX);
        goto fail;
      }
    }
    m->nM = (int)nM;
    free(depth);
  }

  // geoms grouped by body: count per body, then fill (ground plane first on the world)
  {
    int* cnt = calloc((size_t)m->nbody + 1, sizeof(int));
    if (!cnt) goto oom;
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
    // ground plane
    if (world->ground) {
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
    }
    // link geoms in link DFS order
    for (int r = 0; r < nrobot; r++) {
      const urdf_robot* u = robots[r].urdf;
      const robot_plan* p = &plans[r];
      for (int k = 0; k < p->nlink; k++) {
        int l = p->order[k], gl = m->robot_linkadr[r] + l, gb = m->link_body[gl];
        const urdf_link* Lk = &u->links[l];
        for (int i = 0; i < Lk->ngeom; i++) {
          int hm = p->gmesh[p->goff[l] + i];
          if (hm == -2) continue;
          const urdf_geom* G = &Lk->geoms[i];
          int g = m->body_geomadr[gb] + m->body_geomnum[gb]++;
          double op[3], oq[4];
          pose_from_origin(op, oq, G->xyz, G->rpy);
          pose_mul(m->geom_pos + 3 * g, m->geom_quat + 4 * g, m->link_pos + 3 * gl,
                   m->link_quat + 4 * gl, op, oq);
          m->geom_body[g] = gb;
          m->geom_link[g] = gl;
          m->geom_mesh[g] = -1;
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
            default:
              m->geom_type[g] = MODEL_GEOM_MESH;
              m->geom_mesh[g] = hm;
              sp_copy3(s, G->scale);
              break;
          }
          m->geom_rbound[g] = geom_bound(m, g);
        }
      }
    }
    if (world->ground) m->geom_rbound[m->body_geomadr[0]] = INFINITY;
  }

  // done: release the plans and the hull set's bookkeeping (the hulls belong to the model)
  for (int r = 0; r < nplanned; r++) plan_free(&plans[r]);
  free(plans);
  hull_set_free(&hs, nhull_owned);
  *out = m;
  return CSIM_OK;

oom:
  st = err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory");
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

//---------------------------------- free, lookups --------------------------------------------

// names, hulls, then the buffer
void model_free(sim_model* m) {
  if (!m) return;
  if (m->buffer) {
    for (int i = 0; i < m->njnt; i++) free(m->jnt_name[i]);
    for (int i = 0; i < m->nlink; i++) free(m->link_name[i]);
    for (int i = 0; i < m->nrobot; i++) free(m->robot_name[i]);
    for (int i = 0; i < m->nmesh; i++) mesh_hull_free(&m->mesh[i]);
    free(m->buffer);
  }
  free(m->hfield_data);
  free(m);
}

// find `name` among n names owned by robots (robot of entry i: owner[via ? via[i] : i]); exact
// name first (unique), then "robot/name"; -1 when absent or ambiguous
static int find_name(const sim_model* m, char* const* names, const int* owner, const int* via,
                     int n, const char* name) {
  if (!m || !name) return -1;
  int hit = -1, count = 0;
  for (int i = 0; i < n; i++)
    if (names[i] && !strcmp(names[i], name)) {
      if (!count) hit = i;
      count++;
    }
  if (count == 1) return hit;
  if (count > 1) return -1;
  // "robot/name": try every '/' as the separator
  for (const char* s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
    size_t plen = (size_t)(s - name);
    for (int i = 0; i < n; i++) {
      int r = owner[via ? via[i] : i];
      if (r < 0 || !names[i]) continue;
      const char* rn = m->robot_name[r];
      if (strlen(rn) == plen && !strncmp(rn, name, plen) && !strcmp(names[i], s + 1)) return i;
    }
  }
  return -1;
}

// exact unique name, else "robot/joint" (a joint's robot is its body's)
int model_find_joint(const sim_model* m, const char* name) {
  if (!m) return -1;
  return find_name(m, m->jnt_name, m->body_robot, m->jnt_body, m->njnt, name);
}

// exact unique name, else "robot/link"
int model_find_link(const sim_model* m, const char* name) {
  if (!m) return -1;
  return find_name(m, m->link_name, m->link_robot, NULL, m->nlink, name);
}

// sum of the robot's URDF link masses (world-merged links included)
double model_robot_mass(const sim_model* m, int r) {
  if (!m || r < 0 || r >= m->nrobot) return 0;
  double s = 0;
  for (int l = m->robot_linkadr[r]; l < m->robot_linkadr[r] + m->robot_nlink[r]; l++)
    s += m->link_mass[l];
  return s;
}
