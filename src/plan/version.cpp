// What a plan's text says about the Spark that printed it: the version range from format markers
// that changed between releases, and whether it is a streaming query. Read once per plan after the
// tree is built; rules use it to give advice that fits (AQE exists from 3.0, is on by default from
// 3.2; streaming queries never use it).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "plan/operator_fields.hpp"
#include "plan/plan.hpp"
#include "util/name_set.hpp"

namespace planlint::plan {
namespace {

std::string version_text(int v) { return fmt::format("{}.{}", v / 100, v % 100); }

void narrow(VersionGuess& g, int min, int max, std::string_view why) {
  if (min > g.min) g.min = min;
  if (max < g.max) g.max = max;
  if (std::find(g.evidence.begin(), g.evidence.end(), why) == g.evidence.end()) g.evidence.emplace_back(why);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

const util::NameSet kStreamingOperators{"StateStoreSave",
                                        "StateStoreRestore",
                                        "StreamingRelation",
                                        "StreamingRelationV2",
                                        "StreamingDataSourceV2Relation",
                                        "StreamingDataSourceV2ScanRelation",
                                        "MicroBatchScan",
                                        "ContinuousScan",
                                        "StreamingSymmetricHashJoin",
                                        "StreamingDeduplicate",
                                        "StreamingDeduplicateWithinWatermark",
                                        "StreamingGlobalLimit",
                                        "StreamingLocalLimit",
                                        "EventTimeWatermark",
                                        "FlatMapGroupsWithState",
                                        "TransformWithState",
                                        "SessionWindowStateStoreRestore",
                                        "SessionWindowStateStoreSave",
                                        "StreamingExecutionRelation",
                                        "WriteToMicroBatchDataSource",
                                        "WriteToMicroBatchDataSourceV1"};

void read_node(const Plan& plan, const PlanNode& n, VersionGuess& g, bool& streaming) {
  std::string_view name = base_operator_name(n.name);
  if (kStreamingOperators.count(name) != 0) streaming = true;
  if (name == "WriteToDataSourceV2" && n.args.find("MicroBatch") != std::string::npos) streaming = true;
  if (starts_with(n.name, "Photon")) g.databricks = true;
  if (n.section != Section::physical && n.section != Section::codegen_subtree) return;
  const std::string* arguments = n.detail("Arguments");
  std::string_view args = arguments != nullptr ? std::string_view(*arguments) : std::string_view(n.args);
  if (args.find("[plan_id=") != std::string_view::npos) narrow(g, 303, 9999, "[plan_id=n] (3.4+, some 3.3 builds)");
  bool exchange = n.kind == OpKind::shuffle_exchange || n.kind == OpKind::broadcast_exchange;
  if (exchange && args.find("[id=#") != std::string_view::npos) narrow(g, 300, 303, "exchange [id=#n] (3.0-3.3)");
  if (const auto* x = n.as<ExchangeInfo>()) {
    if (x->origin == "true" || x->origin == "false")
      narrow(g, 300, 300, "Exchange ..., " + x->origin + " (3.0)");
    else if (starts_with(x->origin, "REBALANCE"))
      narrow(g, 302, 9999, x->origin + " (3.2+)");
    else if (!x->origin.empty())
      narrow(g, 301, 9999, x->origin + " (3.1+)");
    else if (!plan.formatted && !plan.simplified && args.find("[id=#") == std::string_view::npos &&
             args.find("[plan_id=") == std::string_view::npos && x->partitioning != Partitioning::unknown)
      narrow(g, 0, 204, "Exchange without an id (before 3.0)");
  }
  if (name == "ColumnarToRow" || name == "RowToColumnar") narrow(g, 300, 9999, std::string(name) + " (3.0+)");
  if (name == "AQEShuffleRead") narrow(g, 302, 9999, "AQEShuffleRead (3.2+)");
  if (name == "CustomShuffleReader") narrow(g, 300, 301, "CustomShuffleReader (3.0-3.1)");
  if (n.kind == OpKind::adaptive_plan) narrow(g, 300, 9999, "AdaptiveSparkPlan (3.0+)");
  if (name == "WriteFiles") narrow(g, 304, 9999, "WriteFiles (3.4+)");
  if (name == "TableCacheQueryStage") narrow(g, 305, 9999, "TableCacheQueryStage (3.5+)");
  if (name == "WindowGroupLimit") narrow(g, 305, 9999, "WindowGroupLimit (3.5+)");
  if (name == "ResultQueryStage") narrow(g, 400, 9999, "ResultQueryStage (4.0+)");
  if (name == "MicroBatchScan") narrow(g, 300, 9999, "MicroBatchScan (3.0+)");
  // Spark 2 printed And / Or as `&&` / `||`; 3.0 prints AND / OR.
  if (n.kind == OpKind::filter)
    if (const auto* f = n.as<FilterInfo>(); f != nullptr && f->condition.find(" && ") != std::string::npos)
      narrow(g, 0, 204, "&& in a condition (before 3.0)");
  if (name == "TungstenExchange" || name == "TungstenAggregate" || name == "ConvertToUnsafe" || name == "ConvertToSafe")
    narrow(g, 0, 106, std::string(name) + " (1.x)");
  if (!plan.formatted && !plan.simplified && n.codegen_stage) {
    if (*n.codegen_stage > 0)
      narrow(g, 203, 9999, "*(n) codegen ids (2.3+)");
    else
      narrow(g, 200, 202, "* codegen marker without an id (2.0-2.2)");
  }
}

}  // namespace

std::string VersionGuess::text() const {
  std::string v;
  if (min > 0 && max < 9999)
    v = min == max ? version_text(min) : version_text(min) + "-" + version_text(max);
  else if (min > 0)
    v = version_text(min) + "+";
  else if (max < 9999)
    v = "up to " + version_text(max);
  if (databricks) return v.empty() ? "Databricks (Photon)" : "Databricks (Photon), Spark " + v;
  return v.empty() ? "unknown" : v;
}

void infer_plan_facts(Plan& plan) {
  VersionGuess g;
  bool streaming = false;
  auto visit = [&](const PlanNode* root) {
    for_each_node(root, [&](const PlanNode& n) { read_node(plan, n, g, streaming); });
  };
  for (const auto& s : plan.sections)
    for (const PlanNode* r : s.roots) visit(r);
  for (const auto& [number, root] : plan.subqueries) visit(root);
  if (plan.formatted) narrow(g, 300, 9999, "formatted explain (3.0+)");
  // Contradicting markers (a vendor backport): the newest marker wins.
  if (g.min > g.max) g.max = 9999;
  plan.version = std::move(g);
  plan.streaming = streaming;
}

}  // namespace planlint::plan
