// openssl_aes_backend.cc: OpenSSL 3's low-level AES API (AES_set_*_key,
// AES_ecb_encrypt, AES_cbc_encrypt), the API older code calls instead of EVP.
// Each AesCipher holds two AES_KEY schedules, recomputed in place per key.
// CTR and GCM come from the same era's public <openssl/modes.h>: the
// library's own mode code (CRYPTO_ctr128_encrypt, CRYPTO_gcm128_*, exported
// by libcrypto.so.3) run over AES_encrypt, as such code calls them.

// The low-level AES API is deprecated in OpenSSL 3.0 but still shipped and
// exported; measuring it is the point of this backend, so its deprecation
// attributes (errors under -Werror) are switched off for this file only.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/aes.h>
#include <openssl/crypto.h>
#include <openssl/modes.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/cpu_features.h"
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

// aes_block: AES_encrypt as the block128_f the mode code calls (the same
// function: AES_encrypt's key parameter is an AES_KEY*, block128_f's a void*;
// a call through a cast pointer of the other type would be undefined).
void aes_block(const unsigned char in[16], unsigned char out[16], const void* key) {
  AES_encrypt(in, out, static_cast<const AES_KEY*>(key));
}

// CTR: CRYPTO_ctr128_encrypt over AES_encrypt; it increments the whole
// 16-byte block as one big-endian number (ctr128.c's ctr128_inc), so the
// full 128-bit counter. It advances the counter block, the keystream buffer
// and the offset it is given: each call starts from fresh copies.
class OpensslAesCtr final : public AesCtr {
 public:
  ~OpensslAesCtr() override { OPENSSL_cleanse(&key_, sizeof key_); }

 protected:
  Error schedule_key(Bytes key) override {
    return AES_set_encrypt_key(key.data(), static_cast<int>(key.size() * 8), &key_) == 0
               ? Error::kNone
               : Error::kLibraryFailure;
  }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    unsigned char block[kAesBlockSize], stream[kAesBlockSize] = {};
    std::memcpy(block, counter, sizeof block);
    unsigned int used = 0;
    CRYPTO_ctr128_encrypt(in, out, size, &key_, block, stream, &used, aes_block);
    OPENSSL_cleanse(stream, sizeof stream);
    return Error::kNone;
  }

 private:
  AES_KEY key_{};
};

// GCM: one GCM128_CONTEXT per object over its AES_KEY: CRYPTO_gcm128_new
// once, CRYPTO_gcm128_init on a new key (it recomputes H and the GHASH
// table). Any nonce length (CRYPTO_gcm128_setiv hashes the others), tags of
// 1 to 16 bytes (CRYPTO_gcm128_tag truncates, CRYPTO_gcm128_finish compares
// that many bytes with CRYPTO_memcmp), all key sizes; lengths are size_t.
GcmLimits openssl_aes_gcm_limits() {
  return {.min_nonce = 1, .max_nonce = std::size_t{1} << 16, .min_tag = 4};
}

class OpensslAesGcm final : public AesGcm {
 public:
  ~OpensslAesGcm() override {
    CRYPTO_gcm128_release(gcm_);  // cleanses it
    OPENSSL_cleanse(&key_, sizeof key_);
  }
  GcmLimits limits() const override { return openssl_aes_gcm_limits(); }

 protected:
  Error schedule_key(Bytes key) override {
    if (AES_set_encrypt_key(key.data(), static_cast<int>(key.size() * 8), &key_) != 0) {
      return Error::kLibraryFailure;
    }
    if (gcm_ == nullptr) {
      gcm_ = CRYPTO_gcm128_new(&key_, aes_block);
      return gcm_ != nullptr ? Error::kNone : Error::kLibraryFailure;
    }
    CRYPTO_gcm128_init(gcm_, &key_, aes_block);
    return Error::kNone;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    if (!start(nonce, aad) || CRYPTO_gcm128_encrypt(gcm_, in.data(), out, in.size()) != 0) {
      return Error::kLibraryFailure;
    }
    CRYPTO_gcm128_tag(gcm_, tag.data(), tag.size());
    return Error::kNone;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    if (!start(nonce, aad) || CRYPTO_gcm128_decrypt(gcm_, in.data(), out, in.size()) != 0) {
      return Error::kLibraryFailure;
    }
    return CRYPTO_gcm128_finish(gcm_, tag.data(), tag.size()) == 0 ? Error::kNone : Error::kBadTag;
  }

 private:
  // start: the nonce, then the AAD (its call fails past 2^61 bytes).
  bool start(Bytes nonce, Bytes aad) {
    CRYPTO_gcm128_setiv(gcm_, nonce.data(), nonce.size());
    return aad.empty() || CRYPTO_gcm128_aad(gcm_, aad.data(), aad.size()) == 0;
  }

  AES_KEY key_{};
  GCM128_CONTEXT* gcm_ = nullptr;
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

// CTR and GCM: crypto/modes' C over the same AES_encrypt (so no AES-NI
// either); GHASH by CRYPTO_gcm128_init's own choice from OPENSSL_ia32cap:
// its PCLMULQDQ assembly (the AVX variant with AVX and MOVBE) when the CPU
// has PCLMULQDQ, else 4-bit tables in C.
std::string modes_path() {
  std::string path =
      "CTR: CRYPTO_ctr128_encrypt and GCM: CRYPTO_gcm128_* (crypto/modes) over that AES_encrypt";
#if defined(__x86_64__)
  path += hardware_cpu_features().pclmulqdq
              ? "; GHASH: gcm128's PCLMULQDQ assembly (its AVX variant with AVX and MOVBE), per "
                "CPUID"
              : "; GHASH: gcm128's 4-bit tables in C (no PCLMULQDQ)";
  if (std::getenv("OPENSSL_ia32cap") != nullptr)
    path += " (OPENSSL_ia32cap is set and may change it)";
#endif
  return path;
}

class OpensslAesBackend final : public AesBackend {
 public:
  explicit OpensslAesBackend(const AesBackend& evp) : evp_(evp) {}

  BackendInfo info() const override {
    const BackendInfo evp = evp_.info();
    return {.name = "openssl-aes",
            .library = "OpenSSL",
            .version = OpenSSL_version(OPENSSL_VERSION_STRING),
            .code_path = low_level_path() + "; EVP here: " + openssl_aes_path().description + "; " +
                         modes_path(),
            .codec = evp.codec + " (the openssl backend's codec)",
            .kdf = evp.kdf + " (the openssl backend's)",
            .register_bits = 0,
            .modes = {Mode::kEcb, Mode::kCbc, Mode::kCtr, Mode::kGcm}};
  }
  std::unique_ptr<AesCipher> make_cipher(Mode mode) const override {
    return std::make_unique<OpensslAesCipher>(mode);
  }
  std::unique_ptr<AesCtr> make_ctr() const override { return std::make_unique<OpensslAesCtr>(); }
  std::unique_ptr<AesGcm> make_gcm() const override { return std::make_unique<OpensslAesGcm>(); }
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
      "openssl-aes",
      "OpenSSL 3 low-level AES_* API and <openssl/modes.h> (deprecated; table assembly, no AES-NI)",
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
