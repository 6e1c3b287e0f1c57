// Builds the plan IR from line records: sections, the indentation stack of generateTreeString,
// AQE sub-plans, formatted-mode details blocks and subqueries, with recovery after bad lines.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "plan/line_reader.hpp"
#include "plan/operator_fields.hpp"
#include "plan/plan.hpp"
#include "util/lines.hpp"

namespace planlint::plan {
namespace {

struct SourceLine {
  std::uint32_t number;   // 1-based line in the file
  std::string_view text;  // with spark-sql table framing removed
  int offset;             // columns removed from the front by the framing
};

bool is_table_border(std::string_view s) {
  if (s.size() < 4 || s.front() != '+') return false;
  return s.find_first_not_of("+-") == std::string_view::npos;
}

// spark-sql prints EXPLAIN inside a one-column table: "+---+", "|  plan|", "| == Physical Plan ==",
// continuation lines starting with a space, and a closing "|".
std::vector<SourceLine> frame_lines(const std::vector<std::string_view>& lines) {
  std::vector<SourceLine> out;
  out.reserve(lines.size());
  bool framed = false;
  for (const auto& l : lines) {
    if (l.find_first_not_of(" \t") == std::string::npos) continue;
    framed = is_table_border(l);
    break;
  }
  bool seen_text = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view s = lines[i];
    auto number = static_cast<std::uint32_t>(i + 1);
    std::string_view trimmed = s;
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\r')) trimmed.remove_suffix(1);
    std::string_view bare = trimmed.substr(std::min(trimmed.size(), trimmed.find_first_not_of(' ')));
    if (!framed) {
      // A results table saved as CSV (Databricks "Download CSV" of EXPLAIN): a `plan` column title,
      // then the plan in one quoted field: `"== Physical Plan ==` ... `"`.
      bool first = !seen_text && !bare.empty();
      seen_text = seen_text || !bare.empty();
      if (first && (bare == "plan" || bare == "\"plan\"")) continue;
      if (bare == "\"") continue;
      if (s.rfind("\"==", 0) == 0) {
        out.push_back({number, s.substr(1), 1});
        continue;
      }
      out.push_back({number, s, 0});
      continue;
    }
    if (is_table_border(s)) continue;
    if (bare == "|") continue;  // the cell's closing bar, after the padding of its last line
    if (trimmed.size() > 1 && trimmed.front() == '|' && trimmed.back() == '|') continue;  // column title row
    if (s.rfind("| ", 0) == 0) {
      out.push_back({number, s.substr(2), 2});
    } else if (s.rfind("|==", 0) == 0 || (!s.empty() && s.front() == ' ')) {
      // df.show(truncate=False) starts the cell right after the bar; spark-sql continues with a space.
      out.push_back({number, s.substr(1), 1});
    } else {
      out.push_back({number, s, 0});
    }
  }
  return out;
}

// Analyzed Logical Plan starts with the output schema "k: int, sum(v): bigint" (absent for commands).
// `a: int, b: string`; a column named by an expression starts with a parenthesis and holds spaces:
// `(value % 2): bigint, count: bigint`.
bool looks_like_schema(std::string_view s) {
  auto colon = s.find(": ");
  auto space = s.find(' ');
  if (colon != std::string_view::npos && colon < space) return true;
  return !s.empty() && s.front() == '(' && s.find("): ") != std::string_view::npos;
}

// The `NN ` prefix numberedTreeString puts in front of every line ("00 ", "01 ", ..., "100 "), or 0.
std::size_t line_number_prefix(std::string_view s, std::size_t expected) {
  if (s.empty() || s.front() < '0' || s.front() > '9') return 0;  // most lines: no number, no string built
  std::string digits = expected < 10 ? "0" + std::to_string(expected) : std::to_string(expected);
  if (s.size() > digits.size() && s.substr(0, digits.size()) == digits && s[digits.size()] == ' ')
    return digits.size() + 1;
  return 0;
}

// numberedTreeString output (`00 AdaptiveSparkPlan ...`, `01 +- ...`): a block that starts at 00
// and counts up line by line loses its numbers; the columns shift by the prefix.
void strip_tree_numbers(std::vector<SourceLine>& lines) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (line_number_prefix(lines[i].text, 0) == 0 || i + 1 >= lines.size() ||
        line_number_prefix(lines[i + 1].text, 1) == 0)
      continue;
    for (std::size_t n = 0; i < lines.size(); ++i, ++n) {
      std::size_t k = line_number_prefix(lines[i].text, n);
      if (k == 0) break;
      lines[i].text.remove_prefix(k);
      lines[i].offset += static_cast<int>(k);
    }
  }
}

