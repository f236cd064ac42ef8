// pkcs7.cc: the padding check runs over all 16 bytes with masks instead of
// branches, so its timing does not reveal where or whether the padding is
// wrong (the padding-oracle attack of Vaudenay, EUROCRYPT 2002).
#include "kernels/pkcs7.h"

#include <cstring>

namespace cryptobench {
namespace {

// All-ones when a < b (both < 2^31), else zero, without a branch.
std::uint32_t mask_less_than(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::uint32_t>(0) - ((a - b) >> 31);
}

// All-ones when a == b, else zero.
std::uint32_t mask_equal(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t diff = a ^ b;
  return static_cast<std::uint32_t>(0) - (((diff | (0u - diff)) >> 31) ^ 1u);
}

}  // namespace

void pkcs7_fill_last_block(const std::uint8_t* tail, std::size_t tail_length,
                           std::uint8_t block[kAesBlockSize]) {
  // A fixed-size fill first (one store; a variable-length memset becomes a
  // slow string instruction), then the tail over it in fixed-size pieces of
  // 8, 4, 2 and 1 bytes (plain moves; a variable-length memcpy is a library
  // call). The length is public, so branching on it leaks nothing.
  std::memset(block, static_cast<int>(kAesBlockSize - tail_length), kAesBlockSize);
  std::size_t done = 0;
  if ((tail_length & 8) != 0) {
    std::memcpy(block, tail, 8);
    done = 8;
  }
  if ((tail_length & 4) != 0) {
    std::memcpy(block + done, tail + done, 4);
    done += 4;
  }
  if ((tail_length & 2) != 0) {
    std::memcpy(block + done, tail + done, 2);
    done += 2;
  }
  if ((tail_length & 1) != 0) block[done] = tail[done];
}

std::size_t pkcs7_padding_length(const std::uint8_t block[kAesBlockSize]) {
  const std::uint32_t pad = block[kAesBlockSize - 1];
  // Valid pad values are 1..16.
  std::uint32_t good = ~mask_equal(pad, 0) & mask_less_than(pad, kAesBlockSize + 1);
  // Every byte at distance i < pad from the end must equal pad.
  for (std::uint32_t i = 0; i < kAesBlockSize; ++i) {
    const std::uint32_t in_padding = mask_less_than(i, pad);
    const std::uint32_t byte = block[kAesBlockSize - 1 - i];
    good &= ~in_padding | mask_equal(byte, pad);
  }
  return pad & good;
}

}  // namespace cryptobench
