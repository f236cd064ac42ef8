// sodium_backend.cc: libsodium 1.0.18's AES-256-GCM through its
// precomputation interface: crypto_aead_aes256gcm_beforenm expands the key
// (and the GHASH key) into a state once per key, and each message is one
// crypto_aead_aes256gcm_encrypt_detached_afternm / _decrypt_detached_afternm
// call on it, with the tag apart from the text.
//
// libsodium has no AES-ECB, AES-CBC or AES-CTR API, and its AES-GCM has one
// implementation, C with AES-NI and PCLMULQDQ intrinsics, 8 blocks at a time
// (crypto_aead/aes256gcm/aesni/aead_aes256gcm_aesni.c):
// crypto_aead_aes256gcm_is_available() is false without both instructions,
// and the backend is then unusable. It offers what that API does: 256-bit keys,
// 12-byte nonces (crypto_aead_aes256gcm_NPUBBYTES) and 16-byte tags
// (crypto_aead_aes256gcm_ABYTES; the API has no tag length).
#include <sodium.h>

#include <cstring>
#include <string>

#include "kernels/registry.h"

namespace cryptobench {
namespace {

// sodium_init once per process: 0 on success, 1 when already done, -1 on
// failure. It also runs the CPU detection crypto_aead_aes256gcm_is_available reads.
int sodium_init_result() {
  static const int rc = sodium_init();
  return rc;
}

GcmLimits sodium_gcm_limits() {
  static_assert(crypto_aead_aes256gcm_NPUBBYTES == 12 && crypto_aead_aes256gcm_ABYTES == 16 &&
                crypto_aead_aes256gcm_KEYBYTES == 32);
  return {.nonce_12_only = true, .min_tag = 16, .key_16 = false, .key_24 = false, .key_32 = true};
}

class SodiumGcm final : public AesGcm {
 public:
  ~SodiumGcm() override { sodium_memzero(&state_, sizeof state_); }
  GcmLimits limits() const override { return sodium_gcm_limits(); }

 protected:
  Error schedule_key(Bytes key) override {
    return crypto_aead_aes256gcm_beforenm(&state_, key.data()) == 0 ? Error::kNone
                                                                    : Error::kLibraryFailure;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    // Past messagebytes_max (16 * (2^32 - 2) bytes: the 32-bit block
    // counter) libsodium calls sodium_misuse(), which aborts: refuse first.
    if (in.size() > crypto_aead_aes256gcm_messagebytes_max()) return Error::kLibraryFailure;
    unsigned long long tag_size = 0;
    if (crypto_aead_aes256gcm_encrypt_detached_afternm(
            in.empty() ? empty_ : out, tag.data(), &tag_size, in.empty() ? empty_ : in.data(),
            in.size(), aad.empty() ? nullptr : aad.data(), aad.size(), nullptr, nonce.data(),
            &state_) != 0 ||
        tag_size != tag.size()) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    if (in.size() > crypto_aead_aes256gcm_messagebytes_max()) return Error::kLibraryFailure;
    // -1 is its only failure once the length is within bounds: the tag did
    // not verify (compared by OR-ing the differences of all 16 bytes: no
    // early exit), and it has zeroed the output.
    return crypto_aead_aes256gcm_decrypt_detached_afternm(
               in.empty() ? empty_ : out, nullptr, in.empty() ? empty_ : in.data(), in.size(),
               tag.data(), aad.empty() ? nullptr : aad.data(), aad.size(), nonce.data(),
               &state_) == 0
               ? Error::kNone
               : Error::kBadTag;
  }

 private:
  // The text pointers must not be null even for an empty message; nothing
  // is written through them then.
  std::uint8_t empty_[1] = {};
  crypto_aead_aes256gcm_state state_{};
};

class SodiumBackend final : public AesBackend {
 public:
  BackendInfo info() const override {
    return {.name = "sodium",
            .library = "libsodium",
            .version = sodium_version_string(),
            .code_path =
                "libsodium's only AES-GCM: C with AES-NI and PCLMULQDQ intrinsics, 8 "
                "blocks at a time (crypto_aead/aes256gcm/aesni), AES-256 only; the key "
                "schedule and GHASH key H precomputed once per key "
                "(crypto_aead_aes256gcm_beforenm), one _afternm call per message",
            .codec =
                "cryptobench codec (not libsodium's sodium_bin2base64/sodium_bin2hex: this "
                "backend measures AES-GCM)",
            .kdf = "",
            .register_bits = 128,
            .modes = {Mode::kGcm},
            .not_offered =
                "ECB, CBC, CTR: libsodium has no AES API but crypto_aead_aes256gcm "
                "(AES-256-GCM only, 12-byte nonces, 16-byte tags)",
            .codec_source = CodecSource::kProject};
  }
  // No block mode is listed, so nothing asks for one.
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    throw BackendError("sodium: no " + std::string(mode_name(mode)) +
                       " cipher: libsodium has no AES block-mode API");
  }
  std::unique_ptr<AesGcm> make_gcm() const override { return std::make_unique<SodiumGcm>(); }
  const TextCodec& codec() const override { return project_codec(); }
  // No make_key_deriver: libsodium has HMAC-SHA256 but no PBKDF2, so the
  // registry's fallback derives keys.
};

std::string sodium_unusable_reason() {
  if (sodium_init_result() < 0) return "sodium_init failed";
  if (crypto_aead_aes256gcm_is_available() == 0) {
    return "crypto_aead_aes256gcm_is_available() is false: libsodium's AES-GCM needs AES-NI and "
           "PCLMULQDQ";
  }
  return "";
}

}  // namespace

const BackendEntry& sodium_backend_entry() {
  static const BackendEntry entry{
      "sodium", "libsodium 1.0.18 crypto_aead_aes256gcm (AES-256-GCM only; AES-NI + PCLMULQDQ)",
      sodium_unusable_reason,
      []() -> std::unique_ptr<AesBackend> { return std::make_unique<SodiumBackend>(); },
      "libsodium"};
  return entry;
}

}  // namespace cryptobench
