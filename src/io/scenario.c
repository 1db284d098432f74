// scenario.c — YAML scenario -> validated scn_config (see scenario.h for the pipeline).
//
// One static table, keys[], describes every key: path, type, flags (required, range bounds,
// +inf allowed...), default (as YAML text, converted by the same code as user values), enum name
// table, the action types it applies to, where it is stored (offsetof into scn_config, scn_robot
// or act_spec), units and a doc string. The validator, the defaults and the Markdown docs are
// all driven by this table, so they cannot drift apart.
#include "io/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/control.h"
#include "io/mjcf.h"
#include "io/yamltree.h"

//---------------------------------- name tables -----------------------------------------------

const char* const scn_base_names[] = {"fixed", "free", NULL};
const char* const scn_joint_dynamics_names[] = {"apply", "damping", "ignore", NULL};
const char* const scn_spin_friction_names[] = {"apply", "ignore", NULL};
const char* const scn_ground_names[] = {"none", "plane", "heightfield", NULL};
const char* const scn_frame_names[] = {"world", "local", NULL};

// enums are stored through int: make sure they have the size of an int
_Static_assert(sizeof(scn_base) == sizeof(int), "enum size");
_Static_assert(sizeof(csim_model) == sizeof(int), "enum size");
_Static_assert(sizeof(csim_solver) == sizeof(int), "enum size");
_Static_assert(sizeof(csim_scheme) == sizeof(int), "enum size");
_Static_assert(sizeof(act_profile) == sizeof(int), "enum size");
_Static_assert(sizeof(act_type) == sizeof(int), "enum size");
_Static_assert(sizeof(csim_controller) == sizeof(int), "enum size");
_Static_assert(sizeof(csim_on_failure) == sizeof(int), "enum size");
_Static_assert(sizeof(csim_line_search) == sizeof(int), "enum size");
_Static_assert(sizeof(csim_jacobian) == sizeof(int), "enum size");
_Static_assert(sizeof(csim_error_estimate) == sizeof(int), "enum size");

