// single-file-write: coalesce(1) / repartition(1) right before a write.
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <string>

#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kSingleFileWrite{"SPK402",
                                       "single-file-write",
                                       "All data is funnelled through one task to write one file",
                                       Severity::info,
                                       FixAvailability::sometimes,
                                       Impact::medium,
                                       R"md(## What it does
Finds `.coalesce(1)` or `.repartition(1)` followed by `.write` (through steps that keep rows in
place, such as `select` or `withColumn`), also before an AWS Glue `write_dynamic_frame`, and
`.coalesce(n)` of a parameter whose default is 1 (`def save(df, path, num_partitions=1)`) where a call
in the file leaves it so or the file never calls the function (its default is then what callers get). An `info`: one task writing everything costs what the
data's size is, and the code does not show it (a read of a table or files is as often a few
thousand rows as a large input). The message says what the code shows of the rows: a read of a table
or files that nothing aggregates, limits or filters to a key (or a join with one), or rows whose
number is not in sight (a function parameter, a lookup).

Data that is small by construction is not
reported (`createDataFrame` of driver-side data, a literal `spark.range`, a `limit(n)`, a global
aggregate, JSON read from an RDD built on the driver), nor one row per key (a grouped aggregate,
distinct values: a report, one file on purpose), nor is
test code, nor a write whose output the code then handles as files (moves, copies, renames or lists
the written path, by its name or by the names it is built from, as `out = f"s3://{bucket}/{prefix}/"`
then a rename under `prefix`: one file is then the deliverable).

A Glue DynamicFrame counts when it is written with `glueContext.write_dynamic_frame.from_options(frame=...)`
or `from_catalog`, through its steps that keep rows in place (`resolveChoice`, `apply_mapping`,
`drop_fields`, `select_fields`, `rename_field`), and a frame made with `DynamicFrame.fromDF(df, ...)` has
df's partitions (`fromDF(df.repartition(1), glueContext, "out")`); the written path is the
`connection_options` one.

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
as files (moves, renames, copies or lists them, reads them back one by one, picks the `part-` file or
`partitions[0]`) or writes inside a function that streaming calls through `foreachBatch` (passed
directly, as a method, or called from the callback), for `.repartition(1)`, and where the rows are
not a read of a table or files (a grouped aggregate, a parameter, a lookup).

## Options
None.
)md"};

namespace {

// The functions streaming calls through foreachBatch: every function of the file named in the
// argument of a `foreachBatch(...)` call (`fn`, `self.fn`, `lambda df, i: fn(df, i)`,
// `partial(fn, ...)`), and the functions of the file they call, transitively.
std::set<std::string, std::less<>> foreach_batch_functions(const pyspark::SourceModel& m) {
  std::set<std::string, std::less<>> out;
  std::vector<std::string_view> work;
  // Every identifier of `text` that names a function of the file, followed by `(` when `called`.
  auto add_names = [&](std::string_view text, bool called) {
    for (std::size_t i = 0; i < text.size();) {
      if (std::isalpha(static_cast<unsigned char>(text[i])) == 0 && text[i] != '_') {
        ++i;
        continue;
      }
      std::size_t end = i;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '_')) ++end;
      std::string_view name = text.substr(i, end - i);
      const bool preceded_by_dot = i > 0 && text[i - 1] == '.';
      std::size_t next = text.find_first_not_of(" \t", end);
      const bool call = next != std::string_view::npos && text[next] == '(';
      if ((!called || (call && !preceded_by_dot) || (call && text.substr(0, i).ends_with("self."))) &&
          m.function(name) != nullptr && out.emplace(name).second)
        work.push_back(m.functions.find(name)->first);
      i = end;
    }
  };
  static constexpr std::string_view kCall = "foreachBatch(";
  for (const auto& cell : m.file->cells) {
    std::string_view text = cell.text;
    for (std::size_t at = text.find(kCall); at != std::string_view::npos; at = text.find(kCall, at + 1)) {
      std::size_t end = at + kCall.size();
      for (int depth = 1; end < text.size() && depth > 0; ++end)
        depth += text[end] == '(' ? 1 : text[end] == ')' ? -1 : 0;
      add_names(text.substr(at + kCall.size(), end - at - kCall.size()), false);
    }
  }
  while (!work.empty()) {
    std::string_view f = work.back();
    work.pop_back();
    add_names(m.function(f)->body, true);
  }
  return out;
}

