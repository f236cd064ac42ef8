#include "benchmarks/workload.h"

#include <charconv>
#include <chrono>
#include <cstring>
#include <random>
#include <sstream>
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
    if (cell.op != Op::kRoundtrip && cell.op != Op::kRoundtripBatch)
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
  last_cipher_ = cipher_.get();

  const bool derived = cell.key == KeyHandling::kHmac || cell.key == KeyHandling::kPbkdf2;
  if (derived) {
    if (cell.op == Op::kDecrypt)
      throw std::runtime_error("derived keys need an encrypting operation");
    secret_ = random_bytes(rng, kSha256Size);
    salt_prefix_ = random_bytes(rng, 8);
    derived_key_.resize(cell.key_bytes);
    deriver_ = backend.key_deriver();
    if (!deriver_) throw std::runtime_error("no key derivation available for " + cell.backend);
  }
  if (cell.op == Op::kSetKey && cell.key == KeyHandling::kCached) {
    throw std::runtime_error("set-key with a cached key measures nothing");
  }
  if (cell.op == Op::kEncryptLog) {
    if (cell.codec != Encoding::kBase64) throw std::runtime_error("encrypt-log logs Base64");
    log_.reset(std::tmpfile());
    if (!log_) throw std::runtime_error("cannot create the log file");
  }

  if (cell.op == Op::kDecrypt) {
    input_ciphertext_ = reference_ciphertext(random_plaintext_, key_);
    input_text_.resize(encoded_size(cell.codec, input_ciphertext_.size()));
    if (cell.codec != Encoding::kNone &&
        !project_codec()
             .encode(cell.codec, input_ciphertext_, {input_text_.data(), input_text_.size()})
             .ok()) {
      throw std::runtime_error("could not encode the decrypt input");
    }
  }
  if (cell.batch()) {
    if (cell.messages == 0) throw std::runtime_error("a batch needs at least one message");
    if (derived) throw std::runtime_error("batch ops take cached or per-op keys");
    if (cell.op == Op::kEncryptBatch && cell.codec != Encoding::kNone)
      throw std::runtime_error("encrypt-batch measures encryption alone (codec none)");
    slots_.resize(cell.messages);
    batch_.resize(cell.messages);
    for (Slot& slot : slots_) {
      // The seed's messages share its fixed IV; random ones get their own.
      slot.iv = cell.payload == Payload::kSeed000Message ? iv_ : random_bytes(rng, kAesBlockSize);
      if (cell.mode == Mode::kEcb) slot.iv.clear();
      if (cell.payload == Payload::kRandom) {
        slot.random_plaintext = random_bytes(rng, cell.size);
      } else {
        slot.message_buffer = message_buffer_;
      }
      if (cell.key == KeyHandling::kPerOp) slot.cipher = backend.make_cipher(cell.mode);
      if (cell.pool) allocate(slot.buffers);
    }
    return;
  }
  if (cell.pool) allocate(buffers_);
}

