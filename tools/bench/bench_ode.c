// tools/bench/bench_ode.c — ODE 0.16 (libode-dev, double precision) as a measured peer of csim
// (`make bench`, tools/bench/bench_peers.py), on the cube scenes of bench_mujoco/bench_scenes.py
// (tools/bench/peer_common.h): free 1 kg 10 cm boxes on a static plane, dt 1 ms, gravity -9.81.
//
// ODE's settings: one contact joint per dCollide point (box-plane: up to 4 corners; box-box up
// to 8), surface mode dContactApprox1 (friction pyramid: |f_t1|, |f_t2| <= mu f_n along the
// contact's two fixed tangent directions dPlaneSpace(n), the 4-facet pyramid of seed 000 Sec.
// II-C "LCP"), mu of the scene, no bounce; world ERP 0 (csim's scenes have baumgarte 0) and ODE's
// default CFM (1e-10 in double precision). Solvers:
//   quick    dWorldQuickStep: ODE's projected Gauss-Seidel / SOR (its defaults: 20 iterations,
//            over-relaxation 1.3) — the PGS of seed 000 Alg. 1 that csim's lcp/pgs models;
//   quick1k  the same with 1000 iterations (closer to a converged LCP answer);
//   dantzig  dWorldStep: the "big matrix" LCP solved by Dantzig pivoting.
// Timing: each batch builds the world (untimed) and times the step loop (collision, solve,
// integration). One more, untimed pass reads the impulses (dJointFeedback: f1 = force on body 1,
// impulse = h f1) and computes csim's eq. 14 residual of them (peer_residual, c* = 0).
// Usage: bench_ode [--scene S] [--angle DEG] [--solver quick|quick1k|dantzig] [--steps N]
//                  [--batches B] [--no-eps] [--header]       one CSV row on stdout
#include <ode/ode.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_common.h"

#define MAXPT 8  // dCollide points per pair

typedef struct {
  dWorldID world;
  dSpaceID space;
  dJointGroupID group;
  dBodyID* body;
  dGeomID* geom;
  const peer_scene* s;
  peer_contact* con;
  dJointFeedback* fb;
  int nc, maxc;
} ode_world;

static void ode_build(ode_world* o, const peer_scene* s, int maxc) {
  memset(o, 0, sizeof *o);
  o->s = s;
  o->world = dWorldCreate();
  dWorldSetGravity(o->world, 0, 0, -PEER_G);
  dWorldSetERP(o->world, 0);
  o->space = dHashSpaceCreate(0);
  o->group = dJointGroupCreate(0);
  dCreatePlane(o->space, 0, 0, 1, 0);
  o->body = calloc((size_t)s->nb, sizeof *o->body);
  o->geom = calloc((size_t)s->nb, sizeof *o->geom);
  o->maxc = maxc;
  o->con = calloc((size_t)maxc, sizeof *o->con);
  o->fb = calloc((size_t)maxc, sizeof *o->fb);
  for (int i = 0; i < s->nb; i++) {
    dMass m;
    o->body[i] = dBodyCreate(o->world);
    dMassSetBoxTotal(&m, PEER_MASS, PEER_SIDE, PEER_SIDE, PEER_SIDE);
    dBodySetMass(o->body[i], &m);
    dBodySetPosition(o->body[i], s->pos[i][0], s->pos[i][1], s->pos[i][2]);
    dBodySetLinearVel(o->body[i], s->vel[i][0], s->vel[i][1], s->vel[i][2]);
    dBodySetData(o->body[i], (void*)(intptr_t)i);
    o->geom[i] = dCreateBox(o->space, PEER_SIDE, PEER_SIDE, PEER_SIDE);
    dGeomSetBody(o->geom[i], o->body[i]);
  }
}

static void ode_free(ode_world* o) {
  dJointGroupDestroy(o->group);
  dSpaceDestroy(o->space);  // destroys its geoms
  dWorldDestroy(o->world);
  free(o->body), free(o->geom), free(o->con), free(o->fb);
}

static int body_index(dBodyID b) { return b ? (int)(intptr_t)dBodyGetData(b) : -1; }

// one contact joint per point; body 1 is never the ground (ODE swaps a null first body, which
// would turn feedback f1 into the ground's), so the pair is reversed and the normal flipped
static void near_cb(void* data, dGeomID g1, dGeomID g2) {
  ode_world* o = data;
  dBodyID b1 = dGeomGetBody(g1), b2 = dGeomGetBody(g2);
  dContact c[MAXPT];
  int n = dCollide(g1, g2, MAXPT, &c[0].geom, sizeof(dContact));
  for (int k = 0; k < n && o->nc < o->maxc; k++) {
    if (!b1)
      for (int a = 0; a < 3; a++) c[k].geom.normal[a] = -c[k].geom.normal[a];
    c[k].surface.mode = dContactApprox1;
    c[k].surface.mu = o->s->mu;
    dJointID j = dJointCreateContact(o->world, o->group, &c[k]);
    dBodyID ba = b1 ? b1 : b2, bb = b1 ? b2 : b1;
    dJointAttach(j, ba, bb);
    dJointSetFeedback(j, &o->fb[o->nc]);
    peer_contact* pc = &o->con[o->nc++];
    pc->a = body_index(ba), pc->b = body_index(bb);
    for (int a = 0; a < 3; a++) {
      pc->n[a] = c[k].geom.normal[a];
      pc->pa[a] = pc->pb[a] = c[k].geom.pos[a];
    }
  }
}

