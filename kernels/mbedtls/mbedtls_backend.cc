// mbedtls_backend.cc: mbedTLS 2.28 (libmbedcrypto): mbedtls_aes_crypt_ecb one
// block per call, mbedtls_aes_crypt_cbc, its Base64 (hex from the project),
// and mbedtls_md HMAC / mbedtls_pkcs5_pbkdf2_hmac.
#include <mbedtls/aes.h>
#include <mbedtls/aesni.h>
#include <mbedtls/base64.h>
#include <mbedtls/md.h>
#include <mbedtls/pkcs5.h>
#include <mbedtls/version.h>

#include <cstring>
#include <string>

#include "kernels/mbedtls/mbedtls_counter_modes.h"
#include "kernels/registry.h"

namespace cryptobench {

// Without MBEDTLS_AES_ROM_TABLES (Debian's config), the first setkey builds
// the AES tables in unsynchronised globals; build them once here, before any
// thread keys a cipher (the block ciphers here, CTR and GCM in
// mbedtls_counter_modes.cc).
bool mbedtls_tables_ready() {
  static const bool ready = [] {
    mbedtls_aes_context ctx;
    mbedtls_aes_init(&ctx);
    const unsigned char key[16] = {};
    const bool ok =
        mbedtls_aes_setkey_enc(&ctx, key, 128) == 0 && mbedtls_aes_setkey_dec(&ctx, key, 128) == 0;
    mbedtls_aes_free(&ctx);
    return ok;
  }();
  return ready;
}

namespace {

// mbedtls_aesni_has_support is what mbedtls_aes_setkey_enc/crypt_ecb ask
// before taking the AES-NI path; it is only declared when the config has
// MBEDTLS_AESNI_C and an x86-64 implementation.
// gcm.c asks mbedtls_aesni_has_support(MBEDTLS_AESNI_CLMUL) before taking
// its PCLMULQDQ GHASH multiply (mbedtls_aesni_gcm_mult).
#if defined(MBEDTLS_AESNI_C) && defined(MBEDTLS_AESNI_HAVE_CODE)
bool mbedtls_uses_aesni() { return mbedtls_aesni_has_support(MBEDTLS_AESNI_AES) != 0; }
bool mbedtls_uses_clmul() { return mbedtls_aesni_has_support(MBEDTLS_AESNI_CLMUL) != 0; }
#else
bool mbedtls_uses_aesni() { return false; }
bool mbedtls_uses_clmul() { return false; }
#endif

class MbedtlsCipher final : public AesCipher {
 public:
  explicit MbedtlsCipher(Mode mode) : AesCipher(mode) {
    // The contexts point into themselves (rk -> buf), so they live here and
    // are never copied; setkey re-keys them in place.
    mbedtls_aes_init(&enc_);
    mbedtls_aes_init(&dec_);
  }
  ~MbedtlsCipher() override {
    mbedtls_aes_free(&enc_);  // zeroises the key schedule
    mbedtls_aes_free(&dec_);
  }

