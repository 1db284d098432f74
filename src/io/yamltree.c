// yamltree.c — YAML text <-> position-keeping node tree, on libyaml's event API (see yamltree.h).
#include "io/yamltree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

//---------------------------------- memory ----------------------------------------------------

// allocation that never returns NULL: out of memory is not recoverable here
static void* xrealloc(void* p, size_t size) {
  void* q = realloc(p, size ? size : 1);
  if (!q) {
    fputs("csim: fatal: out of memory\n", stderr);
    abort();
  }
  return q;
}

// copy of len bytes of s plus a terminating NUL
static char* xstrndup(const char* s, size_t len) {
  char* d = xrealloc(NULL, len + 1);
  memcpy(d, s, len);
  d[len] = '\0';
  return d;
}

//---------------------------------- nodes -----------------------------------------------------

ytree_node* ytree_new(ytree_kind kind, const char* file, int line, int column, const char* origin) {
  ytree_node* n = xrealloc(NULL, sizeof(*n));
  memset(n, 0, sizeof(*n));
  n->kind = kind;
  n->file = file;
  n->line = line;
  n->column = column;
  n->origin = origin;
  n->style = YAML_PLAIN_SCALAR_STYLE;
  return n;
}

void ytree_free(ytree_node* n) {
  if (!n) return;
  // children first, then the arrays holding them
  for (int i = 0; i < n->n; i++) {
    if (n->kind == YTREE_SEQ) ytree_free(n->items[i]);
    if (n->kind == YTREE_MAP) {
      free(n->entries[i].key);
      ytree_free(n->entries[i].value);
    }
  }
  free(n->items);
  free(n->entries);
  free(n->text);
  free(n);
}

int ytree_map_find(const ytree_node* n, const char* key) {
  if (!n || n->kind != YTREE_MAP) return -1;
  for (int i = 0; i < n->n; i++)
    if (strcmp(n->entries[i].key, key) == 0) return i;
  return -1;
}

const ytree_entry* ytree_map_get(const ytree_node* n, const char* key) {
  int i = ytree_map_find(n, key);
  return i < 0 ? NULL : &n->entries[i];
}

ytree_entry* ytree_map_add(ytree_node* map, const char* key, const char* file, int line, int column,
                           const char* origin, ytree_node* value) {
  // grow geometrically
  if (map->n == map->cap) {
    map->cap = map->cap ? 2 * map->cap : 8;
    map->entries = xrealloc(map->entries, (size_t)map->cap * sizeof(ytree_entry));
  }
  ytree_entry* e = &map->entries[map->n++];
  e->key = xstrndup(key, strlen(key));
  e->file = file;
  e->line = line;
  e->column = column;
  e->origin = origin;
  e->value = value;
  return e;
}

void ytree_seq_add(ytree_node* seq, ytree_node* item) {
  // grow geometrically
  if (seq->n == seq->cap) {
    seq->cap = seq->cap ? 2 * seq->cap : 8;
    seq->items = xrealloc(seq->items, (size_t)seq->cap * sizeof(ytree_node*));
  }
  seq->items[seq->n++] = item;
}

int ytree_is_null(const ytree_node* n) {
  if (!n || n->kind != YTREE_SCALAR || n->quoted) return 0;
  const char* t = n->text;
  return t[0] == '\0' || strcmp(t, "~") == 0 || strcmp(t, "null") == 0 || strcmp(t, "Null") == 0 ||
         strcmp(t, "NULL") == 0;
}

void ytree_describe(const ytree_node* n, char* buf, size_t size) {
  if (!n) {
    snprintf(buf, size, "nothing");
  } else if (n->kind == YTREE_MAP) {
    snprintf(buf, size, "a map");
  } else if (n->kind == YTREE_SEQ) {
    snprintf(buf, size, "a list of %d item%s", n->n, n->n == 1 ? "" : "s");
  } else if (ytree_is_null(n)) {
    snprintf(buf, size, "an empty value");
  } else {
    // quote the text, shortened to 40 bytes, control characters shown as '?'
    char t[48];
    size_t k = 0;
    for (const char* s = n->text; *s && k < 40; s++) t[k++] = ((unsigned char)*s < 32) ? '?' : *s;
    t[k] = '\0';
    snprintf(buf, size, "%s'%s%s'", n->quoted ? "the quoted string " : "", t,
             strlen(n->text) > 40 ? "..." : "");
  }
}

