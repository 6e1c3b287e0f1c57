// join-key-cast: a join key wrapped in cast(...) on one side only.
#include "lint/plan_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::PlanNode;

extern const RuleInfo kJoinKeyCast{"SPK105",
                                   "join-key-cast",
                                   "Join keys have different types and one side is cast",
                                   Severity::warning,
                                   FixAvailability::never,
                                   Impact::medium,
                                   R"md(## What it does
Finds joins where a key is wrapped in `cast(...)` on one side and not on the other: the two columns
have different types (say `int` and `bigint`, or `string` and `int`), so Spark converts one side row
by row before hashing or sorting. A warning when a scan's `ReadSchema` shows the cast column is a
`string` (bad values become `null` keys and drop rows), on a side that is not a broadcast join's
small build side nor an aggregate's output (a row per group); otherwise an `info`: a numeric cast costs little
per row, and the plan does not always show the type. A cached plan printed again under each scan of
the cache is looked at once.

## Why is this bad?
The cast runs for every row, the casted key hides the column from partition pruning, bucketing and
statistics, and a cast from string can turn bad values into `null` keys that silently drop rows.

## Example
```plan
== Physical Plan ==
*(3) SortMergeJoin [cast(id#1 as bigint)], [id#7L], Inner
:- *(1) Sort [cast(id#1 as bigint) ASC NULLS FIRST], false, 0
:  +- Exchange hashpartitioning(cast(id#1 as bigint), 200), ENSURE_REQUIREMENTS, [plan_id=10]
:     +- LocalTableScan [id#1]
+- *(2) Sort [id#7L ASC NULLS FIRST], false, 0
   +- Exchange hashpartitioning(id#7L, 200), ENSURE_REQUIREMENTS, [plan_id=11]
      +- LocalTableScan [id#7L]
```
Use instead (both keys `bigint` in the schema):
```plan
== Physical Plan ==
*(3) SortMergeJoin [id#1L], [id#7L], Inner
:- *(1) Sort [id#1L ASC NULLS FIRST], false, 0
:  +- Exchange hashpartitioning(id#1L, 200), ENSURE_REQUIREMENTS, [plan_id=10]
:     +- LocalTableScan [id#1L]
+- *(2) Sort [id#7L ASC NULLS FIRST], false, 0
   +- Exchange hashpartitioning(id#7L, 200), ENSURE_REQUIREMENTS, [plan_id=11]
      +- LocalTableScan [id#7L]
```

## Fix safety
Display-only: give the key columns the same type where the data is written or read (schema, or one
`withColumn("id", col("id").cast("bigint"))` upstream of the join).

## Options
None.
)md"};

namespace {
bool is_cast(const std::string& key) { return key.rfind("cast(", 0) == 0; }

// The column a key casts: "cast(id#1 as bigint)" -> "id".
std::string cast_column(const std::string& key) {
  std::size_t from = 5, end = key.find_first_of("#) ", from);
  return end == std::string::npos ? std::string() : key.substr(from, end - from);
}

// The type the scans' ReadSchema give `column` ("struct<id:string,...>"), or "" when no scan shows it.
std::string read_type(const PlanContext& ctx, const std::string& column) {
  if (column.empty()) return {};
  for (const PlanNode* n : ctx.physical_nodes()) {
    const auto* s = n->as<plan::ScanInfo>();
    if (s == nullptr) continue;
    const std::string& r = s->read_schema;
    for (std::size_t at = r.find(column + ":"); at != std::string::npos; at = r.find(column + ":", at + 1)) {
      if (at > 0 && r[at - 1] != '<' && r[at - 1] != ',') continue;
      const std::size_t from = at + column.size() + 1;
      return r.substr(from, r.find_first_of(",>", from) - from);
    }
  }
  return {};
}
// Whether the rows of a join's side come straight from an aggregate (as many as its groups): what
// lies between moves or reshapes rows, it does not multiply them (projections, filters, exchanges,
// query stages, engine wrappers of one child).
bool aggregated(const PlanNode* side) {
  for (int depth = 0; side != nullptr && depth < 64; ++depth) {
    if (side->kind == plan::OpKind::aggregate) return true;
    if (side->kind == plan::OpKind::join || side->kind == plan::OpKind::file_scan ||
        side->kind == plan::OpKind::local_table_scan || side->kind == plan::OpKind::rdd_scan ||
        side->kind == plan::OpKind::range || side->children.size() != 1)
      return false;
    side = side->children.front();
  }
  return false;
}
}  // namespace

void check_join_key_cast(PlanContext& ctx) {
  for (const PlanNode* n : ctx.physical_nodes()) {
    const auto* j = n->as<plan::JoinInfo>();
    if (j == nullptr || j->left_keys.size() != j->right_keys.size()) continue;
    std::string pairs;
    bool from_string = false, on_small_side = false;
    for (std::size_t i = 0; i < j->left_keys.size(); ++i) {
      if (is_cast(j->left_keys[i]) == is_cast(j->right_keys[i])) continue;
      pairs += (pairs.empty() ? "`" : ", `") + j->left_keys[i] + " = " + j->right_keys[i] + "`";
      const bool left = is_cast(j->left_keys[i]);
      const std::string& cast = left ? j->left_keys[i] : j->right_keys[i];
      // The build side of a broadcast join is the small one, and an aggregate's output is a row per
      // group: a cast there costs little.
      const PlanNode* side = n->children.size() == 2 ? n->children[left ? 0 : 1] : nullptr;
      const bool small = j->build_side == (left ? "BuildLeft" : "BuildRight") || aggregated(side);
      on_small_side = on_small_side || small;
      from_string = from_string || (!small && read_type(ctx, cast_column(cast)) == "string");
    }
    if (pairs.empty()) continue;
    auto& d = ctx.report(*n, "join key cast on one side only (" + pairs + "): the key columns have different types",
                         "Align the key types",
                         "Store or read both key columns with the same type, or cast once upstream: "
                         "`df = df.withColumn(\"key\", F.col(\"key\").cast(\"bigint\"))`.");
    // A cast from a string can turn values into null keys that drop rows: a warning when the scan's
    // schema shows one. A numeric cast costs little per row; unknown types are not shown.
    if (!from_string) {
      d.severity = Severity::info;
      d.message += on_small_side ? " (on the small side: the broadcast build side or an aggregate's rows, where a "
                                   "cast costs little)"
                                 : " (the plan does not show a cast from a string)";
    }
  }
}

}  // namespace planlint::rules
