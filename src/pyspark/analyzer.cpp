// Builds the SourceModel from tree-sitter-python trees, one cell at a time: imports, call chains,
// bindings across statements (and cells), UDF definitions, Spark configuration settings, comments.
#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "pyspark/analyzer_impl.hpp"
#include "pyspark/model.hpp"
#include "pyspark/notebook.hpp"
#include "pyspark/project.hpp"
#include "pyspark/python_parser.hpp"
#include "pyspark/sql_settings.hpp"
#include "pyspark/syntax_access.hpp"

namespace planlint::pyspark {
namespace detail {
namespace {

// The types visit() does something of its own for; every other node is only walked through
// (most nodes: one bit test, where the comparisons in visit() were a dozen).
const TypeSet kOwnHandling{"comment",
                           "import_statement",
                           "import_from_statement",
                           "expression_statement",
                           "return_statement",
                           "if_statement",
                           "with_statement",
                           "comparison_operator",
                           "elif_clause",
                           "decorated_definition",
                           "assignment",
                           "call",
                           "attribute",
                           "for_statement",
                           "while_statement",
                           "function_definition",
                           "class_definition",
                           "except_clause",
                           "assert_statement"};

// A template's placeholder in a cell that does not parse: `<FILL-IN>`, `<FILL_IN>`, `<YOUR CODE HERE>`,
// `<TODO>`. Upper-case words in angle brackets, outside a string or a comment, are never Python (a
// lower-case `<path>` in code is not taken for one). tree-sitter places the error where the broken
// statement starts, often lines before the placeholder, so the whole cell is looked at.
std::optional<std::string> template_placeholder(std::string_view text) {
  for (std::size_t at = text.find('<'); at != std::string_view::npos; at = text.find('<', at + 1)) {
    std::size_t line_start = text.rfind('\n', at);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    if (text.substr(line_start, at - line_start).find_first_of("\"'#") != std::string_view::npos) continue;
    std::size_t i = at + 1;
    int upper = 0;
    while (i < text.size() && i - at <= 40 &&
           ((text[i] >= 'A' && text[i] <= 'Z') || text[i] == '_' || text[i] == '-' || text[i] == ' ')) {
      upper += text[i] >= 'A' && text[i] <= 'Z' ? 1 : 0;
      ++i;
    }
    if (i < text.size() && text[i] == '>' && upper >= 3 && text[at + 1] != ' ')
      return std::string(text.substr(at, i + 1 - at));
  }
  // `<<your_project_name>>` (double angle brackets, any case) and `[ENTER MODEL NAME HERE]` (upper-case
  // words with spaces in square brackets: never a Python list).
  for (const auto& [open, close, any_case] :
       {std::tuple<std::string_view, std::string_view, bool>{"<<", ">>", true}, {"[", "]", false}}) {
    for (std::size_t at = text.find(open); at != std::string_view::npos; at = text.find(open, at + 1)) {
      std::size_t line_start = text.rfind('\n', at);
      line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
      if (text.substr(line_start, at - line_start).find_first_of("\"'#") != std::string_view::npos) continue;
      std::size_t i = at + open.size();
      int letters = 0, spaces = 0;
      while (i < text.size() && i - at <= 48) {
        const char c = text[i];
        const bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
        if (!(upper || (any_case && (lower || (c >= '0' && c <= '9'))) || c == '_' || c == '-' || c == ' ')) break;
        letters += upper || lower ? 1 : 0;
        spaces += c == ' ' ? 1 : 0;
        ++i;
      }
      if (text.substr(i, close.size()) == close && letters >= 3 && (any_case || spaces >= 1) &&
          text[at + open.size()] != ' ')
        return std::string(text.substr(at, i + close.size() - at));
    }
  }
  return std::nullopt;
}

// A format spec that starts with '=' (`f"{title:=^80}"`: centred, padded with '='): Python reads the
// first top-level ':' of a replacement field as the start of its spec, and an assignment expression
// there must be in parentheses; tree-sitter-python takes the `:=` for one and fails. The copy has the
// '=' of every such spec replaced by a space (a fill Python accepts too), byte for byte in place, or
// nothing when the text has none.
std::optional<std::string> without_equals_fill(std::string_view text) {
  std::optional<std::string> out;
  for (std::size_t at = text.find(":="); at != std::string_view::npos; at = text.find(":=", at + 2)) {
    // Back along the line to the '{' that opens the field: nothing open in between.
    int depth = 0;
    std::size_t i = at;
    bool open = false;
    while (i > 0 && text[i - 1] != '\n') {
      const char c = text[--i];
      if (c == ')' || c == ']' || c == '}') ++depth;
      if (c == '(' || c == '[') {
        if (depth == 0) break;
        --depth;
      }
      if (c == '{') {
        if (depth == 0) {
          open = true;
          break;
        }
        --depth;
      }
    }
    if (!open) continue;
    // ... in an f-string: an f (or rf, fr) prefix right before a quote earlier on the line.
    bool fstring = false;
    for (std::size_t q = i; q > 0 && text[q - 1] != '\n' && !fstring; --q) {
      const char c = text[q - 1];
      if ((c == '"' || c == '\'') && q >= 2 && (text[q - 2] == 'f' || text[q - 2] == 'F')) fstring = true;
    }
    if (!fstring) continue;
    if (!out) out = std::string(text);
    (*out)[at + 1] = ' ';
  }
  return out;
}

// The value's pipeline (its links and those of the values it was made from, through the names it
// was bound from) has a link that shuffles / caches.
template <typename Pred>
bool pipeline_has(const Chain& c, Pred&& pred) {
  const Chain* p = &c;
  for (int i = 0; i < 64 && p != nullptr; ++i, p = p->bound)
    for (const auto& l : p->links)
      if (pred(l)) return true;
  return false;
}
bool pipeline_shuffles(const Chain& c) {
  return pipeline_has(c, [](const Link& l) { return l.is_call && plans_shuffle(l.name.view()); });
}
bool pipeline_caches(const Chain& c) { return pipeline_has(c, caches_link); }
bool derives_from(const Chain& c, const Chain* base) {
  const Chain* p = &c;
  for (int i = 0; i < 64 && p != nullptr; ++i, p = p->bound)
    if (p == base) return true;
  return false;
}

// Whether a cell's text names something of Spark: the session, a read or write, SQL, DataFrame
// methods that run or shape a query, UDFs, RDDs, display(). Comments and strings do not count (`# if
// you use spark`, a path), nor "spark" inside a word (`spark3`, a shell command's argument): the
// session as a name (`spark.`, `spark)`), `spark_df`, `pyspark`, `SparkSession` do.
bool mentions_spark(std::string_view text) {
  static constexpr std::string_view kWords[] = {"spark.",     "spark,",
                                                "spark)",     "spark_",
                                                "_spark",     "pyspark",
                                                "Spark",      ".read",
                                                ".write",     "sql(",
                                                "withColumn", "groupBy",
                                                "groupby(",   "join(",
                                                "select(",    "filter(",
                                                "toPandas",   "collect(",
                                                ".rdd",       "udf",
                                                "DataFrame",  "display(",
                                                "sc.",        "agg(",
                                                "orderBy(",   "createOrReplaceTempView"};
  // The code without comments and string literals (a path `".../Spark/..."` is data): a '#' outside
  // quotes to the end of its line, and what is between quotes (an unclosed one ends with its line: a
  // shell command's apostrophe, a broken literal).
  std::string code;
  code.reserve(text.size());
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      quote = 0;
      code += c;
    } else if (quote != 0) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      quote = c;
      code += ' ';
    } else {
      code += c;
    }
  }
  return std::any_of(std::begin(kWords), std::end(kWords),
                     [&](std::string_view w) { return code.find(w) != std::string::npos; });
}

}  // namespace

