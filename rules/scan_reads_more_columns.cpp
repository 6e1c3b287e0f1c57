// scan-reads-more-columns: a scan reads more columns after the change (`planlint diff`).
#include <set>
#include <string>
#include <vector>

#include "lint/diff_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kScanReadsMoreColumns{"SPK706",
                                            "scan-reads-more-columns",
                                            "A scan reads more columns after the change",
                                            Severity::warning,
                                            FixAvailability::never,
                                            Impact::medium,
                                            R"md(## What it does
Reports a table or file scan that reads columns in AFTER that the same scan did not read in BEFORE
(`planlint diff`): the columns listed in its output (and `ReadSchema`).

## Why is this bad?
Columnar formats (Parquet, ORC, Delta) read only the columns a query needs; every extra column is
more bytes read from storage and carried through the plan. The usual cause is a `select("*")`,
a dropped `select`, or a new column that is used once and could be computed later.

## Example
Before the change:
```plan
== Physical Plan ==
*(1) Project [k#1, amount#3]
+- *(1) FileScan parquet default.orders[k#1,amount#3] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
```
After the change (reported):
```plan
== Physical Plan ==
*(1) Project [k#1, amount#3]
+- *(1) FileScan parquet default.orders[k#1,amount#3,note#4,created#5] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double,note:string,created:timestamp>
```
Use instead (the scan reads the same columns):
```plan
== Physical Plan ==
*(1) Project [k#21, amount#23]
+- *(1) FileScan parquet default.orders[k#21,amount#23] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex[file:/data/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<k:int,amount:double>
```

## Fix safety
Display-only: select only the columns the job needs before the first wide step (`df.select(...)`).

## Options
None. Like every rule: `--ignore scan-reads-more-columns` drops it, `--warn scan-reads-more-columns` reports it without failing the diff,
`--fail-on` chooses which severities fail it (`planlint diff` fails on warnings by default).
)md"};

namespace {

// The columns a scan reads from its files: its output, less the partition columns, which come from
// directory names (ReadSchema lists only file columns; a cut ReadSchema is not used).
std::set<std::string> read_columns(const plan::ScanInfo& s) {
  std::set<std::string> out;
  for (const auto& r : s.output) out.insert(r.name);
  std::string_view schema = s.read_schema;
  if (schema.rfind("struct<", 0) != 0 || schema.back() != '>' || schema.find("...") != std::string_view::npos)
    return out;
  std::set<std::string> in_files;
  int depth = 0;
  std::size_t start = 7;
  for (std::size_t i = 7; i < schema.size(); ++i) {
    char c = schema[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    bool end = (c == ',' && depth == 0) || i + 1 == schema.size();
    if (!end) continue;
    std::string_view field = schema.substr(start, i - start);
    in_files.insert(std::string(field.substr(0, field.find(':'))));
    start = i + 1;
  }
  std::set<std::string> files_only;
  for (const auto& name : out)
    if (in_files.count(name) > 0) files_only.insert(name);
  return files_only.empty() ? out : files_only;
}

}  // namespace

void check_scan_reads_more_columns(DiffContext& ctx) {
  for (const auto& [b, a] : ctx.diff().matched) {
    const auto* sb = b->as<plan::ScanInfo>();
    const auto* sa = a->as<plan::ScanInfo>();
    if (sb == nullptr || sa == nullptr || sb->output.empty()) continue;
    std::set<std::string> had = read_columns(*sb);
    std::vector<std::string> more;
    for (const auto& name : read_columns(*sa))
      if (had.count(name) == 0) more.push_back(name);
    if (more.empty()) continue;
    std::string list;
    for (const auto& m : more) list += (list.empty() ? "" : ", ") + m;
    ctx.report(*a, b,
               "the scan of " + (sa->table.empty() ? sa->format : sa->table) + " reads " + std::to_string(more.size()) +
                   (more.size() == 1 ? " more column: " : " more columns: ") + list + " (" +
                   std::to_string(read_columns(*sa).size()) + " in all, " + std::to_string(had.size()) + " before)",
               "Read only the columns the job needs", "Select the columns you use before the first wide step.");
  }
}

}  // namespace planlint::rules
