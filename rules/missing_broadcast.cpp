// missing-broadcast: a shuffle join (sort-merge or shuffled hash) where one side is known to be small.
#include <fmt/format.h>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

#include <algorithm>

#include "lint/eventlog_context.hpp"
#include "lint/plan_context.hpp"
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::OpKind;
using plan::PlanNode;

extern const RuleInfo kMissingBroadcast{"SPK102",
                                        "missing-broadcast",
                                        "A small table is joined with a shuffle instead of a broadcast",
                                        Severity::warning,
                                        FixAvailability::sometimes,
                                        Impact::high,
                                        R"md(## What it does
Finds `SortMergeJoin` and `ShuffledHashJoin` where one side is known to be small: its
`Statistics(sizeInBytes=...)` is at or under the broadcast threshold, it is a `LocalTableScan`
(data from the driver), or a `Range` of few rows; not when the other side is rows of the driver
too (a shuffle of a few rows costs nothing), nor when the other side's shuffle is the code's own
`repartition(...)` (the join reads it; a broadcast would not remove it). Only a side that the join type lets Spark broadcast
counts (the right side of a left outer / semi / anti join, the left side of a right outer join, either
side of an inner join). In an AQE plan that is not final, the join may still become a broadcast join
at runtime: the finding says so and is reported as `info`.

In PySpark source it finds `.join(other, ...)` where `other` is a `createDataFrame` of literal rows
or a table configured as small (`small-tables`); an empty one (`createDataFrame([], schema)`, often
the fallback of a branch) has nothing to send. Not reported when the DataFrame it is joined to is
small by construction as well (literal or driver-built rows, a few rows of `spark.range`, a
`limit(n)`, a global aggregate): shuffling a handful of rows costs nothing worth a change; nor in
test code. A warning where the other side is a read of a table or files (or a table the
configuration declares large, `large-tables`), an `info` where the code does not show its size (a
function's parameter, `spark.range(n)` of a computed `n`, a helper's result).

In an event log (`planlint eventlog`) it also uses the sizes measured at run time: a join whose
smaller side's exchange wrote less than the run's threshold (its SQL "data size" metric, named
`data size total (min, med, max)` before Spark 3) is reported with both sides' bytes, once (not
again from the plan text); a side whose exchange is an aggregate's shuffle is not counted (the
join reuses that partitioning: a broadcast would remove no shuffle), and a run that turned
automatic broadcasts off is told so.

## Why is this bad?
A shuffle join moves both sides across the network and sorts them. Broadcasting a small side sends it
once to every executor and joins without shuffling the big side at all.

## Example
```plan
== Physical Plan ==
*(5) SortMergeJoin [id#0L], [id#4L], Inner
:- *(2) Sort [id#0L ASC NULLS FIRST], false, 0
:  +- Exchange hashpartitioning(id#0L, 200), ENSURE_REQUIREMENTS, [plan_id=20]
:     +- *(1) Range (0, 100000000, step=1, splits=8)
+- *(4) Sort [id#4L ASC NULLS FIRST], false, 0
   +- Exchange hashpartitioning(id#4L, 200), ENSURE_REQUIREMENTS, [plan_id=26]
      +- *(3) LocalTableScan [id#4L, label#5]
```
Use instead (`big.join(broadcast(small), "id")`):
```plan
== Physical Plan ==
*(2) BroadcastHashJoin [id#0L], [id#4L], Inner, BuildRight, false
:- *(2) Range (0, 100000000, step=1, splits=8)
+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, false]),false), [plan_id=30]
   +- *(1) LocalTableScan [id#4L, label#5]
```

## Example (PySpark)
```python
labels = spark.createDataFrame([(1, "a"), (2, "b")], ["id", "label"])
out = events.join(labels, "id")
```
Use instead:
```python
from pyspark.sql.functions import broadcast
labels = spark.createDataFrame([(1, "a"), (2, "b")], ["id", "label"])
out = events.join(broadcast(labels), "id")
```

