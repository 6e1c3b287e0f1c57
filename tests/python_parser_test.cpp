// The pinned tree-sitter-python grammar loads into Debian's runtime and parses modern Python.
#include <catch2/catch.hpp>

#include <tree_sitter/api.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pyspark/python_parser.hpp"
#include "pyspark/syntax_tree.hpp"
#include "util/name_set.hpp"

using planlint::pyspark::PythonParser;

TEST_CASE("tree-sitter-python parses PySpark code", "[pyspark]") {
  PythonParser parser;
  auto tree =
      parser.parse("from pyspark.sql import functions as F\ndf = spark.read.parquet('x').groupBy('k').count()\n");
  REQUIRE(tree);
  CHECK(!tree->first_error());
  CHECK(tree->sexp().rfind("(module (import_from_statement", 0) == 0);
}

TEST_CASE("modern syntax: match, except*, PEP 695 and 701", "[pyspark]") {
  PythonParser parser;
  const char* src =
      "match cmd:\n    case [x, y]:\n        pass\n"
      "try:\n    pass\nexcept* ValueError:\n    pass\n"
      "type Alias[T] = list[T]\n"
      "s = f\"{'nested' + f'{x}'}\"\n";
  auto tree = parser.parse(src);
  REQUIRE(tree);
  CHECK(!tree->first_error());
}

TEST_CASE("invalid syntax is reported with a position", "[pyspark]") {
  PythonParser parser;
  auto tree = parser.parse("x = 1\ndef f(:\n    pass\n");
  REQUIRE(tree);
  auto err = tree->first_error();
  REQUIRE(err);
  CHECK(err->line == 2);
}

// tree-sitter wraps what it gave up on (here the whole module) in an ERROR and the first offending
// token in a smaller one: the report is at the smaller one, near where Python stops (line 4, an
// unexpected indent), not at the start of the file.
TEST_CASE("a syntax error is reported at the innermost error, not where recovery began", "[pyspark]") {
  PythonParser parser;
  auto tree = parser.parse(
      "from pyspark.sql import functions as F\n\nquery = aggregatedDF\n  .writeStream\n  .format(\"x\")\n");
  REQUIRE(tree);
  auto err = tree->first_error();
  REQUIRE(err);
  CHECK(err->line == 3);
  CHECK(err->column == 21);
}

namespace {
using planlint::pyspark::SourceRange;
using planlint::pyspark::top_level_ranges;

// Where the runs start, as the text of their first lines.
std::vector<std::string> run_starts(std::string_view src, std::size_t target, std::size_t limit = 1 << 20) {
  std::vector<std::string> out;
  std::uint32_t expected_begin = 0;
  for (const SourceRange& r : top_level_ranges(src, target, limit)) {
    CHECK(r.begin == expected_begin);  // the runs cover the text, in order, without overlap
    expected_begin = r.end;
    std::string_view rest = src.substr(r.begin);
    out.emplace_back(rest.substr(0, rest.find('\n')));
  }
  CHECK(expected_begin == src.size());
  return out;
}
}  // namespace

TEST_CASE("a module is cut only before top-level statements", "[pyspark]") {
  using V = std::vector<std::string>;
  // Text no longer than the target is one run.
  CHECK(run_starts("a = 1\nb = 2\n", 100) == V{"a = 1"});
  // Cut before every statement (target 1): not inside brackets, strings or continued lines, not
  // before else/except/finally, not between a decorator and its def, not before comments or blanks.
  const char* src =
      "a = (1,\n"
      "2)\n"
      "s = '''x\n"
      "y = 2\n"
      "'''\n"
      "t = \"\\\"(\" + 'it''s'\n"
      "u = 1 + \\\n"
      "3\n"
      "# a comment\n"
      "\n"
      "@decorator\n"
      "# between\n"
      "def f():\n"
      "    return 1\n"
      "if a:\n"
      "    pass\n"
      "else:\n"
      "    pass\n"
      "try:\n"
      "    pass\n"
      "except Exception:\n"
      "    pass\n"
      "finally:\n"
      "    pass\n"
      "elsewhere = 1  # x = (\n"
      "v = 'unclosed\n"
      "w = 4\n";
  CHECK(run_starts(src, 1) == V{"a = (1,", "s = '''x", "t = \"\\\"(\" + 'it''s'", "u = 1 + \\", "@decorator",
                                "if a:", "try:", "elsewhere = 1  # x = (", "v = 'unclosed", "w = 4"});
  // With a larger target, a run holds statements until it has that many bytes.
  CHECK(run_starts("a = 1\nb = 2\nc = 3\nd = 4\n", 10) == V{"a = 1", "c = 3"});
}

TEST_CASE("an unclosed bracket does not make one endless run", "[pyspark]") {
  std::string src = "x = (\n";
  for (int i = 0; i < 100; ++i) src += "y" + std::to_string(i) + " = 1\n";
  auto runs = top_level_ranges(src, 1, 200);
  REQUIRE(runs.size() > 1);
  for (const auto& r : runs) CHECK(r.end - r.begin < 220);
}

