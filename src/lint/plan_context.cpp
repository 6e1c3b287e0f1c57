// PlanContext reporting and the plan-walking helpers shared by plan rules.
#include "lint/plan_context.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <vector>

#include "plan/diff.hpp"
#include "plan/operator_fields.hpp"

namespace planlint::lint {

using plan::AqeRole;
using plan::OpKind;
using plan::PlanNode;

plan::VersionGuess PlanContext::version() const {
  int major = 0, minor = 0;
  const std::string& t = options_.target_spark_version;
  if (t.empty() || std::sscanf(t.c_str(), "%d.%d", &major, &minor) < 1) return plan_.version;
  plan::VersionGuess g;
  g.min = g.max = major * 100 + minor;
  g.from_target = true;
  g.databricks = plan_.version.databricks;
  g.evidence = {"target-spark-version " + t};
  return g;
}

Location PlanContext::location_of(const PlanNode& node) const {
  std::uint32_t end = node.span.column + static_cast<std::uint32_t>(node.name.size());
  return Location{doc_.path, node.span.line, node.span.column, node.span.line, end};
}

Diagnostic& PlanContext::report(const PlanNode& at, std::string message, std::string fix_title,
                                std::string suggestion) {
  Diagnostic d;
  d.rule = rule_;
  d.severity = rule_->severity;
  d.location = location_of(at);
  d.message = std::move(message);
  if (!suggestion.empty()) {
    Fix f;
    f.title = std::move(fix_title);
    f.applicability = Applicability::display_only;  // a plan is Spark's output: the remedy is in the user's code
    f.suggestion = std::move(suggestion);
    d.fix = std::move(f);
  }
  out_.push_back(std::move(d));
  return out_.back();
}

namespace {
constexpr std::int64_t kTiny = 10000;  // rows: a plan's input of this many or fewer is cheap to process
}  // namespace

bool held_by_driver(const PlanNode& side) {
  if (side.kind == OpKind::reused_exchange || side.kind == OpKind::subquery) return false;
  if (side.children.empty())
    return side.kind == OpKind::local_table_scan || (side.stats.row_count && *side.stats.row_count <= kTiny);
  return std::all_of(side.children.begin(), side.children.end(), [](const PlanNode* c) { return held_by_driver(*c); });
}

void PlanContext::judge_counted_inputs(std::size_t first) {
  constexpr std::int64_t kModest = 100000;  // rows in all: a plan over these runs in seconds
  if (first >= out_.size()) return;
  bool counted = false, tiny = true;
  std::int64_t total = 0;
  for (const PlanNode* n : physical_nodes()) {
    if (!n->children.empty() || n->kind == OpKind::reused_exchange || n->kind == OpKind::subquery) continue;
    if (!n->stats.row_count) return;  // an input of unknown size
    counted = true;
    tiny = tiny && *n->stats.row_count <= kTiny;
    total += std::min<std::int64_t>(*n->stats.row_count, kModest + 1);
    if (total > kModest && !tiny) return;  // an input of real size
  }
  if (!counted) return;
  if (tiny) {
    out_.erase(out_.begin() + static_cast<std::ptrdiff_t>(first), out_.end());
    return;
  }
  for (auto it = out_.begin() + static_cast<std::ptrdiff_t>(first); it != out_.end(); ++it) {
    if (it->severity != Severity::warning) continue;
    it->severity = Severity::info;
    it->message += " (the plan counts its inputs at " + std::to_string(total) + " rows in all: modest)";
  }
}

const std::vector<const PlanNode*>& PlanContext::physical_nodes() const {
  if (!physical_nodes_) physical_nodes_ = plan::executed_operators(plan_);
  return *physical_nodes_;
}

const PlanNode* PlanContext::physical_root() const {
  const auto* s = plan_.physical();
  return s == nullptr || s->roots.empty() ? nullptr : s->roots.front();
}

void advise_unsized(Diagnostic& d, std::string_view what_is_not_shown) {
  d.severity = Severity::info;
  d.message += " (the plan does not show ";
  d.message += what_is_not_shown;
  d.message += ")";
}

bool is_wrapper(const PlanNode& n) {
  switch (n.kind) {
    case OpKind::query_stage:
    case OpKind::shuffle_read:
      return true;
    default:
      break;
  }
  std::string_view b = plan::base_operator_name(n.name);
  return b == "WholeStageCodegen" || b == "InputAdapter" || b == "ColumnarToRow" || b == "RowToColumnar" ||
         b == "Adapter" || b == "InputIteratorTransformer" || b == "ShuffleMapStage" || b == "ResultStage" ||
         b == "VeloxColumnarToRow" || b == "ColumnarToRowExec";
}

bool is_user_repartition(const plan::ExchangeInfo& x) {
  return x.origin.rfind("REPARTITION", 0) == 0 || x.partitioning == plan::Partitioning::round_robin;
}

bool is_pass_through(const PlanNode& n) {
  return is_wrapper(n) || n.kind == OpKind::project || n.kind == OpKind::filter || n.kind == OpKind::sort;
}

AqeState aqe_state(const PlanNode& node) {
  AqeRole role = AqeRole::none;
  for (const PlanNode* n = &node; n != nullptr; n = n->parent) {
    if (n->kind == OpKind::adaptive_plan) {
      if (role == AqeRole::final_plan) return AqeState::final_plan;
      if (role != AqeRole::none) return AqeState::not_final;
      const std::string* a = n->detail("Arguments");
      std::string_view args = a != nullptr ? std::string_view(*a) : std::string_view(n->args);
      return args.find("isFinalPlan=true") != std::string_view::npos ? AqeState::final_plan : AqeState::not_final;
    }
    if (n->aqe_role != AqeRole::none) role = n->aqe_role;
  }
  return AqeState::off;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// "(a AND b)" -> "a AND b" when the parentheses wrap the whole text.

void split_and(std::string_view s, std::vector<std::string>& out, int budget) {
  s = strip_wrapping_parens(s);
  int depth = 0;
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) --depth;
    // Spark 2 printed AND as "&&".
    if (depth == 0 && (s.compare(i, 5, " AND ") == 0 || s.compare(i, 4, " && ") == 0)) cuts.push_back(i);
  }
  if (cuts.empty() || budget == 0) {
    if (!s.empty()) out.emplace_back(s);
    return;
  }
  std::size_t start = 0;
  for (std::size_t cut : cuts) {
    split_and(s.substr(start, cut - start), out, budget - 1);
    start = cut + (s[cut + 1] == '&' ? 4 : 5);
  }
  split_and(s.substr(start), out, budget - 1);
}

}  // namespace

