// gcrypt_counter_modes.cc: each object keeps one gcry_cipher handle per AES
// key size (the algorithm is fixed when a handle is opened), keyed by
// set_key (for GCM, gcry_cipher_setkey also derives the GHASH key); a call
// only sets the counter block (gcry_cipher_setctr) or the nonce
// (gcry_cipher_setiv, which resets the GCM state but keeps the key).
#include "kernels/gcrypt/gcrypt_counter_modes.h"

#include <gcrypt.h>

#include <array>

namespace cryptobench {
namespace {

constexpr int kAlgorithms[3] = {GCRY_CIPHER_AES128, GCRY_CIPHER_AES192, GCRY_CIPHER_AES256};

// KeyedHandle: the handle of the current key size, keyed.
class KeyedHandle {
 public:
  explicit KeyedHandle(int mode) : mode_(mode) {}
  ~KeyedHandle() {
    for (gcry_cipher_hd_t h : handles_) gcry_cipher_close(h);  // wipes the key schedule
  }
  KeyedHandle(const KeyedHandle&) = delete;
  KeyedHandle& operator=(const KeyedHandle&) = delete;

  Error set_key(Bytes key) {
    current_ = nullptr;
    const std::size_t index = (key.size() - 16) / 8;
    // A handle of another key size would keep the previous key's schedule.
    for (std::size_t k = 0; k < handles_.size(); ++k) {
      if (k != index && handles_[k] != nullptr) {
        gcry_cipher_close(handles_[k]);
        handles_[k] = nullptr;
      }
    }
    gcry_cipher_hd_t& h = handles_[index];
    if (h == nullptr && gcry_cipher_open(&h, kAlgorithms[index], mode_, 0) != 0) {
      h = nullptr;
      return Error::kLibraryFailure;
    }
    if (gcry_cipher_setkey(h, key.data(), key.size()) != 0) return Error::kLibraryFailure;
    current_ = h;
    return Error::kNone;
  }
  gcry_cipher_hd_t get() const { return current_; }

 private:
  int mode_;
  std::array<gcry_cipher_hd_t, 3> handles_ = {};  // by key size 16/24/32
  gcry_cipher_hd_t current_ = nullptr;            // the keyed one
};

// run_cipher: gcry_cipher_encrypt/decrypt, in place (in = NULL, as the manual
// asks: in and out may not otherwise overlap) when out == in.
gcry_error_t run_cipher(gcry_cipher_hd_t h, bool encrypting, const std::uint8_t* in,
                        std::uint8_t* out, std::size_t size) {
  const void* source = in == out ? nullptr : in;
  const std::size_t source_size = in == out ? 0 : size;
  return encrypting ? gcry_cipher_encrypt(h, out, size, source, source_size)
                    : gcry_cipher_decrypt(h, out, size, source, source_size);
}

class GcryptCtr final : public AesCtr {
  // libgcrypt's CTR adds one to the whole 16-byte block as a big-endian
  // number (cipher-ctr.c and the AES-NI/VAES ctr_enc bulk routines carry
  // through all 128 bits), so the 128-bit default of limits() holds.
 protected:
  Error schedule_key(Bytes key) override { return handle_.set_key(key); }
  Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t size) override {
    gcry_cipher_hd_t h = handle_.get();
    if (h == nullptr || gcry_cipher_setctr(h, counter, kAesBlockSize) != 0 ||
        run_cipher(h, true, in, out, size) != 0) {
      return Error::kLibraryFailure;
    }
    return Error::kNone;
  }

 private:
  KeyedHandle handle_{GCRY_CIPHER_MODE_CTR};
};

class GcryptGcm final : public AesGcm {
 public:
  // libgcrypt 1.10 cipher-gcm.c: _gcry_cipher_gcm_initiv refuses only an
  // empty IV (any other length is hashed, up to 2^64 bits); gettag and
  // checktag take is_tag_length_valid's SP 800-38D lengths, 16, 15, 14, 13,
  // 12, 8 and 4 bytes, and no other; GCRY_CIPHER_AES128/192/256 give every
  // key size.
  GcmLimits limits() const override {
    return {.min_nonce = 1, .min_tag = 12, .also_tags = 1u << 4 | 1u << 8};
  }

 protected:
  Error schedule_key(Bytes key) override { return handle_.set_key(key); }
  Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                     MutableBytes tag) override {
    gcry_cipher_hd_t h = handle_.get();
    if (h == nullptr) return Error::kLibraryFailure;
    if (!start(h, nonce, aad) ||
        (!in.empty() && run_cipher(h, true, in.data(), out, in.size()) != 0) ||
        gcry_cipher_gettag(h, tag.data(), tag.size()) != 0) {
      return failed(h);
    }
    return Error::kNone;
  }
  Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) override {
    gcry_cipher_hd_t h = handle_.get();
    if (h == nullptr) return Error::kLibraryFailure;
    if (!start(h, nonce, aad) ||
        (!in.empty() && run_cipher(h, false, in.data(), out, in.size()) != 0)) {
      return failed(h);
    }
    // gcry_cipher_checktag compares with buf_eq_const (constant time) and
    // returns GPG_ERR_CHECKSUM on a mismatch.
    const gcry_error_t checked = gcry_cipher_checktag(h, tag.data(), tag.size());
    if (checked == 0) return Error::kNone;
    if (gcry_err_code(checked) == GPG_ERR_CHECKSUM) return Error::kBadTag;
    return failed(h);
  }

 private:
  // start: the nonce (setiv resets the message state), then the associated
  // data, which GCM takes before any data.
  static bool start(gcry_cipher_hd_t h, Bytes nonce, Bytes aad) {
    return gcry_cipher_setiv(h, nonce.data(), nonce.size()) == 0 &&
           (aad.empty() || gcry_cipher_authenticate(h, aad.data(), aad.size()) == 0);
  }
  // failed: a library error; the reset (which keeps the key and GHASH key)
  // leaves no half-hashed input for the next message.
  static Error failed(gcry_cipher_hd_t h) {
    (void)gcry_cipher_reset(h);
    return Error::kLibraryFailure;
  }

  KeyedHandle handle_{GCRY_CIPHER_MODE_GCM};
};

}  // namespace

std::unique_ptr<AesCtr> make_gcrypt_ctr() { return std::make_unique<GcryptCtr>(); }
std::unique_ptr<AesGcm> make_gcrypt_gcm() { return std::make_unique<GcryptGcm>(); }

}  // namespace cryptobench
