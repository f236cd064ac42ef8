// run_context.h: everything a reader of the JSON needs to judge the figures:
// machine, clock and AES limits, build, and each backend's facts.
#pragma once

#include <string>

#include "benchmarks/aes_limits.h"
#include "kernels/registry.h"

namespace cryptobench::bench {

// add_run_context: benchmark::AddCustomContext for the whole run.
void add_run_context(const std::string& suite, double core_hz, const AesLimits& limits,
                     const BackendSet& backends);

}  // namespace cryptobench::bench
