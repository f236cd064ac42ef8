// counter_mode_workload.cc: CTR and GCM: encrypt, decrypt, roundtrip.
//
// Every operation runs under its own counter block (CTR) or nonce (GCM),
// derived from the operation number rather than drawn at random, so it costs
// nothing and never repeats under one key: bytes 0..3 are a stream number
// unique to the workload within the process (threads sharing the seed-000
// key get different ones), bytes 4..11 the operation number, big-endian;
// CTR's bytes 12..15 count the message's blocks from 0 (messages up to
// 64 GiB never reach the operation number). GCM's 16-byte tag follows its
// ciphertext in the output buffer; with a codec both are encoded, as a
// record on the wire carries them.
#include <atomic>
#include <stdexcept>
#include <type_traits>

#include "benchmarks/workload_parts.h"

namespace cryptobench::bench {
namespace {

constexpr std::size_t kCounterBlock = 16;
constexpr std::size_t kGcmNonce = 12;

std::atomic<std::uint32_t> g_next_stream{0};

template <typename Context>
constexpr bool kIsGcm = std::is_same_v<Context, AesGcm>;

template <typename Context>
std::unique_ptr<Context> make_context(const AesBackend& backend) {
  if constexpr (kIsGcm<Context>) {
    return backend.make_gcm();
  } else {
    return backend.make_ctr();
  }
}

// CounterKeys: the cached context, or (key:per-op) the key scheduled again
// for every operation, in the pooled context or (pool off) a new one.
template <typename Context>
class CounterKeys {
 public:
  CounterKeys(const Cell& cell, const AesBackend& backend, Bytes key)
      : cell_(cell), backend_(backend), key_(key), context_(make_context<Context>(backend)) {
    if (!context_) throw std::runtime_error(cell.backend + " made no context for this mode");
    if (context_->set_key(key_) != Error::kNone) throw std::runtime_error("set_key failed");
  }

  Context* for_op(std::string& error) {
    if (cell_.key == KeyHandling::kCached) return context_.get();
    Context* context = context_.get();
    if (!cell_.pool) {
      fresh_ = make_context<Context>(backend_);
      if (!fresh_) {
        error = "the backend made no context";
        return nullptr;
      }
      context = fresh_.get();
    }
    if (const Error e = context->set_key(key_); e != Error::kNone) {
      failed(error, "set_key", e);
      return nullptr;
    }
    return context;
  }

 private:
  const Cell& cell_;
  const AesBackend& backend_;
  const Bytes key_;
  std::unique_ptr<Context> context_;  // cached key, or pooled context
  std::unique_ptr<Context> fresh_;    // pool off, key per op: this op's context
};

template <typename Context>
class CounterModeWorkload final : public Workload {
 public:
  static constexpr std::size_t kTag = kIsGcm<Context> ? kGcmTagBytes : 0;

  CounterModeWorkload(const Cell& cell, const AesBackend& backend, const AesBackend& reference,
                      Rng& rng);

  bool run(std::uint64_t i) override;
  std::string verify() const override;
  std::size_t plaintext_bytes(std::uint64_t i) const override { return inputs_.message_bytes(i); }
  void corrupt_last_output() override;
  bool corrupt_input_tag() override;

 private:
  // counter_for: operation i's counter block (GCM: its first 12 bytes are the nonce).
  void counter_for(std::uint64_t i, std::uint8_t counter[kCounterBlock]) const {
    for (int k = 0; k < 4; ++k) counter[k] = static_cast<std::uint8_t>(stream_ >> (24 - 8 * k));
    for (int k = 0; k < 8; ++k) counter[4 + k] = static_cast<std::uint8_t>(i >> (56 - 8 * k));
    for (std::size_t k = 12; k < kCounterBlock; ++k) counter[k] = 0;
  }
  // seal: `plain` -> `out` (plain.size() bytes, then GCM's tag).
  Error seal(Context& context, const std::uint8_t* counter, Bytes plain, std::uint8_t* out) const {
    Result r;
    if constexpr (kIsGcm<Context>) {
      r = context.seal({counter, kGcmNonce}, aad_, plain, {out, plain.size()},
                       {out + plain.size(), kTag});
    } else {
      r = context.crypt({counter, kCounterBlock}, plain, {out, plain.size()});
    }
    return r.error;
  }
  // open: `sealed` (ciphertext, then GCM's tag) -> `out`; GCM checks the tag.
  Error open(Context& context, const std::uint8_t* counter, Bytes sealed, std::uint8_t* out) const {
    if (sealed.size() < kTag) return Error::kInputLength;
    const std::size_t size = sealed.size() - kTag;
    Result r;
    if constexpr (kIsGcm<Context>) {
      r = context.open({counter, kGcmNonce}, aad_, sealed.first(size), sealed.last(kTag),
                       {out, size});
    } else {
      r = context.crypt({counter, kCounterBlock}, sealed, {out, size});
    }
    return r.error;
  }
  // reference_seal: what the reference backend writes for `plain` under `counter`.
  std::vector<std::uint8_t> reference_seal(const std::uint8_t* counter, Bytes plain) const;
  void encode_input();
  std::string failure(std::string_view what) const {
    return "verification failed: " + std::string(what) + " (" + cell_.backend + " vs reference " +
           reference_.info().name + ")";
  }

