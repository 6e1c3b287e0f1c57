#include "pyspark/project.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>

#include "pyspark/model.hpp"
#include "pyspark/notebook.hpp"

namespace planlint::pyspark {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxLevels = 6;  // parents searched above the importer's folder
constexpr std::uintmax_t kMaxModuleBytes = std::uintmax_t{8} * 1024 * 1024;  // a module larger than this gives nothing
constexpr int kMaxDepth = 2;  // a module's own imports are followed this deep (re-exports), no deeper

thread_local int depth = 0;  // modules being analysed on this thread (for kMaxDepth)
// Whether an import was left unfollowed at kMaxDepth during the analysis under way: that analysis
// differs from the one the file's own lint (a level higher) would make, and is not kept for it.
thread_local bool depth_cut = false;
constexpr std::size_t kKeptParseBytes = std::size_t{32} * 1024 * 1024;  // source text of kept analyses

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

std::string_view skip_space(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool take(std::string_view& s, std::string_view word) {
  if (s.substr(0, word.size()) != word) return false;
  s.remove_prefix(word.size());
  return true;
}

std::string_view dotted_prefix(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && is_name_char(s[n])) ++n;
  return s.substr(0, n);
}

bool is_regular(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool is_project_root(const fs::path& dir) {
  std::error_code ec;
  for (const char* marker : {".git", "pyproject.toml", "setup.py", "setup.cfg"})
    if (fs::exists(dir / marker, ec)) return true;
  return false;
}

std::optional<fs::path> module_file(const fs::path& base, std::string_view dotted) {
  fs::path p = base;
  std::size_t at = 0;
  while (at <= dotted.size()) {
    std::size_t dot = dotted.find('.', at);
    if (dot == std::string_view::npos) dot = dotted.size();
    if (dot == at) return std::nullopt;  // "a..b"
    p /= std::string(dotted.substr(at, dot - at));
    at = dot + 1;
  }
  fs::path file = p;
  file += ".py";
  if (is_regular(file)) return file;
  if (is_regular(p / "__init__.py")) return p / "__init__.py";
  return std::nullopt;
}

// An action with the if-statement branches around it (Chain::branches).
struct Branched {
  std::vector<std::pair<int, int>> path;
  std::string name;
};

// The actions of one pass through `items`: those outside any further branch, and of the branches of
// each if, the one with the most (each counted the same way one level down).
std::vector<std::string> one_path(std::vector<Branched>& items, std::size_t level) {
  std::vector<std::string> out;
  std::map<int, std::map<int, std::vector<Branched>>> by_if;  // if id -> branch -> its actions
  for (auto& item : items) {
    if (item.path.size() <= level)
      out.push_back(std::move(item.name));
    else
      by_if[item.path[level].first][item.path[level].second].push_back(std::move(item));
  }
  for (auto& [id, branches] : by_if) {
    std::vector<std::string> most;
    for (auto& [b, list] : branches) {
      std::vector<std::string> one = one_path(list, level + 1);
      if (one.size() > most.size()) most = std::move(one);
    }
    for (std::string& name : most) out.push_back(std::move(name));
  }
  return out;
}

}  // namespace

ModuleExports exports_of(const SourceModel& model) {
  ModuleExports e;
  e.row_udfs = model.udf_names;
  e.pandas_udfs = model.pandas_udf_names;
  e.nondeterministic_udfs = model.nondeterministic_udfs;
  for (const auto& [name, f] : model.functions) {
    if (f.imported) continue;  // what this module imports itself: its own module exports it
    if (f.returns_dataframe) e.dataframe_functions.insert(name);
    ExportedFunction out;
    out.returns_cache = !f.returns.empty();  // every return caches (a default path that does not, does not)
    for (const Chain* r : f.returns) {
      out.returns_cache = out.returns_cache && caches_rows(*r);
      for (const Step& s : r->pipeline()) out.returns_shuffle = out.returns_shuffle || plans_shuffle(s.link->name);
    }
    out.returns_few = !f.returns.empty();
    for (const Chain* r : f.returns) {
      const auto p = r->pipeline();
      out.returns_few = out.returns_few && small_by_construction(rows_before(model, p, p.size()).rows);
    }
    if (f.returns_dataframe && (out.returns_shuffle || out.returns_cache || out.returns_few)) {
      out.params = f.params;
      e.functions.emplace(name, std::move(out));
    }
  }
  // The actions each function runs on a parameter (also through names derived from it), where the
  // job has not failed already (not on an error path); of those in different branches of one if,
  // one branch's (the one with the most).
  std::map<std::pair<std::string, std::string>, std::vector<Branched>> found;  // (function, param)
  std::map<std::string, std::set<std::string>> cached;                         // function -> params it caches
  for (const Chain& c : model.chains) {
    if (c.function.empty() || c.on_error_path) continue;
    const Chain* origin = c.origin();
    if (origin->root_is_call || origin->function.view() != c.function.view()) continue;
    const FunctionInfo* f = model.function(c.function);
    if (f == nullptr || f->imported ||
        std::find(f->params.begin(), f->params.end(), origin->root.view()) == f->params.end())
      continue;
    const std::string param(origin->root.view());
    // The function caches what it makes of the parameter: its own actions and its caller's uses
    // read the cache, filled once.
    if (caches_rows(c)) {
      cached[std::string(c.function.view())].insert(param);
      continue;
    }
    // Only what it always runs: an action in a branch depends on what the caller asks for
    // (`if show: df.show()`, `if env == "dev"`).
    if (!c.branches.empty()) continue;
    const Link* a = action_link(c);
    if (a == nullptr) continue;
    const bool write = a->name == "write" || a->name == "writeTo" || a->name == "write_dataframe";
    found[{std::string(c.function.view()), std::string(origin->root.view())}].push_back(
        {{c.branches.begin(), c.branches.end()}, write ? std::string("write") : std::string(a->name.view())});
  }
  for (auto& [key, actions] : found) {
    if (auto it = cached.find(key.first); it != cached.end() && it->second.count(key.second) != 0) continue;
    ExportedFunction& out = e.functions[key.first];
    out.params = model.function(key.first)->params;
    for (std::string& name : one_path(actions, 0)) out.param_actions.emplace_back(key.second, std::move(name));
  }
  for (auto& [function, params] : cached) {
    ExportedFunction& out = e.functions[function];
    out.params = model.function(function)->params;
    out.cached_params.assign(params.begin(), params.end());
  }
  for (const auto& [name, f] : model.functions) {
    if (f.imported || f.spark_params.empty() || name.find('.') != std::string::npos) continue;
    ExportedFunction& out = e.functions[name];
    out.params = f.params;
    out.spark_params.assign(f.spark_params.begin(), f.spark_params.end());
  }
  for (const auto& [name, size] : model.literal_sizes)
    if (model.literal_collections.count(name) != 0) e.literal_sizes.emplace(name, size);
  e.code_paths = model.code_paths;
  e.databricks = runs_on_databricks(model);
  e.arrow = sets_arrow(model);
  return e;
}

std::vector<ImportRef> scan_imports(std::string_view text) {
  std::vector<ImportRef> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = skip_space(text.substr(at, nl - at));
    at = nl + 1;
    if (take(line, "\"")) line = skip_space(line);  // a line of a Jupyter cell's JSON source
    if (take(line, "# MAGIC")) line = skip_space(line);
    if (take(line, "from ")) {
      line = skip_space(line);
      std::string_view module = dotted_prefix(line);
      if (!module.empty() && skip_space(line.substr(module.size())).substr(0, 7) == "import ")
        out.push_back({ImportRef::Kind::module, std::string(module)});
    } else if (take(line, "import ")) {
      // import a.b, c as d
      for (;;) {
        line = skip_space(line);
        std::string_view module = dotted_prefix(line);
        if (module.empty() || module.front() == '.') break;
        out.push_back({ImportRef::Kind::module, std::string(module)});
        line = skip_space(line.substr(module.size()));
        if (take(line, "as ")) {
          line = skip_space(line);
          line = skip_space(line.substr(dotted_prefix(line).size()));
        }
        if (!take(line, ",")) break;
      }
    } else if (take(line, "%run ")) {
      line = skip_space(line);
      std::string_view arg;
      if (!line.empty() && (line.front() == '\'' || line.front() == '"')) {
        const std::size_t close = line.find(line.front(), 1);  // a quoted path may hold spaces
        if (close != std::string_view::npos) arg = line.substr(1, close - 1);
      } else {
        std::size_t n = 0;
        while (n < line.size() && line[n] != ' ' && line[n] != '\t' && line[n] != '\\' && line[n] != '\r') ++n;
        arg = line.substr(0, n);
      }
      if (!arg.empty() && arg.front() != '$' && arg.front() != '-')
        out.push_back({ImportRef::Kind::run, std::string(arg)});
    }
  }
  return out;
}

