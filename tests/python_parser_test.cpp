// The pinned tree-sitter-python grammar loads into Debian's runtime and parses modern Python.
#include <catch2/catch.hpp>

#include "pyspark/python_parser.hpp"

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
