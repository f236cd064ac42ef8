// nettle_counter_modes.cc: CTR is Nettle's ctr_crypt over aes*_encrypt (it
// fills 16-byte counter blocks and encrypts them in bulk through the AES
// function, adding one to the whole block as a big-endian number: the
// interface's 128-bit counter); GCM is gcm_aes{128,192,256}_*. Each object
// keeps its schedules (for GCM: the AES schedule and the GHASH key) from
// set_key; a call only sets the counter block or the nonce.
#include "kernels/nettle/nettle_counter_modes.h"

#include <nettle/aes.h>
#include <nettle/ctr.h>
#include <nettle/gcm.h>

#include <cstring>

namespace cryptobench {
namespace {

// Nettle copies and hashes through memcpy-like code that wants a valid
// pointer even for length 0.
constexpr std::uint8_t kEmpty[1] = {0};
const std::uint8_t* data_or_dummy(Bytes b) { return b.empty() ? kEmpty : b.data(); }

// nettle_cipher_func takes the context as const void*; these adapters give
// ctr_crypt Nettle's AES functions with the exact type it calls.
void encrypt128(const void* ctx, std::size_t length, std::uint8_t* dst, const std::uint8_t* src) {
  aes128_encrypt(static_cast<const aes128_ctx*>(ctx), length, dst, src);
}
void encrypt192(const void* ctx, std::size_t length, std::uint8_t* dst, const std::uint8_t* src) {
  aes192_encrypt(static_cast<const aes192_ctx*>(ctx), length, dst, src);
}
void encrypt256(const void* ctx, std::size_t length, std::uint8_t* dst, const std::uint8_t* src) {
  aes256_encrypt(static_cast<const aes256_ctx*>(ctx), length, dst, src);
}

union AesSchedule {
  aes128_ctx k128;
  aes192_ctx k192;
  aes256_ctx k256;
};

class NettleCtr final : public AesCtr {
 public:
  ~NettleCtr() override { secure_wipe(&enc_, sizeof enc_); }

 protected:
  Error schedule_key(Bytes key) override {
    switch (key.size()) {
      case 16:
        aes128_set_encrypt_key(&enc_.k128, key.data());
        break;
      case 24:
        aes192_set_encrypt_key(&enc_.k192, key.data());
        break;
      case 32:
        aes256_set_encrypt_key(&enc_.k256, key.data());
        break;
      default:
        return Error::kLibraryFailure;
    }
    key_bytes_ = key.size();
    return Error::kNone;
  }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    Block ctr;  // ctr_crypt advances the counter it is given
    std::memcpy(ctr.data(), counter, ctr.size());
    switch (key_bytes_) {  // dst == src (in place) is allowed
      case 16:
        ctr_crypt(&enc_.k128, encrypt128, kAesBlockSize, ctr.data(), size, out, in);
        return Error::kNone;
      case 24:
        ctr_crypt(&enc_.k192, encrypt192, kAesBlockSize, ctr.data(), size, out, in);
        return Error::kNone;
      case 32:
        ctr_crypt(&enc_.k256, encrypt256, kAesBlockSize, ctr.data(), size, out, in);
        return Error::kNone;
      default:
        return Error::kLibraryFailure;
    }
  }

 private:
  AesSchedule enc_{};
  std::size_t key_bytes_ = 0;
};

union GcmContext {
  gcm_aes128_ctx k128;
  gcm_aes192_ctx k192;
  gcm_aes256_ctx k256;
};

class NettleGcm final : public AesGcm {
 public:
  ~NettleGcm() override { secure_wipe(&ctx_, sizeof ctx_); }
  // Nettle 3.8 gcm.c: gcm_set_iv takes any IV length (12 bytes directly, any
  // other hashed); gcm_digest any length up to GCM_DIGEST_SIZE (16), the
  // truncated tag; gcm_aes128/192/256 give every key size.
  GcmLimits limits() const override { return {.min_nonce = 1, .min_tag = 4}; }

 protected:
  Error schedule_key(Bytes key) override {
    switch (key.size()) {
      case 16:
        gcm_aes128_set_key(&ctx_.k128, key.data());
        break;
      case 24:
        gcm_aes192_set_key(&ctx_.k192, key.data());
        break;
      case 32:
        gcm_aes256_set_key(&ctx_.k256, key.data());
        break;
      default:
        return Error::kLibraryFailure;
    }
    key_bytes_ = key.size();
    return Error::kNone;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    return run(true, nonce, aad, in, out, tag.size(), tag.data());
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    // Nettle 3.8 has no GCM decrypt-and-verify: its tag is computed here and
    // compared in constant time.
    std::uint8_t computed[GCM_DIGEST_SIZE] = {};
    const Error e = run(false, nonce, aad, in, out, tag.size(), computed);
    const bool equal = e == Error::kNone && constant_time_equal(computed, tag.data(), tag.size());
    secure_wipe(computed, sizeof computed);
    if (e != Error::kNone) return e;
    return equal ? Error::kNone : Error::kBadTag;
  }

 private:
  // run: one message, set_iv (which resets the message state), the
  // associated data, the data, and `tag_size` bytes of the tag to `tag`.
  Error run(bool encrypting, Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
            std::size_t tag_size, std::uint8_t* tag) {
    const std::uint8_t* src = data_or_dummy(in);
    std::uint8_t* dst = in.empty() ? nullptr : out;
    switch (key_bytes_) {
      case 16:
        gcm_aes128_set_iv(&ctx_.k128, nonce.size(), nonce.data());
        if (!aad.empty()) gcm_aes128_update(&ctx_.k128, aad.size(), aad.data());
        if (dst != nullptr) {
          encrypting ? gcm_aes128_encrypt(&ctx_.k128, in.size(), dst, src)
                     : gcm_aes128_decrypt(&ctx_.k128, in.size(), dst, src);
        }
        gcm_aes128_digest(&ctx_.k128, tag_size, tag);
        return Error::kNone;
      case 24:
        gcm_aes192_set_iv(&ctx_.k192, nonce.size(), nonce.data());
        if (!aad.empty()) gcm_aes192_update(&ctx_.k192, aad.size(), aad.data());
        if (dst != nullptr) {
          encrypting ? gcm_aes192_encrypt(&ctx_.k192, in.size(), dst, src)
                     : gcm_aes192_decrypt(&ctx_.k192, in.size(), dst, src);
        }
        gcm_aes192_digest(&ctx_.k192, tag_size, tag);
        return Error::kNone;
      case 32:
        gcm_aes256_set_iv(&ctx_.k256, nonce.size(), nonce.data());
        if (!aad.empty()) gcm_aes256_update(&ctx_.k256, aad.size(), aad.data());
        if (dst != nullptr) {
          encrypting ? gcm_aes256_encrypt(&ctx_.k256, in.size(), dst, src)
                     : gcm_aes256_decrypt(&ctx_.k256, in.size(), dst, src);
        }
        gcm_aes256_digest(&ctx_.k256, tag_size, tag);
        return Error::kNone;
      default:
        return Error::kLibraryFailure;
    }
  }

  GcmContext ctx_{};
  std::size_t key_bytes_ = 0;
};

}  // namespace

std::unique_ptr<AesCtr> make_nettle_ctr() { return std::make_unique<NettleCtr>(); }
std::unique_ptr<AesGcm> make_nettle_gcm() { return std::make_unique<NettleGcm>(); }

}  // namespace cryptobench
