// hardcoded-shuffle-partitions: shuffles with a fixed partition count in a plan without AQE.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "lint/plan_context.hpp"
#include "lint/shuffle_counts.hpp"
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kHardcodedShufflePartitions{"PL005",
                                                  "hardcoded-shuffle-partitions",
                                                  "Shuffles use a fixed partition count that nothing adapts",
                                                  Severity::warning,
                                                  FixAvailability::never,
                                                  R"md(## What it does
Reports the first shuffle of a plan without AQE whose partition count is fixed (hash, range or
round-robin partitioning with `n` partitions), and lists every count the plan uses. The count comes
from `spark.sql.shuffle.partitions` (200 unless set) or from a `repartition(n)`. In PySpark source it
reports a literal count set with `spark.conf.set`, `SparkSession.builder.config` (also `config(map={...})`), `SparkConf().set` /
`setAll([...])` (also on a name bound to `SparkConf()`), `sqlContext.setConf` or SQL `SET` (in
`spark.sql(...)`, `%sql` cells and Databricks `%scala` cells), with the key and value written
literally or held in module-level constants; not Spark's default 200 written out, not `"auto"` (Databricks), and not in a file whose
session runs with a `local[...]` master, where a small count is the right tuning.

## Why is this bad?
One number cannot fit every stage: 200 partitions of a 2 TB shuffle are 10 GB each and spill, while
200 partitions of 50 MB are 200 tiny tasks of scheduling overhead. A rule of thumb is about 128 MB per
partition, rounded to a multiple of the total executor cores:
`partitions ≈ max(cores, shuffle bytes / 128 MB)`. AQE does this per stage at runtime.

## Example
```plan
== Physical Plan ==
*(2) HashAggregate(keys=[k#1], functions=[count(1)])
+- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=15]
   +- *(1) HashAggregate(keys=[k#1], functions=[partial_count(1)])
      +- *(1) LocalTableScan [k#1]
```
Use instead (AQE coalesces partitions at runtime):
```plan
== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- HashAggregate(keys=[k#1], functions=[count(1)])
   +- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=15]
      +- HashAggregate(keys=[k#1], functions=[partial_count(1)])
         +- LocalTableScan [k#1]
```

## Example (PySpark)
```python
spark.conf.set("spark.sql.shuffle.partitions", 2000)
```
Use instead:
```python
spark.conf.set("spark.sql.adaptive.enabled", "true")
```

## Fix safety
PySpark source: removing a `spark.conf.set(...)` statement of its own is unsafe (offered with
`--unsafe-fixes`): the job then runs with the session's default or AQE's sizing, which is usually
better but changes its performance profile; settings inside builder chains or SQL are display-only.
Plans: display-only; enable AQE (`spark.sql.adaptive.enabled=true`, with
`spark.sql.adaptive.coalescePartitions.enabled`), or size `spark.sql.shuffle.partitions` from the
shuffle volume instead of a constant.

## Options
`tolerated-shuffle-partitions`: partition counts that are not reported, in plans and in source
(e.g. `[1]` for tests).
)md"};

void check_hardcoded_shuffle_partitions(PlanContext& ctx) {
  ShuffleCounts s = fixed_shuffles(ctx);
  if (s.adaptive) return;
  // Counts the project tolerates (tolerated-shuffle-partitions) are not reported, in plans as in source.
  const auto& tolerated = ctx.options().tolerated_shuffle_partitions;
  auto is_tolerated = [&](const plan::PlanNode* n) {
    auto count = n->as<plan::ExchangeInfo>()->num_partitions;
    return std::find(tolerated.begin(), tolerated.end(), *count) != tolerated.end();
  };
  s.exchanges.erase(std::remove_if(s.exchanges.begin(), s.exchanges.end(), is_tolerated), s.exchanges.end());
  for (auto t : tolerated) s.counts.erase(t);
  if (s.exchanges.empty()) return;
  ctx.report(*s.exchanges.front(),
             fmt::format("{} shuffle{} with a fixed partition count ({}) and AQE off: size partitions at about "
                         "128 MB each, a multiple of the executor core count",
                         s.exchanges.size(), s.exchanges.size() == 1 ? "" : "s", s.counts_text()),
             "Let AQE size shuffle partitions",
             "spark.conf.set(\"spark.sql.adaptive.enabled\", \"true\")\n"
             "# or: partitions = max(total_cores, shuffle_bytes // (128 * 1024 * 1024)), rounded to a multiple of "
             "total_cores\nspark.conf.set(\"spark.sql.shuffle.partitions\", partitions)");
}

// Source: a literal spark.sql.shuffle.partitions in spark.conf.set, SparkSession.builder.config, SparkConf().set or SQL
// SET.
void check_hardcoded_shuffle_partitions_source(SourceContext& ctx) {
  for (const auto& s : ctx.model().settings) {
    if (s.key != "spark.sql.shuffle.partitions" || !s.literal) continue;
    char* end = nullptr;
    long long v = std::strtoll(s.value.c_str(), &end, 10);
    // "auto" (Databricks' auto-optimized shuffle) is not a count; 200 is Spark's own default.
    if (end == s.value.c_str() || *end != '\0' || v == 200) continue;
    // A local session has its cores and nothing else: a small count is the right tuning there.
    if (ctx.model().local_master) continue;
    bool tolerated = end != s.value.c_str() && std::find(ctx.options().tolerated_shuffle_partitions.begin(),
                                                         ctx.options().tolerated_shuffle_partitions.end(),
                                                         v) != ctx.options().tolerated_shuffle_partitions.end();
    if (tolerated) continue;
    auto& d = ctx.report(s.cell, s.pos,
                         fmt::format("spark.sql.shuffle.partitions hard-coded to {} ({}): one count for every stage; "
                                     "let AQE size partitions (about 128 MB each) instead",
                                     s.value, s.via));
    Fix& f = ctx.attach_fix(
        d, "Remove the hard-coded setting", s.statement ? Applicability::unsafe : Applicability::display_only,
        "Remove the setting and keep spark.sql.adaptive.enabled=true (with "
        "spark.sql.adaptive.coalescePartitions.enabled), or compute the count from the data volume.");
    if (s.statement) SourceContext::add_edit(f, s.cell, s.statement->start_byte, s.statement->end_byte, "");
  }
}

}  // namespace planlint::rules
