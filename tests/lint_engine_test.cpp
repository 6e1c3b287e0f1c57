// Engine behaviour: selection, fingerprints that survive renumbering and moved lines, AQE severity.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <string>

#include "lint/engine.hpp"
#include "lint/plan_context.hpp"
#include "lint/rule.hpp"
#include "util/lines.hpp"

using namespace planlint::lint;

namespace {
const char* kPlan =
    "== Physical Plan ==\n"
    "*(2) Filter ((age#2 > 21) AND (pythonUDF0#9 = OK))\n"
    "+- BatchEvalPython [check(name#1)#8], [pythonUDF0#9]\n"
    "   +- *(1) LocalTableScan [name#1, age#2]\n";
}

TEST_CASE("selection by id, name, prefix and ALL", "[engine]") {
  const RuleInfo* udf = find_rule("python-row-udf");
  REQUIRE(udf);
  LintOptions o;
  CHECK(o.enabled(*udf));
  o.ignore = {"SPK201"};
  CHECK(!o.enabled(*udf));
  o.ignore = {};
  o.select = {"SPK2"};  // the Python family
  CHECK(o.enabled(*udf));
  o.select = {"SPK1"};
  CHECK(!o.enabled(*udf));
  o.select = {"PL003"};  // the id before 0.5, still understood
  CHECK(o.enabled(*udf));
  o.select = {"cartesian-join"};
  CHECK(!o.enabled(*udf));
  o.extend_select = {"python-row-udf"};
  CHECK(o.enabled(*udf));
  o.select = {"ALL"};
  o.ignore = {"python-row-udf"};
  CHECK(!o.enabled(*udf));
  o.ignore = {"nope"};
  CHECK(unknown_selectors(o) == std::vector<std::string>{"nope"});
}

TEST_CASE("findings are sorted and carry locations", "[engine]") {
  auto r = lint_plan_text("p.plan", kPlan, LintOptions{});
  REQUIRE(r.diagnostics.size() == 2);
  CHECK(r.diagnostics[0].rule->name == "filter-after-udf");
  CHECK(r.diagnostics[0].location.line == 2);
  CHECK(r.diagnostics[0].location.column == 6);
  CHECK(r.diagnostics[0].location.end_column == 12);
  CHECK(r.diagnostics[1].rule->name == "python-row-udf");
}

TEST_CASE("fingerprints survive renumbered ids and moved lines", "[engine]") {
  auto a = lint_plan_text("p.plan", kPlan, LintOptions{});
  std::string renumbered =
      "\n\n== Physical Plan ==\n"
      "*(5) Filter ((age#72 > 21) AND (pythonUDF0#99 = OK))\n"
      "+- BatchEvalPython [check(name#71)#98], [pythonUDF0#99]\n"
      "   +- *(4) LocalTableScan [name#71, age#72]\n";
  auto b = lint_plan_text("p.plan", renumbered, LintOptions{});
  REQUIRE(a.diagnostics.size() == b.diagnostics.size());
  for (std::size_t i = 0; i < a.diagnostics.size(); ++i) {
    CHECK(a.diagnostics[i].fingerprint == b.diagnostics[i].fingerprint);
    CHECK(a.diagnostics[i].location.line + 2 == b.diagnostics[i].location.line);
  }
  CHECK(a.diagnostics[0].fingerprint != a.diagnostics[1].fingerprint);
  std::string changed = kPlan;
  changed.replace(changed.find("check("), 6, "other(");
  auto c = lint_plan_text("p.plan", changed, LintOptions{});
  CHECK(c.diagnostics[1].fingerprint != a.diagnostics[1].fingerprint);
}

TEST_CASE("normalising a plan line drops ids, plan ids and operator numbers", "[engine]") {
  CHECK(normalize_plan_line("   :  +- Exchange hashpartitioning(k#47, 200), ENSURE_REQUIREMENTS, [plan_id=79]") ==
        "Exchange hashpartitioning(k#, 200), ENSURE_REQUIREMENTS, [plan_id=]");
  CHECK(normalize_plan_line("+- * BroadcastHashJoin Inner BuildRight (24)") ==
        "* BroadcastHashJoin Inner BuildRight ()");
  CHECK(normalize_plan_line("*(3) Project [a#1L]") == "*() Project [a#L]");
  CHECK(normalize_plan_line("Range (0, 10, step=1, splits=2)") == "Range (0, 10, step=1, splits=2)");
}

