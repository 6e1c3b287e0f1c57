// The diagnosis summary, the ranking of applications and the JSON form of event-log results.
#include "report/eventlog.hpp"

#include "eventlog/whatif.hpp"
#include "util/printable.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace planlint::report {
using namespace planlint::lint;  // findings, results and rule metadata: what a reporter prints

namespace {

using eventlog::Application;
using eventlog::Stage;

// Text from the log (application and stage names, paths, configuration values, messages that quote
// them) as the report shows it: without control characters (a crafted log must not retitle or clear
// the terminal), and in Markdown as literal text (no HTML comment hiding the rest, no image).
std::string shown(std::string_view s, bool markdown) { return markdown ? util::markdown_text(s) : util::printable(s); }

// A table as Markdown, or as aligned plain-text columns.
std::string table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows,
                  bool markdown) {
  std::string out;
  if (markdown) {
    auto line = [&](const std::vector<std::string>& r) {
      out += "|";
      for (const auto& c : r) out += " " + shown(c, true) + " |";
      out += "\n";
    };
    line(head);
    out += "|";
    for (std::size_t i = 0; i < head.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& r : rows) line(r);
    return out;
  }
  std::vector<std::size_t> w(head.size());
  for (std::size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], shown(r[i], false).size());
  auto line = [&](const std::vector<std::string>& r) {
    std::string l = " ";
    for (std::size_t i = 0; i < r.size(); ++i) l += fmt::format(" {:<{}}", shown(r[i], false), w[i]);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(head);
  for (const auto& r : rows) line(r);
  return out;
}

std::string shorten(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n - 1) + "…"; }

// Paths differ at their ends (the file) and often at their starts (the folder): cut in the middle.
std::string shorten_middle(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  std::size_t head = (n - 1) / 3, tail = n - 1 - head;
  return s.substr(0, head) + "…" + s.substr(s.size() - tail);
}

