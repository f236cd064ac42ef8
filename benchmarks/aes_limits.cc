#include "benchmarks/aes_limits.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "benchmarks/core_clock.h"
#include "kernels/cpu_features.h"

namespace cryptobench::bench {
namespace {

using Clock = std::chrono::steady_clock;

// One burst: 3,200 (latency) or 19,200 (throughput) instructions, 3-15 us.
// Short enough that most bursts run undisturbed even on a loaded machine,
// long enough that reading the clock costs under 1%.
constexpr int kLoops = 200;
constexpr int kBursts = 500;

// 16 dependent 64-bit IMULs per loop: the clock, 3 cycles each (core_clock.cc
// says why IMUL), timed in bursts beside the streams.
void imul_chain() {
  std::uint64_t x = 1;
  const std::uint64_t factor = 3;
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(".rept 16\n\timul %1, %0\n\t.endr" : "+r"(x) : "r"(factor));
  }
}

// 16 dependent AESENCs per loop: latency.
void xmm_latency() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(".rept 16\n\taesenc %%xmm15, %%xmm0\n\t.endr" ::: "xmm0", "xmm15");
  }
}
// 12 independent chains x 8: throughput.
void xmm_throughput() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(
        ".rept 8\n\t"
        "aesenc %%xmm15, %%xmm0\n\taesenc %%xmm15, %%xmm1\n\taesenc %%xmm15, %%xmm2\n\t"
        "aesenc %%xmm15, %%xmm3\n\taesenc %%xmm15, %%xmm4\n\taesenc %%xmm15, %%xmm5\n\t"
        "aesenc %%xmm15, %%xmm6\n\taesenc %%xmm15, %%xmm7\n\taesenc %%xmm15, %%xmm8\n\t"
        "aesenc %%xmm15, %%xmm9\n\taesenc %%xmm15, %%xmm10\n\taesenc %%xmm15, %%xmm11\n\t"
        ".endr" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11", "xmm15");
  }
}
__attribute__((target("avx2,vaes"))) void ymm_latency() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(".rept 16\n\tvaesenc %%ymm15, %%ymm0, %%ymm0\n\t.endr" ::: "xmm0", "xmm15");
  }
}
__attribute__((target("avx2,vaes"))) void ymm_throughput() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(
        ".rept 8\n\t"
        "vaesenc %%ymm15, %%ymm0, %%ymm0\n\tvaesenc %%ymm15, %%ymm1, %%ymm1\n\t"
        "vaesenc %%ymm15, %%ymm2, %%ymm2\n\tvaesenc %%ymm15, %%ymm3, %%ymm3\n\t"
        "vaesenc %%ymm15, %%ymm4, %%ymm4\n\tvaesenc %%ymm15, %%ymm5, %%ymm5\n\t"
        "vaesenc %%ymm15, %%ymm6, %%ymm6\n\tvaesenc %%ymm15, %%ymm7, %%ymm7\n\t"
        "vaesenc %%ymm15, %%ymm8, %%ymm8\n\tvaesenc %%ymm15, %%ymm9, %%ymm9\n\t"
        "vaesenc %%ymm15, %%ymm10, %%ymm10\n\tvaesenc %%ymm15, %%ymm11, %%ymm11\n\t"
        ".endr" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11", "xmm15");
  }
}
__attribute__((target("avx512f,vaes"))) void zmm_latency() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(".rept 16\n\tvaesenc %%zmm15, %%zmm0, %%zmm0\n\t.endr" ::: "xmm0", "xmm15");
  }
}
__attribute__((target("avx512f,vaes"))) void zmm_throughput() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(
        ".rept 8\n\t"
        "vaesenc %%zmm15, %%zmm0, %%zmm0\n\tvaesenc %%zmm15, %%zmm1, %%zmm1\n\t"
        "vaesenc %%zmm15, %%zmm2, %%zmm2\n\tvaesenc %%zmm15, %%zmm3, %%zmm3\n\t"
        "vaesenc %%zmm15, %%zmm4, %%zmm4\n\tvaesenc %%zmm15, %%zmm5, %%zmm5\n\t"
        "vaesenc %%zmm15, %%zmm6, %%zmm6\n\tvaesenc %%zmm15, %%zmm7, %%zmm7\n\t"
        "vaesenc %%zmm15, %%zmm8, %%zmm8\n\tvaesenc %%zmm15, %%zmm9, %%zmm9\n\t"
        "vaesenc %%zmm15, %%zmm10, %%zmm10\n\tvaesenc %%zmm15, %%zmm11, %%zmm11\n\t"
        ".endr" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11", "xmm15");
  }
}

