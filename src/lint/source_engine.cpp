// The source lint pipeline: cells, analysis, source checks, positions mapped back to the file,
// and `# noqa` suppressions.
#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include "lint/engine.hpp"
#include "lint/source_context.hpp"
#include "pyspark/model.hpp"
#include "pyspark/notebook.hpp"
#include "pyspark/project.hpp"
#include "util/lines.hpp"

namespace planlint::lint {
namespace {

// Cell coordinates -> raw file coordinates. A line inside a JSON string maps to the string's start.
void map_location(const pyspark::SourceFile& f, Location& loc, bool notebook) {
  int cell_number = loc.cell == 0 ? 1 : loc.cell;
  const pyspark::Cell* cell = pyspark::find_cell(f, cell_number);
  if (cell == nullptr || cell->lines.empty()) return;
  auto map_point = [&](std::uint32_t line, std::uint32_t column, std::uint32_t& raw_line, std::uint32_t& raw_col) {
    std::size_t i = std::min<std::size_t>(line == 0 ? 0 : line - 1, cell->lines.size() - 1);
    const auto& o = cell->lines[i];
    raw_line = o.raw_line;
    raw_col = o.verbatim ? o.raw_column + column - 1 : o.raw_column;
  };
  std::uint32_t cl = loc.line, cc = loc.column, el = loc.end_line, ec = loc.end_column;
  map_point(cl, cc, loc.line, loc.column);
  map_point(el, ec, loc.end_line, loc.end_column);
  if (loc.end_line < loc.line || (loc.end_line == loc.line && loc.end_column <= loc.column)) {
    loc.end_line = loc.line;
    loc.end_column = loc.column + 1;
  }
  if (notebook) {
    loc.cell = cell_number;
    loc.cell_line = cl;
    loc.cell_column = cc;
  } else {
    loc.cell = 0;
  }
}

void shrink_texts(Diagnostic& d) {
  d.message.shrink_to_fit();
  for (auto& r : d.related) r.message.shrink_to_fit();
  d.related.shrink_to_fit();
  if (d.fix) {
    d.fix->title.shrink_to_fit();
    d.fix->suggestion.shrink_to_fit();
    d.fix->edits.shrink_to_fit();
  }
}

struct Noqa {
  bool all = false;
  std::vector<std::string> codes;
  [[nodiscard]] bool covers(const RuleInfo& r) const { return all || matching_code(r) != codes.size(); }
  // The code naming this rule (its id, name or pre-0.2 id), or codes.size().
  [[nodiscard]] std::size_t matching_code(const RuleInfo& r) const {
    for (std::size_t i = 0; i < codes.size(); ++i)
      if (find_rule(codes[i]) == &r) return i;
    return codes.size();
  }
};

// "# noqa", "# noqa: SPK101, redundant-shuffle"; with `file_level`, "# planlint: noqa[: ...]".
std::optional<Noqa> parse_noqa(std::string_view comment, bool file_level) {
  std::string lower(comment);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string marker = file_level ? "planlint: noqa" : "noqa";
  // The directive is "#", optional spaces, then the marker (also after other text: "# why # noqa").
  std::size_t pos = std::string::npos;
  for (std::size_t hash = lower.find('#'); hash != std::string::npos; hash = lower.find('#', hash + 1)) {
    std::size_t at = lower.find_first_not_of(' ', hash + 1);
    if (at != std::string::npos && lower.compare(at, marker.size(), marker) == 0) {
      std::size_t after = at + marker.size();
      if (after == lower.size() || lower[after] == ':' || lower[after] == ' ') {
        pos = at;
        break;
      }
    }
  }
  if (pos == std::string::npos) return std::nullopt;
  Noqa n;
  std::string_view rest = comment.substr(pos + marker.size());
  if (rest.empty() || rest.front() != ':') {
    n.all = true;
    return n;
  }
  rest.remove_prefix(1);
  std::string item;
  for (char c : std::string(rest) + ",") {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!item.empty()) n.codes.push_back(item);
      item.clear();
      if (c == ' ' && !n.codes.empty()) continue;
    } else if (c == '#') {
      break;
    } else {
      item += c;
    }
  }
  if (n.codes.empty()) n.all = true;
  return n;
}

