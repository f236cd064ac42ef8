// aesni_backend.cc: the hand-written backend. Key schedule and blocks are the
// project's own AES-NI code; text encoding is the project's own codec.
#include "kernels/aesni/aesni_kernels.h"
#include "kernels/cpu_features.h"
#include "kernels/pkcs7.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

class AesniCipher final : public AesCipher {
 public:
  explicit AesniCipher(Mode mode) : AesCipher(mode) {}
  ~AesniCipher() override { secure_wipe(&schedule_, sizeof schedule_); }

 protected:
  Error schedule_key(Bytes key) override {
    aesni::expand_key(key.data(), key.size(), &schedule_);
    return Error::kNone;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    if (iv == nullptr) {
      aesni::ecb_encrypt(schedule_, in, out, blocks);
    } else {
      aesni::cbc_encrypt(schedule_, iv, in, out, blocks);
    }
    return Error::kNone;
  }
  Result decrypt_padded(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                        std::size_t blocks) override {
    const std::size_t pad = aesni::decrypt_pkcs7(schedule_, iv, in, out, blocks);
    // kBadPadding when pad is 0, kNone otherwise, without a branch.
    const auto bad = static_cast<int>((static_cast<std::uint64_t>(pad) - 1) >> 63);
    return Result{static_cast<Error>(bad * static_cast<int>(Error::kBadPadding)), pad};
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    if (iv == nullptr) {
      aesni::ecb_decrypt(schedule_, in, out, blocks);
    } else {
      aesni::cbc_decrypt(schedule_, iv, in, out, blocks);
    }
    return Error::kNone;
  }

 private:
  aesni::KeySchedule schedule_{};
};

class AesniBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    std::string library;
    (void)library_key_deriver(&library);
    return {"aesni",
            "cryptobench",
            "hand-written",
            "AES-NI 128-bit: 8 blocks interleaved (ECB, CBC decrypt), serial CBC encrypt",
            "cryptobench table codec",
            library.empty() ? "none (no library compiled in)"
                            : library + "'s (the hand-written backend has no KDF of its own)"};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<AesniCipher>(mode);
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
