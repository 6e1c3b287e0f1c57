// The DataFrame-chain IR that source rules see: imports resolved, call chains flattened, names bound
// across statements. Built from tree-sitter's CST by analyzer.cpp; no TSNode leaks out of it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pyspark/model_values.hpp"
#include "pyspark/notebook.hpp"

namespace planlint::pyspark {

struct Chain;

// An argument or other expression, reduced to what rules ask about. Text is viewed, not copied:
// views point into the cell's text (the SourceFile outlives its model) or at what the model keeps.
// A large file holds one for every argument of every call (a third of a million in 10 MB of
// PySpark), so it is 48 bytes: what only one kind of expression has shares a slot.
class Expr {
 public:
  struct Lambda {
    std::vector<std::string_view> params;
    std::string_view body;
  };
  // Read as a join condition (`df.join(other, <expr>)`): key names, a condition with an equality
  // between columns Spark can hash on, one without (`<`, `startswith`, `|`, `~(a == b)`), or unknown
  // (a variable, `F.expr(...)`).
  enum class Condition : std::uint8_t { unknown, keys, equality, no_equality };

  [[nodiscard]] std::string_view text() const {
    return text_ == nullptr ? std::string_view() : std::string_view(text_, pos_.end_byte - pos_.start_byte);
  }
  [[nodiscard]] const Pos& pos() const { return pos_; }
  // tree-sitter node type: "string", "integer", "identifier", "call", "lambda", ...
  [[nodiscard]] Kind kind() const { return kind_; }
  // A plain string literal's contents (a view of the cell, or kept by the model).
  [[nodiscard]] OptView string_value() const {
    return slot_ == Slot::string ? OptView(std::string_view(b_.string_data, static_cast<std::size_t>(a_.size)))
                                 : OptView();
  }
  [[nodiscard]] OptInt int_value() const { return slot_ == Slot::integer ? OptInt(a_.integer) : OptInt(); }
  [[nodiscard]] std::optional<bool> bool_value() const {  // True / False
    return bool_ == 0 ? std::nullopt : std::optional<bool>(bool_ == 2);
  }
  // For calls: the resolved dotted name ("pyspark.sql.functions.col").
  [[nodiscard]] std::string_view callee() const { return slot_ == Slot::chain ? std::string_view(b_.callee) : ""; }
  // Columns it names: "k", F.col("k"), df.k, df["k"].
  [[nodiscard]] std::span<const std::string_view> column_names() const {
    return columns_ == nullptr ? std::span<const std::string_view>() : *columns_;
  }
  // When the expression is a method chain (df.limit(5), broadcast(x)) or a name bound to one.
  [[nodiscard]] const Chain* chain() const { return slot_ == Slot::chain ? a_.chain : nullptr; }
  // A lambda's parameters and body (kept by the model).
  [[nodiscard]] const Lambda* lambda() const { return slot_ == Slot::lambda ? a_.lambda : nullptr; }
  [[nodiscard]] Condition condition() const { return condition_; }

  // For the analyzer. The text is the bytes of `pos` in the cell.
  void set_text(std::string_view text, const Pos& pos) {
    text_ = text.size() == pos.end_byte - pos.start_byte && !text.empty() ? text.data() : nullptr;
    pos_ = pos;
  }
  void set_kind(Kind k) { kind_ = k; }
  void set_string_value(const OptView& v) {
    if (!v) return;
    slot_ = Slot::string;
    b_.string_data = (*v).data();
    a_.size = (*v).size();
  }
  void set_int_value(const OptInt& v) {
    if (!v) return;
    slot_ = Slot::integer;
    a_.integer = *v;
  }
  void set_bool_value(bool v) { bool_ = v ? 2 : 1; }
  void set_lambda(const Lambda* l) {
    slot_ = Slot::lambda;
    a_.lambda = l;
  }
  // A call's callee (kept by the model, or empty) and its chain, or the chain a name is bound to.
  void set_chain(const Chain* c, KeptName callee = {}) {
    slot_ = Slot::chain;
    a_.chain = c;
    b_.callee = callee;
  }
  void set_columns(const std::span<const std::string_view>* kept) { columns_ = kept; }
  void set_condition(Condition c) { condition_ = c; }

