// single-file-write: coalesce(1) / repartition(1) right before a write.
#include <set>

#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kSingleFileWrite{"SPK402",
                                       "single-file-write",
                                       "All data is funnelled through one task to write one file",
                                       Severity::warning,
                                       FixAvailability::sometimes,
                                       Impact::medium,
                                       R"md(## What it does
Finds `.coalesce(1)` or `.repartition(1)` followed by `.write` (through steps that keep rows in
place, such as `select` or `withColumn`). Data that is small by construction is not reported:
`createDataFrame` of driver-side data, a literal `spark.range`, a `limit(n)`, a global aggregate. A
grouped aggregate (one row per key, also through a helper that returns it) is reported as `info`.

## Why is this bad?
One task writes the whole output: the write runs on one core, and `coalesce(1)` also pulls the
work before it (joins, UDFs) into that single task. Large outputs fail or take hours.

## Example (PySpark)
```python
df.coalesce(1).write.parquet("s3://bucket/out")
```
Use instead:
```python
df.write.parquet("s3://bucket/out")
```

## Fix safety
Unsafe (with `--unsafe-fixes`): removing `.coalesce(1)` writes many files instead of one, which a
downstream consumer may not expect. `.repartition(1)`, and a grouped summary (info), are left for the
user to decide.

## Options
None.
)md"};

void check_single_file_write(SourceContext& ctx) {
  std::set<std::pair<int, std::uint32_t>> reported;  // one finding per coalesce, however many pipelines reach it
  for_each_write(ctx.model(), [&](const std::vector<pyspark::Step>& pipeline, std::size_t, const pyspark::Step& step) {
    const pyspark::Step* prev = &step;
    const pyspark::Link& p = *prev->link;
    if ((p.name != "coalesce" && p.name != "repartition") || p.args.size() != 1 || p.args[0].value.int_value() != 1)
      return;
    // Driver-built data, a literal range or a limit(n) is small: one file of it is one small task.
    auto rows = pyspark::rows_before(ctx.model(), pipeline, static_cast<std::size_t>(prev - pipeline.data()));
    if (pyspark::small_by_construction(rows.rows)) return;
    if (!reported.insert({prev->chain->cell, p.name_pos.start_byte}).second) return;
    bool grouped = rows.rows == pyspark::Rows::grouped;
    auto& d =
        ctx.report(prev->chain->cell, p.name_pos,
                   "`" + std::string(p.name) + "(1)` before a write: one task writes all the data" +
                       (grouped ? std::string(" (it is " + rows.why + ": one row per key, fine when the keys are few)")
                                : std::string()));
    if (grouped) d.severity = Severity::info;
    Fix& f = ctx.attach_fix(d, "Remove `." + std::string(p.name) + "(1)`",
                            p.name == "coalesce" && !grouped ? Applicability::unsafe : Applicability::display_only,
                            "Write in parallel (drop `." + std::string(p.name) +
                                "(1)`); if one file is required, merge the files after the job.");
    if (p.name == "coalesce" && !grouped)
      SourceContext::add_edit(f, prev->chain->cell, p.link_pos.start_byte, p.link_pos.end_byte, "");
  });
}

}  // namespace planlint::rules
