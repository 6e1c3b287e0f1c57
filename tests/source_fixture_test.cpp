// Runs every fixture under fixtures/source: `# expect: rule[, rule]` (or `-- expect:` in SQL cells, `// expect:` in
// Scala cells) names the findings of the next line in the same cell; anything unexpected fails the test.
// `rule:info` (or `:warning`, `:error`) also asks for that severity: severity follows evidence, and
// the fixtures of the volume rules say which evidence makes which.
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <set>
#include <sstream>

#include "lint/engine.hpp"
#include "lint/rule.hpp"
#include "pyspark/model.hpp"
#include "pyspark/notebook.hpp"
#include "pyspark/project.hpp"
#include "test_util.hpp"

using namespace planlint::lint;

namespace {

using Key = std::tuple<int, std::uint32_t, std::string>;  // cell (0: plain file), line, rule[:severity]

std::multiset<Key> expectations(const std::string& path, const std::string& raw) {
  auto file = planlint::pyspark::load_source(path, raw);
  bool notebook = file.kind != planlint::pyspark::SourceKind::python;
  std::multiset<Key> out;
  for (const auto& cell : file.cells) {
    std::istringstream in(cell.text);
    std::string line;
    std::uint32_t n = 0;
    std::vector<std::string> pending;
    while (std::getline(in, line)) {
      ++n;
      auto first = line.find_first_not_of(" \t");
      std::string_view t = first == std::string::npos ? std::string_view{} : std::string_view(line).substr(first);
      if (t.rfind("# expect:", 0) == 0 || t.rfind("-- expect:", 0) == 0 || t.rfind("// expect:", 0) == 0) {
        std::string list(t.substr(t.find(':') + 1));
        std::stringstream ss(list);
        std::string item;
        while (std::getline(ss, item, ',')) {
          item.erase(0, item.find_first_not_of(' '));
          item.erase(item.find_last_not_of(' ') + 1);
          if (!item.empty()) pending.push_back(item);
        }
        continue;
      }
      if (t.empty()) continue;
      for (const auto& p : pending) out.insert({notebook ? cell.number : 0, n, p});
      pending.clear();
    }
  }
  return out;
}

std::vector<std::filesystem::path> source_fixtures() {
  auto dir = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "source";
  auto files = planlint::test::files_under(dir, ".py");
  auto nbs = planlint::test::files_under(dir, ".ipynb");
  files.insert(files.end(), nbs.begin(), nbs.end());
  for (const auto& json : planlint::test::files_under(dir, ".json"))  // Synapse notebooks: notebook/<name>.json
    if (planlint::pyspark::is_synapse_notebook_path(json.generic_string())) files.push_back(json);
  return files;
}

LintOptions every_rule() {
  LintOptions o;
  o.select = {"ALL"};
  return o;
}

}  // namespace

TEST_CASE("source fixtures produce exactly the annotated findings", "[source]") {
  auto files = source_fixtures();
  REQUIRE(files.size() >= 30);
  for (const auto& path : files) {
    INFO(path.string());
    std::string raw = planlint::test::read_file(path);
    auto expected = expectations(path.string(), raw);
    FileResult r = lint_source_text(path.string(), raw, every_rule());
    std::multiset<Key> got;
    for (const auto& d : r.diagnostics) {
      bool in_cell = d.location.cell > 0;
      got.insert({d.location.cell, in_cell ? d.location.cell_line : d.location.line,
                  std::string(d.rule->name) + ":" + std::string(to_string(d.severity))});
    }
    if (path.filename().string() == "bad_truncated.ipynb") {
      REQUIRE(r.diagnostics.size() == 1);
      CHECK(r.diagnostics[0].rule->name == "python-syntax");
      continue;
    }
    for (const auto& e : expected) {
      // `rule` matches the rule at any severity, `rule:severity` only at that one.
      const std::string& want = std::get<2>(e);
      auto it = std::find_if(got.begin(), got.end(), [&](const Key& g) {
        const std::string& have = std::get<2>(g);
        return std::get<0>(g) == std::get<0>(e) && std::get<1>(g) == std::get<1>(e) &&
               (have == want || have.substr(0, have.find(':')) == want);
      });
      if (it == got.end()) {
        FAIL_CHECK("missing: cell " << std::get<0>(e) << " line " << std::get<1>(e) << " [" << std::get<2>(e) << "]");
        continue;
      }
      got.erase(it);
    }
    for (const auto& g : got)
      FAIL_CHECK("unexpected: cell " << std::get<0>(g) << " line " << std::get<1>(g) << " [" << std::get<2>(g) << "]");
  }
}

