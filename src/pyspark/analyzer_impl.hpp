// The Analyzer that builds a SourceModel (analyze_source): its state while it walks a file's cells,
// and its passes, defined in analyzer.cpp (cells, statements, scopes and bindings, imports),
// analyzer_expressions.cpp (expressions and call chains), analyzer_types.cpp (what a chain is:
// DataFrame, RDD, session...) and analyzer_facts.cpp (UDFs, settings, loops, size tests).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
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

#include "pyspark/model.hpp"
#include "pyspark/notebook.hpp"
#include "pyspark/project.hpp"
#include "pyspark/syntax_access.hpp"
#include "pyspark/syntax_tree.hpp"

namespace planlint::pyspark::detail {

constexpr int kMaxDepth = 400;  // deeper nesting is not Spark code worth analysing; never overflow the stack

// The LinkKind bits of a link's name (analyzer_types.cpp): what classify() asks of it.
std::uint16_t link_kinds(std::string_view name);

// A map that a statement fills and clears: a vector searched linearly while it holds a few entries
// (a statement has a handful of chains; a std::map allocated a node for each), a std::map past that
// (a statement that is a list of thousands of calls).
template <class K, class V>
class StatementMap {
 public:
  [[nodiscard]] const V* find(const K& key) const {
    if (!large_.empty()) {
      auto it = large_.find(key);
      return it == large_.end() ? nullptr : &it->second;
    }
    for (const auto& [k, v] : small_)
      if (k == key) return &v;
    return nullptr;
  }
  // Adds key -> value unless key is there; whether it was added.
  bool insert(const K& key, const V& value) {
    if (find(key) != nullptr) return false;
    if (large_.empty() && small_.size() < kSmall) {
      small_.emplace_back(key, value);
      return true;
    }
    if (large_.empty()) large_.insert(small_.begin(), small_.end());
    large_.emplace(key, value);
    return true;
  }
  void clear() {
    small_.clear();
    large_.clear();
  }

 private:
  static constexpr std::size_t kSmall = 32;
  std::vector<std::pair<K, V>> small_;
  std::map<K, V> large_;
};

class Analyzer {
 public:
  Analyzer(const SourceFile& file, SourceModel& model, std::size_t chunk_bytes)
      : file_(file), m_(model), chunk_bytes_(chunk_bytes) {}

  void run();

 private:
  const SourceFile& file_;
  SourceModel& m_;
  // The current run's tree: one per thread, like the parser, so that its buffers stay warm in the
  // cache from file to file (fresh ones for each file were written cold: a third of planlint's
  // level-2 cache misses, by cachegrind with the machine's 1 MB L2). Its buffers keep the size of
  // the largest run the thread has parsed (bounded by kPythonChunkLimit), which does not raise the
  // peak: that run needed them anyway.
  SyntaxTree& tree_ = thread_tree();
  static SyntaxTree& thread_tree() {
    thread_local SyntaxTree tree;
    return tree;
  }
  const Cell* cell_ = nullptr;
  std::string_view src_;  // the cell's text: what node byte offsets index
  std::string_view run_;  // the part of it parsed into the current tree
  std::size_t chunk_bytes_ = kPythonChunkBytes;
  std::size_t chunk_limit_ = kPythonChunkLimit;
  // Hashed: looked up for every name a chain starts with (an ordered map compared a string a level).
  std::unordered_map<std::string, const Chain*, SourceModel::NameHash, std::equal_to<>> bindings_;
  // Inside a def or class, each change to bindings_ is logged with what it replaced, and undone when
  // the scope closes: copying the whole map at every def was quadratic in a long notebook.
  struct BindingChange {
    std::string name;
    std::optional<const Chain*> before;  // nullopt: the name was not bound
  };
  std::vector<BindingChange> binding_log_;
  int open_scopes_ = 0;

