// model.c — the model's one buffer, its release and its lookups (see model.h; the compiler from
// URDF robots to a model is io/model_build.c).
#include "core/model.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"


const char* const model_joint_type_names[MODEL_NJOINT_TYPES] = {"free", "revolute", "prismatic",
                                                                "ball"};
const int model_joint_nq[MODEL_NJOINT_TYPES] = {7, 1, 1, 4};
const int model_joint_nv[MODEL_NJOINT_TYPES] = {6, 1, 1, 3};

const char* const model_geom_type_names[MODEL_NGEOM_TYPES] = {"plane",    "hfield",  "box",
                                                              "sphere",   "cylinder", "capsule",
                                                              "mesh",     "ellipsoid"};


// reserve `bytes` at the next 64-byte boundary of the buffer; NULL pointers while only measuring
static void* take(unsigned char* base, size_t* off, size_t bytes) {
  size_t o = (*off + 63) & ~(size_t)63;
  *off = o + bytes;
  return base ? (void*)(base + o) : NULL;
}

// place every array of m inside `base` (NULL: only measure), in MODEL_ARRAYS order; returns the
// bytes needed
static size_t model_layout(sim_model* m, unsigned char* base) {
  size_t off = 0;
#define MODEL_TAKE(type, name, rows, cols, desc) \
  m->name = take(base, &off, sizeof(type) * (size_t)(rows) * (size_t)(cols));
  MODEL_ARRAYS(MODEL_TAKE)
#undef MODEL_TAKE
  return off + 64;
}

// one zeroed buffer for every array, placed by model_layout; the world body's fields set
csim_status model_alloc(sim_model* m, csim_error* err) {
  size_t bytes = model_layout(m, NULL);
  m->buffer = calloc(1, bytes);
  if (!m->buffer)
    return err_set(err, CSIM_ERR_RUN, NULL, 0, 0, NULL, "out of memory (%zu bytes)", bytes);
  unsigned char* base = (unsigned char*)(((uintptr_t)m->buffer + 63) & ~(uintptr_t)63);
  model_layout(m, base);
  m->body_parent[0] = -1;
  m->body_filterparent[0] = -1;
  m->body_jnt[0] = -1;
  m->body_robot[0] = -1;
  m->body_link[0] = -1;
  m->body_quat[3] = 1;
  m->body_dofadr[0] = -1;
  return CSIM_OK;
}

//---------------------------------- inertia fixes -------------------------------------------

// fixes of model.h in principal axes: point mass -> sphere, non-positive moments raised,
// triangle inequality restored by raising the two smaller moments equally
int model_fix_inertia(double mass, double inertia[9]) {
  if (!(mass > 0)) return 0;
  int fixes = 0;
  double sphere = 0.4 * mass * MODEL_POINT_RADIUS * MODEL_POINT_RADIUS;
  // symmetrize (URDF gives six numbers, callers may pass a slightly asymmetric product)
  double A[9];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) A[3 * r + c] = 0.5 * (inertia[3 * r + c] + inertia[3 * c + r]);
  // point mass: all-zero inertia becomes a solid sphere of radius MODEL_POINT_RADIUS
  double amax = 0;
  for (int k = 0; k < 9; k++) amax = fmax(amax, fabs(A[k]));
  if (amax == 0) {
    memset(inertia, 0, 9 * sizeof(double));
    inertia[0] = inertia[4] = inertia[8] = sphere;
    return MODEL_FIX_POINT_MASS;
  }
  // principal moments, ascending
  double w[3], V[9];
  sp_eigsym3(w, V, A);
  // non-positive moments raised to max(moment, ratio * largest, sphere)
  for (int k = 0; k < 3; k++) {
    if (!(w[k] > 0)) {
      w[k] = fmax(fmax(w[k], MODEL_MIN_MOMENT_RATIO * w[2]), sphere);
      fixes |= MODEL_FIX_NOT_PD;
    }
  }
  // keep ascending order after raising
  for (int i = 0; i < 2; i++)
    for (int j = i + 1; j < 3; j++)
      if (w[j] < w[i]) {
        double t = w[i]; w[i] = w[j]; w[j] = t;
        for (int k = 0; k < 3; k++) {
          double tv = V[3 * k + i]; V[3 * k + i] = V[3 * k + j]; V[3 * k + j] = tv;
        }
      }
  // triangle inequality on the largest moment: I3 <= I1 + I2
  if (w[2] > w[0] + w[1]) {
    double dlt = 0.5 * (w[2] - w[0] - w[1]);
    w[0] += dlt;
    w[1] += dlt;
    fixes |= MODEL_FIX_TRIANGLE;
  }
  if (!fixes) {
    memcpy(inertia, A, sizeof(A));
    return 0;
  }
  // rebuild I = V diag(w) V'
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      inertia[3 * r + c] = V[3 * r] * w[0] * V[3 * c] + V[3 * r + 1] * w[1] * V[3 * c + 1] +
                           V[3 * r + 2] * w[2] * V[3 * c + 2];
  return fixes;
}

