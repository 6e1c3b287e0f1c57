// filter-after-udf: a Filter above a Python UDF whose conditions do not need the UDF's result.
#include <algorithm>
#include <cctype>
#include <set>

#include "lint/plan_context.hpp"
#include "lint/source_context.hpp"
#include "plan/line_reader.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::AttributeRef;
using plan::OpKind;
using plan::PlanNode;

extern const RuleInfo kFilterAfterUdf{
    "SPK202",
    "filter-after-udf",
    "Rows are filtered after a Python UDF ran on them, by conditions that do not need it",
    Severity::warning,
    FixAvailability::sometimes,
    Impact::high,
    R"md(## What it does
Finds a `Filter` above a `BatchEvalPython` / `ArrowEvalPython` whose condition, or some of its AND-ed
conjuncts, do not use the UDF's output. It names the conjuncts that could run before the UDF.

In PySpark source: a `.filter(...)` / `.where(...)` after the `.withColumn(...)` or `.select(...)`
that calls a Python UDF marked `asNondeterministic()` (also through names and across cells), when its
condition does not read the UDF's column, directly or through columns derived from it (`withColumn("s", explode("udf_out"))`
then `.filter(length("s") > 255)` depends on the UDF). A condition held in a variable is not judged.
A deterministic UDF (the default) is not reported in source: Spark's optimizer moves deterministic
filters below the projection and below `BatchEvalPython` / `ArrowEvalPython` by itself, so the order
written does not cost anything; it cannot move them below a nondeterministic one. A plan shows what
the optimizer did, so there every such filter is reported.

## Why is this bad?
A Python UDF is the most expensive thing in most plans: every row is serialised, sent to a Python
worker and back. Rows that a cheap condition would have dropped still pay that price when the filter
runs after the UDF.

## Example
```plan
== Physical Plan ==
*(2) Filter ((age#2 > 21) AND (pythonUDF0#9 = OK))
+- BatchEvalPython [check(name#1)#8], [pythonUDF0#9]
   +- *(1) LocalTableScan [name#1, age#2]
```
Use instead (filter first, then run the UDF on what is left):
```plan
== Physical Plan ==
*(2) Filter (pythonUDF0#9 = OK)
+- BatchEvalPython [check(name#1)#8], [pythonUDF0#9]
   +- *(1) Filter (age#2 > 21)
      +- *(1) LocalTableScan [name#1, age#2]
```

## Example (PySpark)
```python
from pyspark.sql import functions as F
check = F.udf(lambda s: s.startswith("A"), "boolean").asNondeterministic()
out = df.withColumn("ok", check("name")).filter(F.col("age") > 21)
```
Use instead:
```python
from pyspark.sql import functions as F
check = F.udf(lambda s: s.startswith("A"), "boolean").asNondeterministic()
out = df.filter(F.col("age") > 21).withColumn("ok", check("name"))
```

## Fix safety
Plans: display-only. PySpark source: moving the `.filter(...)` before the `.withColumn(...)` is
unsafe (offered with `--unsafe-fixes`): a condition on a column the `withColumn` replaces would read
the old values, and a UDF with side effects would run on fewer rows. The fix is only offered within
one chain, above a `withColumn`, and never moves a filter above the `withColumn` that defines a
column it reads (then the finding is display-only: move those `withColumn`s too). Otherwise, move the `.filter(...)` / `.where(...)` for these conditions before the
`.withColumn(...)` / `.select(...)` that calls the UDF.

## Options
None.
)md"};

namespace {

bool derived(const AttributeRef& r, const std::vector<AttributeRef>& set) {
  for (const auto& s : set)
    if (r.same_attribute(s)) return true;
  return false;
}

}  // namespace

