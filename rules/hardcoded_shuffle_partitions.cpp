// hardcoded-shuffle-partitions: shuffles with a fixed partition count in a plan without AQE.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "lint/plan_context.hpp"
#include "lint/shuffle_counts.hpp"
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kHardcodedShufflePartitions{"SPK301",
                                                  "hardcoded-shuffle-partitions",
                                                  "Shuffles use a fixed partition count that nothing adapts",
                                                  Severity::warning,
                                                  FixAvailability::never,
                                                  Impact::medium,
                                                  R"md(## What it does
Plans: the first hash shuffle of a plan without AQE whose count someone chose, i.e. not Spark's
default 200 (that is at most part of an `aqe-disabled` finding), with the chosen counts. Round-robin
`repartition(n)`, `repartition(n, col)` and a sort's range partitioning are explicit requests, not
this rule. Streaming plans count too (the number is fixed into the state store at the first run);
before Spark 3.0 (no AQE) the advice is to size the count from the data. A warning when the plan
shows how much is shuffled (cost mode, AQE statistics), an `info` when it does not; nothing for a
batch plan whose counts are all 8 or fewer and that shows no volume (a local or test session's
setting: Spark's own test suites use 4 and 5).

PySpark source: a literal count set with `spark.conf.set`, `builder.config` (also `map={...}`),
`SparkConf().set`/`setAll`, `setConf` or SQL `SET` (also `%sql` and `%scala` cells), literally or
through module constants; not 200, not `"auto"`, not with a `local[...]` master, not in test code
and not in a branch that selects a local or test run (`if mode == "local":`, `if is_test:`): a small
count is the right tuning for one machine. A warning when the file also turns AQE off (then the count
is every shuffle's); otherwise an `info`: AQE coalesces the partitions of each stage, and whether
the count suits the data depends on volumes the code does not show.

## Why is this bad?
One number cannot fit every stage: 200 partitions of a 2 TB shuffle are 10 GB each and spill, while
200 partitions of 50 MB are 200 tiny tasks of scheduling overhead. A rule of thumb is about 128 MB per
partition, rounded to a multiple of the total executor cores:
`partitions ≈ max(cores, shuffle bytes / 128 MB)`. AQE does this per stage at runtime.

## Example
```plan
== Physical Plan ==
*(2) HashAggregate(keys=[k#1], functions=[count(1)])
+- Exchange hashpartitioning(k#1, 2000), ENSURE_REQUIREMENTS, [plan_id=15]
   +- *(1) HashAggregate(keys=[k#1], functions=[partial_count(1)])
      +- *(1) LocalTableScan [k#1]
```
Use instead (AQE coalesces partitions at runtime):
```plan
== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- HashAggregate(keys=[k#1], functions=[count(1)])
   +- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=15]
      +- HashAggregate(keys=[k#1], functions=[partial_count(1)])
         +- LocalTableScan [k#1]
```

## Example (PySpark)
```python
spark.conf.set("spark.sql.shuffle.partitions", 2000)
```
Use instead:
```python
spark.conf.set("spark.sql.adaptive.enabled", "true")
```

## Fix safety
PySpark source: removing a `spark.conf.set(...)` statement of its own is unsafe (offered with
`--unsafe-fixes`): the job then runs with the session's default or AQE's sizing, which is usually
better but changes its performance profile; settings inside builder chains or SQL are display-only.
Plans: display-only; enable AQE (`spark.sql.adaptive.enabled=true`, with
`spark.sql.adaptive.coalescePartitions.enabled`), or size `spark.sql.shuffle.partitions` from the
shuffle volume instead of a constant.

## Options
`tolerated-shuffle-partitions`: partition counts that are not reported, in plans and in source
(e.g. `[1]` for tests).
)md"};

// Hash exchanges whose count someone chose (not the default 200), while AQE does not manage them.
// Round-robin `repartition(n)`, `repartition(n, col)` and range partitioning for a sort are explicit
// requests in the code, not a session setting: not this rule.
namespace {

// Whether the plan shows how much a shuffle moves (cost mode, AQE statistics), on the exchange or
// the operator below it.
bool shows_shuffle_size(const ShuffleCounts& s) {
  return std::any_of(s.exchanges.begin(), s.exchanges.end(), [](const plan::PlanNode* x) {
    return x->stats.size_in_bytes || (x->children.size() == 1 && x->children.front()->stats.size_in_bytes);
  });
}

// Severity follows evidence: whether one count fits every stage depends on volumes; without them in
// the plan (no cost mode, no AQE statistics) the finding is advice.
void by_evidence(Diagnostic& d, const ShuffleCounts& s) {
  if (!shows_shuffle_size(s)) advise_unsized(d, "how much is shuffled");
}

}  // namespace

void check_hardcoded_shuffle_partitions(PlanContext& ctx) {
  ShuffleCounts s = chosen_shuffle_counts(ctx);
  if (s.exchanges.empty()) return;
  plan::VersionGuess v = ctx.version();
  std::string head = fmt::format("{} shuffle{} with a hand-picked partition count ({}) and AQE off", s.exchanges.size(),
                                 s.exchanges.size() == 1 ? "" : "s", s.counts_text());
  if (ctx.plan().streaming) {
    auto& d =
        ctx.report(*s.exchanges.front(),
                   fmt::format("{} shuffle{} of a streaming query with a hand-picked partition count ({})",
                               s.exchanges.size(), s.exchanges.size() == 1 ? "" : "s", s.counts_text()) +
                       ": in a streaming query this count is fixed into the state store at the first run and "
                       "cannot change without a new checkpoint; pick it for the largest expected state",
                   "Size the partitions before the first run",
                   "Set spark.sql.shuffle.partitions to about state size / 128 MB (a multiple of the executor cores) "
                   "before the query first starts; later changes need a new checkpoint location.");
    by_evidence(d, s);
    return;
  }
  // A handful of partitions (8 or fewer: fewer than any cluster's cores) with no volume shown is a
  // local or test session's setting (Spark's own test suites use 4 and 5), right for one machine.
  const bool handful = std::all_of(s.exchanges.begin(), s.exchanges.end(), [](const plan::PlanNode* x) {
    const auto* e = x->as<plan::ExchangeInfo>();
    return e != nullptr && e->num_partitions && *e->num_partitions <= 8;
  });
  if (handful && !shows_shuffle_size(s)) return;
  if (v.before(3, 0)) {
    auto& d =
        ctx.report(*s.exchanges.front(),
                   head + fmt::format(" (Spark {} has no AQE): one count for every stage; size it from the shuffle "
                                      "volume, about 128 MB a partition",
                                      v.text()),
                   "Size shuffle partitions from the data",
                   "partitions = max(total_cores, shuffle_bytes // (128 * 1024 * 1024)), rounded to a multiple of "
                   "total_cores\nspark.conf.set(\"spark.sql.shuffle.partitions\", partitions)");
    by_evidence(d, s);
    return;
  }
  auto& d =
      ctx.report(*s.exchanges.front(),
                 head +
                     ": one count for every stage; let AQE size partitions (about 128 MB each), or size the count "
                     "from the shuffle volume",
                 "Let AQE size shuffle partitions",
                 "spark.conf.set(\"spark.sql.adaptive.enabled\", \"true\")\n"
                 "# or: partitions = max(total_cores, shuffle_bytes // (128 * 1024 * 1024)), rounded to a multiple of "
                 "total_cores\nspark.conf.set(\"spark.sql.shuffle.partitions\", partitions)");
  by_evidence(d, s);
}

// Source: a literal spark.sql.shuffle.partitions in spark.conf.set, SparkSession.builder.config, SparkConf().set or SQL
// SET.
void check_hardcoded_shuffle_partitions_source(SourceContext& ctx) {
  const bool aqe_off = std::any_of(ctx.model().settings.begin(), ctx.model().settings.end(), [](const auto& s) {
    return s.key == "spark.sql.adaptive.enabled" && s.literal && (s.value == "false" || s.value == "False");
  });
  for (const auto& s : ctx.model().settings) {
    if (s.key != "spark.sql.shuffle.partitions" || !s.literal) continue;
    char* end = nullptr;
    long long v = std::strtoll(s.value.c_str(), &end, 10);
    // "auto" (Databricks' auto-optimized shuffle) is not a count; 200 is Spark's own default.
    if (end == s.value.c_str() || *end != '\0' || v == 200) continue;
    // A local session has its cores and nothing else: a small count is the right tuning there.
    if (ctx.model().local_master || s.local_branch) continue;
    // A test's session runs fixtures: its settings tune nothing that runs in production.
    if (in_test_code(ctx.model(), s.function)) continue;
    bool tolerated = end != s.value.c_str() && std::find(ctx.options().tolerated_shuffle_partitions.begin(),
                                                         ctx.options().tolerated_shuffle_partitions.end(),
                                                         v) != ctx.options().tolerated_shuffle_partitions.end();
    if (tolerated) continue;
    auto& d = ctx.report(s.cell, s.pos,
                         fmt::format("spark.sql.shuffle.partitions hard-coded to {} ({}): one count for every stage; "
                                     "let AQE size partitions (about 128 MB each) instead",
                                     s.value, s.via));
    if (!aqe_off) {
      d.severity = Severity::info;
      d.message +=
          " (AQE, not turned off here, coalesces each stage's partitions: whether the count suits the "
          "data depends on volumes the code does not show)";
    }
    Fix& f = ctx.attach_fix(
        d, "Remove the hard-coded setting", s.statement ? Applicability::unsafe : Applicability::display_only,
        "Remove the setting and keep spark.sql.adaptive.enabled=true (with "
        "spark.sql.adaptive.coalescePartitions.enabled), or compute the count from the data volume.");
    if (s.statement) SourceContext::add_edit(f, s.cell, s.statement->start_byte, s.statement->end_byte, "");
  }
}

}  // namespace planlint::rules
