// driver-bound: long stretches of the run with no job on the cluster (driver-side work).
#include <fmt/format.h>

#include <algorithm>

#include "lint/eventlog_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kDriverBound{"SPK907",
                                   "driver-bound",
                                   "Long gaps with no job running: the driver did the work",
                                   Severity::warning,
                                   FixAvailability::never,
                                   Impact::high,
                                   R"md(## What it does
Finds the stretches of a run between jobs (and before the first and after the last) when no job
was running on the cluster, counting the gaps of at least `driver-gap-ms` (10 s), and reports them
when they add up to more than `driver-ratio` (20 %) of the run and to at least `driver-min-ms` (30 s). It names the job that ended just
before the longest gap (a `collect`, `toPandas` or `count` whose result the driver then worked on)
and its line of code. The time it explains is the sum of those gaps. Interactive shells
(`spark-shell`, `pyspark`) are not judged: their gaps are someone typing.

## Why is this bad?
While the driver loops over collected rows, trains a pandas model or sleeps, the executors are
paid for and idle. Work moved into Spark (or onto a smaller driver-only cluster) is cheaper.

## Example
```text
run 30 min; jobs ran 9 min; gaps of 4, 8 and 9 min after "toPandas at report.py:88"
```
Use instead:
```text
the aggregation done in Spark and only the result collected: jobs 10 min of an 11 min run
```

## Fix safety
Display only: the remedy is in the job's code.

## Options
`--threshold KEY=VALUE` of `planlint eventlog`: `driver-gap-ms` (10000), `driver-ratio` (0.2), `driver-min-ms` (30000).
)md"};

void check_driver_bound(EventLogContext& ctx) {
  const auto& t = ctx.thresholds();
  const auto& app = ctx.app();
  std::vector<const eventlog::Job*> jobs;
  for (const auto& [id, j] : app.jobs)
    if (j.submitted > 0 && j.completed >= j.submitted) jobs.push_back(&j);
  // A shell's gaps are a person typing, not driver-side work.
  if (app.name == "Spark shell" || app.name == "PySparkShell") return;
  std::int64_t start = app.started, wall = app.duration_ms();
  if (jobs.empty() || start <= 0 || wall <= 0) return;
  std::sort(jobs.begin(), jobs.end(), [](auto* a, auto* b) { return a->submitted < b->submitted; });
  std::int64_t end = start + wall, covered_to = start, total = 0, longest = 0;
  const eventlog::Job* before_longest = nullptr;
  const eventlog::Job* last = nullptr;
  auto gap = [&](std::int64_t from, std::int64_t to) {
    if (to - from < t.driver_gap_ms) return;
    total += to - from;
    if (to - from > longest) {
      longest = to - from;
      before_longest = last;
    }
  };
  for (const auto* j : jobs) {
    if (j->submitted > covered_to) gap(covered_to, j->submitted);
    if (j->completed > covered_to) {
      covered_to = j->completed;
      last = j;
    }
  }
  gap(covered_to, end);
  if (static_cast<double>(total) <= t.driver_ratio * static_cast<double>(wall) || total < t.driver_min_ms) return;
  std::string after;
  if (before_longest != nullptr) {
    std::string name;
    for (int sid : before_longest->stages)
      if (auto it = app.stages.find(sid); it != app.stages.end() && !it->second.name.empty()) name = it->second.name;
    after = fmt::format("; the longest ({}) came after job {}{}", format_ms(longest), before_longest->id,
                        name.empty() ? "" : " (" + name + ")");
  }
  std::string msg = fmt::format("no job ran for {} of the {} run ({:.0f} %) in gaps of {} or more{}", format_ms(total),
                                format_ms(wall), 100.0 * static_cast<double>(total) / static_cast<double>(wall),
                                format_ms(t.driver_gap_ms), after);
  auto& f = ctx.report_app(before_longest != nullptr ? before_longest->line : 1, std::move(msg), total,
                           "move the driver-side work into Spark (aggregate before collect/toPandas, no Python loops "
                           "over rows), or run the driver-only part on a single-node cluster");
  if (before_longest != nullptr)
    for (int sid : before_longest->stages)
      if (auto it = app.stages.find(sid); it != app.stages.end())
        if (auto site = parse_call_site(it->second.name)) {
          f.diagnostic.related.push_back({Location{site->file, site->line, 1, site->line, 1},
                                          "the job before the longest gap was called from here"});
          break;
        }
}

}  // namespace planlint::rules
