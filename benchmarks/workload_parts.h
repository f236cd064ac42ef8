// workload_parts.h: what the three workload families (workload.h) share: the
// inputs, the output buffers and their pool semantics, the key handling, the
// timed steps with the one roundtrip tail, and the one verifier. What runs in
// the timed loop is inline here; the rest is in workload_parts.cc.
#pragma once

#include <benchmark/benchmark.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "benchmarks/workload.h"

namespace cryptobench::bench {

using Rng = std::mt19937_64;

// kGcmTagBytes: the GCM cells' tag, the full 16 bytes TLS and QUIC send.
constexpr std::size_t kGcmTagBytes = 16;

inline Bytes as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// keep: the operation's final output stays observable (its size and first
// byte), so the compiler cannot drop the work that made it.
template <typename T>
inline void keep(std::size_t size, const T& first) {
  benchmark::DoNotOptimize(size);
  benchmark::DoNotOptimize(first);
}

// MessageInput: the plaintext of one message slot.
struct MessageInput {
  std::vector<std::uint8_t> random;  // Payload::kRandom
  std::vector<char> buffer;          // seed-000, pool on: the prefix + room for the counter
  std::string fresh;                 // seed-000, pool off: built per op
};

// Inputs: the key, the IV and the plaintexts.
class Inputs {
 public:
  // Draws from `rng`; throws when the payload does not fit the op.
  Inputs(const Cell& cell, Rng& rng);

  const std::vector<std::uint8_t>& key() const { return key_; }
  const std::vector<std::uint8_t>& iv() const { return iv_; }
  // single: the message of the single-message ops.
  MessageInput& single() { return single_; }
  const MessageInput& single() const { return single_; }
  // draw_message: a batch message's own IV and plaintext slot (the seed's
  // messages share its fixed IV; random ones get their own).
  void draw_message(Rng& rng, std::vector<std::uint8_t>& iv, MessageInput& message) const;

  // plaintext: message `counter` of `message`'s slot: its random bytes, or
  // the seed-000 message for the counter (pool off: a new string, as the
  // seed's Java and Go code make; pool on: written into the slot's buffer).
  Bytes plaintext(MessageInput& message, std::uint64_t counter) const {
    if (cell_.payload == Payload::kRandom) return message.random;
    if (!cell_.pool) {
      message.fresh = prefix_ + std::to_string(counter);
      return as_bytes(message.fresh);
    }
    char* const start = message.buffer.data();
    char* const end = std::to_chars(start + cell_.size, start + message.buffer.size(), counter).ptr;
    return as_bytes({start, static_cast<std::size_t>(end - start)});
  }
  // message_bytes: the plaintext size of message `counter`.
  std::size_t message_bytes(std::uint64_t counter) const;
  // max_plaintext: the longest plaintext any message has.
  std::size_t max_plaintext() const;

 private:
  const Cell& cell_;
  std::vector<std::uint8_t> key_, iv_;
  std::string prefix_;  // Payload::kSeed000Message
  MessageInput single_;
};

// Buffers: the outputs one message's operation writes.
struct Buffers {
  std::vector<std::uint8_t> ciphertext;
  std::string text;
  std::vector<std::uint8_t> decoded;
  std::vector<std::uint8_t> plaintext;
};

// OutputBuffers: the pool semantics of Buffers. Only the buffers the op
// writes, sized for its largest operation, value-initialised as Go's make()
// and Java's new byte[] are.
class OutputBuffers {
 public:
  OutputBuffers(const Cell& cell, std::size_t max_plaintext);
  // at_start: when the workload is made; pool on: the buffers every
  // operation reuses.
  void at_start(Buffers& b) const {
    if (pool_) allocate(b);
  }
  // per_op: at the start of an operation; pool off: its own new buffers.
  void per_op(Buffers& b) const {
    if (!pool_) allocate(b);
  }

 private:
  void allocate(Buffers& b) const {
    if (ciphertext_ != 0) b.ciphertext = std::vector<std::uint8_t>(ciphertext_);
    if (text_ != 0) b.text = std::string(text_, '\0');
    if (decoded_ != 0) b.decoded = std::vector<std::uint8_t>(decoded_);
    if (plaintext_ != 0) b.plaintext = std::vector<std::uint8_t>(plaintext_);
  }

  bool pool_;
  std::size_t ciphertext_ = 0, text_ = 0, decoded_ = 0, plaintext_ = 0;  // 0: not written
};

// Keys: the key handling: the cached key schedule (or pooled context), and
// per-operation keys, derived or not.
class Keys {
 public:
  // Keys the cipher with `key`; draws the derivation secret and salt from
  // `rng`. Throws when the key handling does not fit the cell.
  Keys(const Cell& cell, const AesBackend& backend, Bytes key, Rng& rng);

  // cipher: the cached key's cipher, or the pooled context.
  AesCipher& cipher() const { return *cipher_; }
  // for_op: the cipher operation `i` runs under, keyed as the key handling
  // says; nullptr on failure, with `error` saying why.
  AesCipher* for_op(std::uint64_t i, std::string& error) {
    if (cell_.key == KeyHandling::kCached) return cipher_.get();
    return rekey(i, error);
  }
  // rekey: operation `i`'s key setup: pool off, a new cipher context (and
  // deriver); the key derived, if derived keys; then the key schedules.
  AesCipher* rekey(std::uint64_t i, std::string& error);

