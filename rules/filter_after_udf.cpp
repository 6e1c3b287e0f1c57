// filter-after-udf: a Filter above a Python UDF whose conditions do not need the UDF's result.
#include "lint/plan_context.hpp"
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
    FixAvailability::never,
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

## Fix safety
Display-only: move the `.filter(...)` / `.where(...)` for these conditions before the
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

}  // namespace planlint::rules
