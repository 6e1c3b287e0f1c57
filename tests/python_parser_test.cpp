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
