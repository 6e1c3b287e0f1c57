// Plan graphs and their DOT and HTML renderings.
#include "report/plan_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "lint/rule.hpp"
#include "plan/operator_fields.hpp"
#include "util/printable.hpp"

namespace planlint::report {
using namespace planlint::lint;  // findings, results and rule metadata: what a reporter prints

namespace {

std::string kind_of(const plan::PlanNode& n) {
  using plan::OpKind;
  if (plan::is_python_operator(n)) return "python";
  switch (n.kind) {
    case OpKind::shuffle_exchange:
      return "shuffle";
    case OpKind::broadcast_exchange:
    case OpKind::reused_exchange:
      return "broadcast";
    case OpKind::join:
      return "join";
    case OpKind::file_scan:
    case OpKind::local_table_scan:
    case OpKind::rdd_scan:
    case OpKind::range:
      return "scan";
    case OpKind::aggregate:
    case OpKind::window:
      return "aggregate";
    case OpKind::adaptive_plan:
    case OpKind::query_stage:
    case OpKind::shuffle_read:
      return "aqe";
    default:
      return "other";
  }
}

std::string cut(std::string s, std::size_t max) {
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

std::string edge_label(const plan::PlanNode& n) {
  std::string out;
  if (n.stats.row_count) out = fmt::format("{} rows", *n.stats.row_count);
  if (n.stats.size_in_bytes) {
    double b = *n.stats.size_in_bytes;
    const char* unit = "B";
    for (const char* u : {"KiB", "MiB", "GiB", "TiB"}) {
      if (b < 1024) break;
      b /= 1024;
      unit = u;
    }
    out += (out.empty() ? "" : ", ") + fmt::format("{:.1f} {}", b, unit);
  }
  return out;
}

GraphNode node_of(const plan::PlanNode& n) {
  GraphNode g;
  g.name = n.name;
  const std::string* formatted = n.args.empty() ? n.detail("Arguments") : nullptr;
  g.detail = cut(plan::without_run_ids(formatted != nullptr ? *formatted : n.args), 60);
  g.kind = kind_of(n);
  g.line = n.span.line;
  g.edge_label = edge_label(n);
  return g;
}

std::vector<const plan::PlanNode*> operators(const plan::Plan& p) {
  std::vector<const plan::PlanNode*> out = plan::executed_operators(p);
  if (!out.empty() || p.sections.empty()) return out;
  for (const plan::PlanNode* root : p.sections.front().roots)  // a logical plan only
    plan::for_each_node(root, [&](const plan::PlanNode& n) { out.push_back(&n); });
  return out;
}

// Nodes in pre-order with their parents as indices; the map finds a node's index.
void add_nodes(PlanGraph& g, const std::vector<const plan::PlanNode*>& nodes,
               std::unordered_map<const plan::PlanNode*, int>& index) {
  for (const plan::PlanNode* n : nodes) {
    GraphNode gn = node_of(*n);
    for (const plan::PlanNode* p = n->parent; p != nullptr; p = p->parent)
      if (auto it = index.find(p); it != index.end()) {
        gn.parent = it->second;
        break;
      }
    index.emplace(n, static_cast<int>(g.nodes.size()));
    g.nodes.push_back(std::move(gn));
  }
}

void plan_lines(PlanGraph& g, const plan::Document& doc, std::uint32_t first, std::uint32_t last) {
  g.first_line = first;
  for (std::uint32_t l = first; l <= last && l <= doc.lines.size(); ++l) g.lines.emplace_back(doc.lines[l - 1]);
}

void place_findings(PlanGraph& g, const std::vector<Diagnostic>& findings,
                    const std::unordered_map<const plan::PlanNode*, int>& index) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> at;
  for (const auto& [n, i] : index) at[{n->span.line, n->span.column}] = i;
  for (const auto& d : findings) {
    std::string text = std::string(d.rule->name) + ": " + d.message;
    auto it = at.find({d.location.line, d.location.column});
    if (it != at.end())
      g.nodes[static_cast<std::size_t>(it->second)].findings.push_back(std::move(text));
    else
      g.findings_without_node.push_back(fmt::format("line {}: {}", d.location.line, text));
  }
}

}  // namespace

std::vector<PlanGraph> plan_graphs(const plan::Document& doc, const std::vector<Diagnostic>& findings) {
  std::vector<PlanGraph> out;
  for (std::size_t i = 0; i < doc.plans.size(); ++i) {
    const plan::Plan& p = doc.plans[i];
    PlanGraph g;
    g.path = doc.path;
    g.title = fmt::format("{}, plan {} (line {})", doc.path, i + 1, p.first_line);
    std::unordered_map<const plan::PlanNode*, int> index;
    add_nodes(g, operators(p), index);
    std::uint32_t last =
        i + 1 < doc.plans.size() ? doc.plans[i + 1].first_line - 1 : static_cast<std::uint32_t>(doc.lines.size());
    plan_lines(g, doc, p.first_line > 0 ? p.first_line : 1, last);
    std::vector<Diagnostic> mine;
    for (const auto& d : findings)
      if (d.location.line >= g.first_line && d.location.line <= last) mine.push_back(d);
    place_findings(g, mine, index);
    out.push_back(std::move(g));
  }
  if (out.empty() && !findings.empty()) {  // nothing parsed: the findings alone (syntax errors)
    PlanGraph g;
    g.path = doc.path;
    g.title = doc.path;
    for (const auto& d : findings)
      g.findings_without_node.push_back(fmt::format("line {}: {}: {}", d.location.line, d.rule->name, d.message));
    out.push_back(std::move(g));
  }
  return out;
}

PlanGraph diff_graph(const plan::Document& after_doc, const plan::Plan& after, const plan::OperatorDiff& diff,
                     const std::vector<Diagnostic>& findings, std::string title) {
  PlanGraph g;
  g.path = after_doc.path;
  g.title = std::move(title);
  std::unordered_map<const plan::PlanNode*, int> index;
  add_nodes(g, operators(after), index);
  for (const plan::PlanNode* a : diff.added)
    if (auto it = index.find(a); it != index.end())
      g.nodes[static_cast<std::size_t>(it->second)].mark = ChangeMark::added;
  for (std::size_t k = 0; k < diff.matched.size(); ++k)
    if (diff.text_changed[k])
      if (auto it = index.find(diff.matched[k].second); it != index.end())
        g.nodes[static_cast<std::size_t>(it->second)].mark = ChangeMark::changed;
  std::uint32_t last = after.first_line;
  for (const auto& [n, i] : index) last = std::max(last, n->span.line);
  plan_lines(g, after_doc, after.first_line > 0 ? after.first_line : 1, last);
  std::vector<Diagnostic> mine;
  for (const auto& d : findings)
    if (d.location.line >= g.first_line && d.location.line <= last) mine.push_back(d);
  place_findings(g, mine, index);
  // Removed operators hang under the AFTER operator nearest to where they were (their own removed
  // parent when it was removed too).
  std::unordered_map<const plan::PlanNode*, int> removed_index;
  for (const plan::PlanNode* b : diff.removed) {
    GraphNode gn = node_of(*b);
    gn.mark = ChangeMark::removed;
    gn.line = 0;  // a BEFORE line: not a line of this text
    gn.parent = -1;
    for (const plan::PlanNode* p = b->parent; p != nullptr; p = p->parent) {
      if (auto r = removed_index.find(p); r != removed_index.end()) {
        gn.parent = r->second;
        break;
      }
      if (auto m = diff.to_after.find(p); m != diff.to_after.end()) {
        if (auto it = index.find(m->second); it != index.end()) gn.parent = it->second;
        break;
      }
    }
    removed_index.emplace(b, static_cast<int>(g.nodes.size()));
    g.nodes.push_back(std::move(gn));
  }
  return g;
}

namespace {

const char* fill_of(const std::string& kind) {
  if (kind == "shuffle") return "#f4a261";
  if (kind == "broadcast") return "#e9c46a";
  if (kind == "join") return "#8ecae6";
  if (kind == "python") return "#cdb4db";
  if (kind == "scan") return "#b7e4c7";
  if (kind == "aggregate") return "#bde0fe";
  if (kind == "aqe") return "#e5e5e5";
  return "#ffffff";
}

std::string dot_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += '\\';
    if (u < 0x20 || u == 0x7f) continue;
    out += c;
  }
  return out;
}

