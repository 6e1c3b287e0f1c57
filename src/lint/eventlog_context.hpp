// What an event-log rule sees: one application's IR, the thresholds, and a way to report a
// diagnosis with the stage time it explains.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "eventlog/model.hpp"
#include "lint/diagnostic.hpp"
#include "lint/options.hpp"
#include "lint/rule.hpp"

namespace planlint::lint {

// A diagnosis of a finished application: the finding, where in the log (and the code) it is, and
// how much time it explains.
struct EventFinding {
  Diagnostic diagnostic;
  int stage = -1;                 // -1: about the application
  std::int64_t stage_ms = 0;      // wall time of the stages it is about
  std::int64_t explained_ms = 0;  // the estimate of avoidable time (each rule's doc says how)
  std::string fix;                // what to change, one sentence
};

class EventLogContext {
 public:
  EventLogContext(const eventlog::Application& app, const LintOptions& options, std::vector<EventFinding>& out)
      : app_(app), options_(options), out_(out) {}
  [[nodiscard]] const eventlog::Application& app() const { return app_; }
  [[nodiscard]] const LintOptions& options() const { return options_; }
  [[nodiscard]] const EventLogThresholds& thresholds() const { return options_.eventlog; }
  void set_rule(const RuleInfo* rule) { rule_ = rule; }

  // The cores the application had (at its widest), at least 1.
  [[nodiscard]] int cores() const;
  // The physical plan of the SQL execution a stage ran for, or "".
  [[nodiscard]] const std::string& plan_of(const eventlog::Stage& s) const;

  EventFinding& report_stage(const eventlog::Stage& s, std::string message, std::int64_t explained_ms, std::string fix);
  EventFinding& report_app(std::uint32_t line, std::string message, std::int64_t explained_ms, std::string fix);

 private:
  const eventlog::Application& app_;
  const LintOptions& options_;
  std::vector<EventFinding>& out_;
  const RuleInfo* rule_ = nullptr;
};

// "collect at /jobs/etl.py:42" -> {"/jobs/etl.py", 42}; nullopt for Spark's own frames
// (NativeMethodAccessorImpl.java:0) and names without a file.
struct CallSite {
  std::string file;
  std::uint32_t line = 0;
};
std::optional<CallSite> parse_call_site(const std::string& stage_name);

// Milliseconds and bytes as a report prints them: "1 h 02 min", "3.4 s", "1.2 GiB".
std::string format_ms(std::int64_t ms);
// "1 job", "3 jobs"; `many` when the plural is not `one` + "s" ("1 copy", "2 copies").
std::string counted(std::uint64_t n, std::string_view one, std::string_view many = {});
std::string format_bytes(std::uint64_t bytes);

}  // namespace planlint::lint
