// python-row-udf: BatchEvalPython evaluates a Python UDF one row at a time.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lint/plan_context.hpp"
#include "lint/source_context.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::PlanNode;

extern const RuleInfo kPythonRowUdf{"SPK201",
                                    "python-row-udf",
                                    "A row-at-a-time Python UDF runs in this plan",
                                    Severity::warning,
                                    FixAvailability::never,
                                    Impact::high,
                                    R"md(## What it does
Finds `BatchEvalPython`, the operator that runs `@udf` / `F.udf(...)` functions one row at a time.
`ArrowEvalPython` (pandas / Arrow UDFs) is not reported. In PySpark source: `@udf`, `@udf(...)`,
`@F.udf(T)`, `udf(f, T)`, `F.udf(lambda ...)`, `UserDefinedFunction(f, T)`, `spark.udf.register("n", f)`
with a Python function and Spark 1.x `sqlContext.registerFunction(...)`; registering a UDF made
earlier is reported once, where it was made, and a function looked up at run time
(`register(name, getattr(module, name))`) is not judged. Not `pandas_udf`, mlflow's `spark_udf` or Java UDFs.

In source it is an `info`, advisory: the code shows that every row goes through Python, not how
many rows there are (blind reviewers of real jobs judged a third of the UDFs applied to table reads
a note or harmless, not a merge blocker: a modest table, a library call that has no built-in twin). The message
says where it runs: on a read of a table or files (`spark.table(...).withColumn("c", f("x"))`, or a
registered UDF in `spark.sql("SELECT f(x) FROM t")`), on a DataFrame whose size the file does not
show (a function's parameter), or not in the file at all (a helper module: the cost is where it is
called; but a file that runs a job of its own, with actions at its module level, and never applies
a UDF it defines has dead code, not a cost: not reported). A warning when it runs on a table or path the configuration declares large
(`large-tables`). A UDF applied only to rows built on the driver (also through a function's
parameter that every call of the function in the file fills with such rows), and UDFs in test code,
are not reported.

## Why is this bad?
Each row is pickled, sent to a Python worker process, evaluated by the interpreter and sent back. This
is typically 10-100x slower than a built-in function, which runs inside the JVM with code generation,
and it hides the expression from the optimizer (no pushdown, no constant folding).

## Example
```plan
== Physical Plan ==
*(2) Project [name#1, pythonUDF0#5 AS upper#4]
+- BatchEvalPython [to_upper(name#1)#3], [pythonUDF0#5]
   +- *(1) LocalTableScan [name#1]
```
Use instead (`F.upper("name")`, no Python in the plan):
```plan
== Physical Plan ==
*(1) Project [name#1, upper(name#1) AS upper#4]
+- *(1) LocalTableScan [name#1]
```

## Example (PySpark)
```python
from pyspark.sql.functions import udf

@udf("string")
def to_upper(s):
    return s.upper()
```
Use instead:
```python
from pyspark.sql import functions as F
upper = F.upper("name")
```

## Fix safety
Plans: display-only. PySpark source: when the UDF is a lambda bound to a name with a one-argument
built-in equivalent (`lambda s: s.upper()` -> `F.upper`, `.lower()`, `.strip()`, `len(s)`,
`abs(x)`) and `pyspark.sql.functions` is imported, every call site is rewritten to the built-in as an
unsafe fix (`--unsafe-fixes`): the UDF's declared return type (StringType unless given) and its null
handling can differ from the built-in's. Arithmetic lambdas get the expression as a suggestion only.
Otherwise: replace the UDF with a built-in from `pyspark.sql.functions` where one exists, or make
it a vectorised `@pandas_udf`, which exchanges Arrow batches instead of single rows. The finding
names the built-ins from what the UDF's body (the lambda, or the `def` it wraps) does: a loop, a
comprehension, `all()` or `any()` over an array points to the higher-order functions `transform`,
`filter`, `exists`, `forall` and `aggregate` (Spark 3.1+); string, date, JSON, hash and conditional
code points to their twins (`initcap`, `regexp_replace`, `split`, `lpad`, `date_format`,
`to_timestamp`, `from_json`, `sha2`, `when` / `otherwise`, ...).

## Options
`large-tables` (configuration): tables and paths (globs) known to be large; in source, a finding
over one of them is a warning.
)md"};

