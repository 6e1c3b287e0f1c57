// Reporters: turn lint results into text, JSON, SARIF 2.1.0 or GitHub workflow commands.
#pragma once

#include <string>
#include <vector>

#include "lint/engine.hpp"

namespace planlint::lint {

struct ReportOptions {
  bool color = false;
  std::string tool_version;
};

std::string render_text(const std::vector<FileResult>& results, const ReportOptions& options);
std::string render_json(const std::vector<FileResult>& results, const ReportOptions& options);
std::string render_sarif(const std::vector<FileResult>& results, const ReportOptions& options);
std::string render_github(const std::vector<FileResult>& results, const ReportOptions& options);
std::string render_statistics(const std::vector<FileResult>& results);

// JSON output schema version; bump on incompatible changes (documented in docs/json-output.md).
inline constexpr int kJsonSchemaVersion = 1;

}  // namespace planlint::lint
