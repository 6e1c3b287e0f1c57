// topandas-without-arrow: toPandas() / createDataFrame(pandas_df) while Arrow is off.
#include <algorithm>
#include <cctype>

#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kToPandasWithoutArrow{"SPK204",
                                            "topandas-without-arrow",
                                            "Data crosses between Spark and pandas row by row: Arrow is not enabled",
                                            Severity::info,
                                            FixAvailability::never,
                                            Impact::medium,
                                            R"md(## What it does
Finds `df.toPandas()` and `spark.createDataFrame(pdf)` of a pandas DataFrame (`pd.read_csv(...)`,
`pd.DataFrame(data)`, a name bound to one, the result of `toPandas()` or of another library's
conversion to pandas (`to_pandas()`, `to_dataframe()`), a read of the AWS SDK for pandas
(`wr.s3.read_parquet(...)`) or pandas-gbq, a parameter annotated `pd.DataFrame` or used as one; not a `pd.DataFrame` of rows
written out in the code, directly or through a name bound once to a literal list or dict) in a file where
`spark.sql.execution.arrow.pyspark.enabled` (or the Spark 2 name `spark.sql.execution.arrow.enabled`)
is not set to true: through `spark.conf.set`, `SparkSession.builder.config`, `SparkConf().set` or
SQL `SET`, anywhere in the file or in a project module it imports, directly or through other
project modules (the session builder of the project). A setting whose value is not a literal counts as enabled.

An `info`: row-by-row conversion costs in proportion to the rows, and the code does not show how
many there are (a join of tables read whole is as often a few thousand rows for a chart as a large
input), nor for a `createDataFrame` of a pandas DataFrame (it fits in the driver's memory: ten rows
or ten million). The message says what the code shows: a join, union or explode of a read of a
table or files that nothing aggregates, limits or filters to a key, or rows whose number is not in
sight (a plain read of one table, a function parameter, a lookup by key). Not reported: a `toPandas()` of a DataFrame that is small by
construction (`limit(n)`, a global aggregate, driver-built data: Arrow changes nothing for ten rows)
or of a grouped aggregate (a row per key); test code (functions named `test*`, files pytest
collects, `tests/` and `testing/` folders, assertion helpers named `assert*`); a `toPandas()` on an error path (a branch that ends in `raise`, an
`except` clause); in a notebook (whose cells are run by a person who sees what each returns), a
`toPandas()` unless the code shows a join, union or explode of a read, and a `createDataFrame` of a
pandas DataFrame not read from files; code that runs on Databricks
(a Databricks notebook, a Jupyter export of one, code that uses `dbutils`, the runtime's
`databricks.sdk.runtime`, DBFS paths or paths of Unity Catalog volumes (`"/Volumes/..."`) or workspace files (`"/Workspace/..."`), Databricks' packages (`databricks.sdk`, `databricks.labs`,
`databricks.connect`, `databricks.feature_engineering`, Delta Live Tables' `dlt`), or imports a project module that does, a file of a
Databricks Asset Bundle project, with a `databricks.yml` in its folder or one above, or a file of a
repository that holds Databricks notebooks (source notebooks or Jupyter exports of them): Databricks runtimes enable Arrow); a target of Spark 4.2 or later (`--target-spark-version`), where Arrow is on
by default. Open-source Spark 2.3 to 4.1 has it off by default.

## Why is this bad?
Without Arrow, PySpark pickles every row on the executors, ships the rows to the driver one by one
and builds the pandas DataFrame from Python objects (and the reverse for `createDataFrame`): for a
few million rows that is minutes instead of seconds, and several times the memory. With Arrow the
data moves as columnar batches.

## Example (PySpark)
```python
pdf = spark.table("sales.daily").join(spark.table("stores"), "store").toPandas()
```
Use instead:
```python
spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")
pdf = spark.table("sales.daily").join(spark.table("stores"), "store").toPandas()
```

## Fix safety
Display-only: the setting belongs where the session is configured (the cluster, `spark-defaults`,
the builder), which may not be this file. With Arrow, a few types convert differently (nested
structs before Spark 3.3, timestamps' time zone): check the result once.

## Options
`target-spark-version`: 4.2 or later turns the rule off.
)md"};