int scn_name_index(const char* const* names, const char* name) {
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

//---------------------------------- schema ----------------------------------------------------

// value types of the schema
typedef enum {
  K_SECTION,  // map of further keys
  K_LIST,     // list of maps of further keys (robots, actions)
  K_STR,      // non-empty string
  K_PATH,     // non-empty string, resolved against the scenario directory (off: as written, off2: resolved)
  K_NUM,      // finite number (double)
  K_INT,      // integer (int)
  K_BOOL,     // true | false (int)
  K_ENUM,     // one name of a name table (int)
  K_VEC3,     // list of exactly 3 numbers (double[3])
  K_NUMS,     // non-empty list of numbers (double*, count at noff)
  K_INTS,     // list of integers (int*, count at noff)
  K_PATHS,    // list of paths (char** resolved at off, as written at off2, count at noff)
  K_NUMMAP,   // map name -> number (scn_named_value*, count at noff)
  K_PAIRS,    // list of [name, name] (char** flat, pair count at noff)
  K_JOINTS,   // "all" or a non-empty list of names (char**, count at noff; all -> NULL, -1)
  K_MATMAP,   // map name -> map of material keys (scn_material*, count at noff; keys at PATH.NAME.*)
  K_STRMAP,   // map name -> scalar or list of scalars, as text (char** flat name, value pairs,
              // pair count at noff; a list's items joined by spaces)
} ktype;

// key flags
enum {
  F_REQ = 1,        // required (among the action types it applies to)
  F_LO = 2,         // has a lower bound lo
  F_LOX = 4,        //   ... exclusive
  F_HI = 8,         // has an upper bound hi
  F_HIX = 16,       //   ... exclusive
  F_INF = 32,       // +inf / -inf allowed (.inf)
  F_NONZERO = 64,   // vector must be non-zero; it is normalised
  F_BCAST = 128,    // a single number is accepted for a list (length 1 broadcasts)
};

// which struct a key is stored in
enum { B_NONE, B_CFG, B_ROBOT, B_ACTION, B_MATERIAL, B_CONTROLLER, NBASES };

// action-type masks
#define A_FORCE (1u << ACT_FORCE)
#define A_PD (1u << ACT_PD)
#define A_TRAJ (1u << ACT_TRAJECTORY)
// controller-type masks (keys under controllers.N: .acts holds controller types)
#define C_PLUGIN (1u << CSIM_CONTROLLER_PLUGIN)

// one key of the schema
typedef struct {
  const char* path;              // "contact.friction"; "N" stands for a list index
  ktype type;
  unsigned flags;                // F_*
  double lo, hi;                 // bounds (with F_LO / F_HI)
  const char* def;               // default as YAML text; NULL: none or computed (see def_doc)
  const char* def_doc;           // default as documented when def is NULL
  const char* const* names;      // K_ENUM: name table
  unsigned acts;                 // action types it applies to (0: not action-specific)
  int base;                      // B_*: struct the value is stored in
  size_t off, off2, noff;        // storage offsets
  int elem;                      // K_LIST: base of the elements (B_ROBOT / B_ACTION)
  const char* units;             // SI units, NULL when dimensionless
  const char* doc;               // meaning
} skey;

// storage helpers for the table
#define CF(f) .base = B_CFG, .off = offsetof(scn_config, f)
#define RB(f) .base = B_ROBOT, .off = offsetof(scn_robot, f)
#define AC(f) .base = B_ACTION, .off = offsetof(act_spec, f)
#define MT(f) .base = B_MATERIAL, .off = offsetof(scn_material, f)
#define CT(f) .base = B_CONTROLLER, .off = offsetof(scn_controller, f)
#define GE0 .flags = F_LO, .lo = 0
#define GT0 .flags = F_LO | F_LOX, .lo = 0

// the schema: every key a scenario may contain, in documentation order
static const skey keys[] = {
    {.path = "name", .type = K_STR, .def_doc = "file stem", CF(name),
     .doc = "Run name; the default output file is `out/<name>.h5` (must not contain '/')"},
    // world
    {.path = "world", .type = K_SECTION, .doc = "World settings"},
    {.path = "world.gravity", .type = K_VEC3, .def = "[0, 0, -9.81]", CF(gravity), .units = "m/s^2",
     .doc = "Gravity acceleration in the world frame"},
    {.path = "world.ground", .type = K_SECTION, .doc = "Ground"},
    {.path = "world.ground.type", .type = K_ENUM, .names = scn_ground_names, .def = "plane", CF(ground),
     .doc = "plane: horizontal plane z = height, normal +z; heightfield: terrain, a grid of heights "
            "(from `file`, else a seeded random field) centred on x = y = 0, the plane z = height "
            "beyond it (README \"Terrain\"); none: no ground"},
    {.path = "world.ground.height", .type = K_NUM, .def = "0", CF(ground_height), .units = "m",
     .doc = "Height of the ground plane (heightfield: of the field's zero height)"},
    {.path = "world.ground.file", .type = K_PATH, .def_doc = "none (a random field)", CF(ground_file_text),
     .off2 = offsetof(scn_config, ground_file),
     .doc = "heightfield: text file of heights (m), one grid row per line from y = -size_y/2, values "
            "separated by commas or blanks, '#' comments (README \"Terrain\")"},
    {.path = "world.ground.size", .type = K_NUMS, .def = "[4, 4]", CF(ground_size),
     .noff = offsetof(scn_config, nground_size), .units = "m",
     .doc = "heightfield: extent [size_x, size_y] of the grid, both > 0"},
    {.path = "world.ground.seed", .type = K_INT, .flags = F_LO, .lo = 0, .def = "1", CF(ground_seed),
     .doc = "heightfield without file: seed of the random heights (splitmix64)"},
    {.path = "world.ground.amplitude", .type = K_NUM, GE0, .def = "0.02", CF(ground_amplitude), .units = "m",
     .doc = "heightfield without file: heights uniform in [0, amplitude] (border vertices 0)"},
    {.path = "world.ground.resolution", .type = K_NUM, GT0, .def = "0.1", CF(ground_resolution), .units = "m",
     .doc = "heightfield without file: spacing of the random grid's vertices"},
    // robots
    {.path = "robots", .type = K_LIST, .flags = F_REQ, CF(robots), .noff = offsetof(scn_config, nrobots),
     .elem = B_ROBOT, .doc = "Robots to simulate, at least one"},
    {.path = "robots.N.urdf", .type = K_PATH, .def_doc = "none", RB(urdf), .off2 = offsetof(scn_robot, urdf_path),
     .doc = "URDF file, relative to the scenario file's directory (each robot has exactly one of `urdf` and `mjcf`)"},
    {.path = "robots.N.mjcf", .type = K_PATH, .def_doc = "none", RB(mjcf), .off2 = offsetof(scn_robot, mjcf_path),
     .doc = "MuJoCo MJCF file instead of a URDF (docs/urdf.md, \"MJCF\"): its world body is the robot's fixed base "
            "(`base: fixed`), its free joints make free bodies; without `integrator.dt` the file's `<option timestep>` "
            "is the time step"},
    {.path = "robots.N.name", .type = K_STR, .def_doc = "the URDF robot name (MJCF: the model name)", RB(name),
     .doc = "Robot name (actions refer to it); explicit names must be unique"},
    {.path = "robots.N.base", .type = K_ENUM, .names = scn_base_names, .def = "fixed", RB(base),
     .doc = "fixed: root link welded to the world at position/rpy; free: 6-dof floating base"},
    {.path = "robots.N.joint_dynamics", .type = K_ENUM, .names = scn_joint_dynamics_names, .def = "apply",
     RB(joint_dynamics),
     .doc = "The file's joint damping and dry friction (URDF `<dynamics damping friction>`, MJCF joint `damping` and "
            "`frictionloss`): apply: both (friction as box rows of the rigid contact problem: compliant laws refuse "
            "it); damping: the damping only; ignore: neither (the robot's joints are then frictionless and undamped)"},
    {.path = "robots.N.spin_friction", .type = K_ENUM, .names = scn_spin_friction_names, .def = "apply",
     RB(spin_friction),
     .doc = "MJCF: the file's torsional and rolling contact friction (geoms of condim 4 and 6): apply: kept (solved by "
            "pgs, admm and auto under ncp and ccp and by newton under ccp; other models and the compliant laws refuse "
            "it at load); ignore: those geoms take condim 3 (sliding friction only), so every model and law runs the "
            "file"},
    {.path = "robots.N.position", .type = K_VEC3, .def = "[0, 0, 0]", RB(pos), .units = "m",
     .doc = "Fixed base: root link position in the world"},
    {.path = "robots.N.rpy", .type = K_VEC3, .def = "[0, 0, 0]", RB(rpy), .units = "rad",
     .doc = "Fixed base: root link roll, pitch, yaw (about fixed x, y, z, as in URDF)"},
    {.path = "robots.N.keyframe", .type = K_STR, .def_doc = "none", RB(keyframe),
     .doc = "MJCF only: start from the file's `<keyframe><key>` of this name (or this 0-based index among the "
            "keys): its qpos (MuJoCo's layout, quaternions reordered to csim's [x y z w]) and qvel (zero when the key "
            "has none); its time, ctrl, act, mpos and mquat are not taken (a warning names them). Not with q0 or v0"},
    {.path = "robots.N.q0", .type = K_NUMS, .def_doc = "model default", RB(q0), .noff = offsetof(scn_robot, nq0),
     .units = "m, rad", .doc = "Full initial configuration (free base: x y z qx qy qz qw first; a ball joint: qx qy qz qw); length nq"},
    {.path = "robots.N.v0", .type = K_NUMS, .def_doc = "zero", RB(v0), .noff = offsetof(scn_robot, nv0),
     .units = "m/s, rad/s", .doc = "Full initial velocity (free base: com velocity in world axes, then angular velocity in body axes); length nv"},
    {.path = "robots.N.joints", .type = K_NUMMAP, .def_doc = "none", RB(joints), .noff = offsetof(scn_robot, njoints),
     .units = "rad or m", .doc = "Initial joint positions by joint name, applied after q0"},
    {.path = "robots.N.package_paths", .type = K_PATHS, .def_doc = "none", RB(package_paths),
     .off2 = offsetof(scn_robot, package_paths_text), .noff = offsetof(scn_robot, npackage_paths),
     .doc = "Directories searched for package:// meshes, relative to the scenario file's directory"},
    // contact
    {.path = "contact", .type = K_SECTION, .doc = "Contact model and parameters"},
    {.path = "contact.model", .type = K_ENUM, .names = csim_model_names, .def = "ncp", CF(model),
     .doc = "Contact model: rigid (ncp, ccp, lcp, raisim, raisim_ds) or compliant force law"},
    {.path = "contact.friction", .type = K_NUM, GE0, .def = "0.5", CF(friction),
     .doc = "Coulomb friction coefficient mu. MJCF geoms bring their own (friction[0], the larger of a pair's two, MuJoCo's rule) unless this key is given, which then holds for every pair"},
    {.path = "contact.restitution", .type = K_NUM, .flags = F_LO | F_HI, .lo = 0, .hi = 1, .def = "0",
     CF(restitution), .doc = "Normal restitution coefficient e (rigid models)"},
    {.path = "contact.baumgarte", .type = K_NUM, GE0, .def = "0", CF(baumgarte), .units = "1/s",
     .doc = "Baumgarte gain K: `c*_N = K max(0, -phi_N)` (rigid models)"},
    {.path = "contact.compliance", .type = K_NUM, GE0, .def = "0", CF(compliance),
     .doc = "Compliance alpha: `R = alpha diag(G)` (ccp, MuJoCo-like)"},
    {.path = "contact.facets", .type = K_INT, .flags = F_LO | F_HI, .lo = 3, .hi = 256, .def = "4", CF(facets),
     .doc = "Friction pyramid facets (lcp)"},
    {.path = "contact.stiffness", .type = K_NUM, GT0, .def = "1e5", CF(stiffness), .units = "N/m (sqrt_spring: N/m^1.5)",
     .doc = "Normal stiffness k of the compliant laws"},
    {.path = "contact.damping", .type = K_NUM, GE0, .def = "0", CF(damping), .units = "s/m or N s/m",
     .doc = "hunt_crossley, bristle: dissipation d in `f_n = k (1 + d dphi) phi` (s/m); spring_damper, "
            "sqrt_spring: damping coefficient (N s/m; sqrt_spring N s/m^1.5)"},
    {.path = "contact.stiction_velocity", .type = K_NUM, GT0, .def = "1e-4", CF(stiction_velocity),
     .units = "m/s", .doc = "Stiction velocity v_s of the regularised friction (compliant laws, tamsi)"},
    {.path = "contact.friction_stiffness", .type = K_NUM, GT0, .def = "1e4", CF(friction_stiffness),
     .units = "N/m (sqrt_spring: N/m^1.5)", .doc = "Tangential (bristle / deflection) stiffness (bristle, sqrt_spring)"},
    {.path = "contact.friction_damping", .type = K_NUM, GE0, .def = "1e2", CF(friction_damping),
     .units = "N s/m (sqrt_spring: N s/m^1.5)", .doc = "Tangential (bristle / deflection) damping (bristle, sqrt_spring); must be > 0 for them"},
    {.path = "contact.margin", .type = K_NUM, GE0, .def = "1e-3", CF(margin), .units = "m",
     .doc = "Collision margin: contacts are reported up to this distance before touching; a gap may close within the step (c*_N = -gap/dt), so the margin changes no rigid trajectory, it only keeps resting contacts from flickering. Under MuJoCo softness (ccp with contact.solref or an MJCF robot) the default is 0, MuJoCo's: its soft constraint starts at contact; a margin given there reports contacts early but they exert nothing until they touch"},
    {.path = "contact.patch_angle", .type = K_NUM, .flags = F_LO | F_HI, .lo = 0, .hi = 1, .def = "0.05", CF(patch_angle), .units = "rad",
     .doc = "Patch reduction: of one geom pair's contacts with the deepest one's normal, keep the touching ones and the near ones (within the margin) that a rotation about the deepest point by less than this angle would close; of those at most contact.patch_max spanning the patch. A flat face keeps its corners, a rounded foot its lowest point; 0 turns the reduction off (collision.h)"},
    {.path = "contact.patch_max", .type = K_INT, .flags = F_LO | F_HI, .lo = 1, .hi = 4, .def = "4", CF(patch_max),
     .doc = "Most contacts kept per patch by the patch reduction: the deepest, the farthest from it, the largest triangle, the most area added"},
    {.path = "contact.self_collision", .type = K_BOOL, .def = "false", CF(self_collision),
     .doc = "Contacts between links of the same URDF robot (links and their parents never collide); an MJCF robot follows its file instead (MuJoCo 2.2.2's contype/conaffinity, parent filter and `<contact><exclude>`, docs/urdf.md)"},
    {.path = "contact.memory_budget", .type = K_NUM, GT0, .def = "2048", CF(memory_budget), .units = "MiB",
     .doc = "Most memory for the simulation data (linear in the dofs and bodies) and the contact buffers (G's 3x3 blocks are bounded by the square of the contacts each tree can take, and ADMM, staggered and Lemke keep dense work for their largest island, at worst one island of every contact, so they grow as the square of the contacts): they hold every contact collision can produce, or as many as fit in this budget; a run that needs more stops with an error naming the numbers (exit 2 at the initial state, 1 later), never dropping a contact. When the worst-case island work and the contacts do not both fit, the contacts are sized with the island work held to a quarter of the budget and the island work takes what they leave (the run summary says how many rows it holds); a step with a larger island stops with exit 1 naming the island, the rows held and the budget, never solving part of it"},
    {.path = "contact.exclude", .type = K_PAIRS, .def_doc = "none", CF(exclude), .noff = offsetof(scn_config, nexclude),
     .doc = "Link pairs that never collide, e.g. `[[base, fl_upper], [base, fr_upper]]`"},
    {.path = "contact.combine", .type = K_ENUM, .names = csim_combine_names, .def = "drake", CF(combine),
     .doc = "How the materials of a contact's two sides combine (see README, Contact materials): drake, stiffness "
            "`k1 k2/(k1+k2)`, dissipation `(k2 d1 + k1 d2)/(k1+k2)`, friction `2 mu1 mu2/(mu1+mu2)`, restitution the "
            "mean; mujoco, friction the larger, stiffness, damping and restitution the mean (MuJoCo's solmix 1:1); "
            "mean, every property the mean. A pair whose two sides both use the default material gets the global "
            "keys as they are"},
    {.path = "contact.materials", .type = K_MATMAP, .def_doc = "none", CF(materials),
     .noff = offsetof(scn_config, nmaterials), .elem = B_MATERIAL,
     .doc = "Contact materials by URDF link name (`ground`: the ground plane), e.g. `{ground: {friction: 0.1, "
            "stiffness: 15500, damping: 1.3}, cube: {friction: 1}}`; a key left out takes the global contact key "
            "(the default material)"},
    {.path = "contact.materials.NAME.friction", .type = K_NUM, GE0, .def_doc = "`contact.friction`", MT(friction),
     .doc = "Coulomb friction coefficient of this link's geometries (not given: MJCF geoms keep "
            "their own friction[0], other geometries take contact.friction)"},
    {.path = "contact.materials.NAME.stiffness", .type = K_NUM, GT0, .def_doc = "`contact.stiffness`",
     MT(stiffness), .units = "as contact.stiffness", .doc = "Normal stiffness (compliant laws)"},
    {.path = "contact.materials.NAME.damping", .type = K_NUM, GE0, .def_doc = "`contact.damping`", MT(damping),
     .units = "as contact.damping", .doc = "Normal dissipation / damping (compliant laws)"},
    {.path = "contact.materials.NAME.restitution", .type = K_NUM, .flags = F_LO | F_HI, .lo = 0, .hi = 1,
     .def_doc = "`contact.restitution`", MT(restitution), .doc = "Restitution coefficient (rigid models)"},
    {.path = "contact.solref", .type = K_NUMS, .def_doc = "none", CF(solref), .noff = offsetof(scn_config, nsolref),
     .units = "s, - (or N/(kg m), N s/(kg m))",
     .doc = "ccp only: MuJoCo 2.2.2 contact softness reference, `[timeconst, dampratio]` (both > 0) or direct "
            "`[-stiffness, -damping]` (both <= 0); sets R and the reference velocity as MuJoCo's solref (README, "
            "MuJoCo-style softness); excludes contact.compliance, contact.baumgarte and restitution"},
    {.path = "contact.cone", .type = K_ENUM, .names = csim_cone_names, .def = "elliptic", CF(cone),
     .doc = "ccp with MuJoCo softness (contact.solref or MJCF solref): the friction cone. elliptic, the Lorentz "
            "cone; pyramidal, MuJoCo's default pyramid: per contact the four edges n +- mu t1, n +- mu t2 with "
            "impulses >= 0 and MuJoCo's regularizer R_py = 2 mu^2 (1 + mu^2) w (1 - imp) / imp on each (README, "
            "MuJoCo-style softness); solved by pgs and newton; condim 4/6 add their torsion and rolling edges"},
    {.path = "contact.solimp", .type = K_NUMS, .def_doc = "`[0.9, 0.95, 0.001, 0.5, 2]` with solref", CF(solimp),
     .noff = offsetof(scn_config, nsolimp), .units = "-, -, m, -, -",
     .doc = "ccp only, with contact.solref: MuJoCo impedance `[dmin, dmax, width, midpoint, power]`, dmin and dmax "
            "in [0.0001, 0.9999], width >= 0, midpoint in [0.0001, 0.9999], power >= 1"},
    // solver
    {.path = "solver", .type = K_SECTION, .doc = "Rigid contact solver"},
    {.path = "solver.name", .type = K_ENUM, .names = csim_solver_names, .def = "auto", CF(solver),
     .doc = "Solver (pairing with contact.model is checked when the run starts)"},
    {.path = "solver.tolerance", .type = K_NUM, GT0, .def = "1e-8", CF(tolerance),
     .doc = "Stopping tolerance on eps_abs"},
    {.path = "solver.max_iterations", .type = K_INT, .flags = F_LO | F_HI, .lo = 1, .hi = 1e6, .def = "1000", CF(max_iterations),
     .doc = "Iteration cap per step (at most 1e6: SIGINT/SIGTERM are also honoured inside a solve)"},
    {.path = "solver.warm_start", .type = K_BOOL, .def = "true", CF(warm_start),
     .doc = "Start from the previous step's impulses of persisting contacts"},
    {.path = "solver.over_relaxation", .type = K_NUM, .flags = F_LO | F_LOX | F_HI | F_HIX, .lo = 0, .hi = 2,
     .def = "1", CF(over_relaxation), .doc = "Over-relaxation factor (pgs)"},
    {.path = "solver.rho", .type = K_NUM, GT0, .def = "1", CF(rho), .doc = "ADMM penalty rho when solver.rho_adaptive is false (adaptive: the spectral rule sets it, sqrt(L m) (L/m)^0.2 at the first solve)"},
    {.path = "solver.warm_dual", .type = K_BOOL, .def = "false", CF(warm_dual),
     .doc = "ADMM: start from the previous step's dual variable of each contact (matched by contact id) instead of the dual reconstructed from the warm-started impulses (measured: fewer iterations on the ill-conditioned stack and Talos, more on cube_slide and Solo-12)"},
    {.path = "solver.rho_adaptive", .type = K_BOOL, .def = "true", CF(rho_adaptive),
     .doc = "ADMM: spectral rho update of Carpentier et al. 2024 (rho times or divided by (L/m)^0.05 when the primal and dual residuals differ tenfold, L and m the ends of the spectrum of G + R); false keeps solver.rho fixed"},
    {.path = "solver.criterion", .type = K_ENUM, .names = csim_criterion_names, .def = "auto",
     CF(criterion), .doc = "What solver.tolerance applies to: auto, ncp for the ncp model (and under solver.name auto natural on the islands of a coupled step, the ones ADMM solves) and model for the relaxed ones (ccp, lcp, raisim, raisim_ds: their answers to sliding contacts are not the NCP's, so held to eps_abs they run to the iteration cap; eps_abs is recorded either way); ncp, both the model's own residual and the NCP residual eps_abs of 000 eq. 14 (as in the paper: ccp, lcp and raisim answers to sliding contacts then run to the iteration cap); model, the model's own residual (its fixed point) only; relative, ContactBench's rule (the authors' solvers.hxx): each solver's absolute residual there (the ncp residual for ncp, raisim and raisim_ds, the model's own for ccp and lcp) below the tolerance OR the relative change of successive iterates over an island (2-norm of lambda_k - lambda_k-1 over that of lambda_k-1) below solver.rel_tolerance (unitless; 0: the tolerance taken unitless) (pgs and bisection only); natural, ncp and also the natural residual of the NCP per contact in impulse units (the largest component of lambda - P_K(lambda - (c + Gamma(c)) / G_NN)), which a contact still pushing while it separates (or creeping while it sticks) does not meet: eps_abs's complementarity term admits separating velocities of tolerance / lambda_N, a chatter of light resting bodies within the tolerance. Either way the answer returned is the model's own (the best iterate by its own residual)"},
    {.path = "solver.tolerance_units", .type = K_ENUM, .names = csim_tolerance_units_names,
     .def = "impulse", CF(tolerance_units),
     .doc = "Units of solver.tolerance: impulse, on eps_abs as csim computes it from impulses (N s); force, on forces lambda/dt as the seed authors' code measures it (002 Sec. II): the solver stops at eps_abs <= tolerance * dt, which holds the velocity term of eps_abs to tolerance * dt too (stricter than the authors' text there, as their code does: c / dt); contactbench, in the units of the authors' code (ContactBench simulators.py solves the problem (G, g / dt) for forces lambda / dt, so its velocities are c / dt): eps_p and eps_d held to tolerance * dt, the complementarity eps_c to tolerance * dt^2 (pgs and bisection only)"},
    {.path = "solver.rel_tolerance", .type = K_NUM, GE0, .def = "0", CF(rel_tolerance),
     .doc = "solver.criterion: relative only: the bound on the relative change of successive iterates (unitless; ContactBench's rel_th_stop_, which its solvers.hpp defaults to 1e-6 and its examples/cube.py sets to 1e-12); 0 takes solver.tolerance as given"},
    {.path = "solver.on_failure", .type = K_ENUM, .names = csim_on_failure_names, .def = "continue",
     CF(on_failure), .doc = "When a step does not converge: continue (count it) or stop the run (exit 1)"},
    // integrator
    {.path = "integrator", .type = K_SECTION, .doc = "Time integration"},
    {.path = "integrator.scheme", .type = K_ENUM, .names = csim_scheme_names, .def = "semi_implicit",
     CF(scheme), .doc = "Integrator: semi_implicit Euler, tamsi (TALS), implicit_euler (Newton + TALS); rigid models need semi_implicit (velocity-level time stepping)"},
    {.path = "integrator.dt", .type = K_NUM, .flags = F_LO | F_LOX | F_HI, .lo = 0, .hi = 1, .def = "1e-3",
     CF(dt), .units = "s", .doc = "Time step"},
    {.path = "integrator.duration", .type = K_NUM, GE0, .def = "1", CF(duration), .units = "s",
     .doc = "Simulated time; duration / dt is at most 1e9 steps"},
    {.path = "integrator.newton_tolerance", .type = K_NUM, GT0, .def = "1e-10", CF(newton_tolerance),
     .doc = "Newton tolerance (tamsi, implicit_euler)"},
    {.path = "integrator.newton_max_iterations", .type = K_INT, .flags = F_LO | F_HI, .lo = 1, .hi = 1e4, .def = "50",
     CF(newton_max_iterations), .doc = "Newton iteration cap (tamsi, implicit_euler)"},
    {.path = "integrator.line_search", .type = K_ENUM, .names = csim_line_search_names, .def = "tals",
     CF(line_search), .doc = "Line search of the compliant integrators' Newton iteration: tals (TALS, 001 Sec. III-A, then residual backtracking as a safeguard), backtracking (no TALS: backtracking on the residual only), none (plain Newton, full steps: 001's 'without TALS'); rigid models ignore it"},
    {.path = "integrator.accuracy", .type = K_NUM, GT0, .def_doc = "none (fixed step)", CF(accuracy),
     .units = "m/s and m (max-norm of v and q)", .doc = "Compliant laws: error-controlled integration to this accuracy (001 Sec. III-B, as Drake's error-controlled integrators): each integrator.dt (then the output step) is crossed in variable substeps, each step-doubled (one step of h against two of h/2; the estimate is the max-norm of the difference in q and v, the two half steps are kept) with Drake's step-size rule; per-step control of a first-order scheme, so the global error goes as accuracy^(1/2). Rigid models reject it"},
    {.path = "integrator.jacobian", .type = K_ENUM, .names = csim_jacobian_names, .def = "full",
     CF(jacobian), .doc = "implicit_euler's Newton Jacobian (forward differences, nv dynamics evaluations): full, fresh at every iteration; quasi_newton, reused with its factorization across iterations and steps (refactored when the step size changes) until the residual shrinks by less than half in an iteration (001 Sec. III-B, Hairer-Wanner IV.8)"},
    {.path = "integrator.error_estimate", .type = K_ENUM, .names = csim_error_estimate_names, .def = "step_doubling",
     CF(error_estimate), .doc = "With integrator.accuracy: step_doubling (csim's: one step of h against two of h/2, the half steps kept, Newton to integrator.newton_tolerance), or trapezoid (Drake's ImplicitEulerIntegrator, implicit_euler only: the implicit Euler step kept, the estimate its difference from an implicit trapezoid step started at it; each Newton solve stops when eta times the update's max-norm is below 0.05 accuracy, eta = theta / (1 - theta), theta the ratio of successive updates (Hairer-Wanner IV.8 eq. 8.10), fails on divergence (theta > 1) or after 10 iterations; quasi_newton keeps its Jacobian through a solve and retries a failed solve once with a fresh one before the substep shrinks)"},
    {.path = "integrator.velocity_products", .type = K_ENUM, .names = csim_vproduct_names, .def = "midpoint",
     CF(velocity_products), .doc = "Coriolis, centrifugal and gyroscopic terms of the free velocity: midpoint (implicit midpoint rule by fixed-point iteration: a free body keeps its energy and angular momentum; 1-3 extra RNEA and tree solves per step) or explicit (at the velocity before the step, as MuJoCo's Euler: cheaper, injects energy into fast spins)"},
    {.path = "integrator.energy_tolerance", .type = K_NUM, GT0, .def = "0.05", CF(energy_tolerance),
     .doc = "Energy audit: energy gained beyond the work of actions and external forces (`/energy/injected` above its lowest value so far) that triggers integrator.on_energy_gain, relative to the energy scale (initial kinetic + abs(initial potential) energy, or the absolute work done when larger)"},
    {.path = "integrator.on_energy_gain", .type = K_ENUM, .names = csim_on_energy_names, .def = "warn",
     CF(on_energy_gain), .doc = "When the energy audit finds a gain above integrator.energy_tolerance: warn (printed, recorded in the root attributes) or stop the run (exit 1, complete = 0)"},
    // joint limits
    {.path = "limits", .type = K_SECTION, .doc = "URDF joint position and effort limits"},
    {.path = "limits.enabled", .type = K_BOOL, .def = "true", CF(limits_enabled),
     .doc = "Enforce URDF position limits of revolute and prismatic joints: rigid models as unilateral constraints in the contact problem, compliant models as a stiff spring-damper"},
    {.path = "limits.effort", .type = K_BOOL, .def = "true", CF(limits_effort),
     .doc = "Clamp the joint torques of actions to the URDF effort limits (clamped joint-steps are counted)"},
    {.path = "limits.stiffness", .type = K_NUM, GT0, .def = "1e4", CF(limits_stiffness), .units = "N m/rad or N/m",
     .doc = "Compliant models: stiffness of the limit spring"},
    {.path = "limits.damping", .type = K_NUM, GE0, .def = "1e2", CF(limits_damping), .units = "N m s/rad or N s/m",
     .doc = "Compliant models: damping of the limit spring (acts only while beyond the limit)"},
    // actions
    {.path = "actions", .type = K_LIST, .def_doc = "none", CF(actions), .noff = offsetof(scn_config, nactions),
     .elem = B_ACTION, .doc = "External forces and joint controllers, applied in order"},
    {.path = "actions.N.type", .type = K_ENUM, .flags = F_REQ, .names = act_type_names, AC(type),
     .doc = "force: external force/torque on a link; pd: joint PD control; trajectory: sine tracking"},
    {.path = "actions.N.body", .type = K_STR, .flags = F_REQ, .acts = A_FORCE, AC(body),
     .doc = "Link the force acts on"},
    {.path = "actions.N.direction", .type = K_VEC3, .flags = F_NONZERO, .def = "[1, 0, 0]", .acts = A_FORCE,
     AC(direction), .doc = "Force/torque direction (normalised)"},
    {.path = "actions.N.torque", .type = K_BOOL, .def = "false", .acts = A_FORCE, AC(torque),
     .doc = "true: a torque about direction instead of a force"},
    {.path = "actions.N.frame", .type = K_ENUM, .names = scn_frame_names, .def = "world", .acts = A_FORCE,
     AC(local), .doc = "Frame of direction: world or the link's (local) frame"},
    {.path = "actions.N.point", .type = K_VEC3, .def = "[0, 0, 0]", .acts = A_FORCE, AC(point), .units = "m",
     .doc = "Application point in the link frame"},
    {.path = "actions.N.profile", .type = K_ENUM, .names = act_profile_names, .def = "constant",
     .acts = A_FORCE, AC(profile), .doc = "Magnitude over time: constant, ramp or sine"},
    {.path = "actions.N.magnitude", .type = K_NUM, .def = "0", .acts = A_FORCE, AC(magnitude),
     .units = "N or N m", .doc = "Constant value; ramp value at start; sine offset"},
    {.path = "actions.N.rate", .type = K_NUM, .def = "0", .acts = A_FORCE, AC(rate), .units = "N/s or N m/s",
     .doc = "Ramp: `magnitude + rate (t - start)`"},
    {.path = "actions.N.amplitude", .type = K_NUM, .def = "0", .acts = A_FORCE, AC(amplitude),
     .units = "N or N m", .doc = "Sine: `magnitude + amplitude sin(2 pi frequency (t - start) + phase)`"},
    {.path = "actions.N.frequency", .type = K_NUM, GE0, .def = "0", .acts = A_FORCE, AC(frequency),
     .units = "Hz", .doc = "Sine frequency"},
    {.path = "actions.N.phase", .type = K_NUM, .def = "0", .acts = A_FORCE, AC(phase), .units = "rad",
     .doc = "Sine phase"},
    {.path = "actions.N.start", .type = K_NUM, GE0, .def = "0", AC(start), .units = "s",
     .doc = "Start of the active window"},
    {.path = "actions.N.stop", .type = K_NUM, .flags = F_LO | F_INF, .lo = 0, .def = ".inf", AC(stop),
     .units = "s", .doc = "End of the active window (>= start; `.inf`: never)"},
    {.path = "actions.N.robot", .type = K_STR, .def_doc = "the first robot", .acts = A_PD | A_TRAJ, AC(robot),
     .doc = "Robot whose joints are controlled"},
    {.path = "actions.N.joints", .type = K_JOINTS, .def = "all", .acts = A_PD | A_TRAJ, AC(joint_names),
     .noff = offsetof(act_spec, njoint_names), .doc = "Controlled joints: all actuated joints, or a list of names"},
    {.path = "actions.N.target", .type = K_NUMS, .flags = F_BCAST, .def_doc = "initial positions", .acts = A_PD,
     AC(target), .noff = offsetof(act_spec, ntarget), .units = "rad or m",
     .doc = "Target position per controlled joint"},
    {.path = "actions.N.kp", .type = K_NUM, .flags = F_REQ | F_LO | F_LOX, .lo = 0, .acts = A_PD | A_TRAJ,
     AC(kp), .units = "N m/rad", .doc = "Proportional gain: `tau = kp (q_ref - q) + kd (v_ref - v)`"},
    {.path = "actions.N.kd", .type = K_NUM, GE0, .def = "0", .acts = A_PD | A_TRAJ, AC(kd), .units = "N m s/rad",
     .doc = "Derivative gain"},
    {.path = "actions.N.amp", .type = K_NUMS, .flags = F_BCAST, .def = "[0]", .acts = A_TRAJ, AC(amp),
     .noff = offsetof(act_spec, namp), .units = "rad or m",
     .doc = "Per-joint amplitude: `q_ref = offset + amp sin(2 pi freq (t - start) + phase)`"},
    {.path = "actions.N.freq", .type = K_NUMS, .flags = F_BCAST | F_LO, .lo = 0, .def = "[0]", .acts = A_TRAJ,
     AC(freq), .noff = offsetof(act_spec, nfreq), .units = "Hz", .doc = "Per-joint frequency"},
    {.path = "actions.N.phase", .type = K_NUMS, .flags = F_BCAST, .def = "[0]", .acts = A_TRAJ, AC(phase_j),
     .noff = offsetof(act_spec, nphase), .units = "rad", .doc = "Per-joint phase"},
    {.path = "actions.N.offset", .type = K_NUMS, .flags = F_BCAST, .def_doc = "initial positions",
     .acts = A_TRAJ, AC(offset), .noff = offsetof(act_spec, noffset), .units = "rad or m",
     .doc = "Per-joint offset"},
    {.path = "actions.N.effort_limit", .type = K_NUM, .flags = F_LO | F_LOX | F_INF, .lo = 0, .def = ".inf",
     .acts = A_PD | A_TRAJ, AC(effort_limit), .units = "N m or N",
     .doc = "Joint torques are clamped to `[-effort_limit, effort_limit]`"},
    // output
    // controllers
    {.path = "controllers", .type = K_LIST, .def_doc = "none", CF(controllers),
     .noff = offsetof(scn_config, ncontrollers), .elem = B_CONTROLLER,
     .doc = "Closed-loop controllers: each reads a robot's sensors once per control period and writes its joint torques (held between control instants, added to those of actions, clamped to the effort limits)"},
    {.path = "controllers.N.type", .type = K_ENUM, .flags = F_REQ, .names = csim_controller_names, CT(type),
     .doc = "Controller: `pd` (built-in joint PD; params kp, kd, target), `quadruped_walk` (built-in trot with Raibert footholds and a convex MPC; params velocity, gait_period, ...: docs/controllers.md), `joint_trajectory` (built-in keyframe tracker: params file, kp, kd, feedforward: docs/controllers.md), `inverse_dynamics` (built-in computed-torque tracker of Cartesian keyframes with a gripper: params file, link, offset, kp, kd, gripper, ...: docs/controllers.md), `plugin` (a shared library written against <csim/plugin.h>)"},
    {.path = "controllers.N.name", .type = K_STR, .def_doc = "`<type><N>`", CT(name),
     .doc = "Name in messages and in the columns of `/control/tau` and `/control/log`; unique"},
    {.path = "controllers.N.robot", .type = K_STR, .def_doc = "the first robot", CT(robot),
     .doc = "Robot the controller senses and drives (its 1-dof joints, in model order)"},
    {.path = "controllers.N.period", .type = K_NUM, GE0, .def = "0", CT(period), .units = "s",
     .doc = "Control period, a multiple of integrator.dt; 0: every step. Torques are held between control instants (zero-order hold)"},
    {.path = "controllers.N.delay", .type = K_NUM, GE0, .def = "0", CT(delay), .units = "s",
     .doc = "Time from sensing to applying the torques, a multiple of integrator.dt (zero torque until the first torques are due)"},
    {.path = "controllers.N.library", .type = K_PATH, .flags = F_REQ, .acts = C_PLUGIN, CT(library_text),
     .off2 = offsetof(scn_controller, library),
     .doc = "Shared library exporting csim_plugin_entry (tools/plugin_example/pd_plugin.c), relative to the scenario file's directory"},
    {.path = "controllers.N.params", .type = K_STRMAP, .def_doc = "none", CT(params),
     .noff = offsetof(scn_controller, nparams),
     .doc = "Parameters passed to the controller as name/value text (a list's items joined by spaces)"},
    {.path = "controllers.N.noise", .type = K_NUMMAP, .def_doc = "none", CT(noise),
     .noff = offsetof(scn_controller, nnoise),
     .doc = "Gaussian sensor noise, standard deviation per channel: q, v, base_pos, base_linvel, base_angvel, imu_acc, imu_gyro, link_force"},
    {.path = "controllers.N.seed", .type = K_INT, GE0, .def = "0", CT(seed),
     .doc = "Seed of the controller's noise generator (runs are deterministic)"},
    {.path = "output", .type = K_SECTION, .doc = "Output file"},
    {.path = "output.path", .type = K_PATH, .def_doc = "`out/<name>.h5` in the current directory",
     CF(output_path_text), .off2 = offsetof(scn_config, output_path),
     .doc = "HDF5 output file, relative to the scenario file's directory"},
    {.path = "output.every", .type = K_INT, .flags = F_LO, .lo = 1, .def = "1", CF(output_every),
     .doc = "Record every k-th step"},
    {.path = "output.newton_history", .type = K_INT, .flags = F_LO | F_HI, .lo = 0, .hi = 1000, .def = "0",
     CF(newton_history), .doc = "Compliant models: record the Newton residual of the first K iterates of each recorded step's first solve in `/compliant/newton_history` (K columns, NaN after the last iterate); 0 records nothing"},
    {.path = "output.flush_every", .type = K_NUM, GE0, .def = "1", CF(flush_every), .units = "s",
     .doc = "Wall time between flushes of the output file: a run killed (SIGKILL, power cut of the process) keeps every row recorded before the last flush; 0 flushes after every recorded row"},
    {.path = "output.dump_steps", .type = K_INTS, .flags = F_LO, .lo = 0, .def_doc = "none", CF(dump_steps),
     .noff = offsetof(scn_config, ndump_steps), .doc = "Step indices whose contact problem is written out"},
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

//---------------------------------- small helpers ---------------------------------------------

// allocation that never returns NULL
static void* xalloc(size_t n, size_t size) {
  void* p = calloc(n ? n : 1, size ? size : 1);
  if (!p) {
    fputs("csim: fatal: out of memory\n", stderr);
    abort();
  }
  return p;
}

// copy of a string (NULL stays NULL)
static char* xstrdup(const char* s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char* d = xalloc(n + 1, 1);
  memcpy(d, s, n + 1);
  return d;
}

// last '.'-separated segment of a key path
static const char* leaf_of(const char* path) {
  const char* d = strrchr(path, '.');
  return d ? d + 1 : path;
}

// 1 when the key's parent path equals pat ("" for top-level keys)
static int parent_is(const skey* k, const char* pat) {
  const char* d = strrchr(k->path, '.');
  size_t n = d ? (size_t)(d - k->path) : 0;
  return strlen(pat) == n && strncmp(k->path, pat, n) == 0;
}

// 1 when key k applies to action type act (act < 0: not inside an action)
static int applies(const skey* k, int act) { return act < 0 || k->acts == 0 || (k->acts & (1u << act)); }

// "a.b" from "a" and "b" ("b" when a is empty); over-long paths are truncated (messages only)
static void join_path(char* out, size_t n, const char* a, const char* b) {
  int w = a[0] ? snprintf(out, n, "%s.%s", a, b) : snprintf(out, n, "%s", b);
  if (w < 0) out[0] = '\0';
}

// "a.i" from "a" and an index; truncated like join_path
static void join_index(char* out, size_t n, const char* a, int i) {
  if (snprintf(out, n, "%s.%d", a, i) < 0) out[0] = '\0';
}

// Damerau (optimal string alignment) edit distance, case-insensitive; large for long strings
static int edit_distance(const char* a, const char* b) {
  enum { M = 48 };
  size_t na = strlen(a), nb = strlen(b);
  if (na >= M || nb >= M) return 1000;
  int d[M][M];
  for (size_t i = 0; i <= na; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= nb; j++) d[0][j] = (int)j;
  // dynamic program over prefixes; transposition of adjacent characters costs 1
  for (size_t i = 1; i <= na; i++) {
    for (size_t j = 1; j <= nb; j++) {
      int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
      int v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  }
  return d[na][nb];
}

// closest candidate within a length-dependent distance, NULL when none is close
static const char* suggest(const char* word, const char* const* cands, int n) {
  const char* best = NULL;
  int bestd = 1000;
  for (int i = 0; i < n; i++) {
    size_t len = strlen(cands[i]);
    int maxd = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    int dd = edit_distance(word, cands[i]);
    if (dd <= maxd && dd < bestd) {
      best = cands[i];
      bestd = dd;
    }
  }
  return best;
}

// " (did you mean 'x'?)" or "" into buf
static void did_you_mean(char* buf, size_t n, const char* word, const char* const* cands, int ncands) {
  const char* s = suggest(word, cands, ncands);
  if (s)
    snprintf(buf, n, "; did you mean '%s'?", s);
  else
    buf[0] = '\0';
}

// "a, b, c" of a NULL-terminated name table into buf
static void list_names(char* buf, size_t n, const char* const* names) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; names[i] && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", names[i]);
}

// describe the range of a numeric key: "in [0, 1]", ">= 0", "> 0", "" when unbounded
static void range_text(const skey* k, char* buf, size_t n) {
  unsigned f = k->flags;
  if ((f & F_LO) && (f & F_HI))
    snprintf(buf, n, "in %c%g, %g%c", (f & F_LOX) ? '(' : '[', k->lo, k->hi, (f & F_HIX) ? ')' : ']');
  else if (f & F_LO)
    snprintf(buf, n, "%s %g", (f & F_LOX) ? ">" : ">=", k->lo);
  else if (f & F_HI)
    snprintf(buf, n, "%s %g", (f & F_HIX) ? "<" : "<=", k->hi);
  else
    buf[0] = '\0';
}

//---------------------------------- validation context and errors -----------------------------

// state of one validation
typedef struct {
  scn_config* cfg;
  csim_error* err;
} vctx;

// error at node n (or at the given position when n is NULL) for key path kpath
static csim_status fail_v(vctx* c, const char* file, int line, int col, const char* origin, const char* kpath,
                          const char* fmt, va_list ap) {
  char msg[900];
  vsnprintf(msg, sizeof(msg), fmt, ap);
  if (origin)
    return err_set(c->err, CSIM_ERR_INPUT, file, line, col, kpath, "%s (in --set '%.200s')", msg, origin);
  return err_set(c->err, CSIM_ERR_INPUT, file, line, col, kpath, "%s", msg);
}

#if defined(__GNUC__)
#define PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#else
#define PRINTF_LIKE(a, b)
#endif

// error located at a node
static csim_status fail_node(vctx* c, const ytree_node* n, const char* kpath, const char* fmt, ...)
    PRINTF_LIKE(4, 5);
static csim_status fail_node(vctx* c, const ytree_node* n, const char* kpath, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  csim_status st = n ? fail_v(c, n->file, n->line, n->column, n->origin, kpath, fmt, ap)
                     : fail_v(c, c->cfg->file, 0, 0, NULL, kpath, fmt, ap);
  va_end(ap);
  return st;
}

// error located at a map key
static csim_status fail_entry(vctx* c, const ytree_entry* e, const char* kpath, const char* fmt, ...)
    PRINTF_LIKE(4, 5);
static csim_status fail_entry(vctx* c, const ytree_entry* e, const char* kpath, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  csim_status st = fail_v(c, e->file, e->line, e->column, e->origin, kpath, fmt, ap);
  va_end(ap);
  return st;
}

// "expected X, found <description of n>"
static csim_status fail_type(vctx* c, const ytree_node* n, const char* kpath, const char* expected) {
  char found[96];
  ytree_describe(n, found, sizeof(found));
  return fail_node(c, n, kpath, "wrong type: expected %s, found %s", expected, found);
}

//---------------------------------- scalar conversions ----------------------------------------

// parse a YAML 1.2 core-schema number (also .inf / .nan); 0 when the text is not one
static int parse_number(const char* s, double* v) {
  const char* p = s;
  if (*p == '+' || *p == '-') p++;
  // .inf and .nan spellings
  if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) {
    *v = s[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    return 1;
  }
  if (p == s && (!strcmp(p, ".nan") || !strcmp(p, ".NaN") || !strcmp(p, ".NAN"))) {
    *v = NAN;
    return 1;
  }
  // digits [. digits] [e [sign] digits]
  int nd = 0;
  while (isdigit((unsigned char)*p)) p++, nd++;
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char)*p)) p++, nd++;
  }
  if (nd == 0) return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
  }
  if (*p) return 0;
  *v = strtod(s, NULL);
  return 1;
}

