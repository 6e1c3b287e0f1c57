// How the allocator treats freed memory once a large input is met.
#pragma once

#include <cstddef>

namespace planlint::util {

// What to do when the first large input is met (setting it again starts over): in the planlint
// binary (set by main), tell mimalloc
// to give freed memory back to the system at once instead of after its delay. Nothing otherwise.
using LargeInputHook = void (*)();
void set_large_input_hook(LargeInputHook f);

// Called with the size of each input before its analysis; runs the hook once, for the first input of
// at least kLargeInput bytes. A large file's phases free tens of megabytes in blocks that the next
// phase does not reuse (syntax trees, recomputed-lineage's graph), and kept mapped they counted in
// its peak RSS (a 30 MB notebook: 309 MB, 289 MB with the hook). For small inputs the delay is kept:
// returning each freed page at once costs system time over thousands of files.
void note_input_size(std::size_t bytes);

constexpr std::size_t kLargeInput = std::size_t{256} * 1024;

}  // namespace planlint::util
