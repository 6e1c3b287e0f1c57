// The CLI's pieces below argument parsing: reading inputs, linting them, writing reports, subcommands.
#pragma once

#include <string>
#include <vector>

#include "lint/cache.hpp"
#include "lint/engine.hpp"

namespace planlint::cli {

struct Input {
  std::string path;
  bool from_stdin = false;
  lint::LintOptions options;  // the file's configuration with the command line on top
  std::string config_error;   // its configuration could not be read: reported instead of linting
};

// Lint every input on `jobs` threads; results come back in input order. With a cache, files whose
// bytes and options it has seen are not analysed again (stdin and event logs always are).
std::vector<lint::FileResult> lint_inputs(const std::vector<Input>& inputs, unsigned jobs,
                                          const lint::ResultCache* cache = nullptr);

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
std::vector<lint::FileResult> fix_inputs(const std::vector<Input>& inputs, FixRun& run);

// Write to FILE through a temporary file and a rename, so a crash never leaves half a report; "" is stdout.
bool write_output(const std::string& path, const std::string& text);

// Baselines: the fingerprints of known findings. Writing records them; applying drops the findings
// a baseline already holds (one per recorded entry), so only new ones are reported.
std::string write_baseline(const std::string& path, const std::vector<lint::FileResult>& results);
std::string apply_baseline(const std::string& path, std::vector<lint::FileResult>& results);

int run_parse(const std::string& file, const std::string& dump);
int run_rules(const std::string& format);
int run_rule(const std::string& name);

}  // namespace planlint::cli