TEST_CASE("a run keeps the positions of the whole text", "[pyspark]") {
  PythonParser parser;
  std::string src = "a = 1\nb = 2\nc = (\n";
  auto runs = top_level_ranges(src, 1, 1 << 20);
  REQUIRE(runs.size() == 3);
  CHECK(runs[2].line == 2);
  auto first = parser.parse(src, runs[0]);
  REQUIRE(first);
  CHECK(!first->first_error());
  auto last = parser.parse(src, runs[2]);
  REQUIRE(last);
  auto err = last->first_error();
  REQUIRE(err);
  CHECK(err->line == 3);
  // The parser reads the whole text again after a run.
  auto whole = parser.parse(src);
  REQUIRE(whole);
  CHECK(whole->sexp().rfind("(module (expression_statement (assignment", 0) == 0);
}

// planlint's copy of a tree (syntax_tree.hpp) against tree-sitter's own node API, node by node:
// type, bytes, named flag, children in order, and for every field of the language the child
// ts_node_child_by_field_id gives. Over every Python fixture and a few shapes of hidden nodes.
namespace {
using planlint::pyspark::Node;
using planlint::pyspark::SyntaxTree;

extern "C" const TSLanguage* tree_sitter_python();

int compared_nodes = 0;

void compare(TSNode t, Node n) {
  REQUIRE(n != nullptr);
  ++compared_nodes;
  REQUIRE(n->symbol == ts_node_symbol(t));
  REQUIRE(n->start_byte == ts_node_start_byte(t));
  REQUIRE(n->end_byte == ts_node_end_byte(t));
  REQUIRE(n->named == ts_node_is_named(t));
  REQUIRE(n->child_count == ts_node_child_count(t));
  REQUIRE(n->named_count == ts_node_named_child_count(t));
  // Children by a cursor (ts_node_child is quadratic; the cursor is what tree-sitter documents).
  std::vector<TSNode> kids;
  TSTreeCursor cursor = ts_tree_cursor_new(t);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      kids.push_back(ts_tree_cursor_current_node(&cursor));
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  REQUIRE(kids.size() == n->child_count);
  std::size_t named = 0;
  for (std::size_t i = 0; i < kids.size(); ++i) {
    Node c = planlint::pyspark::children(n)[i];
    if (ts_node_is_named(kids[i])) {
      REQUIRE(planlint::pyspark::named_children(n)[named] == c);
      ++named;
    }
    compare(kids[i], c);
  }
  const std::uint32_t fields = ts_language_field_count(tree_sitter_python());
  for (TSFieldId f = 1; f <= fields; ++f) {
    TSNode want = ts_node_child_by_field_id(t, f);
    Node got = planlint::pyspark::child_by_field(n, f);
    INFO("field " << ts_language_field_name_for_id(tree_sitter_python(), f) << " of " << ts_node_type(t) << " at byte "
                  << ts_node_start_byte(t));
    // tree-sitter's node API also finds a field inherited through a visible (aliased) child:
    // match_statement's `alternative`, which are the case clauses inside its block. The copy gives
    // the field where the cursor gives it, to the block's children; the analyzer never asks the
    // statement for it.
    const bool direct = std::any_of(kids.begin(), kids.end(), [&](TSNode k) { return ts_node_eq(k, want); });
    if (ts_node_is_null(want) || !direct) {
      REQUIRE(got == nullptr);
    } else {
      REQUIRE(got != nullptr);
      CHECK(got->start_byte == ts_node_start_byte(want));
      CHECK(got->end_byte == ts_node_end_byte(want));
      CHECK(got->symbol == ts_node_symbol(want));
    }
  }
}

void compare_copy(const std::string& src) {
  PythonParser parser;
  auto tree = parser.parse(src);
  REQUIRE(tree);
  SyntaxTree copy;
  copy.build(tree->get());
  REQUIRE(copy.size() > 0);
  // Document order: each node starts at or after the one before it.
  for (std::size_t i = 1; i < copy.nodes().size(); ++i)
    REQUIRE(copy.nodes()[i].start_byte >= copy.nodes()[i - 1].start_byte);
  compare(ts_tree_root_node(tree->get()), copy.root());
}
}  // namespace

TEST_CASE("planlint's copy of a syntax tree answers as tree-sitter's node API does", "[pyspark]") {
  compared_nodes = 0;
  compare_copy("");
  compare_copy("x");
  compare_copy("if a:\n    b = 1\nelif c:\n    d()\nelif e:\n    pass\nelse:\n    f = [x for x in y if x]\n");
  compare_copy("@udf('int')\ndef f(a: int, *args, b=2, **kw) -> int:\n    return lambda x, y=1: (x, y)\n");
  compare_copy(
      "df = (spark.read.parquet('p')  # why\n      .filter(F.col('a') > 1)\n      .groupBy('k').agg(F.sum('v')))\n");
  compare_copy("from a.b import (c as d, e)\nimport f.g as h\ns = f\"{x!r:>10}\" 'y' \"\"\"z\"\"\"\n");
  compare_copy("def g(:\n  pass\n");  // error recovery: ERROR and MISSING nodes are copied too
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(PLANLINT_FIXTURES_DIR "/source")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    INFO(entry.path().string());
    compare_copy(text.str());
    ++files;
  }
  CHECK(files > 20);
  CHECK(compared_nodes > 10000);
}

