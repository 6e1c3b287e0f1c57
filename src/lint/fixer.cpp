// Fix application: choose non-overlapping edits, apply them per cell, check the syntax, repeat.
#include "lint/fixer.hpp"

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
#include "util/lines.hpp"

namespace planlint::lint {
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
  std::string eol = eol_of(text);
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

namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  for (auto l : util::lines_keep_eol(s)) out.emplace_back(l);
  return out;
}

// Myers' O((N+M)D) diff in linear space (the middle-snake bisection of his paper, section 4b, as
// diff-match-patch does it): for each line of a and b whether it is kept. The trace of the plain
// algorithm kept O((N+M)D) memory (10,000 changed lines: 658 MB). A part whose edit distance passes
// kMaxD is replaced whole: a bound on time for files that have little in common.
class LineDiff {
 public:
  LineDiff(const std::vector<std::string>& a, const std::vector<std::string>& b, std::vector<bool>& keep_a,
           std::vector<bool>& keep_b)
      : a_(a), b_(b), keep_a_(keep_a), keep_b_(keep_b) {
    keep_a_.assign(a.size(), false);
    keep_b_.assign(b.size(), false);
    diff(0, static_cast<int>(a.size()), 0, static_cast<int>(b.size()));
  }

 private:
  static constexpr int kMaxD = 4000;

  void keep(int x, int y) {
    keep_a_[static_cast<std::size_t>(x)] = true;
    keep_b_[static_cast<std::size_t>(y)] = true;
  }
  [[nodiscard]] bool same(int x, int y) const {
    return a_[static_cast<std::size_t>(x)] == b_[static_cast<std::size_t>(y)];
  }

  void diff(int a0, int a1, int b0, int b1) {
    while (a0 < a1 && b0 < b1 && same(a0, b0)) keep(a0++, b0++);
    while (a0 < a1 && b0 < b1 && same(a1 - 1, b1 - 1)) keep(--a1, --b1);
    if (a0 == a1 || b0 == b1) return;  // only deletions or only insertions left
    int x = 0, y = 0;
    if (!middle(a0, a1, b0, b1, x, y)) {
      // Too far apart for Myers within kMaxD (thousands of lines fixed): the lines that occur once
      // on each side and in the same order (patience diff's anchors) split it into parts that are
      // near; without any, the part is replaced.
      std::vector<std::pair<int, int>> pairs = anchors(a0, a1, b0, b1);
      for (auto [ax, by] : pairs) {
        diff(a0, ax, b0, by);
        keep(ax, by);
        a0 = ax + 1;
        b0 = by + 1;
      }
      if (!pairs.empty()) diff(a0, a1, b0, b1);
      return;
    }
    if ((x == 0 && y == 0) || (x == a1 - a0 && y == b1 - b0)) return;  // no progress: replaced
    diff(a0, a0 + x, b0, b0 + y);
    diff(a0 + x, a1, b0 + y, b1);
  }

  // The lines found once in a[a0,a1) and once in b[b0,b1), the longest run of them in the same order
  // on both sides (by patience sorting), as (x, y) pairs in order.
  [[nodiscard]] std::vector<std::pair<int, int>> anchors(int a0, int a1, int b0, int b1) const {
    struct Seen {
      int in_a = 0, in_b = 0, x = 0, y = 0;
    };
    std::unordered_map<std::string_view, Seen> seen;
    for (int x = a0; x < a1; ++x) {
      Seen& s = seen[a_[static_cast<std::size_t>(x)]];
      ++s.in_a;
      s.x = x;
    }
    for (int y = b0; y < b1; ++y) {
      auto it = seen.find(b_[static_cast<std::size_t>(y)]);
      if (it == seen.end()) continue;
      ++it->second.in_b;
      it->second.y = y;
    }
    std::vector<std::pair<int, int>> unique;  // in the order of a
    for (int x = a0; x < a1; ++x) {
      const Seen& s = seen[a_[static_cast<std::size_t>(x)]];
      if (s.in_a == 1 && s.in_b == 1) unique.emplace_back(x, s.y);
    }
    // Longest increasing run of y: piles' tops and each element's predecessor.
    std::vector<std::size_t> tops, before(unique.size(), SIZE_MAX);
    for (std::size_t i = 0; i < unique.size(); ++i) {
      auto pile = std::lower_bound(tops.begin(), tops.end(), unique[i].second,
                                   [&](std::size_t t, int y) { return unique[t].second < y; });
      if (pile != tops.begin()) before[i] = *(pile - 1);
      if (pile == tops.end())
        tops.push_back(i);
      else
        *pile = i;
    }
    std::vector<std::pair<int, int>> out;
    for (std::size_t i = tops.empty() ? SIZE_MAX : tops.back(); i != SIZE_MAX; i = before[i]) out.push_back(unique[i]);
    std::reverse(out.begin(), out.end());
    return out;
  }

