// Splitting .py files, Databricks source notebooks and Jupyter notebooks (nbformat 3 and 4) into cells.
#include "pyspark/notebook.hpp"

#include "util/line_diff.hpp"
#include "util/lines.hpp"

#include <simdjson.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>

namespace planlint::pyspark {
namespace {

std::string_view strip_eol(std::string_view l) {
  while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.remove_suffix(1);
  return l;
}

bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// `name = !cmd` or `name = %magic ...` (IPython's assignment of a shell's or a line magic's output):
// the offset of the '!' or '%' in `line`, else 0. `a != b`, `a == b` and `a %= b` are Python.
std::size_t shell_assignment_value(std::string_view line, std::size_t ind) {
  std::size_t i = ind;
  auto ident = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '.'; };
  if (i >= line.size() || std::isdigit(static_cast<unsigned char>(line[i])) != 0) return 0;
  while (i < line.size() && (ident(line[i]) || line[i] == ',' || line[i] == ' ')) ++i;
  if (i == ind || i >= line.size() || line[i] != '=' || (i + 1 < line.size() && line[i + 1] == '=')) return 0;
  ++i;
  while (i < line.size() && line[i] == ' ') ++i;
  return i < line.size() && (line[i] == '!' || line[i] == '%') ? i : 0;
}

// Whether `text` has "# COMMAND ----------" at a line start, and none of them inside a triple-quoted
// string (an odd number of `"""` or `'''` before it).
bool separators_outside_strings(std::string_view text) {
  constexpr std::string_view kSeparator = "\n# COMMAND ----------";
  bool any = false;
  std::size_t doubles = 0, singles = 0, counted_to = 0;  // quotes counted in text[0, counted_to)
  auto count = [&](std::string_view quote, std::size_t from, std::size_t to) {
    std::size_t n = 0;
    for (std::size_t k = text.find(quote, from); k != std::string_view::npos && k + quote.size() <= to;
         k = text.find(quote, k + quote.size()))
      ++n;
    return n;
  };
  for (std::size_t at = text.find(kSeparator); at != std::string_view::npos; at = text.find(kSeparator, at + 1)) {
    doubles += count("\"\"\"", counted_to, at);
    singles += count("'''", counted_to, at);
    counted_to = at;
    if (doubles % 2 != 0 || singles % 2 != 0) return false;
    any = true;
  }
  return any;
}

// `obj?`, `obj.method??`, `np.*load*?`: IPython's help on a name (Python has no '?' outside strings).
bool help_request(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  if (line.empty() || line.back() != '?') return false;
  while (!line.empty() && line.back() == '?') line.remove_suffix(1);
  if (line.empty() ||
      (std::isalpha(static_cast<unsigned char>(line.front())) == 0 && line.front() != '_' && line.front() != '*'))
    return false;
  return std::all_of(line.begin(), line.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_' || ch == '.' || ch == '*';
  });
}

// `pip install x`, `conda install x`: IPython runs these line magics without their '%' (automagic).
// Two names in a row are never Python, so nothing valid is taken for one.
bool automagic(std::string_view line) {
  // IPython's shell aliases (`ls -lh $DIR`, `cat notes.txt`) and automagic `cd`: the word, a space,
  // then what cannot follow a name in Python (not an operator, a bracket or a keyword).
  for (std::string_view alias : {"ls ", "ll ", "cat ", "cp ", "mv ", "rm ", "mkdir ", "rmdir ", "cd "}) {
    if (line.rfind(alias, 0) != 0) continue;
    std::string_view rest = line.substr(alias.size());
    rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
    if (rest.empty() || std::string_view("=([{.,:;+*/%<>&|^@!#)]}'\"\r").find(rest[0]) != std::string_view::npos)
      return false;
    if (rest[0] == '-' && (rest.size() < 2 || std::isalpha(static_cast<unsigned char>(rest[1])) == 0)) return false;
    const std::string_view word = rest.substr(0, rest.find_first_of(" \t\r"));
    for (std::string_view keyword : {"if", "else", "and", "or", "is", "in", "not", "for", "as"})
      if (word == keyword) return false;
    return true;
  }
  for (std::string_view tool : {"pip ", "conda ", "mamba "}) {
    if (line.rfind(tool, 0) != 0) continue;
    std::string_view rest = line.substr(tool.size());
    rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
    for (std::string_view verb : {"install", "uninstall", "list", "show", "freeze", "download", "remove", "update"})
      if (rest.rfind(verb, 0) == 0 && (rest.size() == verb.size() || rest[verb.size()] == ' ' ||
                                       rest[verb.size()] == '\r' || rest[verb.size()] == '\n'))
        return true;
  }
  return false;
}

