// vaes512_backend.cc: the hand-written backend on 512-bit VAES registers. It
// shares the aesni key schedule, serial CBC encryption (a chain gains nothing
// from wider registers) and the project's codec; the parallel modes and the
// multi-buffer lanes use the zmm kernels.
#include "kernels/aesni/gcm_kernels.h"
#include "kernels/aesni/hand_written_cipher.h"
#include "kernels/cpu_features.h"
#include "kernels/registry.h"
#include "kernels/vaes/vaes_kernels.h"

namespace cryptobench {
namespace {

std::string vaes512_unusable_reason() {
  const CpuFeatures& cpu = cpu_features();
  if (!cpu.aesni) return "the CPU does not report AES-NI (CPUID.1:ECX.AES)";
  if (!cpu.sse41) return "the CPU does not report SSE4.1";
  if (!cpu.vaes) return "the CPU does not report VAES (CPUID.7.0:ECX.VAES)";
  if (!cpu.avx512f) return "the CPU or OS does not support AVX-512F";
  if (!cpu.avx2) return "the CPU or OS does not support AVX2";
  return "";
}

}  // namespace

const BackendEntry& vaes512_backend_entry() {
  static const BackendEntry entry{
      "vaes512", "hand-written VAES intrinsics (512-bit registers)", vaes512_unusable_reason,
      []() -> std::unique_ptr<AesBackend> {
        // GCM needs the carry-less multiply too; the block modes do not.
        const aesni::GcmKernels* gcm =
            cpu_features().pclmulqdq && cpu_features().vpclmulqdq && cpu_features().avx512bw
                ? &vaes::zmm_gcm_kernels()
                : nullptr;
        return std::make_unique<HandWrittenBackend>(
            "vaes512",
            std::string(
                "VAES 512-bit: 32 blocks (8 zmm) interleaved (ECB, CBC decrypt, CTR), serial "
                "CBC encrypt on AES-NI, 16-lane multi-buffer CBC encrypt") +
                (gcm != nullptr ? "; GCM: 32 blocks (8 zmm) a step, VAES rounds stitched with "
                                  "VPCLMULQDQ GHASH, one reduction per 32 blocks (aggregated); "
                                  "messages under 512 bytes on the 128-bit code"
                                : ""),
            vaes::zmm_kernels(), 512, 16, gcm);
      },
      "cryptobench"};
  return entry;
}

}  // namespace cryptobench
