// pkcs7.h: PKCS#7 padding (RFC 5652 section 6.3) for 16-byte blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace cryptobench {

inline constexpr std::size_t kAesBlockSize = 16;

// pkcs7_padded_size: ciphertext length for a plaintext of `length` bytes
// (always at least one byte of padding, so a whole block when aligned).
constexpr std::size_t pkcs7_padded_size(std::size_t length) {
  return (length / kAesBlockSize + 1) * kAesBlockSize;
}

// pkcs7_fill_last_block: writes the final block: the `tail_length` (< 16)
// trailing plaintext bytes followed by the padding.
void pkcs7_fill_last_block(const std::uint8_t* tail, std::size_t tail_length,
                           std::uint8_t block[kAesBlockSize]);

// pkcs7_padding_length: inspects a decrypted final block in constant time
// (no branch or memory access depends on its contents) and returns the
// padding length 1..16, or 0 when the padding is invalid.
std::size_t pkcs7_padding_length(const std::uint8_t block[kAesBlockSize]);

// secure_wipe: zeroes memory in a way the compiler may not elide. Inline, so
// a wipe of a known small size (a block on the stack) is a store or two, not
// a call.
inline void secure_wipe(void* data, std::size_t length) {
  if (length == 0) return;
  std::memset(data, 0, length);
  // The barrier tells the compiler the zeroed memory is observed.
  __asm__ __volatile__("" : : "r"(data) : "memory");
}

}  // namespace cryptobench