namespace {

std::string where(const Location& l) {
  return std::to_string(l.cell) + ":" + std::to_string(l.line) + ":" + std::to_string(l.column) + "-" +
         std::to_string(l.end_line) + ":" + std::to_string(l.end_column) + " " + std::to_string(l.cell_line) + ":" +
         std::to_string(l.cell_column);
}

// Everything a report shows of the findings, one line each.
std::vector<std::string> described(const FileResult& r) {
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics) {
    std::string s = std::string(d.rule->name) + " " + where(d.location) + " " + d.message + " #" + d.fingerprint.str();
    for (const auto& rel : d.related) s += " | " + where(rel.location) + " " + rel.message;
    if (d.fix) {
      s += " fix " + d.fix->title + ": " + d.fix->suggestion;
      for (const auto& e : d.fix->edits)
        s += " [" + where(e.range) + " " + std::to_string(e.cell) + " " + std::to_string(e.start_byte) + "-" +
             std::to_string(e.end_byte) + " '" + e.replacement + "']";
    }
    out.push_back(std::move(s));
  }
  return out;
}

bool has_syntax_error(const FileResult& r) {
  return std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                     [](const Diagnostic& d) { return d.rule == &python_syntax_rule(); });
}

}  // namespace

// A large .py file is parsed a run of top-level statements at a time. Cut before every statement
// (runs of 1 byte) or every few KB, each fixture must give what one parse of the whole file gives;
// so must all the fixtures in one file, where runs hold many statements and bindings cross them.
TEST_CASE("findings do not depend on where a file is cut into runs of statements", "[source]") {
  const std::size_t whole = std::numeric_limits<std::size_t>::max();
  std::string all;
  std::size_t compared = 0;
  for (const auto& path : source_fixtures()) {
    std::string raw = planlint::test::read_file(path);
    FileResult one = lint_source_text(path.string(), raw, every_rule(), whole);
    // A file with a syntax error is not compared: where the error is found may depend on the cut.
    if (has_syntax_error(one)) continue;
    INFO(path.string());
    ++compared;
    CHECK(described(lint_source_text(path.string(), raw, every_rule(), 1)) == described(one));
    if (path.extension() == ".py" && raw.rfind("# Databricks notebook source", 0) != 0 &&
        raw.rfind("# Fabric notebook source", 0) != 0)
      all += raw + "\n";
  }
  CHECK(compared >= 80);
  INFO("all fixtures in one file");
  FileResult one = lint_source_text("all.py", all, every_rule(), whole);
  REQUIRE(!has_syntax_error(one));
  CHECK(one.diagnostics.size() > 100);
  for (std::size_t run : {std::size_t{1}, std::size_t{4096}, std::size_t{65536}}) {
    INFO("runs of " << run << " bytes");
    CHECK(described(lint_source_text("all.py", all, every_rule(), run)) == described(one));
  }
}

// A chain of a later cell at the same bytes as one of an earlier cell is its own chain.
TEST_CASE("chains at the same bytes of two cells are two chains", "[source][notebook]") {
  auto path = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "source" / "notebooks" / "bad_same_bytes.ipynb";
  FileResult r = lint_source_text(path.string(), planlint::test::read_file(path), every_rule());
  std::set<int> cells;
  for (const auto& d : r.diagnostics)
    if (d.rule->name == "collect-large") cells.insert(d.location.cell);
  CHECK(cells == std::set<int>{1, 2});
}

TEST_CASE("every source rule has positive and negative fixtures", "[source]") {
  auto dir = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "source";
  for (const auto& r : planlint::lint::all_rules()) {
    if (r.source_check == nullptr && r.info != &python_syntax_rule()) continue;
    INFO(r.info->name);
    bool bad = false, ok = false;
    for (const auto& p : planlint::test::files_under(dir / std::string(r.info->name), ".py")) {
      bad = bad || p.filename().string().rfind("bad_", 0) == 0;
      ok = ok || p.filename().string().rfind("ok_", 0) == 0;
    }
    CHECK(bad);
    CHECK(ok);
  }
}

TEST_CASE("notebook findings map to the cell and to the raw JSON line", "[source][notebook]") {
  auto path = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "source" / "notebooks" / "bad_pretty.ipynb";
  std::string raw = planlint::test::read_file(path);
  FileResult r = lint_source_text(path.string(), raw, every_rule());
  const Diagnostic* d = nullptr;
  for (const auto& x : r.diagnostics)
    if (x.rule->name == "redundant-shuffle") d = &x;
  REQUIRE(d != nullptr);
  CHECK(d->location.cell == 3);
  CHECK(d->location.cell_line == 3);
  CHECK(d->location.cell_column == 17);
  // The raw line is the JSON line that holds this source line.
  std::istringstream in(raw);
  std::string line;
  std::uint32_t n = 0, want = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find("counts = orders.repartition") != std::string::npos) want = n;
  }
  CHECK(d->location.line == want);
}

TEST_CASE("Databricks cells and MAGIC lines map to file lines", "[source][notebook]") {
  auto path = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "source" / "notebooks" / "bad_databricks.py";
  std::string raw = planlint::test::read_file(path);
  FileResult r = lint_source_text(path.string(), raw, every_rule());
  bool found = false;
  for (const auto& d : r.diagnostics) {
    if (d.rule->name != "hardcoded-shuffle-partitions") continue;
    found = true;
    CHECK(d.location.cell == 3);
    CHECK(d.location.line == 17);   // "# MAGIC SET spark.sql.shuffle.partitions = 4000"
    CHECK(d.location.column == 9);  // after the "# MAGIC " prefix
  }
  CHECK(found);
}

