// Plan pictures: a plan's physical operators as a graph (one node per operator, coloured by kind),
// with the findings on their operators and, for `planlint diff`, the operators a change added,
// removed or changed. Rendered as Graphviz DOT or as one self-contained HTML page (inline SVG and
// CSS, no script, no network). Reporters only: the graph is built from the plan IR and findings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lint/diagnostic.hpp"
#include "plan/diff.hpp"
#include "plan/plan.hpp"

namespace planlint::report {

using lint::Diagnostic;

enum class ChangeMark : std::uint8_t { none, added, removed, changed };

struct GraphNode {
  std::string name;    // as printed
  std::string detail;  // its arguments without run ids, cut
  std::string kind;    // shuffle, broadcast, join, python, scan, aggregate, aqe, other
  std::uint32_t line = 0;
  int parent = -1;         // index in PlanGraph::nodes, -1 for a root
  std::string edge_label;  // rows / size the plan knows for the edge to its parent
  ChangeMark mark = ChangeMark::none;
  std::vector<std::string> findings;  // "rule: message"
};

struct PlanGraph {
  std::string title;  // "file.txt, plan 1 (line 3)"
  std::string path;
  std::vector<GraphNode> nodes;    // pre-order
  std::vector<std::string> lines;  // the plan's text, for the HTML page (first_line is lines[0])
  std::uint32_t first_line = 1;
  std::vector<std::string> findings_without_node;  // findings on no operator (a syntax error, a setting)
};

// One graph per plan of the document; findings are put on the operator at their line and column.
std::vector<PlanGraph> plan_graphs(const plan::Document& doc, const std::vector<Diagnostic>& findings);
// AFTER's graph of one diffed pair of plans with the change marks; removed BEFORE operators are
// drawn under the AFTER operator nearest to where they were.
PlanGraph diff_graph(const plan::Document& after_doc, const plan::Plan& after, const plan::OperatorDiff& diff,
                     const std::vector<Diagnostic>& findings, std::string title);

std::string render_dot(const std::vector<PlanGraph>& graphs);
std::string render_html(const std::vector<PlanGraph>& graphs, const std::string& heading, const std::string& summary);

}  // namespace planlint::report