//---------------------------------- parser ----------------------------------------------------

// state of one parse
typedef struct {
  yaml_parser_t parser;
  const char* text;
  size_t len;
  const ytree_source* src;
  csim_error* err;
  long nnodes;
  char path[256];   // key path of the node being built, for messages
} pctx;

// byte offset of the start of 0-based line `line` in the text (len when past the end)
static size_t line_start(const pctx* c, size_t line) {
  size_t off = 0;
  for (size_t l = 0; l < line && off < c->len; off++)
    if (c->text[off] == '\n') l++;
  return off;
}

// 1-based line of a libyaml mark, shifted by the source's base (an override is one line)
static int mark_line(const pctx* c, yaml_mark_t m) {
  return c->src->line_base + (c->src->origin ? 1 : (int)m.line + 1);
}

// 1-based column of a libyaml mark, shifted on the first line by the source's base; in an
// override every position is a column of the one-line override text
static int mark_col(const pctx* c, yaml_mark_t m) {
  if (c->src->origin) {
    size_t off = line_start(c, m.line) + m.column;
    return c->src->column_base + (int)(off < c->len ? off : c->len) + 1;
  }
  return (int)m.column + 1 + (m.line == 0 ? c->src->column_base : 0);
}

// fill the error at a mark and return CSIM_ERR_INPUT
static csim_status fail_at(pctx* c, yaml_mark_t m, const char* msg) {
  if (c->src->origin)
    return err_set(c->err, CSIM_ERR_INPUT, c->src->file, mark_line(c, m), mark_col(c, m), c->path,
                   "%s (in --set '%s')", msg, c->src->origin);
  return err_set(c->err, CSIM_ERR_INPUT, c->src->file, mark_line(c, m), mark_col(c, m), c->path, "%s",
                 msg);
}

// turn libyaml's parser error into an input error with position and problem text
static csim_status parser_fail(pctx* c) {
  yaml_parser_t* p = &c->parser;
  char msg[512];
  const char* problem = p->problem ? p->problem : "unknown error";
  if (p->error == YAML_READER_ERROR) {
    // reader errors carry a byte offset, not a mark: derive line and column from the text
    yaml_mark_t m = {0, 0, 0};
    size_t off = p->problem_offset < c->len ? p->problem_offset : c->len;
    for (size_t i = 0; i < off; i++) {
      if (c->text[i] == '\n') {
        m.line++;
        m.column = 0;
      } else if (((unsigned char)c->text[i] & 0xC0) != 0x80) {
        m.column++;
      }
    }
    if (p->problem_value >= 0)
      snprintf(msg, sizeof(msg), "malformed YAML: %s (byte 0x%02X); is this a text file?", problem,
               (unsigned)p->problem_value & 0xFFu);
    else
      snprintf(msg, sizeof(msg), "malformed YAML: %s", problem);
    return fail_at(c, m, msg);
  }
  if (p->error == YAML_MEMORY_ERROR) {
    yaml_mark_t m = {0, 0, 0};
    return fail_at(c, m, "malformed YAML: libyaml ran out of memory");
  }
  // scanner / parser errors: problem at problem_mark, optional context at context_mark
  size_t k = (size_t)snprintf(msg, sizeof(msg), "malformed YAML: %s", problem);
  if (p->context && k < sizeof(msg))
    k += (size_t)snprintf(msg + k, sizeof(msg) - k, " (%s at line %d, column %d)", p->context,
                          mark_line(c, p->context_mark), mark_col(c, p->context_mark));
  // tabs are the classic cause of "cannot start any token": say so
  size_t ls = line_start(c, p->problem_mark.line);
  size_t at = ls + p->problem_mark.column;
  int tab = 0;
  for (size_t i = ls; i < c->len && i <= at && c->text[i] != '\n'; i++)
    if (c->text[i] == '\t') tab = 1;
  if (tab && k < sizeof(msg))
    snprintf(msg + k, sizeof(msg) - k, "; tabs are not allowed in YAML indentation, use spaces");
  return fail_at(c, p->problem_mark, msg);
}

