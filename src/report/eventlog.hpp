// Reporters for event-log diagnoses: the diagnosis summary (text or Markdown), JSON, HTML, the
// ranked table of many applications, and the before/after comparison with a cost estimate.
#pragma once

#include <string>
#include <vector>

#include "lint/eventlog_engine.hpp"

namespace planlint::report {

using lint::EventLogResult;

// JSON output schema of `planlint eventlog --format json` (docs/eventlog-json.md).
inline constexpr int kEventLogJsonVersion = 1;

std::string render_eventlog_summary(const EventLogResult& r, bool markdown);
// Many applications: one table ranked by explained time, each with its top findings.
std::string render_eventlog_ranking(const std::vector<const EventLogResult*>& ranked, bool markdown);
// what_if: executor counts to simulate (--what-if); the cluster the log ran with is always simulated.
std::string render_eventlog_json(const std::vector<const EventLogResult*>& results, const std::string& tool_version,
                                 const std::vector<int>& what_if = {});
std::string render_eventlog_html(const std::vector<const EventLogResult*>& results,
                                 const std::vector<int>& what_if = {});

struct CostOptions {
  double dbu_rate = 0;  // DBU per node-hour; 0: not given
  int nodes = 0;        // 0: from the log (executor hosts + driver)
  double photon_multiplier = 2.0;
};
// The application replayed on other executor counts: wall time, node-hours and, with a DBU rate, cost.
std::string render_eventlog_whatif(const EventLogResult& r, const std::vector<int>& executors, const CostOptions& cost,
                                   bool markdown);
std::string render_eventlog_compare(const EventLogResult& before, const EventLogResult& after, const CostOptions& cost,
                                    bool markdown);

}  // namespace planlint::report
