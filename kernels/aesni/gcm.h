// gcm.h: AES-GCM written once over a register width T (Xmm, Ymm, Zmm; see
// gcm_kernels.h for the method). Included only by the GCM kernel files, each
// compiled with its width's instruction set plus (V)PCLMULQDQ.
//
// Representation: a GHASH block is byte-reversed on load, so the coefficient
// of x^i sits at bit 127 - i of the register ("reflected"). The carry-less
// product of two reflected values is then the reflected product shifted one
// bit, and the reduction below is Montgomery's: it divides by x^128 modulo
// the reflected polynomial x^128 + x^127 + x^126 + x^121 + 1, in two folds of
// 64 bits, each one PCLMULQDQ by 0xc2 << 56. Both effects together multiply
// by x; storing the key powers times x^-1 cancels it, so mul(a, H'^k) is
// a * H^k exactly and no shift is needed per block.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/gcm_kernels.h"
#include "kernels/aesni/register_traits.h"
#include "kernels/pkcs7.h"

namespace cryptobench::aesni {
namespace {

inline __m128i reverse_bytes_mask() {
  return _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
}

// Gf<T>: the per-width operations GCM needs beyond register_traits.h. Each
// 128-bit lane is one block; `counters` puts counter c + lane in lane `lane`
// (inc32: only the low 32-bit word of the reflected counter is added to, so
// it wraps alone, as SP 800-38D says), `step` adds kBlocks to each.
template <class T>
struct Gf;

template <>
struct Gf<Xmm> {
  using V = __m128i;
  template <int Imm>
  static V clmul(V a, V b) {
    return _mm_clmulepi64_si128(a, b, Imm);
  }
  static V reverse(V v) { return _mm_shuffle_epi8(v, reverse_bytes_mask()); }
  static V swap_halves(V v) { return _mm_shuffle_epi32(v, 0x4e); }
  static __m128i fold_lanes(V v) { return v; }
  static V widen(__m128i v) { return v; }
  static V add32(V a, V b) { return _mm_add_epi32(a, b); }
  static V counters(__m128i c) { return c; }
  static V step() { return _mm_setr_epi32(1, 0, 0, 0); }
};

#if defined(__VAES__) && defined(__AVX2__) && defined(__VPCLMULQDQ__)
template <>
struct Gf<Ymm> {
  using V = __m256i;
  template <int Imm>
  static V clmul(V a, V b) {
    return _mm256_clmulepi64_epi128(a, b, Imm);
  }
  static V reverse(V v) {
    return _mm256_shuffle_epi8(v, _mm256_broadcastsi128_si256(reverse_bytes_mask()));
  }
  static V swap_halves(V v) { return _mm256_shuffle_epi32(v, 0x4e); }
  static __m128i fold_lanes(V v) {
    return _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  }
  static V widen(__m128i v) { return _mm256_zextsi128_si256(v); }
  static V add32(V a, V b) { return _mm256_add_epi32(a, b); }
  static V counters(__m128i c) {
    return _mm256_add_epi32(_mm256_broadcastsi128_si256(c),
                            _mm256_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0));
  }
  static V step() { return _mm256_setr_epi32(2, 0, 0, 0, 2, 0, 0, 0); }
};
#endif

#if defined(__VAES__) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__VPCLMULQDQ__)
template <>
struct Gf<Zmm> {
  using V = __m512i;
  template <int Imm>
  static V clmul(V a, V b) {
    return _mm512_clmulepi64_epi128(a, b, Imm);
  }
  static V reverse(V v) {
    return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(reverse_bytes_mask()));
  }
  static V swap_halves(V v) { return _mm512_shuffle_epi32(v, static_cast<_MM_PERM_ENUM>(0x4e)); }
  static __m128i fold_lanes(V v) {
    const __m256i halves =
        _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    return _mm_xor_si128(_mm256_castsi256_si128(halves), _mm256_extracti128_si256(halves, 1));
  }
  static V widen(__m128i v) { return _mm512_zextsi128_si512(v); }
  static V add32(V a, V b) { return _mm512_add_epi32(a, b); }
  static V counters(__m128i c) {
    return _mm512_add_epi32(_mm512_broadcast_i32x4(c),
                            _mm512_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0));
  }
  static V step() { return _mm512_setr_epi32(4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0); }
};
#endif