// number of key k from node n, with the key's range
static csim_status get_num(vctx* c, const skey* k, const ytree_node* n, const char* kpath, double* out) {
  double v;
  char rng[64];
  range_text(k, rng, sizeof(rng));
  if (n->kind != YTREE_SCALAR || ytree_is_null(n) || n->quoted || !parse_number(n->text, &v)) {
    char exp[96];
    snprintf(exp, sizeof(exp), "a number%s%s", rng[0] ? " " : "", rng);
    return fail_type(c, n, kpath, exp);
  }
  // NaN never, infinity only where the key allows it
  if (isnan(v)) return fail_node(c, n, kpath, "expected a finite number, found NaN ('%s')", n->text);
  if (isinf(v) && !(k->flags & F_INF)) {
    if (strchr(n->text, 'i') || strchr(n->text, 'I'))
      return fail_node(c, n, kpath, "expected a finite number, found infinity ('%s')", n->text);
    return fail_node(c, n, kpath, "expected a finite number, found '%s' (too large for a double)", n->text);
  }
  // bounds
  unsigned f = k->flags;
  int bad = ((f & F_LO) && ((f & F_LOX) ? !(v > k->lo) : !(v >= k->lo))) ||
            ((f & F_HI) && ((f & F_HIX) ? !(v < k->hi) : !(v <= k->hi)));
  if (bad) return fail_node(c, n, kpath, "out of range: expected a number %s, found %s", rng, n->text);
  *out = v;
  return CSIM_OK;
}

