// mjcf_body.c — the MJCF reader's bodies (see mjcf.h): frames, joint chains, geoms, inertias
// from <inertial> or from the geoms, <contact><exclude>, actuators and the final checks.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"
#include "io/mesh_io.h"
#include "io/mjcf_impl.h"

//---------------------------------- orientations ---------------------------------------------

// quaternion [x y z w] rotating +z onto the unit vector v (MuJoCo's mjuu_z2quat: about z x v,
// by the angle between them; v = -z turns about x)
static void z2quat(double q[4], const double v[3]) {
  double z[3] = {0, 0, 1}, ax[3];
  sp_cross3(ax, z, v);
  double s = sp_normalize3(ax);
  if (s < 1e-10) ax[0] = 1, ax[1] = ax[2] = 0;
  double ang = atan2(s, v[2]);
  for (int i = 0; i < 3; i++) q[i] = ax[i] * sin(ang / 2);
  q[3] = cos(ang / 2);
}

// euler angles (radians) in sequence seq: lower case about the rotating axes (post-multiplied),
// upper case about the fixed ones (pre-multiplied), as mjuu_frame
static void euler2quat(double q[4], const double e[3], const char* seq) {
  double acc[4] = {0, 0, 0, 1}, rot[4], t[4];
  for (int i = 0; i < 3; i++) {
    int ax = seq[i] == 'x' || seq[i] == 'X' ? 0 : seq[i] == 'y' || seq[i] == 'Y' ? 1 : 2;
    rot[0] = rot[1] = rot[2] = 0;
    rot[ax] = sin(e[i] / 2);
    rot[3] = cos(e[i] / 2);
    if (seq[i] >= 'a') sp_mulquat(t, acc, rot);
    else sp_mulquat(t, rot, acc);
    memcpy(acc, t, sizeof(t));
  }
  memcpy(q, acc, sizeof(acc));
}

// frame from xyaxes: x normalised, y made orthogonal to it and normalised, z = x cross y;
// 0 when x or y is degenerate
static int xyaxes2quat(double q[4], const double v[6]) {
  double x[3] = {v[0], v[1], v[2]}, y[3] = {v[3], v[4], v[5]}, z[3];
  if (sp_normalize3(x) < 1e-10) return 0;
  sp_addscl3(y, x, -sp_dot3(x, y));
  if (sp_normalize3(y) < 1e-10) return 0;
  sp_cross3(z, x, y);
  double R[9] = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
  sp_mat2quat(q, R);
  sp_normquat(q);
  return 1;
}

csim_status mj_orientation(mj_ctx* c, const mj_node* n, double q[4]) {
  static const char* const kForms[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis", NULL};
  static const int kCount[] = {4, 4, 3, 6, 3};
  const xml_attr* a = NULL;
  int form = -1;
  for (int k = 0; kForms[k]; k++) {
    const xml_attr* b = xml_attr_find(n->x, kForms[k]);
    if (b && a)
      return mj_fail(c, n, b, "<%s> has both '%s' and '%s' (expected one orientation)",
                     n->x->name, a->name, b->name);
    if (b) a = b, form = k;
  }
  q[0] = q[1] = q[2] = 0;
  q[3] = 1;
  if (!a) return CSIM_OK;
  double v[6], deg = c->degree ? M_PI / 180 : 1;
  csim_status st = mj_nums(c, n, a, kCount[form], kCount[form], v, NULL);
  if (st) return st;
  int ok = 1;
  if (form == 0) {
    double w[4] = {v[1], v[2], v[3], v[0]};
    double nq = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + w[3] * w[3]);
    ok = nq > 1e-10;
    for (int i = 0; ok && i < 4; i++) q[i] = w[i] / nq;
  } else if (form == 1) {
    double ax[3] = {v[0], v[1], v[2]}, ang = v[3] * deg;
    ok = sp_normalize3(ax) > 1e-10;
    for (int i = 0; ok && i < 3; i++) q[i] = ax[i] * sin(ang / 2);
    q[3] = ok ? cos(ang / 2) : 1;
  } else if (form == 2) {
    for (int i = 0; i < 3; i++) v[i] *= deg;
    euler2quat(q, v, c->eulerseq);
  } else if (form == 3) {
    ok = xyaxes2quat(q, v);
  } else {
    ok = sp_normalize3(v) > 1e-10;
    if (ok) z2quat(q, v);
  }
  if (!ok) return mj_fail(c, n, a, "attribute '%s' of <%s>: degenerate (zero) vector '%s'",
                          a->name, n->x->name, a->value);
  return CSIM_OK;
}

//---------------------------------- inertia of primitives ------------------------------------

// volume of a primitive (MJCF half sizes)
static double geom_volume(urdf_geom_type t, const double s[3]) {
  switch (t) {
    case URDF_GEOM_SPHERE: return 4.0 / 3 * M_PI * s[0] * s[0] * s[0];
    case URDF_GEOM_CAPSULE:
      return 4.0 / 3 * M_PI * s[0] * s[0] * s[0] + M_PI * s[0] * s[0] * 2 * s[1];
    case URDF_GEOM_CYLINDER: return M_PI * s[0] * s[0] * 2 * s[1];
    case URDF_GEOM_BOX: return 8 * s[0] * s[1] * s[2];
    case URDF_GEOM_ELLIPSOID: return 4.0 / 3 * M_PI * s[0] * s[1] * s[2];
    default: return 0;
  }
}

// principal moments about the centre (geom axes) of a primitive of mass m: closed forms; the
// capsule is its cylinder plus two hemispheres at their true centroids (3r/8 off the caps)
static void geom_moments(urdf_geom_type t, const double s[3], double m, double I[3]) {
  double r = s[0], h = 2 * s[1];
  I[0] = I[1] = I[2] = 0;
  switch (t) {
    case URDF_GEOM_SPHERE: I[0] = I[1] = I[2] = 0.4 * m * r * r; break;
    case URDF_GEOM_CAPSULE: {
      double vs = 4.0 / 3 * M_PI * r * r * r, vc = M_PI * r * r * h;
      double ms = m * vs / (vs + vc), mc = m * vc / (vs + vc);
      I[0] = I[1] = mc * (3 * r * r + h * h) / 12 + ms * (0.4 * r * r + h * h / 4 + 3 * r * h / 8);
      I[2] = mc * r * r / 2 + ms * 0.4 * r * r;
      break;
    }
    case URDF_GEOM_CYLINDER:
      I[0] = I[1] = m * (3 * r * r + h * h) / 12;
      I[2] = m * r * r / 2;
      break;
    case URDF_GEOM_BOX:
      I[0] = m * (s[1] * s[1] + s[2] * s[2]) / 3;
      I[1] = m * (s[0] * s[0] + s[2] * s[2]) / 3;
      I[2] = m * (s[0] * s[0] + s[1] * s[1]) / 3;
      break;
    case URDF_GEOM_ELLIPSOID:
      I[0] = m * (s[1] * s[1] + s[2] * s[2]) / 5;
      I[1] = m * (s[0] * s[0] + s[2] * s[2]) / 5;
      I[2] = m * (s[0] * s[0] + s[1] * s[1]) / 5;
      break;
    default: break;
  }
}

void mj_geom_inertia(urdf_geom_type type, const double size[3], double density, double* mass,
                     double I[3]) {
  *mass = density * geom_volume(type, size);
  geom_moments(type, size, *mass, I);
}

