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
    kGcPressure, kTinyTasks, kShufflePartitionsMismatch, kOversizedCluster, kDriverBound, kFailedStages,
    kSchemaInference, kCountForEmptiness, kToPandasWithoutArrow, kRddFallback, kLoopLineageGrowth, kRecomputedLineage;
extern const RuleInfo kShuffleAdded, kShuffleRemoved, kJoinStrategyRegressed, kJoinStrategyImproved, kPythonEvalAdded,
    kScanReadsMoreColumns, kPushdownLost, kNewTableScan, kPartitionCountChanged;
using lint::DiffContext;
void check_shuffle_added(DiffContext&);
void check_shuffle_removed(DiffContext&);
void check_join_strategy_regressed(DiffContext&);
void check_join_strategy_improved(DiffContext&);
void check_python_eval_added(DiffContext&);
void check_scan_reads_more_columns(DiffContext&);
void check_pushdown_lost(DiffContext&);
void check_new_table_scan(DiffContext&);
void check_partition_count_changed(DiffContext&);
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
void check_schema_inference(SourceContext&);
void check_count_for_emptiness(SourceContext&);
void check_topandas_without_arrow(SourceContext&);
void check_rdd_fallback(SourceContext&);
void check_rdd_fallback_plan(PlanContext&);
void check_loop_lineage_growth(SourceContext&);
void check_recomputed_lineage(SourceContext&);
}  // namespace planlint::rules

