#include "benchmarks/samples.h"

#include <immintrin.h>
#include <time.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <random>

#include "benchmarks/output_file.h"
#include "kernels/cpu_features.h"

namespace cryptobench::bench {
namespace {

// 8 independent AESENC chains keep a 2-per-cycle AES unit busy at latency
// 4 (Zen) or 3 (Intel): throughput-bound, like the measured bulk code.
constexpr int kProbeStreams = 8;
constexpr int kClmulSteps = 256;  // x 8 streams: 2,048 PCLMULQDQ
constexpr int kProbeSteps = 512;  // x 8 streams: 4,096 AESENC, about 0.5 us at 2 per cycle

__attribute__((target("aes,sse4.1"), noinline)) std::int64_t run_probe() {
  __m128i x[kProbeStreams];
  for (int s = 0; s < kProbeStreams; ++s) x[s] = _mm_set1_epi32(s + 1);
  const __m128i key = _mm_set_epi32(0x0f0e0d0c, 0x0b0a0908, 0x07060504, 0x03020100);
  const std::int64_t start = monotonic_now_ns();
  for (int step = 0; step < kProbeSteps; ++step) {
    for (int s = 0; s < kProbeStreams; ++s) x[s] = _mm_aesenc_si128(x[s], key);
  }
  // Keep the chains alive: the result feeds an empty asm the compiler must assume reads it.
  __m128i sum = x[0];
  for (int s = 1; s < kProbeStreams; ++s) sum = _mm_xor_si128(sum, x[s]);
  asm volatile("" : : "x"(sum));
  return monotonic_now_ns() - start;
}

struct SamplesFile {
  std::mutex mutex;
  std::string path;
  std::string text;
  bool open = false;
};

SamplesFile& samples_file() {
  static SamplesFile file;
  return file;
}

void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;  // benchmark names are ASCII tokens (grid.cc)
  }
  out += '"';
}

// The noisy neighbour's schedule: regime boundaries and factors, made once.
struct Regime {
  std::int64_t end_ns;  // since the neighbour started
  double factor;        // 1 when quiet
};
std::vector<Regime> g_regimes;
std::int64_t g_neighbour_start = 0;
std::atomic<bool> g_neighbour{false};

// The third part: 8 independent PCLMULQDQ chains (GHASH's multiplier). Seen
// on a Zen 5 host: GCM slowed by 1.36x while the AES and table parts stayed
// quiet.
__attribute__((target("pclmul,sse4.1"), noinline)) std::int64_t run_clmul_probe() {
  __m128i x[kProbeStreams];
  for (int s = 0; s < kProbeStreams; ++s) x[s] = _mm_set1_epi32(s + 3);
  const __m128i h = _mm_set_epi32(0x0f0e0d0c, 0x0b0a0908, 0x07060504, 0x03020100);
  const std::int64_t start = monotonic_now_ns();
  for (int step = 0; step < kClmulSteps; ++step) {
    for (int s = 0; s < kProbeStreams; ++s) x[s] = _mm_clmulepi64_si128(x[s], h, 0x01);
  }
  __m128i sum = x[0];
  for (int s = 1; s < kProbeStreams; ++s) sum = _mm_xor_si128(sum, x[s]);
  asm volatile("" : : "x"(sum));
  return monotonic_now_ns() - start;
}

// The second part of the probe: table-based work (T-table AES's shape: per
// step, four independent loads from a 4 KiB table XORed into each of 8
// streams), bound by the load ports and scalar ALUs. Seen on a Zen 5 host:
// a neighbour slowed table and scalar code (openssl-aes, mbedtls, botan's
// CTR) by 1.4-1.8x while the AES units and AES-NI code barely moved.
constexpr int kTableSteps = 192;
std::uint32_t g_table[1024];
[[maybe_unused]] const bool g_table_ready = [] {
  std::uint32_t x = 2463534242u;
  for (std::uint32_t& t : g_table) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    t = x;
  }
  return true;
}();

[[gnu::noinline]] std::int64_t run_table_probe() {
  std::uint32_t s[kProbeStreams];
  for (int k = 0; k < kProbeStreams; ++k) s[k] = static_cast<std::uint32_t>(k * 0x9e3779b9u);
  // Bring the table's 64 lines back into L1 first, untimed: the benchmark
  // between two probes may have evicted them, and its own cache footprint is
  // not a neighbour (measured: a 100 B GCM roundtrip's probes read 1.3-3.3x
  // slow without this, on an idle host).
  std::uint32_t warm = 0;
  for (int i = 0; i < 1024; i += 16) warm ^= g_table[i];
  asm volatile("" : : "r"(warm));
  const std::int64_t start = monotonic_now_ns();
  for (int step = 0; step < kTableSteps; ++step) {
    for (std::uint32_t& x : s) {
      x = g_table[x & 1023] ^ g_table[(x >> 8) & 1023] ^ g_table[(x >> 16) & 1023] ^
          g_table[(x >> 22) & 1023];
    }
  }
  std::uint32_t sum = 0;
  for (const std::uint32_t x : s) sum ^= x;
  asm volatile("" : : "r"(sum));
  return monotonic_now_ns() - start;
}

}  // namespace

std::int64_t monotonic_now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

