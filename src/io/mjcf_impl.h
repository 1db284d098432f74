// mjcf_impl.h — what the two halves of the MJCF reader share (not a public interface):
// mjcf.c reads the file structure (includes, compiler, option, defaults, assets) and
// mjcf_body.c the bodies, joints, geoms, inertias, contacts and actuators.
#ifndef CSIM_MJCF_IMPL_H
#define CSIM_MJCF_IMPL_H

#include <stdint.h>

#include "io/mjcf.h"
#include "io/xml.h"

#define MJCF_MAX_DEPTH 256     // element nesting (bodies in bodies) read
#define MJCF_MAX_INCLUDE 32    // nested include files
#define MJCF_MAX_MESH 4096     // mesh assets

// an element with its includes expanded: the file it is in, and its children (an <include> is
// replaced by the included file's top-level elements)
typedef struct mj_node {
  const xml_node* x;
  const char* file;
  struct mj_node* kids;
  int nkid;
} mj_node;

// a default class: its elements (geom, joint, ...) with the order they were read in, so that a
// child class sees its parent as it was when the child was created (MuJoCo copies it)
typedef struct {
  const char* name;
  int parent;        // -1 for main
  int created;       // sequence number at creation
  const mj_node** el;
  int* seq;
  int nel, capel;
} mj_class;

typedef struct {
  csim_error* err;
  const mjcf_options* opt;
  const char* mainfile;
  char* maindir;          // directory of the main file (meshdir is relative to it)
  urdf_robot* r;
  // documents read (main and included) and their names
  xml_doc** docs;
  char** docnames;
  int ndoc, capdoc;
  const char* incstack[MJCF_MAX_INCLUDE + 1];   // files being expanded (cycle check)
  int ninc;
  // <compiler>
  int degree;             // 1: angles in degrees (MuJoCo's default)
  char eulerseq[4];
  int inertiafromgeom;    // 0 false, 1 true, 2 auto
  int autolimits;
  int grouprange[2];      // inertiagrouprange
  char* meshdir;
  // defaults
  mj_class* cls;
  int ncls, capcls, seq;
  // mesh assets
  const mj_node* mesh[MJCF_MAX_MESH];
  int nmesh;
  // storage growth
  int caplink, capjoint, capuns;
  // bodies' names for <exclude>: link index of each MJCF body
  int nbody;
} mj_ctx;

// errors and records (mjcf.c)
csim_status mj_fail(mj_ctx* c, const mj_node* n, const xml_attr* a, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
csim_status mj_unsupported(mj_ctx* c, const mj_node* n, const xml_attr* a, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
csim_status mj_unsupported_at(mj_ctx* c, const char* file, int line, int col,
                              const char* element, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
csim_status mj_oom(mj_ctx* c);
char* mj_dup(const char* s);
char* mj_join(const char* a, const char* b);
int mj_in_list(const char* const* list, const char* name);
int mj_skip_or_refuse(mj_ctx* c, const mj_node* e, csim_status* st);

// attributes (mjcf.c)
csim_status mj_nums(mj_ctx* c, const mj_node* n, const xml_attr* a, int nmin, int nmax,
                    double* out, int* nread);
csim_status mj_word(mj_ctx* c, const mj_node* n, const xml_attr* a, const char* const* names,
                    int* out);
csim_status mj_bool(mj_ctx* c, const mj_node* n, const xml_attr* a, int* out);
csim_status mj_check_attrs(mj_ctx* c, const mj_node* n, const char* allowed);
const xml_attr* mj_attr(const mj_ctx* c, const mj_node* n, const char* kind, int cls,
                        const char* name, const mj_node** where);
csim_status mj_dnums(mj_ctx* c, const mj_node* n, const char* kind, int cls, const char* name,
                     int nmin, int nmax, double* out, int* given);
csim_status mj_class_of(mj_ctx* c, const mj_node* n, int inherited, int* out);
csim_status mj_read_default(mj_ctx* c, const mj_node* d, int k);

// bodies, contacts, actuators, final checks (mjcf_body.c)
csim_status mj_read_worldbody(mj_ctx* c, const mj_node* wb);
csim_status mj_read_contact(mj_ctx* c, const mj_node* e);
csim_status mj_read_actuator(mj_ctx* c, const mj_node* e);
csim_status mj_finish(mj_ctx* c);

// orientation of element n (quat, axisangle, euler, xyaxes or zaxis; at most one) as a
// quaternion [x y z w]; identity when none (mjcf_body.c)
csim_status mj_orientation(mj_ctx* c, const mj_node* n, double q[4]);

// mass (density x volume) and principal moments about the centre (geom axes) of a primitive,
// size as MJCF half sizes (mjcf_body.c)
void mj_geom_inertia(urdf_geom_type type, const double size[3], double density, double* mass,
                     double I[3]);

#endif  // CSIM_MJCF_IMPL_H