// one geom's share of its body's mass: mass m at p, principal inertia I in the frame q
typedef struct {
  double m, p[3], q[4], I[3];
  int full;     // a mesh's: F is its full inertia in the frame q (I unused)
  double F[9];
} mass_part;

// the link's inertial from its geoms' parts: total mass, com c = sum m p / M, and about it
// I = sum (R I R' + m (|d|^2 1 - d d')) with d = p - c (parallel axes, as MuJoCo sums them)
static void parts_to_link(const mass_part* P, int n, urdf_link* L) {
  double M = 0, c[3] = {0, 0, 0}, I[9] = {0};
  for (int k = 0; k < n; k++) {
    M += P[k].m;
    for (int i = 0; i < 3; i++) c[i] += P[k].m * P[k].p[i];
  }
  if (M > 0)
    for (int i = 0; i < 3; i++) c[i] /= M;
  for (int k = 0; k < n; k++) {
    double R[9], D[9] = {P[k].I[0], 0, 0, 0, P[k].I[1], 0, 0, 0, P[k].I[2]}, T[9], B[9], d[3];
    sp_quat2mat(R, P[k].q);
    sp_mulmm3(T, R, P[k].full ? P[k].F : D);
    sp_mulmmt3(B, T, R);
    sp_sub3(d, P[k].p, c);
    double d2 = sp_dot3(d, d);
    for (int r = 0; r < 3; r++)
      for (int j = 0; j < 3; j++)
        I[3 * r + j] += B[3 * r + j] + P[k].m * ((r == j ? d2 : 0) - d[r] * d[j]);
  }
  L->has_inertial = 1;
  L->mass = M;
  sp_copy3(L->com_xyz, c);
  memset(L->com_rpy, 0, sizeof(L->com_rpy));
  double six[6] = {I[0], I[1], I[2], I[4], I[5], I[8]};
  memcpy(L->inertia, six, sizeof(six));
}

//---------------------------------- description storage -------------------------------------

// a new link named name (copied); its index, -1 when out of memory
static int new_link(mj_ctx* c, const char* name, const mj_node* at) {
  urdf_robot* r = c->r;
  if (r->nlink == c->caplink) {
    int nc = c->caplink ? 2 * c->caplink : 16;
    urdf_link* l = realloc(r->links, (size_t)nc * sizeof(*l));
    if (!l) return -1;
    r->links = l;
    c->caplink = nc;
  }
  urdf_link* L = &r->links[r->nlink];
  memset(L, 0, sizeof(*L));
  L->name = mj_dup(name);
  if (!L->name) return -1;
  L->line = at->x->line;
  L->column = at->x->column;
  return r->nlink++;
}

// a new joint (zeroed, mimic -1) named name; its index, -1 when out of memory
static int new_joint(mj_ctx* c, const char* name, const mj_node* at, int parent, int child) {
  urdf_robot* r = c->r;
  if (r->njoint == c->capjoint) {
    int nc = c->capjoint ? 2 * c->capjoint : 16;
    urdf_joint* j = realloc(r->joints, (size_t)nc * sizeof(*j));
    if (!j) return -1;
    r->joints = j;
    c->capjoint = nc;
  }
  urdf_joint* J = &r->joints[r->njoint];
  memset(J, 0, sizeof(*J));
  J->name = mj_dup(name);
  if (!J->name) return -1;
  J->line = at->x->line;
  J->column = at->x->column;
  J->parent = parent;
  J->child = child;
  J->mimic = -1;
  J->mimic_multiplier = 1;
  J->use_quat = 1;
  J->quat[3] = 1;
  J->type = URDF_JOINT_FIXED;
  return r->njoint++;
}

// room for one more geom on link l; the new geom (zeroed), NULL when out of memory
static urdf_geom* new_geom(mj_ctx* c, int l) {
  urdf_link* L = &c->r->links[l];
  urdf_geom* g = realloc(L->geoms, (size_t)(L->ngeom + 1) * sizeof(*g));
  if (!g) return NULL;
  L->geoms = g;
  memset(&g[L->ngeom], 0, sizeof(*g));
  return &g[L->ngeom++];
}

// record a mesh issue (the model leaves the geom out, or refuses it when meshes are required)
static csim_status mesh_issue(mj_ctx* c, urdf_issue_kind kind, int link, int line,
                              const char* msg) {
  urdf_robot* r = c->r;
  urdf_issue* is = realloc(r->issues, (size_t)(r->nissue + 1) * sizeof(*is));
  if (!is) return mj_oom(c);
  r->issues = is;
  is[r->nissue].kind = kind;
  is[r->nissue].link = link;
  is[r->nissue].line = line;
  snprintf(is[r->nissue].msg, sizeof(is[r->nissue].msg), "%s", msg);
  r->nissue++;
  return CSIM_OK;
}

//---------------------------------- joints ---------------------------------------------------

// what one MJCF joint says, before it enters the chain
typedef struct {
  const mj_node* n;
  int type;                // 0 free, 1 ball, 2 slide, 3 hinge
  double pos[3], axis[3];
  int limited;
  double range[2];
  double damping, stiffness, springref, armature, frictionloss, ref;
  double solreflimit[2], solimplimit[5];
} mj_joint;

// joint attributes: armature (M's diagonal), damping, stiffness and springref (model.h: passive
// springs and dampers) and frictionloss (model.h: dry joint friction, rigid models) kept; ref,
// which csim does not simulate yet, is recorded when non-zero
static csim_status joint_passive(mj_ctx* c, const mj_node* n, int cls, mj_joint* J,
                                 const char* jname) {
  static const char* const kNames[] = {"damping", "stiffness", "armature", "frictionloss",
                                       "ref", "springref"};
  double* dst[] = {&J->damping, &J->stiffness, &J->armature, &J->frictionloss, &J->ref,
                   &J->springref};
  csim_status st = CSIM_OK;
  for (int k = 0; k < 6 && !st; k++) {
    st = mj_dnums(c, n, "joint", cls, kNames[k], 1, 1, dst[k], NULL);
    if (!st && k <= 3 && !(*dst[k] >= 0))
      st = mj_fail(c, n, NULL, "joint '%s': %s %g (expected >= 0)", jname, kNames[k], *dst[k]);
    else if (!st && k == 4 && *dst[k] != 0)
      st = mj_unsupported(c, n, NULL, "joint '%s': %s %g", jname, kNames[k], *dst[k]);
  }
  // solreflimit/solimplimit: MuJoCo softness of the limits under ccp (material.h; MuJoCo's
  // defaults when not given); the friction pair (solreffriction, solimpfriction) is
  // read by MuJoCo only: csim's dry friction rows are rigid (docs/models_and_solvers.md); a joint
  // margin and springdamper are not simulated
  static const double kRef[2] = {0.02, 1}, kImp[5] = {0.9, 0.95, 0.001, 0.5, 2};
  memcpy(J->solreflimit, kRef, sizeof(kRef));
  memcpy(J->solimplimit, kImp, sizeof(kImp));
  if (!st) st = mj_dnums(c, n, "joint", cls, "solreflimit", 1, 2, J->solreflimit, NULL);
  if (!st) st = mj_dnums(c, n, "joint", cls, "solimplimit", 1, 5, J->solimplimit, NULL);
  const double* si = J->solimplimit;
  if (!st && !(J->solreflimit[0] != 0 && si[0] >= 0 && si[0] <= 1 && si[1] >= 0 && si[1] <= 1 &&
               si[2] >= 0 && si[3] >= 0 && si[3] <= 1 && si[4] >= 1))
    st = mj_fail(c, n, NULL, "joint '%s': solreflimit or solimplimit out of range (expected a "
                 "non-zero time constant, 0 <= dmin, dmax <= 1 (clamped to [1e-4, 0.9999] as "
                 "MuJoCo's), width >= 0, 0 <= midpoint "
                 "<= 1, power >= 1)", jname);
  static const char* const kSoft[] = {"margin", "springdamper", NULL};
  for (int k = 0; kSoft[k] && !st; k++) {
    const mj_node* w;
    if (mj_attr(c, n, "joint", cls, kSoft[k], &w))
      st = mj_unsupported(c, n, NULL, "joint '%s': %s", jname, kSoft[k]);
  }
  return st;
}

