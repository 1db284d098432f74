// test_patch.c — collision's patch reduction (contact.patch_angle, contact.patch_max) in whole
// runs: a resting box keeps its 4 corners and its penetration, a tilted box settling flat keeps
// its near corners, Solo-12 stands on one contact per foot; the contacts it removes are counted
// (sim_stepinfo nreduced, nreduced_touch: /contacts/reduced) against closed forms and against
// collision with the reduction off at the same state. The per-pair rules are checked against
// closed forms in test_collision.c.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kinematics.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "scene_fixture.h"
#include "support.h"

static sim_stepinfo step(fixture* f) {
  csim_error err;
  err_clear(&err);
  sim_stepinfo info;
  memset(&info, 0, sizeof info);
  csim_status st = sim_step(f->s, &info, &err);
  ck_assert_msg(st == CSIM_OK, "sim_step %ld: %s", f->s->data.step, err.msg);
  return info;
}

// a 10 cm, 1 kg cube (robots/cube.urdf) on the plane, default margin (1 mm) and patch reduction
static void cube_text(char* buf, size_t n, const char* q0) {
  snprintf(buf, n,
           "name: test_patch\n"
           "world: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
           "robots:\n"
           "  - {urdf: robots/cube.urdf, base: free, q0: %s}\n"
           "contact: {model: ncp, friction: 0.5, baumgarte: 0}\n"
           "solver: {name: pgs, tolerance: 1.0e-12, max_iterations: 10000, warm_start: true}\n"
           "integrator: {dt: 1.0e-3, duration: 1}\n",
           q0);
}

// the cube tilted by a rad about x, resting on its low edge (centre at 0.05 (cos a + sin a))
static void tilted_cube_text(char* buf, size_t n, double a) {
  char q0[256];
  snprintf(q0, sizeof q0, "[0, 0, %.17g, %.17g, 0, 0, %.17g]", 0.05 * (cos(a) + sin(a)),
           sin(a / 2), cos(a / 2));
  cube_text(buf, n, q0);
}

// a cube pressed 0.1 mm into the plane (no Baumgarte term): with the reduction it keeps its 4
// corners in every step, its penetration stays in (0, 1e-4] m (nothing presses it deeper; it
// eases out by ~1e-8 m per step, the same with the reduction off) and equals the unreduced
// run's to 1e-12 m at every step (the same 4 contacts, so the same problem)
START_TEST(box_rests_same_penetration) {
  char y[1024];
  cube_text(y, sizeof y, "[0, 0, 0.0499, 0, 0, 0, 1]");
  const char* off[] = {"contact.patch_angle=0"};
  fixture f = fixture_text(y, "test_patch.yaml", NULL, 0), g = fixture_text(y, "test_patch.yaml", off, 1);
  for (int k = 0; k < 1000; k++) {
    step(&f);
    step(&g);
    ck_assert_int_eq(f.s->data.con->ncon, 4);
    ck_assert_int_eq(g.s->data.con->ncon, 4);
    for (int i = 0; i < 4; i++) {
      double d = f.s->data.con->con[i].depth;
      ck_assert_msg(d > 0 && d <= 1e-4 + 1e-15, "step %d contact %d depth %.12g", k, i, d);
      ck_assert_msg(fabs(d - g.s->data.con->con[i].depth) < 1e-12, "step %d contact %d depth %.12g vs %.12g",
                    k, i, d, g.s->data.con->con[i].depth);
    }
  }
  fixture_free(&f);
  fixture_free(&g);
}
END_TEST

// a cube tilted by 0.003 rad about x on its low edge: the high corners are 0.3 mm up at slope
// 0.003 < tan(0.05), so they stay as near contacts (4 per step) and the cube settles flat:
// tilt below 1e-6 rad and centre height 0.05 m within 1 mm after 0.5 s
START_TEST(tilted_box_keeps_near_corners) {
  char y[1024];
  tilted_cube_text(y, sizeof y, 0.003);
  fixture f = fixture_text(y, "test_patch.yaml", NULL, 0);
  for (int k = 0; k < 500; k++) {
    step(&f);
    ck_assert_msg(f.s->data.con->ncon == 4, "step %d: %d contacts", k, f.s->data.con->ncon);
  }
  const double* q = f.s->data.d->q;
  double tilt = 2 * asin(sqrt(q[3] * q[3] + q[4] * q[4]));
  ck_assert_msg(tilt < 1e-6, "tilt %g rad", tilt);
  ck_assert_msg(fabs(q[2] - 0.05) < 1e-3, "z = %.12g", q[2]);
  fixture_free(&f);
  // with an angle of 0.002 rad < 0.003 the near corners go: the low edge's 2 in the first step
  const char* tight[] = {"contact.patch_angle=0.002"};
  f = fixture_text(y, "test_patch.yaml", tight, 1);
  step(&f);
  ck_assert_int_eq(f.s->data.con->ncon, 2);
  fixture_free(&f);
}
END_TEST