void Analyzer::run() {
  // One parser per thread for every file: a new one per file started with empty stacks and
  // pools, grown again by each file's first parse.
  thread_local PythonParser parser;
  load_imports();
  find_shadowed_definitions();
  for (const Cell& cell : file_.cells) {
    cell_ = &cell;
    if (cell.language == CellLanguage::sql) {
      for (auto& s : sql_set_statements(cell.text)) {
        ConfSetting c;
        c.key = s.key;
        c.value = s.value;
        c.literal = true;
        c.pos = pos_of_bytes(s.begin, s.end);
        c.value_pos = pos_of_bytes(s.value_begin, s.value_end);
        c.cell = cell.number;
        c.via = "SQL SET";
        m_.settings.push_back(std::move(c));
      }
      continue;
    }
    if (cell.language == CellLanguage::scala) {
      for (auto& s : scala_settings(cell.text)) {
        ConfSetting c;
        c.key = s.key;
        c.value = s.value;
        c.literal = s.literal;
        c.pos = pos_of_bytes(s.begin, s.end);
        c.value_pos = pos_of_bytes(s.value_begin, s.value_end);
        c.cell = cell.number;
        c.via = s.via + " (Scala)";
        m_.settings.push_back(std::move(c));
      }
      continue;
    }
    if (cell.language != CellLanguage::python) continue;
    src_ = cell.text;
    // A large cell (a whole .py file) is parsed a run of top-level statements at a time: its
    // syntax tree, about 75 times the text, is then never held for more than one run.
    for (const SourceRange& range : top_level_ranges(cell.text, chunk_bytes_, chunk_limit_)) {
      auto tree = parser.parse(cell.text, range);
      if (!tree) break;
      if (tree->first_error()) {
        // Parsed again with `{x:=^80}` specs read as specs: same bytes, same offsets.
        if (auto copy = without_equals_fill(cell.text)) {
          auto again = parser.parse(*copy, range);
          if (again && !again->first_error()) tree = std::move(again);
        }
      }
      run_ = std::string_view(cell.text).substr(range.begin, range.end - range.begin);
      // A syntax error ends the cell's analysis there, as a Python 2 statement does.
      if (auto err = tree->first_error()) {
        // Advice where nothing is broken or hidden: an exercise template (`df = <FILL-IN>`) does not
        // parse until someone fills it in; a notebook's scratch cell (`df.`, a note) that calls
        // nothing of Spark hides nothing, and the notebook runs its other cells. A script that does
        // not parse fails.
        SyntaxProblem problem{cell.number, Place{err->line, err->column, err->line, err->column + 1}, err->message};
        if (auto placeholder = template_placeholder(cell.text)) {
          problem.message = "invalid Python syntax at a template placeholder (`" + *placeholder +
                            "`): the cell is unfinished on purpose and is not analysed";
          problem.advisory = true;
        } else if (file_.kind != SourceKind::python && !mentions_spark(cell.text)) {
          problem.message += " (a notebook cell that calls nothing of Spark: not analysed)";
          problem.advisory = true;
        }
        m_.syntax_errors.push_back(std::move(problem));
        break;
      }
      // The analysis reads planlint's copy of the tree; tree-sitter's is freed before it starts.
      // Node handles of the previous run are invalid from here.
      tree_.build(tree->get());
      tree.reset();
      Node root = tree_.root();
      if (auto py2 = find_python2()) {
        m_.syntax_errors.push_back(
            {cell.number, m_.place(cell.number, *py2),
             "Python 2 syntax (a print or exec statement, a `backquoted` repr): this code is not analysed (planlint "
             "reads Python 3)",
             true});
        break;
      }
      // The module statement by statement (as visit(root) would).
      for (Node c : all_children(root)) {
        if (is_named(c) || is<"comment">(c)) visit(c, 1);
        // Chains are found again by their bytes within one statement only. Kept longer, a chain
        // at the same bytes of a later cell would be taken for this one.
        built_.clear();
        noted_.clear();  // only this statement's chains can be noted again
      }
    }
  }
}

