// tools/bench/cubetoss_mujoco.c — seed 003's MuJoCo row (Tab. III) with the real MuJoCo 2.2.2:
// every recorded cube toss of a group (../shared/data/cubetoss) replayed in MuJoCo from its first
// row, scored by csim's own e_q code (src/run/cubetoss.c ct_score, through peer_cubetoss.c), the
// pipeline of `csim validate cubetoss` and of tools/bench/cubetoss_bullet.cpp. tools/figures/
// fig003_tab3.py runs it beside csim's ccp, which stands for MuJoCo's model there.
//
// The model is the paper's (seed 003 Sec. III-A; its code: dairlib mujoco_cube_sim.py): the cube of
// the data (side, mass, inertia) on a free joint; the table a 5 x 5 x 0.2 m box whose top is z = 0,
// carrying solref [-k, -b] (Tab. II: 3850, 63); friction mu (Tab. II: 0.23) on both geoms (MuJoCo
// takes the larger); everything else MuJoCo's default, as that file leaves it: pyramidal cone, Newton
// solver, Euler integrator, condim 3, margin 0, solimp [0.9 0.95 0.001 0.5 2]; `refsafe` disabled as
// the file disables it; dt = data period / substeps (1/1480 s with 10 substeps, the paper's `*_10`
// results).
// Output: one CSV row per toss (toss,rows,e_q,pos_err_pct,rot_err_deg,failed,steps,us_per_step,
// ms_total) on stdout, the layout of cubetoss_bullet.
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peer_cubetoss.h"

typedef struct {
  const char* data;
  const char* group;
  int substeps;
  double k, b, mu;
  int plane;  // --table plane: a plane at z = 0 in place of the paper's box (as csim's ground)
  int tosses;  // --tosses N: the first N tosses of the group (0: all)
} options;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int parse(int argc, char** argv, options* o) {
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (i + 1 >= argc) return -1;
    const char* v = argv[++i];
    if (!strcmp(a, "--data")) o->data = v;
    else if (!strcmp(a, "--group")) o->group = v;
    else if (!strcmp(a, "--substeps")) o->substeps = atoi(v);
    else if (!strcmp(a, "--k")) o->k = atof(v);
    else if (!strcmp(a, "--b")) o->b = atof(v);
    else if (!strcmp(a, "--mu")) o->mu = atof(v);
    else if (!strcmp(a, "--table") && (!strcmp(v, "box") || !strcmp(v, "plane"))) o->plane = !strcmp(v, "plane");
    else if (!strcmp(a, "--tosses")) o->tosses = atoi(v);
    else return -1;
  }
  return o->substeps >= 1 && o->k > 0 && o->b > 0 && o->mu >= 0 && o->tosses >= 0 ? 0 : -1;
}

// the paper's MJCF (mujoco_cube_sim.py's, without its lights, textures and the far floor plane)
// loaded from memory through MuJoCo's virtual file system (no file written); NULL after a message
static mjModel* load(const options* o, double dt, double side, double mass, const double* inertia) {
  char xml[2048];
  int n = snprintf(xml, sizeof xml,
          "<mujoco model=\"Cube\"><option timestep=\"%.17g\"><flag refsafe=\"disable\"/></option>"
          "<worldbody><body name=\"cube\" pos=\"0 0 0\">"
          "<inertial pos=\"0 0 0\" mass=\"%.17g\" fullinertia=\"%.17g %.17g %.17g 0 0 0\"/>"
          "<freejoint name=\"cube_board\"/>"
          "<geom name=\"cube_geom\" type=\"box\" size=\"%.17g %.17g %.17g\" friction=\"%.17g 0.005 0.0001\"/>"
          "</body><body name=\"board\" pos=\"0 0 %s\"><geom type=\"%s\" size=\"5 5 0.2\" "
          "solref=\"%.17g %.17g\" friction=\"%.17g 0.005 0.0001\"/></body></worldbody></mujoco>\n",
          dt / o->substeps, mass, inertia[0], inertia[1], inertia[2], 0.5 * side, 0.5 * side, 0.5 * side,
          o->mu, o->plane ? "0" : "-0.2", o->plane ? "plane" : "box", -o->k, -o->b, o->mu);
  if (n < 0 || n >= (int)sizeof xml) return NULL;
  mjVFS* vfs = malloc(sizeof *vfs);  // some megabytes: not on the stack
  if (!vfs) return NULL;
  mj_defaultVFS(vfs);
  mjModel* m = NULL;
  char err[1000] = "model not loaded";
  if (mj_makeEmptyFileVFS(vfs, "cube.xml", n) == 0) {
    memcpy(vfs->filedata[vfs->nfile - 1], xml, (size_t)n);
    m = mj_loadXML("cube.xml", vfs, err, sizeof err);
  }
  mj_deleteVFS(vfs);
  free(vfs);
  if (!m) fprintf(stderr, "cubetoss_mujoco: %s\n", err);
  return m;
}