TEST_CASE("noqa suppresses by id, by name, bare, and file-wide", "[source]") {
  std::string src =
      "rows = spark.table('t').join(spark.table('u'), 'k').collect()  # noqa: SPK203\n"
      "rows = spark.table('t').join(spark.table('u'), 'k').collect()  # noqa: collect-large\n"
      "rows = spark.table('t').join(spark.table('u'), 'k').collect()  # noqa\n"
      "rows = spark.table('t').join(spark.table('u'), 'k').collect()  # noqa: cartesian-join\n";
  auto r = lint_source_text("a.py", src, LintOptions{});
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].location.line == 4);
  auto file_wide = lint_source_text("b.py", "# planlint: noqa: collect-large\n" + src, LintOptions{});
  CHECK(file_wide.diagnostics.empty());
}

TEST_CASE("each source rule's documented example fires and its fix does not", "[source][docs]") {
  for (const auto& r : planlint::lint::all_rules()) {
    if (r.source_check == nullptr) continue;
    INFO(r.info->name);
    std::vector<std::string> blocks;
    std::string_view doc = r.info->doc;
    for (std::size_t pos = 0; (pos = doc.find("```python\n", pos)) != std::string_view::npos;) {
      pos += 10;
      auto end = doc.find("```", pos);
      blocks.emplace_back(doc.substr(pos, end - pos));
      pos = end + 3;
    }
    REQUIRE(blocks.size() == 2);
    auto fired = [&](const std::string& text) {
      for (const auto& d : lint_source_text("example.py", text, every_rule()).diagnostics)
        if (d.rule == r.info) return true;
      return false;
    };
    CHECK(fired(blocks[0]));
    CHECK(!fired(blocks[1]));
  }
}

// Past one run, a syntax error stops the analysis where it is: it is reported at its own line, and
// the statements of the runs before it are analysed (a small file with an error gives no findings).
TEST_CASE("a syntax error in a later run of a large file is reported at its line", "[source]") {
  std::string text = "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n";
  std::uint32_t lines = 2;
  while (text.size() < 3 * planlint::pyspark::kPythonChunkBytes) {
    text += "rows" + std::to_string(lines) + " = spark.table(\"t\").join(spark.table(\"u\"), \"k\").collect()\n";
    ++lines;
  }
  text += "def broken(:\n    pass\n";
  FileResult r = lint_source_text("large.py", text, every_rule());
  std::size_t collects = 0;
  const Diagnostic* syntax = nullptr;
  for (const auto& d : r.diagnostics) {
    if (d.rule->name == "collect-large") ++collects;
    if (d.rule == &python_syntax_rule()) syntax = &d;
  }
  REQUIRE(syntax != nullptr);
  CHECK(syntax->location.line == lines + 1);
  CHECK(collects > 0);
  CHECK(collects < lines - 2);  // the run holding the error is not analysed
}

TEST_CASE("imports and %run lines are read from .py, notebook JSON and MAGIC lines", "[project]") {
  using planlint::pyspark::ImportRef;
  auto refs = planlint::pyspark::scan_imports(
      "import os, jobs.common as c\n"
      "from ..shared.udfs import score  # a comment\n"
      "    \"from utils import x\\n\",\n"
      "# MAGIC %run ./config\n"
      "%run \"../lib/setup nb\"\n"
      "%run $dynamic\n"
      "x = 'from nowhere import y'\n");
  std::vector<std::string> got;
  for (const auto& r : refs) got.push_back((r.kind == ImportRef::Kind::run ? "run " : "") + r.target);
  CHECK(got ==
        std::vector<std::string>{"os", "jobs.common", "..shared.udfs", "utils", "run ./config", "run ../lib/setup nb"});
}

TEST_CASE("a module is found from the importer's folder, its parents up to the project root, and relative imports",
          "[project]") {
  namespace fs = std::filesystem;
  using planlint::pyspark::resolve_module;
  using planlint::pyspark::resolve_run;
  const fs::path root = fs::path(PLANLINT_FIXTURES_DIR) / "source" / "project";
  CHECK(resolve_module(root, "common.udfs") == root / "common/udfs.py");
  CHECK(resolve_module(root / "common", "common.udfs") == root / "common/udfs.py");  // from a parent
  CHECK(resolve_module(root, "common") == root / "common/__init__.py");
  CHECK(resolve_module(root / "common", ".udfs") == root / "common/udfs.py");
  CHECK(resolve_module(root / "common", "..common.udfs") == root / "common/udfs.py");
  CHECK_FALSE(resolve_module(root, "pyspark.sql.functions"));
  CHECK_FALSE(resolve_module(root, "common.missing"));
  CHECK(resolve_run(root, "./setup_notebook")->lexically_normal() == (root / "setup_notebook.py").lexically_normal());
  CHECK_FALSE(resolve_run(root, "/Workspace/Shared/setup"));
}
