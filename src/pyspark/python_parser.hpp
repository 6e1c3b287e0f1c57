// RAII wrappers around the tree-sitter runtime and the tree-sitter-python grammar: the start of the
// PySpark source frontend. Every handle from the C library is owned here and every return checked.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct TSParser;
struct TSTree;

namespace planlint::pyspark {

struct SyntaxError {
  std::uint32_t line = 0;    // 1-based
  std::uint32_t column = 0;  // 1-based, bytes
  std::string message;
};

class PythonTree {
 public:
  PythonTree(std::string source, TSTree* tree);
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] TSTree* get() const { return tree_.get(); }
  [[nodiscard]] std::string sexp() const;  // the concrete syntax tree as an S-expression
  [[nodiscard]] std::optional<SyntaxError> first_error() const;

 private:
  struct Deleter {
    void operator()(TSTree* t) const;
  };
  std::string source_;
  std::unique_ptr<TSTree, Deleter> tree_;
};

class PythonParser {
 public:
  PythonParser();  // throws std::runtime_error if the grammar's ABI does not match the runtime
  // nullopt only when tree-sitter gives up (timeout or cancellation); syntax errors are in the tree.
  std::optional<PythonTree> parse(std::string source);

 private:
  struct Deleter {
    void operator()(TSParser* p) const;
  };
  std::unique_ptr<TSParser, Deleter> parser_;
};

}  // namespace planlint::pyspark
