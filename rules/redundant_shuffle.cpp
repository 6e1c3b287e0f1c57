// redundant-shuffle: an exchange whose input was shuffled just before, on the same keys or by a user repartition.
#include <algorithm>
#include <regex>
#include <set>

#include "lint/plan_context.hpp"

#include "lint/source_context.hpp"
#include "plan/operator_fields.hpp"
#include "util/name_set.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::ExchangeInfo;
using plan::Partitioning;
using plan::PlanNode;

extern const RuleInfo kRedundantShuffle{"SPK101",
                                        "redundant-shuffle",
                                        "Rows are shuffled twice in a row; the first shuffle is wasted",
                                        Severity::warning,
                                        FixAvailability::sometimes,
                                        Impact::high,
                                        R"md(## What it does
Finds an `Exchange` whose input was already shuffled by another `Exchange` just below it, with only
operators in between that keep rows where they are (`Project`, `Filter`, `Sort`, partial aggregation,
codegen and AQE wrappers). It fires when the two exchanges share a partitioning key, or when the lower one comes from a
user `repartition(...)` / `DISTRIBUTE BY` (`REPARTITION_BY_COL`, `REPARTITION_BY_NUM`, round robin).
A hash exchange is also wasted when the data below is already hash-partitioned on exactly the same
keys across operators that keep that partitioning: aggregates keyed on those keys (final and merge
steps too) and the `StateStoreRestore` / `StateStoreSave` steps of a streaming aggregation. A
DISTINCT on `(a, b)` followed by a GROUP BY `a` needs both shuffles and is not reported. As an
`info`, a global sort's range shuffle gathered into one partition just above (an `orderBy` before a
window without `partitionBy`, which sorts again): the order and the partitioning are thrown away.

In PySpark source: `repartition(...)` on keys right before a `groupBy`, `join`, `distinct` or
`dropDuplicates` that shares a key with it (not before a join it already satisfies: pre-partitioning; nor before a
grouped map on its keys, `groupBy(k).applyInPandas(...)`, which has no partial aggregate to lose);
a `repartition(n)` without keys straight before one of them (round robin serves no key; not
`repartition(1)`, nor before a broadcast join), and likewise a repartition on keys written out that
the next `groupBy`, `join` or `dropDuplicates` does not use at all (`repartition("a")` then
`dropDuplicates(["b"])`), unless other statements read the repartitioned DataFrame too. Steps that keep rows where they are (filters,
projections) may come between, not a generator (`explode`, `stack`, `inline`: more rows after it
than the repartition moved); a projection that applies a window (`select(F.rank().over(w))`)
plans an exchange of its own and ends the search, and so does a `cache()` / `persist()` whose
DataFrame two statements or more read (the repartition lays out what is cached, once, for all of
them). Not reported on rows few by
construction (`spark.range(100)`, literal rows), nor in a statement that only prints its plan
(`....explain()` runs nothing). And, as an `info`, a global sort (`orderBy`, `sort`)
straight before a `repartition` that loses its order (a sort under a join or an aggregate is removed
by Spark's optimizer and is not reported). A warning where a second shuffle follows (keys that
differ, round robin); where the repartition's keys already satisfy the aggregate (`repartition("k")`
before `groupBy("k")` or `distinct()`), Spark shuffles once but moves every row instead of partial
aggregates, which costs as far as rows share a key: an `info`, as the code does not show that.

## Why is this bad?
A shuffle writes every row to disk and sends it over the network. When the next operator needs a
different partitioning, Spark shuffles again and the work of the first shuffle is thrown away. The
classic source is `df.repartition("k", "j").groupBy("k")`: hash partitioning on `(k, j)` does not
satisfy a grouping on `k`, so the data moves twice.

## Example
```plan
== Physical Plan ==
*(2) HashAggregate(keys=[k#1], functions=[count(1)])
+- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=20]
   +- *(1) HashAggregate(keys=[k#1], functions=[partial_count(1)])
      +- Exchange hashpartitioning(k#1, j#2, 200), REPARTITION_BY_COL, [plan_id=10]
         +- LocalTableScan [k#1, j#2]
```
Use instead (no `repartition`: Spark shuffles once, by the grouping key):
```plan
== Physical Plan ==
*(2) HashAggregate(keys=[k#1], functions=[count(1)])
+- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=20]
   +- *(1) HashAggregate(keys=[k#1], functions=[partial_count(1)])
      +- LocalTableScan [k#1, j#2]
```

