#include "benchmarks/timed_loop.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>

#include "benchmarks/alloc_counter.h"
#include "benchmarks/core_clock.h"
#include "benchmarks/progress_reporter.h"
#include "benchmarks/samples.h"
#include "benchmarks/workload.h"

namespace cryptobench::bench {
namespace {

// Failures are recorded where they happen, not read back from a reporter: a
// display reporter may see only aggregates.
class FailureLog {
 public:
  void add(const std::string& name, const std::string& message) {
    const std::lock_guard<std::mutex> lock(mutex_);
    failures_.push_back(name + ": " + message);
  }
  std::vector<std::string> all() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return failures_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> failures_;
};

FailureLog& failure_log() {
  static FailureLog log;
  return log;
}

void fail_benchmark(benchmark::State& state, const Cell& cell, const std::string& message) {
  state.SkipWithError(message.c_str());
  failure_log().add(cell.full_name(), message);
}

// Ctrl-C, SIGTERM or SIGHUP: the benchmark running finishes, the rest are
// skipped quickly, and the JSON is completed, so what finished stays usable.
// A second signal stops the running benchmark too (its loop checks between
// operations) and still writes what finished; nothing kills the process
// outright but SIGKILL or SIGQUIT (Ctrl-\).
std::atomic<bool> g_interrupted{false};  // lock-free: safe to set in a signal handler
std::atomic<bool> g_abandon{false};      // a second signal: stop the running loop
std::atomic<int> g_signal{0};            // the first signal caught
std::atomic<int> g_signal_count{0};
// Multi-threaded benchmarks: the clock thread 0 samples after the loop, while
// the other threads sleep on the generation (one benchmark runs at a time).
std::atomic<double> g_clock_after_loop{0};
std::atomic<std::uint64_t> g_clock_generation{0};

constexpr int kCaughtSignals[] = {SIGINT, SIGTERM, SIGHUP};

void say(const char* text) {  // async-signal-safe
  std::size_t n = 0;
  while (text[n] != '\0') ++n;
  [[maybe_unused]] const auto written = write(STDERR_FILENO, text, n);
}

// A signal sent to the whole process group arrives twice under
// run-benchmarks (directly, and passed on by the script): a repeat within
// this long of the first counts once.
constexpr std::int64_t kRepeatNs = 500'000'000;
std::atomic<std::int64_t> g_last_signal_ns{0};

std::int64_t monotonic_ns() {  // clock_gettime is async-signal-safe
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

void on_interrupt(int signo) {
  const int saved_errno = errno;
  const std::int64_t now = monotonic_ns();
  const std::int64_t last = g_last_signal_ns.load();
  if (last != 0 && now - last < kRepeatNs) {
    errno = saved_errno;
    return;
  }
  g_last_signal_ns.store(now);
  int none = 0;
  g_signal.compare_exchange_strong(none, signo);
  const int count = g_signal_count.fetch_add(1) + 1;
  g_interrupted.store(true);
  say(signo == SIGINT ? "\ncryptobench: interrupted (SIGINT)"
                      : (signo == SIGTERM ? "\ncryptobench: interrupted (SIGTERM)"
                                          : "\ncryptobench: interrupted (SIGHUP)"));
  if (count == 1) {
    say("; finishing the current benchmark and writing what finished (again to stop it too)\n");
  } else if (count == 2) {
    g_abandon.store(true);
    say("; stopping the current benchmark too and writing what finished\n");
  } else {
    say("; still writing what finished (Ctrl-\\ quits at once, losing it)\n");
  }
  errno = saved_errno;
}

// Google Benchmark calls a benchmark's function several times (to size the
// iteration count, and once per repetition): after Ctrl-C, benchmarks that
// had started go on, the others are skipped. Both are tracked by name. With
// interleaved repetitions only the benchmark running at Ctrl-C goes on (the
// calls sizing its repetition, or that repetition).
std::atomic<bool> g_interleaved{false};
std::atomic<double> g_min_time{0};

class RunLog {
 public:
  // start: false when the benchmark should be skipped.
  bool start(const std::string& name) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const bool goes_on =
        !g_abandon.load() && (g_interleaved.load() ? name == last_ : started_.count(name) > 0);
    if (g_interrupted.load() && !goes_on) {
      skipped_.insert(name);
      return false;
    }
    started_.insert(name);
    last_ = name;
    return true;
  }
  // loop_done: after Ctrl-C, a loop as long as a repetition (Google
  // Benchmark accepts a loop of min_time, by a clock that includes ours) ends the
  // interleaved benchmark's turn.
  void loop_done(double seconds) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (g_interrupted.load() && seconds >= g_min_time.load()) last_.clear();
  }
  void abandoned(const std::string& name) {
    const std::lock_guard<std::mutex> lock(mutex_);
    skipped_.insert(name);
  }
  std::size_t skipped() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return skipped_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::set<std::string> started_, skipped_;
  std::string last_;
};

RunLog& run_log() {
  static RunLog log;
  return log;
}

}  // namespace