  // name -> chain; nullptr unbinds.
  void bind(const std::string& name, const Chain* chain);
  std::size_t open_scope() {
    ++open_scopes_;
    return binding_log_.size();
  }
  void close_scope(std::size_t mark);
  void undo_bindings(std::size_t mark);  // back to the bindings of when the log had `mark` entries
  int open_branches_ = 0;                // if statements being visited (their branches' bindings are logged)
  StatementMap<std::pair<std::uint32_t, std::uint32_t>, const Chain*> built_;  // this statement's chains by bytes
  int statement_ = 0;
  int loop_depth_ = 0;
  StatementMap<const Chain*, bool> noted_;
  std::vector<std::string_view> columns_;  // collect_columns' list for the expression being made
  Node statement_node_{};                  // the expression_statement being visited, if any
  std::optional<Expr::Lambda> first_lambda_;
  std::unordered_map<std::string, const std::span<const std::string_view>*> column_lists_;  // see intern_columns
  std::string column_key_;
  // The pairs of setAll(...) / config(map=...) links, by (cell, start of the link's name): few.
  std::map<std::pair<int, std::uint32_t>, std::span<std::pair<Expr, Expr>>> link_pairs_;
  std::vector<int> loops_;                     // open loops, innermost last
  std::vector<std::pair<int, int>> branches_;  // open if-statement branches, innermost last
  // ... as chains see them: kept once by the model each time they change.
  Chain::Branches branches_kept_;
  bool branches_changed_ = false;
  bool entry_decorated_ = false;  // the def being visited has a framework entry point's decorator
  int next_if_ = 0;
  int next_loop_ = 0;
  std::map<std::string, int, std::less<>> loop_targets_;  // names a `for` rebinds, to its loop
  std::vector<KeptName> functions_;                       // open defs, innermost last
  // Open class bodies, innermost last: the class name and how many defs were open around it (its
  // body proper, not a method, is where functions_ has that size).
  std::vector<std::pair<std::string, std::size_t>> classes_;
  std::map<std::string, const Chain*, std::less<>> self_bindings_;  // `self.df = ...` within one class
  // Names bound to a string in this scope (the last binding): its cell and the string as an Expr, read
  // only in that cell (positions are the cell's) by what asks (spark.sql(name), a write's path). Made
  // when the name is bound: a node would not outlive the run of statements it was parsed in.
  std::map<std::string, std::pair<int, Expr>, std::less<>> texts_;
  // Names bound to a list written out (`aggs = [F.sum(c) for c in cols]`), kept the same way, read
  // by select(aggs) / agg(aggs): the columns the list holds.
  std::map<std::string, std::pair<int, Expr>, std::less<>> lists_;
  std::map<std::string, Expr, std::less<>> constants_;              // names bound once to a literal at module level
  std::map<std::string, std::string, std::less<>> literal_scopes_;  // the function of each name's last binding
  // Inside a def, what each change to a name's literal collection replaced, undone when the def closes:
  // a function's `cols` is not the module's.
  struct LiteralChange {
    std::string name;
    bool collection = false;
    std::optional<int> size;
    std::optional<std::string> scope;
  };
  std::vector<LiteralChange> literal_log_;
  void remember_literal(const std::string& name);
  void bound_to_unknown(const std::string& name);
  void forget_literals(std::size_t mark);
  // Names last bound to an integer literal (`i = 0`), with the function that bound them ("" at module
  // level): a while loop's counter (counted_while_turns).
  std::map<std::string, std::pair<long long, std::string>, std::less<>> integers_;
  std::unordered_set<std::string, SourceModel::NameHash, std::equal_to<>> assigned_;  // names assigned so far
  std::vector<const Chain*> calls_;  // root calls of a name: candidates for function calls
  int error_path_ = 0;               // open branches that end in raise, and except clauses
  int once_per_loop_ = 0;            // open `if <loop variable> == <literal>:` branches
  int some_turns_ = 0;               // open if statements whose condition reads a loop variable
  int local_branch_ = 0;             // open branches whose condition selects a local or test run
  std::set<int> unpacking_loops_;    // loops whose target is a tuple (`for name, dtype in df.dtypes`)
  // Turns of the collection arguments of each call of a plain name (`f(df, ["a", "b"])`): per call,
  // by position ("#0") and keyword; -1 when the argument is not a collection the code spells out.
  std::map<std::string, std::vector<std::map<std::string, int, std::less<>>>, std::less<>> call_turns_;
  std::map<std::string, std::map<std::string, int, std::less<>>, std::less<>> default_turns_;  // of literal defaults
  struct ParamLoop {
    std::size_t loop;  // index in m_.loops
    std::string function, param;
  };
  std::vector<ParamLoop> param_loops_;  // `for c in param:` whose turns the callers decide
  Node walked_collection(Node it) const;
  void assume_functions_alias();
  bool type_values_by_use();
  std::size_t typed_upto_ = 0;  // chains type_values_by_use has looked at
  void note_call_turns(const std::string& function, Node args, bool method);