## Example (PySpark)
```python
counts = df.repartition("k", "j").groupBy("k").count()
```
Use instead:
```python
counts = df.groupBy("k").count()
```

## Fix safety
Plans: display-only, the plan is Spark's output. The fix is in the code that built it: drop the
`repartition(...)`, or repartition by exactly the keys the next stage groups or joins on.
PySpark source: removing `.repartition(...)` is safe when it sits in the same expression as the
`groupBy` / `join` / `distinct` that shuffles again (same rows, partitioned by the later shuffle);
when the repartitioned DataFrame is bound to a name in another statement the fix is unsafe, as
that name may be used elsewhere.

## Options
None.
)md"};

namespace {

bool shares_key(const ExchangeInfo& a, const ExchangeInfo& b) {
  for (const auto& x : a.key_refs)
    for (const auto& y : b.key_refs)
      if (x.same_attribute(y)) return true;
  return false;
}

// Per-partition work between the two exchanges: pass-through operators and the partial aggregation
// of the upper exchange's own grouping. A final aggregate (of a DISTINCT or UNION below) is real work
// that needs the lower shuffle, so the walk stops there.
bool keeps_rows_in_place(const PlanNode& n, const ExchangeInfo& upper) {
  if (is_pass_through(n)) return true;
  const auto* a = n.as<plan::AggregateInfo>();
  if (a == nullptr) return false;
  if (a->functions.empty()) {
    if (a->key_refs.size() != upper.key_refs.size()) return false;
    for (std::size_t i = 0; i < a->key_refs.size(); ++i)
      if (!a->key_refs[i].same_attribute(upper.key_refs[i])) return false;
    return true;
  }
  for (const auto& f : a->functions)
    if (f.rfind("partial_", 0) != 0) return false;
  return true;
}

bool same_key_set(const std::vector<plan::AttributeRef>& a, const std::vector<plan::AttributeRef>& b) {
  if (a.empty() || a.size() != b.size()) return false;
  return std::all_of(a.begin(), a.end(), [&](const plan::AttributeRef& x) {
    return std::any_of(b.begin(), b.end(), [&](const plan::AttributeRef& y) { return x.same_attribute(y); });
  });
}

// Operators that keep a hash partitioning on the upper exchange's keys although they do real work:
// aggregates keyed on exactly those keys (final or merge steps included) and the state store steps
// of a streaming aggregation. Crossing one needs the lower exchange to be on exactly the same keys.
bool keeps_partitioning_on_keys(const PlanNode& n, const ExchangeInfo& upper) {
  std::string_view b = plan::base_operator_name(n.name);
  if (b == "StateStoreRestore" || b == "StateStoreSave" || b == "SessionWindowStateStoreRestore" ||
      b == "SessionWindowStateStoreSave" || b == "StreamingDeduplicate")
    return true;
  const auto* a = n.as<plan::AggregateInfo>();
  return a != nullptr && same_key_set(a->key_refs, upper.key_refs);
}

}  // namespace

