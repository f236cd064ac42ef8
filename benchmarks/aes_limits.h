// aes_limits.h: what this CPU allows for AES, measured where it runs: the
// latency and throughput of AESENC on 128-bit registers and of VAESENC on
// 256- and 512-bit registers (when present), and the per-core bounds they
// imply:
//   - CBC encryption of one message is serial: each block needs the previous
//     ciphertext, so a block costs Nr x latency cycles (Nr = 10, 12, 14);
//   - ECB, CBC decryption and multi-buffer CBC encryption are parallel: a
//     block costs Nr / (instructions per cycle x blocks per register).
// The instruction streams are inline assembly so the compiler cannot reorder,
// fuse or spill them; cycles come from the IMUL-chain clock (core_clock.h).
#pragma once

#include <string>
#include <vector>

namespace cryptobench::bench {

struct AesWidth {
  std::string name;         // "xmm", "ymm", "zmm"
  int blocks_per_register;  // 1, 2, 4
  double latency;           // cycles, measured
  double throughput;        // instructions per cycle, measured
  // The architectural values the measurements stand for: latency rounded to
  // whole cycles, throughput to a whole number (or its inverse) of
  // instructions per cycle, when within 10%; otherwise the measurement. The
  // clock of a shared VM wanders by several percent between the IMUL chain
  // and the AES stream; the instruction timings themselves do not.
  double nominal_latency() const;
  double nominal_throughput() const;
};

struct AesLimits {
  double core_hz = 0;
  std::vector<AesWidth> widths;  // xmm first; ymm and zmm when the CPU has VAES

  // serial_cycles_per_byte: CBC encryption of one message.
  double serial_cycles_per_byte(int rounds) const;
  // parallel_cycles_per_byte: independent blocks on registers of `width`.
  double parallel_cycles_per_byte(int rounds, const AesWidth& width) const;
  // Bounds use the nominal values.
  // context: "xmm:L/T,ymm:L/T,..." (nominal latency in cycles / instructions
  // per cycle), for the run's JSON context.
  std::string context() const;
};

// measure_aes_limits: about 0.1 s. Empty widths when the CPU has no AES-NI.
AesLimits measure_aes_limits();

}  // namespace cryptobench::bench
