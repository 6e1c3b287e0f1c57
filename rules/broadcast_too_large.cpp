// broadcast-too-large: a broadcast side estimated over 1 GiB, or a broadcast threshold set above it.
#include <fmt/format.h>

#include <cctype>
#include <optional>

#include "lint/eventlog_context.hpp"
#include "lint/plan_context.hpp"
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::OpKind;
using plan::PlanNode;

extern const RuleInfo kBroadcastTooLarge{"SPK103",
                                         "broadcast-too-large",
                                         "A broadcast side is too large for the driver and every executor",
                                         Severity::warning,
                                         FixAvailability::never,
                                         Impact::high,
                                         R"md(## What it does
Plans: a `BroadcastExchange` (or its `BroadcastQueryStage`) whose estimated or measured size,
`Statistics(sizeInBytes=...)`, is over 1 GiB (or whose statistics count more than 67 million rows
with a size of 0 B, which a native engine prints when it does not measure bytes: 16 bytes a row, the
smallest a row takes, makes that over 1 GiB), and a logical `Join` hinted to broadcast a side of
that size (cost-mode explain). PySpark source: `spark.sql.autoBroadcastJoinThreshold` (or
`spark.sql.adaptive.autoBroadcastJoinThreshold`) set above 1 GiB.

In an event log (`planlint eventlog`) it also reports each broadcast exchange whose measured
"data size" passed 1 GiB.

## Why is this bad?
A broadcast is collected on the driver, then sent whole to every executor, which builds a hash table
of it in memory. Over about 1 GB this is a common cause of driver out-of-memory errors and long
broadcast timeouts, and Spark refuses to broadcast more than 8 GB at all. A sort-merge or shuffled
hash join moves the same data in parallel without a single-machine bottleneck.

## Example
```plan
== Physical Plan ==
*(2) BroadcastHashJoin [id#0L], [id#4L], Inner, BuildRight, false
:- *(2) Range (0, 100000000, step=1, splits=8)
+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, false]),false), [plan_id=30], Statistics(sizeInBytes=3.5 GiB)
   +- *(1) FileScan parquet db.dim[id#4L] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/dim], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<id:bigint>
```
Use instead (let Spark shuffle both sides):
```plan
== Physical Plan ==
*(5) SortMergeJoin [id#0L], [id#4L], Inner
:- *(2) Sort [id#0L ASC NULLS FIRST], false, 0
:  +- Exchange hashpartitioning(id#0L, 200), ENSURE_REQUIREMENTS, [plan_id=20]
:     +- *(1) Range (0, 100000000, step=1, splits=8)
+- *(4) Sort [id#4L ASC NULLS FIRST], false, 0
   +- Exchange hashpartitioning(id#4L, 200), ENSURE_REQUIREMENTS, [plan_id=26]
      +- *(3) FileScan parquet db.dim[id#4L] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/dim], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<id:bigint>
```

## Example (PySpark)
```python
spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "4g")
```
Use instead:
```python
spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "100m")
```

## Fix safety
Display-only: drop the `broadcast(...)` hint or `/*+ BROADCAST */` on that side, or lower the
threshold (default 10 MB; a few hundred MB is a common ceiling).

## Options
None.
)md"};

namespace {

constexpr double kLimit = 1024.0 * 1024 * 1024;  // 1 GiB
constexpr double kSmallestRow = 16;              // bytes: an UnsafeRow's null bits and one 8-byte field
constexpr double kSparkRefuses = 8.0 * 1024 * 1024 * 1024;

std::string size_text(double bytes) {
  if (bytes >= kLimit) return fmt::format("{:.1f} GiB", bytes / kLimit);
  return fmt::format("{:.0f} MiB", bytes / (1024 * 1024));
}

std::string why(double bytes) {
  return bytes > kSparkRefuses ? "over the 8 GB Spark accepts at all"
                               : "driver out-of-memory and broadcast timeout risk";
}

// The size of what a broadcast exchange sends: its own statistics, its query stage's, or the first
// statistics below it through operators that keep the rows.
// A size of 0 B over rows (`Statistics(sizeInBytes=0.0 B, rowCount=3.85E+8)`, as a native engine's
// query stage prints it) measures nothing: then `rows` gets the row count instead.
std::optional<double> broadcast_size(const PlanNode& b, std::optional<std::int64_t>& rows) {
  auto sized = [&](const PlanNode& n) -> std::optional<double> {
    if (n.stats.size_in_bytes && *n.stats.size_in_bytes == 0 && n.stats.row_count && *n.stats.row_count > 0) {
      if (!rows) rows = n.stats.row_count;
      return std::nullopt;
    }
    return n.stats.size_in_bytes;
  };
  if (auto s = sized(b)) return s;
  if (b.parent != nullptr && b.parent->kind == OpKind::query_stage)
    if (auto s = sized(*b.parent)) return s;
  for (const PlanNode* n = b.children.size() == 1 ? b.children.front() : nullptr; n != nullptr;
       n = n->children.size() == 1 ? n->children.front() : nullptr) {
    if (auto s = sized(*n)) return s;
    if (!is_pass_through(*n)) break;
  }
  return std::nullopt;
}

// Spark's size strings for configuration values: "10485760", "10m", "2g", "1gb", "512MB" (binary units).
std::optional<double> spark_size(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0) return std::nullopt;
  double v = std::stod(s.substr(0, i));
  std::string unit = s.substr(i);
  if (unit.empty() || unit == "b") return v;
  static const std::pair<const char*, int> units[] = {{"k", 1}, {"kb", 1}, {"m", 2}, {"mb", 2},
                                                      {"g", 3}, {"gb", 3}, {"t", 4}, {"tb", 4}};
  for (const auto& [u, power] : units)
    if (unit == u) {
      for (int p = 0; p < power; ++p) v *= 1024;
      return v;
    }
  return std::nullopt;
}

}  // namespace

