// aesni_backend.cc: the hand-written backend on 128-bit registers. Key
// schedule and blocks are the project's own AES-NI code; text encoding is the
// project's own codec.
#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/hand_written_cipher.h"
#include "kernels/cpu_features.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

class AesniBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    std::string library;
    (void)library_key_deriver(&library);
    return {"aesni",
            "cryptobench",
            "hand-written",
            "AES-NI 128-bit: 8 blocks interleaved (ECB, CBC decrypt), serial CBC encrypt, "
            "8-lane multi-buffer CBC encrypt",
            project_codec_description(),
            library.empty() ? "none (no library compiled in)"
                            : library + "'s (the hand-written backend has no KDF of its own)"};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<HandWrittenCipher>(mode, aesni::xmm_kernels());
  }
  const TextCodec& codec() const override { return project_codec(); }
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    std::string unused;
    return library_key_deriver(&unused);
  }
};

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
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<AesniBackend>(); }};
  return entry;
}

}  // namespace cryptobench