// Findings in the order of their locations (stable). The order is sorted as indices and the findings
// moved once: a finding is 256 bytes, and a merge sort moved each of them several times.
void sort_by_location(std::vector<Diagnostic>& diagnostics) {
  auto before = [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.location.line, a.location.column, a.location.cell, a.location.cell_line, a.rule->id) <
           std::tie(b.location.line, b.location.column, b.location.cell, b.location.cell_line, b.rule->id);
  };
  if (std::is_sorted(diagnostics.begin(), diagnostics.end(), before)) return;
  std::vector<std::uint32_t> order(diagnostics.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return before(diagnostics[a], diagnostics[b]); });
  std::vector<Diagnostic> sorted;
  sorted.reserve(diagnostics.size());
  for (std::uint32_t i : order) sorted.push_back(std::move(diagnostics[i]));
  diagnostics = std::move(sorted);
}

// Line `want` of `text` (1-based, and present) without its "\n" or "\r\n", stepping forward from
// line `line`, which starts at byte `at`; both are left at line `want`.
std::string_view forward_to_line(std::string_view text, std::size_t want, std::size_t& line, std::size_t& at) {
  for (; line < want; ++line) at = text.find('\n', at) + 1;
  const std::size_t nl = text.find('\n', at);
  std::string_view l = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  return l;
}

}  // namespace

bool is_source_path(std::string_view path) { return pyspark::is_source_path(path); }

bool cr_only_line_endings(std::string_view text) {
  return text.find('\r') != std::string_view::npos && text.find('\n') == std::string_view::npos;
}

FileResult lint_source_text(std::string path, std::string text, const LintOptions& options) {
  return lint_source_text(std::move(path), std::move(text), options, pyspark::kPythonChunkBytes);
}

