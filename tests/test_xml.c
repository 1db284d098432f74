// test_xml.c — the in-house XML subset parser: DOM contents, entities, positions, every
// malformed case, and a truncation/garbage sweep over a real URDF (errors, never crashes).
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/xml.h"
#include "support.h"

// parse a NUL-terminated string
static csim_status parse(const char* s, xml_doc** d, csim_error* e) {
  err_clear(e);
  return xml_parse(s, strlen(s), "t.xml", d, e);
}

// parse text that must be malformed; check the reported position and message fragment
static void expect_error(const char* s, int line, int col, const char* key, const char* frag) {
  xml_doc* d = NULL;
  csim_error e;
  csim_status st = parse(s, &d, &e);
  ck_assert_msg(st == CSIM_ERR_INPUT, "accepted malformed XML: %s", s);
  ck_assert_ptr_null(d);
  ck_assert_str_eq(e.file, "t.xml");
  ck_assert_msg(e.line == line, "line %d, expected %d (%s) for: %s", e.line, line, e.msg, s);
  if (col > 0) ck_assert_msg(e.column == col, "column %d, expected %d (%s)", e.column, col, e.msg);
  if (key) ck_assert_str_eq(e.key, key);
  ck_assert_msg(strstr(e.msg, frag) != NULL, "message '%s' lacks '%s'", e.msg, frag);
}

// declaration, comments with anything, DOCTYPE, namespaced names, both quote styles, children
START_TEST(dom_structure) {
  const char* s =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
      "<!DOCTYPE robot [ <!ELEMENT robot ANY> ]>\n"
      "<!-- ${xacro} <tags> & stuff -->\n"
      "<robot name='r' xmlns:drake=\"http://drake.mit.edu\">\n"
      "  <link name=\"a\"/>\n"
      "  <drake:member link = \"b\" />\n"
      "  <joint name=\"j\" type='fixed'><parent link=\"a\"/></joint>\n"
      "</robot>\n"
      "<!-- trailing comment -->\n";
  xml_doc* d;
  csim_error e;
  ck_assert_int_eq(parse(s, &d, &e), CSIM_OK);
  const xml_node* r = d->root;
  ck_assert_str_eq(r->name, "robot");
  ck_assert_int_eq(r->line, 4);
  ck_assert_int_eq(r->column, 1);
  ck_assert_int_eq(r->nattr, 2);
  ck_assert_str_eq(xml_attr_get(r, "name"), "r");
  ck_assert_str_eq(xml_attr_get(r, "xmlns:drake"), "http://drake.mit.edu");
  ck_assert_int_eq(r->nchild, 3);
  ck_assert_int_eq(xml_count(r, "link"), 1);
  const xml_node* m = xml_child(r, "drake:member");
  ck_assert_ptr_nonnull(m);
  ck_assert_str_eq(xml_attr_get(m, "link"), "b");
  ck_assert_int_eq(m->line, 6);
  ck_assert_int_eq(m->column, 3);
  const xml_attr* a = xml_attr_find(m, "link");
  ck_assert_int_eq(a->line, 6);
  ck_assert_int_eq(a->column, 17);
  const xml_node* j = xml_child(r, "joint");
  ck_assert_ptr_eq(j->parent, r);
  ck_assert_str_eq(xml_child(j, NULL)->name, "parent");
  ck_assert_ptr_null(xml_next(xml_child(j, NULL), NULL));
  ck_assert_ptr_eq(xml_next(xml_child(r, NULL), "joint"), j);
  ck_assert_ptr_null(xml_attr_get(j, "nope"));
  ck_assert_ptr_null(xml_child(r, "nope"));
  xml_free(d);
}
END_TEST

// the five entities and numeric references, in text and attributes; CDATA kept verbatim
START_TEST(entities_and_text) {
  const char* s =
      "<a v=\"&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#xe9;\" w='x&#10;y'>"
      "t &amp; <![CDATA[<raw> & ]]> u<b/>v</a>";
  xml_doc* d;
  csim_error e;
  ck_assert_int_eq(parse(s, &d, &e), CSIM_OK);
  ck_assert_str_eq(xml_attr_get(d->root, "v"), "<>&\"'AB\xC3\xA9");
  ck_assert_str_eq(xml_attr_get(d->root, "w"), "x\ny");  // char refs are not normalised
  ck_assert_str_eq(d->root->text, "t & <raw> &  uv");
  ck_assert_str_eq(xml_child(d->root, "b")->text, "");
  xml_free(d);
}
END_TEST

