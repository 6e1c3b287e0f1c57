// Linting, the command without a subcommand: PATHs (files, folders, '-') with their configuration,
// linted on worker threads (or fixed), reported as they finish; exit 0 clean, 1 findings, 2 error.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cli/baseline.hpp"
#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/pipeline.hpp"
#include "cli/walk.hpp"
#include "lint/config.hpp"
#include "lint/engine.hpp"
#include "lint/project_version.hpp"
#include "plan/plan.hpp"
#include "report/plan_graph.hpp"
#include "report/report.hpp"
#include "util/files.hpp"

namespace planlint::cli {
namespace fs = std::filesystem;

namespace {

// By the extension, as fs::path::extension() reads it (none for ".py" itself), without building a path.
bool is_lintable(std::string_view p) {
  std::string_view name = p.substr(p.rfind('/') + 1);
  auto dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || name == "..") return false;
  std::string_view e = name.substr(dot);
  // .json: a Synapse workspace's notebook/<name>.json (the folder is checked when the file is found).
  return e == ".txt" || e == ".plan" || e == ".explain" || e == ".py" || e == ".ipynb" || e == ".json";
}

// --format dot / html: the plans of the inputs as pictures with their findings (PySpark sources are
// skipped with a warning). Exit status as for a lint run.
int run_pictures(const std::vector<Input>& inputs, const std::string& format, const std::string& output) {
  std::vector<report::PlanGraph> graphs;
  std::size_t findings = 0, failing = 0;
  bool error = false;
  for (const auto& in : inputs) {
    if (lint::is_source_path(in.path)) {
      std::cerr << "planlint: warning: " << in.path << ": --format " << format
                << " draws plans; PySpark sources have no picture (use another format)\n";
      continue;
    }
    std::string text, why;
    if (!read_all(in, text, why)) {
      std::cerr << "planlint: error: " << in.path << ": " << why << "\n";
      error = true;
      continue;
    }
    lint::FileResult r = lint::lint_plan_text(in.path, text, in.options());
    for (auto& d : r.diagnostics) {
      d.fails = in.options().fails(d);
      failing += d.fails ? 1 : 0;
    }
    findings += r.diagnostics.size();
    auto doc = plan::parse_document(std::move(text), in.path);
    for (auto& g : report::plan_graphs(doc, r.diagnostics)) graphs.push_back(std::move(g));
  }
  std::string summary = std::to_string(findings) + (findings == 1 ? " finding" : " findings") + " in " +
                        std::to_string(graphs.size()) + (graphs.size() == 1 ? " plan" : " plans");
  std::string out = format == "dot" ? report::render_dot(graphs) : report::render_html(graphs, "planlint", summary);
  if (!write_output(output, out)) return 2;
  if (error) return 2;
  return failing > 0 ? 1 : 0;
}

struct LintArgs {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string output;
  std::vector<std::string> select, ignore, extend_select;
  std::string stdin_filename;
  std::string color = "auto";
  std::string threshold;
  std::string min_impact, fail_on;
  std::vector<std::string> warn;
  bool exit_zero = false, quiet = false, statistics = false, no_cache = false;
  std::string cache_dir = ".planlint_cache";
  bool fix = false, unsafe_fixes = false, diff = false, isolated = false;
  std::string options_target;
  std::string config_file, baseline, write_baseline;
  unsigned jobs = std::max(1U, std::thread::hardware_concurrency());
};

int run_lint(CLI::App& app, LintArgs& a) {
  auto& paths = a.paths;
  auto& format = a.format;
  auto& output = a.output;
  auto& select = a.select;
  auto& ignore = a.ignore;
  auto& extend_select = a.extend_select;
  auto& stdin_filename = a.stdin_filename;
  auto& color = a.color;
  auto& threshold = a.threshold;
  auto& min_impact = a.min_impact;
  auto& fail_on = a.fail_on;
  auto& warn = a.warn;
  auto& exit_zero = a.exit_zero;
  auto& quiet = a.quiet;
  auto& statistics = a.statistics;
  auto& no_cache = a.no_cache;
  auto& cache_dir = a.cache_dir;
  auto& fix = a.fix;
  auto& unsafe_fixes = a.unsafe_fixes;
  auto& diff = a.diff;
  auto& isolated = a.isolated;
  auto& options_target = a.options_target;
  auto& config_file = a.config_file;
  auto& baseline = a.baseline;
  auto& write_baseline = a.write_baseline;
  auto& jobs = a.jobs;
  lint::LintOptions options;
  options.select = split_commas(select);
  options.extend_select = split_commas(extend_select);
  options.ignore = split_commas(ignore);
  if (!options_target.empty() && !lint::is_spark_version(options_target)) {
    std::cerr << "planlint: error: --target-spark-version: '" << options_target
              << "' is not a Spark version (e.g. 3.5)\n";
    return 2;
  }
  options.target_spark_version = options_target;
  options.warn = split_commas(warn);
  if (!min_impact.empty()) options.min_impact = *lint::parse_impact(min_impact);
  if (!fail_on.empty()) {
    options.fail_on = *lint::parse_severity(fail_on);
    options.fail_on_given = true;
  }
  if (!known_selectors(lint::unknown_selectors(options))) return 2;
  if (!threshold.empty()) {
    auto bytes = lint::parse_size(threshold);
    if (!bytes) {
      std::cerr << "planlint: error: --broadcast-threshold: '" << threshold << "' is not a size (e.g. 10MB)\n";
      return 2;
    }
    options.broadcast_threshold_bytes = *bytes;
  }
  if (paths.empty()) {
    std::cerr << "planlint: error: no PATH given (use '-' to read stdin)\n" << app.help();
    return 2;
  }

  // Configuration: --config for everything, else the closest file above each input. Each file is read
  // once (its errors reported once), and each folder looked up once.
  std::vector<lint::ConfigError> config_errors;
  struct LoadedConfig {
    std::optional<lint::Config> config;
    std::string error;  // the first error of the file: its inputs are not linted
  };
  std::unordered_map<std::string, LoadedConfig> config_by_file;
  lint::ConfigFinder finder;
  std::optional<lint::Config> forced;
  if (!config_file.empty() && !isolated) {
    forced = lint::load_config(config_file, config_errors);
    if (!forced && config_errors.empty())
      config_errors.push_back({config_file, 0, 0, "no [tool.planlint] table in this pyproject.toml"});
  }
  // By the folder part of input names as given ("jobs/", "" for the current folder); files named with
  // the same folder part as the last one share its lookup without a search.
  std::unordered_map<std::string, const LoadedConfig*> config_by_folder_part;
  std::string last_folder_part;
  const LoadedConfig* last_loaded = nullptr;
  bool have_last = false;
  auto loaded_for = [&](const std::string& file) -> const LoadedConfig* {
    std::string_view folder_part(file);
    folder_part = folder_part.substr(0, folder_part.rfind('/') + 1);
    if (have_last && folder_part == last_folder_part) return last_loaded;
    last_folder_part = folder_part;
    have_last = true;
    if (auto known = config_by_folder_part.find(last_folder_part); known != config_by_folder_part.end())
      return last_loaded = known->second;
    last_loaded = nullptr;
    std::string_view folder = folder_part.size() > 1 ? folder_part.substr(0, folder_part.size() - 1)
                              : folder_part.empty()  ? std::string_view(".")
                                                     : folder_part;  // "/"
    if (auto found = finder.find(fs::path(folder))) {
      auto [it, fresh] = config_by_file.try_emplace(found->native());
      if (fresh) {
        std::size_t before = config_errors.size();
        it->second.config = lint::load_config(*found, config_errors);
        if (config_errors.size() > before) it->second.error = config_errors[before].text();
        // Said at once, before the files it keeps from being linted (this may be the walk's thread).
        std::string said;
        for (std::size_t e = before; e < config_errors.size(); ++e)
          said += "planlint: error: " + config_errors[e].text() + "\n";
        std::cerr << said;
      }
      last_loaded = &it->second;
    }
    config_by_folder_part.emplace(last_folder_part, last_loaded);
    return last_loaded;
  };
  auto config_for = [&](const std::string& file) -> const lint::Config* {
    if (isolated) return nullptr;
    if (forced) return &*forced;
    const LoadedConfig* loaded = loaded_for(file);
    return loaded != nullptr && loaded->config ? &*loaded->config : nullptr;
  };
  // Options are shared: the command line's by files without a configuration, a configuration's by its
  // files when it has no per-file ignores.
  auto command_line_options = std::make_shared<const lint::LintOptions>(options);
  std::unordered_map<const lint::Config*, std::shared_ptr<const lint::LintOptions>> options_of_config;
  // The pinned Spark version of each folder (under its configuration's root), and the options that
  // carry it, shared like the others: (the command line's or a configuration's options, version) ->
  // the same with that target.
  lint::ProjectVersionFinder project_versions;
  std::unordered_map<std::string, std::optional<lint::PinnedSpark>> pin_by_folder;
  std::unordered_map<std::string, bool> bundle_by_folder;  // a Databricks Asset Bundle at or above
  std::map<const lint::LintOptions*, std::shared_ptr<const lint::LintOptions>> options_on_databricks;
  std::map<std::pair<const lint::LintOptions*, std::string>, std::shared_ptr<const lint::LintOptions>> options_with_pin;
  // A file under a configuration that cannot be read is not linted with the wrong options: it gets
  // an error naming that configuration, and every other file is still linted with its own.
  auto make_input = [&](const std::string& name, bool from_stdin) {
    const lint::Config* config = config_for(name);
    Input in{name, from_stdin, command_line_options, {}, config};
    if (config != nullptr) {
      if (!config->per_file_ignores.empty()) {
        in.shared_options = std::make_shared<const lint::LintOptions>(lint::options_for(name, config, options));
      } else {
        auto& shared = options_of_config[config];
        if (!shared) shared = std::make_shared<const lint::LintOptions>(lint::options_for(name, config, options));
        in.shared_options = shared;
      }
    }
    if (!isolated && !forced)
      if (const LoadedConfig* loaded = loaded_for(name); loaded != nullptr && !loaded->error.empty())
        in.config_error = "not linted: its configuration has an error (" + loaded->error + ")";
    if (!isolated && in.options().target_spark_version.empty() && lint::is_source_path(name)) {
      // No target from the command line or the configuration: the PySpark the project pins.
      const std::string folder = fs::path(name).parent_path().native();
      const fs::path root = config != nullptr && !forced ? config->root : fs::path();
      auto found = pin_by_folder.try_emplace(folder + '\0' + root.native());
      if (found.second)
        found.first->second = project_versions.find(folder.empty() ? fs::path(".") : fs::path(folder), root);
      if (const std::optional<lint::PinnedSpark>& pin = found.first->second) {
        auto pinned = [&] {
          lint::LintOptions o = in.options();
          o.target_spark_version = pin->version;
          return std::make_shared<const lint::LintOptions>(std::move(o));
        };
        // Options of one file (per-file ignores) are not shared: their address may be reused later.
        if (config != nullptr && !config->per_file_ignores.empty()) {
          in.shared_options = pinned();
        } else {
          auto& shared = options_with_pin[{in.shared_options.get(), pin->version}];
          if (!shared) shared = pinned();
          in.shared_options = shared;
        }
      }
    }
    if (!isolated && lint::is_source_path(name)) {
      // A file of a Databricks Asset Bundle project (databricks.yml above it), or of a repository that
      // holds Databricks notebooks, runs on Databricks.
      const std::string folder = fs::path(name).parent_path().native();
      const fs::path root = config != nullptr && !forced ? config->root : fs::path();
      auto found = bundle_by_folder.try_emplace(folder + '\0' + root.native());
      if (found.second) {
        const fs::path dir = folder.empty() ? fs::path(".") : fs::path(folder);
        found.first->second =
            project_versions.in_databricks_bundle(dir, root) || project_versions.in_databricks_repository(dir, root);
      }
      if (found.first->second) {
        auto on_databricks = [&] {
          lint::LintOptions o = in.options();
          o.databricks_project = true;
          return std::make_shared<const lint::LintOptions>(std::move(o));
        };
        if (config != nullptr && !config->per_file_ignores.empty()) {
          in.shared_options = on_databricks();
        } else {
          auto& shared = options_on_databricks[in.shared_options.get()];
          if (!shared) shared = on_databricks();
          in.shared_options = shared;
        }
      }
    }
    return in;
  };
  if (!config_errors.empty() && !config_file.empty()) {
    // --config names the one configuration for everything
    for (const auto& e : config_errors) std::cerr << "planlint: error: " << e.text() << "\n";
    return 2;
  }

  // The inputs, in order: each PATH's files (a folder's sorted by path), as they are found. Run beside
  // the linting (walk_thread below) when it lints on several threads, and first otherwise; from here
  // until it ends, only it uses the configuration lookup (config_for, finder, config_errors).
  bool walk_failed = false, io_error = false;
  auto gather = [&](const std::function<void(Input)>& push, const std::stop_token& stop) {
    WalkCallbacks walk;
    walk.skip = [&](const std::string& path) {
      return stop.stop_requested() || lint::excluded(path, config_for(path));
    };
    walk.listed = [&](const std::string& folder, bool config_named) {
      // The listing shows whether a configuration file can be here: no need to look for one.
      if (!config_named) finder.none_in(folder);
    };
    walk.file = [&](const std::string& path) {
      if (path.ends_with(".json") && !lint::is_source_path(path)) return;  // JSON that is not a Synapse notebook
      push(make_input(path, false));
    };
    walk.error = [&](const std::string& folder, const std::string& error) {
      std::cerr << "planlint: error: " + folder + ": cannot list the folder (" + error + ")\n";
      walk_failed = true;
    };
    for (const auto& p : paths) {
      if (stop.stop_requested()) break;
      if (p == "-") {
        push(make_input(stdin_filename.empty() ? std::string("<stdin>") : stdin_filename, true));
        continue;
      }
      std::error_code ec;
      if (fs::is_directory(p, ec))
        walk_folder(p, is_lintable, walk);
      else
        push(make_input(p, false));
    }
  };
  auto note_walk_errors = [&] {
    if (!config_errors.empty() || walk_failed) io_error = true;
  };
  // Pictures need every input first, and fixes rewrite files one at a time. One file named alone
  // (a pre-commit hook's usual run) is linted on this thread, without starting any other.
  bool pictures = (format == "dot" || format == "html") && !fix && !diff;
  std::error_code dir_ec;
  bool walk_beside = jobs > 1 && !fix && !diff && !pictures &&
                     (paths.size() > 1 || (paths.front() != "-" && fs::is_directory(paths.front(), dir_ec)));
  std::vector<Input> inputs;
  InputQueue queue;
  const Input* first = nullptr;
  std::jthread walk_thread;  // joined (and told to stop) on every way out of run()
  // Destroyed before walk_thread is joined: a walk waiting for room in the queue is let go.
  std::unique_ptr<InputQueue, void (*)(InputQueue*)> abandon_on_exit(&queue, [](InputQueue* q) { q->abandon(); });
  if (walk_beside) {
    walk_thread = std::jthread([&](const std::stop_token& stop) {
      gather([&](Input in) { queue.push(std::move(in)); }, stop);
      queue.close();
    });
    first = queue.wait(0);
  } else {
    gather([&](Input in) { inputs.push_back(std::move(in)); }, std::stop_token());
    note_walk_errors();
    first = inputs.empty() ? nullptr : &inputs.front();
  }
  // A format set in the configuration applies when the command line does not choose one.
  if (app.count("--format") == 0 && first != nullptr && !isolated && first->config != nullptr &&
      first->config->output_format)
    format = *first->config->output_format;

  if (pictures) {
    int rc = run_pictures(inputs, format, output);
    return io_error ? 2 : exit_zero && rc == 1 ? 0 : rc;
  }

  FixRun fix_run;
  fix_run.unsafe = unsafe_fixes;
  fix_run.diff_only = diff;
  // The results cache: keyed by each file's bytes and options, so --fix (which rewrites files) and
  // stdin go without it.
  if (app.count("--cache-dir") == 0)
    if (const char* env = std::getenv("PLANLINT_CACHE_DIR"); env != nullptr && *env != '\0') cache_dir = env;
  std::optional<lint::ResultCache> cache;
  if (!no_cache) {
    // The version, and this very binary (size and time): a rebuilt planlint never reads another's entries.
    std::error_code ec;
    std::string build = std::string(PLANLINT_VERSION) + "/" + std::to_string(fs::file_size("/proc/self/exe", ec));
    auto when = fs::last_write_time("/proc/self/exe", ec);
    if (!ec) build += "/" + std::to_string(when.time_since_epoch().count());
    cache.emplace(cache_dir, build);
  }
  std::optional<Baseline> known;
  if (!baseline.empty()) {
    known.emplace();
    if (auto err = known->load(baseline); !err.empty()) {
      std::cerr << "planlint: error: " << err << "\n";
      return 2;
    }
  }

  report::ReportOptions ro;
  ro.tool_version = PLANLINT_VERSION;
  bool tty = output.empty() && isatty(fileno(stdout)) != 0;
  ro.color = color == "always" || (color == "auto" && tty && std::getenv("NO_COLOR") == nullptr);
  // Where each file's findings go as soon as it is linted: the report (streamed to stdout, or to a
  // temporary file renamed over -o at the end), the baseline being written, or, when fixing stdin,
  // the text findings on stderr.
  bool stdin_fix =
      fix && !diff && std::any_of(inputs.begin(), inputs.end(), [](const Input& in) { return in.from_stdin; });
  bool streamed = write_baseline.empty() && !diff && !stdin_fix;
  ReportWriter writer;
  if (streamed)
    if (auto err = writer.open(output); !err.empty()) {
      std::cerr << "planlint: error: " << err << "\n";
      return 2;
    }
  std::unique_ptr<report::Reporter> reporter =
      report::make_reporter(stdin_fix                        ? "text"
                            : statistics && format == "text" ? "statistics"
                                                             : format,
                            stdin_fix ? report::ReportOptions{false, PLANLINT_VERSION} : ro);
  BaselineWriter new_baseline;
  std::string chunk, stderr_report;
  if (streamed) {
    reporter->set_flush([&writer](std::string& out) {
      writer.write(out);
      out.clear();
    });
    reporter->begin(chunk);
  }
  std::size_t findings = 0, failing = 0, files = 0, unreadable = 0, unwritten = 0;
  auto consume = [&](std::size_t i, lint::FileResult&& r) {
    ++files;
    if (!r.io_error.empty()) {
      ++(r.unwritten ? unwritten : unreadable);
      io_error = true;
      std::cerr << "planlint: error: " + r.path + ": " + r.io_error + "\n";
    }
    if (!write_baseline.empty()) {
      new_baseline.add(r);
      return;
    }
    if (known) known->filter(r);
    // Which findings fail the run: each file's options (its configuration's warn list and fail-on).
    const lint::LintOptions& file_options = walk_beside ? queue[i].options() : inputs[i].options();
    for (auto& d : r.diagnostics) {
      d.fails = file_options.fails(d);
      failing += d.fails ? 1 : 0;
    }
    findings += r.diagnostics.size();
    if (diff) return;
    reporter->file(r, stdin_fix ? stderr_report : chunk);
    if (chunk.size() >= (std::size_t{1} << 16)) {
      writer.write(chunk);
      chunk.clear();
    }
  };
  if (fix || diff) {
    fix_inputs(inputs, fix_run, consume);
  } else if (walk_beside) {
    lint_inputs(queue, jobs, cache ? &*cache : nullptr, consume);
    walk_thread.join();
    note_walk_errors();
  } else {
    lint_inputs(inputs, jobs, cache ? &*cache : nullptr, consume);
  }
  if (const char* stats = std::getenv("PLANLINT_CACHE_STATS"); stats != nullptr && cache)
    std::cerr << "planlint: cache " << cache->dir().string() << ": " << cache->hits() << " hits, " << cache->misses()
              << " misses\n";
  if (!write_baseline.empty()) {
    if (auto err = new_baseline.write(write_baseline); !err.empty()) {
      std::cerr << "planlint: error: " << err << "\n";
      return 2;
    }
    std::cerr << "planlint: wrote " << new_baseline.size() << " findings to " << write_baseline << "\n";
    return 0;
  }

  if (diff) {
    if (!write_output(output, fix_run.diff)) return 2;
    if (io_error) return 2;
    return fix_run.files_changed > 0 && !exit_zero ? 1 : 0;
  }
  if (stdin_fix) {
    // Fixed stdin goes to stdout (as an editor integration expects); findings go to stderr.
    std::cout << fix_run.stdin_output << std::flush;
    std::cerr << stderr_report;
    return failing > 0 && !exit_zero ? 1 : 0;
  }

  reporter->end(chunk);
  if (!(statistics && format == "text") && format == "text" && !quiet) {
    if (fix && fix_run.applied > 0)
      chunk += "Fixed " + std::to_string(fix_run.applied) + (fix_run.applied == 1 ? " finding" : " findings") + " in " +
               std::to_string(fix_run.files_changed) + (fix_run.files_changed == 1 ? " file" : " files") + ".\n";
    // What went wrong, after the findings: files that could not be read, fixed files that could not
    // be written (their findings are those of the text as it still is).
    std::string not_checked;
    auto add_problem = [&](std::size_t n, const char* what) {
      if (n == 0) return;
      if (!not_checked.empty()) not_checked += "; ";
      not_checked += std::to_string(n) + (n == 1 ? " file " : " files ") + what;
    };
    add_problem(unreadable, "could not be checked");
    add_problem(unwritten, "could not be written");
    if (findings == 0 && not_checked.empty())
      chunk += "All checks passed.\n";
    else if (findings == 0)
      chunk += "No findings, but " + not_checked + ".\n";
    else
      chunk += "Found " + std::to_string(findings) + (findings == 1 ? " finding" : " findings") + " in " +
               std::to_string(files - unreadable) + (files - unreadable == 1 ? " file" : " files") +
               (not_checked.empty() ? std::string() : "; " + not_checked) +
               (failing == findings ? std::string(".\n")
                                    : " (" + std::to_string(findings - failing) +
                                          " not failing the run: --warn rules or below --fail-on).\n");
  }
  writer.write(chunk);
  if (auto err = writer.commit(); !err.empty()) {
    std::cerr << "planlint: error: " << err << "\n";
    return 2;
  }
  if (io_error) return 2;
  return failing > 0 && !exit_zero ? 1 : 0;
}

}  // namespace

