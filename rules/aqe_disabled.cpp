// aqe-disabled: a physical plan with shuffles and no AdaptiveSparkPlan, so AQE was off.
#include <fmt/format.h>

#include "lint/plan_context.hpp"
#include "lint/shuffle_counts.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::PlanNode;

extern const RuleInfo kAqeDisabled{"PL006",
                                   "aqe-disabled",
                                   "Adaptive query execution is off for a plan that shuffles",
                                   Severity::warning,
                                   FixAvailability::never,
                                   R"md(## What it does
Reports a physical plan that shuffles but has no `AdaptiveSparkPlan` at its root: adaptive query
execution (`spark.sql.adaptive.enabled`) was off when it was planned. Points at the plan's root.

## Why is this bad?
With AQE, Spark re-plans at every shuffle boundary using real sizes: it coalesces small shuffle
partitions, switches sort-merge joins to broadcast joins when a side turns out small, and splits
skewed partitions. Without it, every stage uses the fixed `spark.sql.shuffle.partitions` count and
the join strategies chosen from estimates. AQE is on by default since Spark 3.2.

## Example
```plan
== Physical Plan ==
*(2) HashAggregate(keys=[k#1], functions=[count(1)])
+- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=15]
   +- *(1) HashAggregate(keys=[k#1], functions=[partial_count(1)])
      +- *(1) LocalTableScan [k#1]
```
Use instead (AQE on):
```plan
== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- HashAggregate(keys=[k#1], functions=[count(1)])
   +- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=15]
      +- HashAggregate(keys=[k#1], functions=[partial_count(1)])
         +- LocalTableScan [k#1]
```

## Fix safety
Display-only: remove the setting that turns it off, or set
`spark.conf.set("spark.sql.adaptive.enabled", "true")`.

## Options
None.
)md"};

void check_aqe_disabled(PlanContext& ctx) {
  const PlanNode* root = ctx.physical_root();
  if (root == nullptr) return;
  ShuffleCounts s = fixed_shuffles(ctx);
  if (s.adaptive || s.exchanges.empty()) return;
  ctx.report(*root,
             fmt::format("adaptive query execution is off: {} shuffle{} with fixed partition counts ({}); "
                         "joins cannot change strategy at runtime",
                         s.exchanges.size(), s.exchanges.size() == 1 ? "" : "s", s.counts_text()),
             "Enable AQE", "spark.conf.set(\"spark.sql.adaptive.enabled\", \"true\")  # default since Spark 3.2");
}

}  // namespace planlint::rules
