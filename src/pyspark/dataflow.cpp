// Row-count facts about a DataFrame pipeline: where it starts (a table, driver-side data, a metadata
// query) and what bounds it on the way (limit, global aggregates, grouping), for the rules that ask
// "can this be big?" (collect-large, single-file-write, missing-broadcast, cartesian-join, caches).
#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <set>
#include <unordered_map>

#include "pyspark/dataflow_text.hpp"
#include "pyspark/model.hpp"
#include "util/name_set.hpp"

namespace planlint::pyspark {
namespace detail {

const util::NameSet kAggregates{"count",
                                "sum",
                                "min",
                                "max",
                                "avg",
                                "mean",
                                "stddev",
                                "stddev_samp",
                                "stddev_pop",
                                "variance",
                                "var_samp",
                                "var_pop",
                                "countDistinct",
                                "count_distinct",
                                "approx_count_distinct",
                                "approxCountDistinct",
                                "sumDistinct",
                                "sum_distinct",
                                "first",
                                "last",
                                "collect_list",
                                "collect_set",
                                "percentile_approx",
                                "percentile",
                                "median",
                                "mode",
                                "corr",
                                "covar_samp",
                                "covar_pop",
                                "kurtosis",
                                "skewness",
                                "max_by",
                                "min_by",
                                "any_value",
                                "bool_and",
                                "bool_or",
                                "every",
                                "some",
                                "product",
                                "array_agg",
                                "count_if"};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string leading_function(std::string_view t, const SourceModel* m) {
  std::size_t i = t.find_first_not_of(" \t\n[(");
  if (i == std::string_view::npos) return {};
  std::size_t j = i;
  while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_' || t[j] == '.')) ++j;
  if (j >= t.size() || t[j] != '(') return {};
  std::string_view name = t.substr(i, j - i);
  std::string qualified;
  if (m != nullptr && m->may_import(name.substr(0, name.find('.')))) {
    qualified = m->qualify(name);
    name = qualified;
  }
  if (auto dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
  return std::string(name);
}

bool is_aggregate_name(std::string_view name) {
  if (kAggregates.count(name) != 0) return true;
  std::string l = lower(name);
  return kAggregates.count(l) != 0;
}

}  // namespace detail

namespace {

using namespace detail;

// A call of one of Spark's aggregate functions by this name: `F.sum`, `functions.max`, `count` imported
// from pyspark.sql.functions (or `F.sum` of a notebook that imports F elsewhere); Python's `sum`,
// `max` and numpy's are not.
bool spark_aggregate(const SourceModel& m, std::string_view name) {
  std::string buffer;
  const std::string_view q = m.qualify(name, buffer);
  if (!is_aggregate_name(q.substr(q.rfind('.') + 1))) return false;
  if (q.starts_with("pyspark.sql.functions.") || q.starts_with("pyspark.sql.connect.functions.")) return true;
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos) return q == name && m.star_imports.count("pyspark.sql.functions") != 0;
  const std::string_view head = name.substr(0, dot);
  return q == name && head != "self" && !m.has_import(head);
}

// The end of the bracketed group that opens at t[open] ('(' or '['), skipping string literals; npos
// when it does not close.
std::size_t closing(std::string_view t, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"' || c == '\'') {
      const std::size_t end = t.find(c, i + 1);
      if (end == std::string_view::npos) return end;
      i = end;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// A column expression that calls one of Spark's aggregate functions outside a window:
// `(F.sum(x) / n).alias(c)`, `F.round(F.avg(x), 2)`, `[F.mean(F.isnan(c)) for c in cols]`. Spark
// rejects a select that mixes such a column with a plain one unless it is grouped, so a select of
// them returns one row. The function must be Spark's (`F.sum`, `functions.max`, a name imported from
// pyspark.sql.functions): Python's `sum(cols)` adds columns row by row.
bool calls_aggregate(const SourceModel& m, std::string_view t) {
  std::string buffer;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"' || c == '\'') {
      const std::size_t end = t.find(c, i + 1);
      if (end == std::string_view::npos) return false;
      i = end;
      continue;
    }
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) continue;
    const bool starts = i == 0 || !(std::isalnum(static_cast<unsigned char>(t[i - 1])) || t[i - 1] == '_' ||
                                    t[i - 1] == '.' || t[i - 1] == ')');
    std::size_t j = i;
    while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_' || t[j] == '.')) ++j;
    const std::string_view name = t.substr(i, j - i);
    i = j - 1;
    if (!starts || j >= t.size() || t[j] != '(') continue;
    if (!spark_aggregate(m, name)) continue;
    const std::size_t end = closing(t, j);
    if (end == std::string_view::npos) return false;
    if (t.substr(end + 1).starts_with(".over(")) continue;
    return true;
  }
  return false;
}

