// SourceContext reporting and small helpers for source rules.
#include "lint/source_context.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>

#include "util/name_set.hpp"

namespace planlint::lint {

Diagnostic& SourceContext::report(int cell, const pyspark::Pos& pos, std::string message) {
  return report(cell, model_.place(cell, pos), std::move(message));
}

Diagnostic& SourceContext::report(int cell, const pyspark::Place& pos, std::string message) {
  Diagnostic d;
  d.rule = rule_;
  d.severity = rule_->severity;
  d.location.cell = cell;
  d.location.cell_line = pos.line;
  d.location.cell_column = pos.column;
  d.location.line = pos.line;
  d.location.column = pos.column;
  d.location.end_line = pos.end_line;
  d.location.end_column = pos.end_column;
  d.message = std::move(message);
  out_.push_back(std::move(d));
  return out_.back();
}

void SourceContext::add_related(Diagnostic& d, int cell, const pyspark::Pos& where, std::string message) const {
  const pyspark::Place pos = model_.place(cell, where);
  Location l;
  l.cell = cell;
  l.cell_line = l.line = pos.line;
  l.cell_column = l.column = pos.column;
  l.end_line = pos.end_line;
  l.end_column = pos.end_column;
  d.related.push_back({std::move(l), std::move(message)});
}

Fix& SourceContext::attach_fix(Diagnostic& d, std::string title, Applicability applicability, std::string suggestion) {
  d.fix = Fix{std::move(title), applicability, {}, std::move(suggestion)};
  return *d.fix;
}

void SourceContext::add_edit(Fix& fix, int cell, std::uint32_t start_byte, std::uint32_t end_byte,
                             std::string replacement) {
  Edit e;
  e.cell = cell;
  e.start_byte = start_byte;
  e.end_byte = end_byte;
  e.replacement = std::move(replacement);
  fix.edits.push_back(std::move(e));
}

std::string_view SourceContext::cell_text(int cell) const { return model_.cell(cell).text; }

bool is_row_udf_call(const pyspark::SourceModel& m, const pyspark::Expr& e) {
  if (e.kind() != "call") return false;
  std::string_view callee = e.callee();
  std::string_view fn = e.text().substr(0, e.text().find('('));
  return m.udf_names.count(fn) != 0 || m.udf_names.count(callee) != 0;
}

bool is_python_udf_call(const pyspark::SourceModel& m, const pyspark::Expr& e) {
  if (e.kind() != "call") return false;
  if (is_row_udf_call(m, e)) return true;
  std::string_view fn = e.text().substr(0, e.text().find('('));
  return m.pandas_udf_names.count(fn) != 0;
}

std::vector<std::string> column_args(const pyspark::Link& link) {
  std::vector<std::string> out;
  const bool repartition = link.name == "repartition" || link.name == "repartitionByRange";
  bool first = true;
  for (const auto& a : link.args) {
    if (!a.keyword.empty() && a.keyword != "cols" && a.keyword != "on" && a.keyword != "subset") continue;
    if (a.value.int_value()) continue;
    // `*cols`: the columns a list holds, unknown but the same list wherever it is spread.
    if (a.value.kind() == "list_splat") {
      out.emplace_back(a.value.text());
      first = false;
      continue;
    }
    // repartition(numPartitions, *cols): a first argument that is not a name written out or a
    // column (`sc.defaultParallelism`, `n_parts`) is the number of partitions.
    const bool number = repartition && first && a.keyword.empty() && !a.value.string_value() &&
                        a.value.kind() != "call" && a.value.kind() != "list";
    if (a.keyword.empty()) first = false;
    if (number) continue;
    for (const auto& c : a.value.column_names()) out.emplace_back(c);
    // A name bound to a string at module level (`KEY = "id"`) names that column.
    if (a.value.column_names().empty() && a.value.kind() == "identifier" && a.value.string_value())
      out.emplace_back(*a.value.string_value());
  }
  return out;
}

bool keeps_partitioning(std::string_view m) {
  return m == "filter" || m == "where" || m == "select" || m == "withColumn" || m == "withColumns" || m == "drop" ||
         m == "cache" || m == "persist" || m == "alias" || m == "selectExpr" || m == "sortWithinPartitions" ||
         m == "withColumnRenamed" || m == "hint" ||
         // an AWS Glue DynamicFrame's per-record steps
         m == "resolveChoice" || m == "apply_mapping" || m == "drop_fields" || m == "select_fields" ||
         m == "rename_field";
}

const pyspark::Step* previous_step(const std::vector<pyspark::Step>& pipeline, std::size_t index) {
  // A window applied in a projection (`select(F.rank().over(w))`, `withColumn("r", ...over(w))`)
  // plans its own exchange: the step is not partition-keeping, whatever the method.
  auto applies_window = [](const pyspark::Link& l) {
    return std::any_of(l.args.begin(), l.args.end(),
                       [](const pyspark::Arg& a) { return a.value.text().find(".over(") != std::string_view::npos; });
  };
  for (std::size_t i = index; i-- > 0;) {
    const pyspark::Link& l = *pipeline[i].link;
    if (!l.is_call || !keeps_partitioning(l.name) || applies_window(l)) return &pipeline[i];
  }
  return nullptr;
}

namespace {

std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string declared_large_read_at(const std::vector<pyspark::Step>& pipeline, std::size_t upto,
                                   const std::vector<std::string>& large, int depth) {
  static const util::NameSet kReadCalls{"table", "parquet", "csv",  "json",     "orc", "load",
                                        "text",  "delta",   "avro", "textFile", "sql"};
  static const util::NameSet kCombines{"join", "crossJoin", "union", "unionByName", "unionAll"};
  for (std::size_t k = 0; k < pipeline.size() && k < upto; ++k) {
    const pyspark::Link& l = *pipeline[k].link;
    if (!l.is_call || l.args.empty()) continue;
    if (kReadCalls.contains(l.name)) {
      const pyspark::Arg* a = l.arg(0, l.name == "table" ? "tableName" : l.name == "sql" ? "sqlQuery" : "path");
      if (a == nullptr || !a->value.string_value()) continue;
      const std::string read = lowered(*a->value.string_value());
      for (const auto& entry : large) {
        const std::string e = lowered(entry);
        if (l.name == "sql" ? names_table(read, e) : fnmatch(e.c_str(), read.c_str(), 0) == 0) return entry;
      }
    } else if (kCombines.contains(l.name) && depth < 3) {
      const pyspark::Chain* other = l.args[0].value.chain();
      if (other == nullptr) continue;
      const auto others = other->pipeline();
      std::string found = declared_large_read_at(others, others.size(), large, depth + 1);
      if (!found.empty()) return found;
    }
  }
  return {};
}

}  // namespace

bool names_table(std::string_view sql, std::string_view name) {
  for (std::size_t at = sql.find(name); at != std::string_view::npos; at = sql.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at > 0 && (identifier_char(sql[at - 1]) || sql[at - 1] == '.')) ||
        (end < sql.size() && identifier_char(sql[end])))
      continue;
    std::size_t b = sql.find_last_not_of(" \t\r\n`", at == 0 ? 0 : at - 1);
    if (b == std::string_view::npos) continue;
    const std::string_view before = sql.substr(0, b + 1);
    // FROM v, JOIN v, a list's `, v`, and MERGE INTO t USING v.
    if (before.ends_with("from") || before.ends_with("join") || before.ends_with(",") || before.ends_with("using"))
      return true;
  }
  return false;
}

