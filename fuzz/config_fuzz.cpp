// libFuzzer entry: any bytes as a pyproject.toml ([tool.planlint]) and as a baseline file. Both are
// read from a file, as planlint reads them: written to a per-process temporary folder first.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/baseline.hpp"
#include "fuzz_util.hpp"
#include "lint/config.hpp"
#include "lint/engine.hpp"

using planlint::fuzz::scratch;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto toml = scratch() / "pyproject.toml";
  std::ofstream(toml, std::ios::binary | std::ios::trunc) << bytes;
  std::vector<planlint::lint::ConfigError> errors;
  auto config = planlint::lint::load_config(toml, errors);
  planlint::lint::LintOptions cli;
  auto options = planlint::lint::options_for(scratch() / "job.py", config ? &*config : nullptr, cli);
  (void)planlint::lint::excluded((scratch() / "job.py").native(), config ? &*config : nullptr);
  // The same bytes as a baseline for a result with a finding.
  auto baseline = scratch() / "baseline.json";
  std::ofstream(baseline, std::ios::binary | std::ios::trunc) << bytes;
  auto results = std::vector<planlint::lint::FileResult>{
      planlint::lint::lint_source_text("job.py", "df = spark.table('t')\nrows = df.collect()\n", options)};
  (void)planlint::cli::apply_baseline(baseline.string(), results);
  return 0;
}
