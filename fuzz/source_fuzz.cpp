// libFuzzer entry: any bytes as a .py file through every source rule, the fixer and the reports.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.hpp"
#include "lint/fixer.hpp"
#include "pyspark/notebook.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  // A file is held in pieces (a Databricks notebook's Python cells and what is between them): they
  // are the file, byte for byte.
  if (planlint::pyspark::whole_raw(planlint::pyspark::load_source("fuzz.py", text)) != text) __builtin_trap();
  planlint::lint::LintOptions options;
  options.select = {"ALL"};
  planlint::lint::FixOptions fix;
  fix.unsafe = true;
  fix.max_rounds = 3;
  auto out = planlint::lint::fix_text("fuzz.py", text, options, fix);
  planlint::fuzz::check_reports({out.remaining});
  return 0;
}
