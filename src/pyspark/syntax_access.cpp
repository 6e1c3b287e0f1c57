// The grammar's node type names by symbol, read from tree-sitter-python's language once.
#include "pyspark/syntax_access.hpp"

#include <tree_sitter/api.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "pyspark/model.hpp"

namespace planlint::pyspark {
namespace detail {

// Node type names by symbol, read from the language once: is_type is called millions of times on
// a repository, and with the literal's length known where it is inlined the test is a length
// check and a short memcmp instead of ts_node_type + strcmp.
// Filled before main (tree_sitter_python() returns a constant table), so is_type pays no guard.
const std::vector<std::string_view> kSymbolNames = [] {
  std::vector<std::string_view> v;
  const TSLanguage* lang = tree_sitter_python();
  std::uint32_t count = ts_language_symbol_count(lang);
  v.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const char* name = ts_language_symbol_name(lang, static_cast<TSSymbol>(i));
    v.emplace_back(name == nullptr ? "" : name);
  }
  return v;
}();

}  // namespace detail

std::string_view Kind::name() const {
  return symbol_ < detail::kSymbolNames.size() ? detail::kSymbolNames[symbol_] : std::string_view{};
}

}  // namespace planlint::pyspark
