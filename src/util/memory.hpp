// The threads a run starts.
#pragma once

#include <functional>
#include <thread>
#include <vector>

namespace planlint::util {

// The most threads a run starts: `-j 100000` asks for more than any machine runs at once (each
// costs a stack), so requests are held to four per core and at least 64.
unsigned max_jobs();
// Starts `extra` worker threads running `work`, fewer when the system refuses
// one: the work is shared by those that started (and the caller's thread), not aborted.
std::vector<std::thread> start_workers(unsigned extra, const std::function<void()>& work);

}  // namespace planlint::util
