// counter_modes_test.cc: every backend's CTR and GCM against independent
// references, on random inputs, and their handling of bad input and
// tampering. Known answers are the vector runner's job (NIST GCMVS, RFC 3686,
// Wycheproof); this checks what vectors do not reach: lengths of every size,
// in place, the counter across 2^32, 2^64 and 2^128, and that a failed open
// releases nothing.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "tests/backend_test.h"

namespace cryptobench {
namespace {

using ByteVector = std::vector<std::uint8_t>;

ByteVector random_bytes(std::mt19937_64& rng, std::size_t n) {
  ByteVector v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

// The CTR reference: AES-ECB of the counter blocks (openssl's ECB, which no
// CTR code shares), incremented with the full 128-bit carry.
ByteVector reference_ctr(const ByteVector& key, ByteVector counter, const ByteVector& in) {
  const std::unique_ptr<AesCipher> ecb = open_backend("openssl")->make_cipher(Mode::kEcb);
  EXPECT_EQ(ecb->set_key(key), Error::kNone);
  ByteVector out(in.size());
  for (std::size_t at = 0; at < in.size(); at += kAesBlockSize) {
    Block stream;
    EXPECT_TRUE(ecb->encrypt(Padding::kNone, {}, counter, stream).ok());
    for (std::size_t i = at; i < std::min(in.size(), at + kAesBlockSize); ++i) {
      out[i] = in[i] ^ stream[i - at];
    }
    ctr_add(counter.data(), 1);
  }
  return out;
}

class CounterModesTest : public testing::BackendTest {
 protected:
  std::unique_ptr<AesCtr> ctr() {
    std::unique_ptr<AesCtr> c = backend().make_ctr();
    EXPECT_NE(c, nullptr) << "modes lists ctr but make_ctr() is null";
    return c;
  }
  std::unique_ptr<AesGcm> gcm() {
    std::unique_ptr<AesGcm> g = backend().make_gcm();
    EXPECT_NE(g, nullptr) << "modes lists gcm but make_gcm() is null";
    return g;
  }
};

TEST_P(CounterModesTest, MakersAgreeWithTheModesListed) {
  EXPECT_EQ(backend().make_ctr() != nullptr, offers(Mode::kCtr));
  EXPECT_EQ(backend().make_gcm() != nullptr, offers(Mode::kGcm));
}

TEST_P(CounterModesTest, CtrMatchesTheReference) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kCtr);
  std::mt19937_64 rng(1);
  auto c = ctr();
  // Counter blocks just below each boundary the interface promises to cross.
  const std::vector<std::pair<std::size_t, std::uint8_t>> below = {
      {4, 0xff}, {8, 0xff}, {16, 0xff}, {0, 0}};  // low n bytes all 0xff
  int checked = 0;
  for (const std::size_t key_size : {16u, 24u, 32u}) {
    for (const std::size_t size : {1u, 15u, 16u, 17u, 63u, 64u, 255u, 1420u, 4095u, 4096u}) {
      for (const auto& [low_bytes, fill] : below) {
        const ByteVector key = random_bytes(rng, key_size), in = random_bytes(rng, size);
        ByteVector counter = random_bytes(rng, 16);
        std::fill(counter.end() - static_cast<long>(low_bytes), counter.end(), fill);
        // A couple of blocks below the boundary: -2 modulo 2^128 on the low bytes.
        if (low_bytes != 0) counter[15] = static_cast<std::uint8_t>(counter[15] - 1);
        ASSERT_EQ(c->set_key(key), Error::kNone);
        ByteVector out(size, 0xaa);
        const Result r = c->crypt(counter, in, out);
        ASSERT_TRUE(r.ok()) << describe(r.error);
        EXPECT_EQ(r.size, size);
        EXPECT_EQ(out, reference_ctr(key, counter, in))
            << "key " << key_size << " size " << size << " low bytes " << low_bytes;
        // Decryption is the same operation; in place too.
        ASSERT_TRUE(c->crypt(counter, out, out).ok());
        EXPECT_EQ(out, in);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 120);
}

TEST_P(CounterModesTest, CtrBadInput) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kCtr);
  auto c = ctr();
  const ByteVector key(16, 1), counter(16, 2), in(32, 3);
  ByteVector out(32);
  EXPECT_EQ(c->crypt(counter, in, out).error, Error::kKeyNotSet);
  EXPECT_EQ(c->set_key(ByteVector(17)), Error::kKeyLength);
  ASSERT_EQ(c->set_key(key), Error::kNone);
  EXPECT_EQ(c->crypt(ByteVector(15), in, out).error, Error::kCounterLength);
  EXPECT_EQ(c->crypt(ByteVector(17), in, out).error, Error::kCounterLength);
  ByteVector small(31);
  EXPECT_EQ(c->crypt(counter, in, small).error, Error::kOutputTooSmall);
  EXPECT_EQ(c->crypt(counter, {}, out).size, 0u);
  // A failed re-key leaves it unkeyed, never on the old key.
  EXPECT_EQ(c->set_key(ByteVector(5)), Error::kKeyLength);
  EXPECT_EQ(c->crypt(counter, in, out).error, Error::kKeyNotSet);
}

// GuardedBytes: `size` bytes that end where an inaccessible page begins, so
// a read or write past the end faults; the bytes before them are filled with
// kFill, to check that nothing before the start is written.
class GuardedBytes {
 public:
  static constexpr std::uint8_t kFill = 0xaa;
  explicit GuardedBytes(std::size_t size) : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
    void* p = mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    base_ = static_cast<std::uint8_t*>(p);
    EXPECT_EQ(mprotect(base_ + page_, page_, PROT_NONE), 0);
    resize(size);
  }
  ~GuardedBytes() { munmap(base_, 2 * page_); }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;

