// Project-wide facts: what a file imports from the project's own modules (`from utils.udfs import
// score`, `import jobs.common as c`, relative imports) and what a notebook includes with `%run ./x`.
// A module is found on disk the way Python finds it from the importing file (its folder, then each
// parent up to the project root), analysed once per run, and reduced to what other files need:
// its UDFs, its functions that return a DataFrame and its names bound to a literal collection.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace planlint::pyspark {

struct SourceModel;
struct ParsedSource;

// What a function of a module does, for the callers in other files: the actions it runs on its
// parameters (`def report(df): print(df.count())`) and what the DataFrame it returns does.
struct ExportedFunction {
  std::vector<std::string> params;
  std::vector<std::pair<std::string, std::string>> param_actions;  // (parameter, "count" / "write" / ...)
  std::vector<std::string> cached_params;  // parameters it caches (what it makes of them): read once
  bool returns_shuffle = false;            // a returned DataFrame plans a shuffle (groupBy, join, orderBy...)
  bool returns_cache = false;              // ... and is cached there
  bool returns_few = false;                // every return is few rows by construction (built on the driver)
  // Parameters its body uses as Spark DataFrames (`df.write...`, `df.withColumn(...)`): what a caller
  // passes there is one, whatever made it (a data-access library's view, a helper of unknown return).
  std::vector<std::string> spark_params;
};

// What a module (or a notebook run with %run) gives the files that use it.
struct ModuleExports {
  std::set<std::string, std::less<>> row_udfs;                     // names bound to row-at-a-time UDFs
  std::set<std::string, std::less<>> pandas_udfs;                  // names bound to pandas UDFs
  std::set<std::string, std::less<>> nondeterministic_udfs;        // ... of them, marked asNondeterministic()
  std::set<std::string, std::less<>> dataframe_functions;          // defs that return a DataFrame
  std::map<std::string, int, std::less<>> literal_sizes;           // names bound once to a literal collection
  std::map<std::string, ExportedFunction, std::less<>> functions;  // defs with parameter actions or returns
  std::set<std::string, std::less<>> code_paths;                   // names bound to a path of the code's folder
  bool databricks = false;  // runs on Databricks only (runs_on_databricks), so do the files that use it
  bool arrow = false;       // turns Arrow on (a session builder's config), for the sessions of its users
  [[nodiscard]] bool empty() const {
    return row_udfs.empty() && pandas_udfs.empty() && dataframe_functions.empty() && literal_sizes.empty() &&
           functions.empty() && code_paths.empty() && !databricks && !arrow;
  }
};

ModuleExports exports_of(const SourceModel& model);

// One import or %run a file makes, as its text shows it (what the result cache keys on).
struct ImportRef {
  enum class Kind : std::uint8_t { module, run } kind = Kind::module;
  std::string target;  // "utils.udfs", "..common", or the %run argument "./config"
};
// The imports and %run lines of a file's text (.py, Databricks or Jupyter notebook), read line by
// line without parsing: `from X import`, `import X[, Y]`, `%run path` (also inside JSON strings and
// `# MAGIC` lines).
std::vector<ImportRef> scan_imports(std::string_view text);

// The file `dotted` names when imported from a file in `importer_dir`, or nothing: `a.b` is
// `a/b.py` or `a/b/__init__.py` in that folder or one of its parents (up to the first folder that
// holds `.git`, `pyproject.toml`, `setup.py` or `setup.cfg`, and at most kMaxLevels up), or in a
// `src/` folder of one of them; `.x` / `..x` are relative to the importer's package.
std::optional<std::filesystem::path> resolve_module(const std::filesystem::path& importer_dir, std::string_view dotted);
// The notebook a `%run ./x` names: x, x.py or x.ipynb relative to the importer's folder.
std::optional<std::filesystem::path> resolve_run(const std::filesystem::path& importer_dir, std::string_view arg);

// The modules of the projects being linted, analysed on first use (thread-safe; a file changed on
// disk since is analysed again). One per process: `project_index()`.
class ProjectIndex {
 public:
  // The exports of the module a file at `importer` (a path as given) imports as `dotted`, or nullptr
  // when it is not a file of the project (the standard library, an installed package) or gives
  // nothing. Valid for the rest of the run.
  const ModuleExports* module(std::string_view importer, std::string_view dotted);
  const ModuleExports* run_target(std::string_view importer, std::string_view arg);
  // What a file's findings depend on beyond its own text: the path, size and change time of every
  // project file it imports or runs (for the result cache's key).
  std::string dependency_key(std::string_view importer, std::string_view text);
  // What a file linted anyway exports, kept so that a file importing it later does not analyse it
  // again. Only when `text_size` is the file's size on disk (the text linted is the file's).
  void remember(std::string_view path, std::size_t text_size, const SourceModel& model);
  // The analysis of the file at `path` that an importer's lint made of `text` (at the default chunk
  // size, with every import it makes followed as a lint of the file would), handed over once: a file
  // that is imported before its own turn is then parsed and analysed once, not twice. Or nullptr.
  std::shared_ptr<ParsedSource> take_parsed(std::string_view path, std::string_view text);

 private:
  struct Entry {
    std::uintmax_t size = 0;
    std::int64_t mtime = 0;
    std::shared_ptr<const ModuleExports> exports;
  };
  const ModuleExports* load(const std::filesystem::path& file);
  // module() and run_target(): the exports of what `name` resolves to from `importer`.
  const ModuleExports* exports_for(std::string_view importer, std::string_view name, bool run);
  // resolve_module / resolve_run, remembered by (importer's folder, name): the files of a folder
  // import the same modules (pyspark.sql.functions from each), and each miss costs a dozen stat calls.
  std::optional<std::filesystem::path> resolve(const std::filesystem::path& dir, std::string_view name, bool run);
  std::map<std::string, std::optional<std::filesystem::path>, std::less<>> resolved_;
  std::mutex mu_;
  std::map<std::string, Entry, std::less<>> files_;
  std::vector<std::shared_ptr<const ModuleExports>> kept_;  // every exports ever handed out (stay valid)
  // Analyses load() made, by file, until the file's own lint takes them; at most kKeptParseBytes of
  // source text in all (a module imported but never linted stays until the run ends).
  std::map<std::string, std::shared_ptr<ParsedSource>, std::less<>> parsed_;
  std::size_t parsed_bytes_ = 0;
};

ProjectIndex& project_index();

}  // namespace planlint::pyspark
