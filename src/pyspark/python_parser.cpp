// tree-sitter-python through Debian's tree-sitter 0.20 runtime (grammar ABI 14).
#include "pyspark/python_parser.hpp"

#include <tree_sitter/api.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python();

namespace planlint::pyspark {

void PythonTree::Deleter::operator()(TSTree* t) const { ts_tree_delete(t); }
void PythonParser::Deleter::operator()(TSParser* p) const { ts_parser_delete(p); }

PythonTree::PythonTree(std::string source, TSTree* tree) : source_(std::move(source)), tree_(tree) {}

std::string PythonTree::sexp() const {
  char* s = ts_node_string(ts_tree_root_node(tree_.get()));
  if (s == nullptr) return {};
  std::string out(s);
  std::free(s);
  return out;
}

std::optional<SyntaxError> PythonTree::first_error() const {
  TSNode root = ts_tree_root_node(tree_.get());
  if (!ts_node_has_error(root)) return std::nullopt;
  // Depth-first search for the first ERROR or MISSING node; runtime 0.20 has no ts_node_is_error.
  std::vector<TSNode> stack{root};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    bool is_error = std::strcmp(ts_node_type(n), "ERROR") == 0;
    if (is_error || ts_node_is_missing(n)) {
      TSPoint p = ts_node_start_point(n);
      std::string msg = is_error ? "invalid Python syntax" : std::string("missing ") + ts_node_type(n);
      return SyntaxError{p.row + 1, p.column + 1, msg};
    }
    if (!ts_node_has_error(n)) continue;
    for (std::uint32_t i = ts_node_child_count(n); i > 0; --i) stack.push_back(ts_node_child(n, i - 1));
  }
  TSPoint p = ts_node_start_point(root);
  return SyntaxError{p.row + 1, p.column + 1, "invalid Python syntax"};
}

PythonParser::PythonParser() : parser_(ts_parser_new()) {
  if (!parser_) throw std::runtime_error("tree-sitter: cannot create a parser");
  if (!ts_parser_set_language(parser_.get(), tree_sitter_python()))
    throw std::runtime_error("tree-sitter-python: grammar ABI version not supported by the tree-sitter runtime");
}

std::optional<PythonTree> PythonParser::parse(std::string source) {
  TSTree* tree =
      ts_parser_parse_string(parser_.get(), nullptr, source.data(), static_cast<std::uint32_t>(source.size()));
  if (tree == nullptr) return std::nullopt;
  return PythonTree(std::move(source), tree);
}

}  // namespace planlint::pyspark