namespace planlint::lint {

namespace {

using namespace planlint::rules;

const std::array kRules{
    Rule{&kPlanSyntax, nullptr, nullptr},
    Rule{&kPythonSyntax, nullptr, nullptr},
    Rule{&kEventLogSyntax, nullptr, nullptr},
    Rule{&kUnusedNoqa, nullptr, nullptr},
    Rule{&kRedundantShuffle, check_redundant_shuffle, check_redundant_shuffle_source},
    Rule{&kMissingBroadcast, check_missing_broadcast, check_missing_broadcast_source, check_missing_broadcast_measured},
    Rule{&kBroadcastTooLarge, check_broadcast_too_large, check_broadcast_too_large_source,
         check_broadcast_too_large_measured},
    Rule{&kCartesianJoin, check_cartesian_join, check_cartesian_join_source},
    Rule{&kJoinKeyCast, check_join_key_cast, nullptr},
    Rule{&kWindowSinglePartition, check_window_single_partition, check_window_single_partition_source},
    Rule{&kPythonRowUdf, check_python_row_udf, check_python_row_udf_source},
    Rule{&kFilterAfterUdf, check_filter_after_udf, check_filter_after_udf_source},
    Rule{&kCollectLarge, nullptr, check_collect_large},
    Rule{&kToPandasWithoutArrow, nullptr, check_topandas_without_arrow},
    Rule{&kCountForEmptiness, nullptr, check_count_for_emptiness},
    Rule{&kRddFallback, check_rdd_fallback_plan, check_rdd_fallback},
    Rule{&kHardcodedShufflePartitions, check_hardcoded_shuffle_partitions, check_hardcoded_shuffle_partitions_source},
    Rule{&kAqeDisabled, check_aqe_disabled, check_aqe_disabled_source},
    Rule{&kBroadcastDisabled, nullptr, check_broadcast_disabled},
    Rule{&kPushdownBlocked, check_pushdown_blocked, nullptr},
    Rule{&kSingleFileWrite, nullptr, check_single_file_write},
    Rule{&kSmallFilesWrite, check_small_files_write, check_small_files_write_source},
    Rule{&kSchemaInference, nullptr, check_schema_inference},
    Rule{&kWithColumnInLoop, nullptr, check_withcolumn_in_loop},
    Rule{&kCacheWithoutUnpersist, nullptr, check_cache_without_unpersist},
    Rule{&kRecomputedLineage, nullptr, check_recomputed_lineage, nullptr, nullptr, true},
    Rule{&kLoopLineageGrowth, nullptr, check_loop_lineage_growth},
    Rule{&kPhotonFallback, check_photon_fallback, nullptr},
    Rule{&kShuffleAdded, nullptr, nullptr, nullptr, check_shuffle_added},
    Rule{&kShuffleRemoved, nullptr, nullptr, nullptr, check_shuffle_removed},
    Rule{&kJoinStrategyRegressed, nullptr, nullptr, nullptr, check_join_strategy_regressed},
    Rule{&kJoinStrategyImproved, nullptr, nullptr, nullptr, check_join_strategy_improved},
    Rule{&kPythonEvalAdded, nullptr, nullptr, nullptr, check_python_eval_added},
    Rule{&kScanReadsMoreColumns, nullptr, nullptr, nullptr, check_scan_reads_more_columns},
    Rule{&kPushdownLost, nullptr, nullptr, nullptr, check_pushdown_lost},
    Rule{&kNewTableScan, nullptr, nullptr, nullptr, check_new_table_scan},
    Rule{&kPartitionCountChanged, nullptr, nullptr, nullptr, check_partition_count_changed},
    Rule{&kTaskSkew, nullptr, nullptr, check_task_skew},
    Rule{&kDiskSpill, nullptr, nullptr, check_disk_spill},
    Rule{&kGcPressure, nullptr, nullptr, check_gc_pressure},
    Rule{&kTinyTasks, nullptr, nullptr, check_tiny_tasks},
    Rule{&kShufflePartitionsMismatch, nullptr, nullptr, check_shuffle_partitions_mismatch},
    Rule{&kOversizedCluster, nullptr, nullptr, check_oversized_cluster},
    Rule{&kDriverBound, nullptr, nullptr, check_driver_bound},
    Rule{&kFailedStages, nullptr, nullptr, check_failed_stages},
};

// Ids were "PL" + three digits in 0.1; "PL" is ruff's Pylint family, so they became "SPK" + a family
// digit + two. The old ids are still read (selectors, noqa comments) so upgrading suppresses the same.
struct LegacyId {
  std::string_view old_id;
  const RuleInfo* rule;
};
const std::array kLegacyIds{
    LegacyId{"PL000", &kPlanSyntax},
    LegacyId{"PL001", &kRedundantShuffle},
    LegacyId{"PL002", &kFilterAfterUdf},
    LegacyId{"PL003", &kPythonRowUdf},
    LegacyId{"PL004", &kMissingBroadcast},
    LegacyId{"PL005", &kHardcodedShufflePartitions},
    LegacyId{"PL006", &kAqeDisabled},
    LegacyId{"PL007", &kCartesianJoin},
    LegacyId{"PL008", &kWindowSinglePartition},
    LegacyId{"PL009", &kJoinKeyCast},
    LegacyId{"PL010", &kPushdownBlocked},
    LegacyId{"PL011", &kCollectLarge},
    LegacyId{"PL012", &kBroadcastDisabled},
    LegacyId{"PL013", &kSingleFileWrite},
    LegacyId{"PL014", &kWithColumnInLoop},
    LegacyId{"PL015", &kCacheWithoutUnpersist},
    LegacyId{"PL016", &kPythonSyntax},
    LegacyId{"PL017", &kUnusedNoqa},
    LegacyId{"PL018", &kBroadcastTooLarge},
    LegacyId{"PL019", &kPhotonFallback},
    LegacyId{"PL020", &kSmallFilesWrite},
    LegacyId{"PL021", &kEventLogSyntax},
    LegacyId{"PL022", &kTaskSkew},
    LegacyId{"PL023", &kDiskSpill},
    LegacyId{"PL024", &kGcPressure},
    LegacyId{"PL025", &kTinyTasks},
    LegacyId{"PL026", &kShufflePartitionsMismatch},
    LegacyId{"PL027", &kOversizedCluster},
    LegacyId{"PL028", &kDriverBound},
    LegacyId{"PL029", &kFailedStages},
};

const std::array kFamilies{
    RuleFamily{"SPK0", "planlint itself: inputs it cannot read, stale suppressions"},
    RuleFamily{"SPK1", "shuffles and joins"},
    RuleFamily{"SPK2", "Python, the driver and data leaving Spark"},
    RuleFamily{"SPK3", "configuration"},
    RuleFamily{"SPK4", "reading and writing data"},
    RuleFamily{"SPK5", "lineage, loops and caching"},
    RuleFamily{"SPK6", "execution engines (Photon)"},
    RuleFamily{"SPK7", "plan changes (planlint diff)"},
    RuleFamily{"SPK9", "run-time diagnoses from event logs"},
};

}  // namespace

std::span<const Rule> all_rules() { return kRules; }
std::span<const RuleFamily> rule_families() { return kFamilies; }

std::string_view legacy_id(const RuleInfo& rule) {
  for (const auto& l : kLegacyIds)
    if (l.rule == &rule) return l.old_id;
  return {};
}

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
  for (const auto& l : kLegacyIds)
    if (l.old_id == id_or_name) return l.rule;
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

std::string_view to_string(Impact i) {
  switch (i) {
    case Impact::low:
      return "low";
    case Impact::medium:
      return "medium";
    case Impact::high:
      return "high";
  }
  return "medium";
}

std::optional<Severity> parse_severity(std::string_view text) {
  for (Severity s : {Severity::info, Severity::warning, Severity::error})
    if (to_string(s) == text) return s;
  return std::nullopt;
}

std::optional<Impact> parse_impact(std::string_view text) {
  for (Impact i : {Impact::low, Impact::medium, Impact::high})
    if (to_string(i) == text) return i;
  return std::nullopt;
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
