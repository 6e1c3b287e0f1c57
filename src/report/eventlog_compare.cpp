// The seed guides' before/after table for two runs of one job, and their cost estimate
// (runtime × DBU rate × nodes, Photon's rate multiplier applied to a Photon run).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "report/eventlog.hpp"
#include "util/printable.hpp"

namespace planlint::report {
using namespace planlint::lint;  // findings, results and rule metadata: what a reporter prints

namespace {

using eventlog::Application;
using eventlog::Stage;

std::string change(double before, double after) {
  if (before <= 0) return after > 0 ? "new" : "-";
  return fmt::format("{:+.0f} %", 100.0 * (after - before) / before);
}

double skew(const Stage& s) { return s.q.median > 0 ? static_cast<double>(s.q.max) / s.q.median : 0.0; }

struct Totals {
  std::int64_t stage_ms = 0;
  std::uint64_t shuffle = 0, spill = 0;
  std::uint32_t max_task = 0;
};
Totals totals(const Application& a) {
  Totals t;
  for (const auto& [id, s] : a.stages) {
    t.stage_ms += s.duration_ms();
    t.shuffle += s.m.shuffle_read_bytes;
    t.spill += s.m.disk_spill;
    t.max_task = std::max(t.max_task, s.q.max);
  }
  return t;
}

}  // namespace

std::string render_eventlog_compare(const EventLogResult& before, const EventLogResult& after, const CostOptions& cost,
                                    bool markdown) {
  const Application& b = before.app;
  const Application& a = after.app;
  std::string out;
  auto shown = [markdown](std::string_view s) { return markdown ? util::markdown_text(s) : util::printable(s); };
  out += fmt::format("Before: {} ({})\n{}After:  {} ({})\n\n", shown(b.path), shown(b.name), markdown ? "\n" : "",
                     shown(a.path), shown(a.name));
  std::string sep = markdown ? " | " : "  ";
  auto row = [&](const std::vector<std::string>& cells) {
    std::string l = markdown ? "| " : "";
    for (std::size_t i = 0; i < cells.size(); ++i)
      l += (i > 0 ? sep : "") + (markdown ? cells[i] : fmt::format("{:<{}}", cells[i], i == 0 ? 34 : 14));
    while (!markdown && !l.empty() && l.back() == ' ') l.pop_back();
    out += l + (markdown ? " |\n" : "\n");
  };
  row({"metric", "before", "after", "change"});
  if (markdown) out += "|---|---|---|---|\n";
  Totals tb = totals(b), ta = totals(a);
  row({"total time", format_ms(b.duration_ms()), format_ms(a.duration_ms()),
       change(static_cast<double>(b.duration_ms()), static_cast<double>(a.duration_ms()))});
  row({"stage time (sum)", format_ms(tb.stage_ms), format_ms(ta.stage_ms),
       change(static_cast<double>(tb.stage_ms), static_cast<double>(ta.stage_ms))});
  row({"shuffle read", format_bytes(tb.shuffle), format_bytes(ta.shuffle),
       change(static_cast<double>(tb.shuffle), static_cast<double>(ta.shuffle))});
  row({"spill (disk)", format_bytes(tb.spill), format_bytes(ta.spill),
       change(static_cast<double>(tb.spill), static_cast<double>(ta.spill))});
  row({"max task", format_ms(tb.max_task), format_ms(ta.max_task),
       change(static_cast<double>(tb.max_task), static_cast<double>(ta.max_task))});
  row({"diagnoses", std::to_string(before.findings.size()), std::to_string(after.findings.size()), ""});

  // Stages by id: two runs of the same code number their stages alike.
  out +=
      markdown
          ? "\n| stage | name | before | after | change | skew before | skew after |\n|---|---|---|---|---|---|---|\n"
          : "\nstage  name                                      before        after         change   skew before → "
            "after\n";
  std::set<int> ids;
  for (const auto& [id, s] : b.stages) ids.insert(id);
  for (const auto& [id, s] : a.stages) ids.insert(id);
  for (int id : ids) {
    auto bi = b.stages.find(id);
    auto ai = a.stages.find(id);
    const Stage* sb = bi == b.stages.end() ? nullptr : &bi->second;
    const Stage* sa = ai == a.stages.end() ? nullptr : &ai->second;
    std::string name = shown((sb != nullptr ? sb->name : sa->name).substr(0, 40));
    std::string db = sb != nullptr ? format_ms(sb->duration_ms()) : "-";
    std::string da = sa != nullptr ? format_ms(sa->duration_ms()) : "-";
    std::string ch = change(sb != nullptr ? static_cast<double>(sb->duration_ms()) : 0,
                            sa != nullptr ? static_cast<double>(sa->duration_ms()) : 0);
    std::string kb = sb != nullptr ? fmt::format("{:.1f}x", skew(*sb)) : "-";
    std::string ka = sa != nullptr ? fmt::format("{:.1f}x", skew(*sa)) : "-";
    if (markdown)
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", id, name, db, da, ch, kb, ka);
    else
      out += fmt::format("{:<6} {:<41} {:<13} {:<13} {:<8} {} → {}\n", id, name, db, da, ch, kb, ka);
  }

  // The cost formula: runtime × DBU rate × nodes; a Photon run is billed at the multiplied rate.
  out += markdown ? "\n### Cost impact estimate\n\n" : "\nCost impact estimate\n";
  auto dbus = [&](const Application& app, int& nodes, bool& photon) {
    nodes = cost.nodes > 0 ? cost.nodes : app.nodes();
    photon = app.engine() == "photon";
    double hours = static_cast<double>(app.duration_ms()) / 3'600'000.0;
    return hours * cost.dbu_rate * nodes * (photon ? cost.photon_multiplier : 1.0);
  };
  if (cost.dbu_rate <= 0) {
    out +=
        "not computed: give --dbu-rate (DBU per node-hour of the instance type; --nodes overrides the node count "
        "read from the log)\n";
    return out;
  }
  int nb = 0, na = 0;
  bool pb = false, pa = false;
  double before_dbu = dbus(b, nb, pb), after_dbu = dbus(a, na, pa);
  out += fmt::format("DBUs per run (before): {:.3f}  ({} × {} DBU/h × {} node{}{})\n", before_dbu,
                     format_ms(b.duration_ms()), cost.dbu_rate, nb, nb == 1 ? "" : "s",
                     pb ? fmt::format(" × {} Photon", cost.photon_multiplier) : "");
  out += fmt::format("DBUs per run (after):  {:.3f}  ({} × {} DBU/h × {} node{}{})\n", after_dbu,
                     format_ms(a.duration_ms()), cost.dbu_rate, na, na == 1 ? "" : "s",
                     pa ? fmt::format(" × {} Photon", cost.photon_multiplier) : "");
  double saved = before_dbu - after_dbu;
  out += fmt::format("DBU savings per run:   {:.3f} ({})\n", saved, change(before_dbu, after_dbu));
  if (saved < 0) out += "The change costs more DBUs than it saves";
  if (saved < 0 && pa && !pb) out += ": Photon's higher rate outweighs its speed-up on this job";
  if (saved < 0) out += ".\n";
  out +=
      "This is an estimate: it assumes DBUs scale linearly with run time and node count; billing data is the "
      "measure.\n";
  return out;
}

}  // namespace planlint::report
