// Tree building, one construct per test: sections, AQE, formatted details, subqueries, recovery,
// and the typed fields rules rely on.
#include <catch2/catch.hpp>

#include "plan/operator_fields.hpp"
#include "plan/plan.hpp"

using namespace planlint::plan;

namespace {
const PlanNode& root_of(const Document& d, Section s = Section::physical, std::size_t plan = 0) {
  REQUIRE(d.plans.size() > plan);
  const SectionTree* t = d.plans[plan].find(s);
  REQUIRE(t != nullptr);
  REQUIRE(!t->roots.empty());
  return *t->roots.front();
}
}  // namespace

TEST_CASE("simple explain builds parent and child links", "[tree]") {
  auto d = parse_document(
      "== Physical Plan ==\n"
      "*(2) HashAggregate(keys=[k#47], functions=[sum(v#48)])\n"
      "+- Exchange hashpartitioning(k#47, 200), ENSURE_REQUIREMENTS, [plan_id=79]\n"
      "   +- *(1) HashAggregate(keys=[k#47], functions=[partial_sum(v#48)])\n"
      "      +- *(1) LocalTableScan [k#47, v#48]\n",
      "t");
  REQUIRE(d.errors.empty());
  const auto& root = root_of(d);
  CHECK(root.kind == OpKind::aggregate);
  REQUIRE(root.children.size() == 1);
  const PlanNode& ex = *root.children[0];
  CHECK(ex.parent == &root);
  CHECK(ex.span.line == 3);
  CHECK(ex.span.column == 4);
  const auto* x = ex.as<ExchangeInfo>();
  REQUIRE(x);
  CHECK(x->partitioning == Partitioning::hash);
  CHECK(x->num_partitions == 200);
  CHECK(x->origin == "ENSURE_REQUIREMENTS");
  REQUIRE(x->key_refs.size() == 1);
  CHECK(x->key_refs[0].text() == "k#47");
  CHECK(ex.children[0]->children[0]->kind == OpKind::local_table_scan);
  CHECK(d.operator_lines == 4);
}

TEST_CASE("extended explain keeps all four sections and the analyzed schema", "[tree]") {
  auto d = parse_document(
      "== Parsed Logical Plan ==\n'Project [*]\n+- 'UnresolvedRelation [t]\n\n"
      "== Analyzed Logical Plan ==\na: int\nProject [a#1]\n+- Relation t[a#1] parquet\n\n"
      "== Optimized Logical Plan ==\nRelation t[a#1] parquet\n\n"
      "== Physical Plan ==\n*(1) ColumnarToRow\n+- FileScan parquet t[a#1] Batched: true, DataFilters: [], "
      "Format: Parquet, Location: InMemoryFileIndex[file:/t], PartitionFilters: [], PushedFilters: [], "
      "ReadSchema: struct<a:int,b:int>\n",
      "t");
  REQUIRE(d.errors.empty());
  REQUIRE(d.plans.size() == 1);
  CHECK(d.plans[0].sections.size() == 4);
  CHECK(root_of(d, Section::parsed_logical).unresolved);
  CHECK(d.plans[0].find(Section::analyzed_logical)->schema == "a: int");
  CHECK(root_of(d, Section::analyzed_logical).name == "Project");
  const auto* scan = root_of(d).children[0]->as<ScanInfo>();
  REQUIRE(scan);
  CHECK(scan->format == "parquet");
  CHECK(scan->table == "t");
  CHECK(scan->read_schema == "struct<a:int,b:int>");
  CHECK(scan->location == "InMemoryFileIndex[file:/t]");
}

TEST_CASE("subquery children sit two levels deeper", "[tree]") {
  auto d = parse_document(
      "Filter (a#1 > scalar-subquery#5 [])\n"
      ":  +- Aggregate [max(b#2) AS m#5]\n"
      ":     +- Relation u[b#2] parquet\n"
      "+- Relation t[a#1] parquet\n",
      "t");
  REQUIRE(d.errors.empty());
  const auto& f = root_of(d);
  REQUIRE(f.subqueries.size() == 1);
  CHECK(f.subqueries[0]->name == "Aggregate");
  CHECK(f.subqueries[0]->children.size() == 1);
  REQUIRE(f.children.size() == 1);
  CHECK(f.children[0]->name == "Relation");
}