void check_redundant_shuffle(PlanContext& ctx) {
  for (const PlanNode* upper : ctx.physical_nodes()) {
    const auto* ux = upper->as<ExchangeInfo>();
    if (ux == nullptr || upper->children.size() != 1) continue;
    // A global sort's range shuffle that a single-partition exchange gathers again (an `orderBy`
    // before a window without partitionBy, or before a `coalesce`-free single-partition step): the
    // order and the partitioning are thrown away, and what needs one partition sorts again. Advice:
    // the plan does not show how many rows moved twice.
    if (ux->partitioning == Partitioning::single) {
      const PlanNode* below = descend(upper->children.front(), [](const PlanNode& n) { return is_pass_through(n); });
      const auto* bx = below == nullptr ? nullptr : below->as<ExchangeInfo>();
      if (bx != nullptr && bx->partitioning == Partitioning::range && !is_user_repartition(*bx)) {
        auto& d =
            ctx.report(*upper,
                       "rows sorted across partitions by a range shuffle at line " + std::to_string(below->span.line) +
                           " are gathered into one partition here: the global sort's shuffle is wasted",
                       "Drop the global sort",
                       "Remove the `orderBy` / `ORDER BY` before the step that needs one partition (a window "
                       "without partitionBy sorts by its own ordering), or sort after it.");
        d.severity = Severity::info;
        d.related.push_back({ctx.location_of(*below), "first shuffle"});
      }
      continue;
    }
    if (ux->partitioning != Partitioning::hash && ux->partitioning != Partitioning::range) continue;
    bool crossed_work = false;
    const PlanNode* lower = descend(upper->children.front(), [&](const PlanNode& n) {
      if (keeps_rows_in_place(n, *ux)) return true;
      bool keeps = keeps_partitioning_on_keys(n, *ux);
      crossed_work = crossed_work || keeps;
      return keeps;
    });
    const auto* lx = lower == nullptr ? nullptr : lower->as<ExchangeInfo>();
    if (lx == nullptr) continue;
    bool same_keys = shares_key(*ux, *lx);
    bool user = is_user_repartition(*lx);
    // Across an aggregate or a state store, only an exchange on exactly the same keys is wasted
    // (DISTINCT a, b then GROUP BY a needs both shuffles).
    // A range exchange there is a global sort's, which the hash partitioning below does not give.
    if (crossed_work ? !(lx->partitioning == Partitioning::hash && ux->partitioning == Partitioning::hash &&
                         same_key_set(lx->key_refs, ux->key_refs))
                     : (!same_keys && !user))
      continue;
    std::string lower_keys =
        lx->key_refs.empty() ? std::string(plan::to_string(lx->partitioning)) : "[" + join_refs(lx->key_refs) + "]";
    auto& d =
        ctx.report(*upper,
                   "rows shuffled by " + lower_keys + " at line " + std::to_string(lower->span.line) +
                       " are shuffled again by [" + join_refs(ux->key_refs) + "]; the first shuffle is wasted",
                   "Remove the first shuffle",
                   crossed_work && !user
                       ? "Spark re-shuffles rows already partitioned by [" + join_refs(ux->key_refs) +
                             "]: look for a renamed or cast key between the two (`k AS k2`, `cast(k ...)`), which "
                             "hides the partitioning; newer Spark versions track it through aliases."
                   : user ? "Drop the `.repartition(...)` (or `DISTRIBUTE BY`) before this stage: Spark shuffles by [" +
                                join_refs(ux->key_refs) +
                                "] anyway. To control the partition count, let AQE coalesce "
                                "partitions or set spark.sql.shuffle.partitions."
                          : "Partition once by exactly [" + join_refs(ux->key_refs) + "], e.g. `df.repartition(" +
                                join_refs(ux->key_refs) +
                                ")` only if the key set matches the "
                                "grouping/join keys that follow.");
    d.related.push_back({ctx.location_of(*lower), "first shuffle"});
  }
}

// Source: df.repartition(..., k) followed, through partition-keeping steps, by groupBy(k) /
// join(on=k) / distinct() / dropDuplicates().
namespace {

// Whether the two shuffles at pipeline[first] and pipeline[second] run, and cost something, as one
// after the other: not when the rows are few by construction (`spark.range(100)`, literal rows),
// when a cache in between keeps the first shuffle's output for several later uses (the repartition
// lays out the cache once for all of them), or when the statement only prints its plan
// (`....explain()` runs nothing).
bool costs_to_run(const pyspark::SourceModel& m, const std::vector<pyspark::Step>& pipeline, std::size_t first,
                  std::size_t second) {
  for (std::size_t k = first + 1; k < second; ++k) {
    const pyspark::Link& l = *pipeline[k].link;
    if (!l.is_call ||
        (l.name != "cache" && l.name != "persist" && l.name != "checkpoint" && l.name != "localCheckpoint"))
      continue;
    // Read by two statements or more (a cache read once saves nothing, and lays out nothing).
    const pyspark::Chain* cached = pipeline[k].chain;
    const auto readers =
        std::count_if(m.chains.begin(), m.chains.end(), [&](const pyspark::Chain& c) { return c.bound == cached; });
    if (readers >= 2) return false;
  }
  const pyspark::Chain& last = *pipeline[second].chain;
  if (!last.links.empty() && last.links.back().name == "explain" && last.assigned_to.empty()) return false;
  return pyspark::volume_of(pyspark::rows_before(m, pipeline, first).rows) != pyspark::Volume::small;
}

// The columns a call names when every one is written out as a literal (`"k"`, `["a", "b"]`,
// `F.col("k")`): false when one is a variable, a spread list or an expression, whose columns the
// code does not show. For a repartition, a leading number of partitions is skipped; for a join, the
// `on` argument is read.
bool literal_keys(const pyspark::Link& link, std::vector<std::string>& out) {
  static const std::regex kStrings(R"(^[\[(]\s*(("[^"]*"|'[^']*')\s*,\s*)*("[^"]*"|'[^']*')\s*,?\s*[\])]$)");
  const bool join = link.name == "join";
  const bool repartition = link.name == "repartition";
  for (std::size_t i = 0; i < link.args.size(); ++i) {
    const pyspark::Arg& a = link.args[i];
    if (join) {
      if (!(a.keyword == "on" || (a.keyword.empty() && i == 1))) continue;
    } else if (!a.keyword.empty() && a.keyword != "cols" && a.keyword != "subset") {
      continue;
    }
    if (repartition && i == 0 && a.keyword.empty() && !a.value.string_value() && a.value.kind() != "list" &&
        a.value.kind() != "call")
      continue;  // the number of partitions
    const bool literal = a.value.string_value() ||
                         ((a.value.kind() == "list" || a.value.kind() == "tuple") &&
                          std::regex_match(std::string(a.value.text()), kStrings)) ||
                         (a.value.kind() == "call" && a.value.callee() == "pyspark.sql.functions.col" &&
                          a.value.column_names().size() == 1);
    if (!literal) return false;
    for (const auto& c : a.value.column_names()) out.emplace_back(c);
    if (a.value.column_names().empty() && a.value.string_value())
      out.emplace_back(*a.value.string_value());  // a module constant (`SITE = "site"`)
  }
  return !out.empty();
}

