// test_mujoco_dynamics.c — csim's rigid-body dynamics checked against MuJoCo 2.2.2.
//
// For each shared robot URDF that both loaders accept, the same random states are given to csim
// (urdf_load -> model_create -> kin_forward, kin_velocity, dyn_crba, dyn_bias) and to MuJoCo
// (mj_loadXML of the same URDF, lightly edited -> mj_forward), and the joint-space mass matrix M
// and bias forces b = C(q,v) v + g(q) are compared after mapping the coordinates.
//
// URDF edits for MuJoCo (text only, through an in-memory VFS): comments, <collision>, <visual>
// and <limit> elements are removed (none of them enters M or b; wsg50 repeats <limit>, which
// MuJoCo refuses), and a <mujoco><compiler .../></mujoco> element is injected (fusestatic merges
// fixed-joint links into their parent as csim does). A free base gets a <link name="world"/> and a
// floating joint "root_free" to the URDF root link (MuJoCo otherwise welds the root to the world).
//
// Coordinates. MuJoCo's free joint: qpos = [x y z qw qx qy qz], qvel = [linear velocity of the
// body origin in WORLD axes; angular velocity in BODY axes]. csim (model.h): q = [x y z qx qy qz
// qw], v = [linear velocity of the body's COM in WORLD axes; angular velocity in body axes]. So
// v_csim = T v_mj with T = identity except the free linear rows, v_com = v_o + R (w_b x c) =
// v_o - R [c]x w_b (R: base rotation, world from body; c: com in the body frame), the dofs being
// matched by joint name. Power is invariant, so tau_mj = T' tau_csim, and from
//   tau_csim = M_c a_c + b_c,  a_c = d/dt(T v_mj) = T a_mj + dT/dt v_mj
// follows  M_mj = T' M_c T  and  b_mj = T' (b_c + M_c dT/dt v_mj),  with
// dT/dt v_mj = [R (w_b x (w_b x c)); 0] on the free linear rows (dR/dt = R [w_b]x).

// Inertia fixes. MuJoCo refuses links whose principal moments break the triangle inequality
// (unless balanceinertia, which averages the moments) and keeps point masses as they are; csim
// repairs both differently (model.h). For robots where csim reports such an issue, the inertia of
// each affected MuJoCo body is overwritten by csim's (mass, com, inertia) of the same body, so the
// comparison there covers the tree algorithms only; every other body keeps MuJoCo's own inertia,
// built by MuJoCo from the URDF independently of csim. The count is printed per robot.
//
// Two comparisons per state: (1) against MuJoCo's own inertias, relative tolerance 1e-6: MuJoCo
// 2.2.2 diagonalizes each full URDF inertia with mju_eig3, which stops early (panda_link1: 4.6e-7
// absolute error in iyz), so M agrees only to ~3e-8 there; (2) against a copy of the MuJoCo model
// whose every body inertia is csim's, diagonalized to full precision here (jacobi_eig3): this
// isolates the tree algorithms (CRBA, RNEA, kinematics) and must agree to 1e-12.
#include <check.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "io/model_build.h"
#include "io/urdf.h"
#include "support.h"

#define ROBOT_DIR "../shared/data/robots/"
#define NSTATE 20        // random states per robot
#define REL_TOL 1e-6     // max |M_csim - M_mj| <= REL_TOL * max |M_mj|, same for b
#define POSE_TOL 1e-9    // body world poses, m and rotation-matrix entries
// body inertias, relative to the body's largest entry: MuJoCo 2.2.2 stores principal moments and
// a quaternion from mju_eig3, whose Jacobi sweep stops early: panda_link1 comes back with iyz off
// by 4.6e-7 (6.5e-7 of its largest moment), which is also why panda's M differs by ~3e-8
#define INERTIA_TOL 1e-5
// csim against MuJoCo given csim's body inertias diagonalized exactly (tree algorithms only)
#define EXACT_TOL 1e-12

// One robot of the comparison.
typedef struct {
  const char* file;       // under ROBOT_DIR
  model_base_type base;
} robot_case;

static const robot_case k_cases[] = {
    {"solo12/solo12.urdf", MODEL_BASE_FREE},
    {"ur5/ur5_robot.urdf", MODEL_BASE_FIXED},
    {"panda/panda.urdf", MODEL_BASE_FIXED},
    {"panda/panda.urdf", MODEL_BASE_FREE},
    {"double_pendulum/double_pendulum_simple.urdf", MODEL_BASE_FIXED},
    {"double_pendulum/double_pendulum_simple.urdf", MODEL_BASE_FREE},
    {"double_pendulum/double_pendulum.urdf", MODEL_BASE_FIXED},
    {"double_pendulum/double_pendulum_continuous.urdf", MODEL_BASE_FIXED},
    {"iiwa/iiwa14_spheres_collision.urdf", MODEL_BASE_FIXED},
    {"iiwa/iiwa14_primitive_collision.urdf", MODEL_BASE_FIXED},
    {"talos/talos_reduced.urdf", MODEL_BASE_FREE},
    {"talos/talos_reduced_box.urdf", MODEL_BASE_FREE},
    {"talos/talos_full_v2.urdf", MODEL_BASE_FREE},
    {"a1/a1.urdf", MODEL_BASE_FREE},
    {"go1/go1.urdf", MODEL_BASE_FREE},
    {"anymal_c/anymal.urdf", MODEL_BASE_FREE},
    {"hyq/hyq_no_sensors.urdf", MODEL_BASE_FREE},
    {"cassie/cassie_v2.urdf", MODEL_BASE_FREE},
    {"cassie/cassie_v4.urdf", MODEL_BASE_FREE},
    {"allegro/allegro_right_hand.urdf", MODEL_BASE_FIXED},
    {"allegro/allegro_left_hand.urdf", MODEL_BASE_FIXED},
    {"allegro/allegro_hand_description_right.urdf", MODEL_BASE_FIXED},
    {"wsg50/wsg_50_mesh_collision.urdf", MODEL_BASE_FIXED},
};
#define NCASE ((int)(sizeof k_cases / sizeof k_cases[0]))