 public:
  // After every cell: DataFrames that only the whole file shows (a def called with a DataFrame,
  // a helper that returns one) change what earlier chains are.
  void resolve_functions();
  // After the whole file: loops over a parameter take the turns its callers (or its default) spell out.
  void resolve_param_loops();

 private:
  // The lambda passed first to a root call: udf(lambda s: s.upper(), ...).
  std::optional<Expr::Lambda> root_lambda(Node call);

  std::string text(Node n) const { return std::string(view(n)); }

  // The node's text in the cell, viewed (the model's Exprs keep views: the cell outlives them).
  std::string_view view(Node n) const {
    if (is_null(n)) return {};
    auto b = node_start(n), e = node_end(n);
    if (e > src_.size() || b > e) return {};
    return src_.substr(b, e - b);
  }

  Pos pos_of(Node n) const {
    if (is_null(n)) return Pos{};
    return Pos{node_start(n), node_end(n)};
  }

  // What removing `.name(args)` from a chain removes: from the end of the object, or, when the '.'
  // starts its own line, that whole line (indentation and line break included) so that comments
  // between the links stay.
  Pos removal_range(Node obj, Node call) const;

  // Past kMaxDepth nothing below is analysed (the stack must never overflow); that is said, once
  // per cell, rather than silently dropping what is inside.
  bool too_deep(Node n, int depth) {
    if (depth <= kMaxDepth) return false;
    bool noted = std::any_of(m_.depth_limits.begin(), m_.depth_limits.end(),
                             [&](const SyntaxProblem& p) { return p.cell == cell_->number; });
    if (!noted && !is_null(n))
      m_.depth_limits.push_back({cell_->number, m_.place(cell_->number, pos_of(n)),
                                 "code nested more than " + std::to_string(kMaxDepth) +
                                     " levels deep: planlint does not analyse what is inside"});
    return true;
  }

  static Pos pos_of_bytes(std::size_t b, std::size_t e) {
    return Pos{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e)};
  }

  // Whether the text can hold a Python 2 print or exec statement at all: the word `print` or `exec`
  // followed (after spaces and line continuations) by something other than what only Python 3 or
  // plain names allow there: `(` (tree-sitter reads `print (x)` as a call), `=`, `.`, `,`, `)`, `:`,
  // `;`, a comment or the end of the line. Most files call print(...): the tree walk is then skipped.
  static bool may_have_python2(std::string_view src);

  // The first print/exec statement in document order (the tree's nodes are in that order).
  std::optional<Pos> find_python2() const;

  // m_.qualify(dotted(n)), valid until the next call: a view of the cell's text when n's text is
  // its dotted name (no spaces, comments or line breaks inside), else of the analyzer's buffers.
  // (Only ASCII text is taken as it is: tree-sitter skips some Unicode spaces between tokens.)
  std::string_view qualified(Node n) const;
  mutable std::string dotted_buffer_, qualify_buffer_;
  std::deque<std::vector<Link>> link_buffers_;  // build_chain's, by nesting level (a deque: no moves)
  std::size_t building_ = 0;                    // build_chain calls in progress

  // "a.b.c" for identifier/attribute nodes, "" otherwise.
  std::string dotted(Node n) const;

  void handle_import(Node n);

  void handle_import_from(Node n);

