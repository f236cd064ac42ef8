// wide_kernels.h: the hand-written AES modes, written once over a register
// width and instantiated three times: 128-bit AES-NI (aesni_kernels.cc),
// 256-bit and 512-bit VAES (kernels/vaes/). Only those kernel files include
// it, each compiled with the instruction set of its width; everything here
// has internal linkage, so the three copies can never be merged by the
// linker into one built for the wrong CPU.
//
// Why this shape (Gueron, "Intel AES New Instructions", rev. 3.01, 2012;
// Drucker et al., "Making AES great again", 2018, for VAES):
// - ECB and CBC decryption have no dependency between blocks. AESENC's
//   latency is several cycles but it issues every cycle or two, so eight
//   registers (8, 16 or 32 blocks) are kept in flight.
// - CBC encryption of one message is a chain: each block needs the previous
//   ciphertext. It runs one block at a time at the instruction's latency, on
//   128-bit registers whatever the width. Only independent messages can fill
//   the unit, which is what the multi-buffer kernel does: one message per
//   128-bit lane, each lane its own chain, refilled as messages end.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/aesni/aesni_kernels.h"
#include "kernels/pkcs7.h"

namespace cryptobench::aesni {
namespace {

inline __m128i load128(const std::uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline void store128(std::uint8_t* p, __m128i v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

// A width: its register type, blocks per register, and the operations the
// modes need. `prev(cur, last)` is, for each block of `cur`, the ciphertext
// block before it, where `last` is the register before `cur`.
struct Xmm {
  using V = __m128i;
  static constexpr std::size_t kBlocks = 1;
  static V load(const std::uint8_t* p) { return load128(p); }
  static void store(std::uint8_t* p, V v) { store128(p, v); }
  static V load_partial(const std::uint8_t* p, std::size_t) { return load128(p); }
  static void store_partial(std::uint8_t* p, V v, std::size_t) { store128(p, v); }
  static V broadcast(const std::uint8_t* p) { return load128(p); }
  static V bxor(V a, V b) { return _mm_xor_si128(a, b); }
  static V band(V a, V b) { return _mm_and_si128(a, b); }
  static V enc(V b, V k) { return _mm_aesenc_si128(b, k); }
  static V enclast(V b, V k) { return _mm_aesenclast_si128(b, k); }
  static V dec(V b, V k) { return _mm_aesdec_si128(b, k); }
  static V declast(V b, V k) { return _mm_aesdeclast_si128(b, k); }
  static V prev(V, V last) { return last; }
  static void leave() {}
  // Key expansion: the last word of each lane in all four words, rotated
  // (RotWord) or not, and the running XOR of a lane's words.
  static V set1_32(int x) { return _mm_set1_epi32(x); }
  static V rot_last_word(V x) {
    return _mm_shuffle_epi8(
        x, _mm_setr_epi8(13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12));
  }
  static V last_word(V x) { return _mm_shuffle_epi32(x, 0xff); }
  static V spread(V x) {
    return _mm_xor_si128(_mm_xor_si128(x, _mm_slli_si128(x, 4)),
                         _mm_xor_si128(_mm_slli_si128(x, 8), _mm_slli_si128(x, 12)));
  }
  static V gather(const std::uint8_t* const* p, std::size_t offset) {
    return load128(p[0] + offset);
  }
  static void scatter(std::uint8_t* const* p, std::size_t offset, V v) {
    store128(p[0] + offset, v);
  }
};

#ifdef __VAES__
#ifdef __AVX2__
struct Ymm {
  using V = __m256i;
  static constexpr std::size_t kBlocks = 2;
  static V load(const std::uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void store(std::uint8_t* p, V v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  // A partial register holds one block (kBlocks is 2); the other lane is 0.
  static V load_partial(const std::uint8_t* p, std::size_t) {
    return _mm256_zextsi128_si256(load128(p));
  }
  static void store_partial(std::uint8_t* p, V v, std::size_t) {
    store128(p, _mm256_castsi256_si128(v));
  }
  static V broadcast(const std::uint8_t* p) { return _mm256_broadcastsi128_si256(load128(p)); }
  static V bxor(V a, V b) { return _mm256_xor_si256(a, b); }
  static V band(V a, V b) { return _mm256_and_si256(a, b); }
  static V enc(V b, V k) { return _mm256_aesenc_epi128(b, k); }
  static V enclast(V b, V k) { return _mm256_aesenclast_epi128(b, k); }
  static V dec(V b, V k) { return _mm256_aesdec_epi128(b, k); }
  static V declast(V b, V k) { return _mm256_aesdeclast_epi128(b, k); }
  static V prev(V cur, V last) { return _mm256_permute2x128_si256(last, cur, 0x21); }
  // leave: clears the upper register halves before returning to code that
  // may use legacy SSE encodings (the aesni key schedule), which otherwise
  // stalls on the dirty state. GCC omits it when a tail call passes vectors.
  static void leave() { _mm256_zeroupper(); }
  static V set1_32(int x) { return _mm256_set1_epi32(x); }
  static V rot_last_word(V x) {
    const __m128i m = _mm_setr_epi8(13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12);
    return _mm256_shuffle_epi8(x, _mm256_broadcastsi128_si256(m));
  }
  static V last_word(V x) { return _mm256_shuffle_epi32(x, 0xff); }
  static V spread(V x) {
    return _mm256_xor_si256(
        _mm256_xor_si256(x, _mm256_bslli_epi128(x, 4)),
        _mm256_xor_si256(_mm256_bslli_epi128(x, 8), _mm256_bslli_epi128(x, 12)));
  }
  static V gather(const std::uint8_t* const* p, std::size_t offset) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(load128(p[0] + offset)),
                                   load128(p[1] + offset), 1);
  }
  static void scatter(std::uint8_t* const* p, std::size_t offset, V v) {
    store128(p[0] + offset, _mm256_castsi256_si128(v));
    store128(p[1] + offset, _mm256_extracti128_si256(v, 1));
  }
  // transpose: the 2 x 2 matrix of blocks (register i, block j) -> (j, i).
  static void transpose(V* r) {
    const V a = r[0];
    r[0] = _mm256_permute2x128_si256(a, r[1], 0x20);
    r[1] = _mm256_permute2x128_si256(a, r[1], 0x31);
  }
};
#endif

#ifdef __AVX512F__
struct Zmm {
  using V = __m512i;
  static constexpr std::size_t kBlocks = 4;
  static V load(const std::uint8_t* p) { return _mm512_loadu_si512(p); }
  static void store(std::uint8_t* p, V v) { _mm512_storeu_si512(p, v); }
  // Masked loads and stores touch only the `n` blocks that exist.
  static __mmask8 qword_mask(std::size_t n) { return static_cast<__mmask8>((1u << (2 * n)) - 1); }
  static V load_partial(const std::uint8_t* p, std::size_t n) {
    return _mm512_maskz_loadu_epi64(qword_mask(n), p);
  }
  static void store_partial(std::uint8_t* p, V v, std::size_t n) {
    _mm512_mask_storeu_epi64(p, qword_mask(n), v);
  }
  static V broadcast(const std::uint8_t* p) { return _mm512_broadcast_i32x4(load128(p)); }
  static V bxor(V a, V b) { return _mm512_xor_si512(a, b); }
  static V band(V a, V b) { return _mm512_and_si512(a, b); }
  static V enc(V b, V k) { return _mm512_aesenc_epi128(b, k); }
  static V enclast(V b, V k) { return _mm512_aesenclast_epi128(b, k); }
  static V dec(V b, V k) { return _mm512_aesdec_epi128(b, k); }
  static V declast(V b, V k) { return _mm512_aesdeclast_epi128(b, k); }
  static V prev(V cur, V last) { return _mm512_alignr_epi64(cur, last, 6); }
  static void leave() { _mm256_zeroupper(); }
  // AVX-512F only (no byte shuffles or byte shifts, which need AVX-512BW):
  // word shuffles with zeroing masks, and a 32-bit rotate for RotWord.
  static V set1_32(int x) { return _mm512_set1_epi32(x); }
  static V last_word(V x) { return _mm512_shuffle_epi32(x, _MM_PERM_DDDD); }
  static V rot_last_word(V x) { return _mm512_ror_epi32(last_word(x), 8); }
  static V spread(V x) {
    const V by1 = _mm512_maskz_shuffle_epi32(0xeeee, x, static_cast<_MM_PERM_ENUM>(0x90));
    const V by2 = _mm512_maskz_shuffle_epi32(0xcccc, x, static_cast<_MM_PERM_ENUM>(0x40));
    const V by3 = _mm512_maskz_shuffle_epi32(0x8888, x, static_cast<_MM_PERM_ENUM>(0x00));
    return _mm512_ternarylogic_epi32(x, by1, _mm512_xor_si512(by2, by3), 0x96);
  }
  static V gather(const std::uint8_t* const* p, std::size_t offset) {
    V v = _mm512_zextsi128_si512(load128(p[0] + offset));
    v = _mm512_inserti32x4(v, load128(p[1] + offset), 1);
    v = _mm512_inserti32x4(v, load128(p[2] + offset), 2);
    return _mm512_inserti32x4(v, load128(p[3] + offset), 3);
  }
  static void scatter(std::uint8_t* const* p, std::size_t offset, V v) {
    store128(p[0] + offset, _mm512_castsi512_si128(v));
    store128(p[1] + offset, _mm512_extracti32x4_epi32(v, 1));
    store128(p[2] + offset, _mm512_extracti32x4_epi32(v, 2));
    store128(p[3] + offset, _mm512_extracti32x4_epi32(v, 3));
  }
  // transpose: the 4 x 4 matrix of blocks (register i, block j) -> (j, i).
  static void transpose(V* r) {
    const V a0 = _mm512_shuffle_i64x2(r[0], r[1], 0x44);  // r0.0 r0.1 r1.0 r1.1
    const V a1 = _mm512_shuffle_i64x2(r[0], r[1], 0xee);  // r0.2 r0.3 r1.2 r1.3
    const V a2 = _mm512_shuffle_i64x2(r[2], r[3], 0x44);
    const V a3 = _mm512_shuffle_i64x2(r[2], r[3], 0xee);
    r[0] = _mm512_shuffle_i64x2(a0, a2, 0x88);  // r0.0 r1.0 r2.0 r3.0
    r[1] = _mm512_shuffle_i64x2(a0, a2, 0xdd);
    r[2] = _mm512_shuffle_i64x2(a1, a3, 0x88);
    r[3] = _mm512_shuffle_i64x2(a1, a3, 0xdd);
  }
};
#endif
#endif

// Registers in flight for the parallel modes.
constexpr int kGroup = 8;

// with_count: calls f(std::integral_constant<int, n>) for 1 <= n <= kGroup,
// so loops over n registers are unrolled and stay in registers.
template <int N = 1, class F>
inline void with_count(int n, F&& f) {
  if constexpr (N <= kGroup) {
    if (n == N) {
      f(std::integral_constant<int, N>{});
    } else {
      with_count<N + 1>(n, f);
    }
  }
}

template <class T, int Rounds>
inline void broadcast_keys(const std::uint8_t (*keys)[16], typename T::V* k) {
  for (int r = 0; r <= Rounds; ++r) k[r] = T::broadcast(keys[r]);
}

// crypt: N independent registers through every round; `Enc` picks the way.
template <class T, int Rounds, bool Enc, int N>
inline void crypt(const typename T::V* k, typename T::V* b) {
  for (int i = 0; i < N; ++i) b[i] = T::bxor(b[i], k[0]);
  for (int r = 1; r < Rounds; ++r) {
    for (int i = 0; i < N; ++i) b[i] = Enc ? T::enc(b[i], k[r]) : T::dec(b[i], k[r]);
  }
  for (int i = 0; i < N; ++i) {
    b[i] = Enc ? T::enclast(b[i], k[Rounds]) : T::declast(b[i], k[Rounds]);
  }
}

// Loads/stores N registers, the last holding `last_blocks` (1..kBlocks).
template <class T, int N>
inline void load_group(const std::uint8_t* in, std::size_t last_blocks, typename T::V* b) {
  constexpr std::size_t kStep = 16 * T::kBlocks;
  for (int i = 0; i + 1 < N; ++i) b[i] = T::load(in + kStep * i);
  b[N - 1] = last_blocks == T::kBlocks ? T::load(in + kStep * (N - 1))
                                       : T::load_partial(in + kStep * (N - 1), last_blocks);
}
template <class T, int N>
inline void store_group(std::uint8_t* out, std::size_t last_blocks, const typename T::V* b) {
  constexpr std::size_t kStep = 16 * T::kBlocks;
  for (int i = 0; i + 1 < N; ++i) T::store(out + kStep * i, b[i]);
  if (last_blocks == T::kBlocks) {
    T::store(out + kStep * (N - 1), b[N - 1]);
  } else {
    T::store_partial(out + kStep * (N - 1), b[N - 1], last_blocks);
  }
}

// ecb: `keep` is ANDed into every output block: all ones normally, all zeros
// to wipe while doing exactly the same work (constant-time PKCS#7 below).
template <class T, int Rounds, bool Enc>
void ecb(const KeySchedule& ks, const std::uint8_t* in, std::uint8_t* out, std::size_t blocks,
         typename T::V keep) {
  using V = typename T::V;
  constexpr std::size_t kStride = kGroup * T::kBlocks;
  V k[Rounds + 1];
  broadcast_keys<T, Rounds>(Enc ? ks.enc : ks.dec, k);
  const auto group = [&](auto count, std::size_t last_blocks) {
    constexpr int n = decltype(count)::value;
    V b[n];
    load_group<T, n>(in, last_blocks, b);
    crypt<T, Rounds, Enc, n>(k, b);
    for (int i = 0; i < n; ++i) b[i] = T::band(b[i], keep);
    store_group<T, n>(out, last_blocks, b);
  };
  for (; blocks >= kStride; blocks -= kStride, in += 16 * kStride, out += 16 * kStride) {
    group(std::integral_constant<int, kGroup>{}, T::kBlocks);
  }
  if (blocks != 0) {
    const auto n = static_cast<int>((blocks + T::kBlocks - 1) / T::kBlocks);
    with_count(n, [&](auto c) { group(c, blocks - (n - 1) * T::kBlocks); });
  }
}

// cbc_dec: all ciphertext of a group is loaded before any plaintext is
// stored, and the chaining value is carried in a register, so in-place
// decryption is safe.
template <class T, int Rounds>
void cbc_dec(const KeySchedule& ks, const std::uint8_t* iv, const std::uint8_t* in,
             std::uint8_t* out, std::size_t blocks, typename T::V keep) {
  using V = typename T::V;
  constexpr std::size_t kStride = kGroup * T::kBlocks;
  V k[Rounds + 1];
  broadcast_keys<T, Rounds>(ks.dec, k);
  V chain = T::broadcast(iv);  // only its last block is used
  const auto group = [&](auto count, std::size_t last_blocks) {
    constexpr int n = decltype(count)::value;
    V c[n], b[n];
    load_group<T, n>(in, last_blocks, c);
    for (int i = 0; i < n; ++i) b[i] = c[i];
    crypt<T, Rounds, false, n>(k, b);
    b[0] = T::band(T::bxor(b[0], T::prev(c[0], chain)), keep);
    for (int i = 1; i < n; ++i) b[i] = T::band(T::bxor(b[i], T::prev(c[i], c[i - 1])), keep);
    store_group<T, n>(out, last_blocks, b);
    chain = c[n - 1];
  };
  for (; blocks >= kStride; blocks -= kStride, in += 16 * kStride, out += 16 * kStride) {
    group(std::integral_constant<int, kGroup>{}, T::kBlocks);
  }
  if (blocks != 0) {
    const auto n = static_cast<int>((blocks + T::kBlocks - 1) / T::kBlocks);
    with_count(n, [&](auto c) { group(c, blocks - (n - 1) * T::kBlocks); });
  }
}

template <int Rounds>
inline __m128i encrypt_block(const std::uint8_t (*rk)[16], __m128i b) {
  b = _mm_xor_si128(b, load128(rk[0]));
  for (int r = 1; r < Rounds; ++r) b = _mm_aesenc_si128(b, load128(rk[r]));
  return _mm_aesenclast_si128(b, load128(rk[Rounds]));
}

template <int Rounds>
inline __m128i decrypt_block(const std::uint8_t (*dk)[16], __m128i b) {
  b = _mm_xor_si128(b, load128(dk[0]));
  for (int r = 1; r < Rounds; ++r) b = _mm_aesdec_si128(b, load128(dk[r]));
  return _mm_aesdeclast_si128(b, load128(dk[Rounds]));
}

// cbc_enc: one message, one block at a time: the chain of AESENCs is the
// whole cost. The XOR of the next plaintext (and of the first round key) is
// folded into the last round key, so it is off the chain: AESENCLAST(x, k)
// is SubBytes/ShiftRows(x) ^ k, and the next block's first state is
// C ^ P' ^ k0. The ciphertext C is recovered with a XOR beside the chain.
template <int Rounds>
void cbc_enc(const KeySchedule& ks, const std::uint8_t* iv, const std::uint8_t* in,
             std::uint8_t* out, std::size_t blocks, const std::uint8_t* final) {
  // The message is `blocks` blocks from `in`, then `final` if given.
  const std::size_t total = blocks + (final != nullptr ? 1 : 0);
  if (total == 0) return;
  const auto block = [&](std::size_t i) { return i < blocks ? in + 16 * i : final; };
  __m128i k[Rounds + 1];
  for (int r = 0; r <= Rounds; ++r) k[r] = load128(ks.enc[r]);
  __m128i state = _mm_xor_si128(load128(iv), _mm_xor_si128(load128(block(0)), k[0]));
  for (std::size_t i = 1; i < total; ++i, out += 16) {
    const __m128i next = _mm_xor_si128(load128(block(i)), k[0]);  // P' ^ k0
    for (int r = 1; r < Rounds; ++r) state = _mm_aesenc_si128(state, k[r]);
    state = _mm_aesenclast_si128(state, _mm_xor_si128(k[Rounds], next));
    store128(out, _mm_xor_si128(state, next));
  }
  for (int r = 1; r < Rounds; ++r) state = _mm_aesenc_si128(state, k[r]);
  store128(out, _mm_aesenclast_si128(state, k[Rounds]));
}

// padding_length: the PKCS#7 check of a decrypted last block, in registers
// and without branches: the padding length 1..16, or 0 when invalid.
inline std::uint64_t padding_length(__m128i block) {
  const auto pad = static_cast<std::uint32_t>(_mm_extract_epi8(block, 15));
  const __m128i value = _mm_set1_epi8(static_cast<char>(pad));
  const __m128i index = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  // Byte i is padding when i + pad >= 16 (saturating, so pad up to 255 is safe).
  const __m128i reach = _mm_adds_epu8(index, value);
  const __m128i covered = _mm_cmpeq_epi8(_mm_max_epu8(reach, _mm_set1_epi8(16)), reach);
  const __m128i wrong = _mm_andnot_si128(_mm_cmpeq_epi8(block, value), covered);
  // pad - 1 wraps for 0, so one shift tests 1 <= pad <= 16.
  const std::uint32_t bad = static_cast<std::uint32_t>(_mm_movemask_epi8(wrong)) | (pad - 1) >> 4;
  const std::uint32_t valid = ((bad | (0u - bad)) >> 31) ^ 1u;
  return pad & (0u - valid);
}

// Messages up to this many blocks are decrypted in one pass and then masked;
// longer ones decrypt their last block first, so their single pass can store
// masked. The length is public, so the choice leaks nothing.
constexpr std::size_t kOnePassBlocks = 32;

// decrypt_padded: decryption with the PKCS#7 check in constant time: valid
// and invalid paddings do identical work and touch identical memory, and on
// failure every output byte is zero when this returns.
template <class T, int Rounds>
std::size_t decrypt_padded(const KeySchedule& ks, const std::uint8_t* iv, const std::uint8_t* in,
                           std::uint8_t* out, std::size_t blocks) {
  if constexpr (T::kBlocks == 1) {
    // Up to 8 blocks: all of them in registers; the padding is checked in the
    // last one and every store masked by the verdict, in one pass.
    if (blocks <= kGroup) {
      std::size_t pad = 0;
      with_count(static_cast<int>(blocks), [&](auto count) {
        constexpr int n = decltype(count)::value;
        __m128i k[Rounds + 1], c[n], b[n];
        broadcast_keys<Xmm, Rounds>(ks.dec, k);
        for (int i = 0; i < n; ++i) b[i] = c[i] = load128(in + 16 * i);
        crypt<Xmm, Rounds, false, n>(k, b);
        if (iv != nullptr) {
          b[0] = _mm_xor_si128(b[0], load128(iv));
          for (int i = 1; i < n; ++i) b[i] = _mm_xor_si128(b[i], c[i - 1]);
        }
        pad = padding_length(b[n - 1]);
        const __m128i keep = _mm_set1_epi8(static_cast<char>(0 - ((pad | (0 - pad)) >> 63)));
        for (int i = 0; i < n; ++i) store128(out + 16 * i, _mm_and_si128(b[i], keep));
      });
      return pad;
    }
  }
  alignas(64) std::uint8_t mask[16 * T::kBlocks];
  if (blocks <= kOnePassBlocks) {
    std::memset(mask, 0xff, sizeof mask);
    if (iv != nullptr) {
      cbc_dec<T, Rounds>(ks, iv, in, out, blocks, T::load(mask));
    } else {
      ecb<T, Rounds, false>(ks, in, out, blocks, T::load(mask));
    }
    const std::uint64_t pad = padding_length(load128(out + 16 * (blocks - 1)));
    const __m128i keep = _mm_set1_epi8(static_cast<char>(0 - ((pad | (0 - pad)) >> 63)));
    for (std::size_t i = 0; i < blocks; ++i) {
      store128(out + 16 * i, _mm_and_si128(load128(out + 16 * i), keep));
    }
    return pad;
  }
  const std::uint8_t* last = in + 16 * (blocks - 1);
  __m128i p = decrypt_block<Rounds>(ks.dec, load128(last));
  if (iv != nullptr) p = _mm_xor_si128(p, load128(blocks > 1 ? last - 16 : iv));
  const std::uint64_t pad = padding_length(p);
  const std::uint64_t valid = (pad | (0 - pad)) >> 63;  // 1 when pad != 0
  std::memset(mask, static_cast<int>(0 - valid) & 0xff, sizeof mask);
  const typename T::V keep = T::load(mask);
  if (iv != nullptr) {
    cbc_dec<T, Rounds>(ks, iv, in, out, blocks, keep);
  } else {
    ecb<T, Rounds, false>(ks, in, out, blocks, keep);
  }
  return pad;
}

// cbc_enc_lanes: multi-buffer CBC encryption. Each 128-bit lane of N
// registers carries one message; all lanes advance one block per step. A
// lane whose message has ended takes the next one; with none left it
// shadows a running lane (same key, chain and input, so it stores the very
// bytes that lane stores) rather than needing a branch per lane per step.
template <class T, int Rounds, int N, bool SharedKey>
void cbc_enc_lanes(const CbcLane* messages, std::size_t count) {
  using V = typename T::V;
  constexpr std::size_t kLanes = N * T::kBlocks;
  struct State {
    const std::uint8_t* in;
    std::uint8_t* out;
    std::size_t blocks;         // full input blocks left
    const std::uint8_t* final;  // the padded last block still to do, or nullptr
    const KeySchedule* ks;
    int source;  // the running lane this one shadows, or -1 when it runs its own message
  };
  State lane[kLanes];
  const std::uint8_t* in_ptr[kLanes];
  std::uint8_t* out_ptr[kLanes];
  alignas(64) std::uint8_t chain_mem[kLanes][16] = {};
  V keys[Rounds + 1][N];  // per-lane round keys, gathered after each refill when not shared
  const std::uint8_t* key_ptr[kLanes];
  V chain[N];
  std::size_t next = 0;
  constexpr bool shared_key = SharedKey;

  // refill: gives every lane without work the next message, or a lane to shadow.
  const auto refill = [&]() {
    for (std::size_t j = 0; j < kLanes; ++j) {
      if (lane[j].source < 0 && (lane[j].blocks != 0 || lane[j].final != nullptr)) continue;
      while (next < count && messages[next].blocks == 0 && messages[next].final == nullptr) ++next;
      if (next < count) {
        const CbcLane& m = messages[next++];
        lane[j] = {m.in, m.out, m.blocks, m.final, m.schedule, -1};
        std::memcpy(chain_mem[j], m.iv, 16);
      } else {
        lane[j].source = -2;  // decided below, once every lane has its message
      }
    }
    int running = -1;
    for (std::size_t j = 0; j < kLanes && running < 0; ++j) {
      if (lane[j].source == -1 && (lane[j].blocks != 0 || lane[j].final != nullptr)) {
        running = static_cast<int>(j);
      }
    }
    for (std::size_t j = 0; j < kLanes; ++j) {
      if (lane[j].source == -1) continue;
      lane[j].source = running;
      if (running < 0) continue;
      const State& s = lane[running];
      lane[j] = {s.in, s.out, s.blocks, s.final, s.ks, running};
      std::memcpy(chain_mem[j], chain_mem[running], 16);
    }
    return running >= 0;
  };

  for (std::size_t j = 0; j < kLanes; ++j) lane[j] = {nullptr, nullptr, 0, nullptr, nullptr, -1};
  V shared[Rounds + 1];
  if constexpr (shared_key) broadcast_keys<T, Rounds>(messages[0].schedule->enc, shared);
  while (refill()) {
    for (int v = 0; v < N; ++v) chain[v] = T::load(chain_mem[v * T::kBlocks]);
    if constexpr (!shared_key) {
      // Registers built from the lanes' schedules; assembling them in memory
      // would make each 64-byte load wait on four 16-byte stores.
      for (std::size_t j = 0; j < kLanes; ++j) key_ptr[j] = lane[j].ks->enc[0];
      for (int r = 0; r <= Rounds; ++r) {
        for (int v = 0; v < N; ++v) keys[r][v] = T::gather(key_ptr + v * T::kBlocks, 16 * r);
      }
    }
    // A run of steps in which no lane ends or switches to its final block.
    std::size_t run = SIZE_MAX;
    for (const State& s : lane) run = std::min(run, s.blocks != 0 ? s.blocks : std::size_t{1});
    for (std::size_t j = 0; j < kLanes; ++j) {
      State& s = lane[j];
      if (s.blocks == 0) s.in = s.final;  // this step takes the padded last block
      in_ptr[j] = s.in;
      out_ptr[j] = s.out;
    }
    // One CBC step of register v's lanes: x is their next plaintext blocks.
    const auto step_lanes = [&](int v, V x) {
      x = T::bxor(x, chain[v]);
      if constexpr (shared_key) {
        x = T::bxor(x, shared[0]);
        for (int r = 1; r < Rounds; ++r) x = T::enc(x, shared[r]);
        chain[v] = T::enclast(x, shared[Rounds]);
      } else {
        x = T::bxor(x, keys[0][v]);
        for (int r = 1; r < Rounds; ++r) x = T::enc(x, keys[r][v]);
        chain[v] = T::enclast(x, keys[Rounds][v]);
      }
      return chain[v];
    };
    std::size_t step = 0;
    if constexpr (T::kBlocks > 1) {
      // kBlocks steps at a time: each lane's next kBlocks blocks are one
      // full-width load, transposed so that a register holds one block of
      // every lane, and transposed back for one full-width store per lane:
      // fewer loads, stores and shuffles than a 128-bit gather per block.
      // Every load of the group precedes every store, as in the single step.
      // The transposed blocks are staged in memory: 16 zmm of them, the round
      // keys and the chains would not fit in the register file.
      constexpr int kB = static_cast<int>(T::kBlocks);
      alignas(64) std::uint8_t staged[N][kB][16 * kB];
      for (; step + T::kBlocks <= run; step += T::kBlocks) {
        const std::size_t offset = 16 * step;
        for (int v = 0; v < N; ++v) {
          V x[kB];
          for (int l = 0; l < kB; ++l) x[l] = T::load(in_ptr[v * kB + l] + offset);
          T::transpose(x);
          for (int t = 0; t < kB; ++t) T::store(staged[v][t], x[t]);
        }
        // Register by register: each a chain of kB steps, independent of the
        // others, which the core overlaps.
        for (int v = 0; v < N; ++v) {
          for (int t = 0; t < kB; ++t) T::store(staged[v][t], step_lanes(v, T::load(staged[v][t])));
        }
        for (int v = 0; v < N; ++v) {
          V x[kB];
          for (int t = 0; t < kB; ++t) x[t] = T::load(staged[v][t]);
          T::transpose(x);
          for (int l = 0; l < kB; ++l) T::store(out_ptr[v * kB + l] + offset, x[l]);
        }
      }
    }
    for (; step < run; ++step) {
      const std::size_t offset = 16 * step;
      V x[N];
      for (int v = 0; v < N; ++v) x[v] = step_lanes(v, T::gather(in_ptr + v * T::kBlocks, offset));
      for (int v = 0; v < N; ++v) T::scatter(out_ptr + v * T::kBlocks, offset, x[v]);
    }
    for (int v = 0; v < N; ++v) T::store(chain_mem[v * T::kBlocks], chain[v]);
    for (std::size_t j = 0; j < kLanes; ++j) {
      State& s = lane[j];
      s.out += 16 * run;
      if (s.blocks == 0) {
        s.final = nullptr;
      } else {
        s.blocks -= run;
        s.in += 16 * run;
      }
    }
  }
}

// expand_keys_lanes: AES-128 or AES-256 key schedules of up to N x kBlocks
// keys at once, one key per 128-bit lane (FIPS-197 5.2, as aesni_kernels.cc
// does for one key): AESENCLAST gives SubWord and the round constant for
// every lane at once. Each lane's decryption keys follow with AESIMC.
template <class T, int N>
void expand_keys_lanes(const std::uint8_t* const* keys, std::size_t key_size,
                       KeySchedule* const* out) {
  using V = typename T::V;
  constexpr std::size_t kLanes = N * T::kBlocks;
  const int rounds = key_size == 16 ? 10 : 14;
  V rk[N][kMaxRounds + 1];
  for (int v = 0; v < N; ++v) {
    rk[v][0] = T::gather(keys + v * T::kBlocks, 0);
    if (key_size == 32) rk[v][1] = T::gather(keys + v * T::kBlocks, 16);
  }
  static constexpr int kRcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
  if (key_size == 16) {
    for (int r = 1; r <= 10; ++r) {
      for (int v = 0; v < N; ++v) {
        const V sub = T::enclast(T::rot_last_word(rk[v][r - 1]), T::set1_32(kRcon[r - 1]));
        rk[v][r] = T::bxor(T::spread(rk[v][r - 1]), sub);
      }
    }
  } else {
    for (int i = 0; i < 7; ++i) {
      for (int v = 0; v < N; ++v) {
        const V sub = T::enclast(T::rot_last_word(rk[v][2 * i + 1]), T::set1_32(kRcon[i]));
        rk[v][2 * i + 2] = T::bxor(T::spread(rk[v][2 * i]), sub);
        if (i == 6) continue;
        const V sub2 = T::enclast(T::last_word(rk[v][2 * i + 2]), T::set1_32(0));
        rk[v][2 * i + 3] = T::bxor(T::spread(rk[v][2 * i + 1]), sub2);
      }
    }
  }
  std::uint8_t* enc[kLanes];
  for (std::size_t j = 0; j < kLanes; ++j) enc[j] = out[j]->enc[0];
  for (int v = 0; v < N; ++v) {
    for (int r = 0; r <= rounds; ++r) T::scatter(enc + v * T::kBlocks, 16 * r, rk[v][r]);
  }
  for (std::size_t j = 0; j < kLanes; ++j) {
    KeySchedule& ks = *out[j];
    ks.rounds = rounds;
    store128(ks.dec[0], load128(ks.enc[rounds]));
    for (int r = 1; r < rounds; ++r)
      store128(ks.dec[r], _mm_aesimc_si128(load128(ks.enc[rounds - r])));
    store128(ks.dec[rounds], load128(ks.enc[0]));
  }
  secure_wipe(rk, sizeof rk);  // the round keys left on the stack
}

// expand_keys: n key schedules, a group of lanes at a time; a partial last
// group is padded with copies of its first key, expanded into a scratch
// schedule. AES-192, whose 6-word stride does not fit the lanes, goes one key
// at a time.
template <class T, int N>
void expand_keys_group(const std::uint8_t* const* keys, std::size_t key_size,
                       KeySchedule* const* out, std::size_t n) {
  constexpr std::size_t kLanes = N * T::kBlocks;
  if (n == kLanes) {
    expand_keys_lanes<T, N>(keys, key_size, out);
    return;
  }
  KeySchedule scratch;
  const std::uint8_t* k[kLanes];
  KeySchedule* o[kLanes];
  for (std::size_t j = 0; j < kLanes; ++j) {
    k[j] = keys[j < n ? j : 0];
    o[j] = j < n ? out[j] : &scratch;
  }
  expand_keys_lanes<T, N>(k, key_size, o);
  secure_wipe(&scratch, sizeof scratch);
}

// expand_keys: n key schedules, up to MaxRegisters registers of lanes at a
// time, and no more registers than the keys fill (a partial last register is
// padded with copies of a key, expanded into a scratch schedule). One key,
// or AES-192, whose 6-word stride does not fit the lanes, goes one at a time.
template <class T, int MaxRegisters>
void expand_keys(const std::uint8_t* const* keys, std::size_t key_size, KeySchedule* const* out,
                 std::size_t n) {
  if (key_size == 24 || n == 1) {
    for (std::size_t i = 0; i < n; ++i) expand_key(keys[i], key_size, out[i]);
    return;
  }
  constexpr std::size_t kMaxLanes = MaxRegisters * T::kBlocks;
  for (std::size_t i = 0; i < n; i += kMaxLanes) {
    const std::size_t m = std::min(kMaxLanes, n - i);
    const auto registers = static_cast<int>((m + T::kBlocks - 1) / T::kBlocks);
    with_count(registers, [&](auto count) {
      constexpr int kN = decltype(count)::value;
      if constexpr (kN <= MaxRegisters) expand_keys_group<T, kN>(keys + i, key_size, out + i, m);
    });
  }
}

// dispatch: calls call(R) for the schedule's round count.
#define CRYPTOBENCH_DISPATCH_ROUNDS(rounds, call) \
  switch (rounds) {                               \
    case 10:                                      \
      call(10);                                   \
      break;                                      \
    case 12:                                      \
      call(12);                                   \
      break;                                      \
    default:                                      \
      call(14);                                   \
      break;                                      \
  }

// The kernel table of width T. `LaneRegisters` is how many registers the
// multi-buffer kernel fills at most.
template <class T, int LaneRegisters>
struct WideKernels {
  static typename T::V ones() {
    alignas(64) std::uint8_t m[16 * T::kBlocks];
    std::memset(m, 0xff, sizeof m);
    return T::load(m);
  }
  // Messages of at most kGroup blocks fill eight 128-bit registers, which
  // issue as fast as wide ones would; the wide path would only add broadcasts
  // and masked partial registers. They, and the serial CBC encryption, go to
  // the 128-bit table itself, built without AVX-512: compiled here, the same
  // code moved and spilled through zmm registers and ran about 10% slower.
  static const BlockKernels& narrow_table() { return xmm_kernels(); }
  static bool narrow(std::size_t blocks) { return T::kBlocks > 1 && blocks <= kGroup; }

  static void ecb_encrypt(const KeySchedule& ks, const std::uint8_t* in, std::uint8_t* out,
                          std::size_t blocks) {
    if (narrow(blocks)) return narrow_table().ecb_encrypt(ks, in, out, blocks);
#define CALL(R) ecb<T, R, true>(ks, in, out, blocks, ones())
    CRYPTOBENCH_DISPATCH_ROUNDS(ks.rounds, CALL)
#undef CALL
    T::leave();
  }
  static void ecb_decrypt(const KeySchedule& ks, const std::uint8_t* in, std::uint8_t* out,
                          std::size_t blocks) {
    if (narrow(blocks)) return narrow_table().ecb_decrypt(ks, in, out, blocks);
#define CALL(R) ecb<T, R, false>(ks, in, out, blocks, ones())
    CRYPTOBENCH_DISPATCH_ROUNDS(ks.rounds, CALL)
#undef CALL
    T::leave();
  }
  static void cbc_encrypt(const KeySchedule& ks, const std::uint8_t* iv, const std::uint8_t* in,
                          std::uint8_t* out, std::size_t blocks, const std::uint8_t* final) {
    if (T::kBlocks > 1) return narrow_table().cbc_encrypt(ks, iv, in, out, blocks, final);
#define CALL(R) cbc_enc<R>(ks, iv, in, out, blocks, final)
    CRYPTOBENCH_DISPATCH_ROUNDS(ks.rounds, CALL)
#undef CALL
    T::leave();
  }
  static void cbc_decrypt(const KeySchedule& ks, const std::uint8_t* iv, const std::uint8_t* in,
                          std::uint8_t* out, std::size_t blocks) {
    if (narrow(blocks)) return narrow_table().cbc_decrypt(ks, iv, in, out, blocks);
#define CALL(R) cbc_dec<T, R>(ks, iv, in, out, blocks, ones())
    CRYPTOBENCH_DISPATCH_ROUNDS(ks.rounds, CALL)
#undef CALL
    T::leave();
  }
  static std::size_t decrypt_pkcs7(const KeySchedule& ks, const std::uint8_t* iv,
                                   const std::uint8_t* in, std::uint8_t* out, std::size_t blocks) {
    if (narrow(blocks)) return narrow_table().decrypt_pkcs7(ks, iv, in, out, blocks);
    std::size_t pad = 0;
#define CALL(R) pad = decrypt_padded<T, R>(ks, iv, in, out, blocks)
    CRYPTOBENCH_DISPATCH_ROUNDS(ks.rounds, CALL)
#undef CALL
    T::leave();
    return pad;
  }
  // As few registers as the messages fill: idle lanes would only shadow.
  static void cbc_encrypt_lanes(const CbcLane* messages, std::size_t count) {
    if (count == 0) return;
    if (count == 1) {  // one chain: nothing to interleave
      const CbcLane& m = messages[0];
      return cbc_encrypt(*m.schedule, m.iv, m.in, m.out, m.blocks, m.final);
    }
    const std::size_t wanted = (count + T::kBlocks - 1) / T::kBlocks;
    const int n = static_cast<int>(std::min<std::size_t>(wanted, LaneRegisters));
    const int rounds = messages[0].schedule->rounds;
    bool shared = true;  // one key for all: round keys broadcast once, in registers
    for (std::size_t i = 1; i < count; ++i) shared &= messages[i].schedule == messages[0].schedule;
    with_count(n, [&](auto registers) {
      constexpr int kN = decltype(registers)::value;
      if constexpr (kN <= LaneRegisters) {
#define CALL(R)                                      \
  if (shared) {                                      \
    cbc_enc_lanes<T, R, kN, true>(messages, count);  \
  } else {                                           \
    cbc_enc_lanes<T, R, kN, false>(messages, count); \
  }
        CRYPTOBENCH_DISPATCH_ROUNDS(rounds, CALL)
#undef CALL
      }
    });
    T::leave();
  }

  // Four registers of keys: enough independent chains to hide the latency
  // of AESENCLAST and the XORs.
  static void expand_many(const std::uint8_t* const* keys, std::size_t key_size,
                          KeySchedule* const* out, std::size_t n) {
    expand_keys<T, 4>(keys, key_size, out, n);
    T::leave();
  }

  static constexpr BlockKernels table() {
    return {ecb_encrypt,   ecb_decrypt,       cbc_encrypt, cbc_decrypt,
            decrypt_pkcs7, cbc_encrypt_lanes, expand_many};
  }
};

}  // namespace
}  // namespace cryptobench::aesni