bool has_branch(std::string_view s) {
  std::size_t i = s.find_first_not_of(" :");
  return i != std::string_view::npos && i + 2 < s.size() && (s[i] == '+' || s[i] == ':') && s[i + 1] == '-' &&
         s[i + 2] == ' ' && (i == 0 || s[i - 1] == ' ');
}

AqeRole aqe_role_of(std::string_view title) {
  if (title == "Final Plan") return AqeRole::final_plan;
  if (title == "Initial Plan") return AqeRole::initial_plan;
  return AqeRole::current_plan;
}

class Builder {
 public:
  explicit Builder(Document& doc, const PlanSink* sink = nullptr) : doc_(doc), sink_(sink) {}

  void run() {
    lines_ = frame_lines(doc_.lines);
    strip_tree_numbers(lines_);
    for (index_ = 0; index_ < lines_.size(); ++index_) handle(lines_[index_]);
    finish_plan();
  }

 private:
  enum class Mode { tree, details, subqueries, photon, generated_code, skip };

  struct Entry {
    PlanNode* node;
    int branch;
    int content;
    AqeRole header = AqeRole::none;  // an AQE "== ... Plan ==" header owned by node
    bool fresh = false;              // header whose first line has not come yet
    bool children_closed = false;    // a child was printed with "+- ", which Spark gives the last one
  };

  Document& doc_;
  const PlanSink* sink_ = nullptr;
  std::size_t plan_nodes_begin_ = 0;  // doc_.nodes index of the current plan's first node
  std::vector<SourceLine> lines_;
  std::size_t index_ = 0;
  Plan* plan_ = nullptr;
  std::size_t section_ = 0;  // index into plan_->sections
  bool section_open_ = false;
  bool details_only_ = false;  // the plan is details blocks without a tree (open_details)
  Mode mode_ = Mode::tree;
  bool expect_schema_ = false;
  bool block_simplified_ = false;
  std::vector<Entry> stack_;
  std::unordered_multimap<int, PlanNode*> numbered_;
  std::vector<PlanNode*> details_targets_;
  std::string* last_field_ = nullptr;
  int pending_subquery_ = -1;
  int pending_host_ = -1;

  void error(const SourceLine& l, int column, std::string message) {
    doc_.errors.push_back({l.number, static_cast<std::uint32_t>(l.offset + column + 1), std::move(message)});
  }

  void start_plan(std::uint32_t first_line) {
    finish_plan();
    doc_.plans.emplace_back();
    plan_ = &doc_.plans.back();
    plan_->first_line = first_line;
    plan_nodes_begin_ = doc_.nodes.size();
    section_open_ = false;
    details_only_ = false;
    mode_ = Mode::tree;
    stack_.clear();
    numbered_.clear();
  }

  void open_section(Section s, std::uint32_t header_line) {
    plan_->sections.push_back(SectionTree{s, header_line, {}, {}});
    section_ = plan_->sections.size() - 1;
    section_open_ = true;
    mode_ = Mode::tree;
    stack_.clear();
  }

  bool plan_has(Section s) const { return plan_ != nullptr && plan_->find(s) != nullptr; }

