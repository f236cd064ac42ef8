// gcm_kernels_test.cc: the hand-written GCM (kernels/aesni/gcm.h) where its
// own structure has edges that random lengths reach only by luck: every
// length around the group sizes (8, 16, 32 blocks) and the partial block,
// the 32-bit counter wrapping inside a group, unaligned and in-place buffers,
// and every single-bit change rejected. OpenSSL is the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "tests/backend_test.h"

namespace cryptobench {
namespace {

using ByteVector = std::vector<std::uint8_t>;
using Block128 = std::array<std::uint8_t, 16>;

ByteVector random_bytes(std::mt19937_64& rng, std::size_t n) {
  ByteVector v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

bool all_zero(const ByteVector& v) {
  return std::all_of(v.begin(), v.end(), [](std::uint8_t b) { return b == 0; });
}

// gf_multiply: GF(2^128) multiplication bit by bit, as SP 800-38D's
// Algorithm 1 states it (independent of the PCLMULQDQ code under test).
Block128 gf_multiply(const Block128& x, const Block128& y) {
  Block128 z{}, v = y;
  for (int i = 0; i < 128; ++i) {
    if ((x[static_cast<std::size_t>(i / 8)] >> (7 - i % 8)) & 1) {
      for (std::size_t j = 0; j < 16; ++j) z[j] ^= v[j];
    }
    const bool lsb = (v[15] & 1) != 0;
    for (std::size_t j = 15; j > 0; --j) {
      v[j] = static_cast<std::uint8_t>((v[j] >> 1) | (v[j - 1] << 7));
    }
    v[0] = static_cast<std::uint8_t>(v[0] >> 1);
    if (lsb) v[0] ^= 0xe1;
  }
  return z;
}

// gf_inverse: x^(2^128 - 2).
Block128 gf_inverse(const Block128& x) {
  Block128 result{};
  result[0] = 0x80;  // 1
  Block128 square = x;
  for (int bit = 1; bit < 128; ++bit) {  // the exponent's bits 1..127 are set
    square = gf_multiply(square, square);
    result = gf_multiply(result, square);
  }
  return result;
}

Block128 xor_blocks(Block128 a, const Block128& b) {
  for (std::size_t i = 0; i < 16; ++i) a[i] ^= b[i];
  return a;
}

std::vector<std::string> hand_written_backends() {
  std::vector<std::string> names;
  for (const BackendEntry* entry : compiled_backends()) {
    if (std::string(entry->library) == "cryptobench") names.emplace_back(entry->name);
  }
  return names;
}

class HandWrittenGcmTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_TRUE(offers(Mode::kGcm)) << GetParam() << " lists no GCM";
    gcm_ = backend().make_gcm();
    reference_ = open_backend("openssl")->make_gcm();
    ASSERT_NE(gcm_, nullptr);
    ASSERT_NE(reference_, nullptr);
  }
  // check: seal matches openssl's, and open gives the plaintext back.
  void check(const ByteVector& key, const ByteVector& nonce, const ByteVector& aad,
             const ByteVector& in, const std::string& what) {
    check_against(*reference_, key, nonce, aad, in, what);
  }
  void check_against(AesGcm& reference, const ByteVector& key, const ByteVector& nonce,
                     const ByteVector& aad, const ByteVector& in, const std::string& what) {
    ASSERT_EQ(gcm_->set_key(key), Error::kNone);
    ASSERT_EQ(reference.set_key(key), Error::kNone);
    ByteVector out(in.size()), tag(16), want(in.size()), want_tag(16);
    ASSERT_TRUE(gcm_->seal(nonce, aad, in, out, tag).ok()) << what;
    ASSERT_TRUE(reference.seal(nonce, aad, in, want, want_tag).ok()) << what;
    ASSERT_EQ(out, want) << what;
    ASSERT_EQ(tag, want_tag) << what;
    ByteVector back(in.size(), 0xaa);
    ASSERT_TRUE(gcm_->open(nonce, aad, out, tag, back).ok()) << what;
    ASSERT_EQ(back, in) << what;
  }
  std::unique_ptr<AesGcm> gcm_, reference_;
};

TEST_P(HandWrittenGcmTest, EveryLengthToSixHundredWithTlsLikeAad) {
  std::mt19937_64 rng(11);
  const std::size_t key_sizes[] = {16, 24, 32};
  for (std::size_t size = 0; size <= 600; ++size) {
    for (const std::size_t aad_size : {0u, 1u, 13u, 16u, 17u, 100u}) {
      const ByteVector key = random_bytes(rng, key_sizes[size % 3]);
      check(key, random_bytes(rng, 12), random_bytes(rng, aad_size), random_bytes(rng, size),
            "size " + std::to_string(size) + " aad " + std::to_string(aad_size));
      if (HasFatalFailure()) return;
    }
  }
}

TEST_P(HandWrittenGcmTest, LongMessagesAadAndNonces) {
  std::mt19937_64 rng(12);
  // Several whole groups of every width and the tails after them; AAD and
  // nonces long enough to be hashed by the wide code too.
  for (const std::size_t size : {1024u, 2047u, 4096u, 4111u, 8192u + 255u, 16384u, 65536u + 17u}) {
    for (const std::size_t aad_size : {0u, 255u, 1024u + 7u}) {
      for (const std::size_t nonce_size : {12u, 1u, 16u, 64u, 128u}) {  // openssl's range
        check(random_bytes(rng, 16 + 8 * (size % 3)), random_bytes(rng, nonce_size),
              random_bytes(rng, aad_size), random_bytes(rng, size),
              "size " + std::to_string(size) + " aad " + std::to_string(aad_size) + " nonce " +
                  std::to_string(nonce_size));
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A key computes its powers of H as messages first need them: one key
// through short and long messages in mixed order, then a new key whose
// short message must not meet the old key's higher powers.
TEST_P(HandWrittenGcmTest, KeyPowersAddedAsMessagesGrow) {
  std::mt19937_64 rng(15);
  for (const std::size_t key_size : {16u, 24u, 32u}) {
    ByteVector key = random_bytes(rng, key_size);
    ASSERT_EQ(gcm_->set_key(key), Error::kNone);
    ASSERT_EQ(reference_->set_key(key), Error::kNone);
    for (const std::size_t size : {16u, 600u, 1u, 5000u, 48u, 20000u, 200u, 33u}) {
      const ByteVector nonce = random_bytes(rng, 12), aad = random_bytes(rng, 13);
      const ByteVector in = random_bytes(rng, size);
      ByteVector out(size), tag(16), want(size), want_tag(16), back(size);
      ASSERT_TRUE(gcm_->seal(nonce, aad, in, out, tag).ok());
      ASSERT_TRUE(reference_->seal(nonce, aad, in, want, want_tag).ok());
      ASSERT_EQ(out, want) << "size " << size;
      ASSERT_EQ(tag, want_tag) << "size " << size;
      ASSERT_TRUE(gcm_->open(nonce, aad, out, tag, back).ok()) << "size " << size;
      ASSERT_EQ(back, in) << "size " << size;
    }
    // The next key's first messages: short, then long enough for every power.
    for (const std::size_t size : {40u, 3000u}) {
      check(random_bytes(rng, key_size), random_bytes(rng, 12), {}, random_bytes(rng, size),
            "new key, size " + std::to_string(size));
      if (HasFatalFailure()) return;
    }
  }
}

// Nonces past OpenSSL's 128 bytes, up to SP 800-38D's 2^16 the interface
// allows, against OpenSSL's gcm128 over its own AES (the openssl-aes backend).
TEST_P(HandWrittenGcmTest, LongNonces) {
  if (find_backend("openssl-aes") == nullptr) GTEST_SKIP() << "no openssl-aes backend to compare";
  const std::unique_ptr<AesGcm> reference = open_backend("openssl-aes")->make_gcm();
  ASSERT_NE(reference, nullptr);
  std::mt19937_64 rng(16);
  for (const std::size_t nonce_size : {129u, 255u, 256u, 1000u, 4096u + 5u, 65536u}) {
    check_against(*reference, random_bytes(rng, 16), random_bytes(rng, nonce_size),
                  random_bytes(rng, 13), random_bytes(rng, 1000),
                  "nonce " + std::to_string(nonce_size));
    if (HasFatalFailure()) return;
  }
}

// A 16-byte nonce N gives J0 = ((N H) + L) H with L the length block, so the
// nonce for a chosen J0 is (J0 H^-1 + L) H^-1: here J0s whose low 32 bits
// wrap after a few blocks, at every position inside the groups.
TEST_P(HandWrittenGcmTest, CounterLow32BitsWrapAlone) {
  std::mt19937_64 rng(13);
  const std::unique_ptr<AesCipher> ecb = open_backend("openssl")->make_cipher(Mode::kEcb);
  for (const std::uint32_t before_wrap : {0u, 1u, 2u, 5u, 7u, 8u, 15u, 16u, 31u, 32u, 100u}) {
    const ByteVector key = random_bytes(rng, before_wrap % 2 == 0 ? 16 : 32);
    ASSERT_EQ(ecb->set_key(key), Error::kNone);
    Block128 zero{}, h{};
    ASSERT_TRUE(ecb->encrypt(Padding::kNone, {}, zero, h).ok());
    const Block128 h_inverse = gf_inverse(h);
    Block128 j0{};
    for (std::size_t i = 0; i < 12; ++i) j0[i] = static_cast<std::uint8_t>(rng());
    const std::uint32_t low = 0xffffffffu - before_wrap;
    for (std::size_t i = 0; i < 4; ++i) j0[12 + i] = static_cast<std::uint8_t>(low >> (24 - 8 * i));
    Block128 lengths{};
    lengths[15] = 128;  // a 128-bit nonce
    const Block128 nonce_block =
        gf_multiply(xor_blocks(gf_multiply(j0, h_inverse), lengths), h_inverse);
    // The derivation itself, forwards: GHASH(N || L) is J0.
    ASSERT_EQ(gf_multiply(xor_blocks(gf_multiply(nonce_block, h), lengths), h), j0);
    const ByteVector nonce(nonce_block.begin(), nonce_block.end());
    for (const std::size_t size : {100u, 600u, 2000u}) {
      check(key, nonce, random_bytes(rng, 13), random_bytes(rng, size),
            "wrap after " + std::to_string(before_wrap) + " size " + std::to_string(size));
      if (HasFatalFailure()) return;
    }
  }
}

TEST_P(HandWrittenGcmTest, UnalignedAndInPlace) {
  std::mt19937_64 rng(14);
  const ByteVector key = random_bytes(rng, 16), nonce = random_bytes(rng, 12),
                   aad = random_bytes(rng, 13);
  ASSERT_EQ(gcm_->set_key(key), Error::kNone);
  ASSERT_EQ(reference_->set_key(key), Error::kNone);
  for (const std::size_t size : {1u, 15u, 64u, 255u, 256u, 513u, 4099u}) {
    const ByteVector in = random_bytes(rng, size);
    ByteVector want(size), want_tag(16);
    ASSERT_TRUE(reference_->seal(nonce, aad, in, want, want_tag).ok());
    for (std::size_t in_offset = 0; in_offset < 16; in_offset += 3) {
      for (std::size_t out_offset = 1; out_offset < 16; out_offset += 5) {
        ByteVector in_buffer(size + 16), out_buffer(size + 16), tag(16);
        std::memcpy(in_buffer.data() + in_offset, in.data(), size);
        const Bytes src(in_buffer.data() + in_offset, size);
        const MutableBytes dst(out_buffer.data() + out_offset, size);
        ASSERT_TRUE(gcm_->seal(nonce, aad, src, dst, tag).ok());
        EXPECT_TRUE(std::equal(dst.begin(), dst.end(), want.begin())) << size << " " << in_offset;
        EXPECT_EQ(tag, want_tag);
        // Open it back unaligned, into the input's buffer.
        ASSERT_TRUE(
            gcm_->open(nonce, aad, dst, tag, MutableBytes(in_buffer.data() + in_offset, size))
                .ok());
        EXPECT_TRUE(std::equal(src.begin(), src.end(), in.begin()));
      }
      // In place at an unaligned address, both ways.
      ByteVector buffer(size + 16), tag(16);
      const MutableBytes data(buffer.data() + in_offset, size);
      std::memcpy(data.data(), in.data(), size);
      ASSERT_TRUE(gcm_->seal(nonce, aad, data, data, tag).ok());
      EXPECT_TRUE(std::equal(data.begin(), data.end(), want.begin())) << "in place " << size;
      EXPECT_EQ(tag, want_tag);
      ASSERT_TRUE(gcm_->open(nonce, aad, data, tag, data).ok());
      EXPECT_TRUE(std::equal(data.begin(), data.end(), in.begin())) << "in place " << size;
    }
  }
}

TEST_P(HandWrittenGcmTest, EverySingleBitFlipRejectedAndWiped) {
  std::mt19937_64 rng(15);
  for (const std::size_t size : {40u, 300u}) {
    for (const std::size_t tag_size : {16u, 8u}) {
      const ByteVector key = random_bytes(rng, 16), nonce = random_bytes(rng, 12),
                       aad = random_bytes(rng, 20), in = random_bytes(rng, size);
      ASSERT_EQ(gcm_->set_key(key), Error::kNone);
      ByteVector ct(size), tag(tag_size);
      ASSERT_TRUE(gcm_->seal(nonce, aad, in, ct, tag).ok());
      int rejected = 0;
      const auto expect_rejected = [&](const ByteVector& n, const ByteVector& a,
                                       const ByteVector& c, const ByteVector& t, const char* what,
                                       std::size_t bit) {
        ByteVector out(c.size(), 0xaa);
        const Result r = gcm_->open(n, a, c, t, out);
        EXPECT_EQ(r.error, Error::kBadTag) << what << " bit " << bit;
        EXPECT_TRUE(all_zero(out)) << what << " bit " << bit << ": output not wiped";
        ++rejected;
      };
      const auto flipped = [](ByteVector v, std::size_t bit) {
        v[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        return v;
      };
      for (std::size_t bit = 0; bit < 8 * tag.size(); ++bit) {
        expect_rejected(nonce, aad, ct, flipped(tag, bit), "tag", bit);
      }
      for (std::size_t bit = 0; bit < 8 * ct.size(); ++bit) {
        expect_rejected(nonce, aad, flipped(ct, bit), tag, "ciphertext", bit);
      }
      for (std::size_t bit = 0; bit < 8 * aad.size(); ++bit) {
        expect_rejected(nonce, flipped(aad, bit), ct, tag, "aad", bit);
      }
      for (std::size_t bit = 0; bit < 8 * nonce.size(); ++bit) {
        expect_rejected(flipped(nonce, bit), aad, ct, tag, "nonce", bit);
      }
      EXPECT_EQ(rejected, static_cast<int>(8 * (tag.size() + ct.size() + aad.size() + 12)));
      ByteVector out(size);
      ASSERT_TRUE(gcm_->open(nonce, aad, ct, tag, out).ok());  // untouched, it opens
      EXPECT_EQ(out, in);
    }
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(HandWrittenGcmTest);
INSTANTIATE_TEST_SUITE_P(HandWritten, HandWrittenGcmTest,
                         ::testing::ValuesIn(hand_written_backends()), testing::backend_param_name);

}  // namespace
}  // namespace cryptobench