// read the next event
static csim_status next_event(pctx* c, yaml_event_t* ev) {
  if (!yaml_parser_parse(&c->parser, ev)) return parser_fail(c);
  return CSIM_OK;
}

// reject anchors and tags on a node event (YAML features a scenario does not need)
static csim_status check_plain_node(pctx* c, const yaml_event_t* ev) {
  const yaml_char_t* anchor = NULL;
  const yaml_char_t* tag = NULL;
  char msg[300];
  // pick the anchor and tag of the event's kind
  if (ev->type == YAML_SCALAR_EVENT) {
    anchor = ev->data.scalar.anchor;
    tag = ev->data.scalar.tag;
  } else if (ev->type == YAML_SEQUENCE_START_EVENT) {
    anchor = ev->data.sequence_start.anchor;
    tag = ev->data.sequence_start.tag;
  } else if (ev->type == YAML_MAPPING_START_EVENT) {
    anchor = ev->data.mapping_start.anchor;
    tag = ev->data.mapping_start.tag;
  }
  if (anchor) {
    snprintf(msg, sizeof(msg),
             "YAML anchors are not supported (found anchor '&%.100s'); write the value out in full",
             (const char*)anchor);
    return fail_at(c, ev->start_mark, msg);
  }
  if (tag) {
    snprintf(msg, sizeof(msg), "YAML tags are not supported (found tag '%.100s'); remove the tag",
             (const char*)tag);
    return fail_at(c, ev->start_mark, msg);
  }
  return CSIM_OK;
}

// append ".seg" (or "seg" at the root) to the message path; returns the old length
static size_t path_push(pctx* c, const char* seg) {
  size_t old = strlen(c->path);
  snprintf(c->path + old, sizeof(c->path) - old, "%s%s", old ? "." : "", seg);
  return old;
}

