// tools/bench/cubetoss_bullet.cpp — seed 003's Bullet row (Tab. III) with the real Bullet 3.24:
// every recorded cube toss of a group (../shared/data/cubetoss) replayed in Bullet from its first
// row, scored by csim's own e_q code (src/run/cubetoss.c ct_score, through peer_cubetoss.c), the
// pipeline of `csim validate cubetoss`. tools/figures/cubetoss_bullet.py runs it and writes its
// results in the layout of csim validate's HDF5 (for cubetoss_report.py --extra).
//
// The setting is the paper's (seed 003 Sec. III-A; its code: dairlib bullet_cube_sim.py at the
// commit the data README names, with pybullet's defaults where that code sets nothing):
// - the cube of the data (side, mass, inertia) as a btBoxShape; the table as dairlib's plane.urdf,
//   a 5 x 5 x 1 m box whose top is z = 0; collision margin 0.001 m on both (pybullet's URDF default);
// - contact stiffness k and damping b (Tab. II: 2500 N/m, 32 N s/m) and lateral friction mu (0.36)
//   set on the table as pybullet's changeDynamics does; the cube keeps pybullet's URDF defaults
//   (lateral friction 0.5, Bullet's default contact damping 0.1 and unbounded stiffness), and Bullet
//   combines them (friction: product, so the effective mu is 0.5 x 0.36 = 0.18; damping: sum;
//   stiffness: in series). --mu-cube 1 gives the table's mu literally;
// - pybullet's world settings (PhysicsServerCommandProcessor): 50 solver iterations, erp2 0.08,
//   friction ERP 0.2, linear slop 1e-5, warm-starting factor 0.1, least-squares residual
//   threshold 1e-7; gravity -9.81; dt = data period / substeps (1/1480 s with 10 substeps).
// The cube is what pybullet's loadURDF makes of a one-link URDF: a btMultiBody with a floating
// base (btMultiBodyDynamicsWorld, its constraint solver), with btMultiBody's default damping of
// the base (linear and angular 0.04: a drag m v (0.04 + 0.04 |v|), pybullet's changeDynamics
// default); the table a fixed collision body. --rigid 1 runs the cube as a btRigidBody instead
// (the rigid-body solver path, no damping): the harness's first form, kept for comparison.
// Output: one CSV row per toss (toss,rows,e_q,pos_err_pct,rot_err_deg,failed,steps,us_per_step,
// ms_total) on stdout; --q FILE writes the simulated rows [x y z qx qy qz qw] (doubles, tosses
// concatenated in order).
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <btBulletDynamicsCommon.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "peer_cubetoss.h"

namespace {

struct options {
  const char* data = "../shared/data/cubetoss/cube_tosses.h5";
  const char* group = "dairlib550_eval";
  const char* qout = nullptr;
  int substeps = 10;
  double k = 2500, b = 32, mu = 0.36, mu_cube = 0.5;
  int iterations = 50;
  int rigid = 0;
  int tosses = 0;  // --tosses N: the first N tosses of the group (0: all)
};

// the pose of transform t as q = [x y z qx qy qz qw]; 0 when not finite
int pose_of(const btTransform& t, double* q) {
  btQuaternion r = t.getRotation();
  const btVector3& p = t.getOrigin();
  double s[7] = {p.x(), p.y(), p.z(), r.x(), r.y(), r.z(), r.w()};
  int ok = 1;
  for (int k = 0; k < 7; k++) q[k] = s[k], ok &= std::isfinite(s[k]) ? 1 : 0;
  return ok;
}

// the table (dairlib's plane.urdf: a 5 x 5 x 1 m box, top at z = 0) and the cube of the data,
// with pybullet's URDF collision margin
struct toss_shapes {
  btBoxShape table{btVector3(2.5, 2.5, 0.5)};
  btBoxShape box;
  explicit toss_shapes(double side) : box(btVector3(0.5 * side, 0.5 * side, 0.5 * side)) {
    table.setMargin(0.001);
    box.setMargin(0.001);
  }
};

// pybullet's world settings (PhysicsServerCommandProcessor)
void world_settings(btDiscreteDynamicsWorld& world, const options& o) {
  btContactSolverInfo& si = world.getSolverInfo();
  si.m_numIterations = o.iterations;
  si.m_erp2 = 0.08;
  si.m_frictionERP = 0.2;
  si.m_linearSlop = 1e-5;
  si.m_warmstartingFactor = 0.1;
  si.m_leastSquaresResidualThreshold = 1e-7;
  world.setGravity(btVector3(0, 0, -9.81));
}

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

struct toss_world : toss_shapes {
  btDefaultCollisionConfiguration cfg;
  btCollisionDispatcher disp{&cfg};
  btDbvtBroadphase broad;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world{&disp, &broad, &solver, &cfg};
  btDefaultMotionState table_motion{btTransform(btQuaternion::getIdentity(), btVector3(0, 0, -0.5))};
  btDefaultMotionState cube_motion;
  btRigidBody* ground;
  btRigidBody* cube;