std::string on_off(const std::string& v, const std::string& dflt, bool markdown) {
  return v.empty() ? dflt + " (default)" : shown(v, markdown);
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? "-" : fmt::format("{:.0f} %", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

}  // namespace

std::string render_eventlog_summary(const EventLogResult& r, bool markdown) {
  const Application& app = r.app;
  std::string out;
  std::string h1 = markdown ? "## " : "";
  std::string h2 = markdown ? "### " : "";
  out += fmt::format("{}{}: {}{}\n", h1, shown(app.path, markdown),
                     app.name.empty() ? "(unnamed application)" : shown(app.name, markdown),
                     app.id.empty() ? "" : " (" + shown(app.id, markdown) + ")");
  if (!r.io_error.empty()) {
    out += fmt::format("not analysed: {}\n", shown(r.io_error, markdown));
    return out;
  }
  std::string version = app.spark_version.empty() ? "unknown" : shown(app.spark_version, markdown);
  if (!app.databricks_runtime.empty()) version += ", Databricks runtime " + shown(app.databricks_runtime, markdown);
  // A figure the log does not give is said to be unknown, never printed as 0.
  std::string ran =
      app.duration_ms() > 0 ? "ran " + format_ms(app.duration_ms()) : "ran for a time the log does not give";
  std::string cores = app.max_cores() > 0 ? fmt::format("up to {} cores", app.max_cores()) : "cores unknown";
  out += fmt::format("\nSpark {}, engine {}, {}{}, {} on {}; {}, {}, {}\n", version, shown(app.engine(), markdown), ran,
                     app.complete ? "" : " (incomplete log)", cores, counted(app.nodes(), "node"),
                     counted(app.jobs.size(), "job"), counted(app.stages.size(), "stage"),
                     counted(app.sql.size(), "SQL execution"));
  {
    int added = 0, removed = 0;
    for (const auto& c : app.executors) (c.added ? added : removed) += 1;
    if (added > 0)
      out += fmt::format("Executors: {} added, {} removed over the run; at most {} at once\n", added, removed,
                         counted(app.max_cores(), "core"));
  }
  out += fmt::format(
      "Configuration: AQE {}, spark.sql.shuffle.partitions {}, broadcast threshold {}, serializer {}, Arrow {}\n",
      on_off(app.conf("spark.sql.adaptive.enabled"), app.spark_version >= "3.2" ? "true" : "false", markdown),
      on_off(app.conf("spark.sql.shuffle.partitions"), "200", markdown),
      on_off(app.conf("spark.sql.autoBroadcastJoinThreshold"), "10MB", markdown),
      on_off(app.conf("spark.serializer"), "Java", markdown),
      on_off(app.conf("spark.sql.execution.arrow.pyspark.enabled"), "false", markdown));
  out += fmt::format("Read {} lines ({}, codec {}){}\n", app.lines, format_bytes(app.bytes), app.codec,
                     app.malformed_lines == 0 ? "" : fmt::format("; {} malformed lines skipped", app.malformed_lines));
  for (const auto& p : app.problems)
    if (p.line == 0) out += "warning: " + shown(p.message, markdown) + "\n";

  out += fmt::format("\n{}Slowest stages\n", h2);
  if (!markdown) out += "\n";
  std::vector<std::vector<std::string>> rows;
  for (const Stage* s : app.slowest_stages(5)) {
    bool ok = !s->durations.empty();  // a stage whose tasks all failed has no task time to show
    rows.push_back({std::to_string(s->id), shorten_middle(s->name, 48), format_ms(s->duration_ms()),
                    std::to_string(s->m.tasks), ok ? format_ms(s->q.median) : "-", ok ? format_ms(s->q.max) : "-",
                    format_bytes(s->m.input_bytes), format_bytes(s->m.shuffle_read_bytes),
                    format_bytes(s->m.shuffle_write_bytes), format_bytes(s->m.disk_spill),
                    percent(s->m.gc_ms, s->m.task_ms)});
  }
  out += table({"stage", "name", "duration", "tasks", "median task", "max task", "input", "shuffle read",
                "shuffle write", "spill (disk)", "GC"},
               rows, markdown);

  // The longest SQL executions (a DataFrame action each) and jobs: where the run's time went.
  {
    std::vector<const eventlog::SqlExecution*> xs;
    for (const auto& [id, x] : app.sql)
      if (x.ended > x.started && x.started > 0) xs.push_back(&x);
    std::stable_sort(xs.begin(), xs.end(),
                     [](auto* a, auto* b) { return a->ended - a->started > b->ended - b->started; });
    if (!xs.empty()) {
      out += fmt::format("\n{}Longest SQL executions\n", h2);
      if (!markdown) out += "\n";
      std::vector<std::vector<std::string>> xrows;
      for (std::size_t i = 0; i < xs.size() && i < 5; ++i)
        xrows.push_back({std::to_string(xs[i]->id), shorten_middle(xs[i]->description, 60),
                         format_ms(xs[i]->ended - xs[i]->started), std::to_string(xs[i]->jobs.size())});
      out += table({"SQL", "description", "duration", "jobs"}, xrows, markdown);
    }
    std::vector<const eventlog::Job*> js;
    for (const auto& [id, j] : app.jobs)
      if (j.completed > j.submitted && j.submitted > 0) js.push_back(&j);
    std::stable_sort(js.begin(), js.end(),
                     [](auto* a, auto* b) { return a->completed - a->submitted > b->completed - b->submitted; });
    if (!js.empty()) {
      out += fmt::format("\n{}Longest jobs\n", h2);
      if (!markdown) out += "\n";
      std::vector<std::vector<std::string>> jrows;
      for (std::size_t i = 0; i < js.size() && i < 5; ++i) {
        std::string name;
        for (int sid : js[i]->stages)
          if (auto it = app.stages.find(sid); it != app.stages.end()) name = it->second.name;  // the last: the action
        jrows.push_back({std::to_string(js[i]->id), shorten_middle(name, 60),
                         format_ms(js[i]->completed - js[i]->submitted), std::to_string(js[i]->stages.size()),
                         js[i]->succeeded ? "succeeded" : "failed"});
      }
      out += table({"job", "action", "duration", "stages", "result"}, jrows, markdown);
    }
  }

  out += fmt::format("\n{}Diagnoses, ranked by the time they explain\n", h2);
  if (r.findings.empty()) out += "\nNo diagnosis: nothing in this log crosses the guides' thresholds.\n";
  int n = 0;
  for (const auto& f : r.findings) {
    ++n;
    const Diagnostic& d = f.diagnostic;
    std::string explained = f.explained_ms > 0 ? fmt::format("explains {}", format_ms(f.explained_ms))
                            : f.stage_ms > 0   ? fmt::format("{} at stake, saving not estimated", format_ms(f.stage_ms))
                                               : std::string("saving not estimated");
    std::string of = f.explained_ms > 0 && f.stage_ms > 0 ? fmt::format(" of {}", format_ms(f.stage_ms)) : "";
    out += fmt::format("\n{}. {}{} [{}]{}: {}{}\n", n, markdown ? "**" : "", d.rule->name, d.rule->id,
                       markdown ? "**" : "", explained, of);
    out += fmt::format("   {}\n", shown(d.message, markdown));
    if (!f.fix.empty()) out += fmt::format("   fix: {}\n", shown(f.fix, markdown));
    out += fmt::format("   at {}:{}", shown(d.location.path, markdown), d.location.line);
    for (const auto& rel : d.related)
      out += fmt::format("; code: {}:{}", shown(rel.location.path, markdown), rel.location.line);
    out += "\n";
  }
  return out;
}

std::string render_eventlog_ranking(const std::vector<const EventLogResult*>& ranked, bool markdown) {
  // Three groups, each ranked: logs whose diagnoses explain time, logs whose diagnoses explain none
  // the log can measure, and logs with no diagnosis (or not read).
  std::vector<const EventLogResult*> groups[3];
  for (const auto* r : ranked) groups[r->explained_ms() > 0 ? 0 : !r->findings.empty() ? 1 : 2].push_back(r);
  static constexpr const char* kTitles[] = {"Applications ranked by the time their diagnoses explain",
                                            "Applications whose diagnoses explain no measurable time",
                                            "Applications with no diagnosis"};
  std::string out;
  int rank = 0;
  for (int g = 0; g < 3; ++g) {
    if (groups[g].empty()) continue;
    if (!out.empty()) out += "\n";
    out += fmt::format("{}{}\n\n", markdown ? "## " : "", kTitles[g]);
    std::vector<std::vector<std::string>> rows;
    for (const auto* r : groups[g]) {
      ++rank;
      std::string top;
      for (std::size_t i = 0; i < r->findings.size() && i < 3; ++i) {
        const auto& f = r->findings[i];
        top += (i > 0 ? "; " : "") + std::string(f.diagnostic.rule->name) +
               (f.stage >= 0 ? " (stage " + std::to_string(f.stage) + ")" : "");
      }
      if (!r->io_error.empty()) top = "not analysed: " + r->io_error;
      std::string name = r->app.name.empty() ? "(unnamed)" : r->app.name;
      std::string app = shorten(name, 30) + (r->app.attempt.empty() ? "" : " (attempt " + r->app.attempt + ")");
      rows.push_back({std::to_string(rank), shorten_middle(r->app.path, 60), app,
                      r->app.duration_ms() > 0 ? format_ms(r->app.duration_ms()) : "-",
                      r->explained_ms() > 0 ? format_ms(r->explained_ms()) : "-", std::to_string(r->findings.size()),
                      top});
    }
    out += table({"#", "log", "application", "duration", "explained", "findings", "top findings"}, rows, markdown);
  }
  return out;
}

std::string render_eventlog_whatif(const EventLogResult& r, const std::vector<int>& executors, const CostOptions& cost,
                                   bool markdown) {
  const Application& app = r.app;
  eventlog::WhatIf w = eventlog::what_if(app, executors);
  std::string out = fmt::format("\n{}What if the cluster were another size\n", markdown ? "### " : "");
  if (!w.usable) return out + "\nNot simulated: the log records no finished task to replay.\n";
  bool photon = app.engine() == "photon";
  double rate = cost.dbu_rate * (photon ? cost.photon_multiplier : 1.0);
  auto signed_pct = [](double x) { return fmt::format("{:+.0f} %", x); };
  out += fmt::format(
      "\nEach task replayed with the duration it had, {} at a time per executor ({} executor{} per node, plus the "
      "driver's node); {} of driver time (no job running) stays as it was.\n",
      w.slots_per_executor, w.executors_per_node, w.executors_per_node == 1 ? "" : "s", format_ms(w.driver_ms));
  if (!markdown) out += "\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : w.rows) {
    std::vector<std::string> cells{
        std::to_string(row.executors), std::to_string(row.slots), format_ms(row.wall_ms),
        row.as_run ? "as run"
                   : signed_pct(100.0 * (static_cast<double>(row.wall_ms) - static_cast<double>(w.simulated_ms)) /
                                std::max<double>(1.0, static_cast<double>(w.simulated_ms))),
        fmt::format("{:.2f}", row.node_hours)};
    if (rate > 0) cells.push_back(fmt::format("{:.2f}", row.node_hours * rate));
    rows.push_back(std::move(cells));
  }
  std::vector<std::string> head{"executors", "task slots", "wall time", "vs as run", "node-hours"};
  if (rate > 0) head.emplace_back(photon ? "DBU (Photon rate)" : "DBU");
  out += table(head, rows, markdown);
  double err = 100.0 * (static_cast<double>(w.simulated_ms) - static_cast<double>(w.measured_ms)) /
               static_cast<double>(std::max<std::int64_t>(1, w.measured_ms));
  out += fmt::format(
      "\nAs run: {} measured, {} simulated (the model is off by {:.1f} % on this log). Critical path: {} (driver "
      "time and the longest chain of tasks; no cluster size finishes sooner).\n",
      format_ms(w.measured_ms), format_ms(w.simulated_ms), std::abs(err), format_ms(w.critical_path_ms));
  if (rate <= 0) out += "Cost: give --dbu-rate (DBU per node-hour) for the DBU of each size.\n";
  return out;
}