// Whether the columns `keys` come out of `link` as they went in: a projection keeps them only when
// it names each of them, `drop` when it names none; a rename or a positional `toDF` may not.
bool keeps_columns(const pyspark::Link& link, const std::vector<std::string>& keys) {
  const std::string_view m = link.name.view();
  auto names = [&] {
    std::vector<std::string> out;
    for (const auto& a : link.args)
      for (const auto& c : a.value.column_names()) out.emplace_back(c);
    return out;
  };
  auto named = [](const std::vector<std::string>& in, const std::string& k) {
    return std::find(in.begin(), in.end(), k) != in.end();
  };
  if (m == "select") {
    const auto in = names();
    return std::all_of(keys.begin(), keys.end(), [&](const std::string& k) { return named(in, k); });
  }
  if (m == "drop") {
    const auto in = names();
    return std::none_of(keys.begin(), keys.end(), [&](const std::string& k) { return named(in, k); });
  }
  return m != "selectExpr" && m != "toDF" && m != "withColumnRenamed" && m != "withColumnsRenamed";
}

}  // namespace

void check_redundant_shuffle_source(SourceContext& ctx) {
  std::set<std::pair<int, std::uint32_t>> reported;  // one finding per repartition, however many pipelines reach it
  auto shuffles = [](const pyspark::Link& l) {
    return l.name == "groupBy" || l.name == "groupby" || l.name == "join" || l.name == "distinct" ||
           l.name == "dropDuplicates";
  };
  // A repartition that reaches a second shuffle along one pipeline and a satisfied aggregate along
  // another is reported once, for the second shuffle: those first, then the satisfied ones.
  for (const bool satisfied_pass : {false, true})
    for (const auto& chain : ctx.model().chains) {
      if (!chain.is_dataframe) continue;
      if (!has_own_link(chain, shuffles)) continue;
      auto pipeline = chain.pipeline();
      std::size_t own_start = pipeline.size() - chain.links.size();
      for (std::size_t i = own_start; i < pipeline.size(); ++i) {
        const pyspark::Link& second = *pipeline[i].link;
        if (!shuffles(second)) continue;
        const std::string m(second.name);
        bool all_columns = m == "distinct" || (m == "dropDuplicates" && second.args.empty());
        const pyspark::Step* first = previous_step(pipeline, i);
        if (first == nullptr || first->link->name != "repartition") continue;
        if (!costs_to_run(ctx.model(), pipeline, static_cast<std::size_t>(first - pipeline.data()), i)) continue;
        // A generator between them (`explode`, `stack`, `inline`) multiplies the rows: the repartition
        // moved fewer rows than the next shuffle would, and is not wasted.
        bool generates = false;
        for (std::size_t k = static_cast<std::size_t>(first - pipeline.data()) + 1; k < i && !generates; ++k)
          for (const auto& a : pipeline[k].link->args) {
            const std::string_view t = a.value.text();
            generates = generates || t.find("explode") != std::string_view::npos ||
                        t.find("stack(") != std::string_view::npos || t.find("inline") != std::string_view::npos;
          }
        if (generates) continue;
        auto keys1 = column_args(*first->link);
        std::vector<std::string> keys2;
        if (m == "join") {
          const pyspark::Arg* on = second.arg(1, "on");
          if (on == nullptr) continue;
          keys2.assign(on->value.column_names().begin(), on->value.column_names().end());
        } else {
          keys2 = column_args(second);
        }
        std::vector<std::string> shared;
        for (const auto& k : keys1)
          if (std::find(keys2.begin(), keys2.end(), k) != keys2.end()) shared.push_back(k);
        if (shared.empty() && !all_columns) continue;
        // Hash partitioning on a subset of the keys already satisfies them (every column is a key of
        // `distinct()`): the next operator does not shuffle again. Before a join that is a deliberate
        // pre-partitioning (Spark 3 reuses it on both sides); before an aggregate it still moves every
        // row where partial aggregates would have moved, which costs only as far as rows share a key
        // within a partition: the code does not show that, so it is an info.
        bool satisfies =
            !keys1.empty() && (all_columns || std::all_of(keys1.begin(), keys1.end(), [&](const std::string& k) {
                                 return std::find(keys2.begin(), keys2.end(), k) != keys2.end();
                               }));
        // `distinct()` groups on the columns it sees: a projection in between that leaves out a
        // repartition key (`select("age").distinct()`) leaves a partitioning that no longer satisfies it.
        if (satisfies && all_columns)
          for (std::size_t k = static_cast<std::size_t>(first - pipeline.data()) + 1; k < i && satisfies; ++k)
            satisfies = keeps_columns(*pipeline[k].link, keys1);
        if (satisfies && m == "join") continue;
        // A grouped map (`groupBy(k).applyInPandas(...)`, `.apply(...)`, `.cogroup(...)`) has no partial
        // aggregate: it moves every row by k anyway, and a repartition by k is the shuffle it reuses.
        if (satisfies && (m == "groupBy" || m == "groupby") && i + 1 < pipeline.size()) {
          const std::string_view next = pipeline[i + 1].link->name.view();
          if (next == "applyInPandas" || next == "apply" || next == "cogroup" || next == "applyInArrow" ||
              next == "flatMapGroupsInPandas")
            continue;
        }
        if (satisfies != satisfied_pass) continue;
        if (!reported.insert({first->chain->cell, first->link->name_pos.start_byte}).second) continue;
        const std::string on = shared.empty() ? quote_names(keys1) : quote_names(shared);
        std::string message = satisfies
                                  ? "`repartition` on " + on + " right before `" + m +
                                        "`, which its partitioning already satisfies: rows are shuffled once, but "
                                        "every row rather than `" +
                                        m + "`'s partial aggregates (this costs as far as rows share a key)"
                                  : "`repartition` is followed by `" + m + "`" +
                                        (shared.empty() ? "" : " on " + quote_names(shared)) +
                                        ", which shuffles again: the repartition's shuffle is wasted";
        auto& d = ctx.report(first->chain->cell, first->link->name_pos, message);
        if (satisfies) d.severity = Severity::info;
        const pyspark::Place at = ctx.model().place(pipeline[i].chain->cell, second.name_pos);
        d.related.push_back(
            {Location{ctx.model().file->path, at.line, at.column, at.end_line, at.end_column, pipeline[i].chain->cell,
                      0, 0},
             satisfies ? "the aggregate that reuses its partitioning" : "the shuffle that replaces it"});
        bool same_statement = first->chain == pipeline[i].chain;
        Fix& f = ctx.attach_fix(
            d, "Remove the redundant `.repartition(...)`", same_statement ? Applicability::safe : Applicability::unsafe,
            "Drop `." + std::string(first->link->name) + "(...)`: `" + m + "` shuffles by its own keys anyway" +
                (satisfies ? ", after a partial aggregate." : "."));
        // Across statements the repartitioned DataFrame may be used elsewhere: only an unsafe fix.
        SourceContext::add_edit(f, first->chain->cell, first->link->link_pos.start_byte, first->link->link_pos.end_byte,
                                "");
      }
    }
  // Right before a step that shuffles by its own keys, nothing in between: a `repartition(n)` without
  // keys (round robin, it serves no key), and a global sort (`orderBy`, `sort`: a range shuffle whose
  // order the next shuffle loses).
  static const util::NameSet kNext{"groupBy",         "groupby",     "join",    "distinct", "dropDuplicates",
                                   "drop_duplicates", "repartition", "orderBy", "sort"};
  static const util::NameSet kKeyed{"groupBy", "groupby", "join", "dropDuplicates", "drop_duplicates"};
  for (const auto& chain : ctx.model().chains) {
    if (!chain.is_dataframe) continue;
    if (!has_own_link(chain, [](const pyspark::Link& l) { return l.is_call && kNext.contains(l.name); })) continue;
    auto pipeline = chain.pipeline();
    std::size_t own_start = pipeline.size() - chain.links.size();
    for (std::size_t i = std::max<std::size_t>(own_start, 1); i < pipeline.size(); ++i) {
      const pyspark::Link& second = *pipeline[i].link;
      const pyspark::Link& first = *pipeline[i - 1].link;
      if (!second.is_call || !first.is_call || !kNext.contains(second.name)) continue;
      // repartition(1) is one partition, which any grouping is satisfied by; a broadcast join does not
      // shuffle the other side.
      const bool one = !first.args.empty() && first.args[0].value.int_value() == 1;
      bool broadcast = false;
      if (second.name == "join" && !second.args.empty()) {
        const std::string_view other = second.args[0].value.text();
        broadcast =
            other.find("broadcast(") != std::string_view::npos || other.find(".hint(") != std::string_view::npos;
      }
      const bool round_robin = first.name == "repartition" && column_args(first).empty() && !first.args.empty() &&
                               !one && !broadcast && second.name != "repartition" && second.name != "orderBy" &&
                               second.name != "sort";
      // A repartition on keys the next shuffle does not use at all serves it no better than round
      // robin: both written out, none shared (`repartition("a").dropDuplicates(["b"])`). Only where
      // nothing else reads the repartitioned DataFrame (its layout may be for another reader).
      bool other_keys = false;
      std::vector<std::string> own_keys;
      std::vector<std::string> next_keys;
      if (first.name == "repartition" && !broadcast && kKeyed.contains(second.name) && literal_keys(first, own_keys) &&
          literal_keys(second, next_keys)) {
        other_keys = std::none_of(own_keys.begin(), own_keys.end(), [&](const std::string& k) {
          return std::find(next_keys.begin(), next_keys.end(), k) != next_keys.end();
        });
        const pyspark::Chain* made = pipeline[i - 1].chain;
        if (other_keys && made != pipeline[i].chain) {
          const auto readers = std::count_if(ctx.model().chains.begin(), ctx.model().chains.end(),
                                             [&](const pyspark::Chain& c) { return c.bound == made; });
          other_keys = readers <= 1;
        }
      }
      // A sort under a join or an aggregate is removed by the optimizer (EliminateSorts), and one before
      // dropDuplicates may pick which row is kept: only a sort a repartition throws away is reported.
      const bool sorted = (first.name == "orderBy" || first.name == "sort") && second.name == "repartition";
      if (!round_robin && !other_keys && !sorted) continue;
      const pyspark::Step& at = pipeline[i - 1];
      if (!costs_to_run(ctx.model(), pipeline, i - 1, i)) continue;
      if (!reported.insert({at.chain->cell, first.name_pos.start_byte}).second) continue;
      const std::string next(second.name);
      auto& d = ctx.report(
          at.chain->cell, first.name_pos,
          round_robin ? "`repartition` without keys is followed by `" + next +
                            "`, which shuffles every row again by its own keys: the repartition's shuffle is wasted"
          : other_keys
              ? "`repartition` on " + quote_names(own_keys) + " is followed by `" + next + "` on " +
                    quote_names(next_keys) +
                    ", which shuffles every row again by its own keys: the repartition's shuffle is wasted"
              : "`" + std::string(first.name) + "` sorts every row across partitions (a range shuffle), then `" + next +
                    "` shuffles again and loses the order: the sort is wasted");
      const pyspark::Place p = ctx.model().place(pipeline[i].chain->cell, second.name_pos);
      d.related.push_back(
          {Location{ctx.model().file->path, p.line, p.column, p.end_line, p.end_column, pipeline[i].chain->cell, 0, 0},
           "the shuffle that follows"});
      if (sorted) d.severity = Severity::info;  // an order may be wanted where the code does not show it
      ctx.attach_fix(d, "Remove the wasted shuffle", Applicability::display_only,
                     "Drop `." + std::string(first.name) + "(...)`: `" + next + "` shuffles by its own keys anyway.");
    }
  }
}

}  // namespace planlint::rules
