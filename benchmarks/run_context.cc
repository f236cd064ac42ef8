#include "benchmarks/run_context.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "benchmarks/alloc_counter.h"
#include "benchmarks/build_info.h"
#include "benchmarks/git_commit.h"
#include "kernels/cpu_features.h"

namespace cryptobench::bench {

void add_run_context(const std::string& suite, double core_hz, const AesLimits& limits,
                     const BackendSet& backends) {
  const CpuFeatures& cpu = hardware_cpu_features();
  benchmark::AddCustomContext("cryptobench_suite", suite);
  benchmark::AddCustomContext("cryptobench_version", CRYPTOBENCH_VERSION);
  benchmark::AddCustomContext("git_commit", CRYPTOBENCH_GIT_COMMIT);
  benchmark::AddCustomContext("cpu_model", cpu.model);
  benchmark::AddCustomContext("cpu_vendor", cpu.vendor);
  benchmark::AddCustomContext("cpu_flags", cpu.flag_list());
  // What the hand-written kernels and the registry may use: the hardware's
  // flags minus CRYPTOBENCH_CPU_MASK (the libraries' own dispatch sees
  // cpu_flags). Runs that differ here are different machines to the tools.
  const char* mask = std::getenv("CRYPTOBENCH_CPU_MASK");
  benchmark::AddCustomContext("cpu_mask", mask != nullptr && *mask != '\0' ? mask : "none");
  benchmark::AddCustomContext("cpu_flags_in_use", cpu_features().flag_list());
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

}  // namespace cryptobench::bench
