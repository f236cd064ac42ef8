// bad_input_test.cc: every backend answers bad keys, IVs, lengths and
// paddings with the documented typed error, never a crash, and never leaves
// plaintext in the output after a failed padding check.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tests/backend_test.h"

namespace cryptobench {
namespace {

using ByteVector = std::vector<std::uint8_t>;

const ByteVector kKey(16, 0x2b);
const ByteVector kIv(16, 0x01);

using BadInputTest = testing::BackendTest;

TEST_P(BadInputTest, KeyLengths) {
  CRYPTOBENCH_REQUIRE_BLOCK_MODE();
  for (const Mode mode : modes()) {
    auto cipher = backend().make_cipher(mode);
    for (const std::size_t length : {0u, 1u, 15u, 17u, 23u, 25u, 31u, 33u, 64u}) {
      EXPECT_EQ(cipher->set_key(ByteVector(length, 7)), Error::kKeyLength) << length;
    }
    // A cipher that never got a valid key refuses to work.
    ByteVector out(32);
    const Bytes iv = mode == Mode::kCbc ? Bytes(kIv) : Bytes();
    EXPECT_EQ(cipher->encrypt(Padding::kPkcs7, iv, ByteVector(5), out).error, Error::kKeyNotSet);
    EXPECT_EQ(cipher->decrypt(Padding::kPkcs7, iv, ByteVector(16), out).error, Error::kKeyNotSet);
  }
}

TEST_P(BadInputTest, FailedRekeyLeavesCipherUnkeyed) {
  CRYPTOBENCH_REQUIRE_BLOCK_MODE();
  for (const Mode mode : modes()) {
    auto cipher = backend().make_cipher(mode);
    ASSERT_EQ(cipher->set_key(kKey), Error::kNone);
    EXPECT_EQ(cipher->set_key(ByteVector(17)), Error::kKeyLength);
    ByteVector out(16);
    const Bytes iv = mode == Mode::kCbc ? Bytes(kIv) : Bytes();
    EXPECT_EQ(cipher->encrypt(Padding::kNone, iv, ByteVector(16), out).error, Error::kKeyNotSet);
  }
}

TEST_P(BadInputTest, IvLengths) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kCbc);
  auto cbc = backend().make_cipher(Mode::kCbc);
  ASSERT_EQ(cbc->set_key(kKey), Error::kNone);
  ByteVector out(64);
  for (const std::size_t length : {0u, 1u, 8u, 15u, 17u, 32u}) {
    const ByteVector iv(length);
    EXPECT_EQ(cbc->encrypt(Padding::kPkcs7, iv, ByteVector(10), out).error, Error::kIvLength);
    EXPECT_EQ(cbc->decrypt(Padding::kPkcs7, iv, ByteVector(16), out).error, Error::kIvLength);
  }
  if (offers(Mode::kEcb)) {
    auto ecb = backend().make_cipher(Mode::kEcb);
    ASSERT_EQ(ecb->set_key(kKey), Error::kNone);
    EXPECT_EQ(ecb->encrypt(Padding::kPkcs7, kIv, ByteVector(10), out).error, Error::kIvLength);
  }
}

TEST_P(BadInputTest, CiphertextLengths) {
  CRYPTOBENCH_REQUIRE_BLOCK_MODE();
  for (const Mode mode : modes()) {
    auto cipher = backend().make_cipher(mode);
    ASSERT_EQ(cipher->set_key(kKey), Error::kNone);
    const Bytes iv = mode == Mode::kCbc ? Bytes(kIv) : Bytes();
    ByteVector out(64, 0x77);
    EXPECT_EQ(cipher->decrypt(Padding::kPkcs7, iv, {}, out).error, Error::kInputLength);
    for (const std::size_t length : {1u, 15u, 17u, 31u, 33u}) {
      EXPECT_EQ(cipher->decrypt(Padding::kPkcs7, iv, ByteVector(length), out).error,
                Error::kInputLength);
      EXPECT_EQ(cipher->decrypt(Padding::kNone, iv, ByteVector(length), out).error,
                Error::kInputLength);
      EXPECT_EQ(cipher->encrypt(Padding::kNone, iv, ByteVector(length), out).error,
                Error::kInputLength);
    }
    EXPECT_EQ(out, ByteVector(64, 0x77)) << "output touched by a rejected call";
  }
}

TEST_P(BadInputTest, OutputTooSmall) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kCbc);
  auto cipher = backend().make_cipher(Mode::kCbc);
  ASSERT_EQ(cipher->set_key(kKey), Error::kNone);
  ByteVector small(16);
  // 16 bytes of plaintext pad to 32 bytes of ciphertext.
  EXPECT_EQ(cipher->encrypt(Padding::kPkcs7, kIv, ByteVector(16), small).error,
            Error::kOutputTooSmall);
  EXPECT_EQ(cipher->decrypt(Padding::kPkcs7, kIv, ByteVector(32), small).error,
            Error::kOutputTooSmall);
}