TEST_CASE("several plans in one file are each linted", "[engine]") {
  std::string two = std::string(kPlan) + "\n" + kPlan;
  auto r = lint_plan_text("p.plan", two, LintOptions{});
  CHECK(r.diagnostics.size() == 4);
  CHECK(r.diagnostics[0].fingerprint != r.diagnostics[2].fingerprint);  // occurrence index differs
}

TEST_CASE("conjuncts split AND and Spark 2's &&, not inside parentheses", "[engine]") {
  CHECK(planlint::lint::conjuncts("((a#1 > 0) AND (b#2 = 1))") == std::vector<std::string>{"a#1 > 0", "b#2 = 1"});
  CHECK(planlint::lint::conjuncts("(isnotnull(a#1) && (a#1 = 5)) && isnotnull(b#2)") ==
        std::vector<std::string>{"isnotnull(a#1)", "a#1 = 5", "isnotnull(b#2)"});
  CHECK(planlint::lint::conjuncts("(a#1 = 1) OR (b#2 AND c#3)").size() == 1);
}

TEST_CASE("tolerated shuffle partition counts are not reported in plans", "[engine]") {
  std::string plan =
      "== Physical Plan ==\n"
      "*(2) HashAggregate(keys=[k#1], functions=[count(1)])\n"
      "+- Exchange hashpartitioning(k#1, 64), ENSURE_REQUIREMENTS, [plan_id=15]\n"
      "   +- *(1) LocalTableScan [k#1]\n";
  LintOptions o;
  o.select = {"hardcoded-shuffle-partitions"};
  CHECK(lint_plan_text("p.plan", plan, o).diagnostics.size() == 1);
  o.tolerated_shuffle_partitions = {64};
  CHECK(lint_plan_text("p.plan", plan, o).diagnostics.empty());
}

TEST_CASE("aqe-disabled follows the plan's Spark version, or target-spark-version", "[engine][version]") {
  // Spark 3.0 markers (`Exchange ..., true, [id=#n]`): AQE exists, off by default: info.
  const char* spark30 =
      "== Physical Plan ==\n"
      "*(2) HashAggregate(keys=[k#1], functions=[count(1)])\n"
      "+- Exchange hashpartitioning(k#1, 200), true, [id=#41]\n"
      "   +- *(1) LocalTableScan [k#1]\n";
  auto severity_of = [](const FileResult& r) {
    for (const auto& d : r.diagnostics)
      if (d.rule->name == "aqe-disabled") return std::optional<Severity>(d.severity);
    return std::optional<Severity>();
  };
  CHECK(severity_of(lint_plan_text("p.plan", spark30, LintOptions{})) == Severity::info);
  LintOptions newer;
  newer.target_spark_version = "3.5";
  auto r = lint_plan_text("p.plan", spark30, newer);
  CHECK(severity_of(r) == Severity::warning);
  REQUIRE(!r.diagnostics.empty());
  CHECK(r.diagnostics.front().message.find("Spark 3.5") != std::string::npos);
  LintOptions older;
  older.target_spark_version = "2.4";
  CHECK(!severity_of(lint_plan_text("p.plan", spark30, older)));
  // The same plan as Spark 3.4+ prints it ([plan_id=n]): switched off on purpose: warning.
  std::string spark34 = spark30;
  spark34.replace(spark34.find("true, [id=#41]"), 14, "ENSURE_REQUIREMENTS, [plan_id=41]");
  CHECK(severity_of(lint_plan_text("p.plan", spark34, LintOptions{})) == Severity::warning);
  // A chosen count: one finding, from hardcoded-shuffle-partitions; with that rule off, aqe-disabled.
  std::string chosen = spark34;
  chosen.replace(chosen.find("200"), 3, "400");
  auto one = lint_plan_text("p.plan", chosen, LintOptions{});
  REQUIRE(one.diagnostics.size() == 1);
  CHECK(one.diagnostics[0].rule->name == "hardcoded-shuffle-partitions");
  LintOptions without;
  without.ignore = {"hardcoded-shuffle-partitions"};
  CHECK(severity_of(lint_plan_text("p.plan", chosen, without)) == Severity::warning);
}