TEST_CASE("AQE final and initial plans are children of AdaptiveSparkPlan", "[tree]") {
  auto d = parse_document(
      "AdaptiveSparkPlan isFinalPlan=true\n"
      "+- == Final Plan ==\n"
      "   *(2) HashAggregate(keys=[k#1], functions=[])\n"
      "   +- AQEShuffleRead coalesced\n"
      "      +- ShuffleQueryStage 0\n"
      "         +- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=10]\n"
      "            +- *(1) LocalTableScan [k#1]\n"
      "+- == Initial Plan ==\n"
      "   HashAggregate(keys=[k#1], functions=[])\n"
      "   +- Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS, [plan_id=5]\n"
      "      +- LocalTableScan [k#1]\n",
      "t");
  REQUIRE(d.errors.empty());
  const auto& aqe = root_of(d);
  CHECK(aqe.kind == OpKind::adaptive_plan);
  REQUIRE(aqe.children.size() == 2);
  CHECK(aqe.children[0]->aqe_role == AqeRole::final_plan);
  CHECK(aqe.children[1]->aqe_role == AqeRole::initial_plan);
  CHECK(aqe.children[0]->children[0]->kind == OpKind::shuffle_read);
  CHECK(d.operator_lines == 9);
}

TEST_CASE("formatted explain joins details blocks and hosts subqueries", "[tree]") {
  auto d = parse_document(
      "== Physical Plan ==\n"
      "* Filter (2)\n"
      "+- * LocalTableScan (1)\n"
      "\n\n"
      "(1) LocalTableScan [codegen id : 1]\n"
      "Output [2]: [k#1, v#2]\n"
      "Arguments: [k#1, v#2]\n"
      "\n"
      "(2) Filter [codegen id : 1]\n"
      "Input [2]: [k#1, v#2]\n"
      "Condition : (v#2 > Subquery scalar-subquery#3, [id=#4])\n"
      "\n"
      "===== Subqueries =====\n"
      "\n"
      "Subquery:1 Hosting operator id = 2 Hosting Expression = Subquery scalar-subquery#3, [id=#4]\n"
      "* HashAggregate (3)\n"
      "\n"
      "(3) HashAggregate [codegen id : 1]\n"
      "Keys: []\n"
      "Functions [1]: [max(v#2)]\n",
      "t");
  REQUIRE(d.errors.empty());
  const Plan& p = d.plans[0];
  CHECK(p.formatted);
  const auto& filter = root_of(d);
  CHECK(filter.operator_id == 2);
  const auto* fi = filter.as<FilterInfo>();
  REQUIRE(fi);
  CHECK(fi->condition == "(v#2 > Subquery scalar-subquery#3, [id=#4])");
  REQUIRE(filter.subqueries.size() == 1);
  CHECK(filter.subqueries[0]->name == "HashAggregate");
  CHECK(filter.subqueries[0]->as<AggregateInfo>()->functions.size() == 1);
  CHECK(*filter.children[0]->detail("Output") == "[k#1, v#2]");
}

TEST_CASE("a numbered operator without details in a formatted plan is an error", "[tree]") {
  auto d = parse_document("* Project (2)\n+- Scan (1)\n\n(1) Scan\nOutput: []\n", "t");
  REQUIRE(d.errors.size() == 1);
  CHECK(d.errors[0].line == 1);
  CHECK_THAT(d.errors[0].message, Catch::Contains("(2) Project has no details block"));
}

TEST_CASE("a details block missing before the last printed one is how the engine printed it", "[tree]") {
  // Blocks come in number order: (1) missing while (2) is printed is not a paste cut short.
  auto d = parse_document("* Project (2)\n+- NativeScan (1)\n\n(2) Project\nOutput: []\n", "t");
  CHECK(d.errors.empty());
  REQUIRE(d.plans.size() == 1);
  CHECK(root_of(d).children.size() == 1);
}

TEST_CASE("a trailing number is an argument when the plan is not formatted", "[tree]") {
  auto d = parse_document("Project [a#1]\n+- Range (0, 10, step=1, splits=2)\n+- WholeStageCodegen (4)\n", "t");
  const auto& r = root_of(d);
  CHECK(!r.children[1]->operator_id);
  CHECK(r.children[1]->args == "(4)");
  CHECK(r.children[0]->stats.row_count == 10);
}

TEST_CASE("TPC-DS simplified form uses two-space indentation", "[tree]") {
  auto d = parse_document(
      "TakeOrderedAndProject [a]\n"
      "  WholeStageCodegen (4)\n"
      "    HashAggregate [a,sum] [sum(x),a]\n"
      "      InputAdapter\n"
      "        Exchange [a] #1\n"
      "  ReusedExchange [a] #1\n",
      "simplified.txt");
  REQUIRE(d.errors.empty());
  CHECK(d.plans[0].simplified);
  const auto& r = root_of(d);
  REQUIRE(r.children.size() == 2);
  CHECK(r.children[0]->name == "WholeStageCodegen");
  CHECK(r.children[1]->kind == OpKind::reused_exchange);
  CHECK(d.operator_lines == 6);
}

