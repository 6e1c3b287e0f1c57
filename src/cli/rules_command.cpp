// `planlint rules` (every rule: id, name, severity, impact, fix, summary) and `planlint rule NAME`
// (one rule's documentation).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.hpp"
#include "lint/rule.hpp"

namespace planlint::cli {

namespace {

int run_rules(const std::string& format) {
  std::vector<const lint::RuleInfo*> rules;
  for (const auto& r : lint::all_rules()) rules.push_back(r.info);
  if (format == "json") {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& rule : lint::all_rules()) {
      const lint::RuleInfo* r = rule.info;
      // What the rule reads: plans, PySpark sources, event logs (the syntax rules: their frontend's input).
      std::vector<std::string> inputs;
      if (rule.check != nullptr || r == &lint::plan_syntax_rule()) inputs.emplace_back("plan");
      if (rule.source_check != nullptr || r == &lint::python_syntax_rule() || r == &lint::unused_noqa_rule())
        inputs.emplace_back("source");
      if (rule.eventlog_check != nullptr || rule.check != nullptr || r == &lint::event_log_syntax_rule())
        inputs.emplace_back("eventlog");
      if (rule.diff_check != nullptr) inputs.emplace_back("plan diff");
      a.push_back({{"id", r->id},
                   {"name", r->name},
                   {"severity", lint::to_string(r->severity)},
                   {"impact", lint::to_string(r->impact)},
                   {"fix", lint::to_string(r->fix)},
                   {"legacy_id", lint::legacy_id(*r)},
                   {"summary", r->summary},
                   {"inputs", inputs}});
    }
    std::cout << a.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  std::cout << fmt::format("{:<6} {:<30} {:<8} {:<7} {:<10} {}\n", "id", "name", "severity", "impact", "fix",
                           "summary");
  std::string_view family;
  for (const auto* r : rules) {
    for (const auto& f : lint::rule_families())
      if (r->id.substr(0, f.prefix.size()) == f.prefix && f.prefix != family) {
        family = f.prefix;
        std::cout << fmt::format("\n{}  {}\n", f.prefix, f.title);
      }
    std::cout << fmt::format("{:<6} {:<30} {:<8} {:<7} {:<10} {}\n", r->id, r->name, lint::to_string(r->severity),
                             lint::to_string(r->impact), lint::to_string(r->fix), r->summary);
  }
  return 0;
}

int run_rule(const std::string& name) {
  const lint::RuleInfo* r = lint::find_rule(name);
  if (r == nullptr) {
    std::cerr << "planlint: error: unknown rule '" << name << "' (see `planlint rules`)\n";
    return 2;
  }
  std::cout << fmt::format("# {} ({})\n\n{}\n\nSeverity: {}. Impact: {}. Fix: {}.\n\n{}", r->name, r->id, r->summary,
                           lint::to_string(r->severity), lint::to_string(r->impact), lint::to_string(r->fix), r->doc);
  return 0;
}

}  // namespace

Subcommand add_rules_command(CLI::App& app) {
  auto format = std::make_shared<std::string>("text");
  auto* rules = app.add_subcommand("rules", "List every rule: id, name, fix availability and summary");
  rules->add_option("--format", *format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return {rules, [format] { return run_rules(*format); }};
}

Subcommand add_rule_command(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  auto* rule = app.add_subcommand("rule", "Print the documentation of one rule");
  rule->add_option("RULE", *name, "Rule id or name")->required();
  return {rule, [name] { return run_rule(*name); }};
}

}  // namespace planlint::cli