// one <joint> or <freejoint>
static csim_status read_joint(mj_ctx* c, const mj_node* n, int cc, mj_joint* J,
                              const char* jname) {
  memset(J, 0, sizeof(*J));
  J->n = n;
  J->axis[2] = 1;
  if (!strcmp(n->x->name, "freejoint")) return mj_check_attrs(c, n, "name group");
  csim_status st = mj_check_attrs(c, n,
      "name class type group pos axis springdamper limited solreflimit solimplimit "
      "solreffriction solimpfriction stiffness range margin ref springref armature damping "
      "frictionloss user");
  int cls = cc;
  if (!st) st = mj_class_of(c, n, cc, &cls);
  static const char* const kTypes[] = {"free", "ball", "slide", "hinge", NULL};
  const mj_node* w;
  const xml_attr* a = mj_attr(c, n, "joint", cls, "type", &w);
  J->type = 3;
  if (!st && a) st = mj_word(c, w, a, kTypes, &J->type);
  if (!st) st = mj_dnums(c, n, "joint", cls, "pos", 3, 3, J->pos, NULL);
  if (!st) st = mj_dnums(c, n, "joint", cls, "axis", 3, 3, J->axis, NULL);
  if (!st && J->type >= 2 && sp_normalize3(J->axis) < 1e-10)
    return mj_fail(c, n, xml_attr_find(n->x, "axis"), "joint '%s': zero axis", jname);
  int has_range = 0, lim = -1;
  if (!st) st = mj_dnums(c, n, "joint", cls, "range", 2, 2, J->range, &has_range);
  static const char* const kLim[] = {"false", "true", "auto", NULL};
  a = mj_attr(c, n, "joint", cls, "limited", &w);
  if (!st && a) st = mj_word(c, w, a, kLim, &lim);
  if (st) return st;
  J->limited = lim == 1 || (lim != 0 && c->autolimits && has_range);
  if ((J->type == 3 || J->type == 1) && c->degree)
    J->range[0] *= M_PI / 180, J->range[1] *= M_PI / 180;
  if (J->limited && J->type >= 2 && !(J->range[0] < J->range[1]))
    return mj_fail(c, n, NULL, "joint '%s': limited with range [%g, %g] (expected lower < upper)",
                   jname, J->range[0], J->range[1]);
  // a ball joint's range is MuJoCo's cone limit on the rotation angle: "0 angle"
  if (J->limited && J->type == 1 && !(J->range[0] == 0 && J->range[1] > 0))
    return mj_fail(c, n, NULL, "ball joint '%s': limited with range [%g, %g] (expected 0 and the "
                   "largest rotation angle > 0: MuJoCo's cone limit)", jname, J->range[0],
                   J->range[1]);
  st = joint_passive(c, n, cls, J, jname);
  if (J->type == 3 && c->degree) J->springref *= M_PI / 180;  // as the range (mjCJoint)
  return st;
}

// the joint chain of body link B (pose P, Q in parent link pl): a fixed joint when there is no
// joint; a floating joint for a free one; else hinge, slide and ball joints through massless
// frame links
// at each joint's anchor (MuJoCo composes a body's joints in order, each about its own anchor)
static csim_status make_chain(mj_ctx* c, const mj_node* body, int pl, int B, const double P[3],
                              const double Q[4], const mj_joint* J, int nj) {
  const char* bname = c->r->links[B].name;
  char nm[600];
  if (nj == 0) {
    snprintf(nm, sizeof(nm), "%s/weld", bname);
    int j = new_joint(c, nm, body, pl, B);
    if (j < 0) return mj_oom(c);
    sp_copy3(c->r->joints[j].xyz, P);
    memcpy(c->r->joints[j].quat, Q, 4 * sizeof(double));
    return CSIM_OK;
  }
  if (J[0].type == 0 && nj > 1)
    return mj_fail(c, J[1].n, NULL, "body '%s' has a free joint and other joints", bname);
  int prev = pl;
  for (int i = 0; i < nj; i++) {
    const mj_joint* K = &J[i];
    const xml_attr* na = xml_attr_find(K->n->x, "name");
    if (na) snprintf(nm, sizeof(nm), "%s", na->value);
    else snprintf(nm, sizeof(nm), "%s/joint%d", bname, i);
    if (K->type == 0 && (pl != 0 || i > 0))
      return mj_fail(c, K->n, NULL, "free joint '%s' in body '%s', which is not a child of "
                     "the world body (MuJoCo allows free joints at the top level only)", nm, bname);
    int last = i == nj - 1, child = B;
    if (!(last && (K->type == 0 || (K->pos[0] == 0 && K->pos[1] == 0 && K->pos[2] == 0)))) {
      char fn[1300];
      snprintf(fn, sizeof(fn), "%s/%s", bname, nm);
      if ((child = new_link(c, fn, K->n)) < 0) return mj_oom(c);
      c->r->links[child].frame = 1;
    }
    int j = new_joint(c, nm, K->n, prev, child);
    if (j < 0) return mj_oom(c);
    urdf_joint* U = &c->r->joints[j];
    if (i == 0) {
      double t[3];
      sp_rotquat(t, Q, K->type == 0 ? (double[3]){0, 0, 0} : K->pos);
      sp_add3(U->xyz, P, t);
      memcpy(U->quat, Q, 4 * sizeof(double));
    } else {
      sp_sub3(U->xyz, K->pos, J[i - 1].pos);
    }
    U->world_pose = K->type == 0;
    U->type = K->type == 0 ? URDF_JOINT_FLOATING : K->type == 1 ? URDF_JOINT_BALL
              : K->type == 2 ? URDF_JOINT_PRISMATIC : URDF_JOINT_REVOLUTE;
    sp_copy3(U->axis, K->axis);
    U->has_position_limit = K->limited && K->type >= 1;   // ball: the cone limit [0, angle]
    U->lower = K->range[0];
    U->upper = K->range[1];
    U->damping = K->damping, U->stiffness = K->stiffness, U->springref = K->springref;
    U->armature = K->armature, U->frictionloss = K->frictionloss, U->ref = K->ref;
    memcpy(U->solreflimit, K->solreflimit, sizeof(U->solreflimit));
    memcpy(U->solimplimit, K->solimplimit, sizeof(U->solimplimit));
    prev = child;
  }
  if (prev != B) {
    // from the last joint's anchor back to the body frame
    snprintf(nm, sizeof(nm), "%s/frame", bname);
    int j = new_joint(c, nm, body, prev, B);
    if (j < 0) return mj_oom(c);
    sp_scale3(c->r->joints[j].xyz, J[nj - 1].pos, -1);
  }
  return CSIM_OK;
}

//---------------------------------- geoms ----------------------------------------------------

