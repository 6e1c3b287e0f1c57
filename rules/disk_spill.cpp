// disk-spill: a stage whose tasks spilled to disk a large share of what they read.
#include <fmt/format.h>

#include "lint/eventlog_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kDiskSpill{"SPK902",
                                 "disk-spill",
                                 "A stage spilled to disk more than a tenth of what it read",
                                 Severity::warning,
                                 FixAvailability::never,
                                 Impact::high,
                                 R"md(## What it does
Finds stages whose tasks spilled to disk more than `spill-ratio` (0.1) of the shuffle data they
read (of their input when they read no shuffle), and at least `spill-min-bytes` (64 MiB). The time
it explains is an estimate: the stage's duration times the share of spilled bytes among all the
bytes the stage moved (spill, shuffle read and input). A stage of the RDD API (no SQL execution)
gets RDD advice: the partition count its call takes, not AQE or `spark.sql.shuffle.partitions`.

## Why is this bad?
A task that does not fit its sort or aggregation buffers in execution memory writes them to local
disk and reads them back, often several times: the stage runs at disk speed instead of memory
speed.

## Example
```text
stage 4: shuffle read 40 GiB, disk spill 22 GiB (ratio 0.55), 200 partitions
```
Use instead:
```text
more partitions (spark.sql.shuffle.partitions=800, or AQE) or more memory per core: no spill
```

## Fix safety
Display only: the remedy is in the job's configuration (partitions, executor memory) or code.

## Options
`--threshold KEY=VALUE` of `planlint eventlog`: `spill-ratio` (0.1), `spill-min-bytes` (67108864).
)md"};

void check_disk_spill(EventLogContext& ctx) {
  const auto& t = ctx.thresholds();
  for (const auto& [id, s] : ctx.app().stages) {
    const auto& m = s.m;
    if (m.disk_spill < t.spill_min_bytes) continue;
    bool shuffle = m.shuffle_read_bytes > 0;
    std::uint64_t base = shuffle ? m.shuffle_read_bytes : m.input_bytes;
    double ratio = base > 0 ? static_cast<double>(m.disk_spill) / static_cast<double>(base) : 1e9;
    if (ratio <= t.spill_ratio) continue;
    double moved = static_cast<double>(m.disk_spill + m.shuffle_read_bytes + m.input_bytes);
    auto explained = static_cast<std::int64_t>(static_cast<double>(s.duration_ms()) * m.disk_spill / moved);
    std::string msg =
        fmt::format("stage {} ({}) spilled {} to disk ({} in memory) against {} of {} read (ratio {}); {} partitions",
                    s.id, s.name.empty() ? "unnamed" : s.name, format_bytes(m.disk_spill), format_bytes(m.memory_spill),
                    format_bytes(base), shuffle ? "shuffle" : "input", base > 0 ? fmt::format("{:.2f}", ratio) : "n/a",
                    s.num_tasks);
    // A stage of no SQL execution runs the RDD API: its partitions are the code's (groupByKey(n),
    // repartition(n), spark.default.parallelism), and neither AQE nor spark.sql.* settings reach it.
    bool rdd = s.sql_execution < 0;
    ctx.report_stage(
        s, std::move(msg), explained,
        rdd ? fmt::format("give each task less data: more partitions than the {} it has (the count the RDD call takes, "
                          "e.g. groupByKey(numPartitions), or spark.default.parallelism), or more memory per task "
                          "(spark.executor.memory and fewer cores per executor; spark.python.worker.memory for "
                          "PySpark's own aggregation)",
                          s.num_tasks)
            : "give each task less data (more shuffle partitions, or AQE's coalescing from a higher initial count) or "
              "more memory per core (spark.executor.memory, fewer cores per executor)");
  }
}

}  // namespace planlint::rules