// Whether the notebook's metadata names a Python kernel (language_info.name, else
// kernelspec.language), or names none (then it is taken as Python).
bool kernel_is_python(simdjson::dom::element notebook) {
  std::string_view language;
  if (notebook["metadata"]["language_info"]["name"].get(language) != simdjson::SUCCESS)
    if (notebook["metadata"]["kernelspec"]["language"].get(language) != simdjson::SUCCESS) return true;
  std::string l(language);
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l.empty() || l == "python" || l == "python3" || l == "pyspark" || l == "ipython";
}

// Jupyter and IPython magics and shell escapes are not Python: blank them out, keeping columns.
void mask_magics(std::string& text, CellLanguage& language) {
  std::size_t start = 0;
  bool first = true;
  bool continued = false;  // the line before was a masked magic or shell line ending in '\'
  // Whether a line ends with a backslash (before its line break): the magic goes on on the next line.
  auto ends_continued = [](std::string_view line) {
    const std::size_t last = line.find_last_not_of(" \t\r");
    return last != std::string_view::npos && line[last] == '\\';
  };
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    std::size_t end = nl == std::string::npos ? text.size() : nl;
    std::string_view line(text.data() + start, end - start);
    auto ind = line.find_first_not_of(" \t\r");  // a CRLF file's blank line is blank
    if (continued) {
      // `!az group create \` then `    --name x`: the shell command's next line.
      continued = ends_continued(line);
      std::fill(text.begin() + static_cast<long>(start), text.begin() + static_cast<long>(end), ' ');
      start = end + 1;
      continue;
    }
    // A Databricks cell's title line ("# DBTITLE 1,Title") comes before the cell's magic.
    if (ind != std::string_view::npos && first && line.substr(ind).rfind("# DBTITLE", 0) == 0) {
      start = end + 1;
      continue;
    }
    if (ind != std::string_view::npos) {
      char c = line[ind];
      if (first && line.substr(ind).rfind("%%", 0) == 0) {
        std::string_view magic = line.substr(ind + 2);
        language = magic.rfind("sql", 0) == 0 ? CellLanguage::sql
                   : magic.rfind("python", 0) == 0 || magic.rfind("time", 0) == 0 || magic.rfind("capture", 0) == 0
                       ? CellLanguage::python
                       : CellLanguage::other;
      }
      // Databricks notebooks exported as .ipynb keep their cell magics with one '%': "%sql" on the
      // first line makes the whole cell SQL, "%md", "%scala", "%r", "%sh", "%fs" another language.
      if (first && line.substr(ind).rfind("%%", 0) != 0 && c == '%') {
        std::string_view word = line.substr(ind + 1);
        word = word.substr(0, word.find_first_of(" \t\r"));
        if (word == "sql") {
          language = CellLanguage::sql;
          std::fill(text.begin() + static_cast<long>(start + ind), text.begin() + static_cast<long>(start + ind + 4),
                    ' ');
          return;
        }
        // `%python` selects the language a cell already has: the next line may be its cell magic.
        if (word == "python") {
          std::fill(text.begin() + static_cast<long>(start + ind), text.begin() + static_cast<long>(end), ' ');
          start = end + 1;
          continue;
        }
        if (word == "scala") {
          language = CellLanguage::scala;
          std::fill(text.begin() + static_cast<long>(start + ind), text.begin() + static_cast<long>(start + ind + 6),
                    ' ');
          return;
        }
        if (word == "md" || word == "md-sandbox" || word == "r" || word == "sh" || word == "fs") {
          language = CellLanguage::other;
          return;
        }
      }
      if (c == '%' || c == '!' || c == '?' || automagic(line.substr(ind)) || help_request(line.substr(ind))) {
        continued = ends_continued(line);
        std::fill(text.begin() + static_cast<long>(start + ind), text.begin() + static_cast<long>(end), ' ');
      } else if (std::size_t rhs = shell_assignment_value(line, ind); rhs != 0) {
        // `files = !ls $path`, `t = %timeit -o f()`: IPython binds the output; keep the name bound to 0.
        text[start + rhs] = '0';
        std::fill(text.begin() + static_cast<long>(start + rhs + 1), text.begin() + static_cast<long>(end), ' ');
      }
      first = false;
    }
    start = end + 1;
  }
}

// Whether a .py file is a notebook in the percent format: a line that opens a cell, `# %%` (then
// the end of the line, a space or a `[`: `# %% [markdown]`), at the start of a line.
bool percent_format(std::string_view text) {
  for (std::size_t at = text.find("# %%"); at != std::string_view::npos; at = text.find("# %%", at + 4)) {
    if (at != 0 && text[at - 1] != '\n') continue;
    const char next = at + 4 < text.size() ? text[at + 4] : '\n';
    if (next == '\n' || next == '\r' || next == ' ' || next == '[') return true;
  }
  return false;
}

// Masks the cell's magics; the text as written is kept only when masking changed it.
void mask_keeping_original(Cell& cell) {
  std::string before = cell.text;
  mask_magics(cell.text, cell.language);
  if (cell.text != before) cell.original = std::move(before);
}

