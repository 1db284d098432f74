// test_mujoco_humanoid.c — MuJoCo's humanoid (humanoid/humanoid.xml, libmujoco-samples) in csim
// against MuJoCo 2.2.2 stepping the same file:
//  - the humanoid with its torso welded (the free joint taken out of the text, and the floor),
//    contacts (MuJoCo's flag; csim: contype = conaffinity = 0) and limits off on both sides, from a seeded random pose and velocity: 21 hinges
//    with springs, dampers and armature under gravity. csim's step with explicit velocity
//    products (integrator.velocity_products: explicit) is MuJoCo's Euler step with its implicit
//    damping ((M + h D) a = M qacc): joint positions agree to 1e-9 over 1 s (200 steps);
//  - the file as it is, dropped from its initial pose, until the first contact (the step whose
//    start finds one on either side): every generalized position agrees to 1e-9. The humanoid's
//    free joint is inside the MJCF world's tree (a fixed-base robot in csim's terms), so csim's
//    free-flight rule (stage.h: the exact parabola for a free-base robot) does not apply and both
//    take semi-implicit Euler steps; its q is the pose relative to the joint's placement
//    (model.h), compared with MuJoCo's after adding that placement.
// Skipped with a note when the file is not installed.
#include <check.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sim.h"
#include "core/state.h"
#include "scene_fixture.h"
#include "support.h"

#define HUMANOID "/usr/share/mujoco/model/humanoid/humanoid.xml"

// remove the first occurrence of `what` from s (asserted present)
static void cut(char* s, const char* what) {
  char* p = strstr(s, what);
  ck_assert_msg(p != NULL, "'%s' not in humanoid.xml", what);
  memmove(p, p + strlen(what), strlen(p + strlen(what)) + 1);
}

// insert `what` after the first occurrence of `at` in *s (asserted present; *s reallocated)
static void paste(char** s, const char* at, const char* what) {
  char* p = strstr(*s, at);
  ck_assert_msg(p != NULL, "'%s' not in humanoid.xml", at);
  size_t off = (size_t)(p - *s) + strlen(at), n = strlen(*s), w = strlen(what);
  char* t = malloc(n + w + 1);
  ck_assert_ptr_nonnull(t);
  memcpy(t, *s, off);
  memcpy(t + off, what, w);
  memcpy(t + off + w, *s + off, n - off + 1);
  free(*s);
  *s = t;
}

// csim's fixture for the MJCF file at path (no ground of its own, the file's time step)
static fixture humanoid_fixture(const char* path, const char* extra) {
  char yaml[1024], name[512];
  snprintf(yaml, sizeof(yaml),
           "name: h\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\n"
           "robots:\n  - mjcf: %s\ncontact: {model: ccp, friction: 1, cone: %s}\nsolver: {name: pgs}\n"
           "integrator: {duration: 1%s}\noutput: {path: out.h5}\n%s",
           path, strstr(extra, "pyramidal") ? "pyramidal" : "elliptic",
           strstr(extra, "explicit") ? ", velocity_products: explicit" : "",
           strstr(extra, "nolimits") ? "limits: {enabled: false}\n" : "");
  return fixture_text(yaml, tmp_path(name, sizeof(name), "h.yaml"), NULL, 0);
}

START_TEST(welded_humanoid_matches_mujoco) {
  if (!file_exists(HUMANOID)) {
    fprintf(stderr, "skipped: %s not installed (make deps installs libmujoco-samples)\n", HUMANOID);
    return;
  }
  char* text = slurp(HUMANOID, NULL);
  cut(text, "<freejoint name=\"root\"/>");
  cut(text, "<geom name=\"floor\" size=\"0 0 .05\" type=\"plane\" material=\"grid\" condim=\"3\"/>");
  // contacts off on csim's side too: the body class's geoms (all of them) collide with nothing
  paste(&text, "<geom type=\"capsule\" condim=\"1\"", " contype=\"0\" conaffinity=\"0\"");
  char path[512], msg[1000];
  tmp_write_text("welded.xml", text);
  free(text);
  tmp_path(path, sizeof(path), "welded.xml");
  mjModel* mm = mj_loadXML(path, NULL, msg, sizeof(msg));
  ck_assert_msg(mm != NULL, "MuJoCo: %s", msg);
  mm->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT;
  mjData* md = mj_makeData(mm);
  fixture f = humanoid_fixture(path, "explicit nolimits");
  sim* s = f.s;
  int nv = s->model.m->nv;
  ck_assert_int_eq(nv, mm->nv);
  ck_assert_int_eq(nv, 21);
  ck_assert_double_eq(s->opt.dt, mm->opt.timestep);
  unsigned seed = 11;
  for (int i = 0; i < nv; i++) {
    md->qpos[i] = s->data.d->q[i] = 0.4 * urand_sym(&seed);
    md->qvel[i] = s->data.d->v[i] = 1.0 * urand_sym(&seed);
  }
  sim_stepinfo info;
  csim_error e;
  double worst = 0, moved = 0;
  for (int n = 0; n < 200; n++) {
    mj_step(mm, md);
    ck_assert_int_eq(sim_step(s, &info, &e), CSIM_OK);
    for (int i = 0; i < nv; i++) {
      worst = fmax(worst, fabs(s->data.d->q[i] - md->qpos[i]));
      moved = fmax(moved, fabs(md->qpos[i]));
    }
  }
  fprintf(stderr, "welded humanoid, 200 steps of 5 ms: max |q - q_MuJoCo| = %.3g rad (|q| up to "
          "%.3g)\n", worst, moved);
  ck_assert_msg(worst < 1e-9, "joint positions differ from MuJoCo's by %g", worst);
  fixture_free(&f);
  mj_deleteData(md);
  mj_deleteModel(mm);
}
END_TEST