  // resize: `size` (at most a page minus 64) bytes ending at the guard page;
  // the page before them refilled.
  void resize(std::size_t size) {
    std::memset(base_, kFill, page_);
    size_ = size;
  }
  std::uint8_t* data() const { return base_ + page_ - size_; }
  std::size_t size() const { return size_; }
  MutableBytes bytes() const { return {data(), size_}; }
  // untouched_before: the 64 bytes before data() still hold kFill.
  bool untouched_before() const {
    return std::all_of(data() - 64, data(), [](std::uint8_t b) { return b == kFill; });
  }

 private:
  std::size_t page_;
  std::uint8_t* base_ = nullptr;
  std::size_t size_ = 0;
};

// Every length from 1 to 600 bytes (so every pointer alignment, and the end
// of a message at every block and register position) from counters k = 0..40
// blocks below a carry out of the low 32 bits, out of the low 64 bits, and
// the wrap of 2^128, with input and output ending at an inaccessible page; in
// place too. A message from a counter is a prefix of a longer one from the
// same counter, so one openssl CTR reference of 600 bytes serves each counter.
TEST_P(CounterModesTest, CtrAcrossCarriesAtEveryLength) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kCtr);
  constexpr std::size_t kMaxSize = 600;
  std::mt19937_64 rng(2);
  auto c = ctr();
  const std::unique_ptr<AesCtr> reference = open_backend("openssl")->make_ctr();
  ASSERT_NE(reference, nullptr);
  GuardedBytes in(kMaxSize), out(kMaxSize);
  int checked = 0;
  for (const std::size_t key_size : {16u, 32u}) {
    const ByteVector key = random_bytes(rng, key_size), message = random_bytes(rng, kMaxSize);
    ASSERT_EQ(c->set_key(key), Error::kNone);
    ASSERT_EQ(reference->set_key(key), Error::kNone);
    for (const std::size_t low_bytes : {4u, 8u, 16u}) {
      for (std::uint8_t below = 0; below <= 40; ++below) {
        ByteVector counter = random_bytes(rng, 16);
        std::fill(counter.end() - static_cast<long>(low_bytes), counter.end(), 0xff);
        counter[15] = static_cast<std::uint8_t>(0xff - below);
        ByteVector expected(kMaxSize);
        ASSERT_TRUE(reference->crypt(counter, message, expected).ok());
        for (std::size_t size = 1; size <= kMaxSize; ++size) {
          in.resize(size);
          out.resize(size);
          std::copy_n(message.begin(), size, in.data());
          const Result r = c->crypt(counter, in.bytes(), out.bytes());
          ASSERT_TRUE(r.ok()) << describe(r.error);
          ASSERT_TRUE(std::equal(out.data(), out.data() + size, expected.begin()))
              << "key " << key_size << " size " << size << " low bytes " << low_bytes
              << " blocks below the carry " << int{below};
          ASSERT_TRUE(out.untouched_before()) << "size " << size;
          ASSERT_TRUE(c->crypt(counter, out.bytes(), out.bytes()).ok());  // in place
          ASSERT_TRUE(std::equal(out.data(), out.data() + size, message.begin()))
              << "in place: key " << key_size << " size " << size << " low bytes " << low_bytes
              << " blocks below the carry " << int{below};
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 2 * 3 * 41 * 600);
}

struct GcmCase {
  ByteVector key, nonce, aad, in;
  std::size_t tag_size;
};

TEST_P(CounterModesTest, GcmMatchesOpenssl) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kGcm);
  auto g = gcm();
  const std::unique_ptr<AesGcm> reference = open_backend("openssl")->make_gcm();
  ASSERT_NE(reference, nullptr);
  const GcmLimits mine = g->limits(), theirs = reference->limits();
  std::mt19937_64 rng(2);
  // The key sizes in turn, among those the library offers (AES-256 only, for
  // libsodium).
  std::vector<std::size_t> key_sizes;
  for (const std::size_t k : {16u, 24u, 32u}) {
    if (mine.allows_key(k)) key_sizes.push_back(k);
  }
  ASSERT_FALSE(key_sizes.empty());
  int checked = 0;
  for (int round = 0; round < 300; ++round) {
    const std::size_t key_size = key_sizes[static_cast<std::size_t>(round) % key_sizes.size()];
    std::size_t nonce_size = round % 4 == 0 ? 1 + rng() % 64 : 12;
    if (!mine.allows_nonce(nonce_size) || !theirs.allows_nonce(nonce_size)) nonce_size = 12;
    std::size_t tag_size = round % 5 == 0 ? 4 + rng() % 13 : 16;
    if (!mine.allows_tag(tag_size) || !theirs.allows_tag(tag_size)) tag_size = 16;
    if (!mine.allows_nonce(nonce_size)) continue;
    const std::size_t size = round < 40 ? static_cast<std::size_t>(round) : rng() % 2000;
    const GcmCase c{random_bytes(rng, key_size), random_bytes(rng, nonce_size),
                    random_bytes(rng, round % 3 == 0 ? 0 : rng() % 40), random_bytes(rng, size),
                    tag_size};
    ASSERT_EQ(g->set_key(c.key), Error::kNone);
    ASSERT_EQ(reference->set_key(c.key), Error::kNone);
    ByteVector out(size), tag(tag_size), want(size), want_tag(tag_size);
    ASSERT_TRUE(g->seal(c.nonce, c.aad, c.in, out, tag).ok());
    ASSERT_TRUE(reference->seal(c.nonce, c.aad, c.in, want, want_tag).ok());
    EXPECT_EQ(out, want) << "round " << round;
    EXPECT_EQ(tag, want_tag) << "round " << round << " nonce " << nonce_size << " tag " << tag_size;
    ByteVector back(size, 0xaa);
    const Result opened = g->open(c.nonce, c.aad, out, tag, back);
    ASSERT_TRUE(opened.ok()) << describe(opened.error);
    EXPECT_EQ(back, c.in);
    // In place, both ways.
    ByteVector buffer = c.in;
    ASSERT_TRUE(g->seal(c.nonce, c.aad, buffer, buffer, tag).ok());
    EXPECT_EQ(buffer, want);
    ASSERT_TRUE(g->open(c.nonce, c.aad, buffer, tag, buffer).ok());
    EXPECT_EQ(buffer, c.in);
    ++checked;
  }
  EXPECT_GT(checked, 150);
}