void check_filter_after_udf(PlanContext& ctx) {
  for (const PlanNode* f : ctx.physical_nodes()) {
    const auto* fi = f->as<plan::FilterInfo>();
    if (fi == nullptr || f->children.size() != 1) continue;
    // Walk down to the Python evaluator, collecting names that Projects give to the UDF's output.
    std::vector<const PlanNode*> projects;
    const PlanNode* n = descend(f->children.front(), [&](const PlanNode& x) {
      if (x.kind == OpKind::project) projects.push_back(&x);
      return is_wrapper(x) || x.kind == OpKind::project;
    });
    const auto* py = n == nullptr ? nullptr : n->as<plan::PythonEvalInfo>();
    if (py == nullptr) continue;
    // Spark 2 lists the child's columns with the results (`[name#1, age#2, pythonUDF0#9]`): only
    // the pythonUDFn columns are the UDF's output.
    std::vector<AttributeRef> udf_outputs;
    for (const auto& o : py->outputs)
      if (o.name.rfind("pythonUDF", 0) == 0) udf_outputs.push_back(o);
    if (udf_outputs.empty()) udf_outputs = py->outputs;
    for (auto it = projects.rbegin(); it != projects.rend(); ++it) {
      for (const auto& item : (*it)->as<plan::ProjectInfo>()->list()) {
        auto refs = plan::scan_attribute_refs(item);
        bool uses = false;
        for (const auto& r : refs) uses = uses || derived(r, udf_outputs);
        if (uses) udf_outputs.insert(udf_outputs.end(), refs.begin(), refs.end());
      }
    }
    std::vector<std::string> movable;
    for (const auto& c : conjuncts(fi->condition)) {
      auto refs = plan::scan_attribute_refs(c);
      bool uses_udf = false;
      for (const auto& r : refs) uses_udf = uses_udf || derived(r, udf_outputs);
      if (!refs.empty() && !uses_udf) movable.push_back(c);
    }
    if (movable.empty()) continue;
    std::string list;
    for (const auto& m : movable) list += (list.empty() ? "`" : ", `") + m + "`";
    std::string udfs;
    for (const auto& u : py->udf_names) udfs += (udfs.empty() ? "" : ", ") + u;
    ctx.report(*f,
               "filter runs after the Python UDF " + udfs + " although " + list +
                   (movable.size() == 1 ? " does" : " do") + " not use its result; those rows could be dropped first",
               "Filter before the UDF",
               "Apply `.filter(\"" + without_expr_ids(movable.front()) +
                   "\")` (and the other listed conditions) "
                   "before the "
                   "`.withColumn(...)`/`.select(...)` that calls " +
                   udfs +
                   "; keep only the conditions on the UDF's "
                   "result after it.");
  }
}

// The column a select computes with a Python UDF: its alias, or the UDF's default "name(args)".
std::string udf_column_of_select(const pyspark::SourceModel& m, const pyspark::Link& select) {
  for (const auto& a : select.args) {
    const pyspark::Expr& e = a.value;
    const pyspark::Chain* c = e.chain();
    bool has_links = c != nullptr && !c->links.empty();
    if (!has_links && is_python_udf_call(m, e)) return std::string(e.text());  // no alias: nothing downstream names it
    if (!has_links || !c->root_is_call) continue;
    bool udf = m.udf_names.count(c->root) != 0 || m.pandas_udf_names.count(c->root) != 0;
    const pyspark::Link& last = c->links.back();
    if (udf && (last.name == "alias" || last.name == "name") && !last.args.empty() && last.args[0].value.string_value())
      return std::string(*last.args[0].value.string_value());
  }
  return {};
}

// Whether the UDF that `call` calls is marked `asNondeterministic()`: where it is made
// (`f = udf(g).asNondeterministic()`, `f = f.asNondeterministic()`) or in the call itself. Spark
// pushes deterministic filters below a deterministic UDF (PushPredicateThroughNonJoin moves them
// through the projection and through BatchEvalPython / ArrowEvalPython), but not below a
// nondeterministic one: only then does the order written in the source run the UDF on every row.
bool nondeterministic_udf(const pyspark::SourceModel& m, const pyspark::Expr& call) {
  const std::string_view text = call.text();
  if (text.find("asNondeterministic") != std::string_view::npos) return true;  // udf(f).asNondeterministic()(c)
  const std::string_view fn = text.substr(0, text.find('('));
  return !fn.empty() && (m.nondeterministic_udfs.count(fn) != 0 || m.nondeterministic_udfs.count(call.callee()) != 0);
}

