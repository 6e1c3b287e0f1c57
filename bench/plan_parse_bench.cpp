// Parsing throughput over every real plan in ../shared/corpus/plans (MB/s), and per corpus folder.
// Run: build/bench/plan_parse_bench   (not a test: numbers go in notes, never in assertions)
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "plan/plan.hpp"

namespace {

std::vector<std::string> load(const std::string& sub) {
  std::vector<std::string> texts;
  auto dir = std::filesystem::path(PLANLINT_CORPUS_DIR) / "plans" / sub;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".txt" || e.path().filename().string().rfind("README", 0) == 0)
      continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    texts.push_back(ss.str());
  }
  return texts;
}

void parse_all(benchmark::State& state, const std::string& sub) {
  static std::map<std::string, std::vector<std::string>> cache;
  auto& texts = cache.try_emplace(sub, load(sub)).first->second;
  std::int64_t bytes = 0;
  for (const auto& t : texts) bytes += static_cast<std::int64_t>(t.size());
  for (auto _ : state) {
    for (const auto& t : texts) benchmark::DoNotOptimize(planlint::plan::parse_document(t, "bench"));
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["files"] = static_cast<double>(texts.size());
}

}  // namespace

BENCHMARK_CAPTURE(parse_all, whole_corpus, std::string(""))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(parse_all, tpcds, std::string("spark-tpcds"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(parse_all, eventlogs, std::string("eventlog-extracted"))->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
