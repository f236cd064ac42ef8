// run_context.h: everything a reader of the JSON needs to judge the figures:
// machine, clock and AES limits, build, and each backend's facts.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "benchmarks/aes_limits.h"
#include "benchmarks/usable_cores.h"
#include "kernels/registry.h"

namespace cryptobench::bench {

// add_run_context: benchmark::AddCustomContext for the whole run.
// `interleaved`: the repetitions run interleaved across benchmarks (recorded
// as repetitions_interleaved; the results tools' noise floor reads it).
void add_run_context(const std::string& suite, bool interleaved, double core_hz,
                     const AesLimits& limits, const BackendSet& backends);

// add_concurrent_runs: concurrent_cryptobench_runs, the other cryptobench
// programs measuring as the run starts (other_runs.h), "none" when none.
void add_concurrent_runs(const std::vector<std::string>& others);

// add_usable_cores: cpu_affinity, cpu_quota and cores_usable (usable_cores.h).
void add_usable_cores(const UsableCores& usable);

// add_user_context: the --benchmark_context pairs, after the run's own
// context. A key that cryptobench or Google Benchmark writes itself
// (git_commit, host_name, ...) never replaces the measured value: the user's
// is stored beside it as "user.KEY", with a note on stderr.
void add_user_context(const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace cryptobench::bench
