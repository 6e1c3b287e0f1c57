// Human output: "file:line:col: severity: message [rule]", the line with the operator underlined,
// related locations and the fix suggestion. Also the GitHub annotations and --statistics, which are text too.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "lint/report.hpp"
#include "lint/rule.hpp"

namespace planlint::lint {
namespace {

struct Palette {
  bool on;
  [[nodiscard]] std::string paint(std::string_view code, std::string_view text) const {
    return on ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  }
};

std::string_view severity_colour(Severity s) {
  switch (s) {
    case Severity::error:
      return "1;31";
    case Severity::warning:
      return "1;33";
    case Severity::info:
      return "1;36";
  }
  return "1";
}

// Control characters from a file (escape sequences could retitle or clear the reader's terminal)
// are shown as \xNN; tabs stay.
bool is_control(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t') || u == 0x7f;
}

std::string printable(std::string_view s) {
  // Almost every line has none: copied whole, without looking at it a character at a time again.
  // A lambda, not the function's address: inlined, the scan is a tight loop (it was a call per
  // character, 0.5 % of a run).
  if (std::none_of(s.begin(), s.end(), [](char c) { return is_control(c); })) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (char c : s) {
    if (is_control(c))
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out;
}

constexpr std::size_t kQuoteWidth = 240;  // longer lines are cut around the column

void quote_line(std::string& out, const FileResult& r, const Location& loc, const Palette& p) {
  // Notebooks quote the cell's line, not the raw JSON.
  const std::string* text = nullptr;
  std::uint32_t number = loc.line, column = loc.column;
  std::size_t len = loc.end_line == loc.line && loc.end_column > loc.column ? loc.end_column - loc.column : 1;
  if (loc.cell > 0) {
    auto c = static_cast<std::size_t>(loc.cell - 1);
    if (c < r.cell_lines.size() && loc.cell_line >= 1 && loc.cell_line <= r.cell_lines[c].size())
      text = &r.cell_lines[c][loc.cell_line - 1];
    number = loc.cell_line;
    column = loc.cell_column;
  } else if (loc.line >= 1 && loc.line <= r.lines.size()) {
    text = &r.lines[loc.line - 1];
  }
  if (text == nullptr) return;
  std::string_view full = *text;
  std::size_t start = column > 0 ? column - 1 : 0;
  // A very long line (minified JSON, a 50 MB one-liner): a window around the column.
  std::string_view view = full;
  std::string head, tail;
  if (full.size() > kQuoteWidth) {
    std::size_t from = start > kQuoteWidth / 3 ? start - kQuoteWidth / 3 : 0;
    view = full.substr(from, kQuoteWidth);
    if (from > 0) head = "...";
    if (from + view.size() < full.size()) tail = "...";
    start = start >= from ? start - from : 0;
    len = std::min(len, view.size() > start ? view.size() - start : std::size_t{1});
  }
  std::string line = head + printable(view) + tail;
  std::string before = head + printable(view.substr(0, std::min(start, view.size())));
  start = before.size();
  std::string gutter = fmt::format("{:>5} | ", number);
  out += p.paint("34", gutter) + line + "\n";
  if (start + len > line.size() + 1) len = line.size() > start ? line.size() - start : 1;
  std::string pad;
  for (std::size_t i = 0; i < start && i < line.size(); ++i) pad += line[i] == '\t' ? '\t' : ' ';
  out += p.paint("34", std::string(gutter.size() - 2, ' ') + "| ") + pad +
         p.paint("1;32", "^" + std::string(len - 1, '~')) + "\n";
}

void render_text_file(const FileResult& r, const Palette& p, std::string& out,
                      const std::function<void(std::string&)>& flush = {}) {
  for (const auto& d : r.diagnostics) {
    if (flush) flush(out);
    std::string where = d.location.cell > 0 ? fmt::format("cell {}:{}:{}", d.location.cell, d.location.cell_line,
                                                          d.location.cell_column)
                                            : fmt::format("{}:{}", d.location.line, d.location.column);
    out += fmt::format("{}:{}: {}: {} {}\n", p.paint("1", printable(r.path)), where,
                       p.paint(severity_colour(d.severity), to_string(d.severity)), printable(d.message),
                       p.paint("2", fmt::format("[{}]", d.rule->name)));
    quote_line(out, r, d.location, p);
    for (const auto& rel : d.related) {
      const Location& l = rel.location;
      std::string at = l.cell > 0 ? fmt::format("cell {}:{}:{}", l.cell, l.cell_line, l.cell_column)
                                  : fmt::format("{}:{}", l.line, l.column);
      out += fmt::format("  {}: {}:{}: {}\n", p.paint("1;36", "note"), printable(l.path), at, printable(rel.message));
    }
    if (d.fix) {
      out += fmt::format("  {}: {}\n", p.paint("1;32", "fix"), d.fix->title);
      std::string_view s = d.fix->suggestion;
      while (!s.empty()) {
        auto nl = s.find('\n');
        out += fmt::format("      {}\n", printable(s.substr(0, nl)));
        if (nl == std::string_view::npos) break;
        s.remove_prefix(nl + 1);
      }
    }
  }
}

class TextReporter final : public Reporter {
 public:
  explicit TextReporter(const ReportOptions& o) : palette_{o.color} {}
  void file(const FileResult& r, std::string& out) override {
    render_text_file(r, palette_, out, [this](std::string& o) { maybe_flush(o); });
  }

 private:
  Palette palette_;
};

class StatisticsReporter final : public Reporter {
 public:
  void file(const FileResult& r, std::string& /*out*/) override {
    for (const auto& d : r.diagnostics) ++counts_[{d.rule->id, d.rule->name}];
  }
  void end(std::string& out) override {
    for (const auto& [rule, n] : counts_) out += fmt::format("{:>6}  {}  {}\n", n, rule.first, rule.second);
  }

 private:
  std::map<std::pair<std::string_view, std::string_view>, int> counts_;
};

}  // namespace

namespace {
// GitHub workflow commands escape %, CR and LF in messages, and also ':' and ',' in properties.
std::string gh_escape(std::string_view s, bool property) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      default:
        out += c;
    }
  }
  return out;
}

class GithubReporter final : public Reporter {
 public:
  void file(const FileResult& r, std::string& out) override {
    for (const auto& d : r.diagnostics) {
      std::string_view level = d.severity == Severity::error     ? "error"
                               : d.severity == Severity::warning ? "warning"
                                                                 : "notice";
      std::string msg = d.message;
      if (d.fix) msg += "\nFix: " + d.fix->suggestion;
      out += fmt::format("::{} file={},line={},col={},endLine={},endColumn={},title={}::{}\n", level,
                         gh_escape(r.path, true), d.location.line, d.location.column, d.location.end_line,
                         d.location.end_column, gh_escape(fmt::format("{} ({})", d.rule->name, d.rule->id), true),
                         gh_escape(msg, false));
    }
  }
};
}  // namespace

std::unique_ptr<Reporter> make_text_reporter(std::string_view format, const ReportOptions& options) {
  if (format == "text") return std::make_unique<TextReporter>(options);
  if (format == "statistics") return std::make_unique<StatisticsReporter>();
  if (format == "github") return std::make_unique<GithubReporter>();
  return nullptr;
}

}  // namespace planlint::lint
