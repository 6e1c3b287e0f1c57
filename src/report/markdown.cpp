// Markdown output: one table row per finding (severity, where, rule, message, fix), for a comment on
// a pull request. Cell text is escaped so a message cannot break the table or inject markup.
#include <fmt/format.h>

#include "lint/rule.hpp"
#include "report/report.hpp"
#include "util/printable.hpp"

namespace planlint::report {
using namespace planlint::lint;  // findings, results and rule metadata: what a reporter prints
namespace {

std::string cell(std::string_view s) { return util::markdown_text(s); }

class MarkdownReporter final : public Reporter {
 public:
  void file(const FileResult& r, std::string& out) override {
    for (const auto& d : r.diagnostics) {
      if (rows_++ == 0) out += "| severity | where | rule | finding | fix |\n|---|---|---|---|---|\n";
      out += fmt::format("| {} | {}:{}:{} | {} ({}) | {} | {} |\n", to_string(d.severity), cell(r.path),
                         d.location.line, d.location.column, d.rule->name, d.rule->id, cell(d.message),
                         d.fix ? cell(d.fix->suggestion.empty() ? d.fix->title : d.fix->suggestion) : std::string());
    }
  }
  void end(std::string& out) override {
    if (rows_ == 0) out += "No findings.\n";
  }

 private:
  std::size_t rows_ = 0;
};

}  // namespace

std::unique_ptr<Reporter> make_markdown_reporter() { return std::make_unique<MarkdownReporter>(); }

}  // namespace planlint::report
