// DiffContext reporting.
#include "lint/diff_context.hpp"

namespace planlint::lint {

namespace {

Location at_node(const plan::Document& doc, const plan::PlanNode& n) {
  auto end = n.span.column + static_cast<std::uint32_t>(n.name.size());
  return Location{doc.path, n.span.line, n.span.column, n.span.line, end};
}

}  // namespace

Diagnostic& DiffContext::add(Location at, const plan::PlanNode* before_node, std::string message, std::string fix_title,
                             std::string suggestion) {
  Diagnostic d;
  d.rule = rule_;
  d.severity = rule_->severity;
  d.location = std::move(at);
  d.message = std::move(message);
  if (before_node != nullptr)
    d.related.push_back({at_node(before_doc_, *before_node), "before the change: " + operator_text(*before_node)});
  if (!suggestion.empty()) {
    Fix f;
    f.title = std::move(fix_title);
    f.applicability = Applicability::display_only;
    f.suggestion = std::move(suggestion);
    d.fix = std::move(f);
  }
  out_.push_back(std::move(d));
  return out_.back();
}

Diagnostic& DiffContext::report(const plan::PlanNode& after_node, const plan::PlanNode* before_node,
                                std::string message, std::string fix_title, std::string suggestion) {
  return add(at_node(after_doc_, after_node), before_node, std::move(message), std::move(fix_title),
             std::move(suggestion));
}

Diagnostic& DiffContext::report_removed(const plan::PlanNode& before_node, std::string message, std::string fix_title,
                                        std::string suggestion) {
  if (const plan::PlanNode* site = diff_.after_site_of(&before_node))
    return report(*site, &before_node, std::move(message), std::move(fix_title), std::move(suggestion));
  std::uint32_t line = after_.first_line > 0 ? after_.first_line : 1;
  return add(Location{after_doc_.path, line, 1, line, 2}, &before_node, std::move(message), std::move(fix_title),
             std::move(suggestion));
}

std::string operator_text(const plan::PlanNode& node, std::size_t max) {
  std::string out(node.name);
  const std::string* formatted = node.args.empty() ? node.detail("Arguments") : nullptr;  // formatted EXPLAIN
  std::string args = plan::without_run_ids(formatted != nullptr ? *formatted : node.args);
  if (!args.empty()) out += " " + args;
  if (out.size() > max) out = out.substr(0, max - 3) + "...";
  return out;
}

std::vector<JoinChange> join_changes(const plan::OperatorDiff& diff) {
  std::vector<JoinChange> out;
  for (const auto& [b, a] : diff.matched) {
    const auto* jb = b->as<plan::JoinInfo>();
    const auto* ja = a->as<plan::JoinInfo>();
    if (jb == nullptr || ja == nullptr) continue;
    int rb = join_rank(jb->strategy), ra = join_rank(ja->strategy);
    if (rb == 0 || ra == 0 || ra == rb) continue;
    out.push_back({b, a, jb->strategy, ja->strategy, rb, ra});
  }
  return out;
}

int join_rank(std::string_view strategy) {
  if (strategy == "BroadcastHashJoin") return 1;
  if (strategy == "ShuffledHashJoin") return 2;
  if (strategy == "SortMergeJoin") return 3;
  if (strategy == "BroadcastNestedLoopJoin") return 4;
  if (strategy == "CartesianProduct") return 5;
  return 0;
}

}  // namespace planlint::lint