// Product: an unreduced 256-bit carry-less product (or a sum of them, per
// lane), schoolbook: lo = a0 b0, mid = a0 b1 + a1 b0, hi = a1 b1.
template <class T>
struct Product {
  typename T::V lo, mid, hi;
};

template <class T>
inline Product<T> zero_product() {
  const __m128i z = _mm_setzero_si128();
  return {Gf<T>::widen(z), Gf<T>::widen(z), Gf<T>::widen(z)};
}

template <class T>
inline void multiply_add(Product<T>& p, typename T::V a, typename T::V h) {
  using G = Gf<T>;
  p.lo = T::bxor(p.lo, G::template clmul<0x00>(a, h));
  p.hi = T::bxor(p.hi, G::template clmul<0x11>(a, h));
  p.mid = T::bxor(p.mid, T::bxor(G::template clmul<0x01>(a, h), G::template clmul<0x10>(a, h)));
}

// multiply_add_karatsuba: the same product in three multiplications, with
// a_sum and h_sum holding a0 + a1 in their low halves: `mid` gathers
// (a0 + a1)(b0 + b1), which is the schoolbook middle plus lo plus hi, so
// finish_karatsuba adds those once after the sum.
template <class T>
inline void multiply_add_karatsuba(Product<T>& p, typename T::V a, typename T::V h,
                                   typename T::V h_sum) {
  using G = Gf<T>;
  p.lo = T::bxor(p.lo, G::template clmul<0x00>(a, h));
  p.hi = T::bxor(p.hi, G::template clmul<0x11>(a, h));
  p.mid = T::bxor(p.mid, G::template clmul<0x00>(T::bxor(a, G::swap_halves(a)), h_sum));
}

template <class T>
inline void finish_karatsuba(Product<T>& p) {
  p.mid = T::bxor(p.mid, T::bxor(p.lo, p.hi));
}

// reduce: the lanes summed, then lo and the low half of mid folded upwards
// 64 bits at a time: lo0 * 2^0 == lo0 * (2^128 + (0xc2 << 56) * 2^64).
inline __m128i reduce(__m128i lo, __m128i mid, __m128i hi) {
  const __m128i poly = _mm_set_epi64x(static_cast<long long>(0xc200000000000000ULL), 1);
  mid = _mm_xor_si128(
      mid, _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), _mm_clmulepi64_si128(lo, poly, 0x10)));
  return _mm_xor_si128(
      hi, _mm_xor_si128(_mm_shuffle_epi32(mid, 0x4e), _mm_clmulepi64_si128(mid, poly, 0x10)));
}

template <class T>
inline __m128i reduce(const Product<T>& p) {
  using G = Gf<T>;
  return reduce(G::fold_lanes(p.lo), G::fold_lanes(p.mid), G::fold_lanes(p.hi));
}

inline __m128i multiply(__m128i a, __m128i h) {
  Product<Xmm> p = zero_product<Xmm>();
  multiply_add<Xmm>(p, a, h);
  return reduce(p);
}

// power: H^k (1 <= k <= 32) as stored.
inline const std::uint8_t* power(const GcmKey& key, std::size_t k) {
  return key.powers[kGcmMaxPowers - k];
}

// ghash_group: `y` updated with N registers of blocks (n = N * kBlocks):
// y = (y + X1) H^n + X2 H^(n-1) + ... + Xn H, reduced once.
template <class T, int N>
inline __m128i ghash_group(const GcmKey& key, __m128i y, const std::uint8_t* p) {
  using G = Gf<T>;
  constexpr std::size_t kBlocks = N * T::kBlocks;
  Product<T> acc = zero_product<T>();
  multiply_add<T>(acc, T::bxor(G::reverse(T::load(p)), G::widen(y)), T::load(power(key, kBlocks)));
  for (int i = 1; i < N; ++i) {
    const std::size_t b = static_cast<std::size_t>(i) * T::kBlocks;
    multiply_add<T>(acc, G::reverse(T::load(p + 16 * b)), T::load(power(key, kBlocks - b)));
  }
  return reduce(acc);
}

