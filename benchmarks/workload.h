// workload.h: one thread's view of a benchmark cell: its inputs, the timed
// operation, and the check of its last output against a reference backend.
//
// Pool semantics (the `pool` axis):
//   off: every operation allocates its output buffers, as idiomatic code that
//        returns fresh vectors/strings does (Go's make/EncodeToString, Java's
//        doFinal); with key:per-op it also creates its cipher context, as Go's
//        aes.NewCipher does.
//   on:  buffers and the cipher context belong to the thread and are reused;
//        key:per-op re-keys that context. No steady-state heap allocation
//        except what a library's API forces.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/grid.h"
#include "kernels/backend.h"

namespace cryptobench::bench {

class Workload {
 public:
  // Throws std::runtime_error when the inputs cannot be prepared.
  Workload(const Cell& cell, const AesBackend& backend, const AesBackend& reference,
           std::uint64_t seed);

  // run: the timed operation number `i`. False on any failure (see error()).
  bool run(std::uint64_t i);
  const std::string& error() const { return error_; }

  // verify: after the loop; "" when the last operation's outputs match what
  // the reference backend computes for the same input.
  std::string verify() const;

  // plaintext_bytes: bytes of plaintext processed by iteration `i` (all its
  // messages for batch ops).
  std::size_t plaintext_bytes(std::uint64_t i) const;
  // messages_per_iteration: 1, or the batch size.
  std::size_t messages_per_iteration() const { return cell_.batch() ? cell_.messages : 1; }

  // corrupt_last_output: changes one byte of the final output (tests of
  // verification only).
  void corrupt_last_output();

 private:
  struct Buffers {
    std::vector<std::uint8_t> ciphertext;
    std::string text;
    std::vector<std::uint8_t> decoded;
    std::vector<std::uint8_t> plaintext;
  };

  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };

  // One message of a batch op, with everything it owns.
  struct Slot {
    std::vector<std::uint8_t> iv;
    std::vector<std::uint8_t> random_plaintext;
    std::vector<char> message_buffer;  // seed-000 message, pool on
    std::string message;               // seed-000 message, pool off
    Bytes plain;                       // this iteration's plaintext
    Buffers buffers;
    std::unique_ptr<AesCipher> cipher;  // key:per-op: this message's own key schedule
    std::size_t plaintext_size = 0;     // what its decryption returned
  };

  bool fail(std::string message);
  Bytes payload(std::uint64_t i);  // the plaintext of operation i
  Bytes seed000_message(std::uint64_t counter, std::vector<char>& buffer, std::string& fresh);
  std::size_t message_bytes(std::uint64_t counter) const;
  bool run_batch(std::uint64_t i);
  std::string verify_batch() const;
  void allocate(Buffers& b) const;
  // rekey: the per-operation key handling; points *cipher at the keyed cipher.
  bool rekey(std::uint64_t i, AesCipher** cipher);
  bool write_log_line(std::string_view text);
  void salt_for(std::uint64_t i, std::uint8_t salt[16]) const;
  // reference_key / reference_ciphertext: what the reference backend derives
  // and encrypts for operation i, for verification.
  std::vector<std::uint8_t> reference_key(std::uint64_t i) const;
  std::vector<std::uint8_t> reference_ciphertext(Bytes plain, Bytes key) const;
  std::vector<std::uint8_t> reference_ciphertext(Bytes plain, Bytes key, Bytes iv) const;

  const Cell cell_;
  const AesBackend& backend_;
  const AesBackend& reference_;
  std::vector<std::uint8_t> key_, iv_;
  std::vector<std::uint8_t> random_plaintext_;  // Payload::kRandom
  std::string message_prefix_;                  // Payload::kSeed000Message
  std::string message_;                         // pool off: built per op
  std::vector<char> message_buffer_;            // pool on: prefix + room for the counter
  std::vector<std::uint8_t> input_ciphertext_;  // op decrypt: prepared by the reference
  std::string input_text_;
  std::unique_ptr<AesCipher> cipher_;        // cached key, or pooled context
  std::unique_ptr<AesCipher> fresh_cipher_;  // pool off, key per op: this op's context
  std::unique_ptr<KeyDeriver> deriver_;      // derived keys: pooled deriver
  std::unique_ptr<KeyDeriver> fresh_deriver_;
  std::vector<std::uint8_t> secret_;       // derived keys: the pre-computed secret
  std::vector<std::uint8_t> salt_prefix_;  // 8 random bytes; the op number follows
  std::vector<std::uint8_t> derived_key_;
  std::unique_ptr<std::FILE, FileCloser> log_;  // op encrypt-log: an anonymous temp file
  std::uint64_t log_bytes_ = 0;
  Buffers buffers_;
  std::vector<Slot> slots_;          // batch ops
  std::vector<BatchMessage> batch_;  // batch ops: the encrypt_batch argument
  Bytes last_plain_;
  AesCipher* last_cipher_ = nullptr;
  std::uint64_t last_op_ = 0;
  std::size_t ciphertext_size_ = 0;
  std::size_t plaintext_size_ = 0;
  std::size_t text_size_ = 0;
  std::size_t last_plaintext_size_ = 0;  // what the last decryption returned
  std::string error_;
};

}  // namespace cryptobench::bench
