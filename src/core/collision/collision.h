// collision.h — contacts between geometries: broad phase over candidate pairs, narrow phase by
// a shape-pair dispatch table (MuJoCo's mjCOLLISIONFUNC), contact ids for warm starting.
//
// Contact convention (DESIGN.md: the normal points from the environment into the body):
//   normal  unit, world, from geom1 into geom2: the direction geom2 must move to separate. Pairs
//           are ordered by geom type (model_geom_type), so the ground plane is always geom1.
//   depth   positive when overlapping; with a margin m > 0 near contacts have -m <= depth < 0.
//   pos     world, the midpoint between the two surface points: with p1 the point of geom1
//           deepest along +normal and p2 the point of geom2 deepest along -normal,
//           p1 - p2 = depth * normal and pos = (p1 + p2) / 2. E.g. a sphere of radius 0.1 at
//           z = 0.05 over the plane z = 0: p1 = (x, y, 0), p2 = (x, y, -0.05), depth 0.05,
//           normal +z, pos z = -0.025.
//   feature stable id of the contact feature within its pair (box corner 0..7 with bit 0/1/2 =
//           sign of local x/y/z, capsule end 0/1, mesh vertex index, face-pair clip point ...),
//           so (geom1, geom2, feature) matches a contact between steps for warm starting.
//
// Narrow phase. Exact analytic paths: plane vs sphere/box/capsule/cylinder/mesh, sphere-sphere,
// sphere-capsule, capsule-capsule, sphere-box, box-box (separating axis test + Sutherland-Hodgman
// clipping of the reference face, as ODE's dBoxBox and Box2D's manifolds: a box resting on a box
// gets 4 points). Plane-mesh keeps up to 4 spread hull vertices within the margin (the deepest,
// the farthest from it across the normal, the largest triangle, the most area added; ties to the
// lower vertex index), searching only the vertices that can win: the inner ends of the edges the
// margin level cuts, walked as a ring of triangles (plus sideways-facing triangles wholly within
// the margin), not every vertex within it. Every other pair of convex shapes goes through
// coll_convex: GJK distance on the shapes' cores (a sphere is a point, a capsule a segment, both
// plus a radius; boxes, hulls and cylinders have radius 0) followed, when the cores overlap, by
// EPA (Gilbert-Johnson-Keerthi 1988; van den Bergen 2001, "Proximity queries and penetration
// depth computation on 3D game objects").
// Both are written here with fixed-size buffers: libccd's EPA mallocs on every call, and its MPR
// (kept as coll_mpr, the fallback when EPA meets a degenerate polytope, and as an independent
// route in the tests) returns the centre-to-centre ray direction on curved surfaces instead of the
// surface normal, and no distance for near contacts. GJK on cores is exact for polytopes, points
// and segments (finite termination), so sphere-box and sphere-sphere through coll_convex match the
// analytic paths to rounding and box-box depths match the SAT depth. Cylinders are the one curved
// core: GJK/EPA stop at a tolerance or iteration cap there (depth and normal within ~1e-5
// relative in a randomized sweep against a brute-force direction search). Hull supports hill-climb
// over the vertex adjacency from the last vertex found. After the single deepest point, a
// face-on-face patch is built: the
// face of one shape best aligned with the normal (within COLL_PATCH_COS) is the reference, the
// other shape's face/segment most anti-parallel to it is clipped against the reference side planes
// (up to COLL_MAX_PAIR_CONTACTS points, each with its own depth); the patch is kept only when its
// deepest point has the depth found along the GJK/EPA normal (else an edge or rim nearly parallel
// to a face would get another normal).
//
// Height field (MODEL_GEOM_HFIELD, the terrain; collision_hfield.c): a grid of heights, each cell
// two triangles; only the cells under a shape's world AABB are visited. Spheres (and capsules, as
// spheres along their segment) get exact closest-point contacts against the triangles; boxes,
// hulls and cylinders are tested by their corners / hull vertices / plane-cylinder rim points
// against the triangle under each point. The field's frame is never rotated: the grid spans
// geom x +- size[0], y +- size[1] at heights geom z + h; outside it the ground is the plane
// z = geom z. At most COLL_HFIELD_MAX contacts per pair, ids stable as a shape crosses cells.
//
// Broad phase: candidate pairs are listed once by coll_create (not on the same body, passing
// MuJoCo's contype/conaffinity test, not a body and its filter parent of the same robot (model.h
// body_filterparent: the parent body for URDF, MuJoCo 2.2.2's weld parent for MJCF, none when
// that is the world, as MuJoCo's filterparent), not both in the world, not an excluded link
// pair); each step a sort and sweep on world AABBs (grown by the margin; the order along x is
// kept between steps, so the insertion sort is near linear when geoms move little) picks the
// candidate pairs whose boxes overlap, in the all-pairs order; planes (half-spaces) pair with
// every geom. Then per pair a bounding-sphere test and a world-axis box test, both about each
// shape's own centre (tighter than model->geom_rbound, which is about the geom origin; a
// half-space test for planes), then the narrow phase. coll_detect never allocates; a full output buffer drops contacts and says how many.
//
// Patch reduction (coll_reduce_patch, on in coll_detect when an angle > 0 is set): a pair's
// contacts whose normals agree with its deepest contact's (within COLL_PATCH_COS) form one patch.
// Of those the touching ones (depth >= 0) are kept, and a near one (depth < 0) only when a
// rotation about the deepest point by less than the angle closes its gap: rise <= tan(angle) * L,
// rise = deepest depth - its depth, L its distance from the deepest point across the normal. A
// flat face tilted by less than the angle keeps its corners (a 10 cm cube: a 1 mm margin is a
// slope of 0.01); a rounded or finely faceted foot keeps its lowest point (its neighbours in the
// margin rise as L^2 / 2R: Solo-12's feet, slopes 0.1-0.2). A dropped near contact closes within
// one step only if the body turns by the angle in dt (50 rad/s for 0.05 rad at 1 ms), as at an
// impact; it is then found touching the next step. Of the kept ones at most patch_max spanning
// the patch remain: the deepest, the farthest from it, the one making the largest triangle, the
// one adding the most area (Bullet's and MuJoCo's 4-point manifold). Contacts with another normal
// are kept as they are. The kept ones keep their order and feature ids (warm start matches
// them); it works in place, without allocating. coll_detect counts the contacts it removes
// (coll_reduced: all, and the touching ones among them), so a run can report them.
#ifndef CSIM_COLLISION_H
#define CSIM_COLLISION_H

