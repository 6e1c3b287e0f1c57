// The results cache: a file's findings keyed by its path, its bytes, the options that reach the rules
// and planlint's version, so a re-run over unchanged files skips parsing and analysis (ruff's
// .ruff_cache is the model). Entries are flat binary (any byte of a quoted line survives; checksummed), written
// through a temporary file and a rename (safe under concurrent runs), and a cache that cannot be
// read or written is only a slower run, never a failure or a different result.
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "lint/engine.hpp"

namespace planlint::lint {

class ResultCache {
 public:
  ResultCache(std::filesystem::path dir, std::string tool_version);

  // Where the entry for these bytes and options lives: computed once, before the text is handed on.
  [[nodiscard]] std::filesystem::path entry(const std::string& path, std::string_view content,
                                            const LintOptions& options) const;
  [[nodiscard]] std::optional<FileResult> load(const std::filesystem::path& entry, const std::string& path) const;
  void store(const std::filesystem::path& entry, const std::string& path, const FileResult& result) const;

  [[nodiscard]] std::size_t hits() const { return hits_; }
  [[nodiscard]] std::size_t misses() const { return misses_; }
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::string version_;
  mutable std::atomic<std::size_t> hits_{0}, misses_{0}, serial_{0};
};

// What of the options changes what rules report (not --warn or --fail-on, which only change the exit
// status), as one string for the cache key.
std::string options_fingerprint(const LintOptions& options);

}  // namespace planlint::lint