TEST_CASE("spark-sql table framing is removed but columns stay the file's", "[tree]") {
  auto d = parse_document(
      "+--------+\n|    plan|\n+--------+\n| == Physical Plan ==\n *(1) Project [a#1]\n +- *(1) Range (0, 5, step=1, "
      "splits=2)\n|\n+--------+\n",
      "t");
  REQUIRE(d.errors.empty());
  const auto& r = root_of(d);
  CHECK(r.span.line == 5);
  CHECK(r.span.column == 7);
  CHECK(r.children[0]->span.column == 10);
}

TEST_CASE("several plans in one file", "[tree]") {
  auto d = parse_document("== Physical Plan ==\nProject [a#1]\n\n== Physical Plan ==\nRange (0, 1, step=1, splits=1)\n",
                          "t");
  REQUIRE(d.plans.size() == 2);
  CHECK(root_of(d, Section::physical, 1).kind == OpKind::range);
}

TEST_CASE("unknown operators are ordinary nodes", "[tree]") {
  auto d = parse_document(
      "PhotonResultStage\n+- FancyVendorOperator foo=bar\n   +- PhotonShuffleExchangeSink "
      "hashpartitioning(a#1, 8)\n",
      "t");
  REQUIRE(d.errors.empty());
  const auto& r = root_of(d);
  CHECK(r.children[0]->name == "FancyVendorOperator");
  CHECK(r.children[0]->kind == OpKind::other);
  CHECK(r.children[0]->children[0]->kind == OpKind::shuffle_exchange);
}

TEST_CASE("bad lines become errors and the rest of the plan is still built", "[tree]") {
  auto d = parse_document(
      "Project [a#1]\n+- Filter (a#1 > 0)\n   +- 42 nonsense\n   +- Range (0, 3, step=1, splits=1)\n"
      "/* stray */\n",
      "t");
  REQUIRE(d.errors.size() == 2);
  CHECK(d.errors[0].line == 3);
  CHECK(d.errors[0].column == 7);
  CHECK(d.errors[1].line == 5);
  const auto& r = root_of(d);
  CHECK(r.children[0]->children.size() == 1);
  CHECK(r.children[0]->children[0]->kind == OpKind::range);
}

TEST_CASE("codegen output skips the generated Java", "[tree]") {
  auto d = parse_document(
      "Found 1 WholeStageCodegen subtrees.\n== Subtree 1 / 1 (maxMethodCodeSize:1) ==\n"
      "*(1) Project [a#1]\n+- *(1) Range (0, 2, step=1, splits=1)\n\nGenerated code:\n"
      "/* 001 */ public Object generate(Object[] references) {\n/* 002 */ }\n",
      "t");
  REQUIRE(d.errors.empty());
  CHECK(root_of(d, Section::codegen_subtree).name == "Project");
  CHECK(d.operator_lines == 2);
}

TEST_CASE("Photon explanation is kept as text", "[tree]") {
  auto d = parse_document(
      "== Physical Plan ==\nPhotonResultStage\n\n== Photon Explanation ==\nThe query is fully "
      "supported by Photon.\n",
      "t");
  REQUIRE(d.errors.empty());
  CHECK(d.plans[0].photon_explanation == "The query is fully supported by Photon.");
}

TEST_CASE("cost mode statistics are parsed into bytes and rows", "[tree]") {
  auto d = parse_document("Project [a#1], Statistics(sizeInBytes=10.1 KiB, rowCount=3)\n", "t");
  const auto& r = root_of(d);
  CHECK(r.stats.size_in_bytes == Approx(10.1 * 1024));
  CHECK(r.stats.row_count == 3);
  CHECK(r.args == "[a#1]");
  CHECK(parse_byte_size("3.4 EiB").value() > 1e18);
  CHECK(!parse_byte_size("lots"));
}

