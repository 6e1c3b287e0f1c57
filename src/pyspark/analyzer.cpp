// Builds the SourceModel from tree-sitter-python trees, one cell at a time: imports, call chains,
// bindings across statements (and cells), UDF definitions, Spark configuration settings, comments.
#include <tree_sitter/api.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pyspark/model.hpp"
#include "pyspark/project.hpp"
#include "pyspark/python_parser.hpp"
#include "pyspark/sql_settings.hpp"
#include "pyspark/syntax_tree.hpp"
#include "util/name_set.hpp"

namespace planlint::pyspark {
namespace {

constexpr int kMaxDepth = 400;  // deeper nesting is not Spark code worth analysing; never overflow the stack
constexpr std::size_t kMaxLinks = 1000000;  // links of one chain: far beyond any source file's

const util::NameSet kSparkOnlyMethods{"withColumn",
                                      "withColumns",
                                      "withColumnRenamed",
                                      "groupBy",
                                      "repartition",
                                      "repartitionByRange",
                                      "coalesce",
                                      "crossJoin",
                                      "dropDuplicates",
                                      "toPandas",
                                      "unpersist",
                                      "persist",
                                      "cache",
                                      "createOrReplaceTempView",
                                      "write",
                                      "writeTo",
                                      "orderBy",
                                      "unionByName",
                                      "selectExpr",
                                      "printSchema",
                                      "toDF",
                                      "localCheckpoint",
                                      "checkpoint",
                                      "hint"};
const util::NameSet kReaders{"read", "table", "sql", "range", "createDataFrame", "readStream"};
// DataFrameReader / DataStreamReader methods that return a DataFrame (the others set options).
const util::NameSet kReaderLoads{"load", "csv",   "json", "parquet", "orc",   "text",    "table",
                                 "jdbc", "delta", "avro", "xml",     "excel", "textFile"};
// Attributes a DataFrame has: any other attribute of one (`df.amount`) is a column.
const util::NameSet kDataFrameAttributes{"write",          "writeStream", "rdd",        "na",           "stat",
                                         "columns",        "schema",      "dtypes",     "storageLevel", "isStreaming",
                                         "sparkSession",   "sql_ctx",     "sqlContext", "is_cached",    "_jdf",
                                         "queryExecution", "plot",        "pandas_api"};
// Methods only an RDD has: a chain through one of them is an RDD, whatever its name says.
const util::NameSet kRddOnlyMethods{"map",
                                    "flatMap",
                                    "mapValues",
                                    "flatMapValues",
                                    "reduceByKey",
                                    "groupByKey",
                                    "combineByKey",
                                    "foldByKey",
                                    "aggregateByKey",
                                    "sortByKey",
                                    "sortBy",
                                    "keys",
                                    "values",
                                    "glom",
                                    "mapPartitions",
                                    "mapPartitionsWithIndex",
                                    "partitionBy",
                                    "keyBy",
                                    "zipWithIndex",
                                    "zipWithUniqueId",
                                    "countByKey",
                                    "countByValue",
                                    "reduce",
                                    "fold",
                                    "saveAsTextFile",
                                    "saveAsPickleFile",
                                    "lookup",
                                    "cogroup",
                                    "subtractByKey",
                                    "leftOuterJoin",
                                    "rightOuterJoin",
                                    "fullOuterJoin",
                                    "cartesian",
                                    "pipe",
                                    "zip",
                                    "top",
                                    "takeOrdered"};
// Actions whose result is a value on the driver (a pandas DataFrame, a list, a number, a Row).
const util::NameSet kDriverResults{"toPandas",   "collect",      "count",           "take",
                                   "head",       "first",        "toLocalIterator", "takeSample",
                                   "countByKey", "countByValue", "collectAsMap"};
// What makes GroupedData, whose count() is a DataFrame.
const util::NameSet kGroupings{"groupBy", "groupby", "rollup", "cube", "pivot"};
// SparkContext methods that make an RDD.
const util::NameSet kRddSources{"parallelize", "textFile",   "wholeTextFiles",  "range",
                                "emptyRDD",    "union",      "binaryFiles",     "sequenceFile",
                                "pickleFile",  "hadoopFile", "newAPIHadoopFile"};
// Methods that only a DataFrame has (RDDs share cache, coalesce, repartition, persist, toDF... with it).
const util::NameSet kDataFrameOnlyMethods{"withColumn",
                                          "withColumns",
                                          "withColumnRenamed",
                                          "groupBy",
                                          "repartitionByRange",
                                          "crossJoin",
                                          "dropDuplicates",
                                          "toPandas",
                                          "createOrReplaceTempView",
                                          "createTempView",
                                          "write",
                                          "writeTo",
                                          "writeStream",
                                          "orderBy",
                                          "unionByName",
                                          "selectExpr",
                                          "printSchema",
                                          "hint",
                                          "agg",
                                          "na",
                                          "fillna",
                                          "dropna"};

// What classify() asks of a link's name, as bits (Link::kinds): which of the sets above it is in,
// and which of the names it compares with it is.
enum LinkKind : std::uint16_t {
  kSparkOnlyKind = 1U << 0,
  kReaderKind = 1U << 1,
  kRddOnlyKind = 1U << 2,
  kDriverResultKind = 1U << 3,
  kGroupingKind = 1U << 4,
  kRddSourceKind = 1U << 5,
  kDataFrameOnlyKind = 1U << 6,
  kCountName = 1U << 7,
  kSparkContextName = 1U << 8,
  kRddName = 1U << 9,
  kToDFName = 1U << 10,
  kSelectName = 1U << 11,
  kGetOrCreateName = 1U << 12,
};

struct LinkKindTable {
  util::NameSet names;
  std::vector<std::uint16_t> kinds;  // by the name's index in `names`
};

const LinkKindTable kLinkKinds = [] {
  std::map<std::string, std::uint16_t, std::less<>> all;
  const std::pair<const util::NameSet*, LinkKind> sets[] = {
      {&kSparkOnlyMethods, kSparkOnlyKind},        {&kReaders, kReaderKind},     {&kRddOnlyMethods, kRddOnlyKind},
      {&kDriverResults, kDriverResultKind},        {&kGroupings, kGroupingKind}, {&kRddSources, kRddSourceKind},
      {&kDataFrameOnlyMethods, kDataFrameOnlyKind}};
  for (const auto& [set, bit] : sets)
    for (const std::string& name : set->names()) all[name] |= bit;
  const std::pair<std::string_view, LinkKind> names[] = {{"count", kCountName},   {"sparkContext", kSparkContextName},
                                                         {"rdd", kRddName},       {"toDF", kToDFName},
                                                         {"select", kSelectName}, {"getOrCreate", kGetOrCreateName}};
  for (const auto& [name, bit] : names) all[std::string(name)] |= bit;
  std::vector<std::string_view> listed;
  std::vector<std::uint16_t> kinds;
  for (const auto& [name, bits] : all) {
    listed.push_back(name);
    kinds.push_back(bits);
  }
  util::NameSet set(listed);
  std::vector<std::uint16_t> by_index(set.size());
  for (std::size_t i = 0; i < listed.size(); ++i) by_index[set.index(listed[i])] = kinds[i];
  return LinkKindTable{std::move(set), std::move(by_index)};
}();

std::uint16_t link_kinds(std::string_view name) {
  const std::size_t i = kLinkKinds.names.index(name);
  return i < kLinkKinds.kinds.size() ? kLinkKinds.kinds[i] : 0;
}

// The analysis reads planlint's copy of each syntax tree (syntax_tree.hpp): a node's children and
// fields are arrays there, where tree-sitter 0.20's node API walks the siblings from the first on
// every ts_node_child / ts_node_child_by_field_id call. A missing field, or a child past the last,
// is a null Node, and every helper here accepts one.
inline bool is_null(Node n) { return n == nullptr; }

std::uint32_t named_count(Node n) { return is_null(n) ? 0 : n->named_count; }
std::uint32_t child_count(Node n) { return is_null(n) ? 0 : n->child_count; }
bool is_named(Node n) { return !is_null(n) && n->named; }
std::uint32_t node_start(Node n) { return is_null(n) ? 0 : n->start_byte; }
std::uint32_t node_end(Node n) { return is_null(n) ? 0 : n->end_byte; }
NodeSpan all_children(Node n) { return children(n); }
Node nth_child(Node n, std::uint32_t i) { return i < child_count(n) ? n->kids[i] : nullptr; }
Node nth_named(Node n, std::uint32_t i) { return i < named_count(n) ? n->kids[n->child_count + i] : nullptr; }

extern "C" const TSLanguage* tree_sitter_python();

// Node type names by symbol, read from the language once: is_type is called millions of times on
// a repository, and with the literal's length known where it is inlined the test is a length
// check and a short memcmp instead of ts_node_type + strcmp.
// Filled before main (tree_sitter_python() returns a constant table), so is_type pays no guard.
const std::vector<std::string_view> kSymbolNames = [] {
  std::vector<std::string_view> v;
  const TSLanguage* lang = tree_sitter_python();
  std::uint32_t count = ts_language_symbol_count(lang);
  v.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const char* name = ts_language_symbol_name(lang, static_cast<TSSymbol>(i));
    v.emplace_back(name == nullptr ? "" : name);
  }
  return v;
}();

std::string_view node_type(Node n) {
  if (is_null(n)) return {};
  return n->symbol < kSymbolNames.size() ? kSymbolNames[n->symbol] : std::string_view{};
}

}  // namespace

std::string_view Kind::name() const {
  return symbol_ < kSymbolNames.size() ? kSymbolNames[symbol_] : std::string_view{};
}

