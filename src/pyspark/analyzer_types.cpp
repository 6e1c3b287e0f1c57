// What a chain is after each link (SparkSession, SparkContext, reader, DataFrame, RDD, a value on the
// driver), from the method names only one of them has, and what defs take and return DataFrames.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pyspark/analyzer_impl.hpp"
#include "pyspark/model.hpp"
#include "pyspark/syntax_access.hpp"
#include "util/name_set.hpp"

namespace planlint::pyspark::detail {
namespace {

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
// Methods and attributes a pandas DataFrame (or Series) has and a Spark DataFrame, Column or RDD has
// not: a chain through one works on a pandas value on the driver (`pdf.copy()`, `pdf.iloc[0]`).
const util::NameSet kPandasOnly{"copy",         "iloc",        "loc",        "iat",          "at",
                                "nunique",      "reset_index", "set_index",  "sort_values",  "sort_index",
                                "value_counts", "to_csv",      "to_parquet", "to_excel",     "to_dict",
                                "to_numpy",     "iterrows",    "itertuples", "merge",        "pivot_table",
                                "applymap",     "to_records",  "nlargest",   "nsmallest",    "duplicated",
                                "get_dummies",  "to_sql",      "shape",      "memory_usage", "select_dtypes"};
// Keyword arguments only pandas methods take (`drop(columns=...)`, `dropna(inplace=True)`).
const util::NameSet kPandasKeywords{"inplace", "axis", "ignore_index"};
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
  kPandasOnlyKind = 1U << 13,
};

struct LinkKindTable {
  util::NameSet names;
  std::vector<std::uint16_t> kinds;  // by the name's index in `names`
};

const LinkKindTable kLinkKinds = [] {
  std::map<std::string, std::uint16_t, std::less<>> all;
  const std::pair<const util::NameSet*, LinkKind> sets[] = {
      {&kSparkOnlyMethods, kSparkOnlyKind},         {&kReaders, kReaderKind},       {&kRddOnlyMethods, kRddOnlyKind},
      {&kDriverResults, kDriverResultKind},         {&kGroupings, kGroupingKind},   {&kRddSources, kRddSourceKind},
      {&kDataFrameOnlyMethods, kDataFrameOnlyKind}, {&kPandasOnly, kPandasOnlyKind}};
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

// A link only a pandas DataFrame can take: its name (`copy()`, `iloc`) or a keyword only pandas methods
// have (`dropna(inplace=True)`, `drop(columns=[...])`).
bool pandas_link(const Link& l) {
  if ((l.kinds & kPandasOnlyKind) != 0) return true;
  if (!l.is_call) return false;
  const std::string_view name = l.name;
  for (const Arg& a : l.args) {
    const std::string_view k = a.keyword;
    if (kPandasKeywords.contains(k) || (k == "columns" && (name == "drop" || name == "rename"))) return true;
  }
  return false;
}

// The module a call's callee comes from is pandas (or a library returning pandas DataFrames), or
// another library whose frames and queries live on the driver, not in Spark: `pd.read_csv(...)`,
// `pd.get_dummies(...)`, Fabric's `fabric.read_table(...)`, `pl.DataFrame(...)`, sqlglot's
// `exp.select(...).join(...)` (a SQL builder).
bool pandas_module(std::string_view qualified) {
  for (std::string_view m :
       {"pandas.", "sempy.", "numpy.", "polars.", "geopandas.", "dask.", "modin.", "duckdb.", "pyarrow.", "sqlglot."})
    if (qualified.substr(0, m.size()) == m) return true;
  return false;
}

}  // namespace

std::uint16_t link_kinds(std::string_view name) {
  const std::size_t i = kLinkKinds.names.index(name);
  return i < kLinkKinds.kinds.size() ? kLinkKinds.kinds[i] : 0;
}

// A value used with a method only a Spark DataFrame has is one, whatever made it: `df =
// reader.query_table(q)` then `df.withColumnRenamed(...)` (a data-access library's reader, a helper
// of another module). Looked at for the chains built since the last call; true when one was marked.
bool Analyzer::type_values_by_use() {
  static const util::NameSet kShared{"agg", "fillna", "dropna"};  // pandas has them too
  bool marked = false;
  for (; typed_upto_ < m_.chains.size(); ++typed_upto_) {
    const Chain& c = m_.chains[typed_upto_];
    const Chain* b = c.bound;
    if (b == nullptr || c.links.empty() || !c.links.front().is_call) continue;
    const Link& first = c.links.front();
    if ((first.kinds & kDataFrameOnlyKind) == 0 || kShared.contains(first.name)) continue;
    // `helper.write(df)`: a method of another class (a DataFrame's writer is an attribute).
    if (first.name == "write" || first.name == "writeStream" || first.name == "na") continue;
    if (b->is_dataframe || b->ends_local || b->is_rdd || b->is_session || b->is_reader || b->column_of ||
        b->window_spec || b->used_as_dataframe)
      continue;
    const_cast<Chain*>(b)->used_as_dataframe = marked = true;
  }
  return marked;
}

void Analyzer::resolve_functions() {
  if (type_values_by_use() && m_.functions.empty())
    for (Chain& c : m_.chains) classify(c);
  // Without a def, nothing here can change what build_chain already decided.
  if (m_.functions.empty()) return;
  // A parameter the def uses as a pandas DataFrame (`df.copy()`, `df.dropna(inplace=True)`) is one,
  // whatever methods it shares with a Spark DataFrame (dropna, fillna, agg).
  for (const Chain& c : m_.chains) {
    if (c.function.empty() || std::none_of(c.links.begin(), c.links.end(), pandas_link)) continue;
    const Chain* o = c.origin();  // through the def's own rebinding: df = df.dropna(); df.drop(columns=...)
    if (o->root_is_call || o->function != c.function) continue;
    bool pandas = false;
    for (const Step& step : c.pipeline()) {
      if ((step.link->kinds & kDriverResultKind) != 0) break;  // df.toPandas().copy(): a Spark DataFrame given
      if (pandas_link(*step.link)) pandas = true;
    }
    FunctionInfo* f = m_.function(c.function);
    if (!pandas || f == nullptr || std::find(f->params.begin(), f->params.end(), o->root) == f->params.end()) continue;
    f->pandas_params.emplace(o->root);
    f->dataframe_params.erase(std::string(std::string_view(o->root)));
  }
  // A parameter the def uses with a method only a Spark DataFrame has (`df.withColumn`, `df.write`).
  static const util::NameSet kShared{"agg", "fillna", "dropna"};  // pandas has them too
  for (const Chain& c : m_.chains) {
    if (c.function.empty()) continue;
    const Chain* o = c.origin();
    if (o->root_is_call || o->function != c.function) continue;
    FunctionInfo* f = m_.function(c.function);
    if (f == nullptr || f->imported || f->pandas_params.count(o->root) != 0 ||
        std::find(f->params.begin(), f->params.end(), o->root) == f->params.end())
      continue;
    for (const Step& step : c.pipeline()) {
      // Past a driver result the value is pandas or a list; past a reader (`p.createDataFrame(...)`,
      // `p.read`, `p.table(...)`) the parameter was the session that made the DataFrame.
      if ((step.link->kinds & (kDriverResultKind | kReaderKind)) != 0) break;
      if ((step.link->kinds & kDataFrameOnlyKind) != 0 && !kShared.contains(step.link->name)) {
        f->spark_params.emplace(o->root);
        break;
      }
    }
  }
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
        const Chain* arg = a.value.chain();
        if (param.empty() || arg == nullptr) continue;
        // A DataFrame passed: the parameter holds one.
        if (arg->is_dataframe && f.dataframe_params.count(param) == 0 && f.pandas_params.count(param) == 0)
          changed = f.dataframe_params.insert(param).second || changed;
        // ... and the other way: what is passed where the def uses a DataFrame is one.
        if (f.spark_params.count(param) == 0 || arg->is_dataframe || arg->ends_local || arg->is_rdd || arg->is_session)
          continue;
        // The value the name holds (`save(joined)`: the chain bound to `joined`), not what it was made
        // from: `data.view(...)` of a library's context is a DataFrame, the context is not.
        auto* first = const_cast<Chain*>(arg->links.empty() && arg->bound != nullptr ? arg->bound : arg);
        if (first->used_as_dataframe || first->ends_local || first->is_rdd || first->is_session || first->is_reader ||
            first->column_of || first->window_spec)
          continue;
        first->used_as_dataframe = changed = true;
      }
    }
    // An untyped parameter used as a DataFrame anywhere in its def (df.withColumn, df.groupBy) is one.
    for (const Chain& c : m_.chains) {
      if (c.root_is_call || c.function.empty() || c.bound != nullptr || !c.is_dataframe) continue;
      FunctionInfo* f = m_.function(c.function);
      if (f == nullptr) continue;
      const auto& params = f->params;
      if (std::find(params.begin(), params.end(), c.root) == params.end() || f->pandas_params.count(c.root) != 0)
        continue;
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

// A def whose every returned chain starts at one of its parameters (`def clean(df): ... return df`)
// returns what it was given: called with pandas values for those parameters, it returns pandas.
bool Analyzer::returns_local_argument(const Chain& call, const FunctionInfo& f) const {
  if (f.returns.empty()) return false;
  for (const Chain* r : f.returns) {
    if (r->ends_local) continue;  // return pd.get_dummies(df): pandas whatever it was given
    const Chain* o = r->origin();
    if (o->root_is_call) return false;
    const auto p = std::find(f.params.begin(), f.params.end(), std::string_view(o->root));
    if (p == f.params.end()) return false;
    const auto index = static_cast<std::size_t>(p - f.params.begin());
    const Arg* given = nullptr;
    std::size_t positional = 0;
    for (const Arg& a : call.root_args) {
      if (a.keyword.empty() ? positional++ == index : std::string_view(a.keyword) == *p) given = &a;
    }
    const Chain* g = given == nullptr ? nullptr : given->value.chain();
    if (g == nullptr || !g->ends_local) return false;
  }
  return true;
}

bool Analyzer::select_means_dataframe(const Chain& c) const {
  static const util::NameSet kOtherSelects{"polars", "sqlalchemy", "sqlmodel", "ibis",      "duckdb", "bs4",
                                           "peewee", "lxml",       "pypika",   "snowflake", "daft"};
  const Chain* o = c.origin();
  const std::string_view root = m_.qualify(o->root, qualify_buffer_);
  const std::string_view top = root.substr(0, root.find('.'));
  if (kOtherSelects.count(top) != 0) return false;
  return std::any_of(m_.imports.begin(), m_.imports.end(),
                     [](const auto& kv) { return kv.second.rfind("pyspark", 0) == 0; });
}

bool Analyzer::foundry_transforms() const {
  for (const auto& [local, qualified] : m_.imports)
    if (qualified.rfind("transforms.api", 0) == 0) return true;
  return m_.star_imports.count("transforms.api") != 0;
}

void Analyzer::classify(Chain& c) {
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
  // `", ".join(names)`, `"{} rows".format(n)`: methods of a string written out.
  if (!c.root_is_call && !c.root.empty()) {
    const std::string_view r = c.root.view();
    const std::size_t quote = r.find_first_of("'\"");
    if (quote != std::string_view::npos && quote <= 2 && r.find_first_not_of("rRbBfFuU") >= quote) local = true;
  }
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
  if (c.used_as_dataframe && kind == Kind::unknown && !local) kind = Kind::dataframe;
  if (c.root_is_call && pandas_module(m_.qualify(c.root, qualify_buffer_))) local = true;
  // Python's own collections and values (`set()`, `dict(...)`, `sorted(x)`): on the driver, whatever
  // methods they share with a DataFrame (`s.union(t)`), unless the file defines a function of that name.
  // (Not `filter`, `sum`, `max`...: PySpark's functions of those names come with a star import.)
  static const util::NameSet kBuiltins{"set",   "frozenset", "list",      "dict", "tuple",     "str",
                                       "float", "sorted",    "enumerate", "zip",  "bytearray", "range"};
  if (c.root_is_call && kBuiltins.contains(c.root) && m_.function(c.root) == nullptr && !m_.has_import(c.root))
    local = true;
  // `pd.DataFrame(...)`, `pl.read_csv(...)`: a module's function reached as a method of its name.
  if (!c.root_is_call && b == nullptr && !c.links.empty() && c.links.front().is_call && m_.has_import(c.root) &&
      pandas_module(std::string(m_.qualify(c.root, qualify_buffer_)) + "."))
    local = true;
  if (c.root_is_call) {
    if (const FunctionInfo* f = m_.function(c.root); f != nullptr && f->returns_dataframe) {
      if (returns_local_argument(c, *f))
        local = true;  // clean(pdf.copy()) of a def that returns what it was given, given a pandas value
      else
        kind = Kind::dataframe;
    }
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
    if (kind == Kind::unknown && pandas_link(c.links[i])) {
      local = true;  // pdf.copy(), pdf.dropna(inplace=True): a pandas DataFrame on the driver
      c.links[i].on = Link::On::local;
      continue;
    }
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
        // `self.spark.read...`, `ctx.data.spark.table(...)`: a session held as an attribute, read from.
        if (!c.links[i].is_call &&
            (c.links[i].name == "spark" || c.links[i].name == "spark_session" || c.links[i].name == "sparkSession") &&
            i + 1 < c.links.size() &&
            (c.links[i + 1].name == "read" || c.links[i + 1].name == "readStream" ||
             (c.links[i + 1].is_call && (c.links[i + 1].name == "table" || c.links[i + 1].name == "sql" ||
                                         c.links[i + 1].name == "createDataFrame")))) {
          kind = Kind::session;
          break;
        }
        if ((name & kRddName) != 0 && !c.links[i].is_call) {
          kind = Kind::rdd;
          of_dataframe = true;
        } else if ((name & kRddOnlyKind) != 0) {
          kind = Kind::rdd;
        } else if ((name & kDataFrameOnlyKind) != 0 ||
                   ((name & kSelectName) != 0 && c.links[i].is_call && select_means_dataframe(c)) ||
                   // a Foundry TransformInput's rows: `source.dataframe()`
                   (c.links[i].is_call && c.links[i].name == "dataframe" && c.links[i].args.empty() &&
                    foundry_transforms())) {
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
  // `pyspark.sql.Window.orderBy(...)`: Window reached through a module's attributes.
  for (std::size_t i = 0; !window && i < c.links.size() && !c.links[i].is_call; ++i)
    window = c.links[i].name == "Window" && !c.root_is_call;
  if (window) {
    c.window_spec = true;
    c.is_dataframe = false;
    for (auto& l : c.links) l.on = Link::On::unknown;
  }
}

void Analyzer::note_function(Node def) {
  // A def of a name defined before replaces it (notebooks redefine helpers cell by cell): what the
  // model knows of a name is its last def, parameters and returns alike.
  FunctionInfo& f = m_.add_function(view(field<"name">(def)));
  f.params.clear();
  f.returns.clear();
  f.dataframe_params.clear();
  f.pandas_params.clear();
  f.returns_dataframe = false;
  f.empty_default_params.clear();
  f.int_defaults.clear();
  f.framework_entry = entry_decorated_;
  entry_decorated_ = false;
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
    } else if (is<"list_splat_pattern">(p)) {
      if (named_count(p) > 0) f.empty_default_params.insert(text(nth_named(p, 0)));
      continue;  // `*args`: not a positional parameter a caller's n-th argument fills
    } else if (is<"default_parameter">(p) || is<"typed_default_parameter">(p)) {
      name = text(field<"name">(p));
      type = field<"type">(p);
      const std::string_view v = view(field<"value">(p));
      if (v == "()" || v == "[]" || v == "None" || v == "tuple()" || v == "list()") f.empty_default_params.insert(name);
      if (is<"integer">(field<"value">(p)) && !v.empty() && v.size() < 12 &&
          std::all_of(v.begin(), v.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        f.int_defaults[name] = std::stoll(std::string(v));
      if (const int turns = spelled_out_turns(field<"value">(p)); turns >= 0)
        default_turns_[std::string(view(field<"name">(def)))][name] = turns;
    }
    if (name.empty()) continue;
    f.params.push_back(name);
    if (!is_null(type) && is_dataframe_type(type)) {
      // `pdf: pd.DataFrame` is pandas' (a name a module of pandas gives), not Spark's.
      if (text(type).find("pandas") == std::string::npos && m_.qualify(text(type)).find("pandas") == std::string::npos)
        f.dataframe_params.insert(name);
      else
        f.pandas_params.insert(name);
    }
  }
  // dbt calls a Python model's `model(dbt, session)` once and writes what it returns.
  if (functions_.empty() && view(field<"name">(def)) == "model" && f.params.size() == 2 && f.params[0] == "dbt")
    f.framework_entry = true;
  // A method's first parameter is the object itself, never a DataFrame passed in.
  Node ret = field<"return_type">(def);
  if (!is_null(ret) && is_dataframe_type(ret) && m_.qualify(text(ret)).find("pandas") == std::string::npos)
    f.returns_dataframe = true;
}

}  // namespace planlint::pyspark::detail
