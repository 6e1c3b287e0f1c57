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

// Write to FILE through a temporary file and a rename, so a crash never leaves half a report; "" is stdout.
bool write_output(const std::string& path, const std::string& text);

int run_parse(const std::string& file, const std::string& dump);
int run_rules(const std::string& format);
int run_rule(const std::string& name);

}  // namespace planlint::cli
