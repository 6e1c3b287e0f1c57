// Fix application: choose non-overlapping edits, apply them per cell, check the syntax, repeat.
#include "fix/fixer.hpp"

#include "util/files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

#include "pyspark/notebook.hpp"
#include "util/line_diff.hpp"
#include "util/lines.hpp"

namespace planlint::fix {
using namespace planlint::lint;  // the engine re-lints what a fix changed
namespace fs = std::filesystem;

namespace {

bool allowed(const Fix& f, const FixOptions& o) {
  if (f.edits.empty()) return false;
  return f.applicability == Applicability::safe || (o.unsafe && f.applicability == Applicability::unsafe);
}

std::size_t syntax_errors(const FileResult& r) {
  return static_cast<std::size_t>(std::count_if(r.diagnostics.begin(), r.diagnostics.end(),
                                                [](const Diagnostic& d) { return d.rule == &python_syntax_rule(); }));
}

// Apply the fixes' edits to the cells of `text`; nullopt when they cannot be applied cleanly.
std::optional<std::string> apply(const std::string& path, const std::string& text,
                                 const std::vector<const Fix*>& fixes) {
  pyspark::SourceFile file = pyspark::load_source(path, text);
  std::map<int, std::vector<const Edit*>> by_cell;
  for (const Fix* f : fixes)
    for (const auto& e : f->edits) by_cell[e.cell].push_back(&e);
  std::map<int, std::string> new_texts;
  for (auto& [cell_number, edits] : by_cell) {
    const pyspark::Cell* cell = pyspark::find_cell(file, cell_number);
    if (cell == nullptr || cell->language != pyspark::CellLanguage::python) return std::nullopt;
    std::string t = cell->unmasked();
    // Later edits first so earlier offsets stay valid; insertions at one point keep their order.
    std::stable_sort(edits.begin(), edits.end(),
                     [](const Edit* a, const Edit* b) { return a->start_byte > b->start_byte; });
    for (const Edit* e : edits) {
      if (e->end_byte > t.size() || e->start_byte > e->end_byte) return std::nullopt;
      t.replace(e->start_byte, e->end_byte - e->start_byte, e->replacement);
    }
    new_texts[cell_number] = std::move(t);
  }
  return pyspark::rebuild_source(file, new_texts);
}

// Edits of different fixes must not overlap (same cell, intersecting ranges or the same insertion
// point). Occupied ranges per cell, looked up in O(log n).
class Occupied {
 public:
  bool clashes(const Fix& f) const {
    for (const auto& e : f.edits) {
      auto it = ranges_.find(e.cell);
      if (it == ranges_.end()) continue;
      const auto& m = it->second;
      auto next = m.lower_bound(e.start_byte);
      if (next != m.end() && (next->first < e.end_byte || next->first == e.start_byte)) return true;
      if (next != m.begin() && std::prev(next)->second > e.start_byte) return true;
    }
    return false;
  }
  void add(const Fix& f) {
    for (const auto& e : f.edits) ranges_[e.cell][e.start_byte] = std::max(e.end_byte, e.start_byte);
  }