// Microsoft Fabric's notebook-content.py: "# Fabric notebook source", then blocks each opened by a
// "# CELL ********************", "# METADATA ********************" (its "# META" lines),
// "# MARKDOWN ********************" or "# PARAMETERS CELL ********************" line.
bool fabric_separator(std::string_view l) {
  if (l.rfind("# ", 0) != 0) return false;
  const std::size_t stars = l.find(" ********************");
  if (stars == std::string_view::npos) return false;
  const std::string_view what = l.substr(2, stars - 2);
  return what == "CELL" || what == "METADATA" || what == "MARKDOWN" || what == "PARAMETERS CELL";
}

bool is_separator(SourceKind kind, std::string_view l) {
  return kind == SourceKind::fabric ? fabric_separator(l) : l.rfind("# COMMAND ----------", 0) == 0;
}

// Databricks source format: "# Databricks notebook source", cells split by "# COMMAND ----------",
// "# MAGIC %sql" cells for other languages, "# DBTITLE" lines. Fabric's .py notebooks are the same
// but for their header and separators.
void load_databricks(SourceFile& f) {
  auto lines = util::lines_keep_eol(f.raw);
  std::size_t separators = 0;
  for (std::string_view l : lines) separators += is_separator(f.kind, strip_eol(l)) ? 1 : 0;
  f.cells.reserve(separators + 1);
  Cell cell;
  int number = 1;
  auto flush = [&]() {
    // A cell whose lines are all "# MAGIC ..." is another language: strip the prefix.
    bool any = false, all_magic = true;
    for (std::size_t i = 0; i < cell.lines.size(); ++i) {
      std::string_view l = strip_eol(lines[cell.lines[i].raw_line - 1]);
      if (l.find_first_not_of(" \t") == std::string_view::npos) continue;
      any = true;
      if (l.rfind("# DBTITLE", 0) == 0) continue;
      all_magic = all_magic && l.rfind("# MAGIC", 0) == 0;
    }
    if (any && all_magic) {
      std::string text;
      LineTable origins;  // after the prefixes
      for (std::size_t i = 0; i < cell.lines.size(); ++i) {
        LineOrigin o = cell.lines[i];
        std::string_view l = lines[o.raw_line - 1];
        if (l.rfind("# MAGIC ", 0) == 0) {
          l.remove_prefix(8);
          o.raw_column = 9;
        } else if (l.rfind("# MAGIC", 0) == 0) {
          l.remove_prefix(7);
          o.raw_column = 8;
        } else if (l.rfind("# DBTITLE", 0) == 0) {
          l = "\n";
        }
        origins.push_back(o);
        text += l;
      }
      cell.lines = std::move(origins);
      auto first = text.find_first_not_of(" \t\n");
      std::string_view head = first == std::string::npos ? std::string_view{} : std::string_view(text).substr(first);
      if (head.rfind("%sql", 0) == 0) {
        cell.language = CellLanguage::sql;
        text.replace(first, 4, "    ");
      } else if (head.rfind("%python", 0) == 0) {
        cell.language = CellLanguage::python;
        text.replace(first, 7, "       ");
        mask_magics(text, cell.language);  // `%python` then `%%mosaic_kepler`, `%pip install ...`
      } else if (head.rfind("%scala", 0) == 0) {
        cell.language = CellLanguage::scala;
        text.replace(first, 6, "      ");
      } else {
        cell.language = CellLanguage::other;  // %md, %r, %sh, %run, %pip, %fs
      }
      cell.text = std::move(text);
    }
    cell.number = number++;
    if (!(any && all_magic)) {
      cell.verbatim = true;
      // Databricks runs "%pip install ..." and other line magics written straight into a Python cell.
      mask_keeping_original(cell);
    }
    // Exact sizes: a notebook of thousands of cells would otherwise keep up to twice its text.
    cell.text.shrink_to_fit();
    cell.lines.shrink_to_fit();
    f.cells.push_back(std::move(cell));
    cell = Cell{};
  };
  const std::string_view header =
      f.kind == SourceKind::fabric ? "# Fabric notebook source" : "# Databricks notebook source";
  std::size_t offset = 0;
  for (std::size_t i = 0; i < lines.size(); offset += lines[i].size(), ++i) {
    std::string_view l = strip_eol(lines[i]);
    if (i == 0 && (l.rfind(header, 0) == 0 || (l.rfind("\xEF\xBB\xBF", 0) == 0 && l.substr(3).rfind(header, 0) == 0)))
      continue;
    if (cell.lines.empty()) cell.raw_begin = offset;
    if (is_separator(f.kind, l)) {
      flush();
      continue;
    }
    cell.text += lines[i];
    cell.lines.push_back({static_cast<std::uint32_t>(i + 1), 1, true});
  }
  flush();
  // Python cells keep their text; raw keeps the rest of the file (the header, the separators, the
  // MAGIC cells' lines), so a large notebook is not held twice. whole_raw() puts the file together.
  std::string rest;
  std::size_t at = 0;
  for (const Cell& c : f.cells) {
    if (!c.verbatim || c.text.empty()) continue;
    rest.append(f.raw, at, c.raw_begin - at);
    at = c.raw_begin + c.text.size();
  }
  rest.append(f.raw, at);
  f.raw = std::move(rest);
}

