#include "benchmarks/workload.h"

#include <charconv>
#include <cstring>
#include <random>
#include <stdexcept>

namespace cryptobench::bench {
namespace {

// The seed-000 program's constants: an ASCII key and IV.
constexpr char kSeed000Key[] = "B31F2A75FBF94099";
constexpr char kSeed000Iv[] = "1234567890123456";
constexpr std::size_t kMaxCounterDigits = 20;

std::vector<std::uint8_t> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

std::string random_alphanumeric(std::mt19937_64& rng, std::size_t n) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string s(n, '\0');
  for (char& c : s) c = kAlphabet[rng() % (sizeof kAlphabet - 1)];
  return s;
}

Bytes as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

Workload::Workload(const Cell& cell, const AesBackend& backend, const AesBackend& reference,
                   std::uint64_t seed)
    : cell_(cell), backend_(backend), reference_(reference) {
  std::mt19937_64 rng(seed);
  if (cell.payload == Payload::kSeed000Message) {
    key_.assign(kSeed000Key, kSeed000Key + 16);
    iv_.assign(kSeed000Iv, kSeed000Iv + 16);
    message_prefix_ = random_alphanumeric(rng, cell.size);
    message_buffer_.assign(message_prefix_.begin(), message_prefix_.end());
    message_buffer_.resize(cell.size + kMaxCounterDigits);
    if (cell.op != Op::kRoundtrip)
      throw std::runtime_error("the seed-000 message is a roundtrip workload");
  } else {
    key_ = random_bytes(rng, cell.key_bytes);
    iv_ = random_bytes(rng, kAesBlockSize);
    random_plaintext_ = random_bytes(rng, cell.size);
  }
  if (cell.mode == Mode::kEcb) iv_.clear();

  // Buffer sizes for the largest operation.
  const std::size_t max_plain =
      cell.size + (cell.payload == Payload::kSeed000Message ? kMaxCounterDigits : 0);
  ciphertext_size_ = pkcs7_padded_size(max_plain);
  text_size_ = encoded_size(cell.codec, ciphertext_size_);
  plaintext_size_ = ciphertext_size_;

  cipher_ = backend.make_cipher(cell.mode);
  if (cipher_->set_key(key_) != Error::kNone) throw std::runtime_error("set_key failed");

  if (cell.op == Op::kDecrypt) {
    input_ciphertext_ = reference_ciphertext(random_plaintext_);
    input_text_.resize(encoded_size(cell.codec, input_ciphertext_.size()));
    if (cell.codec != Encoding::kNone &&
        !project_codec()
             .encode(cell.codec, input_ciphertext_, {input_text_.data(), input_text_.size()})
             .ok()) {
      throw std::runtime_error("could not encode the decrypt input");
    }
  }
  if (cell.pool) allocate(buffers_);
}

void Workload::allocate(Buffers& b) const {
  // Only the buffers this operation writes; value-initialised, as Go's make()
  // and Java's new byte[] are.
  const bool encrypts = cell_.op != Op::kDecrypt;
  const bool decrypts = cell_.op != Op::kEncrypt;
  const bool codec = cell_.codec != Encoding::kNone;
  if (encrypts) b.ciphertext = std::vector<std::uint8_t>(ciphertext_size_);
  if (encrypts && codec) b.text = std::string(text_size_, '\0');
  if (decrypts && codec)
    b.decoded = std::vector<std::uint8_t>(decode_capacity(cell_.codec, text_size_));
  if (decrypts) b.plaintext = std::vector<std::uint8_t>(plaintext_size_);
}

bool Workload::fail(std::string message) {
  error_ = std::move(message);
  return false;
}

Bytes Workload::payload(std::uint64_t i) {
  if (cell_.payload == Payload::kRandom) return random_plaintext_;
  if (!cell_.pool) {
    // What the seed's Java and Go code do: a new string per operation.
    message_ = message_prefix_ + std::to_string(i);
    return as_bytes(message_);
  }
  char* const start = message_buffer_.data();
  char* const end = std::to_chars(start + cell_.size, start + message_buffer_.size(), i).ptr;
  message_length_ = static_cast<std::size_t>(end - start);
  return as_bytes({start, message_length_});
}

std::size_t Workload::plaintext_bytes(std::uint64_t i) const {
  if (cell_.payload == Payload::kRandom) return cell_.size;
  std::size_t digits = 1;
  for (std::uint64_t v = i; v >= 10; v /= 10) ++digits;
  return cell_.size + digits;
}

bool Workload::run(std::uint64_t i) {
  const Bytes plain = payload(i);
  last_plain_ = plain;
  AesCipher* cipher = cipher_.get();
  std::unique_ptr<AesCipher> fresh;
  if (cell_.key == KeyHandling::kPerOp) {
    if (!cell_.pool) {
      fresh = backend_.make_cipher(cell_.mode);
      cipher = fresh.get();
    }
    if (const Error e = cipher->set_key(key_); e != Error::kNone)
      return fail("set_key: " + std::string(describe(e)));
  }
  if (!cell_.pool) allocate(buffers_);
  Buffers& b = buffers_;

  Bytes ciphertext;
  if (cell_.op == Op::kDecrypt) {
    ciphertext = input_ciphertext_;
  } else {
    const Result r = cipher->encrypt(Padding::kPkcs7, iv_, plain, b.ciphertext);
    if (!r.ok()) return fail("encrypt: " + std::string(describe(r.error)));
    ciphertext = Bytes(b.ciphertext).first(r.size);
  }

  if (cell_.codec != Encoding::kNone) {
    std::string_view text = input_text_;
    if (cell_.op != Op::kDecrypt) {
      const Result r =
          backend_.codec().encode(cell_.codec, ciphertext, {b.text.data(), b.text.size()});
      if (!r.ok()) return fail("encode: " + std::string(describe(r.error)));
      text = std::string_view(b.text.data(), r.size);
    }
    if (cell_.op == Op::kEncrypt) return true;
    const Result r = backend_.codec().decode(cell_.codec, text, b.decoded);
    if (!r.ok()) return fail("decode: " + std::string(describe(r.error)));
    ciphertext = Bytes(b.decoded).first(r.size);
  } else if (cell_.op == Op::kEncrypt) {
    return true;
  }

  const Result r = cipher->decrypt(Padding::kPkcs7, iv_, ciphertext, b.plaintext);
  if (!r.ok()) return fail("decrypt: " + std::string(describe(r.error)));
  last_plaintext_size_ = r.size;
  if (cell_.op == Op::kRoundtrip &&
      (r.size != plain.size() ||
       std::memcmp(b.plaintext.data(), plain.data(), plain.size()) != 0)) {
    return fail("roundtrip: decrypted text differs from the plaintext");
  }
  return true;
}

std::vector<std::uint8_t> Workload::reference_ciphertext(Bytes plain) const {
  const auto cipher = reference_.make_cipher(cell_.mode);
  std::vector<std::uint8_t> out(pkcs7_padded_size(plain.size()));
  if (cipher->set_key(key_) != Error::kNone ||
      !cipher->encrypt(Padding::kPkcs7, iv_, plain, out).ok()) {
    throw std::runtime_error("the reference backend failed to encrypt");
  }
  return out;
}

std::string Workload::verify() const {
  const std::string who = " (" + cell_.backend + " vs reference " + reference_.info().name + ")";
  if (cell_.op == Op::kDecrypt) {
    if (last_plaintext_size_ != random_plaintext_.size() ||
        std::memcmp(buffers_.plaintext.data(), random_plaintext_.data(),
                    random_plaintext_.size()) != 0) {
      return "verification failed: decrypted plaintext differs from the original" + who;
    }
    return "";
  }
  std::vector<std::uint8_t> expected;
  try {
    expected = reference_ciphertext(last_plain_);
  } catch (const std::exception& e) {
    return e.what();
  }
  if (std::memcmp(buffers_.ciphertext.data(), expected.data(), expected.size()) != 0) {
    return "verification failed: ciphertext differs from the reference" + who;
  }
  if (cell_.codec != Encoding::kNone) {
    std::string expected_text(encoded_size(cell_.codec, expected.size()), '\0');
    (void)project_codec().encode(cell_.codec, expected,
                                 {expected_text.data(), expected_text.size()});
    if (buffers_.text.compare(0, expected_text.size(), expected_text) != 0) {
      return "verification failed: " + std::string(encoding_name(cell_.codec)) +
             " text differs from the reference" + who;
    }
  }
  if (cell_.op == Op::kRoundtrip &&
      (last_plaintext_size_ != last_plain_.size() ||
       std::memcmp(buffers_.plaintext.data(), last_plain_.data(), last_plain_.size()) != 0)) {
    return "verification failed: roundtrip plaintext differs" + who;
  }
  return "";
}

void Workload::corrupt_last_output() {
  // The operation's final output: plaintext, text, or ciphertext.
  if (cell_.op == Op::kDecrypt) {
    buffers_.plaintext[0] ^= 0x01;
  } else if (cell_.op == Op::kEncrypt && cell_.codec != Encoding::kNone) {
    buffers_.text[0] = buffers_.text[0] == 'A' ? 'B' : 'A';
  } else {
    buffers_.ciphertext[0] ^= 0x01;
  }
}

}  // namespace cryptobench::bench
