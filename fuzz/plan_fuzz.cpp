// libFuzzer entry: any bytes through the plan parser and every rule must not crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lint/engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  planlint::lint::LintOptions options;
  options.select = {"ALL"};
  auto r =
      planlint::lint::lint_plan_text("fuzz.plan", std::string_view(reinterpret_cast<const char*>(data), size), options);
  (void)r;
  return 0;
}
