#include "util/memory.hpp"

#include <algorithm>
#include <system_error>

namespace planlint::util {
unsigned max_jobs() { return std::max(64U, 4 * std::thread::hardware_concurrency()); }

std::vector<std::thread> start_workers(unsigned extra, const std::function<void()>& work) {
  std::vector<std::thread> pool;
  extra = std::min(extra, max_jobs());
  pool.reserve(extra);
  for (unsigned t = 0; t < extra; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // the system refused a thread: the ones started share the work
    }
  }
  return pool;
}

}  // namespace planlint::util
