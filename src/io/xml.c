// xml.c — the XML subset parser of xml.h: one forward pass over the text, iterative, building a
// DOM in a block arena. Well-formedness rules follow XML 1.0 (W3C REC-xml, 5th ed.) for the parts
// robot descriptions use; see xml.h for what is accepted and skipped.
#include "io/xml.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

//---------------------------------- arena ----------------------------------------------------

#define ARENA_BLOCK 65536

struct xml_arena_block {
  xml_arena_block* next;
  size_t used, cap;
  max_align_t data[];  // payload
};

// bump-allocate n zeroed bytes from the document's arena; NULL when out of memory
static void* arena_alloc(xml_doc* doc, size_t n) {
  n = (n + 15) & ~(size_t)15;
  xml_arena_block* b = doc->arena;
  if (!b || b->cap - b->used < n) {
    size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
    xml_arena_block* nb = malloc(sizeof(xml_arena_block) + cap);
    if (!nb) return NULL;
    nb->cap = cap;
    nb->used = 0;
    nb->next = b;
    doc->arena = nb;
    b = nb;
  }
  char* p = (char*)b->data + b->used;
  b->used += n;
  memset(p, 0, n);
  return p;
}

// copy n bytes into a NUL-terminated arena string
static char* arena_strndup(xml_doc* doc, const char* s, size_t n) {
  char* r = arena_alloc(doc, n + 1);
  if (!r) return NULL;
  if (n) memcpy(r, s, n);
  r[n] = '\0';
  return r;
}

//---------------------------------- parser state ---------------------------------------------

typedef struct {
  const char* s;       // input
  size_t len;          // input length
  size_t pos;          // current offset
  int line, col;       // position of s[pos]
  const char* file;    // name for messages
  csim_error* err;
  xml_doc* doc;
  char* tbuf;          // text stack: character data of the open elements, innermost last
  size_t tlen, tcap;
  size_t* tstart;      // (depth) start of each open element's text in tbuf
  int depth, dcap;
  char* abuf;          // scratch for one decoded attribute value
  size_t alen, acap;
} parser;

// error at the current position
#define PERR(p, key, ...) \
  err_set((p)->err, CSIM_ERR_INPUT, (p)->file, (p)->line, (p)->col, (key), __VA_ARGS__)

// error at a given position
#define PERR_AT(p, ln, cl, key, ...) \
  err_set((p)->err, CSIM_ERR_INPUT, (p)->file, (ln), (cl), (key), __VA_ARGS__)

// advance one byte, keeping line/column (CRLF and lone CR are one line break)
static void adv(parser* p) {
  char c = p->s[p->pos];
  if (c == '\n') {
    p->line++;
    p->col = 1;
  } else if (c == '\r') {
    if (p->pos + 1 < p->len && p->s[p->pos + 1] == '\n') {
      p->col++;  // the '\n' that follows ends the line
    } else {
      p->line++;
      p->col = 1;
    }
  } else {
    p->col++;
  }
  p->pos++;
}

// advance n bytes
static void advn(parser* p, size_t n) {
  while (n-- && p->pos < p->len) adv(p);
}

// does the input continue with the literal lit at the current position?
static int starts(const parser* p, const char* lit) {
  size_t n = strlen(lit);
  return p->len - p->pos >= n && memcmp(p->s + p->pos, lit, n) == 0;
}

// XML white space
static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// first character of a name (ASCII letters, '_', ':' or any non-ASCII byte of a UTF-8 name)
static int is_name_start(char c) {
  unsigned char u = (unsigned char)c;
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u == ':' || u >= 0x80;
}

// later characters of a name
static int is_name_char(char c) {
  unsigned char u = (unsigned char)c;
  return is_name_start(c) || (u >= '0' && u <= '9') || u == '-' || u == '.';
}

// skip white space; returns whether any was skipped
static int skip_ws(parser* p) {
  int any = 0;
  while (p->pos < p->len && is_ws(p->s[p->pos])) {
    adv(p);
    any = 1;
  }
  return any;
}

