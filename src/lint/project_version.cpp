// Reading a project's PySpark pin: requirement specifiers, the project files that hold them (TOML with
// toml++, the others line by line), and the upward search from a linted file's folder.
#include "lint/project_version.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

namespace planlint::lint {
namespace fs = std::filesystem;

namespace {

using Version = std::vector<int>;

std::string_view trim(std::string_view s) {
  const std::size_t first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The release numbers a version starts with: "3.1.2rc1" -> 3.1.2, "3.1.*" -> 3.1; empty if none.
Version numbers(std::string_view text) {
  Version v;
  std::size_t i = 0;
  while (i < text.size() && is_digit(text[i])) {
    int n = 0;
    for (; i < text.size() && is_digit(text[i]) && n < 100000; ++i) n = n * 10 + (text[i] - '0');
    v.push_back(n);
    if (i + 1 < text.size() && text[i] == '.' && is_digit(text[i + 1]))
      ++i;
    else
      break;
  }
  return v;
}

std::string text_of(const Version& v) {
  std::string out;
  for (int n : v) out += (out.empty() ? "" : ".") + std::to_string(n);
  return out;
}

int compare(const Version& a, const Version& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const int x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// Keeps the older of two optional versions.
void keep_lowest(std::optional<std::string>& lowest, const std::optional<std::string>& candidate) {
  if (candidate && (!lowest || older_version(*candidate, *lowest))) lowest = candidate;
}

// "PySpark", "py_spark" -> "pyspark"; the PEP 503 normal form.
std::string normal_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (out.empty() || out.back() != '-') out += '-';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.'; }

// The Spark version a constraint on package `name` pins, read with `lowest` (PEP 440 or Poetry's).
std::optional<std::string> pin_of(std::string_view name, std::string_view constraint,
                                  std::optional<std::string> (*lowest)(std::string_view)) {
  const std::string n = normal_name(name);
  if (n == "pyspark") return lowest(constraint);
  if (n == "databricks-connect") {
    auto runtime = lowest(constraint);
    return runtime ? spark_of_databricks_runtime(*runtime) : std::nullopt;
  }
  return std::nullopt;
}

std::string read_small_file(const fs::path& p) {
  constexpr std::uintmax_t kLargest = std::uintmax_t{4} << 20;  // a project file, not data
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  if (ec || size > kLargest) return {};
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

bool older_version(std::string_view a, std::string_view b) { return compare(numbers(a), numbers(b)) < 0; }

std::optional<std::string> lowest_allowed(std::string_view specifier) {
  std::optional<Version> exact, lower, below, at_most;
  while (!specifier.empty()) {
    const std::size_t comma = specifier.find(',');
    std::string_view clause = trim(specifier.substr(0, comma));
    specifier = comma == std::string_view::npos ? std::string_view{} : specifier.substr(comma + 1);
    std::size_t op_end = 0;
    while (op_end < clause.size() && std::string_view("=<>!~").find(clause[op_end]) != std::string_view::npos) ++op_end;
    const std::string_view op = clause.substr(0, op_end);
    const Version v = numbers(trim(clause.substr(op_end)));
    if (v.empty()) continue;
    if (op == "==" || op == "===") {
      exact = v;
    } else if (op == "~=" || op == ">=" || op == ">") {
      if (!lower || compare(v, *lower) > 0) lower = v;
    } else if (op == "<") {
      if (!below || compare(v, *below) < 0) below = v;
    } else if (op == "<=") {
      if (!at_most || compare(v, *at_most) < 0) at_most = v;
    }
  }
  if (exact) return text_of(*exact);
  if (lower) return text_of(*lower);
  // Only an upper bound: every version it allows is older than it; the newest minor release it allows
  // stands for them (what a fix may use must exist there).
  if (at_most) return text_of(Version(at_most->begin(), at_most->begin() + std::min<std::size_t>(2, at_most->size())));
  if (below) {
    const Version& v = *below;
    if (v.size() >= 3 && v[2] > 0) return text_of({v[0], v[1]});
    if (v.size() >= 2 && v[1] > 0) return text_of({v[0], v[1] - 1});
  }
  return std::nullopt;
}

std::optional<std::string> lowest_allowed_poetry(std::string_view constraint) {
  std::optional<std::string> lowest;
  while (!constraint.empty()) {
    const std::size_t bar = constraint.find('|');
    std::string_view alternative = trim(constraint.substr(0, bar));
    constraint = bar == std::string_view::npos ? std::string_view{} : constraint.substr(bar + 1);
    if (alternative.empty() && bar != std::string_view::npos) continue;  // the second `|` of `||`
    std::optional<std::string> v;
    if ((alternative.starts_with("^") || alternative.starts_with("~")) && !alternative.starts_with("~=")) {
      Version n = numbers(trim(alternative.substr(1)));
      if (!n.empty()) v = text_of(n);
    } else if (!alternative.empty() && is_digit(alternative[0])) {
      v = text_of(numbers(alternative));
    } else {
      // `>= 3.0 < 3.2` or `>=3.0,<3.2`: clauses apart, as PEP 440 writes them.
      std::string clauses;
      for (char c : alternative) {
        if (c == ' ' || c == '\t') continue;
        if (std::string_view("=<>!~").find(c) != std::string_view::npos && !clauses.empty() &&
            (is_digit(clauses.back()) || clauses.back() == '*'))
          clauses += ',';
        clauses += c;
      }
      v = lowest_allowed(clauses);
    }
    if (!v) return std::nullopt;  // `*`, or an alternative without a lower bound: any version
    keep_lowest(lowest, v);
  }
  return lowest;
}

std::optional<std::string> spark_of_databricks_runtime(std::string_view runtime) {
  const Version v = numbers(trim(runtime));
  if (v.empty()) return std::nullopt;
  switch (v[0]) {
    case 10:
      return "3.2";
    case 11:
    case 12:
      return "3.3";
    case 13:
      return "3.4";
    case 14:
    case 15:
    case 16:
      return "3.5";
    case 17:
      return "4.0";
    default:
      return std::nullopt;
  }
}

std::optional<std::string> spark_of_requirement(std::string_view requirement) {
  std::string_view r = trim(requirement.substr(0, requirement.find(';')));  // no environment marker
  std::size_t end = 0;
  while (end < r.size() && name_char(r[end])) ++end;
  if (end == 0) return std::nullopt;
  const std::string_view name = r.substr(0, end);
  std::string_view rest = trim(r.substr(end));
  if (rest.starts_with("[")) rest = trim(rest.substr(std::min(rest.size(), rest.find(']') + 1)));
  if (rest.starts_with("(") && rest.ends_with(")")) rest = trim(rest.substr(1, rest.size() - 2));
  if (rest.empty() || rest.starts_with("@")) return std::nullopt;  // no version, or a URL
  return pin_of(name, rest, &lowest_allowed);
}

std::optional<std::string> spark_pinned_by_requirements_txt(std::string_view text) {
  std::optional<std::string> lowest;
  std::string logical;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    std::string_view l = trim(line);
    if (l.ends_with("\\")) {  // continued on the next line
      logical += l.substr(0, l.size() - 1);
      logical += ' ';
      continue;
    }
    logical += l;
    std::string_view requirement = logical;
    if (std::size_t hash = requirement.find('#');
        hash != std::string_view::npos && (hash == 0 || requirement[hash - 1] == ' ' || requirement[hash - 1] == '\t'))
      requirement = requirement.substr(0, hash);
    if (std::size_t option = requirement.find(" --"); option != std::string_view::npos)
      requirement = requirement.substr(0, option);  // --hash=...
    requirement = trim(requirement);
    if (!requirement.empty() && requirement[0] != '-') keep_lowest(lowest, spark_of_requirement(requirement));
    logical.clear();
  }
  return lowest;
}

std::optional<std::string> spark_pinned_by_pyproject(std::string_view text) {
  toml::table doc;
  try {
    doc = toml::parse(text);
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
  std::optional<std::string> lowest;
  auto requirements = [&](const toml::node_view<const toml::node>& list) {
    if (const auto* arr = list.as_array())
      for (const auto& item : *arr)
        if (const auto* s = item.as_string()) keep_lowest(lowest, spark_of_requirement(s->get()));
  };
  auto tables_of_requirements = [&](const toml::node_view<const toml::node>& groups) {
    if (const auto* t = groups.as_table())
      for (const auto& [name, list] : *t) requirements(toml::node_view<const toml::node>(list));
  };
  auto poetry = [&](const toml::node_view<const toml::node>& deps) {
    const auto* t = deps.as_table();
    if (t == nullptr) return;
    for (const auto& entry : *t) {
      const std::string_view name = entry.first.str();
      const toml::node& value = entry.second;
      auto constraint_of = [&](const toml::node& n) -> std::optional<std::string> {
        if (const auto* s = n.as_string()) return pin_of(name, s->get(), &lowest_allowed_poetry);
        if (const auto* spec = n.as_table())
          if (const auto* v = (*spec)["version"].as_string()) return pin_of(name, v->get(), &lowest_allowed_poetry);
        return std::nullopt;
      };
      if (const auto* alternatives = value.as_array())
        for (const auto& a : *alternatives) keep_lowest(lowest, constraint_of(a));
      else
        keep_lowest(lowest, constraint_of(value));
    }
  };
  const toml::node_view<const toml::node> root(doc);
  requirements(root["project"]["dependencies"]);
  tables_of_requirements(root["project"]["optional-dependencies"]);
  tables_of_requirements(root["dependency-groups"]);
  requirements(root["tool"]["uv"]["dev-dependencies"]);
  tables_of_requirements(root["tool"]["pdm"]["dev-dependencies"]);
  poetry(root["tool"]["poetry"]["dependencies"]);
  poetry(root["tool"]["poetry"]["dev-dependencies"]);
  if (const auto* groups = root["tool"]["poetry"]["group"].as_table())
    for (const auto& [name, group] : *groups) poetry(toml::node_view<const toml::node>(group)["dependencies"]);
  return lowest;
}

std::optional<std::string> spark_pinned_by_setup_py(std::string_view text) {
  std::optional<std::string> lowest;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char q = text[i];
    if (q == '#') {
      i = std::min(text.size(), text.find('\n', i));
      continue;
    }
    if (q != '"' && q != '\'') continue;
    if (text.substr(i, 3) == std::string(3, q)) {  // a docstring: no requirement in it
      const std::size_t end = text.find(std::string(3, q), i + 3);
      i = end == std::string_view::npos ? text.size() : end + 2;
      continue;
    }
    const std::size_t end = text.find_first_of(std::string{q, '\n'}, i + 1);
    if (end == std::string_view::npos) break;
    if (text[end] == q) keep_lowest(lowest, spark_of_requirement(text.substr(i + 1, end - i - 1)));
    i = end;
  }
  return lowest;
}

std::optional<std::string> spark_pinned_by_setup_cfg(std::string_view text) {
  std::optional<std::string> lowest;
  std::string section;
  bool in_requirements = false;  // reading the value of a key that lists requirements
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    std::string_view l = trim(line);
    if (l.empty() || l[0] == '#' || l[0] == ';') continue;
    const bool continued = line[0] == ' ' || line[0] == '\t';
    if (!continued && l.starts_with("[")) {
      section = normal_name(trim(l.substr(1, l.find(']') - 1)));
      in_requirements = false;
      continue;
    }
    if (!continued) {
      const std::size_t sep = l.find_first_of("=:");
      if (sep == std::string_view::npos) continue;
      const std::string key = normal_name(trim(l.substr(0, sep)));
      in_requirements = (section == "options" && (key == "install-requires" || key == "tests-require")) ||
                        section == "options-extras-require";
      l = trim(l.substr(sep + 1));
    }
    if (in_requirements && !l.empty()) keep_lowest(lowest, spark_of_requirement(l));
  }
  return lowest;
}

std::optional<std::string> spark_pinned_by_environment_yml(std::string_view text) {
  std::optional<std::string> lowest;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    std::string_view item = trim(line);
    if (!item.starts_with("-")) continue;
    item = trim(item.substr(1));
    if (std::size_t hash = item.find(" #"); hash != std::string_view::npos) item = trim(item.substr(0, hash));
    if (item.size() >= 2 && (item.front() == '"' || item.front() == '\'') && item.back() == item.front())
      item = item.substr(1, item.size() - 2);
    if (std::size_t channel = item.find("::"); channel != std::string_view::npos) item = item.substr(channel + 2);
    std::size_t end = 0;
    while (end < item.size() && name_char(item[end])) ++end;
    const std::string_view name = item.substr(0, end);
    std::string_view rest = trim(item.substr(end));
    // Conda's `name=3.1` (3.1.*), `name=3.1.2=build`, `name 3.1.*`; pip's PEP 508 otherwise.
    if ((rest.starts_with("=") && !rest.starts_with("==")) || (!rest.empty() && is_digit(rest[0]))) {
      std::string_view version = rest.starts_with("=") ? rest.substr(1) : rest;
      version = version.substr(0, version.find_first_of("= "));
      keep_lowest(lowest, pin_of(name, "==" + std::string(version), &lowest_allowed));
    } else {
      keep_lowest(lowest, spark_of_requirement(item));
    }
  }
  return lowest;
}

std::optional<std::string> spark_pinned_by_databricks_bundle(std::string_view text) {
  // A runtime version is written `13.3.x-scala2.12` (also `-photon-`, `-cpu-ml-`, `-gpu-ml-`), wherever
  // it is: a job cluster's spark_version, a variable's default.
  std::optional<std::string> lowest;
  for (std::size_t at = text.find(".x-"); at != std::string_view::npos; at = text.find(".x-", at + 3)) {
    std::size_t start = at;
    while (start > 0 && (is_digit(text[start - 1]) || text[start - 1] == '.')) --start;
    const std::size_t end = text.find_first_of(" \t\r\n\"',}", at);
    const std::string_view tail = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (start == at || tail.find("scala") == std::string_view::npos) continue;
    keep_lowest(lowest, spark_of_databricks_runtime(text.substr(start, at - start)));
  }
  return lowest;
}

namespace {

enum class PinFile { none, requirements, pyproject, setup_py, setup_cfg, environment, bundle };

PinFile kind_of(std::string_view name) {
  if (name.starts_with("requirements") && name.ends_with(".txt")) return PinFile::requirements;
  if (name == "pyproject.toml") return PinFile::pyproject;
  if (name == "setup.py") return PinFile::setup_py;
  if (name == "setup.cfg") return PinFile::setup_cfg;
  if (name == "environment.yml" || name == "environment.yaml") return PinFile::environment;
  if (name == "databricks.yml" || name == "databricks.yaml") return PinFile::bundle;
  return PinFile::none;
}

std::optional<std::string> pinned_by(PinFile kind, std::string_view text) {
  switch (kind) {
    case PinFile::requirements:
      return spark_pinned_by_requirements_txt(text);
    case PinFile::pyproject:
      return spark_pinned_by_pyproject(text);
    case PinFile::setup_py:
      return spark_pinned_by_setup_py(text);
    case PinFile::setup_cfg:
      return spark_pinned_by_setup_cfg(text);
    case PinFile::environment:
      return spark_pinned_by_environment_yml(text);
    case PinFile::bundle:
      return spark_pinned_by_databricks_bundle(text);
    case PinFile::none:
      break;
  }
  return std::nullopt;
}

// The regular files of a folder whose names `keep` accepts, sorted by name.
template <class F>
std::vector<fs::path> files_in(const fs::path& dir, F&& keep) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (keep(it->path().filename().native()) && it->is_regular_file(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

// The folder as an absolute, lexically normal path without a '/' at the end.
fs::path normal_folder(const fs::path& dir) {
  std::error_code ec;
  fs::path d = fs::absolute(dir.empty() ? fs::path(".") : dir, ec).lexically_normal();
  if (!d.empty() && d.filename().empty() && d != d.root_path()) d = d.parent_path();
  return d;
}

}  // namespace

const ProjectVersionFinder::Folder& ProjectVersionFinder::folder(const fs::path& dir) {
  auto [it, fresh] = folders_.try_emplace(dir.native());
  Folder& f = it->second;
  if (!fresh) return f;
  std::error_code ec;
  bool bundle = false, requirements_dir = false, resources_dir = false;
  std::vector<std::pair<fs::path, PinFile>> files;
  for (fs::directory_iterator entry(dir, ec), end; !ec && entry != end; entry.increment(ec)) {
    const std::string name = entry->path().filename().native();
    if (name == ".git") {
      f.repository_root = true;
      continue;
    }
    std::error_code type_ec;
    if (entry->is_directory(type_ec)) {
      requirements_dir = requirements_dir || name == "requirements";
      resources_dir = resources_dir || name == "resources";
      continue;
    }
    const PinFile kind = kind_of(name);
    if (kind == PinFile::none || !entry->is_regular_file(type_ec)) continue;
    bundle = bundle || kind == PinFile::bundle;
    files.emplace_back(entry->path(), kind);
  }
  if (requirements_dir)
    for (auto& p : files_in(dir / "requirements", [](const std::string& n) { return n.ends_with(".txt"); }))
      files.emplace_back(std::move(p), PinFile::requirements);
  f.databricks_bundle = bundle;
  if (bundle && resources_dir)  // a bundle's job definitions
    for (auto& p :
         files_in(dir / "resources", [](const std::string& n) { return n.ends_with(".yml") || n.ends_with(".yaml"); }))
      files.emplace_back(std::move(p), PinFile::bundle);
  std::sort(files.begin(), files.end());
  for (const auto& [path, kind] : files) {
    auto version = pinned_by(kind, read_small_file(path));
    if (version && (!f.pin || older_version(*version, f.pin->version))) f.pin = PinnedSpark{*version, path};
  }
  return f;
}

bool ProjectVersionFinder::in_databricks_bundle(const fs::path& dir, const fs::path& root) {
  fs::path d = normal_folder(dir);
  const fs::path stop = root.empty() ? fs::path() : normal_folder(root);
  for (int guard = 0; guard < 256 && !d.empty(); ++guard) {
    const Folder& f = folder(d);
    if (f.databricks_bundle) return true;
    if (f.repository_root || d == stop || d == d.root_path()) break;
    d = d.parent_path();
  }
  return false;
}

namespace {

// Whether a folder tree holds a Databricks notebook (a source notebook, or a Jupyter export of one),
// looking at no more than `budget` entries.
bool holds_databricks_notebook(const fs::path& top, int budget) {
  static constexpr std::string_view kMark = "# Databricks notebook source";
  static constexpr std::string_view kJupyterMark = "application/vnd.databricks";
  static constexpr std::size_t kJupyterHead = 8192;
  std::error_code ec;
  fs::recursive_directory_iterator it(top, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end && budget-- > 0; it.increment(ec)) {
    const std::string name = it->path().filename().native();
    std::error_code type_ec;
    if (it->is_directory(type_ec)) {
      if (name.starts_with('.') || name == "node_modules" || name == "site-packages" || name == "__pycache__" ||
          name == "venv")
        it.disable_recursion_pending();
      continue;
    }
    const bool jupyter = name.ends_with(".ipynb");
    if ((!name.ends_with(".py") && !jupyter) || !it->is_regular_file(type_ec)) continue;
    std::ifstream in(it->path(), std::ios::binary);
    // A Jupyter export of a Databricks notebook says so in its first cell's metadata.
    std::string head(jupyter ? kJupyterHead : kMark.size(), '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    if (jupyter ? head.find(kJupyterMark) != std::string::npos : head == kMark) return true;
  }
  return false;
}

}  // namespace

bool ProjectVersionFinder::in_databricks_repository(const fs::path& dir, const fs::path& root) {
  fs::path d = normal_folder(dir);
  const fs::path stop = root.empty() ? fs::path() : normal_folder(root);
  for (int guard = 0; guard < 256 && !d.empty(); ++guard) {
    if (folder(d).repository_root) {
      auto [it, fresh] = repositories_.try_emplace(d.native(), false);
      if (fresh) it->second = holds_databricks_notebook(d, kMaxScanned);
      return it->second;
    }
    if (d == stop || d == d.root_path()) break;
    d = d.parent_path();
  }
  return false;
}

std::optional<PinnedSpark> ProjectVersionFinder::find(const fs::path& dir, const fs::path& root) {
  fs::path d = normal_folder(dir);
  const fs::path stop = root.empty() ? fs::path() : normal_folder(root);
  for (int guard = 0; guard < 256 && !d.empty(); ++guard) {
    const Folder& f = folder(d);
    if (f.pin) return f.pin;
    if (f.repository_root || d == stop || d == d.root_path()) break;
    d = d.parent_path();
  }
  return std::nullopt;
}

}  // namespace planlint::lint