  void finish_plan() {
    if (plan_ == nullptr) return;
    // The largest operator number with a details block: blocks are printed in number order, so a
    // block missing after it is a paste cut short; one missing before it is how the engine printed
    // the plan (an engine's golden files print a native scan under its initial plan's number).
    int last_detailed = -1;
    for (auto& [id, node] : numbered_)
      if (!node->details.empty()) last_detailed = std::max(last_detailed, id);
    for (auto& [id, node] : numbered_) {
      if (plan_->formatted) {
        // A subquery printed twice reuses its numbers, and Spark prints its details blocks once.
        if (node->details.empty()) {
          auto [first, last] = numbered_.equal_range(id);
          for (auto it = first; it != last && node->details.empty(); ++it) node->details = it->second->details;
        }
        if (node->details.empty() && id > last_detailed)
          doc_.errors.push_back({node->span.line, node->span.column,
                                 "operator (" + std::to_string(id) + ") " + node->name + " has no details block"});
      } else {
        // Not formatted: a trailing "(n)" was argument text, e.g. "WholeStageCodegen (4)".
        node->args += (node->args.empty() ? "(" : " (") + std::to_string(id) + ")";
        node->operator_id.reset();
      }
    }
    numbered_.clear();
    if (sink_ != nullptr) {
      // Streamed: the plan is complete, so it is analysed, handed on and freed before the next one.
      for (std::size_t i = plan_nodes_begin_; i < doc_.nodes.size(); ++i) analyze_operator(doc_.nodes[i]);
      infer_plan_facts(*plan_);
      (*sink_)(doc_, *plan_);
      stack_.clear();
      details_targets_.clear();
      last_field_ = nullptr;
      doc_.nodes.resize(plan_nodes_begin_);
      doc_.plans.pop_back();
    }
    plan_ = nullptr;
  }

  void handle_header(const SourceLine& l, const LineRecord& rec) {
    std::string_view t = rec.title;
    stack_.clear();
    details_targets_.clear();
    expect_schema_ = false;
    if (t == "Parsed Logical Plan") {
      start_plan(l.number);
      open_section(Section::parsed_logical, l.number);
    } else if (t == "Analyzed Logical Plan" || t == "Optimized Logical Plan") {
      Section s = t[0] == 'A' ? Section::analyzed_logical : Section::optimized_logical;
      if (plan_ == nullptr || plan_has(s) || plan_has(Section::physical)) start_plan(l.number);
      open_section(s, l.number);
      expect_schema_ = s == Section::analyzed_logical;
    } else if (t == "Physical Plan") {
      if (plan_ == nullptr || plan_has(Section::physical)) start_plan(l.number);
      open_section(Section::physical, l.number);
    } else if (t == "Subqueries") {
      if (plan_ == nullptr) start_plan(l.number);
      mode_ = Mode::subqueries;
    } else if (t == "Photon Explanation") {
      if (plan_ == nullptr) start_plan(l.number);
      mode_ = Mode::photon;
    } else if (t.rfind("Subtree ", 0) == 0) {
      if (plan_ == nullptr) start_plan(l.number);
      open_section(Section::codegen_subtree, l.number);
    } else {
      mode_ = Mode::skip;  // a section planlint has no model for: its text is not a plan tree
    }
  }