// Whether the file handles written output as files: moves, renames, copies or lists them, reads them
// back one by one, or picks the `part-` file. Then one output file may be what the code relies on.
bool handles_output_files(const pyspark::SourceModel& m) {
  static constexpr std::string_view kFileHandling[] = {
      "part-",       ".mv(",        "rename(",      "shutil.",     ".cp(",        "copyfile(",
      "listdir(",    "glob(",       "fs.ls(",       ".ls(",        "listStatus(", "copyFromLocal",
      "os.replace(", "iterdir(",    "scandir(",     "os.walk(",    "inputFiles(", "partitions[0]",
      "listFiles(",  "copyToLocal", "copy_object(", "list_objects"};
  return std::any_of(m.file->cells.begin(), m.file->cells.end(), [&](const pyspark::Cell& cell) {
    return std::any_of(std::begin(kFileHandling), std::end(kFileHandling),
                       [&](std::string_view needle) { return cell.text.find(needle) != std::string::npos; });
  });
}

// What the write's path is spelled with: the names in its expression (`out_dir`, `cfg.path`, the
// names of an f-string) or, for a literal, the literal; from the call that saves (`csv(p)`,
// `save(p)`, `parquet(p)`...) or `option("path", p)`.
std::vector<std::string> write_path_words(const pyspark::SourceModel& m, const std::vector<pyspark::Step>& pipeline,
                                          std::size_t write) {
  static constexpr std::string_view kSavers[] = {"save", "csv", "json", "parquet", "orc", "text", "avro"};
  std::vector<std::string> words;
  for (std::size_t k = write + 1; k < pipeline.size(); ++k) {
    const pyspark::Link& l = *pipeline[k].link;
    if (!l.is_call || l.args.empty()) continue;
    const pyspark::Expr* path = nullptr;
    if (std::find(std::begin(kSavers), std::end(kSavers), std::string_view(l.name)) != std::end(kSavers))
      path = &l.args[0].value;
    else if (l.name == "option" && l.args.size() >= 2 && l.args[0].value.string_value() == "path")
      path = &l.args[1].value;
    else if (const pyspark::Arg* options = l.arg(99, "connection_options"); options != nullptr)
      path = &options->value;  // AWS Glue: write_dynamic_frame.from_options(connection_options={"path": p})
    if (path == nullptr) continue;
    // A name bound to a string stands for the string (`.csv(out)`, `out = f"s3://{bucket}/{prefix}/"`):
    // the name as written in the call is a word of the path too.
    if (path->kind() != "identifier") {
      const std::string_view cell = m.cell(pipeline[k].chain->cell).text;
      const pyspark::Pos& at = l.link_pos;
      if (at.end_byte <= cell.size() && at.start_byte < at.end_byte) {
        std::string_view call = cell.substr(at.start_byte, at.end_byte - at.start_byte);
        const std::size_t open = call.find('(');
        if (open != std::string_view::npos) {
          call.remove_prefix(open + 1);
          std::size_t e = 0;
          while (e < call.size() && (std::isalnum(static_cast<unsigned char>(call[e])) != 0 || call[e] == '_')) ++e;
          const bool bare = e >= 3 && (e == call.size() || call[e] == ',' || call[e] == ')' || call[e] == ' ');
          if (bare && std::isdigit(static_cast<unsigned char>(call[0])) == 0) words.emplace_back(call.substr(0, e));
        }
      }
    }
    if (auto literal = path->string_value(); literal && path->text().find('{') == std::string_view::npos) {
      if ((*literal).size() >= 4) words.emplace_back(*literal);
      if (path->kind() != "identifier") continue;  // a name bound to the path: the name is used too
    }
    const std::string_view t = path->text();
    for (std::size_t i = 0; i < t.size();) {
      if (std::isalpha(static_cast<unsigned char>(t[i])) == 0 && t[i] != '_') {
        ++i;
        continue;
      }
      std::size_t e = i;
      while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) != 0 || t[e] == '_' || t[e] == '.')) ++e;
      const bool prefix = e < t.size() && (t[e] == '"' || t[e] == '\'');  // the f of f"..."
      if (!prefix && e - i >= 3) words.emplace_back(t.substr(i, e - i));
      i = e;
    }
  }
  return words;
}

