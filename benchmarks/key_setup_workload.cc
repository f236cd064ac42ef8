// key_setup_workload.cc: op set-key: the key setup alone (derivation, if
// any, and both key schedules).
#include <stdexcept>

#include "benchmarks/workload_parts.h"

namespace cryptobench::bench {
namespace {

class KeySetupWorkload final : public Workload {
 public:
  KeySetupWorkload(const Cell& cell, const AesBackend& backend, const AesBackend& reference,
                   Rng& rng)
      : cell_(cell),
        inputs_(cell_, rng),
        keys_(cell_, backend, inputs_.key(), rng),
        verifier_(cell_, reference, keys_, inputs_.key()),
        last_cipher_(&keys_.cipher()) {
    if (cell.key == KeyHandling::kCached) {
      throw std::runtime_error("set-key with a cached key measures nothing");
    }
  }

  bool run(std::uint64_t i) override {
    // Operation i's key (derived, if derived keys) and its key schedules.
    AesCipher* const cipher = keys_.rekey(i, error_);
    if (cipher == nullptr) return false;
    benchmark::DoNotOptimize(cipher);
    last_cipher_ = cipher;
    last_op_ = i;
    return true;
  }

  std::string verify() const override;
  std::size_t plaintext_bytes(std::uint64_t) const override { return 0; }
  void corrupt_last_output() override {
    std::vector<std::uint8_t> wrong(cell_.key_bytes, 0x5a);
    (void)last_cipher_->set_key(wrong);
  }

 private:
  const Cell cell_;
  Inputs inputs_;
  Keys keys_;
  const Verifier verifier_;
  AesCipher* last_cipher_;
  std::uint64_t last_op_ = 0;
};

std::string KeySetupWorkload::verify() const {
  // The last key setup: one block under it must match the reference's.
  bool differs = false;
  try {
    const std::vector<std::uint8_t> key = verifier_.key(last_op_);
    const Block zero{};
    Block mine{};
    const std::vector<std::uint8_t> theirs = verifier_.ciphertext(zero, key, inputs_.iv());
    differs = !last_cipher_->encrypt(Padding::kNone, inputs_.iv(), zero, mine).ok() ||
              std::memcmp(mine.data(), theirs.data(), mine.size()) != 0;
  } catch (const std::exception& e) {
    return e.what();
  }
  if (differs) {
    return verifier_.failure("the key set up last encrypts differently from the reference");
  }
  return "";
}

}  // namespace

std::unique_ptr<Workload> make_key_setup_workload(const Cell& cell, const AesBackend& backend,
                                                  const AesBackend& reference, Rng& rng) {
  return std::make_unique<KeySetupWorkload>(cell, backend, reference, rng);
}

}  // namespace cryptobench::bench
