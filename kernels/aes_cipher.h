// aes_cipher.h: the one interface every AES backend implements.
//
// An AesCipher is bound to a mode (ECB or CBC) when created; set_key computes
// the encryption and decryption key schedules for that mode. encrypt/decrypt
// write into caller-provided buffers; `out` may be the same memory as `in`
// (in place) but must not otherwise overlap it. Objects are not thread-safe:
// use one per thread.
//
// The public methods validate arguments and apply PKCS#7 once, here, so every
// backend gets identical error behaviour; backends implement only the three
// protected block primitives.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/pkcs7.h"
#include "kernels/status.h"

namespace cryptobench {

// The modes a backend may offer. AesCipher serves the block modes (ECB, CBC);
// CTR and GCM have their own interfaces (counter_modes.h).
enum class Mode { kEcb, kCbc, kCtr, kGcm };
enum class Padding { kNone, kPkcs7 };

using Bytes = std::span<const std::uint8_t>;
using MutableBytes = std::span<std::uint8_t>;
using Block = std::array<std::uint8_t, kAesBlockSize>;

std::string_view mode_name(Mode mode);  // "ecb", "cbc", "ctr", "gcm"
bool is_block_mode(Mode mode);          // ECB or CBC: an AesCipher mode

class AesCipher;

// BatchMessage: one message of AesCipher::encrypt_batch.
struct BatchMessage {
  Bytes iv;
  Bytes in;
  MutableBytes out;
  AesCipher* key = nullptr;  // this message's cipher; nullptr: the batch cipher's key
  Result result;             // written by encrypt_batch
  // new_key: when not empty, `key` is first set to it, as key->set_key()
  // would (the batch's new keys are scheduled together where the backend
  // can); it must then be as long as the batch cipher's key.
  Bytes new_key = {};
};

class AesCipher {
 public:
  explicit AesCipher(Mode mode) : mode_(mode) {}
  virtual ~AesCipher() = default;
  AesCipher(const AesCipher&) = delete;
  AesCipher& operator=(const AesCipher&) = delete;

  Mode mode() const { return mode_; }
  std::size_t key_size() const { return key_size_; }

  // set_key: a 16, 24 or 32-byte key; computes both key schedules.
  Error set_key(Bytes key);

  // encrypt: with kPkcs7, `out` needs pkcs7_padded_size(in.size()) bytes;
  // with kNone, in.size() must be a multiple of 16 and `out` that large.
  // `iv` is 16 bytes for CBC and empty for ECB. Returns bytes written.
  Result encrypt(Padding padding, Bytes iv, Bytes in, MutableBytes out);

  // decrypt: in.size() a multiple of 16 (and not 0 with kPkcs7); `out` needs
  // in.size() bytes. With kPkcs7, on a bad padding the whole output is wiped
  // and kBadPadding returned, so no plaintext is ever handed out. The padding
  // check itself is constant-time; whether the whole call is depends on the
  // backend's decrypt_padded (the default wipes only on failure).
  // Returns the plaintext length.
  Result decrypt(Padding padding, Bytes iv, Bytes in, MutableBytes out);

  // encrypt_batch: encrypts every message as encrypt() would, each with its
  // own IV, under this cipher's key or the message's own `key` (a cipher of
  // the same backend, mode and key size: keyed, or given `new_key`). This
  // cipher must be keyed: its key size is the batch's. Every message is
  // checked first: if any is invalid, nothing is keyed or encrypted, each
  // result says what is wrong, and the first error is returned. Should a
  // library throw while keying, the ciphers given new keys are left unkeyed. Backends that can
  // interleave independent messages (the hand-written ones, for CBC) do; the others encrypt one
  // message after another.
  Error encrypt_batch(Padding padding, std::span<BatchMessage> messages);

 protected:
  // schedule_key: key.size() is already validated.
  virtual Error schedule_key(Bytes key) = 0;
  // encrypt_blocks / decrypt_blocks: `blocks` >= 1 whole blocks, in place
  // allowed. `iv` is the CBC chaining value (nullptr for ECB); the base class
  // carries it across calls, so backends need not update it.
  virtual Error encrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                               std::size_t blocks) = 0;
  virtual Error decrypt_blocks(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                               std::size_t blocks) = 0;
  // encrypt_with_final: `blocks` (maybe 0) whole blocks from `in`, then the
  // block `final` (the padded end), chained as one message. The default makes
  // two encrypt_blocks calls; a backend may keep one chain instead.
  virtual Error encrypt_with_final(const std::uint8_t* iv, const std::uint8_t* in,
                                   std::uint8_t* out, std::size_t blocks,
                                   const std::uint8_t* final);
  // decrypt_padded: decrypts and checks PKCS#7. Returns the padding length
  // (1..16) as the size, or kBadPadding with `out` holding no plaintext. The
  // default decrypts, checks the last block in constant time, and wipes on
  // failure (so a failure takes longer); a backend may fuse both into one
  // pass that does the same work either way.
  virtual Result decrypt_padded(const std::uint8_t* iv, const std::uint8_t* in, std::uint8_t* out,
                                std::size_t blocks);
  // schedule_keys: schedule_key() for each of `ciphers` (all of this
  // cipher's dynamic type) with the matching key, all of one valid length.
  // The default schedules them one by one.
  virtual Error schedule_keys(std::span<AesCipher* const> ciphers, std::span<const Bytes> keys);
  // encrypt_checked_batch: every message is valid (a null `key` means this
  // cipher). The default encrypts them one by one.
  virtual void encrypt_checked_batch(Padding padding, std::span<BatchMessage> messages);

 private:
  Error check_iv(Bytes iv) const;
  static Error fail_all(std::span<BatchMessage> messages, Error e);

  Mode mode_;
  std::size_t key_size_ = 0;  // 0 until a key is set
};

}  // namespace cryptobench
