#include "benchmarks/core_clock.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace cryptobench::bench {
namespace {

constexpr std::uint64_t kCyclesPerIteration = 64 * 3;

// 64 dependent 64-bit IMULs: 3 cycles of latency each on every x86-64 core of
// the last decade (Intel since Nehalem, AMD since Zen); the loop's own
// instructions run in parallel. Not ADD with an immediate: Golden Cove's
// renamer folds those chains and would report ~6x the real clock.
std::uint64_t dependent_chain(std::uint64_t iterations) {
  std::uint64_t x = 1;
  const std::uint64_t factor = 3;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    __asm__ volatile(
        ".rept 64\n\t"
        "imul %1, %0\n\t"
        ".endr"
        : "+r"(x)
        : "r"(factor));
  }
  return x;
}

double fastest_sample(std::uint64_t iterations, int samples) {
  using Clock = std::chrono::steady_clock;
  double best = 0;
  for (int sample = 0; sample < samples; ++sample) {
    const auto start = Clock::now();
    dependent_chain(iterations);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const double hz = static_cast<double>(iterations * kCyclesPerIteration) / seconds;
    if (hz > best) best = hz;
  }
  return best;
}

}  // namespace

double measure_core_hz() {
  constexpr std::uint64_t kIterations = 300'000;  // 58 M cycles: ~15 ms at 4 GHz
  dependent_chain(kIterations / 4);               // let the clock ramp up
  return fastest_sample(kIterations, 7);
}

double current_core_hz(int samples) {
  constexpr std::uint64_t kIterations = 5'000;  // 0.96 M cycles: ~0.25 ms
  using Clock = std::chrono::steady_clock;
  std::vector<double> hz(static_cast<std::size_t>(samples));
  for (double& sample : hz) {
    const auto start = Clock::now();
    dependent_chain(kIterations);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    sample = static_cast<double>(kIterations * kCyclesPerIteration) / seconds;
  }
  const auto middle = hz.begin() + samples / 2;
  std::nth_element(hz.begin(), middle, hz.end());
  return *middle;
}

}  // namespace cryptobench::bench
