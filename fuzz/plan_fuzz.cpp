// libFuzzer entry: any bytes through the plan parser, every rule and every report format must not
// crash, hang or leak, and the JSON and SARIF reports must stay valid.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_util.hpp"
#include "lint/engine.hpp"
#include "plan/dump.hpp"
#include "plan/plan.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  planlint::lint::LintOptions options;
  options.select = {"ALL"};
  auto r = planlint::lint::lint_plan_text("fuzz.plan", std::string(text), options);
  planlint::fuzz::check_reports({r});
  auto doc = planlint::plan::parse_document(std::string(text), "fuzz.plan");
  (void)planlint::plan::dump_text(doc);
  if (!nlohmann::json::accept(planlint::plan::dump_json(doc))) std::abort();
  return 0;
}