// ghash_few: the same over 1..32 blocks on 128-bit registers (tails, and
// all of a short message).
inline __m128i ghash_few(const GcmKey& key, __m128i y, const std::uint8_t* p, std::size_t blocks) {
  using G = Gf<Xmm>;
  Product<Xmm> acc = zero_product<Xmm>();
  multiply_add<Xmm>(acc, _mm_xor_si128(G::reverse(load128(p)), y), load128(power(key, blocks)));
  for (std::size_t i = 1; i < blocks; ++i) {
    multiply_add<Xmm>(acc, G::reverse(load128(p + 16 * i)), load128(power(key, blocks - i)));
  }
  return reduce(acc);
}

// ghash_bytes: `size` bytes, the last block zero-padded.
template <class T>
inline __m128i ghash_bytes(const GcmKey& key, __m128i y, const std::uint8_t* p, std::size_t size) {
  constexpr std::size_t kGroupBytes = 16 * kGroup * T::kBlocks;
  for (; size >= kGroupBytes; size -= kGroupBytes, p += kGroupBytes) {
    y = ghash_group<T, kGroup>(key, y, p);
  }
  while (size >= 16) {
    const std::size_t blocks = std::min<std::size_t>(size / 16, kGroup);
    y = ghash_few(key, y, p, blocks);
    p += 16 * blocks;
    size -= 16 * blocks;
  }
  if (size > 0) {
    alignas(16) std::uint8_t last[16] = {};
    std::memcpy(last, p, size);
    y = ghash_few(key, y, last, 1);
  }
  return y;
}

template <int Rounds>
inline __m128i encrypt_block(const KeySchedule& ks, __m128i b) {
  __m128i k[Rounds + 1];
  broadcast_keys<Xmm, Rounds>(ks.enc, k);
  crypt<Xmm, Rounds, true, 1>(k, &b);
  return b;
}

// ctr_few: 1..kGroup blocks of CTR on 128-bit registers from the reflected
// counter `ctr`; returns the counter after them.
template <int Rounds>
inline __m128i ctr_few(const KeySchedule& ks, __m128i ctr, const std::uint8_t* in,
                       std::uint8_t* out, std::size_t blocks) {
  with_count(static_cast<int>(blocks), [&](auto count) {
    constexpr int kN = decltype(count)::value;
    __m128i k[Rounds + 1];
    broadcast_keys<Xmm, Rounds>(ks.enc, k);
    __m128i b[kN];
    for (int i = 0; i < kN; ++i) {
      b[i] = Gf<Xmm>::reverse(ctr);
      ctr = _mm_add_epi32(ctr, Gf<Xmm>::step());
    }
    crypt<Xmm, Rounds, true, kN>(k, b);
    for (int i = 0; i < kN; ++i) store128(out + 16 * i, _mm_xor_si128(b[i], load128(in + 16 * i)));
  });
  return ctr;
}

// ctr_partial: CTR of 1..15 bytes (the last, partial block) through a
// buffer, so nothing past `in` + rest is read or past `out` + rest written.
template <int Rounds>
inline void ctr_partial(const KeySchedule& ks, __m128i ctr, const std::uint8_t* in,
                        std::uint8_t* out, std::size_t rest) {
  alignas(16) std::uint8_t block[16] = {};
  std::memcpy(block, in, rest);
  ctr_few<Rounds>(ks, ctr, block, block, 1);
  std::memcpy(out, block, rest);
  secure_wipe(block, sizeof block);  // plaintext or keystream
}

// lengths_block: GHASH's last block, len(A) || len(C) in bits, reflected.
inline __m128i lengths_block(std::size_t aad_size, std::size_t size) {
  return _mm_set_epi64x(static_cast<long long>(aad_size * 8), static_cast<long long>(size * 8));
}

