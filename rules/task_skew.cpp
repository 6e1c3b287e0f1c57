// task-skew: a stage that waits for a few tasks far slower than its median.
#include <fmt/format.h>

#include "lint/eventlog_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kTaskSkew{"SPK901",
                                "task-skew",
                                "A stage's longest task runs far longer than its median task",
                                Severity::warning,
                                FixAvailability::never,
                                Impact::high,
                                R"md(## What it does
Finds stages of a finished application whose longest task ran more than `skew-ratio` (2) times
its median task, when that task ran at least `skew-min-task-ms` (10 s). It names the stage, the
operators that ran in it, the line of code it was called from and the task-duration spread
(min / 25th / median / 75th / max), and for stages of a join it gives AQE's skew-join settings.
The time it explains is the longest task minus the median: what the stage would save if its
largest partition were a typical one.

## Why is this bad?
A stage ends when its last task ends. One hot key (a null, a default customer id) puts most of
the rows into one partition; every other core sits idle while that task runs.

## Example
```text
stage 7: 200 tasks, median 2.1 s, max 95 s (join on customer_id)
```
Use instead:
```text
spark.sql.adaptive.skewJoin.enabled=true, or salt the hot key: median 2.3 s, max 4.0 s
```

## Fix safety
Display only: the remedy (AQE's skew join, salting, a broadcast of the small side, filtering the
null keys) is in the job's code or configuration.

## Options
`--threshold KEY=VALUE` of `planlint eventlog`: `skew-ratio` (2.0), `skew-min-task-ms` (10000).
)md"};

void check_task_skew(EventLogContext& ctx) {
  const auto& t = ctx.thresholds();
  for (const auto& [id, s] : ctx.app().stages) {
    if (s.durations.size() < 4) continue;  // a spread needs a few tasks
    const auto& q = s.q;
    if (static_cast<std::int64_t>(q.max) < t.skew_min_task_ms) continue;
    if (static_cast<double>(q.max) <= t.skew_ratio * static_cast<double>(q.median)) continue;
    const std::string& plan = ctx.plan_of(s);
    bool join = plan.find("SortMergeJoin") != std::string::npos || plan.find("ShuffledHashJoin") != std::string::npos;
    if (auto x = ctx.app().sql.find(s.sql_execution); x != ctx.app().sql.end())
      for (const auto& n : x->second.nodes)
        join = join || n.name.find("SortMergeJoin") != std::string::npos ||
               n.name.find("ShuffledHashJoin") != std::string::npos;
    std::string ops;
    for (std::size_t i = 0; i < s.operators.size() && i < 4; ++i) ops += (i > 0 ? ", " : "") + s.operators[i];
    std::string msg = fmt::format(
        "stage {} ({}) is skewed: its longest task ran {} against a median of {} ({:.1f}x; tasks min {} / p25 {} / "
        "median {} / p75 {} / max {}, {} tasks){}",
        s.id, s.name.empty() ? "unnamed" : s.name, format_ms(q.max), format_ms(q.median),
        q.median > 0 ? static_cast<double>(q.max) / q.median : 0.0, format_ms(q.min), format_ms(q.p25),
        format_ms(q.median), format_ms(q.p75), format_ms(q.max), s.durations.size(),
        ops.empty() ? "" : "; operators: " + ops);
    std::string fix =
        join ? "a skewed join: enable AQE's skew join (spark.sql.adaptive.enabled and "
               "spark.sql.adaptive.skewJoin.enabled, tuned by skewJoin.skewedPartitionFactor and "
               "skewedPartitionThresholdInBytes), broadcast the small side, or salt the hot key"
             : "find the hot key (groupBy(key).count() ordered by count) and salt it, filter null keys early, or "
               "repartition on a key with more distinct values";
    ctx.report_stage(s, std::move(msg), static_cast<std::int64_t>(q.max) - q.median, std::move(fix));
  }
}

}  // namespace planlint::rules
