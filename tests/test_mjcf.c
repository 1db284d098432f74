// test_mjcf.c — the MJCF reader (io/mjcf.h): defaults and childclass, every orientation form
// against hand-computed quaternions, fromto, includes (memory image and disk), contact masks,
// exclude, condim, masses and inertias of primitives against closed forms at density 1000, the
// unsupported features refused by model_create, and bad input with file:line:column messages.
// (test_mujoco_mjcf.c compares MuJoCo's own model files with mj_loadXML.)
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/kinematics.h"
#include "core/material.h"
#include "core/model.h"
#include "core/sim.h"
#include "core/state.h"
#include "io/mjcf.h"
#include "io/model_build.h"
#include "scene_fixture.h"
#include "support.h"

static const double S45 = 0.70710678118654752440;

// read text (files: a memory image, may be NULL); fails the test on error
static urdf_robot* load(const char* text, const mjcf_file* files, int nfiles) {
  mjcf_options o = {files, nfiles};
  urdf_robot* r = NULL;
  csim_error e;
  err_clear(&e);
  csim_status st = mjcf_load_string(text, "t.xml", NULL, files ? &o : NULL, &r, &e);
  ck_assert_msg(st == CSIM_OK, "load failed: %s:%d:%d %s", e.file, e.line, e.column, e.msg);
  return r;
}