class RawLines {
 public:
  explicit RawLines(std::string_view raw) {
    starts_.reserve(util::line_count(raw) + 1);
    starts_.push_back(0);
    for (std::size_t i = raw.find('\n'); i != std::string_view::npos; i = raw.find('\n', i + 1))
      starts_.push_back(i + 1);
  }
  [[nodiscard]] LineOrigin at(std::size_t offset) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    std::size_t line = static_cast<std::size_t>(it - starts_.begin());
    return {static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(offset - starts_[line - 1] + 1), false};
  }

 private:
  std::vector<std::size_t> starts_;
};

// Python's json (and so Jupyter) reads what strict JSON does not: NaN, Infinity and -Infinity,
// integers of any size, exponents past a double's range, and lone UTF-16 surrogates (\ud800). The
// same text with each of these replaced by a stand-in of the same length ("0" and spaces outside
// strings, \ufffd inside them), so that every offset still points at the file's own bytes; empty
// when there is nothing to replace.
std::string python_json_stand_ins(std::string_view s) {
  std::string out;
  auto put = [&](std::size_t at, std::string_view with) {
    if (out.empty()) out.assign(s);
    out.replace(at, with.size(), with);
  };
  auto hex4 = [&](std::size_t at) -> long {
    if (at + 4 > s.size()) return -1;
    long v = 0;
    for (std::size_t k = at; k < at + 4; ++k) {
      int d = std::isdigit(static_cast<unsigned char>(s[k])) != 0 ? s[k] - '0'
              : (s[k] | 0x20) >= 'a' && (s[k] | 0x20) <= 'f'      ? (s[k] | 0x20) - 'a' + 10
                                                                  : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  };
  for (std::size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == '"') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != '"') {
        if (s[j] != '\\') {
          ++j;
          continue;
        }
        if (j + 1 < s.size() && s[j + 1] == 'u') {
          long u = hex4(j + 2);
          if (u >= 0xD800 && u <= 0xDBFF) {
            long low = j + 7 < s.size() && s[j + 6] == '\\' && s[j + 7] == 'u' ? hex4(j + 8) : -1;
            if (low >= 0xDC00 && low <= 0xDFFF) {
              j += 12;
              continue;
            }
            put(j, "\\ufffd");
          } else if (u >= 0xDC00 && u <= 0xDFFF) {
            put(j, "\\ufffd");
          }
          j += 6;
          continue;
        }
        j += 2;
      }
      i = j + 1;
      continue;
    }
    auto word = [&](std::string_view w) { return s.compare(i, w.size(), w) == 0; };
    if (word("NaN") || word("Infinity") || word("-Infinity")) {
      std::size_t n = word("NaN") ? 3 : word("Infinity") ? 8 : 9;
      put(i, "0" + std::string(n - 1, ' '));
      i += n;
      continue;
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c)) != 0) {
      std::size_t j = i + 1;
      bool fraction = false;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) != 0 || s[j] == '.' || s[j] == 'e' ||
                              s[j] == 'E' || s[j] == '+' || s[j] == '-')) {
        fraction = fraction || s[j] == '.' || s[j] == 'e' || s[j] == 'E';
        ++j;
      }
      std::string token(s.substr(i, j - i));
      errno = 0;
      bool out_of_range = false;
      if (fraction) {
        out_of_range = !std::isfinite(std::strtod(token.c_str(), nullptr));
      } else if (token[0] == '-') {
        (void)std::strtoll(token.c_str(), nullptr, 10);
        out_of_range = errno == ERANGE;
      } else {
        (void)std::strtoull(token.c_str(), nullptr, 10);
        out_of_range = errno == ERANGE;
      }
      if (out_of_range) put(i, "0" + std::string(j - i - 1, ' '));
      i = j;
      continue;
    }
    ++i;
  }
  return out;
}