namespace {

// A node's type name, compared with literals inline: a length check, then a memcmp of a constant
// size (std::string_view's operator== was a call per comparison in visit()).
struct TypeName {
  std::string_view name;
  template <std::size_t N>
  bool operator==(const char (&t)[N]) const {
    return name.size() == N - 1 && std::memcmp(name.data(), t, N - 1) == 0;
  }
};

// A string literal as a template argument: field<"body">(n) and is<"call">(n) look the name up in
// the language once per name (a function-local static), and then compare integers.
template <std::size_t N>
struct Literal {
  std::array<char, N> text{};
  constexpr Literal(const char (&s)[N]) {  // NOLINT(google-explicit-constructor): literals convert
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
};

// Namespace-scope variable templates, not function-local statics: no guard to test on every call, so
// field<> and is<> inline to a load and a compare. Initialised before main from the language alone
// (a constant table), in no particular order, so they read nothing else initialised dynamically.
template <Literal Name>
const TSFieldId kFieldId = ts_language_field_id_for_name(tree_sitter_python(), Name.text.data(),
                                                         static_cast<std::uint32_t>(Name.text.size() - 1));

template <Literal Name>
Node field(Node n) {
  return is_null(n) ? n : child_by_field(n, kFieldId<Name>);
}

constexpr std::size_t kMaxSymbols = 1024;  // tree-sitter-python has about 280

// The grammar's symbols (below kMaxSymbols) sorted by type name, built on first use: a walk over
// every symbol for each of the 30-odd type sets below was 0.7 M instructions at every start.
const std::vector<std::pair<std::string_view, std::uint32_t>>& symbols_by_name() {
  static const std::vector<std::pair<std::string_view, std::uint32_t>> table = [] {
    std::vector<std::pair<std::string_view, std::uint32_t>> t;
    const TSLanguage* lang = tree_sitter_python();
    const std::uint32_t count = ts_language_symbol_count(lang);
    for (std::uint32_t i = 0; i < count && i < kMaxSymbols; ++i) {
      const char* symbol = ts_language_symbol_name(lang, static_cast<TSSymbol>(i));
      if (symbol != nullptr) t.emplace_back(symbol, i);
    }
    std::sort(t.begin(), t.end());
    return t;
  }();
  return table;
}

// f(symbol, k) for each symbol (below kMaxSymbols) whose type name is names[k] (a name can be both
// a named and an anonymous symbol).
template <class F>
void for_each_symbol_named(std::initializer_list<std::string_view> names, F&& f) {
  const auto& table = symbols_by_name();
  std::size_t k = 0;
  for (std::string_view name : names) {
    auto it = std::lower_bound(table.begin(), table.end(), name,
                               [](const auto& entry, std::string_view n) { return entry.first < n; });
    for (; it != table.end() && it->first == name; ++it) f(it->second, k);
    ++k;
  }
}

// The symbols whose type name is `name`, or any of `names`.
class TypeSet {
 public:
  explicit TypeSet(std::string_view name) : TypeSet({name}) {}
  TypeSet(std::initializer_list<std::string_view> names) {
    for_each_symbol_named(names, [&](std::uint32_t i, std::size_t) { bits_[i / 64] |= std::uint64_t{1} << (i % 64); });
  }
  // Inlined at every is<>: a call per type test was 0.4 % of a run.
  [[nodiscard, gnu::always_inline]] bool contains(Node n) const {
    return !is_null(n) && n->symbol < kMaxSymbols && ((bits_[n->symbol / 64] >> (n->symbol % 64)) & 1U) != 0;
  }

 private:
  std::array<std::uint64_t, kMaxSymbols / 64> bits_{};
};

// The types visit() does something of its own for; every other node is only walked through
// (most nodes: one bit test, where the comparisons in visit() were a dozen).
const TypeSet kOwnHandling{"comment",
                           "import_statement",
                           "import_from_statement",
                           "expression_statement",
                           "return_statement",
                           "if_statement",
                           "with_statement",
                           "comparison_operator",
                           "elif_clause",
                           "decorated_definition",
                           "assignment",
                           "call",
                           "attribute",
                           "for_statement",
                           "while_statement",
                           "function_definition",
                           "class_definition"};
template <Literal Name>
const TypeSet kTypeSet{std::string_view(Name.text.data(), Name.text.size() - 1)};

template <Literal Name>
[[gnu::always_inline]] inline bool is(Node n) {
  return kTypeSet<Name>.contains(n);
}

// Which of a few types a node is, as its place in a list of type names (1 for the first; 0 for none
// of them): one load, where a test per type was a load, a shift and a branch each.
class TypeIndex {
 public:
  TypeIndex(std::initializer_list<std::string_view> names) {
    for_each_symbol_named(names, [&](std::uint32_t i, std::size_t k) { index_[i] = static_cast<std::uint8_t>(k + 1); });
  }
  [[nodiscard, gnu::always_inline]] std::uint8_t of(Node n) const {
    return n == nullptr || n->symbol >= kMaxSymbols ? 0 : index_[n->symbol];
  }

 private:
  std::array<std::uint8_t, kMaxSymbols> index_{};
};

// The types make_expr() reads something of, in this order (ExprType).
const TypeIndex kExprTypes{"string", "integer", "unary_operator", "true",      "false",
                           "lambda", "call",    "attribute",      "identifier"};
enum ExprType : std::uint8_t {
  kOtherExpr,
  kStringExpr,
  kIntegerExpr,
  kUnaryExpr,
  kTrueExpr,
  kFalseExpr,
  kLambdaExpr,
  kCallExpr,
  kAttributeExpr,
  kIdentifierExpr
};

// (expr) -> expr, also when comments sit inside the parentheses (black-style chains end with one).
Node unparen(Node n) {
  for (int guard = 0; guard < 1000 && is<"parenthesized_expression">(n); ++guard) {
    Node inner{};
    int exprs = 0;
    for (Node c : named_children(n)) {
      if (is<"comment">(c)) continue;
      inner = c;
      ++exprs;
    }
    if (exprs != 1) return n;
    n = inner;
  }
  return n;
}

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

  void run() {
    // One parser per thread for every file: a new one per file started with empty stacks and
    // pools, grown again by each file's first parse.
    thread_local PythonParser parser;
    load_imports();
    for (const Cell& cell : file_.cells) {
      cell_ = &cell;
      if (cell.language == CellLanguage::sql) {
        for (auto& s : sql_set_statements(cell.text)) {
          ConfSetting c;
          c.key = s.key;
          c.value = s.value;
          c.literal = true;
          c.pos = pos_of_bytes(s.begin, s.end);
          c.value_pos = pos_of_bytes(s.value_begin, s.value_end);
          c.cell = cell.number;
          c.via = "SQL SET";
          m_.settings.push_back(std::move(c));
        }
        continue;
      }
      if (cell.language == CellLanguage::scala) {
        for (auto& s : scala_settings(cell.text)) {
          ConfSetting c;
          c.key = s.key;
          c.value = s.value;
          c.literal = s.literal;
          c.pos = pos_of_bytes(s.begin, s.end);
          c.value_pos = pos_of_bytes(s.value_begin, s.value_end);
          c.cell = cell.number;
          c.via = s.via + " (Scala)";
          m_.settings.push_back(std::move(c));
        }
        continue;
      }
      if (cell.language != CellLanguage::python) continue;
      src_ = cell.text;
      // A large cell (a whole .py file) is parsed a run of top-level statements at a time: its
      // syntax tree, about 75 times the text, is then never held for more than one run.
      for (const SourceRange& range : top_level_ranges(cell.text, chunk_bytes_, chunk_limit_)) {
        auto tree = parser.parse(cell.text, range);
        if (!tree) break;
        run_ = std::string_view(cell.text).substr(range.begin, range.end - range.begin);
        // A syntax error ends the cell's analysis there, as a Python 2 statement does.
        if (auto err = tree->first_error()) {
          m_.syntax_errors.push_back(
              {cell.number, Place{err->line, err->column, err->line, err->column + 1}, err->message});
          break;
        }
        // The analysis reads planlint's copy of the tree; tree-sitter's is freed before it starts.
        // Node handles of the previous run are invalid from here.
        tree_.build(tree->get());
        tree.reset();
        Node root = tree_.root();
        if (auto py2 = find_python2()) {
          m_.syntax_errors.push_back(
              {cell.number, m_.place(cell.number, *py2),
               "Python 2 syntax (print or exec statement): this code is not analysed (planlint reads Python 3)", true});
          break;
        }
        // The module statement by statement (as visit(root) would).
        for (Node c : all_children(root)) {
          if (is_named(c) || is<"comment">(c)) visit(c, 1);
          // Chains are found again by their bytes within one statement only. Kept longer, a chain
          // at the same bytes of a later cell would be taken for this one.
          built_.clear();
          noted_.clear();  // only this statement's chains can be noted again
        }
      }
    }
  }

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
  void bind(const std::string& name, const Chain* chain) {
    auto it = bindings_.find(name);
    if (open_scopes_ > 0)
      binding_log_.push_back({name, it == bindings_.end() ? std::nullopt : std::optional<const Chain*>(it->second)});
    if (chain == nullptr) {
      if (it != bindings_.end()) bindings_.erase(it);
    } else if (it != bindings_.end()) {
      it->second = chain;
    } else {
      bindings_.emplace(name, chain);
    }
  }
  std::size_t open_scope() {
    ++open_scopes_;
    return binding_log_.size();
  }
  void close_scope(std::size_t mark) {
    while (binding_log_.size() > mark) {
      BindingChange& c = binding_log_.back();
      if (c.before)
        bindings_[c.name] = *c.before;
      else
        bindings_.erase(c.name);
      binding_log_.pop_back();
    }
    --open_scopes_;
  }
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
  int next_if_ = 0;
  int next_loop_ = 0;
  std::map<std::string, int, std::less<>> loop_targets_;            // names a `for` rebinds, to its loop
  std::vector<KeptName> functions_;                                 // open defs, innermost last
  std::map<std::string, const Chain*, std::less<>> self_bindings_;  // `self.df = ...` within one class
  std::map<std::string, Expr, std::less<>> constants_;              // names bound once to a literal at module level
  std::unordered_set<std::string, SourceModel::NameHash, std::equal_to<>> assigned_;  // names assigned so far
  std::vector<const Chain*> calls_;  // root calls of a name: candidates for function calls

 public:
  // After every cell: DataFrames that only the whole file shows (a def called with a DataFrame,
  // a helper that returns one) change what earlier chains are.
  void resolve_functions() {
    // Without a def, nothing here can change what build_chain already decided.
    if (m_.functions.empty()) return;
    for (int round = 0; round < 3; ++round) {
      bool changed = false;
      for (const Chain* call : calls_) {
        FunctionInfo* found = m_.function(call->root);
        if (found == nullptr) continue;
        FunctionInfo& f = *found;
        std::size_t positional = 0;
        for (const Arg& a : call->root_args) {
          std::string param;
          if (!a.keyword.empty()) {
            param = std::string(std::string_view(a.keyword));
          } else if (positional < f.params.size()) {
            param = f.params[positional++];
          }
          if (param.empty() || f.dataframe_params.count(param) != 0) continue;
          const Chain* arg = a.value.chain();
          if (arg != nullptr && arg->is_dataframe) changed = f.dataframe_params.insert(param).second || changed;
        }
      }
      // An untyped parameter used as a DataFrame anywhere in its def (df.withColumn, df.groupBy) is one.
      for (const Chain& c : m_.chains) {
        if (c.root_is_call || c.function.empty() || c.bound != nullptr || !c.is_dataframe) continue;
        FunctionInfo* f = m_.function(c.function);
        if (f == nullptr) continue;
        const auto& params = f->params;
        if (std::find(params.begin(), params.end(), c.root) == params.end()) continue;
        changed = f->dataframe_params.emplace(c.root).second || changed;
      }
      for (auto& [name, f] : m_.functions)
        for (const Chain* r : f.returns)
          if (!f.returns_dataframe && r->is_dataframe) f.returns_dataframe = changed = true;
      for (Chain& c : m_.chains) {
        bool before = c.is_dataframe;
        classify(c);
        changed = changed || before != c.is_dataframe;
      }
      if (!changed) break;
    }
  }