// Solo-12 standing (scenarios/solo12_stand.yaml) for 0.5 s: the rounded mesh feet touch at one
// vertex each; with the reduction every step from 50 ms on has 4 contacts (16 without: the 3
// near vertices per foot 0.4-1 mm up at slopes 0.1-0.2; while the feet sink in, up to 3.6 mm in
// the first 50 ms, a foot may have 2 touching vertices, so at most 8 before), the base stays within 1 cm of its
// initial height 0.235 m, and it matches the unreduced run to 1e-9 m at every step (the dropped
// near contacts carry no force: the same problem up to rows of zeros)
START_TEST(solo12_stands_one_contact_per_foot) {
  // one solver for both (solver.name auto may hand a stalled island to ADMM in one run only)
  const char* on[] = {"integrator.duration=0.5", "solver.name=pgs"};
  const char* off[] = {"integrator.duration=0.5", "contact.patch_angle=0", "solver.name=pgs"};
  fixture a = fixture_file("scenarios/solo12_stand.yaml", on, 2);
  fixture b = fixture_file("scenarios/solo12_stand.yaml", off, 3);
  for (int k = 0; k < 500; k++) {
    step(&a);
    step(&b);
    ck_assert_msg(b.s->data.con->ncon == 16, "step %d: %d contacts unreduced", k, b.s->data.con->ncon);
    ck_assert_msg(a.s->data.con->ncon == 4 || (k < 50 && a.s->data.con->ncon <= 8), "step %d: %d contacts", k,
                  a.s->data.con->ncon);
    double z = a.s->data.d->q[2];
    ck_assert_msg(fabs(z - 0.235) < 1e-2, "step %d: base height %.6f", k, z);
    for (int i = 0; i < 3; i++)
      ck_assert_msg(fabs(a.s->data.d->q[i] - b.s->data.d->q[i]) < 1e-9, "step %d: base[%d] %.12g vs %.12g", k,
                    i, a.s->data.d->q[i], b.s->data.d->q[i]);
  }
  fixture_free(&a);
  fixture_free(&b);
}
END_TEST

//---------------------------------- counting what it removes ----------------------------------

// contacts with depth >= 0 among con[0..n)
static int touching(const coll_contact* con, int n) {
  int t = 0;
  for (int i = 0; i < n; i++) t += con[i].depth >= 0;
  return t;
}

// the contacts collision finds at the current state with the reduction off (the sim's own
// collision model, its patch setting switched off and back: the same pairs and poses the step
// will see), and in *touch those touching
static int unreduced(fixture* f, int* touch) {
  static coll_contact buf[256];
  sim* s = f->s;
  kin_forward(s->model.m, s->data.d);
  coll_model* cm = (coll_model*)s->model.coll;  // the model's patch setting, off and back
  coll_set_patch(cm, 0, 4);
  int n = 0;
  ck_assert_int_eq(coll_detect(cm, s->data.coll, s->model.m, s->data.d->geom_xpos, s->data.d->geom_xmat, buf, 256, &n), 0);
  coll_set_patch(cm, f->cfg->patch_angle, f->cfg->patch_max);
  *touch = touching(buf, n);
  return n;
}

// steps f nsteps times; at each step the count of removed contacts equals the unreduced count at
// the state the step's contacts come from minus the contacts kept (and so for the touching ones):
// the state the step starts from, or with at_end the one it ends in (implicit Euler records the
// end-of-step contacts, sim_compliant.c); returns the sum of the removed contacts
static long check_counts(fixture* f, int nsteps, int at_end) {
  long sum = 0;
  for (int k = 0; k < nsteps; k++) {
    int t0 = 0, n0 = at_end ? 0 : unreduced(f, &t0);
    sim_stepinfo in = step(f);
    if (at_end) n0 = unreduced(f, &t0);
    int kept_touch = touching(f->s->data.con->con, in.ncon);
    ck_assert_msg(in.nreduced == n0 - in.ncon, "step %d: %d recorded removed, %d found - %d kept", k,
                  in.nreduced, n0, in.ncon);
    ck_assert_msg(in.nreduced_touch == t0 - kept_touch,
                  "step %d: %d touching recorded removed, %d touching found - %d kept", k,
                  in.nreduced_touch, t0, kept_touch);
    sum += in.nreduced;
  }
  return sum;
}

