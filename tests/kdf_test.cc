// kdf_test.cc: every backend's HMAC-SHA256 and PBKDF2-HMAC-SHA256 against
// published vectors (RFC 4231 test cases 1 and 2; PBKDF2-HMAC-SHA256 vectors
// of draft-josefsson-scrypt-kdf / widely reproduced), and all backends agree
// on random inputs.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tests/backend_test.h"

namespace cryptobench {
namespace {

using ByteVector = std::vector<std::uint8_t>;

ByteVector bytes(std::string_view s) { return ByteVector(s.begin(), s.end()); }

std::string hex(const ByteVector& v) {
  std::string text(v.size() * 2, '\0');
  (void)project_codec().encode(Encoding::kHex, v, {text.data(), text.size()});
  return text;
}

using KdfTest = testing::BackendTest;

TEST_P(KdfTest, HmacSha256Rfc4231) {
  auto kdf = backend().key_deriver();
  ASSERT_NE(kdf, nullptr) << "no key derivation available";
  ByteVector out(32);
  ASSERT_EQ(kdf->hmac_sha256(ByteVector(20, 0x0b), bytes("Hi There"), out), Error::kNone);
  EXPECT_EQ(hex(out), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  ASSERT_EQ(kdf->hmac_sha256(bytes("Jefe"), bytes("what do ya want for nothing?"), out),
            Error::kNone);
  EXPECT_EQ(hex(out), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  ByteVector truncated(16);  // an AES-128 key: the first 16 bytes
  ASSERT_EQ(kdf->hmac_sha256(bytes("Jefe"), bytes("what do ya want for nothing?"), truncated),
            Error::kNone);
  EXPECT_EQ(hex(truncated), "5bdcc146bf60754e6a042426089575c7");
}

TEST_P(KdfTest, EmptyKeyAndZeroIterations) {
  auto kdf = backend().key_deriver();
  ASSERT_NE(kdf, nullptr);
  ByteVector out(32);
  // Key the deriver first, so a backend that kept the previous key shows.
  ASSERT_EQ(kdf->hmac_sha256(bytes("Jefe"), bytes("x"), out), Error::kNone);
  ASSERT_EQ(kdf->hmac_sha256({}, {}, out), Error::kNone);
  EXPECT_EQ(hex(out), "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
  EXPECT_NE(kdf->pbkdf2_sha256(bytes("password"), bytes("salt"), 0, out), Error::kNone);
}

TEST_P(KdfTest, Pbkdf2HmacSha256Vectors) {
  auto kdf = backend().key_deriver();
  ASSERT_NE(kdf, nullptr);
  ByteVector out(32);
  ASSERT_EQ(kdf->pbkdf2_sha256(bytes("password"), bytes("salt"), 1, out), Error::kNone);
  EXPECT_EQ(hex(out), "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b");
  ASSERT_EQ(kdf->pbkdf2_sha256(bytes("password"), bytes("salt"), 2, out), Error::kNone);
  EXPECT_EQ(hex(out), "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43");
  ASSERT_EQ(kdf->pbkdf2_sha256(bytes("password"), bytes("salt"), 4096, out), Error::kNone);
  EXPECT_EQ(hex(out), "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a");
  ByteVector long_out(40);
  ASSERT_EQ(kdf->pbkdf2_sha256(bytes("passwordPASSWORDpassword"),
                               bytes("saltSALTsaltSALTsaltSALTsaltSALTsalt"), 4096, long_out),
            Error::kNone);
  EXPECT_EQ(hex(long_out),
            "348c89dbcbd32b2f32d814b8116e84cf2b17347ebc1800181c4e2a1fb8dd53e1c635518c7dac47e9");
}

TEST_P(KdfTest, AgreesWithEveryOtherBackend) {
  std::mt19937_64 rng(5);
  auto mine = backend().key_deriver();
  for (const std::string& other_name : usable_backend_names()) {
    auto theirs = open_backend(other_name)->key_deriver();
    for (int round = 0; round < 20; ++round) {
      ByteVector secret(1 + rng() % 80), salt(rng() % 40);
      for (auto& b : secret) b = static_cast<std::uint8_t>(rng());
      for (auto& b : salt) b = static_cast<std::uint8_t>(rng());
      const std::size_t length = 16 + 8 * (rng() % 3);
      ByteVector a(length), b(length);
      ASSERT_EQ(mine->hmac_sha256(secret, salt, a), Error::kNone);
      ASSERT_EQ(theirs->hmac_sha256(secret, salt, b), Error::kNone);
      EXPECT_EQ(a, b) << "HMAC differs from " << other_name;
      const unsigned iterations = 1 + static_cast<unsigned>(rng() % 50);
      ASSERT_EQ(mine->pbkdf2_sha256(secret, salt, iterations, a), Error::kNone);
      ASSERT_EQ(theirs->pbkdf2_sha256(secret, salt, iterations, b), Error::kNone);
      EXPECT_EQ(a, b) << "PBKDF2 differs from " << other_name;
    }
  }
}

// A backend without a KDF of its own gets the registry's fallback, and says
// whose it is.
TEST_P(KdfTest, ReportsWhoseKdfItUses) {
  const BackendInfo info = backend().info();
  const std::string described = kdf_description(info);
  EXPECT_FALSE(described.empty());
  if (info.kdf.empty()) {
    const std::string fallback = fallback_kdf_backend_name();
    ASSERT_FALSE(fallback.empty());
    EXPECT_NE(described.find("from the " + fallback + " backend"), std::string::npos) << described;
    EXPECT_NE(fallback, info.name);
  }
}

CRYPTOBENCH_INSTANTIATE_FOR_BACKENDS(KdfTest);

}  // namespace
}  // namespace cryptobench