 private:
  // The lambda passed first to a root call: udf(lambda s: s.upper(), ...).
  std::optional<Expr::Lambda> root_lambda(Node call) {
    if (!is<"call">(call)) return std::nullopt;
    Node args = field<"arguments">(call);
    for (Node a : named_children(args)) {
      if (!is<"lambda">(a)) continue;
      Expr::Lambda l;
      Node params = field<"parameters">(a);
      for (std::uint32_t k = 0; k < named_count(params); ++k) l.params.push_back(view(nth_named(params, k)));
      l.body = view(field<"body">(a));
      return l;
    }
    return std::nullopt;
  }

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
  Pos removal_range(Node obj, Node call) const {
    Pos p = pos_of(call);
    std::size_t start = is_null(obj) ? p.start_byte : node_end(obj);
    std::size_t dot = src_.find('.', start);
    if (dot != std::string_view::npos && dot < p.end_byte) {
      // Only blanks between the line start and the dot: scanned back over the indent alone (an
      // rfind of the line break would make a 50,000-link one-line chain quadratic).
      std::size_t line_start = dot;
      while (line_start > 0 && (src_[line_start - 1] == ' ' || src_[line_start - 1] == '\t')) --line_start;
      bool at_line_start = line_start == 0 || src_[line_start - 1] == '\n';
      bool own_line = at_line_start && line_start > start;
      std::size_t after = src_.find_first_not_of(" \t\r", p.end_byte);
      if (own_line && (after == std::string_view::npos || src_[after] == '\n')) {
        start = line_start;
        p.end_byte = static_cast<std::uint32_t>(after == std::string_view::npos ? src_.size() : after + 1);
      }
    }
    p.start_byte = static_cast<std::uint32_t>(start);
    return p;
  }

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
  static bool may_have_python2(std::string_view src) {
    auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
    for (std::string_view kw : {std::string_view("print"), std::string_view("exec")}) {
      for (std::size_t at = src.find(kw); at != std::string_view::npos; at = src.find(kw, at + 1)) {
        std::size_t end = at + kw.size();
        if ((at > 0 && word_char(src[at - 1])) || (end < src.size() && word_char(src[end]))) continue;
        std::size_t i = end;
        for (;;) {
          if (i < src.size() && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f')) {
            ++i;
          } else if (i + 1 < src.size() && src[i] == '\\' && src[i + 1] == '\n') {
            i += 2;
          } else if (i + 2 < src.size() && src[i] == '\\' && src[i + 1] == '\r' && src[i + 2] == '\n') {
            i += 3;
          } else {
            break;
          }
        }
        if (i >= src.size()) continue;
        if (std::string_view("(=.,):;#\r\n").find(src[i]) == std::string_view::npos) return true;
      }
    }
    return false;
  }

  // The first print/exec statement in document order (the tree's nodes are in that order).
  std::optional<Pos> find_python2() const {
    if (!may_have_python2(run_)) return std::nullopt;
    static const TSSymbol print_stmt = ts_language_symbol_for_name(tree_sitter_python(), "print_statement", 15, true);
    static const TSSymbol exec_stmt = ts_language_symbol_for_name(tree_sitter_python(), "exec_statement", 14, true);
    for (const SyntaxNode& n : tree_.nodes())
      if (n.symbol == print_stmt || n.symbol == exec_stmt) return Pos{n.start_byte, n.end_byte};
    return std::nullopt;
  }

  // m_.qualify(dotted(n)), valid until the next call: a view of the cell's text when n's text is
  // its dotted name (no spaces, comments or line breaks inside), else of the analyzer's buffers.
  // (Only ASCII text is taken as it is: tree-sitter skips some Unicode spaces between tokens.)
  std::string_view qualified(Node n) const {
    std::string_view name;
    Node cur = n;
    while (is<"attribute">(cur) && !is_null(field<"attribute">(cur))) cur = field<"object">(cur);
    const std::string_view whole = view(n);
    if (is<"identifier">(cur) && std::all_of(whole.begin(), whole.end(), [](char ch) {
          return ch == '.' || ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9');
        }))
      name = whole;
    else
      name = dotted_buffer_ = dotted(n);
    return m_.qualify(name, qualify_buffer_);
  }
  mutable std::string dotted_buffer_, qualify_buffer_;
  std::deque<std::vector<Link>> link_buffers_;  // build_chain's, by nesting level (a deque: no moves)
  std::size_t building_ = 0;                    // build_chain calls in progress

  // "a.b.c" for identifier/attribute nodes, "" otherwise.
  std::string dotted(Node n) const {
    if (is<"identifier">(n)) return text(n);
    if (is<"attribute">(n)) {
      std::string left = dotted(field<"object">(n));
      if (left.empty()) return {};
      return left + "." + text(field<"attribute">(n));
    }
    return {};
  }

  void handle_import(Node n) {
    for (Node c : named_children(n)) {
      if (is<"dotted_name">(c)) {
        std::string name = text(c);
        m_.set_import(name.substr(0, name.find('.')), name.substr(0, name.find('.')));
        m_.set_import(name, name);
        use_module(name, name);
      } else if (is<"aliased_import">(c)) {
        m_.set_import(view(field<"alias">(c)), text(field<"name">(c)));
        use_module(text(field<"name">(c)), text(field<"alias">(c)));
      }
    }
  }

  void handle_import_from(Node n) {
    std::string module = text(field<"module_name">(n));
    const ModuleExports* from = imported(module);
    for (Node c : named_children(n)) {
      if (c == field<"module_name">(n)) continue;
      if (is<"wildcard_import">(c)) {
        m_.star_imports.insert(module);
        if (from != nullptr) use_all(*from);
      } else if (is<"dotted_name">(c)) {
        m_.set_import(view(c), module + "." + text(c));
        if (from != nullptr) use_export(*from, text(c), text(c), module + "." + text(c));
      } else if (is<"aliased_import">(c)) {
        const std::string name = text(field<"name">(c));
        m_.set_import(view(field<"alias">(c)), module + "." + name);
        if (from != nullptr) use_export(*from, name, text(field<"alias">(c)), module + "." + name);
      }
    }
  }

  // What a module of the project gives this file: `name` of that module, known here as `local`
  // (`score`, `u.score`) and qualified as `qualified` (what chains' call roots read).
  void use_export(const ModuleExports& from, const std::string& name, const std::string& local,
                  const std::string& qualified) {
    if (from.row_udfs.count(name) != 0) {
      m_.udf_names.insert(local);
      m_.udf_names.insert(qualified);
    }
    if (from.pandas_udfs.count(name) != 0) {
      m_.pandas_udf_names.insert(local);
      m_.pandas_udf_names.insert(qualified);
    }
    if (from.nondeterministic_udfs.count(name) != 0) {
      m_.nondeterministic_udfs.insert(local);
      m_.nondeterministic_udfs.insert(qualified);
    }
    if (from.dataframe_functions.count(name) != 0) m_.add_function(qualified).returns_dataframe = true;
    if (auto it = from.literal_sizes.find(name);
        it != from.literal_sizes.end() && local.find('.') == std::string::npos) {
      m_.literal_collections.insert(local);
      m_.literal_sizes[local] = it->second;
    }
  }
  // `from x import *`, `%run ./x`: every name as it is.
  void use_all(const ModuleExports& from) {
    for (const auto& u : from.row_udfs) use_export(from, u, u, u);
    for (const auto& u : from.pandas_udfs) use_export(from, u, u, u);
    for (const auto& f : from.dataframe_functions) use_export(from, f, f, f);
    for (const auto& [l, size] : from.literal_sizes) use_export(from, l, l, l);
  }
  // `import a.b` / `import a.b as c`: the module's names as `a.b.x` / `c.x`.
  void use_module(const std::string& module, const std::string& local) {
    const ModuleExports* from = imported(module);
    if (from == nullptr) return;
    auto each = [&](const std::string& name) { use_export(*from, name, local + "." + name, module + "." + name); };
    for (const auto& u : from->row_udfs) each(u);
    for (const auto& u : from->pandas_udfs) each(u);
    for (const auto& f : from->dataframe_functions) each(f);
  }
  // The project modules this file imports, analysed before its own analysis starts (that of a
  // module uses this thread's parser and tree too), and the notebooks it runs with `%run ./x`,
  // whose definitions it uses as if they were its own cells.
  void load_imports() {
    std::vector<ImportRef> refs;
    if (file_.kind != SourceKind::python) refs = scan_imports(file_.raw);
    for (const Cell& cell : file_.cells)
      if (cell.language == CellLanguage::python)
        for (ImportRef& r : scan_imports(cell.unmasked())) refs.push_back(std::move(r));
    std::vector<const ModuleExports*> runs;
    for (const ImportRef& r : refs) {
      if (r.kind == ImportRef::Kind::run) {
        if (const ModuleExports* from = project_index().run_target(file_.path, r.target)) runs.push_back(from);
      } else if (imports_.count(r.target) == 0) {
        imports_.emplace(r.target, project_index().module(file_.path, r.target));
      }
    }
    for (const ModuleExports* from : runs) use_all(*from);
  }
  [[nodiscard]] const ModuleExports* imported(const std::string& module) const {
    auto it = imports_.find(module);
    return it == imports_.end() ? nullptr : it->second;
  }
  std::map<std::string, const ModuleExports*, std::less<>> imports_;  // by the module's name as imported

  // Column names an expression refers to: "k", F.col("k"), df.k, df["k"], and words of SQL strings.
  void collect_columns(Node n, std::vector<std::string_view>& out, int depth, bool sql_string) {
    if (depth > kMaxDepth || is_null(n)) return;
    const std::uint8_t type = kExprTypes.of(n);
    if (type == kStringExpr) {
      std::string_view v = string_value(n).value_or("");
      if (sql_string) {
        std::string word;
        for (char c : std::string(v) + " ") {
          if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
            word += c;
          } else if (!word.empty()) {
            if (!std::isdigit(static_cast<unsigned char>(word[0]))) out.push_back(m_.keep(word));
            word.clear();
          }
        }
      } else if (!v.empty()) {
        out.push_back(v);
      }
      return;
    }
    if (type == kAttributeExpr) {
      Node obj = field<"object">(n);
      if (is<"identifier">(obj) && !m_.has_import(view(obj))) out.push_back(view(field<"attribute">(n)));
    }
    if (type == kCallExpr) {
      const std::string_view callee = qualified(field<"function">(n));
      const bool expr_fn = callee == "pyspark.sql.functions.expr";
      const bool col_fn = callee == "pyspark.sql.functions.col" || callee == "pyspark.sql.functions.column" || expr_fn;
      Node args = field<"arguments">(n);
      for (Node child : named_children(args)) collect_columns(child, out, depth + 1, expr_fn);
      if (!col_fn) collect_columns(field<"function">(n), out, depth + 1, false);
      return;
    }
    for (Node child : named_children(n)) collect_columns(child, out, depth + 1, false);
  }

