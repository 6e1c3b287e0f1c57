// loop-lineage-growth: a DataFrame rebuilt from itself with a join or union on every turn of a loop.
#include <set>

#include "lint/source_context.hpp"
#include "util/name_set.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kLoopLineageGrowth{"SPK504",
                                         "loop-lineage-growth",
                                         "A loop adds a join or a union to the same DataFrame on every turn",
                                         Severity::warning,
                                         FixAvailability::never,
                                         Impact::high,
                                         R"md(## What it does
Finds `df = df.union(...)` (`unionByName`, `unionAll`), `df = df.join(...)` (`crossJoin`) and
`df = df.select(...)` inside a `for` or `while` loop, where `df` carries over from the previous turn
(it was bound before the loop, or from itself). `withColumn` in a loop is `withcolumn-in-loop`.

A warning when the code shows more than 20 turns (`range(100)`, a long literal list, a `while` loop
whose counter the code shows: `i = 0`, `while i < 100:`, `i += 1`), for unions more than 200 (Spark's
optimizer flattens nested unions into one: a union of 51 states plans in seconds, an `info`); an
`info` when it does not show how many (a loop over rows, files or a parameter). Not reported: a loop over a list
the code spells out with 20 items or fewer, or `range(n)` with `n <= 20` (a plan of 20 nested
unions plans in well under a second); test code; Python's set union (`seen = seen.union(found)` of a
`found = set()`, a literal or a comprehension); a name read afresh each turn (`df = spark.read...` in the
body, `for df in frames:`); a loop that cuts the lineage of that name (`df = df.checkpoint()`,
`localCheckpoint()`).

## Why is this bad?
Every turn nests the whole previous plan inside a new join or union. Catalyst analyses and optimises
the full tree on each action, and its rules run over every node again: planning time grows with the
square of the number of turns and the driver spends minutes (or runs out of memory) before the
first task runs. A union of 500 DataFrames built this way can take longer to plan than to execute;
the same union built in one call plans in a second.

## Example (PySpark)
```python
result = spark.table("day_0")
for day in days:
    result = result.unionByName(spark.table(day))
```
Use instead:
```python
from functools import reduce
from pyspark.sql import DataFrame

result = reduce(DataFrame.unionByName, [spark.table(day) for day in days])
```

## Fix safety
Display-only: collect the parts in a list and combine them once (`functools.reduce` over
`unionByName`, one join per key set, one `select` with every column), or cut the lineage every few
turns with `localCheckpoint()` (or `checkpoint()` with a checkpoint directory).

## Options
None.
)md"};

namespace {

// Whether the loop `loop` rebinds `name` through a lineage cut (checkpoint, localCheckpoint).
bool lineage_cut_in_loop(const pyspark::SourceModel& m, int loop, const std::string& name) {
  for (const auto& c : m.chains) {
    if (c.loop != loop || c.assigned_to != name) continue;
    for (const auto& l : c.links)
      if (l.is_call && (l.name == "checkpoint" || l.name == "localCheckpoint")) return true;
  }
  return false;
}

}  // namespace

namespace {
constexpr int kFewTurns = 20;
constexpr int kManyUnions = 200;  // unions: a warning only beyond this many turns
}  // namespace

namespace {
// A Python collection on the driver: a literal (`{a, b}`, `[x]`), a comprehension, or a value made by
// Python's own constructors (`set(...)`, `frozenset(...)`, `list(...)`), also through a name bound to one.
bool python_collection(const pyspark::SourceModel& m, const pyspark::Arg* a) {
  if (a == nullptr) return false;
  const pyspark::Expr& v = a->value;
  if (v.kind() == "set" || v.kind() == "list" || v.kind() == "dictionary" || v.kind() == "set_comprehension" ||
      v.kind() == "list_comprehension")
    return true;
  const pyspark::Chain* c = v.chain();
  if (c == nullptr) return false;
  const pyspark::Chain* o = c->origin();
  const std::string_view root = o->root.view();
  return o->root_is_call && m.function(root) == nullptr &&
         (root == "set" || root == "frozenset" || root == "list" || root == "dict" || root == "tuple");
}
}  // namespace

void check_loop_lineage_growth(SourceContext& ctx) {
  const auto& m = ctx.model();
  static const util::NameSet growing{"union", "unionByName", "unionAll", "join", "crossJoin", "select"};
  std::set<std::pair<int, std::string>> reported;  // one finding per loop and name
  for (const auto& chain : m.chains) {
    if (!chain.in_loop || chain.loop == 0 || chain.assigned_to.empty() || chain.assigned_to != chain.root ||
        chain.root_is_call)
      continue;
    int turns = -1;
    if (chain.loop <= static_cast<int>(m.loops.size())) {
      turns = m.loops[static_cast<std::size_t>(chain.loop - 1)].known_turns;
      if (turns >= 0 && turns <= kFewTurns) continue;
    }
    if (in_test_code(m, chain)) continue;
    if (!carried_across_turns(m, chain)) continue;
    const std::string root(chain.root);
    if (lineage_cut_in_loop(m, chain.loop, root)) continue;
    for (const auto& l : chain.links) {
      if (!l.is_call || growing.count(l.name) == 0) continue;
      if (l.on == pyspark::Link::On::local) continue;  // a Python set or a pandas frame: not a plan
      // `seen = seen.union(set(...))`: Python's set union.
      if (l.name == "union" && python_collection(m, l.arg(0, "other"))) continue;
      if (!reported.insert({chain.loop, root}).second) break;
      std::string kind = l.name == "select" ? "projection" : l.name.rfind("union", 0) == 0 ? "union" : "join";
      auto& d = ctx.report(chain.cell, l.name_pos,
                           "`" + root + " = " + root + "." + std::string(l.name) + "(...)` in a loop nests one more " +
                               kind + " in `" + root + "`'s plan on every turn: planning time grows with each one");
      std::string fix = kind == "union" ? "Collect the parts in a list and union once: "
                                          "`functools.reduce(DataFrame.unionByName, parts)`; or `" +
                                              root + " = " + root + ".localCheckpoint()` every few turns."
                        : kind == "join" ? "Join once on all keys (or the combined lookup table), or `" + root + " = " +
                                               root + ".localCheckpoint()` every few turns."
                                         : "Build the column list in the loop and call `select` once after it.";
      // A warning when the code shows many turns; a loop over data (rows, files, a parameter) may
      // turn twice or two thousand times.
      if (turns < 0) {
        d.severity = Severity::info;
        d.message += " (the code does not show how many turns)";
      } else if (kind == "union" && turns <= kManyUnions) {
        // Spark's optimizer flattens nested unions into one (CombineUnions): a few dozen cost little.
        d.severity = Severity::info;
        d.message += " (" + std::to_string(turns) + " turns; Spark flattens the unions when it optimizes)";
      }
      ctx.attach_fix(d, "Combine once, or cut the lineage", Applicability::display_only, fix);
      break;
    }
  }
}

}  // namespace planlint::rules
