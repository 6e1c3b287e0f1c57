// What the code says of its names beyond one statement: module-level functions defined again before
// anything uses them (the first definition never runs: a notebook often carries an older copy of a
// helper in an earlier cell, redefined further down before its first call), names for the code's own
// folder (`HERE = os.path.dirname(__file__)`), flags never set (`loaded = False` and nothing else).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pyspark/analyzer_impl.hpp"

namespace planlint::pyspark::detail {

namespace {

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether `name` occurs in `text` as a whole word.
bool mentions(std::string_view text, std::string_view name) {
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool before = at > 0 && word_char(text[at - 1]);
    const bool after = at + name.size() < text.size() && word_char(text[at + name.size()]);
    if (!before && !after) return true;
  }
  return false;
}

// A `def name(` (or `async def name(`) at the start of a line: the name, else empty.
std::string_view defined_name(std::string_view line) {
  if (line.substr(0, 6) == "async ") line.remove_prefix(6);
  if (line.substr(0, 4) != "def ") return {};
  line.remove_prefix(4);
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  std::size_t n = 0;
  while (n < line.size() && word_char(line[n])) ++n;
  return n > 0 && n < line.size() && (line[n] == '(' || line[n] == ' ') ? line.substr(0, n) : std::string_view{};
}

}  // namespace

void Analyzer::find_shadowed_definitions() {
  // Where each module-level def starts and where its body ends (the next line at column 0 that is
  // code), over the Python cells in order; what lies between a def's end and the next def of the
  // same name is searched for the name.
  struct Def {
    int cell;
    std::uint32_t start;     // the `def` keyword's byte in the cell
    std::size_t body_end;    // in `all`, the whole text of the Python cells one after another
    std::size_t line_start;  // in `all`
  };
  std::string all;
  std::map<std::string, std::vector<Def>, std::less<>> defs;
  std::vector<std::pair<std::string, std::size_t>> open;  // defs whose body has not ended yet
  bool decorator = false;                                 // the last line at column 0 was a decorator
  for (const Cell& cell : file_.cells) {
    if (cell.language != CellLanguage::python) continue;
    if (cell.text.find("def ") == std::string::npos) {
      all += cell.text;
      all += '\n';
      continue;
    }
    const std::string_view text = cell.text;
    for (std::size_t at = 0; at < text.size();) {
      std::size_t nl = text.find('\n', at);
      if (nl == std::string_view::npos) nl = text.size();
      const std::string_view line = text.substr(at, nl - at);
      const bool code_at_column_0 = !line.empty() && line.front() != ' ' && line.front() != '\t' &&
                                    line.front() != '#' && line.front() != '\r' && line.front() != ')';
      if (code_at_column_0) {
        for (const auto& [name, index] : open) defs[name][index].body_end = all.size();
        open.clear();
        // A decorated def is used where it is defined (`@dlt.table` registers it, `@udf` wraps it):
        // never shadowed.
        const bool decorated = decorator;
        decorator = line.front() == '@';
        if (const std::string_view name = defined_name(line); !name.empty() && !decorated) {
          const std::size_t keyword = line.find("def ");
          auto& list = defs[std::string(name)];
          list.push_back({cell.number, static_cast<std::uint32_t>(at + keyword), all.size() + line.size(), all.size()});
          open.emplace_back(std::string(name), list.size() - 1);
        }
      }
      all.append(line);
      all += '\n';
      at = nl + 1;
    }
    for (const auto& [name, index] : open) defs[name][index].body_end = all.size();
    open.clear();
  }
  for (const auto& [name, list] : defs)
    for (std::size_t i = 0; i + 1 < list.size(); ++i) {
      const Def& d = list[i];
      const Def& next = list[i + 1];
      if (next.line_start < d.body_end) continue;
      if (!mentions(std::string_view(all).substr(d.body_end, next.line_start - d.body_end), name))
        shadowed_.insert({d.cell, d.start});
    }
}

