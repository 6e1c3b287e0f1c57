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

}  // namespace planlint::lint
