// Rule selection, as in ruff: select (default all), then extend-select adds, then ignore removes.
#include "lint/options.hpp"

#include <cstdio>

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

}  // namespace planlint::lint