 private:
  enum class Slot : std::uint8_t { none, string, integer, lambda, chain };
  const char* text_ = nullptr;
  Pos pos_;
  union A {
    const Chain* chain = nullptr;
    const Lambda* lambda;
    std::int64_t integer;
    std::size_t size;  // of the string value
  } a_;
  union B {
    KeptName callee{};
    const char* string_data;
  } b_;
  const std::span<const std::string_view>* columns_ = nullptr;  // kept by the model
  Kind kind_;
  Condition condition_ = Condition::unknown;
  std::uint8_t bool_ = 0;  // 0 none, 1 False, 2 True
  Slot slot_ = Slot::none;
};

struct Arg {
  KeptName keyword;  // empty for positional (kept by the model: one pointer, as there are many arguments)
  Expr value;
};

// One link of a chain: `.name(args)` or, when is_call is false, an attribute `.name`.
struct Link {
  KeptName name;        // as written (kept by the model: a few distinct names, one pointer each)
  ArenaList<Arg> args;  // kept by the model
  bool is_call = false;
  // What the link is applied to, as far as the code shows: a Spark DataFrame, an RDD, a value on the
  // driver (after toPandas(), collect(), count()...: a pandas DataFrame, a list), or unknown.
  enum class On : std::uint8_t { unknown, dataframe, rdd, local };
  On on = On::unknown;
  // What the analysis tells kinds of data apart by, of the name (bits of analyzer_types.cpp's LinkKind):
  // looked up once, when the link is made, where classify() asked several sets on every run.
  std::uint16_t kinds = 0;
  Pos name_pos;  // the method name
  Pos link_pos;  // from the '.' to the end of the call: what removing the link removes
  Pos expr_pos;  // the whole expression up to and including this link
  [[nodiscard]] const Arg* arg(std::size_t index, std::string_view keyword = {}) const;
  // `withColumn(name, col)` as Spark's DataFrame takes it: two arguments, the second not a string or
  // number literal; `join` with no keyword but other, on and how. Another library's method of the
  // name (dbldatagen's `withColumn("c", "float", minValue=1)`, polars' `join(o, left_on=...)`) is not
  // Spark's. True for every other link.
  [[nodiscard]] bool spark_signature() const;
};

struct Chain;
struct Step {
  const Chain* chain;
  const Link* link;
};

struct Chain {
  // Declared largest first, the flags last: a large file holds many chains.
  KeptName root;  // identifier at the start ("spark", "df"), or the callee for a call root (kept by the model)
  // Where the chain starts, as written: the root name or the root call (`spark`, `F.udf(...)`).
  struct Root {
    std::string_view text;
    Pos pos;
  } root_expr;
  ArenaList<Link> links;     // kept by the model
  ArenaList<Arg> root_args;  // the arguments of a root call: load(path), f(df, "k")
  Pos pos;
  KeptName assigned_to;  // `name = <chain>` (simple names and `self.x`, kept by the model)
  KeptName function;     // the enclosing def, "" at module level
  // The if-statement branches around the chain, outermost first: (if statement number, branch:
  // 0 the `if` body, 1.. each `elif` / `else` in order). Two chains in different branches of one
  // if statement never both run in one pass.
  class Branches {
   public:
    Branches() = default;
    explicit Branches(const std::vector<std::pair<int, int>>* list) : list_(list) {}
    [[nodiscard]] const std::pair<int, int>* begin() const { return list_ == nullptr ? nullptr : list_->data(); }
    [[nodiscard]] const std::pair<int, int>* end() const { return begin() + size(); }
    [[nodiscard]] std::size_t size() const { return list_ == nullptr ? 0 : list_->size(); }
    [[nodiscard]] bool empty() const { return size() == 0; }