// integer of key k from node n: an exact integer value within the key's range and int
static csim_status get_int(vctx* c, const skey* k, const ytree_node* n, const char* kpath, int* out) {
  double v;
  char rng[64];
  range_text(k, rng, sizeof(rng));
  if (n->kind != YTREE_SCALAR || ytree_is_null(n) || n->quoted || !parse_number(n->text, &v)) {
    char exp[96];
    snprintf(exp, sizeof(exp), "an integer%s%s", rng[0] ? " " : "", rng);
    return fail_type(c, n, kpath, exp);
  }
  if (!isfinite(v) || v != floor(v))
    return fail_node(c, n, kpath, "wrong type: expected an integer%s%s, found '%s'", rng[0] ? " " : "", rng,
                     n->text);
  unsigned f = k->flags;
  int bad = ((f & F_LO) && ((f & F_LOX) ? !(v > k->lo) : !(v >= k->lo))) ||
            ((f & F_HI) && ((f & F_HIX) ? !(v < k->hi) : !(v <= k->hi))) || v < INT_MIN || v > INT_MAX;
  if (bad)
    return fail_node(c, n, kpath, "out of range: expected an integer %s, found %s", rng[0] ? rng : "that fits an int",
                     n->text);
  *out = (int)v;
  return CSIM_OK;
}

// boolean: exactly true or false
static csim_status get_bool(vctx* c, const ytree_node* n, const char* kpath, int* out) {
  if (n->kind == YTREE_SCALAR && !n->quoted && !strcmp(n->text, "true")) {
    *out = 1;
    return CSIM_OK;
  }
  if (n->kind == YTREE_SCALAR && !n->quoted && !strcmp(n->text, "false")) {
    *out = 0;
    return CSIM_OK;
  }
  if (n->kind != YTREE_SCALAR || ytree_is_null(n)) return fail_type(c, n, kpath, "true or false");
  static const char* const tf[] = {"true", "false"};
  char dym[64];
  did_you_mean(dym, sizeof(dym), n->text, tf, 2);
  char found[96];
  ytree_describe(n, found, sizeof(found));
  return fail_node(c, n, kpath, "wrong type: expected a bool (true or false), found %s%s", found, dym);
}

// non-empty string (any non-null scalar)
static csim_status get_str(vctx* c, const ytree_node* n, const char* kpath, const char* what, char** out) {
  if (n->kind != YTREE_SCALAR || ytree_is_null(n) || n->text[0] == '\0') return fail_type(c, n, kpath, what);
  *out = xstrdup(n->text);
  return CSIM_OK;
}

// one name of a name table
static csim_status get_enum(vctx* c, const skey* k, const ytree_node* n, const char* kpath, int* out) {
  char allowed[256];
  list_names(allowed, sizeof(allowed), k->names);
  if (n->kind != YTREE_SCALAR || ytree_is_null(n)) {
    char exp[300];
    snprintf(exp, sizeof(exp), "one of: %s", allowed);
    return fail_type(c, n, kpath, exp);
  }
  int i = scn_name_index(k->names, n->text);
  if (i < 0) {
    int nn = 0;
    while (k->names[nn]) nn++;
    char dym[96];
    did_you_mean(dym, sizeof(dym), n->text, k->names, nn);
    char found[96];
    ytree_describe(n, found, sizeof(found));
    return fail_node(c, n, kpath, "value not allowed: expected one of: %s; found %s%s", allowed, found, dym);
  }
  *out = i;
  return CSIM_OK;
}