void run_cell(benchmark::State& state, const Cell& cell, const CellSetup& shared) {
  if (!run_log().start(cell.full_name())) {
    state.SkipWithError("not run: the run was interrupted");
    for (auto _ : state) {
    }
    return;
  }
  std::unique_ptr<Workload> workload;
  try {
    const AesBackend* reference = shared.member->reference_for(cell.mode, cell.key_bytes);
    if (reference == nullptr) {
      throw std::runtime_error("no other backend offers " + cipher_name(cell.mode, cell.key_bytes) +
                               " to verify the outputs against");
    }
    workload = make_workload(cell, *shared.member->backend, *reference, std::random_device{}());
    if (shared.inject_tag_fault && !workload->corrupt_input_tag()) {
      throw std::runtime_error("--inject-fault=tag: the cell opens no prepared GCM message");
    }
  } catch (const std::exception& e) {
    fail_benchmark(state, cell, e.what());
    for (auto _ : state) {  // skipped: the loop ends at once (keeps threads in step)
    }
    if (cell.threads > 1 && state.thread_index() == 0) {  // threads that did start wait for it
      g_clock_generation.fetch_add(1);
      g_clock_generation.notify_all();
    }
    return;
  }
  // The range-for loop written out: end() holds Google Benchmark's start
  // barrier, and the last != holds its stop barrier. So [start, stop] is the
  // wall time from the common start until the last thread finished, which
  // does not flatter runs with more threads than cores (Google Benchmark's
  // own real time averages each thread's time, excluding its wait at the
  // stop barrier).
  using Clock = std::chrono::steady_clock;
  // Cycles are wall time x the clock, and this VM's clock, as dependent
  // chains see it, wanders by a few percent from millisecond to millisecond
  // (a neighbour's load, or turbo) and by more over minutes, so it is
  // sampled around each loop rather than once per run (core_clock.h). One
  // thread: 2 ms before and after the loop, averaged (the short loops Google
  // Benchmark uses to size the run, which it does not report, get the one
  // before only). More threads: thread 0 alone, 2 ms after the stop barrier,
  // while the others sleep, so the sample has a core to itself.
  const double hz_before = cell.threads == 1 ? current_core_hz(shared.clock_samples) : 0;
  // Read before the start barrier: thread 0 publishes this loop's sample
  // only after its loop, which starts after every thread has read this.
  const std::uint64_t clock_generation = g_clock_generation.load();
  const AllocStats before = thread_alloc_stats();
  // The loop is timed in samples of about kSampleSeconds, with the
  // contention probe between them, paused out of the measured time (and out
  // of Google Benchmark's). Without a samples file or an injected neighbour
  // the loop runs unsampled, as a check of the sampling's own cost.
  const bool sampled = sampling_enabled() || noisy_neighbour_on();
  const double sensitivity = noisy_neighbour_on() ? noise_sensitivity(cell) : 0;
  LoopRecord record;
  if (sampled) {
    record.name = cell.full_name();
    record.thread = state.thread_index();
    record.threads = cell.threads;
    record.probes.reserve(256);
    record.samples.reserve(256);
    record.probes.push_back(contention_probe());
  }
  const std::int64_t target_ns = static_cast<std::int64_t>(kSampleSeconds * 1e9);
  std::int64_t paused_ns = 0;  // the probes' time, out of the measured time
  // --inject-slower: the copy runs an operation twice every few iterations,
  // the gaps spread so that extra_percent of every 100 operations run twice.
  int owed = 0;  // hundredths of an operation owed since the last repeat
  const auto next_gap = [&owed, percent = shared.extra_percent]() -> std::uint64_t {
    if (percent <= 0) return ~std::uint64_t{0};            // never
    const int gap = (100 - owed + percent - 1) / percent;  // until a whole one is owed
    owed += gap * percent - 100;
    return static_cast<std::uint64_t>(gap);
  };
  // The hot loop keeps one down-counter in a register: `left` iterations
  // until the next event, the sample's close (never, unsampled) or the
  // copy's repeat; the rest happens per event. So a copy runs the same
  // instructions per iteration as its original, and costs only its repeats
  // and their mispredicted branches: by whole loops, a 3% copy of gcrypt
  // read 2.8-4.0% slower over the noise campaign's slice, the most where an
  // operation is shortest (64 B CBC decryption).
  std::uint64_t in_sample = 1;  // iterations in the current sample
  std::uint64_t sample_left = sampled ? in_sample : ~std::uint64_t{0};
  std::uint64_t extra_left = next_gap();
  std::uint64_t step = std::min(sample_left, extra_left);
  std::uint64_t left = step;
  std::uint64_t i = 0;
  auto it = state.begin();
  const auto end = state.end();
  const auto start = Clock::now();
  const std::int64_t loop_start = sampled ? monotonic_now_ns() : 0;
  std::int64_t sample_start = loop_start;
  std::int64_t sample_cpu_start = sampled ? thread_cpu_now_ns() : 0;
  record.start_ns = loop_start;
  // close_sample: records the sample of `iterations` ending now; returns its end.
  const auto close_sample = [&](std::uint64_t iterations) {
    std::int64_t now = monotonic_now_ns();
    std::int64_t ns = now - sample_start;
    if (sensitivity > 0) {
      const double slowdown = noisy_neighbour_slowdown(sensitivity);
      if (slowdown > 1) {
        busy_wait_ns(static_cast<std::int64_t>(static_cast<double>(ns) * (slowdown - 1)));
        now = monotonic_now_ns();
        ns = now - sample_start;
      }
    }
    if (sampling_enabled()) {
      record.samples.push_back(
          {sample_start - loop_start, ns, iterations, thread_cpu_now_ns() - sample_cpu_start});
    }
    // Size the next samples: about target_ns each, growing at most 64x a step
    // (a first, cold operation is slow).
    const double per_iteration = static_cast<double>(ns) / static_cast<double>(iterations);
    const double wanted = static_cast<double>(target_ns) / std::max(per_iteration, 1.0);
    in_sample =
        static_cast<std::uint64_t>(std::clamp(wanted, 1.0, static_cast<double>(iterations) * 64));
    return now;
  };
  for (; it != end; ++it) {
    if (!workload->run(i)) {
      fail_benchmark(state, cell, workload->error());
      break;
    }
    ++i;
    // A relaxed load of a flag that never changes in a normal run: no
    // measurable cost, and a second signal ends even a long loop quickly.
    if (g_abandon.load(std::memory_order_relaxed)) [[unlikely]] {
      state.SkipWithError("not run: the run was interrupted");
      run_log().abandoned(cell.full_name());
      break;
    }
    if (--left == 0) [[unlikely]] {
      sample_left -= step;
      extra_left -= step;
      if (extra_left == 0) {  // the copy runs the operation just done again
        if (!workload->run(i - 1)) {
          fail_benchmark(state, cell, workload->error());
          break;
        }
        extra_left = next_gap();
      }
      if (sample_left == 0) {
        const std::int64_t closed = close_sample(in_sample);
        state.PauseTiming();
        const Probe probe = contention_probe();
        if (sampling_enabled()) record.probes.push_back(probe);
        state.ResumeTiming();
        sample_left = in_sample;
        sample_cpu_start = thread_cpu_now_ns();
        sample_start = monotonic_now_ns();
        paused_ns += sample_start - closed;
      }
      step = left = std::min(sample_left, extra_left);
    }
  }
  // The current sample's iterations: those before the last event, and since.
  const std::uint64_t in_last_sample = in_sample - sample_left + (step - left);
  if (sampled && in_last_sample > 0 && !state.error_occurred()) {
    close_sample(in_last_sample);
    if (sampling_enabled()) record.probes.push_back(contention_probe());
  }
  const auto stop = Clock::now();
  const AllocStats after = thread_alloc_stats();
  const double loop_seconds =
      std::chrono::duration<double>(stop - start).count() - static_cast<double>(paused_ns) * 1e-9;
  double core_hz = 0;
  if (cell.threads == 1) {
    core_hz = loop_seconds >= 0.01 || shared.calibrated
                  ? (hz_before + current_core_hz(shared.clock_samples)) / 2
                  : hz_before;
  } else if (state.thread_index() == 0) {  // always, even after an error: others wait
    core_hz = current_core_hz(shared.clock_samples);
    g_clock_after_loop.store(core_hz);
    g_clock_generation.fetch_add(1);
    g_clock_generation.notify_all();
  } else if (!state.error_occurred()) {
    // A thread that broke out of its loop (an error, or a second signal)
    // must not wait: thread 0 may be waiting for it at Google Benchmark's
    // stop barrier, which only its return releases.
    g_clock_generation.wait(clock_generation);
    core_hz = g_clock_after_loop.load();
  }
  if (state.thread_index() == 0) {
    ProgressReporter::note_timed_loop(loop_seconds);
    run_log().loop_done(loop_seconds);
  }
  if (state.error_occurred()) return;

  if (shared.inject_verify_fault) workload->corrupt_last_output();
  if (const std::string problem = workload->verify(); !problem.empty()) {
    fail_benchmark(state, cell, problem);
    return;
  }

  // Batch ops count messages: every rate and per-op figure is per message.
  const auto messages = static_cast<double>(workload->messages_per_iteration());
  double bytes = 0;
  if (cell.payload == Payload::kRandom) {
    bytes = static_cast<double>(i) * static_cast<double>(cell.size) * messages;
  } else {
    for (std::uint64_t k = 0; k < i; ++k)
      bytes += static_cast<double>(workload->plaintext_bytes(k));
  }
  // Every rate below is this thread's share over the common wall time;
  // Google Benchmark sums counters over threads, giving the totals.
  using benchmark::Counter;
  const double wall = loop_seconds;
  const double ops = static_cast<double>(i) * messages;
  state.counters["bytes_per_second"] = Counter(bytes / wall);
  state.counters["items_per_second"] = Counter(ops / wall);
  state.counters["ops_per_ms"] = Counter(ops / wall / 1000.0);
  if (bytes > 0) {
    // Core cycles used per byte: clock x wall time x busy cores (threads
    // beyond the core count share cores) / all threads' bytes. Summed then
    // inverted by Google Benchmark.
    const double busy_cores = std::min(cell.threads, shared.cores);
    state.counters["cycles_per_byte"] =
        Counter(bytes / (core_hz * busy_cores * wall), Counter::kInvert);
  }
  state.counters["core_ghz"] = Counter(core_hz / 1e9, Counter::kAvgThreads);
  if (sampling_enabled()) {
    record.iterations = i;
    record.bytes = bytes;
    record.messages_per_iteration = messages;
    record_loop(record);
  }
  if (allocation_counting_enabled()) {
    state.counters["allocs_per_op"] = Counter(
        static_cast<double>(after.count - before.count) / messages, Counter::kAvgIterations);
    state.counters["alloc_bytes_per_op"] = Counter(
        static_cast<double>(after.bytes - before.bytes) / messages, Counter::kAvgIterations);
  }
}