void check_python_row_udf(PlanContext& ctx) {
  for (const PlanNode* n : ctx.physical_nodes()) {
    const auto* py = n->as<plan::PythonEvalInfo>();
    if (py == nullptr || n->name.find("BatchEvalPython") == std::string::npos) continue;
    std::string udfs;
    for (const auto& u : py->udf_names) udfs += (udfs.empty() ? "" : ", ") + u;
    if (udfs.empty()) udfs = "(unnamed)";
    ctx.report(*n, "row-at-a-time Python UDF " + udfs + ": every row is serialised to a Python worker and back",
               "Use a built-in or a pandas UDF",
               "Replace " + udfs +
                   " with a built-in from pyspark.sql.functions (e.g. F.upper, F.length, "
                   "arithmetic on columns) or declare it with @pandas_udf to process Arrow batches.");
  }
}

namespace {

// The built-in that a one-expression lambda UDF is, if there is an obvious one.
std::string builtin_for(const pyspark::Expr::Lambda& l) {
  if (l.params.size() != 1) return {};
  const std::string p(l.params[0]);
  std::string b;
  for (char c : l.body)
    if (c != ' ') b += c;
  if (b == p + ".upper()") return "F.upper(col)";
  if (b == p + ".lower()") return "F.lower(col)";
  if (b == p + ".strip()") return "F.trim(col)";
  if (b == p + ".lstrip()") return "F.ltrim(col)";
  if (b == p + ".rstrip()") return "F.rtrim(col)";
  if (b == "len(" + p + ")") return "F.length(col)";
  if (b == "abs(" + p + ")") return "F.abs(col)";
  if (b.rfind(p, 0) == 0 && b.size() > p.size() && std::string("+-*/").find(b[p.size()]) != std::string::npos &&
      b.find_first_not_of("0123456789.", p.size() + 1) == std::string::npos)
    return "F.col(...) " + std::string(1, b[p.size()]) + " " + b.substr(p.size() + 1);
  return {};
}

// The built-ins that do what a UDF body does, named from what the body uses: higher-order array
// functions for loops, comprehensions, all() and any(); string, date, JSON and hash functions for
// the Python calls that have a Spark twin. "" when nothing is recognised.
struct Advice {
  std::string lead, names, tail;
  [[nodiscard]] bool empty() const { return names.empty(); }
  [[nodiscard]] std::string text() const { return lead + names + tail; }
};
Advice advice_for(const std::string& body) {
  struct Twin {
    const char* python;
    const char* builtin;
  };
  static const Twin kArrays[] = {{"all(", "forall"},         {"any(", "exists"},
                                 {" for ", "transform"},     {" if ", "filter"},
                                 {"sum(", "aggregate"},      {"sorted(", "array_sort"},
                                 {"set(", "array_distinct"}, {"max(", "array_max"},
                                 {"min(", "array_min"},      {".count(", "size(filter(...))"}};
  static const Twin kScalars[] = {{"capitalize", "initcap"},
                                  {".title()", "initcap"},
                                  {".upper()", "upper"},
                                  {".lower()", "lower"},
                                  {".strip(", "trim"},
                                  {".lstrip(", "ltrim"},
                                  {".rstrip(", "rtrim"},
                                  {"re.sub(", "regexp_replace"},
                                  {".replace(", "regexp_replace"},
                                  {"re.search(", "regexp_extract"},
                                  {"re.match(", "regexp_extract"},
                                  {"re.findall(", "regexp_extract_all"},
                                  {".split(", "split"},
                                  {".startswith(", "startswith"},
                                  {".endswith(", "endswith"},
                                  {".zfill(", "lpad"},
                                  {".rjust(", "lpad"},
                                  {".ljust(", "rpad"},
                                  {"\".join(", "concat_ws"},
                                  {"'.join(", "concat_ws"},
                                  {"strftime(", "date_format"},
                                  {"strptime(", "to_timestamp"},
                                  {"timedelta(", "date_add"},
                                  {".year", "year"},
                                  {".month", "month"},
                                  {".weekday()", "dayofweek"},
                                  {"json.loads(", "from_json"},
                                  {"json.dumps(", "to_json"},
                                  {"hashlib.md5(", "md5"},
                                  {"sha256(", "sha2"},
                                  {"base64", "base64"},
                                  {"math.sqrt(", "sqrt"},
                                  {"math.log(", "log"},
                                  {"round(", "round"},
                                  {" if ", "when / otherwise"},
                                  {"len(", "length / size"}};
  auto pick = [&](const auto& table, std::size_t limit) {
    std::vector<std::string> names;
    for (const auto& t : table)
      if (body.find(t.python) != std::string::npos && std::find(names.begin(), names.end(), t.builtin) == names.end() &&
          names.size() < limit)
        names.emplace_back(t.builtin);
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "`" : ", `") + n + "`";
    return out;
  };
  bool loops = body.find(" for ") != std::string::npos || body.find("all(") != std::string::npos ||
               body.find("any(") != std::string::npos;
  std::string scalars = pick(kScalars, 4);
  // A loop over the words of a string (`for w in s.split(" ")`) is string work, not array work.
  if (loops && (body.find(".split(") == std::string::npos || scalars.empty()))
    return {"it loops over an array: the higher-order built-ins ", pick(kArrays, 4),
            " (Spark 3.1+) do that in the JVM"};
  if (scalars.empty()) return {};
  return {"pyspark.sql.functions has what its body does: ", scalars, ""};
}

}  // namespace

