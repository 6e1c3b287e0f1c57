// Behaviour invariants of --fix (issue 41), checked on the text before and after the fixes. The
// checker reads Python statements with its own small tokenizer and compares them line by line: it
// uses none of planlint's analysis, so it does not share the fixers' blind spots.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace planlint::test {

// One logical Python statement: continuation lines joined, comments dropped.
struct PyStatement {
  std::size_t line = 0;    // its first physical line, 1-based
  std::size_t indent = 0;  // columns of indentation (a tab counts 8)
  std::string code;        // the statement as one line, string literals kept
  std::string bare;        // the same with every string literal emptied to ""
};

std::vector<PyStatement> python_statements(std::string_view source);

struct FixInvariantReport {
  std::vector<std::string> violations;  // "line N: what is wrong", empty when the fix keeps behaviour
  // What the comparison saw the fixes do (a test can check that it checked something).
  int caches_inserted = 0;
  int unpersists_inserted = 0;
  int single_partition_removed = 0;
};

// The invariants, for Python source before and after fixing:
// 1. no `coalesce(1)` / `repartition(1)` is removed in a file that handles written output as files
//    (moves, renames, copies or lists them, reads `part-` files or `partitions[0]`), nor inside a
//    function used as a streaming foreachBatch callback (or one it calls), nor in a foreachBatch lambda;
// 2. no `cache()` / `persist()` is inserted on a name that is rebound before its unpersist (or, without
//    one, later in its scope), or that is cached already (in the statement, or by a later statement);
// 3. no `name.unpersist()` is inserted before a `return` / `yield` of that name in the same function;
// 4. each inserted cache has exactly one `name.unpersist()` after it in the same block (inserted or
//    there before), and each inserted unpersist follows a cache of that name in its block.
FixInvariantReport check_fix_invariants(std::string_view original, std::string_view fixed);

// The Python code of a .py file, a Jupyter notebook or a Databricks notebook: its Python cells, joined.
std::string python_code_of(const std::string& path, const std::string& raw);

}  // namespace planlint::test
