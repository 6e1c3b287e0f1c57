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
The time it explains is what the stage waited for its slowest task: how long that task ran on
after every other task had ended (and after it would have ended at the median task's length), at
most the longest task minus the median. In a stage of many waves the longest task often ends
mid-stage: nothing waited for it, and a finding that explains under a second is an info, not a
warning.

It tells the causes apart from the longest task's own metrics, because each needs other advice:
- **data skew**: the task read at least twice the shuffle records (or bytes) of the median task: a
  hot key. Advice: AQE's skew join for a join, salting, filtering null keys.
- **uneven input**: it read at least twice the median's input records from the data source (one
  large unsplittable file): advice on the files, never salting.
- **a straggler**: the task read about what its siblings did (at most 1.5x) and spent under half of
  its time on CPU, not much more CPU than the median task (or, in logs without CPU time, under half
  of it running): the time went to a slow or busy node, GC or I/O, not to its data. The message names its executor and host and any speculative
  copies; the advice is the node and `spark.speculation`, never salting.
- **uneven work**: the same amount read but at least twice the median's CPU time: some rows cost
  more than others (large arrays, an explode, a UDF).
- **same reads, CPU unknown** (Spark before 2.1 records no CPU time): not a hot key; the message
  says the log cannot tell a slow node from costlier rows.
Tasks that read nothing (a `parallelize`, a `range`) all read the same. When none of these fits
(the slow task read up to twice the median, with a CPU share the rules above do not cover), the
message gives what it read and its CPU time, with the skew advice.

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

// What made the slowest task slow, from what it read and how its time was spent.
enum class Cause { data_skew, input_skew, straggler, work_skew, same_reads, unknown };

struct Diagnosis {
  Cause cause = Cause::unknown;
  std::string evidence;
};

// How the slow task's reads compare with the median task's: records when the log counts them, else bytes.
struct ReadCompare {
  bool any = false;     // some task read something of this kind
  bool skewed = false;  // the slow task read at least twice the median (or the others read none)
  bool even = true;     // the slow task read at most 1.5 times the median
  std::string text;
};

ReadCompare compare_reads(const std::vector<const Task*>& ok, const Task& slow, bool shuffle) {
  std::vector<std::uint64_t> records, bytes;
  records.reserve(ok.size());
  bytes.reserve(ok.size());
  for (const auto* t : ok) {
    records.push_back(shuffle ? t->shuffle_records : t->input_records);
    bytes.push_back(shuffle ? t->shuffle_bytes : t->input_bytes);
  }
  std::uint64_t med_records = median_of(records), med_bytes = median_of(bytes);
  std::uint64_t mine_records = shuffle ? slow.shuffle_records : slow.input_records;
  std::uint64_t mine_bytes = shuffle ? slow.shuffle_bytes : slow.input_bytes;
  ReadCompare c;
  bool by_records = med_records > 0 || mine_records > 0;
  std::uint64_t mine = by_records ? mine_records : mine_bytes, med = by_records ? med_records : med_bytes;
  c.any = mine > 0 || med > 0;
  if (!c.any) return c;
  double r = ratio(mine, med);
  c.skewed = med == 0 ? mine > 0 : r >= 2.0;
  c.even = med > 0 && r <= 1.5;
  std::string what = shuffle ? "shuffle" : "input";
  c.text = by_records ? fmt::format("{} {} records against a median of {}", mine_records, what, med_records)
                      : fmt::format("{} of {} against a median of {}", format_bytes(mine_bytes), what,
                                    format_bytes(med_bytes));
  if (c.skewed) c.text += med == 0 ? " (the others read none)" : fmt::format(" ({:.1f}x)", r);
  return c;
}

