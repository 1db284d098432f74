// test_mujoco_mjcf.c — csim's MJCF reader against MuJoCo 2.2.2 on MuJoCo's own model files
// (libmujoco-samples, /usr/share/mujoco/model): every body's mass, centre of mass and principal
// moments of inertia as read by io/mjcf.h (inertia from geoms, MuJoCo's rule) against
// mj_loadXML's m->body_mass, body_ipos and body_inertia, to 1e-9 relative. Bodies are matched in
// document order (csim's joint-frame links carry no inertial and are skipped). Files missing
// (libmujoco-samples not installed) are skipped with a note. mug.xml's body holds an OBJ mesh
// geom (MuJoCo's mesh inertia rule: core/mesh.h mesh_mass_props), as does a file written here.
//
// And the joint-space mass matrix M(q) of an MJCF chain written here (hinges and slides, several
// joints in one body with their own anchors, armature on M's diagonal) built by csim's model
// builder and CRBA against MuJoCo's mj_fullM at random configurations, to 1e-12 relative.
#include <check.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "core/dynamics.h"
#include "core/kinematics.h"
#include "core/model.h"
#include "core/spatial.h"
#include "io/mjcf.h"
#include "io/model_build.h"
#include "scene_fixture.h"
#include "support.h"

#define MODELS "/usr/share/mujoco/model/"

static const char* const kFiles[] = {"humanoid/humanoid.xml", "humanoid/22_humanoids.xml",
                                     "humanoid100/humanoid100.xml", "mug/mug.xml"};

// ascending order of three values
static void sort3(double v[3]) {
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (v[j] < v[i]) {
        double t = v[i];
        v[i] = v[j];
        v[j] = t;
      }
}

// every body's mass, centre of mass and principal moments of the file at path: csim vs MuJoCo
static void compare_bodies(const char* path, const char* label) {
  char msg[1000];
  mjModel* m = mj_loadXML(path, NULL, msg, sizeof(msg));
  ck_assert_msg(m != NULL, "MuJoCo: %s", msg);
  urdf_robot* r = NULL;
  csim_error e;
  ck_assert_msg(mjcf_load(path, NULL, &r, &e) == CSIM_OK, "%s:%d: %s", e.file, e.line, e.msg);
  int b = 1;
  double worst = 0;
  for (int l = 1; l < r->nlink; l++) {
    const urdf_link* L = &r->links[l];
    if (!L->has_inertial) continue;
    ck_assert_int_lt(b, m->nbody);
    const double* v = L->inertia;
    double I[9] = {v[0], v[1], v[2], v[1], v[3], v[4], v[2], v[4], v[5]}, w[3], V[9];
    sp_eigsym3(w, V, I);
    double mi[3] = {m->body_inertia[3 * b], m->body_inertia[3 * b + 1], m->body_inertia[3 * b + 2]};
    sort3(w);
    sort3(mi);
    double err = fabs(L->mass - m->body_mass[b]) / m->body_mass[b];
    for (int i = 0; i < 3; i++) {
      err = fmax(err, fabs(w[i] - mi[i]) / mi[2]);
      err = fmax(err, fabs(L->com_xyz[i] - m->body_ipos[3 * b + i]) / 0.1);  // m, bodies ~0.1 m
    }
    ck_assert_msg(err < 1e-9, "%s body %d (%s): mass %.15g vs %.15g, moments %g %g %g vs %g %g %g",
                  label, b, L->name, L->mass, m->body_mass[b], w[0], w[1], w[2], mi[0], mi[1],
                  mi[2]);
    worst = fmax(worst, err);
    b++;
  }
  ck_assert_int_eq(b, m->nbody);
  fprintf(stderr, "%s: %d bodies, largest relative difference %.2g\n", label, b - 1, worst);
  urdf_free(r);
  mj_deleteModel(m);
}

START_TEST(masses_match_mujoco) {
  char path[512];
  snprintf(path, sizeof(path), MODELS "%s", kFiles[_i]);
  if (!file_exists(path)) {
    fprintf(stderr, "skipped: %s not installed (make deps installs libmujoco-samples)\n", path);
    return;
  }
  compare_bodies(path, kFiles[_i]);
}
END_TEST

