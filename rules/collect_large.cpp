// collect-large: collect() / toPandas() of a DataFrame that nothing bounds to a few rows.
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kCollectLarge{"SPK203",
                                    "collect-large",
                                    "All rows of a DataFrame are pulled into the driver",
                                    Severity::info,
                                    FixAvailability::never,
                                    Impact::high,
                                    R"md(## What it does
Finds `collect()`, `toPandas()` and `rdd.collect()` (also as the iterable of a `for` loop) on a
DataFrame, and says how sure it is by what the code shows of the rows (the DataFrame is followed
through names, helper functions that return one, parameters of functions called with one, and
temporary views: `spark.sql("SELECT ... FROM v")` or `spark.table("v")` of a view the file registered
reads the rows of the DataFrame behind it, or of the query behind a view a `%sql` cell creates):

- **Nothing** when the rows are few by construction: a global aggregate (`agg(...)` without
  `groupBy`, `select(F.min(...))`, an expression over Spark's aggregates (`(F.sum(c) / n).alias(c)`,
  also a list of them, or a name bound to one in the cell), `selectExpr("sum(x)")`, `SELECT count(*)
  FROM t`, also formatted with `.format()` or `%`; Python's own `sum(cols)` adds columns row by row), `limit(n)`, data
  built on the driver (`createDataFrame([...])`, `spark.range(10)`), a metadata query (a Delta table's `detail()`, `SHOW`,
  `DESCRIBE`, `SELECT current_user()`, a query of `information_schema`), a `sample` of 5 % or less, a value per
  partition (`df.rdd.glom().map(len)`), a grouped aggregate, `distinct()` or `dropDuplicates()` of selected columns (one row per
  key, bounded by what the author knows of the keys; a `dropDuplicates(["id"])` of whole rows keeps
  a row per entity and counts as the rows it deduplicates), `collect()[0]` (the code expects one row), a
  function that returns the rows of its parameter (`def to_pandas(df): return df.toPandas()`: a
  conversion helper, its callers choose the rows), and test
  code (functions named `test*`, files pytest collects, `tests/` and `testing/`
folders, assertion helpers named `assert*`), which runs on fixtures, and
  an error path (a branch that ends in `raise`, an `except` clause: a look at what went wrong).
- **An info** when the code shows more rows than any one table holds (a join, union or explode of a
  read of a table or files that nothing aggregates, limits or filters to a key afterwards), or when
  the data's source is not in sight (a function parameter, a helper of another module: the function
  collects whatever its callers give it). Never a warning: whether the rows fit in the driver is
  their number, which the code does not show.
- **Nothing** for one table or query read whole, or a lookup by key (`filter(F.col("id") == x)`,
  `WHERE k = 'v'`; also of a parameter or of what a helper read): the author named what is read and collects it on purpose (lookup tables, code
  lists and configuration are read whole); nor in a notebook, unless the code shows a join, union or
  explode of a read: a notebook's cells are run by a person who sees what each returns.

RDDs made on the driver or from text files are not DataFrames and are not reported;
`df.rdd.collect()` is. Rows flattened into their values on the way (`rdd.flatMap(lambda r: r)`,
`flatMap(list)`) are as many as the rows were: the distinct values of a column stay bounded.

## Why is this bad?
Every row travels to the driver and must fit in its memory. On real data the job fails with an
`OutOfMemoryError` or a `spark.driver.maxResultSize` error after doing all the work, or the driver
becomes the bottleneck of a distributed job.

## Example (PySpark)
```python
rows = spark.table("events").join(spark.table("users"), "user_id").collect()
```
Use instead:
```python
rows = spark.table("events").join(spark.table("users"), "user_id").limit(100).collect()
```

## Fix safety
Display-only: only the author knows how many rows are needed. Bound the result with `.limit(n)` or
`take(n)`, aggregate in Spark first, or write the result to storage instead of collecting it.

## Options
None.
)md"};

