// The CLI's pieces below argument parsing: reading inputs, linting them, writing reports, subcommands.
#pragma once

#include <string>
#include <vector>

#include "lint/engine.hpp"

namespace planlint::cli {

struct Input {
  std::string path;
  bool from_stdin = false;
};

std::vector<lint::FileResult> lint_inputs(const std::vector<Input>& inputs, const lint::LintOptions& options);

struct FixRun {
  bool unsafe = false;
  bool diff_only = false;  // --diff: print what --fix would change, write nothing
  std::string diff;        // the diffs, in input order
  int applied = 0;
  int files_changed = 0;
  std::string stdin_output;  // fixed stdin text, printed instead of the report's findings
};

// --fix / --diff: fix each input, write changed files atomically (not with --diff), and return the
// lint results of the fixed text.
std::vector<lint::FileResult> fix_inputs(const std::vector<Input>& inputs, const lint::LintOptions& options,
                                         FixRun& run);

// Write to FILE through a temporary file and a rename, so a crash never leaves half a report; "" is stdout.
bool write_output(const std::string& path, const std::string& text);

int run_parse(const std::string& file, const std::string& dump);
int run_rules(const std::string& format);
int run_rule(const std::string& name);

}  // namespace planlint::cli