// The pyspark.sql.functions name for a one-argument built-in suggestion ("F.upper(col)" -> "upper").
std::string function_of(const std::string& builtin) {
  if (builtin.rfind("F.", 0) != 0 || builtin.find("(col)") == std::string::npos) return {};
  return builtin.substr(2, builtin.find('(') - 2);
}

// Source: @udf, F.udf(...), udf(lambda ...), spark.udf.register(name, python_function).
namespace {

// Where the file calls names, indexed once per file (a file may make thousands of UDFs): every
// `name(` in the arguments of each DataFrame step (in Python, or in the SQL text of a query), and in
// the text of each cell. Not `def name(` (the function a decorator makes a UDF), not `x.name(`.
class CallSites {
 public:
  explicit CallSites(const pyspark::SourceModel& m) : m_(m) {
    for (const auto& chain : m.chains)
      for (std::size_t i = 0; i < chain.links.size(); ++i)
        for (const auto& a : chain.links[i].args) {
          for_each_call(a.value.text(), [&](std::string_view name) {
            auto& list = by_name_[std::string(name)];
            if (list.empty() || list.back().chain != &chain || list.back().link != i) list.push_back({&chain, i});
          });
          args_.push_back({chain.cell, a.value.pos().start_byte, a.value.pos().end_byte, &chain, i});
        }
    for (const auto& cell : m.file->cells)
      for_each_call(cell.text, [&](std::string_view name) { anywhere_.emplace(name); });
    std::sort(args_.begin(), args_.end(),
              [](const ArgAt& a, const ArgAt& b) { return std::tie(a.cell, a.start) < std::tie(b.cell, b.start); });
  }