//---------------------------------- small utilities ------------------------------------------

// splitmix64 generator: the state is owned by the caller
static uint64_t rng_next(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// uniform in [lo, hi]
static double rng_uniform(uint64_t* s, double lo, double hi) {
  return lo + (hi - lo) * ((double)(rng_next(s) >> 11) / 9007199254740992.0);
}

// read a whole file as a NUL-terminated string (NULL on failure)
static char* read_text(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  char* buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 4096 + 1 > cap) {
      cap = 2 * cap + 8192;
      char* nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
    }
    size_t k = fread(buf + n, 1, 4096, f);
    n += k;
    if (k < 4096) break;
  }
  fclose(f);
  buf[n] = 0;
  *len = n;
  return buf;
}

// growable byte buffer
typedef struct {
  char* p;
  size_t n, cap;
} sbuf;

// append n bytes
static void sb_put(sbuf* b, const char* s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = 2 * (b->n + n + 1) + 1024;
    char* np = realloc(b->p, cap);
    ck_assert_ptr_nonnull(np);
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

//---------------------------------- URDF edit for MuJoCo -------------------------------------

// copy the value of attribute `key` of the tag text [t, t+n) into out; 1 if found
static int tag_attr(const char* t, size_t n, const char* key, char* out, size_t outsz) {
  size_t kl = strlen(key);
  for (size_t i = 1; i + kl < n; i++) {
    if (!(t[i - 1] == ' ' || t[i - 1] == '\t' || t[i - 1] == '\n' || t[i - 1] == '\r')) continue;
    if (strncmp(t + i, key, kl) != 0) continue;
    size_t j = i + kl;
    while (j < n && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n' || t[j] == '\r')) j++;
    if (j >= n || t[j] != '=') continue;
    j++;
    while (j < n && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n' || t[j] == '\r')) j++;
    if (j >= n || (t[j] != '"' && t[j] != '\'')) continue;
    char qc = t[j++];
    size_t k = j;
    while (k < n && t[k] != qc) k++;
    if (k >= n || k - j + 1 > outsz) return 0;
    memcpy(out, t + j, k - j);
    out[k - j] = 0;
    return 1;
  }
  return 0;
}

// 1 if the element name [s, s+n) equals `name`
static int name_is(const char* s, size_t n, const char* name) {
  return strlen(name) == n && strncmp(s, name, n) == 0;
}

#define MAXLINKS 256
#define NAMESZ 128

// Edit URDF text for MuJoCo (see the file comment). free_base adds the world link and floating
// joint; fusestatic / balanceinertia set the compiler options. Returns the new text (caller
// frees) or NULL when the text cannot be scanned; root receives the URDF root link name.
static char* mj_urdf_text(const char* text, int free_base, int fusestatic, int balance,
                          char* root, size_t rootsz) {
  sbuf out = {0};
  static const char* const skip_names[] = {"collision", "visual", "limit"};
  char(*links)[NAMESZ] = calloc(2 * MAXLINKS, NAMESZ);
  char(*childs)[NAMESZ] = links + MAXLINKS;
  ck_assert_ptr_nonnull(links);
  int nlink = 0, nchild = 0, depth = 0, skipping = 0, skip_depth = 0, in_joint = 0;
  size_t inject_at = (size_t)-1;
  const char* p = text;
  // walk the text tag by tag, tracking the element depth
  while (*p) {
    if (*p != '<') {
      if (!skipping) sb_put(&out, p, 1);
      p++;
      continue;
    }
    // comments are dropped
    if (strncmp(p, "<!--", 4) == 0) {
      const char* e = strstr(p + 4, "-->");
      if (!e) goto fail;
      p = e + 3;
      continue;
    }
    // find the end of the tag, respecting quoted attribute values
    const char* e = p + 1;
    char quote = 0;
    while (*e && (quote || *e != '>')) {
      if (quote && *e == quote)
        quote = 0;
      else if (!quote && (*e == '"' || *e == '\''))
        quote = *e;
      e++;
    }
    if (!*e) goto fail;
    size_t tn = (size_t)(e - p) + 1;
    // declarations and processing instructions are copied
    if (p[1] == '?' || p[1] == '!') {
      if (!skipping) sb_put(&out, p, tn);
      p = e + 1;
      continue;
    }
    // closing tag
    if (p[1] == '/') {
      const char* ns = p + 2;
      size_t nn = strcspn(ns, " \t\r\n>");
      depth--;
      if (skipping) {
        if (depth == skip_depth) skipping = 0;
      } else {
        sb_put(&out, p, tn);
        if (depth == 1 && name_is(ns, nn, "joint")) in_joint = 0;
      }
      p = e + 1;
      continue;
    }
    // opening or empty-element tag
    const char* ns = p + 1;
    size_t nn = strcspn(ns, " \t\r\n/>");
    int selfclose = e[-1] == '/';
    if (!skipping) {
      int skip = 0;
      for (size_t k = 0; k < sizeof skip_names / sizeof skip_names[0]; k++)
        if (name_is(ns, nn, skip_names[k])) skip = 1;
      if (skip) {
        if (!selfclose) {
          skipping = 1;
          skip_depth = depth;
        }
      } else {
        sb_put(&out, p, tn);
        if (depth == 0 && name_is(ns, nn, "robot")) inject_at = out.n;
        if (depth == 1 && name_is(ns, nn, "link") && nlink < MAXLINKS &&
            tag_attr(p, tn, "name", links[nlink], NAMESZ))
          nlink++;
        if (depth == 1 && name_is(ns, nn, "joint") && !selfclose) in_joint = 1;
        if (depth == 2 && in_joint && name_is(ns, nn, "child") && nchild < MAXLINKS &&
            tag_attr(p, tn, "link", childs[nchild], NAMESZ))
          nchild++;
      }
    }
    if (!selfclose) depth++;
    p = e + 1;
  }
  if (inject_at == (size_t)-1 || depth != 0) goto fail;
  // the root link is the one link that is no joint's child
  int nroot = 0;
  for (int i = 0; i < nlink; i++) {
    int is_child = 0;
    for (int j = 0; j < nchild; j++)
      if (strcmp(links[i], childs[j]) == 0) is_child = 1;
    if (!is_child) {
      nroot++;
      snprintf(root, rootsz, "%s", links[i]);
    }
  }
  if (nroot != 1) goto fail;
  // injected MuJoCo compiler options and, for a free base, the floating joint
  char inj[1024];
  int ni = snprintf(inj, sizeof inj,
                    "<mujoco><compiler discardvisual=\"true\" balanceinertia=\"%s\" "
                    "fusestatic=\"%s\" strippath=\"false\"/></mujoco>",
                    balance ? "true" : "false", fusestatic ? "true" : "false");
  if (free_base)
    ni += snprintf(inj + ni, sizeof inj - (size_t)ni,
                   "<link name=\"world\"/><joint name=\"root_free\" type=\"floating\">"
                   "<parent link=\"world\"/><child link=\"%s\"/></joint>",
                   root);
  sbuf res = {0};
  sb_put(&res, out.p, inject_at);
  sb_put(&res, inj, (size_t)ni);
  sb_put(&res, out.p + inject_at, out.n - inject_at);
  free(out.p);
  free(links);
  return res.p;
fail:
  free(out.p);
  free(links);
  return NULL;
}

// compile URDF text with MuJoCo through a one-file VFS; NULL with err filled on failure
static mjModel* mj_load_text(const char* text, char* err, int errsz) {
  mjVFS* vfs = malloc(sizeof *vfs);
  ck_assert_ptr_nonnull(vfs);
  mj_defaultVFS(vfs);
  int len = (int)strlen(text);
  ck_assert_int_eq(mj_makeEmptyFileVFS(vfs, "robot.urdf", len), 0);
  int idx = mj_findFileVFS(vfs, "robot.urdf");
  ck_assert_int_ge(idx, 0);
  memcpy(vfs->filedata[idx], text, (size_t)len);
  mjModel* mm = mj_loadXML("robot.urdf", vfs, err, errsz);
  mj_deleteVFS(vfs);
  free(vfs);
  return mm;
}

// load the robot in MuJoCo: balanceinertia off first (clean inertias must pass as they are),
// on when MuJoCo refuses the inertias; *balanced tells which
static mjModel* mj_load_robot(const char* text, int free_base, int fusestatic, int* balanced,
                              char* root, size_t rootsz) {
  char err[1000] = "";
  for (int balance = 0; balance <= 1; balance++) {
    char* t = mj_urdf_text(text, free_base, fusestatic, balance, root, rootsz);
    ck_assert_msg(t != NULL, "URDF text could not be scanned");
    mjModel* mm = mj_load_text(t, err, (int)sizeof err);
    free(t);
    if (mm) {
      *balanced = balance;
      return mm;
    }
    if (!strstr(err, "balanceinertia")) break;
  }
  ck_abort_msg("MuJoCo refused the URDF: %s", err);
  return NULL;
}

//---------------------------------- csim side ------------------------------------------------

// load the URDF and build a one-robot csim model with gravity 0 0 -9.81
static void csim_load(const char* path, model_base_type base, urdf_robot** ur, sim_model** cm,
                      sim_data** cd) {
  csim_error err;
  char msg[2048];
  urdf_options opt = urdf_default_options();
  const char* const paths[] = {ROBOT_DIR "meshes", NULL};
  opt.package_paths = paths;
  opt.use_env = 0;
  if (urdf_load(path, &opt, ur, &err) != CSIM_OK) {
    err_format(&err, msg, sizeof msg);
    ck_abort_msg("urdf_load %s: %s", path, msg);
  }
  model_world_spec world = {{0, 0, -9.81}, 0, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec = {*ur, NULL, base, {0, 0, 0}, {0, 0, 0, 1}, 0};
  if (model_create(&world, &spec, 1, cm, &err) != CSIM_OK) {
    err_format(&err, msg, sizeof msg);
    ck_abort_msg("model_create %s: %s", path, msg);
  }
  if (data_create(*cm, 0, cd, &err) != CSIM_OK) {
    err_format(&err, msg, sizeof msg);
    ck_abort_msg("data_create %s: %s", path, msg);
  }
}

//---------------------------------- model matching -------------------------------------------

// Symmetric 3x3 eigen-decomposition A = V diag(w) V' by cyclic Jacobi rotations (Golub & Van
// Loan, "Matrix Computations", Alg. 8.5.3), run to full double precision; V is a rotation.
static void jacobi_eig3(double w[3], double V[9], const double A_in[9]) {
  static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  double A[9];
  memcpy(A, A_in, sizeof A);
  for (int k = 0; k < 9; k++) V[k] = k % 4 == 0;
  // sweeps until the off-diagonal part is negligible against the diagonal
  for (int sweep = 0; sweep < 60; sweep++) {
    double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
    double diag = fabs(A[0]) + fabs(A[4]) + fabs(A[8]);
    if (off <= 1e-20 * diag || off == 0) break;
    for (int r = 0; r < 3; r++) {
      int p = pairs[r][0], q = pairs[r][1];
      double apq = A[3 * p + q];
      if (apq == 0) continue;
      // rotation J = [c s; -s c] in the (p, q) plane zeroing A[p][q]
      double theta = (A[3 * q + q] - A[3 * p + p]) / (2 * apq);
      double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
      double c = 1 / sqrt(t * t + 1), s = t * c;
      for (int k = 0; k < 3; k++) {  // A <- A J
        double akp = A[3 * k + p], akq = A[3 * k + q];
        A[3 * k + p] = c * akp - s * akq;
        A[3 * k + q] = s * akp + c * akq;
      }
      for (int k = 0; k < 3; k++) {  // A <- J' A
        double apk = A[3 * p + k], aqk = A[3 * q + k];
        A[3 * p + k] = c * apk - s * aqk;
        A[3 * q + k] = s * apk + c * aqk;
      }
      for (int k = 0; k < 3; k++) {  // V <- V J
        double vkp = V[3 * k + p], vkq = V[3 * k + q];
        V[3 * k + p] = c * vkp - s * vkq;
        V[3 * k + q] = s * vkp + c * vkq;
      }
    }
  }
  for (int k = 0; k < 3; k++) w[k] = A[4 * k];
  // make V a proper rotation (det +1)
  double det = V[0] * (V[4] * V[8] - V[5] * V[7]) - V[1] * (V[3] * V[8] - V[5] * V[6]) +
               V[2] * (V[3] * V[7] - V[4] * V[6]);
  if (det < 0)
    for (int k = 0; k < 3; k++) V[3 * k + 2] = -V[3 * k + 2];
}

// Overwrite the inertia of MuJoCo bodies with csim's body mass, com and inertia (diagonalized
// to full precision): all bodies when `all`, else those holding a link csim reported an inertia
// fix for (non-PD, triangle, point mass). Returns the number of bodies overwritten.
static int override_inertias(mjModel* mm, const sim_model* cm, const urdf_robot* ur,
                             const int* bodymap, int all) {
  int* mark = calloc((size_t)cm->nbody, sizeof *mark);
  ck_assert_ptr_nonnull(mark);
  // bodies holding a fixed link (world-merged links do not move: skipped)
  for (int cb = 1; cb < cm->nbody; cb++) mark[cb] = all;
  for (int i = 0; i < ur->nissue; i++) {
    const urdf_issue* is = &ur->issues[i];
    if (is->link < 0) continue;
    if (is->kind != URDF_ISSUE_INERTIA_NOT_PD && is->kind != URDF_ISSUE_INERTIA_TRIANGLE &&
        is->kind != URDF_ISSUE_POINT_MASS)
      continue;
    int li = model_find_link(cm, ur->links[is->link].name);
    ck_assert_int_ge(li, 0);
    if (cm->link_body[li] > 0) mark[cm->link_body[li]] = 1;
  }
  // copy mass, com and principal inertia into the MuJoCo body
  int count = 0;
  for (int cb = 1; cb < cm->nbody; cb++) {
    if (!mark[cb]) continue;
    int mb = bodymap[cb];
    double eigval[3], V[9], quat[4];
    jacobi_eig3(eigval, V, cm->body_inertia + 9 * cb);
    mju_mat2Quat(quat, V);
    mm->body_mass[mb] = cm->body_mass[cb];
    mju_copy3(mm->body_ipos + 3 * mb, cm->body_com + 3 * cb);
    mju_copy4(mm->body_iquat + 4 * mb, quat);
    mju_copy3(mm->body_inertia + 3 * mb, eigval);
    mm->body_sameframe[mb] = 0;
    mm->body_simple[mb] = 0;
    count++;
  }
  // derived constants: no simple-dof shortcuts, subtree masses recomputed
  if (count) {
    for (int i = 0; i < mm->nv; i++) mm->dof_simplenum[i] = 0;
    for (int b = 0; b < mm->nbody; b++) mm->body_subtreemass[b] = mm->body_mass[b];
    for (int b = mm->nbody - 1; b > 0; b--)
      mm->body_subtreemass[mm->body_parentid[b]] += mm->body_subtreemass[b];
  }
  free(mark);
  return count;
}

// largest difference of csim's and MuJoCo's body inertias (mass, com, rotational inertia about
// the com in body axes), relative to each body's mass / largest entry; *worst gets the body
static double inertia_diff(const mjModel* mm, const sim_model* cm, const int* bodymap,
                           int* worst) {
  double res = 0;
  *worst = 1;
  for (int cb = 1; cb < cm->nbody; cb++) {
    int mb = bodymap[cb];
    // MuJoCo's inertia R diag(I) R' from the principal frame
    double Rm[9], Im[9], tmp9[9];
    mju_quat2Mat(Rm, mm->body_iquat + 4 * mb);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) tmp9[3 * r + c] = Rm[3 * r + c] * mm->body_inertia[3 * mb + c];
    mju_mulMatMatT(Im, tmp9, Rm, 3, 3, 3);
    const double* Ic = cm->body_inertia + 9 * cb;
    double scale = 0, e = 0;
    for (int k = 0; k < 9; k++) {
      scale = fmax(scale, fabs(Im[k]));
      e = fmax(e, fabs(Ic[k] - Im[k]));
    }
    e /= fmax(scale, 1e-300);
    e = fmax(e, fabs(cm->body_mass[cb] - mm->body_mass[mb]) / fmax(mm->body_mass[mb], 1e-300));
    if (mm->body_mass[mb] > 0)
      for (int k = 0; k < 3; k++)
        e = fmax(e, fabs(cm->body_com[3 * cb + k] - mm->body_ipos[3 * mb + k]));
    if (e > res) {
      res = e;
      *worst = cb;
    }
  }
  return res;
}

// name of csim body b's frame link ("-" when there is none)
static const char* body_name(const sim_model* cm, int b) {
  return b > 0 && b < cm->nbody && cm->body_link[b] >= 0 ? cm->link_name[cm->body_link[b]] : "-";
}

// Compare MuJoCo's M and qfrc_bias (after mj_forward) with the predictions Mp, bp: asserts the
// relative error is at most tol and returns the larger of the two relative errors.
static double check_against(const mjModel* mm, const mjData* md, const double* Mp,
                            const double* bp, double* Mmj, double tol, const char* what,
                            const char* file, const char* label, int state, double* worst_M,
                            double* worst_b) {
  const int nv = mm->nv;
  mj_fullM(mm, Mmj, md->qM);
  double dM = 0, sM = 0, db = 0, sb = 0;
  int wi = 0, wj = 0, wbi = 0;
  // worst entries and scales
  for (int i = 0; i < nv; i++) {
    for (int j = 0; j < nv; j++) {
      double e = fabs(Mp[(size_t)i * nv + j] - Mmj[(size_t)i * nv + j]);
      if (e > dM) {
        dM = e;
        wi = i;
        wj = j;
      }
      sM = fmax(sM, fabs(Mmj[(size_t)i * nv + j]));
    }
    if (fabs(bp[i] - md->qfrc_bias[i]) > db) {
      db = fabs(bp[i] - md->qfrc_bias[i]);
      wbi = i;
    }
    sb = fmax(sb, fabs(md->qfrc_bias[i]));
  }
  double eM = dM / fmax(sM, 1e-300), eb = db / fmax(sb, 1e-300);
  *worst_M = fmax(*worst_M, eM);
  *worst_b = fmax(*worst_b, eb);
  ck_assert_msg(eM <= tol,
                "%s (%s, %s) state %d: M[%d][%d] (dofs of %s / %s) csim %.12g MuJoCo %.12g "
                "(rel %.3g)",
                file, label, what, state, wi, wj, mj_id2name(mm, mjOBJ_JOINT, mm->dof_jntid[wi]),
                mj_id2name(mm, mjOBJ_JOINT, mm->dof_jntid[wj]), Mp[(size_t)wi * nv + wj],
                Mmj[(size_t)wi * nv + wj], eM);
  ck_assert_msg(eb <= tol,
                "%s (%s, %s) state %d: b[%d] (dof of %s) csim %.12g MuJoCo %.12g (rel %.3g)", file,
                label, what, state, wbi, mj_id2name(mm, mjOBJ_JOINT, mm->dof_jntid[wbi]),
                bp[wbi], md->qfrc_bias[wbi], eb);
  return fmax(eM, eb);
}

//---------------------------------- the comparison -------------------------------------------

// compare csim and MuJoCo on NSTATE random states of robot case _i
START_TEST(dynamics_match_mujoco) {
  const robot_case* rc = &k_cases[_i];
  char path[512];
  snprintf(path, sizeof path, ROBOT_DIR "%s", rc->file);
  const int free_base = rc->base == MODEL_BASE_FREE;
  const char* label = free_base ? "free" : "fixed";

  // csim
  urdf_robot* ur = NULL;
  sim_model* cm = NULL;
  sim_data* cd = NULL;
  csim_load(path, rc->base, &ur, &cm, &cd);

  // MuJoCo: the dynamics model (fusestatic) and a mass model (no fusing: keeps world-welded mass)
  size_t len = 0;
  char* text = read_text(path, &len);
  ck_assert_ptr_nonnull(text);
  char root[NAMESZ] = "";
  int balanced = 0, balanced2 = 0;
  mjModel* mm = mj_load_robot(text, free_base, 1, &balanced, root, sizeof root);
  mjModel* mm_all = mj_load_robot(text, free_base, 0, &balanced2, root, sizeof root);
  free(text);
  mm->opt.gravity[0] = 0;
  mm->opt.gravity[1] = 0;
  mm->opt.gravity[2] = -9.81;
  ck_assert_str_eq(ur->links[ur->root].name, root);

  // sizes
  const int nv = cm->nv;
  ck_assert_int_eq(cm->nq, mm->nq);
  ck_assert_int_eq(cm->nv, mm->nv);
  ck_assert_int_eq(cm->njnt, mm->njnt);
  ck_assert_int_eq(cm->nbody, mm->nbody);

  // bodies match by the name of their frame link, with the same tree
  int* bodymap = calloc((size_t)cm->nbody, sizeof *bodymap);
  ck_assert_ptr_nonnull(bodymap);
  for (int cb = 1; cb < cm->nbody; cb++) {
    const char* name = body_name(cm, cb);
    int mb = mj_name2id(mm, mjOBJ_BODY, name);
    ck_assert_msg(mb > 0, "%s: csim body %d (link %s) has no MuJoCo body", rc->file, cb, name);
    bodymap[cb] = mb;
    ck_assert_int_eq(mm->body_parentid[mb], bodymap[cm->body_parent[cb]]);
  }

  // joints match by name and type; dof permutation csim -> MuJoCo, MuJoCo joint per csim joint
  int* perm = malloc((size_t)(nv + cm->njnt) * sizeof *perm);
  ck_assert_ptr_nonnull(perm);
  int* jmap = perm + nv;
  int free_mj_dof = -1, free_mj_qadr = -1, free_c_jnt = -1;
  for (int cj = 0; cj < cm->njnt; cj++) {
    int type = cm->jnt_type[cj];
    int mj = type == MODEL_JOINT_FREE ? mj_name2id(mm, mjOBJ_JOINT, "root_free")
                                      : mj_name2id(mm, mjOBJ_JOINT, cm->jnt_name[cj]);
    ck_assert_msg(mj >= 0, "%s: csim joint %s missing in MuJoCo", rc->file, cm->jnt_name[cj]);
    ck_assert_int_eq(bodymap[cm->jnt_body[cj]], mm->jnt_bodyid[mj]);
    jmap[cj] = mj;
    int nd = 1;
    if (type == MODEL_JOINT_FREE) {
      ck_assert_int_eq(mm->jnt_type[mj], mjJNT_FREE);
      nd = 6;
      free_mj_dof = mm->jnt_dofadr[mj];
      free_mj_qadr = mm->jnt_qposadr[mj];
      free_c_jnt = cj;
    } else if (type == MODEL_JOINT_REVOLUTE) {
      ck_assert_int_eq(mm->jnt_type[mj], mjJNT_HINGE);
    } else {
      ck_assert_int_eq(mm->jnt_type[mj], mjJNT_SLIDE);
    }
    for (int k = 0; k < nd; k++) perm[cm->jnt_dofadr[cj] + k] = mm->jnt_dofadr[mj] + k;
  }
  ck_assert_int_eq(free_base, free_c_jnt >= 0);
  // every MuJoCo joint has a csim counterpart (counts equal and names matched above)
  for (int j = 0; j < mm->njnt; j++) {
    const char* name = mj_id2name(mm, mjOBJ_JOINT, j);
    int cj = strcmp(name, "root_free") == 0 ? free_c_jnt : model_find_joint(cm, name);
    ck_assert_msg(cj >= 0, "%s: MuJoCo joint %s missing in csim", rc->file, name);
  }

  // total mass: moving bodies against the fused model, whole robot against the unfused one
  double cmass_moving = 0;
  for (int cb = 1; cb < cm->nbody; cb++) cmass_moving += cm->body_mass[cb];
  double mj_moving = mj_getTotalmass(mm), mj_all = mj_getTotalmass(mm_all);
  double crobot = model_robot_mass(cm, 0);
  ck_assert_double_le(fabs(cmass_moving - mj_moving), 1e-12 * fmax(1, mj_moving));
  ck_assert_double_le(fabs(crobot - mj_all), 1e-12 * fmax(1, mj_all));

  // body inertias (MuJoCo's own, csim's where csim fixed them) agree
  int noverride = override_inertias(mm, cm, ur, bodymap, 0);
  int wib = 1;
  double worst_inertia = inertia_diff(mm, cm, bodymap, &wib);
  ck_assert_msg(worst_inertia <= INERTIA_TOL,
                "%s (%s): body %s: csim and MuJoCo inertia differ (rel %.3g)", rc->file, label,
                body_name(cm, wib), worst_inertia);

  // the exact-inertia model: every body's inertia is csim's, diagonalized to full precision
  mjModel* mx = mj_copyModel(NULL, mm);
  ck_assert_ptr_nonnull(mx);
  override_inertias(mx, cm, ur, bodymap, 1);
  mjData* md = mj_makeData(mm);
  mjData* mdx = mj_makeData(mx);
  ck_assert(md && mdx);

  // work arrays (MuJoCo dof order)
  const size_t nn = (size_t)nv * (size_t)nv;
  double* Mc = calloc(nn, sizeof *Mc);      // csim M mapped to MuJoCo order, original coords
  double* Md = calloc(nn, sizeof *Md);      // csim M dense, csim order
  double* Mmj = calloc(nn, sizeof *Mmj);    // MuJoCo M
  double* Mp = calloc(nn, sizeof *Mp);      // prediction T' Mc T
  double* Tm = calloc(nn, sizeof *Tm);      // T
  double* tmp = calloc(nn, sizeof *tmp);
  double* vec = calloc(5 * (size_t)nv, sizeof *vec);
  ck_assert(Mc && Md && Mmj && Mp && Tm && tmp && vec);
  double *bc = vec, *vc = vec + nv, *w = vec + 2 * nv, *bp = vec + 3 * nv, *r1 = vec + 4 * nv;

  uint64_t seed = 0x5eed0000ull + (uint64_t)_i;
  double worst_M = 0, worst_b = 0, worst_ke = 0, worst_pose = 0, exact_M = 0, exact_b = 0;
  for (int s = 0; s < NSTATE; s++) {
    // random state, written to both sides
    for (int cj = 0; cj < cm->njnt; cj++) {
      double* q = cd->q + cm->jnt_qadr[cj];
      double* qm = md->qpos + mm->jnt_qposadr[jmap[cj]];
      if (cm->jnt_type[cj] == MODEL_JOINT_FREE) {
        // position in [-1, 1]^3, orientation uniform by rejection in the unit 4-ball
        double qw[4], nrm = 0;
        for (int k = 0; k < 3; k++) q[k] = qm[k] = rng_uniform(&seed, -1, 1);
        do {
          nrm = 0;
          for (int k = 0; k < 4; k++) {
            qw[k] = rng_uniform(&seed, -1, 1);
            nrm += qw[k] * qw[k];
          }
        } while (nrm < 0.01 || nrm > 1);
        nrm = sqrt(nrm);
        for (int k = 0; k < 4; k++) qm[3 + k] = qw[k] / nrm;  // MuJoCo: w x y z
        for (int k = 0; k < 3; k++) q[3 + k] = qm[4 + k];     // csim: x y z w
        q[6] = qm[3];
      } else {
        // within the limits when given, else [-pi, pi] (revolute) or [-1, 1] m (prismatic)
        double lo = cm->jnt_type[cj] == MODEL_JOINT_REVOLUTE ? -3.141592653589793 : -1;
        double hi = -lo;
        const double* rg = cm->jnt_range + 2 * cj;
        if (cm->jnt_limited[cj] && isfinite(rg[0]) && isfinite(rg[1]) && rg[0] <= rg[1]) {
          lo = rg[0];
          hi = rg[1];
        }
        q[0] = qm[0] = rng_uniform(&seed, lo, hi);
      }
    }
    for (int i = 0; i < nv; i++) md->qvel[i] = rng_uniform(&seed, -1, 1);

    // MuJoCo, both models
    mju_copy(mdx->qpos, md->qpos, mm->nq);
    mju_copy(mdx->qvel, md->qvel, nv);
    mj_forward(mm, md);
    mj_forward(mx, mdx);

    // T (MuJoCo order): identity, -R [c]x in the free linear rows' angular columns
    memset(Tm, 0, nn * sizeof *Tm);
    for (int i = 0; i < nv; i++) Tm[(size_t)i * nv + i] = 1;
    double Rfree[9], cfree[3] = {0, 0, 0};
    if (free_mj_dof >= 0) {
      mju_quat2Mat(Rfree, md->qpos + free_mj_qadr + 3);
      const double* cb = cm->body_com + 3 * cm->jnt_body[free_c_jnt];
      double C[9] = {0, -cb[2], cb[1], cb[2], 0, -cb[0], -cb[1], cb[0], 0};
      memcpy(cfree, cb, sizeof(cfree));
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
          double acc = 0;
          for (int k = 0; k < 3; k++) acc += Rfree[3 * r + k] * C[3 * k + c];
          Tm[(size_t)(free_mj_dof + r) * nv + free_mj_dof + 3 + c] = -acc;
        }
    }
    // csim velocity = T v_mj, in csim order
    for (int i = 0; i < nv; i++) {
      double acc = 0;
      for (int k = 0; k < nv; k++) acc += Tm[(size_t)perm[i] * nv + k] * md->qvel[k];
      cd->v[i] = acc;
    }

    // csim
    kin_forward(cm, cd);
    kin_velocity(cm, cd);
    dyn_crba(cm, cd);
    dyn_bias(cm, cd);

    // body poses agree (diagnoses kinematics before dynamics)
    for (int cb = 1; cb < cm->nbody; cb++) {
      int mb = bodymap[cb];
      for (int k = 0; k < 3; k++)
        worst_pose = fmax(worst_pose, fabs(cd->xpos[3 * cb + k] - md->xpos[3 * mb + k]));
      for (int k = 0; k < 9; k++)
        worst_pose = fmax(worst_pose, fabs(cd->xmat[9 * cb + k] - md->xmat[9 * mb + k]));
    }
    ck_assert_msg(worst_pose <= POSE_TOL, "%s (%s) state %d: body poses differ by %.3g",
                  rc->file, label, s, worst_pose);

    // csim M: the tree entries (dyn_mass_dense), others zero; to MuJoCo order
    dyn_mass_dense(cm, cd, Md);
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) Mc[(size_t)perm[i] * nv + perm[j]] = Md[(size_t)i * nv + j];
    for (int i = 0; i < nv; i++) {
      bc[perm[i]] = cd->qfrc_bias[i];
      vc[perm[i]] = cd->v[i];
    }

    // kinetic energy in both coordinates: 1/2 v_mj' M_mj v_mj = 1/2 v_c' M_c v_c
    mj_fullM(mm, Mmj, md->qM);
    double ke_mj = 0, ke_c = 0;
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) {
        ke_mj += 0.5 * md->qvel[i] * Mmj[(size_t)i * nv + j] * md->qvel[j];
        ke_c += 0.5 * vc[i] * Mc[(size_t)i * nv + j] * vc[j];
      }
    double ke_c2 = dyn_kinetic(cm, cd);
    double ke_err = fmax(fabs(ke_c - ke_mj), fabs(ke_c2 - ke_mj)) / fmax(1e-300, fabs(ke_mj));
    worst_ke = fmax(worst_ke, ke_err);
    ck_assert_msg(ke_err <= REL_TOL,
                  "%s (%s) state %d: kinetic energy csim %.12g (dyn_kinetic %.12g) MuJoCo %.12g",
                  rc->file, label, s, ke_c, ke_c2, ke_mj);

    // predicted MuJoCo M = T' Mc T
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) {
        double acc = 0;
        for (int k = 0; k < nv; k++) acc += Mc[(size_t)i * nv + k] * Tm[(size_t)k * nv + j];
        tmp[(size_t)i * nv + j] = acc;
      }
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) {
        double acc = 0;
        for (int k = 0; k < nv; k++) acc += Tm[(size_t)k * nv + i] * tmp[(size_t)k * nv + j];
        Mp[(size_t)i * nv + j] = acc;
      }

    // predicted MuJoCo b = T' (b_c + Mc dT/dt v_mj), dT/dt v_mj = [R (w x (w x c)); 0]
    memset(w, 0, (size_t)nv * sizeof *w);
    if (free_mj_dof >= 0) {
      const double* wb = vc + free_mj_dof + 3;
      double wc[3], wwc[3];
      wc[0] = wb[1] * cfree[2] - wb[2] * cfree[1];
      wc[1] = wb[2] * cfree[0] - wb[0] * cfree[2];
      wc[2] = wb[0] * cfree[1] - wb[1] * cfree[0];
      wwc[0] = wb[1] * wc[2] - wb[2] * wc[1];
      wwc[1] = wb[2] * wc[0] - wb[0] * wc[2];
      wwc[2] = wb[0] * wc[1] - wb[1] * wc[0];
      for (int r = 0; r < 3; r++)
        w[free_mj_dof + r] = Rfree[3 * r] * wwc[0] + Rfree[3 * r + 1] * wwc[1] + Rfree[3 * r + 2] * wwc[2];
    }
    for (int i = 0; i < nv; i++) {
      double acc = bc[i];
      for (int k = 0; k < nv; k++) acc += Mc[(size_t)i * nv + k] * w[k];
      r1[i] = acc;
    }
    for (int i = 0; i < nv; i++) {
      double acc = 0;
      for (int k = 0; k < nv; k++) acc += Tm[(size_t)k * nv + i] * r1[k];
      bp[i] = acc;
    }

    // against MuJoCo's own inertias, then against the exact-inertia model
    check_against(mm, md, Mp, bp, Mmj, REL_TOL, "MuJoCo inertias", rc->file, label, s, &worst_M,
                  &worst_b);
    check_against(mx, mdx, Mp, bp, Mmj, EXACT_TOL, "csim inertias in MuJoCo", rc->file, label, s,
                  &exact_M, &exact_b);
  }

  printf("mujoco_dynamics: %-44s %-5s nv=%2d mass %8.4f: rel err M %.1e b %.1e KE %.1e "
         "(exact inertias: M %.1e b %.1e) pose %.0e inertia %.0e (%s), %d override(s)%s\n",
         rc->file, label, nv, crobot, worst_M, worst_b, worst_ke, exact_M, exact_b, worst_pose,
         worst_inertia, body_name(cm, wib), noverride, balanced ? ", balanceinertia" : "");
  fflush(stdout);

  free(Mc);
  free(Md);
  free(Mmj);
  free(Mp);
  free(Tm);
  free(tmp);
  free(vec);
  free(perm);
  free(bodymap);
  mj_deleteData(md);
  mj_deleteData(mdx);
  mj_deleteModel(mx);
  mj_deleteModel(mm);
  mj_deleteModel(mm_all);
  data_free(cd);
  model_free(cm);
  urdf_free(ur);
}
END_TEST