// One argument of select(...) / agg(...) that is an aggregate: F.sum("x"), F.max(c).alias("m"),
// [F.count(F.when(...)).alias(c) for c in cols], "sum(x)" in selectExpr.
bool is_aggregate_arg(const SourceModel& m, const Expr& e, bool sql_strings) {
  if (sql_strings && e.string_value()) {
    std::string f = leading_function(*e.string_value());
    return !f.empty() && is_aggregate_name(f) && lower(*e.string_value()).find(" over") == std::string::npos;
  }
  if (e.chain() != nullptr && e.chain()->root_is_call) {
    std::string_view root = e.chain()->root;
    bool wrappers_only = std::all_of(e.chain()->links.begin(), e.chain()->links.end(), [](const Link& l) {
      return l.name == "alias" || l.name == "cast" || l.name == "name" || l.name == "astype";
    });
    if (spark_aggregate(m, root) && wrappers_only && e.text().find(".over(") == std::string::npos) return true;
  }
  return !e.string_value() && calls_aggregate(m, e.text());
}

// `lambda x: x`, `list`, `tuple`: a function that hands each element back whole (as a sequence).
bool identity_function(const Arg* a) {
  if (a == nullptr || !a->keyword.empty()) return false;
  const std::string_view t = a->value.text();
  if (t == "list" || t == "tuple") return true;
  if (a->value.kind() != "lambda" || t.substr(0, 6) != "lambda") return false;
  const std::size_t colon = t.find(':');
  if (colon == std::string_view::npos) return false;
  auto trim = [](std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
  };
  const std::string_view param = trim(t.substr(6, colon - 6));
  return !param.empty() && param.find_first_of(",*=") == std::string_view::npos && trim(t.substr(colon + 1)) == param;
}

bool all_aggregates(const SourceModel& m, const Link& l, bool sql_strings) {
  if (l.args.empty()) return false;
  return std::all_of(l.args.begin(), l.args.end(),
                     [&](const Arg& a) { return is_aggregate_arg(m, a.value, sql_strings); });
}

RowsFact origin_rows(const Link* first) {
  if (first == nullptr) return {};
  if (first->name == "createDataFrame" || first->name == "parallelize") {
    const Arg* data = first->arg(0, "data");
    if (data == nullptr) return {};
    std::string_view k = data->value.kind();
    if (k == "list" || k == "tuple" || k == "list_comprehension") return {Rows::few, "literal rows"};
    // createDataFrame(rdd.map(to_row)): an RDD's rows, as distributed as the RDD.
    if (const Chain* from = data->value.chain(); from != nullptr && first->name == "createDataFrame") {
      static const util::NameSet kRddSteps{"map",           "flatMap",     "mapPartitions", "rdd",
                                           "zipWithIndex",  "reduceByKey", "groupByKey",    "mapValues",
                                           "flatMapValues", "textFile",    "wholeTextFiles"};
      if (from->is_rdd) return {};
      for (const Step& s : from->pipeline())
        if (s.link != nullptr && kRddSteps.contains(s.link->name)) return {};
    }
    return {Rows::driver, "data built on the driver"};
  }
  if (first->name == "range") {
    std::int64_t start = 0, end = -1;
    const Arg* a0 = first->arg(0, "start");
    const Arg* a1 = first->arg(1, "end");
    if (a0 != nullptr && a0->value.int_value()) end = *a0->value.int_value();
    if (a1 != nullptr) {
      if (!a1->value.int_value()) return {};
      start = end;
      end = *a1->value.int_value();
    }
    if (end >= 0 && end - start <= kFewRows) return {Rows::few, "a small spark.range"};
    return {};
  }
  if (first->name == "sql") {
    const Arg* q = first->arg(0, "sqlQuery");
    if (q == nullptr) return {};
    return sql_rows(string_text(q->value));
  }
  if (first->name == "table" || first->name == "read" || first->name == "load" || first->name == "textFile")
    return {Rows::large, "a read of a table or files"};
  // DeltaTable.forPath(spark, p).history(): a row per commit of the table.
  if (first->name == "history" && first->is_call) return {Rows::few, "a Delta table's commit history"};
  // DeltaTable.forName(spark, t).detail(): one row of the table's metadata.
  if (first->name == "detail" && first->is_call && first->args.empty()) return {Rows::one, "a Delta table's detail"};
  return {};
}

