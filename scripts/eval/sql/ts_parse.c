// Parse rate of a tree-sitter SQL grammar on extracted statements (extract.py's JSON lines, the text
// field only, one statement per line of stdin as JSON-escaped text is decoded by the caller).
// Reads NUL-separated statements on stdin; prints one line per statement: "ok" or "error <offset>".
// Build: cc -O2 ts_parse.c GRAMMAR/src/parser.c GRAMMAR/src/scanner.c -I GRAMMAR/src -ltree-sitter
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_sql(void);

static long first_error(TSNode n) {
  if (strcmp(ts_node_type(n), "ERROR") == 0 || ts_node_is_missing(n)) return (long)ts_node_start_byte(n);
  if (!ts_node_has_error(n)) return -1;
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
    long e = first_error(ts_node_child(n, i));
    if (e >= 0) return e;
  }
  return (long)ts_node_start_byte(n);
}

int main(void) {
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_sql());
  size_t cap = 1 << 20, len = 0;
  char *buf = malloc(cap);
  int c;
  for (;;) {
    c = getchar();
    if (c == EOF || c == 0) {
      if (len > 0 || c == 0) {
        TSTree *t = ts_parser_parse_string(p, NULL, buf, (uint32_t)len);
        long e = first_error(ts_tree_root_node(t));
        if (e < 0) puts("ok"); else printf("error %ld\n", e);
        ts_tree_delete(t);
      }
      len = 0;
      if (c == EOF) break;
      continue;
    }
    if (len + 1 >= cap) buf = realloc(buf, cap *= 2);
    buf[len++] = (char)c;
  }
  ts_parser_delete(p);
  return 0;
}
