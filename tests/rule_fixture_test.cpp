// Runs every fixture under fixtures/rules: annotations (`#^ rule [severity]`) say which finding each
// plan line must get; any finding nobody expected fails the test. Also runs each rule doc's examples.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <sstream>

#include "lint/engine.hpp"
#include "lint/rule.hpp"
#include "test_util.hpp"

using namespace planlint::lint;

namespace {

struct Expectation {
  std::uint32_t line;
  std::string rule;
  std::string severity;  // empty: any
  bool operator<(const Expectation& o) const { return std::tie(line, rule) < std::tie(o.line, o.rule); }
};

// planlint skips '#' lines in plan text, so fixtures are linted as they are and an annotation
// points at the nearest plan line above it.
std::multiset<Expectation> load_expectations(const std::string& raw) {
  std::multiset<Expectation> expected;
  std::istringstream in(raw);
  std::string line;
  std::uint32_t number = 0, plan_line = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("#^ ", 0) == 0) {
      std::istringstream words(line.substr(3));
      Expectation e{plan_line, {}, {}};
      words >> e.rule >> e.severity;
      expected.insert(e);
    } else if (line.empty() || line[0] != '#') {
      plan_line = number;
    }
  }
  return expected;
}

LintOptions all_rules_options() {
  LintOptions o;
  o.select = {"ALL"};
  return o;
}

// Fenced ```plan blocks of a rule doc, in order.
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

}  // namespace

TEST_CASE("rule fixtures produce exactly the annotated findings", "[rules]") {
  auto dir = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "rules";
  auto files = planlint::test::files_under(dir, ".plan");
  REQUIRE(files.size() >= 20);
  for (const auto& path : files) {
    INFO(path.string());
    std::string raw = planlint::test::read_file(path);
    auto expected = load_expectations(raw);
    FileResult r = lint_plan_text(path.filename().string(), raw, all_rules_options());
    std::multiset<Expectation> got;
    for (const auto& d : r.diagnostics)
      got.insert({d.location.line, std::string(d.rule->name), std::string(to_string(d.severity))});
    for (const auto& e : expected) {
      auto it = got.find(e);
      if (it == got.end()) {
        FAIL_CHECK("missing finding: line " << e.line << " [" << e.rule << "]");
        continue;
      }
      if (!e.severity.empty()) CHECK(it->severity == e.severity);
      got.erase(it);
    }
    for (const auto& g : got) FAIL_CHECK("unexpected finding: line " << g.line << " [" << g.rule << "]");
  }
}

TEST_CASE("every rule has positive and negative fixtures", "[rules]") {
  auto dir = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "rules";
  std::vector<const RuleInfo*> rules;
  for (const auto& r : all_rules())
    if (r.check != nullptr || r.info == &plan_syntax_rule()) rules.push_back(r.info);
  for (const RuleInfo* r : rules) {
    INFO(r->name);
    bool bad = false, ok = false;
    for (const auto& p : planlint::test::files_under(dir / std::string(r->name), ".plan")) {
      bad = bad || p.filename().string().rfind("bad_", 0) == 0;
      ok = ok || p.filename().string().rfind("ok_", 0) == 0;
    }
    CHECK(bad);
    if (r != &plan_syntax_rule()) CHECK(ok);  // every clean fixture is plan-syntax's negative case
  }
}

TEST_CASE("each rule's documented example fires and its fix does not", "[rules][docs]") {
  std::vector<const RuleInfo*> rules;
  for (const auto& r : all_rules())
    if (r.check != nullptr || r.info == &plan_syntax_rule()) rules.push_back(r.info);
  for (const RuleInfo* r : rules) {
    INFO(r->name);
    for (std::string_view heading :
         {"## What it does", "## Why is this bad?", "## Example", "Use instead", "## Fix safety", "## Options"})
      CHECK(r->doc.find(heading) != std::string_view::npos);
    auto blocks = plan_blocks(r->doc);
    REQUIRE(blocks.size() == 2);
    auto fired = [&](const std::string& text) {
      FileResult res = lint_plan_text("example.plan", text, all_rules_options());
      for (const auto& d : res.diagnostics)
        if (d.rule == r) return true;
      return false;
    };
    CHECK(fired(blocks[0]));
    CHECK(!fired(blocks[1]));
  }
}

TEST_CASE("every rule doc has the same headings", "[rules][docs]") {
  for (const auto& r : all_rules()) {
    INFO(r.info->name);
    for (std::string_view heading :
         {"## What it does", "## Why is this bad?", "## Example", "Use instead", "## Fix safety", "## Options"})
      CHECK(r.info->doc.find(heading) != std::string_view::npos);
  }
}

TEST_CASE("every rule's summary paragraph fits SARIF's fullDescription (1024 characters)", "[rules][docs]") {
  // The first paragraph under "## What it does" becomes fullDescription.text in SARIF, which GitHub's
  // code scanning cuts at 1024 characters (checked here without the SARIF validator of ../shared).
  for (const auto& r : all_rules()) {
    INFO(r.info->name);
    const std::string_view doc = r.info->doc;
    const std::size_t start = doc.find("## What it does\n");
    REQUIRE(start != std::string_view::npos);
    const std::size_t from = start + 16;
    const std::size_t end = doc.find("\n\n", from);
    CHECK((end == std::string_view::npos ? doc.size() : end) - from <= 1024);
  }
}

TEST_CASE("rule ids and names are unique and names are kebab-case", "[rules]") {
  std::set<std::string_view> ids, names;
  for (const auto& r : all_rules()) {
    CHECK(ids.insert(r.info->id).second);
    CHECK(names.insert(r.info->name).second);
    CHECK(r.info->name.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == std::string_view::npos);
    CHECK(find_rule(r.info->name) == r.info);
    CHECK(find_rule(r.info->id) == r.info);
  }
}
