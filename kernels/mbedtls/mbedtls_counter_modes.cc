// mbedtls_counter_modes.cc: CTR is mbedtls_aes_crypt_ctr on an encryption
// schedule; GCM one mbedtls_gcm_context (its AES context and GHASH tables)
// keyed by set_key through mbedtls_gcm_setkey. A call only passes the
// counter block or the nonce.
#include "kernels/mbedtls/mbedtls_counter_modes.h"

#include <mbedtls/aes.h>
#include <mbedtls/gcm.h>

#include <cstring>

namespace cryptobench {
namespace {

constexpr unsigned char kEmpty[1] = {0};
const unsigned char* data_or_dummy(Bytes b) { return b.empty() ? kEmpty : b.data(); }

class MbedtlsCtr final : public AesCtr {
  // mbedtls_aes_crypt_ctr increments the whole 16-byte nonce_counter as a
  // big-endian number (aes.c: the carry runs through all 16 bytes), so the
  // 128-bit default of limits() holds.
 public:
  MbedtlsCtr() { mbedtls_aes_init(&ctx_); }
  ~MbedtlsCtr() override { mbedtls_aes_free(&ctx_); }  // zeroises the schedule

 protected:
  Error schedule_key(Bytes key) override {
    if (!mbedtls_tables_ready() ||
        mbedtls_aes_setkey_enc(&ctx_, key.data(), static_cast<unsigned int>(key.size() * 8)) != 0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    // The counter, the offset into the key stream block and the block are
    // the caller's state in mbedTLS: a fresh message starts at offset 0.
    unsigned char nonce_counter[kAesBlockSize];
    unsigned char stream_block[kAesBlockSize];
    std::memcpy(nonce_counter, counter, sizeof nonce_counter);
    std::size_t offset = 0;
    const int rc =
        mbedtls_aes_crypt_ctr(&ctx_, size, &offset, nonce_counter, stream_block, in, out);
    secure_wipe(stream_block, sizeof stream_block);  // key stream
    return rc == 0 ? Error::kNone : Error::kLibraryFailure;
  }

 private:
  mbedtls_aes_context ctx_;
};

class MbedtlsGcm final : public AesGcm {
 public:
  MbedtlsGcm() { mbedtls_gcm_init(&ctx_); }
  ~MbedtlsGcm() override { mbedtls_gcm_free(&ctx_); }  // zeroises the context

  // mbedTLS 2.28 gcm.c: mbedtls_gcm_starts refuses an empty IV and IVs of
  // 2^61 bytes or more (all other lengths are hashed, 12 bytes used as is);
  // mbedtls_gcm_finish takes tags of 4 to 16 bytes ("must be at least
  // four", gcm.h); mbedtls_gcm_setkey takes 128, 192 and 256-bit keys.
  GcmLimits limits() const override { return {.min_nonce = 1, .min_tag = 4}; }

 protected:
  Error schedule_key(Bytes key) override {
    if (!mbedtls_tables_ready() ||
        mbedtls_gcm_setkey(&ctx_, MBEDTLS_CIPHER_ID_AES, key.data(),
                           static_cast<unsigned int>(key.size() * 8)) != 0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    // gcm.h: "For encryption, the output buffer can be the same as the
    // input buffer."
    return mbedtls_gcm_crypt_and_tag(&ctx_, MBEDTLS_GCM_ENCRYPT, in.size(), nonce.data(),
                                     nonce.size(), data_or_dummy(aad), aad.size(),
                                     data_or_dummy(in), in.empty() ? scratch_ : out, tag.size(),
                                     tag.data()) == 0
               ? Error::kNone
               : Error::kLibraryFailure;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    if (in.empty() || out != in.data()) {
      // mbedtls_gcm_auth_decrypt compares the tags with an OR of XORs
      // (constant time) and zeroises the output on a mismatch.
      const int rc = mbedtls_gcm_auth_decrypt(
          &ctx_, in.size(), nonce.data(), nonce.size(), data_or_dummy(aad), aad.size(), tag.data(),
          tag.size(), data_or_dummy(in), in.empty() ? scratch_ : out);
      if (rc == MBEDTLS_ERR_GCM_AUTH_FAILED) return Error::kBadTag;
      return rc == 0 ? Error::kNone : Error::kLibraryFailure;
    }
    return open_in_place(nonce, aad, in.size(), tag, out);
  }

 private:
  // open_in_place: gcm.h says that for decryption "the output buffer cannot
  // be the same as input buffer", so the ciphertext goes through
  // mbedtls_gcm_update from a bounce buffer, a multiple of 16 bytes at a
  // time (as mbedtls_gcm_update asks), and the tag mbedtls_gcm_finish
  // computes is compared in constant time here.
  Error open_in_place(Bytes nonce, Bytes aad, std::size_t size, Bytes tag, std::uint8_t* buffer) {
    if (mbedtls_gcm_starts(&ctx_, MBEDTLS_GCM_DECRYPT, nonce.data(), nonce.size(),
                           data_or_dummy(aad), aad.size()) != 0) {
      return Error::kLibraryFailure;
    }
    unsigned char bounce[1024];
    Error result = Error::kNone;
    for (std::size_t done = 0; done < size;) {
      const std::size_t chunk = size - done < sizeof bounce ? size - done : sizeof bounce;
      std::memcpy(bounce, buffer + done, chunk);
      if (mbedtls_gcm_update(&ctx_, chunk, bounce, buffer + done) != 0) {
        result = Error::kLibraryFailure;
        break;
      }
      done += chunk;
    }
    unsigned char computed[16] = {};
    if (result == Error::kNone && mbedtls_gcm_finish(&ctx_, computed, tag.size()) != 0) {
      result = Error::kLibraryFailure;
    }
    if (result == Error::kNone && !constant_time_equal(computed, tag.data(), tag.size())) {
      result = Error::kBadTag;
    }
    secure_wipe(bounce, sizeof bounce);
    secure_wipe(computed, sizeof computed);
    return result;
  }

  mbedtls_gcm_context ctx_;
  unsigned char scratch_[1] = {};  // an output pointer for empty messages
};

}  // namespace

std::unique_ptr<AesCtr> make_mbedtls_ctr() { return std::make_unique<MbedtlsCtr>(); }
std::unique_ptr<AesGcm> make_mbedtls_gcm() { return std::make_unique<MbedtlsGcm>(); }

}  // namespace cryptobench
