// photon-fallback: work in a Photon plan that runs outside Photon.
#include <fmt/format.h>

#include <map>
#include <string>

#include "lint/plan_context.hpp"
#include "plan/operator_fields.hpp"

namespace planlint::rules {

using namespace planlint::lint;
using plan::OpKind;
using plan::PlanNode;

extern const RuleInfo kPhotonFallback{"SPK601",
                                      "photon-fallback",
                                      "Part of a Photon query runs outside Photon",
                                      Severity::warning,
                                      FixAvailability::never,
                                      Impact::medium,
                                      R"md(## What it does
In a Databricks plan that uses Photon (operators named `Photon...`), finds the work that does not run
in Photon: Python UDF evaluation (`BatchEvalPython`, `ArrowEvalPython`, ...), and other non-Photon
operators placed between Photon ones (never a leaf such as a `LocalTableScan` of rows the driver
holds: it does no work between Photon operators), with the row/columnar transitions (`ColumnarToRow`,
`RowToColumnar`) around them. It names the operators. When the plan's `== Photon Explanation ==`
says the query is not fully supported, its reason is quoted; when it says the query is fully
supported, only Python UDFs are reported. The final `ColumnarToRow` above `PhotonResultStage` that
hands rows to the driver is normal and not reported, nor what the top of the query does with the
rows after it (a `Coalesce`, a limit): Photon's work is done there.

## Why is this bad?
Photon clusters bill a higher DBU rate for the whole job. Work that falls back to the JVM engine
runs at the old speed while still paying the Photon rate, and each transition converts every row
between Photon's columnar format and Spark's rows.

## Example
```plan
== Physical Plan ==
* ColumnarToRow (6)
+- PhotonResultStage (5)
   +- PhotonProject (4)
      +- RowToColumnar (3)
         +- BatchEvalPython (2)
            +- PhotonScan parquet db.events (1)
```
Use instead (the UDF rewritten with built-in functions):
```plan
== Physical Plan ==
* ColumnarToRow (4)
+- PhotonResultStage (3)
   +- PhotonProject (2)
      +- PhotonScan parquet db.events (1)
```

## Fix safety
Display-only: replace Python UDFs with built-in functions (or SQL expressions), and rewrite the
unsupported expressions the Photon explanation names; check `spark.databricks.photon.enabled`.

## Options
None.
)md"};

namespace {

bool is_photon(const PlanNode& n) { return n.name.rfind("Photon", 0) == 0; }

bool is_transition(const PlanNode& n) {
  std::string_view b = plan::base_operator_name(n.name);
  return b == "ColumnarToRow" || b == "RowToColumnar";
}

// Operators that are plumbing rather than work: codegen and AQE wrappers, stages and row/columnar
// transitions (is_wrapper), the AQE root, reused exchanges, subquery holders.
bool is_plumbing(const PlanNode& n) {
  if (is_wrapper(n) || n.kind == OpKind::adaptive_plan || n.kind == OpKind::reused_exchange ||
      n.kind == OpKind::subquery)
    return true;
  std::string_view b = plan::base_operator_name(n.name);
  return b == "ResultQueryStage" || b == "Subquery" || b == "SubqueryBroadcast" || b == "ReusedSubquery";
}

// The nearest working operator above / below n, through plumbing.
const PlanNode* working_parent(const PlanNode& n) {
  const PlanNode* p = n.parent;
  while (p != nullptr && is_plumbing(*p)) p = p->parent;
  return p;
}

// The ColumnarToRow above a PhotonResultStage: where Photon hands its rows on.
bool result_handoff(const PlanNode& n) {
  return is_transition(n) && n.children.size() == 1 &&
         plan::base_operator_name(n.children.front()->name) == "ResultStage";
}

// Whether a Photon operator is below n, through plumbing (and, unless `past_result` is false, through
// the result hand-off).
bool photon_below(const PlanNode& n, bool past_result = true, int depth = 0) {
  for (const PlanNode* c : n.children) {
    if (is_photon(*c)) return true;
    if (!past_result && result_handoff(*c)) continue;
    if (depth < 16 && is_plumbing(*c) && photon_below(*c, past_result, depth + 1)) return true;
  }
  return false;
}

}  // namespace

void check_photon_fallback(PlanContext& ctx) {
  auto nodes = ctx.physical_nodes();
  bool photon = false;
  for (const PlanNode* n : nodes) photon = photon || is_photon(*n);
  if (!photon) return;
  const std::string& explanation = ctx.plan().photon_explanation;
  bool fully_supported = explanation.find("fully supported by Photon") != std::string::npos &&
                         explanation.find("does not fully support") == std::string::npos;
  std::vector<const PlanNode*> outside;
  int transitions = 0;
  for (const PlanNode* n : nodes) {
    if (is_transition(*n)) {
      // The last ColumnarToRow above PhotonResultStage hands the result to the driver.
      bool result = n->children.size() == 1 && plan::base_operator_name(n->children.front()->name) == "ResultStage";
      if (!result) ++transitions;
      continue;
    }
    if (is_photon(*n) || is_plumbing(*n)) continue;
    if (n->kind == OpKind::python_eval) {
      outside.push_back(n);
      continue;
    }
    if (fully_supported) continue;
    // A leaf (a LocalTableScan of rows the driver holds, a scan) does no work between Photon
    // operators: what it hands on is converted once, and the plan shows nothing run outside Photon.
    if (n->children.empty()) continue;
    // At the top of the query, above the result hand-off (a Coalesce, a limit of the result): Photon's
    // work is done, nothing runs between Photon operators.
    const PlanNode* up = working_parent(*n);
    if ((up != nullptr && is_photon(*up)) || photon_below(*n, up != nullptr)) outside.push_back(n);
  }
  std::string reason;
  if (auto at = explanation.find("because"); at != std::string::npos) {
    // "... because:\n\t\tUnsupported node: X." -> "Unsupported node: X."
    std::size_t from = explanation.find(':', at);
    for (char c : explanation.substr(from == std::string::npos ? at + 7 : from + 1)) {
      bool space = c == '\n' || c == '\t' || c == ' ';
      if (space && (reason.empty() || reason.back() == ' ')) continue;
      reason += space ? ' ' : c;
    }
    while (!reason.empty() && reason.back() == ' ') reason.pop_back();
    if (reason.size() > 200) reason = reason.substr(0, 197) + "...";
  }
  if (outside.empty() && reason.empty()) return;
  std::map<std::string, int> names;
  for (const PlanNode* n : outside) ++names[n->name];
  std::string list;
  for (const auto& [name, count] : names)
    list += (list.empty() ? "" : ", ") + name + (count > 1 ? fmt::format(" x{}", count) : "");
  const PlanNode& at = outside.empty() ? *ctx.physical_root() : *outside.front();
  std::string message =
      outside.empty()
          ? "Photon does not run all of this query (" + reason + ")"
          : fmt::format("{} of this Photon query run{} outside Photon ({}{}){}",
                        outside.size() == 1 ? "1 operator" : fmt::format("{} operators", outside.size()),
                        outside.size() == 1 ? "s" : "", list,
                        transitions > 0
                            ? fmt::format("; {} row/columnar transition{}", transitions, transitions == 1 ? "" : "s")
                            : "",
                        reason.empty() ? "" : "; Photon: " + reason);
  ctx.report(at, message, "Keep the work in Photon",
             "Replace Python UDFs with built-in functions or SQL expressions, and rewrite what the Photon "
             "explanation lists as unsupported; the job pays Photon's DBU rate for this work either way.");
}

}  // namespace planlint::rules