// ctr_registers: N whole registers of CTR at width T (N * T::kBlocks
// blocks) from the reflected counter `ctr`; returns the counter after them.
template <class T, int Rounds, int N>
inline __m128i ctr_registers(const KeySchedule& ks, __m128i ctr, const std::uint8_t* in,
                             std::uint8_t* out) {
  using G = Gf<T>;
  using V = typename T::V;
  constexpr std::size_t kStride = 16 * T::kBlocks;
  V k[Rounds + 1];
  broadcast_keys<T, Rounds>(ks.enc, k);
  V b[N];
  V c = G::counters(ctr);
  for (int i = 0; i < N; ++i) {
    b[i] = G::reverse(c);
    c = G::add32(c, G::step());
  }
  crypt<T, Rounds, true, N>(k, b);
  for (int i = 0; i < N; ++i) {
    const std::size_t at = kStride * static_cast<std::size_t>(i);
    T::store(out + at, T::bxor(b[i], T::load(in + at)));
  }
  return _mm_add_epi32(ctr, _mm_setr_epi32(N * T::kBlocks, 0, 0, 0));
}

// stitched: `groups` (>= 1) whole groups of kGroup registers of CTR, each
// group's AES rounds interleaved with one GHASH multiplication per round:
// sealing hashes the previous group's ciphertext (the first group's rounds
// run alone, the last group is hashed after the loop); opening hashes the
// group's own input, loaded before its output is stored (in place works).
template <class T, int Rounds, bool Seal>
inline void stitched(const KeySchedule& ks, const GcmKey& key, __m128i& ctr, __m128i& y,
                     const std::uint8_t* in, std::uint8_t* out, std::size_t groups) {
  using G = Gf<T>;
  using V = typename T::V;
  constexpr int kN = kGroup;
  constexpr std::size_t kStride = 16 * T::kBlocks;
  constexpr std::size_t kBytes = kN * kStride;
  constexpr std::size_t kBlocksPerGroup = kN * T::kBlocks;
  static_assert(kN + 1 < Rounds, "the reduction goes in a round after the multiplications");
  V k[Rounds + 1];
  broadcast_keys<T, Rounds>(ks.enc, k);
  V h[kN], h_sum[kN];  // the powers, and their halves' sums for Karatsuba
  for (int i = 0; i < kN; ++i) {
    h[i] = T::load(power(key, kBlocksPerGroup - static_cast<std::size_t>(i) * T::kBlocks));
    h_sum[i] = T::bxor(h[i], G::swap_halves(h[i]));
  }
  const V step = G::step();
  const __m128i group_step = _mm_setr_epi32(static_cast<int>(kBlocksPerGroup), 0, 0, 0);
  V b[kN];
  // big_endian_step: kBlocks added to the last byte of a counter block as
  // stored (the top byte of its word 3), valid while that byte cannot carry.
  const V big_endian_step = G::reverse(step);
  const auto start_blocks = [&] {
    const auto low_byte = static_cast<std::uint32_t>(_mm_cvtsi128_si32(ctr)) & 0xff;
    if (low_byte + kBlocksPerGroup <= 256) {
      // No carry out of the low byte in this group (15 groups in 16): count
      // on the blocks as stored, one byte reversal per group, not per register.
      V c = G::reverse(G::counters(ctr));
      for (int i = 0; i < kN; ++i) {
        b[i] = T::bxor(c, k[0]);
        c = G::add32(c, big_endian_step);
      }
    } else {
      V c = G::counters(ctr);
      for (int i = 0; i < kN; ++i) {
        b[i] = T::bxor(G::reverse(c), k[0]);
        c = G::add32(c, step);
      }
    }
    ctr = _mm_add_epi32(ctr, group_step);
  };
  const auto finish_blocks = [&](const std::uint8_t* src, std::uint8_t* dst) {
    for (int i = 0; i < kN; ++i) {
      T::store(dst + kStride * static_cast<std::size_t>(i),
               T::bxor(T::enclast(b[i], k[Rounds]),
                       T::load(src + kStride * static_cast<std::size_t>(i))));
    }
  };
  std::size_t g = 0;
  if constexpr (Seal) {
    start_blocks();
#pragma GCC unroll 16
    for (int r = 1; r < Rounds; ++r) {
      for (int i = 0; i < kN; ++i) b[i] = T::enc(b[i], k[r]);
    }
    finish_blocks(in, out);
    g = 1;
  }
  for (; g < groups; ++g) {
    // Sealing hashes the ciphertext just written; opening its own input.
    const std::uint8_t* hashed = Seal ? out + (g - 1) * kBytes : in + g * kBytes;
    // Hidden from the compiler, which would otherwise keep the ciphertext it
    // just stored in registers across iterations, spilling the AES state.
    __asm__("" : "+r"(hashed));
    start_blocks();
    Product<T> acc = zero_product<T>();
#pragma GCC unroll 16
    for (int r = 1; r < Rounds; ++r) {
      for (int i = 0; i < kN; ++i) b[i] = T::enc(b[i], k[r]);
      if (r <= kN) {
        const int j = r - 1;
        V x = G::reverse(T::load(hashed + kStride * static_cast<std::size_t>(j)));
        if (j == 0) x = T::bxor(x, G::widen(y));
        multiply_add_karatsuba<T>(acc, x, h[j], h_sum[j]);
        // Summed now, not all at the end (as GCC's reassociation would
        // otherwise have it), which would hold 32 products in registers.
        __asm__("" : "+v"(acc.lo), "+v"(acc.mid), "+v"(acc.hi));
      }
      if (r == kN + 1) {
        finish_karatsuba(acc);
        y = reduce(acc);
      }
    }
    finish_blocks(in + g * kBytes, out + g * kBytes);
  }
  if constexpr (Seal) y = ghash_group<T, kN>(key, y, out + (groups - 1) * kBytes);
}

