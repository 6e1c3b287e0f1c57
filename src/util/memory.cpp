#include "util/memory.hpp"

#include <atomic>

namespace planlint::util {
namespace {
std::atomic<LargeInputHook> hook{nullptr};
std::atomic<bool> ran{false};
}  // namespace

void set_large_input_hook(LargeInputHook f) {
  hook.store(f);
  ran.store(false);
}

void note_input_size(std::size_t bytes) {
  if (bytes < kLargeInput || ran.exchange(true)) return;
  if (LargeInputHook f = hook.load()) f();
}

}  // namespace planlint::util
