// key_derivation.h: per-operation key derivation, the cost seed 002 found:
// HMAC-SHA256 over a pre-computed high-entropy secret and a per-operation salt
// (RFC 2104, FIPS 180-4), or PBKDF2-HMAC-SHA256 (RFC 8018 section 5.2).
// Each library backend derives with its own library; a KeyDeriver keeps its
// contexts between calls and is used by one thread.
#pragma once

#include <memory>

#include "kernels/aes_cipher.h"

namespace cryptobench {

inline constexpr std::size_t kSha256Size = 32;

class KeyDeriver {
 public:
  virtual ~KeyDeriver() = default;

  // hmac_sha256: `out` receives the first out.size() (1..32) bytes of
  // HMAC-SHA256(secret, message).
  virtual Error hmac_sha256(Bytes secret, Bytes message, MutableBytes out) = 0;
  // pbkdf2_sha256: PBKDF2 with HMAC-SHA256, out.size() bytes (1..64 here);
  // 0 iterations is an error on every backend.
  virtual Error pbkdf2_sha256(Bytes password, Bytes salt, unsigned iterations,
                              MutableBytes out) = 0;
};

}  // namespace cryptobench
