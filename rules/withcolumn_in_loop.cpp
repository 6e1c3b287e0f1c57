// withcolumn-in-loop: df = df.withColumn(...) repeated in a loop grows the plan one projection per turn.
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kWithColumnInLoop{"SPK501",
                                        "withcolumn-in-loop",
                                        "withColumn called in a loop builds a deep plan",
                                        Severity::warning,
                                        FixAvailability::never,
                                        Impact::medium,
                                        R"md(## What it does
Finds `df = df.withColumn(...)` (or `withColumnRenamed`) inside a `for` or `while` loop when `df`
grows from turn to turn: bound before the loop or from its own previous value. A DataFrame read
afresh at the top of each turn, or the loop variable itself, is not reported.

## Why is this bad?
Each call adds a projection to the logical plan. Hundreds of them make analysis and optimisation
slow (minutes before the job starts) and can end in a `StackOverflowError`; Spark's documentation
warns against it.

## Example (PySpark)
```python
for c in columns:
    df = df.withColumn(c, F.col(c).cast("double"))
```
Use instead:
```python
df = df.withColumns({c: F.col(c).cast("double") for c in columns})
```

## Fix safety
Display-only: build all columns in one `withColumns({...})` (Spark 3.3+) or one `select(...)`.

## Options
None.
)md"};

void check_withcolumn_in_loop(SourceContext& ctx) {
  for (const auto& chain : ctx.model().chains) {
    if (!chain.in_loop || chain.assigned_to.empty() || chain.assigned_to != chain.root || chain.root_is_call) continue;
    if (!carried_across_turns(chain)) continue;
    const std::string root(chain.root);
    for (const auto& l : chain.links) {
      if (l.name != "withColumn" && l.name != "withColumnRenamed") continue;
      auto& d = ctx.report(chain.cell, l.name_pos,
                           "`" + std::string(l.name) + "` in a loop adds one projection per turn to `" + root +
                               "`'s plan; build the columns in one call");
      ctx.attach_fix(d, "Use withColumns or one select", Applicability::display_only,
                     root + " = " + root + ".withColumns({name: expression for name in ...})");
      break;
    }
  }
}

}  // namespace planlint::rules