// Reads the notebook from `json` (the file's text, or its stand-in copy: same offsets). As Python's
// json does, a key given twice keeps its last value: the last "cells", the last "source" of a cell.
// Every worksheet of an nbformat 3 notebook is read. Returns an error (and its offset) or "".
std::string read_notebook(SourceFile& f, const simdjson::padded_string& json, std::size_t& error_at) {
  using namespace simdjson;
  // Small notebooks share one parser per thread (its buffers are allocated once); a large one gets
  // its own, so that the shared one never holds more than a small document needs.
  constexpr std::size_t kSharedParserBytes = std::size_t{1} << 20;
  thread_local ondemand::parser shared;
  std::optional<ondemand::parser> own;
  ondemand::parser& parser = json.size() <= kSharedParserBytes ? shared : own.emplace();
  RawLines raw_lines(f.raw);
  ondemand::document doc;
  bool started = false;  // current_location() is only valid on a document that iterate() accepted
  f.cells.clear();
  try {
    doc = parser.iterate(json);
    started = true;
    ondemand::object root = doc.get_object();
    bool have_cells = false;
    auto read_cells = [&](ondemand::array cells) {
      for (auto cell_value : cells) {
        Cell cell;
        bool code = false;
        bool have_source = false;
        std::vector<std::pair<std::size_t, std::string>> pieces;  // (offset of the JSON string, its text)
        for (auto field : cell_value.get_object()) {
          std::string_view key = field.unescaped_key();
          if (key == "cell_type") {
            code = std::string_view(field.value().get_string()) == "code";
          } else if (key == "source" || key == "input") {
            have_source = true;
            pieces.clear();  // a second "source": the last one counts
            cell.source_pieces.clear();
            ondemand::value sv = field.value();
            std::size_t last_end = 0;
            auto add = [&](ondemand::value v) {
              std::string_view tok = v.raw_json_token();
              std::size_t offset = static_cast<std::size_t>(tok.data() - json.data());
              pieces.emplace_back(offset, std::string(std::string_view(v.get_string())));
              // The token runs to the closing quote (and maybe whitespace after it).
              std::size_t end = offset + tok.size();
              while (end > offset + 1 && f.raw[end - 1] != '"') --end;
              last_end = end;
              cell.source_pieces.push_back({offset, end, pieces.back().second.size()});
            };
            std::size_t begin = static_cast<std::size_t>(std::string_view(sv.raw_json_token()).data() - json.data());
            cell.source_begin = begin;
            if (sv.type() == ondemand::json_type::array) {
              cell.source_is_list = true;
              ondemand::array arr = sv.get_array();
              for (auto v : arr) add(v.value());
              auto close = f.raw.find(']', std::max(last_end, begin));
              cell.source_end = close == std::string::npos ? f.raw.size() : close + 1;
            } else {
              cell.source_is_list = false;
              add(sv);
              cell.source_end = last_end;
            }
          }
        }
        if (!code || !have_source) {
          cell.language = CellLanguage::other;
          f.cells.push_back(std::move(cell));
          continue;
        }
        for (const auto& [offset, s] : pieces) {
          LineOrigin origin = raw_lines.at(offset);
          std::size_t start = 0;
          while (start < s.size()) {
            auto nl = s.find('\n', start);
            std::size_t end = nl == std::string::npos ? s.size() : nl + 1;
            if (cell.text.empty() || cell.text.back() == '\n') cell.lines.push_back(origin);
            cell.text += s.substr(start, end - start);
            start = end;
          }
        }
        mask_keeping_original(cell);
        f.cells.push_back(std::move(cell));
      }
    };
    for (auto field : root) {
      std::string_view key = field.unescaped_key();
      if (key == "cells") {  // a second "cells" replaces the first, as in Python's json
        f.cells.clear();
        read_cells(field.value().get_array());
        have_cells = true;
      } else if (key == "properties") {  // an Azure Synapse notebook: {"name": ..., "properties": {"cells": ...}}
        for (auto pf : field.value().get_object()) {
          if (std::string_view(pf.unescaped_key()) != "cells") continue;
          f.cells.clear();
          read_cells(pf.value().get_array());
          have_cells = true;
        }
      } else if (key == "worksheets") {  // nbformat 3: the cells of every worksheet, in order
        f.cells.clear();
        have_cells = true;
        for (auto ws : field.value().get_array()) {
          const std::size_t first = f.cells.size();
          for (auto wf : ws.get_object()) {
            if (std::string_view(wf.unescaped_key()) != "cells") continue;
            f.cells.resize(first);  // the worksheet's last "cells"
            read_cells(wf.value().get_array());
          }
        }
      }
    }
    if (!have_cells) {
      error_at = 0;
      return "no \"cells\" (nbformat 4) or \"worksheets\" (nbformat 3)";
    }
  } catch (const simdjson_error& e) {
    // Point at where the reader stopped, not at the start of the file.
    std::size_t offset = 0;
    if (started) {
      auto where = doc.current_location();
      if (!where.error()) offset = static_cast<std::size_t>(where.value_unsafe() - json.data());
    }
    // A document that ends early (a truncated download) stopped at its end; elsewhere the reader may
    // stop past the fault: a strict parser names its byte.
    if (e.error() == INCOMPLETE_ARRAY_OR_OBJECT || e.error() == UNCLOSED_STRING) {
      offset = f.raw.size();
    } else {
      try {
        (void)nlohmann::json::parse(std::string_view(json.data(), json.size()));
      } catch (const nlohmann::json::parse_error& pe) {
        if (pe.byte > 0 && pe.byte - 1 < f.raw.size()) offset = pe.byte - 1;
      } catch (const nlohmann::json::exception&) {
      }
    }
    f.cells.clear();
    error_at = std::min(offset, f.raw.size());
    return error_message(e.error());
  }
  int number = 1;
  for (Cell& c : f.cells) c.number = number++;
  // The reader reads what it needs: the rest of the document must be JSON too, or a fix would rewrite
  // a file that is not a notebook.
  dom::parser validator;
  dom::element whole;
  if (auto err = validator.parse(json).get(whole); err) {
    std::size_t offset = f.raw.size();
    try {
      (void)nlohmann::json::parse(std::string_view(json.data(), json.size()));
    } catch (const nlohmann::json::parse_error& pe) {
      offset = pe.byte > 0 ? pe.byte - 1 : 0;
    } catch (const nlohmann::json::exception&) {
    }
    f.cells.clear();
    error_at = std::min(offset, f.raw.size());
    return error_message(err);
  }
  // A notebook of another kernel (Scala's sparkkernel, spylon, R): its code cells are not Python.
  if (!kernel_is_python(whole))
    for (Cell& c : f.cells) c.language = CellLanguage::other;
  return {};
}

