// single-file-write: coalesce(1) / repartition(1) right before a write.
#include <algorithm>
#include <set>
#include <string>

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
place, such as `select` or `withColumn`). Severity follows what the code shows of the rows: a
warning when they come from a read of a table or files that nothing aggregates, limits or filters to
a key (or a join with one); an `info` for a grouped aggregate (one row per key, also through a helper
that returns it) and where the size is not in sight (a function parameter, a lookup). Data that is
small by construction is not reported (`createDataFrame` of driver-side data, a literal
`spark.range`, a `limit(n)`, a global aggregate), nor is test code.

## Why is this bad?
One task writes the whole output: the write runs on one core, and `coalesce(1)` also pulls the
work before it (joins, UDFs) into that single task. Large outputs fail or take hours.

## Example (PySpark)
```python
spark.table("events").coalesce(1).write.parquet("s3://bucket/out")
```
Use instead:
```python
spark.table("events").write.parquet("s3://bucket/out")
```

## Fix safety
Unsafe (with `--unsafe-fixes`): removing `.coalesce(1)` writes many files instead of one, which a
downstream consumer may not expect. Display-only (never applied) where the file handles the output
as files (moves, renames, copies or lists them, picks the `part-` file) or writes inside a streaming
`foreachBatch` function, for `.repartition(1)`, and for every info.

## Options
None.
)md"};

namespace {

// Whether the file handles written output as files (moves, renames, copies or lists them, or picks
// the `part-` file), or writes inside a streaming foreachBatch function: then one output file may
// be what the code relies on, and removing coalesce(1) would change what it does.
bool relies_on_output_files(const pyspark::SourceModel& m, const pyspark::Chain& chain) {
  static constexpr std::string_view kFileHandling[] = {"part-",  ".mv(",      "rename(",     "shutil.",
                                                       ".cp(",   "copyfile(", "listdir(",    "glob(",
                                                       "fs.ls(", ".ls(",      "listStatus(", "copyFromLocal"};
  const std::string batch_call = chain.function.empty() ? std::string() : "foreachBatch(" + std::string(chain.function);
  return std::any_of(m.file->cells.begin(), m.file->cells.end(), [&](const pyspark::Cell& cell) {
    return (!batch_call.empty() && cell.text.find(batch_call) != std::string::npos) ||
           std::any_of(std::begin(kFileHandling), std::end(kFileHandling),
                       [&](std::string_view needle) { return cell.text.find(needle) != std::string::npos; });
  });
}

}  // namespace

void check_single_file_write(SourceContext& ctx) {
  std::set<std::pair<int, std::uint32_t>> reported;  // one finding per coalesce, however many pipelines reach it
  for_each_write(ctx.model(), [&](const std::vector<pyspark::Step>& pipeline, std::size_t, const pyspark::Step& step) {
    const pyspark::Step* prev = &step;
    const pyspark::Link& p = *prev->link;
    if ((p.name != "coalesce" && p.name != "repartition") || p.args.size() != 1 || p.args[0].value.int_value() != 1)
      return;
    // Driver-built data, a literal range or a limit(n) is small: one file of it is one small task.
    auto rows = pyspark::rows_before(ctx.model(), pipeline, static_cast<std::size_t>(prev - pipeline.data()));
    const pyspark::Volume volume = pyspark::volume_of(rows.rows);
    if (volume == pyspark::Volume::small || in_test_code(ctx.model(), *prev->chain)) return;
    if (!reported.insert({prev->chain->cell, p.name_pos.start_byte}).second) return;
    const bool large = volume == pyspark::Volume::large;
    const bool grouped = rows.rows == pyspark::Rows::grouped;
    std::string message = "`" + std::string(p.name) + "(1)` before a write: one task writes all the data";
    if (grouped)
      message += " (it is " + rows.why + ": one row per key, fine when the keys are few)";
    else if (large)
      message += " of " + rows.why;
    else
      message += " (fine while it is small; the code does not show its size)";
    auto& d = ctx.report(prev->chain->cell, p.name_pos, message);
    if (!large) d.severity = Severity::info;
    const bool editable = p.name == "coalesce" && large && !relies_on_output_files(ctx.model(), *prev->chain);
    Fix& f = ctx.attach_fix(d, "Remove `." + std::string(p.name) + "(1)`",
                            editable ? Applicability::unsafe : Applicability::display_only,
                            "Write in parallel (drop `." + std::string(p.name) +
                                "(1)`); if one file is required, merge the files after the job.");
    if (editable) SourceContext::add_edit(f, prev->chain->cell, p.link_pos.start_byte, p.link_pos.end_byte, "");
  });
}

}  // namespace planlint::rules
