// Options that reach the rules and the rule selection (--select / --ignore / --extend-select).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/rule.hpp"

namespace planlint::lint {

struct LintOptions {
  std::vector<std::string> select;  // empty: every rule
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  double broadcast_threshold_bytes = 10.0 * 1024 * 1024;   // spark.sql.autoBroadcastJoinThreshold default
  std::vector<std::string> small_tables;                   // table names that missing-broadcast treats as small
  std::vector<std::int64_t> tolerated_shuffle_partitions;  // values hardcoded-shuffle-partitions accepts
  std::string target_spark_version;                        // "3.1", "3.5.0"; empty: current Spark

  // True when a target version is set and is older than major.minor.
  [[nodiscard]] bool targets_before(int major, int minor) const;

  // A selector is a rule id ("PL001"), a name ("redundant-shuffle"), an id prefix ("PL0") or "ALL".
  [[nodiscard]] bool enabled(const RuleInfo& rule) const;
};

// "10MB", "10 MiB", "10485760": a size in bytes for thresholds given by users; nullopt if not a size.
std::optional<double> parse_size(std::string_view text);

bool selector_matches(const std::string& selector, const RuleInfo& rule);
// Selectors that match no rule, for a usage error.
std::vector<std::string> unknown_selectors(const LintOptions& options);

}  // namespace planlint::lint
