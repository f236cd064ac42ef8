// openssl_counter_modes.cc: each object keeps one EVP context keyed once by
// set_key; a call only sets the counter block or nonce (EVP_CipherInit_ex2
// with no cipher and no key keeps the key schedule and GHASH key).
#include "kernels/openssl/openssl_counter_modes.h"

#include <openssl/evp.h>

#include <climits>

namespace cryptobench {
namespace {

const EVP_CIPHER* fetched(bool gcm, std::size_t key_size) {
  static EVP_CIPHER* const ciphers[2][3] = {{EVP_CIPHER_fetch(nullptr, "AES-128-CTR", nullptr),
                                             EVP_CIPHER_fetch(nullptr, "AES-192-CTR", nullptr),
                                             EVP_CIPHER_fetch(nullptr, "AES-256-CTR", nullptr)},
                                            {EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr),
                                             EVP_CIPHER_fetch(nullptr, "AES-192-GCM", nullptr),
                                             EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr)}};
  return ciphers[gcm ? 1 : 0][(key_size - 16) / 8];
}

// EVP takes int lengths: longer inputs go in chunks (a multiple of 16, so a
// chunk boundary never splits a block of the keystream).
constexpr std::size_t kMaxChunk = std::size_t{1} << 30;

bool update(EVP_CIPHER_CTX* ctx, std::uint8_t* out, const std::uint8_t* in, std::size_t size) {
  while (size != 0) {
    const std::size_t chunk = size < kMaxChunk ? size : kMaxChunk;
    int written = 0;
    if (EVP_CipherUpdate(ctx, out, &written, in, static_cast<int>(chunk)) != 1 ||
        (out != nullptr && static_cast<std::size_t>(written) != chunk)) {
      return false;
    }
    in += chunk;
    if (out != nullptr) out += chunk;
    size -= chunk;
  }
  return true;
}

class Context {
 public:
  Context() : ctx_(EVP_CIPHER_CTX_new()) {}
  ~Context() { EVP_CIPHER_CTX_free(ctx_); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  EVP_CIPHER_CTX* get() const { return ctx_; }

 private:
  EVP_CIPHER_CTX* ctx_;
};

class OpensslCtr final : public AesCtr {
 protected:
  Error schedule_key(Bytes key) override {
    const EVP_CIPHER* cipher = fetched(false, key.size());
    if (ctx_.get() == nullptr || cipher == nullptr ||
        EVP_CipherInit_ex2(ctx_.get(), cipher, key.data(), nullptr, 1, nullptr) != 1) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    if (EVP_CipherInit_ex2(ctx_.get(), nullptr, nullptr, counter, 1, nullptr) != 1 ||
        !update(ctx_.get(), out, in, size)) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

 private:
  Context ctx_;
};

class OpensslGcm final : public AesGcm {
 public:
  GcmLimits limits() const override { return openssl_gcm_limits(); }

 protected:
  Error schedule_key(Bytes key) override {
    const EVP_CIPHER* cipher = fetched(true, key.size());
    if (enc_.get() == nullptr || dec_.get() == nullptr || cipher == nullptr ||
        EVP_CipherInit_ex2(enc_.get(), cipher, key.data(), nullptr, 1, nullptr) != 1 ||
        EVP_CipherInit_ex2(dec_.get(), cipher, key.data(), nullptr, 0, nullptr) != 1) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    EVP_CIPHER_CTX* ctx = enc_.get();
    int final_size = 0;
    if (!start(ctx, 1, nonce, aad) || !update(ctx, out, in.data(), in.size()) ||
        EVP_CipherFinal_ex(ctx, out + in.size(), &final_size) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, static_cast<int>(tag.size()), tag.data()) !=
            1) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    EVP_CIPHER_CTX* ctx = dec_.get();
    if (!start(ctx, 0, nonce, aad) || !update(ctx, out, in.data(), in.size()) ||
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, static_cast<int>(tag.size()),
                            const_cast<std::uint8_t*>(tag.data())) != 1) {
      return Error::kLibraryFailure;
    }
    // The tag comparison is OpenSSL's (CRYPTO_memcmp: constant time).
    int final_size = 0;
    return EVP_CipherFinal_ex(ctx, out + in.size(), &final_size) == 1 ? Error::kNone
                                                                      : Error::kBadTag;
  }

 private:
  static bool start(EVP_CIPHER_CTX* ctx, int encrypting, Bytes nonce, Bytes aad) {
    // The nonce length first (a new length re-derives nothing but the
    // counter set-up), then the nonce with the key kept.
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(nonce.size()),
                               nullptr) == 1 &&
           EVP_CipherInit_ex2(ctx, nullptr, nullptr, nonce.data(), encrypting, nullptr) == 1 &&
           (aad.empty() || update(ctx, nullptr, aad.data(), aad.size()));
  }

  Context enc_, dec_;
};

}  // namespace

GcmLimits openssl_gcm_limits() {
  // The default provider keeps the IV in a 128-byte buffer (GCM_IV_MAX_SIZE,
  // 1024 bits: NIST's longest) and takes tags of 1 to 16 bytes.
  return {.min_nonce = 1, .max_nonce = 128, .min_tag = 4};
}

std::unique_ptr<AesCtr> make_openssl_ctr() { return std::make_unique<OpensslCtr>(); }
std::unique_ptr<AesGcm> make_openssl_gcm() { return std::make_unique<OpensslGcm>(); }

}  // namespace cryptobench