## Fix safety
PySpark source: wrapping the small side in `broadcast(...)` (and adding the import when missing)
is safe when the side is a `createDataFrame` of literals (PySpark ships those as an RDD without
statistics, so Spark cannot see they are small; a `spark.range(n)` it can, and is not reported):
the join's result is the same and the side fits in memory. For a table configured as small it is
unsafe: the size is an assumption. A `.limit(n)` side is not reported: Spark estimates its size from
`n` and broadcasts it by itself when that is under the threshold. Plans: display-only; wrap the small side in `broadcast(...)` (`from pyspark.sql.functions import broadcast`)
or add a `/*+ BROADCAST(t) */` hint in SQL.

## Options
`broadcast-threshold` (bytes, default 10 MiB, as `spark.sql.autoBroadcastJoinThreshold`).
)md"};

namespace {

struct SideSize {
  bool small = false;
  std::string why;
};

bool passes_to_source(const PlanNode& n) { return is_pass_through(n) || n.kind == OpKind::shuffle_exchange; }

SideSize side_size(const PlanNode* side, double threshold) {
  for (const PlanNode* n = side; n != nullptr; n = n->children.size() == 1 ? n->children.front() : nullptr) {
    if (n->stats.size_in_bytes) {
      double b = *n->stats.size_in_bytes;
      return {b <= threshold, fmt::format("its estimated size is {:.1f} KiB", b / 1024)};
    }
    if (n->kind == OpKind::local_table_scan) return {true, "it is a LocalTableScan (rows held by the driver)"};
    if (n->kind == OpKind::range && n->stats.row_count) {
      double b = static_cast<double>(*n->stats.row_count) * 8;
      return {b <= threshold, fmt::format("it is a Range of {} rows", *n->stats.row_count)};
    }
    if (!passes_to_source(*n)) break;
  }
  return {};
}

// Whether the first shuffle of `side` is the code's own repartition (`repartition(n, col)`): the
// join reads that partitioning, and a broadcast of the other side would not remove it.
bool repartitioned_by_code(const PlanNode* side) {
  for (const PlanNode* n = side; n != nullptr; n = n->children.size() == 1 ? n->children.front() : nullptr) {
    if (n->kind == OpKind::shuffle_exchange) {
      const auto* x = n->as<plan::ExchangeInfo>();
      return x != nullptr && x->origin.starts_with("REPARTITION_BY");
    }
    if (!is_pass_through(*n)) return false;
  }
  return false;
}

}  // namespace

void check_missing_broadcast(PlanContext& ctx) {
  double threshold = ctx.options().broadcast_threshold_bytes;
  for (const PlanNode* j : ctx.physical_nodes()) {
    const auto* ji = j->as<plan::JoinInfo>();
    if (ji == nullptr || j->children.size() != 2) continue;
    if (ji->strategy != "SortMergeJoin" && ji->strategy != "ShuffledHashJoin") continue;
    const std::string& t = ji->join_type;
    bool left_ok = t == "Inner" || t == "Cross" || t == "RightOuter" || t.empty();
    bool right_ok = t == "Inner" || t == "Cross" || t == "LeftOuter" || t == "LeftSemi" || t == "LeftAnti" ||
                    t.rfind("ExistenceJoin", 0) == 0 || t.empty();
    SideSize right = right_ok ? side_size(j->children[1], threshold) : SideSize{};
    SideSize left = left_ok ? side_size(j->children[0], threshold) : SideSize{};
    const char* which = right.small ? "right" : "left";
    const SideSize& s = right.small ? right : left;
    if (!s.small) continue;
    // Both sides rows of the driver: a shuffle of a few rows costs nothing worth a change. The other
    // side shuffled by the code's own repartition: that shuffle stays, broadcast or not.
    const PlanNode* other = right.small ? j->children[0] : j->children[1];
    if ((held_by_driver(*j->children[0]) && held_by_driver(*j->children[1])) || repartitioned_by_code(other)) continue;
    AqeState aqe = aqe_state(*j);
    std::string msg =
        fmt::format("{} shuffles both sides although the {} side is small ({})", ji->strategy, which, s.why);
    auto& d = ctx.report(*j, msg, "Broadcast the small side",
                         fmt::format("Broadcast the {} side: `big.join(broadcast(small), on=..., how=\"{}\")` "
                                     "(from pyspark.sql.functions import broadcast), or `/*+ BROADCAST(small) */` "
                                     "in SQL.",
                                     which, pyspark_how(t)));
    if (aqe == AqeState::not_final) {
      d.severity = Severity::info;
      d.message += "; AQE may still switch this join to a broadcast at runtime (this plan is not final)";
    }
  }
}

