// Collects the exchanges whose partition count was fixed when the plan was made.
#include "lint/shuffle_counts.hpp"
#include "plan/operator_fields.hpp"

#include <algorithm>

namespace planlint::lint {

std::string ShuffleCounts::counts_text() const {
  std::string out;
  for (auto c : counts) out += (out.empty() ? "" : ", ") + std::to_string(c);
  return out;
}

ShuffleCounts fixed_shuffles(const PlanContext& ctx) {
  ShuffleCounts s;
  for (const plan::PlanNode* n : ctx.physical_nodes()) {
    // AdaptiveSparkPlan, or what only AQE prints (a fragment of an adaptive plan may start below it).
    if (n->kind == plan::OpKind::adaptive_plan || n->kind == plan::OpKind::query_stage) s.adaptive = true;
    if (n->kind == plan::OpKind::shuffle_read && plan::base_operator_name(n->name) != "ShuffleExchangeSource")
      s.adaptive = true;
    const auto* x = n->as<plan::ExchangeInfo>();
    if (x == nullptr || !x->num_partitions || *x->num_partitions <= 1) continue;
    if (x->partitioning == plan::Partitioning::unknown || x->partitioning == plan::Partitioning::single) continue;
    s.exchanges.push_back(n);
    s.counts.insert(*x->num_partitions);
  }
  return s;
}

ShuffleCounts chosen_shuffle_counts(const PlanContext& ctx) {
  ShuffleCounts all = fixed_shuffles(ctx);
  ShuffleCounts s;
  s.adaptive = all.adaptive;
  if (ctx.plan().streaming) {
    // AQE never applies to a streaming query, and its count is fixed into the state store at the
    // first run: any chosen count, 1 too, whatever a project tolerates for batch jobs.
    for (const plan::PlanNode* n : ctx.physical_nodes()) {
      const auto* x = n->as<plan::ExchangeInfo>();
      if (x == nullptr || !x->num_partitions || x->partitioning != plan::Partitioning::hash) continue;
      if (x->origin == "REPARTITION_BY_NUM" || *x->num_partitions == 200) continue;
      s.exchanges.push_back(n);
      s.counts.insert(*x->num_partitions);
    }
    return s;
  }
  if (all.adaptive) return s;
  const auto& tolerated = ctx.options().tolerated_shuffle_partitions;
  for (const plan::PlanNode* n : all.exchanges) {
    const auto* x = n->as<plan::ExchangeInfo>();
    if (x->partitioning != plan::Partitioning::hash || x->origin == "REPARTITION_BY_NUM") continue;
    std::int64_t count = *x->num_partitions;
    if (count == 200 || std::find(tolerated.begin(), tolerated.end(), count) != tolerated.end()) continue;
    s.exchanges.push_back(n);
    s.counts.insert(count);
  }
  return s;
}

}  // namespace planlint::lint
