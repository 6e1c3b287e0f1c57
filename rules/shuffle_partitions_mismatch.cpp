// shuffle-partitions-mismatch: a big shuffle read by far more or far fewer partitions than its size needs.
#include <fmt/format.h>

#include <cmath>

#include "lint/eventlog_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kShufflePartitionsMismatch{"SPK905",
                                                 "shuffle-partitions-mismatch",
                                                 "A big shuffle was read with a partition count far from its size",
                                                 Severity::warning,
                                                 FixAvailability::never,
                                                 Impact::medium,
                                                 R"md(## What it does
Compares the partitions (tasks) of each stage that read a shuffle of at least `shuffle-min-bytes`
(1 GiB) with the seed guides' formula `N = ceil(shuffle_MB / 128 / total_cores) × total_cores`,
and reports counts off by more than `partition-tolerance` (2×), with the numbers. A configuration
of `spark.sql.shuffle.partitions=auto` (Databricks) is not a mismatch, a shuffle AQE already sized
(its stage reads it through `AQEShuffleRead`) is not either, and a log without executor events (no
core count) is not judged. The time it explains, when there are too many partitions, is the
measured task overhead (time outside run time) over the cores; with too few, the stage time beyond
perfect parallelism (task time over the cores). Under a second explained is an info.

When the count is not the configured `spark.sql.shuffle.partitions` the code asked for it
(`repartition(2)`): the fix says to change that call, not the setting. A stage of the RDD API (no
SQL execution) gets the RDD call's partition count as its fix.

## Why is this bad?
Too few partitions make big tasks that spill and leave cores idle; too many make tiny tasks whose
overhead dominates. The default of 200 fits neither a 2 GB nor a 2 TB shuffle.

## Example
```text
stage 5: 50 GB shuffle read, 32 cores, 200 partitions; formula: 416
```
Use instead:
```text
spark.sql.shuffle.partitions=416 (or AQE with advisoryPartitionSizeInBytes=128m)
```

## Fix safety
Display only: the remedy is in the job's configuration.

## Options
`--threshold KEY=VALUE` of `planlint eventlog`: `shuffle-min-bytes` (1073741824), `partition-tolerance` (2.0), `target-partition-mb` (128).
)md"};

void check_shuffle_partitions_mismatch(EventLogContext& ctx) {
  const auto& t = ctx.thresholds();
  if (ctx.app().conf("spark.sql.shuffle.partitions") == "auto") return;
  if (ctx.app().max_cores() == 0) return;  // no executor in the log: the formula has no core count
  auto cores = static_cast<std::uint64_t>(ctx.cores());
  for (const auto& [id, s] : ctx.app().stages) {
    const auto& m = s.m;
    if (m.shuffle_read_bytes < t.shuffle_min_bytes || s.num_tasks == 0) continue;
    double mb = static_cast<double>(m.shuffle_read_bytes) / (1024.0 * 1024.0);
    auto n = static_cast<std::uint64_t>(
        std::ceil(mb / static_cast<double>(t.target_partition_mb) / static_cast<double>(cores)) *
        static_cast<double>(cores));
    if (n == 0) continue;
    double factor = static_cast<double>(s.num_tasks) / static_cast<double>(n);
    if (factor <= t.partition_tolerance && factor >= 1.0 / t.partition_tolerance) continue;
    bool too_many = factor > 1.0;
    std::int64_t explained = 0;
    if (too_many) {
      explained = static_cast<std::int64_t>(m.task_ms > m.run_ms ? m.task_ms - m.run_ms : 0) / ctx.cores();
    } else {
      explained = s.duration_ms() - static_cast<std::int64_t>(m.task_ms / cores);
    }
    // Who chose the count: AQE (it coalesced or split the shuffle: nothing to set), the code (a
    // repartition(N) or a partition count other than the configured one), or the configuration.
    bool aqe = false;
    for (const auto& op : s.operators)
      aqe =
          aqe || op.find("AQEShuffleRead") != std::string::npos || op.find("CustomShuffleReader") != std::string::npos;
    if (aqe) continue;
    std::string configured = ctx.app().conf("spark.sql.shuffle.partitions", "200");
    // A stage of no SQL execution is the RDD API's: its partition count is the RDD call's
    // (groupByKey(n), reduceByKey(n), spark.default.parallelism); spark.sql settings do not reach it.
    bool rdd = s.sql_execution < 0;
    bool from_code = rdd || configured != std::to_string(s.num_tasks);
    std::string msg = fmt::format(
        "stage {} ({}) read a {:.0f} MB shuffle with {} partitions on {} cores; the formula ceil({:.0f} / {} / {}) x "
        "{} gives {}{}",
        s.id, s.name.empty() ? "unnamed" : s.name, mb, s.num_tasks, cores, mb, t.target_partition_mb, cores, cores, n,
        rdd ? " (an RDD stage: the count is the RDD call's)"
        : from_code
            ? fmt::format(" (spark.sql.shuffle.partitions is {}: the code asked for {})", configured, s.num_tasks)
            : "");
    std::string fix = rdd ? fmt::format(
                                "give the RDD call about {} partitions (groupByKey({}), reduceByKey({}), "
                                "repartition({}), or spark.default.parallelism={})",
                                n, n, n, n, n)
                      : from_code
                          ? fmt::format(
                                "change the partition count the code asks for (repartition({}) or coalesce({}) at the "
                                "call site) to about {}, or drop it and let AQE size the shuffle",
                                s.num_tasks, s.num_tasks, n)
                          : fmt::format(
                                "set spark.sql.shuffle.partitions={} for this query, or let AQE size them "
                                "(spark.sql.adaptive.coalescePartitions.enabled with "
                                "advisoryPartitionSizeInBytes={}m)",
                                n, t.target_partition_mb);
    auto& f = ctx.report_stage(s, std::move(msg), explained, std::move(fix));
    // A mismatch that costs under a second is worth knowing, not a warning.
    if (f.explained_ms < 1000) f.diagnostic.severity = Severity::info;
  }
}

}  // namespace planlint::rules
