// The rule registry: one line per rule, sorted by id. Adding a rule means adding its line here.
#include <array>

#include "lint/rule.hpp"

namespace planlint::rules {
using lint::PlanContext;
using lint::RuleInfo;
using lint::SourceContext;
extern const RuleInfo kPlanSyntax, kRedundantShuffle, kFilterAfterUdf, kPythonRowUdf, kMissingBroadcast,
    kHardcodedShufflePartitions, kAqeDisabled, kCartesianJoin, kWindowSinglePartition, kJoinKeyCast, kPushdownBlocked,
    kCollectLarge, kBroadcastDisabled, kSingleFileWrite, kWithColumnInLoop, kCacheWithoutUnpersist, kPythonSyntax,
    kUnusedNoqa, kBroadcastTooLarge, kPhotonFallback, kSmallFilesWrite, kEventLogSyntax, kTaskSkew, kDiskSpill,
    kGcPressure, kTinyTasks, kShufflePartitionsMismatch, kOversizedCluster, kDriverBound, kFailedStages;
using lint::EventLogContext;
void check_redundant_shuffle(PlanContext&);
void check_filter_after_udf(PlanContext&);
void check_python_row_udf(PlanContext&);
void check_missing_broadcast(PlanContext&);
void check_hardcoded_shuffle_partitions(PlanContext&);
void check_aqe_disabled(PlanContext&);
void check_cartesian_join(PlanContext&);
void check_window_single_partition(PlanContext&);
void check_join_key_cast(PlanContext&);
void check_pushdown_blocked(PlanContext&);
void check_redundant_shuffle_source(SourceContext&);
void check_filter_after_udf_source(SourceContext&);
void check_python_row_udf_source(SourceContext&);
void check_missing_broadcast_source(SourceContext&);
void check_hardcoded_shuffle_partitions_source(SourceContext&);
void check_aqe_disabled_source(SourceContext&);
void check_cartesian_join_source(SourceContext&);
void check_window_single_partition_source(SourceContext&);
void check_collect_large(SourceContext&);
void check_broadcast_disabled(SourceContext&);
void check_single_file_write(SourceContext&);
void check_withcolumn_in_loop(SourceContext&);
void check_cache_without_unpersist(SourceContext&);
void check_broadcast_too_large(PlanContext&);
void check_broadcast_too_large_source(SourceContext&);
void check_photon_fallback(PlanContext&);
void check_small_files_write(PlanContext&);
void check_small_files_write_source(SourceContext&);
void check_task_skew(EventLogContext&);
void check_missing_broadcast_measured(EventLogContext&);
void check_broadcast_too_large_measured(EventLogContext&);
void check_disk_spill(EventLogContext&);
void check_gc_pressure(EventLogContext&);
void check_tiny_tasks(EventLogContext&);
void check_shuffle_partitions_mismatch(EventLogContext&);
void check_oversized_cluster(EventLogContext&);
void check_driver_bound(EventLogContext&);
void check_failed_stages(EventLogContext&);
}  // namespace planlint::rules

namespace planlint::lint {

namespace {

using namespace planlint::rules;

const std::array kRules{
    Rule{&kPlanSyntax, nullptr, nullptr},
    Rule{&kRedundantShuffle, check_redundant_shuffle, check_redundant_shuffle_source},
    Rule{&kFilterAfterUdf, check_filter_after_udf, check_filter_after_udf_source},
    Rule{&kPythonRowUdf, check_python_row_udf, check_python_row_udf_source},
    Rule{&kMissingBroadcast, check_missing_broadcast, check_missing_broadcast_source, check_missing_broadcast_measured},
    Rule{&kHardcodedShufflePartitions, check_hardcoded_shuffle_partitions, check_hardcoded_shuffle_partitions_source},
    Rule{&kAqeDisabled, check_aqe_disabled, check_aqe_disabled_source},
    Rule{&kCartesianJoin, check_cartesian_join, check_cartesian_join_source},
    Rule{&kWindowSinglePartition, check_window_single_partition, check_window_single_partition_source},
    Rule{&kJoinKeyCast, check_join_key_cast, nullptr},
    Rule{&kPushdownBlocked, check_pushdown_blocked, nullptr},
    Rule{&kCollectLarge, nullptr, check_collect_large},
    Rule{&kBroadcastDisabled, nullptr, check_broadcast_disabled},
    Rule{&kSingleFileWrite, nullptr, check_single_file_write},
    Rule{&kWithColumnInLoop, nullptr, check_withcolumn_in_loop},
    Rule{&kCacheWithoutUnpersist, nullptr, check_cache_without_unpersist},
    Rule{&kPythonSyntax, nullptr, nullptr},
    Rule{&kUnusedNoqa, nullptr, nullptr},
    Rule{&kBroadcastTooLarge, check_broadcast_too_large, check_broadcast_too_large_source,
         check_broadcast_too_large_measured},
    Rule{&kPhotonFallback, check_photon_fallback, nullptr},
    Rule{&kSmallFilesWrite, check_small_files_write, check_small_files_write_source},
    Rule{&kEventLogSyntax, nullptr, nullptr},
    Rule{&kTaskSkew, nullptr, nullptr, check_task_skew},
    Rule{&kDiskSpill, nullptr, nullptr, check_disk_spill},
    Rule{&kGcPressure, nullptr, nullptr, check_gc_pressure},
    Rule{&kTinyTasks, nullptr, nullptr, check_tiny_tasks},
    Rule{&kShufflePartitionsMismatch, nullptr, nullptr, check_shuffle_partitions_mismatch},
    Rule{&kOversizedCluster, nullptr, nullptr, check_oversized_cluster},
    Rule{&kDriverBound, nullptr, nullptr, check_driver_bound},
    Rule{&kFailedStages, nullptr, nullptr, check_failed_stages},
};

}  // namespace

std::span<const Rule> all_rules() { return kRules; }

const RuleInfo& plan_syntax_rule() { return kPlanSyntax; }
const RuleInfo& python_syntax_rule() { return kPythonSyntax; }
const RuleInfo& unused_noqa_rule() { return kUnusedNoqa; }
const RuleInfo& event_log_syntax_rule() { return kEventLogSyntax; }

Diagnostic syntax_diagnostic(const RuleInfo& rule, std::string path, std::uint32_t line, std::uint32_t column,
                             std::string message) {
  Diagnostic d;
  d.rule = &rule;
  d.severity = Severity::error;
  d.location = Location{std::move(path), line, column, line, column + 1};
  d.message = std::move(message);
  return d;
}

const RuleInfo* find_rule(std::string_view id_or_name) {
  for (const auto& r : kRules)
    if (r.info->id == id_or_name || r.info->name == id_or_name) return r.info;
  return nullptr;
}

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::info:
      return "info";
    case Severity::warning:
      return "warning";
    case Severity::error:
      return "error";
  }
  return "warning";
}

std::string_view to_string(Applicability a) {
  switch (a) {
    case Applicability::display_only:
      return "display-only";
    case Applicability::unsafe:
      return "unsafe";
    case Applicability::safe:
      return "safe";
  }
  return "display-only";
}

std::string_view to_string(FixAvailability f) {
  switch (f) {
    case FixAvailability::never:
      return "never";
    case FixAvailability::sometimes:
      return "sometimes";
    case FixAvailability::always:
      return "always";
  }
  return "never";
}

}  // namespace planlint::lint