  // The literal's contents: a view of the cell when they are one piece, else kept by the model.
  std::optional<std::string_view> string_value(Node n) {
    if (!is<"string">(n)) return std::nullopt;
    std::string_view first;
    std::string joined;
    int pieces = 0;
    for (Node c : named_children(n)) {
      if (is<"interpolation">(c)) return std::nullopt;  // f-string with values: not a literal
      if (!is<"string_content">(c)) continue;
      if (++pieces == 1) first = view(c);
      if (pieces == 2) joined = std::string(first);
      if (pieces >= 2) joined += view(c);
    }
    if (pieces <= 1) return first;
    return m_.keep(std::move(joined));
  }

  // [(k, v), ...] (setAll) or {k: v} / map={k: v} (config): the pairs, for configuration settings.
  void read_pairs(Node a, std::vector<std::pair<Expr, Expr>>& out, int depth) {
    if (is<"keyword_argument">(a)) {
      if (text(field<"name">(a)) != "map") return;
      a = field<"value">(a);
    }
    a = unparen(a);
    if (depth < kMaxDepth)
      for (Node item : named_children(a)) {
        Node k{}, v{};
        if (is<"dictionary">(a) && is<"pair">(item)) {
          k = field<"key">(item);
          v = field<"value">(item);
        } else if ((is<"list">(a) || is<"tuple">(a)) && (is<"tuple">(item) || is<"list">(item)) &&
                   named_count(item) == 2) {
          k = nth_named(item, 0);
          v = nth_named(item, 1);
        } else {
          continue;
        }
        out.emplace_back(make_expr(k, depth + 1), make_expr(v, depth + 1));
      }
  }

  // A literal operand: `5`, "x", None, F.lit(...): comparing a column with it is a filter, not a key.
  bool is_literal(Node n) const {
    n = unparen(n);
    const TypeName t{node_type(n)};
    if (t == "string" || t == "integer" || t == "float" || t == "true" || t == "false" || t == "none") return true;
    if (t == "unary_operator") return is_literal(field<"argument">(n));
    return t == "call" && qualified(field<"function">(n)) == "pyspark.sql.functions.lit";
  }