const char* mark_text(ChangeMark m) {
  switch (m) {
    case ChangeMark::added:
      return "added";
    case ChangeMark::removed:
      return "removed";
    case ChangeMark::changed:
      return "changed";
    case ChangeMark::none:
      break;
  }
  return "";
}

}  // namespace

std::string render_dot(const std::vector<PlanGraph>& graphs) {
  std::string out =
      "digraph planlint {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
      "fontsize=10];\n  edge [dir=back, fontname=\"Helvetica\", fontsize=9];\n";
  for (std::size_t gi = 0; gi < graphs.size(); ++gi) {
    const PlanGraph& g = graphs[gi];
    out += fmt::format("  subgraph cluster_{} {{\n    label=\"{}\";\n    fontname=\"Helvetica\";\n", gi,
                       dot_escape(g.title));
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const GraphNode& n = g.nodes[i];
      std::string label = dot_escape(n.name);
      if (!n.detail.empty()) label += "\\n" + dot_escape(cut(n.detail, 40));
      if (n.line > 0) label += fmt::format("\\nline {}", n.line);
      if (n.mark != ChangeMark::none) label += std::string("\\n[") + mark_text(n.mark) + "]";
      for (const auto& f : n.findings) label += "\\n! " + dot_escape(cut(f, 70));
      std::string style = "rounded,filled";
      std::string color = "#555555";
      double pen = 1;
      if (n.mark == ChangeMark::added) color = "#2b9348", pen = 3;
      if (n.mark == ChangeMark::changed) color = "#1d4ed8", pen = 2, style += ",dashed";
      if (n.mark == ChangeMark::removed) color = "#9d0208", pen = 2, style += ",dashed";
      if (!n.findings.empty()) color = "#d62828", pen = 3, style += ",bold";
      out += fmt::format("    g{}_{} [label=\"{}\", fillcolor=\"{}\", color=\"{}\", penwidth={}, style=\"{}\"{}];\n",
                         gi, i, label, n.mark == ChangeMark::removed ? "#f8f9fa" : fill_of(n.kind), color, pen, style,
                         n.mark == ChangeMark::removed ? ", fontcolor=\"#6c757d\"" : "");
    }
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const GraphNode& n = g.nodes[i];
      if (n.parent < 0) continue;
      out += fmt::format("    g{}_{} -> g{}_{}{};\n", gi, n.parent, gi, i,
                         n.edge_label.empty() ? std::string() : " [label=\"" + dot_escape(n.edge_label) + "\"]");
    }
    out += "  }\n";
  }
  out += "}\n";
  return out;
}

