// What a plan-change rule sees (`planlint diff`): the plan before and after a change, the operator
// matching between them, and a way to report in AFTER, where a reviewer reads the change.
#pragma once

#include <string>
#include <vector>

#include "lint/diagnostic.hpp"
#include "lint/options.hpp"
#include "lint/rule.hpp"
#include "plan/diff.hpp"
#include "plan/plan.hpp"

namespace planlint::lint {

class DiffContext {
 public:
  // `before` is nullptr when AFTER has a plan that BEFORE has no counterpart for.
  DiffContext(const plan::Document& before_doc, const plan::Plan* before, const plan::Document& after_doc,
              const plan::Plan& after, const plan::OperatorDiff& diff, const LintOptions& options,
              std::vector<Diagnostic>& out)
      : before_doc_(before_doc),
        before_(before),
        after_doc_(after_doc),
        after_(after),
        diff_(diff),
        options_(options),
        out_(out) {}

  [[nodiscard]] const plan::OperatorDiff& diff() const { return diff_; }
  [[nodiscard]] const plan::Plan* before() const { return before_; }
  [[nodiscard]] const plan::Plan& after() const { return after_; }
  [[nodiscard]] const LintOptions& options() const { return options_; }
  void set_rule(const RuleInfo* rule) { rule_ = rule; }

  // At an AFTER operator, with the BEFORE operator it replaced (if any) as a related location.
  Diagnostic& report(const plan::PlanNode& after_node, const plan::PlanNode* before_node, std::string message,
                     std::string fix_title = {}, std::string suggestion = {});
  // A BEFORE operator that is gone: reported at the AFTER operator nearest to where it was (its
  // closest matched ancestor), else at the start of the AFTER plan; BEFORE's line is related.
  Diagnostic& report_removed(const plan::PlanNode& before_node, std::string message, std::string fix_title = {},
                             std::string suggestion = {});

 private:
  Diagnostic& add(Location at, const plan::PlanNode* before_node, std::string message, std::string fix_title,
                  std::string suggestion);
  const plan::Document& before_doc_;
  const plan::Plan* before_;
  const plan::Document& after_doc_;
  const plan::Plan& after_;
  const plan::OperatorDiff& diff_;
  const LintOptions& options_;
  std::vector<Diagnostic>& out_;
  const RuleInfo* rule_ = nullptr;
};

// The operator as one short line for a message: its name and text without renumbered ids, cut.
std::string operator_text(const plan::PlanNode& node, std::size_t max = 100);

// A join present in both plans whose strategy changed: before and after, and their strategies.
struct JoinChange {
  const plan::PlanNode* before;
  const plan::PlanNode* after;
  const std::string& from;
  const std::string& to;
  int from_rank, to_rank;  // join_rank: higher is more expensive
};
std::vector<JoinChange> join_changes(const plan::OperatorDiff& diff);

// How expensive a join strategy is, cheapest first: BroadcastHashJoin 1, ShuffledHashJoin 2,
// SortMergeJoin 3, BroadcastNestedLoopJoin 4, CartesianProduct 5; 0 for others.
int join_rank(std::string_view strategy);

}  // namespace planlint::lint