  toss_world(const options& o, double side, double mass, const double* inertia) : toss_shapes(side) {
    world_settings(world, o);
    btRigidBody::btRigidBodyConstructionInfo gi(0, &table_motion, &table);
    gi.m_friction = o.mu;
    gi.m_restitution = 0;
    ground = new btRigidBody(gi);
    ground->setContactStiffnessAndDamping(o.k, o.b);
    world.addRigidBody(ground);
    btRigidBody::btRigidBodyConstructionInfo ci(mass, &cube_motion, &box,
                                                btVector3(inertia[0], inertia[1], inertia[2]));
    ci.m_friction = o.mu_cube;
    ci.m_restitution = 0;
    cube = new btRigidBody(ci);
    cube->setActivationState(DISABLE_DEACTIVATION);
    world.addRigidBody(cube);
  }
  ~toss_world() {
    world.removeRigidBody(cube);
    world.removeRigidBody(ground);
    delete cube;
    delete ground;
  }
  // q = [x y z qx qy qz qw], v = [linear (world), angular (body)]
  void set(const double* q, const double* v) {
    btQuaternion r(q[3], q[4], q[5], q[6]);
    btTransform t(r, btVector3(q[0], q[1], q[2]));
    cube->setCenterOfMassTransform(t);
    cube->getMotionState()->setWorldTransform(t);
    cube->setLinearVelocity(btVector3(v[0], v[1], v[2]));
    cube->setAngularVelocity(t.getBasis() * btVector3(v[3], v[4], v[5]));
  }
  int get(double* q) const { return pose_of(cube->getCenterOfMassTransform(), q); }
};

// the cube as pybullet loads it: a floating-base btMultiBody of no links (see the header)
struct toss_mb_world : toss_shapes {
  btDefaultCollisionConfiguration cfg;
  btCollisionDispatcher disp{&cfg};
  btDbvtBroadphase broad;
  btMultiBodyConstraintSolver solver;
  btMultiBodyDynamicsWorld world{&disp, &broad, &solver, &cfg};
  btMultiBody* ground;
  btMultiBodyLinkCollider* gcol;
  btMultiBody* cube;
  btMultiBodyLinkCollider* col;

