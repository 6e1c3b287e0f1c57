// Rule selection, as in ruff: select (default all), then extend-select adds, then ignore removes.
#include "lint/options.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <variant>

#include "plan/operator_fields.hpp"

namespace planlint::lint {

bool selector_matches(const std::string& selector, const RuleInfo& rule) {
  if (selector == "ALL") return true;
  if (selector == rule.name || selector == rule.id) return true;
  if (selector.empty()) return false;
  // A prefix of the id ("SPK2": the Python family), or of the id it had before 0.2 ("PL01").
  std::string_view old = legacy_id(rule);
  return rule.id.substr(0, selector.size()) == selector ||
         (selector.size() > 2 && !old.empty() && old.substr(0, selector.size()) == selector);
}

namespace {
// The rules that say an input could not be read are never dropped by impact: that would be a report
// of a clean run after a failure.
bool reports_unreadable_input(const RuleInfo& rule) {
  return &rule == &plan_syntax_rule() || &rule == &python_syntax_rule() || &rule == &event_log_syntax_rule();
}
}  // namespace

bool LintOptions::enabled(const RuleInfo& rule) const {
  auto any = [&](const std::vector<std::string>& sel) {
    for (const auto& s : sel)
      if (selector_matches(s, rule)) return true;
    return false;
  };
  // Opt-in rules need to be named (or matched by a prefix / ALL) in select or extend-select.
  bool on = (select.empty() && !rule.opt_in) || any(select) || any(extend_select);
  if (rule.impact < min_impact && !reports_unreadable_input(rule)) return false;
  return on && !any(ignore);
}

bool LintOptions::fails(const Diagnostic& d) const {
  if (d.severity < fail_on) return false;
  return std::none_of(warn.begin(), warn.end(), [&](const std::string& s) { return selector_matches(s, *d.rule); });
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
  // Not NaN, not infinite, not past what a 64-bit count of bytes holds (an exabyte is plenty).
  if (!bytes || !std::isfinite(*bytes) || *bytes < 0 || *bytes > 1e18) return std::nullopt;
  return bytes;
}

bool is_spark_version(std::string_view text) {
  // Up to three dot-separated numbers (the first from 1 to 99), then an optional -suffix or +suffix.
  std::size_t i = 0, parts = 0;
  while (parts < 3) {
    std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0 && i - start < 4) ++i;
    if (i == start) return false;
    if (parts == 0 && (i - start > 2 || text[start] == '0')) return false;
    ++parts;
    if (i < text.size() && text[i] == '.' && parts < 3) {
      ++i;
      continue;
    }
    break;
  }
  if (i == text.size()) return true;
  if (text[i] != '-' && text[i] != '+') return false;
  if (++i == text.size()) return false;
  for (; i < text.size(); ++i)
    if (std::isalnum(static_cast<unsigned char>(text[i])) == 0 && text[i] != '.') return false;
  return true;
}

bool LintOptions::targets_before(int major, int minor) const {
  if (target_spark_version.empty()) return false;
  int ma = 0, mi = 0;
  if (std::sscanf(target_spark_version.c_str(), "%d.%d", &ma, &mi) < 1) return false;
  return ma < major || (ma == major && mi < minor);
}

std::vector<std::string> unknown_selectors(const LintOptions& options) {
  std::vector<std::string> out;
  for (const auto* list : {&options.select, &options.extend_select, &options.ignore, &options.warn}) {
    for (const auto& s : *list) {
      bool known = false;
      for (const auto& r : all_rules()) known = known || selector_matches(s, *r.info);
      if (!known) out.push_back(s);
    }
  }
  return out;
}

namespace {

// Every --threshold key, in the order --help lists them: one table for parsing and for the help.
struct ThresholdKey {
  std::string_view key;
  std::variant<double EventLogThresholds::*, std::int64_t EventLogThresholds::*, std::uint64_t EventLogThresholds::*>
      member;
  double min = 0;  // tolerances and sizes must be at least 1
};

const ThresholdKey kThresholdKeys[] = {
    {"skew-ratio", &EventLogThresholds::skew_ratio},
    {"skew-min-task-ms", &EventLogThresholds::skew_min_task_ms},
    {"spill-ratio", &EventLogThresholds::spill_ratio},
    {"spill-min-bytes", &EventLogThresholds::spill_min_bytes},
    {"gc-ratio", &EventLogThresholds::gc_ratio},
    {"gc-min-task-ms", &EventLogThresholds::gc_min_task_ms},
    {"gc-min-ms", &EventLogThresholds::gc_min_ms},
    {"oversized-min-run-ms", &EventLogThresholds::oversized_min_run_ms},
    {"tiny-task-ms", &EventLogThresholds::tiny_task_ms},
    {"tiny-task-min-count", &EventLogThresholds::tiny_task_min_count},
    {"tiny-stage-min-ms", &EventLogThresholds::tiny_stage_min_ms},
    {"shuffle-min-bytes", &EventLogThresholds::shuffle_min_bytes},
    {"partition-tolerance", &EventLogThresholds::partition_tolerance, 1},
    {"target-partition-mb", &EventLogThresholds::target_partition_mb, 1},
    {"idle-ratio", &EventLogThresholds::idle_ratio},
    {"driver-gap-ms", &EventLogThresholds::driver_gap_ms},
    {"driver-ratio", &EventLogThresholds::driver_ratio},
    {"driver-min-ms", &EventLogThresholds::driver_min_ms},
};

}  // namespace

std::string eventlog_threshold_keys() {
  std::string out;
  for (const auto& k : kThresholdKeys) out += (out.empty() ? "" : ", ") + std::string(k.key);
  return out;
}

std::string set_eventlog_threshold(EventLogThresholds& t, std::string_view key_value) {
  auto eq = key_value.find('=');
  if (eq == std::string_view::npos) return "expected KEY=VALUE";
  std::string_view key = key_value.substr(0, eq);
  std::string value(key_value.substr(eq + 1));
  char* end = nullptr;
  double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end == nullptr || *end != '\0' || !(v >= 0))
    return "'" + value + "' is not a non-negative number";
  for (const auto& k : kThresholdKeys) {
    if (k.key != key || v < k.min) continue;
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(t.*member)>;
          t.*member = static_cast<T>(v);
        },
        k.member);
    return {};
  }
  return "unknown threshold (or a value below 1 for a tolerance or size)";
}

}  // namespace planlint::lint
