// aesni_kernels.cc: AES with the AES-NI instructions (Intel, "Advanced
// Encryption Standard (AES) New Instructions Set", Gueron, rev. 3.01, 2012).
//
// - Key expansion follows FIPS-197 section 5.2. AES-128 and AES-256 use the
//   register form: PSHUFB and AESENCLAST supply SubWord(RotWord(w)) ^ Rcon
//   and shifted XORs spread the previous words. AES-192, whose 6-word
//   stride does not align with 4-word registers, runs the word recurrence
//   with AESKEYGENASSIST as the S-box.
// - Decryption keys are AESIMC(enc[i]) in reverse order (the Equivalent
//   Inverse Cipher), so AESDEC can be used.
// - The modes are written once for every register width in wide_kernels.h;
//   this file instantiates them for 128-bit registers.
#include "kernels/aesni/aesni_kernels.h"

#include <immintrin.h>

#include <cstring>

#include "kernels/aesni/wide_kernels.h"

namespace cryptobench::aesni {
namespace {

inline __m128i load(const std::uint8_t* p) { return load128(p); }

// spread: w0, w0^w1, w0^w1^w2, w0^w1^w2^w3 (the running XOR of the previous
// round key's words that each new word needs), as a tree: two XORs deep.
inline __m128i spread(__m128i key) {
  const __m128i a = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  const __m128i b = _mm_xor_si128(_mm_slli_si128(key, 8), _mm_slli_si128(key, 12));
  return _mm_xor_si128(a, b);
}

// sub_word_of_last: SubWord(RotWord(w3)) ^ rcon (Rotate) or SubWord(w3) in
// all four words. AESKEYGENASSIST computes this too, but is slow on recent
// cores; AESENCLAST does SubBytes and ShiftRows (a no-op when all four
// columns are equal) and XORs its key, here the round constant.
template <bool Rotate>
inline __m128i sub_word_of_last(__m128i key, __m128i rcon) {
  const __m128i last =
      Rotate ? _mm_setr_epi8(13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12)
             : _mm_setr_epi8(12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15);
  return _mm_aesenclast_si128(_mm_shuffle_epi8(key, last), rcon);
}

inline __m128i expand128_round(__m128i key, int rcon) {
  return _mm_xor_si128(spread(key), sub_word_of_last<true>(key, _mm_set1_epi32(rcon)));
}

void expand128(const std::uint8_t* key, __m128i* rk) {
  static constexpr int kRcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
  rk[0] = load(key);
  for (int r = 1; r <= 10; ++r) rk[r] = expand128_round(rk[r - 1], kRcon[r - 1]);
}

// AES-256 alternates two steps: even round keys take SubWord(RotWord()) ^ Rcon
// of the previous odd key's last word, odd ones SubWord() of the previous
// even key's last word (FIPS-197 5.2, the Nk > 6 case).
void expand256(const std::uint8_t* key, __m128i* rk) {
  static constexpr int kRcon[7] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40};
  rk[0] = load(key);
  rk[1] = load(key + 16);
  for (int i = 0; i < 7; ++i) {
    rk[2 * i + 2] = _mm_xor_si128(spread(rk[2 * i]),
                                  sub_word_of_last<true>(rk[2 * i + 1], _mm_set1_epi32(kRcon[i])));
    if (i == 6) break;
    rk[2 * i + 3] = _mm_xor_si128(spread(rk[2 * i + 1]),
                                  sub_word_of_last<false>(rk[2 * i + 2], _mm_setzero_si128()));
  }
}

// sub_rot_word: SubWord(RotWord(w)), via AESKEYGENASSIST on word 1.
inline std::uint32_t sub_rot_word(std::uint32_t w) {
  const __m128i v = _mm_set_epi32(0, 0, static_cast<int>(w), 0);
  return static_cast<std::uint32_t>(_mm_extract_epi32(_mm_aeskeygenassist_si128(v, 0), 1));
}

void expand192(const std::uint8_t* key, __m128i* rk) {
  constexpr int kWords = 4 * (12 + 1);
  alignas(16) std::uint32_t w[kWords];
  std::memcpy(w, key, 24);
  std::uint32_t rcon = 1;
  for (int i = 6; i < kWords; ++i) {
    std::uint32_t temp = w[i - 1];
    if (i % 6 == 0) {
      temp = sub_rot_word(temp) ^ rcon;
      rcon = (rcon << 1) ^ ((rcon >> 7) * 0x11b);
    }
    w[i] = w[i - 6] ^ temp;
  }
  for (int r = 0; r <= 12; ++r) rk[r] = _mm_load_si128(reinterpret_cast<const __m128i*>(w + 4 * r));
}

}  // namespace

void expand_key(const std::uint8_t* key, std::size_t key_size, KeySchedule* ks) {
  __m128i rk[kMaxRounds + 1];
  ks->rounds = static_cast<int>(key_size / 4 + 6);
  if (key_size == 16) {
    expand128(key, rk);
  } else if (key_size == 24) {
    expand192(key, rk);
  } else {
    expand256(key, rk);
  }
  const int n = ks->rounds;
  for (int r = 0; r <= n; ++r) _mm_store_si128(reinterpret_cast<__m128i*>(ks->enc[r]), rk[r]);
  _mm_store_si128(reinterpret_cast<__m128i*>(ks->dec[0]), rk[n]);
  for (int r = 1; r < n; ++r) {
    _mm_store_si128(reinterpret_cast<__m128i*>(ks->dec[r]), _mm_aesimc_si128(rk[n - r]));
  }
  _mm_store_si128(reinterpret_cast<__m128i*>(ks->dec[n]), rk[0]);
}

const BlockKernels& xmm_kernels() {
  static constexpr BlockKernels kTable = WideKernels<Xmm, kGroup>::table();
  return kTable;
}

}  // namespace cryptobench::aesni