void Analyzer::handle_assignment(Node n, int depth) {
  Node left = field<"left">(n);
  Node right = field<"right">(n);
  if (is_null(right)) return;
  // x = (df.cache()), black style: the parentheses change nothing.
  right = unparen(right);
  const Chain* chain = nullptr;
  if (is<"call">(right) || is<"attribute">(right)) chain = build_chain(right, depth + 1);
  visit_children_of_chain(right, depth + 1);
  if (is<"identifier">(left)) {
    std::string name = text(left);
    note_constant(name, right, depth);
    note_code_path(name, right);
    if (is<"integer">(right)) try {
        integers_.insert_or_assign(name,
                                   std::make_pair(std::stoll(text(right), nullptr, 0),
                                                  functions_.empty() ? std::string() : std::string(functions_.back())));
      } catch (...) {
        integers_.erase(name);
      }
    else
      integers_.erase(name);
    // `udf = F.udf`, `Window = pyspark.sql.Window`: a name for one of PySpark's, as an import makes.
    if (is<"attribute">(right) && open_scopes_ == 0)
      if (const std::string q = m_.qualify(text(right)); q.starts_with("pyspark.")) m_.set_import(name, q);
    // `query = f"SELECT ..."` then `spark.sql(query)`: the text a name holds, for what reads it.
    if (is<"string">(right) || is<"concatenated_string">(right))
      texts_.insert_or_assign(name, std::make_pair(cell_->number, make_expr(right, depth + 1)));
    else
      texts_.erase(name);
    if (is<"list">(right) || is<"list_comprehension">(right))
      lists_.insert_or_assign(name, std::make_pair(cell_->number, make_expr(right, depth + 1)));
    else
      lists_.erase(name);
    if (chain != nullptr) {
      const_cast<Chain*>(chain)->assigned_to = m_.keep_name(view(left));
      bind(name, chain);
      note_udf_binding(name, *chain);
    } else if (is<"identifier">(right) && bindings_.count(text(right)) != 0) {
      bind(name, bindings_.at(text(right)));
    } else {
      bind(name, nullptr);
      // `acc = new if acc is None else acc.union(new)`: each branch's chain is what `name` may hold.
      if (is<"conditional_expression">(right) && named_count(right) == 3)
        for (std::uint32_t i : {0U, 2U}) {
          Node branch = unparen(nth_named(right, i));
          if (is<"call">(branch) || is<"attribute">(branch))
            if (const Chain* c = build_chain(branch, depth + 1))
              const_cast<Chain*>(c)->assigned_to = m_.keep_name(view(left));
        }
    }
  } else if (is<"pattern_list">(unparen(left)) || is<"tuple_pattern">(unparen(left)) ||
             is<"list_pattern">(unparen(left))) {
    // `train, test = df.randomSplit([0.8, 0.2])`: each name holds one split, each computed from the
    // lineage of df again. (Other unpacked values are not followed: the names hold what is unknown.)
    const bool splits = chain != nullptr && !chain->links.empty() && chain->links.back().is_call &&
                        chain->links.back().name == "randomSplit";
    for (Node target : named_children(unparen(left)))
      if (is<"identifier">(target)) {
        // What the name held before (a constant, a literal collection) is gone.
        const std::string name = text(target);
        assigned_.insert(name);
        constants_.erase(name);
        bound_to_unknown(name);
        bind(name, splits ? chain : nullptr);
      }
  } else if (is<"attribute">(left) && text(field<"object">(left)) == "self") {
    std::string name = "self." + text(field<"attribute">(left));
    note_constant(name, right, depth);  // `self.COLUMNS = [...]` in __init__: a collection the code shows
    if (chain != nullptr) {
      const_cast<Chain*>(chain)->assigned_to = m_.keep_name(name);
      self_bindings_[name] = chain;
    } else {
      self_bindings_.erase(name);
    }
  }
}