 private:
  std::map<int, std::map<std::uint32_t, std::uint32_t>> ranges_;
};

std::string eol_of(const std::string& text) { return text.find("\r\n") != std::string::npos ? "\r\n" : "\n"; }

}  // namespace

RoundResult apply_round(const std::string& path, const std::string& text, const std::vector<Fix>& fixes,
                        const LintOptions& options, std::optional<std::size_t> current_syntax_errors) {
  RoundResult out;
  std::size_t base_errors =
      current_syntax_errors ? *current_syntax_errors : syntax_errors(lint_source_text(path, text, options));
  std::vector<std::size_t> chosen;
  Occupied occupied;
  for (std::size_t i = 0; i < fixes.size(); ++i) {
    if (fixes[i].edits.empty() || occupied.clashes(fixes[i])) continue;
    occupied.add(fixes[i]);
    chosen.push_back(i);
  }
  auto pointers = [&](const std::vector<std::size_t>& idx) {
    std::vector<const Fix*> p;
    p.reserve(idx.size());
    for (std::size_t i : idx) p.push_back(&fixes[i]);
    return p;
  };
  auto next = chosen.empty() ? std::optional<std::string>(text) : apply(path, text, pointers(chosen));
  std::optional<FileResult> lint;
  if (next) lint = lint_source_text(path, *next, options);
  if (!next || syntax_errors(*lint) > base_errors) {
    // Find the culprits one by one; keep the rest.
    std::vector<std::size_t> good;
    for (std::size_t i : chosen) {
      auto one = apply(path, text, {&fixes[i]});
      if (one && syntax_errors(lint_source_text(path, *one, options)) <= base_errors)
        good.push_back(i);
      else
        out.refused.push_back(i);
    }
    chosen = good;
    next = chosen.empty() ? std::optional<std::string>(text) : apply(path, text, pointers(chosen));
    if (!next) {
      next = text;
      chosen.clear();
    }
    lint = lint_source_text(path, *next, options);
  }
  out.text = std::move(*next);
  out.lint = std::move(*lint);
  out.applied = std::move(chosen);
  return out;
}

FixOutcome fix_text(const std::string& path, const std::string& text, const LintOptions& options,
                    const FixOptions& fix_options) {
  FixOutcome out;
  out.original = text;
  std::string current = text;
  std::set<std::string> refused;  // fingerprints of fixes dropped for breaking the syntax
  if (!is_source_path(path)) {
    out.fixed = text;
    out.remaining = lint_plan_text(path, text, options);
    return out;
  }
  if (cr_only_line_endings(text)) {
    // Fixed as LF text, written back with the file's CR line endings (same length, same offsets).
    std::string lf = text;
    std::replace(lf.begin(), lf.end(), '\r', '\n');
    FixOutcome inner = fix_text(path, lf, options, fix_options);
    std::replace(inner.fixed.begin(), inner.fixed.end(), '\n', '\r');
    inner.original = text;
    return inner;
  }
  // Inserted lines take the file's line endings; a notebook's are those of its cells' strings (a
  // notebook saved with CRLF still holds "...\n" in its source strings).
  const bool jupyter = path.size() >= 6 && path.compare(path.size() - 6, 6, ".ipynb") == 0;
  std::string eol = jupyter ? "\n" : eol_of(text);
  FileResult r = lint_source_text(path, current, options);
  for (int round = 0; round < fix_options.max_rounds; ++round) {
    std::vector<const Diagnostic*> owners;
    std::vector<Fix> adjusted;
    adjusted.reserve(r.diagnostics.size());
    for (const auto& d : r.diagnostics) {
      if (!d.fix || !allowed(*d.fix, fix_options) || refused.count(d.fingerprint.str()) != 0) continue;
      Fix f = *d.fix;
      if (eol == "\r\n")  // keep the file's line endings in inserted text
        for (auto& e : f.edits) {
          std::string rep;
          for (char c : e.replacement) rep += c == '\n' ? std::string("\r\n") : std::string(1, c);
          e.replacement = rep;
        }
      adjusted.push_back(std::move(f));
      owners.push_back(&d);
    }
    if (adjusted.empty()) break;
    // `r` is the lint of `current`: no need to lint it again for its syntax errors.
    RoundResult round_result = apply_round(path, current, adjusted, options, syntax_errors(r));
    for (std::size_t i : round_result.refused) {
      refused.insert(owners[i]->fingerprint.str());
      out.dropped.push_back(fmt::format("{}:{}: {}: fix \"{}\" would leave the file with a syntax error; not applied",
                                        owners[i]->location.line, owners[i]->location.column, owners[i]->rule->name,
                                        adjusted[i].title));
    }
    if (round_result.text == current) {
      if (round_result.refused.empty()) break;
      continue;  // everything chosen was refused: try the fixes that were left out
    }
    out.applied += static_cast<int>(round_result.applied.size());
    current = std::move(round_result.text);
    r = std::move(round_result.lint);
  }
  out.fixed = current;
  out.remaining = std::move(r);
  return out;
}

std::string write_file_atomically(const std::string& path, const std::string& content) {
  return util::replace_file_contents(path, content);
}

namespace {}  // namespace

std::string unified_diff(const std::string& path, const std::string& before, const std::string& after) {
  if (before == after) return {};
  auto a = util::lines_keep_eol(before), b = util::lines_keep_eol(after);
  std::vector<bool> ka, kb;
  util::diff_lines(a, b, ka, kb);
  // Walk both sides, emitting ops: ' ' keep, '-' delete, '+' insert.
  struct Op {
    char kind;
    std::size_t ai, bi;
  };
  std::vector<Op> ops;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && !ka[i]) {
      ops.push_back({'-', i++, j});
    } else if (j < b.size() && !kb[j]) {
      ops.push_back({'+', i, j++});
    } else {
      ops.push_back({' ', i++, j++});
    }
  }
  bool absolute = !path.empty() && path.front() == '/';
  std::string out =
      (absolute ? "--- " + path : "--- a/" + path) + "\n" + (absolute ? "+++ " + path : "+++ b/" + path) + "\n";
  const std::size_t context = 3;
  std::size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].kind == ' ') ++k;
    if (k == ops.size()) break;
    std::size_t start = k >= context ? k - context : 0;
    std::size_t end = k;
    while (end < ops.size()) {
      if (ops[end].kind != ' ') {
        ++end;
        continue;
      }
      std::size_t run = end;
      while (run < ops.size() && ops[run].kind == ' ') ++run;
      if (run == ops.size() || run - end > 2 * context) {
        end = std::min(ops.size(), end + context);
        break;
      }
      end = run;
    }
    std::size_t a_start = ops[start].ai, b_start = ops[start].bi, a_len = 0, b_len = 0;
    std::string body;
    for (std::size_t t = start; t < end; ++t) {
      const Op& o = ops[t];
      const std::string_view line = o.kind == '+' ? b[o.bi] : a[o.ai];
      if (o.kind != '+') ++a_len;
      if (o.kind != '-') ++b_len;
      body += o.kind;
      body += line;
      if (line.empty() || line.back() != '\n') body += "\n\\ No newline at end of file\n";
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_len ? a_start + 1 : a_start, a_len, b_len ? b_start + 1 : b_start,
                       b_len);
    out += body;
    k = end;
  }
  return out;
}

}  // namespace planlint::fix
