// shuffle-removed: a change removes a shuffle from the plan (`planlint diff`).
#include <set>
#include <string>

#include "lint/diff_context.hpp"
#include "plan/diff.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::OpKind;
using plan::PlanNode;

extern const RuleInfo kShuffleRemoved{"SPK702",
                                      "shuffle-removed",
                                      "A change removes a shuffle from the plan",
                                      Severity::info,
                                      FixAvailability::never,
                                      Impact::low,
                                      R"md(## What it does
Reports each shuffle exchange of BEFORE that AFTER no longer has (`planlint diff`), at the AFTER
operator closest to where it was. An improvement: it is reported as information and does not fail the
diff by default. A shuffle that AFTER reuses through a `ReusedExchange` (the one it names, once per
reuse) is not removed.

## Why is this bad?
Nothing is wrong: a shuffle less is rows that are no longer written to disk and sent over the network.
The finding records the improvement in the review, beside any regression the same change has.

## Example
Before the change:
```plan
== Physical Plan ==
*(5) SortMergeJoin [k#1], [k#2], Inner
:- *(2) Sort [k#1 ASC NULLS FIRST], false, 0
:  +- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=20]
:     +- *(1) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
+- *(4) Sort [k#2 ASC NULLS FIRST], false, 0
   +- Exchange hashpartitioning(k#2, 200), ENSURE_REQUIREMENTS, [plan_id=26]
      +- *(3) FileScan parquet default.customers[k#2] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/customers], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int>
```
After the change (reported):
```plan
== Physical Plan ==
*(2) BroadcastHashJoin [k#1], [k#2], Inner, BuildRight, false
:- *(2) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, false]),false), [plan_id=9]
   +- *(1) FileScan parquet default.customers[k#2] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/customers], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int>
```
Use instead (nothing changed: no finding):
```plan
== Physical Plan ==
*(5) SortMergeJoin [k#41], [k#42], Inner
:- *(2) Sort [k#41 ASC NULLS FIRST], false, 0
:  +- Exchange hashpartitioning(k#41, 200), ENSURE_REQUIREMENTS, [plan_id=20]
:     +- *(1) FileScan parquet default.orders[k#41,amount#43] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
+- *(4) Sort [k#42 ASC NULLS FIRST], false, 0
   +- Exchange hashpartitioning(k#42, 200), ENSURE_REQUIREMENTS, [plan_id=26]
      +- *(3) FileScan parquet default.customers[k#42] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/customers], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int>
```

## Fix safety
Display-only: nothing to fix.

## Options
None. Like every rule: `--ignore shuffle-removed` drops it, `--warn shuffle-removed` reports it without failing the diff,
`--fail-on` chooses which severities fail it (`planlint diff` fails on warnings by default).
)md"};

void check_shuffle_removed(DiffContext& ctx) {
  // A shuffle BEFORE prints and AFTER reuses (ReusedExchange) is the same shuffle.
  std::multiset<std::string> reused = plan::reused_shuffles(&ctx.after());
  for (const PlanNode* n : ctx.diff().removed) {
    if (n->kind != OpKind::shuffle_exchange) continue;
    if (auto it = reused.find(plan::shuffle_key(*n)); it != reused.end()) {
      reused.erase(it);
      continue;
    }
    ctx.report_removed(*n, "the change removes a shuffle: `" + operator_text(*n) + "`");
  }
}

}  // namespace planlint::rules
