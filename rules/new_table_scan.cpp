// new-table-scan: a change makes the plan read a table it did not read before (`planlint diff`).
#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lint/diff_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::OpKind;
using plan::PlanNode;

extern const RuleInfo kNewTableScan{"SPK708",
                                    "new-table-scan",
                                    "A change makes the plan read a table it did not read before",
                                    Severity::info,
                                    FixAvailability::never,
                                    Impact::medium,
                                    R"md(## What it does
Reports each table or file scan in AFTER of a table (or location) that no scan in BEFORE read
(`planlint diff`). A table of the same name under another database or catalog, read in the same
place of the query (the same operators above it), is the same table renamed, not a new input. Information: a new table is often the point of the change, but a reviewer should
see it, and its size decides the join strategy above it.

## Why is this bad?
A new input is new I/O, and the join that brings it in decides whether it is broadcast or shuffled.
An unintended one (a lookup table joined twice, a wrong environment's path) costs a scan of it on
every run.

## Example
Before the change:
```plan
== Physical Plan ==
*(2) BroadcastHashJoin [k#1], [k#2], Inner, BuildRight, false
:- *(2) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, false]),false), [plan_id=9]
   +- *(1) FileScan parquet default.customers[k#2] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/customers], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int>
```
After the change (reported):
```plan
== Physical Plan ==
*(3) BroadcastHashJoin [k#1], [region_id#7], Inner, BuildRight, false
:- *(2) BroadcastHashJoin [k#1], [k#2], Inner, BuildRight, false
:  :- *(2) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
:  +- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, false]),false), [plan_id=9]
:     +- *(1) FileScan parquet default.customers[k#2] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/customers], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int>
+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, false]),false), [plan_id=14]
   +- *(2) FileScan parquet default.regions[region_id#7,name#8] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/regions], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<region_id:int,name:string>
```
Use instead (the change reads the same tables):
```plan
== Physical Plan ==
*(2) BroadcastHashJoin [k#41], [k#42], Inner, BuildRight, false
:- *(2) FileScan parquet default.orders[k#41,amount#43] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
+- BroadcastExchange HashedRelationBroadcastMode(List(input[0, int, false]),false), [plan_id=9]
   +- *(1) FileScan parquet default.customers[k#42] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/customers], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int>
```

## Fix safety
Display-only: nothing to fix when the table is intended; check its size and that its join is broadcast
when it is small.

## Options
None. Like every rule: `--ignore new-table-scan` drops it, `--warn new-table-scan` reports it without failing the diff,
`--fail-on` chooses which severities fail it (`planlint diff` fails on warnings by default).
)md"};

namespace {

// The table's own name, without its database or catalog ("prod.sales.orders" -> "orders").
std::string_view bare_table(const PlanNode& n) {
  const auto* s = n.as<plan::ScanInfo>();
  if (s == nullptr) return {};
  std::string_view t = s->table;
  return t.substr(t.rfind('.') == std::string_view::npos ? 0 : t.rfind('.') + 1);
}

// Where an operator sits in its plan: the kinds of the operators above it, up to the root.
std::string place_of(const PlanNode& n) {
  std::string out;
  for (const PlanNode* p = n.parent; p != nullptr; p = p->parent) {
    out += plan::to_string(p->kind);
    out += '/';
  }
  return out;
}

}  // namespace

void check_new_table_scan(DiffContext& ctx) {
  std::set<std::string> read;
  for (const auto& [b, a] : ctx.diff().matched)
    if (b->kind == OpKind::file_scan) read.insert(plan::scan_identity(*b));
  std::vector<const PlanNode*> gone;
  for (const PlanNode* n : ctx.diff().removed)
    if (n->kind == OpKind::file_scan) {
      read.insert(plan::scan_identity(*n));
      gone.push_back(n);
    }
  for (const PlanNode* n : ctx.diff().added) {
    const auto* s = n->as<plan::ScanInfo>();
    if (s == nullptr || read.count(plan::scan_identity(*n)) > 0) continue;
    // The same table under another database or catalog name, in the same place of the query: a
    // renamed schema (dev and prod catalogs), not a new input.
    auto same = std::find_if(gone.begin(), gone.end(), [&](const PlanNode* r) {
      return r != nullptr && !bare_table(*n).empty() && bare_table(*r) == bare_table(*n) &&
             place_of(*r) == place_of(*n);
    });
    if (same != gone.end()) {
      *same = nullptr;  // each table read before stands for one read after
      continue;
    }
    ctx.report(*n, nullptr,
               "the change reads a new input: " + (s->table.empty() ? plan::scan_location(s->location) : s->table) +
                   (s->format.empty() ? std::string() : " (" + s->format + ")"));
  }
}

}  // namespace planlint::rules
