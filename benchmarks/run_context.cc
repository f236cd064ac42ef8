#include "benchmarks/run_context.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "benchmarks/alloc_counter.h"
#include "benchmarks/build_info.h"
#include "benchmarks/git_commit.h"
#include "kernels/cpu_features.h"

namespace cryptobench::bench {
namespace {

// The keys of the run's own context, and those Google Benchmark's JSON
// writes itself (a custom key of the same name would follow them in the
// "context" object, and a JSON reader would take the second).
std::set<std::string>& own_keys() {
  static std::set<std::string> keys = {"date",
                                       "host_name",
                                       "executable",
                                       "num_cpus",
                                       "mhz_per_cpu",
                                       "cpu_scaling_enabled",
                                       "caches",
                                       "load_avg",
                                       "library_build_type",
                                       "json_schema_version"};
  return keys;
}

void add(const std::string& key, const std::string& value) {
  own_keys().insert(key);
  benchmark::AddCustomContext(key, value);
}

}  // namespace

void add_run_context(const std::string& suite, bool interleaved, double core_hz,
                     const AesLimits& limits, const BackendSet& backends) {
  const CpuFeatures& cpu = hardware_cpu_features();
  add("cryptobench_suite", suite);
  add("repetitions_interleaved", interleaved ? "true" : "false");
  add("cryptobench_version", CRYPTOBENCH_VERSION);
  add("git_commit", CRYPTOBENCH_GIT_COMMIT);
  add("cpu_model", cpu.model);
  add("cpu_vendor", cpu.vendor);
  add("cpu_flags", cpu.flag_list());
  // What the hand-written kernels and the registry may use: the hardware's
  // flags minus CRYPTOBENCH_CPU_MASK (the libraries' own dispatch sees
  // cpu_flags). Runs that differ here are different machines to the tools.
  const char* mask = std::getenv("CRYPTOBENCH_CPU_MASK");
  add("cpu_mask", mask != nullptr && *mask != '\0' ? mask : "none");
  add("cpu_flags_in_use", cpu_features().flag_list());
  char ghz[32];
  std::snprintf(ghz, sizeof ghz, "%.3f", core_hz / 1e9);
  add("core_clock_ghz", ghz);
  add("core_clock_method",
      "a chain of dependent 3-cycle IMULs timed with steady_clock (the TSC of this VM type "
      "runs slower than the cores): core_clock_ghz is the best of 7 15-ms samples at the start; "
      "each benchmark's core_ghz, which its cycles_per_byte uses, for 1 thread the mean of 2-ms "
      "samples right before and after its timed loop, for more threads a 2-ms sample by one "
      "thread right after it while the others sleep, as the clock wanders (about 2% between "
      "1-ms samples here)");
  add("aes_limits", limits.context());
  add("aes_limits_method",
      "per register width, nominal AESENC latency (cycles) / throughput (instructions per "
      "cycle), measured at the start of the run with inline-assembly streams (16 dependent, "
      "96 independent), the fastest of 500 short bursts against the fastest of as many "
      "IMUL-chain bursts between them, and rounded to the architectural value; "
      "cryptobench-results bounds turns them into per-mode bounds");
  add("clmul_limits", limits.clmul_context());
  add("clmul_limits_method",
      "per register width, nominal PCLMULQDQ/VPCLMULQDQ latency (cycles) / throughput "
      "(instructions per cycle, each one 64x64-bit product per 128-bit lane), measured as "
      "aes_limits is; empty without PCLMULQDQ; cryptobench-results bounds turns them into "
      "GHASH bounds for GCM");
  add("compiler", "g++ " __VERSION__);
  add("cxx_flags", CRYPTOBENCH_CXX_FLAGS);
  add("build_type", CRYPTOBENCH_BUILD_TYPE);
  add("gbench_build_note",
      "Debian's libbenchmark 1.7.1 reports library_build_type=debug; only its harness is "
      "affected: the timed loops are cryptobench code built as " CRYPTOBENCH_BUILD_TYPE);
  add("allocation_counting", allocation_counting_enabled()
                                 ? "malloc interposed, per thread, inside the timed loop"
                                 : "off (sanitizer build)");
  for (const auto& [key, value] : backends.context()) add(key, value);
  if (const char* pool = std::getenv("BOTAN_MLOCK_POOL_SIZE")) {
    add("botan_mlock_pool_kib", pool);
  }
}

void add_concurrent_runs(const std::vector<std::string>& others) {
  std::string text;
  for (const std::string& other : others) text += (text.empty() ? "" : "; ") + other;
  add("concurrent_cryptobench_runs", text.empty() ? "none" : text);
}

void add_usable_cores(const UsableCores& usable) {
  add("cpu_affinity", usable.affinity_list + " (" + std::to_string(usable.affinity) + " of " +
                          std::to_string(usable.online) + " CPUs)");
  add("cpu_quota", usable.quota_text);
  add("cores_usable", std::to_string(usable.cores));
}

void add_user_context(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::set<std::string> seen;
  for (const auto& [key, value] : pairs) {
    std::string stored = key;
    if (own_keys().count(key) != 0) {
      stored = "user." + key;
      std::fprintf(stderr,
                   "cryptobench: --benchmark_context: '%s' is measured by the run and kept; "
                   "your value is stored as '%s'\n",
                   key.c_str(), stored.c_str());
    }
    if (!seen.insert(stored).second) continue;  // the first of a repeated key, as upstream
    benchmark::AddCustomContext(stored, value);
  }
}

}  // namespace cryptobench::bench
