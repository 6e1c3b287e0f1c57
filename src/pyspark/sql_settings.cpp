// Splits SQL text at semicolons (outside quotes) and reads each SET statement with grammar/sql_set.hpp.
#include "pyspark/sql_settings.hpp"

#include "../../grammar/sql_set.hpp"

namespace planlint::pyspark {
namespace {

namespace pegtl = tao::pegtl;
namespace g = planlint::grammar::sql;

struct State {
  const char* base;
  SqlSet s;
};
template <typename Rule>
struct action : pegtl::nothing<Rule> {};
template <>
struct action<g::key> {
  template <typename In>
  static void apply(const In& in, State& st) {
    st.s.key = in.string();
  }
};
template <>
struct action<g::value> {
  template <typename In>
  static void apply(const In& in, State& st) {
    std::string v = in.string();
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.pop_back();
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"' || v.front() == '`') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    st.s.value = v;
    st.s.value_begin = static_cast<std::size_t>(in.begin() - st.base);
    st.s.value_end = st.s.value_begin + in.size();
  }
};
template <>
struct action<g::set_keyword> {
  template <typename In>
  static void apply(const In& in, State& st) {
    st.s.begin = static_cast<std::size_t>(in.begin() - st.base);
  }
};
template <>
struct action<g::set_statement> {
  template <typename In>
  static void apply(const In& in, State& st) {
    st.s.end = static_cast<std::size_t>(in.end() - st.base);
  }
};

}  // namespace

std::vector<SqlSet> sql_set_statements(std::string_view sql) {
  std::vector<SqlSet> out;
  std::size_t start = 0;
  char quote = 0;
  for (std::size_t i = 0; i <= sql.size(); ++i) {
    char c = i < sql.size() ? sql[i] : ';';
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (c != ';') continue;
    std::string_view stmt = sql.substr(start, i - start);
    State st{sql.data(), {}};
    st.s.begin = start;
    pegtl::memory_input<pegtl::tracking_mode::lazy> in(stmt.data(), stmt.size(), "");
    if (pegtl::parse<g::set_statement, action>(in, st)) out.push_back(std::move(st.s));
    start = i + 1;
  }
  return out;
}

}  // namespace planlint::pyspark