void Workload::allocate(Buffers& b) const {
  // Only the buffers this operation writes; value-initialised, as Go's make()
  // and Java's new byte[] are.
  if (cell_.op == Op::kSetKey) return;
  const bool encrypts = cell_.op != Op::kDecrypt;
  const bool decrypts =
      cell_.op == Op::kDecrypt || cell_.op == Op::kRoundtrip || cell_.op == Op::kRoundtripBatch;
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

Bytes Workload::seed000_message(std::uint64_t counter, std::vector<char>& buffer,
                                std::string& fresh) {
  if (!cell_.pool) {
    // What the seed's Java and Go code do: a new string per operation.
    fresh = message_prefix_ + std::to_string(counter);
    return as_bytes(fresh);
  }
  char* const start = buffer.data();
  char* const end = std::to_chars(start + cell_.size, start + buffer.size(), counter).ptr;
  return as_bytes({start, static_cast<std::size_t>(end - start)});
}

Bytes Workload::payload(std::uint64_t i) {
  if (cell_.payload == Payload::kRandom) return random_plaintext_;
  return seed000_message(i, message_buffer_, message_);
}

std::size_t Workload::message_bytes(std::uint64_t counter) const {
  if (cell_.payload == Payload::kRandom) return cell_.size;
  std::size_t digits = 1;
  for (std::uint64_t v = counter; v >= 10; v /= 10) ++digits;
  return cell_.size + digits;
}

std::size_t Workload::plaintext_bytes(std::uint64_t i) const {
  if (cell_.op == Op::kSetKey) return 0;
  if (!cell_.batch()) return message_bytes(i);
  std::size_t total = 0;
  for (std::uint64_t m = 0; m < cell_.messages; ++m) total += message_bytes(i * cell_.messages + m);
  return total;
}

void Workload::salt_for(std::uint64_t i, std::uint8_t salt[16]) const {
  std::memcpy(salt, salt_prefix_.data(), 8);
  for (int k = 0; k < 8; ++k) salt[8 + k] = static_cast<std::uint8_t>(i >> (8 * k));
}

bool Workload::rekey(std::uint64_t i, AesCipher** cipher) {
  if (!cell_.pool) {
    fresh_cipher_ = backend_.make_cipher(cell_.mode);
    *cipher = fresh_cipher_.get();
  }
  Bytes key = key_;
  if (cell_.key == KeyHandling::kHmac || cell_.key == KeyHandling::kPbkdf2) {
    KeyDeriver* kdf = deriver_.get();
    if (!cell_.pool) {
      fresh_deriver_ = backend_.key_deriver();
      kdf = fresh_deriver_.get();
    }
    std::uint8_t salt[16];
    salt_for(i, salt);
    const Error e = cell_.key == KeyHandling::kHmac
                        ? kdf->hmac_sha256(secret_, salt, derived_key_)
                        : kdf->pbkdf2_sha256(secret_, salt, cell_.pbkdf2_iterations, derived_key_);
    if (e != Error::kNone) return fail("key derivation: " + std::string(describe(e)));
    key = derived_key_;
  }
  if (const Error e = (*cipher)->set_key(key); e != Error::kNone) {
    return fail("set_key: " + std::string(describe(e)));
  }
  return true;
}

bool Workload::write_log_line(std::string_view text) {
  // What a logging call in the hot path does: format a line (allocating, as
  // printf-style loggers do) and write it out before returning.
  std::ostringstream line;
  line << std::chrono::system_clock::now().time_since_epoch().count() << " INFO encrypted payload ("
       << text.size() << " chars): " << text << '\n';
  const std::string formatted = line.str();
  if (std::fwrite(formatted.data(), 1, formatted.size(), log_.get()) != formatted.size() ||
      std::fflush(log_.get()) != 0) {
    return fail("log write failed");
  }
  log_bytes_ += formatted.size();
  return true;
}

bool Workload::run_batch(std::uint64_t i) {
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
      new_key = key_;
    }
    slot.plain = cell_.payload == Payload::kRandom
                     ? Bytes(slot.random_plaintext)
                     : seed000_message(i * n + m, slot.message_buffer, slot.message);
    if (!cell_.pool) allocate(slot.buffers);
    batch_[m] = {slot.iv, slot.plain, slot.buffers.ciphertext, key, {}, new_key};
  }
  last_op_ = i;
  if (const Error e = cipher_->encrypt_batch(Padding::kPkcs7, batch_); e != Error::kNone) {
    return fail("encrypt_batch: " + std::string(describe(e)));
  }
  if (cell_.op == Op::kEncryptBatch) return true;

  for (std::size_t m = 0; m < n; ++m) {
    Slot& slot = slots_[m];
    Buffers& b = slot.buffers;
    Bytes ciphertext = Bytes(b.ciphertext).first(batch_[m].result.size);
    if (cell_.codec != Encoding::kNone) {
      const Result t =
          backend_.codec().encode(cell_.codec, ciphertext, {b.text.data(), b.text.size()});
      if (!t.ok()) return fail("encode: " + std::string(describe(t.error)));
      const Result d = backend_.codec().decode(cell_.codec, {b.text.data(), t.size}, b.decoded);
      if (!d.ok()) return fail("decode: " + std::string(describe(d.error)));
      ciphertext = Bytes(b.decoded).first(d.size);
    }
    AesCipher& key = batch_[m].key != nullptr ? *batch_[m].key : *cipher_;
    const Result r = key.decrypt(Padding::kPkcs7, slot.iv, ciphertext, b.plaintext);
    if (!r.ok()) return fail("decrypt: " + std::string(describe(r.error)));
    slot.plaintext_size = r.size;
    if (r.size != slot.plain.size() ||
        std::memcmp(b.plaintext.data(), slot.plain.data(), r.size) != 0) {
      return fail("roundtrip: decrypted text differs from the plaintext");
    }
  }
  return true;
}

