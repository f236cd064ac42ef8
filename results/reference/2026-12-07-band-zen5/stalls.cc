// stalls.cc: how often, how long and when in the millisecond the vCPU stops
// running: a loop reads CLOCK_MONOTONIC for 2 s and keeps every gap over
// 2 us between two reads (each read takes about 20 ns).
//   g++ -O2 -o /tmp/stalls stalls.cc && /tmp/stalls
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

static std::int64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main() {
  struct Gap {
    std::int64_t at, ns;
  };
  std::vector<Gap> gaps;
  gaps.reserve(1 << 16);
  const std::int64_t start = now_ns(), end = start + 2000000000LL;
  for (std::int64_t previous = start; previous < end;) {
    const std::int64_t t = now_ns();
    if (t - previous > 2000) gaps.push_back({previous, t - previous});
    previous = t;
  }
  std::int64_t total = 0;
  int bins[10] = {};
  std::vector<std::int64_t> lengths;
  for (const Gap& g : gaps) {
    total += g.ns;
    ++bins[(g.at % 1000000) / 100000];
    lengths.push_back(g.ns);
  }
  std::sort(lengths.begin(), lengths.end());
  std::printf("gaps over 2 us: %zu in 2 s, %.1f ms in all (%.2f%% of the time)\n", gaps.size(),
              static_cast<double>(total) / 1e6, static_cast<double>(total) / 2e7);
  std::printf("where they start within the millisecond (0.1 ms bins):");
  for (int b : bins) std::printf(" %d", b);
  std::printf("\n");
  if (!lengths.empty()) {
    const auto at = [&](double q) {
      return static_cast<double>(lengths[static_cast<std::size_t>(q * (lengths.size() - 1))]) / 1e3;
    };
    std::printf("their length (us): 10th percentile %.1f, median %.1f, 90th %.1f, longest %.1f\n",
                at(0.1), at(0.5), at(0.9), at(1.0));
  }
}
