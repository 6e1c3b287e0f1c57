// The subcommands of the command line, one file each: each adds its options to the application
// (CLI11) and returns what runs it once the arguments are parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace planlint::cli {

struct Subcommand {
  CLI::App* app = nullptr;   // chosen when *app is true after parsing
  std::function<int()> run;  // the exit status
};

Subcommand add_parse_command(CLI::App& app);     // parse_command.cpp
Subcommand add_diff_command(CLI::App& app);      // diff_command.cpp
Subcommand add_rules_command(CLI::App& app);     // rules_command.cpp: `rules`
Subcommand add_rule_command(CLI::App& app);      // rules_command.cpp: `rule NAME`
Subcommand add_eventlog_command(CLI::App& app);  // eventlog_command.cpp
// Linting, the command without a subcommand: its options are the application's own (lint_command.cpp).
std::function<int()> add_lint_options(CLI::App& app);

// "a,b" "c" -> "a" "b" "c" (selectors given with commas or repeated).
std::vector<std::string> split_commas(const std::vector<std::string>& in);
// Says the first unknown rule selector on stderr; false if there was one.
bool known_selectors(const std::vector<std::string>& unknown);

}  // namespace planlint::cli
