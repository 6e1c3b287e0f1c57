// What a source rule sees: the DataFrame-chain model of one file, the options, and a way to report
// findings and fixes in cell coordinates (the engine maps them to the file the user has).
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "lint/diagnostic.hpp"
#include "lint/options.hpp"
#include "lint/rule.hpp"
#include "pyspark/model.hpp"

namespace planlint::lint {

class SourceContext {
 public:
  // Findings go to a deque: a large file has tens of thousands, and a vector that doubles holds up
  // to three times their size while it grows (and leaves what it outgrew to the allocator).
  SourceContext(const pyspark::SourceModel& model, const LintOptions& options, std::deque<Diagnostic>& out)
      : model_(model), options_(options), out_(out) {}

  [[nodiscard]] const pyspark::SourceModel& model() const { return model_; }
  [[nodiscard]] const LintOptions& options() const { return options_; }
  void set_rule(const RuleInfo* rule) { rule_ = rule; }

  // Locations are in cell coordinates and without the path: the engine maps them and sets it.
  Diagnostic& report(int cell, const pyspark::Pos& pos, std::string message);
  Diagnostic& report(int cell, const pyspark::Place& place, std::string message);
  Fix& attach_fix(Diagnostic& d, std::string title, Applicability applicability, std::string suggestion);
  // A related location in cell coordinates (mapped to the file with the finding).
  void add_related(Diagnostic& d, int cell, const pyspark::Pos& pos, std::string message) const;
  static void add_edit(Fix& fix, int cell, std::uint32_t start_byte, std::uint32_t end_byte, std::string replacement);
  [[nodiscard]] std::string_view cell_text(int cell) const;