namespace {

std::string html_escape(std::string_view s) { return util::html_text(s); }

constexpr int kW = 210, kH = 56, kGapX = 24, kGapY = 44;

// A tidy tree: leaves take the next column, a parent sits over the middle of its children.
struct Layout {
  std::vector<double> x;
  std::vector<int> depth;
  double width = 0, height = 0;
};

Layout layout(const PlanGraph& g) {
  std::size_t n = g.nodes.size();
  std::vector<std::vector<int>> children(n);
  std::vector<int> roots;
  for (std::size_t i = 0; i < n; ++i) {
    int p = g.nodes[i].parent;
    if (p >= 0 && static_cast<std::size_t>(p) < n)
      children[static_cast<std::size_t>(p)].push_back(static_cast<int>(i));
    else
      roots.push_back(static_cast<int>(i));
  }
  Layout l;
  l.x.assign(n, 0);
  l.depth.assign(n, 0);
  double next = 0;
  int max_depth = 0;
  // Iterative post-order (plans can be deep).
  std::vector<std::pair<int, std::size_t>> stack;
  for (int r : roots) {
    stack.emplace_back(r, 0);
    while (!stack.empty()) {
      auto& [v, k] = stack.back();
      auto vi = static_cast<std::size_t>(v);
      if (k < children[vi].size()) {
        int c = children[vi][k++];
        l.depth[static_cast<std::size_t>(c)] = l.depth[vi] + 1;
        max_depth = std::max(max_depth, l.depth[static_cast<std::size_t>(c)]);
        stack.emplace_back(c, 0);
        continue;
      }
      if (children[vi].empty()) {
        l.x[vi] = next++;
      } else {
        l.x[vi] =
            (l.x[static_cast<std::size_t>(children[vi].front())] + l.x[static_cast<std::size_t>(children[vi].back())]) /
            2;
      }
      stack.pop_back();
    }
  }
  l.width = std::max(1.0, next) * (kW + kGapX) + kGapX;
  l.height = (max_depth + 1) * (kH + kGapY) + kGapY;
  return l;
}

void svg(std::string& out, const PlanGraph& g, std::size_t gi) {
  Layout l = layout(g);
  auto px = [&](std::size_t i) { return kGapX + l.x[i] * (kW + kGapX); };
  auto py = [&](std::size_t i) { return kGapY / 2.0 + l.depth[i] * (kH + kGapY); };
  // A wide plan (TPC-DS size) is scaled to the page's width: the whole shape at a glance, hover for
  // an operator's text, the operator list below for reading.
  std::string size = l.width > 1800 ? std::string("width=\"100%\"")
                                    : fmt::format("width=\"{:.0f}\" height=\"{:.0f}\"", l.width, l.height);
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" {} viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" aria-label=\"{}\">\n",
      size, l.width, l.height, html_escape(g.title));
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    int p = g.nodes[i].parent;
    if (p < 0) continue;
    auto pi = static_cast<std::size_t>(p);
    double x1 = px(pi) + kW / 2.0, y1 = py(pi) + kH, x2 = px(i) + kW / 2.0, y2 = py(i);
    out += fmt::format("<path class=\"edge{}\" d=\"M{:.0f},{:.0f} C{:.0f},{:.0f} {:.0f},{:.0f} {:.0f},{:.0f}\"/>\n",
                       g.nodes[i].mark == ChangeMark::removed ? " removed" : "", x1, y1, x1, (y1 + y2) / 2, x2,
                       (y1 + y2) / 2, x2, y2);
    if (!g.nodes[i].edge_label.empty())
      out += fmt::format("<text class=\"elabel\" x=\"{:.0f}\" y=\"{:.0f}\">{}</text>\n", (x1 + x2) / 2 + 4,
                         (y1 + y2) / 2, html_escape(g.nodes[i].edge_label));
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const GraphNode& n = g.nodes[i];
    std::string cls = "node k-" + n.kind;
    if (n.mark != ChangeMark::none) cls += std::string(" m-") + mark_text(n.mark);
    if (!n.findings.empty()) cls += " finding";
    std::string tip = n.name + (n.detail.empty() ? "" : " " + n.detail);
    for (const auto& f : n.findings) tip += "\n" + f;
    out += fmt::format("<a href=\"#g{}-l{}\"><g id=\"g{}-n{}\" class=\"{}\"><title>{}</title>", gi, n.line, gi, i, cls,
                       html_escape(tip));
    out += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{}\" height=\"{}\" rx=\"8\"/>", px(i), py(i), kW, kH);
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" class=\"name\">{}</text>", px(i) + 8, py(i) + 18,
                       html_escape(cut(n.name, 28)));
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" class=\"detail\">{}</text>", px(i) + 8, py(i) + 34,
                       html_escape(cut(n.detail, 34)));
    std::string foot = n.line > 0 ? fmt::format("line {}", n.line) : std::string();
    if (n.mark != ChangeMark::none) foot += std::string(foot.empty() ? "" : " · ") + mark_text(n.mark);
    if (!n.findings.empty())
      foot += fmt::format("{}{} finding{}", foot.empty() ? "" : " · ", n.findings.size(),
                          n.findings.size() == 1 ? "" : "s");
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" class=\"foot\">{}</text></g></a>\n", px(i) + 8, py(i) + 49,
                       html_escape(foot));
  }
  out += "</svg>\n";
}