// PCLMULQDQ streams, as the AESENC ones above: 16 dependent, and 12
// independent chains x 8. The selector 0x00 multiplies the low quadwords; the
// instruction's timing does not depend on the data.
void clmul_xmm_latency() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(".rept 16\n\tpclmulqdq $0x00, %%xmm15, %%xmm0\n\t.endr" ::: "xmm0", "xmm15");
  }
}
void clmul_xmm_throughput() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(
        ".rept 8\n\t"
        "pclmulqdq $0x00, %%xmm15, %%xmm0\n\tpclmulqdq $0x00, %%xmm15, %%xmm1\n\t"
        "pclmulqdq $0x00, %%xmm15, %%xmm2\n\tpclmulqdq $0x00, %%xmm15, %%xmm3\n\t"
        "pclmulqdq $0x00, %%xmm15, %%xmm4\n\tpclmulqdq $0x00, %%xmm15, %%xmm5\n\t"
        "pclmulqdq $0x00, %%xmm15, %%xmm6\n\tpclmulqdq $0x00, %%xmm15, %%xmm7\n\t"
        "pclmulqdq $0x00, %%xmm15, %%xmm8\n\tpclmulqdq $0x00, %%xmm15, %%xmm9\n\t"
        "pclmulqdq $0x00, %%xmm15, %%xmm10\n\tpclmulqdq $0x00, %%xmm15, %%xmm11\n\t"
        ".endr" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11", "xmm15");
  }
}
__attribute__((target("avx2,vpclmulqdq"))) void clmul_ymm_latency() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(".rept 16\n\tvpclmulqdq $0x00, %%ymm15, %%ymm0, %%ymm0\n\t.endr" ::
                         : "xmm0", "xmm15");
  }
}
__attribute__((target("avx2,vpclmulqdq"))) void clmul_ymm_throughput() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(
        ".rept 8\n\t"
        "vpclmulqdq $0x00, %%ymm15, %%ymm0, %%ymm0\n\tvpclmulqdq $0x00, %%ymm15, %%ymm1, %%ymm1\n\t"
        "vpclmulqdq $0x00, %%ymm15, %%ymm2, %%ymm2\n\tvpclmulqdq $0x00, %%ymm15, %%ymm3, %%ymm3\n\t"
        "vpclmulqdq $0x00, %%ymm15, %%ymm4, %%ymm4\n\tvpclmulqdq $0x00, %%ymm15, %%ymm5, %%ymm5\n\t"
        "vpclmulqdq $0x00, %%ymm15, %%ymm6, %%ymm6\n\tvpclmulqdq $0x00, %%ymm15, %%ymm7, %%ymm7\n\t"
        "vpclmulqdq $0x00, %%ymm15, %%ymm8, %%ymm8\n\tvpclmulqdq $0x00, %%ymm15, %%ymm9, %%ymm9\n\t"
        "vpclmulqdq $0x00, %%ymm15, %%ymm10, %%ymm10\n\t"
        "vpclmulqdq $0x00, %%ymm15, %%ymm11, %%ymm11\n\t"
        ".endr" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11", "xmm15");
  }
}
__attribute__((target("avx512f,vpclmulqdq"))) void clmul_zmm_latency() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(".rept 16\n\tvpclmulqdq $0x00, %%zmm15, %%zmm0, %%zmm0\n\t.endr" ::
                         : "xmm0", "xmm15");
  }
}
__attribute__((target("avx512f,vpclmulqdq"))) void clmul_zmm_throughput() {
  for (int i = 0; i < kLoops; ++i) {
    __asm__ volatile(
        ".rept 8\n\t"
        "vpclmulqdq $0x00, %%zmm15, %%zmm0, %%zmm0\n\tvpclmulqdq $0x00, %%zmm15, %%zmm1, %%zmm1\n\t"
        "vpclmulqdq $0x00, %%zmm15, %%zmm2, %%zmm2\n\tvpclmulqdq $0x00, %%zmm15, %%zmm3, %%zmm3\n\t"
        "vpclmulqdq $0x00, %%zmm15, %%zmm4, %%zmm4\n\tvpclmulqdq $0x00, %%zmm15, %%zmm5, %%zmm5\n\t"
        "vpclmulqdq $0x00, %%zmm15, %%zmm6, %%zmm6\n\tvpclmulqdq $0x00, %%zmm15, %%zmm7, %%zmm7\n\t"
        "vpclmulqdq $0x00, %%zmm15, %%zmm8, %%zmm8\n\tvpclmulqdq $0x00, %%zmm15, %%zmm9, %%zmm9\n\t"
        "vpclmulqdq $0x00, %%zmm15, %%zmm10, %%zmm10\n\t"
        "vpclmulqdq $0x00, %%zmm15, %%zmm11, %%zmm11\n\t"
        ".endr" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11", "xmm15");
  }
}

}  // namespace

