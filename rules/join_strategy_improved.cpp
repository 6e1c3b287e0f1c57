// join-strategy-improved: a join changes to a cheaper strategy (`planlint diff`).
#include "lint/diff_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kJoinStrategyImproved{"SPK704",
                                            "join-strategy-improved",
                                            "A join changes to a cheaper strategy",
                                            Severity::info,
                                            FixAvailability::never,
                                            Impact::low,
                                            R"md(## What it does
Reports a join whose strategy got cheaper between BEFORE and AFTER (`planlint diff`), in the order
of `join-strategy-regressed`. An improvement: information, it does not fail the diff by default.

## Why is this bad?
Nothing is wrong; the finding records the improvement (a sort-merge join that became a broadcast hash
join saves the shuffle and sort of both sides).

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
Use instead (the join strategy is unchanged):
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
None. Like every rule: `--ignore join-strategy-improved` drops it, `--warn join-strategy-improved` reports it without failing the diff,
`--fail-on` chooses which severities fail it (`planlint diff` fails on warnings by default).
)md"};

void check_join_strategy_improved(DiffContext& ctx) {
  for (const auto& j : join_changes(ctx.diff())) {
    if (j.to_rank > j.from_rank) continue;
    ctx.report(*j.after, j.before, "join strategy improved: " + j.from + " -> " + j.to);
  }
}

}  // namespace planlint::rules