// Source: .withColumn(name, python_udf(...)) or .select(..., python_udf(...).alias(name)) ...
// .filter(cond) where cond does not use `name`.
void check_filter_after_udf_source(SourceContext& ctx) {
  const auto& m = ctx.model();
  auto is_filter = [](const pyspark::Link& l) { return (l.name == "filter" || l.name == "where") && !l.args.empty(); };
  // Only a nondeterministic UDF keeps filters above it: a file that marks none has nothing to report.
  if (m.nondeterministic_udfs.empty() &&
      std::none_of(m.file->cells.begin(), m.file->cells.end(),
                   [](const pyspark::Cell& c) { return c.text.find("asNondeterministic") != std::string::npos; }))
    return;
  for (const auto& chain : m.chains) {
    if (!chain.is_dataframe) continue;
    if (!has_own_link(chain, is_filter)) continue;
    auto pipeline = chain.pipeline();
    std::size_t own_start = pipeline.size() - chain.links.size();
    for (std::size_t i = own_start; i < pipeline.size(); ++i) {
      const pyspark::Link& filter = *pipeline[i].link;
      if (!is_filter(filter)) continue;
      const pyspark::Expr& cond = filter.args[0].value;
      std::vector<std::string> cond_cols(cond.column_names().begin(), cond.column_names().end());
      if (cond.string_value()) {  // SQL expression string: its words are the columns
        cond_cols.clear();
        std::string word;
        for (char c : std::string(*cond.string_value()) + " ") {
          if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
            word += c;
          else if (!word.empty()) {
            cond_cols.push_back(word);
            word.clear();
          }
        }
      }
      // Walk back over filters and withColumns to a withColumn or select that calls a Python UDF.
      // `needed` is what the condition reads, through the columns it derives from: a filter on
      // `s` after `withColumn("s", explode("udf_out"))` depends on the UDF's `udf_out`. A filter that
      // reads a column defined on the way cannot be moved above its definition (`blocked`).
      if (cond_cols.empty()) continue;  // `.filter(mask)`: what it reads is not known
      std::set<std::string> needed(cond_cols.begin(), cond_cols.end());
      bool blocked = false;
      for (std::size_t k = i; k-- > 0;) {
        const pyspark::Link& prev = *pipeline[k].link;
        if (prev.name == "filter" || prev.name == "where") continue;
        if (prev.name != "withColumn" && prev.name != "select") break;
        std::string col;
        if (prev.name == "withColumn") {
          if (prev.args.size() < 2 || !prev.args[0].value.string_value()) break;  // a computed name: unknown
          col = *prev.args[0].value.string_value();
          if (!is_python_udf_call(m, prev.args[1].value) || !nondeterministic_udf(m, prev.args[1].value)) {
            if (needed.count(col) != 0) {
              blocked = true;
              needed.insert(prev.args[1].value.column_names().begin(), prev.args[1].value.column_names().end());
            }
            continue;
          }
        } else {
          col = udf_column_of_select(m, prev);
          if (col.empty()) break;  // a select without a UDF ends the search
          // A deterministic UDF: Spark moves the filter below it by itself.
          if (std::none_of(prev.args.begin(), prev.args.end(),
                           [&](const pyspark::Arg& a) { return nondeterministic_udf(m, a.value); }))
            break;
        }
        if (needed.count(col) != 0) break;  // the condition needs the UDF's result
        auto& d = ctx.report(pipeline[i].chain->cell, filter.name_pos,
                             "`" + std::string(filter.name) + "` runs after the Python UDF column `" + col +
                                 "` is computed, but its condition does not use it: filter first");
        Fix& f = ctx.attach_fix(d, "Move the filter before the UDF", Applicability::unsafe,
                                "Apply `." + std::string(filter.name) + "(" + std::string(cond.text()) +
                                    ")` before `.withColumn(\"" + col + "\", ...)`" +
                                    (blocked ? ", together with the `withColumn`s it reads" : "") + ".");
        // Only within one chain, only above a withColumn (a select could drop the columns it reads),
        // and never above the statement that defines a column it reads.
        if (!blocked && pipeline[k].chain == pipeline[i].chain && prev.name == "withColumn") {
          std::string_view text = ctx.cell_text(pipeline[i].chain->cell);
          std::string moved(
              text.substr(filter.link_pos.start_byte, filter.link_pos.end_byte - filter.link_pos.start_byte));
          SourceContext::add_edit(f, pipeline[i].chain->cell, filter.link_pos.start_byte, filter.link_pos.end_byte, "");
          SourceContext::add_edit(f, pipeline[i].chain->cell, prev.link_pos.start_byte, prev.link_pos.start_byte,
                                  moved);
        }
        break;
      }
    }
  }
}

}  // namespace planlint::rules