// add_powers: H^(ready + 1)..H^n by doubling: with H^1..H^r at hand,
// H^(r + j) = H^r H^j for j = 1..r are independent multiplications, so a key
// used once (a new key per message) waits for log2(n) of them, not n - 1.
inline void add_powers(GcmKey& key, int n) {
  while (key.ready < n) {
    const int r = key.ready;
    const int top = std::min(2 * r, n);
    const __m128i hr = load128(power(key, static_cast<std::size_t>(r)));
    for (int k = r + 1; k <= top; ++k) {
      // H'^r H'^(k-r) x (the reduction's x) = H'^k
      const __m128i hk = multiply(hr, load128(power(key, static_cast<std::size_t>(k - r))));
      store128(key.powers[kGcmMaxPowers - k], hk);
    }
    key.ready = top;
  }
}

// A short message (at most kGroup blocks of text, and at most kShortBlocks
// blocks of AAD, text and the lengths block together) is hashed in one pass
// with one reduction. Hashing the AAD, the text and the lengths block in
// turn reduces three times in series, which is most of a 64-byte record's
// latency. The limit keeps it to sizes where latency, not the 128-bit
// multiplies, is what counts.
constexpr std::size_t kShortBlocks = 10;

inline std::size_t short_message_blocks(std::size_t aad_size, std::size_t size) {
  return (aad_size + 15) / 16 + (size + 15) / 16 + 1;
}

inline bool is_short_message(std::size_t aad_size, std::size_t size) {
  return (size + 15) / 16 <= kGroup && short_message_blocks(aad_size, size) <= kShortBlocks;
}

// ghash_short_message: the GHASH of a short message from y = 0: AAD and text
// each zero-padded to whole blocks, then the lengths block, as X1..Xn with
// y = X1 H^n + X2 H^(n-1) + ... + Xn H, reduced once.
inline __m128i ghash_short_message(const GcmKey& key, const std::uint8_t* aad, std::size_t aad_size,
                                   const std::uint8_t* text, std::size_t size) {
  using G = Gf<Xmm>;
  Product<Xmm> acc = zero_product<Xmm>();
  std::size_t k = short_message_blocks(aad_size, size);
  const auto add = [&](__m128i block) { multiply_add<Xmm>(acc, block, load128(power(key, k--))); };
  const auto add_bytes = [&](const std::uint8_t* p, std::size_t bytes) {
    for (; bytes >= 16; bytes -= 16, p += 16) add(G::reverse(load128(p)));
    if (bytes > 0) {  // AAD or ciphertext: public, nothing to wipe
      alignas(16) std::uint8_t last[16] = {};
      std::memcpy(last, p, bytes);
      add(G::reverse(load128(last)));
    }
  };
  add_bytes(aad, aad_size);
  add_bytes(text, size);
  add(lengths_block(aad_size, size));
  return reduce(acc);
}

