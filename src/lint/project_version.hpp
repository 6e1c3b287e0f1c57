// The Spark version a project pins (its PySpark requirement, databricks-connect, or the Databricks
// runtime of its jobs), read from the files beside and above a linted source file: the target version
// when neither the command line nor the configuration names one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace planlint::lint {

// What each kind of project file pins: the lowest Spark version it allows ("3.1.2", "3.0", "3.4"),
// or nullopt when it names no PySpark version. Only a requirement of `pyspark` (any case, `-`/`_`/`.`
// alike, extras allowed) or `databricks-connect` counts.

// A PEP 440 specifier: the lowest version it allows (`==3.1.2`, `>=3.0,<3.2` -> 3.0, `~=3.2.0`); with
// only an upper bound, the newest minor release below it (`<3.3` -> 3.2), nullopt below `<X.0`.
std::optional<std::string> lowest_allowed(std::string_view specifier);
// A Poetry constraint: `^3.1`, `~3.1.2`, `3.1.2`, `3.1.*`, `>=3.0,<3.2`, alternatives with `||`.
std::optional<std::string> lowest_allowed_poetry(std::string_view constraint);
// A Databricks runtime version ("13.3.x-scala2.12", "13.3") as the Apache Spark version it ships:
// 10.x 3.2, 11.x and 12.x 3.3, 13.x 3.4, 14.x to 16.x 3.5, 17.x 4.0; nullopt for others (older
// runtimes have Databricks' own defaults, which Apache Spark's version would misstate).
std::optional<std::string> spark_of_databricks_runtime(std::string_view runtime);
// One PEP 508 requirement ("pyspark[sql]==3.1.2; python_version > '3.7'", "databricks-connect==13.3.*").
std::optional<std::string> spark_of_requirement(std::string_view requirement);

std::optional<std::string> spark_pinned_by_requirements_txt(std::string_view text);
std::optional<std::string> spark_pinned_by_pyproject(std::string_view text);  // PEP 621, PEP 735, Poetry, uv
std::optional<std::string> spark_pinned_by_setup_py(std::string_view text);   // its requirement strings
std::optional<std::string> spark_pinned_by_setup_cfg(std::string_view text);  // [options] install_requires, extras
std::optional<std::string> spark_pinned_by_environment_yml(std::string_view text);    // conda and its pip list
std::optional<std::string> spark_pinned_by_databricks_bundle(std::string_view text);  // spark_version: 13.3.x-...

// Orders "3.1.2" < "3.2" < "3.10" (missing parts count as 0).
bool older_version(std::string_view a, std::string_view b);

struct PinnedSpark {
  std::string version;         // what target-spark-version becomes
  std::filesystem::path file;  // the file that pins it (the first, by name, of the lowest pins of its folder)
};

// The pin for the files of a folder: the closest folder at or above it with a pinning file, looking
// no higher than `root` (the folder of the project's configuration file, when there is one), a folder
// holding `.git`, or the file system's root. In a folder, requirements*.txt (and requirements/*.txt),
// pyproject.toml, setup.py, setup.cfg, environment.yml / .yaml, databricks.yml / .yaml with its
// resources/*.yml / .yaml are read; when they pin several versions, the lowest wins (a fix must work
// on every environment the project allows). Each folder is listed, and each file read, once per finder.
class ProjectVersionFinder {
 public:
  std::optional<PinnedSpark> find(const std::filesystem::path& dir, const std::filesystem::path& root = {});
  // Whether a Databricks Asset Bundle (databricks.yml / .yaml) is in a folder at or above `dir`, up
  // to the same limits: the project deploys to Databricks, and its code runs on a Databricks runtime.
  bool in_databricks_bundle(const std::filesystem::path& dir, const std::filesystem::path& root = {});
  // Whether the repository holding `dir` (the first folder at or above it with `.git`, up to the same
  // limits) holds a Databricks notebook (a `.py` file that starts `# Databricks notebook source`): its
  // code is written for, and runs on, a Databricks runtime. Looked for once per repository, in at most
  // kMaxScanned entries, skipping hidden folders and installed packages.
  bool in_databricks_repository(const std::filesystem::path& dir, const std::filesystem::path& root = {});
  static constexpr int kMaxScanned = 50000;

 private:
  struct Folder {
    std::optional<PinnedSpark> pin;  // what this folder's own files pin
    bool databricks_bundle = false;  // holds databricks.yml / .yaml
    bool repository_root = false;    // holds .git
  };
  const Folder& folder(const std::filesystem::path& dir);
  std::unordered_map<std::string, Folder> folders_;     // by absolute, lexically normal path
  std::unordered_map<std::string, bool> repositories_;  // in_databricks_repository's answer, by root
};

}  // namespace planlint::lint