// one step of the world; callgrind counts the instructions inside it (--toggle-collect=ode_step)
__attribute__((noinline)) void ode_step(ode_world* o, int kind);
__attribute__((noinline)) void ode_step(ode_world* o, int kind) {
  o->nc = 0;
  dSpaceCollide(o->space, o, near_cb);
  if (kind == 2)
    dWorldStep(o->world, o->s->h);
  else
    dWorldQuickStep(o->world, o->s->h);
  dJointGroupEmpty(o->group);
}

static void state(const ode_world* o, double (*x)[3], double (*v)[3], double (*w)[3]) {
  for (int i = 0; i < o->s->nb; i++) {
    memcpy(x[i], dBodyGetPosition(o->body[i]), 3 * sizeof(double));
    memcpy(v[i], dBodyGetLinearVel(o->body[i]), 3 * sizeof(double));
    memcpy(w[i], dBodyGetAngularVel(o->body[i]), 3 * sizeof(double));
  }
}

// the untimed pass: contacts, residual of the impulses, normal impulse, final position
static int stats(const peer_scene* s, int kind, int iters, int steps, int eps, peer_row* r) {
  int maxc = 8 * s->nb + 8, nb = s->nb;
  ode_world o;
  ode_build(&o, s, maxc);
  dWorldSetQuickStepNumIterations(o.world, iters);
  peer_eps w;
  double(*x0)[3] = calloc((size_t)nb, sizeof *x0), (*v0)[3] = calloc((size_t)nb, sizeof *v0);
  double(*w0)[3] = calloc((size_t)nb, sizeof *w0), (*x1)[3] = calloc((size_t)nb, sizeof *x1);
  double(*v1)[3] = calloc((size_t)nb, sizeof *v1), (*w1)[3] = calloc((size_t)nb, sizeof *w1);
  if (peer_eps_alloc(&w, maxc) < 0 || !x0 || !v0 || !w0 || !x1 || !v1 || !w1) return -1;
  for (int k = 0; k < steps; k++) {
    state(&o, x0, v0, w0);
    ode_step(&o, kind);
    state(&o, x1, v1, w1);
    double pn = 0, mm = 0, e = 0;
    for (int i = 0; i < o.nc; i++) {
      peer_contact* c = &o.con[i];
      for (int a = 0; a < 3; a++) c->P[a] = s->h * o.fb[i].f1[a];
      pn += c->P[0] * c->n[0] + c->P[1] * c->n[1] + c->P[2] * c->n[2];
    }
    if (eps)
      e = peer_residual(&w, o.con, o.nc, s->mu, s->h, (const double(*)[3])x0,
                        (const double(*)[3])v0, (const double(*)[3])w0, (const double(*)[3])v1,
                        (const double(*)[3])w1, &mm);
    peer_account(r, o.nc, pn, e, mm);
  }
  peer_close(r, s, steps, eps, x1[0]);
  peer_eps_free(&w);
  free(x0), free(v0), free(w0), free(x1), free(v1), free(w1);
  ode_free(&o);
  return 0;
}

int main(int argc, char** argv) {
  // kind: 1 dWorldQuickStep, 2 dWorldStep; iterations of the quick step (20: ODE's default)
  static const char* const names[] = {"quick", "quick1k", "dantzig"};
  static const int kinds[] = {1, 1, 2}, its[] = {20, 1000, 20};
  peer_opts opt;
  peer_scene s;
  int which;
  if (peer_setup(argc, argv, "ode", names, 3, &opt, &s, &which)) return 2;
  const char* sv = opt.solver;
  int steps = opt.steps, kind = kinds[which], iters = its[which];
  dInitODE2(0);
  double us[64];
  for (int b = 0; b < opt.batches; b++) {
    ode_world o;
    ode_build(&o, &s, 8 * s.nb + 8);
    dWorldSetQuickStepNumIterations(o.world, iters);
    double t0 = peer_now();
    for (int k = 0; k < steps; k++) ode_step(&o, kind);
    us[b] = 1e6 * (peer_now() - t0) / steps;
    ode_free(&o);
  }
  peer_row r = {opt.scene, "ode", sv, 6 * s.nb, steps, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  r.us = peer_median(us, opt.batches);
  r.us_min = us[0];
  int st = stats(&s, kind, iters, steps, opt.eps, &r);
  dCloseODE();
  peer_scene_free(&s);
  if (st < 0) {
    fprintf(stderr, "bench_ode: out of memory\n");
    return 1;
  }
  peer_print(&r, opt.header);
  return 0;
}
