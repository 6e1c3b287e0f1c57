// planlint diff: the plan-change rules' documented examples, operator matching on real plans
// (renumbered ids are no change; a plan against itself is no change; swapping the sides swaps added
// and removed), and findings on real pairs of plans from ../shared/corpus.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "lint/diff_engine.hpp"
#include "lint/rule.hpp"
#include "test_util.hpp"

using namespace planlint::lint;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

PlanDiffResult diff(const std::string& before, const std::string& after) {
  LintOptions o;
  o.select = {"ALL"};
  return diff_plan_texts("before.plan", before, "after.plan", after, o);
}

std::map<std::string, int> counts(const PlanDiffResult& r) {
  std::map<std::string, int> out;
  for (const auto& d : r.result.diagnostics) ++out[std::string(d.rule->name)];
  return out;
}

std::vector<std::string> plan_blocks(std::string_view doc) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while ((pos = doc.find("```plan\n", pos)) != std::string_view::npos) {
    pos += 8;
    auto end = doc.find("```", pos);
    out.emplace_back(doc.substr(pos, end - pos));
    pos = end + 3;
  }
  return out;
}

// Every id Spark renumbers between runs, shifted: expression ids, exchange and plan ids, codegen stages.
std::string renumber(const std::string& text) {
  std::string out;
  std::regex id(R"((#|plan_id=|\*\()(\d+))");
  auto it = std::sregex_iterator(text.begin(), text.end(), id);
  std::size_t last = 0;
  for (; it != std::sregex_iterator(); ++it) {
    out += text.substr(last, static_cast<std::size_t>(it->position()) - last);
    out += (*it)[1].str() + std::to_string(std::stoll((*it)[2].str()) + 1000);
    last = static_cast<std::size_t>(it->position() + it->length());
  }
  return out + text.substr(last);
}

const fs::path kTpcds = fs::path(PLANLINT_CORPUS_DIR) / "plans" / "spark-tpcds";

}  // namespace

TEST_CASE("each plan-change rule's documented example fires and its alternative does not", "[diff][docs]") {
  int rules = 0;
  for (const auto& r : all_rules()) {
    if (r.diff_check == nullptr) continue;
    ++rules;
    INFO(r.info->name);
    auto blocks = plan_blocks(r.info->doc);
    REQUIRE(blocks.size() == 3);  // before, after (reported), after (use instead)
    CHECK(counts(diff(blocks[0], blocks[1]))[std::string(r.info->name)] > 0);
    CHECK(counts(diff(blocks[0], blocks[2]))[std::string(r.info->name)] == 0);
  }
  CHECK(rules == 9);
}

TEST_CASE("renumbered expression, exchange and codegen ids are no plan change", "[diff]") {
  if (planlint::test::corpus_missing()) return;
  for (const char* q : {"q1", "q14a", "q64", "q72"}) {
    INFO(q);
    fs::path p = kTpcds / "comet-plugin-variant-454ca68" / "approved-plans-v1_4" / q / "explain.txt";
    std::string text = slurp(p);
    REQUIRE(!text.empty());
    std::string moved = renumber(text);
    REQUIRE(moved != text);
    auto r = diff(text, moved);
    CHECK(r.no_plan_change());
    CHECK(r.result.diagnostics.empty());
  }
}

TEST_CASE("every TPC-DS plan of the corpus diffed with itself is no plan change", "[diff][corpus]") {
  if (planlint::test::corpus_missing()) return;
  int files = 0;
  for (const auto& p : planlint::test::files_under(kTpcds, ".txt")) {
    if (p.filename() == "README.md") continue;
    INFO(p.string());
    std::string text = slurp(p);
    auto r = diff(text, text);
    CHECK(r.no_plan_change());
    CHECK(r.result.diagnostics.empty());
    ++files;
  }
  CHECK(files > 200);
}

TEST_CASE("swapping BEFORE and AFTER swaps added and removed shuffles and join changes", "[diff][corpus]") {
  if (planlint::test::corpus_missing()) return;
  for (const char* q : {"q1", "q14a", "q47", "q64", "q72", "q9"}) {
    INFO(q);
    std::string a = slurp(kTpcds / "hyperspace-copy-2021-03" / "approved-plans-v1_4" / q / "explain.txt");
    std::string b = slurp(kTpcds / "comet-plugin-variant-454ca68" / "approved-plans-v1_4" / q / "explain.txt");
    REQUIRE(!a.empty());
    REQUIRE(!b.empty());
    auto forward = diff(a, b), backward = diff(b, a);
    // The matching is greedy: on q14a (a plan of repeated, near-identical subtrees) the two directions
    // pair three operators differently; what the rules report is still symmetric.
    if (std::string_view(q) != "q14a") {
      CHECK(forward.added == backward.removed);
      CHECK(forward.removed == backward.added);
    }
    auto f = counts(forward), g = counts(backward);
    CHECK(f["shuffle-added"] == g["shuffle-removed"]);
    CHECK(f["shuffle-removed"] == g["shuffle-added"]);
    CHECK(f["join-strategy-regressed"] == g["join-strategy-improved"]);
  }
}

