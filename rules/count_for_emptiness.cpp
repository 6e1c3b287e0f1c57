// count-for-emptiness: a full count (or collect) to answer "is there any row?".
#include <algorithm>

#include "lint/source_context.hpp"
#include "util/name_set.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kCountForEmptiness{"SPK205",
                                         "count-for-emptiness",
                                         "Every row is counted to answer whether there is any",
                                         Severity::info,
                                         FixAvailability::sometimes,
                                         Impact::medium,
                                         R"md(## What it does
Finds a DataFrame's or RDD's row count used as a yes/no question: `df.count() == 0`, `!= 0`, `> 0`,
`>= 1`, `< 1`, `0 < df.count()`, `if df.count():`, `if not df.count():`, `while df.count() > 0:`,
and `len(df.collect()) == 0` (and the same comparisons). Counts compared with other numbers, counts
kept in a variable and printed, and `len(df.head(1))` are not reported. A `count()` on something of
unknown kind (a function parameter, `eval(...)`) counts as a DataFrame's in a file that uses Spark;
pandas DataFrames and lists are never reported.

Severity follows evidence: an `info`. What the extra pass costs is the size of the counted rows, and
the code does not show it: a read of a table or files is as often a metadata table, a lookup filtered
to one key or a day's few files as a large input. The message says what the code does show: a read
that nothing aggregates, limits or filters to a key, rows whose number is not in sight (a function
parameter, a lookup), an `assert` expecting rows, a cached DataFrame, or a whole table or Parquet /
ORC / Delta read with nothing but projections on the way (its count comes from file metadata).
Nothing for rows few by construction (`SHOW ...`, literal rows, a Delta table's `history()`, what a
helper returns when every return is rows built on the driver, also through a parameter every call
fills with it: `createDataFrame(results)` of a list,
not of an RDD), in test code, or in an `assert`
expecting no rows (`assert df.count() == 0`: where it passes, `isEmpty()` reads every row as well).

## Why is this bad?
`count()` runs a job over every partition of the input to produce a number that is then only
compared with zero; `len(df.collect())` also moves every row to the driver. `isEmpty()` (or
`head(1)`) stops at the first row Spark finds, usually after reading one file split.

## Example (PySpark)
```python
new_rows = spark.table("staging.events").filter("ingest_date >= current_date()")
if new_rows.count() == 0:
    print("nothing to load")
```
Use instead:
```python
new_rows = spark.table("staging.events").filter("ingest_date >= current_date()")
if new_rows.isEmpty():
    print("nothing to load")
```

