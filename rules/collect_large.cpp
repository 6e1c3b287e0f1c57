// collect-large: collect() / toPandas() of a DataFrame that nothing bounds to a few rows.
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kCollectLarge{"PL011",
                                    "collect-large",
                                    "All rows of a DataFrame are pulled into the driver",
                                    Severity::warning,
                                    FixAvailability::never,
                                    R"md(## What it does
Finds `collect()`, `toPandas()` and `rdd.collect()` (also as the iterable of a `for` loop) on a
DataFrame that is not bounded first: no `limit(n)` and no aggregation without grouping keys
(`agg(...)`, `count()`-style results of one row) earlier in the pipeline.

## Why is this bad?
Every row travels to the driver and must fit in its memory. On real data the job fails with an
`OutOfMemoryError` or a `spark.driver.maxResultSize` error after doing all the work, or the driver
becomes the bottleneck of a distributed job.

## Example (PySpark)
```python
rows = spark.table("events").filter("country = 'NL'").collect()
```
Use instead:
```python
rows = spark.table("events").filter("country = 'NL'").limit(100).collect()
```

## Fix safety
Display-only: only the author knows how many rows are needed. Bound the result with `.limit(n)` or
`take(n)`, aggregate in Spark first, or write the result to storage instead of collecting it.

## Options
None.
)md"};

void check_collect_large(SourceContext& ctx) {
  for (const auto& chain : ctx.model().chains) {
    auto pipeline = chain.pipeline();
    std::size_t own_start = pipeline.size() - chain.links.size();
    for (std::size_t i = own_start; i < pipeline.size(); ++i) {
      const pyspark::Link& l = *pipeline[i].link;
      if (!l.is_call || !l.args.empty() || (l.name != "collect" && l.name != "toPandas")) continue;
      bool via_rdd = i > 0 && pipeline[i - 1].link->name == "rdd";
      if (!chain.is_dataframe && !via_rdd) continue;
      bool bounded = false;
      bool grouped = false;
      for (std::size_t k = 0; k < i; ++k) {
        const std::string& n = pipeline[k].link->name;
        if (n == "limit" || n == "describe" || n == "summary" || n == "sample") bounded = true;
        if (n == "groupBy" || n == "groupby" || n == "rollup" || n == "cube") grouped = true;
        if (n == "agg" && !grouped) bounded = true;
      }
      if (bounded) continue;
      auto& d = ctx.report(chain.cell, l.name_pos,
                           "`" + l.name + "()` pulls every row of the DataFrame into the driver; nothing bounds it");
      ctx.attach_fix(d, "Bound the result", Applicability::display_only,
                     "Add `.limit(n)` before `." + l.name + "()`, use `.take(n)`, or aggregate in Spark first.");
    }
  }
}

}  // namespace planlint::rules
