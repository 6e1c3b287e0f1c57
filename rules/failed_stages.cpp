// failed-stages: stages that failed or were retried, and tasks that failed inside them.
#include <fmt/format.h>

#include "lint/eventlog_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kFailedStages{"SPK908",
                                    "failed-stages",
                                    "Stages failed or were retried, or their tasks failed",
                                    Severity::warning,
                                    FixAvailability::never,
                                    Impact::medium,
                                    R"md(## What it does
Reports each stage with a failed attempt (and how many attempts it took, with the first failure
reason) and each stage whose tasks failed or were killed, with their count. Stages cancelled only
because the application was shutting down (after the failure that ended it) are not repeated. The time it explains
is the time the failed and killed tasks ran, spread over the application's cores, plus, for a
retried stage, the duration of the attempts before the last.

## Why is this bad?
A failed task's work is thrown away and done again; a lost executor or a fetch failure makes Spark
recompute whole stages. Repeated out-of-memory failures point at skew or too little memory per
task; fetch failures at lost executors (spot instances, OOM kills).

## Example
```text
stage 12: 3 attempts (FetchFailed), 148 failed tasks of 2400
```
Use instead:
```text
stage 12: 1 attempt, 0 failed tasks (skew fixed, executors with room for their tasks)
```

## Fix safety
Display only: the remedy depends on the failure reason.

## Options
None.
)md"};

void check_failed_stages(EventLogContext& ctx) {
  for (const auto& [id, s] : ctx.app().stages) {
    const auto& m = s.m;
    std::uint64_t bad_tasks = m.failed_tasks + m.killed_tasks;
    if (s.failed_attempts == 0 && bad_tasks == 0) continue;
    // Stages cancelled because the application was going down are the failure's echo, not a failure.
    if (bad_tasks == 0 && s.failure_reason.find("cancelled because SparkContext was shut down") != std::string::npos)
      continue;
    std::string msg = fmt::format("stage {} ({})", s.id, s.name.empty() ? "unnamed" : s.name);
    if (s.failed_attempts > 0)
      msg += fmt::format(" failed {} time{} in {} attempt{}{}", s.failed_attempts, s.failed_attempts == 1 ? "" : "s",
                         s.attempts, s.attempts == 1 ? "" : "s",
                         s.failure_reason.empty() ? "" : ": " + s.failure_reason.substr(0, 200));
    if (bad_tasks > 0)
      msg += fmt::format("{} {} of {} tasks failed and {} were killed", s.failed_attempts > 0 ? ";" : ":",
                         m.failed_tasks, m.tasks, m.killed_tasks);
    std::int64_t explained = static_cast<std::int64_t>(m.failed_task_ms) / ctx.cores();
    if (s.attempts > 1 && s.failed_attempts > 0)
      explained += s.duration_ms() * (s.attempts - 1) / s.attempts;  // the attempts thrown away, as a share
    ctx.report_stage(s, std::move(msg), explained,
                     "read the failure reason: OutOfMemory means less data per task (skew, partitions) or more "
                     "memory; FetchFailed means lost executors (decommissioning, OOM kills)");
  }
}

}  // namespace planlint::rules