// resolve a path against the scenario directory (absolute paths and dir "." unchanged)
static char* resolve_path(const char* dir, const char* p) {
  if (p[0] == '/' || !dir[0] || !strcmp(dir, ".")) return xstrdup(p);
  size_t n = strlen(dir) + strlen(p) + 2;
  char* r = xalloc(n, 1);
  snprintf(r, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", p);
  return r;
}

//---------------------------------- list conversions ------------------------------------------

// list of numbers (vec: exact length 3 when fixed > 0) into a new array
static csim_status get_nums(vctx* c, const skey* k, const ytree_node* n, const char* kpath, int fixed,
                            double** out, int* nout) {
  // a single number where broadcasting is allowed
  if (n->kind == YTREE_SCALAR && (k->flags & F_BCAST) && !ytree_is_null(n)) {
    double v;
    csim_status st = get_num(c, k, n, kpath, &v);
    if (st != CSIM_OK) return st;
    *out = xalloc(1, sizeof(double));
    (*out)[0] = v;
    *nout = 1;
    return CSIM_OK;
  }
  if (n->kind != YTREE_SEQ)
    return fail_type(c, n, kpath, fixed ? "a list of 3 numbers [x, y, z]" : "a list of numbers");
  if (fixed && n->n != fixed)
    return fail_node(c, n, kpath, "wrong length: expected a list of %d numbers [x, y, z], found a list of %d item%s",
                     fixed, n->n, n->n == 1 ? "" : "s");
  if (n->n == 0) return fail_node(c, n, kpath, "expected a non-empty list of numbers, found an empty list");
  double* v = xalloc((size_t)n->n, sizeof(double));
  // each element, with its own key path for messages
  for (int i = 0; i < n->n; i++) {
    char ep[256];
    join_index(ep, sizeof(ep), kpath, i);
    csim_status st = get_num(c, k, n->items[i], ep, &v[i]);
    if (st != CSIM_OK) {
      free(v);
      return st;
    }
  }
  *out = v;
  *nout = n->n;
  return CSIM_OK;
}

// list of strings into a new array (empty allowed unless nonempty)
static csim_status get_strs(vctx* c, const ytree_node* n, const char* kpath, const char* what, int nonempty,
                            char*** out, int* nout) {
  if (n->kind != YTREE_SEQ) return fail_type(c, n, kpath, what);
  if (nonempty && n->n == 0) return fail_node(c, n, kpath, "expected a non-empty list, found an empty list");
  char** v = xalloc((size_t)n->n + 1, sizeof(char*));
  // each element must be a non-empty string
  for (int i = 0; i < n->n; i++) {
    char ep[256];
    join_index(ep, sizeof(ep), kpath, i);
    csim_status st = get_str(c, n->items[i], ep, "a non-empty string", &v[i]);
    if (st != CSIM_OK) {
      for (int j = 0; j < i; j++) free(v[j]);
      free(v);
      return st;
    }
  }
  *out = v;
  *nout = n->n;
  return CSIM_OK;
}

// free an array of n strings
static void free_strs(char** v, int n) {
  if (!v) return;
  for (int i = 0; i < n; i++) free(v[i]);
  free(v);
}

//---------------------------------- the walk --------------------------------------------------

static csim_status walk_map(vctx* c, const ytree_node* map, const char* pat, const char* kpath, void** bases,
                            int act);

// field address of key k in the struct it belongs to
static void* field(const skey* k, void** bases, size_t off) { return (char*)bases[k->base] + off; }

// convert the value n of key k into its storage
static csim_status convert(vctx* c, const skey* k, const ytree_node* n, const char* kpath, void** bases,
                           int act);

// the element kinds of the lists: a name for messages, the element size, and for lists whose
// elements have a type (actions, controllers) the type key's path and the type names
typedef struct {
  int elem;
  const char* what;
  size_t size;
  const char* type_path;
  const char* const* type_names;
} list_kind;

static const list_kind list_kinds[] = {
    {B_ROBOT, "robot", sizeof(scn_robot), NULL, NULL},
    {B_ACTION, "action", sizeof(act_spec), "actions.N.type", act_type_names},
    {B_CONTROLLER, "controller", sizeof(scn_controller), "controllers.N.type", csim_controller_names},
};

static const list_kind* kind_of(int elem) {
  for (size_t i = 0; i < sizeof list_kinds / sizeof list_kinds[0]; i++)
    if (list_kinds[i].elem == elem) return &list_kinds[i];
  return &list_kinds[0];
}

// the list kind a key pattern lies in ("actions.N..." -> actions), NULL at other keys
static const list_kind* kind_at(const char* pat) {
  for (size_t i = 0; i < sizeof list_kinds / sizeof list_kinds[0]; i++) {
    const char* tp = list_kinds[i].type_path;
    if (tp && !strncmp(pat, tp, (size_t)(strchr(tp, '.') - tp)) && pat[strchr(tp, '.') - tp] == '.')
      return &list_kinds[i];
  }
  return NULL;
}

// an element with a type: the type key is read first, since it decides which keys apply
static csim_status read_type(vctx* c, const list_kind* lk, const ytree_node* item, const char* ip,
                             void** sub, int* type) {
  const ytree_entry* te = ytree_map_get(item, "type");
  char tp[256];
  join_path(tp, sizeof(tp), ip, "type");
  if (!te) {
    char allowed[128];
    list_names(allowed, sizeof(allowed), lk->type_names);
    return fail_node(c, item, tp, "missing required key 'type' (one of: %s)", allowed);
  }
  for (size_t r = 0; r < NKEYS; r++) {
    if (strcmp(keys[r].path, lk->type_path) != 0) continue;
    csim_status st = convert(c, &keys[r], te->value, tp, sub, -1);
    if (st != CSIM_OK) return st;
    *type = *(int*)field(&keys[r], sub, keys[r].off);
  }
  return CSIM_OK;
}

// robots / actions / controllers: a list of maps, each walked with its own storage
static csim_status convert_list(vctx* c, const skey* k, const ytree_node* n, const char* kpath, void** bases) {
  const list_kind* lk = kind_of(k->elem);
  const char* what = lk->what;
  if (n->kind != YTREE_SEQ) {
    char exp[64];
    snprintf(exp, sizeof(exp), "a list of %ss (- key: value ...)", what);
    return fail_type(c, n, kpath, exp);
  }
  if ((k->flags & F_REQ) && n->n == 0)
    return fail_node(c, n, kpath, "expected at least one %s, found an empty list", what);
  size_t esize = lk->size;
  void* arr = xalloc((size_t)n->n, esize);
  // count first, so scn_free releases partially filled elements on error
  *(void**)field(k, bases, k->off) = arr;
  *(int*)field(k, bases, k->noff) = n->n;
  char pat[64];
  snprintf(pat, sizeof(pat), "%s.N", k->path);
  for (int i = 0; i < n->n; i++) {
    const ytree_node* item = n->items[i];
    char ip[256];
    join_index(ip, sizeof(ip), kpath, i);
    char exp[64];
    snprintf(exp, sizeof(exp), "a map of %s keys", what);
    if (item->kind != YTREE_MAP) return fail_type(c, item, ip, exp);
    void* sub[NBASES];
    memcpy(sub, bases, sizeof(sub));
    sub[k->elem] = (char*)arr + (size_t)i * esize;
    int act = -1;
    if (k->elem == B_ROBOT) ((scn_robot*)sub[B_ROBOT])->line = item->line;
    if (k->elem == B_ACTION) ((act_spec*)sub[B_ACTION])->line = item->line;
    if (k->elem == B_CONTROLLER) ((scn_controller*)sub[B_CONTROLLER])->line = item->line;
    csim_status st = lk->type_path ? read_type(c, lk, item, ip, sub, &act) : CSIM_OK;
    if (st != CSIM_OK) return st;
    st = walk_map(c, item, pat, ip, sub, act);
    if (st != CSIM_OK) return st;
  }
  return CSIM_OK;
}

// remember where the value of kpath was written (scn_key_error)
static void note_position(scn_config* cfg, const char* kpath, const ytree_node* n) {
  for (int i = 0; i < cfg->npositions; i++)
    if (!strcmp(cfg->positions[i].key, kpath)) {
      free(cfg->positions[i].file);
      cfg->positions[i].file = xstrdup(n->file ? n->file : cfg->file);
      cfg->positions[i].line = n->line;
      cfg->positions[i].column = n->column;
      return;
    }
  // grow by powers of two
  if ((cfg->npositions & (cfg->npositions - 1)) == 0) {
    size_t cap = cfg->npositions ? 2 * (size_t)cfg->npositions : 16;
    scn_pos* np = xalloc(cap, sizeof(scn_pos));
    if (cfg->npositions) memcpy(np, cfg->positions, sizeof(scn_pos) * (size_t)cfg->npositions);
    free(cfg->positions);
    cfg->positions = np;
  }
  scn_pos* p = &cfg->positions[cfg->npositions++];
  p->key = xstrdup(kpath);
  p->file = xstrdup(n->file ? n->file : cfg->file);
  p->line = n->line;
  p->column = n->column;
}

// a string; a path (K_PATH) is also stored resolved against the scenario directory
static csim_status conv_str(vctx* c, const skey* k, const ytree_node* n, const char* kpath,
                            void** bases) {
  csim_status st = CSIM_OK;
  char* s = NULL;
  if ((st = get_str(c, n, kpath, k->type == K_PATH ? "a file path" : "a non-empty string", &s)) != CSIM_OK)
    return st;
  char** dst = field(k, bases, k->off);
  free(*dst);
  *dst = s;
  if (k->type == K_PATH) {
    char** res = field(k, bases, k->off2);
    free(*res);
    *res = resolve_path(c->cfg->dir, s);
  }
  return CSIM_OK;
}

// three numbers; non-zero vectors (F_NONZERO) are normalised
static csim_status conv_vec3(vctx* c, const skey* k, const ytree_node* n, const char* kpath,
                             void** bases) {
  csim_status st = CSIM_OK;
  double* v = NULL;
  int nv = 0;
  if ((st = get_nums(c, k, n, kpath, 3, &v, &nv)) != CSIM_OK) return st;
  // non-zero vectors are normalised
  double norm = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if ((k->flags & F_NONZERO) && !(norm > 0)) {
    free(v);
    return fail_node(c, n, kpath, "expected a non-zero vector, found [0, 0, 0]");
  }
  double* dst = field(k, bases, k->off);
  for (int i = 0; i < 3; i++) dst[i] = (k->flags & F_NONZERO) ? v[i] / norm : v[i];
  free(v);
  return CSIM_OK;
}

// a list of numbers and its count
static csim_status conv_nums(vctx* c, const skey* k, const ytree_node* n, const char* kpath,
                             void** bases) {
  csim_status st = CSIM_OK;
  double* v = NULL;
  int nv = 0;
  if ((st = get_nums(c, k, n, kpath, 0, &v, &nv)) != CSIM_OK) return st;
  double** dst = field(k, bases, k->off);
  free(*dst);
  *dst = v;
  *(int*)field(k, bases, k->noff) = nv;
  return CSIM_OK;
}

// a list of integers, each in range, and its count
static csim_status conv_ints(vctx* c, const skey* k, const ytree_node* n, const char* kpath,
                             void** bases) {
  csim_status st = CSIM_OK;
  if (n->kind != YTREE_SEQ) return fail_type(c, n, kpath, "a list of integers");
  int* v = xalloc((size_t)n->n, sizeof(int));
  // each element an integer in range
  for (int i = 0; i < n->n && st == CSIM_OK; i++) {
    char ep[256];
    join_index(ep, sizeof(ep), kpath, i);
    st = get_int(c, k, n->items[i], ep, &v[i]);
  }
  if (st != CSIM_OK) {
    free(v);
    return st;
  }
  int** dst = field(k, bases, k->off);
  free(*dst);
  *dst = v;
  *(int*)field(k, bases, k->noff) = n->n;
  return CSIM_OK;
}

// a list of paths: kept as written and resolved
static csim_status conv_paths(vctx* c, const skey* k, const ytree_node* n, const char* kpath,
                              void** bases) {
  csim_status st = CSIM_OK;
  char** text = NULL;
  int nt = 0;
  if ((st = get_strs(c, n, kpath, "a list of directory paths", 0, &text, &nt)) != CSIM_OK) return st;
  char** res = xalloc((size_t)nt + 1, sizeof(char*));
  for (int i = 0; i < nt; i++) res[i] = resolve_path(c->cfg->dir, text[i]);
  int* cnt = field(k, bases, k->noff);
  free_strs(*(char***)field(k, bases, k->off), *cnt);
  free_strs(*(char***)field(k, bases, k->off2), *cnt);
  *(char***)field(k, bases, k->off) = res;
  *(char***)field(k, bases, k->off2) = text;
  *cnt = nt;
  return CSIM_OK;
}

// a map of name: number (each value finite; the name is the key)
static csim_status conv_nummap(vctx* c, const skey* k, const ytree_node* n, const char* kpath,
                               void** bases) {
  csim_status st = CSIM_OK;
  if (n->kind != YTREE_MAP) return fail_type(c, n, kpath, "a map of name: number");
  scn_named_value* v = xalloc((size_t)n->n, sizeof(scn_named_value));
  // each value a finite number; the name is the key
  skey any = *k;
  any.flags = 0;
  for (int i = 0; i < n->n && st == CSIM_OK; i++) {
    char ep[256];
    join_path(ep, sizeof(ep), kpath, n->entries[i].key);
    v[i].name = xstrdup(n->entries[i].key);
    st = get_num(c, &any, n->entries[i].value, ep, &v[i].value);
  }
  if (st != CSIM_OK) {
    for (int i = 0; i < n->n; i++) free(v[i].name);
    free(v);
    return st;
  }
  *(scn_named_value**)field(k, bases, k->off) = v;
  *(int*)field(k, bases, k->noff) = n->n;
  return CSIM_OK;
}

// map name -> a scalar or a list of scalars, kept as text (controller params): flat name, value
static csim_status conv_strmap(vctx* c, const skey* k, const ytree_node* n, const char* kpath,
                               void** bases) {
  if (n->kind != YTREE_MAP) return fail_type(c, n, kpath, "a map of name: value");
  char** kv = xalloc(2 * (size_t)n->n + 1, sizeof(char*));
  *(char***)field(k, bases, k->off) = kv;  // owned from here on (scn_free) even on error
  *(int*)field(k, bases, k->noff) = n->n;
  for (int i = 0; i < n->n; i++) {
    const ytree_node* v = n->entries[i].value;
    char ep[256];
    join_path(ep, sizeof(ep), kpath, n->entries[i].key);
    kv[2 * i] = xstrdup(n->entries[i].key);
    if (v->kind == YTREE_SCALAR) {
      kv[2 * i + 1] = xstrdup(v->text);
      continue;
    }
    if (v->kind != YTREE_SEQ) return fail_type(c, v, ep, "a scalar or a list of scalars");
    size_t len = 1;
    for (int j = 0; j < v->n; j++) {
      if (v->items[j]->kind != YTREE_SCALAR) return fail_type(c, v->items[j], ep, "a scalar");
      len += strlen(v->items[j]->text) + 1;
    }
    char* t = xalloc(len, 1);
    for (int j = 0; j < v->n; j++) strcat(strcat(t, j ? " " : ""), v->items[j]->text);
    kv[2 * i + 1] = t;
  }
  return CSIM_OK;
}

// a list of [link, link] pairs
static csim_status conv_pairs(vctx* c, const skey* k, const ytree_node* n, const char* kpath,
                              void** bases) {
  csim_status st = CSIM_OK;
  if (n->kind != YTREE_SEQ) return fail_type(c, n, kpath, "a list of [link, link] pairs");
  char** v = xalloc(2 * (size_t)n->n + 1, sizeof(char*));
  // each item a list of exactly two names
  for (int i = 0; i < n->n && st == CSIM_OK; i++) {
    char ep[256];
    join_index(ep, sizeof(ep), kpath, i);
    const ytree_node* it = n->items[i];
    if (it->kind != YTREE_SEQ || it->n != 2) {
      st = fail_type(c, it, ep, "a pair of link names [link, link]");
      break;
    }
    for (int j = 0; j < 2 && st == CSIM_OK; j++) {
      char jp[256];
      join_index(jp, sizeof(jp), ep, j);
      st = get_str(c, it->items[j], jp, "a link name", &v[2 * i + j]);
    }
  }
  if (st != CSIM_OK) {
    free_strs(v, 2 * n->n);
    return st;
  }
  *(char***)field(k, bases, k->off) = v;
  *(int*)field(k, bases, k->noff) = n->n;
  return CSIM_OK;
}

// name -> map of material keys, each walked at PATH.NAME with its own storage; a key left
// out stays NAN (the default material)
static csim_status conv_matmap(vctx* c, const skey* k, const ytree_node* n, const char* kpath,
                               void** bases, int act) {
  csim_status st = CSIM_OK;
  if (n->kind != YTREE_MAP) return fail_type(c, n, kpath, "a map of name: {friction: .., stiffness: ..}");
  int* cnt = field(k, bases, k->noff);
  scn_material** dst = field(k, bases, k->off);
  for (int i = 0; *dst && i < *cnt; i++) free((*dst)[i].name);
  free(*dst);
  scn_material* v = xalloc((size_t)n->n + 1, sizeof(scn_material));
  *dst = v;
  *cnt = n->n;
  char pat[96];
  snprintf(pat, sizeof(pat), "%s.NAME", k->path);
  for (int i = 0; i < n->n; i++) {
    const ytree_entry* e = &n->entries[i];
    char ep[256];
    join_path(ep, sizeof(ep), kpath, e->key);
    v[i].name = xstrdup(e->key);
    v[i].friction = v[i].stiffness = v[i].damping = v[i].restitution = NAN;
    note_position(c->cfg, ep, e->value);
    if (e->value->kind != YTREE_MAP)
      return fail_type(c, e->value, ep, "a map of material keys (friction, stiffness, damping, restitution)");
    void* sub[NBASES];
    memcpy(sub, bases, sizeof(sub));
    sub[B_MATERIAL] = &v[i];
    if ((st = walk_map(c, e->value, pat, ep, sub, act)) != CSIM_OK) return st;
  }
  return CSIM_OK;
}

// the word "all" (count -1), or a list of distinct joint names
static csim_status conv_joints(vctx* c, const skey* k, const ytree_node* n, const char* kpath,
                               void** bases) {
  csim_status st = CSIM_OK;
  char** dst_free = *(char***)field(k, bases, k->off);
  int* cnt = field(k, bases, k->noff);
  if (n->kind == YTREE_SCALAR && !strcmp(n->text, "all")) {
    free_strs(dst_free, *cnt);
    *(char***)field(k, bases, k->off) = NULL;
    *cnt = -1;
    return CSIM_OK;
  }
  char** v = NULL;
  int nv = 0;
  if ((st = get_strs(c, n, kpath, "'all' or a list of joint names", 1, &v, &nv)) != CSIM_OK) return st;
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < i; j++)
      if (!strcmp(v[i], v[j])) {
        char ep[256];
        join_index(ep, sizeof(ep), kpath, i);
        st = fail_node(c, n->items[i], ep, "joint '%s' is listed twice (also item %d)", v[i], j);
        free_strs(v, nv);
        return st;
      }
  free_strs(dst_free, *cnt);
  *(char***)field(k, bases, k->off) = v;
  *cnt = nv;
  return CSIM_OK;
}