//---------------------------------- free, lookups --------------------------------------------

// names, hulls, then the buffer
void model_free(sim_model* m) {
  if (!m) return;
  if (m->buffer) {
    for (int i = 0; i < m->njnt; i++) free(m->jnt_name[i]);
    for (int i = 0; i < m->nlink; i++) free(m->link_name[i]);
    for (int i = 0; i < m->nrobot; i++) free(m->robot_name[i]);
    for (int i = 0; i < m->nmesh; i++) mesh_hull_free(&m->mesh[i]);
    free(m->buffer);
  }
  free(m->hfield_data);
  free(m->dof_Mcol);
  free(m);
}

// find `name` among n names owned by robots (robot of entry i: owner[via ? via[i] : i]); exact
// name first (unique), then "robot/name"; -1 when absent or ambiguous
static int find_name(const sim_model* m, char* const* names, const int* owner, const int* via,
                     int n, const char* name) {
  if (!m || !name) return -1;
  int hit = -1, count = 0;
  for (int i = 0; i < n; i++)
    if (names[i] && !strcmp(names[i], name)) {
      if (!count) hit = i;
      count++;
    }
  if (count == 1) return hit;
  if (count > 1) return -1;
  // "robot/name": try every '/' as the separator
  for (const char* s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
    size_t plen = (size_t)(s - name);
    for (int i = 0; i < n; i++) {
      int r = owner[via ? via[i] : i];
      if (r < 0 || !names[i]) continue;
      const char* rn = m->robot_name[r];
      if (strlen(rn) == plen && !strncmp(rn, name, plen) && !strcmp(names[i], s + 1)) return i;
    }
  }
  return -1;
}

// exact unique name, else "robot/joint" (a joint's robot is its body's)
int model_find_joint(const sim_model* m, const char* name) {
  if (!m) return -1;
  return find_name(m, m->jnt_name, m->body_robot, m->jnt_body, m->njnt, name);
}

// exact unique name, else "robot/link"
int model_find_link(const sim_model* m, const char* name) {
  if (!m) return -1;
  return find_name(m, m->link_name, m->link_robot, NULL, m->nlink, name);
}

int model_spin_geom(const sim_model* m) {
  for (int g = 0; m && g < m->ngeom; g++)
    if (m->geom_condim[g] > 3 && (m->geom_contype[g] || m->geom_conaffinity[g])) return g;
  for (int k = 0; m && k < m->npair; k++)
    if (m->pair_condim[k] > 3) return m->pair_geom[2 * k];
  return -1;
}

int model_geom_condim(const sim_model* m, int g) {
  int c = m->geom_condim[g];
  for (int k = 0; k < m->npair; k++)
    if ((m->pair_geom[2 * k] == g || m->pair_geom[2 * k + 1] == g) && m->pair_condim[k] > c)
      c = m->pair_condim[k];
  return c;
}

long model_pair_key(const sim_model* m, int k) {
  long a = m->pair_geom[2 * k], b = m->pair_geom[2 * k + 1];
  return a < b ? a * m->ngeom + b : b * m->ngeom + a;
}

int model_find_pair(const sim_model* m, int g1, int g2) {
  long key = g1 < g2 ? (long)g1 * m->ngeom + g2 : (long)g2 * m->ngeom + g1;
  int lo = 0, hi = m->npair - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    long k = model_pair_key(m, mid);
    if (k == key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

// sum of the robot's URDF link masses (world-merged links included)
double model_robot_mass(const sim_model* m, int r) {
  if (!m || r < 0 || r >= m->nrobot) return 0;
  double s = 0;
  for (int l = m->robot_linkadr[r]; l < m->robot_linkadr[r] + m->robot_nlink[r]; l++)
    s += m->link_mass[l];
  return s;
}
