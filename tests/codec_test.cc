// codec_test.cc: RFC 4648 section 10 vectors, round trips against the
// project codec, and strict rejection of malformed text, for every backend's
// codec and the project's own.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "tests/backend_test.h"

namespace cryptobench {
namespace {

using ByteVector = std::vector<std::uint8_t>;

struct Decoded {
  Result result;
  ByteVector bytes;
};

constexpr std::size_t kGuard = 16;
constexpr char kGuardChar = '\x5a';

// encode / decode write into buffers of exactly the advertised size with
// guard bytes after them, so a library's stray NUL terminator or overrun is
// caught (a std::string's own terminator slot would hide it).
std::string encode(const TextCodec& codec, Encoding e, std::string_view data) {
  const std::size_t size = encoded_size(e, data.size());
  std::vector<char> out(size + kGuard, kGuardChar);
  const Result r = codec.encode(
      e, {reinterpret_cast<const std::uint8_t*>(data.data()), data.size()}, {out.data(), size});
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(std::all_of(out.begin() + static_cast<long>(size), out.end(), [](char c) {
    return c == kGuardChar;
  })) << "encode wrote past its buffer";
  return std::string(out.data(), r.ok() ? r.size : 0);
}

Decoded decode(const TextCodec& codec, Encoding e, std::string_view text) {
  const std::size_t capacity = decode_capacity(e, text.size());
  ByteVector out(capacity + kGuard, 0x5a);
  const Result r = codec.decode(e, text, {out.data(), capacity});
  EXPECT_TRUE(std::all_of(out.begin() + static_cast<long>(capacity), out.end(), [](std::uint8_t b) {
    return b == 0x5a;
  })) << "decode wrote past its buffer";
  return {r, r.ok() ? ByteVector(out.begin(), out.begin() + static_cast<long>(r.size)) : out};
}

std::string as_string(const ByteVector& v) { return {v.begin(), v.end()}; }

// RFC 4648 section 10 test vectors.
const std::vector<std::pair<std::string, std::string>> kBase64Vectors = {{"", ""},
                                                                         {"f", "Zg=="},
                                                                         {"fo", "Zm8="},
                                                                         {"foo", "Zm9v"},
                                                                         {"foob", "Zm9vYg=="},
                                                                         {"fooba", "Zm9vYmE="},
                                                                         {"foobar", "Zm9vYmFy"}};
const std::vector<std::pair<std::string, std::string>> kHexVectors = {{"", ""},
                                                                      {"f", "66"},
                                                                      {"fo", "666f"},
                                                                      {"foo", "666f6f"},
                                                                      {"foob", "666f6f62"},
                                                                      {"fooba", "666f6f6261"},
                                                                      {"foobar", "666f6f626172"}};

const std::vector<std::string> kBadBase64 = {"Z",
                                             "Zg",
                                             "Zg=",
                                             "Zm9",
                                             "Zm9vY",  // length not a multiple of 4
                                             "Zg=a",
                                             "Z=g=",
                                             "=Zg=",
                                             "Zm9v====",
                                             "Zg==Zg==",  // misplaced padding
                                             "Z===",
                                             "====",  // too much padding
                                             "Zh==",
                                             "Zm9=",  // non-canonical: dropped bits set
                                             "Zm9v\n",
                                             " Zm9v",
                                             "Zm9 ",
                                             "Zm-v",
                                             "Zm_v",  // outside the alphabet
                                             std::string("Zm9v\0ab=", 8),
                                             "\xff\xff\xff\xff"};
const std::vector<std::string> kBadHex = {"6",   "666",  "6g",  "zz", " 66",
                                          "66 ", "0x66", "6\n", "--"};

void check_codec(const TextCodec& codec) {
  for (const auto& [plain, text] : kBase64Vectors) {
    EXPECT_EQ(encode(codec, Encoding::kBase64, plain), text);
    const Decoded d = decode(codec, Encoding::kBase64, text);
    ASSERT_TRUE(d.result.ok()) << text;
    EXPECT_EQ(as_string(d.bytes), plain);
  }
  for (const auto& [plain, text] : kHexVectors) {
    EXPECT_EQ(encode(codec, Encoding::kHex, plain), text);
    std::string upper = text;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const std::string& t : {text, upper}) {
      const Decoded d = decode(codec, Encoding::kHex, t);
      ASSERT_TRUE(d.result.ok()) << t;
      EXPECT_EQ(as_string(d.bytes), plain);
    }
  }
  for (const std::string& bad : kBadBase64) {
    const Decoded d = decode(codec, Encoding::kBase64, bad);
    EXPECT_EQ(d.result.error, Error::kBadEncoding) << "accepted Base64 '" << bad << "'";
  }
  for (const std::string& bad : kBadHex) {
    const Decoded d = decode(codec, Encoding::kHex, bad);
    EXPECT_EQ(d.result.error, Error::kBadEncoding) << "accepted hex '" << bad << "'";
  }
}

TEST(ProjectCodec, Rfc4648VectorsAndMalformedInput) { check_codec(project_codec()); }

// The textbook encoder, one character at a time: what the project codec's
// vector and table paths must both equal.
std::string reference_base64(const ByteVector& in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (const std::uint8_t b : in) {
    bits = bits << 8 | b;
    count += 8;
    while (count >= 6) {
      count -= 6;
      out += kAlphabet[(bits >> count) & 63];
    }
  }
  if (count > 0) out += kAlphabet[(bits << (6 - count)) & 63];
  while (out.size() % 4 != 0) out += '=';
  return out;
}

// Every length across the vector widths (24-byte and 32-character groups and
// the tails around them), on random bytes: encode equals the reference and
// decoding gives the bytes back.
TEST(ProjectCodec, Base64MatchesReferenceAtEveryLength) {
  std::mt19937_64 rng(23);
  for (std::size_t length = 0; length <= 400; ++length) {
    ByteVector data(length);
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    const std::string text = encode(project_codec(), Encoding::kBase64, as_string(data));
    ASSERT_EQ(text, reference_base64(data)) << "length " << length;
    const Decoded d = decode(project_codec(), Encoding::kBase64, text);
    ASSERT_TRUE(d.result.ok()) << "length " << length;
    ASSERT_EQ(d.bytes, data) << "length " << length;
  }
}

// One character outside the alphabet, anywhere in a long text (inside the
// vector groups or the tail), of every byte value, is rejected.
TEST(ProjectCodec, Base64RejectsEveryBadCharacterAtEveryPosition) {
  std::mt19937_64 rng(29);
  ByteVector data(150);
  for (auto& b : data) b = static_cast<std::uint8_t>(rng());
  const std::string good = reference_base64(data);  // 200 characters, no padding
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::size_t rejected = 0;
  for (int value = 0; value < 256; ++value) {
    const char c = static_cast<char>(value);
    if (alphabet.find(c) != std::string::npos) continue;
    for (std::size_t pos = 0; pos < good.size(); pos += value % 7 + 1) {
      std::string bad = good;
      bad[pos] = c;
      const Decoded d = decode(project_codec(), Encoding::kBase64, bad);
      ASSERT_EQ(d.result.error, Error::kBadEncoding) << "byte " << value << " at " << pos;
      ASSERT_TRUE(std::all_of(d.bytes.begin(), d.bytes.begin() + 150, [](std::uint8_t b) {
        return b == 0;
      })) << "output not wiped";
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 5000u);
}

TEST(ProjectCodec, RejectsTooSmallBuffers) {
  std::vector<char> text(3);
  const std::uint8_t data[3] = {1, 2, 3};
  EXPECT_EQ(project_codec().encode(Encoding::kBase64, data, text).error, Error::kOutputTooSmall);
  ByteVector out(2);
  EXPECT_EQ(project_codec().decode(Encoding::kBase64, "Zm9v", out).error, Error::kOutputTooSmall);
}

TEST(ProjectCodec, FailedDecodeWipesOutput) {
  ByteVector out(6, 0x77);
  EXPECT_EQ(project_codec().decode(Encoding::kBase64, "Zm9vZm9!", out).error, Error::kBadEncoding);
  EXPECT_EQ(out, ByteVector(6, 0));
}

using BackendCodecTest = testing::BackendTest;

TEST_P(BackendCodecTest, Rfc4648VectorsAndMalformedInput) { check_codec(backend().codec()); }

TEST_P(BackendCodecTest, RoundTripsMatchProjectCodec) {
  std::mt19937_64 rng(3);
  for (std::size_t length = 0; length <= 300; length += 1 + length / 8) {
    std::string data(length, '\0');
    for (char& c : data) c = static_cast<char>(rng());
    for (const Encoding e : {Encoding::kBase64, Encoding::kHex}) {
      const std::string mine = encode(backend().codec(), e, data);
      EXPECT_EQ(mine, encode(project_codec(), e, data)) << encoding_name(e) << " length " << length;
      const Decoded d = decode(backend().codec(), e, mine);
      ASSERT_TRUE(d.result.ok());
      EXPECT_EQ(as_string(d.bytes), data);
    }
  }
}

CRYPTOBENCH_INSTANTIATE_FOR_BACKENDS(BackendCodecTest);

}  // namespace
}  // namespace cryptobench