namespace {

bool arrow_setting(const pyspark::ConfSetting& s) {
  return s.key == "spark.sql.execution.arrow.pyspark.enabled" || s.key == "spark.sql.execution.arrow.enabled";
}

bool truthy(const std::string& v) {
  std::string l(v);
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  return l == "true" || l == "\"true\"" || l == "'true'";
}

// Whether the file turns Arrow on (or sets it to something it cannot read: then it may be on).
bool arrow_enabled(const pyspark::SourceModel& m) {
  return std::any_of(m.settings.begin(), m.settings.end(),
                     [](const pyspark::ConfSetting& s) { return arrow_setting(s) && (!s.literal || truthy(s.value)); });
}

// pd.DataFrame({...}) / pd.DataFrame([...]): rows written in the code, a handful.
bool literal_rows(const pyspark::SourceModel& m, const pyspark::Link& l) {
  const pyspark::Arg* data = l.arg(0, "data");
  if (l.name != "DataFrame" || data == nullptr) return false;
  const auto& v = data->value;
  return v.kind() == "dictionary" || v.kind() == "list" || v.kind() == "tuple" ||
         (v.kind() == "identifier" && m.literal_collections.count(v.text()) != 0);
}

enum class Pandas { no, yes, literal };

// The dotted name a chain's call reaches: the root with its leading attribute links
// (`wr.s3.read_parquet(path)` is `awswrangler.s3.read_parquet`).
std::string_view pandas_qualified(const pyspark::SourceModel& m, const pyspark::Chain& c, std::string& buffer) {
  std::string name(c.root);
  for (const auto& l : c.links) {
    name += '.';
    name += l.name;
    if (l.is_call) break;
  }
  buffer = std::string(m.qualify(name, buffer));
  return buffer;
}

// Libraries whose reads return pandas DataFrames: AWS SDK for pandas (`wr.s3.read_parquet(...)`,
// `wr.athena.read_sql_query(...)`), pandas-gbq.
bool pandas_reader(std::string_view qualified) {
  for (std::string_view m : {"awswrangler.", "pandas_gbq."})
    if (qualified.substr(0, m.size()) == m) return qualified.find(".read_") != std::string_view::npos;
  return false;
}

Pandas pandas_chain(const pyspark::SourceModel& m, const pyspark::Chain* c) {
  std::string buffer;
  for (int guard = 0; c != nullptr && guard < 16; ++guard, c = c->bound) {
    // `toPandas()`, and the conversions of other libraries' frames and results to pandas
    // (`polars_df.to_pandas()`, `arrow_table.to_pandas()`, BigQuery's `query(q).to_dataframe()`).
    if (!c->links.empty() && c->links.back().is_call &&
        (c->links.back().name == "toPandas" || c->links.back().name == "to_pandas" ||
         c->links.back().name == "to_dataframe"))
      return Pandas::yes;
    const std::string_view root = m.qualify(c->root, buffer);
    if (root == "pandas" || root.rfind("pandas.", 0) == 0)
      return c->links.size() == 1 && literal_rows(m, c->links[0]) ? Pandas::literal : Pandas::yes;
    if (pandas_reader(pandas_qualified(m, *c, buffer))) return Pandas::yes;
    // A parameter annotated `pd.DataFrame`, or used as one (`p.copy()`), of the def the chain is in.
    if (!c->root_is_call && c->bound == nullptr && c->links.empty() && !c->function.empty())
      if (const pyspark::FunctionInfo* f = m.function(c->function);
          f != nullptr && f->pandas_params.contains(c->root.view()))
        return Pandas::yes;
    if (c->root_is_call) return Pandas::no;
  }
  return Pandas::no;
}

// pd.read_csv(...), pd.read_parquet(...), a name bound to one: rows from files, as many as they hold.
bool pandas_read(const pyspark::SourceModel& m, const pyspark::Chain* c) {
  std::string buffer;
  for (int guard = 0; c != nullptr && guard < 16; ++guard, c = c->bound) {
    const std::string_view root = m.qualify(c->root, buffer);
    if (c->root_is_call && root.rfind("pandas.read_", 0) == 0) return true;
    if (pandas_reader(pandas_qualified(m, *c, buffer))) return true;
    if (!c->root_is_call && (root == "pandas" || root == "pd") && !c->links.empty() &&
        c->links.front().name.view().rfind("read_", 0) == 0)
      return true;
    if (c->root_is_call) return false;
  }
  return false;
}

// A pandas DataFrame as far as the file shows: pd.DataFrame(...), pd.read_csv(...), a name bound to one,
// with more rows than the code spells out.
// Also a parameter of the def `function` annotated `pd.DataFrame` or used as one, given as it is.
bool pandas_value(const pyspark::SourceModel& m, const pyspark::Expr& e, std::string_view function) {
  if (e.chain() == nullptr && e.kind() == "identifier" && !function.empty())
    if (const pyspark::FunctionInfo* f = m.function(function); f != nullptr && f->pandas_params.contains(e.text()))
      return true;
  return pandas_chain(m, e.chain()) == Pandas::yes;
}

}  // namespace