// the error of reading text
static csim_error load_err(const char* text, const mjcf_file* files, int nfiles) {
  mjcf_options o = {files, nfiles};
  urdf_robot* r = NULL;
  csim_error e;
  err_clear(&e);
  ck_assert_int_eq(mjcf_load_string(text, "t.xml", NULL, files ? &o : NULL, &r, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_null(r);
  return e;
}

// the model of robot r alone (fixed base at the origin), the status of model_create
static csim_status build(const urdf_robot* r, model_base_type base, sim_model** m, csim_error* e) {
  model_world_spec w = {{0, 0, -9.81}, 0, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec s;
  memset(&s, 0, sizeof(s));
  s.urdf = r;
  s.base = base;
  s.base_quat[3] = 1;
  *m = NULL;
  return model_create(&w, &s, 1, m, e);
}

// joint whose child is link `name`
static const urdf_joint* joint_to(const urdf_robot* r, const char* name) {
  int l = urdf_find_link(r, name);
  ck_assert_msg(l >= 0, "no link %s", name);
  return &r->joints[r->link_parent_joint[l]];
}

static void quat_eq(const double* q, double x, double y, double z, double w) {
  double e = fmin(fabs(q[0] - x) + fabs(q[1] - y) + fabs(q[2] - z) + fabs(q[3] - w),
                  fabs(q[0] + x) + fabs(q[1] + y) + fabs(q[2] + z) + fabs(q[3] + w));
  ck_assert_msg(e < 1e-12, "quat [%g %g %g %g], expected [%g %g %g %g]", q[0], q[1], q[2], q[3],
                x, y, z, w);
}

// every orientation form (degrees, eulerseq xyz) against hand-computed quaternions [x y z w]
START_TEST(orientations_degree) {
  urdf_robot* r = load(
      "<mujoco><worldbody>"
      "<body name='q' quat='0 1 0 0'/>"
      "<body name='aa' axisangle='0 0 2 90'/>"
      "<body name='ex' euler='90 0 0'/>"
      "<body name='exy' euler='90 90 0'/>"
      "<body name='xy' xyaxes='0 1 0 -1 0 0'/>"
      "<body name='zx' zaxis='1 0 0'/>"
      "<body name='zm' zaxis='0 0 -1'/>"
      "</worldbody></mujoco>", NULL, 0);
  quat_eq(joint_to(r, "q")->quat, 1, 0, 0, 0);
  quat_eq(joint_to(r, "aa")->quat, 0, 0, S45, S45);
  quat_eq(joint_to(r, "ex")->quat, S45, 0, 0, S45);
  // rotating axes: qx(90) qy(90) = (w .5; v (.5, .5, .5))
  quat_eq(joint_to(r, "exy")->quat, 0.5, 0.5, 0.5, 0.5);
  quat_eq(joint_to(r, "xy")->quat, 0, 0, S45, S45);
  quat_eq(joint_to(r, "zx")->quat, 0, S45, 0, S45);
  quat_eq(joint_to(r, "zm")->quat, 1, 0, 0, 0);
  urdf_free(r);
  // fixed axes (upper case): qy(90) qx(90) = (w .5; v (.5, .5, -.5)); radians
  r = load("<mujoco><compiler angle='radian' eulerseq='XYZ'/><worldbody>"
           "<body name='e' euler='1.5707963267948966 1.5707963267948966 0'/>"
           "<body name='a' axisangle='1 0 0 3.141592653589793'/>"
           "</worldbody></mujoco>", NULL, 0);
  quat_eq(joint_to(r, "e")->quat, 0.5, 0.5, -0.5, 0.5);
  quat_eq(joint_to(r, "a")->quat, 1, 0, 0, 0);
  urdf_free(r);
}
END_TEST

// defaults: inheritance, childclass, class attribute, and a child class made before main gains an
// attribute does not see it (MuJoCo copies the parent class when the child is created)
START_TEST(defaults_childclass) {
  urdf_robot* r = load(
      "<mujoco><default><geom size='.3'/>"
      "  <default class='a'><geom type='box' size='.1 .2 .3'/><joint damping='2'/>"
      "    <default class='b'><joint damping='3' axis='1 0 0'/></default></default></default>"
      "<default><geom contype='2' conaffinity='2'/></default>"
      "<worldbody><body name='p' childclass='a'><joint name='j1'/><geom name='g1'/>"
      "  <body name='c'><joint name='j2' class='b'/><geom name='g2' type='sphere' class='main'/></body>"
      "</body></worldbody></mujoco>", NULL, 0);
  const urdf_link* P = &r->links[urdf_find_link(r, "p")];
  ck_assert_int_eq(P->geoms[0].type, URDF_GEOM_BOX);
  ck_assert_double_eq_tol(P->geoms[0].size[1], 0.4, 1e-15);          // full extent
  ck_assert_int_eq(P->geoms[0].contype, 1);   // class a was made before main's contype
  ck_assert_double_eq(r->joints[urdf_find_joint(r, "j1")].damping, 2);
  const urdf_joint* J2 = &r->joints[urdf_find_joint(r, "j2")];
  ck_assert_double_eq(J2->damping, 3);
  ck_assert_double_eq(J2->axis[0], 1);
  const urdf_link* C = &r->links[urdf_find_link(r, "c")];
  ck_assert_int_eq(C->geoms[0].type, URDF_GEOM_SPHERE);
  ck_assert_double_eq(C->geoms[0].size[0], 0.3);
  ck_assert_int_eq(C->geoms[0].contype, 2);   // main as it is at the end
  // damping is simulated (model.h dof_damping): not listed as unsupported
  for (int k = 0; k < r->nunsupported; k++)
    ck_assert_ptr_null(strstr(r->unsupported[k].msg, "damping"));
  urdf_free(r);
}
END_TEST

// fromto: midpoint, +z along the segment, half length; capsule and box
START_TEST(fromto_geoms) {
  urdf_robot* r = load(
      "<mujoco><worldbody><body name='b'>"
      "<geom type='capsule' fromto='0 0 0 0 0 2' size='.1'/>"
      "<geom type='box' fromto='-1 0 0 1 0 0' size='.1 .2'/>"
      "</body></worldbody></mujoco>", NULL, 0);
  const urdf_link* B = &r->links[urdf_find_link(r, "b")];
  ck_assert_double_eq_tol(B->geoms[0].xyz[2], 1, 1e-15);
  quat_eq(B->geoms[0].quat, 0, 0, 0, 1);
  ck_assert_double_eq_tol(B->geoms[0].size[1], 2, 1e-15);
  ck_assert_double_eq_tol(B->geoms[1].xyz[0], 0, 1e-15);
  quat_eq(B->geoms[1].quat, 0, S45, 0, S45);
  ck_assert_double_eq_tol(B->geoms[1].size[2], 2, 1e-15);
  urdf_free(r);
}
END_TEST

// masses and inertias of primitives at density 1000 (closed forms written out here; the
// capsule through its hemispheres' own centroidal moment 83/320 m r^2)
START_TEST(primitive_masses) {
  const char* kinds[] = {"type='sphere' size='.1'", "type='box' size='.1 .2 .3'",
                         "type='cylinder' size='.1 .2'", "type='capsule' size='.1 .2'"};
  for (int k = 0; k < 4; k++) {
    char text[400];
    snprintf(text, sizeof(text), "<mujoco><worldbody><body name='b'><freejoint/><geom %s/>"
             "</body></worldbody></mujoco>", kinds[k]);
    urdf_robot* r = load(text, NULL, 0);
    const urdf_link* B = &r->links[urdf_find_link(r, "b")];
    double rr = 0.1, h = 0.4, m, Ixx, Izz;
    if (k == 0) m = 1000 * 4.0 / 3 * M_PI * 1e-3, Ixx = Izz = 0.4 * m * rr * rr;
    else if (k == 1) m = 1000 * 0.2 * 0.4 * 0.6, Ixx = m * (0.16 + 0.36) / 12, Izz = m * (0.04 + 0.16) / 12;
    else if (k == 2) m = 1000 * M_PI * rr * rr * h, Ixx = m * (3 * rr * rr + h * h) / 12, Izz = m * rr * rr / 2;
    else {
      double mc = 1000 * M_PI * rr * rr * h, mh = 1000 * 2.0 / 3 * M_PI * rr * rr * rr;
      double d = h / 2 + 3 * rr / 8;
      m = mc + 2 * mh;
      Ixx = mc * (3 * rr * rr + h * h) / 12 + 2 * (83.0 / 320 * mh * rr * rr + mh * d * d);
      Izz = mc * rr * rr / 2 + 2 * 0.4 * mh * rr * rr;
    }
    ck_assert_double_eq_tol(B->mass, m, 1e-12 * m);
    ck_assert_double_eq_tol(B->inertia[0], Ixx, 1e-12 * Ixx);
    ck_assert_double_eq_tol(B->inertia[5], Izz, 1e-12 * Izz);
    urdf_free(r);
  }
}
END_TEST

// includes: a memory image (defaults from the included file apply), and files on disk relative
// to the including file (sub/a.xml includes b.xml from sub/)
START_TEST(includes) {
  mjcf_file f[1] = {{"part.xml", "<mujoco><default><geom density='500'/></default></mujoco>"}};
  urdf_robot* r = load("<mujoco><include file='part.xml'/><worldbody><body name='b'>"
                       "<geom type='box' size='.5 .5 .5'/></body></worldbody></mujoco>", f, 1);
  ck_assert_double_eq_tol(r->links[urdf_find_link(r, "b")].mass, 500, 1e-12);
  urdf_free(r);
  char dir[256], p[512];
  tmp_dir(dir, sizeof(dir), "mjcf");
  snprintf(p, sizeof(p), "mkdir -p %s/sub", dir);
  ck_assert_int_eq(system(p), 0);
  snprintf(p, sizeof(p), "%s/main.xml", dir);
  write_text(p, "<mujoco>\n<include file='sub/a.xml'/>\n</mujoco>\n");
  snprintf(p, sizeof(p), "%s/sub/a.xml", dir);
  write_text(p, "<mujoco><include file='b.xml'/></mujoco>");
  snprintf(p, sizeof(p), "%s/sub/b.xml", dir);
  write_text(p, "<mujoco><option timestep='0.004'/></mujoco>");
  snprintf(p, sizeof(p), "%s/main.xml", dir);
  csim_error e;
  ck_assert_msg(mjcf_load(p, NULL, &r, &e) == CSIM_OK, "%s:%d:%d %s", e.file, e.line, e.column, e.msg);
  ck_assert_int_eq(r->has_timestep, 1);
  ck_assert_double_eq(r->timestep, 0.004);
  urdf_free(r);
  // from a string, the main file's includes resolve from basedir
  snprintf(p, sizeof(p), "%s/sub", dir);
  ck_assert_int_eq(mjcf_load_string("<mujoco><include file='b.xml'/></mujoco>", "s.xml", p, NULL,
                                    &r, &e), CSIM_OK);
  ck_assert_double_eq(r->timestep, 0.004);
  urdf_free(r);
  // a missing file names the include's position
  snprintf(p, sizeof(p), "%s/sub/b.xml", dir);
  remove(p);
  snprintf(p, sizeof(p), "%s/main.xml", dir);
  ck_assert_int_eq(mjcf_load(p, NULL, &r, &e), CSIM_ERR_INPUT);
  ck_assert_ptr_nonnull(strstr(e.file, "sub/a.xml"));
  ck_assert_int_eq(e.line, 1);
  ck_assert_int_eq(e.column, 18);
  ck_assert_ptr_nonnull(strstr(e.msg, "b.xml"));
  tmp_remove(dir);
}
END_TEST

// contact masks: 0/0 collides with nothing, others reach the model (the pairs they split:
// test_mujoco_filter.c); <exclude> is recorded as a link pair
START_TEST(contact_masks_condim_exclude) {
  urdf_robot* r = load(
      "<mujoco><worldbody><geom type='plane' size='1 1 1'/>"
      "<body name='a' pos='0 0 1'><freejoint/><geom size='.1' contype='0' conaffinity='0'/>"
      "<geom size='.1' condim='3'/></body>"
      "<body name='b' pos='1 0 1'><freejoint/><geom size='.1' contype='6' conaffinity='5'/>"
      "</body></worldbody>"
      "<contact><exclude body1='a' body2='b'/></contact></mujoco>", NULL, 0);
  ck_assert_int_eq(r->nunsupported, 0);
  int a = urdf_find_link(r, "a");
  ck_assert_int_eq(r->links[a].geoms[0].nocollide, 1);
  ck_assert_int_eq(r->nexclude, 1);
  ck_assert_int_eq(r->exclude[0], a);
  ck_assert_int_eq(r->exclude[1], urdf_find_link(r, "b"));
  // the model: world plane (link -1), a's one colliding sphere, b's sphere; masses kept
  sim_model* m = NULL;
  csim_error e;
  ck_assert_int_eq(build(r, MODEL_BASE_FIXED, &m, &e), CSIM_OK);
  ck_assert_int_eq(m->ngeom, 3);
  ck_assert_int_eq(m->geom_type[0], MODEL_GEOM_PLANE);
  ck_assert_int_eq(m->geom_link[0], -1);
  ck_assert_int_eq(m->nv, 12);
  ck_assert_double_eq_tol(m->body_mass[1], 2 * 1000 * 4.0 / 3 * M_PI * 1e-3, 1e-9);
  ck_assert(m->geom_contype[1] == 1 && m->geom_conaffinity[1] == 1);
  ck_assert(m->geom_contype[2] == 6 && m->geom_conaffinity[2] == 5);
  model_free(m);
  // an MJCF world is a fixed base
  ck_assert_int_eq(build(r, MODEL_BASE_FREE, &m, &e), CSIM_ERR_INPUT);
  urdf_free(r);
  // condim 4 and 6 are simulated (test_condim.c); these are not
  const char* refused[] = {
      "<geom size='.1' gap='.01'/>", "<joint ref='.1'/><geom size='.1'/>",
      "<joint springdamper='.1 1'/><geom size='.1'/>", "<geom size='.1' margin='.01'/>"};
  for (int k = 0; k < 4; k++) {
    char text[600];
    snprintf(text, sizeof(text), "<mujoco><worldbody><body pos='0 0 1'>%s%s</body></worldbody>"
             "</mujoco>", k == 1 || k == 2 ? "" : "<freejoint/>", refused[k]);
    r = load(text, NULL, 0);
    ck_assert_int_ge(r->nunsupported, 1);
    ck_assert_int_eq(build(r, MODEL_BASE_FIXED, &m, &e), CSIM_ERR_INPUT);
    ck_assert_msg(strstr(e.msg, "not supported yet (issue 25)") && e.line == 1 && e.column > 1,
                  "case %d: %d:%d %s", k, e.line, e.column, e.msg);
    urdf_free(r);
  }
}
END_TEST

// a body with two hinges: a chain through a massless frame at the first anchor
START_TEST(joint_chain) {
  urdf_robot* r = load(
      "<mujoco><worldbody><body name='b' pos='0 0 1'>"
      "<joint name='h1' pos='0 0 .5' axis='1 0 0'/><joint name='h2' pos='0 0 .2' axis='0 1 0'/>"
      "<geom size='.1'/></body></worldbody></mujoco>", NULL, 0);
  const urdf_joint* h1 = &r->joints[urdf_find_joint(r, "h1")];
  const urdf_joint* h2 = &r->joints[urdf_find_joint(r, "h2")];
  ck_assert_double_eq_tol(h1->xyz[2], 1.5, 1e-15);
  ck_assert_double_eq_tol(h2->xyz[2], -0.3, 1e-15);
  ck_assert_int_eq(h2->parent, h1->child);
  ck_assert_double_eq_tol(joint_to(r, "b")->xyz[2], -0.2, 1e-15);
  sim_model* m = NULL;
  csim_error e;
  ck_assert_int_eq(build(r, MODEL_BASE_FIXED, &m, &e), CSIM_OK);
  ck_assert_int_eq(m->nv, 2);
  model_free(m);
  urdf_free(r);
}
END_TEST

// <option>: timestep and gravity kept; fluid density and <flag> switches recorded as unsupported;
// visual elements counted for the note
START_TEST(option_fields) {
  urdf_robot* r = load("<mujoco><option timestep='0.01' gravity='0 0 -1' density='1.2' "
                       "integrator='RK4'><flag contact='disable'/></option><visual/>"
                       "<worldbody><light/><camera/></worldbody></mujoco>", NULL, 0);
  ck_assert_double_eq(r->timestep, 0.01);
  ck_assert_double_eq(r->gravity[2], -1);
  ck_assert_int_eq(r->nunsupported, 2);
  ck_assert_ptr_nonnull(strstr(r->unsupported[0].msg, "density 1.2"));
  ck_assert_ptr_nonnull(strstr(r->unsupported[1].msg, "flag contact=\"disable\""));
  ck_assert_int_eq(r->nvisual, 3);
  urdf_free(r);
}
END_TEST

// bad input: the message names file:line:column and what was expected
typedef struct {
  const char* text;
  int line, column;
  const char* needle;
} bad_case;

static const bad_case kBad[] = {
    {"<mujoco>\n  <foo/>\n</mujoco>", 2, 3, "unknown element <foo>"},
    {"<mujoco><worldbody>\n<geom size='a'/></worldbody></mujoco>", 2, 7, "not a finite decimal"},
    {"<mujoco><worldbody>\n<geom type='blob'/></worldbody></mujoco>", 2, 7, "not one of"},
    {"<mujoco><worldbody>\n<geom type='capsule' size='.1 0'/></worldbody></mujoco>", 2, 22, "zero or negative size"},
    {"<mujoco><worldbody>\n<geom size='0'/></worldbody></mujoco>", 2, 7, "zero or negative size"},
    {"<mujoco>\n <include file='nope.xml'/></mujoco>", 2, 11, "not in the model's file set"},
    {"<mujoco>\n <include file='part.xml'/></mujoco>", 1, 18, "cyclic include"},
    {"<mujoco><compiler\n coordinate='global'/></mujoco>", 2, 2, "global"},
    {"<mujoco><contact>\n <pair geom1='a' geom2='b'/></contact></mujoco>", 2, 8, "<pair>: no geom named 'a'"},
    {"<mujoco><worldbody><geom name='g' size='1'/></worldbody><contact>\n <pair geom1='g' "
     "geom2='g'/></contact></mujoco>", 2, 2, "geom1 and geom2 are the same geom"},
    {"<mujoco><worldbody><geom name='g' size='1'/><body><geom name='h' size='1'/></body>"
     "</worldbody><contact>\n <pair geom1='g' geom2='h' condim='2'/></contact></mujoco>", 2, 2,
     "<pair>: condim 2 (expected 1, 3, 4 or 6)"},
    {"<mujoco><worldbody><geom name='g' size='1'/><body><geom name='h' size='1'/></body>"
     "</worldbody><contact>\n <pair geom1='g' geom2='h' friction='-1'/></contact></mujoco>", 2, 2,
     "friction -1 (expected finite values >= 0)"},
    {"<mujoco><contact>\n <pair solreffriction='1 1'/></contact></mujoco>", 2, 8,
     "unknown attribute 'solreffriction'"},
    {"<mujoco><worldbody><geom name='a' size='1'/></worldbody><contact>\n <pair geom1='a'/>"
     "</contact></mujoco>", 2, 2, "needs 'geom1' and 'geom2'"},
    {"<mujoco><worldbody><body>\n<tendon/></body></worldbody></mujoco>", 2, 1, "not supported"},
    {"<mujoco><worldbody>\n<geom bogus='1'/></worldbody></mujoco>", 2, 7, "unknown attribute 'bogus'"},
    {"<mujoco><worldbody><body>\n<geom class='x'/></body></worldbody></mujoco>", 2, 7, "class 'x'"},
    {"<mujoco><worldbody><body><body>\n<freejoint/></body></body></worldbody></mujoco>", 2, 1, "top level"},
    {"<mujoco><worldbody><body>\n<joint type='ball' range='10 30' limited='true'/></body>"
     "</worldbody></mujoco>", 2, 1, "expected 0 and the largest rotation angle"},
    {"<mujoco><default><joint type='ball' range='0 -5'/></default><worldbody><body>\n"
     "  <joint limited='true'/></body></worldbody></mujoco>", 2, 3, "ball joint '(unnamed)': limited with range [0, -0.08"},
    {"<mujoco><worldbody><body>\n<joint name='j' frictionloss='-0.5'/></body></worldbody>"
     "</mujoco>", 2, 1, "joint 'j': frictionloss -0.5 (expected >= 0)"},
    {"<robot/>", 1, 1, "expected <mujoco>"},
    {"<mujoco><keyframe>\n <frame/></keyframe></mujoco>", 2, 2, "<frame> in <keyframe>: expected <key>"},
    {"<mujoco><keyframe>\n <key qpos='0 x'/></keyframe></mujoco>", 2, 7, "not a finite decimal"},
    {"<mujoco><keyframe>\n <key mocap='1'/></keyframe></mujoco>", 2, 7, "unknown attribute 'mocap'"},
};

START_TEST(bad_input) {
  mjcf_file f[1] = {{"part.xml", "<mujoco><include file='part.xml'/></mujoco>"}};
  const bad_case* b = &kBad[_i];
  csim_error e = load_err(b->text, f, 1);
  ck_assert_msg(e.line == b->line && e.column == b->column && strstr(e.msg, b->needle),
                "case %d: %s:%d:%d %s (expected %d:%d '%s')", _i, e.file, e.line, e.column, e.msg,
                b->line, b->column, b->needle);
}
END_TEST

// end to end: csim info lists the bodies' masses (closed forms at density 1000), csim run takes
// the file's time step and its plane, and MuJoCo's humanoid loads with nothing refused
START_TEST(cli_end_to_end) {
  char out[16384], dir[256];
  ck_assert_int_eq(sh_fmt(out, sizeof(out), "%s info robots/mjcf_pendulum.xml", csim_bin()), 0);
  // capsule r 0.02, 0.5 long: (4/3 pi r^3 + pi r^2 0.5) 1000 = 0.661828852 kg
  ck_assert_ptr_nonnull(strstr(out, "0.661828852"));
  ck_assert_ptr_nonnull(strstr(out, "not supported yet (issue 25): 0"));
  tmp_dir(dir, sizeof(dir), "mjcf_run");
  ck_assert_int_eq(sh_fmt(out, sizeof(out), "%s run tests/data/mjcf/mjcf_pendulum.yaml --out %s/p.h5",
                          csim_bin(), dir), 0);
  ck_assert_ptr_nonnull(strstr(out, "dt 0.002 s"));
  ck_assert_ptr_nonnull(strstr(out, "steps 500"));
  tmp_remove(dir);
  const char* hum = "/usr/share/mujoco/model/humanoid/humanoid.xml";
  if (file_exists(hum)) {
    ck_assert_int_eq(sh_fmt(out, sizeof(out), "%s info %s", csim_bin(), hum), 0);
    ck_assert_ptr_nonnull(strstr(out, "not supported yet (issue 25): 0"));
  }
}
END_TEST

// writes TEXT to DIR/NAME and leaves that path in PATH (the CLI tests' scene files)
static void write_in(char* path, size_t n, const char* dir, const char* name, const char* text) {
  snprintf(path, n, "%s/%s", dir, name);
  write_text(path, text);
}

// robots.N.keyframe's errors, each naming where: an unknown key (the scenario key, with the
// file's first key), a qpos of the wrong length (the <key>'s file:line:column), a URDF robot,
// and q0 beside a keyframe; a key's time and ctrl are named in a warning, the run goes on
START_TEST(keyframe_errors) {
  char dir[256], out[8192], path[600];
  tmp_dir(dir, sizeof(dir), "mjcf_key");
  write_in(path, sizeof(path), dir, "k.xml",
           "<mujoco><worldbody><body pos='0 0 1'><freejoint/><geom size='0.1'/></body>"
           "</worldbody><keyframe>\n<key name='up' qpos='0 0 2 1 0 0 0'/>\n"
           "<key name='short' qpos='0 0 2'/>\n<key name='t' time='2' ctrl='0.5'/>\n"
           "<key name='zero' qpos='0 0 2 0 0 0 0'/>"
           "</keyframe></mujoco>");
  write_in(path, sizeof(path), dir, "k.yaml",
           "name: k\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: k.xml\n"
           "    keyframe: up\ncontact: {model: ncp}\nintegrator: {duration: 0.01}\n");
  static const struct {
    const char* sets;
    int rc;
    const char* needle;
  } kCases[] = {
      {"", 0, "complete"},
      {"--set robots.0.keyframe=nope", 2,
       "'robots.0.keyframe': 'nope' names no <key> of k.xml "
       "(it has 4 keys: the first named 'up'"},
      {"--set robots.0.keyframe=short", 2,
       "k.xml:3:1: 'key': <key name='short'>: qpos has 3 "
       "values, the model's nq is 7"},
      {"--set robots.0.keyframe=1", 2, "qpos has 3 values"},
      {"--set robots.0.keyframe=t", 0, "k.xml:4:1: 'key': <key> 't': time ctrl not taken"},
      {"--set 'robots.0.q0=[0,0,1,0,0,0,1]'", 2, "give one of keyframe and q0"},
      {"--set robots.0.keyframe=zero", 2, "k.xml:5:1: 'key': <key>: qpos gives joint"},
  };
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); k++) {
    int rc = sh_fmt(out, sizeof(out), "%s run %s %s --out %s/k.h5", csim_bin(), path,
                    kCases[k].sets, dir);
    ck_assert_msg(rc == kCases[k].rc && strstr(out, kCases[k].needle), "case %zu: exit %d: %s",
                  k, rc, out);
  }
  snprintf(path, sizeof(path), "%s/k.xml", dir);
  ck_assert_int_eq(sh_fmt(out, sizeof(out), "%s info %s", csim_bin(), path), 0);
  ck_assert_msg(strstr(out, "keyframes (robots.N.keyframe): 4: 0 'up' 1 'short' 2 't' 3 'zero'"), "%s", out);
  snprintf(path, sizeof(path), "%s/k.yaml", dir);
  char cwd[400], yaml[800];
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
  snprintf(yaml, sizeof(yaml), "name: u\nrobots:\n  - urdf: %s/robots/cube.urdf\n    base: free\n"
           "    keyframe: up\nintegrator: {duration: 0.01}\n", cwd);
  write_in(path, sizeof(path), dir, "u.yaml", yaml);
  int rc = sh_fmt(out, sizeof(out), "%s run %s --out %s/u.h5", csim_bin(), path, dir);
  ck_assert_msg(rc == 2 && strstr(out, "'robots.0.keyframe': keyframes are MJCF's"),
                "urdf: exit %d: %s", rc, out);
  tmp_remove(dir);
}
END_TEST

// robots.N.spin_friction: ignore is a model change, said on stderr with its key's position and
// the count of geoms it changed (two condim 4/6 geoms below, one condim 3); the run then
// completes under lcp, which has no torsional friction; a file without such geoms says nothing
START_TEST(spin_friction_ignore_said) {
  char dir[256], out[8192], path[600];
  tmp_dir(dir, sizeof(dir), "mjcf_spin");
  write_in(path, sizeof(path), dir, "s.xml",
           "<mujoco><worldbody><geom type='plane' size='1 1 1'/>"
           "<body pos='0 0 .1'><freejoint/><geom size='.1' condim='4'/></body>"
           "<body pos='1 0 .1'><freejoint/><geom size='.1' condim='6'/></body>"
           "<body pos='2 0 .1'><freejoint/><geom size='.1' condim='3'/></body>"
           "</worldbody></mujoco>");
  write_in(path, sizeof(path), dir, "s.yaml",
           "name: s\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: s.xml\n"
           "    spin_friction: ignore\ncontact: {model: lcp}\nsolver: {name: lemke}\n"
           "integrator: {duration: 0.01}\n");
  int rc = sh_fmt(out, sizeof(out), "%s run %s --out %s/s.h5", csim_bin(), path, dir);
  ck_assert_msg(rc == 0 && strstr(out,
                                  "s.yaml:5:20: 'robots.0.spin_friction': ignore: 2 geoms of "
                                  "condim 4 or 6 run as condim 3"),
                "exit %d: %s", rc, out);
  write_in(path, sizeof(path), dir, "s.xml",
           "<mujoco><worldbody><geom type='plane' size='1 1 1'/>"
           "<body pos='0 0 .1'><freejoint/><geom size='.1'/></body></worldbody></mujoco>");
  snprintf(path, sizeof(path), "%s/s.yaml", dir);
  rc = sh_fmt(out, sizeof(out), "%s run %s --out %s/s.h5", csim_bin(), path, dir);
  ck_assert_msg(rc == 0 && !strstr(out, "spin_friction"), "exit %d: %s", rc, out);
  // an explicit <pair> of condim 4 between condim 3 geoms: refused under lcp naming the geom and
  // the pair's condim, run as condim 3 under ignore (the pair counted)
  write_in(path, sizeof(path), dir, "s.xml",
           "<mujoco><worldbody><geom name='p' type='plane' size='1 1 1'/>"
           "<body pos='0 0 .1'><freejoint/><geom name='b' size='.1'/></body></worldbody>"
           "<contact><pair geom1='p' geom2='b' condim='4'/></contact></mujoco>");
  snprintf(path, sizeof(path), "%s/s.yaml", dir);
  rc = sh_fmt(out, sizeof(out), "%s run %s --set robots.0.spin_friction=apply --out %s/s.h5",
              csim_bin(), path, dir);
  ck_assert_msg(rc == 2 && strstr(out, "has condim 4 (torsional friction)"), "exit %d: %s", rc,
                out);
  rc = sh_fmt(out, sizeof(out), "%s run %s --out %s/s.h5", csim_bin(), path, dir);
  ck_assert_msg(rc == 0 && strstr(out, "ignore: 0 geoms and 1 <pair> of condim 4 or 6"),
                "exit %d: %s", rc, out);
  tmp_remove(dir);
}
END_TEST

// explicit pairs in the model: sorted by key whatever the file's order (model_find_pair finds
// each in either geom order, and nothing else), a pair's parameters moved with it; two pairs of
// the same two geoms and a pair within one body are errors at the <pair>'s line
START_TEST(pair_model) {
  const char* world =
      "<mujoco><worldbody><geom name='p' type='plane' size='1 1 1'/>"
      "<body name='a' pos='0 0 1'><freejoint/><geom name='a1' size='.1'/><geom name='a2' "
      "size='.1' pos='.2 0 0'/></body><body name='b' pos='1 0 1'><freejoint/><geom name='b1' "
      "size='.1'/></body></worldbody>\n<contact>\n";
  char text[1024];
  snprintf(text, sizeof(text), "%s<pair geom1='b1' geom2='a2' condim='1'/>\n"
           "<pair geom1='b1' geom2='p' condim='4'/>\n<pair geom1='a1' geom2='p' friction='.7 .7 .005 .0001 .0001'/>\n"
           "</contact></mujoco>", world);
  urdf_robot* r = load(text, NULL, 0);
  sim_model* m = NULL;
  csim_error e;
  ck_assert_msg(build(r, MODEL_BASE_FIXED, &m, &e) == CSIM_OK, "%s:%d: %s", e.file, e.line, e.msg);
  ck_assert_int_eq(m->npair, 3);
  for (int k = 1; k < m->npair; k++) ck_assert(model_pair_key(m, k - 1) < model_pair_key(m, k));
  const int p = 0, a1 = 1, a2 = 2, b1 = 3;  // the file's order
  ck_assert_int_eq(m->geom_type[p], MODEL_GEOM_PLANE);
  ck_assert(m->geom_body[a1] == m->geom_body[a2] && m->geom_body[a1] != m->geom_body[b1]);
  int kba = model_find_pair(m, a2, b1), kbp = model_find_pair(m, p, b1);
  int kap = model_find_pair(m, a1, p);
  ck_assert(kba >= 0 && kba == model_find_pair(m, b1, a2) && kbp >= 0 && kap >= 0);
  ck_assert_int_eq(m->pair_condim[kba], 1);
  ck_assert_int_eq(m->pair_condim[kbp], 4);
  ck_assert_double_eq(m->pair_friction[3 * kap], 0.7);
  ck_assert_int_eq(model_find_pair(m, a2, p), -1);
  ck_assert_int_eq(model_find_pair(m, a1, b1), -1);
  model_free(m);
  urdf_free(r);
  static const struct {
    const char* pairs;
    int line;
    const char* needle;
  } kErr[] = {{"<pair geom1='b1' geom2='a1'/>\n<pair geom1='a1' geom2='b1' condim='1'/>\n", 4,
               "the same two geoms as the <pair> at line 3"},
              {"<pair geom1='a1' geom2='a2'/>\n", 3, "both geoms are on body 'a'"}};
  for (size_t c = 0; c < sizeof(kErr) / sizeof(kErr[0]); c++) {
    snprintf(text, sizeof(text), "%s%s</contact></mujoco>", world, kErr[c].pairs);
    r = load(text, NULL, 0);
    ck_assert_int_eq(build(r, MODEL_BASE_FIXED, &m, &e), CSIM_ERR_INPUT);
    ck_assert_msg(e.line == kErr[c].line && strstr(e.msg, kErr[c].needle), "case %zu: %d: %s", c,
                  e.line, e.msg);
    ck_assert_ptr_null(m);
    urdf_free(r);
  }
}
END_TEST

// geom contact parameters into the model and the pair rules (material.h): condim 1 on both
// sides is frictionless, one side 3 keeps the friction (the larger condim); solref/solimp mixed
// 1:1 (standard solref: the mean; direct: the smaller); a side that is no MJCF geom counts with
// MuJoCo's defaults. Values by hand from the attributes below.
START_TEST(geom_contact_parameters) {
  urdf_robot* r = load(
      "<mujoco><worldbody><geom type='plane' size='1 1 1' solref='.04 2'/>"
      "<body name='a' pos='0 0 1'><freejoint/><geom size='.1' condim='1' solref='.01 1' "
      "solimp='.8 .9 .01 .4 3'/></body>"
      "<body name='b' pos='1 0 1'><freejoint/><geom size='.1' condim='1'/></body>"
      "<body name='c' pos='2 0 1'><freejoint/><geom size='.1' solref='-1000 -10'/></body>"
      "<body name='d' pos='3 0 1'><joint name='h' axis='0 1 0' range='-10 10' "
      "solreflimit='.05 2' solimplimit='.5 .8 .02'/><geom size='.1' pos='.5 0 0' mass='2' "
      "contype='0' conaffinity='0'/></body></worldbody></mujoco>", NULL, 0);
  ck_assert_int_eq(r->nunsupported, 0);
  sim_model* m = NULL;
  csim_error e;
  ck_assert_int_eq(build(r, MODEL_BASE_FIXED, &m, &e), CSIM_OK);
  ck_assert_int_eq(m->ngeom, 4);   // plane, a, b, c in order (d collides with nothing)
  ck_assert_int_eq(m->geom_condim[1], 1);
  ck_assert_int_eq(m->geom_condim[3], 3);
  mat_table* t = NULL;
  mat_props def = {0.7, 0, 0, 0};
  ck_assert_int_eq(mat_alloc(m, 0, def, CSIM_COMBINE_MUJOCO, &t, &e), CSIM_OK);
  sim_data* d = NULL;
  ck_assert_int_eq(data_create(m, 0, &d, &e), CSIM_OK);
  kin_forward(m, d);
  ck_assert_int_eq(mat_set_geoms(t, m, 1, d), 1);
  ck_assert_double_eq(mat_pair(t, 1, 2).mu, 0);     // condim 1 with condim 1
  ck_assert_double_eq(mat_pair(t, 0, 1).mu, 0.7);   // the plane is condim 3
  ck_assert_double_eq(mat_pair(t, 1, 3).mu, 0.7);
  double ref[2], imp[5];
  mat_pair_soft(t, 0, 1, ref, imp);
  ck_assert_double_eq_tol(ref[0], 0.025, 1e-15);
  ck_assert_double_eq_tol(ref[1], 1.5, 1e-15);
  ck_assert_double_eq_tol(imp[0], 0.85, 1e-15);     // (.9 + .8) / 2, the plane's default .9
  ck_assert_double_eq_tol(imp[4], 2.5, 1e-15);
  mat_pair_soft(t, 1, 3, ref, imp);                 // a direct solref: the smaller of each
  ck_assert_double_eq(ref[0], -1000);
  ck_assert_double_eq(ref[1], -10);
  mat_pair_soft(t, -1, 3, ref, imp);                // a joint limit: the table's (defaults)
  ck_assert_double_eq(ref[0], 0.02);
  // the hinge's soft limit: its solreflimit, solimplimit (the rest MuJoCo's defaults) and its
  // dof's inverse weight 1/I, I = 2 (0.4 0.1^2 + 0.5^2) about the hinge
  int h = model_find_joint(m, "h");
  const double *lr, *li;
  double w;
  ck_assert_int_eq(mat_limit_soft(t, m, h, &lr, &li, &w), 1);
  ck_assert_double_eq(lr[1], 2);
  ck_assert_double_eq(li[2], 0.02);
  ck_assert_double_eq(li[4], 2);
  ck_assert_double_eq_tol(w, 1 / 0.508, 1e-12);
  ck_assert_int_eq(mat_limit_soft(t, m, 0, &lr, &li, &w), 0);   // a free joint has none
  mat_free(t);
  data_free(d);
  model_free(m);
  urdf_free(r);
}
END_TEST

// <motor>: the joint's effort limit is gear x ctrlrange (the default class's ctrlrange), none
// without ctrllimited; a motor on a free joint or with an asymmetric range is refused by name
// a scene of an MJCF file m.xml and a scenario naming it, in a fresh directory (dir) as `tag`
static fixture mjcf_scene(char* dir, size_t n, const char* tag, const char* xml_text,
                          const char* yaml_text) {
  char xml[512], yaml[512];
  tmp_dir(dir, n, tag);
  snprintf(xml, sizeof(xml), "%s/m.xml", dir);
  write_text(xml, xml_text);
  snprintf(yaml, sizeof(yaml), "%s/s.yaml", dir);
  write_text(yaml, yaml_text);
  return fixture_file(yaml, NULL, 0);
}

START_TEST(motors) {
  urdf_robot* r = load(
      "<mujoco><default><motor ctrlrange='-1 1' ctrllimited='true'/></default><worldbody>"
      "<body name='a' pos='0 0 1'><joint name='h' axis='0 1 0'/><geom size='.1'/>"
      "<body name='b' pos='0 0 .3'><joint name='s' type='slide'/><geom size='.1'/></body></body>"
      "</worldbody><actuator><motor joint='h' gear='40'/>"
      "<motor joint='s' gear='-5' ctrllimited='false'/></actuator></mujoco>", NULL, 0);
  ck_assert_int_eq(r->nunsupported, 0);
  ck_assert_int_eq(r->nactuator, 2);
  sim_model* m = NULL;
  csim_error e;
  ck_assert_int_eq(build(r, MODEL_BASE_FIXED, &m, &e), CSIM_OK);
  ck_assert_double_eq(m->jnt_effort[model_find_joint(m, "h")], 40);
  ck_assert_double_eq(m->jnt_effort[model_find_joint(m, "s")], 0);
  model_free(m);
  urdf_free(r);
  const char* refused[] = {
      "<body><freejoint name='f'/><geom size='.1'/></body></worldbody><actuator><motor joint='f'/>",
      "<body><joint name='h'/><geom size='.1'/></body></worldbody><actuator>"
      "<motor joint='h' ctrlrange='-1 2' ctrllimited='true'/>",
      "<body><joint name='h'/><geom size='.1'/></body></worldbody><actuator><position joint='h'/>"};
  for (int k = 0; k < 3; k++) {
    char text[600];
    snprintf(text, sizeof(text), "<mujoco><worldbody>%s</actuator></mujoco>", refused[k]);
    r = load(text, NULL, 0);
    ck_assert_msg(r->nunsupported == 1, "case %d", k);
    urdf_free(r);
  }
  // end to end: a pd action far from its target is clamped to the motor's gear x ctrlrange = 2;
  // the joint without a motor and without an action gets no torque
  char dir[256];
  fixture f = mjcf_scene(dir, sizeof(dir), "mjcf_motor",
             "<mujoco><option gravity='0 0 0'/><worldbody><body pos='0 0 1'>"
             "<joint name='h' axis='0 1 0'/><geom size='.1' pos='.3 0 0'/>"
             "<body pos='.3 0 0'><joint name='k' axis='0 1 0'/><geom size='.1' pos='.3 0 0'/>"
             "</body></body></worldbody><actuator><motor joint='h' gear='2' ctrlrange='-1 1' "
             "ctrllimited='true'/></actuator></mujoco>",
             "name: m\nworld: {gravity: [0, 0, 0], ground: {type: none}}\nrobots:\n"
             "  - mjcf: m.xml\nactions:\n  - {type: pd, joints: [h], target: 1, kp: 1000}\n"
             "integrator: {dt: 0.001, duration: 1}\noutput: {path: o.h5}\n");
  sim_stepinfo info;
  ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
  const sim_model* fm = f.s->model.m;
  ck_assert_double_eq(f.s->data.d->qfrc_applied[fm->jnt_dofadr[model_find_joint(fm, "h")]], 2);
  ck_assert_double_eq(f.s->data.d->qfrc_applied[fm->jnt_dofadr[model_find_joint(fm, "k")]], 0);
  ck_assert_int_gt(f.s->data.warnings[SIM_WARN_EFFORT], 0);
  fixture_free(&f);
  tmp_remove(dir);
  csim_error be = load_err("<mujoco><worldbody/><actuator>\n<motor joint='x'/></actuator></mujoco>",
                           NULL, 0);
  ck_assert_ptr_nonnull(strstr(be.msg, "no joint named 'x'"));
  ck_assert_int_eq(be.line, 2);
}
END_TEST

// the geoms' own sliding friction (friction[0]), mixed by MuJoCo's rule (the larger of the two),
// unless the scenario gives contact.friction: a 10 cm box (friction 0.3) launched at 1 m/s on
// the file's plane (friction 0.2, then 0.6) stops after v^2 / (2 mu g): 0.1699 m at mu 0.3,
// 0.0850 m at 0.6, 0.1019 m at the scenario's 0.5. Semi-implicit Euler stops within v0 h = 1 mm
// of the continuous distance (h = 1 ms), the tolerance. A material for the box's link holds for
// its side when it gives friction (0.7); given for stiffness alone it keeps the file's 0.3
START_TEST(geom_sliding_friction) {
  static const struct {
    double plane_mu;
    const char* contact;
    double mu;
  } kCase[] = {{0.2, "{model: ncp}", 0.3}, {0.6, "{model: ncp}", 0.6},
               {0.2, "{model: ncp, friction: 0.5}", 0.5},
               {0.2, "{model: ncp, materials: {b: {friction: 0.7}}}", 0.7},
               {0.2, "{model: ncp, materials: {b: {stiffness: 1.0e5}}}", 0.3}};
  char xml[512], yaml[512], dir[256];
  snprintf(xml, sizeof(xml),
           "<mujoco><worldbody><geom type='plane' size='2 2 1' friction='%g'/>"
           "<body name='b' pos='0 0 0.05'><freejoint/>"
           "<geom type='box' size='.05 .05 .05' friction='0.3'/>"
           "</body></worldbody></mujoco>", kCase[_i].plane_mu);
  snprintf(yaml, sizeof(yaml),
           "name: f\nworld: {gravity: [0, 0, -9.81], ground: {type: none}}\nrobots:\n"
           "  - mjcf: m.xml\n    v0: [1, 0, 0, 0, 0, 0]\ncontact: %s\n"
           "solver: {name: pgs, tolerance: 1.0e-10}\nintegrator: {dt: 1.0e-3, duration: 0.5}\n"
           "output: {path: o.h5}\n", kCase[_i].contact);
  fixture f = mjcf_scene(dir, sizeof(dir), "mjcf_mu", xml, yaml);
  sim_stepinfo info;
  csim_error e;
  double x0 = f.s->data.d->q[0];
  for (int n = 0; n < 500; n++) ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
  double d = f.s->data.d->q[0] - x0, want = 1.0 / (2 * kCase[_i].mu * 9.81);
  printf("MJCF box on plane, friction %g / %g, %s: slid %.5f m, closed form %.5f m\n", 0.3,
         kCase[_i].plane_mu, kCase[_i].contact, d, want);
  ck_assert_msg(fabs(d - want) < 1e-3, "slid %g m, expected %g (mu %g)", d, want, kCase[_i].mu);
  ck_assert_double_lt(fabs(f.s->data.d->v[0]), 1e-6);  // stopped (to the solve's tolerance)
  fixture_free(&f);
  tmp_remove(dir);
}
END_TEST

// an MJCF ellipsoid (radii .3 .2 .1) dropped flat on the file's plane comes to rest on its
// shortest radius: centre at 0.1 m
START_TEST(ellipsoid_drop) {
  char dir[256];
  fixture f = mjcf_scene(dir, sizeof(dir), "mjcf_ell",
             "<mujoco><option timestep='0.002'/><worldbody><geom type='plane' size='1 1 1'/>"
             "<body pos='0 0 0.3'><freejoint/><geom type='ellipsoid' size='.3 .2 .1'/></body>"
             "</worldbody></mujoco>",
             "name: e\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: m.xml\n"
             "contact: {model: ncp, friction: 0.5, baumgarte: 5}\nsolver: {name: pgs, tolerance: 1.0e-10}\n"
             "integrator: {duration: 1}\noutput: {path: o.h5}\n");
  sim_stepinfo info;
  csim_error e;
  for (int n = 0; n < 500; n++) ck_assert_int_eq(sim_step(f.s, &info, &e), CSIM_OK);
  double z = f.s->data.d->q[2] + f.s->model.m->body_pos[3 * f.s->model.m->jnt_body[0] + 2];
  ck_assert_msg(fabs(z - 0.1) < 1e-3, "ellipsoid at rest at %g m (expected 0.1)", z);
  ck_assert_int_eq(f.s->model.m->geom_type[1], MODEL_GEOM_ELLIPSOID);
  fixture_free(&f);
  tmp_remove(dir);
}
END_TEST

// scenarios/mujoco_humanoid.yaml for 0.5 s with every rigid model: finite state, the torso
// (the free joint's body) above the floor less 5 cm
START_TEST(humanoid_every_rigid_model) {
  if (!file_exists("/usr/share/mujoco/model/humanoid/humanoid.xml")) {
    fprintf(stderr, "skipped: humanoid.xml not installed (make deps)\n");
    return;
  }
  static const char* const kPairs[][2] = {
      {"contact.model=ncp", "solver.name=pgs"},   {"contact.model=ncp", "solver.name=admm"},
      {"contact.model=ccp", "solver.name=pgs"},   {"contact.model=lcp", "solver.name=lemke"},
      {"contact.model=raisim", "solver.name=bisection"}};
  // the scenario's pyramid is ccp's alone (contact.cone): every model here in the Lorentz cone
  const char* sets[3] = {kPairs[_i][0], kPairs[_i][1], "contact.cone=elliptic"};
  fixture f = fixture_file("scenarios/mujoco_humanoid.yaml", sets, 3);
  sim* s = f.s;
  const sim_model* m = s->model.m;
  double zmin = INFINITY, z0 = m->body_pos[3 * m->jnt_body[0] + 2];
  sim_stepinfo info;
  csim_error e;
  for (int n = 0; n < 100; n++) {   // 0.5 s at the file's 5 ms
    ck_assert_msg(sim_step(s, &info, &e) == CSIM_OK, "%s %s: %s", sets[0], sets[1], e.msg);
    for (int k = 0; k < m->nq; k++) ck_assert(isfinite(s->data.d->q[k]));
    zmin = fmin(zmin, s->data.d->q[2] + z0);
  }
  fprintf(stderr, "humanoid %s %s: lowest torso height %.4f m in 0.5 s\n", sets[0], sets[1], zmin);
  ck_assert_msg(zmin > -0.05, "%s %s: torso at %g m", sets[0], sets[1], zmin);
  ck_assert_double_eq(s->opt.dt, 0.005);
  fixture_free(&f);
}
END_TEST

// issue 25's test: MuJoCo's four model files (libmujoco-samples) run 2 s at their own time
// step with every rigid model and with hunt_crossley/TAMSI, without divergence: every step
// succeeds, the state stays finite, the energy audit flags no gain (counting a compliant law's
// springs) and the energy ends below where it started (nothing drives these files). Each model
// in the Lorentz cone; humanoid100's condim-4 cylinders under the models and the law without
// torsional friction take robots.0.spin_friction: ignore (without it: refused at load, naming the
// geom, checked here too)
static const char* const kMjFiles[4] = {"humanoid/humanoid.xml", "mug/mug.xml",
                                        "humanoid/22_humanoids.xml",
                                        "humanoid100/humanoid100.xml"};
static const char* const kMjPairs[6][3] = {
    {"contact.model=ncp", "solver.name=pgs", NULL},
    {"contact.model=ncp", "solver.name=admm", NULL},
    {"contact.model=ccp", "solver.name=pgs", NULL},
    {"contact.model=lcp", "solver.name=lemke", "robots.0.spin_friction=ignore"},
    {"contact.model=raisim", "solver.name=bisection", "robots.0.spin_friction=ignore"},
    {"contact.model=hunt_crossley", "integrator.scheme=tamsi", "robots.0.spin_friction=ignore"}};

START_TEST(model_files_every_model) {
  int fi = _i / 6, pi = _i % 6;
#ifdef CSIM_TEST_ASAN
  if (fi >= 2) {  // 22_humanoids and humanoid100: the plain pass (minutes under the sanitizers)
    printf("model_files_every_model: %s skipped under the sanitizers\n", kMjFiles[fi]);
    return;
  }
#endif
  char path[256], mj[300];
  snprintf(path, sizeof path, "/usr/share/mujoco/model/%s", kMjFiles[fi]);
  if (!file_exists(path)) {
    fprintf(stderr, "skipped: %s not installed (make deps)\n", path);
    return;
  }
  snprintf(mj, sizeof mj, "robots.0.mjcf=%s", path);
  const char* sets[7] = {mj, "contact.cone=elliptic", "solver.name=auto", "integrator.duration=2",
                         kMjPairs[pi][0], kMjPairs[pi][1], kMjPairs[pi][2]};
  int nset = kMjPairs[pi][2] ? 7 : 6;
  if (fi == 3 && kMjPairs[pi][2]) {  // the refusal without the key names the condim-4 geom
    char y[1024];
    snprintf(y, sizeof y, "name: t\nworld: {ground: {type: none}}\nrobots:\n  - mjcf: %s\n"
             "contact: {model: %s}\n%s\n", path, kMjPairs[pi][0] + 14,
             pi == 5 ? "integrator: {scheme: tamsi}" : pi == 3 ? "solver: {name: lemke}"
                                                             : "solver: {name: bisection}");
    fixture bad;
    csim_error e;
    ck_assert_int_ne(fixture_try(y, "t.yaml", &bad, &e), CSIM_OK);
    ck_assert_msg(strstr(e.msg, "has condim 4") && strstr(e.msg, "spin_friction: ignore"),
                  "%s", e.msg);
  }
  fixture f = fixture_file("scenarios/mujoco_humanoid100.yaml", sets, nset);
  sim* s = f.s;
  const sim_model* m = s->model.m;
  long n = lround(2.0 / s->opt.dt);
  sim_stepinfo info;
  csim_error e;
  double e0 = NAN, e1 = NAN;
  for (long k = 0; k < n; k++) {
    ck_assert_msg(sim_step(s, &info, &e) == CSIM_OK, "%s %s %s step %ld: %s", kMjFiles[fi],
                  sets[4], sets[5], k, e.msg);
    if (k == 0) e0 = info.kinetic + info.potential;
    e1 = info.kinetic + info.potential;
  }
  ck_assert_int_eq(sim_finish(s, &e), CSIM_OK);
  for (int k = 0; k < m->nq; k++) ck_assert(isfinite(s->data.d->q[k]));
  for (int k = 0; k < m->nv; k++) ck_assert(isfinite(s->data.d->v[k]));
  printf("%s %s %s: energy %.4g J -> %.4g J, largest rise %.3g J\n", kMjFiles[fi], sets[4],
         sets[5], e0, e1, s->data.energy.rise_max);
  ck_assert_msg(!s->data.energy.flagged, "%s %s %s: energy gain %.3g J flagged at step %ld",
                kMjFiles[fi], sets[4], sets[5], s->data.energy.flag_gain,
                s->data.energy.flag_step);
  ck_assert_msg(e1 <= e0 + 1e-6 * fabs(e0), "%s %s %s: energy %.6g J at the end, %.6g J at the "
                "start", kMjFiles[fi], sets[4], sets[5], e1, e0);
  fixture_free(&f);
}
END_TEST

int main(void) {
  Suite* s = suite_create("mjcf");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, orientations_degree);
  tcase_add_test(tc, defaults_childclass);
  tcase_add_test(tc, fromto_geoms);
  tcase_add_test(tc, primitive_masses);
  tcase_add_test(tc, includes);
  tcase_add_test(tc, contact_masks_condim_exclude);
  tcase_add_test(tc, joint_chain);
  tcase_add_test(tc, cli_end_to_end);
  tcase_add_test(tc, option_fields);
  tcase_add_test(tc, geom_contact_parameters);
  tcase_add_test(tc, motors);
  tcase_add_test(tc, ellipsoid_drop);
  tcase_add_loop_test(tc, geom_sliding_friction, 0, 5);
  tcase_add_loop_test(tc, humanoid_every_rigid_model, 0, 5);
  tcase_add_loop_test(tc, bad_input, 0, (int)(sizeof(kBad) / sizeof(kBad[0])));
  tcase_add_test(tc, keyframe_errors);
  tcase_add_test(tc, spin_friction_ignore_said);
  tcase_add_test(tc, pair_model);
  suite_add_tcase(s, tc);
  TCase* tl = tcase_create("files");
  tcase_set_timeout(tl, 1800);
  tcase_set_tags(tl, "long");
  tcase_add_loop_test(tl, model_files_every_model, 0, 24);
  suite_add_tcase(s, tl);
  return run_suite(s);
}