TEST_CASE("join fields in simple and formatted modes", "[tree]") {
  auto d = parse_document(
      "SortMergeJoin [k#1, j#2], [k#3, cast(j#4 as bigint)], LeftOuter, (a#5 > b#6)\n"
      "BroadcastNestedLoopJoin BuildRight, Inner\n"
      "BroadcastHashJoin [k#1], [k#2], Inner, BuildRight, false\n",
      "t");
  const auto& roots = d.plans[0].physical()->roots;
  REQUIRE(roots.size() == 3);
  const auto* smj = roots[0]->as<JoinInfo>();
  REQUIRE(smj);
  CHECK(smj->strategy == "SortMergeJoin");
  CHECK(smj->join_type == "LeftOuter");
  CHECK(smj->right_keys[1] == "cast(j#4 as bigint)");
  CHECK(smj->condition == "(a#5 > b#6)");
  const auto* bnlj = roots[1]->as<JoinInfo>();
  CHECK(bnlj->build_side == "BuildRight");
  CHECK(bnlj->condition.empty());
  CHECK(roots[2]->as<JoinInfo>()->build_side == "BuildRight");
}

TEST_CASE("Python evaluators and windows", "[tree]") {
  auto d = parse_document(
      "BatchEvalPython [slow_upper(name#1)#7], [pythonUDF0#12]\n"
      "ArrowEvalPython [fast(x#2)#8], [pythonUDF1#13], 200\n"
      "Window [rank(v#1) windowspecdefinition(v#1 ASC NULLS FIRST) AS r#2], [], [v#1 ASC NULLS FIRST]\n",
      "t");
  const auto& roots = d.plans[0].physical()->roots;
  const auto* py = roots[0]->as<PythonEvalInfo>();
  REQUIRE(py);
  CHECK(py->udf_names == std::vector<std::string>{"slow_upper"});
  CHECK(py->outputs[0].text() == "pythonUDF0#12");
  CHECK(roots[1]->kind == OpKind::python_eval);
  const auto* w = roots[2]->as<WindowInfo>();
  REQUIRE(w);
  CHECK(w->partition_spec.empty());
  CHECK(w->order_spec.size() == 1);
}

TEST_CASE("CRLF line endings and a BOM", "[tree]") {
  auto d =
      parse_document("\xEF\xBB\xBF== Physical Plan ==\r\nProject [a#1]\r\n+- Range (0, 1, step=1, splits=1)\r\n", "t");
  REQUIRE(d.errors.empty());
  CHECK(root_of(d).children[0]->args == "(0, 1, step=1, splits=1)");
}

TEST_CASE("no input hangs or crashes the builder", "[tree]") {
  std::string deep(20000, '(');
  auto d1 = parse_document("Filter " + deep + "\n", "t");
  CHECK(d1.operator_lines == 1);
  std::string pathological;
  for (int i = 0; i < 2000; ++i) pathological += std::string(static_cast<std::size_t>(i % 50), ' ') + "+- X\n";
  auto d2 = parse_document(pathological, "t");
  CHECK(d2.operator_lines == 2000);
  auto d3 = parse_document(std::string("\0\0\0", 3), "t");
  CHECK(d3.errors.size() == 1);
  auto d4 = parse_document("", "t");
  CHECK(d4.plans.empty());
}

TEST_CASE("streamed parsing hands over each plan complete, then frees it", "[tree]") {
  const std::string text =
      "== Physical Plan ==\n"
      "*(2) HashAggregate(keys=[k#47], functions=[sum(v#48)])\n"
      "+- Exchange hashpartitioning(k#47, 200), ENSURE_REQUIREMENTS, [plan_id=79]\n"
      "   +- *(1) LocalTableScan [k#47, v#48]\n"
      "\n"
      "== Physical Plan ==\n"
      "* Project (2)\n"
      "+- Scan parquet t (1)\n"
      "\n"
      "(1) Scan parquet t\n"
      "Output [1]: [a#1]\n"
      "\n"
      "(2) Project [codegen id : 1]\n"
      "Output [1]: [a#1]\n"
      "Input [1]: [a#1]\n"
      "\n"
      "== Physical Plan ==\n"
      "+- Broken\x01\n";
  Document whole = parse_document(text, "t");
  REQUIRE(whole.plans.size() == 3);
  std::vector<std::string> seen;
  std::size_t nodes_at_hand_over = 0;
  Document streamed = parse_document_streamed(text, "t", [&](const Document& d, const Plan& p) {
    // Only this plan is held, with its operators analysed and its facts inferred.
    CHECK(d.plans.size() == 1);
    nodes_at_hand_over = std::max(nodes_at_hand_over, d.nodes.size());
    const SectionTree* t = p.physical();
    REQUIRE(t != nullptr);
    if (t->roots.empty()) return;
    const PlanNode& root = *t->roots.front();
    seen.push_back(root.name + "/" + std::string(to_string(root.kind)) + (p.formatted ? "/formatted" : ""));
    if (root.kind == OpKind::aggregate) {
      REQUIRE(root.children.size() == 1);
      const auto* x = root.children[0]->as<ExchangeInfo>();
      REQUIRE(x != nullptr);
      CHECK(x->num_partitions == 200);
      CHECK(p.version.at_least(3, 3));
    }
    if (root.name == "Project") CHECK(root.detail("Input") != nullptr);
  });
  CHECK(seen == std::vector<std::string>{"HashAggregate/aggregate", "Project/project/formatted"});
  CHECK(nodes_at_hand_over == 3);  // the largest plan, never the sum
  CHECK(streamed.plans.empty());
  CHECK(streamed.nodes.empty());
  // Errors, lines and the operator count are the whole document's, as without streaming.
  CHECK(streamed.errors.size() == whole.errors.size());
  CHECK(streamed.lines.size() == whole.lines.size());
  CHECK(streamed.operator_lines == whole.operator_lines);
}