// A call that handles files (`dbutils.fs.mv(...)`, `os.listdir(...)`): where it is, and its line and
// the next two (where its arguments are). Found once per file: looking again for every write
// scanned the rest of a large file once per write (a 10 MB file of 3,000 writes took a minute).
struct FileCall {
  int cell = 0;
  std::size_t at = 0;
  std::string_view call;
};
std::vector<FileCall> file_handling_calls(const pyspark::SourceModel& m) {
  static constexpr std::string_view kFileHandling[] = {
      ".mv(", ".cp(",        "rename",        "shutil.", "copyfile(",    "listdir(",     "glob(",
      ".ls(", "listStatus(", "copyFromLocal", "move(",   "list_objects", "copy_object(",
  };
  std::vector<FileCall> out;
  for (const auto& cell : m.file->cells) {
    const std::string_view text = cell.text;
    for (std::string_view needle : kFileHandling)
      for (std::size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) {
        std::size_t end = at;
        for (int lines = 0; lines < 3 && end != std::string_view::npos; ++lines) end = text.find('\n', end + 1);
        out.push_back(
            {cell.number, at, text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at)});
      }
  }
  return out;
}

// Whether, after the write, the code handles what it wrote as files: moves, copies, renames or
// lists the written path (`dbutils.fs.mv(f"{out}/part-...")`, `os.listdir(out)`). One file is then
// the deliverable, not an accident.
bool handles_written_files(const std::vector<FileCall>& calls, const pyspark::Chain& write,
                           const std::vector<std::string>& words) {
  if (words.empty()) return false;
  auto word_at = [](std::string_view text, std::string_view w) {
    for (std::size_t at = text.find(w); at != std::string_view::npos; at = text.find(w, at + 1)) {
      const bool starts =
          at == 0 || (std::isalnum(static_cast<unsigned char>(text[at - 1])) == 0 && text[at - 1] != '_');
      const std::size_t e = at + w.size();
      const bool ends = e >= text.size() || (std::isalnum(static_cast<unsigned char>(text[e])) == 0 && text[e] != '_');
      if (starts && ends) return true;
    }
    return false;
  };
  return std::any_of(calls.begin(), calls.end(), [&](const FileCall& c) {
    if (c.cell < write.cell || (c.cell == write.cell && c.at < write.pos.end_byte)) return false;
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return word_at(c.call, w); });
  });
}

// Whether the write of `chain` runs in a streaming foreachBatch callback: in a lambda given to
// foreachBatch on its line, or in a function streaming calls back (`batch_functions`).
bool in_foreach_batch(const pyspark::SourceModel& m, const pyspark::Chain& chain,
                      const std::set<std::string, std::less<>>& batch_functions) {
  std::string_view text = m.cell(chain.cell).text;
  const std::size_t at = std::min<std::size_t>(chain.pos.start_byte, text.size());
  const std::size_t line = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  const std::size_t begin = line == std::string_view::npos ? 0 : line + 1;
  const std::size_t end = std::min(text.find('\n', at), text.size());
  if (text.substr(begin, end - begin).find("foreachBatch(") != std::string_view::npos) return true;
  return !chain.function.empty() && batch_functions.count(std::string_view(chain.function)) != 0;
}

}  // namespace