// mesh geoms (an OBJ wedge written here): scaled, mirrored, placed off the body origin and
// turned, a given mass, a given density, beside a primitive; each body against MuJoCo 2.2.2
START_TEST(mesh_geoms_match_mujoco) {
  char dir[256], path[512], obj[4096];
  tmp_dir(dir, sizeof(dir), "mjcf_mesh");
  // a wedge (non-symmetric: its principal axes are not the mesh axes) as OBJ, quads fanned
  snprintf(path, sizeof(path), "%s/wedge.obj", dir);
  write_text(path, "v 0 0 0\nv 2 0 0\nv 0 1 0\nv 0 0 0.5\nv 2 0 0.5\nv 0 1 0.5\n"
             "f 1 3 2\nf 4 5 6\nf 1 2 5 4\nf 2 3 6 5\nf 3 1 4 6\n");
  snprintf(obj, sizeof(obj),
           "<mujoco><asset><mesh name='w' file='wedge.obj' scale='0.1 0.2 0.3'/>"
           "<mesh name='m' file='wedge.obj' scale='0.1 -0.1 0.1'/></asset><worldbody>"
           "<body name='a' pos='0 0 1'><freejoint/><geom type='mesh' mesh='w'/></body>"
           "<body name='b' pos='1 0 1' euler='10 20 30'><freejoint/>"
           "<geom type='mesh' mesh='w' pos='0.1 0.2 0.3' euler='30 -40 50' mass='2.5'/>"
           "<geom type='box' size='0.1 0.05 0.02' pos='-0.1 0 0'/></body>"
           "<body name='c' pos='2 0 1'><freejoint/>"
           "<geom type='mesh' mesh='m' density='300' quat='0.5 0.5 0.5 0.5'/></body>"
           "</worldbody></mujoco>");
  snprintf(path, sizeof(path), "%s/mesh.xml", dir);
  write_text(path, obj);
  compare_bodies(path, "mesh geoms (wedge.obj)");
  tmp_remove(dir);
}
END_TEST

// a fixed-base chain: hinge and slide joints, two joints with different anchors in one body,
// euler/xyaxes frames, capsules and boxes, armature on most joints
// one MJCF file loaded by MuJoCo (mj_loadXML) and by csim's reader and model builder (the
// world's gravity, one fixed-base robot), with their data
typedef struct {
  mjModel* mm;
  mjData* md;
  urdf_robot* r;
  sim_model* cm;
  sim_data* cd;
} both;

