// grid.h: one benchmark cell (a point of the parameter grid) and its name.
//
// Names are '/'-separated key:value paths, the same scheme in every suite:
//   <scenario>/backend:B/cipher:aes-128-cbc/op:encrypt/size:N/codec:C/pool:P/key:K
// (batch ops add /messages:M after the size; GCM cells add /aad:A, the bytes
// of additional authenticated data, right after the size; CTR cells have no
// aad parameter).
// Google Benchmark appends "/real_time/threads:T". Tools split on '/' and ':';
// --benchmark_filter slices them with regular expressions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "kernels/aes_cipher.h"
#include "kernels/text_codec.h"

namespace cryptobench::bench {

// op: encrypt = plaintext -> ciphertext -> text; decrypt = text -> ciphertext
// -> plaintext (padding checked; GCM: the tag checked, a mismatch an error); roundtrip = the
// seed-000 operation: encrypt, encode, decode, decrypt and compare with the plaintext; encrypt-log
// = encrypt, then format and write a log line with the Base64 ciphertext (seed 004's slow version);
// set-key = the key setup alone (derivation, if any, and both key schedules); encrypt-batch =
// `messages` messages of `size` bytes, each with its own IV, in one AesCipher::encrypt_batch call
// (the multi-buffer API); roundtrip-batch = roundtrip of `messages` messages whose encryption is
// one encrypt_batch call. Batch ops count every message as an operation in ops_per_ms, items and
// bytes, and per message in the allocation counters; their time per iteration is per batch.
enum class Op {
  kEncrypt,
  kDecrypt,
  kRoundtrip,
  kEncryptLog,
  kSetKey,
  kEncryptBatch,
  kRoundtripBatch
};
// key: cached = one key schedule per thread; per-op = a new key schedule on
// every operation (the seeds' Java and Go programs); hmac-sha256 = a key
// derived per operation as HMAC-SHA256(secret, salt) from a pre-computed
// 32-byte secret and a per-operation salt; pbkdf2-sha256-N = a key derived
// per operation with PBKDF2-HMAC-SHA256, N iterations (seed 002).
enum class KeyHandling { kCached, kPerOp, kHmac, kPbkdf2 };
// payload: random bytes of `size`, or the seed-000 message (a random
// 100-character alphanumeric string followed by the decimal loop counter).
enum class Payload { kRandom, kSeed000Message };

struct Cell {
  std::string scenario = "grid";
  std::string backend;
  Mode mode = Mode::kCbc;
  std::size_t key_bytes = 16;
  Op op = Op::kEncrypt;
  std::size_t size = 0;  // plaintext bytes (seed000: the fixed 100-character prefix)
  std::size_t aad = 0;   // GCM only: additional authenticated data bytes
  Encoding codec = Encoding::kNone;
  bool pool = false;
  KeyHandling key = KeyHandling::kCached;
  unsigned pbkdf2_iterations = 0;  // KeyHandling::kPbkdf2 only
  int threads = 1;
  Payload payload = Payload::kRandom;
  std::size_t messages = 1;  // batch ops: messages per encrypt_batch call
  // round: the paired design's round (1..R), named "/round:R" (0: none).
  // Each round measures every benchmark once, a class's backends together.
  int round = 0;

  bool batch() const { return op == Op::kEncryptBatch || op == Op::kRoundtripBatch; }

  // name: the path without Google Benchmark's "/real_time/threads:T" suffix.
  std::string name() const;
  // full_name: as Google Benchmark reports it.
  std::string full_name() const;
};

std::string_view op_name(Op op);
std::string key_handling_name(KeyHandling key, unsigned pbkdf2_iterations);
std::string cipher_name(Mode mode, std::size_t key_bytes);  // "aes-128-cbc"

}  // namespace cryptobench::bench
