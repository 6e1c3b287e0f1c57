// The rule registry: one line per rule, sorted by id. Adding a rule means adding its line here.
#include <array>

#include "lint/rule.hpp"

namespace planlint::rules {
using lint::PlanContext;
using lint::RuleInfo;
extern const RuleInfo kRedundantShuffle, kFilterAfterUdf, kPythonRowUdf, kMissingBroadcast, kHardcodedShufflePartitions,
    kAqeDisabled, kCartesianJoin, kWindowSinglePartition, kJoinKeyCast, kPushdownBlocked;
void check_redundant_shuffle(PlanContext&);
void check_filter_after_udf(PlanContext&);
void check_python_row_udf(PlanContext&);
void check_missing_broadcast(PlanContext&);
void check_hardcoded_shuffle_partitions(PlanContext&);
void check_aqe_disabled(PlanContext&);
void check_cartesian_join(PlanContext&);
void check_window_single_partition(PlanContext&);
void check_join_key_cast(PlanContext&);
void check_pushdown_blocked(PlanContext&);
}  // namespace planlint::rules

namespace planlint::lint {

namespace {

using namespace planlint::rules;

const std::array kRules{
    PlanRule{&kRedundantShuffle, check_redundant_shuffle},
    PlanRule{&kFilterAfterUdf, check_filter_after_udf},
    PlanRule{&kPythonRowUdf, check_python_row_udf},
    PlanRule{&kMissingBroadcast, check_missing_broadcast},
    PlanRule{&kHardcodedShufflePartitions, check_hardcoded_shuffle_partitions},
    PlanRule{&kAqeDisabled, check_aqe_disabled},
    PlanRule{&kCartesianJoin, check_cartesian_join},
    PlanRule{&kWindowSinglePartition, check_window_single_partition},
    PlanRule{&kJoinKeyCast, check_join_key_cast},
    PlanRule{&kPushdownBlocked, check_pushdown_blocked},
};

const RuleInfo kPlanSyntax{"PL000",
                           "plan-syntax",
                           "A line of plan text could not be read",
                           Severity::error,
                           FixAvailability::never,
                           R"md(## What it does
Reports a line of plan text that planlint cannot read: a tree branch without an operator, a
branch with no parent above it, a details block for an operator that is not in the tree, control
characters. The rest of the plan is still read and linted.

## Why is this bad?
A damaged plan (cut while copying, mixed with log lines) can hide findings on the lines that were
lost.

## Example
```plan
== Physical Plan ==
Project [a#1]
+- 42
```
Use instead:
```plan
== Physical Plan ==
Project [a#1]
+- Range (0, 10, step=1, splits=2)
```

## Fix safety
No fix: copy the plan again from `explain()` output.

## Options
None.
)md"};

}  // namespace

std::span<const PlanRule> all_rules() { return kRules; }

const RuleInfo& plan_syntax_rule() { return kPlanSyntax; }

const RuleInfo* find_rule(std::string_view id_or_name) {
  if (id_or_name == kPlanSyntax.id || id_or_name == kPlanSyntax.name) return &kPlanSyntax;
  for (const auto& r : kRules)
    if (r.info->id == id_or_name || r.info->name == id_or_name) return r.info;
  return nullptr;
}

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::info:
      return "info";
    case Severity::warning:
      return "warning";
    case Severity::error:
      return "error";
  }
  return "warning";
}

std::string_view to_string(Applicability a) {
  switch (a) {
    case Applicability::display_only:
      return "display-only";
    case Applicability::unsafe:
      return "unsafe";
    case Applicability::safe:
      return "safe";
  }
  return "display-only";
}

std::string_view to_string(FixAvailability f) {
  switch (f) {
    case FixAvailability::never:
      return "never";
    case FixAvailability::sometimes:
      return "sometimes";
    case FixAvailability::always:
      return "always";
  }
  return "never";
}

}  // namespace planlint::lint