 protected:
  Error schedule_key(Bytes key) override {
    const auto bits = static_cast<unsigned int>(key.size() * 8);
    if (!mbedtls_tables_ready() || mbedtls_aes_setkey_enc(&enc_, key.data(), bits) != 0 ||
        mbedtls_aes_setkey_dec(&dec_, key.data(), bits) != 0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return run(&enc_, MBEDTLS_AES_ENCRYPT, iv, in, out, blocks);
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    return run(&dec_, MBEDTLS_AES_DECRYPT, iv, in, out, blocks);
  }

 private:
  static Error run(mbedtls_aes_context* ctx, int direction, const std::uint8_t* iv,
                   const std::uint8_t* in, std::uint8_t* out, std::size_t blocks) {
    if (iv != nullptr) {
      // mbedtls_aes_crypt_cbc advances the IV it is given; the base class
      // owns the chain, so hand it a copy.
      unsigned char chain[kAesBlockSize];
      std::memcpy(chain, iv, sizeof chain);
      return mbedtls_aes_crypt_cbc(ctx, direction, blocks * kAesBlockSize, chain, in, out) == 0
                 ? Error::kNone
                 : Error::kLibraryFailure;
    }
    // mbedTLS's ECB entry point takes exactly one block.
    for (std::size_t i = 0; i < blocks; ++i) {
      if (mbedtls_aes_crypt_ecb(ctx, direction, in + i * kAesBlockSize, out + i * kAesBlockSize) !=
          0) {
        return Error::kLibraryFailure;
      }
    }
    return Error::kNone;
  }

  mbedtls_aes_context enc_;
  mbedtls_aes_context dec_;
};

// mbedTLS's Base64, and the project's hex: mbedTLS has no hex codec.
class MbedtlsCodec final : public TextCodec {
 protected:
  Result encode_base64(const std::uint8_t* in, std::size_t length, char* out) const override {
    if (length == 0) return Result::success(0);
    // mbedtls_base64_encode NUL-terminates and insists on room for it: encode
    // all but the last group in place (the NUL lands where the last group
    // goes), the last group into scratch space.
    auto* text = reinterpret_cast<unsigned char*>(out);
    const std::size_t head = (length - 1) / 3 * 3;  // leaves 1..3 bytes
    std::size_t written = 0;
    if (head != 0 && (mbedtls_base64_encode(text, head / 3 * 4 + 1, &written, in, head) != 0 ||
                      written != head / 3 * 4)) {
      return Result::failure(Error::kLibraryFailure);
    }
    unsigned char last[5];
    std::size_t last_written = 0;
    if (mbedtls_base64_encode(last, sizeof last, &last_written, in + head, length - head) != 0 ||
        last_written != 4) {
      return Result::failure(Error::kLibraryFailure);
    }
    std::memcpy(text + written, last, 4);
    return Result::success(written + 4);
  }
  Result decode_base64(std::string_view text, std::uint8_t* out) const override {
    // mbedtls_base64_decode skips line breaks and spaces and accepts
    // non-canonical final groups, so validate strictly first.
    const Result checked = checked_decoded_size(Encoding::kBase64, text);
    if (!checked.ok()) return checked;
    std::size_t written = 0;
    const int rc =
        mbedtls_base64_decode(out, decode_capacity(Encoding::kBase64, text.size()), &written,
                              reinterpret_cast<const unsigned char*>(text.data()), text.size());
    if (rc == MBEDTLS_ERR_BASE64_INVALID_CHARACTER) return Result::failure(Error::kBadEncoding);
    if (rc != 0 || written != checked.size) return Result::failure(Error::kLibraryFailure);
    return checked;
  }
  Result encode_hex(const std::uint8_t* in, std::size_t length, char* out) const override {
    return project_codec().encode(Encoding::kHex, {in, length},
                                  {out, encoded_size(Encoding::kHex, length)});
  }
  Result decode_hex(std::string_view text, std::uint8_t* out) const override {
    return project_codec().decode(Encoding::kHex, text,
                                  {out, decode_capacity(Encoding::kHex, text.size())});
  }
};

// One mbedtls_md context set up for HMAC-SHA256, reused by both HMAC and
// PBKDF2 (mbedTLS 2.28's PBKDF2 runs on a caller's HMAC context).
class MbedtlsKeyDeriver final : public KeyDeriver {
  static constexpr unsigned char kEmptyKey[1] = {0};

