// cartesian-join: CartesianProduct, or a BroadcastNestedLoopJoin without an equality condition.
#include <optional>

#include "lint/plan_context.hpp"
#include "lint/source_context.hpp"
#include "plan/line_reader.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::PlanNode;

extern const RuleInfo kCartesianJoin{"SPK104",
                                     "cartesian-join",
                                     "Every row of one side is paired with every row of the other",
                                     Severity::warning,
                                     FixAvailability::never,
                                     Impact::high,
                                     R"md(## What it does
Finds `CartesianProduct`, and `BroadcastNestedLoopJoin` whose condition has no equality between the
two sides (no condition at all, or only ranges, `OR`s and functions). A side that is a global
aggregate (one row, like `SELECT count(*) ...`) is not reported, nor a side the plan counts at 100
rows or fewer (a small `Range`, statistics): the product is then the other side a few times over.
A `BroadcastNestedLoopJoin` is a warning only where the plan counts both sides' rows (cost mode,
AQE statistics): Spark broadcast its build side because it fit under the broadcast threshold, so
without counts how many pairs it makes is not shown, and it is an `info`.
Rows held by the driver (a `LocalTableScan`: literal rows, a local collection) are small by
construction: both sides so is not reported, one side so is an `info`, as are two grouped aggregates
(a row per group: the plan does not count the groups).

In PySpark source: `crossJoin`, `join(how="cross")` without a key, `df.join(other)` without a
condition, a join condition with no column equality between the sides (only `<`/`>=` ranges,
`startswith`, `array_contains`, `isin`, an `|` of equalities, `~(a == b)`, a comparison with a
literal, `F.lit(True)`), and `rdd.cartesian(other)`. A condition Spark can hash on (`a.k == b.k`
AND-ed with anything, `eqNullSafe`, key names) is fine; a condition held in a variable is not
judged. Not reported when both sides are tiny by construction (literal rows, `spark.range(small)`,
`limit(n)`) or one side is a single row (a global aggregate, a query without FROM, also behind a view
a `%sql` cell creates: `CREATE TEMP VIEW v AS SELECT current_date() AS d`); RDD `join` is a key join, and pandas'
or polars' `join` (`left_on=`, `right_on=`, `lsuffix=`, `suffix=`) is not Spark. When only one side is tiny by construction it is an `info`: each row of the other
side is repeated that many times, which is often the point (a row per scenario). A warning needs
both sides to show volume in the source (reads of tables or files that nothing aggregates, limits or
filters to a key); where one side's size is not in sight (a parameter, distinct values, a lookup) it
is an `info`, and so is any of them in a file whose session runs on a local master
(`master("local[*]")`: data one machine holds).

## Why is this bad?
The join compares `left rows × right rows` pairs: a million rows against a million rows is 10^12
comparisons. Usually a join key was forgotten, a `crossJoin` was meant for a tiny table, or a range
condition (`a.ts BETWEEN b.start AND b.end`) could be bucketed into an equi-join.

