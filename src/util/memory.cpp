#include "util/memory.hpp"

#include <atomic>
#include <mutex>

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