// build the node that starts with event ev (ev stays owned by the caller)
static csim_status build(pctx* c, const yaml_event_t* ev, int depth, ytree_node** out) {
  *out = NULL;
  csim_status st;
  // aliases, anchors, tags, depth and size limits
  if (ev->type == YAML_ALIAS_EVENT) {
    char msg[300];
    snprintf(msg, sizeof(msg),
             "YAML aliases are not supported (found alias '*%.100s'); write the value out in full",
             (const char*)ev->data.alias.anchor);
    return fail_at(c, ev->start_mark, msg);
  }
  if ((st = check_plain_node(c, ev)) != CSIM_OK) return st;
  if (depth > YTREE_MAX_DEPTH) return fail_at(c, ev->start_mark, "nesting is too deep");
  if (++c->nnodes > YTREE_MAX_NODES) return fail_at(c, ev->start_mark, "too many values");
  const ytree_source* s = c->src;
  // scalar: copy the text and style
  if (ev->type == YAML_SCALAR_EVENT) {
    const char* v = (const char*)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    if (memchr(v, '\0', n)) return fail_at(c, ev->start_mark, "a value contains a NUL character");
    ytree_node* node = ytree_new(YTREE_SCALAR, s->file, mark_line(c, ev->start_mark),
                                 mark_col(c, ev->start_mark), s->origin);
    node->text = xstrndup(v, n);
    node->style = (int)ev->data.scalar.style;
    node->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
    *out = node;
    return CSIM_OK;
  }
  // sequence: items until SEQUENCE_END
  if (ev->type == YAML_SEQUENCE_START_EVENT) {
    ytree_node* node = ytree_new(YTREE_SEQ, s->file, mark_line(c, ev->start_mark),
                                 mark_col(c, ev->start_mark), s->origin);
    node->flow = ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
    for (;;) {
      yaml_event_t e;
      if ((st = next_event(c, &e)) != CSIM_OK) break;
      if (e.type == YAML_SEQUENCE_END_EVENT) {
        yaml_event_delete(&e);
        *out = node;
        return CSIM_OK;
      }
      // build item i under path ".i"
      char idx[24];
      snprintf(idx, sizeof(idx), "%d", node->n);
      size_t old = path_push(c, idx);
      ytree_node* item = NULL;
      st = build(c, &e, depth + 1, &item);
      yaml_event_delete(&e);
      if (st != CSIM_OK) break;
      c->path[old] = '\0';
      ytree_seq_add(node, item);
    }
    ytree_free(node);
    return st;
  }
  // mapping: scalar key, value, until MAPPING_END
  if (ev->type == YAML_MAPPING_START_EVENT) {
    ytree_node* node = ytree_new(YTREE_MAP, s->file, mark_line(c, ev->start_mark),
                                 mark_col(c, ev->start_mark), s->origin);
    node->flow = ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
    for (;;) {
      yaml_event_t k;
      if ((st = next_event(c, &k)) != CSIM_OK) break;
      if (k.type == YAML_MAPPING_END_EVENT) {
        yaml_event_delete(&k);
        *out = node;
        return CSIM_OK;
      }
      // keys must be untagged, unanchored scalars
      if (k.type != YAML_SCALAR_EVENT) {
        ytree_node* none = NULL;
        if (k.type == YAML_ALIAS_EVENT)
          st = build(c, &k, depth + 1, &none);  // reports the alias
        else
          st = fail_at(c, k.start_mark, "map keys must be plain names, not lists or maps");
        yaml_event_delete(&k);
        ytree_free(none);
        if (st == CSIM_OK) st = CSIM_ERR_INPUT;
        break;
      }
      if ((st = check_plain_node(c, &k)) != CSIM_OK) {
        yaml_event_delete(&k);
        break;
      }
      const char* key = (const char*)k.data.scalar.value;
      if (memchr(key, '\0', k.data.scalar.length)) {
        st = fail_at(c, k.start_mark, "a key contains a NUL character");
        yaml_event_delete(&k);
        break;
      }
      // duplicate keys: name both positions
      size_t old = path_push(c, key);
      const ytree_entry* dup = ytree_map_get(node, key);
      if (dup) {
        char msg[400];
        snprintf(msg, sizeof(msg), "duplicate key '%.100s' (first defined at line %d, column %d)", key,
                 dup->line, dup->column);
        st = fail_at(c, k.start_mark, msg);
        yaml_event_delete(&k);
        break;
      }
      ytree_entry* ent = ytree_map_add(node, key, s->file, mark_line(c, k.start_mark),
                                       mark_col(c, k.start_mark), s->origin, NULL);
      yaml_event_delete(&k);
      // value
      yaml_event_t v;
      if ((st = next_event(c, &v)) != CSIM_OK) break;
      st = build(c, &v, depth + 1, &ent->value);
      yaml_event_delete(&v);
      if (st != CSIM_OK) break;
      c->path[old] = '\0';
    }
    ytree_free(node);
    return st;
  }
  return fail_at(c, ev->start_mark, "unexpected YAML event");
}

csim_status ytree_parse(const char* text, size_t len, const ytree_source* src, ytree_node** out,
                        csim_error* err) {
  *out = NULL;
  pctx c;
  memset(&c, 0, sizeof(c));
  c.text = text;
  c.len = len;
  c.src = src;
  c.err = err;
  if (!yaml_parser_initialize(&c.parser))
    return err_set(err, CSIM_ERR_INPUT, src->file, 0, 0, NULL, "cannot initialise the YAML parser");
  yaml_parser_set_input_string(&c.parser, (const unsigned char*)text, len);
  yaml_parser_set_encoding(&c.parser, YAML_UTF8_ENCODING);
  ytree_node* root = NULL;
  csim_status st;
  yaml_event_t ev;
  // stream start, then either stream end (no document) or one document
  if ((st = next_event(&c, &ev)) != CSIM_OK) goto done;
  yaml_event_delete(&ev);
  if ((st = next_event(&c, &ev)) != CSIM_OK) goto done;
  if (ev.type == YAML_STREAM_END_EVENT) {
    yaml_event_delete(&ev);
    goto done;
  }
  yaml_event_delete(&ev);  // document start
  // the document's root node
  if ((st = next_event(&c, &ev)) != CSIM_OK) goto done;
  st = build(&c, &ev, 0, &root);
  yaml_event_delete(&ev);
  if (st != CSIM_OK) goto done;
  // document end, then the stream must end: a second document is an error
  if ((st = next_event(&c, &ev)) != CSIM_OK) goto done;
  yaml_event_delete(&ev);
  if ((st = next_event(&c, &ev)) != CSIM_OK) goto done;
  if (ev.type == YAML_DOCUMENT_START_EVENT) {
    st = fail_at(&c, ev.start_mark,
                 "several YAML documents in one file are not supported (found a second '---')");
  } else if (ev.type != YAML_STREAM_END_EVENT) {
    st = fail_at(&c, ev.start_mark, "unexpected content after the document");
  }
  yaml_event_delete(&ev);
done:
  yaml_parser_delete(&c.parser);
  if (st != CSIM_OK) {
    ytree_free(root);
    return st;
  }
  *out = root;
  return CSIM_OK;
}