TEST_CASE("count-for-emptiness follows the target Spark version", "[engine][source]") {
  const std::string code =
      "from pyspark.sql import SparkSession\n"
      "spark = SparkSession.builder.getOrCreate()\n"
      "df = spark.table('t')\n"
      "if df.count() > 0:\n"
      "    pass\n";
  LintOptions o;
  o.select = {"count-for-emptiness"};
  auto current = lint_source_text("job.py", code, o);
  REQUIRE(current.diagnostics.size() == 1);
  REQUIRE(current.diagnostics[0].fix);
  CHECK(current.diagnostics[0].fix->edits.at(0).replacement == "not df.isEmpty()");
  CHECK(current.diagnostics[0].fix->applicability == Applicability::safe);
  o.target_spark_version = "3.2";  // DataFrame.isEmpty() came in 3.3
  auto old = lint_source_text("job.py", code, o);
  REQUIRE(old.diagnostics.size() == 1);
  CHECK(old.diagnostics[0].fix->edits.at(0).replacement == "len(df.head(1)) > 0");
}

TEST_CASE("topandas-without-arrow is off for a Spark 4.2 target, where Arrow is the default", "[engine][source]") {
  const std::string code =
      "from pyspark.sql import SparkSession\n"
      "spark = SparkSession.builder.getOrCreate()\n"
      "pdf = spark.table('t').toPandas()\n";
  LintOptions o;
  o.select = {"topandas-without-arrow"};
  CHECK(lint_source_text("job.py", code, o).diagnostics.size() == 1);
  o.target_spark_version = "4.1";
  CHECK(lint_source_text("job.py", code, o).diagnostics.size() == 1);
  o.target_spark_version = "4.2";
  CHECK(lint_source_text("job.py", code, o).diagnostics.empty());
}

TEST_CASE("python-row-udf names the built-ins from what the UDF body does", "[engine][source]") {
  const std::string code =
      "from pyspark.sql import functions as F\n"
      "@F.udf('boolean')\n"
      "def all_positive(values):\n"
      "    return all(v > 0 for v in values)\n"
      "def title_words(line):\n"
      "    return ' '.join(w.capitalize() for w in line.split(' '))\n"
      "title_udf = F.udf(title_words, 'string')\n"
      "stamp = F.udf(lambda d: d.strftime('%Y-%m'))\n";
  LintOptions o;
  o.select = {"python-row-udf"};
  auto r = lint_source_text("job.py", code, o);
  REQUIRE(r.diagnostics.size() == 3);
  CHECK(r.diagnostics[0].message.find("`forall`") != std::string::npos);
  CHECK(r.diagnostics[1].message.find("`initcap`") != std::string::npos);
  CHECK(r.diagnostics[1].message.find("higher-order") == std::string::npos);
  CHECK(r.diagnostics[2].message.find("`date_format`") != std::string::npos);
}

TEST_CASE("recomputed-lineage is linear on self-joins of self-joins", "[engine][source]") {
  // Each level joins the previous one with itself: 2^60 paths from the first DataFrame to the write.
  std::string code =
      "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
      "d0 = spark.table('t').groupBy('k').count()\n";
  for (int i = 1; i <= 60; ++i)
    code += "d" + std::to_string(i) + " = d" + std::to_string(i - 1) + ".join(d" + std::to_string(i - 1) + ", 'k')\n";
  code += "d60.write.parquet('/out')\n";
  LintOptions o;
  o.select = {"recomputed-lineage"};
  auto r = lint_source_text("job.py", code, o);
  CHECK(r.diagnostics.size() == 60);  // d0..d59 are each read twice by the next join
}

TEST_CASE("bytes and lines are counted eight at a time as std::count counts them", "[engine]") {
  using planlint::util::count_byte;
  using planlint::util::line_count;
  CHECK(line_count("") == 0);
  CHECK(line_count("a") == 1);
  CHECK(line_count("a\n") == 1);
  CHECK(line_count("a\nb") == 2);
  CHECK(line_count(std::string(5000, '\n')) == 5000);  // lanes of one byte fill past 255 words
  std::mt19937 rng(7);
  for (int round = 0; round < 3000; ++round) {
    std::string s(rng() % (round < 100 ? 6000 : 90), ' ');
    const unsigned kind = rng() % 3;
    for (char& c : s)
      c = kind == 0 ? static_cast<char>(rng() % 256) : kind == 1 ? "\n\nx"[rng() % 3] : static_cast<char>(rng() % 4);
    const std::string_view tail = std::string_view(s).substr(rng() % (s.size() + 1));  // unaligned starts
    for (char b : {'\n', '\0', '\x80', '\xff', '\x01'}) {
      CHECK(count_byte(s, b) == static_cast<std::size_t>(std::count(s.begin(), s.end(), b)));
      CHECK(count_byte(tail, b) == static_cast<std::size_t>(std::count(tail.begin(), tail.end(), b)));
    }
  }
}