bool load_jupyter(SourceFile& f) {
  simdjson::padded_string json(f.raw);
  std::size_t at = 0;
  std::string error = read_notebook(f, json, at);
  if (!error.empty()) {
    // What Python's json reads and strict JSON does not (NaN, a 30-digit integer, a lone surrogate):
    // read again with stand-ins of the same length, so that offsets and fixes stay the file's.
    std::string stand_ins = python_json_stand_ins(f.raw);
    std::size_t again_at = 0;
    if (!stand_ins.empty() && read_notebook(f, simdjson::padded_string(stand_ins), again_at).empty()) return true;
    RawLines rl(f.raw);
    auto o = rl.at(std::min(at, f.raw.size()));
    f.errors.push_back({o.raw_line, o.raw_column, "not a Jupyter notebook: " + error});
    return false;
  }
  return true;
}

// JSON string literal for a notebook source line, as Jupyter writes it (UTF-8 kept, not \u-escaped),
// or with every non-ASCII character as \uXXXX when the notebook was written so (`ensure_ascii`).
std::string json_string(std::string_view s, bool ascii = false) {
  std::string out = "\"";
  char buf[16];
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (u < 0x20) {
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(u));
          out += buf;
        } else if (u >= 0x80 && ascii) {
          // One UTF-8 sequence as its code point (a surrogate pair past the BMP); bytes that are not
          // UTF-8 are kept as they are.
          int n = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : u >= 0xC0 ? 2 : 1;
          if (n == 1 || i + n > s.size()) {
            out += c;
            break;
          }
          unsigned long cp = u & (0xFF >> (n + 1));
          for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
          if (cp >= 0x10000) {
            cp -= 0x10000;
            std::snprintf(buf, sizeof buf, "\\u%04lx\\u%04lx", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
          } else {
            std::snprintf(buf, sizeof buf, "\\u%04lx", cp);
          }
          out += buf;
          i += static_cast<std::size_t>(n - 1);
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Whether the notebook writes non-ASCII text as \u escapes (Python's json.dump default,
// ensure_ascii=True): then a rewritten line must too, or the fix would change its other characters.
bool writes_ascii(std::string_view raw) {
  bool escapes = false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (static_cast<unsigned char>(raw[i]) >= 0x80) return false;
    if (raw[i] != '\\' || i + 1 >= raw.size()) continue;
    if (raw[i + 1] == 'u' && i + 5 < raw.size() &&
        std::strtoul(std::string(raw.substr(i + 2, 4)).c_str(), nullptr, 16) >= 0x80)
      escapes = true;
    ++i;
  }
  return escapes;
}

// A cell's "source" value with its text replaced by `text`, in the notebook's own style: the strings
// whose text did not change keep their raw JSON (paired with the new lines by a line diff), the
// separators between strings and the brackets' layout stay as the file has them, and a new string is
// escaped as the file escapes (`ascii`: \u escapes for non-ASCII text).
std::string serialize_source(const std::string& raw, const Cell& cell, const std::string& text, bool ascii) {
  if (!cell.source_is_list) return json_string(text, ascii);
  std::vector<std::string_view> lines = util::lines_keep_eol(text);
  const auto& pieces = cell.source_pieces;
  std::string_view old(raw.data() + cell.source_begin, cell.source_end - cell.source_begin);
  if (pieces.empty()) {  // "source": []
    std::string out = "[";
    for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? ", " : "") + json_string(lines[i], ascii);
    return out + "]";
  }
  if (lines.empty()) return "[]";
  // The old strings' texts, from the cell's text.
  const std::string& before = cell.unmasked();
  std::vector<std::string_view> old_texts;
  std::size_t at = 0;
  for (const auto& p : pieces) {
    old_texts.push_back(std::string_view(before).substr(std::min(at, before.size()), p.text_size));
    at += p.text_size;
  }
  std::vector<bool> kept_old, kept_new;
  util::diff_lines(old_texts, lines, kept_old, kept_new);
  // Each new line: the old string it equals (kept), or none.
  std::vector<long> from_old(lines.size(), -1);
  for (std::size_t i = 0, j = 0; j < lines.size(); ++j) {
    if (!kept_new[j]) continue;
    while (i < pieces.size() && !kept_old[i]) ++i;
    if (i < pieces.size()) from_old[j] = static_cast<long>(i++);
  }
  // Separators: between two kept neighbours their own, elsewhere the file's first one (or, with a
  // single string, a line break and its indentation when the value is laid out over lines).
  auto raw_between = [&](std::size_t i) {  // between old strings i and i + 1
    return std::string_view(raw).substr(pieces[i].raw_end, pieces[i + 1].raw_begin - pieces[i].raw_end);
  };
  std::string sep;
  if (pieces.size() >= 2) {
    sep = std::string(raw_between(0));
  } else {
    std::string_view lead =
        std::string_view(raw).substr(cell.source_begin + 1, pieces[0].raw_begin - cell.source_begin - 1);
    auto nl = lead.rfind('\n');
    sep = nl == std::string_view::npos ? ", "
                                       : "," + std::string(lead.substr(nl > 0 && lead[nl - 1] == '\r' ? nl - 1 : nl));
  }
  const bool same_count = lines.size() == pieces.size();
  std::string out(old.substr(0, pieces.front().raw_begin - cell.source_begin));  // "[" and what follows it
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (k > 0) {
      // As many strings as before: each keeps its place and the separator before it.
      const long a = from_old[k - 1], b = from_old[k];
      out += same_count             ? std::string(raw_between(k - 1))
             : a >= 0 && b == a + 1 ? std::string(raw_between(static_cast<std::size_t>(a)))
                                    : sep;
    }
    const long i = from_old[k];
    out += i >= 0
               ? raw.substr(pieces[static_cast<std::size_t>(i)].raw_begin,
                            pieces[static_cast<std::size_t>(i)].raw_end - pieces[static_cast<std::size_t>(i)].raw_begin)
               : json_string(lines[k], ascii);
  }
  out += old.substr(pieces.back().raw_end - cell.source_begin);  // what precedes "]", and "]"
  return out;
}

}  // namespace

