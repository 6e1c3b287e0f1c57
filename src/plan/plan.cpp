// Small behaviour of the plan IR types: names for enums and lookups.
#include "plan/plan.hpp"

namespace planlint::plan {

std::string_view to_string(Section section) {
  switch (section) {
    case Section::parsed_logical:
      return "parsed";
    case Section::analyzed_logical:
      return "analyzed";
    case Section::optimized_logical:
      return "optimized";
    case Section::physical:
      return "physical";
    case Section::codegen_subtree:
      return "codegen";
  }
  return "physical";
}

std::string_view to_string(OpKind kind) {
  switch (kind) {
    case OpKind::other:
      return "other";
    case OpKind::shuffle_exchange:
      return "shuffle_exchange";
    case OpKind::broadcast_exchange:
      return "broadcast_exchange";
    case OpKind::reused_exchange:
      return "reused_exchange";
    case OpKind::join:
      return "join";
    case OpKind::filter:
      return "filter";
    case OpKind::project:
      return "project";
    case OpKind::aggregate:
      return "aggregate";
    case OpKind::file_scan:
      return "file_scan";
    case OpKind::local_table_scan:
      return "local_table_scan";
    case OpKind::rdd_scan:
      return "rdd_scan";
    case OpKind::range:
      return "range";
    case OpKind::python_eval:
      return "python_eval";
    case OpKind::window:
      return "window";
    case OpKind::sort:
      return "sort";
    case OpKind::adaptive_plan:
      return "adaptive_plan";
    case OpKind::query_stage:
      return "query_stage";
    case OpKind::shuffle_read:
      return "shuffle_read";
    case OpKind::subquery:
      return "subquery";
  }
  return "other";
}

std::string_view to_string(Partitioning partitioning) {
  switch (partitioning) {
    case Partitioning::unknown:
      return "unknown";
    case Partitioning::hash:
      return "hash";
    case Partitioning::range:
      return "range";
    case Partitioning::round_robin:
      return "roundrobin";
    case Partitioning::single:
      return "single";
  }
  return "unknown";
}

std::string_view to_string(AqeRole role) {
  switch (role) {
    case AqeRole::none:
      return "";
    case AqeRole::final_plan:
      return "Final Plan";
    case AqeRole::initial_plan:
      return "Initial Plan";
    case AqeRole::current_plan:
      return "Current Plan";
  }
  return "";
}

std::string AttributeRef::text() const { return name + "#" + id + (is_long ? "L" : ""); }

bool AttributeRef::same_attribute(const AttributeRef& other) const {
  // Golden files normalise every id to "x": then only the name can tell attributes apart.
  if (id == "x" || other.id == "x") return name == other.name;
  return id == other.id;
}

const std::string* PlanNode::detail(std::string_view key) const {
  for (const auto& [k, v] : details)
    if (k == key) return &v;
  return nullptr;
}

const SectionTree* Plan::find(Section section) const {
  for (const auto& s : sections)
    if (s.section == section) return &s;
  return nullptr;
}

}  // namespace planlint::plan