namespace {

// Why a DataFrame expression is evidently small, or "" when it is not known to be.
std::string small_because(const pyspark::Chain* c, const LintOptions& options, bool& certain) {
  certain = false;
  for (int guard = 0; c != nullptr && guard < 64; ++guard) {
    if (c->root_is_call && c->root == "pyspark.sql.functions.broadcast") return {};
    for (auto it = c->links.rbegin(); it != c->links.rend(); ++it) {
      const pyspark::Link& l = *it;
      // `.limit(n)` is not reported: Spark's statistics give a GlobalLimit n rows of an estimated
      // width, so a small limit is broadcast by itself under spark.sql.autoBroadcastJoinThreshold.
      if (l.name == "limit") return {};
      // No rows at all (`createDataFrame([], schema)`, often the fallback of a branch): nothing to send.
      if (l.name == "createDataFrame" && !l.args.empty() &&
          (l.args[0].value.text() == "[]" || l.args[0].value.text() == "()"))
        return {};
      if (l.name == "createDataFrame" && !l.args.empty() &&
          (l.args[0].value.kind() == "list" || l.args[0].value.kind() == "tuple")) {
        certain = true;
        return "it is a createDataFrame of literal rows";
      }
      // spark.range(n) is not reported: a Range knows its exact size (8 bytes a row), so Spark
      // broadcasts it by itself under spark.sql.autoBroadcastJoinThreshold.
      if (l.name == "range") return {};
      if (l.name == "table" && !l.args.empty() && l.args[0].value.string_value()) {
        const std::string t(*l.args[0].value.string_value());
        for (const auto& s : options.small_tables)
          if (s == t) return "table `" + t + "` is configured as small";
      }
    }
    c = c->bound;
  }
  return {};
}

}  // namespace

