// Operator matching for `planlint diff`: exact shapes first, then the same kind of operator over the
// same scans, then neighbours of matched operators (same class, same place under a matched parent, or
// above a matched child). What is left is added or removed.
#include "plan/diff.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <unordered_set>

#include "plan/line_reader.hpp"
#include "plan/operator_fields.hpp"

namespace planlint::plan {

namespace {

bool digit_at(std::string_view s, std::size_t i) {
  return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]));
}

}  // namespace

std::string without_run_ids(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    out += c;
    if (!digit_at(text, i + 1)) continue;
    std::size_t end = i + 1;
    while (digit_at(text, end)) ++end;
    // name#123 (and #123L), [id=#12], [plan_id=45], *(3), "Exchange (17)": the marker goes too.
    bool renumbered = c == '#' || (c == '(' && end < text.size() && text[end] == ')') ||
                      (c == '=' && out.size() >= 8 && out.compare(out.size() - 8, 8, "plan_id=") == 0);
    if (!renumbered) continue;
    out.pop_back();       // the '#', '=' or '(' goes with the number
    if (c == '(') ++end;  // the ')' goes with the number
    if (c == '#' && end < text.size() && text[end] == 'L') ++end;
    i = end - 1;
  }
  return out;
}

std::string shuffle_key(const PlanNode& node) {
  const auto* x = node.as<ExchangeInfo>();
  if (x == nullptr) return without_run_ids(node.name + " " + node.args);
  std::string key = std::to_string(static_cast<int>(x->partitioning)) + "(";
  for (const auto& k : x->keys) key += without_run_ids(k) + ",";
  key += ")/" + (x->num_partitions ? std::to_string(*x->num_partitions) : std::string("?"));
  return key;
}

std::multiset<std::string> reused_shuffles(const Plan* plan) {
  std::multiset<std::string> out;
  if (plan == nullptr || plan->physical() == nullptr) return out;
  std::vector<const PlanNode*> reuses, shuffles;
  for (const PlanNode* root : plan->physical()->roots)
    for_each_node(root, [&](const PlanNode& n) {
      if (n.kind == OpKind::reused_exchange) reuses.push_back(&n);
      if (n.kind == OpKind::shuffle_exchange) shuffles.push_back(&n);
    });
  for (const PlanNode* r : reuses) {
    const PlanNode* target = nullptr;
    // Formatted: "(7) ReusedExchange [Reuses operator id: 5]" (in the details block's header).
    std::string text = r->args;
    for (const auto& [key, value] : r->details) text += " " + value;
    if (auto at = text.find("Reuses operator id: "); at != std::string::npos) {
      const int id = std::atoi(text.c_str() + at + 20);
      for (const PlanNode* s : shuffles)
        if (s->operator_id == id) target = s;
    } else if (auto cut = r->args.find("], "); cut != std::string::npos) {
      // Simple: "ReusedExchange [k#1], Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=5]".
      const std::string named = without_run_ids(std::string_view(r->args).substr(cut + 3));
      for (const PlanNode* s : shuffles)
        if (without_run_ids(s->name + " " + s->args) == named) target = s;
    }
    if (target != nullptr) out.insert(shuffle_key(*target));
  }
  return out;
}

std::string scan_location(std::string_view location) {
  // "InMemoryFileIndex(1 paths)[s3://lake/t]" and "InMemoryFileIndex[s3://lake/t]" -> "s3://lake/t".
  auto open = location.find('[');
  auto close = location.rfind(']');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open + 1)
    location = location.substr(open + 1, close - open - 1);
  return without_run_ids(location);
}

std::string scan_identity(const PlanNode& n) {
  if (const auto* s = n.as<ScanInfo>()) {
    // The table, else the files: the same input whatever the format, the data source API (FileScan,
    // BatchScan) or the file index prints. Spark 3.4+ prints the catalog ("spark_catalog.default.t").
    std::string where = !s->table.empty() ? s->table : scan_location(s->location);
    if (where.rfind("spark_catalog.", 0) == 0) where.erase(0, 14);
    return "scan " + where;
  }
  if (!n.children.empty()) return {};
  if (n.kind == OpKind::local_table_scan) {
    std::string out = "LocalTableScan";
    for (const auto& ref : scan_attribute_refs(n.args)) out += " " + ref.name;
    return out;
  }
  if (n.kind == OpKind::reused_exchange) return {};  // points at an exchange elsewhere in the plan
  return std::string(base_operator_name(n.name)) + " " + without_run_ids(n.args);
}

