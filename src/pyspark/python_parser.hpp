// RAII wrappers around the tree-sitter runtime and the tree-sitter-python grammar: the start of the
// PySpark source frontend. Every handle from the C library is owned here and every return checked.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct TSParser;
struct TSTree;

namespace planlint::pyspark {

struct SyntaxError {
  std::uint32_t line = 0;    // 1-based
  std::uint32_t column = 0;  // 1-based, bytes
  std::string message;
};

// A syntax tree over text the caller keeps alive (its nodes' byte offsets index that text).
class PythonTree {
 public:
  explicit PythonTree(TSTree* tree);
  [[nodiscard]] TSTree* get() const { return tree_.get(); }
  [[nodiscard]] std::string sexp() const;  // the concrete syntax tree as an S-expression
  [[nodiscard]] std::optional<SyntaxError> first_error() const;

 private:
  struct Deleter {
    void operator()(TSTree* t) const;
  };
  std::unique_ptr<TSTree, Deleter> tree_;
};

// A run of whole top-level statements: bytes [begin, end), starting on line `line` (0-based).
struct SourceRange {
  std::uint32_t begin = 0, end = 0;
  std::uint32_t line = 0, end_line = 0;
};

class PythonParser {
 public:
  PythonParser();  // throws std::runtime_error if the grammar's ABI does not match the runtime
  // nullopt only when tree-sitter gives up (timeout or cancellation); syntax errors are in the tree.
  std::optional<PythonTree> parse(std::string_view source);
  // Only source[range.begin, range.end), which must start at a line start; nodes keep their
  // positions in the whole source (lines, columns and bytes).
  std::optional<PythonTree> parse(std::string_view source, const SourceRange& range);

 private:
  struct Deleter {
    void operator()(TSParser* p) const;
  };
  std::unique_ptr<TSParser, Deleter> parser_;
};

// The module cut into runs of top-level statements of about `target` bytes each, so that a large
// file is parsed (and its syntax tree held) one run at a time. A cut falls only before a line that
// starts a statement at column 0, outside brackets, strings and continued lines, and not before
// `else`/`elif`/`except`/`finally` nor between a decorator and what it decorates. Text with no such
// line for `limit` bytes (an unclosed bracket or string) is cut at the next unindented line anyway,
// so that no run is ever much longer than that. A text of at most `target` bytes is one run.
std::vector<SourceRange> top_level_ranges(std::string_view source, std::size_t target, std::size_t limit);

}  // namespace planlint::pyspark
