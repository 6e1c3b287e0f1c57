// `planlint diff BEFORE AFTER`: what a change did to its plans, as findings located in AFTER.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "lint/engine.hpp"
#include "lint/options.hpp"
#include "plan/diff.hpp"
#include "plan/plan.hpp"

namespace planlint::lint {

struct PlanDiffResult {
  FileResult result;  // located in AFTER: the plan-change findings and the new findings of plan rules
  std::size_t plans_before = 0, plans_after = 0;
  std::size_t added = 0, removed = 0, changed = 0;          // operators, over every pair of plans
  std::size_t new_findings = 0;                             // findings of plan rules that BEFORE did not have
  std::size_t executions_before = 0, executions_after = 0;  // event logs: SQL executions with a plan
  [[nodiscard]] bool no_plan_change() const {
    return plans_before == plans_after && executions_before == executions_after && added == 0 && removed == 0 &&
           changed == 0;
  }
};

// One diffed pair of plans, for a picture of the change: both documents (the diff points into them),
// which plan of AFTER, the operator diff, AFTER's findings and a title.
struct DiffedPlan {
  std::shared_ptr<const plan::Document> before, after;
  std::size_t plan = 0;  // index in after->plans
  plan::OperatorDiff diff;
  std::vector<Diagnostic> findings;
  std::string title;
};

// Plans are paired in file order (the first plan of BEFORE with the first of AFTER, ...); a plan of
// AFTER without a counterpart is compared with nothing (every operator in it is added).
// With `pairs`, each diffed pair of plans is added to it.
PlanDiffResult diff_plan_texts(std::string before_path, std::string before_text, std::string after_path,
                               std::string after_text, const LintOptions& options,
                               std::vector<DiffedPlan>* pairs = nullptr);

// Two event logs: their SQL executions' plans (AQE's final ones where logged) are diffed pair by pair,
// executions paired by description (the call site or the job's own), then in order. Findings are
// located at the AFTER log's line of each execution, with the execution and plan line in the message.
PlanDiffResult diff_event_logs(const std::string& before_path, const std::string& after_path,
                               const LintOptions& options, std::vector<DiffedPlan>* pairs = nullptr);

}  // namespace planlint::lint
