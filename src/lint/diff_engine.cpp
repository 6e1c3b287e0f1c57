// The diff engine: parse both inputs, match each pair of plans' physical operators, run the
// plan-change rules on every pair, and add the findings of plan rules that are new in AFTER.
#include "lint/diff_engine.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "eventlog/reader.hpp"
#include "lint/diff_context.hpp"
#include "lint/plan_context.hpp"
#include "lint/rule.hpp"
#include "plan/diff.hpp"

namespace planlint::lint {

PlanDiffResult diff_plan_texts(std::string before_path, std::string before_text, std::string after_path,
                               std::string after_text, const LintOptions& options, std::vector<DiffedPlan>* pairs) {
  PlanDiffResult out;
  out.result.path = after_path;
  if (auto err = utf16_error(after_text); !err.empty()) {
    out.result.io_error = err;
    return out;
  }
  // Findings of plan rules, on both sides, compared by fingerprint (rule, line without ids, occurrence).
  FileResult lint_before = lint_plan_text(before_path, before_text, options);
  FileResult lint_after = lint_plan_text(after_path, after_text, options);
  // Shared: the pairs handed out for pictures keep both documents (their diffs point into them).
  auto before_doc =
      std::make_shared<const plan::Document>(plan::parse_document(std::move(before_text), std::move(before_path)));
  auto after_doc =
      std::make_shared<const plan::Document>(plan::parse_document(std::move(after_text), std::move(after_path)));
  const plan::Document& before = *before_doc;
  const plan::Document& after = *after_doc;
  // The line of each plan's physical root, and the plan's number: a finding there is about the whole
  // plan (aqe-disabled, a setting), the same finding when its plan has it on both sides, whatever
  // the root operator became.
  auto roots = [&](const plan::Document& doc) {
    std::map<std::uint32_t, std::size_t> out;
    for (std::size_t i = 0; i < doc.plans.size(); ++i) {
      std::vector<Diagnostic> ignored;
      if (const plan::PlanNode* r = PlanContext(doc, doc.plans[i], options, ignored).physical_root())
        out.emplace(r->span.line, i);
    }
    return out;
  };
  const auto roots_before = roots(before), roots_after = roots(after);
  std::multimap<std::string, const Diagnostic*> known;
  std::multiset<std::pair<std::string, std::size_t>> known_per_plan;  // (rule, plan) of unmatched root findings
  for (const auto& d : lint_before.diagnostics) known.emplace(std::string(d.rule->id) + ":" + d.fingerprint.str(), &d);
  std::vector<Diagnostic> unmatched;
  for (auto& d : lint_after.diagnostics) {
    auto it = known.find(std::string(d.rule->id) + ":" + d.fingerprint.str());
    if (it != known.end()) {
      known.erase(it);
      continue;
    }
    unmatched.push_back(std::move(d));
  }
  for (const auto& [key, d] : known)
    if (auto r = roots_before.find(d->location.line); r != roots_before.end())
      known_per_plan.emplace(std::string(d->rule->id), r->second);
  for (auto& d : unmatched) {
    if (auto r = roots_after.find(d.location.line); r != roots_after.end())
      if (auto it = known_per_plan.find({std::string(d.rule->id), r->second}); it != known_per_plan.end()) {
        known_per_plan.erase(it);
        continue;
      }
    out.result.diagnostics.push_back(std::move(d));
    ++out.new_findings;
  }

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
    if (pairs != nullptr)
      pairs->push_back(DiffedPlan{before_doc,
                                  after_doc,
                                  i,
                                  std::move(diff),
                                  {},
                                  after.path + ", plan " + std::to_string(i + 1) + " (line " +
                                      std::to_string(after.plans[i].first_line) + ")"});
  }
  if (pairs != nullptr)
    for (auto& pair : *pairs)
      if (pair.after == after_doc) pair.findings = out.result.diagnostics;
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
  for (std::string_view l : after.lines) out.result.lines.push_back(std::string(l));
  assign_fingerprints(out.result);
  return out;
}

