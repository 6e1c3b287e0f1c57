// shuffle-added: a change adds a shuffle to the plan (`planlint diff`).
#include <set>
#include <string>

#include "lint/diff_context.hpp"
#include "plan/diff.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::OpKind;
using plan::PlanNode;

extern const RuleInfo kShuffleAdded{"SPK701",
                                    "shuffle-added",
                                    "A change adds a shuffle to the plan",
                                    Severity::warning,
                                    FixAvailability::never,
                                    Impact::medium,
                                    R"md(## What it does
Compares the plan before and after a change (`planlint diff BEFORE AFTER`) and reports each shuffle
(`Exchange` with hash, range, round-robin or single partitioning) in AFTER that has no counterpart in
BEFORE. Operators are matched by shape and by the scans below them, so renumbered expression ids and
codegen stages do not count as changes; a reused exchange is not a new shuffle, and neither is a
shuffle that BEFORE reuses through a `ReusedExchange` (the one it names, once per reuse) and AFTER
prints again (AQE's initial plans never print reuse).

## Why is this bad?
A shuffle writes every row to local disk and reads it over the network: often the most expensive step
of a stage. A new one usually comes from a join that stopped being broadcast, a `repartition` added
in code, or a grouping on different keys than the step before.

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
Use instead (the join stays broadcast: expression ids may change, no shuffle is added):
```plan
== Physical Plan ==
*(2) BroadcastHashJoin [k#41], [k#42], Inner, BuildRight, false
:- *(2) FileScan parquet default.orders[k#41,amount#43] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, false]),false), [plan_id=9]
   +- *(1) FileScan parquet default.customers[k#42] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/customers], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int>
```

## Fix safety
Display-only: the plan is Spark's output. Look at the operator above the new exchange: a join that lost
its broadcast (`F.broadcast(small)`), a `repartition` that can go, or keys that can match the existing
partitioning.

## Options
None. Like every rule: `--ignore shuffle-added` drops it, `--warn shuffle-added` reports it without failing the diff,
`--fail-on` chooses which severities fail it (`planlint diff` fails on warnings by default).
)md"};

void check_shuffle_added(DiffContext& ctx) {
  // A shuffle BEFORE reuses (ReusedExchange) and AFTER prints again is the same shuffle.
  std::multiset<std::string> reused = plan::reused_shuffles(ctx.before());
  for (const PlanNode* n : ctx.diff().added) {
    if (n->kind != OpKind::shuffle_exchange) continue;
    if (auto it = reused.find(plan::shuffle_key(*n)); it != reused.end()) {
      reused.erase(it);
      continue;
    }
    std::string above = n->parent != nullptr ? " under " + std::string(n->parent->name) : std::string();
    ctx.report(
        *n, nullptr,
        "the change adds a shuffle" + above + ": `" + operator_text(*n) + "` (BEFORE has none of these rows here)",
        "Avoid the new shuffle",
        "Find what asks for it: a join that lost its broadcast, a repartition(), or a grouping on new keys.");
  }
}

}  // namespace planlint::rules