// What a name holds as the code runs: bind() logs the binding it replaces while a scope or an if
// branch is open, and undo_bindings() puts the log back.
void Analyzer::bind(const std::string& name, const Chain* chain) {
  auto it = bindings_.find(name);
  if (open_scopes_ > 0 || open_branches_ > 0)
    binding_log_.push_back({name, it == bindings_.end() ? std::nullopt : std::optional<const Chain*>(it->second)});
  if (chain == nullptr) {
    if (it != bindings_.end()) bindings_.erase(it);
  } else if (it != bindings_.end()) {
    it->second = chain;
  } else {
    bindings_.emplace(name, chain);
  }
}

void Analyzer::close_scope(std::size_t mark) {
  undo_bindings(mark);
  --open_scopes_;
}

void Analyzer::undo_bindings(std::size_t mark) {
  while (binding_log_.size() > mark) {
    BindingChange& c = binding_log_.back();
    if (c.before)
      bindings_[c.name] = *c.before;
    else
      bindings_.erase(c.name);
    binding_log_.pop_back();
  }
}

bool Analyzer::always_falsy(std::string_view name) {
  // One pass over the file's Python text, the first time a condition asks: for every name bound
  // there, whether each binding is `= False` / `= None` / `= 0` (true) or some binding is anything else.
  if (!falsy_scanned_) {
    falsy_scanned_ = true;
    std::map<std::string, bool, std::less<>> other;  // name -> bound to something else somewhere
    for (const Cell& cell : file_.cells) {
      if (cell.language != CellLanguage::python) continue;
      const std::string_view text = cell.text;
      for (std::size_t at = 0; at < text.size();) {
        if (!word_char(text[at]) || (at > 0 && (word_char(text[at - 1]) || text[at - 1] == '.'))) {
          ++at;
          continue;
        }
        std::size_t end = at;
        while (end < text.size() && word_char(text[end])) ++end;
        const std::string_view token = text.substr(at, end - at);
        const std::size_t start = at;
        at = end;
        std::size_t k = end;
        while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
        const bool assignment = k < text.size() && text[k] == '=' && (k + 1 >= text.size() || text[k + 1] != '=');
        const bool augmented = k + 1 < text.size() && text[k + 1] == '=' &&
                               std::string_view("+-*/|&:%").find(text[k]) != std::string_view::npos;
        const bool listed = k < text.size() && text[k] == ',';  // `a, flag = ...`, or an argument
        // `for flag in`, `as flag`, `import flag`, `def flag`, `global flag`: bound some other way.
        std::size_t b = start;
        while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
        std::size_t w = b;
        while (w > 0 && word_char(text[w - 1])) --w;
        const std::string_view before = text.substr(w, b - w);
        const bool bound_otherwise = before == "for" || before == "as" || before == "import" || before == "def" ||
                                     before == "global" || before == "nonlocal";
        // After a comma: `a, flag = ...` or `f(a, flag=True)`: either way not followed.
        const bool after_comma = b > 0 && text[b - 1] == ',';
        if (augmented || listed || bound_otherwise || (after_comma && assignment)) {
          other[std::string(token)] = true;
          continue;
        }
        if (!assignment || (b > 0 && text[b - 1] == '(')) continue;  // `f(flag=True)`: a keyword argument
        std::size_t v = k + 1;
        while (v < text.size() && (text[v] == ' ' || text[v] == '\t')) ++v;
        const std::string_view value = text.substr(v, 6);
        auto literal = [&](std::string_view word) {
          return value.substr(0, word.size()) == word &&
                 (value.size() == word.size() || !word_char(value[word.size()]));
        };
        const bool falsy = literal("False") || literal("None") || literal("0");
        auto [it, inserted] = other.emplace(std::string(token), !falsy);
        if (!inserted && !falsy) it->second = true;
      }
    }
    for (const auto& [n, bound_else] : other)
      if (!bound_else) falsy_.insert(n);
  }
  return falsy_.count(name) != 0;
}

void Analyzer::note_code_path(const std::string& name, Node right) {
  const std::string_view value = view(right);
  bool path = value.find("__file__") != std::string_view::npos;
  for (auto it = m_.code_paths.begin(); !path && it != m_.code_paths.end(); ++it)
    path = *it != name && mentions(value, *it);
  if (path)
    m_.code_paths.insert(name);
  else if (!m_.code_paths.empty())
    m_.code_paths.erase(name);
}

}  // namespace planlint::pyspark::detail
