// Reading planlint's TOML configuration with toml++: known keys only, typed, errors with positions.
#include "lint/config.hpp"

#include "util/files.hpp"

#include <fnmatch.h>

#include <toml++/toml.h>
#include <set>

namespace planlint::lint {
namespace fs = std::filesystem;

std::string ConfigError::text() const {
  return line == 0 ? file + ": " + message
                   : file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

namespace {

ConfigError error_at(const fs::path& file, const toml::node& n, std::string message) {
  const auto& src = n.source();
  return ConfigError{file.string(), src.begin.line, src.begin.column, std::move(message)};
}

bool read_strings(const fs::path& file, const toml::node& n, std::string_view key, std::vector<std::string>& out,
                  std::vector<ConfigError>& errors) {
  const auto* arr = n.as_array();
  if (arr == nullptr) {
    errors.push_back(error_at(file, n, "`" + std::string(key) + "` must be an array of strings"));
    return false;
  }
  for (const auto& item : *arr) {
    const auto* s = item.as_string();
    if (s == nullptr) {
      errors.push_back(error_at(file, item, "`" + std::string(key) + "` must be an array of strings"));
      return false;
    }
    out.push_back(s->get());
  }
  return true;
}

}  // namespace

std::optional<Config> load_config(const fs::path& file, std::vector<ConfigError>& errors) {
  toml::table doc;
  // Read as lint inputs are (a FIFO nobody writes to is empty, not a hang; a size bound).
  util::ReadResult read = util::read_file_bounded(file.string(), std::size_t{4} << 20);
  if (!read.error.empty()) {
    errors.push_back({file.string(), 1, 1, "cannot read the configuration: " + read.error});
    return std::nullopt;
  }
  try {
    doc = toml::parse(read.text, file.string());
  } catch (const toml::parse_error& e) {
    errors.push_back({file.string(), e.source().begin.line, e.source().begin.column, std::string(e.description())});
    return std::nullopt;
  }
  const toml::table* t = &doc;
  if (file.filename() == "pyproject.toml") {
    t = doc["tool"]["planlint"].as_table();
    if (t == nullptr) return std::nullopt;
  }
  Config c;
  c.file = file;
  c.root = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  static const std::set<std::string, std::less<>> known{"select",
                                                        "extend-select",
                                                        "ignore",
                                                        "per-file-ignores",
                                                        "exclude",
                                                        "broadcast-threshold",
                                                        "small-tables",
                                                        "large-tables",
                                                        "tolerated-shuffle-partitions",
                                                        "target-spark-version",
                                                        "output-format",
                                                        "min-impact",
                                                        "warn",
                                                        "fail-on"};
  for (const auto& [key, value] : *t) {
    std::string k(key.str());
    if (known.count(k) == 0) {
      errors.push_back({file.string(), key.source().begin.line, key.source().begin.column,
                        "unknown key `" + k +
                            "` (known: select, extend-select, ignore, "
                            "per-file-ignores, exclude, broadcast-threshold, small-tables, large-tables, "
                            "tolerated-shuffle-partitions, target-spark-version, output-format, min-impact, warn, "
                            "fail-on)"});
      continue;
    }
    if (k == "select") {
      std::vector<std::string> v;
      if (read_strings(file, value, k, v, errors)) c.select = v;
    } else if (k == "extend-select") {
      read_strings(file, value, k, c.extend_select, errors);
    } else if (k == "warn") {
      read_strings(file, value, k, c.warn, errors);
    } else if (k == "min-impact" || k == "fail-on") {
      auto s = value.value<std::string>();
      auto impact = s ? parse_impact(*s) : std::nullopt;
      auto severity = s ? parse_severity(*s) : std::nullopt;
      if (k == "min-impact" && impact) {
        c.min_impact = impact;
      } else if (k == "fail-on" && severity) {
        c.fail_on = severity;
      } else {
        errors.push_back(error_at(file, value,
                                  k == "min-impact" ? "`min-impact` must be one of \"low\", \"medium\", \"high\""
                                                    : "`fail-on` must be one of \"info\", \"warning\", \"error\""));
      }
    } else if (k == "ignore") {
      read_strings(file, value, k, c.ignore, errors);
    } else if (k == "exclude") {
      read_strings(file, value, k, c.exclude, errors);
    } else if (k == "small-tables") {
      read_strings(file, value, k, c.small_tables, errors);
    } else if (k == "large-tables") {
      read_strings(file, value, k, c.large_tables, errors);
    } else if (k == "per-file-ignores") {
      const auto* tbl = value.as_table();
      if (tbl == nullptr) {
        errors.push_back(error_at(file, value, "`per-file-ignores` must be a table of glob = [rules]"));
        continue;
      }
      for (const auto& [glob, rules] : *tbl) {
        std::vector<std::string> v;
        if (read_strings(file, rules, "per-file-ignores." + std::string(glob.str()), v, errors))
          c.per_file_ignores.emplace_back(std::string(glob.str()), v);
      }
    } else if (k == "broadcast-threshold") {
      if (auto i = value.value<std::int64_t>(); i && value.is_integer()) {
        if (*i < 0) errors.push_back(error_at(file, value, "`broadcast-threshold` must not be negative"));
        c.broadcast_threshold = static_cast<double>(std::max<std::int64_t>(*i, 0));
      } else if (auto s = value.value<std::string>()) {
        auto bytes = parse_size(*s);
        if (!bytes)
          errors.push_back(error_at(file, value, "`broadcast-threshold` must be bytes or a size like \"10MB\""));
        c.broadcast_threshold = bytes;
      } else {
        errors.push_back(error_at(file, value, "`broadcast-threshold` must be bytes or a size like \"10MB\""));
      }
    } else if (k == "tolerated-shuffle-partitions") {
      const auto* arr = value.as_array();
      bool good = arr != nullptr;
      if (good)
        for (const auto& item : *arr) {
          if (!item.is_integer() || *item.value<std::int64_t>() < 1)
            good = false;
          else
            c.tolerated_shuffle_partitions.push_back(*item.value<std::int64_t>());
        }
      if (!good)
        errors.push_back(error_at(file, value, "`tolerated-shuffle-partitions` must be an array of positive integers"));
    } else if (k == "target-spark-version" || k == "output-format") {
      auto s = value.value<std::string>();
      if (!s) {
        errors.push_back(error_at(file, value, "`" + k + "` must be a string"));
        continue;
      }
      if (k == "output-format" && *s != "text" && *s != "json" && *s != "sarif" && *s != "github") {
        errors.push_back(error_at(file, value, "`output-format` must be one of text, json, sarif, github"));
        continue;
      }
      if (k == "target-spark-version" && !is_spark_version(*s)) {
        errors.push_back(error_at(file, value, "`target-spark-version` must be a Spark version like \"3.5\""));
        continue;
      }
      (k == "output-format" ? c.output_format : c.target_spark_version) = *s;
    }
  }
  for (const auto* list : {&c.extend_select, &c.ignore, &c.warn}) {
    LintOptions probe;
    probe.ignore = *list;
    for (const auto& bad : unknown_selectors(probe))
      errors.push_back({file.string(), 0, 0, "unknown rule selector `" + bad + "`"});
  }
  return c;
}

namespace {
// The names looked for in each folder, in this order (the last only with a [tool.planlint] table).
constexpr std::string_view kPlanlintToml[] = {".planlint.toml", "planlint.toml"};
constexpr std::string_view kPyprojectToml = "pyproject.toml";

// The configuration file in this very folder, if any.
std::optional<fs::path> config_in(const fs::path& d) {
  std::error_code ec;
  for (std::string_view name : kPlanlintToml)
    if (fs::is_regular_file(d / name, ec)) return d / name;
  fs::path py = d / kPyprojectToml;
  if (fs::is_regular_file(py, ec)) {
    try {
      util::ReadResult read = util::read_file_bounded(py.string(), std::size_t{4} << 20);
      if (!read.error.empty()) return py;  // report its error when it is loaded
      auto doc = toml::parse(read.text, py.string());
      if (doc["tool"]["planlint"].as_table() != nullptr) return py;
    } catch (const toml::parse_error&) {
      return py;  // report its error when it is loaded
    }
  }
  return std::nullopt;
}

// Absolute, with no empty, "." or ".." part and no '/' at the end: already what start_folder gives.
bool plain_absolute(std::string_view s) {
  if (s.size() < 2 || s[0] != '/') return false;
  for (std::size_t i = 1; i <= s.size();) {
    std::size_t end = std::min(s.find('/', i), s.size());
    std::string_view part = s.substr(i, end - i);
    if (part.empty() || part == "." || part == "..") return false;
    i = end + 1;
  }
  return true;
}
}  // namespace

fs::path ConfigFinder::start_folder(const fs::path& dir) {
  // A walk asks about every folder it lists: most are plain already (no getcwd, no normalising).
  const std::string& s = dir.native();
  if (plain_absolute(s)) return dir;
  std::error_code ec;
  fs::path d;
  if (!s.empty() && s[0] != '/') {
    if (cwd_.empty()) cwd_ = fs::current_path(ec).native();
    if (cwd_.empty()) return {};  // as fs::absolute gives when the current folder cannot be had
    std::string joined = cwd_ + "/" + s;
    if (plain_absolute(joined)) return joined;
    d = fs::path(std::move(joined)).lexically_normal();
  } else {
    d = fs::absolute(dir, ec).lexically_normal();
  }
  if (!d.empty() && d.filename().empty()) d = d.parent_path();
  return d;
}

bool is_config_name(std::string_view name) {
  return name == kPlanlintToml[0] || name == kPlanlintToml[1] || name == kPyprojectToml;
}

void ConfigFinder::none_in(const fs::path& dir) { none_.insert(start_folder(dir).native()); }

std::optional<fs::path> ConfigFinder::find(const fs::path& dir) {
  fs::path d = start_folder(dir);
  std::vector<fs::path> looked_at;
  std::optional<fs::path> found;
  for (int guard = 0; guard < 256 && !d.empty(); ++guard) {
    if (auto it = known_.find(d.native()); it != known_.end()) {
      found = it->second;
      break;
    }
    looked_at.push_back(d);
    if (none_.count(d.native()) == 0 && (found = config_in(d))) break;
    if (d == d.root_path()) break;
    d = d.parent_path();
  }
  for (auto& f : looked_at) known_.emplace(f.native(), found);
  return found;
}

namespace {
bool glob_match(const std::string& pattern, const fs::path& path, const fs::path& root) {
  std::error_code ec;
  std::string rel = fs::absolute(path, ec).lexically_relative(fs::absolute(root, ec)).generic_string();
  std::string name = path.filename().string();
  return fnmatch(pattern.c_str(), rel.c_str(), 0) == 0 || fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}
}  // namespace

LintOptions options_for(const fs::path& file, const Config* config, const LintOptions& cli) {
  LintOptions o = cli;
  if (config == nullptr) return o;
  if (cli.select.empty() && config->select) o.select = *config->select;
  o.extend_select.insert(o.extend_select.end(), config->extend_select.begin(), config->extend_select.end());
  o.ignore.insert(o.ignore.end(), config->ignore.begin(), config->ignore.end());
  for (const auto& [glob, rules] : config->per_file_ignores)
    if (glob_match(glob, file, config->root)) o.ignore.insert(o.ignore.end(), rules.begin(), rules.end());
  if (config->broadcast_threshold && cli.broadcast_threshold_bytes == LintOptions{}.broadcast_threshold_bytes)
    o.broadcast_threshold_bytes = *config->broadcast_threshold;
  o.small_tables.insert(o.small_tables.end(), config->small_tables.begin(), config->small_tables.end());
  o.large_tables.insert(o.large_tables.end(), config->large_tables.begin(), config->large_tables.end());
  o.warn.insert(o.warn.end(), config->warn.begin(), config->warn.end());
  // The command line wins where it set a value (its defaults are the lowest levels).
  if (config->min_impact && cli.min_impact == Impact::low) o.min_impact = *config->min_impact;
  if (config->fail_on && !cli.fail_on_given) o.fail_on = *config->fail_on;
  if (cli.target_spark_version.empty() && config->target_spark_version)
    o.target_spark_version = *config->target_spark_version;
  o.tolerated_shuffle_partitions.insert(o.tolerated_shuffle_partitions.end(),
                                        config->tolerated_shuffle_partitions.begin(),
                                        config->tolerated_shuffle_partitions.end());
  return o;
}

bool excluded(std::string_view path, const Config* config) {
  static const std::set<std::string, std::less<>> skip{
      ".git", "node_modules", ".venv", "venv", "__pycache__", ".ipynb_checkpoints", ".tox", ".mypy_cache", "build"};
  if (skip.count(path.substr(path.rfind('/') + 1)) != 0) return true;
  if (config == nullptr || config->exclude.empty()) return false;
  fs::path p(path);
  for (const auto& g : config->exclude)
    if (glob_match(g, p, config->root)) return true;
  return false;
}

}  // namespace planlint::lint