// The operators as nested, collapsible lists; deep subtrees of a large plan start closed.
void tree(std::string& out, const PlanGraph& g, std::size_t gi) {
  std::size_t n = g.nodes.size();
  std::vector<std::vector<int>> children(n);
  std::vector<int> roots;
  for (std::size_t i = 0; i < n; ++i) {
    int p = g.nodes[i].parent;
    if (p >= 0)
      children[static_cast<std::size_t>(p)].push_back(static_cast<int>(i));
    else
      roots.push_back(static_cast<int>(i));
  }
  bool large = n > 60;
  // (node, depth, phase): phase 0 opens the node, 1 closes it.
  std::vector<std::tuple<int, int, int>> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.emplace_back(*it, 0, 0);
  while (!stack.empty()) {
    auto [v, depth, phase] = stack.back();
    stack.pop_back();
    auto vi = static_cast<std::size_t>(v);
    const GraphNode& node = g.nodes[vi];
    if (phase == 1) {
      out += "</details>\n";
      continue;
    }
    std::string cls = "k-" + node.kind;
    if (node.mark != ChangeMark::none) cls += std::string(" m-") + mark_text(node.mark);
    if (!node.findings.empty()) cls += " finding";
    std::string label = fmt::format("<span class=\"op {}\">{}</span> <span class=\"args\">{}</span>", cls,
                                    html_escape(node.name), html_escape(node.detail));
    if (node.line > 0) label += fmt::format(" <a class=\"ln\" href=\"#g{}-l{}\">line {}</a>", gi, node.line, node.line);
    if (node.mark != ChangeMark::none) label += std::string(" <em>") + mark_text(node.mark) + "</em>";
    for (const auto& f : node.findings) label += "<div class=\"why\">" + html_escape(f) + "</div>";
    if (children[vi].empty()) {
      out += fmt::format("<div class=\"leaf\" id=\"g{}-t{}\">{}</div>\n", gi, vi, label);
      continue;
    }
    out += fmt::format("<details{} id=\"g{}-t{}\"><summary>{}</summary>\n", large && depth >= 4 ? "" : " open", gi, vi,
                       label);
    stack.emplace_back(v, depth, 1);
    for (auto it = children[vi].rbegin(); it != children[vi].rend(); ++it) stack.emplace_back(*it, depth + 1, 0);
  }
}

