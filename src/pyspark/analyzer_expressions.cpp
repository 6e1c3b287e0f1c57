// Expressions and call chains as the SourceModel keeps them: an argument's text, literal value,
// columns and join condition; a chain's root, links and arguments, found again by their bytes.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pyspark/analyzer_impl.hpp"
#include "pyspark/model.hpp"
#include "pyspark/syntax_access.hpp"
#include "util/name_set.hpp"

namespace planlint::pyspark::detail {
namespace {

constexpr std::size_t kMaxLinks = 1000000;  // links of one chain: far beyond any source file's

// The types make_expr() reads something of, in this order (ExprType).
const TypeIndex kExprTypes{"string", "integer", "unary_operator", "true",      "false",
                           "lambda", "call",    "attribute",      "identifier"};
enum ExprType : std::uint8_t {
  kOtherExpr,
  kStringExpr,
  kIntegerExpr,
  kUnaryExpr,
  kTrueExpr,
  kFalseExpr,
  kLambdaExpr,
  kCallExpr,
  kAttributeExpr,
  kIdentifierExpr
};

}  // namespace

std::optional<Expr::Lambda> Analyzer::root_lambda(Node call) {
  if (!is<"call">(call)) return std::nullopt;
  Node args = field<"arguments">(call);
  for (Node a : named_children(args)) {
    if (!is<"lambda">(a)) continue;
    Expr::Lambda l;
    Node params = field<"parameters">(a);
    for (std::uint32_t k = 0; k < named_count(params); ++k) l.params.push_back(view(nth_named(params, k)));
    l.body = view(field<"body">(a));
    return l;
  }
  return std::nullopt;
}

Pos Analyzer::removal_range(Node obj, Node call) const {
  Pos p = pos_of(call);
  std::size_t start = is_null(obj) ? p.start_byte : node_end(obj);
  std::size_t dot = src_.find('.', start);
  if (dot != std::string_view::npos && dot < p.end_byte) {
    // Only blanks between the line start and the dot: scanned back over the indent alone (an
    // rfind of the line break would make a 50,000-link one-line chain quadratic).
    std::size_t line_start = dot;
    while (line_start > 0 && (src_[line_start - 1] == ' ' || src_[line_start - 1] == '\t')) --line_start;
    bool at_line_start = line_start == 0 || src_[line_start - 1] == '\n';
    bool own_line = at_line_start && line_start > start;
    std::size_t after = src_.find_first_not_of(" \t\r", p.end_byte);
    if (own_line && (after == std::string_view::npos || src_[after] == '\n')) {
      start = line_start;
      p.end_byte = static_cast<std::uint32_t>(after == std::string_view::npos ? src_.size() : after + 1);
    }
  }
  p.start_byte = static_cast<std::uint32_t>(start);
  return p;
}

std::string_view Analyzer::qualified(Node n) const {
  std::string_view name;
  Node cur = n;
  while (is<"attribute">(cur) && !is_null(field<"attribute">(cur))) cur = field<"object">(cur);
  const std::string_view whole = view(n);
  if (is<"identifier">(cur) && std::all_of(whole.begin(), whole.end(), [](char ch) {
        return ch == '.' || ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
               (ch >= '0' && ch <= '9');
      }))
    name = whole;
  else
    name = dotted_buffer_ = dotted(n);
  return m_.qualify(name, qualify_buffer_);
}

std::string Analyzer::dotted(Node n) const {
  if (is<"identifier">(n)) return text(n);
  if (is<"attribute">(n)) {
    std::string left = dotted(field<"object">(n));
    if (left.empty()) return {};
    return left + "." + text(field<"attribute">(n));
  }
  return {};
}

void Analyzer::collect_columns(Node n, std::vector<std::string_view>& out, int depth, bool sql_string) {
  if (depth > kMaxDepth || is_null(n)) return;
  const std::uint8_t type = kExprTypes.of(n);
  if (type == kStringExpr) {
    std::string_view v = string_value(n).value_or("");
    if (sql_string) {
      std::string word;
      for (char c : std::string(v) + " ") {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
          word += c;
        } else if (!word.empty()) {
          if (!std::isdigit(static_cast<unsigned char>(word[0]))) out.push_back(m_.keep(word));
          word.clear();
        }
      }
    } else if (!v.empty()) {
      out.push_back(v);
    }
    return;
  }
  if (type == kAttributeExpr) {
    Node obj = field<"object">(n);
    if (is<"identifier">(obj) && !m_.has_import(view(obj))) out.push_back(view(field<"attribute">(n)));
  }
  if (type == kCallExpr) {
    const std::string_view callee = qualified(field<"function">(n));
    const bool expr_fn = callee == "pyspark.sql.functions.expr";
    const bool col_fn = callee == "pyspark.sql.functions.col" || callee == "pyspark.sql.functions.column" || expr_fn;
    Node args = field<"arguments">(n);
    for (Node child : named_children(args)) collect_columns(child, out, depth + 1, expr_fn);
    if (!col_fn) collect_columns(field<"function">(n), out, depth + 1, false);
    return;
  }
  for (Node child : named_children(n)) collect_columns(child, out, depth + 1, false);
}