  // Where a shortest edit script of a[a0,a1) -> b[b0,b1) crosses its middle: (x, y) relative to
  // (a0, b0). False when the two share no line on any path within kMaxD.
  bool middle(int a0, int a1, int b0, int b1, int& out_x, int& out_y) const {
    const int n = a1 - a0, m = b1 - b0;
    const int max_d = std::min((n + m + 1) / 2, kMaxD);
    const int offset = max_d + 1, length = 2 * max_d + 3;
    std::vector<int> v1(static_cast<std::size_t>(length), -1), v2(static_cast<std::size_t>(length), -1);
    const int start = offset + 1;  // the diagonal before d = 0
    v1[static_cast<std::size_t>(start)] = 0;
    v2[static_cast<std::size_t>(start)] = 0;
    const int delta = n - m;
    const bool front = delta % 2 != 0;  // the forward path meets the reverse one on odd deltas
    int k1start = 0, k1end = 0, k2start = 0, k2end = 0;
    auto at = [](std::vector<int>& v, int i) -> int& { return v[static_cast<std::size_t>(i)]; };
    for (int d = 0; d < max_d; ++d) {
      for (int k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
        const int i1 = offset + k1;
        int x1 = k1 == -d || (k1 != d && at(v1, i1 - 1) < at(v1, i1 + 1)) ? at(v1, i1 + 1) : at(v1, i1 - 1) + 1;
        int y1 = x1 - k1;
        while (x1 < n && y1 < m && same(a0 + x1, b0 + y1)) ++x1, ++y1;
        at(v1, i1) = x1;
        if (x1 > n) {
          k1end += 2;
        } else if (y1 > m) {
          k1start += 2;
        } else if (front) {
          const int i2 = offset + delta - k1;
          if (i2 >= 0 && i2 < length && at(v2, i2) != -1 && x1 >= n - at(v2, i2)) {
            out_x = x1;
            out_y = y1;
            return true;
          }
        }
      }
      for (int k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
        const int i2 = offset + k2;
        int x2 = k2 == -d || (k2 != d && at(v2, i2 - 1) < at(v2, i2 + 1)) ? at(v2, i2 + 1) : at(v2, i2 - 1) + 1;
        int y2 = x2 - k2;
        while (x2 < n && y2 < m && same(a1 - x2 - 1, b1 - y2 - 1)) ++x2, ++y2;
        at(v2, i2) = x2;
        if (x2 > n) {
          k2end += 2;
        } else if (y2 > m) {
          k2start += 2;
        } else if (!front) {
          const int i1 = offset + delta - k2;
          if (i1 >= 0 && i1 < length && at(v1, i1) != -1) {
            const int x1 = at(v1, i1);
            const int y1 = offset + x1 - i1;
            if (x1 >= n - x2) {
              out_x = x1;
              out_y = y1;
              return true;
            }
          }
        }
      }
    }
    return false;
  }

  const std::vector<std::string>& a_;
  const std::vector<std::string>& b_;
  std::vector<bool>& keep_a_;
  std::vector<bool>& keep_b_;
};

}  // namespace

std::string unified_diff(const std::string& path, const std::string& before, const std::string& after) {
  if (before == after) return {};
  auto a = lines_of(before), b = lines_of(after);
  std::vector<bool> ka, kb;
  LineDiff(a, b, ka, kb);
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
      const std::string& line = o.kind == '+' ? b[o.bi] : a[o.ai];
      if (o.kind != '+') ++a_len;
      if (o.kind != '-') ++b_len;
      body += o.kind + line;
      if (line.empty() || line.back() != '\n') body += "\n\\ No newline at end of file\n";
    }
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_len ? a_start + 1 : a_start, a_len, b_len ? b_start + 1 : b_start,
                       b_len);
    out += body;
    k = end;
  }
  return out;
}

}  // namespace planlint::lint
