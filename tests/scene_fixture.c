// scene_fixture.c — see scene_fixture.h.
#include "scene_fixture.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/sim.h"
#include "io/compile.h"
#include "support.h"

// the sim of a loaded scenario (st: the load's status)
static fixture build(fixture f, csim_status st, csim_error* err) {
  ck_assert_msg(st == CSIM_OK, "scenario: %s (key %s, line %d)", err->msg, err->key, err->line);
  st = sim_create(f.cfg, &f.s, err);
  ck_assert_msg(st == CSIM_OK, "sim_create: %s (key %s)", err->msg, err->key);
  return f;
}

fixture fixture_text(const char* yaml, const char* name, const char* const* sets, int nset) {
  fixture f = {NULL, NULL};
  csim_error err;
  err_clear(&err);
  return build(f, scn_load_string(yaml, name, sets, nset, &f.cfg, &err), &err);
}

fixture fixture_file(const char* path, const char* const* sets, int nset) {
  fixture f = {NULL, NULL};
  csim_error err;
  err_clear(&err);
  return build(f, scn_load(path, sets, nset, &f.cfg, &err), &err);
}

csim_status fixture_try(const char* yaml, const char* name, fixture* f, csim_error* err) {
  f->cfg = NULL;
  f->s = NULL;
  err_clear(err);
  csim_status st = scn_load_string(yaml, name, NULL, 0, &f->cfg, err);
  if (st == CSIM_OK) st = sim_create(f->cfg, &f->s, err);
  if (st != CSIM_OK) fixture_free(f);
  return st;
}

void fixture_free(fixture* f) {
  sim_free(f->s);
  scn_free(f->cfg);
}

char* fixture_cubes(int n, const double* pos, const char* solver_yaml) {
  size_t cap = 512 + 160 * (size_t)n, k = 0;
  char* t = malloc(cap);
  ck_assert(t != NULL);
  k += (size_t)snprintf(t + k, cap - k,
                        "name: t\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, height: "
                        "0}}\nrobots:\n");
  for (int r = 0; r < n; r++)
    k += (size_t)snprintf(t + k, cap - k,
                          "  - {urdf: robots/cube.urdf, base: free, q0: [%.3f, %.3f, %.3f, 0, "
                          "0, 0, 1]}\n",
                          pos[3 * r], pos[3 * r + 1], pos[3 * r + 2]);
  snprintf(t + k, cap - k,
           "contact: {model: ncp, friction: 0.5}\nsolver: %s\n"
           "integrator: {dt: 1.0e-3, duration: 1}\n",
           solver_yaml);
  return t;
}

void fixture_chain(int nlinks, const char* contact_yaml, const char* solver_yaml, char* path,
                   size_t n) {
  char urdf[16384] = "<robot name=\"chain\">\n", name[64], upath[512], yaml[2048];
  for (int k = 1; k <= nlinks; k++) {
    size_t m = strlen(urdf);
    snprintf(urdf + m, sizeof(urdf) - m,
             "<link name=\"l%d\"><inertial><origin xyz=\"0 0 -0.05\"/><mass value=\"0.1\"/>"
             "<inertia ixx=\"8.6667e-05\" ixy=\"0\" ixz=\"0\" iyy=\"8.6667e-05\" iyz=\"0\" "
             "izz=\"6.6667e-06\"/></inertial><collision><origin xyz=\"0 0 -0.05\"/><geometry>"
             "<box size=\"0.02 0.02 0.1\"/></geometry></collision></link>\n", k);
    m = strlen(urdf);
    if (k > 1)
      snprintf(urdf + m, sizeof(urdf) - m,
               "<joint name=\"j%d\" type=\"revolute\"><parent link=\"l%d\"/><child link=\"l%d\"/>"
               "<origin xyz=\"0 0 -0.1\"/><axis xyz=\"0 1 0\"/><limit lower=\"-3.14\" "
               "upper=\"3.14\" effort=\"100\" velocity=\"100\"/></joint>\n", k, k - 1, k);
  }
  strcat(urdf, "</robot>\n");
  snprintf(name, sizeof(name), "chain%d.urdf", nlinks);
  tmp_write_text(name, urdf);
  // lying along +x: the base turned -90 degrees about y, every joint at zero
  size_t m = (size_t)snprintf(yaml, sizeof(yaml),
                              "name: chain%d\nworld: {gravity: [0, 0, -9.81], ground: {type: plane, "
                              "height: 0}}\nrobots:\n  - {urdf: %s, base: free, q0: [0, 0, 0.01, 0, "
                              "-0.7071067811865476, 0, 0.7071067811865476",
                              nlinks, tmp_path(upath, sizeof(upath), name));
  for (int k = 1; k < nlinks; k++) m += (size_t)snprintf(yaml + m, sizeof(yaml) - m, ", 0");
  snprintf(yaml + m, sizeof(yaml) - m,
           "]}\ncontact: %s\nsolver: %s\nintegrator: {dt: 1.0e-3, duration: 1.0}\n", contact_yaml,
           solver_yaml);
  snprintf(name, sizeof(name), "chain%d.yaml", nlinks);
  tmp_write_text(name, yaml);
  tmp_path(path, n, name);
}

fixture fixture_steps(const char* text, const char* path, int nstep) {
  fixture f = text ? fixture_text(text, "scene_fixture.yaml", NULL, 0) : fixture_file(path, NULL, 0);
  csim_error err;
  err_clear(&err);
  sim_stepinfo info;
  for (int k = 0; k < nstep; k++)
    ck_assert_msg(sim_step(f.s, &info, &err) == CSIM_OK, "%s", err.msg);
  return f;
}

void fixture_condim_xml(const char* geom, int cd, double mu_t, double mu_r) {
  char xml[1024];
  snprintf(xml, sizeof(xml),
           "<mujoco><option timestep='0.001'/><worldbody>"
           "<geom name='floor' type='plane' size='5 5 0.1' condim='%d' friction='1 %g %g'/>"
           "<body name='b' pos='0 0 0.1'><freejoint/>"
           "<geom type='%s' mass='1' condim='%d' friction='1 %g %g'/></body>"
           "</worldbody></mujoco>",
           cd, mu_t, mu_r, geom, cd, mu_t, mu_r);
  tmp_write_text("m.xml", xml);
}