TEST_P(CounterModesTest, GcmTamperingReleasesNothing) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kGcm);
  auto g = gcm();
  std::mt19937_64 rng(3);
  const std::size_t key_size = g->limits().allows_key(16) ? 16 : 32;
  const ByteVector key = random_bytes(rng, key_size), nonce = random_bytes(rng, 12),
                   aad = random_bytes(rng, 13), in = random_bytes(rng, 100);
  ASSERT_EQ(g->set_key(key), Error::kNone);
  ByteVector ct(in.size()), tag(16);
  ASSERT_TRUE(g->seal(nonce, aad, in, ct, tag).ok());
  int rejected = 0;
  const auto expect_rejected = [&](ByteVector n, ByteVector a, ByteVector c, ByteVector t,
                                   const char* what) {
    ByteVector out(c.size(), 0xaa);
    const Result r = g->open(n, a, c, t, out);
    EXPECT_EQ(r.error, Error::kBadTag) << what;
    EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](std::uint8_t b) { return b == 0; }))
        << what << ": output not wiped";
    ++rejected;
  };
  for (std::size_t bit = 0; bit < 8 * 16; bit += 7) {
    ByteVector t = tag;
    t[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    expect_rejected(nonce, aad, ct, t, "tag bit");
  }
  for (const std::size_t at : {0u, 50u, 99u}) {
    ByteVector c = ct;
    c[at] ^= 0x01;
    expect_rejected(nonce, aad, c, tag, "ciphertext bit");
  }
  ByteVector a = aad;
  a[5] ^= 0x80;
  expect_rejected(nonce, a, ct, tag, "aad bit");
  expect_rejected(nonce, {}, ct, tag, "aad dropped");
  ByteVector n = nonce;
  n[11] ^= 0x01;
  expect_rejected(n, aad, ct, tag, "nonce bit");
  // A shorter tag is the full tag truncated (SP 800-38D): it opens.
  if (g->limits().allows_tag(12)) {
    ByteVector out(ct.size());
    EXPECT_TRUE(g->open(nonce, aad, ct, ByteVector(tag.begin(), tag.begin() + 12), out).ok());
    EXPECT_EQ(out, in);
  }
  EXPECT_GE(rejected, 24);
}

