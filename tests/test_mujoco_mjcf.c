// test_mujoco_mjcf.c — csim's MJCF reader against MuJoCo 2.2.2 on MuJoCo's own model files
// (libmujoco-samples, /usr/share/mujoco/model): every body's mass, centre of mass and principal
// moments of inertia as read by io/mjcf.h (inertia from geoms, MuJoCo's rule) against
// mj_loadXML's m->body_mass, body_ipos and body_inertia, to 1e-9 relative. Bodies are matched in
// document order (csim's joint-frame links carry no inertial and are skipped). Files missing
// (libmujoco-samples not installed) are skipped with a note.
#include <check.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <string.h>

#include "core/spatial.h"
#include "io/mjcf.h"
#include "support.h"

#define MODELS "/usr/share/mujoco/model/"

static const char* const kFiles[] = {"humanoid/humanoid.xml", "humanoid/22_humanoids.xml",
                                     "humanoid100/humanoid100.xml"};

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

START_TEST(masses_match_mujoco) {
  char path[512];
  snprintf(path, sizeof(path), MODELS "%s", kFiles[_i]);
  if (!file_exists(path)) {
    fprintf(stderr, "skipped: %s not installed (make deps installs libmujoco-samples)\n", path);
    return;
  }
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
                  kFiles[_i], b, L->name, L->mass, m->body_mass[b], w[0], w[1], w[2], mi[0], mi[1],
                  mi[2]);
    worst = fmax(worst, err);
    b++;
  }
  ck_assert_int_eq(b, m->nbody);
  fprintf(stderr, "%s: %d bodies, largest relative difference %.2g\n", kFiles[_i], b - 1, worst);
  urdf_free(r);
  mj_deleteModel(m);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_mjcf");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, masses_match_mujoco, 0, (int)(sizeof(kFiles) / sizeof(kFiles[0])));
  suite_add_tcase(s, tc);
  return run_suite(s);
}