// the mesh asset named `name` (its name attribute, else its file's stem); NULL when none
static const mj_node* find_mesh(const mj_ctx* c, const char* name) {
  for (int i = 0; i < c->nmesh; i++) {
    const char* nm = xml_attr_get(c->mesh[i]->x, "name");
    const char* file = xml_attr_get(c->mesh[i]->x, "file");
    if (nm && !strcmp(nm, name)) return c->mesh[i];
    if (!nm && file) {
      const char* b = strrchr(file, '/');
      b = b ? b + 1 : file;
      const char* dot = strrchr(b, '.');
      size_t n = dot ? (size_t)(dot - b) : strlen(b);
      if (strlen(name) == n && !strncmp(b, name, n)) return c->mesh[i];
    }
  }
  return NULL;
}

// a mesh geom: its asset's file (main file's directory / meshdir / file) and scale
static csim_status geom_mesh(mj_ctx* c, const mj_node* n, int cls, int link, urdf_geom* G) {
  const mj_node* w;
  const xml_attr* a = mj_attr(c, n, "geom", cls, "mesh", &w);
  if (!a) return mj_fail(c, n, NULL, "mesh geom without a 'mesh' attribute");
  const mj_node* M = find_mesh(c, a->value);
  if (!M) return mj_fail(c, w, a, "no mesh asset named '%s'", a->value);
  csim_status st = mj_check_attrs(c, M, "name class file scale smoothnormal vertex normal "
                                  "texcoord face refpos refquat");
  const char* file = xml_attr_get(M->x, "file");
  if (!st && !file) return mj_fail(c, M, NULL, "<mesh> without a 'file' (inline meshes are not supported)");
  int mcls = 0;
  G->scale[0] = G->scale[1] = G->scale[2] = 1;
  if (!st) st = mj_class_of(c, M, 0, &mcls);
  if (!st) st = mj_dnums(c, M, "mesh", mcls, "scale", 3, 3, G->scale, NULL);
  if (st) return st;
  char* dir = c->meshdir ? mj_join(c->maindir, c->meshdir) : mj_dup(c->maindir);
  G->uri = mj_dup(file);
  G->path = dir ? mj_join(dir, file) : NULL;
  free(dir);
  if (!G->uri || !G->path) return mj_oom(c);
  char msg[256];
  int stl = mesh_format_supported(file);
  csim_error ferr;
  if (c->opt && c->opt->files) {
    free(G->path);
    G->path = NULL;   // a memory image has no mesh files
  } else if (err_check_input_file(G->path, "mesh", &ferr) != CSIM_OK) {
    free(G->path);
    G->path = NULL;
  }
  if (!stl) {
    snprintf(msg, sizeof(msg), "mesh '%s' is neither STL nor OBJ: csim reads STL and OBJ "
             "collision meshes only", file);
    return mesh_issue(c, URDF_ISSUE_MESH_FORMAT, link, n->x->line, msg);
  }
  if (!G->path) {
    snprintf(msg, sizeof(msg), "mesh '%s' not found", file);
    return mesh_issue(c, URDF_ISSUE_MESH_UNRESOLVED, link, n->x->line, msg);
  }
  return CSIM_OK;
}

// size checks per type (a zero size is an error, as in MuJoCo)
static csim_status geom_size_ok(mj_ctx* c, const mj_node* n, urdf_geom_type t, const double* s,
                                int fromto) {
  int ok = 1;
  for (int i = 0; i < 3; i++) ok = ok && s[i] >= 0;
  if (t == URDF_GEOM_SPHERE) ok = ok && s[0] > 0;
  if (t == URDF_GEOM_CAPSULE || t == URDF_GEOM_CYLINDER) ok = ok && s[0] > 0 && (fromto || s[1] > 0);
  if (t == URDF_GEOM_BOX || t == URDF_GEOM_ELLIPSOID)
    ok = ok && s[0] > 0 && s[1] > 0 && (fromto || s[2] > 0);
  if (ok) return CSIM_OK;
  return mj_fail(c, n, xml_attr_find(n->x, "size"), "geom '%s' of type %s has a zero or "
                 "negative size [%g %g %g]", xml_attr_get(n->x, "name") ? xml_attr_get(n->x, "name") : "",
                 urdf_geom_type_names[t], s[0], s[1], s[2]);
}

// fromto: the segment's midpoint, +z along it, its half length as the size along z
static csim_status geom_fromto(mj_ctx* c, const mj_node* n, const mj_node* w,
                               const xml_attr* a, urdf_geom* G, double hs[3], double pos[3],
                               double q[4]) {
  double v[6], d[3];
  csim_status st = mj_nums(c, w, a, 6, 6, v, NULL);
  if (st) return st;
  if (G->type != URDF_GEOM_CAPSULE && G->type != URDF_GEOM_CYLINDER &&
      G->type != URDF_GEOM_BOX && G->type != URDF_GEOM_ELLIPSOID)
    return mj_fail(c, n, a, "fromto on a %s geom (expected capsule, cylinder, box or ellipsoid)",
                   urdf_geom_type_names[G->type]);
  for (int i = 0; i < 3; i++) pos[i] = 0.5 * (v[i] + v[3 + i]), d[i] = v[3 + i] - v[i];
  double len = sp_normalize3(d);
  if (len < 1e-10) return mj_fail(c, n, a, "fromto of zero length ('%s')", a->value);
  z2quat(q, d);
  hs[G->type == URDF_GEOM_CAPSULE || G->type == URDF_GEOM_CYLINDER ? 1 : 2] = len / 2;
  return CSIM_OK;
}

