// Shared by aqe-disabled and hardcoded-shuffle-partitions: the fixed-count shuffles of a plan.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "lint/plan_context.hpp"

namespace planlint::lint {

struct ShuffleCounts {
  bool adaptive = false;                         // the plan has an AdaptiveSparkPlan
  std::vector<const plan::PlanNode*> exchanges;  // hash / range / round-robin exchanges with a partition count
  std::set<std::int64_t> counts;
  [[nodiscard]] std::string counts_text() const;
};

ShuffleCounts fixed_shuffles(const PlanContext& ctx);

// The hash exchanges of a plan without AQE whose count someone chose: not Spark's default 200, not a
// count the project tolerates (tolerated-shuffle-partitions), not a `repartition(n, col)`
// (REPARTITION_BY_NUM: an explicit request). Empty for an AQE plan. hardcoded-shuffle-partitions
// reports these; aqe-disabled leaves such a plan to it (one finding per cause).
ShuffleCounts chosen_shuffle_counts(const PlanContext& ctx);

}  // namespace planlint::lint