std::int64_t thread_cpu_now_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

Probe contention_probe() {
  Probe p{cpu_features().aesni ? run_probe() : 0, run_table_probe(),
          cpu_features().pclmulqdq ? run_clmul_probe() : 0};
  if (!g_neighbour.load(std::memory_order_relaxed)) return p;
  // The injected neighbour slows every part as it slows throughput-bound code.
  const double slowdown = noisy_neighbour_slowdown(1.0);
  if (slowdown > 1) {
    busy_wait_ns(static_cast<std::int64_t>(static_cast<double>(p.aes_ns + p.table_ns + p.clmul_ns) *
                                           (slowdown - 1)));
    for (std::int64_t* part : {&p.aes_ns, &p.table_ns, &p.clmul_ns}) {
      *part = static_cast<std::int64_t>(static_cast<double>(*part) * slowdown);
    }
  }
  return p;
}

bool open_samples_file(const std::string& path, const std::string& run_id, std::string* error) {
  if (const std::string problem = output_target_problem(path); !problem.empty()) {
    *error = problem;
    return false;
  }
  SamplesFile& f = samples_file();
  const std::lock_guard<std::mutex> lock(f.mutex);
  f.path = path;
  f.text = "{\"cryptobench_samples\": 1, \"run_id\": ";
  append_json_string(f.text, run_id);
  f.text += ", \"sample_seconds\": " + std::to_string(kSampleSeconds) +
            ", \"probe_parts\": [\"aes\", \"table\", \"clmul\"]}\n";
  f.open = true;
  return true;
}

bool sampling_enabled() { return samples_file().open; }

void record_loop(const LoopRecord& r) {
  std::string line;
  line.reserve(64 + r.samples.size() * 24 + r.probes.size() * 8);
  line += "{\"name\": ";
  append_json_string(line, r.name);
  char head[256];
  std::snprintf(head, sizeof head,
                ", \"thread\": %d, \"threads\": %d, \"iterations\": %llu, \"bytes\": %.17g, "
                "\"messages_per_iteration\": %.17g, \"start_ns\": %lld, \"samples\": [",
                r.thread, r.threads, static_cast<unsigned long long>(r.iterations), r.bytes,
                r.messages_per_iteration, static_cast<long long>(r.start_ns));
  line += head;
  for (std::size_t k = 0; k < r.samples.size(); ++k) {
    const Sample& s = r.samples[k];
    char item[100];
    std::snprintf(item, sizeof item, "%s[%lld, %lld, %llu, %lld]", k ? ", " : "",
                  static_cast<long long>(s.start_ns), static_cast<long long>(s.ns),
                  static_cast<unsigned long long>(s.iterations), static_cast<long long>(s.cpu_ns));
    line += item;
  }
  line += "], \"probes\": [";
  for (std::size_t k = 0; k < r.probes.size(); ++k) {
    if (k) line += ", ";
    char item[64];
    std::snprintf(
        item, sizeof item, "[%lld, %lld, %lld]", static_cast<long long>(r.probes[k].aes_ns),
        static_cast<long long>(r.probes[k].table_ns), static_cast<long long>(r.probes[k].clmul_ns));
    line += item;
  }
  line += "]}\n";
  SamplesFile& f = samples_file();
  const std::lock_guard<std::mutex> lock(f.mutex);
  if (f.open) f.text += line;
}

bool finish_samples_file(bool keep) {
  SamplesFile& f = samples_file();
  const std::lock_guard<std::mutex> lock(f.mutex);
  if (!f.open || !keep) return true;
  f.open = false;
  std::string error;
  if (!write_file_replacing(f.path, f.text, &error)) {
    std::fprintf(stderr,
                 "cryptobench: the samples could not be written to %s (%s); it is "
                 "unchanged\n",
                 f.path.c_str(), error.c_str());
    return false;
  }
  return true;
}

void start_noisy_neighbour(std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> length(0.1, 3.0), factor(1.4, 1.8);
  std::int64_t t = 0;
  bool contended = std::bernoulli_distribution(0.5)(random);
  while (t < std::int64_t{4} * 3600 * 1'000'000'000) {  // 4 hours of regimes
    t += static_cast<std::int64_t>(length(random) * 1e9);
    g_regimes.push_back({t, contended ? factor(random) : 1.0});
    contended = !contended;
  }
  g_neighbour_start = monotonic_now_ns();
  g_neighbour.store(true);
}

bool noisy_neighbour_on() { return g_neighbour.load(std::memory_order_relaxed); }

double noisy_neighbour_slowdown(double sensitivity) {
  if (!noisy_neighbour_on()) return 1;
  const std::int64_t t = monotonic_now_ns() - g_neighbour_start;
  // Binary search: regimes are sorted by their end.
  std::size_t lo = 0, hi = g_regimes.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (g_regimes[mid].end_ns <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  const double factor = lo < g_regimes.size() ? g_regimes[lo].factor : 1.0;
  return 1 + sensitivity * (factor - 1);
}

void busy_wait_ns(std::int64_t ns) {
  const std::int64_t until = monotonic_now_ns() + ns;
  while (monotonic_now_ns() < until) {
  }
}

}  // namespace cryptobench::bench
