// test_mujoco_filter.c — which geoms of an MJCF model may collide, csim against MuJoCo 2.2.2.
// MuJoCo's rule (collision.h): (contype1 & conaffinity2) || (contype2 & conaffinity1), not the
// same weld body, not a body and its weld parent unless that parent is the world
// (filterparent), not a <contact><exclude> pair. Oracle: MuJoCo itself, every geom's margin set
// to 1 km so that mj_collision reports a contact for every pair its filters let through; csim's
// side is its list of candidate pairs (coll_npair). Geoms are matched by their body's name and
// their order in it (csim leaves contype = conaffinity = 0 geoms out of the model, so those are
// not counted on MuJoCo's side either). Each case also states the count worked out by hand.
#include <check.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/collision/collision.h"
#include "core/sim.h"
#include "core/state.h"
#include "scene_fixture.h"
#include "support.h"

#define HUMANOID "/usr/share/mujoco/model/humanoid/humanoid.xml"
#define MAXG 128

// MuJoCo's geom index of each csim geom: the same body (by name; csim's world geoms have no
// link) and the same place among that body's geoms that collide with something
static void match_geoms(const sim_model* m, const mjModel* mm, int* map) {
  for (int g = 0; g < m->ngeom; g++) {
    int l = m->geom_link[g], k = 0;
    for (int h = 0; h < g; h++) k += m->geom_link[h] == l;
    const char* body = l < 0 ? "world" : m->link_name[l];
    int b = l < 0 ? 0 : mj_name2id(mm, mjOBJ_BODY, body);
    ck_assert_msg(b >= 0, "no MuJoCo body '%s'", body);
    map[g] = -1;
    for (int i = mm->body_geomadr[b]; i < mm->body_geomadr[b] + mm->body_geomnum[b]; i++) {
      if (mm->geom_contype[i] == 0 && mm->geom_conaffinity[i] == 0) continue;
      if (k-- == 0) {
        map[g] = i;
        break;
      }
    }
    ck_assert_msg(map[g] >= 0, "csim geom %d of body '%s' has no MuJoCo match", g, body);
    ck_assert_int_eq(mm->geom_type[map[g]] == mjGEOM_PLANE, m->geom_type[g] == MODEL_GEOM_PLANE);
  }
}

// the MJCF file at path: csim's candidate pairs equal the pairs MuJoCo collides (all geoms
// 1 km apart at most); returns their number
static int pairs_match_mujoco(const char* path) {
  char msg[1000], yaml[1024], name[512];
  mjModel* mm = mj_loadXML(path, NULL, msg, sizeof(msg));
  ck_assert_msg(mm != NULL, "MuJoCo: %s", msg);
  ck_assert_int_le(mm->ngeom, MAXG);
  for (int i = 0; i < mm->ngeom; i++) mm->geom_margin[i] = 1e3;
  mm->nconmax = 4 * MAXG * MAXG;   // room for every pair's contacts (collision only: no njmax)
  mjData* md = mj_makeData(mm);
  mj_kinematics(mm, md);
  mj_collision(mm, md);
  ck_assert_int_lt(md->ncon, mm->nconmax);
  static char mjp[MAXG][MAXG];
  memset(mjp, 0, sizeof(mjp));
  for (int c = 0; c < md->ncon; c++) {
    int a = md->contact[c].geom1, b = md->contact[c].geom2;
    mjp[a][b] = mjp[b][a] = 1;
  }
  snprintf(yaml, sizeof(yaml),
           "name: f\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\n"
           "robots:\n  - mjcf: %s\ncontact: {model: ccp, friction: 1}\n"
           "integrator: {duration: 1}\noutput: {path: out.h5}\n", path);
  fixture f = fixture_text(yaml, tmp_path(name, sizeof(name), "f.yaml"), NULL, 0);
  const sim_model* m = f.s->model.m;
  int map[MAXG], np = coll_npair(f.s->model.coll), nmj = 0;
  match_geoms(m, mm, map);
  for (int i = 0; i < m->ngeom; i++)
    for (int j = i + 1; j < m->ngeom; j++) nmj += mjp[map[i]][map[j]];
  for (int k = 0; k < np; k++) {
    int a, b;
    coll_pair_geoms(f.s->model.coll, k, &a, &b);
    ck_assert_msg(mjp[map[a]][map[b]], "csim pairs geoms %d and %d (MuJoCo %d, %d), MuJoCo does "
                  "not", a, b, map[a], map[b]);
  }
  ck_assert_int_eq(np, nmj);
  fixture_free(&f);
  mj_deleteData(md);
  mj_deleteModel(mm);
  return np;
}

static int pairs_of_text(const char* xml) {
  char path[512];
  tmp_write_text("m.xml", xml);
  return pairs_match_mujoco(tmp_path(path, sizeof(path), "m.xml"));
}

