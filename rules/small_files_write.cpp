// small-files-write: a write fed by a repartition that makes many small files.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "lint/plan_context.hpp"
#include "lint/source_context.hpp"
#include "plan/line_reader.hpp"
#include "plan/operator_fields.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::ExchangeInfo;
using plan::PlanNode;

extern const RuleInfo kSmallFilesWrite{"SPK403",
                                       "small-files-write",
                                       "A write makes many small files",
                                       Severity::warning,
                                       FixAvailability::never,
                                       Impact::medium,
                                       R"md(## What it does
Finds writes fed by a repartition that makes many small files:
- `repartition(n)` (round robin, or `repartition(n, col)`) with `n` of 1000 or more right before a
  write: one file per task, `n` files;
- a partitioned write (`partitionBy(...)`, `PARTITIONED BY`, a dynamic partition insert) fed by a
  repartition into 100 or more partitions (or by columns, into `spark.sql.shuffle.partitions`) whose
  keys include none of the partition columns: every task writes a file into every partition value it
  holds, up to `n × partitions` files. A repartition by a partition column and others (a salt that
  spreads a large value over a few tasks) is not reported. A handful of tasks (`repartition(4)`) makes a handful of files.

Plans: `InsertIntoHadoopFsRelationCommand` (its partition columns) over `WriteFiles`, sorts and
projections down to a user repartition (`REPARTITION_BY_NUM`, `REPARTITION_BY_COL`, round robin).
PySpark source: `.repartition(...)` followed, through steps that keep partitions, by `.write`, with
`.partitionBy(...)` or a `partitionBy=` argument. Not reported when Delta's optimized writes are on
(`.option("optimizeWrite", "true")`, `spark.databricks.delta.optimizeWrite.enabled` or the
`autoOptimize.optimizeWrite` table default): they bin-pack the rows into large files. An `info` when
the file compacts what it wrote (auto compaction on, `OPTIMIZE`, `DeltaTable....optimize()`: the small
files cost a rewrite) or runs on a local session.

## Why is this bad?
Each file costs a task to read later, plus listing and metadata: ten thousand 1 MB files read far
slower than a hundred 100 MB files of the same data, and object stores charge per request.

## Example
```plan
== Physical Plan ==
Execute InsertIntoHadoopFsRelationCommand file:/out, false, [day#3], Parquet, [path=file:/out], Overwrite, [id, v, day]
+- WriteFiles
   +- *(1) Sort [day#3 ASC NULLS FIRST], false, 0
      +- Exchange RoundRobinPartitioning(400), REPARTITION_BY_NUM, [plan_id=10]
         +- *(1) FileScan parquet db.events[id#1,v#2,day#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/events], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<id:bigint,v:int,day:string>
```
Use instead (repartition by the partition column: one file per day):
```plan
== Physical Plan ==
Execute InsertIntoHadoopFsRelationCommand file:/out, false, [day#3], Parquet, [path=file:/out], Overwrite, [id, v, day]
+- WriteFiles
   +- *(1) Sort [day#3 ASC NULLS FIRST], false, 0
      +- Exchange hashpartitioning(day#3, 200), REPARTITION_BY_COL, [plan_id=10]
         +- *(1) FileScan parquet db.events[id#1,v#2,day#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/events], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<id:bigint,v:int,day:string>
```

## Example (PySpark)
```python
events.repartition(400).write.partitionBy("day").parquet("s3://out/events")
```
Use instead:
```python
events.repartition("day").write.partitionBy("day").parquet("s3://out/events")
```

## Fix safety
Display-only: repartition by the partition columns (`repartition("day")`), or to a count sized
from the data (about 128 MB a file); `coalesce(n)` reduces files without a shuffle.

## Options
None.
)md"};

