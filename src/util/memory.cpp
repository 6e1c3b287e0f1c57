#include "util/memory.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <system_error>

namespace planlint::util {
namespace {
std::mutex mutex;
LargeInputHooks hooks;  // guarded by mutex
int in_flight = 0;      // large inputs being analysed; guarded by mutex
std::atomic<void (*)()> thread_start_hook{nullptr};
}  // namespace

void set_thread_start_hook(void (*hook)()) { thread_start_hook.store(hook); }

void on_thread_start() {
  if (auto* hook = thread_start_hook.load()) hook();
}

unsigned max_jobs() { return std::max(64U, 4 * std::thread::hardware_concurrency()); }

std::vector<std::thread> start_workers(unsigned extra, const std::function<void()>& work) {
  std::vector<std::thread> pool;
  extra = std::min(extra, max_jobs());
  pool.reserve(extra);
  for (unsigned t = 0; t < extra; ++t) {
    try {
      pool.emplace_back([work] {
        on_thread_start();
        work();
      });
    } catch (const std::system_error&) {
      break;  // the system refused a thread: the ones started share the work
    }
  }
  return pool;
}

void set_large_input_hooks(LargeInputHooks h) {
  std::lock_guard lock(mutex);
  hooks = h;
}

LargeInputScope::LargeInputScope(std::size_t bytes) : large_(bytes >= kLargeInput) {
  if (!large_) return;
  std::lock_guard lock(mutex);
  if (in_flight++ == 0 && hooks.enter != nullptr) hooks.enter();
}

LargeInputScope::~LargeInputScope() {
  if (!large_) return;
  std::lock_guard lock(mutex);
  if (--in_flight == 0 && hooks.leave != nullptr) hooks.leave();
}

}  // namespace planlint::util