// contype/conaffinity: A (1/1), B (2/2), C (1/2) and a geom that collides with nothing on
// spheres far apart, over the world's plane (1/1): A-C (A's type, C's affinity), B-C (C's type,
// B's affinity) and the plane with A and C; A-B and the plane with B never
START_TEST(contype_conaffinity) {
  static const char* xml =
      "<mujoco><worldbody><geom type='plane' size='5 5 .1'/>\n"
      "<body name='A' pos='0 0 1'><freejoint/><geom type='sphere' size='.1'/></body>\n"
      "<body name='B' pos='1 0 1'><freejoint/><geom type='sphere' size='.1' contype='2' "
      "conaffinity='2'/></body>\n"
      "<body name='C' pos='2 0 1'><freejoint/><geom type='sphere' size='.1' contype='1' "
      "conaffinity='2'/><geom type='sphere' size='.1' pos='0 0 .3' contype='0' "
      "conaffinity='0'/></body>\n"
      "</worldbody></mujoco>\n";
  ck_assert_int_eq(pairs_of_text(xml), 4);
}
END_TEST

// MuJoCo's parent filter: P (free) <- C (hinge) <- G (hinge); W welded to C; D with two hinges
// off its origin (a chain of frame links in csim) under P; H hinged to the world and S welded to
// it. Filtered: P-C, C-G, C-W (one weld body), P-W (W's weld body C has parent P), W-G (G's
// weld parent is C), P-D, and S with the plane (both the world). Kept: P-G, C-D, G-D, W-D, the
// plane with P, C, G, W, D, H (6), H with S (its parent is the world: spared), H with P, C, G,
// W, D (5), S with P, C, G, W, D (5): 1 + 3 + 6 + 1 + 5 + 5 = 21
#define TREE_WORLD \
  "<worldbody><geom type='plane' size='5 5 .1'/>\n" \
  "<body name='P' pos='0 0 1'><freejoint/><geom type='sphere' size='.1'/>\n" \
  "  <body name='C' pos='0 0 .3'><joint axis='0 1 0'/><geom type='capsule' size='.05 .1'/>\n" \
  "    <body name='G' pos='0 0 .3'><joint axis='1 0 0'/><geom type='box' size='.1 .1 .1'/>" \
  "</body>\n" \
  "    <body name='W' pos='.3 0 0'><geom type='sphere' size='.05'/></body>\n" \
  "  </body>\n" \
  "  <body name='D' pos='0 .5 0'><joint axis='0 1 0' pos='0 0 .1'/><joint axis='1 0 0' " \
  "pos='0 .1 0'/><geom type='sphere' size='.05'/></body>\n" \
  "</body>\n" \
  "<body name='H' pos='3 0 1'><joint axis='0 1 0'/><geom type='sphere' size='.1'/></body>\n" \
  "<body name='S' pos='3 1 1'><geom type='box' size='.1 .1 .1'/></body>\n" \
  "</worldbody>\n"

START_TEST(parent_filter) {
  ck_assert_int_eq(pairs_of_text("<mujoco>" TREE_WORLD "</mujoco>\n"), 21);
}
END_TEST

// <contact><exclude>: the same scene less the two pairs named, P-G and H-S: 19
START_TEST(exclude_pairs) {
  ck_assert_int_eq(pairs_of_text("<mujoco>" TREE_WORLD "<contact><exclude body1='G' body2='P'/>"
                                 "<exclude body1='H' body2='S'/></contact></mujoco>\n"), 19);
}
END_TEST

// humanoid.xml: every geom 1/1, so the pairs are all but those of one weld body and of a body
// and its weld parent (the head and the hands are welded to the torso and the lower arms). By
// hand: 20 geoms, 190 pairs; one weld body: the torso's 3 geoms 3, each foot's 2 and each lower
// arm with its hand 4; weld parents: lower waist-torso 3, pelvis-lower waist 1, thighs-pelvis 2,
// shins-thighs 2, feet-shins 4, upper arms-torso 6, lower arms-upper arms 4: 190 - 29 = 161
START_TEST(humanoid_pairs) {
  if (!file_exists(HUMANOID)) {
    fprintf(stderr, "skipped: %s not installed (make deps installs libmujoco-samples)\n", HUMANOID);
    return;
  }
  int np = pairs_match_mujoco(HUMANOID);
  ck_assert_int_eq(np, 161);
  fprintf(stderr, "humanoid.xml: %d candidate geom pairs in csim and in MuJoCo 2.2.2\n", np);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mujoco_filter");
  TCase* tc = tcase_create("core");
  tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, contype_conaffinity);
  tcase_add_test(tc, parent_filter);
  tcase_add_test(tc, exclude_pairs);
  tcase_add_test(tc, humanoid_pairs);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
