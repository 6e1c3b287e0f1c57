// `planlint eventlog`: diagnose finished applications from their event logs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lint/options.hpp"
#include "report/eventlog.hpp"

namespace planlint::cli {

struct EventLogRun {
  std::vector<std::string> paths;
  std::vector<std::string> compare;  // BEFORE AFTER
  std::string format = "text";       // text, markdown, json, sarif, html
  std::string output;                // "" : stdout
  unsigned jobs = 1;
  bool exit_zero = false;
  bool quiet = false;
  report::CostOptions cost;
  std::vector<int> what_if;  // executor counts to simulate; empty: no what-if table
  lint::LintOptions options;
  std::string tool_version;
};

// The logs under the paths: files as given, rolling-log directories as one log, other
// directories searched (recursively) for files that are event logs. Errors name the path.
std::vector<std::string> collect_event_logs(const std::vector<std::string>& paths, std::vector<std::string>& errors);

int run_eventlog(const EventLogRun& run);

// "executors=4,8,16" -> {4, 8, 16}; nullopt when malformed.
std::optional<std::vector<int>> parse_what_if(const std::string& spec);

}  // namespace planlint::cli
