// `planlint eventlog`: collect the logs, read them in parallel, diagnose, rank, report.
#include "cli/eventlog_command.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/pipeline.hpp"
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

std::optional<std::vector<int>> parse_what_if(const std::string& spec) {
  const std::string key = "executors=";
  if (spec.rfind(key, 0) != 0) return std::nullopt;
  std::vector<int> out;
  for (const auto& item : split_commas({spec.substr(key.size())})) {
    int n = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
    if (ec != std::errc() || end != item.data() + item.size() || n < 1 || n > 100000) return std::nullopt;
    out.push_back(n);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

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
    report = report::render_eventlog_json(ranked, run.tool_version, run.what_if);
  } else if (run.format == "sarif") {
    std::vector<lint::FileResult> files;
    files.reserve(ranked.size());
    for (const auto* r : ranked) files.push_back(lint::to_file_result(*r, run.options));
    report = report::render_sarif(files, report::ReportOptions{false, run.tool_version});
  } else if (run.format == "html") {
    report = report::render_eventlog_html(ranked, run.what_if);
  } else {
    if (ranked.size() > 1) report = report::render_eventlog_ranking(ranked, markdown) + "\n";
    for (const auto* r : ranked) {
      report += report::render_eventlog_summary(*r, markdown);
      if (!run.what_if.empty() && r->io_error.empty())
        report += report::render_eventlog_whatif(*r, run.what_if, run.cost, markdown);
      report += "\n";
    }
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

Subcommand add_eventlog_command(CLI::App& app) {
  struct Options {
    EventLogRun run;
    std::vector<std::string> select, ignore, thresholds, warn;
    std::string min_impact, fail_on, what_if;
  };
  auto o = std::make_shared<Options>();
  auto* ev = app.add_subcommand(
      "eventlog",
      "Diagnose finished Spark applications from their event logs: slowest stages, skew, spill, GC, tiny tasks,\n"
      "partition counts, idle clusters, driver-bound gaps, failures, and the plan rules on every executed plan");
  o->run.tool_version = PLANLINT_VERSION;
  ev->add_option("PATH", o->run.paths,
                 "Event log files (plain, .lz4, .lzf, .snappy, .zstd, .gz; .inprogress too), rolling-log directories "
                 "(eventlog_v2_*), or directories of logs (a history server's)");
  ev->add_option("--format", o->run.format, "Report format")
      ->check(CLI::IsMember({"text", "markdown", "json", "sarif", "html"}))
      ->capture_default_str();
  ev->add_option("-o,--output", o->run.output, "Write the report to FILE (atomically) instead of stdout");
  ev->add_option("-j,--jobs", o->run.jobs, "Read logs in parallel on N threads (default: all cores)")
      ->check(CLI::PositiveNumber);
  ev->add_option("--compare", o->run.compare,
                 "Compare two runs of one job: BEFORE AFTER (stage durations, shuffle, spill, max task, skew, cost)")
      ->expected(2);
  // A finite, non-negative number (CLI::NonNegativeNumber lets NaN through: it compares false).
  const CLI::Validator finite_rate(
      [](const std::string& text) -> std::string {
        double v = 0;
        try {
          std::size_t used = 0;
          v = std::stod(text, &used);
          if (used != text.size()) return "not a number: " + text;
        } catch (const std::exception&) {
          return "not a number: " + text;
        }
        return std::isfinite(v) && v >= 0 && v <= 1e9 ? std::string() : "not a finite, non-negative number: " + text;
      },
      "NUMBER");
  ev->add_option("--what-if", o->what_if,
                 "executors=N,M,...: replay each application's tasks on N, M, ... executors (of the cores each had) "
                 "and print the wall time, node-hours and (with --dbu-rate) cost of each size, with the critical path");
  ev->add_option("--dbu-rate", o->run.cost.dbu_rate,
                 "With --compare or --what-if: DBU per node-hour, for the cost estimate")
      ->check(finite_rate);
  ev->add_option("--nodes", o->run.cost.nodes, "With --compare: nodes billed (default: executor hosts + driver)")
      ->check(CLI::NonNegativeNumber);
  ev->add_option("--photon-multiplier", o->run.cost.photon_multiplier, "DBU rate multiplier of a Photon run")
      ->check(finite_rate)
      ->capture_default_str();
  ev->add_option("--source-root", o->run.options.source_root,
                 "Folder holding the job's source: SARIF findings whose call site (collect at etl.py:42) is a file "
                 "under it are located there");
  ev->add_option("--select", o->select, "Only these rules (comma-separated ids, names or prefixes)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  ev->add_option("--ignore", o->ignore, "Skip these rules")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  ev->add_option("--threshold", o->thresholds,
                 "Override a diagnosis threshold, KEY=VALUE (" + lint::eventlog_threshold_keys() + ")")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  ev->add_option("--min-impact", o->min_impact, "Only diagnoses whose impact is at least this: low, medium, high")
      ->check(CLI::IsMember({"low", "medium", "high"}));
  ev->add_option("--warn", o->warn, "Report these rules but never fail the run on them")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  ev->add_option("--fail-on", o->fail_on, "The lowest severity that makes the exit status 1: info, warning, error")
      ->check(CLI::IsMember({"info", "warning", "error"}));
  ev->add_flag("--exit-zero", o->run.exit_zero, "Exit 0 even when there are diagnoses");
  ev->add_flag("-q,--quiet", o->run.quiet, "No summary line");
  ev->footer(R"(Examples:
  planlint eventlog /dbfs/cluster-logs/eventlog/app-2026.zstd
  planlint eventlog --format markdown app.lz4 > diagnosis.md
  planlint eventlog -j 8 /var/log/spark-history/          rank every application
  planlint eventlog --compare before.zstd after.zstd --dbu-rate 1.5
  planlint eventlog --what-if executors=4,8,16,32 app.zstd   wall time and cost at other sizes

Exit status: 0 no diagnosis, 1 diagnoses, 2 usage error or a log that could not be read.)");
  return {ev, [o, ev] {
            o->run.jobs = ev->count("--jobs") > 0 ? o->run.jobs : std::max(1U, std::thread::hardware_concurrency());
            o->run.options.select = split_commas(o->select);
            o->run.options.ignore = split_commas(o->ignore);
            o->run.options.warn = split_commas(o->warn);
            if (!o->min_impact.empty()) o->run.options.min_impact = *lint::parse_impact(o->min_impact);
            if (!o->fail_on.empty()) o->run.options.fail_on = *lint::parse_severity(o->fail_on);
            if (!known_selectors(lint::unknown_selectors(o->run.options))) return 2;
            for (const auto& kv : o->thresholds)
              if (auto err = lint::set_eventlog_threshold(o->run.options.eventlog, kv); !err.empty()) {
                std::cerr << "planlint: error: --threshold " << kv << ": " << err << "\n";
                return 2;
              }
            if (!o->what_if.empty()) {
              auto counts = parse_what_if(o->what_if);
              if (!counts) {
                std::cerr << "planlint: error: --what-if " << o->what_if
                          << ": expected executors=N[,N...] with N from 1 to 100000\n";
                return 2;
              }
              o->run.what_if = *counts;
              // What a report cannot show is a usage error, not an option silently dropped.
              if (!o->run.compare.empty() || o->run.format == "sarif") {
                std::cerr << "planlint: error: --what-if prints a table of cluster sizes: it goes with the text, "
                             "markdown, json or html report of logs, not with "
                          << (o->run.compare.empty() ? "--format sarif" : "--compare") << "\n";
                return 2;
              }
            }
            if (o->run.paths.empty() && o->run.compare.empty()) {
              std::cerr << "planlint: error: no event log given\n" << ev->help();
              return 2;
            }
            return run_eventlog(o->run);
          }};
}

}  // namespace planlint::cli
