// failed-stages: stages that failed or were retried, and tasks that failed inside them.
#include <fmt/format.h>

#include <algorithm>

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
reason, whole) and each stage whose tasks failed or were killed, with their count and their
reasons: grouped by reason (the exception and its message; a Python worker's own exception), each
with the executors and hosts it happened on, so one bad node shows as one host. A speculative copy
killed because the other copy finished first is not a failure: it is counted apart and never makes
a finding on its own. Stages cancelled only
because the application was shutting down (after the failure that ended it) are not repeated. The time it explains
is the time the failed and killed tasks ran (speculative copies that lost the race apart), spread over the application's cores, plus, for a
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

namespace {

// A kill that is not a failure: the other copy of a speculative pair finished first.
bool lost_a_race(const std::string& reason) { return reason.find("another attempt succeeded") != std::string::npos; }

// "3 on executor 7 (host-a), 1 on executor 2 (host-b)"; "all 4 on host-a" when one host had them all.
std::string where(const eventlog::FailureGroup& g) {
  if (g.hosts.size() == 1 && g.executors.size() > 1)
    return fmt::format("all on host {} ({} executors)", g.hosts.begin()->first, g.executors.size());
  std::vector<std::pair<std::string, std::uint64_t>> ex(g.executors.begin(), g.executors.end());
  std::stable_sort(ex.begin(), ex.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (std::size_t i = 0; i < ex.size() && i < 3; ++i)
    out += fmt::format("{}{} on executor {}", i > 0 ? ", " : "", ex[i].second, ex[i].first);
  if (ex.size() > 3) out += fmt::format(", {} more executors", ex.size() - 3);
  if (g.hosts.size() == 1) out += " (host " + g.hosts.begin()->first + ")";
  return out;
}

}  // namespace

void check_failed_stages(EventLogContext& ctx) {
  for (const auto& [id, s] : ctx.app().stages) {
    const auto& m = s.m;
    std::vector<eventlog::FailureGroup> groups = ctx.app().failures(s);
    std::uint64_t failed = 0, killed = 0, raced = 0;
    std::int64_t wasted_ms = 0;
    for (const auto& g : groups) {
      if (g.status == eventlog::TaskStatus::killed && lost_a_race(g.reason))
        raced += g.tasks;
      else
        (g.status == eventlog::TaskStatus::killed ? killed : failed) += g.tasks;
    }
    for (const auto& t : s.tasks)
      if (t.status != eventlog::TaskStatus::success &&
          !(t.status == eventlog::TaskStatus::killed && t.reason < ctx.app().reasons.size() &&
            lost_a_race(ctx.app().reasons[t.reason])))
        wasted_ms += t.duration;
    if (s.tasks.empty()) {  // no task records (a log cut before them): the stage's counts
      failed = m.failed_tasks;
      killed = m.killed_tasks;
      wasted_ms = static_cast<std::int64_t>(m.failed_task_ms);
    }
    std::uint64_t bad_tasks = failed + killed;
    if (s.failed_attempts == 0 && bad_tasks == 0) continue;
    // Stages cancelled because the application was going down are the failure's echo, not a failure.
    if (bad_tasks == 0 && s.failure_reason.find("cancelled because SparkContext was shut down") != std::string::npos)
      continue;
    std::string msg = fmt::format("stage {} ({})", s.id, s.name.empty() ? "unnamed" : s.name);
    if (s.failed_attempts > 0)
      msg +=
          fmt::format(" failed {} time{} in {} attempt{}{}", s.failed_attempts, s.failed_attempts == 1 ? "" : "s",
                      s.attempts, s.attempts == 1 ? "" : "s", s.failure_reason.empty() ? "" : ": " + s.failure_reason);
    if (bad_tasks > 0) {
      msg += fmt::format("{} {} of {} task{} failed", s.failed_attempts > 0 ? ";" : ":", failed, m.tasks,
                         m.tasks == 1 ? "" : "s");
      if (killed > 0) msg += fmt::format(" and {} {} killed", killed, killed == 1 ? "was" : "were");
      std::size_t shown = 0;
      for (const auto& g : groups) {
        if (g.status == eventlog::TaskStatus::killed && lost_a_race(g.reason)) continue;
        if (shown++ == 4) {
          msg += "; other reasons";
          break;
        }
        msg += fmt::format("; {} {}: {}", g.tasks, g.status == eventlog::TaskStatus::killed ? "killed" : "failed",
                           g.reason.empty() ? "(no reason recorded)" : g.reason);
        if (g.variants > 1) msg += fmt::format(" (and {} like it, other ids or hosts)", g.variants - 1);
        if (!g.executors.empty()) msg += " [" + where(g) + "]";
      }
    }
    if (raced > 0)
      msg += fmt::format("; {} speculative cop{} killed because the other finished first (not failures)", raced,
                         raced == 1 ? "y was" : "ies were");
    std::int64_t explained = wasted_ms / ctx.cores();
    if (s.attempts > 1 && s.failed_attempts > 0)
      explained += s.duration_ms() * (s.attempts - 1) / s.attempts;  // the attempts thrown away, as a share
    ctx.report_stage(s, std::move(msg), explained,
                     "the reasons above: OutOfMemory means less data per task (skew, partitions) or more memory; "
                     "FetchFailed and ExecutorLost mean lost executors (decommissioning, OOM kills, spot); failures "
                     "all on one host point at that node");
  }
}

}  // namespace planlint::rules