// contact parameters: recorded; what csim cannot use yet is listed as unsupported
static csim_status geom_contact(mj_ctx* c, const mj_node* n, int cls, urdf_geom* G,
                                const char* gname) {
  double ct = 1, ca = 1, cd = 3;
  G->friction[0] = 1, G->friction[1] = 0.005, G->friction[2] = 0.0001;
  G->solref[0] = 0.02, G->solref[1] = 1;
  double si[5] = {0.9, 0.95, 0.001, 0.5, 2};
  memcpy(G->solimp, si, sizeof(si));
  csim_status st = mj_dnums(c, n, "geom", cls, "contype", 1, 1, &ct, NULL);
  if (!st) st = mj_dnums(c, n, "geom", cls, "conaffinity", 1, 1, &ca, NULL);
  if (!st) st = mj_dnums(c, n, "geom", cls, "condim", 1, 1, &cd, NULL);
  if (!st) st = mj_dnums(c, n, "geom", cls, "friction", 1, 3, G->friction, NULL);
  if (st) return st;
  if (ct != floor(ct) || ca != floor(ca) || ct < 0 || ca < 0 || ct > 2147483647 || ca > 2147483647)
    return mj_fail(c, n, NULL, "geom '%s': contype/conaffinity must be non-negative integers", gname);
  if (cd != 1 && cd != 3 && cd != 4 && cd != 6)
    return mj_fail(c, n, NULL, "geom '%s': condim %g (expected 1, 3, 4 or 6)", gname, cd);
  G->contype = (int)ct, G->conaffinity = (int)ca, G->condim = (int)cd;
  G->nocollide = G->contype == 0 && G->conaffinity == 0;
  // condim 4 and 6 (torsional, rolling friction: friction[1], friction[2]) are simulated by the
  // solvers that take the elliptic cone; io/compile.c refuses the others naming the geom
  if (G->condim > 3 && !(G->friction[1] >= 0 && G->friction[2] >= 0))
    return mj_fail(c, n, NULL, "geom '%s': friction %g %g %g (torsional and rolling coefficients "
                   "must be >= 0)", gname, G->friction[0], G->friction[1], G->friction[2]);
  static const char* const kSoft[] = {"solref", "solimp", "margin", "gap", "priority", "solmix", NULL};
  for (int k = 0; kSoft[k] && !st; k++) {
    const mj_node* w;
    int given = 0;
    double tmp[5] = {0};
    if (k == 0) memcpy(tmp, G->solref, sizeof(G->solref));  // values not given keep defaults
    if (k == 1) memcpy(tmp, G->solimp, sizeof(G->solimp));
    st = mj_dnums(c, n, "geom", cls, kSoft[k], 1, k == 0 ? 2 : 5, tmp, &given);
    if (!st && k == 0 && given) memcpy(G->solref, tmp, sizeof(G->solref));
    if (!st && k == 1 && given) memcpy(G->solimp, tmp, sizeof(G->solimp));
    if (!st && k == 2 && given) G->margin = tmp[0];
    if (!st && k == 3 && given) G->gap = tmp[0];
    // solref and solimp are ccp's MuJoCo softness per pair (material.h); a margin or gap (csim's
    // collision margin is the scenario's contact.margin), priority and solmix are not used yet
    if (!st && k >= 2 && given && !G->nocollide && mj_attr(c, n, "geom", cls, kSoft[k], &w))
      st = mj_unsupported(c, n, NULL, "geom '%s': per-geom %s", gname, kSoft[k]);
    if (!st && k == 0 && given && !(tmp[0] != 0 && isfinite(tmp[0]) && isfinite(tmp[1])))
      st = mj_fail(c, n, NULL, "geom '%s': solref '%g %g' (expected a non-zero time constant "
                   "or stiffness)", gname, tmp[0], tmp[1]);
    if (!st && k == 1 && given && !(tmp[0] >= 0 && tmp[0] <= 1 && tmp[1] >= 0 && tmp[1] <= 1 &&
                                     tmp[2] >= 0 && tmp[3] >= 0 && tmp[3] <= 1 && tmp[4] >= 1))
      st = mj_fail(c, n, NULL, "geom '%s': solimp '%g %g %g %g %g' (expected 0 <= dmin, dmax <= 1, "
                   "width >= 0, 0 <= midpoint <= 1, power >= 1)", gname, tmp[0], tmp[1], tmp[2],
                   tmp[3], tmp[4]);
  }
  return st;
}

// a mesh geom's share of its body's mass (mass < 0: density x volume), as MuJoCo 2.2.2 has it.
// MuJoCo re-frames a mesh geom at the mesh's centre of mass and principal axes and gives it the
// inertia of the box of equal principal moments per unit mass (mjCMesh boxsz): the geom's
// volume is that box's, 8 b0 b1 b2, not the mesh's (mug.obj: 0.3785 kg, not the mesh's 0.6283),
// and its moments per unit mass are the mesh's. The same distribution here: the mesh's full
// inertia about its centre of mass scaled to the geom's mass, at pos + R(q) com in the frame q.
static csim_status geom_mesh_mass(mj_ctx* c, const mj_node* n, const urdf_geom* G,
                                  double density, double mass, const double pos[3],
                                  const double q[4], mass_part* part, int* has) {
  if (!G->path)
    return mj_fail(c, n, NULL, "mesh geom '%s': its mass and inertia need the mesh file, which "
                   "csim cannot read (see the mesh note)", G->uri ? G->uri : "");
  double* tri = NULL;
  int ntri = 0;
  mesh_mass mm;
  csim_error e;
  csim_status st = mesh_read(G->path, &tri, &ntri, &e);
  if (!st) st = mesh_mass_props(tri, ntri, G->scale, &mm, &e);
  free(tri);
  if (st) return mj_fail(c, n, NULL, "mesh geom '%s': %s", G->uri, e.msg);
  const double* v = mm.inertia;
  double F[9] = {v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2]}, w[3], V[9], box = 8;
  sp_eigsym3(w, V, F);
  for (int i = 0; i < 3; i++) {
    double d = w[(i + 1) % 3] + w[(i + 2) % 3] - w[i];  // MuJoCo's triangle-inequality check
    if (w[0] <= 0 || d < 0)
      return mj_fail(c, n, NULL, "mesh geom '%s': its inertia's principal moments %g %g %g are "
                     "not those of a body (MuJoCo refuses it too)", G->uri, w[0], w[1], w[2]);
    box *= sqrt(6 * d / mm.volume) / 2;
  }
  if (mass < 0) mass = density * box;
  for (int i = 0; i < 9; i++) part->F[i] = mass / mm.volume * F[i];
  part->full = 1;
  part->m = mass;
  double d[3];
  sp_rotquat(d, q, mm.com);
  for (int i = 0; i < 3; i++) part->p[i] = pos[i] + d[i];
  memcpy(part->q, q, 4 * sizeof(double));
  *has = 1;
  return CSIM_OK;
}

// the geom's share of its body's mass (mass attribute, else density x volume); 0 when it has
// none (a plane, a group outside inertiagrouprange)
static csim_status geom_mass(mj_ctx* c, const mj_node* n, int cls, const urdf_geom* G,
                             const double s[3], const double pos[3], const double q[4],
                             mass_part* part, int* has) {
  double group = 0, density = 1000, mass = 0;
  int given = 0;
  *has = 0;
  csim_status st = mj_dnums(c, n, "geom", cls, "group", 1, 1, &group, NULL);
  if (!st) st = mj_dnums(c, n, "geom", cls, "density", 1, 1, &density, NULL);
  if (!st) st = mj_dnums(c, n, "geom", cls, "mass", 1, 1, &mass, &given);
  if (st || G->type == URDF_GEOM_PLANE || group < c->grouprange[0] || group > c->grouprange[1])
    return st;
  if (density < 0 || mass < 0)
    return mj_fail(c, n, NULL, "geom: negative mass or density");
  if (G->type == URDF_GEOM_MESH)
    return geom_mesh_mass(c, n, G, density, given ? mass : -1, pos, q, part, has);
  double vol = geom_volume(G->type, s);
  if (given) density = vol > 0 ? mass / vol : 0;
  mj_geom_inertia(G->type, s, density, &part->m, part->I);
  if (given) {
    part->m = mass;
    geom_moments(G->type, s, mass, part->I);
  }
  sp_copy3(part->p, pos);
  memcpy(part->q, q, 4 * sizeof(double));
  *has = 1;
  return CSIM_OK;
}

static const char* const kGeomAttrs =
    "name class type contype conaffinity condim group priority size material friction mass "
    "density solmix solref solimp margin gap fromto pos quat axisangle xyaxes zaxis euler hfield "
    "mesh fitscale rgba user fluidshape fluidcoef";

