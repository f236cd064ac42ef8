// vaes_backend.cc: the hand-written backends on VAES registers, one registry
// entry per width. Both share the aesni key schedule, its serial CBC
// encryption (a chain gains nothing from wider registers) and the project's
// codec; the parallel modes and the multi-buffer lanes use the wide kernels.
#include "kernels/aesni/hand_written_cipher.h"
#include "kernels/cpu_features.h"
#include "kernels/registry.h"
#include "kernels/vaes/vaes_kernels.h"

namespace cryptobench {
namespace {

struct Width {
  const char* name;
  const char* code_path;
  const aesni::BlockKernels& (*kernels)();
};

constexpr Width kYmm{"vaes256",
                     "VAES 256-bit: 16 blocks (8 ymm) interleaved (ECB, CBC decrypt), serial CBC "
                     "encrypt on AES-NI, 16-lane multi-buffer CBC encrypt",
                     vaes::ymm_kernels};
constexpr Width kZmm{"vaes512",
                     "VAES 512-bit: 32 blocks (8 zmm) interleaved (ECB, CBC decrypt), serial CBC "
                     "encrypt on AES-NI, 16-lane multi-buffer CBC encrypt",
                     vaes::zmm_kernels};

class VaesBackend final : public AesBackend {
 public:
  explicit VaesBackend(const Width& width) : width_(width) {}
  BackendInfo info() const override {
    std::string library;
    (void)library_key_deriver(&library);
    return {width_.name,
            "cryptobench",
            "hand-written",
            width_.code_path,
            project_codec_description(),
            library.empty() ? "none (no library compiled in)"
                            : library + "'s (the hand-written backend has no KDF of its own)"};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<HandWrittenCipher>(mode, width_.kernels());
  }
  const TextCodec& codec() const override { return project_codec(); }
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    std::string unused;
    return library_key_deriver(&unused);
  }

 private:
  const Width& width_;
};

std::string vaes_common_reason(const CpuFeatures& cpu) {
  if (!cpu.aesni) return "the CPU does not report AES-NI (CPUID.1:ECX.AES)";
  if (!cpu.sse41) return "the CPU does not report SSE4.1";
  if (!cpu.vaes) return "the CPU does not report VAES (CPUID.7.0:ECX.VAES)";
  return "";
}

std::string vaes256_unusable_reason() {
  const CpuFeatures& cpu = cpu_features();
  if (std::string why = vaes_common_reason(cpu); !why.empty()) return why;
  if (!cpu.avx2) return "the CPU or OS does not support AVX2";
  return "";
}

std::string vaes512_unusable_reason() {
  const CpuFeatures& cpu = cpu_features();
  if (std::string why = vaes_common_reason(cpu); !why.empty()) return why;
  if (!cpu.avx512f) return "the CPU or OS does not support AVX-512F";
  if (!cpu.avx2) return "the CPU or OS does not support AVX2";
  return "";
}

}  // namespace

const BackendEntry& vaes256_backend_entry() {
  static const BackendEntry entry{
      "vaes256", "hand-written VAES intrinsics (256-bit registers)", vaes256_unusable_reason,
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<VaesBackend>(kYmm); }};
  return entry;
}

const BackendEntry& vaes512_backend_entry() {
  static const BackendEntry entry{
      "vaes512", "hand-written VAES intrinsics (512-bit registers)", vaes512_unusable_reason,
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<VaesBackend>(kZmm); }};
  return entry;
}

}  // namespace cryptobench