## Example
```plan
== Physical Plan ==
CartesianProduct
:- *(1) ColumnarToRow
:  +- FileScan parquet [a#1] Batched: true, Format: Parquet, Location: InMemoryFileIndex(1 paths)[s3://b/left], ReadSchema: struct<a:int>
+- *(2) ColumnarToRow
   +- FileScan parquet [b#2] Batched: true, Format: Parquet, Location: InMemoryFileIndex(1 paths)[s3://b/right], ReadSchema: struct<b:int>
```
Use instead (join on a key):
```plan
== Physical Plan ==
SortMergeJoin [a#1], [b#2], Inner
:- *(2) Sort [a#1 ASC NULLS FIRST], false, 0
:  +- Exchange hashpartitioning(a#1, 200), ENSURE_REQUIREMENTS, [plan_id=9]
:     +- *(1) ColumnarToRow
:        +- FileScan parquet [a#1] Batched: true, Format: Parquet, Location: InMemoryFileIndex(1 paths)[s3://b/left], ReadSchema: struct<a:int>
+- *(4) Sort [b#2 ASC NULLS FIRST], false, 0
   +- Exchange hashpartitioning(b#2, 200), ENSURE_REQUIREMENTS, [plan_id=10]
      +- *(3) ColumnarToRow
         +- FileScan parquet [b#2] Batched: true, Format: Parquet, Location: InMemoryFileIndex(1 paths)[s3://b/right], ReadSchema: struct<b:int>
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

// An equality between two attributes somewhere among the AND-ed conjuncts: `a = b` or `a <=> b` at
// the top of a conjunct, not under NOT, OR or a function (`NOT (a = b)`, `startswith(...)`).
bool has_equi_condition(const std::string& condition) {
  for (const auto& conjunct : conjuncts(condition)) {
    std::string_view c = strip_wrapping_parens(conjunct);
    if (c.rfind("NOT ", 0) == 0 || c.rfind("NOT(", 0) == 0 || c.rfind('!', 0) == 0) continue;
    int depth = 0;
    for (std::size_t i = 0; i + 2 < c.size(); ++i) {
      depth += c[i] == '(' ? 1 : c[i] == ')' ? -1 : 0;
      if (depth != 0) continue;
      if (c.compare(i, 4, " OR ") == 0 || c.compare(i, 4, " || ") == 0) break;
      std::size_t len = c.compare(i, 5, " <=> ") == 0 ? 5 : c.compare(i, 3, " = ") == 0 ? 3 : 0;
      if (len == 0) continue;
      if (!plan::scan_attribute_refs(c.substr(0, i)).empty() && !plan::scan_attribute_refs(c.substr(i + len)).empty())
        return true;
    }
  }
  return false;
}

// Walks a join side down through the operators that keep its rows (pass-through ones, exchanges):
// `decide` answers at a node (a value) or lets the walk go on (nullopt); false when nothing answers.
template <class F>
bool along_side(const PlanNode* side, F decide) {
  for (const PlanNode* n = side; n != nullptr; n = n->children.size() == 1 ? n->children.front() : nullptr) {
    if (const std::optional<bool> answer = decide(*n)) return *answer;
    if (!is_pass_through(*n) && n->kind != plan::OpKind::broadcast_exchange &&
        n->kind != plan::OpKind::shuffle_exchange)
      return false;
  }
  return false;
}

// A global aggregate (no grouping keys) produces one row: pairing with it is cheap and common
// (`SELECT ... FROM (SELECT count(*) ...) a, (SELECT count(*) ...) b`).
bool is_single_row(const PlanNode* side) {
  return along_side(side, [](const PlanNode& n) -> std::optional<bool> {
    if (n.stats.row_count == 1) return true;
    if (const auto* a = n.as<plan::AggregateInfo>()) return !a->grouped;
    return std::nullopt;
  });
}

// Whether a side is a grouped aggregate (a row per group).
bool grouped_side(const PlanNode* side) {
  return along_side(side, [](const PlanNode& n) -> std::optional<bool> {
    if (const auto* a = n.as<plan::AggregateInfo>()) return a->grouped;
    return std::nullopt;
  });
}

// Whether the plan counts a side at a handful of rows (a small Range, statistics): the product is
// then a copy of the other side a few times over.
bool few_rows(const PlanNode* side) {
  return along_side(side, [](const PlanNode& n) -> std::optional<bool> {
    if (n.stats.row_count) return *n.stats.row_count <= 100;
    return std::nullopt;
  });
}

// Whether the plan counts the side's rows (statistics along it).
bool counted(const PlanNode* side) {
  return along_side(side, [](const PlanNode& n) -> std::optional<bool> {
    if (n.stats.row_count) return true;
    return std::nullopt;
  });
}

}  // namespace

void check_cartesian_join(PlanContext& ctx) {
  for (const PlanNode* n : ctx.physical_nodes()) {
    const auto* j = n->as<plan::JoinInfo>();
    if (j == nullptr) continue;
    if (n->children.size() == 2 && (is_single_row(n->children[0]) || is_single_row(n->children[1]))) continue;
    // One side a handful of rows: the product is the other side a few times over.
    if (n->children.size() == 2 && (few_rows(n->children[0]) || few_rows(n->children[1]))) continue;
    // Rows built on the driver (a LocalTableScan: literal rows, a local collection) are small by
    // construction, as in source: both sides so is nothing, one side so pairs each row of the other
    // with a few rows, often the point (a row per scenario), and is advice.
    const bool driver_left = n->children.size() == 2 && held_by_driver(*n->children[0]);
    const bool driver_right = n->children.size() == 2 && held_by_driver(*n->children[1]);
    if (driver_left && driver_right) continue;
    // Both sides grouped aggregates: as many rows as groups, which the plan does not show.
    const bool aggregates = n->children.size() == 2 && grouped_side(n->children[0]) && grouped_side(n->children[1]);
    auto advice = [&](Diagnostic& d) {
      if (driver_left || driver_right) {
        d.severity = Severity::info;
        d.message += " (one side is rows held by the driver: the other is repeated that many times)";
      } else if (aggregates) {
        d.severity = Severity::info;
        d.message += " (both sides are grouped aggregates: a row per group, which the plan does not count)";
      }
    };
    if (j->strategy == "CartesianProduct") {
      auto& d = ctx.report(
          *n,
          j->condition.empty() ? "Cartesian product: the output is every pair of left and right rows"
                               : "Cartesian product filtered by `" + j->condition +
                                     "` (no equality between the sides): every pair of rows is compared",
          "Join on a key", "Add the join key: `left.join(right, on=\"key\")`; use `crossJoin` only with a tiny side.");
      advice(d);
    } else if (j->strategy == "BroadcastNestedLoopJoin" && !has_equi_condition(j->condition)) {
      auto& d = ctx.report(*n,
                           j->condition.empty()
                               ? "nested-loop join without a condition: every row meets every row of the broadcast side"
                               : "nested-loop join without an equality (" + j->condition +
                                     "): every row is compared with every row of the broadcast side",
                           "Join on a key",
                           "Add an equality between the two sides to the join condition so Spark can hash-join, e.g. "
                           "`left.join(right, (left.k == right.k) & (...))`.");
      advice(d);
      // Spark broadcast the build side: it fit under the broadcast threshold. How many pairs that
      // makes, only counted sides show (cost mode, AQE statistics); without them it is advice.
      const bool sized = n->children.size() == 2 && counted(n->children[0]) && counted(n->children[1]);
      if (d.severity == Severity::warning && !sized) {
        d.severity = Severity::info;
        d.message += " (the broadcast side fit under the broadcast threshold, and the plan does not count the rows)";
      }
    }
  }
}

