// The SQL text of `spark.sql(...)` read for what it tells of rows: a metadata statement, a global
// aggregate, LIMIT n, a grouped query, a lookup by key, a join or union of tables (dataflow.cpp asks).
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "pyspark/dataflow_text.hpp"
#include "util/name_set.hpp"

namespace planlint::pyspark::detail {

std::string joined_literals(std::string_view t) {
  std::string out;
  std::size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\' || c == '(' || c == ')' || c == '+') {
      ++i;
      continue;
    }
    if (c == '#') {  // a comment between parts
      while (i < t.size() && t[i] != '\n') ++i;
      continue;
    }
    // "... {} ...".format(x), "... %s ..." % x: the placeholders stay in the text as opaque names.
    if (!out.empty() && (t.substr(i).starts_with(".format(") || c == '%')) return out;
    const std::size_t word = i;
    while (i < t.size() && std::isalpha(static_cast<unsigned char>(t[i]))) ++i;  // f, r, b, rb... prefixes
    // `"... WHERE a = 1" + clause`: a name (an attribute, a call) added to the text stays in it as an
    // opaque placeholder, as an f-string's `{clause}` does. Text that starts with one is not known.
    if (i > word && (i >= t.size() || (t[i] != '"' && t[i] != '\''))) {
      if (out.empty()) return {};
      int depth = 0;
      while (i < t.size() && (depth > 0 || std::isalnum(static_cast<unsigned char>(t[i])) != 0 || t[i] == '_' ||
                              t[i] == '.' || t[i] == '(' || t[i] == '[')) {
        if (t[i] == '(' || t[i] == '[') ++depth;
        if ((t[i] == ')' || t[i] == ']') && depth > 0) --depth;
        ++i;
      }
      out.append(" {} ");
      continue;
    }
    if (i >= t.size() || (t[i] != '"' && t[i] != '\'')) return {};
    const std::string_view quote =
        t.substr(i, 3) == "\"\"\"" || t.substr(i, 3) == "'''" ? t.substr(i, 3) : t.substr(i, 1);
    std::size_t j = i + quote.size();
    while (j < t.size() && t.substr(j, quote.size()) != quote) j += t[j] == '\\' ? 2 : 1;
    if (j >= t.size()) return {};
    out.append(t.substr(i + quote.size(), j - i - quote.size()));
    i = j + quote.size();
  }
  return out;
}

std::string string_text(const Expr& e) {
  if (e.string_value()) return std::string(*e.string_value());
  if (e.kind() == "concatenated_string" || e.kind() == "call" || e.kind() == "binary_operator" ||
      e.kind() == "parenthesized_expression")
    return joined_literals(e.text());
  if (e.kind() != "string") return {};
  std::size_t q = e.text().find_first_of("\"'");
  if (q == std::string::npos) return {};
  std::string_view t(e.text());
  t.remove_prefix(q);
  std::size_t quote = t.substr(0, 3) == "\"\"\"" || t.substr(0, 3) == "'''" ? 3 : 1;
  if (t.size() < 2 * quote) return {};
  return std::string(t.substr(quote, t.size() - 2 * quote));
}

namespace {

// The query in lower case with its words apart: line breaks and tabs as spaces, and a space on each
// side of `*` (`select *from t` is `select * from t`), so that clauses are found as " from ".
std::string spaced(const std::string& sql) {
  std::string l;
  l.reserve(sql.size() + 8);
  for (char c : lower(sql)) {
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
    if (c == '*') {
      l += " * ";
      continue;
    }
    l += c;
  }
  return l;
}

std::string first_word(std::string_view sql) {
  std::size_t i = sql.find_first_not_of(" \t\r\n(");
  if (i == std::string_view::npos) return {};
  std::size_t j = i;
  while (j < sql.size() && std::isalpha(static_cast<unsigned char>(sql[j]))) ++j;
  return lower(sql.substr(i, j - i));
}

}  // namespace

namespace {

// The parts of a query joined by UNION / UNION ALL outside parentheses (lower case, spaced as
// `spaced` makes it), or nothing when there is no such union.
std::vector<std::string> union_parts(const std::string& sql) {
  const std::string l = spaced(sql);
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t from = 0;
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (l[i] == '(') ++depth;
    if (l[i] == ')') --depth;
    if (depth != 0 || l.compare(i, 7, " union ") != 0) continue;
    parts.push_back(l.substr(from, i - from));
    std::size_t next = i + 7;
    if (l.compare(next, 4, "all ") == 0) next += 4;
    if (l.compare(next, 9, "distinct ") == 0) next += 9;
    from = next;
    i = next - 1;
  }
  if (parts.empty()) return {};
  parts.push_back(l.substr(std::min(from, l.size())));
  return parts;
}

}  // namespace