Diagnosis diagnose(const EventLogContext& ctx, const Stage& s, const Task& slow) {
  std::vector<const Task*> ok;
  for (const auto& t : s.tasks)
    if (t.status == TaskStatus::success) ok.push_back(&t);
  std::vector<std::uint64_t> cpu;
  cpu.reserve(ok.size());
  for (const auto* t : ok) cpu.push_back(t->cpu_ms);
  std::uint64_t med_cpu = median_of(cpu);
  bool cpu_known = std::any_of(ok.begin(), ok.end(), [](const Task* t) { return t->cpu_ms > 0; });
  ReadCompare shuffle = compare_reads(ok, slow, true), input = compare_reads(ok, slow, false);
  const auto& app = ctx.app();
  std::string where = slow.executor < app.executor_ids.size()
                          ? fmt::format("executor {} on {}", app.executor_ids[slow.executor],
                                        app.executor_hosts[slow.executor].empty() ? std::string("an unnamed host")
                                                                                  : app.executor_hosts[slow.executor])
                          : std::string("an unknown executor");
  std::string reads = shuffle.any && input.any ? shuffle.text + ", " + input.text
                      : shuffle.any            ? shuffle.text
                      : input.any              ? input.text
                                               : std::string("none of the stage's tasks read input or shuffle data");
  bool even = (!shuffle.any || shuffle.even) && (!input.any || input.even);
  Diagnosis d;
  if (shuffle.skewed) {
    d.cause = Cause::data_skew;
    d.evidence = fmt::format("it read {}: data skew (a hot key)", shuffle.text);
  } else if (input.skewed) {
    d.cause = Cause::input_skew;
    d.evidence = fmt::format("it read {}: the input is split unevenly", input.text);
  } else if (!even) {
    d.evidence = fmt::format("it read {}", reads);
  } else if (cpu_known && slow.duration > 0 && slow.cpu_ms * 2 < slow.duration && ratio(slow.cpu_ms, med_cpu) < 2.0) {
    d.cause = Cause::straggler;
    d.evidence = fmt::format(
        "it read what its siblings did ({}) and spent {} of its {} on CPU, on {}{}: a straggler (a slow or busy node, "
        "GC, I/O), not data skew",
        reads, format_ms(slow.cpu_ms), format_ms(slow.duration), where,
        slow.gc_ms * 4 >= slow.duration ? fmt::format(", {} of it in GC", format_ms(slow.gc_ms)) : "");
  } else if (cpu_known && med_cpu > 0 && ratio(slow.cpu_ms, med_cpu) >= 2.0) {
    d.cause = Cause::work_skew;
    d.evidence = fmt::format(
        "it read what its siblings did ({}) but used {:.1f}x the median task's CPU time: some rows cost far more "
        "than others (large arrays or strings, an explode, a UDF)",
        reads, ratio(slow.cpu_ms, med_cpu));
  } else if (!cpu_known && slow.run_ms * 2 < slow.duration) {
    d.cause = Cause::straggler;
    d.evidence = fmt::format(
        "it read what its siblings did ({}) and ran {} of its {} (the rest: deserializing, waiting, fetching its "
        "result), on {}: a straggler, not data skew",
        reads, format_ms(slow.run_ms), format_ms(slow.duration), where);
  } else if (!cpu_known) {
    d.cause = Cause::same_reads;
    d.evidence = fmt::format(
        "it read what its siblings did ({}), on {}: not data skew; a slow node or rows that cost more (this log "
        "records no CPU time to tell them apart)",
        reads, where);
  } else {
    d.evidence = fmt::format("it read {} and spent {} of its {} on CPU", reads, format_ms(slow.cpu_ms),
                             format_ms(slow.duration));
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
    // The slow tasks: longer than skew-ratio times the median.
    auto is_slow = [&](const Task& task) {
      return static_cast<double>(task.duration) > t.skew_ratio * static_cast<double>(q.median);
    };
    const Task* slow = nullptr;
    std::uint64_t speculative = 0, n_slow = 0;
    for (const auto& task : s.tasks) {
      if (task.speculative) ++speculative;
      if (task.status == TaskStatus::success && is_slow(task)) ++n_slow;
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
    // What the stage waited for: how long the slowest task ran on after every other task had ended
    // (and after it would have ended at the median's length). In a stage of many waves the longest
    // task often ends mid-stage and nothing waits for it.
    std::int64_t explained = static_cast<std::int64_t>(q.max) - q.median;
    if (slow != nullptr && slow->launch > 0) {
      std::int64_t others_end = slow->launch + q.median;
      for (const auto& task : s.tasks)
        if (!is_slow(task) && task.launch > 0)
          others_end = std::max(others_end, task.launch + static_cast<std::int64_t>(task.duration));
      explained = std::clamp<std::int64_t>(slow->launch + slow->duration - others_end, 0, explained);
    }
    // Said as the log shows it: a stage that did not wait for its slow tasks (others ran on after
    // them) is not said to have waited.
    bool waited = explained >= 1000;
    const char* what = !waited                         ? "had slow tasks it did not wait for (others ran on after them)"
                       : why.cause == Cause::straggler ? "waited for a straggler"
                       : why.cause == Cause::same_reads
                           ? (n_slow > 1 ? "waited for slow tasks" : "waited for one slow task")
                           : "is skewed";
    std::string msg = fmt::format(
        "stage {} ({}) {}: its longest task ran {} against a median of {} ({:.1f}x; tasks min {} / p25 {} / "
        "median {} / p75 {} / max {}, {}{}); {}{}{}",
        s.id, s.name.empty() ? "unnamed" : s.name, what, format_ms(q.max), format_ms(q.median),
        q.median > 0 ? static_cast<double>(q.max) / q.median : 0.0, format_ms(q.min), format_ms(q.p25),
        format_ms(q.median), format_ms(q.p75), format_ms(q.max), counted(s.durations.size(), "task"),
        n_slow > 1 ? fmt::format(", {} of them over {}x the median", n_slow, t.skew_ratio) : "", why.evidence,
        speculative > 0
            ? fmt::format("; {} in the stage", counted(speculative, "speculative copy", "speculative copies"))
            : "",
        ops.empty() ? "" : "; operators: " + ops);
    std::string fix;
    switch (why.cause) {
      case Cause::straggler:
        fix = speculative > 0
                  ? "not a data problem: look at that executor's host (GC, disk, a noisy neighbour); "
                    "speculation is on (copies ran in this stage); salting or AQE's skew join would not help"
                  : "not a data problem: look at that executor's host (GC, disk, a noisy neighbour); "
                    "spark.speculation=true re-runs such tasks elsewhere; salting or AQE's skew join would "
                    "not help";
        break;
      case Cause::input_skew:
        fix =
            "the read gave one task most of the input (one large unsplittable file such as gzip CSV or JSON, or a few "
            "large files): store it splittable (Parquet, bzip2, smaller files) or repartition right after the read; "
            "salting a key would not help";
        break;
      case Cause::same_reads:
        fix =
            "not a hot key: look at that executor's host (GC, disk, a noisy neighbour) and at rows that cost more "
            "than others; spark.speculation=true re-runs slow tasks elsewhere";
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
    auto& f = ctx.report_stage(s, std::move(msg), explained, std::move(fix));
    // A spread the stage did not wait for (under a second of it) is worth knowing, not a warning.
    if (f.explained_ms < 1000) f.diagnostic.severity = Severity::info;
  }
}

}  // namespace planlint::rules
