// How many items a collection holds and how many turns a loop makes, as far as the code spells them
// out: literal collections bound to names (each function's names its own), grown by appends in loops
// of known turns, joined with `+`, walked by `for` (also through `.items()`, `enumerate`, `zip`,
// `range` of integer constants), counted `while` loops, and parameters whose callers (`f(df, cols)`,
// `self.f(df, cols)`) or defaults spell them out.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pyspark/analyzer_impl.hpp"
#include "pyspark/model.hpp"
#include "pyspark/syntax_access.hpp"

namespace planlint::pyspark::detail {

// `name` is bound, in the function being visited, to something whose items the code does not show.
void Analyzer::bound_to_unknown(const std::string& name) {
  remember_literal(name);
  m_.literal_collections.erase(name);
  literal_scopes_.insert_or_assign(name, functions_.empty() ? std::string() : std::string(functions_.back()));
}

void Analyzer::remember_literal(const std::string& name) {
  if (functions_.empty() || name.find('.') != std::string::npos) return;  // module level; self.X is the class's
  LiteralChange c{name, m_.literal_collections.count(name) != 0, std::nullopt, std::nullopt};
  if (auto s = m_.literal_sizes.find(name); s != m_.literal_sizes.end()) c.size = s->second;
  if (auto s = literal_scopes_.find(name); s != literal_scopes_.end()) c.scope = s->second;
  literal_log_.push_back(std::move(c));
}

void Analyzer::forget_literals(std::size_t mark) {
  while (literal_log_.size() > mark) {
    LiteralChange& c = literal_log_.back();
    if (c.collection)
      m_.literal_collections.insert(c.name);
    else
      m_.literal_collections.erase(c.name);
    if (c.size)
      m_.literal_sizes[c.name] = *c.size;
    else
      m_.literal_sizes.erase(c.name);
    if (c.scope)
      literal_scopes_[c.name] = std::move(*c.scope);
    else
      literal_scopes_.erase(c.name);
    literal_log_.pop_back();
  }
}

int Analyzer::counted_while_turns(Node n) const {
  Node cond = unparen(field<"condition">(n));
  if (!is<"comparison_operator">(cond) || named_count(cond) != 2 || child_count(cond) != 3) return -1;
  Node counter = nth_named(cond, 0), bound = nth_named(cond, 1);
  const std::string_view op = view(nth_child(cond, 1));
  if (!is<"identifier">(counter) || !is<"integer">(bound)) return -1;
  const std::string name = text(counter);
  auto start = integers_.find(name);
  const std::string here = functions_.empty() ? std::string() : std::string(functions_.back());
  if (start == integers_.end() || start->second.second != here) return -1;
  long long limit = 0;
  try {
    limit = std::stoll(text(bound), nullptr, 0);
  } catch (...) {
    return -1;
  }
  // The body's one step of the counter, and no other binding of it.
  long long step = 0;
  int steps = 0, others = 0;
  std::vector<Node> todo{field<"body">(n)};
  for (int guard = 0; !todo.empty() && guard < 100000; ++guard) {
    Node c = todo.back();
    todo.pop_back();
    if (is_null(c)) continue;
    if (is<"augmented_assignment">(c) && view(field<"left">(c)) == name) {
      const std::string_view aop = view(nth_child(c, 1));
      Node by = field<"right">(c);
      if ((aop == "+=" || aop == "-=") && is<"integer">(by)) {
        try {
          step = std::stoll(text(by), nullptr, 0) * (aop == "+=" ? 1 : -1);
          ++steps;
        } catch (...) {
          ++others;
        }
      } else {
        ++others;
      }
      continue;
    }
    if ((is<"assignment">(c) || is<"for_statement">(c)) && view(field<"left">(c)) == name) ++others;
    if (is<"function_definition">(c) || is<"class_definition">(c)) continue;
    for (Node child : named_children(c)) todo.push_back(child);
  }
  if (steps != 1 || others != 0 || step == 0) return -1;
  const long long from = start->second.first;
  long long distance = 0;  // how far the counter goes while the condition holds, in the step's direction
  if ((op == "<" || op == "<=") && step > 0)
    distance = limit - from + (op == "<=" ? 1 : 0);
  else if ((op == ">" || op == ">=") && step < 0)
    distance = from - limit + (op == ">=" ? 1 : 0);
  else if (op == "!=" && (limit - from) % step == 0 && (limit - from) / step >= 0)
    return static_cast<int>(std::min<long long>((limit - from) / step, 1 << 30));
  else
    return -1;
  if (distance <= 0) return 0;
  const long long size = step > 0 ? step : -step;
  return static_cast<int>(std::min<long long>((distance + size - 1) / size, 1 << 30));
}

// What a `for` walks: `cols` of `for c in cols`, `cols.items()`, `enumerate(cols)`, `sorted(cols)`.
Node Analyzer::walked_collection(Node it) const {
  it = unparen(it);
  for (int guard = 0; guard < 4 && is<"call">(it); ++guard) {
    Node fn = field<"function">(it);
    Node args = field<"arguments">(it);
    if (is<"attribute">(fn) && named_count(args) == 0) {
      const std::string_view method = view(field<"attribute">(fn));
      if (method != "items" && method != "keys" && method != "values") break;
      it = unparen(field<"object">(fn));
      continue;
    }
    const std::string_view name = view(fn);
    if ((name != "enumerate" && name != "sorted" && name != "reversed" && name != "list" && name != "tuple" &&
         name != "set") ||
        named_count(args) != 1)
      break;
    it = unparen(nth_named(args, 0));
  }
  return it;
}

int Analyzer::spelled_out_turns(Node it) {
  it = unparen(it);
  // zip(a, b): as many turns as the shortest.
  if (is<"call">(it) && view(field<"function">(it)) == "zip") {
    int fewest = -1;
    for (Node a : named_children(field<"arguments">(it))) {
      if (is_extra(a)) continue;
      const int n = spelled_out_turns(a);
      if (n < 0) return -1;
      fewest = fewest < 0 ? n : std::min(fewest, n);
    }
    return fewest;
  }
  // reversed(...), enumerate(...), sorted(...), list(...) keep the count of what they wrap.
  for (int guard = 0; guard < 4 && is<"call">(it); ++guard) {
    const std::string_view fn = view(field<"function">(it));
    Node args = field<"arguments">(it);
    // OrderedDict([("a", 1), ...]) and dict(...) of pairs written out: as many as the pairs.
    if ((fn == "OrderedDict" || fn == "collections.OrderedDict" || fn == "dict") && named_count(args) >= 1) {
      int keywords = 0;
      for (Node a : named_children(args))
        if (is<"keyword_argument">(a)) ++keywords;
      if (keywords == static_cast<int>(named_count(args))) return keywords;  // dict(a=1, b=2)
    }
    if ((fn != "reversed" && fn != "enumerate" && fn != "sorted" && fn != "list" && fn != "tuple" && fn != "set" &&
         fn != "frozenset" && fn != "OrderedDict" && fn != "collections.OrderedDict" && fn != "dict") ||
        named_count(args) != 1)
      break;
    it = unparen(nth_named(args, 0));
  }
  // d.items(), d.keys(), d.values() of a dictionary: as many turns as it has keys.
  if (is<"call">(it) && is<"attribute">(field<"function">(it)) && named_count(field<"arguments">(it)) == 0) {
    const std::string method = text(field<"attribute">(field<"function">(it)));
    if (method == "items" || method == "keys" || method == "values")
      it = unparen(field<"object">(field<"function">(it)));
  }
  // `[c for c in COLUMNS if c not in df.columns]`: at most the turns of the one collection it walks.
  if (is<"list_comprehension">(it) || is<"set_comprehension">(it) || is<"generator_expression">(it) ||
      is<"dictionary_comprehension">(it)) {
    int most = -1, clauses = 0;
    for (Node part : named_children(it))
      if (is<"for_in_clause">(part)) {
        ++clauses;
        most = spelled_out_turns(field<"right">(part));
      }
    return clauses == 1 ? most : -1;
  }
  // `set(REQUIRED) - set(df.columns)`: at most the items of the left one.
  if (is<"binary_operator">(it) && text(nth_child(it, 1)) == "-") return spelled_out_turns(field<"left">(it));
  // `BASE_COLS + ["extra"]`: the items of both.
  if (is<"binary_operator">(it) && text(nth_child(it, 1)) == "+") {
    const int left = spelled_out_turns(field<"left">(it));
    const int right = left < 0 ? -1 : spelled_out_turns(field<"right">(it));
    return right < 0 ? -1 : left + right;
  }
  if (is<"list">(it) || is<"tuple">(it) || is<"set">(it) || is<"dictionary">(it)) {
    for (std::uint32_t i = 0; i < named_count(it); ++i)
      if (is<"list_splat">(nth_named(it, i)) || is<"dictionary_splat">(nth_named(it, i))) return -1;
    return static_cast<int>(item_count(it));
  }
  // `parts[1:]`: at most the items of the collection sliced.
  if (is<"subscript">(it) && is<"slice">(field<"subscript">(it))) return spelled_out_turns(field<"value">(it));
  // A name bound once to a collection written out in the code: its items.
  // (Also `config.COLUMNS` of a project module imported as `config`.)
  if ((is<"identifier">(it) || is<"attribute">(it)) && m_.literal_collections.count(view(it)) != 0)
    if (auto size = m_.literal_sizes.find(view(it)); size != m_.literal_sizes.end()) return size->second;
  if (!is<"call">(it) || text(field<"function">(it)) != "range") return -1;
  Node args = field<"arguments">(it);
  std::vector<long long> v;
  for (Node a : named_children(args)) {
    const std::optional<long long> n = int_constant(a, 0);
    if (!n) return -1;
    v.push_back(*n);
  }
  if (v.size() == 1) return static_cast<int>(std::max(0LL, std::min(v[0], 1'000'000LL)));
  if (v.size() == 2) return static_cast<int>(std::max(0LL, std::min(v[1] - v[0], 1'000'000LL)));
  return -1;
}

void Analyzer::resolve_param_loops() {
  for (const ParamLoop& p : param_loops_) {
    const FunctionInfo* f = m_.function(p.function);
    if (f == nullptr) continue;
    const auto at = std::find(f->params.begin(), f->params.end(), p.param);
    if (at == f->params.end()) continue;
    const auto index = at - f->params.begin();
    const bool bound = !f->params.empty() && (f->params.front() == "self" || f->params.front() == "cls");
    int default_turns = -1;
    if (auto d = default_turns_.find(p.function); d != default_turns_.end())
      if (auto t = d->second.find(p.param); t != d->second.end()) default_turns = t->second;
    int most = default_turns;
    bool known = true;
    if (auto calls = call_turns_.find(p.function); calls != call_turns_.end()) {
      most = -1;
      for (const auto& call : calls->second) {
        auto t = call.find(p.param);
        // self.f(a) fills the parameter after self; f(a) of a static method or plain def, the first.
        const auto shift = call.count("@method") != 0 && bound ? 1 : 0;
        if (t == call.end()) t = call.find("#" + std::to_string(index - shift));
        const int turns = t != call.end() ? t->second : default_turns;
        known = known && turns >= 0;
        most = std::max(most, turns);
      }
    }
    // No call in the file and an empty default (`cols=[]`, `mapping={}`): a placeholder that callers
    // elsewhere fill, not a count.
    if (call_turns_.count(p.function) == 0 && most == 0) continue;
    if (known && most >= 0) m_.loops[p.loop].known_turns = most;
  }
}

void Analyzer::note_collection_growth(Node call) {
  Node fn = field<"function">(call);
  if (!is<"attribute">(fn)) return;
  const std::string_view method = view(field<"attribute">(fn));
  if (method != "append" && method != "insert" && method != "add" && method != "extend" && method != "update") return;
  const std::string name(view(field<"object">(fn)));
  if (m_.literal_collections.count(name) == 0) return;
  remember_literal(name);
  auto size = m_.literal_sizes.find(name);
  long long times = 1;
  for (int loop : loops_) {
    const int turns = loop >= 1 && static_cast<std::size_t>(loop) <= m_.loops.size()
                          ? m_.loops[static_cast<std::size_t>(loop - 1)].known_turns
                          : -1;
    times = turns < 0 ? -1 : times * turns;
    if (times < 0 || times > 1'000'000) break;
  }
  long long items = 1;
  if (method == "extend" || method == "update") {
    Node args = field<"arguments">(call);
    items = named_count(args) == 1 ? spelled_out_turns(nth_named(args, 0)) : -1;
  }
  if (size == m_.literal_sizes.end() || times < 0 || times > 1'000'000 || items < 0) {
    m_.literal_collections.erase(name);  // grows by what the code does not show
    return;
  }
  size->second = static_cast<int>(std::min<long long>(size->second + times * items, 1'000'000));
}

std::optional<long long> Analyzer::int_constant(Node n, int depth) const {
  // An integer the code spells out: a literal, a name bound to one in this function or at module level
  // (`max_index = 10`), or a sum, difference or product of such (`max_index + 1`).
  n = unparen(n);
  if (depth > 8) return std::nullopt;
  if (is<"integer">(n)) try {
      return std::stoll(text(n), nullptr, 0);
    } catch (...) {
      return std::nullopt;
    }
  if (is<"identifier">(n)) {
    const std::string_view name = view(n);
    auto it = integers_.find(name);
    const std::string_view here = functions_.empty() ? std::string_view() : std::string_view(functions_.back());
    if (it == integers_.end() || (it->second.second != here && !it->second.second.empty())) return std::nullopt;
    // A counter (`count += 1` anywhere in the cell, or a loop's target) is not a constant.
    if (loop_targets_.count(name) != 0) return std::nullopt;
    for (std::size_t at = src_.find(name); at != std::string_view::npos; at = src_.find(name, at + 1)) {
      std::size_t k = at + name.size();
      while (k < src_.size() && src_[k] == ' ') ++k;
      if (k + 1 < src_.size() && src_[k + 1] == '=' &&
          std::string_view("+-*/%").find(src_[k]) != std::string_view::npos &&
          (at == 0 || !(std::isalnum(static_cast<unsigned char>(src_[at - 1])) != 0 || src_[at - 1] == '_')))
        return std::nullopt;
    }
    return it->second.first;
  }
  if (is<"binary_operator">(n) && child_count(n) == 3) {
    const auto a = int_constant(field<"left">(n), depth + 1);
    const auto b = int_constant(field<"right">(n), depth + 1);
    if (!a || !b || std::llabs(*a) > 1'000'000'000LL || std::llabs(*b) > 1'000'000'000LL) return std::nullopt;
    const std::string_view op = view(nth_child(n, 1));
    if (op == "+") return *a + *b;
    if (op == "-") return *a - *b;
    if (op == "*") return *a * *b;
  }
  return std::nullopt;
}

// f(df, ["a", "b"]) of a plain name, or self.f(...) of a method: what each argument spells out (a
// def may loop over it).
void Analyzer::note_call_turns(const std::string& function, Node args, bool method) {
  auto& turns = call_turns_[function].emplace_back();
  if (method) turns["@method"] = 1;  // the def's first parameter (self, cls) is not an argument
  int position = 0;
  for (Node a : named_children(args)) {
    if (is_extra(a)) continue;
    if (is<"keyword_argument">(a))
      turns[text(field<"name">(a))] = spelled_out_turns(field<"value">(a));
    else if (!is<"list_splat">(a) && !is<"dictionary_splat">(a))
      turns["#" + std::to_string(position++)] = spelled_out_turns(a);
  }
}

}  // namespace planlint::pyspark::detail
