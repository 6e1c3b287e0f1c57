// Structural diff of two physical plans: operators matched by shape and position, never by the
// expression ids, exchange ids or codegen stage numbers Spark renumbers from run to run.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "plan/plan.hpp"

namespace planlint::plan {

// What a node is for matching: its class ("join" for every join strategy, "shuffle", "aggregate",
// ..., the operator name for the rest), its text without renumbered ids, and the scans below it
// (the tables and files it reads), which anchor it however the operators above them change.
struct NodeShape {
  std::string cls;
  std::string signature;
  std::string anchor;
  std::string head;                 // the first argument without ids: "hashpartitioning(k, 200)", "[k], [k]"
  std::string parent_cls;           // the class of the operator above ("root" for none)
  std::vector<std::uint32_t> path;  // the classes (numbered) from the root down to the node, wrappers left
                                    // out, the nearest 64
};

struct OperatorDiff {
  std::vector<std::pair<const PlanNode*, const PlanNode*>> matched;  // (before, after), in BEFORE's order
  std::vector<const PlanNode*> added;                                // in AFTER only, in its order
  std::vector<const PlanNode*> removed;                              // in BEFORE only, in its order
  std::vector<bool> text_changed;                                    // per matched pair: its text (ids aside) differs
  std::size_t changed = 0;                                           // matched pairs whose text differs
  std::unordered_map<const PlanNode*, const PlanNode*> to_after, to_before;

  [[nodiscard]] bool identical() const { return added.empty() && removed.empty() && changed == 0; }
  // The AFTER operator closest to where a removed BEFORE operator was: its nearest matched ancestor.
  [[nodiscard]] const PlanNode* after_site_of(const PlanNode* removed_node) const;
};

// Nodes: the operators to compare (a plan's physical operators, in pre-order); parent and child
// links outside the lists are ignored.
OperatorDiff diff_operators(const std::vector<const PlanNode*>& before, const std::vector<const PlanNode*>& after);

// The shape of one node (exposed for tests and for the diff rules' messages).
NodeShape shape_of(const PlanNode& node);
// Operator text without renumbered ids: "Exchange hashpartitioning(k#12, 200), ENSURE_REQUIREMENTS,
// [plan_id=45]" -> "Exchange hashpartitioning(k, 200), ENSURE_REQUIREMENTS, [plan_id]".
std::string without_run_ids(std::string_view text);
// What a scan reads: "scan default.store_sales", its files when there is no table, the output
// columns of a local table. Empty for operators that are not leaves.
std::string scan_identity(const PlanNode& node);
// The files of a scan's Location: "InMemoryFileIndex(1 paths)[s3://lake/t]" -> "s3://lake/t".
std::string scan_location(std::string_view location);
// Python evaluation of any kind: BatchEvalPython, ArrowEvalPython, FlatMapGroupsInPandas, MapInArrow...
bool is_python_operator(const PlanNode& node);
// What a shuffle exchange partitions on and into how many partitions, ids aside ("hash(k)/200").
std::string shuffle_key(const PlanNode& node);
// The shuffles a plan reuses, one per `ReusedExchange` that names a shuffle exchange of the plan
// (by its operator number in formatted mode, by its text in the others), as their shuffle_key. A plan
// printed without reuse (AQE's initial plans) prints such a shuffle again: the same shuffle.
std::multiset<std::string> reused_shuffles(const Plan* plan);

}  // namespace planlint::plan
