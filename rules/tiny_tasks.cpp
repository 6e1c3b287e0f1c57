// tiny-tasks: a stage of thousands of tasks that each do almost nothing (small files, too many partitions).
#include <fmt/format.h>

#include "lint/eventlog_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kTinyTasks{"SPK904",
                                 "tiny-tasks",
                                 "A stage ran thousands of tasks that each took under 100 ms",
                                 Severity::warning,
                                 FixAvailability::never,
                                 Impact::medium,
                                 R"md(## What it does
Finds stages with at least `tiny-task-min-count` (1000) tasks whose median task ran under
`tiny-task-ms` (100 ms), when the stage took at least `tiny-stage-min-ms` (10 s): a table of many small files, or a shuffle with far more partitions than
its data needs. The message gives the input per task. The time it explains is measured: the time
the tasks spent outside their run time (scheduling, deserialization, result fetching), summed and
spread over the application's cores.

## Why is this bad?
Every task costs scheduling, a deserialized closure, a file open and a result sent back. Below
100 ms that overhead is most of the task: 2000 files of 1 MB read many times slower than 8 files
of 250 MB.

## Example
```text
stage 2: 12000 tasks, median 40 ms, 300 KiB of input each
```
Use instead:
```text
compact the table (OPTIMIZE, or rewrite with fewer files), or fewer shuffle partitions: 150 tasks
```

## Fix safety
Display only: the remedy is in the data's layout or the job's configuration.

## Options
`--threshold KEY=VALUE` of `planlint eventlog`: `tiny-task-ms` (100), `tiny-task-min-count` (1000), `tiny-stage-min-ms` (10000).
)md"};

void check_tiny_tasks(EventLogContext& ctx) {
  const auto& t = ctx.thresholds();
  for (const auto& [id, s] : ctx.app().stages) {
    if (s.durations.size() < t.tiny_task_min_count) continue;
    if (static_cast<std::int64_t>(s.q.median) >= t.tiny_task_ms) continue;
    if (s.duration_ms() < t.tiny_stage_min_ms) continue;  // a few seconds of overhead are not worth a change
    const auto& m = s.m;
    std::uint64_t n = s.durations.size();
    std::uint64_t overhead = m.task_ms > m.run_ms ? m.task_ms - m.run_ms : 0;
    std::string per_task = m.input_bytes > 0          ? format_bytes(m.input_bytes / n) + " of input"
                           : m.shuffle_read_bytes > 0 ? format_bytes(m.shuffle_read_bytes / n) + " of shuffle data"
                                                      : "no input";
    std::string msg = fmt::format("stage {} ({}) ran {} tasks with a median of {}, {} each", s.id,
                                  s.name.empty() ? "unnamed" : s.name, n, format_ms(s.q.median), per_task);
    std::string fix =
        m.input_bytes > 0
            ? "compact the input into files of 128 MiB to 1 GiB (OPTIMIZE on Delta, or rewrite), or raise "
              "spark.sql.files.maxPartitionBytes"
            : "use fewer shuffle partitions (spark.sql.shuffle.partitions, or AQE's coalescing)";
    ctx.report_stage(s, std::move(msg), static_cast<std::int64_t>(overhead) / ctx.cores(), std::move(fix));
  }
}

}  // namespace planlint::rules
