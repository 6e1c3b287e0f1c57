// Rule selection, as in ruff: select (default all), then extend-select adds, then ignore removes.
#include "lint/options.hpp"

#include <cstdio>
#include <cstdlib>

#include "plan/operator_fields.hpp"

namespace planlint::lint {

bool selector_matches(const std::string& selector, const RuleInfo& rule) {
  if (selector == "ALL") return true;
  if (selector == rule.name || selector == rule.id) return true;
  return !selector.empty() && rule.id.substr(0, selector.size()) == selector;
}

bool LintOptions::enabled(const RuleInfo& rule) const {
  auto any = [&](const std::vector<std::string>& sel) {
    for (const auto& s : sel)
      if (selector_matches(s, rule)) return true;
    return false;
  };
  // Opt-in rules need to be named (or matched by a prefix / ALL) in select or extend-select.
  bool on = (select.empty() && !rule.opt_in) || any(select) || any(extend_select);
  return on && !any(ignore);
}

std::optional<double> parse_size(std::string_view text) {
  std::string t(text);
  for (const char* u : {"KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"}) {
    auto pos = t.find(u);
    if (pos != std::string::npos && pos > 0 && t[pos - 1] != ' ') {
      t.insert(pos, " ");
      break;
    }
  }
  auto bytes = plan::parse_byte_size(t);
  if (!bytes || *bytes < 0) return std::nullopt;
  return bytes;
}

bool LintOptions::targets_before(int major, int minor) const {
  if (target_spark_version.empty()) return false;
  int ma = 0, mi = 0;
  if (std::sscanf(target_spark_version.c_str(), "%d.%d", &ma, &mi) < 1) return false;
  return ma < major || (ma == major && mi < minor);
}

std::vector<std::string> unknown_selectors(const LintOptions& options) {
  std::vector<std::string> out;
  for (const auto* list : {&options.select, &options.extend_select, &options.ignore}) {
    for (const auto& s : *list) {
      bool known = false;
      for (const auto& r : all_rules()) known = known || selector_matches(s, *r.info);
      if (!known) out.push_back(s);
    }
  }
  return out;
}

std::string set_eventlog_threshold(EventLogThresholds& t, std::string_view key_value) {
  auto eq = key_value.find('=');
  if (eq == std::string_view::npos) return "expected KEY=VALUE";
  std::string key(key_value.substr(0, eq));
  std::string value(key_value.substr(eq + 1));
  char* end = nullptr;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end == nullptr || *end != '\0' || !(v >= 0))
    return "'" + value + "' is not a non-negative number";
  auto as_int = [&] { return static_cast<std::int64_t>(v); };
  auto as_u = [&] { return static_cast<std::uint64_t>(v); };
  if (key == "skew-ratio")
    t.skew_ratio = v;
  else if (key == "skew-min-task-ms")
    t.skew_min_task_ms = as_int();
  else if (key == "spill-ratio")
    t.spill_ratio = v;
  else if (key == "spill-min-bytes")
    t.spill_min_bytes = as_u();
  else if (key == "gc-ratio")
    t.gc_ratio = v;
  else if (key == "gc-min-task-ms")
    t.gc_min_task_ms = as_int();
  else if (key == "gc-min-ms")
    t.gc_min_ms = as_int();
  else if (key == "oversized-min-run-ms")
    t.oversized_min_run_ms = as_int();
  else if (key == "tiny-task-ms")
    t.tiny_task_ms = as_int();
  else if (key == "tiny-task-min-count")
    t.tiny_task_min_count = as_u();
  else if (key == "tiny-stage-min-ms")
    t.tiny_stage_min_ms = as_int();
  else if (key == "shuffle-min-bytes")
    t.shuffle_min_bytes = as_u();
  else if (key == "partition-tolerance" && v >= 1)
    t.partition_tolerance = v;
  else if (key == "target-partition-mb" && v >= 1)
    t.target_partition_mb = as_u();
  else if (key == "idle-ratio")
    t.idle_ratio = v;
  else if (key == "driver-gap-ms")
    t.driver_gap_ms = as_int();
  else if (key == "driver-ratio")
    t.driver_ratio = v;
  else
    return "unknown threshold (or a value below 1 for a tolerance or size)";
  return {};
}

}  // namespace planlint::lint
