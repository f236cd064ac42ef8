// cryptobench-limits: what this CPU allows for AES, measured on the machine it
// runs on (benchmarks/aes_limits.h): the core clock, AESENC/VAESENC and
// PCLMULQDQ/VPCLMULQDQ latency and throughput per register width, and the
// per-core bounds they imply.
#include <cstdio>
#include <cstring>

#include "benchmarks/aes_limits.h"
#include "kernels/cpu_features.h"

constexpr const char* kUsage =
    "usage: cryptobench-limits\n"
    "What this CPU allows for AES, measured here: the core clock (a dependent IMUL\n"
    "chain), the latency and throughput of AESENC, VAESENC (256- and 512-bit, where\n"
    "present), PCLMULQDQ and VPCLMULQDQ, rounded to their architectural values, and\n"
    "the per-core bounds they imply in cycles per byte (CBC encryption's serial\n"
    "chain, the parallel modes' throughput). Takes a fraction of a second.\n"
    "Options:\n"
    "  -h, --help   this help\n"
    "Example:\n"
    "  build/release/tools/limits/cryptobench-limits\n"
    "Exit status: 0 measured, 2 an argument given or no AES-NI on this CPU.\n"
    "More: docs/hardware.md\n";

int main(int argc, char** argv) {
  using cryptobench::bench::AesWidth;
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr,
                 "cryptobench-limits: unknown argument '%s' (it takes none; "
                 "cryptobench-limits --help)\n",
                 argv[1]);
    return 2;
  }
  const cryptobench::bench::AesLimits limits = cryptobench::bench::measure_aes_limits();
  if (limits.widths.empty()) {
    std::fprintf(stderr, "cryptobench-limits: this CPU has no AES-NI\n");
    return 2;
  }
  const double hz = limits.core_hz;
  std::printf("CPU: %s\ncore clock: %.3f GHz (dependent IMUL chain)\n\n",
              cryptobench::hardware_cpu_features().model.c_str(), hz / 1e9);
  std::printf("%-22s %18s %22s %13s\n", "instruction", "latency", "throughput", "AES blocks");
  std::printf("%-22s %18s %22s %13s\n", "", "(cycles: measured", "(instr/cycle: measured",
              "(per cycle)");
  std::printf("%-22s %18s %22s %13s\n", "", "-> nominal)", "-> nominal)", "");
  for (const AesWidth& w : limits.widths) {
    const char* name = w.blocks_per_register == 1   ? "AESENC xmm (128-bit)"
                       : w.blocks_per_register == 2 ? "VAESENC ymm (256-bit)"
                                                    : "VAESENC zmm (512-bit)";
    std::printf("%-22s %10.2f -> %-4g %14.2f -> %-4g %13g\n", name, w.latency, w.nominal_latency(),
                w.throughput, w.nominal_throughput(),
                w.nominal_throughput() * w.blocks_per_register);
  }
  for (const AesWidth& w : limits.clmul_widths) {
    const char* name = w.blocks_per_register == 1   ? "PCLMULQDQ xmm"
                       : w.blocks_per_register == 2 ? "VPCLMULQDQ ymm"
                                                    : "VPCLMULQDQ zmm";
    std::printf("%-22s %10.2f -> %-4g %14.2f -> %-4g %13s\n", name, w.latency, w.nominal_latency(),
                w.throughput, w.nominal_throughput(), "-");
  }
  if (limits.clmul_widths.empty()) std::printf("PCLMULQDQ: not on this CPU\n");
  std::printf(
      "\nbounds per core from the nominal values (AES-128: 10 rounds, AES-256: 14;\n"
      "GB/s at the clock above):\n");
  std::printf("%-40s %12s %10s\n", "mode", "cycles/byte", "GB/s");
  for (const int rounds : {10, 14}) {
    const double serial = limits.serial_cycles_per_byte(rounds);
    std::printf("AES-%d CBC encrypt (serial, %-11s %12.3f %10.2f\n", rounds == 10 ? 128 : 256,
                "latency)", serial, hz / serial / 1e9);
    for (const AesWidth& w : limits.widths) {
      const double parallel = limits.parallel_cycles_per_byte(rounds, w);
      std::printf("AES-%d ECB/CBC decrypt, %-16s %12.3f %10.2f\n", rounds == 10 ? 128 : 256,
                  w.blocks_per_register == 1   ? "128-bit"
                  : w.blocks_per_register == 2 ? "VAES 256-bit"
                                               : "VAES 512-bit",
                  parallel, hz / parallel / 1e9);
    }
  }
  // GHASH alone (GCM is bound by the larger of it and the AES throughput;
  // the model: tools/results/cryptobench_results/bounds.py).
  for (const AesWidth& w : limits.clmul_widths) {
    const double ghash = limits.ghash_cycles_per_byte(w);
    std::printf("GHASH (%d CLMULs a block), %-13s %12.3f %10.2f\n",
                cryptobench::bench::AesLimits::kGhashClmulsPerBlock,
                w.blocks_per_register == 1   ? "128-bit"
                : w.blocks_per_register == 2 ? "256-bit"
                                             : "512-bit",
                ghash, hz / ghash / 1e9);
  }
  return 0;
}