// filter(F.col("id") == x), where("id = 42"), filter(df.k.isin(keys)): rows of one key (or a few),
// a lookup rather than a scan's worth. A condition with `or`, a range or a negation is not.
bool key_filter(const Link& l) {
  if (!l.is_call || (l.name != "filter" && l.name != "where") || l.args.size() != 1) return false;
  const Expr& e = l.args[0].value;
  std::string t = lower(e.string_value() ? *e.string_value() : e.text());
  if (t.find(" or ") != std::string::npos || t.find('|') != std::string::npos || t.find("!=") != std::string::npos ||
      t.find("<>") != std::string::npos || t.find('~') != std::string::npos || t.find(" not ") != std::string::npos)
    return false;
  if (t.find(".isin(") != std::string::npos || t.find(" in (") != std::string::npos) return true;
  if (t.find("==") != std::string::npos) return true;
  // SQL text: `k = v` (a lone '=', not part of <=, >=, ==, !=).
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] == '=' && (i == 0 || std::string_view("<>=!").find(t[i - 1]) == std::string_view::npos) &&
        (i + 1 >= t.size() || t[i + 1] != '='))
      return e.string_value().has_value();
  return false;
}

RowsFact rows_at(const SourceModel& m, const std::vector<Step>& pipeline, std::size_t index, int depth);
std::optional<RowsFact> returned_rows(const SourceModel& m, const Chain& origin, int depth);

// The rows of a temporary view that `at` reads by name (`spark.sql("SELECT ... FROM v")`,
// `spark.table("v")`), registered before it in the file: the rows of the DataFrame behind the view.
// The rows of view `name` (lower case) that a `%sql` cell before `reader` creates (`CREATE [OR
// REPLACE] [GLOBAL] TEMP[ORARY] VIEW name AS <query>`): its query's, when the query says.
std::optional<RowsFact> sql_cell_view_rows(const SourceModel& m, std::string_view name, const Chain* reader) {
  std::optional<RowsFact> out;
  for (const auto& cell : m.file->cells) {
    if (cell.language != CellLanguage::sql || (reader != nullptr && cell.number >= reader->cell)) continue;
    const std::string text = lower(cell.text);
    for (std::size_t at = text.find("view"); at != std::string::npos; at = text.find("view", at + 4)) {
      // `... view <name> as` after `create` earlier in the statement
      const std::size_t statement = text.rfind(';', at);
      const std::size_t create = text.rfind("create", at);
      if (create == std::string::npos || (statement != std::string::npos && create < statement)) continue;
      std::size_t k = text.find_first_not_of(" \t\r\n", at + 4);
      if (k == std::string::npos || text.compare(k, name.size(), name) != 0) continue;
      k = text.find_first_not_of(" \t\r\n", k + name.size());
      if (k == std::string::npos || text.compare(k, 2, "as") != 0) continue;
      const std::size_t end = text.find(';', k);
      const std::string query = text.substr(k + 2, end == std::string::npos ? std::string::npos : end - k - 2);
      const RowsFact r = sql_rows(query);
      out = r.rows == Rows::unknown ? std::nullopt : std::optional<RowsFact>(r);
    }
  }
  return out;
}

std::optional<RowsFact> view_rows(const SourceModel& m, const Step& at, int depth) {
  if (depth >= 4 || at.link == nullptr || !at.link->is_call) return std::nullopt;
  std::string name;
  if (at.link->name == "sql") {
    const Arg* q = at.link->arg(0, "sqlQuery");
    if (q != nullptr) name = single_from(string_text(q->value));
  } else if (at.link->name == "table") {
    const Arg* t = at.link->arg(0, "tableName");
    if (t != nullptr && t->value.string_value()) name = lower(*t->value.string_value());
  }
  if (name.empty()) return std::nullopt;
  const Chain* view = m.temp_views.empty() ? nullptr : registered_view(m, name, at.chain);
  if (view == nullptr) return sql_cell_view_rows(m, name, at.chain);
  auto pipeline = view->pipeline();
  if (pipeline.empty()) return std::nullopt;
  return rows_at(m, pipeline, pipeline.size() - 1, depth + 1);
}

}  // namespace