bool is_python_operator(const PlanNode& n) {
  if (n.kind == OpKind::python_eval) return true;
  std::string_view b = base_operator_name(n.name);
  return b.find("Python") != std::string_view::npos || b.find("InPandas") != std::string_view::npos ||
         b.find("InArrow") != std::string_view::npos;
}

namespace {

std::string class_of(const PlanNode& n) {
  if (is_python_operator(n)) return "python";
  switch (n.kind) {
    case OpKind::other:
      return std::string(base_operator_name(n.name));
    case OpKind::file_scan:
      return "scan";
    default:
      return std::string(to_string(n.kind));
  }
}

std::string signature_of(const PlanNode& n) {
  std::string out(base_operator_name(n.name));
  out += ' ';
  out += without_run_ids(n.args);
  for (const auto& [key, value] : n.details) {
    out += '\x1f';
    out += key;
    out += '=';
    out += without_run_ids(value);
  }
  return out;
}

std::string head_of(const PlanNode& n) {
  const std::string* formatted = n.args.empty() ? n.detail("Arguments") : nullptr;
  auto items = split_top_level(formatted != nullptr ? *formatted : n.args);
  return items.empty() ? std::string() : without_run_ids(items.front());
}

// Row/columnar transitions, codegen and AQE stage wrappers: they come and go between versions.
bool is_wrapper_operator(const PlanNode& n) {
  std::string_view b = base_operator_name(n.name);
  return b == "WholeStageCodegen" || b == "InputAdapter" || b == "ColumnarToRow" || b == "RowToColumnar" ||
         b == "InputIteratorTransformer" || b == "VeloxColumnarToRow" || n.kind == OpKind::query_stage ||
         n.kind == OpKind::shuffle_read;
}

// The class of the first operator above that is not a wrapper.
std::string parent_class(const PlanNode& n) {
  int steps = 0;
  for (const PlanNode* p = n.parent; p != nullptr && steps < 64; p = p->parent, ++steps)
    if (!is_wrapper_operator(*p)) return class_of(*p);
  return "root";
}

// splitmix64's finaliser: spreads a hash so that sums of hashes stay distinct.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr std::size_t kPathLength = 64;  // classes of operators above a node kept for tie-breaks

struct Side {
  std::vector<const PlanNode*> nodes;
  std::unordered_set<const PlanNode*> members;
  std::unordered_map<const PlanNode*, NodeShape> shapes;

  // `classes` numbers the operator classes, shared by both sides so that paths compare as numbers.
  Side(const std::vector<const PlanNode*>& list, std::unordered_map<std::string, std::uint32_t>& classes)
      : nodes(list), members(list.begin(), list.end()) {
    // Anchors bottom-up (pre-order reversed visits children before their parents): the multiset of
    // scans below, as a sum of their hashes, so a wide or deep plan costs one number per operator.
    std::unordered_map<const PlanNode*, std::uint64_t> scans;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      const PlanNode* n = *it;
      std::uint64_t below = 0;
      for (const PlanNode* c : n->children)
        if (auto found = scans.find(c); found != scans.end()) below += found->second;
      if (std::string id = scan_identity(*n); !id.empty()) below += mix(std::hash<std::string>{}(id));
      NodeShape s{class_of(*n), signature_of(*n), below == 0 ? std::string() : std::to_string(below),
                  head_of(*n),  parent_class(*n), {}};
      shapes.emplace(n, std::move(s));
      scans.emplace(n, below);
    }
    paths(classes);
  }
  void paths(std::unordered_map<std::string, std::uint32_t>& classes) {
    for (const PlanNode* n : nodes) {  // pre-order: a parent's path is there before its children's
      NodeShape& s = shapes.at(n);
      for (const PlanNode* p = n->parent; p != nullptr; p = p->parent)
        if (auto it = shapes.find(p); it != shapes.end()) {
          s.path = it->second.path;
          break;
        }
      if (!is_wrapper_operator(*n))
        s.path.push_back(classes.try_emplace(s.cls, static_cast<std::uint32_t>(classes.size())).first->second);
      if (s.path.size() > kPathLength) s.path.erase(s.path.begin());  // the nearest ancestors tell most
    }
  }
  [[nodiscard]] bool has(const PlanNode* n) const { return n != nullptr && members.count(n) > 0; }
  [[nodiscard]] const NodeShape& shape(const PlanNode* n) const { return shapes.at(n); }
};

