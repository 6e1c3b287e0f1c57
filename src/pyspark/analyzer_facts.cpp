// The facts rules ask for beyond chains: UDF definitions, Spark configuration settings and the
// constants they use, row counts used as yes/no tests, Python 2 code (loops' turns: analyzer_counts.cpp).
#include <tree_sitter/api.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pyspark/analyzer_impl.hpp"
#include "pyspark/model.hpp"
#include "pyspark/sql_settings.hpp"
#include "pyspark/syntax_access.hpp"

namespace planlint::pyspark::detail {

bool Analyzer::may_have_python2(std::string_view src) {
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  for (std::string_view kw : {std::string_view("print"), std::string_view("exec")}) {
    for (std::size_t at = src.find(kw); at != std::string_view::npos; at = src.find(kw, at + 1)) {
      std::size_t end = at + kw.size();
      if ((at > 0 && word_char(src[at - 1])) || (end < src.size() && word_char(src[end]))) continue;
      std::size_t i = end;
      for (;;) {
        if (i < src.size() && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f')) {
          ++i;
        } else if (i + 1 < src.size() && src[i] == '\\' && src[i + 1] == '\n') {
          i += 2;
        } else if (i + 2 < src.size() && src[i] == '\\' && src[i + 1] == '\r' && src[i + 2] == '\n') {
          i += 3;
        } else {
          break;
        }
      }
      if (i >= src.size()) continue;
      if (std::string_view("(=.,):;#\r\n").find(src[i]) == std::string_view::npos) return true;
    }
  }
  return false;
}

std::optional<Pos> Analyzer::find_python2() const {
  // Python 2's `x` (repr): tree-sitter reads it as a string delimited by backquotes, which Python 3
  // never accepts.
  const bool backquote = run_.find('`') != std::string_view::npos;
  if (!backquote && !may_have_python2(run_)) return std::nullopt;
  static const TSSymbol print_stmt = ts_language_symbol_for_name(tree_sitter_python(), "print_statement", 15, true);
  static const TSSymbol exec_stmt = ts_language_symbol_for_name(tree_sitter_python(), "exec_statement", 14, true);
  static const TSSymbol string = ts_language_symbol_for_name(tree_sitter_python(), "string", 6, true);
  for (const SyntaxNode& n : tree_.nodes()) {
    if (n.symbol == print_stmt || n.symbol == exec_stmt) return Pos{n.start_byte, n.end_byte};
    if (backquote && n.symbol == string && n.start_byte < src_.size() && src_[n.start_byte] == '`')
      return Pos{n.start_byte, n.end_byte};
  }
  return std::nullopt;
}

void Analyzer::note_constant(const std::string& name, Node right, int depth) {
  // A collection whose items the code shows (written out, or picked from one that is: a comprehension
  // over it, a set difference): how many at most. Bound again, the most of all its bindings, as long as
  // each shows its size.
  const TypeName t{node_type(right)};
  const bool collection = t == "dictionary" || t == "list" || t == "tuple" || t == "set" || t == "list_comprehension" ||
                          t == "set_comprehension" || t == "dictionary_comprehension" || t == "binary_operator" ||
                          t == "call" || t == "identifier";
  const int size = collection ? spelled_out_turns(right) : -1;
  // Bindings in one function (or at module level) are one name: the most of them. A binding in another
  // function is another name that happens to be spelled the same (`cols` of two helpers): it replaces.
  remember_literal(name);
  std::string scope = functions_.empty() ? std::string() : std::string(functions_.back());
  auto last = literal_scopes_.find(name);
  const bool same_scope = last != literal_scopes_.end() && last->second == scope;
  literal_scopes_.insert_or_assign(name, std::move(scope));
  if (!assigned_.insert(name).second) {
    constants_.erase(name);
    auto known = m_.literal_sizes.find(name);
    if (size >= 0 && !same_scope) {
      m_.literal_collections.insert(name);
      m_.literal_sizes[name] = size;
    } else if (size >= 0 && m_.literal_collections.count(name) != 0 && known != m_.literal_sizes.end()) {
      known->second = std::max(known->second, size);
    } else {
      m_.literal_collections.erase(name);
    }
    return;
  }
  if (size >= 0) {
    m_.literal_collections.insert(name);
    m_.literal_sizes[name] = size;
    // A class attribute (`class Job: COLUMNS = [...]`, in the class body, not a method): also what
    // `self.COLUMNS`, `cls.COLUMNS` and `Job.COLUMNS` read.
    if (!classes_.empty() && classes_.back().second == functions_.size() && name.find('.') == std::string::npos)
      for (const std::string& alias : {"self." + name, "cls." + name, classes_.back().first + "." + name})
        if (assigned_.insert(alias).second) {
          m_.literal_collections.insert(alias);
          m_.literal_sizes[alias] = size;
        }
  }
  if (!functions_.empty() || loop_depth_ > 0 ||
      !(t == "string" || t == "integer" || t == "true" || t == "false" || t == "unary_operator"))
    return;
  Expr e = make_expr(right, depth + 1);
  if (e.string_value() || e.int_value() || e.bool_value()) constants_.emplace(name, e);
}

bool Analyzer::only_udf_marks(const Chain& chain) {
  return std::all_of(chain.links.begin(), chain.links.end(),
                     [](const Link& l) { return l.is_call && l.name == "asNondeterministic"; });
}

void Analyzer::note_udf_binding(const std::string& name, const Chain& chain) {
  if (!only_udf_marks(chain)) return;
  const bool marked = !chain.links.empty();  // asNondeterministic()
  if (!chain.root_is_call) {
    // f = f.asNondeterministic() (or g = f.asNondeterministic()): the same UDF, marked.
    if (marked && (m_.udf_names.count(chain.root) != 0 || m_.pandas_udf_names.count(chain.root) != 0)) {
      if (m_.udf_names.count(chain.root) != 0) m_.udf_names.insert(name);
      if (m_.pandas_udf_names.count(chain.root) != 0) m_.pandas_udf_names.insert(name);
      m_.nondeterministic_udfs.insert(name);
    }
    return;
  }
  const bool row = chain.root == "pyspark.sql.functions.udf" || is_user_defined_function(chain.root);
  const bool pandas = chain.root == "pyspark.sql.functions.pandas_udf";
  if (row) m_.udf_names.insert(name);
  if (pandas) m_.pandas_udf_names.insert(name);
  if ((row || pandas) && marked) m_.nondeterministic_udfs.insert(name);
  for (auto& u : m_.udfs)
    if (u.pos.start_byte == chain.pos.start_byte && u.cell == chain.cell && u.name.empty()) u.name = name;
}

void Analyzer::handle_decorated(Node n, int depth) {
  Node def = field<"definition">(n);
  if (is<"function_definition">(def) && shadowed(def)) return;  // defined again before any use
  std::string fname = is<"function_definition">(def) ? text(field<"name">(def)) : std::string();
  for (Node d : named_children(n)) {
    if (!is<"decorator">(d)) continue;
    Node expr = nth_named(d, 0);
    Node callee = is<"call">(expr) ? field<"function">(expr) : expr;
    const std::string q(qualified(callee));
    if (q == "pyspark.sql.functions.udf") {
      m_.udfs.push_back({fname, UdfKind::row, pos_of(d), cell_->number, std::nullopt, "decorator", fname,
                         functions_.empty() ? std::string() : std::string(functions_.back())});
      m_.udf_names.insert(fname);
    } else if (q == "pyspark.sql.functions.pandas_udf") {
      m_.pandas_udf_names.insert(fname);
    } else if (q.rfind("transforms.api.", 0) == 0 || q == "dlt.table" || q == "dlt.view" ||
               q == "dlt.materialized_view" || q == "pyspark.pipelines.table" ||
               q == "pyspark.pipelines.materialized_view") {
      entry_decorated_ = true;
    }
  }
  visit(def, depth + 1);
  entry_decorated_ = false;
}

bool Analyzer::is_user_defined_function(std::string_view root) {
  return root == "UserDefinedFunction" || root == "pyspark.sql.udf.UserDefinedFunction" ||
         root == "pyspark.sql.functions.UserDefinedFunction";
}

void Analyzer::note_udf_call(const Chain& c) {
  if (c.root_is_call && (c.root == "pyspark.sql.functions.udf" || is_user_defined_function(c.root)) &&
      only_udf_marks(c)) {
    UdfDef u{"", UdfKind::row, c.pos, c.cell, std::nullopt, "udf-call", "", std::string(c.function)};
    u.lambda = first_lambda_;  // udf(lambda s: s.upper()) keeps its lambda for the built-in suggestion
    if (!c.root_args.empty() && c.root_args[0].value.kind() == "identifier") u.function = c.root_args[0].value.text();
    m_.udfs.push_back(u);
    return;
  }
  // spark.udf.register("name", f[, returnType]) and sqlContext.registerFunction("name", f): a Python
  // function unless it is a pandas UDF.
  // (`.udf.register` on any session: `spark`, `self.spark`, a name bound to one; keyword arguments too:
  // `register(name="n", f=f, returnType=T)`.)
  bool spark_register = c.links.size() >= 2 && c.links[c.links.size() - 2].name == "udf" &&
                        !c.links[c.links.size() - 2].is_call && c.links.back().name == "register" &&
                        c.links.back().is_call && !c.root_is_call;
  bool context_register = !c.root_is_call && c.links.size() == 1 && c.links[0].name == "registerFunction";
  if (spark_register || context_register) {
    const Link& reg = c.links.back();
    const Arg* name_arg = reg.arg(0, "name");
    const Arg* fn_arg = reg.arg(1, "f");
    if (name_arg == nullptr || fn_arg == nullptr) return;
    const Expr& fn = fn_arg->value;
    // A function looked up at run time (`getattr(module, name)`): what it is, the code does not show
    // (modules register the UDFs they made that way).
    if (fn.kind() == "call") return;
    // Registering a UDF made earlier (udf(f), @udf) is the same UDF: reported where it was made.
    if (m_.pandas_udf_names.count(fn.text()) != 0 || m_.udf_names.count(fn.text()) != 0) return;
    // A name bound to what a call returned (`m = mlflow.pyfunc.spark_udf(spark, uri)`, a pandas UDF
    // made by a helper) is not a Python function written here: what it runs, the code does not show.
    if (fn.kind() == "identifier")
      if (auto it = bindings_.find(fn.text());
          it != bindings_.end() && it->second != nullptr &&
          (it->second->root_is_call || (!it->second->links.empty() && it->second->links.back().is_call)))
        return;
    UdfDef u{std::string(name_arg->value.string_value().value_or("")),
             UdfKind::row,
             c.pos,
             c.cell,
             fn.lambda() != nullptr ? std::optional<Expr::Lambda>(*fn.lambda()) : std::nullopt,
             "register",
             fn.kind() == "identifier" ? std::string(fn.text()) : std::string(),
             std::string(c.function)};
    m_.udfs.push_back(u);
  }
}

std::span<const std::pair<Expr, Expr>> Analyzer::pairs_of(const Chain& c, const Link& l) const {
  auto it = link_pairs_.find({c.cell, l.name_pos.start_byte});
  return it == link_pairs_.end() ? std::span<const std::pair<Expr, Expr>>() : it->second;
}

void Analyzer::note_setting(const Chain& c) {
  for (std::size_t i = 0; i < c.links.size(); ++i) {
    const Link& l = c.links[i];
    if ((l.name == "master" || l.name == "setMaster") && !l.args.empty() &&
        l.args[0].value.string_value().value_or("").rfind("local", 0) == 0)
      m_.local_master = true;
    bool conf_set = l.name == "set" && i > 0 && c.links[i - 1].name == "conf";
    bool builder_config = l.name == "config";
    // SparkConf().set(...), and conf.set(...) on a name bound to SparkConf().
    const Chain* origin = c.origin();
    bool sparkconf = origin != nullptr && origin->root_is_call && origin->root.find("SparkConf") != std::string::npos;
    bool sparkconf_set = (l.name == "set" || l.name == "setAll") && sparkconf;
    bool sql = l.name == "sql" && l.is_call && (i == 0) && !c.root_is_call &&
               (c.root == "spark" || (c.bound != nullptr && c.bound->is_session));
    if (sql && !l.args.empty() && l.args[0].value.string_value()) {
      const Expr& s = l.args[0].value;
      for (auto& st : sql_set_statements(*s.string_value())) {
        ConfSetting cs;
        cs.key = st.key;
        cs.value = st.value;
        cs.literal = true;
        cs.pos = s.pos();
        cs.value_pos = s.pos();
        cs.cell = c.cell;
        cs.via = "SQL SET";
        cs.function = std::string(c.function);
        cs.local_branch = local_branch_ > 0;
        m_.settings.push_back(std::move(cs));
      }
      continue;
    }
    bool set_conf = l.name == "setConf" && l.is_call;  // SQLContext / HiveContext (Spark 1.x)
    if (sparkconf_set && l.name == "setAll") {
      for (const auto& [key, value] : pairs_of(c, l)) add_setting(c, l, i, key, value, "SparkConf.setAll", true);
      continue;
    }
    if (builder_config && !pairs_of(c, l).empty()) {
      for (const auto& [key, value] : pairs_of(c, l)) add_setting(c, l, i, key, value, "builder.config", true);
      continue;
    }
    if (!(conf_set || builder_config || sparkconf_set || set_conf) || l.args.size() < 2) continue;
    add_setting(c, l, i, l.args[0].value, l.args[1].value,
                conf_set         ? "conf.set"
                : builder_config ? "builder.config"
                : set_conf       ? "setConf"
                                 : "SparkConf.set");
  }
}

const Expr& Analyzer::literal_of(const Expr& e) const {
  if (e.kind() == "identifier")
    if (auto it = constants_.find(e.text()); it != constants_.end()) return it->second;
  return e;
}

void Analyzer::add_setting(const Chain& c, const Link& l, std::size_t i, const Expr& key_expr, const Expr& value_expr,
                           const char* via, bool at_key) {
  {
    const Expr& key = literal_of(key_expr);
    const Expr& value = literal_of(value_expr);
    if (!key.string_value()) return;
    bool conf_set = std::string_view(via) == "conf.set";
    ConfSetting cs;
    cs.key = *key.string_value();
    cs.cell = c.cell;
    cs.pos = l.expr_pos;
    cs.pos.start_byte = l.name_pos.start_byte;
    if (at_key) cs.pos = key_expr.pos();  // one pair of setAll([...]) / config(map={...})
    cs.value_pos = value_expr.pos();
    cs.via = via;
    cs.function = std::string(c.function);
    cs.local_branch = local_branch_ > 0;
    if (conf_set && i + 1 == c.links.size()) cs.statement = c.whole_statement;
    if (value.string_value()) {
      cs.value = *value.string_value();
      cs.literal = true;
    } else if (value.int_value()) {
      cs.value = std::to_string(*value.int_value());
      cs.literal = true;
    } else if (value.bool_value()) {
      cs.value = *value.bool_value() ? "true" : "false";
      cs.literal = true;
    } else {
      cs.value = value.text();
    }
    m_.settings.push_back(std::move(cs));
  }
}

void Analyzer::note_whole_statement(Node n, int depth) {
  const Chain* c = build_chain(nth_named(n, 0), depth + 1);
  Pos p = pos_of(n);
  std::size_t line_start = p.start_byte == 0 ? std::string_view::npos : src_.rfind('\n', p.start_byte - 1);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  std::size_t after = src_.find_first_not_of(" \t\r", p.end_byte);
  bool alone = src_.substr(line_start, p.start_byte - line_start).find_first_not_of(" \t") == std::string_view::npos &&
               (after == std::string_view::npos || src_[after] == '\n');
  if (!alone) return;
  p.start_byte = static_cast<std::uint32_t>(line_start);
  p.end_byte = static_cast<std::uint32_t>(after == std::string_view::npos ? src_.size() : after + 1);
  const_cast<Chain*>(c)->whole_statement = p;
}

const Chain* Analyzer::counted(Node e, int depth, bool& via_len) {
  e = unparen(e);
  via_len = false;
  if (is<"call">(e) && text(field<"function">(e)) == "len") {
    Node args = field<"arguments">(e);
    if (named_count(args) != 1) return nullptr;
    Node inner = unparen(nth_named(args, 0));
    if (!is<"call">(inner)) return nullptr;
    const Chain* c = build_chain(inner, depth + 1);
    if (c == nullptr || c->links.empty() || c->links.back().name != "collect" || !c->links.back().args.empty())
      return nullptr;
    via_len = true;
    return c;
  }
  if (!is<"call">(e)) return nullptr;
  const Chain* c = build_chain(e, depth + 1);
  if (c == nullptr || c->links.empty() || c->links.back().name != "count" || !c->links.back().args.empty() ||
      !c->links.back().is_call)
    return nullptr;
  return c;
}

void Analyzer::note_size_test(const Chain* c, bool via_len, bool means_empty, Node whole) {
  SizeTest s;
  s.chain = c;
  s.via_len = via_len;
  s.means_empty = means_empty;
  s.pos = pos_of(whole);
  s.cell = cell_->number;
  m_.size_tests.push_back(s);
}

void Analyzer::note_comparison(Node n, int depth) {
  if (named_count(n) != 2 || child_count(n) != 3) return;
  Node a = nth_named(n, 0), b = nth_named(n, 1);
  std::string op(node_type(nth_child(n, 1)));
  bool via_len = false;
  const Chain* c = counted(a, depth, via_len);
  Node lit = b;
  if (c == nullptr) {
    c = counted(b, depth, via_len);
    lit = a;
    // 0 < n is n > 0: mirror the operator.
    if (op == "<")
      op = ">";
    else if (op == ">")
      op = "<";
    else if (op == "<=")
      op = ">=";
    else if (op == ">=")
      op = "<=";
  }
  if (c == nullptr || !is<"integer">(unparen(lit))) return;
  std::string v = text(unparen(lit));
  if (v != "0" && v != "1") return;
  bool zero = v == "0";
  if ((op == "==" && zero) || (op == "<" && !zero) || (op == "<=" && zero))
    note_size_test(c, via_len, true, n);
  else if ((op == "!=" && zero) || (op == ">" && zero) || (op == ">=" && !zero))
    note_size_test(c, via_len, false, n);
}

void Analyzer::note_truth_test(Node cond, int depth) {
  cond = unparen(cond);
  bool negated = false;
  Node whole = cond;
  if (is<"not_operator">(cond)) {
    negated = true;
    cond = unparen(field<"argument">(cond));
  }
  bool via_len = false;
  if (const Chain* c = counted(cond, depth, via_len)) note_size_test(c, via_len, negated, whole);
}

}  // namespace planlint::pyspark::detail