// Ciphertexts whose final plaintext block ends in a bad padding.
std::vector<std::pair<const char*, ByteVector>> bad_final_blocks() {
  std::vector<std::pair<const char*, ByteVector>> blocks;
  ByteVector b(16, 0x10);
  b[15] = 0;
  blocks.emplace_back("pad byte 0", b);
  b.assign(16, 17);
  blocks.emplace_back("pad byte 17", b);
  b.assign(16, 0xff);
  blocks.emplace_back("pad byte 255", b);
  b.assign(16, 0x41);
  b[12] = 3, b[13] = 4, b[14] = 4, b[15] = 4;
  blocks.emplace_back("unequal pad bytes (..03 04 04 04 for pad 4)", b);
  b.assign(16, 0x10);
  b[0] = 0x0f;
  blocks.emplace_back("unequal pad bytes (16 with first byte 15)", b);
  b.assign(16, 0x41);
  b[15] = 2;
  blocks.emplace_back("pad 2 with a data byte before it", b);
  return blocks;
}

TEST_P(BadInputTest, BadPaddingIsRejectedAndNothingIsReturned) {
  CRYPTOBENCH_REQUIRE_BLOCK_MODE();
  for (const Mode mode : modes()) {
    auto cipher = backend().make_cipher(mode);
    ASSERT_EQ(cipher->set_key(kKey), Error::kNone);
    const Bytes iv = mode == Mode::kCbc ? Bytes(kIv) : Bytes();
    for (const auto& [what, last_block] : bad_final_blocks()) {
      for (const std::size_t leading_blocks : {0u, 3u, 40u}) {
        SCOPED_TRACE(::testing::Message()
                     << mode_name(mode) << ": " << what << ", " << leading_blocks + 1 << " blocks");
        ByteVector plain(leading_blocks * 16, 0x61);
        plain.insert(plain.end(), last_block.begin(), last_block.end());
        ByteVector ct(plain.size());
        ASSERT_TRUE(cipher->encrypt(Padding::kNone, iv, plain, ct).ok());

        ByteVector out(ct.size(), 0x77);
        const Result r = cipher->decrypt(Padding::kPkcs7, iv, ct, out);
        EXPECT_EQ(r.error, Error::kBadPadding);
        EXPECT_EQ(r.size, 0u);
        EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](std::uint8_t x) { return x == 0; }))
            << "plaintext left in the output after a padding failure";

        // In place: the buffer that held the ciphertext is wiped too.
        ByteVector inplace = ct;
        EXPECT_EQ(cipher->decrypt(Padding::kPkcs7, iv, inplace, inplace).error, Error::kBadPadding);
        EXPECT_TRUE(
            std::all_of(inplace.begin(), inplace.end(), [](std::uint8_t x) { return x == 0; }));
      }
    }
  }
}

// Every final-byte value, and for each padding length every padding byte
// wrong in turn: accepted exactly when PKCS#7 says so, with that length.
TEST_P(BadInputTest, PaddingVerdictIsExactForEveryValueAndPosition) {
  CRYPTOBENCH_REQUIRE_MODE(Mode::kCbc);
  auto cipher = backend().make_cipher(Mode::kCbc);
  ASSERT_EQ(cipher->set_key(kKey), Error::kNone);
  const auto verdict = [&](const ByteVector& last_block) {
    ByteVector plain(32, 0x61);
    plain.insert(plain.end(), last_block.begin(), last_block.end());
    ByteVector ct(plain.size()), out(plain.size());
    EXPECT_TRUE(cipher->encrypt(Padding::kNone, kIv, plain, ct).ok());
    return cipher->decrypt(Padding::kPkcs7, kIv, ct, out);
  };
  for (int value = 0; value < 256; ++value) {
    const Result r = verdict(ByteVector(16, static_cast<std::uint8_t>(value)));
    if (value >= 1 && value <= 16) {
      EXPECT_TRUE(r.ok()) << "pad " << value;
      EXPECT_EQ(r.size, 48u - static_cast<std::size_t>(value));
    } else {
      EXPECT_EQ(r.error, Error::kBadPadding) << "pad byte " << value;
    }
  }
  for (int pad = 2; pad <= 16; ++pad) {
    for (int wrong = 16 - pad; wrong < 15; ++wrong) {
      ByteVector block(16, static_cast<std::uint8_t>(pad));
      block[static_cast<std::size_t>(wrong)] ^= 0x20;
      EXPECT_EQ(verdict(block).error, Error::kBadPadding) << "pad " << pad << ", byte " << wrong;
    }
  }
}

TEST(Errors, EveryErrorHasADescription) {
  for (const Error e :
       {Error::kKeyNotSet, Error::kKeyLength, Error::kIvLength, Error::kInputLength,
        Error::kOutputTooSmall, Error::kBadPadding, Error::kBadEncoding, Error::kLibraryFailure}) {
    EXPECT_FALSE(describe(e).empty());
    EXPECT_NE(describe(e), "ok");
  }
}

CRYPTOBENCH_INSTANTIATE_FOR_BACKENDS(BadInputTest);

}  // namespace
}  // namespace cryptobench
