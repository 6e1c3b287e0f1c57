// `planlint diff BEFORE AFTER`: what a change did to its plans, as findings located in AFTER.
#pragma once

#include <cstddef>
#include <string>

#include "lint/engine.hpp"
#include "lint/options.hpp"

namespace planlint::lint {

struct PlanDiffResult {
  FileResult result;  // located in AFTER: the plan-change findings and the new findings of plan rules
  std::size_t plans_before = 0, plans_after = 0;
  std::size_t added = 0, removed = 0, changed = 0;  // operators, over every pair of plans
  std::size_t new_findings = 0;                     // findings of plan rules that BEFORE did not have
  [[nodiscard]] bool no_plan_change() const {
    return plans_before == plans_after && added == 0 && removed == 0 && changed == 0;
  }
};

// Plans are paired in file order (the first plan of BEFORE with the first of AFTER, ...); a plan of
// AFTER without a counterpart is compared with nothing (every operator in it is added).
PlanDiffResult diff_plan_texts(std::string before_path, std::string before_text, std::string after_path,
                               std::string after_text, const LintOptions& options);

}  // namespace planlint::lint