  void handle(const SourceLine& l) {
    // Spark never starts a plan line with '#': such lines are the user's comments (and fixture
    // annotations), skipped without disturbing the tree around them.
    if (!l.text.empty() && l.text.front() == '#' && l.offset == 0) return;
    LineRecord rec = read_plan_line(l.text);
    if (rec.kind == LineKind::section_header) return handle_header(l, rec);
    switch (mode_) {
      case Mode::photon:
        if (!plan_->photon_explanation.empty()) plan_->photon_explanation += '\n';
        plan_->photon_explanation += l.text;
        return;
      case Mode::generated_code:
      case Mode::skip:
        return;
      case Mode::details:
        return handle_details_line(l, rec);
      case Mode::tree:
      case Mode::subqueries:
        break;
    }
    switch (rec.kind) {
      case LineKind::blank:
        stack_.clear();
        if (expect_schema_) expect_schema_ = false;
        return;
      case LineKind::details_header:
        return open_details(l, rec);
      case LineKind::subquery_header:
        if (plan_ == nullptr) start_plan(l.number);
        mode_ = Mode::subqueries;
        stack_.clear();
        pending_subquery_ = rec.number;
        pending_host_ = rec.hosting_id;
        return;
      case LineKind::error:
        if (expect_schema_ && looks_like_schema(l.text)) break;  // `(value % 2): bigint, ...`
        return error(l, rec.error_column, rec.error);
      default:
        break;
    }
    if (expect_schema_ && rec.branch_column < 0 && looks_like_schema(l.text)) {
      plan_->sections[section_].schema = std::string(l.text);
      expect_schema_ = false;
      return;
    }
    expect_schema_ = false;
    // Codegen mode's own lines, also indented as a whole (a paste into a list or a quote).
    if (rec.kind == LineKind::tree_node && rec.branch_column < 0) {
      if (rec.name == "Generated" && rec.args == "code:") {
        mode_ = Mode::generated_code;
        return;
      }
      if (rec.name == "Found" && rec.args.size() > 9 && rec.args.substr(rec.args.size() - 9) == "subtrees.") return;
    }
    if (rec.kind == LineKind::aqe_header) return open_aqe_header(l, rec);
    if (rec.kind == LineKind::text) {
      if (!stack_.empty() && !l.text.empty() && l.text.front() == ' ') return continue_args(l);
      return error(l, 0, "expected a plan operator, a tree branch ('+- ' or ':- ') or a '== ... ==' header");
    }
    place_node(l, rec);
  }

  void continue_args(const SourceLine& l) {
    PlanNode* last = stack_.back().node;
    std::string_view t = l.text;
    t.remove_prefix(t.find_first_not_of(' '));
    last->args += ' ';
    last->args += t;
  }

  void open_aqe_header(const SourceLine& l, const LineRecord& rec) {
    while (!stack_.empty() && stack_.back().branch >= rec.branch_column) stack_.pop_back();
    if (stack_.empty()) return error(l, rec.branch_column, "AQE plan header without an AdaptiveSparkPlan above it");
    PlanNode* owner = stack_.back().node;
    stack_.push_back({owner, rec.branch_column, rec.content_column, aqe_role_of(rec.title), true});
  }

  // TPC-DS simplified.txt: the root's first child is indented by spaces, without a branch.
  // Only the next line decides, so that many roots in a row stay linear.
  bool looks_simplified() const {
    if (index_ + 1 >= lines_.size()) return false;
    std::string_view s = lines_[index_ + 1].text;
    return s.size() > 2 && s[0] == ' ' && s.find_first_not_of(' ') != std::string_view::npos && !has_branch(s);
  }

  PlanNode* make_node(const SourceLine& l, const LineRecord& rec) {
    PlanNode& n = doc_.nodes.emplace_back();
    ++doc_.operator_lines;
    n.name = std::string(rec.name);
    n.args = std::string(rec.args);
    if (!rec.statistics.empty()) {
      n.args += n.args.empty() ? "" : ", ";
      n.args += rec.statistics;
    }
    n.codegen_stage = rec.codegen_stage;
    n.operator_id = rec.operator_id;
    n.unresolved = rec.unresolved;
    n.fallback = rec.fallback;
    n.section = plan_->sections.empty() ? Section::physical : plan_->sections[section_].section;
    n.span = {l.number, static_cast<std::uint32_t>(l.offset + rec.name_column + 1),
              static_cast<std::uint32_t>(l.offset + l.text.size() + 1)};
    if (n.operator_id) numbered_.emplace(*n.operator_id, &n);
    return &n;
  }