   private:
    const std::vector<std::pair<int, int>>* list_ = nullptr;
  } branches;                    // kept by the model (one pointer: a large file holds many chains)
  const Chain* bound = nullptr;  // the chain `root` was bound to when this one ran
  OptPos whole_statement;        // the chain is a whole expression statement: its removal range
  int cell = 1;
  int statement = 0;  // order of the enclosing statement in the file
  int loop = 0;       // the innermost loop around the chain (numbered from 1), 0 outside loops
  // One bit each.
  bool root_is_call : 1 = false;
  bool in_loop : 1 = false;
  bool is_dataframe : 1 = false;
  bool is_rdd : 1 = false;               // an RDD after its last link (sc.parallelize(...), df.rdd.map(...))
  bool rdd_of_dataframe : 1 = false;     // that RDD holds a DataFrame's rows (it went through `.rdd`)
  bool is_session : 1 = false;           // a SparkSession expression (spark, SparkSession.builder...getOrCreate())
  bool ends_local : 1 = false;           // its value lives on the driver: toPandas(), collect(), count()...
  bool window_spec : 1 = false;          // a window specification: Window.partitionBy(...).orderBy(...)
  bool root_is_loop_target : 1 = false;  // `root` is rebound by that loop on every turn (`for df in dfs:`)
  // A Column of the DataFrame `root` is bound to (`df.amount`, `df.amount.cast("int")`): an
  // expression of the plan, not a use of the DataFrame, and not a DataFrame itself.
  bool column_of : 1 = false;
  bool is_reader : 1 = false;  // a DataFrameReader (`spark.read.format("csv")`): not yet a DataFrame
  // On an error path: in an `if`/`elif`/`else` branch that ends in `raise`, an `except` clause or
  // the message of an `assert`. It runs when something went wrong, not in the job's normal run.
  bool on_error_path : 1 = false;
  // In an `if <loop variable> == <literal>:` inside its loop: runs on one turn at most.
  bool once_per_loop : 1 = false;
  // In an if statement (any branch) inside its loop whose condition reads the loop variable (`if c
  // not in df.columns:`): runs on the turns the test picks, as many as the loop's at most.
  bool some_turns : 1 = false;
  // Passed where a def uses its parameter as a Spark DataFrame (`save(df)` of `def save(d): d.write...`):
  // one, whatever made it (set on the first chain of its pipeline; the others follow through `bound`).
  bool used_as_dataframe : 1 = false;
  // Links of the bound chains, earliest first, then this chain's links: the whole pipeline.
  [[nodiscard]] std::vector<Step> pipeline() const;
  [[nodiscard]] const Chain* origin() const;  // the first chain of the pipeline
};
// The sizes a large file's memory is counted in (bench/scaling): keep them when adding fields.
static_assert(sizeof(Arg) <= 56 && sizeof(Link) <= 48 && sizeof(Chain) <= 120);

enum class UdfKind { row, pandas, other };

struct UdfDef {
  std::string name;  // the Python name it is bound to ("" for an inline udf(...) call)
  UdfKind kind = UdfKind::row;
  Pos pos;  // decorator, udf(...) call or register(...) call
  int cell = 1;
  std::optional<Expr::Lambda> lambda;
  std::string how;        // "decorator", "udf-call", "register"
  std::string function;   // the def it wraps (`@udf def f`, `udf(f)`, `register("n", f)`), "" for a lambda
  std::string enclosing;  // the def it is made in, "" at module level
};

struct ConfSetting {
  std::string key;
  std::string value;  // literal value as text ("200", "false", "-1"); empty when not a literal
  bool literal = false;
  Pos pos;  // the call (or SQL SET statement)
  Pos value_pos;
  int cell = 1;
  std::string via;            // "conf.set", "builder.config", "SparkConf.set", "SQL SET"
  std::string function;       // the enclosing def, "" at module level
  bool local_branch = false;  // inside `if <a local or test run>:` (`mode == "local"`, `is_test`)
  // Set when the setting is a statement of its own (`spark.conf.set(k, v)` on its line): the bytes
  // that removing the statement removes (its lines, line break included).
  std::optional<Pos> statement;
};

// A row count used as a yes/no question: `df.count() == 0`, `0 < df.count()`, `if df.count():`,
// `not df.count()`, `len(df.collect()) > 0`. Comparisons with other numbers are not recorded.
struct SizeTest {
  const Chain* chain = nullptr;  // the chain ending in `.count()` (or `.collect()` for len(...))
  bool via_len = false;          // len(df.collect())
  bool means_empty = false;      // true: "is it empty?" (== 0, < 1, <= 0, not ...); false: "has rows?"
  Pos pos;                       // the whole test expression, what a fix replaces
  int cell = 1;
};

struct Loop {
  Pos pos;  // the `for` / `while` keyword
  int cell = 1;
  // How many turns the code spells out: `for x in ["a", "b"]` (a literal list, tuple or set), `range(3)`;
  // -1 when the count depends on data.
  int known_turns = -1;
  bool over_columns = false;  // `for c in df.columns` (or a DataFrame's schema or dtypes): a turn per column
  int parent = 0;             // the loop this one is in (its number), 0 when none
};

struct Comment {
  Pos pos;
  std::string_view text;  // a view of the cell
  int cell = 1;
};

struct SyntaxProblem {
  int cell = 1;
  Place at;
  std::string message;
  // Advice, not a failure: nothing is broken or hidden from the analysis (valid Python 2, a
  // template's placeholder such as `<FILL-IN>`, a notebook cell that names nothing of Spark).
  bool advisory = false;
};

// How many rows a DataFrame can hold at some step of its pipeline, as far as the code shows.
enum class Rows {
  unknown,  // anything: a table, a file, a join
  one,      // a global aggregate, first(), a SELECT without FROM
  few,      // limit(n), a literal createDataFrame, spark.range(small), SHOW/DESCRIBE
  driver,   // built on the driver (createDataFrame(pandas_df), parallelize(list)): small by construction
  grouped,  // a grouped aggregate or distinct values: as many rows as keys
  // Evidence of volume: a read of a table or files (or a query over one) that nothing aggregates,
  // limits or filters to a key, or a join, union or explode of such data.
  large,
};

struct RowsFact {
  Rows rows = Rows::unknown;
  std::string why;  // "a global aggregate", "limit(10)", ...
  // Rows::large made by a join, union or explode with a read: more rows than any one table holds.
  bool multiplied = false;
  // Filtered to a key (`filter(F.col("id") == x)`, `WHERE k = 'v'`, `isin(...)`): a lookup, not a scan.
  bool keyed = false;
};

struct SourceModel;
// Rows of the DataFrame that pipeline[index] is applied to (index == size: after the last step).
RowsFact rows_before(const SourceModel& m, const std::vector<Step>& pipeline, std::size_t index);
// Rows of what a chain evaluates to (also a chain without links: `broadcast(df)`, `helper(df)`).
RowsFact rows_of(const SourceModel& m, const Chain& chain);
// Whether a path's text names a Delta transaction log file (`.../_delta_log/...`, or a 20-digit
// commit number then `.json`): a few KB of metadata.
bool delta_log_path(std::string_view text);
// The registration of temporary view `name` (lower case) that `reader` reads: the last one before it
// in the file (any, when reader is null), or nullptr.
const Chain* registered_view(const SourceModel& m, std::string_view name, const Chain* reader);
// Fills SourceModel::temp_views from the model's chains (once, after the analysis).
void index_temp_views(SourceModel& m);
// Fills SourceModel::calls_of (once, after the analysis).
void index_calls(SourceModel& m);
[[nodiscard]] inline bool small_by_construction(Rows r) {
  return r == Rows::one || r == Rows::few || r == Rows::driver;
}
// What a volume rule says of data with these rows (docs/rules: "Severity follows evidence"): nothing
// when they are few by construction, a warning when the code shows volume, else an advisory info.
// A rule that needs more than a read to warn (collect-large, topandas-without-arrow: lookup tables
// are read whole on purpose) asks RowsFact::multiplied as well.
enum class Volume { small, unknown, large };
[[nodiscard]] inline Volume volume_of(Rows r) {
  if (small_by_construction(r)) return Volume::small;
  return r == Rows::large ? Volume::large : Volume::unknown;
}

// One `def` at module level or in a class, with what the file tells about its DataFrames.
struct FunctionInfo {
  std::vector<std::string> params;
  std::set<std::string, std::less<>> dataframe_params;  // annotated `: DataFrame` or called with a DataFrame
  std::set<std::string, std::less<>> pandas_params;     // used as a pandas DataFrame (`p.copy()`, `inplace=True`)
  // Used as a Spark DataFrame in the body (`p.withColumn(...)`, `p.write`), not only passed one: what
  // every caller passes there is one.
  std::set<std::string, std::less<>> spark_params;
  bool returns_dataframe = false;  // `-> DataFrame` or a returned DataFrame chain
  // A framework's entry point, which computes what the function returns once and ends the build: a
  // Foundry transform (`@transform_df`, `@transform`... of transforms.api), a Delta Live Tables table
  // or view (`@dlt.table`), a dbt Python model (`def model(dbt, session)`).
  bool framework_entry = false;
  std::vector<const Chain*> returns;  // chains returned (`return spark.table(t)...`)
  std::string_view body;              // the source of its body (the first 16 KiB; a view of the cell)
  // A function of another module of the project (what its exports say; it has no body here): the
  // actions it runs on its parameters, (parameter, action name as action_link names it: "count",
  // "write"...), and what the DataFrame it returns does (shuffles; is cached).
  bool imported = false;
  std::vector<std::pair<std::string, std::string>> param_actions;
  std::vector<std::string> cached_params;  // parameters it caches: the caller's later uses read the cache
  bool returns_shuffle = false;
  bool returns_cache = false;
  bool returns_few = false;  // every return is few rows by construction (data built on the driver)
  // Parameters that are empty unless a caller fills them: a default of `()`, `[]`, `None`, `tuple()`,
  // `list()`, and `*args`.
  std::set<std::string, std::less<>> empty_default_params;
  std::map<std::string, long long, std::less<>> int_defaults;  // `num_partitions=1`: the default's value
};

struct SourceModel {
  SourceModel() = default;
  // Moved, never copied: expressions point into `lambdas` and view `names`.
  SourceModel(const SourceModel&) = delete;
  SourceModel& operator=(const SourceModel&) = delete;
  SourceModel(SourceModel&&) = default;
  SourceModel& operator=(SourceModel&&) = default;
  ~SourceModel() = default;