// a printable description of the byte at the current position, for messages
static void describe_here(const parser* p, char* buf, size_t n) {
  if (p->pos >= p->len) {
    snprintf(buf, n, "end of file");
    return;
  }
  unsigned char c = (unsigned char)p->s[p->pos];
  if (c >= 0x21 && c < 0x7f)
    snprintf(buf, n, "'%c'", c);
  else if (c == ' ')
    snprintf(buf, n, "a space");
  else if (c == '\n' || c == '\r')
    snprintf(buf, n, "a line break");
  else
    snprintf(buf, n, "byte 0x%02x", c);
}

// grow a byte buffer to hold at least need bytes
static int grow(char** buf, size_t* cap, size_t need) {
  if (need <= *cap) return 1;
  size_t nc = *cap ? *cap : 256;
  while (nc < need) nc *= 2;
  char* nb = realloc(*buf, nc);
  if (!nb) return 0;
  *buf = nb;
  *cap = nc;
  return 1;
}

// append bytes to the text stack (the innermost open element's text)
static int text_append(parser* p, const char* s, size_t n) {
  if (!grow(&p->tbuf, &p->tcap, p->tlen + n + 1)) return 0;
  memcpy(p->tbuf + p->tlen, s, n);
  p->tlen += n;
  return 1;
}

// encode code point cp as UTF-8 into out (4 bytes max); returns the byte count
static size_t utf8_encode(unsigned long cp, char out[4]) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

// decode the entity or character reference at '&' into out; advances past ';'
//   key: element name for messages; returns the number of bytes written, 0 on error (err set)
static size_t decode_entity(parser* p, const char* key, char out[4]) {
  int ln = p->line, cl = p->col;
  adv(p);  // '&'
  size_t start = p->pos;
  while (p->pos < p->len && p->s[p->pos] != ';' && p->pos - start < 12 &&
         !is_ws(p->s[p->pos]) && p->s[p->pos] != '<' && p->s[p->pos] != '&')
    adv(p);
  if (p->pos >= p->len || p->s[p->pos] != ';') {
    PERR_AT(p, ln, cl, key,
            "bad entity reference: expected &lt; &gt; &amp; &quot; &apos; &#N; or &#xH; "
            "(a literal '&' must be written &amp;)");
    return 0;
  }
  const char* e = p->s + start;
  size_t n = p->pos - start;
  adv(p);  // ';'
  // predefined entities
  static const char* const names[5] = {"lt", "gt", "amp", "quot", "apos"};
  static const char vals[5] = {'<', '>', '&', '"', '\''};
  for (int i = 0; i < 5; i++)
    if (strlen(names[i]) == n && memcmp(e, names[i], n) == 0) {
      out[0] = vals[i];
      return 1;
    }
  // numeric character references
  if (n >= 2 && e[0] == '#') {
    int hex = (e[1] == 'x');
    size_t i = hex ? 2 : 1;
    unsigned long cp = 0;
    int ok = i < n;
    for (; i < n && ok; i++) {
      char c = e[i];
      int d = -1;
      if (c >= '0' && c <= '9') d = c - '0';
      else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
      if (d < 0) ok = 0;
      else cp = cp * (hex ? 16u : 10u) + (unsigned long)d;
      if (cp > 0x10FFFF) ok = 0;
    }
    if (ok && cp != 0 && !(cp >= 0xD800 && cp <= 0xDFFF)) return utf8_encode(cp, out);
    PERR_AT(p, ln, cl, key, "bad character reference '&%.*s;': expected a valid code point",
            (int)n, e);
    return 0;
  }
  PERR_AT(p, ln, cl, key,
          "unknown entity '&%.*s;': expected &lt; &gt; &amp; &quot; &apos; &#N; or &#xH;", (int)n,
          e);
  return 0;
}

// read a name at the current position into the arena; NULL when there is none (no error set)
static const char* read_name(parser* p) {
  if (p->pos >= p->len || !is_name_start(p->s[p->pos])) return NULL;
  size_t start = p->pos;
  while (p->pos < p->len && is_name_char(p->s[p->pos])) adv(p);
  return arena_strndup(p->doc, p->s + start, p->pos - start);
}

// out-of-memory error
static csim_status oom(parser* p) { return PERR(p, NULL, "out of memory"); }

