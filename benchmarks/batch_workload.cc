// batch_workload.cc: the batch ops: encrypt-batch, roundtrip-batch.
#include <stdexcept>

#include "benchmarks/workload_parts.h"

namespace cryptobench::bench {
namespace {

class BatchWorkload final : public Workload {
 public:
  BatchWorkload(const Cell& cell, const AesBackend& backend, const AesBackend& reference, Rng& rng);

  bool run(std::uint64_t i) override;
  std::string verify() const override;
  std::size_t plaintext_bytes(std::uint64_t i) const override;
  std::size_t messages_per_iteration() const override { return cell_.messages; }
  void corrupt_last_output() override;

 private:
  // One message of the batch, with everything it owns.
  struct Slot {
    std::vector<std::uint8_t> iv;
    MessageInput input;
    Bytes plain;  // this iteration's plaintext
    Buffers buffers;
    std::unique_ptr<AesCipher> cipher;  // key:per-op: this message's own key schedule
    std::size_t plaintext_size = 0;     // what its decryption returned
  };

  const Cell cell_;
  const AesBackend& backend_;
  Inputs inputs_;
  Keys keys_;
  const OutputBuffers output_;
  const Steps steps_;
  const Verifier verifier_;
  std::vector<Slot> slots_;
  std::vector<BatchMessage> batch_;  // the encrypt_batch argument
};

BatchWorkload::BatchWorkload(const Cell& cell, const AesBackend& backend,
                             const AesBackend& reference, Rng& rng)
    : cell_(cell),
      backend_(backend),
      inputs_(cell_, rng),
      keys_(cell_, backend, inputs_.key(), rng),
      output_(cell_, inputs_.max_plaintext()),
      steps_(cell_, backend, error_),
      verifier_(cell_, reference, keys_, inputs_.key()) {
  if (cell.messages == 0) throw std::runtime_error("a batch needs at least one message");
  if (keys_.derived()) throw std::runtime_error("batch ops take cached or per-op keys");
  if (cell.op == Op::kEncryptBatch && cell.codec != Encoding::kNone)
    throw std::runtime_error("encrypt-batch measures encryption alone (codec none)");
  slots_.resize(cell.messages);
  batch_.resize(cell.messages);
  for (Slot& slot : slots_) {
    inputs_.draw_message(rng, slot.iv, slot.input);
    if (cell.key == KeyHandling::kPerOp) slot.cipher = backend.make_cipher(cell.mode);
    output_.at_start(slot.buffers);
  }
}

bool BatchWorkload::run(std::uint64_t i) {
  // Every message's key, plaintext and (pool off) new buffers, as one
  // encrypt_batch argument.
  const std::size_t n = slots_.size();
  for (std::size_t m = 0; m < n; ++m) {
    Slot& slot = slots_[m];
    AesCipher* key = nullptr;  // the batch cipher's cached key
    Bytes new_key;
    if (cell_.key == KeyHandling::kPerOp) {
      // Every message gets a new key schedule, made by encrypt_batch for the
      // whole batch at once.
      if (!cell_.pool) slot.cipher = backend_.make_cipher(cell_.mode);
      key = slot.cipher.get();
      new_key = inputs_.key();
    }
    slot.plain = inputs_.plaintext(slot.input, i * n + m);
    output_.per_op(slot.buffers);
    batch_[m] = {slot.iv, slot.plain, slot.buffers.ciphertext, key, {}, new_key};
  }

  // plaintexts -> ciphertexts, in one call.
  if (const Error e = keys_.cipher().encrypt_batch(Padding::kPkcs7, batch_); e != Error::kNone) {
    return failed(error_, "encrypt_batch", e);
  }
  if (cell_.op == Op::kEncryptBatch) {
    keep(batch_.back().result.size, slots_.back().buffers.ciphertext[0]);
    return true;
  }

  // roundtrip-batch: each message -> text -> ciphertext -> plaintext, compared
  // with its original.
  for (std::size_t m = 0; m < n; ++m) {
    Slot& slot = slots_[m];
    AesCipher& key = batch_[m].key != nullptr ? *batch_[m].key : keys_.cipher();
    const Bytes ciphertext = Bytes(slot.buffers.ciphertext).first(batch_[m].result.size);
    if (!steps_.roundtrip_tail(key, slot.iv, ciphertext, slot.plain, slot.buffers,
                               slot.plaintext_size)) {
      return false;
    }
  }
  return true;
}

std::size_t BatchWorkload::plaintext_bytes(std::uint64_t i) const {
  std::size_t total = 0;
  for (std::uint64_t m = 0; m < cell_.messages; ++m)
    total += inputs_.message_bytes(i * cell_.messages + m);
  return total;
}

std::string BatchWorkload::verify() const {
  for (std::size_t m = 0; m < slots_.size(); ++m) {
    const Slot& slot = slots_[m];
    const std::string which = "message " + std::to_string(m) + " of the batch";
    std::vector<std::uint8_t> expected;
    try {
      expected = verifier_.ciphertext(slot.plain, inputs_.key(), slot.iv);
    } catch (const std::exception& e) {
      return e.what();
    }
    if (!Verifier::same({slot.buffers.ciphertext.data(), batch_[m].result.size}, expected)) {
      return verifier_.failure(which + ": ciphertext differs from the reference");
    }
    if (cell_.op == Op::kRoundtripBatch &&
        !Verifier::same({slot.buffers.plaintext.data(), slot.plaintext_size}, slot.plain)) {
      return verifier_.failure(which + ": roundtrip plaintext differs");
    }
  }
  return "";
}

void BatchWorkload::corrupt_last_output() { slots_.back().buffers.ciphertext[0] ^= 0x01; }

}  // namespace

std::unique_ptr<Workload> make_batch_workload(const Cell& cell, const AesBackend& backend,
                                              const AesBackend& reference, Rng& rng) {
  return std::make_unique<BatchWorkload>(cell, backend, reference, rng);
}

}  // namespace cryptobench::bench
