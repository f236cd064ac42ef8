// aesni_kernels.h: the hand-written AES-NI primitives. Only aesni_kernels.cc
// is compiled with -maes; callers must check cpu_features().aesni first.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cryptobench::aesni {

inline constexpr int kMaxRounds = 14;

// KeySchedule: encryption round keys, and the decryption round keys of the
// Equivalent Inverse Cipher (FIPS-197 section 5.3.5) that AESDEC expects.
struct KeySchedule {
  alignas(16) std::uint8_t enc[kMaxRounds + 1][16];
  alignas(16) std::uint8_t dec[kMaxRounds + 1][16];
  int rounds = 0;  // 10, 12 or 14
};

// expand_key: key_size is 16, 24 or 32 (validated by the caller).
void expand_key(const std::uint8_t* key, std::size_t key_size, KeySchedule* schedule);

void ecb_encrypt(const KeySchedule& ks, const std::uint8_t* in, std::uint8_t* out,
                 std::size_t blocks);
void ecb_decrypt(const KeySchedule& ks, const std::uint8_t* in, std::uint8_t* out,
                 std::size_t blocks);
void cbc_encrypt(const KeySchedule& ks, const std::uint8_t* iv, const std::uint8_t* in,
                 std::uint8_t* out, std::size_t blocks);
void cbc_decrypt(const KeySchedule& ks, const std::uint8_t* iv, const std::uint8_t* in,
                 std::uint8_t* out, std::size_t blocks);

// decrypt_pkcs7: ECB (iv == nullptr) or CBC decryption with the PKCS#7 check,
// in constant time: returns the padding length (1..16), or 0 when the padding
// is invalid, in which case `out` has been written with zeros only.
std::size_t decrypt_pkcs7(const KeySchedule& ks, const std::uint8_t* iv, const std::uint8_t* in,
                          std::uint8_t* out, std::size_t blocks);

}  // namespace cryptobench::aesni