#include "core/error.h"
#include "core/mesh.h"
#include "core/model.h"

#define COLL_MAX_PAIR_CONTACTS 8   // most contacts one pair of geoms produces
#define COLL_MAX_POLY 32           // most vertices kept in one hull polygon face
#define COLL_CYL_RIM 8             // rim points of a cylinder cap used as a contact face
#define COLL_PATCH_COS 0.9995      // a face is a reference face when |n . face normal| >= this
#define COLL_HFIELD_MAX 4          // most contacts of a height field against one geom

// A height field as the narrow phase sees it (borrowed pointers).
typedef struct {
  int nx, ny;               // vertices along x and y (>= 2)
  double dx, dy;            // grid spacing, m (2 size[0] / (nx - 1), 2 size[1] / (ny - 1))
  const double* h;          // heights above the geom's z, x fastest: h[iy * nx + ix] (nx x ny)
  double hmin, hmax;        // extreme heights
} coll_hfield;

typedef struct {
  double pos[3];      // world, midpoint between the surfaces (see above)
  double normal[3];   // unit, world, from geom1 into geom2
  double depth;       // > 0 overlapping, in [-margin, 0) near contact
  int geom1, geom2;   // model geom indices (-1 from the narrow-phase calls)
  int feature;        // stable feature id within the pair (>= 0)
} coll_contact;