FileResult lint_source_text(std::string path, std::string text, const LintOptions& options,
                            std::size_t python_chunk_bytes) {
  FileResult result;
  result.path = path;
  // Classic Mac line endings (CR only), which Python reads as lines: linted as LF, same offsets.
  if (cr_only_line_endings(text)) std::replace(text.begin(), text.end(), '\r', '\n');
  // UTF-16 (with its byte-order mark) is not read: one clear error instead of one per line.
  if (result.io_error = utf16_error(text); !result.io_error.empty()) return result;
  const std::size_t text_size = text.size();  // what project_index() compares with the file on disk
  // A module an earlier file imports was analysed then: that analysis is taken over, not made again.
  std::shared_ptr<pyspark::ParsedSource> parsed;
  if (python_chunk_bytes == pyspark::kPythonChunkBytes) parsed = pyspark::project_index().take_parsed(path, text);
  const bool analysed = parsed != nullptr;
  if (analysed) {
    std::string().swap(text);  // the analysis holds it
  } else {
    parsed = std::make_shared<pyspark::ParsedSource>();
    parsed->file = pyspark::load_source(std::move(path), std::move(text));
  }
  pyspark::SourceFile& file = parsed->file;
  bool notebook = file.kind != pyspark::SourceKind::python;
  const RuleInfo& syntax = python_syntax_rule();
  if (options.enabled(syntax))
    for (const auto& e : file.errors)
      result.diagnostics.push_back(syntax_diagnostic(syntax, file.path, e.line, e.column, e.message));
  if (!analysed) parsed->model = pyspark::analyze_source(file, python_chunk_bytes);
  pyspark::SourceModel& model = parsed->model;
  pyspark::project_index().remember(file.path, text_size, model);
  std::deque<Diagnostic> found;
  SourceContext ctx(model, options, found);
  if (options.enabled(syntax)) {
    ctx.set_rule(&syntax);
    for (const auto& e : model.syntax_errors) {
      auto& d = ctx.report(e.cell, e.at, e.message);
      if (e.advisory) d.severity = Severity::info;
    }
    for (const auto& e : model.depth_limits) ctx.report(e.cell, e.at, e.message).severity = Severity::warning;
  }
  // Rules that build more than they report run first (Rule::source_check_first).
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& rule : all_rules()) {
      if (rule.source_check == nullptr || !options.enabled(*rule.info) || rule.source_check_first != (pass == 0))
        continue;
      const std::size_t before = found.size();
      ctx.set_rule(rule.info);
      rule.source_check(ctx);
      // Texts built by appending hold up to twice their size: a large file has thousands of them.
      for (std::size_t i = before; i < found.size(); ++i) shrink_texts(found[i]);
    }
  // Suppressions: "# noqa[: codes]" on the finding's line, "# planlint: noqa[: codes]" for the file.
  std::map<std::pair<int, std::uint32_t>, Noqa> line_noqa;
  std::map<std::pair<int, std::uint32_t>, const pyspark::Comment*> noqa_comment;
  std::set<std::pair<int, std::uint32_t>> noqa_used;                     // lines whose directive suppressed something
  std::set<std::tuple<int, std::uint32_t, std::size_t>> noqa_code_used;  // ... and by which of its codes
  std::vector<Noqa> file_noqa;
  for (const auto& c : model.comments) {
    if (auto f = parse_noqa(c.text, true)) {
      file_noqa.push_back(*f);
    } else if (auto n = parse_noqa(c.text, false)) {
      const std::uint32_t line = model.place(c.cell, c.pos).line;
      line_noqa[{c.cell, line}] = *n;
      noqa_comment[{c.cell, line}] = &c;
    }
  }
  // What is kept moves to the result's list once the model is gone (below).
  std::size_t kept = 0;
  for (Diagnostic& d : found) {
    int cell = d.location.cell == 0 ? 1 : d.location.cell;
    bool by_line = line_noqa.count({cell, d.location.line}) != 0 && line_noqa[{cell, d.location.line}].covers(*d.rule);
    if (by_line) {
      noqa_used.insert({cell, d.location.line});
      noqa_code_used.insert({cell, d.location.line, line_noqa[{cell, d.location.line}].matching_code(*d.rule)});
    }
    bool suppressed = d.rule != &syntax && (by_line || std::any_of(file_noqa.begin(), file_noqa.end(),
                                                                   [&](const Noqa& n) { return n.covers(*d.rule); }));
    if (suppressed) {
      d.rule = nullptr;  // dropped below
      continue;
    }
    // Only Python cells can be rewritten; a fix elsewhere (a %sql cell) is shown, not applied.
    if (d.fix && std::any_of(d.fix->edits.begin(), d.fix->edits.end(), [&](const Edit& e) {
          const auto& c = model.cell(e.cell);
          return c.language != pyspark::CellLanguage::python ||
                 (!c.verbatim && file.kind != pyspark::SourceKind::jupyter);
        })) {
      d.fix->edits.clear();
      d.fix->applicability = Applicability::display_only;
    }
    if (d.fix)
      for (auto& e : d.fix->edits) {
        const pyspark::Place at = model.place(e.cell, pyspark::Pos{e.start_byte, e.end_byte});
        e.range.line = at.line;
        e.range.column = at.column;
        e.range.end_line = at.end_line;
        e.range.end_column = at.end_column;
        e.range.cell = notebook ? e.cell : 0;
        map_location(file, e.range, notebook);
      }
    limit_related(d);
    for (auto& r : d.related) map_location(file, r.location, notebook);
    map_location(file, d.location, notebook);
    ++kept;
  }
  std::vector<Diagnostic> unused_noqa;
  if (options.enabled(unused_noqa_rule())) {
    for (const auto& [key, comment] : noqa_comment) {
      // A directive is shared with ruff and flake8: a bare `# noqa` and codes that are not planlint's
      // are theirs to judge (ruff's RUF100). Only planlint codes that suppressed nothing are reported.
      const Noqa& n = line_noqa[key];
      if (n.all) continue;
      std::vector<std::string> stale, kept;
      for (std::size_t i = 0; i < n.codes.size(); ++i) {
        bool ours = find_rule(n.codes[i]) != nullptr;
        bool used = noqa_code_used.count({key.first, key.second, i}) != 0;
        (ours && !used ? stale : kept).push_back(n.codes[i]);
      }
      if (stale.empty()) continue;
      std::string listed;
      for (const auto& s : stale) listed += (listed.empty() ? "`" : ", `") + s + "`";
      std::deque<Diagnostic> one;
      SourceContext unused(model, options, one);
      unused.set_rule(&unused_noqa_rule());
      if (!kept.empty()) {
        // Other codes stay: say which to drop, and leave the edit to the author (the comment may go on).
        std::string rest;
        for (const auto& k : kept) rest += (rest.empty() ? "" : ", ") + k;
        auto& d =
            unused.report(key.first, comment->pos, "unused `noqa` code " + listed + ": no finding of it on this line");
        unused.attach_fix(d, "Remove the unused code", Applicability::display_only, "Keep `# noqa: " + rest + "`.");
        map_location(file, d.location, notebook);
        unused_noqa.push_back(std::move(d));
        continue;
      }
      auto& d = unused.report(key.first, comment->pos, "unused `noqa` directive: nothing on this line is suppressed");
      // Remove the comment and the spaces before it.
      std::string_view text = model.cell(key.first).text;
      std::uint32_t begin = comment->pos.start_byte;
      while (begin > 0 && (text[begin - 1] == ' ' || text[begin - 1] == '\t')) --begin;
      bool whole_line = begin == 0 || text[begin - 1] == '\n';
      Fix& f =
          unused.attach_fix(d, "Remove the directive", whole_line ? Applicability::display_only : Applicability::safe,
                            "Delete `" + std::string(comment->text) + "`.");
      if (!whole_line) SourceContext::add_edit(f, key.first, begin, comment->pos.end_byte, "");
      for (auto& e : d.fix->edits) {
        const pyspark::Place at = model.place(key.first, comment->pos);
        e.range.line = e.range.end_line = at.line;
        e.range.column = at.column;
        e.range.end_column = at.end_column;
        e.range.cell = notebook ? key.first : 0;
        map_location(file, e.range, notebook);
      }
      map_location(file, d.location, notebook);
      unused_noqa.push_back(std::move(d));
    }
  }
  // The analysis is done: its memory goes before the quoted lines are copied out.
  model = pyspark::SourceModel();
  // The kept findings move to the result's list, reserved at its final size; each leaves `found` as
  // it moves. Done after the model is freed, as the two together were the peak of a large file.
  result.diagnostics.reserve(result.diagnostics.size() + kept + unused_noqa.size());
  const std::size_t first_found = result.diagnostics.size();
  while (!found.empty()) {
    if (found.front().rule != nullptr) result.diagnostics.push_back(std::move(found.front()));
    found.pop_front();
  }
  std::move(unused_noqa.begin(), unused_noqa.end(), std::back_inserter(result.diagnostics));
  unused_noqa = {};
  // Rules report in cell coordinates without the path (a copy in every location), set here.
  for (std::size_t i = first_found; i < result.diagnostics.size(); ++i) {
    Diagnostic& d = result.diagnostics[i];
    d.location.path = file.path;
    for (auto& r : d.related) r.location.path = file.path;
    if (d.fix)
      for (auto& e : d.fix->edits) e.range.path = file.path;
  }
  sort_by_location(result.diagnostics);
  // Every line number stays valid; only the lines findings quote keep their text, as in a cached
  // result (a large file's result is then a fraction of it).
  const QuotedLines quoted = quoted_lines(result);
  // The file in the pieces it is held in (a .py file's cell after the byte-order mark in raw, a
  // Databricks notebook's Python cells and what is between them), not copied into one string: that
  // copy was the peak of a large notebook. Only pieces that would split a line are joined.
  std::vector<std::string_view> pieces;
  pyspark::for_each_raw_piece(file, [&](std::string_view p) {
    if (!p.empty()) pieces.push_back(p);
  });
  std::string whole;
  for (std::size_t i = 0; i + 1 < pieces.size(); ++i)
    if (pieces[i].back() != '\n') {  // a .py file's byte-order mark
      whole = pyspark::whole_raw(file);
      pieces = {whole};
      break;
    }
  std::vector<std::size_t> piece_lines;
  std::size_t line_total = 0;
  for (std::string_view p : pieces) line_total += piece_lines.emplace_back(util::line_count(p));
  result.lines.resize(line_total);
  // Only the quoted lines are looked for: from one to the next by memchr, up to the last one.
  std::size_t before = 0;  // lines in the pieces before
  auto next_quoted = quoted.file_lines.begin();
  for (std::size_t k = 0; k < pieces.size() && next_quoted != quoted.file_lines.end(); before += piece_lines[k++]) {
    const std::string_view piece = pieces[k];
    std::size_t line = 1, at = 0;  // `at` is where line `line` of the piece starts
    for (; next_quoted != quoted.file_lines.end() && *next_quoted <= before + piece_lines[k]; ++next_quoted) {
      if (*next_quoted <= before) continue;  // line 0: not a line
      result.lines.set(*next_quoted - 1, std::string(forward_to_line(piece, *next_quoted - before, line, at)));
    }
  }
  if (notebook) {
    int max_cell = 0;
    for (const auto& c : file.cells) max_cell = std::max(max_cell, c.number);
    result.cell_lines.resize(static_cast<std::size_t>(max_cell));
    for (const auto& c : file.cells) {
      const std::string_view text = c.text;
      auto& lines = result.cell_lines[static_cast<std::size_t>(c.number - 1)];
      lines.resize(util::line_count(text));
      std::size_t line = 1, at = 0;  // as for the file's lines above
      for (auto it = quoted.cell_lines.lower_bound({c.number, 1});
           it != quoted.cell_lines.end() && it->first == c.number && it->second <= lines.size(); ++it) {
        lines.set(it->second - 1, std::string(forward_to_line(text, it->second, line, at)));
      }
    }
  }
  assign_fingerprints(result);
  return result;
}

}  // namespace planlint::lint