 private:
  const pyspark::SourceModel& model_;
  const LintOptions& options_;
  std::deque<Diagnostic>& out_;
  const RuleInfo* rule_ = nullptr;
};

// Helpers shared by source rules.
bool is_row_udf_call(const pyspark::SourceModel& m, const pyspark::Expr& e);
bool is_python_udf_call(const pyspark::SourceModel& m, const pyspark::Expr& e);
std::string quote_names(const std::vector<std::string>& names);

// Column names a call's arguments name ("k", F.col("k"), ["a", "b"]), skipping numbers.
std::vector<std::string> column_args(const pyspark::Link& link);

// DataFrame methods that keep the rows where they are (same partitioning, same keys).
bool keeps_partitioning(std::string_view method);

// Walk back from pipeline[index] over partition-keeping steps; the first other step, or nullptr.
const pyspark::Step* previous_step(const std::vector<pyspark::Step>& pipeline, std::size_t index);

// A character of a Python or SQL identifier.
inline bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Whether SQL text (lower case) reads table `name` (lower case): after FROM or JOIN, or a comma of a
// FROM list; the whole name, not part of a longer one.
bool names_table(std::string_view sql, std::string_view name);

// The table or path, among those the user declares large (`large-tables`: names and globs, case
// insensitive), that the lineage before pipeline[upto] reads (`spark.table(...)`, `spark.read...
// parquet(path)`, `load(path)`, a query's FROM or JOIN, also on the other side of a join or union);
// empty when it reads none of them.
std::string declared_large_read(const std::vector<pyspark::Step>& pipeline, std::size_t upto,
                                const std::vector<std::string>& large);

// Whether one of the chain's own links (not those of the chains it is bound to) passes `pred`: rules
// that act only at such a link ask this before building the chain's pipeline, which every rule
// asking for every chain made one allocation per chain and rule.
template <typename Pred>
bool has_own_link(const pyspark::Chain& chain, Pred&& pred) {
  for (const auto& l : chain.links)
    if (pred(l)) return true;
  return false;
}

// Every `.write` / `.writeTo` of the file with the step that feeds it (previous_step):
// f(pipeline, index of the write, that step). single-file-write and small-files-write read these.
// Also AWS Glue's writes of a DynamicFrame (`glueContext.write_dynamic_frame.from_options(frame=dyf,
// ...)`, `from_catalog`, `from_jdbc_conf`): the pipeline is then the frame's (or, for a frame made
// with `DynamicFrame.fromDF(df, ...)`, the DataFrame's), followed by the write's links.
template <typename F>
void for_each_write(const pyspark::SourceModel& m, F&& f) {
  auto is_write = [](const pyspark::Link& w) {
    return !w.is_call && (w.name == "write" || w.name == "writeTo" || w.name == "write_dynamic_frame");
  };
  for (const auto& chain : m.chains) {
    if (!has_own_link(chain, is_write)) continue;
    auto pipeline = chain.pipeline();
    for (std::size_t i = pipeline.size() - chain.links.size(); i < pipeline.size(); ++i) {
      const pyspark::Link& w = *pipeline[i].link;
      if (!is_write(w)) continue;
      if (w.name == "write_dynamic_frame") {
        // The frame written: the `frame=` argument of the call after it.
        if (i + 1 >= pipeline.size() || !pipeline[i + 1].link->is_call) continue;
        const pyspark::Arg* frame = pipeline[i + 1].link->arg(0, "frame");
        if (frame == nullptr || frame->value.chain() == nullptr) continue;
        // `DynamicFrame.fromDF(df.repartition(1), glueContext, "name")`: the frame holds that
        // DataFrame's rows, in its partitions.
        const pyspark::Chain* held = frame->value.chain();
        for (const auto& s : held->pipeline())
          if (s.link->is_call && s.link->name == "fromDF" && !s.link->args.empty() && s.link->args[0].keyword.empty() &&
              s.link->args[0].value.chain() != nullptr)
            held = s.link->args[0].value.chain();
        auto glue = held->pipeline();
        const std::size_t at = glue.size();
        for (std::size_t k = i; k < pipeline.size(); ++k) glue.push_back(pipeline[k]);
        if (const pyspark::Step* prev = previous_step(glue, at)) f(glue, at, *prev);
        continue;
      }
      if (const pyspark::Step* prev = previous_step(pipeline, i)) f(pipeline, i, *prev);
    }
  }
}

// The name under which pyspark.sql.functions.<fn> can be called here ("F.broadcast", "broadcast"),
// or "" when the file must import it first.
std::string functions_spelling(const pyspark::SourceModel& m, std::string_view fn);

// Whether the value `chain.root` holds at `chain` grows over the turns of the chain's loop: it was
// bound before the loop (or in an outer one), or in this turn from its own previous value. A name read
// afresh each turn (`df = spark.read...` at the top of the body, `for df in dfs:`) does not grow.
bool carried_across_turns(const pyspark::SourceModel& m, const pyspark::Chain& chain);

// Whether the function around `c` hands `name` to its caller after c: a `return` line that names it
// (`return name`, `return name, n`, `return gpd.GeoDataFrame(name, ...)`).
bool returned_later(const pyspark::SourceModel& m, const pyspark::Chain& c, std::string_view name);

using pyspark::plans_shuffle;

// Whether the chain is test code: in a function named test*, or in a file that pytest collects
// (test_*.py, *_test.py, conftest.py) or under a tests/ or test/ folder. Tests run on fixtures they
// build: the volume rules say nothing there.
bool in_test_code(const pyspark::SourceModel& m, const pyspark::Chain& chain);
// The same for code in the function named `function` ("" for module level) of the file.
bool in_test_code(const pyspark::SourceModel& m, std::string_view function);

// Whether the file is a notebook (Jupyter, Databricks source): its cells are run by a person who sees
// what they return, so a result's size is in front of its author, as it never is in a job.
bool is_notebook(const pyspark::SourceModel& m);

// Where a new import line goes in a file's first cell: after a shebang, encoding and other leading
// comments, the module docstring and `from __future__` imports.
std::uint32_t import_insertion_point(std::string_view text);

}  // namespace planlint::lint