//---------------------------------- markup ---------------------------------------------------

// skip from the current position past the terminator `end`; error when missing
static csim_status skip_past(parser* p, const char* end, const char* what, const char* key) {
  int ln = p->line, cl = p->col;
  size_t n = strlen(end);
  while (p->pos < p->len) {
    if (starts(p, end)) {
      advn(p, n);
      return CSIM_OK;
    }
    adv(p);
  }
  return PERR_AT(p, ln, cl, key, "unterminated %s: expected '%s' before the end of file", what,
                 end);
}

// skip <!DOCTYPE ...>, with an internal subset in [...] and quoted literals
static csim_status skip_doctype(parser* p) {
  int ln = p->line, cl = p->col;
  int depth = 0;
  char quote = 0;
  advn(p, 9);
  while (p->pos < p->len) {
    char c = p->s[p->pos];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[') {
      depth++;
    } else if (c == ']') {
      if (depth > 0) depth--;
    } else if (c == '>' && depth == 0) {
      adv(p);
      return CSIM_OK;
    } else if (depth > 0 && starts(p, "<!--")) {
      csim_status st = skip_past(p, "-->", "comment", NULL);
      if (st) return st;
      continue;
    }
    adv(p);
  }
  return PERR_AT(p, ln, cl, NULL, "unterminated <!DOCTYPE: expected '>' before the end of file");
}

// push a new open element on the depth stack (its text starts at the end of the text stack)
static int push_open(parser* p) {
  if (p->depth == p->dcap) {
    int nc = p->dcap ? p->dcap * 2 : 32;
    size_t* ns = realloc(p->tstart, (size_t)nc * sizeof(size_t));
    if (!ns) return 0;
    p->tstart = ns;
    p->dcap = nc;
  }
  p->tstart[p->depth++] = p->tlen;
  return 1;
}

// close the innermost element: move its text into the arena and pop the text stack
static int pop_open(parser* p, xml_node* n) {
  size_t st = p->tstart[--p->depth];
  if (p->tlen > st) {
    char* t = arena_strndup(p->doc, p->tbuf + st, p->tlen - st);
    if (!t) return 0;
    n->text = t;
  }
  p->tlen = st;
  return 1;
}

// parse one attribute value (after the opening quote has been seen) into p->abuf
//   key: element name; attr: attribute name, for messages
static csim_status read_attr_value(parser* p, const char* key, const char* attr) {
  int ln = p->line, cl = p->col;
  char q = p->s[p->pos];
  adv(p);
  p->alen = 0;
  while (1) {
    if (p->pos >= p->len)
      return PERR_AT(p, ln, cl, key,
                     "unterminated value of attribute '%s': expected a closing %c before the "
                     "end of file",
                     attr, q);
    char c = p->s[p->pos];
    char tmp[4];
    size_t n = 1;
    if (c == q) {
      adv(p);
      break;
    }
    if (c == '<') {
      return PERR(p, key, "'<' in the value of attribute '%s' (write &lt;, or close the %c quote)",
                  attr, q);
    } else if (c == '&') {
      n = decode_entity(p, key, tmp);
      if (!n) return CSIM_ERR_INPUT;
    } else if (c == '\r' && p->pos + 1 < p->len && p->s[p->pos + 1] == '\n') {
      adv(p);  // CRLF -> one space
      continue;
    } else {
      tmp[0] = is_ws(c) ? ' ' : c;  // attribute-value normalisation (XML 1.0 sec. 3.3.3)
      adv(p);
    }
    if (!grow(&p->abuf, &p->acap, p->alen + n + 1)) return oom(p);
    memcpy(p->abuf + p->alen, tmp, n);
    p->alen += n;
  }
  return CSIM_OK;
}

