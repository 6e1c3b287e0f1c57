// Indented text dump of the plan IR: one operator per line with its typed fields, for goldens.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "plan/dump.hpp"

namespace planlint::plan {
namespace {

std::string refs_text(const std::vector<AttributeRef>& refs) {
  std::vector<std::string> t;
  t.reserve(refs.size());
  for (const auto& r : refs) t.push_back(r.text());
  return fmt::format("[{}]", fmt::join(t, ", "));
}

std::string fields_text(const PlanNode& n) {
  std::string out;
  if (const auto* x = n.as<ExchangeInfo>()) {
    out += fmt::format(" partitioning={} keys={}", to_string(x->partitioning), refs_text(x->key_refs));
    if (x->num_partitions) out += fmt::format(" partitions={}", *x->num_partitions);
    if (!x->origin.empty()) out += fmt::format(" origin={}", x->origin);
  } else if (const auto* j = n.as<JoinInfo>()) {
    out += fmt::format(" strategy={} type={} left={} right={}", j->strategy, j->join_type, refs_text(j->left_refs),
                       refs_text(j->right_refs));
    if (!j->build_side.empty()) out += " build=" + j->build_side;
    if (!j->condition.empty()) out += " condition=" + j->condition;
  } else if (const auto* f = n.as<FilterInfo>()) {
    out += " refs=" + refs_text(f->refs);
  } else if (const auto* a = n.as<AggregateInfo>()) {
    out += fmt::format(" keys=[{}] functions={}", fmt::join(a->keys, ", "), a->functions.size());
  } else if (const auto* s = n.as<ScanInfo>()) {
    out += fmt::format(" format={} table={} pushed=[{}]", s->format, s->table, fmt::join(s->pushed_filters, ", "));
  } else if (const auto* p = n.as<PythonEvalInfo>()) {
    out += fmt::format(" udfs=[{}] outputs={}", fmt::join(p->udf_names, ", "), refs_text(p->outputs));
  } else if (const auto* w = n.as<WindowInfo>()) {
    out +=
        fmt::format(" partition=[{}] order=[{}]", fmt::join(w->partition_spec, ", "), fmt::join(w->order_spec, ", "));
  }
  if (n.stats.size_in_bytes) out += fmt::format(" sizeInBytes={}", *n.stats.size_in_bytes);
  if (n.stats.row_count) out += fmt::format(" rowCount={}", *n.stats.row_count);
  return out;
}

// Iterative: plans can nest thousands of levels deep, and a dump must never overflow the stack.
void dump_node(std::string& out, const PlanNode& root, int base_depth, std::string_view root_edge) {
  struct Item {
    const PlanNode* node;
    int depth;
    std::string_view edge;
  };
  std::vector<Item> stack{{&root, base_depth, root_edge}};
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    const PlanNode& n = *it.node;
    // Indentation stops growing at 200 levels (the depth is printed instead) so the dump stays linear.
    out += std::string(static_cast<std::size_t>(std::min(it.depth, 200)) * 2, ' ');
    if (it.depth > 200) out += fmt::format("[depth {}] ", it.depth);
    out += it.edge;
    out += fmt::format("{} @{}:{} kind={}", n.name, n.span.line, n.span.column, to_string(n.kind));
    if (n.codegen_stage) out += fmt::format(" stage={}", *n.codegen_stage);
    if (n.operator_id) out += fmt::format(" id={}", *n.operator_id);
    if (n.aqe_role != AqeRole::none) out += fmt::format(" aqe=\"{}\"", to_string(n.aqe_role));
    if (n.unresolved) out += " unresolved";
    if (n.fallback) out += " fallback";
    out += fields_text(n);
    out += '\n';
    for (auto c = n.children.rbegin(); c != n.children.rend(); ++c) stack.push_back({*c, it.depth + 1, ""});
    for (auto q = n.subqueries.rbegin(); q != n.subqueries.rend(); ++q)
      stack.push_back({*q, it.depth + 1, "subquery: "});
  }
}

}  // namespace

std::string dump_text(const Document& doc) {
  std::string out;
  for (std::size_t i = 0; i < doc.plans.size(); ++i) {
    const Plan& p = doc.plans[i];
    out += fmt::format("plan {} @{}{}{} spark={}{}\n", i + 1, p.first_line, p.formatted ? " formatted" : "",
                       p.simplified ? " simplified" : "", p.version.text(), p.streaming ? " streaming" : "");
    for (const auto& s : p.sections) {
      out += fmt::format("  section {}{}\n", to_string(s.section),
                         s.schema.empty() ? std::string() : fmt::format(" schema=\"{}\"", s.schema));
      for (const PlanNode* r : s.roots) dump_node(out, *r, 2, "");
    }
    for (const auto& [number, root] : p.subqueries) {
      if (root->parent != nullptr) continue;  // printed under its hosting operator
      out += fmt::format("  subquery {}\n", number);
      dump_node(out, *root, 2, "");
    }
    if (!p.photon_explanation.empty()) out += "  photon explanation\n";
  }
  for (const auto& e : doc.errors) out += fmt::format("error {}:{}: {}\n", e.line, e.column, e.message);
  return out;
}

}  // namespace planlint::plan
