// task-skew: a stage that waits for a few tasks far slower than its median.
#include <fmt/format.h>

#include <algorithm>

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

It tells the causes apart from the longest task's own metrics, because each needs other advice:
- **data skew**: the task read at least twice the records (or bytes) of the median task: a hot key.
  Advice: AQE's skew join for a join, salting, filtering null keys.
- **a straggler**: the task read about what its siblings did (at most 1.5x) and spent under half of
  its run time on CPU, not much more CPU than the median task: the time went to a slow or busy
  node, GC or I/O, not to its data. The message names its executor and host and any speculative
  copies; the advice is the node and `spark.speculation`, never salting.
- **uneven work**: the same amount read but at least twice the median's CPU time: some rows cost
  more than others (large arrays, an explode, a UDF).
When the log has no read metrics the message says so and gives the skew advice.

## Why is this bad?
A stage ends when its last task ends. One hot key (a null, a default customer id) puts most of
the rows into one partition; every other core sits idle while that task runs.

## Example
```text
stage 7: 200 tasks, median 2.1 s, max 95 s (join on customer_id); the longest read 41x the median's records
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

namespace {

using eventlog::Stage;
using eventlog::Task;
using eventlog::TaskStatus;

std::uint64_t median_of(std::vector<std::uint64_t> v) {
  std::sort(v.begin(), v.end());
  return eventlog::quantile(v, 0.5);
}

double ratio(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

// What made the slowest task slow, from what it read and how much of its time was CPU.
enum class Cause { data_skew, straggler, work_skew, unknown };

struct Diagnosis {
  Cause cause = Cause::unknown;
  std::string evidence;
};

Diagnosis diagnose(const EventLogContext& ctx, const Stage& s, const Task& slow) {
  std::vector<std::uint64_t> records, bytes, cpu;
  for (const auto& t : s.tasks) {
    if (t.status != TaskStatus::success) continue;
    records.push_back(t.read_records);
    bytes.push_back(t.read_bytes);
    cpu.push_back(t.cpu_ms);
  }
  std::uint64_t med_records = median_of(records), med_bytes = median_of(bytes), med_cpu = median_of(cpu);
  bool by_records = med_records > 0 || slow.read_records > 0;
  double read = by_records ? ratio(slow.read_records, med_records) : ratio(slow.read_bytes, med_bytes);
  bool read_known = by_records || med_bytes > 0 || slow.read_bytes > 0;
  Diagnosis d;
  const auto& app = ctx.app();
  std::string where = slow.executor < app.executor_ids.size()
                          ? fmt::format("executor {} on {}", app.executor_ids[slow.executor],
                                        app.executor_hosts[slow.executor].empty() ? std::string("an unnamed host")
                                                                                  : app.executor_hosts[slow.executor])
                          : std::string("an unknown executor");
  std::string what_read =
      by_records ? fmt::format("{} records against a median of {}", slow.read_records, med_records)
                 : fmt::format("{} against a median of {}", format_bytes(slow.read_bytes), format_bytes(med_bytes));
  double cpu_share = slow.run_ms > 0 ? static_cast<double>(slow.cpu_ms) / static_cast<double>(slow.run_ms) : -1.0;
  if (read_known && (read >= 2.0 || (med_records == 0 && by_records && slow.read_records > 0) ||
                     (!by_records && med_bytes == 0 && slow.read_bytes > 0))) {
    d.cause = Cause::data_skew;
    d.evidence = fmt::format("it read {} ({}): data skew", what_read,
                             read > 0 ? fmt::format("{:.1f}x", read) : std::string("the others read none"));
  } else if (read_known && read <= 1.5 && cpu_share >= 0 && cpu_share < 0.5 && ratio(slow.cpu_ms, med_cpu) < 2.0) {
    d.cause = Cause::straggler;
    d.evidence = fmt::format(
        "it read what its siblings did ({}) and spent {} of its {} on CPU, on {}{}: a straggler (a slow or busy node, "
        "GC, I/O), not data skew",
        what_read, format_ms(slow.cpu_ms), format_ms(slow.run_ms), where,
        slow.gc_ms * 4 >= slow.run_ms && slow.run_ms > 0 ? fmt::format(", {} of it in GC", format_ms(slow.gc_ms)) : "");
  } else if (read_known && read <= 1.5 && med_cpu > 0 && ratio(slow.cpu_ms, med_cpu) >= 2.0) {
    d.cause = Cause::work_skew;
    d.evidence = fmt::format(
        "it read what its siblings did ({}) but computed {:.1f}x the median task's CPU time: some rows cost far more "
        "than others (large arrays or strings, an explode, a UDF)",
        what_read, ratio(slow.cpu_ms, med_cpu));
  } else {
    d.evidence = read_known ? fmt::format("it read {}", what_read) : "the log records no read metrics for its tasks";
  }
  return d;
}

}  // namespace

void check_task_skew(EventLogContext& ctx) {
  const auto& t = ctx.thresholds();
  for (const auto& [id, s] : ctx.app().stages) {
    if (s.durations.size() < 4) continue;  // a spread needs a few tasks
    const auto& q = s.q;
    if (static_cast<std::int64_t>(q.max) < t.skew_min_task_ms) continue;
    if (static_cast<double>(q.max) <= t.skew_ratio * static_cast<double>(q.median)) continue;
    const Task* slow = nullptr;
    std::uint64_t speculative = 0;
    for (const auto& task : s.tasks) {
      if (task.speculative) ++speculative;
      if (task.status == TaskStatus::success && (slow == nullptr || task.duration > slow->duration)) slow = &task;
    }
    Diagnosis why = slow != nullptr ? diagnose(ctx, s, *slow) : Diagnosis{};
    const std::string& plan = ctx.plan_of(s);
    bool join = plan.find("SortMergeJoin") != std::string::npos || plan.find("ShuffledHashJoin") != std::string::npos;
    if (auto x = ctx.app().sql.find(s.sql_execution); x != ctx.app().sql.end())
      for (const auto& n : x->second.nodes)
        join = join || n.name.find("SortMergeJoin") != std::string::npos ||
               n.name.find("ShuffledHashJoin") != std::string::npos;
    std::string ops;
    for (std::size_t i = 0; i < s.operators.size() && i < 4; ++i) ops += (i > 0 ? ", " : "") + s.operators[i];
    const char* what = why.cause == Cause::straggler ? "waited for a straggler" : "is skewed";
    std::string msg = fmt::format(
        "stage {} ({}) {}: its longest task ran {} against a median of {} ({:.1f}x; tasks min {} / p25 {} / "
        "median {} / p75 {} / max {}, {} task{}); {}{}{}",
        s.id, s.name.empty() ? "unnamed" : s.name, what, format_ms(q.max), format_ms(q.median),
        q.median > 0 ? static_cast<double>(q.max) / q.median : 0.0, format_ms(q.min), format_ms(q.p25),
        format_ms(q.median), format_ms(q.p75), format_ms(q.max), s.durations.size(), s.durations.size() == 1 ? "" : "s",
        why.evidence,
        speculative > 0 ? fmt::format("; {} speculative cop{} launched", speculative, speculative == 1 ? "y" : "ies")
                        : "",
        ops.empty() ? "" : "; operators: " + ops);
    std::string fix;
    switch (why.cause) {
      case Cause::straggler:
        fix = speculative > 0 ? "not a data problem: look at that executor's host (GC, disk, a noisy neighbour); "
                                "speculation is on and re-ran it elsewhere; salting or AQE's skew join would not help"
                              : "not a data problem: look at that executor's host (GC, disk, a noisy neighbour); "
                                "spark.speculation=true re-runs such tasks elsewhere; salting or AQE's skew join would "
                                "not help";
        break;
      case Cause::work_skew:
        fix =
            "find the rows that cost most (the largest arrays or strings, the keys an explode multiplies) and split "
            "them, or repartition so they spread; a skew join does not see this (the bytes are even)";
        break;
      default:
        fix = join ? "a skewed join: enable AQE's skew join (spark.sql.adaptive.enabled and "
                     "spark.sql.adaptive.skewJoin.enabled, tuned by skewJoin.skewedPartitionFactor and "
                     "skewedPartitionThresholdInBytes), broadcast the small side, or salt the hot key"
                   : "find the hot key (groupBy(key).count() ordered by count) and salt it, filter null keys early, or "
                     "repartition on a key with more distinct values";
    }
    ctx.report_stage(s, std::move(msg), static_cast<std::int64_t>(q.max) - q.median, std::move(fix));
  }
}

}  // namespace planlint::rules