RowsFact sql_rows(const std::string& sql) {
  // `SELECT count(*) FROM a UNION ALL SELECT count(*) FROM b`: a row or a few per part.
  if (const auto parts = union_parts(sql); parts.size() >= 2 && parts.size() <= 1000) {
    bool few = true;
    for (const auto& part : parts) {
      const Rows r = sql_rows(part).rows;
      few = few && (r == Rows::one || r == Rows::few);
    }
    if (few) return {Rows::few, "a union of " + std::to_string(parts.size()) + " queries of a row or a few each"};
  }
  std::string w = first_word(sql);
  static const util::NameSet metadata{
      "show",     "describe", "desc",   "explain", "set",     "use",     "create",  "drop",    "alter",  "insert",
      "merge",    "refresh",  "msck",   "analyze", "cache",   "uncache", "grant",   "revoke",  "delete", "update",
      "truncate", "optimize", "vacuum", "list",    "comment", "reset",   "restore", "convert", "copy"};
  if (metadata.count(w) != 0) return {Rows::few, "a `" + w + "` statement"};
  if (w != "select" && w != "with") return {};
  const std::string l = spaced(sql);
  // The catalog's own tables (`information_schema.tables`, `system.information_schema.columns`): a row
  // per table, column or tag: metadata.
  if (l.find("information_schema.") != std::string::npos) return {Rows::few, "a query of information_schema"};
  // `SELECT EXISTS (SELECT ... FROM t WHERE ...)`: one row, a yes or no, when the FROM is the subquery's.
  for (std::string_view head : {"select exists", "select not exists"})
    if (l.rfind(head, 0) == 0) {
      std::size_t open = l.find_first_not_of(' ', head.size());
      if (open == std::string::npos || l[open] != '(') break;
      int depth = 0;
      std::size_t close = open;
      for (; close < l.size(); ++close) {
        depth += l[close] == '(' ? 1 : l[close] == ')' ? -1 : 0;
        if (depth == 0) break;
      }
      if (close < l.size() && l.find(" from ", close) == std::string::npos) return {Rows::one, "an EXISTS query"};
    }
  bool grouped = l.find(" group by ") != std::string::npos;
  if (l.find(" from ") == std::string::npos && w == "select") return {Rows::one, "a SELECT without FROM"};
  // ... LIMIT n at the end of the statement (not inside a subquery): at most n rows.
  if (auto lim = l.rfind(" limit "); lim != std::string::npos && l.find(')', lim) == std::string::npos) {
    std::size_t d = l.find_first_not_of(' ', lim + 7);
    std::size_t e = d == std::string::npos ? d : l.find_first_not_of("0123456789", d);
    if (d != std::string::npos && e != d) {
      std::string digits = l.substr(d, e == std::string::npos ? std::string::npos : e - d);
      if (digits.size() <= 4 && std::stoi(digits) <= kFewRows)
        return {std::stoi(digits) == 1 ? Rows::one : Rows::few, "LIMIT " + digits};
    }
  }
  if (l.rfind("select distinct", 0) == 0 || grouped) return {Rows::grouped, "a grouped query"};
  bool where_key = false;
  if (auto where = l.find(" where "); where != std::string::npos) {
    std::string cond = l.substr(where + 7);
    // `k = v` (a lone '=', spaced or not: not part of <=, >=, ==, !=) or `k in (...)`, without `or`.
    bool equality = cond.find(" in (") != std::string::npos || cond.find(" in(") != std::string::npos;
    for (std::size_t i = 0; i < cond.size() && !equality; ++i)
      equality = cond[i] == '=' && i > 0 && std::string_view("<>=!").find(cond[i - 1]) == std::string_view::npos &&
                 (i + 1 >= cond.size() || cond[i + 1] != '=');
    where_key = cond.find(" or ") == std::string::npos && equality;
  }
  // SELECT count(*) / max(x) ... FROM t without GROUP BY: one row, when every item is an aggregate.
  auto from = l.find(" from ");
  std::string items = l.substr(6, from - 6);
  int level = 0;
  std::string item;
  bool all = true, any = false;
  bool aggregate = false;
  auto flush = [&]() {
    std::string f = leading_function(item);
    bool agg = !f.empty() && is_aggregate_name(f) && item.find(" over") == std::string::npos;
    // A constant beside the aggregates (`SELECT 'col_a' AS col, count(*) ...`) keeps the one row.
    const std::size_t start = item.find_first_not_of(' ');
    const bool constant = start != std::string::npos && (item[start] == '\'' || item[start] == '"' ||
                                                         std::isdigit(static_cast<unsigned char>(item[start])) != 0);
    all = all && (agg || constant);
    aggregate = aggregate || agg;
    any = true;
    item.clear();
  };
  for (char c : items) {
    if (c == '(') ++level;
    if (c == ')') --level;
    if (c == ',' && level == 0) {
      flush();
      continue;
    }
    item += c;
  }
  flush();
  if (any && all && aggregate) return {Rows::one, "a global aggregate"};
  if (where_key) return {Rows::unknown, "a lookup", false, true};  // rows of a key or a few: not a scan's worth
  // A join or union of tables in the query, as `df.join(...)` / `df.union(...)`: more rows than one table.
  if (l.find(" join ") != std::string::npos) return {Rows::large, "a query joining tables", true};
  if (l.find(" union ") != std::string::npos) return {Rows::large, "a query with a union", true};
  return {Rows::large, "a query over a table"};
}

std::string single_from(const std::string& sql) {
  const std::string l = spaced(sql);
  const std::size_t from = l.find(" from ");
  if (from == std::string::npos || l.find(" from ", from + 1) != std::string::npos) return {};
  std::size_t i = l.find_first_not_of(' ', from + 6);
  if (i == std::string::npos) return {};
  std::size_t j = i;
  while (j < l.size() &&
         (std::isalnum(static_cast<unsigned char>(l[j])) != 0 || l[j] == '_' || l[j] == '.' || l[j] == '`'))
    ++j;
  std::string name = l.substr(i, j - i);
  std::erase(name, '`');
  // `FROM a, b` (or `FROM a x, b y`) reads two tables: a comma before the next clause.
  std::size_t end = l.size();
  for (const char* clause :
       {" where ", " group ", " order ", " sort ", " limit ", " having ", " cluster ", " distribute "})
    end = std::min(end, l.find(clause, j));
  if (l.find(',', j) < end) return {};
  return name;
}

}  // namespace planlint::pyspark::detail
