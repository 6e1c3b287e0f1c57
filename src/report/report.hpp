// Reporters: turn lint results into text, JSON, SARIF 2.1.0 or GitHub workflow commands.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lint/engine.hpp"

namespace planlint::report {

using lint::FileResult;

struct ReportOptions {
  bool color = false;
  std::string tool_version;
};

// A report written as files are linted: begin(), then file() for each result in input order, then
// end(); each appends its part of the report to `out`, which the caller may write out and clear
// between calls. Only what the format needs at the end is kept (error notes, rule counts), never the
// files' text, so a run's memory does not grow with the number of files.
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(std::string& /*out*/) {}
  virtual void file(const FileResult& result, std::string& out) = 0;
  virtual void end(std::string& /*out*/) {}
  // Where a large file's report goes while it is rendered: called with `out` once it holds 64 KiB,
  // to write and clear it (a file of thousands of findings is not held whole as text). Unset, the
  // report of a file is returned whole.
  void set_flush(std::function<void(std::string&)> flush) { flush_ = std::move(flush); }

 protected:
  void maybe_flush(std::string& out) const {
    if (flush_ && out.size() >= (std::size_t{1} << 16)) flush_(out);
  }

 private:
  std::function<void(std::string&)> flush_;
};

// format: text, json, sarif, github, markdown or statistics; nullptr for any other name.
std::unique_ptr<Reporter> make_reporter(std::string_view format, const ReportOptions& options);
// The text-based ones (text, github, statistics; report_text.cpp), which make_reporter falls back to.
std::unique_ptr<Reporter> make_text_reporter(std::string_view format, const ReportOptions& options);
// Markdown: a table of the findings, for a pull-request comment (report_markdown.cpp).
std::unique_ptr<Reporter> make_markdown_reporter();

// The whole report at once (begin, every file, end).
std::string render(std::string_view format, const std::vector<FileResult>& results, const ReportOptions& options);
std::string render_text(const std::vector<FileResult>& results, const ReportOptions& options);
std::string render_json(const std::vector<FileResult>& results, const ReportOptions& options);
std::string render_sarif(const std::vector<FileResult>& results, const ReportOptions& options);
std::string render_github(const std::vector<FileResult>& results, const ReportOptions& options);
std::string render_statistics(const std::vector<FileResult>& results);

// JSON output schema version; bump on incompatible changes (documented in docs/json-output.md).
inline constexpr int kJsonSchemaVersion = 1;

}  // namespace planlint::report
