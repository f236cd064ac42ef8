// message_workload.cc: the single-message ops: encrypt, decrypt, roundtrip,
// encrypt-log.
#include <chrono>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "benchmarks/workload_parts.h"

namespace cryptobench::bench {
namespace {

class MessageWorkload final : public Workload {
 public:
  MessageWorkload(const Cell& cell, const AesBackend& backend, const AesBackend& reference,
                  Rng& rng);

  bool run(std::uint64_t i) override;
  std::string verify() const override;
  std::size_t plaintext_bytes(std::uint64_t i) const override { return inputs_.message_bytes(i); }
  void corrupt_last_output() override;

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };

  bool write_log_line(std::string_view text);

  const Cell cell_;
  Inputs inputs_;
  Keys keys_;
  const OutputBuffers output_;
  const Steps steps_;
  const Verifier verifier_;
  Buffers b_;
  std::vector<std::uint8_t> input_ciphertext_;  // op decrypt: prepared by the reference
  std::string input_text_;
  std::unique_ptr<std::FILE, FileCloser> log_;  // op encrypt-log: an anonymous temp file
  std::uint64_t log_bytes_ = 0;
  Bytes last_plain_;
  std::uint64_t last_op_ = 0;
  std::size_t last_plaintext_size_ = 0;  // what the last decryption returned
};

MessageWorkload::MessageWorkload(const Cell& cell, const AesBackend& backend,
                                 const AesBackend& reference, Rng& rng)
    : cell_(cell),
      inputs_(cell_, rng),
      keys_(cell_, backend, inputs_.key(), rng),
      output_(cell_, inputs_.max_plaintext()),
      steps_(cell_, backend, error_),
      verifier_(cell_, reference, keys_, inputs_.key()) {
  if (cell.op == Op::kEncryptLog) {
    if (cell.codec != Encoding::kBase64) throw std::runtime_error("encrypt-log logs Base64");
    log_.reset(std::tmpfile());
    if (!log_) throw std::runtime_error("cannot create the log file");
  }
  if (cell.op == Op::kDecrypt) {
    input_ciphertext_ = verifier_.ciphertext(inputs_.single().random, inputs_.key(), inputs_.iv());
    input_text_.resize(encoded_size(cell.codec, input_ciphertext_.size()));
    if (cell.codec != Encoding::kNone &&
        !project_codec()
             .encode(cell.codec, input_ciphertext_, {input_text_.data(), input_text_.size()})
             .ok()) {
      throw std::runtime_error("could not encode the decrypt input");
    }
  }
  output_.at_start(b_);
}

bool MessageWorkload::run(std::uint64_t i) {
  // The key: the cached one, or this operation's own (derived, if derived keys).
  AesCipher* const cipher = keys_.for_op(i, error_);
  if (cipher == nullptr) return false;
  last_op_ = i;
  // The plaintext, and (pool off) this operation's new buffers.
  const Bytes plain = inputs_.plaintext(inputs_.single(), i);
  last_plain_ = plain;
  output_.per_op(b_);
  const Bytes iv = inputs_.iv();

  if (cell_.op == Op::kDecrypt) {
    // decrypt: text -> ciphertext (codec none: the ciphertext itself) -> plaintext.
    Bytes ciphertext = input_ciphertext_;
    if (cell_.codec != Encoding::kNone && !steps_.decode(input_text_, b_, ciphertext)) return false;
    if (!steps_.decrypt(*cipher, iv, ciphertext, b_, last_plaintext_size_)) return false;
    keep(last_plaintext_size_, b_.plaintext[0]);
    return true;
  }

  // plaintext -> ciphertext.
  const Result r = cipher->encrypt(Padding::kPkcs7, iv, plain, b_.ciphertext);
  if (!r.ok()) return failed(error_, "encrypt", r.error);
  const Bytes ciphertext = Bytes(b_.ciphertext).first(r.size);

  // roundtrip: -> text -> ciphertext -> plaintext, compared with the original.
  if (cell_.op == Op::kRoundtrip) {
    return steps_.roundtrip_tail(*cipher, iv, ciphertext, plain, b_, last_plaintext_size_);
  }

  // encrypt: the ciphertext, or its text; encrypt-log: the text, logged.
  if (cell_.codec == Encoding::kNone) {
    keep(ciphertext.size(), b_.ciphertext[0]);
    return true;
  }
  std::string_view text;
  if (!steps_.encode(ciphertext, b_, text)) return false;
  keep(text.size(), b_.text[0]);
  if (cell_.op == Op::kEncryptLog) return write_log_line(text);
  return true;
}

bool MessageWorkload::write_log_line(std::string_view text) {
  // What a logging call in the hot path does: format a line (allocating, as
  // printf-style loggers do) and write it out before returning.
  std::ostringstream line;
  line << std::chrono::system_clock::now().time_since_epoch().count() << " INFO encrypted payload ("
       << text.size() << " chars): " << text << '\n';
  const std::string formatted = line.str();
  if (std::fwrite(formatted.data(), 1, formatted.size(), log_.get()) != formatted.size() ||
      std::fflush(log_.get()) != 0) {
    error_ = "log write failed";
    return false;
  }
  log_bytes_ += formatted.size();
  return true;
}

std::string MessageWorkload::verify() const {
  if (cell_.op == Op::kDecrypt) {
    if (!Verifier::same({b_.plaintext.data(), last_plaintext_size_}, inputs_.single().random)) {
      return verifier_.failure("decrypted plaintext differs from the original");
    }
    return "";
  }
  std::vector<std::uint8_t> expected;
  try {
    const std::vector<std::uint8_t> key = verifier_.key(last_op_);
    expected = verifier_.ciphertext(last_plain_, key, inputs_.iv());
  } catch (const std::exception& e) {
    return e.what();
  }
  // The buffers of the seed-000 message have room for the longest counter.
  if (!Verifier::same({b_.ciphertext.data(), expected.size()}, expected)) {
    return verifier_.failure("ciphertext differs from the reference");
  }
  if (cell_.codec != Encoding::kNone) {
    const std::string expected_text = verifier_.text(expected);
    if (b_.text.compare(0, expected_text.size(), expected_text) != 0) {
      return verifier_.failure(std::string(encoding_name(cell_.codec)) +
                               " text differs from the reference");
    }
  }
  if (cell_.op == Op::kEncryptLog && log_bytes_ == 0)
    return "verification failed: nothing was logged";
  if (cell_.op == Op::kRoundtrip &&
      !Verifier::same({b_.plaintext.data(), last_plaintext_size_}, last_plain_)) {
    return verifier_.failure("roundtrip plaintext differs");
  }
  return "";
}

void MessageWorkload::corrupt_last_output() {
  // The operation's final output: plaintext, text, or ciphertext.
  if (cell_.op == Op::kDecrypt) {
    b_.plaintext[0] ^= 0x01;
  } else if (cell_.op != Op::kRoundtrip && cell_.codec != Encoding::kNone) {
    b_.text[0] = b_.text[0] == 'A' ? 'B' : 'A';
  } else {
    b_.ciphertext[0] ^= 0x01;
  }
}

}  // namespace

std::unique_ptr<Workload> make_message_workload(const Cell& cell, const AesBackend& backend,
                                                const AesBackend& reference, Rng& rng) {
  return std::make_unique<MessageWorkload>(cell, backend, reference, rng);
}

}  // namespace cryptobench::bench
