// cartesian-join: CartesianProduct, or a BroadcastNestedLoopJoin without an equality condition.
#include "lint/plan_context.hpp"
#include "lint/source_context.hpp"
#include "plan/line_reader.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::PlanNode;

extern const RuleInfo kCartesianJoin{"PL007",
                                     "cartesian-join",
                                     "Every row of one side is paired with every row of the other",
                                     Severity::warning,
                                     FixAvailability::never,
                                     R"md(## What it does
Finds `CartesianProduct`, and `BroadcastNestedLoopJoin` whose condition has no equality between the
two sides (no condition at all, or only ranges, `OR`s and functions). A side that is a global
aggregate (one row, like `SELECT count(*) ...`) is not reported.

## Why is this bad?
The join compares `left rows × right rows` pairs: a million rows against a million rows is 10^12
comparisons. Usually a join key was forgotten, a `crossJoin` was meant for a tiny table, or a range
condition (`a.ts BETWEEN b.start AND b.end`) could be bucketed into an equi-join.

## Example
```plan
== Physical Plan ==
CartesianProduct
:- *(1) LocalTableScan [a#1]
+- *(2) LocalTableScan [b#2]
```
Use instead (join on a key):
```plan
== Physical Plan ==
*(1) BroadcastHashJoin [a#1], [b#2], Inner, BuildRight, false
:- *(1) LocalTableScan [a#1]
+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, false]),false), [plan_id=9]
   +- LocalTableScan [b#2]
```

## Example (PySpark)
```python
pairs = left.crossJoin(right)
```
Use instead:
```python
pairs = left.join(right, "key")
```

## Fix safety
Display-only in plans and source: add the missing equality to the join condition (`df.join(other, "key")`), or bucket a
range condition into an equi-join key first.

## Options
None.
)md"};

namespace {

// An equality between two attributes somewhere among the AND-ed conjuncts.
bool has_equi_condition(const std::string& condition) {
  for (const auto& c : conjuncts(condition)) {
    auto eq = c.find(" = ");
    if (eq == std::string::npos || c.find(" OR ") != std::string::npos || c.find(" || ") != std::string::npos) continue;
    if (!plan::scan_attribute_refs(c.substr(0, eq)).empty() && !plan::scan_attribute_refs(c.substr(eq + 3)).empty())
      return true;
  }
  return false;
}

// A global aggregate (no grouping keys) produces one row: pairing with it is cheap and common
// (`SELECT ... FROM (SELECT count(*) ...) a, (SELECT count(*) ...) b`).
bool is_single_row(const PlanNode* side) {
  for (const PlanNode* n = side; n != nullptr; n = n->children.size() == 1 ? n->children.front() : nullptr) {
    if (n->stats.row_count == 1) return true;
    if (const auto* a = n->as<plan::AggregateInfo>()) return !a->grouped;
    if (!is_pass_through(*n) && n->kind != plan::OpKind::broadcast_exchange &&
        n->kind != plan::OpKind::shuffle_exchange)
      return false;
  }
  return false;
}

}  // namespace

void check_cartesian_join(PlanContext& ctx) {
  for (const PlanNode* n : ctx.physical_nodes()) {
    const auto* j = n->as<plan::JoinInfo>();
    if (j == nullptr) continue;
    if (n->children.size() == 2 && (is_single_row(n->children[0]) || is_single_row(n->children[1]))) continue;
    if (j->strategy == "CartesianProduct") {
      ctx.report(*n, "Cartesian product: the output is every pair of left and right rows", "Join on a key",
                 "Add the join key: `left.join(right, on=\"key\")`; use `crossJoin` only with a tiny side.");
    } else if (j->strategy == "BroadcastNestedLoopJoin" && !has_equi_condition(j->condition)) {
      ctx.report(*n,
                 j->condition.empty()
                     ? "nested-loop join without a condition: every row meets every row of the broadcast side"
                     : "nested-loop join without an equality (" + j->condition +
                           "): every row is compared with every row of the broadcast side",
                 "Join on a key",
                 "Add an equality between the two sides to the join condition so Spark can hash-join, e.g. "
                 "`left.join(right, (left.k == right.k) & (...))`.");
    }
  }
}

// Source: df.crossJoin(other) and df.join(other, how="cross").
void check_cartesian_join_source(SourceContext& ctx) {
  for (const auto& chain : ctx.model().chains) {
    for (const auto& l : chain.links) {
      bool cross = l.is_call && l.name == "crossJoin";
      if (l.is_call && l.name == "join") {
        const pyspark::Arg* how = l.arg(2, "how");
        cross = how != nullptr && how->value.string_value == "cross";
      }
      if (!cross) continue;
      auto& d = ctx.report(chain.cell, l.name_pos, "cross join: every row is paired with every row of the other side");
      ctx.attach_fix(d, "Join on a key", Applicability::display_only,
                     "Join on a key (`left.join(right, \"key\")`); keep crossJoin for a side of a few rows.");
    }
  }
}

}  // namespace planlint::rules