void Analyzer::visit_children_of_chain(Node n, int depth) {
  // Inside a chain, only argument lists (and lambdas in them) can hold further statements of interest.
  if (depth > kMaxDepth || is_null(n)) return;
  if (is<"call">(n) || is<"attribute">(n)) {
    const Chain* c = build_chain(n, depth + 1);
    if (noted_.insert(c, true)) {
      first_lambda_ = root_lambda(n);
      note_udf_call(*c);
      note_setting(*c);
    }
    Node cur = n;
    while (is<"call">(cur) || is<"attribute">(cur) || is<"parenthesized_expression">(cur)) {
      if (is<"call">(cur)) {
        Node args = field<"arguments">(cur);
        for (Node child : named_children(args)) visit(child, depth + 1);
        cur = field<"function">(cur);
        // `F.udf(lambda: ...)()`, `udf(f)(col)`: a call made and called at once; the inner call is
        // a chain of its own (a UDF made here).
        if (is<"call">(cur))
          if (const Chain* inner = build_chain(cur, depth + 1); inner != nullptr && noted_.insert(inner, true)) {
            first_lambda_ = root_lambda(cur);
            note_udf_call(*inner);
          }
      } else if (is<"attribute">(cur)) {
        cur = field<"object">(cur);
      } else {
        cur = nth_named(cur, 0);
      }
    }
    if (!is<"identifier">(cur)) visit(cur, depth + 1);
    return;
  }
  visit(n, depth);
}