  // What a module of the project gives this file: `name` of that module, known here as `local`
  // (`score`, `u.score`) and qualified as `qualified` (what chains' call roots read).
  void use_export(const ModuleExports& from, const std::string& name, const std::string& local,
                  const std::string& qualified);
  // `from x import *`, `%run ./x`: every name as it is.
  void use_all(const ModuleExports& from);
  // `import a.b` / `import a.b as c`: the module's names as `a.b.x` / `c.x`.
  void use_module(const std::string& module, const std::string& local);
  // The project modules this file imports, analysed before its own analysis starts (that of a
  // module uses this thread's parser and tree too), and the notebooks it runs with `%run ./x`,
  // whose definitions it uses as if they were its own cells.
  void load_imports();
  // Module-level defs that a later def of the same name replaces before anything names them
  // (analyzer_names.cpp): by (cell, byte of the `def` keyword). Their bodies never run.
  void find_shadowed_definitions();
  // `parts.append(x)` on a collection the code spells out (`parts = []`): it grows by the turns of
  // the loops around the call, or is no longer counted when one of them has unknown turns.
  void note_collection_growth(Node call);
  // Whether every binding of `name` in the file is `= False`, `= None` or `= 0` (a flag never set):
  // `if name:` then never runs. Asked once per name.
  bool always_falsy(std::string_view name);
  std::set<std::string, std::less<>> falsy_;  // names every binding of which is False/None/0
  bool falsy_scanned_ = false;
  // `HERE = os.path.dirname(__file__)`, `DATA = HERE / "data"`: a name for a path of the code's own
  // folder (SourceModel::code_paths); any other binding of the name forgets it.
  void note_code_path(const std::string& name, Node right);
  // An integer the code spells out (a literal, a name bound to one, `n + 1`), else nothing.
  [[nodiscard]] std::optional<long long> int_constant(Node n, int depth) const;
  std::set<std::pair<int, std::uint32_t>> shadowed_;
  [[nodiscard]] bool shadowed(Node def) const {
    return !shadowed_.empty() && functions_.empty() && classes_.empty() &&
           shadowed_.count({cell_->number, node_start(def)}) != 0;
  }
  [[nodiscard]] const ModuleExports* imported(const std::string& module) const {
    auto it = imports_.find(module);
    return it == imports_.end() ? nullptr : it->second;
  }
  std::map<std::string, const ModuleExports*, std::less<>> imports_;  // by the module's name as imported

  // Column names an expression refers to: "k", F.col("k"), df.k, df["k"], and words of SQL strings.
  void collect_columns(Node n, std::vector<std::string_view>& out, int depth, bool sql_string);

  // The literal's contents: a view of the cell when they are one piece, else kept by the model.
  std::optional<std::string_view> string_value(Node n);

  // [(k, v), ...] (setAll) or {k: v} / map={k: v} (config): the pairs, for configuration settings.
  void read_pairs(Node a, std::vector<std::pair<Expr, Expr>>& out, int depth);

  // A literal operand: `5`, "x", None, F.lit(...): comparing a column with it is a filter, not a key.
  bool is_literal(Node n) const;

  // How a join condition reads (see Expr::Condition). The conjuncts of `&` (and of a list) need one
  // column equality between them for Spark to plan a hash or sort-merge join; `|` and `~` hide it.
  Expr::Condition condition_of(Node n, int depth) const;

  // A column list kept once for each distinct contents: the same few names recur in thousands of
  // arguments (rules read the names, never where a view points).
  const std::span<const std::string_view>* intern_columns(const std::vector<std::string_view>& columns);

  Expr make_expr(Node n, int depth);

  const Chain* build_chain(Node n, int depth);

  // The root call as written; its arguments (SparkConf(), broadcast(df), Window.orderBy(...)) go
  // to args_out, each read as an expression of its own for rules that look inside (broadcast(x)).
  Chain::Root make_root_call(Node call, int depth, ArenaList<Arg>& args_out);

  // A call's arguments (comments skipped), each read as an expression; kept by the model, exactly
  // as many as there are.
  std::span<Arg> make_args(Node args, int depth);

