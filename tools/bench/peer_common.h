// tools/bench/peer_common.h — what the Bullet and ODE harnesses (bench_bullet.cpp, bench_ode.c)
// share: the cube scenes of bench_mujoco/bench_scenes.py built from numbers (every body is csim's
// robots/cube.urdf: 1 kg, 10 cm, inertia m a^2/6 about every axis), the command line, the CSV row,
// and the residual of a peer's contact impulses computed by csim's own code (solver_residuals,
// seed 000 eq. 14). Plain C with a C++ guard: the C++ harness links the C object.
#ifndef CSIM_PEER_COMMON_H
#define CSIM_PEER_COMMON_H

#ifdef __cplusplus
extern "C" {
#endif

#define PEER_MAXB 1024       // bodies of a scene
#define PEER_MASS 1.0        // kg (robots/cube.urdf)
#define PEER_SIDE 0.1        // m
#define PEER_INERTIA (PEER_MASS * PEER_SIDE * PEER_SIDE / 6.0)
#define PEER_G 9.81

// a scene: free cubes on the plane z = 0 (static ground), friction mu, step h
typedef struct {
  char name[48];
  int nb;
  double (*pos)[3];     // initial centres (identity orientation)
  double (*vel)[3];     // initial linear velocities (no spin)
  double mu, h;
  int steps;            // default step count of the scene
} peer_scene;

// one contact of a peer's answer: bodies a (receives +P) and b (receives -P; -1: the ground), the
// contact point on each body (world), the normal pointing into a, and the impulse P on a (world,
// over the step: force x h)
typedef struct {
  int a, b;
  double pa[3], pb[3], n[3], P[3];
} peer_contact;

// residual work: sized for maxc contacts
typedef struct {
  int maxc;
  double *G, *g, *lambda, *mu, *c, *Jv, *frame;
} peer_eps;

// options of a harness invocation
typedef struct {
  const char* scene;    // cube_rest, cube_slide, cube_oblique, cube_stack2, grid_N, stack_N
  double angle;         // cube_oblique: launch angle off the y axis, degrees
  const char* solver;   // engine-specific name (the harness lists its own)
  int steps;            // 0: the scene's
  int batches;
  int eps;              // the residual pass
  int header;           // print the CSV header first
} peer_opts;

// one output row (CSV, stdout)
typedef struct {
  const char *scene, *engine, *solver;
  int nv, steps;
  double us, us_min;            // median and fastest batch, us per step
  double con_mean;              // contacts per step
  int con_last;                 // contacts at the last step
  double pn_last;               // sum of normal impulses at the last step, N s
  double eps_mean, eps_max;     // seed 000 eq. 14 residual of the peer's impulses
  double mismatch;              // max |G lambda + g - J v+| (frame/convention check)
  double turn, dist;            // launch direction minus final displacement direction (deg), m
} peer_row;

// parse argv into o (defaults first); 0, or 2 after a usage message naming the engine's solvers
int peer_parse(int argc, char** argv, peer_opts* o, const char* engine, const char* solvers);

// peer_parse; then o->solver (default names[0]) must be one of the engine's n solver names
// (*which: its index), the scene is built and o->steps set (the scene's when not given); 0, or 2
// after a message
int peer_setup(int argc, char** argv, const char* engine, const char* const* names, int n,
               peer_opts* o, peer_scene* s, int* which);
// build a scene; 0, or -1 with a message on stderr
int peer_scene_make(const char* name, double angle, peer_scene* s);
void peer_scene_free(peer_scene* s);
int peer_eps_alloc(peer_eps* w, int maxc);
void peer_eps_free(peer_eps* w);
// the eq. 14 residual of the impulses of nc contacts on the problem G = J M^-1 J', g = J v_f,
// v_f = v0 + h gravity (isotropic cubes: no gyroscopic term), with x0/v0/w0 the bodies' centres
// and velocities before the step and v1/w1 after it; returns eps_abs, *mismatch the largest
// |(G lambda + g) - J v+|
double peer_residual(peer_eps* w, const peer_contact* con, int nc, double mu, double h,
                     const double (*x0)[3], const double (*v0)[3], const double (*w0)[3],
                     const double (*v1)[3], const double (*w1)[3], double* mismatch);
// the statistics pass: add one step (contacts, sum of normal impulses, residual, mismatch; 0 for
// the last two without the residual pass), then turn the sums into means after `steps` steps
void peer_account(peer_row* r, int nc, double pn, double eps, double mismatch);
void peer_close(peer_row* r, const peer_scene* s, int steps, int eps, const double* x_end);
// monotonic wall clock, s; the median of n values (sorted in place)
double peer_now(void);
double peer_median(double* x, int n);
// the turn (deg) and distance of body 0's displacement d against the launch direction of s
void peer_turn(const peer_scene* s, const double* x_end, double* turn, double* dist);
void peer_print(const peer_row* r, int header);

#ifdef __cplusplus
}
#endif

#endif  // CSIM_PEER_COMMON_H