void Analyzer::note_loop_targets(Node target, int depth) {
  if (depth > kMaxDepth || is_null(target)) return;
  if (is<"identifier">(target)) {
    loop_targets_[text(target)] = loops_.back();
    bind(text(target), nullptr);
    return;
  }
  for (Node child : named_children(target)) note_loop_targets(child, depth + 1);
}

void Analyzer::visit(Node n, int depth) {
  if (too_deep(n, depth) || is_null(n)) return;
  if (!kOwnHandling.contains(n)) {
    for (Node c : all_children(n))
      if (is_named(c) || is<"comment">(c)) visit(c, depth + 1);
    return;
  }
  const TypeName t{node_type(n)};
  if (t == "comment") {
    m_.comments.push_back({pos_of(n), view(n), cell_->number});
    return;
  }
  if (t == "import_statement") return handle_import(n);
  if (t == "import_from_statement") return handle_import_from(n);
  if (t == "expression_statement" || t == "return_statement" || t == "if_statement" || t == "with_statement")
    ++statement_;
  if (t == "comparison_operator") note_comparison(n, depth);
  if (t == "if_statement" || t == "elif_clause") note_truth_test(field<"condition">(n), depth);
  if (t == "expression_statement" && named_count(n) == 1 && is<"call">(nth_named(n, 0))) {
    note_whole_statement(n, depth);
    note_collection_growth(nth_named(n, 0));
  }
  if (t == "decorated_definition") return handle_decorated(n, depth);
  if (t == "assignment") return handle_assignment(n, depth);
  if (t == "call" || t == "attribute") return visit_children_of_chain(n, depth);
  if (t == "if_statement") {
    visit(field<"condition">(n), depth + 1);
    int id = ++next_if_;
    branches_.emplace_back(id, 0);
    branches_changed_ = true;
    const int raises = ends_in_raise(field<"consequence">(n)) ? 1 : 0;
    const int once = compares_loop_target_with_literal(field<"condition">(n)) ? 1 : 0;
    const int local = selects_local_or_test(field<"condition">(n)) ? 1 : 0;
    // `if c not in df.columns:` in `for c in cols:`: each branch runs on the turns the test picks.
    // (Without an `else`: with one, a branch runs on every turn.)
    bool has_else = false;
    for (Node c : all_children(n)) has_else = has_else || is<"else_clause">(c);
    const int some = !has_else && tests_loop_target(field<"condition">(n)) ? 1 : 0;
    some_turns_ += some;
    error_path_ += raises;
    once_per_loop_ += once;
    local_branch_ += local;
    // `if False:` / `if 0:` / `if None:`: the body never runs (code switched off), so it is not analysed.
    const Node condition = unparen(field<"condition">(n));
    // Also `if flag:` of a flag every binding of which is False (set nowhere to anything else).
    const bool never = is<"false">(condition) || is<"none">(condition) ||
                       (is<"integer">(condition) && view(condition) == "0") ||
                       (is<"identifier">(condition) && always_falsy(view(condition)));
    // Each branch starts from the names' bindings before the if (what the `if` body binds is not what
    // its `else` reads); after the if, a name holds what the last branch that bound it bound.
    ++open_branches_;
    std::size_t mark = binding_log_.size();
    std::vector<std::pair<std::string, const Chain*>> merged;
    auto end_branch = [&] {
      for (std::size_t i = mark; i < binding_log_.size(); ++i) {
        const std::string& name = binding_log_[i].name;
        auto now = bindings_.find(name);
        merged.emplace_back(name, now == bindings_.end() ? nullptr : now->second);
      }
      undo_bindings(mark);
      mark = binding_log_.size();
    };
    if (!never) visit(field<"consequence">(n), depth + 1);
    end_branch();
    error_path_ -= raises;
    once_per_loop_ -= once;
    local_branch_ -= local;
    branches_.pop_back();
    branches_changed_ = true;
    int branch = 1;
    for (Node c : all_children(n)) {
      if (is<"comment">(c)) {
        visit(c, depth + 1);
        continue;
      }
      if (!is<"elif_clause">(c) && !is<"else_clause">(c)) continue;
      branches_.emplace_back(id, branch++);
      branches_changed_ = true;
      const int clause_raises =
          ends_in_raise(is<"elif_clause">(c) ? field<"consequence">(c) : field<"body">(c)) ? 1 : 0;
      const int clause_local = is<"elif_clause">(c) && selects_local_or_test(field<"condition">(c)) ? 1 : 0;
      error_path_ += clause_raises;
      local_branch_ += clause_local;
      visit(c, depth + 1);
      end_branch();
      error_path_ -= clause_raises;
      local_branch_ -= clause_local;
      branches_.pop_back();
      branches_changed_ = true;
    }
    --open_branches_;
    some_turns_ -= some;
    // A name bound in several branches holds one of their values after the if, which the code does
    // not say. Of two that both extend what the name held before (a join in the `if` body, a plain
    // column in the `else`), the one that shuffles, as what a use of the name may recompute (its cost
    // is what the rules ask); else the last branch's. A cached value stays what it is.
    if (merged.empty()) return;
    std::map<std::string, const Chain*, std::less<>> last, shuffling;
    for (const auto& [name, chain] : merged) {
      last[name] = chain;
      if (chain != nullptr && pipeline_shuffles(*chain)) shuffling[name] = chain;
    }
    for (auto& [name, chain] : last) {
      auto s = shuffling.find(name);
      auto before = bindings_.find(name);  // what the name held before the if (the branches are undone)
      if (s != shuffling.end() && chain != nullptr && before != bindings_.end() && before->second != nullptr &&
          derives_from(*chain, before->second) && derives_from(*s->second, before->second) &&
          !pipeline_shuffles(*chain) && !pipeline_caches(*chain))
        chain = s->second;
    }
    for (const auto& [name, chain] : merged) bind(name, last.at(name));
    return;
  }
  // assert cond, message: the message is built only when the check fails.
  if (t == "assert_statement") {
    ++statement_;
    int part = 0;
    for (Node c : all_children(n)) {
      if (!is_named(c) && !is<"comment">(c)) continue;
      const int message = part++ > 0 && !is_extra(c) ? 1 : 0;
      error_path_ += message;
      visit(c, depth + 1);
      error_path_ -= message;
    }
    return;
  }
  if (t == "except_clause") {
    ++error_path_;
    for (Node c : all_children(n))
      if (is_named(c) || is<"comment">(c)) visit(c, depth + 1);
    --error_path_;
    return;
  }
  if (t == "for_statement" || t == "while_statement") {
    ++statement_;
    if (t == "while_statement") note_truth_test(field<"condition">(n), depth);
    visit_children_of_chain(t == "for_statement" ? field<"right">(n) : field<"condition">(n), depth + 1);
    ++loop_depth_;
    loops_.push_back(++next_loop_);
    Loop& loop = m_.loops.emplace_back();
    loop.parent = loops_.size() >= 2 ? loops_[loops_.size() - 2] : 0;
    loop.pos = pos_of(nth_child(n, 0));
    loop.cell = cell_->number;
    if (t == "while_statement") loop.known_turns = counted_while_turns(n);
    if (t == "for_statement") {
      loop.known_turns = spelled_out_turns(field<"right">(n));
      // for c in columns: where `columns` is a parameter, the callers decide (resolve_param_loops).
      if (Node right = walked_collection(field<"right">(n));
          loop.known_turns < 0 && is<"identifier">(right) && !functions_.empty())
        param_loops_.push_back({m_.loops.size() - 1, std::string(functions_.back()), text(right)});
      // for c in df.columns / df.schema.fields / df.dtypes: one turn per column of a DataFrame.
      const std::string_view over = view(field<"right">(n));
      loop.over_columns = over.find(".columns") != std::string_view::npos ||
                          over.find(".schema") != std::string_view::npos ||
                          over.find(".dtypes") != std::string_view::npos;
      // `[c for c in df.columns if c.startswith("out_")]`: the columns a condition picks, as many
      // as the data has, which the code does not show.
      if (Node right = field<"right">(n);
          is<"list_comprehension">(right) || is<"generator_expression">(right) || is<"set_comprehension">(right))
        for (Node part : named_children(right))
          if (is<"if_clause">(part)) loop.over_columns = false;
    }
    auto saved_targets = loop_targets_;
    if (t == "for_statement") note_loop_targets(field<"left">(n), depth + 1);
    if (t == "for_statement" && !is<"identifier">(field<"left">(n))) unpacking_loops_.insert(loops_.back());
    visit(field<"body">(n), depth + 1);
    loop_targets_ = std::move(saved_targets);
    loops_.pop_back();
    --loop_depth_;
    visit(field<"alternative">(n), depth + 1);
    return;
  }
  if (t == "return_statement") {
    Node value = named_count(n) > 0 ? nth_named(n, 0) : Node{};
    value = unparen(value);
    if (!functions_.empty()) {
      const Chain* r = nullptr;
      if (is<"call">(value) || is<"attribute">(value)) r = build_chain(value, depth + 1);
      if (is<"identifier">(value))
        if (auto it = bindings_.find(text(value)); it != bindings_.end()) r = it->second;
      if (r != nullptr) m_.add_function(functions_.back()).returns.push_back(r);
    }
    visit_children_of_chain(value, depth + 1);
    return;
  }
  if (t == "function_definition") {
    if (shadowed(n)) return;  // defined again before anything names it: never runs
    // A function body runs later and elsewhere: its bindings do not leak out.
    std::size_t saved = open_scope();
    auto saved_targets = loop_targets_;
    loop_targets_.clear();
    auto saved_texts = std::move(texts_);  // a function's names are its own (or its parameters)
    texts_.clear();
    auto saved_lists = std::move(lists_);
    lists_.clear();
    note_function(n);
    // A parameter hides the module's binding of its name: `def check(df)` reads the caller's df.
    functions_.push_back(m_.keep_name(view(field<"name">(n))));
    const std::size_t literals = literal_log_.size();
    if (const FunctionInfo* f = m_.function(functions_.back()); f != nullptr)
      for (const std::string& p : f->params) {
        bind(p, nullptr);
        // Nor does a collection of that name bound elsewhere say how many items the parameter holds.
        bound_to_unknown(p);
      }
    visit(field<"body">(n), depth + 1);
    forget_literals(literals);  // the function's collections are its own
    functions_.pop_back();
    texts_ = std::move(saved_texts);
    lists_ = std::move(saved_lists);
    loop_targets_ = std::move(saved_targets);
    close_scope(saved);
    return;
  }
  if (t == "class_definition") {
    std::size_t saved = open_scope();
    auto saved_self = std::move(self_bindings_);
    self_bindings_.clear();
    classes_.emplace_back(text(field<"name">(n)), functions_.size());
    visit(field<"body">(n), depth + 1);
    classes_.pop_back();
    self_bindings_ = std::move(saved_self);
    close_scope(saved);
    return;
  }
  for (Node c : all_children(n)) {
    if (is_named(c) || is<"comment">(c)) visit(c, depth + 1);
  }
}

}  // namespace detail

SourceModel analyze_source(const SourceFile& file, std::size_t chunk_bytes) {
  SourceModel m;
  m.file = &file;
  // `from pyspark.sql import functions as F` and friends resolve through the import table; the
  // conventional names also work in notebooks where the import sits in a %run-included cell.
  detail::Analyzer analyzer(file, m, chunk_bytes);
  analyzer.run();
  analyzer.resolve_functions();
  analyzer.resolve_param_loops();
  index_temp_views(m);
  index_calls(m);
  return m;
}

}  // namespace planlint::pyspark
