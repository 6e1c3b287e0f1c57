// What a plan rule sees: one parsed plan, the options, a way to report, and walking helpers that
// know Spark's pass-through operators and AQE's superseded plans.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/diagnostic.hpp"
#include "lint/options.hpp"
#include "lint/rule.hpp"
#include "plan/plan.hpp"

namespace planlint::lint {

enum class AqeState { off, final_plan, not_final };

class PlanContext {
 public:
  PlanContext(const plan::Document& doc, const plan::Plan& plan, const LintOptions& options,
              std::vector<Diagnostic>& out)
      : doc_(doc), plan_(plan), options_(options), out_(out) {}

  [[nodiscard]] const plan::Document& document() const { return doc_; }
  [[nodiscard]] const plan::Plan& plan() const { return plan_; }
  [[nodiscard]] const LintOptions& options() const { return options_; }
  // The Spark version the advice is for: target-spark-version when set, else what the plan's
  // format markers say (plan::VersionGuess).
  [[nodiscard]] plan::VersionGuess version() const;
  void set_rule(const RuleInfo* rule) { rule_ = rule; }

  // Report at an operator; severity defaults to the rule's. The fix is display-only text.
  // Severity follows evidence: when the plan counts every input it reads at a few rows (a small
  // `Range`, statistics), whatever it does is cheap, and the findings made on it since `first` (its
  // diagnostics' index) are dropped; when it counts them at 100,000 rows or fewer in all, what it
  // does costs seconds at most, and its warnings are infos.
  void judge_counted_inputs(std::size_t first);
  Diagnostic& report(const plan::PlanNode& at, std::string message, std::string fix_title = {},
                     std::string suggestion = {});
  [[nodiscard]] Location location_of(const plan::PlanNode& node) const;

  // Physical operators a reader sees, subqueries included; an AQE initial plan is skipped when a
  // final or current plan is printed beside it (it is the same query, planned earlier).
  // Computed once per plan: every plan rule walks them.
  [[nodiscard]] const std::vector<const plan::PlanNode*>& physical_nodes() const;
  [[nodiscard]] const plan::PlanNode* physical_root() const;

 private:
  const plan::Document& doc_;
  const plan::Plan& plan_;
  const LintOptions& options_;
  std::vector<Diagnostic>& out_;
  const RuleInfo* rule_ = nullptr;
  mutable std::optional<std::vector<const plan::PlanNode*>> physical_nodes_;
};

// Whether every input under `side` is rows built on the driver: a `LocalTableScan`, or a `Range` (or
// any leaf) counted at 10,000 rows or fewer. Work on such rows alone is cheap however it is planned.
bool held_by_driver(const plan::PlanNode& side);

// Severity follows the sizes a plan shows (cost mode, AQE statistics): work on less than this is a
// task's worth and not worth a finding; a finding where the plan shows no size is advice (an info
// that says what is not shown).
inline constexpr double kWorthAFinding = 128.0 * 1024 * 1024;
void advise_unsized(Diagnostic& d, std::string_view what_is_not_shown);

// Operators with one child that keep rows and partitioning as they are (codegen wrappers,
// columnar transitions, AQE stages and reads, and optionally Project / Filter / Sort).
bool is_wrapper(const plan::PlanNode& node);
bool is_pass_through(const plan::PlanNode& node);

// Follow single children down while `keep_going` holds; returns the first node where it stops.
template <typename Pred>
const plan::PlanNode* descend(const plan::PlanNode* node, Pred keep_going) {
  while (node != nullptr && keep_going(*node) && node->children.size() == 1) node = node->children.front();
  return node;
}

AqeState aqe_state(const plan::PlanNode& node);

// An exchange the code asked for: `repartition(...)` / `DISTRIBUTE BY` (REPARTITION_BY_COL,
// REPARTITION_BY_NUM) or a round robin.
bool is_user_repartition(const plan::ExchangeInfo& x);

// "((a) AND (b))" -> "(a) AND (b)": the parentheses around the whole text, every layer, linear time.
std::string_view strip_wrapping_parens(std::string_view s);

// Top-level AND-ed conjuncts of a condition, outer parentheses removed.
std::vector<std::string> conjuncts(std::string_view condition);

std::string join_refs(const std::vector<plan::AttributeRef>& refs);

// "amount#3 > 0.0" -> "amount > 0.0": plan expressions as a user would write them in code.
std::string without_expr_ids(std::string_view expr);

// Spark's join type as PySpark's `how=` argument: LeftOuter -> "left", LeftAnti -> "left_anti".
std::string pyspark_how(std::string_view join_type);

}  // namespace planlint::lint
