// Lints one input: parse, run the selected rules over every plan, fingerprint the findings.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lint/diagnostic.hpp"
#include "lint/options.hpp"

namespace planlint::lint {

// The lines of a file (or of a cell) by number, of which only some keep their text: reporters quote
// a few lines of a large file, and a string for each of the others would cost 32 bytes a line.
// A line without its text reads as "".
class LineTexts {
 public:
  LineTexts() = default;
  explicit LineTexts(std::size_t count) : count_(count) {}
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] bool empty() const { return count_ == 0; }
  void resize(std::size_t count) {
    count_ = count;
    while (!kept_.empty() && kept_.back().first >= count) kept_.pop_back();
  }
  // The text of line index i (0-based, below size()).
  [[nodiscard]] const std::string& operator[](std::size_t i) const {
    static const std::string kNone;
    auto it = find(i);
    return it != kept_.end() && it->first == i ? it->second : kNone;
  }
  void set(std::size_t i, std::string text) {
    if (i >= count_) return;
    if (kept_.empty() || kept_.back().first < i) {  // lines are mostly set in order
      if (!text.empty()) kept_.emplace_back(i, std::move(text));
      return;
    }
    auto it = find(i);
    if (it != kept_.end() && it->first == i) {
      if (text.empty())
        kept_.erase(it);
      else
        it->second = std::move(text);
    } else if (!text.empty()) {
      kept_.emplace(it, i, std::move(text));
    }
  }
  void push_back(std::string text) { set(count_++, std::move(text)); }

 private:
  [[nodiscard]] std::vector<std::pair<std::size_t, std::string>>::const_iterator find(std::size_t i) const {
    return std::lower_bound(kept_.begin(), kept_.end(), i, [](const auto& k, std::size_t n) { return k.first < n; });
  }
  std::vector<std::pair<std::size_t, std::string>>::iterator find(std::size_t i) {
    return std::lower_bound(kept_.begin(), kept_.end(), i, [](const auto& k, std::size_t n) { return k.first < n; });
  }
  std::size_t count_ = 0;
  std::vector<std::pair<std::size_t, std::string>> kept_;  // by line index
};

struct FileResult {
  std::string path;
  LineTexts lines;                      // the file's lines, for reporters that quote them
  std::vector<LineTexts> cell_lines;    // notebooks: each cell's lines (index = cell - 1)
  std::vector<Diagnostic> diagnostics;  // sorted by position
  std::string io_error;                 // set when the file could not be read
  bool unwritten = false;               // --fix: linted, but the fixed text could not be written (io_error says why)
};

// The text is moved into the parsed document; only the lines findings quote are kept in the result.
FileResult lint_plan_text(std::string path, std::string text, const LintOptions& options);

// The lines reporters quote: each finding's, its related locations' and its fix ranges' (at most 64
// lines of each), as file line numbers and as (cell, cell line) pairs.
struct QuotedLines {
  std::set<std::uint32_t> file_lines;
  std::set<std::pair<int, std::uint32_t>> cell_lines;
};
QuotedLines quoted_lines(const FileResult& result);
// Text that starts with a UTF-16 byte-order mark is not read: the error for it, or "".
std::string utf16_error(std::string_view text);
// Only CR line breaks (classic Mac): Python reads them as lines, planlint lints them as LF.
bool cr_only_line_endings(std::string_view text);

// PySpark sources: .py files, Databricks source notebooks and Jupyter .ipynb notebooks.
FileResult lint_source_text(std::string path, std::string text, const LintOptions& options);
// The same, with Python cells over python_chunk_bytes parsed in runs of top-level statements of about
// that size (the 3-argument form uses pyspark::kPythonChunkBytes): for tests that the findings do not
// depend on where the runs are cut.
FileResult lint_source_text(std::string path, std::string text, const LintOptions& options,
                            std::size_t python_chunk_bytes);
bool is_source_path(std::string_view path);

// A finding lists at most this many related locations; the message says how many more there were.
// GitHub code scanning keeps 100 locations of a result and rejects a SARIF file with more than
// 1,000, and a DataFrame used in 20,000 places is one finding, not 20,000 notes.
inline constexpr std::size_t kMaxRelated = 100;
void limit_related(Diagnostic& d);
// Stable fingerprint: rule, the flagged line with expression ids, plan ids and operator numbers
// normalised away, and the occurrence index of that pair in the file. Line numbers are not part of it.
void assign_fingerprints(FileResult& result);
std::string normalize_plan_line(std::string_view line);

}  // namespace planlint::lint