// MuJoCo side alone: every case loads, with the expected free joint and dof count
START_TEST(mujoco_loads_edited_urdf) {
  const robot_case* rc = &k_cases[_i];
  char path[512];
  snprintf(path, sizeof path, ROBOT_DIR "%s", rc->file);
  size_t len = 0;
  char* text = read_text(path, &len);
  ck_assert_ptr_nonnull(text);
  char root[NAMESZ] = "";
  int balanced = 0;
  mjModel* mm = mj_load_robot(text, rc->base == MODEL_BASE_FREE, 1, &balanced, root, sizeof root);
  // the free base adds exactly one free joint (7 q, 6 v) on the root link's body
  int jf = mj_name2id(mm, mjOBJ_JOINT, "root_free");
  if (rc->base == MODEL_BASE_FREE) {
    ck_assert_int_ge(jf, 0);
    ck_assert_int_eq(mm->jnt_type[jf], mjJNT_FREE);
    ck_assert_str_eq(mj_id2name(mm, mjOBJ_BODY, mm->jnt_bodyid[jf]), root);
    ck_assert_int_eq(mm->nq, mm->nv + 1);
  } else {
    ck_assert_int_eq(jf, -1);
    ck_assert_int_eq(mm->nq, mm->nv);
  }
  // the unfused model (for the whole-robot mass) loads too and holds at least as much mass
  int balanced2 = 0;
  mjModel* mm_all = mj_load_robot(text, rc->base == MODEL_BASE_FREE, 0, &balanced2, root,
                                  sizeof root);
  ck_assert_double_gt(mj_getTotalmass(mm), 0);
  ck_assert_double_ge(mj_getTotalmass(mm_all), mj_getTotalmass(mm) - 1e-12);
  printf("mujoco_dynamics: MuJoCo loads %-44s %-5s nq=%2d nv=%2d nbody=%2d mass %8.4f (moving "
         "%8.4f)%s\n",
         rc->file, rc->base == MODEL_BASE_FREE ? "free" : "fixed", mm->nq, mm->nv, mm->nbody,
         mj_getTotalmass(mm_all), mj_getTotalmass(mm), balanced ? " balanceinertia" : "");
  fflush(stdout);
  mj_deleteModel(mm_all);
  mj_deleteModel(mm);
  free(text);
}
END_TEST

// run the suite
int main(void) {
  Suite* s = suite_create("mujoco_dynamics");
  TCase* tl = tcase_create("mujoco_load");
  tcase_add_loop_test(tl, mujoco_loads_edited_urdf, 0, NCASE);
  suite_add_tcase(s, tl);
  TCase* tc = tcase_create("compare");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, dynamics_match_mujoco, 0, NCASE);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
