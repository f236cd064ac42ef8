// pkcs7_test.cc: the padding rules, checked exhaustively over the last byte.
#include "kernels/pkcs7.h"

#include <gtest/gtest.h>

#include <array>

namespace cryptobench {
namespace {

TEST(Pkcs7, PaddedSizeAlwaysAddsPadding) {
  EXPECT_EQ(pkcs7_padded_size(0), 16u);
  EXPECT_EQ(pkcs7_padded_size(15), 16u);
  EXPECT_EQ(pkcs7_padded_size(16), 32u);
  EXPECT_EQ(pkcs7_padded_size(107), 112u);
}

TEST(Pkcs7, FillThenCheckRoundTrips) {
  for (std::size_t tail = 0; tail < 16; ++tail) {
    std::array<std::uint8_t, 16> data{};
    data.fill(0x33);
    std::array<std::uint8_t, 16> block{};
    pkcs7_fill_last_block(data.data(), tail, block.data());
    EXPECT_EQ(pkcs7_padding_length(block.data()), 16 - tail);
  }
}

TEST(Pkcs7, EveryLastByteValue) {
  for (int pad = 0; pad < 256; ++pad) {
    std::array<std::uint8_t, 16> block{};
    block.fill(static_cast<std::uint8_t>(pad));
    const std::size_t expected = (pad >= 1 && pad <= 16) ? static_cast<std::size_t>(pad) : 0;
    EXPECT_EQ(pkcs7_padding_length(block.data()), expected) << pad;
  }
}

TEST(Pkcs7, OneWrongPaddingByteAnywhereIsRejected) {
  for (int pad = 2; pad <= 16; ++pad) {
    for (int wrong = 16 - pad; wrong < 15; ++wrong) {
      std::array<std::uint8_t, 16> block{};
      block.fill(static_cast<std::uint8_t>(pad));
      block[static_cast<std::size_t>(wrong)] ^= 0x01;
      EXPECT_EQ(pkcs7_padding_length(block.data()), 0u) << "pad " << pad << " byte " << wrong;
    }
  }
}

}  // namespace
}  // namespace cryptobench