std::optional<fs::path> resolve_module(const fs::path& importer_dir, std::string_view dotted) {
  if (dotted.empty()) return std::nullopt;
  if (dotted.front() == '.') {
    // from . import x / from ..pkg import y: one dot is the importer's package.
    fs::path base = importer_dir;
    std::size_t dots = 0;
    while (dots < dotted.size() && dotted[dots] == '.') ++dots;
    for (std::size_t i = 1; i < dots; ++i) base = base.parent_path();
    std::string_view rest = dotted.substr(dots);
    if (rest.empty())
      return is_regular(base / "__init__.py") ? std::optional<fs::path>(base / "__init__.py") : std::nullopt;
    return module_file(base, rest);
  }
  fs::path dir = importer_dir.empty() ? fs::path(".") : importer_dir;
  for (int level = 0; level <= kMaxLevels; ++level) {
    if (auto f = module_file(dir, dotted)) return f;
    if (auto f = module_file(dir / "src", dotted)) return f;
    if (is_project_root(dir)) break;
    fs::path up = dir.parent_path();
    if (up == dir || up.empty()) break;
    dir = up;
  }
  return std::nullopt;
}

std::optional<fs::path> resolve_run(const fs::path& importer_dir, std::string_view arg) {
  if (arg.empty() || arg.front() == '/') return std::nullopt;  // a workspace path: not in the checkout
  fs::path base = (importer_dir.empty() ? fs::path(".") : importer_dir) / std::string(arg);
  for (const char* ext : {"", ".py", ".ipynb"}) {
    fs::path p = base;
    p += ext;
    if (is_regular(p)) return p;
  }
  // `%run helpers` in a Synapse workspace: notebook/helpers.json beside the running one.
  fs::path synapse = base;
  synapse += ".json";
  if (is_synapse_notebook_path(synapse.generic_string()) && is_regular(synapse)) return synapse;
  return std::nullopt;
}