namespace {

// Whether the call ending at `end` is indexed with [0] right after (`rows.collect()[0]`).
bool first_row_only(std::string_view text, std::uint32_t end) {
  if (end > text.size()) return false;
  std::size_t i = text.find_first_not_of(" \t", end);
  return i != std::string_view::npos && text.substr(i, 3) == "[0]";
}

// Whether `chain` is in a `return` statement of a function whose parameter it starts from.
bool returns_parameter_rows(const pyspark::SourceModel& m, const pyspark::Chain& chain, std::string_view text) {
  if (chain.function.empty()) return false;
  const pyspark::Chain* origin = chain.origin();
  const pyspark::FunctionInfo* f = m.function(chain.function);
  if (origin->root_is_call || f == nullptr ||
      std::find(f->params.begin(), f->params.end(), origin->root.view()) == f->params.end())
    return false;
  if (chain.pos.start_byte > text.size()) return false;
  const std::size_t line = text.rfind('\n', chain.pos.start_byte == 0 ? 0 : chain.pos.start_byte - 1);
  std::string_view before = text.substr(line == std::string_view::npos ? 0 : line + 1);
  before.remove_prefix(std::min(before.size(), before.find_first_not_of(" \t")));
  return before.starts_with("return ") || before.starts_with("return(");
}

}  // namespace

void check_collect_large(SourceContext& ctx) {
  const auto& m = ctx.model();
  auto pulls = [](const pyspark::Link& l) {
    return l.is_call && l.args.empty() && (l.name == "collect" || l.name == "toPandas");
  };
  for (const auto& chain : m.chains) {
    // An RDD made on the driver or from files is not a DataFrame; one that holds a DataFrame's rows is.
    if (!chain.is_dataframe && !chain.rdd_of_dataframe) continue;
    // On an error path (a branch that ends in raise, an except clause): a look at what went wrong.
    if (!has_own_link(chain, pulls) || in_test_code(m, chain) || chain.on_error_path) continue;
    auto pipeline = chain.pipeline();
    std::size_t own_start = pipeline.size() - chain.links.size();
    for (std::size_t i = own_start; i < pipeline.size(); ++i) {
      const pyspark::Link& l = *pipeline[i].link;
      if (!pulls(l)) continue;
      pyspark::RowsFact rows = pyspark::rows_before(m, pipeline, i);
      const std::string name(l.name);
      if (pyspark::volume_of(rows.rows) == pyspark::Volume::small) continue;
      // One row per key (a grouped aggregate, distinct values) or the first row only (`.collect()[0]`,
      // the code expects one): bounded by what the author knows of the keys. Not reported.
      if (rows.rows == pyspark::Rows::grouped || first_row_only(ctx.cell_text(chain.cell), l.expr_pos.end_byte))
        continue;
      if (rows.rows == pyspark::Rows::large && rows.multiplied) {
        auto& d = ctx.report(chain.cell, l.name_pos,
                             "`" + name + "()` pulls every row of " + rows.why +
                                 " into the driver; nothing aggregates, limits or filters it to a key (how many rows "
                                 "that is, the code does not show)");
        ctx.attach_fix(
            d, "Bound the result", Applicability::display_only,
            "Add `.limit(n)` before `." + name + "()`, use `.take(n)` or `.first()`, or aggregate in Spark first.");
        continue;
      }
      // A table or files read whole, a query over a table, a lookup by key: the author named what is
      // read and collects it on purpose (lookup tables, code lists and configuration are read whole).
      // In a notebook the rows are in front of the author, who sees what each cell returns. Not reported.
      if ((rows.rows == pyspark::Rows::large && !rows.multiplied) || rows.keyed || is_notebook(m)) continue;
      // A conversion helper that hands its parameter's rows back (`def to_pandas(df): return
      // df.toPandas()`): collecting is what it is for, and its callers choose the rows. Not reported.
      if (returns_parameter_rows(m, chain, ctx.cell_text(chain.cell))) continue;
      // Where the data comes from is not in sight (a parameter, a helper of another module): advice.
      const std::string source = rows.why.empty() ? std::string() : " of " + rows.why;  // what the code shows
      auto& d = ctx.report(chain.cell, l.name_pos,
                           "`" + name + "()` pulls every row" + source +
                               " into the driver, and the code does not show how many there are; fine only while "
                               "they are few");
      ctx.attach_fix(d, "Bound the result", Applicability::display_only,
                     "Add `.limit(n)` before `." + name + "()`, use `.take(n)`, or aggregate in Spark first.");
    }
  }
}

}  // namespace planlint::rules
