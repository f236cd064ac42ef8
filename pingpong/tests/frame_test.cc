// The ping-pong's frame (pingpong/frame.h) on every backend that offers
// AES-128-GCM: the nonce layout, a frame sealed by OpenSSL that the Go and
// Java peers check too, and the opener refusing every single-bit change, a
// wrong nonce and a wrong message.
#include "pingpong/frame.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "kernels/registry.h"

namespace cryptobench::pingpong {
namespace {

// "pingpong testkey"; ping 3 of connection 7 as OpenSSL seals it (also in
// go/frame/frame.go and java/Frames.java), and its pong.
constexpr char kTestKey[] = "pingpong testkey";
constexpr char kPingFrame[] = "000000070000000000000003da57d4e283639f0bceeccd3f5508100357fb8af5";
constexpr char kPongFrame[] = "00000007010000000000000340950096d94766dfbcfc42c637a65fde2b87fddc";

std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

const std::uint8_t* test_key() { return reinterpret_cast<const std::uint8_t*>(kTestKey); }

TEST(PingPongNonce, LayoutRoundTrips) {
  std::uint8_t nonce[kNonceSize];
  make_nonce({0x01020304, Direction::kPong, 0x00a0b0c0d0e0f1}, nonce);
  EXPECT_EQ(hex(nonce, kNonceSize), "010203040100a0b0c0d0e0f1");
  NonceFields back;
  ASSERT_TRUE(read_nonce(nonce, back));
  EXPECT_EQ(back.connection, 0x01020304u);
  EXPECT_EQ(back.direction, Direction::kPong);
  EXPECT_EQ(back.counter, 0x00a0b0c0d0e0f1u);
  nonce[4] = 2;  // neither ping nor pong
  EXPECT_FALSE(read_nonce(nonce, back));
}

TEST(PingPongKey, ParsesHexOnly) {
  std::array<std::uint8_t, kKeySize> key{};
  EXPECT_TRUE(parse_key("000102030405060708090a0b0c0d0E0F", key));
  EXPECT_EQ(key[15], 0x0f);
  EXPECT_FALSE(parse_key("000102030405060708090a0b0c0d0e0", key));     // 31 digits
  EXPECT_FALSE(parse_key("000102030405060708090a0b0c0d0e0f00", key));  // 34
  EXPECT_FALSE(parse_key("000102030405060708090a0b0c0d0e0g", key));    // not hex
}

class PingPongFrame : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const BackendEntry* entry = find_backend(GetParam());
    ASSERT_NE(entry, nullptr);
    if (const std::string why = unusable_reason(*entry); !why.empty()) {
      GTEST_SKIP() << GetParam() << " cannot run on this CPU: " << why;
    }
    backend_ = entry->open();
    if (!offers_key(*backend_, Mode::kGcm, kKeySize)) {
      GTEST_SKIP() << GetParam() << " does not offer AES-128-GCM (12-byte nonces, 16-byte tags): "
                   << backend_->info().not_offered;
    }
    frames_ = std::make_unique<FrameCipher>(backend_->make_gcm(), test_key());
  }
  std::unique_ptr<AesBackend> backend_;
  std::unique_ptr<FrameCipher> frames_;
};

TEST_P(PingPongFrame, SealsTheKnownFrames) {
  std::uint8_t frame[kSealedFrameSize];
  ASSERT_TRUE(frames_->seal({7, Direction::kPing, 3}, kPingMessage.data(), frame));
  EXPECT_EQ(hex(frame, kSealedFrameSize), kPingFrame);
  ASSERT_TRUE(frames_->seal({7, Direction::kPong, 3}, kPongMessage.data(), frame));
  EXPECT_EQ(hex(frame, kSealedFrameSize), kPongFrame);
  EXPECT_EQ(frames_->open(frame, {7, Direction::kPong, 3}, kPongMessage), OpenStatus::kOk);
}

TEST_P(PingPongFrame, RefusesEverySingleBitChange) {
  std::uint8_t genuine[kSealedFrameSize];
  const NonceFields fields{7, Direction::kPong, 3};
  ASSERT_TRUE(frames_->seal(fields, kPongMessage.data(), genuine));
  for (std::size_t bit = 0; bit < 8 * kSealedFrameSize; ++bit) {
    std::uint8_t frame[kSealedFrameSize];
    std::memcpy(frame, genuine, sizeof frame);
    frame[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    // A changed nonce is not the one expected; a changed ciphertext or tag
    // does not authenticate.
    const OpenStatus want = bit < 8 * kNonceSize ? OpenStatus::kWrongNonce : OpenStatus::kBadTag;
    EXPECT_EQ(frames_->open(frame, fields, kPongMessage), want) << "bit " << bit;
  }
}

TEST_P(PingPongFrame, RefusesAnotherNonceOrMessage) {
  std::uint8_t frame[kSealedFrameSize];
  ASSERT_TRUE(frames_->seal({7, Direction::kPong, 3}, kPongMessage.data(), frame));
  // A replayed or reordered pong, another connection's, a ping for a pong.
  EXPECT_EQ(frames_->open(frame, {7, Direction::kPong, 4}, kPongMessage), OpenStatus::kWrongNonce);
  EXPECT_EQ(frames_->open(frame, {8, Direction::kPong, 3}, kPongMessage), OpenStatus::kWrongNonce);
  EXPECT_EQ(frames_->open(frame, {7, Direction::kPing, 3}, kPongMessage), OpenStatus::kWrongNonce);
  // Authentic, but "Pong" where "Ping" is expected.
  EXPECT_EQ(frames_->open(frame, {7, Direction::kPong, 3}, kPingMessage),
            OpenStatus::kWrongMessage);
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const BackendEntry* entry : compiled_backends()) out.emplace_back(entry->name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, PingPongFrame, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string n = param.param;
                           for (char& c : n) {
                             if (c == '-') c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace cryptobench::pingpong
