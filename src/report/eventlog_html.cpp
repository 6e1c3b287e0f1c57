// One self-contained HTML page per run: the stage timeline, the task-duration distribution of the
// slowest stages and the diagnoses (inline SVG and CSS, no script, nothing fetched).
#include <fmt/format.h>

#include <algorithm>

#include "eventlog/whatif.hpp"
#include "report/eventlog.hpp"
#include "util/printable.hpp"

namespace planlint::report {
using namespace planlint::lint;  // findings, results and rule metadata: what a reporter prints

namespace {

std::string esc(std::string_view s) { return util::html_text(s); }

// A horizontal axis from x0 to x1 at y for 0..span milliseconds: a line, five ticks labelled in
// time units, and what it measures.
std::string time_axis(int x0, int x1, int y, std::int64_t span, std::string_view what) {
  std::string svg = fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/>\n", x0, y, x1, y);
  for (int i = 0; i <= 4; ++i) {
    double x = x0 + (x1 - x0) * i / 4.0;
    const char* anchor = i == 0 ? "start" : i == 4 ? "end" : "middle";
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#333\"/><text x=\"{:.1f}\" y=\"{}\" "
        "font-size=\"11\" text-anchor=\"{}\">{}</text>\n",
        x, y, x, y + 4, x, y + 15, anchor, format_ms(span * i / 4));
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", (x0 + x1) / 2,
                     y + 29, esc(what));
  return svg;
}

std::string timeline(const eventlog::Application& app) {
  std::int64_t t0 = app.started, t1 = t0 + app.duration_ms();
  std::vector<const eventlog::Stage*> stages;
  for (const auto& [id, s] : app.stages)
    if (s.submitted > 0 && s.completed >= s.submitted) stages.push_back(&s);
  if (stages.empty() || t1 <= t0) return "<p>No timed stages.</p>\n";
  if (t0 <= 0) t0 = stages.front()->submitted;
  constexpr int kWidth = 900, kRow = 14, kLabel = 70;
  int height = static_cast<int>(stages.size()) * kRow + 24;
  double scale = static_cast<double>(kWidth - kLabel - 10) / static_cast<double>(std::max<std::int64_t>(1, t1 - t0));
  std::string svg =
      fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"stage timeline\">\n", kWidth, height + 20);
  int y = 4;
  for (const auto* s : stages) {
    double x = kLabel + static_cast<double>(s->submitted - t0) * scale;
    double w = std::max(1.0, static_cast<double>(s->duration_ms()) * scale);
    const char* color = s->failed_attempts > 0 ? "#d9534f" : "#4a7ebb";
    svg += fmt::format(
        "<text x=\"0\" y=\"{}\" font-size=\"11\">stage {}</text><rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" "
        "height=\"{}\" fill=\"{}\"><title>stage {}: {} ({}, {} tasks)</title></rect>\n",
        y + 10, s->id, x, y, w, kRow - 3, color, s->id, esc(s->name), format_ms(s->duration_ms()), s->m.tasks);
    y += kRow;
  }
  svg += time_axis(kLabel, kWidth - 10, y, t1 - t0, "time since the application started");
  svg += "</svg>\n";
  return svg;
}