const ModuleExports* ProjectIndex::load(const fs::path& file) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec || size > kMaxModuleBytes) return nullptr;
  const auto mtime = static_cast<std::int64_t>(fs::last_write_time(file, ec).time_since_epoch().count());
  const std::string key = file.lexically_normal().string();
  {
    std::lock_guard lock(mu_);
    if (auto it = files_.find(key); it != files_.end() && it->second.size == size && it->second.mtime == mtime)
      return it->second.exports && !it->second.exports->empty() ? it->second.exports.get() : nullptr;
  }
  if (depth >= kMaxDepth) {
    depth_cut = true;
    return nullptr;
  }
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return nullptr;
  auto exports = std::make_shared<ModuleExports>();
  auto parsed = std::make_shared<ParsedSource>();
  const bool imported_by_lint = depth == 0;  // its own lint would analyse it as this one does
  const bool outer_cut = depth_cut;
  depth_cut = false;
  ++depth;
  try {
    parsed->file = load_source(key, std::move(text));
    parsed->model = analyze_source(parsed->file);
    *exports = exports_of(parsed->model);
  } catch (...) {
    exports = std::make_shared<ModuleExports>();  // what cannot be read gives nothing
    parsed.reset();
  }
  --depth;
  const bool cut = depth_cut;
  depth_cut = outer_cut || cut;
  std::lock_guard lock(mu_);
  Entry& e = files_[key];
  e.size = size;
  e.mtime = mtime;
  e.exports = exports;
  kept_.push_back(exports);
  if (parsed && imported_by_lint && !cut && !parsed_.contains(key) && parsed_bytes_ + size <= kKeptParseBytes) {
    parsed_bytes_ += size;
    parsed_.emplace(key, std::move(parsed));
  }
  return exports->empty() ? nullptr : exports.get();
}

