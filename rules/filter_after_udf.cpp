// filter-after-udf: a Filter above a Python UDF whose conditions do not need the UDF's result.
#include <algorithm>

#include "lint/plan_context.hpp"
#include "lint/source_context.hpp"
#include "plan/line_reader.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::AttributeRef;
using plan::OpKind;
using plan::PlanNode;

extern const RuleInfo kFilterAfterUdf{
    "PL002",
    "filter-after-udf",
    "Rows are filtered after a Python UDF ran on them, by conditions that do not need it",
    Severity::warning,
    FixAvailability::sometimes,
    R"md(## What it does
Finds a `Filter` above a `BatchEvalPython` / `ArrowEvalPython` whose condition, or some of its AND-ed
conjuncts, do not use the UDF's output. It names the conjuncts that could run before the UDF.

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
check = F.udf(lambda s: s.startswith("A"), "boolean")
out = df.withColumn("ok", check("name")).filter(F.col("age") > 21)
```
Use instead:
```python
from pyspark.sql import functions as F
check = F.udf(lambda s: s.startswith("A"), "boolean")
out = df.filter(F.col("age") > 21).withColumn("ok", check("name"))
```

## Fix safety
Plans: display-only. PySpark source: moving the `.filter(...)` before the `.withColumn(...)` is
unsafe (offered with `--unsafe-fixes`): a condition on a column the `withColumn` replaces would read
the old values, and a UDF with side effects would run on fewer rows. Otherwise, move the `.filter(...)` / `.where(...)` for these conditions before the
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
    std::vector<AttributeRef> udf_outputs = py->outputs;
    for (auto it = projects.rbegin(); it != projects.rend(); ++it) {
      for (const auto& item : (*it)->as<plan::ProjectInfo>()->list) {
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
    const pyspark::Chain* c = e.chain;
    bool has_links = c != nullptr && !c->links.empty();
    if (!has_links && is_python_udf_call(m, e)) return e.text;  // no alias: nothing downstream names it
    if (!has_links || !c->root_is_call) continue;
    bool udf = m.udf_names.count(c->root) != 0 || m.pandas_udf_names.count(c->root) != 0;
    const pyspark::Link& last = c->links.back();
    if (udf && (last.name == "alias" || last.name == "name") && !last.args.empty() && last.args[0].value.string_value)
      return *last.args[0].value.string_value;
  }
  return {};
}

// Source: .withColumn(name, python_udf(...)) or .select(..., python_udf(...).alias(name)) ...
// .filter(cond) where cond does not use `name`.
void check_filter_after_udf_source(SourceContext& ctx) {
  const auto& m = ctx.model();
  for (const auto& chain : m.chains) {
    if (!chain.is_dataframe) continue;
    auto pipeline = chain.pipeline();
    std::size_t own_start = pipeline.size() - chain.links.size();
    for (std::size_t i = own_start; i < pipeline.size(); ++i) {
      const pyspark::Link& filter = *pipeline[i].link;
      if ((filter.name != "filter" && filter.name != "where") || filter.args.empty()) continue;
      const pyspark::Expr& cond = filter.args[0].value;
      std::vector<std::string> cond_cols = cond.column_names;
      if (cond.string_value) {  // SQL expression string: its words are the columns
        cond_cols.clear();
        std::string word;
        for (char c : *cond.string_value + " ") {
          if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
            word += c;
          else if (!word.empty()) {
            cond_cols.push_back(word);
            word.clear();
          }
        }
      }
      // Walk back over filters to a withColumn or select that calls a Python UDF.
      for (std::size_t k = i; k-- > 0;) {
        const pyspark::Link& prev = *pipeline[k].link;
        if (prev.name != "withColumn" && prev.name != "select" && prev.name != "filter" && prev.name != "where") break;
        std::string col;
        if (prev.name == "withColumn" && prev.args.size() >= 2 && is_python_udf_call(m, prev.args[1].value) &&
            prev.args[0].value.string_value) {
          col = *prev.args[0].value.string_value;
        } else if (prev.name == "select") {
          col = udf_column_of_select(m, prev);
        }
        if (col.empty()) {
          if (prev.name == "select") break;  // a select without a UDF ends the search
          continue;
        }
        if (std::find(cond_cols.begin(), cond_cols.end(), col) != cond_cols.end()) break;
        auto& d = ctx.report(pipeline[i].chain->cell, filter.name_pos,
                             "`" + filter.name + "` runs after the Python UDF column `" + col +
                                 "` is computed, but its condition does not use it: filter first");
        Fix& f = ctx.attach_fix(
            d, "Move the filter before the UDF", Applicability::unsafe,
            "Apply `." + filter.name + "(" + cond.text + ")` before `.withColumn(\"" + col + "\", ...)`.");
        // Moving a filter before a select could reference columns the select drops: only withColumn.
        if (pipeline[k].chain == pipeline[i].chain && prev.name == "withColumn") {
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