  // How a join condition reads (see Expr::Condition). The conjuncts of `&` (and of a list) need one
  // column equality between them for Spark to plan a hash or sort-merge join; `|` and `~` hide it.
  Expr::Condition condition_of(Node n, int depth) const {
    using C = Expr::Condition;
    n = unparen(n);
    if (depth > kMaxDepth || is_null(n)) return C::unknown;
    const TypeName t{node_type(n)};
    if (t == "string") return C::keys;
    if (is_literal(n)) return C::no_equality;  // None, F.lit(True): no condition at all
    auto combine_and = [&](const std::vector<Node>& parts) {
      bool all_keys = !parts.empty(), all_known = true;
      for (Node p : parts) {
        C c = condition_of(p, depth + 1);
        if (c == C::equality) return C::equality;
        all_keys = all_keys && c == C::keys;
        all_known = all_known && c != C::unknown;
      }
      if (all_keys) return C::keys;
      return all_known ? C::no_equality : C::unknown;
    };
    if (t == "list" || t == "tuple") {
      std::vector<Node> parts;
      for (std::uint32_t i = 0; i < named_count(n); ++i)
        if (!is<"comment">(nth_named(n, i))) parts.push_back(nth_named(n, i));
      return combine_and(parts);
    }
    if (t == "comparison_operator") {
      bool eq = false, other = false;
      for (std::uint32_t i = 0; i < child_count(n); ++i) {
        Node ch = nth_child(n, i);
        if (is_named(ch)) continue;
        const TypeName op{node_type(ch)};
        if (op == "==")
          eq = true;
        else if (op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=" || op == "<>")
          other = true;
        else
          return C::unknown;  // in, is: not Column operators
      }
      if (other || named_count(n) != 2) return other ? C::no_equality : C::unknown;
      if (!eq) return C::unknown;
      bool literal = is_literal(nth_named(n, 0)) || is_literal(nth_named(n, 1));
      return literal ? C::no_equality : C::equality;
    }
    if (t == "binary_operator") {
      std::string op = text(field<"operator">(n));
      if (op == "&") return combine_and({field<"left">(n), field<"right">(n)});
      if (op == "|") {
        C l = condition_of(field<"left">(n), depth + 1), r = condition_of(field<"right">(n), depth + 1);
        return l == C::unknown || r == C::unknown ? C::unknown : C::no_equality;
      }
      return C::unknown;
    }
    if (t == "unary_operator" && text(field<"operator">(n)) == "~")
      return condition_of(field<"argument">(n), depth + 1) == C::unknown ? C::unknown : C::no_equality;
    if (t == "call") {
      Node fn = field<"function">(n);
      std::string name = is<"attribute">(fn) ? text(field<"attribute">(fn)) : m_.qualify(dotted(fn));
      static const util::NameSet kNoEquality{"startswith",
                                             "endswith",
                                             "contains",
                                             "like",
                                             "rlike",
                                             "ilike",
                                             "between",
                                             "isin",
                                             "isNull",
                                             "isNotNull",
                                             "pyspark.sql.functions.array_contains",
                                             "pyspark.sql.functions.arrays_overlap"};
      if (name == "eqNullSafe") return C::equality;
      if (kNoEquality.count(name) != 0 || kNoEquality.count(qualified(fn)) != 0) return C::no_equality;
    }
    return C::unknown;
  }

  // A column list kept once for each distinct contents: the same few names recur in thousands of
  // arguments (rules read the names, never where a view points).
  const std::span<const std::string_view>* intern_columns(const std::vector<std::string_view>& columns) {
    if (columns.empty()) return nullptr;
    column_key_.clear();
    for (std::string_view c : columns) {
      column_key_ += c;
      column_key_ += '\0';
    }
    auto [it, fresh] = column_lists_.try_emplace(column_key_);
    if (fresh) {  // the list and its span live in the model (the analyzer goes first)
      std::span<std::span<const std::string_view>> kept = m_.arena.make<std::span<const std::string_view>>(1);
      kept[0] = m_.arena.copy(columns);
      it->second = kept.data();
    }
    return it->second;
  }

  Expr make_expr(Node n, int depth) {
    Expr e;
    e.set_text(view(n), pos_of(n));
    if (!is_null(n)) e.set_kind(pyspark::Kind(n->symbol));
    if (too_deep(n, depth)) return e;
    switch (kExprTypes.of(n)) {  // a node is one type: at most one of these
      case kStringExpr:
        e.set_string_value(string_value(n));
        break;
      case kIntegerExpr: {
        std::string digits;
        for (char c : e.text())
          if (c != '_') digits += c;
        try {
          e.set_int_value(std::stoll(digits, nullptr, 0));
        } catch (...) {
        }
        break;
      }
      case kUnaryExpr:
        if (e.text().rfind('-', 0) == 0) {
          Expr inner = make_expr(field<"argument">(n), depth + 1);
          if (inner.int_value()) e.set_int_value(-*inner.int_value());
        }
        break;
      case kTrueExpr:
        e.set_bool_value(true);
        break;
      case kFalseExpr:
        e.set_bool_value(false);
        break;
      case kLambdaExpr: {
        Expr::Lambda l;
        Node params = field<"parameters">(n);
        for (std::uint32_t i = 0; i < named_count(params); ++i) l.params.push_back(view(nth_named(params, i)));
        l.body = view(field<"body">(n));
        e.set_lambda(&m_.lambdas.emplace_back(std::move(l)));
        break;
      }
      case kCallExpr: {
        KeptName callee = m_.keep_name(qualified(field<"function">(n)));
        e.set_chain(build_chain(n, depth + 1), callee);
        break;
      }
      case kAttributeExpr:
        e.set_chain(build_chain(n, depth + 1));
        break;
      case kIdentifierExpr:
        if (auto it = bindings_.find(e.text()); it != bindings_.end()) e.set_chain(it->second);
        break;
      default:
        break;
    }
    columns_.clear();  // nested expressions are complete by now: the list is this one's alone
    collect_columns(n, columns_, depth + 1, false);
    e.set_columns(intern_columns(columns_));
    return e;
  }

  const Chain* build_chain(Node n, int depth) {
    auto key = std::make_pair(node_start(n), node_end(n));
    if (const Chain* const* built = built_.find(key)) return *built;
    Chain& c = m_.chains.emplace_back();
    built_.insert(key, &c);
    c.cell = cell_->number;
    c.statement = statement_;
    c.in_loop = loop_depth_ > 0;
    c.loop = loops_.empty() ? 0 : loops_.back();
    if (!functions_.empty()) c.function = functions_.back();
    if (branches_changed_) {
      branches_kept_ =
          branches_.empty() ? Chain::Branches() : Chain::Branches(&m_.branch_lists.emplace_back(branches_));
      branches_changed_ = false;
    }
    c.branches = branches_kept_;
    c.pos = pos_of(n);
    Node cur = n;
    // The links are gathered in a buffer kept for each nesting level of build_chain (an argument's
    // chain is built while its caller's links are gathered): a vector per chain grew by copies.
    if (link_buffers_.size() <= building_) link_buffers_.resize(building_ + 1);
    std::vector<Link>& links = link_buffers_[building_];
    links.clear();
    ++building_;
    struct Unnest {
      std::size_t& level;
      ~Unnest() { --level; }
    } unnest{building_};
    for (std::size_t guard = 0; guard < kMaxLinks; ++guard) {
      if (is<"call">(cur)) {
        Node fn = field<"function">(cur);
        Node args = field<"arguments">(cur);
        if (is<"attribute">(fn)) {
          Link l;
          l.name = m_.keep_name(view(field<"attribute">(fn)));
          l.kinds = link_kinds(l.name);
          l.is_call = true;
          l.name_pos = pos_of(field<"attribute">(fn));
          Node obj = field<"object">(fn);
          l.link_pos = removal_range(obj, cur);
          l.expr_pos = pos_of(cur);
          l.args = make_args(args, depth);
          if (l.name == "setAll" || l.name == "config") {
            std::vector<std::pair<Expr, Expr>> pairs;
            for (Node child : named_children(args)) read_pairs(child, pairs, depth);
            link_pairs_[{cell_->number, l.name_pos.start_byte}] = m_.arena.copy(pairs);
          }
          if (l.name == "join") {
            // df.join(other, on): the condition, read once here rather than for every expression.
            std::uint32_t positional = 0;
            for (std::uint32_t i = 0, k = 0; i < named_count(args); ++i) {
              Node a = nth_named(args, i);
              if (is<"comment">(a)) continue;
              bool keyword = is<"keyword_argument">(a);
              Arg& arg = l.args[k++];
              if ((keyword && arg.keyword == "on") || (!keyword && positional == 1))
                arg.value.set_condition(condition_of(keyword ? field<"value">(a) : a, depth + 1));
              if (!keyword) ++positional;
            }
          }
          links.push_back(l);
          cur = obj;
          continue;
        }
        c.root_is_call = true;
        c.root = m_.keep_name(qualified(fn));
        if (c.root.empty()) c.root = m_.keep_name(view(fn));
        c.root_expr = make_root_call(cur, depth + 1, c.root_args);
        if (is<"identifier">(fn)) calls_.push_back(&c);
        break;
      }
      if (is<"attribute">(cur)) {
        Link l;
        l.name = m_.keep_name(view(field<"attribute">(cur)));
        l.kinds = link_kinds(l.name);
        l.name_pos = pos_of(field<"attribute">(cur));
        Node obj = field<"object">(cur);
        l.link_pos = pos_of(cur);
        l.link_pos.start_byte = is_null(obj) ? l.link_pos.start_byte : node_end(obj);
        l.expr_pos = pos_of(cur);
        links.push_back(l);
        cur = obj;
        continue;
      }
      if (is<"parenthesized_expression">(cur) && unparen(cur) != cur) {
        cur = unparen(cur);
        continue;
      }
      c.root = m_.keep_name(view(cur));
      c.root_expr.text = view(cur);
      c.root_expr.pos = pos_of(cur);
      break;
    }
    std::reverse(links.begin(), links.end());
    // F.udf(...), functions.broadcast(x): a module function call is the root, not a method link.
    if (!c.root_is_call && !links.empty() && links.front().is_call &&
        m_.qualify(c.root, qualify_buffer_) == "pyspark.sql.functions") {
      Link first = links.front();
      links.erase(links.begin());
      c.root_is_call = true;
      c.root = m_.keep_name("pyspark.sql.functions." + std::string(first.name));
      c.root_expr.pos = first.expr_pos;
      c.root_args = first.args;
    }
    // self.df.cache(): `self.df` is the root, bound where a method of the class assigned it.
    if (!c.root_is_call && c.root == "self" && !links.empty() && !links.front().is_call) {
      if (auto it = self_bindings_.find("self." + std::string(links.front().name)); it != self_bindings_.end()) {
        c.root = m_.keep_name(it->first);
        const Pos& p = links.front().expr_pos;  // `self.df` as written
        c.root_expr.text = src_.substr(p.start_byte, p.end_byte - p.start_byte);
        links.erase(links.begin());
        c.bound = it->second;
      }
    }
    c.links = m_.arena.copy(links);
    if (!c.root_is_call && c.bound == nullptr) {
      if (auto it = bindings_.find(c.root); it != bindings_.end()) c.bound = it->second;
    }
    if (!c.root_is_call && c.loop != 0) {
      auto t = loop_targets_.find(c.root);
      c.root_is_loop_target = t != loop_targets_.end() && t->second == c.loop && c.bound == nullptr;
    }
    classify(c);
    return &c;
  }

  // The root call as written; its arguments (SparkConf(), broadcast(df), Window.orderBy(...)) go
  // to args_out, each read as an expression of its own for rules that look inside (broadcast(x)).
  Chain::Root make_root_call(Node call, int depth, ArenaList<Arg>& args_out) {
    Chain::Root root{view(call), pos_of(call)};
    if (depth < kMaxDepth) args_out = make_args(field<"arguments">(call), depth);
    return root;
  }

  // A call's arguments (comments skipped), each read as an expression; kept by the model, exactly
  // as many as there are.
  std::span<Arg> make_args(Node args, int depth) {
    const NodeSpan arg_nodes = named_children(args);
    std::size_t count = 0;
    for (Node a : arg_nodes) count += is<"comment">(a) ? 0 : 1;
    std::span<Arg> out = m_.arena.make<Arg>(count);
    std::size_t k = 0;
    for (Node a : arg_nodes) {
      if (is<"comment">(a)) continue;
      Arg& arg = out[k++];
      if (is<"keyword_argument">(a)) {
        arg.keyword = m_.keep_name(view(field<"name">(a)));
        arg.value = make_expr(field<"value">(a), depth + 1);
      } else {
        arg.value = make_expr(a, depth + 1);
      }
    }
    return out;
  }

  // x.select(...) on an untyped name: an RDD has no select(), so in a file that imports PySpark it
  // is a DataFrame, unless the chain starts at a library whose objects have select() too.
  bool select_means_dataframe(const Chain& c) const {
    static const util::NameSet kOtherSelects{"polars", "sqlalchemy", "sqlmodel", "ibis",      "duckdb", "bs4",
                                             "peewee", "lxml",       "pypika",   "snowflake", "daft"};
    const Chain* o = c.origin();
    const std::string_view root = m_.qualify(o->root, qualify_buffer_);
    const std::string_view top = root.substr(0, root.find('.'));
    if (kOtherSelects.count(top) != 0) return false;
    return std::any_of(m_.imports.begin(), m_.imports.end(),
                       [](const auto& kv) { return kv.second.rfind("pyspark", 0) == 0; });
  }

  // What the chain is after each link: a SparkSession, a SparkContext, a DataFrame or an RDD, from
  // where it starts (a name bound earlier, spark, sc, a helper that returns a DataFrame) and from
  // methods that only one of them has.
  enum class Kind { unknown, session, context, reader, dataframe, rdd };
  void classify(Chain& c) {
    const Chain* b = c.bound;
    bool session_root = (!c.root_is_call && (c.root == "spark" || (b != nullptr && b->is_session))) ||
                        (c.root_is_call && c.root.find("SparkSession") != std::string::npos);
    if (!c.root_is_call && c.root == "SparkSession") session_root = true;
    bool builder = false;
    for (const auto& l : c.links) builder = builder || (l.kinds & kGetOrCreateName) != 0;
    c.is_session = session_root && (c.links.empty() || builder);

    Kind kind = Kind::unknown;
    bool of_dataframe = false;
    if (session_root) kind = Kind::session;
    if (!c.root_is_call && (c.root == "sc" || c.root == "sparkContext")) kind = Kind::context;
    if (c.root_is_call && c.root.find("SparkContext") != std::string::npos) kind = Kind::context;
    bool local = b != nullptr && b->ends_local;  // pdf = df.toPandas(); pdf.join(...) is pandas
    // df.amount, df.amount.isNull(): an attribute that no DataFrame has names one of its columns.
    if (b != nullptr && !local && b->is_dataframe && !c.links.empty() && !c.links.front().is_call &&
        !kDataFrameAttributes.contains(c.links.front().name)) {
      c.column_of = true;
      return;
    }
    if (b != nullptr && kind == Kind::unknown && !local && b->is_reader) kind = Kind::reader;
    if (b != nullptr && kind == Kind::unknown && !local) {
      if (b->is_rdd) {
        kind = Kind::rdd;
        of_dataframe = b->rdd_of_dataframe;
      } else if (b->is_dataframe) {
        kind = Kind::dataframe;
      }
    }
    if (c.root_is_call && c.root == "pyspark.sql.functions.broadcast") kind = Kind::dataframe;
    if (c.root_is_call) {
      if (const FunctionInfo* f = m_.function(c.root); f != nullptr && f->returns_dataframe) kind = Kind::dataframe;
      // functools.reduce(DataFrame.unionByName, dfs) / reduce(lambda a, b: a.union(b), dfs)
      if ((c.root == "functools.reduce" || c.root == "reduce") &&
          (c.root_expr.text.find("DataFrame.") != std::string::npos ||
           c.root_expr.text.find(".union") != std::string::npos))
        kind = Kind::dataframe;
    }
    if (!c.root_is_call && kind == Kind::unknown && !c.function.empty()) {
      if (const FunctionInfo* f = m_.function(c.function); f != nullptr && f->dataframe_params.count(c.root) != 0)
        kind = Kind::dataframe;
    }
    for (std::size_t i = 0; i < c.links.size(); ++i) {
      const std::uint16_t name = c.links[i].kinds;  // what the name is, as LinkKind bits
      Kind before = kind;
      c.links[i].on = local                     ? Link::On::local
                      : kind == Kind::dataframe ? Link::On::dataframe
                      : kind == Kind::rdd       ? Link::On::rdd
                                                : Link::On::unknown;
      if (local) continue;
      if ((kind == Kind::dataframe || kind == Kind::rdd || kind == Kind::unknown) && (name & kDriverResultKind) != 0 &&
          c.links[i].is_call && !((name & kCountName) != 0 && i > 0 && (c.links[i - 1].kinds & kGroupingKind) != 0)) {
        local = true;  // toPandas(), collect(), count(): what follows works on driver-side values
        continue;
      }
      switch (kind) {
        case Kind::session:
          if ((name & kSparkContextName) != 0)
            kind = Kind::context;
          else if (!c.links[i].is_call && (c.links[i].name == "read" || c.links[i].name == "readStream"))
            kind = Kind::reader;  // spark.read: options and a format until a load method
          else if ((name & kReaderKind) != 0)
            kind = Kind::dataframe;
          break;
        case Kind::reader:
          if (c.links[i].is_call && kReaderLoads.contains(c.links[i].name)) kind = Kind::dataframe;
          break;
        case Kind::context:
          if ((name & kRddSourceKind) != 0) kind = Kind::rdd;
          break;
        case Kind::dataframe:
          if ((name & kRddName) != 0) {
            kind = Kind::rdd;
            of_dataframe = true;
          } else if ((name & kRddOnlyKind) != 0) {
            kind = Kind::rdd;  // spark.read.textFile(p).flatMap(...): whatever the reader, an RDD now
          }
          break;
        case Kind::rdd:
          if ((name & kToDFName) != 0) kind = Kind::dataframe;
          break;
        case Kind::unknown:
          if ((name & kRddName) != 0 && !c.links[i].is_call) {
            kind = Kind::rdd;
            of_dataframe = true;
          } else if ((name & kRddOnlyKind) != 0) {
            kind = Kind::rdd;
          } else if ((name & kDataFrameOnlyKind) != 0 ||
                     ((name & kSelectName) != 0 && c.links[i].is_call && select_means_dataframe(c))) {
            kind = Kind::dataframe;
          }
          break;
      }
      // x.join(y).withColumn(...): what only a DataFrame has says the links before were on one too.
      if (before == Kind::unknown && kind == Kind::dataframe)
        for (std::size_t j = 0; j < i; ++j)
          if (c.links[j].on == Link::On::unknown) c.links[j].on = Link::On::dataframe;
    }
    c.ends_local = local;
    // Methods both have (cache, coalesce, repartition, persist...) on something of unknown kind
    // still say "Spark data": treated as a DataFrame, as before.
    bool spark_data = false;
    if (kind == Kind::unknown)
      for (const auto& l : c.links) spark_data = spark_data || (l.kinds & kSparkOnlyKind) != 0;
    c.is_rdd = kind == Kind::rdd;
    c.rdd_of_dataframe = c.is_rdd && of_dataframe;
    c.is_dataframe = kind == Kind::dataframe || (kind == Kind::unknown && spark_data);
    c.is_reader = kind == Kind::reader;
    // df.columns, df.schema, df.dtypes: what the plan knows, as Python values on the driver.
    if (c.is_dataframe && !c.links.empty() && !c.links.back().is_call &&
        (c.links.back().name == "columns" || c.links.back().name == "schema" || c.links.back().name == "dtypes")) {
      c.is_dataframe = false;
      c.ends_local = true;
    }
    // Window.orderBy(...).rowsBetween(...) is a window specification, whatever methods it shares
    // with a DataFrame (also through a name bound to one).
    const std::string_view root = m_.qualify(c.root, qualify_buffer_);
    bool window = root == "Window" || (root.size() > 7 && root.substr(root.size() - 7) == ".Window") ||
                  (b != nullptr && b->window_spec);
    if (window) {
      c.window_spec = true;
      c.is_dataframe = false;
      for (auto& l : c.links) l.on = Link::On::unknown;
    }
  }

  // NAME = <literal> once at module level: a constant that settings may use for their key or value.
  // A second assignment anywhere makes it a variable.
  void note_constant(const std::string& name, Node right, int depth) {
    if (!assigned_.insert(name).second) {
      constants_.erase(name);
      m_.literal_collections.erase(name);
      return;
    }
    const TypeName t{node_type(right)};
    if (t == "dictionary" || t == "list" || t == "tuple" || t == "set") {
      m_.literal_collections.insert(name);
      m_.literal_sizes[name] = static_cast<int>(named_count(right));
    }
    if (!functions_.empty() || loop_depth_ > 0 ||
        !(t == "string" || t == "integer" || t == "true" || t == "false" || t == "unary_operator"))
      return;
    Expr e = make_expr(right, depth + 1);
    if (e.string_value() || e.int_value() || e.bool_value()) constants_.emplace(name, e);
  }

  void handle_assignment(Node n, int depth) {
    Node left = field<"left">(n);
    Node right = field<"right">(n);
    if (is_null(right)) return;
    // x = (df.cache()), black style: the parentheses change nothing.
    right = unparen(right);
    const Chain* chain = nullptr;
    if (is<"call">(right) || is<"attribute">(right)) chain = build_chain(right, depth + 1);
    visit_children_of_chain(right, depth + 1);
    if (is<"identifier">(left)) {
      std::string name = text(left);
      note_constant(name, right, depth);
      if (chain != nullptr) {
        const_cast<Chain*>(chain)->assigned_to = m_.keep_name(view(left));
        bind(name, chain);
        note_udf_binding(name, *chain);
      } else if (is<"identifier">(right) && bindings_.count(text(right)) != 0) {
        bind(name, bindings_.at(text(right)));
      } else {
        bind(name, nullptr);
        // `acc = new if acc is None else acc.union(new)`: each branch's chain is what `name` may hold.
        if (is<"conditional_expression">(right) && named_count(right) == 3)
          for (std::uint32_t i : {0U, 2U}) {
            Node branch = unparen(nth_named(right, i));
            if (is<"call">(branch) || is<"attribute">(branch))
              if (const Chain* c = build_chain(branch, depth + 1))
                const_cast<Chain*>(c)->assigned_to = m_.keep_name(view(left));
          }
      }
    } else if (is<"attribute">(left) && text(field<"object">(left)) == "self") {
      std::string name = "self." + text(field<"attribute">(left));
      if (chain != nullptr) {
        const_cast<Chain*>(chain)->assigned_to = m_.keep_name(name);
        self_bindings_[name] = chain;
      } else {
        self_bindings_.erase(name);
      }
    }
  }

  // `upper = F.udf(lambda s: s.upper())`, `f = udf(fn, "int")`, `g = pandas_udf(...)`.
  // `udf(f).asNondeterministic()` is still the UDF: the only link that keeps a chain one.
  static bool only_udf_marks(const Chain& chain) {
    return std::all_of(chain.links.begin(), chain.links.end(),
                       [](const Link& l) { return l.is_call && l.name == "asNondeterministic"; });
  }

  void note_udf_binding(const std::string& name, const Chain& chain) {
    if (!only_udf_marks(chain)) return;
    const bool marked = !chain.links.empty();  // asNondeterministic()
    if (!chain.root_is_call) {
      // f = f.asNondeterministic() (or g = f.asNondeterministic()): the same UDF, marked.
      if (marked && (m_.udf_names.count(chain.root) != 0 || m_.pandas_udf_names.count(chain.root) != 0)) {
        if (m_.udf_names.count(chain.root) != 0) m_.udf_names.insert(name);
        if (m_.pandas_udf_names.count(chain.root) != 0) m_.pandas_udf_names.insert(name);
        m_.nondeterministic_udfs.insert(name);
      }
      return;
    }
    const bool row = chain.root == "pyspark.sql.functions.udf" || is_user_defined_function(chain.root);
    const bool pandas = chain.root == "pyspark.sql.functions.pandas_udf";
    if (row) m_.udf_names.insert(name);
    if (pandas) m_.pandas_udf_names.insert(name);
    if ((row || pandas) && marked) m_.nondeterministic_udfs.insert(name);
    for (auto& u : m_.udfs)
      if (u.pos.start_byte == chain.pos.start_byte && u.cell == chain.cell && u.name.empty()) u.name = name;
  }

  void handle_decorated(Node n, int depth) {
    Node def = field<"definition">(n);
    std::string fname = is<"function_definition">(def) ? text(field<"name">(def)) : std::string();
    for (Node d : named_children(n)) {
      if (!is<"decorator">(d)) continue;
      Node expr = nth_named(d, 0);
      Node callee = is<"call">(expr) ? field<"function">(expr) : expr;
      const std::string q(qualified(callee));
      if (q == "pyspark.sql.functions.udf") {
        m_.udfs.push_back({fname, UdfKind::row, pos_of(d), cell_->number, std::nullopt, "decorator", fname,
                           functions_.empty() ? std::string() : std::string(functions_.back())});
        m_.udf_names.insert(fname);
      } else if (q == "pyspark.sql.functions.pandas_udf") {
        m_.pandas_udf_names.insert(fname);
      }
    }
    visit(def, depth + 1);
  }

  // UserDefinedFunction(f, T): the Spark 1.x/2.x class behind udf().
  static bool is_user_defined_function(std::string_view root) {
    return root == "UserDefinedFunction" || root == "pyspark.sql.udf.UserDefinedFunction" ||
           root == "pyspark.sql.functions.UserDefinedFunction";
  }

  // udf(...) / F.udf(...) calls, spark.udf.register(name, python_function) and the Spark 1.x
  // sqlContext.registerFunction(name, f).
  void note_udf_call(const Chain& c) {
    if (c.root_is_call && (c.root == "pyspark.sql.functions.udf" || is_user_defined_function(c.root)) &&
        only_udf_marks(c)) {
      UdfDef u{"", UdfKind::row, c.pos, c.cell, std::nullopt, "udf-call", "", std::string(c.function)};
      u.lambda = first_lambda_;  // udf(lambda s: s.upper()) keeps its lambda for the built-in suggestion
      if (!c.root_args.empty() && c.root_args[0].value.kind() == "identifier") u.function = c.root_args[0].value.text();
      m_.udfs.push_back(u);
      return;
    }
    // spark.udf.register("name", f[, returnType]) and sqlContext.registerFunction("name", f): a Python
    // function unless it is a pandas UDF.
    bool spark_register = c.links.size() >= 2 && c.links[c.links.size() - 2].name == "udf" &&
                          c.links.back().name == "register" && !c.root_is_call &&
                          (c.root == "spark" || (c.bound != nullptr && c.bound->is_session));
    bool context_register = !c.root_is_call && c.links.size() == 1 && c.links[0].name == "registerFunction";
    if (spark_register || context_register) {
      const Link& reg = c.links.back();
      if (reg.args.size() < 2) return;
      const Expr& fn = reg.args[1].value;
      // Registering a UDF made earlier (udf(f), @udf) is the same UDF: reported where it was made.
      if (m_.pandas_udf_names.count(fn.text()) != 0 || m_.udf_names.count(fn.text()) != 0) return;
      UdfDef u{std::string(reg.args[0].value.string_value().value_or("")),
               UdfKind::row,
               c.pos,
               c.cell,
               fn.lambda() != nullptr ? std::optional<Expr::Lambda>(*fn.lambda()) : std::nullopt,
               "register",
               fn.kind() == "identifier" ? std::string(fn.text()) : std::string(),
               std::string(c.function)};
      m_.udfs.push_back(u);
    }
  }

  // setAll([(k, v), ...]) and config(map={k: v}): the literal pairs of that link.
  std::span<const std::pair<Expr, Expr>> pairs_of(const Chain& c, const Link& l) const {
    auto it = link_pairs_.find({c.cell, l.name_pos.start_byte});
    return it == link_pairs_.end() ? std::span<const std::pair<Expr, Expr>>() : it->second;
  }

  void note_setting(const Chain& c) {
    for (std::size_t i = 0; i < c.links.size(); ++i) {
      const Link& l = c.links[i];
      if ((l.name == "master" || l.name == "setMaster") && !l.args.empty() &&
          l.args[0].value.string_value().value_or("").rfind("local", 0) == 0)
        m_.local_master = true;
      bool conf_set = l.name == "set" && i > 0 && c.links[i - 1].name == "conf";
      bool builder_config = l.name == "config";
      // SparkConf().set(...), and conf.set(...) on a name bound to SparkConf().
      const Chain* origin = c.origin();
      bool sparkconf = origin != nullptr && origin->root_is_call && origin->root.find("SparkConf") != std::string::npos;
      bool sparkconf_set = (l.name == "set" || l.name == "setAll") && sparkconf;
      bool sql = l.name == "sql" && l.is_call && (i == 0) && !c.root_is_call &&
                 (c.root == "spark" || (c.bound != nullptr && c.bound->is_session));
      if (sql && !l.args.empty() && l.args[0].value.string_value()) {
        const Expr& s = l.args[0].value;
        for (auto& st : sql_set_statements(*s.string_value())) {
          ConfSetting cs;
          cs.key = st.key;
          cs.value = st.value;
          cs.literal = true;
          cs.pos = s.pos();
          cs.value_pos = s.pos();
          cs.cell = c.cell;
          cs.via = "SQL SET";
          cs.function = std::string(c.function);
          m_.settings.push_back(std::move(cs));
        }
        continue;
      }
      bool set_conf = l.name == "setConf" && l.is_call;  // SQLContext / HiveContext (Spark 1.x)
      if (sparkconf_set && l.name == "setAll") {
        for (const auto& [key, value] : pairs_of(c, l)) add_setting(c, l, i, key, value, "SparkConf.setAll", true);
        continue;
      }
      if (builder_config && !pairs_of(c, l).empty()) {
        for (const auto& [key, value] : pairs_of(c, l)) add_setting(c, l, i, key, value, "builder.config", true);
        continue;
      }
      if (!(conf_set || builder_config || sparkconf_set || set_conf) || l.args.size() < 2) continue;
      add_setting(c, l, i, l.args[0].value, l.args[1].value,
                  conf_set         ? "conf.set"
                  : builder_config ? "builder.config"
                  : set_conf       ? "setConf"
                                   : "SparkConf.set");
    }
  }

  // A literal, or a name bound once to a literal at module level (`SHUFFLE = "spark.sql.shuffle.partitions"`).
  const Expr& literal_of(const Expr& e) const {
    if (e.kind() == "identifier")
      if (auto it = constants_.find(e.text()); it != constants_.end()) return it->second;
    return e;
  }

  void add_setting(const Chain& c, const Link& l, std::size_t i, const Expr& key_expr, const Expr& value_expr,
                   const char* via, bool at_key = false) {
    {
      const Expr& key = literal_of(key_expr);
      const Expr& value = literal_of(value_expr);
      if (!key.string_value()) return;
      bool conf_set = std::string_view(via) == "conf.set";
      ConfSetting cs;
      cs.key = *key.string_value();
      cs.cell = c.cell;
      cs.pos = l.expr_pos;
      cs.pos.start_byte = l.name_pos.start_byte;
      if (at_key) cs.pos = key_expr.pos();  // one pair of setAll([...]) / config(map={...})
      cs.value_pos = value_expr.pos();
      cs.via = via;
      cs.function = std::string(c.function);
      if (conf_set && i + 1 == c.links.size()) cs.statement = c.whole_statement;
      if (value.string_value()) {
        cs.value = *value.string_value();
        cs.literal = true;
      } else if (value.int_value()) {
        cs.value = std::to_string(*value.int_value());
        cs.literal = true;
      } else if (value.bool_value()) {
        cs.value = *value.bool_value() ? "true" : "false";
        cs.literal = true;
      } else {
        cs.value = value.text();
      }
      m_.settings.push_back(std::move(cs));
    }
  }

  void visit_children_of_chain(Node n, int depth) {
    // Inside a chain, only argument lists (and lambdas in them) can hold further statements of interest.
    if (depth > kMaxDepth || is_null(n)) return;
    if (is<"call">(n) || is<"attribute">(n)) {
      const Chain* c = build_chain(n, depth + 1);
      if (noted_.insert(c, true)) {
        first_lambda_ = root_lambda(n);
        note_udf_call(*c);
        note_setting(*c);
      }
      Node cur = n;
      while (is<"call">(cur) || is<"attribute">(cur) || is<"parenthesized_expression">(cur)) {
        if (is<"call">(cur)) {
          Node args = field<"arguments">(cur);
          for (Node child : named_children(args)) visit(child, depth + 1);
          cur = field<"function">(cur);
          // `F.udf(lambda: ...)()`, `udf(f)(col)`: a call made and called at once; the inner call is
          // a chain of its own (a UDF made here).
          if (is<"call">(cur))
            if (const Chain* inner = build_chain(cur, depth + 1); inner != nullptr && noted_.insert(inner, true)) {
              first_lambda_ = root_lambda(cur);
              note_udf_call(*inner);
            }
        } else if (is<"attribute">(cur)) {
          cur = field<"object">(cur);
        } else {
          cur = nth_named(cur, 0);
        }
      }
      if (!is<"identifier">(cur)) visit(cur, depth + 1);
      return;
    }
    visit(n, depth);
  }

  // `spark.conf.set(k, v)` alone on its line(s): remember the range that removing the statement removes.
  void note_whole_statement(Node n, int depth) {
    const Chain* c = build_chain(nth_named(n, 0), depth + 1);
    Pos p = pos_of(n);
    std::size_t line_start = p.start_byte == 0 ? std::string_view::npos : src_.rfind('\n', p.start_byte - 1);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    std::size_t after = src_.find_first_not_of(" \t\r", p.end_byte);
    bool alone =
        src_.substr(line_start, p.start_byte - line_start).find_first_not_of(" \t") == std::string_view::npos &&
        (after == std::string_view::npos || src_[after] == '\n');
    if (!alone) return;
    p.start_byte = static_cast<std::uint32_t>(line_start);
    p.end_byte = static_cast<std::uint32_t>(after == std::string_view::npos ? src_.size() : after + 1);
    const_cast<Chain*>(c)->whole_statement = p;
  }

  // `for df in dfs:` / `for name, df in items:` rebinds its targets on every turn.
  void note_loop_targets(Node target, int depth) {
    if (depth > kMaxDepth || is_null(target)) return;
    if (is<"identifier">(target)) {
      loop_targets_[text(target)] = loops_.back();
      bind(text(target), nullptr);
      return;
    }
    for (Node child : named_children(target)) note_loop_targets(child, depth + 1);
  }

  // Parameters and annotations of a def: `df: DataFrame` and `-> DataFrame` say what flows in and out.
  void note_function(Node def) {
    FunctionInfo& f = m_.add_function(view(field<"name">(def)));
    f.params.clear();
    f.body = view(field<"body">(def)).substr(0, std::size_t{16} * 1024);
    Node params = field<"parameters">(def);
    auto is_dataframe_type = [&](Node type) {
      std::string t = text(type);
      return t == "DataFrame" || m_.qualify(t) == "pyspark.sql.DataFrame" ||
             m_.qualify(t) == "pyspark.sql.dataframe.DataFrame" || t.rfind("\"DataFrame", 0) == 0 ||
             t.find(".DataFrame") != std::string::npos;
    };
    for (Node p : named_children(params)) {
      std::string name;
      Node type{};
      if (is<"identifier">(p)) {
        name = text(p);
      } else if (is<"typed_parameter">(p)) {
        name = named_count(p) > 0 ? text(nth_named(p, 0)) : std::string();
        type = field<"type">(p);
      } else if (is<"default_parameter">(p) || is<"typed_default_parameter">(p)) {
        name = text(field<"name">(p));
        type = field<"type">(p);
      }
      if (name.empty()) continue;
      f.params.push_back(name);
      if (!is_null(type) && is_dataframe_type(type) && text(type).find("pandas") == std::string::npos &&
          m_.qualify(text(type)).find("pandas") == std::string::npos)
        f.dataframe_params.insert(name);
    }
    // A method's first parameter is the object itself, never a DataFrame passed in.
    Node ret = field<"return_type">(def);
    if (!is_null(ret) && is_dataframe_type(ret) && m_.qualify(text(ret)).find("pandas") == std::string::npos)
      f.returns_dataframe = true;
  }

  // `["a", "b"]`, `("a", "b")`, `{"a"}`: their length; `range(3)`, `range(1, 4)`: the count; else -1.
  int spelled_out_turns(Node it) {
    it = unparen(it);
    // reversed(...), enumerate(...), sorted(...), list(...) keep the count of what they wrap.
    for (int guard = 0; guard < 4 && is<"call">(it); ++guard) {
      std::string fn = text(field<"function">(it));
      Node args = field<"arguments">(it);
      if ((fn != "reversed" && fn != "enumerate" && fn != "sorted" && fn != "list" && fn != "tuple") ||
          named_count(args) != 1)
        break;
      it = unparen(nth_named(args, 0));
    }
    // d.items(), d.keys(), d.values() of a dictionary: as many turns as it has keys.
    if (is<"call">(it) && is<"attribute">(field<"function">(it)) && named_count(field<"arguments">(it)) == 0) {
      const std::string method = text(field<"attribute">(field<"function">(it)));
      if (method == "items" || method == "keys" || method == "values")
        it = unparen(field<"object">(field<"function">(it)));
    }
    if (is<"list">(it) || is<"tuple">(it) || is<"set">(it) || is<"dictionary">(it)) {
      for (std::uint32_t i = 0; i < named_count(it); ++i)
        if (is<"list_splat">(nth_named(it, i)) || is<"dictionary_splat">(nth_named(it, i))) return -1;
      return static_cast<int>(named_count(it));
    }
    // A name bound once to a collection written out in the code: its items.
    if (is<"identifier">(it) && m_.literal_collections.count(text(it)) != 0)
      if (auto size = m_.literal_sizes.find(text(it)); size != m_.literal_sizes.end()) return size->second;
    if (!is<"call">(it) || text(field<"function">(it)) != "range") return -1;
    Node args = field<"arguments">(it);
    std::vector<long long> v;
    for (Node a : named_children(args)) {
      if (!is<"integer">(a)) return -1;
      try {
        v.push_back(std::stoll(text(a)));
      } catch (...) {
        return -1;
      }
    }
    if (v.size() == 1) return static_cast<int>(std::max(0LL, std::min(v[0], 1'000'000LL)));
    if (v.size() == 2) return static_cast<int>(std::max(0LL, std::min(v[1] - v[0], 1'000'000LL)));
    return -1;
  }

  // The chain counted by `e` (`df.count()`, or `len(df.collect())` with via_len), or nullptr.
  const Chain* counted(Node e, int depth, bool& via_len) {
    e = unparen(e);
    via_len = false;
    if (is<"call">(e) && text(field<"function">(e)) == "len") {
      Node args = field<"arguments">(e);
      if (named_count(args) != 1) return nullptr;
      Node inner = unparen(nth_named(args, 0));
      if (!is<"call">(inner)) return nullptr;
      const Chain* c = build_chain(inner, depth + 1);
      if (c == nullptr || c->links.empty() || c->links.back().name != "collect" || !c->links.back().args.empty())
        return nullptr;
      via_len = true;
      return c;
    }
    if (!is<"call">(e)) return nullptr;
    const Chain* c = build_chain(e, depth + 1);
    if (c == nullptr || c->links.empty() || c->links.back().name != "count" || !c->links.back().args.empty() ||
        !c->links.back().is_call)
      return nullptr;
    return c;
  }

  void note_size_test(const Chain* c, bool via_len, bool means_empty, Node whole) {
    SizeTest s;
    s.chain = c;
    s.via_len = via_len;
    s.means_empty = means_empty;
    s.pos = pos_of(whole);
    s.cell = cell_->number;
    m_.size_tests.push_back(s);
  }

  // `count OP literal` or `literal OP count` where the question is "empty or not".
  void note_comparison(Node n, int depth) {
    if (named_count(n) != 2 || child_count(n) != 3) return;
    Node a = nth_named(n, 0), b = nth_named(n, 1);
    std::string op(node_type(nth_child(n, 1)));
    bool via_len = false;
    const Chain* c = counted(a, depth, via_len);
    Node lit = b;
    if (c == nullptr) {
      c = counted(b, depth, via_len);
      lit = a;
      // 0 < n is n > 0: mirror the operator.
      if (op == "<")
        op = ">";
      else if (op == ">")
        op = "<";
      else if (op == "<=")
        op = ">=";
      else if (op == ">=")
        op = "<=";
    }
    if (c == nullptr || !is<"integer">(unparen(lit))) return;
    std::string v = text(unparen(lit));
    if (v != "0" && v != "1") return;
    bool zero = v == "0";
    if ((op == "==" && zero) || (op == "<" && !zero) || (op == "<=" && zero))
      note_size_test(c, via_len, true, n);
    else if ((op == "!=" && zero) || (op == ">" && zero) || (op == ">=" && !zero))
      note_size_test(c, via_len, false, n);
  }

  // `if df.count():`, `while not df.count():`: the count itself is the condition.
  void note_truth_test(Node cond, int depth) {
    cond = unparen(cond);
    bool negated = false;
    Node whole = cond;
    if (is<"not_operator">(cond)) {
      negated = true;
      cond = unparen(field<"argument">(cond));
    }
    bool via_len = false;
    if (const Chain* c = counted(cond, depth, via_len)) note_size_test(c, via_len, negated, whole);
  }

  void visit(Node n, int depth) {
    if (too_deep(n, depth) || is_null(n)) return;
    if (!kOwnHandling.contains(n)) {
      for (Node c : all_children(n))
        if (is_named(c) || is<"comment">(c)) visit(c, depth + 1);
      return;
    }
    const TypeName t{node_type(n)};
    if (t == "comment") {
      m_.comments.push_back({pos_of(n), view(n), cell_->number});
      return;
    }
    if (t == "import_statement") return handle_import(n);
    if (t == "import_from_statement") return handle_import_from(n);
    if (t == "expression_statement" || t == "return_statement" || t == "if_statement" || t == "with_statement")
      ++statement_;
    if (t == "comparison_operator") note_comparison(n, depth);
    if (t == "if_statement" || t == "elif_clause") note_truth_test(field<"condition">(n), depth);
    if (t == "expression_statement" && named_count(n) == 1 && is<"call">(nth_named(n, 0)))
      note_whole_statement(n, depth);
    if (t == "decorated_definition") return handle_decorated(n, depth);
    if (t == "assignment") return handle_assignment(n, depth);
    if (t == "call" || t == "attribute") return visit_children_of_chain(n, depth);
    if (t == "if_statement") {
      visit(field<"condition">(n), depth + 1);
      int id = ++next_if_;
      branches_.emplace_back(id, 0);
      branches_changed_ = true;
      visit(field<"consequence">(n), depth + 1);
      branches_.pop_back();
      branches_changed_ = true;
      int branch = 1;
      for (Node c : all_children(n)) {
        if (is<"comment">(c)) {
          visit(c, depth + 1);
          continue;
        }
        if (!is<"elif_clause">(c) && !is<"else_clause">(c)) continue;
        branches_.emplace_back(id, branch++);
        branches_changed_ = true;
        visit(c, depth + 1);
        branches_.pop_back();
        branches_changed_ = true;
      }
      return;
    }
    if (t == "for_statement" || t == "while_statement") {
      ++statement_;
      if (t == "while_statement") note_truth_test(field<"condition">(n), depth);
      visit_children_of_chain(t == "for_statement" ? field<"right">(n) : field<"condition">(n), depth + 1);
      ++loop_depth_;
      loops_.push_back(++next_loop_);
      Loop& loop = m_.loops.emplace_back();
      loop.pos = pos_of(nth_child(n, 0));
      loop.cell = cell_->number;
      if (t == "for_statement") {
        loop.known_turns = spelled_out_turns(field<"right">(n));
        // for c in df.columns / df.schema.fields / df.dtypes: one turn per column of a DataFrame.
        const std::string_view over = view(field<"right">(n));
        loop.over_columns = over.find(".columns") != std::string_view::npos ||
                            over.find(".schema") != std::string_view::npos ||
                            over.find(".dtypes") != std::string_view::npos;
        // `[c for c in df.columns if c.startswith("out_")]`: the columns a condition picks, as many
        // as the data has, which the code does not show.
        if (Node right = field<"right">(n);
            is<"list_comprehension">(right) || is<"generator_expression">(right) || is<"set_comprehension">(right))
          for (Node part : named_children(right))
            if (is<"if_clause">(part)) loop.over_columns = false;
      }
      auto saved_targets = loop_targets_;
      if (t == "for_statement") note_loop_targets(field<"left">(n), depth + 1);
      visit(field<"body">(n), depth + 1);
      loop_targets_ = std::move(saved_targets);
      loops_.pop_back();
      --loop_depth_;
      visit(field<"alternative">(n), depth + 1);
      return;
    }
    if (t == "return_statement") {
      Node value = named_count(n) > 0 ? nth_named(n, 0) : Node{};
      value = unparen(value);
      if (!functions_.empty()) {
        const Chain* r = nullptr;
        if (is<"call">(value) || is<"attribute">(value)) r = build_chain(value, depth + 1);
        if (is<"identifier">(value))
          if (auto it = bindings_.find(text(value)); it != bindings_.end()) r = it->second;
        if (r != nullptr) m_.add_function(functions_.back()).returns.push_back(r);
      }
      visit_children_of_chain(value, depth + 1);
      return;
    }
    if (t == "function_definition") {
      // A function body runs later and elsewhere: its bindings do not leak out.
      std::size_t saved = open_scope();
      auto saved_targets = loop_targets_;
      loop_targets_.clear();
      note_function(n);
      functions_.push_back(m_.keep_name(view(field<"name">(n))));
      visit(field<"body">(n), depth + 1);
      functions_.pop_back();
      loop_targets_ = std::move(saved_targets);
      close_scope(saved);
      return;
    }
    if (t == "class_definition") {
      std::size_t saved = open_scope();
      auto saved_self = std::move(self_bindings_);
      self_bindings_.clear();
      visit(field<"body">(n), depth + 1);
      self_bindings_ = std::move(saved_self);
      close_scope(saved);
      return;
    }
    for (Node c : all_children(n)) {
      if (is_named(c) || is<"comment">(c)) visit(c, depth + 1);
    }
  }
};

}  // namespace

