// broadcast-disabled: spark.sql.autoBroadcastJoinThreshold set to -1.
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kBroadcastDisabled{"SPK303",
                                         "broadcast-disabled",
                                         "Automatic broadcast joins are turned off",
                                         Severity::warning,
                                         FixAvailability::never,
                                         Impact::medium,
                                         R"md(## What it does
Finds `spark.sql.autoBroadcastJoinThreshold` set to `-1` (or any negative number) with
`spark.conf.set`, `SparkSession.builder.config` (also `config(map={...})`), `SparkConf().set` /
`setAll([...])` (also on a name bound to `SparkConf()`), `sqlContext.setConf` or SQL `SET` (in
`spark.sql(...)`, `%sql` cells and Databricks `%scala` cells), with the key and value written
literally or held in module-level constants.

## Why is this bad?
With the threshold at -1 Spark never broadcasts a small table on its own: every join with a lookup
table becomes a sort-merge join that shuffles both sides. The setting is often left behind from
debugging an out-of-memory broadcast.

## Example (PySpark)
```python
spark.conf.set("spark.sql.autoBroadcastJoinThreshold", -1)
```
Use instead:
```python
spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "10MB")
```

## Fix safety
Unsafe (with `--unsafe-fixes`) when the setting is a `spark.conf.set(...)` statement of its own: the
fix removes it, so Spark broadcasts tables under the default 10 MB again, which can bring back the
memory pressure the setting was added for. Elsewhere display-only: remove the setting, or broadcast
specific joins with `broadcast(df)` where the size is known.

## Options
None.
)md"};

void check_broadcast_disabled(SourceContext& ctx) {
  for (const auto& s : ctx.model().settings) {
    if (s.key != "spark.sql.autoBroadcastJoinThreshold" || !s.literal) continue;
    if (s.value.empty() || s.value.front() != '-') continue;
    auto& d = ctx.report(s.cell, s.pos,
                         "automatic broadcast joins disabled (autoBroadcastJoinThreshold=" + s.value + ", " + s.via +
                             "): every join shuffles both sides");
    Fix& f = ctx.attach_fix(d, "Remove the setting", s.statement ? Applicability::unsafe : Applicability::display_only,
                            "Remove the setting (default 10MB), or broadcast known-small sides with broadcast(df).");
    if (s.statement) SourceContext::add_edit(f, s.cell, s.statement->start_byte, s.statement->end_byte, "");
  }
}

}  // namespace planlint::rules
