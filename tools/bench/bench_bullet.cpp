// tools/bench/bench_bullet.cpp — Bullet 3.24 (libbullet-dev, its float64 build: bullet-float64.pc)
// as a measured peer of csim (`make bench`, tools/bench/bench_peers.py), on the cube scenes of
// bench_mujoco/bench_scenes.py (tools/bench/peer_common.h): free 1 kg 10 cm boxes (btBoxShape,
// inertia m a^2/6) on a btStaticPlaneShape, dt 1 ms (stepSimulation(h, 0): one internal step),
// gravity -9.81, restitution 0, friction mu on the cubes and 1 on the ground (Bullet multiplies
// the two), deactivation off. The plane-box pair uses Bullet's multipoint perturbation
// (setPlaneConvexMultipointIterations(), as pybullet does), so the manifold reaches a box's 4
// corners; the manifold keeps points up to the contact processing threshold (speculative).
// Solvers (btSequentialImpulseConstraintSolver: projected Gauss-Seidel on impulses, 10 iterations,
// warm start 0.85, split impulse for the penetration; Bullet's defaults):
//   default  Bullet's solver mode (SOLVER_USE_WARMSTARTING | SOLVER_SIMD): one friction row per
//            contact along the contact's sliding velocity (a plane-space direction when it sticks);
//   2dir     + SOLVER_USE_2_FRICTION_DIRECTIONS (a second row, orthogonal to the first);
//   pyramid  + SOLVER_USE_2_FRICTION_DIRECTIONS | SOLVER_DISABLE_VELOCITY_DEPENDENT_FRICTION_DIRECTION:
//            two fixed rows btPlaneSpace1(n), each clamped to mu lambda_n: the 4-facet pyramid of
//            seed 000 Sec. II-C "LCP", the problem csim's lcp/pgs solves.
// Timing: each batch builds the world (untimed) and times the step loop. One more, untimed pass
// reads each manifold point's impulses (m_appliedImpulse along m_normalWorldOnB, which points into
// body 0, and m_appliedImpulseLateral1/2 along m_lateralFrictionDir1/2) and computes csim's eq. 14
// residual of them (peer_residual, c* = 0).
// Usage: bench_bullet [--scene S] [--angle DEG] [--solver default|2dir|pyramid] [--steps N]
//                     [--batches B] [--no-eps] [--header]       one CSV row on stdout
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "peer_common.h"

namespace {

struct bt_world {
  btDefaultCollisionConfiguration cfg;
  btCollisionDispatcher disp{&cfg};
  btDbvtBroadphase broad;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world{&disp, &broad, &solver, &cfg};
  btStaticPlaneShape plane{btVector3(0, 0, 1), 0};
  btBoxShape box{btVector3(0.5 * PEER_SIDE, 0.5 * PEER_SIDE, 0.5 * PEER_SIDE)};
  std::vector<btDefaultMotionState*> motion;
  std::vector<btRigidBody*> body;
  btRigidBody* ground = nullptr;
  btDefaultMotionState ground_motion;
  const peer_scene* s;

