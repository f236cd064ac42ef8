// counter_modes.h: CTR and GCM, the AES modes deployed today (TLS 1.3, QUIC,
// IPsec, disk and database encryption), as one interface per mode that a
// backend implements over its library's own API.
//
// As with AesCipher, the public methods validate every argument, here, so
// all backends fail alike; backends implement only the checked operations.
// Objects are not thread-safe: one per thread. `out` may be the same memory
// as `in` (in place) but must not otherwise overlap it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/aes_cipher.h"
#include "kernels/status.h"

namespace cryptobench {

// CtrLimits: how the library's CTR counts. A library that increments only
// the low 32 or 64 bits of the counter block (as RFC 3686 and some IPsec
// code do) is still run with the 128-bit semantics of the interface: the
// base class splits the message where the library's counter would wrap.
struct CtrLimits {
  unsigned counter_bits = 128;  // 32, 64 or 128
};

// GcmLimits: which nonce, tag and key lengths the library accepts. A vector
// outside them is reported as not offered by the library, never as a failure.
struct GcmLimits {
  std::size_t min_nonce = 1;  // bytes; an empty nonce is always an error
  std::size_t max_nonce = std::size_t{1} << 16;
  bool nonce_12_only = false;  // only the 96-bit fast path
  std::size_t min_tag = 4;     // bytes; 16 is always accepted
  // also_tags: bit n set: an n-byte tag (4 <= n < min_tag) is accepted too,
  // for a library that takes exactly SP 800-38D's set beside 12..16 (4 and
  // 8 bytes) and no tag between.
  std::uint32_t also_tags = 0;
  bool key_16 = true, key_24 = true, key_32 = true;

  bool allows_nonce(std::size_t n) const;
  bool allows_tag(std::size_t n) const;
  bool allows_key(std::size_t n) const;
  // describe: "nonces of 1 to 65536 bytes, tags of 4 to 16 bytes, 128/192/256-bit keys"
  // ("tags of 4, 8 or 12 to 16 bytes" with also_tags).
  std::string describe() const;
};

// AesCtr: the keystream is AES of the 16-byte counter block, incremented as
// one 128-bit big-endian number per block (wrapping from 2^128 - 1 to 0);
// encryption and decryption are the same operation, any length, no padding.
class AesCtr {
 public:
  AesCtr() = default;
  virtual ~AesCtr() = default;
  AesCtr(const AesCtr&) = delete;
  AesCtr& operator=(const AesCtr&) = delete;

  std::size_t key_size() const { return key_size_; }
  virtual CtrLimits limits() const { return {}; }

  // set_key: a 16, 24 or 32-byte key.
  Error set_key(Bytes key);
  // crypt: `out` needs in.size() bytes; `counter` is 16 bytes. Returns the
  // bytes written (in.size()).
  Result crypt(Bytes counter, Bytes in, MutableBytes out);

 protected:
  virtual Error schedule_key(Bytes key) = 0;
  // crypt_checked: `size` >= 1 bytes from the counter block `counter`; the
  // message never crosses a wrap of the library's counter_bits.
  virtual Error crypt_checked(const std::uint8_t* counter, const std::uint8_t* in,
                              std::uint8_t* out, std::size_t size) = 0;

 private:
  std::size_t key_size_ = 0;
};

// AesGcm: NIST SP 800-38D. Nonces of any length the library allows (12 bytes
// is the fast path), additional authenticated data, tags of 16 bytes and,
// where the library allows, shorter ones (truncations of the full tag).
class AesGcm {
 public:
  AesGcm() = default;
  virtual ~AesGcm() = default;
  AesGcm(const AesGcm&) = delete;
  AesGcm& operator=(const AesGcm&) = delete;

  std::size_t key_size() const { return key_size_; }
  virtual GcmLimits limits() const { return {}; }

  // set_key: a 16, 24 or 32-byte key the library allows.
  Error set_key(Bytes key);
  // seal: the ciphertext to `out` (in.size() bytes), the tag to `tag` (its
  // size is the tag length). Returns in.size().
  Result seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, MutableBytes tag);
  // open: checks the tag in constant time (the library's own comparison, or
  // constant_time_equal); on a mismatch returns kBadTag with all in.size()
  // bytes of `out` zeroed, so no plaintext is ever handed out. Returns
  // in.size() on success.
  Result open(Bytes nonce, Bytes aad, Bytes in, Bytes tag, MutableBytes out);

 protected:
  virtual Error schedule_key(Bytes key) = 0;
  // seal_checked / open_checked: every length validated against limits();
  // in.size() may be 0. open_checked returns kBadTag on a mismatch and may
  // leave plaintext in `out`: the base class wipes it.
  virtual Error seal_checked(Bytes nonce, Bytes aad, Bytes in, std::uint8_t* out,
                             MutableBytes tag) = 0;
  virtual Error open_checked(Bytes nonce, Bytes aad, Bytes in, Bytes tag, std::uint8_t* out) = 0;

 private:
  Error check(Bytes nonce, std::size_t tag_size) const;
  std::size_t key_size_ = 0;
};

// constant_time_equal: a == b over n bytes, in time independent of where
// they differ.
bool constant_time_equal(const std::uint8_t* a, const std::uint8_t* b, std::size_t n);

// ctr_add: `counter` (16 bytes, big-endian) + blocks, in place, modulo 2^128.
void ctr_add(std::uint8_t* counter, std::uint64_t blocks);

}  // namespace cryptobench
