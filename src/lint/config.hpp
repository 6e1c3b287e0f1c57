// Project configuration: [tool.planlint] in pyproject.toml, planlint.toml or .planlint.toml, found
// by walking up from each linted file (closest wins). Parsed with toml++ in config.cpp only.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "lint/options.hpp"

namespace planlint::lint {

struct Config {
  std::filesystem::path file;  // the configuration file
  std::filesystem::path root;  // its folder: globs are relative to it
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> extend_select, ignore;
  std::vector<std::pair<std::string, std::vector<std::string>>> per_file_ignores;  // glob -> selectors
  std::vector<std::string> exclude;
  std::optional<double> broadcast_threshold;
  std::vector<std::string> small_tables;
  std::vector<std::string> large_tables;
  std::vector<std::int64_t> tolerated_shuffle_partitions;
  std::optional<std::string> target_spark_version;
  std::optional<std::string> output_format;
  std::optional<Impact> min_impact;
  std::vector<std::string> warn;
  std::optional<Severity> fail_on;
};

struct ConfigError {
  std::string file;
  std::uint32_t line = 0, column = 0;
  std::string message;
  [[nodiscard]] std::string text() const;
};

// Parse one configuration file. pyproject.toml without [tool.planlint] gives nullopt and no error.
std::optional<Config> load_config(const std::filesystem::path& file, std::vector<ConfigError>& errors);

// The closest configuration file at or above a folder, for many folders of one tree: each folder is
// looked at once (a pyproject.toml without [tool.planlint] at the root of a repository is read once,
// not once per folder below it).
class ConfigFinder {
 public:
  std::optional<std::filesystem::path> find(const std::filesystem::path& dir);
  // A walk that listed `dir` and saw none of the configuration files' names in it says so: find()
  // then looks for them there without asking the file system (three lookups a folder).
  void none_in(const std::filesystem::path& dir);

 private:
  // Keyed by absolute, lexically normal paths, so that equal strings are equal paths.
  std::unordered_map<std::string, std::optional<std::filesystem::path>> known_;
  std::unordered_set<std::string> none_;
  std::string cwd_;  // the current folder, asked once

  // The folder as an absolute, lexically normal path without a '/' at the end.
  std::filesystem::path start_folder(const std::filesystem::path& dir);
};

// The names find() looks for in each folder.
bool is_config_name(std::string_view name);

// Options for one file: the configuration's, then the command line's on top.
LintOptions options_for(const std::filesystem::path& file, const Config* config, const LintOptions& cli);

// Directory walks skip these: .git, virtualenvs, node_modules, caches, and the config's exclude globs.
bool excluded(std::string_view path, const Config* config);

}  // namespace planlint::lint
