// Shared by the fuzz targets: every report format is written for a result, and JSON and SARIF must
// parse back (a report that is not valid JSON is a bug, whatever the input bytes were).
#pragma once

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <vector>

#include "lint/report.hpp"

namespace planlint::fuzz {

inline void check_reports(const std::vector<lint::FileResult>& results) {
  lint::ReportOptions ro;
  ro.tool_version = "fuzz";
  (void)lint::render_text(results, ro);
  (void)lint::render_github(results, ro);
  (void)lint::render_statistics(results);
  if (!nlohmann::json::accept(lint::render_json(results, ro))) std::abort();
  if (!nlohmann::json::accept(lint::render_sarif(results, ro))) std::abort();
}

}  // namespace planlint::fuzz
