// lanes.h: multi-buffer CBC encryption over a register width T
// (register_traits.h). One message's CBC encryption is a chain of AESENCs at
// the instruction's latency; independent messages fill the unit instead, one
// per 128-bit lane, each lane its own chain, refilled as messages end.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/aesni/aesni_kernels.h"
#include "kernels/aesni/register_traits.h"

namespace cryptobench::aesni {
namespace {

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
  if constexpr (SharedKey) broadcast_keys<T, Rounds>(messages[0].schedule->enc, shared);
  while (refill()) {
    for (int v = 0; v < N; ++v) chain[v] = T::load(chain_mem[v * T::kBlocks]);
    if constexpr (!SharedKey) {
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
      if constexpr (SharedKey) {
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

}  // namespace
}  // namespace cryptobench::aesni
