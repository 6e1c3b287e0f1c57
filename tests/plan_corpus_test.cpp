// Every real plan in ../shared/corpus/plans parses: no error, no empty tree, no lost operator line,
// and in formatted mode every numbered operator has its details block.
#include <catch2/catch.hpp>
#include <set>

#include "plan/plan.hpp"
#include "test_util.hpp"

using namespace planlint::plan;

namespace {

std::size_t reachable_nodes(const Document& doc) {
  std::set<const PlanNode*> seen;
  auto visit = [&](const PlanNode* root) { for_each_node(root, [&](const PlanNode& n) { seen.insert(&n); }); };
  for (const Plan& p : doc.plans) {
    for (const auto& s : p.sections)
      for (const PlanNode* r : s.roots) visit(r);
    for (const auto& sq : p.subqueries) visit(sq.second);
  }
  return seen.size();
}

bool is_readme(const std::filesystem::path& p) { return p.filename().string().rfind("README", 0) == 0; }

}  // namespace

TEST_CASE("every corpus plan parses into a non-empty tree", "[corpus]") {
  auto files = planlint::test::files_under(std::filesystem::path(PLANLINT_CORPUS_DIR) / "plans", ".txt");
  files.erase(std::remove_if(files.begin(), files.end(), is_readme), files.end());
  REQUIRE(files.size() >= 600);  // the corpus as shipped: 635 plans
  std::size_t total_nodes = 0;
  for (const auto& f : files) {
    INFO(f.string());
    Document doc = parse_document(planlint::test::read_file(f), f.string());
    for (const auto& e : doc.errors) FAIL_CHECK(e.line << ":" << e.column << ": " << e.message);
    CHECK(!doc.plans.empty());
    CHECK(doc.operator_lines > 0);
    CHECK(reachable_nodes(doc) == doc.operator_lines);
    for (const Plan& p : doc.plans) {
      bool has_tree = false;
      for (const auto& s : p.sections) has_tree = has_tree || !s.roots.empty();
      CHECK(has_tree);
    }
    total_nodes += doc.operator_lines;
  }
  CHECK(total_nodes > 20000);
}

TEST_CASE("formatted corpus plans join every numbered operator to its details", "[corpus]") {
  auto files = planlint::test::files_under(std::filesystem::path(PLANLINT_CORPUS_DIR) / "plans", ".txt");
  std::size_t formatted = 0;
  for (const auto& f : files) {
    if (is_readme(f)) continue;
    Document doc = parse_document(planlint::test::read_file(f), f.string());
    for (const Plan& p : doc.plans) {
      if (!p.formatted) continue;
      ++formatted;
      for (const auto& s : p.sections)
        for (const PlanNode* r : s.roots)
          for_each_node(r, [&](const PlanNode& n) {
            INFO(f.string() << ":" << n.span.line << " " << n.name);
            std::string_view line = doc.lines[n.span.line - 1];
            bool unnumbered = line.size() >= 9 && line.substr(line.size() - 9) == "(unknown)";
            CHECK((n.operator_id.has_value() || unnumbered));
            CHECK((!n.details.empty() || unnumbered));
          });
    }
  }
  CHECK(formatted > 300);
}
