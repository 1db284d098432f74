// cli_info.c — `csim info ROBOT.urdf|MODEL.xml`: what the URDF or MJCF reader and the model
// builder understood.
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/model.h"
#include "io/mjcf.h"
#include "io/model_build.h"
#include "io/urdf.h"

static const char* const kInfoUsage =
    "usage: csim info ROBOT.urdf|MODEL.xml [--base fixed|free] [--package-path DIR]... [--joints]\n"
    "\n"
    "Prints links, joints by type, dofs (nq, nv), total mass, inertia problems found and what\n"
    "csim does about them, collision geometries by kind and meshes that cannot be used.\n"
    "An MJCF file (.xml, .mjcf) also gets its bodies with their masses, its time step and\n"
    "gravity, and every element csim cannot simulate yet (the model is refused then).\n"
    "  --base fixed|free    base used for the model summary (default fixed; both dof counts\n"
    "                       are printed either way)\n"
    "  --package-path DIR   where package:// URIs are searched (repeatable; also the\n"
    "                       colon-separated environment variable CSIM_PACKAGE_PATH)\n"
    "  --joints             also list every joint with its type, parent, child and limits\n";

// count links whose mass would make the robot's total
static double urdf_total_mass(const urdf_robot* r) {
  double m = 0;
  for (int i = 0; i < r->nlink; i++) m += r->links[i].mass;
  return m;
}

// build the model of one robot with the given base; meshes are optional for info
static csim_status build_model(const urdf_robot* r, model_base_type base, sim_model** m,
                               csim_error* err) {
  model_world_spec world = {{0, 0, -9.81}, 0, 0, 0, 0, {0, 0}, NULL};
  model_robot_spec spec;
  memset(&spec, 0, sizeof(spec));
  spec.urdf = r;
  spec.base = base;
  spec.base_quat[3] = 1;
  spec.require_meshes = 0;
  return model_create(&world, &spec, 1, m, err);
}

// the command line of csim info
typedef struct {
  const char* path;
  const char** pkg;         // --package-path values (NULL-terminated)
  int npkg;
  int list_joints;
  model_base_type base;
} info_args;

// parse argv into a (a->pkg: room for argc entries); 0 to go on, -1 when help was printed,
// else an exit code
static int info_parse(int argc, char** argv, info_args* a) {
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(kInfoUsage, stdout);
      return -1;
    } else if (!strcmp(argv[i], "--base") && i + 1 < argc) {
      const char* b = argv[++i];
      if (!strcmp(b, "free")) {
        a->base = MODEL_BASE_FREE;
      } else if (!strcmp(b, "fixed")) {
        a->base = MODEL_BASE_FIXED;
      } else {
        fprintf(stderr, "csim: error: --base: expected 'fixed' or 'free', found '%s'\n", b);
        return CSIM_ERR_INPUT;
      }
    } else if (!strcmp(argv[i], "--package-path") && i + 1 < argc) {
      a->pkg[a->npkg++] = argv[++i];
    } else if (!strcmp(argv[i], "--joints")) {
      a->list_joints = 1;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "csim: error: info: unknown or incomplete option '%s'\n%s", argv[i],
              kInfoUsage);
      return CSIM_ERR_INPUT;
    } else if (!a->path) {
      a->path = argv[i];
    } else {
      fprintf(stderr, "csim: error: info: one URDF file expected, found a second: '%s'\n",
              argv[i]);
      return CSIM_ERR_INPUT;
    }
  }
  if (!a->path) {
    fprintf(stderr, "csim: error: info: missing ROBOT.urdf\n%s", kInfoUsage);
    return CSIM_ERR_INPUT;
  }
  return 0;
}

// is issue `is` about a mesh (not an inertia problem)?
static int mesh_issue(const urdf_issue* is) {
  return is->kind == URDF_ISSUE_MESH_UNRESOLVED || is->kind == URDF_ISSUE_MESH_FORMAT;
}

