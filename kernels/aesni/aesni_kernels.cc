// aesni_kernels.cc: the kernel table on 128-bit AES-NI registers (Intel,
// "Advanced Encryption Standard (AES) New Instructions Set", Gueron, rev.
// 3.01, 2012), and the one-key schedule every width shares.
#include "kernels/aesni/aesni_kernels.h"

#include <immintrin.h>

#include <cstring>

#include "kernels/aesni/key_schedule.h"
#include "kernels/aesni/wide_kernels.h"
#include "kernels/pkcs7.h"

namespace cryptobench::aesni {
namespace {

// sub_rot_word: SubWord(RotWord(w)), via AESKEYGENASSIST on word 1.
std::uint32_t sub_rot_word(std::uint32_t w) {
  const __m128i v = _mm_set_epi32(0, 0, static_cast<int>(w), 0);
  return static_cast<std::uint32_t>(_mm_extract_epi32(_mm_aeskeygenassist_si128(v, 0), 1));
}

// expand192: AES-192, whose 6-word stride does not align with 4-word
// registers, runs the word recurrence of FIPS-197 5.2 with AESKEYGENASSIST
// as the S-box.
void expand192(const std::uint8_t* key, KeySchedule* ks) {
  constexpr int kRounds = 12;
  constexpr int kWords = 4 * (kRounds + 1);
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
  ks->rounds = kRounds;
  const auto word_block = [&](int r) {
    return _mm_load_si128(reinterpret_cast<const __m128i*>(w + 4 * r));
  };
  for (int r = 0; r <= kRounds; ++r) store128(ks->enc[r], word_block(r));
  store128(ks->dec[0], word_block(kRounds));
  for (int r = 1; r < kRounds; ++r) store128(ks->dec[r], _mm_aesimc_si128(word_block(kRounds - r)));
  store128(ks->dec[kRounds], word_block(0));
  secure_wipe(w, sizeof w);  // the key words, as the other key sizes wipe theirs
}

// expand128: one AES-128 key, both schedules in one pass (what expand_lanes
// computes for one lane): each round key is stored, and its AESIMC for the
// decryption schedule issued, as soon as it exists, so the AESIMCs overlap
// the expansion's latency chain instead of re-reading the schedule after it
// (the encryption that follows waits for the last round key, so the chain's
// length is on its critical path).
// The round keys live only in registers and in `ks`, so no stack copy needs
// wiping.
void expand128(const std::uint8_t* key, KeySchedule* ks) {
  constexpr int kRounds = 10;
  static constexpr int kRcon[kRounds] = {0x01, 0x02, 0x04, 0x08, 0x10,
                                         0x20, 0x40, 0x80, 0x1b, 0x36};
  ks->rounds = kRounds;
  __m128i k = load128(key);
  store128(ks->enc[0], k);
  store128(ks->dec[kRounds], k);
  for (int r = 1; r <= kRounds; ++r) {
    const __m128i sub = Xmm::enclast(Xmm::rot_last_word(k), Xmm::set1_32(kRcon[r - 1]));
    __m128i words = Xmm::spread(k);
    // Opaque to the compiler, which would otherwise reassociate the XORs and
    // put three of them after the AESENCLAST instead of one: the chain from
    // key to key is then shuffle, AESENCLAST, XOR.
    __asm__("" : "+x"(words));
    k = Xmm::bxor(words, sub);
    store128(ks->enc[r], k);
    store128(ks->dec[kRounds - r], r == kRounds ? k : _mm_aesimc_si128(k));
  }
}

}  // namespace

void expand_key(const std::uint8_t* key, std::size_t key_size, KeySchedule* ks) {
  if (key_size == 16) return expand128(key, ks);
  if (key_size == 24) return expand192(key, ks);
  expand_lanes<Xmm, 1>(&key, key_size, &ks);
}

const BlockKernels& xmm_kernels() {
  static constexpr BlockKernels kTable = WideKernels<Xmm, kGroup>::table();
  return kTable;
}

}  // namespace cryptobench::aesni