// parse a start tag at '<'; *node gets the element; *empty is set for <x/>
static csim_status parse_start_tag(parser* p, xml_node* parent, xml_node** node, int* empty) {
  int ln = p->line, cl = p->col;
  adv(p);  // '<'
  if (p->pos >= p->len || !is_name_start(p->s[p->pos])) {
    char what[32];
    describe_here(p, what, sizeof(what));
    return PERR(p, parent ? parent->name : NULL,
                "expected an element name after '<', found %s (write &lt; for a literal '<')",
                what);
  }
  const char* name = read_name(p);
  if (!name) return oom(p);
  xml_node* n = arena_alloc(p->doc, sizeof(xml_node));
  if (!n) return oom(p);
  n->name = name;
  n->line = ln;
  n->column = cl;
  n->text = "";
  n->parent = parent;
  xml_attr* last = NULL;
  // attributes until '>' or '/>'
  while (1) {
    int ws = skip_ws(p);
    if (p->pos >= p->len)
      return PERR(p, name,
                  "unexpected end of file inside the start tag of <%s> (line %d): expected '>'",
                  name, ln);
    char c = p->s[p->pos];
    if (c == '>') {
      adv(p);
      *empty = 0;
      break;
    }
    if (c == '/') {
      if (p->pos + 1 < p->len && p->s[p->pos + 1] == '>') {
        advn(p, 2);
        *empty = 1;
        break;
      }
      adv(p);
      char what[32];
      describe_here(p, what, sizeof(what));
      return PERR(p, name, "expected '>' after '/' in <%s/>, found %s", name, what);
    }
    if (!is_name_start(c)) {
      char what[32];
      describe_here(p, what, sizeof(what));
      return PERR(p, name, "bad attribute syntax in <%s>: expected an attribute name, '>' or "
                  "'/>', found %s", name, what);
    }
    if (!ws)
      return PERR(p, name, "bad attribute syntax in <%s>: expected white space before attribute",
                  name);
    // name = "value"
    xml_attr* a = arena_alloc(p->doc, sizeof(xml_attr));
    if (!a) return oom(p);
    a->line = p->line;
    a->column = p->col;
    a->name = read_name(p);
    if (!a->name) return oom(p);
    skip_ws(p);
    if (p->pos >= p->len || p->s[p->pos] != '=') {
      char what[32];
      describe_here(p, what, sizeof(what));
      return PERR(p, name, "bad attribute syntax in <%s>: expected '=' after attribute '%s', "
                  "found %s", name, a->name, what);
    }
    adv(p);
    skip_ws(p);
    if (p->pos >= p->len || (p->s[p->pos] != '"' && p->s[p->pos] != '\'')) {
      char what[32];
      describe_here(p, what, sizeof(what));
      return PERR(p, name, "bad attribute syntax in <%s>: expected a quoted value for attribute "
                  "'%s', found %s", name, a->name, what);
    }
    csim_status st = read_attr_value(p, name, a->name);
    if (st) return st;
    a->value = arena_strndup(p->doc, p->abuf ? p->abuf : "", p->alen);
    if (!a->value) return oom(p);
    // attribute names are unique within an element (XML 1.0 WFC: Unique Att Spec)
    for (const xml_attr* o = n->attrs; o; o = o->next)
      if (strcmp(o->name, a->name) == 0)
        return PERR_AT(p, a->line, a->column, name,
                       "duplicate attribute '%s' in <%s> (first at line %d, column %d)", a->name,
                       name, o->line, o->column);
    if (last) last->next = a;
    else n->attrs = a;
    last = a;
    n->nattr++;
  }
  // link into the parent's children
  if (parent) {
    if (parent->last) parent->last->next = n;
    else parent->children = n;
    parent->last = n;
    parent->nchild++;
  }
  *node = n;
  return CSIM_OK;
}