const Arg* Link::arg(std::size_t index, std::string_view keyword) const {
  if (!keyword.empty())
    for (const auto& a : args)
      if (a.keyword == keyword) return &a;
  std::size_t positional = 0;
  for (const auto& a : args) {
    if (!a.keyword.empty()) continue;
    if (positional++ == index) return &a;
  }
  return nullptr;
}

std::vector<Step> Chain::pipeline() const {
  // Rules ask for it for every chain: one allocation, of the right size, and no other. The bound
  // chains are walked again for each one, earliest first (a history is a few chains long).
  constexpr std::size_t kMaxHistory = 64;
  std::size_t depth = 0, links = 0;
  for (const Chain* c = this; c != nullptr && depth < kMaxHistory; c = c->bound) {
    ++depth;
    links += c->links.size();
  }
  std::vector<Step> out;
  out.reserve(links);
  for (std::size_t from_end = depth; from_end > 0; --from_end) {
    const Chain* c = this;
    for (std::size_t k = 1; k < from_end; ++k) c = c->bound;
    for (const auto& l : c->links) out.push_back({c, &l});
  }
  return out;
}

const Chain* Chain::origin() const {
  const Chain* c = this;
  for (int i = 0; i < 64 && c->bound != nullptr; ++i) c = c->bound;
  return c;
}

