// The fix invariants of issue 41, checked on text: a tokenizer for logical statements, a line diff
// (longest common subsequence) of the statements before and after, and one check per invariant.
#include "fix_invariants.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "pyspark/notebook.hpp"

namespace planlint::test {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; }

std::string trimmed(std::string s) {
  while (!s.empty() && is_space(s.back())) s.pop_back();
  std::size_t first = 0;
  while (first < s.size() && is_space(s[first])) ++first;
  return s.substr(first);
}

const std::set<std::string, std::less<>> kCompound{"if",  "elif",   "else",    "for", "while", "with",
                                                   "try", "except", "finally", "def", "class", "async"};

// `if x: return y` is two statements: the header, and the body one level deeper.
void split_compound(std::vector<PyStatement>& out) {
  std::vector<PyStatement> split;
  for (auto& s : out) {
    std::size_t word_end = 0;
    while (word_end < s.bare.size() && (std::isalnum(static_cast<unsigned char>(s.bare[word_end])) != 0)) ++word_end;
    if (kCompound.count(std::string_view(s.bare).substr(0, word_end)) == 0) {
      split.push_back(std::move(s));
      continue;
    }
    int depth = 0;
    std::size_t colon = std::string::npos;
    for (std::size_t i = 0; i < s.bare.size() && colon == std::string::npos; ++i) {
      char c = s.bare[i];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') depth = std::max(0, depth - 1);
      if (c == ':' && depth == 0 && (i + 1 >= s.bare.size() || s.bare[i + 1] != '=')) colon = i;
    }
    std::string body = colon == std::string::npos ? "" : trimmed(s.bare.substr(colon + 1));
    if (body.empty()) {
      split.push_back(std::move(s));
      continue;
    }
    // The code's colon is at another offset when a string literal comes before it: split it at its
    // own first colon at depth 0 outside strings, which is the same colon.
    PyStatement head = s, tail = s;
    head.bare = s.bare.substr(0, colon + 1);
    tail.bare = body;
    tail.indent = s.indent + 1;
    std::size_t code_colon = s.code.size();
    depth = 0;
    char quote = 0;
    for (std::size_t i = 0; i < s.code.size(); ++i) {
      char c = s.code[i];
      if (quote != 0) {
        if (c == '\\')
          ++i;
        else if (c == quote)
          quote = 0;
        continue;
      }
      if (c == '"' || c == '\'') quote = c;
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') depth = std::max(0, depth - 1);
      if (c == ':' && depth == 0 && (i + 1 >= s.code.size() || s.code[i + 1] != '=')) {
        code_colon = i;
        break;
      }
    }
    head.code = s.code.substr(0, std::min(code_colon + 1, s.code.size()));
    tail.code = code_colon < s.code.size() ? trimmed(s.code.substr(code_colon + 1)) : body;
    split.push_back(std::move(head));
    split.push_back(std::move(tail));
  }
  out = std::move(split);
}

}  // namespace