std::string declared_large_read(const std::vector<pyspark::Step>& pipeline, std::size_t upto,
                                const std::vector<std::string>& large) {
  if (large.empty()) return {};
  return declared_large_read_at(pipeline, upto, large, 0);
}

std::string functions_spelling(const pyspark::SourceModel& m, std::string_view fn) {
  std::string target = "pyspark.sql.functions." + std::string(fn);
  for (const auto& [local, qualified] : m.imports)
    if (qualified == target) return local;
  for (const auto& [local, qualified] : m.imports)
    if (qualified == "pyspark.sql.functions" && local.find('.') == std::string::npos)
      return local + "." + std::string(fn);
  if (m.star_imports.count("pyspark.sql.functions") != 0) return std::string(fn);
  return {};
}

std::uint32_t import_insertion_point(std::string_view text) {
  std::size_t pos = 0;
  auto next_line = [&](std::size_t from) {
    auto nl = text.find('\n', from);
    return nl == std::string_view::npos ? text.size() : nl + 1;
  };
  while (pos < text.size()) {
    std::size_t first = text.find_first_not_of(" \t\r", pos);
    if (first == std::string_view::npos) break;
    char c = text[first];
    if (c == '\n' || c == '#') {
      pos = next_line(first);
      continue;
    }
    std::string_view rest = text.substr(first);
    if (rest.rfind("from __future__", 0) == 0) {
      pos = next_line(first);
      continue;
    }
    std::size_t q = rest.find_first_of("\"'");
    bool docstring = q != std::string_view::npos && q <= 2 &&
                     rest.substr(0, q).find_first_not_of("rRuUbB") == std::string_view::npos && rest.size() >= q + 3 &&
                     rest[q + 1] == rest[q] && rest[q + 2] == rest[q];
    if (docstring) {
      std::string quote(3, rest[q]);
      auto close = text.find(quote, first + q + 3);
      if (close == std::string_view::npos) break;
      pos = next_line(close + 3);
      continue;
    }
    break;
  }
  return static_cast<std::uint32_t>(std::min(pos, text.size()));
}