// A convex hull prepared for collision: vertex adjacency (hill-climbing support), the hull's
// triangles as half-edges (plane-mesh walks the ring of triangles the margin level cuts) and the
// triangles merged into planar polygon faces (contact patches).
typedef struct {
  int nvert;
  double* vert;         // hull vertices, mesh frame                        (nvert x 3)
  int* adj_start;       // adjacency of vertex i: adj[adj_start[i] .. adj_start[i+1]) (nvert+1)
  int* adj;             //                                                  (nadj)
  int ntri;
  int* tri;             // triangles, counter-clockwise seen from outside; half-edge e = 3 t + k
                        // runs from tri[e] to tri[3 t + (k + 1) % 3]        (ntri x 3)
  double* tri_normal;   // outward unit normal per triangle, mesh frame; 0 for slivers (ntri x 3)
  int* hedge;           // per half-edge e (a = tri[e] to b, c the triangle's third vertex) 4
                        // ints: c, the half-edge c -> b, the half-edge a -> c (the twins of
                        // b -> c and c -> a), the triangle e / 3; NULL when the triangles are
                        // not a closed 2-manifold (then adj_he is NULL too)  (ntri x 12)
  int* adj_he;          // half-edge from vertex i to adj[k], for adjacency entry k (nadj)
  int npoly;
  int* poly_start;      // vertices of polygon f: poly_vert[poly_start[f] .. poly_start[f+1]),
                        // counter-clockwise seen from outside, at most COLL_MAX_POLY (npoly+1)
  int* poly_vert;       //                                                  (npolyvert)
  double* poly_normal;  // outward unit normal, mesh frame                  (npoly x 3)
  int* vpoly_start;     // polygons around vertex i: vpoly[vpoly_start[i] .. [i+1]) (nvert+1)
  int* vpoly;           //                                                  (npolyvert)
  int ext[6];           // vertices extreme along -x, +x, -y, +y, -z, +z (hill-climbing starts)
  int dir27[27];        // vertex extreme along (a, b, c), a, b, c in {-1, 0, 1}, at 9 (a + 1) +
                        // 3 (b + 1) + c + 1 ([13]: vertex 0): coll_hull_support's starts
  double vmax;          // largest |coordinate| of a vertex (scale of rounding in d . v)
  double center[3];     // a point inside the hull (vertex mean)
  void* buffer;         // one allocation holds the arrays above
} coll_hull;

// One geometry as the narrow phase sees it (pointers are borrowed, nothing is copied).
typedef struct {
  int type;                 // model_geom_type
  const double* size;       // see model_geom_type                                 (3)
  const double* pos;        // world position of the geom frame                    (3)
  const double* mat;        // world rotation, row-major (columns = local axes)    (9)
  const coll_hull* hull;    // MODEL_GEOM_MESH only (NULL otherwise)
  double margin;            // contacts are reported down to depth -max(margin1, margin2)
  const coll_hfield* hfield;// MODEL_GEOM_HFIELD only (NULL otherwise)
  int* hint;                // the pair's last support vertex of this mesh, then plane-mesh's
                            // last ring start half-edge (-1: none), kept between steps by
                            // coll_detect (NULL: not kept)                           (2)
} coll_geom;

// narrow-phase pair function: geoms ordered by type (g1->type <= g2->type); writes at most
// COLL_MAX_PAIR_CONTACTS contacts (geom1/geom2 set to -1) and returns how many
typedef int (*coll_pair_fn)(const coll_geom* g1, const coll_geom* g2, double margin,
                            coll_contact* con);

// dispatch table indexed [type1][type2] with type1 <= type2 (NULL: no collision, plane-plane)
extern const coll_pair_fn coll_pair_table[MODEL_NGEOM_TYPES][MODEL_NGEOM_TYPES];

//---------------------------------- narrow phase ---------------------------------------------
// collide two geoms in any order: dispatches on the type-ordered pair and flips the normals back
// so they point from g1 into g2; margin = max of the two; returns the number of contacts
int coll_collide(const coll_geom* g1, const coll_geom* g2, coll_contact* con);

// the general convex path (GJK/EPA on cores + face patch) for any two non-plane geoms, whatever
// the analytic path would be; normals from g1 into g2
int coll_convex(const coll_geom* g1, const coll_geom* g2, double margin, coll_contact* con);

