// failed-stages: stages that failed or were retried, and tasks that failed inside them.
#include <fmt/format.h>

#include <algorithm>
#include <map>

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
a finding on its own.

Stages that failed the same way (the same call site and reason, numbers aside: a streaming job's
every batch) are one finding that lists them. Counts are of task attempts as the log has them (the
stage's task count is given when it differs); a stage failure that quotes a Python traceback shows
the exception that ended it. The fix follows the reasons: memory, lost executors, or an error in
the job's code or data (which retries do not mend). A finding that explains under a second is an
info, unless it ended the run (its job failed and no later job succeeded). Stages that were only
cancelled (the application shutting down after the failure that ended it, a job group or notebook
cell the user cancelled, a job killed from the UI) did not fail and are not reported. When the
stage finished, its failed attempts were mended by retries: the fix says it was a transient fault,
and when those attempts ran under a second in all there is no finding. The time it explains
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
// A kill because its stage or job was cancelled (by the user, or as the application went down).
bool cancelled(const std::string& reason) {
  return reason.find("cancel") != std::string::npos || reason.find("killed via the Web UI") != std::string::npos;
}

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

// What the reasons say to do: memory, lost executors, or the job's own code or data.
std::string fix_for(const std::string& reasons, bool retried_ok) {
  auto has = [&](std::string_view w) { return reasons.find(w) != std::string::npos; };
  if (has("OutOfMemory") || has("MemoryError") || has("exceeding memory") || has("exit code 137") ||
      has("Java heap space") || has("GC overhead"))
    return "out of memory: give each task less data (more partitions, the skewed key split) or more memory per "
           "task (spark.executor.memory, fewer cores per executor, memoryOverhead for Python)";
  if (has("FetchFailed") || has("ExecutorLost") || has("worker lost") || has("Container"))
    return "executors were lost (decommissioning, spot reclaims, OOM kills by the cluster manager, a bad node): "
           "read each executor's log; failures all on one host point at that node";
  if (retried_ok)
    return "the stage finished: its failed attempts were retried and passed, a transient fault (a flaky node, "
           "a service the code calls, a race); worth a look if it repeats";
  return "an error in the job's code or data (the exception above): fix it there; retries will not help";
}

// The text that says why a stage failed, with numbers (ids, task indexes, hosts) blanked: stages
// that failed the same way share it.
std::string same_way(const std::string& name, const std::string& reason) {
  return name + "|" + eventlog::blank_numbers(reason);
}

struct Failure {
  const eventlog::Stage* stage = nullptr;
  std::string message, reasons;
  std::int64_t explained = 0;
};

// Whether one of these stages' jobs failed and no job submitted after it succeeded: the
// application ended in that failure.
bool ended_the_run(const eventlog::Application& app, const std::vector<const Failure*>& fs) {
  for (const auto* f : fs) {
    auto job = app.jobs.find(f->stage->job);
    if (job == app.jobs.end() || job->second.succeeded || job->second.completed == 0) continue;
    bool later_ok = std::any_of(app.jobs.begin(), app.jobs.end(), [&](const auto& j) {
      return j.second.succeeded && j.second.completed > 0 && j.second.submitted > job->second.submitted;
    });
    if (!later_ok) return true;
  }
  return false;
}

}  // namespace

