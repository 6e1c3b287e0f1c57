// python-eval-added: a change adds Python evaluation to the plan (`planlint diff`).
#include "lint/diff_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::PlanNode;

extern const RuleInfo kPythonEvalAdded{"SPK705",
                                       "python-eval-added",
                                       "A change adds Python evaluation to the plan",
                                       Severity::warning,
                                       FixAvailability::never,
                                       Impact::high,
                                       R"md(## What it does
Reports each Python operator in AFTER that BEFORE did not have (`planlint diff`): `BatchEvalPython`
(row-at-a-time UDFs), `ArrowEvalPython` (pandas UDFs), `FlatMapGroupsInPandas`, `MapInPandas`,
`MapInArrow` and the like.

## Why is this bad?
Python evaluation ships every row from the JVM to Python worker processes and back; a row-at-a-time
UDF is often 10-100 times slower than the built-in function that does the same. It also stops
filters from being pushed below it.

## Example
Before the change:
```plan
== Physical Plan ==
*(1) Project [k#1, amount#3]
+- *(1) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
```
After the change (reported):
```plan
== Physical Plan ==
*(2) Project [k#1, pythonUDF0#10 AS score#5]
+- BatchEvalPython [score_udf(amount#3)#4], [pythonUDF0#10]
   +- *(1) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
```
Use instead (the same computation with built-in functions: no Python operator):
```plan
== Physical Plan ==
*(1) Project [k#4, amount#6]
+- *(1) FileScan parquet default.orders[k#4,amount#6] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
```

## Fix safety
Display-only: replace the UDF with `pyspark.sql.functions` where one exists, or use a pandas UDF
(`@pandas_udf`) so rows travel in Arrow batches.

## Options
None. Like every rule: `--ignore python-eval-added` drops it, `--warn python-eval-added` reports it without failing the diff,
`--fail-on` chooses which severities fail it (`planlint diff` fails on warnings by default).
)md"};

void check_python_eval_added(DiffContext& ctx) {
  for (const PlanNode* n : ctx.diff().added) {
    if (!plan::is_python_operator(*n)) continue;
    ctx.report(*n, nullptr, "the change adds Python evaluation: `" + operator_text(*n) + "`", "Use built-in functions",
               "Replace the UDF with pyspark.sql.functions, or make it a pandas UDF (@pandas_udf).");
  }
}

}  // namespace planlint::rules
