// oversized-cluster: most tasks are tiny and most cores idle: the cluster is bigger than the job.
#include <fmt/format.h>

#include <cmath>

#include "lint/eventlog_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kOversizedCluster{"SPK906",
                                        "oversized-cluster",
                                        "Most tasks ran under 100 ms while most cores sat idle",
                                        Severity::warning,
                                        FixAvailability::never,
                                        Impact::high,
                                        R"md(## What it does
Reports an application that ran at least `oversized-min-run-ms` (5 min) in which most tasks (more
than half) ran under `tiny-task-ms` (100 ms) while its executors' cores were idle more than
`idle-ratio` (50 %) of the run: core time used by
tasks over cores × wall time. The time it explains is the run time times the idle share: the
share of the cluster paid for and not used.

## Why is this bad?
A cluster sized for a bigger job costs the same per hour whether its cores work or wait. The seed
guides' rule: if most tasks finish in under 100 ms, the cluster is oversized.

## Example
```text
64 cores for 40 min; tasks used 3 core-hours of 42 (7 %), median task 30 ms
```
Use instead:
```text
8 cores (or autoscaling with a lower maximum): same run time, an eighth of the cost
```

## Fix safety
Display only: the remedy is the cluster's size.

## Options
`--threshold KEY=VALUE` of `planlint eventlog`: `tiny-task-ms` (100), `idle-ratio` (0.5), `oversized-min-run-ms` (300000).
)md"};

void check_oversized_cluster(EventLogContext& ctx) {
  const auto& t = ctx.thresholds();
  const auto& app = ctx.app();
  std::uint64_t tasks = 0, tiny = 0, task_ms = 0;
  for (const auto& [id, s] : app.stages) {
    tasks += s.durations.size();
    task_ms += s.m.task_ms;
    for (auto d : s.durations) tiny += static_cast<std::int64_t>(d) < t.tiny_task_ms ? 1 : 0;
  }
  std::int64_t wall = app.duration_ms();
  if (tasks < 100 || wall < t.oversized_min_run_ms || app.max_cores() == 0) return;
  if (static_cast<double>(tiny) <= 0.5 * static_cast<double>(tasks)) return;
  double capacity = static_cast<double>(wall) * ctx.cores();
  double used = static_cast<double>(task_ms) / capacity;
  if (1.0 - used <= t.idle_ratio) return;
  std::string msg = fmt::format(
      "{} of {} tasks ran under {} ms and the {} cores were idle {:.0f} % of the {} run (tasks used {} of core time "
      "out of {})",
      tiny, tasks, t.tiny_task_ms, ctx.cores(), (1.0 - used) * 100.0, format_ms(wall),
      format_ms(static_cast<std::int64_t>(task_ms)), format_ms(static_cast<std::int64_t>(capacity)));
  auto suggested = std::max(1, static_cast<int>(std::lround(used * ctx.cores() * 2.0)));
  ctx.report_app(1, std::move(msg), static_cast<std::int64_t>(static_cast<double>(wall) * (1.0 - used)),
                 fmt::format("run on fewer cores (about {} would keep them half busy), or cap autoscaling", suggested));
}

}  // namespace planlint::rules
