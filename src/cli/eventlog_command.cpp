// `planlint eventlog`: collect the logs, read them in parallel, diagnose, rank, report.
#include "cli/eventlog_command.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/commands.hpp"
#include "eventlog/reader.hpp"
#include "report/report.hpp"
#include "util/memory.hpp"

namespace planlint::cli {

namespace fs = std::filesystem;

std::vector<std::string> collect_event_logs(const std::vector<std::string>& paths, std::vector<std::string>& errors) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::exists(p, ec)) {
      errors.push_back(p + ": no such file or directory");
      continue;
    }
    if (!fs::is_directory(p, ec) || !eventlog::rolling_log_files(p).empty()) {
      out.push_back(p);
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) errors.push_back(p + ": cannot list the folder (" + ec.message() + ")");
    for (; it != end; it.increment(ec)) {
      if (ec) {
        errors.push_back(p + ": cannot list the folder (" + ec.message() + ")");
        break;
      }
      std::string name = it->path().filename().string();
      std::error_code sec;
      if (it->is_directory(sec)) {
        if (name.rfind("eventlog_v2_", 0) == 0 && !eventlog::rolling_log_files(it->path().string()).empty()) {
          found.push_back(it->path().string());
          it.disable_recursion_pending();
        }
        continue;
      }
      if (!it->is_regular_file(sec) || name.empty() || name[0] == '.') continue;
      if (eventlog::is_event_log_path(it->path().string())) found.push_back(it->path().string());
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

namespace {

std::vector<lint::EventLogResult> analyze_all(const std::vector<std::string>& logs, const lint::LintOptions& options,
                                              unsigned jobs) {
  std::vector<lint::EventLogResult> results(logs.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < logs.size(); i = next++) {
      try {
        results[i] = lint::analyze_event_log(logs[i], options);
      } catch (const std::exception& e) {
        results[i].app.path = logs[i];
        results[i].io_error = std::string("internal error: ") + e.what();
      }
    }
  };
  unsigned n = std::max(1U, std::min<unsigned>(jobs, static_cast<unsigned>(logs.size())));
  std::vector<std::thread> pool = util::start_workers(n - 1, worker);
  worker();
  for (auto& t : pool) t.join();
  return results;
}

}  // namespace

int run_eventlog(const EventLogRun& run) {
  std::vector<std::string> errors;
  bool compare = !run.compare.empty();
  std::vector<std::string> logs = compare ? run.compare : collect_event_logs(run.paths, errors);
  for (const auto& e : errors) std::cerr << "planlint: error: " << e << "\n";
  if (logs.empty()) {
    if (errors.empty()) std::cerr << "planlint: error: no event log found under the given paths\n";
    return 2;
  }
  std::vector<lint::EventLogResult> results = analyze_all(logs, run.options, run.jobs);
  bool io_error = !errors.empty();
  std::size_t findings = 0, failing = 0;
  for (auto& r : results) {
    findings += r.findings.size();
    for (auto& f : r.findings) {
      f.diagnostic.fails = run.options.fails(f.diagnostic);
      failing += f.diagnostic.fails ? 1 : 0;
    }
    if (!r.io_error.empty()) {
      io_error = true;
      std::cerr << "planlint: error: " << r.app.path << ": " << r.io_error << "\n";
    }
  }
  bool markdown = run.format == "markdown";
  std::string report;
  if (compare) {
    if (!results[0].io_error.empty() || !results[1].io_error.empty()) return 2;
    report = report::render_eventlog_compare(results[0], results[1], run.cost, markdown);
    if (!write_output(run.output, report)) return 2;
    return 0;
  }
  std::vector<const lint::EventLogResult*> ranked;
  ranked.reserve(results.size());
  for (const auto& r : results) ranked.push_back(&r);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](auto* a, auto* b) { return a->explained_ms() > b->explained_ms(); });
  if (run.format == "json") {
    report = report::render_eventlog_json(ranked, run.tool_version);
  } else if (run.format == "sarif") {
    std::vector<lint::FileResult> files;
    files.reserve(ranked.size());
    for (const auto* r : ranked) files.push_back(lint::to_file_result(*r, run.options));
    report = report::render_sarif(files, report::ReportOptions{false, run.tool_version});
  } else if (run.format == "html") {
    report = report::render_eventlog_html(ranked);
  } else {
    if (ranked.size() > 1) report = report::render_eventlog_ranking(ranked, markdown) + "\n";
    for (const auto* r : ranked) report += report::render_eventlog_summary(*r, markdown) + "\n";
    if (!run.quiet && !markdown)
      report += findings == 0 ? (io_error ? "No diagnosis, but some logs could not be read.\n" : "No diagnosis.\n")
                              : "Found " + std::to_string(findings) + (findings == 1 ? " diagnosis" : " diagnoses") +
                                    " in " + std::to_string(results.size()) +
                                    (results.size() == 1 ? " application.\n" : " applications.\n");
  }
  if (!write_output(run.output, report)) return 2;
  if (io_error) return 2;
  return failing > 0 && !run.exit_zero ? 1 : 0;
}

}  // namespace planlint::cli
