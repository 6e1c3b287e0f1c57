// libFuzzer entry: any bytes as a .py file through every source rule, the fixer and the reports.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fix/fixer.hpp"
#include "fuzz_util.hpp"
#include "pyspark/notebook.hpp"
#include "pyspark/python_parser.hpp"
#include "pyspark/syntax_tree.hpp"

namespace {

bool same_node(const planlint::pyspark::SyntaxNode& a, const planlint::pyspark::SyntaxNode& b,
               const planlint::pyspark::SyntaxNode* a0, const planlint::pyspark::SyntaxNode* b0) {
  if (a.start_byte != b.start_byte || a.end_byte != b.end_byte || a.symbol != b.symbol || a.field != b.field ||
      a.named != b.named || a.child_count != b.child_count || a.named_count != b.named_count)
    return false;
  for (std::uint32_t i = 0; i < a.child_count + a.named_count; ++i)
    if (a.kids[i] - a0 != b.kids[i] - b0) return false;
  return true;
}

// planlint's copy of the input's syntax tree is the same whether read from tree-sitter's subtrees or
// through its cursor API.
void check_tree_copy(const std::string& text) {
  planlint::pyspark::PythonParser parser;
  auto tree = parser.parse(text);
  if (!tree) return;
  planlint::pyspark::SyntaxTree direct, cursor;
  direct.build(tree->get());
  cursor.build_with_cursor(tree->get());
  if (direct.size() != cursor.size()) __builtin_trap();
  for (std::size_t i = 0; i < direct.size(); ++i)
    if (!same_node(direct.nodes()[i], cursor.nodes()[i], direct.root(), cursor.root())) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  // A file is held in pieces (a Databricks notebook's Python cells and what is between them): they
  // are the file, byte for byte.
  if (planlint::pyspark::whole_raw(planlint::pyspark::load_source("fuzz.py", text)) != text) __builtin_trap();
  check_tree_copy(text);
  planlint::lint::LintOptions options;
  options.select = {"ALL"};
  planlint::fix::FixOptions fix;
  fix.unsafe = true;
  fix.max_rounds = 3;
  auto out = planlint::fix::fix_text("fuzz.py", text, options, fix);
  planlint::fuzz::check_reports({out.remaining});
  return 0;
}