std::optional<std::string> rebuild_source(const SourceFile& file, const std::map<int, std::string>& new_texts) {
  struct Splice {
    std::size_t begin, end;
    std::string text;
  };
  std::vector<Splice> splices;
  const bool ascii = file.kind == SourceKind::jupyter && writes_ascii(file.raw);  // once per file
  for (const auto& [number, text] : new_texts) {
    const Cell* cell = find_cell(file, number);
    if (cell == nullptr) return std::nullopt;
    if (file.kind == SourceKind::jupyter) {
      if (cell->source_end <= cell->source_begin) return std::nullopt;
      splices.push_back({cell->source_begin, cell->source_end, serialize_source(file.raw, *cell, text, ascii)});
    } else {
      if (!cell->verbatim) return std::nullopt;
      splices.push_back({cell->raw_begin, cell->raw_begin + cell->text.size(), text});
    }
  }
  std::sort(splices.begin(), splices.end(), [](const Splice& a, const Splice& b) { return a.begin > b.begin; });
  std::string out = whole_raw(file);
  for (const auto& s : splices) out.replace(s.begin, s.end - s.begin, s.text);
  return out;
}

void for_each_raw_piece(const SourceFile& file, const std::function<void(std::string_view)>& piece) {
  if (file.kind == SourceKind::python) {
    piece(file.raw);
    if (!file.cells.empty()) piece(file.cells.front().unmasked());
    return;
  }
  if (file.kind != SourceKind::databricks && file.kind != SourceKind::fabric) {
    piece(file.raw);
    return;
  }
  std::size_t at = 0;     // in file.raw
  std::size_t whole = 0;  // in the file
  for (const Cell& c : file.cells) {
    if (!c.verbatim || c.text.empty()) continue;
    const std::size_t gap = c.raw_begin - whole;  // raw bytes between the previous cell and this one
    piece(std::string_view(file.raw).substr(at, gap));
    at += gap;
    piece(c.unmasked());
    whole = c.raw_begin + c.text.size();
  }
  piece(std::string_view(file.raw).substr(at));
}

