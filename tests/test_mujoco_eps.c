// test_mujoco_eps.c — `build/bench_mujoco --mjcf-eps`, the residual pass that gives MuJoCo's
// answer its eps_abs in the testspeed table (tools/bench/bench_testspeed.py) on a model file as
// MuJoCo itself steps it: impulses from mj_contactForce (which decodes the pyramidal cone's edge
// forces), velocities c = J v+ from MuJoCo's own next velocity. Checked against numbers that do
// not come from the pass:
// - a 1 kg box resting on a plane (MuJoCo's soft contacts settle): 4 corner contacts whose normal
//   impulses sum to m g dt (statics), under both cones; a decoding that read the pyramid's edge
//   forces as [f_n f_t1 f_t2] would give a quarter of it;
// - the same box pushed along x by a horizontal gravity 3 m/s^2 > mu g on mu = 0.1: it slides,
//   and sliding friction lies on the cone (elliptic) or on the pyramid's edge along the sliding
//   axis (pyramidal, the frame's t1 on a plane), so the tangential impulses sum to mu times the
//   normal ones;
// - a file MuJoCo cannot load: exit 1, the file named.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define DT 0.002
#define BENCH "build/bench_mujoco"

typedef struct {
  double eps_mean, eps_max, contacts_mean, pn, pt;
  int steps, contacts_last;
} eps_out;

// build/bench_mujoco (tools/bench/bench_mujoco.sh builds it once against build/libcsim.a)
static void build_bench(void) {
  char out[4096];
  int rc = sh_run2("tools/bench/bench_mujoco.sh --build-only", out, sizeof out);
  ck_assert_msg(rc == 0, "bench_mujoco.sh --build-only exited %d: %s", rc, out);
}

// a box of half side 0.1 m and 1 kg on a plane, both of friction mu, under gravity (gx, 0, -9.81)
static const char* write_box(const char* name, const char* cone, double mu, double gx) {
  static char path[512];
  char xml[1024];
  snprintf(xml, sizeof xml,
           "<mujoco><option timestep='%g' cone='%s' gravity='%g 0 -9.81'/><worldbody>"
           "<geom type='plane' size='50 50 0.1' friction='%g'/>"
           "<body pos='0 0 0.1'><freejoint/>"
           "<geom type='box' size='0.1 0.1 0.1' mass='1' friction='%g'/></body>"
           "</worldbody></mujoco>",
           DT, cone, gx, mu, mu);
  tmp_write_text(name, xml);
  return tmp_path(path, sizeof path, name);
}

static void run_eps(const char* file, int steps, eps_out* o) {
  char out[4096];
  int rc = sh_fmt(out, sizeof out, "%s --mjcf-eps %s --steps %d", BENCH, file, steps);
  ck_assert_msg(rc == 0, "--mjcf-eps %s exited %d: %s", file, rc, out);
  int k = sscanf(out,
                 "eps_abs_mean %lf eps_abs_max %lf contacts_mean %lf steps %d contacts_last %d "
                 "pn_last %lf pt_last %lf",
                 &o->eps_mean, &o->eps_max, &o->contacts_mean, &o->steps, &o->contacts_last,
                 &o->pn, &o->pt);
  ck_assert_msg(k == 7, "unexpected output '%s'", out);
  ck_assert_msg(isfinite(o->eps_mean) && o->eps_max >= o->eps_mean && o->eps_mean >= 0,
                "eps_abs mean %g max %g", o->eps_mean, o->eps_max);
}

START_TEST(resting_box_carries_its_weight) {
  build_bench();
  static const char* const cones[] = {"pyramidal", "elliptic"};
  for (int c = 0; c < 2; c++) {
    eps_out o;
    run_eps(write_box("rest.xml", cones[c], 0.5, 0), 1000, &o);
    ck_assert_msg(o.contacts_last == 4, "%s: %d contacts, a box resting flat has 4 corners",
                  cones[c], o.contacts_last);
    ck_assert_msg(fabs(o.pn - 9.81 * DT) < 1e-9 * 9.81 * DT, "%s: normal impulses %.12g, m g dt = %g",
                  cones[c], o.pn, 9.81 * DT);
    ck_assert_msg(o.pt < 1e-9, "%s: tangential impulses %g at rest", cones[c], o.pt);
    printf("resting box, %s cone: eps_abs mean %.3g, normal impulses %.12g (m g dt %.12g)\n",
           cones[c], o.eps_mean, o.pn, 9.81 * DT);
  }
}
END_TEST

START_TEST(sliding_box_friction_on_the_cone) {
  build_bench();
  static const char* const cones[] = {"pyramidal", "elliptic"};
  for (int c = 0; c < 2; c++) {
    eps_out o;
    run_eps(write_box("slide.xml", cones[c], 0.1, 3), 500, &o);
    ck_assert_msg(o.contacts_last > 0 && o.pn > 0, "%s: no contact at the end", cones[c]);
    ck_assert_msg(fabs(o.pt / o.pn - 0.1) < 1e-6, "%s: tangential / normal impulse %.9g, mu = 0.1",
                  cones[c], o.pt / o.pn);
  }
}
END_TEST

START_TEST(unloadable_file_named) {
  build_bench();
  char out[4096], path[512];
  tmp_write_text("bad.xml", "<mujoco><worldbody><geom type='nosuch'/></worldbody></mujoco>");
  int rc = sh_fmt(out, sizeof out, "%s --mjcf-eps %s --steps 10", BENCH,
                  tmp_path(path, sizeof path, "bad.xml"));
  ck_assert_msg(rc == 1 && strstr(out, "bad.xml"), "exit %d: %s", rc, out);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_eps");
  TCase* tc = tcase_create("mujoco_eps");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_add_test(tc, resting_box_carries_its_weight);
  tcase_add_test(tc, sliding_box_friction_on_the_cone);
  tcase_add_test(tc, unloadable_file_named);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
