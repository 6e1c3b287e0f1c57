// The plan lint pipeline: parse_document, rules over each plan, syntax errors as diagnostics.
#include "lint/engine.hpp"

#include <algorithm>
#include <map>

#include "lint/plan_context.hpp"
#include "plan/plan.hpp"

namespace planlint::lint {

std::string utf16_error(std::string_view text) {
  // UTF-32's byte-order marks first: the little-endian one starts like UTF-16's.
  if (text.substr(0, 4) == std::string_view("\xFF\xFE\0\0", 4) ||
      text.substr(0, 4) == std::string_view("\0\0\xFE\xFF", 4))
    return "UTF-32 text is not supported: save the file as UTF-8";
  bool bom = text.size() >= 2 && ((text[0] == '\xFF' && text[1] == '\xFE') || (text[0] == '\xFE' && text[1] == '\xFF'));
  return bom ? "UTF-16 text is not supported: save the file as UTF-8" : "";
}

QuotedLines quoted_lines(const FileResult& r) {
  QuotedLines q;
  auto need = [&](const Location& l) {
    for (std::uint32_t n = l.line; n <= std::max(l.line, l.end_line) && n - l.line < 64; ++n) q.file_lines.insert(n);
    if (l.cell > 0)
      for (std::uint32_t n = l.cell_line;
           n <= l.cell_line + (l.end_line - std::min(l.line, l.end_line)) && n - l.cell_line < 64; ++n)
        q.cell_lines.insert({l.cell, n});
  };
  for (const auto& d : r.diagnostics) {
    need(d.location);
    for (const auto& rl : d.related) need(rl.location);
    if (d.fix)
      for (const auto& e : d.fix->edits) need(e.range);
  }
  return q;
}

FileResult lint_plan_text(std::string path, std::string text, const LintOptions& options) {
  FileResult result;
  result.path = path;
  if (result.io_error = utf16_error(text); !result.io_error.empty()) return result;
  // Plan by plan: a file of many plans never holds more than one plan's operators.
  plan::Document doc = plan::parse_document_streamed(std::move(text), std::move(path),
                                                     [&](const plan::Document& d, const plan::Plan& p) {
                                                       PlanContext ctx(d, p, options, result.diagnostics);
                                                       const std::size_t first = result.diagnostics.size();
                                                       for (const auto& rule : all_rules()) {
                                                         if (rule.check == nullptr || !options.enabled(*rule.info))
                                                           continue;
                                                         ctx.set_rule(rule.info);
                                                         rule.check(ctx);
                                                       }
                                                       ctx.judge_counted_inputs(first);
                                                     });
  for (auto& d : result.diagnostics) limit_related(d);
  const RuleInfo& syntax = plan_syntax_rule();
  if (options.enabled(syntax)) {
    for (const auto& e : doc.errors)
      result.diagnostics.push_back(syntax_diagnostic(syntax, doc.path, e.line, e.column, e.message));
  }
  std::stable_sort(result.diagnostics.begin(), result.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.location.line, a.location.column, a.rule->id) <
           std::tie(b.location.line, b.location.column, b.rule->id);
  });
  // Every line number stays valid; only the quoted lines keep their text (a large plan file's
  // result is then a fraction of it, and the document with its copy of the text goes now).
  result.lines.resize(doc.lines.size());
  for (std::uint32_t n : quoted_lines(result).file_lines)
    if (n >= 1 && n <= doc.lines.size()) result.lines.set(n - 1, std::string(doc.lines[n - 1]));
  assign_fingerprints(result);
  return result;
}

namespace {

// normalize_plan_line(line) appended to `out` (a prefix already there is kept as it is). Only a
// '#', '(' or '=' before a digit can start a number that goes: the text between is copied whole.
void append_normalized_plan_line(std::string_view line, std::string& out) {
  const std::size_t base = out.size();
  out.reserve(base + line.size());
  auto digit = [&](std::size_t i) { return i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])); };
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t j = i;
    while (j < line.size() && !((line[j] == '#' || line[j] == '(' || line[j] == '=') && digit(j + 1))) ++j;
    if (j == line.size()) {
      out.append(line.substr(i));
      break;
    }
    const char c = line[j];
    out.append(line.substr(i, j + 1 - i));
    std::size_t end = j + 1;
    while (digit(end)) ++end;
    // Spark renumbers these between runs: name#123, [id=#12], [plan_id=45], *(3), "Exchange (17)".
    bool renumbered = c == '#' || (c == '(' && end < line.size() && line[end] == ')') ||
                      (c == '=' && out.size() - base >= 8 && out.compare(out.size() - 8, 8, "plan_id=") == 0);
    i = renumbered ? end : j + 1;
  }
  // Tree-drawing prefixes go too: moving a subtree must not change its fingerprint.
  auto first = out.find_first_not_of(" :+-|", base);
  if (first != std::string::npos) out.erase(base, first - base);
}

}  // namespace

std::string normalize_plan_line(std::string_view line) {
  std::string out;
  append_normalized_plan_line(line, out);
  return out;
}

void limit_related(Diagnostic& d) {
  if (d.related.size() <= kMaxRelated) return;
  const std::size_t more = d.related.size() - kMaxRelated;
  d.related.erase(d.related.begin() + static_cast<std::ptrdiff_t>(kMaxRelated), d.related.end());
  d.related.shrink_to_fit();
  d.message += " (" + std::to_string(more) + (more == 1 ? " more location is" : " more locations are") + " not listed)";
}

void assign_fingerprints(FileResult& result) {
  // The hash of "rule id \x1f normalized line \x1f n", n counting the findings before with the same
  // first two parts. One key buffer for all findings, the hex digits written by hand.
  std::map<std::string, int, std::less<>> seen;
  std::string key;
  for (auto& d : result.diagnostics) {
    std::string_view line;
    const Location& l = d.location;
    if (l.cell > 0 && static_cast<std::size_t>(l.cell) <= result.cell_lines.size() && l.cell_line >= 1 &&
        l.cell_line <= result.cell_lines[static_cast<std::size_t>(l.cell - 1)].size()) {
      line = result.cell_lines[static_cast<std::size_t>(l.cell - 1)][l.cell_line - 1];
    } else if (l.line >= 1 && l.line <= result.lines.size()) {
      line = result.lines[l.line - 1];
    }
    key.assign(d.rule->id);
    key += '\x1f';
    append_normalized_plan_line(line, key);
    int n = 0;
    if (auto it = seen.find(std::string_view(key)); it != seen.end())
      n = it->second++;
    else
      seen.emplace(key, 1);
    key += '\x1f';
    key += std::to_string(n);
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a, 64 bit
    for (unsigned char c : key) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    char buf[16];
    constexpr std::string_view kHex = "0123456789abcdef";
    for (int i = 15; i >= 0; --i, h >>= 4) buf[i] = kHex[h & 0xf];
    d.fingerprint = std::string_view(buf, sizeof buf);
  }
}

}  // namespace planlint::lint