TEST_P(CounterModesTest, GcmBadInput) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kGcm);
  auto g = gcm();
  const GcmLimits limits = g->limits();
  const std::size_t key_size = limits.allows_key(16) ? 16 : 32;
  const ByteVector key(key_size, 1), nonce(12, 2), in(32, 3);
  ByteVector out(32), tag(16);
  EXPECT_EQ(g->seal(nonce, {}, in, out, tag).error, Error::kKeyNotSet);
  EXPECT_EQ(g->open(nonce, {}, in, tag, out).error, Error::kKeyNotSet);
  EXPECT_EQ(g->set_key(ByteVector(17)), Error::kKeyLength);
  for (const std::size_t k : {16u, 24u, 32u}) {
    if (!limits.allows_key(k)) {
      EXPECT_EQ(g->set_key(ByteVector(k)), Error::kKeyNotOffered);
    }
  }
  ASSERT_EQ(g->set_key(key), Error::kNone);
  EXPECT_EQ(g->seal({}, {}, in, out, tag).error, Error::kNonceLength);
  EXPECT_EQ(g->open({}, {}, in, tag, out).error, Error::kNonceLength);
  ByteVector short_tag(3), long_tag(17);
  EXPECT_EQ(g->seal(nonce, {}, in, out, short_tag).error, Error::kTagLength);
  EXPECT_EQ(g->open(nonce, {}, in, long_tag, out).error, Error::kTagLength);
  ByteVector small(31);
  EXPECT_EQ(g->seal(nonce, {}, in, small, tag).error, Error::kOutputTooSmall);
  EXPECT_EQ(g->open(nonce, {}, in, tag, small).error, Error::kOutputTooSmall);
  // Empty plaintext and AAD: the tag alone authenticates.
  ByteVector none;
  ASSERT_TRUE(g->seal(nonce, {}, {}, none, tag).ok());
  EXPECT_TRUE(g->open(nonce, {}, {}, tag, none).ok());
  tag[0] ^= 1;
  EXPECT_EQ(g->open(nonce, {}, {}, tag, none).error, Error::kBadTag);
}

CRYPTOBENCH_INSTANTIATE_FOR_BACKENDS(CounterModesTest);

}  // namespace
}  // namespace cryptobench
