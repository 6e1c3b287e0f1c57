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

Severity follows the number of turns the code shows. A loop over a collection written out in the
code (`for c in ["a", "b"]`, `range(5)`, a dict literal's items, `zip` of such lists, a name bound
once to a literal list, also in a project module it imports, or a function parameter that every
call in the file, or its default, fills with such a list) with 20 turns or fewer adds a handful of
projections and is not reported; one the code shows turning more often (`range(200)`, a list of 40
names) is a warning. A loop over a DataFrame's columns (`for c in df.columns`, `df.schema.fields`,
`df.dtypes`) is an info: wide tables have hundreds of columns, but the code does not show how wide
this one is; so is any other loop whose count is not in sight. Test code is not reported, nor a `withColumn` under
`if c == "name":` on the loop variable (one turn at most).

## Why is this bad?
Each call adds a projection to the logical plan. Hundreds of them make analysis and optimisation
slow (minutes before the job starts) and can end in a `StackOverflowError`; Spark's documentation
warns against it.

## Example (PySpark)
```python
for c in df.columns:
    df = df.withColumn(c, F.col(c).cast("double"))
```
Use instead:
```python
df = df.withColumns({c: F.col(c).cast("double") for c in df.columns})
```

## Fix safety
Display-only: build all columns in one `withColumns({...})` (Spark 3.3+) or one `select(...)`.

## Options
None.
)md"};

constexpr int kFewTurns = 20;  // turns of a spelled-out loop that add a negligible number of projections

void check_withcolumn_in_loop(SourceContext& ctx) {
  const auto& m = ctx.model();
  for (const auto& chain : m.chains) {
    if (!chain.in_loop || chain.assigned_to.empty() || chain.assigned_to != chain.root || chain.root_is_call) continue;
    // `if c == "name":` around it: one turn at most.
    if (!carried_across_turns(chain) || in_test_code(m, chain) || chain.once_per_loop) continue;
    const pyspark::Loop* loop = chain.loop >= 1 && chain.loop <= static_cast<int>(m.loops.size())
                                    ? &m.loops[static_cast<std::size_t>(chain.loop - 1)]
                                    : nullptr;
    // A loop over a collection written out in the code turns a handful of times: a few projections.
    if (loop != nullptr && loop->known_turns >= 0 && loop->known_turns <= kFewTurns) continue;
    const bool per_column = loop != nullptr && loop->over_columns;
    const bool many = loop != nullptr && loop->known_turns > kFewTurns;  // the code shows more than a handful
    const std::string root(chain.root);
    for (const auto& l : chain.links) {
      if (l.name != "withColumn" && l.name != "withColumnRenamed") continue;
      auto& d =
          ctx.report(chain.cell, l.name_pos,
                     "`" + std::string(l.name) + "` in a loop adds one projection per turn to `" + root + "`'s plan" +
                         (many         ? " (" + std::to_string(loop->known_turns) + " turns)"
                          : per_column ? std::string(" (a turn per column of a DataFrame: as many as it has)")
                                       : std::string(" (the code does not show how many turns)")) +
                         "; build the columns in one call");
      if (!many) d.severity = Severity::info;
      ctx.attach_fix(d, "Use withColumns or one select", Applicability::display_only,
                     root + " = " + root + ".withColumns({name: expression for name in ...})");
      break;
    }
  }
}

}  // namespace planlint::rules