// CRLF counts as one line break; tabs are one column; attribute white space becomes spaces
START_TEST(crlf_tabs_positions) {
  const char* s =
      "<?xml version=\"1.0\"?>\r\n<r>\r\n\t<c\tx=\"1\r\n2\"/>\r\n\r\n  <d/>\r\n</r>\r\n";
  xml_doc* d;
  csim_error e;
  ck_assert_int_eq(parse(s, &d, &e), CSIM_OK);
  const xml_node* c = xml_child(d->root, "c");
  ck_assert_int_eq(c->line, 3);
  ck_assert_int_eq(c->column, 2);
  ck_assert_str_eq(xml_attr_get(c, "x"), "1 2");
  ck_assert_int_eq(xml_attr_find(c, "x")->column, 5);
  const xml_node* dd = xml_child(d->root, "d");
  ck_assert_int_eq(dd->line, 6);
  ck_assert_int_eq(dd->column, 3);
  ck_assert_str_eq(d->root->text, "\n\t\n\n  \n");  // CRLF normalised to LF in text
  xml_free(d);
  // a lone CR is a line break too
  ck_assert_int_eq(parse("<r>\r<x/></r>", &d, &e), CSIM_OK);
  ck_assert_int_eq(xml_child(d->root, "x")->line, 2);
  xml_free(d);
}
END_TEST

// each malformed case: status, line, column, element and message
START_TEST(malformed_cases) {
  expect_error("<robot>\n  <link name=\"a\">\n</robot>\n", 3, 1, "link", "mismatched end tag");
  expect_error("<robot>\n  <link name=\"a\">\n", 3, 1, "link", "not closed");
  expect_error("<robot>\n<link name=\"a\"/>", 2, 17, "robot", "opened at line 1");
  expect_error("<robot>\n <link name=\"a\" /\n", 2, 18, "link", "expected '>'");
  expect_error("<robot>\n <link name=a/>\n</robot>", 2, 13, "link", "quoted value");
  expect_error("<robot>\n <link name\"a\"/>\n</robot>", 2, 12, "link", "expected '='");
  expect_error("<robot>\n <link name=\"a\"x=\"b\"/>\n</robot>", 2, 16, "link",
               "white space before attribute");
  expect_error("<robot>\n <link name=\"a\" name=\"b\"/>\n</robot>", 2, 17, "link",
               "duplicate attribute 'name'");
  expect_error("<robot>\n <link name=\"a<b\"/>\n</robot>", 2, 15, "link", "'<' in the value");
  expect_error("<robot>\n <link name=\"a\n", 2, 13, "link", "unterminated value");
  expect_error("<robot>\n <link name=\"&foo;\"/>\n</robot>", 2, 14, "link", "unknown entity");
  expect_error("<robot>\n <link name=\"a & b\"/>\n</robot>", 2, 16, "link", "bad entity");
  expect_error("<robot>&#0;</robot>", 1, 8, "robot", "bad character reference");
  expect_error("<robot>&#x110000;</robot>", 1, 8, "robot", "bad character reference");
  expect_error("<robot>\n< link/>\n</robot>", 2, 2, "robot", "expected an element name");
  expect_error("garbage", 1, 1, NULL, "text outside the root element");
  expect_error("<a/>\n<b/>", 2, 1, NULL, "one root element");
  expect_error("<a/> trailing", 1, 6, NULL, "text outside the root element");
  expect_error("", 1, 1, NULL, "no root element");
  expect_error("<!-- only a comment -->\n", 2, 1, NULL, "no root element");
  expect_error("<a>\n<!-- unterminated\n</a>", 2, 1, "a", "unterminated comment");
  expect_error("<a><![CDATA[ x </a>", 1, 4, "a", "unterminated CDATA");
  expect_error("<?xml version=\"1.0\"", 1, 1, NULL, "unterminated processing instruction");
  expect_error("</a>", 1, 1, NULL, "without a matching start tag");
  expect_error("<a></b>", 1, 4, "a", "found </b>");
  expect_error("<a><!ELEMENT x></a>", 1, 4, "a", "unknown markup");
  expect_error("<a/><!DOCTYPE a>", 1, 5, NULL, "before the root element");
  expect_error("<!DOCTYPE a [ <!ELEMENT a ANY>", 1, 1, NULL, "unterminated <!DOCTYPE");
  expect_error("<a></a  x>", 1, 9, "a", "expected '>' to end </a>");
  // a NUL byte: position of the byte
  xml_doc* d = NULL;
  csim_error e;
  ck_assert_int_eq(xml_parse("<a>\n x\0</a>", 10, "t.xml", &d, &e), CSIM_ERR_INPUT);
  ck_assert_int_eq(e.line, 2);
  ck_assert_int_eq(e.column, 3);
  ck_assert_ptr_nonnull(strstr(e.msg, "NUL byte"));
}
END_TEST