const Chain* registered_view(const SourceModel& m, std::string_view name, const Chain* reader) {
  auto it = m.temp_views.find(std::string(name));
  if (it == m.temp_views.end()) return nullptr;
  const Chain* view = nullptr;
  for (const Chain* v : it->second)  // in source order: the last one before the reader
    if (reader == nullptr ||
        std::make_pair(v->cell, v->pos.start_byte) < std::make_pair(reader->cell, reader->pos.start_byte))
      view = v;
  return view;
}

// "/tmp/t/_delta_log/00000000000000000000.json", log_path + "/00000000000000000003.json".
bool delta_log_path(std::string_view text) {
  if (text.find("_delta_log") != std::string_view::npos) return true;
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    run = std::isdigit(static_cast<unsigned char>(text[i])) != 0 ? run + 1 : 0;
    if (run == 20 && text.substr(i + 1, 5) == ".json") return true;
  }
  return false;
}

RowsFact rows_before(const SourceModel& m, const std::vector<Step>& pipeline, std::size_t index) {
  return rows_at(m, pipeline, index, 0);
}

namespace {

// df = clean(raw): a helper whose one `return` transforms a parameter holds the argument's rows,
// after the helper's own steps. The three pipelines joined end to end, or nullopt.
std::optional<std::vector<Step>> through_helper(const SourceModel& m, const Chain& call, std::size_t& offset) {
  if (!call.root_is_call) return std::nullopt;
  // broadcast(df) holds df's rows.
  if (call.root == "pyspark.sql.functions.broadcast") {
    if (call.root_args.empty() || call.root_args[0].value.chain() == nullptr) return std::nullopt;
    std::vector<Step> joined = call.root_args[0].value.chain()->pipeline();
    offset = joined.size();
    return joined;
  }
  const FunctionInfo* f = m.function(call.root);
  if (f == nullptr || f->returns.size() != 1) return std::nullopt;
  const Chain* ret = f->returns.front();
  const Chain* from = ret->origin();
  if (from->root_is_call) return std::nullopt;
  const auto& params = f->params;
  auto at = std::find(params.begin(), params.end(), from->root);
  if (at == params.end()) return std::nullopt;
  auto position = static_cast<std::size_t>(at - params.begin());
  const Arg* arg = nullptr;
  std::size_t positional = 0;
  for (const Arg& a : call.root_args) {
    if (a.keyword == from->root || (a.keyword.empty() && positional++ == position)) {
      arg = &a;
      break;
    }
  }
  if (arg == nullptr || arg->value.chain() == nullptr) return std::nullopt;
  std::vector<Step> joined = arg->value.chain()->pipeline();
  auto own = ret->pipeline();
  joined.insert(joined.end(), own.begin(), own.end());
  offset = joined.size();
  return joined;
}

}  // namespace

void index_temp_views(SourceModel& m) {
  static const util::NameSet kViews{"createOrReplaceTempView", "createTempView", "createOrReplaceGlobalTempView",
                                    "createGlobalTempView", "registerTempTable"};
  for (const Chain& c : m.chains) {
    if (c.links.empty()) continue;
    const Link& l = c.links.back();
    if (!l.is_call || kViews.count(l.name) == 0 || l.args.empty() || !l.args[0].value.string_value()) continue;
    m.temp_views[lower(*l.args[0].value.string_value())].push_back(&c);
  }
}

