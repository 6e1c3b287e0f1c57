// Turns an operator's printed arguments (inline or formatted-mode details) into typed fields.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "plan/plan.hpp"

namespace planlint::plan {

// Classify by name and fill PlanNode::kind, fields and stats.
void analyze_operator(PlanNode& node);
// The plan's Spark version range and streaming flag, from its operators (version.cpp).
void infer_plan_facts(Plan& plan);

// The physical operators that run, subqueries included, in pre-order: an AQE initial plan is left out
// when a final or current plan is printed beside it (the same query, planned earlier), and a cached
// plan printed under every scan of the cache is taken once.
std::vector<const PlanNode*> executed_operators(const Plan& plan);

// Operator name without engine prefixes (Photon, Gpu, Comet, Columnar) and suffixes (Exec, Transformer).
std::string_view base_operator_name(std::string_view name);

// Split at top-level commas (outside (), [], {}); items are trimmed. Tolerates values cut by "...".
std::vector<std::string> split_top_level(std::string_view text);

// "[a, b]" -> {"a", "b"}; text that is not a bracketed list yields one item.
std::vector<std::string> split_list(std::string_view text, bool* cut = nullptr);

// Spark's Utils.bytesToString inverse: "10.1 KiB" -> 10342.4; nullopt when not a size.
std::optional<double> parse_byte_size(std::string_view text);

}  // namespace planlint::plan