  // How many rows the file runs the UDF `u` on, at most, as far as it shows: the rows before each
  // step whose arguments call it (`df.withColumn("c", f("x"))`, `spark.sql("SELECT f(x) FROM t")` for
  // a registered one), or, for a UDF made inline (`F.udf(f)(col)`), before the step holding it.
  // nullopt: the file never calls it (a helper module, a shared notebook). `large` gets the first
  // table or path among `declared` (large-tables) that those rows are read from.
  [[nodiscard]] std::optional<pyspark::Volume> applied_to(const pyspark::UdfDef& u,
                                                          const std::vector<std::string>& declared,
                                                          std::string& large) const {
    std::optional<pyspark::Volume> most;
    auto note = [&](const pyspark::Chain& chain, std::size_t link) {
      auto pipeline = chain.pipeline();
      std::size_t at = pipeline.size() - chain.links.size() + link;
      if (chain.links[link].name == "sql") ++at;  // a step reads the rows before it; a query its own
      if (large.empty()) large = declared_large_read(pipeline, at, declared);
      const pyspark::Volume v = pyspark::volume_of(pyspark::rows_before(m_, pipeline, at).rows);
      if (!most || static_cast<int>(v) > static_cast<int>(*most)) most = v;
    };
    if (u.name.empty()) {
      // The arguments that hold the inline UDF: those starting at or before it (sorted by start), the
      // nearest first, as far back as an argument can still enclose it.
      auto it = std::upper_bound(
          args_.begin(), args_.end(), std::make_pair(u.cell, u.pos.start_byte),
          [](const std::pair<int, std::uint32_t>& k, const ArgAt& a) { return k < std::make_pair(a.cell, a.start); });
      for (int looked = 0; it != args_.begin() && looked < 256; ++looked) {
        --it;
        if (it->cell != u.cell) break;
        if (it->end >= u.pos.end_byte) note(*it->chain, it->link);
      }
      return most ? most : std::optional<pyspark::Volume>(pyspark::Volume::unknown);
    }
    if (auto found = by_name_.find(u.name); found != by_name_.end())
      for (const auto& site : found->second) note(*site.chain, site.link);
    if (most) return most;
    // Called where no DataFrame step holds it (a function's return value, a comprehension): unknown.
    if (anywhere_.count(u.name) != 0) return pyspark::Volume::unknown;
    return std::nullopt;
  }

 private:
  template <class F>
  static void for_each_call(std::string_view text, F&& f) {
    for (std::size_t at = text.find('('); at != std::string_view::npos; at = text.find('(', at + 1)) {
      std::size_t end = at;
      while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
      std::size_t begin = end;
      while (begin > 0 && identifier_char(text[begin - 1])) --begin;
      if (begin == end || std::isdigit(static_cast<unsigned char>(text[begin])) != 0) continue;
      if (begin > 0 && text[begin - 1] == '.') continue;
      const std::size_t before = begin == 0 ? std::string_view::npos : text.find_last_not_of(" \t", begin - 1);
      if (before != std::string_view::npos && before >= 2 && text.substr(before - 2, 3) == "def") continue;
      f(text.substr(begin, end - begin));
    }
  }
  struct Site {
    const pyspark::Chain* chain;
    std::size_t link;
  };
  struct ArgAt {
    int cell;
    std::uint32_t start, end;
    const pyspark::Chain* chain;
    std::size_t link;
  };
  const pyspark::SourceModel& m_;
  std::unordered_map<std::string, std::vector<Site>> by_name_;
  std::unordered_set<std::string> anywhere_;
  std::vector<ArgAt> args_;
};

}  // namespace

namespace {
// How many times the file's text has `name` as a whole word (not an attribute: `obj.name`).
int mentions(const pyspark::SourceModel& m, std::string_view name) {
  int n = 0;
  for (const auto& cell : m.file->cells) {
    const std::string_view t = cell.text;
    for (std::size_t at = t.find(name); at != std::string_view::npos; at = t.find(name, at + name.size())) {
      const bool starts = at == 0 || (!identifier_char(t[at - 1]) && t[at - 1] != '.');
      const bool ends = at + name.size() >= t.size() || !identifier_char(t[at + name.size()]);
      n += starts && ends ? 1 : 0;
    }
  }
  return n;
}
}  // namespace