TEST_CASE("real pairs: Spark versions of TPC-DS q1, q64 and q9", "[diff][corpus]") {
  if (planlint::test::corpus_missing()) return;
  auto pair = [](const char* q) {
    return diff(slurp(kTpcds / "hyperspace-copy-2021-03" / "approved-plans-v1_4" / q / "explain.txt"),
                slurp(kTpcds / "comet-plugin-variant-454ca68" / "approved-plans-v1_4" / q / "explain.txt"));
  };
  // q1: CHAR(2) s_state is read with padding (readSidePadding) in the newer version: its equality
  // no longer reaches the Parquet scan. Every join stays a broadcast hash join.
  auto q1 = pair("q1");
  auto c1 = counts(q1);
  CHECK(c1["pushdown-lost"] == 1);
  CHECK(c1["join-strategy-regressed"] == 0);
  CHECK(c1["shuffle-added"] == 0);
  bool store = false;
  for (const auto& d : q1.result.diagnostics)
    store = store || (d.rule->name == std::string_view("pushdown-lost") &&
                      d.message.find("EqualTo(s_state,TN)") != std::string::npos);
  CHECK(store);
  // q64: four broadcast hash joins became sort-merge joins (the plan has four), with their shuffles.
  auto c64 = counts(pair("q64"));
  CHECK(c64["join-strategy-regressed"] == 4);
  CHECK(c64["shuffle-added"] >= 3);
  // q9: the scalar subqueries over store_sales are merged: fewer single-partition exchanges, and no
  // range filter on ss_quantity is lost (each scan is matched with the one of its own range).
  auto c9 = counts(pair("q9"));
  CHECK(c9["shuffle-removed"] == 10);
  CHECK(c9["pushdown-lost"] == 0);
}

TEST_CASE("real pair: the same query before and after AQE re-planned it", "[diff][corpus]") {
  if (planlint::test::corpus_missing()) return;
  fs::path dir = fs::path(PLANLINT_CORPUS_DIR) / "plans" / "eventlog-extracted";
  std::string start = slurp(dir / "spark-rapids-tools__qualification__aqeshuffle_eventlog__exec0-start-01.txt");
  std::string final = slurp(dir / "spark-rapids-tools__qualification__aqeshuffle_eventlog__exec0-aqeupdate-04.txt");
  REQUIRE(!start.empty());
  REQUIRE(!final.empty());
  auto r = diff(start, final);
  CHECK(!r.no_plan_change());
  CHECK(r.added > 0);     // query stages and AQE shuffle reads
  CHECK(r.removed == 0);  // every operator of the first plan is still there
  for (const auto& d : r.result.diagnostics) CHECK(d.rule->id.substr(0, 4) != "SPK7");
}

TEST_CASE("a shuffle reused through ReusedExchange on one side and printed again on the other is no shuffle change",
          "[diff]") {
  // Formatted mode: the reuse names its exchange by operator number.
  const std::string reused = R"(== Physical Plan ==
Union (8)
:- * HashAggregate (4)
:  +- Exchange (3)
:     +- * HashAggregate (2)
:        +- Scan parquet shop.orders (1)
+- * HashAggregate (7)
   +- ReusedExchange (6)

(1) Scan parquet shop.orders
Output [1]: [customer_id#1L]
ReadSchema: struct<customer_id:bigint>

(2) HashAggregate [codegen id : 1]
Input [1]: [customer_id#1L]
Keys [1]: [customer_id#1L]
Functions [1]: [partial_count(1)]

(3) Exchange
Input [2]: [customer_id#1L, count#5L]
Arguments: hashpartitioning(customer_id#1L, 200), ENSURE_REQUIREMENTS, [plan_id=10]

(4) HashAggregate [codegen id : 2]
Input [2]: [customer_id#1L, count#5L]
Keys [1]: [customer_id#1L]
Functions [1]: [count(1)]

(6) ReusedExchange [Reuses operator id: 3]
Output [2]: [customer_id#20L, count#21L]

(7) HashAggregate [codegen id : 4]
Input [2]: [customer_id#20L, count#21L]
Keys [1]: [customer_id#20L]
Functions [1]: [count(1)]

(8) Union
)";
  const std::string printed = R"(== Physical Plan ==
Union
:- *(2) HashAggregate(keys=[customer_id#1L], functions=[count(1)])
:  +- Exchange hashpartitioning(customer_id#1L, 200), ENSURE_REQUIREMENTS, [plan_id=10]
:     +- *(1) HashAggregate(keys=[customer_id#1L], functions=[partial_count(1)])
:        +- FileScan parquet shop.orders[customer_id#1L] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[s3://lake/shop/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<customer_id:bigint>
+- *(4) HashAggregate(keys=[customer_id#20L], functions=[count(1)])
   +- Exchange hashpartitioning(customer_id#20L, 200), ENSURE_REQUIREMENTS, [plan_id=12]
      +- *(3) HashAggregate(keys=[customer_id#20L], functions=[partial_count(1)])
         +- FileScan parquet shop.orders[customer_id#20L] Batched: true, DataFilters: [], Format: Parquet, Location: InMemoryFileIndex(1 paths)[s3://lake/shop/orders], PartitionFilters: [], PushedFilters: [], ReadSchema: struct<customer_id:bigint>
)";
  CHECK(counts(diff(reused, printed))["shuffle-added"] == 0);
  CHECK(counts(diff(printed, reused))["shuffle-removed"] == 0);
  // A shuffle on other keys is still a new one: the reuse stands for the exchange it names only.
  std::string other = printed;
  other.replace(other.find("hashpartitioning(customer_id#20L, 200)"), 38, "hashpartitioning(customer_id#20L, 400)");
  CHECK(counts(diff(reused, other))["shuffle-added"] == 1);
}