void check_single_file_write(SourceContext& ctx) {
  std::set<std::pair<int, std::uint32_t>> reported;  // one finding per coalesce, however many pipelines reach it
  std::optional<bool> handles_files;
  std::optional<std::set<std::string, std::less<>>> batch_functions;
  std::optional<std::vector<FileCall>> file_calls;  // found at the first coalesce(1) before a write
  for_each_write(ctx.model(), [&](const std::vector<pyspark::Step>& pipeline, std::size_t write,
                                  const pyspark::Step& step) {
    const pyspark::Step* prev = &step;
    const pyspark::Link& p = *prev->link;
    if ((p.name != "coalesce" && p.name != "repartition") || p.args.size() != 1 || !p.args[0].keyword.empty()) return;
    // `coalesce(num_partitions)` of a parameter whose default is 1 (`num_partitions=1`), where a
    // call in the file leaves it so or the file never calls the def: one file by default.
    std::string_view by_default;
    if (p.args[0].value.int_value() != 1) {
      const pyspark::Expr& n = p.args[0].value;
      const pyspark::FunctionInfo* fn =
          prev->chain->function.empty() ? nullptr : ctx.model().function(prev->chain->function);
      if (n.kind() != "identifier" || fn == nullptr) return;
      auto d = fn->int_defaults.find(n.text());
      if (d == fn->int_defaults.end() || d->second != 1 ||
          pyspark::every_call_passes(ctx.model(), prev->chain->function.view(), n.text()))
        return;
      by_default = n.text();
    }
    // Driver-built data, a literal range or a limit(n) is small: one file of it is one small task.
    auto rows = pyspark::rows_before(ctx.model(), pipeline, static_cast<std::size_t>(prev - pipeline.data()));
    const pyspark::Volume volume = pyspark::volume_of(rows.rows);
    if (volume == pyspark::Volume::small || in_test_code(ctx.model(), *prev->chain)) return;
    // One row per key (a grouped aggregate, distinct values): a report's worth, written as one
    // file on purpose, as collect-large leaves such results alone.
    if (rows.rows == pyspark::Rows::grouped) return;
    // One file on purpose: the code moves, copies or lists what it wrote (by the written path).
    if (!file_calls) file_calls = file_handling_calls(ctx.model());
    if (handles_written_files(*file_calls, *pipeline[write].chain, write_path_words(ctx.model(), pipeline, write)))
      return;
    if (!reported.insert({prev->chain->cell, p.name_pos.start_byte}).second) return;
    const bool large = volume == pyspark::Volume::large;
    std::string message =
        by_default.empty() ? "`" + std::string(p.name) + "(1)` before a write: one task writes all the data"
                           : "`" + std::string(p.name) + "(" + std::string(by_default) + ")` before a write, with `" +
                                 std::string(by_default) + "` left to its default 1: one task writes all the data";
    if (large)
      message += " of " + rows.why;
    else
      message += " (fine while it is small; the code does not show its size)";
    auto& d = ctx.report(prev->chain->cell, p.name_pos, message);
    // Asked once per file, and only when a fix could be applied.
    bool editable = p.name == "coalesce" && large && by_default.empty();
    if (editable && !handles_files) handles_files = handles_output_files(ctx.model());
    if (editable && !*handles_files && !batch_functions) batch_functions = foreach_batch_functions(ctx.model());
    editable = editable && !*handles_files && !in_foreach_batch(ctx.model(), *prev->chain, *batch_functions);
    Fix& f = ctx.attach_fix(
        d, "Remove `." + std::string(p.name) + "(1)`", editable ? Applicability::unsafe : Applicability::display_only,
        by_default.empty()
            ? "Write in parallel (drop `." + std::string(p.name) +
                  "(1)`); if one file is required, merge the files after the job."
            : "Default `" + std::string(by_default) + "` to None and partition only when a caller asks for a number.");
    if (editable) SourceContext::add_edit(f, prev->chain->cell, p.link_pos.start_byte, p.link_pos.end_byte, "");
  });
}

}  // namespace planlint::rules