bool Workload::run(std::uint64_t i) {
  if (cell_.batch()) return run_batch(i);
  AesCipher* cipher = cipher_.get();
  if (cell_.key != KeyHandling::kCached && !rekey(i, &cipher)) return false;
  last_cipher_ = cipher;
  last_op_ = i;
  if (cell_.op == Op::kSetKey) return true;
  const Bytes plain = payload(i);
  last_plain_ = plain;
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
    if (cell_.op == Op::kEncryptLog) return write_log_line(text);
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

std::vector<std::uint8_t> Workload::reference_key(std::uint64_t i) const {
  if (cell_.key != KeyHandling::kHmac && cell_.key != KeyHandling::kPbkdf2) return key_;
  const auto kdf = reference_.key_deriver();
  std::vector<std::uint8_t> key(cell_.key_bytes);
  std::uint8_t salt[16];
  salt_for(i, salt);
  const Error e = !kdf ? Error::kLibraryFailure
                  : cell_.key == KeyHandling::kHmac
                      ? kdf->hmac_sha256(secret_, salt, key)
                      : kdf->pbkdf2_sha256(secret_, salt, cell_.pbkdf2_iterations, key);
  if (e != Error::kNone) throw std::runtime_error("the reference backend failed to derive the key");
  return key;
}

std::vector<std::uint8_t> Workload::reference_ciphertext(Bytes plain, Bytes key) const {
  return reference_ciphertext(plain, key, iv_);
}

std::vector<std::uint8_t> Workload::reference_ciphertext(Bytes plain, Bytes key, Bytes iv) const {
  const auto cipher = reference_.make_cipher(cell_.mode);
  std::vector<std::uint8_t> out(pkcs7_padded_size(plain.size()));
  if (cipher->set_key(key) != Error::kNone ||
      !cipher->encrypt(Padding::kPkcs7, iv, plain, out).ok()) {
    throw std::runtime_error("the reference backend failed to encrypt");
  }
  return out;
}

std::string Workload::verify_batch() const {
  const std::string who = " (" + cell_.backend + " vs reference " + reference_.info().name + ")";
  for (std::size_t m = 0; m < slots_.size(); ++m) {
    const Slot& slot = slots_[m];
    const std::string which = "message " + std::to_string(m) + " of the batch";
    std::vector<std::uint8_t> expected;
    try {
      expected = reference_ciphertext(slot.plain, key_, slot.iv);
    } catch (const std::exception& e) {
      return e.what();
    }
    if (batch_[m].result.size != expected.size() ||
        std::memcmp(slot.buffers.ciphertext.data(), expected.data(), expected.size()) != 0) {
      return "verification failed: " + which + ": ciphertext differs from the reference" + who;
    }
    if (cell_.op == Op::kRoundtripBatch &&
        (slot.plaintext_size != slot.plain.size() ||
         std::memcmp(slot.buffers.plaintext.data(), slot.plain.data(), slot.plain.size()) != 0)) {
      return "verification failed: " + which + ": roundtrip plaintext differs" + who;
    }
  }
  return "";
}

std::string Workload::verify() const {
  if (cell_.batch()) return verify_batch();
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
    const std::vector<std::uint8_t> key = reference_key(last_op_);
    if (cell_.op == Op::kSetKey) {
      // The last key setup: one block under it must match the reference's.
      const Block zero{};
      Block mine{};
      std::vector<std::uint8_t> theirs = reference_ciphertext(zero, key);
      if (!last_cipher_->encrypt(Padding::kNone, iv_, zero, mine).ok() ||
          std::memcmp(mine.data(), theirs.data(), mine.size()) != 0) {
        return "verification failed: the key set up last encrypts differently from the reference" +
               who;
      }
      return "";
    }
    expected = reference_ciphertext(last_plain_, key);
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
  if (cell_.op == Op::kEncryptLog && log_bytes_ == 0)
    return "verification failed: nothing was logged";
  if (cell_.op == Op::kRoundtrip &&
      (last_plaintext_size_ != last_plain_.size() ||
       std::memcmp(buffers_.plaintext.data(), last_plain_.data(), last_plain_.size()) != 0)) {
    return "verification failed: roundtrip plaintext differs" + who;
  }
  return "";
}

void Workload::corrupt_last_output() {
  // The operation's final output: plaintext, text, ciphertext, or the key.
  if (cell_.batch()) {
    slots_.back().buffers.ciphertext[0] ^= 0x01;
  } else if (cell_.op == Op::kSetKey) {
    std::vector<std::uint8_t> wrong(cell_.key_bytes, 0x5a);
    (void)last_cipher_->set_key(wrong);
  } else if (cell_.op == Op::kDecrypt) {
    buffers_.plaintext[0] ^= 0x01;
  } else if (cell_.op != Op::kRoundtrip && cell_.codec != Encoding::kNone) {
    buffers_.text[0] = buffers_.text[0] == 'A' ? 'B' : 'A';
  } else {
    buffers_.ciphertext[0] ^= 0x01;
  }
}

}  // namespace cryptobench::bench
