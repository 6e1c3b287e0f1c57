// The seed guides' before/after table for two runs of one job, and their cost estimate
// (runtime × DBU rate × nodes, Photon's rate multiplier applied to a Photon run).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/eventlog.hpp"
#include "util/printable.hpp"

namespace planlint::report {
using namespace planlint::lint;  // findings, results and rule metadata: what a reporter prints

namespace {

using eventlog::Application;

std::string change(double before, double after) {
  if (before <= 0) return after > 0 ? "new" : "-";
  return fmt::format("{:+.0f} %", 100.0 * (after - before) / before);
}

struct Totals {
  std::int64_t stage_ms = 0;
  std::uint64_t shuffle = 0, spill = 0, input = 0, input_records = 0;
  std::uint32_t max_task = 0;
};
Totals totals(const Application& a) {
  Totals t;
  for (const auto& [id, s] : a.stages) {
    t.stage_ms += s.duration_ms();
    t.input += s.m.input_bytes;
    t.input_records += s.m.input_records;
    t.shuffle += s.m.shuffle_read_bytes;
    t.spill += s.m.disk_spill;
    t.max_task = std::max(t.max_task, s.q.max);
  }
  return t;
}

// A unit of work both runs did: a SQL execution (by its description) or, outside SQL, a stage (by
// its name: the call site), with its nth occurrence, so that a plan that changed its stages (a
// broadcast in place of a sort-merge join, AQE re-planning) still lines up with what it replaced.
struct Work {
  std::string key, label;
  int stages = 0;
  std::int64_t stage_ms = 0;
  std::set<std::string> joins;  // join operators of its plan
};

std::vector<Work> work_of(const Application& app) {
  std::vector<Work> out;
  std::map<std::string, int> seen;
  std::map<std::int64_t, std::size_t> by_sql;
  auto unit = [&](const std::string& label) -> Work& {
    int n = seen[label]++;
    out.push_back({label + "#" + std::to_string(n), label, 0, 0, {}});
    return out.back();
  };
  for (const auto& [id, x] : app.sql) {
    by_sql[id] = out.size();
    Work& w = unit(x.description.empty() ? "SQL execution" : x.description);
    for (const auto& n : x.nodes)
      if (n.name.find("Join") != std::string::npos || n.name.find("NestedLoop") != std::string::npos)
        w.joins.insert(n.name);
  }
  for (const auto& [id, s] : app.stages) {
    auto it = by_sql.find(s.sql_execution);
    Work& w = it != by_sql.end() ? out[it->second] : unit(s.name.empty() ? "stage" : s.name);
    ++w.stages;
    w.stage_ms += s.duration_ms();
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const Work& w) { return w.stages == 0; }), out.end());
  return out;
}

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? "no join" : out;
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
  if (!b.name.empty() && !a.name.empty() && b.name != a.name)
    out +=
        "The two logs are of applications with different names: a comparison of two runs of one job is what this "
        "table is for.\n\n";
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
  row({"input read", format_bytes(tb.input), format_bytes(ta.input),
       change(static_cast<double>(tb.input), static_cast<double>(ta.input))});
  row({"diagnoses", std::to_string(before.findings.size()), std::to_string(after.findings.size()), ""});

  // The same work, matched by what it was (not by stage id, which a changed plan renumbers).
  out += markdown
             ? "\n### The same work, before and after\n\n| work | stages | before | after | change | plan |\n"
               "|---|---|---|---|---|---|\n"
             : "\nThe same work, before and after (SQL executions by description, other stages by call site)\n\n"
               "  work                                             stages   before        after         change      "
               "plan\n";
  std::vector<Work> wb = work_of(b), wa = work_of(a);
  std::map<std::string, const Work*> after_by_key;
  for (const auto& w : wa) after_by_key[w.key] = &w;
  std::vector<std::vector<std::string>> rows;
  auto add_row = [&](const Work* x, const Work* y) {
    const Work& any = x != nullptr ? *x : *y;
    std::string plan;
    if (x != nullptr && y != nullptr && x->joins != y->joins) plan = joined(x->joins) + " -> " + joined(y->joins);
    rows.push_back({shown(any.label.substr(0, 48)),
                    fmt::format("{} -> {}", x != nullptr ? x->stages : 0, y != nullptr ? y->stages : 0),
                    x != nullptr ? format_ms(x->stage_ms) : "-", y != nullptr ? format_ms(y->stage_ms) : "-",
                    x == nullptr   ? "only after"
                    : y == nullptr ? "only before"
                                   : change(static_cast<double>(x->stage_ms), static_cast<double>(y->stage_ms)),
                    shown(plan)});
  };
  for (const auto& w : wb) {
    auto it = after_by_key.find(w.key);
    add_row(&w, it == after_by_key.end() ? nullptr : it->second);
    if (it != after_by_key.end()) after_by_key.erase(it);
  }
  for (const auto& w : wa)
    if (after_by_key.count(w.key) > 0) add_row(nullptr, &w);
  for (const auto& r : rows) {
    if (markdown)
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", r[0], r[1], r[2], r[3], r[4], r[5]);
    else {
      std::string line = fmt::format("  {:<48} {:<8} {:<13} {:<13} {:<11} {}", r[0], r[1], r[2], r[3], r[4], r[5]);
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
  }

  // What else changed: the configuration, and how much data each run read.
  out += markdown ? "\n### Configuration\n\n" : "\nConfiguration\n";
  int diffs = 0;
  for (const char* k :
       {"spark.executor.instances", "spark.executor.cores", "spark.executor.memory", "spark.driver.memory",
        "spark.dynamicAllocation.enabled", "spark.sql.adaptive.enabled", "spark.sql.shuffle.partitions",
        "spark.sql.autoBroadcastJoinThreshold", "spark.databricks.photon.enabled",
        "spark.databricks.clusterUsageTags.sparkVersion", "spark.serializer", "spark.master"}) {
    std::string x = b.conf(k), y = a.conf(k);
    if (x == y) continue;
    ++diffs;
    out += fmt::format("{}{}: {} -> {}\n", markdown ? "- " : "  ", k, x.empty() ? "(not set)" : shown(x),
                       y.empty() ? "(not set)" : shown(y));
  }
  if (b.max_cores() != a.max_cores()) {
    ++diffs;
    out += fmt::format("{}cores at the widest: {} -> {}\n", markdown ? "- " : "  ", b.max_cores(), a.max_cores());
  }
  if (b.engine() != a.engine()) {
    ++diffs;
    out += fmt::format("{}engine: {} -> {}\n", markdown ? "- " : "  ", b.engine(), a.engine());
  }
  if (diffs == 0) out += markdown ? "The same in both runs.\n" : "  the same in both runs\n";
  double ratio = tb.input > 0 && ta.input > 0 ? static_cast<double>(ta.input) / static_cast<double>(tb.input) : 1.0;
  bool inputs_differ = ratio > 1.1 || ratio < 1.0 / 1.1;
  if (inputs_differ) {
    auto per_gib = [](std::int64_t ms, std::uint64_t bytes) {
      return format_ms(static_cast<std::int64_t>(static_cast<double>(ms) * (1ULL << 30) / static_cast<double>(bytes)));
    };
    out += fmt::format(
        "\nThe after run read {:.2f}x the input of the before run ({} -> {}): compare per GiB read. Total time per "
        "GiB: {} -> {} ({}).\n",
        ratio, format_bytes(tb.input), format_bytes(ta.input), per_gib(b.duration_ms(), tb.input),
        per_gib(a.duration_ms(), ta.input),
        change(static_cast<double>(b.duration_ms()) / static_cast<double>(tb.input),
               static_cast<double>(a.duration_ms()) / static_cast<double>(ta.input)));
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
  if (inputs_differ) {
    double gb = static_cast<double>(tb.input) / (1ULL << 30), ga = static_cast<double>(ta.input) / (1ULL << 30);
    out += fmt::format("DBUs per GiB read:     {:.4f} -> {:.4f} ({}): the runs read different amounts", before_dbu / gb,
                       after_dbu / ga, change(before_dbu / gb, after_dbu / ga));
    out += before_dbu / gb > after_dbu / ga ? "; per GiB the change saves.\n" : "; per GiB the change costs more.\n";
  }
  if (saved < 0 && !inputs_differ) {
    out += "The change costs more DBUs than it saves";
    if (pa && !pb) out += ": Photon's higher rate outweighs its speed-up on this job";
    out += ".\n";
  }
  out +=
      "This is an estimate: it assumes DBUs scale linearly with run time and node count; billing data is the "
      "measure.\n";
  return out;
}

}  // namespace planlint::report