namespace {

constexpr std::int64_t kManyFiles = 1000;  // files from one unpartitioned write
constexpr std::int64_t kManyTasks = 100;   // tasks that each write into every partition value

// What a write node writes into: the partition columns of InsertIntoHadoopFsRelationCommand
// (`path, false, [p#3], Parquet, ...`), or nullopt when the node is not such a write.
std::optional<std::vector<plan::AttributeRef>> written_partitions(const PlanNode& n) {
  const std::string* a = n.detail("Arguments");
  std::string_view args = a != nullptr ? std::string_view(*a) : std::string_view(n.args);
  std::string_view name = n.name;
  if (name == "Execute") {
    auto space = args.find(' ');
    name = args.substr(0, space);
    args = space == std::string_view::npos ? std::string_view{} : args.substr(space + 1);
  }
  if (name != "InsertIntoHadoopFsRelationCommand") return std::nullopt;
  auto items = plan::split_top_level(args);
  if (items.size() < 3) return std::vector<plan::AttributeRef>{};
  return plan::scan_attribute_refs(items[2]);
}

// Whether a repartition key is one of the written partition columns: each task then holds rows of
// few partition values (other keys, such as a salt, spread one value over a few tasks on purpose).
bool shares_a_column(const std::vector<plan::AttributeRef>& keys, const std::vector<plan::AttributeRef>& cols) {
  return std::any_of(keys.begin(), keys.end(), [&](const plan::AttributeRef& k) {
    return std::any_of(cols.begin(), cols.end(), [&](const plan::AttributeRef& c) { return k.same_attribute(c); });
  });
}

}  // namespace

void check_small_files_write(PlanContext& ctx) {
  for (const PlanNode* w : ctx.physical_nodes()) {
    auto partitions = written_partitions(*w);
    if (!partitions || w->children.size() != 1) continue;
    const PlanNode* x = descend(w->children.front(), [](const PlanNode& n) {
      return is_pass_through(n) || plan::base_operator_name(n.name) == "WriteFiles";
    });
    const auto* ex = x == nullptr ? nullptr : x->as<ExchangeInfo>();
    if (ex == nullptr || !is_user_repartition(*ex) || !ex->num_partitions) continue;
    std::int64_t n = *ex->num_partitions;
    if (!partitions->empty()) {
      if (n < kManyTasks || shares_a_column(ex->key_refs, *partitions)) continue;
      ctx.report(
          *x,
          fmt::format("repartition into {} partitions not by the written partition columns [{}]: every task "
                      "writes a file into every partition value it holds (up to {} x partitions files)",
                      n, join_refs(*partitions), n),
          "Repartition by the partition columns",
          fmt::format("df.repartition({}).write.partitionBy({})...", join_refs(*partitions), join_refs(*partitions)));
    } else if (n >= kManyFiles) {
      ctx.report(*x, fmt::format("repartition into {} partitions right before a write: {} files", n, n),
                 "Size the output files",
                 "Repartition to about total bytes / 128 MB partitions, or coalesce(n) without a shuffle.");
    }
  }
}

namespace {

// The partition columns a write chain names: .partitionBy("a", "b") or partitionBy=... on the save call.
std::optional<std::vector<std::string>> partition_columns(const std::vector<pyspark::Step>& pipeline,
                                                          std::size_t from) {
  std::optional<std::vector<std::string>> out;
  for (std::size_t k = from; k < pipeline.size(); ++k) {
    const pyspark::Link& l = *pipeline[k].link;
    if (l.name == "partitionBy" || l.name == "partitionedBy") {
      out.emplace();
      for (const auto& a : l.args)
        out->insert(out->end(), a.value.column_names().begin(), a.value.column_names().end());
    }
    for (const auto& a : l.args)
      if (a.keyword == "partitionBy") {
        out.emplace();
        out->insert(out->end(), a.value.column_names().begin(), a.value.column_names().end());
      }
  }
  return out;
}

bool truthy(std::string_view v) { return v == "true" || v == "True" || v == "TRUE" || v == "\"true\""; }

// Delta's optimized writes bin-pack rows into large files before writing (`optimizeWrite` on the
// write, or turned on for the session or as a table default): the repartition makes no small files.
bool optimized_write(const pyspark::SourceModel& m, const std::vector<pyspark::Step>& pipeline, std::size_t from) {
  for (std::size_t k = from; k < pipeline.size(); ++k) {
    const pyspark::Link& l = *pipeline[k].link;
    if (l.name != "option" || l.args.size() < 2) continue;
    auto key = l.args[0].value.string_value();
    if (key && ((*key).ends_with("optimizeWrite") || (*key).ends_with("optimizeWrite.enabled")) &&
        (truthy(l.args[1].value.text()) ||
         (l.args[1].value.string_value() && truthy(*l.args[1].value.string_value())) ||
         l.args[1].value.bool_value().value_or(false)))
      return true;
  }
  return std::any_of(m.settings.begin(), m.settings.end(), [](const pyspark::ConfSetting& s) {
    return (s.key.ends_with("optimizeWrite.enabled") || s.key.ends_with("autoOptimize.optimizeWrite")) &&
           truthy(s.value);
  });
}

// Where the file compacts what it wrote: Delta auto compaction turned on, `OPTIMIZE` in SQL text, or
// `DeltaTable....optimize()`. The small files live until then; the line of the first, or 0.
std::uint32_t compaction_line(const pyspark::SourceModel& m) {
  for (const auto& s : m.settings)
    if ((s.key.ends_with("autoCompact.enabled") || s.key.ends_with("autoOptimize.autoCompact")) && truthy(s.value))
      return m.place(s.cell, s.pos).line;
  for (const auto& c : m.chains)
    for (const auto& l : c.links) {
      if (!l.is_call) continue;
      if (l.name == "optimize" || l.name == "executeCompaction") return m.place(c.cell, l.name_pos).line;
      if (l.name != "sql" || l.args.empty()) continue;
      std::string_view q = l.args[0].value.text();
      std::size_t at = q.find_first_not_of("\"'fFrR \t\n");
      if (at != std::string_view::npos && q.size() - at >= 8) {
        std::string word(q.substr(at, 8));
        for (char& ch : word) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        if (word == "OPTIMIZE") return m.place(c.cell, l.name_pos).line;
      }
    }
  return 0;
}

}  // namespace

