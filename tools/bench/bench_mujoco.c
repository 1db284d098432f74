// tools/bench/bench_mujoco.c — csim against MuJoCo 2.2.2, side by side in one process (`make bench`).
//
// For each scene, csim runs the scenario through its library API (scn_load -> sim_create ->
// sim_step, the same code `csim run` uses, nothing recorded) with several model/solver pairs, and
// MuJoCo runs the SAME robot description: the scenario's URDF files, lightly edited as text
// (comments, <visual>, <limit>, <gazebo>, <transmission>, <material>, <contact>, <dynamics>,
// <mimic> removed; mesh URIs replaced by the absolute paths csim resolved; names prefixed per robot
// when there are several), merged under a <link name="world"/> with a floating joint per free
// base (a fixed joint for a fixed base), and a <mujoco><compiler fusestatic .../></mujoco>
// element injected (as tests/test_mujoco_dynamics.c does). MuJoCo then writes that model as MJCF
// (mj_saveLastXML) and the ground plane is added to its worldbody; both engines collide convex
// hulls of the same STL meshes. MuJoCo's options: dt and gravity of the scenario, elliptic cone,
// condim 3 with mu = contact.friction on every geom, solver PGS / CG / Newton with tolerance and
// iteration cap set to solver.tolerance and solver.max_iterations, contact pairs filtered like
// csim's (no self-collision unless contact.self_collision), default solref/solimp (soft contact),
// plus a "+stiff" variant (see below). MuJoCo's tolerance is on its own cost decrease, so equal
// numbers do not mean equal accuracy: eps_abs below is the common yardstick.
// Joint PD and trajectory actions are applied to MuJoCo the same way csim applies them (explicit:
// u = kp (q_ref - q) + kd (v_ref - v), clamped to effort_limit) through qfrc_applied.
//
// Timing: each engine/solver runs the scene from its initial state BATCHES times; a batch's time
// is the wall time of its step loop over the whole scenario (steps = duration / dt, or --steps),
// batches of all engines interleaved; the table gives the median over batches of the time per
// step (the CSV also the fastest batch). Setup (model building, sim_create) is not timed. The
// statistics (eps_abs, contacts, iterations, csim's own collision/dynamics/solve split) come from
// one more, untimed run.
//
// Accuracy: eps_abs is the NCP residual of seed 000 eq. 14 (src/core/solvers/solver.h solver_residuals), mean
// over all steps (0 for a step without contact). For csim it is what sim_step reports (on
// c = G lambda + g with g = J v_f - c*, c* the Baumgarte / speculative-contact target). For MuJoCo
// it is computed in a separate, untimed pass from MuJoCo's own quantities at each step: its
// contacts (pos, frame with the normal FIRST, converted to csim's [t1 t2 n]), the impulses
// lambda = dt * efc_force (elliptic cone: [f_n f_t1 f_t2] in the contact frame), the contact
// Jacobian J = frame * (mj_jac(body2) - mj_jac(body1)) at the contact point, G = J M^-1 J' (M^-1
// through mj_solveM on MuJoCo's factor) and g = J v_f with MuJoCo's free velocity
// v_f = v + dt qacc_smooth (c* = 0: MuJoCo has no Baumgarte target of this form; its soft
// constraints pull penetration back through solref instead). Then c = G lambda + g must equal J v+
// with MuJoCo's own next velocity (semi-implicit Euler, no damping): the largest mismatch is printed
// as a check that conventions and frames are right (round-off for PGS and Newton; for CG, a primal
// method whose forces match its acceleration only at convergence, it is CG's own leftover).
// What the MuJoCo figure means: with its default solref/solimp MuJoCo solves a regularized (soft)
// problem on purpose, so its eps_abs measures how far that soft answer is from the rigid NCP, not
// how well its solver converged; the row "newton elliptic stiff" (solref time constant 2 dt,
// solimp 0.99) shows the residual MuJoCo reaches with nearly rigid contacts. The two engines also
// pick different contact points on meshes (MuJoCo 2.2.2 keeps 1 point per foot of solo12, csim 4).
//
// Usage (from the repo root, built by tools/bench/bench_mujoco.sh):
//   bench_mujoco [--batches B] [--csv FILE]            the matched scenes (cube resting, sliding,
//                                                      2-cube stack, solo12 standing)
//   bench_mujoco --scenario FILE [--label NAME] [--set key=value]... [--steps N] [--batches B]
//                [--csim LIST|none] [--mujoco LIST|none] [--no-eps] [--csv FILE]
//                                                      one scenario (LIST: model/solver pairs
//                                                      "ncp/pgs,ccp/admm" or "pgs,newton+stiff";
//                                                      --batches 0: each engine's timed loop
//                                                      once, nothing printed, for callgrind)
// --csv appends rows (and writes the header when the file is new or empty).
// Exit status: 0 when every run completed, 1 when one failed, 2 on bad arguments.
#include <limits.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <mujoco/mjxmacro.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "io/scenario.h"
#include "core/sim.h"
#include "io/compile.h"
#include "core/solvers/solver.h"
#include "io/urdf.h"

#define MAXROWS 64          // table rows per invocation
#define MAXSET 32           // --set overrides
// MuJoCo 2.2.2 sizes mjData once, by <size njmax nconmax nstack> (no arena): its main buffer
// holds, besides per-contact and per-dof arrays, the dense constraint matrices efc_AR and
// efc_AR_colind (njmax x njmax: 12 njmax^2 bytes) and efc_J, efc_JT with their index arrays
// (njmax x nv each: 24 njmax nv bytes), whatever the solver or the Jacobian's sparsity. Its size,
// mjData.nbuffer, is an int: above INT_MAX bytes mj_makeData fails and the compiler reports
// "could not create mjData". An elliptic contact (condim 3) takes 3 constraint rows, so resting
// cubes (4 corner contacts, 6 dofs each) need njmax >= 12 per cube and 12 njmax^2 + 24 njmax nv
// grows as 2,000 bytes x cubes^2: 1024 cubes need 12288 rows, 3.6e9 bytes. mj_build sizes
// nconmax for the scene's bodies and shrinks it to the largest buffer an int holds; a scene
// whose resting contacts (MJ_REST_CONTACTS per body) do not fit then is refused, saying so.
#define MJ_REST_CONTACTS 4  // contacts a body resting on a face needs (a box's corners)

//---------------------------------- small utilities ------------------------------------------

// growable NUL-terminated byte buffer
typedef struct {
  char* p;
  size_t n, cap;
} sbuf;

// append n bytes; 0 on success, -1 when out of memory
static int sb_put(sbuf* b, const char* s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = 2 * (b->n + n + 1) + 1024;
    char* np = realloc(b->p, cap);
    if (!np) return -1;
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
  return 0;
}

// append a NUL-terminated string
static int sb_str(sbuf* b, const char* s) { return sb_put(b, s, strlen(s)); }

