// yamltree.h — a small generic YAML tree (map / sequence / scalar) built with libyaml.
//
// Every node and every map key keeps the file, 1-based line and 1-based column it came from, so
// later validation can point at the offending text. The tree is deliberately restricted to what
// a configuration file needs: anchors, aliases, tags, non-scalar map keys, duplicate keys and
// multiple documents are rejected with an input error (CSIM_ERR_INPUT) instead of being
// interpreted. Malformed YAML is reported with libyaml's own problem text and position.
//
// Design notes:
// - File names and "origin" strings are NOT copied into nodes: the caller keeps them alive for
//   the life of the tree (scenario.c keeps its tree only during scn_load).
// - A node built from a --set override carries origin = the override text, so error messages can
//   quote the override that introduced a bad value.
// - Scalars keep whether they were quoted (any non-plain style), so "true" in quotes stays a
//   string and a quoted "0.5" is not silently a number.
// - Depth and node count are capped (YTREE_MAX_DEPTH, YTREE_MAX_NODES) so hostile input cannot
//   exhaust the stack or memory; exceeding them is an input error.
#ifndef CSIM_YAMLTREE_H
#define CSIM_YAMLTREE_H

#include <stddef.h>

#include "core/error.h"

#define YTREE_MAX_DEPTH 64        // deepest nesting accepted
#define YTREE_MAX_NODES 1000000   // most nodes accepted in one parse

typedef enum { YTREE_SCALAR = 0, YTREE_SEQ = 1, YTREE_MAP = 2 } ytree_kind;

typedef struct ytree_node ytree_node;

// one key: value pair of a map, with the key's own position
typedef struct {
  char* key;            // key text (owned)
  const char* file;     // where the key was written (not owned)
  int line, column;     // 1-based position of the key
  const char* origin;   // override text that created this entry, NULL when from the file
  ytree_node* value;    // owned
} ytree_entry;

// a node of the tree
struct ytree_node {
  ytree_kind kind;
  const char* file;     // where the node was written (not owned)
  int line, column;     // 1-based position of the node's first character
  const char* origin;   // override text that produced this node, NULL when from the file
  char* text;           // SCALAR: text (owned, NUL-terminated; never contains NUL)
  int style;            // SCALAR: libyaml yaml_scalar_style_t it was written in
  int quoted;           // SCALAR: 1 unless written as a plain scalar
  int flow;             // SEQ/MAP: 1 when written in flow style ([...] / {...})
  int n, cap;           // SEQ: items; MAP: entries
  ytree_node** items;   // SEQ items (n)
  ytree_entry* entries; // MAP entries (n), in document order
};

// where a text being parsed comes from; positions are shifted by the bases
typedef struct {
  const char* file;     // name stored in nodes and errors (not copied)
  int line_base;        // added to every 1-based line
  int column_base;      // added to the 1-based columns of the first line
  const char* origin;   // stored in every node (not copied); NULL for files
} ytree_source;

// parse one YAML document from text[0..len) into a tree
//   out: root node, or NULL when the stream holds no document at all (empty / comments only)
// returns CSIM_ERR_INPUT with position and message for malformed YAML, anchors, aliases, tags,
// duplicate keys, non-scalar keys, several documents, NUL in scalars, too deep or too large input
csim_status ytree_parse(const char* text, size_t len, const ytree_source* src, ytree_node** out,
                        csim_error* err);

// new empty node of the given kind at a position (file and origin not copied)
ytree_node* ytree_new(ytree_kind kind, const char* file, int line, int column, const char* origin);

// free a node and everything below it (NULL is fine)
void ytree_free(ytree_node* n);

// index of key in a map, -1 when absent or when n is not a map
int ytree_map_find(const ytree_node* n, const char* key);

// entry for key in a map, NULL when absent
const ytree_entry* ytree_map_get(const ytree_node* n, const char* key);

// append key: value to a map (key copied, value owned by the map afterwards)
ytree_entry* ytree_map_add(ytree_node* map, const char* key, const char* file, int line, int column,
                           const char* origin, ytree_node* value);

// append an item to a sequence (owned by the sequence afterwards)
void ytree_seq_add(ytree_node* seq, ytree_node* item);

// 1 when n is a plain scalar meaning null: empty, ~, null, Null, NULL
int ytree_is_null(const ytree_node* n);

// short description of a node for messages: 'text', an empty value, a list of 3 items, a map
void ytree_describe(const ytree_node* n, char* buf, size_t size);

// emit the tree as YAML text with libyaml's emitter (comments are not kept)
//   out: malloc'd NUL-terminated text, owned by the caller
csim_status ytree_emit(const ytree_node* root, char** out, csim_error* err);

#endif  // CSIM_YAMLTREE_H
