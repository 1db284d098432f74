// cli_info.c — `csim info ROBOT.urdf`: what the URDF parser and the model builder understood.
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/model.h"
#include "io/model_build.h"
#include "io/urdf.h"

static const char* const kInfoUsage =
    "usage: csim info ROBOT.urdf [--base fixed|free] [--package-path DIR]... [--joints]\n"
    "\n"
    "Prints links, joints by type, dofs (nq, nv), total mass, inertia problems found and what\n"
    "csim does about them, collision geometries by kind and meshes that cannot be used.\n"
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

int cli_info(int argc, char** argv, FILE* f) {
  const char* path = NULL;
  const char** pkg = calloc((size_t)argc + 1, sizeof(char*));
  int npkg = 0, list_joints = 0;
  model_base_type base = MODEL_BASE_FIXED;
  int status = CSIM_OK;
  urdf_robot* r = NULL;
  sim_model *mfix = NULL, *mfree = NULL;
  if (!pkg) return CSIM_ERR_RUN;

  // arguments
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(kInfoUsage, stdout);
      free(pkg);
      return CSIM_OK;
    } else if (!strcmp(argv[i], "--base") && i + 1 < argc) {
      const char* b = argv[++i];
      if (!strcmp(b, "free")) {
        base = MODEL_BASE_FREE;
      } else if (!strcmp(b, "fixed")) {
        base = MODEL_BASE_FIXED;
      } else {
        fprintf(stderr, "csim: error: --base: expected 'fixed' or 'free', found '%s'\n", b);
        free(pkg);
        return CSIM_ERR_INPUT;
      }
    } else if (!strcmp(argv[i], "--package-path") && i + 1 < argc) {
      pkg[npkg++] = argv[++i];
    } else if (!strcmp(argv[i], "--joints")) {
      list_joints = 1;
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "csim: error: info: unknown or incomplete option '%s'\n%s", argv[i],
              kInfoUsage);
      free(pkg);
      return CSIM_ERR_INPUT;
    } else if (!path) {
      path = argv[i];
    } else {
      fprintf(stderr, "csim: error: info: one URDF file expected, found a second: '%s'\n",
              argv[i]);
      free(pkg);
      return CSIM_ERR_INPUT;
    }
  }
  if (!path) {
    fprintf(stderr, "csim: error: info: missing ROBOT.urdf\n%s", kInfoUsage);
    free(pkg);
    return CSIM_ERR_INPUT;
  }

  // parse
  csim_error err;
  err_clear(&err);
  urdf_options opt = urdf_default_options();
  opt.package_paths = pkg;
  if (urdf_load(path, &opt, &r, &err) != CSIM_OK) {
    err_print(&err, stderr);
    free(pkg);
    return CSIM_ERR_INPUT;
  }

  // URDF-level summary
  int nj[URDF_NJOINT_TYPES] = {0}, nmimic = 0, ng[URDF_NGEOM_TYPES] = {0}, ngeom = 0;
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
  for (int t = 0; t < URDF_NJOINT_TYPES; t++)
    fprintf(f, "%s%s %d", t ? ", " : "", urdf_joint_type_names[t], nj[t]);
  fprintf(f, ")\n");
  fprintf(f, "mimic joints: %d (simulated as independent joints)\n", nmimic);
  fprintf(f, "mass: %.6f kg (sum over %d links)\n", urdf_total_mass(r), r->nlink);
  fprintf(f, "collision geometries: %d (", ngeom);
  for (int t = 0; t < URDF_NGEOM_TYPES; t++)
    fprintf(f, "%s%s %d", t ? ", " : "", urdf_geom_type_names[t], ng[t]);
  fprintf(f, ")\n");

  // meshes: resolved, unresolved, unsupported
  int nres = 0, nunres = 0, nfmt = 0;
  for (int i = 0; i < r->nissue; i++) {
    if (r->issues[i].kind == URDF_ISSUE_MESH_UNRESOLVED) nunres++;
    if (r->issues[i].kind == URDF_ISSUE_MESH_FORMAT) nfmt++;
  }
  nres = ng[URDF_GEOM_MESH] - nunres - nfmt;
  fprintf(f, "collision meshes: %d usable, %d unresolved, %d in an unsupported format\n", nres,
          nunres, nfmt);

  // issues (inertia problems and meshes), with what csim does
  int ninertia = 0;
  for (int i = 0; i < r->nissue; i++)
    if (r->issues[i].kind != URDF_ISSUE_MESH_UNRESOLVED &&
        r->issues[i].kind != URDF_ISSUE_MESH_FORMAT)
      ninertia++;
  fprintf(f, "inertia problems: %d\n", ninertia);
  for (int i = 0; i < r->nissue; i++) {
    const urdf_issue* is = &r->issues[i];
    if (is->kind == URDF_ISSUE_MESH_UNRESOLVED || is->kind == URDF_ISSUE_MESH_FORMAT) continue;
    fprintf(f, "  - line %d: %s\n", is->line, is->msg);
  }
  if (nunres + nfmt) {
    fprintf(f, "meshes that cannot be used (their geometries are left out of the model):\n");
    for (int i = 0; i < r->nissue; i++) {
      const urdf_issue* is = &r->issues[i];
      if (is->kind == URDF_ISSUE_MESH_UNRESOLVED || is->kind == URDF_ISSUE_MESH_FORMAT)
        fprintf(f, "  - line %d: %s\n", is->line, is->msg);
    }
  }

  // model-level summary for both bases
  csim_error e1, e2;
  err_clear(&e1);
  err_clear(&e2);
  csim_status s1 = build_model(r, MODEL_BASE_FIXED, &mfix, &e1);
  csim_status s2 = build_model(r, MODEL_BASE_FREE, &mfree, &e2);
  if (s1 == CSIM_OK) fprintf(f, "dofs (fixed base): nq %d, nv %d\n", mfix->nq, mfix->nv);
  if (s2 == CSIM_OK) fprintf(f, "dofs (free base): nq %d, nv %d\n", mfree->nq, mfree->nv);
  const sim_model* m = base == MODEL_BASE_FREE ? mfree : mfix;
  csim_error* em = base == MODEL_BASE_FREE ? &e2 : &e1;
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
    err_print(em, stderr);
    status = CSIM_ERR_INPUT;
  }

  // joint list
  if (list_joints) {
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

  model_free(mfix);
  model_free(mfree);
  urdf_free(r);
  free(pkg);
  return status;
}