//---------------------------------- emitter ---------------------------------------------------

// growing output buffer for the emitter
typedef struct {
  char* buf;
  size_t len, cap;
} sbuf;

// libyaml write handler: append to the buffer
static int sbuf_write(void* data, unsigned char* buffer, size_t size) {
  sbuf* b = data;
  if (b->len + size + 1 > b->cap) {
    while (b->len + size + 1 > b->cap) b->cap = b->cap ? 2 * b->cap : 1024;
    b->buf = xrealloc(b->buf, b->cap);
  }
  memcpy(b->buf + b->len, buffer, size);
  b->len += size;
  b->buf[b->len] = '\0';
  return 1;
}

// emit one scalar; plain scalars stay plain when the emitter can, quoted ones keep their style
static int emit_scalar(yaml_emitter_t* em, const char* text, int quoted, int style) {
  yaml_event_t ev;
  if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t*)(uintptr_t)text, (int)strlen(text),
                                    !quoted, 1, quoted ? (yaml_scalar_style_t)style : YAML_ANY_SCALAR_STYLE))
    return 0;
  return yaml_emitter_emit(em, &ev);
}

// emit a node and its children in document order
static int emit_node(yaml_emitter_t* em, const ytree_node* n) {
  yaml_event_t ev;
  if (n->kind == YTREE_SCALAR) return emit_scalar(em, n->text, n->quoted, n->style);
  // sequence
  if (n->kind == YTREE_SEQ) {
    if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                              n->flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE) ||
        !yaml_emitter_emit(em, &ev))
      return 0;
    for (int i = 0; i < n->n; i++)
      if (!emit_node(em, n->items[i])) return 0;
    return yaml_sequence_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev);
  }
  // mapping
  if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                           n->flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE) ||
      !yaml_emitter_emit(em, &ev))
    return 0;
  for (int i = 0; i < n->n; i++)
    if (!emit_scalar(em, n->entries[i].key, 0, 0) || !emit_node(em, n->entries[i].value)) return 0;
  return yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev);
}

csim_status ytree_emit(const ytree_node* root, char** out, csim_error* err) {
  *out = NULL;
  yaml_emitter_t em;
  sbuf b = {NULL, 0, 0};
  if (!yaml_emitter_initialize(&em))
    return err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "cannot initialise the YAML emitter");
  yaml_emitter_set_output(&em, sbuf_write, &b);
  yaml_emitter_set_unicode(&em, 1);
  yaml_emitter_set_indent(&em, 2);
  yaml_emitter_set_width(&em, 100);
  // stream start, one implicit document, stream end
  yaml_event_t ev;
  int ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(&em, &ev) &&
           yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && yaml_emitter_emit(&em, &ev);
  if (ok && root) ok = emit_node(&em, root);
  if (ok && !root) ok = emit_scalar(&em, "", 0, 0);
  ok = ok && yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&em, &ev) &&
       yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev) && yaml_emitter_flush(&em);
  csim_status st = CSIM_OK;
  if (!ok) {
    st = err_set(err, CSIM_ERR_INPUT, NULL, 0, 0, NULL, "cannot write the scenario as YAML: %s",
                 em.problem ? em.problem : "emitter error");
    free(b.buf);
  } else {
    *out = b.buf ? b.buf : xstrndup("", 0);
  }
  yaml_emitter_delete(&em);
  return st;
}
