// JSON dump of the plan IR (`planlint parse FILE --dump json`), built with nlohmann-json.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "plan/dump.hpp"

namespace planlint::plan {
namespace {

using nlohmann::json;

json refs_json(const std::vector<AttributeRef>& refs) {
  json a = json::array();
  for (const auto& r : refs) a.push_back(r.text());
  return a;
}

json node_json(const PlanNode& n) {
  json j{{"name", n.name},
         {"kind", to_string(n.kind)},
         {"line", n.span.line},
         {"column", n.span.column},
         {"args", n.args}};
  if (n.codegen_stage) j["codegen_stage"] = *n.codegen_stage;
  if (n.operator_id) j["operator_id"] = *n.operator_id;
  if (n.aqe_role != AqeRole::none) j["aqe_plan"] = to_string(n.aqe_role);
  if (!n.details.empty()) {
    json d = json::array();
    for (const auto& [k, v] : n.details) d.push_back({{"key", k}, {"value", v}});
    j["details"] = d;
  }
  if (const auto* x = n.as<ExchangeInfo>()) {
    j["exchange"] = {{"partitioning", to_string(x->partitioning)},
                     {"keys", x->keys},
                     {"key_refs", refs_json(x->key_refs)},
                     {"origin", x->origin}};
    if (x->num_partitions) j["exchange"]["num_partitions"] = *x->num_partitions;
  } else if (const auto* jn = n.as<JoinInfo>()) {
    j["join"] = {{"strategy", jn->strategy},     {"type", jn->join_type},      {"left_keys", jn->left_keys},
                 {"right_keys", jn->right_keys}, {"condition", jn->condition}, {"build_side", jn->build_side}};
  } else if (const auto* f = n.as<FilterInfo>()) {
    j["filter"] = {{"condition", f->condition}, {"refs", refs_json(f->refs)}};
  } else if (const auto* p = n.as<ProjectInfo>()) {
    j["project"] = {{"list", p->list()}};
  } else if (const auto* a = n.as<AggregateInfo>()) {
    j["aggregate"] = {{"keys", a->keys}, {"functions", a->functions}};
  } else if (const auto* s = n.as<ScanInfo>()) {
    j["scan"] = {{"format", s->format},
                 {"table", s->table},
                 {"output", refs_json(s->output)},
                 {"pushed_filters", s->pushed_filters},
                 {"partition_filters", s->partition_filters},
                 {"data_filters", s->data_filters},
                 {"read_schema", s->read_schema},
                 {"location", s->location}};
  } else if (const auto* py = n.as<PythonEvalInfo>()) {
    j["python"] = {{"udfs", py->udf_names}, {"calls", py->udf_calls}, {"outputs", refs_json(py->outputs)}};
  } else if (const auto* w = n.as<WindowInfo>()) {
    j["window"] = {
        {"expressions", w->expressions}, {"partition_spec", w->partition_spec}, {"order_spec", w->order_spec}};
  }
  if (n.stats.size_in_bytes || n.stats.row_count) {
    j["statistics"] = json::object();
    if (n.stats.size_in_bytes) j["statistics"]["size_in_bytes"] = *n.stats.size_in_bytes;
    if (n.stats.row_count) j["statistics"]["row_count"] = *n.stats.row_count;
  }
  return j;
}

// A tree as a flat list in pre-order, each node naming its parent: no nesting, so no depth limit.
json tree_json(const PlanNode* root) {
  json nodes = json::array();
  struct Item {
    const PlanNode* node;
    long parent;
    const char* relation;
  };
  std::vector<Item> stack{{root, -1, "root"}};
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    json j = node_json(*it.node);
    long id = static_cast<long>(nodes.size());
    j["id"] = id;
    j["parent"] = it.parent < 0 ? json(nullptr) : json(it.parent);
    j["relation"] = it.relation;
    nodes.push_back(std::move(j));
    for (auto c = it.node->children.rbegin(); c != it.node->children.rend(); ++c) stack.push_back({*c, id, "child"});
    for (auto q = it.node->subqueries.rbegin(); q != it.node->subqueries.rend(); ++q)
      stack.push_back({*q, id, "subquery"});
  }
  return nodes;
}

}  // namespace

std::string dump_json(const Document& doc) {
  json plans = json::array();
  for (const Plan& p : doc.plans) {
    json sections = json::array();
    for (const auto& s : p.sections) {
      json roots = json::array();
      for (const PlanNode* r : s.roots) roots.push_back(tree_json(r));
      sections.push_back({{"section", to_string(s.section)}, {"header_line", s.header_line}, {"roots", roots}});
    }
    json subs = json::array();
    for (const auto& [number, root] : p.subqueries)
      subs.push_back({{"number", number}, {"hosted", root->parent != nullptr}, {"nodes", tree_json(root)}});
    plans.push_back(
        {{"first_line", p.first_line},
         {"formatted", p.formatted},
         {"spark_version",
          {{"text", p.version.text()},
           {"min",
            p.version.min > 0 ? json(fmt::format("{}.{}", p.version.min / 100, p.version.min % 100)) : json(nullptr)},
           {"max", p.version.max < 9999 ? json(fmt::format("{}.{}", p.version.max / 100, p.version.max % 100))
                                        : json(nullptr)},
           {"databricks", p.version.databricks},
           {"evidence", p.version.evidence}}},
         {"streaming", p.streaming},
         {"sections", sections},
         {"subqueries", subs},
         {"photon_explanation", p.photon_explanation}});
  }
  json errors = json::array();
  for (const auto& e : doc.errors) errors.push_back({{"line", e.line}, {"column", e.column}, {"message", e.message}});
  json out{{"file", doc.path}, {"plans", plans}, {"errors", errors}};
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace planlint::plan
