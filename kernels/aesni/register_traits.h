// register_traits.h: the register widths the hand-written kernels are
// written over (128-bit AES-NI, 256-bit and 512-bit VAES), and the loops over
// registers that every mode shares. Included only by the kernel files, each
// compiled with the instruction set of its width, which decides which widths
// exist there; everything has internal linkage, so the linker can never merge
// the copies of different files into one built for the wrong CPU.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

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
  // spread: word i becomes the XOR of words 0..i, as a prefix XOR in two
  // shift-XOR steps (four instructions, not six).
  static V spread(V x) {
    const V pairs = _mm_xor_si128(x, _mm_slli_si128(x, 4));
    return _mm_xor_si128(pairs, _mm_slli_si128(pairs, 8));
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
  static V spread(V x) {  // as Xmm::spread, per lane
    const V pairs = _mm256_xor_si256(x, _mm256_bslli_epi128(x, 4));
    return _mm256_xor_si256(pairs, _mm256_bslli_epi128(pairs, 8));
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

// Registers in flight in the parallel modes (8, 16 or 32 blocks): AESENC's
// latency is several cycles but it issues every cycle or two. Also the most
// registers any kernel keeps per step.
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

// broadcast_keys: each round key of one schedule in every block of a register.
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

}  // namespace
}  // namespace cryptobench::aesni