// one contact from libccd's MPR (ccdMPRPenetration) on the full shapes; 0 when not overlapping
// (MPR reports no near contacts); normals from g1 into g2. Exact only where the centre-to-centre
// ray meets the true normal (spheres, flat faces); pos is a point inside the overlap.
int coll_mpr(const coll_geom* g1, const coll_geom* g2, coll_contact* con);

// support point of a geom in world direction dir (need not be unit); planes are not supported
void coll_support(const coll_geom* g, const double dir[3], double out[3]);

// the most contacts pair function for types (t1, t2) returns (0 for plane-plane)
int coll_pair_max_contacts(int t1, int t2);

//---------------------------------- hulls ----------------------------------------------------
// prepare a hull (adjacency, planar polygon faces); degenerate hulls are an error
csim_status coll_hull_build(const mesh_hull* h, coll_hull* out, csim_error* err);
void coll_hull_free(coll_hull* h);

//---------------------------------- broad phase + driver -------------------------------------
// coll_model: what is constant during a run (candidate pairs, bounds, hulls, the margin and the
// patch settings); coll_scratch: what coll_detect writes (the sweep order kept between calls,
// the world AABBs, the overlapping pairs, the reduction counts), the run's data (core/state.h)
typedef struct coll_model coll_model;
typedef struct coll_scratch coll_scratch;

// list candidate pairs of model m; exclude_pairs holds nexclude pairs of model link indices
// (flat, 2 x nexclude) whose geoms never collide; hulls are prepared for every mesh
csim_status coll_create(const sim_model* m, const int* exclude_pairs, int nexclude,
                        coll_model** out, csim_error* err);
void coll_free(coll_model* cm);

// margin for every geom (default 0): near contacts down to depth -margin are reported
void coll_set_margin(coll_model* cm, double margin);

// patch reduction (see above): angle (rad) in (0, 1.5), 0 off (outside: ignored); patch_max
// is clamped to 1..4
void coll_set_patch(coll_model* cm, double angle, int patch_max);

// reduce the n contacts of one pair in place (see above) with slope = tan(angle); slope <= 0
// returns n unchanged; patch_max is clamped to 1..4; returns the number kept, in their order
int coll_reduce_patch(coll_contact* con, int n, double slope, int patch_max);

// contacts the patch reduction removed in the last coll_detect call with scratch cs (0 with the
// reduction off), and in *touching (may be NULL) how many of them were touching (depth >= 0; the
// others were near contacts within the margin). Contacts dropped for a full buffer are not
// counted here (coll_detect's return value).
int coll_reduced(const coll_scratch* cs, int* touching);

// the scratch of coll_detect for model cm, in the state a run starts from (coll_scratch_reset)
csim_status coll_scratch_create(const coll_model* cm, coll_scratch** out, csim_error* err);
void coll_scratch_free(coll_scratch* cs);

// back to the state a run starts from: the sweep order the geom order, counts zero (the contacts
// found do not depend on the order, only the sort's moves do)
void coll_scratch_reset(const coll_model* cm, coll_scratch* cs);

// number of candidate pairs and the geoms of pair i (geom1 has the lower type)
int coll_npair(const coll_model* cm);
void coll_pair_geoms(const coll_model* cm, int i, int* geom1, int* geom2);

// sum over candidate pairs of the pair's most contacts: a buffer this large never overflows
int coll_max_contacts(const coll_model* cm);

// all contacts for the geom poses given (data->geom_xpos, geom_xmat); writes at most maxcon
// contacts into out and their count into *ncon; returns the number of contacts dropped because
// out was full (0 normally; a warning counter for the caller). Never allocates. cs (created for
// cm) receives the broad phase's scratch (world AABBs and the sweep order kept between calls)
// and the call's patch reduction counts (coll_reduced).
int coll_detect(const coll_model* cm, coll_scratch* cs, const sim_model* m,
                const double* geom_xpos, const double* geom_xmat, coll_contact* out, int maxcon,
                int* ncon);

#endif  // CSIM_COLLISION_H
