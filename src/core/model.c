// model.c — the model's one buffer, its release and its lookups (see model.h; the compiler from
// URDF robots to a model is io/model_build.c).
#include "core/model.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"


const char* const model_joint_type_names[MODEL_NJOINT_TYPES] = {"free", "revolute", "prismatic"};

const char* const model_geom_type_names[MODEL_NGEOM_TYPES] = {"plane",    "hfield",  "box",
                                                              "sphere",   "cylinder", "capsule",
                                                              "mesh"};


// reserve `bytes` at the next 64-byte boundary of the buffer; NULL pointers while only measuring
static void* take(unsigned char* base, size_t* off, size_t bytes) {
  size_t o = (*off + 63) & ~(size_t)63;
  *off = o + bytes;
  return base ? (void*)(base + o) : NULL;
}

// place every array of m inside `base` (NULL: only measure); returns the bytes needed
static size_t model_layout(sim_model* m, unsigned char* base) {
  size_t off = 0, nb = (size_t)m->nbody, nj = (size_t)m->njnt, nv = (size_t)m->nv;
  size_t nl = (size_t)m->nlink, ng = (size_t)m->ngeom, nr = (size_t)m->nrobot;
  size_t I = sizeof(int), D = sizeof(double), P = sizeof(char*);
  // bodies
  m->body_parent = take(base, &off, I * nb);
  m->body_jnt = take(base, &off, I * nb);
  m->body_robot = take(base, &off, I * nb);
  m->body_link = take(base, &off, I * nb);
  m->body_pos = take(base, &off, D * nb * 3);
  m->body_quat = take(base, &off, D * nb * 4);
  m->body_mass = take(base, &off, D * nb);
  m->body_com = take(base, &off, D * nb * 3);
  m->body_inertia = take(base, &off, D * nb * 9);
  m->body_subtreemass = take(base, &off, D * nb);
  m->body_cinert = take(base, &off, D * nb * 10);
  m->body_dofadr = take(base, &off, I * nb);
  m->body_dofnum = take(base, &off, I * nb);
  m->body_geomadr = take(base, &off, I * nb);
  m->body_geomnum = take(base, &off, I * nb);
  // joints
  m->jnt_type = take(base, &off, I * nj);
  m->jnt_body = take(base, &off, I * nj);
  m->jnt_qadr = take(base, &off, I * nj);
  m->jnt_dofadr = take(base, &off, I * nj);
  m->jnt_axis = take(base, &off, D * nj * 3);
  m->jnt_limited = take(base, &off, I * nj);
  m->jnt_range = take(base, &off, D * nj * 2);
  m->jnt_effort = take(base, &off, D * nj);
  m->jnt_mimic = take(base, &off, I * nj);
  m->jnt_mimic_coef = take(base, &off, D * nj * 2);
  m->jnt_name = take(base, &off, P * nj);
  // dofs
  m->dof_body = take(base, &off, I * nv);
  m->dof_jnt = take(base, &off, I * nv);
  m->dof_parent = take(base, &off, I * nv);
  m->dof_Madr = take(base, &off, I * nv);
  m->dof_motion = take(base, &off, D * nv * 6);
  // links
  m->link_body = take(base, &off, I * nl);
  m->link_robot = take(base, &off, I * nl);
  m->link_pos = take(base, &off, D * nl * 3);
  m->link_quat = take(base, &off, D * nl * 4);
  m->link_mass = take(base, &off, D * nl);
  m->link_name = take(base, &off, P * nl);
  // geoms and meshes
  m->geom_type = take(base, &off, I * ng);
  m->geom_body = take(base, &off, I * ng);
  m->geom_link = take(base, &off, I * ng);
  m->geom_pos = take(base, &off, D * ng * 3);
  m->geom_quat = take(base, &off, D * ng * 4);
  m->geom_size = take(base, &off, D * ng * 3);
  m->geom_rbound = take(base, &off, D * ng);
  m->geom_mesh = take(base, &off, I * ng);
  m->mesh = take(base, &off, sizeof(mesh_hull) * (size_t)m->nmesh);
  // robots
  m->robot_name = take(base, &off, P * nr);
  m->robot_base = take(base, &off, I * nr);
  m->robot_bodyadr = take(base, &off, I * nr);
  m->robot_nbody = take(base, &off, I * nr);
  m->robot_qadr = take(base, &off, I * nr);
  m->robot_nq = take(base, &off, I * nr);
  m->robot_dofadr = take(base, &off, I * nr);
  m->robot_nv = take(base, &off, I * nr);
  m->robot_linkadr = take(base, &off, I * nr);
  m->robot_nlink = take(base, &off, I * nr);
  m->qpos0 = take(base, &off, D * (size_t)m->nq);
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

// sum of the robot's URDF link masses (world-merged links included)
double model_robot_mass(const sim_model* m, int r) {
  if (!m || r < 0 || r >= m->nrobot) return 0;
  double s = 0;
  for (int l = m->robot_linkadr[r]; l < m->robot_linkadr[r] + m->robot_nlink[r]; l++)
    s += m->link_mass[l];
  return s;
}
