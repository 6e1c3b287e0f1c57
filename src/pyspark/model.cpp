// The SourceModel's out-of-line members: chains' pipelines and origins, imports and qualified names,
// defs, line and column places, and the arena that keeps its lists.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pyspark/model.hpp"
#include "pyspark/notebook.hpp"
#include "util/name_set.hpp"

namespace planlint::pyspark {

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

bool Link::spark_signature() const {
  if (!is_call) return true;
  // DataFrame.join(other, on, how): polars' `left_on` / `right_on` / `suffix`, pandas' and koalas'
  // `lsuffix` / `rsuffix` are another library's join.
  if (name == "join")
    return std::all_of(args.begin(), args.end(), [](const Arg& a) {
      return a.keyword.empty() || a.keyword == "other" || a.keyword == "on" || a.keyword == "how";
    });
  if (name != "withColumn") return true;
  if (args.size() != 2) return false;
  for (const auto& a : args)
    if (!a.keyword.empty() && a.keyword != "colName" && a.keyword != "col") return false;
  const Arg* col = arg(1, "col");
  return col == nullptr || (col->value.kind() != "string" && col->value.kind() != "concatenated_string" &&
                            col->value.kind() != "integer" && col->value.kind() != "float");
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

bool plans_shuffle(std::string_view method) {
  static const util::NameSet kShuffles{
      "groupBy",         "groupby",   "agg",          "join",        "crossJoin",          "distinct", "dropDuplicates",
      "drop_duplicates", "orderBy",   "sort",         "repartition", "repartitionByRange", "rollup",   "cube",
      "pivot",           "intersect", "intersectAll", "subtract",    "exceptAll",          "over"};
  return kShuffles.contains(method);
}

bool materialising_name(std::string_view name) {
  if (auto dot = name.rfind('.'); dot != std::string_view::npos) name.remove_prefix(dot + 1);
  static const util::NameSet kNot{"un", "clear", "is", "drop", "remove", "invalidate", "uncache", "unpersist", "get"};
  static const util::NameSet kKeeps{"checkpoint",   "checkpointed", "cache",       "cached",
                                    "persist",      "persisted",    "materialize", "materialise",
                                    "materialized", "materialised", "save",        "saved"};
  // Its words (snake_case or camelCase), lower case, one at a time in a small buffer: asked of most
  // method names of a file, it allocates nothing.
  char word[24];
  std::size_t size = 0;
  bool first = true, keeps = false, too_long = false;
  auto flush = [&]() {
    if (size == 0 && !too_long) return true;
    const std::string_view w(word, size);
    const bool stop = first && !too_long && kNot.contains(w);
    keeps = keeps || (!too_long && kKeeps.contains(w));
    first = false;
    size = 0;
    too_long = false;
    return !stop;
  };
  for (std::size_t i = 0; i <= name.size(); ++i) {
    const char ch = i < name.size() ? name[i] : '_';
    const bool upper = std::isupper(static_cast<unsigned char>(ch)) != 0;
    if (ch == '_' || upper || std::isdigit(static_cast<unsigned char>(ch)) != 0) {
      if (!flush()) return false;
      if (ch == '_' || !upper) continue;
    }
    if (size < sizeof(word))
      word[size++] = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else
      too_long = true;
  }
  return keeps;
}

bool caches_link(const Link& l) {
  static const util::NameSet kCaches{"cache", "persist", "checkpoint", "localCheckpoint"};
  // Spark's own methods whose names have those words and do something else (a write ends in `save`).
  static const util::NameSet kSparkOthers{"save",
                                          "saveAsTable",
                                          "cacheTable",
                                          "saveAsTextFile",
                                          "saveAsPickleFile",
                                          "saveAsHadoopFile",
                                          "saveAsNewAPIHadoopFile",
                                          "saveAsSequenceFile"};
  return l.is_call && (kCaches.contains(l.name) || (!kSparkOthers.contains(l.name) && materialising_name(l.name)));
}

bool every_call_passes(const SourceModel& m, std::string_view name, std::string_view param) {
  const FunctionInfo* f = m.function(name);
  auto calls = m.calls_of.find(name);
  if (f == nullptr || calls == m.calls_of.end() || calls->second.empty()) return false;
  const auto at = std::find(f->params.begin(), f->params.end(), param);
  const std::size_t index =
      at == f->params.end() ? f->params.size() + 1 : static_cast<std::size_t>(at - f->params.begin());
  for (const Chain* call : calls->second) {
    std::size_t positional = 0;
    bool passed = false;
    for (const auto& a : call->root_args) {
      if (a.keyword.empty())
        passed = passed || positional++ == index || a.value.text().starts_with("*");
      else
        passed = passed || a.keyword == param;
    }
    if (!passed) return false;
  }
  return true;
}

bool caches_rows(const Chain& c) { return std::any_of(c.links.begin(), c.links.end(), caches_link); }

bool writes_table(std::string_view sql) {
  // The literal as written: a string prefix (`f`, `rb`...) and its quotes come first.
  std::size_t i = 0;
  while (i < sql.size() && i < 2 && std::isalpha(static_cast<unsigned char>(sql[i])) != 0) ++i;
  if (i == sql.size() || (sql[i] != '"' && sql[i] != '\'')) i = 0;  // not a prefix
  i = sql.find_first_not_of(" \t\r\n(\"'", i);
  if (i == std::string_view::npos) return false;
  std::size_t j = i;
  while (j < sql.size() && std::isalpha(static_cast<unsigned char>(sql[j])) != 0) ++j;
  std::string word(sql.substr(i, j - i));
  for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (word == "insert" || word == "merge") return true;
  if (word != "create" && word != "replace") return false;
  std::string low(sql.substr(j, 4096));
  for (char& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return low.find(" select ") != std::string::npos || low.find("\nselect ") != std::string::npos ||
         low.find("as select") != std::string::npos || low.find("(select") != std::string::npos;
}

const Link* action_link(const Chain& c) {
  static const util::NameSet kActions{
      "count", "collect", "toPandas", "toLocalIterator", "foreach", "foreachPartition", "show",
      "first", "take",    "head"};
  static const util::NameSet kGroupings{"groupBy", "groupby", "rollup", "cube", "pivot"};
  static const util::NameSet kWriteEnds{"save",    "saveAsTable", "insertInto",
                                        "parquet", "csv",         "json",
                                        "orc",     "text",        "jdbc",
                                        "append",  "create",      "createOrReplace",
                                        "replace", "overwrite",   "overwritePartitions"};
  for (std::size_t i = 0; i < c.links.size(); ++i) {
    const Link& l = c.links[i];
    // `spark.sql("INSERT INTO t SELECT ... FROM v")`, `MERGE INTO t USING v ...`, `CREATE TABLE t AS
    // SELECT ...`: a statement that writes runs when it is called, reading what its query reads.
    if (i == 0 && l.is_call && l.name == "sql" && !l.args.empty() && writes_table(l.args[0].value.text())) return &l;
    // Palantir Foundry: `output.write_dataframe(df)` writes df (a TransformOutput, not a DataFrame).
    if (l.is_call && l.name == "write_dataframe" && !l.args.empty() && l.args[0].value.chain() != nullptr &&
        l.args[0].value.chain()->is_dataframe)
      return &l;
    if (l.on == Link::On::local) break;
    if ((l.name == "write" && !l.is_call) || (l.name == "writeTo" && l.is_call)) {
      for (std::size_t k = i + 1; k < c.links.size(); ++k)
        if (c.links[k].is_call && kWriteEnds.contains(c.links[k].name)) return &l;
      return nullptr;
    }
    if (!l.is_call) continue;
    if (i > 0 && kGroupings.contains(c.links[i - 1].name)) continue;  // groupBy(...).count(): an aggregation
    if (kActions.contains(l.name)) return &l;
  }
  // `writer = df.write.format("delta")`, then `writer.mode(m).save(path)`: a writer held in a name,
  // set up over several statements, writes when one of them ends in a save.
  if (c.root_is_call || c.links.empty() || !c.links.back().is_call || !kWriteEnds.contains(c.links.back().name))
    return nullptr;
  int guard = 0;
  for (const Chain* b = c.bound; b != nullptr && guard < 16; b = b->bound, ++guard) {
    for (const Link& l : b->links) {
      if (l.on == Link::On::local) return nullptr;
      if ((l.name == "write" && !l.is_call) || (l.name == "writeTo" && l.is_call)) return &l;
    }
    if (b->root_is_call) break;
  }
  return nullptr;
}

bool sets_arrow(const SourceModel& m) {
  // A module that imports the project's session builder hands its Arrow setting on to its own users.
  if (m.imports_arrow) return true;
  return std::any_of(m.settings.begin(), m.settings.end(), [](const ConfSetting& s) {
    if (s.key != "spark.sql.execution.arrow.pyspark.enabled" && s.key != "spark.sql.execution.arrow.enabled")
      return false;
    std::string v(s.value);
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return !s.literal || v == "true" || v == "\"true\"" || v == "'true'";
  });
}

bool runs_on_databricks(const SourceModel& m) {
  if (m.imports_databricks) return true;
  const SourceFile& f = *m.file;
  if (f.kind == SourceKind::databricks) return true;
  if (f.kind == SourceKind::jupyter && (f.raw.find("\"notebookId\"") != std::string::npos ||
                                        f.raw.find("application/vnd.databricks") != std::string::npos))
    return true;
  // The runtime's objects (dbutils, `from databricks.sdk.runtime import spark`), DBFS paths, Unity
  // Catalog volumes (`/Volumes/catalog/schema/volume/...`) and workspace files (`/Workspace/...`) exist
  // on a Databricks cluster only; Databricks' own packages (`from databricks.labs...`, the SDK, feature
  // engineering, Delta Live Tables' `dlt`; not koalas, which runs anywhere) and Databricks Connect's
  // session (Spark Connect, whose toPandas always uses Arrow) say where the code runs.
  static constexpr std::string_view kMarks[] = {"dbutils.",
                                                "databricks.sdk.runtime",
                                                "pyspark.dbutils",
                                                "/dbfs/",
                                                "dbfs:/",
                                                "from databricks.sdk",
                                                "from databricks.labs",
                                                "from databricks.connect",
                                                "from databricks.feature",
                                                "import databricks.sdk",
                                                "DatabricksSession",
                                                "import dlt"};
  // A path of a Unity Catalog volume or of workspace files, as a string starts it ("/Volumes/...").
  auto quoted_root = [](std::string_view t, std::string_view folder) {
    for (std::size_t at = t.find(folder); at != std::string_view::npos; at = t.find(folder, at + 1))
      if (at >= 2 && t[at - 1] == '/' && (t[at - 2] == '"' || t[at - 2] == '\'')) return true;
    return false;
  };
  return std::any_of(f.cells.begin(), f.cells.end(), [&](const Cell& c) {
    return std::any_of(std::begin(kMarks), std::end(kMarks),
                       [&](std::string_view w) { return c.text.find(w) != std::string::npos; }) ||
           quoted_root(c.text, "Volumes/") || quoted_root(c.text, "Workspace/");
  });
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

}  // namespace planlint::pyspark