std::optional<fs::path> ProjectIndex::resolve(const fs::path& dir, std::string_view name, bool run) {
  std::string key = dir.native();
  key += run ? '\x1f' : '\x1e';
  key += name;
  {
    std::lock_guard lock(mu_);
    if (auto it = resolved_.find(key); it != resolved_.end()) return it->second;
  }
  auto file = run ? resolve_run(dir, name) : resolve_module(dir, name);
  std::lock_guard lock(mu_);
  resolved_.emplace(std::move(key), file);
  return file;
}

const ModuleExports* ProjectIndex::exports_for(std::string_view importer, std::string_view name, bool run) {
  auto file = resolve(fs::path(importer).parent_path(), name, run);
  std::error_code ec;
  if (!file || fs::equivalent(*file, fs::path(importer), ec)) return nullptr;  // a file never imports itself
  return load(*file);
}

const ModuleExports* ProjectIndex::module(std::string_view importer, std::string_view dotted) {
  return exports_for(importer, dotted, false);
}

const ModuleExports* ProjectIndex::run_target(std::string_view importer, std::string_view arg) {
  return exports_for(importer, arg, true);
}

void ProjectIndex::remember(std::string_view path, std::size_t text_size, const SourceModel& model) {
  std::error_code ec;
  const fs::path file(path);
  const std::uintmax_t size = fs::file_size(file, ec);
  if (ec || size != text_size || size > kMaxModuleBytes) return;
  const auto mtime = static_cast<std::int64_t>(fs::last_write_time(file, ec).time_since_epoch().count());
  if (ec) return;
  auto exports = std::make_shared<const ModuleExports>(exports_of(model));
  std::lock_guard lock(mu_);
  Entry& e = files_[file.lexically_normal().string()];
  if (e.exports && e.size == size && e.mtime == mtime) return;
  e = {size, mtime, exports};
  kept_.push_back(std::move(exports));
}

std::shared_ptr<ParsedSource> ProjectIndex::take_parsed(std::string_view path, std::string_view text) {
  std::shared_ptr<ParsedSource> parsed;
  {
    std::lock_guard lock(mu_);
    if (parsed_.empty()) return nullptr;
    auto it = parsed_.find(fs::path(path).lexically_normal().string());
    if (it == parsed_.end()) return nullptr;
    parsed = std::move(it->second);
    parsed_.erase(it);
  }
  const std::string raw = whole_raw(parsed->file);
  {
    std::lock_guard lock(mu_);
    parsed_bytes_ -= std::min(parsed_bytes_, raw.size());
  }
  // The file as its lint reads it (not changed on disk since, nor converted on the way).
  if (raw != text) return nullptr;
  parsed->file.path = std::string(path);
  return parsed;
}

std::string ProjectIndex::dependency_key(std::string_view importer, std::string_view text) {
  std::string key;
  const fs::path dir = fs::path(importer).parent_path();
  std::set<std::string> seen;
  for (const ImportRef& ref : scan_imports(text)) {
    auto file = resolve(dir, ref.target, ref.kind == ImportRef::Kind::run);
    if (!file || !seen.insert(file->string()).second) continue;
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(*file, ec);
    const auto mtime = fs::last_write_time(*file, ec).time_since_epoch().count();
    key += file->string() + '\x1f' + std::to_string(size) + '\x1f' + std::to_string(mtime) + '\x1e';
  }
  return key;
}

ProjectIndex& project_index() {
  static ProjectIndex index;
  return index;
}

}  // namespace planlint::pyspark