  toss_mb_world(const options& o, double side, double mass, const double* inertia)
      : toss_shapes(side) {
    world_settings(world, o);
    // the table: a fixed-base btMultiBody, as pybullet loads plane.urdf with useFixedBase
    ground = new btMultiBody(0, 0, btVector3(0, 0, 0), true, false);
    ground->finalizeMultiDof();
    btTransform tg(btQuaternion::getIdentity(), btVector3(0, 0, -0.5));
    ground->setBaseWorldTransform(tg);
    gcol = new btMultiBodyLinkCollider(ground, -1);
    gcol->setCollisionShape(&table);
    gcol->setWorldTransform(tg);
    gcol->setFriction(o.mu);
    gcol->setRestitution(0);
    gcol->setContactStiffnessAndDamping(o.k, o.b);
    world.addCollisionObject(gcol, btBroadphaseProxy::StaticFilter,
                             btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter);
    ground->setBaseCollider(gcol);
    world.addMultiBody(ground);
    cube = new btMultiBody(0, mass, btVector3(inertia[0], inertia[1], inertia[2]), false, false);
    cube->finalizeMultiDof();
    col = new btMultiBodyLinkCollider(cube, -1);
    col->setCollisionShape(&box);
    col->setFriction(o.mu_cube);
    col->setRestitution(0);
    world.addCollisionObject(col, btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
    cube->setBaseCollider(col);
    world.addMultiBody(cube);
  }
  ~toss_mb_world() {
    world.removeMultiBody(cube);
    world.removeCollisionObject(col);
    world.removeMultiBody(ground);
    world.removeCollisionObject(gcol);
    delete col;
    delete cube;
    delete gcol;
    delete ground;
  }
  // q = [x y z qx qy qz qw], v = [linear (world), angular (body)]
  void set(const double* q, const double* v) {
    btQuaternion r(q[3], q[4], q[5], q[6]);
    btTransform t(r, btVector3(q[0], q[1], q[2]));
    cube->setBaseWorldTransform(t);
    cube->setBaseVel(btVector3(v[0], v[1], v[2]));
    cube->setBaseOmega(t.getBasis() * btVector3(v[3], v[4], v[5]));
    col->setWorldTransform(t);
  }
  int get(double* q) const { return pose_of(cube->getBaseWorldTransform(), q); }
};

// toss i replayed in a World (toss_world or toss_mb_world) from its first row: the simulated rows
// into simq, the stepping time into *ts; 1 when a state was not finite
template <class World>
int replay(const options& o, const peer_ct* c, int i, double h, double side, double mass,
           const double* inertia, double* simq, double* ts) {
  int T = peer_ct_rows(c, i), failed = 0;
  double q[7], v[6];
  peer_ct_state(c, i, 0, q, v);
  World w(o, side, mass, inertia);
  w.set(q, v);
  failed |= !w.get(simq);
  for (int k = 1; k < T && !failed; k++) {
    double s0 = now();
    for (int s = 0; s < o.substeps; s++) w.world.stepSimulation(h, 0);
    *ts += now() - s0;
    failed |= !w.get(simq + 7 * (size_t)k);
  }
  return failed;
}

int parse(int argc, char** argv, options* o) {
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (i + 1 >= argc) return -1;
    const char* v = argv[++i];
    if (!std::strcmp(a, "--data")) o->data = v;
    else if (!std::strcmp(a, "--group")) o->group = v;
    else if (!std::strcmp(a, "--q")) o->qout = v;
    else if (!std::strcmp(a, "--substeps")) o->substeps = std::atoi(v);
    else if (!std::strcmp(a, "--iterations")) o->iterations = std::atoi(v);
    else if (!std::strcmp(a, "--k")) o->k = std::atof(v);
    else if (!std::strcmp(a, "--b")) o->b = std::atof(v);
    else if (!std::strcmp(a, "--mu")) o->mu = std::atof(v);
    else if (!std::strcmp(a, "--mu-cube")) o->mu_cube = std::atof(v);
    else if (!std::strcmp(a, "--rigid")) o->rigid = std::atoi(v);
    else if (!std::strcmp(a, "--tosses")) o->tosses = std::atoi(v);
    else return -1;
  }
  return o->substeps >= 1 && o->iterations >= 1 && o->tosses >= 0 ? 0 : -1;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  if (parse(argc, argv, &o) < 0) {
    std::fprintf(stderr, "usage: cubetoss_bullet [--data FILE.h5] [--group G] [--substeps N] "
                         "[--iterations N] [--k N/m] [--b N s/m] [--mu MU] [--mu-cube MU] [--rigid 0|1] "
                         "[--q FILE] [--tosses N]\n");
    return 2;
  }
  peer_ct* c = peer_ct_open(o.data, o.group);
  if (!c) return 2;
  double dt, side, mass, inertia[3];
  peer_ct_cube(c, &dt, &side, &mass, inertia);
  std::FILE* qf = o.qout ? std::fopen(o.qout, "wb") : nullptr;
  if (o.qout && !qf) {
    std::fprintf(stderr, "cubetoss_bullet: cannot write '%s'\n", o.qout);
    peer_ct_close(c);
    return 2;
  }
  std::printf("toss,rows,e_q,pos_err_pct,rot_err_deg,failed,steps,us_per_step,ms_total\n");
  double h = dt / o.substeps;
  int status = 0;
  int n = peer_ct_count(c);
  if (o.tosses > 0 && o.tosses < n) n = o.tosses;
  for (int i = 0; i < n; i++) {
    double t0 = now(), ts = 0;
    int T = peer_ct_rows(c, i);
    std::vector<double> simq(7 * (size_t)T);
    int failed = o.rigid ? replay<toss_world>(o, c, i, h, side, mass, inertia, simq.data(), &ts)
                         : replay<toss_mb_world>(o, c, i, h, side, mass, inertia, simq.data(), &ts);
    long steps = failed ? 0 : (long)(T - 1) * o.substeps;
    double eq = NAN, pos = NAN, rot = NAN;
    if (!failed) peer_ct_score(c, i, simq.data(), &eq, &pos, &rot);
    status |= failed;
    if (qf && std::fwrite(simq.data(), sizeof(double), simq.size(), qf) != simq.size()) status = 1;
    std::printf("%d,%d,%.9g,%.9g,%.9g,%d,%ld,%.6g,%.6g\n", i, T, eq, pos, rot, failed, steps,
                steps ? 1e6 * ts / (double)steps : NAN, 1e3 * (now() - t0));
  }
  if (qf && std::fclose(qf) != 0) status = 1;
  peer_ct_close(c);
  return status ? 1 : 0;
}