static both both_load(const char* path) {
  both b = {NULL, NULL, NULL, NULL, NULL};
  char msg[1000];
  b.mm = mj_loadXML(path, NULL, msg, sizeof(msg));
  ck_assert_msg(b.mm != NULL, "MuJoCo: %s", msg);
  b.md = mj_makeData(b.mm);
  csim_error e;
  ck_assert_int_eq(mjcf_load(path, NULL, &b.r, &e), CSIM_OK);
  model_world_spec w = {{0, 0, -9.81}, 0, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec;
  memset(&spec, 0, sizeof(spec));
  spec.urdf = b.r;
  spec.base_quat[3] = 1;
  ck_assert_msg(model_create(&w, &spec, 1, &b.cm, &e) == CSIM_OK, "%s", e.msg);
  ck_assert_int_eq(data_create(b.cm, 0, &b.cd, &e), CSIM_OK);
  return b;
}

static void both_free(both* b) {
  data_free(b->cd);
  model_free(b->cm);
  urdf_free(b->r);
  mj_deleteData(b->md);
  mj_deleteModel(b->mm);
}

static const char* const kChain =
    "<mujoco><option gravity='0 0 -9.81'/><default><joint armature='0.05'/></default><worldbody>"
    "<body name='a' pos='0 0 1' euler='10 20 30'><joint name='h1' axis='0 0 1'/>"
    "<joint name='h2' pos='0.1 0 0.05' axis='0 1 0' armature='0.2'/>"
    "<geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.04'/>"
    "<body name='b' pos='0.35 0 0' xyaxes='0 1 0 -1 0 0'><joint name='s1' type='slide' axis='1 0 1'/>"
    "<geom type='box' size='0.05 0.06 0.07' pos='0.02 0 0'/>"
    "<body name='c' pos='0.1 0.2 0'><joint name='h3' axis='1 1 0' pos='0 0 0.03' armature='0'/>"
    "<geom type='sphere' size='0.05' pos='0.1 0 0'/></body></body></body>"
    "</worldbody></mujoco>";

START_TEST(mass_matrix_matches_mujoco) {
  char dir[256], path[512];
  tmp_dir(dir, sizeof(dir), "mjcf_M");
  snprintf(path, sizeof(path), "%s/chain.xml", dir);
  write_text(path, kChain);
  both b = both_load(path);
  mjModel* mm = b.mm;
  mjData* md = b.md;
  sim_model* cm = b.cm;
  sim_data* cd = b.cd;
  ck_assert_int_eq(cm->nv, mm->nv);
  ck_assert_int_eq(cm->nv, 4);
  int nv = cm->nv;
  double Mc[16], Mm[16];
  unsigned seed = 7;
  double worst = 0;
  for (int trial = 0; trial < 20; trial++) {
    for (int i = 0; i < nv; i++) md->qpos[i] = cd->q[i] = trial ? 1.5 * urand_sym(&seed) : 0;
    mj_forward(mm, md);
    mj_fullM(mm, Mm, md->qM);
    kin_forward(cm, cd);
    dyn_crba(cm, cd);
    dyn_mass_dense(cm, cd, Mc);
    double scale = 0;
    for (int k = 0; k < nv * nv; k++) scale = fmax(scale, fabs(Mm[k]));
    for (int k = 0; k < nv * nv; k++) worst = fmax(worst, fabs(Mc[k] - Mm[k]) / scale);
  }
  // the armature is on the diagonal: h2's 0.2 is there at q = 0 as MuJoCo has it
  ck_assert_double_eq(cm->dof_armature[1], 0.2);
  ck_assert_msg(worst < 1e-12, "M differs from MuJoCo's by %g relative", worst);
  fprintf(stderr, "chain M(q) vs MuJoCo, 20 configurations: largest relative difference %.2g\n", worst);
  both_free(&b);
  tmp_remove(dir);
}
END_TEST

// M(q0) of MuJoCo's four model files against mj_fullM at the file's qpos0, to 1e-9 relative
// (issue 25). The coordinates differ in one place: a free joint's linear velocity is the body
// origin's in MuJoCo and the com's in csim (model.h), v_com = v_origin + (R w_body) x (R com). So
// with T the map from MuJoCo's qvel to csim's v (the identity but for those 3 x 3 blocks),
// MuJoCo's M equals T' M_csim T (the same kinetic energy); the test compares that
START_TEST(mass_matrix_files_match_mujoco) {
  char path[256];
  snprintf(path, sizeof(path), MODELS "%s", kFiles[_i]);
  if (!file_exists(path)) {
    fprintf(stderr, "%s not installed: skipped\n", path);
    return;
  }
  both b = both_load(path);
  sim_model* cm = b.cm;
  sim_data* cd = b.cd;
  int nv = cm->nv;
  ck_assert_int_eq(nv, b.mm->nv);
  size_t n2 = (size_t)nv * (size_t)nv;
  double* Mm = malloc(n2 * sizeof(double));
  double* Mc = malloc(n2 * sizeof(double));
  double* T = calloc(n2, sizeof(double));  // T[i * nv + k]: d v_csim[i] / d qvel[k]
  double* X = calloc(n2, sizeof(double));
  ck_assert(Mm && Mc && T && X);
  mj_forward(b.mm, b.md);
  mj_fullM(b.mm, Mm, b.md->qM);
  kin_forward(cm, cd);
  dyn_crba(cm, cd);
  dyn_mass_dense(cm, cd, Mc);
  for (int i = 0; i < nv; i++) T[(size_t)i * nv + i] = 1;
  for (int j = 0; j < cm->njnt; j++) {
    if (cm->jnt_type[j] != MODEL_JOINT_FREE) continue;
    double R[9], rc[3];
    sp_quat2mat(R, cd->q + cm->jnt_qadr[j] + 3);
    sp_mulmv3(rc, R, cm->body_com + 3 * cm->jnt_body[j]);
    // v_com += (R w) x rc = -[rc]x R w: the block rows d..d+2, columns d+3..d+5
    double S[9] = {0, rc[2], -rc[1], -rc[2], 0, rc[0], rc[1], -rc[0], 0}, B[9];
    sp_mulmm3(B, S, R);
    int d = cm->jnt_dofadr[j];
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) T[(size_t)(d + r) * nv + d + 3 + c] = B[3 * r + c];
  }
  // X = M_csim T, then compare T' X with MuJoCo's M (a column of T has its entries in rows k-5..k)
  for (int i = 0; i < nv; i++)
    for (int k = 0; k < nv; k++) {
      double acc = 0;
      for (int j = k - 5 < 0 ? 0 : k - 5; j <= k; j++) acc += Mc[(size_t)i * nv + j] * T[(size_t)j * nv + k];
      X[(size_t)i * nv + k] = acc;
    }
  double scale = 0, worst = 0;
  for (size_t k = 0; k < n2; k++) scale = fmax(scale, fabs(Mm[k]));
  for (int i = 0; i < nv; i++)
    for (int k = 0; k < nv; k++) {
      double acc = 0;
      for (int j = i - 5 < 0 ? 0 : i - 5; j <= i; j++) acc += T[(size_t)j * nv + i] * X[(size_t)j * nv + k];
      worst = fmax(worst, fabs(acc - Mm[(size_t)i * nv + k]) / scale);
    }
  fprintf(stderr, "%s: M(q0) (nv %d) vs MuJoCo's mj_fullM: largest difference %.2g of its largest "
          "entry\n", kFiles[_i], nv, worst);
  ck_assert_msg(worst < 1e-9, "%s: M(q0) differs from MuJoCo's by %g relative", kFiles[_i], worst);
  free(Mm);
  free(Mc);
  free(T);
  free(X);
  both_free(&b);
}
END_TEST