void index_calls(SourceModel& m) {
  if (m.functions.empty()) return;
  std::unordered_map<std::string_view, std::set<std::pair<int, std::uint32_t>>> seen;  // a call once
  for (const Chain& c : m.chains) {
    if (!c.root_is_call || m.function(c.root) == nullptr) continue;
    if (seen[c.root].emplace(c.cell, c.root_expr.pos.start_byte).second) m.calls_of[c.root].push_back(&c);
  }
  if (m.calls_of.empty()) return;
  // Every use of the name in the text (not as an attribute: `obj.f` is another name): its `def` and
  // these calls, or it runs some other way too (passed as a value, defined twice) and has no entry.
  std::unordered_map<std::string_view, std::size_t> uses;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  // Which (first character, length) pairs the names have: most words of the text are passed over
  // without a hash.
  std::array<std::uint64_t, 128> lengths{};
  for (const auto& [name, calls] : m.calls_of)
    lengths[static_cast<unsigned char>(name[0]) & 127U] |= std::uint64_t{1} << std::min<std::size_t>(name.size(), 63);
  for (const auto& cell : m.file->cells) {
    std::string_view t = cell.text;
    for (std::size_t i = 0; i < t.size();) {
      if (!word(t[i])) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < t.size() && word(t[j])) ++j;
      const std::uint64_t bit = std::uint64_t{1} << std::min<std::size_t>(j - i, 63);
      if ((i == 0 || t[i - 1] != '.') && (lengths[static_cast<unsigned char>(t[i]) & 127U] & bit) != 0)
        if (auto it = m.calls_of.find(t.substr(i, j - i)); it != m.calls_of.end()) ++uses[it->first];
      i = j;
    }
  }
  for (auto it = m.calls_of.begin(); it != m.calls_of.end();)
    it = uses[it->first] == it->second.size() + 1 ? std::next(it) : m.calls_of.erase(it);
}

RowsFact rows_of(const SourceModel& m, const Chain& chain) {
  auto pipeline = chain.pipeline();
  if (pipeline.empty()) {
    std::size_t offset = 0;
    if (auto joined = through_helper(m, *chain.origin(), offset)) return rows_at(m, *joined, offset, 1);
    return {};
  }
  return rows_at(m, pipeline, pipeline.size(), 0);
}

