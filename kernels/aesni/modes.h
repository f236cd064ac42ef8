// modes.h: ECB, CBC decryption, serial CBC encryption and the constant-time
// PKCS#7 decryption, over a register width T (register_traits.h).
//
// Why this shape (Gueron, "Intel AES New Instructions", rev. 3.01, 2012;
// Drucker et al., "Making AES great again", 2018, for VAES):
// - ECB and CBC decryption have no dependency between blocks, so kGroup
//   registers are kept in flight.
// - CBC encryption of one message is a chain: each block needs the previous
//   ciphertext. It runs one block at a time at the instruction's latency, on
//   128-bit registers whatever the width; only independent messages can fill
//   the unit (lanes.h).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/register_traits.h"

namespace cryptobench::aesni {
namespace {

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

// decrypt_block: one block, for decrypt_padded to check the padding first.
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
    // The round keys are read as the rounds need them, and the CBC chaining
    // XOR is folded into the last round key (AESDECLAST XORs its key in
    // last), its ciphertext read again from `in`: the blocks and one key are
    // all that stay in registers, so nothing spills to the stack. Every load
    // of `in` comes before the first store, so in place is still safe.
    if (blocks <= kGroup) {
      std::size_t pad = 0;
      with_count(static_cast<int>(blocks), [&](auto count) {
        constexpr int n = decltype(count)::value;
        __m128i b[n];
        const __m128i first = load128(ks.dec[0]);
        for (int i = 0; i < n; ++i) b[i] = _mm_xor_si128(load128(in + 16 * i), first);
        for (int r = 1; r < Rounds; ++r) {
          const __m128i k = load128(ks.dec[r]);
          for (int i = 0; i < n; ++i) b[i] = _mm_aesdec_si128(b[i], k);
        }
        const __m128i last = load128(ks.dec[Rounds]);
        if (iv != nullptr) {
          b[0] = _mm_aesdeclast_si128(b[0], _mm_xor_si128(last, load128(iv)));
          for (int i = 1; i < n; ++i)
            b[i] = _mm_aesdeclast_si128(b[i], _mm_xor_si128(last, load128(in + 16 * (i - 1))));
        } else {
          for (int i = 0; i < n; ++i) b[i] = _mm_aesdeclast_si128(b[i], last);
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

}  // namespace
}  // namespace cryptobench::aesni
