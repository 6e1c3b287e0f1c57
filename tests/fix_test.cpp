// Fix goldens: fixing a fixture gives its .fixed file, fixing that changes nothing, a fixed file
// has no applicable fix left, fixtures without a golden stay byte-identical; notebook round trips.
#include <catch2/catch.hpp>

#include <cctype>
#include <random>
#include <set>

#include "fix/fixer.hpp"
#include "fix_invariants.hpp"
#include "lint/rule.hpp"
#include "pyspark/model.hpp"
#include "pyspark/notebook.hpp"
#include "test_util.hpp"

using namespace planlint::lint;
using namespace planlint::fix;

namespace {

LintOptions every_rule() {
  LintOptions o;
  o.select = {"ALL"};
  return o;
}

FixOptions with_unsafe() {
  FixOptions f;
  f.unsafe = true;
  return f;
}

std::vector<std::filesystem::path> fixtures() {
  auto dir = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "source";
  auto files = planlint::test::files_under(dir, ".py");
  auto nbs = planlint::test::files_under(dir, ".ipynb");
  files.insert(files.end(), nbs.begin(), nbs.end());
  for (const auto& json : planlint::test::files_under(dir, ".json"))  // Synapse notebooks: notebook/<name>.json
    if (planlint::pyspark::is_synapse_notebook_path(json.generic_string())) files.push_back(json);
  return files;
}

}  // namespace

TEST_CASE("fixing a fixture gives its golden, and only fixtures with a golden change", "[fix]") {
  int goldens = 0;
  for (const auto& path : fixtures()) {
    INFO(path.string());
    std::string raw = planlint::test::read_file(path);
    auto outcome = fix_text(path.string(), raw, every_rule(), with_unsafe());
    auto golden_path = path;
    golden_path += ".fixed";
    if (!std::filesystem::exists(golden_path)) {
      CHECK(outcome.fixed == raw);
      continue;
    }
    ++goldens;
    std::string golden = planlint::test::read_file(golden_path);
    CHECK(outcome.fixed == golden);
    CHECK(outcome.applied > 0);
    CHECK(outcome.dropped.empty());
    // Converged: fixing the golden changes nothing, and no applicable fix is left in it.
    auto again = fix_text(path.string(), golden, every_rule(), with_unsafe());
    CHECK(again.fixed == golden);
    auto syntax_errors = [](const FileResult& r) {
      return std::count_if(r.diagnostics.begin(), r.diagnostics.end(),
                           [](const Diagnostic& d) { return d.rule == &python_syntax_rule(); });
    };
    // A fix never adds a syntax error (the notebook fixture has one broken cell on purpose).
    CHECK(syntax_errors(again.remaining) == syntax_errors(lint_source_text(path.string(), raw, every_rule())));
    for (const auto& d : again.remaining.diagnostics) {
      INFO(d.rule->name << " at " << d.location.line);
      CHECK((!d.fix || d.fix->edits.empty() || d.fix->applicability == Applicability::display_only));
    }
  }
  CHECK(goldens >= 6);
}

TEST_CASE("safe-only fixing leaves unsafe fixes alone", "[fix]") {
  std::string src = "df = spark.table('t')\ndf.coalesce(1).write.parquet('o')\n";
  auto safe = fix_text("a.py", src, every_rule(), FixOptions{});
  CHECK(safe.fixed == src);
  auto unsafe = fix_text("a.py", src, every_rule(), with_unsafe());
  CHECK(unsafe.fixed == "df = spark.table('t')\ndf.write.parquet('o')\n");
}

TEST_CASE("line endings, BOM and final newline are kept", "[fix]") {
  std::string src =
      "\xEF\xBB\xBF\"\"\"doc\"\"\"\r\nevents = spark.table('e')\r\n"
      "j = events.join(spark.createDataFrame([(1,)], ['id']), 'id')";
  auto out = fix_text("a.py", src, every_rule(), FixOptions{});
  CHECK(out.fixed ==
        "\xEF\xBB\xBF\"\"\"doc\"\"\"\r\nfrom pyspark.sql.functions import broadcast\r\nevents = spark.table('e')\r\n"
        "j = events.join(broadcast(spark.createDataFrame([(1,)], ['id'])), 'id')");
}