std::string whole_raw(const SourceFile& file) {
  std::string out;
  std::size_t size = file.raw.size();
  for (const Cell& c : file.cells) size += c.verbatim ? c.text.size() : 0;
  out.reserve(size);
  for_each_raw_piece(file, [&](std::string_view p) { out += p; });
  return out;
}

LineOrigin LineTable::operator[](std::size_t i) const {
  auto it = std::upper_bound(runs_.begin(), runs_.end(), i, [](std::size_t n, const Run& r) { return n < r.first; });
  const Run& r = *(it - 1);  // runs_[0].first is 0
  LineOrigin o = r.origin;
  o.raw_line += r.step * static_cast<std::uint32_t>(i - r.first);
  return o;
}

void LineTable::push_back(const LineOrigin& o) {
  if (!runs_.empty()) {
    Run& r = runs_.back();
    const std::size_t in_run = count_ - r.first;  // lines in the last run
    const bool same = o.raw_column == r.origin.raw_column && o.verbatim == r.origin.verbatim;
    if (same && in_run == 1 && (o.raw_line == r.origin.raw_line || o.raw_line == r.origin.raw_line + 1)) {
      r.step = o.raw_line - r.origin.raw_line;
      ++count_;
      return;
    }
    if (same && o.raw_line == r.origin.raw_line + r.step * static_cast<std::uint32_t>(in_run)) {
      ++count_;
      return;
    }
  }
  runs_.push_back({count_, o, 0});
  ++count_;
}

void LineTable::assign_file_lines(std::size_t count, std::uint32_t first_column) {
  runs_.clear();
  count_ = 0;
  if (count == 0) return;
  push_back({1, first_column, true});
  if (count > 1) runs_.push_back({1, {2, 1, true}, 1});
  count_ = count;
}

const Cell* find_cell(const SourceFile& file, int number) {
  const std::vector<Cell>& cells = file.cells;
  const auto index = static_cast<std::size_t>(number - 1);
  if (number >= 1 && index < cells.size() && cells[index].number == number) return &cells[index];
  auto it = std::lower_bound(cells.begin(), cells.end(), number, [](const Cell& c, int n) { return c.number < n; });
  if (it != cells.end() && it->number == number) return &*it;
  for (const auto& c : cells)
    if (c.number == number) return &c;
  return nullptr;
}

// Azure Synapse keeps a workspace's notebooks in git as `notebook/<name>.json`: the Jupyter cells under
// "properties" (with the Spark pool and session settings beside them).
bool is_synapse_notebook_path(std::string_view path) {
  if (!ends_with(path, ".json")) return false;
  const std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view folder = path.substr(0, slash);
  return folder == "notebook" || ends_with(folder, "/notebook");
}

bool is_source_path(std::string_view path) {
  return ends_with(path, ".py") || ends_with(path, ".ipynb") || is_synapse_notebook_path(path);
}

SourceFile load_source(std::string path, std::string raw) {
  SourceFile f;
  f.path = std::move(path);
  f.raw = std::move(raw);
  if (ends_with(f.path, ".ipynb") || is_synapse_notebook_path(f.path)) {
    f.kind = SourceKind::jupyter;
    load_jupyter(f);
    return f;
  }
  // The header Databricks writes on line 1 (after a byte-order mark, if any), or separators at line
  // starts outside triple-quoted strings (a notebook whose header was cut off; a Python file that
  // writes a notebook holds them in a string).
  const std::size_t header_at = f.raw.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  bool databricks =
      f.raw.compare(header_at, 28, "# Databricks notebook source") == 0 || separators_outside_strings(f.raw);
  if (databricks) {
    f.kind = SourceKind::databricks;
    load_databricks(f);
    return f;
  }
  if (f.raw.compare(header_at, 24, "# Fabric notebook source") == 0) {
    f.kind = SourceKind::fabric;
    load_databricks(f);
    return f;
  }
  Cell cell;
  if (f.raw.rfind("\xEF\xBB\xBF", 0) == 0) f.bom = 3;
  // The one cell is the file: its text is not kept twice (raw keeps only the byte-order mark).
  cell.text = std::move(f.raw);
  f.raw = cell.text.substr(0, f.bom);
  cell.text.erase(0, f.bom);
  cell.verbatim = true;
  cell.raw_begin = f.bom;
  cell.lines.assign_file_lines(util::line_count(cell.text), 1 + static_cast<std::uint32_t>(f.bom));
  // A script in the percent format (cells opened by `# %%`: Jupytext, VS Code, Spyder, PyCharm) runs
  // in an IPython kernel: its magics and shell escapes (`! pip install x`, `%time`) are IPython's,
  // masked as in a notebook. In any other .py file they are syntax errors.
  if (percent_format(cell.text)) mask_keeping_original(cell);
  f.cells.push_back(std::move(cell));
  return f;
}

}  // namespace planlint::pyspark
