// collect-large: collect() / toPandas() of a DataFrame that nothing bounds to a few rows.
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kCollectLarge{"SPK203",
                                    "collect-large",
                                    "All rows of a DataFrame are pulled into the driver",
                                    Severity::warning,
                                    FixAvailability::never,
                                    Impact::high,
                                    R"md(## What it does
Finds `collect()`, `toPandas()` and `rdd.collect()` (also as the iterable of a `for` loop) on a
DataFrame that nothing bounds: not a global aggregate (`agg(...)` without `groupBy`,
`select(F.min(...))`, `selectExpr("sum(x)")`, `SELECT count(*) FROM t`), not `limit(n)`, not data
built on the driver (`createDataFrame([...])`, `spark.range(10)`), not a metadata query (`SHOW`,
`DESCRIBE`, `SELECT current_user()`). The DataFrame is followed through names, helper functions that
return one, and parameters of functions called with one. A grouped aggregate or `distinct()` values
are bounded by their key count: an info. RDDs made on the driver or from text files are not
DataFrames and are not reported; `df.rdd.collect()` is.

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
  const auto& m = ctx.model();
  auto pulls = [](const pyspark::Link& l) {
    return l.is_call && l.args.empty() && (l.name == "collect" || l.name == "toPandas");
  };
  for (const auto& chain : m.chains) {
    // An RDD made on the driver or from files is not a DataFrame; one that holds a DataFrame's rows is.
    if (!chain.is_dataframe && !chain.rdd_of_dataframe) continue;
    if (!has_own_link(chain, pulls)) continue;
    auto pipeline = chain.pipeline();
    std::size_t own_start = pipeline.size() - chain.links.size();
    for (std::size_t i = own_start; i < pipeline.size(); ++i) {
      const pyspark::Link& l = *pipeline[i].link;
      if (!pulls(l)) continue;
      pyspark::RowsFact rows = pyspark::rows_before(m, pipeline, i);
      if (rows.rows != pyspark::Rows::unknown && rows.rows != pyspark::Rows::grouped) continue;
      if (rows.rows == pyspark::Rows::grouped) {
        // As many rows as groups: fine for a handful of keys, a driver OOM for a million.
        auto& d = ctx.report(chain.cell, l.name_pos,
                             "`" + std::string(l.name) + "()` of " + rows.why +
                                 " pulls one row per key into the driver; fine only while the keys are few");
        d.severity = Severity::info;
        ctx.attach_fix(
            d, "Bound the result", Applicability::display_only,
            "Keep the result in Spark (join or write it), or `.limit(n)` before `." + std::string(l.name) + "()`.");
        continue;
      }
      auto& d = ctx.report(
          chain.cell, l.name_pos,
          "`" + std::string(l.name) + "()` pulls every row of the DataFrame into the driver; nothing bounds it");
      ctx.attach_fix(d, "Bound the result", Applicability::display_only,
                     "Add `.limit(n)` before `." + std::string(l.name) +
                         "()`, use `.take(n)` or `.first()`, or aggregate in "
                         "Spark first.");
    }
  }
}

}  // namespace planlint::rules