// Source: a.join(b, ...) where b is evidently small and not wrapped in broadcast(...).
void check_missing_broadcast_source(SourceContext& ctx) {
  const auto& m = ctx.model();
  for (const auto& chain : m.chains) {
    for (const auto& l : chain.links) {
      if (l.name != "join" || !l.is_call || l.args.empty()) continue;
      const pyspark::Arg* other = l.arg(0, "other");
      if (other == nullptr || other->value.chain() == nullptr) continue;
      const pyspark::Arg* how = l.arg(2, "how");
      std::string how_text(how != nullptr ? how->value.string_value().value_or("") : "inner");
      if (how_text == "right" || how_text == "right_outer" || how_text == "rightouter" || how_text == "full" ||
          how_text == "outer" || how_text == "full_outer" || how_text == "fullouter")
        continue;  // the right side cannot be broadcast for these join types
      bool certain = false;
      std::string why = small_because(other->value.chain(), ctx.options(), certain);
      if (why.empty() || in_test_code(m, chain)) continue;
      // Both sides small by construction (literal rows joined with a few rows): a shuffle of a few
      // rows costs nothing worth a change.
      const auto pipeline = chain.pipeline();
      const auto at =
          std::find_if(pipeline.begin(), pipeline.end(), [&](const pyspark::Step& s) { return s.link == &l; });
      const std::size_t index = static_cast<std::size_t>(at - pipeline.begin());
      const pyspark::Volume volume = at != pipeline.end()
                                         ? pyspark::volume_of(pyspark::rows_before(m, pipeline, index).rows)
                                         : pyspark::Volume::unknown;
      if (volume == pyspark::Volume::small) continue;
      auto& d = ctx.report(chain.cell, l.name_pos,
                           "join with `" + std::string(other->value.text()) + "` shuffles both sides although " + why +
                               ": broadcast it");
      // What the shuffle costs is the other side's size: a warning where the code shows it is a
      // read of a table or files (or the configuration declares it large), advice where it does
      // not (a parameter, `spark.range(n)` of a computed n, a helper's result).
      if (volume != pyspark::Volume::large) {
        const std::string large =
            at != pipeline.end() ? declared_large_read(pipeline, index, ctx.options().large_tables) : std::string();
        if (large.empty()) {
          d.severity = Severity::info;
          d.message += " (how many rows the other side has, the code does not show)";
        }
      }
      std::string spelling = functions_spelling(m, "broadcast");
      bool needs_import = spelling.empty();
      if (needs_import) spelling = "broadcast";
      Fix& f = ctx.attach_fix(d, "Wrap the small side in broadcast(...)",
                              certain ? Applicability::safe : Applicability::unsafe,
                              "`.join(" + spelling + "(" + std::string(other->value.text()) + "), ...)`" +
                                  (needs_import ? " with `from pyspark.sql.functions import broadcast`" : ""));
      const auto& p = other->value.pos();
      SourceContext::add_edit(f, chain.cell, p.start_byte, p.start_byte, spelling + "(");
      SourceContext::add_edit(f, chain.cell, p.end_byte, p.end_byte, ")");
      if (needs_import) {
        // At the top of the file (first cell), after a leading docstring/comment block is fine too:
        // Python accepts an import anywhere before use, and the first line is always before it.
        const pyspark::Cell* first = &m.file->cells.front();
        for (const auto& c : m.file->cells)
          if (c.language == pyspark::CellLanguage::python) {
            first = &c;
            break;
          }
        auto at = import_insertion_point(first->text);
        SourceContext::add_edit(f, first->number, at, at, "from pyspark.sql.functions import broadcast\n");
      }
    }
  }
}

}  // namespace planlint::rules