  const SourceFile* file = nullptr;
  ChunkList<Chain> chains;  // every maximal chain, in source order
  std::deque<UdfDef> udfs;  // deques: a large file has tens of thousands, and a vector grows by copies
  std::deque<ConfSetting> settings;
  std::vector<SizeTest> size_tests;
  std::vector<Loop> loops;  // loops[n - 1] is loop number n (Chain::loop)
  std::vector<Comment> comments;
  std::vector<SyntaxProblem> syntax_errors;
  std::vector<SyntaxProblem> depth_limits;  // code nested too deep to analyse: once per cell, where it starts
  std::map<std::string, std::string, std::less<>> imports;  // local name -> dotted module or object (set_import)
  std::set<std::string, std::less<>> star_imports;          // modules imported with *
  std::set<std::string, std::less<>> udf_names;             // names bound to row-at-a-time UDFs
  std::set<std::string, std::less<>>
      literal_collections;                                // names bound once, to a list, dict, tuple or set written out
  std::map<std::string, int, std::less<>> literal_sizes;  // items of each literal collection (also imported ones)
  // Names bound to a path of the code's own folder (`HERE = os.path.dirname(__file__)`, or made of
  // such a name), also imported ones: files there ship with the code.
  std::set<std::string, std::less<>> code_paths;
  std::set<std::string, std::less<>> pandas_udf_names;
  std::set<std::string, std::less<>> nondeterministic_udfs;    // UDF names bound to a udf(...).asNondeterministic()
  std::map<std::string, FunctionInfo, std::less<>> functions;  // by name (add with add_function)
  // `df.createOrReplaceTempView("v")` (and createTempView, the global ones, registerTempTable) by the
  // view's name in lower case, in source order: a query of the view reads df's rows.
  std::unordered_map<std::string, std::vector<const Chain*>> temp_views;
  // The calls of each function defined in the file, by its name (`f(df)` as a chain's root), for
  // what its parameters hold; only for a function whose name the file uses nowhere else (passed as a
  // value, `df.transform(f)`, redefined): then these calls are all the ways it runs from this file.
  std::unordered_map<std::string_view, std::vector<const Chain*>> calls_of;
  // A module of the project it imports (or a notebook it %runs) runs on Databricks only.
  bool imports_databricks = false;
  bool imports_arrow = false;        // a project module it imports or %runs turns Arrow on (sets_arrow)
  bool local_master = false;         // .master("local...") / setMaster("local..."): a local session
  ModelArena arena;                  // what the spans of Expr, Link and Chain view
  std::deque<Expr::Lambda> lambdas;  // what Expr::lambda points at
  std::deque<std::vector<std::pair<int, int>>> branch_lists;  // what Chain::branches views
  // Looked up by a view first: a name met again (most are) is kept without a string being made.
  struct NameHash {
    using is_transparent = void;
    // Eight bytes at a time, inline: names are short, and std::hash's call was most of a lookup.
    std::size_t operator()(std::string_view s) const noexcept {
      constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;
      std::uint64_t h = (s.size() + 1) * kMul;
      std::size_t i = 0;
      for (; s.size() - i >= 8; i += 8) {
        std::uint64_t w = 0;
        std::memcpy(&w, s.data() + i, 8);
        h = (h ^ w) * kMul;
        h ^= h >> 29;
      }
      if (i < s.size()) {
        std::uint64_t w = 0;
        for (std::size_t k = i; k < s.size(); ++k) w = (w << 8) | static_cast<unsigned char>(s[k]);
        h = (h ^ w) * kMul;
        h ^= h >> 29;
      }
      return static_cast<std::size_t>(h);
    }
  };
  // Each name once (what KeptName and Expr::callee point at): the strings in blocks that never move,
  // found through an open-addressing table of their hashes (no node, no division per lookup).
  class NameTable {
   public:
    const std::string* find_or_add(std::string_view name) {
      if ((count_ + 1) * 2 > slots_.size()) grow();
      const std::size_t h = NameHash{}(name);
      for (std::size_t at = h & (slots_.size() - 1);; at = (at + 1) & (slots_.size() - 1)) {
        Slot& slot = slots_[at];
        if (slot.name == nullptr) {
          slot = {h, &strings_.emplace_back(name)};
          ++count_;
          return slot.name;
        }
        if (slot.hash == h && *slot.name == name) return slot.name;
      }
    }
    [[nodiscard]] std::size_t size() const { return count_; }