  void add_root(const SourceLine& l, const LineRecord& rec) {
    if (plan_ == nullptr) start_plan(l.number);
    if (mode_ == Mode::tree && !section_open_) open_section(Section::physical, 0);
    block_simplified_ = looks_simplified();
    plan_->simplified = plan_->simplified || block_simplified_;
    PlanNode* n = make_node(l, rec);
    if (mode_ == Mode::subqueries) {
      n->is_subquery_child = true;
      plan_->subqueries.emplace_back(pending_subquery_, n);
      auto host = numbered_.find(pending_host_);
      if (host != numbered_.end() && host->second != n) {
        host->second->subqueries.push_back(n);
        n->parent = host->second;
      }
      pending_host_ = -1;
    } else {
      plan_->sections[section_].roots.push_back(n);
    }
    stack_.clear();
    stack_.push_back({n, -1, rec.content_column});
  }

  void attach(PlanNode* parent, PlanNode* child, bool inner) {
    child->parent = parent;
    child->is_subquery_child = inner;
    (inner ? parent->subqueries : parent->children).push_back(child);
  }

  void place_node(const SourceLine& l, const LineRecord& rec) {
    int b = rec.branch_column;
    if (stack_.empty() && b < 0) return add_root(l, rec);
    if (block_simplified_ && b < 0) {
      int indent = rec.content_column;
      while (!stack_.empty() && stack_.back().content >= indent) stack_.pop_back();
      if (stack_.empty()) return add_root(l, rec);
      PlanNode* n = make_node(l, rec);
      attach(stack_.back().node, n, false);
      stack_.push_back({n, indent - 1, indent});
      return;
    }
    if (b < 0) {
      if (!stack_.empty() && stack_.back().fresh) {
        Entry& h = stack_.back();
        h.fresh = false;
        PlanNode* n = make_node(l, rec);
        attach(h.node, n, false);
        n->aqe_role = h.header;
        stack_.push_back({n, h.branch + 1, rec.content_column});
        return;
      }
      if (rec.content_column == 0) return add_root(l, rec);
      return continue_args(l);
    }
    while (!stack_.empty() && stack_.back().branch >= b) stack_.pop_back();
    if (stack_.empty()) {
      error(l, b, "tree branch without a parent operator above it");
      return add_root(l, rec);
    }
    Entry& parent = stack_.back();
    PlanNode* n = make_node(l, rec);
    if (parent.header != AqeRole::none) {
      attach(parent.node, n, false);
      n->aqe_role = parent.header;
      parent.fresh = false;
    } else {
      // Spark prints a subquery (an inner child) deeper than the children, under the ':' that says
      // the operator's own child follows: "   :  +- Subquery ...". Without the ':', a deeper branch
      // is a child all the same (a fragment pasted without the indentation of its first line).
      const auto at = static_cast<std::size_t>(parent.content);
      const bool under_colon = at < l.text.size() && l.text[at] == ':';
      const bool inner = b >= parent.content + 3 && under_colon;
      // Spark prints every child but the last with ":- " and the last with "+- ": a child after a
      // "+- " one is a line whose indentation the paste damaged (its real parent is elsewhere).
      if (!inner) {
        if (parent.children_closed)
          error(l, b,
                "a child of " + parent.node->name +
                    " after its last one (the '+- ' branch above): the indentation of this paste is damaged");
        parent.children_closed = l.text[static_cast<std::size_t>(b)] == '+';
      }
      attach(parent.node, n, inner);
    }
    stack_.push_back({n, b, rec.content_column});
  }

