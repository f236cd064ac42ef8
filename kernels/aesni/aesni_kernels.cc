// aesni_kernels.cc: AES with the AES-NI instructions (Intel, "Advanced
// Encryption Standard (AES) New Instructions Set", Gueron, rev. 3.01, 2012).
//
// - Key expansion follows FIPS-197 section 5.2. AES-128 and AES-256 use the
//   register form: AESKEYGENASSIST supplies SubWord(RotWord(w)) ^ Rcon and
//   three shifted XORs spread the previous words. AES-192, whose 6-word
//   stride does not align with 4-word registers, runs the word recurrence
//   with AESKEYGENASSIST as the S-box.
// - Decryption keys are AESIMC(enc[i]) in reverse order (the Equivalent
//   Inverse Cipher), so AESDEC can be used.
// - ECB and CBC decryption have no dependency between blocks, so eight blocks
//   are in flight at once: AESENC has a latency of several cycles but issues
//   one or two per cycle, and eight independent chains keep the unit busy.
//   CBC encryption is inherently serial (each block needs the previous
//   ciphertext), so it runs one block at a time.
#include "kernels/aesni/aesni_kernels.h"

#include <immintrin.h>

#include <cstring>

#include "kernels/aesni/wide_kernels.h"

namespace cryptobench::aesni {
namespace {

inline __m128i load(const std::uint8_t* p) { return load128(p); }

// spread: w0, w0^w1, w0^w1^w2, w0^w1^w2^w3 (the running XOR of the previous
// round key's words that each new word needs).
inline __m128i spread(__m128i key) {
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  return _mm_xor_si128(key, _mm_slli_si128(key, 4));
}

template <int Rcon>
inline __m128i expand128_round(__m128i key) {
  const __m128i assist = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(key, Rcon), 0xff);
  return _mm_xor_si128(spread(key), assist);
}

void expand128(const std::uint8_t* key, __m128i* rk) {
  rk[0] = load(key);
  rk[1] = expand128_round<0x01>(rk[0]);
  rk[2] = expand128_round<0x02>(rk[1]);
  rk[3] = expand128_round<0x04>(rk[2]);
  rk[4] = expand128_round<0x08>(rk[3]);
  rk[5] = expand128_round<0x10>(rk[4]);
  rk[6] = expand128_round<0x20>(rk[5]);
  rk[7] = expand128_round<0x40>(rk[6]);
  rk[8] = expand128_round<0x80>(rk[7]);
  rk[9] = expand128_round<0x1b>(rk[8]);
  rk[10] = expand128_round<0x36>(rk[9]);
}

// AES-256 alternates two steps: even round keys take SubWord(RotWord()) ^ Rcon
// of the previous odd key's last word, odd ones SubWord() of the previous
// even key's last word (FIPS-197 5.2, the Nk > 6 case).
template <int Rcon>
inline void expand256_pair(__m128i* even, __m128i* odd) {
  *even =
      _mm_xor_si128(spread(*even), _mm_shuffle_epi32(_mm_aeskeygenassist_si128(*odd, Rcon), 0xff));
  *odd = _mm_xor_si128(spread(*odd), _mm_shuffle_epi32(_mm_aeskeygenassist_si128(*even, 0), 0xaa));
}

void expand256(const std::uint8_t* key, __m128i* rk) {
  __m128i even = load(key), odd = load(key + 16);
  rk[0] = even;
  rk[1] = odd;
  expand256_pair<0x01>(&even, &odd);
  rk[2] = even;
  rk[3] = odd;
  expand256_pair<0x02>(&even, &odd);
  rk[4] = even;
  rk[5] = odd;
  expand256_pair<0x04>(&even, &odd);
  rk[6] = even;
  rk[7] = odd;
  expand256_pair<0x08>(&even, &odd);
  rk[8] = even;
  rk[9] = odd;
  expand256_pair<0x10>(&even, &odd);
  rk[10] = even;
  rk[11] = odd;
  expand256_pair<0x20>(&even, &odd);
  rk[12] = even;
  rk[13] = odd;
  rk[14] =
      _mm_xor_si128(spread(even), _mm_shuffle_epi32(_mm_aeskeygenassist_si128(odd, 0x40), 0xff));
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