   private:
    struct Slot {
      std::size_t hash = 0;
      const std::string* name = nullptr;
    };
    void grow() {
      std::vector<Slot> old = std::move(slots_);
      slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
      for (const Slot& s : old)
        if (s.name != nullptr) {
          std::size_t at = s.hash & (slots_.size() - 1);
          while (slots_[at].name != nullptr) at = (at + 1) & (slots_.size() - 1);
          slots_[at] = s;
        }
    }
    std::vector<Slot> slots_;
    std::size_t count_ = 0;
    ChunkList<std::string> strings_;
  };
  NameTable names;
  const std::string* keep_string(std::string_view name) { return names.find_or_add(name); }
  std::string_view keep(std::string_view name) { return *keep_string(name); }
  KeptName keep_name(std::string_view name) { return KeptName(keep_string(name)); }

  // functions[name], made if it is not there, also in the hashed index function() reads.
  FunctionInfo& add_function(std::string_view name);
  // functions[name], or nullptr: a hashed lookup (a chain's root is looked up for every call chain).
  [[nodiscard]] const FunctionInfo* function(std::string_view name) const {
    if (functions.empty()) return nullptr;
    auto it = function_index_.find(name);
    return it == function_index_.end() ? nullptr : it->second;
  }
  [[nodiscard]] FunctionInfo* function(std::string_view name) {
    return const_cast<FunctionInfo*>(std::as_const(*this).function(name));
  }

