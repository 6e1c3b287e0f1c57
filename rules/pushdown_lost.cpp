// pushdown-lost: a scan loses pushed or partition filters after the change (`planlint diff`).
#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lint/diff_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kPushdownLost{"SPK707",
                                    "pushdown-lost",
                                    "A scan loses pushed or partition filters after the change",
                                    Severity::warning,
                                    FixAvailability::never,
                                    Impact::high,
                                    R"md(## What it does
Reports a scan that pushed a filter to the data source (`PushedFilters`) or pruned partitions
(`PartitionFilters`) in BEFORE and no longer does in AFTER (`planlint diff`). Filters are compared
without expression ids. When AFTER prints the list cut short (`[a, b, ...` without its closing
bracket: Spark abbreviates long values), a filter that may sit after the cut is not reported.

## Why is this bad?
A pushed filter lets Parquet and ORC skip row groups by their statistics, and a partition filter skips
whole directories; without them the scan reads everything and filters afterwards. A cast on the
column, a UDF in the condition or a filter moved above a Python step are the usual causes.

## Example
Before the change:
```plan
== Physical Plan ==
*(1) Filter (isnotnull(amount#3) AND (amount#3 > 0.0))
+- *(1) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [isnotnull(amount#3), (amount#3 > 0.0)], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [IsNotNull(amount), GreaterThan(amount,0.0)], ReadSchema: struct<k:int,amount:double>
```
After the change (reported):
```plan
== Physical Plan ==
*(1) Filter (isnotnull(amount#3) AND (cast(amount#3 as string) > 0))
+- *(1) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [isnotnull(amount#3), (cast(amount#3 as string) > 0)], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [IsNotNull(amount)], ReadSchema: struct<k:int,amount:double>
```
Use instead (the filter still reaches the scan):
```plan
== Physical Plan ==
*(1) Filter (isnotnull(amount#13) AND (amount#13 > 0.0))
+- *(1) FileScan parquet default.orders[k#11,amount#13] Batched: true, DataFilters: [isnotnull(amount#13), (amount#13 > 0.0)], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [IsNotNull(amount), GreaterThan(amount,0.0)], ReadSchema: struct<k:int,amount:double>
```

## Fix safety
Display-only: compare the column with a literal of its own type (no cast on the column side), keep
UDFs out of the condition, and filter before Python steps.

## Options
None. Like every rule: `--ignore pushdown-lost` drops it, `--warn pushdown-lost` reports it without failing the diff,
`--fail-on` chooses which severities fail it (`planlint diff` fails on warnings by default).
)md"};

namespace {

// The column a data-source filter is on: "GreaterThan(amount,0.0)" -> "amount".
std::string filter_column(std::string_view f) {
  auto open = f.find('(');
  if (open == std::string_view::npos) return {};
  auto end = f.find_first_of(",)", open + 1);
  return std::string(f.substr(open + 1, end == std::string_view::npos ? std::string_view::npos : end - open - 1));
}

// Whether a filter names the column as a whole word (`col#4`, `(col = 1)`).
bool mentions_column(const std::vector<std::string>& filters, const std::string& column) {
  if (column.empty()) return false;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (const auto& f : filters)
    for (auto at = f.find(column); at != std::string::npos; at = f.find(column, at + 1)) {
      bool starts = at == 0 || !word(f[at - 1]);
      bool ends = at + column.size() >= f.size() || !word(f[at + column.size()]);
      if (starts && ends) return true;
    }
  return false;
}

}  // namespace

void check_pushdown_lost(DiffContext& ctx) {
  for (const auto& [b, a] : ctx.diff().matched) {
    const auto* sb = b->as<plan::ScanInfo>();
    const auto* sa = a->as<plan::ScanInfo>();
    if (sb == nullptr || sa == nullptr) continue;
    auto lost = [](const std::vector<std::string>& before, const std::vector<std::string>& after) {
      std::set<std::string> kept;
      for (const auto& f : after) kept.insert(plan::without_run_ids(f));
      std::string out;
      for (const auto& f : before)
        if (std::string g = plan::without_run_ids(f); kept.count(g) == 0) out += (out.empty() ? "" : ", ") + g;
      return out;
    };
    // A pushed filter that became a partition filter (the table is now partitioned by it) is not lost.
    std::vector<std::string> kept_pushed = sa->pushed_filters;
    for (const auto& f : sb->pushed_filters)
      if (mentions_column(sa->partition_filters, filter_column(f))) kept_pushed.push_back(f);
    // A list the after plan prints cut short ("...") may hold the filter after the cut: not lost.
    std::string pushed =
        sa->prints_pushed_filters && !sa->pushed_cut ? lost(sb->pushed_filters, kept_pushed) : std::string();
    std::string partitions = sa->partition_cut ? std::string() : lost(sb->partition_filters, sa->partition_filters);
    if (pushed.empty() && partitions.empty()) continue;
    std::string what = !pushed.empty() ? "pushed filters [" + pushed + "]" : std::string();
    if (!partitions.empty())
      what += (what.empty() ? "" : " and ") + std::string("partition filters [") + partitions + "]";
    ctx.report(*a, b,
               "the scan of " + (sa->table.empty() ? sa->format : sa->table) + " no longer gets " + what +
                   ": it reads more and filters afterwards",
               "Let the filter reach the scan",
               "Compare the column itself with a literal of its type (no cast or UDF on the column), and filter "
               "before Python steps.");
  }
}

}  // namespace planlint::rules
