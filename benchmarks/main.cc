// cryptobench: the benchmark binary. Its own flags are parsed before any
// benchmark is registered; every Google Benchmark flag keeps working.
//
//   cryptobench [--suite=NAME] [--backends=A,B] [--list-backends] [--list-suites]
//               [--benchmark_* flags]
#include <benchmark/benchmark.h>
#include <unistd.h>
#ifdef CRYPTOBENCH_HAVE_GPERFTOOLS
#include <gperftools/profiler.h>
#endif

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/aes_limits.h"
#include "benchmarks/alloc_counter.h"
#include "benchmarks/build_info.h"
#include "benchmarks/core_clock.h"
#include "benchmarks/filter.h"
#include "benchmarks/git_commit.h"
#include "benchmarks/progress_reporter.h"
#include "benchmarks/suites.h"
#include "benchmarks/workload.h"
#include "kernels/cpu_features.h"
#include "kernels/registry.h"

namespace cryptobench::bench {
namespace {

constexpr const char* kUsage =
    "usage: cryptobench [--suite=NAME] [--backends=A,B,...] [--list-backends] [--list-suites]\n"
    "                   [Google Benchmark flags: --benchmark_filter=REGEX,\n"
    "                    --benchmark_repetitions=N, --benchmark_out=FILE, ...]\n"
    "  --suite=NAME      which slice of the grid to run (default: quick)\n"
    "  --backends=LIST   comma-separated backends (default: every usable one)\n"
    "  --list-backends   show the backends compiled in, their versions and code paths\n"
    "  --list-suites     show the suites and how many benchmarks each registers here\n"
    "  --cpuprofile=FILE write a pprof CPU profile of the benchmarks run (gperftools;\n"
    "                    read it with: google-pprof --text BINARY FILE)\n";

struct Options {
  std::string suite = "quick";
  std::vector<std::string> backends;
  bool list_backends = false;
  bool list_suites = false;
  bool inject_verify_fault = false;  // --inject-fault=verify: for the tests of verification
  std::string cpuprofile;
  std::vector<char*> benchmark_args;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "cryptobench: %s\n", message.c_str());
  std::exit(2);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// take_value: matches "--name=value" or "--name value".
bool take_value(int argc, char** argv, int& i, const std::string& name, std::string* value) {
  const std::string arg = argv[i];
  if (arg.rfind(name + "=", 0) == 0) {
    *value = arg.substr(name.size() + 1);
    return true;
  }
  if (arg == name) {
    if (i + 1 >= argc) usage_error(name + " needs a value");
    *value = argv[++i];
    return true;
  }
  return false;
}

Options parse_options(int argc, char** argv) {
  Options o;
  o.benchmark_args.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (take_value(argc, argv, i, "--suite", &value)) {
      o.suite = value;
    } else if (take_value(argc, argv, i, "--backends", &value)) {
      o.backends = split_commas(value);
    } else if (arg == "--list-backends") {
      o.list_backends = true;
    } else if (arg == "--list-suites") {
      o.list_suites = true;
    } else if (take_value(argc, argv, i, "--cpuprofile", &value)) {
      if (value.empty()) usage_error("--cpuprofile needs a file name");
#ifndef CRYPTOBENCH_HAVE_GPERFTOOLS
      usage_error("--cpuprofile: built without gperftools (Debian: libgoogle-perftools-dev)");
#endif
      o.cpuprofile = value;
    } else if (take_value(argc, argv, i, "--inject-fault", &value)) {
      if (value != "verify") usage_error("--inject-fault takes 'verify'");
      o.inject_verify_fault = true;
    } else {
      o.benchmark_args.push_back(argv[i]);  // Google Benchmark's, checked by it
    }
  }
  if (find_suite(o.suite) == nullptr) {
    usage_error("unknown suite '" + o.suite + "'; valid suites: " + suite_names());
  }
  for (const std::string& name : o.backends) {
    if (name.empty()) usage_error("--backends has an empty name");
    if (find_backend(name) == nullptr) {
      usage_error("unknown backend '" + name + "'; compiled in: " + compiled_backend_names());
    }
  }
  return o;
}

bool has_flag(const std::vector<char*>& args, const std::string& name) {
  return std::any_of(args.begin(), args.end(), [&](const char* a) {
    const std::string s = a;
    return s == name || s.rfind(name + "=", 0) == 0;
  });
}

std::string flag_value(const std::vector<char*>& args, const std::string& name) {
  std::string value;
  for (const char* a : args) {
    const std::string s = a;
    if (s.rfind(name + "=", 0) == 0) value = s.substr(name.size() + 1);
  }
  return value;
}

void list_backends() {
  for (const BackendEntry* entry : compiled_backends()) {
    const std::string why = unusable_reason(*entry);
    if (!why.empty()) {
      std::printf("%-11s %s\n            UNUSABLE here: %s\n", entry->name, entry->summary,
                  why.c_str());
      continue;
    }
    const BackendInfo info = entry->open()->info();
    std::printf(
        "%-11s %s\n            %s %s\n            code path: %s\n            modes: %s%s%s\n"
        "            codec: %s\n            kdf: %s\n",
        entry->name, entry->summary, info.library.c_str(), info.version.c_str(),
        info.code_path.c_str(), mode_names(info.modes).c_str(),
        info.not_offered.empty() ? "" : "; not offered: ", info.not_offered.c_str(),
        info.codec.c_str(), kdf_description(info).c_str());
  }
  std::printf(
      "PKCS#7 padding is applied by cryptobench's AesCipher base class for every backend.\n");
}

// Everything a reader of the JSON needs to judge the figures.
void add_context(const Options& o, double core_hz, const AesLimits& limits,
                 const BackendSet& backends) {
  const CpuFeatures& cpu = hardware_cpu_features();
  benchmark::AddCustomContext("cryptobench_suite", o.suite);
  benchmark::AddCustomContext("cryptobench_version", CRYPTOBENCH_VERSION);
  benchmark::AddCustomContext("git_commit", CRYPTOBENCH_GIT_COMMIT);
  benchmark::AddCustomContext("cpu_model", cpu.model);
  benchmark::AddCustomContext("cpu_vendor", cpu.vendor);
  benchmark::AddCustomContext("cpu_flags", cpu.flag_list());
  char ghz[32];
  std::snprintf(ghz, sizeof ghz, "%.3f", core_hz / 1e9);
  benchmark::AddCustomContext("core_clock_ghz", ghz);
  benchmark::AddCustomContext(
      "core_clock_method",
      "a chain of dependent 3-cycle IMULs timed with steady_clock (the TSC of this VM type "
      "runs slower than the cores): core_clock_ghz is the best of 7 15-ms samples at the start; "
      "each benchmark's core_ghz, which its cycles_per_byte uses, for 1 thread the mean of 2-ms "
      "samples right before and after its timed loop, for more threads a 2-ms sample by one "
      "thread right after it while the others sleep, as the clock wanders (about 2% between "
      "1-ms samples here)");
  benchmark::AddCustomContext("aes_limits", limits.context());
  benchmark::AddCustomContext(
      "aes_limits_method",
      "per register width, nominal AESENC latency (cycles) / throughput (instructions per "
      "cycle), measured at the start of the run with inline-assembly streams (16 dependent, "
      "96 independent) against the IMUL-chain clock and rounded to the architectural value; "
      "cryptobench-results bounds turns them into per-mode bounds");
  benchmark::AddCustomContext("compiler", "g++ " __VERSION__);
  benchmark::AddCustomContext("cxx_flags", CRYPTOBENCH_CXX_FLAGS);
  benchmark::AddCustomContext("build_type", CRYPTOBENCH_BUILD_TYPE);
  benchmark::AddCustomContext(
      "gbench_build_note",
      "Debian's libbenchmark 1.7.1 reports library_build_type=debug; only its harness is "
      "affected: the timed loops are cryptobench code built as " CRYPTOBENCH_BUILD_TYPE);
  benchmark::AddCustomContext("allocation_counting",
                              allocation_counting_enabled()
                                  ? "malloc interposed, per thread, inside the timed loop"
                                  : "off (sanitizer build)");
  for (const auto& [key, value] : backends.context()) benchmark::AddCustomContext(key, value);
  if (const char* pool = std::getenv("BOTAN_MLOCK_POOL_SIZE")) {
    benchmark::AddCustomContext("botan_mlock_pool_kib", pool);
  }
}

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

struct Shared {
  const AesBackend* backend;
  const AesBackend* reference;
  int cores;
  bool inject_verify_fault;
};

// Ctrl-C: the benchmark running finishes, the rest are skipped quickly, and
// the JSON is completed, so what finished stays usable. A second Ctrl-C ends
// the process at once.
std::atomic<bool> g_interrupted{false};  // lock-free: safe to set in a signal handler
// Multi-threaded benchmarks: the clock thread 0 samples after the loop, while
// the other threads sleep on the generation (one benchmark runs at a time).
std::atomic<double> g_clock_after_loop{0};
std::atomic<std::uint64_t> g_clock_generation{0};

void on_interrupt(int) {
  if (g_interrupted.load()) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  g_interrupted.store(true);
  constexpr char kMessage[] =
      "\ncryptobench: interrupted; finishing the current benchmark and writing what finished "
      "(Ctrl-C again to quit at once)\n";
  [[maybe_unused]] const auto written = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
}

// Google Benchmark calls a benchmark's function several times (to size the
// iteration count, and once per repetition): after Ctrl-C, benchmarks that
// had started go on, the others are skipped. Both are tracked by name.
class RunLog {
 public:
  // start: false when the benchmark should be skipped.
  bool start(const std::string& name) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (started_.count(name)) return true;
    if (g_interrupted.load()) {
      skipped_.insert(name);
      return false;
    }
    started_.insert(name);
    return true;
  }
  std::size_t skipped() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return skipped_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::set<std::string> started_, skipped_;
};