  bt_world(const peer_scene* sc, int mode) : s(sc) {
    cfg.setPlaneConvexMultipointIterations();
    world.setGravity(btVector3(0, 0, -PEER_G));
    world.getSolverInfo().m_solverMode |= mode;
    btRigidBody::btRigidBodyConstructionInfo gi(0, &ground_motion, &plane);
    gi.m_friction = 1;
    gi.m_restitution = 0;
    ground = new btRigidBody(gi);
    ground->setUserIndex(-1);
    world.addRigidBody(ground);
    btVector3 inertia;
    box.calculateLocalInertia(PEER_MASS, inertia);
    for (int i = 0; i < sc->nb; i++) {
      btTransform t;
      t.setIdentity();
      t.setOrigin(btVector3(sc->pos[i][0], sc->pos[i][1], sc->pos[i][2]));
      motion.push_back(new btDefaultMotionState(t));
      btRigidBody::btRigidBodyConstructionInfo ci(PEER_MASS, motion.back(), &box, inertia);
      ci.m_friction = sc->mu;
      ci.m_restitution = 0;
      btRigidBody* b = new btRigidBody(ci);
      b->setLinearVelocity(btVector3(sc->vel[i][0], sc->vel[i][1], sc->vel[i][2]));
      b->setActivationState(DISABLE_DEACTIVATION);
      b->setUserIndex(i);
      body.push_back(b);
      world.addRigidBody(b);
    }
  }
  ~bt_world() {
    for (btRigidBody* b : body) world.removeRigidBody(b), delete b;
    for (btDefaultMotionState* m : motion) delete m;
    world.removeRigidBody(ground);
    delete ground;
  }
  void state(double (*x)[3], double (*v)[3], double (*w)[3]) const {
    for (int i = 0; i < s->nb; i++) {
      const btVector3& p = body[i]->getCenterOfMassPosition();
      const btVector3& lv = body[i]->getLinearVelocity();
      const btVector3& av = body[i]->getAngularVelocity();
      for (int a = 0; a < 3; a++) x[i][a] = p[a], v[i][a] = lv[a], w[i][a] = av[a];
    }
  }
  // the manifold points the solver used this step (distance within the processing threshold)
  int contacts(std::vector<peer_contact>& con, double* pn) {
    con.clear();
    *pn = 0;
    for (int m = 0; m < disp.getNumManifolds(); m++) {
      const btPersistentManifold* mf = disp.getManifoldByIndexInternal(m);
      int a = mf->getBody0()->getUserIndex(), b = mf->getBody1()->getUserIndex();
      for (int k = 0; k < mf->getNumContacts(); k++) {
        const btManifoldPoint& pt = mf->getContactPoint(k);
        if (pt.getDistance() > mf->getContactProcessingThreshold()) continue;
        peer_contact c;
        c.a = a, c.b = b;
        btVector3 P = pt.m_normalWorldOnB * pt.m_appliedImpulse +
                      pt.m_lateralFrictionDir1 * pt.m_appliedImpulseLateral1 +
                      pt.m_lateralFrictionDir2 * pt.m_appliedImpulseLateral2;
        for (int q = 0; q < 3; q++) {
          c.pa[q] = pt.getPositionWorldOnA()[q];
          c.pb[q] = pt.getPositionWorldOnB()[q];
          c.n[q] = pt.m_normalWorldOnB[q];
          c.P[q] = P[q];
        }
        *pn += pt.m_appliedImpulse;
        con.push_back(c);
      }
    }
    return (int)con.size();
  }
};

}  // namespace

// one step; callgrind counts the instructions inside it (--toggle-collect=bullet_step)
extern "C" __attribute__((noinline)) void bullet_step(btDiscreteDynamicsWorld* w, double h);
extern "C" __attribute__((noinline)) void bullet_step(btDiscreteDynamicsWorld* w, double h) {
  w->stepSimulation(h, 0);
}

// the untimed pass: contacts, residual of the impulses, normal impulse, final position
static int stats(const peer_scene* s, int mode, int steps, int eps, peer_row* r) {
  bt_world bw(s, mode);
  size_t nb = (size_t)s->nb;
  std::vector<double> buf(18 * nb);
  double(*x0)[3] = (double(*)[3])buf.data(), (*v0)[3] = x0 + nb, (*w0)[3] = v0 + nb;
  double(*x1)[3] = w0 + nb, (*v1)[3] = x1 + nb, (*w1)[3] = v1 + nb;
  std::vector<peer_contact> con;
  peer_eps w;
  int maxc = 8 * s->nb + 8;
  if (peer_eps_alloc(&w, maxc) < 0) return -1;
  for (int k = 0; k < steps; k++) {
    bw.state(x0, v0, w0);
    bullet_step(&bw.world, s->h);
    bw.state(x1, v1, w1);
    double pn, mm = 0, e = 0;
    int nc = bw.contacts(con, &pn);
    if (eps) e = peer_residual(&w, con.data(), nc, s->mu, s->h, x0, v0, w0, v1, w1, &mm);
    peer_account(r, nc, pn, e, mm);
  }
  peer_close(r, s, steps, eps, x1[0]);
  peer_eps_free(&w);
  return 0;
}

int main(int argc, char** argv) {
  static const char* const names[] = {"default", "2dir", "pyramid"};
  static const int modes[] = {
      0, SOLVER_USE_2_FRICTION_DIRECTIONS,
      SOLVER_USE_2_FRICTION_DIRECTIONS | SOLVER_DISABLE_VELOCITY_DEPENDENT_FRICTION_DIRECTION};
  peer_opts opt;
  peer_scene s;
  int which;
  if (peer_setup(argc, argv, "bullet", names, 3, &opt, &s, &which)) return 2;
  const char* sv = opt.solver;
  int steps = opt.steps, mode = modes[which];
  double us[64];
  for (int b = 0; b < opt.batches; b++) {
    bt_world bw(&s, mode);
    double t0 = peer_now();
    for (int k = 0; k < steps; k++) bullet_step(&bw.world, s.h);
    us[b] = 1e6 * (peer_now() - t0) / steps;
  }
  peer_row r = {opt.scene, "bullet", sv, 6 * s.nb, steps, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  r.us = peer_median(us, opt.batches);
  r.us_min = us[0];
  int st = stats(&s, mode, steps, opt.eps, &r);
  peer_scene_free(&s);
  if (st < 0) {
    std::fprintf(stderr, "bench_bullet: out of memory\n");
    return 1;
  }
  peer_print(&r, opt.header);
  return 0;
}