constexpr const char* kCss = R"css(
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
header{background:#1d3557;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}header p{margin:4px 0 0}
section.plan{margin:18px 24px;background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px 16px}
h2{font-size:16px;margin:4px 0 10px}h3{font-size:14px;margin:10px 0 6px}
.legend span{display:inline-block;padding:1px 8px;margin:0 6px 4px 0;border:1px solid #999;border-radius:6px;font-size:12px}
.graph{overflow:auto;max-height:70vh;border:1px solid #eee;border-radius:6px;background:#fcfcfc}
svg .node rect{stroke:#555;stroke-width:1;fill:#fff}
svg .k-shuffle rect,.k-shuffle{background:#f4a261;fill:#f4a261}svg .k-broadcast rect,.k-broadcast{background:#e9c46a;fill:#e9c46a}
svg .k-join rect,.k-join{background:#8ecae6;fill:#8ecae6}svg .k-python rect,.k-python{background:#cdb4db;fill:#cdb4db}
svg .k-scan rect,.k-scan{background:#b7e4c7;fill:#b7e4c7}svg .k-aggregate rect,.k-aggregate{background:#bde0fe;fill:#bde0fe}
svg .k-aqe rect,.k-aqe{background:#e5e5e5;fill:#e5e5e5}
svg .m-added rect{stroke:#2b9348;stroke-width:3}svg .m-changed rect{stroke:#1d4ed8;stroke-width:2;stroke-dasharray:6 3}
svg .m-removed rect{fill:#f8f9fa;stroke:#9d0208;stroke-width:2;stroke-dasharray:4 3}svg .m-removed text{fill:#6c757d}
svg .finding rect{stroke:#d62828;stroke-width:5}
svg text{font-family:system-ui,Helvetica,Arial,sans-serif;fill:#1b1b1b}svg .name{font-weight:600;font-size:12px}
svg .detail{font-size:10px}svg .foot{font-size:10px;fill:#444}svg .elabel{font-size:10px;fill:#555}
svg .edge{fill:none;stroke:#888;stroke-width:1.5}svg .edge.removed{stroke:#9d0208;stroke-dasharray:4 3}
svg a:hover rect{filter:brightness(0.92)}
.cols{display:grid;grid-template-columns:minmax(280px,1fr) minmax(280px,1fr);gap:16px}
.findings li{margin-bottom:4px}.findings .rule{font-weight:600}
.tree{font-size:12px;max-height:60vh;overflow:auto}.tree details,.tree .leaf{margin-left:14px}
.tree summary{cursor:pointer}.op{padding:0 4px;border-radius:4px;border:1px solid #bbb;font-weight:600}
.op.finding{border:2px solid #d62828}.op.m-added{outline:2px solid #2b9348}.op.m-removed{text-decoration:line-through}
.args{color:#555}.why{color:#9d0208;margin-left:18px}
pre{font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow:auto;max-height:60vh;background:#f6f8fa;
padding:8px;border-radius:6px}pre a{color:#999;text-decoration:none;display:inline-block;width:4em}
pre .hit{background:#ffe3e3}:target{background:#fff3bf}
)css";

}  // namespace

std::string render_html(const std::vector<PlanGraph>& graphs, const std::string& heading, const std::string& summary) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    html_escape(heading) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n";
  out += "<header><h1>" + html_escape(heading) + "</h1><p>" + html_escape(summary) + "</p></header>\n";
  for (std::size_t gi = 0; gi < graphs.size(); ++gi) {
    const PlanGraph& g = graphs[gi];
    out += fmt::format("<section class=\"plan\" id=\"g{}\">\n<h2>{}</h2>\n", gi, html_escape(g.title));
    out +=
        "<div class=\"legend\"><span class=\"k-shuffle\">shuffle</span><span class=\"k-broadcast\">broadcast</span>"
        "<span class=\"k-join\">join</span><span class=\"k-python\">Python</span><span class=\"k-scan\">scan</span>"
        "<span class=\"k-aggregate\">aggregate</span><span class=\"k-aqe\">AQE stage</span>"
        "<span style=\"border:2px solid #d62828\">finding</span></div>\n";
    if (!g.nodes.empty()) {
      out += "<div class=\"graph\">\n";
      svg(out, g, gi);
      out += "</div>\n";
    }
    out += "<div class=\"cols\">\n<div class=\"findings\"><h3>Findings</h3>\n";
    std::size_t count = 0;
    std::string items;
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      for (const auto& f : g.nodes[i].findings) {
        ++count;
        auto colon = f.find(": ");
        items += fmt::format("<li><a href=\"#g{}-n{}\">line {}</a> <span class=\"rule\">{}</span> {}</li>\n", gi, i,
                             g.nodes[i].line, html_escape(f.substr(0, colon)),
                             html_escape(colon == std::string::npos ? "" : f.substr(colon + 2)));
      }
    for (const auto& f : g.findings_without_node) {
      ++count;
      items += "<li>" + html_escape(f) + "</li>\n";
    }
    out += count == 0 ? "<p>No findings.</p>\n" : "<ol>\n" + items + "</ol>\n";
    out += "<h3>Operators</h3>\n<div class=\"tree\">\n";
    tree(out, g, gi);
    out += "</div>\n</div>\n<div class=\"text\"><h3>Plan text</h3>\n<pre>";
    std::map<std::uint32_t, bool> hit;
    for (const auto& n : g.nodes)
      if (!n.findings.empty()) hit[n.line] = true;
    for (std::size_t i = 0; i < g.lines.size(); ++i) {
      auto line = static_cast<std::uint32_t>(g.first_line + i);
      out += fmt::format("<span id=\"g{}-l{}\"{}><a href=\"#g{}-l{}\">{}</a>{}</span>\n", gi, line,
                         hit.count(line) > 0 ? " class=\"hit\"" : "", gi, line, line, html_escape(g.lines[i]));
    }
    out += "</pre></div>\n</div>\n</section>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace planlint::report
