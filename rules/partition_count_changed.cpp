// partition-count-changed: a shuffle changes its number of partitions (`planlint diff`).
#include "lint/diff_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::OpKind;

extern const RuleInfo kPartitionCountChanged{"SPK709",
                                             "partition-count-changed",
                                             "A shuffle changes its number of partitions",
                                             Severity::info,
                                             FixAvailability::never,
                                             Impact::low,
                                             R"md(## What it does
Reports a shuffle exchange present in both plans whose number of partitions changed (`planlint diff`):
`hashpartitioning(k, 200)` becoming `hashpartitioning(k, 1000)`, from `spark.sql.shuffle.partitions`,
a `repartition(n)` or AQE.

## Why is this bad?
The partition count sets the size of every task after the shuffle: too few and tasks spill and run
for minutes, too many and scheduling overhead and small files dominate. A change in it changes the
job's run time and output file count; a reviewer should see it.

## Example
Before the change:
```plan
== Physical Plan ==
*(2) HashAggregate(keys=[k#1], functions=[sum(amount#3)])
+- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=12]
   +- *(1) HashAggregate(keys=[k#1], functions=[partial_sum(amount#3)])
      +- *(1) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
```
After the change (reported):
```plan
== Physical Plan ==
*(2) HashAggregate(keys=[k#1], functions=[sum(amount#3)])
+- Exchange hashpartitioning(k#1, 1000), ENSURE_REQUIREMENTS, [plan_id=12]
   +- *(1) HashAggregate(keys=[k#1], functions=[partial_sum(amount#3)])
      +- *(1) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
```
Use instead (the same partition count):
```plan
== Physical Plan ==
*(2) HashAggregate(keys=[k#21], functions=[sum(amount#23)])
+- Exchange hashpartitioning(k#21, 200), ENSURE_REQUIREMENTS, [plan_id=12]
   +- *(1) HashAggregate(keys=[k#21], functions=[partial_sum(amount#23)])
      +- *(1) FileScan parquet default.orders[k#21,amount#23] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
```

## Fix safety
Display-only: size partitions from the data (about 128-200 MB of shuffle per partition), or leave it
to AQE (`spark.sql.adaptive.coalescePartitions.enabled`).

## Options
None. Like every rule: `--ignore partition-count-changed` drops it, `--warn partition-count-changed` reports it without failing the diff,
`--fail-on` chooses which severities fail it (`planlint diff` fails on warnings by default).
)md"};

void check_partition_count_changed(DiffContext& ctx) {
  for (const auto& [b, a] : ctx.diff().matched) {
    const auto* xb = b->as<plan::ExchangeInfo>();
    const auto* xa = a->as<plan::ExchangeInfo>();
    if (xb == nullptr || xa == nullptr || b->kind != OpKind::shuffle_exchange) continue;
    if (!xb->num_partitions || !xa->num_partitions || *xb->num_partitions == *xa->num_partitions) continue;
    ctx.report(*a, b,
               "shuffle partitions changed: " + std::to_string(*xb->num_partitions) + " -> " +
                   std::to_string(*xa->num_partitions));
  }
}

}  // namespace planlint::rules