// MJCF free joints hold the body's pose in the world, as MuJoCo's qpos (issue 25: a MuJoCo
// user's keyframe or data.qpos as robots.N.q0): on humanoid100.xml (a humanoid and 100 free
// objects placed by pos and quat), csim's reference configuration equals MuJoCo's qpos0 (its
// quaternions [w x y z], csim's [x y z w]), and at qpos0 with every free body moved and turned
// at random both put every body at the same place in the world (xpos, xmat)
START_TEST(free_joints_hold_world_poses) {
  const char* path = MODELS "humanoid100/humanoid100.xml";
  FILE* f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s not installed: skipped\n", path);
    return;
  }
  fclose(f);
  both b = both_load(path);
  mjModel* mm = b.mm;
  mjData* md = b.md;
  sim_model* cm = b.cm;
  sim_data* cd = b.cd;
  ck_assert_int_eq(cm->nq, mm->nq);
  unsigned seed = 11;
  double worst_q0 = 0, worst_x = 0;
  int nfree = 0;
  for (int j = 0; j < mm->njnt; j++) {
    if (mm->jnt_type[j] != mjJNT_FREE) continue;
    int a = mm->jnt_qposadr[j];
    const double* qm = mm->qpos0 + a;
    const double* qc = cm->qpos0 + a;  // the joints in document order on both sides
    for (int i = 0; i < 3; i++) worst_q0 = fmax(worst_q0, fabs(qc[i] - qm[i]));
    for (int i = 0; i < 3; i++) worst_q0 = fmax(worst_q0, fabs(qc[3 + i] - qm[4 + i]));
    worst_q0 = fmax(worst_q0, fabs(qc[6] - qm[3]));
    // move and turn it: the same qpos on both sides
    double* qd = md->qpos + a;
    for (int i = 0; i < 3; i++) qd[i] = qm[i] + 0.5 * urand_sym(&seed);
    double qq[4] = {qm[3] + 0.3 * urand_sym(&seed), qm[4] + 0.3 * urand_sym(&seed),
                    qm[5] + 0.3 * urand_sym(&seed), qm[6] + 0.3 * urand_sym(&seed)};
    mju_normalize4(qq);
    for (int i = 0; i < 4; i++) qd[3 + i] = qq[i];
    nfree++;
  }
  for (int j = 0; j < mm->njnt; j++) {
    int a = mm->jnt_qposadr[j];
    if (mm->jnt_type[j] != mjJNT_FREE) {
      cd->q[a] = md->qpos[a];  // 1-dof joints: the same coordinate (ball joints: none here)
      continue;
    }
    for (int i = 0; i < 3; i++) cd->q[a + i] = md->qpos[a + i];
    for (int i = 0; i < 3; i++) cd->q[a + 3 + i] = md->qpos[a + 4 + i];
    cd->q[a + 6] = md->qpos[a + 3];
  }
  mj_kinematics(mm, md);
  kin_forward(cm, cd);
  // bodies by their free joint: MuJoCo's jnt_bodyid, csim's jnt_body
  for (int j = 0, cj = 0; j < mm->njnt; j++, cj++) {
    if (mm->jnt_type[j] != mjJNT_FREE) continue;
    int bm = mm->jnt_bodyid[j], bc = cm->jnt_body[cj];
    for (int i = 0; i < 3; i++)
      worst_x = fmax(worst_x, fabs(cd->xpos[3 * bc + i] - md->xpos[3 * bm + i]));
    for (int i = 0; i < 9; i++)  // rotations, row-major on both sides
      worst_x = fmax(worst_x, fabs(cd->xmat[9 * bc + i] - md->xmat[9 * bm + i]));
  }
  fprintf(stderr, "humanoid100: %d free joints, reference configuration within %.2g of MuJoCo's "
          "qpos0, world poses at a random qpos within %.2g\n", nfree, worst_q0, worst_x);
  ck_assert_int_eq(nfree, 101);
  ck_assert_msg(worst_q0 < 1e-12, "qpos0 differs from MuJoCo's by %g", worst_q0);
  ck_assert_msg(worst_x < 1e-12, "world poses differ from MuJoCo's by %g", worst_x);
  both_free(&b);
}
END_TEST

