// Helpers shared by the test files: reading files and walking fixture folders.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace planlint::test {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::filesystem::path> files_under(const std::filesystem::path& dir, const std::string& ext) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

#ifdef PLANLINT_CORPUS_DIR
// Whether ../shared's corpus is missing (a user's clone): a test that reads it then says so and
// returns, and ctest reports it as skipped (SKIP_REGULAR_EXPRESSION in tests/CMakeLists.txt).
inline bool corpus_missing() {
  if (std::filesystem::is_directory(PLANLINT_CORPUS_DIR)) return false;
  // CI has ../shared: a test that would skip there fails instead (.ci/run sets this).
  if (std::getenv("PLANLINT_REQUIRE_SHARED") != nullptr)
    throw std::runtime_error(std::string("PLANLINT_REQUIRE_SHARED is set and ../shared/corpus is not at ") +
                             PLANLINT_CORPUS_DIR);
  std::cout << "SKIPPED: needs ../shared/corpus (not found at " << PLANLINT_CORPUS_DIR << ")\n";
  return true;
}
#endif

}  // namespace planlint::test