// URDF-level summary: links, joints by type, mass, geometries by type; the mesh geometries into
// *nmesh
static void print_urdf_summary(FILE* f, const urdf_robot* r, const char* path, int* nmesh) {
  int nj[URDF_NJOINT_TYPES] = {0}, nmimic = 0, ng[URDF_NGEOM_TYPES] = {0}, ngeom = 0;
  // URDF's own kinds only (the MJCF ones, ball joints, planes and ellipsoids, after them)
  int njt = r->world_root ? URDF_NJOINT_TYPES : URDF_JOINT_PLANAR + 1;
  int ngt = r->world_root ? URDF_NGEOM_TYPES : URDF_GEOM_MESH + 1;
  for (int j = 0; j < r->njoint; j++) {
    nj[r->joints[j].type]++;
    if (r->joints[j].mimic >= 0) nmimic++;
  }
  for (int l = 0; l < r->nlink; l++)
    for (int g = 0; g < r->links[l].ngeom; g++) {
      ng[r->links[l].geoms[g].type]++;
      ngeom++;
    }
  fprintf(f, "robot: %s\n", r->name ? r->name : "(unnamed)");
  fprintf(f, "file: %s\n", path);
  fprintf(f, "links: %d (root: %s)\n", r->nlink, r->links[r->root].name);
  fprintf(f, "joints: %d (", r->njoint);
  for (int t = 0; t < njt; t++)
    fprintf(f, "%s%s %d", t ? ", " : "", urdf_joint_type_names[t], nj[t]);
  fprintf(f, ")\n");
  fprintf(f, "mimic joints: %d (simulated as independent joints)\n", nmimic);
  fprintf(f, "mass: %.6f kg (sum over %d links)\n", urdf_total_mass(r), r->nlink);
  fprintf(f, "collision geometries: %d (", ngeom);
  for (int t = 0; t < ngt; t++)
    fprintf(f, "%s%s %d", t ? ", " : "", urdf_geom_type_names[t], ng[t]);
  fprintf(f, ")\n");
  *nmesh = ng[URDF_GEOM_MESH];
}

// meshes (resolved, unresolved, unsupported) and the issues, with what csim does about them
static void print_issues(FILE* f, const urdf_robot* r, int nmesh) {
  int nunres = 0, nfmt = 0;
  for (int i = 0; i < r->nissue; i++) {
    if (r->issues[i].kind == URDF_ISSUE_MESH_UNRESOLVED) nunres++;
    if (r->issues[i].kind == URDF_ISSUE_MESH_FORMAT) nfmt++;
  }
  fprintf(f, "collision meshes: %d usable, %d unresolved, %d in an unsupported format\n",
          nmesh - nunres - nfmt, nunres, nfmt);
  int ninertia = 0;
  for (int i = 0; i < r->nissue; i++)
    if (!mesh_issue(&r->issues[i])) ninertia++;
  fprintf(f, "inertia problems: %d\n", ninertia);
  for (int i = 0; i < r->nissue; i++)
    if (!mesh_issue(&r->issues[i]))
      fprintf(f, "  - line %d: %s\n", r->issues[i].line, r->issues[i].msg);
  if (nunres + nfmt) {
    fprintf(f, "meshes that cannot be used (their geometries are left out of the model):\n");
    for (int i = 0; i < r->nissue; i++)
      if (mesh_issue(&r->issues[i]))
        fprintf(f, "  - line %d: %s\n", r->issues[i].line, r->issues[i].msg);
  }
}

// MJCF: time step, gravity, bodies with their masses, skipped visual elements, and what csim
// cannot simulate yet (each with its position)
static void print_mjcf(FILE* f, const urdf_robot* r) {
  if (r->has_timestep) fprintf(f, "timestep: %g s (<option>)\n", r->timestep);
  if (r->has_gravity)
    fprintf(f, "gravity: [%g, %g, %g] m/s^2 (<option>)\n", r->gravity[0], r->gravity[1], r->gravity[2]);
  fprintf(f, "bodies (mass, kg):\n");
  for (int l = 1; l < r->nlink; l++)
    if (r->links[l].has_inertial)
      fprintf(f, "  %-32s %.9g\n", r->links[l].name, r->links[l].mass);
  fprintf(f, "contact excludes: %d; explicit pairs: %d; actuators: %d\n", r->nexclude, r->npair,
          r->nactuator);
  if (r->nkey) {  // robots.N.keyframe takes a name or an index
    fprintf(f, "keyframes (robots.N.keyframe): %d:", r->nkey);
    for (int k = 0; k < r->nkey; k++)
      fprintf(f, " %d%s%s%s", k, r->keys[k].name ? " '" : "", r->keys[k].name ? r->keys[k].name : "",
              r->keys[k].name ? "'" : "");
    fprintf(f, "\n");
  }
  if (r->nvisual) fprintf(f, "note: %d visual or non-physical elements skipped (lights, cameras, "
                          "materials, sites, ...)\n", r->nvisual);
  fprintf(f, "not supported yet (issue 25): %d\n", r->nunsupported);
  for (int k = 0; k < r->nunsupported; k++)
    fprintf(f, "  - %s:%d:%d: <%s> %s\n", r->unsupported[k].file, r->unsupported[k].line,
            r->unsupported[k].column, r->unsupported[k].element, r->unsupported[k].msg);
}

