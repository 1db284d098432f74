// material.h — contact materials per link and their combination for a pair, and MuJoCo-style
// contact softness (solref, solimp) for the ccp model.
//
// MJCF geoms (mat_set_geoms): condim 1 on both sides makes the pair frictionless (mu = 0 after
// the combination above); a pair of condim 4 or 6 adds torsional (and rolling) friction with the
// coefficients of mat_pair_spin (contact.h's spin entries); their solref/solimp give ccp its
// MuJoCo softness per pair when the scenario gives no contact.solref. Their sliding friction
// coefficients are not used: mu comes from the scenario (contact.friction, contact.materials) as
// for URDF links.
//
// Materials. `contact.materials` gives a link (all its collision geometries) or the ground plane
// (`ground`) its own friction mu, stiffness k, damping d and restitution e; a property left out,
// and every geometry of a link without a material, takes the global contact key (the "default
// material"). The two sides of a contact combine by `contact.combine`:
//   drake   k = k1 k2/(k1+k2) (springs in series), d = (k2 d1 + k1 d2)/(k1+k2) (dissipation
//           weighted by the other side's stiffness), mu = 2 mu1 mu2/(mu1+mu2) (Drake's
//           CalcContactStiffnessAndDissipation / CombinePointContactParameters and
//           CalcContactFrictionFromSurfaceProperties); e = (e1+e2)/2 (Drake has none)
//   mujoco  mu = max(mu1, mu2) (MuJoCo's geom friction rule); k, d, e = the means (MuJoCo mixes
//           solref/solimp by solmix, 1:1 by default)
//   mean    every property the mean
// A pair whose two sides both use the default material gets the global keys as they are (not
// combined: Drake's rule would halve the stiffness of two equal default springs), so scenarios
// without `contact.materials` run exactly as before.
//
// MuJoCo softness (MuJoCo 2.2.2, engine_core_constraint.c: getsolparam, getimpedance,
// mj_makeImpedance, mj_referenceConstraint). For a contact at distance r = -depth:
//   imp = d(r) from solimp [dmin, dmax, width, midpoint, power] (x = |r|/width; y(x) = a x^p up to
//         the midpoint, 1 - b (1-x)^p beyond; imp = dmin + y (dmax - dmin); dmin, dmax beyond;
//         dmin and dmax clamped to [0.0001, 0.9999] first, as getsolparam does)
//   standard solref [tc, zeta]: tc = max(tc, 2 dt) (MuJoCo's refsafe), K = 1/(dmax^2 tc^2 zeta^2),
//         B = 2/(dmax tc); direct [-k, -b]: K = k/dmax^2, B = b/dmax
//   R = (1-imp)/imp * w on all three rows, w = the translational inverse weight of the two bodies
//         (MuJoCo's diagApprox: body_invweight0, here computed at the initial configuration)
//   aref_N = -B v_N - K imp r, aref_T = -B v_T (friction rows: K = 0)
// MuJoCo's constraint (A + R) f + a0 - aref in the dual cone is, with impulses lambda = h f,
// G = A and g = J v_free = J v + h a0, the CCP with G~ = G + R and target velocity
// c* = J v + h aref (the velocity before the step plus the reference), i.e. g - c* per row.
// MuJoCo's impratio is 1 (R_T = R_N, friction cone mu unchanged). The reference replaces the
// Baumgarte and restitution targets: the scenario rejects them together with solref. Contacts still apart (r > 0,
// reported within an explicit collision margin; MuJoCo with margin 0 has none) exert nothing of
// their own (contact.c apart_target), with R at imp(|r|) as MuJoCo evaluates it. test_mujoco_soft checks R, K, B,
// imp, the rest penetration and an impact against MuJoCo 2.2.2 (agreement 1e-6 or better).
#ifndef CSIM_MATERIAL_H
#define CSIM_MATERIAL_H

#include "core/data.h"
#include "core/error.h"
#include "core/model.h"
#include "core/options.h"

// one material's properties
typedef struct {
  double mu;  // friction coefficient
  double k;   // normal stiffness (compliant laws)
  double d;   // normal dissipation / damping (compliant laws)
  double e;   // restitution (rigid models)
} mat_props;