void check_broadcast_too_large(PlanContext& ctx) {
  for (const PlanNode* n : ctx.physical_nodes()) {
    if (n->kind != OpKind::broadcast_exchange) continue;
    std::optional<std::int64_t> rows;
    auto size = broadcast_size(*n, rows);
    // Only rows counted: at 16 bytes a row (an UnsafeRow's smallest with one field), more than the
    // limit's worth is too large whatever the fields.
    if (!size && rows && static_cast<double>(*rows) * kSmallestRow > kLimit) {
      ctx.report(*n,
                 fmt::format("broadcast of {:.3g} rows (over {} at the smallest row size; the plan's byte size "
                             "is 0 B, which measures nothing): the driver collects it and every executor holds a copy",
                             static_cast<double>(*rows), size_text(kLimit)),
                 "Do not broadcast this side",
                 "Drop the broadcast(...) hint or /*+ BROADCAST */ for this side, or lower "
                 "spark.sql.autoBroadcastJoinThreshold, so Spark shuffles both sides instead.");
      continue;
    }
    if (!size || *size <= kLimit) continue;
    ctx.report(*n,
               fmt::format("broadcast of {} ({}): the driver collects it and every executor holds a copy",
                           size_text(*size), why(*size)),
               "Do not broadcast this side",
               "Drop the broadcast(...) hint or /*+ BROADCAST */ for this side, or lower "
               "spark.sql.autoBroadcastJoinThreshold, so Spark shuffles both sides instead.");
  }
  // Cost-mode logical plans: a Join hinted to broadcast a side whose statistics are over the limit.
  for (const auto& s : ctx.plan().sections) {
    if (s.section != plan::Section::optimized_logical) continue;
    for (const PlanNode* root : s.roots)
      plan::for_each_node(root, [&](const PlanNode& j) {
        if (j.kind != OpKind::join || j.children.size() != 2) return;
        for (int side = 0; side < 2; ++side) {
          const char* hint = side == 0 ? "leftHint=(strategy=broadcast)" : "rightHint=(strategy=broadcast)";
          const auto& bytes = j.children[static_cast<std::size_t>(side)]->stats.size_in_bytes;
          if (j.args.find(hint) == std::string::npos || !bytes || *bytes <= kLimit) continue;
          ctx.report(j,
                     fmt::format("join hinted to broadcast its {} side of {} ({})", side == 0 ? "left" : "right",
                                 size_text(*bytes), why(*bytes)),
                     "Do not broadcast this side", "Drop the broadcast hint for this side and let Spark shuffle.");
        }
      });
  }
}

void check_broadcast_too_large_source(SourceContext& ctx) {
  for (const auto& s : ctx.model().settings) {
    if ((s.key != "spark.sql.autoBroadcastJoinThreshold" && s.key != "spark.sql.adaptive.autoBroadcastJoinThreshold") ||
        !s.literal)
      continue;
    auto bytes = spark_size(s.value);
    if (!bytes || *bytes <= kLimit) continue;
    auto& d = ctx.report(s.cell, s.pos,
                         fmt::format("{} set to {} ({}, {}): tables up to that size are broadcast ({})", s.key, s.value,
                                     size_text(*bytes), s.via, why(*bytes)));
    ctx.attach_fix(d, "Lower the threshold", Applicability::display_only,
                   "Keep the threshold at a few hundred MB at most (default 10 MB); broadcast known-small tables "
                   "with broadcast(df).");
  }
}

}  // namespace planlint::rules

namespace planlint::rules {

// The event-log form: the bytes each broadcast exchange actually collected and sent ("data size").
void check_broadcast_too_large_measured(lint::EventLogContext& ctx) {
  const auto& app = ctx.app();
  for (const auto& [id, x] : app.sql) {
    for (const auto& n : x.nodes) {
      if (n.name.find("BroadcastExchange") == std::string::npos) continue;
      std::int64_t bytes = app.measured_bytes(n);
      if (static_cast<double>(bytes) <= kLimit) continue;
      std::string msg =
          fmt::format("{} in SQL execution {} measured {}: {}", n.name, id,
                      lint::format_bytes(static_cast<std::uint64_t>(bytes)), why(static_cast<double>(bytes)));
      auto& f =
          ctx.report_app(x.line, std::move(msg), 0,
                         "join it with a shuffle (no broadcast hint, a lower spark.sql.autoBroadcastJoinThreshold) "
                         "or filter and project the side before the join");
      f.stage_ms = x.ended > x.started ? x.ended - x.started : 0;
    }
  }
}

}  // namespace planlint::rules
