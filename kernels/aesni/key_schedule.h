// key_schedule.h: AES-128 and AES-256 key expansion (FIPS-197 5.2), one key
// per 128-bit lane of N registers. The one-key schedule (expand_key in
// aesni_kernels.cc) is this with a single xmm lane; the batched one fills
// the lanes with different keys so their latency chains overlap.
//
// - SubWord(RotWord(w)) ^ Rcon comes from AESENCLAST on the last word copied
//   to all four columns: ShiftRows is then a no-op, SubBytes is SubWord, and
//   the round key XORed in is the round constant. AESKEYGENASSIST computes
//   the same but is slow on recent cores.
// - Decryption keys are AESIMC(enc[i]) in reverse order (the Equivalent
//   Inverse Cipher), so AESDEC can be used.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/register_traits.h"
#include "kernels/pkcs7.h"

namespace cryptobench::aesni {
namespace {

// expand_lanes: the schedules of N x kBlocks AES-128 or AES-256 keys, keys[j]
// into out[j]. AES-256 alternates two steps: even round keys take
// SubWord(RotWord()) ^ Rcon of the previous odd key's last word, odd ones
// SubWord() of the previous even key's last word (the Nk > 6 case).
template <class T, int N>
void expand_lanes(const std::uint8_t* const* keys, std::size_t key_size, KeySchedule* const* out) {
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

// expand_group: n <= N x kBlocks schedules in one expand_lanes; lanes without
// a key of their own repeat the first one into a scratch schedule.
template <class T, int N>
void expand_group(const std::uint8_t* const* keys, std::size_t key_size, KeySchedule* const* out,
                  std::size_t n) {
  constexpr std::size_t kLanes = N * T::kBlocks;
  if (n == kLanes) {
    expand_lanes<T, N>(keys, key_size, out);
    return;
  }
  KeySchedule scratch;
  const std::uint8_t* k[kLanes];
  KeySchedule* o[kLanes];
  for (std::size_t j = 0; j < kLanes; ++j) {
    k[j] = keys[j < n ? j : 0];
    o[j] = j < n ? out[j] : &scratch;
  }
  expand_lanes<T, N>(k, key_size, o);
  secure_wipe(&scratch, sizeof scratch);
}

// expand_keys: n key schedules, up to MaxRegisters registers of lanes at a
// time and no more registers than the keys fill. One key, or AES-192, whose
// 6-word stride does not fit the lanes, goes through expand_key one at a time.
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
      if constexpr (kN <= MaxRegisters) expand_group<T, kN>(keys + i, key_size, out + i, m);
    });
  }
}

}  // namespace
}  // namespace cryptobench::aesni
