// workload.h: one thread's view of a benchmark cell: its inputs, the timed
// operation, and the check of its last output against a reference backend.
//
// One class per operation family (workload_parts.h has what they share):
//   message_workload.cc    encrypt, decrypt, roundtrip, encrypt-log
//   batch_workload.cc      encrypt-batch, roundtrip-batch
//   key_setup_workload.cc  set-key
//   counter_mode_workload.cc  CTR and GCM: encrypt, decrypt, roundtrip
// Each one's run(i) is its timed operation, written out top to bottom.
//
// Pool semantics (the `pool` axis):
//   off: every operation allocates its output buffers, as idiomatic code that
//        returns fresh vectors/strings does (Go's make/EncodeToString, Java's
//        doFinal); with key:per-op it also creates its cipher context, as Go's
//        aes.NewCipher does.
//   on:  buffers and the cipher context belong to the thread and are reused;
//        key:per-op re-keys that context. No steady-state heap allocation
//        except what a library's API forces.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "benchmarks/grid.h"
#include "kernels/backend.h"

namespace cryptobench::bench {

class Workload {
 public:
  virtual ~Workload() = default;
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  // run: the timed operation number `i`. False on any failure (see error()).
  virtual bool run(std::uint64_t i) = 0;
  const std::string& error() const { return error_; }

  // verify: after the loop; "" when the last operation's outputs match what
  // the reference backend computes for the same input.
  virtual std::string verify() const = 0;

  // plaintext_bytes: bytes of plaintext processed by iteration `i` (all its
  // messages for batch ops).
  virtual std::size_t plaintext_bytes(std::uint64_t i) const = 0;
  // messages_per_iteration: 1, or the batch size.
  virtual std::size_t messages_per_iteration() const { return 1; }

  // corrupt_last_output: changes one byte of the final output (tests of
  // verification only).
  virtual void corrupt_last_output() = 0;
  // corrupt_input_tag: changes the tag of the prepared message a GCM decrypt
  // opens, so every open must fail (tests of tag checking only); false when
  // the cell opens no prepared GCM message.
  virtual bool corrupt_input_tag() { return false; }

 protected:
  Workload() = default;
  // error_: why run() last returned false.
  std::string error_;
};

// make_workload: the workload of the cell's op, its inputs drawn from `seed`;
// `reference` computes what verify() expects. Throws std::runtime_error when
// the cell is invalid or its inputs cannot be prepared.
std::unique_ptr<Workload> make_workload(const Cell& cell, const AesBackend& backend,
                                        const AesBackend& reference, std::uint64_t seed);

}  // namespace cryptobench::bench
