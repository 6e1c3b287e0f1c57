// withcolumn-in-loop: df = df.withColumn(...) repeated in a loop grows the plan one projection per turn.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kWithColumnInLoop{"SPK501",
                                        "withcolumn-in-loop",
                                        "withColumn called in a loop builds a deep plan",
                                        Severity::warning,
                                        FixAvailability::never,
                                        Impact::medium,
                                        R"md(## What it does
Finds `df = df.withColumn(...)` (or `withColumnRenamed`) inside a `for` or `while` loop when `df`
grows from turn to turn: bound before the loop or from its own previous value. A DataFrame read
afresh at the top of each turn, or the loop variable itself, is not reported.

Severity follows the number of projections the code shows: the turns of the loop times the
`withColumn` calls one turn makes on that DataFrame (of the branches of one `if`, the largest). The
turns are known for a loop over a collection written out in the code (`for c in ["a", "b"]`,
`range(5)`, a dict literal's items, `zip` of such lists, `A + B` of two, a name bound to a literal list (in the
function that loops, or at module level: another function's name of the same spelling is its own;
also a class attribute read as `self.X` or
`Cls.X`, or `self.x` set to one in a method; `OrderedDict([...])` of pairs), a
comprehension or set difference over one, also in a project module it imports, or a function
parameter that every call in the file (`f(df, cols)`, or `self.f(df, cols)` of a method), or its
default, fills with such a list; an empty default of a function the file never calls is a
placeholder, not a count), and for a `while`
loop whose counter the code shows (`i = 0`, then `while i < 120:` with one `i += 1` in the body and
no other binding of `i`; `break` makes it an upper bound). Up to 20 projections
are a handful and not reported; up to 50 are an info; more (`range(200)`, twelve turns of twenty
calls) are a warning. Calls under an `if` whose test reads the loop variable (`if c not in
df.columns:`) run on the turns it picks: they count towards the upper bound (more than 20 is an
info) but a warning needs more than 50 from the calls every turn makes. A loop over a DataFrame's columns (`for c in df.columns`, `df.schema.fields`,
`df.dtypes`) is an info: wide tables have hundreds of columns, but the code does not show how wide
this one is; so is any other loop whose count is not in sight. Test code is not reported, nor a
`withColumn` under `if c == "name":` on the loop variable (one turn at most).

## Why is this bad?
Each call adds a projection to the logical plan. Hundreds of them make analysis and optimisation
slow (minutes before the job starts) and can end in a `StackOverflowError`; Spark's documentation
warns against it.

## Example (PySpark)
```python
for c in df.columns:
    df = df.withColumn(c, F.col(c).cast("double"))
```
Use instead:
```python
df = df.withColumns({c: F.col(c).cast("double") for c in df.columns})
```

## Fix safety
Display-only: build all columns in one `withColumns({...})` (Spark 3.3+) or one `select(...)`.

## Options
None.
)md"};

constexpr int kFewProjections = 20;   // projections a spelled-out loop may add and stay negligible
constexpr int kManyProjections = 50;  // beyond these, analysing the plan costs seconds: a warning

namespace {

// The withColumn calls one turn of a loop makes on a DataFrame: those of every statement that rebinds
// it in the loop's own body. Of the branches of one if, one runs per turn: the largest counts.
using Group = std::vector<const pyspark::Chain*>;
int withcolumns(const pyspark::Chain& c) {
  return static_cast<int>(std::count_if(c.links.begin(), c.links.end(), [](const pyspark::Link& l) {
    return l.is_call && (l.name == "withColumn" || l.name == "withColumnRenamed") && l.spark_signature();
  }));
}
int per_turn(const Group& group) {
  // The branches around every statement of the group are around the loop too (or around all of it):
  // what comes after them tells the statements' own branches apart.
  std::size_t common = group.front()->branches.size();
  for (const auto* c : group) {
    std::size_t k = 0;
    while (k < common && k < c->branches.size() && c->branches.begin()[k] == group.front()->branches.begin()[k]) ++k;
    common = k;
  }
  int total = 0;
  std::map<int, std::map<int, int>> by_if;  // if statement -> branch -> withColumn calls
  for (const auto* c : group) {
    if (c->branches.size() <= common)
      total += withcolumns(*c);
    else
      by_if[c->branches.begin()[common].first][c->branches.begin()[common].second] += withcolumns(*c);
  }
  for (const auto& [id, branches] : by_if) {
    int most = 0;
    for (const auto& [b, n] : branches) most = std::max(most, n);
    total += most;
  }
  return total;
}

}  // namespace