namespace {

// Rows of what a chain evaluates to, `depth` helpers or callers deep.
RowsFact chain_rows(const SourceModel& m, const Chain& chain, int depth);

// def f(df): ... with every call of f in the file passing rows few by construction
// (`f(spark.range(100))`, `f(spark.createDataFrame([...]))`): the parameter holds that few. Only
// "few" is taken from callers (a function may be called from elsewhere with more); nullopt otherwise.
std::optional<RowsFact> parameter_rows(const SourceModel& m, const Chain& origin, int depth) {
  if (origin.root_is_call || origin.bound != nullptr || origin.function.empty() || depth >= 4) return std::nullopt;
  const FunctionInfo* f = m.function(origin.function);
  const auto calls = m.calls_of.find(origin.function);
  if (f == nullptr || calls == m.calls_of.end() || f->params.empty() || f->params[0] == "self" || f->params[0] == "cls")
    return std::nullopt;
  const auto at = std::find(f->params.begin(), f->params.end(), std::string_view(origin.root));
  if (at == f->params.end()) return std::nullopt;
  const auto position = static_cast<std::size_t>(at - f->params.begin());
  std::optional<RowsFact> most;
  for (const Chain* call : calls->second) {
    if (call->function == origin.function) return std::nullopt;  // recursion: its own rows
    const Arg* arg = nullptr;
    std::size_t positional = 0;
    for (const Arg& a : call->root_args) {
      if (a.keyword == *at || (a.keyword.empty() && positional++ == position)) {
        arg = &a;
        break;
      }
    }
    if (arg == nullptr || arg->value.chain() == nullptr) return std::nullopt;
    RowsFact r = chain_rows(m, *arg->value.chain(), depth + 1);
    if (!small_by_construction(r.rows)) return std::nullopt;
    if (!most || static_cast<int>(r.rows) > static_cast<int>(most->rows)) most = std::move(r);
  }
  return most;
}

RowsFact chain_rows(const SourceModel& m, const Chain& chain, int depth) {
  auto pipeline = chain.pipeline();
  if (!pipeline.empty()) return rows_at(m, pipeline, pipeline.size(), depth);
  std::size_t offset = 0;
  if (auto joined = through_helper(m, *chain.origin(), offset)) return rows_at(m, *joined, offset, depth + 1);
  if (auto p = parameter_rows(m, *chain.origin(), depth)) return *p;
  if (auto r = returned_rows(m, *chain.origin(), depth)) return *r;  // `x = load(spark)`, then `f(x)`
  return {};
}

// `results = run_transfers(...)` of a helper whose every return is data built on the driver
// (`return spark.createDataFrame(rows)`), literal rows or one row: that, as small. Of a helper of
// another module, what its exports say.
std::optional<RowsFact> returned_rows(const SourceModel& m, const Chain& origin, int depth) {
  if (!origin.root_is_call || depth >= 4) return std::nullopt;
  const FunctionInfo* f = m.function(origin.root);
  if (f == nullptr) return std::nullopt;
  if (f->imported) {
    if (f->returns_few)
      return RowsFact{Rows::driver, "what `" + std::string(origin.root) + "` returns: rows built on the driver"};
    return std::nullopt;
  }
  if (f->returns.empty()) return std::nullopt;
  RowsFact out;
  for (const Chain* r : f->returns) {
    if (r == &origin) return std::nullopt;  // recursion
    const auto p = r->pipeline();
    const RowsFact each = rows_at(m, p, p.size(), depth + 1);
    if (!small_by_construction(each.rows)) return std::nullopt;
    out = each;
  }
  return out;
}

RowsFact rows_at(const SourceModel& m, const std::vector<Step>& pipeline, std::size_t index, int depth) {
  if (!pipeline.empty() && depth < 4) {
    std::size_t offset = 0;
    if (auto joined = through_helper(m, *pipeline.front().chain->origin(), offset)) {
      joined->insert(joined->end(), pipeline.begin(), pipeline.end());
      return rows_at(m, *joined, offset + index, depth + 1);
    }
  }
  RowsFact fact;
  bool read = false;
  // Where the data comes from: the first reader of the pipeline (what comes before it is a session
  // or a builder: spark, SparkSession.builder...getOrCreate(), spark.sparkContext).
  static const util::NameSet readers{"createDataFrame", "parallelize", "range", "sql",     "table", "read",
                                     "readStream",      "textFile",    "load",  "history", "detail"};
  for (std::size_t k = 0; k < pipeline.size() && k < index; ++k) {
    if (readers.count(pipeline[k].link->name) == 0) continue;
    fact = origin_rows(pipeline[k].link);
    // A query of a temporary view of this file, read whole: the view's DataFrame's rows.
    if (fact.rows == Rows::large && !fact.multiplied && !fact.keyed)
      if (auto v = view_rows(m, pipeline[k], depth)) fact = *v;
    read = true;
    break;
  }
  // No reader: the rows came in through a parameter, which may hold what every caller passes, or
  // from a helper whose every return is few rows by construction.
  if (!read && !pipeline.empty()) {
    const Chain& origin = *pipeline.front().chain->origin();
    if (auto p = parameter_rows(m, origin, depth))
      fact = *p;
    else if (auto r = returned_rows(m, origin, depth))
      fact = *r;
  }
  // A reader given a query (`.option("query", "SELECT MAX(version) FROM t")` of JDBC, Redshift,
  // Snowflake or BigQuery; `.options(query=...)`): the query's rows.
  for (std::size_t k = 0; k < pipeline.size() && k < index; ++k) {
    const Link& l = *pipeline[k].link;
    if (!l.is_call || (l.name != "option" && l.name != "options")) continue;
    const Expr* query = nullptr;
    if (l.name == "option" && l.args.size() >= 2 && l.args[0].value.string_value() &&
        lower(*l.args[0].value.string_value()) == "query")
      query = &l.args[1].value;
    if (l.name == "options")
      if (const Arg* a = l.arg(99, "query"); a != nullptr) query = &a->value;
    if (query == nullptr) continue;
    if (const RowsFact q = sql_rows(string_text(*query)); q.rows != Rows::unknown) fact = q;
  }
  // A file of a Delta table's transaction log (`_delta_log/00000000000000000010.json`): a few actions.
  for (std::size_t k = 0; k < pipeline.size() && k < index && (fact.rows == Rows::unknown || fact.rows == Rows::large);
       ++k) {
    const Link& l = *pipeline[k].link;
    if (!l.is_call || (l.name != "json" && l.name != "load" && l.name != "text")) continue;
    const Arg* path = l.arg(0, "path");
    if (path != nullptr && delta_log_path(path->value.text())) fact = {Rows::few, "a Delta transaction-log file"};
  }
  // spark.read.json(rdd) / .csv(rdd): the rows of an RDD of strings, as small as that RDD when it is
  // built on the driver (`sc.parallelize([json.dumps(manifest)])`).
  for (std::size_t k = 0; k < pipeline.size() && k < index && fact.rows == Rows::large; ++k) {
    const Link& l = *pipeline[k].link;
    if (!l.is_call || (l.name != "json" && l.name != "csv")) continue;
    const Arg* path = l.arg(0, "path");
    const Chain* rdd = path != nullptr ? path->value.chain() : nullptr;
    if (rdd == nullptr) continue;
    for (const Step& s : rdd->pipeline())
      if (s.link != nullptr && s.link->name == "parallelize") {
        fact = origin_rows(s.link);
        break;
      }
  }
  // A row per file (`.text(path, wholetext=True)`, `option("wholetext", True)`, `format("binaryFile")`):
  // as many rows as files, which the code does not show.
  for (std::size_t k = 0; k < pipeline.size() && k < index && fact.rows == Rows::large; ++k) {
    const Link& l = *pipeline[k].link;
    if (!l.is_call) continue;
    auto truthy = [](const Expr& e) {
      return (e.bool_value() && *e.bool_value()) || (e.string_value() && lower(*e.string_value()) == "true");
    };
    bool per_file = false;
    for (const Arg& a : l.args) per_file = per_file || (lower(a.keyword) == "wholetext" && truthy(a.value));
    if (l.name == "option" && l.args.size() >= 2 && l.args[0].value.string_value() &&
        lower(*l.args[0].value.string_value()) == "wholetext" && truthy(l.args[1].value))
      per_file = true;
    if (l.name == "format" && !l.args.empty() && l.args[0].value.string_value() &&
        lower(*l.args[0].value.string_value()) == "binaryfile")
      per_file = true;
    if (per_file) fact = {Rows::unknown, "a row per file"};
  }
  bool grouping = false;
  // Every name a branch below acts on (a new branch adds its names here): the other links, most of
  // them, are passed over without comparing their name with each.
  static const util::NameSet acted_on{"groupBy",
                                      "groupby",
                                      "rollup",
                                      "cube",
                                      "groupingSets",
                                      "agg",
                                      "count",
                                      "sum",
                                      "avg",
                                      "mean",
                                      "min",
                                      "max",
                                      "applyInPandas",
                                      "apply",
                                      "limit",
                                      "sample",
                                      "describe",
                                      "summary",
                                      "tail",
                                      "select",
                                      "selectExpr",
                                      "crosstab",
                                      "freqItems",
                                      "distinct",
                                      "join",
                                      "crossJoin",
                                      "union",
                                      "unionByName",
                                      "unionAll",
                                      "explode",
                                      "flatMap",
                                      "glom",
                                      "filter",
                                      "where",
                                      "dropDuplicates",
                                      "drop_duplicates"};
  for (std::size_t k = 0; k < index && k < pipeline.size(); ++k) {
    const Link& l = *pipeline[k].link;
    if (!l.is_call || !acted_on.contains(l.name)) continue;
    const KeptName n = l.name;  // compared with literals inline
    if (n == "groupBy" || n == "groupby" || n == "rollup" || n == "cube" || n == "groupingSets") {
      grouping = true;
      continue;
    }
    if (grouping && (n == "agg" || n == "count" || n == "sum" || n == "avg" || n == "mean" || n == "min" ||
                     n == "max" || n == "applyInPandas" || n == "apply")) {
      grouping = false;
      if (fact.rows == Rows::unknown || fact.rows == Rows::grouped || fact.rows == Rows::large)
        fact = {Rows::grouped, "a grouped aggregate"};
      continue;
    }
    // sample(fraction): a few rows only for a small fraction (5 % or less); sample(0.5) is half the input.
    if (n == "sample") {
      double fraction = -1;
      for (const Arg& a : l.args) {
        const std::string_view t = a.value.text();
        if (!a.keyword.empty() && a.keyword != "fraction") continue;
        if (t.find('.') == std::string_view::npos) continue;  // withReplacement, a seed
        try {
          fraction = std::stod(std::string(t));
        } catch (...) {
          fraction = -1;
        }
        break;
      }
      if (fraction >= 0 && fraction <= 0.05 && fact.rows != Rows::one) fact = {Rows::few, "sample(...)"};
      continue;
    }
    if (n == "limit" || n == "describe" || n == "summary" || n == "tail") {
      const Arg* a = l.arg(0);
      if (n == "limit" && a == nullptr) continue;
      // limit(n) with a name is bounded by the author; a literal above kFewRows is not "few".
      std::optional<std::int64_t> count = n == "limit" ? a->value.int_value() : std::nullopt;
      if (count && *count > kFewRows) continue;
      if (fact.rows != Rows::one) fact = {count == 1 ? Rows::one : Rows::few, std::string(n.view()) + "(...)"};
      continue;
    }
    if ((n == "agg" && !grouping) ||
        ((n == "select" || n == "selectExpr") && all_aggregates(m, l, n == "selectExpr"))) {
      fact = {Rows::one, "a global aggregate"};
      continue;
    }
    if (n == "crosstab" || n == "freqItems") {  // one row per distinct value (pair): bounded by the keys
      if (fact.rows == Rows::unknown || fact.rows == Rows::large) fact = {Rows::grouped, "a " + std::string(n.view())};
      continue;
    }
    // distinct() or dropDuplicates() of selected columns: one row per distinct key. (dropDuplicates
    // of whole rows by a key subset keeps a row per entity: `dropDuplicates(["message_id"])` of a
    // mail extract is as many rows as there are messages.)
    const bool dedup = n == "dropDuplicates" || n == "drop_duplicates";
    // The select of the key columns may come a filter or a rename before (`select("year")
    // .filter(...).distinct()`): those keep the columns the distinct rows are made of.
    bool after_select = false;
    for (std::size_t j = k; j > 0 && !after_select; --j) {
      const std::string_view before = pipeline[j - 1].link->name.view();
      after_select = before == "select" || before == "selectExpr";
      if (!after_select && before != "filter" && before != "where" && before != "dropna" && before != "alias" &&
          before != "withColumnRenamed")
        break;
    }
    if ((n == "distinct" || dedup) && after_select) {
      if (fact.rows == Rows::unknown || fact.rows == Rows::large) fact = {Rows::grouped, "distinct values"};
      continue;
    }
    if (n == "filter" || n == "where") {
      // A lookup, not a scan: also of rows whose source is not in sight (a parameter, a helper's read).
      if ((fact.rows == Rows::large || (fact.rows == Rows::unknown && !fact.multiplied)) && key_filter(l))
        fact = {Rows::unknown, "a lookup", false, true};
      continue;
    }
    // `rdd.glom().map(len)`: a value per partition (as many as partitions, not rows).
    if (n == "glom" && k + 1 < pipeline.size() && k + 1 < index && pipeline[k + 1].link->is_call &&
        pipeline[k + 1].link->name == "map") {
      fact = {Rows::few, "a value per partition"};
      ++k;
      continue;
    }
    if (n == "explode" || n == "flatMap") {
      // `rdd.flatMap(lambda r: r)` (or `list`) flattens each Row into its fields: as many values as
      // rows times columns, bounded where the rows are.
      if (n == "flatMap" && identity_function(l.arg(0))) continue;
      if (fact.rows == Rows::large)
        fact = {Rows::large, "an explode of a read", true};
      else
        fact = {};
      continue;
    }
    if (n == "join" || n == "crossJoin" || n == "union" || n == "unionByName" || n == "unionAll") {
      // A join or union of bounded inputs is still bounded, but only the other side can tell; with a
      // large side the result is large.
      const bool join = n == "join" || n == "crossJoin";
      const Arg* other = l.arg(0);
      const Chain* oc = other != nullptr ? other->value.chain() : nullptr;
      RowsFact o;
      if (oc != nullptr && depth <= 4) {
        auto other_pipeline = oc->pipeline();
        o = rows_at(m, other_pipeline, other_pipeline.size(), depth + 1);
      }
      if (fact.rows == Rows::large || o.rows == Rows::large) {
        fact = {Rows::large, join ? "a join with a table read" : "a union with a table read", true};
        continue;
      }
      if (fact.rows == Rows::unknown || o.rows == Rows::unknown) fact = {};
    }
  }
  return fact;
}

}  // namespace
}  // namespace planlint::pyspark
