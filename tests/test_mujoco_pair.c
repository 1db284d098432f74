// test_mujoco_pair.c — MJCF explicit geom pairs (<contact><pair>) against MuJoCo 2.2.2 on the
// same file. Three 10 cm boxes (1 kg) slide along x at 0.1 m/s on the file's plane:
//   a  contype = conaffinity = 0: it touches the plane only through its <pair> (friction 0.3,
//      solref 0.01 1): without the pair it would fall through;
//   b  a dynamic pair with the plane and a <pair> of condim 1 (frictionless): the pair's
//      parameters replace the geoms' and the dynamic pair is not collided again (MuJoCo's
//      predefined pairs): b slides on without friction;
//   c  no <pair>: the dynamic pair, the geoms' friction mixed by MuJoCo's rule (the larger, 0.8).
// Both read the one file; csim's scenario gives no contact.friction (the file's own). MuJoCo runs
// its elliptic cone, Newton to 1e-12 and Euler (csim's velocity-level step, velocity products
// explicit); csim's ccp takes the file's solref/solimp as its MuJoCo softness (material.h),
// solved by admm to 1e-12. Compared while every box has contacts on both sides (the CCP's sliding
// contacts push, 000 Sec. III, so sliding boxes hop after a while; in flight csim's exact
// parabola and MuJoCo's symplectic Euler part): the contact count each step, and every velocity
// within 1e-8 m/s (the same strictly convex problem solved to 1e-12 on both sides; the boxes
// start 0.5 mm down, so both see the same contacts). Hand-computed beside them: each contact's
// mu (a 0.3, b 0, c 0.8) and b's x velocity, which stays 0.1 m/s (frictionless).
#include <check.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contact.h"
#include "core/sim.h"
#include "core/state.h"
#include "scene_fixture.h"
#include "support.h"

#define TOL_V 1e-8
#define VX 0.1  // the boxes' initial x velocity (the scenario's v0 says it too)

// the file: z0 the boxes' centre height (a rest penetration below their half side)
static void write_file(const char* name, double z0) {
  char xml[2048];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='0.001' integrator='Euler' cone='elliptic' solver='Newton' "
           "tolerance='1e-12' iterations='200'/><worldbody>"
           "<geom name='floor' type='plane' size='5 5 0.1' friction='0.8'/>"
           "<body name='a' pos='0 0 %.17g'><freejoint/><geom name='ga' type='box' "
           "size='.05 .05 .05' mass='1' contype='0' conaffinity='0'/></body>"
           "<body name='b' pos='0 1 %.17g'><freejoint/><geom name='gb' type='box' "
           "size='.05 .05 .05' mass='1' friction='0.5'/></body>"
           "<body name='c' pos='0 2 %.17g'><freejoint/><geom name='gc' type='box' "
           "size='.05 .05 .05' mass='1' friction='0.4'/></body></worldbody>"
           "<contact><pair geom1='floor' geom2='ga' friction='0.3 0.3 0.005 0.0001 0.0001' "
           "solref='0.01 1'/><pair geom1='gb' geom2='floor' condim='1'/></contact></mujoco>",
           z0, z0, z0);
  tmp_write_text(name, xml);
}

START_TEST(pairs_against_mujoco) {
  // the boxes start 0.5 mm down, near their rest penetration under both solrefs (about 0.5 and
  // 0.3 mm: r = (1 - imp) g / (4 K imp^2) per corner), so that both engines start in contact
  write_file("pair.xml", 0.0495);
  char path[512], err[1000] = "";
  mjModel* mm = mj_loadXML(tmp_path(path, sizeof(path), "pair.xml"), NULL, err, sizeof(err));
  ck_assert_msg(mm != NULL, "MuJoCo: %s", err);
  mjData* md = mj_makeData(mm);
  for (int b = 0; b < 3; b++) md->qvel[6 * b] = VX;
  const char* yaml = "name: p\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\nrobots:\n"
                     "  - mjcf: pair.xml\n    v0: [0.1, 0, 0, 0, 0, 0, 0.1, 0, 0, 0, 0, 0, 0.1, 0, "
                     "0, 0, 0, 0]\ncontact: {model: ccp, cone: elliptic}\n"
                     "solver: {name: admm, tolerance: 1.0e-12, max_iterations: 5000, criterion: "
                     "model}\nintegrator: {dt: 1.0e-3, duration: 1, velocity_products: explicit}\n";
  fixture f = fixture_text(yaml, tmp_path(path, sizeof(path), "p.yaml"), NULL, 0);
  ck_assert_int_eq(f.s->model.m->npair, 2);
  double dv = 0;
  int k = 0, ncon_diff = 0;
  sim_stepinfo info;
  csim_error e;
  for (; k < 300; k++) {
    ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
    mj_step(mm, md);
    int per[2][3] = {{0}};
    const contact_data* c = f.s->data.con;
    for (int i = 0; i < c->ncon - c->nlimit; i++)
      per[0][(c->body1[i] > 0 ? c->body1[i] : c->body2[i]) - 1]++;
    for (int i = 0; i < md->ncon; i++) {
      int g = md->contact[i].geom1 > 0 ? md->contact[i].geom1 : md->contact[i].geom2;
      per[1][mm->geom_bodyid[g] - 1]++;
    }
    if (!per[0][0] || !per[0][1] || !per[0][2] || !per[1][0] || !per[1][1] || !per[1][2]) break;
    ncon_diff += c->ncon - c->nlimit != md->ncon;
    for (int j = 0; j < 18; j++) dv = fmax(dv, fabs(f.s->data.d->v[j] - md->qvel[j]));
    // each contact's mu, by hand from the file: a's pair 0.3, b's pair condim 1, c max(0.8, 0.4)
    static const double kMu[3] = {0.3, 0, 0.8};
    for (int i = 0; i < c->ncon - c->nlimit; i++)
      ck_assert_double_eq(c->mu[i], kMu[(c->body1[i] > 0 ? c->body1[i] : c->body2[i]) - 1]);
  }
  const double* v = f.s->data.d->v;
  fprintf(stderr, "explicit pairs: %d steps with every box in contact, |v csim - v MuJoCo| <= %.3g, contact "
         "counts differ on %d steps; vx a %.6f b %.6f c %.6f (MuJoCo %.6f %.6f %.6f)\n", k, dv,
         ncon_diff, v[0], v[6], v[12], md->qvel[0], md->qvel[6], md->qvel[12]);
  ck_assert_int_ge(k, 5);
  ck_assert_int_eq(ncon_diff, 0);
  ck_assert_double_le(dv, TOL_V);
  ck_assert_double_le(fabs(v[6] - VX), 1e-12);  // b frictionless keeps its speed
  fixture_free(&f);
  mj_deleteData(md);
  mj_deleteModel(mm);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_pair");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_add_test(tc, pairs_against_mujoco);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
