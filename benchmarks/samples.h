// samples.h: the timed loop's short samples, the contention probe beside
// them, and the per-sample record of a run (samples.jsonl).
//
// A shared host's neighbours slow throughput-bound AES by 1.45-1.8x in
// regimes of 0.1-3 s (../shared/noise): a repetition's single figure is a
// draw from a two-regime mixture. So each loop is timed in samples of about
// kSampleSeconds, and between two samples a fixed throughput-bound AES probe
// is timed (outside the measured time) to tell which regime the sample ran
// in, by something other than the measured code's own times. The tools
// (cryptobench_results/sampled.py) read the record and form every figure
// from the samples the probes call uncontended.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cryptobench::bench {

constexpr double kSampleSeconds = 250e-6;

// One sample: `iterations` loop iterations that took `ns` (probe excluded),
// starting `start_ns` after the loop's start, of which the thread ran
// `cpu_ns` (less: the scheduler gave the core to another task meanwhile).
struct Sample {
  std::int64_t start_ns;
  std::int64_t ns;
  std::uint64_t iterations;
  std::int64_t cpu_ns;
};

// A probe: the times of three fixed throughput-bound jobs, each well under a
// microsecond: 8 independent AESENC chains (the AES units), 8 streams of
// T-table-style loads (load ports, scalar ALUs) and 8 PCLMULQDQ chains
// (GHASH's multiplier); 0 for a part the CPU lacks. Neighbours have been
// seen to contend for any one of them alone.
struct Probe {
  std::int64_t aes_ns;
  std::int64_t table_ns;
  std::int64_t clmul_ns;
};

// One timed loop (one call of a benchmark's function, one thread):
// samples[k] ran between probes[k] and probes[k + 1].
struct LoopRecord {
  std::string name;  // the benchmark's full name, as in the JSON
  int thread = 0;
  int threads = 1;
  std::uint64_t iterations = 0;  // this thread's
  double bytes = 0;              // this thread's plaintext bytes
  double messages_per_iteration = 1;
  std::int64_t start_ns = 0;  // CLOCK_MONOTONIC at the loop's start
  std::vector<Sample> samples;
  std::vector<Probe> probes;
};

// contention_probe: one probe now.
Probe contention_probe();

// The run's record: a JSON line per timed loop, written to a temporary file
// beside the target and renamed over it only when the run completes.
bool open_samples_file(const std::string& path, const std::string& run_id, std::string* error);
void record_loop(const LoopRecord& record);
// finish_samples_file: false (with the reason on stderr) if the record could
// not be completed; the target is then left as it was.
bool finish_samples_file(bool keep);
bool sampling_enabled();

// The noisy neighbour (--inject-noise=SEED, for tests): regimes of 0.1-3 s,
// alternately quiet and contended by a factor of 1.4-1.8 drawn per regime,
// from a schedule fixed by the seed and the time since the run started.
// slowdown: the factor for code of the given sensitivity (1: throughput-
// bound like the probe; near 0: a latency-bound chain) at this moment.
void start_noisy_neighbour(std::uint64_t seed);
bool noisy_neighbour_on();
double noisy_neighbour_slowdown(double sensitivity);
// busy_wait_ns: spin (not sleep: a neighbour takes ports, not the core).
void busy_wait_ns(std::int64_t ns);
std::int64_t monotonic_now_ns();
std::int64_t thread_cpu_now_ns();  // CLOCK_THREAD_CPUTIME_ID

}  // namespace cryptobench::bench