std::string quote_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + ("`" + n + "`");
  return out;
}

bool returned_later(const pyspark::SourceModel& m, const pyspark::Chain& c, std::string_view name) {
  const pyspark::FunctionInfo* f = c.function.empty() ? nullptr : m.function(c.function);
  if (f == nullptr || name.empty()) return false;
  const std::string_view text = m.cell(c.cell).text;
  if (f->body.data() < text.data() || f->body.data() + f->body.size() > text.data() + text.size()) return false;
  const std::size_t body = static_cast<std::size_t>(f->body.data() - text.data());
  const std::size_t end = body + f->body.size();
  auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '.'; };
  for (std::size_t at = text.find("return", std::max<std::size_t>(c.pos.end_byte, body));
       at != std::string_view::npos && at < end; at = text.find("return", at + 1)) {
    if ((at > 0 && word(text[at - 1])) || (at + 6 < text.size() && word(text[at + 6]))) continue;
    std::string_view line = text.substr(at + 6, std::min(end, text.size()) - at - 6);
    line = line.substr(0, line.find('\n'));
    for (std::size_t w = line.find(name); w != std::string_view::npos; w = line.find(name, w + 1))
      if ((w == 0 || !word(line[w - 1])) && (w + name.size() >= line.size() || !word(line[w + name.size()])))
        return true;
  }
  return false;
}

bool in_test_code(const pyspark::SourceModel& m, const pyspark::Chain& chain) {
  return in_test_code(m, std::string_view(chain.function));
}

bool in_test_code(const pyspark::SourceModel& m, std::string_view fn) {
  if (fn.rfind("test", 0) == 0) return true;  // pytest and unittest run functions named test*
  // Assertion helpers (`assert_df_equality`, `assertDataFrameEqual`) compare a test's DataFrames.
  if (fn.rfind("assert", 0) == 0 || fn.rfind("_assert", 0) == 0) return true;
  std::string_view path = m.file->path;
  for (std::size_t at = 0; at <= path.size();) {
    std::size_t end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(at, end - at);
    if (end < path.size() && (part == "tests" || part == "test" || part == "testing")) return true;
    if (end == path.size() && (part.rfind("test_", 0) == 0 || part == "conftest.py" ||
                               (part.size() > 8 && part.substr(part.size() - 8) == "_test.py")))
      return true;
    at = end + 1;
  }
  return false;
}

bool is_notebook(const pyspark::SourceModel& m) { return m.file->kind != pyspark::SourceKind::python; }

// Whether the value `name` holds at `chain` grows over the turns of the chain's loop: it was bound
// before the loop (or in an outer one), or in this turn from its own previous value. A name read
// afresh each turn (`df = spark.read...` at the top of the body, `for df in dfs:`) does not grow.
bool carried_across_turns(const pyspark::SourceModel& m, const pyspark::Chain& chain) {
  if (chain.root_is_loop_target) return false;
  // Whether loop `inner` runs inside loop `outer` (a binding there is made within the same turn).
  auto nested_in = [&](int inner, int outer) {
    for (int guard = 0; inner > 0 && guard < 64; ++guard) {
      if (inner == outer) return true;
      if (static_cast<std::size_t>(inner) > m.loops.size()) return false;
      inner = m.loops[static_cast<std::size_t>(inner - 1)].parent;
    }
    return false;
  };
  const pyspark::Chain* b = chain.bound;
  for (int guard = 0; b != nullptr && guard < 64; ++guard) {
    // Bound outside the loop: the value comes in from before it and is carried from turn to turn.
    // Bound in a loop nested in this one: made earlier in the same turn; follow it.
    if (b->loop != chain.loop && !nested_in(b->loop, chain.loop)) return true;
    if (b->root_is_call) {
      // cust_df = dict_join(cust_df, ...): built from the value the name had then; follow it.
      const pyspark::Chain* from = nullptr;
      bool named = false;
      for (const auto& a : b->root_args)
        if (a.value.kind() == "identifier" && a.value.text() == chain.root) {
          named = true;
          from = a.value.chain();
        }
      if (!named) return false;
      if (from == nullptr) return true;
      b = from;
      continue;
    }
    if (b->root != chain.root) return false;
    if (b->root_is_loop_target) return false;
    b = b->bound;
  }
  // Followed as far as the walk goes (a long run of rebindings): where it comes from is not in sight.
  if (b != nullptr) return false;
  return true;  // never bound in this scope: a parameter or a global, carried from turn to turn
}

}  // namespace planlint::lint
