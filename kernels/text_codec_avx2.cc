// text_codec_avx2.cc: Base64 with AVX2, after the method of W. Muła and
// D. Lemire, "Faster Base64 Encoding and Decoding Using AVX2 Instructions"
// (ACM TWEB, 2018): bytes are regrouped with PSHUFB, the 6-bit fields moved
// into place with 16-bit multiplies, and characters mapped with small
// nibble-indexed tables instead of a 64- or 256-entry table lookup.
#include <immintrin.h>

#include "kernels/text_codec_simd.h"

namespace cryptobench::simd {
namespace {

// Twelve input bytes per 128-bit lane, four 3-byte groups: bytes 0..11 at
// the front of the low lane, bytes 12..23 at the back of the high one (loaded
// from byte 8), so nothing past the 24 bytes is read.
inline __m256i load_groups(const std::uint8_t* in) {
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 8));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

// sextets: each group (a, b, c) (as load_groups places them) becomes four bytes holding its 6-bit
// fields a>>2, (a&3)<<4|b>>4, (b&15)<<2|c>>6, c&63. After the shuffle a group's two 16-bit words
// are a:b and b:c (high:low); the fields sit at bits 15..10 and 9..4 of the first and 11..6
// and 5..0 of the second.
inline __m256i sextets(__m256i groups) {
  const __m256i order = _mm256_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10,  //
                                         5, 4, 6, 5, 8, 7, 9, 8, 11, 10, 12, 11, 14, 13, 15, 14);
  const __m256i words = _mm256_shuffle_epi8(groups, order);
  // >> 10 and >> 6 as high halves of multiplies by 2^6 and 2^10.
  const __m256i right = _mm256_mulhi_epu16(_mm256_and_si256(words, _mm256_set1_epi32(0x0fc0fc00)),
                                           _mm256_set1_epi32(0x04000040));
  // << 4 and << 8 (into the high byte of each word) as low halves.
  const __m256i left = _mm256_mullo_epi16(_mm256_and_si256(words, _mm256_set1_epi32(0x003f03f0)),
                                          _mm256_set1_epi32(0x01000010));
  return _mm256_or_si256(right, left);
}

// to_ascii: 0..25 -> 'A'.., 26..51 -> 'a'.., 52..61 -> '0'.., 62 '+', 63 '/',
// by adding an offset chosen by range: a saturating subtract folds 52..63
// onto 1..12 and 0..51 onto 0; values below 26 are then marked 13.
inline __m256i to_ascii(__m256i v) {
  __m256i range = _mm256_subs_epu8(v, _mm256_set1_epi8(51));
  const __m256i upper = _mm256_cmpgt_epi8(_mm256_set1_epi8(26), v);
  range = _mm256_or_si256(range, _mm256_and_si256(upper, _mm256_set1_epi8(13)));
  const __m256i offsets =
      _mm256_setr_epi8(71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 65, 0, 0,  //
                       71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 65, 0, 0);
  return _mm256_add_epi8(v, _mm256_shuffle_epi8(offsets, range));
}

}  // namespace

std::size_t base64_encode_avx2(const std::uint8_t* in, std::size_t length, char* out) {
  if (length < 24) return 0;
  const auto encode24 = [&](std::size_t at) {
    const __m256i chars = to_ascii(sextets(load_groups(in + at)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + at / 3 * 4), chars);
  };
  const std::size_t groups_end = length / 3 * 3;
  std::size_t done = 0;
  for (; groups_end - done >= 24; done += 24) encode24(done);
  // The groups left (fewer than eight): one more vector ending at the last
  // group, rewriting the characters it overlaps with the same ones.
  if (done != groups_end) encode24(groups_end - 24);
  return groups_end;
}

std::size_t base64_decode_avx2(const char* text, std::size_t length, std::uint8_t* out, bool* bad) {
  // Validity: a character is in the alphabet when the class bits of its
  // high nibble and of its low nibble intersect. Classes: bit 0 '+' '/'
  // (0x2b, 0x2f), bit 1 digits (0x30-0x39), bit 2 0x41-0x4f and 0x61-0x6f,
  // bit 3 0x50-0x5a and 0x70-0x7a. Other high nibbles have no class.
  const __m256i high_class = _mm256_setr_epi8(0, 0, 1, 2, 4, 8, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0,  //
                                              0, 0, 1, 2, 4, 8, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i low_class =
      _mm256_setr_epi8(2 | 8, 2 | 4 | 8, 2 | 4 | 8, 2 | 4 | 8, 2 | 4 | 8, 2 | 4 | 8, 2 | 4 | 8,
                       2 | 4 | 8, 2 | 4 | 8, 2 | 4 | 8, 4 | 8, 1 | 4, 4, 4, 4, 1 | 4,  //
                       2 | 8, 2 | 4 | 8, 2 | 4 | 8, 2 | 4 | 8, 2 | 4 | 8, 2 | 4 | 8, 2 | 4 | 8,
                       2 | 4 | 8, 2 | 4 | 8, 2 | 4 | 8, 4 | 8, 1 | 4, 4, 4, 4, 1 | 4);
  // Value = character + offset[high nibble], with '/' moved to slot 1.
  const __m256i offsets =
      _mm256_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0,
                       0,  //
                       0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  // Three bytes of each 32-bit word, big-endian, packed to the lane's front.
  const __m256i pack = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,  //
                                        2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
  if (length < 32) {
    *bad = false;
    return 0;
  }
  __m256i invalid = _mm256_setzero_si256();
  const auto decode32 = [&](std::size_t at) {
    std::uint8_t* const to = out + at / 4 * 3;
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + at));
    const __m256i high = _mm256_and_si256(_mm256_srli_epi32(c, 4), nibble);
    const __m256i low = _mm256_and_si256(c, nibble);
    const __m256i classes = _mm256_and_si256(_mm256_shuffle_epi8(high_class, high),
                                             _mm256_shuffle_epi8(low_class, low));
    invalid = _mm256_or_si256(invalid, _mm256_cmpeq_epi8(classes, _mm256_setzero_si256()));
    const __m256i slash = _mm256_cmpeq_epi8(c, _mm256_set1_epi8('/'));
    const __m256i values =
        _mm256_add_epi8(c, _mm256_shuffle_epi8(offsets, _mm256_add_epi8(high, slash)));
    // v0<<6|v1 in 16 bits, then (v0v1)<<12|v2v3 in 32 bits.
    const __m256i pairs = _mm256_maddubs_epi16(values, _mm256_set1_epi32(0x01400140));
    const __m256i words = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00011000));
    const __m256i bytes = _mm256_shuffle_epi8(words, pack);
    const __m128i hi = _mm256_extracti128_si256(bytes, 1);
    // Bytes 0..15 in one store (the low lane's twelve and the high lane's
    // first four), 16..23 in another: a decryption's 16-byte load of the
    // first block is then inside one store, which forwards to it.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to),
                     _mm_or_si128(_mm256_castsi256_si128(bytes), _mm_slli_si128(hi, 12)));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(to + 16), _mm_srli_si128(hi, 4));
  };
  const std::size_t quads_end = length / 4 * 4;
  std::size_t done = 0;
  for (; quads_end - done >= 32; done += 32) decode32(done);
  // The quanta left (fewer than eight): one more vector ending at the last
  // one, rewriting the bytes it overlaps with the same ones.
  if (done != quads_end) decode32(quads_end - 32);
  *bad = _mm256_movemask_epi8(invalid) != 0;
  return quads_end;
}

}  // namespace cryptobench::simd