namespace {

// nearest: `value` rounded to a whole number when within 10% of it.
double nearest(double value) {
  const double whole = std::max(1.0, std::round(value));
  return std::abs(value - whole) <= 0.1 * whole ? whole : value;
}

}  // namespace

double AesWidth::nominal_latency() const { return nearest(latency); }

double AesWidth::nominal_throughput() const {
  return throughput >= 1.0 ? nearest(throughput) : 1.0 / nearest(1.0 / throughput);
}

double AesLimits::serial_cycles_per_byte(int rounds) const {
  return rounds * widths.front().nominal_latency() / 16.0;
}

double AesLimits::parallel_cycles_per_byte(int rounds, const AesWidth& width) const {
  return rounds / (width.nominal_throughput() * width.blocks_per_register) / 16.0;
}

double AesLimits::ghash_cycles_per_byte(const AesWidth& width) const {
  return kGhashClmulsPerBlock / (width.nominal_throughput() * width.blocks_per_register) / 16.0;
}

namespace {

std::string widths_context(const std::vector<AesWidth>& widths) {
  std::string text;
  for (const AesWidth& w : widths) {
    char item[64];
    std::snprintf(item, sizeof item, "%s%s:%g/%g", text.empty() ? "" : ",", w.name.c_str(),
                  w.nominal_latency(), w.nominal_throughput());
    text += item;
  }
  return text;
}

}  // namespace

std::string AesLimits::context() const { return widths_context(widths); }

std::string AesLimits::clmul_context() const { return widths_context(clmul_widths); }

AesLimits measure_aes_limits() {
  AesLimits limits;
  const CpuFeatures& cpu = hardware_cpu_features();
  if (!cpu.aesni && !cpu.pclmulqdq) return limits;
  limits.core_hz = measure_core_hz();
  // Cycles per instruction: the fastest of kBursts bursts of the stream
  // against the fastest of as many IMUL-chain bursts interleaved with them.
  // A burst that another process, an interrupt or the hypervisor delays is
  // only slower, so the minima are the undisturbed runs, at the same clock
  // (the two alternate). Long samples, or a median, cannot do that on a
  // shared machine: seen here with 5 compilers on 2 cores, 200,000-loop
  // streams against 1-ms clock samples gave 3 to 11 cycles for AESENC's 4
  // (a Zen 4 EPYC) from run to run, bursts 3.97 to 4.01.
  const auto cycles_per = [](void (*body)(), double instructions) {
    const auto seconds = [](void (*f)()) {
      const auto start = Clock::now();
      f();
      return std::chrono::duration<double>(Clock::now() - start).count();
    };
    double body_best = 1e9, clock_best = 1e9;
    for (int i = 0; i < kBursts; ++i) {
      clock_best = std::min(clock_best, seconds(imul_chain));
      body_best = std::min(body_best, seconds(body));
    }
    const double hz = 3.0 * 16 * kLoops / clock_best;
    return body_best * hz / instructions;
  };
  const auto width = [&](const char* name, int lanes, void (*latency)(), void (*throughput)()) {
    return AesWidth{name, lanes, cycles_per(latency, 16.0 * kLoops),
                    1.0 / cycles_per(throughput, 96.0 * kLoops)};
  };
  if (cpu.aesni) {
    limits.widths.push_back(width("xmm", 1, xmm_latency, xmm_throughput));
    if (cpu.vaes && cpu.avx2) limits.widths.push_back(width("ymm", 2, ymm_latency, ymm_throughput));
    if (cpu.vaes && cpu.avx512f) {
      limits.widths.push_back(width("zmm", 4, zmm_latency, zmm_throughput));
    }
  }
  if (cpu.pclmulqdq) {
    limits.clmul_widths.push_back(width("xmm", 1, clmul_xmm_latency, clmul_xmm_throughput));
    // cpu.vpclmulqdq includes AVX (VEX-encoded ymm); the streams' target
    // attribute asks for AVX2, which every VPCLMULQDQ CPU has.
    if (cpu.vpclmulqdq && cpu.avx2) {
      limits.clmul_widths.push_back(width("ymm", 2, clmul_ymm_latency, clmul_ymm_throughput));
    }
    if (cpu.vpclmulqdq && cpu.avx512f) {
      limits.clmul_widths.push_back(width("zmm", 4, clmul_zmm_latency, clmul_zmm_throughput));
    }
  }
  return limits;
}

}  // namespace cryptobench::bench
