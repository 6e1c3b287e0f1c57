// cache-without-unpersist: a DataFrame is cached and never unpersisted.
#include <set>

#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kCacheWithoutUnpersist{"SPK502",
                                             "cache-without-unpersist",
                                             "A cached DataFrame is never unpersisted",
                                             Severity::info,
                                             FixAvailability::never,
                                             Impact::low,
                                             R"md(## What it does
Finds `.cache()` / `.persist(...)` on a DataFrame bound to a name that is never passed to
`.unpersist()` in the same file or notebook (and no `spark.catalog.clearCache()` either).
Small data (a `limit(n)`, literal rows, driver-side data) is not reported; `x = (df.cache())` counts
as binding `x`.

## Why is this bad?
Cached blocks stay in executor memory and disk until the application ends, crowding out execution
memory for later stages and causing spills, or evicting caches that matter more. In long notebooks
and shared clusters this adds up.

## Example (PySpark)
```python
users = spark.table("users").cache()
users.count()
```
Use instead:
```python
users = spark.table("users").cache()
users.count()
users.unpersist()
```

## Fix safety
Display-only: call `name.unpersist()` once the DataFrame is no longer needed.

## Options
None.
)md"};

void check_cache_without_unpersist(SourceContext& ctx) {
  const auto& m = ctx.model();
  std::set<std::string> released;
  bool clear_all = false;
  for (const auto& c : m.chains) {
    for (const auto& l : c.links) {
      if (l.name == "unpersist" && !c.root_is_call) released.emplace(c.root);
      if (l.name == "clearCache") clear_all = true;
    }
  }
  if (clear_all) return;
  for (const auto& c : m.chains) {
    if (c.links.empty() || (c.root_is_call && c.assigned_to.empty())) continue;
    const pyspark::Link& last = c.links.back();
    if (last.name != "cache" && last.name != "persist") continue;
    if (c.root_is_call && c.is_rdd && !c.rdd_of_dataframe) continue;
    // A few literal rows or a limit(5) hold next to no executor memory.
    auto pipeline = c.pipeline();
    if (pyspark::small_by_construction(pyspark::rows_before(m, pipeline, pipeline.size() - 1).rows)) continue;
    std::string name = !c.assigned_to.empty() ? std::string(c.assigned_to)
                                              : (c.links.size() == 1 ? std::string(c.root) : std::string());
    if (name.empty() || released.count(name) != 0) continue;
    auto& d = ctx.report(c.cell, last.name_pos,
                         "`" + name +
                             "` is cached and never unpersisted: its blocks hold executor memory until the "
                             "application ends");
    ctx.attach_fix(d, "Unpersist when done", Applicability::display_only, name + ".unpersist()");
  }
}

}  // namespace planlint::rules
