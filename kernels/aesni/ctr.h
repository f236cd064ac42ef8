// ctr.h: AES-CTR over a register width T (register_traits.h): the counter
// block is one 128-bit big-endian number, incremented per block and wrapping
// modulo 2^128 (NIST SP 800-38A, appendix B.1, with m = 128).
//
// Why this shape:
// - Every block is independent, so kGroup registers (8, 16 or 32 blocks)
//   go through the rounds together, as in ECB.
// - The step's first counter block stays big-endian in a vector register
//   (`first`) from step to step. While no last byte of the step, nor the
//   next step's first, passes 255, each register's blocks are `first` plus
//   a constant added to their last byte alone (a 32-bit add whose increment
//   has only its top byte set): one vector add per register, no byte swap,
//   nothing moved from integer registers. Once in 256 / (blocks a step)
//   steps the last byte carries: that step swaps `first` to little-endian
//   and adds each block's offset with 64-bit adds, and, once in 2^64 blocks
//   (and at the wrap of 2^128), writes its blocks one by one from the scalar
//   counter words (high, low), which are kept beside.
//   On a Zen 4 class CPU (2 VAESENC ymm a cycle, latency 4), AES-128 at
//   16 KiB runs at about 90% of the VAESENC ymm bound (0.156 cycles/B),
//   against ECB's 95% on the same run; the previous shape, which rebuilt
//   every step's blocks from the scalar words (moved into a vector, 64-bit
//   add and byte swap per register), ran at 77-78%. Measured: moving the
//   scalars into a vector each step costs as much as the byte swaps. Of the
//   remaining gap to ECB, about half is the carrying steps and the loop
//   exits before them (a timing-only variant that never carries reached
//   93%), half the input XOR and the per-register adds. Counter blocks
//   written by integer stores and loaded as vectors were slower (about
//   55%): a vector load spanning several smaller stores cannot take their
//   data forwarded and waits for them, even written one step ahead.
// - The end of the message (less than a step) runs as one group of as many
//   registers as it needs; whole registers are XORed in place, the rest of
//   the keystream goes through a buffer, so nothing past `in` + bytes is
//   read or past `out` + bytes written.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/register_traits.h"
#include "kernels/pkcs7.h"

