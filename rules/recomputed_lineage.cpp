// recomputed-lineage: a DataFrame with an expensive lineage that two or more actions (or branches of
// one action) compute again from the source, without cache() or persist().
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "lint/source_context.hpp"
#include "util/name_set.hpp"

namespace planlint::rules {

using namespace planlint::lint;

extern const RuleInfo kRecomputedLineage{"SPK503",
                                         "recomputed-lineage",
                                         "A DataFrame is computed again from its source for each use",
                                         Severity::info,
                                         FixAvailability::sometimes,
                                         Impact::high,
                                         R"md(## What it does
Follows each named DataFrame to the actions that run it: `count()`, `collect()`, `toPandas()`,
`first()` / `take()` / `head()` / `show()` / `display()` (only when the lineage shuffles: otherwise
they read a few rows), `foreach`, and writes (`.write...save()`, `saveAsTable`, `insertInto`,
`writeTo...`, a Foundry transform's `output.write_dataframe(df)`), also through a temporary view (`spark.sql("... FROM v")` of
`df.createOrReplaceTempView("v")`). When the lineage of a DataFrame is computed two or more times
(two actions use it; one action reaches it twice, by a union or a self-join; `randomSplit` hands out
splits that each compute it) and nothing on the way caches it (`cache()`, `persist()`,
`checkpoint()`, `localCheckpoint()`, also as a statement, or a cached temporary view of it:
`spark.catalog.cacheTable("v")`, `CACHE TABLE v`), the DataFrame where the uses fork is reported,
with every use.

Only lineages that cost something count: a read of a table or files, a shuffle (join, groupBy,
distinct, orderBy, repartition, window...) or a Python UDF; data built on the driver and queries
limited to a few rows (`limit(n)`, `SELECT ... LIMIT n`) are not reported, nor is test code. What
comes before a cache does not count: a lineage that shuffles and then caches, and whose uses only
filter the cached rows, costs a scan of the cache; of the actions below a cache, those before the
cache statement compute the lineage each, and of those after it only the first (it fills the cache). A lineage that is only a read with narrow steps
(filters, projections) is an `info`: each use scans the input again, which a cache of the whole input
does not always beat; a `count()` of such a lineage that nothing filters or explodes (and no window
function computes over), of Parquet, ORC, Delta or a table (`format("delta").load(p)`, `load(p)` of the
default source), is not a use (the files' metadata answers it). The message says when a shuffle is computed in full
twice (two actions that read all of it: writes, counts, collects; or one action in a loop), and
when the other uses are only previews (`show`, `display`, `first`, `take`, `head`, an action right
after `limit(n)`), often a look while developing, or one action reads it twice within one query (a
self-join, a union of two filters of it: Spark reuses an identical shuffle inside a query). An
action inside a loop that the DataFrame is not in runs once per turn: that is two
uses already. Uses in different branches of one `if` are not added up, and uses on an error path (a
branch that ends in `raise`, an `except` clause) do not count: they run when the job failed anyway;
nor do uses after a module-level `dbutils.notebook.exit(...)` or `sys.exit()` (outside any branch,
loop or `except` clause): they never run. A
function that the DataFrame is passed to counts with the actions it runs on that parameter
(`def check(t): assert t.count() > 0` called as `check(df)` is one `count()` of `df`), a function of
the file as well as one of a module of the project that the file imports (`from utils.stats import
log_size`) or a notebook it runs with `%run`; the lineage of a DataFrame parameter itself is not
reported (the caller may have cached it); a DataFrame returned by a helper function stands for what
the helper reads (and shuffles, for a helper of another module that groups, joins or sorts what it
returns), unless every return of the helper caches it; what a helper of the file returns carries
the lineage of what it is given unless no return is made of that parameter (a helper that writes
what it is given and returns a read of the table it wrote: the caller's later uses read the table). A
function the code does not show whose name says it keeps what it is given (`temp_save(df=x, ...)`,
`checkpoint_df(x)`, `df.custom_checkpoint()`: the words checkpoint, cache, persist, materialise or
save) writes or caches each DataFrame passed to it, a use of it, and what it returns is the kept rows,
as after a cache; one given two DataFrames (`merge(cohort, events, ["id"])`) combines them, a join
unless its name says union. And what a function called once (outside loops) returns is used by its caller's
actions on the result as well (`def build(): df = ...; log(df.count()); return df`, then
`build().write...`: the lineage runs for the count and again for the write). Streaming DataFrames are not reported.

Severity: `info`, advisory. Source code shows the work done twice, not how large the data is:
what a second run of a join costs depends on the tables, and blind reviewers of real jobs judged
about half of these a merge blocker and half a note (a dimension table, a training notebook's
sample data). A warning when the configuration declares what the lineage reads large
(`large-tables`) and a shuffle of it is computed in full twice. Plans and event logs, which measure
sizes, say more.

## Why is this bad?
A DataFrame is a recipe, not a result: every action runs the whole plan again from the source.
A `count()` before a `write` reads, joins and aggregates everything twice; two writes of one
transformed DataFrame do all the work twice. Spark reuses an identical shuffle inside one query,
but never across actions.

## Example (PySpark)
```python
enriched = spark.table("orders").join(spark.table("customers"), "customer_id")
print(f"writing {enriched.count()} rows")
enriched.write.mode("overwrite").saveAsTable("orders_enriched")
```
Use instead:
```python
enriched = spark.table("orders").join(spark.table("customers"), "customer_id")
enriched.write.mode("overwrite").saveAsTable("orders_enriched")
print(f"wrote {spark.table('orders_enriched').count()} rows")
```

## Fix safety
Unsafe, for a lineage with a shuffle or a UDF computed in full twice, assigned in the same block as its last use: the fix appends
`.cache()` to its definition and adds `name.unpersist()` after the last action that reads it (only
the cache when a `name.unpersist()` already follows that action in the block). Display-only where
that would change what the code does: the name is bound to another value before the last use (the
unpersist would release the other one), the function returns or yields the DataFrame after it (the
caller would get a released cache), or the code unpersists it before its last use.
Caching costs executor memory (and spills to disk when it does not fit), and it changes what a
non-deterministic lineage returns to each use (the same rows instead of a new draw), so it is not
applied by `--fix` alone. Often better: drop a count that only logs progress, or read the figure
back from what was written.

## Options
`large-tables` (configuration): tables and paths (globs) known to be large; in source, a finding
over one of them is a warning.
)md"};

namespace {

using pyspark::Chain;
using pyspark::Link;

const util::NameSet kTempViews{"createOrReplaceTempView", "createTempView", "createOrReplaceGlobalTempView",
                               "createGlobalTempView"};
const util::NameSet kReads{"read", "table", "sql", "load", "textFile", "parquet", "csv", "json", "dataframe"};

// The actions a chain runs itself, with their names as the finding writes them.
constexpr std::pair<std::string_view, std::string_view> kActions[] = {
    {"count", "count()"},       {"collect", "collect()"},
    {"toPandas", "toPandas()"}, {"toLocalIterator", "toLocalIterator()"},
    {"foreach", "foreach()"},   {"foreachPartition", "foreachPartition()"},
    {"show", "show()"},         {"first", "first()"},
    {"take", "take()"},         {"head", "head()"}};

// The action `name` ("count", "write"...) as a link of no file: what a function of another module
// runs on a parameter (the project's exports say which).
const Link* imported_link(std::string_view name) {
  static const std::array<std::string, std::size(kActions) + 1> kNames = [] {
    std::array<std::string, std::size(kActions) + 1> names;
    for (std::size_t i = 0; i < std::size(kActions); ++i) names[i] = std::string(kActions[i].first);
    names.back() = "write";
    return names;
  }();
  static const std::array<Link, std::size(kActions) + 1> kLinks = [] {
    std::array<Link, std::size(kActions) + 1> links;
    for (std::size_t i = 0; i < links.size(); ++i) {
      links[i].name = pyspark::KeptName(&kNames[i]);
      links[i].is_call = true;
    }
    return links;
  }();
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return &kLinks[i];
  return &kLinks.back();  // a write
}

// An action a chain runs: three pointers (the lineage of a large file reaches a million of these).
struct Action {
  const Chain* chain;
  const Link* link;  // the action link (or the `write` link); nullptr: display(df)
  // For an action a function of the file runs on a parameter: the call that runs it (the action
  // happens there, not where the function is written). The call itself (`call == chain`) for an
  // action a function of another module runs: `link` is then one of imported_link's.
  const Chain* call = nullptr;
  [[nodiscard]] bool imported() const { return call == chain; }
  // "count()", "write", ...: as the finding writes it.
  [[nodiscard]] std::string_view what() const {
    if (link == nullptr) return "display()";
    for (const auto& [name, written] : kActions)
      if (link->name == name) return written;
    return "write";
  }
  // show, first, take, head, display, or any action right after `limit(n)`: a look at a few rows.
  [[nodiscard]] bool preview() const {
    const std::string_view w = what();
    if (w == "show()" || w == "first()" || w == "take()" || w == "head()" || w == "display()") return true;
    if (imported()) return false;
    const Link* first = chain->links.begin();
    return link != nullptr && link > first && link <= chain->links.end() && (link - 1)->is_call &&
           (link - 1)->name == "limit";
  }
};

// Source order: cell, then byte; an action in a function of the file is where it is called.
bool earlier(const Action& a, const Action& b) {
  const Chain* x = a.call != nullptr ? a.call : a.chain;
  const Chain* y = b.call != nullptr ? b.call : b.chain;
  return std::make_pair(x->cell, x->pos.start_byte) < std::make_pair(y->cell, y->pos.start_byte);
}

// Whether action `a` runs before the statement `point` caches: it ends before the cache starts. A call
// whose argument caches (`report(df.cache())`) runs after the cache, as does `df.cache().count()`.
bool runs_before(const Action& a, const Chain& point) {
  const Chain* x = a.call != nullptr ? a.call : a.chain;
  return std::make_pair(x->cell, x->pos.end_byte) <= std::make_pair(point.cell, point.pos.start_byte);
}

class Graph {
 public:
  explicit Graph(const pyspark::SourceModel& m) : m_(m) {
    // Where the program ends for sure: a module-level `dbutils.notebook.exit(...)` or `sys.exit()`
    // outside any branch, loop or `except` clause. What comes after it never runs.
    for (const auto& c : m.chains)
      if (ends_program(c)) {
        exit_at_ = {c.cell, c.pos.start_byte};
        break;
      }
    // The uses of each chain, grouped by the chain used (by its index in the model's list), each
    // group in the order the uses were found: counted, then placed (no sort, no search).
    const std::size_t n = m.chains.size();
    blocks_.reserve(m.chains.blocks().size());
    for (std::size_t b = 0; b < m.chains.blocks().size(); ++b)
      blocks_.emplace_back(reinterpret_cast<std::uintptr_t>(m.chains.blocks()[b]), b);
    std::sort(blocks_.begin(), blocks_.end());
    std::vector<std::pair<std::uint32_t, const Chain*>> found;  // (index of the chain used, the user)
    for_each_use([&](const Chain* used, const Chain* by) {
      if (const std::size_t i = index_of(used); i < n) found.emplace_back(static_cast<std::uint32_t>(i), by);
    });
    first_.assign(n + 1, 0);
    for (const auto& f : found) ++first_[f.first + 1];
    for (std::size_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
    users_.resize(found.size());
    std::vector<std::uint32_t> next(first_.begin(), first_.end() - 1);
    for (const auto& f : found) users_[next[f.first]++] = f.second;
    // The actions a function of the file runs on a DataFrame parameter (`def report(df): df.count()`,
    // also through names derived from it): each call with a DataFrame runs its lineage that often.
    for (const auto& c : m.chains) {
      if (c.function.empty()) continue;
      const Chain* origin = c.origin();
      if (origin->root_is_call || origin->function.view() != c.function.view()) continue;
      const pyspark::FunctionInfo* f = m.function(c.function);
      if (f == nullptr || std::find(f->params.begin(), f->params.end(), origin->root.view()) == f->params.end())
        continue;
      if (auto a = action(c)) helper_actions_[{c.function.view(), origin->root.view()}].push_back(*a);
    }
    // ... and those a function of another module of the project runs (its exports say which), at
    // each call of it: the call is where they run.
    for (const auto& u : m.chains) {
      if (!u.root_is_call || u.on_error_path) continue;
      const pyspark::FunctionInfo* f = m.function(u.root);
      if (f == nullptr || !f->imported) continue;
      for (const auto& [param, name] : f->param_actions)
        imported_actions_[{&u, param}].push_back(Action{&u, imported_link(name), &u});
    }
    // ... and a call the code does not show whose name says it keeps what it is given
    // (`temp_save(df=x, out_name=...)`, `checkpoint_df(x)`): it writes or caches each DataFrame given.
    for (const auto& u : m.chains) {
      if (!u.root_is_call || u.on_error_path || m.function(u.root) != nullptr ||
          !pyspark::materialising_name(u.root.view()))
        continue;
      for (const auto& a : u.root_args)
        if (a.value.chain() != nullptr)
          materialising_actions_[a.value.chain()].push_back(Action{&u, imported_link("write"), &u});
    }
  }

  // What `spark.sql("INSERT ..." / "MERGE ...")` returns: the statement's result (it ran at the call).
  static bool statement_result(const Chain& c) {
    return !c.links.empty() && c.links.front().is_call && c.links.front().name == "sql" &&
           !c.links.front().args.empty() && pyspark::writes_table(c.links.front().args[0].value.text());
  }

  // `df.columns`, `df.schema`, `df.dtypes`: what the plan knows without running it.
  static bool metadata(const Chain& c) {
    if (c.links.empty()) return false;
    const Link& l = c.links.back();
    return !l.is_call && (l.name == "columns" || l.name == "schema" || l.name == "dtypes");
  }

  // The action `c` runs itself, if any: its first driver result, write, show or foreach.
  [[nodiscard]] std::optional<Action> action(const Chain& c) const {
    // On an error path (a branch that raises, an except clause) it runs when the job failed anyway.
    if (c.on_error_path) return std::nullopt;
    if (std::make_pair(c.cell, c.pos.start_byte) > exit_at_) return std::nullopt;  // never reached
    if (c.root_is_call &&
        (c.root == "display" || (c.root.size() > 8 && c.root.substr(c.root.size() - 8) == ".display")))
      return Action{&c, nullptr};
    // df.display(): Databricks' DataFrame method, the same action as display(df).
    if (!c.links.empty() && c.links.front().is_call && c.links.front().name == "display" && c.bound != nullptr &&
        c.bound->is_dataframe)
      return Action{&c, nullptr};
    if (const Link* l = pyspark::action_link(c)) return Action{&c, l};
    return std::nullopt;
  }

  // The chains that use `c`, in the order they were found.
  [[nodiscard]] std::span<const Chain* const> children(const Chain* c) const {
    const std::size_t i = index_of(c);
    if (i + 1 >= first_.size()) return {};
    return {users_.data() + first_[i], users_.data() + first_[i + 1]};
  }

  // An upper bound of the forks runs() counts at c: c's own action once, and each use of c once, or
  // twice in a loop c is not in. Below 2, c cannot be reported, and nothing more is computed for it
  // (most chains: one use, the next statement).
  [[nodiscard]] int most_direct_runs(const Chain& c) const {
    int most = action(c) ? 1 : 0;
    for (const Chain* u : children(&c)) {
      if (u == &c) continue;
      most += static_cast<int>(helper_actions(*u, c).size());
      most += repeats(*u, c.loop) ? 2 : random_splits(*u) ? static_cast<int>(children(u).size()) : 1;
      if (most >= 2) break;
    }
    return most;
  }

  // `train, test = df.randomSplit(...)`: a chain whose splits the names hold, each computed on its own.
  [[nodiscard]] static bool random_splits(const Chain& u) {
    return u.assigned_to.empty() && !u.links.empty() && u.links.back().is_call && u.links.back().name == "randomSplit";
  }

  // Its own links cache it, or it is the result of a call the code does not show whose name says it
  // keeps what it is given (`df = temp_save(df, "t")`, `checkpoint_df(df)`): later uses read that.
  [[nodiscard]] bool caches(const Chain& c) const {
    return pyspark::caches_rows(c) || (c.root_is_call && m_.function(c.root) == nullptr && !c.root_args.empty() &&
                                       pyspark::materialising_name(c.root.view()));
  }

  // `name.cache()` after `c` was bound to name, as a statement of its own, materialised at once
  // (`name.cache().count()`) or bound to another name (`cached = name.cache()`): Spark caches by plan,
  // so c's plan is cached from then on.
  // Also through a temporary view of it that is cached (`name.createOrReplaceTempView("v")`, then
  // `spark.catalog.cacheTable("v")` or `CACHE TABLE v`): the view's plan is c's.
  [[nodiscard]] bool cached_later(const Chain& c) const {
    const Chain* point = cache_point(c);
    return point != nullptr && point != &c;
  }

  // Where `c`'s plan is cached: `c` itself when its chain caches, else the statement that caches it
  // (cached_later); nullptr when nothing caches it.
  [[nodiscard]] const Chain* cache_point(const Chain& c) const {
    if (caches(c)) return &c;
    for (const Chain* u : children(&c)) {
      if (u->bound != &c || u->links.empty() || !u->links.front().is_call) continue;
      const Link& first = u->links.front();
      if (pyspark::caches_link(first)) return u;
      if (kTempViews.contains(first.name) && !first.args.empty() && first.args[0].value.string_value() &&
          view_cached(*first.args[0].value.string_value()))
        return u;
    }
    return nullptr;
  }

  // Whether the lineage up to `c` costs something: a read, a shuffle or a Python UDF.
  [[nodiscard]] bool expensive(const Chain& c, bool& shuffles) const {
    shuffles = false;
    bool read = false, streaming = false;
    const Chain* step_chain = nullptr;
    for (const auto& s : c.pipeline()) {
      const Link& l = *s.link;
      // Past a cache (`.cache()` in the lineage, or `x.cache()` as a statement on a DataFrame of it),
      // the uses read the cached rows: only what comes after it is computed again.
      // The statement cache covers the named DataFrame's whole plan, its own steps included: what
      // counts starts after them, with the next DataFrame's steps.
      if (s.chain != step_chain) {
        if (step_chain != nullptr && step_chain != &c && cached_later(*step_chain)) read = shuffles = false;
        step_chain = s.chain;
      }
      if (pyspark::caches_link(l)) {
        read = shuffles = false;
        continue;
      }
      if (l.name == "readStream") streaming = true;
      if (kReads.count(l.name) != 0) read = true;
      if (plans_shuffle(l.name.view())) shuffles = true;
      for (const auto& a : l.args) {
        if (is_python_udf_call(m_, a.value)) shuffles = true;  // a UDF: costly like a shuffle
        // A window function (`F.row_number().over(w)`) shuffles the rows by the window's partitions.
        if (const Chain* e = a.value.chain(); e != nullptr)
          for (const auto& x : e->links)
            if (x.is_call && x.name == "over") shuffles = true;
      }
    }
    // `df = load_orders(spark)`: a helper of this file that returns a DataFrame it does not cache
    // stands for what it reads (looked into one level: what it returns).
    const Chain* origin = c.origin();
    if (origin->root_is_call)
      if (const pyspark::FunctionInfo* f = m_.function(origin->root); f != nullptr && f->returns_dataframe) {
        bool cached = !f->returns.empty();  // every return caches
        for (const Chain* r : f->returns) {
          cached = cached && caches(*r);
          for (const auto& s : r->pipeline()) {
            read = read || kReads.count(s.link->name) != 0;
            shuffles = shuffles || plans_shuffle(s.link->name.view());
            streaming = streaming || s.link->name == "readStream";
          }
        }
        if (cached || f->returns_cache) return false;
        if (f->returns.empty()) read = true;        // `-> DataFrame` without a visible return: assume a read
        shuffles = shuffles || f->returns_shuffle;  // a function of another module that shuffles what it returns
      }
    // A DataFrame made by a call the code does not show (a data-access library's, a helper of another
    // module: `df = load_orders()`), known to be one by how it is used (`df.withColumn(...)`), reads
    // something.
    if (origin->root_is_call && origin->used_as_dataframe && !read && m_.function(origin->root) == nullptr) read = true;
    // `j = merge(a, b, ["id"])`: such a call given two DataFrames combines them; unless its name says
    // union, that is a join, and its plan shuffles.
    if (origin->root_is_call && m_.function(origin->root) == nullptr && !shuffles) {
      int frames = 0;
      for (const auto& a : origin->root_args)
        if (const Chain* e = a.value.chain(); e != nullptr && e->is_dataframe && !e->column_of) ++frames;
      std::string name(origin->root.view());
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
      if (frames >= 2 && name.find("union") == std::string::npos) shuffles = read = true;
    }
    return !streaming && (read || shuffles);
  }

  // How many times the actions downstream of `c` compute c's lineage, and the actions reached.
  // With `direct` (asked at the DataFrame itself), also how many ways the lineage forks right at
  // `c`: each use of `c` that leads to an action counts once there (twice in a loop). Both come from
  // one walk: below `c` they are the same.
  // An action in a loop that the DataFrame (`root_loop`) is not in runs once per turn: twice at least.
  int runs(const Chain& c, bool shuffles, std::vector<Action>& reached, int root_loop, int depth = 0,
           int* direct = nullptr) const {
    if (depth > 64) return 0;
    // `df.limit(20).collect()`: a few rows of a lineage without a shuffle are read again, not all of it.
    if (!shuffles && depth > 0 &&
        std::any_of(c.links.begin(), c.links.end(), [](const Link& l) { return l.is_call && l.name == "limit"; }))
      return 0;
    // Below the DataFrame itself every answer is remembered: self-joins of self-joins share their
    // uses, and walking every path again would take exponential time.
    auto key = std::make_tuple(&c, shuffles, root_loop);
    if (depth > 0)
      if (auto it = memo_.find(key); it != memo_.end()) {
        const Memo& r = it->second;
        reached.insert(reached.end(), memo_actions_.begin() + r.begin, memo_actions_.begin() + r.begin + r.count);
        return r.total;
      }
    // The actions reached below `c` are gathered at the end of `reached`, each chain once.
    const std::size_t mine = reached.size();
    int total = runs_uncached(c, shuffles, reached, root_loop, depth, direct);
    std::sort(reached.begin() + static_cast<std::ptrdiff_t>(mine), reached.end(),
              [](const Action& a, const Action& b) { return std::tie(a.chain, a.call) < std::tie(b.chain, b.call); });
    reached.erase(std::unique(reached.begin() + static_cast<std::ptrdiff_t>(mine), reached.end(),
                              // one action, reached again through the same call (a helper's action
                              // of two calls is two uses)
                              [](const Action& a, const Action& b) { return a.chain == b.chain && a.call == b.call; }),
                  reached.end());
    if (depth > 0) {
      memo_[key] = {total, static_cast<std::uint32_t>(memo_actions_.size()),
                    static_cast<std::uint32_t>(reached.size() - mine)};
      memo_actions_.insert(memo_actions_.end(), reached.begin() + static_cast<std::ptrdiff_t>(mine), reached.end());
    }
    return total;
  }

  // How many turns loop number `loop` makes, when the code spells it out (-1: unknown).
  [[nodiscard]] int turns_of(int loop) const { return turns(loop); }

 private:
  int runs_uncached(const Chain& c, bool shuffles, std::vector<Action>& reached, int root_loop, int depth,
                    int* direct) const {
    int total = 0, forks = 0;
    if (auto a = action(c); a && (shuffles || worth_alone(*a))) {
      const int own = c.in_loop && c.loop > root_loop && turns(c.loop) != 1 ? std::max(2, turns(c.loop)) : 1;
      total += own;
      forks += own;
      reached.push_back(*a);
    }
    // What is made of a value on the driver (`pdf = df.toPandas()`, then `spark.createDataFrame(pdf)`)
    // starts from those rows, not from the lineage again.
    // ... and so does what a statement that writes returns (`res = spark.sql("MERGE ...")`, then
    // `res.collect()`): its result, not what it read.
    if (depth > 0 && (c.ends_local || statement_result(c))) {
      if (direct != nullptr) *direct = std::min(forks, 1000);
      return std::min(total, 1000);
    }
    // Uses in different branches of one if statement: the largest branch counts, not their sum, at
    // every level of nested ifs.
    std::vector<Contribution> uses;
    for (const Chain* u : children(&c)) {
      if (u == &c) continue;
      // The function's actions on the parameter: of those in different branches of one if of it, one runs.
      std::vector<Contribution> in_function;
      for (const Action& a : helper_actions(*u, c)) {
        if (!shuffles && !worth_alone(a)) continue;
        const int n = !a.imported() && a.chain->in_loop ? 2 : 1;
        if (a.imported())
          in_function.push_back({{}, n, n});
        else
          in_function.push_back({{a.chain->branches.begin(), a.chain->branches.end()}, n, n});
        reached.push_back(a);
        reached.back().call = u;
      }
      const int in_helper = combine(in_function, 0).first;
      if (in_helper > 0) {
        const int times = repeats(*u, root_loop) ? 2 : 1;
        uses.push_back({branches_not_in(*u, c), in_helper * times, in_helper * times});
      }
      const std::size_t below = reached.size();
      if (!carries(*u, c)) continue;
      int r = runs(*u, shuffles, reached, root_loop, depth + 1);
      if (r == 0) continue;
      // Computed once, into the cache; as a fork, one per use (two for a use in a loop). Of the
      // actions below the cache, only the first computes this lineage (it fills the cache); the
      // others read the cached rows.
      const Chain* point = cache_point(*u);
      if (point != nullptr && point->branches.size() <= c.branches.size() && point->loop == c.loop) {
        // Actions that run before the cache statement compute the lineage each; the first one after it fills
        // the cache, and the others read the cached rows. (A cache in a branch or a loop of its own may not
        // run: then every action computes it, and the cache counts once as before.)
        std::vector<Action> before, after;
        for (auto it = reached.begin() + static_cast<std::ptrdiff_t>(below); it != reached.end(); ++it)
          (runs_before(*it, *point) ? before : after).push_back(*it);
        reached.resize(below);
        reached.insert(reached.end(), before.begin(), before.end());
        if (!after.empty()) reached.push_back(*std::min_element(after.begin(), after.end(), earlier));
        r = static_cast<int>(before.size()) + 1;
      } else if (point != nullptr) {
        r = 1;
      }
      // `train, test = df.randomSplit(...)`: each split is a use of its own.
      const int fork = random_splits(*u) ? r : std::min(r, repeats(*u, root_loop) ? 2 : 1);
      uses.push_back({branches_not_in(*u, c), r, fork});
    }
    const auto [runs_of_uses, forks_of_uses] = combine(uses, 0);
    total += runs_of_uses;
    forks += forks_of_uses;
    if (direct != nullptr) *direct = std::min(forks, 1000);
    return std::min(total, 1000);
  }

  // The actions a call `u` of a function of the file runs on `c` passed to it (positionally or by
  // keyword): the function's actions on that parameter.
  [[nodiscard]] std::span<const Action> helper_actions(const Chain& u, const Chain& c) const {
    if (!u.root_is_call || (helper_actions_.empty() && imported_actions_.empty() && materialising_actions_.empty()))
      return {};
    const pyspark::FunctionInfo* f = m_.function(u.root);
    if (f == nullptr) {
      if (auto it = materialising_actions_.find(&c); it != materialising_actions_.end())
        for (const Action& a : it->second)
          if (a.call == &u) return {&a, 1};
      return {};
    }
    for (std::string_view param : params_given(u, c, *f)) {
      if (f->imported) {
        if (auto it = imported_actions_.find({&u, param}); it != imported_actions_.end()) return it->second;
      } else if (auto it = helper_actions_.find({u.root.view(), param}); it != helper_actions_.end()) {
        return it->second;
      }
    }
    return {};
  }

  // The parameters of function `f` that call `u` passes `c` to (positionally or by keyword).
  static std::vector<std::string_view> params_given(const Chain& u, const Chain& c, const pyspark::FunctionInfo& f) {
    std::vector<std::string_view> out;
    std::size_t position = 0;
    for (const auto& a : u.root_args) {
      const bool keyword = !a.keyword.empty();
      std::string_view param;
      if (keyword)
        param = a.keyword;
      else if (position < f.params.size())
        param = f.params[position];
      if (!keyword) ++position;
      if (a.value.chain() == &c && !param.empty()) out.push_back(param);
    }
    return out;
  }

  // Whether what call `u` returns carries the lineage of `c` passed to it: not when `u` calls a
  // function of the file whose every return is made of something else (`def temp_save(df, name):
  // df.write.saveAsTable(name); return spark.table(name)` returns a read of the table written: the
  // caller's later uses read that, not df's lineage). Unknown functions carry what they are given,
  // unless their name says they keep it (`temp_save(df=x)`: materialising_name).
  [[nodiscard]] bool carries(const Chain& u, const Chain& c) const {
    if (!u.root_is_call) return true;
    const pyspark::FunctionInfo* f = m_.function(u.root);
    if (f == nullptr) return !pyspark::materialising_name(u.root.view());
    const std::vector<std::string_view> params = params_given(u, c, *f);
    if (params.empty()) return true;
    // A function of another module that caches what it makes of the parameter: later uses read that.
    if (f->imported)
      return std::none_of(params.begin(), params.end(), [&](std::string_view p) {
        return std::find(f->cached_params.begin(), f->cached_params.end(), p) != f->cached_params.end();
      });
    if (f->returns.empty()) return true;
    auto is_param = [&](std::string_view name) {
      return std::find(params.begin(), params.end(), name) != params.end();
    };
    // Whether chain `x` is made of a parameter: it starts from one, or a call or method on its way
    // is given one (or something made of one).
    std::function<bool(const Chain&, int)> made_of = [&](const Chain& x, int depth) {
      if (depth > 8) return true;  // too deep to tell: as unknown functions do, it carries it
      auto arg = [&](const pyspark::Arg& a) {
        const Chain* y = a.value.chain();
        return y != nullptr ? made_of(*y, depth + 1) : is_param(a.value.text());
      };
      for (const Chain* h = &x; h != nullptr; h = h->bound) {
        if (!h->root_is_call && h->bound == nullptr && is_param(h->root.view())) return true;
        if (h->root_is_call && std::any_of(h->root_args.begin(), h->root_args.end(), arg)) return true;
        for (const auto& l : h->links)
          if (std::any_of(l.args.begin(), l.args.end(), arg)) return true;
      }
      return false;
    };
    return std::any_of(f->returns.begin(), f->returns.end(),
                       [&](const Chain* r) { return r == nullptr || made_of(*r, 0); });
  }

  // Whether use `u` runs again on every turn of a loop that `root_loop` is not in. Not when `u`
  // rebinds the name it reads (`feat = feat.withColumn(...)` in a loop, also after
  // `feat = other`): only the first turn reads what the name held before the loop, every later
  // turn reads what the turn before bound.
  [[nodiscard]] bool repeats(const Chain& u, int root_loop) const {
    if (!u.in_loop || u.loop <= root_loop || turns(u.loop) == 1) return false;
    return u.assigned_to.empty() || u.root_is_call || u.root != u.assigned_to;
  }

  // Without a shuffle, show/first/take/head/display read a few rows: not a recomputation that matters;
  // nor does a count() of a columnar read that nothing filters (Parquet, ORC, Delta, a table): the
  // files' metadata answers it.
  static bool worth_alone(const Action& a) { return !a.preview() && !metadata_count(a); }
  static bool metadata_count(const Action& a) {
    if (a.what() != "count()") return false;
    static const util::NameSet kRowChanging{"filter",     "where",  "explode",  "flatMap", "sample",   "limit",
                                            "dropna",     "fillna", "na",       "union",   "unionAll", "unionByName",
                                            "sql",        "csv",    "json",     "text",    "textFile", "mapInPandas",
                                            "mapInArrow", "rdd",    "transform"};
    auto columnar = [](std::string_view f) { return f == "parquet" || f == "delta" || f == "orc"; };
    bool read = false;
    for (const auto& st : a.chain->pipeline()) {
      const Link& l = *st.link;
      if (&l == a.link) break;
      if (kRowChanging.contains(l.name)) return false;
      // A generator in a projection makes rows (`withColumn("item", F.explode("items"))`), and a
      // window function is computed over them.
      for (const auto& a : l.args)
        if (a.value.text().find("explode") != std::string_view::npos ||
            a.value.text().find("inline") != std::string_view::npos ||
            a.value.text().find(".over(") != std::string_view::npos)
          return false;
      // `format(x)` of a format the code does not spell may be text.
      if (l.name == "format" &&
          (l.args.empty() || !l.args[0].value.string_value() || !columnar(*l.args[0].value.string_value())))
        return false;
      // `load(path)` reads the format set before it, or the default source (Parquet; Delta on
      // Databricks), or the one it names: `load(path, format="csv")`.
      if (l.name == "load") {
        const pyspark::Arg* f = l.arg(1, "format");
        if (f != nullptr && (!f->value.string_value() || !columnar(*f->value.string_value()))) return false;
      }
      read = read || l.name == "table" || l.name == "parquet" || l.name == "orc" || l.name == "read";
    }
    return read;
  }
  [[nodiscard]] int turns(int loop) const {
    return loop >= 1 && loop <= static_cast<int>(m_.loops.size())
               ? m_.loops[static_cast<std::size_t>(loop - 1)].known_turns
               : -1;
  }
  // The if branches around use `u` that are not around `c`, outermost first.
  static std::vector<std::pair<int, int>> branches_not_in(const Chain& u, const Chain& c) {
    std::vector<std::pair<int, int>> out;
    for (const auto& b : u.branches)
      if (std::find(c.branches.begin(), c.branches.end(), b) == c.branches.end()) out.push_back(b);
    return out;
  }
  // A use's runs and forks, with the branches it sits in.
  struct Contribution {
    std::vector<std::pair<int, int>> path;
    int runs, forks;
  };
  // The runs and forks of uses: those outside any further branch add up; of the branches of one if,
  // only the largest counts (one branch runs), each branch counted the same way one level down.
  static std::pair<int, int> combine(std::vector<Contribution>& items, std::size_t level) {
    int total = 0, forks = 0;
    std::map<int, std::map<int, std::vector<Contribution>>> by_if;  // if id -> branch -> its uses
    for (auto& item : items) {
      if (item.path.size() <= level) {
        total += item.runs;
        forks += item.forks;
        continue;
      }
      by_if[item.path[level].first][item.path[level].second].push_back(std::move(item));
    }
    for (auto& [id, branches] : by_if) {
      int most = 0, most_forks = 0;
      for (auto& [b, list] : branches) {
        const auto [r, f] = combine(list, level + 1);
        most = std::max(most, r);
        most_forks = std::max(most_forks, f);
      }
      total += most;
      forks += most_forks;
    }
    return {total, forks};
  }

  // Whether the file caches the temporary view `view`: `cacheTable("view")`, `CACHE [LAZY] TABLE view`
  // (in SQL strings or SQL cells), in any case.
  [[nodiscard]] bool view_cached(std::string_view view) const {
    if (lowered_.empty()) {
      for (const auto& cell : m_.file->cells) {
        lowered_ += cell.text;
        lowered_ += '\n';
      }
      for (char& ch : lowered_) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    std::string v(view);
    for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    auto word_at = [&](std::size_t at) {
      const std::size_t end = at + v.size();
      return end >= lowered_.size() ||
             (std::isalnum(static_cast<unsigned char>(lowered_[end])) == 0 && lowered_[end] != '_');
    };
    for (std::string_view before : {"cachetable(\"", "cachetable('", "cache table ", "cache lazy table "}) {
      const std::string needle = std::string(before) + v;
      for (std::size_t at = lowered_.find(needle); at != std::string::npos; at = lowered_.find(needle, at + 1))
        if (word_at(at + before.size())) return true;
    }
    return false;
  }

  static bool ends_program(const Chain& c) {
    if (!c.function.empty() || !c.branches.empty() || c.in_loop || c.on_error_path || c.links.empty() ||
        !c.links.back().is_call || c.links.back().name != "exit")
      return false;
    if (c.root == "sys" && c.links.size() == 1) return true;
    return c.root == "dbutils" && c.links.size() == 2 && c.links.front().name == "notebook";
  }
  const pyspark::SourceModel& m_;
  std::pair<int, std::uint32_t> exit_at_{std::numeric_limits<int>::max(), 0};
  mutable std::string lowered_;  // the file's cells, lower case (view_cached reads it)
  // f(used chain, the chain that uses it): a chain uses the chain its root is bound to and the
  // chains of its arguments (`df.groupBy(df.columns)`: an argument that only reads metadata computes
  // nothing).
  template <class F>
  void for_each_use(F&& f) const {
    for (const auto& c : m_.chains) {
      if (c.bound != nullptr && !c.column_of) f(c.bound, &c);  // `df.amount` is an expression, not a use
      auto args = [&](std::span<const pyspark::Arg> list) {
        for (const auto& a : list)
          if (a.value.chain() != nullptr && a.value.chain() != &c && !metadata(*a.value.chain()) &&
              !a.value.chain()->column_of)
            f(a.value.chain(), &c);
      };
      for (const auto& l : c.links) args(l.args);
      if (c.root_is_call) args(c.root_args);
      // `spark.sql("... FROM v ...")` or `spark.table("v")` of a temporary view registered before it
      // (`df.createOrReplaceTempView("v")`): the query reads the DataFrame behind the view.
      if (!m_.temp_views.empty())
        for (const auto& l : c.links)
          if (const pyspark::Chain* view = view_read(c, l))
            // `df.createOrReplaceTempView("v")`: the reader uses df itself.
            f(view->links.size() == 1 && view->bound != nullptr ? view->bound : view, &c);
    }
    // `def build(): df = ...; df.count(); return df` called once, outside loops and outside itself
    // (`build().write...`): the caller's uses of the result are uses of what the function returned,
    // within the same run of it. A function called from several places (or in a loop) builds a new
    // plan at each call: its calls are not added up.
    for (const auto& [name, calls] : m_.calls_of) {
      if (calls.size() != 1 || calls.front()->in_loop || calls.front()->function.view() == name) continue;
      const pyspark::FunctionInfo* fn = m_.function(name);
      if (fn == nullptr || fn->returns.size() != 1 || fn->framework_entry) continue;
      const Chain* returned = fn->returns.front();
      if (returned != nullptr && returned->is_dataframe) f(returned, calls.front());
    }
  }
  // The view registration (the latest before `reader`) whose rows link `l` of `reader` reads.
  [[nodiscard]] const pyspark::Chain* view_read(const pyspark::Chain& reader, const pyspark::Link& l) const {
    if (!l.is_call || l.args.empty() || (l.name != "sql" && l.name != "table")) return nullptr;
    const std::string_view text =
        l.args[0].value.string_value() ? *l.args[0].value.string_value() : l.args[0].value.text();
    std::string lowered(text);
    for (char& ch : lowered) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const pyspark::Chain* found = nullptr;
    for (const auto& [name, registrations] : m_.temp_views) {
      if (l.name == "table" ? lowered != name : !names_table(lowered, name)) continue;
      const pyspark::Chain* v = pyspark::registered_view(m_, name, &reader);
      if (v != nullptr && (found == nullptr || std::make_pair(v->cell, v->pos.start_byte) >
                                                   std::make_pair(found->cell, found->pos.start_byte)))
        found = v;
    }
    return found;
  }
  // The index of chain `c` in the model's list (its size for a chain not there): the block holding
  // it, found by address among the blocks sorted by address, then its place in the block.
  [[nodiscard]] std::size_t index_of(const Chain* c) const {
    const auto at = reinterpret_cast<std::uintptr_t>(c);
    constexpr std::size_t kPer = decltype(m_.chains)::per_block();
    if (blocks_.size() == 1) {  // most files: one block, no search
      const std::size_t i = (at - blocks_.front().first) / sizeof(Chain);
      return at >= blocks_.front().first && i < m_.chains.size() ? i : m_.chains.size();
    }
    auto it = std::upper_bound(blocks_.begin(), blocks_.end(), std::make_pair(at, SIZE_MAX));
    if (it == blocks_.begin()) return m_.chains.size();
    --it;
    if (at - it->first >= kPer * sizeof(Chain)) return m_.chains.size();
    const std::size_t i = it->second * kPer + (at - it->first) / sizeof(Chain);
    return i < m_.chains.size() ? i : m_.chains.size();
  }
  // One flat array of users, grouped by the chain used (first_[i] .. first_[i + 1] for chain i): a
  // large file has hundreds of thousands of uses.
  std::vector<std::pair<std::uintptr_t, std::size_t>> blocks_;  // (address, block number), by address
  std::map<std::pair<std::string_view, std::string_view>, std::vector<Action>> helper_actions_;  // (function, param)
  std::map<std::pair<const Chain*, std::string_view>, std::vector<Action>> imported_actions_;    // (call, param)
  std::map<const Chain*, std::vector<Action>> materialising_actions_;  // given chain -> the calls keeping it
  std::vector<std::uint32_t> first_;
  std::vector<const Chain*> users_;
  using MemoKey = std::tuple<const Chain*, bool, int>;
  struct MemoHash {
    std::size_t operator()(const MemoKey& k) const {
      return std::hash<const void*>()(std::get<0>(k)) ^ (static_cast<std::size_t>(std::get<2>(k)) << 1) ^
             static_cast<std::size_t>(std::get<1>(k));
    }
  };
  // The runs below a chain and the actions they reach (memo_actions_[begin, begin + count)).
  struct Memo {
    int total;
    std::uint32_t begin, count;
  };
  mutable std::unordered_map<MemoKey, Memo, MemoHash> memo_;
  mutable std::deque<Action> memo_actions_;  // a deque: it grows without copies
};

// The indentation of the line holding byte `at`.
std::string indentation(std::string_view text, std::uint32_t at) {
  std::size_t start = text.rfind('\n', at == 0 ? 0 : at - 1);
  start = start == std::string_view::npos ? 0 : start + 1;
  std::size_t end = text.find_first_not_of(" \t", start);
  return std::string(text.substr(start, (end == std::string_view::npos ? text.size() : end) - start));
}

// Whether `text` holds `name` as a whole word.
bool has_word(std::string_view text, std::string_view name) {
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at == 0 || !identifier_char(text[at - 1])) && (end >= text.size() || !identifier_char(text[end]))) return true;
  }
  return false;
}

// Calls f(line start, line text without its indentation, indentation width) for each line that
// starts in [from, to) and holds code (not blank, not only a comment); f returns false to stop.
template <class F>
void for_each_code_line(std::string_view text, std::size_t from, std::size_t to, F&& f) {
  std::size_t start = from;
  if (from > 0 && from <= text.size() && text[from - 1] != '\n') {
    start = text.find('\n', from);
    start = start == std::string_view::npos ? text.size() : start + 1;
  }
  while (start < to && start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    const std::size_t indent = line.find_first_not_of(" \t");
    if (indent != std::string_view::npos && line[indent] != '#' && line[indent] != '\r')
      if (!f(start, line.substr(indent), indent)) return;
    start = end + 1;
  }
}

// Whether a line binds `name` again: `name = ...`, `name += ...`, `name: T = ...`, a tuple of names
// holding it, `for ... name ... in`, `with ... as name`, `except ... as name`, `del name`.
bool rebinds(std::string_view code, std::string_view name) {
  if (code.starts_with(name) && (code.size() == name.size() || !identifier_char(code[name.size()]))) {
    std::string_view rest = code.substr(name.size());
    rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    if (rest.starts_with(":") && !rest.starts_with(":=")) return true;  // an annotated binding
    std::size_t op = rest.find_first_not_of("+-*/%|&^@<>");
    if (op != std::string_view::npos && op <= 3 && rest[op] == '=' && (op + 1 >= rest.size() || rest[op + 1] != '=') &&
        (op == 0 || (rest.substr(0, op) != "<" && rest.substr(0, op) != ">")))
      return true;
  }
  if ((code.starts_with("for ") || code.starts_with("async for ")) && code.find(" in ") != std::string_view::npos &&
      has_word(code.substr(0, code.find(" in ")), name))
    return true;
  if ((code.starts_with("with ") || code.starts_with("except")) && has_word(code, name) &&
      code.find(" as ") != std::string_view::npos && has_word(code.substr(code.find(" as ")), name))
    return true;
  if (code.starts_with("del ") && has_word(code, name)) return true;
  // `a, name = ...`: names, commas, parentheses and stars before the first lone `=`.
  const std::size_t eq = code.find('=');
  if (eq == std::string_view::npos || eq + 1 >= code.size() || code[eq + 1] == '=') return false;
  std::string_view targets = code.substr(0, eq);
  return targets.find(',') != std::string_view::npos && has_word(targets, name) &&
         targets.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,()[]* \t") ==
             std::string_view::npos;
}

// Whether `name` is bound to something else in text [from, to): a line there (or a statement after a
// `;` on it) that binds it. Read from the text: the model records chains, not every binding.
bool rebound_between(std::string_view text, std::size_t from, std::size_t to, std::string_view name) {
  bool found = false;
  for_each_code_line(text, from, to, [&](std::size_t, std::string_view code, std::size_t) {
    for (std::size_t at = 0; !found && at != std::string_view::npos;) {
      std::string_view statement = code.substr(at);
      statement.remove_prefix(std::min(statement.size(), statement.find_first_not_of(" \t")));
      found = rebinds(statement, name);
      at = code.find(';', at);
      if (at != std::string_view::npos) ++at;
    }
    return !found;
  });
  return found;
}

// Whether the function around `c` hands `name` on after byte `from`: a `return` or `yield` naming it,
// or a returned chain computed from c. True when the function's extent is not known.
bool returned_after(const pyspark::SourceModel& m, const Chain& c, std::string_view text, std::size_t from,
                    std::string_view name) {
  if (c.function.empty()) return false;
  const pyspark::FunctionInfo* f = m.function(c.function);
  if (f == nullptr || f->body.data() < text.data() || f->body.data() + f->body.size() > text.data() + text.size())
    return true;
  const std::size_t begin = static_cast<std::size_t>(f->body.data() - text.data());
  const std::size_t end = begin + f->body.size();
  if (c.pos.start_byte < begin || c.pos.end_byte > end) return true;  // another def of that name, or past 16 KiB
  for (const Chain* r : f->returns)
    if (r->cell == c.cell && r->pos.start_byte >= from)
      for (const auto& s : r->pipeline())
        if (s.chain == &c) return true;
  // `return name`, `return name, n`, `yield name`: to the end of the statement's lines (those indented more).
  bool found = false;
  std::size_t returning = std::string_view::npos;  // indentation of the return being read
  for_each_code_line(text, from, end, [&](std::size_t, std::string_view code, std::size_t indent) {
    if (returning != std::string_view::npos && indent > returning) {
      found = has_word(code, name);
      return !found;
    }
    returning = std::string_view::npos;
    auto keyword = [&](std::string_view word) {
      return code.starts_with(word) && (code.size() == word.size() || !identifier_char(code[word.size()]));
    };
    if (keyword("return") || keyword("yield")) {
      returning = indent;
      found = has_word(code, name);
    }
    return !found;
  });
  return found;
}

// The `name.unpersist()` statements of c's function after c: before byte `after` (the end of its last
// use), and after it in c's block (indented as c, with no line indented less on the way).
struct Releases {
  int early = 0, later = 0;
};
Releases releases_of(const std::vector<const Chain*>& unpersists, const Chain& c, std::string_view text,
                     std::uint32_t after, const std::string& indent, std::string_view name) {
  Releases out;
  for (const Chain* u : unpersists) {
    if (u->cell != c.cell || u->root != name || u->pos.start_byte < c.pos.end_byte || u->function != c.function)
      continue;
    if (u->pos.start_byte < after) {
      ++out.early;
      continue;
    }
    bool in_block = indentation(text, u->pos.start_byte) == indent && u->loop == c.loop &&
                    std::equal(u->branches.begin(), u->branches.end(), c.branches.begin(), c.branches.end());
    for_each_code_line(text, after, u->pos.start_byte, [&](std::size_t, std::string_view, std::size_t width) {
      in_block = in_block && width >= indent.size();
      return in_block;
    });
    if (in_block) ++out.later;
  }
  return out;
}

}  // namespace

void check_recomputed_lineage(SourceContext& ctx) {
  const auto& m = ctx.model();
  Graph g(m);
  std::optional<std::vector<const Chain*>> unpersists;
  for (const auto& c : m.chains) {
    if (c.assigned_to.empty() || !c.is_dataframe || c.ends_local || c.assigned_to.rfind("self.", 0) == 0) continue;
    if (in_test_code(m, c)) continue;  // tests compute fixtures: a second count of one costs nothing
    if (g.most_direct_runs(c) < 2) continue;
    if (g.caches(c) || g.cached_later(c)) continue;
    // `res = spark.sql("MERGE INTO ...")`: the statement ran when it was called; `res` is its result.
    if (Graph::statement_result(c)) continue;
    bool shuffles = false;
    if (!g.expensive(c, shuffles)) continue;
    auto pipeline = c.pipeline();
    // A few rows by construction: driver data, `limit(n)`, `SELECT ... LIMIT n`.
    if (pyspark::small_by_construction(pyspark::rows_before(m, pipeline, pipeline.size()).rows)) continue;
    // The fork must be here: two of c's own uses (or one in a loop) lead to runs, not one use that forks later.
    std::vector<Action> reached;
    int forks = 0;
    int total = g.runs(c, shuffles, reached, c.loop, 0, &forks);
    if (total < 2 || forks < 2) continue;
    std::sort(reached.begin(), reached.end(), earlier);
    reached.erase(std::unique(reached.begin(), reached.end(),
                              [](const Action& a, const Action& b) { return a.chain == b.chain && a.call == b.call; }),
                  reached.end());
    // Lines as the report shows them: the file's in .py and Databricks files, the cell's in Jupyter.
    auto line_of = [&](const Chain& x) {
      std::uint32_t line = m.place(x.cell, x.pos).line;
      if (m.file->kind == pyspark::SourceKind::jupyter)
        return x.cell == c.cell ? "line " + std::to_string(line)
                                : "cell " + std::to_string(x.cell) + ", line " + std::to_string(line);
      const auto& lines = m.cell(x.cell).lines;
      if (line >= 1 && line <= lines.size()) line = lines[line - 1].raw_line;
      return "line " + std::to_string(line);
    };
    // An action in a function of the file: where it is written, and the call that runs it.
    auto where = [&](const Action& a) {
      if (a.imported()) return line_of(*a.call) + ", in `" + std::string(a.call->root.view()) + "`";
      return a.call == nullptr ? line_of(*a.chain) : line_of(*a.chain) + ", called at " + line_of(*a.call);
    };
    std::string uses;
    for (std::size_t i = 0; i < reached.size() && i < 4; ++i)
      uses += (i == 0 ? "" : ", ") + ("`" + std::string(reached[i].what()) + "` (" + where(reached[i]) + ")");
    if (reached.size() > 4) uses += ", ...";
    // The count is exact when each action reads it once; through self-joins and loops it is a lower
    // bound that Spark's exchange reuse may lower again, so it is not given.
    bool simple = static_cast<int>(reached.size()) == total;
    const std::string name(c.assigned_to);
    std::string message = "`" + name + "` is computed from its source ";
    if (simple)
      message += std::to_string(total) + " times, once per use: " + uses;
    else if (reached.size() == 1)
      message += "more than once: " + uses + " reads it more than once (a union, a join or a loop of its uses)";
    else
      message += "more than once, for each of: " + uses + " (some read it more than once: a union, a join or a loop)";
    auto& d = ctx.report(c.cell, c.pos, message + "; nothing caches it");
    // The shuffle computed in full twice: two actions that read all of it (a write, a count, a
    // collect), or the only action reads it more than once (a self-join, a loop). A preview (show,
    // display, first) of a shuffled lineage computes it again too, but is often a look while
    // developing: with previews among the uses, only full uses count. All of it is advice (info):
    // the code does not show how large the lineage is.
    const int full =
        static_cast<int>(std::count_if(reached.begin(), reached.end(), [](const Action& a) { return !a.preview(); }));
    // One action reading it twice within one query (a self-join, a union of two filters of it): Spark
    // reuses an identical shuffle inside a query (ReuseExchange), so only a loop that runs the action
    // again and again makes that more than a note.
    const Chain& only = *reached.front().chain;
    const bool looped = reached.size() == 1 && only.in_loop && only.loop > c.loop && g.turns_of(only.loop) != 1;
    const bool advice = shuffles && full < 2 && !(full == 1 && looped && total >= 2);
    if (advice) {
      d.message += full == 0
                       ? " (its uses are previews: show, display, first, take, head, limit(n))"
                       : " (besides one full use, the others are previews: show, display, first, take, head, limit(n))";
    }
    // Size the code does not show, the configuration can: a shuffle computed in full twice over a
    // table or path declared large (`large-tables`) is a warning.
    if (shuffles && !advice) {
      const std::string large = declared_large_read(pipeline, pipeline.size(), ctx.options().large_tables);
      if (!large.empty()) {
        d.severity = Severity::warning;
        d.message += " (it reads `" + large + "`, declared large)";
      }
    }
    if (!shuffles) {
      // Only a read (and narrow steps): each use scans the input again. Worth knowing, rarely worth a
      // cache of the whole input.
      d.message += " (its lineage is a read without a shuffle: each use scans the input again)";
    }
    for (const auto& a : reached) {
      const pyspark::Pos& p = a.link != nullptr && !a.imported() ? a.link->name_pos : a.chain->pos;
      ctx.add_related(d, a.chain->cell, p, "runs the lineage of `" + name + "` again: " + std::string(a.what()));
    }
    // cache() + unpersist() after the last action, when both edits sit in the definition's block.
    const Action& last = reached.back();
    std::string_view text = ctx.cell_text(c.cell);
    bool same_block =
        last.chain->cell == c.cell &&
        std::equal(last.chain->branches.begin(), last.chain->branches.end(), c.branches.begin(), c.branches.end()) &&
        last.chain->loop == c.loop && last.chain->function == c.function && c.pos.end_byte <= text.size() &&
        last.chain->pos.end_byte <= text.size() &&
        indentation(text, last.chain->pos.start_byte) == indentation(text, c.pos.start_byte);
    std::string indent = indentation(text, c.pos.start_byte);
    std::string suggestion = name + " = ...cache()  # then " + name + ".unpersist() after the last use";
    if (!shuffles)
      suggestion =
          "Share one read: derive every output from one action (write once, read the figures back), or "
          "cache `" +
          name + "` if the source is slow to read";
    // A count() next to a write is often there only to log progress: dropping it is the cheaper fix.
    auto count = std::find_if(reached.begin(), reached.end(), [](const Action& a) { return a.what() == "count()"; });
    bool writes = std::any_of(reached.begin(), reached.end(), [](const Action& a) { return a.what() == "write"; });
    if (count != reached.end() && writes)
      suggestion += "; or drop the count() at " + where(*count) +
                    " if it only logs progress (read the figure from "
                    "the written output instead)";
    // After the statement of the last action: its own line when it is a statement, else the end of
    // the line it ends on (a fix that would split a statement is refused by the fixer's syntax check).
    std::uint32_t after = 0;
    if (same_block) {
      std::size_t eol =
          last.chain->whole_statement ? std::string_view::npos : text.find('\n', last.chain->pos.end_byte);
      after = last.chain->whole_statement     ? last.chain->whole_statement->end_byte
              : eol == std::string_view::npos ? static_cast<std::uint32_t>(text.size())
                                              : static_cast<std::uint32_t>(eol + 1);
      if (last.chain->whole_statement && (after == 0 || after > text.size() || text[after - 1] != '\n'))
        after = static_cast<std::uint32_t>(text.size());
    }
    // The fix must not change what the code does: the name still holds c's value where the unpersist
    // goes, the function does not hand the DataFrame on after it, and c is unpersisted once, after its
    // last use (an unpersist already there, in the block after the last action, is kept and not repeated).
    bool applied = same_block && shuffles && !advice;  // advice is not applied by --fix
    Releases released;
    if (applied) {
      if (!unpersists) {
        unpersists.emplace();  // the file's `name.unpersist()` statements, gathered once
        for (const auto& u : m.chains)
          if (!u.root_is_call && !u.links.empty() && u.links.front().is_call && u.links.front().name == "unpersist")
            unpersists->push_back(&u);
      }
      released = releases_of(*unpersists, c, text, after, indent, name);
      applied = released.early == 0 && released.later <= 1 && !rebound_between(text, c.pos.end_byte, after, name) &&
                !returned_after(m, c, text, after, name);
    }
    Fix& f = ctx.attach_fix(d, "Cache it and unpersist after the last use",
                            applied ? Applicability::unsafe : Applicability::display_only, suggestion);
    if (!applied) continue;
    SourceContext::add_edit(f, c.cell, c.pos.end_byte, c.pos.end_byte, ".cache()");
    if (released.later == 1) continue;  // the unpersist is there already
    std::string line = indent + name + ".unpersist()\n";
    if (after == text.size() && (text.empty() || text.back() != '\n')) line = "\n" + line;
    SourceContext::add_edit(f, c.cell, after, after, line);
  }
}

}  // namespace planlint::rules
