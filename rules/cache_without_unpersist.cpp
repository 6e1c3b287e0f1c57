// cache-without-unpersist: a DataFrame is cached and never unpersisted.
#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "lint/source_context.hpp"
#include "util/name_set.hpp"

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
`.unpersist()` in the same file or notebook (nor released by a `spark.catalog.clearCache()` or SQL
`CLEAR CACHE` after it; one in a function releases the caches made in functions, and those made at
module level before a module-level call of that function). Released
also counts: a call of a helper named for it (`unpersist_if_exists(df)`), and a DataFrame added to a
collection (`self.cached.append(df)`, `.extend([a, b])`) that a loop releases (`for d in self.cached:
d.unpersist()`). A `persist(...)` whose argument is not a `StorageLevel` (`persist(level=...)`,
`persist(PersistenceLevel.READER)`) is another library's method and is not read as a cache.
Small data (a `limit(n)`, literal rows, driver-side data) is not reported; `x = (df.cache())` counts
as binding `x`, and `x = df.cache()` is released by `df.unpersist()` too (cache() returns the
DataFrame it is called on).

Nor is a cache that nothing computes reported: Spark caches lazily, and when no
action, call, view, return or other use reads the cached DataFrame or what is made from it (its only
use left commented out, `# df.display()`), the cache holds nothing. Spark caches a plan, not a name:
an action on anything made from the cached value, before or after the cache, fills it.

Nor is a cache that costs nothing later: nothing runs after the cached DataFrame's last use
before the application ends. An action on a DataFrame made from the cached one (a join with it, a
union of its joins) is a use of the cache too; a call of a function of the file that runs an action is
work. The application ends at a stop of the session or context (`spark.stop()`, `sc.stop()`, or any
name the file uses as one: `ctx.stop()` after `SQLContext(ctx)`), at the end of a script (a `.py`
file's module level), at the return of a framework's entry point (a Foundry transform, a dbt Python
model, a Delta Live Tables table: the build ends there; writing its outputs, `output.write_dataframe(df)`,
is not other work), and, for a cache in a function of a script, where the function returns when
every call of it in the file (none in a loop) is followed by nothing either. Also not reported: a function that returns the cached DataFrame,
or an instance of a class made with it (`return Graph(vertices, edges)`), and is not called in the file
(its callers, elsewhere, own the cache; a method named like a DataFrame's, `cache`, is called by
`self.cache()` only), also when the function caches a name as a statement and then returns it
(`df.cache().count()` then `return df`); a framework's entry point (a Foundry
transform, a dbt Python model `model(dbt, session)`, a Delta Live Tables table) that returns a
DataFrame made from the cache, which the framework computes once before the build ends, unless a later
cache in it is made from this one (this one could go once that one is filled); test code (a fixture's
rows); and a `cache()` of what is cached already (reported where it was made). `name.cache()` as a
statement (also `name.cache().count()`, the materialising idiom) caches what `name` holds: what reads `name` afterwards reads the cache. A cache made in
a loop (each turn's stays while the next turns run) and a notebook's that does not stop its session
(the session outlives the notebook) are reported.

## Why is this bad?
Cached blocks stay in executor memory and disk until the application ends, crowding out execution
memory for later stages and causing spills, or evicting caches that matter more. In long notebooks
and shared clusters this adds up.

## Example (PySpark)
```python
users = spark.table("users").cache()
users.count()
spark.table("events").join(users, "user_id").write.saveAsTable("user_events")
spark.table("sales").groupBy("day").count().write.saveAsTable("daily_sales")
```
Use instead:
```python
users = spark.table("users").cache()
users.count()
spark.table("events").join(users, "user_id").write.saveAsTable("user_events")
users.unpersist()
spark.table("sales").groupBy("day").count().write.saveAsTable("daily_sales")
```

## Fix safety
Display-only: call `name.unpersist()` once the DataFrame is no longer needed.

## Options
None.
)md"};

