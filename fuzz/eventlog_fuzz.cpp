// libFuzzer entry: the event-log reader and its diagnoses. The first byte picks the codec the rest is
// read with (plain, gzip, zstd, lz4-java, snappy-java, lzf: their decoders see arbitrary bytes), or
// asks for the rest to be framed validly first (so the JSON behind a codec is fuzzed too). Every
// report is rendered; JSON and SARIF must parse back.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "eventlog/codec.hpp"
#include "fuzz_util.hpp"
#include "lint/eventlog_engine.hpp"
#include "report/eventlog.hpp"

using planlint::fuzz::scratch;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  using planlint::eventlog::frame_lz4_block;
  using planlint::eventlog::frame_lzf;
  using planlint::eventlog::frame_snappy_java;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  static constexpr const char* kNames[] = {"app", "app.gz", "app.zstd", "app.lz4", "app.snappy", "app.lzf"};
  unsigned mode = data[0] % 9;
  std::string name = mode < 6 ? kNames[mode] : kNames[mode - 3];
  if (mode == 6) bytes = frame_lz4_block(bytes, 1024);
  if (mode == 7) bytes = frame_snappy_java(bytes, 1024);
  if (mode == 8) bytes = frame_lzf(bytes);
  auto path = scratch() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  planlint::lint::LintOptions options;
  auto result = planlint::lint::analyze_event_log(path.string(), options);
  std::vector<const planlint::lint::EventLogResult*> all{&result};
  (void)planlint::report::render_eventlog_summary(result, false);
  (void)planlint::report::render_eventlog_summary(result, true);
  (void)planlint::report::render_eventlog_html(all);
  (void)planlint::report::render_eventlog_ranking(all, false);
  (void)planlint::report::render_eventlog_compare(result, result, planlint::report::CostOptions{1.0, 0, 2.0}, false);
  if (!nlohmann::json::accept(planlint::report::render_eventlog_json(all, "fuzz"))) std::abort();
  planlint::fuzz::check_reports({planlint::lint::to_file_result(result, options)});
  return 0;
}