class Matcher {
 public:
  Matcher(const std::vector<const PlanNode*>& before, const std::vector<const PlanNode*>& after)
      : b_(before, classes_), a_(after, classes_) {}

  OperatorDiff run() {
    // Identical operators over the same scans under the same kind of parent (a scan of the main plan
    // does not pair with a copy of it in a dynamic-pruning subquery), then without the parent.
    by_key([](const NodeShape& s) { return s.cls + '\x1e' + s.signature + '\x1e' + s.anchor + '\x1e' + s.parent_cls; });
    by_key([](const NodeShape& s) { return s.cls + '\x1e' + s.signature + '\x1e' + s.anchor; });
    by_key([](const NodeShape& s) { return s.cls + '\x1e' + s.anchor; });
    propagate();
    by_key([](const NodeShape& s) { return s.cls + '\x1e' + s.signature; });
    // Last: the same class with the same leading argument (an exchange's partitioning, a join's keys),
    // whatever else changed below or beside it; and what these pairs' neighbours then tell.
    by_key([](const NodeShape& s) { return s.head.empty() ? std::string() : s.cls + '\x1e' + s.head; });
    propagate();
    for (const PlanNode* n : b_.nodes) {
      auto it = out_.to_after.find(n);
      if (it == out_.to_after.end()) {
        out_.removed.push_back(n);
        continue;
      }
      out_.matched.emplace_back(n, it->second);
      out_.text_changed.push_back(b_.shape(n).signature != a_.shape(it->second).signature);
      out_.changed += out_.text_changed.back() ? 1 : 0;
    }
    for (const PlanNode* n : a_.nodes)
      if (out_.to_before.count(n) == 0) out_.added.push_back(n);
    return std::move(out_);
  }

 private:
  void match(const PlanNode* b, const PlanNode* a) {
    out_.to_after.emplace(b, a);
    out_.to_before.emplace(a, b);
  }
  [[nodiscard]] bool free_b(const PlanNode* n) const { return b_.has(n) && out_.to_after.count(n) == 0; }
  [[nodiscard]] bool free_a(const PlanNode* n) const { return a_.has(n) && out_.to_before.count(n) == 0; }

  // Pairs unmatched BEFORE and AFTER nodes of the same key, most similar pairs first (the words their
  // texts share: a table scanned three times with different columns and filters), in plan order on a
  // tie and in large groups.
  template <typename Key>
  void by_key(Key key) {
    std::map<std::string, std::pair<std::vector<const PlanNode*>, std::vector<const PlanNode*>>> groups;
    for (const PlanNode* n : b_.nodes)
      if (free_b(n)) groups[key(b_.shape(n))].first.push_back(n);
    for (const PlanNode* n : a_.nodes)
      if (free_a(n))
        if (auto it = groups.find(key(a_.shape(n))); it != groups.end()) it->second.second.push_back(n);
    for (auto& [k, group] : groups) {
      auto& [bs, as] = group;
      if (as.empty() || k.empty()) continue;  // an empty key: the node has nothing to be matched by
      // (-shared words, -shared path above the node, b, a): sorted, the best pairs come first. The
      // path (the classes of the operators above, wrappers left out) tells a scan of the main plan
      // from its copy in a dynamic-pruning subquery.
      // Ties go to the pair closest to the same place in both lists (i + j, then |i - j|), which does not
      // depend on which side is BEFORE.
      if (bs.size() * as.size() > 4096) {  // too many to compare pairwise: in plan order
        for (std::size_t i = 0, j = 0; i < bs.size() && j < as.size(); ++i, ++j) match(bs[i], as[j]);
        continue;
      }
      std::vector<std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t>> pairs;
      for (std::size_t i = 0; i < bs.size(); ++i)
        for (std::size_t j = 0; j < as.size(); ++j) {
          std::size_t common = 0;
          for (const auto& w : words(b_, bs[i])) common += words(a_, as[j]).count(w);
          const auto& pb = b_.shape(bs[i]).path;
          const auto& pa = a_.shape(as[j]).path;
          std::size_t path = 0;
          while (path < pb.size() && path < pa.size() && pb[pb.size() - 1 - path] == pa[pa.size() - 1 - path]) ++path;
          pairs.emplace_back(SIZE_MAX - common, SIZE_MAX - path, i + j, i > j ? i - j : j - i, i, j);
        }
      std::sort(pairs.begin(), pairs.end());
      for (const auto& [score, path, sum, gap, i, j] : pairs)
        if (free_b(bs[i]) && free_a(as[j])) match(bs[i], as[j]);
    }
  }

