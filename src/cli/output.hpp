// Reports written to standard output or, atomically, to a file (a temporary file renamed over it).
#pragma once

#include <string>
#include <string_view>

#include "util/files.hpp"

namespace planlint::cli {

bool write_output(const std::string& path, const std::string& text);

// A report written piece by piece: to stdout ("" or "-"), or to a temporary file beside FILE that
// commit() renames over it. A failed write is remembered and reported by commit().
class ReportWriter {
 public:
  std::string open(const std::string& path);  // an error message, empty on success
  void write(std::string_view chunk);
  std::string commit();  // an error message, empty on success

 private:
  bool to_stdout_ = true;
  bool failed_ = false;
  int errno_ = 0;
  util::ReplacementFile file_;
};

// Baselines: the fingerprints of known findings. Writing records them; applying drops the findings
// a baseline already holds (one per recorded entry), so only new ones are reported.
}  // namespace planlint::cli