void check_withcolumn_in_loop(SourceContext& ctx) {
  const auto& m = ctx.model();
  auto reported = [&](const pyspark::Chain& chain) {
    // `if c == "name":` around it: one turn at most.
    return chain.in_loop && !chain.assigned_to.empty() && chain.assigned_to == chain.root && !chain.root_is_call &&
           carried_across_turns(m, chain) && !in_test_code(m, chain) && !chain.once_per_loop && withcolumns(chain) > 0;
  };
  // The statements of each loop that grow one DataFrame, for the projections a turn adds.
  std::map<std::pair<int, std::string_view>, Group> groups;
  for (const auto& chain : m.chains)
    if (reported(chain)) groups[{chain.loop, chain.root.view()}].push_back(&chain);
  for (const auto& chain : m.chains) {
    if (!reported(chain)) continue;
    const pyspark::Loop* loop = chain.loop >= 1 && chain.loop <= static_cast<int>(m.loops.size())
                                    ? &m.loops[static_cast<std::size_t>(chain.loop - 1)]
                                    : nullptr;
    // A loop over a collection written out in the code turns a known number of times: with the
    // withColumn calls of one turn, the projections it adds. A handful is negligible.
    const Group& group = groups[{chain.loop, chain.root.view()}];
    const int calls = per_turn(group);
    const long long projections =
        loop != nullptr && loop->known_turns >= 0 ? static_cast<long long>(loop->known_turns) * calls : -1;
    if (projections >= 0 && projections <= kFewProjections) continue;
    // Calls under an `if` on the loop variable (`if c not in df.columns:`) run on the turns it picks:
    // the count is at most that many. A warning needs the calls every turn makes to be enough.
    Group every_turn;
    for (const auto* c : group)
      if (!c->some_turns) every_turn.push_back(c);
    const long long certain =
        every_turn.empty() || projections < 0 ? 0 : static_cast<long long>(loop->known_turns) * per_turn(every_turn);
    const bool per_column = loop != nullptr && loop->over_columns;
    const bool known = projections > kFewProjections;  // the code shows more than a handful
    const bool many = certain > kManyProjections;      // and enough to cost, on every turn
    const std::string root(chain.root);
    for (const auto& l : chain.links) {
      if ((l.name != "withColumn" && l.name != "withColumnRenamed") || !l.spark_signature()) continue;
      std::string how_many;
      if (known) {
        how_many = calls == 1 ? " (" + std::to_string(loop->known_turns) + " turns)"
                              : " (" + std::to_string(loop->known_turns) + " turns of " + std::to_string(calls) +
                                    " calls: " + std::to_string(projections) + " projections)";
        if (certain < projections)
          how_many.insert(how_many.size() - 1, ", at most: an `if` on the loop variable picks the turns");
      } else {
        how_many = per_column ? " (a turn per column of a DataFrame: as many as it has)"
                              : " (the code does not show how many turns)";
      }
      auto& d = ctx.report(chain.cell, l.name_pos,
                           "`" + std::string(l.name) + "` in a loop adds one projection per turn to `" + root +
                               "`'s plan" + how_many + "; build the columns in one call");
      if (!many) d.severity = Severity::info;
      ctx.attach_fix(d, "Use withColumns or one select", Applicability::display_only,
                     root + " = " + root + ".withColumns({name: expression for name in ...})");
      break;
    }
  }
}

}  // namespace planlint::rules