  // The words of a node's text (names, literals, function names), computed once per node.
  const std::set<std::string>& words(const Side& side, const PlanNode* n) {
    auto [it, fresh] = words_.try_emplace(n);
    if (!fresh) return it->second;
    const std::string& text = side.shape(n).signature;
    std::size_t start = std::string::npos;
    for (std::size_t i = 0; i <= text.size(); ++i) {
      bool word = i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_');
      if (word && start == std::string::npos) start = i;
      if (!word && start != std::string::npos) {
        it->second.insert(text.substr(start, i - start));
        start = std::string::npos;
      }
    }
    return it->second;
  }

  void propagate() {
    for (int round = 0; round < 8; ++round) {
      std::size_t before = out_.to_after.size();
      top_down();
      bottom_up();
      if (out_.to_after.size() == before) break;
    }
  }

  // A child of a matched pair matches the other's child of the same class, at the same place if it can.
  void top_down() {
    for (const PlanNode* b : b_.nodes) {
      auto m = out_.to_after.find(b);
      if (m == out_.to_after.end()) continue;
      const PlanNode* a = m->second;
      for (std::size_t i = 0; i < b->children.size(); ++i) {
        const PlanNode* cb = b->children[i];
        if (!free_b(cb)) continue;
        const std::string& cls = b_.shape(cb).cls;
        const PlanNode* pick = nullptr;
        if (i < a->children.size() && free_a(a->children[i]) && a_.shape(a->children[i]).cls == cls)
          pick = a->children[i];
        for (std::size_t j = 0; pick == nullptr && j < a->children.size(); ++j)
          if (free_a(a->children[j]) && a_.shape(a->children[j]).cls == cls) pick = a->children[j];
        if (pick != nullptr) match(cb, pick);
      }
    }
  }

  // An unmatched operator above a matched child matches the other's operator above that child.
  void bottom_up() {
    for (auto it = b_.nodes.rbegin(); it != b_.nodes.rend(); ++it) {
      const PlanNode* b = *it;
      if (!free_b(b)) continue;
      for (const PlanNode* cb : b->children) {
        auto m = out_.to_after.find(cb);
        if (m == out_.to_after.end()) continue;
        const PlanNode* p = m->second->parent;
        if (free_a(p) && a_.shape(p).cls == b_.shape(b).cls) {
          match(b, p);
          break;
        }
      }
    }
  }

  std::unordered_map<std::string, std::uint32_t> classes_;  // declared first: the sides use it
  Side b_, a_;
  OperatorDiff out_;
  std::unordered_map<const PlanNode*, std::set<std::string>> words_;
};

}  // namespace

NodeShape shape_of(const PlanNode& node) {
  std::vector<const PlanNode*> nodes;
  for_each_node(&node, [&](const PlanNode& n) { nodes.push_back(&n); });
  std::unordered_map<std::string, std::uint32_t> classes;
  Side s(nodes, classes);
  return s.shape(&node);
}

OperatorDiff diff_operators(const std::vector<const PlanNode*>& before, const std::vector<const PlanNode*>& after) {
  return Matcher(before, after).run();
}

const PlanNode* OperatorDiff::after_site_of(const PlanNode* removed_node) const {
  for (const PlanNode* n = removed_node; n != nullptr; n = n->parent)
    if (auto it = to_after.find(n); it != to_after.end()) return it->second;
  return nullptr;
}

}  // namespace planlint::plan