std::vector<PyStatement> python_statements(std::string_view src) {
  std::vector<PyStatement> out;
  PyStatement cur;
  bool started = false;
  int depth = 0;
  std::size_t line = 1;
  auto finish = [&] {
    cur.code = trimmed(cur.code);
    cur.bare = trimmed(cur.bare);
    if (!cur.code.empty()) out.push_back(cur);
    cur = PyStatement{};
    started = false;
    depth = 0;
  };
  std::size_t i = 0;
  const std::size_t n = src.size();
  while (i < n) {
    if (!started) {
      std::size_t j = i, indent = 0;
      while (j < n && is_space(src[j])) indent += src[j++] == '\t' ? 8 : 1;
      if (j >= n) break;
      if (src[j] == '\n') {
        i = j + 1;
        ++line;
        continue;
      }
      if (src[j] == '#') {
        while (j < n && src[j] != '\n') ++j;
        i = j;
        continue;
      }
      started = true;
      cur.line = line;
      cur.indent = indent;
      i = j;
      continue;
    }
    char c = src[i];
    if (c == '#') {
      while (i < n && src[i] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      bool triple = i + 2 < n && src[i + 1] == c && src[i + 2] == c;
      std::size_t end = i + (triple ? 3 : 1);
      while (end < n) {
        if (src[end] == '\\') {
          end += 2;
          continue;
        }
        if (triple ? src.substr(end, 3) == std::string(3, c) : src[end] == c) break;
        if (!triple && src[end] == '\n') break;  // an unterminated literal ends with its line
        ++end;
      }
      end = std::min(n, end + (end < n && src[end] != '\n' ? (triple ? 3 : 1) : 0));
      std::string_view literal = src.substr(i, end - i);
      line += static_cast<std::size_t>(std::count(literal.begin(), literal.end(), '\n'));
      cur.code += literal;
      cur.bare += "\"\"";
      i = end;
      continue;
    }
    if (c == '\\' && i + 1 < n && (src[i + 1] == '\n' || src[i + 1] == '\r')) {
      i = src.find('\n', i) + 1;
      ++line;
      cur.code += ' ';
      cur.bare += ' ';
      continue;
    }
    if (c == '\n') {
      ++line;
      ++i;
      if (depth > 0) {  // one space where the lines join, none after an opening bracket
        while (i < n && is_space(src[i])) ++i;
        for (std::string* t : {&cur.code, &cur.bare}) {
          while (!t->empty() && is_space(t->back())) t->pop_back();
          if (!t->empty() && t->back() != '(' && t->back() != '[' && t->back() != '{') *t += ' ';
        }
        continue;
      }
      finish();
      continue;
    }
    if (c == ';' && depth == 0) {
      std::size_t indent = cur.indent;
      finish();
      ++i;
      while (i < n && is_space(src[i])) ++i;
      if (i < n && src[i] != '\n' && src[i] != '#') {
        started = true;
        cur.line = line;
        cur.indent = indent;
      }
      continue;
    }
    if (c == '\r') {
      ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') depth = std::max(0, depth - 1);
    cur.code += c;
    cur.bare += c;
    ++i;
  }
  finish();
  split_compound(out);
  return out;
}

std::string python_code_of(const std::string& path, const std::string& raw) {
  pyspark::SourceFile file = pyspark::load_source(path, raw);
  std::string out;
  for (const auto& cell : file.cells) {
    if (cell.language != pyspark::CellLanguage::python) continue;
    out += cell.text;
    if (!out.empty() && out.back() != '\n') out += '\n';
  }
  return out;
}

namespace {

using Statements = std::vector<PyStatement>;

// Statements changed by the fixes: the ones of `before` and of `after` between two that are equal.
struct Hunk {
  std::vector<std::size_t> removed;  // indices in before
  std::vector<std::size_t> added;    // indices in after
};

std::string key(const PyStatement& s) { return std::to_string(s.indent) + '\x01' + s.code; }

std::vector<Hunk> diff(const Statements& a, const Statements& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = key(a[i]) == key(b[j]) ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<Hunk> out;
  Hunk cur;
  auto flush = [&] {
    if (!cur.removed.empty() || !cur.added.empty()) out.push_back(cur);
    cur = Hunk{};
  };
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && key(a[i]) == key(b[j])) {
      flush();
      ++i, ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      cur.added.push_back(j++);
    } else {
      cur.removed.push_back(i++);
    }
  }
  flush();
  return out;
}

int count_of(const std::string& text, const std::regex& re) {
  return static_cast<int>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

const std::regex kCacheCall(R"(\.(cache|persist)\()");
const std::regex kSinglePartition(R"(\.(coalesce|repartition)\(\s*1\s*\))");
const std::regex kAssigned(R"(^([A-Za-z_]\w*)\s*(:[^=]*)?=[^=])");
const std::regex kRootName(R"(^([A-Za-z_]\w*)\s*\.)");
const std::regex kUnpersist(R"(^([A-Za-z_]\w*)\.unpersist\()");

std::string first_group(const std::string& text, const std::regex& re) {
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : std::string();
}

// The name a statement binds (`x = ...`), or the name it starts with (`x.cache()`).
std::string target_of(const PyStatement& s) {
  std::string name = first_group(s.bare, kAssigned);
  return name.empty() ? first_group(s.bare, kRootName) : name;
}

std::string word(const std::string& name) { return "\\b" + name + "\\b"; }

bool header(const PyStatement& s, std::string_view keyword) {
  return s.bare.rfind(keyword, 0) == 0 && s.bare.size() > keyword.size() &&
         (s.bare[keyword.size()] == ' ' || s.bare[keyword.size()] == '(' || s.bare[keyword.size()] == ':');
}
bool def_header(const PyStatement& s) { return header(s, "def") || header(s, "async def") || header(s, "class"); }

std::string def_name(const PyStatement& s) {
  return first_group(s.bare, std::regex(R"(^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*))"));
}

// The end of the block statement `at` is in: the first later statement indented less.
std::size_t block_end(const Statements& s, std::size_t at) {
  std::size_t e = at + 1;
  while (e < s.size() && s[e].indent >= s[at].indent) ++e;
  return e;
}

// The end of the body of the compound statement whose header is `h`: the first later statement
// indented no more than the header.
std::size_t body_end(const Statements& s, std::size_t h) {
  std::size_t e = h + 1;
  while (e < s.size() && s[e].indent > s[h].indent) ++e;
  return e;
}

// Statements in [from, to) that are not inside a def or class nested there.
template <class F>
void for_each_in_scope(const Statements& s, std::size_t from, std::size_t to, F&& f) {
  for (std::size_t k = from; k < to && k < s.size(); ++k) {
    f(k);
    if (def_header(s[k])) k = body_end(s, k) - 1;
  }
}

// The def headers around statement `at`, innermost first.
std::vector<std::size_t> enclosing_defs(const Statements& s, std::size_t at) {
  std::vector<std::size_t> out;
  std::size_t indent = s[at].indent;
  for (std::size_t k = at; k-- > 0 && indent > 0;) {
    if (s[k].indent >= indent) continue;
    indent = s[k].indent;
    if (def_header(s[k])) out.push_back(k);
  }
  return out;
}

// Whether statement `st` binds `name` again.
bool rebinds(const PyStatement& st, const std::string& name) {
  const std::string& b = st.bare;
  const std::string n = word(name);
  // `a, b = ...`, `(a, b) = ...`: a flat list of names (a call's keyword argument is not one).
  static const std::regex kTuple(R"(^\(?\s*\*?[\w.]+(\s*,\s*\*?[\w.]+)+\s*,?\s*\)?\s*=[^=])");
  const bool tuple = std::regex_search(b, kTuple) && std::regex_search(b.substr(0, b.find('=')), std::regex(n));
  return tuple ||
         std::regex_search(b, std::regex("^" + name + R"(\s*(:[^=]*)?(\+|-|\*|/|//|%|\||&|\^|<<|>>|\*\*|@)?=[^=])")) ||
         std::regex_search(b, std::regex(R"(^(async\s+)?for\s+[^=]*)" + n + R"([^=]*\sin\s)")) ||
         std::regex_search(b, std::regex(R"(\bas\s+)" + name + R"(\b)")) ||
         std::regex_search(b, std::regex(n + R"(\s*:=)")) ||
         std::regex_search(b, std::regex(R"(^(async\s+)?(def|class)\s+)" + n)) ||
         std::regex_search(b, std::regex(R"(^(from\s+\S+\s+)?import\s.*)" + n)) ||
         std::regex_search(b, std::regex("^del\\s.*" + n));
}

// What handles written output as files: moving, renaming, copying, listing them, or reading the part
// files one by one.
const std::regex kFileHandling(
    R"((\b(dbutils|mssparkutils|notebookutils)\.fs\.(mv|cp|ls|head)\()|(\bfs\.(mv|cp|ls)\()|)"
    R"((\bos\.(rename|renames|replace|listdir|scandir|walk)\()|(\bshutil\.\w+\()|(\bglob\()|(\.(r?glob|iterdir)\()|)"
    R"((\.rename\()|(\bpartitions\[0\])|(part-0)|(['"]part-)|(\.(listStatus|listFiles|copyToLocalFile)\()|)"
    R"((\bFileUtil\.copy)|(\.(copy_object|list_objects(_v2)?)\()|(\.inputFiles\(\)))");