namespace planlint::pyspark::detail {}  // namespace planlint::pyspark::detail

namespace planlint::pyspark::detail {

bool Analyzer::ends_in_raise(Node block) const {
  Node last{};
  for (Node c : named_children(block))
    if (!is_extra(c)) last = c;
  return !is_null(last) && is<"raise_statement">(last);
}

// Whether an `if` condition selects a local or test run: a word of it (split at anything but
// letters and digits) is local, test, tests, testing, unittest or pytest (`mode == "local"`,
// `is_local`, `os.environ.get("ENV") == "unit_testing"`). A negated condition selects the rest.
bool Analyzer::selects_local_or_test(Node cond) const {
  const std::string_view t = view(cond);
  if (t.find("not ") != std::string_view::npos || t.find("!=") != std::string_view::npos) return false;
  for (std::size_t i = 0; i < t.size();) {
    while (i < t.size() && std::isalnum(static_cast<unsigned char>(t[i])) == 0) ++i;
    std::size_t j = i;
    while (j < t.size() && std::isalnum(static_cast<unsigned char>(t[j])) != 0) ++j;
    std::string word(t.substr(i, j - i));
    for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (word == "local" || word == "test" || word == "tests" || word == "testing" || word == "unittest" ||
        word == "pytest")
      return true;
    i = j;
  }
  return false;
}

bool Analyzer::tests_loop_target(Node cond) const {
  if (loops_.empty()) return false;
  const std::string_view t = view(cond);
  auto word_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_'; };
  for (std::size_t i = 0; i < t.size();) {
    while (i < t.size() && !word_char(t[i])) ++i;
    std::size_t j = i;
    while (j < t.size() && word_char(t[j])) ++j;
    // A name, not an attribute (`row.c`) or a string's word.
    if (j > i && (i == 0 || (t[i - 1] != '.' && t[i - 1] != '"' && t[i - 1] != '\''))) {
      auto target = loop_targets_.find(t.substr(i, j - i));
      if (target != loop_targets_.end() && target->second == loops_.back()) return true;
    }
    i = j;
  }
  return false;
}

bool Analyzer::compares_loop_target_with_literal(Node cond) const {
  cond = unparen(cond);
  if (loops_.empty() || unpacking_loops_.count(loops_.back()) != 0 || !is<"comparison_operator">(cond) ||
      named_count(cond) != 2 || child_count(cond) != 3)
    return false;
  if (view(nth_child(cond, 1)) != "==") return false;
  Node a = nth_named(cond, 0), b = nth_named(cond, 1);
  if (is<"string">(a) || is<"integer">(a)) std::swap(a, b);
  if (!(is<"string">(b) || is<"integer">(b))) return false;
  // The element itself (`c == "x"` over column names), or its name (`col["name"]`, `f.name`).
  if (is<"subscript">(a) && view(field<"subscript">(a)).find("name") != std::string_view::npos)
    a = field<"value">(a);
  else if (is<"attribute">(a) && view(field<"attribute">(a)) == "name")
    a = field<"object">(a);
  if (!is<"identifier">(a)) return false;
  auto target = loop_targets_.find(view(a));
  return target != loop_targets_.end() && target->second == loops_.back();
}
}  // namespace planlint::pyspark::detail
