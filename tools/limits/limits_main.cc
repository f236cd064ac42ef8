// cryptobench-limits: what this CPU allows for AES, measured on the machine it
// runs on: the core clock, the latency and throughput of AESENC on 128-bit
// registers and of VAESENC on 256- and 512-bit registers (when present), and
// the bounds they imply:
//   - CBC encryption is serial: each block needs the previous ciphertext, so
//     a block costs Nr x latency cycles (10 rounds for AES-128, 14 for 256);
//   - ECB and CBC decryption are parallel: a block costs Nr / (instructions per
//     cycle x blocks per register) cycles.
// The instruction streams are inline assembly so the compiler cannot reorder,
// fuse or spill them; the clock comes from a chain of dependent IMULs
// (benchmarks/core_clock.cc), as the TSC of these VMs does not run at the
// core clock.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

#include "benchmarks/core_clock.h"
#include "kernels/cpu_features.h"

namespace {

using Clock = std::chrono::steady_clock;

// seconds: the fastest of 5 runs of `body`, which executes `instructions`.
double best_seconds(const std::function<void()>& body) {
  double best = 1e9;
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    body();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

constexpr int kLoops = 200'000;

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

struct Row {
  const char* name;
  int blocks_per_register;
  double latency;     // cycles
  double throughput;  // instructions per cycle
};

}  // namespace

int main() {
  const cryptobench::CpuFeatures& cpu = cryptobench::hardware_cpu_features();
  if (!cpu.aesni) {
    std::fprintf(stderr, "cryptobench-limits: this CPU has no AES-NI\n");
    return 2;
  }
  const double hz = cryptobench::bench::measure_core_hz();
  const auto cycles_per = [&](void (*body)(), double instructions) {
    return best_seconds(body) * hz / instructions;
  };
  std::vector<Row> rows;
  rows.push_back({"AESENC xmm (128-bit)", 1, cycles_per(xmm_latency, 16.0 * kLoops),
                  1.0 / cycles_per(xmm_throughput, 96.0 * kLoops)});
  if (cpu.vaes && cpu.avx2) {
    rows.push_back({"VAESENC ymm (256-bit)", 2, cycles_per(ymm_latency, 16.0 * kLoops),
                    1.0 / cycles_per(ymm_throughput, 96.0 * kLoops)});
  }
  if (cpu.vaes && cpu.avx512f) {
    rows.push_back({"VAESENC zmm (512-bit)", 4, cycles_per(zmm_latency, 16.0 * kLoops),
                    1.0 / cycles_per(zmm_throughput, 96.0 * kLoops)});
  }

  std::printf("CPU: %s\ncore clock: %.3f GHz (dependent IMUL chain)\n\n", cpu.model.c_str(),
              hz / 1e9);
  std::printf("%-22s %9s %14s %13s\n", "instruction", "latency", "throughput", "AES blocks");
  std::printf("%-22s %9s %14s %13s\n", "", "(cycles)", "(instr/cycle)", "(per cycle)");
  for (const Row& r : rows) {
    std::printf("%-22s %9.2f %14.2f %13.2f\n", r.name, r.latency, r.throughput,
                r.throughput * r.blocks_per_register);
  }
  std::printf("\nbounds per core (AES-128: 10 rounds, AES-256: 14):\n");
  std::printf("%-40s %12s %10s\n", "mode", "cycles/byte", "GB/s");
  for (const int rounds : {10, 14}) {
    const double serial = rounds * rows[0].latency / 16.0;
    std::printf("AES-%d CBC encrypt (serial, %-11s %12.3f %10.2f\n", rounds == 10 ? 128 : 256,
                "latency)", serial, hz / serial / 1e9);
    for (const Row& r : rows) {
      const double parallel = rounds / (r.throughput * r.blocks_per_register) / 16.0;
      std::printf("AES-%d ECB/CBC decrypt, %-16s %12.3f %10.2f\n", rounds == 10 ? 128 : 256,
                  r.blocks_per_register == 1   ? "128-bit"
                  : r.blocks_per_register == 2 ? "VAES 256-bit"
                                               : "VAES 512-bit",
                  parallel, hz / parallel / 1e9);
    }
  }
  return 0;
}