TEST_CASE("a NameSet answers as a set of its names does", "[pyspark]") {
  const planlint::util::NameSet set{"map", "flatMap", "mapValues", "count", "countByKey", "a", "map"};
  CHECK(set.size() == 6);  // "map" is listed twice
  for (std::string_view n : {"map", "flatMap", "mapValues", "count", "countByKey", "a"}) {
    CHECK(set.contains(n));
    CHECK(set.count(n) == 1);
  }
  // Near misses: same length, same first/last/middle characters, prefixes, case, empty.
  for (std::string_view n : {"mop", "Map", "ma", "maps", "flatMapx", "countByKe", "", "b", "coumt", "mapvalues"}) {
    CHECK_FALSE(set.contains(n));
    CHECK(set.count(n) == 0);
  }
  // Many names with the same length and ends land in the same slots: still found, still exact.
  std::vector<std::string> many;
  for (char c = 'a'; c <= 'z'; ++c) many.push_back(std::string("x") + c + "y");
  const planlint::util::NameSet same_ends{many[0], many[1], many[2], many[3], many[4], many[5], many[6], many[7]};
  for (int i = 0; i < 8; ++i) CHECK(same_ends.contains(many[i]));
  for (int i = 8; i < 26; ++i) CHECK_FALSE(same_ends.contains(many[i]));
  const planlint::util::NameSet empty{};
  CHECK_FALSE(empty.contains("map"));
}

// Reading tree-sitter's subtrees directly (ts_walk.c) gives the copy the cursor walk gives, field for
// field: on every Python fixture, parsed whole and in runs of top-level statements (the included
// ranges large files are parsed with), and cut at every 61st byte (trees full of ERROR and MISSING
// nodes, extras and hidden nodes in recovered positions).
namespace {

void require_same_copy(const TSTree* tree) {
  SyntaxTree direct;
  SyntaxTree cursor;
  direct.build(tree);
  cursor.build_with_cursor(tree);
  REQUIRE(direct.size() == cursor.size());
  for (std::size_t i = 0; i < direct.size(); ++i) {
    const auto& a = direct.nodes()[i];
    const auto& b = cursor.nodes()[i];
    INFO("node " << i << " at byte " << b.start_byte);
    REQUIRE(a.start_byte == b.start_byte);
    REQUIRE(a.end_byte == b.end_byte);
    REQUIRE(a.symbol == b.symbol);
    REQUIRE(a.field == b.field);
    REQUIRE(a.named == b.named);
    REQUIRE(a.child_count == b.child_count);
    REQUIRE(a.named_count == b.named_count);
    for (std::uint32_t k = 0; k < a.child_count + a.named_count; ++k)
      REQUIRE(a.kids[k] - direct.root() == b.kids[k] - cursor.root());
  }
}

}  // namespace

TEST_CASE("reading subtrees directly gives the cursor walk's copy", "[pyspark]") {
  INFO("direct reading built in: " << SyntaxTree::reads_subtrees());
  PythonParser parser;
  std::size_t trees = 0;
  auto check = [&](const std::string& src) {
    auto whole = parser.parse(src);
    REQUIRE(whole);
    require_same_copy(whole->get());
    for (const auto& range : planlint::pyspark::top_level_ranges(src, 256, 4096)) {
      auto run = parser.parse(src, range);
      REQUIRE(run);
      require_same_copy(run->get());
    }
    trees += 1;
  };
  check("");
  check("\n\n# only a comment\n");
  check("match x:\n    case {'a': [1, *rest]} if rest:\n        pass\n    case Point(x=0) | None:\n        pass\n");
  check("print 'py2'\nexec code in ns\n");
  check("x = (((((((((1)))))))))\r\nif a:\r\n\tb = c[d:e, ::2]\r\n");
  check("@a.b(c)\n@d\nclass E(F, metaclass=G):\n    '''doc'''\n    def h(self, *, i: 'J' = k) -> L: ...\n");
  check("s = 'a' 'b' f'{c!r}' rb'\\x00'\nt = u'\\u00e9' + '\xc3\xa9'\nlambda: (yield)\nasync def m():\n  await n\n");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(PLANLINT_FIXTURES_DIR "/source")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string src = text.str();
    INFO(entry.path().string());
    check(src);
    for (std::size_t cut = 61; cut < src.size(); cut += 61) check(src.substr(0, cut));
  }
  CHECK(trees > 600);
}
