// aes_limits.h: what this CPU allows for AES and GCM, measured where it
// runs: the latency and throughput of AESENC on 128-bit registers and of
// VAESENC on 256- and 512-bit registers (when present), and the per-core
// bounds they imply:
//   - CBC encryption of one message is serial: each block needs the previous
//     ciphertext, so a block costs Nr x latency cycles (Nr = 10, 12, 14);
//   - ECB, CTR, CBC decryption and multi-buffer CBC encryption are parallel:
//     a block costs Nr / (instructions per cycle x blocks per register).
// Beside them, for GCM's GHASH, the latency and throughput of PCLMULQDQ on
// 128-bit registers and of VPCLMULQDQ on 256-bit (and, with AVX-512F,
// 512-bit) registers: one 64 x 64-bit carry-less product per 128-bit lane.
// cryptobench-results bounds turns both into per-cell bounds
// (tools/results/cryptobench_results/bounds.py states the GHASH model).
// The instruction streams are inline assembly so the compiler cannot reorder,
// fuse or spill them; cycles come from an IMUL chain (as in core_clock.h),
// both timed in short bursts whose fastest are the undisturbed ones.
#pragma once

#include <string>
#include <vector>

namespace cryptobench::bench {

// AesWidth: one register width of AESENC or of PCLMULQDQ (clmul_widths).
struct AesWidth {
  std::string name;         // "xmm", "ymm", "zmm"
  int blocks_per_register;  // 1, 2, 4: 128-bit lanes (AES blocks, or CLMUL products)
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
  // clmul_widths: PCLMULQDQ xmm first (when the CPU has it); VPCLMULQDQ ymm
  // when it has VPCLMULQDQ and AVX, zmm when also AVX-512F.
  std::vector<AesWidth> clmul_widths;

  // serial_cycles_per_byte: CBC encryption of one message.
  double serial_cycles_per_byte(int rounds) const;
  // parallel_cycles_per_byte: independent blocks on registers of `width`.
  double parallel_cycles_per_byte(int rounds, const AesWidth& width) const;
  // ghash_cycles_per_byte: GHASH on registers of `width` (one of
  // clmul_widths), kGhashClmulsPerBlock products per 16-byte block: the
  // lower bound bounds.py uses (see its docstring for why 3).
  static constexpr int kGhashClmulsPerBlock = 3;
  double ghash_cycles_per_byte(const AesWidth& width) const;
  // Bounds use the nominal values.
  // context: "xmm:L/T,ymm:L/T,..." (nominal latency in cycles / instructions
  // per cycle), for the run's JSON context (aes_limits).
  std::string context() const;
  // clmul_context: the same for clmul_widths (clmul_limits); "" without
  // PCLMULQDQ.
  std::string clmul_context() const;
};

// measure_aes_limits: about 0.2 s. Empty widths when the CPU has no AES-NI,
// empty clmul_widths when it has no PCLMULQDQ.
AesLimits measure_aes_limits();

}  // namespace cryptobench::bench