// deep nesting is handled iteratively, and a flat document with many children is linear
START_TEST(deep_and_wide) {
  int depth = 100000;
  size_t n = (size_t)depth * 7 + 16;
  char* s = malloc(n);
  size_t k = 0;
  for (int i = 0; i < depth; i++) k += (size_t)sprintf(s + k, "<a>");
  for (int i = 0; i < depth; i++) k += (size_t)sprintf(s + k, "</a>");
  xml_doc* d;
  csim_error e;
  ck_assert_int_eq(xml_parse(s, k, "deep", &d, &e), CSIM_OK);
  int lv = 0;
  for (const xml_node* c = d->root; c; c = c->children) lv++;
  ck_assert_int_eq(lv, depth);
  xml_free(d);
  // unclosed deep nesting: error names the innermost open element
  ck_assert_int_eq(xml_parse(s, (size_t)depth * 3, "deep", &d, &e), CSIM_ERR_INPUT);
  ck_assert_str_eq(e.key, "a");
  // wide: many siblings
  k = 0;
  k += (size_t)sprintf(s + k, "<r>");
  for (int i = 0; i < depth; i++) k += (size_t)sprintf(s + k, "<b/>");
  k += (size_t)sprintf(s + k, "</r>");
  ck_assert_int_eq(xml_parse(s, k, "wide", &d, &e), CSIM_OK);
  ck_assert_int_eq(d->root->nchild, depth);
  ck_assert_int_eq(xml_count(d->root, "b"), depth);
  xml_free(d);
  free(s);
}
END_TEST

// a real URDF parses; every truncation of it is an error (never a crash); garbage bytes too
START_TEST(truncation_and_garbage_sweep) {
  const char* path = "../shared/data/robots/double_pendulum/double_pendulum.urdf";  // CRLF
  size_t len = 0;
  char* text = slurp(path, &len);
  ck_assert_ptr_nonnull(text);
  xml_doc* d;
  csim_error e;
  ck_assert_int_eq(xml_parse_file(path, &d, &e), CSIM_OK);
  ck_assert_str_eq(d->root->name, "robot");
  ck_assert_int_eq(xml_count(d->root, "link"), 3);
  xml_free(d);
  // the last root end tag "</robot>" starts near the end: any cut before it is an error
  const char* endtag = strstr(text, "</robot>");
  ck_assert_ptr_nonnull(endtag);
  size_t last = (size_t)(endtag - text) + strlen("</robot>") - 1;
  int nerr = 0;
  for (size_t cut = 0; cut <= last; cut += 1) {
    csim_status st = xml_parse(text, cut, path, &d, &e);
    ck_assert_msg(st == CSIM_ERR_INPUT, "truncation at %zu accepted", cut);
    ck_assert_int_ge(e.line, 1);
    nerr++;
  }
  ck_assert_int_eq((size_t)nerr, last + 1);
  // random garbage overwrites: must return (either status), never crash; d freed when OK
  unsigned seed = 12345;
  char* buf = malloc(len);
  int bad = 0;
  for (int trial = 0; trial < 2000; trial++) {
    memcpy(buf, text, len);
    for (int k = 0; k < 1 + trial % 8; k++) {
      seed = seed * 1103515245u + 12345u;
      size_t at = (seed >> 8) % len;
      seed = seed * 1103515245u + 12345u;
      buf[at] = "<>/=\"'&;!?-[] \r\nx\0"[(seed >> 8) % 18];
    }
    if (xml_parse(buf, len, "garbage", &d, &e) == CSIM_OK) xml_free(d);
    else bad++;
  }
  ck_assert_int_gt(bad, 1000);
  free(buf);
  free(text);
}
END_TEST

// a missing file is an input error naming it
START_TEST(missing_file) {
  xml_doc* d;
  csim_error e;
  ck_assert_int_eq(xml_parse_file("tests/data/urdf/does_not_exist.urdf", &d, &e), CSIM_ERR_INPUT);
  ck_assert_str_eq(e.file, "tests/data/urdf/does_not_exist.urdf");
  ck_assert_ptr_nonnull(strstr(e.msg, "cannot open"));
}
END_TEST

// run the xml suite
int main(void) {
  Suite* s = suite_create("xml");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, dom_structure);
  tcase_add_test(tc, entities_and_text);
  tcase_add_test(tc, crlf_tabs_positions);
  tcase_add_test(tc, malformed_cases);
  tcase_add_test(tc, deep_and_wide);
  tcase_add_test(tc, truncation_and_garbage_sweep);
  tcase_add_test(tc, missing_file);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
