// Rule metadata, kept next to each rule's code, and the registry that lists every rule.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "lint/diagnostic.hpp"

namespace planlint::lint {

enum class FixAvailability : std::uint8_t { never, sometimes, always };
std::string_view to_string(FixAvailability f);

// How much time or money the pattern costs when it bites (beside severity, which says how sure and how
// wrong): high = a job that fails or runs several times slower; medium = a measurable share of a job;
// low = hygiene.
enum class Impact : std::uint8_t { low, medium, high };
std::string_view to_string(Impact i);
std::optional<Impact> parse_impact(std::string_view text);

class PlanContext;
class SourceContext;
class EventLogContext;
class DiffContext;

struct RuleInfo {
  std::string_view id;       // stable: "SPK101"
  std::string_view name;     // kebab-case, user-facing: "redundant-shuffle"
  std::string_view summary;  // one line
  Severity severity;
  FixAvailability fix;
  Impact impact;
  std::string_view doc;  // Markdown: What it does / Why is this bad? / Example / Fix safety / Options
  bool opt_in = false;   // not in the default selection: enable with --select / --extend-select
};

using PlanCheck = void (*)(PlanContext&);
using SourceCheck = void (*)(SourceContext&);
using EventLogCheck = void (*)(EventLogContext&);
using DiffCheck = void (*)(DiffContext&);

struct Rule {
  const RuleInfo* info;
  PlanCheck check;                         // nullptr: the rule has no plan check
  SourceCheck source_check;                // nullptr: the rule has no PySpark source check
  EventLogCheck eventlog_check = nullptr;  // a diagnosis of a finished application's event log
  DiffCheck diff_check = nullptr;          // a plan change (`planlint diff BEFORE AFTER`)
  // Its source check builds more than it reports (recomputed-lineage's graph of uses): it runs
  // before the others, so that and their findings are not held together. Findings are sorted
  // afterwards, so the order does not show.
  bool source_check_first = false;
};

// Every rule, sorted by id, the two syntax rules included.
std::span<const Rule> all_rules();
// By id ("SPK101"), name ("redundant-shuffle") or the id it had before 0.2 ("PL001").
const RuleInfo* find_rule(std::string_view id_or_name);
// The id a rule had before the SPK ids (planlint 0.1: "PL001"); "" for rules added since.
std::string_view legacy_id(const RuleInfo& rule);
// The rule families: the first digit of an id ("SPK1": shuffles and joins), with their titles.
struct RuleFamily {
  std::string_view prefix;
  std::string_view title;
};
std::span<const RuleFamily> rule_families();
const RuleInfo& plan_syntax_rule();
const RuleInfo& python_syntax_rule();
const RuleInfo& unused_noqa_rule();
const RuleInfo& event_log_syntax_rule();

// A frontend's "cannot read this" finding (plan-syntax, python-syntax) at one position.
Diagnostic syntax_diagnostic(const RuleInfo& rule, std::string path, std::uint32_t line, std::uint32_t column,
                             std::string message);

}  // namespace planlint::lint
