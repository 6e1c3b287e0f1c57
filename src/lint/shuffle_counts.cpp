// Collects the exchanges whose partition count was fixed when the plan was made.
#include "lint/shuffle_counts.hpp"

namespace planlint::lint {

std::string ShuffleCounts::counts_text() const {
  std::string out;
  for (auto c : counts) out += (out.empty() ? "" : ", ") + std::to_string(c);
  return out;
}

ShuffleCounts fixed_shuffles(const PlanContext& ctx) {
  ShuffleCounts s;
  for (const plan::PlanNode* n : ctx.physical_nodes()) {
    if (n->kind == plan::OpKind::adaptive_plan) s.adaptive = true;
    const auto* x = n->as<plan::ExchangeInfo>();
    if (x == nullptr || !x->num_partitions || *x->num_partitions <= 1) continue;
    if (x->partitioning == plan::Partitioning::unknown || x->partitioning == plan::Partitioning::single) continue;
    s.exchanges.push_back(n);
    s.counts.insert(*x->num_partitions);
  }
  return s;
}

}  // namespace planlint::lint
