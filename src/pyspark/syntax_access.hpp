// Reading planlint's copy of a tree-sitter-python syntax tree: node helpers, field ids and node type
// tests, each name looked up in the language once. Internal to the source analysis (rules see the
// SourceModel, never a Node).
#pragma once

#include <tree_sitter/api.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "pyspark/syntax_tree.hpp"

namespace planlint::pyspark::detail {

// The analysis reads planlint's copy of each syntax tree (syntax_tree.hpp): a node's children and
// fields are arrays there, where tree-sitter 0.20's node API walks the siblings from the first on
// every ts_node_child / ts_node_child_by_field_id call. A missing field, or a child past the last,
// is a null Node, and every helper here accepts one.
inline bool is_null(Node n) { return n == nullptr; }

inline std::uint32_t named_count(Node n) { return is_null(n) ? 0 : n->named_count; }
inline std::uint32_t child_count(Node n) { return is_null(n) ? 0 : n->child_count; }
inline bool is_named(Node n) { return !is_null(n) && n->named; }
inline std::uint32_t node_start(Node n) { return is_null(n) ? 0 : n->start_byte; }
inline std::uint32_t node_end(Node n) { return is_null(n) ? 0 : n->end_byte; }
inline NodeSpan all_children(Node n) { return children(n); }
inline Node nth_child(Node n, std::uint32_t i) { return i < child_count(n) ? n->kids[i] : nullptr; }
inline Node nth_named(Node n, std::uint32_t i) { return i < named_count(n) ? n->kids[n->child_count + i] : nullptr; }

extern "C" const TSLanguage* tree_sitter_python();

// Node type names by symbol (defined in syntax_access.cpp).
extern const std::vector<std::string_view> kSymbolNames;

inline std::string_view node_type(Node n) {
  if (is_null(n)) return {};
  return n->symbol < kSymbolNames.size() ? kSymbolNames[n->symbol] : std::string_view{};
}

// A node's type name, compared with literals inline: a length check, then a memcmp of a constant
// size (std::string_view's operator== was a call per comparison in visit()).
struct TypeName {
  std::string_view name;
  template <std::size_t N>
  bool operator==(const char (&t)[N]) const {
    return name.size() == N - 1 && std::memcmp(name.data(), t, N - 1) == 0;
  }
};

// A string literal as a template argument: field<"body">(n) and is<"call">(n) look the name up in
// the language once per name (a function-local static), and then compare integers.
template <std::size_t N>
struct Literal {
  std::array<char, N> text{};
  constexpr Literal(const char (&s)[N]) {  // NOLINT(google-explicit-constructor): literals convert
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
};

// Namespace-scope variable templates, not function-local statics: no guard to test on every call, so
// field<> and is<> inline to a load and a compare. Initialised before main from the language alone
// (a constant table), in no particular order, so they read nothing else initialised dynamically.
template <Literal Name>
const TSFieldId kFieldId = ts_language_field_id_for_name(tree_sitter_python(), Name.text.data(),
                                                         static_cast<std::uint32_t>(Name.text.size() - 1));

template <Literal Name>
Node field(Node n) {
  return is_null(n) ? n : child_by_field(n, kFieldId<Name>);
}

constexpr std::size_t kMaxSymbols = 1024;  // tree-sitter-python has about 280

// The grammar's symbols (below kMaxSymbols) sorted by type name, built on first use: a walk over
// every symbol for each of the 30-odd type sets below was 0.7 M instructions at every start.
inline const std::vector<std::pair<std::string_view, std::uint32_t>>& symbols_by_name() {
  static const std::vector<std::pair<std::string_view, std::uint32_t>> table = [] {
    std::vector<std::pair<std::string_view, std::uint32_t>> t;
    const TSLanguage* lang = tree_sitter_python();
    const std::uint32_t count = ts_language_symbol_count(lang);
    for (std::uint32_t i = 0; i < count && i < kMaxSymbols; ++i) {
      const char* symbol = ts_language_symbol_name(lang, static_cast<TSSymbol>(i));
      if (symbol != nullptr) t.emplace_back(symbol, i);
    }
    std::sort(t.begin(), t.end());
    return t;
  }();
  return table;
}

// f(symbol, k) for each symbol (below kMaxSymbols) whose type name is names[k] (a name can be both
// a named and an anonymous symbol).
template <class F>
void for_each_symbol_named(std::initializer_list<std::string_view> names, F&& f) {
  const auto& table = symbols_by_name();
  std::size_t k = 0;
  for (std::string_view name : names) {
    auto it = std::lower_bound(table.begin(), table.end(), name,
                               [](const auto& entry, std::string_view n) { return entry.first < n; });
    for (; it != table.end() && it->first == name; ++it) f(it->second, k);
    ++k;
  }
}

// The symbols whose type name is `name`, or any of `names`.
class TypeSet {
 public:
  explicit TypeSet(std::string_view name) : TypeSet({name}) {}
  TypeSet(std::initializer_list<std::string_view> names) {
    for_each_symbol_named(names, [&](std::uint32_t i, std::size_t) { bits_[i / 64] |= std::uint64_t{1} << (i % 64); });
  }
  // Inlined at every is<>: a call per type test was 0.4 % of a run.
  [[nodiscard, gnu::always_inline]] bool contains(Node n) const {
    return !is_null(n) && n->symbol < kMaxSymbols && ((bits_[n->symbol / 64] >> (n->symbol % 64)) & 1U) != 0;
  }

 private:
  std::array<std::uint64_t, kMaxSymbols / 64> bits_{};
};

template <Literal Name>
const TypeSet kTypeSet{std::string_view(Name.text.data(), Name.text.size() - 1)};

template <Literal Name>
[[gnu::always_inline]] inline bool is(Node n) {
  return kTypeSet<Name>.contains(n);
}

// Which of a few types a node is, as its place in a list of type names (1 for the first; 0 for none
// of them): one load, where a test per type was a load, a shift and a branch each.
class TypeIndex {
 public:
  TypeIndex(std::initializer_list<std::string_view> names) {
    for_each_symbol_named(names, [&](std::uint32_t i, std::size_t k) { index_[i] = static_cast<std::uint8_t>(k + 1); });
  }
  [[nodiscard, gnu::always_inline]] std::uint8_t of(Node n) const {
    return n == nullptr || n->symbol >= kMaxSymbols ? 0 : index_[n->symbol];
  }

 private:
  std::array<std::uint8_t, kMaxSymbols> index_{};
};

// What the grammar allows anywhere and is not part of an expression: a comment, or a backslash
// line continuation (`[a, \` newline `b]`). Lists, arguments and blocks are counted without them.
inline bool is_extra(Node n) { return is<"comment">(n) || is<"line_continuation">(n); }

// The items of a list, tuple, set, dictionary or argument list.
inline std::uint32_t item_count(Node n) {
  std::uint32_t count = 0;
  for (std::uint32_t i = 0; i < named_count(n); ++i) count += is_extra(nth_named(n, i)) ? 0 : 1;
  return count;
}

// (expr) -> expr, also when comments sit inside the parentheses (black-style chains end with one).
inline Node unparen(Node n) {
  for (int guard = 0; guard < 1000 && is<"parenthesized_expression">(n); ++guard) {
    Node inner{};
    int exprs = 0;
    for (Node c : named_children(n)) {
      if (is_extra(c)) continue;
      inner = c;
      ++exprs;
    }
    if (exprs != 1) return n;
    n = inner;
  }
  return n;
}

}  // namespace planlint::pyspark::detail