// the cube's pose [x y z qx qy qz qw] from MuJoCo's qpos [x y z qw qx qy qz]; 0 when not finite
static int pose(const mjData* d, double* q) {
  const double s[7] = {d->qpos[0], d->qpos[1], d->qpos[2], d->qpos[4], d->qpos[5], d->qpos[6], d->qpos[3]};
  int ok = 1;
  for (int k = 0; k < 7; k++) q[k] = s[k], ok &= isfinite(s[k]) ? 1 : 0;
  return ok;
}

// one toss: the simulated rows into simq; 1 when a state was not finite
static int toss(const mjModel* m, mjData* d, const peer_ct* c, int i, int substeps, double* simq,
                double* ts) {
  double q[7], v[6];
  peer_ct_state(c, i, 0, q, v);
  mj_resetData(m, d);
  const double qp[7] = {q[0], q[1], q[2], q[6], q[3], q[4], q[5]};
  memcpy(d->qpos, qp, sizeof qp);
  memcpy(d->qvel, v, sizeof(double) * 6);  // free joint: linear in world axes, angular in the body's
  mj_forward(m, d);
  int failed = !pose(d, simq);
  for (int k = 1; k < peer_ct_rows(c, i) && !failed; k++) {
    double s0 = now();
    for (int s = 0; s < substeps; s++) mj_step(m, d);
    *ts += now() - s0;
    failed |= !pose(d, simq + 7 * (size_t)k);
  }
  return failed;
}

int main(int argc, char** argv) {
  options o = {"../shared/data/cubetoss/cube_tosses.h5", "dairlib550_eval", 10, 3850, 63, 0.23, 0, 0};
  if (parse(argc, argv, &o) < 0) {
    fprintf(stderr, "usage: cubetoss_mujoco [--data FILE.h5] [--group G] [--substeps N] [--k N/(kg m)] "
                    "[--b N s/(kg m)] [--mu MU] [--table box|plane] [--tosses N]\n");
    return 2;
  }
  peer_ct* c = peer_ct_open(o.data, o.group);
  if (!c) return 2;
  double dt, side, mass, inertia[3];
  peer_ct_cube(c, &dt, &side, &mass, inertia);
  mjModel* m = load(&o, dt, side, mass, inertia);
  mjData* d = m ? mj_makeData(m) : NULL;
  if (!d) {
    if (m) mj_deleteModel(m);
    peer_ct_close(c);
    return 2;
  }
  printf("toss,rows,e_q,pos_err_pct,rot_err_deg,failed,steps,us_per_step,ms_total\n");
  int status = 0;
  int n = peer_ct_count(c);
  if (o.tosses > 0 && o.tosses < n) n = o.tosses;
  for (int i = 0; i < n; i++) {
    double t0 = now(), ts = 0;
    int T = peer_ct_rows(c, i);
    double* simq = malloc(sizeof(double) * 7 * (size_t)T);
    if (!simq) return 2;
    int failed = toss(m, d, c, i, o.substeps, simq, &ts);
    double eq = NAN, pos = NAN, rot = NAN;
    if (!failed) peer_ct_score(c, i, simq, &eq, &pos, &rot);
    status |= failed;
    long steps = (long)(T - 1) * o.substeps;
    printf("%d,%d,%.9g,%.9g,%.9g,%d,%ld,%.6g,%.6g\n", i, T, eq, pos, rot, failed, steps,
           steps ? 1e6 * ts / (double)steps : NAN, 1e3 * (now() - t0));
    free(simq);
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  peer_ct_close(c);
  return status ? 1 : 0;
}