FunctionInfo& SourceModel::add_function(std::string_view name) {
  auto it = functions.find(name);
  if (it == functions.end()) {
    it = functions.emplace(std::string(name), FunctionInfo()).first;
    function_index_[it->first] = &it->second;
  }
  return it->second;
}

void SourceModel::set_import(std::string_view local, std::string qualified) {
  auto it = imports.find(local);
  if (it == imports.end()) it = imports.emplace(std::string(local), std::string()).first;
  it->second = std::move(qualified);
  import_index_[it->first] = &it->second;
  if (!local.empty() && local.size() < 64) {
    import_lengths_ |= std::uint64_t{1} << local.size();
    const auto first = static_cast<unsigned char>(local.front());
    import_firsts_[first / 64] |= std::uint64_t{1} << (first % 64);
  }
}

std::string_view SourceModel::qualify(std::string_view dotted, std::string& buffer) const {
  if (dotted.empty()) return {};
  auto dot = dotted.find('.');
  const std::string_view head = dotted.substr(0, dot);
  if (auto it = may_import(head) ? import_index_.find(head) : import_index_.end(); it != import_index_.end()) {
    const std::string_view rest = dot == std::string_view::npos ? std::string_view{} : dotted.substr(dot);
    if (rest.empty()) return *it->second;
    buffer.assign(*it->second);
    buffer += rest;
    return buffer;
  }
  if (dot == std::string_view::npos && star_imports.count("pyspark.sql.functions") != 0) {
    static const util::NameSet known{"udf", "pandas_udf", "broadcast", "col", "column", "expr", "lit"};
    if (known.contains(head)) {
      buffer.assign("pyspark.sql.functions.");
      buffer += head;
      return buffer;
    }
  }
  return dotted;
}