  bool derived() const { return derived(cell_.key); }
  static bool derived(KeyHandling key) {
    return key == KeyHandling::kHmac || key == KeyHandling::kPbkdf2;
  }
  const std::vector<std::uint8_t>& secret() const { return secret_; }
  // salt_for: operation i's salt: 8 random bytes, then i.
  void salt_for(std::uint64_t i, std::uint8_t salt[16]) const;

 private:
  const Cell& cell_;
  const AesBackend& backend_;
  const Bytes key_;
  std::unique_ptr<AesCipher> cipher_;        // cached key, or pooled context
  std::unique_ptr<AesCipher> fresh_cipher_;  // pool off, key per op: this op's context
  std::unique_ptr<KeyDeriver> deriver_;      // derived keys: pooled deriver
  std::unique_ptr<KeyDeriver> fresh_deriver_;
  std::vector<std::uint8_t> secret_;       // derived keys: the pre-computed secret
  std::vector<std::uint8_t> salt_prefix_;  // 8 random bytes; the op number follows
  std::vector<std::uint8_t> derived_key_;
};

// failed: sets `error` to "<step>: <what e means>"; returns false.
bool failed(std::string& error, std::string_view step, Error e);

// Steps: the timed steps after the encryption, under the backend's codec.
// Each returns false on failure, with `error` saying why.
class Steps {
 public:
  Steps(const Cell& cell, const AesBackend& backend, std::string& error)
      : codec_(cell.codec), text_codec_(backend.codec()), error_(error) {}

  // encode: ciphertext -> text (into b.text).
  bool encode(Bytes ciphertext, Buffers& b, std::string_view& text) const {
    const Result r = text_codec_.encode(codec_, ciphertext, {b.text.data(), b.text.size()});
    if (!r.ok()) return failed(error_, "encode", r.error);
    text = std::string_view(b.text.data(), r.size);
    return true;
  }
  // decode: text -> ciphertext (into b.decoded).
  bool decode(std::string_view text, Buffers& b, Bytes& ciphertext) const {
    const Result r = text_codec_.decode(codec_, text, b.decoded);
    if (!r.ok()) return failed(error_, "decode", r.error);
    ciphertext = Bytes(b.decoded).first(r.size);
    return true;
  }
  // decrypt: ciphertext -> plaintext (into b.plaintext), PKCS#7 checked;
  // `plaintext_size` gets its length.
  bool decrypt(AesCipher& cipher, Bytes iv, Bytes ciphertext, Buffers& b,
               std::size_t& plaintext_size) const {
    const Result r = cipher.decrypt(Padding::kPkcs7, iv, ciphertext, b.plaintext);
    if (!r.ok()) return failed(error_, "decrypt", r.error);
    plaintext_size = r.size;
    return true;
  }
  // roundtrip_tail: the end of every roundtrip, after the encryption:
  // encode, decode (codec none: neither), decrypt, and compare with `plain`.
  bool roundtrip_tail(AesCipher& cipher, Bytes iv, Bytes ciphertext, Bytes plain, Buffers& b,
                      std::size_t& plaintext_size) const {
    if (codec_ != Encoding::kNone) {
      std::string_view text;
      if (!encode(ciphertext, b, text) || !decode(text, b, ciphertext)) return false;
    }
    if (!decrypt(cipher, iv, ciphertext, b, plaintext_size)) return false;
    if (plaintext_size != plain.size() ||
        std::memcmp(b.plaintext.data(), plain.data(), plain.size()) != 0) {
      error_ = "roundtrip: decrypted text differs from the plaintext";
      return false;
    }
    keep(plaintext_size, b.plaintext[0]);
    return true;
  }

 private:
  const Encoding codec_;
  // The backend's codec, looked up once: codec() is a virtual call (and for
  // some backends a function-local static's guard) on every operation.
  const TextCodec& text_codec_;
  std::string& error_;
};

// Verifier: what the reference backend computes for the same key, IV and
// plaintext, and the messages that report a difference.
class Verifier {
 public:
  Verifier(const Cell& cell, const AesBackend& reference, const Keys& keys, Bytes key);

  // key: the key operation `i` ran under, as the reference derives it.
  // Throws std::runtime_error when the reference fails.
  std::vector<std::uint8_t> key(std::uint64_t i) const;
  // ciphertext: the reference's PKCS#7 encryption. Throws as key() does.
  std::vector<std::uint8_t> ciphertext(Bytes plain, Bytes key, Bytes iv) const;
  // text: `ciphertext` in the cell's codec, as the project's codec writes it.
  std::string text(Bytes ciphertext) const;

  // same: equal sizes and bytes.
  static bool same(Bytes actual, Bytes expected) {
    return actual.size() == expected.size() &&
           std::memcmp(actual.data(), expected.data(), expected.size()) == 0;
  }
  // failure: "verification failed: <what> (<backend> vs reference <name>)".
  std::string failure(std::string_view what) const;

 private:
  const Cell& cell_;
  const AesBackend& reference_;
  const Keys& keys_;
  const Bytes key_;
};

// The four families; `rng` has drawn nothing yet.
std::unique_ptr<Workload> make_message_workload(const Cell& cell, const AesBackend& backend,
                                                const AesBackend& reference, Rng& rng);
std::unique_ptr<Workload> make_batch_workload(const Cell& cell, const AesBackend& backend,
                                              const AesBackend& reference, Rng& rng);
std::unique_ptr<Workload> make_counter_mode_workload(const Cell& cell, const AesBackend& backend,
                                                     const AesBackend& reference, Rng& rng);
std::unique_ptr<Workload> make_key_setup_workload(const Cell& cell, const AesBackend& backend,
                                                  const AesBackend& reference, Rng& rng);

}  // namespace cryptobench::bench