## Fix safety
Safe for a DataFrame when the target Spark version has `DataFrame.isEmpty()` (3.3 and later, the
default when neither `target-spark-version` nor the project's pinned PySpark names an older one):
the test becomes `df.isEmpty()` or
`not df.isEmpty()`. For an older target it becomes `len(df.head(1)) == 0` (or `> 0`), and for an
RDD `rdd.isEmpty()`. When the DataFrame is cached before the test, the count also fills the cache
for what follows: the finding is an `info` and the fix is unsafe (the cache would then fill on
first use instead).

## Options
`target-spark-version` chooses `isEmpty()` or `head(1)`; without it, the version the project pins
(`pyspark==3.1.2` in requirements.txt, pyproject.toml, setup.py, environment.yml, or a Databricks
bundle's runtime).
)md"};

namespace {

// Whether the statement holding byte `at` is an `assert` (its line, from its indentation, says so).
bool in_assert(std::string_view text, std::uint32_t at) {
  if (at > text.size()) return false;
  std::size_t start = text.rfind('\n', at == 0 ? 0 : at - 1);
  start = start == std::string_view::npos ? 0 : start + 1;
  std::size_t word = text.find_first_not_of(" \t", start);
  return word != std::string_view::npos && word <= at && text.substr(word, 7) == "assert ";
}

}  // namespace

namespace {

// `spark.table(t).count()`, `spark.read.parquet(p).count()`: every row of a table or of Parquet,
// ORC or Delta files with nothing on the way but projections. Delta answers the count from its log,
// Parquet and ORC from their footers' row counts: no column is read.
bool whole_columnar_read(const std::vector<pyspark::Step>& pipeline) {
  static const util::NameSet kReading{"read", "table", "format", "option", "options", "load", "parquet", "orc"};
  static const util::NameSet kProjections{"select", "alias", "withColumnRenamed", "drop", "toDF"};
  static const util::NameSet kColumnar{"delta", "parquet", "orc"};
  bool columnar = false;
  // From the read on (the session's own steps come before it).
  std::size_t from = pipeline.size();
  for (std::size_t i = 0; i + 1 < pipeline.size(); ++i)
    if (pipeline[i].link->name == "read" || pipeline[i].link->name == "table") from = i;
  if (from == pipeline.size()) return false;
  for (std::size_t i = from; i + 1 < pipeline.size(); ++i) {  // the last step is the count
    const pyspark::Link& l = *pipeline[i].link;
    if (l.name == "table" || l.name == "parquet" || l.name == "orc") columnar = true;
    if (l.name == "format" && !l.args.empty() && l.args[0].value.string_value())
      columnar = kColumnar.contains(std::string_view(*l.args[0].value.string_value()));
    if (!kReading.contains(l.name) && !kProjections.contains(l.name)) return false;
  }
  return columnar;
}

}  // namespace

void check_count_for_emptiness(SourceContext& ctx) {
  const auto& m = ctx.model();
  if (m.size_tests.empty()) return;
  bool uses_spark = std::any_of(m.chains.begin(), m.chains.end(),
                                [](const pyspark::Chain& c) { return c.is_session || c.is_dataframe; });
  for (const auto& t : m.size_tests) {
    const pyspark::Chain& chain = *t.chain;
    const pyspark::Link& last = chain.links.back();
    bool rdd = last.on == pyspark::Link::On::rdd;
    // pandas and lists: len() is cheap there. A receiver of unknown kind (a parameter, eval(...)) is
    // taken for a DataFrame in a file that uses Spark: no other common zero-argument count() is
    // compared with 0 (pandas' returns a Series, which cannot be a condition).
    if (last.on == pyspark::Link::On::local) continue;
    if (last.on == pyspark::Link::On::unknown && !uses_spark) continue;
    // The receiver: the chain's text up to the `.count` / `.collect` link.
    std::string_view cell = ctx.cell_text(t.cell);
    if (last.link_pos.start_byte < chain.pos.start_byte || last.link_pos.start_byte > cell.size()) continue;
    std::string receiver(cell.substr(chain.pos.start_byte, last.link_pos.start_byte - chain.pos.start_byte));
    if (receiver.find('\n') != std::string::npos) receiver = "(" + receiver + ")";
    bool cached = false;
    const auto pipeline = chain.pipeline();
    for (const auto& step : pipeline)
      if (step.link->is_call && (step.link->name == "cache" || step.link->name == "persist")) cached = true;
    // Nothing for rows few by construction (a SHOW, a literal) or test code; an info otherwise, with
    // what the code shows of the rows: their size is not in the code, even for a read of a table.
    const pyspark::RowsFact rows = pyspark::rows_before(m, pipeline, pipeline.size() - 1);
    const pyspark::Volume volume = pyspark::volume_of(rows.rows);
    if (volume == pyspark::Volume::small || in_test_code(m, chain)) continue;
    const bool asserted = in_assert(cell, t.pos.start_byte);
    // `assert df.count() == 0` expects "empty": on the path it expects, isEmpty() reads every row as
    // well, so the change saves nothing where the check passes.
    if (asserted && t.means_empty) continue;
    std::string question =
        t.via_len
            ? "`len(" + std::string(cell.substr(chain.pos.start_byte, chain.pos.end_byte - chain.pos.start_byte)) + ")`"
            : "`count()`";
    std::string what = t.via_len ? "moves every row to the driver" : "counts every row";
    // RDD.isEmpty() exists since 1.3, DataFrame.isEmpty() since 3.3: head(1) before that.
    bool head = !rdd && ctx.options().targets_before(3, 3);
    std::string replacement = head ? "len(" + receiver + ".head(1)) == 0" : receiver + ".isEmpty()";
    if (!t.means_empty) {
      if (replacement.rfind("len(", 0) == 0)
        replacement.replace(replacement.size() - 4, 4, "> 0");
      else
        replacement = "not " + replacement;
    }
    auto& d = ctx.report(
        t.cell, t.pos,
        question + " " + what + " only to ask whether there is one; `" + replacement + "` stops at the first row");
    if (cached) {
      d.message += " (the DataFrame is cached, so the count also fills the cache for later use)";
    } else if (asserted) {
      d.message += " (in an assert, which expects rows: isEmpty() stops at the first)";
    } else if (volume != pyspark::Volume::large) {
      d.message += " (the code does not show how many rows it counts)";
    } else if (whole_columnar_read(pipeline)) {
      d.message += " (a whole table or Parquet read: its count comes from file metadata, cheaply)";
    } else {
      d.message += " (" + rows.why + ": the count reads all of it, and its size is not in the code)";
    }
    Fix& f = ctx.attach_fix(d, rdd ? "Use isEmpty()" : "Ask for one row",
                            cached ? Applicability::unsafe : Applicability::safe, replacement);
    SourceContext::add_edit(f, t.cell, t.pos.start_byte, t.pos.end_byte, replacement);
  }
}

}  // namespace planlint::rules