PlanDiffResult diff_event_logs(const std::string& before_path, const std::string& after_path,
                               const LintOptions& options, std::vector<DiffedPlan>* pairs) {
  PlanDiffResult out;
  out.result.path = after_path;
  std::string before_error, after_error;
  eventlog::Application before = eventlog::read_event_log(before_path, before_error);
  eventlog::Application after = eventlog::read_event_log(after_path, after_error);
  if (!before_error.empty() || !after_error.empty()) {
    out.result.io_error = !after_error.empty() ? after_error : before_path + ": " + before_error;
    return out;
  }
  auto executions = [](const eventlog::Application& app) {
    std::vector<const eventlog::SqlExecution*> xs;
    for (const auto& [id, x] : app.sql)
      if (!x.plan.empty()) xs.push_back(&x);
    return xs;
  };
  std::vector<const eventlog::SqlExecution*> bs = executions(before), as = executions(after);
  out.executions_before = bs.size();
  out.executions_after = as.size();
  // Pairs: the same description first (in order), then what is left of each side in order.
  std::vector<const eventlog::SqlExecution*> partner(as.size(), nullptr);
  std::vector<bool> used(bs.size(), false);
  for (std::size_t i = 0; i < as.size(); ++i)
    for (std::size_t j = 0; j < bs.size() && !as[i]->description.empty(); ++j)
      if (!used[j] && bs[j]->description == as[i]->description) {
        partner[i] = bs[j];
        used[j] = true;
        break;
      }
  std::size_t next = 0;
  for (std::size_t i = 0; i < as.size(); ++i) {
    if (partner[i] != nullptr) continue;
    while (next < bs.size() && used[next]) ++next;
    if (next < bs.size()) {
      partner[i] = bs[next];
      used[next] = true;
    }
  }
  for (std::size_t j = 0; j < bs.size(); ++j)
    if (!used[j]) ++out.removed;  // an execution AFTER no longer has (counted as one change)
  for (std::size_t i = 0; i < as.size(); ++i) {
    const eventlog::SqlExecution& a = *as[i];
    const eventlog::SqlExecution* b = partner[i];
    std::size_t first_pair = pairs != nullptr ? pairs->size() : 0;
    PlanDiffResult one =
        diff_plan_texts(before_path, b != nullptr ? b->plan : std::string(), after_path, a.plan, options, pairs);
    if (pairs != nullptr)
      for (std::size_t g = first_pair; g < pairs->size(); ++g)
        (*pairs)[g].title = after_path + ", SQL execution " + std::to_string(a.id) +
                            (a.description.empty() ? "" : ": " + a.description.substr(0, 80));
    out.added += one.added;
    out.removed += one.removed;
    out.changed += one.changed;
    out.new_findings += one.new_findings;
    for (auto& d : one.result.diagnostics) {
      if (d.rule == &plan_syntax_rule()) continue;  // a plan Spark printed that planlint cannot read
      std::uint32_t plan_line = d.location.line;
      d.location = Location{after_path, a.line, 1, a.line, 1};
      d.message += " (SQL execution " + std::to_string(a.id) + ", plan line " + std::to_string(plan_line) +
                   (a.description.empty() ? "" : ": " + a.description.substr(0, 80)) + ")";
      for (auto& rel : d.related)
        if (b != nullptr && rel.location.path == before_path) {
          rel.message +=
              " (SQL execution " + std::to_string(b->id) + ", plan line " + std::to_string(rel.location.line) + ")";
          rel.location = Location{before_path, b->line, 1, b->line, 1};
        }
      d.fingerprint.clear();
      out.result.diagnostics.push_back(std::move(d));
    }
  }
  std::stable_sort(out.result.diagnostics.begin(), out.result.diagnostics.end(),
                   [](const Diagnostic& x, const Diagnostic& y) { return x.location.line < y.location.line; });
  assign_fingerprints(out.result);
  return out;
}

}  // namespace planlint::lint