// one key's value n at kpath into its field (sections and lists walk on)
static csim_status convert(vctx* c, const skey* k, const ytree_node* n, const char* kpath, void** bases,
                           int act) {
  csim_status st = CSIM_OK;
  note_position(c->cfg, kpath, n);
  switch (k->type) {
    case K_SECTION:
      if (n->kind != YTREE_MAP) return fail_type(c, n, kpath, "a map of keys");
      return walk_map(c, n, k->path, kpath, bases, act);
    case K_LIST:
      return convert_list(c, k, n, kpath, bases);
    case K_STR:
    case K_PATH:
      return conv_str(c, k, n, kpath, bases);
    case K_NUM:
      return get_num(c, k, n, kpath, field(k, bases, k->off));
    case K_INT:
      return get_int(c, k, n, kpath, field(k, bases, k->off));
    case K_BOOL:
      return get_bool(c, n, kpath, field(k, bases, k->off));
    case K_ENUM: {
      int v = 0;
      if ((st = get_enum(c, k, n, kpath, &v)) == CSIM_OK) memcpy(field(k, bases, k->off), &v, sizeof(int));
      return st;
    }
    case K_VEC3:
      return conv_vec3(c, k, n, kpath, bases);
    case K_NUMS:
      return conv_nums(c, k, n, kpath, bases);
    case K_INTS:
      return conv_ints(c, k, n, kpath, bases);
    case K_PATHS:
      return conv_paths(c, k, n, kpath, bases);
    case K_NUMMAP:
      return conv_nummap(c, k, n, kpath, bases);
    case K_PAIRS:
      return conv_pairs(c, k, n, kpath, bases);
    case K_MATMAP:
      return conv_matmap(c, k, n, kpath, bases, act);
    case K_JOINTS:
      return conv_joints(c, k, n, kpath, bases);
    case K_STRMAP:
      return conv_strmap(c, k, n, kpath, bases);
  }
  return fail_node(c, n, kpath, "internal error: unknown key type");
}

// apply the default of key k (sections: walk with no map so their keys get defaults)
static csim_status apply_default(vctx* c, const skey* k, const char* kpath, void** bases, int act) {
  if (k->type == K_SECTION) return walk_map(c, NULL, k->path, kpath, bases, act);
  if (!k->def) return CSIM_OK;
  ytree_source src = {"<schema default>", 0, 0, NULL};
  ytree_node* n = NULL;
  csim_status st = ytree_parse(k->def, strlen(k->def), &src, &n, c->err);
  if (st == CSIM_OK && n) st = convert(c, k, n, kpath, bases, act);
  ytree_free(n);
  return st;
}

// unknown key (or a key of another action type) at entry e of a map at pattern pat
static csim_status unknown_key(vctx* c, const ytree_entry* e, const char* pat, const char* kpath, int act) {
  // a key of this level that applies to other action types
  for (size_t r = 0; act >= 0 && r < NKEYS; r++) {
    if (!parent_is(&keys[r], pat) || strcmp(leaf_of(keys[r].path), e->key) != 0) continue;
    char types[64] = "";
    size_t t = 0;
    const list_kind* lk = kind_at(pat);
    for (int a = 0; lk && lk->type_names[a]; a++)
      if (keys[r].acts & (1u << a))
        t += (size_t)snprintf(types + t, sizeof(types) - t, "%s%s", t ? ", " : "", lk->type_names[a]);
    return fail_entry(c, e, kpath, "key '%s' does not apply to %ss of type '%s' (it applies to: %s)", e->key,
                      lk ? lk->what : "?", lk ? lk->type_names[act] : "?", types);
  }
  // candidates: applicable sibling keys, without duplicates
  const char* cands[NKEYS];
  int nc = 0;
  for (size_t r = 0; r < NKEYS; r++) {
    if (!parent_is(&keys[r], pat) || !applies(&keys[r], act)) continue;
    const char* l = leaf_of(keys[r].path);
    int dup = 0;
    for (int i = 0; i < nc; i++) dup |= !strcmp(cands[i], l);
    if (!dup) cands[nc++] = l;
  }
  char dym[96], allowed[512];
  did_you_mean(dym, sizeof(dym), e->key, cands, nc);
  size_t t = 0;
  allowed[0] = '\0';
  for (int i = 0; i < nc && t < sizeof(allowed); i++)
    t += (size_t)snprintf(allowed + t, sizeof(allowed) - t, "%s%s", i ? ", " : "", cands[i]);
  // where: "at the top level" or "in 'contact'" / "in 'robots.0'"
  char where[300];
  if (!pat[0]) {
    snprintf(where, sizeof(where), "at the top level");
  } else {
    const char* d = strrchr(kpath, '.');
    snprintf(where, sizeof(where), "in '%.*s'", d ? (int)(d - kpath) : (int)strlen(kpath), kpath);
  }
  return fail_entry(c, e, kpath, "unknown key '%s' %s%s (allowed keys: %s)", e->key, where, dym, allowed);
}

// walk a map at schema pattern pat: convert known keys, report unknown ones, fill defaults
//   map: NULL for an absent section (defaults only); kpath: concrete path of the map
//   act: action type when inside an action, -1 otherwise
static csim_status walk_map(vctx* c, const ytree_node* map, const char* pat, const char* kpath, void** bases,
                            int act) {
  unsigned char seen[NKEYS];
  memset(seen, 0, sizeof(seen));
  csim_status st;
  // keys present, in document order
  for (int i = 0; map && i < map->n; i++) {
    const ytree_entry* e = &map->entries[i];
    char cp[256];
    join_path(cp, sizeof(cp), kpath, e->key);
    size_t r = 0;
    for (; r < NKEYS; r++)
      if (parent_is(&keys[r], pat) && applies(&keys[r], act) && !strcmp(leaf_of(keys[r].path), e->key)) break;
    if (r == NKEYS) return unknown_key(c, e, pat, cp, act);
    seen[r] = 1;
    if ((st = convert(c, &keys[r], e->value, cp, bases, act)) != CSIM_OK) return st;
  }
  // keys absent: required ones are errors, the others get their default
  for (size_t r = 0; r < NKEYS; r++) {
    if (seen[r] || !parent_is(&keys[r], pat) || !applies(&keys[r], act)) continue;
    char cp[256];
    join_path(cp, sizeof(cp), kpath, leaf_of(keys[r].path));
    if (keys[r].flags & F_REQ) {
      const char* l = leaf_of(keys[r].path);
      const list_kind* lk = kind_at(pat);
      if (act >= 0 && keys[r].acts && lk)
        return fail_node(c, map, cp, "missing required key '%s' (%s) for %s %s of type '%s'", l, keys[r].doc,
                         lk->elem == B_ACTION ? "an" : "a", lk->what, lk->type_names[act]);
      return fail_node(c, map, cp, "missing required key '%s' (%s)", l, keys[r].doc);
    }
    if ((st = apply_default(c, &keys[r], cp, bases, act)) != CSIM_OK) return st;
  }
  return CSIM_OK;
}

//---------------------------------- cross-key checks ------------------------------------------

// value node of key in map, NULL when absent
static const ytree_node* value_of(const ytree_node* map, const char* key) {
  const ytree_entry* e = ytree_map_get(map, key);
  return e ? e->value : NULL;
}

// contact.solref / contact.solimp: only with model ccp and without contact.compliance; solref two
// numbers of one sign (MuJoCo replaces a mixed pair by its default with a warning: here an error),
// solimp five numbers in MuJoCo's ranges (MuJoCo clamps them silently: here an error)
static csim_status check_soft(vctx* c, const ytree_node* root) {
  scn_config* cfg = c->cfg;
  const ytree_node* con = value_of(root, "contact");
  const ytree_node* nref = con && con->kind == YTREE_MAP ? value_of(con, "solref") : NULL;
  const ytree_node* nimp = con && con->kind == YTREE_MAP ? value_of(con, "solimp") : NULL;
  if (cfg->solimp && !cfg->solref)
    return fail_node(c, nimp, "contact.solimp", "contact.solimp needs contact.solref (MuJoCo softness of the ccp model)");
  if (!cfg->solref) return CSIM_OK;
  if (cfg->model != CSIM_MODEL_CCP)
    return fail_node(c, nref, "contact.solref", "contact.solref applies to contact.model ccp only, found model '%s'",
                     csim_model_names[cfg->model]);
  if (cfg->compliance > 0)
    return fail_node(c, nref, "contact.solref", "contact.solref and contact.compliance %g both set the compliance R: "
                     "give one of them", cfg->compliance);
  // the reference velocity replaces the Baumgarte and restitution targets (material.h)
  if (cfg->restitution > 0 || cfg->baumgarte > 0)
    return fail_node(c, nref, "contact.solref", "contact.solref sets the target velocity MuJoCo's way: "
                     "contact.restitution (%g) and contact.baumgarte (%g) must be 0 with it", cfg->restitution,
                     cfg->baumgarte);
  for (int i = 0; i < cfg->nmaterials; i++)
    if (cfg->materials[i].restitution > 0) {
      const ytree_node* mats = value_of(con, "materials");
      const ytree_node* mn = mats && mats->kind == YTREE_MAP ? value_of(mats, cfg->materials[i].name) : NULL;
      const ytree_node* rn = mn && mn->kind == YTREE_MAP ? value_of(mn, "restitution") : NULL;
      char kp[300];
      snprintf(kp, sizeof(kp), "contact.materials.%.200s.restitution", cfg->materials[i].name);
      return fail_node(c, rn ? rn : nref, kp, "restitution %g cannot act with contact.solref (MuJoCo's reference "
                       "velocity sets the target): remove one of them", cfg->materials[i].restitution);
    }
  if (cfg->nsolref != 2)
    return fail_node(c, nref, "contact.solref", "wrong length: expected 2 numbers [timeconst, dampratio] or "
                     "[-stiffness, -damping], found %d", cfg->nsolref);
  const double* r = cfg->solref;
  if (!((r[0] > 0 && r[1] > 0) || (r[0] <= 0 && r[1] <= 0)) || (r[0] == 0 && r[1] == 0))
    return fail_node(c, nref, "contact.solref", "expected [timeconst, dampratio] both > 0 or [-stiffness, -damping] "
                     "both <= 0 and not both 0, found [%g, %g]", r[0], r[1]);
  if (!cfg->solimp) return CSIM_OK;
  if (cfg->nsolimp != 5)
    return fail_node(c, nimp, "contact.solimp", "wrong length: expected 5 numbers [dmin, dmax, width, midpoint, "
                     "power], found %d", cfg->nsolimp);
  const double* s = cfg->solimp;
  static const char* const what[5] = {"dmin", "dmax", "width", "midpoint", "power"};
  for (int i = 0; i < 5; i++) {
    int ok = i == 2 ? s[i] >= 0 : i == 4 ? s[i] >= 1 : (s[i] >= 0.0001 && s[i] <= 0.9999);
    if (!ok) {
      char kp[64];
      snprintf(kp, sizeof(kp), "contact.solimp.%d", i);
      return fail_node(c, nimp && nimp->kind == YTREE_SEQ && i < nimp->n ? nimp->items[i] : nimp, kp,
                       "out of range: %s expected %s, found %g", what[i],
                       i == 2 ? ">= 0" : i == 4 ? ">= 1" : "in [0.0001, 0.9999]", s[i]);
    }
  }
  return CSIM_OK;
}