// one <geom> of link `link` (world: the world body's); its mass share into part (*has)
static csim_status read_geom(mj_ctx* c, const mj_node* n, int cc, int link, mass_part* part,
                             int* has) {
  int cls = cc;
  csim_status st = mj_check_attrs(c, n, kGeomAttrs);
  if (!st) st = mj_class_of(c, n, cc, &cls);
  if (st) return st;
  const char* nm = xml_attr_get(n->x, "name");
  char gname[300];
  snprintf(gname, sizeof(gname), "%s", nm ? nm : "(unnamed)");
  static const char* const kTypes[] = {"plane", "hfield", "sphere", "capsule", "ellipsoid",
                                       "cylinder", "box", "mesh", NULL};
  static const urdf_geom_type kMap[] = {URDF_GEOM_PLANE, URDF_GEOM_PLANE, URDF_GEOM_SPHERE,
                                        URDF_GEOM_CAPSULE, URDF_GEOM_ELLIPSOID,
                                        URDF_GEOM_CYLINDER, URDF_GEOM_BOX, URDF_GEOM_MESH};
  const mj_node* w;
  const xml_attr* a = mj_attr(c, n, "geom", cls, "type", &w);
  int t = 2;
  if (a && (st = mj_word(c, w, a, kTypes, &t))) return st;
  if (t == 1) return mj_fail(c, n, a, "geom '%s': height fields are not supported", gname);
  urdf_geom* G = new_geom(c, link);
  if (!G) return mj_oom(c);
  G->type = kMap[t];
  G->line = n->x->line, G->column = n->x->column;
  G->use_quat = 1;
  G->scale[0] = G->scale[1] = G->scale[2] = 1;
  if (nm && !(G->name = mj_dup(nm))) return mj_oom(c);
  if (G->type == URDF_GEOM_PLANE && link != 0)
    return mj_fail(c, n, NULL, "plane geom '%s' in a body (MuJoCo allows planes on the world "
                   "body only)", gname);
  double hs[3] = {0, 0, 0}, pos[3] = {0, 0, 0}, q[4];
  st = mj_dnums(c, n, "geom", cls, "size", 1, 3, hs, NULL);
  if (!st) st = mj_dnums(c, n, "geom", cls, "pos", 3, 3, pos, NULL);
  if (!st) st = mj_orientation(c, n, q);
  a = mj_attr(c, n, "geom", cls, "fromto", &w);
  if (!st && a) st = geom_fromto(c, n, w, a, G, hs, pos, q);
  if (!st && G->type != URDF_GEOM_MESH) st = geom_size_ok(c, n, G->type, hs, 0);
  if (!st && G->type == URDF_GEOM_MESH) st = geom_mesh(c, n, cls, link, G);
  if (!st) st = geom_contact(c, n, cls, G, gname);
  if (!st) st = geom_mass(c, n, cls, G, hs, pos, q, part, has);
  if (st) return st;
  sp_copy3(G->xyz, pos);
  memcpy(G->quat, q, sizeof(q));
  // URDF's conventions: box full extents, cylinder and capsule full lengths
  sp_copy3(G->size, hs);
  if (G->type == URDF_GEOM_BOX) sp_scale3(G->size, hs, 2);
  if (G->type == URDF_GEOM_CAPSULE || G->type == URDF_GEOM_CYLINDER) G->size[1] = 2 * hs[1];
  return CSIM_OK;
}

// <inertial>: mass, centre of mass and inertia (diaginertia in its frame, or fullinertia)
static csim_status read_inertial(mj_ctx* c, const mj_node* n, urdf_link* L) {
  csim_status st = mj_check_attrs(c, n, "pos quat axisangle xyaxes zaxis euler mass diaginertia fullinertia");
  double q[4], d[3] = {0, 0, 0}, f[6] = {0}, pos[3] = {0, 0, 0};
  int hd = 0, hf = 0;
  const xml_attr* pa = xml_attr_find(n->x, "pos");
  const xml_attr* ma = xml_attr_find(n->x, "mass");
  if (!st && (!pa || !ma)) return mj_fail(c, n, NULL, "<inertial> needs 'pos' and 'mass'");
  if (!st) st = mj_nums(c, n, pa, 3, 3, pos, NULL);
  if (!st) st = mj_nums(c, n, ma, 1, 1, &L->mass, NULL);
  if (!st) st = mj_orientation(c, n, q);
  if (!st) st = mj_dnums(c, n, "inertial", -1, "diaginertia", 3, 3, d, &hd);
  if (!st) st = mj_dnums(c, n, "inertial", -1, "fullinertia", 6, 6, f, &hf);
  if (st) return st;
  if (hd == hf) return mj_fail(c, n, NULL, "<inertial> needs one of 'diaginertia' and 'fullinertia'");
  if (L->mass < 0) return mj_fail(c, n, ma, "negative mass %g", L->mass);
  mass_part p = {L->mass, {pos[0], pos[1], pos[2]}, {q[0], q[1], q[2], q[3]}, {d[0], d[1], d[2]},
                 0, {0}};
  parts_to_link(&p, 1, L);
  if (hf) {
    // fullinertia is ixx iyy izz ixy ixz iyz in the body frame (no orientation with it)
    double six[6] = {f[0], f[3], f[4], f[1], f[5], f[2]};
    memcpy(L->inertia, six, sizeof(six));
  }
  return CSIM_OK;
}

//---------------------------------- bodies ---------------------------------------------------

static csim_status read_body(mj_ctx* c, const mj_node* b, int pl, int cc);

// the children of body link B (or of the world, B = 0): geoms and the mass they carry, the
// inertial, then the child bodies
static csim_status body_contents(mj_ctx* c, const mj_node* b, int B, int cc) {
  mass_part* parts = calloc((size_t)b->nkid + 1, sizeof(mass_part));
  if (!parts) return mj_oom(c);
  int np = 0, has = 0;
  const mj_node* inertial = NULL;
  csim_status st = CSIM_OK;
  for (int i = 0; i < b->nkid && !st; i++) {
    const mj_node* e = &b->kids[i];
    const char* nm = e->x->name;
    if (!strcmp(nm, "geom")) {
      st = read_geom(c, e, cc, B, &parts[np], &has);
      np += has;
    } else if (!strcmp(nm, "inertial") && B != 0) {
      if (inertial) st = mj_fail(c, e, NULL, "a second <inertial> in one body");
      inertial = e;
    } else if (!strcmp(nm, "body") || !strcmp(nm, "joint") || !strcmp(nm, "freejoint")) {
      if (B == 0 && strcmp(nm, "body"))
        st = mj_fail(c, e, NULL, "<%s> in <worldbody> (the world cannot move)", nm);
    } else if (!mj_skip_or_refuse(c, e, &st)) {
      st = mj_fail(c, e, NULL, "unknown element <%s> in <%s>", nm, b->x->name);
    }
  }
  urdf_link* L = &c->r->links[B];
  if (!st && B != 0 && inertial && c->inertiafromgeom != 1) st = read_inertial(c, inertial, L);
  else if (!st && B != 0 && (c->inertiafromgeom == 1 || (c->inertiafromgeom == 2 && !inertial)))
    parts_to_link(parts, np, L);
  free(parts);
  for (int i = 0; i < b->nkid && !st; i++)
    if (!strcmp(b->kids[i].x->name, "body")) st = read_body(c, &b->kids[i], B, cc);
  return st;
}

