// One self-contained HTML page per run: the stage timeline, the task-duration distribution of the
// slowest stages and the diagnoses (inline SVG and CSS, no script, nothing fetched).
#include <fmt/format.h>

#include <algorithm>

#include "report/eventlog.hpp"
#include "util/printable.hpp"

namespace planlint::report {
using namespace planlint::lint;  // findings, results and rule metadata: what a reporter prints

namespace {

std::string esc(std::string_view s) { return util::html_text(s); }

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
      fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"stage timeline\">\n", kWidth, height);
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
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"11\">0</text><text x=\"{}\" y=\"{}\" font-size=\"11\" "
      "text-anchor=\"end\">{}</text>\n</svg>\n",
      kLabel, y + 14, kWidth - 10, y + 14, format_ms(t1 - t0));
  return svg;
}

std::string histogram(const eventlog::Stage& s) {
  constexpr int kBins = 30, kWidth = 420, kHeight = 120;
  if (s.durations.empty()) return {};
  std::vector<int> bins(kBins, 0);
  double top = std::max<double>(1.0, s.q.max);
  for (auto d : s.durations) ++bins[std::min(kBins - 1, static_cast<int>(d / top * kBins))];
  int most = *std::max_element(bins.begin(), bins.end());
  std::string svg =
      fmt::format("<figure><svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"task durations of stage {}\">\n",
                  kWidth, kHeight + 16, s.id);
  double bw = static_cast<double>(kWidth) / kBins;
  for (int i = 0; i < kBins; ++i) {
    double h = most > 0 ? static_cast<double>(bins[i]) / most * kHeight : 0;
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#5cb85c\"><title>{} "
        "tasks</title></rect>\n",
        i * bw, kHeight - h, bw - 1, h, bins[i]);
  }
  svg += fmt::format(
      "<text x=\"0\" y=\"{}\" font-size=\"11\">0</text><text x=\"{}\" y=\"{}\" font-size=\"11\" "
      "text-anchor=\"end\">{}</text></svg>\n",
      kHeight + 14, kWidth, kHeight + 14, format_ms(s.q.max));
  svg += fmt::format(
      "<figcaption>stage {} ({}): {} tasks; min {}, p25 {}, median {}, p75 {}, max {}</figcaption></figure>\n", s.id,
      esc(s.name), s.durations.size(), format_ms(s.q.min), format_ms(s.q.p25), format_ms(s.q.median),
      format_ms(s.q.p75), format_ms(s.q.max));
  return svg;
}

}  // namespace

std::string render_eventlog_html(const std::vector<const EventLogResult*>& results) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>planlint eventlog</title>\n"
      "<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1000px}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;text-align:left}figure{display:inline-block;"
      "margin:0 1em 1em 0}.rule{font-weight:bold}</style></head><body>\n";
  for (const auto* r : results) {
    const auto& app = r->app;
    out += fmt::format("<h1>{}</h1>\n<p>{} {} · Spark {} · engine {} · {} · up to {} cores</p>\n", esc(app.name),
                       esc(app.path), esc(app.id), esc(app.spark_version), esc(app.engine()),
                       format_ms(app.duration_ms()), app.max_cores());
    if (!r->io_error.empty()) {
      out += "<p>Not analysed: " + esc(r->io_error) + "</p>\n";
      continue;
    }
    out += "<h2>Stage timeline</h2>\n" + timeline(app);
    out += "<h2>Task durations of the slowest stages</h2>\n";
    for (const auto* s : app.slowest_stages(3)) out += histogram(*s);
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
