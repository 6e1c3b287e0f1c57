// libFuzzer entry: any bytes as a .py file and as a notebook, through every source rule and the fixer.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lint/fixer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  planlint::lint::LintOptions options;
  options.select = {"ALL"};
  planlint::lint::FixOptions fix;
  fix.unsafe = true;
  fix.max_rounds = 3;
  (void)planlint::lint::fix_text("fuzz.py", text, options, fix);
  (void)planlint::lint::lint_source_text("fuzz.ipynb", text, options);
  return 0;
}