// The functions streaming calls back through foreachBatch, with the functions of this file they call.
std::set<std::string> foreach_batch_functions(const Statements& s) {
  std::map<std::string, std::size_t> defs;
  for (std::size_t k = 0; k < s.size(); ++k)
    if (def_header(s[k])) defs.emplace(def_name(s[k]), k);
  std::set<std::string> out;
  std::vector<std::string> work;
  const std::regex ident(R"([A-Za-z_]\w*)");
  for (const auto& st : s) {
    for (std::size_t at = st.bare.find("foreachBatch("); at != std::string::npos;
         at = st.bare.find("foreachBatch(", at + 1)) {
      std::size_t end = at + 13;
      for (int depth = 1; end < st.bare.size() && depth > 0; ++end) {
        if (st.bare[end] == '(') ++depth;
        if (st.bare[end] == ')') --depth;
      }
      std::string args = st.bare.substr(at + 13, end - at - 13);
      for (auto it = std::sregex_iterator(args.begin(), args.end(), ident); it != std::sregex_iterator(); ++it)
        if (defs.count(it->str()) != 0 && out.insert(it->str()).second) work.push_back(it->str());
    }
  }
  const std::regex called(R"(([A-Za-z_]\w*)\s*\()");
  while (!work.empty()) {
    std::size_t h = defs[work.back()];
    work.pop_back();
    for (std::size_t k = h + 1; k < body_end(s, h); ++k)
      for (auto it = std::sregex_iterator(s[k].bare.begin(), s[k].bare.end(), called); it != std::sregex_iterator();
           ++it)
        if (defs.count((*it)[1].str()) != 0 && out.insert((*it)[1].str()).second) work.push_back((*it)[1].str());
  }
  return out;
}