// parse an end tag at '</' and close cur; *cur becomes its parent
static csim_status parse_end_tag(parser* p, xml_node** cur) {
  int ln = p->line, cl = p->col;
  advn(p, 2);
  size_t start = p->pos;
  while (p->pos < p->len && is_name_char(p->s[p->pos])) adv(p);
  size_t n = p->pos - start;
  const char* nm = p->s + start;
  if (n == 0 || !is_name_start(nm[0])) {
    char what[32];
    describe_here(p, what, sizeof(what));
    return PERR(p, *cur ? (*cur)->name : NULL, "expected an element name after '</', found %s",
                what);
  }
  skip_ws(p);
  if (p->pos >= p->len || p->s[p->pos] != '>') {
    char what[32];
    describe_here(p, what, sizeof(what));
    return PERR(p, *cur ? (*cur)->name : NULL, "expected '>' to end </%.*s>, found %s", (int)n,
                nm, what);
  }
  adv(p);
  xml_node* c = *cur;
  if (!c)
    return PERR_AT(p, ln, cl, NULL, "end tag </%.*s> without a matching start tag", (int)n, nm);
  if (strlen(c->name) != n || memcmp(c->name, nm, n) != 0)
    return PERR_AT(p, ln, cl, c->name,
                   "mismatched end tag: expected </%s> to close <%s> opened at line %d, "
                   "column %d, found </%.*s>",
                   c->name, c->name, c->line, c->column, (int)n, nm);
  if (!pop_open(p, c)) return oom(p);
  *cur = c->parent;
  return CSIM_OK;
}

// character data up to the next '<': appended to cur's text; outside the root only white space
static csim_status parse_text(parser* p, xml_node* cur) {
  while (p->pos < p->len && p->s[p->pos] != '<') {
    char c = p->s[p->pos];
    if (!cur) {
      if (!is_ws(c)) {
        char what[32];
        describe_here(p, what, sizeof(what));
        return PERR(p, NULL, "text outside the root element: expected '<' or white space, "
                    "found %s", what);
      }
      adv(p);
      continue;
    }
    char tmp[4];
    size_t n = 1;
    if (c == '&') {
      n = decode_entity(p, cur->name, tmp);
      if (!n) return CSIM_ERR_INPUT;
    } else if (c == '\r') {
      // line-end normalisation (XML 1.0 sec. 2.11): CRLF and CR become LF
      tmp[0] = '\n';
      if (p->pos + 1 < p->len && p->s[p->pos + 1] == '\n') adv(p);
      adv(p);
    } else {
      tmp[0] = c;
      adv(p);
    }
    if (!text_append(p, tmp, n)) return oom(p);
  }
  return CSIM_OK;
}

//---------------------------------- driver ---------------------------------------------------

// the main loop: markup and text until the end of input; errors leave the document partial
static csim_status parse_doc(parser* p) {
  xml_node* cur = NULL;  // innermost open element
  xml_node* root = NULL;
  // a NUL byte means a binary or corrupted file
  const char* z = memchr(p->s, '\0', p->len);
  if (z) {
    parser q = *p;
    advn(&q, (size_t)(z - p->s));
    return PERR(&q, NULL, "NUL byte in the text: not an XML file (binary or corrupted?)");
  }
  // skip a UTF-8 byte order mark
  if (starts(p, "\xEF\xBB\xBF")) {
    p->pos += 3;
  }
  while (p->pos < p->len) {
    csim_status st = CSIM_OK;
    if (p->s[p->pos] != '<') {
      st = parse_text(p, cur);
    } else if (starts(p, "<?")) {
      st = skip_past(p, "?>", "processing instruction", cur ? cur->name : NULL);
    } else if (starts(p, "<!--")) {
      st = skip_past(p, "-->", "comment", cur ? cur->name : NULL);
    } else if (starts(p, "<![CDATA[")) {
      if (!cur) return PERR(p, NULL, "CDATA section outside the root element");
      int ln = p->line, cl = p->col;
      advn(p, 9);
      size_t start = p->pos;
      while (p->pos < p->len && !starts(p, "]]>")) adv(p);
      if (p->pos >= p->len)
        return PERR_AT(p, ln, cl, cur->name, "unterminated CDATA section: expected ']]>'");
      if (!text_append(p, p->s + start, p->pos - start)) return oom(p);
      advn(p, 3);
    } else if (starts(p, "<!DOCTYPE")) {
      if (cur || root) return PERR(p, NULL, "<!DOCTYPE must come before the root element");
      st = skip_doctype(p);
    } else if (starts(p, "<!")) {
      return PERR(p, cur ? cur->name : NULL,
                  "unknown markup '<!': expected a comment <!--, <![CDATA[ or <!DOCTYPE");
    } else if (starts(p, "</")) {
      st = parse_end_tag(p, &cur);
    } else {
      if (!cur && root)
        return PERR(p, NULL, "content after the root element <%s> (line %d): a document has "
                    "one root element", root->name, root->line);
      xml_node* n = NULL;
      int empty = 0;
      st = parse_start_tag(p, cur, &n, &empty);
      if (!st) {
        if (!root) root = n;
        if (!empty) {
          if (!push_open(p)) return oom(p);
          cur = n;
        }
      }
    }
    if (st) return st;
  }
  // end of input: everything must be closed
  if (cur)
    return PERR(p, cur->name,
                "unexpected end of file: element <%s> opened at line %d, column %d is not closed",
                cur->name, cur->line, cur->column);
  if (!root) return PERR(p, NULL, "no root element: the document is empty");
  p->doc->root = root;
  return CSIM_OK;
}

