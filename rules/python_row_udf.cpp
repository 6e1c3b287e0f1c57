// python-row-udf: BatchEvalPython evaluates a Python UDF one row at a time.
#include "lint/plan_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::PlanNode;

extern const RuleInfo kPythonRowUdf{"PL003",
                                    "python-row-udf",
                                    "A row-at-a-time Python UDF runs in this plan",
                                    Severity::warning,
                                    FixAvailability::never,
                                    R"md(## What it does
Finds `BatchEvalPython`, the operator that runs `@udf` / `F.udf(...)` functions one row at a time.
`ArrowEvalPython` (pandas / Arrow UDFs) is not reported.

## Why is this bad?
Each row is pickled, sent to a Python worker process, evaluated by the interpreter and sent back. This
is typically 10-100x slower than a built-in function, which runs inside the JVM with code generation,
and it hides the expression from the optimizer (no pushdown, no constant folding).

## Example
```plan
== Physical Plan ==
*(2) Project [name#1, pythonUDF0#5 AS upper#4]
+- BatchEvalPython [to_upper(name#1)#3], [pythonUDF0#5]
   +- *(1) LocalTableScan [name#1]
```
Use instead (`F.upper("name")`, no Python in the plan):
```plan
== Physical Plan ==
*(1) Project [name#1, upper(name#1) AS upper#4]
+- *(1) LocalTableScan [name#1]
```

## Fix safety
Display-only: replace the UDF with a built-in from `pyspark.sql.functions` where one exists, or make
it a vectorised `@pandas_udf`, which exchanges Arrow batches instead of single rows.

## Options
None.
)md"};

void check_python_row_udf(PlanContext& ctx) {
  for (const PlanNode* n : ctx.physical_nodes()) {
    const auto* py = n->as<plan::PythonEvalInfo>();
    if (py == nullptr || n->name.find("BatchEvalPython") == std::string::npos) continue;
    std::string udfs;
    for (const auto& u : py->udf_names) udfs += (udfs.empty() ? "" : ", ") + u;
    if (udfs.empty()) udfs = "(unnamed)";
    ctx.report(*n, "row-at-a-time Python UDF " + udfs + ": every row is serialised to a Python worker and back",
               "Use a built-in or a pandas UDF",
               "Replace " + udfs +
                   " with a built-in from pyspark.sql.functions (e.g. F.upper, F.length, "
                   "arithmetic on columns) or declare it with @pandas_udf to process Arrow batches.");
  }
}

}  // namespace planlint::rules