void check_python_row_udf_source(SourceContext& ctx) {
  const auto& m = ctx.model();
  std::optional<CallSites> sites;  // built for the first row UDF: most files have none
  std::optional<bool> runs_job;    // actions at the file's module level, asked for a UDF it never calls
  for (const auto& u : m.udfs) {
    if (u.kind != pyspark::UdfKind::row) continue;
    // A UDF defined by a test is there to be tested on a fixture; its cost is where production calls it.
    if (in_test_code(m, std::string_view(u.enclosing))) continue;
    if (!sites) sites.emplace(m);
    std::string large;  // a table or path declared large that it runs on
    const std::optional<pyspark::Volume> volume = sites->applied_to(u, ctx.options().large_tables, large);
    if (volume == pyspark::Volume::small) continue;  // run on a few rows built on the driver
    const bool applied = volume.has_value();
    // Not called in a file that runs a job of its own (actions at its module level: a script, a
    // notebook that computes): a UDF it defines and never applies is dead code there, not a helper
    // module's (a module of functions only is called elsewhere: its cost is where it is).
    // (Not one registered for SQL, which any query of the session may call, nor one whose name the
    // file uses other than where it is made: passed to a transformer, listed for export.)
    if (!applied && u.how != "register" && !u.name.empty() && mentions(m, u.name) <= 1) {
      if (!runs_job)
        runs_job = std::any_of(m.chains.begin(), m.chains.end(), [](const pyspark::Chain& c) {
          return c.function.empty() && pyspark::action_link(c) != nullptr;
        });
      if (*runs_job) continue;
    }
    std::string builtin = u.lambda ? builtin_for(*u.lambda) : std::string();
    std::string what = u.name.empty() ? std::string("this UDF") : "`" + u.name + "`";
    // What the body does, for advice naming the built-ins: the lambda's, or the wrapped def's.
    std::string body = u.lambda ? std::string(u.lambda->body) : std::string();
    if (const pyspark::FunctionInfo* f = m.function(u.function); body.empty() && !u.function.empty() && f != nullptr)
      body = std::string(f->body);
    Advice advice = builtin.empty() ? advice_for(" " + body) : Advice{};
    auto& d = ctx.report(u.cell, u.pos,
                         what + " is a row-at-a-time Python UDF: every row is serialised to a Python worker and back" +
                             (builtin.empty() ? "" : "; the built-in " + builtin + " does the same in the JVM") +
                             (advice.empty() ? "" : "; " + advice.text()) +
                             (!applied ? " (it is not called in this file: the cost is where it is)"
                              : volume == pyspark::Volume::unknown ? " (on rows whose number the code does not show)"
                                                                   : ""));
    // Advice (info) wherever it runs: the code does not show how many rows go through Python. A table
    // or path the configuration declares large shows it: a warning.
    d.severity = large.empty() ? Severity::info : Severity::warning;
    if (!large.empty()) d.message += " (it runs on `" + large + "`, declared large)";
    std::string fn = function_of(builtin);
    std::string spelling = fn.empty() ? std::string() : functions_spelling(m, fn);
    Fix& f = ctx.attach_fix(
        d, builtin.empty() ? "Use a built-in or a pandas UDF" : "Call the built-in instead",
        Applicability::display_only,
        builtin.empty() ? (advice.empty() ? std::string("Use built-ins from pyspark.sql.functions, or declare it with "
                                                        "@pandas_udf to process Arrow batches.")
                                          : "Rewrite it with " + advice.names +
                                                " from pyspark.sql.functions, or declare it with @pandas_udf.")
                        : "Replace calls of " + what + " with " + builtin + ".");
    // `upper("name")` -> `F.upper("name")` at every call site of a lambda UDF bound to a name, when
    // pyspark.sql.functions is already imported: unsafe, because the UDF's declared return type
    // (StringType unless given) and null handling can differ from the built-in's.
    if (u.name.empty() || spelling.empty()) continue;
    for (const auto& c : m.chains) {
      if (!c.root_is_call || c.root != u.name || c.root_expr.text.rfind(u.name + "(", 0) != 0) continue;
      std::uint32_t at = c.root_expr.pos.start_byte;
      SourceContext::add_edit(f, c.cell, at, at + static_cast<std::uint32_t>(u.name.size()), spelling);
    }
    if (!f.edits.empty()) f.applicability = Applicability::unsafe;
  }
}

}  // namespace planlint::rules