START_TEST(drop_until_contact_matches_mujoco) {
  if (!file_exists(HUMANOID)) {
    fprintf(stderr, "skipped: %s not installed\n", HUMANOID);
    return;
  }
  char msg[1000];
  mjModel* mm = mj_loadXML(HUMANOID, NULL, msg, sizeof(msg));
  ck_assert_msg(mm != NULL, "MuJoCo: %s", msg);
  mjData* md = mj_makeData(mm);
  // _i 0: csim's Lorentz cone; 1: MuJoCo's pyramid (contact.cone), the file's own (its default)
  fixture f = humanoid_fixture(HUMANOID, _i ? "pyramidal" : "");
  sim* s = f.s;
  ck_assert_int_eq(s->model.m->nq, mm->nq);
  const double* p0 = s->model.m->body_pos + 3 * s->model.m->jnt_body[0];  // torso placement
  double zdiff = 0, jdiff = 0, fall = 0;
  int n = 0;
  sim_stepinfo info;
  csim_error e;
  mj_forward(mm, md);
  while (md->ncon == 0 && n < 400) {
    mj_step(mm, md);
    ck_assert_int_eq(sim_step(s, &info, &e), CSIM_OK);
    n++;
    if (md->ncon > 0 || s->data.con->ncon > 0) break;
    const double* q = s->data.d->q;
    // csim's MJCF free joint holds the world pose, as MuJoCo's qpos (model.h: its placement
    // p0 is the world origin, kept here as the check of it); MuJoCo's quaternion is [w x y z]
    double z = q[2] + p0[2], qm[4] = {md->qpos[4], md->qpos[5], md->qpos[6], md->qpos[3]};
    zdiff = fmax(zdiff, fabs(z - md->qpos[2]));
    fall = mm->qpos0[2] - md->qpos[2];
    for (int i = 7; i < mm->nq; i++) jdiff = fmax(jdiff, fabs(q[i] - md->qpos[i]));
    for (int i = 0; i < 2; i++) jdiff = fmax(jdiff, fabs(q[i] + p0[i] - md->qpos[i]));
    for (int i = 0; i < 4; i++) jdiff = fmax(jdiff, fabs(q[3 + i] - qm[i]));
  }
  fprintf(stderr, "humanoid drop, %d steps (fall %.4g m) before the first contact: base height "
          "within %.3g m of MuJoCo's, the other 27 coordinates within %.3g\n", n - 1, fall, zdiff,
          jdiff);
  ck_assert_int_gt(n, 20);
  ck_assert_msg(zdiff < 1e-9 && jdiff < 1e-9, "base height %g, other coordinates %g", zdiff, jdiff);
  // after the first contact: the base height over the first second within 1 cm of MuJoCo's
  // (csim's self-collision is MuJoCo's pair filter, test_mujoco_filter.c) and the contacts
  double zmax = 0, ncs = 0, ncm = 0;
  int n0 = n;
  for (; n < 200; n++) {
    mj_step(mm, md);
    ck_assert_int_eq(sim_step(s, &info, &e), CSIM_OK);
    zmax = fmax(zmax, fabs(s->data.d->q[2] + p0[2] - md->qpos[2]));
    ncs += s->data.con->ncon;
    ncm += md->ncon;
  }
  fprintf(stderr, "humanoid drop, ccp (%s cone) with the file's solref/solimp against MuJoCo: base "
          "height within %.3g m over the first second (csim %.4f, MuJoCo %.4f m at 1 s); contacts at "
          "1 s csim %d, MuJoCo %d, mean after the first csim %.2f, MuJoCo %.2f\n",
          _i ? "pyramidal" : "elliptic", zmax,
          s->data.d->q[2] + p0[2], md->qpos[2], s->data.con->ncon, md->ncon, ncs / (n - n0),
          ncm / (n - n0));
  ck_assert_msg(zmax < 0.01, "base height %g m from MuJoCo's (issue 25: within 1 cm)", zmax);
  fixture_free(&f);
  mj_deleteData(md);
  mj_deleteModel(mm);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_humanoid");
  TCase* tc = tcase_create("core");
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, welded_humanoid_matches_mujoco);
  tcase_add_loop_test(tc, drop_until_contact_matches_mujoco, 0, 2);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