void check_failed_stages(EventLogContext& ctx) {
  std::vector<Failure> found;
  for (const auto& [id, s] : ctx.app().stages) {
    const auto& m = s.m;
    std::vector<eventlog::FailureGroup> groups = ctx.app().failures(s);
    std::uint64_t failed = 0, killed = 0, raced = 0;
    std::int64_t wasted_ms = 0;
    std::uint64_t stopped = 0;  // killed because their stage was cancelled
    for (const auto& g : groups) {
      if (g.status == eventlog::TaskStatus::killed && lost_a_race(g.reason))
        raced += g.tasks;
      else if (g.status == eventlog::TaskStatus::killed && cancelled(g.reason))
        stopped += g.tasks;
      else
        (g.status == eventlog::TaskStatus::killed ? killed : failed) += g.tasks;
    }
    for (const auto& t : s.tasks)
      if (t.status != eventlog::TaskStatus::success &&
          !(t.status == eventlog::TaskStatus::killed && t.reason < ctx.app().reasons.size() &&
            (lost_a_race(ctx.app().reasons[t.reason]) || cancelled(ctx.app().reasons[t.reason]))))
        wasted_ms += t.duration;
    if (s.tasks.empty()) {  // no task records (a log cut before them): the stage's counts
      failed = m.failed_tasks;
      killed = m.killed_tasks;
      wasted_ms = static_cast<std::int64_t>(m.failed_task_ms);
    }
    std::uint64_t bad_tasks = failed + killed;
    if (s.failed_attempts == 0 && bad_tasks == 0) continue;
    // Stages cancelled (the application going down after a failure, a job group or cell the user
    // cancelled, a job killed from the UI) did not fail: nothing in them went wrong.
    if (bad_tasks == 0 && (s.failure_reason.find("cancelled") != std::string::npos ||
                           s.failure_reason.find("killed via the Web UI") != std::string::npos))
      continue;
    // Failed attempts the retries mended within a second of task time cost nothing to act on.
    if (s.failed_attempts == 0 && wasted_ms < 1000) continue;
    Failure f;
    f.stage = &s;
    f.reasons = s.failure_reason;
    if (s.failed_attempts > 0)
      f.message += fmt::format(" failed {} in {}{}", counted(s.failed_attempts, "time"), counted(s.attempts, "attempt"),
                               s.failure_reason.empty() ? "" : ": " + s.failure_reason);
    if (bad_tasks > 0) {
      // Task attempts as the log has them; the stage's task count (partitions) can differ.
      f.message += fmt::format("{} {} of {} failed", s.failed_attempts > 0 ? ";" : ":", failed,
                               counted(m.tasks, "task attempt"));
      if (killed > 0) f.message += fmt::format(" and {} {} killed", killed, killed == 1 ? "was" : "were");
      if (s.num_tasks > 0 && s.num_tasks != m.tasks)
        f.message += fmt::format(" (a stage of {})", counted(s.num_tasks, "task"));
      std::size_t shown = 0;
      for (const auto& g : groups) {
        if (g.status == eventlog::TaskStatus::killed && (lost_a_race(g.reason) || cancelled(g.reason))) continue;
        if (shown++ == 4) {
          f.message += "; other reasons";
          break;
        }
        f.message += fmt::format("; {} {}: {}", g.tasks, g.status == eventlog::TaskStatus::killed ? "killed" : "failed",
                                 g.reason.empty() ? "(no reason recorded)" : g.reason);
        if (g.variants > 1) f.message += fmt::format(" (and {} like it, other ids or hosts)", g.variants - 1);
        if (!g.executors.empty()) f.message += " [" + where(g) + "]";
        f.reasons += " " + g.reason;
      }
    }
    if (stopped > 0)
      f.message += fmt::format("; {} killed when the stage was cancelled (not failures)", counted(stopped, "task"));
    if (raced > 0)
      f.message += fmt::format("; {} speculative cop{} killed because the other finished first (not failures)", raced,
                               raced == 1 ? "y was" : "ies were");
    f.explained = wasted_ms / ctx.cores();
    if (s.attempts > 1 && s.failed_attempts > 0)
      f.explained += s.duration_ms() * (s.attempts - 1) / s.attempts;  // the attempts thrown away, as a share
    found.push_back(std::move(f));
  }
  // Stages that failed the same way (a streaming job's every batch, a retried action) are one finding.
  std::vector<std::vector<const Failure*>> same;
  std::map<std::string, std::size_t> at;
  for (const auto& f : found) {
    auto [it, added] = at.try_emplace(same_way(f.stage->name, f.reasons), same.size());
    if (added) same.emplace_back();
    same[it->second].push_back(&f);
  }
  for (const auto& fs : same) {
    const Failure& first = *fs.front();
    const auto& s = *first.stage;
    std::string msg = fmt::format("stage {} ({}){}", s.id, s.name.empty() ? "unnamed" : s.name, first.message);
    std::int64_t explained = 0;
    for (const auto* f : fs) explained += f->explained;
    if (fs.size() > 1) {
      std::string ids;
      for (std::size_t i = 1; i < fs.size() && i <= 10; ++i)
        ids += (i > 1 ? ", " : "") + std::to_string(fs[i]->stage->id);
      if (fs.size() > 11) ids += fmt::format(" and {} more", fs.size() - 11);
      msg += fmt::format("; {} more stage{} failed the same way ({})", fs.size() - 1, fs.size() == 2 ? "" : "s", ids);
    }
    auto& f = ctx.report_stage(s, std::move(msg), explained, fix_for(first.reasons, s.failed_attempts == 0));
    // A failure that wasted under a second of the cluster's time is worth knowing, not a warning,
    // unless it ended the run: its job failed and no job after it succeeded.
    if (f.explained_ms < 1000 && !ended_the_run(ctx.app(), fs)) f.diagnostic.severity = Severity::info;
  }
}

}  // namespace planlint::rules
