// test_contact.c — the contact problem's warm-start memory (contact.h): contact_store remembers
// a step's ids, impulses and duals; contact_build gives every new contact with the same id
// (geom1, geom2, feature) exactly those values and the others zero impulse and a NaN dual. The
// reference is a plain linear search over the stored contacts, written here.
//
// The scene: 16 cubes resting on the ground (64 corner contacts), one step to get real
// contacts and a factored mass matrix; the contacts are then shuffled (or kept in order, as
// collision lists them from step to step), some given unknown features and some removed, as
// happens between steps.
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/contact.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "support.h"

static unsigned long long rng = 99;
static double urand(void) {
  return urand_splitmix(&rng);
}

// the sim of scenario text y after one step, which found ncon contacts (*cfg: its scenario)
static sim* stepped_once(const char* y, scn_config** cfg, int ncon) {
  sim* s = NULL;
  csim_error err;
  err_clear(&err);
  ck_assert_msg(scn_load_string(y, "test_contact.yaml", NULL, 0, cfg, &err) == CSIM_OK, "%s", err.msg);
  ck_assert_msg(sim_create(*cfg, &s, &err) == CSIM_OK, "%s", err.msg);
  sim_stepinfo info;
  ck_assert_int_eq(sim_step(s, &info, &err), CSIM_OK);
  ck_assert_int_eq(s->data.con->ncon, ncon);
  return s;
}

// reorder: the next step's contacts shuffled (binary search), else in the stored order with a
// few gone from the middle (warm_start's cursor, then the search past a changed feature)
static void warm_check(int reorder) {
  char y[8192];
  size_t k = (size_t)snprintf(y, sizeof y,
                              "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane}}\nrobots:\n");
  for (int i = 0; i < 16; i++)
    k += (size_t)snprintf(y + k, sizeof y - k,
                          "  - {urdf: robots/cube.urdf, base: free, q0: [%g, %g, 0.05, 0, 0, 0, 1]}\n",
                          0.2 * (i % 4), 0.2 * (i / 4));
  snprintf(y + k, sizeof y - k, "solver: {name: pgs, tolerance: 1.0e-8}\n");
  scn_config* cfg = NULL;
  sim* s = stepped_once(y, &cfg, 64);
  contact_data* c = s->data.con;
  int n = c->ncon;
  // remember random impulses and duals (some duals NaN: none) for these contacts, stored in
  // a shuffled order (collision lists them nearly sorted by id)
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(urand() * (i + 1));
    coll_contact t = c->con[i];
    c->con[i] = c->con[j];
    c->con[j] = t;
  }
  int id[64][3];
  double lam[64 * 3], dual[64 * 3];
  for (int i = 0; i < n; i++) {
    id[i][0] = c->con[i].geom1;
    id[i][1] = c->con[i].geom2;
    id[i][2] = c->con[i].feature;
    for (int r = 0; r < 3; r++) {
      lam[3 * i + r] = c->lambda[3 * i + r] = urand() - 0.5;
      dual[3 * i + r] = i % 5 == 0 ? NAN : urand();
    }
  }
  contact_store(c, dual);
  // the next step's contacts: shuffled (or 3 removed from the middle), 6 with a feature never
  // seen, the last 4 gone
  if (reorder) {
    for (int i = n - 1; i > 0; i--) {
      int j = (int)(urand() * (i + 1));
      coll_contact t = c->con[i];
      c->con[i] = c->con[j];
      c->con[j] = t;
    }
  } else {
    for (int i = 20; i < n - 3; i++) c->con[i] = c->con[i + 3];
  }
  for (int i = 0; i < 6; i++) c->con[7 * i].feature += 100000;
  c->ncon = n - (reorder ? 4 : 7);
  contact_build(s->model.m, s->data.d, c, &s->opt.contact, s->data.vfree);
  int matched = 0;
  for (int i = 0; i < c->ncon; i++) {
    int j = 0;
    while (j < n && !(id[j][0] == c->con[i].geom1 && id[j][1] == c->con[i].geom2 &&
                      id[j][2] == c->con[i].feature))
      j++;
    for (int r = 0; r < 3; r++) {
      if (j < n) {
        ck_assert_msg(c->lambda[3 * i + r] == lam[3 * j + r], "contact %d row %d", i, r);
        ck_assert(isnan(dual[3 * j + r]) ? isnan(c->dual0[3 * i + r])
                                         : c->dual0[3 * i + r] == dual[3 * j + r]);
      } else {
        ck_assert(c->lambda[3 * i + r] == 0 && isnan(c->dual0[3 * i + r]));
      }
    }
    matched += j < n;
  }
  // 60 (57) contacts kept, of which at most 6 have a changed feature
  ck_assert_int_ge(matched, reorder ? 54 : 51);
  ck_assert_int_eq(c->nwarm, matched);
  sim_free(s);
  scn_free(cfg);
}

START_TEST(warm_start_by_id) {
  warm_check(1);
  warm_check(0);
}
END_TEST

// two stored contacts with one id (not made by collision, whose ids are distinct within a step:
// prev_sort's merge then hands the order to its heap sort): every other contact still gets its
// own impulse, and the shared id one of the two
START_TEST(warm_start_equal_ids) {
  const char* y = "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane}}\nrobots:\n"
                  "  - {urdf: robots/cube.urdf, base: free, q0: [0, 0, 0.05, 0, 0, 0, 1]}\n"
                  "  - {urdf: robots/cube.urdf, base: free, q0: [0.2, 0, 0.05, 0, 0, 0, 1]}\n"
                  "solver: {name: pgs, tolerance: 1.0e-8}\n";
  scn_config* cfg = NULL;
  sim* s = stepped_once(y, &cfg, 8);
  contact_data* c = s->data.con;
  int n = c->ncon;
  // stored in reverse (8 stretches to merge), contact 2 given contact 5's id
  for (int i = 0; i < n / 2; i++) {
    coll_contact t = c->con[i];
    c->con[i] = c->con[n - 1 - i];
    c->con[n - 1 - i] = t;
  }
  coll_contact keep = c->con[2];
  c->con[2].geom1 = c->con[5].geom1, c->con[2].geom2 = c->con[5].geom2;
  c->con[2].feature = c->con[5].feature;
  for (int k = 0; k < 3 * n; k++) c->lambda[k] = k + 1;
  contact_store(c, NULL);
  ck_assert_int_eq(c->prev_unique, 0);
  c->con[2] = keep;  // the next step: the true ids
  contact_build(s->model.m, s->data.d, c, &s->opt.contact, s->data.vfree);
  for (int i = 0; i < n; i++) {
    if (i == 2) {
      ck_assert(c->lambda[6] == 0);  // its id was not stored
      continue;
    }
    if (i == 5) {  // either of the two stored under this id
      ck_assert(c->lambda[15] == 16 || c->lambda[15] == 7);
      continue;
    }
    for (int r = 0; r < 3; r++) ck_assert(c->lambda[3 * i + r] == 3 * i + r + 1);
  }
  sim_free(s);
  scn_free(cfg);
}
END_TEST

static Suite* contact_suite(void) {
  Suite* s = suite_create("contact");
  TCase* t = tcase_create("warm");
  tcase_add_test(t, warm_start_by_id);
  tcase_add_test(t, warm_start_equal_ids);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  return run_suite(contact_suite());
}