// one <body>: its link, its joint chain from parent link pl, its contents
static csim_status read_body(mj_ctx* c, const mj_node* b, int pl, int cc) {
  csim_status st = mj_check_attrs(c, b, "name childclass pos quat axisangle xyaxes zaxis euler mocap user");
  const xml_attr* a = xml_attr_find(b->x, "childclass");
  if (!st && a && strcmp(a->value, "")) {
    int k = -1;
    for (int i = 0; i < c->ncls; i++)
      if (!strcmp(c->cls[i].name, a->value)) k = i;
    if (k < 0) st = mj_fail(c, b, a, "childclass '%s' is not defined", a->value);
    cc = k;
  }
  double P[3] = {0, 0, 0}, Q[4];
  a = xml_attr_find(b->x, "pos");
  if (!st && a) st = mj_nums(c, b, a, 3, 3, P, NULL);
  if (!st) st = mj_orientation(c, b, Q);
  if (st) return st;
  int mocap = 0;
  a = xml_attr_find(b->x, "mocap");
  if (a && (st = mj_bool(c, b, a, &mocap))) return st;
  const char* nm = xml_attr_get(b->x, "name");
  char gen[32];
  snprintf(gen, sizeof(gen), "body%d", ++c->nbody);
  int B = new_link(c, nm && nm[0] ? nm : gen, b);
  if (B < 0) return mj_oom(c);
  if (mocap) st = mj_unsupported(c, b, NULL, "mocap body '%s'", c->r->links[B].name);
  // joints, in order
  int nj = 0;
  mj_joint* J = calloc((size_t)b->nkid + 1, sizeof(mj_joint));
  if (!J) return mj_oom(c);
  for (int i = 0; i < b->nkid && !st; i++) {
    const mj_node* e = &b->kids[i];
    if (strcmp(e->x->name, "joint") && strcmp(e->x->name, "freejoint")) continue;
    const char* jn = xml_attr_get(e->x, "name");
    char jname[300];
    snprintf(jname, sizeof(jname), "%s", jn ? jn : "(unnamed)");
    st = read_joint(c, e, cc, &J[nj++], jname);
  }
  if (!st) st = make_chain(c, b, pl, B, P, Q, J, nj);
  free(J);
  return st ? st : body_contents(c, b, B, cc);
}

csim_status mj_read_worldbody(mj_ctx* c, const mj_node* wb) {
  csim_status st = mj_check_attrs(c, wb, "");
  if (st) return st;
  if (c->r->nlink == 0) {
    if (new_link(c, "world", wb) != 0) return mj_oom(c);
    c->r->world_root = 1;
    c->r->root = 0;
  }
  return body_contents(c, wb, 0, 0);
}

//---------------------------------- contact, actuators, checks -------------------------------

// the link and geom index of the geom named `name`; 0 when there is none
static int find_geom(const urdf_robot* r, const char* name, int* link, int* geom) {
  for (int l = 0; l < r->nlink; l++)
    for (int g = 0; g < r->links[l].ngeom; g++)
      if (r->links[l].geoms[g].name && !strcmp(r->links[l].geoms[g].name, name)) {
        *link = l, *geom = g;
        return 1;
      }
  return 0;
}

// <exclude body1 body2>: a link pair
static csim_status read_exclude(mj_ctx* c, const mj_node* k) {
  csim_status st = mj_check_attrs(c, k, "name body1 body2");
  if (st) return st;
  int l[2];
  for (int s = 0; s < 2; s++) {
    const xml_attr* a = xml_attr_find(k->x, s ? "body2" : "body1");
    if (!a) return mj_fail(c, k, NULL, "<exclude> needs 'body1' and 'body2'");
    l[s] = urdf_find_link(c->r, a->value);
    if (l[s] < 0) return mj_fail(c, k, a, "<exclude>: no body named '%s'", a->value);
  }
  int* ex = realloc(c->r->exclude, (size_t)(c->r->nexclude + 1) * 2 * sizeof(int));
  if (!ex) return mj_oom(c);
  c->r->exclude = ex;
  ex[2 * c->r->nexclude] = l[0];
  ex[2 * c->r->nexclude + 1] = l[1];
  c->r->nexclude++;
  return CSIM_OK;
}

// a <pair>'s contact parameters through its class (MuJoCo 2.2.2's defaults: condim 3, friction
// 1 1 0.005 0.0001 0.0001, solref 0.02 1, solimp 0.9 0.95 0.001 0.5 2, margin and gap 0). csim's
// cones are isotropic: both sliding and both rolling coefficients must agree; a margin or gap is
// refused as the geoms' are (recorded as unsupported, condim 0: the model builder refuses it)
static csim_status pair_params(mj_ctx* c, const mj_node* k, int cls, urdf_pair* P) {
  double cd = 3, fr[5] = {1, 1, 0.005, 0.0001, 0.0001}, mg[2] = {0, 0};
  P->solref[0] = 0.02, P->solref[1] = 1;
  static const double kImp[5] = {0.9, 0.95, 0.001, 0.5, 2};
  memcpy(P->solimp, kImp, sizeof(kImp));
  int given = 0;
  csim_status st = mj_dnums(c, k, "pair", cls, "condim", 1, 1, &cd, NULL);
  if (!st) st = mj_dnums(c, k, "pair", cls, "friction", 1, 5, fr, NULL);
  if (!st) st = mj_dnums(c, k, "pair", cls, "solref", 2, 2, P->solref, NULL);
  if (!st) st = mj_dnums(c, k, "pair", cls, "solimp", 1, 5, P->solimp, NULL);
  for (int m = 0; m < 2 && !st; m++)
    st = mj_dnums(c, k, "pair", cls, m ? "gap" : "margin", 1, 1, &mg[m], &given);
  if (st) return st;
  if (!(cd == 1 || cd == 3 || cd == 4 || cd == 6))
    return mj_fail(c, k, NULL, "<pair>: condim %g (expected 1, 3, 4 or 6)", cd);
  for (int m = 0; m < 5; m++)
    if (!(fr[m] >= 0) || !isfinite(fr[m]))
      return mj_fail(c, k, NULL, "<pair>: friction %g (expected finite values >= 0)", fr[m]);
  if (!(P->solref[0] != 0 && isfinite(P->solref[0]) && isfinite(P->solref[1])))
    return mj_fail(c, k, NULL, "<pair>: solref '%g %g' (expected a non-zero time constant or "
                   "stiffness)", P->solref[0], P->solref[1]);
  P->condim = (int)cd;
  P->friction[0] = fr[0], P->friction[1] = fr[2], P->friction[2] = fr[3];
  if (fr[0] != fr[1] || fr[3] != fr[4] || mg[0] != 0 || mg[1] != 0) P->condim = 0;  // refused
  if (fr[0] != fr[1] || fr[3] != fr[4])
    return mj_unsupported(c, k, NULL, "<pair>: anisotropic friction %g %g %g %g %g (csim's "
                          "cones take one sliding and one rolling coefficient)", fr[0], fr[1],
                          fr[2], fr[3], fr[4]);
  if (mg[0] != 0 || mg[1] != 0)
    return mj_unsupported(c, k, NULL, "<pair>: margin %g, gap %g", mg[0], mg[1]);
  return CSIM_OK;
}

// <pair geom1 geom2 ...>: an explicit geom pair, collided whatever the geoms' contype,
// conaffinity, parent filter and <exclude> say, with its own condim, friction, solref and solimp
// (MuJoCo's predefined pair; a dynamic pair of the same two geoms is not collided again)
static csim_status read_pair(mj_ctx* c, const mj_node* k) {
  csim_status st = mj_check_attrs(c, k, "name class geom1 geom2 condim friction solref solimp "
                                  "margin gap");
  int cls = 0;
  if (!st) st = mj_class_of(c, k, 0, &cls);
  if (st) return st;
  urdf_pair P;
  memset(&P, 0, sizeof(P));
  P.line = k->x->line, P.column = k->x->column;
  for (int s = 0; s < 2; s++) {
    const xml_attr* a = xml_attr_find(k->x, s ? "geom2" : "geom1");
    if (!a) return mj_fail(c, k, NULL, "<pair> needs 'geom1' and 'geom2'");
    if (!find_geom(c->r, a->value, &P.link[s], &P.geom[s]))
      return mj_fail(c, k, a, "<pair>: no geom named '%s'", a->value);
  }
  if (P.link[0] == P.link[1] && P.geom[0] == P.geom[1])
    return mj_fail(c, k, NULL, "<pair>: geom1 and geom2 are the same geom");
  if ((st = pair_params(c, k, cls, &P))) return st;
  if (P.condim == 0) return CSIM_OK;  // recorded as unsupported: the model builder refuses it
  urdf_pair* ps = realloc(c->r->pairs, (size_t)(c->r->npair + 1) * sizeof(urdf_pair));
  if (!ps) return mj_oom(c);
  c->r->pairs = ps;
  ps[c->r->npair++] = P;
  for (int s = 0; s < 2; s++) c->r->links[P.link[s]].geoms[P.geom[s]].paired = 1;
  return CSIM_OK;
}