// model-level summary: dofs for both bases, bodies, geometries and hulls for the chosen one;
// CSIM_ERR_INPUT (the error printed) when that model cannot be built
static int print_model_summary(FILE* f, const urdf_robot* r, model_base_type base) {
  sim_model *mfix = NULL, *mfree = NULL;
  csim_error e1, e2;
  err_clear(&e1);
  err_clear(&e2);
  csim_status s1 = build_model(r, MODEL_BASE_FIXED, &mfix, &e1);
  csim_status s2 = r->world_root ? CSIM_ERR_INPUT : build_model(r, MODEL_BASE_FREE, &mfree, &e2);
  if (s1 == CSIM_OK) fprintf(f, "dofs (fixed base): nq %d, nv %d\n", mfix->nq, mfix->nv);
  if (s2 == CSIM_OK) fprintf(f, "dofs (free base): nq %d, nv %d\n", mfree->nq, mfree->nv);
  const sim_model* m = base == MODEL_BASE_FREE ? mfree : mfix;
  int status = CSIM_OK;
  if (m) {
    int ngm[MODEL_NGEOM_TYPES] = {0};
    for (int g = 0; g < m->ngeom; g++) ngm[m->geom_type[g]]++;
    fprintf(f, "model (%s base): %d moving bodies after merging fixed joints, max chain depth %d\n",
            base == MODEL_BASE_FREE ? "free" : "fixed", m->nbody - 1, m->maxdepth);
    fprintf(f, "model geometries: %d (", m->ngeom);
    for (int t = 0; t < MODEL_NGEOM_TYPES; t++)
      fprintf(f, "%s%s %d", t ? ", " : "", model_geom_type_names[t], ngm[t]);
    fprintf(f, ")\n");
    int nhv = 0;
    for (int i = 0; i < m->nmesh; i++) nhv += m->mesh[i].nvert;
    if (m->nmesh) fprintf(f, "convex hulls: %d (%d vertices)\n", m->nmesh, nhv);
  } else {
    err_print(base == MODEL_BASE_FREE ? &e2 : &e1, stderr);
    status = CSIM_ERR_INPUT;
  }
  model_free(mfix);
  model_free(mfree);
  return status;
}

// every joint with its type, parent, child, axis, limits and mimic
static void print_joints(FILE* f, const urdf_robot* r) {
  fprintf(f, "joint list:\n");
  for (int j = 0; j < r->njoint; j++) {
    const urdf_joint* J = &r->joints[j];
    fprintf(f, "  %-32s %-10s %s -> %s", J->name, urdf_joint_type_names[J->type],
            r->links[J->parent].name, r->links[J->child].name);
    if (J->type != URDF_JOINT_FIXED)
      fprintf(f, "  axis [%g %g %g]", J->axis[0], J->axis[1], J->axis[2]);
    if (J->has_position_limit) fprintf(f, "  limits [%g, %g]", J->lower, J->upper);
    if (J->mimic >= 0)
      fprintf(f, "  mimics %s (x%g %+g)", r->joints[J->mimic].name, J->mimic_multiplier,
              J->mimic_offset);
    fprintf(f, "\n");
  }
}

int cli_info(int argc, char** argv) {
  FILE* f = stdout;
  info_args a = {NULL, calloc((size_t)argc + 1, sizeof(char*)), 0, 0, MODEL_BASE_FIXED};
  if (!a.pkg) return CSIM_ERR_RUN;
  int pr = info_parse(argc, argv, &a);
  if (pr) {
    free(a.pkg);
    return pr < 0 ? CSIM_OK : pr;
  }
  csim_error err;
  err_clear(&err);
  urdf_options opt = urdf_default_options();
  opt.package_paths = a.pkg;
  urdf_robot* r = NULL;
  int mjcf = mjcf_is_mjcf_path(a.path);
  if (mjcf && a.base == MODEL_BASE_FREE) {
    fprintf(stderr, "csim: error: info: an MJCF model is a fixed base (its free joints make the "
            "free bodies): drop --base free\n");
    free(a.pkg);
    return CSIM_ERR_INPUT;
  }
  if ((mjcf ? mjcf_load(a.path, NULL, &r, &err) : urdf_load(a.path, &opt, &r, &err)) != CSIM_OK) {
    err_print(&err, stderr);
    free(a.pkg);
    return CSIM_ERR_INPUT;
  }
  int nmesh = 0;
  print_urdf_summary(f, r, a.path, &nmesh);
  print_issues(f, r, nmesh);
  if (mjcf) print_mjcf(f, r);
  int status = print_model_summary(f, r, a.base);
  if (a.list_joints) print_joints(f, r);
  urdf_free(r);
  free(a.pkg);
  return status;
}