// Spark abbreviates a long scan field with "..." and never closes its bracket. Cut each field of a
// scan in turn: every other field reads as it does uncut, and the cut list says so.
TEST_CASE("every field of a scan survives truncation of any other field", "[tree]") {
  const std::vector<std::pair<std::string, std::string>> fields{
      {"Batched", "true"},
      {"DataFilters", "[isnotnull(d_date#1), (cast(d_date#1 as string) = 2000-01-01)]"},
      {"Format", "Parquet"},
      {"Location", "InMemoryFileIndex(1 paths)[file:/warehouse/date_dim]"},
      {"PartitionFilters", "[isnotnull(d_year#3), (d_year#3 = 2000)]"},
      {"PushedFilters", "[IsNotNull(d_date), IsNotNull(d_date_sk)]"},
      {"ReadSchema", "struct<d_date_sk:int,d_date:date>"},
  };
  auto line_with = [&](std::size_t cut) {
    std::string line = "*(1) FileScan parquet tpcds.date_dim[d_date_sk#0,d_date#1,d_year#3] ";
    for (std::size_t i = 0; i < fields.size(); ++i) {
      std::string value = fields[i].second;
      if (i == cut) value = value.substr(0, value.size() / 2 + 2) + "...";  // cut mid-way, bracket left open
      line += (i == 0 ? "" : ", ") + fields[i].first + ": " + value;
    }
    return "== Physical Plan ==\n" + line + "\n";
  };
  auto whole = parse_document(line_with(fields.size()), "t");
  const auto* ref = root_of(whole).as<ScanInfo>();
  REQUIRE(ref != nullptr);
  REQUIRE(ref->pushed_filters == std::vector<std::string>{"IsNotNull(d_date)", "IsNotNull(d_date_sk)"});
  REQUIRE(ref->partition_filters.size() == 2);
  REQUIRE(ref->data_filters.size() == 2);
  CHECK_FALSE(ref->pushed_cut);
  for (std::size_t cut = 0; cut < fields.size(); ++cut) {
    const std::string& key = fields[cut].first;
    INFO("cut " << key);
    auto d = parse_document(line_with(cut), "t");
    CHECK(d.errors.empty());
    const auto* s = root_of(d).as<ScanInfo>();
    REQUIRE(s != nullptr);
    CHECK(s->format == "parquet");
    CHECK(s->table == "tpcds.date_dim");
    CHECK(s->output.size() == 3);
    CHECK(s->prints_pushed_filters);
    if (key != "PushedFilters") CHECK(s->pushed_filters == ref->pushed_filters);
    if (key != "PartitionFilters") CHECK(s->partition_filters == ref->partition_filters);
    if (key != "DataFilters") CHECK(s->data_filters == ref->data_filters);
    if (key != "ReadSchema") CHECK(s->read_schema == ref->read_schema);
    if (key != "Location") CHECK(s->location == ref->location);
    CHECK(s->pushed_cut == (key == "PushedFilters"));
    CHECK(s->partition_cut == (key == "PartitionFilters"));
    CHECK(s->data_cut == (key == "DataFilters"));
    // What was printed before the cut is kept; an item cut mid-way is not.
    if (key == "PushedFilters") CHECK(s->pushed_filters == std::vector<std::string>{"IsNotNull(d_date)"});
    if (key == "DataFilters") CHECK(s->data_filters == std::vector<std::string>{"isnotnull(d_date#1)"});
  }
}