std::string SourceModel::qualify(std::string_view dotted) const {
  std::string buffer;
  return std::string(qualify(dotted, buffer));
}

void* ModelArena::take(std::size_t bytes, std::size_t align) {
  std::size_t at = (used_ + align - 1) / align * align;
  if (blocks_.empty() || at + bytes > capacity_) {
    // A list larger than a block gets a block of its own (operator new[] aligns for any record).
    capacity_ = std::max(kBlock, bytes);
    // Not zeroed: make() constructs what it hands out (zeroing was 0.7 % of a run and touched every page).
    blocks_.push_back(std::make_unique_for_overwrite<std::byte[]>(capacity_));
    at = 0;
  }
  used_ = at + bytes;
  return blocks_.back().get() + at;
}

Place SourceModel::place(int cell_number, const Pos& pos) const {
  // Indexed by cell number (a notebook has tens of thousands of cells: no map node for each); an
  // empty entry is not read yet. A number that is no cell's reads cell() as it is, uncached.
  std::vector<std::uint32_t> uncached;
  const bool cacheable = cell_number >= 0 && static_cast<std::size_t>(cell_number) <= file->cells.size();
  if (cacheable && line_starts_.size() <= static_cast<std::size_t>(cell_number))
    line_starts_.resize(file->cells.size() + 1);
  std::vector<std::uint32_t>& starts = cacheable ? line_starts_[static_cast<std::size_t>(cell_number)] : uncached;
  if (starts.empty()) {
    starts.push_back(0);
    const std::string_view t = cell(cell_number).text;
    for (std::size_t nl = t.find('\n'); nl != std::string_view::npos; nl = t.find('\n', nl + 1))
      starts.push_back(static_cast<std::uint32_t>(nl + 1));
    starts.shrink_to_fit();
  }
  auto point = [&](std::uint32_t byte, std::uint32_t& line, std::uint32_t& column) {
    auto after = std::upper_bound(starts.begin(), starts.end(), byte);
    line = static_cast<std::uint32_t>(after - starts.begin());
    column = byte - starts[line - 1] + 1;
  };
  Place p;
  point(pos.start_byte, p.line, p.column);
  point(pos.end_byte, p.end_line, p.end_column);
  return p;
}

const Cell& SourceModel::cell(int number) const {
  const Cell* c = find_cell(*file, number);
  return c != nullptr ? *c : file->cells.front();
}

SourceModel analyze_source(const SourceFile& file, std::size_t chunk_bytes) {
  SourceModel m;
  m.file = &file;
  // `from pyspark.sql import functions as F` and friends resolve through the import table; the
  // conventional names also work in notebooks where the import sits in a %run-included cell.
  Analyzer analyzer(file, m, chunk_bytes);
  analyzer.run();
  analyzer.resolve_functions();
  return m;
}

}  // namespace planlint::pyspark