std::optional<std::string_view> Analyzer::string_value(Node n) {
  if (!is<"string">(n)) return std::nullopt;
  std::string_view first;
  std::string joined;
  int pieces = 0;
  for (Node c : named_children(n)) {
    if (is<"interpolation">(c)) return std::nullopt;  // f-string with values: not a literal
    if (!is<"string_content">(c)) continue;
    if (++pieces == 1) first = view(c);
    if (pieces == 2) joined = std::string(first);
    if (pieces >= 2) joined += view(c);
  }
  if (pieces <= 1) return first;
  return m_.keep(std::move(joined));
}

void Analyzer::read_pairs(Node a, std::vector<std::pair<Expr, Expr>>& out, int depth) {
  if (is<"keyword_argument">(a)) {
    if (text(field<"name">(a)) != "map") return;
    a = field<"value">(a);
  }
  a = unparen(a);
  if (depth < kMaxDepth)
    for (Node item : named_children(a)) {
      Node k{}, v{};
      if (is<"dictionary">(a) && is<"pair">(item)) {
        k = field<"key">(item);
        v = field<"value">(item);
      } else if ((is<"list">(a) || is<"tuple">(a)) && (is<"tuple">(item) || is<"list">(item)) &&
                 named_count(item) == 2) {
        k = nth_named(item, 0);
        v = nth_named(item, 1);
      } else {
        continue;
      }
      out.emplace_back(make_expr(k, depth + 1), make_expr(v, depth + 1));
    }
}

bool Analyzer::is_literal(Node n) const {
  n = unparen(n);
  const TypeName t{node_type(n)};
  if (t == "string" || t == "integer" || t == "float" || t == "true" || t == "false" || t == "none") return true;
  if (t == "unary_operator") return is_literal(field<"argument">(n));
  return t == "call" && qualified(field<"function">(n)) == "pyspark.sql.functions.lit";
}