  // x.select(...) on an untyped name: an RDD has no select(), so in a file that imports PySpark it
  // is a DataFrame, unless the chain starts at a library whose objects have select() too.
  bool select_means_dataframe(const Chain& c) const;
  // Whether the file uses Palantir Foundry's transforms (`from transforms.api import ...`), whose
  // inputs hand out DataFrames (`source.dataframe()`) and whose outputs write them.
  bool foundry_transforms() const;
  bool returns_local_argument(const Chain& call, const FunctionInfo& f) const;

  // What the chain is after each link: a SparkSession, a SparkContext, a DataFrame or an RDD, from
  // where it starts (a name bound earlier, spark, sc, a helper that returns a DataFrame) and from
  // methods that only one of them has.
  enum class Kind { unknown, session, context, reader, dataframe, rdd };
  void classify(Chain& c);

  // NAME = <literal> once at module level: a constant that settings may use for their key or value.
  // A second assignment anywhere makes it a variable.
  void note_constant(const std::string& name, Node right, int depth);

  void handle_assignment(Node n, int depth);

  // `upper = F.udf(lambda s: s.upper())`, `f = udf(fn, "int")`, `g = pandas_udf(...)`.
  // `udf(f).asNondeterministic()` is still the UDF: the only link that keeps a chain one.
  static bool only_udf_marks(const Chain& chain);

  void note_udf_binding(const std::string& name, const Chain& chain);

  void handle_decorated(Node n, int depth);

  // UserDefinedFunction(f, T): the Spark 1.x/2.x class behind udf().
  static bool is_user_defined_function(std::string_view root);

  // udf(...) / F.udf(...) calls, spark.udf.register(name, python_function) and the Spark 1.x
  // sqlContext.registerFunction(name, f).
  void note_udf_call(const Chain& c);

  // setAll([(k, v), ...]) and config(map={k: v}): the literal pairs of that link.
  std::span<const std::pair<Expr, Expr>> pairs_of(const Chain& c, const Link& l) const;

  void note_setting(const Chain& c);

  // A literal, or a name bound once to a literal at module level (`SHUFFLE = "spark.sql.shuffle.partitions"`).
  const Expr& literal_of(const Expr& e) const;

  void add_setting(const Chain& c, const Link& l, std::size_t i, const Expr& key_expr, const Expr& value_expr,
                   const char* via, bool at_key = false);

  void visit_children_of_chain(Node n, int depth);

  // `spark.conf.set(k, v)` alone on its line(s): remember the range that removing the statement removes.
  void note_whole_statement(Node n, int depth);

  // `for df in dfs:` / `for name, df in items:` rebinds its targets on every turn.
  void note_loop_targets(Node target, int depth);

  // Parameters and annotations of a def: `df: DataFrame` and `-> DataFrame` say what flows in and out.
  void note_function(Node def);

  // `["a", "b"]`, `("a", "b")`, `{"a"}`: their length; `range(3)`, `range(1, 4)`: the count; else -1.
  int spelled_out_turns(Node it);
  // How many turns `while i < 10:` runs when the code shows it: the name last bound to an integer in
  // this function (or at module level), compared with an integer, stepped by one `i += k` / `i -= k`
  // in the body and bound nowhere else in it; -1 otherwise. An upper bound when the body breaks out.
  int counted_while_turns(Node n) const;
  // Whether a block (an if body, an else clause) ends in `raise`.
  bool ends_in_raise(Node block) const;
  // Whether `cond` is `<target of the innermost loop> == <literal>` (either way round).
  bool compares_loop_target_with_literal(Node cond) const;
  bool tests_loop_target(Node cond) const;
  bool selects_local_or_test(Node cond) const;

  // The chain counted by `e` (`df.count()`, or `len(df.collect())` with via_len), or nullptr.
  const Chain* counted(Node e, int depth, bool& via_len);

  void note_size_test(const Chain* c, bool via_len, bool means_empty, Node whole);

  // `count OP literal` or `literal OP count` where the question is "empty or not".
  void note_comparison(Node n, int depth);

  // `if df.count():`, `while not df.count():`: the count itself is the condition.
  void note_truth_test(Node cond, int depth);

  void visit(Node n, int depth);
};

}  // namespace planlint::pyspark::detail