namespace cryptobench::aesni {
namespace {

// Reverses the bytes of each 128-bit lane: big-endian block <-> little-endian
// 128-bit integer.
inline __m128i byte_reverse_mask() {
  return _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
}

// CounterOps<T>: what CTR needs beyond the shared traits: the counter in
// every lane, 64-bit adds, and the byte swap per lane.
template <class T>
struct CounterOps;

template <>
struct CounterOps<Xmm> {
  static __m128i spread(__m128i x) { return x; }
  static __m128i add64(__m128i a, __m128i b) { return _mm_add_epi64(a, b); }
  static __m128i add32(__m128i a, __m128i b) { return _mm_add_epi32(a, b); }
  static __m128i swap(__m128i x) { return _mm_shuffle_epi8(x, byte_reverse_mask()); }
};

#ifdef __VAES__
#ifdef __AVX2__
template <>
struct CounterOps<Ymm> {
  static __m256i spread(__m128i x) { return _mm256_broadcastsi128_si256(x); }
  static __m256i add64(__m256i a, __m256i b) { return _mm256_add_epi64(a, b); }
  static __m256i add32(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
  static __m256i swap(__m256i x) {
    return _mm256_shuffle_epi8(x, _mm256_broadcastsi128_si256(byte_reverse_mask()));
  }
};
#endif

#ifdef __AVX512F__
template <>
struct CounterOps<Zmm> {
  static __m512i spread(__m128i x) { return _mm512_broadcast_i32x4(x); }
  static __m512i add64(__m512i a, __m512i b) { return _mm512_add_epi64(a, b); }
  static __m512i add32(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
  // A 512-bit byte shuffle needs AVX-512BW, which this file is not built
  // with: the two halves are swapped on 256-bit registers.
  static __m512i swap(__m512i x) {
    const __m256i mask = _mm256_broadcastsi128_si256(byte_reverse_mask());
    const __m256i low = _mm256_shuffle_epi8(_mm512_castsi512_si256(x), mask);
    const __m256i high = _mm256_shuffle_epi8(_mm512_extracti64x4_epi64(x, 1), mask);
    return _mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1);
  }
};
#endif
#endif

inline std::uint64_t load_be64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}
inline void store_be64(std::uint8_t* p, std::uint64_t v) {
  v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

// ctr: `bytes` >= 1 from `in` to `out` (in place allowed), the keystream
// starting at the counter block `counter`.
template <class T, int Rounds>
void ctr(const KeySchedule& ks, const std::uint8_t* counter, const std::uint8_t* in,
         std::uint8_t* out, std::size_t bytes) {
  using V = typename T::V;
  using Ops = CounterOps<T>;
  constexpr std::size_t kStepBlocks = kGroup * T::kBlocks;
  constexpr std::size_t kRegisterBytes = 16 * T::kBlocks;
  V k[Rounds + 1];
  broadcast_keys<T, Rounds>(ks.enc, k);
  // offset[i]: block j of register i is counter + i * kBlocks + j, as a
  // 64-bit add to the little-endian low word; last_byte[i] the same as an
  // add to the last byte of the big-endian block, through the lane's last
  // 32-bit word (read little-endian, byte 15 is its top byte).
  V offset[kGroup], last_byte[kGroup];
  for (int i = 0; i < kGroup; ++i) {
    alignas(64) std::uint64_t words[2 * T::kBlocks];
    alignas(64) std::uint32_t tops[4 * T::kBlocks] = {};
    for (std::size_t j = 0; j < T::kBlocks; ++j) {
      words[2 * j] = static_cast<std::uint64_t>(i) * T::kBlocks + j;
      words[2 * j + 1] = 0;
      tops[4 * j + 3] = static_cast<std::uint32_t>(words[2 * j]) << 24;
    }
    offset[i] = T::load(reinterpret_cast<const std::uint8_t*>(words));
    last_byte[i] = T::load(reinterpret_cast<const std::uint8_t*>(tops));
  }
  const V step_last_byte =
      Ops::spread(_mm_setr_epi32(0, 0, 0, static_cast<int>(kStepBlocks << 24)));
  std::uint64_t high = load_be64(counter), low = load_be64(counter + 8);

  // counter_block: the counter, big-endian, in every lane.
  const auto counter_block = [&] {
    return Ops::swap(
        Ops::spread(_mm_set_epi64x(static_cast<long long>(high), static_cast<long long>(low))));
  };
  // counters: the counter blocks of n registers from (high, low).
  const auto counters = [&](auto count, V* b) {
    constexpr int n = decltype(count)::value;
    constexpr std::uint64_t kBlocksUsed = n * T::kBlocks;
    if (low <= std::numeric_limits<std::uint64_t>::max() - (kBlocksUsed - 1)) {
      const V base =
          Ops::spread(_mm_set_epi64x(static_cast<long long>(high), static_cast<long long>(low)));
      for (int i = 0; i < n; ++i) b[i] = Ops::swap(Ops::add64(base, offset[i]));
    } else {  // the low word carries within these blocks
      alignas(64) std::uint8_t blocks[16 * kBlocksUsed];
      std::uint64_t h = high, l = low;
      for (std::size_t j = 0; j < kBlocksUsed; ++j) {
        store_be64(blocks + 16 * j, h);
        store_be64(blocks + 16 * j + 8, l);
        h += ++l == 0 ? 1 : 0;
      }
      for (int i = 0; i < n; ++i) b[i] = T::load(blocks + kRegisterBytes * i);
    }
  };
  const auto advance = [&](std::uint64_t blocks) {
    const std::uint64_t before = low;
    low += blocks;
    high += low < before ? 1 : 0;
  };

  const auto whole_step = [&](V* b) {
    crypt<T, Rounds, true, kGroup>(k, b);
    for (int i = 0; i < kGroup; ++i) {
      T::store(out + kRegisterBytes * i, T::bxor(T::load(in + kRegisterBytes * i), b[i]));
    }
    in += 16 * kStepBlocks;
    out += 16 * kStepBlocks;
    bytes -= 16 * kStepBlocks;
  };
  if (bytes >= 16 * kStepBlocks) {
    // first: the step's first counter block in every lane, big-endian. It
    // is kept in a register from step to step: moving the counter from
    // integer registers into vector ones each step costs as much as the
    // byte swaps (measured).
    V first = counter_block();
    const V step_low_word = Ops::spread(_mm_set_epi64x(0, static_cast<long long>(kStepBlocks)));
    while (bytes >= 16 * kStepBlocks) {
      // Steps whose last bytes, and the next step's first, stay below 256:
      // every block is `first` plus a constant added to its last byte
      // alone, one vector add per register and no byte swap.
      const std::uint64_t last = low & 0xff;
      std::size_t simple =
          last <= 255 - kStepBlocks ? (255 - kStepBlocks - last) / kStepBlocks + 1 : 0;
      simple = std::min(simple, bytes / (16 * kStepBlocks));
      for (std::size_t s = 0; s < simple; ++s) {
        V b[kGroup];
        for (int i = 0; i < kGroup; ++i) b[i] = Ops::add32(first, last_byte[i]);
        first = Ops::add32(first, step_last_byte);
        whole_step(b);
      }
      low += simple * kStepBlocks;  // its last byte did not carry
      if (bytes < 16 * kStepBlocks) break;
      // Once in 256 / kStepBlocks steps the last byte carries: 64-bit adds
      // on the swapped counter, from `first`, unless the low word carries
      // too (once in 2^64 / kStepBlocks steps): then from (high, low).
      V b[kGroup];
      if (low <= std::numeric_limits<std::uint64_t>::max() - kStepBlocks) {
        const V little = Ops::swap(first);
        for (int i = 0; i < kGroup; ++i) b[i] = Ops::swap(Ops::add64(little, offset[i]));
        first = Ops::swap(Ops::add64(little, step_low_word));
        advance(kStepBlocks);
      } else {
        counters(std::integral_constant<int, kGroup>{}, b);
        advance(kStepBlocks);
        first = counter_block();
      }
      whole_step(b);
    }
  }
  if (bytes == 0) return;
  const auto registers = static_cast<int>((bytes + kRegisterBytes - 1) / kRegisterBytes);
  with_count(registers, [&](auto count) {
    constexpr int n = decltype(count)::value;
    V b[n];
    counters(count, b);
    crypt<T, Rounds, true, n>(k, b);
    // Registers before the last are whole; the last may hold a part.
    for (int i = 0; i + 1 < n; ++i) {
      T::store(out + kRegisterBytes * i, T::bxor(T::load(in + kRegisterBytes * i), b[i]));
    }
    in += kRegisterBytes * (n - 1);
    out += kRegisterBytes * (n - 1);
    const std::size_t rest = bytes - kRegisterBytes * (n - 1);
    if (rest == kRegisterBytes) {
      T::store(out, T::bxor(T::load(in), b[n - 1]));
      return;
    }
    alignas(64) std::uint8_t stream[kRegisterBytes];
    T::store(stream, b[n - 1]);
    std::size_t at = 0;
    for (; at + 16 <= rest; at += 16) {
      store128(out + at, _mm_xor_si128(load128(in + at), load128(stream + at)));
    }
    for (; at < rest; ++at) out[at] = static_cast<std::uint8_t>(in[at] ^ stream[at]);
    secure_wipe(stream, sizeof stream);  // keystream: with the ciphertext, the plaintext
  });
}

}  // namespace
}  // namespace cryptobench::aesni
