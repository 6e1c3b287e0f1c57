// libFuzzer entry: any bytes through the plan parser, every rule and every report format must not
// crash, hang or leak, and the JSON and SARIF reports must stay valid. `planlint diff` too: the
// input's two halves diffed, and the input against itself, which must be no plan change.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_util.hpp"
#include "lint/diff_engine.hpp"
#include "lint/engine.hpp"
#include "plan/dump.hpp"
#include "plan/plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  planlint::lint::LintOptions options;
  options.select = {"ALL"};
  auto r = planlint::lint::lint_plan_text("fuzz.plan", std::string(text), options);
  planlint::fuzz::check_reports({r});
  auto half = text.size() / 2;
  auto d = planlint::lint::diff_plan_texts("before.plan", std::string(text.substr(0, half)), "after.plan",
                                           std::string(text.substr(half)), options);
  planlint::fuzz::check_reports({d.result});
  auto same =
      planlint::lint::diff_plan_texts("before.plan", std::string(text), "after.plan", std::string(text), options);
  if (!same.no_plan_change() || !same.result.diagnostics.empty()) std::abort();
  auto doc = planlint::plan::parse_document(std::string(text), "fuzz.plan");
  (void)planlint::plan::dump_text(doc);
  if (!nlohmann::json::accept(planlint::plan::dump_json(doc))) std::abort();
  return 0;
}
