// Human output: "file:line:col: severity: message [rule]", the line with the operator underlined,
// related locations and the fix suggestion. Also the GitHub annotations and --statistics, which are text too.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <map>

#include "lint/rule.hpp"
#include "report/report.hpp"
#include "util/printable.hpp"

namespace planlint::report {
using namespace planlint::lint;  // findings, results and rule metadata: what a reporter prints
namespace {

struct Palette {
  bool on;
  // `text` in the colour `code` (an SGR sequence) when colour is on, appended to `out`; here the
  // text is what `write(out)` appends, so it needs no string of its own.
  template <class Write>
  void paint_with(std::string& out, std::string_view code, Write&& write) const {
    if (on) {
      out += "\x1b[";
      out += code;
      out += 'm';
    }
    write(out);
    if (on) out += "\x1b[0m";
  }
  void paint_to(std::string& out, std::string_view code, std::string_view text) const {
    paint_with(out, code, [&](std::string& o) { o += text; });
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

// `n` in decimal, appended to `out` (std::to_chars: fmt's back_inserter went a character at a time).
template <class Int>
void append_number(std::string& out, Int n) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, r.ptr);
}

// "cell C:L:C" in a notebook, else "L:C".
void append_where(std::string& out, const Location& l) {
  if (l.cell > 0) {
    out += "cell ";
    append_number(out, l.cell);
    out += ':';
    append_number(out, l.cell_line);
    out += ':';
    append_number(out, l.cell_column);
  } else {
    append_number(out, l.line);
    out += ':';
    append_number(out, l.column);
  }
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
  std::string_view head, tail;
  if (full.size() > kQuoteWidth) {
    std::size_t from = start > kQuoteWidth / 3 ? start - kQuoteWidth / 3 : 0;
    view = full.substr(from, kQuoteWidth);
    if (from > 0) head = "...";
    if (from + view.size() < full.size()) tail = "...";
    start = start >= from ? start - from : 0;
    len = std::min(len, view.size() > start ? view.size() - start : std::size_t{1});
  }
  // "  NNN | " then the line; the caret line below is padded to the same width.
  char gutter[32];
  char digits[16];
  const std::size_t width =
      static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, number).ptr - digits);
  const std::size_t spaces = width < 5 ? 5 - width : 0;
  std::memset(gutter, ' ', spaces);
  std::memcpy(gutter + spaces, digits, width);
  constexpr std::string_view kBar = " | ";
  std::copy(kBar.begin(), kBar.end(), gutter + spaces + width);
  const std::string_view gutter_text(gutter, spaces + width + kBar.size());
  p.paint_to(out, "34", gutter_text);
  const std::size_t line_at = out.size();
  out += head;
  const std::size_t cut = std::min(start, view.size());
  util::append_printable(out, view.substr(0, cut));
  start = out.size() - line_at;  // the caret's column in the quoted line
  util::append_printable(out, view.substr(cut));
  out += tail;
  const std::size_t line_size = out.size() - line_at;
  out += '\n';
  if (start + len > line_size + 1) len = line_size > start ? line_size - start : 1;
  p.paint_with(out, "34", [&](std::string& o) {
    o.append(gutter_text.size() - 2, ' ');
    o += "| ";
  });
  const std::size_t pad = std::min(start, line_size);
  out.reserve(out.size() + pad + len + 16);
  // Spaces under the line up to the caret, tabs where the line has them (appended whole, then the
  // tabs put back: most lines have none).
  const std::size_t pad_at = out.size();
  out.append(pad, ' ');
  for (const char* t = static_cast<const char*>(std::memchr(out.data() + line_at, '\t', pad)); t != nullptr;
       t = static_cast<const char*>(std::memchr(t + 1, '\t', out.data() + line_at + pad - (t + 1))))
    out[pad_at + static_cast<std::size_t>(t - (out.data() + line_at))] = '\t';
  p.paint_with(out, "1;32", [&](std::string& o) {
    o += '^';
    o.append(len - 1, '~');
  });
  out += '\n';
}

void render_text_file(const FileResult& r, const Palette& p, std::string& out,
                      const std::function<void(std::string&)>& flush = {}) {
  // Appended in place: a finding's text was a dozen temporary strings.
  for (const auto& d : r.diagnostics) {
    if (flush) flush(out);
    p.paint_with(out, "1", [&](std::string& o) { util::append_printable(o, r.path); });
    out += ':';
    append_where(out, d.location);
    out += ": ";
    p.paint_to(out, severity_colour(d.severity), to_string(d.severity));
    out += ": ";
    util::append_printable(out, d.message);
    out += ' ';
    p.paint_with(out, "2", [&](std::string& o) {
      o += '[';
      o += d.rule->name;
      o += ']';
    });
    out += '\n';
    quote_line(out, r, d.location, p);
    for (const auto& rel : d.related) {
      const Location& l = rel.location;
      out += "  ";
      p.paint_to(out, "1;36", "note");
      out += ": ";
      util::append_printable(out, l.path);
      out += ':';
      append_where(out, l);
      out += ": ";
      util::append_printable(out, rel.message);
      out += '\n';
    }
    if (d.fix) {
      out += "  ";
      p.paint_to(out, "1;32", "fix");
      out += ": ";
      out += d.fix->title;
      out += '\n';
      std::string_view s = d.fix->suggestion;
      while (!s.empty()) {
        auto nl = s.find('\n');
        out += "      ";
        util::append_printable(out, s.substr(0, nl));
        out += '\n';
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
  return util::printable(out);
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

}  // namespace planlint::report
