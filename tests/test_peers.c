// test_peers.c — the Bullet and ODE peers of `make bench` (tools/bench/bench_bullet.cpp,
// bench_ode.c; built only when libbullet-dev / libode-dev are present, and this test only for the
// peers that were built: the Makefile defines PEER_ODE / PEER_BULLET as their paths). Each peer
// runs one cube scene and its CSV row is checked against numbers that do not come from it:
// - a 10 cm cube resting flat on a plane touches it at its 4 corners (geometry; ODE's box-plane
//   collider reports those corners, Bullet's plane-box manifold reaches them with its multipoint
//   perturbation), so 4 contacts at the last step;
// - at rest the contact impulses carry the weight: their normal sum is m g h = 1 * 9.81 * 1e-3 N s;
// - csim's eq. 14 residual of the peer's impulses is finite, and the impulses agree with the
//   peer's own next velocity (G lambda + g = J v+, round-off), the check that the impulses' frames
//   and signs were read the engine's way;
// - sliding at 1 m/s on mu = 0.3 the cube stops after v0^2 / (2 mu g) = 0.1699 m (ODE; Bullet's
//   default friction row slides 3 % short and is not checked on it).
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

// the CSV row's fields of one harness run
typedef struct {
  int contacts_last;
  double pn_last, eps_mean, eps_max, mismatch, dist;
} peer_out;

// run `bin` with args and parse its one CSV row (columns of peer_common.c peer_print)
static void run_peer(const char* bin, const char* args, peer_out* o) {
  char out[4096], cmd[1024];
  snprintf(cmd, sizeof cmd, "%s %s", bin, args);
  int rc = sh_run(cmd, out, sizeof out);
  ck_assert_msg(rc == 0, "%s exited %d: %s", cmd, rc, out);
  char scene[64], engine[32], solver[32];
  int nv, steps;
  double us, usmin, cmean, turn;
  int k = sscanf(out, "%63[^,],%31[^,],%31[^,],%d,%d,%lf,%lf,%lf,%d,%lf,%lf,%lf,%lf,%lf,%lf", scene,
                 engine, solver, &nv, &steps, &us, &usmin, &cmean, &o->contacts_last, &o->pn_last,
                 &o->eps_mean, &o->eps_max, &o->mismatch, &turn, &o->dist);
  ck_assert_msg(k == 15, "%s: unexpected row '%s'", cmd, out);
}

// the resting cube through one peer/solver
static void check_rest(const char* bin, const char* solver) {
  char args[128];
  peer_out o;
  snprintf(args, sizeof args, "--scene cube_rest --solver %s --steps 200 --batches 1", solver);
  run_peer(bin, args, &o);
  ck_assert_msg(o.contacts_last == 4, "%s %s: %d contacts, a resting cube has 4 corners", bin,
                solver, o.contacts_last);
  ck_assert_msg(fabs(o.pn_last - 9.81e-3) < 1e-5, "%s %s: normal impulse %g, m g h = 9.81e-3", bin,
                solver, o.pn_last);
  ck_assert_msg(isfinite(o.eps_mean) && isfinite(o.eps_max) && o.eps_max >= o.eps_mean &&
                    o.eps_mean >= 0,
                "%s %s: eps_abs mean %g max %g", bin, solver, o.eps_mean, o.eps_max);
  ck_assert_msg(o.mismatch < 1e-12, "%s %s: G lambda + g - J v+ = %g", bin, solver, o.mismatch);
}

#ifdef PEER_ODE
START_TEST(ode_cube_rest) {
  check_rest(PEER_ODE, "quick");
  check_rest(PEER_ODE, "dantzig");
}
END_TEST

START_TEST(ode_cube_slide_stops) {
  peer_out o;
  run_peer(PEER_ODE, "--scene cube_slide --solver dantzig --batches 1", &o);
  double d = 1.0 / (2 * 0.3 * 9.81);
  ck_assert_msg(fabs(o.dist - d) < 0.01 * d, "ODE slid %g m, v0^2/(2 mu g) = %g", o.dist, d);
  ck_assert_msg(isfinite(o.eps_mean) && o.mismatch < 1e-12, "eps %g mismatch %g", o.eps_mean,
                o.mismatch);
}
END_TEST
#endif

#ifdef PEER_BULLET
START_TEST(bullet_cube_rest) {
  check_rest(PEER_BULLET, "default");
  check_rest(PEER_BULLET, "pyramid");
}
END_TEST
#endif

// an unknown scene is refused with exit status 2 (the harness does not run a default instead)
START_TEST(unknown_scene_refused) {
  char out[1024], cmd[512];
#ifdef PEER_ODE
  snprintf(cmd, sizeof cmd, "%s --scene nothing 2>&1", PEER_ODE);
#else
  snprintf(cmd, sizeof cmd, "%s --scene nothing 2>&1", PEER_BULLET);
#endif
  ck_assert_int_eq(sh_run(cmd, out, sizeof out), 2);
  ck_assert_ptr_nonnull(strstr(out, "unknown scene 'nothing'"));
}
END_TEST

int main(void) {
  Suite* s = suite_create("peers");
  TCase* t = tcase_create("peers");
  tcase_set_timeout(t, 120);
#ifdef PEER_ODE
  tcase_add_test(t, ode_cube_rest);
  tcase_add_test(t, ode_cube_slide_stops);
#endif
#ifdef PEER_BULLET
  tcase_add_test(t, bullet_cube_rest);
#endif
  tcase_add_test(t, unknown_scene_refused);
  suite_add_tcase(s, t);
  return run_suite(s);
}