  // imports[local] = qualified, also in the hashed index that qualify() reads.
  void set_import(std::string_view local, std::string qualified);
  [[nodiscard]] bool has_import(std::string_view local) const {
    return may_import(local) && import_index_.count(local) != 0;
  }
  // False when no import has `local`'s first character and length: most names asked about (df,
  // spark, a column) are not imported, and are then not looked up.
  [[nodiscard]] bool may_import(std::string_view local) const {
    if (local.empty() || local.size() > 63) return true;  // looked up as before
    const auto first = static_cast<unsigned char>(local.front());
    return (import_lengths_ >> local.size() & 1U) != 0 && (import_firsts_[first / 64] >> (first % 64) & 1U) != 0;
  }
  // "F.col" -> "pyspark.sql.functions.col", "udf" -> "pyspark.sql.functions.udf".
  [[nodiscard]] std::string qualify(std::string_view dotted) const;
  // The same, as a view of `dotted` when nothing is imported under its first name, else of `buffer`
  // (no string is made for most names).
  [[nodiscard]] std::string_view qualify(std::string_view dotted, std::string& buffer) const;
  [[nodiscard]] bool is_function(std::string_view dotted, std::string_view qualified) const;
  [[nodiscard]] const Cell& cell(int number) const;
  // Lines and columns of a position in a cell (line starts read once per cell, when first asked).
  [[nodiscard]] Place place(int cell, const Pos& pos) const;