struct Insertion {
  std::size_t at;  // index in the fixed statements
  std::string name;
};

}  // namespace

FixInvariantReport check_fix_invariants(std::string_view original, std::string_view fixed) {
  FixInvariantReport report;
  const Statements before = python_statements(original);
  const Statements after = python_statements(fixed);
  auto violation = [&](const PyStatement& s, const std::string& what) {
    report.violations.push_back("line " + std::to_string(s.line) + ": " + what + "  [" + s.code + "]");
  };
  std::vector<Insertion> caches, unpersists;
  std::vector<std::size_t> removals;  // statements of `before` that lost a coalesce(1) / repartition(1)
  for (const Hunk& h : diff(before, after)) {
    // Caches: a statement that has more cache()/persist() calls than the statement it replaces (the one
    // binding or starting with the same name), or any when it is new.
    for (std::size_t a : h.added) {
      const int now = count_of(after[a].bare, kCacheCall);
      if (now == 0) continue;
      const std::string name = target_of(after[a]);
      int was = 0;
      for (std::size_t r : h.removed)
        if (target_of(before[r]) == name) was = std::max(was, count_of(before[r].bare, kCacheCall));
      if (now > was) {
        caches.push_back({a, name});
        ++report.caches_inserted;
        if (was > 0 || now > 1) violation(after[a], "`" + name + "` is cached already where the fix caches it");
      }
    }
    // Unpersists: more `name.unpersist()` statements than the hunk had.
    std::map<std::string, int> unpersisted;
    for (std::size_t r : h.removed)
      if (auto name = first_group(before[r].bare, kUnpersist); !name.empty()) ++unpersisted[name];
    for (std::size_t a : h.added) {
      auto name = first_group(after[a].bare, kUnpersist);
      if (name.empty() || unpersisted[name]-- > 0) continue;
      unpersists.push_back({a, name});
      ++report.unpersists_inserted;
    }
    // Single-partition steps removed: a statement whose counterpart (the same text without them) has fewer.
    auto without = [](const std::string& t) { return std::regex_replace(t, kSinglePartition, ""); };
    int lost = 0;
    for (std::size_t r : h.removed) lost += count_of(before[r].bare, kSinglePartition);
    for (std::size_t a : h.added) lost -= count_of(after[a].bare, kSinglePartition);
    for (std::size_t r : h.removed) {
      const int had = count_of(before[r].bare, kSinglePartition);
      if (had == 0) continue;
      bool paired = false, kept = false;
      for (std::size_t a : h.added)
        if (without(after[a].bare) == without(before[r].bare)) {
          paired = true;
          kept = kept || count_of(after[a].bare, kSinglePartition) >= had;
        }
      if (paired ? !kept : lost > 0) removals.push_back(r);
    }
  }
  report.single_partition_removed = static_cast<int>(removals.size());

  // 1. A removed coalesce(1) / repartition(1) where one output file may be what the code relies on.
  const PyStatement* handling = nullptr;
  for (const auto& st : before)
    if (handling == nullptr && std::regex_search(st.code, kFileHandling)) handling = &st;
  const std::set<std::string> batch_functions = foreach_batch_functions(before);
  for (std::size_t r : removals) {
    if (handling != nullptr)
      violation(before[r], "a single-partition write is made parallel, but line " + std::to_string(handling->line) +
                               " handles the output as files");
    if (before[r].bare.find("foreachBatch(") != std::string::npos)
      violation(before[r], "a single-partition write is made parallel in a foreachBatch callback");
    for (std::size_t d : enclosing_defs(before, r))
      if (batch_functions.count(def_name(before[d])) != 0)
        violation(before[r], "a single-partition write is made parallel in `" + def_name(before[d]) +
                                 "`, which streaming calls through foreachBatch");
  }

  // Names cached through a temporary view: `x.createOrReplaceTempView("v")` and `cacheTable("v")` or
  // `CACHE [LAZY] TABLE v` (Spark caches by plan: x's actions read that cache).
  std::set<std::string> cached_as_view;
  const std::regex view_of(R"(^([A-Za-z_]\w*)\.create(OrReplace)?(Global)?TempView\(\s*['"]([\w.]+)['"])");
  for (const auto& v : after) {
    std::smatch m;
    if (!std::regex_search(v.code, m, view_of)) continue;
    const std::string view = m[4].str();
    const std::regex cache_call(R"(cacheTable\(\s*['"])" + view + R"(['"])");
    const std::regex cache_sql(R"(CACHE\s+(LAZY\s+)?TABLE\s+)" + view + R"(\b)", std::regex::icase);
    for (const auto& st : after)
      if (std::regex_search(st.code, cache_call) || std::regex_search(st.code, cache_sql)) cached_as_view.insert(m[1]);
  }

  // 2 and 4. Each inserted cache: not rebound while cached, not cached already, one unpersist in its block.
  for (const auto& c : caches) {
    const PyStatement& st = after[c.at];
    if (c.name.empty()) {
      violation(st, "a cache is inserted on something that has no name to unpersist");
      continue;
    }
    if (cached_as_view.count(c.name) != 0)
      violation(st, "`" + c.name + "` is cached already, through a temporary view that is cached");
    const std::size_t end = block_end(after, c.at);
    const std::regex unpersist("^" + c.name + R"(\.unpersist\()");
    const std::regex cached(word(c.name) + R"(\.(cache|persist|checkpoint|localCheckpoint)\()");
    std::size_t first_unpersist = end;
    int in_block = 0;
    for_each_in_scope(after, c.at + 1, end, [&](std::size_t k) {
      if (!std::regex_search(after[k].bare, unpersist)) return;
      first_unpersist = std::min(first_unpersist, k);
      if (after[k].indent == st.indent) ++in_block;
    });
    bool rebound = false;  // from then on the name holds another value
    for_each_in_scope(after, c.at + 1, end, [&](std::size_t k) {
      if (rebound) return;
      if (std::regex_search(after[k].bare, cached))
        violation(st, "`" + c.name + "` is cached already (line " + std::to_string(after[k].line) + ")");
      if (!rebinds(after[k], c.name)) return;
      rebound = true;
      if (k < first_unpersist)
        violation(st, "`" + c.name + "` is cached, then bound again at line " + std::to_string(after[k].line) +
                          " before it is unpersisted");
    });
    if (in_block != 1)
      violation(st, "`" + c.name + "` is cached with " + std::to_string(in_block) +
                        " unpersist() after it in the same block (one expected)");
  }

  // 3 and 4. Each inserted unpersist: after a cache of that name in its block, and no return of the name after it.
  for (const auto& u : unpersists) {
    const PyStatement& st = after[u.at];
    bool cached_before = false;
    const std::regex binds_cached("^" + u.name + R"(\s*(:[^=]*)?=[^=].*\.(cache|persist)\()");
    const std::regex caches_name("^" + u.name + R"(\.(cache|persist)\()");
    for (std::size_t k = u.at; k-- > 0 && after[k].indent >= st.indent;)
      if (after[k].indent == st.indent &&
          (std::regex_search(after[k].bare, binds_cached) || std::regex_search(after[k].bare, caches_name)))
        cached_before = true;
    if (!cached_before) violation(st, "`" + u.name + "` is unpersisted but not cached before it in its block");
    auto defs = enclosing_defs(after, u.at);
    if (defs.empty()) continue;
    const std::regex returned(R"(^(return|yield)\b.*)" + word(u.name));
    for_each_in_scope(after, u.at + 1, body_end(after, defs.front()), [&](std::size_t k) {
      if (std::regex_search(after[k].bare, returned))
        violation(st, "`" + u.name + "` is unpersisted before line " + std::to_string(after[k].line) + " returns it");
    });
  }
  return report;
}

}  // namespace planlint::test