// each robot names exactly one file, URDF or MJCF; without integrator.dt, the first MJCF file
// with an <option timestep> gives the time step (the file is read once more at compile time)
static csim_status check_robot_files(vctx* c, const ytree_node* root) {
  scn_config* cfg = c->cfg;
  const ytree_node* robots = value_of(root, "robots");
  const ytree_node* integ = value_of(root, "integrator");
  int dt_given = integ && integ->kind == YTREE_MAP && value_of(integ, "dt");
  for (int i = 0; i < cfg->nrobots; i++) {
    const scn_robot* R = &cfg->robots[i];
    char kp[64];
    snprintf(kp, sizeof(kp), "robots.%d", i);
    if (!R->urdf == !R->mjcf)
      return fail_node(c, robots->items[i], kp, "expected exactly one of 'urdf' and 'mjcf' (the "
                       "robot's file), found %s", R->urdf ? "both" : "neither");
    if (!R->mjcf || dt_given) continue;
    urdf_robot* u = NULL;
    csim_error e;
    err_clear(&e);
    if (mjcf_load(R->mjcf_path, NULL, &u, &e) != CSIM_OK) {
      *c->err = e;
      return CSIM_ERR_INPUT;
    }
    if (u->has_timestep) {
      cfg->dt = u->timestep;
      dt_given = 1;
    }
    urdf_free(u);
  }
  return CSIM_OK;
}

// checks that involve several keys: robot names, action windows and per-joint list lengths
// controllers: default names, names unique, noise channels known with standard deviations >= 0
static csim_status check_controllers(vctx* c, const ytree_node* root) {
  scn_config* cfg = c->cfg;
  const ytree_node* list = value_of(root, "controllers");
  char kp[300];
  for (int i = 0; i < cfg->ncontrollers; i++) {
    scn_controller* t = &cfg->controllers[i];
    const ytree_node* item = list->items[i];
    if (!t->name) {
      snprintf(kp, sizeof(kp), "%s%d", csim_controller_names[t->type], i);
      t->name = xstrdup(kp);
    }
    for (int j = 0; j < i; j++)
      if (!strcmp(t->name, cfg->controllers[j].name)) {
        snprintf(kp, sizeof(kp), "controllers.%d.name", i);
        return fail_node(c, value_of(item, "name") ? value_of(item, "name") : item, kp,
                         "duplicate controller name '%s' (controller %d, line %d, has the same name)",
                         t->name, j, cfg->controllers[j].line);
      }
    const ytree_node* noise = value_of(item, "noise");
    for (int j = 0; j < t->nnoise; j++) {
      snprintf(kp, sizeof(kp), "controllers.%d.noise.%.200s", i, t->noise[j].name);
      if (scn_name_index(ctl_channel_names, t->noise[j].name) < 0) {
        char dym[96], allowed[256];
        did_you_mean(dym, sizeof(dym), t->noise[j].name, ctl_channel_names, CTL_NCHANNELS);
        list_names(allowed, sizeof(allowed), ctl_channel_names);
        return fail_entry(c, &noise->entries[j], kp, "unknown sensor channel '%s'%s (one of: %s)",
                          t->noise[j].name, dym, allowed);
      }
      if (!(t->noise[j].value >= 0))
        return fail_node(c, noise->entries[j].value, kp,
                         "out of range: a standard deviation >= 0 expected, found %g", t->noise[j].value);
    }
  }
  return CSIM_OK;
}

static csim_status check_cross(vctx* c, const ytree_node* root) {
  scn_config* cfg = c->cfg;
  csim_status st_soft;
  char kp[256];
  // run name: used in the default output file name
  if (strchr(cfg->name, '/'))
    return fail_node(c, value_of(root, "name"), "name", "the name must not contain '/', found '%s'", cfg->name);
  csim_status st_file = check_robot_files(c, root);
  if (st_file != CSIM_OK) return st_file;
  // step count: duration / dt bounded, so it never overflows nor runs for ever
  double nsteps = cfg->duration / cfg->dt;
  if (!(nsteps <= SCN_MAX_STEPS)) {
    const ytree_node* integ = value_of(root, "integrator");
    const ytree_node* where = integ && integ->kind == YTREE_MAP ? value_of(integ, "duration") : NULL;
    if (!where && integ && integ->kind == YTREE_MAP) where = value_of(integ, "dt");
    return fail_node(c, where ? where : root, "integrator.duration",
                     "out of range: duration / dt = %.3g steps, expected at most %.0e (duration %g s, "
                     "dt %g s)", nsteps, SCN_MAX_STEPS, cfg->duration, cfg->dt);
  }
  // height-field keys are used only by a height field, the random-field keys only without a file:
  // a key that would be ignored is an error, not a silent no-op
  {
    const ytree_node* w = value_of(root, "world");
    const ytree_node* g = w && w->kind == YTREE_MAP ? value_of(w, "ground") : NULL;
    static const char* const hf_keys[] = {"file", "size", "seed", "amplitude", "resolution"};
    for (int k = 0; g && g->kind == YTREE_MAP && k < 5; k++) {
      const ytree_node* v = value_of(g, hf_keys[k]);
      if (!v) continue;
      snprintf(kp, sizeof(kp), "world.ground.%s", hf_keys[k]);
      if (cfg->ground != 2)
        return fail_node(c, v, kp, "only used with world.ground.type: heightfield (the type is %s)",
                         scn_ground_names[cfg->ground]);
      if (k >= 2 && cfg->ground_file)
        return fail_node(c, v, kp, "only used by a random height field, not with world.ground.file");
    }
  }
  // height field size: two positive extents
  if (cfg->nground_size != 2 || !(cfg->ground_size[0] > 0) || !(cfg->ground_size[1] > 0)) {
    const ytree_node* w = value_of(root, "world");
    const ytree_node* g = w && w->kind == YTREE_MAP ? value_of(w, "ground") : NULL;
    const ytree_node* where = g && g->kind == YTREE_MAP ? value_of(g, "size") : NULL;
    return fail_node(c, where ? where : root, "world.ground.size",
                     "expected [size_x, size_y], two numbers > 0 (m), found %d value(s)%s",
                     cfg->nground_size, cfg->nground_size == 2 ? " not both > 0" : "");
  }
  // MuJoCo softness: ccp only, lengths and MuJoCo's ranges (src/core/material.h)
  if ((st_soft = check_soft(c, root)) != CSIM_OK) return st_soft;
  if ((st_soft = check_controllers(c, root)) != CSIM_OK) return st_soft;
  // explicit robot names are unique
  const ytree_node* robots = value_of(root, "robots");
  for (int i = 0; i < cfg->nrobots; i++)
    for (int j = 0; j < i; j++)
      if (cfg->robots[i].name && cfg->robots[j].name && !strcmp(cfg->robots[i].name, cfg->robots[j].name)) {
        snprintf(kp, sizeof(kp), "robots.%d.name", i);
        return fail_node(c, value_of(robots->items[i], "name"), kp,
                         "duplicate robot name '%s' (robot %d, line %d, has the same name)", cfg->robots[i].name, j,
                         cfg->robots[j].line);
      }
  // actions
  const ytree_node* actions = value_of(root, "actions");
  for (int i = 0; i < cfg->nactions; i++) {
    const act_spec* a = &cfg->actions[i];
    const ytree_node* item = actions->items[i];
    if (a->stop < a->start) {
      snprintf(kp, sizeof(kp), "actions.%d.stop", i);
      return fail_node(c, value_of(item, "stop") ? value_of(item, "stop") : item, kp,
                       "out of range: stop (%g s) must be >= start (%g s)", a->stop, a->start);
    }
    if (a->njoint_names <= 0) continue;
    // pd targets: 1 (broadcast) or one per joint
    if (a->type == ACT_PD && a->target && a->ntarget != 1 && a->ntarget != a->njoint_names) {
      snprintf(kp, sizeof(kp), "actions.%d.target", i);
      return fail_node(c, value_of(item, "target"), kp,
                       "wrong length: expected 1 or %d targets (one per joint in 'joints'), found %d",
                       a->njoint_names, a->ntarget);
    }
    // trajectory lists: 1 (broadcast) or one per joint
    if (a->type == ACT_TRAJECTORY) {
      const char* names[4] = {"amp", "freq", "phase", "offset"};
      const int lens[4] = {a->namp, a->nfreq, a->nphase, a->noffset};
      for (int k = 0; k < 4; k++) {
        if (lens[k] == 0 || lens[k] == 1 || lens[k] == a->njoint_names) continue;
        snprintf(kp, sizeof(kp), "actions.%d.%s", i, names[k]);
        return fail_node(c, value_of(item, names[k]), kp,
                         "wrong length: expected 1 or %d values (one per joint in 'joints'), found %d",
                         a->njoint_names, lens[k]);
      }
    }
  }
  return CSIM_OK;
}

//---------------------------------- overrides -------------------------------------------------

// apply one override "a.b.0.c=value" to the tree (idx: 0-based index among the overrides)
static csim_status apply_override(ytree_node* root, const char* ov, int idx, csim_error* err) {
  const int line = idx + 1;
  const char* eq = strchr(ov, '=');
  if (!eq)
    return err_set(err, CSIM_ERR_INPUT, "--set", line, 1, NULL,
                   "malformed override '%.300s': expected key.path=value (e.g. solver.tolerance=1e-6)", ov);
  size_t plen = (size_t)(eq - ov);
  if (plen == 0)
    return err_set(err, CSIM_ERR_INPUT, "--set", line, 1, NULL,
                   "malformed override '%.300s': empty key path before '='", ov);
  char path[256];
  if (plen >= sizeof(path))
    return err_set(err, CSIM_ERR_INPUT, "--set", line, 1, NULL, "malformed override '%.300s': key path too long", ov);
  memcpy(path, ov, plen);
  path[plen] = '\0';
  // segments: non-empty, no blanks
  for (size_t i = 0, s = 0; i <= plen; i++) {
    if (i < plen && path[i] != '.') {
      if (isspace((unsigned char)path[i]) || (unsigned char)path[i] < 32)
        return err_set(err, CSIM_ERR_INPUT, "--set", line, (int)i + 1, path,
                       "malformed override '%.300s': blank or control character in the key path", ov);
      continue;
    }
    if (i == s)
      return err_set(err, CSIM_ERR_INPUT, "--set", line, (int)i + 1, path,
                     "malformed override '%.300s': empty segment in key path '%s'", ov, path);
    s = i + 1;
  }
  // the value, parsed as YAML (positions: line = override index, columns in the override text)
  ytree_source src = {"--set", idx, (int)(eq + 1 - ov), ov};
  ytree_node* val = NULL;
  csim_status st = ytree_parse(eq + 1, strlen(eq + 1), &src, &val, err);
  if (st != CSIM_OK) return st;
  if (!val) {
    val = ytree_new(YTREE_SCALAR, "--set", line, (int)(eq + 1 - ov) + 1, ov);
    val->text = xstrdup("");
  }
  // walk the segments, creating missing map keys
  ytree_node* cur = root;
  char prefix[256];
  for (char* seg = path;;) {
    char* dot = strchr(seg, '.');
    if (dot) *dot = '\0';
    int last = dot == NULL;
    int col = (int)(seg - path) + 1;
    size_t pl = (size_t)(seg - path) + strlen(seg);
    snprintf(prefix, sizeof(prefix), "%.*s", (int)pl, ov);
    if (cur->kind == YTREE_MAP) {
      int i = ytree_map_find(cur, seg);
      if (i < 0) {
        // create the key: a new map on the way, the value at the end
        ytree_node* child = last ? val : ytree_new(YTREE_MAP, "--set", line, col, ov);
        ytree_map_add(cur, seg, "--set", line, col, ov, child);
        if (last) return CSIM_OK;
        cur = child;
      } else if (last) {
        ytree_free(cur->entries[i].value);
        cur->entries[i].value = val;
        return CSIM_OK;
      } else {
        cur = cur->entries[i].value;
      }
    } else if (cur->kind == YTREE_SEQ) {
      // list index: decimal digits, below the length
      char* endp = NULL;
      errno = 0;
      long k = isdigit((unsigned char)seg[0]) ? strtol(seg, &endp, 10) : -1;
      if (k < 0 || *endp || errno) {
        st = err_set(err, CSIM_ERR_INPUT, "--set", line, col, prefix,
                     "'%.*s' is a list (%d item%s, at %s:%d:%d): expected an index, found '%s' (in --set '%.300s')",
                     (int)(seg - path > 0 ? seg - path - 1 : 0), ov, cur->n, cur->n == 1 ? "" : "s", cur->file,
                     cur->line, cur->column, seg, ov);
        ytree_free(val);
        return st;
      }
      if (k >= cur->n) {
        st = err_set(err, CSIM_ERR_INPUT, "--set", line, col, prefix,
                     "index %ld is past the end of the list '%.*s' (%d item%s, at %s:%d:%d) (in --set '%.300s')", k,
                     (int)(seg - path > 0 ? seg - path - 1 : 0), ov, cur->n, cur->n == 1 ? "" : "s", cur->file,
                     cur->line, cur->column, ov);
        ytree_free(val);
        return st;
      }
      if (last) {
        ytree_free(cur->items[k]);
        cur->items[k] = val;
        return CSIM_OK;
      }
      cur = cur->items[k];
    } else {
      // a scalar cannot hold sub-keys
      st = err_set(err, CSIM_ERR_INPUT, "--set", line, col, prefix,
                   "cannot set '%s': '%.*s' is a single value (at %s:%d:%d), not a map or list (in --set '%.300s')",
                   prefix, (int)(seg - path > 0 ? seg - path - 1 : 0), ov, cur->file, cur->line, cur->column, ov);
      ytree_free(val);
      return st;
    }
    seg = dot + 1;
  }
}