namespace {

// A condition as one short line for a message: whitespace squashed, long ones cut.
std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\\';
    if (space && (out.empty() || out.back() == ' ' || out.back() == '(')) continue;
    if (c == ')' && !out.empty() && out.back() == ' ') out.pop_back();
    out += space ? ' ' : c;
  }
  if (out.size() > 72) out = out.substr(0, 69) + "...";
  return out;
}

bool spark_receiver(const pyspark::Link& l, const pyspark::Arg* other) {
  if (l.on == pyspark::Link::On::dataframe) return true;
  if (l.on != pyspark::Link::On::unknown) return false;
  // a.join(b) on a name the file does not type: b being a Spark DataFrame says a is one too.
  return other != nullptr && other->value.chain() != nullptr && other->value.chain()->is_dataframe &&
         !other->value.chain()->ends_local;
}

}  // namespace

// Source: df.crossJoin(other), df.join(other, how="cross"), df.join(other) without a condition,
// df.join(other, <condition without a column equality>), rdd.cartesian(other). Not when both sides
// are tiny by construction (a literal grid), nor when one side is a single row.
void check_cartesian_join_source(SourceContext& ctx) {
  const auto& m = ctx.model();
  for (const auto& chain : m.chains) {
    std::vector<pyspark::Step> pipeline;
    for (std::size_t li = 0; li < chain.links.size(); ++li) {
      const auto& l = chain.links[li];
      if (!l.is_call || l.args.empty()) continue;
      std::string what;
      const pyspark::Arg* other = l.arg(0, "other");
      if (l.name == "crossJoin" && l.on != pyspark::Link::On::local) {
        what = "cross join: every row is paired with every row of the other side";
      } else if (l.name == "cartesian" && l.on != pyspark::Link::On::local && l.on != pyspark::Link::On::dataframe) {
        what = "RDD cartesian: every element is paired with every element of the other RDD";
      } else if (l.name == "join" && l.spark_signature() && spark_receiver(l, other)) {
        const pyspark::Arg* how = l.arg(2, "how");
        const pyspark::Arg* on = l.arg(1, "on");
        bool keyed = on != nullptr && (on->value.condition() == pyspark::Expr::Condition::keys ||
                                       on->value.condition() == pyspark::Expr::Condition::equality);
        if (how != nullptr && how->value.string_value() == "cross" && !keyed) {
          what = "cross join: every row is paired with every row of the other side";
        } else if (on == nullptr || on->value.condition() == pyspark::Expr::Condition::no_equality) {
          if (on != nullptr && on->value.kind() == "none") on = nullptr;  // df.join(other, None, "left")
          what = on == nullptr ? "join without a condition: every row is paired with every row of the other side"
                               : "join condition `" + one_line(on->value.text()) +
                                     "` has no equality between the two sides: Spark compares every pair of rows "
                                     "(a nested-loop or cartesian join)";
        }
      }
      if (what.empty()) continue;
      if (pipeline.empty()) pipeline = chain.pipeline();
      std::size_t index = 0;
      for (std::size_t k = 0; k < pipeline.size(); ++k)
        if (pipeline[k].link == &l) index = k;
      const pyspark::RowsFact left_rows = pyspark::rows_before(m, pipeline, index);
      const pyspark::RowsFact right_rows = other != nullptr && other->value.chain() != nullptr
                                               ? pyspark::rows_of(m, *other->value.chain())
                                               : pyspark::RowsFact{};
      auto small = [](const pyspark::RowsFact& f) {
        return pyspark::small_by_construction(f.rows) ? std::optional<pyspark::RowsFact>(f) : std::nullopt;
      };
      auto left = small(left_rows);
      auto right = small(right_rows);
      bool one_row = (left && left->rows == pyspark::Rows::one) || (right && right->rows == pyspark::Rows::one);
      if ((left && right) || one_row) continue;
      auto& d = ctx.report(chain.cell, l.name_pos, what);
      // One side a few rows built on the driver: each row of the other is repeated that many times,
      // often the point (a row per scenario); Spark broadcasts the small side. Advice.
      if (left || right) {
        d.severity = Severity::info;
        d.message += " (one side is " + (left ? left->why : right->why) + ": the other is repeated that many times)";
      } else if (left_rows.rows != pyspark::Rows::large || right_rows.rows != pyspark::Rows::large) {
        // A warning needs both sides to show volume (reads that nothing aggregates or limits): a
        // parameter, a lookup or distinct values may well be a few rows, as a range join's
        // calendar side usually is.
        d.severity = Severity::info;
        d.message += " (the code does not show both sides' sizes)";
      } else if (m.local_master) {
        // A local session (`master("local[*]")`) runs on one machine: data that fits one, not a
        // cluster's volume. Advice.
        d.severity = Severity::info;
        d.message += " (a local session: data one machine holds)";
      }
      ctx.attach_fix(d, "Join on a key", Applicability::display_only,
                     l.name == "join" && what.rfind("join condition", 0) == 0
                         ? "Add an equality between the two sides (`(a.k == b.k) & (...)`) so Spark can hash the "
                           "join; bucket a range condition into an equi-join key first."
                         : "Join on a key (`left.join(right, \"key\")`); keep a cross join for a side of a few rows.");
    }
  }
}

}  // namespace planlint::rules
