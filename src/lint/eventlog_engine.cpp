// The event-log pipeline: read, run the diagnoses, lint the executed plans, rank.
#include "lint/eventlog_engine.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "eventlog/reader.hpp"

namespace planlint::lint {

namespace fs = std::filesystem;

std::int64_t EventLogResult::explained_ms() const {
  std::int64_t total = 0;
  for (const auto& f : findings) total += f.explained_ms;
  std::int64_t run = app.duration_ms();
  return run > 0 ? std::min(total, run) : total;  // findings overlap: never more than the run
}

namespace {

// The plan rules on each executed plan (AQE's final one when it was logged), located at the log
// line of the plan's event; the same finding on the same plan text in many executions is one finding.
void lint_executed_plans(const eventlog::Application& app, const LintOptions& options, std::vector<EventFinding>& out) {
  std::map<std::string, std::pair<std::size_t, int>> seen;  // rule + message -> finding, repeats
  for (const auto& [id, x] : app.sql) {
    if (x.plan.empty()) continue;
    FileResult r = lint_plan_text(app.path, x.plan, options);
    for (auto& d : r.diagnostics) {
      if (d.rule == &plan_syntax_rule())
        continue;  // a plan Spark printed that planlint cannot read is planlint's problem
      std::string key = std::string(d.rule->id) + '\x1f' + d.message;
      if (auto it = seen.find(key); it != seen.end()) {
        ++it->second.second;
        continue;
      }
      EventFinding f;
      std::uint32_t plan_line = d.location.line;
      f.diagnostic = std::move(d);
      f.diagnostic.location = Location{app.path, x.line, 1, x.line, 1};
      f.diagnostic.message += " (SQL execution " + std::to_string(id) + ", plan line " + std::to_string(plan_line) +
                              (x.description.empty() ? "" : ": " + x.description.substr(0, 80)) + ")";
      f.stage_ms = x.ended > x.started ? x.ended - x.started : 0;
      if (f.diagnostic.fix) f.fix = f.diagnostic.fix->title;
      // The execution's description is its call site ("collect at /jobs/etl.py:42") when the code set none.
      if (auto site = parse_call_site(x.description))
        f.diagnostic.related.push_back({Location{site->file, site->line, 1, site->line, 1},
                                        "SQL execution " + std::to_string(id) + " was called from here"});
      seen[key] = {out.size(), 0};
      out.push_back(std::move(f));
    }
  }
  for (const auto& [key, at] : seen) {
    if (at.second == 0) continue;
    out[at.first].diagnostic.message +=
        " and in " + std::to_string(at.second) + " more execution" + (at.second == 1 ? "" : "s");
  }
}

}  // namespace

EventLogResult analyze_application(eventlog::Application app, const LintOptions& options) {
  EventLogResult result;
  result.app = std::move(app);
  std::vector<EventFinding> findings;
  EventLogContext ctx(result.app, options, findings);
  for (const auto& rule : all_rules()) {
    if (rule.eventlog_check == nullptr || !options.enabled(*rule.info)) continue;
    ctx.set_rule(rule.info);
    rule.eventlog_check(ctx);
  }
  std::vector<EventFinding> plan_findings;
  lint_executed_plans(result.app, options, plan_findings);
  // A rule that already judged this execution's plan from what it measured (missing-broadcast from
  // the sizes its exchanges wrote) knows more than its plan-text form: the same join is one finding.
  // Each measured finding stands for one plan-text finding of its rule and plan (in plan order);
  // a join only the plan text shows is still reported.
  std::map<std::pair<const RuleInfo*, std::uint32_t>, int> measured;
  for (const auto& f : findings) ++measured[{f.diagnostic.rule, f.diagnostic.location.line}];
  for (auto& f : plan_findings) {
    auto it = measured.find({f.diagnostic.rule, f.diagnostic.location.line});
    if (it != measured.end() && it->second > 0) {
      --it->second;
      continue;
    }
    findings.push_back(std::move(f));
  }
  if (options.enabled(event_log_syntax_rule())) {
    for (const auto& p : result.app.problems) {
      if (p.line == 0) continue;
      EventFinding f;
      f.diagnostic = syntax_diagnostic(event_log_syntax_rule(), result.app.path, p.line, 1, p.message);
      findings.push_back(std::move(f));
    }
  }
  std::stable_sort(findings.begin(), findings.end(), [](const EventFinding& a, const EventFinding& b) {
    return std::tie(b.explained_ms, b.stage_ms) < std::tie(a.explained_ms, a.stage_ms);
  });
  result.findings = std::move(findings);
  return result;
}

EventLogResult analyze_event_log(const std::string& path, const LintOptions& options) {
  std::string io_error;
  eventlog::Application app = eventlog::read_event_log(path, io_error);
  EventLogResult result = analyze_application(std::move(app), options);
  result.io_error = std::move(io_error);
  if (!result.io_error.empty()) result.findings.clear();  // not an event log: its lines are not findings
  return result;
}

namespace {

// The call site's file under the source root: the recorded path as it is, then ever shorter tails
// of it ("/cluster/jobs/etl.py" -> "jobs/etl.py" -> "etl.py") under the root.
std::optional<std::string> find_source(const std::string& recorded, const std::string& root) {
  std::error_code ec;
  if (root.empty()) return std::nullopt;
  fs::path p(recorded);
  std::vector<fs::path> parts(p.begin(), p.end());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    fs::path tail;
    for (std::size_t j = i; j < parts.size(); ++j)
      if (parts[j] != "/") tail /= parts[j];
    if (tail.empty()) continue;
    fs::path candidate = fs::path(root) / tail;
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
  }
  return std::nullopt;
}

}  // namespace

FileResult to_file_result(const EventLogResult& result, const LintOptions& options) {
  FileResult r;
  r.path = result.app.path;
  r.io_error = result.io_error;
  for (const auto& f : result.findings) {
    Diagnostic d = f.diagnostic;
    for (auto& rel : d.related) {
      auto found = find_source(rel.location.path, options.source_root);
      if (!found) continue;
      // The finding moves to the code that caused it; the log line stays as a related location.
      rel.location.path = *found;
      std::swap(rel.location, d.location);
      rel.message = "stage in the event log";
      break;
    }
    limit_related(d);
    r.diagnostics.push_back(std::move(d));
  }
  for (const auto& p : result.app.problems) {
    if (p.line == 0) continue;
    r.diagnostics.push_back(syntax_diagnostic(event_log_syntax_rule(), result.app.path, p.line, 1, p.message));
  }
  std::stable_sort(r.diagnostics.begin(), r.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.location.path, a.location.line) < std::tie(b.location.path, b.location.line);
  });
  assign_fingerprints(r);
  return r;
}

}  // namespace planlint::lint