  void open_details(const SourceLine& l, const LineRecord& rec) {
    if (plan_ == nullptr) start_plan(l.number);
    plan_->formatted = true;
    mode_ = Mode::details;
    stack_.clear();
    details_targets_.clear();
    last_field_ = nullptr;
    if (rec.number < 0) {
      // "(unknown) Scan parquet t": the details of the first numbered operator still without any
      // whose name, vendor prefix aside, is the block's ("CometScan parquet t (1)").
      if (PlanNode* n = unnumbered_target(rec.name)) details_targets_.push_back(n);
    } else {
      auto [first, last] = numbered_.equal_range(rec.number);
      for (auto it = first; it != last; ++it) details_targets_.push_back(it->second);
    }
    // Code generation wrappers are not printed in a formatted tree; Gluten prints their details
    // ("(3) WholeStageCodegenTransformer (X)", "(7) InputAdapter") all the same.
    const std::string_view base = base_operator_name(rec.name.substr(0, rec.name.find(' ')));
    const bool wrapper = base.rfind("WholeStageCodegen", 0) == 0 || base == "InputAdapter";
    // Details blocks pasted without the tree they describe (a fragment of a formatted plan: an
    // issue quotes "(1) WriteDelta" and its fields): each block is an operator of its own, a root.
    if (details_targets_.empty() && rec.number >= 0 && !wrapper &&
        (details_only_ || doc_.nodes.size() == plan_nodes_begin_)) {
      details_only_ = true;
      if (!section_open_) open_section(Section::physical, l.number);
      mode_ = Mode::details;
      PlanNode* n = make_node(l, rec);
      if (!n->operator_id) {
        n->operator_id = rec.number;
        numbered_.emplace(rec.number, n);
      }
      plan_->sections[section_].roots.push_back(n);
      details_targets_.push_back(n);
    }
    if (details_targets_.empty() && rec.number >= 0 && !wrapper)
      error(l, 1,
            "details block (" + std::to_string(rec.number) + ") " + std::string(rec.name) +
                " matches no operator in the plan tree");
    // Mark "has details" even when the block carries no fields ("(5) ReusedExchange [Reuses operator id: 3]").
    for (PlanNode* n : details_targets_)
      if (n->details.empty()) n->details.emplace_back("", std::string(rec.name));
  }

  PlanNode* unnumbered_target(std::string_view block) const {
    const std::size_t space = block.find(' ');
    const std::string_view base = base_operator_name(block.substr(0, space));
    const std::string_view rest = space == std::string_view::npos ? std::string_view{} : block.substr(space + 1);
    PlanNode* best = nullptr;
    int best_id = 0;
    for (const auto& [id, n] : numbered_) {
      if (!n->details.empty() || base_operator_name(n->name) != base) continue;
      if (!rest.empty() && n->args.rfind(rest, 0) != 0) continue;
      if (best == nullptr || id < best_id) {
        best = n;
        best_id = id;
      }
    }
    return best;
  }

  void handle_details_line(const SourceLine& l, const LineRecord& rec) {
    switch (rec.kind) {
      case LineKind::blank:
        last_field_ = nullptr;
        return;
      case LineKind::details_header:
        return open_details(l, rec);
      case LineKind::subquery_header:
        mode_ = Mode::subqueries;
        pending_subquery_ = rec.number;
        pending_host_ = rec.hosting_id;
        return;
      default:
        break;
    }
    if (auto f = read_details_field(l.text)) {
      last_field_ = nullptr;
      for (PlanNode* n : details_targets_) {
        n->details.emplace_back(std::string(f->key), std::string(f->value));
        last_field_ = &n->details.back().second;
      }
      if (details_targets_.size() > 1) last_field_ = nullptr;  // continuation goes to one place only
      return;
    }
    if (last_field_ != nullptr) {
      *last_field_ += '\n';
      *last_field_ += l.text;
    }
  }
};

}  // namespace

namespace {
Document start_document(std::string owned, std::string path) {
  Document doc;
  doc.path = std::move(path);
  doc.text = std::make_shared<const std::string>(std::move(owned));
  std::string_view text = *doc.text;
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  doc.lines = util::line_views_without_eol(text);
  return doc;
}
}  // namespace

Document parse_document(std::string owned, std::string path) {
  Document doc = start_document(std::move(owned), std::move(path));
  Builder(doc).run();
  for (PlanNode& n : doc.nodes) analyze_operator(n);
  for (Plan& p : doc.plans) infer_plan_facts(p);
  return doc;
}

Document parse_document_streamed(std::string owned, std::string path, const PlanSink& sink) {
  Document doc = start_document(std::move(owned), std::move(path));
  Builder(doc, &sink).run();
  return doc;
}

}  // namespace planlint::plan
