// equivalence_test.cc: the SUPERCOP-style generic checker. Every backend must
// agree byte for byte with a reference backend on pseudo-random inputs, and
// must behave under in-place use, misaligned buffers, canaries around its
// output, unchanged inputs and CBC chaining across calls. A new backend needs
// no new vectors to be checked this way.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "tests/backend_test.h"

namespace cryptobench {
namespace {

using ByteVector = std::vector<std::uint8_t>;

constexpr std::size_t kCanary = 32;
constexpr std::uint8_t kCanaryByte = 0xcc;

// GuardedBuffer: `size` usable bytes starting one byte past a canary zone, so
// the data is misaligned, with a canary zone after it as well.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t size)
      : size_(size), storage_(size + 2 * kCanary + 1, kCanaryByte) {}
  std::uint8_t* data() { return storage_.data() + kCanary + 1; }
  MutableBytes span() { return {data(), size_}; }
  ByteVector contents(std::size_t n) const {
    const auto* p = storage_.data() + kCanary + 1;
    return ByteVector(p, p + n);
  }
  bool canaries_intact() const {
    const auto ok = [](std::uint8_t b) { return b == kCanaryByte; };
    return std::all_of(storage_.begin(), storage_.begin() + kCanary + 1, ok) &&
           std::all_of(storage_.end() - kCanary, storage_.end(), ok);
  }

