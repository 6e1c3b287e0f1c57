// tree-sitter-python through Debian's tree-sitter 0.20 runtime (grammar ABI 14).
#include "pyspark/python_parser.hpp"

#include <tree_sitter/api.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python();

namespace planlint::pyspark {

void PythonTree::Deleter::operator()(TSTree* t) const { ts_tree_delete(t); }
void PythonParser::Deleter::operator()(TSParser* p) const { ts_parser_delete(p); }

PythonTree::PythonTree(TSTree* tree) : tree_(tree) {}

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
      // An ERROR that holds a smaller one (an invalid character inside the statements tree-sitter
      // gave up on) is reported where the smaller one is: that is where Python stops too.
      for (bool deeper = is_error; deeper;) {
        deeper = false;
        for (std::uint32_t i = 0, count = ts_node_child_count(n); i < count; ++i) {
          TSNode c = ts_node_child(n, i);
          if (std::strcmp(ts_node_type(c), "ERROR") == 0 || ts_node_is_missing(c)) {
            n = c;
            is_error = !ts_node_is_missing(c);
            deeper = is_error;
            break;
          }
        }
      }
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

std::optional<PythonTree> PythonParser::parse(std::string_view source) {
  TSTree* tree =
      ts_parser_parse_string(parser_.get(), nullptr, source.data(), static_cast<std::uint32_t>(source.size()));
  if (tree == nullptr) return std::nullopt;
  return PythonTree(tree);
}

std::optional<PythonTree> PythonParser::parse(std::string_view source, const SourceRange& range) {
  bool last = range.end >= source.size();
  if (range.begin == 0 && last) return parse(source);
  TSRange r{};
  r.start_point = TSPoint{range.line, 0};
  r.start_byte = range.begin;
  // The last run ends where the text does, wherever that is on its line.
  r.end_point = last ? TSPoint{UINT32_MAX, UINT32_MAX} : TSPoint{range.end_line, 0};
  r.end_byte = last ? UINT32_MAX : range.end;
  if (!ts_parser_set_included_ranges(parser_.get(), &r, 1)) return std::nullopt;
  TSTree* tree =
      ts_parser_parse_string(parser_.get(), nullptr, source.data(), static_cast<std::uint32_t>(source.size()));
  ts_parser_set_included_ranges(parser_.get(), nullptr, 0);  // back to the whole text
  if (tree == nullptr) return std::nullopt;
  return PythonTree(tree);
}

namespace {

bool starts_clause(std::string_view rest) {
  for (std::string_view kw : {"else", "elif", "except", "finally"}) {
    if (rest.substr(0, kw.size()) != kw) continue;
    char next = rest.size() > kw.size() ? rest[kw.size()] : ' ';
    if (std::isalnum(static_cast<unsigned char>(next)) == 0 && next != '_') return true;
  }
  return false;
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n'; }

// Whether s[i, i + 3) is three times the quote c.
bool three(std::string_view s, std::size_t i, char c) {
  return i + 2 < s.size() && s[i] == c && s[i + 1] == c && s[i + 2] == c;
}

}  // namespace

std::vector<SourceRange> top_level_ranges(std::string_view s, std::size_t target, std::size_t limit) {
  std::vector<SourceRange> out;
  const std::size_t n = s.size();
  std::uint32_t begin = 0, begin_line = 0, line = 0;
  if (n > target) {
    int depth = 0;           // open brackets
    char quote = 0;          // the quote of the string the scan is in, 0 outside strings
    bool triple = false;     // ... a triple-quoted one
    bool continued = false;  // the line before ended in a backslash
    bool decorator = false;  // the last statement at column 0 was a decorator
    bool at_start = true;
    auto cut = [&](std::size_t at) {
      out.push_back({begin, static_cast<std::uint32_t>(at), begin_line, line});
      begin = static_cast<std::uint32_t>(at);
      begin_line = line;
    };
    for (std::size_t i = 0; i < n;) {
      char c = s[i];
      if (at_start) {
        at_start = false;
        if (quote == 0 && depth == 0 && !continued) {
          if (!blank(c) && c != '#') {
            if (i - begin >= target && !decorator && !starts_clause(s.substr(i))) cut(i);
            decorator = c == '@';
          }
        } else if (i - begin >= limit && !blank(c)) {
          cut(i);
          depth = 0;
          quote = 0;
          decorator = false;
        }
        continued = false;
      }
      if (c == '\n') {
        ++line;
        if (!triple) quote = 0;  // a one-line string ends with its line (an error, but the line ends)
        at_start = true;
        ++i;
        continue;
      }
      if (quote != 0) {
        if (c == '\\') {
          // An escaped character; an escaped line break continues the string on the next line.
          std::size_t skip = i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n' ? 2 : 1;
          if (i + skip < n && s[i + skip] == '\n') {
            ++line;
            at_start = true;
          }
          i += skip + 1;
        } else if (c == quote && (!triple || three(s, i, quote))) {
          i += triple ? 3 : 1;
          quote = 0;
        } else {
          ++i;
        }
        continue;
      }
      if (c == '#') {
        std::size_t eol = s.find('\n', i);
        i = eol == std::string_view::npos ? n : eol;
        continue;
      }
      if (c == '"' || c == '\'') {
        quote = c;
        triple = three(s, i, c);
        i += triple ? 3 : 1;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
        --depth;
      } else if (c == '\\') {
        std::size_t next = i + 1 < n && s[i + 1] == '\r' ? i + 2 : i + 1;
        if (next < n && s[next] == '\n') continued = true;
      }
      ++i;
    }
  }
  out.push_back({begin, static_cast<std::uint32_t>(n), begin_line, line});
  return out;
}

}  // namespace planlint::pyspark
