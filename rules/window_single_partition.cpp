// window-single-partition: a Window fed by Exchange SinglePartition (a window without partitionBy).
#include <cctype>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lint/plan_context.hpp"
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::OpKind;
using plan::PlanNode;

extern const RuleInfo kWindowSinglePartition{"SPK106",
                                             "window-single-partition",
                                             "A window function moves all rows into one partition",
                                             Severity::warning,
                                             FixAvailability::never,
                                             Impact::high,
                                             R"md(## What it does
Finds a `Window` without a partition spec whose input comes from `Exchange SinglePartition`: the
window was defined with `Window.orderBy(...)` and no `partitionBy(...)`. A warning when the plan shows
the exchange moves 128 MiB or more (cost mode, AQE statistics), nothing when it shows less, an `info`
when it shows no size.

In PySpark source: `Window.orderBy(...)` (also reached through the module, `pyspark.sql.Window`,
or an instance, `Window()`) without `partitionBy(...)`, or a spec whose `partitionBy` is empty or only
constants (`partitionBy()`, `partitionBy(F.lit(1))`), ordered or not, or only a parameter of the
enclosing function that is empty unless a caller fills it (`part_cols=()`, `=None`, `=[]`, `*keys`;
`partitionBy(*part_cols)`, `partitionBy(keys or [])`) where some call in the file leaves it so or the
file never calls the function (a library's default); and a window in a query's text without
`PARTITION BY` (`spark.sql("SELECT ROW_NUMBER() OVER (ORDER BY k) ... FROM t")`, `count(*) OVER ()`,
`selectExpr(...)`, `F.expr(...)`). In source it is an `info`, advisory: the code does not show how many rows reach the
one partition (on a table read, blind reviewers of real jobs judged a third of them a note or
harmless: a small dimension table, a global numbering that needs one order). The message says
when the file uses it (`.over(w)`) on a DataFrame that reads a table or files, and when it does not
show how many rows it runs over (a parameter, or a spec used elsewhere). A warning when it runs over
a table or path the configuration declares large (`large-tables`). Not reported when it only runs over
rows built on the driver (a `createDataFrame`, a pandas frame), which one partition holds anyway, or
over one row per key (a grouped aggregate, `distinct()` values: a row per date, per group), where a
global order is usually the point and the keys are few enough for the author to rank.

## Why is this bad?
All rows of the DataFrame are moved to one partition and sorted by one task on one executor. Spark
itself warns "No Partition Defined for Window operation!". On real data this is slow and often runs
out of memory.

## Example
```plan
== Physical Plan ==
Window [row_number() windowspecdefinition(ts#2 ASC NULLS FIRST, specifiedwindowframe(RowFrame, unboundedpreceding$(), currentrow$())) AS rn#5], [ts#2 ASC NULLS FIRST]
+- *(2) Sort [ts#2 ASC NULLS FIRST], false, 0
   +- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=12]
      +- *(1) LocalTableScan [user#1, ts#2]
```
Use instead (`Window.partitionBy("user").orderBy("ts")`):
```plan
== Physical Plan ==
Window [row_number() windowspecdefinition(user#1, ts#2 ASC NULLS FIRST, specifiedwindowframe(RowFrame, unboundedpreceding$(), currentrow$())) AS rn#5], [user#1], [ts#2 ASC NULLS FIRST]
+- *(2) Sort [user#1 ASC NULLS FIRST, ts#2 ASC NULLS FIRST], false, 0
   +- Exchange hashpartitioning(user#1, 200), ENSURE_REQUIREMENTS, [plan_id=12]
      +- *(1) LocalTableScan [user#1, ts#2]
```

## Example (PySpark)
```python
from pyspark.sql import Window
w = Window.orderBy("ts")
```
Use instead:
```python
from pyspark.sql import Window
w = Window.partitionBy("user").orderBy("ts")
```

## Fix safety
Display-only in plans and source: add a `partitionBy(...)` on a key that splits the data while keeping the window's
meaning; for a global rank, consider computing it per partition and combining.

## Options
`large-tables` (configuration): tables and paths (globs) known to be large; in source, a finding
over one of them is a warning.
)md"};

void check_window_single_partition(PlanContext& ctx) {
  for (const PlanNode* w : ctx.physical_nodes()) {
    const auto* wi = w->as<plan::WindowInfo>();
    if (wi == nullptr || !wi->partition_spec.empty() || w->children.size() != 1) continue;
    const PlanNode* below = descend(w->children.front(), [](const PlanNode& n) {
      return is_wrapper(n) || n.kind == OpKind::sort || n.kind == OpKind::project;
    });
    const auto* x = below == nullptr ? nullptr : below->as<plan::ExchangeInfo>();
    if (x == nullptr || x->partitioning != plan::Partitioning::single) continue;
    // Severity follows evidence: the rows one task sorts are the exchange's (cost mode, AQE statistics).
    std::optional<double> bytes = below->stats.size_in_bytes;
    if (!bytes && below->children.size() == 1) bytes = below->children.front()->stats.size_in_bytes;
    if (bytes && *bytes < kWorthAFinding) continue;  // shown small: one task sorts it well
    auto& d = ctx.report(*w,
                         "window without partitionBy: every row is moved into a single partition and sorted by "
                         "one task",
                         "Partition the window", "Window.partitionBy(\"<key>\").orderBy(...)");
    d.related.push_back({ctx.location_of(*below), "the single-partition exchange"});
    if (!bytes) advise_unsized(d, "how many rows");
  }
}

// Source: Window.orderBy(...) without partitionBy(...) in the same specification.
namespace {

// Where the file applies window specs, indexed once per file: for each `.over(...)` in the arguments
// of a DataFrame step, the text between its parentheses (a spec's name, or a spec written inline),
// with the step.
class OverSites {
 public:
  explicit OverSites(const pyspark::SourceModel& m) : m_(m) {
    constexpr std::string_view kOver = ".over(";
    for (const auto& chain : m.chains)
      for (std::size_t i = 0; i < chain.links.size(); ++i)
        for (const auto& a : chain.links[i].args) {
          const std::string_view t = a.value.text();
          for (std::size_t at = t.find(kOver); at != std::string_view::npos; at = t.find(kOver, at + 1)) {
            const std::size_t open = at + kOver.size();
            int depth = 1;
            std::size_t close = open;
            for (; close < t.size() && depth > 0; ++close) depth += t[close] == '(' ? 1 : t[close] == ')' ? -1 : 0;
            if (depth != 0) continue;
            auto& list = by_spec_[std::string(trimmed(t.substr(open, close - 1 - open)))];
            if (list.empty() || list.back().first != &chain || list.back().second != i) list.emplace_back(&chain, i);
          }
        }
  }

  // How many rows the windows of spec `w` run over, at most, as far as the file shows. nullopt: the
  // file does not use it.
  [[nodiscard]] std::optional<pyspark::Volume> used_over(const pyspark::Chain& w, std::string_view cell_text,
                                                         const std::vector<std::string>& declared,
                                                         std::string& large) const {
    std::string key(w.assigned_to);
    if (key.empty() && w.pos.end_byte <= cell_text.size())
      key = std::string(trimmed(cell_text.substr(w.pos.start_byte, w.pos.end_byte - w.pos.start_byte)));
    auto found = by_spec_.find(key);
    if (found == by_spec_.end()) return std::nullopt;
    std::optional<pyspark::Volume> most;
    for (const auto& [chain, link] : found->second) {
      auto pipeline = chain->pipeline();
      const std::size_t index = pipeline.size() - chain->links.size() + link;
      const pyspark::Rows rows = pyspark::rows_before(m_, pipeline, index).rows;
      if (large.empty() && rows != pyspark::Rows::grouped) large = declared_large_read(pipeline, index, declared);
      // One row per key (a grouped aggregate, distinct values), as collect-large counts it: bounded by
      // what the author knows of the keys, and a global order over them is usually the point.
      const pyspark::Volume v = rows == pyspark::Rows::grouped ? pyspark::Volume::small : pyspark::volume_of(rows);
      if (!most || static_cast<int>(v) > static_cast<int>(*most)) most = v;
    }
    return most;
  }

 private:
  static std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }
  const pyspark::SourceModel& m_;
  std::unordered_map<std::string, std::vector<std::pair<const pyspark::Chain*, std::size_t>>> by_spec_;
};

}  // namespace