// robots.N.keyframe: a <key>'s qpos and qvel in MuJoCo's layout become csim's state. A file with
// two free bodies (one turned, its com off its origin), a hinge and a ball joint, started from
// its key by MuJoCo (mj_resetDataKeyframe) and by csim: every body at the same place in the
// world (xpos, xmat) and the same kinetic energy (mj_energyVel), which a free joint's velocity
// taken at the body origin instead of the com (model.h), or an unreordered quaternion, breaks
static const char* const kKeyed =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<body name='box' pos='0 0 1' euler='10 0 0'><freejoint/>"
    "<geom type='box' size='0.1 0.05 0.08' mass='1' pos='0.05 0.02 0'/></body>"
    "<body name='arm' pos='1 0 0.5'><joint name='h' axis='0 1 0'/>"
    "<geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.03'/>"
    "<body name='fore' pos='0.3 0 0'><joint name='b' type='ball'/>"
    "<geom type='capsule' fromto='0 0 0 0.2 0.05 0' size='0.02'/></body></body>"
    "<body name='ball' pos='-1 0 0.3'><freejoint/><geom type='sphere' size='0.1' mass='2'/></body>"
    "</worldbody><keyframe>"
    "<key name='home' qpos='0.5 0.2 0.3 0.9238795 0 0.3826834 0  0.4  0.8 0.36 0.48 0  "
    "-1 0.5 0.3 0.6 0.8 0 0' qvel='1 -0.5 0.2 0.3 -1 2  0.7  0.5 0 -0.4  0 0 0 1 2 3'/>"
    "</keyframe></mujoco>";

START_TEST(keyframe_state_matches_mujoco) {
  char dir[256], path[512], yaml[512];
  tmp_dir(dir, sizeof(dir), "mjcf_key");
  snprintf(path, sizeof(path), "%s/keyed.xml", dir);
  write_text(path, kKeyed);
  char msg[1000];
  mjModel* mm = mj_loadXML(path, NULL, msg, sizeof(msg));
  ck_assert_msg(mm != NULL, "MuJoCo: %s", msg);
  mjData* md = mj_makeData(mm);
  mm->opt.enableflags |= mjENBL_ENERGY;
  mj_resetDataKeyframe(mm, md, 0);
  mj_forward(mm, md);
  mj_energyVel(mm, md);
  snprintf(yaml, sizeof(yaml),
           "name: key\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: keyed.xml\n"
           "    keyframe: home\ncontact: {model: ncp}\n");
  snprintf(path, sizeof(path), "%s/key.yaml", dir);
  fixture f = fixture_text(yaml, path, NULL, 0);
  const sim_model* cm = f.s->model.m;
  sim_data* cd = f.s->data.d;
  kin_forward(cm, cd);
  dyn_crba(cm, cd);
  double worst = 0;
  for (int b = 1; b < cm->nbody; b++) {
    const char* name = cm->link_name[cm->body_link[b]];
    int bm = mj_name2id(mm, mjOBJ_BODY, name);
    ck_assert_msg(bm > 0, "body '%s' not in MuJoCo's model", name);
    for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(cd->xpos[3 * b + i] - md->xpos[3 * bm + i]));
    for (int i = 0; i < 9; i++) worst = fmax(worst, fabs(cd->xmat[9 * b + i] - md->xmat[9 * bm + i]));
  }
  double kc = dyn_kinetic(cm, cd), km = md->energy[1];
  fprintf(stderr, "keyframe 'home': poses within %.2g of MuJoCo's, kinetic energy %.12g (MuJoCo "
          "%.12g)\n", worst, kc, km);
  ck_assert_msg(worst < 1e-7, "poses differ from MuJoCo's by %g", worst);  // qpos's 7 digits
  ck_assert_msg(fabs(kc - km) < 1e-9 * km, "kinetic energy %.12g, MuJoCo %.12g", kc, km);
  fixture_free(&f);
  mj_deleteData(md);
  mj_deleteModel(mm);
  tmp_remove(dir);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_mjcf");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, masses_match_mujoco, 0, (int)(sizeof(kFiles) / sizeof(kFiles[0])));
  tcase_add_loop_test(tc, mass_matrix_files_match_mujoco, 0, (int)(sizeof(kFiles) / sizeof(kFiles[0])));
  tcase_add_test(tc, mesh_geoms_match_mujoco);
  tcase_add_test(tc, mass_matrix_matches_mujoco);
  tcase_add_test(tc, free_joints_hold_world_poses);
  tcase_add_test(tc, keyframe_state_matches_mujoco);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