void check_topandas_without_arrow(SourceContext& ctx) {
  const auto& m = ctx.model();
  if (pyspark::runs_on_databricks(m) || ctx.options().databricks_project) return;
  if (!ctx.options().target_spark_version.empty() && !ctx.options().targets_before(4, 2)) return;
  if (arrow_enabled(m) || m.imports_arrow) return;
  for (const auto& chain : m.chains) {
    if (!has_own_link(chain, [](const pyspark::Link& l) {
          return l.is_call && (l.name == "toPandas" || l.name == "createDataFrame");
        }))
      continue;
    auto pipeline = chain.pipeline();
    for (std::size_t i = pipeline.size() - chain.links.size(); i < pipeline.size(); ++i) {
      const pyspark::Link& l = *pipeline[i].link;
      if (!l.is_call) continue;
      if (l.name == "toPandas" && l.args.empty() &&
          (chain.is_dataframe || l.on == pyspark::Link::On::dataframe || chain.ends_local)) {
        if (l.on == pyspark::Link::On::local || l.on == pyspark::Link::On::rdd) continue;
        pyspark::RowsFact rows = pyspark::rows_before(m, pipeline, i);
        // Row-by-row conversion costs in proportion to the rows: nothing for a few (or one per key of
        // a grouped result, or fixtures in tests), advice otherwise (their number is not in the code).
        if (pyspark::small_by_construction(rows.rows) || rows.rows == pyspark::Rows::grouped ||
            in_test_code(m, chain) || chain.on_error_path)
          continue;
        const bool large = rows.rows == pyspark::Rows::large && rows.multiplied;
        // In a notebook the rows are in front of the author, who sees what each cell returns: only a
        // join, union or explode of a read (more rows than any table it reads) is worth a word.
        if (!large && is_notebook(m)) continue;
        auto& d = ctx.report(chain.cell, l.name_pos,
                             large ? "`toPandas()` of " + rows.why +
                                         " without Arrow: every row is pickled and sent to the driver one at a time"
                                   : std::string("`toPandas()` without Arrow: every row is pickled and sent to the "
                                                 "driver one at a time (slow only when there are many)"));
        ctx.attach_fix(d, "Enable Arrow", Applicability::display_only,
                       "spark.conf.set(\"spark.sql.execution.arrow.pyspark.enabled\", \"true\")");
        continue;
      }
      if (l.name == "createDataFrame" && chain.is_dataframe && !in_test_code(m, chain)) {
        const pyspark::Arg* data = l.arg(0, "data");
        if (data == nullptr || !pandas_value(m, data->value, chain.function.view())) continue;
        const bool read = pandas_read(m, data->value.chain());
        if (!read && is_notebook(m)) continue;  // a pandas DataFrame the author has in front of them
        auto& d = ctx.report(chain.cell, l.name_pos,
                             read ? "`createDataFrame` of a pandas DataFrame read from files, without Arrow: it is "
                                    "converted row by row on the driver"
                                  : "`createDataFrame` of a pandas DataFrame without Arrow: it is converted row by "
                                    "row on the driver (slow only when it has many rows)");
        ctx.attach_fix(d, "Enable Arrow", Applicability::display_only,
                       "spark.conf.set(\"spark.sql.execution.arrow.pyspark.enabled\", \"true\")");
      }
    }
  }
}

}  // namespace planlint::rules
