// broadcast-disabled: spark.sql.autoBroadcastJoinThreshold set to -1.
#include <algorithm>

#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kBroadcastDisabled{"SPK303",
                                         "broadcast-disabled",
                                         "Automatic broadcast joins are turned off",
                                         Severity::info,
                                         FixAvailability::never,
                                         Impact::medium,
                                         R"md(## What it does
Finds `spark.sql.autoBroadcastJoinThreshold` set to `-1` (or any negative number) with
`spark.conf.set`, `SparkSession.builder.config` (also `config(map={...})`), `SparkConf().set` /
`setAll([...])` (also on a name bound to `SparkConf()`), `sqlContext.setConf` or SQL `SET` (in
`spark.sql(...)`, `%sql` cells and Databricks `%scala` cells), with the key and value written
literally or held in module-level constants. An `info`: the setting costs only joins with a side
small enough to broadcast, and source code does not show sizes (a join of a side that is small by
construction is reported where it happens, by missing-broadcast, and a plan or event log shows the
sort-merge joins it causes). A file that joins nothing (no `.join(...)`, no `JOIN` in its SQL) says
so: the setting costs the joins of whatever runs in that session later.

Not reported where it costs nothing: test code (a test's session on fixtures), a session on a
local master (small data on one machine, as for aqe-disabled), a file whose every join is of rows
few by construction on both sides (`spark.range(100)`, literal rows), a notebook that joins nothing
(its session runs nothing else), and a threshold set back to a size further down the same function
(a benchmark's "before", a plan printed without broadcasts).

## Why is this bad?
With the threshold at -1 Spark never broadcasts a small table on its own: every join with a lookup
table becomes a sort-merge join that shuffles both sides. The setting is often left behind from
debugging an out-of-memory broadcast.

## Example (PySpark)
```python
spark.conf.set("spark.sql.autoBroadcastJoinThreshold", -1)
```
Use instead:
```python
spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "10MB")
```

## Fix safety
Unsafe (with `--unsafe-fixes`) when the setting is a `spark.conf.set(...)` statement of its own: the
fix removes it, so Spark broadcasts tables under the default 10 MB again, which can bring back the
memory pressure the setting was added for. Elsewhere (and in a file that joins nothing)
display-only: remove the setting, or broadcast
specific joins with `broadcast(df)` where the size is known.

## Options
None.
)md"};

namespace {

// Whether the file joins anything: a `.join(...)` call, or JOIN in a query or a SQL cell.
// `small` is set when every DataFrame join of the file joins rows few by construction on both sides
// (`spark.range(100)`, literal rows) and no query joins.
bool joins_anything(const pyspark::SourceModel& m, bool& small) {
  small = true;
  bool any = false;
  // A DataFrame's join (on a DataFrame, of a DataFrame, or with `on=` / `how=`), not
  // `", ".join(names)` or `os.path.join(a, b)`.
  for (const auto& c : m.chains)
    for (const auto& l : c.links) {
      if (!l.is_call || l.name != "join" || l.args.empty()) continue;
      const pyspark::Chain* other = l.args[0].value.chain();
      const bool keywords = std::any_of(l.args.begin(), l.args.end(),
                                        [](const pyspark::Arg& a) { return a.keyword == "on" || a.keyword == "how"; });
      if (!c.is_dataframe && (other == nullptr || !other->is_dataframe) && !keywords) continue;
      any = true;
      if (!small) continue;
      const auto pipeline = c.pipeline();
      const auto at = static_cast<std::size_t>(
          std::find_if(pipeline.begin(), pipeline.end(), [&](const pyspark::Step& s) { return s.link == &l; }) -
          pipeline.begin());
      const pyspark::Rows left = pyspark::rows_before(m, pipeline, at).rows;
      const pyspark::Rows right = other != nullptr ? pyspark::rows_of(m, *other).rows : pyspark::Rows::unknown;
      small = pyspark::small_by_construction(left) && pyspark::small_by_construction(right);
    }
  if (any && !small) return true;
  small = small && any;
  // On a comment line (not a Databricks `# MAGIC` line, which holds a SQL cell's text) a word is prose.
  auto comment = [](std::string_view t, std::size_t at) {
    const std::size_t start = t.rfind('\n', at) == std::string_view::npos ? 0 : t.rfind('\n', at) + 1;
    const std::size_t first = t.find_first_not_of(" \t", start);
    return first < at && t[first] == '#' && t.substr(first, 7) != "# MAGIC";
  };
  // A word JOIN (or `join `) after a space or a line break, outside comments: a query that joins.
  auto query_joins = [&](std::string_view t, std::string_view word) {
    for (std::size_t at = t.find(word); at != std::string_view::npos; at = t.find(word, at + 1))
      if (at > 0 && (t[at - 1] == ' ' || t[at - 1] == '\n' || t[at - 1] == '\t') && !comment(t, at)) return true;
    return false;
  };
  for (const auto& cell : m.file->cells)
    if (query_joins(cell.text, "JOIN") || query_joins(cell.text, "join ")) {
      small = false;  // a query's tables: their size is not shown
      return true;
    }
  return any;
}

}  // namespace

void check_broadcast_disabled(SourceContext& ctx) {
  const auto& m = ctx.model();
  auto disabled = [](const pyspark::ConfSetting& s) {
    return s.key == "spark.sql.autoBroadcastJoinThreshold" && s.literal && !s.value.empty() && s.value.front() == '-';
  };
  // The file's joins are read only where it turns broadcasts off (most files do not).
  if (std::none_of(m.settings.begin(), m.settings.end(), disabled)) return;
  bool small = false;
  const bool joins = joins_anything(m, small);
  for (const auto& s : m.settings) {
    if (!disabled(s)) continue;
    // A test's session runs fixtures, a local one small data on one machine: its settings tune
    // nothing that runs in production. Nor do joins of a few rows built on the driver.
    if (in_test_code(m, s.function) || m.local_master || small) continue;
    // A notebook that joins nothing: its session runs nothing the setting changes.
    if (!joins && is_notebook(m)) continue;
    // Set back to a size further down the same function (around an explain(), a benchmark's
    // "before"): a deliberate experiment, not a setting left behind.
    const bool restored = std::any_of(m.settings.begin(), m.settings.end(), [&](const pyspark::ConfSetting& t) {
      return t.key == s.key && (!t.literal || (!t.value.empty() && t.value.front() != '-')) &&
             t.function == s.function &&
             std::make_pair(t.cell, t.pos.start_byte) > std::make_pair(s.cell, s.pos.start_byte);
    });
    if (restored) continue;
    auto& d = ctx.report(s.cell, s.pos,
                         "automatic broadcast joins disabled (autoBroadcastJoinThreshold=" + s.value + ", " + s.via +
                             "): every join shuffles both sides" +
                             (joins ? "" : " (this file joins nothing: what it costs is in the session's later jobs)"));
    Fix& f = ctx.attach_fix(d, "Remove the setting",
                            s.statement && joins ? Applicability::unsafe : Applicability::display_only,
                            "Remove the setting (default 10MB), or broadcast known-small sides with broadcast(df).");
    if (s.statement && joins) SourceContext::add_edit(f, s.cell, s.statement->start_byte, s.statement->end_byte, "");
  }
}

}  // namespace planlint::rules
