// bench/run's check of the machine: the CPU time of a memory-bound loop (random reads over 64 MB),
// run by bench/run pinned to each core in turn. On the shared virtual machines planlint is measured
// on, one core is at times half again as slow as the other for such work (its host's cache or memory
// shared with a busy neighbour) while a loop of arithmetic runs at the same speed on both: -j2 then
// looks far worse or far better against -j1 depending on the core -j1 ran on.
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <vector>

int main() {
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  constexpr long kReads = 5'000'000;
  std::vector<unsigned char> buf(kBytes);
  for (std::size_t i = 0; i < kBytes; ++i) buf[i] = static_cast<unsigned char>(i);
  timespec a{}, b{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
  std::uint64_t x = 1, sum = 0;
  for (long i = 0; i < kReads; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sum += buf[(x >> 20) % kBytes];
  }
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
  double ms = static_cast<double>(b.tv_sec - a.tv_sec) * 1e3 + static_cast<double>(b.tv_nsec - a.tv_nsec) / 1e6;
  std::printf("%.1f\n", ms + static_cast<double>(sum & 1) * 1e-9);
  return 0;
}
