// pushdown-blocked: a Filter right above a file scan whose condition on scan columns was not pushed.
#include <algorithm>
#include <array>
#include <optional>
#include <set>

#include "lint/plan_context.hpp"
#include "plan/line_reader.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::PlanNode;

extern const RuleInfo kPushdownBlocked{"SPK401",
                                       "pushdown-blocked",
                                       "A filter on scan columns did not reach the data source",
                                       Severity::warning,
                                       FixAvailability::never,
                                       Impact::high,
                                       R"md(## What it does
Finds a `Filter` directly above a file scan (through codegen and columnar wrappers) with a condition
on the scan's columns that appears neither in the scan's `PushedFilters` nor in its
`PartitionFilters` (column names compared without case, as Spark resolves them). A condition that
relates two columns (`datediff(a, b) > 7`, `a / b > 1.2`) is not reported: a data source filter
compares one column with literals, so it could never be pushed. Runtime filters (dynamic pruning, bloom filters, subqueries) are not reported,
nor the filters Spark adds itself (`isnotnull`, RAPIDS' `gpuisnotnull`, `size(xs, true) > 0` below an
explode).
When Spark cut one of those lists short (a long value ends in `...` and its bracket is never
closed), a condition missing from what is printed may sit after the cut, and is not reported.
Severity follows evidence: a warning when the plan shows the scan reads 128 MiB or more (cost mode
or AQE statistics), nothing when it shows less, an `info` when it shows no size.

## Why is this bad?
Pushed filters let Parquet and ORC skip row groups and files using their min/max statistics, and
partition filters skip whole directories. A predicate that wraps the column in a function, a cast or
a UDF cannot be translated, so every row is read and decoded before being thrown away.

## Example
```plan
== Physical Plan ==
*(1) Filter (isnotnull(day#2) AND (cast(day#2 as string) = 2024-01-01))
+- *(1) ColumnarToRow
   +- FileScan parquet db.events[id#1,day#2] Batched: true, DataFilters: [isnotnull(day#2), (cast(day#2 as string) = 2024-01-01)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/data/events], PartitionFilters: [], PushedFilters: [IsNotNull(day)], ReadSchema: struct<id:int,day:date>
```
Use instead (compare the column with a literal of its own type):
```plan
== Physical Plan ==
*(1) Filter (isnotnull(day#2) AND (day#2 = 2024-01-01))
+- *(1) ColumnarToRow
   +- FileScan parquet db.events[id#1,day#2] Batched: true, DataFilters: [isnotnull(day#2), (day#2 = 2024-01-01)], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/data/events], PartitionFilters: [], PushedFilters: [IsNotNull(day), EqualTo(day,2024-01-01)], ReadSchema: struct<id:int,day:date>
```

## Fix safety
Display-only: write the predicate on the bare column (`F.col("day") == F.lit(date(2024, 1, 1))`),
move casts to the literal side, and replace UDF predicates with built-in expressions.

## Options
None.
)md"};

namespace {

// Whether `word` is in `text` as a whole identifier, ignoring case: Spark resolves column names
// without case by default, and PushedFilters print the source's spelling (`GreaterThan(Salary,3500)`
// for a filter on `salary#12`).
bool contains_word(std::string_view text_in, std::string_view word_in) {
  auto is_id = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  auto lower = [](std::string_view v) {
    std::string out(v);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string text = lower(text_in), word = lower(word_in);
  for (auto pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
    bool left = pos == 0 || !is_id(text[pos - 1]);
    bool right = pos + word.size() >= text.size() || !is_id(text[pos + word.size()]);
    if (left && right) return true;
  }
  return false;
}

bool is_runtime_filter(const std::string& c) {
  static constexpr std::array<std::string_view, 5> kMarkers{"dynamicpruning", "might_contain", "bloom_filter",
                                                            "subquery", "Subquery"};
  for (std::string_view m : kMarkers)
    if (c.find(m) != std::string::npos) return true;
  return false;
}

// The parts of an OR at the top level of a condition (outside parentheses), or the condition itself.
std::vector<std::string> disjuncts(const std::string& c) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i] == '(') ++depth;
    if (c[i] == ')') --depth;
    if (depth == 0 && c.compare(i, 4, " OR ") == 0) {
      out.push_back(c.substr(start, i - start));
      start = i + 4;
    }
  }
  out.push_back(c.substr(start));
  return out;
}

// Whether one pair of parentheses encloses the whole text: `(a = b)`, not `(a) OR (b)`.
bool wrapped(const std::string& t) {
  if (t.size() < 2 || t.front() != '(' || t.back() != ')') return false;
  int depth = 0;
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] == '(') ++depth;
    if (t[i] == ')' && --depth == 0) return false;
  }
  return true;
}

