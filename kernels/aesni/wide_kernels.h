// wide_kernels.h: the BlockKernels table of a register width T, the modes
// (modes.h), multi-buffer lanes (lanes.h) and batched key schedule
// (key_schedule.h) and CTR (ctr.h) written once over T. Included by the three kernel files,
// each compiled with the instruction set of its width: 128-bit AES-NI
// (aesni_kernels.cc), 256-bit and 512-bit VAES (kernels/vaes/).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/ctr.h"
#include "kernels/aesni/key_schedule.h"
#include "kernels/aesni/lanes.h"
#include "kernels/aesni/modes.h"
#include "kernels/aesni/register_traits.h"

namespace cryptobench::aesni {
namespace {

// CRYPTOBENCH_DISPATCH_ROUNDS: calls call(R) for the schedule's round count.
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
    if constexpr (T::kBlocks > 1) {
      return narrow_table().cbc_encrypt(ks, iv, in, out, blocks, final);
    } else {
#define CALL(R) cbc_enc<R>(ks, iv, in, out, blocks, final)
      CRYPTOBENCH_DISPATCH_ROUNDS(ks.rounds, CALL)
#undef CALL
    }
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

  static void ctr_crypt(const KeySchedule& ks, const std::uint8_t* counter, const std::uint8_t* in,
                        std::uint8_t* out, std::size_t bytes) {
    if (narrow((bytes + 15) / 16)) return narrow_table().ctr_crypt(ks, counter, in, out, bytes);
#define CALL(R) ctr<T, R>(ks, counter, in, out, bytes)
    CRYPTOBENCH_DISPATCH_ROUNDS(ks.rounds, CALL)
#undef CALL
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
            decrypt_pkcs7, cbc_encrypt_lanes, expand_many, ctr_crypt};
  }
};

#undef CRYPTOBENCH_DISPATCH_ROUNDS

}  // namespace
}  // namespace cryptobench::aesni