// powers_needed: the highest power of H a message's GHASH multiplies by: a
// pass aggregates at most a group, and never more blocks than its input has;
// a short message's one pass, all its blocks.
template <class T>
inline int powers_needed(std::size_t nonce_size, std::size_t aad_size, std::size_t size) {
  const std::size_t longest = std::max({nonce_size == 12 ? 0 : nonce_size, aad_size, size});
  std::size_t blocks = std::clamp<std::size_t>((longest + 15) / 16, 1, kGroup * T::kBlocks);
  if (is_short_message(aad_size, size)) {
    blocks = std::max(blocks, short_message_blocks(aad_size, size));
  }
  return static_cast<int>(blocks);
}

// crypt_short_message: CTR from `ctr` over a short message, and its GHASH; it
// returns y before the tag mask (opening hashes the input before
// any output is written, so in place works).
template <int Rounds>
inline __m128i crypt_short_message(const KeySchedule& ks, const GcmKey& key, bool seal, __m128i ctr,
                                   const std::uint8_t* aad, std::size_t aad_size,
                                   const std::uint8_t* in, std::uint8_t* out, std::size_t size) {
  __m128i y = _mm_setzero_si128();
  if (!seal) y = ghash_short_message(key, aad, aad_size, in, size);
  const std::size_t whole = size / 16;
  if (whole > 0) ctr = ctr_few<Rounds>(ks, ctr, in, out, whole);
  if (const std::size_t rest = size - 16 * whole; rest > 0) {
    ctr_partial<Rounds>(ks, ctr, in + 16 * whole, out + 16 * whole, rest);
  }
  if (seal) y = ghash_short_message(key, aad, aad_size, out, size);
  return y;
}

template <class T, int Rounds>
inline void gcm_crypt(const KeySchedule& ks, GcmKey& key, bool seal, const std::uint8_t* nonce,
                      std::size_t nonce_size, const std::uint8_t* aad, std::size_t aad_size,
                      const std::uint8_t* in, std::uint8_t* out, std::size_t size,
                      std::uint8_t* tag) {
  using G = Gf<Xmm>;
  const int needed = powers_needed<T>(nonce_size, aad_size, size);
  if (key.ready < needed) add_powers(key, needed);
  const __m128i zero = _mm_setzero_si128();
  __m128i j0;  // reflected
  if (nonce_size == 12) {
    alignas(16) std::uint8_t block[16] = {};
    std::memcpy(block, nonce, 12);
    block[15] = 1;
    j0 = G::reverse(load128(block));
  } else {
    j0 = ghash_bytes<T>(key, zero, nonce, nonce_size);
    const __m128i bits = _mm_set_epi64x(0, static_cast<long long>(nonce_size * 8));
    j0 = multiply(_mm_xor_si128(j0, bits), load128(power(key, 1)));
  }
  const __m128i tag_mask = encrypt_block<Rounds>(ks, G::reverse(j0));
  __m128i ctr = _mm_add_epi32(j0, G::step());
  if (is_short_message(aad_size, size)) {
    const __m128i y = crypt_short_message<Rounds>(ks, key, seal, ctr, aad, aad_size, in, out, size);
    store128(tag, _mm_xor_si128(tag_mask, G::reverse(y)));
    T::leave();
    return;
  }
  __m128i y = ghash_bytes<T>(key, zero, aad, aad_size);

  constexpr std::size_t kGroupBytes = 16 * kGroup * T::kBlocks;
  const std::size_t groups = size / kGroupBytes;
  std::size_t done = 0;
  if (groups > 0) {
    if (seal) {
      stitched<T, Rounds, true>(ks, key, ctr, y, in, out, groups);
    } else {
      stitched<T, Rounds, false>(ks, key, ctr, y, in, out, groups);
    }
    done = groups * kGroupBytes;
  }
  // Whole registers after the groups (fewer than kGroup), unstitched at the
  // full width: a 1420-byte record's 24 blocks past its 64 are 6 zmm
  // registers, not three 8-block passes on xmm.
  const std::size_t registers = (size - done) / (16 * T::kBlocks);
  if (registers > 0) {
    with_count(static_cast<int>(registers), [&](auto count) {
      constexpr int kN = decltype(count)::value;
      if (seal) {
        ctr = ctr_registers<T, Rounds, kN>(ks, ctr, in + done, out + done);
        y = ghash_group<T, kN>(key, y, out + done);
      } else {
        y = ghash_group<T, kN>(key, y, in + done);
        ctr = ctr_registers<T, Rounds, kN>(ks, ctr, in + done, out + done);
      }
    });
    done += registers * 16 * T::kBlocks;
  }
  while (size - done >= 16) {  // fewer blocks than a register holds
    const std::size_t blocks = std::min<std::size_t>((size - done) / 16, kGroup);
    if (seal) {
      ctr = ctr_few<Rounds>(ks, ctr, in + done, out + done, blocks);
      y = ghash_few(key, y, out + done, blocks);
    } else {
      y = ghash_few(key, y, in + done, blocks);
      ctr = ctr_few<Rounds>(ks, ctr, in + done, out + done, blocks);
    }
    done += 16 * blocks;
  }
  if (done < size) {  // the partial block (ghash_bytes pads a copy of it)
    const std::size_t rest = size - done;
    if (!seal) y = ghash_bytes<T>(key, y, in + done, rest);
    ctr_partial<Rounds>(ks, ctr, in + done, out + done, rest);
    if (seal) y = ghash_bytes<T>(key, y, out + done, rest);
  }
  y = multiply(_mm_xor_si128(y, lengths_block(aad_size, size)), load128(power(key, 1)));
  store128(tag, _mm_xor_si128(tag_mask, G::reverse(y)));
  T::leave();
}

