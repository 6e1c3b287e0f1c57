// `planlint diff BEFORE AFTER`: what a change did to the plans of two plan files or two event logs.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/pipeline.hpp"
#include "eventlog/codec.hpp"
#include "eventlog/reader.hpp"
#include "lint/diff_engine.hpp"
#include "lint/rule.hpp"
#include "report/plan_graph.hpp"
#include "report/report.hpp"

namespace planlint::cli {

namespace {

struct DiffRun {
  std::string before, after;
  std::string format = "text";
  std::string output;  // "" : stdout
  bool exit_zero = false, quiet = false, color = false;
  lint::LintOptions options;  // fail_on defaults to warning: improvements are information
  std::string tool_version;
};

int run_diff(const DiffRun& run) {
  std::string before_text, after_text, error;
  if (run.before == "-" && run.after == "-") {
    std::cerr << "planlint: error: only one of BEFORE and AFTER can be '-' (standard input)\n";
    return 2;
  }
  // Event logs (plain, compressed or rolling folders) are read by the event-log frontend, plans here.
  bool logs[2] = {run.before != "-" && eventlog::is_event_log_path(run.before),
                  run.after != "-" && eventlog::is_event_log_path(run.after)};
  int side = 0;
  for (auto [path, text] : {std::pair{&run.before, &before_text}, std::pair{&run.after, &after_text}})
    if (!logs[side++] && !read_all({*path, *path == "-"}, *text, error)) {
      std::cerr << "planlint: error: " << *path << ": " << error << "\n";
      return 2;
    }
  if (logs[0] != logs[1]) {
    std::cerr << "planlint: error: " << (logs[0] ? run.before : run.after)
              << " is an event log and the other input is not: diff compares two plan files or two event logs\n";
    return 2;
  }
  bool picture = run.format == "dot" || run.format == "html";
  std::vector<lint::DiffedPlan> pairs;
  std::vector<lint::DiffedPlan>* pictures = picture ? &pairs : nullptr;
  lint::PlanDiffResult d = logs[0] ? lint::diff_event_logs(run.before, run.after, run.options, pictures)
                                   : lint::diff_plan_texts(run.before, std::move(before_text), run.after,
                                                           std::move(after_text), run.options, pictures);
  std::vector<report::PlanGraph> graphs;
  graphs.reserve(pairs.size());
  for (auto& p : pairs)
    graphs.push_back(report::diff_graph(*p.after, p.after->plans[p.plan], p.diff, p.findings, std::move(p.title)));
  if (!d.result.io_error.empty()) {
    std::cerr << "planlint: error: " << d.result.path << ": " << d.result.io_error << "\n";
    return 2;
  }
  std::size_t failing = 0;
  for (auto& diag : d.result.diagnostics) {
    diag.fails = run.options.fails(diag);
    failing += diag.fails ? 1 : 0;
  }
  std::size_t n = d.result.diagnostics.size();
  auto plural = [](std::size_t k, const char* one, const char* many) {
    return std::to_string(k) + " " + (k == 1 ? one : many);
  };
  std::string summary;
  if (d.no_plan_change() && n == 0) {
    summary = "No plan change.";
  } else {
    summary = d.no_plan_change()
                  ? std::string("No operator changed")
                  : "Plan changed: " + plural(d.added, "operator", "operators") + " added, " +
                        std::to_string(d.removed) + " removed, " + std::to_string(d.changed) + " changed";
    if (d.executions_before + d.executions_after > 0)
      summary += " over " + plural(d.executions_after, "SQL execution", "SQL executions") + " (" +
                 std::to_string(d.executions_before) + " before)";
    else if (d.plans_before != d.plans_after)
      summary +=
          " (" + plural(d.plans_before, "plan", "plans") + " before, " + std::to_string(d.plans_after) + " after)";
    summary += "; " + plural(n, "finding", "findings");
    if (d.new_findings > 0) summary += " (" + std::to_string(d.new_findings) + " new of plan rules)";
    summary += ", " + std::to_string(failing) + " failing the diff.";
  }
  std::string out;
  if (picture) {
    out = run.format == "dot" ? report::render_dot(graphs)
                              : report::render_html(graphs, "planlint diff " + run.before + " " + run.after, summary);
    if (!write_output(run.output, out)) return 2;
    return failing > 0 && !run.exit_zero ? 1 : 0;
  }
  report::ReportOptions ro{run.color, run.tool_version};
  auto reporter = report::make_reporter(run.format, ro);
  if (run.format == "markdown") out += "### planlint diff\n\n" + summary + "\n\n";
  reporter->begin(out);
  reporter->file(d.result, out);
  reporter->end(out);
  if (run.format == "text" && !run.quiet) out += summary + "\n";
  if (!write_output(run.output, out)) return 2;
  return failing > 0 && !run.exit_zero ? 1 : 0;
}

}  // namespace

Subcommand add_diff_command(CLI::App& app) {
  struct Options {
    DiffRun run;
    std::vector<std::string> select, ignore, warn;
    std::string fail_on, color = "auto";
  };
  auto o = std::make_shared<Options>();
  auto* diff_cmd = app.add_subcommand(
      "diff",
      "Compare the plans of BEFORE and AFTER (files of one or several EXPLAIN outputs, paired in order, or two\n"
      "event logs, their SQL executions paired by call site): shuffles\n"
      "added or removed, join strategy changes, Python evaluation added, scans reading more columns, losing\n"
      "pushed or partition filters or reading new tables, partition count changes, and findings of plan rules\n"
      "that are new in AFTER. Operators are matched by shape, not by expression or codegen ids");
  o->run.tool_version = PLANLINT_VERSION;
  o->run.options.fail_on = lint::Severity::warning;
  diff_cmd->add_option("BEFORE", o->run.before, "The plan file or event log before the change ('-' for stdin)")
      ->required();
  diff_cmd->add_option("AFTER", o->run.after, "The plan file or event log after the change")->required();
  diff_cmd->add_option("--format", o->run.format, "Report format (dot and html: AFTER's plans with the changes marked)")
      ->check(CLI::IsMember({"text", "json", "sarif", "github", "markdown", "dot", "html"}))
      ->capture_default_str();
  diff_cmd->add_option("-o,--output", o->run.output, "Write the report to FILE (atomically) instead of stdout");
  diff_cmd->add_option("--select", o->select, "Only these rules (comma-separated ids, names or prefixes)")
      ->delimiter(',')
      ->allow_extra_args(false);
  diff_cmd->add_option("--ignore", o->ignore, "Skip these rules")->delimiter(',')->allow_extra_args(false);
  diff_cmd->add_option("--warn", o->warn, "Report these rules but never fail the diff on them")
      ->delimiter(',')
      ->allow_extra_args(false);
  diff_cmd
      ->add_option("--fail-on", o->fail_on,
                   "The lowest severity that makes the exit status 1: info, warning (the default: regressions, "
                   "not improvements), error")
      ->check(CLI::IsMember({"info", "warning", "error"}));
  diff_cmd->add_option("--color", o->color, "Colour in text output")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  diff_cmd->add_flag("--exit-zero", o->run.exit_zero, "Exit 0 even when the change has a regression");
  diff_cmd->add_flag("-q,--quiet", o->run.quiet, "No summary line");
  diff_cmd->footer(R"(Examples:
  planlint diff main.plan pr.plan                    what the change did to the plan
  planlint diff --format markdown main.plan pr.plan > comment.md
  planlint diff --warn shuffle-added --fail-on warning before.txt after.txt
  planlint diff --format html -o diff.html main.plan pr.plan   the change as a picture
  planlint diff last-week.zstd last-night.zstd       two runs of a job, from their event logs

Exit status: 0 no plan change or no finding that fails the diff (improvements are information), 1 a
regression, 2 an input that cannot be read.)");

  return {diff_cmd, [o] {
            o->run.options.select = split_commas(o->select);
            o->run.options.ignore = split_commas(o->ignore);
            o->run.options.warn = split_commas(o->warn);
            if (!o->fail_on.empty()) o->run.options.fail_on = *lint::parse_severity(o->fail_on);
            if (!known_selectors(lint::unknown_selectors(o->run.options))) return 2;
            o->run.color = o->color == "always" || (o->color == "auto" && o->run.output.empty() &&
                                                    isatty(fileno(stdout)) != 0 && std::getenv("NO_COLOR") == nullptr);
            return run_diff(o->run);
          }};
}

}  // namespace planlint::cli