//---------------------------------- loading ---------------------------------------------------

// directory part of a path ("." when none)
static char* dir_of(const char* path) {
  const char* s = strrchr(path, '/');
  if (!s) return xstrdup(".");
  if (s == path) return xstrdup("/");
  size_t n = (size_t)(s - path);
  char* d = xalloc(n + 1, 1);
  memcpy(d, path, n);
  return d;
}

// file name without directory and last extension
static char* stem_of(const char* path) {
  const char* b = strrchr(path, '/');
  b = b ? b + 1 : path;
  const char* e = strrchr(b, '.');
  size_t n = (e && e != b) ? (size_t)(e - b) : strlen(b);
  if (n == 0) return xstrdup("scenario");
  char* s = xalloc(n + 1, 1);
  memcpy(s, b, n);
  return s;
}

// "# ..." header of the text as run, then the emitted YAML
static char* text_as_run(const scn_config* cfg, const char* yaml) {
  size_t n = strlen(yaml) + strlen(cfg->file) + 64;
  for (int i = 0; i < cfg->noverrides; i++) n += strlen(cfg->overrides[i]) + 16;
  char* t = xalloc(n, 1);
  size_t k = (size_t)snprintf(t, n, "# csim scenario as run: %s\n", cfg->file);
  for (int i = 0; i < cfg->noverrides; i++) k += (size_t)snprintf(t + k, n - k, "# --set %s\n", cfg->overrides[i]);
  snprintf(t + k, n - k, "%s", yaml);
  // comments end at a newline: keep control characters of names out of them
  for (size_t i = 0; i < k; i++)
    if ((unsigned char)t[i] < 32 && t[i] != '\n') t[i] = '?';
  return t;
}

// parse, override and validate a text; the whole pipeline of scn_load
static csim_status load_text(const char* text, size_t len, const char* file, int default_stem,
                             const char* const* overrides, int noverrides, scn_config** out, csim_error* err) {
  scn_config* cfg = xalloc(1, sizeof(scn_config));
  cfg->file = xstrdup(file);
  cfg->dir = dir_of(file);
  cfg->noverrides = noverrides;
  cfg->overrides = xalloc((size_t)noverrides + 1, sizeof(char*));
  for (int i = 0; i < noverrides; i++) cfg->overrides[i] = xstrdup(overrides[i]);
  vctx c = {cfg, err};
  ytree_node* root = NULL;
  char* yaml = NULL;
  // 1. YAML -> tree; the top level must be a non-empty map
  ytree_source src = {cfg->file, 0, 0, NULL};
  csim_status st = ytree_parse(text, len, &src, &root, err);
  if (st != CSIM_OK) goto fail;
  if (!root || ytree_is_null(root)) {
    st = err_set(err, CSIM_ERR_INPUT, cfg->file, root ? root->line : 0, root ? root->column : 0, NULL,
                 "the scenario is empty: expected a map of keys (name, world, robots, contact, solver, "
                 "integrator, actions, output)");
    goto fail;
  }
  if (root->kind != YTREE_MAP) {
    st = fail_type(&c, root, "", "a map of keys at the top level (robots:, contact:, ...)");
    goto fail;
  }
  // 2. overrides, in order
  for (int i = 0; i < noverrides; i++)
    if ((st = apply_override(root, overrides[i], i, err)) != CSIM_OK) goto fail;
  // 3. the text as run
  if ((st = ytree_emit(root, &yaml, err)) != CSIM_OK) goto fail;
  cfg->text = text_as_run(cfg, yaml);
  // 4. validate into the struct, then computed defaults and cross-key checks
  void* bases[NBASES] = {NULL, cfg, NULL, NULL};
  if ((st = walk_map(&c, root, "", "", bases, -1)) != CSIM_OK) goto fail;
  if (!cfg->name) cfg->name = default_stem ? stem_of(file) : xstrdup("scenario");
  if ((st = check_cross(&c, root)) != CSIM_OK) goto fail;
  if (!cfg->output_path) {
    size_t n = strlen(cfg->name) + 8;
    cfg->output_path = xalloc(n, 1);
    snprintf(cfg->output_path, n, "out/%s.h5", cfg->name);
  }
  free(yaml);
  ytree_free(root);
  *out = cfg;
  return CSIM_OK;
fail:
  free(yaml);
  ytree_free(root);
  scn_free(cfg);
  return st;
}

csim_status scn_load_string(const char* text, const char* name, const char* const* overrides, int noverrides,
                            scn_config** out, csim_error* err) {
  *out = NULL;
  err_clear(err);
  if (!text) return err_set(err, CSIM_ERR_INPUT, name, 0, 0, NULL, "no scenario text");
  if (noverrides < 0 || (noverrides > 0 && !overrides))
    return err_set(err, CSIM_ERR_INPUT, "--set", 0, 0, NULL, "invalid override list");
  return load_text(text, strlen(text), name ? name : "<string>", name != NULL, overrides, noverrides, out, err);
}

csim_status scn_load(const char* path, const char* const* overrides, int noverrides, scn_config** out,
                     csim_error* err) {
  *out = NULL;
  err_clear(err);
  if (!path || !path[0]) return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "no scenario file given");
  if (noverrides < 0 || (noverrides > 0 && !overrides))
    return err_set(err, CSIM_ERR_INPUT, "--set", 0, 0, NULL, "invalid override list");
  // a readable regular file of reasonable size (no directories, devices or FIFOs: they could hang)
  struct stat sb;
  if (stat(path, &sb) != 0)
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot read the scenario file: %s", strerror(errno));
  if (S_ISDIR(sb.st_mode))
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "is a directory, expected a YAML scenario file");
  if (!S_ISREG(sb.st_mode))
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "is not a regular file, expected a YAML scenario file");
  if (sb.st_size > SCN_MAX_FILE_BYTES)
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "the scenario file is too large (%lld bytes, at most %d)",
                   (long long)sb.st_size, SCN_MAX_FILE_BYTES);
  FILE* f = fopen(path, "rb");
  if (!f) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot open the scenario file: %s", strerror(errno));
  // read it whole (the size may change under us: read up to the cap)
  size_t cap = (size_t)sb.st_size + 1, len = 0;
  char* buf = xalloc(cap + 1, 1);
  while (len < cap) {
    size_t got = fread(buf + len, 1, cap - len, f);
    if (got == 0) break;
    len += got;
  }
  int rerr = ferror(f);
  int e = errno;
  fclose(f);
  if (rerr) {
    free(buf);
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot read the scenario file: %s", strerror(e));
  }
  if (len > (size_t)sb.st_size) {
    free(buf);
    return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "the scenario file changed while being read");
  }
  buf[len] = '\0';
  csim_status st = load_text(buf, len, path, 1, overrides, noverrides, out, err);
  free(buf);
  return st;
}

// an error at the position where key was written
csim_status scn_key_error(const scn_config* cfg, const char* key, csim_error* err, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  for (int i = 0; cfg && i < cfg->npositions; i++)
    if (!strcmp(cfg->positions[i].key, key))
      return err_set(err, CSIM_ERR_INPUT, cfg->positions[i].file, cfg->positions[i].line,
                     cfg->positions[i].column, key, "%s", msg);
  return err_set(err, CSIM_ERR_INPUT, cfg ? cfg->file : NULL, 0, 0, key, "%s (default value)", msg);
}

void scn_free(scn_config* cfg) {
  if (!cfg) return;
  for (int i = 0; i < cfg->npositions; i++) {
    free(cfg->positions[i].key);
    free(cfg->positions[i].file);
  }
  free(cfg->positions);
  free(cfg->file);
  free(cfg->dir);
  free(cfg->text);
  free_strs(cfg->overrides, cfg->noverrides);
  free(cfg->name);
  // robots
  for (int i = 0; cfg->robots && i < cfg->nrobots; i++) {
    scn_robot* r = &cfg->robots[i];
    free(r->urdf);
    free(r->urdf_path);
    free(r->mjcf);
    free(r->mjcf_path);
    free(r->name);
    free(r->keyframe);
    free(r->q0);
    free(r->v0);
    for (int j = 0; r->joints && j < r->njoints; j++) free(r->joints[j].name);
    free(r->joints);
    free_strs(r->package_paths, r->npackage_paths);
    free_strs(r->package_paths_text, r->npackage_paths);
  }
  free(cfg->robots);
  free_strs(cfg->exclude, 2 * cfg->nexclude);
  for (int i = 0; cfg->materials && i < cfg->nmaterials; i++) free(cfg->materials[i].name);
  free(cfg->materials);
  free(cfg->solref);
  free(cfg->solimp);
  // actions
  for (int i = 0; cfg->actions && i < cfg->nactions; i++) {
    act_spec* a = &cfg->actions[i];
    free(a->body);
    free(a->robot);
    free_strs(a->joint_names, a->njoint_names);
    free(a->target);
    free(a->amp);
    free(a->freq);
    free(a->phase_j);
    free(a->offset);
  }
  free(cfg->actions);
  for (int i = 0; cfg->controllers && i < cfg->ncontrollers; i++) {
    scn_controller* t = &cfg->controllers[i];
    free(t->name);
    free(t->robot);
    free(t->library);
    free(t->library_text);
    free_strs(t->params, 2 * t->nparams);
    for (int j = 0; t->noise && j < t->nnoise; j++) free(t->noise[j].name);
    free(t->noise);
  }
  free(cfg->controllers);
  free(cfg->ground_file);
  free(cfg->ground_file_text);
  free(cfg->ground_size);
  free(cfg->output_path);
  free(cfg->output_path_text);
  free(cfg->dump_steps);
  free(cfg);
}

//---------------------------------- documentation ---------------------------------------------

// type column of the docs
static const char* type_doc(const skey* k) {
  switch (k->type) {
    case K_SECTION: return "map";
    case K_LIST: return "list of maps";
    case K_STR: return "string";
    case K_PATH: return "path";
    case K_NUM: return "number";
    case K_INT: return "integer";
    case K_BOOL: return "bool";
    case K_ENUM: return "enum";
    case K_VEC3: return "list of 3 numbers";
    case K_NUMS: return (k->flags & F_BCAST) ? "number or list of numbers" : "list of numbers";
    case K_INTS: return "list of integers";
    case K_PATHS: return "list of paths";
    case K_NUMMAP: return "map name: number";
    case K_PAIRS: return "list of [link, link]";
    case K_JOINTS: return "`all` or list of names";
    case K_MATMAP: return "map name: {key: value}";
    case K_STRMAP: return "map name: value";
  }
  return "?";
}

void scn_print_schema_markdown(FILE* f) {
  fprintf(f, "<!-- generated from the schema table in src/io/scenario.c by scn_print_schema_markdown(); "
             "regenerate with CSIM_REGEN_DOCS=1 ./build/tests/test_scenario -->\n");
  fprintf(f, "| Key | Type | Default | Allowed values | Units | Meaning |\n");
  fprintf(f, "|---|---|---|---|---|---|\n");
  // one row per key, in schema order
  for (size_t r = 0; r < NKEYS; r++) {
    const skey* k = &keys[r];
    char def[128], allowed[256], who[64] = "";
    // default: literal YAML, documented value, required, or none
    if (k->flags & F_REQ)
      snprintf(def, sizeof(def), "required");
    else if (k->def)
      snprintf(def, sizeof(def), "`%s`", k->def);
    else if (k->def_doc)
      snprintf(def, sizeof(def), "%s", k->def_doc);
    else
      snprintf(def, sizeof(def), "-");
    // allowed values: enum names, range, bool, or a note
    allowed[0] = '\0';
    if (k->type == K_ENUM) {
      size_t t = 0;
      for (int i = 0; k->names[i] && t < sizeof(allowed); i++)
        t += (size_t)snprintf(allowed + t, sizeof(allowed) - t, "%s`%s`", i ? ", " : "", k->names[i]);
    } else if (k->type == K_BOOL) {
      snprintf(allowed, sizeof(allowed), "`true`, `false`");
    } else if (k->type == K_NUM || k->type == K_INT || k->type == K_NUMS || k->type == K_INTS) {
      range_text(k, allowed, sizeof(allowed));
      if (k->flags & F_INF) snprintf(allowed + strlen(allowed), sizeof(allowed) - strlen(allowed), ", `.inf`");
    } else if (k->flags & F_NONZERO) {
      snprintf(allowed, sizeof(allowed), "non-zero");
    } else if (k->type == K_LIST && (k->flags & F_REQ)) {
      snprintf(allowed, sizeof(allowed), ">= 1 item");
    }
    if (k->type == K_NUMS && k->flags & F_BCAST)
      snprintf(allowed + strlen(allowed), sizeof(allowed) - strlen(allowed), "%slength 1 or one per joint",
               allowed[0] ? "; " : "");
    // action or controller types the key applies to
    const list_kind* lk = k->acts ? kind_at(k->path) : NULL;
    for (int a = 0, t = 0; lk && lk->type_names[a]; a++)
      if (k->acts & (1u << a))
        t += snprintf(who + t, sizeof(who) - (size_t)t, "%s%s", t ? ", " : "", lk->type_names[a]);
    fprintf(f, "| `%s` | %s | %s | %s | %s | %s%s%s%s |\n", k->path, type_doc(k), def, allowed[0] ? allowed : "-",
            k->units ? k->units : "-", who[0] ? "*" : "", who, who[0] ? ":* " : "", k->doc);
  }
  fprintf(f, "\nN is a 0-based list index (`robots.0.urdf`). Relative paths are resolved against the scenario "
             "file's directory. Any key can be overridden with `--set key.path=value` (the value is YAML: "
             "`--set robots.0.q0=[0,0,0.1,0,0,0,1]`); a missing map key is created, then validated. "
             "Numbers are YAML numbers (`1e-3`, `.inf` only where listed); NaN is always rejected. "
             "Unknown keys, wrong types and out-of-range values are errors naming file, line, column and key.\n");
}