template <class T>
struct GcmWidth {
  static void init(const KeySchedule& ks, GcmKey* key) {
    __m128i h = _mm_setzero_si128();
    switch (ks.rounds) {
      case 10:
        h = encrypt_block<10>(ks, h);
        break;
      case 12:
        h = encrypt_block<12>(ks, h);
        break;
      default:
        h = encrypt_block<14>(ks, h);
        break;
    }
    // H' = H * x^-1, which in the reflected form is a left shift by one
    // with the reflected polynomial added when a bit falls out at the top.
    h = Gf<Xmm>::reverse(h);
    const __m128i poly = _mm_set_epi64x(static_cast<long long>(0xc200000000000000ULL), 1);
    const __m128i carry = _mm_shuffle_epi32(_mm_srai_epi32(h, 31), 0xff);
    const __m128i shifted =
        _mm_or_si128(_mm_slli_epi64(h, 1), _mm_slli_si128(_mm_srli_epi64(h, 63), 8));
    store128(key->powers[kGcmMaxPowers - 1], _mm_xor_si128(shifted, _mm_and_si128(carry, poly)));
    key->ready = 1;  // the other powers, if any, are the previous key's
  }
  static void crypt(const KeySchedule& ks, GcmKey* key, bool seal, const std::uint8_t* nonce,
                    std::size_t nonce_size, const std::uint8_t* aad, std::size_t aad_size,
                    const std::uint8_t* in, std::uint8_t* out, std::size_t size,
                    std::uint8_t* tag) {
    switch (ks.rounds) {
      case 10:
        return gcm_crypt<T, 10>(ks, *key, seal, nonce, nonce_size, aad, aad_size, in, out, size,
                                tag);
      case 12:
        return gcm_crypt<T, 12>(ks, *key, seal, nonce, nonce_size, aad, aad_size, in, out, size,
                                tag);
      default:
        return gcm_crypt<T, 14>(ks, *key, seal, nonce, nonce_size, aad, aad_size, in, out, size,
                                tag);
    }
  }
  static constexpr GcmKernels table() { return {init, crypt}; }
};

}  // namespace
}  // namespace cryptobench::aesni
