#include "benchmarks/workload_parts.h"

#include <stdexcept>

namespace cryptobench::bench {
namespace {

// The seed-000 program's constants: an ASCII key and IV.
constexpr char kSeed000Key[] = "B31F2A75FBF94099";
constexpr char kSeed000Iv[] = "1234567890123456";
constexpr std::size_t kMaxCounterDigits = 20;

std::vector<std::uint8_t> random_bytes(Rng& rng, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

std::string random_alphanumeric(Rng& rng, std::size_t n) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string s(n, '\0');
  for (char& c : s) c = kAlphabet[rng() % (sizeof kAlphabet - 1)];
  return s;
}

}  // namespace

// ---- Inputs ----

Inputs::Inputs(const Cell& cell, Rng& rng) : cell_(cell) {
  if (cell.payload == Payload::kSeed000Message) {
    key_.assign(kSeed000Key, kSeed000Key + 16);
    iv_.assign(kSeed000Iv, kSeed000Iv + 16);
    prefix_ = random_alphanumeric(rng, cell.size);
    single_.buffer.assign(prefix_.begin(), prefix_.end());
    single_.buffer.resize(cell.size + kMaxCounterDigits);
    if (cell.op != Op::kRoundtrip && cell.op != Op::kRoundtripBatch)
      throw std::runtime_error("the seed-000 message is a roundtrip workload");
  } else {
    key_ = random_bytes(rng, cell.key_bytes);
    iv_ = random_bytes(rng, kAesBlockSize);
    single_.random = random_bytes(rng, cell.size);
  }
  if (cell.mode == Mode::kEcb) iv_.clear();
}

void Inputs::draw_message(Rng& rng, std::vector<std::uint8_t>& iv, MessageInput& message) const {
  iv = cell_.payload == Payload::kSeed000Message ? iv_ : random_bytes(rng, kAesBlockSize);
  if (cell_.mode == Mode::kEcb) iv.clear();
  if (cell_.payload == Payload::kRandom) {
    message.random = random_bytes(rng, cell_.size);
  } else {
    message.buffer = single_.buffer;
  }
}

std::size_t Inputs::message_bytes(std::uint64_t counter) const {
  if (cell_.payload == Payload::kRandom) return cell_.size;
  std::size_t digits = 1;
  for (std::uint64_t v = counter; v >= 10; v /= 10) ++digits;
  return cell_.size + digits;
}

std::size_t Inputs::max_plaintext() const {
  return cell_.size + (cell_.payload == Payload::kSeed000Message ? kMaxCounterDigits : 0);
}

// ---- OutputBuffers ----

OutputBuffers::OutputBuffers(const Cell& cell, std::size_t max_plaintext) : pool_(cell.pool) {
  if (cell.op == Op::kSetKey) return;
  // CTR and GCM do not pad; GCM's tag follows its ciphertext.
  const std::size_t ciphertext =
      is_block_mode(cell.mode)
          ? pkcs7_padded_size(max_plaintext)
          : max_plaintext + (cell.mode == Mode::kGcm ? kGcmTagBytes : std::size_t{0});
  const std::size_t text = encoded_size(cell.codec, ciphertext);
  const bool encrypts = cell.op != Op::kDecrypt;
  const bool decrypts =
      cell.op == Op::kDecrypt || cell.op == Op::kRoundtrip || cell.op == Op::kRoundtripBatch;
  const bool codec = cell.codec != Encoding::kNone;
  if (encrypts) ciphertext_ = ciphertext;
  if (encrypts && codec) text_ = text;
  if (decrypts && codec) decoded_ = decode_capacity(cell.codec, text);
  if (decrypts) plaintext_ = ciphertext;
}

// ---- Keys ----

Keys::Keys(const Cell& cell, const AesBackend& backend, Bytes key, Rng& rng)
    : cell_(cell), backend_(backend), key_(key) {
  cipher_ = backend.make_cipher(cell.mode);
  if (cipher_->set_key(key_) != Error::kNone) throw std::runtime_error("set_key failed");
  if (derived()) {
    if (cell.op == Op::kDecrypt)
      throw std::runtime_error("derived keys need an encrypting operation");
    secret_ = random_bytes(rng, kSha256Size);
    salt_prefix_ = random_bytes(rng, 8);
    derived_key_.resize(cell.key_bytes);
    deriver_ = backend.key_deriver();
    if (!deriver_) throw std::runtime_error("no key derivation available for " + cell.backend);
  }
}

void Keys::salt_for(std::uint64_t i, std::uint8_t salt[16]) const {
  std::memcpy(salt, salt_prefix_.data(), 8);
  for (int k = 0; k < 8; ++k) salt[8 + k] = static_cast<std::uint8_t>(i >> (8 * k));
}

AesCipher* Keys::rekey(std::uint64_t i, std::string& error) {
  AesCipher* cipher = cipher_.get();
  if (!cell_.pool) {
    fresh_cipher_ = backend_.make_cipher(cell_.mode);
    cipher = fresh_cipher_.get();
  }
  Bytes key = key_;
  if (derived()) {
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
    if (e != Error::kNone) {
      failed(error, "key derivation", e);
      return nullptr;
    }
    key = derived_key_;
  }
  if (const Error e = cipher->set_key(key); e != Error::kNone) {
    failed(error, "set_key", e);
    return nullptr;
  }
  return cipher;
}

// ---- Steps ----

bool failed(std::string& error, std::string_view step, Error e) {
  error = std::string(step) + ": " + std::string(describe(e));
  return false;
}

// ---- Verifier ----

Verifier::Verifier(const Cell& cell, const AesBackend& reference, const Keys& keys, Bytes key)
    : cell_(cell), reference_(reference), keys_(keys), key_(key) {}

std::vector<std::uint8_t> Verifier::key(std::uint64_t i) const {
  if (!Keys::derived(cell_.key)) return {key_.begin(), key_.end()};
  const auto kdf = reference_.key_deriver();
  std::vector<std::uint8_t> key(cell_.key_bytes);
  std::uint8_t salt[16];
  keys_.salt_for(i, salt);
  const Error e = !kdf ? Error::kLibraryFailure
                  : cell_.key == KeyHandling::kHmac
                      ? kdf->hmac_sha256(keys_.secret(), salt, key)
                      : kdf->pbkdf2_sha256(keys_.secret(), salt, cell_.pbkdf2_iterations, key);
  if (e != Error::kNone) throw std::runtime_error("the reference backend failed to derive the key");
  return key;
}

std::vector<std::uint8_t> Verifier::ciphertext(Bytes plain, Bytes key, Bytes iv) const {
  const auto cipher = reference_.make_cipher(cell_.mode);
  std::vector<std::uint8_t> out(pkcs7_padded_size(plain.size()));
  if (cipher->set_key(key) != Error::kNone ||
      !cipher->encrypt(Padding::kPkcs7, iv, plain, out).ok()) {
    throw std::runtime_error("the reference backend failed to encrypt");
  }
  return out;
}

std::string Verifier::text(Bytes ciphertext) const {
  std::string text(encoded_size(cell_.codec, ciphertext.size()), '\0');
  (void)project_codec().encode(cell_.codec, ciphertext, {text.data(), text.size()});
  return text;
}

std::string Verifier::failure(std::string_view what) const {
  return "verification failed: " + std::string(what) + " (" + cell_.backend + " vs reference " +
         reference_.info().name + ")";
}

}  // namespace cryptobench::bench