TEST_CASE("a notebook fix changes only the fixed cell's source", "[fix][notebook]") {
  auto path = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "source" / "notebooks" / "bad_pretty.ipynb";
  std::string raw = planlint::test::read_file(path);
  auto out = fix_text(path.string(), raw, LintOptions{}, with_unsafe());  // default rules: one cell's fix
  REQUIRE(out.fixed != raw);
  auto before = planlint::pyspark::load_source(path.string(), raw);
  auto after = planlint::pyspark::load_source(path.string(), out.fixed);
  REQUIRE(before.cells.size() == after.cells.size());
  int changed = 0;
  for (std::size_t i = 0; i < before.cells.size(); ++i) {
    const auto& b = before.cells[i];
    const auto& a = after.cells[i];
    if (b.text == a.text) continue;
    ++changed;
    // Everything before and after this cell's "source" value is byte-identical.
    CHECK(raw.substr(0, b.source_begin) == out.fixed.substr(0, a.source_begin));
    CHECK(raw.substr(b.source_end) == out.fixed.substr(a.source_end));
  }
  CHECK(changed == 1);
}

TEST_CASE("unified diff of a fix", "[fix]") {
  std::string d = unified_diff("a.py", "a\nb\nc\n", "a\nB\nc\n");
  CHECK(d == "--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  CHECK(unified_diff("a.py", "x\n", "x\n").empty());
}

TEST_CASE("a fix that would add a syntax error is refused, the others applied", "[fix]") {
  std::string src = "df = spark.table('t')\nrows = df.collect()\nx = (1 + 2)\n";
  Fix good{"rename", Applicability::safe, {}, ""};
  Edit e1;
  e1.start_byte = 0;
  e1.end_byte = 2;
  e1.replacement = "events";
  good.edits.push_back(e1);
  Fix broken{"drop a parenthesis", Applicability::safe, {}, ""};
  Edit e2;
  e2.start_byte = static_cast<std::uint32_t>(src.find(')'));
  e2.end_byte = e2.start_byte + 1;
  broken.edits.push_back(e2);
  auto r = apply_round("a.py", src, {good, broken}, LintOptions{});
  CHECK(r.applied == std::vector<std::size_t>{0});
  CHECK(r.refused == std::vector<std::size_t>{1});
  CHECK(r.text == "events = spark.table('t')\nrows = df.collect()\nx = (1 + 2)\n");
}

namespace {

// (filter condition, column) for every filter that reads a column which a later withColumn of its
// pipeline defines: the filter runs before the column exists (or reads its old values).
std::set<std::pair<std::string, std::string>> filters_before_definitions(const std::string& path,
                                                                         const std::string& text) {
  namespace py = planlint::pyspark;
  std::set<std::pair<std::string, std::string>> out;
  py::SourceFile file = py::load_source(path, text);
  py::SourceModel m = py::analyze_source(file);
  for (const auto& chain : m.chains) {
    auto pipeline = chain.pipeline();
    for (std::size_t i = 0; i < pipeline.size(); ++i) {
      const py::Link& f = *pipeline[i].link;
      if ((f.name != "filter" && f.name != "where") || f.args.empty()) continue;
      const py::Expr& cond = f.args[0].value;
      std::set<std::string, std::less<>> reads(cond.column_names().begin(), cond.column_names().end());
      if (cond.string_value()) {
        std::string word;
        for (char c : std::string(*cond.string_value()) + " ") {
          if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
            word += c;
          } else if (!word.empty()) {
            reads.insert(word);
            word.clear();
          }
        }
      }
      for (std::size_t k = i + 1; k < pipeline.size(); ++k) {
        const py::Link& w = *pipeline[k].link;
        if (w.name == "withColumn" && !w.args.empty() && w.args[0].value.string_value() &&
            reads.count(*w.args[0].value.string_value()) != 0)
          out.emplace(cond.text(), *w.args[0].value.string_value());
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a fix never moves a filter above the statement that defines a column it reads", "[fix]") {
  // Every fixture, and shapes where moving the filter to just before the UDF would break the code.
  std::vector<std::pair<std::string, std::string>> cases;
  for (const auto& path : fixtures()) cases.emplace_back(path.string(), planlint::test::read_file(path));
  const char* head =
      "from pyspark.sql import functions as F\nfrom pyspark.sql.functions import udf\n"
      "check = udf(lambda x: x > 1, 'boolean')\norders = spark.table('orders')\n";
  for (const char* body :
       {"a = orders.withColumn('ok', check('id')).withColumn('doubled', F.col('amount') * 2)"
        ".filter(F.col('doubled') > 10)\n",
        "a = orders.withColumn('ok', check('id')).withColumn('amount', F.col('amount') * 2)"
        ".filter(F.col('amount') > 0)\n",
        "a = orders.withColumn('ok', check('id')).withColumn('d', F.col('amount')).where('d > 1')\n",
        "a = (orders.withColumn('ok', check('id'))\n  .withColumn('tax', F.col('amount') * 0.2)\n"
        "  .withColumn('net', F.col('amount') - F.col('tax'))\n  .filter(F.col('net') > 0)\n"
        "  .filter(F.col('amount') > 5))\n",
        "a = orders.withColumn('ok', check('id')).withColumn('tax', F.lit(1)).filter(F.col('amount') > 0)\n"})
    cases.emplace_back("case.py", std::string(head) + body);
  int moved = 0;
  for (const auto& [path, raw] : cases) {
    INFO(path << "\n" << raw);
    auto outcome = fix_text(path, raw, every_rule(), with_unsafe());
    if (outcome.fixed == raw) continue;
    auto before = filters_before_definitions(path, raw);
    auto after = filters_before_definitions(path, outcome.fixed);
    for (const auto& [cond, column] : after) {
      INFO("filter `" << cond << "` now runs before `" << column << "` is defined");
      CHECK(before.count({cond, column}) != 0);
    }
    ++moved;
  }
  CHECK(moved >= 3);  // the fix does move filters: the invariant is not checked on nothing
}

TEST_CASE("cells are found by number: in order, with gaps, and out of order", "[fix]") {
  namespace py = planlint::pyspark;
  py::SourceFile file;
  for (int n : {1, 2, 4, 7}) {
    py::Cell c;
    c.number = n;
    c.text = "cell " + std::to_string(n);
    file.cells.push_back(c);
  }
  for (int n : {1, 2, 4, 7}) {
    const py::Cell* c = py::find_cell(file, n);
    REQUIRE(c != nullptr);
    CHECK(c->text == "cell " + std::to_string(n));
  }
  CHECK(py::find_cell(file, 3) == nullptr);
  CHECK(py::find_cell(file, 0) == nullptr);
  CHECK(py::find_cell(file, 8) == nullptr);
  std::swap(file.cells[0], file.cells[3]);  // 7, 2, 4, 1: found by the scan
  CHECK(py::find_cell(file, 1)->text == "cell 1");
  CHECK(py::find_cell(file, 7)->text == "cell 7");
  // A real notebook: every cell of a generated one, by its number.
  const std::string nb = R"({"cells": [{"cell_type": "code", "source": ["a = 1\n"], "metadata": {}, "outputs": []},)"
                         R"( {"cell_type": "markdown", "source": ["# t"], "metadata": {}},)"
                         R"( {"cell_type": "code", "source": ["b = 2\n"], "metadata": {}, "outputs": []}],)"
                         R"( "metadata": {}, "nbformat": 4, "nbformat_minor": 5})";
  py::SourceFile loaded = py::load_source("n.ipynb", nb);
  for (const auto& c : loaded.cells) CHECK(py::find_cell(loaded, c.number) == &c);
}

TEST_CASE("a Databricks notebook holds its Python cells once and is put back byte for byte", "[fix][notebook]") {
  namespace py = planlint::pyspark;
  const std::string sep = "# COMMAND ----------\n";
  const std::vector<std::string> files = {
      "# Databricks notebook source\n" + std::string("a = 1\n\n") + sep + "# MAGIC %sql\n# MAGIC SELECT 1\n\n" + sep +
          "%pip install x\nb = 2\n",
      "# Databricks notebook source\n" + sep + sep + "c = 3",  // empty cells, no final newline
      "# Databricks notebook source\r\nd = 4\r\n\r\n# COMMAND ----------\r\n# MAGIC %md\r\n# MAGIC t\r\n",  // CRLF
      "x = 1\n# COMMAND ----------\ny = 2\n",  // separators without the header
  };
  for (const auto& text : files) {
    py::SourceFile f = py::load_source("n.py", text);
    REQUIRE(f.kind == py::SourceKind::databricks);
    CHECK(py::whole_raw(f) == text);
    std::size_t python = 0;
    for (const auto& c : f.cells) python += c.verbatim ? c.text.size() : 0;
    CHECK(f.raw.size() + python == text.size());  // what the cells hold is not in raw as well
    CHECK(python > 0);
  }
  for (const auto& path : fixtures()) {
    const std::string text = planlint::test::read_file(path);
    py::SourceFile f = py::load_source(path.string(), text);
    if (f.kind == py::SourceKind::databricks) CHECK(py::whole_raw(f) == text);
  }
}

TEST_CASE("a cell's line table reads as the origins pushed, kept as runs", "[notebook]") {
  namespace py = planlint::pyspark;
  // Runs of consecutive raw lines, lines of one JSON string (one origin repeated), and breaks.
  std::vector<py::LineOrigin> origins;
  for (std::uint32_t n = 5; n < 40; ++n) origins.push_back({n, 1, true});
  for (int k = 0; k < 3; ++k) origins.push_back({41, 7, false});
  origins.push_back({42, 7, false});
  origins.push_back({42, 9, true});
  origins.push_back({43, 9, true});
  origins.push_back({50, 9, true});
  origins.push_back({49, 9, true});
  py::LineTable table;
  for (const auto& o : origins) table.push_back(o);
  REQUIRE(table.size() == origins.size());
  for (std::size_t i = 0; i < origins.size(); ++i) {
    CHECK(table[i].raw_line == origins[i].raw_line);
    CHECK(table[i].raw_column == origins[i].raw_column);
    CHECK(table[i].verbatim == origins[i].verbatim);
  }
  // A .py file: line 1 after the byte-order mark, then every line where it is.
  py::LineTable file;
  file.assign_file_lines(100000, 4);
  CHECK(file.size() == 100000);
  CHECK(file[0].raw_line == 1);
  CHECK(file[0].raw_column == 4);
  CHECK(file[1].raw_line == 2);
  CHECK(file[1].raw_column == 1);
  CHECK(file[99999].raw_line == 100000);
  py::SourceFile f = py::load_source("x.py",
                                     "\xEF\xBB\xBF"
                                     "a = 1\nb = 2\n");
  CHECK(f.cells.front().lines.size() == 2);
  CHECK(f.cells.front().lines[0].raw_column == 4);
  CHECK(f.cells.front().lines[1].raw_line == 2);
}

TEST_CASE("any file is put back byte for byte from the pieces it is held in", "[notebook]") {
  namespace py = planlint::pyspark;
  const std::vector<std::string> pieces = {"# Databricks notebook source\n",
                                           "# COMMAND ----------\n",
                                           "# COMMAND ----------",
                                           "# MAGIC %sql\n",
                                           "# MAGIC SELECT 1\n",
                                           "# MAGIC",
                                           "# DBTITLE 1,t\n",
                                           "%pip install x\n",
                                           "a = 1\n",
                                           "\n",
                                           "\r\n",
                                           "b = 2",
                                           "\xEF\xBB\xBF",
                                           "  \t\n",
                                           "# MAGIC %md\r\n",
                                           "\n# COMMAND ----------\n"};
  std::mt19937 random(7);
  for (int n = 0; n < 3000; ++n) {
    std::string text;
    const std::size_t parts = random() % 14;
    for (std::size_t k = 0; k < parts; ++k) text += pieces[random() % pieces.size()];
    CHECK(py::whole_raw(py::load_source("n.py", text)) == text);
  }
}

// Issue 41: fixes never change behaviour. Every fixture is fixed with every rule and unsafe fixes, and
// the text after is compared with the text before (tests/fix_invariants.hpp lists the invariants).
TEST_CASE("fixes keep the invariants of issue 41 on every fixture", "[fix][invariants]") {
  int caches = 0, unpersists = 0, removed = 0;
  for (const auto& path : fixtures()) {
    const std::string raw = planlint::test::read_file(path);
    auto outcome = fix_text(path.string(), raw, every_rule(), with_unsafe());
    if (outcome.fixed == raw) continue;
    auto report = planlint::test::check_fix_invariants(planlint::test::python_code_of(path.string(), raw),
                                                       planlint::test::python_code_of(path.string(), outcome.fixed));
    for (const auto& v : report.violations) FAIL_CHECK(path.string() << ": " << v);
    caches += report.caches_inserted;
    unpersists += report.unpersists_inserted;
    removed += report.single_partition_removed;
  }
  // The fixes do insert caches and unpersists and remove coalesce(1): the invariants are not checked on nothing.
  CHECK(caches >= 4);
  CHECK(unpersists >= 3);  // one fixture has its unpersist already: the fix adds only the cache
  CHECK(removed >= 1);
}

namespace {

std::vector<std::string> violations(const std::string& before, const std::string& after) {
  return planlint::test::check_fix_invariants(before, after).violations;
}

// Whether one of the violations mentions `what`.
bool mentions(const std::vector<std::string>& found, std::string_view what) {
  return std::any_of(found.begin(), found.end(),
                     [&](const std::string& v) { return v.find(what) != std::string::npos; });
}

}  // namespace

TEST_CASE("the invariant checker reads logical statements", "[fix][invariants]") {
  auto s = planlint::test::python_statements(
      "x = (a  # comment\n     .b('#', \"\"\"t\n\"\"\"))\nif y: return x\n\ndef f():\n    z = 1; w = 2\n");
  REQUIRE(s.size() == 6);
  CHECK(s[0].bare == "x = (a .b(\"\", \"\"))");
  CHECK(s[0].code == "x = (a .b('#', \"\"\"t\n\"\"\"))");
  CHECK(s[1].code == "if y:");
  CHECK(s[2].code == "return x");
  CHECK(s[2].indent > s[1].indent);
  CHECK(s[3].line == 6);
  CHECK(s[4].code == "z = 1");
  CHECK(s[5].code == "w = 2");
  CHECK(s[5].indent == 4);
}

TEST_CASE("the invariant checker accepts what keeps behaviour", "[fix][invariants]") {
  const std::string before =
      "def build(spark):\n"
      "    df = spark.table('a').join(spark.table('b'), 'id')\n"
      "    df.count()\n"
      "    df.write.parquet('/o')\n"
      "    spark.table('c').coalesce(1).write.csv('/c')\n"
      "    return 1\n";
  const std::string after =
      "def build(spark):\n"
      "    df = spark.table('a').join(spark.table('b'), 'id').cache()\n"
      "    df.count()\n"
      "    df.write.parquet('/o')\n"
      "    df.unpersist()\n"
      "    spark.table('c').write.csv('/c')\n"
      "    return 1\n";
  auto report = planlint::test::check_fix_invariants(before, after);
  CHECK(report.violations.empty());
  CHECK(report.caches_inserted == 1);
  CHECK(report.unpersists_inserted == 1);
  CHECK(report.single_partition_removed == 1);
  CHECK(planlint::test::check_fix_invariants(before, before).violations.empty());
}

TEST_CASE("the invariant checker finds a coalesce(1) removed where the output is handled as files",
          "[fix][invariants]") {
  const std::string write = "report = spark.table('sales')\nreport.coalesce(1).write.csv('/tmp/r')\n";
  const std::string parallel = "report = spark.table('sales')\nreport.write.csv('/tmp/r')\n";
  for (const char* then :
       {"dbutils.fs.mv(part, '/exports/r.csv')\n", "os.rename(f'{out}/x', '/exports/r.csv')\n",
        "shutil.move(src, dst)\n", "files = glob.glob('/tmp/r/*.csv')\n", "first = os.listdir('/tmp/r')[0]\n",
        "p = out.partitions[0]\n", "pd.read_csv('/tmp/r/part-00000.csv')\n", "os.replace(a, b)\n"}) {
    INFO(then);
    CHECK(mentions(violations(write + then, parallel + then), "handles the output as files"));
  }
  // A comment about moving files is not code that moves them.
  CHECK(violations(write + "# then dbutils.fs.mv it\n", parallel + "# then dbutils.fs.mv it\n").empty());
  // repartition(1) as well.
  CHECK(!violations("df.repartition(1).write.csv('/o')\ndbutils.fs.cp(a, b)\n",
                    "df.write.csv('/o')\ndbutils.fs.cp(a, b)\n")
             .empty());
}

TEST_CASE("the invariant checker finds a coalesce(1) removed in a foreachBatch callback", "[fix][invariants]") {
  const std::string tail = "stream.writeStream.foreachBatch(self.write_batch).start()\n";
  const std::string before =
      "def save(df):\n    df.coalesce(1).write.mode('append').json('/o')\n"
      "def write_batch(self, df, epoch_id):\n    save(df)\n" +
      tail;
  const std::string after =
      "def save(df):\n    df.write.mode('append').json('/o')\n"
      "def write_batch(self, df, epoch_id):\n    save(df)\n" +
      tail;
  CHECK(mentions(violations(before, after), "`save`, which streaming calls through foreachBatch"));
  CHECK(mentions(violations("s.writeStream.foreachBatch(lambda df, i: df.coalesce(1).write.json('/o'))\n",
                            "s.writeStream.foreachBatch(lambda df, i: df.write.json('/o'))\n"),
                 "in a foreachBatch callback"));
  // The same function not used by streaming: nothing to say.
  CHECK(violations("def save(df):\n    df.coalesce(1).write.json('/o')\n", "def save(df):\n    df.write.json('/o')\n")
            .empty());
}

TEST_CASE("the invariant checker finds a cache on a name bound again or cached already", "[fix][invariants]") {
  const std::string before =
      "df = spark.table('a').join(spark.table('b'), 'id')\n"
      "df.count()\n"
      "df = df.filter('x > 0')\n"
      "df.write.parquet('/o')\n";
  const std::string after =
      "df = spark.table('a').join(spark.table('b'), 'id').cache()\n"
      "df.count()\n"
      "df = df.filter('x > 0')\n"
      "df.write.parquet('/o')\n"
      "df.unpersist()\n";
  CHECK(mentions(violations(before, after), "bound again at line 3"));
  for (const char* rebinding : {"df, n = f(df)\n", "for df in parts:\n    pass\n", "with open(p) as df:\n    pass\n"}) {
    INFO(rebinding);
    CHECK(mentions(violations("df = a.join(b)\n" + std::string(rebinding) + "df.count()\n",
                              "df = a.join(b).cache()\n" + std::string(rebinding) + "df.count()\ndf.unpersist()\n"),
                   "bound again"));
  }
  // Bound again after its unpersist: the cached value was released first.
  CHECK(
      violations("df = a.join(b)\ndf.count()\ndf = c\n", "df = a.join(b).cache()\ndf.count()\ndf.unpersist()\ndf = c\n")
          .empty());
  // Cached already: by a statement of its own, or in its own statement.
  CHECK(mentions(violations("df = a.join(b)\ndf.persist()\ndf.count()\n",
                            "df = a.join(b).cache()\ndf.persist()\ndf.count()\ndf.unpersist()\n"),
                 "cached already"));
  for (const char* view : {"spark.catalog.cacheTable('v')\n", "spark.sql('CACHE LAZY TABLE v')\n"}) {
    INFO(view);
    const std::string head = "df = a.join(b)\ndf.createOrReplaceTempView('v')\n" + std::string(view);
    CHECK(mentions(violations(head + "df.count()\ndf.count()\n",
                              "df = a.join(b).cache()\ndf.createOrReplaceTempView('v')\n" + std::string(view) +
                                  "df.count()\ndf.count()\ndf.unpersist()\n"),
                   "through a temporary view"));
  }
  CHECK(mentions(violations("df = a.persist().join(b)\ndf.count()\n",
                            "df = a.persist().join(b).cache()\ndf.count()\ndf.unpersist()\n"),
                 "cached already"));
}

TEST_CASE("the invariant checker finds an unpersist before a return of that value", "[fix][invariants]") {
  const std::string before =
      "def load(spark):\n"
      "    df = spark.table('a').groupBy('k').count()\n"
      "    df.write.parquet('/o')\n"
      "    print(df.count())\n"
      "    return df\n";
  const std::string after =
      "def load(spark):\n"
      "    df = spark.table('a').groupBy('k').count().cache()\n"
      "    df.write.parquet('/o')\n"
      "    print(df.count())\n"
      "    df.unpersist()\n"
      "    return df\n";
  CHECK(mentions(violations(before, after), "before line 6 returns it"));
  // Returned from a branch further down the function, or yielded.
  CHECK(mentions(violations("def f():\n    df = a.join(b)\n    df.count()\n    if x:\n        return df.select('k')\n",
                            "def f():\n    df = a.join(b).cache()\n    df.count()\n    df.unpersist()\n"
                            "    if x:\n        return df.select('k')\n"),
                 "returns it"));
  CHECK(mentions(violations("def f():\n    df = a.join(b)\n    df.count()\n    yield df\n",
                            "def f():\n    df = a.join(b).cache()\n    df.count()\n    df.unpersist()\n    yield df\n"),
                 "returns it"));
  // Another value returned: fine.
  CHECK(violations("def f():\n    df = a.join(b)\n    df.count()\n    return 1\n",
                   "def f():\n    df = a.join(b).cache()\n    df.count()\n    df.unpersist()\n    return 1\n")
            .empty());
}

TEST_CASE("the invariant checker pairs each inserted cache with one unpersist in its block", "[fix][invariants]") {
  const std::string before = "df = a.join(b)\ndf.count()\ndf.write.parquet('/o')\n";
  // No unpersist.
  CHECK(mentions(violations(before, "df = a.join(b).cache()\ndf.count()\ndf.write.parquet('/o')\n"),
                 "with 0 unpersist()"));
  // Two: one inserted beside one that was there.
  CHECK(mentions(
      violations(before + "df.unpersist()\n",
                 "df = a.join(b).cache()\ndf.count()\ndf.write.parquet('/o')\ndf.unpersist()\ndf.unpersist()\n"),
      "with 2 unpersist()"));
  // One there already: enough.
  CHECK(violations(before + "df.unpersist()\n",
                   "df = a.join(b).cache()\ndf.count()\ndf.write.parquet('/o')\ndf.unpersist()\n")
            .empty());
  // In another block (a branch), or of another name.
  CHECK(mentions(violations(before + "if x:\n    pass\n",
                            "df = a.join(b).cache()\ndf.count()\ndf.write.parquet('/o')\nif x:\n    df.unpersist()\n"),
                 "with 0 unpersist()"));
  CHECK(mentions(violations(before, "df = a.join(b).cache()\ndf.count()\ndf.write.parquet('/o')\nother.unpersist()\n"),
                 "`other` is unpersisted but not cached"));
  // A cache inserted in a function, its unpersist outside it.
  CHECK(mentions(violations("def f():\n    df = a.join(b)\n    df.count()\nx = 1\n",
                            "def f():\n    df = a.join(b).cache()\n    df.count()\nx = 1\ndf.unpersist()\n"),
                 "with 0 unpersist()"));
}
