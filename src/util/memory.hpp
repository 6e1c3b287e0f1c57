// How the allocator treats freed memory while a large input is analysed, and the threads a run starts.
#pragma once

#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace planlint::util {

// What to do when a large input's analysis starts while no other is in flight (`enter`) and when the
// last one in flight ends (`leave`). In the planlint binary (set by main): mimalloc gives freed
// memory back to the system sooner in between, and keeps its delays otherwise. Nothing by default.
struct LargeInputHooks {
  void (*enter)() = nullptr;
  void (*leave)() = nullptr;
};
void set_large_input_hooks(LargeInputHooks hooks);

// Held over one input's analysis, from before its parse until its findings are out. A large file's
// phases free tens of megabytes in blocks that the next phase does not reuse (syntax trees,
// recomputed-lineage's graph), and kept mapped they counted in its peak RSS (a 30 MB .py job: 318 MB,
// 277 MB with the hooks). Small inputs keep the delay, also after a large one: returning each freed
// page at once and faulting it in again for the next file cost a third of the run's time over the
// real corpus (30,000 page faults, 0.24 s of system time in 0.8 s) when it stayed on for the rest
// of the run.
class LargeInputScope {
 public:
  explicit LargeInputScope(std::size_t bytes);
  ~LargeInputScope();
  LargeInputScope(const LargeInputScope&) = delete;
  LargeInputScope& operator=(const LargeInputScope&) = delete;

 private:
  bool large_ = false;
};

constexpr std::size_t kLargeInput = std::size_t{256} * 1024;

// Run first on every thread planlint starts (workers, the folder walk), and by the main thread once
// it has started the walk: in the planlint binary, for a run over many files (set by main), the
// thread's allocations go to a heap of its own in the huge pages main set up. Nothing by default.
void set_thread_start_hook(void (*hook)());
void on_thread_start();

// The most threads a run starts: `-j 100000` asks for more than any machine runs at once (each
// costs a stack), so requests are held to four per core and at least 64.
unsigned max_jobs();
// Starts `extra` worker threads running `work` (after on_thread_start), fewer when the system refuses
// one: the work is shared by those that started (and the caller's thread), not aborted.
std::vector<std::thread> start_workers(unsigned extra, const std::function<void()>& work);

}  // namespace planlint::util