std::string histogram(const eventlog::Stage& s) {
  constexpr int kBins = 30, kWidth = 420, kHeight = 120, kTop = 16;  // kTop: room for the count above the bars
  if (s.durations.empty()) return {};
  std::vector<int> bins(kBins, 0);
  double top = std::max<double>(1.0, s.q.max);
  for (auto d : s.durations) ++bins[std::min(kBins - 1, static_cast<int>(d / top * kBins))];
  int most = *std::max_element(bins.begin(), bins.end());
  std::string svg =
      fmt::format("<figure><svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"task durations of stage {}\">\n",
                  kWidth, kTop + kHeight + 36, s.id);
  svg += fmt::format("<text x=\"2\" y=\"10\" font-size=\"11\">{} tasks</text>\n", most);
  double bw = static_cast<double>(kWidth) / kBins;
  for (int i = 0; i < kBins; ++i) {
    double h = most > 0 ? static_cast<double>(bins[i]) / most * kHeight : 0;
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#5cb85c\"><title>{} "
        "tasks</title></rect>\n",
        i * bw, kTop + kHeight - h, bw - 1, h, bins[i]);
  }
  svg += time_axis(0, kWidth - 1, kTop + kHeight, static_cast<std::int64_t>(top), "task duration (bar height: tasks)");
  svg += "</svg>\n";
  svg += fmt::format("<figcaption>stage {} ({}): {}; min {}, p25 {}, median {}, p75 {}, max {}</figcaption></figure>\n",
                     s.id, esc(s.name), counted(s.durations.size(), "successful task"), format_ms(s.q.min),
                     format_ms(s.q.p25), format_ms(s.q.median), format_ms(s.q.p75), format_ms(s.q.max));
  return svg;
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? "-" : fmt::format("{:.0f} %", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string stage_table(const eventlog::Application& app) {
  std::string out =
      "<table><tr><th>stage</th><th>name</th><th>duration</th><th>tasks</th><th>failed</th><th>input</th>"
      "<th>shuffle read</th><th>shuffle write</th><th>spill (disk)</th><th>GC</th><th>max / median task</th></tr>\n";
  for (const auto& [id, s] : app.stages) {
    const auto& m = s.m;
    std::string skew = s.durations.empty() || s.q.median == 0
                           ? "-"
                           : fmt::format("{:.1f}x", static_cast<double>(s.q.max) / static_cast<double>(s.q.median));
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        s.id, esc(s.name), format_ms(s.duration_ms()), m.tasks, m.failed_tasks, format_bytes(m.input_bytes),
        format_bytes(m.shuffle_read_bytes), format_bytes(m.shuffle_write_bytes), format_bytes(m.disk_spill),
        percent(m.gc_ms, m.task_ms), skew);
  }
  return out + "</table>\n";
}

std::string configuration(const eventlog::Application& app) {
  std::string out = "<table><tr><th>setting</th><th>value</th></tr>\n";
  for (const char* k :
       {"spark.executor.instances", "spark.executor.cores", "spark.executor.memory", "spark.driver.memory",
        "spark.dynamicAllocation.enabled", "spark.sql.adaptive.enabled", "spark.sql.shuffle.partitions",
        "spark.sql.autoBroadcastJoinThreshold", "spark.serializer", "spark.databricks.photon.enabled", "spark.master"})
    out += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", k,
                       app.conf(k).empty() ? std::string("(not set)") : esc(app.conf(k)));
  return out + "</table>\n";
}

// Cores alive over the run, as a step line, with the executors added and removed.
std::string executors(const eventlog::Application& app) {
  int added = 0, removed = 0;
  for (const auto& c : app.executors) (c.added ? added : removed) += 1;
  std::string out = fmt::format("<p>{} added, {} removed; at most {} at once.</p>\n", counted(added, "executor"),
                                removed, counted(app.max_cores(), "core"));
  std::int64_t t0 = app.started > 0 ? app.started : app.first_event_time, span = app.duration_ms();
  if (app.executors.empty() || span <= 0 || app.max_cores() <= 0) return out;
  constexpr int kWidth = 900, kHeight = 100, kLeft = 40;
  double sx = static_cast<double>(kWidth - kLeft - 10) / static_cast<double>(span);
  double sy = static_cast<double>(kHeight) / app.max_cores();
  std::string points = fmt::format("{},{}", kLeft, 10 + kHeight);
  int alive = 0;
  for (const auto& c : app.executors) {
    double x = kLeft + static_cast<double>(std::clamp<std::int64_t>(c.time - t0, 0, span)) * sx;
    points += fmt::format(" {:.1f},{:.1f}", x, 10 + kHeight - alive * sy);
    alive += c.cores;
    points += fmt::format(" {:.1f},{:.1f}", x, 10 + kHeight - alive * sy);
  }
  points += fmt::format(" {},{:.1f}", kWidth - 10, 10 + kHeight - alive * sy);
  out += fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"cores alive over the run\">\n", kWidth,
                     kHeight + 50);
  out += fmt::format(
      "<polyline points=\"{}\" fill=\"none\" stroke=\"#4a7ebb\" stroke-width=\"2\"/>\n<text x=\"0\" y=\"14\" "
      "font-size=\"11\">{} cores</text><text x=\"0\" y=\"{}\" font-size=\"11\">0</text>\n",
      points, app.max_cores(), 10 + kHeight);
  out += time_axis(kLeft, kWidth - 10, 10 + kHeight, span, "time since the application started");
  return out + "</svg>\n";
}

