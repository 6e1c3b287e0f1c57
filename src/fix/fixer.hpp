// Applies fixes: only this touches file text. Rounds of lint + apply until nothing changes, fixes
// that would add a syntax error dropped, results written atomically (temp file + rename).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lint/engine.hpp"

namespace planlint::fix {

using lint::FileResult;
using lint::Fix;
using lint::LintOptions;

struct FixOptions {
  bool unsafe = false;  // also apply unsafe fixes (--unsafe-fixes)
  int max_rounds = 10;
};

struct FixOutcome {
  std::string original;
  std::string fixed;
  int applied = 0;                   // fixes applied over all rounds
  std::vector<std::string> dropped;  // "line:col: rule: why" for fixes refused because they broke the syntax
  FileResult remaining;              // lint of the fixed text
};

// One round: choose non-overlapping fixes in order, apply them, and refuse any fix that adds a
// syntax error (checked together, then one by one when the batch breaks the file).
struct RoundResult {
  std::string text;
  FileResult lint;                   // lint of `text`
  std::vector<std::size_t> applied;  // indices into the fixes
  std::vector<std::size_t> refused;  // indices of fixes that would have broken the syntax
};
// `current_syntax_errors`: python-syntax findings of `text`, when the caller has linted it already.
RoundResult apply_round(const std::string& path, const std::string& text, const std::vector<Fix>& fixes,
                        const LintOptions& options, std::optional<std::size_t> current_syntax_errors = std::nullopt);

// Fix one source file's text (plans have only display-only fixes: nothing to apply).
FixOutcome fix_text(const std::string& path, const std::string& text, const LintOptions& options,
                    const FixOptions& fix_options);

// Replace `path` with `content` through a temporary file in the same folder and a rename,
// keeping the file's permissions. Returns an error message, empty on success.
std::string write_file_atomically(const std::string& path, const std::string& content);

// A unified diff (3 lines of context) from `before` to `after`, labelled a/path and b/path.
std::string unified_diff(const std::string& path, const std::string& before, const std::string& after);

}  // namespace planlint::fix