namespace {

// The first window of a query text without PARTITION BY (`ROW_NUMBER() OVER (ORDER BY k)`, `count(*)
// OVER ()`): the offset of its OVER in `text`, or npos. A named window (`OVER w`) is not looked into.
std::size_t unpartitioned_sql_window(std::string_view text) {
  std::string low(text);
  for (char& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (std::size_t at = low.find("over"); at != std::string::npos; at = low.find("over", at + 4)) {
    const bool word = (at == 0 || (std::isalnum(static_cast<unsigned char>(low[at - 1])) == 0 && low[at - 1] != '_'));
    std::size_t open = low.find_first_not_of(" \t\r\n", at + 4);
    if (!word || open == std::string::npos || low[open] != '(') continue;
    int depth = 0;
    std::size_t close = open;
    for (; close < low.size(); ++close) {
      depth += low[close] == '(' ? 1 : low[close] == ')' ? -1 : 0;
      if (depth == 0) break;
    }
    // `OVER (ORDER BY k)`, and `OVER ()` too (`count(*) OVER ()`): no PARTITION BY is one partition.
    const std::string_view spec = std::string_view(low).substr(open, close - open);
    if (spec.find("partition by") == std::string_view::npos) return at;
  }
  return std::string::npos;
}

}  // namespace

void check_window_single_partition_source(SourceContext& ctx) {
  const auto& m = ctx.model();
  std::string buffer;
  // Windows in SQL text: `spark.sql("SELECT ..., ROW_NUMBER() OVER (ORDER BY k) FROM t")`, also in
  // `selectExpr("...")` and `F.expr("...")`.
  auto sql_text = [&](const pyspark::Chain& chain, const pyspark::Expr& e) {
    if (!e.string_value()) return;
    const std::size_t over = unpartitioned_sql_window(e.text());
    if (over == std::string::npos) return;
    const auto start = static_cast<std::uint32_t>(e.pos().start_byte + over);
    auto& d = ctx.report(chain.cell, pyspark::Pos{start, start + 4},
                         "window without PARTITION BY in SQL text: Spark moves every row into one "
                         "partition (how many rows is not shown here)");
    d.severity = Severity::info;
    ctx.attach_fix(d, "Partition the window", Applicability::display_only,
                   "... OVER (PARTITION BY <key> ORDER BY ...)");
  };
  for (const auto& chain : m.chains) {
    if (in_test_code(m, chain)) continue;
    for (const auto& l : chain.links) {
      if (!l.is_call || l.args.empty()) continue;
      if (l.name == "sql") sql_text(chain, l.args[0].value);
      if (l.name == "selectExpr")
        for (const auto& a : l.args) sql_text(chain, a.value);
    }
    if (chain.root_is_call && !chain.root_args.empty()) {
      const std::string_view q = m.qualify(chain.root, buffer);
      if (q == "pyspark.sql.functions.expr" || q == "expr") sql_text(chain, chain.root_args[0].value);
    }
  }
  std::optional<OverSites> sites;  // built for the first window to judge: most files have none
  for (const auto& chain : m.chains) {
    if (chain.bound != nullptr) continue;
    const std::string_view q = m.qualify(chain.root, buffer);
    // `Window().orderBy(...)`: an instance of the class, as the class itself.
    if (chain.root_is_call && q != "Window" && !q.ends_with(".Window")) continue;
    // Parameters of the enclosing def that are empty unless a caller fills them (`part_cols=()`,
    // `*keys`), and whether a call in the file leaves them so.
    const pyspark::FunctionInfo* fn = chain.function.empty() ? nullptr : m.function(chain.function);
    auto empty_by_default = [&](std::string_view t) -> std::string_view {
      if (fn == nullptr) return {};
      if (t.starts_with("*")) t.remove_prefix(1);
      for (std::string_view tail : {" or []", " or ()", " or None"})
        if (t.ends_with(tail)) t.remove_suffix(tail.size());
      return fn->empty_default_params.contains(t) && !pyspark::every_call_passes(m, chain.function.view(), t)
                 ? t
                 : std::string_view();
    };
    // `Window`, as imported, or reached through a module's attributes (`pyspark.sql.Window`,
    // `pyspark.Window`): the spec's links start after it.
    std::size_t first = 0;
    if (q != "Window" && !q.ends_with(".Window")) {
      while (first < chain.links.size() && !chain.links[first].is_call && chain.links[first].name != "Window") ++first;
      if (first == chain.links.size() || chain.links[first].is_call || chain.links[first].name != "Window") continue;
      ++first;
    }
    const pyspark::Link* order = nullptr;
    const pyspark::Link* partition = nullptr;
    bool partitioned = false;
    std::string_view by_default;  // partitioned only by a parameter empty unless a caller fills it
    for (const auto& l : std::span(chain.links.begin() + first, chain.links.end())) {
      // `partitionBy()` with no key, or only constants (`partitionBy(F.lit(1))`): one partition still.
      if (l.name == "partitionBy") {
        partition = &l;
        for (const auto& a : l.args) {
          const std::string_view t = a.value.text();
          const std::size_t open = t.find("lit(");
          const bool constant =
              a.value.int_value().has_value() || (open != std::string_view::npos && (open == 0 || t[open - 1] == '.') &&
                                                  t.substr(0, open).find_first_of("() ") == std::string_view::npos);
          const std::string_view empty = constant ? std::string_view() : empty_by_default(t);
          if (!empty.empty()) by_default = empty;
          partitioned = partitioned || (!constant && empty.empty());
        }
      }
      if (l.name == "orderBy" && order == nullptr) order = &l;
    }
    // Ordered without a partition, or partitioned by nothing but constants or empty defaults (also
    // unordered: `F.sum(x).over(Window.partitionBy())` gathers every row too).
    if (partitioned || (order == nullptr && partition == nullptr)) continue;
    const bool ordered = order != nullptr;
    if (order == nullptr) order = partition;
    // Over rows built on the driver, one partition holds them anyway. Elsewhere advice (info): the
    // file does not show how many rows, even over a read of a table or files.
    if (!sites) sites.emplace(m);
    std::string large;  // a table or path declared large that the window runs over
    const std::optional<pyspark::Volume> volume =
        sites->used_over(chain, ctx.cell_text(chain.cell), ctx.options().large_tables, large);
    if (volume == pyspark::Volume::small) continue;
    auto& d = ctx.report(
        chain.cell, order->name_pos,
        std::string(ordered ? "window ordered without partitionBy" : "window partitioned by no key") +
            ": Spark moves every row into one partition" +
            (by_default.empty() ? "" : " when `" + std::string(by_default) + "` is left to its default (empty)") +
            (volume == pyspark::Volume::large ? "" : " (how many rows is not shown here)"));
    d.severity = large.empty() ? Severity::info : Severity::warning;
    if (!large.empty()) d.message += " (it runs over `" + large + "`, declared large)";
    ctx.attach_fix(d, "Partition the window", Applicability::display_only,
                   "Window.partitionBy(\"<key>\").orderBy(...)");
  }
}

}  // namespace planlint::rules