 private:
  std::size_t size_;
  ByteVector storage_;
};

ByteVector random_bytes(std::mt19937_64& rng, std::size_t n) {
  ByteVector v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

// Lengths 0..4096: the edges around block and interleave boundaries, then
// pseudo-random ones.
std::vector<std::size_t> test_lengths() {
  std::vector<std::size_t> lengths = {0,   1,   15,  16,  17,  31,  32,  33,   112,  127,
                                      128, 129, 143, 144, 255, 256, 257, 4080, 4095, 4096};
  std::mt19937_64 rng(20261130);
  for (int i = 0; i < 40; ++i) lengths.push_back(rng() % 4097);
  return lengths;
}

struct Output {
  ByteVector bytes;
  Error error = Error::kNone;
};

// One encryption or decryption with every safety check: misaligned guarded
// output, input unchanged, canaries intact; then the same in place.
Output crypt_checked(AesCipher& cipher, bool encrypt, Padding padding, Bytes iv,
                     const ByteVector& in) {
  // Exactly the space the call needs, so a one-block overrun hits a canary.
  const std::size_t capacity =
      encrypt && padding == Padding::kPkcs7 ? pkcs7_padded_size(in.size()) : in.size();
  GuardedBuffer input(in.size());
  std::copy(in.begin(), in.end(), input.data());
  GuardedBuffer out(capacity);
  const Bytes in_span(input.data(), in.size());
  const Result r = encrypt ? cipher.encrypt(padding, iv, in_span, out.span())
                           : cipher.decrypt(padding, iv, in_span, out.span());
  EXPECT_TRUE(out.canaries_intact()) << "wrote outside its output buffer";
  EXPECT_EQ(input.contents(in.size()), in) << "modified its input";
  if (!r.ok()) return {{}, r.error};
  Output result{out.contents(r.size), Error::kNone};

  GuardedBuffer inplace(capacity);
  std::copy(in.begin(), in.end(), inplace.data());
  const Bytes same(inplace.data(), in.size());
  const Result r2 = encrypt ? cipher.encrypt(padding, iv, same, inplace.span())
                            : cipher.decrypt(padding, iv, same, inplace.span());
  EXPECT_TRUE(inplace.canaries_intact()) << "in place: wrote outside the buffer";
  EXPECT_TRUE(r2.ok());
  EXPECT_EQ(inplace.contents(r2.size), result.bytes) << "in-place result differs";
  return result;
}

// reference_backend: the backend the registry verifies `self` against
// (another library's); nullptr when there is none.
const AesBackend* reference_backend(const std::string& self, std::unique_ptr<AesBackend>& holder) {
  const std::string name = reference_backend_name(self);
  if (name == self) return nullptr;
  holder = open_backend(name);
  return holder.get();
}

using EquivalenceTest = testing::BackendTest;

TEST_P(EquivalenceTest, AgreesWithReferenceOnRandomInputs) {
  CRYPTOBENCH_REQUIRE_BLOCK_MODE();
  std::unique_ptr<AesBackend> holder;
  const AesBackend* reference = reference_backend(GetParam(), holder);
  if (reference == nullptr) GTEST_SKIP() << "no second usable backend to compare with";
  std::mt19937_64 rng(7);
  std::size_t compared = 0;
  for (const Mode mode : modes()) {
    if (!reference->info().offers(mode)) continue;
    auto mine = backend().make_cipher(mode);
    auto theirs = reference->make_cipher(mode);
    for (const std::size_t key_size : {16u, 24u, 32u}) {
      for (const Padding padding : {Padding::kNone, Padding::kPkcs7}) {
        for (std::size_t length : test_lengths()) {
          if (padding == Padding::kNone) length -= length % kAesBlockSize;
          SCOPED_TRACE(::testing::Message()
                       << mode_name(mode) << " key " << key_size * 8 << " length " << length
                       << (padding == Padding::kPkcs7 ? " pkcs7" : ""));
          const ByteVector key = random_bytes(rng, key_size);
          const ByteVector iv_bytes = random_bytes(rng, kAesBlockSize);
          const Bytes iv = mode == Mode::kCbc ? Bytes(iv_bytes) : Bytes();
          const ByteVector plain = random_bytes(rng, length);
          ASSERT_EQ(mine->set_key(key), Error::kNone);
          ASSERT_EQ(theirs->set_key(key), Error::kNone);

          const Output ct = crypt_checked(*mine, true, padding, iv, plain);
          const Output ref = crypt_checked(*theirs, true, padding, iv, plain);
          ASSERT_EQ(ct.error, Error::kNone);
          ASSERT_EQ(ct.bytes, ref.bytes) << "ciphertext differs from " << reference->info().name;
          if (ct.bytes.empty()) continue;  // nothing to decrypt (unpadded, length 0)
          const Output back = crypt_checked(*mine, false, padding, iv, ct.bytes);
          ASSERT_EQ(back.error, Error::kNone);
          ASSERT_EQ(back.bytes, plain);
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 300u * modes().size());  // every mode the backend offers was exercised
}

TEST_P(EquivalenceTest, CbcChainsAcrossCalls) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kCbc);
  // Encrypting in pieces, each call taking the previous call's last ciphertext
  // block as its IV, must equal one call over the whole message.
  std::mt19937_64 rng(11);
  auto cipher = backend().make_cipher(Mode::kCbc);
  for (const std::size_t key_size : {16u, 24u, 32u}) {
    const ByteVector key = random_bytes(rng, key_size);
    const ByteVector iv = random_bytes(rng, kAesBlockSize);
    const ByteVector plain = random_bytes(rng, 64 * kAesBlockSize);
    ASSERT_EQ(cipher->set_key(key), Error::kNone);
    ByteVector whole(plain.size());
    ASSERT_TRUE(cipher->encrypt(Padding::kNone, iv, plain, whole).ok());

    for (const std::size_t split_blocks : {1u, 7u, 8u, 9u, 33u}) {
      const std::size_t split = split_blocks * kAesBlockSize;
      ByteVector pieces(plain.size());
      ASSERT_TRUE(cipher
                      ->encrypt(Padding::kNone, iv, Bytes(plain).first(split),
                                MutableBytes(pieces).first(split))
                      .ok());
      const Bytes chained_iv = Bytes(pieces).subspan(split - kAesBlockSize, kAesBlockSize);
      ASSERT_TRUE(cipher
                      ->encrypt(Padding::kNone, chained_iv, Bytes(plain).subspan(split),
                                MutableBytes(pieces).subspan(split))
                      .ok());
      EXPECT_EQ(pieces, whole) << "encryption split after " << split_blocks << " blocks";

      ByteVector decrypted(plain.size());
      ASSERT_TRUE(cipher
                      ->decrypt(Padding::kNone, iv, Bytes(whole).first(split),
                                MutableBytes(decrypted).first(split))
                      .ok());
      ASSERT_TRUE(cipher
                      ->decrypt(Padding::kNone,
                                Bytes(whole).subspan(split - kAesBlockSize, kAesBlockSize),
                                Bytes(whole).subspan(split), MutableBytes(decrypted).subspan(split))
                      .ok());
      EXPECT_EQ(decrypted, plain) << "decryption split after " << split_blocks << " blocks";
    }
  }
}

TEST_P(EquivalenceTest, RekeyingChangesTheResult) {
  CRYPTOBENCH_REQUIRE_BLOCK_MODE();
  // A cipher re-keyed with a new key (and a new key size) must not keep the
  // old schedule. Every mode the backend offers (a fixed IV for CBC).
  for (const Mode mode : modes()) {
    auto cipher = backend().make_cipher(mode);
    const ByteVector plain(32, 0x42), iv_bytes(16, 0x07);
    const Bytes iv = mode == Mode::kCbc ? Bytes(iv_bytes) : Bytes();
    ByteVector a(32), b(32), c(32);
    ASSERT_EQ(cipher->set_key(ByteVector(16, 1)), Error::kNone);
    ASSERT_TRUE(cipher->encrypt(Padding::kNone, iv, plain, a).ok());
    ASSERT_EQ(cipher->set_key(ByteVector(32, 2)), Error::kNone);
    ASSERT_TRUE(cipher->encrypt(Padding::kNone, iv, plain, b).ok());
    ASSERT_EQ(cipher->set_key(ByteVector(16, 1)), Error::kNone);
    ASSERT_TRUE(cipher->encrypt(Padding::kNone, iv, plain, c).ok());
    EXPECT_NE(a, b) << mode_name(mode);
    EXPECT_EQ(a, c) << mode_name(mode);
  }
}

// encrypt_batch must equal one encrypt() per message, whatever the mix of
// lengths, counts (fewer and more messages than lanes), shared or
// per-message keys, and padding; and write nothing outside each output.
TEST_P(EquivalenceTest, BatchEqualsOneEncryptionPerMessage) {
  CRYPTOBENCH_REQUIRE_BLOCK_MODE();
  std::mt19937_64 rng(13);
  for (const Mode mode : modes()) {
    for (const std::size_t key_size : {16u, 24u, 32u}) {
      for (const Padding padding : {Padding::kPkcs7, Padding::kNone}) {
        for (const std::size_t count : {1u, 2u, 3u, 7u, 16u, 17u, 40u, 130u}) {
          // 0: the batch cipher's key; 1: keyed ciphers for some messages;
          // 2: new keys given to the batch for some messages.
          for (const int key_mode : {0, 1, 2}) {
            const bool per_message_key = key_mode != 0;
            SCOPED_TRACE(::testing::Message() << mode_name(mode) << " key " << key_size * 8
                                              << " count " << count << " key mode " << key_mode
                                              << (padding == Padding::kPkcs7 ? " pkcs7" : ""));
            auto shared = backend().make_cipher(mode);
            ASSERT_EQ(shared->set_key(random_bytes(rng, key_size)), Error::kNone);
            std::vector<std::unique_ptr<AesCipher>> keys;
            std::vector<ByteVector> plains, ivs;
            std::vector<GuardedBuffer> outs;
            std::vector<AesCipher*> key_for;
            std::vector<ByteVector> new_keys;
            std::vector<BatchMessage> batch;
            for (std::size_t i = 0; i < count; ++i) {
              // Equal lengths mostly, with some short, empty and long ones.
              std::size_t length = i % 5 == 3 ? rng() % 700 : 1024;
              if (padding == Padding::kNone) length -= length % kAesBlockSize;
              plains.push_back(random_bytes(rng, length));
              ivs.push_back(mode == Mode::kCbc ? random_bytes(rng, kAesBlockSize) : ByteVector());
              outs.emplace_back(padding == Padding::kPkcs7 ? pkcs7_padded_size(length) : length);
              key_for.push_back(nullptr);
              new_keys.emplace_back();
              if (per_message_key && i % 3 != 0) {
                keys.push_back(backend().make_cipher(mode));
                if (key_mode == 1) {
                  ASSERT_EQ(keys.back()->set_key(random_bytes(rng, key_size)), Error::kNone);
                } else {
                  new_keys.back() = random_bytes(rng, key_size);
                }
                key_for.back() = keys.back().get();
              }
            }
            for (std::size_t i = 0; i < count; ++i) {
              batch.push_back({ivs[i], plains[i], outs[i].span(), key_for[i], {}, new_keys[i]});
            }
            ASSERT_EQ(shared->encrypt_batch(padding, batch), Error::kNone);
            for (std::size_t i = 0; i < count; ++i) {
              // The expectation: a fresh cipher set to the message's key.
              auto reference_cipher = backend().make_cipher(mode);
              AesCipher* key = batch[i].key != nullptr ? batch[i].key : shared.get();
              if (!new_keys[i].empty()) {
                ASSERT_EQ(reference_cipher->set_key(new_keys[i]), Error::kNone);
                key = reference_cipher.get();
              }
              ByteVector expected(outs[i].span().size());
              const Result r = key->encrypt(padding, ivs[i], plains[i], expected);
              ASSERT_TRUE(r.ok());
              ASSERT_TRUE(batch[i].result.ok()) << "message " << i;
              EXPECT_EQ(batch[i].result.size, r.size) << "message " << i;
              EXPECT_EQ(outs[i].contents(r.size), expected) << "message " << i;
              EXPECT_TRUE(outs[i].canaries_intact()) << "message " << i;
            }
          }
        }
      }
    }
  }
}

// A batch with one bad message encrypts nothing and says which is bad.
TEST_P(EquivalenceTest, BatchWithABadMessageEncryptsNothing) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kCbc);
  std::mt19937_64 rng(17);
  auto cipher = backend().make_cipher(Mode::kCbc);
  ASSERT_EQ(cipher->set_key(random_bytes(rng, 16)), Error::kNone);
  auto unkeyed = backend().make_cipher(Mode::kCbc);
  // Another mode's cipher: ECB where the backend has it.
  std::unique_ptr<AesCipher> ecb;
  if (offers(Mode::kEcb)) {
    ecb = backend().make_cipher(Mode::kEcb);
    ASSERT_EQ(ecb->set_key(random_bytes(rng, 16)), Error::kNone);
  }
  auto longer_key = backend().make_cipher(Mode::kCbc);
  ASSERT_EQ(longer_key->set_key(random_bytes(rng, 32)), Error::kNone);
  std::unique_ptr<AesBackend> holder;
  const AesBackend* other = reference_backend(GetParam(), holder);
  std::unique_ptr<AesCipher> foreign;
  if (other != nullptr) {
    foreign = other->make_cipher(Mode::kCbc);
    ASSERT_EQ(foreign->set_key(random_bytes(rng, 16)), Error::kNone);
  }
  const ByteVector iv = random_bytes(rng, 16), plain = random_bytes(rng, 100);
  struct Case {
    const char* what;
    Bytes iv;
    std::size_t out_size;
    AesCipher* key;
    Error expected;
  };
  std::vector<Case> cases = {
      {"short IV", Bytes(iv).first(8), 112, nullptr, Error::kIvLength},
      {"small output", iv, 100, nullptr, Error::kOutputTooSmall},
      {"unkeyed cipher", iv, 112, unkeyed.get(), Error::kKeyNotSet},
      {"AES-256 key cipher", iv, 112, longer_key.get(), Error::kKeyMismatch}};
  if (foreign)
    cases.push_back({"other backend's cipher", iv, 112, foreign.get(), Error::kKeyMismatch});
  if (ecb != nullptr) cases.push_back({"ECB key cipher", iv, 112, ecb.get(), Error::kKeyMismatch});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ByteVector good_out(112, 0xee), bad_out(c.out_size, 0xee);
    std::vector<BatchMessage> batch = {{iv, plain, good_out, nullptr, {}},
                                       {c.iv, plain, bad_out, c.key, {}}};
    EXPECT_EQ(cipher->encrypt_batch(Padding::kPkcs7, batch), c.expected);
    EXPECT_EQ(batch[1].result.error, c.expected);
    EXPECT_FALSE(batch[0].result.ok());
    EXPECT_EQ(good_out, ByteVector(112, 0xee)) << "a message was encrypted";
    EXPECT_EQ(bad_out, ByteVector(c.out_size, 0xee));
  }
}

