// gc-pressure: a stage whose tasks spent more than a tenth of their time in garbage collection.
#include <fmt/format.h>

#include "lint/eventlog_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kGcPressure{"SPK903",
                                  "gc-pressure",
                                  "A stage's tasks spent more than a tenth of their time in GC",
                                  Severity::warning,
                                  FixAvailability::never,
                                  Impact::medium,
                                  R"md(## What it does
Finds stages whose tasks spent more than `gc-ratio` (10 %) of their time in JVM garbage
collection, computed as the Spark UI does: GC time over task duration (launch to finish), not over
executor run time, which GC can exceed. Only stages whose median task ran at least
`gc-min-task-ms` (1 s) count, and only when their GC adds up to `gc-min-ms` (10 s): a 50 ms task
with 10 ms of GC costs nothing worth tuning. The time
it explains is the stage's duration times its GC share.

## Why is this bad?
While the JVM collects garbage the task makes no progress. High GC means too many objects per
task: row-at-a-time Python or Scala UDFs, big `collect_list` buffers, Java serialization, or too
little memory per core.

## Example
```text
stage 9: task time 3.2 h, GC 48 min (25 %)
```
Use instead:
```text
Kryo serialization, built-in functions instead of UDFs, more memory per core: GC 4 %
```

## Fix safety
Display only: the remedy is in the job's code or configuration.

## Options
`--threshold KEY=VALUE` of `planlint eventlog`: `gc-ratio` (0.1), `gc-min-task-ms` (1000), `gc-min-ms` (10000).
)md"};

void check_gc_pressure(EventLogContext& ctx) {
  const auto& t = ctx.thresholds();
  for (const auto& [id, s] : ctx.app().stages) {
    const auto& m = s.m;
    if (m.task_ms == 0 || static_cast<std::int64_t>(s.q.median) < t.gc_min_task_ms) continue;
    double share = static_cast<double>(m.gc_ms) / static_cast<double>(m.task_ms);
    if (share <= t.gc_ratio || static_cast<std::int64_t>(m.gc_ms) < t.gc_min_ms) continue;
    std::string serializer = ctx.app().conf("spark.serializer");
    bool java = serializer.empty() || serializer.find("Kryo") == std::string::npos;
    std::string msg = fmt::format("stage {} ({}) spent {} of {} task time in GC ({:.0f} %)", s.id,
                                  s.name.empty() ? "unnamed" : s.name, format_ms(static_cast<std::int64_t>(m.gc_ms)),
                                  format_ms(static_cast<std::int64_t>(m.task_ms)), share * 100.0);
    auto explained = static_cast<std::int64_t>(static_cast<double>(s.duration_ms()) * std::min(1.0, share));
    ctx.report_stage(
        s, std::move(msg), explained,
        std::string(java ? "use Kryo (spark.serializer=org.apache.spark.serializer.KryoSerializer), " : "") +
            "replace row UDFs with built-in functions, and give each core more memory or less data");
  }
}

}  // namespace planlint::rules
