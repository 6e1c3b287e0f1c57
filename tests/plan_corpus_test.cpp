// Every real plan in ../shared/corpus/plans parses: no error, no empty tree, no lost operator line,
// and in formatted mode every numbered operator has its details block.
#include <catch2/catch.hpp>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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
  if (planlint::test::corpus_missing()) return;
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
  if (planlint::test::corpus_missing()) return;
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

TEST_CASE("the Spark version read from a plan's markers contains the version its event log names", "[corpus]") {
  if (planlint::test::corpus_missing()) return;
  // INDEX.tsv: file, source log, "Spark Version" from SparkListenerLogStart ("?" when the log has none).
  auto dir = std::filesystem::path(PLANLINT_CORPUS_DIR) / "plans" / "eventlog-extracted";
  std::istringstream index(planlint::test::read_file(dir / "INDEX.tsv"));
  std::string line;
  std::getline(index, line);  // header
  int checked = 0, narrowed = 0;
  while (std::getline(index, line)) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (cols.size() < 3 || cols[2] == "?") continue;
    int major = 0, minor = 0;
    if (std::sscanf(cols[2].c_str(), "%d.%d", &major, &minor) != 2) continue;
    int version = major * 100 + minor;
    Document doc = parse_document(planlint::test::read_file(dir / cols[0]), cols[0]);
    for (const Plan& p : doc.plans) {
      INFO(cols[0] << ": Spark " << cols[2] << ", read as " << p.version.text());
      CHECK(p.version.min <= version);
      CHECK(version <= p.version.max);
      ++checked;
      narrowed += p.version.known() ? 1 : 0;
    }
  }
  CHECK(checked >= 200);
  CHECK(narrowed == checked);  // every one of these plans carries some marker
}