// New keys given to a batch: a wrong length, a new key without the
// message's own cipher, or one cipher taking a new key in two messages (or
// also serving another message) is refused before anything is keyed or
// encrypted: every cipher keeps its old key.
TEST_P(EquivalenceTest, BatchNewKeysAreCheckedFirst) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kCbc);
  std::mt19937_64 rng(19);
  auto shared = backend().make_cipher(Mode::kCbc);
  auto own = backend().make_cipher(Mode::kCbc);
  const ByteVector old_key = random_bytes(rng, 16), new_key = random_bytes(rng, 16);
  ASSERT_EQ(shared->set_key(old_key), Error::kNone);
  ASSERT_EQ(own->set_key(old_key), Error::kNone);
  const ByteVector iv = random_bytes(rng, 16), plain = random_bytes(rng, 40);
  const ByteVector long_key = random_bytes(rng, 32), odd_key = random_bytes(rng, 20);
  ByteVector a(48, 0xee), b(48, 0xee);
  struct Case {
    const char* what;
    AesCipher* first_key;
    Bytes first_new;
    AesCipher* second_key;
    Bytes second_new;
    Error expected;
  };
  const std::vector<Case> cases = {
      {"new key of 20 bytes", own.get(), odd_key, nullptr, {}, Error::kKeyLength},
      {"new key of another size than the batch's",
       own.get(),
       long_key,
       nullptr,
       {},
       Error::kKeyMismatch},
      {"new key without a cipher", nullptr, new_key, nullptr, {}, Error::kKeyMismatch},
      {"one cipher, two new keys", own.get(), new_key, own.get(), new_key, Error::kKeyMismatch},
      {"a new key for a cipher another message uses",
       own.get(),
       new_key,
       own.get(),
       {},
       Error::kKeyMismatch},
      {"a new key for the batch cipher", shared.get(), new_key, nullptr, {}, Error::kKeyMismatch}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<BatchMessage> batch = {{iv, plain, a, c.first_key, {}, c.first_new},
                                       {iv, plain, b, c.second_key, {}, c.second_new}};
    EXPECT_EQ(shared->encrypt_batch(Padding::kPkcs7, batch), c.expected);
    EXPECT_FALSE(batch[0].result.ok());
    EXPECT_FALSE(batch[1].result.ok());
    EXPECT_EQ(a, ByteVector(48, 0xee));
    EXPECT_EQ(b, ByteVector(48, 0xee));
    // Both ciphers still encrypt under the old key.
    for (AesCipher* cipher : {shared.get(), own.get()}) {
      auto reference = backend().make_cipher(Mode::kCbc);
      ASSERT_EQ(reference->set_key(old_key), Error::kNone);
      ByteVector mine(48), theirs(48);
      ASSERT_TRUE(cipher->encrypt(Padding::kPkcs7, iv, plain, mine).ok());
      ASSERT_TRUE(reference->encrypt(Padding::kPkcs7, iv, plain, theirs).ok());
      EXPECT_EQ(mine, theirs) << "a refused batch changed a key";
    }
  }
}

CRYPTOBENCH_INSTANTIATE_FOR_BACKENDS(EquivalenceTest);

}  // namespace
}  // namespace cryptobench