namespace {

bool is_cache(const pyspark::Link& l) { return l.name == "cache" || l.name == "persist"; }

// An action: what makes Spark compute (and what a cache's memory can crowd out).
bool runs_action(const pyspark::Chain& c) {
  static constexpr std::string_view kSavers[] = {"save", "saveAsTable", "insertInto", "csv",   "parquet",
                                                 "json", "orc",         "text",       "table", "start"};
  if (c.root_is_call && (c.root == "display" || c.root.view().ends_with(".display"))) return true;
  bool writes = false;
  for (const auto& l : c.links) {
    if (!l.is_call && (l.name == "write" || l.name == "writeStream" || l.name == "writeTo")) writes = true;
    if (!l.is_call) continue;
    const std::string_view n = l.name;
    if (n == "display" || n == "count" || n == "collect" || n == "toPandas" || n == "show" || n == "first" ||
        n == "take" || n == "head" || n == "foreach" || n == "foreachPartition" || n == "toLocalIterator")
      return true;
    if (writes && std::find(std::begin(kSavers), std::end(kSavers), n) != std::end(kSavers)) return true;
  }
  return false;
}

// The last statement of `function` (module level: "") that uses `name`: as a chain's start or as an
// argument of a call.
int last_use(const pyspark::SourceModel& m, std::string_view function, std::string_view name) {
  int last = -1;
  auto mentions = [&](const pyspark::Arg& a) {
    const pyspark::Chain* ac = a.value.chain();
    return a.value.text() == name || (ac != nullptr && !ac->root_is_call && ac->root == name);
  };
  for (const auto& c : m.chains) {
    if (c.function != function) continue;
    bool used = !c.root_is_call && c.root == name;
    for (const auto& a : c.root_args) used = used || mentions(a);
    for (const auto& l : c.links)
      for (const auto& a : l.args) used = used || mentions(a);
    if (used) last = std::max(last, c.statement);
  }
  return last;
}

// Whether `c` calls a function of this file (`name(...)`, `self.name(...)`): the function, or nullptr.
std::string_view file_function_called(const pyspark::SourceModel& m, const pyspark::Chain& c) {
  if (!c.root_is_call) return {};
  const std::string_view root = c.root.view();
  if (m.function(root) != nullptr) return root;
  const std::size_t dot = root.rfind('.');
  if (dot == std::string_view::npos) return {};
  const std::string_view bare = root.substr(dot + 1);
  for (const auto& [name, info] : m.functions)
    if (name == bare || (name.size() > bare.size() && std::string_view(name).ends_with(bare) &&
                         name[name.size() - bare.size() - 1] == '.'))
      return name;
  return {};
}

// What the file tells about the end of its application, made for its first cache (most files have none).
struct Ending {
  std::set<std::string, std::less<>> sessions;  // session_names()
  std::set<std::string, std::less<>> working;   // functions of the file that run an action themselves
  std::vector<const pyspark::Chain*> work;      // chains that make Spark compute: actions and calls of `working`
  // Calls of functions of the file: the calling chain and the function (file_function_called).
  std::vector<std::pair<const pyspark::Chain*, std::string_view>> calls;
};

// Whether the lineage of `c` reads `cached`: through the names it starts from, the DataFrames of its
// arguments (a join's other side, a union's) and theirs.
// Not through `avoid` (what is made from `avoid` reads it, not `cached`).
bool reads_cache(const pyspark::Chain* c, const pyspark::Chain* cached, std::set<const pyspark::Chain*>& seen,
                 const pyspark::Chain* avoid = nullptr) {
  if (c == nullptr || c == avoid || !seen.insert(c).second || seen.size() > 4096) return false;
  if (c == cached) return true;
  if (reads_cache(c->bound, cached, seen, avoid)) return true;
  for (const auto& a : c->root_args)
    if (reads_cache(a.value.chain(), cached, seen, avoid)) return true;
  for (const auto& l : c->links)
    for (const auto& a : l.args)
      if (reads_cache(a.value.chain(), cached, seen, avoid)) return true;
  return false;
}

// The text of its line before byte `at`.
std::string_view line_before(std::string_view text, std::size_t at) {
  at = std::min(at, text.size());
  const std::size_t line = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  const std::size_t start = line == std::string_view::npos ? 0 : line + 1;
  return text.substr(start, at - start);
}
// A line that hands what follows to the caller: `return ...`, `yield ...`.
bool hands_back(std::string_view before) {
  return before.find("return") != std::string_view::npos || before.find("yield") != std::string_view::npos;
}

// Whether the DataFrame that `name` holds from chain `c` on may be computed: a later mention of the
// name (outside comments, in the rest of the file, or of the function around `c`) that is not a
// transformation of it bound to another name that is itself never computed. Spark caches lazily: a
// cache that nothing computes holds nothing (a display left commented out).
bool may_compute(const pyspark::SourceModel& m, const pyspark::Chain& c, std::string_view name, int depth = 0) {
  // Computed right there (`df.cache().count()`), or in a loop, whose next turn reads what comes before.
  if (depth > 6 || name.empty() || name.find('.') != std::string_view::npos || runs_action(c) || c.in_loop) return true;
  // Spark caches a plan, whatever name holds it: a cache of a named value (`x = df.cache()`,
  // `df.cache()`) is filled by any later action whose plan holds that value, also one made from it
  // before the cache (`agg = df.groupBy(...)`, `df.cache()`, `agg.display()`).
  if (depth == 0 && c.bound != nullptr)
    for (const auto& d : m.chains) {
      std::set<const pyspark::Chain*> seen;
      if (&d == &c || &d == c.bound || !reads_cache(&d, c.bound, seen)) continue;
      const bool nothing = d.assigned_to.empty() && std::all_of(d.links.begin(), d.links.end(), [](const auto& l) {
                             return l.is_call && (is_cache(l) || l.name == "unpersist");
                           });
      if (!nothing || (d.links.empty() && !d.whole_statement)) return true;
    }
  // `return df.cache()`: handed to the caller
  if (hands_back(line_before(m.cell(c.cell).text, c.pos.start_byte))) return true;
  std::size_t until = std::string_view::npos;
  if (!c.function.empty()) {
    const pyspark::FunctionInfo* f = m.function(c.function);
    if (f != nullptr)
      for (const pyspark::Chain* r : f->returns) {  // what the function returns is made from it
        std::set<const pyspark::Chain*> seen;
        if (reads_cache(r, &c, seen)) return true;
      }
    const std::string_view text = m.cell(c.cell).text;
    if (f == nullptr || f->body.size() >= std::size_t{16} * 1024 || f->body.data() < text.data() ||
        f->body.data() + f->body.size() > text.data() + text.size())
      return true;
    until = static_cast<std::size_t>(f->body.data() + f->body.size() - text.data());
  }
  auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_'; };
  bool mentioned = false;  // a module-level name never mentioned again may be what another module or
                           // notebook (`%run` of this one) imports: its users are elsewhere
  for (const auto& cell : m.file->cells) {
    if (cell.number < c.cell || (!c.function.empty() && cell.number != c.cell)) continue;
    if (cell.language != pyspark::CellLanguage::python) continue;
    const std::string_view text = cell.text;
    const std::size_t end = std::min(until, text.size());
    for (std::size_t at = text.find(name, cell.number == c.cell ? c.pos.end_byte : 0); at < end;
         at = text.find(name, at + 1)) {
      const std::size_t after = at + name.size();
      if ((at > 0 && (word(text[at - 1]) || text[at - 1] == '.')) || (after < text.size() && word(text[after])))
        continue;
      const std::string_view before = line_before(text, at);
      mentioned = true;  // (a use commented out is a mention: the file is where it was used)
      if (before.find('#') != std::string_view::npos) continue;  // in a comment
      if (hands_back(before)) return true;                       // handed to the caller
      // `name = ...`: bound again (what is on the right is read where it is mentioned).
      std::size_t k = after;
      while (k < text.size() && text[k] == ' ') ++k;
      if (k + 1 < text.size() && text[k] == '=' && text[k + 1] != '=') continue;
      // A bare `name` as a statement computes nothing (a notebook shows the DataFrame's schema).
      // (Not an item of a list or call going on from the line before: `[a,\n b\n]`.)
      const std::size_t line_start = at - before.size();
      std::size_t prev = line_start == 0 ? std::string_view::npos : line_start - 1;
      while (prev != std::string_view::npos && prev > 0 &&
             std::isspace(static_cast<unsigned char>(text[prev - 1])) != 0)
        --prev;
      const bool continues = prev != std::string_view::npos && prev > 0 &&
                             std::string_view(",([{\\=+-*/&|").find(text[prev - 1]) != std::string_view::npos;
      if (!continues && before.find_first_not_of(" \t") == std::string_view::npos &&
          (k >= text.size() || text[k] == '\n' || text[k] == '#' || text[k] == ';'))
        continue;
      const pyspark::Chain* d = nullptr;
      for (const auto& x : m.chains)
        if (x.cell == cell.number && !x.root_is_call && x.root == name && x.root_expr.pos.start_byte == at) {
          d = &x;
          break;
        }
      if (d == nullptr || runs_action(*d) || !d->is_dataframe || d->links.empty()) return true;
      bool only_caching = true;
      for (const auto& l : d->links) {
        if (!l.is_call || (!is_cache(l) && l.name != "unpersist")) only_caching = false;
        if (l.is_call && (l.name == "createOrReplaceTempView" || l.name == "createTempView" ||
                          l.name == "createOrReplaceGlobalTempView" || l.name == "registerTempTable" ||
                          l.name == "checkpoint" || l.name == "localCheckpoint"))
          return true;
      }
      if (d->assigned_to.empty()) {
        if (only_caching) continue;  // `name.unpersist()`, `name.cache()`: no job
        return true;
      }
      if (d->assigned_to == name) continue;  // `name = name.select(...)`: its later mentions are read here
      if (may_compute(m, *d, d->assigned_to.view(), depth + 1)) return true;
    }
  }
  return !mentioned && c.function.empty();
}

// Whether `function` (module level: "") makes Spark compute after statement `after` and before
// `until`, other than on what reads `cached` (those are uses of the cache: it is needed until then).
bool action_after(const Ending& e, std::string_view function, int after, int until = std::numeric_limits<int>::max(),
                  const pyspark::Chain* cached = nullptr) {
  return std::any_of(e.work.begin(), e.work.end(), [&](const pyspark::Chain* c) {
    if (c->function != function || c->statement <= after || c->statement >= until) return false;
    std::set<const pyspark::Chain*> seen;
    return cached == nullptr || !reads_cache(c, cached, seen);
  });
}

// The names the file uses as a Spark session or context: `spark`, `sc`, a name bound to a session,
// and any name the file calls Spark's entry points on (`ctx.textFile(...)`, `SQLContext(ctx)`).
std::set<std::string, std::less<>> session_names(const pyspark::SourceModel& m) {
  static constexpr std::string_view kEntry[] = {
      "read",        "sql",   "parallelize", "textFile",  "createDataFrame", "range",  "sparkContext",
      "setLogLevel", "table", "readStream",  "addPyFile", "broadcast",       "getConf"};
  static constexpr std::string_view kWrappers[] = {"SQLContext", "HiveContext", "SparkSession", "GlueContext",
                                                   "StreamingContext"};
  std::set<std::string, std::less<>> out{"spark", "sc"};
  for (const auto& c : m.chains) {
    if (!c.root_is_call && c.is_session) out.emplace(c.root.view());
    if (!c.root_is_call && !c.links.empty() && c.links.front().is_call &&
        std::find(std::begin(kEntry), std::end(kEntry), c.links.front().name) != std::end(kEntry))
      out.emplace(c.root.view());
    if (c.root_is_call) {
      const std::string_view root = c.root.view();
      const std::string_view bare = root.substr(root.rfind('.') == std::string_view::npos ? 0 : root.rfind('.') + 1);
      if (std::find(std::begin(kWrappers), std::end(kWrappers), bare) != std::end(kWrappers))
        for (const auto& a : c.root_args)
          if (a.value.kind() == "identifier") out.emplace(a.value.text());
    }
  }
  return out;
}

// The first `spark.stop()` of `function` (module level: "") after statement `after` (the
// application ends there), or -1.
int stop_after(const pyspark::SourceModel& m, const std::set<std::string, std::less<>>& sessions,
               std::string_view function, int after) {
  int first = -1;
  for (const auto& c : m.chains)
    if (c.function == function && c.statement > after && !c.links.empty() && c.links.back().is_call &&
        c.links.back().name == "stop" && !c.root_is_call &&
        (c.links.size() == 1 || (c.links.size() == 2 && c.links.front().name == "sparkContext")) &&
        (sessions.count(c.root.view()) != 0 || (c.bound != nullptr && c.bound->is_session)) &&
        (first < 0 || c.statement < first))
      first = c.statement;
  return first;
}

// Whether nothing makes Spark compute after statement `after` of `function` before the application
// ends: a `spark.stop()` follows with no action between, or (in a script) the module level runs no
// action after it, or the function returns with nothing after and every call of it in the file is
// followed by nothing either.
bool ends_application(const pyspark::SourceModel& m, const Ending& e, std::string_view function, int after,
                      const pyspark::Chain* cached, int depth = 0) {
  // A framework's entry point (a Foundry transform, a dbt Python model, a Delta Live Tables table):
  // the build ends when it returns, and what it does after `after` besides writing its outputs
  // (`output.write_dataframe(df)`, made from what it computed) is work.
  if (const pyspark::FunctionInfo* f = function.empty() ? nullptr : m.function(function);
      f != nullptr && f->framework_entry)
    return std::none_of(e.work.begin(), e.work.end(), [&](const pyspark::Chain* c) {
      if (c->function != function || c->statement <= after) return false;
      const bool output = !c->links.empty() && c->links.back().is_call &&
                          (c->links.back().name == "write_dataframe" || c->links.back().name == "write_pandas");
      std::set<const pyspark::Chain*> seen;
      return !output && (cached == nullptr || !reads_cache(c, cached, seen));
    });
  const int stop = stop_after(m, e.sessions, function, after);
  if (stop >= 0 && !action_after(e, function, after, stop, cached)) return true;
  if (m.file->kind != pyspark::SourceKind::python ||
      action_after(e, function, after, std::numeric_limits<int>::max(), cached))
    return false;
  if (function.empty()) return true;
  if (depth >= 4) return false;
  bool called = false;
  for (const auto& [c, callee] : e.calls) {
    if (callee != function || c->function == function) continue;
    called = true;
    // A call in a loop: the next turns run after it, each with its own cache.
    if (c->in_loop || !ends_application(m, e, c->function.view(), c->statement, nullptr, depth + 1)) return false;
  }
  return called;
}

// Whether a chain of the file calls the function `name` (`name(...)`, `self.name(...)`, `m.name(...)`).
bool called_in_file(const pyspark::SourceModel& m, std::string_view name) {
  const std::size_t dot = name.rfind('.');  // a method is kept as Class.method
  const std::string_view bare = dot == std::string_view::npos ? name : name.substr(dot + 1);
  // A method named like a DataFrame's own (`GraphFrame.cache`): `df.cache()` is not a call of it, only
  // `self.cache()` is (an instance elsewhere is not told apart from a DataFrame).
  static const util::NameSet kDataFrameMethods{"cache", "persist",  "unpersist", "count", "collect",  "show",
                                               "join",  "filter",   "select",    "union", "toPandas", "write",
                                               "limit", "distinct", "groupBy",   "agg",   "orderBy",  "sort"};
  const bool dataframe_name = kDataFrameMethods.contains(bare);
  return std::any_of(m.chains.begin(), m.chains.end(), [&](const pyspark::Chain& c) {
    if (dataframe_name) {
      if (!c.root_is_call && (c.root == "self" || c.root == "cls") && !c.links.empty() && c.links.front().is_call &&
          c.links.front().name == bare)
        return true;  // self.cache(...)
    } else if (std::any_of(c.links.begin(), c.links.end(),
                           [&](const pyspark::Link& l) { return l.is_call && l.name == bare; })) {
      return true;  // self.name(...), obj.name(...)
    }
    if (!c.root_is_call) return false;
    const std::string_view root = c.root.view();
    return root == bare ||
           (root.size() > bare.size() && root.ends_with(bare) && root[root.size() - bare.size() - 1] == '.');
  });
}

// The names (and `self.x` attributes) an expression's text mentions: `[a, b]`, `df`, `self.x`.
std::vector<std::string> names_in(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  auto id = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '.'; };
  while (i < text.size()) {
    if (!id(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && id(text[j])) ++j;
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}
// Whether SQL text holds a `CLEAR CACHE` statement (any case, any spacing).
bool clears_cache(std::string_view sql) {
  std::string flat;
  for (char ch : sql)
    if (std::isspace(static_cast<unsigned char>(ch)) == 0 || (!flat.empty() && flat.back() != ' '))
      flat += std::isspace(static_cast<unsigned char>(ch)) != 0
                  ? ' '
                  : static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return flat.find("CLEAR CACHE") != std::string::npos;
}

// The collection a `for` loop walks, as written (`for df in self.cached:` gives "self.cached"; a
// dict's `.values()` is the dict), read from the loop's line.
std::optional<std::string> loop_collection(const pyspark::SourceModel& m, const pyspark::Loop& loop) {
  std::string_view text = m.cell(loop.cell).text;
  if (loop.pos.start_byte >= text.size()) return std::nullopt;
  std::string_view line = text.substr(loop.pos.start_byte);
  line = line.substr(0, line.find('\n'));
  const std::size_t in = line.find(" in ");
  const std::size_t colon = line.rfind(':');
  if (!line.starts_with("for ") || in == std::string_view::npos || colon == std::string_view::npos || colon < in)
    return std::nullopt;
  std::string_view from = line.substr(in + 4, colon - in - 4);
  while (!from.empty() && from.back() == ' ') from.remove_suffix(1);
  for (std::string_view tail : {".values()", ".items()", ".keys()"})
    if (from.ends_with(tail)) from.remove_suffix(tail.size());
  return from.empty() ? std::nullopt : std::optional<std::string>(from);
}

}  // namespace

void check_cache_without_unpersist(SourceContext& ctx) {
  const auto& m = ctx.model();
  std::set<std::string> released;
  // Where the caches are cleared (`spark.catalog.clearCache()`, `CLEAR CACHE`). One at module level
  // (or in a notebook's cell) releases every cache made before it, none made after; one in a function
  // runs when that function is called, which the file's order does not show: it releases the caches
  // made in functions.
  std::vector<std::pair<int, std::uint32_t>> clears;
  bool cleared_in_function = false;
  std::set<std::string_view, std::less<>> clearing_functions;  // functions of the file that clear it
  // A helper that says it releases its argument (`unpersist_if_exists(df)`, `uncache(df)`).
  auto releasing_call = [](const pyspark::Chain& c) {
    return c.root_is_call && c.links.empty() &&
           (c.root.view().find("unpersist") != std::string_view::npos ||
            c.root.view().find("uncache") != std::string_view::npos);
  };
  // Collections whose every element is released by a loop (`for df in self.cached: df.unpersist()`).
  std::set<std::string, std::less<>> released_collections;
  for (const auto& c : m.chains) {
    for (const auto& l : c.links) {
      if (l.name == "unpersist" && !c.root_is_call) released.emplace(c.root);
      // `spark.sql("CLEAR CACHE")`: the SQL form of clearCache().
      if (l.name == "clearCache" || (l.name == "sql" && !l.args.empty() && clears_cache(l.args[0].value.text()))) {
        if (c.function.empty())
          clears.emplace_back(c.cell, c.pos.start_byte);
        else {
          cleared_in_function = true;
          clearing_functions.emplace(c.function.view());
        }
      }
    }
    if (releasing_call(c))
      for (const auto& a : c.root_args) released.emplace(std::string(a.value.text()));
    const bool releases =
        releasing_call(c) || (!c.root_is_call && !c.links.empty() && c.links.back().name == "unpersist");
    if (releases && c.in_loop && c.loop >= 1 && c.loop <= static_cast<int>(m.loops.size()))
      if (auto from = loop_collection(m, m.loops[static_cast<std::size_t>(c.loop - 1)]))
        released_collections.emplace(*from);
  }
  // Handed to a collection that such a loop releases (`self.cached.append(df)`, `.extend([a, b])`).
  if (!released_collections.empty())
    for (const auto& c : m.chains)
      for (std::size_t i = 0; i < c.links.size(); ++i) {
        const pyspark::Link& l = c.links[i];
        if (!l.is_call || (l.name != "append" && l.name != "extend" && l.name != "add") || l.args.empty()) continue;
        const std::string collection =
            i == 0 ? std::string(c.root_expr.text)
                   : std::string(ctx.cell_text(c.cell).substr(
                         c.links[i - 1].expr_pos.start_byte,
                         c.links[i - 1].expr_pos.end_byte - c.links[i - 1].expr_pos.start_byte));
        if (released_collections.count(collection) == 0) continue;
        for (const auto& name : names_in(l.args[0].value.text())) released.emplace(name);
      }
  // A module-level call of a function of the file that clears the cache (`run()` whose `finally:`
  // calls `spark.catalog.clearCache()`) clears it there.
  if (!clearing_functions.empty())
    for (const auto& c : m.chains)
      if (c.function.empty() && c.root_is_call && clearing_functions.count(c.root.view()) != 0)
        clears.emplace_back(c.cell, c.pos.start_byte);
  // A `%sql CLEAR CACHE` cell of a notebook.
  for (const auto& cell : m.file->cells)
    if (cell.language == pyspark::CellLanguage::sql && clears_cache(cell.text)) clears.emplace_back(cell.number, 0);
  const auto cleared_later = [&](const pyspark::Chain& c) {
    return (cleared_in_function && !c.function.empty()) ||
           std::any_of(clears.begin(), clears.end(), [&](const std::pair<int, std::uint32_t>& at) {
             return at > std::make_pair(c.cell, c.pos.end_byte);
           });
  };
  std::optional<Ending> ending;
  for (const auto& c : m.chains) {
    if (c.links.empty() || (c.root_is_call && c.assigned_to.empty())) continue;
    // `df.cache().count()` as a statement (the materialising idiom) caches what `df` holds, as
    // `df.cache()` does: the cache link, and then only actions.
    const bool materialised = c.assigned_to.empty() && !c.root_is_call && c.links.size() >= 2 && c.links[0].is_call &&
                              is_cache(c.links[0]) &&
                              std::all_of(c.links.begin() + 1, c.links.end(), [](const pyspark::Link& l) {
                                return l.is_call && (l.name == "count" || l.name == "first" || l.name == "take" ||
                                                     l.name == "head" || l.name == "collect" || l.name == "show");
                              });
    const pyspark::Link& last = materialised ? c.links[0] : c.links.back();
    const std::size_t own_links = materialised ? 1 : c.links.size();
    // `self.cache["trend"]`: an attribute named cache, not a call of it.
    if ((last.name != "cache" && last.name != "persist") || !last.is_call) continue;
    // DataFrame.persist takes a StorageLevel: `persist(level=...)` or `persist(PersistenceLevel.READER)`
    // is another library's method of the same name.
    if (last.name == "persist" && !last.args.empty()) {
      const pyspark::Arg& a = last.args[0];
      const std::string_view v = a.value.text();
      const bool other_keyword = !a.keyword.empty() && a.keyword != "storageLevel";
      const bool other_level =
          v.find('.') != std::string_view::npos && v.find("StorageLevel") == std::string_view::npos;
      if (other_keyword || other_level) continue;
    }
    if (c.root_is_call && c.is_rdd && !c.rdd_of_dataframe) continue;
    // A few literal rows or a limit(5) hold next to no executor memory.
    auto pipeline = c.pipeline();
    const std::size_t cache_at = pipeline.size() - (materialised ? c.links.size() : 1);
    if (pyspark::small_by_construction(pyspark::rows_before(m, pipeline, cache_at).rows)) continue;
    std::string name =
        !c.assigned_to.empty() ? std::string(c.assigned_to) : (own_links == 1 ? std::string(c.root) : std::string());
    if (name.empty() || released.count(name) != 0 || cleared_later(c)) continue;
    // `b = a.cache()`: cache() returns the DataFrame it is called on, so `a.unpersist()` releases it.
    if (!c.assigned_to.empty() && !c.root_is_call && own_links == 1 && c.links.size() == 1 &&
        released.count(std::string(c.root.view())) != 0)
      continue;
    // cache() of what is cached already is the same cache (reported where it was first made).
    if (own_links == 1 && c.bound != nullptr && !c.bound->links.empty() && is_cache(c.bound->links.back())) continue;
    // A test's cache holds its fixture's few rows until the test session ends.
    if (in_test_code(m, c)) continue;
    // Nothing runs after the last use before the application ends (the end of a script, or a
    // `spark.stop()`, also in the function that cached it): unpersist() would free memory nothing
    // needs. (A notebook's session outlives the notebook unless it stops it; in a loop, each turn's
    // cache stays while the next turns run.)
    // `name.cache()` as a statement caches the DataFrame `name` holds: what reads it reads the cache.
    const pyspark::Chain* cached = c.assigned_to.empty() && own_links == 1 && c.bound != nullptr ? c.bound : &c;
    // Spark caches lazily: a cache that no action computes holds nothing (what reads the cache is
    // never run: a display left commented out).
    if (cached->is_dataframe && !cached->is_rdd && (last.args.empty() || last.name == "persist") &&
        (!c.assigned_to.empty() || c.bound != nullptr) && !may_compute(m, c, name))
      continue;
    // A later cache in the same function made from this one: once that one is filled, this one could go.
    auto superseded = [&] {
      return std::any_of(m.chains.begin(), m.chains.end(), [&](const pyspark::Chain& d) {
        if (&d == &c || d.function != c.function || d.statement <= c.statement || d.links.empty() ||
            !d.links.back().is_call || !is_cache(d.links.back()))
          return false;
        std::set<const pyspark::Chain*> seen;
        if (!reads_cache(&d, cached, seen)) return false;
        // ... and nothing after it reads this one other than through it (`metrics = aligned.groupBy(...)`
        // after `metadata = aligned.select(...).cache()` still needs `aligned`).
        // (`name.cache()` as a statement caches what `name` holds.)
        const pyspark::Chain* later = d.assigned_to.empty() && d.bound != nullptr ? d.bound : &d;
        return std::none_of(m.chains.begin(), m.chains.end(), [&](const pyspark::Chain& e) {
          if (e.function != c.function || e.statement <= d.statement) return false;
          std::set<const pyspark::Chain*> seen_e;
          return reads_cache(&e, cached, seen_e, later);
        });
      });
    };
    if (!c.in_loop) {
      if (!ending) {
        ending.emplace();
        ending->sessions = session_names(m);
        for (const auto& d : m.chains)
          if (!d.function.empty() && runs_action(d)) ending->working.emplace(d.function.view());
        for (const auto& d : m.chains)
          if (const std::string_view called = file_function_called(m, d); !called.empty())
            ending->calls.emplace_back(&d, called);
        // What makes Spark compute: an action, or a call of a function of this file that runs one.
        for (const auto& d : m.chains)
          if (runs_action(d)) ending->work.push_back(&d);
        for (const auto& [d, called] : ending->calls)
          if (!runs_action(*d) && ending->working.count(called) != 0) ending->work.push_back(d);
      }
      const std::string_view function = c.function.view();
      const int used = std::max(c.statement, last_use(m, function, name));
      // (Where a framework's build ends, a cache superseded by a later one made from it could go first.)
      const bool framework =
          std::any_of(m.functions.begin(), m.functions.end(), [](const auto& kv) { return kv.second.framework_entry; });
      if (ends_application(m, *ending, function, used, cached) && !(framework && superseded())) continue;
    }
    // A function that returns the cached DataFrame hands the cache to its caller, who releases it
    // (the DataFrame itself: an earlier cache of a name rebound since, or a loop's earlier turns', is
    // left behind). Only for callers elsewhere: a caller in this file that keeps it is seen here.
    // A framework's entry point (a Foundry transform, a dbt model, a Delta Live Tables table) that
    // returns a DataFrame made from the cache: the framework computes it once after the return, and
    // the build ends (an unpersist before the return would make it compute everything again). Unless
    // a later cache in it is made from this one: once that one is filled, this one could go.
    if (const pyspark::FunctionInfo* f = c.function.empty() ? nullptr : m.function(c.function);
        f != nullptr && !c.in_loop && !called_in_file(m, c.function.view()) &&
        std::any_of(f->returns.begin(), f->returns.end(), [&](const pyspark::Chain* r) {
          std::set<const pyspark::Chain*> seen;
          // `return name` gives the chain name is bound to; `return Graph(name, ...)` an object holding it.
          // (A class's instance: its name is capitalised, as Python's classes are.)
          const std::string_view callee = r->root.view().substr(r->root.view().rfind('.') + 1);
          const bool held = r->root_is_call && !callee.empty() && std::isupper(static_cast<unsigned char>(callee[0])) &&
                            std::any_of(r->root_args.begin(), r->root_args.end(), [&](const pyspark::Arg& a) {
                              return a.value.chain() == &c || a.value.text() == name;
                            });
          return r == &c || held || (f->framework_entry && reads_cache(r, cached, seen) && !superseded());
        }))
      continue;
    // `df.cache()` (or `df.cache().count()`) as a statement, then `return df` in the same function,
    // not called in the file: the cache is handed to the callers elsewhere, as above.
    if (cached != &c && !c.function.empty() && !c.in_loop && !called_in_file(m, c.function.view()) &&
        returned_later(m, c, name))
      continue;
    auto& d = ctx.report(c.cell, last.name_pos,
                         "`" + name +
                             "` is cached and never unpersisted: its blocks hold executor memory until the "
                             "application ends");
    ctx.attach_fix(d, "Unpersist when done", Applicability::display_only, name + ".unpersist()");
  }
}

}  // namespace planlint::rules
