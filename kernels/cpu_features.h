// cpu_features.h: x86-64 features, detected once per process. CPUID traps to
// the hypervisor in this project's VMs (microseconds per call), so nothing
// else may call it.
#pragma once

#include <string>
#include <string_view>

namespace cryptobench {

struct CpuFeatures {
  bool sse41 = false;
  bool ssse3 = false;
  bool aesni = false;
  bool pclmulqdq = false;
  bool avx = false;  // CPUID bit and the OS saves YMM state (XGETBV)
  bool avx2 = false;
  bool vaes = false;
  bool vpclmulqdq = false;
  bool avx512f = false;  // also requires the OS to save ZMM state
  bool avx512bw = false;
  bool avx512vl = false;
  bool sha = false;
  std::string vendor;
  std::string model;  // brand string, e.g. "AMD EPYC 9R14 96-Core Processor"

  // flag_list: the set flags as a space-separated list ("aes avx2 vaes ...").
  std::string flag_list() const;
};

// cpu_features: the machine's features minus those masked out by the
// environment variable CRYPTOBENCH_CPU_MASK (a comma-separated list of flag
// names, e.g. "aes,vaes"), so tests can exercise the "unusable" paths.
// Computed once, thread-safe.
const CpuFeatures& cpu_features();

// hardware_cpu_features: what CPUID reports, ignoring CRYPTOBENCH_CPU_MASK
// (the libraries' own dispatchers see this). Computed once, thread-safe.
const CpuFeatures& hardware_cpu_features();

// cpu_mask_problem: why CRYPTOBENCH_CPU_MASK cannot be used (a name that is
// not one of flag_list()'s, such as the typo "aesni" for "aes", would mask
// nothing and the run would silently measure the unmasked CPU), or "" when
// it is unset or names only known flags. Every program checks it first.
std::string cpu_mask_problem();

// detect_cpu_features: runs CPUID now and applies `mask`. For tests.
CpuFeatures detect_cpu_features(std::string_view mask);

}  // namespace cryptobench
