// Tree-dump goldens: fixtures/plans/trees/NAME.plan parses to exactly NAME.tree.
// Regenerate one with `planlint parse NAME.plan > NAME.tree` and review the diff.
#include <catch2/catch.hpp>

#include "plan/dump.hpp"
#include "plan/plan.hpp"
#include "test_util.hpp"

TEST_CASE("tree dumps match their goldens", "[golden]") {
  auto dir = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "plans" / "trees";
  auto inputs = planlint::test::files_under(dir, ".plan");
  REQUIRE(inputs.size() >= 4);
  for (const auto& in : inputs) {
    auto golden = in;
    golden.replace_extension(".tree");
    INFO(in.string());
    REQUIRE(std::filesystem::exists(golden));
    auto doc = planlint::plan::parse_document(planlint::test::read_file(in), in.filename().string());
    CHECK(planlint::plan::dump_text(doc) == planlint::test::read_file(golden));
  }
}
