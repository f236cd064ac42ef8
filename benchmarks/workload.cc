#include "benchmarks/workload.h"

#include <stdexcept>

#include "benchmarks/workload_parts.h"

namespace cryptobench::bench {

std::unique_ptr<Workload> make_workload(const Cell& cell, const AesBackend& backend,
                                        const AesBackend& reference, std::uint64_t seed) {
  Rng rng(seed);
  if (!is_block_mode(cell.mode)) return make_counter_mode_workload(cell, backend, reference, rng);
  switch (cell.op) {
    case Op::kEncrypt:
    case Op::kDecrypt:
    case Op::kRoundtrip:
    case Op::kEncryptLog:
      return make_message_workload(cell, backend, reference, rng);
    case Op::kEncryptBatch:
    case Op::kRoundtripBatch:
      return make_batch_workload(cell, backend, reference, rng);
    case Op::kSetKey:
      return make_key_setup_workload(cell, backend, reference, rng);
  }
  throw std::runtime_error("unknown op");
}

}  // namespace cryptobench::bench
