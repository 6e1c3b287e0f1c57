// Source frontend throughput: every .py and .ipynb fixture through load, tree-sitter, analysis and
// all rules (files/s and MB/s). Run: build/bench/source_bench
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lint/engine.hpp"

namespace {

std::vector<std::pair<std::string, std::string>> load_fixtures() {
  std::vector<std::pair<std::string, std::string>> out;
  auto dir = std::filesystem::path(PLANLINT_FIXTURES_DIR) / "source";
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    auto ext = e.path().extension();
    if (!e.is_regular_file() || (ext != ".py" && ext != ".ipynb")) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.emplace_back(e.path().string(), ss.str());
  }
  return out;
}

void lint_fixtures(benchmark::State& state) {
  static const auto files = load_fixtures();
  planlint::lint::LintOptions options;
  options.select = {"ALL"};
  std::int64_t bytes = 0;
  for (const auto& f : files) bytes += static_cast<std::int64_t>(f.second.size());
  for (auto _ : state)
    for (const auto& [path, text] : files)
      benchmark::DoNotOptimize(planlint::lint::lint_source_text(path, text, options));
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(files.size()));
  state.counters["files"] = static_cast<double>(files.size());
}

// A realistic 500-line job, repeated: the per-file cost of a larger source.
void lint_large_job(benchmark::State& state) {
  std::string job = "from pyspark.sql import functions as F\nfrom pyspark.sql import Window\n";
  for (int i = 0; i < 100; ++i) {
    job += "df" + std::to_string(i) + " = (spark.read.parquet('s3://lake/t" + std::to_string(i) + "')\n";
    job += "    .filter(F.col('amount') > 0)\n    .withColumn('d', F.to_date('ts'))\n";
    job += "    .groupBy('customer_id').agg(F.sum('amount').alias('total')))\n";
    job += "out" + std::to_string(i) + " = df" + std::to_string(i) + ".join(dims, 'customer_id', 'left')\n";
  }
  for (auto _ : state) benchmark::DoNotOptimize(planlint::lint::lint_source_text("job.py", job, {}));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(job.size()));
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(lint_fixtures)->Unit(benchmark::kMillisecond);
BENCHMARK(lint_large_job)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