typedef struct mat_table {
  csim_combine combine;
  mat_props def;          // the default material: the global contact keys
  int ngeom;
  int* geom_mat;          // material of each geometry, -1: the default   (ngeom)
  mat_props* mat;         // the materials given                          (nmat)
  unsigned char* mat_own_mu;  // the material gives its own friction (else its mu is the global
                              // contact.friction, and an MJCF geom's friction[0] wins: side_mu)
  int nmat;
  // MuJoCo softness (ccp); soft = 0 when contact.solref is not given and no MJCF geom brings its
  // own (mat_set_geoms)
  int soft;
  double solref[2], solimp[5];
  int soft_global;        // contact.solref given: solref, solimp for every pair
  // MJCF geoms' own contact parameters (mat_set_geoms; borrowed from the model, NULL when none):
  // condim 1 makes a pair frictionless, solref/solimp mix per pair as MuJoCo's mj_contactParam
  const int* geom_condim;
  const double* geom_solref;
  const double* geom_solimp;
  const double* geom_friction;  // (ngeom x 3): sliding, torsional and rolling coefficients
  int geom_mu;            // the MJCF geoms' sliding friction[0] is used (mat_pair; io/compile.c
                          // sets it unless the scenario gives contact.friction)
  // MJCF explicit pairs (<contact><pair>): their condim, friction, solref and solimp replace the
  // geoms' mixed ones; pairs: the model that holds them (model_find_pair), NULL when none
  const sim_model* pairs;
  const int* pair_condim;
  const double* pair_friction;
  const double* pair_solref;
  const double* pair_solimp;
  // MJCF joints' soft limits (mat_set_geoms with soft; NULL when none): the model's jnt_solref,
  // jnt_solimp, and each dof's inverse weight diag(M^-1) at the initial configuration (MuJoCo's
  // dof_invweight0 for hinges and slides)
  const double* jnt_solref;
  const double* jnt_solimp;
  double* dof_invweight;    // (nv)
  int nbody;
  double* body_invweight; // translational inverse weight (1/kg) per body, 0 for the world (nbody)
} mat_table;

// MuJoCo 2.2.2's default solimp
extern const double mat_default_solimp[5];

// a table of nmat materials for model m, every geometry on the default material def, pairs
// combined by rule (io/compile.c fills it from contact.materials, names resolved there)
csim_status mat_alloc(const sim_model* m, int nmat, mat_props def, csim_combine rule,
                      mat_table** out, csim_error* err);

// material i is p, on the geometries of link `link` (link < 0: the ground plane)
void mat_assign(mat_table* t, const sim_model* m, int i, mat_props p, int link);

// MuJoCo softness (contact.solref, contact.solimp; solimp NULL: MuJoCo's default): the body
// inverse weights are computed from d at the initial configuration (kin_forward done; this calls
// dyn_crba and dyn_factor on d)
void mat_set_soft(mat_table* t, const double solref[2], const double* solimp, const sim_model* m,
                  sim_data* d);
void mat_free(mat_table* t);

// the model's MJCF geoms' contact parameters (model.h geom_condim, geom_solref, geom_solimp)
// into t: a pair whose larger condim is 1 (MuJoCo's rule: condim = max of the two) has mu = 0
// whatever the materials say; with soft (ccp without contact.solref) each pair gets MuJoCo
// softness from its geoms' solref/solimp (the body inverse weights from d, as mat_set_soft), and
// each MJCF joint's limits from its solreflimit/solimplimit.
// The model's explicit pairs (MJCF <contact><pair>) take their own condim, friction (the
// sliding one under the same rule as the geoms', geom_mu), solref and solimp instead.
// Without MJCF geoms (no geom_condim > 0) nothing changes; returns whether there are any, -1
// when out of memory
int mat_set_geoms(mat_table* t, const sim_model* m, int soft, sim_data* d);

// MuJoCo softness of joint j's limit (its MJCF solreflimit, solimplimit) and the inverse weight
// of its dof; 0 when the limit is rigid (no soft table, a URDF joint)
int mat_limit_soft(const mat_table* t, const sim_model* m, int j, const double** solref,
                   const double** solimp, double* w);

// MuJoCo softness of the pair g1, g2 (g1 < 0: a joint limit): contact.solref/solimp when given,
// else the MJCF geoms' mixed 1:1 (solmix 1: standard solref and solimp the mean, direct solref
// the smaller, as mj_contactParam); a side that is no MJCF geom counts with MuJoCo's defaults
void mat_pair_soft(const mat_table* t, int g1, int g2, double solref[2], double solimp[5]);

// the combination of two materials under rule `rule` (see the top of this file)
mat_props mat_combine(csim_combine rule, mat_props a, mat_props b);

// the properties of a contact between geometries g1 and g2 (g1 < 0: a joint limit, the default)
mat_props mat_pair(const mat_table* t, int g1, int g2);

// MuJoCo's condim of the pair g1, g2 (the larger of the two; a side that is no MJCF geom, or
// no MJCF geoms at all, counts as 3; MJCF priority is refused by the reader)
int mat_pair_condim(const mat_table* t, int g1, int g2);

// the pair's torsional and rolling friction coefficients (m): per component the larger of the
// two geoms' MJCF friction[1], friction[2] (MuJoCo's rule), 0 for a side that is no MJCF geom
void mat_pair_spin(const mat_table* t, int g1, int g2, double spin[2]);

// MuJoCo's impedance d(r) for distance r (m, negative when penetrating; margin 0)
double mat_impedance(const double solimp[5], double r);

// MuJoCo's reference stiffness K and damping B for solref, solimp and step dt
void mat_soft_kb(const double solref[2], const double solimp[5], double dt, double* K, double* B);

#endif  // CSIM_MATERIAL_H