RunLog& run_log() {
  static RunLog log;
  return log;
}

void run_cell(benchmark::State& state, const Cell& cell, const Shared& shared) {
  if (!run_log().start(cell.full_name())) {
    state.SkipWithError("not run: the run was interrupted");
    for (auto _ : state) {
    }
    return;
  }
  std::unique_ptr<Workload> workload;
  try {
    workload = std::make_unique<Workload>(cell, *shared.backend, *shared.reference,
                                          std::random_device{}());
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
  // sampled around each loop rather than once per run. One thread: 2 ms
  // before and after the loop, averaged (the short loops Google Benchmark
  // uses to size the run, which it does not report, get the one before
  // only). More threads: thread 0 alone, 2 ms after the stop barrier, while
  // the others sleep, so the sample has a core to itself.
  const double hz_before = cell.threads == 1 ? mean_core_hz(2) : 0;
  // Read before the start barrier: thread 0 publishes this loop's sample
  // only after its loop, which starts after every thread has read this.
  const std::uint64_t clock_generation = g_clock_generation.load();
  const AllocStats before = thread_alloc_stats();
  std::uint64_t i = 0;
  auto it = state.begin();
  const auto end = state.end();
  const auto start = Clock::now();
  for (; it != end; ++it) {
    if (!workload->run(i)) {
      fail_benchmark(state, cell, workload->error());
      break;
    }
    ++i;
  }
  const auto stop = Clock::now();
  const AllocStats after = thread_alloc_stats();
  const double loop_seconds = std::chrono::duration<double>(stop - start).count();
  double core_hz = 0;
  if (cell.threads == 1) {
    core_hz = loop_seconds >= 0.01 ? (hz_before + mean_core_hz(2)) / 2 : hz_before;
  } else if (state.thread_index() == 0) {  // always, even after an error: others wait
    core_hz = mean_core_hz(2);
    g_clock_after_loop.store(core_hz);
    g_clock_generation.fetch_add(1);
    g_clock_generation.notify_all();
  } else {
    g_clock_generation.wait(clock_generation);
    core_hz = g_clock_after_loop.load();
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
  const double wall = std::chrono::duration<double>(stop - start).count();
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
  if (allocation_counting_enabled()) {
    state.counters["allocs_per_op"] = Counter(
        static_cast<double>(after.count - before.count) / messages, Counter::kAvgIterations);
    state.counters["alloc_bytes_per_op"] = Counter(
        static_cast<double>(after.bytes - before.bytes) / messages, Counter::kAvgIterations);
  }
}

std::unique_ptr<benchmark::BenchmarkReporter> display_reporter(const std::vector<char*>& args) {
  const std::string format = flag_value(args, "--benchmark_format");
  if (format == "json") return std::make_unique<benchmark::JSONReporter>();
  if (!format.empty() && format != "console") {
    usage_error("--benchmark_format must be console or json (CSV is deprecated upstream)");
  }
  const bool color = isatty(STDOUT_FILENO) != 0 && flag_value(args, "--benchmark_color") != "false";
  return std::make_unique<benchmark::ConsoleReporter>(
      color ? benchmark::ConsoleReporter::OO_ColorTabular : benchmark::ConsoleReporter::OO_Tabular);
}

int run(int argc, char** argv) {
  // Botan serves small secure allocations from an mlock'ed pool that bypasses
  // malloc; turn it off so its allocations are counted like everyone else's.
  setenv("BOTAN_MLOCK_POOL_SIZE", "0", 0);

  Options o = parse_options(argc, argv);
  if (o.list_backends) {
    list_backends();
    return 0;
  }
  std::unique_ptr<BackendSet> backend_set;
  try {
    backend_set = std::make_unique<BackendSet>(o.backends);
  } catch (const BackendError& e) {
    usage_error(e.what());
  }
  const std::vector<std::string> backends = backend_set->names();

  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const Suite& suite = *find_suite(o.suite);
  // A mode a backend does not offer has no cells (--list-backends says why).
  const auto offered = [&](std::vector<Cell> all) {
    std::erase_if(
        all, [&](const Cell& c) { return !backend_set->find(c.backend)->info.offers(c.mode); });
    return all;
  };
  const std::vector<Cell> cells = offered(suite.cells(backends, cores));
  if (o.list_suites) {
    for (const Suite& s : suites()) {
      std::printf("%-13s %6zu benchmarks  %s\n", std::string(s.name).c_str(),
                  offered(s.cells(backends, cores)).size(), std::string(s.description).c_str());
    }
    return 0;
  }

  std::string min_time_flag;
  if (!has_flag(o.benchmark_args, "--benchmark_min_time")) {
    min_time_flag = "--benchmark_min_time=" + std::to_string(suite.min_time_seconds);
    o.benchmark_args.push_back(min_time_flag.data());
  }
  // Google Benchmark also takes its flags from BENCHMARK_<FLAG> variables;
  // turn those into arguments so they get the same checks and handling.
  std::vector<std::string> env_flags;
  for (const char* name :
       {"repetitions", "min_time", "min_warmup_time", "out", "out_format", "filter", "format"}) {
    std::string var = std::string("BENCHMARK_") + name;
    for (char& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const char* value = std::getenv(var.c_str());
    if (value == nullptr) continue;
    const std::string flag = std::string("--benchmark_") + name;
    if (!has_flag(o.benchmark_args, flag)) env_flags.push_back(flag + "=" + value);
    unsetenv(var.c_str());
  }
  // Inserted right after argv[0], so explicit arguments still come later.
  o.benchmark_args.insert(o.benchmark_args.begin() + 1, env_flags.size(), nullptr);
  for (std::size_t k = 0; k < env_flags.size(); ++k) o.benchmark_args[1 + k] = env_flags[k].data();

  // Google Benchmark 1.7.1 crashes on some values (a negative repetition count
  // aborts in vector::reserve): check the numeric flags first.
  const auto check_number = [&](const std::string& flag, double low, double high) {
    if (!has_flag(o.benchmark_args, flag)) return;
    const std::string text = flag_value(o.benchmark_args, flag);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end == nullptr || *end != '\0' || !(v >= low && v <= high)) {
      char range[64];
      std::snprintf(range, sizeof range, "from %g to %g", low, high);
      usage_error(flag + " must be a number " + range + ", not '" + text + "'");
    }
  };
  check_number("--benchmark_repetitions", 1, 1000);
  check_number("--benchmark_min_time", 1e-6, 3600);
  check_number("--benchmark_min_warmup_time", 0, 3600);

  // --benchmark_out is written under a temporary name and renamed once the
  // JSON is complete, so no half-written file ever replaces a good one. The
  // last occurrence wins, as in Google Benchmark.
  std::string out_file, partial_flag;
  char** last_out = nullptr;
  for (char*& arg : o.benchmark_args) {
    if (std::string(arg).rfind("--benchmark_out=", 0) == 0) last_out = &arg;
  }
  for (char*& arg : o.benchmark_args) {
    const std::string a = arg;
    if (&arg == last_out) {
      out_file = a.substr(std::string("--benchmark_out=").size());
      if (out_file.empty()) usage_error("--benchmark_out needs a file name");
      const std::string dir = out_file.find('/') == std::string::npos
                                  ? "."
                                  : out_file.substr(0, out_file.rfind('/') + 1);
      if (access(dir.c_str(), W_OK) != 0) {
        usage_error("--benchmark_out: cannot write in '" + dir + "' (" + std::strerror(errno) +
                    ")");
      }
      partial_flag = "--benchmark_out=" + out_file + ".partial";
      arg = partial_flag.data();
    }
  }

  // Read what we need of Google Benchmark's flags before it consumes them.
  const std::vector<char*> benchmark_args_copy = o.benchmark_args;
  const std::string filter = flag_value(o.benchmark_args, "--benchmark_filter");
  auto reporter_inner = display_reporter(o.benchmark_args);
  int bench_argc = static_cast<int>(o.benchmark_args.size());
  o.benchmark_args.push_back(nullptr);
  benchmark::Initialize(&bench_argc, o.benchmark_args.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, o.benchmark_args.data())) return 2;

  std::vector<std::string> names;
  for (const Cell& cell : cells) names.push_back(cell.full_name());
  const std::optional<std::size_t> selected = count_selected(names, filter);
  if (!selected)
    usage_error("--benchmark_filter '" + filter + "' is not a valid regular expression");
  if (*selected == 0) {
    usage_error("--benchmark_filter matches none of the " + std::to_string(cells.size()) +
                " benchmarks of suite " + o.suite);
  }

  const std::string listing = flag_value(benchmark_args_copy, "--benchmark_list_tests");
  const bool only_listed = has_flag(benchmark_args_copy, "--benchmark_list_tests") &&
                           listing != "false" && listing != "0";
  // The clock and the AES limits take about 0.4 s; a listing reports neither.
  const AesLimits limits = only_listed ? AesLimits{} : measure_aes_limits();
  const double core_hz =
      only_listed ? 0 : (limits.core_hz > 0 ? limits.core_hz : measure_core_hz());
  add_context(o, core_hz, limits, *backend_set);

  std::vector<Shared> shared;
  shared.reserve(backends.size());
  std::map<std::string, const Shared*> shared_by_backend;
  for (const BackendSet::Member& m : backend_set->members()) {
    shared.push_back({m.backend, m.reference, cores, o.inject_verify_fault});
    shared_by_backend[m.name] = &shared.back();
  }
  for (const Cell& cell : cells) {
    const Shared* s = shared_by_backend[cell.backend];
    benchmark::RegisterBenchmark(cell.name().c_str(),
                                 [cell, s](benchmark::State& state) { run_cell(state, cell, *s); })
        ->Threads(cell.threads)
        ->UseRealTime()
        ->Unit(cell.size >= 65536 ? benchmark::kMicrosecond : benchmark::kNanosecond);
  }

  const bool console = flag_value(benchmark_args_copy, "--benchmark_format").empty() ||
                       flag_value(benchmark_args_copy, "--benchmark_format") == "console";
  ProgressReporter reporter(std::move(reporter_inner), *selected, console);
#ifdef CRYPTOBENCH_HAVE_GPERFTOOLS
  if (!o.cpuprofile.empty() && ProfilerStart(o.cpuprofile.c_str()) == 0) {
    usage_error("--cpuprofile: cannot write '" + o.cpuprofile + "'");
  }
#endif
  std::signal(SIGINT, on_interrupt);
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  std::signal(SIGINT, SIG_DFL);
#ifdef CRYPTOBENCH_HAVE_GPERFTOOLS
  if (!o.cpuprofile.empty()) {
    ProfilerStop();
    std::fprintf(stderr, "cryptobench: CPU profile written to %s (google-pprof --text %s %s)\n",
                 o.cpuprofile.c_str(), argv[0], o.cpuprofile.c_str());
  }
#endif
  benchmark::Shutdown();
  if (!out_file.empty()) {
    // Nothing ran (--benchmark_list_tests only lists, though Google Benchmark
    // returns the count): keep the previous file.
    const std::string partial = out_file + ".partial";
    if (ran == 0 || only_listed) {
      std::remove(partial.c_str());
    } else if (std::rename(partial.c_str(), out_file.c_str()) != 0) {
      std::fprintf(stderr, "cryptobench: cannot rename %s to %s\n", partial.c_str(),
                   out_file.c_str());
      return 1;
    }
  }
  const std::vector<std::string> failures = failure_log().all();
  if (!failures.empty()) {
    std::fprintf(stderr, "cryptobench: %zu benchmark(s) FAILED:\n", failures.size());
    for (const std::string& f : failures) std::fprintf(stderr, "  %s\n", f.c_str());
  }
  if (g_interrupted.load()) {
    const std::size_t skipped = std::min(run_log().skipped(), ran);
    std::fprintf(
        stderr,
        "cryptobench: interrupted: %zu of %zu benchmarks finished%s%s; the %zu not run are "
        "marked \"not run: the run was interrupted\"\n",
        ran - skipped, ran, out_file.empty() ? "" : ", results in ", out_file.c_str(), skipped);
    return 130;
  }
  if (!failures.empty()) return 1;
  if (ran != *selected) {
    std::fprintf(stderr, "cryptobench: ran %zu of the %zu benchmarks the filter selects\n", ran,
                 *selected);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace cryptobench::bench

int main(int argc, char** argv) { return cryptobench::bench::run(argc, argv); }