// parse a buffer into a new document (xml.h)
csim_status xml_parse(const char* text, size_t len, const char* name, xml_doc** out,
                      csim_error* err) {
  *out = NULL;
  xml_doc* doc = calloc(1, sizeof(xml_doc));
  if (!doc) return err_set(err, CSIM_ERR_INPUT, name, 0, 0, NULL, "out of memory");
  doc->file = arena_strndup(doc, name ? name : "", name ? strlen(name) : 0);
  parser p = {.s = text ? text : "", .len = text ? len : 0, .line = 1, .col = 1,
              .file = name, .err = err, .doc = doc};
  csim_status st = doc->file ? parse_doc(&p) : err_set(err, CSIM_ERR_INPUT, name, 0, 0, NULL,
                                                      "out of memory");
  free(p.tbuf);
  free(p.tstart);
  free(p.abuf);
  if (st) {
    xml_free(doc);
    return st;
  }
  *out = doc;
  return CSIM_OK;
}

// read a whole file and parse it (xml.h)
csim_status xml_parse_file(const char* path, xml_doc** out, csim_error* err) {
  *out = NULL;
  // only regular files: a FIFO would block, /dev/zero never end
  if (err_check_input_file(path, "XML", err) != CSIM_OK) return CSIM_ERR_INPUT;
  FILE* f = fopen(path, "rb");
  if (!f) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
  // read the whole file, growing the buffer
  size_t cap = 1 << 16, len = 0;
  char* buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0 || len < cap) {
      if (ferror(f)) {
        fclose(f);
        free(buf);
        return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "read error");
      }
      if (feof(f)) break;
    }
    if (len == cap) {
      char* nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) return err_set(err, CSIM_ERR_INPUT, path, 0, 0, NULL, "out of memory");
  csim_status st = xml_parse(buf, len, path, out, err);
  free(buf);
  return st;
}

// free the arena blocks, then the document
void xml_free(xml_doc* doc) {
  if (!doc) return;
  xml_arena_block* b = doc->arena;
  while (b) {
    xml_arena_block* nx = b->next;
    free(b);
    b = nx;
  }
  free(doc);
}

//---------------------------------- queries --------------------------------------------------

// linear search of the attribute list
const xml_attr* xml_attr_find(const xml_node* n, const char* name) {
  for (const xml_attr* a = n ? n->attrs : NULL; a; a = a->next)
    if (strcmp(a->name, name) == 0) return a;
  return NULL;
}

// value of an attribute, NULL when absent
const char* xml_attr_get(const xml_node* n, const char* name) {
  const xml_attr* a = xml_attr_find(n, name);
  return a ? a->value : NULL;
}

// first child element with that name (any when NULL)
const xml_node* xml_child(const xml_node* n, const char* name) {
  for (const xml_node* c = n ? n->children : NULL; c; c = c->next)
    if (!name || strcmp(c->name, name) == 0) return c;
  return NULL;
}

// next sibling element with that name (any when NULL)
const xml_node* xml_next(const xml_node* c, const char* name) {
  for (c = c ? c->next : NULL; c; c = c->next)
    if (!name || strcmp(c->name, name) == 0) return c;
  return NULL;
}

// number of children with that name
int xml_count(const xml_node* n, const char* name) {
  int k = 0;
  for (const xml_node* c = xml_child(n, name); c; c = xml_next(c, name)) k++;
  return k;
}