// One pass (a layer at a time would be quadratic in the nesting depth).
std::string_view strip_wrapping_parens(std::string_view s) {
  s = trim(s);
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  std::vector<std::size_t> match(s.size(), std::string_view::npos), open;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') {
      open.push_back(i);
    } else if (s[i] == ')' && !open.empty()) {
      match[open.back()] = i;
      open.pop_back();
    }
  }
  std::size_t layers = 0;
  while (layers < s.size() / 2 && s[layers] == '(' && match[layers] == s.size() - 1 - layers) ++layers;
  return trim(s.substr(layers, s.size() - 2 * layers));
}

std::vector<std::string> conjuncts(std::string_view condition) {
  std::vector<std::string> out;
  split_and(condition, out, 64);
  return out;
}

std::string join_refs(const std::vector<plan::AttributeRef>& refs) {
  std::string out;
  for (const auto& r : refs) {
    if (!out.empty()) out += ", ";
    out += r.name;
  }
  return out;
}

std::string without_expr_ids(std::string_view expr) {
  std::string out;
  out.reserve(expr.size());
  for (std::size_t i = 0; i < expr.size(); ++i) {
    bool after_name = !out.empty() && (std::isalnum(static_cast<unsigned char>(out.back())) || out.back() == '_');
    if (expr[i] == '#' && after_name && i + 1 < expr.size() &&
        (std::isdigit(static_cast<unsigned char>(expr[i + 1])) || expr[i + 1] == 'x')) {
      ++i;
      while (i < expr.size() && (std::isdigit(static_cast<unsigned char>(expr[i])) || expr[i] == 'x')) ++i;
      if (i < expr.size() && expr[i] == 'L') ++i;
      --i;
      continue;
    }
    out += expr[i];
  }
  return out;
}

std::string pyspark_how(std::string_view t) {
  if (t == "LeftOuter") return "left";
  if (t == "RightOuter") return "right";
  if (t == "FullOuter") return "full";
  if (t == "LeftSemi") return "left_semi";
  if (t == "LeftAnti") return "left_anti";
  if (t == "Cross") return "cross";
  return "inner";
}

}  // namespace planlint::lint
