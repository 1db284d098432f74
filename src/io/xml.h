// xml.h — in-house parser for the XML subset robot descriptions use, into a small read-only DOM.
//
// What it accepts: an optional <?xml ?> declaration and other processing instructions (skipped),
// comments (skipped, whatever they hold: xacro's ${...} included), <!DOCTYPE ...> (skipped, with
// an internal subset in [...]), CDATA sections (kept as text), elements with attributes quoted by
// ' or ", names with prefixes kept verbatim (drake:member is simply a name), the five predefined
// entities and numeric character references (&#NN; &#xNN;, encoded as UTF-8), LF, CRLF and CR
// line endings, tabs. It does not resolve namespaces, external entities or user-defined entities.
//
// Errors: anything not well-formed in that subset (unclosed or mismatched tags, a truncated file,
// bad attribute syntax, an unknown entity, text outside the root element, several roots, a NUL
// byte...) returns CSIM_ERR_INPUT with file, line and column of the problem, the element involved
// in csim_error.key and what was expected in the message. Parsing is iterative (no recursion:
// arbitrarily deep nesting cannot overflow the stack) and always advances, so it cannot hang.
//
// Positions: line and column are 1-based; a column counts bytes from the start of the line (a tab
// is one column); CRLF counts as one line break. Every element and attribute records where it
// starts (the '<' of an element, the first character of an attribute name).
//
// Memory: one xml_doc owns every node and string (a block arena); free it with xml_free.
#ifndef CSIM_XML_H
#define CSIM_XML_H

#include <stddef.h>

#include "core/error.h"

// one attribute: name="value" (value with entities decoded and whitespace normalised to spaces)
typedef struct xml_attr {
  const char* name;
  const char* value;
  int line, column;           // position of the attribute name
  struct xml_attr* next;      // next attribute of the same element, in document order
} xml_attr;

// one element
typedef struct xml_node {
  const char* name;           // element name as written (prefix included: "drake:member")
  int line, column;           // position of the '<' that opens the element
  int nattr;                  // number of attributes
  xml_attr* attrs;            // first attribute (list in document order), NULL when none
  const char* text;           // character data directly inside (entities decoded, CDATA
                              // included, segments concatenated); "" when none; never NULL
  int nchild;                 // number of child elements
  struct xml_node* children;  // first child element, NULL when none
  struct xml_node* last;      // last child element, NULL when none
  struct xml_node* next;      // next sibling element
  struct xml_node* parent;    // NULL for the root
} xml_node;

typedef struct xml_arena_block xml_arena_block;

// a parsed document
typedef struct {
  xml_node* root;             // the root element
  const char* file;           // file name used in messages
  xml_arena_block* arena;     // owner of every node and string (private)
} xml_doc;

// parse len bytes of text; `name` is the file name used in error messages (may be NULL)
csim_status xml_parse(const char* text, size_t len, const char* name, xml_doc** out,
                      csim_error* err);

// read a whole file and parse it
csim_status xml_parse_file(const char* path, xml_doc** out, csim_error* err);

// free a document (NULL is allowed)
void xml_free(xml_doc* doc);

// attribute record of `name` on element n, NULL when absent
const xml_attr* xml_attr_find(const xml_node* n, const char* name);

// value of attribute `name` on element n, NULL when absent
const char* xml_attr_get(const xml_node* n, const char* name);

// first child element named `name` (any child when name is NULL), NULL when none
const xml_node* xml_child(const xml_node* n, const char* name);

// next sibling after c that is named `name` (any sibling when name is NULL), NULL when none
const xml_node* xml_next(const xml_node* c, const char* name);

// number of child elements named `name`
int xml_count(const xml_node* n, const char* name);

#endif  // CSIM_XML_H
