// join-strategy-regressed: a join changes to a more expensive strategy (`planlint diff`).
#include "lint/diff_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kJoinStrategyRegressed{"SPK703",
                                             "join-strategy-regressed",
                                             "A join changes to a more expensive strategy",
                                             Severity::warning,
                                             FixAvailability::never,
                                             Impact::high,
                                             R"md(## What it does
Reports a join whose strategy got more expensive between BEFORE and AFTER (`planlint diff`), in
this order from cheapest: `BroadcastHashJoin`, `ShuffledHashJoin`, `SortMergeJoin`,
`BroadcastNestedLoopJoin`, `CartesianProduct`. The join is matched by the tables below it, not by
its position in the text.

## Why is this bad?
A broadcast hash join ships the small side to every executor once and streams the big side through
it; a sort-merge join shuffles and sorts both sides. The usual cause is a side that grew past
`spark.sql.autoBroadcastJoinThreshold`, lost its size statistics, or a removed `broadcast()` hint.
A nested-loop or cartesian join means the condition lost its equality.

## Example
Before the change:
```plan
== Physical Plan ==
*(2) BroadcastHashJoin [k#1], [k#2], Inner, BuildRight, false
:- *(2) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, false]),false), [plan_id=9]
   +- *(1) FileScan parquet default.customers[k#2] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/customers], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int>
```
After the change (reported):
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
Use instead (the join stays a broadcast hash join):
```plan
== Physical Plan ==
*(2) BroadcastHashJoin [k#41], [k#42], Inner, BuildRight, false
:- *(2) FileScan parquet default.orders[k#41,amount#43] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, false]),false), [plan_id=9]
   +- *(1) FileScan parquet default.customers[k#42] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/customers], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int>
```

## Fix safety
Display-only: put the hint back (`big.join(F.broadcast(small), "k")`), check the small side's size,
or restore the equality in the join condition.

## Options
None. Like every rule: `--ignore join-strategy-regressed` drops it, `--warn join-strategy-regressed` reports it without failing the diff,
`--fail-on` chooses which severities fail it (`planlint diff` fails on warnings by default).
)md"};

void check_join_strategy_regressed(DiffContext& ctx) {
  for (const auto& j : join_changes(ctx.diff())) {
    if (j.to_rank < j.from_rank) continue;
    ctx.report(*j.after, j.before, "join strategy regressed: " + j.from + " -> " + j.to, "Restore the cheaper join",
               j.to == "BroadcastNestedLoopJoin" || j.to == "CartesianProduct"
                   ? "The condition lost its equality between the sides: put the key equality back."
                   : "Broadcast the small side again (`F.broadcast(small)`) or check why it grew past "
                     "spark.sql.autoBroadcastJoinThreshold.");
  }
}

}  // namespace planlint::rules
