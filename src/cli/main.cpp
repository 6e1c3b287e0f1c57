// planlint's command line: the application (CLI11) with the lint options and one subcommand per
// file (command.hpp), then the exit status: 0 clean, 1 findings, 2 error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.hpp"

namespace planlint::cli {

std::vector<std::string> split_commas(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const auto& s : in) {
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
      if (!item.empty()) out.push_back(item);
  }
  return out;
}

bool known_selectors(const std::vector<std::string>& unknown) {
  if (unknown.empty()) return true;
  std::cerr << "planlint: error: unknown rule selector '" << unknown.front() << "' (see `planlint rules`)\n";
  return false;
}

}  // namespace planlint::cli

namespace {

constexpr const char* kFooter = R"(Examples:
  planlint plan.txt                     lint a saved df.explain(True) output
  planlint jobs/ notebooks/             lint PySpark sources and notebooks
  pbpaste | planlint - --stdin-filename q1.plan
  planlint --format sarif -o planlint.sarif plans/
  planlint --select redundant-shuffle,missing-broadcast plan.txt
  planlint --select SPK2 --min-impact high jobs/   one family (SPK2: Python and the driver), costly rules only
  planlint --warn cache-without-unpersist --fail-on error jobs/   report, but fail only on what matters
  planlint rules                        list every rule;  planlint rule NAME  prints its documentation
  planlint eventlog app.zstd            diagnose a finished application from its event log
  planlint diff main.plan pr.plan       what a change did to the plan (a merge gate for plan changes)

Fixes: --fix applies safe fixes, --unsafe-fixes adds the unsafe ones, --diff shows them without writing.
Suppress a finding with `# noqa: RULE` at the end of its line, or `# planlint: noqa: RULE` for a file.

Rule families (select them by prefix): SPK0 planlint itself, SPK1 shuffles and joins, SPK2 Python and the
driver, SPK3 configuration, SPK4 reading and writing, SPK5 lineage and caching, SPK6 Photon, SPK7 plan changes
(planlint diff), SPK9 event-log
diagnoses. The ids before 0.2 (PL001...) are still understood in selectors and noqa comments.

Exit status: 0 no findings (or only advisory ones), 1 findings, 2 usage, configuration or I/O error.
Info findings are advisory (the code does not show the cost): reported, but they make the status 1
only with --fail-on info. Findings of --warn rules and findings below --fail-on never make it 1.)";

int run(int argc, char** argv) {
  CLI::App app{
      "planlint: find Spark performance problems before they cost money, in query plans (explain output) and\n"
      "in PySpark code (.py files, Jupyter .ipynb, Databricks and Fabric notebooks, Synapse notebook/*.json).\n"
      "PATH is a file, a directory (searched for *.py, *.ipynb, notebook/*.json, *.txt, *.plan, *.explain; .git,\n"
      "virtualenvs and node_modules skipped) or '-' for stdin (a plan unless --stdin-filename ends in .py or\n"
      ".ipynb).\n"
      "Configuration: [tool.planlint] in pyproject.toml, or planlint.toml / .planlint.toml, the closest above\n"
      "each file."};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("planlint ") + PLANLINT_VERSION);
  auto lint = planlint::cli::add_lint_options(app);
  // In the order --help lists them.
  const std::vector<planlint::cli::Subcommand> subcommands{
      planlint::cli::add_parse_command(app), planlint::cli::add_diff_command(app),
      planlint::cli::add_rules_command(app), planlint::cli::add_rule_command(app),
      planlint::cli::add_eventlog_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  for (const auto& s : subcommands)
    if (*s.app) return s.run();
  return lint();
}

}  // namespace

int main(int argc, char** argv) {
  int rc = 2;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "planlint: internal error: " << e.what() << "\n";
  }
  // Whatever the command printed (a report, a dump, help, the fixed code of standard input) must
  // have reached standard output: a full disk or /dev/full is an error, never a quiet success.
  std::cout.flush();
  const bool lost = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (lost && rc != 2) {
    // (errno is not given: later calls may have set it since the write that failed.)
    std::cerr << "planlint: error: cannot write to standard output (a full disk, a closed pipe?)\n";
    rc = 2;
  }
  return rc;
}
