// Reads one line of plan text into a LineRecord with the PEGTL grammar in grammar/plan_line.hpp.
// What a line means (root, child, details field, ...) is decided by the tree builder from context.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/plan.hpp"

namespace planlint::plan {

enum class LineKind { blank, section_header, tree_node, aqe_header, details_header, subquery_header, text, error };

struct LineRecord {
  LineKind kind = LineKind::text;
  int branch_column = -1;  // 0-based column of "+- " / ":- ", -1 when the line has none
  int content_column = 0;  // 0-based column where the node text starts
  int name_column = 0;     // 0-based column of the operator name
  std::string_view title;  // section / AQE header title
  std::string_view name;
  std::string_view args;
  std::string_view statistics;  // "Statistics(...)" after a formatted operator number
  std::optional<int> codegen_stage;
  std::optional<int> operator_id;
  bool unresolved = false;
  bool fallback = false;
  int number = 0;  // details header "(n)", subquery header "Subquery:n"
  int hosting_id = 0;
  std::optional<int> codegen_id;
  std::string_view hosting_expression;
  std::string error;  // kind == error: what was expected
  int error_column = 0;
};

LineRecord read_plan_line(std::string_view line);

struct DetailsField {
  std::string_view key;
  std::string_view value;
};
std::optional<DetailsField> read_details_field(std::string_view line);

std::vector<AttributeRef> scan_attribute_refs(std::string_view text);

}  // namespace planlint::plan