// Whether a condition compares two columns of the row anywhere a data source filter would have to
// (a part of an OR that relates two columns makes the whole OR unpushable: `(a = b) OR isnotnull(a)`).
bool relates_columns(const std::string& c) {
  for (std::string part : disjuncts(c)) {
    // `(a = 1 AND b = 2)` is two pushable comparisons; `(a = b)` is not one.
    while (wrapped(part)) part = part.substr(1, part.size() - 2);
    for (const auto& each : conjuncts(part)) {
      if (each.find(" OR ") != std::string::npos) continue;
      std::set<std::string> names;
      for (const auto& r : plan::scan_attribute_refs(each)) names.insert(r.name);
      if (names.size() >= 2) return true;
    }
  }
  return false;
}

}  // namespace

void check_pushdown_blocked(PlanContext& ctx) {
  for (const PlanNode* f : ctx.physical_nodes()) {
    const auto* fi = f->as<plan::FilterInfo>();
    if (fi == nullptr || f->children.size() != 1) continue;
    const PlanNode* scan = descend(f->children.front(), is_wrapper);
    const auto* si = scan == nullptr ? nullptr : scan->as<plan::ScanInfo>();
    if (si == nullptr || !si->prints_pushed_filters || si->output.empty()) continue;
    std::vector<std::string> blocked;
    for (const auto& c : conjuncts(fi->condition)) {
      // RAPIDS prints Spark's functions with a `gpu` prefix (`gpuisnotnull`).
      const std::string_view bare = std::string_view(c).substr(c.rfind("gpu", 0) == 0 ? 3 : 0);
      if (bare.rfind("isnotnull(", 0) == 0 || is_runtime_filter(c)) continue;
      // `size(xs, true) > 0`: the filter Spark adds itself below an explode (InferFiltersFromGenerate).
      if (bare.rfind("size(", 0) == 0 && c.size() > 11 && c.compare(c.size() - 11, 11, ", true) > 0") == 0) continue;
      auto refs = plan::scan_attribute_refs(c);
      if (refs.empty()) continue;
      bool on_scan = std::all_of(refs.begin(), refs.end(), [&](const plan::AttributeRef& r) {
        return std::any_of(si->output.begin(), si->output.end(), [&](const auto& o) { return o.same_attribute(r); });
      });
      if (!on_scan) continue;
      std::set<std::string> names;
      for (const auto& r : refs) names.insert(r.name);
      // Two columns in one condition that is not an OR of its own (`datediff(a, b) > 7`, `a / b > 1.2`):
      // a data source filter compares one column with literals, so nothing could have been pushed.
      if (names.size() >= 2 && c.find(" OR ") == std::string::npos) continue;
      if (names.size() >= 2 && disjuncts(c).size() > 1 && relates_columns(c)) continue;
      auto covers = [&](const std::string& entry) {
        if (entry.rfind("IsNotNull(", 0) == 0) return false;
        return std::all_of(names.begin(), names.end(), [&](const std::string& nm) { return contains_word(entry, nm); });
      };
      bool reached = std::any_of(si->pushed_filters.begin(), si->pushed_filters.end(), covers) ||
                     std::any_of(si->partition_filters.begin(), si->partition_filters.end(), covers);
      // A list Spark cut short may hold it after the cut: only what the plan shows is reported.
      if (!reached && !si->pushed_cut && !si->partition_cut) blocked.push_back(c);
    }
    if (blocked.empty()) continue;
    // Severity follows evidence: what reading every row costs is the size of the scan. A plan that
    // shows it small (cost mode, AQE statistics) loses nothing worth a finding; one that does not
    // show it gets advice.
    std::optional<double> bytes = scan->stats.size_in_bytes;
    if (!bytes) bytes = f->stats.size_in_bytes;
    if (bytes && *bytes < kWorthAFinding) continue;
    std::string list;
    for (const auto& b : blocked) list += (list.empty() ? "`" : ", `") + b + "`";
    auto& d =
        ctx.report(*f,
                   list + " on columns of the " + si->format + " scan" + (si->table.empty() ? "" : " of " + si->table) +
                       " did not reach PushedFilters: every row is read before it is filtered",
                   "Write the predicate so it can be pushed",
                   "Compare the bare column with a literal of the column's type (move casts and functions "
                   "to the literal side), and replace UDFs in filters with built-in expressions.");
    d.related.push_back({ctx.location_of(*scan), "the scan"});
    if (!bytes) advise_unsized(d, "how much the scan reads");
  }
}

}  // namespace planlint::rules