 private:
  mutable std::vector<std::vector<std::uint32_t>> line_starts_;  // by cell number
  // imports, hashed: qualify() asks for every call's name (a std::map lookup compared strings a
  // dozen times). The keys view the map's own (its nodes do not move).
  std::unordered_map<std::string_view, const std::string*, NameHash, std::equal_to<>> import_index_;
  std::unordered_map<std::string_view, FunctionInfo*, NameHash, std::equal_to<>> function_index_;  // of functions
  std::uint64_t import_lengths_ = 0;              // bit n: an import's local name has n characters (n < 64)
  std::array<std::uint64_t, 4> import_firsts_{};  // bit c: an import's local name starts with byte c
};

// A Python cell longer than chunk_bytes is parsed a run of top-level statements at a time (see
// top_level_ranges); what is found does not depend on the size of the runs.
constexpr std::size_t kPythonChunkBytes = std::size_t{16} * 1024;
// ... and a run is cut at this size even without a statement boundary (an unclosed bracket).
constexpr std::size_t kPythonChunkLimit = std::size_t{4} * 1024 * 1024;
SourceModel analyze_source(const SourceFile& file, std::size_t chunk_bytes = kPythonChunkBytes);

// Whether the code runs on Databricks only: a Databricks notebook (or a Jupyter one exported from
// it), the runtime's dbutils or `databricks.sdk.runtime`, DBFS, volume or workspace paths, or a project module it
// imports that does. Databricks runtimes turn Arrow on for toPandas() and AQE on.
bool runs_on_databricks(const SourceModel& m);
// Whether the file sets spark.sql.execution.arrow.pyspark.enabled (or Spark 2's name) to true, or to a
// value it cannot read (then it may be on).
bool sets_arrow(const SourceModel& m);

// Whether a DataFrame method plans a shuffle (an exchange): joins, aggregations, distinct, sorts,
// repartitions, set operations, windows (`over`).
bool plans_shuffle(std::string_view method);

// The action a chain runs itself, if any: the link of its first driver result (`count()`,
// `collect()`, `toPandas()`, `toLocalIterator()`), `show()` / `first()` / `take()` / `head()`,
// `foreach` / `foreachPartition`, or the `write` / `writeTo` link of a write that ends in a save
// (`save`, `saveAsTable`, `parquet`...), or a Foundry transform output's `write_dataframe(df)`. Not
// `groupBy(...).count()` (an aggregation), nor what is called on rows already on the driver.
const Link* action_link(const Chain& c);

// Whether SQL text (a literal as written: `f"""MERGE ..."""`) is a statement that writes a table
// from a query: INSERT, MERGE, CREATE/REPLACE TABLE ... AS SELECT. `spark.sql` runs it at once; the
// DataFrame it returns holds the statement's result (a row of counts), not a lineage.
bool writes_table(std::string_view sql);

// Whether a chain caches its rows by one of its own links: `cache()`, `persist(...)`, `checkpoint()`,
// `localCheckpoint()`, or a method the code does not show whose name says it keeps the rows
// (`df.custom_checkpoint()`: see materialising_name).
bool caches_rows(const Chain& c);
bool caches_link(const Link& l);  // one link that does

// Whether every call of function `name` in the file passes its parameter `param` (by position or
// keyword, or through `*args` / `**kwargs`): then the parameter's default is never used here. False
// for a function the file does not call (called elsewhere, its defaults as likely as not).
bool every_call_passes(const SourceModel& m, std::string_view name, std::string_view param);

// A function or method name that says it keeps what it is given, by its words (snake_case or
// camelCase): checkpoint, cache(d), persist(ed), materialise(d)/materialize(d), or save(d) with a
// result (`df = temp_save(df, "t")`: written and read back). Not `unpersist`, `clearCache`,
// `isCached`, `uncache_table`, nor a name whose first word is un, clear, is, drop, remove or invalidate.
bool materialising_name(std::string_view name);

// A file read and analysed, the model pointing into the file (neither moves: held by pointer).
struct ParsedSource {
  SourceFile file;
  SourceModel model;
};

}  // namespace planlint::pyspark