std::string render_eventlog_json(const std::vector<const EventLogResult*>& results, const std::string& tool_version,
                                 const std::vector<int>& what_if) {
  nlohmann::ordered_json root;
  root["version"] = kEventLogJsonVersion;
  root["tool"] = {{"name", "planlint"}, {"version", tool_version}};
  auto& apps = root["applications"] = nlohmann::ordered_json::array();
  for (const auto* r : results) {
    const Application& a = r->app;
    nlohmann::ordered_json j;
    j["path"] = a.path;
    if (!r->io_error.empty()) j["error"] = r->io_error;
    j["id"] = a.id;
    j["name"] = a.name;
    j["attempt"] = a.attempt;
    j["spark_version"] = a.spark_version;
    j["databricks_runtime"] = a.databricks_runtime;
    j["engine"] = a.engine();
    j["complete"] = a.complete;
    j["codec"] = a.codec;
    j["start_ms"] = a.started;
    j["end_ms"] = a.ended;
    j["duration_ms"] = a.duration_ms();
    j["max_cores"] = a.max_cores();
    j["nodes"] = a.nodes();
    j["lines"] = a.lines;
    j["events"] = a.events;
    j["bytes"] = a.bytes;
    j["malformed_lines"] = a.malformed_lines;
    j["explained_ms"] = r->explained_ms();
    auto& timeline = j["executor_timeline"] = nlohmann::ordered_json::array();  // cores alive after each change
    int alive = 0;
    for (const auto& c : a.executors) {
      alive += c.cores;
      timeline.push_back({{"time_ms", c.time}, {"executor", c.id}, {"cores_change", c.cores}, {"cores", alive}});
    }
    if (eventlog::WhatIf w = eventlog::what_if(a, what_if); w.usable) {
      auto& sim = j["simulation"] = {{"executors", w.executors},
                                     {"cores_per_executor", w.cores_per_executor},
                                     {"slots_per_executor", w.slots_per_executor},
                                     {"executors_per_node", w.executors_per_node},
                                     {"measured_ms", w.measured_ms},
                                     {"simulated_ms", w.simulated_ms},
                                     {"driver_ms", w.driver_ms},
                                     {"critical_path_ms", w.critical_path_ms}};
      auto& rows = sim["what_if"] = nlohmann::ordered_json::array();
      for (const auto& row : w.rows)
        rows.push_back({{"executors", row.executors},
                        {"task_slots", row.slots},
                        {"wall_ms", row.wall_ms},
                        {"node_hours", row.node_hours},
                        {"as_run", row.as_run}});
    }
    auto& probs = j["problems"] = nlohmann::ordered_json::array();
    for (const auto& p : a.problems) probs.push_back({{"line", p.line}, {"message", p.message}});
    auto& conf = j["config"] = nlohmann::ordered_json::object();
    for (const char* k :
         {"spark.sql.adaptive.enabled", "spark.sql.shuffle.partitions", "spark.sql.autoBroadcastJoinThreshold",
          "spark.serializer", "spark.sql.execution.arrow.pyspark.enabled", "spark.databricks.photon.enabled",
          "spark.plugins", "spark.master", "spark.executor.memory", "spark.executor.cores"})
      if (auto v = a.conf(k); !v.empty()) conf[k] = v;
    auto& stages = j["stages"] = nlohmann::ordered_json::array();
    for (const auto& [id, s] : a.stages) {
      const auto& m = s.m;
      nlohmann::ordered_json st{{"id", s.id},
                                {"name", s.name},
                                {"attempts", s.attempts},
                                {"failed_attempts", s.failed_attempts},
                                {"job", s.job},
                                {"sql_execution", s.sql_execution},
                                {"submission_ms", s.submitted},
                                {"completion_ms", s.completed},
                                {"duration_ms", s.duration_ms()},
                                {"partitions", s.num_tasks},
                                {"tasks", m.tasks},
                                {"failed_tasks", m.failed_tasks},
                                {"killed_tasks", m.killed_tasks},
                                {"input_bytes", m.input_bytes},
                                {"input_records", m.input_records},
                                {"output_bytes", m.output_bytes},
                                {"output_records", m.output_records},
                                {"shuffle_read_bytes", m.shuffle_read_bytes},
                                {"shuffle_read_records", m.shuffle_read_records},
                                {"shuffle_write_bytes", m.shuffle_write_bytes},
                                {"shuffle_write_records", m.shuffle_write_records},
                                {"memory_spill_bytes", m.memory_spill},
                                {"disk_spill_bytes", m.disk_spill},
                                {"gc_ms", m.gc_ms},
                                {"executor_run_ms", m.run_ms},
                                {"executor_cpu_ns", m.cpu_ns},
                                {"task_ms", m.task_ms},
                                {"peak_execution_memory_bytes", m.peak_execution_memory},
                                {"peak_execution_memory_sum_bytes", m.peak_execution_memory_sum},
                                {"task_duration_ms",
                                 {{"min", s.q.min},
                                  {"p05", s.q.p05},
                                  {"p25", s.q.p25},
                                  {"median", s.q.median},
                                  {"p75", s.q.p75},
                                  {"p95", s.q.p95},
                                  {"max", s.q.max}}},
                                {"parents", s.parents},
                                {"operators", s.operators},
                                {"failure_reason", s.failure_reason}};
      if (!s.spark_name.empty()) st["spark_name"] = s.spark_name;
      if (auto site = parse_call_site(s.name)) st["call_site"] = {{"file", site->file}, {"line", site->line}};
      auto& fails = st["task_failures"] = nlohmann::ordered_json::array();
      for (const auto& g : a.failures(s))
        fails.push_back({{"reason", g.reason},
                         {"status", g.status == eventlog::TaskStatus::killed ? "killed" : "failed"},
                         {"tasks", g.tasks},
                         {"variants", g.variants},
                         {"speculative", g.speculative},
                         {"executors", g.executors},
                         {"hosts", g.hosts}});
      stages.push_back(std::move(st));
    }
    auto& sql = j["sql_executions"] = nlohmann::ordered_json::array();
    for (const auto& [id, x] : a.sql)
      sql.push_back({{"id", id},
                     {"description", x.description},
                     {"duration_ms", x.ended > x.started ? x.ended - x.started : 0},
                     {"jobs", x.jobs},
                     {"plan_line", x.line},
                     {"aqe_final_plan", x.adaptive_update}});
    auto& fs = j["findings"] = nlohmann::ordered_json::array();
    for (const auto& f : r->findings) {
      const Diagnostic& d = f.diagnostic;
      nlohmann::ordered_json fj{{"rule", d.rule->name},
                                {"id", d.rule->id},
                                {"severity", to_string(d.severity)},
                                {"message", d.message},
                                {"line", d.location.line},
                                {"stage", f.stage},
                                {"stage_ms", f.stage_ms},
                                {"explained_ms", f.explained_ms},
                                {"fix", f.fix}};
      auto& rel = fj["related"] = nlohmann::ordered_json::array();
      for (const auto& x : d.related)
        rel.push_back({{"path", x.location.path}, {"line", x.location.line}, {"message", x.message}});
      fs.push_back(std::move(fj));
    }
    apps.push_back(std::move(j));
  }
  // Invalid UTF-8 from a log (names, messages) is replaced, never an exception.
  return root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace planlint::report
