// gcm_kernels.h: the hand-written AES-GCM (NIST SP 800-38D) at each register
// width. GHASH multiplies by carry-less multiplication with aggregated
// reduction: the blocks of a group are multiplied by H^n..H^1, their 256-bit
// products summed, and the sum reduced once (Gueron and Kounavis, "Intel
// Carry-Less Multiplication Instruction and its Usage for Computing the GCM
// Mode", rev. 2.02, 2014). The AES rounds of one group of counter blocks are
// interleaved with the GHASH of the previous group's ciphertext (seal) or of
// the group's own ciphertext (open), so both kinds of unit stay busy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/aesni/aesni_kernels.h"

namespace cryptobench::aesni {

// The most powers of H a group uses: 32 blocks (8 zmm registers).
inline constexpr int kGcmMaxPowers = 32;

// GcmKey: the per-key GHASH context, H^32..H^1 (powers[32 - k] is H^k), each
// byte-reflected and multiplied by x^-1 so the carry-less product needs no
// shift before the reduction. Only H^1..H^ready are computed: a key gets
// more powers when a message first needs them, so a new key per short
// message (seed 000) does not pay for 32. Secret: wipe it with the key
// schedule.
struct GcmKey {
  alignas(64) std::uint8_t powers[kGcmMaxPowers][16];
  int ready = 0;
};

// GcmKernels: GCM at one register width. `init` computes H^1 for a new
// key; `crypt` seals (encrypt) or opens: `size` bytes from `in` to `out` (in
// place allowed, no other overlap), and the full 16-byte tag computed over
// the ciphertext to `tag`; the caller compares it for open. It adds the key
// powers the lengths need. Lengths are validated by the caller (nonce
// 1..2^16).
struct GcmKernels {
  void (*init)(const KeySchedule&, GcmKey*);
  void (*crypt)(const KeySchedule&, GcmKey*, bool encrypt, const std::uint8_t* nonce,
                std::size_t nonce_size, const std::uint8_t* aad, std::size_t aad_size,
                const std::uint8_t* in, std::uint8_t* out, std::size_t size, std::uint8_t* tag);
};

// xmm_gcm_kernels: AES-NI and PCLMULQDQ on 128-bit registers, 8 blocks a step.
const GcmKernels& xmm_gcm_kernels();

}  // namespace cryptobench::aesni

namespace cryptobench::vaes {

// ymm_gcm_kernels: VAES and VPCLMULQDQ on 256-bit registers, 16 blocks a
// step (needs AVX2 too); messages shorter than a step run the xmm code.
const aesni::GcmKernels& ymm_gcm_kernels();
// zmm_gcm_kernels: the same on 512-bit registers, 32 blocks a step (needs
// AVX-512F and AVX-512BW).
const aesni::GcmKernels& zmm_gcm_kernels();

}  // namespace cryptobench::vaes
