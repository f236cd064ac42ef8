// aesni_backend.cc: the hand-written backend on 128-bit AES-NI registers.
#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/gcm_kernels.h"
#include "kernels/aesni/hand_written_cipher.h"
#include "kernels/cpu_features.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

std::string aesni_unusable_reason() {
  const CpuFeatures& cpu = cpu_features();
  if (!cpu.aesni) return "the CPU does not report AES-NI (CPUID.1:ECX.AES)";
  if (!cpu.sse41) return "the CPU does not report SSE4.1";
  return "";
}

}  // namespace

const BackendEntry& aesni_backend_entry() {
  static const BackendEntry entry{
      "aesni", "hand-written AES-NI intrinsics (128-bit registers)", aesni_unusable_reason,
      []() -> std::unique_ptr<AesBackend> {
        // GCM needs the carry-less multiply too; the block modes do not.
        const aesni::GcmKernels* gcm =
            cpu_features().pclmulqdq ? &aesni::xmm_gcm_kernels() : nullptr;
        return std::make_unique<HandWrittenBackend>(
            "aesni",
            std::string("AES-NI 128-bit: 8 blocks interleaved (ECB, CBC decrypt, CTR), serial CBC "
                        "encrypt, 8-lane multi-buffer CBC encrypt") +
                (gcm != nullptr ? "; GCM: 8 blocks a step, AES rounds stitched with PCLMULQDQ "
                                  "GHASH, one reduction per 8 blocks (aggregated)"
                                : ""),
            aesni::xmm_kernels(), 128, 8, gcm);
      },
      "cryptobench"};
  return entry;
}

}  // namespace cryptobench