void check_small_files_write_source(SourceContext& ctx) {
  std::set<std::pair<int, std::uint32_t>> reported;
  std::optional<std::uint32_t> compacted;  // found once, when needed
  for_each_write(
      ctx.model(), [&](const std::vector<pyspark::Step>& pipeline, std::size_t i, const pyspark::Step& step) {
        const pyspark::Step* prev = &step;
        if (prev->link->name != "repartition" || prev->link->args.empty()) return;
        const pyspark::Link& r = *prev->link;
        std::optional<std::int64_t> n = r.args[0].value.int_value();
        std::vector<std::string> keys;
        for (std::size_t a = n ? 1 : 0; a < r.args.size(); ++a)
          keys.insert(keys.end(), r.args[a].value.column_names().begin(), r.args[a].value.column_names().end());
        auto parts = partition_columns(pipeline, i + 1);
        std::string message;
        if (parts && !parts->empty()) {
          // By a partition column (with others or not, such as a salt that spreads a large value over
          // a few tasks on purpose): each task holds rows of few partition values.
          bool by_partitions = std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
            return std::find(parts->begin(), parts->end(), k) != parts->end();
          });
          if (by_partitions || (n && *n < kManyTasks)) return;
          std::string cols;
          for (const auto& p : *parts) cols += (cols.empty() ? "\"" : ", \"") + p + "\"";
          message = fmt::format(
              "`repartition({})` is not by the partition columns ({}): every task writes a file into "
              "every partition value it holds ({} x partitions files)",
              r.args[0].value.text(), cols, n ? std::to_string(*n) : "spark.sql.shuffle.partitions");
        } else if (n && *n >= kManyFiles && keys.empty()) {
          message = fmt::format("`repartition({})` right before a write makes {} files", *n, *n);
        } else {
          return;
        }
        if (optimized_write(ctx.model(), pipeline, i + 1)) return;
        if (!reported.insert({prev->chain->cell, r.name_pos.start_byte}).second) return;
        auto& d = ctx.report(prev->chain->cell, r.name_pos, message);
        if (!compacted) compacted = compaction_line(ctx.model());
        if (*compacted != 0) {
          d.severity = Severity::info;
          d.message += fmt::format(" (the file compacts them afterwards, line {}: they cost a rewrite)", *compacted);
        } else if (ctx.model().local_master) {
          d.severity = Severity::info;
          d.message += " (a local session: files on one machine's disk)";
        }
        ctx.attach_fix(d, "Repartition by the partition columns", Applicability::display_only,
                       parts && !parts->empty()
                           ? "Repartition by the partition columns (`.repartition(\"" + parts->front() +
                                 "\")`), or to a count sized from the data."
                           : "Repartition to about total bytes / 128 MB partitions, or use coalesce(n).");
      });
}

}  // namespace planlint::rules