std::vector<std::string> failures() { return failure_log().all(); }

std::int64_t calibrate_iterations(const Cell& cell, const CellSetup& setup, double seconds) {
  const AesBackend* reference = setup.member->reference_for(cell.mode, cell.key_bytes);
  if (reference == nullptr) return 1;  // run_cell reports it
  std::unique_ptr<Workload> workload;
  try {
    workload = make_workload(cell, *setup.member->backend, *reference, std::random_device{}());
  } catch (const std::exception&) {
    return 1;  // run_cell reports it
  }
  if (!workload->run(0)) return 1;  // the first operation warms caches and tables
  // The fastest of about 4 windows of 0.25 ms: a window the scheduler
  // interrupted (another task on the core) would size the loop far too short.
  // 1 ms, not 2: it is spent on every benchmark in each of a run's processes
  // (a round each, 40 by default), about half of what a process adds.
  std::uint64_t i = 1;
  double best = 0;  // seconds per iteration
  std::uint64_t chunk = 1;
  const std::int64_t begin = monotonic_now_ns();
  while (monotonic_now_ns() - begin < 1'000'000 && i < 10'000'000) {
    const std::int64_t start = monotonic_now_ns();
    for (std::uint64_t k = 0; k < chunk; ++k, ++i) {
      if (!workload->run(i)) return 1;
    }
    const double per =
        static_cast<double>(monotonic_now_ns() - start) * 1e-9 / static_cast<double>(chunk);
    if (best == 0 || per < best) best = per;
    chunk = static_cast<std::uint64_t>(
        std::clamp(250e-6 / std::max(per, 1e-9), 1.0, static_cast<double>(chunk) * 16));
  }
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(seconds / best + 0.5));
}