std::function<int()> add_lint_options(CLI::App& app) {
  auto a = std::make_shared<LintArgs>();
  app.add_option("PATH", a->paths, "Files or directories to lint ('-' reads stdin)");
  app.add_option("--format", a->format,
                 "Output format (dot and html: the plans as pictures with their findings, for Graphviz or a browser)")
      ->check(CLI::IsMember({"text", "json", "sarif", "github", "dot", "html"}))
      ->capture_default_str();
  app.add_option("-o,--output", a->output, "Write the report to FILE instead of stdout");
  app.add_option("--select", a->select, "Only these rules (ids, names or id prefixes; comma-separated; ALL)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--extend-select", a->extend_select, "Add rules to the selection")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--ignore", a->ignore, "Skip these rules (ids, names or id prefixes)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--min-impact", a->min_impact,
                 "Only rules whose impact (how much time or money the pattern costs) is at least this: low (all, the "
                 "default), medium, high. Syntax errors are always reported")
      ->check(CLI::IsMember({"low", "medium", "high"}));
  app.add_option("--warn", a->warn, "Report these rules but never fail the run on them (ids, names or prefixes)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--fail-on", a->fail_on,
                 "The lowest severity that makes the exit status 1: info (any finding), warning (the default: info\n"
                 "findings are advisory, printed but not failing the run), error")
      ->check(CLI::IsMember({"info", "warning", "error"}));
  app.add_option("--stdin-filename", a->stdin_filename, "File name to report for input read from stdin");
  app.add_option("--broadcast-threshold", a->threshold,
                 "Size under which a join side counts as small for missing-broadcast (e.g. 10MB, 10485760)");
  app.add_option("--color", a->color, "Colour in text output")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_flag("--fix", a->fix, "Apply safe fixes to the files in place (atomically; re-linted until nothing changes)");
  app.add_flag("--unsafe-fixes", a->unsafe_fixes, "With --fix or --diff, also apply fixes marked unsafe");
  app.add_flag("--diff", a->diff, "Print a unified diff of what --fix would change and write nothing (exit 1 if any)");
  app.add_flag("--exit-zero", a->exit_zero, "Exit 0 even when there are findings");
  app.add_option("--config", a->config_file, "Use this configuration file for every input (no discovery)")
      ->check(CLI::ExistingFile);
  app.add_flag("--isolated", a->isolated, "Ignore configuration files (and the PySpark version the project pins)");
  app.add_option("--target-spark-version", a->options_target,
                 "Spark version the code runs on (e.g. 3.1): advice that depends on defaults (AQE is on from "
                 "3.2) and fixes that need newer APIs (isEmpty() from 3.3) follow it. Without it or a "
                 "configured one, PySpark sources target the version their project pins (requirements*.txt, "
                 "pyproject.toml, setup.py/.cfg, environment.yml, a Databricks bundle's spark_version)");
  app.add_option("-j,--jobs", a->jobs, "Lint files in parallel on N threads (default: all cores)")
      ->check(CLI::PositiveNumber);
  app.add_option("--baseline", a->baseline, "Report only findings that are not in this baseline file");
  app.add_option("--write-baseline", a->write_baseline, "Record the current findings in FILE (and report none)");
  app.add_flag("-q,--quiet", a->quiet, "Print findings only, no summary line");
  app.add_flag("--statistics", a->statistics, "Print the number of findings per rule instead of the findings");
  app.add_flag("--no-cache", a->no_cache, "Analyse every file again instead of reusing results of unchanged files");
  app.add_option("--cache-dir", a->cache_dir,
                 "Where the results cache lives (default .planlint_cache in the current folder; "
                 "also PLANLINT_CACHE_DIR)");
  return [&app, a] { return run_lint(app, *a); };
}

}  // namespace planlint::cli