// <contact>: <exclude body1 body2> recorded as link pairs, <pair> as explicit geom pairs
csim_status mj_read_contact(mj_ctx* c, const mj_node* e) {
  csim_status st = mj_check_attrs(c, e, "");
  for (int i = 0; i < e->nkid && !st; i++) {
    const mj_node* k = &e->kids[i];
    if (!strcmp(k->x->name, "exclude"))
      st = read_exclude(c, k);
    else if (!strcmp(k->x->name, "pair"))
      st = read_pair(c, k);
    else
      return mj_fail(c, k, NULL, "<%s> in <contact> is not supported (expected <exclude> or "
                     "<pair>)", k->x->name);
  }
  return st;
}

// a <motor> on a hinge or slide joint: the scenario's actions drive that joint with torques
// (N m or N); the motor's torque range gear x ctrlrange (ctrllimited) becomes the joint's effort
// limit, which clamps them (limits.effort). A motor with no action gives no torque
static csim_status read_motor(mj_ctx* c, const mj_node* k) {
  csim_status st = mj_check_attrs(c, k, "name class group joint gear ctrlrange ctrllimited "
                                  "forcerange forcelimited user");
  int cls = 0, lim = -1, has_range = 0;
  double gear[6] = {1, 0, 0, 0, 0, 0}, range[2] = {0, 0};
  if (!st) st = mj_class_of(c, k, 0, &cls);
  if (!st) st = mj_dnums(c, k, "motor", cls, "gear", 1, 6, gear, NULL);
  if (!st) st = mj_dnums(c, k, "motor", cls, "ctrlrange", 2, 2, range, &has_range);
  static const char* const kLim[] = {"false", "true", "auto", NULL};
  const mj_node* w;
  const xml_attr* a = mj_attr(c, k, "motor", cls, "ctrllimited", &w);
  if (!st && a) st = mj_word(c, w, a, kLim, &lim);
  if (st) return st;
  const char* jn = xml_attr_get(k->x, "joint");
  const char* nm = xml_attr_get(k->x, "name");
  if (!jn) return mj_fail(c, k, NULL, "<motor> '%s' without a 'joint' (csim's motors drive "
                          "joints)", nm ? nm : "");
  int j = urdf_find_joint(c->r, jn);
  if (j < 0) return mj_fail(c, k, NULL, "<motor>: no joint named '%s'", jn);
  urdf_joint* J = &c->r->joints[j];
  int limited = lim == 1 || (lim != 0 && c->autolimits && has_range);
  if (limited && !(range[0] < range[1]))
    return mj_fail(c, k, NULL, "<motor> '%s': ctrlrange [%g, %g] (expected lower < upper)",
                   nm ? nm : "", range[0], range[1]);
  if (J->type != URDF_JOINT_REVOLUTE && J->type != URDF_JOINT_PRISMATIC)
    return mj_unsupported(c, k, NULL, "<motor> on joint '%s', which is not a hinge or slide", jn);
  if (J->has_limit)
    return mj_unsupported(c, k, NULL, "a second motor on joint '%s'", jn);
  if (gear[1] || gear[2] || gear[3] || gear[4] || gear[5] || gear[0] == 0 ||
      (limited && range[0] != -range[1]))
    return mj_unsupported(c, k, NULL, "<motor> '%s': gear '%g ...' or ctrlrange [%g, %g] (csim "
                          "takes a scalar non-zero gear and a symmetric ctrlrange: the torque "
                          "bound of the joint's actions)", nm ? nm : "", gear[0], range[0],
                          range[1]);
  a = mj_attr(c, k, "motor", cls, "forcelimited", &w);
  if (a && strcmp(a->value, "false"))
    return mj_unsupported(c, k, NULL, "<motor> '%s': forcelimited", nm ? nm : "");
  J->has_limit = 1;
  J->effort = limited ? fabs(gear[0]) * range[1] : 0;  // 0: no bound
  return CSIM_OK;
}

// <actuator>: motors (read_motor); every other actuator is recorded as not supported yet
csim_status mj_read_actuator(mj_ctx* c, const mj_node* e) {
  static const char* const kAct[] = {"general", "motor", "position", "velocity", "cylinder",
                                     "muscle", "adhesion", "intvelocity", "damper", NULL};
  csim_status st = mj_check_attrs(c, e, "");
  for (int i = 0; i < e->nkid && !st; i++) {
    const mj_node* k = &e->kids[i];
    if (!mj_in_list(kAct, k->x->name))
      return mj_fail(c, k, NULL, "unknown actuator <%s>", k->x->name);
    const char* nm = xml_attr_get(k->x, "name");
    const char* jn = xml_attr_get(k->x, "joint");
    c->r->nactuator++;
    if (!strcmp(k->x->name, "motor")) {
      st = read_motor(c, k);
      continue;
    }
    st = mj_unsupported(c, k, NULL, "actuator <%s> '%s' on joint '%s' (csim drives joints "
                        "through the scenario's actions)", k->x->name, nm ? nm : "",
                        jn ? jn : "");
  }
  return st;
}

static int cmp_str(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

// names used twice (bodies, joints) are errors, as in MuJoCo
static csim_status check_names(mj_ctx* c) {
  const urdf_robot* r = c->r;
  for (int pass = 0; pass < 2; pass++) {
    int n = pass ? r->njoint : r->nlink;
    const char** nm = malloc(sizeof(char*) * (size_t)(n + 1));
    if (!nm) return mj_oom(c);
    for (int i = 0; i < n; i++) nm[i] = pass ? r->joints[i].name : r->links[i].name;
    qsort(nm, (size_t)n, sizeof(char*), cmp_str);
    for (int i = 1; i < n; i++)
      if (!strcmp(nm[i], nm[i - 1])) {
        csim_status st = err_set(c->err, CSIM_ERR_INPUT, c->mainfile, 0, 0,
                                 pass ? "joint" : "body", "%s name '%s' is used twice",
                                 pass ? "joint" : "body", nm[i]);
        free(nm);
        return st;
      }
    free(nm);
  }
  return CSIM_OK;
}

csim_status mj_finish(mj_ctx* c) {
  urdf_robot* r = c->r;
  if (r->nlink == 0) {
    mj_node none = {NULL, c->mainfile, NULL, 0};
    xml_node x;
    memset(&x, 0, sizeof(x));
    x.name = "worldbody";
    none.x = &x;
    if (new_link(c, "world", &none) != 0) return mj_oom(c);
    r->world_root = 1;
    r->root = 0;
  }
  r->link_parent_joint = malloc(sizeof(int) * (size_t)r->nlink);
  if (!r->link_parent_joint) return mj_oom(c);
  for (int l = 0; l < r->nlink; l++) r->link_parent_joint[l] = -1;
  for (int j = 0; j < r->njoint; j++) r->link_parent_joint[r->joints[j].child] = j;
  return check_names(c);
}