// The what-if table as bars: simulated wall time for each executor count.
std::string what_if_chart(const eventlog::Application& app, const std::vector<int>& counts) {
  eventlog::WhatIf w = eventlog::what_if(app, counts);
  if (!w.usable || w.rows.empty()) return "<p>Not simulated: the log records no finished task to replay.</p>\n";
  constexpr int kBar = 22, kLeft = 110, kWidth = 900;
  std::int64_t top = 1;
  for (const auto& r : w.rows) top = std::max(top, r.wall_ms);
  int height = static_cast<int>(w.rows.size()) * kBar + 44;
  std::string out = fmt::format(
      "<p>Each task replayed with the duration it had; {} of driver time stays. As run: {} measured, {} simulated. "
      "Critical path (no size finishes sooner): {}.</p>\n<svg width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"simulated wall time by executor count\">\n",
      format_ms(w.driver_ms), format_ms(w.measured_ms), format_ms(w.simulated_ms), format_ms(w.critical_path_ms),
      kWidth, height);
  double sx = static_cast<double>(kWidth - kLeft - 10) / static_cast<double>(top);
  int y = 4;
  for (const auto& r : w.rows) {
    out += fmt::format(
        "<text x=\"0\" y=\"{}\" font-size=\"11\">{}{}</text><rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" "
        "height=\"{}\" fill=\"{}\"><title>{}: {}, {:.2f} node-hours</title></rect>\n",
        y + 14, counted(r.executors, "executor"), r.as_run ? " (as run)" : "", kLeft, y,
        std::max(1.0, static_cast<double>(r.wall_ms) * sx), kBar - 4, r.as_run ? "#f0ad4e" : "#4a7ebb",
        counted(r.executors, "executor"), format_ms(r.wall_ms), r.node_hours);
    y += kBar;
  }
  double critical = kLeft + static_cast<double>(w.critical_path_ms) * sx;
  out += fmt::format(
      "<line x1=\"{:.1f}\" y1=\"0\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#d9534f\" stroke-dasharray=\"4\"><title>critical "
      "path {}</title></line>\n",
      critical, critical, y, format_ms(w.critical_path_ms));
  out += time_axis(kLeft, kWidth - 10, y, top, "simulated wall time (dashed: the critical path)");
  return out + "</svg>\n";
}

}  // namespace

std::string render_eventlog_html(const std::vector<const EventLogResult*>& results, const std::vector<int>& what_if) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>planlint eventlog</title>\n"
      "<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1000px}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;text-align:left}figure{display:inline-block;"
      "margin:0 1em 1em 0}.rule{font-weight:bold}</style></head><body>\n";
  for (const auto* r : results) {
    const auto& app = r->app;
    out += fmt::format("<h1>{}</h1>\n<p>{} {} · Spark {} · engine {} · {} · {}</p>\n", esc(app.name), esc(app.path),
                       esc(app.id), esc(app.spark_version.empty() ? "unknown" : app.spark_version), esc(app.engine()),
                       app.duration_ms() > 0 ? format_ms(app.duration_ms()) : "duration unknown",
                       app.max_cores() > 0 ? fmt::format("up to {} cores", app.max_cores()) : "cores unknown");
    if (!r->io_error.empty()) {
      out += "<p>Not analysed: " + esc(r->io_error) + "</p>\n";
      continue;
    }
    out += "<h2>Stage timeline</h2>\n" + timeline(app);
    out += "<h2>Task durations of the slowest stages</h2>\n";
    for (const auto* s : app.slowest_stages(3)) out += histogram(*s);
    out += "<h2>Stages</h2>\n" + stage_table(app);
    out += "<h2>Configuration</h2>\n" + configuration(app);
    out += "<h2>Executors</h2>\n" + executors(app);
    if (!what_if.empty()) out += "<h2>What if the cluster were another size</h2>\n" + what_if_chart(app, what_if);
    out += "<h2>Diagnoses</h2>\n<table><tr><th>#</th><th>rule</th><th>explains</th><th>finding</th><th>fix</th></tr>\n";
    int n = 0;
    for (const auto& f : r->findings)
      out += fmt::format("<tr><td>{}</td><td class=\"rule\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", ++n,
                         esc(f.diagnostic.rule->name), f.explained_ms > 0 ? format_ms(f.explained_ms) : "-",
                         esc(f.diagnostic.message), esc(f.fix));
    out += "</table>\n";
    if (r->findings.empty()) out += "<p>No diagnosis.</p>\n";
  }
  out += "</body></html>\n";
  return out;
}

}  // namespace planlint::report