namespace planlint::rules {

namespace {

// The nearest exchange under a join side, through sorts, codegen and AQE's query stages and reads.
const eventlog::PlanMetricNode* side_exchange(const eventlog::SqlExecution& x, int at) {
  for (int depth = 0; at >= 0 && depth < 12; ++depth) {
    const auto& n = x.nodes[static_cast<std::size_t>(at)];
    if (n.name.find("Exchange") != std::string::npos && n.data_size_accumulator >= 0) return &n;
    // An exchange under an aggregate is the aggregate's shuffle: the join reuses its partitioning
    // and adds none, so broadcasting that side would remove no shuffle.
    if (n.name.find("Aggregate") != std::string::npos) return nullptr;
    if (n.children.size() != 1) return nullptr;
    at = n.children.front();
  }
  return nullptr;
}

// A size as Spark's configuration reads it (JavaUtils.byteStringAsBytes): "10485760", "10485760b",
// "10m", "10MB", "1g"; binary multiples. nullopt if not one.
std::optional<double> spark_conf_bytes(std::string_view v) {
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
  std::size_t digits = 0;
  while (digits < v.size() && std::isdigit(static_cast<unsigned char>(v[digits])) != 0) ++digits;
  if (digits == 0) return std::nullopt;
  std::uint64_t whole = 0;
  if (auto [end, ec] = std::from_chars(v.data(), v.data() + digits, whole); ec != std::errc())
    return std::nullopt;  // past 2^64 bytes: not a threshold Spark would take either
  auto n = static_cast<double>(whole);
  std::string unit;
  for (char c : v.substr(digits)) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (unit.empty() || unit == "b") return n;
  static constexpr std::pair<std::string_view, int> kUnits[] = {{"k", 1}, {"m", 2}, {"g", 3}, {"t", 4}, {"p", 5}};
  for (auto [u, power] : kUnits)
    if (unit == u || unit == std::string(u) + "b" || unit == std::string(u) + "ib") return n * std::pow(1024.0, power);
  return std::nullopt;
}

}  // namespace

// The event-log form: the shuffle each side of a sort-merge or shuffled hash join actually wrote
// (its exchange's "data size"), measured, not estimated.
void check_missing_broadcast_measured(lint::EventLogContext& ctx) {
  const auto& app = ctx.app();
  // The threshold this run had: its own setting, else the default (or the one given to planlint).
  double threshold = ctx.options().broadcast_threshold_bytes;
  std::string setting = app.conf("spark.sql.autoBroadcastJoinThreshold");
  bool disabled = !setting.empty() && setting.find_first_not_of(' ') != std::string::npos &&
                  setting[setting.find_first_not_of(' ')] == '-';
  if (auto run = spark_conf_bytes(setting); run && !disabled) threshold = std::min(*run, 1e18);
  for (const auto& [id, x] : app.sql) {
    for (const auto& n : x.nodes) {
      bool shuffled =
          n.name.find("SortMergeJoin") != std::string::npos || n.name.find("ShuffledHashJoin") != std::string::npos;
      if (!shuffled || n.children.size() != 2) continue;
      const std::string& s = n.simple;
      bool full = s.find("FullOuter") != std::string::npos;
      bool left_only = s.find("RightOuter") != std::string::npos;  // only the left side can be broadcast
      bool right_only = s.find("LeftOuter") != std::string::npos || s.find("LeftSemi") != std::string::npos ||
                        s.find("LeftAnti") != std::string::npos || s.find("ExistenceJoin") != std::string::npos;
      if (full) continue;
      const auto* l = side_exchange(x, n.children[0]);
      const auto* r = side_exchange(x, n.children[1]);
      if (l == nullptr || r == nullptr) continue;
      std::int64_t lb = app.measured_bytes(*l), rb = app.measured_bytes(*r);
      if (lb < 0 || rb < 0) continue;
      bool right_small = !left_only && static_cast<double>(rb) < threshold && rb <= lb;
      bool left_small = !right_only && static_cast<double>(lb) < threshold && lb < rb;
      if (!right_small && !left_small) continue;
      std::int64_t small = right_small ? rb : lb, big = right_small ? lb : rb;
      std::string under = disabled ? fmt::format(
                                         "under {} although this run turned automatic broadcasts off "
                                         "(spark.sql.autoBroadcastJoinThreshold={})",
                                         format_bytes(static_cast<std::uint64_t>(threshold)), setting)
                                   : fmt::format("under this run's broadcast threshold of {}",
                                                 format_bytes(static_cast<std::uint64_t>(threshold)));
      std::string msg = fmt::format(
          "{} in SQL execution {} shuffled both sides although its {} side measured {} (the other {}), {}: {}", n.name,
          id, right_small ? "right" : "left", format_bytes(static_cast<std::uint64_t>(small)),
          format_bytes(static_cast<std::uint64_t>(big)), under, s.substr(0, 120));
      auto& f = ctx.report_app(
          x.line, std::move(msg), 0,
          disabled ? "broadcast the small side explicitly (F.broadcast(df) or a BROADCAST hint), or remove the "
                     "spark.sql.autoBroadcastJoinThreshold=-1 setting"
                   : "broadcast the small side (F.broadcast(df) or a BROADCAST hint), or raise "
                     "spark.sql.autoBroadcastJoinThreshold above its measured size");
      f.stage_ms = x.ended > x.started ? x.ended - x.started : 0;
    }
  }
}

}  // namespace planlint::rules
