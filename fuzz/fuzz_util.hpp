// Shared by the fuzz targets: every report format is written for a result, and JSON and SARIF must
// parse back (a report that is not valid JSON is a bug, whatever the input bytes were).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace planlint::fuzz {

// A per-process scratch folder for targets that hand planlint a file, as it reads inputs.
inline std::filesystem::path scratch() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("planlint-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline void check_reports(const std::vector<lint::FileResult>& results) {
  report::ReportOptions ro;
  ro.tool_version = "fuzz";
  (void)report::render_text(results, ro);
  (void)report::render_github(results, ro);
  (void)report::render_statistics(results);
  if (!nlohmann::json::accept(report::render_json(results, ro))) std::abort();
  // SARIF without a finding or an error is the same document for every input (about 160 KB of rule
  // metadata): parsing it back each time made the plan and source targets run a few inputs a second.
  bool any = std::any_of(results.begin(), results.end(),
                         [](const lint::FileResult& r) { return !r.diagnostics.empty() || !r.io_error.empty(); });
  static bool checked_once = false;
  if (any || !checked_once) {
    checked_once = true;
    if (!nlohmann::json::accept(report::render_sarif(results, ro))) std::abort();
  }
}

}  // namespace planlint::fuzz