Expr::Condition Analyzer::condition_of(Node n, int depth) const {
  using C = Expr::Condition;
  n = unparen(n);
  if (depth > kMaxDepth || is_null(n)) return C::unknown;
  const TypeName t{node_type(n)};
  if (t == "string") return C::keys;
  if (is_literal(n)) return C::no_equality;  // None, F.lit(True): no condition at all
  auto combine_and = [&](const std::vector<Node>& parts) {
    bool all_keys = !parts.empty(), all_known = true;
    for (Node p : parts) {
      C c = condition_of(p, depth + 1);
      if (c == C::equality) return C::equality;
      all_keys = all_keys && c == C::keys;
      all_known = all_known && c != C::unknown;
    }
    if (all_keys) return C::keys;
    return all_known ? C::no_equality : C::unknown;
  };
  if (t == "list" || t == "tuple") {
    std::vector<Node> parts;
    for (std::uint32_t i = 0; i < named_count(n); ++i)
      if (!is_extra(nth_named(n, i))) parts.push_back(nth_named(n, i));
    return combine_and(parts);
  }
  if (t == "comparison_operator") {
    bool eq = false, other = false;
    for (std::uint32_t i = 0; i < child_count(n); ++i) {
      Node ch = nth_child(n, i);
      if (is_named(ch)) continue;
      const TypeName op{node_type(ch)};
      if (op == "==")
        eq = true;
      else if (op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=" || op == "<>")
        other = true;
      else
        return C::unknown;  // in, is: not Column operators
    }
    if (other || named_count(n) != 2) return other ? C::no_equality : C::unknown;
    if (!eq) return C::unknown;
    bool literal = is_literal(nth_named(n, 0)) || is_literal(nth_named(n, 1));
    return literal ? C::no_equality : C::equality;
  }
  if (t == "binary_operator") {
    std::string op = text(field<"operator">(n));
    if (op == "&") return combine_and({field<"left">(n), field<"right">(n)});
    if (op == "|") {
      C l = condition_of(field<"left">(n), depth + 1), r = condition_of(field<"right">(n), depth + 1);
      return l == C::unknown || r == C::unknown ? C::unknown : C::no_equality;
    }
    return C::unknown;
  }
  if (t == "unary_operator" && text(field<"operator">(n)) == "~")
    return condition_of(field<"argument">(n), depth + 1) == C::unknown ? C::unknown : C::no_equality;
  if (t == "call") {
    Node fn = field<"function">(n);
    std::string name = is<"attribute">(fn) ? text(field<"attribute">(fn)) : m_.qualify(dotted(fn));
    static const util::NameSet kNoEquality{"startswith",
                                           "endswith",
                                           "contains",
                                           "like",
                                           "rlike",
                                           "ilike",
                                           "between",
                                           "isin",
                                           "isNull",
                                           "isNotNull",
                                           "pyspark.sql.functions.array_contains",
                                           "pyspark.sql.functions.arrays_overlap"};
    if (name == "eqNullSafe") return C::equality;
    if (kNoEquality.count(name) != 0 || kNoEquality.count(qualified(fn)) != 0) return C::no_equality;
  }
  return C::unknown;
}

const std::span<const std::string_view>* Analyzer::intern_columns(const std::vector<std::string_view>& columns) {
  if (columns.empty()) return nullptr;
  column_key_.clear();
  for (std::string_view c : columns) {
    column_key_ += c;
    column_key_ += '\0';
  }
  auto [it, fresh] = column_lists_.try_emplace(column_key_);
  if (fresh) {  // the list and its span live in the model (the analyzer goes first)
    std::span<std::span<const std::string_view>> kept = m_.arena.make<std::span<const std::string_view>>(1);
    kept[0] = m_.arena.copy(columns);
    it->second = kept.data();
  }
  return it->second;
}

Expr Analyzer::make_expr(Node n, int depth) {
  Expr e;
  e.set_text(view(n), pos_of(n));
  if (!is_null(n)) e.set_kind(pyspark::Kind(n->symbol));
  if (too_deep(n, depth)) return e;
  switch (kExprTypes.of(n)) {  // a node is one type: at most one of these
    case kStringExpr:
      e.set_string_value(string_value(n));
      break;
    case kIntegerExpr: {
      std::string digits;
      for (char c : e.text())
        if (c != '_') digits += c;
      try {
        e.set_int_value(std::stoll(digits, nullptr, 0));
      } catch (...) {
      }
      break;
    }
    case kUnaryExpr:
      if (e.text().rfind('-', 0) == 0) {
        Expr inner = make_expr(field<"argument">(n), depth + 1);
        if (inner.int_value()) e.set_int_value(-*inner.int_value());
      }
      break;
    case kTrueExpr:
      e.set_bool_value(true);
      break;
    case kFalseExpr:
      e.set_bool_value(false);
      break;
    case kLambdaExpr: {
      Expr::Lambda l;
      Node params = field<"parameters">(n);
      for (std::uint32_t i = 0; i < named_count(params); ++i) l.params.push_back(view(nth_named(params, i)));
      l.body = view(field<"body">(n));
      e.set_lambda(&m_.lambdas.emplace_back(std::move(l)));
      break;
    }
    case kCallExpr: {
      KeptName callee = m_.keep_name(qualified(field<"function">(n)));
      e.set_chain(build_chain(n, depth + 1), callee);
      break;
    }
    case kAttributeExpr:
      e.set_chain(build_chain(n, depth + 1));
      break;
    case kIdentifierExpr:
      if (auto it = bindings_.find(e.text()); it != bindings_.end() && it->second != nullptr) {
        e.set_chain(it->second);
      } else if (auto k = constants_.find(e.text()); k != constants_.end()) {
        // A name bound once to a literal at module level (`INFER = "inferSchema"`) stands for it.
        e.set_string_value(k->second.string_value());
        e.set_int_value(k->second.int_value());
        if (auto b = k->second.bool_value()) e.set_bool_value(*b);
      }
      break;
    default:
      break;
  }
  columns_.clear();  // nested expressions are complete by now: the list is this one's alone
  collect_columns(n, columns_, depth + 1, false);
  e.set_columns(intern_columns(columns_));
  return e;
}

const Chain* Analyzer::build_chain(Node n, int depth) {
  auto key = std::make_pair(node_start(n), node_end(n));
  if (const Chain* const* built = built_.find(key)) return *built;
  Chain& c = m_.chains.emplace_back();
  built_.insert(key, &c);
  c.cell = cell_->number;
  c.statement = statement_;
  c.in_loop = loop_depth_ > 0;
  c.on_error_path = error_path_ > 0;
  c.once_per_loop = once_per_loop_ > 0;
  c.some_turns = some_turns_ > 0;
  c.loop = loops_.empty() ? 0 : loops_.back();
  if (!functions_.empty()) c.function = functions_.back();
  if (branches_changed_) {
    branches_kept_ = branches_.empty() ? Chain::Branches() : Chain::Branches(&m_.branch_lists.emplace_back(branches_));
    branches_changed_ = false;
  }
  c.branches = branches_kept_;
  c.pos = pos_of(n);
  Node cur = n;
  // The links are gathered in a buffer kept for each nesting level of build_chain (an argument's
  // chain is built while its caller's links are gathered): a vector per chain grew by copies.
  if (link_buffers_.size() <= building_) link_buffers_.resize(building_ + 1);
  std::vector<Link>& links = link_buffers_[building_];
  links.clear();
  ++building_;
  struct Unnest {
    std::size_t& level;
    ~Unnest() { --level; }
  } unnest{building_};
  for (std::size_t guard = 0; guard < kMaxLinks; ++guard) {
    if (is<"call">(cur)) {
      Node fn = field<"function">(cur);
      Node args = field<"arguments">(cur);
      if (is<"attribute">(fn)) {
        Link l;
        l.name = m_.keep_name(view(field<"attribute">(fn)));
        l.kinds = link_kinds(l.name);
        l.is_call = true;
        l.name_pos = pos_of(field<"attribute">(fn));
        Node obj = field<"object">(fn);
        if (is<"identifier">(obj) && (view(obj) == "self" || view(obj) == "cls") && depth < kMaxDepth)
          note_call_turns(std::string(l.name), args, true);
        l.link_pos = removal_range(obj, cur);
        l.expr_pos = pos_of(cur);
        l.args = make_args(args, depth);
        if (!l.spark_signature()) l.kinds = 0;  // another library's method of the name: no evidence of Spark
        // spark.sql(query) of a name bound to a string (in this cell: positions are the cell's): its text;
        // so is the path of a write (`.csv(output_path)` of `output_path = f"s3://{bucket}/{prefix}/"`).
        static const util::NameSet kTextArgs{"sql", "save", "csv", "json", "parquet", "orc", "text", "avro"};
        if (kTextArgs.contains(l.name) && !l.args.empty() && l.args[0].keyword.empty() &&
            l.args[0].value.kind() == "identifier")
          if (auto it = texts_.find(l.args[0].value.text()); it != texts_.end() && it->second.first == cell_->number)
            l.args[0].value = it->second.second;
        // select(aggs) of a name bound to a list in this cell: the columns it holds.
        if ((l.name == "select" || l.name == "agg") && l.args.size() == 1 && l.args[0].keyword.empty()) {
          std::string_view name = l.args[0].value.text();
          if (l.args[0].value.kind() == "list_splat") name.remove_prefix(std::min<std::size_t>(1, name.size()));
          if (auto it = lists_.find(name); it != lists_.end() && it->second.first == cell_->number)
            l.args[0].value = it->second.second;
        }
        if (l.name == "setAll" || l.name == "config") {
          std::vector<std::pair<Expr, Expr>> pairs;
          for (Node child : named_children(args)) read_pairs(child, pairs, depth);
          link_pairs_[{cell_->number, l.name_pos.start_byte}] = m_.arena.copy(pairs);
        }
        if (l.name == "join") {
          // df.join(other, on): the condition, read once here rather than for every expression.
          std::uint32_t positional = 0;
          for (std::uint32_t i = 0, k = 0; i < named_count(args); ++i) {
            Node a = nth_named(args, i);
            if (is_extra(a)) continue;
            bool keyword = is<"keyword_argument">(a);
            Arg& arg = l.args[k++];
            if ((keyword && arg.keyword == "on") || (!keyword && positional == 1))
              arg.value.set_condition(condition_of(keyword ? field<"value">(a) : a, depth + 1));
            if (!keyword) ++positional;
          }
        }
        links.push_back(l);
        cur = obj;
        continue;
      }
      c.root_is_call = true;
      c.root = m_.keep_name(qualified(fn));
      if (c.root.empty()) c.root = m_.keep_name(view(fn));
      c.root_expr = make_root_call(cur, depth + 1, c.root_args);
      if (is<"identifier">(fn)) calls_.push_back(&c);
      break;
    }
    if (is<"attribute">(cur)) {
      Link l;
      l.name = m_.keep_name(view(field<"attribute">(cur)));
      l.kinds = link_kinds(l.name);
      l.name_pos = pos_of(field<"attribute">(cur));
      Node obj = field<"object">(cur);
      l.link_pos = pos_of(cur);
      l.link_pos.start_byte = is_null(obj) ? l.link_pos.start_byte : node_end(obj);
      l.expr_pos = pos_of(cur);
      links.push_back(l);
      cur = obj;
      continue;
    }
    if (is<"parenthesized_expression">(cur) && unparen(cur) != cur) {
      cur = unparen(cur);
      continue;
    }
    c.root = m_.keep_name(view(cur));
    c.root_expr.text = view(cur);
    c.root_expr.pos = pos_of(cur);
    break;
  }
  std::reverse(links.begin(), links.end());
  // F.udf(...), functions.broadcast(x): a module function call is the root, not a method link.
  if (!c.root_is_call && !links.empty() && links.front().is_call &&
      m_.qualify(c.root, qualify_buffer_) == "pyspark.sql.functions") {
    Link first = links.front();
    links.erase(links.begin());
    c.root_is_call = true;
    c.root = m_.keep_name("pyspark.sql.functions." + std::string(first.name));
    c.root_expr.pos = first.expr_pos;
    c.root_args = first.args;
  }
  // self.df.cache(): `self.df` is the root, bound where a method of the class assigned it.
  if (!c.root_is_call && c.root == "self" && !links.empty() && !links.front().is_call) {
    if (auto it = self_bindings_.find("self." + std::string(links.front().name)); it != self_bindings_.end()) {
      c.root = m_.keep_name(it->first);
      const Pos& p = links.front().expr_pos;  // `self.df` as written
      c.root_expr.text = src_.substr(p.start_byte, p.end_byte - p.start_byte);
      links.erase(links.begin());
      c.bound = it->second;
    }
  }
  c.links = m_.arena.copy(links);
  if (!c.root_is_call && c.bound == nullptr) {
    if (auto it = bindings_.find(c.root); it != bindings_.end()) c.bound = it->second;
  }
  if (!c.root_is_call && c.loop != 0) {
    auto t = loop_targets_.find(c.root);
    c.root_is_loop_target = t != loop_targets_.end() && t->second == c.loop && c.bound == nullptr;
  }
  classify(c);
  return &c;
}

Chain::Root Analyzer::make_root_call(Node call, int depth, ArenaList<Arg>& args_out) {
  Chain::Root root{view(call), pos_of(call)};
  if (depth < kMaxDepth) args_out = make_args(field<"arguments">(call), depth);
  if (Node callee = field<"function">(call); is<"identifier">(callee) && depth < kMaxDepth)
    note_call_turns(text(callee), field<"arguments">(call), false);
  return root;
}

std::span<Arg> Analyzer::make_args(Node args, int depth) {
  const NodeSpan arg_nodes = named_children(args);
  std::size_t count = 0;
  for (Node a : arg_nodes) count += is_extra(a) ? 0 : 1;
  std::span<Arg> out = m_.arena.make<Arg>(count);
  std::size_t k = 0;
  for (Node a : arg_nodes) {
    if (is_extra(a)) continue;
    Arg& arg = out[k++];
    if (is<"keyword_argument">(a)) {
      arg.keyword = m_.keep_name(view(field<"name">(a)));
      arg.value = make_expr(field<"value">(a), depth + 1);
    } else {
      arg.value = make_expr(a, depth + 1);
    }
  }
  return out;
}

}  // namespace planlint::pyspark::detail
