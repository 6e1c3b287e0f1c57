// Splits SQL text at semicolons (outside quotes) and reads each SET statement with grammar/sql_set.hpp.
#include "pyspark/sql_settings.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

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

namespace planlint::pyspark {
namespace {

struct Literal {
  std::string value;
  bool is_string = false;
  std::size_t begin = 0, end = 0;            // the whole literal, quotes included
  std::size_t body_begin = 0, body_end = 0;  // between the quotes
};

std::size_t skip_space(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}

// A Scala string ("...", """...""") or a number / boolean at i; nullopt for anything else (s"...",
// names, expressions).
std::optional<Literal> scala_literal(std::string_view s, std::size_t i) {
  Literal l;
  l.begin = i;
  if (s.substr(i, 3) == "\"\"\"") {
    auto close = s.find("\"\"\"", i + 3);
    if (close == std::string_view::npos) return std::nullopt;
    l.is_string = true;
    l.body_begin = i + 3;
    l.body_end = close;
    l.value = std::string(s.substr(i + 3, close - i - 3));
    l.end = close + 3;
    return l;
  }
  if (i < s.size() && s[i] == '"') {
    std::size_t j = i + 1;
    for (; j < s.size() && s[j] != '"' && s[j] != '\n'; ++j) {
      if (s[j] == '\\') return std::nullopt;  // escapes: not worth decoding for a setting
      l.value += s[j];
    }
    if (j >= s.size() || s[j] != '"') return std::nullopt;
    l.is_string = true;
    l.body_begin = i + 1;
    l.body_end = j;
    l.end = j + 1;
    return l;
  }
  std::size_t j = i;
  while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '-' || s[j] == '.')) ++j;
  std::string word(s.substr(i, j - i));
  if (word.empty()) return std::nullopt;
  bool number = std::all_of(word.begin() + (word[0] == '-' ? 1 : 0), word.end(),
                            [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }) &&
                word != "-";
  if (!number && word != "true" && word != "false") return std::nullopt;
  l.value = word;
  l.body_begin = i;
  l.end = l.body_end = j;
  return l;
}

}  // namespace

std::vector<CodeSetting> scala_settings(std::string_view s) {
  std::vector<CodeSetting> out;
  auto followed_by_close = [&](std::size_t i) {
    i = skip_space(s, i);
    return i < s.size() && s[i] == ')';
  };
  for (std::size_t i = 0; i < s.size();) {
    // Comments and strings are skipped whole, so a call written inside them does not count.
    if (s.substr(i, 2) == "//") {
      auto nl = s.find('\n', i);
      i = nl == std::string_view::npos ? s.size() : nl;
      continue;
    }
    if (s.substr(i, 2) == "/*") {
      auto close = s.find("*/", i + 2);
      i = close == std::string_view::npos ? s.size() : close + 2;
      continue;
    }
    if (s[i] == '"') {
      auto lit = scala_literal(s, i);
      std::size_t next = lit ? lit->end : s.find('"', i + 1);
      i = next == std::string_view::npos ? s.size() : std::max(next, i + 1);
      continue;
    }
    bool word_start = i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_');
    std::string_view via;
    std::size_t open = 0;
    for (std::string_view needle :
         {std::string_view("conf.set("), std::string_view("setConf("), std::string_view("sql(")}) {
      if (word_start && s.substr(i, needle.size()) == needle) {
        via = needle;
        open = i + needle.size();
        break;
      }
    }
    if (via.empty()) {
      ++i;
      continue;
    }
    std::size_t call_begin = i;
    while (call_begin > 0 && (std::isalnum(static_cast<unsigned char>(s[call_begin - 1])) || s[call_begin - 1] == '_' ||
                              s[call_begin - 1] == '.'))
      --call_begin;
    auto key = scala_literal(s, skip_space(s, open));
    if (!key || !key->is_string) {
      i = open;
      continue;
    }
    if (via == "sql(") {
      if (followed_by_close(key->end))
        for (auto& st : sql_set_statements(key->value)) {
          CodeSetting c;
          c.key = st.key;
          c.value = st.value;
          c.literal = true;
          c.begin = key->body_begin + st.begin;
          c.end = key->body_begin + st.end;
          c.value_begin = key->body_begin + st.value_begin;
          c.value_end = key->body_begin + st.value_end;
          c.via = "SQL SET";
          out.push_back(std::move(c));
        }
      i = key->end;
      continue;
    }
    std::size_t comma = skip_space(s, key->end);
    if (comma >= s.size() || s[comma] != ',') {
      i = key->end;
      continue;
    }
    std::size_t vstart = skip_space(s, comma + 1);
    auto value = scala_literal(s, vstart);
    CodeSetting c;
    c.key = key->value;
    c.via = via == "setConf(" ? "setConf" : "conf.set";
    c.begin = call_begin;
    c.value_begin = vstart;
    if (value && followed_by_close(value->end)) {
      c.value = value->value;
      c.literal = true;
      c.value_end = value->end;
    } else {
      std::size_t close = s.find(')', vstart);
      c.value_end = close == std::string_view::npos ? s.size() : close;
      c.value = std::string(s.substr(vstart, c.value_end - vstart));
    }
    std::size_t close = s.find(')', c.value_end);
    c.end = close == std::string_view::npos ? s.size() : close + 1;
    i = std::max(c.end, i + 1);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace planlint::pyspark
