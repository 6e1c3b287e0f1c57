// Diagnosing one application: the event-log rules over its IR, and the plan rules over every plan
// it executed, ranked by the time each finding explains.
#pragma once

#include <string>
#include <vector>

#include "eventlog/model.hpp"
#include "lint/engine.hpp"
#include "lint/eventlog_context.hpp"

namespace planlint::lint {

struct EventLogResult {
  eventlog::Application app;
  std::vector<EventFinding> findings;  // ranked: most explained time first
  std::string io_error;                // nothing could be read
  [[nodiscard]] std::int64_t explained_ms() const;
};

EventLogResult analyze_event_log(const std::string& path, const LintOptions& options);
EventLogResult analyze_application(eventlog::Application app, const LintOptions& options);

// The findings as a lint FileResult: located in the log (or, with a source root that holds the
// call site's file, in the source), for the text, JSON and SARIF reporters.
FileResult to_file_result(const EventLogResult& result, const LintOptions& options);

}  // namespace planlint::lint
