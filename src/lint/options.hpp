// Options that reach the rules and the rule selection (--select / --ignore / --extend-select).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/rule.hpp"

namespace planlint::lint {

// The diagnoses' thresholds, from the seed guides; each can be set with `planlint eventlog --threshold KEY=VALUE`.
struct EventLogThresholds {
  double skew_ratio = 2.0;                       // task-skew: max task > ratio x median
  std::int64_t skew_min_task_ms = 10'000;        // ... and the longest task at least this long
  double spill_ratio = 0.1;                      // disk-spill: disk spill / shuffle read
  std::uint64_t spill_min_bytes = 64ULL << 20;   // ... and at least this much spilled
  double gc_ratio = 0.1;                         // gc-pressure: GC time / task time
  std::int64_t gc_min_task_ms = 1'000;           // ... on stages whose median task runs this long
  std::int64_t gc_min_ms = 10'000;               // ... and at least this much GC in the stage
  std::int64_t tiny_task_ms = 100;               // tiny-tasks and oversized-cluster: a task under this is tiny
  std::uint64_t tiny_task_min_count = 1'000;     // tiny-tasks: a stage with at least this many tasks
  std::int64_t tiny_stage_min_ms = 10'000;       // ... that ran at least this long
  std::uint64_t shuffle_min_bytes = 1ULL << 30;  // shuffle-partitions-mismatch: only shuffles this big
  double partition_tolerance = 2.0;              // ... and counts off the formula by more than this factor
  std::uint64_t target_partition_mb = 128;       // the formula's partition size
  double idle_ratio = 0.5;                       // oversized-cluster: cores idle more than this share
  std::int64_t oversized_min_run_ms = 300'000;   // ... on a run at least this long
  std::int64_t driver_gap_ms = 10'000;           // driver-bound: gaps with no job running this long count
  double driver_ratio = 0.2;                     // ... when they add up to this share of the run
  std::int64_t driver_min_ms = 30'000;           // ... and to at least this long
};

struct LintOptions {
  std::vector<std::string> select;  // empty: every rule
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  Impact min_impact = Impact::low;  // rules below this impact are not run (--min-impact)
  std::vector<std::string> warn;    // reported, but never make the exit status 1 (--warn)
  // The lowest severity that makes the exit status 1 (--fail-on). Info findings are advisory: they are
  // printed but do not fail a run unless --fail-on info asks for it.
  Severity fail_on = Severity::warning;
  bool fail_on_given = false;  // --fail-on was on the command line (it then wins over a configuration's)
  double broadcast_threshold_bytes = 10.0 * 1024 * 1024;  // spark.sql.autoBroadcastJoinThreshold default
  std::vector<std::string> small_tables;                  // table names that missing-broadcast treats as small
  // Tables and paths (globs) the user declares large: evidence of size that source code does not show.
  std::vector<std::string> large_tables;
  std::vector<std::int64_t> tolerated_shuffle_partitions;  // values hardcoded-shuffle-partitions accepts
  std::string target_spark_version;                        // "3.1", "3.5.0"; empty: current Spark
  // The file is in a Databricks Asset Bundle project (a databricks.yml above it): it runs on a
  // Databricks runtime (Arrow on by default, as in a Databricks notebook).
  bool databricks_project = false;
  EventLogThresholds eventlog;
  std::string source_root;  // event logs: where the call sites' source files are (default: as recorded)

  // True when a target version is set and is older than major.minor.
  [[nodiscard]] bool targets_before(int major, int minor) const;

  // A selector is a rule id ("SPK101"), a name ("redundant-shuffle"), an id prefix ("SPK1", a family) or "ALL".
  [[nodiscard]] bool enabled(const RuleInfo& rule) const;
  // Whether this finding makes the run fail (exit 1): not a --warn rule, and at or above --fail-on.
  [[nodiscard]] bool fails(const Diagnostic& d) const;
};

// "10MB", "10 MiB", "10485760": a size in bytes for thresholds given by users; nullopt if not a size.
std::optional<double> parse_size(std::string_view text);
// "3", "3.1", "3.5.0", "3.5.0-SNAPSHOT": a Spark version as --target-spark-version takes it.
bool is_spark_version(std::string_view text);

// "skew-ratio=3": sets one threshold; the error, or "".
std::string set_eventlog_threshold(EventLogThresholds& t, std::string_view key_value);
// The keys --threshold accepts, comma-separated, for --help.
std::string eventlog_threshold_keys();

bool selector_matches(const std::string& selector, const RuleInfo& rule);
// Selectors that match no rule, for a usage error.
std::vector<std::string> unknown_selectors(const LintOptions& options);

}  // namespace planlint::lint