double noise_sensitivity(const Cell& cell) {
  double base = 1.0;
  if (cell.mode == Mode::kCbc && (cell.op == Op::kEncrypt || cell.op == Op::kEncryptLog)) {
    base = 0.05;  // one dependent chain: the AES ports are mostly idle
  } else if (cell.op == Op::kRoundtrip) {
    base = 0.5;  // a chain, a parallel decryption and a codec
  }
  // FNV-1a: a fixed share per backend (a test-only slower twin shares its original's).
  const std::string backend = cell.backend.substr(0, cell.backend.find("-slower"));
  std::uint32_t hash = 2166136261u;
  for (const char c : backend) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return base * (0.7 + 0.3 * static_cast<double>(hash % 1000) / 999.0);
}

void catch_interrupts(bool on, bool interleaved, double min_time) {
  g_interleaved.store(interleaved);
  g_min_time.store(min_time);
  for (const int signo : kCaughtSignals) {
    struct sigaction action {};
    action.sa_handler = on ? on_interrupt : SIG_DFL;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // a write to the results is never cut short
    sigaction(signo, &action, nullptr);
  }
}

bool interrupted() { return g_interrupted.load(); }

int interrupt_signal() { return g_signal.load(); }

std::size_t skipped_after_interrupt() { return run_log().skipped(); }

}  // namespace cryptobench::bench
