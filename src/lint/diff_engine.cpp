// The diff engine: parse both inputs, match each pair of plans' physical operators, run the
// plan-change rules on every pair, and add the findings of plan rules that are new in AFTER.
#include "lint/diff_engine.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "lint/diff_context.hpp"
#include "lint/plan_context.hpp"
#include "lint/rule.hpp"
#include "plan/diff.hpp"

namespace planlint::lint {

PlanDiffResult diff_plan_texts(std::string before_path, std::string before_text, std::string after_path,
                               std::string after_text, const LintOptions& options) {
  PlanDiffResult out;
  out.result.path = after_path;
  if (auto err = utf16_error(after_text); !err.empty()) {
    out.result.io_error = err;
    return out;
  }
  // Findings of plan rules, on both sides, compared by fingerprint (rule, line without ids, occurrence).
  FileResult lint_before = lint_plan_text(before_path, before_text, options);
  FileResult lint_after = lint_plan_text(after_path, after_text, options);
  std::multiset<std::string> known;
  for (const auto& d : lint_before.diagnostics) known.insert(std::string(d.rule->id) + ":" + d.fingerprint);
  for (auto& d : lint_after.diagnostics) {
    auto it = known.find(std::string(d.rule->id) + ":" + d.fingerprint);
    if (it != known.end()) {
      known.erase(it);
      continue;
    }
    out.result.diagnostics.push_back(std::move(d));
    ++out.new_findings;
  }

  plan::Document before = plan::parse_document(std::move(before_text), std::move(before_path));
  plan::Document after = plan::parse_document(std::move(after_text), std::move(after_path));
  out.plans_before = before.plans.size();
  out.plans_after = after.plans.size();
  for (std::size_t i = 0; i < after.plans.size(); ++i) {
    const plan::Plan* b = i < before.plans.size() ? &before.plans[i] : nullptr;
    std::vector<Diagnostic> ignored;
    std::vector<const plan::PlanNode*> before_nodes;
    if (b != nullptr) before_nodes = PlanContext(before, *b, options, ignored).physical_nodes();
    std::vector<const plan::PlanNode*> after_nodes =
        PlanContext(after, after.plans[i], options, ignored).physical_nodes();
    plan::OperatorDiff diff = plan::diff_operators(before_nodes, after_nodes);
    out.added += diff.added.size();
    out.removed += diff.removed.size();
    out.changed += diff.changed;
    DiffContext ctx(before, b, after, after.plans[i], diff, options, out.result.diagnostics);
    for (const auto& rule : all_rules()) {
      if (rule.diff_check == nullptr || !options.enabled(*rule.info)) continue;
      ctx.set_rule(rule.info);
      rule.diff_check(ctx);
    }
  }
  // Plans of BEFORE that AFTER no longer has: every operator of theirs is removed.
  for (std::size_t i = after.plans.size(); i < before.plans.size(); ++i) {
    std::vector<Diagnostic> ignored;
    out.removed += PlanContext(before, before.plans[i], options, ignored).physical_nodes().size();
  }

  auto& ds = out.result.diagnostics;
  std::stable_sort(ds.begin(), ds.end(), [](const Diagnostic& x, const Diagnostic& y) {
    return std::tie(x.location.line, x.location.column, x.rule->id) <
           std::tie(y.location.line, y.location.column, y.rule->id);
  });
  out.result.lines.reserve(after.lines.size());
  for (std::string_view l : after.lines) out.result.lines.emplace_back(l);
  assign_fingerprints(out.result);
  return out;
}

}  // namespace planlint::lint
