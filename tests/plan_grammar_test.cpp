// One small input per construct of the plan-line grammar, and PEGTL's analysis of the grammar.
#include <catch2/catch.hpp>
#include <tao/pegtl/contrib/analyze.hpp>

#include "../grammar/plan_args.hpp"
#include "../grammar/plan_line.hpp"
#include "plan/line_reader.hpp"

using namespace planlint::plan;
namespace g = planlint::grammar;

TEST_CASE("grammar has no left recursion or empty loops", "[grammar]") {
  CHECK(tao::pegtl::analyze<g::section_header>() == 0);
  CHECK(tao::pegtl::analyze<g::tree_line>() == 0);
  CHECK(tao::pegtl::analyze<g::root_line>() == 0);
  CHECK(tao::pegtl::analyze<g::details_header>() == 0);
  CHECK(tao::pegtl::analyze<g::details_field>() == 0);
  CHECK(tao::pegtl::analyze<g::subquery_header>() == 0);
  CHECK(tao::pegtl::analyze<g::args::attr_scan>() == 0);
}

TEST_CASE("section headers", "[grammar]") {
  auto r = read_plan_line("== Physical Plan ==");
  CHECK(r.kind == LineKind::section_header);
  CHECK(r.title == "Physical Plan");
  CHECK(read_plan_line("===== Subqueries =====").title == "Subqueries");
  CHECK(read_plan_line("== Subtree 1 / 2 (maxMethodCodeSize:282; maxConstantPoolSize:348(0.53% used)) ==")
            .title.substr(0, 9) == "Subtree 1");
}

TEST_CASE("root line with codegen stage and arguments", "[grammar]") {
  auto r = read_plan_line("*(2) HashAggregate(keys=[k#47], functions=[sum(v#48)])");
  REQUIRE(r.kind == LineKind::tree_node);
  CHECK(r.branch_column == -1);
  CHECK(r.codegen_stage == 2);
  CHECK(r.name == "HashAggregate");
  CHECK(r.args == "(keys=[k#47], functions=[sum(v#48)])");
}

TEST_CASE("branch lines give the branch and name columns", "[grammar]") {
  auto r = read_plan_line("   :  +- *(1) Filter (isnotnull(a#1) AND (a#1 > 0))");
  REQUIRE(r.kind == LineKind::tree_node);
  CHECK(r.branch_column == 6);
  CHECK(r.content_column == 9);
  CHECK(r.name_column == 14);
  CHECK(r.name == "Filter");
  auto left = read_plan_line(":- Sort [a#1 ASC NULLS FIRST], false, 0");
  CHECK(left.branch_column == 0);
  CHECK(left.name == "Sort");
}

TEST_CASE("formatted tree line carries the operator number", "[grammar]") {
  auto r = read_plan_line("+- * BroadcastHashJoin Inner BuildRight (24)");
  CHECK(r.codegen_stage == 0);
  CHECK(r.name == "BroadcastHashJoin");
  CHECK(r.args == "Inner BuildRight");
  CHECK(r.operator_id == 24);
  auto stage = read_plan_line("   +- ShuffleQueryStage (5), Statistics(sizeInBytes=3.4 EiB)");
  CHECK(stage.operator_id == 5);
  CHECK(stage.statistics == "Statistics(sizeInBytes=3.4 EiB)");
}

TEST_CASE("Spark 2 codegen star, unresolved and fallback markers", "[grammar]") {
  CHECK(read_plan_line("+- *Project [a#1]").codegen_stage == 0);
  CHECK(read_plan_line("+- *Project [a#1]").name == "Project");
  CHECK(read_plan_line("'Project [*]").unresolved);
  auto gpu = read_plan_line("+- !Exec <FileSourceScanExec> cannot run on GPU");
  CHECK(gpu.fallback);
  CHECK(gpu.name == "Exec");
  CHECK(read_plan_line("   +- ^(3) ProjectExecTransformer [a#1]").name == "ProjectExecTransformer");
}

TEST_CASE("AQE plan headers inside the tree", "[grammar]") {
  auto r = read_plan_line("+- == Final Plan ==");
  CHECK(r.kind == LineKind::aqe_header);
  CHECK(r.title == "Final Plan");
  CHECK(r.branch_column == 0);
}

TEST_CASE("a branch without an operator is an error with its column", "[grammar]") {
  auto r = read_plan_line("   +- 123 oops");
  CHECK(r.kind == LineKind::error);
  CHECK(r.error_column == 6);
  CHECK_THAT(r.error, Catch::Contains("expected an operator name"));
  CHECK(read_plan_line("+- *(x) Project").kind == LineKind::error);
}

TEST_CASE("control characters are rejected", "[grammar]") {
  auto r = read_plan_line(std::string_view("Project\x01 [a]", 12));
  CHECK(r.kind == LineKind::error);
  CHECK(r.error_column == 7);
}

TEST_CASE("details headers and fields", "[grammar]") {
  auto h = read_plan_line("(12) BroadcastHashJoin [codegen id : 4]");
  REQUIRE(h.kind == LineKind::details_header);
  CHECK(h.number == 12);
  CHECK(h.name == "BroadcastHashJoin");
  CHECK(h.codegen_id == 4);
  auto scan = read_plan_line("(1) Scan parquet spark_catalog.default.store_sales");
  CHECK(scan.name == "Scan parquet spark_catalog.default.store_sales");
  auto f = read_details_field("Output [4]: [a#1, b#2, c#3, d#4]");
  REQUIRE(f);
  CHECK(f->key == "Output");
  CHECK(f->value == "[a#1, b#2, c#3, d#4]");
  CHECK(read_details_field("Condition : (a#1 > 0)")->key == "Condition");
  CHECK(read_details_field("Left keys [1]: [k#1]")->key == "Left keys");
  auto loc = read_details_field("Location [not included in comparison]/{warehouse_dir}/t]");
  REQUIRE(loc);
  CHECK(loc->key == "Location");
  CHECK(!read_details_field("(a#1 > 0)"));
}

TEST_CASE("subquery headers", "[grammar]") {
  auto r =
      read_plan_line("Subquery:2 Hosting operator id = 5 Hosting Expression = Subquery scalar-subquery#x, [id=#x]");
  REQUIRE(r.kind == LineKind::subquery_header);
  CHECK(r.number == 2);
  CHECK(r.hosting_id == 5);
  CHECK(r.hosting_expression == "Subquery scalar-subquery#x, [id=#x]");
}

TEST_CASE("attribute references", "[grammar]") {
  auto refs = scan_attribute_refs("sum(cast(v#48 as bigint)) AS sum(v)#50L, k#47, key#x, cnt#xL, [id=#79]");
  REQUIRE(refs.size() == 4);
  CHECK(refs[0].text() == "v#48");
  CHECK(refs[1].text() == "k#47");
  CHECK(refs[2].id == "x");
  CHECK(refs[3].is_long);
  CHECK(refs[3].name == "cnt");
}
