// openssl_aes_backend.cc: OpenSSL 3's low-level AES API (AES_set_*_key,
// AES_ecb_encrypt, AES_cbc_encrypt), the API older code calls instead of EVP.
// Each AesCipher holds two AES_KEY schedules, recomputed in place per key.

// The low-level AES API is deprecated in OpenSSL 3.0 but still shipped and
// exported; measuring it is the point of this backend, so its deprecation
// attributes (errors under -Werror) are switched off for this file only.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/aes.h>
#include <openssl/crypto.h>

#include <cstring>
#include <string>

#include "kernels/openssl/openssl_aes_path.h"
#include "kernels/registry.h"

namespace cryptobench {
namespace {

class OpensslAesCipher final : public AesCipher {
 public:
  using AesCipher::AesCipher;
  ~OpensslAesCipher() override {
    OPENSSL_cleanse(&enc_, sizeof enc_);
    OPENSSL_cleanse(&dec_, sizeof dec_);
  }

 protected:
  Error schedule_key(Bytes key) override {
    const int bits = static_cast<int>(key.size() * 8);
    if (AES_set_encrypt_key(key.data(), bits, &enc_) != 0 ||
        AES_set_decrypt_key(key.data(), bits, &dec_) != 0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    run(enc_, AES_ENCRYPT, iv, in, out, blocks);
    return Error::kNone;
  }
  Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                       std::size_t blocks) override {
    run(dec_, AES_DECRYPT, iv, in, out, blocks);
    return Error::kNone;
  }

 private:
  // The AES_* calls return nothing: past the key schedule they cannot fail.
  static void run(const AES_KEY& key, int direction, const std::uint8_t* iv, const std::uint8_t* in,
                  std::uint8_t* out, std::size_t blocks) {
    if (iv == nullptr) {
      // AES_ecb_encrypt takes exactly one block.
      for (std::size_t i = 0; i < blocks; ++i) {
        AES_ecb_encrypt(in + i * kAesBlockSize, out + i * kAesBlockSize, &key, direction);
      }
      return;
    }
    // AES_cbc_encrypt advances the IV it is given; the base class keeps the
    // chain, so hand it a copy. Its length is a size_t: no chunking needed.
    unsigned char chain[kAesBlockSize];
    std::memcpy(chain, iv, sizeof chain);
    AES_cbc_encrypt(in, out, blocks * kAesBlockSize, &key, chain, direction);
  }

  AES_KEY enc_{};
  AES_KEY dec_{};
};

// Codec and KDF: OpenSSL's own, as the openssl backend already wraps them
// (EVP_EncodeBlock & co., EVP_MAC, PKCS5_PBKDF2_HMAC; the low-level era has
// nothing else). That backend is opened once, through the registry, rather
// than its code repeated here; nullptr when it is not compiled in or unusable.
const AesBackend* openssl_evp_backend() {
  static const std::unique_ptr<AesBackend> backend = []() -> std::unique_ptr<AesBackend> {
    const BackendEntry* entry = find_backend("openssl");
    if (entry == nullptr || !unusable_reason(*entry).empty()) return nullptr;
    return entry->open();
  }();
  return backend.get();
}

// Where the low-level API's AES comes from. On x86-64, libcrypto 3.0 builds
// AES_encrypt, AES_decrypt and AES_cbc_encrypt from aes-x86_64.pl: T-table
// assembly that never dispatches to the AES-NI code EVP uses (objdump of the
// installed libcrypto.so.3: no aesenc/aesdec in them or in the helpers they
// call; gdb stepping one AES_cbc_encrypt: 2,838 instructions, no AES one).
std::string low_level_path() {
#if defined(__x86_64__)
  return "aes-x86_64 (T-table x86-64 assembly, no AES-NI: AES_cbc_encrypt and the "
         "AES_encrypt/AES_decrypt that AES_ecb_encrypt jumps to have no AES-NI dispatch in "
         "libcrypto 3.0; checked by disassembling the installed libcrypto.so.3)";
#else
  return "the low-level API's own AES (aes_core or per-architecture table assembly; not checked "
         "on this architecture)";
#endif
}

class OpensslAesBackend final : public AesBackend {
 public:
  explicit OpensslAesBackend(const AesBackend& evp) : evp_(evp) {}

  BackendInfo info() const override {
    const BackendInfo evp = evp_.info();
    return {.name = "openssl-aes",
            .library = "OpenSSL",
            .version = OpenSSL_version(OPENSSL_VERSION_STRING),
            .code_path = low_level_path() + "; EVP here: " + openssl_aes_path().description,
            .codec = evp.codec + " (the openssl backend's codec)",
            .kdf = evp.kdf + " (the openssl backend's)",
            .register_bits = 0};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<OpensslAesCipher>(mode);
  }
  const TextCodec& codec() const override { return evp_.codec(); }

 protected:
  std::unique_ptr<KeyDeriver> make_key_deriver() const override { return evp_.key_deriver(); }

 private:
  const AesBackend& evp_;
};

std::string openssl_aes_unusable_reason() {
  if (openssl_evp_backend() == nullptr) {
    return "needs the openssl backend (compiled out or unusable here) for OpenSSL's codec and KDF";
  }
  return "";
}

}  // namespace

const BackendEntry& openssl_aes_backend_entry() {
  static const BackendEntry entry{
      "openssl-aes", "OpenSSL 3 low-level AES_* API (deprecated; table assembly, no AES-NI)",
      openssl_aes_unusable_reason,
      []() -> std::unique_ptr<AesBackend> {
        const AesBackend* evp = openssl_evp_backend();
        if (evp == nullptr) throw BackendError("openssl-aes: " + openssl_aes_unusable_reason());
        return std::make_unique<OpensslAesBackend>(*evp);
      },
      "OpenSSL"};
  return entry;
}

}  // namespace cryptobench
