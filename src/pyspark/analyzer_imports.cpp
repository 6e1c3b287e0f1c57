// The imports of a file and what they bring from the project's own modules (UDFs, functions that
// return a DataFrame, literal collections, Databricks and Arrow), and %run includes.
#include <cctype>
#include <string>
#include <string_view>

#include "pyspark/analyzer_impl.hpp"
#include "pyspark/model.hpp"
#include "pyspark/project.hpp"
#include "pyspark/syntax_access.hpp"

namespace planlint::pyspark::detail {

void Analyzer::handle_import(Node n) {
  for (Node c : named_children(n)) {
    if (is<"dotted_name">(c)) {
      std::string name = text(c);
      m_.set_import(name.substr(0, name.find('.')), name.substr(0, name.find('.')));
      m_.set_import(name, name);
      use_module(name, name);
    } else if (is<"aliased_import">(c)) {
      m_.set_import(view(field<"alias">(c)), text(field<"name">(c)));
      use_module(text(field<"name">(c)), text(field<"alias">(c)));
    }
  }
}

void Analyzer::handle_import_from(Node n) {
  std::string module = text(field<"module_name">(n));
  const ModuleExports* from = imported(module);
  for (Node c : named_children(n)) {
    if (c == field<"module_name">(n)) continue;
    if (is<"wildcard_import">(c)) {
      m_.star_imports.insert(module);
      if (from != nullptr) use_all(*from);
    } else if (is<"dotted_name">(c)) {
      m_.set_import(view(c), module + "." + text(c));
      if (from != nullptr) use_export(*from, text(c), text(c), module + "." + text(c));
    } else if (is<"aliased_import">(c)) {
      const std::string name = text(field<"name">(c));
      m_.set_import(view(field<"alias">(c)), module + "." + name);
      if (from != nullptr) use_export(*from, name, text(field<"alias">(c)), module + "." + name);
    }
  }
}

void Analyzer::use_export(const ModuleExports& from, const std::string& name, const std::string& local,
                          const std::string& qualified) {
  if (from.row_udfs.count(name) != 0) {
    m_.udf_names.insert(local);
    m_.udf_names.insert(qualified);
  }
  if (from.pandas_udfs.count(name) != 0) {
    m_.pandas_udf_names.insert(local);
    m_.pandas_udf_names.insert(qualified);
  }
  if (from.nondeterministic_udfs.count(name) != 0) {
    m_.nondeterministic_udfs.insert(local);
    m_.nondeterministic_udfs.insert(qualified);
  }
  if (from.dataframe_functions.count(name) != 0) m_.add_function(qualified).returns_dataframe = true;
  if (auto it = from.functions.find(name); it != from.functions.end()) {
    FunctionInfo& f = m_.add_function(qualified);
    f.imported = true;
    f.params = it->second.params;
    f.param_actions = it->second.param_actions;
    f.cached_params = it->second.cached_params;
    f.spark_params.insert(it->second.spark_params.begin(), it->second.spark_params.end());
    for (const auto& [param, action] : it->second.param_actions)
      if (action == "write") f.spark_params.insert(param);  // only a Spark DataFrame has .write
    f.returns_shuffle = it->second.returns_shuffle;
    f.returns_cache = it->second.returns_cache;
    f.returns_few = it->second.returns_few;
  }
  if (from.code_paths.count(name) != 0) {
    m_.code_paths.insert(local);
    m_.code_paths.insert(qualified);
  }
  if (auto it = from.literal_sizes.find(name); it != from.literal_sizes.end()) {
    m_.literal_collections.insert(local);
    m_.literal_sizes[local] = it->second;
  }
}

void Analyzer::use_all(const ModuleExports& from) {
  for (const auto& u : from.row_udfs) use_export(from, u, u, u);
  for (const auto& u : from.pandas_udfs) use_export(from, u, u, u);
  for (const auto& f : from.dataframe_functions) use_export(from, f, f, f);
  for (const auto& [l, size] : from.literal_sizes) use_export(from, l, l, l);
  for (const auto& [f, facts] : from.functions) use_export(from, f, f, f);
  for (const auto& p : from.code_paths) use_export(from, p, p, p);
}

void Analyzer::use_module(const std::string& module, const std::string& local) {
  const ModuleExports* from = imported(module);
  if (from == nullptr) return;
  auto each = [&](const std::string& name) { use_export(*from, name, local + "." + name, module + "." + name); };
  for (const auto& u : from->row_udfs) each(u);
  for (const auto& u : from->pandas_udfs) each(u);
  for (const auto& f : from->dataframe_functions) each(f);
  for (const auto& [l, size] : from->literal_sizes) each(l);  // `for c in config.COLUMNS:`
  for (const auto& [f, facts] : from->functions) each(f);
  for (const auto& p : from->code_paths) each(p);  // `config.HERE`
}

void Analyzer::load_imports() {
  std::vector<ImportRef> refs;
  if (file_.kind != SourceKind::python) refs = scan_imports(file_.raw);
  for (const Cell& cell : file_.cells)
    if (cell.language == CellLanguage::python)
      for (ImportRef& r : scan_imports(cell.unmasked())) refs.push_back(std::move(r));
  std::vector<const ModuleExports*> runs;
  for (const ImportRef& r : refs) {
    if (r.kind == ImportRef::Kind::run) {
      if (const ModuleExports* from = project_index().run_target(file_.path, r.target)) runs.push_back(from);
    } else if (imports_.count(r.target) == 0) {
      imports_.emplace(r.target, project_index().module(file_.path, r.target));
    }
  }
  for (const ModuleExports* from : runs) use_all(*from);
  for (const ModuleExports* from : runs) {
    m_.imports_databricks = m_.imports_databricks || from->databricks;
    m_.imports_arrow = m_.imports_arrow || from->arrow;
  }
  for (const auto& [name, from] : imports_) {
    m_.imports_databricks = m_.imports_databricks || (from != nullptr && from->databricks);
    m_.imports_arrow = m_.imports_arrow || (from != nullptr && from->arrow);
  }
  assume_functions_alias();
}

// `F.udf`, `F.col` in a notebook or script that never binds `F` (its imports are in a notebook run
// before it, or an interactive session's first cell): PySpark's functions module, the name's
// universal use. Any binding of `F` in the file (an import, `F = ...`, `def F`) is what it says instead.
void Analyzer::assume_functions_alias() {
  bool used = false;
  for (const Cell& cell : file_.cells) {
    if (cell.language != CellLanguage::python) continue;
    const std::string_view t = cell.text;
    for (std::size_t at = t.find_first_of("F#"); at != std::string_view::npos; at = t.find_first_of("F#", at + 1)) {
      if (t[at] == '#') {  // a comment, to the end of its line
        at = t.find('\n', at);
        if (at == std::string_view::npos) break;
        continue;
      }
      const bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(t[at - 1])) || t[at - 1] == '_' ||
                                       t[at - 1] == '.' || t[at - 1] == '\'' || t[at - 1] == '"');
      if (!starts || at + 1 >= t.size()) continue;
      const char next = t[at + 1];
      if (std::isalnum(static_cast<unsigned char>(next)) || next == '_') continue;  // a longer name
      if (next == '.') {
        used = true;
        continue;
      }
      // `import ... as F`, `F = ...`, `def F(`, `class F`, `for F in`: bound here.
      std::size_t k = at + 1;
      while (k < t.size() && (t[k] == ' ' || t[k] == '\t')) ++k;
      if (k < t.size() && t[k] == '=' && (k + 1 >= t.size() || t[k + 1] != '=')) return;
      std::size_t b = at;
      while (b > 0 && (t[b - 1] == ' ' || t[b - 1] == '\t')) --b;
      std::size_t w = b;
      while (w > 0 && (std::isalnum(static_cast<unsigned char>(t[w - 1])) || t[w - 1] == '_')) --w;
      const std::string_view before = t.substr(w, b - w);
      if (before == "as" || before == "import" || before == "def" || before == "class" || before == "for" ||
          (b > 0 && t[b - 1] == ','))
        return;
    }
  }
  if (used && !m_.has_import("F")) m_.set_import("F", "pyspark.sql.functions");
}

}  // namespace planlint::pyspark::detail