  const Cell cell_;
  const AesBackend& reference_;
  Inputs inputs_;
  CounterKeys<Context> keys_;
  const OutputBuffers output_;
  const Steps steps_;
  const std::uint32_t stream_;
  std::vector<std::uint8_t> aad_;
  Buffers b_;
  std::vector<std::uint8_t> input_sealed_;  // op decrypt: sealed by the reference, operation 0
  std::string input_text_;
  Bytes last_plain_;
  std::uint64_t last_op_ = 0;
};

template <typename Context>
CounterModeWorkload<Context>::CounterModeWorkload(const Cell& cell, const AesBackend& backend,
                                                  const AesBackend& reference, Rng& rng)
    : cell_(cell),
      reference_(reference),
      inputs_(cell_, rng),
      keys_(cell_, backend, inputs_.key()),
      output_(cell_, inputs_.max_plaintext()),
      steps_(cell_, backend, error_),
      stream_(g_next_stream.fetch_add(1, std::memory_order_relaxed)) {
  aad_.resize(cell.aad);
  for (auto& byte : aad_) byte = static_cast<std::uint8_t>(rng());
  if (cell.op == Op::kDecrypt) {
    std::uint8_t counter[kCounterBlock];
    counter_for(0, counter);
    input_sealed_ = reference_seal(counter, inputs_.single().random);
    encode_input();
  }
  output_.at_start(b_);
}

template <typename Context>
std::vector<std::uint8_t> CounterModeWorkload<Context>::reference_seal(const std::uint8_t* counter,
                                                                       Bytes plain) const {
  const std::unique_ptr<Context> context = make_context<Context>(reference_);
  std::vector<std::uint8_t> out(plain.size() + kTag);
  if (!context || context->set_key(inputs_.key()) != Error::kNone ||
      seal(*context, counter, plain, out.data()) != Error::kNone) {
    throw std::runtime_error("the reference backend failed to encrypt");
  }
  return out;
}

template <typename Context>
void CounterModeWorkload<Context>::encode_input() {
  input_text_.assign(encoded_size(cell_.codec, input_sealed_.size()), '\0');
  if (cell_.codec != Encoding::kNone &&
      !project_codec()
           .encode(cell_.codec, input_sealed_, {input_text_.data(), input_text_.size()})
           .ok()) {
    throw std::runtime_error("could not encode the decrypt input");
  }
}

template <typename Context>
bool CounterModeWorkload<Context>::run(std::uint64_t i) {
  Context* const context = keys_.for_op(error_);
  if (context == nullptr) return false;
  last_op_ = i;
  const Bytes plain = inputs_.plaintext(inputs_.single(), i);
  last_plain_ = plain;
  output_.per_op(b_);
  std::uint8_t counter[kCounterBlock];

  if (cell_.op == Op::kDecrypt) {
    // decrypt: text -> sealed message -> plaintext (GCM: tag checked).
    counter_for(0, counter);
    Bytes sealed = input_sealed_;
    if (cell_.codec != Encoding::kNone && !steps_.decode(input_text_, b_, sealed)) return false;
    if (const Error e = open(*context, counter, sealed, b_.plaintext.data()); e != Error::kNone)
      return failed(error_, "decrypt", e);
    keep(sealed.size(), b_.plaintext[0]);
    return true;
  }

  // plaintext -> ciphertext (and tag).
  counter_for(i, counter);
  if (const Error e = seal(*context, counter, plain, b_.ciphertext.data()); e != Error::kNone)
    return failed(error_, "encrypt", e);
  Bytes sealed = Bytes(b_.ciphertext).first(plain.size() + kTag);

  // roundtrip: -> text -> sealed message -> plaintext, compared with the original.
  if (cell_.op == Op::kRoundtrip) {
    if (cell_.codec != Encoding::kNone) {
      std::string_view text;
      if (!steps_.encode(sealed, b_, text) || !steps_.decode(text, b_, sealed)) return false;
    }
    if (const Error e = open(*context, counter, sealed, b_.plaintext.data()); e != Error::kNone)
      return failed(error_, "decrypt", e);
    if (std::memcmp(b_.plaintext.data(), plain.data(), plain.size()) != 0) {
      error_ = "roundtrip: decrypted text differs from the plaintext";
      return false;
    }
    keep(plain.size(), b_.plaintext[0]);
    return true;
  }

  if (cell_.codec == Encoding::kNone) {
    keep(sealed.size(), b_.ciphertext[0]);
    return true;
  }
  std::string_view text;
  if (!steps_.encode(sealed, b_, text)) return false;
  keep(text.size(), b_.text[0]);
  return true;
}

template <typename Context>
std::string CounterModeWorkload<Context>::verify() const {
  if (cell_.op == Op::kDecrypt) {
    if (!Verifier::same({b_.plaintext.data(), cell_.size}, inputs_.single().random)) {
      return failure("decrypted plaintext differs from the original");
    }
    return "";
  }
  std::vector<std::uint8_t> expected;
  try {
    std::uint8_t counter[kCounterBlock];
    counter_for(last_op_, counter);
    expected = reference_seal(counter, last_plain_);
  } catch (const std::exception& e) {
    return e.what();
  }
  const std::size_t size = last_plain_.size();
  if (!Verifier::same({b_.ciphertext.data(), size}, Bytes(expected).first(size))) {
    return failure("ciphertext differs from the reference");
  }
  if (!Verifier::same({b_.ciphertext.data() + size, kTag}, Bytes(expected).last(kTag))) {
    return failure("tag differs from the reference");
  }
  if (cell_.op == Op::kEncrypt && cell_.codec != Encoding::kNone) {
    std::string expected_text(encoded_size(cell_.codec, expected.size()), '\0');
    (void)project_codec().encode(cell_.codec, expected,
                                 {expected_text.data(), expected_text.size()});
    if (b_.text.compare(0, expected_text.size(), expected_text) != 0) {
      return failure(std::string(encoding_name(cell_.codec)) + " text differs from the reference");
    }
  }
  if (cell_.op == Op::kRoundtrip && !Verifier::same({b_.plaintext.data(), size}, last_plain_)) {
    return failure("roundtrip plaintext differs");
  }
  return "";
}

template <typename Context>
void CounterModeWorkload<Context>::corrupt_last_output() {
  // The operation's final output: plaintext, text, or the sealed message (the
  // tag's last byte for GCM encryption, so the tag check is what catches it).
  if (cell_.op == Op::kDecrypt) {
    b_.plaintext[0] ^= 0x01;
  } else if (cell_.op == Op::kEncrypt && cell_.codec != Encoding::kNone) {
    b_.text[0] = b_.text[0] == 'A' ? 'B' : 'A';
  } else if (kIsGcm<Context> && cell_.op == Op::kEncrypt) {
    b_.ciphertext[last_plain_.size() + kTag - 1] ^= 0x01;
  } else {
    b_.ciphertext[0] ^= 0x01;
  }
}

template <typename Context>
bool CounterModeWorkload<Context>::corrupt_input_tag() {
  if (!kIsGcm<Context> || cell_.op != Op::kDecrypt) return false;
  input_sealed_.back() ^= 0x01;
  encode_input();
  return true;
}

}  // namespace

std::unique_ptr<Workload> make_counter_mode_workload(const Cell& cell, const AesBackend& backend,
                                                     const AesBackend& reference, Rng& rng) {
  if (cell.op != Op::kEncrypt && cell.op != Op::kDecrypt && cell.op != Op::kRoundtrip)
    throw std::runtime_error("CTR and GCM cells encrypt, decrypt or roundtrip");
  if (cell.key != KeyHandling::kCached && cell.key != KeyHandling::kPerOp)
    throw std::runtime_error("CTR and GCM cells take key:cached or key:per-op");
  if (cell.mode == Mode::kGcm) {
    return std::make_unique<CounterModeWorkload<AesGcm>>(cell, backend, reference, rng);
  }
  if (cell.aad != 0) throw std::runtime_error("CTR has no additional authenticated data");
  return std::make_unique<CounterModeWorkload<AesCtr>>(cell, backend, reference, rng);
}

}  // namespace cryptobench::bench