// append formatted text
static int sb_printf(sbuf* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static int sb_printf(sbuf* b, const char* fmt, ...) {
  char tmp[4096];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (k < 0 || (size_t)k >= sizeof tmp) return -1;
  return sb_put(b, tmp, (size_t)k);
}

// read a whole file as a NUL-terminated string (NULL on failure)
static char* read_text(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  sbuf b = {0};
  char chunk[8192];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
    if (sb_put(&b, chunk, k) < 0) {
      free(b.p);
      fclose(f);
      return NULL;
    }
  fclose(f);
  if (!b.p) b.p = calloc(1, 1);
  return b.p;
}

// csim's step as callgrind counts it (--toggle-collect=bench_csim_step): a call that link-time
// optimization cannot inline, so every instruction of sim_step, inlined parts included, is
// inside it (LTO splits sim_step; toggling on its name alone missed the inlined head)
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_NOIPA __attribute__((noipa))  // no inlining, cloning or renaming
#else
#define BENCH_NOIPA __attribute__((noinline))
#endif
BENCH_NOIPA static csim_status bench_csim_step(sim* s, sim_stepinfo* info,
                                           csim_error* err) {
  return sim_step(s, info, err);
}

// monotonic wall clock, s
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// median of n values (sorts them in place)
static double median(double* x, int n) {
  if (n <= 0) return NAN;
  for (int i = 1; i < n; i++)  // insertion sort: n is a handful of batches
    for (int j = i; j > 0 && x[j - 1] > x[j]; j--) {
      double t = x[j];
      x[j] = x[j - 1];
      x[j - 1] = t;
    }
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

//---------------------------------- URDF text -> MuJoCo ---------------------------------------

// find attribute `key` in the tag text [t, t+n): offsets of its value (inside the quotes); 1 if found
static int attr_span(const char* t, size_t n, const char* key, size_t* vs, size_t* ve) {
  size_t kl = strlen(key);
  for (size_t i = 1; i + kl < n; i++) {
    if (!(t[i - 1] == ' ' || t[i - 1] == '\t' || t[i - 1] == '\n' || t[i - 1] == '\r')) continue;
    if (strncmp(t + i, key, kl) != 0) continue;
    size_t j = i + kl;
    while (j < n && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n' || t[j] == '\r')) j++;
    if (j >= n || t[j] != '=') continue;
    j++;
    while (j < n && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n' || t[j] == '\r')) j++;
    if (j >= n || (t[j] != '"' && t[j] != '\'')) continue;
    char qc = t[j++];
    size_t k = j;
    while (k < n && t[k] != qc) k++;
    if (k >= n) return 0;
    *vs = j;
    *ve = k;
    return 1;
  }
  return 0;
}

// 1 if the element name [s, s+n) equals `name`
static int name_is(const char* s, size_t n, const char* name) {
  return strlen(name) == n && strncmp(s, name, n) == 0;
}

// absolute path csim resolved for mesh URI [u, u+n) of robot ur, into out; 1 if found
static int mesh_path(const urdf_robot* ur, const char* u, size_t n, char* out, size_t outsz) {
  for (int l = 0; l < ur->nlink; l++)
    for (int g = 0; g < ur->links[l].ngeom; g++) {
      const urdf_geom* G = &ur->links[l].geoms[g];
      if (!G->uri || !G->path || strlen(G->uri) != n || strncmp(G->uri, u, n) != 0) continue;
      if (!realpath(G->path, out)) return 0;
      (void)outsz;
      return 1;
    }
  return 0;
}

// copy one tag, replacing the value of attribute `key` by pre + value (pre != NULL) or by
// repl (repl != NULL); a tag without the attribute is copied as is
static int put_tag_attr(sbuf* out, const char* t, size_t n, const char* key, const char* pre,
                        const char* repl) {
  size_t vs, ve;
  if (!attr_span(t, n, key, &vs, &ve)) return sb_put(out, t, n);
  if (sb_put(out, t, vs) < 0) return -1;
  if (repl) {
    if (sb_str(out, repl) < 0) return -1;
  } else {
    if (sb_str(out, pre) < 0 || sb_put(out, t + vs, ve - vs) < 0) return -1;
  }
  return sb_put(out, t + ve, n - ve);
}

// Append the content of the <robot> element of URDF text to out, edited for MuJoCo (see the file
// comment): elements MuJoCo cannot read or csim does not simulate are dropped, link and joint
// names get the prefix pre, mesh URIs become the absolute paths csim resolved (ur). Returns 0, or
// -1 with msg filled.
static int urdf_edit(sbuf* out, const char* text, const urdf_robot* ur, const char* pre, char* msg,
                     size_t msgsz) {
  static const char* const skip_names[] = {"visual",    "limit",    "gazebo",  "transmission",
                                           "material",  "contact",  "dynamics", "mimic",
                                           "safety_controller", "calibration"};
  int depth = 0, skipping = 0, skip_depth = 0, seen_robot = 0;
  const char* p = text;
  while (*p) {
    // text between tags
    if (*p != '<') {
      if (!skipping && depth >= 1 && sb_put(out, p, 1) < 0) goto oom;
      p++;
      continue;
    }
    // comments are dropped
    if (strncmp(p, "<!--", 4) == 0) {
      const char* e = strstr(p + 4, "-->");
      if (!e) goto bad;
      p = e + 3;
      continue;
    }
    // end of the tag, respecting quoted attribute values
    const char* e = p + 1;
    char quote = 0;
    while (*e && (quote || *e != '>')) {
      if (quote && *e == quote)
        quote = 0;
      else if (!quote && (*e == '"' || *e == '\''))
        quote = *e;
      e++;
    }
    if (!*e) goto bad;
    size_t tn = (size_t)(e - p) + 1;
    // declarations and processing instructions are dropped (the merged file has its own)
    if (p[1] == '?' || p[1] == '!') {
      p = e + 1;
      continue;
    }
    // closing tag
    if (p[1] == '/') {
      depth--;
      if (skipping) {
        if (depth == skip_depth) skipping = 0;
      } else if (depth >= 1 && sb_put(out, p, tn) < 0) {
        goto oom;
      }
      p = e + 1;
      continue;
    }
    // opening or empty-element tag
    const char* ns = p + 1;
    size_t nn = strcspn(ns, " \t\r\n/>");
    int selfclose = e[-1] == '/';
    if (!skipping) {
      int skip = 0;
      for (size_t k = 0; k < sizeof skip_names / sizeof skip_names[0]; k++)
        if (name_is(ns, nn, skip_names[k])) skip = 1;
      if (depth == 0) {
        if (!name_is(ns, nn, "robot")) goto bad;
        seen_robot = 1;
      } else if (skip) {
        if (!selfclose) {
          skipping = 1;
          skip_depth = depth;
        }
      } else if (depth == 1 && (name_is(ns, nn, "link") || name_is(ns, nn, "joint"))) {
        if (put_tag_attr(out, p, tn, "name", pre, NULL) < 0) goto oom;
      } else if (depth == 2 && (name_is(ns, nn, "parent") || name_is(ns, nn, "child"))) {
        if (put_tag_attr(out, p, tn, "link", pre, NULL) < 0) goto oom;
      } else if (name_is(ns, nn, "mesh")) {
        size_t vs, ve;
        char path[4096];
        if (!attr_span(p, tn, "filename", &vs, &ve)) goto bad;
        if (!mesh_path(ur, p + vs, ve - vs, path, sizeof path)) {
          snprintf(msg, msgsz, "%s: mesh '%.*s' was not resolved by csim", ur->file,
                   (int)(ve - vs), p + vs);
          return -1;
        }
        if (put_tag_attr(out, p, tn, "filename", NULL, path) < 0) goto oom;
      } else if (sb_put(out, p, tn) < 0) {
        goto oom;
      }
    }
    if (!selfclose) depth++;
    p = e + 1;
  }
  if (depth != 0 || !seen_robot) goto bad;
  return 0;
bad:
  snprintf(msg, msgsz, "%s: URDF text could not be scanned", ur->file);
  return -1;
oom:
  snprintf(msg, msgsz, "out of memory");
  return -1;
}

// the robot prefix used for MuJoCo names ("" for a single robot)
static void robot_prefix(char* pre, size_t n, int nrobot, int r) {
  if (nrobot > 1)
    snprintf(pre, n, "r%d_", r);
  else
    pre[0] = 0;
}

// the merged URDF of every robot of the simulation (see the file comment); NULL with msg on error
static char* merged_urdf(const scn_config* cfg, int balance, char* msg, size_t msgsz) {
  sbuf b = {0};
  int bad = sb_str(&b, "<?xml version=\"1.0\"?>\n<robot name=\"csim_bench\">\n");
  bad |= sb_printf(&b,
                   "<mujoco><compiler discardvisual=\"true\" balanceinertia=\"%s\" "
                   "fusestatic=\"true\" strippath=\"false\" angle=\"radian\"/></mujoco>\n",
                   balance ? "true" : "false");
  bad |= sb_str(&b, "<link name=\"world\"/>\n");
  for (int r = 0; r < cfg->nrobots && !bad; r++) {
    // the robot as csim's parser reads it (the simulation keeps only the model built from it)
    const scn_robot* R = &cfg->robots[r];
    const char** pk = calloc((size_t)R->npackage_paths + 1, sizeof(char*));
    for (int k = 0; pk && k < R->npackage_paths; k++) pk[k] = R->package_paths[k];
    urdf_options uo = urdf_default_options();
    uo.package_paths = pk;
    urdf_robot* ur = NULL;
    csim_error uerr;
    csim_status ust = pk ? urdf_load(R->urdf_path, &uo, &ur, &uerr) : CSIM_ERR_RUN;
    free(pk);
    if (ust != CSIM_OK) {
      if (pk) err_format(&uerr, msg, msgsz); else snprintf(msg, msgsz, "out of memory");
      free(b.p);
      return NULL;
    }
    char pre[32];
    robot_prefix(pre, sizeof pre, cfg->nrobots, r);
    char* text = read_text(cfg->robots[r].urdf_path);
    if (!text) {
      snprintf(msg, msgsz, "cannot read %s", cfg->robots[r].urdf_path);
      urdf_free(ur);
      free(b.p);
      return NULL;
    }
    int st = urdf_edit(&b, text, ur, pre, msg, msgsz);
    free(text);
    if (st < 0) {
      urdf_free(ur);
      free(b.p);
      return NULL;
    }
    const char* root = ur->links[ur->root].name;
    if (cfg->robots[r].base == SCN_BASE_FREE) {
      bad |= sb_printf(&b,
                       "\n<joint name=\"%scsim_root\" type=\"floating\"><parent link=\"world\"/>"
                       "<child link=\"%s%s\"/></joint>\n",
                       pre, pre, root);
    } else {
      const double* x = cfg->robots[r].pos;
      const double* a = cfg->robots[r].rpy;
      bad |= sb_printf(&b,
                       "\n<joint name=\"%scsim_base\" type=\"fixed\"><parent link=\"world\"/>"
                       "<child link=\"%s%s\"/><origin xyz=\"%.17g %.17g %.17g\" "
                       "rpy=\"%.17g %.17g %.17g\"/></joint>\n",
                       pre, pre, root, x[0], x[1], x[2], a[0], a[1], a[2]);
    }
    urdf_free(ur);
  }
  bad |= sb_str(&b, "</robot>\n");
  if (bad) {
    snprintf(msg, msgsz, "out of memory");
    free(b.p);
    return NULL;
  }
  return b.p;
}

// compile URDF text with MuJoCo through a one-file VFS; NULL with err filled on failure
static mjModel* mj_load_text(const char* text, char* err, int errsz) {
  mjVFS* vfs = malloc(sizeof *vfs);
  if (!vfs) {
    snprintf(err, (size_t)errsz, "out of memory");
    return NULL;
  }
  mj_defaultVFS(vfs);
  int len = (int)strlen(text);
  mjModel* mm = NULL;
  if (mj_makeEmptyFileVFS(vfs, "csim_bench.urdf", len) == 0) {
    int idx = mj_findFileVFS(vfs, "csim_bench.urdf");
    memcpy(vfs->filedata[idx], text, (size_t)len);
    mm = mj_loadXML("csim_bench.urdf", vfs, err, errsz);
  } else {
    snprintf(err, (size_t)errsz, "VFS full");
  }
  mj_deleteVFS(vfs);
  free(vfs);
  return mm;
}

// Insert the ground plane and the buffer sizes into MJCF text saved by MuJoCo; NULL on failure.
static char* mjcf_edit(const char* xml, const scn_config* cfg, int nconmax, int njmax) {
  sbuf b = {0};
  const char* root = strstr(xml, "<mujoco");
  const char* wb = strstr(xml, "<worldbody>");
  if (!root || !wb) return NULL;
  const char* root_end = strchr(root, '>');
  if (!root_end || root_end > wb) return NULL;
  // drop an existing <size .../> so ours is the only one
  const char* sz = strstr(xml, "<size ");
  const char* sz_end = sz ? strstr(sz, "/>") : NULL;
  if (sz && (!sz_end || sz > wb)) sz = NULL;
  int bad = sb_put(&b, xml, (size_t)(root_end + 1 - xml));
  bad |= sb_printf(&b, "\n  <size njmax=\"%d\" nconmax=\"%d\"/>", njmax, nconmax);
  if (sz) {
    bad |= sb_put(&b, root_end + 1, (size_t)(sz - root_end - 1));
    bad |= sb_put(&b, sz_end + 2, (size_t)(wb - sz_end - 2));
  } else {
    bad |= sb_put(&b, root_end + 1, (size_t)(wb - root_end - 1));
  }
  bad |= sb_str(&b, "<worldbody>\n");
  if (cfg->ground)
    bad |= sb_printf(&b,
                     "    <geom name=\"csim_floor\" type=\"plane\" size=\"0 0 1\" "
                     "pos=\"0 0 %.17g\"/>\n",
                     cfg->ground_height);
  bad |= sb_str(&b, wb + strlen("<worldbody>"));
  if (bad) {
    free(b.p);
    return NULL;
  }
  return b.p;
}

// bytes of mjData's main buffer for model m0 with njmax nj and nconmax ncon: mj_makeData's own
// sum over MJDATA_POINTERS (each array rounded up to 8 bytes), counted in a double where MuJoCo
// 2.2.2 counts in its int mjData.nbuffer
static double mj_data_bytes(const mjModel* m0, int nj, int ncon) {
  mjModel mm = *m0;  // the sizes only: no pointer of the copy is followed
  mm.njmax = nj;
  mm.nconmax = ncon;
  const mjModel* m = &mm;
  MJDATA_POINTERS_PREAMBLE(m)
  double b = 0;
#define X(type, name, nr, nc) b += 8 * ceil((double)sizeof(type) * m->nr * (nc) / 8);
  MJDATA_POINTERS
#undef X
  return b;
}

// njmax for nconmax contacts: 3 rows per elliptic contact, and room for the joint limits
static int mj_njmax(int nconmax) {
  return 3 * nconmax + 64;
}

// Build MuJoCo's model of the simulation s (URDF -> MJCF + ground), with options set from the
// scenario (the solver is set per run). NULL with msg filled on failure.
static mjModel* mj_build(const scn_config* cfg, const sim* s, char* msg, size_t msgsz) {
  char err[1024] = "";
  mjModel* m0 = NULL;
  // balanceinertia off first; on only when MuJoCo refuses the inertias
  for (int balance = 0; balance <= 1 && !m0; balance++) {
    char* text = merged_urdf(cfg, balance, msg, msgsz);
    if (!text) return NULL;
    m0 = mj_load_text(text, err, (int)sizeof err);
    free(text);
    if (!m0 && !strstr(err, "balanceinertia")) break;
    if (m0 && balance) fprintf(stderr, "bench_mujoco: note: MuJoCo needed balanceinertia\n");
  }
  if (!m0) {
    snprintf(msg, msgsz, "MuJoCo refused the URDF: %s", err);
    return NULL;
  }
  // save as MJCF, add the ground and the sizes, reload
  char path[] = P_tmpdir "/csim_bench_mjcf.XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    mj_deleteModel(m0);
    snprintf(msg, msgsz, "cannot create a temporary file");
    return NULL;
  }
  close(fd);
  int ok = mj_saveLastXML(path, m0, err, (int)sizeof err);
  int nbody = m0->nbody;
  // contacts: 4 per body against the ground, and as many again for body-body pairs, as many as
  // mjData's int-sized buffer holds (MJ_REST_CONTACTS above); 1 MiB left for the ground geom
  int nconmax = 8 * nbody + 64, need = MJ_REST_CONTACTS * (nbody - 1);
  double room = (double)INT_MAX - 1048576;
  if (mj_data_bytes(m0, mj_njmax(nconmax), nconmax) > room) {
    int lo = 0, hi = nconmax;  // the largest nconmax in [0, hi) whose buffer fits
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      if (mj_data_bytes(m0, mj_njmax(mid), mid) <= room) lo = mid; else hi = mid;
    }
    nconmax = lo;
  }
  if (nconmax < need) {
    snprintf(msg, msgsz,
             "MuJoCo 2.2.2 cannot size mjData: %d resting contacts need njmax >= %d rows (3 per "
             "elliptic contact), so its buffer (efc_AR njmax^2, efc_J/efc_JT njmax x nv, nv %d) "
             "would be %.3g bytes, past its int size (%d; mj_makeData fails); at most %d "
             "contacts fit", need, 3 * need, m0->nv, mj_data_bytes(m0, mj_njmax(need), need),
             INT_MAX, nconmax);
    mj_deleteModel(m0);
    unlink(path);
    return NULL;
  }
  mj_deleteModel(m0);
  char* xml = ok ? read_text(path) : NULL;
  char* xml2 = xml ? mjcf_edit(xml, cfg, nconmax, mj_njmax(nconmax)) : NULL;
  free(xml);
  mjModel* m = NULL;
  if (xml2) {
    FILE* f = fopen(path, "wb");
    if (f) {
      fputs(xml2, f);
      fclose(f);
      m = mj_loadXML(path, NULL, err, (int)sizeof err);
    }
  }
  free(xml2);
  unlink(path);
  if (!m) {
    snprintf(msg, msgsz, "MuJoCo MJCF round trip failed: %s", err);
    return NULL;
  }
  // options: the scenario's step and gravity, elliptic cone, solver limits
  m->opt.timestep = cfg->dt;
  for (int k = 0; k < 3; k++) m->opt.gravity[k] = cfg->gravity[k];
  m->opt.cone = mjCONE_ELLIPTIC;
  m->opt.tolerance = cfg->tolerance;
  m->opt.iterations = cfg->max_iterations;
  m->opt.noslip_iterations = 0;
  // every geom: condim 3, mu = contact.friction; pairs filtered as csim does
  int floor_id = mj_name2id(m, mjOBJ_GEOM, "csim_floor");
  int multibody = 0;
  for (int r = 0; r < cfg->nrobots; r++)
    if (s->model.m->robot_nbody[r] > 1) multibody = 1;
  if (!cfg->self_collision && multibody && cfg->nrobots > 30) {
    mj_deleteModel(m);
    snprintf(msg, msgsz, "more than 30 multi-body robots: collision filter not mirrored");
    return NULL;
  }
  for (int g = 0; g < m->ngeom; g++) {
    m->geom_condim[g] = 3;
    m->geom_friction[3 * g] = cfg->friction;
    if (g == floor_id || cfg->self_collision || !multibody) {
      m->geom_contype[g] = 1;
      m->geom_conaffinity[g] = 1;
      if (g == floor_id) m->geom_conaffinity[g] = -1;  // all bits: every robot touches the floor
      continue;
    }
    // robot r: its own bit as type, every other bit as affinity -> no pair within a robot
    const char* gname = NULL;
    int b = m->geom_bodyid[g];
    gname = mj_id2name(m, mjOBJ_BODY, b);
    int r = 0;
    if (cfg->nrobots > 1 && gname && gname[0] == 'r') r = atoi(gname + 1);
    unsigned bit = 1u << (r + 1);
    m->geom_contype[g] = (int)bit;
    m->geom_conaffinity[g] = (int)~bit;
  }
  return m;
}

//---------------------------------- state and actions -----------------------------------------

// MuJoCo's joint for each csim joint, and the action mirror
typedef struct {
  mjModel* m;
  mjData* d;
  int* jmap;        // csim joint -> MuJoCo joint (csim njnt)
  double* q0;       // MuJoCo initial qpos (nq)
  double* v0;       // MuJoCo initial qvel (nv)
  double* solref0;  // the compiled geom_solref / geom_solimp, restored after a stiff run
  double* solimp0;
} mj_scene;

// MuJoCo's contact softness: the compiled defaults (stiff = 0), or nearly rigid contacts
// (stiff = 1): solref time constant 2 dt (the smallest MuJoCo recommends), impedance 0.99
static void mj_set_stiff(mj_scene* ms, int stiff) {
  mjModel* m = ms->m;
  memcpy(m->geom_solref, ms->solref0, sizeof(double) * (size_t)m->ngeom * mjNREF);
  memcpy(m->geom_solimp, ms->solimp0, sizeof(double) * (size_t)m->ngeom * mjNIMP);
  if (!stiff) return;
  for (int g = 0; g < m->ngeom; g++) {
    m->geom_solref[g * mjNREF] = 2 * m->opt.timestep;
    m->geom_solimp[g * mjNIMP] = 0.99;
    m->geom_solimp[g * mjNIMP + 1] = 0.99;
  }
}

// map csim joints to MuJoCo joints by name and convert the initial state; 0 or -1 with msg
static int mj_scene_init(mj_scene* ms, const scn_config* cfg, const sim* s, char* msg,
                         size_t msgsz) {
  const sim_model* cm = s->model.m;
  const sim_data* cd = s->data.d;
  mjModel* m = ms->m;
  ms->jmap = calloc((size_t)cm->njnt + 1, sizeof(int));
  ms->q0 = calloc((size_t)m->nq + 1, sizeof(double));
  ms->v0 = calloc((size_t)m->nv + 1, sizeof(double));
  if (!ms->jmap || !ms->q0 || !ms->v0) {
    snprintf(msg, msgsz, "out of memory");
    return -1;
  }
  if (cm->njnt != m->njnt || cm->nv != m->nv || cm->nq != m->nq) {
    snprintf(msg, msgsz, "models differ: csim njnt %d nq %d nv %d, MuJoCo njnt %d nq %d nv %d",
             cm->njnt, cm->nq, cm->nv, m->njnt, m->nq, m->nv);
    return -1;
  }
  for (int j = 0; j < cm->njnt; j++) {
    int r = cm->body_robot[cm->jnt_body[j]];
    char pre[32], name[512];
    robot_prefix(pre, sizeof pre, cm->nrobot, r);
    if (cm->jnt_type[j] == MODEL_JOINT_FREE)
      snprintf(name, sizeof name, "%scsim_root", pre);
    else
      snprintf(name, sizeof name, "%s%s", pre, cm->jnt_name[j]);
    int k = mj_name2id(m, mjOBJ_JOINT, name);
    if (k < 0) {
      snprintf(msg, msgsz, "MuJoCo has no joint '%s'", name);
      return -1;
    }
    ms->jmap[j] = k;
    const double* q = cd->q + cm->jnt_qadr[j];
    const double* v = cd->v + cm->jnt_dofadr[j];
    double* mq = ms->q0 + m->jnt_qposadr[k];
    double* mv = ms->v0 + m->jnt_dofadr[k];
    if (cm->jnt_type[j] == MODEL_JOINT_FREE) {
      // csim [x y z qx qy qz qw], v = [com velocity, world axes; angular, body axes] -> MuJoCo
      // [x y z qw qx qy qz], [body origin velocity, world axes; angular, body axes]:
      // v_origin = v_com - R (w x c), c the com in the body frame
      if (m->jnt_type[k] != mjJNT_FREE) {
        snprintf(msg, msgsz, "MuJoCo joint '%s' is not free", name);
        return -1;
      }
      double R[9];
      mq[0] = q[0], mq[1] = q[1], mq[2] = q[2];
      mq[3] = q[6], mq[4] = q[3], mq[5] = q[4], mq[6] = q[5];
      mju_quat2Mat(R, mq + 3);
      const double* c = cm->body_com + 3 * cm->jnt_body[j];
      double wc[3] = {v[4] * c[2] - v[5] * c[1], v[5] * c[0] - v[3] * c[2],
                      v[3] * c[1] - v[4] * c[0]};
      for (int a = 0; a < 3; a++)
        mv[a] = v[a] - (R[3 * a] * wc[0] + R[3 * a + 1] * wc[1] + R[3 * a + 2] * wc[2]);
      mv[3] = v[3], mv[4] = v[4], mv[5] = v[5];
    } else {
      mq[0] = q[0];
      mv[0] = v[0];
    }
  }
  // the actions MuJoCo can mirror
  for (int a = 0; a < cfg->nactions; a++)
    if (cfg->actions[a].type == ACT_FORCE) {
      snprintf(msg, msgsz, "action %d (force) is not mirrored in MuJoCo", a);
      return -1;
    }
  ms->solref0 = malloc(sizeof(double) * (size_t)(m->ngeom + 1) * mjNREF);
  ms->solimp0 = malloc(sizeof(double) * (size_t)(m->ngeom + 1) * mjNIMP);
  if (!ms->solref0 || !ms->solimp0) {
    snprintf(msg, msgsz, "out of memory");
    return -1;
  }
  memcpy(ms->solref0, m->geom_solref, sizeof(double) * (size_t)m->ngeom * mjNREF);
  memcpy(ms->solimp0, m->geom_solimp, sizeof(double) * (size_t)m->ngeom * mjNIMP);
  ms->d = mj_makeData(m);
  if (!ms->d) {
    snprintf(msg, msgsz, "mj_makeData failed");
    return -1;
  }
  return 0;
}

// reset MuJoCo's data to the initial state
static void mj_scene_reset(mj_scene* ms) {
  mj_resetData(ms->m, ms->d);
  memcpy(ms->d->qpos, ms->q0, sizeof(double) * (size_t)ms->m->nq);
  memcpy(ms->d->qvel, ms->v0, sizeof(double) * (size_t)ms->m->nv);
}

// joint PD / trajectory actions of the scenario -> MuJoCo's qfrc_applied (csim's stage_actions:
// the same actions, then the URDF effort limits when limits.effort is on)
static void mj_actions(const mj_scene* ms, const sim* s) {
  const mjModel* m = ms->m;
  mjData* d = ms->d;
  double t = d->time;
  memset(d->qfrc_applied, 0, sizeof(double) * (size_t)m->nv);
  for (int a = 0; a < s->model.nact; a++) {
    const sim_action* act = &s->model.act[a];
    const act_spec* A = &act->a;
    if (A->type == ACT_FORCE || t < A->start || t > A->stop) continue;
    for (int k = 0; k < act->njnt; k++) {
      int j = act->jnt[k], mj = ms->jmap[j];
      double qref = act->ref[k], vref = 0;
      if (A->type == ACT_TRAJECTORY) {
        double amp = A->amp ? A->amp[A->namp == 1 ? 0 : k] : 0;
        double fr = A->freq ? A->freq[A->nfreq == 1 ? 0 : k] : 0;
        double ph = A->phase_j ? A->phase_j[A->nphase == 1 ? 0 : k] : 0;
        double arg = 2 * M_PI * fr * (t - A->start) + ph;
        qref += amp * sin(arg);
        vref = amp * 2 * M_PI * fr * cos(arg);
      }
      int qa = m->jnt_qposadr[mj], da = m->jnt_dofadr[mj];
      double u = A->kp * (qref - d->qpos[qa]) + A->kd * (vref - d->qvel[da]);
      if (u > A->effort_limit) u = A->effort_limit;
      if (u < -A->effort_limit) u = -A->effort_limit;
      d->qfrc_applied[da] += u;
    }
  }
  if (s->opt.effort)
    for (int j = 0; j < s->model.m->njnt; j++) {
      double lim = s->model.m->jnt_effort[j];
      if (s->model.m->jnt_type[j] == MODEL_JOINT_FREE || !(lim > 0) || !isfinite(lim)) continue;
      double* u = d->qfrc_applied + m->jnt_dofadr[ms->jmap[j]];
      if (*u > lim) *u = lim;
      if (*u < -lim) *u = -lim;
    }
}

//---------------------------------- MuJoCo's NCP residual -------------------------------------

// buffers of the residual pass, sized for nconmax contacts
typedef struct {
  int maxc, nv;
  double *J, *X, *g, *lambda, *mu, *c, *vf, *vprev, *jp1, *jp2, *Jv;
} eps_work;

// allocate the residual buffers; 0 or -1
static int eps_alloc(eps_work* w, int maxc, int nv) {
  memset(w, 0, sizeof *w);
  w->maxc = maxc;
  w->nv = nv;
  size_t n3 = 3 * (size_t)maxc, v = (size_t)nv + 1;
  w->J = calloc(n3 * v, sizeof(double));
  w->X = calloc(v, sizeof(double));  // M^-1 J' lambda
  w->g = calloc(n3, sizeof(double));
  w->lambda = calloc(n3, sizeof(double));
  w->mu = calloc((size_t)maxc, sizeof(double));
  w->c = calloc(n3, sizeof(double));
  w->Jv = calloc(n3, sizeof(double));
  w->vf = calloc(v, sizeof(double));
  w->vprev = calloc(v, sizeof(double));
  w->jp1 = calloc(3 * v, sizeof(double));
  w->jp2 = calloc(3 * v, sizeof(double));
  return w->J && w->X && w->g && w->lambda && w->mu && w->c && w->Jv && w->vf &&
                 w->vprev && w->jp1 && w->jp2
             ? 0
             : -1;
}

// free the residual buffers
static void eps_free(eps_work* w) {
  free(w->J), free(w->X), free(w->g), free(w->lambda), free(w->mu), free(w->c);
  free(w->Jv), free(w->vf), free(w->vprev), free(w->jp1), free(w->jp2);
}

// contact con's Jacobian rows t1, t2, n (MuJoCo's frame rows are n, t1, t2) at its point,
// frame * (mj_jac(body2) - mj_jac(body1)), into w->J's rows 3 nc .. 3 nc + 2
static void contact_jac(const mjModel* m, mjData* d, const mjContact* con, eps_work* w, int nc) {
  int nv = m->nv;
  int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
  mj_jac(m, d, w->jp1, NULL, con->pos, b1);
  mj_jac(m, d, w->jp2, NULL, con->pos, b2);
  static const int row_of[3] = {1, 2, 0};
  for (int r = 0; r < 3; r++) {
    const double* ax = con->frame + 3 * row_of[r];
    double* Jr = w->J + (size_t)(3 * nc + r) * (size_t)nv;
    for (int k = 0; k < nv; k++) {
      double acc = 0;
      for (int a = 0; a < 3; a++) acc += ax[a] * (w->jp2[a * nv + k] - w->jp1[a * nv + k]);
      Jr[k] = acc;
    }
  }
}

// After mj_step (contacts, efc_force, M's factor and qacc_smooth are those of the state before
// the step, whose velocity is w->vprev): the 000 eq. 14 residual of MuJoCo's impulses on the
// problem G = J M^-1 J', g = J v_f built from MuJoCo's own Jacobians (c = G lambda + g formed
// as J (M^-1 J' lambda) + g, never G itself). *ncon receives the contacts;
// *mismatch the largest |(G lambda + g) - J v+| (should be round-off).
static void mj_residual(const mjModel* m, mjData* d, eps_work* w, solver_result* res, int* ncon,
                        double* mismatch) {
  int nv = m->nv, nc = 0;
  double dt = m->opt.timestep;
  // contacts with constraint rows, in MuJoCo's order
  for (int i = 0; i < d->ncon && nc < w->maxc; i++) {
    const mjContact* con = d->contact + i;
    if (con->exclude || con->efc_address < 0 || con->dim != 3) continue;
    contact_jac(m, d, con, w, nc);
    const double* f = d->efc_force + con->efc_address;  // [f_n f_t1 f_t2]
    w->lambda[3 * nc] = dt * f[1];
    w->lambda[3 * nc + 1] = dt * f[2];
    w->lambda[3 * nc + 2] = dt * f[0];
    w->mu[nc] = con->friction[0];
    nc++;
  }
  *ncon = nc;
  *mismatch = 0;
  if (nc == 0) {
    memset(res, 0, sizeof *res);
    return;
  }
  int n3 = 3 * nc;
  // u = M^-1 J' lambda (J' lambda in X's first row, solved in place), free velocity, g = J v_f
  // and c = J u + g: O(n3 nv), where the dense G = J M^-1 J' was O(n3^2 nv) (grid_256: 3072 rows
  // on 1536 dofs, some 1.4e10 operations a step, hours a run)
  double* u = w->X;
  for (int k = 0; k < nv; k++) {
    double acc = 0;
    for (int a = 0; a < n3; a++) acc += w->J[(size_t)a * (size_t)nv + k] * w->lambda[a];
    u[k] = acc;
  }
  mj_solveM(m, d, u, u, 1);
  for (int k = 0; k < nv; k++) w->vf[k] = w->vprev[k] + dt * d->qacc_smooth[k];
  for (int a = 0; a < n3; a++) {
    const double* Ja = w->J + (size_t)a * (size_t)nv;
    double acc = 0, accv = 0;
    for (int k = 0; k < nv; k++) {
      acc += Ja[k] * w->vf[k];
      accv += Ja[k] * d->qvel[k];
    }
    w->g[a] = acc;
    w->Jv[a] = accv;
    double cu = 0;
    for (int k = 0; k < nv; k++) cu += Ja[k] * u[k];
    w->c[a] = cu + acc;
  }
  solver_problem p = {0};  // mu only: the residuals of c (solver_residuals_of)
  p.nc = nc;
  p.g = w->g;
  p.mu = w->mu;
  solver_residuals_of(&p, w->lambda, w->c, res);
  for (int a = 0; a < n3; a++) {
    double e = fabs(w->c[a] - w->Jv[a]);
    if (e > *mismatch) *mismatch = e;
  }
}

// MuJoCo's answer on a model file as MuJoCo itself steps it (--mjcf-eps: the file's own cone,
// solver, joint limits, passive forces): after mj_step, each contact's force in its frame
// (mj_contactForce, which also decodes the pyramidal cone's edge forces), the impulse dt f, and its
// velocity c = J v+ with MuJoCo's own next velocity (whatever else the step held: limit rows,
// implicit damping), so no problem is rebuilt; the 000 eq. 14 residual of those on the sliding
// cone of friction[0] (condim 1: mu 0; condim 4/6: the torsional and rolling rows are not
// measured). c* = 0, as for the matched scenes (header)
static void mj_residual_own(const mjModel* m, mjData* d, eps_work* w, solver_result* res,
                            int* ncon) {
  int nc = 0;
  double dt = m->opt.timestep;
  for (int i = 0; i < d->ncon && nc < w->maxc; i++) {
    const mjContact* con = d->contact + i;
    if (con->exclude || con->efc_address < 0) continue;
    contact_jac(m, d, con, w, nc);
    mjtNum f[6];
    mj_contactForce(m, d, i, f);  // [f_n f_t1 f_t2 ...] in the contact frame
    w->lambda[3 * nc] = con->dim > 1 ? dt * f[1] : 0;
    w->lambda[3 * nc + 1] = con->dim > 1 ? dt * f[2] : 0;
    w->lambda[3 * nc + 2] = dt * f[0];
    w->mu[nc] = con->dim > 1 ? con->friction[0] : 0;
    for (int r = 0; r < 3; r++) {
      const double* Ja = w->J + (size_t)(3 * nc + r) * (size_t)m->nv;
      double acc = 0;
      for (int k = 0; k < m->nv; k++) acc += Ja[k] * d->qvel[k];
      w->c[3 * nc + r] = acc;
    }
    nc++;
  }
  *ncon = nc;
  memset(res, 0, sizeof *res);
  if (nc == 0) return;
  solver_problem p = {0};  // mu only: the residuals of c (solver_residuals_of)
  p.nc = nc;
  p.g = w->c;
  p.mu = w->mu;
  solver_residuals_of(&p, w->lambda, w->c, res);
}

// --mjcf-eps FILE --steps N: MuJoCo steps the file N times from its initial state as the file
// says (mj_loadXML, nothing edited: the run mujoco-testspeed times) and prints the mean over
// steps of eps_abs of its answers (mj_residual_own; 0 for a step without contact), the largest,
// the mean contacts, and the last step's contacts and the sums of its normal and tangential impulses (the
// contacts' frames alike: a box on a plane). 0, or 1 with a
// message
static int mjcf_eps(const char* path, int steps) {
  char err[1024] = "";
  mjModel* m = mj_loadXML(path, NULL, err, (int)sizeof err);
  if (!m) {
    fprintf(stderr, "bench_mujoco: %s: %s\n", path, err);
    return 1;
  }
  mjData* d = mj_makeData(m);
  eps_work w;
  int bad = !d || eps_alloc(&w, m->nconmax > 0 ? m->nconmax : 1, m->nv) != 0;
  double sum = 0, worst = 0, ncsum = 0, pn = 0, pt[2] = {0, 0};
  int nc = 0;
  for (int k = 0; !bad && k < steps; k++) {
    mj_step(m, d);
    solver_result r;
    mj_residual_own(m, d, &w, &r, &nc);
    if (!isfinite(r.eps_abs)) bad = 2;
    sum += r.eps_abs;
    worst = fmax(worst, r.eps_abs);
    ncsum += nc;
  }
  for (int i = 0; i < nc; i++) {  // the last step's impulses, summed in the contact frames
    pt[0] += w.lambda[3 * i];
    pt[1] += w.lambda[3 * i + 1];
    pn += w.lambda[3 * i + 2];
  }
  if (!bad)
    printf("eps_abs_mean %.6g eps_abs_max %.6g contacts_mean %.6g steps %d contacts_last %d "
           "pn_last %.12g pt_last %.12g\n", steps > 0 ? sum / steps : 0, worst,
           steps > 0 ? ncsum / steps : 0, steps, nc, pn, hypot(pt[0], pt[1]));
  else
    fprintf(stderr, "bench_mujoco: %s: %s\n", path,
            bad == 2 ? "a non-finite residual" : "out of memory");
  if (d) eps_free(&w);
  mj_deleteData(d);
  mj_deleteModel(m);
  return bad ? 1 : 0;
}

//---------------------------------- runs ------------------------------------------------------

// one table row
typedef struct {
  char scene[64];
  char engine[16];
  char solver[40];
  int nv, steps;
  double us;          // median us/step over batches
  double us_min;      // fastest batch
  double eps_mean, eps_max;
  double ncon_mean, iter_mean;
  int warnings;       // csim: steps not converged (iteration cap); MuJoCo: warnings raised
  char note[160];
} row;

// options of an invocation
typedef struct {
  int batches;
  int steps;          // 0: scenario duration / dt
  int eps;            // MuJoCo residual pass
  const char* csv;
} run_opts;

#define MAXBATCH 64   // batches per row

// the scenario of a scene: a file, or text named as if it were that file
typedef struct {
  const char* path;
  const char* text;
  const char* const* sets;
  int nset;
} scene_src;

// one engine/solver of a scene: its overrides (csim) or solver (MuJoCo), batch times and row
typedef struct {
  int is_mj;
  int sv;                       // MuJoCo: mjSOL_*
  int stiff;                    // MuJoCo: nearly rigid contacts (mj_set_stiff)
  const char* all[MAXSET + 4];  // csim: the scene's overrides + model, solver, extra
  int nall;
  char setm[64], setk[64], setx[128];
  char pair[32];
  double us[MAXBATCH];
  int failed;
  row r;
} runner;

// load a scenario with overrides and build its simulation; 0, or -1 with msg filled
static int csim_open(const scene_src* src, const char* const* sets, int nset, scn_config** cfg,
                     sim** s, char* msg, size_t msgsz) {
  csim_error err;
  csim_status st = src->text ? scn_load_string(src->text, src->path, sets, nset, cfg, &err)
                             : scn_load(src->path, sets, nset, cfg, &err);
  if (st == CSIM_OK) {
    st = sim_create(*cfg, s, &err);
    if (st != CSIM_OK) {
      scn_free(*cfg);
      *cfg = NULL;
    }
  }
  if (st != CSIM_OK) {
    err_format(&err, msg, msgsz);
    return -1;
  }
  return 0;
}

// scenario steps: the --steps option or duration / dt
static int scene_steps(const scn_config* cfg, const run_opts* o) {
  if (o->steps > 0) return o->steps;
  int n = (int)floor(cfg->duration / cfg->dt + 0.5);
  return n > 0 ? n : 1;
}

// set up a csim runner for pair "model/solver" with an optional extra override; 0 or -1
static int csim_runner(runner* u, const scene_src* src, const char* pair, const char* extra) {
  char model[32] = "";
  const char* sl = strchr(pair, '/');
  if (!sl || (size_t)(sl - pair) >= sizeof model || strlen(pair) >= sizeof u->pair) return -1;
  memcpy(model, pair, (size_t)(sl - pair));
  snprintf(u->pair, sizeof u->pair, "%s", pair);
  for (int k = 0; k < src->nset; k++) u->all[u->nall++] = src->sets[k];
  snprintf(u->setm, sizeof u->setm, "contact.model=%s", model);
  snprintf(u->setk, sizeof u->setk, "solver.name=%s", sl + 1);
  u->all[u->nall++] = u->setm;
  u->all[u->nall++] = u->setk;
  snprintf(u->r.engine, sizeof u->r.engine, "csim");
  snprintf(u->r.solver, sizeof u->r.solver, "%s", pair);
  if (extra) {
    snprintf(u->setx, sizeof u->setx, "%s", extra);
    u->all[u->nall++] = u->setx;
    const char* val = strchr(extra, '=');
    if (strstr(extra, "compliance") && val)
      snprintf(u->r.solver, sizeof u->r.solver, "%s R=%s*diag(G)", pair, val + 1);
    else
      snprintf(u->r.solver, sizeof u->r.solver, "%s %s", pair, extra);
  }
  return 0;
}

// csim: one run of the scene. Timed (returns us/step) or, with stats, untimed with the per-step
// statistics written to the row. NAN on failure (message on stderr).
static double csim_run(runner* u, const scene_src* src, const run_opts* o, int stats) {
  char msg[2048];
  scn_config* cfg = NULL;
  sim* s = NULL;
  if (csim_open(src, u->all, u->nall, &cfg, &s, msg, sizeof msg) < 0) {
    fprintf(stderr, "bench_mujoco: csim %s on %s: %s\n", u->pair, u->r.scene, msg);
    return NAN;
  }
  int steps = scene_steps(cfg, o), k;
  u->r.steps = steps;
  u->r.nv = s->model.m->nv;
  csim_error err;
  sim_stepinfo info;
  double se = 0, emax = 0, sc = 0, si = 0, tc = 0, td = 0, ts = 0;
  int nonconv = 0;  // steps whose contact solve stopped above its tolerance
  double t0 = now();
  if (stats) {
    for (k = 0; k < steps; k++) {
      if (bench_csim_step(s, &info, &err) != CSIM_OK) break;
      tc += info.t_collision, td += info.t_dynamics, ts += info.t_solve;
      se += info.solve.eps_abs;
      if (info.solve.eps_abs > emax) emax = info.solve.eps_abs;
      sc += info.ncon;
      si += info.ncon > 0 ? info.solve.iterations : 0;
      nonconv += info.ncon > 0 && !info.solve.converged;
    }
  } else {
    for (k = 0; k < steps; k++)
      if (bench_csim_step(s, &info, &err) != CSIM_OK) break;
  }
  double us = 1e6 * (now() - t0) / steps;
  if (k < steps) {
    err_format(&err, msg, sizeof msg);
    fprintf(stderr, "bench_mujoco: csim %s on %s: %s\n", u->pair, u->r.scene, msg);
    us = NAN;
  } else if (stats) {
    row* r = &u->r;
    r->eps_mean = se / steps;
    r->eps_max = emax;
    r->ncon_mean = sc / steps;
    r->iter_mean = si / steps;
    // sim_step counts SIM_WARN_NONCONVERGED for the compliant models only; the NCP solvers'
    // unconverged steps are counted here from the step's own solver result
    int nc = s->data.warnings[SIM_WARN_NONCONVERGED];
    if (nonconv < nc) nonconv = nc;
    r->warnings = nonconv;
    if (nonconv)
      snprintf(r->note, sizeof r->note, "%d of %d steps not converged (iteration cap)", nonconv,
               steps);
    else  // sim_step's own split of the (untimed-pass) step: collision, dynamics, contact+solve
      snprintf(r->note, sizeof r->note, "split us: coll %.1f, dyn %.1f, contact+solve %.1f",
               1e6 * tc / steps, 1e6 * td / steps, 1e6 * ts / steps);
  }
  sim_free(s);
  scn_free(cfg);
  return us;
}

static const char* const mj_solver_names[] = {"pgs", "cg", "newton"};

// MuJoCo: one timed run of the scene ms (mirrored from the csim simulation s); us/step
static double mj_run(runner* u, mj_scene* ms, const scn_config* cfg, const sim* s,
                     const run_opts* o) {
  mjModel* m = ms->m;
  mjData* d = ms->d;
  m->opt.solver = u->sv;
  mj_set_stiff(ms, u->stiff);
  int steps = scene_steps(cfg, o);
  mj_scene_reset(ms);
  double t0 = now();
  for (int k = 0; k < steps; k++) {
    mj_actions(ms, s);
    mj_step(m, d);
  }
  return 1e6 * (now() - t0) / steps;
}

// MuJoCo: the untimed pass: contacts, iterations, warnings and (o->eps) the NCP residual
static void mj_stats(runner* u, mj_scene* ms, const scn_config* cfg, const sim* s,
                     const run_opts* o) {
  mjModel* m = ms->m;
  mjData* d = ms->d;
  row* r = &u->r;
  m->opt.solver = u->sv;
  mj_set_stiff(ms, u->stiff);
  int steps = scene_steps(cfg, o);
  r->steps = steps;
  r->nv = m->nv;
  eps_work w = {0};
  int have_eps = o->eps && eps_alloc(&w, m->nconmax, m->nv) == 0;
  mj_scene_reset(ms);
  double se = 0, emax = 0, sc = 0, si = 0, mism = 0;
  for (int k = 0; k < steps; k++) {
    mj_actions(ms, s);
    if (have_eps) memcpy(w.vprev, d->qvel, sizeof(double) * (size_t)m->nv);
    mj_step(m, d);
    int nc = 0;
    for (int i = 0; i < d->ncon; i++)
      if (!d->contact[i].exclude && d->contact[i].efc_address >= 0) nc++;
    sc += nc;
    si += nc > 0 ? d->solver_iter : 0;
    if (have_eps) {
      solver_result res;
      double mm = 0;
      mj_residual(m, d, &w, &res, &nc, &mm);
      se += res.eps_abs;
      if (res.eps_abs > emax) emax = res.eps_abs;
      if (mm > mism) mism = mm;
    }
  }
  int warn = 0;
  for (int k = 0; k < mjNWARNING; k++) warn += d->warning[k].number;
  r->warnings = warn;
  r->ncon_mean = sc / steps;
  r->iter_mean = si / steps;
  if (have_eps) {
    r->eps_mean = se / steps;
    r->eps_max = emax;
    snprintf(r->note, sizeof r->note, "check |Glam+g - Jv+| <= %.1e", mism);
  } else {
    r->eps_mean = r->eps_max = NAN;
  }
  if (o->eps) eps_free(&w);
}

//---------------------------------- table and CSV ---------------------------------------------

// print the rows of one scene with ratios to MuJoCo with its default contact softness (Newton,
// and the fastest of its solvers), and append them to the CSV file
static void report(const row* rows, int n, const run_opts* o, int header) {
  double newton = NAN, best = NAN;
  for (int i = 0; i < n; i++)
    if (!strcmp(rows[i].engine, "mujoco") && !strstr(rows[i].solver, "stiff")) {
      if (!strcmp(rows[i].solver, "newton elliptic")) newton = rows[i].us;
      if (isnan(best) || rows[i].us < best) best = rows[i].us;
    }
  const char* fmt = "%-13s %-7s %-22s %4s %6s %9s %7s %7s %9s %9s %8s %7s  %s\n";
  if (header) {
    printf(fmt, "scene", "engine", "solver", "nv", "steps", "us/step", "/newton", "/best",
           "eps mean", "eps max", "contacts", "iters", "note");
    printf("%s\n", "---------------------------------------------------------------------------"
                   "-----------------------------------------------");
  }
  FILE* f = NULL;
  if (o->csv) {
    f = fopen(o->csv, "a");
    if (f && ftell(f) == 0)
      fprintf(f, "scene,engine,solver,nv,steps,us_per_step,ratio_mujoco_newton,"
                 "ratio_mujoco_best,eps_abs_mean,eps_abs_max,contacts_mean,iterations_mean,"
                 "warnings,us_per_step_min,note\n");
    if (!f) fprintf(stderr, "bench_mujoco: cannot append to %s\n", o->csv);
  }
  for (int i = 0; i < n; i++) {
    const row* r = &rows[i];
    char c[10][32];
    snprintf(c[0], 32, "%d", r->nv);
    snprintf(c[1], 32, "%d", r->steps);
    snprintf(c[2], 32, "%.2f", r->us);
    snprintf(c[3], 32, "%.2f", r->us / newton);
    snprintf(c[4], 32, "%.2f", r->us / best);
    snprintf(c[5], 32, "%.2e", r->eps_mean);
    snprintf(c[6], 32, "%.2e", r->eps_max);
    snprintf(c[7], 32, "%.2f", r->ncon_mean);
    snprintf(c[8], 32, "%.1f", r->iter_mean);
    printf(fmt, r->scene, r->engine, r->solver, c[0], c[1], c[2], c[3], c[4],
           isnan(r->eps_mean) ? "-" : c[5], isnan(r->eps_max) ? "-" : c[6], c[7], c[8],
           r->note);
    if (f)
      fprintf(f, "%s,%s,%s,%d,%d,%.4f,%.4f,%.4f,%.4e,%.4e,%.3f,%.2f,%d,%.4f,\"%s\"\n", r->scene,
              r->engine, r->solver, r->nv, r->steps, r->us, r->us / newton, r->us / best,
              r->eps_mean, r->eps_max, r->ncon_mean, r->iter_mean, r->warnings, r->us_min,
              r->note);
  }
  if (f) fclose(f);
  fflush(stdout);
}

// 1 if the model/solver pair "ncp/pgs" is registered in this build of csim
static int pair_registered(const char* pair) {
  char model[32] = "";
  const char* sl = strchr(pair, '/');
  if (!sl || (size_t)(sl - pair) >= sizeof model) return 0;
  memcpy(model, pair, (size_t)(sl - pair));
  int mi = -1, ki = -1;
  for (int k = 0; k < CSIM_NRIGID_MODELS; k++)
    if (!strcmp(csim_model_names[k], model)) mi = k;
  for (int k = 0; k < CSIM_NRIGID_SOLVERS; k++)
    if (!strcmp(csim_solver_names[k], sl + 1)) ki = k;
  return mi >= 0 && ki >= 0 && solver_pair_supported((csim_model)mi, (csim_solver)ki, NULL, 0);
}

// One scene: csim pairs (comma list; an extra override after '+', e.g.
// "ccp/admm+contact.compliance=0.1") and MuJoCo solvers (comma list). The timed batches are
// interleaved (batch b of every runner, in an order rotated by b) so that a change of machine
// load between batches hits every engine alike; the statistics come from one more, untimed run
// of each. Rows are printed and appended to the CSV.
static int bench_scene(const char* label, const scene_src* src, const char* csim_list,
                       const char* mj_list, const run_opts* o, int header) {
  runner* u = calloc(MAXROWS, sizeof(runner));
  if (!u) return 1;
  int n = 0, status = 0;
  char list[512];
  // csim runners
  snprintf(list, sizeof list, "%s", csim_list ? csim_list : "none");
  for (char* tok = strtok(list, ","); tok && n < MAXROWS; tok = strtok(NULL, ",")) {
    if (!strcmp(tok, "none")) break;
    char* plus = strchr(tok, '+');
    if (plus) *plus++ = 0;
    if (!pair_registered(tok)) {
      fprintf(stderr, "bench_mujoco: csim pair %s is not registered in this build: skipped\n", tok);
      continue;
    }
    if (csim_runner(&u[n], src, tok, plus) < 0) {
      fprintf(stderr, "bench_mujoco: bad csim pair '%s'\n", tok);
      status = 1;
      continue;
    }
    n++;
  }
  // MuJoCo runners, on the model mirrored from csim's simulation of the same scenario
  scn_config* cfg = NULL;
  sim* s = NULL;
  mj_scene ms = {0};
  if (mj_list && strcmp(mj_list, "none") != 0) {
    char msg[2048];
    if (csim_open(src, src->sets, src->nset, &cfg, &s, msg, sizeof msg) < 0 ||
        !(ms.m = mj_build(cfg, s, msg, sizeof msg)) ||
        mj_scene_init(&ms, cfg, s, msg, sizeof msg) < 0) {
      fprintf(stderr, "bench_mujoco: MuJoCo on %s: %s\n", label, msg);
      status = 1;
    } else {
      // same physical model: total mass of both
      double mc = 0, mm = 0;
      for (int b = 1; b < s->model.m->nbody; b++) mc += s->model.m->body_mass[b];
      for (int b = 1; b < ms.m->nbody; b++) mm += ms.m->body_mass[b];
      if (fabs(mc - mm) > 1e-4 * mc)
        fprintf(stderr, "bench_mujoco: %s: total mass csim %.9g kg, MuJoCo %.9g kg\n", label, mc,
                mm);
      snprintf(list, sizeof list, "%s", mj_list);
      for (char* tok = strtok(list, ","); tok && n < MAXROWS; tok = strtok(NULL, ",")) {
        char* plus = strchr(tok, '+');
        if (plus) *plus++ = 0;
        if (plus && strcmp(plus, "stiff") != 0) {
          fprintf(stderr, "bench_mujoco: unknown MuJoCo variant '+%s' (+stiff)\n", plus);
          status = 1;
          continue;
        }
        int sv = -1;
        for (int k = 0; k < 3; k++)
          if (!strcmp(tok, mj_solver_names[k])) sv = k;
        if (sv < 0) {
          fprintf(stderr, "bench_mujoco: unknown MuJoCo solver '%s' (pgs, cg, newton)\n", tok);
          status = 1;
          continue;
        }
        u[n].is_mj = 1;
        u[n].sv = sv;
        u[n].stiff = plus != NULL;
        snprintf(u[n].r.engine, sizeof u[n].r.engine, "mujoco");
        snprintf(u[n].r.solver, sizeof u[n].r.solver, "%s elliptic%s", tok,
                 plus ? " stiff" : "");
        n++;
      }
    }
  }
  for (int i = 0; i < n; i++) snprintf(u[i].r.scene, sizeof u[i].r.scene, "%s", label);
  // --batches 0: each engine's timed loop once and nothing else, for callgrind's counts: the
  // steps of a fresh process, as a user's run (MuJoCo's first run after mj_makeData costs 0.35 %
  // more instructions on stack_4 than its later ones, from state mj_resetData keeps)
  if (o->batches == 0) {
    for (int k = 0; k < n; k++)
      if (isnan(u[k].is_mj ? mj_run(&u[k], &ms, cfg, s, o) : csim_run(&u[k], src, o, 0)))
        status = 1;
    goto done;
  }
  // timed batches, interleaved
  int nb = o->batches < MAXBATCH ? o->batches : MAXBATCH;
  for (int b = 0; b < nb; b++)
    for (int k = 0; k < n; k++) {
      runner* x = &u[(k + b) % n];
      if (x->failed) continue;
      x->us[b] = x->is_mj ? mj_run(x, &ms, cfg, s, o) : csim_run(x, src, o, 0);
      if (isnan(x->us[b])) x->failed = 1;
    }
  // statistics, medians
  for (int i = 0; i < n; i++) {
    runner* x = &u[i];
    if (!x->failed) {
      if (x->is_mj)
        mj_stats(x, &ms, cfg, s, o);
      else if (isnan(csim_run(x, src, o, 1)))
        x->failed = 1;
    }
    if (x->failed) {
      status = 1;
      x->r.us = x->r.us_min = NAN;
      snprintf(x->r.note, sizeof x->r.note, "FAILED (see stderr)");
      continue;
    }
    x->r.us = median(x->us, nb);  // sorts: us[0] is then the fastest batch
    x->r.us_min = x->us[0];
    // an override that changes nothing: the same pair without it gave bit-identical results
    for (int k = 0; !x->is_mj && x->nall > src->nset + 2 && k < i; k++)
      if (!u[k].is_mj && !strcmp(u[k].r.solver, x->pair) && u[k].r.eps_mean == x->r.eps_mean &&
          u[k].r.eps_max == x->r.eps_max && u[k].r.iter_mean == x->r.iter_mean)
        snprintf(x->r.note, sizeof x->r.note, "same result as %.31s: %.48s has no effect", x->pair,
                 x->setx);
  }
  row rows[MAXROWS];
  for (int i = 0; i < n; i++) rows[i] = u[i].r;
  report(rows, n, o, header);
done:
  if (ms.d) mj_deleteData(ms.d);
  if (ms.m) mj_deleteModel(ms.m);
  free(ms.jmap), free(ms.q0), free(ms.v0), free(ms.solref0), free(ms.solimp0);
  sim_free(s);
  scn_free(cfg);
  free(u);
  return status;
}

//---------------------------------- main ------------------------------------------------------

// the two-cube stack of equal 1 kg cubes (cube_stack_ill's geometry without its 1e6 mass ratio);
// loaded as a string named as if it lived in scenarios/, so the URDF path resolves
static const char* const kStack2 =
    "name: cube_stack2\n"
    "world: {gravity: [0, 0, -9.81], ground: {type: plane, height: 0}}\n"
    "robots:\n"
    "  - {urdf: ../robots/cube.urdf, base: free, q0: [0, 0, 0.05, 0, 0, 0, 1]}\n"
    "  - {urdf: ../robots/cube.urdf, base: free, q0: [0, 0, 0.15, 0, 0, 0, 1]}\n"
    "contact: {model: ncp, friction: 0.5, baumgarte: 0}\n"
    "solver: {name: pgs, tolerance: 1.0e-8, max_iterations: 1000, warm_start: true}\n"
    "integrator: {dt: 1.0e-3, duration: 1.0}\n";

// the csim pairs of the matched table
#define CSIM_PAIRS "ncp/pgs,ncp/admm,ccp/admm,ccp/admm+contact.compliance=0.1"

// MuJoCo warning handler: drop the message (counted in d->warning)
static void quiet_warning(const char* msg) { (void)msg; }

// print usage
static void usage(FILE* f) {
  fprintf(f,
          "usage: bench_mujoco [--batches B] [--csv FILE]\n"
          "       bench_mujoco --scenario FILE [--label NAME] [--set key=value]... [--steps N]\n"
          "                    [--batches B (0: once, for callgrind)] [--csim LIST|none]\n"
          "                    [--mujoco LIST|none] [--no-eps]\n"
          "                    [--csv FILE]\n"
          "       bench_mujoco --mjcf-eps MODEL.xml --steps N\n");
}

int main(int argc, char** argv) {
  run_opts o = {7, 0, 1, NULL};
  const char* scenario = NULL;
  const char* label = NULL;
  const char* csim_list = CSIM_PAIRS;
  const char* mj_list = "pgs,cg,newton,newton+stiff";
  const char* sets[MAXSET];
  const char* mjcf = NULL;
  int nset = 0;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "--batches") && more)
      o.batches = atoi(argv[++i]);
    else if (!strcmp(a, "--steps") && more)
      o.steps = atoi(argv[++i]);
    else if (!strcmp(a, "--csv") && more)
      o.csv = argv[++i];
    else if (!strcmp(a, "--scenario") && more)
      scenario = argv[++i];
    else if (!strcmp(a, "--label") && more)
      label = argv[++i];
    else if (!strcmp(a, "--csim") && more)
      csim_list = argv[++i];
    else if (!strcmp(a, "--mujoco") && more)
      mj_list = argv[++i];
    else if (!strcmp(a, "--set") && more && nset < MAXSET)
      sets[nset++] = argv[++i];
    else if (!strcmp(a, "--mjcf-eps") && more)
      mjcf = argv[++i];
    else if (!strcmp(a, "--no-eps"))
      o.eps = 0;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  // --batches 0 (a scenario only): each engine's timed loop once, no statistics pass, for
  // callgrind's instruction counts (half the emulated work of a batch and its statistics)
  if (o.batches < (scenario ? 0 : 1) || o.batches > MAXBATCH || o.steps < 0) {
    usage(stderr);
    return 2;
  }
  // MuJoCo's warnings are counted in d->warning and reported per row, not printed
  mju_user_warning = quiet_warning;
  if (mjcf) return mjcf_eps(mjcf, o.steps);
  int status = 0;
  if (scenario) {
    if (!label) label = scenario;
    scene_src src = {scenario, NULL, sets, nset};
    status |= bench_scene(label, &src, csim_list, mj_list, &o, 1);
    return status ? 1 : 0;
  }
  printf("csim vs MuJoCo %s, same process; median of %d interleaved batches; dt = 1 ms; MuJoCo: "
         "elliptic cone, default solref/solimp, tolerance/iterations = the scenario's\n\n",
         mj_versionString(), o.batches);
  // the matched scenes
  static const char* const rest_sets[] = {"name=cube_rest", "robots.0.v0=[0, 0, 0, 0, 0, 0]",
                                          "integrator.duration=1.0"};
  const scene_src scenes[] = {{"scenarios/cube_slide.yaml", NULL, rest_sets, 3},
                              {"scenarios/cube_slide.yaml", NULL, NULL, 0},
                              {"scenarios/cube_stack2.yaml", kStack2, NULL, 0},
                              {"scenarios/solo12_stand.yaml", NULL, NULL, 0}};
  const char* const labels[] = {"cube_rest", "cube_slide", "cube_stack2", "solo12_stand"};
  for (int k = 0; k < 4; k++)
    status |= bench_scene(labels[k], &scenes[k], csim_list, mj_list, &o, k == 0);
  return status ? 1 : 0;
}