// the cube pressed 0.1 mm into the plane finds its 4 bottom corners, all touching (the top ones
// are 10 cm up, beyond the 1 mm margin): with contact.patch_max 3 one touching corner is removed
// at every step (on 3 corners it stays flat: the corners keep depth in (0, 1e-4]); with the
// reduction off, or with 4 allowed, none is, and the count is 0
START_TEST(reduced_count_box_closed_form) {
  char y[1024];
  cube_text(y, sizeof y, "[0, 0, 0.0499, 0, 0, 0, 1]");
  const char* three[] = {"contact.patch_max=3"};
  const char* off[] = {"contact.patch_angle=0"};
  fixture f = fixture_text(y, "test_patch.yaml", three, 1), g = fixture_text(y, "test_patch.yaml", off, 1), h = fixture_text(y, "test_patch.yaml", NULL, 0);
  for (int k = 0; k < 300; k++) {
    int t0 = 0;
    ck_assert_int_eq(unreduced(&f, &t0), 4);
    ck_assert_int_eq(t0, 4);
    sim_stepinfo a = step(&f), b = step(&g), c = step(&h);
    ck_assert_msg(a.ncon == 3 && a.nreduced == 1 && a.nreduced_touch == 1,
                  "step %d: %d kept, %d removed (%d touching)", k, a.ncon, a.nreduced,
                  a.nreduced_touch);
    ck_assert_msg(b.ncon == 4 && b.nreduced == 0 && b.nreduced_touch == 0, "step %d: off: %d, %d",
                  k, b.ncon, b.nreduced);
    ck_assert_msg(c.ncon == 4 && c.nreduced == 0 && c.nreduced_touch == 0, "step %d: max 4: %d, %d",
                  k, c.ncon, c.nreduced);
  }
  fixture_free(&f);
  fixture_free(&g);
  fixture_free(&h);
}
END_TEST

// the cube tilted by 0.003 rad on its low edge with contact.patch_angle 0.002: its 2 high corners
// are near contacts 0.3 mm up at slope 0.003 > tan(0.002), removed in the first step (2 removed,
// none touching); from then on the count is the unreduced count minus the kept one, as it
// settles; the same holds for the compliant laws (their collision is the same call), with the
// implicit Euler step's end-of-step contacts too
START_TEST(reduced_count_tilted_near_corners) {
  char y[1024];
  tilted_cube_text(y, sizeof y, 0.003);
  const char* tight[] = {"contact.patch_angle=0.002"};
  fixture f = fixture_text(y, "test_patch.yaml", tight, 1);
  sim_stepinfo in = step(&f);
  ck_assert_int_eq(in.ncon, 2);
  ck_assert_int_eq(in.nreduced, 2);
  ck_assert_int_eq(in.nreduced_touch, 0);
  check_counts(&f, 300, 0);
  fixture_free(&f);
  const char* comp[][4] = {
      {"contact.patch_angle=0.002", "contact.model=hunt_crossley", "solver.name=none",
       "integrator.scheme=tamsi"},
      {"contact.patch_angle=0.002", "contact.model=hunt_crossley", "solver.name=none",
       "integrator.scheme=implicit_euler"}};
  for (int k = 0; k < 2; k++) {
    f = fixture_text(y, "test_patch.yaml", comp[k], 4);
    ck_assert_msg(check_counts(&f, 100, k == 1) >= 2, "%s: nothing removed", comp[k][3]);
    fixture_free(&f);
  }
}
END_TEST

// Solo-12 standing 0.3 s: at every step the recorded count is the 16 unreduced mesh-vertex
// contacts at that state minus the kept ones (12 per step once each foot stands on one vertex);
// with the reduction off it is 0 at every step
START_TEST(reduced_count_solo12) {
  const char* on[] = {"integrator.duration=0.3"};
  const char* off[] = {"integrator.duration=0.3", "contact.patch_angle=0"};
  fixture a = fixture_file("scenarios/solo12_stand.yaml", on, 1);
  ck_assert_int_ge(check_counts(&a, 300, 0), 12 * 250);
  fixture_free(&a);
  fixture b = fixture_file("scenarios/solo12_stand.yaml", off, 2);
  for (int k = 0; k < 300; k++) {
    sim_stepinfo in = step(&b);
    ck_assert_msg(in.ncon == 16 && in.nreduced == 0 && in.nreduced_touch == 0,
                  "step %d: %d contacts, %d removed", k, in.ncon, in.nreduced);
  }
  fixture_free(&b);
}
END_TEST

static Suite* patch_suite(void) {
  Suite* s = suite_create("patch");
  TCase* t = tcase_create("runs");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, box_rests_same_penetration);
  tcase_add_test(t, tilted_box_keeps_near_corners);
  tcase_add_test(t, solo12_stands_one_contact_per_foot);
  tcase_add_test(t, reduced_count_box_closed_form);
  tcase_add_test(t, reduced_count_tilted_near_corners);
  tcase_add_test(t, reduced_count_solo12);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return run_suite(patch_suite());
}
