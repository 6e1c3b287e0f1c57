// window-single-partition: a Window fed by Exchange SinglePartition (a window without partitionBy).
#include "lint/plan_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::OpKind;
using plan::PlanNode;

extern const RuleInfo kWindowSinglePartition{"PL008",
                                             "window-single-partition",
                                             "A window function moves all rows into one partition",
                                             Severity::warning,
                                             FixAvailability::never,
                                             R"md(## What it does
Finds a `Window` without a partition spec whose input comes from `Exchange SinglePartition`: the
window was defined with `Window.orderBy(...)` and no `partitionBy(...)`.

## Why is this bad?
All rows of the DataFrame are moved to one partition and sorted by one task on one executor. Spark
itself warns "No Partition Defined for Window operation!". On real data this is slow and often runs
out of memory.

## Example
```plan
== Physical Plan ==
Window [row_number() windowspecdefinition(ts#2 ASC NULLS FIRST, specifiedwindowframe(RowFrame, unboundedpreceding$(), currentrow$())) AS rn#5], [ts#2 ASC NULLS FIRST]
+- *(2) Sort [ts#2 ASC NULLS FIRST], false, 0
   +- Exchange SinglePartition, ENSURE_REQUIREMENTS, [plan_id=12]
      +- *(1) LocalTableScan [user#1, ts#2]
```
Use instead (`Window.partitionBy("user").orderBy("ts")`):
```plan
== Physical Plan ==
Window [row_number() windowspecdefinition(user#1, ts#2 ASC NULLS FIRST, specifiedwindowframe(RowFrame, unboundedpreceding$(), currentrow$())) AS rn#5], [user#1], [ts#2 ASC NULLS FIRST]
+- *(2) Sort [user#1 ASC NULLS FIRST, ts#2 ASC NULLS FIRST], false, 0
   +- Exchange hashpartitioning(user#1, 200), ENSURE_REQUIREMENTS, [plan_id=12]
      +- *(1) LocalTableScan [user#1, ts#2]
```

## Fix safety
Display-only: add a `partitionBy(...)` on a key that splits the data while keeping the window's
meaning; for a global rank, consider computing it per partition and combining.

## Options
None.
)md"};

void check_window_single_partition(PlanContext& ctx) {
  for (const PlanNode* w : ctx.physical_nodes()) {
    const auto* wi = w->as<plan::WindowInfo>();
    if (wi == nullptr || !wi->partition_spec.empty() || w->children.size() != 1) continue;
    const PlanNode* below = descend(w->children.front(), [](const PlanNode& n) {
      return is_wrapper(n) || n.kind == OpKind::sort || n.kind == OpKind::project;
    });
    const auto* x = below == nullptr ? nullptr : below->as<plan::ExchangeInfo>();
    if (x == nullptr || x->partitioning != plan::Partitioning::single) continue;
    auto& d = ctx.report(*w,
                         "window without partitionBy: every row is moved into a single partition and sorted by "
                         "one task",
                         "Partition the window", "Window.partitionBy(\"<key>\").orderBy(...)");
    d.related.push_back({ctx.location_of(*below), "the single-partition exchange"});
  }
}

}  // namespace planlint::rules
