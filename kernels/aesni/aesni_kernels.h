// aesni_kernels.h: the hand-written AES primitives. Only the kernel files
// are compiled with AES instructions; callers check cpu_features() first.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cryptobench::aesni {

inline constexpr int kMaxRounds = 14;

// KeySchedule: encryption round keys, and the decryption round keys of the
// Equivalent Inverse Cipher (FIPS-197 section 5.3.5) that AESDEC expects.
struct KeySchedule {
  alignas(16) std::uint8_t enc[kMaxRounds + 1][16];
  alignas(16) std::uint8_t dec[kMaxRounds + 1][16];
  int rounds = 0;  // 10, 12 or 14
};

// expand_key: key_size is 16, 24 or 32 (validated by the caller).
void expand_key(const std::uint8_t* key, std::size_t key_size, KeySchedule* schedule);

// CbcLane: one message of a multi-buffer CBC encryption: `blocks` whole
// blocks from `in`, then, when `final` is not null, that one block (the
// padded end of the message); ciphertext to `out`. All lanes of one call use
// schedules with the same number of rounds.
struct CbcLane {
  const KeySchedule* schedule;
  const std::uint8_t* iv;
  const std::uint8_t* in;
  std::size_t blocks;
  const std::uint8_t* final;
  std::uint8_t* out;
};

// BlockKernels: the modes at one register width. In place allowed.
struct BlockKernels {
  void (*ecb_encrypt)(const KeySchedule&, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t blocks);
  void (*ecb_decrypt)(const KeySchedule&, const std::uint8_t* in, std::uint8_t* out,
                      std::size_t blocks);
  // cbc_encrypt: `blocks` blocks from `in`, then the block `final` if not null.
  void (*cbc_encrypt)(const KeySchedule&, const std::uint8_t* iv, const std::uint8_t* in,
                      std::uint8_t* out, std::size_t blocks, const std::uint8_t* final);
  void (*cbc_decrypt)(const KeySchedule&, const std::uint8_t* iv, const std::uint8_t* in,
                      std::uint8_t* out, std::size_t blocks);
  // decrypt_pkcs7: ECB (iv == nullptr) or CBC decryption with the PKCS#7
  // check, in constant time: returns the padding length (1..16), or 0 when
  // the padding is invalid, in which case `out` has been written with zeros.
  std::size_t (*decrypt_pkcs7)(const KeySchedule&, const std::uint8_t* iv, const std::uint8_t* in,
                               std::uint8_t* out, std::size_t blocks);
  // cbc_encrypt_lanes: many independent CBC encryptions interleaved.
  void (*cbc_encrypt_lanes)(const CbcLane* messages, std::size_t count);
  // expand_keys: n key schedules at once (what expand_key does for each),
  // interleaved so their latency chains overlap.
  void (*expand_keys)(const std::uint8_t* const* keys, std::size_t key_size,
                      KeySchedule* const* out, std::size_t n);
  // ctr_crypt: CTR over `bytes` >= 1 (any length), the keystream from the
  // 16-byte big-endian counter block `counter`, incremented modulo 2^128.
  void (*ctr_crypt)(const KeySchedule&, const std::uint8_t* counter, const std::uint8_t* in,
                    std::uint8_t* out, std::size_t bytes);
};

// xmm_kernels: AES-NI on 128-bit registers (needs AES-NI and SSE4.1).
const BlockKernels& xmm_kernels();

}  // namespace cryptobench::aesni