 public:
  MbedtlsKeyDeriver() {
    mbedtls_md_init(&ctx_);
    const mbedtls_md_info_t* sha256 = mbedtls_md_info_from_type(MBEDTLS_MD_SHA256);
    ready_ = sha256 != nullptr && mbedtls_md_setup(&ctx_, sha256, /*hmac=*/1) == 0;
  }
  ~MbedtlsKeyDeriver() override { mbedtls_md_free(&ctx_); }  // zeroises the pads
  MbedtlsKeyDeriver(const MbedtlsKeyDeriver&) = delete;
  MbedtlsKeyDeriver& operator=(const MbedtlsKeyDeriver&) = delete;

  Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) override {
    unsigned char mac[kSha256Size];
    if (!ready_ || out.empty() || out.size() > kSha256Size ||
        mbedtls_md_hmac_starts(&ctx_, secret.empty() ? kEmptyKey : secret.data(), secret.size()) !=
            0 ||
        mbedtls_md_hmac_update(&ctx_, message.data(), message.size()) != 0 ||
        mbedtls_md_hmac_finish(&ctx_, mac) != 0) {
      return Error::kLibraryFailure;
    }
    std::memcpy(out.data(), mac, out.size());
    secure_wipe(mac, sizeof mac);
    return Error::kNone;
  }
  Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations, MutableBytes out) override {
    // mbedTLS would run 0 iterations as 1; 0 is an error here.
    if (!ready_ || iterations == 0 || out.empty() || out.size() > 64 ||
        mbedtls_pkcs5_pbkdf2_hmac(&ctx_, password.empty() ? kEmptyKey : password.data(),
                                  password.size(), salt.empty() ? kEmptyKey : salt.data(),
                                  salt.size(), iterations, static_cast<std::uint32_t>(out.size()),
                                  out.data()) != 0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

 private:
  mbedtls_md_context_t ctx_;
  bool ready_ = false;
};

class MbedtlsBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    char version[16] = {};  // mbedtls_version_get_string writes at most 9 bytes
    mbedtls_version_get_string(version);
    const bool aesni = mbedtls_uses_aesni();
    const std::string path =
        aesni ? "AES-NI inline assembly (mbedtls_aesni_has_support(MBEDTLS_AESNI_AES) = 1; "
                "MBEDTLS_AESNI_C in Debian's config.h), one block per aesenc sequence, no "
                "interleaving (mbedtls_aes_crypt_cbc calls mbedtls_aes_crypt_ecb block by block, "
                "which calls mbedtls_aesni_crypt_ecb: objdump of libmbedcrypto.so)"
              : "table-based C (mbedtls_aesni_has_support(MBEDTLS_AESNI_AES) = 0 on this CPU)";
    const std::string modes =
        std::string(
            "; CTR: mbedtls_aes_crypt_ctr, one block per mbedtls_aes_crypt_ecb call; GCM: "
            "mbedtls_gcm_*, one block per call through mbedtls_cipher, GHASH ") +
        (mbedtls_uses_clmul() ? "PCLMULQDQ (mbedtls_aesni_has_support(MBEDTLS_AESNI_CLMUL) = 1)"
                              : "4-bit tables in C (mbedtls_aesni_has_support(MBEDTLS_AESNI_CLMUL) "
                                "= 0)");
    return {.name = "mbedtls",
            .library = "mbedTLS",
            .version = version,
            .code_path = path + modes,
            .codec =
                "mbedTLS mbedtls_base64_encode/mbedtls_base64_decode; hex: cryptobench codec "
                "(mbedTLS has no hex codec)",
            .kdf = "mbedTLS mbedtls_md HMAC-SHA256, mbedtls_pkcs5_pbkdf2_hmac",
            .register_bits = aesni ? 128u : 0u,
            .modes = {Mode::kEcb, Mode::kCbc, Mode::kCtr, Mode::kGcm},
            .codec_source = CodecSource::kLibrary};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<MbedtlsCipher>(mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override { return make_mbedtls_ctr(); }
  std::unique_ptr<AesGcm> make_gcm() const override { return make_mbedtls_gcm(); }
  const TextCodec& codec() const override { return codec_; }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override {
    return std::make_unique<MbedtlsKeyDeriver>();
  }

 private:
  MbedtlsCodec codec_;
};

std::string mbedtls_unusable_reason() {
  if (!mbedtls_tables_ready()) return "mbedtls_aes_setkey_enc/dec failed on a test key";
  return "";
}

}  // namespace

const BackendEntry& mbedtls_backend_entry() {
  static const BackendEntry entry{
      "mbedtls", "mbedTLS 2.28 (library-chosen AES-NI path, one block at a time)",
      mbedtls_unusable_reason,
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<MbedtlsBackend>(); },
      "mbedTLS"};
  return entry;
}

}  // namespace cryptobench
